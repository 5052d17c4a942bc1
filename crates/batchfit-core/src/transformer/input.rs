//! Everything the transformer form asks, validated, and what follows from it:
//! the effective step, ZeRO stage, precision and kernels.

use super::architecture::Architecture;
use super::bounds::{
    BUCKET_M, CAPACITY_FACTOR, DS_LIVE, DS_PERSIST, DS_PREFETCH, EP, ETP, GEN, GPUS,
    LOGITS_TO_KEEP, LORA_RANK, PREFETCH, RECOMPUTE_LAYERS, TP,
};
use super::engine::EngineSettings;
use super::options::{
    Attention, BaseQuant, Block, CacheImpl, Fp8, Framework, Kind, KvDtype, KvLayout, Logits,
    LoraTargets, LoraVariant, Loss, Mode, NormKernel, Optimizer, Outputs, Quant, Recipe, Recompute,
    RecomputeMethod, RecomputeModules, Step, ZeroGrad,
};
use super::pipeline::{self, CpKind, Layout, Schedule, StageChoice};
use crate::arith::div_ceil;
use crate::fields::Needed;
use crate::param::Param;

/// Everything the transformer form asks, validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransformerInput {
    pub arch: Architecture,
    /// Micro-batch: samples per step on one GPU.
    pub batch: u64,
    /// Sequence length in tokens; the prompt length in inference. A vision
    /// transformer's length comes from its image and patch size instead.
    pub seq: u64,
    pub recipe: Recipe,
    pub optimizer: Optimizer,
    pub recompute: Recompute,
    /// Which layers `recompute=full` checkpoints, and
    /// [`RECOMPUTE_LAYERS`]: the layers per group (`uniform`), the layers
    /// checkpointed (`block`), or the stride (`every`). The default, groups
    /// of one, checkpoints each layer.
    pub recompute_method: RecomputeMethod,
    pub recompute_layers: u64,
    /// The modules `recompute=selective` checkpoints (Megatron-Core's
    /// `--recompute-modules`); the default, `core_attn`, is Korthikanti's
    /// selective recomputation.
    pub recompute_modules: RecomputeModules,
    pub attention: Attention,
    pub mode: Mode,
    pub generated: u64,
    pub quant: Quant,
    /// Data-parallel degree (ZeRO shards over these).
    pub gpus: u64,
    /// ZeRO stage 0–3 (FSDP full shard = 3, shard-grad-op = 2).
    pub zero: u8,
    pub tp: u64,
    /// Expert-parallel degree: the routed experts are split over `ep` of the
    /// `gpus` data-parallel ranks (`ep` divides `gpus`).
    pub ep: u64,
    /// Expert tensor-parallel degree; 0 is `tp` ([`TransformerInput::expert_tp`]).
    pub etp: u64,
    /// Megatron-Core's expert capacity factor, in hundredths; 0 is dropless.
    pub capacity_factor: u64,
    /// Megatron-Core `moe_pad_expert_input_to_capacity`: every expert
    /// computes a full capacity of tokens.
    pub capacity_pad: bool,
    /// Pipeline-parallel degree (`pipeline::PP`), its schedule, model chunks
    /// per rank (interleaved), micro-batches per step (0: derived), layers
    /// per virtual stage (empty: even) and the stage reported.
    pub pp: u64,
    pub pp_schedule: Schedule,
    pub vpp: u64,
    pub microbatches: u64,
    pub pp_layout: Layout,
    pub pp_stage: StageChoice,
    /// Context-parallel degree: the sequence split over `cp` ranks.
    pub cp: u64,
    pub cp_kind: CpKind,
    /// Megatron sequence parallelism (only meaningful with tp > 1).
    pub sp: bool,
    /// Count the optimizer step's temporary buffers (PyTorch's default
    /// `foreach` Adam/AdamW). Kept for old links: the same as `step: Foreach`.
    pub foreach: bool,
    /// The profile whose defaults the other settings started from.
    pub framework: Framework,
    /// How the optimizer step runs.
    pub step: Step,
    /// How a decoder's loss is computed.
    pub loss: Loss,
    /// Optimizer state and master weights live in CPU memory and the step runs
    /// there (DeepSpeed ZeRO-Offload, `offload_optimizer`).
    pub offload: bool,
    /// DeepSpeed's gradient bucket, in millions of elements.
    pub bucket_m: u64,
    /// PyTorch DDP's `gradient_as_bucket_view=True`: the gradients are
    /// views into the communication buckets, not tensors beside them.
    pub bucket_view: bool,
    /// The cache `generate()` builds (`cache_implementation`).
    pub cache: CacheImpl,
    /// The prefill's positions with logits (`logits_to_keep`; 0 = all).
    pub logits_to_keep: u64,
    /// FSDP2 layers all-gathered ahead of the one computing (`recipe=fsdp`).
    pub prefetch: u64,
    /// DeepSpeed ZeRO-3's prefetch bucket, in elements.
    pub ds_prefetch: u64,
    /// DeepSpeed ZeRO-3's live-parameter budget, in elements.
    pub ds_live: u64,
    /// DeepSpeed ZeRO-3 keeps parameters of at most this many elements whole
    /// on every rank.
    pub ds_persist: u64,
    /// Activations saved for the backward pass live in CPU memory (torchtune
    /// `enable_activation_offloading`); the GPU keeps the layer in flight.
    pub act_offload: bool,
    /// The number format of the logits and their gradient in training.
    pub logits: Logits,
    /// How the loop clears the gradients between steps.
    pub zero_grad: ZeroGrad,
    /// Whether the loop keeps the model's output (its logits) alive through
    /// the step ([`kept_outputs`](super::kept_outputs)).
    pub outputs: Outputs,
    /// How the norms run: what they keep for the backward pass.
    pub norm_kernel: NormKernel,
    /// LoRA rank; 0 trains every weight.
    pub lora_rank: u64,
    pub lora_targets: LoraTargets,
    /// PEFT `lora_dropout` > 0: the adapter branch drops its input.
    pub lora_dropout: bool,
    /// How a LoRA base is stored (QLoRA).
    pub base_quant: BaseQuant,
    /// bitsandbytes' double quantization of the 4-bit absmaxes.
    pub double_quant: bool,
    /// PEFT's `prepare_model_for_kbit_training` was called on the quantized
    /// base ([`TransformerInput::kbit_prepared`]).
    pub prepare_kbit: bool,
    /// The KV cache's number format in inference.
    pub kv_dtype: KvDtype,
    /// What a latent-attention model caches per token in inference.
    pub kv_layout: KvLayout,
    /// Parameters, gradients and the optimizer step in CPU memory (FSDP
    /// `CPUOffload(offload_params=True)`, DeepSpeed ZeRO-3 `offload_param`):
    /// the GPU holds the layers in flight.
    pub param_offload: bool,
    /// LoRA or DoRA adapters.
    pub lora_variant: LoraVariant,
    /// FP8 training of the linear maps.
    pub fp8: Fp8,
    /// With LoRA, the token embedding and the output head train too (PEFT
    /// `modules_to_save=["embed_tokens", "lm_head"]`): [`embedding_copies`](super::embedding_copies).
    pub train_embeddings: bool,
    /// The layers and the loss run under `torch.compile` (Inductor): the
    /// partitioner chooses what the backward pass keeps
    /// ([`TransformerInput::compiled`]).
    pub compile: bool,
    /// Under full recomputation, the checkpoint is the reentrant kind
    /// (`torch.utils.checkpoint.checkpoint(use_reentrant=True)`,
    /// Megatron-LM's `CheckpointFunction`): its backward keeps the rerun's
    /// output ([`Saved::reentrant_output`](super::Saved::reentrant_output)).
    pub reentrant: bool,
    /// Megatron-LM's gradient-accumulation fusion (its default,
    /// `--gradient-accumulation-fusion`): each weight's gradient is
    /// accumulated into the FP32 main-gradient buffer by its GEMM. `false`
    /// is `--no-gradient-accumulation-fusion`: a 16-bit weight gradient
    /// exists until the buffer takes it ([`unfused_gradients`](super::unfused_gradients)). Meaningful
    /// with `recipe=main_fp32` in training.
    pub grad_accum_fusion: bool,
    /// A serving engine's settings (`framework=vllm`).
    pub engine: EngineSettings,
}

impl Default for TransformerInput {
    fn default() -> Self {
        Self {
            arch: Architecture::default(),
            batch: crate::activations::BATCH.default,
            seq: crate::activations::SEQ.default,
            recipe: Recipe::default(),
            optimizer: Optimizer::default(),
            recompute: Recompute::default(),
            recompute_method: RecomputeMethod::default(),
            recompute_layers: RECOMPUTE_LAYERS.default,
            recompute_modules: RecomputeModules::default(),
            attention: Attention::default(),
            mode: Mode::default(),
            generated: GEN.default,
            quant: Quant::default(),
            gpus: GPUS.default,
            zero: 0,
            tp: TP.default,
            ep: EP.default,
            etp: ETP.default,
            capacity_factor: CAPACITY_FACTOR.default,
            capacity_pad: false,
            pp: pipeline::PP.default,
            pp_schedule: Schedule::default(),
            vpp: pipeline::VPP.default,
            microbatches: pipeline::MICROBATCHES.default,
            pp_layout: Layout::default(),
            pp_stage: StageChoice::default(),
            cp: pipeline::CP.default,
            cp_kind: CpKind::default(),
            sp: false,
            foreach: false,
            framework: Framework::default(),
            step: Step::default(),
            loss: Loss::default(),
            offload: false,
            bucket_m: BUCKET_M.default,
            bucket_view: false,
            cache: CacheImpl::Dynamic,
            logits_to_keep: LOGITS_TO_KEEP.default,
            prefetch: PREFETCH.default,
            ds_prefetch: DS_PREFETCH.default,
            ds_live: DS_LIVE.default,
            ds_persist: DS_PERSIST.default,
            act_offload: false,
            logits: Logits::default(),
            zero_grad: ZeroGrad::default(),
            outputs: Outputs::default(),
            norm_kernel: NormKernel::default(),
            lora_rank: LORA_RANK.default,
            lora_targets: LoraTargets::default(),
            lora_dropout: false,
            base_quant: BaseQuant::default(),
            double_quant: false,
            prepare_kbit: false,
            kv_dtype: KvDtype::default(),
            kv_layout: KvLayout::default(),
            param_offload: false,
            lora_variant: LoraVariant::default(),
            fp8: Fp8::default(),
            train_embeddings: false,
            compile: false,
            reentrant: false,
            grad_accum_fusion: true,
            engine: EngineSettings::default(),
        }
    }
}

impl TransformerInput {
    /// Tokens per sample one GPU's layers see: the sequence (a vision
    /// transformer's patches), split over the context-parallel ranks
    /// (Megatron-Core `get_batch_on_this_cp_rank`: seq/cp tokens per rank,
    /// rounded up here).
    pub fn tokens(&self) -> u64 {
        let tokens = match self.arch.kind {
            Kind::Vision => self.arch.patch_tokens(),
            Kind::Decoder | Kind::Encoder => self.seq,
        };
        // Called for every term: no division without context parallelism.
        if self.cp <= 1 {
            tokens
        } else {
            tokens.div_ceil(self.cp)
        }
    }

    /// Bytes per activation element: FP32 recipes compute in FP32, every other
    /// recipe computes in 16 bits.
    pub fn activation_bytes(&self) -> u128 {
        match self.recipe {
            Recipe::Fp32 => 4,
            Recipe::Amp
            | Recipe::Amp16
            | Recipe::Mixed
            | Recipe::MainFp32
            | Recipe::Bf16
            | Recipe::Fsdp => 2,
        }
    }

    /// Bytes per element of the residual stream in training: the hidden
    /// states the layers add into and the norms read. Under autocast
    /// (`recipe=amp`) they stay FP32 although the matrix products compute in
    /// 16 bits: the embedding table is FP32 and the embedding is on none of
    /// autocast's lists, an addition of an FP32 and a 16-bit tensor promotes
    /// to FP32, and layer_norm is on autocast's FP32 list (pytorch/pytorch
    /// aten/src/ATen/autocast_mode.cpp: `KERNEL_CUDA(layer_norm, fp32)`); only
    /// each matrix product's input is cast to 16 bits. Inference loads the
    /// model in its compute precision.
    pub fn residual_bytes(&self) -> u128 {
        if self.autocast() || self.kbit_prepared() {
            4
        } else {
            self.activation_bytes()
        }
    }

    /// Training under `torch.autocast` over FP32 weights (`recipe=amp`):
    /// matrix products compute in 16 bits, the ops on autocast's FP32 lists
    /// and everything fed only FP32 tensors in FP32.
    pub fn autocast(&self) -> bool {
        self.mode == Mode::Train && self.recipe == Recipe::Amp
    }

    /// The attention kernel that actually runs. `attn=flash` means PyTorch's
    /// `scaled_dot_product_attention` picking a fused kernel, and none takes
    /// FP32 grouped-query attention: the flash kernels take 16-bit inputs only
    /// (pytorch/pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
    /// `check_dtypes_flash_attention`; FlashAttention-2 supports fp16 and
    /// bf16), and the memory-efficient kernel, which takes FP32, does not take
    /// the `enable_gqa=True` that Hugging Face passes for K and V with fewer
    /// heads (transformers `integrations/sdpa_attention.py`,
    /// `use_gqa_in_sdpa`) in PyTorch up to 2.11. SDPA then falls back to its
    /// math kernel, which computes the scores and their softmax like eager
    /// attention.
    pub fn kernel(&self) -> Attention {
        let grouped = self.arch.kv_heads < self.arch.heads;
        match self.attention {
            Attention::Flash if self.activation_bytes() == 4 && grouped => Attention::Eager,
            kernel => kernel,
        }
    }

    /// Token copies a MoE layer computes per sample: top-k of each token
    /// (dropless routing), or with Megatron-Core's capacity factor cf each
    /// expert's capacity ⌈cf × tokens × k / experts⌉
    /// (megatron/core/transformer/moe/moe_utils.py `get_capacity`, called
    /// with `num_tokens * topk` by `topk_softmax_with_capacity`): all of it
    /// when padded (`moe_pad_expert_input_to_capacity`), else at most the
    /// copies routed, the rest dropped (balanced routing drops none at cf ≥
    /// 1). The capacity is taken over one sample's tokens.
    pub fn routed_copies(&self) -> u128 {
        let arch = &self.arch;
        let copies = u128::from(arch.routed_per_token()) * u128::from(self.tokens());
        if self.capacity_factor == 0 || !arch.moe() {
            return copies;
        }
        let experts = u128::from(arch.experts);
        let capacity = div_ceil(u128::from(self.capacity_factor) * copies, 100 * experts);
        if self.capacity_pad {
            experts * capacity
        } else {
            copies.min(experts * capacity)
        }
    }

    /// The expert tensor-parallel degree: `etp`, or `tp` when 0
    /// (Megatron-Core's default).
    pub fn expert_tp(&self) -> u64 {
        match self.etp {
            0 => self.tp.max(1),
            etp => etp,
        }
    }

    /// The data-parallel degrees expert parallelism allows are the
    /// multiples of this: gpus × tp must be a multiple of ep × etp, so the
    /// smallest is ep × etp / gcd(ep × etp, tp) (`ep` when etp = tp).
    pub fn gpus_multiple(&self) -> u64 {
        let group = u128::from(self.ep.max(1)) * u128::from(self.expert_tp());
        let (mut a, mut b) = (group, u128::from(self.tp.max(1)));
        while b != 0 {
            (a, b) = (b, a % b);
        }
        u64::try_from(group / a).unwrap_or(u64::MAX)
    }

    /// What the routed experts' own pool sees (`model_states`): every
    /// expert whole, with ZeRO over all gpus × tp ranks of a pipeline stage
    /// (megatron/core/parallel_state.py: the expert ranks are the same tp ×
    /// dp ranks, split as etp × ep × expert data parallel), so that a
    /// sharded term is 1/(gpus × tp) of the experts whatever `ep` and `etp`;
    /// `model_states` divides the unsharded ones by ep × etp.
    pub(super) fn experts_view(&self) -> TransformerInput {
        let ranks = u128::from(self.gpus.max(1)) * u128::from(self.tp.max(1));
        TransformerInput {
            tp: 1,
            gpus: u64::try_from(ranks).unwrap_or(u64::MAX),
            ..*self
        }
    }

    /// The step actually run: `foreach=1` (old links) means [`Step::Foreach`].
    pub fn effective_step(&self) -> Step {
        if self.foreach {
            Step::Foreach
        } else {
            self.step
        }
    }

    /// Training whose loop calls `zero_grad(set_to_none=True)` between the
    /// forward and the backward pass (`zero_grad=after_forward`), with the
    /// step outside the backward pass: torchtune's `optimizer_in_bwd`
    /// steps and drops each gradient inside the backward pass
    /// (torchtune/modules/optim.py `OptimizerInBackward._step_and_clear`,
    /// torchtune/training/memory.py `register_optim_in_bwd_hooks`: the
    /// parameter's `step()` then `zero_grad()`), so none is left for the
    /// next forward pass wherever the loop calls it.
    pub fn zero_grad_after_forward(&self) -> bool {
        self.mode == Mode::Train
            && self.zero_grad == ZeroGrad::AfterForward
            && self.effective_step() != Step::InBackward
    }

    /// Data-parallel training whose gradients PyTorch's
    /// `DistributedDataParallel` all-reduces: two ranks or more, and no
    /// other engine that reduces them (ZeRO, FSDP's `recipe=fsdp`,
    /// Megatron's gradient buffer under `recipe=main_fp32`, DeepSpeed's
    /// stage 0 with its own bucket). `query::rules` states the same
    /// conditions for `gradient_as_bucket_view`.
    pub fn ddp(&self) -> bool {
        self.mode == Mode::Train
            && self.gpus >= 2
            && self.zero == 0
            && !matches!(self.recipe, Recipe::Fsdp | Recipe::MainFp32)
            && self.framework != Framework::Deepspeed
    }

    /// Full recomputation that checkpoints some layers only, or groups of
    /// layers (`recompute_method` and `recompute_layers` not at their
    /// defaults, which checkpoint each layer on its own).
    pub fn partial_recompute(&self) -> Option<(RecomputeMethod, u64)> {
        let each = (RecomputeMethod::Uniform, RECOMPUTE_LAYERS.default);
        let plan = (self.recompute_method, self.recompute_layers.max(1));
        (self.recompute == Recompute::Full && plan != each).then_some(plan)
    }

    /// The modules of [`Self::recompute_modules`] that recompute nothing in
    /// this configuration, with the setting each needs: Megatron-Core's
    /// `layernorm` wraps a pre-norm module that is not an `IdentityOp`
    /// (transformer_layer.py `__init__`; [`wrapped_norms`](super::activations::wrapped_norms)), `mlp` a dense
    /// layer's MLP only (`if not self.is_moe_layer`), `moe_act`, `moe` and
    /// `shared_experts` a MoE layer's parts.
    pub fn recompute_modules_lacking(&self) -> [Option<(RecomputeModules, Param, Needed)>; 5] {
        let arch = &self.arch;
        let norms = arch.block == Block::Pre
            && (self.norm_kernel == NormKernel::Eager || arch.moe_layers() > 0);
        let norm_needs = if arch.block == Block::Pre {
            (Param::NormKernel, Needed::Is("eager"))
        } else {
            (Param::Block, Needed::Is("pre"))
        };
        let experts = (Param::Experts, Needed::AtLeast(1));
        [
            (RecomputeModules::LAYERNORM, !norms, norm_needs),
            (
                RecomputeModules::MLP,
                arch.dense_layers() == 0,
                (Param::FirstDenseLayers, Needed::AtLeast(1)),
            ),
            (RecomputeModules::MOE_ACT, !arch.moe(), experts),
            (RecomputeModules::MOE, !arch.moe(), experts),
            (
                RecomputeModules::SHARED_EXPERTS,
                arch.moe_layers() == 0 || arch.shared_width() == 0,
                (Param::SharedExperts, Needed::AtLeast(1)),
            ),
        ]
        .map(|(module, lacks, (needs, value))| {
            (lacks && self.recompute_modules.contains(module)).then_some((module, needs, value))
        })
    }

    /// Full recomputation of each layer on its own.
    pub fn recompute_each_layer(&mut self) {
        self.recompute = Recompute::Full;
        self.recompute_method = RecomputeMethod::default();
        self.recompute_layers = RECOMPUTE_LAYERS.default;
        self.recompute_modules = RecomputeModules::default();
    }

    /// LoRA training: a frozen base and trainable adapters.
    pub fn lora(&self) -> bool {
        self.mode == Mode::Train && self.lora_rank > 0
    }

    /// The layers' linear maps are stored quantized: in inference (`quant`),
    /// or as the frozen base of LoRA training (`base_quant`, QLoRA).
    /// Whether eager attention's softmax runs in FP32: under autocast
    /// (pytorch/pytorch aten/src/ATen/autocast_mode.cpp `KERNEL_CUDA2(softmax,
    /// int, fp32_set_opt_dtype)`), and in Hugging Face's eager attention
    /// whatever the recipe (transformers models/llama/modeling_llama.py
    /// `eager_attention_forward`, copied by its other models:
    /// `nn.functional.softmax(attn_weights, dim=-1,
    /// dtype=torch.float32).to(query.dtype)`), which `attn=eager` names.
    /// Megatron-LM's core attention has its own softmax
    /// (`FusedScaleMaskSoftmax`, in the compute dtype unless
    /// `--attention-softmax-in-fp32`): not under `framework=megatron`, nor
    /// under its recipe (`recipe=main_fp32`, Megatron's `Float16Module`),
    /// which no Hugging Face loop runs.
    pub fn fp32_softmax(&self) -> bool {
        self.autocast()
            || (self.attention == Attention::Eager
                && self.framework != Framework::Megatron
                && self.recipe != Recipe::MainFp32)
    }

    /// A quantized LoRA base that PEFT's `prepare_model_for_kbit_training`
    /// prepared (`prepare_kbit`; huggingface/peft src/peft/utils/other.py:
    /// "cast all non INT8 parameters to fp32", every FP16 or BF16 parameter
    /// that is not a bitsandbytes `Params4bit` goes to FP32). The embedding,
    /// the output head and the norms, which transformers leaves unquantized,
    /// are then FP32 ([`TransformerInput::unquantized_bytes`]); the
    /// embedding's FP32 output makes the residual stream FP32 (an FP32 plus a
    /// 16-bit tensor promotes; [`TransformerInput::residual_bytes`]), and the
    /// FP32 head writes FP32 logits ([`kept_outputs`](super::kept_outputs)).
    pub fn kbit_prepared(&self) -> bool {
        self.prepare_kbit && self.mode == Mode::Train && self.quantized()
    }

    /// Bytes per parameter of what a quantized base leaves unquantized (the
    /// embedding, the head, the norms): FP32 once
    /// [`TransformerInput::kbit_prepared`], else the compute dtype.
    pub fn unquantized_bytes(&self) -> u128 {
        if self.kbit_prepared() {
            4
        } else {
            self.activation_bytes()
        }
    }

    pub fn quantized(&self) -> bool {
        match self.mode {
            Mode::Inference => self.quant != Quant::None,
            Mode::Train => self.lora() && self.base_quant != BaseQuant::None,
        }
    }

    /// Training under `torch.compile` (`compile=1`): Inductor's partitioner
    /// (torch/_functorch/partitioners.py `min_cut_rematerialization_partition`,
    /// which torch/_inductor/compile_fx.py passes as the `partition_fn` of
    /// the training graph) chooses the tensors kept for the backward pass, at
    /// torch/_functorch/config.py's defaults (`activation_memory_budget`
    /// 1.0, every `ban_recompute_*` rule on, `aggressive_recomputation`
    /// off). It saves the smallest set (a minimum cut of the joint graph)
    /// from which the backward pass can recompute what it needs, where only
    /// the ops of `get_default_op_list().recomputable_ops` (element-wise
    /// ops, casts, views, sums and means) may be recomputed: the outputs of
    /// matrix products and attention (`compute_intensive_ops`), random ops,
    /// a reduction's output that is 4 times smaller than its input
    /// (`ban_recompute_reductions`), and every tensor that a backward op
    /// outside a fused region reads (`is_materialized_backwards`:
    /// a matrix product's input, attention's inputs and output) are never
    /// recomputed; the rest is. docs/model.md §3.3 derives the saved set of
    /// each layer type from these rules.
    pub fn compiled(&self) -> bool {
        self.compile && self.mode == Mode::Train
    }

    /// Unsloth's kernels, counted where its fast paths patch a LoRA model
    /// (unsloth/models/llama.py `FastLlamaModel.patch_peft_model`: adapters
    /// without dropout): its RMSNorm, and for a target set that adapts all
    /// of a block's q/k/v (`LoRA_QKV`) or gate/up/down (`LoRA_MLP`) their
    /// fused LoRA kernels (unsloth/kernels/fast_lora.py).
    pub fn unsloth_kernels(&self) -> bool {
        self.framework == Framework::Unsloth && self.lora() && !self.lora_dropout
    }

    /// Unsloth's `LoRA_MLP` computes the gated MLP (its targets include
    /// gate, up and down).
    pub(super) fn unsloth_mlp(&self) -> bool {
        self.unsloth_kernels() && matches!(self.lora_targets, LoraTargets::All | LoraTargets::Mlp)
    }

    /// DeepSpeed's ZeRO-3 engine trains (`framework=deepspeed`, `zero=3`):
    /// deepspeed/runtime/zero/stage3.py `DeepSpeedZeroOptimizer_Stage3`
    /// runs whatever the number of ranks, with its own buffers
    /// (`zero3_runtime`).
    pub fn deepspeed_stage3(&self) -> bool {
        self.framework == Framework::Deepspeed
            && self.zero == 3
            && self.mode == Mode::Train
            && !self.param_offload
    }

    /// Effective ZeRO stage: 0 when there is only one replica to shard over.
    pub(super) fn zero_stage(&self) -> u8 {
        if self.gpus > 1 { self.zero.min(3) } else { 0 }
    }
}

/// Which FFN a layer has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ffn {
    Dense,
    Moe,
}

/// Which token mixer a layer has: attention, or a hybrid model's linear
/// mixer ([`super::Architecture::linear_layers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mixer {
    Attention,
    Linear,
}
