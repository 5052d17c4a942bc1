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
use crate::parameters::{self, ParametersInput};
use crate::presets::{self, Device, ModelPreset};
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
    name: "gpu_gb",
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
    name: "overhead_gb",
    min: 0,
    max: 100_000,
    default: 100,
};
/// Safety margin in percent, in hundredths of a percent (0 – 100 %).
pub const MARGIN: HundredthsField = HundredthsField {
    name: "margin",
    min: 0,
    max: 10_000,
    default: 0,
};
/// Target global batch for gradient accumulation (0 = none).
pub const GLOBAL_BATCH: WholeField = WholeField {
    name: "global_batch",
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
pub const ACTIVATIONS_PARAMETERS: &[&str] =
    &["batch", "seq", "hidden", "layers", "precision", "k", "ckpt"];
/// The parameters form's parameters, in order.
pub const PARAMETERS_PARAMETERS: &[&str] = &["params", "precision", "optimizer", "batch", "act_mb"];
/// The transformer form's parameters, in order.
pub const TRANSFORMER_PARAMETERS: &[&str] = &[
    "model",
    "framework",
    "kind",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "ffn",
    "mlp",
    "norm",
    "vocab",
    "tied",
    "bias",
    "qkv_bias",
    "positions",
    "token_types",
    "labels",
    "dropout",
    "image",
    "patch",
    "channels",
    "batch",
    "seq",
    "recipe",
    "optimizer",
    "recompute",
    "attn",
    "mode",
    "gen",
    "quant",
    "gpus",
    "zero",
    "tp",
    "sp",
    "foreach",
    "step",
    "loss",
    "offload",
    "bucket_m",
    "prefetch",
    "act_offload",
    "logits",
];
/// Parameters every form takes, in order.
pub const COMMON_PARAMETERS: &[&str] = &[
    "gpu",
    "gpu_gb",
    "overhead_gb",
    "margin",
    "global_batch",
    "units",
    "lang",
    "embed",
];

fn form_parameters(form: Form) -> &'static [&'static str] {
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

/// The `'static` spelling of a parameter this version knows.
fn known_name(name: &str) -> Option<&'static str> {
    ["form"]
        .iter()
        .chain(ACTIVATIONS_PARAMETERS)
        .chain(PARAMETERS_PARAMETERS)
        .chain(TRANSFORMER_PARAMETERS)
        .chain(COMMON_PARAMETERS)
        .find(|&&known| known == name)
        .copied()
}

/// Reads a query string (with or without its leading `?`, or a whole URL).
pub fn parse(text: &str) -> Parsed {
    // One slot per parameter, in the order the query was written: each has at
    // most one problem, and they are reported in that order.
    let mut problems: Vec<Option<ParamError>> = Vec::new();
    let mut known: Vec<(usize, &'static str, String)> = Vec::new();
    for (index, (raw_name, value)) in pairs(query_part(text)).enumerate() {
        problems.push(match known_name(&raw_name) {
            None => Some(ParamError::new(raw_name, Problem::Unknown)),
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
    if let Some((index, name, value)) = known.iter().find(|(_, n, _)| *n == "form") {
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
    let applies = |name: &str| {
        name != "form"
            && (COMMON_PARAMETERS.contains(&name) || form_parameters(form).contains(&name))
    };
    // A model preset is the base the other architecture parameters change, and
    // a framework profile the base of the other settings.
    let is_base = |n: &str| matches!(n, "model" | "framework");
    let presets_first = known
        .iter()
        .filter(|(_, n, _)| is_base(n))
        .chain(known.iter().filter(|(_, n, _)| !is_base(n)));
    let mut device_from: Option<&'static str> = None;
    for (index, name, value) in presets_first {
        if !applies(name) {
            continue;
        }
        if matches!(*name, "gpu" | "gpu_gb") {
            if let Some(first) = device_from {
                problems[*index] = Some(ParamError::new(*name, Problem::Conflict { with: first }));
                continue;
            }
            device_from = Some(name);
        }
        if let Err(error) = apply(&mut config, name, value) {
            problems[*index] = Some(error);
        }
    }
    Parsed {
        config: config.synced(),
        problems: problems.into_iter().flatten().collect(),
    }
}

fn switch(name: &'static str, value: &str) -> Result<bool, ParamError> {
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
    name: &'static str,
    parsed: Option<T>,
    allowed: &'static [&'static str],
) -> Result<T, ParamError> {
    parsed.ok_or_else(|| ParamError::new(name, Problem::NotAnOption { allowed }))
}

/// Sets one parameter of the current form (or of every form) on `config`,
/// leaving it untouched on error.
fn apply(config: &mut Config, name: &'static str, value: &str) -> Result<(), ParamError> {
    let form = config.form;
    let act = &mut config.activations;
    let par = &mut config.parameters;
    let t = &mut config.transformer;
    let arch = &mut t.arch;
    match name {
        "batch" => {
            let batch = activations::BATCH.parse(value)?;
            (act.batch, par.batch, t.batch) = (batch, batch, batch);
        }
        "seq" => {
            let seq = activations::SEQ.parse(value)?;
            (act.seq, t.seq) = (seq, seq);
        }
        "hidden" => {
            let hidden = activations::HIDDEN.parse(value)?;
            (act.hidden, arch.hidden) = (hidden, hidden);
        }
        "layers" => {
            let layers = activations::LAYERS.parse(value)?;
            (act.layers, arch.layers) = (layers, layers);
        }
        "precision" => {
            let precision = option(name, value.parse::<Precision>().ok(), Precision::NAMES)?;
            (act.precision, par.precision) = (precision, precision);
        }
        "k" => act.k = Multiplier::from_hundredths(activations::K.parse(value)?),
        "ckpt" => act.checkpointing = switch(name, value)?,
        "params" => par.params = parameters::PARAMS.parse(value)?,
        "act_mb" => par.act_mb = parameters::ACT_MB.parse(value)?,
        "optimizer" if form == Form::Parameters => {
            par.optimizer = option(
                name,
                parameters::Optimizer::parse(value),
                parameters::Optimizer::NAMES,
            )?;
        }
        "optimizer" => {
            t.optimizer = option(name, tf::Optimizer::parse(value), tf::Optimizer::NAMES)?
        }
        "model" => {
            let ids: &'static [&'static str] = MODEL_IDS;
            let preset = option(name, presets::model(value), ids)?;
            config.model = Some(preset);
            config.transformer.arch = preset.arch;
        }
        "kind" => arch.kind = option(name, tf::Kind::parse(value), tf::Kind::NAMES)?,
        "heads" => arch.heads = tf::HEADS.parse(value)?,
        "kv_heads" => arch.kv_heads = tf::KV_HEADS.parse(value)?,
        "head_dim" => arch.head_dim = tf::HEAD_DIM.parse(value)?,
        "ffn" => arch.ffn = tf::FFN.parse(value)?,
        "mlp" => arch.mlp = option(name, tf::Mlp::parse(value), tf::Mlp::NAMES)?,
        "norm" => arch.norm = option(name, tf::Norm::parse(value), tf::Norm::NAMES)?,
        "vocab" => arch.vocab = tf::VOCAB.parse(value)?,
        "tied" => arch.tied = switch(name, value)?,
        "bias" => arch.bias = switch(name, value)?,
        "qkv_bias" => arch.qkv_bias = switch(name, value)?,
        "positions" => arch.positions = tf::POSITIONS.parse(value)?,
        "token_types" => arch.token_types = tf::TOKEN_TYPES.parse(value)?,
        "labels" => arch.labels = tf::LABELS.parse(value)?,
        "dropout" => arch.dropout = switch(name, value)?,
        "image" => arch.image = tf::IMAGE.parse(value)?,
        "patch" => arch.patch = tf::PATCH.parse(value)?,
        "channels" => arch.channels = tf::CHANNELS.parse(value)?,
        "recipe" => t.recipe = option(name, tf::Recipe::parse(value), tf::Recipe::NAMES)?,
        "recompute" => {
            t.recompute = option(name, tf::Recompute::parse(value), tf::Recompute::NAMES)?
        }
        "attn" => t.attention = option(name, tf::Attention::parse(value), tf::Attention::NAMES)?,
        "mode" => t.mode = option(name, tf::Mode::parse(value), tf::Mode::NAMES)?,
        "gen" => t.generated = tf::GEN.parse(value)?,
        "quant" => t.quant = option(name, tf::Quant::parse(value), tf::Quant::NAMES)?,
        "gpus" => t.gpus = tf::GPUS.parse(value)?,
        // ZERO's bound is 3: the conversion cannot fail.
        "zero" => t.zero = u8::try_from(tf::ZERO.parse(value)?).unwrap_or(3),
        "tp" => t.tp = tf::TP.parse(value)?,
        "sp" => t.sp = switch(name, value)?,
        "foreach" => t.foreach = switch(name, value)?,
        "framework" => option(name, tf::Framework::parse(value), tf::Framework::NAMES)?.apply(t),
        "step" => t.step = option(name, tf::Step::parse(value), tf::Step::NAMES)?,
        "loss" => t.loss = option(name, tf::Loss::parse(value), tf::Loss::NAMES)?,
        "offload" => t.offload = switch(name, value)?,
        "bucket_m" => t.bucket_m = tf::BUCKET_M.parse(value)?,
        "prefetch" => t.prefetch = tf::PREFETCH.parse(value)?,
        "act_offload" => t.act_offload = switch(name, value)?,
        "logits" => t.logits = option(name, tf::Logits::parse(value), tf::Logits::NAMES)?,
        "gpu" => {
            let ids: &'static [&'static str] = DEVICE_IDS;
            config.device = Some(Device::Preset(option(name, presets::device(value), ids)?));
        }
        "gpu_gb" => {
            config.device = Some(Device::Custom {
                hundredths_gb: GPU_GB.parse(value)?,
            })
        }
        "overhead_gb" => config.overhead = OVERHEAD_GB.parse(value)?,
        "margin" => config.margin = MARGIN.parse(value)?,
        "global_batch" => config.global_batch = GLOBAL_BATCH.parse(value)?,
        "units" => config.units = option(name, value.parse().ok(), Units::NAMES)?,
        "lang" => config.lang = Some(option(name, Lang::parse(value), Lang::NAMES)?),
        "embed" => config.embed = switch(name, value)?,
        // `parse` only passes names from the lists above, all handled here.
        _ => return Err(ParamError::new(name, Problem::Unknown)),
    }
    Ok(())
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

fn bit(value: bool) -> String {
    u8::from(value).to_string()
}

/// Writes `config` as a query string (no leading `?`): the form, every parameter
/// of the current form in the documented order (the transformer form writes its
/// model preset and only the architecture values that differ from it, and its
/// other settings only when not at their defaults), then the common parameters
/// that are not at their defaults.
pub fn to_query(config: &Config) -> String {
    let mut pairs: Vec<(&str, String)> = vec![("form", config.form.name().to_owned())];
    match config.form {
        Form::Activations => {
            let act = &config.activations;
            pairs.extend([
                ("batch", act.batch.to_string()),
                ("seq", act.seq.to_string()),
                ("hidden", act.hidden.to_string()),
                ("layers", act.layers.to_string()),
                ("precision", act.precision.name().to_owned()),
                ("k", fields::format_hundredths(act.k.hundredths())),
                ("ckpt", bit(act.checkpointing)),
            ]);
        }
        Form::Parameters => {
            let par = &config.parameters;
            pairs.extend([
                ("params", fields::format_count(par.params)),
                ("precision", par.precision.name().to_owned()),
                ("optimizer", par.optimizer.name().to_owned()),
                ("batch", par.batch.to_string()),
                ("act_mb", fields::format_hundredths(par.act_mb)),
            ]);
        }
        Form::Transformer => transformer_pairs(config, &mut pairs),
    }
    if let Some(device) = config.device {
        pairs.push(match device {
            Device::Preset(preset) => ("gpu", preset.id.to_owned()),
            Device::Custom { hundredths_gb } => {
                ("gpu_gb", fields::format_hundredths(hundredths_gb))
            }
        });
    }
    let defaults = Config::default();
    let optional = [
        (
            "overhead_gb",
            fields::format_hundredths(config.overhead),
            fields::format_hundredths(defaults.overhead),
        ),
        (
            "margin",
            fields::format_hundredths(config.margin),
            fields::format_hundredths(defaults.margin),
        ),
        (
            "global_batch",
            config.global_batch.to_string(),
            defaults.global_batch.to_string(),
        ),
        (
            "units",
            config.units.name().to_owned(),
            defaults.units.name().to_owned(),
        ),
        (
            "lang",
            config.lang.map_or("", Lang::name).to_owned(),
            String::new(),
        ),
        ("embed", bit(config.embed), bit(defaults.embed)),
    ];
    pairs.extend(
        optional
            .into_iter()
            .filter(|(_, value, default)| value != default)
            .map(|(name, value, _)| (name, value)),
    );
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The architecture's parameters, in the documented order.
fn arch_values(arch: &Architecture) -> [(&'static str, String); 20] {
    [
        ("kind", arch.kind.name().to_owned()),
        ("layers", arch.layers.to_string()),
        ("hidden", arch.hidden.to_string()),
        ("heads", arch.heads.to_string()),
        ("kv_heads", arch.kv_heads.to_string()),
        ("head_dim", arch.head_dim.to_string()),
        ("ffn", arch.ffn.to_string()),
        ("mlp", arch.mlp.name().to_owned()),
        ("norm", arch.norm.name().to_owned()),
        ("vocab", arch.vocab.to_string()),
        ("tied", bit(arch.tied)),
        ("bias", bit(arch.bias)),
        ("qkv_bias", bit(arch.qkv_bias)),
        ("positions", arch.positions.to_string()),
        ("token_types", arch.token_types.to_string()),
        ("labels", arch.labels.to_string()),
        ("dropout", bit(arch.dropout)),
        ("image", arch.image.to_string()),
        ("patch", arch.patch.to_string()),
        ("channels", arch.channels.to_string()),
    ]
}

/// Every parameter this version knows, with `config`'s value written the way
/// [`parse`] reads it back, whatever the form: the page fills its fields from
/// this (a link opened on one form keeps the other forms' values ready).
/// Optional choices that are absent (no model preset, no device, the browser's
/// language) are empty strings; `gpu_gb` then holds its default.
pub fn values(config: &Config) -> Vec<(&'static str, String)> {
    let act = &config.activations;
    let par = &config.parameters;
    let t = &config.transformer;
    let mut out: Vec<(&'static str, String)> = vec![
        ("form", config.form.name().to_owned()),
        ("batch", config.batch().to_string()),
        ("seq", act.seq.to_string()),
        ("hidden", act.hidden.to_string()),
        ("layers", act.layers.to_string()),
        ("precision", act.precision.name().to_owned()),
        ("k", fields::format_hundredths(act.k.hundredths())),
        ("ckpt", bit(act.checkpointing)),
        ("params", fields::format_count(par.params)),
        ("act_mb", fields::format_hundredths(par.act_mb)),
        (
            "optimizer",
            match config.form {
                Form::Parameters => par.optimizer.name(),
                Form::Activations | Form::Transformer => t.optimizer.name(),
            }
            .to_owned(),
        ),
        ("model", config.model.map_or("", |m| m.id).to_owned()),
        ("framework", t.framework.name().to_owned()),
    ];
    out.extend(
        arch_values(&t.arch)
            .into_iter()
            .filter(|(name, _)| !matches!(*name, "layers" | "hidden")),
    );
    out.extend([
        ("recipe", t.recipe.name().to_owned()),
        ("recompute", t.recompute.name().to_owned()),
        ("attn", t.attention.name().to_owned()),
        ("mode", t.mode.name().to_owned()),
        ("gen", t.generated.to_string()),
        ("quant", t.quant.name().to_owned()),
        ("gpus", t.gpus.to_string()),
        ("zero", t.zero.to_string()),
        ("tp", t.tp.to_string()),
        ("sp", bit(t.sp)),
        ("foreach", bit(t.foreach)),
        ("step", t.step.name().to_owned()),
        ("loss", t.loss.name().to_owned()),
        ("offload", bit(t.offload)),
        ("bucket_m", t.bucket_m.to_string()),
        ("prefetch", t.prefetch.to_string()),
        ("act_offload", bit(t.act_offload)),
        ("logits", t.logits.name().to_owned()),
    ]);
    let (gpu, gpu_gb) = match config.device {
        Some(Device::Preset(preset)) => (preset.id, GPU_GB.default),
        Some(Device::Custom { hundredths_gb }) => ("", hundredths_gb),
        None => ("", GPU_GB.default),
    };
    out.extend([
        ("gpu", gpu.to_owned()),
        ("gpu_gb", fields::format_hundredths(gpu_gb)),
        ("overhead_gb", fields::format_hundredths(config.overhead)),
        ("margin", fields::format_hundredths(config.margin)),
        ("global_batch", config.global_batch.to_string()),
        ("units", config.units.name().to_owned()),
        ("lang", config.lang.map_or("", Lang::name).to_owned()),
        ("embed", bit(config.embed)),
    ]);
    out
}

fn transformer_pairs(config: &Config, pairs: &mut Vec<(&'static str, String)>) {
    let t = &config.transformer;
    let a = &t.arch;
    let base = config.model.map(|m| m.arch);
    if let Some(model) = config.model {
        pairs.push(("model", model.id.to_owned()));
    }
    if t.framework != tf::Framework::default() {
        pairs.push(("framework", t.framework.name().to_owned()));
    }
    let ours = arch_values(a);
    match base {
        Some(preset) => {
            let theirs = arch_values(&preset);
            pairs.extend(
                ours.into_iter()
                    .zip(theirs)
                    .filter(|(o, p)| o != p)
                    .map(|(o, _)| o),
            );
        }
        None => pairs.extend(ours),
    }
    pairs.push(("batch", t.batch.to_string()));
    pairs.push(("seq", t.seq.to_string()));
    // Settings are written where they differ from the profile's defaults.
    let d = t.framework.defaults();
    let settings = [
        ("recipe", t.recipe.name().to_owned(), d.recipe.name()),
        (
            "optimizer",
            t.optimizer.name().to_owned(),
            d.optimizer.name(),
        ),
        (
            "recompute",
            t.recompute.name().to_owned(),
            d.recompute.name(),
        ),
        ("attn", t.attention.name().to_owned(), d.attention.name()),
        ("mode", t.mode.name().to_owned(), d.mode.name()),
    ];
    for (name, value, default) in settings {
        if value != default {
            pairs.push((name, value));
        }
    }
    if t.generated != d.generated {
        pairs.push(("gen", t.generated.to_string()));
    }
    if t.quant != d.quant {
        pairs.push(("quant", t.quant.name().to_owned()));
    }
    for (name, value, default) in [
        ("gpus", t.gpus, d.gpus),
        ("zero", u64::from(t.zero), u64::from(d.zero)),
        ("tp", t.tp, d.tp),
    ] {
        if value != default {
            pairs.push((name, value.to_string()));
        }
    }
    for (name, value, default) in [("sp", t.sp, d.sp), ("foreach", t.foreach, d.foreach)] {
        if value != default {
            pairs.push((name, bit(value)));
        }
    }
    for (name, value, default) in [
        ("step", t.step.name(), d.step.name()),
        ("loss", t.loss.name(), d.loss.name()),
    ] {
        if value != default {
            pairs.push((name, value.to_owned()));
        }
    }
    if t.offload != d.offload {
        pairs.push(("offload", bit(t.offload)));
    }
    if t.bucket_m != d.bucket_m {
        pairs.push(("bucket_m", t.bucket_m.to_string()));
    }
    if t.prefetch != d.prefetch {
        pairs.push(("prefetch", t.prefetch.to_string()));
    }
    if t.act_offload != d.act_offload {
        pairs.push(("act_offload", bit(t.act_offload)));
    }
    if t.logits != d.logits {
        pairs.push(("logits", t.logits.name().to_owned()));
    }
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

/// Percent-encodes everything but unreserved characters (RFC 3986 §2.3).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
