//! Hugging Face `config.json` → [`Architecture`]. The key names follow the
//! `transformers` configuration classes of each family: Llama, Mistral, Qwen2,
//! Gemma and Phi-3 (`num_hidden_layers`, `hidden_size`, …), GPT-2 (`n_layer`,
//! `n_embd`, `n_head`, `n_inner`, `n_positions`), BERT and ViT, and the
//! mixture-of-experts families Mixtral, Qwen3-MoE, DeepSeek-V3 (and Kimi
//! K2), OLMoE, gpt-oss and Llama 4 (`num_local_experts`, `num_experts`,
//! `n_routed_experts`, `moe_intermediate_size`, `kv_lora_rank`, …).
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
    "llama",
    "mistral",
    "qwen2",
    "gemma",
    "phi3",
    "gpt2",
    "bert",
    "vit",
    "mixtral",
    "qwen3_moe",
    "deepseek_v3",
    "kimi_k2",
    "olmoe",
    "gpt_oss",
    "llama4",
];

/// Keys of experts, which the dense families' classes do not build:
/// importing such a config as dense would give a wrong count.
const EXPERT_KEYS: &[&str] = &[
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
    /// A key describing something batchfit does not model: experts in a
    /// dense family's config, or a MoE layout no parameter expresses.
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
                write!(
                    f,
                    "`{key}` describes something batchfit does not model here"
                )
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
    let dense = matches!(
        model_type,
        "llama" | "mistral" | "qwen2" | "gemma" | "phi3" | "gpt2" | "bert" | "vit"
    );
    if let Some(key) = EXPERT_KEYS.iter().find(|k| dense && keys.get(k).is_some()) {
        return Err(ImportError::Unsupported { key });
    }
    match model_type {
        "llama" | "mistral" | "qwen2" | "gemma" | "phi3" => llama_like(&keys, model_type),
        "gpt2" => gpt2(&keys),
        "bert" | "vit" => bert_like(&keys, model_type == "vit"),
        "mixtral" | "olmoe" | "qwen3_moe" | "gpt_oss" => routed(&keys, model_type),
        // Moonshot's Kimi K2 is DeepseekV3ForCausalLM under its own
        // `model_type` (its README: set it to deepseek_v3 where a framework
        // does not know it).
        "deepseek_v3" | "kimi_k2" => deepseek_v3(&keys),
        "llama4" => match keys.get("text_config") {
            Some(text @ Json::Object(_)) => llama4(&Keys(text), &keys),
            Some(other) => Err(ImportError::WrongType {
                key: "text_config",
                expected: json::Kind::Object,
                found: other.kind(),
            }),
            None => Err(ImportError::Missing { key: "text_config" }),
        },
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

/// Mixtral, OLMoE, Qwen3-MoE and gpt-oss: a Llama-style decoder whose every
/// FFN (Qwen3-MoE: every `decoder_sparse_step`-th) is `num_experts` (or
/// `num_local_experts`) routed experts, top `num_experts_per_tok`.
fn routed(keys: &Keys<'_>, model_type: &str) -> Result<Architecture, ImportError> {
    let dense = llama_like(keys, model_type)?;
    let experts_key = match model_type {
        "olmoe" | "qwen3_moe" => "num_experts",
        _ => "num_local_experts",
    };
    let experts = keys.required(experts_key, tf::EXPERTS)?;
    let experts_active = keys.required("num_experts_per_tok", tf::EXPERTS_ACTIVE)?;
    let base = Architecture {
        experts,
        experts_active,
        ..dense
    };
    Ok(match model_type {
        // models/qwen3_moe: `moe_intermediate_size` per expert, QK-norm per
        // head, `(layer_idx + 1) % decoder_sparse_step == 0` layers sparse
        // and `mlp_only_layers` dense.
        "qwen3_moe" => {
            dense_layer_list(keys, "mlp_only_layers")?;
            Architecture {
                expert_ffn: keys.required("moe_intermediate_size", tf::EXPERT_FFN)?,
                moe_every: keys
                    .whole("decoder_sparse_step", tf::MOE_EVERY)?
                    .unwrap_or(1),
                qk_norm: true,
                qkv_bias: keys.switch("attention_bias")?.unwrap_or(false),
                ..base
            }
        }
        // models/olmoe/modeling_olmoe.py: `q_norm = RMSNorm(hidden_size)`,
        // `k_norm = RMSNorm(head_dim × kv_heads)`: over the whole projections.
        "olmoe" => Architecture {
            qk_norm: true,
            qk_norm_full: true,
            qkv_bias: false,
            bias: false,
            ..base
        },
        // models/gpt_oss: biases on Q, K, V, O (`attention_bias`, default
        // true), on every expert and on the router; per-head sinks.
        "gpt_oss" => Architecture {
            head_dim: keys.whole("head_dim", tf::HEAD_DIM)?.unwrap_or(64),
            bias: keys.switch("attention_bias")?.unwrap_or(true),
            qkv_bias: false,
            attn_sinks: true,
            ..base
        },
        // models/mixtral: `intermediate_size` is each expert's size.
        _ => base,
    })
}

/// A list of layer indices that would make layers dense against the
/// step rule: only an empty (or absent) one is modelled.
fn dense_layer_list(keys: &Keys<'_>, key: &'static str) -> Result<(), ImportError> {
    match keys.get(key) {
        None => Ok(()),
        Some(Json::Array(layers)) if layers.is_empty() => Ok(()),
        Some(Json::Array(_)) => Err(ImportError::Unsupported { key }),
        Some(other) => Err(ImportError::WrongType {
            key,
            expected: json::Kind::Array,
            found: other.kind(),
        }),
    }
}

/// DeepSeek-V3 (transformers models/deepseek_v3/configuration_deepseek_v3.py
/// and modeling_deepseek_v3.py): MLA, `first_k_dense_replace` dense layers of
/// `intermediate_size`, then MoE layers of `n_routed_experts` experts of
/// `moe_intermediate_size` and `n_shared_experts` shared ones. transformers
/// builds every later layer as MoE (`layer_idx >= first_k_dense_replace`;
/// `moe_layer_freq` is not read) and leaves the multi-token-prediction layer
/// (`num_nextn_predict_layers`) unloaded.
fn deepseek_v3(keys: &Keys<'_>) -> Result<Architecture, ImportError> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    Ok(Architecture {
        kind: Kind::Decoder,
        layers: keys.required("num_hidden_layers", LAYERS)?,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(heads),
        ffn: keys.required("intermediate_size", tf::FFN)?,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        tied: keys.switch("tie_word_embeddings")?.unwrap_or(false),
        bias: keys.switch("attention_bias")?.unwrap_or(false),
        experts: keys.required("n_routed_experts", tf::EXPERTS)?,
        experts_active: keys.required("num_experts_per_tok", tf::EXPERTS_ACTIVE)?,
        expert_ffn: keys.required("moe_intermediate_size", tf::EXPERT_FFN)?,
        shared_experts: keys
            .whole("n_shared_experts", tf::SHARED_EXPERTS)?
            .unwrap_or(0),
        first_dense_layers: keys
            .whole("first_k_dense_replace", tf::FIRST_DENSE_LAYERS)?
            .unwrap_or(0),
        kv_lora_rank: keys.required("kv_lora_rank", tf::KV_LORA_RANK)?,
        // `q_lora_rank: null` (DeepSeek-V2-Lite) projects the queries directly.
        q_lora_rank: keys.whole("q_lora_rank", tf::Q_LORA_RANK)?.unwrap_or(0),
        qk_rope_head_dim: keys.required("qk_rope_head_dim", tf::QK_ROPE_HEAD_DIM)?,
        qk_nope_head_dim: keys.required("qk_nope_head_dim", tf::QK_NOPE_HEAD_DIM)?,
        v_head_dim: keys.required("v_head_dim", tf::V_HEAD_DIM)?,
        dropout: keys.positive("attention_dropout")?.unwrap_or(false),
        ..Architecture::default()
    })
}

/// Llama 4's text model (`text_config`; transformers models/llama4):
/// `num_local_experts` experts of `intermediate_size` and one shared expert
/// of the same size in the layers of `interleave_moe_layer_step`, dense
/// layers of `intermediate_size_mlp` between them. Its QK-norm is an L2 norm
/// without weights (`Llama4TextL2Norm`), and its chunked attention is not
/// modelled (full attention is counted). The published configs keep
/// `tie_word_embeddings` beside `text_config`, not in it.
fn llama4(keys: &Keys<'_>, outer: &Keys<'_>) -> Result<Architecture, ImportError> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    let layers = keys.required("num_hidden_layers", LAYERS)?;
    let step = keys
        .whole("interleave_moe_layer_step", tf::MOE_EVERY)?
        .unwrap_or(1);
    // `moe_layers`, when given, must be the step rule's layers.
    match keys.get("moe_layers") {
        None => {}
        Some(Json::Array(list)) => {
            let rule: Vec<Json> = (step - 1..layers)
                .step_by(usize::try_from(step).unwrap_or(usize::MAX))
                .map(|layer| Json::Number(layer as f64))
                .collect();
            let same = *list == rule;
            if !same {
                return Err(ImportError::Unsupported { key: "moe_layers" });
            }
        }
        Some(other) => {
            return Err(ImportError::WrongType {
                key: "moe_layers",
                expected: json::Kind::Array,
                found: other.kind(),
            });
        }
    }
    Ok(Architecture {
        kind: Kind::Decoder,
        layers,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(heads),
        head_dim: keys.whole("head_dim", tf::HEAD_DIM)?.unwrap_or(0),
        ffn: keys.required("intermediate_size_mlp", tf::FFN)?,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        tied: match keys.switch("tie_word_embeddings")? {
            Some(tied) => tied,
            None => outer.switch("tie_word_embeddings")?.unwrap_or(false),
        },
        qkv_bias: keys.switch("attention_bias")?.unwrap_or(false),
        experts: keys.required("num_local_experts", tf::EXPERTS)?,
        experts_active: keys.required("num_experts_per_tok", tf::EXPERTS_ACTIVE)?,
        expert_ffn: keys.required("intermediate_size", tf::EXPERT_FFN)?,
        shared_experts: 1,
        moe_every: step,
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
