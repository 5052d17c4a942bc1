//! The URL query format: the one configuration language of batchfit. The page reads
//! it on load and writes it back as the user types, shared links carry it, and the
//! CLI takes it as its argument. This module is its single source of truth; the
//! format is a public contract, documented in `docs/url-parameters.md`.
//!
//! Reading never fails: a bad or unknown parameter is reported as a
//! [`ParamError`] and its field keeps its default, so a link that is partly wrong
//! still opens a working page. The CLI treats any problem as fatal instead.
//!
//! A URL describes the form it shows: a parameter of another form is known (not
//! reported) but ignored, and the values the forms share (`batch`, `seq`,
//! `hidden`, `layers`, `precision`) are copied to every form that has them, so
//! switching forms keeps them.

use crate::Precision;
use crate::activations::{self, ActivationsInput, Multiplier};
use crate::choice::choice;
use crate::fields::{self, HundredthsField, ParamError, Problem, WholeField};
pub use crate::param::Param;
use crate::parameters::{self, ParametersInput};
use crate::presets::{self, Device, ModelPreset};
use crate::transformer::pipeline::{self, CpKind, Layout, Schedule, StageChoice};
use crate::transformer::{self as tf, Architecture, TransformerInput};
use crate::units::Units;

choice! {
    /// Which of the three forms is shown.
    pub enum Form {
        /// The rule of thumb for activations only.
        Activations = "activations",
        /// Memory from a parameter count.
        Parameters = "parameters",
        /// Memory from a transformer's architecture, term by term.
        Transformer = "transformer",
    }
    default Activations
}

choice! {
    /// The page's language; absent means the browser's.
    pub enum Lang {
        En = "en",
        Es = "es",
    }
    default En
}

/// A custom device capacity in GB (10^9 bytes), in hundredths.
pub const GPU_GB: HundredthsField = HundredthsField {
    param: Param::GpuGb,
    min: 1,
    max: 100_000_000,
    default: 8_000,
};
/// CUDA context and framework buffers, in hundredths of a GB: what nvidia-smi
/// shows beyond the allocator's reserved bytes. The default, 1 GB, is a CUDA
/// context with cuBLAS/cuDNN handles (0.3–0.5 GB with lazy module loading,
/// about 1.3 GB without; docs/model.md has the table) plus cuBLAS workspaces.
/// The allocator's slack is modelled apart (`memory::FRAGMENTATION_PERCENT`).
pub const OVERHEAD_GB: HundredthsField = HundredthsField {
    param: Param::OverheadGb,
    min: 0,
    max: 100_000,
    default: 100,
};
/// Safety margin in percent, in hundredths of a percent (0 – 100 %).
pub const MARGIN: HundredthsField = HundredthsField {
    param: Param::Margin,
    min: 0,
    max: 10_000,
    default: 0,
};
/// Target global batch for gradient accumulation (0 = none).
pub const GLOBAL_BATCH: WholeField = WholeField {
    param: Param::GlobalBatch,
    min: 0,
    max: 1_000_000_000_000,
    default: 0,
};

/// Everything a URL can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    pub form: Form,
    pub activations: ActivationsInput,
    pub parameters: ParametersInput,
    pub transformer: TransformerInput,
    /// The model preset the transformer form started from, if any.
    pub model: Option<&'static ModelPreset>,
    pub device: Option<Device>,
    /// Hundredths of a GB.
    pub overhead: u64,
    /// Hundredths of a percent.
    pub margin: u64,
    pub global_batch: u64,
    pub units: Units,
    pub lang: Option<Lang>,
    /// The page is embedded in an iframe (compact layout).
    pub embed: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            form: Form::default(),
            activations: ActivationsInput::default(),
            parameters: ParametersInput::default(),
            transformer: TransformerInput::default(),
            model: None,
            device: None,
            overhead: OVERHEAD_GB.default,
            margin: MARGIN.default,
            global_batch: GLOBAL_BATCH.default,
            units: Units::default(),
            lang: None,
            embed: false,
        }
    }
}

impl Config {
    /// The batch of the current form.
    pub fn batch(&self) -> u64 {
        match self.form {
            Form::Activations => self.activations.batch,
            Form::Parameters => self.parameters.batch,
            Form::Transformer => self.transformer.batch,
        }
    }

    /// The same configuration with another batch, in every form.
    pub fn with_batch(&self, batch: u64) -> Self {
        let mut changed = *self;
        changed.activations.batch = batch;
        changed.parameters.batch = batch;
        changed.transformer.batch = batch;
        changed
    }

    /// The overhead in bytes.
    pub fn overhead_bytes(&self) -> u128 {
        u128::from(self.overhead) * 10_000_000
    }

    /// Copies the current form's shared values (batch, seq, hidden, layers,
    /// precision) into the other forms that have them.
    pub fn synced(mut self) -> Self {
        let (batch, seq, hidden, layers, precision) = match self.form {
            Form::Activations => {
                let a = &self.activations;
                (
                    a.batch,
                    Some(a.seq),
                    Some(a.hidden),
                    Some(a.layers),
                    Some(a.precision),
                )
            }
            Form::Parameters => (
                self.parameters.batch,
                None,
                None,
                None,
                Some(self.parameters.precision),
            ),
            Form::Transformer => {
                let t = &self.transformer;
                (
                    t.batch,
                    Some(t.seq),
                    Some(t.arch.hidden),
                    Some(t.arch.layers),
                    None,
                )
            }
        };
        self = self.with_batch(batch);
        if let Some(seq) = seq {
            self.activations.seq = seq;
            self.transformer.seq = seq;
        }
        if let Some(hidden) = hidden {
            self.activations.hidden = hidden;
            self.transformer.arch.hidden = hidden;
        }
        if let Some(layers) = layers {
            self.activations.layers = layers;
            self.transformer.arch.layers = layers;
        }
        if let Some(precision) = precision {
            self.activations.precision = precision;
            self.parameters.precision = precision;
        }
        self
    }
}

/// A parsed query: the configuration to use and what was wrong with the query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub config: Config,
    /// In the order the parameters appear in the query.
    pub problems: Vec<ParamError>,
}

/// The activations form's parameters, in the order [`to_query`] writes them.
pub const ACTIVATIONS_PARAMETERS: &[Param] = &[
    Param::Batch,
    Param::Seq,
    Param::Hidden,
    Param::Layers,
    Param::Precision,
    Param::K,
    Param::Ckpt,
];
/// The parameters form's parameters, in order.
pub const PARAMETERS_PARAMETERS: &[Param] = &[
    Param::Params,
    Param::Precision,
    Param::Optimizer,
    Param::Batch,
    Param::ActMb,
];
/// The transformer form's parameters, in order.
pub const TRANSFORMER_PARAMETERS: &[Param] = &[
    Param::Model,
    Param::Framework,
    Param::Kind,
    Param::Layers,
    Param::Hidden,
    Param::Heads,
    Param::KvHeads,
    Param::HeadDim,
    Param::Ffn,
    Param::Mlp,
    Param::Norm,
    Param::Vocab,
    Param::Tied,
    Param::Bias,
    Param::QkvBias,
    Param::QkNorm,
    Param::Positions,
    Param::TokenTypes,
    Param::Labels,
    Param::Dropout,
    Param::Image,
    Param::Patch,
    Param::Channels,
    Param::QkNormFull,
    Param::Block,
    Param::Window,
    Param::GlobalEvery,
    Param::Softcap,
    Param::AttnSoftcap,
    Param::AttnSinks,
    Param::Experts,
    Param::ExpertsActive,
    Param::ExpertFfn,
    Param::SharedExperts,
    Param::SharedFfn,
    Param::FirstDenseLayers,
    Param::MoeEvery,
    Param::KvLoraRank,
    Param::QLoraRank,
    Param::QkRopeHeadDim,
    Param::QkNopeHeadDim,
    Param::VHeadDim,
    Param::FusedProj,
    Param::Batch,
    Param::Seq,
    Param::Recipe,
    Param::Optimizer,
    Param::Recompute,
    Param::RecomputeMethod,
    Param::RecomputeLayers,
    Param::RecomputeModules,
    Param::Reentrant,
    Param::GradAccumFusion,
    Param::Attn,
    Param::Mode,
    Param::Gen,
    Param::Quant,
    Param::Gpus,
    Param::Zero,
    Param::Tp,
    Param::Ep,
    Param::Etp,
    Param::CapacityFactor,
    Param::CapacityPad,
    Param::Pp,
    Param::PpSchedule,
    Param::Vpp,
    Param::Microbatches,
    Param::PpLayout,
    Param::PpStage,
    Param::Cp,
    Param::CpKind,
    Param::Sp,
    Param::Foreach,
    Param::Step,
    Param::Loss,
    Param::Offload,
    Param::BucketM,
    Param::Prefetch,
    Param::DsPrefetch,
    Param::DsLive,
    Param::DsPersist,
    Param::ActOffload,
    Param::Logits,
    Param::ZeroGrad,
    Param::Outputs,
    Param::NormKernel,
    Param::LoraRank,
    Param::LoraTargets,
    Param::LoraDropout,
    Param::BaseQuant,
    Param::DoubleQuant,
    Param::KvDtype,
    Param::ParamOffload,
    Param::LoraVariant,
    Param::Fp8,
    Param::TrainEmbeddings,
    Param::Compile,
];
/// The experts' shape, meaningful only with `experts` ≥ 1.
pub const MOE_SHAPE: &[Param] = &[
    Param::ExpertsActive,
    Param::ExpertFfn,
    Param::SharedExperts,
    Param::SharedFfn,
    Param::FirstDenseLayers,
    Param::MoeEvery,
];
/// Multi-head latent attention's sizes, meaningful only with `kv_lora_rank` ≥ 1.
pub const MLA_SHAPE: &[Param] = &[
    Param::QLoraRank,
    Param::QkRopeHeadDim,
    Param::QkNopeHeadDim,
    Param::VHeadDim,
];
/// Parameters every form takes, in order.
pub const COMMON_PARAMETERS: &[Param] = &[
    Param::Gpu,
    Param::GpuGb,
    Param::OverheadGb,
    Param::Margin,
    Param::GlobalBatch,
    Param::Units,
    Param::Lang,
    Param::Embed,
];

fn form_parameters(form: Form) -> &'static [Param] {
    match form {
        Form::Activations => ACTIVATIONS_PARAMETERS,
        Form::Parameters => PARAMETERS_PARAMETERS,
        Form::Transformer => TRANSFORMER_PARAMETERS,
    }
}

/// Values a yes/no parameter accepts.
pub const SWITCH_NAMES: &[&str] = &["0", "1"];

/// The query part of `text`: everything after the first `?` (or all of it when
/// there is none) and before any `#`. Accepts a bare query or a whole URL.
pub fn query_part(text: &str) -> &str {
    let text = text.trim();
    let query = text.split_once('?').map_or(text, |(_, q)| q);
    query.split_once('#').map_or(query, |(q, _)| q)
}

/// Reads a query string (with or without its leading `?`, or a whole URL).
pub fn parse(text: &str) -> Parsed {
    // One slot per parameter, in the order the query was written: each has at
    // most one problem, and they are reported in that order.
    let mut problems: Vec<Option<ParamError>> = Vec::new();
    let mut known: Vec<(usize, Param, String)> = Vec::new();
    // Setup B's parameters are `parse_pair`'s.
    let own = pairs(query_part(text)).filter(|(name, _)| !name.starts_with(B_PREFIX));
    for (index, (raw_name, value)) in own.enumerate() {
        problems.push(match Param::from_name(&raw_name) {
            None => Some(ParamError::unknown(raw_name)),
            Some(name) if known.iter().any(|(_, n, _)| *n == name) => {
                Some(ParamError::new(name, Problem::Duplicate))
            }
            Some(name) => {
                known.push((index, name, value));
                None
            }
        });
    }
    let mut config = Config::default();
    // The form decides which parameters apply: read it first.
    if let Some((index, name, value)) = known.iter().find(|(_, n, _)| *n == Param::Form) {
        match Form::parse(value) {
            Some(form) => config.form = form,
            None => {
                problems[*index] = Some(ParamError::new(
                    *name,
                    Problem::NotAnOption {
                        allowed: Form::NAMES,
                    },
                ));
            }
        }
    }
    let form = config.form;
    let applies = |param: Param| {
        param != Param::Form
            && (COMMON_PARAMETERS.contains(&param) || form_parameters(form).contains(&param))
    };
    // A model preset is the base the other architecture parameters change, and
    // a framework profile the base of the other settings.
    let is_base = |p: Param| matches!(p, Param::Model | Param::Framework);
    let presets_first = known
        .iter()
        .filter(|(_, n, _)| is_base(*n))
        .chain(known.iter().filter(|(_, n, _)| !is_base(*n)));
    let mut device_from: Option<Param> = None;
    for &(index, name, ref value) in presets_first {
        if !applies(name) {
            continue;
        }
        if matches!(name, Param::Gpu | Param::GpuGb) {
            if let Some(first) = device_from {
                problems[index] = Some(ParamError::new(name, Problem::Conflict { with: first }));
                continue;
            }
            device_from = Some(name);
        }
        if let Err(error) = apply(&mut config, name, value) {
            problems[index] = Some(error);
        }
    }
    // Settings that mean nothing without another one are reported, never
    // silently ignored (issue 13): inference's weight quantization in
    // training, a KV-cache format in training, a quantized LoRA base without
    // LoRA.
    if config.form == Form::Transformer {
        let t = &mut config.transformer;
        let mut only_with = |param: Param, needs: Param, value: &'static str| {
            if let Some((index, ..)) = known.iter().find(|(_, n, _)| *n == param) {
                problems[*index] = Some(ParamError::new(
                    param,
                    Problem::OnlyWith {
                        param: needs,
                        value,
                    },
                ));
            }
        };
        if t.mode == tf::Mode::Train && t.quant != tf::Quant::None {
            only_with(Param::Quant, Param::Mode, "inference");
            t.quant = tf::Quant::None;
        }
        if t.mode == tf::Mode::Train && t.kv_dtype != tf::KvDtype::Bf16 {
            only_with(Param::KvDtype, Param::Mode, "inference");
            t.kv_dtype = tf::KvDtype::Bf16;
        }
        if t.mode == tf::Mode::Inference && t.fp8 != tf::Fp8::None {
            only_with(Param::Fp8, Param::Mode, "train");
            t.fp8 = tf::Fp8::None;
        }
        // The saved tensors Inductor's partitioner chooses exist in training
        // only; a compiled generate() keeps the same weights and cache.
        if t.mode == tf::Mode::Inference && t.compile {
            only_with(Param::Compile, Param::Mode, "train");
            t.compile = false;
        }
        // Which layers are checkpointed means something under full
        // recomputation only (Megatron-LM arguments.py: no recompute method
        // with `selective`; torchtitan's layer frequency is its own mode).
        if t.recompute != tf::Recompute::Full {
            let default = TransformerInput::default();
            if t.recompute_method != default.recompute_method {
                only_with(Param::RecomputeMethod, Param::Recompute, "full");
            }
            if t.recompute_layers != default.recompute_layers {
                only_with(Param::RecomputeLayers, Param::Recompute, "full");
            }
            (t.recompute_method, t.recompute_layers) =
                (default.recompute_method, default.recompute_layers);
            // Which checkpoint, too: back to the profile's.
            let profile = t.framework.defaults().reentrant;
            if t.reentrant != profile {
                only_with(Param::Reentrant, Param::Recompute, "full");
                t.reentrant = profile;
            }
        }
        // The model's output a loop keeps holds a decoder's full logits in
        // training: not with a loss that never materialises them (torchtune's
        // chunked, Unsloth's fused) nor Megatron-Core's, whose model returns
        // the per-token loss. Elsewhere the value is reported and the
        // profile's kept.
        let profile = t.framework.defaults().outputs;
        if t.outputs != profile {
            let needs = if t.mode == tf::Mode::Inference {
                Some((Param::Mode, "train"))
            } else if t.arch.kind != tf::Kind::Decoder {
                Some((Param::Kind, "decoder"))
            } else if t.loss != tf::Loss::Full {
                Some((Param::Loss, "full"))
            } else {
                None
            };
            if let Some((needs, value)) = needs {
                only_with(Param::Outputs, needs, value);
                t.outputs = profile;
            }
        }
        // Megatron-LM's gradient-accumulation fusion writes the weight
        // gradients into its FP32 main-gradient buffer: it means something
        // where the gradients go there (`recipe=main_fp32`), in training of
        // the whole model. Elsewhere `0` is reported and the fused default
        // kept.
        if !t.grad_accum_fusion {
            if t.recipe != tf::Recipe::MainFp32 {
                only_with(Param::GradAccumFusion, Param::Recipe, "main_fp32");
                t.grad_accum_fusion = true;
            } else if t.mode == tf::Mode::Inference {
                only_with(Param::GradAccumFusion, Param::Mode, "train");
                t.grad_accum_fusion = true;
            } else if t.lora() {
                // The frozen base computes no weight gradient.
                only_with(Param::GradAccumFusion, Param::LoraRank, "0");
                t.grad_accum_fusion = true;
            }
        }
        // Megatron-Core's `--recompute-modules` are read under `selective`
        // only (transformer_config.py `__post_init__`), and a module this
        // configuration lacks recomputes nothing there: each is reported and
        // dropped, the others kept (the default where none is left).
        if t.recompute != tf::Recompute::Selective {
            if t.recompute_modules != tf::RecomputeModules::default() {
                only_with(Param::RecomputeModules, Param::Recompute, "selective");
            }
            t.recompute_modules = tf::RecomputeModules::default();
        } else if t.recompute_modules != tf::RecomputeModules::default() {
            let lacking = t.recompute_modules_lacking();
            for (module, needs, value) in lacking.into_iter().flatten() {
                only_with(Param::RecomputeModules, needs, value);
                t.recompute_modules = t.recompute_modules.dropping(module);
            }
        }
        if t.mode == tf::Mode::Inference && t.param_offload {
            only_with(Param::ParamOffload, Param::Mode, "train");
            t.param_offload = false;
        }
        if !t.lora() && t.base_quant != tf::BaseQuant::None {
            only_with(Param::BaseQuant, Param::LoraRank, "1 or more");
            t.base_quant = tf::BaseQuant::None;
        }
        if !t.lora() && t.lora_variant != tf::LoraVariant::Lora {
            only_with(Param::LoraVariant, Param::LoraRank, "1 or more");
            t.lora_variant = tf::LoraVariant::Lora;
        }
        // `modules_to_save` beside adapters: full training trains the
        // embedding and head already; a vision transformer has neither;
        // parameter offload's in-flight copies of them are not modelled.
        if t.train_embeddings {
            let needs = if !t.lora() {
                Some((Param::LoraRank, "1 or more"))
            } else if t.arch.kind == tf::Kind::Vision {
                Some((Param::Kind, "decoder or encoder"))
            } else if t.param_offload {
                Some((Param::ParamOffload, "0"))
            } else {
                None
            };
            if let Some((needs, value)) = needs {
                only_with(Param::TrainEmbeddings, needs, value);
                t.train_embeddings = false;
            }
        }
        // Global layers mean something only beside windowed ones. A preset's
        // pattern under `window=0` is kept (the window alone is switched off).
        let pattern_given = known.iter().any(|(_, n, v)| {
            *n == Param::GlobalEvery && matches!(tf::GLOBAL_EVERY.parse(v), Ok(n) if n != 0)
        });
        if t.arch.window == 0 && t.arch.global_every != 0 && pattern_given {
            only_with(Param::GlobalEvery, Param::Window, "1 or more");
            t.arch.global_every = config.model.map_or(0, |m| m.arch.global_every);
        }
        // The experts' shape means nothing in a dense model, MLA's sizes
        // nothing without its latent, the QK-norm's extent nothing without
        // it: reported when given, and back at their defaults (`to_query`
        // leaves them out).
        let arch = &mut t.arch;
        let dense = Architecture::default();
        if !arch.moe() {
            // A shape value that differs from the default: reported, and back
            // at the default.
            for (param, field, default) in [
                (
                    Param::ExpertsActive,
                    &mut arch.experts_active,
                    dense.experts_active,
                ),
                (Param::ExpertFfn, &mut arch.expert_ffn, dense.expert_ffn),
                (
                    Param::SharedExperts,
                    &mut arch.shared_experts,
                    dense.shared_experts,
                ),
                (Param::SharedFfn, &mut arch.shared_ffn, dense.shared_ffn),
                (
                    Param::FirstDenseLayers,
                    &mut arch.first_dense_layers,
                    dense.first_dense_layers,
                ),
                (Param::MoeEvery, &mut arch.moe_every, dense.moe_every),
            ] {
                if *field != default {
                    only_with(param, Param::Experts, "1 or more");
                    *field = default;
                }
            }
            if t.ep != tf::EP.default {
                only_with(Param::Ep, Param::Experts, "1 or more");
                t.ep = tf::EP.default;
            }
            if t.etp != tf::ETP.default {
                only_with(Param::Etp, Param::Experts, "1 or more");
                t.etp = tf::ETP.default;
            }
            // A dense model has no routed experts to adapt.
            if matches!(
                t.lora_targets,
                tf::LoraTargets::Experts | tf::LoraTargets::AllExperts
            ) {
                only_with(Param::LoraTargets, Param::Experts, "1 or more");
                t.lora_targets = tf::LoraTargets::default();
            }
            if t.capacity_factor != tf::CAPACITY_FACTOR.default {
                only_with(Param::CapacityFactor, Param::Experts, "1 or more");
                t.capacity_factor = tf::CAPACITY_FACTOR.default;
            }
        }
        if !arch.mla() {
            for (param, field, default) in [
                (Param::QLoraRank, &mut arch.q_lora_rank, dense.q_lora_rank),
                (
                    Param::QkRopeHeadDim,
                    &mut arch.qk_rope_head_dim,
                    dense.qk_rope_head_dim,
                ),
                (
                    Param::QkNopeHeadDim,
                    &mut arch.qk_nope_head_dim,
                    dense.qk_nope_head_dim,
                ),
                (Param::VHeadDim, &mut arch.v_head_dim, dense.v_head_dim),
            ] {
                if *field != default {
                    only_with(param, Param::KvLoraRank, "1 or more");
                    *field = default;
                }
            }
        }
        if t.capacity_factor == 0 && t.capacity_pad {
            only_with(Param::CapacityPad, Param::CapacityFactor, "above 0");
            t.capacity_pad = false;
        }
        let arch = &mut t.arch;
        if !arch.qk_norm && arch.qk_norm_full {
            only_with(Param::QkNormFull, Param::QkNorm, "1");
            arch.qk_norm_full = false;
        }
        // Top-k of more experts than there are: every expert, and said so
        // when the query gave it.
        if arch.moe() && arch.experts_active > arch.experts {
            if let Some((index, ..)) = known.iter().find(|(_, n, _)| *n == Param::ExpertsActive) {
                problems[*index] = Some(ParamError::new(
                    Param::ExpertsActive,
                    Problem::OutOfRange {
                        range: fields::Range {
                            min: fields::Bound::Whole(tf::EXPERTS_ACTIVE.min),
                            max: fields::Bound::Whole(arch.experts),
                        },
                    },
                ));
            }
            arch.experts_active = arch.experts;
        }
        // Expert parallelism splits the experts over ranks of the
        // data-parallel group (Megatron-Core parallel_state.py: the expert
        // model-parallel groups tile the data-parallel ranks), so `ep`
        // divides `gpus`; and each rank holds as many experts
        // (megatron/training/arguments.py: `num_experts %
        // expert_model_parallel_size == 0`), so it divides `experts`. With
        // expert tensor parallelism the same gpus × tp ranks split as etp ×
        // ep × expert data parallel (parallel_state.py
        // `expert_tensor_model_pipeline_parallel_size`): `etp` divides gpus ×
        // tp and `ep` the gpus × tp / etp ranks left (`gpus` when etp = tp).
        let ranks = u128::from(t.gpus) * u128::from(t.tp);
        if t.etp > 0 && !ranks.is_multiple_of(u128::from(t.etp)) {
            if let Some((index, ..)) = known.iter().find(|(_, n, _)| *n == Param::Etp) {
                problems[*index] = Some(ParamError::new(
                    Param::Etp,
                    Problem::Conflict { with: Param::Tp },
                ));
            }
            t.etp = tf::ETP.default;
        }
        let expert_ranks = ranks / u128::from(t.expert_tp());
        let ep_against = if !expert_ranks.is_multiple_of(u128::from(t.ep)) {
            Some(Param::Gpus)
        } else if t.arch.experts % t.ep != 0 {
            Some(Param::Experts)
        } else {
            None
        };
        if let Some(with) = ep_against.filter(|_| t.ep > 1) {
            if let Some((index, ..)) = known.iter().find(|(_, n, _)| *n == Param::Ep) {
                problems[*index] = Some(ParamError::new(Param::Ep, Problem::Conflict { with }));
            }
            t.ep = tf::EP.default;
        }
        parallel_problems(t, &known, &mut problems);
    }
    Parsed {
        config: config.synced(),
        problems: problems.into_iter().flatten().collect(),
    }
}

/// Pipeline and context parallelism's settings that mean nothing as given
/// (issue 14): reported on the parameter named, and back at what works.
fn parallel_problems(
    t: &mut TransformerInput,
    known: &[(usize, Param, String)],
    problems: &mut [Option<ParamError>],
) {
    let mut report = |param: Param, problem: Problem| {
        if let Some((index, ..)) = known.iter().find(|(_, n, _)| *n == param) {
            problems[*index] = Some(ParamError::new(param, problem));
        }
    };
    let only_with = |param: Param, value: &'static str| Problem::OnlyWith { param, value };
    let conflict = |with: Param| Problem::Conflict { with };
    let default = TransformerInput::default();
    // batchfit's inference is one process generating (docs/model.md,
    // "Pipeline parallelism"): neither splits it.
    if t.mode == tf::Mode::Inference {
        for (param, degree) in [(Param::Pp, &mut t.pp), (Param::Cp, &mut t.cp)] {
            if *degree > 1 {
                report(param, only_with(Param::Mode, "train"));
                *degree = 1;
            }
        }
    }
    // Megatron-Core runs the interleaved schedule only with virtual stages
    // (`virtual_pipeline_model_parallel_size` > 1).
    if t.pp > 1 {
        let interleaved = t.pp_schedule == Schedule::Interleaved;
        if interleaved && t.vpp < 2 {
            report(Param::PpSchedule, only_with(Param::Vpp, "2 or more"));
            t.pp_schedule = Schedule::OneFOneB;
        } else if !interleaved && t.vpp > 1 {
            report(Param::Vpp, only_with(Param::PpSchedule, "interleaved"));
            t.vpp = 1;
        }
    }
    // A layout lists every virtual stage's layers, all of them.
    if !t.pp_layout.is_even() {
        let against = if t.pp_layout.entries().len() as u64 != t.pp * t.vpp {
            Some(Param::Pp)
        } else if t.pp_layout.total() != t.arch.layers {
            Some(Param::Layers)
        } else {
            None
        };
        if let Some(with) = against {
            report(Param::PpLayout, conflict(with));
            t.pp_layout = default.pp_layout;
        }
    }
    // Megatron-LM megatron/training/arguments.py: the layers divide evenly
    // over the stages (`num_layers % pipeline_model_parallel_size == 0`) and
    // over each rank's model chunks, unless a layout says otherwise.
    if t.pp > 1 && t.pp_layout.is_even() {
        if !t.arch.layers.is_multiple_of(t.pp) {
            report(Param::Pp, conflict(Param::Layers));
            t.pp = 1;
        } else if !t.arch.layers.is_multiple_of(t.pp * t.vpp) {
            report(Param::Vpp, conflict(Param::Layers));
            (t.vpp, t.pp_schedule) = (1, Schedule::OneFOneB);
        }
    }
    if t.pp == 1 {
        let two = || only_with(Param::Pp, "2 or more");
        if t.pp_schedule != default.pp_schedule {
            report(Param::PpSchedule, two());
        }
        if t.vpp != default.vpp {
            report(Param::Vpp, two());
        }
        if t.microbatches != default.microbatches {
            report(Param::Microbatches, two());
        }
        if t.pp_layout != default.pp_layout {
            report(Param::PpLayout, two());
        }
        if t.pp_stage != default.pp_stage {
            report(Param::PpStage, two());
        }
        (t.pp_schedule, t.vpp, t.microbatches) =
            (default.pp_schedule, default.vpp, default.microbatches);
        (t.pp_layout, t.pp_stage) = (default.pp_layout, default.pp_stage);
    }
    // Megatron-Core's interleaved schedule runs groups of pp micro-batches
    // (schedules.py: `num_microbatches % pipeline_parallel_size == 0` in the
    // versions that require it).
    if t.pp_schedule == Schedule::Interleaved && !t.microbatches.is_multiple_of(t.pp) {
        report(Param::Microbatches, conflict(Param::Pp));
        t.microbatches = default.microbatches;
    }
    if let StageChoice::Index(i) = t.pp_stage
        && i >= t.pp
    {
        report(
            Param::PpStage,
            Problem::OutOfRange {
                range: fields::Range {
                    min: fields::Bound::Whole(0),
                    max: fields::Bound::Whole(t.pp - 1),
                },
            },
        );
        t.pp_stage = StageChoice::Peak;
    }
    // torchtune's activation offloading runs without a pipeline.
    if t.pp > 1 && t.act_offload {
        report(Param::ActOffload, only_with(Param::Pp, "1"));
        t.act_offload = false;
    }
    if t.cp == 1 && t.cp_kind != CpKind::default() {
        report(Param::CpKind, only_with(Param::Cp, "2 or more"));
        t.cp_kind = CpKind::default();
    }
    if t.cp > 1 {
        // Ring attention and Ulysses run flash kernels on 16-bit inputs
        // (Transformer Engine's CP runs its flash and fused backends only);
        // DeepSpeed-Ulysses splits the heads, so cp divides them.
        let against = if t.kernel() == tf::Attention::Eager {
            Some(if t.attention == tf::Attention::Eager {
                only_with(Param::Attn, "flash")
            } else {
                only_with(Param::Recipe, "a 16-bit recipe")
            })
        } else if t.cp_kind == CpKind::Ulysses && !t.arch.heads.is_multiple_of(t.cp) {
            Some(conflict(Param::Heads))
        } else if t.cp_kind == CpKind::Ulysses
            && !t.arch.mla()
            && !t.arch.kv_heads.is_multiple_of(t.cp)
        {
            Some(conflict(Param::KvHeads))
        } else {
            None
        };
        if let Some(problem) = against {
            report(Param::Cp, problem);
            (t.cp, t.cp_kind) = (1, CpKind::default());
        }
    }
}

fn switch(name: Param, value: &str) -> Result<bool, ParamError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(ParamError::new(
            name,
            Problem::NotAnOption {
                allowed: SWITCH_NAMES,
            },
        )),
    }
}

fn option<T>(
    name: Param,
    parsed: Option<T>,
    allowed: &'static [&'static str],
) -> Result<T, ParamError> {
    parsed.ok_or_else(|| ParamError::new(name, Problem::NotAnOption { allowed }))
}

/// Sets one parameter of the current form (or of every form) on `config`,
/// leaving it untouched on error.
fn apply(config: &mut Config, name: Param, value: &str) -> Result<(), ParamError> {
    let form = config.form;
    let act = &mut config.activations;
    let par = &mut config.parameters;
    let t = &mut config.transformer;
    let arch = &mut t.arch;
    match name {
        Param::Batch => {
            let batch = activations::BATCH.parse(value)?;
            (act.batch, par.batch, t.batch) = (batch, batch, batch);
        }
        Param::Seq => {
            let seq = activations::SEQ.parse(value)?;
            (act.seq, t.seq) = (seq, seq);
        }
        Param::Hidden => {
            let hidden = activations::HIDDEN.parse(value)?;
            (act.hidden, arch.hidden) = (hidden, hidden);
        }
        Param::Layers => {
            let layers = activations::LAYERS.parse(value)?;
            (act.layers, arch.layers) = (layers, layers);
        }
        Param::Precision => {
            let precision = option(name, value.parse::<Precision>().ok(), Precision::NAMES)?;
            (act.precision, par.precision) = (precision, precision);
        }
        Param::K => act.k = Multiplier::from_hundredths(activations::K.parse(value)?),
        Param::Ckpt => act.checkpointing = switch(name, value)?,
        Param::Params => par.params = parameters::PARAMS.parse(value)?,
        Param::ActMb => par.act_mb = parameters::ACT_MB.parse(value)?,
        Param::Optimizer if form == Form::Parameters => {
            par.optimizer = option(
                name,
                parameters::Optimizer::parse(value),
                parameters::Optimizer::NAMES,
            )?;
        }
        Param::Optimizer => {
            t.optimizer = option(name, tf::Optimizer::parse(value), tf::Optimizer::NAMES)?
        }
        Param::Model => {
            let ids: &'static [&'static str] = MODEL_IDS;
            let preset = option(name, presets::model(value), ids)?;
            config.model = Some(preset);
            config.transformer.arch = preset.arch;
        }
        Param::Kind => arch.kind = option(name, tf::Kind::parse(value), tf::Kind::NAMES)?,
        Param::Heads => arch.heads = tf::HEADS.parse(value)?,
        Param::KvHeads => arch.kv_heads = tf::KV_HEADS.parse(value)?,
        Param::HeadDim => arch.head_dim = tf::HEAD_DIM.parse(value)?,
        Param::Ffn => arch.ffn = tf::FFN.parse(value)?,
        Param::Mlp => arch.mlp = option(name, tf::Mlp::parse(value), tf::Mlp::NAMES)?,
        Param::Norm => arch.norm = option(name, tf::Norm::parse(value), tf::Norm::NAMES)?,
        Param::Vocab => arch.vocab = tf::VOCAB.parse(value)?,
        Param::Tied => arch.tied = switch(name, value)?,
        Param::Bias => arch.bias = switch(name, value)?,
        Param::QkvBias => arch.qkv_bias = switch(name, value)?,
        Param::QkNorm => arch.qk_norm = switch(name, value)?,
        Param::QkNormFull => arch.qk_norm_full = switch(name, value)?,
        Param::AttnSinks => arch.attn_sinks = switch(name, value)?,
        Param::Experts => arch.experts = tf::EXPERTS.parse(value)?,
        Param::ExpertsActive => arch.experts_active = tf::EXPERTS_ACTIVE.parse(value)?,
        Param::ExpertFfn => arch.expert_ffn = tf::EXPERT_FFN.parse(value)?,
        Param::SharedExperts => arch.shared_experts = tf::SHARED_EXPERTS.parse(value)?,
        Param::SharedFfn => arch.shared_ffn = tf::SHARED_FFN.parse(value)?,
        Param::FirstDenseLayers => arch.first_dense_layers = tf::FIRST_DENSE_LAYERS.parse(value)?,
        Param::MoeEvery => arch.moe_every = tf::MOE_EVERY.parse(value)?,
        Param::KvLoraRank => arch.kv_lora_rank = tf::KV_LORA_RANK.parse(value)?,
        Param::QLoraRank => arch.q_lora_rank = tf::Q_LORA_RANK.parse(value)?,
        Param::QkRopeHeadDim => arch.qk_rope_head_dim = tf::QK_ROPE_HEAD_DIM.parse(value)?,
        Param::QkNopeHeadDim => arch.qk_nope_head_dim = tf::QK_NOPE_HEAD_DIM.parse(value)?,
        Param::VHeadDim => arch.v_head_dim = tf::V_HEAD_DIM.parse(value)?,
        Param::FusedProj => {
            arch.fused_proj = option(name, tf::FusedProj::parse(value), tf::FusedProj::NAMES)?
        }
        Param::Positions => arch.positions = tf::POSITIONS.parse(value)?,
        Param::TokenTypes => arch.token_types = tf::TOKEN_TYPES.parse(value)?,
        Param::Labels => arch.labels = tf::LABELS.parse(value)?,
        Param::Dropout => arch.dropout = switch(name, value)?,
        Param::Image => arch.image = tf::IMAGE.parse(value)?,
        Param::Patch => arch.patch = tf::PATCH.parse(value)?,
        Param::Channels => arch.channels = tf::CHANNELS.parse(value)?,
        Param::Block => arch.block = option(name, tf::Block::parse(value), tf::Block::NAMES)?,
        Param::Window => arch.window = tf::WINDOW.parse(value)?,
        Param::GlobalEvery => arch.global_every = tf::GLOBAL_EVERY.parse(value)?,
        Param::Softcap => arch.softcap = switch(name, value)?,
        Param::AttnSoftcap => arch.attn_softcap = switch(name, value)?,
        Param::Recipe => t.recipe = option(name, tf::Recipe::parse(value), tf::Recipe::NAMES)?,
        Param::Recompute => {
            t.recompute = option(name, tf::Recompute::parse(value), tf::Recompute::NAMES)?
        }
        Param::RecomputeMethod => {
            t.recompute_method = option(
                name,
                tf::RecomputeMethod::parse(value),
                tf::RecomputeMethod::NAMES,
            )?
        }
        Param::RecomputeLayers => t.recompute_layers = tf::RECOMPUTE_LAYERS.parse(value)?,
        Param::RecomputeModules => t.recompute_modules = tf::RecomputeModules::parse(value)?,
        Param::Attn => {
            t.attention = option(name, tf::Attention::parse(value), tf::Attention::NAMES)?
        }
        Param::Mode => t.mode = option(name, tf::Mode::parse(value), tf::Mode::NAMES)?,
        Param::Gen => t.generated = tf::GEN.parse(value)?,
        Param::Quant => t.quant = option(name, tf::Quant::parse(value), tf::Quant::NAMES)?,
        Param::Gpus => t.gpus = tf::GPUS.parse(value)?,
        // ZERO's bound is 3: the conversion cannot fail.
        Param::Zero => t.zero = u8::try_from(tf::ZERO.parse(value)?).unwrap_or(3),
        Param::Tp => t.tp = tf::TP.parse(value)?,
        Param::Ep => t.ep = tf::EP.parse(value)?,
        Param::Etp => t.etp = tf::ETP.parse(value)?,
        Param::CapacityFactor => t.capacity_factor = tf::CAPACITY_FACTOR.parse(value)?,
        Param::CapacityPad => t.capacity_pad = switch(name, value)?,
        Param::Pp => t.pp = pipeline::PP.parse(value)?,
        Param::PpSchedule => t.pp_schedule = option(name, Schedule::parse(value), Schedule::NAMES)?,
        Param::Vpp => t.vpp = pipeline::VPP.parse(value)?,
        Param::Microbatches => t.microbatches = pipeline::MICROBATCHES.parse(value)?,
        Param::PpLayout => t.pp_layout = Layout::parse(value)?,
        Param::PpStage => t.pp_stage = StageChoice::parse(value)?,
        Param::Cp => t.cp = pipeline::CP.parse(value)?,
        Param::CpKind => t.cp_kind = option(name, CpKind::parse(value), CpKind::NAMES)?,
        Param::Sp => t.sp = switch(name, value)?,
        Param::Foreach => t.foreach = switch(name, value)?,
        Param::Framework => {
            option(name, tf::Framework::parse(value), tf::Framework::NAMES)?.apply(t)
        }
        Param::Step => t.step = option(name, tf::Step::parse(value), tf::Step::NAMES)?,
        Param::Loss => t.loss = option(name, tf::Loss::parse(value), tf::Loss::NAMES)?,
        Param::Offload => t.offload = switch(name, value)?,
        Param::BucketM => t.bucket_m = tf::BUCKET_M.parse(value)?,
        Param::Prefetch => t.prefetch = tf::PREFETCH.parse(value)?,
        Param::DsPrefetch => t.ds_prefetch = tf::DS_PREFETCH.parse(value)?,
        Param::DsLive => t.ds_live = tf::DS_LIVE.parse(value)?,
        Param::DsPersist => t.ds_persist = tf::DS_PERSIST.parse(value)?,
        Param::ActOffload => t.act_offload = switch(name, value)?,
        Param::Logits => t.logits = option(name, tf::Logits::parse(value), tf::Logits::NAMES)?,
        Param::ZeroGrad => {
            t.zero_grad = option(name, tf::ZeroGrad::parse(value), tf::ZeroGrad::NAMES)?
        }
        Param::Outputs => t.outputs = option(name, tf::Outputs::parse(value), tf::Outputs::NAMES)?,
        Param::NormKernel => {
            t.norm_kernel = option(name, tf::NormKernel::parse(value), tf::NormKernel::NAMES)?
        }
        Param::LoraRank => t.lora_rank = tf::LORA_RANK.parse(value)?,
        Param::LoraTargets => {
            t.lora_targets = option(name, tf::LoraTargets::parse(value), tf::LoraTargets::NAMES)?
        }
        Param::LoraDropout => t.lora_dropout = switch(name, value)?,
        Param::BaseQuant => {
            t.base_quant = option(name, tf::BaseQuant::parse(value), tf::BaseQuant::NAMES)?
        }
        Param::DoubleQuant => t.double_quant = switch(name, value)?,
        Param::KvDtype => t.kv_dtype = option(name, tf::KvDtype::parse(value), tf::KvDtype::NAMES)?,
        Param::ParamOffload => t.param_offload = switch(name, value)?,
        Param::Fp8 => t.fp8 = option(name, tf::Fp8::parse(value), tf::Fp8::NAMES)?,
        Param::TrainEmbeddings => t.train_embeddings = switch(name, value)?,
        Param::Compile => t.compile = switch(name, value)?,
        Param::Reentrant => t.reentrant = switch(name, value)?,
        Param::GradAccumFusion => t.grad_accum_fusion = switch(name, value)?,
        Param::LoraVariant => {
            t.lora_variant = option(name, tf::LoraVariant::parse(value), tf::LoraVariant::NAMES)?
        }
        Param::Gpu => {
            let ids: &'static [&'static str] = DEVICE_IDS;
            config.device = Some(Device::Preset(option(name, presets::device(value), ids)?));
        }
        Param::GpuGb => {
            config.device = Some(Device::Custom {
                hundredths_gb: GPU_GB.parse(value)?,
            })
        }
        Param::OverheadGb => config.overhead = OVERHEAD_GB.parse(value)?,
        Param::Margin => config.margin = MARGIN.parse(value)?,
        Param::GlobalBatch => config.global_batch = GLOBAL_BATCH.parse(value)?,
        Param::Units => config.units = option(name, value.parse().ok(), Units::NAMES)?,
        Param::Lang => config.lang = Some(option(name, Lang::parse(value), Lang::NAMES)?),
        Param::Embed => config.embed = switch(name, value)?,
        // Read first, by `parse` itself; here for completeness of the match.
        Param::Form => config.form = option(name, Form::parse(value), Form::NAMES)?,
    }
    Ok(())
}

/// The names a choice parameter accepts, in the order a form lists them;
/// `None` for parameters that are not choices (and for `model` and `gpu`,
/// whose ids are [`MODEL_IDS`] and [`DEVICE_IDS`]).
pub fn choices(param: Param) -> Option<&'static [&'static str]> {
    Some(match param {
        Param::Form => Form::NAMES,
        Param::Precision => Precision::NAMES,
        Param::Optimizer => tf::Optimizer::NAMES,
        Param::Framework => tf::Framework::NAMES,
        Param::Kind => tf::Kind::NAMES,
        Param::Mlp => tf::Mlp::NAMES,
        Param::Norm => tf::Norm::NAMES,
        Param::Block => tf::Block::NAMES,
        Param::Recipe => tf::Recipe::NAMES,
        Param::Recompute => tf::Recompute::NAMES,
        Param::RecomputeMethod => tf::RecomputeMethod::NAMES,
        Param::Attn => tf::Attention::NAMES,
        Param::Mode => tf::Mode::NAMES,
        Param::Quant => tf::Quant::NAMES,
        Param::Step => tf::Step::NAMES,
        Param::Loss => tf::Loss::NAMES,
        Param::Logits => tf::Logits::NAMES,
        Param::ZeroGrad => tf::ZeroGrad::NAMES,
        Param::Outputs => tf::Outputs::NAMES,
        Param::NormKernel => tf::NormKernel::NAMES,
        Param::FusedProj => tf::FusedProj::NAMES,
        Param::LoraTargets => tf::LoraTargets::NAMES,
        Param::BaseQuant => tf::BaseQuant::NAMES,
        Param::KvDtype => tf::KvDtype::NAMES,
        Param::LoraVariant => tf::LoraVariant::NAMES,
        Param::Fp8 => tf::Fp8::NAMES,
        Param::PpSchedule => Schedule::NAMES,
        Param::CpKind => CpKind::NAMES,
        Param::Units => Units::NAMES,
        Param::Lang => Lang::NAMES,
        Param::Zero => &["0", "1", "2", "3"],
        _ => return None,
    })
}

/// Every model preset id, in the order of [`presets::MODELS`].
pub const MODEL_IDS: &[&str] = &{
    let mut ids = [""; presets::MODELS.len()];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = presets::MODELS[i].id;
        i += 1;
    }
    ids
};

/// Every device preset id, in the order of [`presets::DEVICES`].
pub const DEVICE_IDS: &[&str] = &{
    let mut ids = [""; presets::DEVICES.len()];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = presets::DEVICES[i].id;
        i += 1;
    }
    ids
};

/// Splits `a=1&b=2` into decoded pairs; empty segments are skipped, a segment
/// without `=` is a parameter with an empty value.
fn pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|s| !s.is_empty()).map(|segment| {
        let (name, value) = segment.split_once('=').unwrap_or((segment, ""));
        (decode(name), decode(value))
    })
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte;
/// a malformed escape stays as typed and invalid UTF-8 becomes U+FFFD, so any
/// input decodes to some string.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| {
                    let h = std::str::from_utf8(h).ok()?;
                    u8::from_str_radix(h, 16).ok()
                });
                if let Some(byte) = hex {
                    out.push(byte);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

mod write;
pub use write::{arch_values, encode, to_query, values};

mod pair;
pub use pair::{B_PREFIX, Pair, differing, parse_pair, to_query_pair, toggles};

#[cfg(test)]
pub(crate) mod tests;
