//! Writing a configuration back as the URL format: the query string and
//! each parameter's value as [`super::parse`] reads it.

use super::{
    COMMON_PARAMETERS, Config, Form, GPU_GB, Lang, Param, TRANSFORMER_PARAMETERS, form_parameters,
    rules,
};
use crate::fields;
use crate::presets::Device;
use crate::transformer::{self as tf, Architecture, TransformerInput};

fn bit(value: bool) -> String {
    u8::from(value).to_string()
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
pub(super) const ARCH_PARAMETERS: &[Param] = TRANSFORMER_PARAMETERS.split_at(2).1.split_at(41).0;

/// The architecture's parameters, in the documented order, each written as
/// [`parse`](super::parse) reads it back: what a config.json import (`hf::import`) sets.
pub fn arch_values(arch: &Architecture) -> [(Param, String); 41] {
    [
        (Param::Kind, arch.kind.name().to_owned()),
        (Param::Layers, arch.layers.to_string()),
        (Param::Hidden, arch.hidden.to_string()),
        (Param::Heads, arch.heads.to_string()),
        (Param::KvHeads, arch.kv_heads.to_string()),
        (Param::HeadDim, arch.head_dim.to_string()),
        (Param::Ffn, arch.ffn.to_string()),
        (Param::Mlp, arch.mlp.name().to_owned()),
        (Param::Norm, arch.norm.name().to_owned()),
        (Param::Vocab, arch.vocab.to_string()),
        (Param::Tied, bit(arch.tied)),
        (Param::Bias, bit(arch.bias)),
        (Param::QkvBias, bit(arch.qkv_bias)),
        (Param::QkNorm, bit(arch.qk_norm)),
        (Param::Positions, arch.positions.to_string()),
        (Param::TokenTypes, arch.token_types.to_string()),
        (Param::Labels, arch.labels.to_string()),
        (Param::Dropout, bit(arch.dropout)),
        (Param::Image, arch.image.to_string()),
        (Param::Patch, arch.patch.to_string()),
        (Param::Channels, arch.channels.to_string()),
        (Param::QkNormFull, bit(arch.qk_norm_full)),
        (Param::Block, arch.block.name().to_owned()),
        (Param::Window, arch.window.to_string()),
        (Param::GlobalEvery, arch.global_every.to_string()),
        (Param::Softcap, bit(arch.softcap)),
        (Param::AttnSoftcap, bit(arch.attn_softcap)),
        (Param::AttnSinks, bit(arch.attn_sinks)),
        (Param::Experts, arch.experts.to_string()),
        (Param::ExpertsActive, arch.experts_active.to_string()),
        (Param::ExpertFfn, arch.expert_ffn.to_string()),
        (Param::SharedExperts, arch.shared_experts.to_string()),
        (Param::SharedFfn, arch.shared_ffn.to_string()),
        (Param::FirstDenseLayers, arch.first_dense_layers.to_string()),
        (Param::MoeEvery, arch.moe_every.to_string()),
        (Param::KvLoraRank, arch.kv_lora_rank.to_string()),
        (Param::QLoraRank, arch.q_lora_rank.to_string()),
        (Param::QkRopeHeadDim, arch.qk_rope_head_dim.to_string()),
        (Param::QkNopeHeadDim, arch.qk_nope_head_dim.to_string()),
        (Param::VHeadDim, arch.v_head_dim.to_string()),
        (Param::FusedProj, arch.fused_proj.name().to_owned()),
    ]
}

/// Every parameter this version knows, with `config`'s value written the way
/// [`parse`](super::parse) reads it back, whatever the form: the page fills its fields from
/// this (a link opened on one form keeps the other forms' values ready).
/// Optional choices that are absent (no model preset, no device, the browser's
/// language) are empty strings; `gpu_gb` then holds its default.
pub fn values(config: &Config) -> Vec<(Param, String)> {
    let act = &config.activations;
    let par = &config.parameters;
    let t = &config.transformer;
    let mut out: Vec<(Param, String)> = vec![
        (Param::Form, config.form.name().to_owned()),
        (Param::Batch, config.batch().to_string()),
        (Param::Seq, act.seq.to_string()),
        (Param::Hidden, act.hidden.to_string()),
        (Param::Layers, act.layers.to_string()),
        (Param::Precision, act.precision.name().to_owned()),
        (Param::K, fields::format_hundredths(act.k.hundredths())),
        (Param::Ckpt, bit(act.checkpointing)),
        (Param::Params, fields::format_count(par.params)),
        (Param::ActMb, fields::format_hundredths(par.act_mb)),
        (
            Param::Optimizer,
            match config.form {
                Form::Parameters => par.optimizer.name(),
                Form::Activations | Form::Transformer => t.optimizer.name(),
            }
            .to_owned(),
        ),
        (Param::Model, config.model.map_or("", |m| m.id).to_owned()),
        (Param::Framework, t.framework.name().to_owned()),
    ];
    out.extend(
        arch_values(&t.arch)
            .into_iter()
            .filter(|(name, _)| !matches!(name, Param::Layers | Param::Hidden)),
    );
    out.extend([
        (Param::Recipe, t.recipe.name().to_owned()),
        (Param::Recompute, t.recompute.name().to_owned()),
        (Param::RecomputeMethod, t.recompute_method.name().to_owned()),
        (Param::RecomputeLayers, t.recompute_layers.to_string()),
        (Param::RecomputeModules, t.recompute_modules.text()),
        (Param::Attn, t.attention.name().to_owned()),
        (Param::Mode, t.mode.name().to_owned()),
        (Param::Gen, t.generated.to_string()),
        (Param::Quant, t.quant.name().to_owned()),
        (Param::Gpus, t.gpus.to_string()),
        (Param::Zero, t.zero.to_string()),
        (Param::Tp, t.tp.to_string()),
        (Param::Ep, t.ep.to_string()),
        (Param::Etp, t.etp.to_string()),
        (
            Param::CapacityFactor,
            fields::format_hundredths(t.capacity_factor),
        ),
        (Param::CapacityPad, bit(t.capacity_pad)),
        (Param::Pp, t.pp.to_string()),
        (Param::PpSchedule, t.pp_schedule.name().to_owned()),
        (Param::Vpp, t.vpp.to_string()),
        (Param::Microbatches, t.microbatches.to_string()),
        (Param::PpLayout, t.pp_layout.text()),
        (Param::PpStage, t.pp_stage.text()),
        (Param::Cp, t.cp.to_string()),
        (Param::CpKind, t.cp_kind.name().to_owned()),
        (Param::Sp, bit(t.sp)),
        (Param::Foreach, bit(t.foreach)),
        (Param::Step, t.step.name().to_owned()),
        (Param::Loss, t.loss.name().to_owned()),
        (Param::Offload, bit(t.offload)),
        (Param::BucketM, t.bucket_m.to_string()),
        (Param::Prefetch, t.prefetch.to_string()),
        (Param::DsPrefetch, t.ds_prefetch.to_string()),
        (Param::DsLive, t.ds_live.to_string()),
        (Param::DsPersist, t.ds_persist.to_string()),
        (Param::ActOffload, bit(t.act_offload)),
        (Param::Logits, t.logits.name().to_owned()),
        (Param::ZeroGrad, t.zero_grad.name().to_owned()),
        (Param::Outputs, t.outputs.name().to_owned()),
        (Param::NormKernel, t.norm_kernel.name().to_owned()),
        (Param::LoraRank, t.lora_rank.to_string()),
        (Param::LoraTargets, t.lora_targets.name().to_owned()),
        (Param::LoraDropout, bit(t.lora_dropout)),
        (Param::BaseQuant, t.base_quant.name().to_owned()),
        (Param::DoubleQuant, bit(t.double_quant)),
        (Param::KvDtype, t.kv_dtype.name().to_owned()),
        (Param::KvLayout, t.kv_layout.name().to_owned()),
        (Param::ParamOffload, bit(t.param_offload)),
        (Param::LoraVariant, t.lora_variant.name().to_owned()),
        (Param::Fp8, t.fp8.name().to_owned()),
        (Param::TrainEmbeddings, bit(t.train_embeddings)),
        (Param::Compile, bit(t.compile)),
        (Param::Reentrant, bit(t.reentrant)),
        (Param::GradAccumFusion, bit(t.grad_accum_fusion)),
        (
            Param::GpuMemoryUtilization,
            fields::format_hundredths(t.engine.gpu_memory_utilization),
        ),
        (Param::MaxModelLen, t.engine.max_model_len.to_string()),
        (Param::MaxNumSeqs, t.engine.max_num_seqs.to_string()),
        (
            Param::MaxNumBatchedTokens,
            t.engine.max_num_batched_tokens.to_string(),
        ),
        (Param::BlockSize, t.engine.block_size.to_string()),
        (Param::EnforceEager, bit(t.engine.enforce_eager)),
        (Param::MaxGpus, config.max_gpus.to_string()),
        (Param::HostGb, fields::format_hundredths(config.host_gb)),
    ]);
    let (gpu, gpu_gb) = match config.device {
        Some(Device::Preset(preset)) => (preset.id, GPU_GB.default),
        Some(Device::Custom { hundredths_gb }) => ("", hundredths_gb),
        None => ("", GPU_GB.default),
    };
    out.extend([
        (Param::Gpu, gpu.to_owned()),
        (Param::GpuGb, fields::format_hundredths(gpu_gb)),
        (
            Param::OverheadGb,
            fields::format_hundredths(config.overhead),
        ),
        (Param::Margin, fields::format_hundredths(config.margin)),
        (Param::GlobalBatch, config.global_batch.to_string()),
        (Param::Units, config.units.name().to_owned()),
        (Param::Lang, config.lang.map_or("", Lang::name).to_owned()),
        (Param::Embed, bit(config.embed)),
    ]);
    out
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
