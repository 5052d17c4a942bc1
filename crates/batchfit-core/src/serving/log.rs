//! vLLM's start-up log, read: the lines in which the engine states its
//! memory plan, beside batchfit's [`Plan`] term by term.
//!
//! The lines, as vLLM's V1 engine prints them (vllm/v1/worker/gpu_model_runner.py,
//! gpu_worker.py, vllm/v1/core/kv_cache_utils.py):
//!
//! - "Model loading took 14.99 GiB memory and 3.1 seconds" (older: "Loading
//!   model weights took 14.9888 GB", the same GiB under another name:
//!   `model_memory_usage / float(2**30)`);
//! - "Estimated CUDA graph memory: 0.94 GiB total" (0.21 and later);
//! - "Available KV cache memory: 54.55 GiB";
//! - "GPU KV cache size: 436,048 tokens";
//! - "Maximum concurrency for 8,192 tokens per request: 53.23x";
//! - and which sampler it chose, "Using FlashInfer for top-p & top-k
//!   sampling" or "Falling back to the PyTorch-native implementation of top-p
//!   & top-k sampling" (vllm/v1/sample/ops/topk_topp_sampler.py): set beside
//!   the query's `flashinfer_sampler` ([`other_sampler`]).
//!
//! And SGLang's (python/sglang/srt/mem_cache/memory_pool.py, whose `GB` is
//! 2^30 bytes, and the scheduler's start-up line):
//!
//! - "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23
//!   GB" (a latent cache: "KV size: 17.16 GB"): the pool's tokens and, K and
//!   V together, its memory;
//! - "max_total_num_tokens=2086558, chunked_prefill_size=8192, …,
//!   max_running_requests=33, …": the pool's tokens and the requests at
//!   once it allows.
//!
//! Each number is kept with the half unit of its last printed digit: a
//! difference within it is no difference. A line that names one of these
//! but whose number cannot be read, and two different values for one term
//! (ranks of one engine print the same), are errors naming the line; other
//! lines are skipped: a log holds much else.
//!
//! ```
//! use batchfit_core::serving::log;
//!
//! let started = log::read("INFO [gpu_worker.py:466] Available KV cache memory: 5.76 GiB\n\
//!     INFO [kv_cache_utils.py:1733] GPU KV cache size: 47,168 tokens").unwrap();
//! assert_eq!(started.kv_cache_tokens.map(|t| t.value), Some(47_168));
//! let memory = started.kv_cache_memory.unwrap();
//! assert_eq!(memory.value, 6_184_752_906); // 5.76 × 2^30, rounded
//! assert_eq!(memory.half_unit, 5_368_709); // 0.005 GiB
//! ```

use super::Plan;
use crate::transformer::Framework;

/// The longest log read (a start-up log with a traceback is about 20 KB).
pub const MAX_BYTES: usize = 256 * 1024;

/// One number of the log: its value (bytes, tokens, or the concurrency in
/// hundredths), the half unit of its last printed digit, and its line (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Logged {
    pub value: u128,
    pub half_unit: u128,
    pub line: u32,
}

/// What a start-up log states of the plan; `None` where it does not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Started {
    pub weights: Option<Logged>,
    pub cuda_graphs: Option<Logged>,
    pub kv_cache_memory: Option<Logged>,
    pub kv_cache_tokens: Option<Logged>,
    /// The concurrency, in hundredths, and the request length it is for.
    pub max_concurrency: Option<(Logged, u128)>,
    /// SGLang's `max_running_requests`.
    pub max_running_requests: Option<Logged>,
    /// vLLM's sampler, as its start says (vllm/v1/sample/ops/topk_topp_sampler.py):
    /// FlashInfer's ("Using FlashInfer for top-p & top-k sampling") or
    /// PyTorch's ("Falling back to the PyTorch-native implementation of
    /// top-p & top-k sampling"), and the line. Not a term of the plan by
    /// itself: it says which `flashinfer_sampler` the log's start had.
    pub flashinfer_sampler: Option<(bool, u32)>,
}

/// Why a log could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// Longer than [`MAX_BYTES`].
    TooLong,
    /// None of the lines above.
    NothingFound,
    /// A line that names a term, with a number that cannot be read.
    Unreadable { line: u32 },
    /// A second, different value for a term first stated on `first`.
    TwoValues { line: u32, first: u32 },
}

/// The terms of a log, as [`compare`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    Weights,
    CudaGraphs,
    KvCacheMemory,
    KvCacheTokens,
    MaxConcurrency,
    MaxRunningRequests,
}

impl Term {
    /// The term's name in the CLI's JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Weights => "weights",
            Self::CudaGraphs => "cuda_graphs",
            Self::KvCacheMemory => "kv_cache_memory",
            Self::KvCacheTokens => "kv_cache_tokens",
            Self::MaxConcurrency => "max_concurrency",
            Self::MaxRunningRequests => "max_running_requests",
        }
    }
}

/// One term of the log beside the plan's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compared {
    pub term: Term,
    pub logged: Logged,
    pub planned: u128,
    /// Plan − log; 0 where the difference is within the log's half unit.
    pub error: i128,
}

const GIB: u128 = 1 << 30;

/// Reads the plan's lines of a vLLM start-up log.
pub fn read(text: &str) -> Result<Started, Error> {
    if text.len() > MAX_BYTES {
        return Err(Error::TooLong);
    }
    let mut started = Started::default();
    let mut found = false;
    for (i, line) in text.lines().enumerate() {
        let at = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let sampler = if line.contains("Using FlashInfer for top-p & top-k sampling") {
            Some(true)
        } else if line.contains("PyTorch-native implementation of top-p & top-k sampling") {
            Some(false)
        } else {
            None
        };
        if let Some(flashinfer) = sampler {
            started.flashinfer_sampler.get_or_insert((flashinfer, at));
            continue;
        }
        let unreadable = Error::Unreadable { line: at };
        let set = |slot: &mut Option<Logged>, value: Option<(u128, u128)>| {
            let (value, half_unit) = value.ok_or(unreadable)?;
            let logged = Logged {
                value,
                half_unit,
                line: at,
            };
            match slot {
                Some(first) if first.value != value => Err(Error::TwoValues {
                    line: at,
                    first: first.line,
                }),
                Some(_) => Ok(()),
                None => {
                    *slot = Some(logged);
                    Ok(())
                }
            }
        };
        if let Some(rest) = after(line, "Model loading took ") {
            set(&mut started.weights, gib(rest.split(" GiB").next()))?;
        } else if let Some(rest) = after(line, "Loading model weights took ") {
            set(&mut started.weights, gib(rest.split(" GB").next()))?;
        } else if let Some(rest) = after(line, "Estimated CUDA graph memory: ") {
            set(&mut started.cuda_graphs, gib(rest.split(" GiB").next()))?;
        } else if let Some(rest) = after(line, "Available KV cache memory: ") {
            set(&mut started.kv_cache_memory, gib(rest.split(" GiB").next()))?;
        } else if let Some(rest) = after(line, "GPU KV cache size: ") {
            let tokens = rest.split(" tokens").next().and_then(whole);
            set(&mut started.kv_cache_tokens, tokens.map(|t| (t, 0)))?;
        } else if let Some(rest) = after(line, "KV Cache is allocated. #tokens: ") {
            let (tokens, sizes) = rest.split_once(',').ok_or(unreadable)?;
            set(&mut started.kv_cache_tokens, whole(tokens).map(|t| (t, 0)))?;
            // "K size: x GB, V size: y GB", or one "KV size: z GB".
            let mut memory: Option<(u128, u128)> = Some((0, 0));
            let mut terms = 0;
            for part in sizes.split(',') {
                if let Some((_, size)) = part.split_once("size: ") {
                    let read = gib(size.split(" GB").next());
                    memory = memory.zip(read).map(|((v, h), (rv, rh))| (v + rv, h + rh));
                    terms += 1;
                }
            }
            set(&mut started.kv_cache_memory, memory.filter(|_| terms > 0))?;
        } else if let Some(rest) = after(line, "max_total_num_tokens=") {
            let tokens = rest.split(',').next().and_then(whole);
            set(&mut started.kv_cache_tokens, tokens.map(|t| (t, 0)))?;
            if let Some(rest) = after(line, "max_running_requests=") {
                let running = rest.split(',').next().and_then(whole);
                set(&mut started.max_running_requests, running.map(|r| (r, 0)))?;
            }
        } else if let Some(rest) = after(line, "Maximum concurrency for ") {
            let (tokens, times) = rest.split_once(" tokens per request: ").ok_or(unreadable)?;
            let tokens = whole(tokens).ok_or(unreadable)?;
            // Printed rounded ("%.2f"), planned rounded down: one hundredth apart.
            let (times, _) = times
                .trim_end()
                .strip_suffix('x')
                .and_then(|t| decimal(t, 100))
                .ok_or(unreadable)?;
            match started.max_concurrency {
                Some((first, first_tokens)) if first.value != times || first_tokens != tokens => {
                    return Err(Error::TwoValues {
                        line: at,
                        first: first.line,
                    });
                }
                Some(_) => {}
                None => {
                    let logged = Logged {
                        value: times,
                        half_unit: 1,
                        line: at,
                    };
                    started.max_concurrency = Some((logged, tokens));
                }
            }
        } else {
            continue;
        }
        found = true;
    }
    if found {
        Ok(started)
    } else {
        Err(Error::NothingFound)
    }
}

/// The text after `marker` in `line`.
fn after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.split_once(marker).map(|(_, rest)| rest)
}

/// "54.55" GiB in bytes, rounded, with the half unit of its last digit.
fn gib(text: Option<&str>) -> Option<(u128, u128)> {
    decimal(text?, GIB)
}

/// `digits[.digits]` times `scale`, rounded to a whole number, with half the
/// scale of its last digit.
fn decimal(text: &str, scale: u128) -> Option<(u128, u128)> {
    let text = text.trim();
    let (whole_part, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole_part.is_empty()
        || !whole_part.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || whole_part.len() + fraction.len() > 24
    {
        return None;
    }
    let denominator = 10u128.checked_pow(u32::try_from(fraction.len()).ok()?)?;
    let digits: u128 = format!("{whole_part}{fraction}").parse().ok()?;
    let value = digits.checked_mul(scale)?.checked_add(denominator / 2)? / denominator;
    Some((value, scale / denominator / 2))
}

/// "436,048" or "436048".
fn whole(text: &str) -> Option<u128> {
    let text = text.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit() || b == b',') {
        return None;
    }
    text.replace(',', "").parse().ok()
}

/// Each term the log states beside the plan's: the weights, the CUDA graphs,
/// the pool's memory and tokens, and the concurrency where the log's request
/// length is the plan's `max_model_len`.
pub fn compare(plan: &Plan, started: &Started) -> Vec<Compared> {
    let concurrency = started
        .max_concurrency
        .filter(|&(_, tokens)| tokens == u128::from(plan.max_model_len))
        .map(|(logged, _)| logged);
    [
        (Term::Weights, started.weights, plan.weights),
        (Term::CudaGraphs, started.cuda_graphs, plan.cuda_graphs),
        (
            Term::KvCacheMemory,
            started.kv_cache_memory,
            plan.kv_cache_pool,
        ),
        (
            Term::KvCacheTokens,
            started.kv_cache_tokens,
            plan.pool_tokens,
        ),
        (
            Term::MaxConcurrency,
            concurrency,
            plan.max_concurrency_hundredths,
        ),
        (
            Term::MaxRunningRequests,
            started.max_running_requests,
            u128::from(plan.max_num_seqs),
        ),
    ]
    .into_iter()
    .filter_map(|(term, logged, planned)| {
        let logged = logged?;
        let error = signed(planned) - signed(logged.value);
        let error = if error.unsigned_abs() <= logged.half_unit {
            0
        } else {
            error
        };
        Some(Compared {
            term,
            logged,
            planned,
            error,
        })
    })
    .collect()
}

/// The log's sampler where it is not the plan's (`flashinfer_sampler`): the
/// log's (FlashInfer's when true) and its line. vLLM's plans only; the two
/// samplers' profiling peaks differ by 24 bytes per request and vocabulary
/// entry (docs/model.md §3.12).
pub fn other_sampler(plan: &Plan, started: &Started) -> Option<(bool, u32)> {
    started.flashinfer_sampler.filter(|&(flashinfer, _)| {
        plan.engine == Framework::Vllm && flashinfer != plan.flashinfer_sampler
    })
}

fn signed(value: u128) -> i128 {
    i128::try_from(value).unwrap_or(i128::MAX)
}
