//! Hugging Face `config.json` → [`Architecture`]. The key names follow the
//! `transformers` configuration classes of each family: Llama, Mistral, Qwen2,
//! Qwen3, Gemma, Gemma 2, Gemma 3, OLMo 2, Phi-1/2 and Phi-3/Phi-4
//! (`num_hidden_layers`, `hidden_size`, …), GPT-2 (`n_layer`, `n_embd`,
//! `n_head`, `n_inner`, `n_positions`), BERT and ViT, and the
//! mixture-of-experts families Mixtral, Qwen3-MoE, DeepSeek-V3 (and Kimi
//! K2), OLMoE, gpt-oss and Llama 4 (`num_local_experts`, `num_experts`,
//! `n_routed_experts`, `moe_intermediate_size`, `kv_lora_rank`, …).
//!
//! ```
//! let config = r#"{"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12,
//!                  "n_inner": null, "n_positions": 1024, "vocab_size": 50257}"#;
//! let arch = batchfit_core::import::hf::import(config).unwrap();
//! assert_eq!(batchfit_core::transformer::parameter_count(&arch).total, 124_439_808);
//! ```

use super::Error;
use super::json::{self, Json};
use crate::activations::{HIDDEN, LAYERS};
use crate::fields::WholeField;
use crate::transformer::{self as tf, Architecture, Block, Kind, Mlp, Norm};

/// The families this importer reads, as `model_type` spells them.
pub const MODEL_TYPES: &[&str] = &[
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "gemma",
    "gemma2",
    "gemma3_text",
    "gemma3",
    "olmo2",
    "phi",
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
    "qwen3_next",
    "granitemoehybrid",
];

/// Keys of experts, which the dense families' classes do not build:
/// importing such a config as dense would give a wrong count.
const EXPERT_KEYS: &[&str] = &[
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "moe_intermediate_size",
];

/// A list of layers, `true` for a global one, as "every n-th layer global":
/// n (0 when no layer is global) when the list has `layers` entries and
/// follows that rule from its first global layer.
fn every_nth(global: &[bool], layers: u64, key: &'static str) -> Result<u64, Error> {
    let every = global.iter().position(|g| *g).map_or(0, |i| i as u64 + 1);
    let fits = global.len() as u64 == layers
        && global
            .iter()
            .enumerate()
            .all(|(i, g)| *g == (every > 0 && (i as u64 + 1).is_multiple_of(every)));
    if fits {
        Ok(every)
    } else {
        Err(Error::LayerPattern { key })
    }
}

/// The object of a config, read key by key.
struct Keys<'a>(&'a Json);

impl Keys<'_> {
    fn get(&self, key: &'static str) -> Option<&Json> {
        self.0.get(key).filter(|v| **v != Json::Null)
    }

    fn whole(&self, key: &'static str, field: WholeField) -> Result<Option<u64>, Error> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let Json::Number(x) = *value else {
            return Err(Error::WrongType {
                key,
                expected: json::Kind::Number,
                found: value.kind(),
            });
        };
        let bad = |whole| Error::BadValue {
            key,
            range: field.range(),
            whole,
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

    fn required(&self, key: &'static str, field: WholeField) -> Result<u64, Error> {
        self.whole(key, field)?.ok_or(Error::Missing { key })
    }

    fn switch(&self, key: &'static str) -> Result<Option<bool>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Json::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(Error::WrongType {
                key,
                expected: json::Kind::Bool,
                found: other.kind(),
            }),
        }
    }

    /// A number or `null` where `null` switches something off and absence
    /// means the class's default: `Some(true)` for a number, `Some(false)` for
    /// `null`, `None` when the key is absent.
    fn set_or_null(&self, key: &'static str) -> Result<Option<bool>, Error> {
        match self.0.get(key) {
            None => Ok(None),
            Some(Json::Null) => Ok(Some(false)),
            Some(Json::Number(_)) => Ok(Some(true)),
            Some(other) => Err(Error::WrongType {
                key,
                expected: json::Kind::Number,
                found: other.kind(),
            }),
        }
    }

    /// The sliding window: a window length, `null` (none) or the class's
    /// default when absent.
    fn window(&self, default: u64) -> Result<u64, Error> {
        match self.0.get("sliding_window") {
            None => Ok(default),
            Some(Json::Null) => Ok(0),
            Some(_) => Ok(self.whole("sliding_window", tf::WINDOW)?.unwrap_or(0)),
        }
    }

    /// `layer_types` as "every n-th layer global": `Some(n)` (0 when no layer
    /// is global), `None` when absent.
    fn layer_types(&self, layers: u64) -> Result<Option<u64>, Error> {
        const KEY: &str = "layer_types";
        let Some(value) = self.get(KEY) else {
            return Ok(None);
        };
        let Json::Array(items) = value else {
            return Err(Error::WrongType {
                key: KEY,
                expected: json::Kind::Array,
                found: value.kind(),
            });
        };
        // Llama 4's local layers are "chunked_attention": transformers caches
        // them as sliding ones (cache_utils.py `DynamicCache.__init__`).
        let mut global = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Json::String(t) if t == "full_attention" => global.push(true),
                Json::String(t) if t == "sliding_attention" || t == "chunked_attention" => {
                    global.push(false);
                }
                _ => return Err(Error::LayerPattern { key: KEY }),
            }
        }
        every_nth(&global, layers, KEY).map(Some)
    }

    /// A hybrid model's list of layer kinds (`layer_types`, Granite's
    /// `layers_block_type`) as a full-attention interval: the full-attention
    /// layers one every n, evenly spaced (batchfit places them at the n-th,
    /// 2n-th…: the same count, docs/model.md §3.13). `None` when absent.
    fn hybrid_layers(&self, key: &'static str, layers: u64) -> Result<Option<u64>, Error> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let Json::Array(items) = value else {
            return Err(Error::WrongType {
                key,
                expected: json::Kind::Array,
                found: value.kind(),
            });
        };
        let mut attending = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item {
                Json::String(t) if t == "full_attention" || t == "attention" => {
                    attending.push(i as u64);
                }
                Json::String(t) if t == "linear_attention" || t == "mamba" => {}
                _ => return Err(Error::LayerPattern { key }),
            }
        }
        let count = attending.len() as u64;
        let every = layers.checked_div(count).unwrap_or(0);
        let spaced = items.len() as u64 == layers
            && count > 0
            && every * count == layers
            && attending
                .iter()
                .enumerate()
                .all(|(k, i)| *i == attending[0] + k as u64 * every);
        if spaced {
            Ok(Some(every))
        } else {
            Err(Error::LayerPattern { key })
        }
    }

    /// Qwen2/Qwen3's optional window (configuration_qwen2.py,
    /// configuration_qwen3.py): with `use_sliding_window`, layers from
    /// `max_window_layers` (default 28) on attend through `sliding_window`
    /// (default 4096); without it, none does. Returns (window, global_every).
    fn qwen_window(&self, layers: u64) -> Result<(u64, u64), Error> {
        if !self.switch("use_sliding_window")?.unwrap_or(false) {
            return Ok((0, 0));
        }
        let first = self
            .whole("max_window_layers", LAYERS_OR_NONE)?
            .unwrap_or(28);
        match first {
            0 => Ok((self.window(4096)?, 0)),
            n if n >= layers => Ok((0, 0)),
            _ => Err(Error::LayerPattern {
                key: "max_window_layers",
            }),
        }
    }

    /// A two-matrix MLP's activation from `key` (`activation_function`,
    /// `hidden_act`), `default` when absent: transformers activations.py
    /// `ACT2FN["gelu_new"]` is `NewGELUActivation`, element-wise operations
    /// ([`Mlp::GeluNew`]); every other name is counted as one kernel
    /// ([`Mlp::Gelu`]: `gelu` is `nn.functional.gelu`, `gelu_pytorch_tanh`
    /// `F.gelu(approximate="tanh")`).
    fn gelu(&self, key: &'static str, default: Mlp) -> Result<Mlp, Error> {
        match self.get(key) {
            None => Ok(default),
            Some(Json::String(name)) if name == "gelu_new" => Ok(Mlp::GeluNew),
            Some(Json::String(_)) => Ok(Mlp::Gelu),
            Some(other) => Err(Error::WrongType {
                key,
                expected: json::Kind::String,
                found: other.kind(),
            }),
        }
    }

    fn positive(&self, key: &'static str) -> Result<Option<bool>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Json::Number(x)) => Ok(Some(*x > 0.0)),
            Some(other) => Err(Error::WrongType {
                key,
                expected: json::Kind::Number,
                found: other.kind(),
            }),
        }
    }
}

/// `max_window_layers`: any layer count, 0 included.
const LAYERS_OR_NONE: WholeField = WholeField { min: 0, ..LAYERS };

/// Reads a pasted config.json.
pub fn import(text: &str) -> Result<Architecture, Error> {
    let document = json::parse(text).map_err(Error::NotJson)?;
    if !matches!(document, Json::Object(_)) {
        return Err(Error::NotAnObject {
            found: document.kind(),
        });
    }
    let keys = Keys(&document);
    let model_type = match keys.get("model_type") {
        Some(Json::String(s)) => s.as_str(),
        Some(other) => {
            return Err(Error::WrongType {
                key: "model_type",
                expected: json::Kind::String,
                found: other.kind(),
            });
        }
        None => return Err(Error::Missing { key: "model_type" }),
    };
    let dense = matches!(
        model_type,
        "llama" | "mistral" | "qwen2" | "gemma" | "phi3" | "gpt2" | "bert" | "vit"
    );
    if let Some(key) = EXPERT_KEYS.iter().find(|k| dense && keys.get(k).is_some()) {
        return Err(Error::Unsupported { key });
    }
    match model_type {
        "llama" | "mistral" | "qwen2" | "qwen3" | "gemma" | "phi3" | "olmo2" => {
            llama_like(&keys, model_type)
        }
        "gemma2" | "gemma3_text" => gemma(&keys, model_type),
        // Gemma3ForConditionalGeneration: the language model is `text_config`
        // (the vision tower is not counted).
        "gemma3" => match keys.get("text_config") {
            Some(text @ Json::Object(_)) => gemma(&Keys(text), "gemma3_text"),
            Some(other) => Err(Error::WrongType {
                key: "text_config",
                expected: json::Kind::Object,
                found: other.kind(),
            }),
            None => Err(Error::Missing { key: "text_config" }),
        },
        "phi" => phi(&keys),
        "gpt2" => gpt2(&keys),
        "bert" | "vit" => bert_like(&keys, model_type == "vit"),
        "mixtral" | "olmoe" | "qwen3_moe" | "gpt_oss" => routed(&keys, model_type),
        // Moonshot's Kimi K2 is DeepseekV3ForCausalLM under its own
        // `model_type` (its README: set it to deepseek_v3 where a framework
        // does not know it).
        "deepseek_v3" | "kimi_k2" => deepseek_v3(&keys),
        "qwen3_next" => qwen3_next(&keys),
        "granitemoehybrid" => granite_hybrid(&keys),
        "llama4" => match keys.get("text_config") {
            Some(text @ Json::Object(_)) => llama4(&Keys(text), &keys),
            Some(other) => Err(Error::WrongType {
                key: "text_config",
                expected: json::Kind::Object,
                found: other.kind(),
            }),
            None => Err(Error::Missing { key: "text_config" }),
        },
        other => Err(Error::UnknownModelType {
            found: other.to_owned(),
        }),
    }
}

/// Llama-style families: RMSNorm, gated MLP (SwiGLU; GeGLU in Gemma), rotary;
/// Qwen3 with per-head QK-norm, OLMo 2 with its norms after the blocks.
fn llama_like(keys: &Keys<'_>, model_type: &str) -> Result<Architecture, Error> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    let layers = keys.required("num_hidden_layers", LAYERS)?;
    let (window, global_every) = match model_type {
        // MistralConfig defaults to a 4,096-token window, Phi3Config to none;
        // either applies to every layer.
        "mistral" => (keys.window(4096)?, 0),
        "phi3" => (keys.window(0)?, 0),
        "qwen2" | "qwen3" => keys.qwen_window(layers)?,
        _ => (0, 0),
    };
    let olmo2 = model_type == "olmo2";
    // GemmaRMSNorm, like Olmo2RMSNorm, multiplies the weight in FP32
    // (transformers models/gemma/modeling_gemma.py, PR 29402).
    let fp32_weight = olmo2 || model_type == "gemma";
    Ok(Architecture {
        kind: Kind::Decoder,
        layers,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        // Absent means multi-head attention (the classes' default).
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(heads),
        // Qwen3Config defaults head_dim to 128; the others to hidden / heads.
        head_dim: keys
            .whole("head_dim", tf::HEAD_DIM)?
            .unwrap_or(if model_type == "qwen3" { 128 } else { 0 }),
        ffn: keys.required("intermediate_size", tf::FFN)?,
        mlp: Mlp::Swiglu,
        norm: if fp32_weight {
            Norm::RmsNormFp32
        } else {
            Norm::RmsNorm
        },
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        // PretrainedConfig defaults to tied; LlamaConfig, MistralConfig,
        // Qwen2Config, Qwen3Config, Olmo2Config and Phi3Config default to
        // untied, GemmaConfig to tied.
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
        qk_norm: matches!(model_type, "qwen3" | "olmo2"),
        qk_norm_full: olmo2,
        block: if olmo2 { Block::Post } else { Block::Pre },
        window,
        global_every,
        // transformers models/phi3/modeling_phi3.py: `qkv_proj` and
        // `gate_up_proj` are one matrix each; the other families' q_proj,
        // k_proj, v_proj, gate_proj and up_proj are separate.
        fused_proj: if model_type == "phi3" {
            tf::FusedProj::All
        } else {
            tf::FusedProj::None
        },
        ..Architecture::default()
    })
}

/// Gemma 2 and Gemma 3's text model (configuration_gemma2.py,
/// configuration_gemma3.py `Gemma3TextConfig`): four norms per layer with the
/// weight applied in FP32, GeGLU, a tied head. Absent keys take the classes'
/// defaults, as transformers fills them (the multimodal Gemma 3 checkpoints
/// publish a `text_config` of a few keys).
fn gemma(keys: &Keys<'_>, model_type: &str) -> Result<Architecture, Error> {
    let gemma3 = model_type == "gemma3_text";
    let layers = keys.required("num_hidden_layers", LAYERS)?;
    let heads = keys.whole("num_attention_heads", tf::HEADS)?.unwrap_or(8);
    // Gemma2Config alternates (`bool((i + 1) % 2)`: the first layer
    // windowed); Gemma3TextConfig puts a global layer every
    // `sliding_window_pattern` (6), newer configs write `layer_types`.
    let pattern = match keys.layer_types(layers)? {
        Some(every) => every,
        None if gemma3 => {
            let key = if keys.get("sliding_window_pattern").is_some() {
                "sliding_window_pattern"
            } else {
                "_sliding_window_pattern"
            };
            keys.whole(key, tf::GLOBAL_EVERY)?.unwrap_or(6)
        }
        None => 2,
    };
    Ok(Architecture {
        kind: Kind::Decoder,
        layers,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(4),
        head_dim: keys.whole("head_dim", tf::HEAD_DIM)?.unwrap_or(256),
        ffn: keys.required("intermediate_size", tf::FFN)?,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNormFp32,
        vocab: keys.whole("vocab_size", tf::VOCAB)?.unwrap_or(if gemma3 {
            262_208
        } else {
            256_000
        }),
        tied: keys.switch("tie_word_embeddings")?.unwrap_or(true),
        bias: false,
        qkv_bias: keys.switch("attention_bias")?.unwrap_or(false),
        dropout: keys.positive("attention_dropout")?.unwrap_or(false),
        qk_norm: gemma3,
        block: Block::Sandwich,
        window: keys.window(4096)?,
        global_every: pattern,
        // Gemma2Config defaults: 30.0 and 50.0; Gemma3TextConfig: None.
        softcap: keys
            .set_or_null("final_logit_softcapping")?
            .unwrap_or(!gemma3),
        attn_softcap: keys
            .set_or_null("attn_logit_softcapping")?
            .unwrap_or(!gemma3),
        ..Architecture::default()
    })
}

/// Phi-1 and Phi-2 (configuration_phi.py, modeling_phi.py): attention and a
/// GELU MLP side by side on one LayerNorm, biases on every linear map and on
/// the untied head, partial rotary embeddings (no parameters).
fn phi(keys: &Keys<'_>) -> Result<Architecture, Error> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    Ok(Architecture {
        kind: Kind::Decoder,
        layers: keys.required("num_hidden_layers", LAYERS)?,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(heads),
        head_dim: 0,
        ffn: keys.required("intermediate_size", tf::FFN)?,
        // PhiConfig: `hidden_act="gelu_new"`; PhiAttention's q_proj, k_proj,
        // v_proj are separate (`fused_proj` none, the default).
        mlp: keys.gelu("hidden_act", Mlp::GeluNew)?,
        norm: Norm::LayerNorm,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        tied: keys.switch("tie_word_embeddings")?.unwrap_or(false),
        bias: true,
        qkv_bias: false,
        positions: 0,
        token_types: 0,
        labels: 0,
        // PhiDecoderLayer drops the attention and MLP outputs (`resid_pdrop`).
        dropout: keys.positive("resid_pdrop")?.unwrap_or(false),
        // `qk_layernorm`: a LayerNorm over each head's head_dim on Q and K.
        qk_norm: keys.switch("qk_layernorm")?.unwrap_or(false),
        block: Block::Parallel,
        ..Architecture::default()
    })
}

/// Mixtral, OLMoE, Qwen3-MoE and gpt-oss: a Llama-style decoder whose every
/// FFN (Qwen3-MoE: every `decoder_sparse_step`-th) is `num_experts` (or
/// `num_local_experts`) routed experts, top `num_experts_per_tok`.
fn routed(keys: &Keys<'_>, model_type: &str) -> Result<Architecture, Error> {
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
        // configuration_gpt_oss.py: `sliding_window` (default 128) on the
        // layers `layer_types` marks sliding, by default every other one
        // from the first.
        "gpt_oss" => Architecture {
            head_dim: keys.whole("head_dim", tf::HEAD_DIM)?.unwrap_or(64),
            bias: keys.switch("attention_bias")?.unwrap_or(true),
            qkv_bias: false,
            attn_sinks: true,
            window: keys.window(128)?,
            global_every: keys.layer_types(base.layers)?.unwrap_or(2),
            ..base
        },
        // models/mixtral: `intermediate_size` is each expert's size.
        _ => base,
    })
}

/// Qwen3-Next (transformers configuration_qwen3_next.py, whose defaults are
/// Qwen3-Next-80B-A3B's): Qwen3-MoE's experts with a shared expert of
/// `shared_expert_intermediate_size`, gated attention with per-head
/// QK-norm on every `full_attention_interval`-th layer (head_dim 256), Gated
/// DeltaNet on the others.
fn qwen3_next(keys: &Keys<'_>) -> Result<Architecture, Error> {
    let base = routed_qwen(keys)?;
    let shared = keys
        .whole("shared_expert_intermediate_size", tf::SHARED_FFN)?
        .unwrap_or(512);
    let interval = match keys.hybrid_layers("layer_types", base.layers)? {
        Some(n) => n,
        None => keys
            .whole("full_attention_interval", tf::FULL_ATTENTION_INTERVAL)?
            .unwrap_or(4),
    };
    let linear = |key, field: WholeField, default| -> Result<u64, Error> {
        Ok(keys.whole(key, field)?.unwrap_or(default))
    };
    Ok(Architecture {
        head_dim: keys.whole("head_dim", tf::HEAD_DIM)?.unwrap_or(256),
        attn_output_gate: true,
        shared_experts: u64::from(shared > 0),
        shared_ffn: shared,
        linear_mixer: tf::LinearMixer::GatedDeltanet,
        full_attention_interval: interval,
        linear_num_key_heads: linear("linear_num_key_heads", tf::LINEAR_NUM_KEY_HEADS, 16)?,
        linear_key_head_dim: linear("linear_key_head_dim", tf::LINEAR_KEY_HEAD_DIM, 128)?,
        linear_num_value_heads: linear("linear_num_value_heads", tf::LINEAR_NUM_VALUE_HEADS, 32)?,
        linear_value_head_dim: linear("linear_value_head_dim", tf::LINEAR_VALUE_HEAD_DIM, 128)?,
        linear_conv_kernel_dim: linear("linear_conv_kernel_dim", tf::LINEAR_CONV_KERNEL_DIM, 4)?,
        ..base
    })
}

/// Qwen3-MoE's experts as Qwen3-Next reads them: `num_experts` (512) of
/// `moe_intermediate_size` (512), top `num_experts_per_tok` (10), every
/// `decoder_sparse_step`-th layer.
fn routed_qwen(keys: &Keys<'_>) -> Result<Architecture, Error> {
    let dense = llama_like(keys, "qwen3")?;
    dense_layer_list(keys, "mlp_only_layers")?;
    Ok(Architecture {
        experts: keys.whole("num_experts", tf::EXPERTS)?.unwrap_or(512),
        experts_active: keys
            .whole("num_experts_per_tok", tf::EXPERTS_ACTIVE)?
            .unwrap_or(10),
        expert_ffn: keys
            .whole("moe_intermediate_size", tf::EXPERT_FFN)?
            .unwrap_or(512),
        moe_every: keys
            .whole("decoder_sparse_step", tf::MOE_EVERY)?
            .unwrap_or(1),
        ..dense
    })
}

/// IBM Granite 4.0-H (transformers configuration_granitemoehybrid.py):
/// `layer_types` (`layers_block_type`) of "mamba" and "attention", Mamba-2
/// layers of `mamba_n_heads` heads of `mamba_d_head` (by default
/// `mamba_expand` × hidden / heads), `mamba_n_groups` groups, state
/// `mamba_d_state`, convolution `mamba_d_conv` with its bias and no
/// projection bias (the class's defaults, the only ones modelled); every
/// layer has the dense `shared_mlp` of `shared_intermediate_size`, and
/// `num_local_experts` experts of `intermediate_size` beside it where
/// there are any.
fn granite_hybrid(keys: &Keys<'_>) -> Result<Architecture, Error> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    let layers = keys.required("num_hidden_layers", LAYERS)?;
    let hidden = keys.required("hidden_size", HIDDEN)?;
    if !keys.switch("mamba_conv_bias")?.unwrap_or(true) {
        return Err(Error::Unsupported {
            key: "mamba_conv_bias",
        });
    }
    if keys.switch("mamba_proj_bias")?.unwrap_or(false) {
        return Err(Error::Unsupported {
            key: "mamba_proj_bias",
        });
    }
    let interval = match keys.hybrid_layers("layer_types", layers)? {
        Some(n) => n,
        None => keys
            .hybrid_layers("layers_block_type", layers)?
            .ok_or(Error::Missing { key: "layer_types" })?,
    };
    let mamba_heads = keys
        .whole("mamba_n_heads", tf::LINEAR_NUM_VALUE_HEADS)?
        .unwrap_or(128);
    let expand = keys
        .whole("mamba_expand", tf::LINEAR_NUM_KEY_HEADS)?
        .unwrap_or(2);
    let head_dim = match keys.get("mamba_d_head") {
        Some(Json::String(auto)) if auto == "auto" => None,
        _ => keys.whole("mamba_d_head", tf::LINEAR_VALUE_HEAD_DIM)?,
    }
    .unwrap_or(expand * hidden / mamba_heads.max(1));
    let experts = keys.whole("num_local_experts", tf::EXPERTS)?.unwrap_or(0);
    let shared = keys.required("shared_intermediate_size", tf::FFN)?;
    let (ffn, expert_ffn, shared_experts) = if experts > 0 {
        (
            shared,
            keys.required("intermediate_size", tf::EXPERT_FFN)?,
            1,
        )
    } else {
        (shared, 0, 0)
    };
    Ok(Architecture {
        kind: Kind::Decoder,
        layers,
        hidden,
        heads,
        kv_heads: keys
            .whole("num_key_value_heads", tf::KV_HEADS)?
            .unwrap_or(heads),
        ffn,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        vocab: keys.required("vocab_size", tf::VOCAB)?,
        tied: keys.switch("tie_word_embeddings")?.unwrap_or(true),
        qkv_bias: keys.switch("attention_bias")?.unwrap_or(false),
        experts,
        experts_active: keys
            .whole("num_experts_per_tok", tf::EXPERTS_ACTIVE)?
            .unwrap_or(tf::EXPERTS_ACTIVE.default),
        expert_ffn,
        shared_experts,
        shared_ffn: if experts > 0 { shared } else { 0 },
        linear_mixer: tf::LinearMixer::Mamba2,
        full_attention_interval: interval,
        linear_num_key_heads: keys
            .whole("mamba_n_groups", tf::LINEAR_NUM_KEY_HEADS)?
            .unwrap_or(1),
        linear_key_head_dim: keys
            .whole("mamba_d_state", tf::LINEAR_KEY_HEAD_DIM)?
            .unwrap_or(256),
        linear_num_value_heads: mamba_heads,
        linear_value_head_dim: head_dim,
        linear_conv_kernel_dim: keys
            .whole("mamba_d_conv", tf::LINEAR_CONV_KERNEL_DIM)?
            .unwrap_or(4),
        ..Architecture::default()
    })
}

/// A list of layer indices that would make layers dense against the
/// step rule: only an empty (or absent) one is modelled.
fn dense_layer_list(keys: &Keys<'_>, key: &'static str) -> Result<(), Error> {
    match keys.get(key) {
        None => Ok(()),
        Some(Json::Array(layers)) if layers.is_empty() => Ok(()),
        Some(Json::Array(_)) => Err(Error::Unsupported { key }),
        Some(other) => Err(Error::WrongType {
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
fn deepseek_v3(keys: &Keys<'_>) -> Result<Architecture, Error> {
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
/// without weights (`Llama4TextL2Norm`). Its chunked attention is a window
/// (`llama4_chunks`). The published configs keep `tie_word_embeddings`
/// beside `text_config`, not in it.
fn llama4(keys: &Keys<'_>, outer: &Keys<'_>) -> Result<Architecture, Error> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    let layers = keys.required("num_hidden_layers", LAYERS)?;
    let (window, global_every) = llama4_chunks(keys, layers)?;
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
                return Err(Error::Unsupported { key: "moe_layers" });
            }
        }
        Some(other) => {
            return Err(Error::WrongType {
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
        window,
        global_every,
        dropout: keys.positive("attention_dropout")?.unwrap_or(false),
        ..Architecture::default()
    })
}

/// Llama 4's chunked attention as (window, global_every)
/// (configuration_llama4.py `Llama4TextConfig`): the layers that apply RoPE
/// attend within their `attention_chunk_size`-token chunk (default 8,192),
/// every `no_rope_layer_interval`-th layer (default 4) is a global NoPE
/// layer; `no_rope_layers` (1: RoPE, chunked; 0: NoPE, global; empty: the
/// interval's rule) or `layer_types` list them instead. For the cache a
/// chunk is a window: transformers' `DynamicCache` gives a
/// `"chunked_attention"` layer the `DynamicSlidingWindowLayer` of a sliding
/// one with `attention_chunk_size` as its window, and `StaticCache` (which
/// the deprecated `HybridChunkedCache` became) a `StaticSlidingWindowLayer`
/// of min(chunk, max length) (cache_utils.py). `attention_chunk_size: null`
/// attends globally everywhere.
fn llama4_chunks(keys: &Keys<'_>, layers: u64) -> Result<(u64, u64), Error> {
    const KEY: &str = "no_rope_layers";
    let window = match keys.0.get("attention_chunk_size") {
        None => 8192,
        Some(Json::Null) => 0,
        Some(_) => keys.required("attention_chunk_size", tf::WINDOW)?,
    };
    if window == 0 {
        return Ok((0, 0));
    }
    if let Some(every) = keys.layer_types(layers)? {
        return Ok((window, every));
    }
    let every = match keys.get(KEY) {
        Some(Json::Array(list)) if !list.is_empty() => {
            let take = usize::try_from(layers).unwrap_or(usize::MAX);
            let global = list
                .iter()
                .take(take)
                .map(|flag| match flag {
                    Json::Number(x) if *x == 0.0 => Ok(true),
                    Json::Number(x) if *x == 1.0 => Ok(false),
                    _ => Err(Error::LayerPattern { key: KEY }),
                })
                .collect::<Result<Vec<bool>, Error>>()?;
            every_nth(&global, layers, KEY)?
        }
        Some(Json::Array(_)) | None => keys
            .whole("no_rope_layer_interval", tf::GLOBAL_EVERY)?
            .unwrap_or(4),
        Some(other) => {
            return Err(Error::WrongType {
                key: KEY,
                expected: json::Kind::Array,
                found: other.kind(),
            });
        }
    };
    Ok((window, every))
}

fn gpt2(keys: &Keys<'_>) -> Result<Architecture, Error> {
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
        // GPT2Config: `activation_function="gelu_new"`; GPT2Attention's one
        // `c_attn` computes Q, K and V.
        mlp: keys.gelu("activation_function", Mlp::GeluNew)?,
        fused_proj: tf::FusedProj::Qkv,
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
fn bert_like(keys: &Keys<'_>, vision: bool) -> Result<Architecture, Error> {
    let heads = keys.required("num_attention_heads", tf::HEADS)?;
    let common = Architecture {
        layers: keys.required("num_hidden_layers", LAYERS)?,
        hidden: keys.required("hidden_size", HIDDEN)?,
        heads,
        kv_heads: heads,
        head_dim: 0,
        ffn: keys.required("intermediate_size", tf::FFN)?,
        // BertConfig and ViTConfig: `hidden_act="gelu"`.
        mlp: keys.gelu("hidden_act", Mlp::Gelu)?,
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
