//! The ways the CLI prints: text for people, JSON for scripts. Every number comes
//! from batchfit-core; this module only lays them out.

use batchfit_core::advice;
use batchfit_core::confidence::{self, Basis, Fit, Range, Reading, Verdict};
use batchfit_core::fields::{format_hundredths, group_thousands};
use batchfit_core::hardware;
use batchfit_core::memory::{
    self, AtPeak, Change, Component, Cost, Estimate, Lever, Phase, SweepRow,
};
use batchfit_core::presets::{self, Device, DeviceKind};
use batchfit_core::query::{Config, Form};
use batchfit_core::serving;
use batchfit_core::transformer::{self, Mode};
use batchfit_core::units::Units;
use serde::Serialize;

use crate::format::{group_bytes, line, size};

/// The JSON document. Byte counts are integers (never formatted, never floats).
#[derive(Serialize)]
struct Report {
    /// The configuration as a query string: the page's link for it.
    query: String,
    form: &'static str,
    units: &'static str,
    parameters: u128,
    /// Parameters one token uses: below `parameters` for a mixture of experts.
    active_parameters: u128,
    /// What trains: every parameter, or with LoRA the adapters.
    trainable_parameters: u128,
    weights: u128,
    gradients: u128,
    optimizer_states: u128,
    optimizer_step: u128,
    buffers: u128,
    kv_cache: u128,
    activations: u128,
    activations_per_sample: u128,
    total: u128,
    overhead: u128,
    required: u128,
    peak_allocated: u128,
    peak_reserved: u128,
    nvidia_smi: u128,
    peak_phase: &'static str,
    /// What is alive at the peak: sums exactly to `peak_allocated`.
    at_peak: AtPeakRow,
    /// `peak_reserved − peak_allocated`.
    allocator_cache: u128,
    /// `required − nvidia_smi`.
    margin_bytes: u128,
    /// CPU memory the offloads need per GPU's process, where one applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_memory: Option<u128>,
    /// A paged optimizer's state (`paged_adamw_8bit`, `paged_adamw`): counted
    /// on the GPU in full, it may spill to CPU under pressure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    optimizer_may_spill: bool,
    /// The device's memory as its driver reports it (nvidia-smi's total).
    #[serde(skip_serializing_if = "Option::is_none")]
    device_bytes: Option<u128>,
    /// What a process can allocate on it, which `required` is checked
    /// against (docs/model.md §4).
    #[serde(skip_serializing_if = "Option::is_none")]
    usable_bytes: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fits: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_batch: Option<u64>,
    /// The longest sequence (inference: prompt + generated) that fits at the
    /// chosen batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accumulation_steps: Option<u64>,
    /// Data-parallel ranks needed (each of tp × pp × cp GPUs).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus_needed: Option<u64>,
    /// Every GPU those ranks take: `gpus_needed × tp × pp × cp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus_needed_total: Option<u64>,
    /// Every GPU of the job as set: gpus × tp × pp × cp.
    job_gpus: u64,
    /// Every pipeline stage's memory (one stage without pipeline parallelism):
    /// the answer above is the one `pp_stage` names, or the one with the most
    /// reserved bytes.
    stages: Vec<StageRow>,
    sweep: Vec<Row>,
    what_ifs: Vec<WhatIfRow>,
    /// The smallest combinations of changes that fit, the least costly first.
    fixes: Vec<FixRow>,
    /// Settings the device cannot run (`hardware::warnings`).
    warnings: Vec<WarningRow>,
    /// A serving engine's memory plan (`framework=vllm` on a device).
    #[serde(skip_serializing_if = "Option::is_none")]
    serving: Option<crate::serving::Row>,
    /// The step, point by point: its largest `total` is `peak_allocated`.
    timeline: Vec<TimelineRow>,
    /// What runs like this one measured in validation (transformer form only).
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<ConfidenceRow>,
}

/// `batchfit_core::confidence` for one configuration.
#[derive(Serialize)]
struct ConfidenceRow {
    /// One per reading with a range.
    ranges: Vec<RangeRow>,
    /// The ends as memory required, and with a device the verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    fit: Option<FitRow>,
}

#[derive(Serialize)]
struct RangeRow {
    reading: &'static str,
    /// (measured − predicted) / predicted, in hundredths of a percent.
    low_basis_points: i32,
    high_basis_points: i32,
    estimate: u128,
    low: u128,
    high: u128,
    rows: u32,
    sources: u32,
    /// `profile`: the configuration's profile's own rows; `pooled`: every
    /// profile's, the profile's own (`profile_rows`, `profile_sources`) too few.
    basis: &'static str,
    profile: &'static str,
    profile_rows: u32,
    profile_sources: u32,
}

#[derive(Serialize)]
struct FitRow {
    /// The reading whose range the ends come from.
    reading: &'static str,
    optimistic_required: u128,
    pessimistic_required: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'static str>,
}

impl From<&Range> for RangeRow {
    fn from(r: &Range) -> Self {
        let (basis, profile, profile_rows, profile_sources) = match r.basis {
            Basis::Profile(p) => ("profile", p, r.rows, r.sources),
            Basis::Pooled {
                profile,
                rows,
                sources,
            } => ("pooled", profile, rows, sources),
        };
        Self {
            reading: r.reading.name(),
            low_basis_points: r.bounds.low,
            high_basis_points: r.bounds.high,
            estimate: r.estimate,
            low: r.low,
            high: r.high,
            rows: r.rows,
            sources: r.sources,
            basis,
            profile: profile.name(),
            profile_rows,
            profile_sources,
        }
    }
}

fn confidence_row(config: &Config, e: &Estimate) -> Option<ConfidenceRow> {
    if config.form != Form::Transformer {
        return None;
    }
    Some(ConfidenceRow {
        ranges: Reading::ALL
            .iter()
            .filter_map(|&r| confidence::range(config, e, r))
            .map(|r| RangeRow::from(&r))
            .collect(),
        fit: confidence::fit(config, e).map(|fit| FitRow {
            reading: fit.range.reading.name(),
            optimistic_required: fit.optimistic,
            pessimistic_required: fit.pessimistic,
            verdict: e.device_bytes.map(|d| fit.verdict(d).name()),
        }),
    })
}

/// The verdict in words.
pub fn verdict_words(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Fits => "fits even at the pessimistic end",
        Verdict::FitsOnlyOptimistic => "fits only at the optimistic end",
        Verdict::DoesNotFit => "does not fit, not even at the optimistic end",
    }
}

/// "required 53.18 GB … 74.27 GB (reserved range)": a fit's ends.
pub fn fit_ends(fit: &Fit, units: Units) -> String {
    format!(
        "required {} … {} ({} range)",
        size(fit.optimistic, units),
        size(fit.pessimistic, units),
        reading_label(fit.range.reading)
    )
}

fn reading_label(reading: Reading) -> &'static str {
    match reading {
        Reading::Allocated => "peak allocated",
        Reading::Reserved => "peak reserved",
        Reading::NvidiaSmi => "nvidia-smi",
    }
}

/// Basis points as a signed percentage to a tenth, rounded outwards: down
/// for a low end, up for a high end.
fn tenths(basis_points: i32, up: bool) -> String {
    let tenths = if up {
        -(-basis_points).div_euclid(10)
    } else {
        basis_points.div_euclid(10)
    };
    let sign = if tenths < 0 { '-' } else { '+' };
    let abs = tenths.unsigned_abs();
    format!("{sign}{}.{} %", abs / 10, abs % 10)
}

/// The text report's validation block: each reading's range, or why it has none.
fn confidence_text(out: &mut String, config: &Config, e: &Estimate) {
    if config.form != Form::Transformer {
        return;
    }
    out.push_str(&format!(
        "\nIn validation, runs like this one measured (between the {}th and {}th percentile, \
         each source weighted equally; docs/accuracy.md):\n",
        confidence::LOW_PERCENTILE,
        confidence::HIGH_PERCENTILE
    ));
    let units = config.units;
    let profile = config.transformer.framework;
    for &reading in Reading::ALL {
        let label = reading_label(reading);
        let Some(r) = confidence::range(config, e, reading) else {
            let counts = confidence::cell(reading, None)
                .map_or("no validation row".to_owned(), |c| {
                    format!("{} of {}", count(c.rows, "row"), count(c.sources, "source"))
                });
            out.push_str(&format!(
                "  {label:<16}no range: {counts}, fewer than {} or {}\n",
                count(confidence::MIN_ROWS, "row"),
                count(confidence::MIN_SOURCES, "source"),
            ));
            continue;
        };
        let whose = match r.basis {
            Basis::Profile(p) => format!("profile {}", p.name()),
            Basis::Pooled { rows, sources, .. } => format!(
                "every profile: {}'s own {} of {} are too few",
                profile.name(),
                count(rows, "row"),
                count(sources, "source")
            ),
        };
        out.push_str(&format!(
            "  {label:<16}{} … {} of the estimate: {} … {} ({}, {}, {whose})\n",
            tenths(r.bounds.low, false),
            tenths(r.bounds.high, true),
            size(r.low, units),
            size(r.high, units),
            count(r.rows, "row"),
            count(r.sources, "source"),
        ));
    }
}

/// "1 row", "9 rows".
fn count(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[derive(Serialize)]
struct StageRow {
    index: u64,
    layers: u64,
    embedding: bool,
    head: bool,
    weights: u128,
    gradients: u128,
    optimizer_states: u128,
    activations: u128,
    peak_allocated: u128,
    peak_reserved: u128,
    required: u128,
    /// What is alive at the stage's peak: sums exactly to its `peak_allocated`.
    at_peak: AtPeakRow,
}

impl From<&memory::Stage> for StageRow {
    fn from(stage: &memory::Stage) -> Self {
        let e = &stage.estimate;
        Self {
            index: stage.index,
            layers: stage.layers,
            embedding: stage.embedding,
            head: stage.head,
            weights: e.weights,
            gradients: e.gradients,
            optimizer_states: e.optimizer_states,
            activations: e.activations,
            peak_allocated: e.peak_allocated,
            peak_reserved: e.peak_reserved,
            required: e.required,
            at_peak: e.at_peak.into(),
        }
    }
}

#[derive(Serialize)]
struct TimelineRow {
    phase: &'static str,
    /// The layer just computed (or the quarter of the generation), 0 where none.
    layer: u64,
    bytes: AtPeakRow,
    total: u128,
}

/// What is alive at a moment, by component: the core's one list, each
/// under its name.
struct AtPeakRow(AtPeak);

impl Serialize for AtPeakRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(Component::TENSORS.len()))?;
        for component in Component::TENSORS {
            map.serialize_entry(component.name(), &self.0.of(component))?;
        }
        map.end()
    }
}

impl From<AtPeak> for AtPeakRow {
    fn from(p: AtPeak) -> Self {
        Self(p)
    }
}

/// A sweep row, in at-peak quantities: `model_states + activations = total`.
#[derive(Serialize)]
struct Row {
    batch: u64,
    model_states: u128,
    activations: u128,
    total: u128,
    required: u128,
}

impl From<&SweepRow> for Row {
    fn from(row: &SweepRow) -> Self {
        Self {
            batch: row.batch,
            model_states: row.model_states,
            activations: row.activations,
            total: row.total,
            required: row.required,
        }
    }
}

#[derive(Serialize)]
struct WhatIfRow {
    change: String,
    query: String,
    required: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    fits: Option<bool>,
    costs: CostRow,
}

/// A setting the device cannot run.
#[derive(Serialize)]
struct WarningRow {
    name: &'static str,
    message: String,
}

/// A warning in one English sentence.
fn warning_text(warning: hardware::Warning) -> String {
    match warning {
        hardware::Warning::Bf16 {
            capability: (major, minor),
        } => format!(
            "the device (compute capability {major}.{minor}) has no BF16: vLLM refuses it and PyTorch emulates it; FP16 needs the same memory"
        ),
        hardware::Warning::Fp8 {
            capability: (major, minor),
        } => format!(
            "FP8 training needs compute capability 8.9 (Ada, Hopper); the device has {major}.{minor}: Transformer Engine refuses it"
        ),
        hardware::Warning::FlashAttention {
            capability: (major, minor),
        } => format!(
            "FlashAttention 2 needs compute capability 8.0 (Ampere); the device has {major}.{minor}: attn_implementation=\"flash_attention_2\" fails there; PyTorch's SDPA runs its memory-efficient kernel, which keeps no s x s scores either, so the estimate stands"
        ),
        hardware::Warning::Fp8Cache {
            capability: (major, minor),
        } => format!(
            "vLLM 0.11 cannot keep an FP8 KV cache on compute capability {major}.{minor}: below 8.0 FlexAttention refuses it, before Ada its Triton kernels do not compile (vllm issue #26431); vLLM 0.10 falls back to its V0 engine, which stores FP8 as the plan counts"
        ),
        hardware::Warning::AwqKernels {
            capability: (major, minor),
        } => format!(
            "vLLM's AWQ kernels need compute capability 7.5 (Turing); the device has {major}.{minor}: a GPTQ checkpoint runs (6.0), an AWQ one does not"
        ),
        hardware::Warning::Int4OnHost { kind } => format!(
            "4-bit AWQ or GPTQ weights on {}: AWQ runs off a GPU only through Intel's IPEX (Intel CPUs, not Apple silicon), GPTQ through gptqmodel's PyTorch kernels; vLLM's CPU backend runs both through IPEX only",
            if kind == DeviceKind::Unified { "Apple silicon" } else { "a CPU" }
        ),
        hardware::Warning::BitsandbytesApple => "bitsandbytes on Apple silicon needs version 0.49 or later (the first macOS arm64 wheels) and runs on its GPU from 0.50 (the MPS backend); before, it runs on the CPU".to_owned(),
        hardware::Warning::EngineCache { engine } => format!(
            "{}'s KV cache is 16-bit or FP8 (--kv-cache-dtype): an INT8 or INT4 cache with per-token scales is generate()'s (torchao, quanto, HQQ); the plan counts the bytes asked, a cache the engine does not make",
            engine.engine_name()
        ),
    }
}

#[derive(Serialize)]
struct FixRow {
    levers: Vec<LeverRow>,
    query: String,
    required: u128,
    /// It fits even at the pessimistic end of the validation range.
    fits_pessimistic: bool,
    /// CPU memory the fix's offloads need, per GPU's process.
    cpu_memory: u128,
    /// The same over the job's processes on one host.
    host_memory: u128,
    costs: CostRow,
}

/// One lever of a fix: its name and its setting, where it has one.
#[derive(Serialize)]
struct LeverRow {
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    batch: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rank: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tp: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus: Option<u64>,
}

impl From<Lever> for LeverRow {
    fn from(lever: Lever) -> Self {
        let mut row = Self {
            name: lever.name(),
            batch: None,
            seq: None,
            rank: None,
            stage: None,
            tp: None,
            gpus: None,
        };
        match lever {
            Lever::Batch { batch } => row.batch = Some(batch),
            Lever::Seq { seq } => row.seq = Some(seq),
            Lever::Lora { rank } | Lever::Qlora { rank } => row.rank = Some(rank),
            Lever::Zero { stage, gpus } => (row.stage, row.gpus) = (Some(stage), Some(gpus)),
            Lever::Tp { tp } => row.tp = Some(tp),
            _ => {}
        }
        row
    }
}

/// What a change costs besides memory (docs/model.md §5), per GPU and per
/// optimizer step, for the changed configuration.
#[derive(Serialize)]
struct CostRow {
    flops: u128,
    recompute_flops: u128,
    /// `recompute_flops / flops` in hundredths of a percent.
    recompute_share_bp: u128,
    pcie_bytes: u128,
    /// `pcie_bytes` at `memory::PCIE_BYTES_PER_SECOND`, in microseconds.
    pcie_micros: u128,
    gpus: u64,
    extra_gpus: u64,
    trainable_parameters: u128,
    trainable_share_bp: u128,
    samples_per_micro_step: u64,
    tokens_per_micro_step: u128,
    accumulation_steps: u64,
    tokens_per_step: u128,
    tokens_per_step_lost: u128,
    /// Inference: sequences served at once fewer than before.
    sequences_lost: u64,
}

impl From<Cost> for CostRow {
    fn from(cost: Cost) -> Self {
        let a = cost.after;
        Self {
            flops: a.flops,
            recompute_flops: a.recompute_flops,
            recompute_share_bp: cost.recompute_share_bp(),
            pcie_bytes: a.pcie_bytes,
            pcie_micros: a.pcie_micros(),
            gpus: a.gpus,
            extra_gpus: cost.extra_gpus(),
            trainable_parameters: a.trainable,
            trainable_share_bp: cost.trainable_share_bp(),
            samples_per_micro_step: a.samples,
            tokens_per_micro_step: a.tokens,
            accumulation_steps: a.accumulation,
            tokens_per_step: a.step_tokens,
            tokens_per_step_lost: cost.tokens_lost(),
            sequences_lost: cost.sequences_lost(),
        }
    }
}

/// A lever in words; inference's batch is the sequences served at once.
fn lever_label(lever: Lever, inference: bool) -> String {
    match lever {
        Lever::Seq { seq } => format!("sequence {}", group_thousands(seq)),
        Lever::Lora { rank } => format!("LoRA r={rank} over a frozen 16-bit base"),
        Lever::Qlora { rank } => format!("QLoRA r={rank} (NF4 base, double quantization)"),
        Lever::Zero { stage, gpus } => format!("ZeRO-{stage} over {gpus} GPUs"),
        Lever::Tp { tp } => format!("tensor parallelism over {tp} GPUs"),
        Lever::ParamOffload => "parameters offloaded to CPU".to_owned(),
        Lever::Offload => "optimizer offloaded to CPU".to_owned(),
        Lever::ActOffload => "activations offloaded to CPU".to_owned(),
        Lever::SelectiveRecompute => "selective recomputation".to_owned(),
        Lever::FullRecompute => "full recomputation".to_owned(),
        Lever::Checkpointing => "gradient checkpointing".to_owned(),
        Lever::Batch { batch } if inference => format!("batch {batch} (sequences at once)"),
        Lever::Batch { batch } => format!("micro-batch {batch}"),
        Lever::Bf16 => "BF16".to_owned(),
        Lever::Adam8bit => "8-bit AdamW".to_owned(),
        Lever::Fp8Kv => "an FP8 KV cache".to_owned(),
    }
}

/// A hundredths-of-a-percent share as "31.16 %".
fn percent_bp(bp: u128) -> String {
    u64::try_from(bp).map_or_else(|_| bp.to_string(), format_hundredths) + " %"
}

fn plural(n: u128) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What a change costs besides memory, the parts that are not nothing, in
/// one line; empty when nothing.
fn cost_text(cost: &Cost, units: Units) -> String {
    let (before, after) = (cost.before, cost.after);
    let mut parts = Vec::new();
    match cost.extra_gpus() {
        0 => {}
        1 => parts.push(format!("+1 GPU ({} in all)", after.gpus)),
        gpus => parts.push(format!("+{gpus} GPUs ({} in all)", after.gpus)),
    }
    if after.recompute_flops != before.recompute_flops {
        parts.push(format!(
            "recomputation {} of the step's FLOPs",
            percent_bp(cost.recompute_share_bp())
        ));
    }
    if after.pcie_bytes != before.pcie_bytes {
        let millis = after.pcie_micros().div_ceil(1_000);
        parts.push(format!(
            "PCIe {} per optimizer step, {} ms at 25 GB/s",
            size(after.pcie_bytes, units),
            u64::try_from(millis).map_or_else(|_| millis.to_string(), group_thousands)
        ));
    }
    if after.trainable != before.trainable {
        parts.push(format!(
            "trains {} of the parameters",
            percent_bp(cost.trainable_share_bp())
        ));
    }
    if after.inference {
        if after.samples != before.samples {
            parts.push(format!(
                "{} sequence{} at once instead of {}",
                after.samples,
                plural(u128::from(after.samples)),
                before.samples,
            ));
        }
    } else if (after.samples, after.accumulation) != (before.samples, before.accumulation) {
        parts.push(format!(
            "{} micro-step{} of {} sample{} per optimizer step",
            after.accumulation,
            plural(u128::from(after.accumulation)),
            after.samples,
            plural(u128::from(after.samples)),
        ));
    }
    if after.tokens != before.tokens {
        parts.push(format!(
            "{} tokens {} instead of {}",
            u64::try_from(after.tokens).map_or_else(|_| after.tokens.to_string(), group_thousands),
            if after.inference {
                "at once"
            } else {
                "per micro-step"
            },
            u64::try_from(before.tokens)
                .map_or_else(|_| before.tokens.to_string(), group_thousands),
        ));
    }
    if cost.tokens_lost() > 0 {
        let lost = cost.tokens_lost();
        parts.push(format!(
            "{} fewer {} per optimizer step",
            u64::try_from(lost).map_or_else(|_| lost.to_string(), group_thousands),
            if after.tokens > 0 {
                "tokens"
            } else {
                "samples"
            },
        ));
    }
    parts.join("; ")
}

fn change_name(change: Change) -> String {
    match change {
        Change::Zero3 { gpus } => format!("zero3_{gpus}_gpus"),
        Change::Tp { tp } => format!("tp_{tp}"),
        other => other.name().to_owned(),
    }
}

fn change_label(change: Change) -> String {
    match change {
        Change::HalfBatch => "with half the batch".to_owned(),
        Change::Checkpointing => "with gradient checkpointing".to_owned(),
        Change::Bf16 => "in BF16 instead of FP32".to_owned(),
        Change::Zero3 { gpus } => format!("with ZeRO-3 over {gpus} GPUs"),
        Change::Tp { tp } => format!("with tensor parallelism over {tp} GPUs"),
        Change::HalfSeq => "with half the sequence length".to_owned(),
        Change::Lora => "with LoRA r=16 over a frozen 16-bit base".to_owned(),
        Change::Qlora => "with QLoRA (NF4 base, double quantization)".to_owned(),
        Change::Fp8Kv => "with an FP8 KV cache".to_owned(),
    }
}

fn phase_label(phase: Phase) -> &'static str {
    match phase {
        Phase::Forward => "end of the forward pass",
        Phase::Backward => "the backward pass",
        Phase::OptimizerStep => "the optimizer step",
        Phase::Loss => "the loss: its logit-sized tensors and their gradients",
        Phase::Generation => "the end of generation: the whole KV cache and one decoding step",
        Phase::Prefill => "the prefill: the prompt's KV cache and working set",
    }
}

pub fn json(config: &Config) -> String {
    let e = memory::estimate(config);
    let report = Report {
        query: batchfit_core::query::to_query(config),
        form: config.form.name(),
        units: config.units.name(),
        parameters: e.parameters,
        active_parameters: e.active_parameters,
        trainable_parameters: memory::profile(config).trainable,
        weights: e.weights,
        gradients: e.gradients,
        optimizer_states: e.optimizer_states,
        optimizer_step: e.optimizer_step,
        buffers: e.buffers,
        kv_cache: e.kv_cache,
        activations: e.activations,
        activations_per_sample: e.activations_per_sample,
        total: e.total,
        overhead: e.overhead,
        required: e.required,
        peak_allocated: e.peak_allocated,
        peak_reserved: e.peak_reserved,
        nvidia_smi: e.nvidia_smi,
        peak_phase: e.peak_phase.name(),
        at_peak: e.at_peak.into(),
        allocator_cache: e.allocator_cache(),
        margin_bytes: e.margin_bytes(),
        cpu_memory: (e.cpu_memory > 0).then_some(e.cpu_memory),
        optimizer_may_spill: e.optimizer_may_spill,
        device_bytes: config.device.map(|d| d.bytes()),
        usable_bytes: e.device_bytes,
        fits: e.fits,
        max_batch: e.max_batch,
        max_seq: memory::max_seq(config),
        accumulation_steps: e.accumulation_steps,
        gpus_needed: memory::gpus_needed(config),
        gpus_needed_total: memory::gpus_needed(config).map(|n| memory::total_gpus(config, n)),
        job_gpus: memory::total_gpus(config, dp_of(config)),
        stages: memory::stages(config).iter().map(StageRow::from).collect(),
        sweep: memory::sweep(config).iter().map(Row::from).collect(),
        what_ifs: memory::what_ifs(config)
            .iter()
            .map(|w| WhatIfRow {
                change: change_name(w.change),
                query: batchfit_core::query::to_query(&w.config),
                required: w.required,
                fits: w.fits,
                costs: w.cost(config).into(),
            })
            .collect(),
        warnings: hardware::warnings(config)
            .into_iter()
            .map(|w| WarningRow {
                name: w.name(),
                message: warning_text(w),
            })
            .collect(),
        serving: serving::plan(config).map(|plan| crate::serving::Row::of(config, &plan)),
        fixes: advice::fixes(config)
            .into_iter()
            .map(|a| FixRow {
                levers: a.fix.levers.iter().map(|&l| l.into()).collect(),
                query: batchfit_core::query::to_query(&a.fix.config),
                required: a.fix.estimate.required,
                fits_pessimistic: a.fits_pessimistic,
                cpu_memory: a.fix.estimate.cpu_memory,
                host_memory: a.host_memory,
                costs: a.fix.cost.into(),
            })
            .collect(),
        timeline: memory::timeline(config)
            .into_iter()
            .map(|p| TimelineRow {
                phase: p.moment.name(),
                layer: p.layer,
                bytes: p.bytes.into(),
                total: p.bytes.sum(),
            })
            .collect(),
        confidence: confidence_row(config, &e),
    };
    serde_json::to_string_pretty(&report)
        .expect("a struct of strings, integers and booleans serializes")
}

/// The tensor-parallel degree each data-parallel rank spans.
fn dp_of(config: &Config) -> u64 {
    match config.form {
        Form::Transformer => config.transformer.gpus,
        Form::Activations | Form::Parameters => 1,
    }
}

/// "4 data-parallel ranks × tensor parallel 4 × pipeline parallel 2 = 32
/// GPUs", or "4 data-parallel GPUs" when no other degree is above 1.
fn split(config: &Config, ranks: u64) -> String {
    let t = &config.transformer;
    let degrees: Vec<String> = [("tensor", t.tp), ("pipeline", t.pp), ("context", t.cp)]
        .into_iter()
        .filter(|&(_, degree)| degree > 1 && config.form == Form::Transformer)
        .map(|(name, degree)| format!(" × {name} parallel {degree}"))
        .collect();
    if degrees.is_empty() {
        format!("{ranks} data-parallel GPUs")
    } else {
        format!(
            "{ranks} data-parallel ranks{} = {} GPUs",
            degrees.concat(),
            memory::total_gpus(config, ranks)
        )
    }
}

/// A component's label in the breakdown.
fn label(component: Component) -> &'static str {
    match component {
        Component::Weights => "Weights",
        Component::Gradients => "Gradients",
        Component::OptimizerStates => "Optimizer states",
        Component::OptimizerStep => "Optimizer step buffers",
        Component::Buffers => "Framework buffers",
        Component::KvCache => "KV cache",
        Component::Activations => "Activations",
        Component::AllocatorCache => "Allocator cache",
        Component::Overhead => "Overhead (CUDA context…)",
        Component::Margin => "Margin",
    }
}

/// Why a term's own size is more than what of it is alive at the peak.
fn not_at_peak(component: Component, alive: bool, partly: bool) -> &'static str {
    match (component, alive) {
        (Component::Gradients, true) if partly => {
            "created during the backward pass: those of the layers it has not reached come after the peak"
        }
        (Component::Gradients, true) => {
            "created during the backward pass, after the activations are freed"
        }
        (Component::OptimizerStep, true) => {
            "exists only inside optimizer.step(), after the backward pass"
        }
        (Component::OptimizerStep, false) => "runs inside the backward pass, with the activations",
        (Component::Weights, false) => "autocast's 16-bit copies are freed with the activations",
        (Component::KvCache, true) => {
            "the prompt's share: the generated tokens are cached after the prefill's peak"
        }
        _ => "freed by the backward pass before the gradients peak",
    }
}

/// The device as people call it: the preset's name, or "80 GB device".
pub fn device_name(device: Device) -> String {
    match device {
        Device::Preset(preset) => preset.name.to_owned(),
        Device::Custom { hundredths_gb } => {
            format!("{} GB device", format_hundredths(hundredths_gb))
        }
    }
}

fn describe(config: &Config, e: &Estimate) -> String {
    match config.form {
        Form::Activations => {
            let input = &config.activations;
            let checkpointing = if input.checkpointing {
                "gradient checkpointing (√layers layers kept)"
            } else {
                "no checkpointing"
            };
            format!(
                "Activations rule of thumb: batch × seq × hidden × layers × bytes × k\n\
                 batch {}, seq {}, hidden {}, layers {}, {} ({} bytes), k = {}, {checkpointing}\n",
                input.batch,
                input.seq,
                input.hidden,
                input.layers,
                input.precision,
                input.precision.bytes(),
                format_hundredths(input.k.hundredths()),
            )
        }
        Form::Parameters => {
            let input = &config.parameters;
            format!(
                "Parameters rule: {} parameters, {} weights, optimizer {}, batch {}, {} MB of activations per sample\n",
                group_bytes(u128::from(input.params)),
                input.precision,
                input.optimizer.name(),
                input.batch,
                format_hundredths(input.act_mb),
            )
        }
        Form::Transformer => {
            let t = &config.transformer;
            let a = &t.arch;
            let model = config.model.map_or("custom architecture".to_owned(), |m| {
                format!("{} ({})", m.name, m.id)
            });
            let mut text = format!(
                "Transformer: {model}, {} parameters\n\
                 {} layers, hidden {}, {} heads ({} KV), ffn {} {}, vocab {}\n",
                group_bytes(e.parameters),
                a.layers,
                a.hidden,
                a.heads,
                a.kv_heads,
                a.ffn,
                a.mlp.name(),
                a.vocab,
            );
            if a.moe() {
                text.push_str(&format!(
                    "mixture of experts: {} active parameters; {} routed experts of ffn {} (top {}), {} shared, in {} of {} layers; expert parallel {}, expert tensor parallel {}\n",
                    group_bytes(e.active_parameters),
                    a.experts,
                    a.expert_width(),
                    a.routed_per_token(),
                    a.shared_experts,
                    a.moe_layers(),
                    a.layers,
                    t.ep,
                    t.expert_tp(),
                ));
            }
            text.push_str(&match t.mode {
                Mode::Train => format!(
                    "training: {} × {} tokens per GPU, recipe {}, optimizer {} (step {}), recompute {}, attention {}, loss {}\n",
                    t.batch,
                    t.tokens(),
                    t.recipe.name(),
                    t.optimizer.name(),
                    t.effective_step().name(),
                    t.recompute.name(),
                    t.attention.name(),
                    t.loss.name(),
                ),
                Mode::Inference if t.framework.engine() => {
                    let cache = if t.arch.mla() && t.kv_layout == transformer::KvLayout::Latent {
                        "the latent"
                    } else {
                        "keys and values"
                    };
                    let (engine, plan) = if t.framework == transformer::Framework::Sglang {
                        (
                            "SGLang",
                            format!("the weights and a KV-cache pool of {cache} in a static share of the memory"),
                        )
                    } else {
                        (
                            "vLLM (V1 engine)",
                            format!("a KV-cache pool in blocks of {cache}"),
                        )
                    };
                    format!(
                        "served by {engine}: {plan}, weights {}, KV cache {}\n",
                        t.quant.name(),
                        t.kv_dtype.name(),
                    )
                }
                Mode::Inference => format!(
                    "inference as transformers' generate() runs it (cache_implementation={}, kv_layout={}): {} × ({} prompt + {} generated) tokens per GPU, recipe {} (the model loaded in {} bits), quant {}, attention {}\n",
                    t.cache.name(),
                    t.kv_layout.name(),
                    t.batch,
                    t.tokens(),
                    t.generated,
                    t.recipe.name(),
                    t.activation_bytes() * 8,
                    t.quant.name(),
                    t.attention.name(),
                ),
            });
            if t.framework != transformer::Framework::Custom {
                text.push_str(&format!(
                    "framework profile: {} (docs/frameworks.md)\n",
                    t.framework.name()
                ));
            }
            if t.offload {
                text.push_str("optimizer state offloaded to CPU memory\n");
            }
            if t.logits != transformer::Logits::Fp32 && t.mode == Mode::Train {
                text.push_str(&format!(
                    "logits and their gradient in {}\n",
                    t.logits.name()
                ));
            }
            if t.lora() {
                let adapters = transformer::Adapters::of(t);
                text.push_str(&format!(
                    "{} r = {} on {} ({} adapter parameters, FP32) over a frozen base{}\n",
                    match t.lora_variant {
                        transformer::LoraVariant::Lora => "LoRA",
                        transformer::LoraVariant::Dora => "DoRA",
                    },
                    t.lora_rank,
                    t.lora_targets.name(),
                    group_bytes(adapters.parameters),
                    if t.quantized() {
                        let double = if t.double_quant {
                            ", double-quantized"
                        } else {
                            ""
                        };
                        let prepared = if t.kbit_prepared() {
                            "; embedding, head and norms FP32 (prepare_model_for_kbit_training)"
                        } else {
                            ""
                        };
                        format!(" in {}{double}{prepared}", t.base_quant.name())
                    } else {
                        String::new()
                    }
                ));
            }
            if t.zero_grad == transformer::ZeroGrad::Zeros && t.mode == Mode::Train {
                text.push_str(
                    "gradients zero-filled between steps (zero_grad(set_to_none=False), Megatron's gradient buffer): alive at the loss\n",
                );
            }
            if t.reentrant && t.recompute == transformer::Recompute::Full && t.mode == Mode::Train {
                text.push_str(
                    "reentrant checkpoint (use_reentrant=True): the rerun's output kept through each layer's backward\n",
                );
            }
            if transformer::dummy_wgrads(t, transformer::Ends::WHOLE) > 0 {
                text.push_str(
                    "gradient-accumulation fusion with Transformer Engine: one cached BF16 dummy weight gradient per weight shape, alive for the run\n",
                );
            }
            if !t.grad_accum_fusion {
                text.push_str(
                    "no gradient-accumulation fusion (--no-gradient-accumulation-fusion): each weight's BF16 gradient alive until the FP32 buffer takes it\n",
                );
            }
            if t.zero_grad_after_forward() {
                text.push_str(
                    "zero_grad() after the forward pass (Lightning's loop): the previous step's gradients alive through it\n",
                );
            }
            if e.kept_outputs > 0 {
                text.push_str(
                    "the loop keeps the model's output (outputs = model(...) through backward): its logits alive at every moment\n",
                );
            }
            if t.norm_kernel == transformer::NormKernel::Fused && t.mode == Mode::Train {
                text.push_str("fused norm kernels: each norm keeps its input only\n");
            }
            if t.compiled() {
                text.push_str(
                    "torch.compile: Inductor's partitioner recomputes element-wise tensors in the backward pass\n",
                );
            }
            if t.act_offload && t.mode == Mode::Train {
                text.push_str(
                    "saved activations offloaded to CPU memory (one layer's on the GPU)\n",
                );
            }
            if t.recipe == transformer::Recipe::Fsdp && t.mode == Mode::Train {
                text.push_str(&format!(
                    "FSDP2 all-gathers BF16 layers: the one computing + {} prefetched\n",
                    t.prefetch
                ));
            }
            if t.gpus > 1 || t.tp > 1 {
                let sp = if t.sp {
                    " with sequence parallelism"
                } else {
                    ""
                };
                text.push_str(&format!(
                    "{} data-parallel GPUs, ZeRO stage {}, tensor parallel {}{sp}\n",
                    t.gpus, t.zero, t.tp
                ));
            }
            if t.pp > 1 || t.cp > 1 {
                let stage = match t.pp_stage.index(t.pp) {
                    Some(i) => format!("stage {i}, as asked"),
                    None => "the stage that needs the most".to_owned(),
                };
                let chunks = if t.vpp > 1 {
                    format!(", {} chunks per rank", t.vpp)
                } else {
                    String::new()
                };
                text.push_str(&format!(
                    "pipeline parallel {} ({}, {} micro-batches{chunks}), context parallel {} ({}): {} GPUs in the job; the answer is {stage}\n",
                    t.pp,
                    t.pp_schedule.name(),
                    memory::microbatches(config),
                    t.cp,
                    t.cp_kind.name(),
                    memory::total_gpus(config, t.gpus),
                ));
            }
            text
        }
    }
}

pub fn text(config: &Config) -> String {
    let units = config.units;
    let e = memory::estimate(config);
    let mut out = describe(config, &e);
    // A serving engine plans its memory itself: the plan is the answer, and
    // generate()'s peak at a batch does not apply.
    if let Some(plan) = serving::plan(config) {
        crate::serving::text(&mut out, &plan, units);
        crate::serving::what_ifs_text(&mut out, config);
        for warning in hardware::warnings(config) {
            out.push_str(&format!("warning: {}\n", warning_text(warning)));
        }
        out.push_str(legend(units));
        return out;
    }
    out.push('\n');
    let p = e.at_peak;
    out.push_str(&format!(
        "Alive at the peak ({}):\n",
        phase_label(e.peak_phase)
    ));
    for component in Component::TENSORS {
        if p.of(component) > 0 {
            line(&mut out, label(component), p.of(component), units);
        }
    }
    line(&mut out, "= Peak allocated", e.peak_allocated, units);
    out.push_str("    what torch.cuda.max_memory_allocated() reports: the tensors alone.\n");
    line(
        &mut out,
        &format!("+ {}", label(Component::AllocatorCache)),
        e.allocator_cache(),
        units,
    );
    line(&mut out, "= Peak reserved", e.peak_reserved, units);
    out.push_str("    what torch.cuda.max_memory_reserved() reports.\n");
    line(
        &mut out,
        &format!("+ {}", label(Component::Overhead)),
        e.overhead,
        units,
    );
    line(&mut out, "= nvidia-smi", e.nvidia_smi, units);
    out.push_str("    what nvidia-smi shows for the process.\n");
    let margin = if config.margin > 0 {
        format!(" (+{}% margin)", format_hundredths(config.margin))
    } else {
        String::new()
    };
    if e.margin_bytes() > 0 {
        line(
            &mut out,
            &format!("+ {}", label(Component::Margin)),
            e.margin_bytes(),
            units,
        );
    }
    line(&mut out, &format!("= Required{margin}"), e.required, units);
    let missing: Vec<_> = Component::TENSORS
        .into_iter()
        .filter(|&c| e.own(c) > p.of(c))
        .collect();
    if !missing.is_empty() {
        out.push_str("\nNot (all) alive at the peak, with each term's own size:\n");
        for component in missing {
            line(&mut out, label(component), e.own(component), units);
            out.push_str(&format!(
                "    {}\n",
                not_at_peak(component, p.activations_alive, p.of(component) > 0)
            ));
        }
    }
    out.push('\n');
    line(
        &mut out,
        "Activations per sample",
        e.activations_per_sample,
        units,
    );
    if e.cpu_memory > 0 {
        line(&mut out, "CPU memory (offload)", e.cpu_memory, units);
    }
    if e.optimizer_may_spill {
        out.push_str(
            "Optimizer states: paged (CUDA unified memory): counted on the GPU in full, they may spill to CPU under pressure.\n",
        );
    }
    for warning in hardware::warnings(config) {
        out.push_str(&format!("warning: {}\n", warning_text(warning)));
    }

    confidence_text(&mut out, config, &e);
    if let (Some(device), Some(bytes), Some(fits), Some(max_batch)) =
        (config.device, e.device_bytes, e.fits, e.max_batch)
    {
        let name = device_name(device);
        // A job on several GPUs: the estimate is one GPU's, as the page's
        // headline says ("fits on each of 32 × …").
        let gpus = memory::job_gpus(config);
        let name = if gpus > 1 {
            format!("Each of {gpus} × {name}")
        } else {
            name.to_owned()
        };
        // What a process can allocate, beside nvidia-smi's total where the
        // driver keeps some of it (docs/model.md §4).
        let total = device.bytes();
        let capacity = if total == bytes {
            size(bytes, units)
        } else {
            format!("{} usable of {}", size(bytes, units), size(total, units))
        };
        out.push_str(&format!(
            "\n{name}: {capacity} — {}. Largest batch that fits: {}.\n",
            if fits { "fits" } else { "does not fit" },
            if max_batch == 0 {
                "none, not even 1".to_owned()
            } else {
                max_batch.to_string()
            },
        ));
        if let Some(fit) = confidence::fit(config, &e) {
            out.push_str(&format!(
                "In validation: {}, {}.\n",
                verdict_words(fit.verdict(bytes)),
                fit_ends(&fit, units)
            ));
        }
        if let Some(seq) = memory::max_seq(config) {
            let what =
                if config.form == Form::Transformer && config.transformer.mode == Mode::Inference {
                    "Longest context (prompt + generated) that fits"
                } else {
                    "Longest sequence that fits"
                };
            let batch = config.batch();
            out.push_str(&format!(
                "{what} at batch {batch}: {}.\n",
                if seq == 0 {
                    "none, not even 1 token".to_owned()
                } else {
                    format!("{} tokens", group_thousands(seq))
                }
            ));
        }
        if let Some(gpus) = memory::gpus_needed(config).filter(|&n| !fits && n > 1) {
            let ranks = split(config, gpus);
            out.push_str(&format!(
                "Fits with {ranks} at ZeRO stage {}.\n",
                config.transformer.zero
            ));
        }
        if !fits {
            for what_if in memory::what_ifs(config) {
                let verdict = if what_if.fits == Some(true) {
                    "fits"
                } else {
                    "still too big"
                };
                out.push_str(&format!(
                    "  {}: {} required, {verdict}\n",
                    change_label(what_if.change),
                    size(what_if.required, units)
                ));
                let costs = cost_text(&what_if.cost(config), units);
                if !costs.is_empty() {
                    out.push_str(&format!("    costs: {costs}\n"));
                }
            }
            let advice = advice::fixes(config);
            if !advice.is_empty() {
                out.push_str("Smallest changes that fit, the least costly first (those that fit even at the pessimistic end first):\n");
            }
            for (n, a) in advice.iter().enumerate() {
                let fix = &a.fix;
                let levers: Vec<String> = fix
                    .levers
                    .iter()
                    .map(|&l| lever_label(l, fix.cost.after.inference))
                    .collect();
                out.push_str(&format!(
                    "  {}. {}: {} required{}\n",
                    n + 1,
                    levers.join(" + "),
                    size(fix.estimate.required, units),
                    if a.fits_pessimistic {
                        ""
                    } else {
                        ", fits only at the optimistic end"
                    }
                ));
                if a.host_memory > 0 {
                    out.push_str(&format!(
                        "    needs {} of host RAM{}\n",
                        size(a.host_memory, units),
                        if config.host_gb == 0 {
                            " (give host_gb to bound the advice)"
                        } else {
                            ""
                        }
                    ));
                }
                let costs = cost_text(&fix.cost, units);
                if !costs.is_empty() {
                    out.push_str(&format!("    costs: {costs}\n"));
                }
                out.push_str(&format!(
                    "    query: {}\n",
                    batchfit_core::query::to_query(&fix.config)
                ));
            }
        }
    }
    if let Some(steps) = e.accumulation_steps {
        out.push_str(&format!(
            "\nGradient accumulation: {steps} steps to reach a global batch of {}.\n",
            config.global_batch
        ));
    }
    out.push_str("\n  batch   model states    activations          total       required\n");
    for row in memory::sweep(config) {
        out.push_str(&format!(
            "  {:>5} {:>14} {:>14} {:>14} {:>14}\n",
            row.batch,
            size(row.model_states, units),
            size(row.activations, units),
            size(row.total, units),
            size(row.required, units)
        ));
    }
    out.push_str(legend(units));
    out
}

/// The unit the text's sizes are in.
fn legend(units: Units) -> &'static str {
    match units {
        Units::Decimal => "\nGB = 10^9 bytes.",
        Units::Binary => "\nGiB = 2^30 bytes.",
    }
}

#[derive(Serialize)]
struct PresetList {
    models: Vec<ModelRow>,
    devices: Vec<DeviceRow>,
}

#[derive(Serialize)]
struct ModelRow {
    id: &'static str,
    name: &'static str,
    published: &'static str,
    parameters: u128,
    /// A mixture of experts' active parameters, as counted and as published.
    active_parameters: u128,
    published_active: &'static str,
    source: &'static str,
}

#[derive(Serialize)]
struct DeviceRow {
    id: &'static str,
    name: &'static str,
    bytes: u128,
    /// What a process can allocate (docs/model.md §4).
    usable_bytes: u128,
    source: &'static str,
}

pub fn presets(json: bool) -> String {
    let models: Vec<ModelRow> = presets::MODELS
        .iter()
        .map(|m| ModelRow {
            id: m.id,
            name: m.name,
            published: m.published,
            parameters: transformer::parameter_count(&m.arch).total,
            active_parameters: transformer::parameter_count(&m.arch).active,
            published_active: m.published_active,
            source: m.source,
        })
        .collect();
    let devices: Vec<DeviceRow> = presets::DEVICES
        .iter()
        .map(|d| DeviceRow {
            id: d.id,
            name: d.name,
            bytes: d.bytes,
            usable_bytes: d.usable_bytes(),
            source: d.source,
        })
        .collect();
    if json {
        return serde_json::to_string_pretty(&PresetList { models, devices })
            .expect("strings and integers serialize");
    }
    let mut out = String::from("Models (model=ID in form=transformer):\n");
    for m in &models {
        out.push_str(&format!(
            "  {:<14} {:<18} {:>16} parameters (published {})\n",
            m.id,
            m.name,
            group_bytes(m.parameters),
            m.published
        ));
    }
    out.push_str("\nDevices (gpu=ID): the total as the driver reports it, and what a process can allocate:\n");
    for d in &devices {
        out.push_str(&format!(
            "  {:<12} {:<30} {:>12} = {:>8} MiB, usable {:>8} MiB\n",
            d.id,
            d.name,
            size(d.bytes, Units::Decimal),
            group_bytes(d.bytes >> 20),
            group_bytes(d.usable_bytes >> 20)
        ));
    }
    out
}
