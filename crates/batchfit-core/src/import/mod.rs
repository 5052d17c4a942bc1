//! Configuration files people already have, read onto the URL format: a
//! DeepSpeed config ([`deepspeed`]) and Hugging Face `TrainingArguments`
//! as JSON ([`training_args`]). Each becomes URL parameters, so that the
//! result is a query string (a shareable link) that [`crate::query::parse`]
//! reads like any other, plus [`Note`]s for what changes memory and batchfit
//! does not model. Problems are data ([`Error`]), worded by whoever shows them.
//!
//! ```
//! use batchfit_core::import::{self, Context, Files};
//!
//! let deepspeed = r#"{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}},
//!                     "bf16": {"enabled": true}, "train_micro_batch_size_per_gpu": 4}"#;
//! let files = Files { deepspeed: Some(deepspeed), training_args: None };
//! let imported = import::files(&files, &Context { hidden: Some(4096), gpus: 8 }).unwrap();
//! assert_eq!(imported.query(), "framework=deepspeed&zero=2&offload=1&recipe=amp16&batch=4&bucket_m=500");
//! ```

pub mod deepspeed;
mod error;
pub mod hf;
pub mod json;
pub mod training_args;

use std::fmt;

use crate::param::Param;
use crate::query;
use json::Json;

pub use error::Error;

/// What the files say, as URL parameters, and what of them is not modelled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imported {
    /// In the order first set; setting a parameter again replaces its value.
    pub params: Vec<(Param, String)>,
    pub notes: Vec<Note>,
}

impl Imported {
    pub(crate) fn set(&mut self, param: Param, value: impl ToString) {
        let value = value.to_string();
        match self.params.iter_mut().find(|(p, _)| *p == param) {
            Some(slot) => slot.1 = value,
            None => self.params.push((param, value)),
        }
    }

    pub(crate) fn note(&mut self, note: Note) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The value set for `param`, if any.
    pub fn get(&self, param: Param) -> Option<&str> {
        self.params
            .iter()
            .find(|(p, _)| *p == param)
            .map(|(_, v)| v.as_str())
    }

    /// `later`'s parameters replace these; notes of both are kept.
    pub(crate) fn merge(&mut self, later: Imported) {
        for (param, value) in later.params {
            self.set(param, value);
        }
        for note in later.notes {
            self.note(note);
        }
    }

    /// The parameters as a query string, without the leading `?`.
    pub fn query(&self) -> String {
        self.params
            .iter()
            .map(|(p, v)| format!("{}={}", p.name(), query::encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// What the reader needs from outside the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// The model's hidden size, for DeepSpeed's `"auto"` bucket sizes; `None`
    /// when nothing names the model (no preset, no `hidden`, no config.json).
    pub hidden: Option<u64>,
    /// Data-parallel GPUs (`gpus`): DeepSpeed's and the Trainer's world size.
    pub gpus: u64,
}

/// The texts of the files given; either may be absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Files<'a> {
    pub deepspeed: Option<&'a str>,
    pub training_args: Option<&'a str>,
}

/// Which file a problem is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A Hugging Face config.json ([`hf`]).
    ModelConfig,
    Deepspeed,
    TrainingArgs,
}

/// What the `"auto"` of a key needed and was not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Filled from `TrainingArguments` by the Hugging Face Trainer.
    TrainingArgs,
    /// Filled from the model's hidden size.
    HiddenSize,
}

/// Something a file says that the estimate does not follow exactly.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// A setting that changes memory and batchfit does not model; the
    /// estimate leaves it out. `elements`: its size, when it is one.
    NotModelled {
        key: &'static str,
        elements: Option<u64>,
    },
    /// `"auto"` resolved from something not given: the query's value applies.
    Auto { key: &'static str, needs: Needs },
    /// An optimizer batchfit has no model of: `optimizer` stays as the query sets it.
    UnknownOptimizer { key: &'static str, name: String },
    /// `TrainingArguments.deepspeed` names a file: read only when given itself.
    DeepspeedPath { path: String },
    /// DeepSpeed's `activation_checkpointing` acts only where the model's code
    /// calls `deepspeed.checkpointing.checkpoint`: `recompute` stays as the
    /// query (or `gradient_checkpointing`) sets it.
    ModelCheckpointing,
}

impl fmt::Display for Note {
    /// One English line, for the CLI.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotModelled {
                key,
                elements: Some(n),
            } => write!(
                f,
                "`{key}` ({} elements) is not modelled: the estimate leaves it out",
                crate::fields::group_thousands(*n)
            ),
            Self::NotModelled {
                key,
                elements: None,
            } => write!(f, "`{key}` is not modelled: the estimate leaves it out"),
            Self::Auto {
                key,
                needs: Needs::TrainingArgs,
            } => write!(
                f,
                "`{key}` is \"auto\", which the Trainer fills from TrainingArguments; none given, so the query's value applies"
            ),
            Self::Auto {
                key,
                needs: Needs::HiddenSize,
            } => write!(
                f,
                "`{key}` is \"auto\", which needs the model's hidden size; give `model=`, `hidden=` or --config"
            ),
            Self::UnknownOptimizer { key, name } => write!(
                f,
                "`{key}` \"{name}\" is not an optimizer batchfit models; `optimizer` stays as the query sets it"
            ),
            Self::ModelCheckpointing => write!(
                f,
                "`activation_checkpointing` acts only where the model calls deepspeed.checkpointing.checkpoint: give `recompute=full` if it does (its partitioned and CPU-held checkpoints are not modelled)"
            ),
            Self::DeepspeedPath { path } => write!(
                f,
                "`deepspeed` names \"{path}\": give that file with --deepspeed to read it"
            ),
        }
    }
}

/// A problem and the file it is in.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    pub source: Source,
    pub error: Error,
}

/// Reads the files given: TrainingArguments first, then the DeepSpeed config
/// (given itself, or inline as `TrainingArguments.deepspeed`) with its
/// `"auto"` values resolved from them, its settings replacing theirs: with
/// DeepSpeed the engine, not the Trainer, holds the model states.
pub fn files(files: &Files<'_>, context: &Context) -> Result<Imported, Rejected> {
    let reject = |source| move |error| Rejected { source, error };
    let trainer = files
        .training_args
        .map(|text| training_args::read(text, context))
        .transpose()
        .map_err(reject(Source::TrainingArgs))?;
    let mut out = Imported::default();
    let mut inline = None;
    if let Some(trainer) = &trainer {
        out = trainer.imported.clone();
        match &trainer.deepspeed {
            Some(training_args::Deepspeed::Inline(doc)) => inline = Some(doc),
            Some(training_args::Deepspeed::Path(path)) if files.deepspeed.is_none() => {
                out.note(Note::DeepspeedPath { path: path.clone() })
            }
            Some(training_args::Deepspeed::Path(_)) | None => {}
        }
    }
    let values = trainer.as_ref().map(|t| t.values);
    let from_deepspeed = match (files.deepspeed, inline) {
        (Some(text), _) => Some(
            document(text)
                .and_then(|doc| deepspeed::map(&doc, context, values.as_ref()))
                .map_err(reject(Source::Deepspeed))?,
        ),
        (None, Some(doc)) => Some(
            deepspeed::map(doc, context, values.as_ref()).map_err(reject(Source::TrainingArgs))?,
        ),
        (None, None) => None,
    };
    if let Some(from_deepspeed) = from_deepspeed {
        out.merge(from_deepspeed);
    }
    Ok(out)
}

/// Which configuration file a pasted text is, from the keys only each kind
/// has: a DeepSpeed config (deepspeed/runtime/constants.py: `train_batch_size`,
/// `train_micro_batch_size_per_gpu`, `zero_optimization`), Hugging Face
/// `TrainingArguments` as JSON (`per_device_train_batch_size`, `output_dir`),
/// or else a model's config.json, which `hf::import` reads and judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    ModelConfig,
    Deepspeed,
    TrainingArgs,
}

/// The kind of `text` (a model config when it is not a JSON object: the
/// config.json reader says what is wrong with it).
pub fn kind_of(text: &str) -> FileKind {
    let Ok(doc) = document(text) else {
        return FileKind::ModelConfig;
    };
    let has = |keys: &[&str]| keys.iter().any(|k| doc.get(k).is_some());
    if has(&["per_device_train_batch_size", "output_dir"]) {
        FileKind::TrainingArgs
    } else if has(&[
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "zero_optimization",
    ]) {
        FileKind::Deepspeed
    } else {
        FileKind::ModelConfig
    }
}

/// Parses a file that must be one JSON object.
pub(crate) fn document(text: &str) -> Result<Json, Error> {
    let doc = json::parse(text).map_err(Error::NotJson)?;
    match doc {
        Json::Object(_) => Ok(doc),
        other => Err(Error::NotAnObject {
            found: other.kind(),
        }),
    }
}

/// A value, or `"auto"` (filled by the Hugging Face integration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value<T> {
    Auto,
    Is(T),
}

/// The member at a dotted path (`zero_optimization.stage`); `null` is absent.
pub(crate) fn at<'a>(doc: &'a Json, path: &str) -> Option<&'a Json> {
    path.split('.')
        .try_fold(doc, |node, key| node.get(key))
        .filter(|v| **v != Json::Null)
}

fn wrong(key: &'static str, expected: json::Kind, found: &Json) -> Error {
    Error::WrongType {
        key,
        expected,
        found: found.kind(),
    }
}

/// A whole number in `min..=max` (DeepSpeed configs write `5e8`), or `"auto"`.
pub(crate) fn whole(
    doc: &Json,
    key: &'static str,
    min: u64,
    max: u64,
) -> Result<Option<Value<u64>>, Error> {
    match at(doc, key) {
        None => Ok(None),
        Some(Json::String(s)) if s == "auto" => Ok(Some(Value::Auto)),
        Some(Json::Number(x)) => {
            if x.fract() != 0.0 || !(min as f64..=max as f64).contains(x) {
                return Err(Error::whole(key, min, max));
            }
            // Whole and inside u64's range: exact.
            Ok(Some(Value::Is(*x as u64)))
        }
        Some(other) => Err(wrong(key, json::Kind::Number, other)),
    }
}

/// `true`/`false`, or `"auto"`.
pub(crate) fn flag(doc: &Json, key: &'static str) -> Result<Option<Value<bool>>, Error> {
    match at(doc, key) {
        None => Ok(None),
        Some(Json::Bool(b)) => Ok(Some(Value::Is(*b))),
        Some(Json::String(s)) if s == "auto" => Ok(Some(Value::Auto)),
        Some(other) => Err(wrong(key, json::Kind::Bool, other)),
    }
}

/// A string.
pub(crate) fn text<'a>(doc: &'a Json, key: &'static str) -> Result<Option<&'a str>, Error> {
    match at(doc, key) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        Some(other) => Err(wrong(key, json::Kind::String, other)),
    }
}

#[cfg(test)]
mod tests;
