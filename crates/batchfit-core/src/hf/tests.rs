use super::*;
use crate::presets;
use crate::transformer::parameter_count;

/// Excerpts of the published config.json files (the keys that matter, values as published).
const LLAMA_3_1_8B: &str = r#"{
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
  "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072,
  "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 128256
}"#;

const QWEN2_5_7B: &str = r#"{
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
  "intermediate_size": 18944, "max_position_embeddings": 131072, "max_window_layers": 28,
  "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28,
  "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 131072, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1", "use_cache": true, "use_sliding_window": false,
  "vocab_size": 152064
}"#;

const GPT2: &str = r#"{
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
  "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12,
  "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1, "summary_activation": null,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}},
  "vocab_size": 50257
}"#;

const BERT_LARGE: &str = r#"{
  "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
  "gradient_checkpointing": false, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 4096,
  "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "bert",
  "num_attention_heads": 16, "num_hidden_layers": 24, "pad_token_id": 0,
  "position_embedding_type": "absolute", "transformers_version": "4.6.0.dev0",
  "type_vocab_size": 2, "use_cache": true, "vocab_size": 30522
}"#;

const VIT_B_16: &str = r#"{
  "architectures": ["ViTForImageClassification"], "attention_probs_dropout_prob": 0.0,
  "hidden_act": "gelu", "hidden_dropout_prob": 0.0, "hidden_size": 768, "image_size": 224,
  "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-12,
  "model_type": "vit", "num_attention_heads": 12, "num_channels": 3, "num_hidden_layers": 12,
  "patch_size": 16, "qkv_bias": true
}"#;

const GEMMA_2B: &str = r#"{
  "architectures": ["GemmaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 2, "eos_token_id": 1, "head_dim": 256, "hidden_act": "gelu",
  "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 16384,
  "max_position_embeddings": 8192, "model_type": "gemma", "num_attention_heads": 8,
  "num_hidden_layers": 18, "num_key_value_heads": 1, "pad_token_id": 0, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 10000.0, "torch_dtype": "bfloat16", "vocab_size": 256000
}"#;

const MISTRAL_7B: &str = r#"{
  "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32000
}"#;

const PHI_3_MINI: &str = r#"{
  "architectures": ["Phi3ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
  "embd_pdrop": 0.0, "eos_token_id": 32000, "hidden_act": "silu", "hidden_size": 3072,
  "intermediate_size": 8192, "max_position_embeddings": 4096, "model_type": "phi3",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
  "original_max_position_embeddings": 4096, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05,
  "rope_scaling": null, "rope_theta": 10000.0, "sliding_window": 2047,
  "tie_word_embeddings": false, "vocab_size": 32064
}"#;

#[test]
fn published_configs_import_to_their_presets() {
    for (config, preset) in [
        (LLAMA_3_1_8B, "llama-3.1-8b"),
        (QWEN2_5_7B, "qwen2.5-7b"),
        (GPT2, "gpt2"),
        (BERT_LARGE, "bert-large"),
        (VIT_B_16, "vit-b-16"),
        (GEMMA_2B, "gemma-2b"),
        (MISTRAL_7B, "mistral-7b"),
        (PHI_3_MINI, "phi-3-mini"),
    ] {
        let imported = import(config).unwrap_or_else(|e| panic!("{preset}: {e}"));
        let expected = presets::model(preset).map(|m| m.arch).expect("preset");
        assert_eq!(
            parameter_count(&imported),
            parameter_count(&expected),
            "{preset}"
        );
        assert_eq!(
            (imported.kind, imported.mlp, imported.norm),
            (expected.kind, expected.mlp, expected.norm),
            "{preset}"
        );
        assert_eq!(
            (imported.heads, imported.kv_heads, imported.head_size()),
            (expected.heads, expected.kv_heads, expected.head_size()),
            "{preset}"
        );
        assert_eq!(imported.dropout, expected.dropout, "{preset}");
    }
}

#[test]
fn problems_are_named() {
    let without = |key: &str| LLAMA_3_1_8B.replace(&format!("\"{key}\""), "\"renamed\"");
    for (text, error) in [
        (
            "hello",
            ImportError::NotJson(json::SyntaxError {
                offset: 0,
                expected: json::Expected::Value,
            }),
        ),
        (
            "[1, 2]",
            ImportError::NotAnObject {
                found: json::Kind::Array,
            },
        ),
        ("{}", ImportError::Missing { key: "model_type" }),
        (
            &without("hidden_size"),
            ImportError::Missing { key: "hidden_size" },
        ),
        (
            &without("vocab_size"),
            ImportError::Missing { key: "vocab_size" },
        ),
        (
            &LLAMA_3_1_8B.replace("\"hidden_size\": 4096", "\"hidden_size\": \"4096\""),
            ImportError::WrongType {
                key: "hidden_size",
                expected: json::Kind::Number,
                found: json::Kind::String,
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 32.5"),
            ImportError::BadValue {
                key: "num_hidden_layers",
                range: LAYERS.range(),
                fraction: true,
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 0"),
            ImportError::BadValue {
                key: "num_hidden_layers",
                range: LAYERS.range(),
                fraction: false,
            },
        ),
        (
            &LLAMA_3_1_8B.replace(
                "\"tie_word_embeddings\": false",
                "\"tie_word_embeddings\": 0",
            ),
            ImportError::WrongType {
                key: "tie_word_embeddings",
                expected: json::Kind::Bool,
                found: json::Kind::Number,
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"llama\"", "\"mamba\""),
            ImportError::UnknownModelType {
                found: "mamba".into(),
            },
        ),
        (
            r#"{"model_type": "mixtral", "num_local_experts": 8}"#,
            ImportError::Unsupported {
                key: "num_local_experts",
            },
        ),
        (
            &GPT2.replace("\"n_embd\"", "\"hidden_size\""),
            ImportError::Missing { key: "n_embd" },
        ),
    ] {
        assert_eq!(import(text), Err(error.clone()), "{text}");
        assert!(!error.to_string().is_empty());
    }
    assert_eq!(
        import("{}").unwrap_err().to_string(),
        "the config has no `model_type`"
    );
    assert_eq!(
        import(&without("hidden_size")).unwrap_err().to_string(),
        "the config has no `hidden_size`"
    );
}

#[test]
fn gpt2_with_explicit_inner_size_and_no_dropout() {
    let config = GPT2
        .replace("\"n_embd\": 768", "\"n_embd\": 768, \"n_inner\": 1024")
        .replace("\"resid_pdrop\": 0.1", "\"resid_pdrop\": 0.0");
    let arch = import(&config).expect("valid");
    assert_eq!(arch.ffn, 1024);
    assert!(!arch.dropout);
}
