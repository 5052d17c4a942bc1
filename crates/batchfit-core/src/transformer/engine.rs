//! A serving engine's own settings (`framework=vllm`), spelled as the engine
//! spells its flags, with their ranges and defaults. The plan they give is
//! [`crate::serving`]'s.

use crate::fields::{HundredthsField, WholeField, whole};
use crate::param::Param;

/// `--gpu-memory-utilization`, in hundredths: the share of the device's
/// memory the engine plans within (vllm/config/cache.py: `gt=0, le=1`,
/// default 0.9); SGLang's `--mem-fraction-static`. 0: the engine's default
/// (vLLM's 0.9; SGLang's from the card).
pub const GPU_MEMORY_UTILIZATION: HundredthsField = HundredthsField {
    param: Param::GpuMemoryUtilization,
    min: 0,
    max: 100,
    default: 90,
};

/// `--max-model-len`: the longest request, prompt and output, the engine
/// accepts. 0: the prompt and the generated tokens of the form (vLLM's own
/// default is the model's `max_position_embeddings`).
pub const MAX_MODEL_LEN: WholeField = whole(Param::MaxModelLen, 0, 100_000_000, 0);

/// `--max-num-seqs`: requests in one step. 0: the engine's default for the
/// device ([`super::EngineSettings::max_num_seqs`]).
pub const MAX_NUM_SEQS: WholeField = whole(Param::MaxNumSeqs, 0, 1_000_000, 0);

/// `--max-num-batched-tokens`: tokens in one step, the size of the profiling
/// run. 0: the engine's default for the device.
pub const MAX_NUM_BATCHED_TOKENS: WholeField = whole(Param::MaxNumBatchedTokens, 0, 100_000_000, 0);

/// `--block-size`: tokens per KV-cache block (vllm/config/cache.py: 16 on
/// CUDA).
pub const BLOCK_SIZE: WholeField = whole(Param::BlockSize, 1, 4_096, 16);

/// What `vllm serve` is started with, beside the model and the parallelism
/// the form already asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EngineSettings {
    /// `--gpu-memory-utilization` in hundredths.
    pub gpu_memory_utilization: u64,
    /// `--max-model-len`; 0 for the form's prompt and generated tokens.
    pub max_model_len: u64,
    /// `--max-num-seqs`; 0 for the engine's default.
    pub max_num_seqs: u64,
    /// `--max-num-batched-tokens`; 0 for the engine's default.
    pub max_num_batched_tokens: u64,
    /// `--block-size`.
    pub block_size: u64,
    /// `--enforce-eager`: no CUDA graphs.
    pub enforce_eager: bool,
    /// FlashInfer's top-k/top-p sampler in place of PyTorch's
    /// (`VLLM_USE_FLASHINFER_SAMPLER`): it sorts nothing, so the profiling
    /// step's sampling holds less ([`super::engine_sampler`]).
    pub flashinfer_sampler: bool,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            gpu_memory_utilization: GPU_MEMORY_UTILIZATION.default,
            max_model_len: MAX_MODEL_LEN.default,
            max_num_seqs: MAX_NUM_SEQS.default,
            max_num_batched_tokens: MAX_NUM_BATCHED_TOKENS.default,
            block_size: BLOCK_SIZE.default,
            enforce_eager: false,
            flashinfer_sampler: false,
        }
    }
}

/// The device memory from which `vllm serve` takes its larger defaults,
/// 70 GiB (vllm/engine/arg_utils.py `get_batch_defaults`).
pub const LARGE_DEVICE_BYTES: u128 = 70 << 30;

impl EngineSettings {
    /// Whether `vllm serve` gives a device its larger defaults: at least
    /// 70 GiB and not an A100 (vllm/engine/arg_utils.py: `"a100" not in
    /// device_name`, as "Setting large `max_num_batched_tokens` for A100
    /// reduces throughput"). The A100 is told by its compute capability, 8.0,
    /// which no other card of 70 GiB or more has among the presets.
    pub fn large_defaults(device_bytes: u128, capability: Option<(u8, u8)>) -> bool {
        device_bytes >= LARGE_DEVICE_BYTES && capability != Some((8, 0))
    }

    /// `--max-num-batched-tokens` as the engine runs it: the user's, or the
    /// OpenAI server's default, 8,192 on a large device and 2,048 otherwise.
    pub fn max_num_batched_tokens(&self, large: bool) -> u64 {
        match self.max_num_batched_tokens {
            0 if large => 8_192,
            0 => 2_048,
            given => given,
        }
    }

    /// `--max-num-seqs` as the engine runs it: the user's, or the OpenAI
    /// server's default, 1,024 on a large device and 256 otherwise, at most
    /// the batched tokens (`min(default, max_num_batched_tokens)`).
    pub fn max_num_seqs(&self, large: bool) -> u64 {
        match self.max_num_seqs {
            0 => (if large { 1_024 } else { 256 }).min(self.max_num_batched_tokens(large)),
            given => given,
        }
    }
}
