//! The smallest change that fits (issue 16): the levers searched together,
//! and what each change costs besides memory (docs/model.md §5, "The
//! smallest change that fits" and "What a change costs").
//!
//! [`fixes`] tries sets of lever kinds, fewest first: each set at its
//! strongest settings (batch 1, full recomputation, QLoRA, ZeRO-3 over every
//! GPU allowed, …), and where that fits, each lever relaxed in turn to the
//! cheapest setting that still fits (the largest batch, the fewest GPUs, the
//! longest sequence: the exact searches of [`super`]). A fix is kept only when
//! its estimate fits and no lever can be undone with the rest still fitting.
//!
//! [`profile`] and [`cost`] give a configuration's step in first-order
//! figures (FLOPs, PCIe bytes, GPUs, trainable parameters, tokens), for the
//! fixes and for every [`WhatIf`].

use super::{
    Estimate, Parts, WhatIf, accumulation_steps, estimate, largest, required, smallest, total_gpus,
    with_adapters,
};
use crate::Precision;
use crate::parameters;
use crate::query::{Config, Form, rules};
use crate::transformer::{
    self, Adapters, BaseQuant, GPUS, Kind, KvDtype, Mode, Optimizer, Recipe, Recompute,
    RecomputeModules, Step, TransformerInput,
};

/// At most this many fixes are returned, the least costly first.
pub const FIXES: usize = 5;

/// At most this many levers are changed together.
pub const MAX_LEVERS: usize = 4;

/// Host ↔ device bandwidth for the offloads' traffic, bytes per second:
/// PCIe 4.0 ×16, the link of A100 and of most H100 PCIe hosts, carries
/// 16 GT/s × 16 lanes with 128b/130b encoding, 31.5 GB/s per direction (PCI-SIG,
/// PCI Express Base Specification 4.0); copies from pinned memory reach about
/// 80 % of that (NVIDIA CUDA samples' `bandwidthTest` reports 24–26 GB/s on
/// such hosts). 25 GB/s is that effective rate, one direction at a time: a
/// first-order time, not a measurement of any host.
pub const PCIE_BYTES_PER_SECOND: u128 = 25_000_000_000;

/// One change of a fix, with its setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lever {
    /// The longest shorter sequence (the prompt in inference) that fits:
    /// changes the task.
    Seq { seq: u64 },
    /// LoRA adapters over a frozen 16-bit base (PEFT `LoraConfig(r)`):
    /// changes what is trained.
    Lora { rank: u64 },
    /// QLoRA: the frozen base in NF4 with double quantization under the
    /// adapters: changes what is trained, and the base's numbers.
    Qlora { rank: u64 },
    /// ZeRO stage `stage` over `gpus` data-parallel ranks (each of `tp` GPUs):
    /// training only.
    Zero { stage: u8, gpus: u64 },
    /// Tensor parallelism over `tp` GPUs: inference's way to more GPUs
    /// (each holds 1/tp of the weights and of the KV cache's heads).
    Tp { tp: u64 },
    /// Parameters, gradients and the optimizer step in CPU memory.
    ParamOffload,
    /// Optimizer state and step in CPU memory (ZeRO-Offload).
    Offload,
    /// Saved activations in CPU memory.
    ActOffload,
    /// Selective recomputation: the attention core (the transformer form).
    SelectiveRecompute,
    /// Full recomputation: every layer from its input (the transformer form).
    FullRecompute,
    /// Gradient checkpointing (the activations form's `ckpt`).
    Checkpointing,
    /// A smaller micro-batch; in training the global batch is kept by
    /// gradient accumulation (`global_batch`).
    Batch { batch: u64 },
    /// The pure BF16 recipe (BF16 instead of FP32 in the napkin forms).
    Bf16,
    /// bitsandbytes' 8-bit AdamW instead of AdamW.
    Adam8bit,
    /// An FP8 KV cache in inference.
    Fp8Kv,
}

impl Lever {
    /// A stable name, for machines (the CLI's JSON).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Seq { .. } => "seq",
            Self::Lora { .. } => "lora",
            Self::Qlora { .. } => "qlora",
            Self::Zero { .. } => "zero",
            Self::Tp { .. } => "tp",
            Self::ParamOffload => "param_offload",
            Self::Offload => "offload",
            Self::ActOffload => "act_offload",
            Self::SelectiveRecompute => "selective_recompute",
            Self::FullRecompute => "full_recompute",
            Self::Checkpointing => "checkpointing",
            Self::Batch { .. } => "batch",
            Self::Bf16 => "bf16",
            Self::Adam8bit => "adam8bit",
            Self::Fp8Kv => "fp8_kv",
        }
    }

    /// The lever changes the task: a shorter sequence sees less context,
    /// adapters train other weights than full fine-tuning.
    pub const fn changes_task(self) -> bool {
        matches!(
            self,
            Self::Seq { .. } | Self::Lora { .. } | Self::Qlora { .. }
        )
    }

    /// The lever changes the number formats the step computes or stores in
    /// (pure BF16 weights and states, 8-bit moments, a 4-bit base, an FP8
    /// cache): no first-order cost figure, counted after the others.
    const fn changes_numerics(self) -> bool {
        matches!(
            self,
            Self::Bf16 | Self::Adam8bit | Self::Qlora { .. } | Self::Fp8Kv
        )
    }

    /// `config` with this lever applied; `original` is the configuration
    /// being fixed (the global batch a smaller batch keeps).
    fn apply(self, config: &mut Config, original: &Config) {
        let t = &mut config.transformer;
        match self {
            Self::Seq { seq } => (config.activations.seq, t.seq) = (seq, seq),
            Self::Lora { .. } => *config = with_adapters(config, BaseQuant::None),
            Self::Qlora { .. } => *config = with_adapters(config, BaseQuant::Nf4),
            Self::Zero { stage, gpus } => (t.zero, t.gpus) = (stage, gpus),
            Self::Tp { tp } => t.tp = tp,
            Self::ParamOffload => t.param_offload = true,
            Self::Offload => t.offload = true,
            Self::ActOffload => t.act_offload = true,
            Self::SelectiveRecompute => t.recompute = Recompute::Selective,
            Self::FullRecompute => t.recompute_each_layer(),
            Self::Checkpointing => config.activations.checkpointing = true,
            Self::Batch { batch } => {
                let inference = config.form == Form::Transformer && t.mode == Mode::Inference;
                *config = config.with_batch(batch);
                if !inference {
                    config.global_batch = global_batch(original);
                }
            }
            Self::Bf16 => match config.form {
                Form::Activations => config.activations.precision = Precision::Bf16,
                Form::Parameters => config.parameters.precision = Precision::Bf16,
                Form::Transformer => t.recipe = Recipe::Bf16,
            },
            Self::Adam8bit => t.optimizer = Optimizer::Adam8bit,
            Self::Fp8Kv => t.kv_dtype = KvDtype::Fp8,
        }
    }
}

/// The samples one optimizer step of `config` takes: the target global
/// batch, or without one the micro-batch on every data-parallel rank.
fn global_batch(config: &Config) -> u64 {
    if config.global_batch > 0 {
        config.global_batch
    } else {
        config.batch().saturating_mul(replicas(config))
    }
}

/// Every GPU of `config`'s job: its data-parallel ranks, each with its
/// model-parallel GPUs ([`total_gpus`]); 1 outside the transformer form.
pub fn job_gpus(config: &Config) -> u64 {
    total_gpus(config, replicas(config))
}

/// Data-parallel ranks.
fn replicas(config: &Config) -> u64 {
    match config.form {
        Form::Transformer => config.transformer.gpus,
        Form::Activations | Form::Parameters => 1,
    }
}

/// The tensor-parallel degrees above `t.tp` that inference can take, the
/// smallest first: in inference only, powers of two up to [`SERVING_TP`]
/// that divide the attention heads and the key-value heads. vLLM refuses
/// a degree that does not divide the heads (vllm/config.py
/// `ModelConfig.verify_with_parallel_config`: "Total number of attention
/// heads … must be divisible by tensor parallel size"); one above the
/// key-value heads replicates them, which the estimate does not count.
pub fn serving_tp(t: &TransformerInput) -> impl Iterator<Item = u64> {
    let inference = t.mode == Mode::Inference;
    let (heads, kv_heads) = (t.arch.heads.max(1), t.arch.kv_heads.max(1));
    (1..=SERVING_TP.ilog2())
        .map(|power| 1u64 << power)
        .filter(move |&tp| inference && tp > t.tp && heads % tp == 0 && kv_heads % tp == 0)
}

/// [`serving_tp`]'s degrees whose job stays within [`gpu_budget`].
fn tp_within_budget(config: &Config) -> impl Iterator<Item = u64> {
    let t = config.transformer;
    let (budget, per_degree) = (
        gpu_budget(config),
        t.gpus.saturating_mul(t.pp).saturating_mul(t.cp),
    );
    serving_tp(&config.transformer)
        .collect::<Vec<_>>()
        .into_iter()
        .filter(move |&tp| per_degree.saturating_mul(tp) <= budget)
}

/// The largest tensor-parallel degree inference's advice proposes: the
/// GPUs of one node joined by NVLink, over which tensor parallelism is run.
pub const SERVING_TP: u64 = 8;

/// `config` with `levers` applied, and what no longer applies beside them
/// reset as a link to it would be (query/rules.rs): under LoRA, Megatron's
/// gradient-accumulation fusion means nothing; under a pipeline, activation
/// offload does not apply, so that lever changes nothing there.
fn applied(original: &Config, levers: &[Lever]) -> Config {
    let mut config = *original;
    for lever in levers {
        lever.apply(&mut config, original);
    }
    rules::normalize(config)
}

/// What every fix must fit, as two tests of a changed configuration.
pub struct Target<'a> {
    /// The device alone: it prunes the search, optimistic about the host.
    pub device: &'a dyn Fn(&Config) -> bool,
    /// The device and the host's RAM: what every fix is checked against.
    pub fits: &'a dyn Fn(&Config) -> bool,
}

impl std::fmt::Debug for Target<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Target { device: <test>, fits: <test> }")
    }
}

/// Whether `config`'s estimate fits `device` bytes: its `required`, without
/// the rest of the estimate.
fn fits_device(config: &Config, device: u128) -> bool {
    required(Parts::of(config).reserved(config.batch()), config) <= device
}

/// Whether `cpu_memory` (one GPU's process) fits the host's RAM where the
/// query gives it (`host_gb`), with the job's other processes on the host.
pub fn fits_host(config: &Config, cpu_memory: u128) -> bool {
    config.host_gb == 0 || host_memory(config, cpu_memory) <= host_bytes(config)
}

/// The GPUs of one host: the job's processes beyond it run on other hosts.
/// Eight, the GPUs of a DGX or HGX node and of most cloud instances with
/// more than one.
pub const GPUS_PER_HOST: u64 = 8;

/// The host RAM the offloads need: `cpu_memory` (one GPU's process) for
/// each of the job's processes on one host ([`GPUS_PER_HOST`] at most).
pub fn host_memory(config: &Config, cpu_memory: u128) -> u128 {
    let processes = job_gpus(config).clamp(1, GPUS_PER_HOST);
    cpu_memory.saturating_mul(u128::from(processes))
}

/// `host_gb` in bytes.
fn host_bytes(config: &Config) -> u128 {
    u128::from(config.host_gb) * 10_000_000
}

/// The most GPUs a fix may take: `max_gpus`, or the job's own where it is
/// not given (or is fewer).
pub fn gpu_budget(config: &Config) -> u64 {
    job_gpus(config).max(config.max_gpus)
}

/// The lever kinds that apply to `config`, in the order they are relaxed:
/// the costliest first, so that it ends as close to the original as the
/// others allow. Each is given at its strongest setting.
fn strongest_levers(config: &Config) -> Vec<Lever> {
    let mut levers = Vec::new();
    let batch = config.batch();
    match config.form {
        Form::Activations => {
            let a = &config.activations;
            if a.seq > 1 {
                levers.push(Lever::Seq { seq: 1 });
            }
            if !a.checkpointing {
                levers.push(Lever::Checkpointing);
            }
            if batch > 1 {
                levers.push(Lever::Batch { batch: 1 });
            }
            if a.precision == Precision::Fp32 {
                levers.push(Lever::Bf16);
            }
        }
        Form::Parameters => {
            if batch > 1 {
                levers.push(Lever::Batch { batch: 1 });
            }
            if config.parameters.precision == Precision::Fp32 {
                levers.push(Lever::Bf16);
            }
        }
        Form::Transformer => {
            let t = &config.transformer;
            let train = t.mode == Mode::Train;
            if t.seq > 1 && t.arch.kind != Kind::Vision {
                levers.push(Lever::Seq { seq: 1 });
            }
            if train && t.base_quant == BaseQuant::None {
                let rank = if t.lora_rank > 0 { t.lora_rank } else { 16 };
                levers.push(Lever::Qlora { rank });
            }
            // The data-parallel ranks the GPU budget allows, in multiples
            // of what expert parallelism needs.
            let ep = t.gpus_multiple().max(1);
            let per_rank = t.tp.saturating_mul(t.pp).saturating_mul(t.cp).max(1);
            let most = (gpu_budget(config) / per_rank).min(GPUS.max) / ep * ep;
            if train && (most > t.gpus || (t.zero < 3 && t.gpus > 1)) {
                levers.push(Lever::Zero {
                    stage: 3,
                    gpus: most.max(t.gpus),
                });
            }
            if let Some(tp) = tp_within_budget(config).last() {
                levers.push(Lever::Tp { tp });
            }
            if train && !t.param_offload {
                levers.push(Lever::ParamOffload);
            }
            if train && !t.offload && !t.param_offload {
                levers.push(Lever::Offload);
            }
            if train && !t.act_offload {
                levers.push(Lever::ActOffload);
            }
            if train && (t.recompute != Recompute::Full || t.partial_recompute().is_some()) {
                levers.push(Lever::FullRecompute);
            }
            if batch > 1 {
                levers.push(Lever::Batch { batch: 1 });
            }
            if train && t.recipe != Recipe::Bf16 {
                levers.push(Lever::Bf16);
            }
            if train && t.optimizer == Optimizer::AdamW {
                levers.push(Lever::Adam8bit);
            }
            if !train && t.kv_dtype == KvDtype::Bf16 {
                levers.push(Lever::Fp8Kv);
            }
        }
    }
    levers
}

/// What relaxing one lever found: it is not needed (the others fit
/// without it), its cheapest setting that fits, or nothing fits.
enum Relaxed {
    Unneeded,
    To(Lever),
    Nothing,
}

/// The cheapest setting of `strongest`'s kind that fits with `others`
/// applied, weakest first; the strongest fits by the caller's check.
fn relax(strongest: Lever, others: &Config, original: &Config, target: &Target<'_>) -> Relaxed {
    let fits = target.fits;
    if fits(others) {
        return Relaxed::Unneeded;
    }
    let with = |lever: Lever| {
        let mut config = *others;
        lever.apply(&mut config, original);
        rules::normalize(config)
    };
    let found = match strongest {
        Lever::Batch { .. } => largest(1, original.batch() - 1, |batch| {
            fits(&with(Lever::Batch { batch }))
        })
        .map(|batch| Lever::Batch { batch }),
        Lever::Seq { .. } => {
            let now = match original.form {
                Form::Activations => original.activations.seq,
                Form::Parameters | Form::Transformer => original.transformer.seq,
            };
            largest(1, now - 1, |seq| fits(&with(Lever::Seq { seq }))).map(|seq| Lever::Seq { seq })
        }
        Lever::Zero { gpus: most, .. } => {
            let t = &original.transformer;
            // The fewest data-parallel ranks, in multiples of what expert
            // parallelism needs, at which ZeRO-3 fits.
            let ep = t.gpus_multiple().max(1);
            let zero3 = |groups: u64| {
                fits(&with(Lever::Zero {
                    stage: 3,
                    gpus: groups * ep,
                }))
            };
            smallest(t.gpus.div_ceil(ep), most / ep, zero3).and_then(|groups| {
                let gpus = (groups * ep).max(t.gpus);
                // The lowest stage that fits with them: ZeRO-3 moves 1.5
                // times the data of stages 1 and 2 per step (Rajbhandari et
                // al. 2020, §7.2).
                (t.zero.max(1)..=3)
                    .map(|stage| Lever::Zero { stage, gpus })
                    .find(|&lever| fits(&with(lever)))
            })
        }
        Lever::Tp { .. } => tp_within_budget(original)
            .map(|tp| Lever::Tp { tp })
            .find(|&lever| fits(&with(lever))),
        Lever::Lora { rank } | Lever::Qlora { rank } => {
            let lora = (original.transformer.lora_rank == 0).then_some(Lever::Lora { rank });
            lora.into_iter()
                .chain([Lever::Qlora { rank }])
                .find(|&lever| fits(&with(lever)))
        }
        Lever::FullRecompute => {
            let selective = (original.transformer.recompute == Recompute::None)
                .then_some(Lever::SelectiveRecompute);
            selective
                .into_iter()
                .chain([Lever::FullRecompute])
                .find(|&lever| fits(&with(lever)))
        }
        other => fits(&with(other)).then_some(other),
    };
    found.map_or(Relaxed::Nothing, Relaxed::To)
}

/// One combination of changes that makes a configuration fit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fix {
    /// The changes, in the order they were relaxed (the costliest kind first).
    pub levers: Vec<Lever>,
    /// The configuration with every change applied: `query::to_query` makes
    /// its link.
    pub config: Config,
    /// Its estimate: it fits.
    pub estimate: Estimate,
    /// What it costs besides memory, against the configuration fixed.
    pub cost: Cost,
}

impl Fix {
    /// Whether the fix offloads to a host whose RAM the user did not give
    /// (`host_gb` unknown): it may not fit there.
    pub fn needs_unknown_host(&self) -> bool {
        self.config.host_gb == 0 && self.estimate.cpu_memory > 0
    }

    /// The order of docs/model.md §5: fixes that keep the task and need no
    /// host RAM the user did not give (an offload with `host_gb` unknown may
    /// not fit the host) first; then the fewest tokens per optimizer step
    /// lost, those that need no unknown host RAM, those that keep the task,
    /// the fewest levers, the fewest GPUs added, (in inference) the fewest
    /// sequences at once lost, the least recomputation, the least PCIe
    /// traffic, the fewest changed number formats, the fewest micro-steps.
    fn rank(&self) -> Rank {
        let c = &self.cost;
        let unknown_host = self.needs_unknown_host();
        let changes_task = self.levers.iter().any(|l| l.changes_task());
        (
            changes_task || unknown_host,
            c.tokens_lost(),
            unknown_host,
            changes_task,
            self.levers.len(),
            c.extra_gpus(),
            c.sequences_lost(),
            c.recompute_share_bp(),
            c.after.pcie_bytes,
            self.levers.iter().filter(|l| l.changes_numerics()).count(),
            c.after.accumulation,
            self.levers.clone(),
        )
    }
}

/// [`Fix::rank`]'s key.
type Rank = (
    bool,
    u128,
    bool,
    bool,
    usize,
    u64,
    u64,
    u128,
    u128,
    usize,
    u64,
    Vec<Lever>,
);

/// The combinations of changes that make `config` fit its device, at most
/// [`FIXES`] of them and each of at most [`MAX_LEVERS`] levers, the least
/// costly first ([`Fix`]'s order). Empty when it fits already, without a
/// device, or when no combination searched fits. Every fix's estimate fits,
/// and undoing any one of its levers makes it not fit.
///
/// Sets of lever kinds are tried by size, those that keep the task before
/// those that change it (a shorter sequence, adapters); a larger size is
/// tried only while fewer than [`FIXES`] were found, or none of them needs
/// no host RAM the user did not give ([`Fix::needs_unknown_host`]), and none when the
/// tier's levers all at their strongest do not fit ([`could_fit`]: the
/// levers are taken to save memory together; a fix this misses is never a
/// wrong one).
/// Deterministic.
pub fn fixes(config: &Config) -> Vec<Fix> {
    let device = config.device.map_or(0, |d| d.usable_bytes());
    let on_device = |c: &Config| fits_device(c, device);
    let with_host = |c: &Config| {
        let parts = Parts::of(c);
        fits_device(c, device) && fits_host(c, parts.cpu_memory(c.batch()))
    };
    fixes_for(
        config,
        &Target {
            device: &on_device,
            fits: &with_host,
        },
    )
}

/// [`fixes`] against another target: every fix passes `target.fits`
/// (and fits its device by the estimate). Empty where `config` fits its
/// device by the estimate, or has none.
pub fn fixes_for(config: &Config, target: &Target<'_>) -> Vec<Fix> {
    let Some(device) = config.device.map(|d| d.usable_bytes()) else {
        return Vec::new();
    };
    if fits_device(config, device) {
        return Vec::new();
    }
    let kinds = strongest_levers(config);
    let mut found: Vec<Fix> = Vec::new();
    // Enough fixes found to stop: among them one that needs no host RAM the
    // user did not give, where the search can find one, so that the routes
    // that need none (LoRA, QLoRA, recomputation, a smaller micro-batch)
    // are searched too when offloads fill the first tiers.
    let enough =
        |found: &[Fix]| found.len() >= FIXES && found.iter().any(|f| !f.needs_unknown_host());
    // The sets of kinds (as indices into `kinds`) that gave a fix: a set
    // that contains one is not tried.
    let mut fitted: Vec<Vec<usize>> = Vec::new();
    for changing_task in [false, true] {
        let pool: Vec<usize> = (0..kinds.len())
            .filter(|&i| changing_task || !kinds[i].changes_task())
            .collect();
        let levers_of =
            |subset: &[usize]| -> Vec<Lever> { subset.iter().map(|&i| kinds[i]).collect() };
        if !could_fit(config, &levers_of(&pool), target) {
            continue;
        }
        for size in 1..=MAX_LEVERS.min(pool.len()) {
            for subset in subsets(pool.len(), size) {
                let subset: Vec<usize> = subset.iter().map(|&i| pool[i]).collect();
                let levers = levers_of(&subset);
                let contains_a_fix = fitted
                    .iter()
                    .any(|smaller| smaller.iter().all(|i| subset.contains(i)));
                if levers.iter().any(|l| l.changes_task()) != changing_task || contains_a_fix {
                    continue;
                }
                if let Some(fix) = search(config, levers, target) {
                    fitted.push(subset);
                    if !found.iter().any(|f| f.config == fix.config) {
                        found.push(fix);
                    }
                }
            }
            if enough(&found) {
                break;
            }
        }
        if enough(&found) {
            break;
        }
    }
    found.sort_by_cached_key(Fix::rank);
    found.truncate(FIXES);
    found
}

/// Whether some subset of `pool` could fit: every lever at its strongest
/// saves the most memory the pool can, but for two that can also add some
/// (a smaller batch with accumulation keeps the gradients alive at the loss;
/// parameter offload holds whole layers in flight, more than ZeRO-3's shard
/// over many GPUs), so the pool is checked with and without each of those.
fn could_fit(config: &Config, pool: &[Lever], target: &Target<'_>) -> bool {
    [(true, true), (true, false), (false, true), (false, false)]
        .into_iter()
        .any(|(with_batch, with_param_offload)| {
            let levers: Vec<Lever> = pool
                .iter()
                .copied()
                .filter(|l| match l {
                    Lever::Batch { .. } => with_batch,
                    Lever::ParamOffload => with_param_offload,
                    _ => true,
                })
                .collect();
            // Optimistic: the host's RAM is checked on each fix.
            (target.device)(&applied(config, &levers))
        })
}

/// The subsets of `size` of `0..n`, in lexicographic order.
fn subsets(n: usize, size: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut picked: Vec<usize> = (0..size).collect();
    loop {
        all.push(picked.clone());
        // The rightmost index that can still move right.
        let Some(i) = (0..size).rev().find(|&i| picked[i] < n - size + i) else {
            return all;
        };
        picked[i] += 1;
        for j in i + 1..size {
            picked[j] = picked[j - 1] + 1;
        }
    }
}

/// The fix these lever kinds give, if their strongest settings fit: each
/// relaxed in turn, then checked to fit and to need every lever.
fn search(original: &Config, mut levers: Vec<Lever>, target: &Target<'_>) -> Option<Fix> {
    let fits = target.fits;
    if !fits(&applied(original, &levers)) {
        return None;
    }
    let without = |levers: &[Lever], i: usize| {
        let others: Vec<Lever> = levers
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &l)| l)
            .collect();
        applied(original, &others)
    };
    for i in 0..levers.len() {
        match relax(levers[i], &without(&levers, i), original, target) {
            Relaxed::To(lever) => levers[i] = lever,
            Relaxed::Unneeded | Relaxed::Nothing => return None,
        }
    }
    let config = applied(original, &levers);
    let estimate = estimate(&config);
    let needs_each = (0..levers.len()).all(|i| !fits(&without(&levers, i)));
    (estimate.fits == Some(true) && needs_each).then(|| Fix {
        cost: cost(original, &config),
        levers,
        config,
        estimate,
    })
}

/// One configuration's step in first-order figures besides memory
/// (docs/model.md §5, "What a change costs"), per GPU and per optimizer step
/// (all its micro-steps) unless said.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Profile {
    /// FLOPs of training (forward and backward) without recomputation; 0
    /// outside transformer training.
    pub flops: u128,
    /// The FLOPs recomputation adds to them.
    pub recompute_flops: u128,
    /// Bytes the offloads move between host and GPU.
    pub pcie_bytes: u128,
    /// GPUs the run takes: data-parallel ranks × tensor parallel.
    pub gpus: u64,
    /// Parameters of the model, and those that train.
    pub parameters: u128,
    pub trainable: u128,
    /// Samples per micro-step, and their tokens (0 in the parameters form,
    /// which has no sequence).
    pub samples: u64,
    pub tokens: u128,
    /// Micro-steps per optimizer step (gradient accumulation).
    pub accumulation: u64,
    /// Tokens per optimizer step over all GPUs (samples in the parameters
    /// form); 0 in inference, which takes no optimizer step.
    pub step_tokens: u128,
    /// Inference: `samples` are the sequences served at once.
    pub inference: bool,
}

impl Profile {
    /// The time of [`Self::pcie_bytes`] at [`PCIE_BYTES_PER_SECOND`], in
    /// microseconds, rounded up.
    pub fn pcie_micros(&self) -> u128 {
        (self.pcie_bytes.saturating_mul(1_000_000)).div_ceil(PCIE_BYTES_PER_SECOND)
    }
}

/// The step of `config` in first-order figures.
pub fn profile(config: &Config) -> Profile {
    let samples = config.batch();
    let accumulation = accumulation_steps(config).unwrap_or(1);
    // The parameters form has no sequence: its step counts samples.
    let with_tokens = |tokens: u128, parameters: u128, trainable: u128| Profile {
        parameters,
        trainable,
        samples,
        tokens,
        accumulation,
        step_tokens: if tokens > 0 {
            tokens
        } else {
            u128::from(samples)
        }
        .saturating_mul(u128::from(replicas(config)))
        .saturating_mul(u128::from(accumulation)),
        gpus: 1,
        ..Profile::default()
    };
    match config.form {
        Form::Activations => with_tokens(
            u128::from(samples) * u128::from(config.activations.seq),
            0,
            0,
        ),
        Form::Parameters => {
            let params = u128::from(config.parameters.params);
            let trains = parameters::estimate(&config.parameters).gradients > 0;
            with_tokens(0, params, if trains { params } else { 0 })
        }
        Form::Transformer => {
            let t = &config.transformer;
            let count = transformer::parameter_count(&t.arch);
            let trainable = match t.mode {
                Mode::Inference => 0,
                Mode::Train if t.lora() => {
                    Adapters::of(t).total + transformer::embedding_copies(&count, t)
                }
                Mode::Train => count.total,
            };
            let tokens = u128::from(samples) * u128::from(t.tokens());
            let (flops, recompute_flops) = match t.mode {
                Mode::Train => step_flops(t, &count),
                Mode::Inference => (0, 0),
            };
            let steps = u128::from(accumulation);
            let inference = t.mode == Mode::Inference;
            let profile = with_tokens(tokens, count.total, trainable);
            Profile {
                flops: flops.saturating_mul(steps),
                recompute_flops: recompute_flops.saturating_mul(steps),
                pcie_bytes: pcie_bytes(t, &count, steps),
                gpus: t.gpus.saturating_mul(t.tp),
                step_tokens: if inference { 0 } else { profile.step_tokens },
                inference,
                ..profile
            }
        }
    }
}

/// FLOPs of one training micro-step on one GPU without recomputation, and
/// what the recomputation as set adds (docs/model.md §5). A matrix product
/// of n parameters costs 2n FLOPs per token forward and, for the gradients
/// of its input and of its weights, 4n backward (Kaplan et al. 2020, §2.1;
/// Narayanan et al. 2021, §5.1): the step is 3 forwards. A frozen weight
/// (LoRA's base) has no weight gradient: 2n backward. Attention's scores and
/// their product with V cost 2·T·(width of Q + of the output) per token and
/// layer forward, over the T positions attended (the window, where one is),
/// as Korthikanti et al. 2022 count them (the whole T × T, no causal
/// halving). Full recomputation runs every layer's forward again (Chen et
/// al. 2016; Korthikanti et al. 2022 §5: 4 forwards instead of 3), the head
/// outside the layers not; selective recomputation runs the attention core
/// again (Korthikanti §5); per-operator recomputation (`op`) recomputes no
/// matrix product.
fn step_flops(t: &TransformerInput, count: &transformer::ParameterCount) -> (u128, u128) {
    let arch = &t.arch;
    let tp = u128::from(t.tp.max(1));
    let tokens = u128::from(t.batch).saturating_mul(u128::from(t.tokens()));
    let routed =
        count.routed.linear / u128::from(arch.experts.max(1)) * u128::from(arch.routed_per_token());
    let active_linear = count.linear - count.routed.linear + routed;
    let matmuls = tokens.saturating_mul(2 * active_linear) / tp;
    let head = match arch.kind {
        Kind::Decoder => {
            tokens.saturating_mul(2 * u128::from(arch.hidden) * u128::from(arch.vocab)) / tp
        }
        Kind::Encoder | Kind::Vision => 0,
    };
    let widths = arch.attention_widths();
    let positions = u128::from(t.tokens());
    let windowed = u128::from(arch.windowed_layers());
    let attended = (u128::from(arch.layers) - windowed).saturating_mul(positions)
        + windowed.saturating_mul(positions.min(u128::from(arch.window)));
    let attention = tokens
        .saturating_mul(2 * (widths.q + widths.output))
        .saturating_mul(attended)
        / tp;
    let weight_gradients = if t.lora() { 1 } else { 2 };
    let step = (matmuls.saturating_add(head))
        .saturating_mul(1 + weight_gradients)
        .saturating_add(attention.saturating_mul(3));
    let recompute = match t.recompute {
        Recompute::None | Recompute::Op => 0,
        Recompute::Selective if t.recompute_modules == RecomputeModules::default() => attention,
        Recompute::Selective => selective_flops(t, tokens, routed, attention),
        Recompute::Full => matmuls.saturating_add(attention),
    };
    (step, recompute_share(t, recompute))
}

/// The forward FLOPs Megatron-Core's `--recompute-modules` run again
/// (`transformer::selective_kept` says what each keeps): the attention core
/// with `core_attn`; a dense layer's MLP maps with `mlp`; a MoE layer's
/// router, its tokens' routed experts (`routed`, every layer's) and its
/// shared experts with `moe`, or the shared experts alone with
/// `shared_experts`. `layernorm` and `moe_act` recompute element-wise
/// operations only: no matrix product. 2 FLOPs per weight and token, over
/// `tp`. Out of line: the default set never reaches it.
#[inline(never)]
fn selective_flops(t: &TransformerInput, tokens: u128, routed: u128, attention: u128) -> u128 {
    let arch = &t.arch;
    let modules = t.recompute_modules;
    let tp = u128::from(t.tp.max(1));
    let h = u128::from(arch.hidden);
    let maps = match arch.mlp {
        transformer::Mlp::Swiglu => 3,
        transformer::Mlp::Gelu | transformer::Mlp::GeluNew => 2,
    };
    let per_token = |weights: u128| tokens.saturating_mul(2 * weights) / tp;
    let mut flops = 0u128;
    if modules.contains(RecomputeModules::CORE_ATTN) {
        flops = flops.saturating_add(attention);
    }
    if modules.contains(RecomputeModules::MLP) {
        let dense = u128::from(arch.dense_layers()) * maps * h * u128::from(arch.ffn);
        flops = flops.saturating_add(per_token(dense));
    }
    let moe_layers = u128::from(arch.moe_layers());
    let shared = moe_layers * maps * h * u128::from(arch.shared_width());
    if modules.contains(RecomputeModules::MOE) {
        let router = moe_layers * h * u128::from(arch.experts);
        flops = flops.saturating_add(per_token(router + shared + routed));
    } else if modules.contains(RecomputeModules::SHARED_EXPERTS) {
        flops = flops.saturating_add(per_token(shared));
    }
    flops
}

/// The part of `flops` (every layer's recomputation) that a partial plan
/// recomputes: its checkpointed layers' share of the layers, counted in each
/// pipeline rank's model chunks as `transformer::training_saved` counts
/// them, the layers taken as equal.
fn recompute_share(t: &TransformerInput, flops: u128) -> u128 {
    let Some((method, n)) = t.partial_recompute() else {
        return flops;
    };
    let chunks: Vec<u64> = if t.pp > 1 {
        transformer::pipeline::ranks(&t.arch, t.pp, t.vpp, &t.pp_layout)
            .iter()
            .flat_map(|rank| rank.chunks.iter().map(transformer::pipeline::Chunk::layers))
            .collect()
    } else {
        vec![t.arch.layers]
    };
    let layers: u64 = chunks.iter().sum();
    let recomputed: u64 = chunks.iter().map(|&c| method.recomputed_layers(c, n)).sum();
    flops.saturating_mul(u128::from(recomputed)) / u128::from(layers.max(1))
}

/// Bytes the offloads move between host and GPU per micro-step, per GPU
/// (docs/model.md §5), from the model states the GPU would hold without
/// them. Optimizer offload (Ren et al. 2021, "ZeRO-Offload", §4.1): the
/// rank's partition of the gradients down, its updated parameters up.
/// Parameter offload: every weight up for the forward and again for the
/// backward, the gradients down (Rajbhandari et al. 2021, "ZeRO-Infinity",
/// §5; FSDP copies the sharded parameter to the GPU for each all-gather).
/// Activation offload: each saved activation down in the forward and up in
/// the backward. Per optimizer step of `steps` micro-steps: every transfer
/// per micro-step but the optimizer offload's parameters, which change
/// once per optimizer step.
fn pcie_bytes(t: &TransformerInput, count: &transformer::ParameterCount, steps: u128) -> u128 {
    if t.mode != Mode::Train || !(t.offload || t.param_offload || t.act_offload) {
        return 0;
    }
    let on_gpu = TransformerInput {
        offload: false,
        param_offload: false,
        act_offload: false,
        step: Step::Fused,
        foreach: false,
        zero: 0,
        ..*t
    };
    let states = transformer::model_states(count, &on_gpu);
    let gpus = u128::from(t.gpus.max(1));
    let activations = 2 * transformer::offloaded_activations_per_sample(t) * u128::from(t.batch);
    let per_micro_step = if t.param_offload {
        2 * states.weights.div_ceil(gpus) + states.gradients.div_ceil(gpus)
    } else {
        0
    } + activations;
    let per_step = if t.offload && !t.param_offload {
        let partitions = if t.zero >= 1 { gpus } else { 1 };
        // LoRA's adapters are what is updated: FP32, as their gradients.
        let updated = if t.lora() {
            states.gradients
        } else {
            states.weights
        };
        (states.gradients.saturating_mul(steps) + updated).div_ceil(partitions)
    } else {
        0
    };
    per_micro_step
        .saturating_mul(steps)
        .saturating_add(per_step)
}

/// What changing `from` into `to` costs besides memory: both steps' figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cost {
    pub before: Profile,
    pub after: Profile,
}

impl Cost {
    /// GPUs added.
    pub fn extra_gpus(&self) -> u64 {
        self.after.gpus.saturating_sub(self.before.gpus)
    }

    /// Recomputation's FLOPs as a share of the step without it, in hundredths
    /// of a percent (full recomputation of a decoder: a little under 3,333).
    pub fn recompute_share_bp(&self) -> u128 {
        share_bp(self.after.recompute_flops, self.after.flops)
    }

    /// The trainable parameters' share of the model, in hundredths of a
    /// percent.
    pub fn trainable_share_bp(&self) -> u128 {
        share_bp(self.after.trainable, self.after.parameters)
    }

    /// Sequences served at once fewer than before, in inference (0 in
    /// training, and when as many or more).
    pub fn sequences_lost(&self) -> u64 {
        if self.after.inference {
            self.before.samples.saturating_sub(self.after.samples)
        } else {
            0
        }
    }

    /// Tokens per optimizer step fewer than before (0 when as many or more;
    /// 0 in inference, [`Self::sequences_lost`]).
    pub fn tokens_lost(&self) -> u128 {
        self.before
            .step_tokens
            .saturating_sub(self.after.step_tokens)
    }
}

/// `part / whole` in hundredths of a percent, rounded to nearest; 0 when
/// `whole` is.
fn share_bp(part: u128, whole: u128) -> u128 {
    if whole == 0 {
        return 0;
    }
    (part.saturating_mul(10_000) + whole / 2) / whole
}

/// What changing `from` into `to` costs besides memory.
pub fn cost(from: &Config, to: &Config) -> Cost {
    Cost {
        before: profile(from),
        after: profile(to),
    }
}

impl WhatIf {
    /// What this change of `from` costs besides memory.
    pub fn cost(&self, from: &Config) -> Cost {
        cost(from, &self.config)
    }
}

#[cfg(test)]
mod tests;
