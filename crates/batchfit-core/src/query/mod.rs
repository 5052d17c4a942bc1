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
use crate::fields::{HundredthsField, ParamError, Problem, WholeField};
pub use crate::param::Param;
use crate::parameters::{self, ParametersInput};
use crate::presets::{self, Device, ModelPreset};
use crate::transformer::pipeline::{self, CpKind, Layout, Schedule, StageChoice};
use crate::transformer::{self as tf, TransformerInput};
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
    /// How the page shows itself inside another page's iframe.
    pub enum Embed {
        /// Not embedded: the whole calculator with its top bar.
        Off = "0",
        /// The calculator without its top bar and below-the-fold sections.
        Full = "1",
        /// The answer alone, for a docs column: the headline, the verdict,
        /// the bar and a link to the full page.
        Compact = "compact",
    }
    default Off
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
/// The GPUs the user can use, for the advice (`memory::fixes` never
/// proposes a job on more); 0: the job's own GPUs.
pub const MAX_GPUS: WholeField = WholeField {
    param: Param::MaxGpus,
    min: 0,
    max: 1_048_576,
    default: 0,
};
/// The host's RAM in hundredths of a GB, for the advice (an offload that
/// needs more is not proposed); 0: unknown, and every offload says what it
/// needs.
pub const HOST_GB: HundredthsField = HundredthsField {
    param: Param::HostGb,
    min: 0,
    max: 100_000_000,
    default: 0,
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
    /// The GPUs the advice may use ([`MAX_GPUS`]); 0: the job's own.
    pub max_gpus: u64,
    /// The host's RAM in hundredths of a GB ([`HOST_GB`]); 0: unknown.
    pub host_gb: u64,
    /// Hundredths of a GB.
    pub overhead: u64,
    /// Hundredths of a percent.
    pub margin: u64,
    pub global_batch: u64,
    pub units: Units,
    pub lang: Option<Lang>,
    /// Whether and how the page is embedded in an iframe.
    pub embed: Embed,
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
            max_gpus: MAX_GPUS.default,
            host_gb: HOST_GB.default,
            overhead: OVERHEAD_GB.default,
            margin: MARGIN.default,
            global_batch: GLOBAL_BATCH.default,
            units: Units::default(),
            lang: None,
            embed: Embed::Off,
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
    Param::LinearMixer,
    Param::FullAttentionInterval,
    Param::LinearNumKeyHeads,
    Param::LinearKeyHeadDim,
    Param::LinearNumValueHeads,
    Param::LinearValueHeadDim,
    Param::LinearConvKernelDim,
    Param::AttnOutputGate,
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
    Param::GradientAsBucketView,
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
    Param::PrepareKbit,
    Param::KvDtype,
    Param::KvLayout,
    Param::CacheImplementation,
    Param::LogitsToKeep,
    Param::ParamOffload,
    Param::LoraVariant,
    Param::Fp8,
    Param::TrainEmbeddings,
    Param::Compile,
    Param::GpuMemoryUtilization,
    Param::MaxModelLen,
    Param::MaxNumSeqs,
    Param::MaxNumBatchedTokens,
    Param::BlockSize,
    Param::EnforceEager,
    Param::FlashinferSampler,
    Param::MaxGpus,
    Param::HostGb,
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

/// The question the bare address answers (issue 28): a common model on a
/// common card, fine-tuned as people do on one card (QLoRA with the settings
/// the QLoRA what-if sets, full recomputation, micro-batch 2). An address
/// that names no setup parameter (none at all, or only `lang`, `units` and
/// `embed`) opens it; one that names any other keeps `form`'s default, the
/// rule of thumb, so every link written before means what it meant.
pub const FIRST_SCREEN: &str = "form=transformer&model=llama-3.1-8b&batch=2&seq=2048&recipe=bf16&recompute=full&lora_rank=16&base_quant=nf4&double_quant=1&prepare_kbit=1&gpu=rtx-4090";

/// Whether `query` names no setup parameter (see [`FIRST_SCREEN`]).
pub(super) fn opens_first_screen(query: &str) -> bool {
    pairs(query).all(|(name, _)| {
        name.starts_with(B_PREFIX)
            || Param::from_name(&name)
                .is_none_or(|p| matches!(p, Param::Lang | Param::Units | Param::Embed))
    })
}

/// Whether the address `text` states the first screen's setup: it opens
/// it ([`opens_first_screen`]), or names [`FIRST_SCREEN`]'s parameters as
/// the page writes them, in that order, beside any `lang`, `units` and
/// `embed`. (What the page's pre-rendered transformer shell says without
/// its module.)
pub fn states_first_screen(text: &str) -> bool {
    let query = query_part(text);
    let page_only = |pair: &&str| {
        let name = pair.split('=').next().unwrap_or_default();
        pair.is_empty()
            || matches!(
                Param::from_name(name),
                Some(Param::Lang | Param::Units | Param::Embed)
            )
    };
    opens_first_screen(query)
        || query
            .split('&')
            .filter(|pair| !page_only(pair))
            .eq(FIRST_SCREEN.split('&'))
}

/// Reads a query string (with or without its leading `?`, or a whole URL).
pub fn parse(text: &str) -> Parsed {
    let query = query_part(text);
    if opens_first_screen(query) {
        return parse(&format!("{FIRST_SCREEN}&{query}"));
    }
    // One slot per parameter, in the order the query was written: each has at
    // most one problem, and they are reported in that order.
    let mut problems: Vec<Option<ParamError>> = Vec::new();
    let mut known: Vec<(usize, Param, String)> = Vec::new();
    // Setup B's parameters are `parse_pair`'s.
    let own = pairs(query).filter(|(name, _)| !name.starts_with(B_PREFIX));
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
    if config.form == Form::Transformer {
        rules::check(&mut config, |param, problem| {
            // Reported on the parameter where the query gave it; the first
            // problem a parameter has is the one it shows.
            if let Some((index, ..)) = known.iter().find(|(_, n, _)| *n == param)
                && problems[*index].is_none()
            {
                problems[*index] = Some(ParamError::new(param, problem));
            }
        });
    }
    Parsed {
        config: config.synced(),
        problems: problems.into_iter().flatten().collect(),
    }
}

/// Reads the page's fields: `text` gives a parameter's field text, `None`
/// where its field sends nothing (an empty optional choice). A field that
/// does not apply ([`rules::applies`]) to the configuration the fields make
/// is hidden on the page: it is left out, not reported.
pub fn parse_fields(form: Form, text: impl Fn(Param) -> Option<String>) -> Parsed {
    let query = |keep: &dyn Fn(Param) -> bool| {
        let mut out = format!("form={}", form.name());
        for &param in form_parameters(form).iter().chain(COMMON_PARAMETERS) {
            if let Some(value) = text(param).filter(|_| keep(param)) {
                out.push('&');
                out.push_str(param.name());
                out.push('=');
                out.push_str(&encode(&value));
            }
        }
        out
    };
    let shown = parse(&query(&|_| true)).config;
    parse(&query(&|param| rules::applies(param, &shown)))
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

/// Sets `slot` to a parsed value, or hands on its error: one out-of-line
/// function per type, which [`apply`]'s arms return, so that no arm holds
/// its own copy of the error (docs/performance-log.md).
#[inline(never)]
fn set<T>(slot: &mut T, parsed: Result<T, ParamError>) -> Result<(), ParamError> {
    *slot = parsed?;
    Ok(())
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
        Param::Ckpt => return set(&mut act.checkpointing, switch(name, value)),
        Param::Params => return set(&mut par.params, parameters::PARAMS.parse(value)),
        Param::ActMb => return set(&mut par.act_mb, parameters::ACT_MB.parse(value)),
        Param::Optimizer if form == Form::Parameters => {
            par.optimizer = option(
                name,
                parameters::Optimizer::parse(value),
                parameters::Optimizer::NAMES,
            )?;
        }
        Param::Optimizer => {
            return set(
                &mut t.optimizer,
                option(name, tf::Optimizer::parse(value), tf::Optimizer::NAMES),
            );
        }
        Param::Model => {
            let ids: &'static [&'static str] = MODEL_IDS;
            let preset = option(name, presets::model(value), ids)?;
            config.model = Some(preset);
            config.transformer.arch = preset.arch;
        }
        Param::Kind => {
            return set(
                &mut arch.kind,
                option(name, tf::Kind::parse(value), tf::Kind::NAMES),
            );
        }
        Param::Heads => return set(&mut arch.heads, tf::HEADS.parse(value)),
        Param::KvHeads => return set(&mut arch.kv_heads, tf::KV_HEADS.parse(value)),
        Param::HeadDim => return set(&mut arch.head_dim, tf::HEAD_DIM.parse(value)),
        Param::Ffn => return set(&mut arch.ffn, tf::FFN.parse(value)),
        Param::Mlp => {
            return set(
                &mut arch.mlp,
                option(name, tf::Mlp::parse(value), tf::Mlp::NAMES),
            );
        }
        Param::Norm => {
            return set(
                &mut arch.norm,
                option(name, tf::Norm::parse(value), tf::Norm::NAMES),
            );
        }
        Param::Vocab => return set(&mut arch.vocab, tf::VOCAB.parse(value)),
        Param::Tied => return set(&mut arch.tied, switch(name, value)),
        Param::Bias => return set(&mut arch.bias, switch(name, value)),
        Param::QkvBias => return set(&mut arch.qkv_bias, switch(name, value)),
        Param::QkNorm => return set(&mut arch.qk_norm, switch(name, value)),
        Param::QkNormFull => return set(&mut arch.qk_norm_full, switch(name, value)),
        Param::AttnSinks => return set(&mut arch.attn_sinks, switch(name, value)),
        Param::Experts => return set(&mut arch.experts, tf::EXPERTS.parse(value)),
        Param::ExpertsActive => {
            return set(&mut arch.experts_active, tf::EXPERTS_ACTIVE.parse(value));
        }
        Param::ExpertFfn => return set(&mut arch.expert_ffn, tf::EXPERT_FFN.parse(value)),
        Param::SharedExperts => {
            return set(&mut arch.shared_experts, tf::SHARED_EXPERTS.parse(value));
        }
        Param::SharedFfn => return set(&mut arch.shared_ffn, tf::SHARED_FFN.parse(value)),
        Param::FirstDenseLayers => {
            return set(
                &mut arch.first_dense_layers,
                tf::FIRST_DENSE_LAYERS.parse(value),
            );
        }
        Param::MoeEvery => return set(&mut arch.moe_every, tf::MOE_EVERY.parse(value)),
        Param::KvLoraRank => return set(&mut arch.kv_lora_rank, tf::KV_LORA_RANK.parse(value)),
        Param::QLoraRank => return set(&mut arch.q_lora_rank, tf::Q_LORA_RANK.parse(value)),
        Param::QkRopeHeadDim => {
            return set(
                &mut arch.qk_rope_head_dim,
                tf::QK_ROPE_HEAD_DIM.parse(value),
            );
        }
        Param::QkNopeHeadDim => {
            return set(
                &mut arch.qk_nope_head_dim,
                tf::QK_NOPE_HEAD_DIM.parse(value),
            );
        }
        Param::VHeadDim => return set(&mut arch.v_head_dim, tf::V_HEAD_DIM.parse(value)),
        Param::FusedProj => {
            return set(
                &mut arch.fused_proj,
                option(name, tf::FusedProj::parse(value), tf::FusedProj::NAMES),
            );
        }
        Param::LinearMixer => {
            return set(
                &mut arch.linear_mixer,
                option(name, tf::LinearMixer::parse(value), tf::LinearMixer::NAMES),
            );
        }
        Param::FullAttentionInterval => {
            return set(
                &mut arch.full_attention_interval,
                tf::FULL_ATTENTION_INTERVAL.parse(value),
            );
        }
        Param::LinearNumKeyHeads => {
            return set(
                &mut arch.linear_num_key_heads,
                tf::LINEAR_NUM_KEY_HEADS.parse(value),
            );
        }
        Param::LinearKeyHeadDim => {
            return set(
                &mut arch.linear_key_head_dim,
                tf::LINEAR_KEY_HEAD_DIM.parse(value),
            );
        }
        Param::LinearNumValueHeads => {
            return set(
                &mut arch.linear_num_value_heads,
                tf::LINEAR_NUM_VALUE_HEADS.parse(value),
            );
        }
        Param::LinearValueHeadDim => {
            return set(
                &mut arch.linear_value_head_dim,
                tf::LINEAR_VALUE_HEAD_DIM.parse(value),
            );
        }
        Param::LinearConvKernelDim => {
            return set(
                &mut arch.linear_conv_kernel_dim,
                tf::LINEAR_CONV_KERNEL_DIM.parse(value),
            );
        }
        Param::AttnOutputGate => return set(&mut arch.attn_output_gate, switch(name, value)),
        Param::Positions => return set(&mut arch.positions, tf::POSITIONS.parse(value)),
        Param::TokenTypes => return set(&mut arch.token_types, tf::TOKEN_TYPES.parse(value)),
        Param::Labels => return set(&mut arch.labels, tf::LABELS.parse(value)),
        Param::Dropout => return set(&mut arch.dropout, switch(name, value)),
        Param::Image => return set(&mut arch.image, tf::IMAGE.parse(value)),
        Param::Patch => return set(&mut arch.patch, tf::PATCH.parse(value)),
        Param::Channels => return set(&mut arch.channels, tf::CHANNELS.parse(value)),
        Param::Block => {
            return set(
                &mut arch.block,
                option(name, tf::Block::parse(value), tf::Block::NAMES),
            );
        }
        Param::Window => return set(&mut arch.window, tf::WINDOW.parse(value)),
        Param::GlobalEvery => return set(&mut arch.global_every, tf::GLOBAL_EVERY.parse(value)),
        Param::Softcap => return set(&mut arch.softcap, switch(name, value)),
        Param::AttnSoftcap => return set(&mut arch.attn_softcap, switch(name, value)),
        Param::Recipe => {
            return set(
                &mut t.recipe,
                option(name, tf::Recipe::parse(value), tf::Recipe::NAMES),
            );
        }
        Param::Recompute => {
            return set(
                &mut t.recompute,
                option(name, tf::Recompute::parse(value), tf::Recompute::NAMES),
            );
        }
        Param::RecomputeMethod => {
            return set(
                &mut t.recompute_method,
                option(
                    name,
                    tf::RecomputeMethod::parse(value),
                    tf::RecomputeMethod::NAMES,
                ),
            );
        }
        Param::RecomputeLayers => {
            return set(&mut t.recompute_layers, tf::RECOMPUTE_LAYERS.parse(value));
        }
        Param::RecomputeModules => {
            return set(&mut t.recompute_modules, tf::RecomputeModules::parse(value));
        }
        Param::Attn => {
            return set(
                &mut t.attention,
                option(name, tf::Attention::parse(value), tf::Attention::NAMES),
            );
        }
        Param::Mode => {
            return set(
                &mut t.mode,
                option(name, tf::Mode::parse(value), tf::Mode::NAMES),
            );
        }
        Param::Gen => return set(&mut t.generated, tf::GEN.parse(value)),
        Param::Quant => {
            return set(
                &mut t.quant,
                option(name, tf::Quant::parse(value), tf::Quant::NAMES),
            );
        }
        Param::Gpus => return set(&mut t.gpus, tf::GPUS.parse(value)),
        // ZERO's bound is 3: the conversion cannot fail.
        Param::Zero => t.zero = u8::try_from(tf::ZERO.parse(value)?).unwrap_or(3),
        Param::Tp => return set(&mut t.tp, tf::TP.parse(value)),
        Param::Ep => return set(&mut t.ep, tf::EP.parse(value)),
        Param::Etp => return set(&mut t.etp, tf::ETP.parse(value)),
        Param::CapacityFactor => {
            return set(&mut t.capacity_factor, tf::CAPACITY_FACTOR.parse(value));
        }
        Param::CapacityPad => return set(&mut t.capacity_pad, switch(name, value)),
        Param::Pp => return set(&mut t.pp, pipeline::PP.parse(value)),
        Param::PpSchedule => {
            return set(
                &mut t.pp_schedule,
                option(name, Schedule::parse(value), Schedule::NAMES),
            );
        }
        Param::Vpp => return set(&mut t.vpp, pipeline::VPP.parse(value)),
        Param::Microbatches => {
            return set(&mut t.microbatches, pipeline::MICROBATCHES.parse(value));
        }
        Param::PpLayout => return set(&mut t.pp_layout, Layout::parse(value)),
        Param::PpStage => return set(&mut t.pp_stage, StageChoice::parse(value)),
        Param::Cp => return set(&mut t.cp, pipeline::CP.parse(value)),
        Param::CpKind => {
            return set(
                &mut t.cp_kind,
                option(name, CpKind::parse(value), CpKind::NAMES),
            );
        }
        Param::Sp => return set(&mut t.sp, switch(name, value)),
        Param::Foreach => return set(&mut t.foreach, switch(name, value)),
        Param::Framework => {
            option(name, tf::Framework::parse(value), tf::Framework::NAMES)?.apply(t)
        }
        Param::Step => {
            return set(
                &mut t.step,
                option(name, tf::Step::parse(value), tf::Step::NAMES),
            );
        }
        Param::Loss => {
            return set(
                &mut t.loss,
                option(name, tf::Loss::parse(value), tf::Loss::NAMES),
            );
        }
        Param::Offload => return set(&mut t.offload, switch(name, value)),
        Param::BucketM => return set(&mut t.bucket_m, tf::BUCKET_M.parse(value)),
        Param::GradientAsBucketView => return set(&mut t.bucket_view, switch(name, value)),
        Param::Prefetch => return set(&mut t.prefetch, tf::PREFETCH.parse(value)),
        Param::DsPrefetch => return set(&mut t.ds_prefetch, tf::DS_PREFETCH.parse(value)),
        Param::DsLive => return set(&mut t.ds_live, tf::DS_LIVE.parse(value)),
        Param::DsPersist => return set(&mut t.ds_persist, tf::DS_PERSIST.parse(value)),
        Param::ActOffload => return set(&mut t.act_offload, switch(name, value)),
        Param::Logits => {
            return set(
                &mut t.logits,
                option(name, tf::Logits::parse(value), tf::Logits::NAMES),
            );
        }
        Param::ZeroGrad => {
            return set(
                &mut t.zero_grad,
                option(name, tf::ZeroGrad::parse(value), tf::ZeroGrad::NAMES),
            );
        }
        Param::Outputs => {
            return set(
                &mut t.outputs,
                option(name, tf::Outputs::parse(value), tf::Outputs::NAMES),
            );
        }
        Param::NormKernel => {
            return set(
                &mut t.norm_kernel,
                option(name, tf::NormKernel::parse(value), tf::NormKernel::NAMES),
            );
        }
        Param::LoraRank => return set(&mut t.lora_rank, tf::LORA_RANK.parse(value)),
        Param::LoraTargets => {
            return set(
                &mut t.lora_targets,
                option(name, tf::LoraTargets::parse(value), tf::LoraTargets::NAMES),
            );
        }
        Param::LoraDropout => return set(&mut t.lora_dropout, switch(name, value)),
        Param::BaseQuant => {
            return set(
                &mut t.base_quant,
                option(name, tf::BaseQuant::parse(value), tf::BaseQuant::NAMES),
            );
        }
        Param::DoubleQuant => return set(&mut t.double_quant, switch(name, value)),
        Param::PrepareKbit => return set(&mut t.prepare_kbit, switch(name, value)),
        Param::KvDtype => {
            return set(
                &mut t.kv_dtype,
                option(name, tf::KvDtype::parse(value), tf::KvDtype::NAMES),
            );
        }
        Param::KvLayout => {
            return set(
                &mut t.kv_layout,
                option(name, tf::KvLayout::parse(value), tf::KvLayout::NAMES),
            );
        }
        Param::LogitsToKeep => return set(&mut t.logits_to_keep, tf::LOGITS_TO_KEEP.parse(value)),
        Param::CacheImplementation => {
            return set(
                &mut t.cache,
                option(name, tf::CacheImpl::parse(value), tf::CacheImpl::NAMES),
            );
        }
        Param::ParamOffload => return set(&mut t.param_offload, switch(name, value)),
        Param::Fp8 => {
            return set(
                &mut t.fp8,
                option(name, tf::Fp8::parse(value), tf::Fp8::NAMES),
            );
        }
        Param::TrainEmbeddings => return set(&mut t.train_embeddings, switch(name, value)),
        Param::Compile => return set(&mut t.compile, switch(name, value)),
        Param::Reentrant => return set(&mut t.reentrant, switch(name, value)),
        Param::GradAccumFusion => return set(&mut t.grad_accum_fusion, switch(name, value)),
        Param::GpuMemoryUtilization => {
            return set(
                &mut t.engine.gpu_memory_utilization,
                tf::GPU_MEMORY_UTILIZATION.parse(value),
            );
        }
        Param::MaxModelLen => {
            return set(&mut t.engine.max_model_len, tf::MAX_MODEL_LEN.parse(value));
        }
        Param::MaxNumSeqs => return set(&mut t.engine.max_num_seqs, tf::MAX_NUM_SEQS.parse(value)),
        Param::MaxNumBatchedTokens => {
            return set(
                &mut t.engine.max_num_batched_tokens,
                tf::MAX_NUM_BATCHED_TOKENS.parse(value),
            );
        }
        Param::BlockSize => return set(&mut t.engine.block_size, tf::BLOCK_SIZE.parse(value)),
        Param::EnforceEager => return set(&mut t.engine.enforce_eager, switch(name, value)),
        Param::FlashinferSampler => {
            return set(&mut t.engine.flashinfer_sampler, switch(name, value));
        }
        Param::LoraVariant => {
            return set(
                &mut t.lora_variant,
                option(name, tf::LoraVariant::parse(value), tf::LoraVariant::NAMES),
            );
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
        Param::MaxGpus => return set(&mut config.max_gpus, MAX_GPUS.parse(value)),
        Param::HostGb => return set(&mut config.host_gb, HOST_GB.parse(value)),
        Param::OverheadGb => return set(&mut config.overhead, OVERHEAD_GB.parse(value)),
        Param::Margin => return set(&mut config.margin, MARGIN.parse(value)),
        Param::GlobalBatch => return set(&mut config.global_batch, GLOBAL_BATCH.parse(value)),
        Param::Units => {
            return set(
                &mut config.units,
                option(name, value.parse().ok(), Units::NAMES),
            );
        }
        Param::Lang => config.lang = Some(option(name, Lang::parse(value), Lang::NAMES)?),
        // The switch's spellings stay what they were: `1` is the full embed.
        Param::Embed => {
            config.embed = match Embed::parse(value) {
                Some(embed) => embed,
                None => match switch(name, value) {
                    Ok(true) => Embed::Full,
                    Ok(false) => Embed::Off,
                    Err(_) => option(name, None, Embed::NAMES)?,
                },
            }
        }
        // Read first, by `parse` itself; here for completeness of the match.
        Param::Form => {
            return set(
                &mut config.form,
                option(name, Form::parse(value), Form::NAMES),
            );
        }
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
        Param::LinearMixer => tf::LinearMixer::NAMES,
        Param::LoraTargets => tf::LoraTargets::NAMES,
        Param::BaseQuant => tf::BaseQuant::NAMES,
        Param::KvDtype => tf::KvDtype::NAMES,
        Param::KvLayout => tf::KvLayout::NAMES,
        Param::CacheImplementation => tf::CacheImpl::NAMES,
        Param::LoraVariant => tf::LoraVariant::NAMES,
        Param::Fp8 => tf::Fp8::NAMES,
        Param::PpSchedule => Schedule::NAMES,
        Param::CpKind => CpKind::NAMES,
        Param::Units => Units::NAMES,
        Param::Lang => Lang::NAMES,
        Param::Embed => Embed::NAMES,
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

/// The text `query` gives `param`, decoded (the first, where it is given
/// twice): what a page shows in the field of a value it rejected, as the user
/// wrote it.
pub fn given(query: &str, param: Param) -> Option<String> {
    pairs(query_part(query))
        .find(|(name, _)| name == param.name())
        .map(|(_, value)| value)
}

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

pub mod rules;
mod write;
pub use write::{arch_values, encode, shown_values, to_query, values};

mod pair;
pub use pair::{B_PREFIX, Pair, differing, parse_pair, to_query_pair, toggles};

#[cfg(test)]
pub(crate) mod tests;
