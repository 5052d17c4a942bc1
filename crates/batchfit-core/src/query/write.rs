//! Writing a configuration back as the URL format: the query string and
//! each parameter's value as [`super::parse`] reads it.

use super::{
    COMMON_PARAMETERS, Config, Form, GPU_GB, Lang, Param, TRANSFORMER_PARAMETERS, form_parameters,
    rules,
};
use crate::fields;
use crate::presets::Device;
use crate::transformer::{self as tf, Architecture, TransformerInput};

/// A value before it is written: each kind is written by one call, not one
/// per parameter.
enum Value {
    Whole(u64),
    Name(&'static str),
    Hundredths(u64),
    Bit(bool),
    Text(String),
}

impl Value {
    fn written(self) -> String {
        match self {
            Self::Whole(n) => n.to_string(),
            Self::Name(name) => name.to_owned(),
            Self::Hundredths(n) => fields::format_hundredths(n),
            Self::Bit(on) => u8::from(on).to_string(),
            Self::Text(text) => text,
        }
    }
}

/// `list` with each value written.
fn written<const N: usize>(list: [(Param, Value); N]) -> [(Param, String); N] {
    list.map(|(param, value)| (param, value.written()))
}

/// Writes `config` as a query string (no leading `?`): the form, every parameter
/// of the current form in the documented order (the transformer form writes its
/// model preset and only the architecture values that differ from it, and its
/// other settings only when not at their defaults), then the common parameters
/// that are not at their defaults. Every value is [`values`]'s text: the page's
/// fields, shared links and the CLI spell a value one way.
pub fn to_query(config: &Config) -> String {
    let config = config.synced();
    let ours = values(&config);
    // The texts the optional parameters are written against: the defaults,
    // the framework profile's settings, the preset's architecture.
    let mut base = Config {
        form: config.form,
        ..Config::default()
    };
    if config.form == Form::Transformer {
        let t = &config.transformer;
        base.transformer = TransformerInput {
            arch: config.model.map_or(t.arch, |m| m.arch),
            ..t.framework.defaults()
        };
        base = base.synced();
    }
    let theirs = values(&base);
    let text = |list: &[(Param, String)], param: Param| {
        list.iter()
            .find(|(p, _)| *p == param)
            .map_or(String::new(), |(_, v)| v.clone())
    };
    let custom = matches!(config.device, Some(Device::Custom { .. }));
    let architecture = |p: Param| ARCH_PARAMETERS.contains(&p);
    let written = |param: Param, value: &str| match param {
        Param::Form => true,
        Param::Gpu => config.device.is_some() && !custom,
        Param::GpuGb => custom,
        Param::Model | Param::Lang => !value.is_empty(),
        Param::Framework => value != tf::Framework::default().name(),
        // The napkin forms write every parameter they have; the transformer
        // form its batch and sequence, and every architecture value when no
        // preset is its base.
        _ if config.form != Form::Transformer && form_parameters(config.form).contains(&param) => {
            true
        }
        Param::Batch | Param::Seq => true,
        _ if config.model.is_none() && architecture(param) => true,
        _ => value != text(&theirs, param),
    };
    std::iter::once(Param::Form)
        .chain(form_parameters(config.form).iter().copied())
        .chain(COMMON_PARAMETERS.iter().copied())
        .filter_map(|param| {
            let value = text(&ours, param);
            // What does not apply here is left out: `parse` would report it.
            (rules::applies(param, &config) && written(param, &value))
                .then(|| format!("{}={}", param.name(), encode(&value)))
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The architecture's parameters, in the documented order of [`arch_values`]:
/// the transformer form's list after `model` and `framework`, up to `batch`
/// (evaluated at compile time: no bound is checked at run time).
pub(super) const ARCH_PARAMETERS: &[Param] = TRANSFORMER_PARAMETERS.split_at(2).1.split_at(49).0;

/// The architecture's parameters, in the documented order, each written as
/// [`parse`](super::parse) reads it back: what a config.json import (`hf::import`) sets.
pub fn arch_values(arch: &Architecture) -> [(Param, String); 49] {
    written([
        (Param::Kind, Value::Name(arch.kind.name())),
        (Param::Layers, Value::Whole(arch.layers)),
        (Param::Hidden, Value::Whole(arch.hidden)),
        (Param::Heads, Value::Whole(arch.heads)),
        (Param::KvHeads, Value::Whole(arch.kv_heads)),
        (Param::HeadDim, Value::Whole(arch.head_dim)),
        (Param::Ffn, Value::Whole(arch.ffn)),
        (Param::Mlp, Value::Name(arch.mlp.name())),
        (Param::Norm, Value::Name(arch.norm.name())),
        (Param::Vocab, Value::Whole(arch.vocab)),
        (Param::Tied, Value::Bit(arch.tied)),
        (Param::Bias, Value::Bit(arch.bias)),
        (Param::QkvBias, Value::Bit(arch.qkv_bias)),
        (Param::QkNorm, Value::Bit(arch.qk_norm)),
        (Param::Positions, Value::Whole(arch.positions)),
        (Param::TokenTypes, Value::Whole(arch.token_types)),
        (Param::Labels, Value::Whole(arch.labels)),
        (Param::Dropout, Value::Bit(arch.dropout)),
        (Param::Image, Value::Whole(arch.image)),
        (Param::Patch, Value::Whole(arch.patch)),
        (Param::Channels, Value::Whole(arch.channels)),
        (Param::QkNormFull, Value::Bit(arch.qk_norm_full)),
        (Param::Block, Value::Name(arch.block.name())),
        (Param::Window, Value::Whole(arch.window)),
        (Param::GlobalEvery, Value::Whole(arch.global_every)),
        (Param::Softcap, Value::Bit(arch.softcap)),
        (Param::AttnSoftcap, Value::Bit(arch.attn_softcap)),
        (Param::AttnSinks, Value::Bit(arch.attn_sinks)),
        (Param::Experts, Value::Whole(arch.experts)),
        (Param::ExpertsActive, Value::Whole(arch.experts_active)),
        (Param::ExpertFfn, Value::Whole(arch.expert_ffn)),
        (Param::SharedExperts, Value::Whole(arch.shared_experts)),
        (Param::SharedFfn, Value::Whole(arch.shared_ffn)),
        (
            Param::FirstDenseLayers,
            Value::Whole(arch.first_dense_layers),
        ),
        (Param::MoeEvery, Value::Whole(arch.moe_every)),
        (Param::KvLoraRank, Value::Whole(arch.kv_lora_rank)),
        (Param::QLoraRank, Value::Whole(arch.q_lora_rank)),
        (Param::QkRopeHeadDim, Value::Whole(arch.qk_rope_head_dim)),
        (Param::QkNopeHeadDim, Value::Whole(arch.qk_nope_head_dim)),
        (Param::VHeadDim, Value::Whole(arch.v_head_dim)),
        (Param::FusedProj, Value::Name(arch.fused_proj.name())),
        (Param::LinearMixer, Value::Name(arch.linear_mixer.name())),
        (
            Param::FullAttentionInterval,
            Value::Whole(arch.full_attention_interval),
        ),
        (
            Param::LinearNumKeyHeads,
            Value::Whole(arch.linear_num_key_heads),
        ),
        (
            Param::LinearKeyHeadDim,
            Value::Whole(arch.linear_key_head_dim),
        ),
        (
            Param::LinearNumValueHeads,
            Value::Whole(arch.linear_num_value_heads),
        ),
        (
            Param::LinearValueHeadDim,
            Value::Whole(arch.linear_value_head_dim),
        ),
        (
            Param::LinearConvKernelDim,
            Value::Whole(arch.linear_conv_kernel_dim),
        ),
        (Param::AttnOutputGate, Value::Bit(arch.attn_output_gate)),
    ])
}

/// Every parameter this version knows, with `config`'s value written the way
/// [`parse`](super::parse) reads it back, whatever the form: the page fills its fields from
/// this (a link opened on one form keeps the other forms' values ready).
/// Optional choices that are absent (no model preset, no device, the browser's
/// language) are empty strings; `gpu_gb` then holds its default.
pub fn values(config: &Config) -> Vec<(Param, String)> {
    let t = &config.transformer;
    let mut out: Vec<(Param, String)> = Vec::from(shown_values(config));
    out.extend(written([
        (Param::Form, Value::Name(config.form.name())),
        (Param::Framework, Value::Name(t.framework.name())),
    ]));
    out.extend(
        arch_values(&t.arch)
            .into_iter()
            .filter(|(name, _)| !matches!(name, Param::Layers | Param::Hidden)),
    );
    out.extend(written([
        (Param::Recipe, Value::Name(t.recipe.name())),
        (Param::Recompute, Value::Name(t.recompute.name())),
        (
            Param::RecomputeMethod,
            Value::Name(t.recompute_method.name()),
        ),
        (Param::RecomputeLayers, Value::Whole(t.recompute_layers)),
        (
            Param::RecomputeModules,
            Value::Text(t.recompute_modules.text()),
        ),
        (Param::Attn, Value::Name(t.attention.name())),
        (Param::Mode, Value::Name(t.mode.name())),
        (Param::Quant, Value::Name(t.quant.name())),
        (Param::Zero, Value::Whole(u64::from(t.zero))),
        (Param::Tp, Value::Whole(t.tp)),
        (Param::Ep, Value::Whole(t.ep)),
        (Param::Etp, Value::Whole(t.etp)),
        (Param::CapacityFactor, Value::Hundredths(t.capacity_factor)),
        (Param::CapacityPad, Value::Bit(t.capacity_pad)),
        (Param::Pp, Value::Whole(t.pp)),
        (Param::PpSchedule, Value::Name(t.pp_schedule.name())),
        (Param::Vpp, Value::Whole(t.vpp)),
        (Param::Microbatches, Value::Whole(t.microbatches)),
        (Param::PpLayout, Value::Text(t.pp_layout.text())),
        (Param::PpStage, Value::Text(t.pp_stage.text())),
        (Param::Cp, Value::Whole(t.cp)),
        (Param::CpKind, Value::Name(t.cp_kind.name())),
        (Param::Sp, Value::Bit(t.sp)),
        (Param::Foreach, Value::Bit(t.foreach)),
        (Param::Step, Value::Name(t.step.name())),
        (Param::Loss, Value::Name(t.loss.name())),
        (Param::Offload, Value::Bit(t.offload)),
        (Param::BucketM, Value::Whole(t.bucket_m)),
        (Param::GradientAsBucketView, Value::Bit(t.bucket_view)),
        (Param::Prefetch, Value::Whole(t.prefetch)),
        (Param::DsPrefetch, Value::Whole(t.ds_prefetch)),
        (Param::DsLive, Value::Whole(t.ds_live)),
        (Param::DsPersist, Value::Whole(t.ds_persist)),
        (Param::ActOffload, Value::Bit(t.act_offload)),
        (Param::Logits, Value::Name(t.logits.name())),
        (Param::ZeroGrad, Value::Name(t.zero_grad.name())),
        (Param::Outputs, Value::Name(t.outputs.name())),
        (Param::NormKernel, Value::Name(t.norm_kernel.name())),
        (Param::LoraRank, Value::Whole(t.lora_rank)),
        (Param::LoraTargets, Value::Name(t.lora_targets.name())),
        (Param::LoraDropout, Value::Bit(t.lora_dropout)),
        (Param::BaseQuant, Value::Name(t.base_quant.name())),
        (Param::DoubleQuant, Value::Bit(t.double_quant)),
        (Param::PrepareKbit, Value::Bit(t.prepare_kbit)),
        (Param::KvDtype, Value::Name(t.kv_dtype.name())),
        (Param::KvLayout, Value::Name(t.kv_layout.name())),
        (Param::CacheImplementation, Value::Name(t.cache.name())),
        (Param::LogitsToKeep, Value::Whole(t.logits_to_keep)),
        (Param::ParamOffload, Value::Bit(t.param_offload)),
        (Param::LoraVariant, Value::Name(t.lora_variant.name())),
        (Param::Fp8, Value::Name(t.fp8.name())),
        (Param::TrainEmbeddings, Value::Bit(t.train_embeddings)),
        (Param::Compile, Value::Bit(t.compile)),
        (Param::Reentrant, Value::Bit(t.reentrant)),
        (Param::GradAccumFusion, Value::Bit(t.grad_accum_fusion)),
        (
            Param::GpuMemoryUtilization,
            Value::Hundredths(t.engine.gpu_memory_utilization),
        ),
        (Param::MaxModelLen, Value::Whole(t.engine.max_model_len)),
        (Param::MaxNumSeqs, Value::Whole(t.engine.max_num_seqs)),
        (
            Param::MaxNumBatchedTokens,
            Value::Whole(t.engine.max_num_batched_tokens),
        ),
        (Param::BlockSize, Value::Whole(t.engine.block_size)),
        (Param::EnforceEager, Value::Bit(t.engine.enforce_eager)),
        (
            Param::FlashinferSampler,
            Value::Bit(t.engine.flashinfer_sampler),
        ),
        (Param::MaxGpus, Value::Whole(config.max_gpus)),
        (Param::HostGb, Value::Hundredths(config.host_gb)),
        (Param::OverheadGb, Value::Hundredths(config.overhead)),
        (Param::Margin, Value::Hundredths(config.margin)),
        (Param::GlobalBatch, Value::Whole(config.global_batch)),
        (Param::Lang, Value::Name(config.lang.map_or("", Lang::name))),
        (Param::Embed, Value::Name(config.embed.name())),
    ]));
    out
}

/// The parameters of the fields the forms show before a section is opened
/// (the shells `cargo xtask dist` pre-renders), part of [`values`] and
/// written by it: the page's first part fills a shell from these alone,
/// without the writer of every parameter (issue 31's split, whose first
/// part carries what the first answer needs).
pub fn shown_values(config: &Config) -> [(Param, String); 16] {
    let act = &config.activations;
    let par = &config.parameters;
    let t = &config.transformer;
    let (gpu, gpu_gb) = match config.device {
        Some(Device::Preset(preset)) => (preset.id, GPU_GB.default),
        Some(Device::Custom { hundredths_gb }) => ("", hundredths_gb),
        None => ("", GPU_GB.default),
    };
    written([
        (Param::Units, Value::Name(config.units.name())),
        (Param::Gpu, Value::Name(gpu)),
        (Param::GpuGb, Value::Hundredths(gpu_gb)),
        (Param::Batch, Value::Whole(config.batch())),
        (Param::Seq, Value::Whole(act.seq)),
        (Param::Hidden, Value::Whole(act.hidden)),
        (Param::Layers, Value::Whole(act.layers)),
        (Param::Precision, Value::Name(act.precision.name())),
        (Param::K, Value::Hundredths(act.k.hundredths())),
        (Param::Ckpt, Value::Bit(act.checkpointing)),
        (Param::Params, Value::Text(fields::format_count(par.params))),
        (Param::ActMb, Value::Hundredths(par.act_mb)),
        (
            Param::Optimizer,
            Value::Name(match config.form {
                Form::Parameters => par.optimizer.name(),
                Form::Activations | Form::Transformer => t.optimizer.name(),
            }),
        ),
        (Param::Model, Value::Name(config.model.map_or("", |m| m.id))),
        (Param::Gpus, Value::Whole(t.gpus)),
        (Param::Gen, Value::Whole(t.generated)),
    ])
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
