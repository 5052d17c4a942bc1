//! The ways the CLI prints: text for people, JSON for scripts. Every number comes
//! from batchfit-core; this module only lays them out.

use batchfit_core::fields::{format_hundredths, group_thousands};
use batchfit_core::memory::{self, AtPeak, Change, Estimate, Phase, SweepRow};
use batchfit_core::presets::{self, Device};
use batchfit_core::query::{Config, Form};
use batchfit_core::transformer::{self, Mode};
use batchfit_core::units::{self, Units};
use serde::Serialize;

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
    #[serde(skip_serializing_if = "Option::is_none")]
    device_bytes: Option<u128>,
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
    /// The step, point by point: its largest `total` is `peak_allocated`.
    timeline: Vec<TimelineRow>,
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

#[derive(Serialize)]
struct AtPeakRow {
    weights: u128,
    gradients: u128,
    optimizer_states: u128,
    optimizer_step: u128,
    buffers: u128,
    kv_cache: u128,
    activations: u128,
}

impl From<AtPeak> for AtPeakRow {
    fn from(p: AtPeak) -> Self {
        Self {
            weights: p.weights,
            gradients: p.gradients,
            optimizer_states: p.optimizer_states,
            optimizer_step: p.optimizer_step,
            buffers: p.buffers,
            kv_cache: p.kv_cache,
            activations: p.activations,
        }
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
}

fn change_name(change: Change) -> String {
    match change {
        Change::Zero3 { gpus } => format!("zero3_{gpus}_gpus"),
        other => other.name().to_owned(),
    }
}

fn change_label(change: Change) -> String {
    match change {
        Change::HalfBatch => "with half the batch".to_owned(),
        Change::Checkpointing => "with gradient checkpointing".to_owned(),
        Change::Bf16 => "in BF16 instead of FP32".to_owned(),
        Change::Zero3 { gpus } => format!("with ZeRO-3 over {gpus} GPUs"),
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
        Phase::Loss => "the loss: its log-softmax and the logits' gradients",
        Phase::Generation => "generation: the prefill",
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
        trainable_parameters: trainable(config, &e),
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
        device_bytes: e.device_bytes,
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
                required: w.estimate.required,
                fits: w.estimate.fits,
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
    };
    serde_json::to_string_pretty(&report)
        .expect("a struct of strings, integers and booleans serializes")
}

/// Parameters that train: none in inference or without an optimizer, the
/// adapters with LoRA, else every one.
fn trainable(config: &Config, e: &Estimate) -> u128 {
    let t = &config.transformer;
    match config.form {
        Form::Transformer if t.mode == Mode::Inference => 0,
        Form::Transformer if t.lora() => transformer::Adapters::of(t).total,
        Form::Parameters if e.gradients == 0 => 0,
        Form::Transformer | Form::Parameters => e.parameters,
        Form::Activations => 0,
    }
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

/// Why a term's own size is more than what of it is alive at the peak.
fn not_at_peak(term: &str, alive: bool) -> &'static str {
    match (term, alive) {
        ("gradients", true) => "created during the backward pass, after the activations are freed",
        ("optimizer_step", true) => "exists only inside optimizer.step(), after the backward pass",
        ("optimizer_step", false) => "runs inside the backward pass, with the activations",
        ("weights", false) => "autocast's 16-bit copies are freed with the activations",
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

pub fn size(bytes: u128, units: Units) -> String {
    units::format_bytes(bytes, units)
}

fn group_bytes(bytes: u128) -> String {
    u64::try_from(bytes).map_or_else(|_| bytes.to_string(), group_thousands)
}

fn line(out: &mut String, label: &str, bytes: u128, units: Units) {
    out.push_str(&format!(
        "  {label:<28}{:>14}   ({} bytes)\n",
        size(bytes, units),
        group_bytes(bytes)
    ));
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
                    "mixture of experts: {} active parameters; {} routed experts of ffn {} (top {}), {} shared, in {} of {} layers; expert parallel {}\n",
                    group_bytes(e.active_parameters),
                    a.experts,
                    a.expert_width(),
                    a.routed_per_token(),
                    a.shared_experts,
                    a.moe_layers(),
                    a.layers,
                    t.ep,
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
                Mode::Inference => format!(
                    "inference: {} × ({} prompt + {} generated) tokens per GPU, recipe {}, weights {}, attention {}\n",
                    t.batch,
                    t.tokens(),
                    t.generated,
                    t.recipe.name(),
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
                        format!(" in {}{double}", t.base_quant.name())
                    } else {
                        String::new()
                    }
                ));
            }
            if t.zero_grad == transformer::ZeroGrad::Zeros && t.mode == Mode::Train {
                text.push_str(
                    "gradients zero-filled between steps (zero_grad(set_to_none=False)): alive at the loss\n",
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
    out.push('\n');
    let p = e.at_peak;
    out.push_str(&format!(
        "Alive at the peak ({}):\n",
        phase_label(e.peak_phase)
    ));
    let terms = [
        ("weights", "Weights", p.weights, e.weights),
        ("gradients", "Gradients", p.gradients, e.gradients),
        (
            "optimizer_states",
            "Optimizer states",
            p.optimizer_states,
            e.optimizer_states,
        ),
        (
            "optimizer_step",
            "Optimizer step buffers",
            p.optimizer_step,
            e.optimizer_step,
        ),
        ("buffers", "Framework buffers", p.buffers, e.buffers),
        ("kv_cache", "KV cache", p.kv_cache, e.kv_cache),
        ("activations", "Activations", p.activations, e.activations),
    ];
    for &(_, label, alive, _) in &terms {
        if alive > 0 {
            line(&mut out, label, alive, units);
        }
    }
    line(&mut out, "= Peak allocated", e.peak_allocated, units);
    out.push_str("    what torch.cuda.max_memory_allocated() reports: the tensors alone.\n");
    line(&mut out, "+ Allocator cache", e.allocator_cache(), units);
    line(&mut out, "= Peak reserved", e.peak_reserved, units);
    out.push_str("    what torch.cuda.max_memory_reserved() reports.\n");
    line(&mut out, "+ Overhead (CUDA context…)", e.overhead, units);
    line(&mut out, "= nvidia-smi", e.nvidia_smi, units);
    out.push_str("    what nvidia-smi shows for the process.\n");
    let margin = if config.margin > 0 {
        format!(" (+{}% margin)", format_hundredths(config.margin))
    } else {
        String::new()
    };
    if e.margin_bytes() > 0 {
        line(&mut out, "+ Margin", e.margin_bytes(), units);
    }
    line(&mut out, &format!("= Required{margin}"), e.required, units);
    let missing: Vec<_> = terms
        .iter()
        .filter(|&&(_, _, alive, own)| own > alive)
        .collect();
    if !missing.is_empty() {
        out.push_str("\nNot (all) alive at the peak, with each term's own size:\n");
        for &&(term, label, _, own) in &missing {
            line(&mut out, label, own, units);
            out.push_str(&format!("    {}\n", not_at_peak(term, p.activations_alive)));
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
    if let (Some(device), Some(bytes), Some(fits), Some(max_batch)) =
        (config.device, e.device_bytes, e.fits, e.max_batch)
    {
        let name = device_name(device);
        out.push_str(&format!(
            "\n{name}: {} — {}. Largest batch that fits: {}.\n",
            size(bytes, units),
            if fits { "fits" } else { "does not fit" },
            if max_batch == 0 {
                "none, not even 1".to_owned()
            } else {
                max_batch.to_string()
            },
        ));
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
                let verdict = if what_if.estimate.fits == Some(true) {
                    "fits"
                } else {
                    "still too big"
                };
                out.push_str(&format!(
                    "  {}: {} required, {verdict}\n",
                    change_label(what_if.change),
                    size(what_if.estimate.required, units)
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
    out.push_str(match units {
        Units::Decimal => "\nGB = 10^9 bytes.",
        Units::Binary => "\nGiB = 2^30 bytes.",
    });
    out
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
    out.push_str("\nDevices (gpu=ID):\n");
    for d in &devices {
        out.push_str(&format!(
            "  {:<12} {:<30} {:>12} = {:>8} MiB\n",
            d.id,
            d.name,
            size(d.bytes, Units::Decimal),
            group_bytes(d.bytes >> 20)
        ));
    }
    out
}
