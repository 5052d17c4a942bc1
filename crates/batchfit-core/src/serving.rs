//! A serving engine's memory plan (`framework=vllm`, docs/model.md §3.12):
//! what `vllm serve` takes of the device, what is left for its KV-cache pool,
//! how many requests of `max_model_len` tokens that pool holds at once, and
//! the reason the engine gives where it refuses to start.
//!
//! vLLM (vllm/v1/worker/gpu_worker.py `determine_available_memory` and
//! vllm/utils/mem_utils.py `memory_profiling`, V1 engine) plans within
//! `gpu_memory_utilization` × the device's memory as CUDA reports it
//! (`torch.cuda.mem_get_info()`'s total, [`Device::usable_bytes`]), the budget.
//! From it, the weights, the PyTorch peak of one profiling step (a forward
//! pass over `max_num_batched_tokens` tokens, then sampling one token for
//! each of `min(max_num_seqs, max_num_batched_tokens)` requests) and the
//! memory the step took outside PyTorch are taken, and since vLLM 0.21 the
//! memory its CUDA graphs were measured to take; the rest is the KV-cache
//! pool, cut into blocks of `block_size` tokens on every layer
//! (vllm/v1/core/kv_cache_utils.py). The CUDA context and the communication
//! buffers, made before the engine's first memory snapshot, lie outside the
//! budget.
//!
//! ```
//! use batchfit_core::{query, serving};
//!
//! let config = query::parse("form=transformer&model=llama-3.1-8b&framework=vllm&gpu=h100-80gb&max_model_len=8192").config;
//! let plan = serving::plan(&config).unwrap();
//! // The parts of the plan fill the budget exactly.
//! assert_eq!(plan.weights + plan.activation_peak + plan.non_torch + plan.cuda_graphs + plan.kv_cache_pool, plan.budget);
//! assert_eq!(plan.kv_bytes_per_token, 131_072);
//! assert!(plan.refusal.is_none());
//! ```

use crate::arith::div_ceil;
use crate::memory;
use crate::presets::{DEVICES_BY_CAPACITY, Device, DeviceKind, DevicePreset};
use crate::query::{Config, Form};
use crate::transformer::{
    EngineSettings, Framework, MAX_MODEL_LEN, Mode, TransformerInput, engine_forward,
    engine_sampler, kv_bytes_per_token, linear_state,
};

/// The memory plan of one GPU of a serving engine, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The engine that plans: `Framework::Vllm` or `Framework::Sglang`.
    pub engine: Framework,
    /// The share of memory the budget is, in thousandths, as the engine
    /// runs it: vLLM's `gpu_memory_utilization` of the device; SGLang's
    /// `mem_fraction_static` of the memory free before the weights load,
    /// given or derived from the card ([`sglang_mem_fraction`]).
    pub fraction_thousandths: u64,
    /// vLLM: `gpu_memory_utilization` × the device's memory as CUDA reports
    /// it ([`Device::usable_bytes`]). SGLang:
    /// `mem_fraction_static` × the memory free before loading, the static
    /// memory of the weights and the pool.
    pub budget: u128,
    /// SGLang: what `mem_fraction_static` leaves of the free memory for the
    /// activations and the CUDA graphs, outside the budget; vLLM: 0 (its
    /// profiling step is inside the budget).
    pub reserve: u128,
    /// The model's weights on this GPU.
    pub weights: u128,
    /// The profiling step's PyTorch peak above the weights: the larger of its
    /// forward pass and its sampling.
    pub activation_peak: u128,
    /// What the profiling step allocated outside PyTorch: not estimated
    /// (0); vLLM logs it as "non-torch memory".
    pub non_torch: u128,
    /// What is left of the budget for the KV cache: the budget less the
    /// weights, the activation peak, `non_torch` and `cuda_graphs`, so that
    /// the five sum to it exactly; 0 where they exceed it (and the engine
    /// refuses, [`Refusal::NoCacheMemory`]).
    pub kv_cache_pool: u128,
    /// The CUDA graphs' memory, which vLLM measures by capturing them
    /// (`profile_cudagraph_memory`, taken from the budget since 0.21): not
    /// estimated (0); none with `enforce_eager` ([`Plan::eager`]).
    pub cuda_graphs: u128,
    /// `enforce_eager`: no CUDA graphs, so none is missing from the plan.
    pub eager: bool,
    /// vLLM's `flashinfer_sampler`: the profiling step sampled with
    /// FlashInfer's sampler (false for SGLang's plan).
    pub flashinfer_sampler: bool,
    /// The CUDA context and libraries' memory before the engine starts
    /// (`overhead_gb`), outside the budget.
    pub outside: u128,
    /// The KV cache of one token on this GPU, every layer that attends.
    pub kv_bytes_per_token: u128,
    /// A hybrid model's linear layers' state of one request on this GPU,
    /// every linear layer (0 for a model that only attends): vLLM keeps it
    /// in one block of each linear group, SGLang in a pool of its own.
    pub linear_state_per_request: u128,
    /// The settings as the engine runs them, defaults filled in.
    pub max_model_len: u64,
    pub max_num_seqs: u64,
    pub max_num_batched_tokens: u64,
    pub block_size: u64,
    /// How the pool's blocks are shared among the layers ([`KvGroups`]).
    pub groups: KvGroups,
    /// Blocks in the pool (each `block_size` tokens on one group's layers).
    pub blocks: u128,
    /// Tokens the pool holds, as vLLM logs "GPU KV cache size": `blocks ÷
    /// groups × block_size` (every layer's, with one group).
    pub pool_tokens: u128,
    /// Requests of `max_model_len` tokens the pool holds at once, in
    /// hundredths, as vLLM logs "Maximum concurrency for N tokens per
    /// request: X.XXx": blocks over the blocks one such request needs.
    pub max_concurrency_hundredths: u128,
    /// The longest single request the pool holds, in tokens.
    pub max_seq: u128,
    /// Why the engine would not start, if it would not.
    pub refusal: Option<Refusal>,
}

/// How vLLM shares the pool among a model's layers (vllm/v1/core/
/// kv_cache_utils.py, the hybrid KV-cache manager; its design,
/// docs/design/hybrid_kv_cache_manager.md, written at 458e74eb): the
/// layers of one kind (full attention, sliding window) are cut into groups
/// of as many layers as the kind with fewer has, the last padded, and a block
/// of the pool is one `block_size`-token page of each layer of one group.
/// A request holds, in each full-attention group, blocks for all its tokens
/// (`FullAttentionSpec`), and in each sliding-window group blocks for the
/// last `window − 1` tokens and one step's, one more where the window does
/// not start on a block (`SlidingWindowSpec.max_memory_usage_bytes`). A
/// model of one kind is one group of every layer. SGLang's plan counts a
/// windowed layer as a full one (its separate sliding-window pool is not
/// modelled), as does `generate()`'s cache in the other forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KvGroups {
    /// Layers per group.
    pub layers: u64,
    /// Groups of full-attention layers.
    pub full: u64,
    /// Groups of sliding-window layers.
    pub windowed: u64,
    /// Groups of linear layers (a hybrid model's: `MambaSpec`, one block a
    /// request whatever its length).
    pub linear: u64,
    /// The window in tokens (0: none).
    pub window: u64,
}

impl KvGroups {
    /// vLLM's groups for `input` (`_get_kv_cache_groups_uniform_page_size`:
    /// the group size is the smaller kind's layer count).
    fn vllm(input: &TransformerInput) -> KvGroups {
        let arch = &input.arch;
        let windowed = arch.windowed_layers();
        let linear = arch.linear_layers();
        let full = arch.layers - windowed - linear;
        let layers = [full, windowed, linear]
            .into_iter()
            .filter(|&n| n > 0)
            .min()
            .unwrap_or(1);
        KvGroups {
            layers,
            full: full.div_ceil(layers),
            windowed: windowed.div_ceil(layers),
            linear: linear.div_ceil(layers),
            window: arch.window,
        }
    }

    /// Every layer in one group of full attention: SGLang's pool, and any
    /// model without a window.
    fn uniform(layers: u64) -> KvGroups {
        KvGroups {
            layers: layers.max(1),
            full: 1,
            windowed: 0,
            linear: 0,
            window: 0,
        }
    }

    /// How many groups share the pool (at least one).
    pub fn count(&self) -> u64 {
        (self.full + self.windowed + self.linear).max(1)
    }

    /// Blocks one layer holds for a request of `len` tokens when steps
    /// schedule `batched` tokens: a full-attention layer's and a
    /// sliding-window layer's (`FullAttentionSpec` and `SlidingWindowSpec`
    /// `.max_memory_usage_bytes` over the page size).
    fn layer_blocks(&self, len: u64, block_size: u64, batched: u64) -> (u128, u128) {
        let block = u128::from(block_size.max(1));
        let len = u128::from(len);
        let windowed_tokens = u128::from(self.window.saturating_sub(1))
            .saturating_add(u128::from(batched))
            .min(len);
        (div_ceil(len, block), div_ceil(windowed_tokens, block) + 1)
    }

    /// Blocks one request of `len` tokens holds when steps schedule
    /// `batched` tokens (`get_max_concurrency_for_kv_cache_config`: each
    /// group's blocks, summed over the groups).
    pub fn request_blocks(&self, len: u64, block_size: u64, batched: u64) -> u128 {
        let (full, windowed) = self.layer_blocks(len, block_size, batched);
        (full * u128::from(self.full)
            + windowed * u128::from(self.windowed)
            + u128::from(self.linear))
        .max(1)
    }
}

/// Why `vllm serve` stops before serving, with its own reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// "Free memory on device (free/total GiB) on startup is less than
    /// desired GPU memory utilization (u, budget GiB)" (gpu_worker.py
    /// `init_device`): the memory outside the budget does not leave it.
    Startup { free: u128, total: u128 },
    /// "No available memory for the cache blocks. Try increasing
    /// `gpu_memory_utilization`" (kv_cache_utils.py
    /// `check_enough_kv_cache_memory`): the weights and the profiling step
    /// fill the budget.
    NoCacheMemory,
    /// "To serve at least one request with the models's max seq len
    /// (max_model_len), (needed GiB KV cache is needed, which is larger than
    /// the available KV cache memory (available GiB). Based on the available
    /// memory, the estimated maximum model length is estimate."
    MaxModelLen { needed: u128, estimate: u128 },
    /// SGLang: "Not enough memory. Please try to increase
    /// --mem-fraction-static." (pool_configurator.py `MemoryPoolConfig`):
    /// the weights fill the static memory, no token fits the pool.
    NotEnoughMemory,
}

impl Plan {
    /// Blocks one request of `len` tokens holds in this plan's pool.
    pub fn request_blocks(&self, len: u64) -> u128 {
        self.groups
            .request_blocks(len, self.block_size, self.max_num_batched_tokens)
    }

    /// Whole requests of `max_model_len` tokens at once, as the pool allows
    /// and `max_num_seqs` caps them.
    pub fn concurrent_requests(&self) -> u128 {
        (self.max_concurrency_hundredths / 100).min(u128::from(self.max_num_seqs))
    }

    /// The engine's name as people write it: "vLLM", "SGLang".
    pub fn engine_name(&self) -> &'static str {
        self.engine.engine_name()
    }

    /// What the engine's process holds once serving, as nvidia-smi shows
    /// it: the budget and the memory outside it (SGLang's activations and
    /// CUDA graphs, in its reserve, come on top).
    pub fn process(&self) -> u128 {
        self.budget + self.outside
    }
}

/// The engine a configuration serves with, if any: the transformer form in
/// inference under an engine profile, on a device.
pub fn plan(config: &Config) -> Option<Plan> {
    plan_from(config, &memory::estimate(config))
}

/// Whether `config` is served by an engine that plans its memory: the
/// transformer form in inference under an engine profile, on a device. Its
/// answer is then the [`plan`], not the estimate.
pub fn serves(config: &Config) -> bool {
    engine(config) && config.device.is_some()
}

/// Whether `config` names an engine that plans its memory (the transformer
/// form in inference under an engine profile), on a device or not.
pub fn engine(config: &Config) -> bool {
    let input = &config.transformer;
    config.form == Form::Transformer && input.mode == Mode::Inference && input.framework.engine()
}

/// [`plan`] with `config`'s estimate already at hand (its weights).
pub fn plan_from(config: &Config, estimate: &memory::Estimate) -> Option<Plan> {
    let input = &config.transformer;
    let device = config.device.filter(|_| serves(config))?;
    if input.framework == Framework::Sglang {
        return Some(sglang_plan(config, device, estimate));
    }
    let capability = match device {
        Device::Preset(preset) => preset.capability,
        Device::Custom { .. } => None,
    };
    // The defaults read the card's total as NVML gives it, nvidia-smi's
    // (vllm/platforms/cuda.py `get_device_total_memory`); the budget and the
    // start-up check read CUDA's (`MemorySnapshot`: `mem_get_info`).
    let settings = input.engine;
    let large = EngineSettings::large_defaults(device.bytes(), capability);
    let total = device.usable_bytes();
    let batched = settings.max_num_batched_tokens(large);
    let seqs = settings.max_num_seqs(large);
    let requests = seqs.min(batched);
    let max_model_len = match settings.max_model_len {
        0 => input.seq.saturating_add(input.generated),
        given => given,
    };
    // A hybrid model's linear layers keep one page of state per request:
    // the convolution's last `conv_kernel_dim − 1` inputs and the recurrent
    // state, both in the model's dtype (vllm/model_executor/layers/mamba/
    // mamba_utils.py, `gated_delta_net_state_shape`, `mamba2_state_shape`,
    // `mamba_cache_dtype="auto"`). vLLM makes the attention layers' page as
    // large, raising their block size to a multiple of 16 tokens that holds
    // the state (model_executor/models/config.py
    // `HybridAttentionMambaModelConfig.verify_and_update_config`: `attn_block_size
    // = 16 * cdiv(mamba_page_size, 16 * attn_page_size_1_token)`) and
    // padding the state's page to the attention's.
    let arch = &input.arch;
    let e = input.activation_bytes();
    let columns = u128::from(arch.linear_conv_kernel_dim.saturating_sub(1));
    let linear_state_per_request = linear_state(input, columns, e, e);
    let (attention_layers, linear_layers) = (
        u128::from(arch.attention_layers()),
        u128::from(arch.linear_layers()),
    );
    let state_page = linear_state_per_request / linear_layers.max(1);
    let kv_bytes_per_token = kv_bytes_per_token(input);
    let token_page = kv_bytes_per_token / attention_layers.max(1);
    let block_size = if linear_layers > 0 && token_page > 0 {
        let tokens = 16 * div_ceil(state_page, 16 * token_page);
        settings
            .block_size
            .max(u64::try_from(tokens).unwrap_or(u64::MAX))
    } else {
        settings.block_size
    };
    // 0: vLLM's default, 0.9.
    let utilization = match settings.gpu_memory_utilization {
        0 => super::transformer::GPU_MEMORY_UTILIZATION.default,
        given => given,
    };
    let budget = total * u128::from(utilization) / 100;
    let weights = estimate.weights;
    let activation_peak =
        engine_forward(input, batched).max(engine_sampler(input, batched, requests));
    // Measured by the engine, not derived from the model: published logs
    // give 0.3 to 1.6 GiB ("Estimated CUDA graph memory"), docs/model.md.
    let (non_torch, cuda_graphs) = (0, 0);
    let outside = config.overhead_bytes();
    let pool = budget.saturating_sub(weights + activation_peak + non_torch + cuda_graphs);
    // kv_cache_utils.py `get_num_blocks`: available // page_size //
    // num_layers, a page being one layer's block and num_layers a group's.
    let groups = KvGroups::vllm(input);
    let layer_block = match token_page {
        0 => state_page,
        _ => token_page * u128::from(block_size),
    };
    let block_bytes = (layer_block * u128::from(groups.layers)).max(1);
    let blocks = pool / block_bytes;
    let request_blocks = groups.request_blocks(max_model_len, block_size, batched);
    // `check_enough_kv_cache_memory`: every layer's own blocks, unpadded,
    // for a request of `len` tokens; `estimate_max_model_len` searches the
    // longest that fits the pool.
    let windowed = u128::from(arch.windowed_layers());
    let full_layers = attention_layers - windowed;
    let needed = |len: u64| {
        let (full, window) = groups.layer_blocks(len, block_size, batched);
        (full * full_layers + window * windowed + linear_layers) * layer_block
    };
    let ceiling = match full_layers {
        0 => MAX_MODEL_LEN.max,
        n => u64::try_from(pool / (layer_block * n).max(1) * u128::from(block_size))
            .unwrap_or(u64::MAX),
    };
    let max_seq = u128::from(memory::largest(1, ceiling, |len| needed(len) <= pool).unwrap_or(0));
    let needed = needed(max_model_len);
    let refusal = if total.saturating_sub(outside) < budget {
        Some(Refusal::Startup {
            free: total.saturating_sub(outside),
            total,
        })
    } else if pool == 0 {
        Some(Refusal::NoCacheMemory)
    } else if needed > pool {
        Some(Refusal::MaxModelLen {
            needed,
            estimate: max_seq,
        })
    } else {
        None
    };
    Some(Plan {
        engine: Framework::Vllm,
        fraction_thousandths: utilization * 10,
        budget,
        reserve: 0,
        weights,
        activation_peak,
        non_torch,
        kv_cache_pool: pool,
        cuda_graphs,
        eager: settings.enforce_eager,
        flashinfer_sampler: settings.flashinfer_sampler,
        outside,
        kv_bytes_per_token,
        linear_state_per_request,
        max_model_len,
        max_num_seqs: seqs,
        max_num_batched_tokens: batched,
        block_size,
        groups,
        blocks,
        pool_tokens: blocks / u128::from(groups.count()) * u128::from(block_size),
        max_concurrency_hundredths: blocks * 100 / request_blocks,
        max_seq,
        refusal,
    })
}

/// SGLang's defaults for a card of `gpu_mib` MiB (`get_device_memory_capacity`)
/// and `tp` GPUs, as `_handle_gpu_memory_settings` chooses them
/// (python/sglang/srt/server_args.py, read in the Ascend/sglang mirror at
/// 1d201cb8): `chunked_prefill_size` and `cuda_graph_max_bs` by the card's
/// memory.
pub fn sglang_defaults(gpu_mib: u128, tp: u64) -> (u64, u64) {
    let small_tp = tp < 4;
    match gpu_mib {
        m if m < 20 * 1024 => (2_048, 8),
        m if m < 35 * 1024 => (2_048, if small_tp { 24 } else { 80 }),
        m if m < 60 * 1024 => (4_096, if small_tp { 32 } else { 160 }),
        m if m < 160 * 1024 => (8_192, if small_tp { 256 } else { 512 }),
        _ => (16_384, 512),
    }
}

/// SGLang's `mem_fraction_static` when it is not given, in thousandths:
/// `round((gpu_mem − reserved_mem) / gpu_mem, 3)` with, in MiB, `reserved_mem
/// = 512 + max(chunked_prefill_size, 2048) × 1.5 + cuda_graph_max_bs × 2 +
/// tp × pp / 8 × 1024`, at least 10,240 on a card above 60 GiB (the memory
/// its activations and CUDA graphs are left; server_args.py
/// `_handle_gpu_memory_settings`, without speculative decoding, data-
/// parallel attention or piecewise CUDA graphs). Rounded half up.
pub fn sglang_mem_fraction(gpu_mib: u128, chunked: u64, graph_bs: u64, tp: u64, pp: u64) -> u64 {
    // Everything in eighths of a MiB, to keep 1.5× and tp × pp / 8 whole.
    let chunked = u128::from(chunked.max(2_048));
    let mut reserved = 8 * 512
        + 12 * chunked
        + 16 * u128::from(graph_bs)
        + u128::from(tp) * u128::from(pp) * 1_024;
    if gpu_mib > 60 * 1024 {
        reserved = reserved.max(8 * 10_240);
    }
    let gpu = (8 * gpu_mib).max(1);
    let free = gpu.saturating_sub(reserved);
    u64::try_from((free * 1_000 * 2 + gpu) / (2 * gpu)).unwrap_or(0)
}

/// SGLang's plan (docs/model.md §3.12): the static memory is
/// `mem_fraction_static` of the memory free before the weights load (the
/// device less the CUDA context, `overhead_gb`); the weights take their
/// share and the pool the rest (python/sglang/srt/model_executor/
/// model_runner_kv_cache_mixin.py `_profile_available_bytes` at 273fdead:
/// the free memory after loading less the free memory before × (1 −
/// mem_fraction_static)). The pool holds whole pages of `page_size`
/// (`block_size`) tokens; `max_running_requests` (`max_num_seqs`), unless
/// given, is `min(clamp(tokens / context_len × 512, 2048, 4096), tokens / 2)`
/// (`_resolve_max_num_reqs`).
fn sglang_plan(config: &Config, device: Device, estimate: &memory::Estimate) -> Plan {
    let input = &config.transformer;
    let settings = input.engine;
    // The defaults read nvidia-smi's total (`get_nvgpu_memory_capacity`);
    // the free memory is CUDA's (`get_available_gpu_memory`: `mem_get_info`).
    let gpu_mib = device.bytes() >> 20;
    let (chunked_default, graph_bs) = sglang_defaults(gpu_mib, input.tp);
    let chunked = match settings.max_num_batched_tokens {
        0 => chunked_default,
        given => given,
    };
    let fraction = match settings.gpu_memory_utilization {
        0 => sglang_mem_fraction(gpu_mib, chunked, graph_bs, input.tp, input.pp),
        given => given * 10,
    };
    let outside = config.overhead_bytes();
    let free = device.usable_bytes().saturating_sub(outside);
    let budget = free * u128::from(fraction) / 1_000;
    let weights = estimate.weights;
    let pool = budget.saturating_sub(weights);
    let kv_bytes_per_token = kv_bytes_per_token(input);
    // A hybrid model's linear layers: SGLang's `MambaPool` holds the state of
    // `max_mamba_cache_size` requests, `max_running_requests` or else 512,
    // taken from the pool before the KV cache is sized over the
    // full-attention layers (python/sglang/srt/model_executor/model_runner.py
    // at 0.5.3, `is_hybrid_gdn`; configs/mamba_utils.py: the convolution's
    // state in BF16, the recurrent state in `mamba_ssm_dtype`, FP32 by
    // default), and the running requests are at most that many.
    let columns = u128::from(input.arch.linear_conv_kernel_dim.saturating_sub(1));
    let linear_state_per_request = linear_state(input, columns, 2, 4);
    let states = match (linear_state_per_request, settings.max_num_seqs) {
        (0, _) => 0,
        (_, 0) => 512,
        (_, given) => given,
    };
    let kv_pool = pool.saturating_sub(u128::from(states) * linear_state_per_request);
    let page = u128::from(settings.block_size.max(1));
    let tokens = kv_pool / kv_bytes_per_token.max(1) / page * page;
    let context_len = match settings.max_model_len {
        0 => input.seq.saturating_add(input.generated),
        given => given,
    };
    let running = match settings.max_num_seqs {
        0 => {
            let estimated = (tokens * 512 / u128::from(context_len.max(1))).clamp(2_048, 4_096);
            let running = u64::try_from(estimated.min(tokens / 2)).unwrap_or(u64::MAX);
            if states > 0 {
                running.min(states)
            } else {
                running
            }
        }
        given => given,
    };
    let blocks = tokens / page;
    let request_blocks = div_ceil(u128::from(context_len), page).max(1);
    Plan {
        engine: Framework::Sglang,
        fraction_thousandths: fraction,
        budget,
        reserve: free - budget,
        weights,
        activation_peak: 0,
        non_torch: 0,
        kv_cache_pool: pool,
        cuda_graphs: 0,
        eager: settings.enforce_eager,
        flashinfer_sampler: false,
        outside,
        kv_bytes_per_token,
        linear_state_per_request,
        max_model_len: context_len,
        max_num_seqs: running,
        max_num_batched_tokens: chunked,
        block_size: settings.block_size.max(1),
        groups: KvGroups::uniform(input.arch.layers),
        blocks,
        pool_tokens: tokens,
        max_concurrency_hundredths: blocks * 100 / request_blocks,
        max_seq: tokens,
        refusal: (tokens == 0).then_some(Refusal::NotEnoughMemory),
    }
}

/// One request length of the [`sweep`]: the requests of that many tokens the
/// pool holds at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthRow {
    pub max_model_len: u64,
    /// As vLLM would log it for this `max_model_len`, in hundredths.
    pub concurrency_hundredths: u128,
    /// Whole requests at once, at most `max_num_seqs`.
    pub requests: u128,
    /// Whether one request of this length fits the pool (vLLM starts).
    pub fits: bool,
}

/// The plan over request lengths, the serving counterpart of the batch
/// sweep: powers of two from 1,024 tokens to the first that no longer fits
/// (at most the URL format's bound on `max_model_len`, which a model of
/// sliding-window layers only never reaches), and the plan's own
/// `max_model_len`. The pool does not
/// depend on `max_model_len` (the profiling step is `max_num_batched_tokens`
/// long), so one plan gives every row.
pub fn sweep(plan: &Plan) -> Vec<LengthRow> {
    let row = |len: u64| {
        let blocks = plan.request_blocks(len);
        let concurrency_hundredths = plan.blocks * 100 / blocks;
        LengthRow {
            max_model_len: len,
            concurrency_hundredths,
            requests: (concurrency_hundredths / 100).min(u128::from(plan.max_num_seqs)),
            fits: u128::from(len) <= plan.max_seq,
        }
    };
    let mut lengths: Vec<u64> = Vec::new();
    let mut len: u64 = 1_024;
    while len <= MAX_MODEL_LEN.max {
        lengths.push(len);
        if u128::from(len) > plan.max_seq {
            break;
        }
        len *= 2;
    }
    if !lengths.contains(&plan.max_model_len) && plan.max_model_len > 0 {
        lengths.push(plan.max_model_len);
        lengths.sort_unstable();
    }
    lengths.into_iter().map(row).collect()
}

/// The plan on every GPU preset (Apple silicon and CPUs excluded: vLLM's
/// engine runs on CUDA and ROCm GPUs): which cards serve
/// the setup, and how many requests each holds (the smallest card first).
pub fn devices(config: &Config) -> Vec<(&'static DevicePreset, Plan)> {
    let estimate = memory::estimate(config);
    DEVICES_BY_CAPACITY
        .iter()
        .filter(|device| device.kind == DeviceKind::Gpu)
        .filter_map(|&device| {
            let on = Config {
                device: Some(Device::Preset(device)),
                ..*config
            };
            plan_from(&on, &estimate).map(|plan| (device, plan))
        })
        .collect()
}

/// One change to a served setup and the plan it gives ([`what_ifs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WhatIf {
    pub change: Change,
    pub config: Config,
    pub plan: Plan,
}

/// The changes [`what_ifs`] tries, as the engine's flags name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// `kv_cache_dtype=fp8`: one byte per cached value.
    KvFp8,
    /// The weights in 4 bits (AWQ, GPTQ).
    Int4,
    /// Tensor parallelism over this many GPUs: the smallest degree above the
    /// setup's that divides the heads (memory::serving_tp), within the GPUs
    /// the user has (`max_gpus`).
    Tp(u64),
    /// `gpu_memory_utilization=0.95`.
    Utilization95,
    /// `max_model_len` down to the longest request the pool holds, a whole
    /// number of blocks, where vLLM refuses the setup's.
    MaxModelLen(u64),
}

impl Change {
    /// The change's name in the CLI's JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::KvFp8 => "kv_fp8",
            Self::Int4 => "int4",
            Self::Tp(_) => "tp",
            Self::Utilization95 => "utilization_95",
            Self::MaxModelLen(_) => "max_model_len",
        }
    }
}

/// What would make a served setup start, or serve more requests at once:
/// each change alone, kept where it does either, the most requests first.
pub fn what_ifs(config: &Config) -> Vec<WhatIf> {
    let Some(base) = plan(config) else {
        return Vec::new();
    };
    let t = &config.transformer;
    let mut changes = Vec::new();
    if t.kv_dtype == crate::transformer::KvDtype::Bf16 {
        changes.push(Change::KvFp8);
    }
    if t.quant == crate::transformer::Quant::None {
        changes.push(Change::Int4);
    }
    if let Some(tp) = memory::serving_tp(t).next() {
        let per_degree = t.gpus.saturating_mul(t.pp).saturating_mul(t.cp);
        if per_degree.saturating_mul(tp) <= memory::gpu_budget(config) {
            changes.push(Change::Tp(tp));
        }
    }
    // vLLM plans its profiling step inside the budget; SGLang leaves its
    // activations and CUDA graphs outside, so a larger static share could
    // fail at the first long prefill, which its plan does not check.
    if t.framework == Framework::Vllm && t.engine.gpu_memory_utilization < 95 {
        changes.push(Change::Utilization95);
    }
    if let Some(Refusal::MaxModelLen { estimate, .. }) = base.refusal
        && let Ok(len) = u64::try_from(estimate)
        && len > 0
    {
        changes.push(Change::MaxModelLen(len));
    }
    let mut found: Vec<WhatIf> = changes
        .into_iter()
        .filter_map(|change| {
            let mut changed = *config;
            let e = &mut changed.transformer;
            match change {
                Change::KvFp8 => e.kv_dtype = crate::transformer::KvDtype::Fp8,
                Change::Int4 => e.quant = crate::transformer::Quant::Int4,
                Change::Tp(tp) => e.tp = tp,
                Change::Utilization95 => e.engine.gpu_memory_utilization = 95,
                Change::MaxModelLen(len) => e.engine.max_model_len = len,
            }
            let changed = crate::query::rules::normalize(changed);
            let plan = plan(&changed)?;
            let starts = plan.refusal.is_none() && base.refusal.is_some();
            let more =
                plan.refusal.is_none() && plan.concurrent_requests() > base.concurrent_requests();
            (starts || more).then_some(WhatIf {
                change,
                config: changed,
                plan,
            })
        })
        .collect();
    found.sort_by_key(|w| std::cmp::Reverse(w.plan.concurrent_requests()));
    found
}

pub mod log;

#[cfg(test)]
mod tests;
