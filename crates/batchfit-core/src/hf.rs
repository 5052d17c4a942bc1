//! Hugging Face `config.json` → [`Architecture`]. The key names follow the
//! `transformers` configuration classes of each family: Llama, Mistral, Qwen2,
//! Gemma and Phi-3 (`num_hidden_layers`, `hidden_size`, …), GPT-2 (`n_layer`,
//! `n_embd`, `n_head`, `n_inner`, `n_positions`), BERT and ViT.
//!
//! ```
//! let config = r#"{"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12,
//!                  "n_inner": null, "n_positions": 1024, "vocab_size": 50257}"#;
//! let arch = batchfit_core::hf::import(config).unwrap();
//! assert_eq!(batchfit_core::transformer::parameter_count(&arch).total, 124_439_808);
//! ```

use std::fmt;

use crate::activations::{HIDDEN, LAYERS};
use crate::fields::{Range, WholeField};
use crate::json::{self, Json};
use crate::transformer::{self as tf, Architecture, Kind, Mlp, Norm};

/// The families this importer reads, as `model_type` spells them.
pub const MODEL_TYPES: &[&str] = &[
    "llama", "mistral", "qwen2", "gemma", "phi3", "gpt2", "bert", "vit",
];

/// Keys that describe an architecture batchfit does not model (mixture of
/// experts): importing such a config would give a wrong count.
const UNSUPPORTED_KEYS: &[&str] = &[
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "moe_intermediate_size",
];

/// Why a pasted config could not be imported: data (keys, kinds, numbers), so
/// that the page words it in its language and the CLI in English.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportError {
    /// Not JSON at all.
    NotJson(json::SyntaxError),
    /// JSON, but not an object at the top.
    NotAnObject { found: json::Kind },
    /// A key the family needs is absent.
    Missing { key: &'static str },
    /// A key has the wrong type of value (`"hidden_size": "4096"`).
    WrongType {
        key: &'static str,
        expected: json::Kind,
        found: json::Kind,
    },
    /// A number batchfit does not accept for that quantity: a fraction where
    /// a whole number belongs (`fraction`), or outside `range`.
    BadValue {
        key: &'static str,
        range: Range,
        fraction: bool,
    },
    /// `model_type` names a family this importer does not read.
    UnknownModelType { found: String },
    /// A key describing something batchfit does not model.
    Unsupported { key: &'static str },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotJson(error) => write!(f, "the config is {error}"),
            Self::NotAnObject { found } => {
                write!(
                    f,
                    "a config.json is an object {{…}}, not {}",
                    found.english()
                )
            }
            Self::Missing { key } => write!(f, "the config has no `{key}`"),
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
            Self::BadValue {
                key,
                range,
                fraction,
            } => {
                let whole = if *fraction { " a whole number" } else { "" };
                write!(
                    f,
                    "`{key}` must be{whole} from {} to {}",
                    range.min, range.max
                )
            }
            Self::UnknownModelType { found } => {
                write!(
                    f,
                    "`model_type` \"{found}\" is not one batchfit reads ({})",
                    MODEL_TYPES.join(", ")
                )
            }
            Self::Unsupported { key } => {
                write!(f, "`{key}`: mixture-of-experts models are not modelled")
            }
        }
    }
}

impl std::error::Error for ImportError {}

/// The object of a config, read key by key.
struct Keys<'a>(&'a Json);

impl Keys<'_> {
    fn get(&self, key: &'static str) -> Option<&Json> {
        self.0.get(key).filter(|v| **v != Json::Null)
    }

    fn whole(&self, key: &'static str, field: WholeField) -> Result<Option<u64>, ImportError> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let Json::Number(x) = *value else {
            return Err(ImportError::WrongType {
                key,
                expected: json::Kind::Number,
                found: value.kind(),
            });
        };
        let bad = |fraction| ImportError::BadValue {
            key,
            range: field.range(),
            fraction,
        };
        if x.fract() != 0.0 {
            return Err(bad(true));
        }
        if !(field.min as f64..=field.max as f64).contains(&x) {
            return Err(bad(false));
        }
        // Whole and within u64 bounds: exact.
        Ok(Some(x as u64))
    }

    fn required(&self, key: &'static str, field: WholeField) -> Result<u64, ImportError> {
        self.whole(key, field)?.ok_or(ImportError::Missing { key })
    }

    fn switch(&self, key: &'static str) -> Result<Option<bool>, ImportError> {
        match self.get(key) {
            None => Ok(None),
            Some(Json::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(ImportError::WrongType {
                key,
                expected: json::Kind::Bool,
                found: other.kind(),
            }),
        }
    }

    fn positive(&self, key: &'static str) -> Result<Option<bool>, ImportError> {
        match self.get(key) {
            None => Ok(None),
            Some(Json::Number(x)) => Ok(Some(*x > 0.0)),
            Some(other) => Err(ImportError::WrongType {
                key,
                expected: json::Kind::Number,
                found: other.kind(),
            }),
        }
    }
}

/// Reads a pasted config.json.
pub fn import(text: &str) -> Result<Architecture, ImportError> {
    let document = json::parse(text).map_err(ImportError::NotJson)?;
    if !matches!(document, Json::Object(_)) {
        return Err(ImportError::NotAnObject {
            found: document.kind(),
        });
    }
    let keys = Keys(&document);
    if let Some(key) = UNSUPPORTED_KEYS.iter().find(|k| keys.get(k).is_some()) {
        return Err(ImportError::Unsupported { key });
    }
    let model_type = match keys.get("model_type") {
        Some(Json::String(s)) => s.as_str(),
        Some(other) => {
            return Err(ImportError::WrongType {
                key: "model_type",
                expected: json::Kind::String,
                found: other.kind(),
            });
        }
        None => return Err(ImportError::Missing { key: "model_type" }),
    };
    match model_type {
        "llama" | "mistral" | "qwen2" | "gemma" | "phi3" => llama_like(&keys, model_type),
        "gpt2" => gpt2(&keys),
        "bert" | "vit" => bert_like(&keys, model_type == "vit"),
        other => Err(ImportError::UnknownModelType {
            found: other.to_owned(),
        }),
    }
}

/// Llama-style families: RMSNorm, gated MLP (SwiGLU; GeGLU in Gemma), rotary.
fn llama_like(keys: &Keys<'_>, model_type: &str) -> Result<Architecture, ImportError> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    Ok(Architecture {
        kind: Kind::Decoder,
        layers: keys.required("num_hidden_layers", LAYERS)?,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        // Absent means multi-head attention (the classes' default).
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(heads),
        head_dim: keys.whole("head_dim", tf::HEAD_DIM)?.unwrap_or(0),
        ffn: keys.required("intermediate_size", tf::FFN)?,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        // PretrainedConfig defaults to tied; LlamaConfig, MistralConfig,
        // Qwen2Config and Phi3Config default to untied, GemmaConfig to tied.
        tied: keys
            .switch("tie_word_embeddings")?
            .unwrap_or(model_type == "gemma"),
        bias: false,
        // Qwen2 always has Q/K/V biases; Llama's `attention_bias` adds them (and
        // an output bias, which is h parameters per layer: not counted).
        qkv_bias: model_type == "qwen2" || keys.switch("attention_bias")?.unwrap_or(false),
        positions: 0,
        token_types: 0,
        labels: 0,
        dropout: keys.positive("attention_dropout")?.unwrap_or(false),
        ..Architecture::default()
    })
}

fn gpt2(keys: &Keys<'_>) -> Result<Architecture, ImportError> {
    let hidden = keys.required("n_embd", HIDDEN)?;
    let heads = keys.required("n_head", tf::HEADS)?;
    Ok(Architecture {
        kind: Kind::Decoder,
        layers: keys.required("n_layer", LAYERS)?,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: 0,
        // GPT2Config: `n_inner` null means 4 × n_embd.
        ffn: keys.whole("n_inner", tf::FFN)?.unwrap_or(4 * hidden),
        mlp: Mlp::Gelu,
        norm: Norm::LayerNorm,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        // GPT-2's LM head is always the input embedding.
        tied: true,
        bias: true,
        qkv_bias: false,
        positions: keys.required("n_positions", tf::POSITIONS)?,
        token_types: 0,
        labels: 0,
        dropout: keys.positive("resid_pdrop")?.unwrap_or(true),
        ..Architecture::default()
    })
}

/// BERT (encoder) and ViT (vision) share their key names.
fn bert_like(keys: &Keys<'_>, vision: bool) -> Result<Architecture, ImportError> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    let common = Architecture {
        layers: keys.required("num_hidden_layers", LAYERS)?,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        kv_heads: heads,
        head_dim: 0,
        ffn: keys.required("intermediate_size", tf::FFN)?,
        mlp: Mlp::Gelu,
        norm: Norm::LayerNorm,
        tied: false,
        bias: true,
        qkv_bias: false,
        labels: 0,
        ..Architecture::default()
    };
    if vision {
        return Ok(Architecture {
            kind: Kind::Vision,
            vocab: 1,
            positions: 0,
            token_types: 0,
            // ViTConfig defaults: 224-pixel images, 16-pixel patches, RGB, no dropout.
            image: keys.whole("image_size", tf::IMAGE)?.unwrap_or(224),
            patch: keys.whole("patch_size", tf::PATCH)?.unwrap_or(16),
            channels: keys.whole("num_channels", tf::CHANNELS)?.unwrap_or(3),
            dropout: keys.positive("hidden_dropout_prob")?.unwrap_or(false),
            ..common
        });
    }
    Ok(Architecture {
        kind: Kind::Encoder,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        positions: keys.required("max_position_embeddings", tf::POSITIONS)?,
        // BertConfig default: 2 segment types.
        token_types: keys.whole("type_vocab_size", tf::TOKEN_TYPES)?.unwrap_or(2),
        dropout: keys.positive("hidden_dropout_prob")?.unwrap_or(true),
        ..common
    })
}

#[cfg(test)]
mod tests;
