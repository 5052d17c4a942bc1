//! A serving engine's memory plan (`framework=vllm`, docs/model.md §3.12):
//! what `vllm serve` takes of the device, what is left for its KV-cache pool,
//! how many requests of `max_model_len` tokens that pool holds at once, and
//! the reason the engine gives where it refuses to start.
//!
//! vLLM (vllm/v1/worker/gpu_worker.py `determine_available_memory` and
//! vllm/utils/mem_utils.py `memory_profiling`, V1 engine) plans within
//! `gpu_memory_utilization` × the device's memory, the budget. From it, the
//! weights, the PyTorch peak of one profiling step (a forward pass over
//! `max_num_batched_tokens` tokens, then sampling one token for each of
//! `min(max_num_seqs, max_num_batched_tokens)` requests) and the memory the
//! step took outside PyTorch are taken, and since vLLM 0.21 the memory its
//! CUDA graphs were measured to take; the rest is the KV-cache pool, cut
//! into blocks of `block_size` tokens on every layer
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
    EngineSettings, Framework, Mode, engine_forward, engine_sampler, kv_bytes_per_token,
};

/// The memory plan of one GPU of a serving engine, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `gpu_memory_utilization` × the device's memory.
    pub budget: u128,
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
    /// The CUDA context and libraries' memory before the engine starts
    /// (`overhead_gb`), outside the budget.
    pub outside: u128,
    /// The KV cache of one token on this GPU, every layer.
    pub kv_bytes_per_token: u128,
    /// The settings as the engine runs them, defaults filled in.
    pub max_model_len: u64,
    pub max_num_seqs: u64,
    pub max_num_batched_tokens: u64,
    pub block_size: u64,
    /// Blocks in the pool (each `block_size` tokens on every layer).
    pub blocks: u128,
    /// Tokens the pool holds: `blocks × block_size`.
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
}

impl Plan {
    /// Whole requests of `max_model_len` tokens at once, as the pool allows
    /// and `max_num_seqs` caps them.
    pub fn concurrent_requests(&self) -> u128 {
        (self.max_concurrency_hundredths / 100).min(u128::from(self.max_num_seqs))
    }

    /// What the engine's process holds once serving, as nvidia-smi shows
    /// it: the budget and the memory outside it.
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
    config.form == Form::Transformer
        && input.mode == Mode::Inference
        && input.framework == Framework::Vllm
}

/// [`plan`] with `config`'s estimate already at hand (its weights).
pub fn plan_from(config: &Config, estimate: &memory::Estimate) -> Option<Plan> {
    let input = &config.transformer;
    let device = config.device.filter(|_| serves(config))?;
    let capability = match device {
        Device::Preset(preset) => preset.capability,
        Device::Custom { .. } => None,
    };
    let total = device.bytes();
    let settings = input.engine;
    let large = EngineSettings::large_defaults(total, capability);
    let batched = settings.max_num_batched_tokens(large);
    let seqs = settings.max_num_seqs(large);
    let requests = seqs.min(batched);
    let max_model_len = match settings.max_model_len {
        0 => input.seq.saturating_add(input.generated),
        given => given,
    };
    let block_size = settings.block_size;
    let budget = total * u128::from(settings.gpu_memory_utilization) / 100;
    let weights = estimate.weights;
    let activation_peak =
        engine_forward(input, batched).max(engine_sampler(input, batched, requests));
    // Measured by the engine, not derived from the model: published logs
    // give 0.3 to 1.6 GiB ("Estimated CUDA graph memory"), docs/model.md.
    let (non_torch, cuda_graphs) = (0, 0);
    let outside = config.overhead_bytes();
    let kv_bytes_per_token = kv_bytes_per_token(input);
    let pool = budget.saturating_sub(weights + activation_peak + non_torch + cuda_graphs);
    // kv_cache_utils.py `get_num_blocks`: available // page_size //
    // num_layers, a page being one layer's block.
    let block_bytes = (kv_bytes_per_token * u128::from(block_size)).max(1);
    let blocks = pool / block_bytes;
    let request_blocks = div_ceil(u128::from(max_model_len), u128::from(block_size)).max(1);
    let needed = request_blocks * block_bytes;
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
            estimate: blocks * u128::from(block_size),
        })
    } else {
        None
    };
    Some(Plan {
        budget,
        weights,
        activation_peak,
        non_torch,
        kv_cache_pool: pool,
        cuda_graphs,
        eager: settings.enforce_eager,
        outside,
        kv_bytes_per_token,
        max_model_len,
        max_num_seqs: seqs,
        max_num_batched_tokens: batched,
        block_size,
        blocks,
        pool_tokens: blocks * u128::from(block_size),
        max_concurrency_hundredths: blocks * 100 / request_blocks,
        max_seq: blocks * u128::from(block_size),
        refusal,
    })
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
/// (at most 2^27), and the plan's own `max_model_len`. The pool does not
/// depend on `max_model_len` (the profiling step is `max_num_batched_tokens`
/// long), so one plan gives every row.
pub fn sweep(plan: &Plan) -> Vec<LengthRow> {
    let block = u128::from(plan.block_size);
    let row = |len: u64| {
        let blocks = div_ceil(u128::from(len), block).max(1);
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
    while len <= 1 << 27 {
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
    if t.engine.gpu_memory_utilization < 95 {
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
