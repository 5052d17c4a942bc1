use super::*;
use crate::presets;
use crate::transformer::{Architecture, parameter_count};

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

const QWEN3_0_6B: &str = r#"{
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
  "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072,
  "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
  "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
  "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
  "use_cache": true, "use_sliding_window": false, "vocab_size": 151936
}"#;

const GEMMA_2_9B: &str = r#"{
  "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid",
  "eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": 256,
  "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 16,
  "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0,
  "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
  "sliding_window": 4096, "torch_dtype": "float32", "vocab_size": 256000
}"#;

const GEMMA_3_1B: &str = r#"{
  "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": null, "bos_token_id": 2, "cache_implementation": "hybrid",
  "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "initializer_range": 0.02,
  "intermediate_size": 6912, "max_position_embeddings": 32768, "model_type": "gemma3_text",
  "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "pad_token_id": 0,
  "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512,
  "sliding_window_pattern": 6, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 262144
}"#;

/// Gemma 3 12B is multimodal: the language model is `text_config`.
const GEMMA_3_12B: &str = r#"{
  "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999,
  "eoi_token_index": 256000, "eos_token_id": [1, 106], "image_token_index": 262144,
  "initializer_range": 0.02, "mm_tokens_per_image": 256, "model_type": "gemma3",
  "text_config": {
    "attention_bias": false, "attention_dropout": 0.0, "attn_logit_softcapping": null,
    "cache_implementation": "hybrid", "final_logit_softcapping": null, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3840, "initializer_range": 0.02,
    "intermediate_size": 15360, "max_position_embeddings": 131072, "model_type": "gemma3_text",
    "num_attention_heads": 16, "num_hidden_layers": 48, "num_key_value_heads": 8,
    "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rope_theta": 1000000,
    "sliding_window": 1024, "sliding_window_pattern": 6, "torch_dtype": "bfloat16",
    "use_cache": true, "vocab_size": 262208
  },
  "torch_dtype": "bfloat16",
  "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                    "model_type": "siglip_vision_model", "num_attention_heads": 16,
                    "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}
}"#;

const OLMO_2_7B: &str = r#"{
  "architectures": ["Olmo2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "eos_token_id": 100257, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "olmo2",
  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
  "pad_token_id": 100277, "rms_norm_eps": 1e-06, "rope_theta": 500000.0,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 100352
}"#;

const PHI_2: &str = r#"{
  "architectures": ["PhiForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 50256,
  "embd_pdrop": 0.0, "eos_token_id": 50256, "hidden_act": "gelu_new", "hidden_size": 2560,
  "initializer_range": 0.02, "intermediate_size": 10240, "layer_norm_eps": 1e-05,
  "max_position_embeddings": 2048, "model_type": "phi", "num_attention_heads": 32,
  "num_hidden_layers": 32, "num_key_value_heads": 32, "partial_rotary_factor": 0.4,
  "qk_layernorm": false, "resid_pdrop": 0.1, "rope_scaling": null, "rope_theta": 10000.0,
  "tie_word_embeddings": false, "torch_dtype": "float16", "transformers_version": "4.37.0",
  "use_cache": true, "vocab_size": 51200
}"#;

const PHI_4: &str = r#"{
  "architectures": ["Phi3ForCausalLM"], "attention_dropout": 0.0, "hidden_act": "silu",
  "hidden_size": 5120, "intermediate_size": 17920, "max_position_embeddings": 16384,
  "model_type": "phi3", "num_attention_heads": 40, "num_hidden_layers": 40,
  "num_key_value_heads": 10, "rms_norm_eps": 1e-05, "rope_theta": 250000,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 100352
}"#;

const MIXTRAL_8X7B: &str = r#"{
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
  "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mixtral",
  "num_attention_heads": 32, "num_experts_per_tok": 2, "num_hidden_layers": 32,
  "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02,
  "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.36.0.dev0", "use_cache": true, "vocab_size": 32000
}"#;

const MIXTRAL_8X22B: &str = r#"{
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1,
  "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 6144, "initializer_range": 0.02,
  "intermediate_size": 16384, "max_position_embeddings": 65536, "model_type": "mixtral",
  "num_attention_heads": 48, "num_experts_per_tok": 2, "num_hidden_layers": 56,
  "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000, "router_aux_loss_coef": 0.001,
  "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.38.0", "use_cache": true, "vocab_size": 32000
}"#;

const QWEN3_30B_A3B: &str = r#"{
  "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
  "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
  "intermediate_size": 6144, "max_position_embeddings": 40960, "max_window_layers": 48,
  "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768,
  "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128,
  "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4,
  "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_scaling": null,
  "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
  "use_cache": true, "use_sliding_window": false, "vocab_size": 151936
}"#;

const QWEN3_235B_A22B: &str = r#"{
  "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
  "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 94,
  "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 1536,
  "norm_topk_prob": true, "num_attention_heads": 64, "num_experts": 128,
  "num_experts_per_tok": 8, "num_hidden_layers": 94, "num_key_value_heads": 4,
  "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_scaling": null,
  "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
  "use_cache": true, "use_sliding_window": false, "vocab_size": 151936
}"#;

const DEEPSEEK_V3: &str = r#"{
  "architectures": ["DeepseekV3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3,
  "hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02,
  "intermediate_size": 18432, "kv_lora_rank": 512, "max_position_embeddings": 163840,
  "model_type": "deepseek_v3", "moe_intermediate_size": 2048, "moe_layer_freq": 1,
  "n_group": 8, "n_routed_experts": 256, "n_shared_experts": 1, "norm_topk_prob": true,
  "num_attention_heads": 128, "num_experts_per_tok": 8, "num_hidden_layers": 61,
  "num_key_value_heads": 128, "num_nextn_predict_layers": 1, "q_lora_rank": 1536,
  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
  "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3",
                          "quant_method": "fp8", "weight_block_size": [128, 128]},
  "rms_norm_eps": 1e-06, "rope_theta": 10000, "routed_scaling_factor": 2.5,
  "scoring_func": "sigmoid", "tie_word_embeddings": false, "topk_group": 4,
  "topk_method": "noaux_tc", "torch_dtype": "bfloat16", "transformers_version": "4.33.1",
  "use_cache": true, "v_head_dim": 128, "vocab_size": 129280
}"#;

/// gpt-oss-20b's config; `layer_types` alternates sliding (128 tokens) and
/// full attention over its 24 layers.
const GPT_OSS_20B: &str = r#"{
  "architectures": ["GptOssForCausalLM"], "attention_bias": true, "attention_dropout": 0.0,
  "eos_token_id": 200002, "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu",
  "hidden_size": 2880, "initial_context_length": 4096, "initializer_range": 0.02,
  "intermediate_size": 2880,
  "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention"],
  "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
  "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 8,
  "num_local_experts": 32, "output_router_logits": false, "pad_token_id": 199999,
  "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn",
    "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"},
  "rms_norm_eps": 1e-05,
  "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                   "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": false},
  "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128,
  "swiglu_limit": 7.0, "tie_word_embeddings": false, "transformers_version": "4.55.0.dev0",
  "use_cache": true, "vocab_size": 201088
}"#;

/// Llama 4 Scout's config (the vision part shortened): the text model is
/// under `text_config`, `tie_word_embeddings` beside it.
const LLAMA_4_SCOUT: &str = r#"{
  "architectures": ["Llama4ForConditionalGeneration"], "boi_token_index": 200080,
  "eoi_token_index": 200081, "image_token_index": 200092, "model_type": "llama4",
  "text_config": {
    "attention_bias": false, "attention_chunk_size": 8192, "attention_dropout": 0.0,
    "attn_scale": 0.1, "attn_temperature_tuning": 4, "bos_token_id": 200000,
    "eos_token_id": [200001, 200007, 200008], "floor_scale": 8192,
    "for_llm_compressor": false, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
    "initializer_range": 0.02, "interleave_moe_layer_step": 1, "intermediate_size": 8192,
    "intermediate_size_mlp": 16384, "max_position_embeddings": 262144,
    "model_type": "llama4_text",
    "moe_layers": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                   21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
                   40, 41, 42, 43, 44, 45, 46, 47],
    "num_attention_heads": 40, "num_experts_per_tok": 1, "num_hidden_layers": 48,
    "num_key_value_heads": 8, "num_local_experts": 16, "output_router_logits": false,
    "pad_token_id": 200018, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "router_aux_loss_coef": 0.001, "router_jitter_noise": 0.0,
    "torch_dtype": "bfloat16", "use_cache": true, "use_qk_norm": true, "vocab_size": 202048
  },
  "tie_word_embeddings": false, "transformers_version": "4.51.0",
  "vision_config": {"hidden_size": 1408, "num_hidden_layers": 34, "model_type": "llama4_vision_model"}
}"#;

const OLMOE_1B_7B: &str = r#"{
  "architectures": ["OlmoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "clip_qkv": null, "eos_token_id": 50279, "hidden_act": "silu", "hidden_size": 2048,
  "initializer_range": 0.02, "intermediate_size": 1024, "max_position_embeddings": 4096,
  "model_type": "olmoe", "norm_topk_prob": false, "num_attention_heads": 16,
  "num_experts": 64, "num_experts_per_tok": 8, "num_hidden_layers": 16,
  "num_key_value_heads": 16, "output_router_logits": false, "pad_token_id": 1,
  "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0,
  "router_aux_loss_coef": 0.01, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 50304
}"#;

/// Qwen3-Next-80B-A3B-Instruct's config.json as two copies of it and
/// transformers' configuration_qwen3_next.py defaults agree (the Hub file
/// itself was not reachable from here).
const QWEN3_NEXT_80B_A3B: &str = r#"{
  "architectures": ["Qwen3NextForCausalLM"], "decoder_sparse_step": 1, "dtype": "bfloat16",
  "full_attention_interval": 4, "head_dim": 256, "hidden_act": "silu", "hidden_size": 2048,
  "intermediate_size": 5120, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128,
  "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_value_head_dim": 128,
  "max_position_embeddings": 262144, "mlp_only_layers": [], "model_type": "qwen3_next",
  "moe_intermediate_size": 512, "norm_topk_prob": true, "num_attention_heads": 16,
  "num_experts": 512, "num_experts_per_tok": 10, "num_hidden_layers": 48,
  "num_key_value_heads": 2, "partial_rotary_factor": 0.25, "rms_norm_eps": 1e-06,
  "shared_expert_intermediate_size": 512, "tie_word_embeddings": false, "vocab_size": 151936
}"#;

/// Granite 4.0 H Small's config.json as its GGUF metadata and copies of the
/// file give it (the Hub file itself was not reachable from here).
const GRANITE_4_H_SMALL: &str = r#"{
  "architectures": ["GraniteMoeHybridForCausalLM"], "attention_bias": false,
  "hidden_size": 4096, "intermediate_size": 768,
  "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba"],
  "mamba_chunk_size": 256, "mamba_conv_bias": true, "mamba_d_conv": 4, "mamba_d_head": 64,
  "mamba_d_state": 128, "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 128,
  "mamba_proj_bias": false, "model_type": "granitemoehybrid", "num_attention_heads": 32,
  "num_experts_per_tok": 10, "num_hidden_layers": 40, "num_key_value_heads": 8,
  "num_local_experts": 72, "position_embedding_type": "nope", "shared_intermediate_size": 1536,
  "tie_word_embeddings": true, "vocab_size": 100352
}"#;

/// Hybrid models: the configs' own keys give the presets, and a layout the
/// full-attention interval cannot state is named.
#[test]
fn hybrid_configs_import_to_their_presets() {
    for (config, preset) in [
        (QWEN3_NEXT_80B_A3B, "qwen3-next-80b-a3b"),
        (GRANITE_4_H_SMALL, "granite-4.0-h-small"),
    ] {
        let imported = import(config).expect(preset);
        assert_eq!(
            imported,
            presets::model(preset).expect("preset").arch,
            "{preset}"
        );
    }
    // The defaults of the class stand for absent keys.
    let bare = import(
        r#"{"model_type": "qwen3_next", "num_attention_heads": 16, "num_key_value_heads": 2, "num_hidden_layers": 48, "hidden_size": 2048, "intermediate_size": 5120, "vocab_size": 151936}"#,
    );
    assert_eq!(
        bare.expect("defaults"),
        presets::model("qwen3-next-80b-a3b").expect("preset").arch
    );
    // `layer_types` instead of the interval, Qwen3-Next's spelling.
    let listed = QWEN3_NEXT_80B_A3B.replace(
        "\"full_attention_interval\": 4,",
        &format!(
            "\"layer_types\": [{}],",
            ["\"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\""; 12].join(", ")
        ),
    );
    assert_eq!(import(&listed), import(QWEN3_NEXT_80B_A3B));
    // Attention on layers 0 and 5 of 40 is no interval.
    let uneven = GRANITE_4_H_SMALL.replacen("\"mamba\"", "\"attention\"", 1);
    assert_eq!(
        import(&uneven),
        Err(Error::LayerPattern { key: "layer_types" })
    );
    let conv = GRANITE_4_H_SMALL.replace("\"mamba_conv_bias\": true", "\"mamba_conv_bias\": false");
    assert_eq!(
        import(&conv),
        Err(Error::Unsupported {
            key: "mamba_conv_bias"
        })
    );
}

#[test]
fn published_configs_import_to_their_presets() {
    for (config, preset) in [
        (MIXTRAL_8X7B, "mixtral-8x7b"),
        (MIXTRAL_8X22B, "mixtral-8x22b"),
        (QWEN3_30B_A3B, "qwen3-30b-a3b"),
        (QWEN3_235B_A22B, "qwen3-235b-a22b"),
        (DEEPSEEK_V3, "deepseek-v3"),
        (GPT_OSS_20B, "gpt-oss-20b"),
        (
            &GPT_OSS_20B
                .replace("\"num_hidden_layers\": 24", "\"num_hidden_layers\": 36")
                .replace("\"num_local_experts\": 32", "\"num_local_experts\": 128")
                .replace("\"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\"", "\"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\""),
            "gpt-oss-120b",
        ),
        (LLAMA_4_SCOUT, "llama-4-scout"),
        (OLMOE_1B_7B, "olmoe-1b-7b"),
        (LLAMA_3_1_8B, "llama-3.1-8b"),
        (QWEN2_5_7B, "qwen2.5-7b"),
        (GPT2, "gpt2"),
        (BERT_LARGE, "bert-large"),
        (VIT_B_16, "vit-b-16"),
        (GEMMA_2B, "gemma-2b"),
        (MISTRAL_7B, "mistral-7b"),
        (PHI_3_MINI, "phi-3-mini"),
        (QWEN3_0_6B, "qwen3-0.6b"),
        (GEMMA_2_9B, "gemma-2-9b"),
        (GEMMA_3_1B, "gemma-3-1b"),
        (GEMMA_3_12B, "gemma-3-12b"),
        (OLMO_2_7B, "olmo-2-7b"),
        (PHI_2, "phi-2"),
        (PHI_4, "phi-4"),
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
        // What the memory terms read beyond the count.
        let terms = |a: &Architecture| {
            (
                a.qk_norm,
                a.qk_norm_full,
                a.block,
                a.window,
                a.global_every,
                a.softcap,
                a.attn_softcap,
                a.fused_proj,
            )
        };
        assert_eq!(terms(&imported), terms(&expected), "{preset}");
        // The MoE presets are their configs' shape field by field.
        if expected.moe() {
            assert_eq!(imported, expected, "{preset}");
        }
    }
}

/// Kimi K2 (moonshotai/Kimi-K2-Instruct config.json: DeepSeek-V3's layout
/// with 64 heads, 384 experts, one dense layer and a 163,840 vocabulary):
/// 1.03T parameters, and without the input embedding, as Moonshot counts
/// them with DeepSeek, 31.7B active, published as "1 trillion total, 32
/// billion activated".
#[test]
fn kimi_k2_imports_as_deepseek_v3() {
    let config = DEEPSEEK_V3
        .replace("\"deepseek_v3\"", "\"kimi_k2\"")
        .replace(
            "\"first_k_dense_replace\": 3",
            "\"first_k_dense_replace\": 1",
        )
        .replace("\"n_routed_experts\": 256", "\"n_routed_experts\": 384")
        .replace(
            "\"num_attention_heads\": 128",
            "\"num_attention_heads\": 64",
        )
        .replace(
            "\"num_key_value_heads\": 128",
            "\"num_key_value_heads\": 64",
        )
        .replace("\"vocab_size\": 129280", "\"vocab_size\": 163840");
    let arch = import(&config).expect("valid");
    let count = parameter_count(&arch);
    // 60 MoE layers × (MLA 101,124,096 + norms 14,336 + 384 × 44,040,192 +
    // shared 44,040,192 + router 2,752,512) + one dense layer 497,500,160 +
    // 2 × 1,174,405,120 + 7,168.
    assert_eq!(count.total, 1_026_408_209_408);
    let embedding = 163_840 * 7168;
    assert_eq!(count.active - embedding, 31_687_072_768);
}

/// A MoE config names its missing keys like a dense one, and layouts no
/// parameter expresses are refused rather than miscounted.
#[test]
fn mixture_of_experts_configs_name_what_is_missing() {
    let without = |config: &str, key: &str| config.replace(&format!("\"{key}\""), "\"renamed\"");
    for (config, key) in [
        (MIXTRAL_8X7B, "num_local_experts"),
        (MIXTRAL_8X7B, "num_experts_per_tok"),
        (QWEN3_30B_A3B, "moe_intermediate_size"),
        (QWEN3_30B_A3B, "num_experts"),
        (OLMOE_1B_7B, "num_experts"),
        (DEEPSEEK_V3, "n_routed_experts"),
        (DEEPSEEK_V3, "kv_lora_rank"),
        (DEEPSEEK_V3, "qk_rope_head_dim"),
        (GPT_OSS_20B, "num_local_experts"),
        (LLAMA_4_SCOUT, "text_config"),
        (LLAMA_4_SCOUT, "intermediate_size_mlp"),
    ] {
        assert_eq!(
            import(&without(config, key)),
            Err(Error::Missing { key }),
            "{key}"
        );
    }
    // Qwen3-MoE's dense `mlp_only_layers` and a Llama 4 `moe_layers` list
    // off the step rule have no parameter: refused.
    assert_eq!(
        import(&QWEN3_30B_A3B.replace("\"mlp_only_layers\": []", "\"mlp_only_layers\": [0]")),
        Err(Error::Unsupported {
            key: "mlp_only_layers"
        })
    );
    assert_eq!(
        import(&LLAMA_4_SCOUT.replace("\"moe_layers\": [0, 1,", "\"moe_layers\": [1,")),
        Err(Error::Unsupported { key: "moe_layers" })
    );
    // Maverick-style interleaving: every second layer (1, 3, …) is MoE.
    let interleaved = import(
        &LLAMA_4_SCOUT
            .replace("\"interleave_moe_layer_step\": 1", "\"interleave_moe_layer_step\": 2")
            .replace(
                "\"moe_layers\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,\n                   21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,\n                   40, 41, 42, 43, 44, 45, 46, 47],",
                "\"moe_layers\": [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47],",
            ),
    )
    .expect("valid");
    assert_eq!(
        (interleaved.moe_layers(), interleaved.dense_layers()),
        (24, 24)
    );
    // DeepSeek-V2-Lite's `q_lora_rank: null` projects the queries directly.
    let direct = import(&DEEPSEEK_V3.replace("\"q_lora_rank\": 1536", "\"q_lora_rank\": null"))
        .expect("valid");
    assert_eq!(direct.q_lora_rank, 0);
}

/// Keys the configuration classes default, and the layer patterns.
#[test]
fn class_defaults_and_layer_patterns() {
    // A `text_config` of a few keys: Gemma3TextConfig fills 8 heads, 4 KV
    // heads, head_dim 256 and a vocabulary of 262,208 (transformers
    // models/gemma3/configuration_gemma3.py): Gemma 3 4B's text model.
    let sparse = r#"{"model_type": "gemma3", "text_config": {"hidden_size": 2560,
        "intermediate_size": 10240, "model_type": "gemma3_text", "num_hidden_layers": 34,
        "sliding_window": 1024}}"#;
    let expected = presets::model("gemma-3-4b").expect("preset").arch;
    assert_eq!(import(sparse), Ok(expected));
    // `layer_types` as newer configs write it: every sixth layer global.
    let types = |pattern: &[&str]| {
        let listed: Vec<String> = (0..26)
            .map(|i| format!("\"{}\"", pattern[i % pattern.len()]))
            .collect();
        GEMMA_3_1B.replace(
            "\"sliding_window_pattern\": 6",
            &format!("\"layer_types\": [{}]", listed.join(", ")),
        )
    };
    let s = "sliding_attention";
    let f = "full_attention";
    let six = import(&types(&[s, s, s, s, s, f])).expect("valid");
    assert_eq!((six.window, six.global_every), (512, 6));
    assert_eq!(import(&types(&[s])).map(|a| a.global_every), Ok(0));
    assert_eq!(import(&types(&[f])).map(|a| a.global_every), Ok(1));
    // Global first, then windowed: not "every n-th layer".
    assert_eq!(
        import(&types(&[f, s])),
        Err(Error::LayerPattern { key: "layer_types" })
    );
    // Gemma 2 without `layer_types` alternates, the first layer windowed;
    // `null` switches a soft-capping off, absence keeps Gemma2Config's.
    let gemma2 = import(GEMMA_2_9B).expect("valid");
    assert_eq!((gemma2.window, gemma2.global_every), (4096, 2));
    let uncapped = GEMMA_2_9B.replace(
        "\"final_logit_softcapping\": 30.0",
        "\"final_logit_softcapping\": null",
    );
    assert_eq!(
        import(&uncapped).map(|a| (a.softcap, a.attn_softcap)),
        Ok((false, true))
    );
    let defaulted = GEMMA_2_9B.replace("\"attn_logit_softcapping\": 50.0,", "");
    assert_eq!(import(&defaulted).map(|a| a.attn_softcap), Ok(true));
    // Qwen's window is off unless `use_sliding_window`; then it covers the
    // layers from `max_window_layers` on.
    let windowed = |first: &str| {
        QWEN3_0_6B
            .replace(
                "\"use_sliding_window\": false",
                "\"use_sliding_window\": true",
            )
            .replace("\"sliding_window\": null", "\"sliding_window\": 4096")
            .replace(
                "\"max_window_layers\": 28",
                &format!("\"max_window_layers\": {first}"),
            )
    };
    assert_eq!(import(&windowed("28")).map(|a| a.window), Ok(0));
    assert_eq!(
        import(&windowed("0")).map(|a| (a.window, a.global_every)),
        Ok((4096, 0))
    );
    assert_eq!(
        import(&windowed("14")),
        Err(Error::LayerPattern {
            key: "max_window_layers"
        })
    );
    // Mistral v0.3 publishes `"sliding_window": null`: no window.
    let v03 = MISTRAL_7B.replace("\"sliding_window\": 4096", "\"sliding_window\": null");
    assert_eq!(import(&v03).map(|a| a.window), Ok(0));
}

/// Llama 4's chunked layers as a window (configuration_llama4.py): the
/// published Scout config leaves the pattern to `no_rope_layer_interval`'s
/// default (4) and sets `attention_chunk_size` 8,192; a config may list the
/// layers as `no_rope_layers` (1 = RoPE = chunked) or `layer_types`.
#[test]
fn llama_4_chunked_layers_import_as_a_window() {
    let scout = import(LLAMA_4_SCOUT).expect("valid");
    assert_eq!((scout.window, scout.global_every), (8192, 4));
    assert_eq!(scout.windowed_layers(), 36);
    let with = |key_value: &str| {
        LLAMA_4_SCOUT.replace(
            "\"attention_chunk_size\": 8192,",
            &format!("\"attention_chunk_size\": 8192, {key_value},"),
        )
    };
    let listed = |flags: &[u8], layers: usize| {
        let items: Vec<String> = (0..layers)
            .map(|i| flags[i % flags.len()].to_string())
            .collect();
        with(&format!("\"no_rope_layers\": [{}]", items.join(", ")))
    };
    let every = |config: &str| import(config).map(|a| (a.window, a.global_every));
    assert_eq!(every(&listed(&[1, 1, 1, 0], 48)), Ok((8192, 4)));
    // A longer list than the layers: the first 48 count, as in transformers.
    assert_eq!(every(&listed(&[1, 0], 50)), Ok((8192, 2)));
    // No NoPE layer: every layer chunked; an empty list is the interval's rule.
    assert_eq!(every(&listed(&[1], 48)), Ok((8192, 0)));
    assert_eq!(every(&with("\"no_rope_layers\": []")), Ok((8192, 4)));
    assert_eq!(every(&with("\"no_rope_layer_interval\": 2")), Ok((8192, 2)));
    let types: Vec<&str> = (0..48)
        .map(|i| {
            if (i + 1) % 4 == 0 {
                "\"full_attention\""
            } else {
                "\"chunked_attention\""
            }
        })
        .collect();
    assert_eq!(
        every(&with(&format!("\"layer_types\": [{}]", types.join(", ")))),
        Ok((8192, 4))
    );
    // Without a chunk every layer attends globally.
    assert_eq!(
        every(&LLAMA_4_SCOUT.replace(
            "\"attention_chunk_size\": 8192",
            "\"attention_chunk_size\": null"
        )),
        Ok((0, 0))
    );
    // Other layouts and values are named.
    for (config, error) in [
        (
            listed(&[0, 1], 48),
            Error::LayerPattern {
                key: "no_rope_layers",
            },
        ),
        (
            listed(&[1, 1, 1, 0], 40),
            Error::LayerPattern {
                key: "no_rope_layers",
            },
        ),
        (
            listed(&[2], 48),
            Error::LayerPattern {
                key: "no_rope_layers",
            },
        ),
        (
            with("\"no_rope_layers\": 4"),
            Error::WrongType {
                key: "no_rope_layers",
                expected: json::Kind::Array,
                found: json::Kind::Number,
            },
        ),
        (
            LLAMA_4_SCOUT.replace(
                "\"attention_chunk_size\": 8192",
                "\"attention_chunk_size\": 81.5",
            ),
            Error::BadValue {
                key: "attention_chunk_size",
                range: tf::WINDOW.range(),
                whole: true,
            },
        ),
    ] {
        assert_eq!(import(&config), Err(error));
    }
}

#[test]
fn problems_are_named() {
    let without = |key: &str| LLAMA_3_1_8B.replace(&format!("\"{key}\""), "\"renamed\"");
    for (text, error) in [
        (
            "hello",
            Error::NotJson(json::SyntaxError {
                offset: 0,
                expected: json::Expected::Value,
            }),
        ),
        (
            "[1, 2]",
            Error::NotAnObject {
                found: json::Kind::Array,
            },
        ),
        ("{}", Error::Missing { key: "model_type" }),
        (
            &without("hidden_size"),
            Error::Missing { key: "hidden_size" },
        ),
        (&without("vocab_size"), Error::Missing { key: "vocab_size" }),
        (
            &LLAMA_3_1_8B.replace("\"hidden_size\": 4096", "\"hidden_size\": \"4096\""),
            Error::WrongType {
                key: "hidden_size",
                expected: json::Kind::Number,
                found: json::Kind::String,
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 32.5"),
            Error::BadValue {
                key: "num_hidden_layers",
                range: LAYERS.range(),
                whole: true,
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 0"),
            Error::BadValue {
                key: "num_hidden_layers",
                range: LAYERS.range(),
                whole: false,
            },
        ),
        (
            &LLAMA_3_1_8B.replace(
                "\"tie_word_embeddings\": false",
                "\"tie_word_embeddings\": 0",
            ),
            Error::WrongType {
                key: "tie_word_embeddings",
                expected: json::Kind::Bool,
                found: json::Kind::Number,
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"llama\"", "\"mamba\""),
            Error::UnknownModelType {
                found: "mamba".into(),
            },
        ),
        (
            &LLAMA_3_1_8B.replace("\"vocab_size\"", "\"num_local_experts\": 8, \"vocab_size\""),
            Error::Unsupported {
                key: "num_local_experts",
            },
        ),
        (
            &GPT2.replace("\"n_embd\"", "\"hidden_size\""),
            Error::Missing { key: "n_embd" },
        ),
        (
            r#"{"model_type": "gemma3", "vision_config": {}}"#,
            Error::Missing { key: "text_config" },
        ),
        (
            r#"{"model_type": "gemma3", "text_config": [1]}"#,
            Error::WrongType {
                key: "text_config",
                expected: json::Kind::Object,
                found: json::Kind::Array,
            },
        ),
        (
            &GEMMA_3_12B.replace("\"hidden_size\": 3840", "\"width\": 3840"),
            Error::Missing { key: "hidden_size" },
        ),
        (
            &PHI_2.replace("\"intermediate_size\"", "\"n_inner\""),
            Error::Missing {
                key: "intermediate_size",
            },
        ),
        (
            &GEMMA_3_1B.replace("\"sliding_window\": 512", "\"sliding_window\": \"512\""),
            Error::WrongType {
                key: "sliding_window",
                expected: json::Kind::Number,
                found: json::Kind::String,
            },
        ),
        (
            &GEMMA_2_9B.replace(
                "\"final_logit_softcapping\": 30.0",
                "\"final_logit_softcapping\": true",
            ),
            Error::WrongType {
                key: "final_logit_softcapping",
                expected: json::Kind::Number,
                found: json::Kind::Bool,
            },
        ),
        (
            &GEMMA_3_1B.replace("\"sliding_window_pattern\": 6", "\"layer_types\": \"full\""),
            Error::WrongType {
                key: "layer_types",
                expected: json::Kind::Array,
                found: json::Kind::String,
            },
        ),
    ] {
        assert_eq!(import(text), Err(error.clone()), "{text}");
        assert!(!error.to_string().is_empty());
    }
    assert_eq!(
        import("{}").unwrap_err().to_string(),
        "the file has no `model_type`"
    );
    assert_eq!(
        import(&without("hidden_size")).unwrap_err().to_string(),
        "the file has no `hidden_size`"
    );
}

/// The model code's GELU and fused projections, from `activation_function` /
/// `hidden_act` and `model_type` (transformers activations.py, ACT2FN).
#[test]
fn activation_and_fused_projections_follow_the_config() {
    use crate::transformer::FusedProj;
    let gpt2 = import(GPT2).expect("valid");
    assert_eq!((gpt2.mlp, gpt2.fused_proj), (Mlp::GeluNew, FusedProj::Qkv));
    // `gelu` (nn.functional.gelu) and `gelu_pytorch_tanh` are one kernel.
    for name in ["gelu", "gelu_pytorch_tanh"] {
        let other = GPT2.replace("\"gelu_new\"", &format!("\"{name}\""));
        assert_eq!(import(&other).expect("valid").mlp, Mlp::Gelu, "{name}");
    }
    // GPT2Config's default when the key is absent.
    let absent = GPT2.replace("\"activation_function\": \"gelu_new\", ", "");
    assert_eq!(import(&absent).expect("valid").mlp, Mlp::GeluNew);
    let wrong = GPT2.replace("\"gelu_new\"", "1");
    assert!(matches!(
        import(&wrong),
        Err(Error::WrongType {
            key: "activation_function",
            ..
        })
    ));
    assert_eq!(import(PHI_2).expect("valid").mlp, Mlp::GeluNew);
    assert_eq!(import(BERT_LARGE).expect("valid").mlp, Mlp::Gelu);
    assert_eq!(
        import(PHI_3_MINI).expect("valid").fused_proj,
        FusedProj::All
    );
    assert_eq!(
        import(LLAMA_3_1_8B).expect("valid").fused_proj,
        FusedProj::None
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
