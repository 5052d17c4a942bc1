//! Which parameter applies when: one table, read by everything that decides it.
//!
//! A parameter of the transformer form can mean something only beside another
//! setting: inference's weight quantization only in inference, LoRA's variant only
//! with a rank, a pipeline's schedule only with two stages or more. Each such
//! condition is one [`Rule`] in [`RULES`]. [`super::parse`] reports a parameter the
//! query gives where a rule of it does not hold, and resets it ([`enforce`]);
//! [`super::to_query`] leaves it out; the page shows a field only where
//! [`applies`] says so; the fix search proposes no change that breaks a rule
//! ([`keeps_rules`]).
//!
//! ```
//! use batchfit_core::fields::Needed;
//! use batchfit_core::query::{self, rules, Param};
//!
//! let lora = query::parse("form=transformer&lora_rank=16&recipe=main_fp32").config;
//! // The frozen base computes no weight gradient to fuse.
//! assert!(!rules::applies(Param::GradAccumFusion, &lora));
//! assert_eq!(rules::needs(Param::GradAccumFusion, &lora), Some((Param::LoraRank, Needed::Is("0"))));
//! ```

use super::{COMMON_PARAMETERS, Config, Form, form_parameters};
use crate::fields::{self, Needed, Problem};
use crate::param::Param;
use crate::transformer::pipeline::{CpKind, Schedule, StageChoice};
use crate::transformer::{
    self as tf, Architecture, BaseQuant, Kind, Loss, Mode, Recipe, Recompute, TransformerInput,
};
use Needed::{Above, AtLeast, Either, Is, Not, SixteenBitRecipe};

/// `param` applies only where `holds`; the report names what it needs as
/// `needs=value`.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    pub param: Param,
    pub needs: Param,
    pub value: Needed,
    holds: fn(&TransformerInput) -> bool,
    /// The value a parameter that does not apply is reset to.
    reset: Reset,
    /// Whether [`super::parse`] reports the parameter where the rule does
    /// not hold. The rules a version before this table had not checked are
    /// quiet: links written then may carry such a value (an optimizer in an
    /// inference link), and it changes nothing, so it is dropped unreported.
    pub reported: bool,
}

/// Where the value of a parameter that does not apply comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reset {
    /// The model's default ([`TransformerInput::default`]).
    Default,
    /// The framework profile's ([`tf::Framework::defaults`]).
    Profile,
    /// The model preset's architecture (the default one without a preset).
    Preset,
}

use Reset::{Default, Preset, Profile};

const fn rule(
    param: Param,
    needs: Param,
    value: Needed,
    holds: fn(&TransformerInput) -> bool,
    reset: Reset,
) -> Rule {
    Rule {
        param,
        needs,
        value,
        holds,
        reset,
        reported: true,
    }
}

/// A rule [`super::parse`] keeps without a report (see [`Rule::reported`]).
const fn quiet(
    param: Param,
    needs: Param,
    value: Needed,
    holds: fn(&TransformerInput) -> bool,
    reset: Reset,
) -> Rule {
    Rule {
        reported: false,
        ..rule(param, needs, value, holds, reset)
    }
}

fn training(t: &TransformerInput) -> bool {
    t.mode == Mode::Train
}

fn inference(t: &TransformerInput) -> bool {
    t.mode == Mode::Inference
}

/// A serving engine's profile in inference (vLLM, SGLang): their flags
/// share the names vLLM gives them (docs/url-parameters.md).
fn served(t: &TransformerInput) -> bool {
    t.framework.engine() && inference(t)
}

fn linear(t: &TransformerInput) -> bool {
    t.arch.linear_mixer != tf::LinearMixer::None
}

fn moe(t: &TransformerInput) -> bool {
    t.arch.moe()
}

fn mla(t: &TransformerInput) -> bool {
    t.arch.mla()
}

fn lora(t: &TransformerInput) -> bool {
    t.lora()
}

fn text_model(t: &TransformerInput) -> bool {
    t.arch.kind != Kind::Vision
}

/// The rules, in the order they are checked: a rule's condition is settled
/// (its own rules checked) before the rules that read it. The conditions on
/// `pp` and `cp` come last: the pipeline's and the context's checks
/// ([`super::parallel_problems`]) can still reset those two.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    // Inference's settings: what generate() runs with.
    quiet(Param::Gen, Param::Mode, Is("inference"), inference, Profile),
    rule(Param::Quant, Param::Mode, Is("inference"), inference, Default),
    rule(Param::KvDtype, Param::Mode, Is("inference"), inference, Default),
    rule(Param::KvLayout, Param::Mode, Is("inference"), inference, Default),
    // generate()'s cache: a decoder generating in 16 bits (the quantized
    // caches are their own classes), not a serving engine's pool.
    rule(Param::CacheImplementation, Param::Mode, Is("inference"), inference, Default),
    rule(Param::CacheImplementation, Param::Kind, Is("decoder"), |t| t.arch.kind == Kind::Decoder, Default),
    rule(Param::CacheImplementation, Param::KvDtype, Is("bf16"), |t| t.kv_dtype == tf::KvDtype::Bf16, Default),
    rule(Param::CacheImplementation, Param::Framework, Not("vllm"), |t| t.framework != tf::Framework::Vllm, Default),
    rule(Param::CacheImplementation, Param::Framework, Not("sglang"), |t| t.framework != tf::Framework::Sglang, Default),
    // generate()'s logits in the prefill: a decoder's, not an engine's
    // (which computes the requests' last positions apart).
    rule(Param::LogitsToKeep, Param::Mode, Is("inference"), inference, Default),
    rule(Param::LogitsToKeep, Param::Kind, Is("decoder"), |t| t.arch.kind == Kind::Decoder, Default),
    rule(Param::LogitsToKeep, Param::Framework, Not("vllm"), |t| t.framework != tf::Framework::Vllm, Default),
    rule(Param::LogitsToKeep, Param::Framework, Not("sglang"), |t| t.framework != tf::Framework::Sglang, Default),
    // A serving engine's flags, under its profile (which generates: a
    // training setup has no engine).
    rule(Param::GpuMemoryUtilization, Param::Framework, Either("vllm", "sglang"), served, Default),
    rule(Param::MaxModelLen, Param::Framework, Either("vllm", "sglang"), served, Default),
    rule(Param::MaxNumSeqs, Param::Framework, Either("vllm", "sglang"), served, Default),
    rule(Param::MaxNumBatchedTokens, Param::Framework, Either("vllm", "sglang"), served, Default),
    rule(Param::BlockSize, Param::Framework, Either("vllm", "sglang"), served, Default),
    rule(Param::EnforceEager, Param::Framework, Either("vllm", "sglang"), served, Default),
    // A batch is generate()'s: an engine schedules the requests it holds,
    // and its plan says how many fit (`serving::plan`, which reads no
    // batch). Quiet: links written before carry one, and it changed nothing.
    quiet(Param::Batch, Param::Framework, Not("vllm"), |t| !(served(t) && t.framework == tf::Framework::Vllm), Default),
    quiet(Param::Batch, Param::Framework, Not("sglang"), |t| !(served(t) && t.framework == tf::Framework::Sglang), Default),
    // vLLM's sampler (SGLang samples apart from its profiling).
    rule(Param::FlashinferSampler, Param::Framework, Is("vllm"), |t| served(t) && t.framework == tf::Framework::Vllm, Default),
    // Training's: the optimizer step, the backward pass and what they hold.
    rule(Param::Fp8, Param::Mode, Is("train"), training, Default),
    // The saved tensors Inductor's partitioner chooses exist in training
    // only; a compiled generate() keeps the same weights and cache.
    rule(Param::Compile, Param::Mode, Is("train"), training, Default),
    quiet(Param::Optimizer, Param::Mode, Is("train"), training, Profile),
    quiet(Param::Recompute, Param::Mode, Is("train"), training, Profile),
    quiet(Param::Step, Param::Mode, Is("train"), training, Profile),
    quiet(Param::Loss, Param::Mode, Is("train"), training, Profile),
    quiet(Param::Logits, Param::Mode, Is("train"), training, Profile),
    quiet(Param::ZeroGrad, Param::Mode, Is("train"), training, Profile),
    quiet(Param::NormKernel, Param::Mode, Is("train"), training, Profile),
    quiet(Param::LoraRank, Param::Mode, Is("train"), training, Profile),
    quiet(Param::Offload, Param::Mode, Is("train"), training, Profile),
    quiet(Param::ActOffload, Param::Mode, Is("train"), training, Profile),
    rule(Param::ParamOffload, Param::Mode, Is("train"), training, Default),
    quiet(Param::BucketM, Param::Mode, Is("train"), training, Profile),
    // PyTorch DDP's buckets: data-parallel training whose gradients no
    // other engine reduces (ZeRO, FSDP, Megatron's buffer, DeepSpeed's
    // stage 0 with its own bucket).
    rule(Param::GradientAsBucketView, Param::Mode, Is("train"), training, Default),
    rule(Param::GradientAsBucketView, Param::Gpus, AtLeast(2), |t| t.gpus >= 2, Default),
    rule(Param::GradientAsBucketView, Param::Zero, Is("0"), |t| t.zero == 0, Default),
    rule(Param::GradientAsBucketView, Param::Recipe, Not("fsdp"), |t| t.recipe != Recipe::Fsdp, Default),
    rule(Param::GradientAsBucketView, Param::Recipe, Not("main_fp32"), |t| t.recipe != Recipe::MainFp32, Default),
    rule(Param::GradientAsBucketView, Param::Framework, Not("deepspeed"), |t| t.framework != tf::Framework::Deepspeed, Default),
    quiet(Param::Prefetch, Param::Mode, Is("train"), training, Profile),
    // batchfit's inference is one process generating (docs/model.md,
    // "Pipeline parallelism"): neither splits it.
    rule(Param::Pp, Param::Mode, Is("train"), training, Default),
    rule(Param::Cp, Param::Mode, Is("train"), training, Default),
    // ZeRO-3's runtime buffers, which only DeepSpeed's engine has.
    quiet(Param::DsPrefetch, Param::Mode, Is("train"), training, Profile),
    quiet(Param::DsPrefetch, Param::Zero, Is("3"), |t| t.zero == 3, Profile),
    quiet(Param::DsPrefetch, Param::Framework, Is("deepspeed"), deepspeed, Profile),
    quiet(Param::DsLive, Param::Mode, Is("train"), training, Profile),
    quiet(Param::DsLive, Param::Zero, Is("3"), |t| t.zero == 3, Profile),
    quiet(Param::DsLive, Param::Framework, Is("deepspeed"), deepspeed, Profile),
    quiet(Param::DsPersist, Param::Mode, Is("train"), training, Profile),
    quiet(Param::DsPersist, Param::Zero, Is("3"), |t| t.zero == 3, Profile),
    quiet(Param::DsPersist, Param::Framework, Is("deepspeed"), deepspeed, Profile),
    // The experts' shape and their parallelism mean nothing in a dense model.
    rule(Param::ExpertsActive, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::ExpertFfn, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::SharedExperts, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::SharedFfn, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::FirstDenseLayers, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::MoeEvery, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::Ep, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::Etp, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::CapacityFactor, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::CapacityPad, Param::Experts, AtLeast(1), moe, Default),
    rule(Param::CapacityPad, Param::CapacityFactor, Above(0), |t| t.capacity_factor > 0, Default),
    // MLA's sizes mean nothing without its latent.
    rule(Param::QLoraRank, Param::KvLoraRank, AtLeast(1), mla, Default),
    rule(Param::KvLayout, Param::KvLoraRank, AtLeast(1), mla, Default),
    rule(Param::QkRopeHeadDim, Param::KvLoraRank, AtLeast(1), mla, Default),
    rule(Param::QkNopeHeadDim, Param::KvLoraRank, AtLeast(1), mla, Default),
    rule(Param::VHeadDim, Param::KvLoraRank, AtLeast(1), mla, Default),
    // A hybrid model's linear layers: a decoder's, without a sliding window
    // (no model batchfit knows has both); their sizes mean nothing without
    // their mixer.
    rule(Param::LinearMixer, Param::Kind, Is("decoder"), |t| t.arch.kind == Kind::Decoder, Default),
    rule(Param::Window, Param::LinearMixer, Is("none"), |t| !linear(t), Default),
    rule(Param::FullAttentionInterval, Param::LinearMixer, Not("none"), linear, Default),
    rule(Param::LinearNumKeyHeads, Param::LinearMixer, Not("none"), linear, Default),
    rule(Param::LinearKeyHeadDim, Param::LinearMixer, Not("none"), linear, Default),
    rule(Param::LinearNumValueHeads, Param::LinearMixer, Not("none"), linear, Default),
    rule(Param::LinearValueHeadDim, Param::LinearMixer, Not("none"), linear, Default),
    rule(Param::LinearConvKernelDim, Param::LinearMixer, Not("none"), linear, Default),
    // The QK-norm's extent, without it.
    rule(Param::QkNormFull, Param::QkNorm, Is("1"), |t| t.arch.qk_norm, Default),
    // Global layers mean something only beside windowed ones; a preset's
    // pattern under `window=0` is kept (the window alone is switched off).
    rule(Param::GlobalEvery, Param::Window, AtLeast(1), |t| t.arch.window > 0, Preset),
    // A vision transformer has patches and no vocabulary; a text model the
    // reverse.
    quiet(Param::Vocab, Param::Kind, Either("decoder", "encoder"), text_model, Preset),
    quiet(Param::Tied, Param::Kind, Either("decoder", "encoder"), text_model, Preset),
    quiet(Param::Image, Param::Kind, Is("vision"), |t| !text_model(t), Preset),
    quiet(Param::Patch, Param::Kind, Is("vision"), |t| !text_model(t), Preset),
    // Megatron-LM's gradient-accumulation fusion writes the weight gradients
    // into its FP32 main-gradient buffer: it means something where the
    // gradients go there (`recipe=main_fp32`), in training of the whole model.
    rule(Param::GradAccumFusion, Param::Recipe, Is("main_fp32"), |t| t.recipe == Recipe::MainFp32, Default),
    rule(Param::GradAccumFusion, Param::Mode, Is("train"), training, Default),
    // The frozen base computes no weight gradient.
    rule(Param::GradAccumFusion, Param::LoraRank, Is("0"), |t| !t.lora(), Default),
    // Which layers full recomputation checkpoints, and how, mean something
    // under full recomputation only (Megatron-LM arguments.py: no recompute
    // method with `selective`; torchtitan's layer frequency is its own mode).
    quiet(Param::RecomputeMethod, Param::Mode, Is("train"), training, Default),
    rule(Param::RecomputeMethod, Param::Recompute, Is("full"), full, Default),
    quiet(Param::RecomputeLayers, Param::Mode, Is("train"), training, Default),
    rule(Param::RecomputeLayers, Param::Recompute, Is("full"), full, Default),
    quiet(Param::Reentrant, Param::Mode, Is("train"), training, Profile),
    rule(Param::Reentrant, Param::Recompute, Is("full"), full, Profile),
    // Megatron-Core's `--recompute-modules` are read under `selective` only
    // (transformer_config.py `__post_init__`).
    quiet(Param::RecomputeModules, Param::Mode, Is("train"), training, Default),
    rule(Param::RecomputeModules, Param::Recompute, Is("selective"), |t| t.recompute == Recompute::Selective, Default),
    // LoRA's settings and a quantized base (QLoRA), with a rank, in training.
    rule(Param::LoraVariant, Param::LoraRank, AtLeast(1), lora, Default),
    quiet(Param::LoraTargets, Param::LoraRank, AtLeast(1), lora, Profile),
    quiet(Param::LoraDropout, Param::LoraRank, AtLeast(1), lora, Profile),
    rule(Param::BaseQuant, Param::LoraRank, AtLeast(1), lora, Default),
    quiet(Param::DoubleQuant, Param::LoraRank, AtLeast(1), lora, Profile),
    // bitsandbytes double-quantizes the absmaxes of a 4-bit code only
    // (`compress_statistics` of `Linear4bit`).
    quiet(Param::DoubleQuant, Param::BaseQuant, Either("nf4", "fp4"), four_bit, Profile),
    // PEFT's preparation casts what a quantized base leaves unquantized.
    rule(Param::PrepareKbit, Param::LoraRank, AtLeast(1), lora, Profile),
    rule(Param::PrepareKbit, Param::BaseQuant, Not("none"), |t| t.base_quant != BaseQuant::None, Profile),
    // `modules_to_save` beside adapters: full training trains the embedding
    // and head already; a vision transformer has neither; parameter
    // offload's in-flight copies of them are not modelled.
    rule(Param::TrainEmbeddings, Param::LoraRank, AtLeast(1), lora, Default),
    rule(Param::TrainEmbeddings, Param::Kind, Either("decoder", "encoder"), text_model, Default),
    rule(Param::TrainEmbeddings, Param::ParamOffload, Is("0"), |t| !t.param_offload, Default),
    // The model's output a loop keeps holds a decoder's full logits in
    // training: not with a loss that never materialises them (torchtune's
    // chunked, Unsloth's fused) nor Megatron-Core's, whose model returns the
    // per-token loss.
    rule(Param::Outputs, Param::Mode, Is("train"), training, Profile),
    rule(Param::Outputs, Param::Kind, Is("decoder"), |t| t.arch.kind == Kind::Decoder, Profile),
    rule(Param::Outputs, Param::Loss, Is("full"), |t| t.loss == Loss::Full, Profile),
    // After the pipeline's and the context's checks. torchtune's activation
    // offloading runs without a pipeline.
    rule(Param::ActOffload, Param::Pp, Is("1"), |t| t.pp == 1, Default),
    rule(Param::PpSchedule, Param::Pp, AtLeast(2), pipelined, Default),
    rule(Param::Vpp, Param::Pp, AtLeast(2), pipelined, Default),
    rule(Param::Microbatches, Param::Pp, AtLeast(2), pipelined, Default),
    rule(Param::PpLayout, Param::Pp, AtLeast(2), pipelined, Default),
    rule(Param::PpStage, Param::Pp, AtLeast(2), pipelined, Default),
    rule(Param::CpKind, Param::Cp, AtLeast(2), |t| t.cp > 1, Default),
];

fn deepspeed(t: &TransformerInput) -> bool {
    t.framework == tf::Framework::Deepspeed
}

fn full(t: &TransformerInput) -> bool {
    t.recompute == Recompute::Full
}

fn four_bit(t: &TransformerInput) -> bool {
    matches!(t.base_quant, BaseQuant::Nf4 | BaseQuant::Fp4)
}

fn pipelined(t: &TransformerInput) -> bool {
    t.pp > 1
}

/// The first of `param`'s rules that does not hold in `config`; `None` where
/// it applies, and for every parameter of the napkin forms.
pub fn broken(param: Param, config: &Config) -> Option<&'static Rule> {
    if config.form != Form::Transformer {
        return None;
    }
    RULES
        .iter()
        .find(|r| r.param == param && !(r.holds)(&config.transformer))
}

/// What `param` needs in `config` that it lacks, as its report names it.
pub fn needs(param: Param, config: &Config) -> Option<(Param, Needed)> {
    broken(param, config).map(|r| (r.needs, r.value))
}

/// Whether `param` means something for `config`: a parameter of its form, or
/// a common one, that breaks no rule. The page shows a field exactly then.
pub fn applies(param: Param, config: &Config) -> bool {
    (param == Param::Form
        || COMMON_PARAMETERS.contains(&param)
        || form_parameters(config.form).contains(&param))
        && needs(param, config).is_none()
}

/// What parameters that do not apply are reset to, for a configuration's
/// profile and preset.
pub(crate) struct Resets {
    default: TransformerInput,
    profile: TransformerInput,
    preset: TransformerInput,
}

impl Resets {
    pub(crate) fn of(config: &Config) -> Self {
        let default = TransformerInput::default();
        Self {
            default,
            profile: config.transformer.framework.defaults(),
            preset: TransformerInput {
                arch: config.model.map_or(Architecture::default(), |m| m.arch),
                ..default
            },
        }
    }

    fn of_kind(&self, reset: Reset) -> &TransformerInput {
        match reset {
            Default => &self.default,
            Profile => &self.profile,
            Preset => &self.preset,
        }
    }
}

/// Sets `param`'s value in `to` to `from`'s, for each parameter a rule
/// governs (a test holds it to [`RULES`]); typed, so that the fix search can
/// keep the rules at every step it tries. Returns whether `to` changed: only
/// the one field, compared alone (a whole input is large, and [`enforce`]
/// asks for every rule that does not hold).
fn copy(param: Param, from: &TransformerInput, to: &mut TransformerInput) -> bool {
    let (a, b) = (&from.arch, &mut to.arch);
    match param {
        Param::Gen => set(&mut to.generated, from.generated),
        Param::Batch => set(&mut to.batch, from.batch),
        Param::Quant => set(&mut to.quant, from.quant),
        Param::KvDtype => set(&mut to.kv_dtype, from.kv_dtype),
        Param::KvLayout => set(&mut to.kv_layout, from.kv_layout),
        Param::CacheImplementation => set(&mut to.cache, from.cache),
        Param::LogitsToKeep => set(&mut to.logits_to_keep, from.logits_to_keep),
        Param::GpuMemoryUtilization => set(
            &mut to.engine.gpu_memory_utilization,
            from.engine.gpu_memory_utilization,
        ),
        Param::MaxModelLen => set(&mut to.engine.max_model_len, from.engine.max_model_len),
        Param::MaxNumSeqs => set(&mut to.engine.max_num_seqs, from.engine.max_num_seqs),
        Param::MaxNumBatchedTokens => set(
            &mut to.engine.max_num_batched_tokens,
            from.engine.max_num_batched_tokens,
        ),
        Param::BlockSize => set(&mut to.engine.block_size, from.engine.block_size),
        Param::EnforceEager => set(&mut to.engine.enforce_eager, from.engine.enforce_eager),
        Param::FlashinferSampler => set(
            &mut to.engine.flashinfer_sampler,
            from.engine.flashinfer_sampler,
        ),
        Param::Fp8 => set(&mut to.fp8, from.fp8),
        Param::Compile => set(&mut to.compile, from.compile),
        Param::Optimizer => set(&mut to.optimizer, from.optimizer),
        Param::Recompute => set(&mut to.recompute, from.recompute),
        Param::Step => set(&mut to.step, from.step),
        Param::Loss => set(&mut to.loss, from.loss),
        Param::Logits => set(&mut to.logits, from.logits),
        Param::ZeroGrad => set(&mut to.zero_grad, from.zero_grad),
        Param::NormKernel => set(&mut to.norm_kernel, from.norm_kernel),
        Param::LoraRank => set(&mut to.lora_rank, from.lora_rank),
        Param::Offload => set(&mut to.offload, from.offload),
        Param::ActOffload => set(&mut to.act_offload, from.act_offload),
        Param::ParamOffload => set(&mut to.param_offload, from.param_offload),
        Param::BucketM => set(&mut to.bucket_m, from.bucket_m),
        Param::GradientAsBucketView => set(&mut to.bucket_view, from.bucket_view),
        Param::Prefetch => set(&mut to.prefetch, from.prefetch),
        Param::Pp => set(&mut to.pp, from.pp),
        Param::Cp => set(&mut to.cp, from.cp),
        Param::DsPrefetch => set(&mut to.ds_prefetch, from.ds_prefetch),
        Param::DsLive => set(&mut to.ds_live, from.ds_live),
        Param::DsPersist => set(&mut to.ds_persist, from.ds_persist),
        Param::ExpertsActive => set(&mut b.experts_active, a.experts_active),
        Param::ExpertFfn => set(&mut b.expert_ffn, a.expert_ffn),
        Param::SharedExperts => set(&mut b.shared_experts, a.shared_experts),
        Param::SharedFfn => set(&mut b.shared_ffn, a.shared_ffn),
        Param::FirstDenseLayers => set(&mut b.first_dense_layers, a.first_dense_layers),
        Param::MoeEvery => set(&mut b.moe_every, a.moe_every),
        Param::Ep => set(&mut to.ep, from.ep),
        Param::Etp => set(&mut to.etp, from.etp),
        Param::CapacityFactor => set(&mut to.capacity_factor, from.capacity_factor),
        Param::CapacityPad => set(&mut to.capacity_pad, from.capacity_pad),
        Param::QLoraRank => set(&mut b.q_lora_rank, a.q_lora_rank),
        Param::QkRopeHeadDim => set(&mut b.qk_rope_head_dim, a.qk_rope_head_dim),
        Param::QkNopeHeadDim => set(&mut b.qk_nope_head_dim, a.qk_nope_head_dim),
        Param::VHeadDim => set(&mut b.v_head_dim, a.v_head_dim),
        Param::QkNormFull => set(&mut b.qk_norm_full, a.qk_norm_full),
        Param::GlobalEvery => set(&mut b.global_every, a.global_every),
        Param::Window => set(&mut b.window, a.window),
        Param::LinearMixer => set(&mut b.linear_mixer, a.linear_mixer),
        Param::FullAttentionInterval => {
            set(&mut b.full_attention_interval, a.full_attention_interval)
        }
        Param::LinearNumKeyHeads => set(&mut b.linear_num_key_heads, a.linear_num_key_heads),
        Param::LinearKeyHeadDim => set(&mut b.linear_key_head_dim, a.linear_key_head_dim),
        Param::LinearNumValueHeads => set(&mut b.linear_num_value_heads, a.linear_num_value_heads),
        Param::LinearValueHeadDim => set(&mut b.linear_value_head_dim, a.linear_value_head_dim),
        Param::LinearConvKernelDim => set(&mut b.linear_conv_kernel_dim, a.linear_conv_kernel_dim),
        Param::Vocab => set(&mut b.vocab, a.vocab),
        Param::Tied => set(&mut b.tied, a.tied),
        Param::Image => set(&mut b.image, a.image),
        Param::Patch => set(&mut b.patch, a.patch),
        Param::GradAccumFusion => set(&mut to.grad_accum_fusion, from.grad_accum_fusion),
        Param::RecomputeMethod => set(&mut to.recompute_method, from.recompute_method),
        Param::RecomputeLayers => set(&mut to.recompute_layers, from.recompute_layers),
        Param::Reentrant => set(&mut to.reentrant, from.reentrant),
        Param::RecomputeModules => set(&mut to.recompute_modules, from.recompute_modules),
        Param::LoraVariant => set(&mut to.lora_variant, from.lora_variant),
        Param::LoraTargets => set(&mut to.lora_targets, from.lora_targets),
        Param::LoraDropout => set(&mut to.lora_dropout, from.lora_dropout),
        Param::BaseQuant => set(&mut to.base_quant, from.base_quant),
        Param::DoubleQuant => set(&mut to.double_quant, from.double_quant),
        Param::PrepareKbit => set(&mut to.prepare_kbit, from.prepare_kbit),
        Param::TrainEmbeddings => set(&mut to.train_embeddings, from.train_embeddings),
        Param::Outputs => set(&mut to.outputs, from.outputs),
        Param::PpSchedule => set(&mut to.pp_schedule, from.pp_schedule),
        Param::Vpp => set(&mut to.vpp, from.vpp),
        Param::Microbatches => set(&mut to.microbatches, from.microbatches),
        Param::PpLayout => set(&mut to.pp_layout, from.pp_layout),
        Param::PpStage => set(&mut to.pp_stage, from.pp_stage),
        Param::CpKind => set(&mut to.cp_kind, from.cp_kind),
        _ => false,
    }
}

/// `*to = from`, and whether that changed it.
fn set<T: Copy + PartialEq>(to: &mut T, from: T) -> bool {
    let changed = *to != from;
    *to = from;
    changed
}

/// Resets every parameter of `config` that breaks a rule, checking the rules
/// `which` selects, until none is left to reset; `report` hears each one whose
/// value changed, with what it needs. Returns whether anything changed.
/// `settled` says which rules reset nothing on `config` as it stands, and
/// is kept up to date: those are not checked again until something changes.
pub(crate) fn enforce(
    config: &mut Config,
    resets: &Resets,
    which: impl Fn(&Rule) -> bool,
    settled: &mut Settled,
    mut report: impl FnMut(Param, Problem),
) -> bool {
    if config.form != Form::Transformer {
        return false;
    }
    let mut changed = false;
    // Each pass resets at least one parameter to a value no rule is checked
    // against again, so there are at most as many passes as rules.
    for _ in 0..RULES.len() {
        let mut pass = false;
        for (i, rule) in RULES.iter().enumerate().filter(|(_, r)| which(r)) {
            if settled.0[i] {
                continue;
            }
            if (rule.holds)(&config.transformer)
                || !copy(
                    rule.param,
                    resets.of_kind(rule.reset),
                    &mut config.transformer,
                )
            {
                settled.0[i] = true;
                continue;
            }
            *settled = Settled::NONE;
            pass = true;
            if !rule.reported {
                continue;
            }
            report(
                rule.param,
                Problem::OnlyWith {
                    param: rule.needs,
                    value: rule.value,
                },
            );
        }
        changed |= pass;
        if !pass {
            break;
        }
    }
    changed
}

/// Which rules of [`RULES`] reset nothing on a configuration as it stands:
/// each was checked on it and held, or was reset to the value it had. A rule
/// and its reset read the configuration only, so checking it again changes
/// nothing until something else does.
pub(crate) struct Settled([bool; RULES.len()]);

impl Settled {
    /// Before any rule is checked.
    pub(crate) const NONE: Self = Self([false; RULES.len()]);
}

/// Whether `config` breaks no rule: every parameter that does not apply holds
/// the value it is reset to, as [`super::parse`] leaves it. What the fix
/// search proposes must.
pub fn keeps_rules(config: &Config) -> bool {
    let (mut normal, mut settled) = (*config, Settled::NONE);
    !enforce(
        &mut normal,
        &Resets::of(config),
        |_| true,
        &mut settled,
        |_, _| {},
    )
}

/// Checks a parsed transformer configuration: the rules, then the values that
/// must go together (a pipeline's layers, expert parallelism's ranks), then
/// the rules again for what those checks reset. `report` hears each
/// parameter reset, with why.
pub(super) fn check(config: &mut Config, mut report: impl FnMut(Param, Problem)) {
    let resets = Resets::of(config);
    let mut settled = Settled::NONE;
    enforce(
        config,
        &resets,
        |r| !matches!(r.needs, Param::Pp | Param::Cp),
        &mut settled,
        &mut report,
    );
    // What the values' checks reset may break a rule settled before.
    let checked = config.transformer;
    check_values(&mut config.transformer, &mut report);
    if config.transformer != checked {
        settled = Settled::NONE;
    }
    enforce(config, &resets, |_| true, &mut settled, &mut report);
}

/// `config` as [`super::parse`] would leave it: every rule kept, every value
/// check passed, nothing reported.
pub fn normalize(mut config: Config) -> Config {
    if config.form == Form::Transformer {
        check(&mut config, |_, _| {});
    }
    config
}

/// The values that must go together, each reported on the parameter named
/// and back at what works.
fn check_values(t: &mut TransformerInput, report: &mut impl FnMut(Param, Problem)) {
    let only_with = |param: Param, value: Needed| Problem::OnlyWith { param, value };
    let conflict = |with: Param| Problem::Conflict { with };
    // A module this configuration lacks recomputes nothing under Megatron-Core's
    // selective recomputation: each is reported and dropped, the others kept
    // (the default where none is left).
    if t.recompute == Recompute::Selective {
        for (module, needs, value) in t.recompute_modules_lacking().into_iter().flatten() {
            report(Param::RecomputeModules, only_with(needs, value));
            t.recompute_modules = t.recompute_modules.dropping(module);
        }
    }
    // A dense model has no routed experts to adapt.
    if !t.arch.moe()
        && matches!(
            t.lora_targets,
            tf::LoraTargets::Experts | tf::LoraTargets::AllExperts
        )
    {
        report(Param::LoraTargets, only_with(Param::Experts, AtLeast(1)));
        t.lora_targets = tf::LoraTargets::default();
    }
    // Top-k of more experts than there are: every expert.
    let arch = &mut t.arch;
    if arch.moe() && arch.experts_active > arch.experts {
        report(
            Param::ExpertsActive,
            Problem::OutOfRange {
                range: fields::Range {
                    min: fields::Bound::Whole(tf::EXPERTS_ACTIVE.min),
                    max: fields::Bound::Whole(arch.experts),
                },
            },
        );
        arch.experts_active = arch.experts;
    }
    // Expert parallelism splits the experts over ranks of the data-parallel
    // group (Megatron-Core parallel_state.py: the expert model-parallel groups
    // tile the data-parallel ranks), so `ep` divides `gpus`; and each rank
    // holds as many experts (megatron/training/arguments.py: `num_experts %
    // expert_model_parallel_size == 0`), so it divides `experts`. With expert
    // tensor parallelism the same gpus × tp ranks split as etp × ep × expert
    // data parallel (parallel_state.py
    // `expert_tensor_model_pipeline_parallel_size`): `etp` divides gpus × tp
    // and `ep` the gpus × tp / etp ranks left (`gpus` when etp = tp).
    let ranks = u128::from(t.gpus) * u128::from(t.tp);
    if t.etp > 0 && !ranks.is_multiple_of(u128::from(t.etp)) {
        report(Param::Etp, conflict(Param::Tp));
        t.etp = tf::ETP.default;
    }
    let expert_ranks = ranks / u128::from(t.expert_tp());
    let ep_against = if !expert_ranks.is_multiple_of(u128::from(t.ep)) {
        Some(Param::Gpus)
    } else if !t.arch.experts.is_multiple_of(t.ep) {
        Some(Param::Experts)
    } else {
        None
    };
    if let Some(with) = ep_against.filter(|_| t.ep > 1) {
        report(Param::Ep, conflict(with));
        t.ep = tf::EP.default;
    }
    pipeline_values(t, report);
}

/// Pipeline and context parallelism's values that mean nothing together
/// (issue 14).
fn pipeline_values(t: &mut TransformerInput, report: &mut impl FnMut(Param, Problem)) {
    let only_with = |param: Param, value: Needed| Problem::OnlyWith { param, value };
    let conflict = |with: Param| Problem::Conflict { with };
    let default = TransformerInput::default();
    // Megatron-Core runs the interleaved schedule only with virtual stages
    // (`virtual_pipeline_model_parallel_size` > 1).
    if t.pp > 1 {
        let interleaved = t.pp_schedule == Schedule::Interleaved;
        if interleaved && t.vpp < 2 {
            report(Param::PpSchedule, only_with(Param::Vpp, AtLeast(2)));
            t.pp_schedule = Schedule::OneFOneB;
        } else if !interleaved && t.vpp > 1 {
            report(Param::Vpp, only_with(Param::PpSchedule, Is("interleaved")));
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
        let indivisible = |stages: u64| Problem::Indivisible {
            layers: t.arch.layers,
            stages,
        };
        if !t.arch.layers.is_multiple_of(t.pp) {
            report(Param::Pp, indivisible(t.pp));
            t.pp = 1;
        } else if !t.arch.layers.is_multiple_of(t.pp * t.vpp) {
            report(Param::Vpp, indivisible(t.pp * t.vpp));
            (t.vpp, t.pp_schedule) = (1, Schedule::OneFOneB);
        }
    }
    // Megatron-Core's interleaved schedule runs groups of pp micro-batches
    // (schedules.py: `num_microbatches % pipeline_parallel_size == 0` in the
    // versions that require it).
    if t.pp_schedule == Schedule::Interleaved && !t.microbatches.is_multiple_of(t.pp) {
        report(Param::Microbatches, conflict(Param::Pp));
        t.microbatches = default.microbatches;
    }
    if let StageChoice::Index(i) = t.pp_stage
        && t.pp > 1
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
    if t.cp > 1 {
        // Ring attention and Ulysses run flash kernels on 16-bit inputs
        // (Transformer Engine's CP runs its flash and fused backends only);
        // DeepSpeed-Ulysses splits the heads, so cp divides them.
        let against = if t.kernel() == tf::Attention::Eager {
            Some(if t.attention == tf::Attention::Eager {
                only_with(Param::Attn, Is("flash"))
            } else {
                only_with(Param::Recipe, SixteenBitRecipe)
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

#[cfg(test)]
mod tests;
