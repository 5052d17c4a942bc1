//! A serving engine's memory plan (`batchfit_core::serving`) in the JSON
//! report and in the text.

use crate::format::{line, signed_size, size};
use batchfit_core::fields::group_thousands;
use batchfit_core::query::{self, Config};
use batchfit_core::serving::{self, Plan, Refusal, log};
use batchfit_core::transformer::Framework;
use batchfit_core::units::Units;
use serde::Serialize;

/// `serving::Plan` in the JSON report: bytes per GPU, tokens and requests.
/// `weights + activation_peak + non_torch + cuda_graphs + kv_cache_pool =
/// budget` exactly where the pool is not empty.
#[derive(Serialize)]
pub struct Row {
    /// `vllm` or `sglang`.
    engine: &'static str,
    /// vLLM's `gpu_memory_utilization`, SGLang's `mem_fraction_static`, as
    /// the engine runs it (given, or its default).
    memory_fraction: f64,
    /// vLLM: `gpu_memory_utilization` × the device's memory as CUDA reports
    /// it. SGLang:
    /// `mem_fraction_static` × the memory free before the weights load.
    budget: u128,
    /// SGLang: what the static fraction leaves for the activations and the
    /// CUDA graphs, outside the budget (not estimated); vLLM: 0.
    reserve: u128,
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
    /// A hybrid model's linear layers' state of one request (0 otherwise).
    linear_state_per_request: u128,
    max_model_len: u64,
    max_num_seqs: u64,
    max_num_batched_tokens: u64,
    block_size: u64,
    blocks: u128,
    /// How the blocks are shared among the layers (vLLM's hybrid allocator).
    kv_cache_groups: GroupsRow,
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
    /// The plan over request lengths (`serving::sweep`).
    sweep: Vec<LengthRow>,
    /// What would make it start or serve more requests (`serving::what_ifs`).
    what_ifs: Vec<WhatIfRow>,
}

/// vLLM's KV-cache groups (`serving::KvGroups`): a block is one page of
/// each layer of a group.
#[derive(Serialize)]
struct GroupsRow {
    layers_per_group: u64,
    full_attention: u64,
    sliding_window: u64,
    /// A hybrid model's groups of linear layers, one block a request.
    linear: u64,
    window: u64,
}

/// One change and the plan it gives.
#[derive(Serialize)]
struct WhatIfRow {
    change: &'static str,
    /// As vLLM's command line spells it.
    flag: String,
    query: String,
    concurrent_requests: u128,
    max_concurrency: f64,
    max_seq: u128,
}

/// One request length of the sweep.
#[derive(Serialize)]
struct LengthRow {
    max_model_len: u64,
    max_concurrency: f64,
    concurrent_requests: u128,
    /// Whether one request of this length fits the pool (vLLM starts).
    fits: bool,
}

#[derive(Serialize)]
struct RefusalRow {
    reason: &'static str,
    /// The engine's own words.
    message: String,
}

impl Row {
    pub fn of(config: &Config, plan: &Plan) -> Self {
        Self {
            engine: plan.engine.name(),
            memory_fraction: plan.fraction_thousandths as f64 / 1000.0,
            budget: plan.budget,
            reserve: plan.reserve,
            weights: plan.weights,
            activation_peak: plan.activation_peak,
            non_torch: plan.non_torch,
            cuda_graphs: plan.cuda_graphs,
            enforce_eager: plan.eager,
            kv_cache_pool: plan.kv_cache_pool,
            outside_budget: plan.outside,
            process: plan.process(),
            kv_bytes_per_token: plan.kv_bytes_per_token,
            linear_state_per_request: plan.linear_state_per_request,
            max_model_len: plan.max_model_len,
            max_num_seqs: plan.max_num_seqs,
            max_num_batched_tokens: plan.max_num_batched_tokens,
            block_size: plan.block_size,
            blocks: plan.blocks,
            kv_cache_groups: GroupsRow {
                layers_per_group: plan.groups.layers,
                full_attention: plan.groups.full,
                sliding_window: plan.groups.windowed,
                linear: plan.groups.linear,
                window: plan.groups.window,
            },
            kv_cache_tokens: plan.pool_tokens,
            max_concurrency: hundredths(plan.max_concurrency_hundredths),
            concurrent_requests: plan.concurrent_requests(),
            max_seq: plan.max_seq,
            refusal: plan.refusal.map(|refusal| RefusalRow {
                reason: match refusal {
                    Refusal::Startup { .. } => "startup_free_memory",
                    Refusal::NoCacheMemory => "no_cache_memory",
                    Refusal::MaxModelLen { .. } => "max_model_len",
                    Refusal::NotEnoughMemory => "not_enough_memory",
                },
                message: refusal_text(plan, refusal),
            }),
            sweep: serving::sweep(plan)
                .into_iter()
                .map(|row| LengthRow {
                    max_model_len: row.max_model_len,
                    max_concurrency: hundredths(row.concurrency_hundredths),
                    concurrent_requests: row.requests,
                    fits: row.fits,
                })
                .collect(),
            what_ifs: serving::what_ifs(config)
                .into_iter()
                .map(|w| WhatIfRow {
                    change: w.change.name(),
                    flag: flag(plan, w.change),
                    query: query::to_query(&w.config),
                    concurrent_requests: w.plan.concurrent_requests(),
                    max_concurrency: hundredths(w.plan.max_concurrency_hundredths),
                    max_seq: w.plan.max_seq,
                })
                .collect(),
        }
    }
}

/// A change as the engine's command line spells it.
fn flag(plan: &Plan, change: serving::Change) -> String {
    let sglang = plan.engine == Framework::Sglang;
    match change {
        serving::Change::KvFp8 if sglang => "--kv-cache-dtype fp8_e4m3".to_owned(),
        serving::Change::KvFp8 => "--kv-cache-dtype fp8".to_owned(),
        serving::Change::Int4 => "4-bit weights (an AWQ or GPTQ checkpoint)".to_owned(),
        serving::Change::Tp(tp) if sglang => format!("--tp-size {tp}"),
        serving::Change::Tp(tp) => format!("--tensor-parallel-size {tp}"),
        serving::Change::Utilization95 => "--gpu-memory-utilization 0.95".to_owned(),
        serving::Change::MaxModelLen(len) => format!("--max-model-len {len}"),
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
        Refusal::NotEnoughMemory => format!(
            "Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static={}",
            plan.fraction_thousandths as f64 / 1000.0,
        ),
    }
}

/// The plan as text: the budget's terms, the pool, what it serves.
pub fn text(out: &mut String, plan: &Plan, units: Units) {
    out.push_str(&format!(
        "\n{}'s memory plan, per GPU:\n",
        plan.engine_name()
    ));
    if plan.engine == Framework::Sglang {
        sglang_terms(out, plan, units);
    } else {
        vllm_terms(out, plan, units);
    }
    let groups = plan.groups.count();
    let pool = if plan.block_size == 1 {
        format!("{} tokens", group(plan.pool_tokens))
    } else if groups > 1 {
        let held = if plan.groups.linear > 0 {
            "linear layers hold one block of state a request"
        } else {
            "sliding-window layers hold their window only"
        };
        format!(
            "{} blocks of {} tokens shared by {groups} groups of {} layers \
             ({held}): vLLM counts {} tokens",
            group(plan.blocks),
            plan.block_size,
            plan.groups.layers,
            group(plan.pool_tokens),
        )
    } else {
        format!(
            "{} blocks of {} tokens: {} tokens",
            group(plan.blocks),
            plan.block_size,
            group(plan.pool_tokens),
        )
    };
    out.push_str(&format!(
        "KV cache: {} per token, {pool}.\n",
        size(plan.kv_bytes_per_token, units),
    ));
    if plan.linear_state_per_request > 0 {
        out.push_str(&format!(
            "Linear layers' state: {} per request, whatever its length.\n",
            size(plan.linear_state_per_request, units),
        ));
    }
    rest(out, plan);
}

/// SGLang's static memory and what it leaves outside.
fn sglang_terms(out: &mut String, plan: &Plan, units: Units) {
    line(out, "Weights", plan.weights, units);
    line(out, "KV-cache pool", plan.kv_cache_pool, units);
    line(
        out,
        &format!(
            "= Static memory (mem_fraction_static {})",
            plan.fraction_thousandths as f64 / 1000.0
        ),
        plan.budget,
        units,
    );
    line(
        out,
        "+ Left for activations and CUDA graphs",
        plan.reserve,
        units,
    );
    line(out, "+ CUDA context and libraries", plan.outside, units);
    out.push_str(&format!(
        "    SGLang's max_running_requests: {}; chunked_prefill_size {} tokens.\n",
        plan.max_num_seqs, plan.max_num_batched_tokens
    ));
}

/// vLLM's budget, term by term.
fn vllm_terms(out: &mut String, plan: &Plan, units: Units) {
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
}

/// What the plan serves, or why the engine would not start, and the plan by
/// request length.
fn rest(out: &mut String, plan: &Plan) {
    match plan.refusal {
        Some(refusal) => out.push_str(&format!(
            "{} would not start: {}\n",
            plan.engine_name(),
            refusal_text(plan, refusal)
        )),
        None => out.push_str(&format!(
            "Serves {} {} of {} tokens at once (maximum concurrency {:.2}x, at most {} = {}); the longest single request: {} tokens.\n",
            group(plan.concurrent_requests()),
            if plan.concurrent_requests() == 1 {
                "request"
            } else {
                "requests"
            },
            group_thousands(plan.max_model_len),
            hundredths(plan.max_concurrency_hundredths),
            if plan.engine == Framework::Sglang {
                "max_running_requests"
            } else {
                "max_num_seqs"
            },
            plan.max_num_seqs,
            group(plan.max_seq),
        )),
    }
    out.push_str("\n  max_model_len   requests at once   maximum concurrency\n");
    for row in serving::sweep(plan) {
        let requests = if row.fits {
            group(row.requests)
        } else if plan.engine == Framework::Sglang {
            "does not fit".to_owned()
        } else {
            "does not start".to_owned()
        };
        out.push_str(&format!(
            "  {:>13}   {:>16}   {:>18.2}x{}\n",
            group_thousands(row.max_model_len),
            requests,
            hundredths(row.concurrency_hundredths),
            if row.max_model_len == plan.max_model_len {
                "   <- max_model_len"
            } else {
                ""
            },
        ));
    }
}

/// What would make the setup start or serve more, one change each.
pub fn what_ifs_text(out: &mut String, config: &Config) {
    let found = serving::what_ifs(config);
    if found.is_empty() {
        return;
    }
    out.push_str("\nWhat would serve more (one change each):\n");
    for w in found {
        out.push_str(&format!(
            "  {:<44} {} {} of {} tokens at once; the longest request {} tokens\n",
            flag(&w.plan, w.change),
            group(w.plan.concurrent_requests()),
            if w.plan.concurrent_requests() == 1 {
                "request"
            } else {
                "requests"
            },
            group_thousands(w.plan.max_model_len),
            group(w.plan.max_seq),
        ));
    }
}

/// One term of a start-up log beside the plan, in the JSON report.
#[derive(Serialize)]
struct LogRow {
    term: &'static str,
    line: u32,
    /// Bytes, tokens, or the concurrency in hundredths.
    logged: u128,
    planned: u128,
    /// Plan − log; 0 within the log's last printed digit.
    error: i128,
    /// `error` over the logged value, in percent to a tenth.
    error_percent: Option<f64>,
}

#[derive(Serialize)]
struct LogReport {
    query: String,
    terms: Vec<LogRow>,
    /// Where the log's vLLM sampled otherwise than the plan assumes.
    #[serde(skip_serializing_if = "Option::is_none")]
    other_sampler: Option<SamplerRow>,
}

/// The log's sampler, where the query's `flashinfer_sampler` says otherwise.
#[derive(Serialize)]
struct SamplerRow {
    /// `flashinfer` or `pytorch`.
    logged: &'static str,
    line: u32,
    /// The query that states it.
    query: String,
}

/// A vLLM start-up log (`batchfit measured` on a `framework=vllm` query)
/// beside the plan, term by term; the log's problem named with `file`.
pub fn log_report(
    config: &Config,
    plan: &Plan,
    file: &str,
    text: &str,
    json: bool,
) -> Result<String, String> {
    let started = log::read(text).map_err(|e| log_problem(file, e))?;
    let compared = log::compare(plan, &started);
    let other_sampler = log::other_sampler(plan, &started).map(|(flashinfer, line)| {
        let mut stated = *config;
        stated.transformer.engine.flashinfer_sampler = flashinfer;
        SamplerRow {
            logged: if flashinfer { "flashinfer" } else { "pytorch" },
            line,
            query: query::to_query(&stated),
        }
    });
    let percent = |c: &log::Compared| {
        (c.logged.value > 0).then(|| {
            let tenths = c.error * 1000 / i128::try_from(c.logged.value).unwrap_or(i128::MAX);
            tenths as f64 / 10.0
        })
    };
    if json {
        let report = LogReport {
            query: query::to_query(config),
            terms: compared
                .iter()
                .map(|c| LogRow {
                    term: c.term.name(),
                    line: c.logged.line,
                    logged: c.logged.value,
                    planned: c.planned,
                    error: c.error,
                    error_percent: percent(c),
                })
                .collect(),
            other_sampler,
        };
        return Ok(serde_json::to_string_pretty(&report).expect("strings and integers"));
    }
    let units = config.units;
    let mut out = format!(
        "query: {}\n{}'s start-up log beside batchfit's plan (plan − log; 0 within the log's last digit):\n",
        query::to_query(config),
        plan.engine_name(),
    );
    if compared.is_empty() {
        out.push_str(
            "  nothing to compare: the log's concurrency is for another max_model_len than the query's.\n",
        );
    }
    for c in &compared {
        let (logged, planned, error) = match c.term {
            log::Term::KvCacheTokens => (
                format!("{} tokens", group(c.logged.value)),
                format!("{} tokens", group(c.planned)),
                format!(
                    "{}{} tokens",
                    if c.error < 0 { "−" } else { "+" },
                    group(c.error.unsigned_abs())
                ),
            ),
            log::Term::MaxRunningRequests => (
                group(c.logged.value),
                group(c.planned),
                format!(
                    "{}{}",
                    if c.error < 0 { "−" } else { "+" },
                    group(c.error.unsigned_abs())
                ),
            ),
            log::Term::MaxConcurrency => (
                format!("{:.2}x", hundredths(c.logged.value)),
                format!("{:.2}x", hundredths(c.planned)),
                format!("{:+.2}x", c.error as f64 / 100.0),
            ),
            log::Term::Weights | log::Term::CudaGraphs | log::Term::KvCacheMemory => (
                size(c.logged.value, units),
                size(c.planned, units),
                signed_size(c.error, units),
            ),
        };
        let label = match c.term {
            log::Term::Weights => "weights",
            log::Term::CudaGraphs => "CUDA graphs",
            log::Term::KvCacheMemory => "KV-cache memory",
            log::Term::KvCacheTokens => "KV-cache size",
            log::Term::MaxConcurrency => "maximum concurrency",
            log::Term::MaxRunningRequests => "max_running_requests",
        };
        let percent = percent(c).map_or(String::new(), |p| format!(" ({p:+.1} %)"));
        out.push_str(&format!(
            "  {label:<20} log {logged} (line {}), plan {planned}: {error}{percent}\n",
            c.logged.line
        ));
    }
    if let Some(sampler) = other_sampler {
        let (logged, assumed) = if sampler.logged == "flashinfer" {
            ("FlashInfer's sampler", "PyTorch's sort")
        } else {
            ("PyTorch's sort", "FlashInfer's sampler")
        };
        out.push_str(&format!(
            "  The log's vLLM sampled with {logged} (line {}); the plan assumed {assumed}, \
             24 bytes per request and vocabulary entry apart in the profiling peak. \
             The log's setting: {}\n",
            sampler.line, sampler.query
        ));
    }
    out.pop();
    Ok(out)
}

/// A start-up log's problem, in one line naming the file.
fn log_problem(file: &str, error: log::Error) -> String {
    match error {
        log::Error::TooLong => format!("{file}: longer than {} bytes", log::MAX_BYTES),
        log::Error::NothingFound => format!(
            "{file}: no line of vLLM's start-up memory plan (\"Model loading took\", \"Available KV cache memory\", \"GPU KV cache size\", \"Maximum concurrency for\") or SGLang's (\"KV Cache is allocated\", \"max_total_num_tokens=\")"
        ),
        log::Error::Unreadable { line } => {
            format!("{file}:{line}: a line of the memory plan whose number cannot be read")
        }
        log::Error::TwoValues { line, first } => {
            format!("{file}:{line}: a second, different value for what line {first} states")
        }
    }
}
