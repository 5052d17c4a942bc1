//! Why a pasted file could not be read: one error type for the three readers
//! (config.json, a DeepSpeed config, TrainingArguments). Data (keys, kinds,
//! numbers), so that the page words it in its language and the CLI in English
//! ([`fmt::Display`]); [`super::Rejected`] names the file it is in.

use std::fmt;

use super::hf::MODEL_TYPES;
use super::json;
use crate::fields::{Bound, Range};

#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// Not JSON at all.
    NotJson(json::SyntaxError),
    /// JSON, but not an object at the top.
    NotAnObject { found: json::Kind },
    /// A key the reader needs is absent.
    Missing { key: &'static str },
    /// A key has the wrong type of value (`"hidden_size": "4096"`).
    WrongType {
        key: &'static str,
        expected: json::Kind,
        found: json::Kind,
    },
    /// A number outside `range`, or a fraction where a whole number belongs;
    /// `whole`: the message says that a whole number is wanted.
    BadValue {
        key: &'static str,
        range: Range,
        whole: bool,
    },
    /// A value that is not one of the names `key` takes.
    NotAnOption {
        key: &'static str,
        found: String,
        allowed: &'static [&'static str],
    },
    /// `model_type` names a family the config.json reader does not read.
    UnknownModelType { found: String },
    /// A key describing something batchfit does not model: experts in a
    /// dense family's config, or a MoE layout no parameter expresses.
    Unsupported { key: &'static str },
    /// A layout of windowed and global layers that is not "every n-th layer
    /// global" (`layer_types`, or Qwen's `max_window_layers`).
    LayerPattern { key: &'static str },
    /// Two settings that cannot both hold (`fp16` and `bf16` both enabled).
    Contradiction {
        key: &'static str,
        with: &'static str,
    },
    /// DeepSpeed's `train_batch_size` is not micro-batch × accumulation × GPUs
    /// (deepspeed/runtime/config.py `_batch_assertion`).
    BatchMismatch {
        train_batch_size: u64,
        micro_batch: u64,
        accumulation: u64,
        gpus: u64,
    },
    /// A DeepSpeed value the TrainingArguments contradict (transformers
    /// `HfTrainerDeepSpeedConfig.fill_match`: the Trainer refuses to start).
    Mismatch {
        key: &'static str,
        deepspeed: String,
        trainer_key: &'static str,
        trainer: String,
    },
}

impl Error {
    /// `key` must be a whole number from `min` to `max`.
    pub fn whole(key: &'static str, min: u64, max: u64) -> Self {
        Self::BadValue {
            key,
            range: Range {
                min: Bound::Whole(min),
                max: Bound::Whole(max),
            },
            whole: true,
        }
    }
}

impl fmt::Display for Error {
    /// One English line, for the CLI (which puts the file's name before it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotJson(error) => write!(f, "the file is {error}"),
            Self::NotAnObject { found } => {
                write!(
                    f,
                    "the file must be an object {{…}}, not {}",
                    found.english()
                )
            }
            Self::Missing { key } => write!(f, "the file has no `{key}`"),
            Self::WrongType {
                key,
                expected,
                found,
            } => write!(
                f,
                "`{key}` must be {}, not {}",
                expected.english(),
                found.english()
            ),
            Self::BadValue { key, range, whole } => {
                let whole = if *whole { " a whole number" } else { "" };
                write!(
                    f,
                    "`{key}` must be{whole} from {} to {}",
                    range.min, range.max
                )
            }
            Self::NotAnOption {
                key,
                found,
                allowed,
            } => write!(
                f,
                "`{key}` \"{found}\" must be one of: {}",
                allowed.join(", ")
            ),
            Self::UnknownModelType { found } => {
                write!(
                    f,
                    "`model_type` \"{found}\" is not one batchfit reads ({})",
                    MODEL_TYPES.join(", ")
                )
            }
            Self::Unsupported { key } => {
                write!(
                    f,
                    "`{key}` describes something batchfit does not model here"
                )
            }
            Self::LayerPattern { key } => write!(
                f,
                "`{key}`: only every n-th layer global, the others windowed, is modelled"
            ),
            Self::Contradiction { key, with } => {
                write!(f, "`{key}` and `{with}` cannot both be true")
            }
            Self::BatchMismatch {
                train_batch_size,
                micro_batch,
                accumulation,
                gpus,
            } => write!(
                f,
                "`train_batch_size` {train_batch_size} is not `train_micro_batch_size_per_gpu` {micro_batch} × `gradient_accumulation_steps` {accumulation} × {gpus} GPUs (`gpus`)"
            ),
            Self::Mismatch {
                key,
                deepspeed,
                trainer_key,
                trainer,
            } => write!(
                f,
                "`{key}` is {deepspeed} but TrainingArguments' `{trainer_key}` gives {trainer}; set it to \"auto\" or make them agree"
            ),
        }
    }
}

impl std::error::Error for Error {}
