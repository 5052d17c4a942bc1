//! The transformer form: memory per GPU from the architecture, term by term.
//!
//! Parameters are counted from the architecture (every matrix, bias and norm), the
//! model states follow from the precision recipe, optimizer and sharding, and the
//! activations follow Korthikanti et al. 2022, "Reducing Activation Recomputation
//! in Large Transformer Models" (arXiv:2205.05198), §4, generalised to grouped-query
//! attention, gated MLPs, other FFN sizes and 32-bit activations. docs/model.md
//! derives every formula; each term below names its source.

// Each module imports only those before it, so that there is no cycle: options and
// bounds; architecture; pipeline; input; framework, adapters and inference; states
// and activations; saved; backward.
mod activations;
mod adapters;
mod architecture;
mod backward;
mod bounds;
mod engine;
mod framework;
mod inference;
mod input;
mod method;
mod options;
mod per_sample;
pub mod pipeline;
mod saved;
mod states;

pub use adapters::{Adapters, dequantized_weight};
pub use architecture::{
    Architecture, AttentionWidths, Ends, MoePlacement, ParameterCount, RoutedExperts, Span,
    parameter_count, stage_parameter_count,
};
pub use backward::{
    UnfusedGradients, dummy_wgrads, embedding_backward, head_backward, kept_outputs,
    unfused_gradients,
};
pub use bounds::{
    BUCKET_M, CAPACITY_FACTOR, CHANNELS, DS_LIVE, DS_PERSIST, DS_PREFETCH, EP, ETP, EXPERT_FFN,
    EXPERTS, EXPERTS_ACTIVE, FFN, FIRST_DENSE_LAYERS, FULL_ATTENTION_INTERVAL, GEN, GLOBAL_EVERY,
    GPUS, HEAD_DIM, HEADS, IMAGE, KV_HEADS, KV_LORA_RANK, LABELS, LINEAR_CONV_KERNEL_DIM,
    LINEAR_KEY_HEAD_DIM, LINEAR_NUM_KEY_HEADS, LINEAR_NUM_VALUE_HEADS, LINEAR_VALUE_HEAD_DIM,
    LOGITS_TO_KEEP, LORA_RANK, MOE_EVERY, PATCH, POSITIONS, PREFETCH, Q_LORA_RANK,
    QK_NOPE_HEAD_DIM, QK_ROPE_HEAD_DIM, RECOMPUTE_LAYERS, SHARED_EXPERTS, SHARED_FFN, TOKEN_TYPES,
    TP, V_HEAD_DIM, VOCAB, WINDOW, ZERO,
};
pub use engine::{
    BLOCK_SIZE, EngineSettings, GPU_MEMORY_UTILIZATION, LARGE_DEVICE_BYTES, MAX_MODEL_LEN,
    MAX_NUM_BATCHED_TOKENS, MAX_NUM_SEQS,
};
pub use inference::{
    InferenceMoments, engine_forward, engine_sampler, kv_bytes_per_token, kv_cache_per_sample,
    kv_dequantized_per_sample, linear_state,
};
pub use input::TransformerInput;
pub use method::Method;
pub use options::{
    Attention, BaseQuant, Block, CacheImpl, Fp8, Framework, FusedProj, Kind, KvDtype, KvLayout,
    LinearMixer, Logits, LoraTargets, LoraVariant, Loss, Mlp, Mode, Norm, NormKernel, Optimizer,
    Outputs, Quant, Recipe, Recompute, RecomputeMethod, RecomputeModules, Step, ZeroGrad,
};
pub use per_sample::{
    PerSample, activations_per_sample, layer_activations_per_sample,
    offloaded_activations_per_sample,
};
pub use saved::{Saved, training_saved};
pub use states::{
    ModelStates, embedding_copies, fp8_buffers, fp8_weight_copies, loss_weight_copies, model_states,
};

#[cfg(test)]
mod tests;
