//! A serving engine's memory plan (`batchfit_core::serving`) in the JSON
//! report and in the text.

use crate::report::{line, size};
use batchfit_core::fields::group_thousands;
use batchfit_core::serving::{Plan, Refusal};
use batchfit_core::units::Units;
use serde::Serialize;

/// `serving::Plan` in the JSON report: bytes per GPU, tokens and requests.
/// `weights + activation_peak + non_torch + cuda_graphs + kv_cache_pool =
/// budget` exactly where the pool is not empty.
#[derive(Serialize)]
pub struct Row {
    engine: &'static str,
    /// `gpu_memory_utilization` × the device's memory.
    budget: u128,
    weights: u128,
    activation_peak: u128,
    /// Not estimated: 0.
    non_torch: u128,
    /// Measured by vLLM (since 0.21 taken from the budget); not estimated: 0.
    cuda_graphs: u128,
    /// `enforce_eager`: no CUDA graphs, none missing from the plan.
    enforce_eager: bool,
    kv_cache_pool: u128,
    /// The CUDA context and libraries (`overhead_gb`), outside the budget.
    outside_budget: u128,
    /// What nvidia-smi shows once the engine serves: budget + outside.
    process: u128,
    kv_bytes_per_token: u128,
    max_model_len: u64,
    max_num_seqs: u64,
    max_num_batched_tokens: u64,
    block_size: u64,
    blocks: u128,
    /// "GPU KV cache size: N tokens".
    kv_cache_tokens: u128,
    /// "Maximum concurrency for max_model_len tokens per request: X.XXx".
    max_concurrency: f64,
    /// Whole requests of `max_model_len` tokens at once, at most `max_num_seqs`.
    concurrent_requests: u128,
    /// The longest single request the pool holds, in tokens.
    max_seq: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<RefusalRow>,
}

#[derive(Serialize)]
struct RefusalRow {
    reason: &'static str,
    /// The engine's own words.
    message: String,
}

impl From<&Plan> for Row {
    fn from(plan: &Plan) -> Self {
        Self {
            engine: "vllm",
            budget: plan.budget,
            weights: plan.weights,
            activation_peak: plan.activation_peak,
            non_torch: plan.non_torch,
            cuda_graphs: plan.cuda_graphs,
            enforce_eager: plan.eager,
            kv_cache_pool: plan.kv_cache_pool,
            outside_budget: plan.outside,
            process: plan.process(),
            kv_bytes_per_token: plan.kv_bytes_per_token,
            max_model_len: plan.max_model_len,
            max_num_seqs: plan.max_num_seqs,
            max_num_batched_tokens: plan.max_num_batched_tokens,
            block_size: plan.block_size,
            blocks: plan.blocks,
            kv_cache_tokens: plan.pool_tokens,
            max_concurrency: hundredths(plan.max_concurrency_hundredths),
            concurrent_requests: plan.concurrent_requests(),
            max_seq: plan.max_seq,
            refusal: plan.refusal.map(|refusal| RefusalRow {
                reason: match refusal {
                    Refusal::Startup { .. } => "startup_free_memory",
                    Refusal::NoCacheMemory => "no_cache_memory",
                    Refusal::MaxModelLen { .. } => "max_model_len",
                },
                message: refusal_text(plan, refusal),
            }),
        }
    }
}

/// A count in hundredths as a number (exact for every count the plan
/// reaches: a whole number of hundredths below 2^53).
fn hundredths(value: u128) -> f64 {
    // Below 2^53 every integer is exact in an f64.
    let exact = u64::try_from(value).unwrap_or(u64::MAX).min(1 << 53);
    exact as f64 / 100.0
}

/// A count with thousands separators.
fn group(n: u128) -> String {
    group_thousands(u64::try_from(n).unwrap_or(u64::MAX))
}

/// GiB with two decimals, as vLLM writes them.
fn gib(bytes: u128) -> String {
    format!("{:.2}", bytes as f64 / f64::from(1u32 << 30))
}

/// The engine's own message for a refusal (vllm/v1/worker/gpu_worker.py,
/// vllm/v1/core/kv_cache_utils.py).
fn refusal_text(plan: &Plan, refusal: Refusal) -> String {
    match refusal {
        Refusal::Startup { free, total } => format!(
            "Free memory on device ({}/{} GiB) on startup is less than desired GPU memory utilization ({}, {} GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
            gib(free),
            gib(total),
            hundredths(plan.budget * 100 / total.max(1)),
            gib(plan.budget),
        ),
        Refusal::NoCacheMemory => "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.".to_owned(),
        Refusal::MaxModelLen { needed, estimate } => format!(
            "To serve at least one request with the models's max seq len ({}), ({} GiB KV cache is needed, which is larger than the available KV cache memory ({} GiB). Based on the available memory, the estimated maximum model length is {}. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
            plan.max_model_len,
            gib(needed),
            gib(plan.kv_cache_pool),
            estimate,
        ),
    }
}

/// The plan as text: the budget's terms, the pool, what it serves.
pub fn text(out: &mut String, plan: &Plan, units: Units) {
    out.push_str("\nvLLM's memory plan, per GPU:\n");
    line(out, "Weights", plan.weights, units);
    line(
        out,
        "Profiling peak (activations)",
        plan.activation_peak,
        units,
    );
    line(out, "Non-torch (not estimated)", plan.non_torch, units);
    line(
        out,
        if plan.eager {
            "CUDA graphs (enforce_eager)"
        } else {
            "CUDA graphs (not estimated)"
        },
        plan.cuda_graphs,
        units,
    );
    line(out, "KV-cache pool", plan.kv_cache_pool, units);
    line(out, "= Budget (utilization)", plan.budget, units);
    line(out, "+ CUDA context and libraries", plan.outside, units);
    line(out, "= nvidia-smi once serving", plan.process(), units);
    if !plan.eager {
        out.push_str(
            "    vLLM 0.21 and later measure their CUDA graphs at start and take them from the budget (0.3 GiB to several GiB in published logs): the pool is that much smaller.\n",
        );
    }
    out.push_str(&format!(
        "KV cache: {} per token, {} blocks of {} tokens: {} tokens.\n",
        size(plan.kv_bytes_per_token, units),
        group(plan.blocks),
        plan.block_size,
        group(plan.pool_tokens),
    ));
    match plan.refusal {
        Some(refusal) => out.push_str(&format!(
            "vLLM would not start: {}\n",
            refusal_text(plan, refusal)
        )),
        None => out.push_str(&format!(
            "Serves {} requests of {} tokens at once (maximum concurrency {:.2}x, at most max_num_seqs = {}); the longest single request: {} tokens.\n",
            group(plan.concurrent_requests()),
            group_thousands(plan.max_model_len),
            hundredths(plan.max_concurrency_hundredths),
            plan.max_num_seqs,
            group(plan.max_seq),
        )),
    }
}
