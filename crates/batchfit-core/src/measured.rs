//! Checking an estimate against a run: the text a run printed, read into the
//! estimate's three readings, and the difference with the terms of
//! docs/model.md §4 and §6 that could explain it.
//!
//! [`parse`] reads what people paste: numbers printed from
//! `torch.cuda.max_memory_allocated()`, `max_memory_reserved()`,
//! `memory_allocated()`, `memory_reserved()` (raw bytes, or with a unit:
//! `12.3 GB`, `11.46 GiB`, `1.2e10`), labelled or not; a
//! `torch.cuda.memory_summary()` table (the Peak Usage of "Allocated memory"
//! and "GPU reserved memory"); `nvidia-smi`'s default table (the
//! `24567MiB /  81559MiB` cell) and `nvidia-smi --query-gpu=memory.used
//! --format=csv` with or without `noheader` and `nounits`. It is strict: a line
//! it cannot read, an unknown unit or label, or two different values for one
//! reading is an [`Error`] naming the line, never a guess. [`compare`] puts one
//! reading beside the estimate's.
//!
//! ```
//! use batchfit_core::measured::{self, Reading};
//! use batchfit_core::{memory, query};
//!
//! let read = measured::parse("max_memory_allocated: 19.5 GiB", None).unwrap();
//! assert_eq!(read[0].reading, Reading::Allocated);
//! assert_eq!(read[0].bytes, 20_937_965_568);
//! let config = query::parse("form=transformer&model=llama-3.2-1b&batch=4&seq=2048").config;
//! let c = measured::compare(&config, &memory::estimate(&config), &read[0]);
//! assert_eq!(c.error, c.predicted as i128 - 20_937_965_568);
//! ```

use crate::choice::choice;
use crate::memory::{self, Estimate};
use crate::query::{self, Config};
use crate::transformer::{Attention, FusedProj, Kind, Mode, Outputs, Recompute};

/// The longest text read: a memory summary is about 3 KB, an nvidia-smi
/// table of eight GPUs about 4 KB.
pub const MAX_BYTES: usize = 64 * 1024;
/// The most lines read.
pub const MAX_LINES: usize = 2_000;
/// The largest reading accepted, in bytes (16 EiB); above it a number is an error.
pub const MAX_READING: u128 = u64::MAX as u128;

choice! {
    /// The estimate's three readings ([`Estimate`]'s `peak_allocated`,
    /// `peak_reserved`, `nvidia_smi`; docs/model.md §4).
    pub enum Reading {
        /// `torch.cuda.max_memory_allocated()` / `memory_allocated()`.
        Allocated = "allocated",
        /// `torch.cuda.max_memory_reserved()` / `memory_reserved()`.
        Reserved = "reserved",
        /// nvidia-smi's memory used.
        NvidiaSmi = "nvidia_smi",
    }
    default Allocated
}

impl Reading {
    /// The estimate's value of this reading.
    pub fn predicted(self, e: &Estimate) -> u128 {
        match self {
            Self::Allocated => e.peak_allocated,
            Self::Reserved => e.peak_reserved,
            Self::NvidiaSmi => e.nvidia_smi,
        }
    }

    /// Each reading contains the one before it (reserved = allocated + the
    /// allocator's cache; nvidia-smi = reserved + the context).
    const fn level(self) -> u8 {
        match self {
            Self::Allocated => 0,
            Self::Reserved => 1,
            Self::NvidiaSmi => 2,
        }
    }
}

choice! {
    /// The forms [`parse`] reads, for messages that list them.
    pub enum Form {
        /// A number of bytes, or a number with a unit (`12.3 GB`, `11.46 GiB`).
        Number = "number",
        /// A label and a number: `max_memory_allocated: 123456`, `Peak reserved: 20.1 GiB`.
        Labelled = "labelled",
        /// `torch.cuda.memory_summary()`.
        MemorySummary = "memory_summary",
        /// nvidia-smi's default table.
        NvidiaSmiTable = "nvidia_smi_table",
        /// `nvidia-smi --query-gpu=memory.used --format=csv`.
        NvidiaSmiCsv = "nvidia_smi_csv",
    }
    default Number
}

/// The units a number may carry, as they are written.
pub const UNITS: &[&str] = &[
    "B", "bytes", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
];

/// The labels a number may carry (any letter case, `torch.cuda.` and `()`
/// optional, `_` or spaces between words).
pub const LABELS: &[&str] = &[
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "peak allocated",
    "peak reserved",
    "memory.used",
];

/// One value read from the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    pub reading: Reading,
    /// The run's peak (`max_memory_*`, memory_summary's Peak Usage), rather
    /// than the value at one moment (`memory_allocated()`, nvidia-smi), which
    /// is at most the peak.
    pub peak: bool,
    pub bytes: u128,
    /// The line it was read from, from 1.
    pub line: u32,
}

/// What could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The text is longer than [`MAX_BYTES`].
    TooLong { max_bytes: usize },
    /// The text has more lines than [`MAX_LINES`].
    TooManyLines { max_lines: usize },
    /// No line holds a reading.
    Empty { forms: &'static [Form] },
    /// A line in none of the forms.
    Unreadable { forms: &'static [Form] },
    /// A number with a unit not in `allowed` (`12 G`: decimal or binary?).
    UnknownUnit { allowed: &'static [&'static str] },
    /// A number whose label names none of the readings, or more than one.
    UnknownLabel { allowed: &'static [&'static str] },
    /// A number without a label, and no reading chosen for such numbers.
    Unlabelled { allowed: &'static [&'static str] },
    /// A fraction without a unit: bytes are whole (`11.46` is GiB or GB?).
    NotWholeBytes,
    /// Above [`MAX_READING`].
    TooLarge { max: u128 },
    /// A second, different value of a reading already read on `first_line`.
    Ambiguous {
        reading: Reading,
        peak: bool,
        first_line: u32,
    },
}

/// A problem and where: `line` from 1, `None` for the text as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    pub line: Option<u32>,
    pub problem: Problem,
}

/// A label's meaning, and the unit a bare number after it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Label {
    reading: Reading,
    peak: bool,
    unit: Option<u128>,
}

/// Reads every reading in `text`. A number without a label is the
/// `unlabelled` reading (in MiB for nvidia-smi, which prints nothing else;
/// in bytes otherwise), or an error when none is given. The same value read
/// twice counts once; two different values of one reading are an error.
pub fn parse(text: &str, unlabelled: Option<Reading>) -> Result<Vec<Measured>, Error> {
    let whole = |problem| Error {
        line: None,
        problem,
    };
    if text.len() > MAX_BYTES {
        return Err(whole(Problem::TooLong {
            max_bytes: MAX_BYTES,
        }));
    }
    let mut out: Vec<Measured> = Vec::new();
    // A label on a line of its own (a REPL's `>>> torch.cuda.max_memory_allocated()`,
    // a CSV header) names the bare numbers on the lines right after it.
    let mut pending: Option<Label> = None;
    for (index, raw) in text.lines().enumerate() {
        if index >= MAX_LINES {
            return Err(whole(Problem::TooManyLines {
                max_lines: MAX_LINES,
            }));
        }
        let line = index as u32 + 1;
        let at = |problem| Error {
            line: Some(line),
            problem,
        };
        let (label, bytes) = match read_line(raw.trim(), pending, unlabelled).map_err(at)? {
            Line::Label(label) => {
                pending = Some(label);
                continue;
            }
            Line::Nothing => {
                pending = None;
                continue;
            }
            Line::Labelled(label, bytes) => {
                pending = None;
                (label, bytes)
            }
            Line::Bare(label, bytes) => (label, bytes),
        };
        let same = |m: &&Measured| m.reading == label.reading && m.peak == label.peak;
        match out.iter().find(same) {
            None => out.push(Measured {
                reading: label.reading,
                peak: label.peak,
                bytes,
                line,
            }),
            Some(first) if first.bytes == bytes => {}
            Some(first) => {
                return Err(at(Problem::Ambiguous {
                    reading: label.reading,
                    peak: label.peak,
                    first_line: first.line,
                }));
            }
        }
    }
    if out.is_empty() {
        return Err(whole(Problem::Empty { forms: Form::ALL }));
    }
    Ok(out)
}

/// What one line says.
enum Line {
    /// A label alone: it names the bare numbers that follow.
    Label(Label),
    /// A labelled number (or a table's cell), in bytes.
    Labelled(Label, u128),
    /// A number without a label, read as `pending` or the `unlabelled` reading.
    Bare(Label, u128),
    /// A blank line, a table's frame or furniture, nvidia-smi's time stamp.
    Nothing,
}

fn read_line(
    text: &str,
    pending: Option<Label>,
    unlabelled: Option<Reading>,
) -> Result<Line, Problem> {
    if text.is_empty() || is_border(text) || is_timestamp(text) {
        return Ok(Line::Nothing);
    }
    if let Some(row) = text.strip_prefix('|') {
        return Ok(table_row(row)?.map_or(Line::Nothing, |(l, b)| Line::Labelled(l, b)));
    }
    let (label, value) = split(text.strip_prefix(">>>").unwrap_or(text).trim());
    let Some(value) = value else {
        // No number: a label for the next lines, or not a reading at all.
        return read_label(label).map(Line::Label).map_err(|p| match p {
            Problem::UnknownLabel { .. } => Problem::Unreadable { forms: Form::ALL },
            p => p,
        });
    };
    if label.is_empty() {
        let label = pending
            .or(unlabelled.map(|reading| Label {
                reading,
                peak: false,
                unit: (reading == Reading::NvidiaSmi).then_some(MIB),
            }))
            .ok_or(Problem::Unlabelled { allowed: LABELS })?;
        return Ok(Line::Bare(label, value_of(value, label.unit, false)?));
    }
    // The number first: "Epoch 1 loss 2.3" is not a reading, whatever its label.
    let read = read_label(label);
    let bytes = value_of(value, read.ok().and_then(|l| l.unit), false)?;
    Ok(Line::Labelled(read?, bytes))
}

const MIB: u128 = 1 << 20;

/// A table's frame: `+----+`, `|====|`, a memory summary's `=====` lines.
fn is_border(text: &str) -> bool {
    text.chars().all(|c| matches!(c, '+' | '-' | '=' | '|'))
}

/// The time stamp nvidia-smi prints above its table: `Tue Mar  4 12:34:56 2025`.
fn is_timestamp(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [day, _, _, time, year] = words.as_slice() else {
        return false;
    };
    ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].contains(day)
        && time.contains(':')
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit())
}

/// A line of a `|`-framed table (the leading `|` removed): memory summary's
/// Peak Usage of allocated and reserved memory, or nvidia-smi's `used / total`
/// cell; any other row is the table's furniture.
fn table_row(row: &str) -> Result<Option<(Label, u128)>, Problem> {
    let cells: Vec<&str> = row.strip_suffix('|').unwrap_or(row).split('|').collect();
    let summary = match cells.first().map(|c| c.trim()) {
        Some("Allocated memory") => Some(Reading::Allocated),
        Some("GPU reserved memory") => Some(Reading::Reserved),
        _ => None,
    };
    if let Some(reading) = summary {
        // Metric | Cur Usage | Peak Usage | Tot Alloc | Tot Freed
        let [_, _, peak, _, _] = cells.as_slice() else {
            return Err(Problem::Unreadable { forms: Form::ALL });
        };
        let label = Label {
            reading,
            peak: true,
            unit: None,
        };
        return Ok(Some((label, value_of(peak.trim(), None, true)?)));
    }
    for cell in &cells {
        let Some((used, total)) = cell.split_once('/') else {
            continue;
        };
        if let (Some(used), Some(_)) = (mib(used), mib(total)) {
            let label = Label {
                reading: Reading::NvidiaSmi,
                peak: false,
                unit: Some(MIB),
            };
            return Ok(Some((label, value_of(used, label.unit, false)?)));
        }
    }
    Ok(None)
}

/// `24567MiB`'s digits.
fn mib(text: &str) -> Option<&str> {
    let digits = text.trim().strip_suffix("MiB")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// Splits a line at its number: the first digit at the start of the line or
/// after a space, `:` or `=`. The label loses its trailing `:` or `=`.
fn split(text: &str) -> (&str, Option<&str>) {
    let bytes = text.as_bytes();
    let start = (0..bytes.len()).find(|&i| {
        bytes[i].is_ascii_digit() && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b':' | b'='))
    });
    match start {
        None => (text, None),
        Some(i) => {
            let label = text.get(..i).unwrap_or("").trim_end();
            let label = label.strip_suffix([':', '=']).unwrap_or(label).trim();
            (label, text.get(i..))
        }
    }
}

/// What a label names: `torch.cuda.max_memory_allocated()`, `Peak reserved`,
/// `memory_reserved`, nvidia-smi's CSV header `memory.used [MiB]`.
fn read_label(label: &str) -> Result<Label, Problem> {
    let unknown = Problem::UnknownLabel { allowed: LABELS };
    let lower = label.to_ascii_lowercase();
    let lower = lower.strip_prefix("torch.cuda.").unwrap_or(&lower);
    // The CSV header, with the unit in brackets (`nounits` keeps it there).
    let (name, unit) = match lower.split_once('[') {
        Some((name, rest)) => {
            let unit = rest.strip_suffix(']').ok_or(unknown)?;
            let unit =
                unit_bytes(unit.trim(), false).ok_or(Problem::UnknownUnit { allowed: UNITS })?;
            (name.trim(), Some(unit))
        }
        None => (lower.trim(), None),
    };
    // A call's parentheses and arguments: `max_memory_allocated(0)`.
    let name = match name.split_once('(') {
        Some((call, _)) if name.ends_with(')') => call.trim(),
        _ => name,
    };
    if name == "memory.used" {
        return Ok(Label {
            reading: Reading::NvidiaSmi,
            peak: false,
            unit: unit.or(Some(MIB)),
        });
    }
    let mut reading = None;
    let mut peak = false;
    for word in name.split([' ', '_', '\t']).filter(|w| !w.is_empty()) {
        let this = match word {
            "allocated" => Reading::Allocated,
            "reserved" | "cached" => Reading::Reserved,
            "max" | "maximum" | "peak" => {
                peak = true;
                continue;
            }
            "memory" | "mem" | "gpu" => continue,
            _ => return Err(unknown),
        };
        if reading.replace(this).is_some_and(|r| r != this) {
            return Err(unknown);
        }
    }
    let reading = reading.ok_or(unknown)?;
    Ok(Label {
        reading,
        peak,
        unit,
    })
}

/// Bytes per unit. In a memory summary, KB, MB and GB are powers of 1024
/// too: earlier releases of `memory_summary` labelled them so, later ones
/// write KiB, MiB, GiB (torch/cuda/memory.py, `_format_size`).
fn unit_bytes(unit: &str, summary: bool) -> Option<u128> {
    let lower = unit.to_ascii_lowercase();
    if matches!(lower.as_str(), "b" | "byte" | "bytes") {
        return Some(1);
    }
    let mut chars = lower.chars();
    let power = match chars.next()? {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' if summary => 5,
        _ => return None,
    };
    let base: u128 = match chars.as_str() {
        "ib" => 1024,
        "b" if summary => 1024,
        "b" => 1000,
        _ => return None,
    };
    Some(base.pow(power))
}

/// A number and an optional unit (`20480 MiB`, `12.3GB`, `1.2e10`,
/// `47,073,234,944`) in bytes, rounded to the nearest byte; without a unit it
/// is in `unit`, or in bytes, and then must be whole.
fn value_of(text: &str, unit: Option<u128>, summary: bool) -> Result<u128, Problem> {
    let unreadable = Problem::Unreadable { forms: Form::ALL };
    let (mantissa, exponent, rest) = decimal(text).ok_or(unreadable)?;
    let rest = rest.trim();
    let per_unit = match rest {
        "" => unit.unwrap_or(1),
        _ if !rest.bytes().all(|b| b.is_ascii_alphabetic()) => return Err(unreadable),
        _ => unit_bytes(rest, summary).ok_or(Problem::UnknownUnit { allowed: UNITS })?,
    };
    let too_large = Problem::TooLarge { max: MAX_READING };
    // At most 20 digits times at most 2^50: far inside u128.
    let scaled = mantissa.checked_mul(per_unit).ok_or(too_large)?;
    let bytes = if exponent >= 0 {
        10u128
            .checked_pow(exponent.unsigned_abs())
            .and_then(|p| scaled.checked_mul(p))
            .ok_or(too_large)?
    } else {
        // Past 10^38 the divisor exceeds any `scaled`: the quotient is 0.
        let (quotient, remainder, divisor) = match 10u128.checked_pow(exponent.unsigned_abs()) {
            Some(d) => (scaled / d, scaled % d, d),
            None => (0, scaled, u128::MAX),
        };
        if rest.is_empty() && unit.is_none() && remainder != 0 {
            return Err(Problem::NotWholeBytes);
        }
        quotient + u128::from(remainder >= divisor - remainder)
    };
    if bytes > MAX_READING {
        return Err(too_large);
    }
    Ok(bytes)
}

/// `digits[.digits][e[+-]digits]` at the start of `text` (the integer part
/// may group thousands with commas: `47,073,234,944`): the significant digits
/// (at most 20), the power of ten and what follows.
fn decimal(text: &str) -> Option<(u128, i32, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut mantissa: u128 = 0;
    let mut digits = 0;
    let mut exponent: i32 = 0;
    let mut push = |d: u8, mantissa: &mut u128| -> Option<()> {
        digits += 1;
        (digits <= 20).then(|| *mantissa = *mantissa * 10 + u128::from(d - b'0'))
    };
    // The integer part, in groups of three after a comma.
    let mut group = 0;
    let mut grouped = false;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'0'..=b'9' => {
                push(b, &mut mantissa)?;
                group += 1;
            }
            b',' if bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
                && group > 0
                && (if grouped { group == 3 } else { group <= 3 }) =>
            {
                grouped = true;
                group = 0;
            }
            _ => break,
        }
        at += 1;
    }
    if at == 0 || (grouped && group != 3) {
        return None;
    }
    if bytes.get(at) == Some(&b'.') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
        at += 1;
        while let Some(&b @ b'0'..=b'9') = bytes.get(at) {
            push(b, &mut mantissa)?;
            exponent -= 1;
            at += 1;
        }
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        let (sign, from) = match bytes.get(at + 1) {
            Some(b'-') => (-1, at + 2),
            Some(b'+') => (1, at + 2),
            _ => (1, at + 1),
        };
        let mut end = from;
        let mut written: i32 = 0;
        while let Some(&b @ b'0'..=b'9') = bytes.get(end) {
            written = written * 10 + i32::from(b - b'0');
            end += 1;
            if end - from > 2 {
                return None;
            }
        }
        if end > from {
            exponent += sign * written;
            at = end;
        }
    }
    Some((mantissa, exponent, text.get(at..)?))
}

choice! {
    /// A term of docs/model.md §4 and §6 that can put a run's memory apart
    /// from the estimate.
    pub enum Term {
        /// The caching allocator's slack: batchfit adds 10 % of the transient
        /// bytes; 0 % to about 25 % is plausible (docs/model.md §4).
        AllocatorSlack = "allocator_slack",
        /// The CUDA context: `overhead_gb`, against about 0.3–0.5 GB with lazy
        /// loading and 1,343 MiB eager (docs/model.md §4).
        CudaContext = "cuda_context",
        /// NCCL's communicator buffers: "hundreds of MB" (docs/model.md §4).
        NcclBuffers = "nccl_buffers",
        /// Gradients that live through the run (Megatron-LM's buffer,
        /// `zero_grad(set_to_none=False)`) or through the forward pass
        /// (`zero_grad` after it) where the query does not say so
        /// (docs/model.md §3.6, §6).
        LiveGradients = "live_gradients",
        /// A training loop that keeps the model's output, and in it the
        /// logits, alive through the step (`outputs = model(**batch)`), where
        /// the query does not say so (`outputs=kept`, docs/model.md §3.3).
        KeptOutputs = "kept_outputs",
        /// Autocast's weight copies under full recomputation: the head's and
        /// one layer's both counted at the loss (docs/model.md §3.3).
        RecomputeCasts = "recompute_casts",
        /// What of the backward pass's working tensors is not modelled: the
        /// gradients the backward pass has created beside a layer's, and a
        /// weight's 16-bit gradient under autocast (docs/model.md §3.3, §6).
        BackwardWorkspace = "backward_workspace",
        /// An FP32 softmax in 16-bit models' unfused attention.
        Fp32Softmax = "fp32_softmax",
        /// Norms' per-token statistics.
        NormStatistics = "norm_statistics",
        /// Eager and math attention's K and V repeated to every head under GQA.
        RepeatedKv = "repeated_kv",
        /// What of DeepSpeed ZeRO-3 is not modelled (its reuse distance and
        /// sub-groups) and NCCL's buffers (DDP's buckets are modelled,
        /// docs/model.md §3.2).
        Zero3Buffers = "zero3_buffers",
        /// Pipeline and context parallelism: modelled for 1F1B, interleaved
        /// and GPipe, ring and Ulysses (§3.11); other schedules are not.
        PipelineContextParallel = "pipeline_context_parallel",
        /// Unbalanced expert routing and the auxiliary loss's router logits.
        MoeRouting = "moe_routing",
        /// LoRA on fused expert tensors (PEFT `target_parameters`): the
        /// merged weight copies.
        ExpertAdapters = "expert_adapters",
        /// Sliding-window and chunked attention's cache: modelled as
        /// `DynamicCache` holds it (a static cache preallocates its window).
        WindowedAttention = "windowed_attention",
        /// Serving engines' latent MLA cache.
        LatentCache = "latent_cache",
        /// Transformer Engine's other FP8 recipes, FP8 attention, FP8 weights
        /// kept across micro-batches.
        Fp8Recipes = "fp8_recipes",
        /// Paged optimizers' spill to CPU.
        PagedOptimizer = "paged_optimizer",
        /// torch.compile's saved set.
        TorchCompile = "torch_compile",
        /// Liger kernels.
        LigerKernels = "liger_kernels",
        /// Gemma 3's vision tower and its image tokens.
        VisionTower = "vision_tower",
        /// Preallocated (`HybridCache`, static) KV caches.
        PreallocatedCache = "preallocated_cache",
        /// LoRA on fused projections (Phi-3's `qkv_proj`).
        FusedLora = "fused_lora",
        /// QK-norm's weights over the whole projection, counted on every
        /// tensor-parallel rank.
        QkNormTp = "qk_norm_tp",
        /// PEFT's `prepare_model_for_kbit_training` on a quantized base where
        /// the query does not say so (`prepare_kbit=1`, docs/model.md §3.8).
        KbitPreparation = "kbit_preparation",
    }
    default AllocatorSlack
}

impl Term {
    /// Whether the term can apply to `config` at all: the measurement panel
    /// and `batchfit measured` name only those (a dense single-GPU run has
    /// no expert routing, pipeline or vision tower to blame).
    pub fn applies(self, config: &Config) -> bool {
        let t = &config.transformer;
        let arch = &t.arch;
        let transformer = config.form == query::Form::Transformer;
        let train = match config.form {
            query::Form::Transformer => t.mode == Mode::Train,
            query::Form::Parameters => {
                config.parameters.optimizer != crate::parameters::Optimizer::None
            }
            query::Form::Activations => true,
        };
        let inference = transformer && t.mode == Mode::Inference;
        let several = memory::total_gpus(config, t.gpus) > 1 && transformer;
        match self {
            Self::AllocatorSlack | Self::CudaContext => true,
            Self::NcclBuffers => several,
            Self::LiveGradients | Self::BackwardWorkspace | Self::LigerKernels => train,
            // Only where the query does not say the loop keeps it.
            Self::KeptOutputs => {
                train && transformer && arch.kind == Kind::Decoder && t.outputs == Outputs::Dropped
            }
            Self::RecomputeCasts => {
                train && transformer && t.recompute == Recompute::Full && t.autocast()
            }
            // Hugging Face's eager attention in training is counted
            // (`TransformerInput::fp32_softmax`); the prefill's conversion
            // copies, Megatron's FP32 option and the math kernel's are not.
            Self::Fp32Softmax => {
                transformer && t.kernel() == Attention::Eager && (!t.fp32_softmax() || inference)
            }
            Self::NormStatistics => transformer,
            Self::RepeatedKv => {
                transformer && t.kernel() == Attention::Eager && arch.kv_heads < arch.heads
            }
            Self::Zero3Buffers => train && transformer && (several || t.zero > 0),
            Self::PipelineContextParallel => transformer && (t.pp > 1 || t.cp > 1),
            Self::MoeRouting => transformer && arch.moe(),
            Self::ExpertAdapters => train && transformer && arch.moe() && t.lora(),
            Self::WindowedAttention => transformer && arch.windowed_layers() > 0,
            Self::LatentCache => inference && arch.mla(),
            Self::Fp8Recipes => train && transformer && t.fp8 != crate::transformer::Fp8::None,
            Self::PagedOptimizer => train && transformer && t.optimizer.paged(),
            Self::TorchCompile => transformer && t.compiled(),
            // Gemma 3's vision tower: for an architecture batchfit cannot
            // tell is text-only, a custom or pasted one, or one that
            // interleaves local and global attention as Gemma 3's does.
            Self::VisionTower => {
                transformer
                    && arch.kind == Kind::Decoder
                    && (config.model.is_none() || arch.global_every > 0)
            }
            Self::PreallocatedCache => inference,
            Self::FusedLora => {
                train && transformer && t.lora() && arch.fused_proj != FusedProj::None
            }
            Self::QkNormTp => transformer && arch.qk_norm && t.tp > 1,
            Self::KbitPreparation => train && transformer && t.quantized() && !t.prepare_kbit,
        }
    }

    /// The term's name in English, as the page and the CLI show it beside a
    /// measured difference (the page's Spanish is in its own texts).
    pub const fn label(self) -> &'static str {
        match self {
            Self::AllocatorSlack => "The caching allocator's slack",
            Self::CudaContext => "The CUDA context",
            Self::NcclBuffers => "NCCL's communicator buffers",
            Self::LiveGradients => {
                "Gradients kept through the step (zero_grad(set_to_none=False), Megatron's buffer)"
            }
            Self::KeptOutputs => "The model's output a training loop keeps (outputs=kept)",
            Self::RecomputeCasts => "Autocast's copies under full recomputation",
            Self::BackwardWorkspace => "The backward pass's working tensors",
            Self::Fp32Softmax => "An FP32 softmax in unfused attention",
            Self::NormStatistics => "Norms' per-token statistics",
            Self::RepeatedKv => "K and V repeated to every head (GQA, eager attention)",
            Self::Zero3Buffers => "ZeRO-3's reuse distance and sub-groups, NCCL's buffers",
            Self::PipelineContextParallel => "Pipeline and context parallelism",
            Self::MoeRouting => "Unbalanced expert routing, router logits",
            Self::ExpertAdapters => "LoRA on fused expert tensors (target_parameters)",
            Self::WindowedAttention => "Sliding-window and chunked attention's cache",
            Self::LatentCache => "A serving engine's latent MLA cache",
            Self::Fp8Recipes => "FP8 recipes other than the two modelled",
            Self::PagedOptimizer => "A paged optimizer's spill to CPU",
            Self::TorchCompile => "torch.compile's saved set",
            Self::LigerKernels => "Liger kernels",
            Self::VisionTower => "A vision tower and its image tokens",
            Self::PreallocatedCache => "A preallocated (static) KV cache",
            Self::FusedLora => "LoRA on fused projections (qkv_proj)",
            Self::QkNormTp => "QK-norm per tensor-parallel rank",
            Self::KbitPreparation => {
                "PEFT's prepare_model_for_kbit_training (FP32 embedding, head and norms)"
            }
        }
    }
}

/// How batchfit treats a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Treatment {
    /// In the estimate as a stated judgement, which a run may not match.
    Modelled,
    /// Left out of the estimate.
    NotModelled,
}

/// Which way a term moves the estimate's error (estimate − run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The run holds it and the estimate does not: the estimate is low.
    Low,
    /// The estimate counts it and the run does not hold it: the estimate is high.
    High,
    /// Either way, by the run's setup.
    Either,
}

/// How large a term is, as its source states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// Up to this share of the measured reading, in tenths of a percent, as
    /// measured in the term's source.
    Share { tenths: u16 },
    /// Up to the estimate's gradients.
    Gradients,
    /// The allocator's slack at 0 % to 25 % of the transient bytes where
    /// batchfit adds 10 %: from 1.5 × the estimate's allocator cache below
    /// the run to 1 × above it.
    AllocatorSlack,
    /// A CUDA context of 0.3 GB to 1,343 MiB where the estimate adds its
    /// overhead.
    CudaContext,
    /// Bytes per token, which no total of the estimate states.
    PerToken { min: u8, max: u8 },
    /// The reading's difference with `prepare_kbit=1`, which the model
    /// states exactly.
    KbitPreparation,
    /// The source gives no size.
    NotStated,
}

/// One row of the table of terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TermInfo {
    pub term: Term,
    pub treatment: Treatment,
    pub direction: Direction,
    /// The first reading it shows in; it shows in the readings above too.
    pub from: Reading,
    pub size: Size,
    /// Where the term and its size are stated: files and sections of the
    /// docs, in no language.
    pub source: &'static str,
    /// What the source says of it, in English; empty where the section
    /// itself is the whole reference. The page has its Spanish.
    pub note: &'static str,
}

const fn row(
    term: Term,
    treatment: Treatment,
    direction: Direction,
    from: Reading,
    size: Size,
    (source, note): (&'static str, &'static str),
) -> TermInfo {
    TermInfo {
        term,
        treatment,
        direction,
        from,
        size,
        source,
        note,
    }
}

const SECTION_6: (&str, &str) = ("docs/model.md §6", "");

/// The terms of docs/model.md §4 (the modelled judgements) and §6 (what is
/// not modelled), with the sizes measured in docs/accuracy.md ("What these
/// runs show that batchfit does not model") where it measures them.
pub const TERMS: &[TermInfo] = {
    use Direction::{Either, High, Low};
    use Reading::{Allocated, NvidiaSmi, Reserved};
    use Treatment::{Modelled, NotModelled};
    &[
        row(
            Term::AllocatorSlack,
            Modelled,
            Either,
            Reserved,
            Size::AllocatorSlack,
            (
                "docs/model.md §4; docs/accuracy.md",
                "the slack measured there: 1.2 % to 27.8 % over the peak allocated",
            ),
        ),
        row(
            Term::CudaContext,
            Modelled,
            Either,
            NvidiaSmi,
            Size::CudaContext,
            ("docs/model.md §4", "its table of measured contexts"),
        ),
        row(
            Term::NcclBuffers,
            NotModelled,
            Low,
            NvidiaSmi,
            Size::NotStated,
            ("docs/model.md §4", "hundreds of MB"),
        ),
        row(
            Term::LiveGradients,
            NotModelled,
            Low,
            Allocated,
            Size::Gradients,
            (
                "docs/model.md §3.6, §6; docs/accuracy.md",
                "gradients that outlive the step",
            ),
        ),
        row(
            Term::KeptOutputs,
            Modelled,
            Low,
            Allocated,
            Size::NotStated,
            (
                "docs/model.md §3.3",
                "one logit-sized tensor at every moment, with outputs=kept",
            ),
        ),
        row(
            Term::RecomputeCasts,
            Modelled,
            High,
            Allocated,
            Size::NotStated,
            (
                "docs/model.md §3.3",
                "the loss counts the head's copy and one layer's, never alive together",
            ),
        ),
        row(
            Term::BackwardWorkspace,
            NotModelled,
            Low,
            Allocated,
            Size::Share { tenths: 13 },
            (
                "docs/model.md §3.3, §6; docs/accuracy.md",
                "its working tensors and gradients beyond the modelled terms: 1.3 % (G039)",
            ),
        ),
        row(
            Term::Fp32Softmax,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::NormStatistics,
            NotModelled,
            Low,
            Allocated,
            Size::PerToken { min: 4, max: 8 },
            SECTION_6,
        ),
        row(
            Term::RepeatedKv,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::Zero3Buffers,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            (
                "docs/model.md §6, §3.2",
                "ZeRO-3's bucket, parameters in flight and gradient partition are modelled (§3.2)",
            ),
        ),
        row(
            Term::PipelineContextParallel,
            Modelled,
            Either,
            Allocated,
            Size::NotStated,
            (
                "docs/model.md §3.11, §6",
                "§3.11 models the schedules and kernels it names; §6 lists the others",
            ),
        ),
        row(
            Term::MoeRouting,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::ExpertAdapters,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::WindowedAttention,
            Modelled,
            Either,
            Allocated,
            Size::NotStated,
            (
                "docs/model.md §3.4, §6",
                "§3.4 models sliding-window and Llama 4's chunked layers as DynamicCache holds them; §6 lists the static caches",
            ),
        ),
        row(
            Term::LatentCache,
            NotModelled,
            High,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::Fp8Recipes,
            NotModelled,
            Either,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::PagedOptimizer,
            NotModelled,
            High,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::TorchCompile,
            NotModelled,
            Either,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::LigerKernels,
            NotModelled,
            Either,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::VisionTower,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::PreallocatedCache,
            NotModelled,
            Low,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::FusedLora,
            NotModelled,
            Either,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::QkNormTp,
            NotModelled,
            Either,
            Allocated,
            Size::NotStated,
            SECTION_6,
        ),
        row(
            Term::KbitPreparation,
            Modelled,
            Low,
            Allocated,
            Size::KbitPreparation,
            (
                "docs/model.md §3.8",
                "the embedding, head, norms and biases in FP32, and with them the residual stream and the logits; prepare_kbit=1 states it",
            ),
        ),
    ]
};

/// How well a term's size matches a difference of its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fit {
    /// The difference is inside the term's stated range: it alone could make it.
    Within,
    /// The difference is larger than the term's largest stated size: part of it.
    Part,
    /// The term goes this way; its source states no size this estimate can
    /// turn into bytes.
    Unsized,
}

/// A term that could explain the difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub info: &'static TermInfo,
    pub fit: Fit,
    /// The error (estimate − run) the term can make here, in bytes, from
    /// `.0` to `.1`, when its size is stated.
    pub range: Option<(i128, i128)>,
}

/// A measured reading beside the estimate's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub measured: Measured,
    pub predicted: u128,
    /// Estimate − run, in bytes: negative when the run used more.
    pub error: i128,
    /// `error` over the measured bytes, in tenths of a percent (rounded half
    /// away from zero), as docs/accuracy.md counts errors; `None` when the
    /// run measured 0.
    pub error_tenths: Option<i128>,
    /// The terms consistent with the error's size and sign: those whose range
    /// holds it first, then those that explain part of it, then those of
    /// that sign with no stated size; none when the error is 0.
    pub explanations: Vec<Explanation>,
}

/// `bytes` as a signed count (estimates and readings are far below 2^127).
fn signed(bytes: u128) -> i128 {
    i128::try_from(bytes).unwrap_or(i128::MAX)
}

/// `part / whole` in tenths of a percent, rounded half away from zero.
fn tenths_of(part: i128, whole: u128) -> Option<i128> {
    let whole = signed(whole);
    if whole == 0 {
        return None;
    }
    let scaled = part.saturating_mul(1000);
    let half = whole / 2;
    Some(if scaled >= 0 {
        (scaled + half) / whole
    } else {
        (scaled - half) / whole
    })
}

/// The error range a term can make for this estimate of `config` and the
/// reading measured.
fn range(
    info: &TermInfo,
    config: &Config,
    e: &Estimate,
    measured: &Measured,
) -> Option<(i128, i128)> {
    let up_to = |bytes: i128| match info.direction {
        Direction::Low => (-bytes, 0),
        Direction::High => (0, bytes),
        Direction::Either => (-bytes, bytes),
    };
    match info.size {
        Size::Share { tenths } => Some(up_to(signed(measured.bytes) * i128::from(tenths) / 1000)),
        Size::Gradients => Some(up_to(signed(e.gradients))),
        Size::AllocatorSlack => {
            let cache = signed(e.allocator_cache());
            Some((-(cache * 3 / 2), cache))
        }
        Size::CudaContext => {
            let overhead = signed(e.overhead);
            Some((overhead - 1343 * (1 << 20), overhead - 300_000_000))
        }
        Size::KbitPreparation => {
            let mut prepared = *config;
            prepared.transformer.prepare_kbit = true;
            let reading = measured.reading.predicted(&memory::estimate(&prepared));
            Some(up_to(
                signed(reading) - signed(measured.reading.predicted(e)),
            ))
        }
        Size::PerToken { .. } | Size::NotStated => None,
    }
}

/// `measured` beside the estimate of `config`, `e`, and the terms of
/// [`TERMS`] that can apply to `config` ([`Term::applies`]), show in that
/// reading and could explain the difference.
pub fn compare(config: &Config, e: &Estimate, measured: &Measured) -> Comparison {
    let predicted = measured.reading.predicted(e);
    let error = signed(predicted) - signed(measured.bytes);
    let mut explanations: Vec<Explanation> = TERMS
        .iter()
        .filter(|info| error != 0 && info.from.level() <= measured.reading.level())
        .filter(|info| info.term.applies(config))
        .filter_map(|info| {
            let range = range(info, config, e, measured);
            let fit = match range {
                Some((lo, hi)) if (lo..=hi).contains(&error) => Fit::Within,
                Some((lo, _)) if error < lo && lo < 0 => Fit::Part,
                Some((_, hi)) if error > hi && hi > 0 => Fit::Part,
                Some(_) => return None,
                None => match (info.direction, error < 0) {
                    (Direction::Either, _) | (Direction::Low, true) | (Direction::High, false) => {
                        Fit::Unsized
                    }
                    _ => return None,
                },
            };
            Some(Explanation { info, fit, range })
        })
        .collect();
    explanations.sort_by_key(|x| x.fit as u8);
    Comparison {
        measured: *measured,
        predicted,
        error,
        error_tenths: tenths_of(error, measured.bytes),
        explanations,
    }
}

#[cfg(test)]
mod tests;
