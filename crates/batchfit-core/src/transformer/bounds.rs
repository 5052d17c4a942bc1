//! The transformer form's number fields: each one's parameter, range and default.

use crate::fields::{HundredthsField, WholeField, whole};
use crate::param::Param;

pub const HEADS: WholeField = whole(Param::Heads, 1, 100_000, 32);

pub const KV_HEADS: WholeField = whole(Param::KvHeads, 1, 100_000, 8);

/// 0 means hidden / heads, the usual choice.
pub const HEAD_DIM: WholeField = whole(Param::HeadDim, 0, 100_000, 0);

pub const FFN: WholeField = whole(Param::Ffn, 1, 10_000_000, 14_336);

pub const VOCAB: WholeField = whole(Param::Vocab, 1, 100_000_000, 128_256);

/// Learned position embeddings (GPT-2, BERT); 0 for rotary or none.
pub const POSITIONS: WholeField = whole(Param::Positions, 0, 10_000_000, 0);

/// Token-type (segment) embeddings (BERT has 2).
pub const TOKEN_TYPES: WholeField = whole(Param::TokenTypes, 0, 1_000, 0);

/// Outputs of a classification head on top (0 = none).
pub const LABELS: WholeField = whole(Param::Labels, 0, 1_000_000, 0);

/// Image side in pixels; the bound keeps (image / patch)² tokens, and their
/// seq² attention scores, far inside integer range.
pub const IMAGE: WholeField = whole(Param::Image, 1, 4_096, 224);

pub const PATCH: WholeField = whole(Param::Patch, 1, 100_000, 16);

pub const CHANNELS: WholeField = whole(Param::Channels, 1, 1_000, 3);

/// Tokens generated after the prompt (inference).
pub const GEN: WholeField = whole(Param::Gen, 0, 10_000_000, 256);

/// Data-parallel degree: model replicas (or ZeRO shards).
pub const GPUS: WholeField = whole(Param::Gpus, 1, 100_000, 1);

pub const ZERO: WholeField = whole(Param::Zero, 0, 3, 0);

/// `recompute_layers`: as many as `layers` allows.
pub const RECOMPUTE_LAYERS: WholeField = whole(Param::RecomputeLayers, 1, 10_000, 1);

/// Tensor-parallel degree.
pub const TP: WholeField = whole(Param::Tp, 1, 1_024, 1);

/// LoRA rank r (0 = full fine-tuning): adapters A (r × d_in) and B (d_out × r)
/// beside each targeted linear map (Hu et al. 2021, "LoRA", §4.1).
pub const LORA_RANK: WholeField = whole(Param::LoraRank, 0, 65_536, 0);

/// DeepSpeed's gradient bucket (`reduce_bucket_size`), in millions of elements
/// (0 = none).
pub const BUCKET_M: WholeField = whole(Param::BucketM, 0, 100_000, 0);

/// The positions whose logits the prefill computes (transformers'
/// `logits_to_keep`; 0 = every position).
pub const LOGITS_TO_KEEP: WholeField = whole(Param::LogitsToKeep, 0, 100_000_000, 1);

/// Sliding-window attention: the tokens a windowed layer attends to (0 = no
/// window; Mistral 7B v0.1 4,096, Gemma 2 4,096, Gemma 3 1B 512, 4B–27B 1,024).
pub const WINDOW: WholeField = whole(Param::Window, 0, 10_000_000, 0);

/// Every n-th layer attends globally, the others through the window: layer i
/// (from 0) is global when (i + 1) is a multiple of n, as transformers writes
/// `layer_types` (configuration_gemma2.py:
/// `"sliding_attention" if bool((i + 1) % 2)`; configuration_gemma3.py with
/// `sliding_window_pattern` 6). 0 = no global layer (Mistral: every layer
/// windowed); 1 = every layer global.
pub const GLOBAL_EVERY: WholeField = whole(Param::GlobalEvery, 0, 100_000, 0);

/// A hybrid model's full-attention layers: layer i (from 0) attends to every
/// position when (i + 1) is a multiple of n, the others mix tokens with
/// `linear_mixer` (transformers configuration_qwen3_next.py: `layer_types`
/// `"linear_attention" if bool((i + 1) % full_attention_interval)`; 4 in
/// Qwen3-Next). 1: every layer attends.
pub const FULL_ATTENTION_INTERVAL: WholeField = whole(Param::FullAttentionInterval, 1, 100_000, 4);

/// The linear layers' key heads: Gated DeltaNet's `linear_num_key_heads`,
/// Mamba-2's groups (`mamba_n_groups`), which share B and C as key heads.
pub const LINEAR_NUM_KEY_HEADS: WholeField = whole(Param::LinearNumKeyHeads, 1, 100_000, 16);

/// Each key head's size: Gated DeltaNet's `linear_key_head_dim`, Mamba-2's
/// state size (`mamba_d_state`).
pub const LINEAR_KEY_HEAD_DIM: WholeField = whole(Param::LinearKeyHeadDim, 1, 100_000, 128);

/// The linear layers' value heads: Gated DeltaNet's `linear_num_value_heads`,
/// Mamba-2's heads (`mamba_n_heads`).
pub const LINEAR_NUM_VALUE_HEADS: WholeField = whole(Param::LinearNumValueHeads, 1, 100_000, 32);

/// Each value head's size: Gated DeltaNet's `linear_value_head_dim`,
/// Mamba-2's head size (`mamba_d_head`).
pub const LINEAR_VALUE_HEAD_DIM: WholeField = whole(Param::LinearValueHeadDim, 1, 100_000, 128);

/// The linear layers' causal convolution width (`linear_conv_kernel_dim`,
/// Mamba-2's `mamba_d_conv`).
pub const LINEAR_CONV_KERNEL_DIM: WholeField = whole(Param::LinearConvKernelDim, 1, 1_024, 4);

/// FSDP2 layers all-gathered ahead of the one computing (`recipe=fsdp`): its
/// default prefetch is 1 (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py
/// `_backward_prefetch`: the group at `curr_index - 1`).
pub const PREFETCH: WholeField = whole(Param::Prefetch, 0, 1_000, 1);

/// DeepSpeed ZeRO-3's prefetch bucket (`stage3_prefetch_bucket_size`), in
/// parameter elements: deepspeed/runtime/zero/config.py defaults it to 5e7.
/// The bound (10^12, a trillion parameters) keeps every byte count in range.
pub const DS_PREFETCH: WholeField = whole(Param::DsPrefetch, 0, 1_000_000_000_000, 50_000_000);

/// DeepSpeed ZeRO-3's live-parameter budget (`stage3_max_live_parameters`),
/// in elements: config.py defaults it to 1e9.
pub const DS_LIVE: WholeField = whole(Param::DsLive, 0, 1_000_000_000_000, 1_000_000_000);

/// DeepSpeed ZeRO-3's persistence threshold
/// (`stage3_param_persistence_threshold`), in elements: config.py defaults it
/// to 1e5.
pub const DS_PERSIST: WholeField = whole(Param::DsPersist, 0, 1_000_000_000_000, 100_000);

/// Routed experts per mixture-of-experts layer; 0 is a dense model.
pub const EXPERTS: WholeField = whole(Param::Experts, 0, 100_000, 0);

/// Experts each token is routed to (top-k).
pub const EXPERTS_ACTIVE: WholeField = whole(Param::ExpertsActive, 1, 100_000, 2);

/// Each routed expert's FFN size; 0 means `ffn` (Mixtral's experts are its
/// `intermediate_size`).
pub const EXPERT_FFN: WholeField = whole(Param::ExpertFfn, 0, 10_000_000, 0);

/// Shared experts every token passes through (DeepSeek, Llama 4).
pub const SHARED_EXPERTS: WholeField = whole(Param::SharedExperts, 0, 1_000, 0);

/// Each shared expert's FFN size; 0 means the routed experts' size.
pub const SHARED_FFN: WholeField = whole(Param::SharedFfn, 0, 10_000_000, 0);

/// Dense layers before the first MoE layer (DeepSeek's `first_k_dense_replace`).
pub const FIRST_DENSE_LAYERS: WholeField = whole(Param::FirstDenseLayers, 0, 10_000, 0);

/// Every n-th layer is a MoE layer (Qwen's `decoder_sparse_step`, Llama 4's
/// `interleave_moe_layer_step`).
pub const MOE_EVERY: WholeField = whole(Param::MoeEvery, 1, 10_000, 1);

/// Expert-parallel degree: the routed experts are split over this many of the
/// data-parallel ranks.
pub const EP: WholeField = whole(Param::Ep, 1, 100_000, 1);

/// Expert tensor-parallel degree, Megatron-Core's
/// `--expert-tensor-parallel-size`: each routed expert's matrices split over
/// this many ranks of its expert-parallel group. 0 (the default) is `tp`, as
/// megatron/training/arguments.py sets it when the flag is not given
/// (`args.expert_tensor_parallel_size = args.tensor_model_parallel_size`).
pub const ETP: WholeField = whole(Param::Etp, 0, 1_024, 0);

/// Megatron-Core's `moe_expert_capacity_factor`, in hundredths (0: none,
/// dropless routing).
pub const CAPACITY_FACTOR: HundredthsField = HundredthsField {
    param: Param::CapacityFactor,
    min: 0,
    max: 10_000,
    default: 0,
};

/// Multi-head latent attention's compressed KV size; 0 is ordinary attention.
pub const KV_LORA_RANK: WholeField = whole(Param::KvLoraRank, 0, 1_000_000, 0);

/// MLA's compressed query size; 0 projects the queries directly.
pub const Q_LORA_RANK: WholeField = whole(Param::QLoraRank, 0, 1_000_000, 0);

/// MLA's rotary part of each query and key head (shared by the heads for keys).
pub const QK_ROPE_HEAD_DIM: WholeField = whole(Param::QkRopeHeadDim, 0, 100_000, 64);

/// MLA's non-rotary part of each query and key head.
pub const QK_NOPE_HEAD_DIM: WholeField = whole(Param::QkNopeHeadDim, 0, 100_000, 128);

/// MLA's value head size.
pub const V_HEAD_DIM: WholeField = whole(Param::VHeadDim, 0, 100_000, 128);
