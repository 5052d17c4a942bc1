//! The transformer form: memory per GPU from the architecture, term by term.
//!
//! Parameters are counted from the architecture (every matrix, bias and norm), the
//! model states follow from the precision recipe, optimizer and sharding, and the
//! activations follow Korthikanti et al. 2022, "Reducing Activation Recomputation
//! in Large Transformer Models" (arXiv:2205.05198), §4, generalised to grouped-query
//! attention, gated MLPs, other FFN sizes and 32-bit activations. docs/model.md
//! derives every formula; each term below names its source.

use self::pipeline::{CpKind, Layout, Schedule, StageChoice};
use crate::arith::div_ceil;
use crate::choice::choice;
use crate::fields::{HundredthsField, ParamError, Problem, WholeField, whole};
use crate::param::Param;

pub mod pipeline;

choice! {
    /// What the model reads: tokens with an LM head, tokens without one (BERT),
    /// or image patches (ViT).
    pub enum Kind {
        /// Decoder-only language model (GPT-2, Llama, …): LM head and logits.
        Decoder = "decoder",
        /// Encoder-only (BERT): post-norm, embedding norm, pooler, no LM head.
        Encoder = "encoder",
        /// Vision transformer: patches as tokens plus one class token, no vocabulary.
        Vision = "vision",
    }
    default Decoder
}

choice! {
    /// The feed-forward block.
    pub enum Mlp {
        /// Two matrices around a GELU computed by one kernel (BERT, ViT:
        /// transformers activations.py `GELUActivation` is
        /// `nn.functional.gelu`; `gelu_pytorch_tanh` likewise), which saves
        /// its input only.
        Gelu = "gelu",
        /// Two matrices around the tanh GELU written as element-wise
        /// operations: transformers activations.py `NewGELUActivation`
        /// (`activation_function`/`hidden_act` "gelu_new": GPT-2, Phi-1/2),
        /// `0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
        /// (input + 0.044715 * torch.pow(input, 3.0))))`: each operation
        /// keeps what its backward needs ([`ffn_saved`]).
        GeluNew = "gelu_new",
        /// Three matrices, gated (SwiGLU in Llama/Qwen/Mistral/Phi-3, GeGLU in Gemma).
        Swiglu = "swiglu",
    }
    default Swiglu
}

choice! {
    pub enum Norm {
        /// Weight and bias: 2 × hidden parameters.
        LayerNorm = "layernorm",
        /// Weight only: hidden parameters. The weight multiplies the
        /// normalized tensor after its cast back to the input's dtype
        /// (transformers `LlamaRMSNorm`, copied by Qwen2, Qwen3, Mistral).
        RmsNorm = "rmsnorm",
        /// RMSNorm whose weight multiplies the FP32 normalized tensor before
        /// the cast back: transformers `GemmaRMSNorm`/`Gemma2RMSNorm`/`Gemma3RMSNorm`
        /// (`output * (1.0 + self.weight.float())`, then `type_as(x)`) and
        /// `Olmo2RMSNorm` (`(self.weight * hidden_states).to(input_dtype)`).
        /// Same parameters as `rmsnorm`; it saves an FP32 normalized tensor.
        RmsNormFp32 = "rmsnorm_fp32",
    }
    default RmsNorm
}

choice! {
    /// Where a block's norms sit and how attention and the MLP are joined.
    pub enum Block {
        /// A norm before attention and one before the MLP, in sequence
        /// (GPT-2, Llama, Qwen, Mistral, Phi-3).
        Pre = "pre",
        /// No input norm: a norm on the attention output and one on the MLP
        /// output, each before its residual addition (transformers
        /// models/olmo2/modeling_olmo2.py `Olmo2DecoderLayer`:
        /// `post_attention_layernorm`, `post_feedforward_layernorm`).
        Post = "post",
        /// Both: four norms per layer (transformers
        /// models/gemma2/modeling_gemma2.py `Gemma2DecoderLayer`:
        /// `input_layernorm`, `post_attention_layernorm`,
        /// `pre_feedforward_layernorm`, `post_feedforward_layernorm`; Gemma 3
        /// likewise).
        Sandwich = "sandwich",
        /// One norm feeding attention and the MLP side by side, their outputs
        /// summed with the residual (transformers models/phi/modeling_phi.py
        /// `PhiDecoderLayer`: `input_layernorm` only).
        Parallel = "parallel",
    }
    default Pre
}

impl Block {
    /// Norms per layer.
    pub const fn norms(self) -> u128 {
        match self {
            Block::Pre | Block::Post => 2,
            Block::Sandwich => 4,
            Block::Parallel => 1,
        }
    }
}

choice! {
    /// Which number formats hold the weights, gradients and optimizer state.
    pub enum Recipe {
        /// Everything in FP32: 4 B weights, 4 B gradients, FP32 optimizer state.
        Fp32 = "fp32",
        /// Mixed precision with FP32 master weights and FP32 gradients (Megatron-LM,
        /// Hugging Face docs): 2 B compute copy + 4 B gradients + 4 B master + state.
        Amp = "amp",
        /// Mixed precision with FP32 master weights and 16-bit gradients (the ZeRO
        /// paper's setting, DeepSpeed fp16/bf16): 2 + 2 + 4 B master + state.
        Amp16 = "amp16",
        /// 16-bit weights with FP32 gradients and FP32 state, no master copy
        /// (the parameters form's rule).
        Mixed = "mixed",
        /// Pure BF16: weights, gradients and optimizer state all 2 bytes.
        Bf16 = "bf16",
        /// FSDP2 mixed precision (`MixedPrecisionPolicy(param_dtype=bf16,
        /// reduce_dtype=fp32)`): FP32 parameters, FP32 gradients and FP32 state,
        /// no separate master copy; each layer's parameters are all-gathered as
        /// BF16 copies only while it computes (`prefetch`, docs/frameworks.md).
        Fsdp = "fsdp",
        /// A 16-bit model with FP32 main gradients and FP32 main parameters
        /// in the optimizer, Megatron-LM's `--bf16` (and `--fp16`):
        /// megatron/core/transformer/module.py `Float16Module` converts the
        /// model to BF16, so it computes in 16 bits throughout, the residual
        /// stream too (no autocast, no per-op casts), and its BF16 parameters
        /// are the weights at every moment; gradients accumulate in FP32
        /// (megatron/training/arguments.py: `accumulate_allreduce_grads_in_fp32`
        /// with bf16), the optimizer keeps an FP32 copy (optimizer.py
        /// `param.detach().clone().float()`, distrib_optimizer.py
        /// `shard_model_param.clone().float()`): 2 + 4 + 4 B + state.
        MainFp32 = "main_fp32",
    }
    default Amp
}

choice! {
    pub enum Optimizer {
        /// Adam/AdamW: two moments per parameter.
        AdamW = "adamw",
        /// bitsandbytes 8-bit Adam: two 1-byte moments plus block-wise scales.
        Adam8bit = "adam8bit",
        /// bitsandbytes `PagedAdamW8bit`: [`Optimizer::Adam8bit`]'s state in
        /// CUDA unified memory, which the driver may page out to CPU under
        /// pressure ([`Optimizer::paged`]).
        PagedAdamW8bit = "paged_adamw_8bit",
        /// bitsandbytes `PagedAdamW` (32-bit): two FP32 moments per
        /// parameter whatever its dtype, in CUDA unified memory.
        PagedAdamW = "paged_adamw",
        /// Adafactor: factored second moment (rows + columns per matrix), no first moment.
        Adafactor = "adafactor",
        /// SGD with momentum: one buffer per parameter.
        SgdMomentum = "sgd_momentum",
        /// Plain SGD: no state.
        Sgd = "sgd",
        /// No optimizer step (gradients only).
        None = "none",
    }
    default AdamW
}

impl Optimizer {
    /// bitsandbytes' paged optimizers: their state is allocated in CUDA
    /// unified memory (bitsandbytes/optim/optimizer.py `get_state_buffer`:
    /// `F.get_paged` for every state tensor of 100,000 elements or more,
    /// `torch.zeros_like` below that), which the driver may evict to CPU
    /// memory when the GPU runs short and page back in for the step. batchfit
    /// counts the state on the GPU, the same bytes as unpaged, and says that
    /// it may spill ([`crate::memory::Estimate::optimizer_may_spill`]).
    pub const fn paged(self) -> bool {
        matches!(self, Self::PagedAdamW8bit | Self::PagedAdamW)
    }
}

choice! {
    /// Activation recomputation (gradient checkpointing).
    pub enum Recompute {
        None = "none",
        /// Recompute only the attention core (Korthikanti et al. §4.2).
        Selective = "selective",
        /// Keep only each layer's input; recompute layers one at a time.
        Full = "full",
        /// Per-operator selective recomputation as torchtitan applies it
        /// (torchtitan/distributed/activation_checkpoint.py `SelectiveAC`):
        /// each block keeps its input and the outputs of attention and of
        /// every other matrix product; the rest is recomputed.
        Op = "op",
    }
    default None
}

choice! {
    /// Which layers full recomputation checkpoints (`recompute_method`), with
    /// [`TransformerInput::recompute_layers`] as its number. Counted in each
    /// pipeline rank's model chunk, from its first layer.
    pub enum RecomputeMethod {
        /// Every layer, in groups of `recompute_layers` consecutive layers:
        /// each group keeps its input and is recomputed as a whole
        /// (Megatron-Core megatron/core/recompute.py `checkpointed_forward`,
        /// `recompute_method == 'uniform'`). Groups of 1 are each layer's
        /// own checkpoint.
        Uniform = "uniform",
        /// The first `recompute_layers` layers, each its own checkpoint; the
        /// rest keep their full set (`recompute_method == 'block'`).
        Block = "block",
        /// Every `recompute_layers`-th layer (the n-th, 2n-th, …), each its
        /// own checkpoint; the rest keep their full set (torchtitan's
        /// `selective_ac_option = "n"`, `_apply_layer_sac`).
        Every = "every",
    }
    default Uniform
}

impl RecomputeMethod {
    /// Whether layer `index` (from 0) of a chunk is checkpointed on its own,
    /// under `block` and `every`; `uniform` checkpoints every layer.
    const fn checkpoints(self, index: u64, n: u64) -> bool {
        match self {
            Self::Uniform => true,
            Self::Block => index < n,
            Self::Every => (index + 1).is_multiple_of(n),
        }
    }

    /// How many of a chunk's `layers` are recomputed in the backward pass.
    pub fn recomputed_layers(self, layers: u64, n: u64) -> u64 {
        let n = n.max(1);
        match self {
            Self::Uniform => layers,
            Self::Block => layers.min(n),
            Self::Every => layers / n,
        }
    }
}

/// Megatron-Core's `--recompute-modules` under `recompute=selective`: the
/// modules of each layer that are checkpointed (megatron/core/transformer/
/// transformer_config.py `recompute_modules`, default `["core_attn"]`). A
/// set, written in [`Self::NAMES`]' order. What each keeps instead of its
/// internals is in [`selective_kept`]; the default is Korthikanti's
/// selective recomputation as batchfit always counted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecomputeModules(u8);

impl RecomputeModules {
    /// `core_attn`: the attention core (`tensor_parallel.checkpoint`).
    pub const CORE_ATTN: Self = Self(1);
    /// `mlp`: a dense layer's whole MLP (`tensor_parallel.checkpoint`).
    pub const MLP: Self = Self(1 << 1);
    /// `layernorm`: the input and pre-MLP norms (`CheckpointWithoutOutput`).
    pub const LAYERNORM: Self = Self(1 << 2);
    /// `moe_act`: the routed experts' activation (`CheckpointWithoutOutput`).
    pub const MOE_ACT: Self = Self(1 << 3);
    /// `moe`: the whole MoE layer (`tensor_parallel.checkpoint`).
    pub const MOE: Self = Self(1 << 4);
    /// `shared_experts`: the shared experts (`tensor_parallel.checkpoint`).
    pub const SHARED_EXPERTS: Self = Self(1 << 5);
    /// The names batchfit reads, in the order it writes them.
    pub const NAMES: &'static [&'static str] = &[
        "core_attn",
        "mlp",
        "layernorm",
        "moe_act",
        "moe",
        "shared_experts",
    ];
    /// No module.
    const NONE: Self = Self(0);

    /// Whether every module of `other` is in the set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// The set less `other`'s modules.
    #[must_use]
    pub const fn without(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    /// The set with `other`'s modules.
    #[must_use]
    pub const fn with(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The module of bit `i` of [`Self::NAMES`].
    const fn bit(i: usize) -> Self {
        Self(1 << i)
    }

    /// Reads `core_attn,mlp` (spaces allowed). A name batchfit does not
    /// read, one given twice, or none at all (Megatron-Core's empty list
    /// checkpoints nothing: `recompute=none` says that) is a problem.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let mut set = Self::NONE;
        for name in text.split(',') {
            let Some(i) = Self::NAMES.iter().position(|n| *n == name.trim()) else {
                return Err(ParamError::new(
                    Param::RecomputeModules,
                    Problem::NotAnOption {
                        allowed: Self::NAMES,
                    },
                ));
            };
            if set.contains(Self::bit(i)) {
                return Err(ParamError::new(
                    Param::RecomputeModules,
                    Problem::Repeated {
                        item: Self::NAMES[i],
                    },
                ));
            }
            set = set.with(Self::bit(i));
        }
        Ok(set)
    }

    /// The set less `other`'s modules, or the default where none is left.
    #[must_use]
    pub fn dropping(self, other: Self) -> Self {
        match self.without(other) {
            Self::NONE => Self::default(),
            left => left,
        }
    }

    /// Written as [`Self::parse`] reads it, in [`Self::NAMES`]' order.
    pub fn text(self) -> String {
        Self::NAMES
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.contains(Self::bit(i)))
            .map(|(_, name)| *name)
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Default for RecomputeModules {
    fn default() -> Self {
        Self::CORE_ATTN
    }
}

choice! {
    /// The attention kernel.
    pub enum Attention {
        /// Materialises the seq × seq score matrix (PyTorch "eager").
        Eager = "eager",
        /// FlashAttention / PyTorch SDPA flash or memory-efficient kernels.
        Flash = "flash",
    }
    default Flash
}

choice! {
    pub enum Mode {
        Train = "train",
        /// Generation: weights and KV cache, no gradients or optimizer state.
        Inference = "inference",
    }
    default Train
}

choice! {
    /// Weight quantization of the layers' linear maps for inference.
    pub enum Quant {
        None = "none",
        /// 1 byte per weight plus one FP32 scale per output row (LLM.int8, bitsandbytes).
        Int8 = "int8",
        /// 4 bits per weight plus, per group of 128, an FP16 scale and a 4-bit zero point (GPTQ, AWQ).
        Int4 = "int4",
    }
    default None
}

choice! {
    /// How the frozen base of LoRA training stores the layers' linear maps
    /// (QLoRA, Dettmers et al. 2023; bitsandbytes through transformers'
    /// `BitsAndBytesConfig`). Embeddings, the output head and the norms stay
    /// in the compute dtype (transformers keeps `lm_head` unquantized).
    pub enum BaseQuant {
        None = "none",
        /// bitsandbytes `Linear4bit` with the NF4 code: two weights per byte
        /// and one FP32 absmax per block of 64 (bitsandbytes/functional.py
        /// `quantize_4bit`, `blocksize=64`); with [`TransformerInput::double_quant`]
        /// the absmaxes are themselves quantized to 8 bits, with one FP32
        /// scale per 256 of them (`compress_statistics`).
        Nf4 = "nf4",
        /// The same layout with the FP4 code.
        Fp4 = "fp4",
        /// LLM.int8 (`Linear8bitLt`): 1 byte per weight and one FP32 scale
        /// per output row (Dettmers et al. 2022, §3).
        Int8 = "int8",
    }
    default None
}

choice! {
    /// The number format of the KV cache in inference (`kv_dtype`).
    pub enum KvDtype {
        /// Unquantized: the model's compute dtype (BF16 or FP16; FP32 under
        /// `recipe=fp32`), as `generate()`'s `DynamicCache` stores it.
        Bf16 = "bf16",
        /// FP8 (E4M3) as serving engines store it (vLLM `kv_cache_dtype="fp8"`,
        /// vllm/attention/layer.py: one FP32 `k_scale` and `v_scale` per layer,
        /// 8 bytes per layer, left out): 1 byte per element, read by the
        /// attention kernel without a dequantized copy.
        Fp8 = "fp8",
        /// int8 with one 16-bit absmax scale per token and KV head, as
        /// torchao's `AffineQuantizedKVCache` (torchao/_models/llama/model.py:
        /// `scale_shape = (batch, heads, seq, 1)` in the model dtype): each
        /// layer's attention multiplies the whole cache by its scales, a
        /// 16-bit copy of that layer's K and V.
        Int8 = "int8",
        /// 4 bits per element with a 16-bit scale and zero point per group of
        /// 64 (transformers `QuantizedCache`, KIVI-style, `q_group_size=64`,
        /// quanto and HQQ backends alike); the latest tokens, up to
        /// `residual_length − 1` = 127, stay in the compute dtype until they
        /// are quantized together. Each layer's update dequantizes its cache
        /// and concatenates it with the recent tokens (cache_utils.py
        /// `QuantizedLayer.update`): two 16-bit copies of K and V at once.
        Int4 = "int4",
    }
    default Bf16
}

choice! {
    /// Which linear maps of each block carry LoRA adapters (PEFT `target_modules`).
    pub enum LoraTargets {
        /// `q_proj` and `v_proj`: PEFT's default for Llama-, Mistral- and
        /// Qwen-style models (peft/utils/constants.py,
        /// `TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING`).
        Qv = "qv",
        /// Every attention projection: Q, K, V and the output.
        Attn = "attn",
        /// The MLP's linear maps: gate, up and down (up and down for GELU).
        Mlp = "mlp",
        /// Every linear map of the blocks (PEFT `target_modules="all-linear"`,
        /// which leaves the output layer out). On a MoE model `mlp` and `all`
        /// are the dense layers' MLPs and the shared experts: the routed
        /// experts stay frozen.
        All = "all",
        /// The routed experts' gate, up and down maps, every expert's: PEFT
        /// `target_modules` naming them where each expert is its own
        /// `nn.Linear` (Mixtral's `w1`, `w3`, `w2`; Qwen-MoE's and OLMoE's
        /// `gate_proj`, `up_proj`, `down_proj`), or `target_parameters` on
        /// fused expert tensors (PEFT 0.17's `ParamWrapper`: r × experts rows
        /// of A and columns of B, the same count).
        Experts = "experts",
        /// `all` and the routed experts and the router: PEFT's
        /// `"all-linear"` on a model whose experts and router are
        /// `nn.Linear`s.
        AllExperts = "all_experts",
    }
    default Qv
}

choice! {
    /// FP8 training of the blocks' linear maps (`fp8`).
    pub enum Fp8 {
        None = "none",
        /// Transformer Engine's modules under its delayed-scaling recipe (the
        /// default before Blackwell: transformer_engine/pytorch/quantization.py
        /// `get_default_fp8_recipe`): the high-precision weights stay; each
        /// forward quantizes every weight to FP8 with its transpose and saves
        /// both for the backward pass (module/linear.py: no workspace kept
        /// across steps when `is_first_microbatch` is None); the inputs of the
        /// linear maps are saved as FP8 transposes; each GEMM keeps amax
        /// histories of 1,024 steps.
        Te = "te",
        /// torchao float8 training with dynamic scaling
        /// (torchao/float8/float8_linear.py `matmul_with_hp_or_float8_args`:
        /// `ctx.save_for_backward(input_hp, weight_hp_t)`): the
        /// high-precision input and weight are what is saved; the FP8 casts
        /// live for one matrix product.
        Torchao = "torchao",
    }
    default None
}

choice! {
    /// The adapter method (PEFT `LoraConfig(use_dora=...)`).
    pub enum LoraVariant {
        /// LoRA (Hu et al. 2021): W x + B A x.
        Lora = "lora",
        /// DoRA (Liu et al. 2024, "DoRA: Weight-Decomposed Low-Rank
        /// Adaptation", §4): a trainable magnitude per output row rescales
        /// W + B A by its detached column norm (peft/tuners/lora/dora.py
        /// `DoraLinearLayer`).
        Dora = "dora",
    }
    default Lora
}

choice! {
    /// How the optimizer step runs: which temporaries it allocates and how long
    /// gradients live (docs/frameworks.md).
    pub enum Step {
        /// One kernel over all parameters (`torch._fused_adam_`, apex/Transformer
        /// Engine FusedAdam, DeepSpeed FusedAdam): no full-size temporary.
        Fused = "fused",
        /// torch.optim's multi-tensor path, its default on CUDA: one state-sized
        /// list of temporaries (`exp_avg_sq_sqrt`).
        Foreach = "foreach",
        /// torch.optim's per-parameter loop (`foreach=False`): two temporaries the
        /// size of the largest parameter.
        ForLoop = "forloop",
        /// The step runs inside the backward pass, one parameter at a time, and
        /// frees each gradient at once (torchtune `optimizer_in_bwd`).
        InBackward = "in_backward",
    }
    default Fused
}

choice! {
    /// How the training loop clears the gradients between steps
    /// (torch/optim/optimizer.py and torch/nn/modules/module.py,
    /// `zero_grad(set_to_none: bool = True)`).
    pub enum ZeroGrad {
        /// `set_to_none=True`, the default since PyTorch 2.0: each `.grad` is
        /// dropped after the step, and the backward pass creates it again.
        None = "none",
        /// `set_to_none=False`, the default before PyTorch 2.0 (and of loops
        /// written for it): the gradients are zero-filled in place and stay
        /// allocated through the next forward pass, so from the second step on
        /// they are alive at the loss too.
        Zeros = "zeros",
        /// `set_to_none=True` called after the forward pass and the loss,
        /// just before `loss.backward()` (Lightning's automatic
        /// optimization; `out = model(x); loss = …; opt.zero_grad();
        /// loss.backward(); opt.step()`): from the second step on the
        /// previous step's gradients are alive through the forward pass and
        /// the loss's forward, and freed before the backward pass creates
        /// them again.
        AfterForward = "after_forward",
    }
    default None
}

choice! {
    /// What the training loop does with the model's output object
    /// (`outputs`): a decoder's full logits, which it holds.
    pub enum Outputs {
        /// Dropped before the backward pass: `loss = model(**batch).loss`,
        /// Hugging Face's Trainer (`compute_loss`'s `outputs` is a local,
        /// gone when `training_step` calls the backward pass), torchtune
        /// (`_loss_step`: `del logits`), Lightning (`training_step` returns
        /// the loss).
        Dropped = "dropped",
        /// Kept: `outputs = model(**batch); loss = outputs.loss;
        /// loss.backward(); optimizer.step()` (Hugging Face's "train in
        /// native PyTorch" tutorial, Accelerate's and PEFT's examples,
        /// PyTorch's AMP recipe): the name holds the step's logits through
        /// the backward pass and the optimizer step, and the previous
        /// step's through the next forward pass and loss, until
        /// `outputs = model(…)` rebinds it; one logit-sized tensor at every
        /// moment, in the head's compute dtype (transformers ≥ 4.46
        /// upcasts inside the loss only).
        Kept = "kept",
        /// Kept, with the logits upcast to FP32 in the model's forward
        /// (transformers ≤ 4.45: `logits = logits.float()` there, so
        /// `outputs.logits` is FP32): 4 bytes per logit.
        KeptFp32 = "kept_fp32",
    }
    default Dropped
}

choice! {
    /// How a decoder's loss is computed from the last hidden states.
    pub enum Loss {
        /// `F.cross_entropy` over the logits of every token: at the start of the
        /// backward pass its saved log-softmax, the gradient arriving from the
        /// NLL loss and the logits' gradient, 3 × 4 bytes per token and
        /// vocabulary entry in FP32.
        Full = "full",
        /// torchtune's LinearCrossEntropyLoss: the output projection and the
        /// cross-entropy run in 8 chunks of tokens; only each chunk's FP32
        /// log-softmax is kept for the backward pass.
        Chunked = "chunked",
        /// Megatron-Core's `vocab_parallel_cross_entropy`
        /// (megatron/core/tensor_parallel/cross_entropy.py
        /// `_VocabParallelCrossEntropy`): its own autograd function, which
        /// turns an FP32 copy of the logits into the softmax in place, saves
        /// it, and writes the gradient into the same storage in its backward:
        /// one FP32 logit-sized tensor, and the gradient's cast back to the
        /// logits' dtype.
        VocabParallel = "vocab_parallel",
        /// Unsloth's fused cross-entropy (unsloth-zoo `UnslothFusedLoss`):
        /// the head and the loss run chunk by chunk in the forward pass,
        /// each chunk's gradient computed at once; only the hidden states'
        /// gradient is kept for the backward pass.
        Fused = "fused",
    }
    default Full
}

choice! {
    /// The number format of a decoder's logits and their gradient in training.
    pub enum Logits {
        /// Upcast to FP32 for the loss, 4 bytes (Hugging Face, torchtitan,
        /// torchtune, Megatron-LM without `--fp16-lm-cross-entropy`).
        Fp32 = "fp32",
        /// Left in the 16-bit compute dtype, 2 bytes (Megatron-LM
        /// `--fp16-lm-cross-entropy`, a loss without `.float()`).
        Bf16 = "bf16",
    }
    default Fp32
}

choice! {
    /// How the norms run in training (`norm_kernel`): what they keep for the
    /// backward pass.
    pub enum NormKernel {
        /// As the model code writes them: `nn.LayerNorm` (one kernel, its input
        /// saved; in FP32 under autocast), RMSNorm as element-wise operations
        /// that keep an FP32 copy of the input and the normalized tensor
        /// (transformers `LlamaRMSNorm` and its copies, torchtune `RMSNorm`).
        Eager = "eager",
        /// One fused kernel per norm that saves its input as it receives it
        /// and a per-token statistic: Transformer Engine's `LayerNormLinear`
        /// (transformer_engine/pytorch/module/layernorm_linear.py saves
        /// `inputmat`, `ln_out`, `mu`, `rsigma`) and RMSNorm
        /// (transformer_engine/pytorch/ops/basic/rmsnorm.py:
        /// `ctx.save_for_backward(x, rstdevs)`), Apex's fused norms
        /// (Megatron-Core megatron/core/fusions/fused_layer_norm.py).
        Fused = "fused",
    }
    default Eager
}

choice! {
    /// Which of a block's projections that read one norm's output are one
    /// matrix (`fused_proj`): model code, read from `model_type` on import.
    /// Under autocast each matrix product casts that FP32 output to 16 bits
    /// for itself and saves its cast ([`autocast_casts`]).
    pub enum FusedProj {
        /// Q, K and V separate, and gate and up separate: transformers' Llama,
        /// Mistral, Qwen2/3, Gemma, OLMo 2, Phi-1/2 (`q_proj`, `k_proj`,
        /// `v_proj`; `gate_proj`, `up_proj`), BERT and ViT (`query`, `key`,
        /// `value`).
        None = "none",
        /// Q, K and V as one matrix, the MLP's first maps separate: GPT-2
        /// (`c_attn`), Qwen-1 (`c_attn`; `w1`, `w2`).
        Qkv = "qkv",
        /// Q, K and V as one matrix and gate and up as one: Phi-3
        /// (transformers models/phi3/modeling_phi3.py `qkv_proj`,
        /// `gate_up_proj`), Megatron-Core (`linear_qkv`, `linear_fc1`).
        All = "all",
    }
    default None
}

choice! {
    /// A training or inference stack: a set of defaults for the settings below,
    /// each of which the user can still change (docs/frameworks.md cites the
    /// source of every default).
    pub enum Framework {
        /// No profile: every setting at batchfit's own default.
        Custom = "custom",
        /// Plain PyTorch with autocast (AMP): FP32 parameters and gradients,
        /// 16-bit copies saved for the backward pass, torch.optim's foreach AdamW.
        Pytorch = "pytorch",
        /// Hugging Face Trainer with `bf16=True`: autocast, `adamw_torch_fused`
        /// (the default with torch ≥ 2.8).
        HfTrainer = "hf_trainer",
        /// Megatron-LM with `--bf16`: a BF16 model (`recipe=main_fp32`), FP32
        /// main gradients in a buffer that lives for the whole run
        /// (`zero_grad=zeros`) and main parameters, fused Adam, its
        /// vocab-parallel cross-entropy and Transformer Engine's fused norms.
        Megatron = "megatron",
        /// DeepSpeed ZeRO with bf16/fp16: 16-bit parameters and gradients, FP32
        /// partitions for the optimizer, FusedAdam, a 5e8-element gradient bucket.
        Deepspeed = "deepspeed",
        /// torchtune full fine-tuning: pure BF16, the optimizer step in the
        /// backward pass, chunked cross-entropy.
        Torchtune = "torchtune",
        /// Hugging Face Trainer (`bf16=True`, as `hf_trainer`) with a PEFT
        /// LoRA adapter at `LoraConfig`'s defaults: r = 8 on q_proj and
        /// v_proj (PEFT's targets for Llama-style models), no dropout, FP32
        /// adapters over the frozen 16-bit base.
        HfPeft = "hf_peft",
        /// torchtune's LoRA recipe (`lora_finetune_single_device`) as its
        /// Llama 3.1 8B config runs it: pure BF16, r = 8 on q, v, output and
        /// the MLP (counted as `all`), full activation checkpointing, fused
        /// AdamW, chunked cross-entropy.
        TorchtuneLora = "torchtune_lora",
        /// Lightning `precision="32"`.
        Lightning32 = "lightning_32",
        /// Lightning `precision="16-mixed"` (autocast to FP16 with GradScaler).
        Lightning16Mixed = "lightning_16_mixed",
        /// Lightning `precision="bf16-mixed"` (autocast to BF16).
        LightningBf16Mixed = "lightning_bf16_mixed",
        /// Lightning `precision="bf16-true"`: the module converted to BF16.
        LightningBf16True = "lightning_bf16_true",
        /// Hugging Face `generate`: BF16 weights, KV cache, last-token logits.
        HfGenerate = "hf_generate",
        /// FSDP2 `fully_shard` as torchtitan applies it: FP32 sharded parameters,
        /// BF16 compute, FP32 gradient reduction, fused AdamW, full sharding.
        Fsdp2 = "fsdp2",
        /// FSDP1 (`FullyShardedDataParallel`, one FlatParameter per wrapped
        /// block) with `MixedPrecision(param_dtype=bf16)`: FP32 sharded flat
        /// parameters and gradients, torch.optim's foreach AdamW, the root's
        /// parameters unsharded from its forward to its backward.
        Fsdp1 = "fsdp1",
        /// Unsloth (`FastLanguageModel`) under the Hugging Face Trainer:
        /// QLoRA (NF4, double quantization) with r = 16 on every linear map,
        /// its offloaded gradient checkpointing, and its own RMSNorm and
        /// LoRA kernels, which save fewer tensors.
        Unsloth = "unsloth",
    }
    default Custom
}

impl Framework {
    /// Sets the profile's defaults on `input`; the architecture and the batch
    /// are left alone. Each line names the source docs/frameworks.md quotes.
    pub fn apply(self, input: &mut TransformerInput) {
        input.framework = self;
        let (recipe, step, loss, bucket_m) = match self {
            Framework::Custom => return,
            // torch/amp/autocast_mode.py + torch/optim/optimizer.py
            // (_default_to_fused_or_foreach: foreach on CUDA);
            // docs/source/notes/amp_examples.rst "Typical use": `output =
            // model(input)`, `loss = loss_fn(output, target)`,
            // `scaler.scale(loss).backward()`, `scaler.step(optimizer)`:
            // `output` lives until the next iteration rebinds it.
            Framework::Pytorch => {
                input.outputs = Outputs::Kept;
                (Recipe::Amp, Step::Foreach, Loss::Full, 0)
            }
            // transformers/training_args.py: default_optim = "adamw_torch_fused"
            // for torch ≥ 2.8.
            Framework::HfTrainer => (Recipe::Amp, Step::Fused, Loss::Full, 0),
            // megatron/core/transformer/module.py `Float16Module` (the model
            // in BF16), megatron/training/arguments.py (bf16 → FP32 main
            // grads), megatron/core/optimizer/__init__.py (TE/apex FusedAdam),
            // megatron/core/tensor_parallel/cross_entropy.py (the loss),
            // megatron/core/distributed/param_and_grad_buffer.py
            // (`_ParamAndGradBuffer`: `grad_data = torch.zeros(...)` once,
            // `reset` zero-fills it: the gradients are alive at every
            // moment), megatron/core/extensions/transformer_engine.py
            // (`TENorm`, `TELayerNormColumnParallelLinear`: fused norms),
            // megatron/core/tensor_parallel/random.py `CheckpointFunction`
            // (its full recomputation's checkpoint, the reentrant kind: the
            // backward's `torch.autograd.backward(outputs, args)` on the
            // rerun's outputs).
            Framework::Megatron => {
                input.zero_grad = ZeroGrad::Zeros;
                input.norm_kernel = NormKernel::Fused;
                input.reentrant = true;
                (Recipe::MainFp32, Step::Fused, Loss::VocabParallel, 0)
            }
            // deepspeed/runtime/zero/config.py (reduce_bucket_size = 5e8),
            // deepspeed/runtime/zero/stage_1_and_2.py (16-bit grads, FP32 partitions).
            Framework::Deepspeed => (Recipe::Amp16, Step::Fused, Loss::Full, 500),
            // recipes/full_finetune_single_device.py, torchtune/modules/optim.py,
            // torchtune/modules/loss/cross_entropy_loss.py.
            Framework::Torchtune => (Recipe::Bf16, Step::InBackward, Loss::Chunked, 0),
            // huggingface/peft src/peft/tuners/lora/config.py `LoraConfig`:
            // `r` default 8, `lora_dropout` default 0.0; src/peft/utils/
            // constants.py `TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING`
            // ["llama"] = ["q_proj", "v_proj"]; FP32 adapters from
            // `autocast_adapter_dtype=True` (counted for every LoRA). The
            // Trainer's side is `hf_trainer`'s; `gradient_checkpointing`
            // defaults to False (transformers training_args.py), so
            // recomputation stays the user's.
            Framework::HfPeft => {
                input.lora_rank = 8;
                input.lora_targets = LoraTargets::Qv;
                input.lora_dropout = false;
                (Recipe::Amp, Step::Fused, Loss::Full, 0)
            }
            // pytorch/torchtune recipes/configs/llama3_1/8B_lora_single_device.yaml:
            // lora_rank 8, lora_dropout 0.0, lora_attn_modules [q_proj, v_proj,
            // output_proj] with apply_lora_to_mlp True (no k_proj: `all` is
            // the nearest target set, docs/frameworks.md), dtype bf16,
            // enable_activation_checkpointing True (per
            // TransformerSelfAttentionLayer: full recomputation), torch.optim
            // AdamW with fused True, LinearCrossEntropyLoss.
            Framework::TorchtuneLora => {
                input.lora_rank = 8;
                input.lora_targets = LoraTargets::All;
                input.lora_dropout = false;
                input.recompute = Recompute::Full;
                (Recipe::Bf16, Step::Fused, Loss::Chunked, 0)
            }
            // The Trainer's automatic optimization clears the gradients
            // between `training_step` and the backward pass:
            // src/lightning/pytorch/loops/optimization/automatic.py
            // `Closure.closure` calls `_step_fn()`, `_zero_grad_fn()`
            // (`optimizer_zero_grad` → `optimizer.zero_grad()`, set_to_none
            // by default; src/lightning/pytorch/core/module.py), then
            // `_backward_fn(loss)`; with accumulation only on the first
            // micro-batch (`_make_zero_grad_fn`).
            // src/lightning/pytorch/plugins/precision/precision.py: no conversion.
            Framework::Lightning32 => {
                input.zero_grad = ZeroGrad::AfterForward;
                (Recipe::Fp32, Step::Foreach, Loss::Full, 0)
            }
            // src/lightning/pytorch/plugins/precision/amp.py: torch.autocast.
            Framework::Lightning16Mixed | Framework::LightningBf16Mixed => {
                input.zero_grad = ZeroGrad::AfterForward;
                (Recipe::Amp, Step::Foreach, Loss::Full, 0)
            }
            // src/lightning/pytorch/plugins/precision/half.py: module.to(bfloat16).
            Framework::LightningBf16True => {
                input.zero_grad = ZeroGrad::AfterForward;
                (Recipe::Bf16, Step::Foreach, Loss::Full, 0)
            }
            // transformers/generation/utils.py: inference in the model's dtype.
            Framework::HfGenerate => {
                input.mode = Mode::Inference;
                (Recipe::Bf16, Step::Fused, Loss::Full, 0)
            }
            // pytorch/torchtitan torchtitan/config/job_config.py
            // (mixed_precision_param = "bfloat16", mixed_precision_reduce =
            // "float32", implementation = "fused"), parallelize.py apply_fsdp
            // (fully_shard per block: ZeRO-3), torch/distributed/fsdp/_fully_shard.
            Framework::Fsdp2 => {
                input.zero = 3;
                input.prefetch = PREFETCH.default;
                (Recipe::Fsdp, Step::Fused, Loss::Full, 0)
            }
            // torch/distributed/fsdp/fully_sharded_data_parallel.py (FULL_SHARD,
            // backward_prefetch=BACKWARD_PRE, limit_all_gathers=True: one block
            // prefetched), accelerate/utils/dataclasses.py
            // FullyShardedDataParallelPlugin.set_mixed_precision
            // (MixedPrecision(param_dtype=bf16, reduce_dtype=bf16)), the user's
            // torch.optim AdamW (foreach on CUDA).
            Framework::Fsdp1 => {
                input.zero = 3;
                input.prefetch = PREFETCH.default;
                (Recipe::Fsdp, Step::Foreach, Loss::Full, 0)
            }
            // unslothai/unsloth unsloth/models/loader.py
            // `FastLanguageModel.from_pretrained`: `load_in_4bit = True`,
            // `use_gradient_checkpointing = "unsloth"`; unsloth/models/llama.py
            // (`bnb_4bit_quant_type = "nf4"`, `bnb_4bit_use_double_quant =
            // True`; the model in BF16 where the GPU supports it), and
            // `FastLlamaModel.get_peft_model`: `r = 16`, q/k/v/o and
            // gate/up/down, `lora_dropout = 0.0`, PEFT's `get_peft_model`
            // (FP32 adapters). "unsloth" checkpointing (unslothai/unsloth-zoo
            // unsloth_zoo/gradient_checkpointing.py
            // `UnslothCheckpointFunction`) keeps each layer's input in pinned
            // CPU buffers and brings it back into a GPU buffer to recompute
            // the layer: `recompute=full` with `act_offload`. Its backward
            // reruns the layer and calls `torch.autograd.backward(
            // outputs_with_grad, args_with_grad)`, the reentrant kind
            // (`unsloth_checkpoint` forces `use_reentrant=True`):
            // `reentrant`. The Trainer's side is `hf_trainer`'s optimizer;
            // unsloth/models/llama.py computes the loss with unsloth-zoo's
            // `unsloth_fused_ce_loss`.
            Framework::Unsloth => {
                input.lora_rank = 16;
                input.lora_targets = LoraTargets::All;
                input.lora_dropout = false;
                input.base_quant = BaseQuant::Nf4;
                input.double_quant = true;
                input.recompute = Recompute::Full;
                input.act_offload = true;
                input.reentrant = true;
                (Recipe::Bf16, Step::Fused, Loss::Fused, 0)
            }
        };
        input.recipe = recipe;
        input.step = step;
        input.loss = loss;
        input.bucket_m = bucket_m;
    }

    /// `TransformerInput::default()` with this profile applied: what a URL
    /// naming the profile means before its other parameters.
    pub fn defaults(self) -> TransformerInput {
        let mut input = TransformerInput::default();
        self.apply(&mut input);
        input
    }
}

pub const HEADS: WholeField = whole(Param::Heads, 1, 100_000, 32);
pub const KV_HEADS: WholeField = whole(Param::KvHeads, 1, 100_000, 8);
/// 0 means hidden / heads, the usual choice.
pub const HEAD_DIM: WholeField = whole(Param::HeadDim, 0, 100_000, 0);
pub const FFN: WholeField = whole(Param::Ffn, 1, 10_000_000, 14_336);
pub const VOCAB: WholeField = whole(Param::Vocab, 1, 100_000_000, 128_256);
/// Learned position embeddings (GPT-2, BERT); 0 for rotary or none.
pub const POSITIONS: WholeField = whole(Param::Positions, 0, 10_000_000, 0);
/// Token-type (segment) embeddings (BERT has 2).
pub const TOKEN_TYPES: WholeField = whole(Param::TokenTypes, 0, 1_000, 0);
/// Outputs of a classification head on top (0 = none).
pub const LABELS: WholeField = whole(Param::Labels, 0, 1_000_000, 0);
/// Image side in pixels; the bound keeps (image / patch)² tokens, and their
/// seq² attention scores, far inside integer range.
pub const IMAGE: WholeField = whole(Param::Image, 1, 4_096, 224);
pub const PATCH: WholeField = whole(Param::Patch, 1, 100_000, 16);
pub const CHANNELS: WholeField = whole(Param::Channels, 1, 1_000, 3);
/// Tokens generated after the prompt (inference).
pub const GEN: WholeField = whole(Param::Gen, 0, 10_000_000, 256);
/// Data-parallel degree: model replicas (or ZeRO shards).
pub const GPUS: WholeField = whole(Param::Gpus, 1, 100_000, 1);
pub const ZERO: WholeField = whole(Param::Zero, 0, 3, 0);
/// `recompute_layers`: as many as `layers` allows.
pub const RECOMPUTE_LAYERS: WholeField = whole(Param::RecomputeLayers, 1, 10_000, 1);
/// Tensor-parallel degree.
pub const TP: WholeField = whole(Param::Tp, 1, 1_024, 1);
/// LoRA rank r (0 = full fine-tuning): adapters A (r × d_in) and B (d_out × r)
/// beside each targeted linear map (Hu et al. 2021, "LoRA", §4.1).
pub const LORA_RANK: WholeField = whole(Param::LoraRank, 0, 65_536, 0);
/// DeepSpeed's gradient bucket (`reduce_bucket_size`), in millions of elements
/// (0 = none).
pub const BUCKET_M: WholeField = whole(Param::BucketM, 0, 100_000, 0);
/// Sliding-window attention: the tokens a windowed layer attends to (0 = no
/// window; Mistral 7B v0.1 4,096, Gemma 2 4,096, Gemma 3 1B 512, 4B–27B 1,024).
pub const WINDOW: WholeField = whole(Param::Window, 0, 10_000_000, 0);
/// Every n-th layer attends globally, the others through the window: layer i
/// (from 0) is global when (i + 1) is a multiple of n, as transformers writes
/// `layer_types` (configuration_gemma2.py:
/// `"sliding_attention" if bool((i + 1) % 2)`; configuration_gemma3.py with
/// `sliding_window_pattern` 6). 0 = no global layer (Mistral: every layer
/// windowed); 1 = every layer global.
pub const GLOBAL_EVERY: WholeField = whole(Param::GlobalEvery, 0, 100_000, 0);
/// FSDP2 layers all-gathered ahead of the one computing (`recipe=fsdp`): its
/// default prefetch is 1 (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py
/// `_backward_prefetch`: the group at `curr_index - 1`).
pub const PREFETCH: WholeField = whole(Param::Prefetch, 0, 1_000, 1);
/// DeepSpeed ZeRO-3's prefetch bucket (`stage3_prefetch_bucket_size`), in
/// parameter elements: deepspeed/runtime/zero/config.py defaults it to 5e7.
/// The bound (10^12, a trillion parameters) keeps every byte count in range.
pub const DS_PREFETCH: WholeField = whole(Param::DsPrefetch, 0, 1_000_000_000_000, 50_000_000);
/// DeepSpeed ZeRO-3's live-parameter budget (`stage3_max_live_parameters`),
/// in elements: config.py defaults it to 1e9.
pub const DS_LIVE: WholeField = whole(Param::DsLive, 0, 1_000_000_000_000, 1_000_000_000);
/// DeepSpeed ZeRO-3's persistence threshold
/// (`stage3_param_persistence_threshold`), in elements: config.py defaults it
/// to 1e5.
pub const DS_PERSIST: WholeField = whole(Param::DsPersist, 0, 1_000_000_000_000, 100_000);
/// DeepSpeed ZeRO-3's optimizer sub-group (`sub_group_size`), in elements:
/// deepspeed/runtime/zero/config.py defaults it to 1e9; the step converts one
/// sub-group's gradients to FP32 at a time.
const DS_SUB_GROUP: u128 = 1_000_000_000;
/// Routed experts per mixture-of-experts layer; 0 is a dense model.
pub const EXPERTS: WholeField = whole(Param::Experts, 0, 100_000, 0);
/// Experts each token is routed to (top-k).
pub const EXPERTS_ACTIVE: WholeField = whole(Param::ExpertsActive, 1, 100_000, 2);
/// Each routed expert's FFN size; 0 means `ffn` (Mixtral's experts are its
/// `intermediate_size`).
pub const EXPERT_FFN: WholeField = whole(Param::ExpertFfn, 0, 10_000_000, 0);
/// Shared experts every token passes through (DeepSeek, Llama 4).
pub const SHARED_EXPERTS: WholeField = whole(Param::SharedExperts, 0, 1_000, 0);
/// Each shared expert's FFN size; 0 means the routed experts' size.
pub const SHARED_FFN: WholeField = whole(Param::SharedFfn, 0, 10_000_000, 0);
/// Dense layers before the first MoE layer (DeepSeek's `first_k_dense_replace`).
pub const FIRST_DENSE_LAYERS: WholeField = whole(Param::FirstDenseLayers, 0, 10_000, 0);
/// Every n-th layer is a MoE layer (Qwen's `decoder_sparse_step`, Llama 4's
/// `interleave_moe_layer_step`).
pub const MOE_EVERY: WholeField = whole(Param::MoeEvery, 1, 10_000, 1);
/// Expert-parallel degree: the routed experts are split over this many of the
/// data-parallel ranks.
pub const EP: WholeField = whole(Param::Ep, 1, 100_000, 1);
/// Expert tensor-parallel degree, Megatron-Core's
/// `--expert-tensor-parallel-size`: each routed expert's matrices split over
/// this many ranks of its expert-parallel group. 0 (the default) is `tp`, as
/// megatron/training/arguments.py sets it when the flag is not given
/// (`args.expert_tensor_parallel_size = args.tensor_model_parallel_size`).
pub const ETP: WholeField = whole(Param::Etp, 0, 1_024, 0);
/// Megatron-Core's `moe_expert_capacity_factor`, in hundredths (0: none,
/// dropless routing).
pub const CAPACITY_FACTOR: HundredthsField = HundredthsField {
    param: Param::CapacityFactor,
    min: 0,
    max: 10_000,
    default: 0,
};
/// Multi-head latent attention's compressed KV size; 0 is ordinary attention.
pub const KV_LORA_RANK: WholeField = whole(Param::KvLoraRank, 0, 1_000_000, 0);
/// MLA's compressed query size; 0 projects the queries directly.
pub const Q_LORA_RANK: WholeField = whole(Param::QLoraRank, 0, 1_000_000, 0);
/// MLA's rotary part of each query and key head (shared by the heads for keys).
pub const QK_ROPE_HEAD_DIM: WholeField = whole(Param::QkRopeHeadDim, 0, 100_000, 64);
/// MLA's non-rotary part of each query and key head.
pub const QK_NOPE_HEAD_DIM: WholeField = whole(Param::QkNopeHeadDim, 0, 100_000, 128);
/// MLA's value head size.
pub const V_HEAD_DIM: WholeField = whole(Param::VHeadDim, 0, 100_000, 128);

/// A transformer's shape: enough to count every parameter exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Architecture {
    pub kind: Kind,
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    /// Key/value heads: = heads for multi-head, fewer for GQA, 1 for MQA.
    pub kv_heads: u64,
    /// Per-head size; 0 means hidden / heads.
    pub head_dim: u64,
    pub ffn: u64,
    pub mlp: Mlp,
    pub norm: Norm,
    pub vocab: u64,
    /// Input embedding and LM head share one matrix.
    pub tied: bool,
    /// Every linear map has a bias (GPT-2, BERT, ViT).
    pub bias: bool,
    /// Only the query/key/value maps have biases (Qwen2).
    pub qkv_bias: bool,
    /// Norms on the queries and keys before the rotary embedding (QK-norm),
    /// of the kind of [`Architecture::norm`], over each head's head_dim and
    /// shared by the heads: transformers models/qwen3/modeling_qwen3.py,
    /// qwen3_moe and models/gemma3/modeling_gemma3.py, `q_norm =
    /// …RMSNorm(head_dim)`, `k_norm = …RMSNorm(head_dim)`: 2 × head_dim
    /// weights per layer.
    pub qk_norm: bool,
    /// The QK-norms run over the whole Q and K projections instead:
    /// transformers models/olmo2/modeling_olmo2.py and models/olmoe,
    /// `q_norm = …RMSNorm(heads × head_dim)`, `k_norm = …RMSNorm(kv_heads ×
    /// head_dim)`: (heads + kv_heads) × head_dim weights per layer. Only with
    /// `qk_norm`.
    pub qk_norm_full: bool,
    /// Attention sinks (gpt-oss): one learned logit per head and layer.
    pub attn_sinks: bool,
    pub positions: u64,
    pub token_types: u64,
    pub labels: u64,
    /// Dropout active in training (GPT-2, BERT, ViT: 0.1; Llama-style: 0):
    /// each dropout keeps a 1-byte mask.
    pub dropout: bool,
    pub image: u64,
    pub patch: u64,
    pub channels: u64,
    /// Where the norms sit, and whether attention and the MLP run in parallel.
    pub block: Block,
    /// Sliding-window length in tokens (0 = none).
    pub window: u64,
    /// Every n-th layer is global (0 = none).
    pub global_every: u64,
    /// Gemma 2's soft-capping of the final logits, `cap × tanh(logits / cap)`
    /// (transformers models/gemma2/modeling_gemma2.py `Gemma2ForCausalLM`,
    /// `final_logit_softcapping`).
    pub softcap: bool,
    /// Gemma 2's soft-capping of the attention scores (`attn_logit_softcapping`).
    pub attn_softcap: bool,
    /// Routed experts per MoE layer; 0 is a dense model.
    pub experts: u64,
    /// Routed experts per token (top-k).
    pub experts_active: u64,
    /// Each routed expert's FFN size; 0 means `ffn`.
    pub expert_ffn: u64,
    /// Shared experts, computed for every token.
    pub shared_experts: u64,
    /// Each shared expert's FFN size; 0 means the routed experts' size.
    pub shared_ffn: u64,
    /// Dense layers before the first MoE layer.
    pub first_dense_layers: u64,
    /// Layer i (from 0) is a MoE layer when i ≥ first_dense_layers and
    /// (i + 1) is a multiple of this.
    pub moe_every: u64,
    /// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the compressed
    /// KV size; 0 is ordinary attention.
    pub kv_lora_rank: u64,
    /// MLA's compressed query size; 0 projects the queries directly.
    pub q_lora_rank: u64,
    pub qk_rope_head_dim: u64,
    pub qk_nope_head_dim: u64,
    pub v_head_dim: u64,
    /// Which projections reading one norm's output are one matrix.
    pub fused_proj: FusedProj,
}

impl Default for Architecture {
    /// Llama 3.1 8B (meta-llama/Llama-3.1-8B, config.json).
    fn default() -> Self {
        Self {
            kind: Kind::Decoder,
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 8,
            head_dim: 0,
            ffn: 14_336,
            mlp: Mlp::Swiglu,
            norm: Norm::RmsNorm,
            vocab: 128_256,
            tied: false,
            bias: false,
            qkv_bias: false,
            qk_norm: false,
            qk_norm_full: false,
            attn_sinks: false,
            positions: 0,
            token_types: 0,
            labels: 0,
            dropout: false,
            image: IMAGE.default,
            patch: PATCH.default,
            channels: CHANNELS.default,
            block: Block::Pre,
            window: WINDOW.default,
            global_every: GLOBAL_EVERY.default,
            softcap: false,
            attn_softcap: false,
            experts: EXPERTS.default,
            experts_active: EXPERTS_ACTIVE.default,
            expert_ffn: EXPERT_FFN.default,
            shared_experts: SHARED_EXPERTS.default,
            shared_ffn: SHARED_FFN.default,
            first_dense_layers: FIRST_DENSE_LAYERS.default,
            moe_every: MOE_EVERY.default,
            kv_lora_rank: KV_LORA_RANK.default,
            q_lora_rank: Q_LORA_RANK.default,
            qk_rope_head_dim: QK_ROPE_HEAD_DIM.default,
            qk_nope_head_dim: QK_NOPE_HEAD_DIM.default,
            v_head_dim: V_HEAD_DIM.default,
            fused_proj: FusedProj::None,
        }
    }
}

impl Architecture {
    /// The per-head size actually used: `head_dim`, or hidden / heads when 0.
    pub fn head_size(&self) -> u64 {
        match self.head_dim {
            0 => (self.hidden / self.heads.max(1)).max(1),
            d => d,
        }
    }

    /// Layers that attend through the sliding window: all but every
    /// `global_every`-th, none without a window.
    pub fn windowed_layers(&self) -> u64 {
        if self.window == 0 {
            return 0;
        }
        let global = match self.global_every {
            0 => 0,
            n => self.layers / n,
        };
        self.layers - global
    }

    /// Parameters of one norm over `dims` units: a weight, and a bias for LayerNorm.
    fn norm_parameters(&self, dims: u128) -> u128 {
        match self.norm {
            Norm::LayerNorm => 2 * dims,
            Norm::RmsNorm | Norm::RmsNormFp32 => dims,
        }
    }

    /// Units the QK-norms normalize per layer: 2 × head_dim for per-head
    /// norms, (heads + kv_heads) × head_dim over the whole projections.
    fn qk_norm_units(&self) -> u128 {
        let head = u128::from(self.head_size());
        match (self.qk_norm, self.qk_norm_full) {
            (false, _) => 0,
            (true, false) => 2 * head,
            (true, true) => (u128::from(self.heads) + u128::from(self.kv_heads)) * head,
        }
    }

    /// Tokens per sample for a vision transformer: one per patch plus the class token.
    pub fn patch_tokens(&self) -> u64 {
        let side = self.image / self.patch.max(1);
        side * side + 1
    }

    /// A mixture-of-experts model: some layers route tokens to experts.
    pub const fn moe(&self) -> bool {
        self.experts > 0
    }

    /// Layers whose FFN is a MoE block: layer i (from 0) when i ≥
    /// `first_dense_layers` and (i + 1) is a multiple of `moe_every`, the
    /// rule of transformers' Qwen2-MoE/Qwen3-MoE (`(layer_idx + 1) %
    /// decoder_sparse_step == 0`), Llama 4 (`moe_layers = range(step - 1,
    /// layers, step)`) and DeepSeek-V3 (`layer_idx >= first_k_dense_replace`).
    /// The multiples of n in (first, layers] number ⌊layers/n⌋ − ⌊first/n⌋.
    pub fn moe_layers(&self) -> u64 {
        self.placement().between(0, self.layers)
    }

    /// Which of the layers are MoE layers ([`Self::moe_layers`]' rule).
    pub const fn placement(&self) -> MoePlacement {
        MoePlacement {
            moe: self.moe(),
            first_dense: self.first_dense_layers,
            every: self.moe_every,
        }
    }

    /// Layers with a dense FFN of size `ffn`.
    pub fn dense_layers(&self) -> u64 {
        self.layers - self.moe_layers()
    }

    /// Each routed expert's FFN size.
    pub fn expert_width(&self) -> u64 {
        match self.expert_ffn {
            0 => self.ffn,
            f => f,
        }
    }

    /// The shared experts' FFN size together: DeepSeek-V3 builds them as one
    /// MLP of `moe_intermediate_size × n_shared_experts`
    /// (transformers models/deepseek_v3/modeling_deepseek_v3.py
    /// `DeepseekV3MoE.shared_experts`).
    pub fn shared_width(&self) -> u64 {
        let each = match self.shared_ffn {
            0 => self.expert_width(),
            f => f,
        };
        self.shared_experts.saturating_mul(each)
    }

    /// Routed experts each token reaches: top-k, at most every expert.
    pub fn routed_per_token(&self) -> u64 {
        self.experts_active.min(self.experts)
    }

    /// Multi-head latent attention.
    pub fn mla(&self) -> bool {
        self.kv_lora_rank > 0
    }

    /// Per token and layer, the widths of Q, K, V and the attention output
    /// (the output projection's input). MLA decompresses K and V per head:
    /// Q and K are heads × (qk_nope + qk_rope), V and the output heads × v_head_dim.
    pub fn attention_widths(&self) -> AttentionWidths {
        let a = u128::from(self.heads);
        if self.mla() {
            let qk = a * u128::from(self.qk_nope_head_dim + self.qk_rope_head_dim);
            let v = a * u128::from(self.v_head_dim);
            return AttentionWidths {
                q: qk,
                k: qk,
                v,
                output: v,
            };
        }
        let head = u128::from(self.head_size());
        let kv = u128::from(self.kv_heads) * head;
        AttentionWidths {
            q: a * head,
            k: kv,
            v: kv,
            output: a * head,
        }
    }
}

/// Per token and layer, the widths of the attention's tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionWidths {
    pub q: u128,
    pub k: u128,
    pub v: u128,
    /// The attention output, the output projection's input.
    pub output: u128,
}

/// Parameters of an architecture, split the ways the memory terms need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParameterCount {
    pub total: u128,
    /// Weights of the layers' linear maps: what int8/int4 quantization compresses
    /// (embeddings, head and norms stay 16-bit, as GPTQ/AWQ/bitsandbytes do).
    pub linear: u128,
    /// Output rows of those linear maps: one int8 scale each.
    pub linear_rows: u128,
    /// Norm weights and biases: replicated on every tensor-parallel rank.
    pub norms: u128,
    /// Σ (rows + columns) over matrices plus the size of every vector: the
    /// entries of Adafactor's factored second moment.
    pub factored: u128,
    /// The largest single weight matrix: what a per-parameter optimizer step
    /// or gradient holds at most at once.
    pub largest: u128,
    /// The largest matrix of the layers' linear maps (what a quantized base
    /// dequantizes at once), and its output rows.
    pub largest_linear: u128,
    pub largest_linear_rows: u128,
    /// The token embedding and the output head's matrix (with its bias) held
    /// here, a tied head counted once: what `train_embeddings` trains.
    pub vocabulary: u128,
    /// Those matrices' count (0, 1 or 2): Adafactor's factored rows.
    pub vocabulary_matrices: u128,
    /// Parameters one token's forward pass uses: `total` less the routed
    /// experts it is not sent to (the embedding and head counted whole, as
    /// Mistral counts Mixtral's 12.9B). Equal to `total` for a dense model.
    pub active: u128,
    /// The routed experts, a part of the fields above: what expert
    /// parallelism splits.
    pub routed: RoutedExperts,
}

/// The routed experts' share of a [`ParameterCount`], with the same meanings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RoutedExperts {
    pub total: u128,
    pub linear: u128,
    pub linear_rows: u128,
    pub factored: u128,
    /// One expert's largest matrix.
    pub largest: u128,
}

/// A block's parameters, as [`ParameterCount`] splits them.
#[derive(Clone, Copy, Debug, Default)]
struct Counted {
    total: u128,
    linear: u128,
    rows: u128,
    norms: u128,
    factored: u128,
    largest: u128,
    /// Output rows of the largest matrix (the most, among equal sizes).
    largest_rows: u128,
}

impl Counted {
    /// Keep `(size, rows)` when it is the larger matrix.
    fn keep_largest(&mut self, size: u128, rows: u128) {
        if (size, rows) > (self.largest, self.largest_rows) {
            (self.largest, self.largest_rows) = (size, rows);
        }
    }

    /// A weight matrix of `d_in` → `d_out`, with a bias when `bias`.
    fn linear(&mut self, d_in: u128, d_out: u128, bias: bool) {
        let bias = if bias { d_out } else { 0 };
        self.total += d_in * d_out + bias;
        self.linear += d_in * d_out;
        self.rows += d_out;
        self.factored += d_in + d_out + bias;
        self.keep_largest(d_in * d_out, d_out);
    }

    /// A norm's weights (and biases).
    fn norm(&mut self, size: u128) {
        self.total += size;
        self.norms += size;
        self.factored += size;
    }

    /// A vector of learned values that is no norm (attention sinks).
    fn vector(&mut self, size: u128) {
        self.total += size;
        self.factored += size;
    }

    /// An FFN of `width`: up (and gate) `h → width`, down `width → h`.
    fn mlp(&mut self, arch: &Architecture, width: u128) {
        let h = u128::from(arch.hidden);
        let into = match arch.mlp {
            Mlp::Gelu | Mlp::GeluNew => 1,
            Mlp::Swiglu => 2,
        };
        for _ in 0..into {
            self.linear(h, width, arch.bias);
        }
        self.linear(width, h, arch.bias);
    }

    /// `count` copies of this block.
    fn times(self, count: u128) -> Self {
        Self {
            total: self.total * count,
            linear: self.linear * count,
            rows: self.rows * count,
            norms: self.norms * count,
            factored: self.factored * count,
            largest: if count > 0 { self.largest } else { 0 },
            largest_rows: if count > 0 { self.largest_rows } else { 0 },
        }
    }

    fn add(&mut self, other: Self) {
        self.total += other.total;
        self.linear += other.linear;
        self.rows += other.rows;
        self.norms += other.norms;
        self.factored += other.factored;
        self.keep_largest(other.largest, other.largest_rows);
    }
}

/// One layer's attention and its two norms (everything but the FFN).
fn attention_block(arch: &Architecture) -> Counted {
    let h = u128::from(arch.hidden);
    let norm = arch.norm_parameters(h);
    let widths = arch.attention_widths();
    let mut block = Counted::default();
    if arch.mla() {
        // transformers models/deepseek_v3/modeling_deepseek_v3.py
        // `DeepseekV3Attention.__init__`: q_a_proj (h → q_lora_rank), its
        // RMSNorm and q_b_proj (→ heads × (nope + rope)), or one q_proj
        // without q_lora_rank; kv_a_proj_with_mqa (h → kv_lora_rank + rope),
        // kv_a_layernorm, kv_b_proj (kv_lora_rank → heads × (nope + v));
        // o_proj (heads × v → h). `attention_bias` puts biases on q_a_proj,
        // kv_a_proj_with_mqa and o_proj (and none on q_proj).
        let (ql, kvl) = (u128::from(arch.q_lora_rank), u128::from(arch.kv_lora_rank));
        let rope = u128::from(arch.qk_rope_head_dim);
        let a = u128::from(arch.heads);
        if ql > 0 {
            block.linear(h, ql, arch.bias);
            block.norm(arch.norm_parameters(ql));
            block.linear(ql, widths.q, false);
        } else {
            block.linear(h, widths.q, false);
        }
        block.linear(h, kvl + rope, arch.bias);
        block.norm(arch.norm_parameters(kvl));
        block.linear(kvl, a * u128::from(arch.qk_nope_head_dim) + widths.v, false);
        block.linear(widths.output, h, arch.bias);
    } else {
        // W_q (h×q), W_k and W_v (h×kv), W_o (q×h); Qwen2's biases on Q, K, V only.
        let qkv_bias = arch.bias || arch.qkv_bias;
        block.linear(h, widths.q, qkv_bias);
        block.linear(h, widths.k, qkv_bias);
        block.linear(h, widths.v, qkv_bias);
        block.linear(widths.output, h, arch.bias);
    }
    // The QK-norms' weights ([`Architecture::qk_norm`]), of the norm's kind.
    block.norm(arch.norm_parameters(arch.qk_norm_units()));
    if arch.attn_sinks {
        // transformers models/gpt_oss/modeling_gpt_oss.py
        // `GptOssAttention.sinks = nn.Parameter(torch.empty(num_attention_heads))`.
        block.vector(u128::from(arch.heads));
    }
    // The block's norms (two before the sublayers; Gemma's four, Phi's one:
    // [`Block::norms`]).
    block.norm(arch.block.norms() * norm);
    block
}

/// A MoE layer's FFN without the routed experts: the router (transformers
/// Mixtral, Qwen3-MoE, OLMoE, Llama 4: `gate = nn.Linear(h, experts,
/// bias=False)`; gpt-oss's router has a bias, DeepSeek-V3's
/// `e_score_correction_bias` is a buffer, not a parameter) and the shared
/// experts as one MLP.
fn moe_common(arch: &Architecture) -> Counted {
    let mut block = Counted::default();
    block.linear(u128::from(arch.hidden), u128::from(arch.experts), arch.bias);
    let shared = u128::from(arch.shared_width());
    if shared > 0 {
        block.mlp(arch, shared);
    }
    block
}

/// Counts every parameter of `arch`.
pub fn parameter_count(arch: &Architecture) -> ParameterCount {
    stage_parameter_count(arch, Ends::WHOLE)
}

/// Which ends of the model a pipeline stage holds beside its layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    /// The embedding (and BERT's embedding norm).
    pub embedding: bool,
    /// The final norm, the output head (BERT's pooler, a classifier).
    pub head: bool,
}

impl Ends {
    /// The whole model: both ends.
    pub const WHOLE: Self = Self {
        embedding: true,
        head: true,
    };
}

/// The parameters of `arch`'s layers with the ends in `ends`: a pipeline
/// stage's share. A tied head on a stage without the embedding is a copy
/// of it: Megatron-Core's `LanguageModule.setup_embeddings_and_output_layer`
/// (megatron/core/models/common/language_module/language_module.py) gives
/// the last stage its own output weight when `share_embeddings_and_output_weights`
/// and pipeline parallelism meet, kept equal by an all-reduce of the
/// gradients over the embedding group.
pub fn stage_parameter_count(arch: &Architecture, ends: Ends) -> ParameterCount {
    let h = u128::from(arch.hidden);
    let layers = u128::from(arch.layers);
    let norm = arch.norm_parameters(h);

    let mut dense = Counted::default();
    dense.mlp(arch, u128::from(arch.ffn));
    let mut expert = Counted::default();
    expert.mlp(arch, u128::from(arch.expert_width()));
    let moe_layers = u128::from(arch.moe_layers());
    let dense_layers = layers - moe_layers;
    let (experts, routed_per_token) = (
        u128::from(arch.experts),
        u128::from(arch.routed_per_token()),
    );

    let mut blocks = attention_block(arch).times(layers);
    blocks.add(dense.times(dense_layers));
    blocks.add(moe_common(arch).times(moe_layers));
    let routed = expert.times(moe_layers * experts);
    blocks.add(routed);
    // The routed experts a token does not reach.
    let idle = moe_layers * (experts - routed_per_token) * expert.total;

    let mut total = blocks.total;
    let mut norms = blocks.norms;
    let mut factored = blocks.factored;

    let matrix = |rows: u128, cols: u128, total: &mut u128, factored: &mut u128| {
        *total += rows * cols;
        *factored += rows + cols;
    };
    match arch.kind {
        _ if !ends.embedding => {}
        Kind::Decoder | Kind::Encoder => {
            matrix(u128::from(arch.vocab), h, &mut total, &mut factored);
            if arch.positions > 0 {
                matrix(u128::from(arch.positions), h, &mut total, &mut factored);
            }
            if arch.token_types > 0 {
                matrix(u128::from(arch.token_types), h, &mut total, &mut factored);
            }
        }
        Kind::Vision => {
            // Patch embedding: a conv of h filters over channels × patch × patch,
            // with bias; the class token; one learned position per token.
            let patch = u128::from(arch.patch);
            matrix(
                h,
                u128::from(arch.channels) * patch * patch,
                &mut total,
                &mut factored,
            );
            let vectors = h + h;
            total += vectors;
            factored += vectors;
            matrix(
                u128::from(arch.patch_tokens()),
                h,
                &mut total,
                &mut factored,
            );
        }
    }
    // Decoder and ViT are pre-norm with a final norm; BERT is post-norm with a
    // norm on the embeddings instead. One extra norm either way.
    let extra_norm = match arch.kind {
        Kind::Encoder => ends.embedding,
        Kind::Decoder | Kind::Vision => ends.head,
    };
    if extra_norm {
        total += norm;
        norms += norm;
        factored += norm;
    }
    let head_matrix = ends.head && arch.kind == Kind::Decoder && (!arch.tied || !ends.embedding);
    match arch.kind {
        _ if !ends.head => {}
        Kind::Decoder if head_matrix => {
            let vocab = u128::from(arch.vocab);
            matrix(vocab, h, &mut total, &mut factored);
            // Phi-1/2's head has a bias (transformers models/phi/modeling_phi.py
            // `PhiForCausalLM`: `nn.Linear(hidden_size, vocab_size,
            // bias=True)`); Phi is the family of the parallel block. Other
            // models with biases keep a head without one (GPT-2 ties it;
            // gpt-oss's `lm_head` is `bias=False`).
            if !arch.tied && arch.bias && arch.block == Block::Parallel {
                total += vocab;
                factored += vocab;
            }
        }
        Kind::Decoder => {}
        Kind::Encoder => {
            // BERT's pooler: dense h×h with bias on the [CLS] token.
            matrix(h, h, &mut total, &mut factored);
            total += h;
            factored += h;
        }
        Kind::Vision => {}
    }
    if ends.head && arch.labels > 0 && arch.kind != Kind::Decoder {
        let labels = u128::from(arch.labels);
        matrix(labels, h, &mut total, &mut factored);
        total += labels;
        factored += labels;
    }
    // The largest matrix: the vocabulary embedding or head, a projection or an
    // MLP matrix (a ViT's patch and position embeddings are smaller than its MLP).
    let vocabulary = match arch.kind {
        Kind::Decoder | Kind::Encoder if ends.embedding || head_matrix => {
            u128::from(arch.vocab) * h
        }
        Kind::Decoder | Kind::Encoder | Kind::Vision => 0,
    };
    let positions = if ends.embedding {
        u128::from(arch.positions) * h
    } else {
        0
    };
    let largest = vocabulary.max(blocks.largest).max(positions);
    let embedding_matrix = ends.embedding && arch.kind != Kind::Vision;
    let head_bias = head_matrix && !arch.tied && arch.bias && arch.block == Block::Parallel;
    let vocabulary_matrices = u128::from(embedding_matrix) + u128::from(head_matrix);
    ParameterCount {
        vocabulary: vocabulary_matrices * u128::from(arch.vocab) * h
            + u128::from(head_bias) * u128::from(arch.vocab),
        vocabulary_matrices,
        total,
        linear: blocks.linear,
        linear_rows: blocks.rows,
        norms,
        factored,
        largest,
        largest_linear: blocks.largest,
        largest_linear_rows: blocks.largest_rows,
        active: total - idle,
        routed: RoutedExperts {
            total: routed.total,
            linear: routed.linear,
            linear_rows: routed.rows,
            factored: routed.factored,
            largest: routed.largest,
        },
    }
}

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
    /// the step ([`kept_outputs`]).
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
    /// The KV cache's number format in inference.
    pub kv_dtype: KvDtype,
    /// Parameters, gradients and the optimizer step in CPU memory (FSDP
    /// `CPUOffload(offload_params=True)`, DeepSpeed ZeRO-3 `offload_param`):
    /// the GPU holds the layers in flight.
    pub param_offload: bool,
    /// LoRA or DoRA adapters.
    pub lora_variant: LoraVariant,
    /// FP8 training of the linear maps.
    pub fp8: Fp8,
    /// With LoRA, the token embedding and the output head train too (PEFT
    /// `modules_to_save=["embed_tokens", "lm_head"]`): [`embedding_copies`].
    pub train_embeddings: bool,
    /// The layers and the loss run under `torch.compile` (Inductor): the
    /// partitioner chooses what the backward pass keeps
    /// ([`TransformerInput::compiled`]).
    pub compile: bool,
    /// Under full recomputation, the checkpoint is the reentrant kind
    /// (`torch.utils.checkpoint.checkpoint(use_reentrant=True)`,
    /// Megatron-LM's `CheckpointFunction`): its backward keeps the rerun's
    /// output ([`Saved::reentrant_output`]).
    pub reentrant: bool,
    /// Megatron-LM's gradient-accumulation fusion (its default,
    /// `--gradient-accumulation-fusion`): each weight's gradient is
    /// accumulated into the FP32 main-gradient buffer by its GEMM. `false`
    /// is `--no-gradient-accumulation-fusion`: a 16-bit weight gradient
    /// exists until the buffer takes it ([`unfused_gradients`]). Meaningful
    /// with `recipe=main_fp32` in training.
    pub grad_accum_fusion: bool,
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
            kv_dtype: KvDtype::default(),
            param_offload: false,
            lora_variant: LoraVariant::default(),
            fp8: Fp8::default(),
            train_embeddings: false,
            compile: false,
            reentrant: false,
            grad_accum_fusion: true,
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
        if self.autocast() {
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
    fn experts_view(&self) -> TransformerInput {
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
    /// (transformer_layer.py `__init__`; [`wrapped_norms`]), `mlp` a dense
    /// layer's MLP only (`if not self.is_moe_layer`), `moe_act`, `moe` and
    /// `shared_experts` a MoE layer's parts.
    pub fn recompute_modules_lacking(
        &self,
    ) -> [Option<(RecomputeModules, Param, &'static str)>; 5] {
        let arch = &self.arch;
        let norms = arch.block == Block::Pre
            && (self.norm_kernel == NormKernel::Eager || arch.moe_layers() > 0);
        let norm_needs = if arch.block == Block::Pre {
            (Param::NormKernel, "eager")
        } else {
            (Param::Block, "pre")
        };
        let experts = (Param::Experts, "1 or more");
        [
            (RecomputeModules::LAYERNORM, !norms, norm_needs),
            (
                RecomputeModules::MLP,
                arch.dense_layers() == 0,
                (Param::FirstDenseLayers, "1 or more"),
            ),
            (RecomputeModules::MOE_ACT, !arch.moe(), experts),
            (RecomputeModules::MOE, !arch.moe(), experts),
            (
                RecomputeModules::SHARED_EXPERTS,
                arch.moe_layers() == 0 || arch.shared_width() == 0,
                (Param::SharedExperts, "1 or more"),
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
    fn unsloth_mlp(&self) -> bool {
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
    fn zero_stage(&self) -> u8 {
        if self.gpus > 1 { self.zero.min(3) } else { 0 }
    }
}

/// The batch-independent memory per GPU, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModelStates {
    pub weights: u128,
    pub gradients: u128,
    /// Optimizer state, including FP32 master weights where the recipe keeps them
    /// (the ZeRO paper counts them there too: its K = 12 is 4 + 4 + 4).
    pub optimizer_states: u128,
    /// Temporary buffers the optimizer step allocates (foreach, for-loop and
    /// in-backward steps; docs/frameworks.md).
    pub optimizer_step: u128,
    /// Framework buffers that live through the step (DeepSpeed's gradient bucket).
    pub buffers: u128,
    /// What the offloads keep in CPU memory for this GPU's process (not part
    /// of [`Self::total`]): with `offload`, the optimizer's FP32 partition;
    /// with `param_offload`, every model state.
    pub cpu: u128,
}

impl ModelStates {
    pub fn total(&self) -> u128 {
        self.weights + self.gradients + self.optimizer_states + self.optimizer_step + self.buffers
    }
}

/// Model states per GPU for a model of `count` parameters.
///
/// Expert parallelism (`ep`) places each routed expert on one of `ep` ranks
/// of the data-parallel group, so each GPU holds 1/ep of the routed experts'
/// weights, gradients and optimizer states; the other parameters are
/// replicated (or ZeRO-sharded) over all `gpus` as before. The routed
/// experts' own data-parallel group is the `gpus / ep` ranks holding the same
/// experts: Megatron-Core's expert-data-parallel group
/// (megatron/core/parallel_state.py `_EXPERT_DATA_PARALLEL_GROUP`, world /
/// (ep × expert tp × pp)), over which its distributed optimizer shards the
/// experts' states (megatron/core/distributed/distributed_data_parallel.py:
/// `expert_parallel` buffers reduce over the expert-data-parallel group), and
/// torchtitan's `dp_shard_mod_ep` mesh dimension that FSDP shards the experts
/// over (torchtitan/models/llama4/infra/parallelize.py `apply_fsdp`). Expert
/// tensor parallelism (`etp`, Megatron's `expert_tensor_parallel_size`, by
/// default the tensor-parallel size) splits each expert's matrices instead
/// of `tp`: an unsharded term holds 1/(ep × etp) of the experts, a sharded
/// one 1/(gpus × tp) ([`TransformerInput::experts_view`]).
pub fn model_states(count: &ParameterCount, input: &TransformerInput) -> ModelStates {
    let routed = count.routed;
    // Parameter offload holds the layers in flight whatever their experts
    // (expert parallelism changes only what the host holds), and no
    // all-gathered copies beside them.
    if input.param_offload {
        return pool_states(count, input, &Adapters::of(input));
    }
    if routed.total == 0 {
        let states = pool_states(count, input, &Adapters::of(input));
        let buffers = states.buffers
            + gathered_parameters(count, input, per_rank(count, input))
            + fp8_buffers(input);
        return zero3_runtime(count, input, ModelStates { buffers, ..states });
    }
    let ep = u128::from(input.ep.max(1));
    let rest = ParameterCount {
        total: count.total - routed.total,
        linear: count.linear - routed.linear,
        linear_rows: count.linear_rows - routed.linear_rows,
        factored: count.factored - routed.factored,
        routed: RoutedExperts::default(),
        ..*count
    };
    let all_experts = ParameterCount {
        total: routed.total,
        linear: routed.linear,
        linear_rows: routed.linear_rows,
        norms: 0,
        factored: routed.factored,
        largest: routed.largest,
        largest_linear: routed.largest,
        // Read from the whole count only (`dequantized_weight`), never per pool.
        largest_linear_rows: 0,
        vocabulary: 0,
        vocabulary_matrices: 0,
        active: 0,
        routed: RoutedExperts::default(),
    };
    let (shared_adapters, expert_adapters) = Adapters::pools(input);
    let shared = pool_states(&rest, input, &shared_adapters);
    // Every expert whole, with ZeRO over the gpus × tp ranks of a stage, and
    // their adapters (`lora_targets=experts` or `all_experts`; frozen
    // otherwise).
    let view = input.experts_view();
    let experts = pool_states(&all_experts, &view, &expert_adapters);
    // A ZeRO-sharded term is 1/(ep × etp × expert dp) = 1/(gpus × tp) of the
    // experts on every GPU, whatever `ep` and `etp`; an unsharded one holds
    // the rank's 1/(ep × etp) of them. A step that holds one parameter at a
    // time (its gradient and temporaries) holds the larger of the two
    // pools' largest, an expert's split over `etp`.
    let etp = u128::from(input.expert_tp());
    let stage = input.zero_stage();
    let local = |bytes: u128, sharded_from: u8| {
        if stage >= sharded_from {
            bytes
        } else {
            div_ceil(bytes, ep * etp)
        }
    };
    let step = input.effective_step();
    let one_at_a_time = |a: u128, b: u128| a.max(div_ceil(b, etp));
    let gradients = match step {
        Step::InBackward => one_at_a_time(shared.gradients, experts.gradients),
        Step::Fused | Step::Foreach | Step::ForLoop => {
            shared.gradients + local(experts.gradients, 2)
        }
    };
    let optimizer_step = match step {
        Step::InBackward | Step::ForLoop => {
            one_at_a_time(shared.optimizer_step, experts.optimizer_step)
        }
        Step::Fused | Step::Foreach => shared.optimizer_step + local(experts.optimizer_step, 1),
    };
    let per_rank = per_rank(&rest, input) + div_ceil(per_rank(&all_experts, &view), ep * etp);
    let states = ModelStates {
        weights: shared.weights + local(experts.weights, 3),
        gradients,
        optimizer_states: shared.optimizer_states + local(experts.optimizer_states, 1),
        optimizer_step,
        buffers: shared.buffers + gathered_parameters(count, input, per_rank) + fp8_buffers(input),
        cpu: shared.cpu + local(experts.cpu, 1),
    };
    zero3_runtime(count, input, states)
}

/// Parameters on one tensor-parallel rank: Megatron tensor parallelism
/// splits every matrix (and its bias) over t ranks (Shoeybi et al. 2019, §3);
/// norms are replicated.
fn per_rank(count: &ParameterCount, input: &TransformerInput) -> u128 {
    count.norms + div_ceil(count.total - count.norms, u128::from(input.tp))
}

/// The parameters of the trainable copies of the token embedding and the
/// output head beside LoRA (`train_embeddings`), per pool before tensor
/// parallelism: PEFT `modules_to_save=["embed_tokens", "lm_head"]` wraps each
/// in a `ModulesToSaveWrapper` (peft/utils/other.py), whose `update` keeps
/// the frozen `original_module` (`requires_grad_(False)`) and trains
/// `copy.deepcopy(self.original_module)` beside it: the original stays in
/// memory and the copy adds its full size, in the original's dtype (PEFT's
/// `cast_adapter_dtype` upcasts only `BaseTunerLayer` adapters, and a
/// wrapper is none). With tied weights the head's copy shares the
/// embedding copy's weight (`modules_to_tie`, the `tied_module` branch of
/// `update`): one matrix. 0 without LoRA or without the switch.
pub fn embedding_copies(count: &ParameterCount, input: &TransformerInput) -> u128 {
    if input.lora() && input.train_embeddings {
        count.vocabulary
    } else {
        0
    }
}

/// Bytes of one trained parameter's gradient: FP32 for the adapters, which
/// PEFT keeps in FP32, and for the recipes that keep FP32 parameters or
/// accumulate into FP32 (FSDP2 reduce-scatters in its FP32 `reduce_dtype`
/// into the FP32 sharded parameters' `.grad`); the parameters' 16 bits for
/// pure 16-bit training.
fn gradient_bytes(input: &TransformerInput) -> u128 {
    match input.recipe {
        _ if input.lora() => 4,
        Recipe::Fp32 | Recipe::Amp | Recipe::Mixed | Recipe::MainFp32 | Recipe::Fsdp => 4,
        Recipe::Amp16 | Recipe::Bf16 => 2,
    }
}

/// Model states per GPU for `count` parameters sharded over `input.gpus`
/// ranks, with the framework's gradient bucket in `buffers` (FSDP2's
/// all-gathered copies are [`gathered_parameters`]), and the trainable copies
/// of the embedding and head with LoRA ([`embedding_copies`]). The copies
/// train as full training trains any parameter under the recipe: their
/// weights, gradients, master copy and optimizer state in its dtypes; a step
/// that holds one parameter at a time holds the larger of the two groups'.
fn pool_states(
    count: &ParameterCount,
    input: &TransformerInput,
    adapters: &Adapters,
) -> ModelStates {
    let states = trained_states(count, input, adapters);
    let copies = embedding_copies(count, input);
    if copies == 0 {
        return states;
    }
    let (v, h) = (u128::from(input.arch.vocab), u128::from(input.arch.hidden));
    let matrices = count.vocabulary_matrices;
    let bias = copies - matrices * v * h;
    let only_copies = ParameterCount {
        total: copies,
        factored: matrices * (v + h) + bias,
        largest: v * h,
        ..ParameterCount::default()
    };
    let full = TransformerInput {
        lora_rank: 0,
        ..*input
    };
    let c = trained_states(&only_copies, &full, &Adapters::default());
    let step = input.effective_step();
    let gradients = match step {
        Step::InBackward => states.gradients.max(c.gradients),
        Step::Fused | Step::Foreach | Step::ForLoop => states.gradients + c.gradients,
    };
    let optimizer_step = match step {
        Step::InBackward | Step::ForLoop => states.optimizer_step.max(c.optimizer_step),
        Step::Fused | Step::Foreach => states.optimizer_step + c.optimizer_step,
    };
    ModelStates {
        weights: states.weights + c.weights,
        gradients,
        optimizer_states: states.optimizer_states + c.optimizer_states,
        optimizer_step,
        buffers: states.buffers,
        cpu: states.cpu + c.cpu,
    }
}

/// [`pool_states`] without the embedding copies: the base (frozen under
/// LoRA) and what trains.
fn trained_states(
    count: &ParameterCount,
    input: &TransformerInput,
    adapters: &Adapters,
) -> ModelStates {
    let t = u128::from(input.tp);
    let per_rank = per_rank(count, input);
    let linear = div_ceil(count.linear, t);
    let rest = per_rank - linear.min(per_rank);
    let training = input.mode == Mode::Train;

    let compute_bytes = input.activation_bytes();
    let base = if !training && input.quantized() {
        match input.quant {
            Quant::None => per_rank * compute_bytes,
            // LLM.int8 (Dettmers et al. 2022, §3): int8 weights + one FP32 absmax per row.
            Quant::Int8 => linear + 4 * div_ceil(count.linear_rows, t) + rest * compute_bytes,
            // GPTQ/AWQ layout: 4-bit weights; per 128 weights an FP16 scale (16 bits)
            // and a packed 4-bit zero point: 4 + 20/128 bits per weight.
            Quant::Int4 => {
                div_ceil(4 * linear + 20 * div_ceil(linear, 128), 8) + rest * compute_bytes
            }
        }
    } else if input.quantized() {
        // A QLoRA base (`quantized` in training means exactly that).
        let blocks = div_ceil(linear, 64);
        let packed = match input.base_quant {
            BaseQuant::Int8 => linear + 4 * div_ceil(count.linear_rows, t),
            // One absmax per 64 weights: FP32, or 8 bits plus one FP32 scale
            // per 256 absmaxes when double-quantized.
            _ if input.double_quant => div_ceil(linear, 2) + blocks + 4 * div_ceil(blocks, 256),
            BaseQuant::None | BaseQuant::Nf4 | BaseQuant::Fp4 => div_ceil(linear, 2) + 4 * blocks,
        };
        packed + rest * compute_bytes
    } else if training && input.recipe == Recipe::Fsdp {
        // FSDP2 keeps the (sharded) parameters in their FP32 dtype; the BF16
        // copies are all-gathered per layer (`buffers` below).
        per_rank * 4
    } else {
        per_rank * compute_bytes
    };
    if !training {
        return shard(
            ModelStates {
                weights: base,
                ..ModelStates::default()
            },
            input,
        );
    }

    // What trains: every parameter, or with LoRA the adapters only, which
    // PEFT keeps in FP32 over a 16-bit base (peft/tuners/tuners_utils.py
    // `_cast_adapter_dtype`, `autocast_adapter_dtype=True` by default): their
    // gradients, moments and step temporaries are FP32, and there is no
    // master copy.
    let lora = input.lora();
    let (trainable, largest, factored) = if lora {
        (adapters.parameters, adapters.largest, adapters.factored)
    } else {
        (
            per_rank,
            div_ceil(count.largest, t),
            div_ceil(count.factored, t),
        )
    };
    let weights = base + 4 * adapters.parameters;
    let gradient_bytes = gradient_bytes(input);
    let step = input.effective_step();
    let gradients = match step {
        // torchtune/modules/optim.py: a post-accumulate-grad hook steps each
        // parameter and sets its gradient to None, so one gradient at a time.
        Step::InBackward => largest * gradient_bytes,
        Step::Fused | Step::Foreach | Step::ForLoop => trainable * gradient_bytes,
    };
    // Master weights: the FP32 copy the optimizer updates (Micikevicius et al.
    // 2018, "Mixed Precision Training", §3.1).
    let master = match input.recipe {
        _ if lora => 0,
        // Megatron's main parameters likewise (`recipe=main_fp32`).
        Recipe::Amp | Recipe::Amp16 | Recipe::MainFp32 => 4 * per_rank,
        // FSDP2's FP32 parameters are what the optimizer updates: no extra copy.
        Recipe::Fp32 | Recipe::Mixed | Recipe::Bf16 | Recipe::Fsdp => 0,
    };
    let state_bytes: u128 = match input.recipe {
        _ if lora => 4,
        Recipe::Bf16 => 2,
        Recipe::Fp32
        | Recipe::Amp
        | Recipe::Amp16
        | Recipe::Mixed
        | Recipe::MainFp32
        | Recipe::Fsdp => 4,
    };
    let state = match input.optimizer {
        // Loshchilov & Hutter 2019: first and second moment per parameter.
        Optimizer::AdamW => 2 * state_bytes * trainable,
        // Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", §2:
        // two 1-byte moments and one FP32 absmax per block of 2048 for each.
        Optimizer::Adam8bit | Optimizer::PagedAdamW8bit => {
            2 * trainable + 2 * 4 * div_ceil(trainable, 2048)
        }
        // bitsandbytes/optim/optimizer.py `Optimizer2State.init_state`: with
        // `optim_bits=32` both moments are `torch.float32` buffers, whatever
        // the parameter's dtype; updated in place by one kernel per tensor
        // (`optimizer_update_32bit`), no step temporaries.
        Optimizer::PagedAdamW => 2 * 4 * trainable,
        // Shazeer & Stern 2018, "Adafactor", §3–4: row and column sums of the
        // second moment per matrix, full second moment for vectors, β1 = 0.
        Optimizer::Adafactor => state_bytes * factored,
        Optimizer::SgdMomentum => state_bytes * trainable,
        Optimizer::Sgd | Optimizer::None => 0,
    };
    let optimizer_step = match (step, input.optimizer) {
        // torch/optim/adam.py `_multi_tensor_adam`: `exp_avg_sq_sqrt =
        // torch._foreach_sqrt(device_exp_avg_sqs)` for all parameters, then
        // in-place ops: one state-sized temporary.
        (Step::Foreach, Optimizer::AdamW) => state_bytes * trainable,
        // torch/optim/adam.py `_single_tensor_adam`: `(exp_avg_sq.sqrt() /
        // bias_correction2_sqrt)` holds the sqrt and the quotient of one
        // parameter at once: two temporaries of the largest parameter.
        (Step::ForLoop, Optimizer::AdamW) => 2 * state_bytes * largest,
        // One torch.optim AdamW per parameter (torchtune/modules/optim.py), on
        // its default foreach path: one temporary of that parameter.
        (Step::InBackward, Optimizer::AdamW) => state_bytes * largest,
        _ => 0,
    };
    if input.param_offload {
        // Under autocast the FP32 master copy is the stored parameter; the
        // 16-bit weights are its casts.
        let stored = if input.autocast() && !lora {
            0
        } else {
            weights
        };
        let held = stored + trainable * gradient_bytes + master + state;
        return offloaded(count, input, adapters.layer, gradient_bytes, held);
    }
    // DeepSpeed ZeRO-Offload keeps master weights and optimizer state in CPU
    // memory and runs the step there (DeepSpeedCPUAdam), with the FP32
    // gradient partition it steps from (Ren et al. 2021, "ZeRO-Offload", §4.1;
    // deepspeed/runtime/zero/stage_1_and_2.py: with `cpu_offload` each reduced
    // gradient is copied into `single_partition_of_fp32_groups[i].grad` on
    // the CPU), divided over the data-parallel ranks like the optimizer state.
    let (optimizer_states, optimizer_step, cpu) = if input.offload {
        let n = if input.zero_stage() >= 1 {
            u128::from(input.gpus)
        } else {
            1
        };
        (0, 0, div_ceil(master + state + 4 * trainable, n))
    } else {
        (master + state, optimizer_step, 0)
    };
    // deepspeed/runtime/zero/stage_1_and_2.py `backward()`: with
    // contiguous_gradients (the default) one bucket of reduce_bucket_size
    // elements in the gradients' dtype. DeepSpeed's stage 3 allocates the
    // same (stage3.py `DeepSpeedZeroOptimizer_Stage3.__init__`, "IPG": with
    // contiguous_gradients, `torch.empty(self.reduce_bucket_size)` in each
    // communication dtype, one for 16-bit training); its other buffers are
    // [`zero3_runtime`].
    let bucket = if input.zero <= 2 || input.deepspeed_stage3() {
        u128::from(input.bucket_m) * 1_000_000 * gradient_bytes
    } else {
        0
    };
    let sharded = shard(
        ModelStates {
            weights,
            gradients,
            optimizer_states,
            optimizer_step,
            buffers: 0,
            cpu,
        },
        input,
    );
    ModelStates {
        buffers: bucket,
        ..sharded
    }
}

/// Model states with the parameters offloaded (`param_offload`): FSDP2
/// `fully_shard(offload_policy=CPUOffloadPolicy())` and FSDP1
/// `CPUOffload(offload_params=True)` keep the sharded parameters, their
/// gradients and the optimizer's state in CPU memory and step there
/// (torch/distributed/fsdp/_fully_shard/_fsdp_param.py: the sharded
/// parameter lives on the CPU and is copied to the GPU for each all-gather;
/// the reduce-scattered gradient is copied back); DeepSpeed ZeRO-3
/// `offload_param` with `offload_optimizer` does the same
/// (deepspeed/runtime/zero/partition_parameters.py). The GPU holds the
/// layers in flight: the one computing (or the largest matrix, if larger)
/// and `prefetch` layers fetched ahead, in the compute dtype, and the
/// computing layer's unsharded gradients before they are reduced and copied
/// out. The CPU holds `held`, what the GPU would have held (the stored
/// parameters, their gradients, master copy and optimizer state), sharded
/// over the data-parallel ranks as ZeRO-3 shards it.
fn offloaded(
    count: &ParameterCount,
    input: &TransformerInput,
    adapter_layer: u128,
    gradient_bytes: u128,
    held: u128,
) -> ModelStates {
    let n = u128::from(input.gpus);
    let (layer, computing) = units_in_flight(count, input);
    let in_flight = computing + u128::from(input.prefetch) * layer;
    // What trains of the layer computing: all of it, or the adapters of the
    // layer that has the most.
    let trained = if input.lora() {
        adapter_layer
    } else {
        computing
    };
    ModelStates {
        weights: in_flight * input.activation_bytes(),
        gradients: trained * gradient_bytes,
        optimizer_states: 0,
        optimizer_step: 0,
        buffers: 0,
        cpu: div_ceil(held, n),
    }
}

/// LoRA's adapters per GPU (Hu et al. 2021, §4.1): beside each targeted
/// linear map W (d_in → d_out) of every block, A (r × d_in) and B (d_out × r),
/// split over tensor-parallel ranks with their map (the routed experts' over
/// the expert tensor-parallel ranks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adapters {
    /// The whole model's adapter parameters: what trains.
    pub total: u128,
    /// Those on one tensor-parallel rank.
    pub parameters: u128,
    /// The largest single adapter matrix.
    pub largest: u128,
    /// Σ (rows + columns) over the adapter matrices: Adafactor's factored state.
    pub factored: u128,
    /// DoRA's working set while one targeted map computes its forward
    /// (largest over the maps), per GPU; 0 for LoRA.
    pub dora_working: u128,
    /// The adapters of the layer that has the most, on one rank.
    pub layer: u128,
}

/// The adapters of one block's targeted maps, summed over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct BlockAdapters {
    parameters: u128,
    largest: u128,
    factored: u128,
    /// Σ d_in: how much input the adapter branches read per token.
    inputs_per_token: u128,
    /// Σ d_out: DoRA's magnitudes, and the outputs it saves per token.
    outputs_per_token: u128,
    maps: u128,
    dora_working: u128,
}

impl BlockAdapters {
    /// `maps` as (d_in, d_out, targeted).
    fn of(input: &TransformerInput, maps: &[(u128, u128, bool)]) -> Self {
        let r = u128::from(input.lora_rank);
        let mut out = Self::default();
        let dora = input.lora_variant == LoraVariant::Dora;
        // peft/tuners/lora/dora.py `DoraLinearLayer.forward`, per targeted
        // map in training: `get_lora_weight` builds B·A as lora_B(lora_A(
        // x_eye)) from a d_in × d_in identity in the adapters' dtype (FP32),
        // with lora_A's d_in × r output and the d_in × d_out product; the
        // product is cast to the input's dtype, and `get_weight_norm` adds
        // `scaling * lora_weight` (one temporary) to the (dequantized) base
        // weight (the sum, another) before its norm. All freed by the end of
        // the map's forward: the largest map's set is alive at once.
        let e = input.activation_bytes();
        let dequantized = if input.quantized() { e } else { 0 };
        for &(d_in, d_out, _) in maps.iter().filter(|m| m.2 && m.0 > 0 && m.1 > 0) {
            let magnitude = if dora { d_out } else { 0 };
            out.parameters += r * (d_in + d_out) + magnitude;
            out.largest = out.largest.max(r * d_in.max(d_out));
            out.factored += (r + d_in) + (d_out + r) + magnitude;
            out.inputs_per_token += d_in;
            out.outputs_per_token += d_out;
            out.maps += 1;
            if dora {
                let working =
                    4 * d_in * d_in + 4 * r * d_in + (4 + 3 * e + dequantized) * d_in * d_out;
                out.dora_working = out.dora_working.max(working);
            }
        }
        out
    }

    fn and(self, other: Self) -> Self {
        Self {
            parameters: self.parameters + other.parameters,
            largest: self.largest.max(other.largest),
            factored: self.factored + other.factored,
            inputs_per_token: self.inputs_per_token + other.inputs_per_token,
            outputs_per_token: self.outputs_per_token + other.outputs_per_token,
            maps: self.maps + other.maps,
            dora_working: self.dora_working.max(other.dora_working),
        }
    }
}

/// The targeted maps of each kind of block, as PEFT matches them: its
/// `target_modules` names match every module whose name ends with one of
/// them (peft/tuners/tuners_utils.py `check_target_module_exists`), so
/// `gate_proj`, `up_proj`, `down_proj` reach the dense MLPs, the shared
/// experts and, where the experts are separate `nn.Linear`s, every routed
/// expert's; `"all-linear"` is every `nn.Linear` but the output layer,
/// the router's too (`_maybe_include_all_linear_layers`). batchfit's `mlp`
/// and `all` on a MoE model are the dense and shared maps, `experts` the
/// routed experts' and `all_experts` all of them with the router.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct AdapterBlocks {
    /// Every layer's attention.
    attention: BlockAdapters,
    /// A dense layer's MLP.
    dense: BlockAdapters,
    /// A MoE layer's shared experts and router.
    moe: BlockAdapters,
    /// One routed expert of a MoE layer.
    expert: BlockAdapters,
}

impl AdapterBlocks {
    fn of(input: &TransformerInput) -> Self {
        if !input.lora() {
            return Self::default();
        }
        let arch = &input.arch;
        let h = u128::from(arch.hidden);
        let head = u128::from(arch.head_size());
        let (q, kv) = (
            u128::from(arch.heads) * head,
            u128::from(arch.kv_heads) * head,
        );
        let targets = input.lora_targets;
        let attention = matches!(
            targets,
            LoraTargets::Attn | LoraTargets::All | LoraTargets::AllExperts
        );
        let mlp = matches!(
            targets,
            LoraTargets::Mlp | LoraTargets::All | LoraTargets::AllExperts
        );
        let experts = matches!(targets, LoraTargets::Experts | LoraTargets::AllExperts);
        let qv = attention || targets == LoraTargets::Qv;
        let gated = arch.mlp == Mlp::Swiglu;
        // (d_in, d_out, targeted) of gate, up and down at width f.
        let ffn = |f: u64, on: bool| {
            let f = u128::from(f);
            [(h, f, on && gated), (h, f, on), (f, h, on)]
        };
        let router = (
            h,
            u128::from(arch.experts),
            targets == LoraTargets::AllExperts,
        );
        let [gate, up, down] = ffn(arch.shared_width(), mlp);
        Self {
            // W_q, W_k, W_v, W_o.
            attention: BlockAdapters::of(
                input,
                &[
                    (h, q, qv),
                    (h, kv, attention),
                    (h, kv, qv),
                    (q, h, attention),
                ],
            ),
            dense: BlockAdapters::of(input, &ffn(arch.ffn, mlp)),
            moe: BlockAdapters::of(input, &[gate, up, down, router]),
            expert: BlockAdapters::of(input, &ffn(arch.expert_width(), experts)),
        }
    }

    /// What the adapter branches save per sample in one layer of the kind
    /// `ffn`: per token for the attention and the dense or shared maps, per
    /// routed copy for the routed experts' (each expert's adapters read the
    /// tokens routed to it).
    fn per_layer<F: Fn(&BlockAdapters) -> u128>(
        &self,
        input: &TransformerInput,
        ffn: Ffn,
        saved: F,
    ) -> u128 {
        let s = u128::from(input.tokens());
        match ffn {
            Ffn::Dense => s * saved(&self.attention.and(self.dense)),
            Ffn::Moe => {
                s * saved(&self.attention.and(self.moe))
                    + input.routed_copies() * saved(&self.expert)
            }
        }
    }
}

impl Adapters {
    /// The adapters of `input`, all zero without LoRA.
    pub fn of(input: &TransformerInput) -> Self {
        // Without LoRA every count is zero: the page asks for them on every
        // estimate, and their 128-bit divisions are not free.
        if !input.lora() {
            return Self::default();
        }
        let (shared, routed) = Self::pools(input);
        // A MoE layer's own adapters beside its routed experts'.
        let blocks = AdapterBlocks::of(input);
        let arch = &input.arch;
        let (t, et) = (u128::from(input.tp), u128::from(input.expert_tp()));
        let dense = if arch.dense_layers() > 0 {
            div_ceil(blocks.attention.parameters + blocks.dense.parameters, t)
        } else {
            0
        };
        let moe = if arch.moe_layers() > 0 {
            div_ceil(blocks.attention.parameters + blocks.moe.parameters, t)
                + div_ceil(u128::from(arch.experts) * blocks.expert.parameters, et)
        } else {
            0
        };
        Self {
            total: shared.total + routed.total,
            parameters: shared.parameters + div_ceil(routed.parameters, et),
            largest: shared.largest.max(div_ceil(routed.largest, et)),
            factored: shared.factored + div_ceil(routed.factored, et),
            dora_working: shared.dora_working.max(div_ceil(routed.dora_working, et)),
            layer: dense.max(moe),
        }
    }

    /// The adapters beside the attention, dense and shared maps (and the
    /// router), split over `tp`; and those on the routed experts, whole
    /// (`model_states` divides them over ep × etp with their experts).
    pub fn pools(input: &TransformerInput) -> (Self, Self) {
        if !input.lora() {
            return (Self::default(), Self::default());
        }
        let blocks = AdapterBlocks::of(input);
        let arch = &input.arch;
        let layers = u128::from(arch.layers);
        let dense = u128::from(arch.dense_layers());
        let moe = u128::from(arch.moe_layers());
        let experts = u128::from(arch.experts);
        let t = u128::from(input.tp);
        let over = |layers_of: [(u128, &BlockAdapters); 3], t: u128| {
            let sum = |f: fn(&BlockAdapters) -> u128| {
                layers_of.iter().map(|(n, b)| n * f(b)).sum::<u128>()
            };
            let most = |f: fn(&BlockAdapters) -> u128| {
                layers_of
                    .iter()
                    .filter(|(n, _)| *n > 0)
                    .map(|(_, b)| f(b))
                    .max()
                    .unwrap_or(0)
            };
            let total = sum(|b| b.parameters);
            Self {
                total,
                parameters: div_ceil(total, t),
                largest: div_ceil(most(|b| b.largest), t),
                factored: div_ceil(sum(|b| b.factored), t),
                dora_working: div_ceil(most(|b| b.dora_working), t),
                layer: div_ceil(most(|b| b.parameters), t),
            }
        };
        let none = BlockAdapters::default();
        let shared = over(
            [
                (layers, &blocks.attention),
                (dense, &blocks.dense),
                (moe, &blocks.moe),
            ],
            t,
        );
        let routed = over([(moe * experts, &blocks.expert), (0, &none), (0, &none)], 1);
        (shared, routed)
    }
}

/// FP8 training's weight copies alive with the activations (`fp8`), per GPU:
/// Transformer Engine's FP8 weight and its FP8 transpose for every linear map
/// of the blocks, cast in the forward pass and saved for the backward pass
/// (1 + 1 bytes per weight); torchao's FP8 cast of the largest block matrix,
/// alive during its product (the cast of its input, 1 byte per element of one
/// matrix product's input, is not counted).
pub fn fp8_weight_copies(count: &ParameterCount, input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train {
        return 0;
    }
    let t = u128::from(input.tp);
    let arch = &input.arch;
    let (h, f) = (u128::from(arch.hidden), u128::from(arch.ffn));
    let q = u128::from(arch.heads) * u128::from(arch.head_size());
    match input.fp8 {
        Fp8::None => 0,
        Fp8::Te => 2 * div_ceil(count.linear, t),
        Fp8::Torchao => div_ceil((h * f).max(h * q), t),
    }
}

/// Autocast's 16-bit weight copies alive at the loss under full
/// recomputation, per GPU: `None` where every copy the forward pass cast is
/// alive there, as without recomputation (the default count), so that the
/// other paths do no more work.
///
/// pytorch/pytorch aten/src/ATen/autocast_mode.cpp `cached_cast`: the cast
/// of an FP32 leaf that requires grad is cached (`can_try_cache` asks for
/// `requires_grad()`, `is_leaf()`, no view, and not for grad mode, so the
/// no-grad forward of a reentrant checkpoint caches too), and `clear_cache`
/// empties the cache when the outermost autocast context exits
/// (torch/amp/autocast_mode.py `autocast.__exit__`:
/// `_decrement_autocast_nesting() == 0` → `clear_autocast_cache()`). Until
/// then the cache holds every weight's cast: all copies are alive at the end
/// of the forward pass (the loss's forward inside the region). A
/// checkpointed layer saves none of its casts for the backward pass
/// (torch/utils/checkpoint.py: `CheckpointFunction.forward` runs it under
/// `torch.no_grad()`; `_checkpoint_without_reentrant_generator`'s pack hook
/// keeps a holder, not the tensor), so once the region has exited only the
/// casts saved by the modules outside the layers are alive at the loss: the
/// LM head's (with tied weights the embedding matrix, which the head casts;
/// the embedding lookup is on no autocast list and reads the FP32 table),
/// BERT's pooler and classifier, ViT's patch convolution and classifier.
/// Norms cast nothing (layer_norm is on the FP32 list; RMSNorm's product
/// with its weight is on no list). Recomputing a layer enters autocast again
/// (`CheckpointFunction.backward` and `recompute_fn`: `device_autocast_ctx`)
/// and casts that layer's weights anew; its products save them until its
/// backward frees them: one layer's copies at a time. They are never alive
/// with the head's (whose backward has run before the last layer's
/// recomputation); batchfit counts both at the loss, at most the smaller of
/// the two too many. A MoE layer's copies are its attention's, its router's,
/// its shared experts' and every local expert's (experts / ep).
///
/// Applies to `recipe=amp` with `recompute=full` without a pipeline, and
/// not to LoRA (a frozen weight does not require grad: never cached), FP8
/// modules, ZeRO-3 or parameter offload (the gathered copies are their own
/// term). Under torch.compile the same copies are alive at the loss (a cast
/// of a weight is recomputable and not saved from a checkpointed layer);
/// the compiled graph's casts are ops of their own, freed after their last
/// use rather than held by the cache, so there the end of the forward pass
/// is no moment of its own (assumed from how the graph runs, not read from
/// Inductor's source).
pub fn loss_weight_copies(input: &TransformerInput) -> Option<u128> {
    if !input.autocast()
        || input.recompute != Recompute::Full
        || input.lora()
        || input.fp8 != Fp8::None
        || input.zero_stage() >= 3
        || input.param_offload
        || input.pp > 1
    {
        return None;
    }
    let arch = &input.arch;
    let h = u128::from(arch.hidden);
    let labels = u128::from(arch.labels);
    let classifier = if labels > 0 { labels * h + labels } else { 0 };
    let outside = match arch.kind {
        Kind::Decoder => {
            let v = u128::from(arch.vocab);
            let bias = !arch.tied && arch.bias && arch.block == Block::Parallel;
            v * h + if bias { v } else { 0 }
        }
        Kind::Encoder => h * h + h + classifier,
        Kind::Vision => {
            let patch = u128::from(arch.patch);
            h * u128::from(arch.channels) * patch * patch + h + classifier
        }
    };
    let cast = |ffn: Counted| {
        let mut layer = attention_block(arch);
        layer.add(ffn);
        layer.total - layer.norms
    };
    let dense = if arch.dense_layers() > 0 {
        let mut mlp = Counted::default();
        mlp.mlp(arch, u128::from(arch.ffn));
        cast(mlp)
    } else {
        0
    };
    let moe = if arch.moe_layers() > 0 {
        let mut expert = Counted::default();
        expert.mlp(arch, u128::from(arch.expert_width()));
        let mut ffn = moe_common(arch);
        ffn.add(expert.times(div_ceil(u128::from(arch.experts), u128::from(input.ep))));
        cast(ffn)
    } else {
        0
    };
    Some(input.activation_bytes() * div_ceil(outside + dense.max(moe), u128::from(input.tp)))
}

/// Transformer Engine's delayed-scaling state (`fp8=te`), held through the
/// run: per GEMM, 3 forward and 2 backward FP8 tensors
/// (module/base.py: `num_gemms * 3 if fwd else num_gemms * 2`), each with an
/// FP32 amax history of `amax_history_len` = 1,024 steps and an FP32 scale
/// (quantization.py `DelayedScalingRecipeState`); four GEMMs per block (the
/// fused QKV and first MLP maps, the output projection, the second MLP map).
pub fn fp8_buffers(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train || input.fp8 != Fp8::Te {
        return 0;
    }
    u128::from(input.arch.layers) * 4 * 5 * (1024 + 1) * 4
}

/// bitsandbytes' dequantized copy of one quantized weight (`base_quant`), per
/// GPU: the largest of the layers' linear maps, alive while it computes.
/// 4-bit (`nf4`, `fp4`): `MatMul4Bit.backward` (bitsandbytes/autograd/
/// _functions.py) computes the input's gradient as `grad_output @
/// F.dequantize_4bit(B, ctx.state).to(grad_output.dtype)`: the whole weight
/// in its load dtype (taken as the compute dtype, so `.to` copies nothing),
/// and with double quantization the FP32 absmaxes dequantized first, one per
/// 64 weights (functional.py `dequantize_4bit`: `absmax =
/// dequantize_blockwise(quant_state.absmax, quant_state.state2)`). The
/// forward pass over more than 1,536 tokens dequantizes the same weight
/// (backends/cuda/ops.py `_dequant_linear_fallback`, past
/// `_gemm_4bit_custom_max_m`); fewer run a fused kernel. One map at a time
/// either way. int8: `MatMul8bitLt.backward` builds `state.CB.to(dtype_A,
/// copy=True).mul_(state.SCB.unsqueeze(1).mul(1.0 / 127.0))`: the 16-bit
/// copy and one FP32 scale per output row; its forward multiplies in int8
/// without one. Tensor parallelism splits the map (taken as column-parallel
/// for its rows).
pub fn dequantized_weight(count: &ParameterCount, input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train || !input.quantized() {
        return 0;
    }
    let t = u128::from(input.tp);
    let (weight, rows) = (
        div_ceil(count.largest_linear, t),
        div_ceil(count.largest_linear_rows, t),
    );
    let copy = input.activation_bytes() * weight;
    match input.base_quant {
        BaseQuant::None => 0,
        BaseQuant::Nf4 | BaseQuant::Fp4 if input.double_quant => copy + 4 * div_ceil(weight, 64),
        BaseQuant::Nf4 | BaseQuant::Fp4 => copy,
        BaseQuant::Int8 => copy + 4 * rows,
    }
}

/// The BF16 parameter copies FSDP2 all-gathers (`recipe=fsdp`), per GPU.
fn gathered_parameters(count: &ParameterCount, input: &TransformerInput, per_rank: u128) -> u128 {
    // FSDP1 all-gathers BF16 flat parameters from FP32 shards (`recipe=fsdp`)
    // or from a module already in BF16 (`recipe=bf16`, Lightning's
    // `bf16-true`); NO_SHARD (stage < 3) keeps FSDP2's unsharded copies, or
    // none when the module is in BF16 already.
    if input.framework == Framework::Fsdp1
        && input.mode == Mode::Train
        && input.zero_stage() == 3
        && matches!(input.recipe, Recipe::Fsdp | Recipe::Bf16)
    {
        return fsdp1_in_flight(input, units_in_flight(count, input).0);
    }
    if input.recipe != Recipe::Fsdp {
        return 0;
    }
    if input.zero_stage() < 3 {
        // Unsharded parameters (one GPU, or reshard_after_forward=False): every
        // layer's BF16 copy stays alive from its forward to its backward
        // (torchtitan without dp_shard runs autocast, which caches the casts).
        return 2 * per_rank;
    }
    // _fsdp_param_group.py: unshard() all-gathers the group's BF16 parameters
    // (param_dtype) and reshard() frees them after its forward
    // (reshard_after_forward=True) and after its backward. At the start of the
    // backward pass the unit computing (the last block, or the output
    // projection when it is larger: torchtitan's apply_fsdp shards
    // [norm, output] as one unit)
    // holds its copy while `prefetch` blocks ahead are all-gathered
    // (_fsdp_param_group.py `_backward_prefetch`: the next group in backward order).
    let (layer, computing) = units_in_flight(count, input);
    2 * (computing + u128::from(input.prefetch) * layer)
}

/// FSDP1's unsharded BF16 flat parameters and gradients per GPU
/// (`framework=fsdp1`, full sharding), the wrapped unit being one block of
/// `layer` parameters and the root the parameters outside the blocks (the
/// embedding, the final norm and the head):
///
/// - The root's flat parameter stays unsharded from its forward to its
///   backward: `_runtime_utils.py` `_post_forward_reshard` frees the unsharded
///   flat parameter only `not state._is_root`.
/// - The block computing and `prefetch` blocks ahead: `_pre_backward_hook`
///   unshards the block and `_prefetch_handles(..., BACKWARD)` all-gathers the
///   next (`backward_prefetch=BACKWARD_PRE`); `limit_all_gathers=True` makes
///   `_unshard` wait on `_free_event_queue` (`_limiter_utils.py`, two
///   all-gathers in flight at most), so the default is one block ahead.
/// - Unsharded gradients: `_post_backward_hook` reduce-scatters
///   `flat_param.grad`, one tensor the size of the whole unsharded flat
///   parameter in `param_dtype`, after the unit's backward, and keeps only the
///   new shard (`_saved_grad_shard`, cast to the FP32 sharded parameter's
///   dtype, `gradients`). The block in backward holds its full gradient; the
///   root's is produced from the head's backward on and reduce-scattered after
///   the embedding's, at the end: counted whole through the blocks' backward.
fn fsdp1_in_flight(input: &TransformerInput, layer: u128) -> u128 {
    let mut none = input.arch;
    none.layers = 0;
    let root = div_ceil(parameter_count(&none).total, u128::from(input.tp));
    let parameters = root + layer + u128::from(input.prefetch) * layer;
    let gradients = root + layer;
    2 * (parameters + gradients)
}

/// DeepSpeed ZeRO-3's runtime memory on top of `states` (ZeRO-sharded model
/// states and the reduce bucket, `bucket_m`), per GPU, under
/// `framework=deepspeed` with `zero=3` ([`TransformerInput::deepspeed_stage3`]):
///
/// - Persistent parameters: deepspeed/runtime/zero/parameter_offload.py
///   `DeepSpeedZeRoOffload.mark_persistent_parameters` marks every parameter
///   of at most `stage3_param_persistence_threshold` elements `ds_persist`,
///   never partitioned: whole on every rank in the 16-bit dtype. The norms'
///   weights and biases are such vectors (hidden-wide at most) when `hidden`
///   ≤ `ds_persist`; the rank's 1/n share is already in `weights`. Their
///   gradients and FP32 copies stay partitioned.
/// - The parameters in flight: partitioned_param_coordinator.py
///   `PartitionedParameterCoordinator.fetch_sub_module` all-gathers the
///   module computing and then prefetches the next modules' parameters, up
///   to `min(prefetch_bucket_size, max_live_parameters − available)`
///   elements, in the 16-bit dtype; `release_sub_module` frees them after
///   use. At the start of the backward pass the unit computing (the last
///   layer, or the largest matrix) is gathered and the prefetch bucket is
///   full.
/// - The FP32 gradient partition: stage3.py `_prepare_fp32_grad_for_sub_group`
///   flattens one optimizer sub-group's 16-bit gradient partition (a new
///   tensor) and converts it to FP32 (`.to(fp32)`), both alive at that
///   moment, for at most `sub_group_size` (1e9) elements; `_release_sub_group`
///   frees the FP32 copy after that sub-group's step. 2 + 4 bytes per element
///   of the rank's partition in 16-bit training (4 in FP32, where `.to` makes
///   no copy), in the step's moment.
/// - The gradient partition itself (stage3.py `grad_partitions_flat_buffer`,
///   `torch.zeros` of the rank's partition in the 16-bit dtype, allocated at
///   initialization) is `gradients`; that it is alive through the forward
///   pass is memory.rs's `gradients_with_activations`.
///
/// Not counted: `stage3_max_reuse_distance` (parameters reused within that
/// many elements are kept gathered, at the turn from the forward to the
/// backward pass) and the prefetch's overshoot by up to one whole parameter.
fn zero3_runtime(
    count: &ParameterCount,
    input: &TransformerInput,
    states: ModelStates,
) -> ModelStates {
    if !input.deepspeed_stage3() {
        return states;
    }
    let n = u128::from(input.gpus.max(1));
    let bytes = input.activation_bytes();
    let persistent = if u128::from(input.arch.hidden) <= u128::from(input.ds_persist) {
        count.norms
    } else {
        0
    };
    let whole_extra = (persistent - div_ceil(persistent, n).min(persistent)) * bytes;
    let (layer, computing) = units_in_flight(count, input);
    let available = u128::from(input.ds_live).saturating_sub(computing);
    let prefetched = u128::from(input.ds_prefetch)
        .min(available)
        .min(layer * u128::from(input.arch.layers));
    let in_flight = (computing + prefetched) * bytes;
    let trainable = if input.lora() {
        Adapters::of(input).parameters
    } else {
        per_rank(count, input)
    };
    let sub_group = div_ceil(trainable, n).min(DS_SUB_GROUP);
    // The flattened copy in the model's dtype, and its FP32 conversion
    // (`.to` returns the same tensor when the model already trains in FP32).
    let fp32_copy = if bytes == 4 { 0 } else { 4 };
    ModelStates {
        weights: states.weights + whole_extra,
        optimizer_step: states.optimizer_step + (bytes + fp32_copy) * sub_group,
        buffers: states.buffers + in_flight,
        ..states
    }
}

/// The parameters per tensor-parallel rank of one layer, and of the unit
/// computing (that layer, or the largest matrix when it is larger): what a
/// framework that gathers or fetches parameters layer by layer holds. One
/// layer is the count with one layer minus the count with none; for a MoE
/// model, a MoE layer, its routed experts split over `ep`.
fn units_in_flight(count: &ParameterCount, input: &TransformerInput) -> (u128, u128) {
    let t = u128::from(input.tp);
    let mut one = input.arch;
    (one.layers, one.first_dense_layers, one.moe_every) = (1, 0, 1);
    let mut none = input.arch;
    none.layers = 0;
    let one = parameter_count(&one);
    let routed = one.routed.total;
    let layer = div_ceil(
        one.total - parameter_count(&none).total - routed + div_ceil(routed, u128::from(input.ep)),
        t,
    );
    (layer, layer.max(div_ceil(count.largest, t)))
}

/// ZeRO (Rajbhandari et al. 2020, §5.1–5.3): stage 1 partitions the optimizer
/// states over the data-parallel ranks, stage 2 also the gradients, stage 3 also
/// the weights.
fn shard(states: ModelStates, input: &TransformerInput) -> ModelStates {
    let n = u128::from(input.gpus);
    let stage = input.zero_stage();
    let split = |bytes: u128, from: u8| {
        if stage >= from {
            div_ceil(bytes, n)
        } else {
            bytes
        }
    };
    ModelStates {
        weights: split(states.weights, 3),
        gradients: split(states.gradients, 2),
        optimizer_states: split(states.optimizer_states, 1),
        optimizer_step: split(states.optimizer_step, 1),
        buffers: states.buffers,
        cpu: states.cpu,
    }
}

/// One layer's activations for one sample, split the way tensor parallelism
/// divides them (Korthikanti et al. 2022, §4.2.2, Eq. 2).
#[derive(Clone, Copy, Debug, Default)]
struct LayerActivations {
    /// Not split by tensor parallelism (split only with sequence parallelism):
    /// the norm inputs, the inputs of the first linear maps, the dropout masks
    /// after the attention and MLP blocks — Korthikanti's 10sbh.
    replicated: u128,
    /// Split by tensor parallelism: Q, K, V, the attention output, the MLP's
    /// intermediate tensors — Korthikanti's 24sbh.
    split: u128,
    /// The attention core's seq × seq tensors — Korthikanti's 5as²b; gone with
    /// flash kernels and with selective recomputation.
    scores: u128,
    /// The routed experts' FFN intermediates, split by expert tensor
    /// parallelism (`etp`, by default `tp`).
    experts: u128,
}

impl LayerActivations {
    fn per_rank(&self, input: &TransformerInput, scores: bool) -> u128 {
        let t = u128::from(input.tp);
        let replicated = if input.sp {
            div_ceil(self.replicated, t)
        } else {
            self.replicated
        };
        let scores = if scores { self.scores } else { 0 };
        replicated
            + div_ceil(self.split + scores, t)
            + div_ceil(self.experts, u128::from(input.expert_tp()))
    }
}

/// torchtune LinearCrossEntropyLoss's default `num_output_chunks`.
const CHUNKS: u128 = 8;

/// Bytes per logit of the gradient that Megatron-Core's vocab-parallel
/// cross-entropy hands back to the head when the head computes in `e`-byte
/// elements: autograd casts the FP32 gradient to the logits' dtype, a new
/// tensor unless they are FP32 already.
const fn vocab_cast(e: u128) -> u128 {
    if e < 4 { e } else { 0 }
}

/// The FP32 logits of one chunk of Unsloth's fused loss are at most this
/// many bytes: unslothai/unsloth-zoo unsloth_zoo/fused_losses/
/// cross_entropy_loss.py `_get_chunk_multiplier` targets min(half the free
/// GPU memory, 4 GiB) per chunk; batchfit takes the 4 GiB cap (free memory
/// of at least 8 GiB when the loss runs, which it does not know).
const FUSED_CHUNK_TARGET: u128 = 4 << 30;

/// Tokens in one chunk of Unsloth's fused loss over `tokens` tokens
/// (`get_chunk_size`): one chunk when their FP32 logits fit the target, else
/// the exact count rounded up to a multiple of 4; `torch.chunk` makes
/// chunks of ⌈tokens / n⌉.
fn fused_chunk_tokens(tokens: u128, vocab: u128) -> u128 {
    let fp32 = 4 * tokens * vocab;
    let chunks = if fp32 <= FUSED_CHUNK_TARGET {
        1
    } else {
        4 * div_ceil(fp32, 4 * FUSED_CHUNK_TARGET)
    };
    div_ceil(tokens, chunks)
}

/// Bytes per unit a norm saves for the backward pass, besides its output (the
/// next op's input, counted there), when it reads a tensor of `reads` bytes
/// per element: the residual stream for the norms before a block, a
/// projection's output for the norms after one and for QK-norms.
fn norm_saved(input: &TransformerInput, reads: u128) -> u128 {
    // Under torch.compile every norm keeps the tensor it reads, `reads`
    // bytes (the residual stream is a primal of a per-block graph or the
    // output of an element-wise addition, a post- or QK-norm's input the
    // output of a matrix product: neither is recomputed) with its per-token
    // statistic, a mean's output 4 times smaller than its input
    // (`ban_recompute_reductions`, not counted, as LayerNorm's are not):
    // the FP32 upcast and the normalized tensor are element-wise ops of
    // them, which the partitioner recomputes in the backward pass. The
    // norm's output, which a matrix product reads, is counted there.
    // Unsloth's RMSNorm and LayerNorm kernels (unsloth/kernels/
    // rms_layernorm.py `Fast_RMS_Layernorm.forward`: `ctx.save_for_backward(X,
    // W, r)`; layernorm.py: `ctx.save_for_backward(X, W, b, r, mu)`) keep the
    // input and per-token statistics, as the compiled norm; Qwen3's q_norm
    // and k_norm run through the same kernel (unsloth/models/qwen3.py).
    if input.compiled() || input.unsloth_kernels() {
        return reads;
    }
    match input.arch.norm {
        // nn.LayerNorm (aten native_layer_norm) saves its input and a mean
        // and inverse deviation per token; autocast runs it in FP32
        // (`KERNEL_CUDA(layer_norm, fp32)`), on an FP32 copy of a 16-bit input.
        Norm::LayerNorm if input.autocast() => 4,
        // A fused kernel (`norm_kernel=fused`: Transformer Engine's
        // LayerNormLinear and RMSNorm, Apex's fused norms) saves its input as
        // it receives it and a per-token statistic (not counted, as for
        // nn.LayerNorm): `ctx.save_for_backward(x, rstdevs)`.
        _ if input.norm_kernel == NormKernel::Fused => reads,
        Norm::LayerNorm => reads,
        // RMSNorm as Hugging Face writes it (transformers
        // models/llama/modeling_llama.py `LlamaRMSNorm.forward`, copied by
        // Qwen2, Qwen3, Mistral and the others) and torchtune (torchtune/modules/
        // rms_norm.py `RMSNorm.forward`): `x.to(torch.float32)`, then
        // `x * rsqrt(x.pow(2).mean(-1) + eps)`, cast back to the input's dtype,
        // times the weight. The power and the product save the FP32 input (4
        // bytes; the input itself when it is FP32), the weight's product
        // saves the normalized tensor in the input's dtype: a composite of
        // element-wise ops, not one fused kernel.
        Norm::RmsNorm => 4 + reads,
        // Gemma's and OLMo 2's RMSNorm multiply the weight before the cast
        // back: the product saves the FP32 normalized tensor.
        Norm::RmsNormFp32 => 4 + 4,
    }
}

/// What a norm reading the residual stream saves per hidden unit.
fn norm_saved_bytes(input: &TransformerInput) -> u128 {
    norm_saved(input, input.residual_bytes())
}

/// Bytes per token a feed-forward network of `width` saves for the backward
/// pass beyond its input: GELU's input and output (= input of the second
/// linear map), 8sbh + 8sbh at f = 4h in Korthikanti's count; a gated MLP,
/// same reasoning per tensor: the gate projection (input of the activation),
/// the up projection and the activation's output (both needed for the
/// product's gradient), and the product (input of the down map). Under
/// Transformer Engine's FP8 (`fp8=te`, layernorm_mlp.py) the first map's
/// output stays 16-bit for the fused activation's backward and the second
/// map's input is saved in FP8.
///
/// `gelu_new` (transformers activations.py `NewGELUActivation`, GPT-2's
/// `activation_function`) is `0.5 * x * (1.0 + torch.tanh(c * (x + 0.044715 *
/// torch.pow(x, 3.0))))`, one autograd node per operation: `pow` saves its
/// input, `tanh` its output, the last product both factors (`0.5 * x` and
/// `1.0 + tanh(…)`); the products and sums with a constant save nothing; and
/// the second map saves the product's output, its input. Under autocast `pow`
/// is on the FP32 list (pytorch/pytorch aten/src/ATen/autocast_mode.h
/// `AT_FORALL_FP32`: `_(pow, Tensor_Scalar)`): it saves an FP32 copy of x, everything after
/// it up to the last product is FP32 by type promotion, and the second map
/// casts the FP32 product to 16 bits and saves the cast. Per unit: 3p + 2e
/// bytes with p = 4 under autocast, e otherwise (16 under autocast, 20 in FP32,
/// 10 in BF16), where a fused GELU keeps its input and output, 2e.
fn ffn_saved(input: &TransformerInput, e: u128, width: u128) -> u128 {
    let te = input.fp8 == Fp8::Te && input.mode == Mode::Train;
    let promoted = if input.autocast() { 4 } else { e };
    match input.arch.mlp {
        Mlp::Gelu | Mlp::GeluNew if te => e * width + width,
        Mlp::Swiglu if te => 2 * e * width + width,
        Mlp::Gelu => 2 * e * width,
        // Under torch.compile `gelu_new`'s element-wise chain is recomputed
        // from the first map's output (a matrix product's output, saved);
        // the second map's input, which its weight gradient reads, stays:
        // the two tensors of a one-kernel GELU.
        Mlp::GeluNew if input.compiled() => 2 * e * width,
        Mlp::GeluNew => (3 * promoted + 2 * e) * width,
        // Under torch.compile the activation's output `silu(gate)` is an
        // element-wise op of the gate projection's output, which is saved
        // (a matrix product's output is never recomputed), and only
        // element-wise ops read it in the backward pass: it is recomputed.
        // The product, which the down projection's weight gradient reads, and
        // the up projection's output stay. (GELU's output is itself the
        // second map's input: nothing to drop.)
        // Unsloth's `LoRA_MLP` (unsloth/kernels/fast_lora.py:
        // `ctx.save_for_backward(…, X, e, g)`) keeps the gate's and the up
        // projection's outputs; its backward kernel recomputes the
        // activation and the product from them.
        Mlp::Swiglu if input.unsloth_mlp() => 2 * e * width,
        Mlp::Swiglu if input.compiled() => 3 * e * width,
        Mlp::Swiglu => 4 * e * width,
    }
}

/// The 16-bit casts of a norm's output beyond the one per sublayer that
/// [`layer_activations`] counts, in bytes per token and layer. Under autocast
/// the norms' outputs are FP32 (the residual stream is), and every matrix
/// product casts its FP32 input to 16 bits for itself and saves the cast for
/// its backward: pytorch/pytorch aten/src/ATen/autocast_mode.cpp
/// `cached_cast` caches only leaves that require grad (the weights), so an
/// activation read by three projections is cast three times. Separate Q, K
/// and V projections ([`FusedProj::None`]) save three casts of the attention
/// norm's output, separate gate and up projections two of the MLP norm's;
/// one matrix saves one. MLA reads its norm's output twice (the query and the
/// KV down-projections). In a parallel block (Phi) the one norm feeds both.
/// A MoE layer's router casts the MLP norm's output (the one counted) and
/// its shared experts cast it again, once per first projection
/// ([`ffn_input_casts`]; transformers models/qwen2_moe/modeling_qwen2_moe.py
/// `Qwen2MoeSparseMoeBlock.forward`: `self.shared_expert(hidden_states)`,
/// DeepSeek-V3's `self.shared_experts(residuals)`: the norm's output
/// itself); the routed experts read an index of it, which one product per
/// copy casts (transformers' experts as 3D tensors, `MixtralExperts.forward`:
/// one `linear` of the copy with `gate_up_proj[expert_idx]`), the copy
/// [`moe_saved`] counts (the older `MixtralBlockSparseTop2MLP` with its
/// separate `w1` and `w3` cast it twice: not counted). Nothing
/// outside autocast: a 16-bit norm output is one tensor whoever reads it.
/// Under Transformer Engine's FP8 (`fp8=te`) each linear module quantizes its
/// FP32 input for itself likewise, and saves the 1-byte copy. Under
/// torch.compile the copies are one: AOTAutograd's graph goes through common
/// subexpression elimination before it is partitioned (torch/_functorch/
/// config.py `cse = True`; partitioners.py runs compile_utils.py
/// `fx_graph_cse`), and the casts of one tensor to one dtype are the same
/// node.
fn autocast_casts(input: &TransformerInput, ffn: Ffn) -> u128 {
    let arch = &input.arch;
    if !input.autocast() || input.compiled() {
        return 0;
    }
    let bytes = if input.fp8 == Fp8::Te {
        1
    } else {
        input.activation_bytes()
    };
    let attention = match arch.fused_proj {
        _ if arch.mla() => 2,
        FusedProj::None => 3,
        FusedProj::Qkv | FusedProj::All => 1,
    };
    let mlp = match ffn {
        Ffn::Dense => ffn_input_casts(arch),
        Ffn::Moe if arch.shared_width() > 0 => 1 + ffn_input_casts(arch),
        Ffn::Moe => 1,
    };
    let counted = match arch.block {
        Block::Parallel => 1,
        Block::Pre | Block::Post | Block::Sandwich => 2,
    };
    (attention + mlp - counted) * bytes * u128::from(arch.hidden)
}

/// The casts of an FFN's FP32 input its first projections make under
/// autocast, one each: two for separate gate and up projections, one for a
/// fused pair or a GELU MLP's one map.
fn ffn_input_casts(arch: &Architecture) -> u128 {
    match (arch.mlp, arch.fused_proj) {
        (Mlp::Swiglu, FusedProj::None | FusedProj::Qkv) => 2,
        _ => 1,
    }
}

/// Which FFN a layer has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ffn {
    Dense,
    Moe,
}

/// What a MoE block saves for the backward pass per token beyond its input
/// (the post-attention norm's output, which the router and the shared
/// experts read), as transformers' MoE blocks write it
/// (models/mixtral/modeling_mixtral.py `MixtralSparseMoeBlock.forward`; the
/// Qwen3-MoE, OLMoE and DeepSeek-V3 blocks have the same shape):
///
/// - the router: `F.softmax(router_logits, dtype=torch.float)` saves its FP32
///   output, 4 bytes per expert (DeepSeek-V3's sigmoid likewise); `topk`
///   keeps its int64 indices (8 bytes per routed expert) and the
///   renormalisation its FP32 top-k weights (4 bytes each);
/// - per routed copy (top-k of them): `hidden_states[top_x]`, the expert's
///   input, saved by its first linear maps (e bytes × h); the expert's FFN
///   intermediates at `expert_ffn` width; its output, saved with the routing
///   weight by the product `expert_layer(x) * routing_weights[top_x, idx]`
///   (e × h + e); and `top_x` itself (int64), which `index_add_`'s backward
///   gathers with;
/// - the shared experts: a dense FFN of their width on every token.
///
/// Megatron-Core (megatron/core/transformer/moe/moe_utils.py `permute`,
/// experts.py `GroupedMLP`/`TEGroupedMLP`) saves the same tensors in other
/// shapes: the permuted copies (top-k per token) the grouped GEMM reads, its
/// fc1 output and activation, and the unpermuted expert outputs with the
/// probabilities. Its capacity factor (`moe_expert_capacity_factor`) drops
/// the copies beyond an expert's capacity, or pads every expert to it
/// (`moe_pad_expert_input_to_capacity`); batchfit counts the dropless
/// routing of top-k copies per token, which
/// Hugging Face's loop and Megatron-Core's default (no capacity factor) run,
/// unless `capacity_factor` says otherwise ([`TransformerInput::routed_copies`]).
/// Returns bytes per sample: the h-wide copies and the router's tensors are
/// not split by tensor parallelism, the shared experts' intermediates are, and the routed experts' by `etp`
/// (Megatron-Core's expert tensor parallelism, by default `tp`): (replicated,
/// split by tp, split by etp).
fn moe_saved(input: &TransformerInput) -> (u128, u128, u128) {
    let arch = &input.arch;
    let e = input.activation_bytes();
    let s = u128::from(input.tokens());
    let h = u128::from(arch.hidden);
    let k = u128::from(arch.routed_per_token());
    let copies = input.routed_copies();
    let router = s * (4 * u128::from(arch.experts) + (8 + 4) * k);
    let dispatched = copies * (e * h + e * h + e + 8);
    let routed = copies * ffn_saved(input, e, u128::from(arch.expert_width()));
    let shared = s * ffn_saved(input, e, u128::from(arch.shared_width()));
    (router + dispatched, shared, routed)
}

/// Korthikanti et al. 2022, §4.1, term by term, for one layer and one sample.
/// At 16-bit with MHA, a 4h GELU MLP and dropout this is s·h·34 + 5·a·s² bytes
/// (Eq. 1); each line says which of Korthikanti's terms it generalises.
fn layer_activations(input: &TransformerInput, ffn: Ffn) -> LayerActivations {
    let arch = &input.arch;
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let h = u128::from(arch.hidden);
    let a = u128::from(arch.heads);
    let widths = arch.attention_widths();
    // Dropout masks are 1 byte per element whatever the compute precision (§4.1).
    let mask = u128::from(arch.dropout);
    // The norms before a block read the residual stream, in FP32 under
    // autocast; the norms after one read its output projection's result, in
    // the compute dtype.
    let pre = norm_saved_bytes(input);
    let post = norm_saved(input, e);
    let norms = match arch.block {
        // Korthikanti: the inputs of the two norms, 2sbh each of his 4sbh.
        Block::Pre => 2 * pre,
        Block::Post => 2 * post,
        Block::Sandwich => 2 * pre + 2 * post,
        Block::Parallel => pre,
    };
    // Transformer Engine's FP8 modules save what their GEMMs read in the
    // backward pass as FP8 (module/linear.py, layernorm_linear.py,
    // layernorm_mlp.py: `inputmat.update_usage(rowwise_usage=False,
    // columnwise_usage=True)`, 1 byte per element): the norms' outputs that
    // feed the QKV and first MLP maps, and the MLP's activation output; the
    // output projection saves an FP8 copy of the attention output, which the
    // attention kernel saves too; LayerNormMLP's fused backward of the
    // activation needs only the first map's output (gate and up), in 16 bits.
    let te = input.fp8 == Fp8::Te && input.mode == Mode::Train;
    let linear_input = if te { 1 } else { e };
    // Inputs of the Q/K/V projections and of the MLP's first linear map(s)
    // or the router (2sbh each); in a parallel block both read the one
    // norm's output.
    let inputs = match arch.block {
        Block::Parallel => linear_input,
        Block::Pre | Block::Post | Block::Sandwich => 2 * linear_input,
    };
    let (mlp, (moe_replicated, moe_split, experts)) = match ffn {
        Ffn::Dense => (ffn_saved(input, e, u128::from(arch.ffn)), (0, 0, 0)),
        Ffn::Moe => (0, moe_saved(input)),
    };
    // MLA (transformers DeepseekV3Attention.forward): q_a_layernorm and
    // kv_a_layernorm normalize the compressed query and KV, and q_b_proj and
    // kv_b_proj read their outputs; the latents are not split by tensor
    // parallelism (Megatron-Core megatron/core/transformer/multi_latent_attention.py
    // keeps the down-projections unsplit).
    let latents = if arch.mla() {
        (norm_saved(input, e) + e) * u128::from(arch.q_lora_rank + arch.kv_lora_rank)
    } else {
        0
    };
    // And the dropout masks after the attention block and the MLP (sbh each).
    let replicated = s
        * (norms * h + inputs * h + 2 * mask * h + latents + autocast_casts(input, ffn))
        + moe_replicated;
    let projection_copy = if te { widths.output } else { 0 };
    let flash_statistics = match input.kernel() {
        // FlashAttention (Dao et al. 2022, §3.1; FlashAttention-2 §3.1.2) saves
        // the softmax log-sum-exp per row and head, in FP32, for the backward pass.
        Attention::Flash => 4 * a,
        Attention::Eager => 0,
    };
    // QK-norm reads the Q and K projections' outputs (compute dtype) and
    // saves like any norm of that kind; the rotary embedding after it saves
    // only cos and sin (transformers `apply_rotary_pos_emb`).
    let qk_norm = if arch.qk_norm {
        norm_saved(input, e) * (widths.q + widths.k)
    } else {
        0
    };
    let split = s
        * (e * widths.q // Q (Korthikanti: Q and K, 4sbh; K and V sized by kv_heads under GQA)
            + e * (widths.k + widths.v) // K and V (V: 2sbh)
            + e * widths.output // attention output, input of the output projection (2sbh)
            + projection_copy
            + qk_norm
            + mlp
            + flash_statistics)
        + moe_split;
    // The softmax's output, which its backward needs: in the compute dtype,
    // or in FP32 under autocast (pytorch/pytorch aten/src/ATen/autocast_mode.cpp
    // `KERNEL_CUDA2(softmax, int, fp32_set_opt_dtype)`: autocast runs softmax
    // in FP32 and returns FP32).
    // Under torch.compile the FP32 softmax is recomputed from the scores the
    // first product wrote in the compute dtype (saved: a matrix product's
    // output), e bytes in place of 4.
    let upcast = input.autocast();
    let softmax = if upcast && !input.compiled() { 4 } else { e };
    // The product with V needs its left operand in the compute dtype: the
    // dropout's output, or without dropout a 16-bit copy of an FP32 softmax
    // (autocast casts it; Hugging Face's eager Llama writes
    // `.to(query.dtype)`), or the softmax output itself.
    let product_input = if arch.dropout || upcast { e } else { 0 };
    // Gemma 2's eager attention soft-caps the scores before the softmax
    // (transformers models/gemma2/modeling_gemma2.py `eager_attention_forward`:
    // divide, `torch.tanh`, multiply): tanh saves its output; the division
    // and the product by a constant save nothing. Flash kernels cap inside.
    let softcap = if arch.attn_softcap { e } else { 0 };
    let scores = match input.kernel() {
        // Softmax output (2as²b at 16-bit); with dropout, its mask (as²b) and
        // output (2as²b), the product's input.
        Attention::Eager => a * s * s * (softmax + mask + product_input + softcap),
        Attention::Flash => 0,
    };
    LayerActivations {
        replicated: replicated + lora_saved(input, ffn),
        split,
        scores,
        experts,
    }
}

/// The residual stream's gradient while the layers run their backward
/// passes, per sample and GPU (split only with sequence parallelism): one
/// tensor of the stream's dtype. An addition's backward hands its incoming
/// gradient on unchanged to both summands (tools/autograd/derivatives.yaml,
/// `add.Tensor`: `self: handle_r_to_c(self.scalar_type(), grad)`), and the
/// engine puts the residual's share into the input buffer of the node that
/// produced the layer's input (torch/csrc/autograd/engine.cpp
/// `Engine::evaluate_function`: `not_ready.emplace(…)` until every consumer
/// has sent its gradient), where it waits while the branch's backward runs;
/// the branch's gradient is then added into it in place, the buffer holding
/// its last reference (torch/csrc/autograd/input_buffer.cpp `accumulate`:
/// `old_var.add_(var)`). So one hidden-sized gradient is alive beside every
/// layer's backward pass; under autocast it is FP32, as the stream is.
fn residual_gradient(input: &TransformerInput) -> u128 {
    let bytes = u128::from(input.tokens()) * input.residual_bytes() * u128::from(input.arch.hidden);
    if input.sp {
        div_ceil(bytes, u128::from(input.tp))
    } else {
        bytes
    }
}

/// Bytes per unit of an FFN's width that its activation's backward holds at
/// once: the node's incoming gradient and the gradients it returns, all
/// alive while the node runs (engine.cpp `call_function`: the inputs are
/// released when it returns, after its outputs exist). GELU
/// (derivatives.yaml `gelu`: `gelu_backward(grad, self, approximate)`): the
/// gradient of its output and of its input, 2e. The gated product
/// `act(gate) * up` (`mul.Tensor`: `self: mul_tensor_backward(grad, other,
/// …)`, `other: mul_tensor_backward(grad, self, …)`): the incoming gradient
/// and both factors' gradients, 3e; SiLU's backward after it holds as many
/// (the up projection's gradient waiting in its buffer, SiLU's incoming
/// gradient and its result). `gelu_new`'s last product runs in FP32 under
/// autocast (its factors are promoted, [`ffn_saved`]): its incoming gradient
/// and its two factors' gradients, 3p. Compiled, `gelu_new` is one fused
/// element-wise kernel in each direction: 2e.
fn ffn_backward_bytes(input: &TransformerInput, e: u128) -> u128 {
    let promoted = if input.autocast() { 4 } else { e };
    match input.arch.mlp {
        Mlp::Gelu => 2 * e,
        Mlp::GeluNew if input.compiled() => 2 * e,
        Mlp::GeluNew => 3 * promoted,
        Mlp::Swiglu => 3 * e,
    }
}

/// The backward pass's working tensors of one dense (or MoE) layer, per
/// sample and GPU: what the autograd engine holds beside the saved tensors
/// while it runs the layer's backward pass, at the largest moment inside it.
/// The residual stream's gradient ([`residual_gradient`]), plus the largest
/// set of the layer's own gradients alive at once, which are produced and
/// consumed inside the layer:
///
/// - the FFN's activation: [`ffn_backward_bytes`] × its width (a MoE
///   layer's routed copies all at once, as a grouped GEMM's backward runs
///   them, or its shared experts, the larger);
/// - the attention core: eager attention's softmax backward
///   (derivatives.yaml `_softmax`: `_softmax_backward_data(grad, result, …)`)
///   holds the gradient of the probabilities and of the scores, two
///   seq × seq tensors per head in the softmax's dtype (FP32 under
///   autocast); a fused kernel's backward
///   (`_scaled_dot_product_flash_attention_backward`) holds the gradient of
///   its output and writes those of Q, K and V.
///
/// Korthikanti et al. count neither. The 16-bit gradient of a weight under
/// autocast (a matrix product's output, cast to FP32 by the weight copy's
/// `ToCopyBackward0` before `AccumulateGrad` steals the cast into `.grad`,
/// torch/csrc/autograd/functions/accumulate_grad.h Case 1.1) is alive in
/// that product's backward only, not beside these sets, and does not grow
/// with the batch: not counted (docs/model.md §6).
fn backward_working(input: &TransformerInput, ffn: Ffn) -> u128 {
    let (mlp, attention) = working_sets(input, ffn);
    residual_gradient(input) + mlp.max(attention)
}

/// The gradients the backward pass has created when the last layer reaches
/// each of its two working sets ([`working_sets`]: the FFN activation's, the
/// attention core's), per GPU: the first moments of the backward pass at
/// which the layers' saved tensors, a layer's working set and gradients are
/// alive together. pytorch/pytorch
/// torch/csrc/autograd/functions/accumulate_grad.cpp: `AccumulateGrad` takes
/// the largest sequence number, so the engine runs it as soon as a weight's
/// gradient is ready (engine.h `ReadyQueue`'s `CompareNodeTaskTime` pops
/// the ready node with the highest `sequence_nr` first), and accumulate_grad.h `accumulateGrad` (Case 1.1) steals that
/// gradient into `.grad`, where it stays until `zero_grad` (a tied weight's
/// gradient from the head waits in the input buffer of its
/// `AccumulateGrad` until the embedding's arrives: the same bytes). So beside
/// the last layer's backward pass the gradients of everything above the
/// layers exist (the final norm and the head; BERT's pooler and classifier,
/// a ViT's final norm and classifier), and of the layer's own parameters
/// those whose backward ran before the set:
///
/// - before the FFN activation's backward: the FFN's output matrix (a MoE
///   layer's: its local experts' and its shared experts' down projections,
///   an upper bound by the branch that runs second) and the norms after
///   the FFN (a post-norm block's and BERT's output norm, Gemma's
///   `post_feedforward_layernorm`);
/// - before the attention core's backward: the whole FFN (a MoE layer's
///   router, shared experts and local experts, experts / ep, over etp), the
///   attention's output projection and every norm of the layer but its
///   input norm (BERT's two post-norms).
///
/// Each in the gradients' bytes ([`gradient_bytes`]), divided by the
/// tensor-parallel ranks as the weights are. The backward's order inside a
/// layer is the engine's: a node's sequence number is its forward
/// position, and the ready node with the highest runs first, so a layer's
/// backward walks its forward in reverse.
///
/// `[FFN's, attention's]`; 0 where this moment is counted otherwise or not
/// at all: outside
/// training, with LoRA (the frozen head has no gradient; the adapters'
/// are not counted), when the gradients are alive with the activations
/// anyway (a step in the backward pass, accumulation, `zero_grad=zeros`,
/// DeepSpeed's ZeRO-3, a pipeline: `memory`), and where the gradients
/// leave autograd's `.grad` layer by layer (ZeRO-2's buckets, FSDP2's
/// reduce-scatter, parameter offload; not modelled, docs/model.md §6).
fn gradients_beside_layers(input: &TransformerInput) -> [u128; 2] {
    let arch = &input.arch;
    if !gradients_stay_in_grad(input) || arch.layers == 0 {
        return [0, 0];
    }
    let h = u128::from(arch.hidden);
    let t = u128::from(input.tp);
    let norm = arch.norm_parameters(h);
    let mut none = *arch;
    none.layers = 0;
    let above = stage_parameter_count(
        &none,
        Ends {
            embedding: false,
            head: true,
        },
    );
    let above = above.norms + div_ceil(above.total - above.norms, t);
    // The norms whose backward runs before the FFN activation's and before
    // the attention core's.
    let (norms_ffn, norms_attention) = match (arch.kind, arch.block) {
        // transformers models/bert/modeling_bert.py `BertSelfOutput` and
        // `BertOutput`: a LayerNorm after each residual addition.
        (Kind::Encoder, _) => (1, 2),
        (_, Block::Pre) => (0, 1),
        (_, Block::Post) => (1, 2),
        (_, Block::Sandwich) => (1, 3),
        (_, Block::Parallel) => (0, 0),
    };
    let bias = |rows: u128| if arch.bias { rows } else { 0 };
    let down = |width: u64| u128::from(width) * h + bias(h);
    let every = arch.moe_every.max(1);
    let last_is_moe =
        arch.moe() && arch.layers.is_multiple_of(every) && arch.layers > arch.first_dense_layers;
    let ffn = if last_is_moe { Ffn::Moe } else { Ffn::Dense };
    let (ffn_down, ffn_all) = match ffn {
        Ffn::Dense => {
            let mut mlp = Counted::default();
            mlp.mlp(arch, u128::from(arch.ffn));
            (div_ceil(down(arch.ffn), t), div_ceil(mlp.total, t))
        }
        Ffn::Moe => {
            let mut expert = Counted::default();
            expert.mlp(arch, u128::from(arch.expert_width()));
            let local = u128::from(arch.experts).div_ceil(u128::from(input.ep.max(1)));
            let etp = u128::from(input.expert_tp());
            let shared = if arch.shared_width() > 0 {
                div_ceil(down(arch.shared_width()), t)
            } else {
                0
            };
            (
                div_ceil(local * down(arch.expert_width()), etp) + shared,
                div_ceil(local * expert.total, etp) + div_ceil(moe_common(arch).total, t),
            )
        }
    };
    let output = div_ceil(arch.attention_widths().output * h + bias(h), t);
    let g = gradient_bytes(input);
    [
        g * (above + ffn_down + norms_ffn * norm),
        g * (above + ffn_all + output + norms_attention * norm),
    ]
}

/// The last layer's backward pass at each of its two working sets (the FFN
/// activation's, the attention core's): (activation bytes per sample, the
/// gradients created by then, [`gradients_beside_layers`]), per GPU. The
/// activations are every saved tensor, the embedding's side and the layer
/// in flight's transient set with that working set (the loss's and the
/// head's tensors are freed by then). `memory` counts the larger at its
/// batch, beside the loss's moment. Both 0 where no gradient is counted.
pub fn layers_backward(input: &TransformerInput) -> [(u128, u128); 2] {
    let gradients = gradients_beside_layers(input);
    if gradients == [0, 0] {
        return [(0, 0); 2];
    }
    let saved = training_saved(input);
    let residual = residual_gradient(input);
    let with = |set: fn((u128, u128)) -> u128| {
        let working = |ffn: Ffn, layers: u64| {
            if layers > 0 {
                residual + set(working_sets(input, ffn))
            } else {
                0
            }
        };
        let saved = Saved {
            working_dense: working(Ffn::Dense, input.arch.dense_layers()),
            working_moe: working(Ffn::Moe, input.arch.moe_layers()),
            ..saved
        };
        let (kept, _, layer) = backward_start(input, &saved);
        kept + layer
    };
    [
        (with(|(mlp, _)| mlp), gradients[0]),
        (with(|(_, attention)| attention), gradients[1]),
    ]
}

/// Megatron-LM's 16-bit weight gradients without gradient-accumulation
/// fusion (`grad_accum_fusion=0`, `--no-gradient-accumulation-fusion`), per
/// GPU: what the backward pass holds beside its other tensors, in two
/// moments ([`unfused_moments`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnfusedGradients {
    /// The output layer's, in the head's backward pass.
    pub head: u128,
    /// Beside every layer's backward pass: the layer's largest, and a tied
    /// head's, waiting for the embedding's.
    pub layers: u128,
}

/// The weight gradients `grad_accum_fusion=0` keeps in the model's 16 bits,
/// on a rank holding `ends`; `None` where the fusion is on or means nothing
/// (not `recipe=main_fp32`, inference, LoRA, whose frozen weights compute no
/// weight gradient). NVIDIA/Megatron-LM at d98e8a64:
///
/// - megatron/core/tensor_parallel/layers.py
///   `LinearWithGradAccumulationAndAsyncCommunication.backward` (the output
///   layer's `ColumnParallelLinear`, and the layers' linear maps under the
///   local spec): with `gradient_accumulation_fusion` off, `grad_weight =
///   grad_output.t().matmul(total_input)` in the parameter's dtype,
///   returned beside `grad_input`; with it on,
///   `fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp32` accumulates into
///   `weight.main_grad`. Transformer Engine's modules, which the default
///   spec builds (megatron/core/extensions/transformer_engine.py:
///   `fuse_wgrad_accumulation=self.config.gradient_accumulation_fusion`),
///   do the same (NVIDIA/TransformerEngine
///   transformer_engine/pytorch/module/linear.py: the wgrad GEMM's `out` is
///   `main_grad` with fusion, else a new tensor of `activation_dtype`).
/// - megatron/core/distributed/distributed_data_parallel.py registers
///   `_make_backward_post_hook` on each parameter's `AccumulateGrad`
///   (`grad_acc.register_hook`): once `AccumulateGrad` has put the gradient
///   in `.grad`, the hook adds it into the FP32 buffer
///   (`param.main_grad.add_(param.grad.data)`) and drops it (`param.grad =
///   None`). `AccumulateGrad` runs as soon as its input is ready (the largest
///   sequence number, [`gradients_beside_layers`]), so one product's 16-bit
///   gradient exists at a time, from its GEMM to the hook.
/// - megatron/training/arguments.py: `--no-gradient-accumulation-fusion` is
///   `action='store_false'`, `dest='gradient_accumulation_fusion'`: fused by
///   default.
///
/// The output layer's gradient, vocabulary × hidden / t (a decoder's head
/// on this rank), exists in the head's backward. A tied head's (the
/// embedding and head on one rank) waits in the shared weight's
/// `AccumulateGrad` input buffer until the embedding's backward, at the end
/// of the pass, adds its own (torch/csrc/autograd/input_buffer.cpp
/// `accumulate`): it is alive beside every layer's backward pass. A layer's
/// largest gradient ([`largest_layer_gradient`]) is counted beside its
/// transient set: an upper bound, as a product's gradient is freed by the
/// hook before the FFN activation's or the attention core's backward runs,
/// beside the product's own incoming and outgoing gradients, which this
/// takes to be no larger than that set.
pub fn unfused_gradients(input: &TransformerInput, ends: Ends) -> Option<UnfusedGradients> {
    if input.grad_accum_fusion
        || input.mode != Mode::Train
        || input.recipe != Recipe::MainFp32
        || input.lora()
    {
        return None;
    }
    let arch = &input.arch;
    let e = input.activation_bytes();
    let head = if ends.head && arch.kind == Kind::Decoder {
        e * div_ceil(
            u128::from(arch.vocab) * u128::from(arch.hidden),
            u128::from(input.tp),
        )
    } else {
        0
    };
    let tied = if arch.tied && ends.embedding { head } else { 0 };
    Some(UnfusedGradients {
        head,
        layers: tied + e * largest_layer_gradient(input),
    })
}

/// The largest weight gradient one of the layers' products returns at once,
/// in elements per GPU: of Megatron-Core's linear maps on the rank
/// ([`megatron_linears`]: `linear_qkv` one matrix, `linear_fc1` gate and up
/// as one), a MoE layer's local experts' first or second maps all at once,
/// as a grouped GEMM's backward returns them.
fn largest_layer_gradient(input: &TransformerInput) -> u128 {
    let layers_only = Ends {
        embedding: false,
        head: false,
    };
    megatron_linears(input, layers_only).largest_at_once()
}

/// What the output layer's backward holds above the layers per sample and
/// GPU, where it computes its weight's 16-bit gradient
/// ([`unfused_gradients`]): the final norm's and head's saved inputs and its
/// incoming gradient, the logits', handed over in the head's dtype (the
/// engine casts the vocab-parallel loss's FP32 gradient to the logits'
/// dtype, torch/csrc/autograd/engine.cpp `validate_outputs`, or the cast
/// node of PyTorch's loss does), the loss's other tensors freed before it
/// runs. Never more than the loss's moment ([`Saved::above`]). The gradient
/// of the head's input (`grad_input = grad_output.matmul(weight)`, e·s·h,
/// h/v of the logits') is not counted, as at the loss (docs/model.md §6).
/// Under a chunked or fused loss, whose head runs inside the loss chunk by
/// chunk, the loss's tensors at the start of the backward pass stand in
/// for it (an upper bound).
pub fn head_backward(input: &TransformerInput, saved: &Saved) -> u128 {
    let arch = &input.arch;
    match (arch.kind, input.loss) {
        (Kind::Decoder, Loss::Full | Loss::VocabParallel) => {
            let logits =
                input.activation_bytes() * u128::from(input.tokens()) * u128::from(arch.vocab);
            output_layer_inputs(input) + div_ceil(logits, u128::from(input.tp))
        }
        _ => saved.above,
    }
}

/// The two moments [`unfused_gradients`] adds to, as activations per
/// sample and GPU of the whole model: (a layer's backward pass, every
/// saved tensor with the layer in flight's transient set; the output
/// layer's backward, every saved tensor with [`head_backward`]'s).
pub fn unfused_moments(input: &TransformerInput) -> (u128, u128) {
    let saved = training_saved(input);
    let (kept, _, transient) = backward_start(input, &saved);
    (kept + transient, kept + head_backward(input, &saved))
}

/// Transformer Engine's dummy weight gradients under Megatron-LM's
/// gradient-accumulation fusion (`grad_accum_fusion=1`, its default), in
/// bytes per GPU on a rank holding `ends`: one 16-bit tensor per distinct
/// weight shape of the rank's linear maps, cached for the whole run and
/// alive from the first backward pass on. 0 where the fusion is off or
/// means nothing (the conditions of [`unfused_gradients`]). Megatron-LM's
/// own stack has Transformer Engine installed (NVIDIA's containers, and
/// the default spec builds its modules): `recipe=main_fp32` counts it.
///
/// - NVIDIA/Megatron-LM d98e8a64 megatron/core/tensor_parallel/layers.py
///   `LinearWithGradAccumulationAndAsyncCommunication.backward` (the output
///   layer's `ColumnParallelLinear`, tied or not: with a tied head it runs
///   with the embedding's weight, which has a `main_grad` too): with the
///   fusion, where the weight has `grad_added_to_main_grad` (which
///   megatron/core/distributed/distributed_data_parallel.py sets on every
///   parameter with a gradient), `grad_weight =
///   get_dummy_wgrad(list(weight.main_grad.shape), input.dtype)` under
///   `HAVE_TE`.
/// - NVIDIA/TransformerEngine d0067d0d transformer_engine/pytorch/module/
///   base.py `get_dummy_wgrad`: `_dummy_wgrads[(*shape, dtype)]`, a
///   module-level cache created by `torch.empty` at the first request and
///   never freed, returned as `.detach()`. linear.py (`TERowParallelLinear`,
///   `linear_proj`, `linear_fc2`), layernorm_linear.py
///   (`TELayerNormColumnParallelLinear`, `linear_qkv`, `linear_fc1`) and
///   grouped_linear.py (`TEGroupedLinear`, the experts, one call per
///   expert's weight, all of one shape) return it under
///   `fuse_wgrad_accumulation` with `grad_added_to_main_grad`;
///   layernorm_mlp.py returns a fresh `torch.empty`, and Megatron-Core's
///   default specs do not build it.
/// - PyTorch torch/csrc/autograd/functions/accumulate_grad.h
///   `accumulateGrad`: a new gradient whose `use_count()` is within the
///   expected references (the detached alias is its own tensor, its only
///   holder the engine) is stolen as `.grad` without a copy; the DDP hook
///   then sets `param.grad = None`. No other allocation.
///
/// The shapes, Megatron-Core's (`linear_qkv` one matrix, `linear_fc1` gate
/// and up as one, whatever `fused_proj` says of the checkpoint's code),
/// divided over the tensor-parallel ranks ([`megatron_linears`]): the
/// layers' and the output layer's. The embedding is no linear map (its
/// gradient is the embedding backward's own), and the MoE router's weight
/// goes through megatron/core/transformer/moe/moe_utils.py
/// `router_gating_linear`, whose backward returns a real gradient.
pub fn dummy_wgrads(input: &TransformerInput, ends: Ends) -> u128 {
    if !input.grad_accum_fusion
        || input.mode != Mode::Train
        || input.recipe != Recipe::MainFp32
        || input.lora()
    {
        return 0;
    }
    input.activation_bytes() * megatron_linears(input, ends).distinct_elements()
}

/// The model's output a training loop keeps (`outputs=kept`,
/// `kept_fp32`), per sample on this rank: one logit-sized tensor,
/// bytes × tokens × vocabulary / tp (the head's output is split over the
/// vocabulary-parallel ranks), alive at every moment of a step from the
/// second on. 0 elsewhere: in inference, without a decoder's head on this
/// rank, and with a loss other than `full` (torchtune's chunked and
/// Unsloth's fused losses never materialise the full logits; Megatron-Core's
/// model returns the per-token loss, not the logits).
///
/// - huggingface/transformers src/transformers/models/llama/
///   modeling_llama.py `LlamaForCausalLM.forward`: `logits =
///   self.lm_head(hidden_states[:, slice_indices, :])`, every position in
///   training (`logits_to_keep=0`), in the head's compute dtype, returned as
///   `CausalLMOutputWithPast(loss=loss, logits=logits, …)`;
///   src/transformers/loss/loss_utils.py `ForCausalLMLoss` upcasts its own
///   local (`logits = logits.float()`). Up to v4.45 the forward itself did
///   `logits = self.lm_head(…).float()` ("Starting from v4.46, the `logits`
///   model output will have the same type as the model"): `kept_fp32`.
/// - The name `outputs` holds the ModelOutput, and with it the logits,
///   through `loss.backward()` and the optimizer step; the next
///   iteration's `outputs = model(**batch)` rebinds it only once that
///   forward pass (and a loss computed inside it) has returned. Under
///   gradient accumulation each micro-batch rebinds it: one micro-batch's.
pub fn kept_outputs(input: &TransformerInput, ends: Ends) -> u128 {
    let bytes = match input.outputs {
        Outputs::Dropped => return 0,
        Outputs::Kept => input.activation_bytes(),
        Outputs::KeptFp32 => 4,
    };
    if input.mode != Mode::Train
        || input.arch.kind != Kind::Decoder
        || input.loss != Loss::Full
        || !ends.head
    {
        return 0;
    }
    div_ceil(
        bytes * u128::from(input.tokens()) * u128::from(input.arch.vocab),
        u128::from(input.tp.max(1)),
    )
}

/// One rank's linear maps as Megatron-Core lays them out, each as (rows,
/// columns, how many of that shape one backward returns at once: a grouped
/// GEMM's local experts, else 1), in place: a rank has at most twelve kinds
/// (MLA's four projections and the output projection, two per MLP for
/// dense, routed and shared experts, the head), and sorting a list of them
/// cost the page 2.8 KB of gzipped WebAssembly.
#[derive(Clone, Copy, Debug, Default)]
struct MegatronLinears {
    maps: [(u128, u128, u128); 12],
    len: usize,
}

impl MegatronLinears {
    /// Adds a kind of map unless it is already there.
    fn insert(&mut self, map: (u128, u128, u128)) {
        if !self.maps[..self.len].contains(&map) && self.len < self.maps.len() {
            self.maps[self.len] = map;
            self.len += 1;
        }
    }

    /// Elements over the distinct shapes (rows, columns).
    fn distinct_elements(&self) -> u128 {
        let maps = &self.maps[..self.len];
        maps.iter()
            .enumerate()
            .filter(|&(i, (rows, cols, _))| {
                !maps[..i].iter().any(|(r, c, _)| (r, c) == (rows, cols))
            })
            .map(|(_, (rows, cols, _))| rows * cols)
            .sum()
    }

    /// Elements of the largest set of gradients one backward returns.
    fn largest_at_once(&self) -> u128 {
        self.maps[..self.len]
            .iter()
            .map(|(rows, cols, at_once)| rows * cols * at_once)
            .max()
            .unwrap_or(0)
    }
}

/// The linear maps per GPU on a rank holding `ends` whose backward returns a
/// weight gradient: Megatron-Core's modules (megatron/core/models/gpt/
/// gpt_layer_specs.py: `linear_qkv` one matrix, `linear_fc1` gate and up as
/// one under `gated_linear_unit`, whatever `fused_proj` says of the
/// checkpoint's code; megatron/core/transformer/multi_latent_attention.py
/// `MLASelfAttention`: the down projections `parallel_mode='duplicated'`,
/// whole on every rank; the experts of a grouped GEMM, all local ones at
/// once; the output layer on the head's rank). The embedding is no linear
/// map, and the router's weight is not among them
/// (megatron/core/transformer/moe/moe_utils.py `router_gating_linear`).
fn megatron_linears(input: &TransformerInput, ends: Ends) -> MegatronLinears {
    let arch = &input.arch;
    let h = u128::from(arch.hidden);
    let t = u128::from(input.tp.max(1));
    let split = |rows: u128| div_ceil(rows, t);
    let widths = arch.attention_widths();
    let mut maps = MegatronLinears::default();
    if arch.layers > 0 {
        if arch.mla() {
            let (ql, kvl) = (u128::from(arch.q_lora_rank), u128::from(arch.kv_lora_rank));
            let nope = u128::from(arch.heads) * u128::from(arch.qk_nope_head_dim);
            if ql > 0 {
                maps.insert((ql, h, 1));
                maps.insert((split(widths.q), ql, 1));
            } else {
                maps.insert((split(widths.q), h, 1));
            }
            maps.insert((kvl + u128::from(arch.qk_rope_head_dim), h, 1));
            maps.insert((split(nope + widths.v), kvl, 1));
        } else {
            maps.insert((split(widths.q + widths.k + widths.v), h, 1));
        }
        maps.insert((h, split(widths.output), 1));
    }
    // `linear_fc1` (gate and up as one where gated) and `linear_fc2`, over
    // `ranks`, `at_once` of each.
    let mlp = |maps: &mut MegatronLinears, width: u64, ranks: u128, at_once: u128| {
        let f = div_ceil(u128::from(width), ranks);
        let into = match arch.mlp {
            Mlp::Gelu | Mlp::GeluNew => 1,
            Mlp::Swiglu => 2,
        };
        maps.insert((into * f, h, at_once));
        maps.insert((h, f, at_once));
    };
    if arch.dense_layers() > 0 {
        mlp(&mut maps, arch.ffn, t, 1);
    }
    if arch.moe_layers() > 0 {
        let local = u128::from(arch.experts).div_ceil(u128::from(input.ep.max(1)));
        mlp(
            &mut maps,
            arch.expert_width(),
            u128::from(input.expert_tp()),
            local,
        );
        if arch.shared_width() > 0 {
            mlp(&mut maps, arch.shared_width(), t, 1);
        }
    }
    if ends.head && arch.kind == Kind::Decoder {
        maps.insert((split(u128::from(arch.vocab)), h, 1));
    }
    maps
}

/// Training whose gradients stay in autograd's `.grad` as the backward pass
/// creates them, to be stepped after it: no LoRA, no step in the backward
/// pass, no ZeRO-2 or FSDP2 reduction of each gradient as it is made, no
/// parameter offload, no pipeline ([`gradients_beside_layers`]).
fn gradients_stay_in_grad(input: &TransformerInput) -> bool {
    input.mode == Mode::Train
        && !input.lora()
        && input.effective_step() != Step::InBackward
        && input.zero_stage() < 2
        && input.recipe != Recipe::Fsdp
        && !input.param_offload
        && input.pp <= 1
}

/// What the embedding's backward, the last node of the backward pass, holds
/// beside every gradient, per GPU: (bytes, bytes per sample). Its incoming
/// gradient, the residual stream's ([`residual_gradient`]), and with a tied
/// head the embedding's own dense gradient: aten
/// `embedding_dense_backward` writes a vocab × hidden gradient (in the
/// incoming gradient's dtype, the gradients' bytes), which the engine adds
/// into the input buffer that has held the head's gradient for the same
/// weight since the head's backward (torch/csrc/autograd/input_buffer.cpp
/// `accumulate`: `old_var.add_(var)`), both alive until the addition
/// returns and `AccumulateGrad` steals the sum. An untied embedding's
/// gradient is stolen into `.grad` itself (counted with the gradients); a
/// ViT's patch convolution does not compute its input's gradient. (0, 0)
/// where the gradients do not stay in `.grad` ([`gradients_stay_in_grad`]);
/// `memory` counts it only where the gradients are not held with the
/// activations.
pub fn embedding_backward(input: &TransformerInput) -> (u128, u128) {
    if !gradients_stay_in_grad(input) {
        return (0, 0);
    }
    let arch = &input.arch;
    let tied = if arch.tied && arch.kind == Kind::Decoder {
        let matrix = u128::from(arch.vocab) * u128::from(arch.hidden);
        gradient_bytes(input) * div_ceil(matrix, u128::from(input.tp))
    } else {
        0
    };
    (tied, residual_gradient(input))
}

/// The two candidates of [`backward_working`]'s largest set, per sample and
/// GPU: the FFN activation's and the attention core's.
fn working_sets(input: &TransformerInput, ffn: Ffn) -> (u128, u128) {
    let arch = &input.arch;
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let t = u128::from(input.tp);
    let a = u128::from(arch.heads);
    let widths = arch.attention_widths();
    let unit = ffn_backward_bytes(input, e);
    let mlp = match ffn {
        Ffn::Dense => div_ceil(s * unit * u128::from(arch.ffn), t),
        Ffn::Moe => div_ceil(
            input.routed_copies() * unit * u128::from(arch.expert_width()),
            u128::from(input.expert_tp()),
        )
        .max(div_ceil(s * unit * u128::from(arch.shared_width()), t)),
    };
    let attention = match input.kernel() {
        Attention::Eager => {
            let softmax = if input.autocast() && !input.compiled() {
                4
            } else {
                e
            };
            div_ceil(2 * softmax * a * s * s, t)
        }
        Attention::Flash => div_ceil(s * e * (widths.output + widths.q + widths.k + widths.v), t),
    };
    (mlp, attention)
}

/// Which of a layer's pre-norms are modules of their own that Megatron-Core's
/// `layernorm` recomputation can wrap (transformer_layer.py `__init__`:
/// `recompute_input_layernorm` / `recompute_pre_mlp_layernorm` only where
/// the norm is not an `IdentityOp`). Its Transformer Engine spec
/// (models/gpt/gpt_layer_specs.py
/// `get_gpt_layer_with_transformer_engine_submodules`), which
/// `norm_kernel=fused` describes, folds the input norm into
/// `linear_qkv` (`column_parallel_layer_norm_linear`) and a dense MLP's norm
/// into `linear_fc1`, and keeps `pre_mlp_layernorm` for a MoE layer only;
/// the local spec (`get_gpt_layer_local_submodules`) has both as modules.
fn wrapped_norms(input: &TransformerInput, ffn: Ffn) -> u128 {
    match (input.norm_kernel, ffn) {
        (NormKernel::Fused, Ffn::Dense) => 0,
        (NormKernel::Fused, Ffn::Moe) => 1,
        (NormKernel::Eager, _) => 2,
    }
}

/// One layer's saved tensors under `recompute=selective` with Megatron-Core's
/// `--recompute-modules` other than the default, per sample and GPU, and the
/// largest set one recomputed module holds during the layer's backward
/// pass. A module under `tensor_parallel.checkpoint` (`CheckpointFunction`,
/// megatron/core/tensor_parallel/random.py: `ctx.save_for_backward(*args)`,
/// the forward under `torch.no_grad()`) keeps its input and none of its
/// internals; one under `CheckpointWithoutOutput` (random.py:
/// `discard_output_and_register_recompute` frees the output's storage
/// after the next module has saved it, and recomputes it in a hook of that
/// module's gradient) keeps its input and not even its output:
///
/// - `core_attn` (transformer/attention.py `_checkpointed_attention_forward`):
///   the seq × seq scores, as [`LayerActivations::per_rank`] without them;
///   without it the scores stay;
/// - `mlp` (transformer_layer.py `_forward_mlp`, `tensor_parallel.checkpoint`
///   of `self.mlp`, dense layers only): the MLP's intermediates
///   ([`ffn_saved`]); its input, the norm's output, stays counted;
/// - `layernorm` (transformer_layer.py `_run_input_layernorm` and the
///   pre-MLP norm, `CheckpointWithoutOutput`): each wrapped norm
///   ([`wrapped_norms`]) keeps only its input, the residual stream, and the
///   projections' input it writes is freed;
/// - `moe_act` (transformer/moe/experts.py `TEGroupedMLP.forward`,
///   `activation_recompute`: `CheckpointWithoutOutput` of `bias_act_func`,
///   its output discarded after `linear_fc2`): the routed experts keep
///   their first map's output (gate and up for a gated MLP) and not the
///   activation's output, the second map's input;
/// - `moe` (transformer/moe/moe_layer.py `MoELayer.forward`,
///   `moe_layer_recompute`: the MoE layer under `tensor_parallel.checkpoint`): the router's, the
///   routed and the shared experts' tensors ([`moe_saved`]);
/// - `shared_experts` (transformer/moe/moe_layer.py `shared_experts_recompute`:
///   `tensor_parallel.checkpoint` of the shared experts): their intermediates.
///
/// The recomputed modules run one at a time in the backward pass; the
/// largest one's recomputed set is alive with the layer's working tensors.
/// The attention core's recomputed scores are not counted, as batchfit's
/// `selective` never counted them.
/// Kept out of line: the default set never reaches it ([`training_saved`]
/// returns early), and the estimate's common path stays as small as it was.
#[inline(never)]
fn selective_kept(input: &TransformerInput, ffn: Ffn, layer: &LayerActivations) -> (u128, u128) {
    let modules = input.recompute_modules;
    let scores = !modules.contains(RecomputeModules::CORE_ATTN);
    let arch = &input.arch;
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let h = u128::from(arch.hidden);
    let none = LayerActivations::default();
    let mut kept = *layer;
    // The largest recomputed module's set, per rank.
    let mut recomputed = 0;
    // A module's tensors, no longer kept, of which `rerun` are recomputed
    // at once in the backward pass.
    let mut free =
        |kept: &mut LayerActivations, freed: LayerActivations, rerun: LayerActivations| {
            kept.replicated = kept.replicated.saturating_sub(freed.replicated);
            kept.split = kept.split.saturating_sub(freed.split);
            kept.experts = kept.experts.saturating_sub(freed.experts);
            recomputed = recomputed.max(rerun.per_rank(input, false));
        };
    let norms = wrapped_norms(input, ffn);
    if modules.contains(RecomputeModules::LAYERNORM) && arch.block == Block::Pre && norms > 0 {
        let te = input.fp8 == Fp8::Te && input.mode == Mode::Train;
        let linear_input = if te { 1 } else { e };
        let norm = norm_saved_bytes(input).saturating_sub(input.residual_bytes());
        // One norm's set; the norms are recomputed one at a time, each
        // before its block's backward pass.
        let one = LayerActivations {
            replicated: s * h * (norm + linear_input),
            ..none
        };
        let all = LayerActivations {
            replicated: norms * one.replicated,
            ..none
        };
        free(&mut kept, all, one);
    }
    match ffn {
        Ffn::Dense if modules.contains(RecomputeModules::MLP) => {
            let split = s * ffn_saved(input, e, u128::from(arch.ffn));
            let mlp = LayerActivations { split, ..none };
            free(&mut kept, mlp, mlp);
        }
        Ffn::Dense => {}
        Ffn::Moe if modules.contains(RecomputeModules::MOE) => {
            let (replicated, split, experts) = moe_saved(input);
            let moe = LayerActivations {
                replicated,
                split,
                experts,
                scores: 0,
            };
            free(&mut kept, moe, moe);
        }
        Ffn::Moe => {
            if modules.contains(RecomputeModules::SHARED_EXPERTS) {
                let split = s * ffn_saved(input, e, u128::from(arch.shared_width()));
                let shared = LayerActivations { split, ..none };
                free(&mut kept, shared, shared);
            }
            if modules.contains(RecomputeModules::MOE_ACT) {
                let width = u128::from(arch.expert_width());
                let first_map = match arch.mlp {
                    Mlp::Swiglu => 2,
                    Mlp::Gelu | Mlp::GeluNew => 1,
                };
                let experts = input.routed_copies()
                    * ffn_saved(input, e, width).saturating_sub(first_map * e * width);
                let act = LayerActivations { experts, ..none };
                free(&mut kept, act, act);
            }
        }
    }
    (kept.per_rank(input, scores), recomputed)
}

/// What one block keeps per sample and GPU under torchtitan's per-operator
/// selective recomputation (`recompute=op`;
/// torchtitan/distributed/activation_checkpoint.py `SelectiveAC`): the
/// checkpointed block's input, and the outputs of the operators its policy
/// must save. Those are the compute-intensive operators (torch's
/// partitioner's `get_default_op_list().compute_intensive_ops`: matrix
/// products, attention) except every second `aten.mm`/`aten.linear`, counted
/// per block in forward order; a linear map with a bias runs as `aten.addmm`
/// (aten/src/ATen/native/Linear.cpp), which is saved and not counted. In a
/// Llama block without biases the products are wq, wk, wv, wo, w1 (gate), w3
/// (up), w2 (down): wq, wv, w1 and w2 are saved. Attention saves its output
/// and its FP32 log-sum-exp (flash), or its output and the softmax weights
/// (`_scaled_dot_product_attention_math`). Dropout masks and norms are
/// recomputed.
fn op_saved(input: &TransformerInput) -> u128 {
    let arch = &input.arch;
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let t = u128::from(input.tp);
    let h = u128::from(arch.hidden);
    let a = u128::from(arch.heads);
    let q = a * u128::from(arch.head_size());
    let kv = u128::from(arch.kv_heads) * u128::from(arch.head_size());
    let f = u128::from(arch.ffn);
    let qkv_bias = arch.bias || arch.qkv_bias;
    // (output width, has a bias, split by tensor parallelism), forward order.
    let mut products = vec![
        (q, qkv_bias, true),
        (kv, qkv_bias, true),
        (kv, qkv_bias, true),
        (h, arch.bias, false),
    ];
    if arch.mlp == Mlp::Swiglu {
        products.push((f, arch.bias, true));
    }
    products.extend([(f, arch.bias, true), (h, arch.bias, false)]);
    let (mut counted, mut split, mut replicated) = (0u32, 0u128, 0u128);
    for (width, bias, is_split) in products {
        let saved = bias || {
            counted += 1;
            counted % 2 == 1
        };
        if saved {
            if is_split {
                split += width;
            } else {
                replicated += width;
            }
        }
    }
    let attention = match input.kernel() {
        Attention::Flash => s * (e * q + 4 * a),
        Attention::Eager => s * e * q + e * a * s * s,
    };
    let input_bytes = s * input.residual_bytes() * h;
    let replicated = input_bytes + s * e * replicated;
    let replicated = if input.sp {
        div_ceil(replicated, t)
    } else {
        replicated
    };
    replicated + div_ceil(s * e * split + attention, t)
}

/// What one block's LoRA branches save for the backward pass, per sample
/// (peft/tuners/lora/layer.py `Linear.forward`: `x =
/// self._cast_input_dtype(x, lora_A.weight.dtype)`, then `result +
/// lora_B(lora_A(dropout(x))) * scaling`). Per targeted map: lora_A's input,
/// which is a copy of x only when something converts it (the FP32 cast over
/// a 16-bit base, autocast's 16-bit cast, or the dropout's output with its
/// 1-byte mask); and lora_A's output x·A (r values), lora_B's input. The base
/// map's own saved input is counted with the layer as before: whether
/// autograd skips it for a frozen weight is not encoded.
fn lora_saved(input: &TransformerInput, ffn: Ffn) -> u128 {
    // Unsloth's LoRA kernels (unsloth/kernels/fast_lora.py `LoRA_QKV`,
    // `LoRA_MLP`, `LoRA_W`) save the maps' input X and the adapters only,
    // in X's dtype (`matmul_lora` casts A and B to it): x·A is recomputed in
    // the backward pass. They run for every adapted map unless the targets
    // are q and v alone, which `patch_peft_model` leaves to PEFT.
    if !input.lora() || (input.unsloth_kernels() && input.lora_targets != LoraTargets::Qv) {
        return 0;
    }
    let blocks = AdapterBlocks::of(input);
    let autocast = input.autocast();
    // Under autocast the adapters' products compute in 16 bits.
    let adapter_bytes = if autocast { 2 } else { 4 };
    let x_copy = if input.lora_dropout {
        adapter_bytes + 1
    } else if autocast || input.activation_bytes() == 2 {
        adapter_bytes
    } else {
        0
    };
    let r = u128::from(input.lora_rank);
    // DoRA's output `(m/‖W + sBA‖ − 1) · base_result + m/‖W + sBA‖ · lora_result
    // · scaling`: the products save the base map's output (in the input's
    // dtype) and the adapter branch's (in the adapters') for the magnitude's
    // gradient (peft/tuners/lora/dora.py `DoraLinearLayer.forward`).
    let dora = match input.lora_variant {
        LoraVariant::Dora => input.activation_bytes() + adapter_bytes,
        LoraVariant::Lora => 0,
    };
    blocks.per_layer(input, ffn, |b| {
        x_copy * b.inputs_per_token + adapter_bytes * r * b.maps + dora * b.outputs_per_token
    })
}

/// The part of [`activations_per_sample`] in training that the layers save,
/// one layer's share after another in the forward pass: all of it less what
/// the same configuration keeps with no layers (the embedding's and output
/// layer's terms, and the larger of the loss's tensors and a recomputed
/// layer's set). 0 in inference, which keeps nothing between layers.
pub fn layer_activations_per_sample(input: &TransformerInput) -> u128 {
    activations_and_layers_per_sample(input).1
}

/// [`activations_per_sample`] and [`layer_activations_per_sample`] together,
/// the first computed once (the estimate needs both).
pub fn activations_and_layers_per_sample(input: &TransformerInput) -> (u128, u128) {
    let all = activations_per_sample(input);
    if input.mode != Mode::Train {
        return (all, 0);
    }
    let mut none = *input;
    none.arch.layers = 0;
    (all, all.saturating_sub(activations_per_sample(&none)))
}

/// Activation bytes one sample keeps alive per GPU at the peak of training (the
/// start of the backward pass), or in inference the larger of the prefill's
/// transient activations and a quantized cache's dequantized copies.
pub fn activations_per_sample(input: &TransformerInput) -> u128 {
    match input.mode {
        Mode::Train => training_activations(input),
        // The prefill's temporaries, or a quantized cache's dequantized
        // copy of one layer when the last token attends: the larger.
        Mode::Inference => prefill_activations(input).max(kv_dequantized_per_sample(input)),
    }
}

/// The activations one sample keeps in CPU memory with `act_offload`: what
/// the GPU would hold without offloading minus what it holds with it.
pub fn offloaded_activations_per_sample(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train || !input.act_offload {
        return 0;
    }
    let kept = TransformerInput {
        act_offload: false,
        ..*input
    };
    training_activations(&kept) - training_activations(input)
}

/// Where a model's MoE layers are ([`Architecture::moe_layers`]' rule):
/// layer i (from 0) is one when i ≥ `first_dense` and (i + 1) is a
/// multiple of `every`; none in a dense model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoePlacement {
    moe: bool,
    first_dense: u64,
    every: u64,
}

impl MoePlacement {
    /// MoE layers among the layers `from..to`. Among the first x there are
    /// as many as multiples of `every` in (min(first_dense, x), x]:
    /// ⌊x/every⌋ − ⌊min(first_dense, x)/every⌋.
    pub fn between(self, from: u64, to: u64) -> u64 {
        if !self.moe {
            return 0;
        }
        let every = self.every.max(1);
        let before = |x: u64| x / every - self.first_dense.min(x) / every;
        before(to).saturating_sub(before(from.min(to)))
    }
}

/// A run of consecutive layers of the model, `first..end` by index from 0:
/// a pipeline rank's model chunk, or every layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: u64,
    pub end: u64,
}

impl Span {
    /// Every layer of `arch`.
    pub const fn all(arch: &Architecture) -> Self {
        Self {
            first: 0,
            end: arch.layers,
        }
    }

    pub const fn layers(self) -> u64 {
        self.end.saturating_sub(self.first)
    }
}

/// What training saves per sample and GPU, by where it sits: per layer, below
/// the layers (the embedding's side) and above them (the final norm, head and
/// loss), and the buffers of the layer in flight. [`training_activations`]
/// adds them for the whole model; a pipeline stage takes its layers' and
/// ends' share (`memory`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Saved {
    /// One dense layer's and one MoE layer's saved tensors.
    pub dense: u128,
    pub moe: u128,
    /// What a recomputed dense (MoE) layer holds in the backward pass: its
    /// full set (0 without full or per-op recomputation).
    pub recomputed_dense: u128,
    pub recomputed_moe: u128,
    /// The backward pass's working tensors of a dense (MoE) layer
    /// ([`backward_working`]), and the residual stream's gradient among them.
    pub working_dense: u128,
    pub working_moe: u128,
    pub residual_gradient: u128,
    /// Expert parallelism's all-to-all buffers of the MoE layer in flight.
    pub dispatch: u128,
    /// Context parallelism's buffers while a layer's attention runs its
    /// backward pass, and its forward pass.
    pub context_backward: u128,
    pub context_forward: u128,
    /// Below the layers: alive until the backward pass ends.
    pub below: u128,
    /// Above the layers at the start of the backward pass (freed before the
    /// backward pass reaches the layers), and what another micro-batch's
    /// forward pass leaves of them until its own backward pass.
    pub above: u128,
    pub above_saved: u128,
    /// Above the layers at the end of the forward pass, the loss computed
    /// (PyTorch's cross-entropy: the 16-bit logits, their FP32 copy and the
    /// log-softmax; the other losses as at the start of the backward pass).
    /// Computed under autocast with full recomputation, where that end is a
    /// moment of its own; `above` elsewhere.
    pub above_forward: u128,
    /// Full recomputation of some layers or of groups of layers
    /// ([`TransformerInput::partial_recompute`]); `None` when each layer is
    /// its own checkpoint or none is.
    pub partial: Option<(RecomputeMethod, u64)>,
    /// Which of the model's layers are MoE layers: a partial plan's units
    /// hold the full sets of the layers they are made of.
    pub placement: MoePlacement,
    /// What a reentrant checkpoint's backward holds beside its recomputed
    /// set: the rerun's output, one residual-stream tensor (0 for the
    /// non-reentrant kind, or without full recomputation).
    pub reentrant_output: u128,
}

/// One checkpoint of a partially recomputed chunk, or one layer outside
/// any: what it keeps until its backward pass, and what its recomputation
/// holds then (0 for a layer that is not recomputed).
#[derive(Clone, Copy)]
struct Unit {
    layers: u64,
    kept: u128,
    recomputed: u128,
}

impl Saved {
    /// Dense and MoE layers among `span`.
    fn kinds(&self, span: Span) -> (u64, u64) {
        let moe = self.placement.between(span.first, span.end);
        (span.layers() - moe, moe)
    }

    /// The largest transient set of a layer's backward pass in a chunk of
    /// these layers: a recomputed layer with the backward pass's working
    /// tensors, its all-to-all and its context-parallel buffers.
    pub fn layer_transient(&self, span: Span) -> u128 {
        let (dense_layers, moe_layers) = self.kinds(span);
        let recomputed = |layers: u64, bytes: u128| if layers > 0 { bytes } else { 0 };
        // The backward pass's working tensors beside the largest layer's
        // set: a recomputed layer's, or a partial plan's largest extra.
        let recomputing = match self.partial {
            None => recomputed(
                dense_layers,
                self.recomputed_dense + self.reentrant_output + self.working_dense,
            )
            .max(recomputed(
                moe_layers,
                self.recomputed_moe + self.reentrant_output + self.working_moe,
            )),
            Some(plan) => self.partial_transient(plan, span) + self.working(span),
        };
        recomputing + self.beside_a_layer(span)
    }

    /// The backward pass's largest working set in a chunk of these layers.
    fn working(&self, span: Span) -> u128 {
        let (dense_layers, moe_layers) = self.kinds(span);
        let one = |layers: u64, bytes: u128| if layers > 0 { bytes } else { 0 };
        one(dense_layers, self.working_dense).max(one(moe_layers, self.working_moe))
    }

    /// Alive beside a layer's backward pass: its all-to-all and its
    /// context-parallel buffers.
    fn beside_a_layer(&self, span: Span) -> u128 {
        let (dense_layers, moe_layers) = self.kinds(span);
        let one = |layers: u64, bytes: u128| if layers > 0 { bytes } else { 0 };
        one(moe_layers, self.dispatch) + one(dense_layers + moe_layers, self.context_backward)
    }

    /// The layers' saved tensors of one micro-batch.
    pub fn layers(&self, span: Span) -> u128 {
        match self.partial {
            None => {
                let (dense_layers, moe_layers) = self.kinds(span);
                u128::from(dense_layers) * self.dense + u128::from(moe_layers) * self.moe
            }
            Some(plan) => self.units(plan, span).map(|unit| unit.kept).sum(),
        }
    }

    /// The most one of these layers keeps between its forward and its
    /// backward pass: under partial recomputation the largest unit's (a
    /// checkpoint's input, or the full set of a layer outside the
    /// checkpoints).
    fn largest_kept(&self, span: Span) -> u128 {
        match self.partial {
            Some(plan) => self
                .units(plan, span)
                .map(|unit| unit.kept)
                .max()
                .unwrap_or(0),
            None => {
                let (dense_layers, moe_layers) = self.kinds(span);
                let one = |layers: u64, bytes: u128| if layers > 0 { bytes } else { 0 };
                one(dense_layers, self.dense).max(one(moe_layers, self.moe))
            }
        }
    }

    /// A chunk's checkpoints and unrecomputed layers from its first layer,
    /// each layer dense or MoE where the model places it
    /// ([`MoePlacement`]): Megatron-Core's `_checkpointed_forward`
    /// (megatron/core/transformer/transformer_block.py) counts `l` from 0
    /// over the chunk's own `self.layers` and, under `uniform`, checkpoints
    /// `self.layers[l : l + recompute_num_layers]` as they are built. Under
    /// full recomputation a layer's input is the same for both kinds
    /// (`dense` = `moe`); a layer's full set is `recomputed_*`.
    fn units(
        &self,
        (method, n): (RecomputeMethod, u64),
        span: Span,
    ) -> impl DoubleEndedIterator<Item = Unit> + '_ {
        let n = n.max(1);
        let full = move |from: u64, to: u64| {
            let moe = self.placement.between(span.first + from, span.first + to);
            u128::from(to - from - moe) * self.recomputed_dense
                + u128::from(moe) * self.recomputed_moe
        };
        // A uniform group of n layers is one unit; otherwise each layer is.
        let size = if method == RecomputeMethod::Uniform {
            n
        } else {
            1
        };
        let layers = span.layers();
        (0..layers.div_ceil(size)).map(move |unit| {
            let from = unit * size;
            let to = (from + size).min(layers);
            if method.checkpoints(from, n) {
                Unit {
                    layers: to - from,
                    kept: self.dense,
                    recomputed: full(from, to) + self.reentrant_output,
                }
            } else {
                Unit {
                    layers: to - from,
                    kept: full(from, to),
                    recomputed: 0,
                }
            }
        })
    }

    /// What the first k layers of a chunk keep, for k = 0 … its layers,
    /// under a partial plan (a checkpoint's input counted from its first
    /// layer); `None` when the layers keep equal shares.
    pub fn kept_through(&self, span: Span) -> Option<Vec<u128>> {
        let plan = self.partial?;
        let mut through = vec![0];
        let mut kept = 0;
        for unit in self.units(plan, span) {
            kept += unit.kept;
            through.extend((0..unit.layers).map(|_| kept));
        }
        Some(through)
    }

    /// The recomputation's transient beyond the layers' saved tensors, for a
    /// partial plan: the backward pass reaches a checkpoint after the units
    /// above it have freed what they kept, and holds its input and the
    /// full sets of its layers; the largest excess over every unit.
    fn partial_transient(&self, plan: (RecomputeMethod, u64), span: Span) -> u128 {
        let mut freed: u128 = 0;
        let mut largest: u128 = 0;
        for unit in self.units(plan, span).rev() {
            largest = largest.max(unit.recomputed.saturating_sub(freed));
            freed += unit.kept;
        }
        largest
    }

    /// The layers' bytes on the GPU during the backward pass of a partial
    /// plan under activation offloading: one unit at a time, brought back
    /// (its input, or a layer's full set), recomputed when it is a
    /// checkpoint, with the working tensors and the buffers of
    /// [`Self::layer_transient`].
    fn offloaded_partial(&self, plan: (RecomputeMethod, u64), span: Span) -> u128 {
        let one_unit = self
            .units(plan, span)
            .map(|unit| unit.kept + unit.recomputed)
            .max()
            .unwrap_or(0);
        one_unit + self.working(span) + self.beside_a_layer(span)
    }
}

/// Context parallelism's buffers per sample and GPU, in the backward and the
/// forward pass of one layer's attention. Ring attention (Transformer Engine
/// transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py
/// `AttnFuncWithCPAndKVP2P`): the forward pass keeps every K/V block it
/// receives in `p2p_comm_buffers` until the attention ends (cp blocks of the
/// rank's K and V, the whole sequence's); the backward pass allocates two
/// buffers of K, V and their gradients (`torch.empty((2, *kv.shape))` twice).
/// DeepSpeed-Ulysses (deepspeed/sequence/layer.py `DistributedAttention`):
/// the all-to-alls' outputs of Q, K and V beside their inputs, in each pass
/// (the output's all-to-all is smaller). The attention's saved tensors and
/// its log-sum-exp are the layer's own, over the rank's tokens.
fn context_buffers(input: &TransformerInput) -> (u128, u128) {
    if input.cp <= 1 {
        return (0, 0);
    }
    let widths = input.arch.attention_widths();
    let t = u128::from(input.tp);
    let local = u128::from(input.tokens()) * input.activation_bytes();
    match input.cp_kind {
        CpKind::Ring => {
            let kv = local * (widths.k + widths.v);
            (div_ceil(4 * kv, t), div_ceil(u128::from(input.cp) * kv, t))
        }
        CpKind::Ulysses => {
            let qkv = div_ceil(local * (widths.q + widths.k + widths.v), t);
            (qkv, qkv)
        }
    }
}

/// A decoder's final norm input and head input per sample and GPU, kept
/// from the forward pass to their backward. The fused loss reads the final
/// norm's output in its own forward pass and needs it no more: no head
/// input is kept.
fn output_layer_inputs(input: &TransformerInput) -> u128 {
    let t = u128::from(input.tp);
    let head_input = if input.loss == Loss::Fused {
        0
    } else {
        input.activation_bytes()
    };
    let bytes = u128::from(input.tokens())
        * (norm_saved_bytes(input) + head_input)
        * u128::from(input.arch.hidden);
    if input.sp { div_ceil(bytes, t) } else { bytes }
}

/// [`Saved`] for `input`.
pub fn training_saved(input: &TransformerInput) -> Saved {
    let arch = &input.arch;
    let (dense, moe) = (
        layer_activations(input, Ffn::Dense),
        layer_activations(input, Ffn::Moe),
    );
    let t = u128::from(input.tp);
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let r = input.residual_bytes();
    let norm = norm_saved_bytes(input);
    let h = u128::from(arch.hidden);
    let sp_split = |bytes: u128| if input.sp { div_ceil(bytes, t) } else { bytes };

    // Per layer, by recomputation.
    let per_layer = |layer: &LayerActivations, ffn: Ffn| match input.recompute {
        Recompute::None => layer.per_rank(input, true),
        // Korthikanti §4.2: recompute the attention core (the s² terms)
        // only, or Megatron-Core's `--recompute-modules`.
        Recompute::Selective if input.recompute_modules == RecomputeModules::default() => {
            layer.per_rank(input, false)
        }
        Recompute::Selective => selective_kept(input, ffn, layer).0,
        // Korthikanti §4.1 end: full recomputation keeps each layer's input (2sbh
        // per layer at 16-bit; the residual stream, FP32 under autocast).
        Recompute::Full => sp_split(s * r * h),
        Recompute::Op => op_saved(input),
    };
    // The layer being recomputed holds its full set in the backward pass
    // (torch/utils/checkpoint.py: the saved-tensor hooks rerun the layer's
    // forward when the backward pass first unpacks one of its tensors).
    let recomputed = |layer: &LayerActivations, ffn: Ffn| match input.recompute {
        Recompute::Full | Recompute::Op => layer.per_rank(input, true),
        Recompute::Selective if input.recompute_modules != RecomputeModules::default() => {
            selective_kept(input, ffn, layer).1
        }
        Recompute::None | Recompute::Selective => 0,
    };
    // Expert parallelism's all-to-all (Megatron-Core
    // megatron/core/transformer/moe/token_dispatcher.py
    // `MoEAlltoAllTokenDispatcher`; torchtitan's `ExpertParallel`): a MoE
    // layer sends its permuted top-k copies of every token (e × h each) and
    // receives as many for its local experts (balanced routing). The
    // received tokens are the experts' inputs, counted with the layer; the
    // send and receive buffers of the layer in flight are alive together
    // while it dispatches, in the forward pass and again for the gradients
    // in the backward pass, after the loss's tensors are freed.
    let dispatch = if input.ep > 1 && arch.moe() {
        2 * input.routed_copies() * e * h
    } else {
        0
    };
    let (context_backward, context_forward) = context_buffers(input);

    // Korthikanti §4.3 (input and output layers). The embedding's dropout mask
    // is offloaded with the layers' tensors; torchtune's
    // get_act_offloading_ctx_manager wraps the output projection in a
    // NoOpManager, so the final norm input, the head input and the logits stay.
    let embedding_dropout = if input.act_offload {
        0
    } else {
        sp_split(s * u128::from(arch.dropout) * h)
    };
    // Korthikanti §4.3's terms outside the layers, by where they sit: below the
    // layers (alive until the backward pass ends) or above them (freed before
    // the backward pass reaches the layers).
    let (below, above, above_saved, above_forward) = match arch.kind {
        // Final norm input (the residual stream) and LM head input (2sbh each
        // at 16-bit), and the
        // loss's logit-sized tensors at the start of the backward pass, split
        // over the vocabulary-parallel ranks.
        Kind::Decoder => {
            let v = u128::from(arch.vocab);
            // Bytes per logit: `.float()` before the loss (FP32) or not.
            let l = match input.logits {
                Logits::Fp32 => 4,
                Logits::Bf16 => 2,
            };
            // pytorch/pytorch aten/src/ATen/native/LossNLL.cpp
            // `cross_entropy_loss`: cross-entropy over class indices is
            // `nll_loss(log_softmax(logits))`. log_softmax saves its output
            // (l·sv) for its backward. The backward pass starts with
            // `nll_loss_backward`, which writes a dense gradient of that output
            // (l·sv, zeros but at the targets), and
            // `_log_softmax_backward_data` allocates the logits' gradient (l·sv)
            // while both are alive: three logit-sized tensors. The forward's
            // FP32 copy of the 16-bit logits is not saved (the cast's backward
            // needs no input) and is freed with the model's output, so the
            // forward's loss holds less (2 + l + l ≤ 3l bytes).
            let backward_start = 3 * l;
            // Gemma 2's final soft-capping runs on the head's output, before
            // the loss's upcast: its tanh saves its output (e·sv), alive
            // until the backward pass reaches it.
            let softcap = if arch.softcap { e * s * v } else { 0 };
            // A compiled loss (the cross-entropy inside the compiled graph:
            // Hugging Face's model with its loss, torchtune's
            // `training.compile_loss`) is decomposed into element-wise ops
            // and reductions over the logits it is given, which are a
            // matrix product's output or a primal of the loss's graph: the
            // partitioner saves them (and a log-sum-exp per token) and
            // recomputes the log-softmax in the backward pass, where one
            // fused kernel writes the logits' gradient. Two logit-sized
            // tensors where eager autograd holds three. torchtune's chunked
            // loss compiles `compute_cross_entropy`, whose `.float()` is
            // inside the graph: each chunk keeps its 16-bit logits (e bytes)
            // and its backward writes their 16-bit gradient.
            let (logits, kept) = match (input.loss, input.compiled()) {
                (Loss::Full, false) => (backward_start * s * v, l * s * v),
                // torchtune/modules/loss/cross_entropy_loss.py: per chunk of
                // s/8 tokens, `F.cross_entropy(logits.float(), …)` keeps the
                // FP32 log-softmax for the backward pass (l·sv over all chunks);
                // a chunk's backward then holds the same two gradients as
                // above (2l), or, once the log-softmax's backward is done, the
                // logits' gradient and its cast to the 16-bit compute dtype (l + e).
                (Loss::Chunked, false) => (
                    l * s * v + div_ceil((backward_start - l).max(l + e) * s * v, CHUNKS),
                    l * s * v,
                ),
                (Loss::Full, true) => (2 * l * s * v, l * s * v),
                (Loss::Chunked, true) => (e * s * v + div_ceil(e * s * v, CHUNKS), e * s * v),
                // unsloth-zoo `UnslothFusedLoss.forward`: `grad_inputs =
                // torch.empty_like(hidden_states)` (e·sh) holds every
                // chunk's input gradient from the forward pass to the head's
                // backward; no logit-sized tensor survives a chunk. A chunk
                // runs compiled (`torch.compile(accumulate_chunk)`, the
                // cross-entropy's `.float()` inside): its logits (a product's
                // output, e bytes) and their gradient (e), as a compiled
                // loss keeps them. Unsloth sizes the chunks on the
                // micro-batch's tokens; activations here are per sample
                // (linear in the batch), so the chunk is sized on one
                // sample's: exact at batch 1, an upper bound above it.
                (Loss::Fused, _) => (e * s * h + 2 * e * fused_chunk_tokens(s, v) * v, e * s * h),
                // megatron/core/tensor_parallel/cross_entropy.py: the
                // forward casts the head's logits to FP32
                // (`calculate_logits_max`: `.float()`, whatever `logits`
                // says), subtracts the maximum, exponentiates and
                // normalises in place (`-=`, `torch.exp(…, out=…)`,
                // `div_`) and saves that softmax; the backward writes the
                // gradient into it (`grad_input = softmax`, `-=`, `mul_`)
                // and autograd casts it back to the dtype of the logits
                // the head produced (e bytes; none when they are FP32).
                // The forward's loss holds the same two: the 16-bit
                // logits and their FP32 copy. Its own autograd function:
                // the same compiled or not.
                (Loss::VocabParallel, _) => ((4 + vocab_cast(e)) * s * v, 4 * s * v),
            };
            let logits = softcap + logits;
            let inputs = output_layer_inputs(input);
            // A micro-batch whose backward pass has not begun keeps what its
            // forward pass saved: the log-softmax output (l·sv; compiled,
            // the logits the loss read) and the soft-capping's tanh.
            let saved = inputs + div_ceil(softcap + kept, t);
            let above = inputs + div_ceil(logits, t);
            // The loss's forward: the head's 16-bit logits, their FP32 copy
            // and the log-softmax (e + 2l bytes, at most 3l). Only where the
            // end of the forward pass is a moment ([`loss_weight_copies`],
            // or the gradients alive through it,
            // [`TransformerInput::zero_grad_after_forward`]): the other
            // paths do no division more.
            let forward_moment = (input.autocast() && input.recompute == Recompute::Full)
                || input.zero_grad_after_forward();
            let forward = match (input.loss, input.compiled()) {
                (Loss::Full, false) if forward_moment => {
                    inputs + div_ceil(softcap + (e + 2 * l) * s * v, t)
                }
                _ => above,
            };
            (0, above, saved, forward)
        }
        // BERT's embedding norm input (post-norm model).
        Kind::Encoder => (sp_split(s * norm * h), 0, 0, 0),
        // ViT's final norm input; the head reads one token.
        Kind::Vision => {
            let input = sp_split(s * norm * h);
            (0, input, input, input)
        }
    };
    Saved {
        dense: per_layer(&dense, Ffn::Dense),
        moe: per_layer(&moe, Ffn::Moe),
        recomputed_dense: recomputed(&dense, Ffn::Dense),
        recomputed_moe: recomputed(&moe, Ffn::Moe),
        working_dense: if arch.dense_layers() > 0 {
            backward_working(input, Ffn::Dense)
        } else {
            0
        },
        working_moe: if arch.moe_layers() > 0 {
            backward_working(input, Ffn::Moe)
        } else {
            0
        },
        residual_gradient: residual_gradient(input),
        dispatch,
        context_backward,
        context_forward,
        below: embedding_dropout + below,
        above,
        above_saved,
        above_forward,
        partial: input.partial_recompute(),
        placement: arch.placement(),
        // The rerun's output a reentrant checkpoint keeps through its backward
        // pass, per sample and GPU: one residual-stream tensor, the shape and
        // number format of the layer input it keeps (sp_split(s · r · h)).
        //
        // pytorch/pytorch torch/utils/checkpoint.py: `CheckpointFunction.backward`
        // reruns the function under `torch.enable_grad()` (`outputs =
        // ctx.run_function(*detached_inputs)`), collects the outputs that require
        // grad (`outputs_with_grad`) and calls
        // `torch.autograd.backward(outputs_with_grad, args_with_grad)`: the outputs
        // are referenced until that call returns, while the layer's whole backward
        // runs. The non-reentrant checkpoint's `recompute_fn` calls
        // `fn(*args, **kwargs)` and drops what it returns: with `early_stop=True`
        // (the default) the rerun stops at the last saved tensor
        // (`_StopRecomputationError`) before the output is made; with
        // `early_stop=False` (torchtitan's full AC) the output is freed as the
        // rerun returns, before the layer's own gradients are made. Megatron-LM's
        // megatron/core/tensor_parallel/random.py `CheckpointFunction` and
        // Unsloth's unsloth_zoo/gradient_checkpointing.py `UnslothCheckpointFunction`
        // are the reentrant kind. A checkpointed group of layers (`uniform`) keeps
        // one output, its last layer's.
        reentrant_output: if input.recompute == Recompute::Full && input.reentrant {
            sp_split(s * r * h)
        } else {
            0
        },
    }
}

/// What the layers keep of one sample through the forward pass, on the GPU.
fn kept_in_layers(input: &TransformerInput, saved: &Saved) -> u128 {
    let span = Span::all(&input.arch);
    let in_layers = saved.layers(span);
    // torchtune/training/_activation_offloading.py `OffloadActivations`: every
    // saved tensor of ≥ 1,024 bytes is copied to CPU as it is saved; the
    // forward stash keeps the last max_fwd_stash_size = 5 of them (fewer than
    // one layer saves) until their copy ends, and the backward brings back the
    // tensors of the autograd node running and frees the previous node's. The
    // GPU holds at most one layer's saved set, or, under full recomputation,
    // the layer input being brought back (and the layer recomputed from it,
    // above). Never more than without offloading.
    if input.act_offload {
        in_layers.min(saved.largest_kept(span))
    } else {
        in_layers
    }
}

/// Activation bytes one sample holds at the end of the forward pass in
/// training, inside the autocast region with the loss computed, and the
/// part of it the layers keep: what [`loss_weight_copies`] needs beside
/// [`activations_per_sample`], whose moment (the start of the backward
/// pass) has fewer weight copies. No layer is being recomputed yet, and the
/// loss holds its forward's tensors ([`Saved::above_forward`]).
pub fn forward_activations_per_sample(input: &TransformerInput) -> (u128, u128) {
    let saved = training_saved(input);
    let in_layers = kept_in_layers(input, &saved);
    (
        in_layers + saved.below + saved.above_forward.max(saved.context_forward),
        in_layers,
    )
}

fn training_activations(input: &TransformerInput) -> u128 {
    let (kept, loss, layer) = backward_start(input, &training_saved(input));
    kept + loss.max(layer)
}

/// Training's activations per sample at the start of the backward pass, in
/// three parts: what stays through it (the layers' saved tensors, the
/// embedding's side), the loss's side (the head's and the loss's tensors,
/// or the forward pass's context-parallel blocks), and the layer in
/// flight's transient set (a recomputed layer, the working tensors).
fn backward_start(input: &TransformerInput, saved: &Saved) -> (u128, u128, u128) {
    let span = Span::all(&input.arch);
    let in_layers = kept_in_layers(input, saved);
    // Autograd runs the loss's, the head's and the final norm's backward before
    // it reaches the last layer, freeing their tensors: a recomputed layer and
    // the backward pass's working tensors are never alive with them. The
    // forward pass's context-parallel blocks are alive with every layer's
    // saved tensors (the last layer's counted whole).
    // Offloaded, a partial plan's units come back one at a time: what the
    // GPU holds beyond the forward pass's stash is the largest of them.
    let transient = match saved.partial {
        Some(plan) if input.act_offload => saved
            .offloaded_partial(plan, span)
            .saturating_sub(in_layers),
        _ => saved.layer_transient(span),
    };
    (
        in_layers + saved.below,
        saved.above.max(saved.context_forward),
        transient,
    )
}

/// Inference holds no activations between layers: the peak is the largest
/// block's temporaries during the prefill of the prompt.
fn prefill_activations(input: &TransformerInput) -> u128 {
    let arch = &input.arch;
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let t = u128::from(input.tp);
    let h = u128::from(arch.hidden);
    let a = u128::from(arch.heads);
    let widths = arch.attention_widths();
    // The residual stream and its normed copy.
    let stream = 2 * s * e * h;
    // Q, K, V and the attention output; eager attention adds the scores and
    // their softmax.
    // (Gemma 2's soft-capping adds its tanh output.)
    let scores = match input.kernel() {
        Attention::Eager => (2 + u128::from(arch.attn_softcap)) * e * a * s * s,
        Attention::Flash => 0,
    };
    let attention = s * e * (widths.q + widths.k + widths.v + widths.output) + scores;
    // GELU: up projection and its activation; gated: gate, up and product.
    let ffn = |width: u64| {
        let width = u128::from(width);
        match arch.mlp {
            Mlp::Gelu => 2 * s * e * width,
            // `gelu_new` under no_grad: x, `0.5 * x`, and `torch.pow(x, 3.0)`
            // with its product by 0.044715 (both alive until the product
            // returns): four tensors of the width at once.
            Mlp::GeluNew => 4 * s * e * width,
            Mlp::Swiglu => 3 * s * e * width,
        }
    };
    let dense = if arch.dense_layers() > 0 {
        ffn(arch.ffn)
    } else {
        0
    };
    // A MoE layer at once (a grouped GEMM; Hugging Face's loop over the
    // experts holds one expert's share of this at a time): the router's FP32
    // probabilities, every routed copy's input, intermediates and output,
    // and the shared experts.
    let moe = if arch.moe_layers() > 0 {
        let k = u128::from(arch.routed_per_token());
        4 * s * u128::from(arch.experts)
            + k * (2 * s * e * h + ffn(arch.expert_width()))
            + ffn(arch.shared_width())
    } else {
        0
    };
    let mlp = dense.max(moe);
    // Generation needs the logits of the last position only, in FP32.
    let logits = match arch.kind {
        Kind::Decoder => div_ceil(4 * u128::from(arch.vocab), t),
        Kind::Encoder | Kind::Vision => 0,
    };
    stream + div_ceil(attention.max(mlp), t) + logits
}

/// Tokens the quantized cache of [`KvDtype::Int4`] keeps in the compute dtype
/// at most: transformers' `QuantizedLayer` quantizes its recent tokens once
/// `residual_length` (128 by default) would be reached.
const KV_RESIDUAL: u128 = 127;

/// K and V elements per token of one layer on one GPU, and the tokens cached.
fn kv_shape(input: &TransformerInput) -> (u128, u128) {
    // K and V per layer and token (transformers' DeepseekV3Attention caches
    // the decompressed keys and values: `past_key_value.update(key_states,
    // value_states, …)` after kv_b_proj); tensor parallelism splits the
    // heads over the ranks.
    let widths = input.arch.attention_widths();
    let per_token = div_ceil(widths.k + widths.v, u128::from(input.tp));
    let tokens = u128::from(input.seq) + u128::from(input.generated);
    (per_token, tokens)
}

/// KV cache per sample per GPU: 2 (K and V) × layers × kv_heads × head_dim ×
/// (prompt + generated tokens) × bytes (Pope et al. 2022, "Efficiently Scaling
/// Transformer Inference", §2), in the format of `kv_dtype` with its scales.
/// Only decoders generate.
///
/// A layer attending through a sliding window keeps fewer positions, as the
/// cache `generate()` builds by default holds them: transformers
/// generation/utils.py `_prepare_cache_for_generation` makes a
/// `DynamicCache(config=…)`, which gives each sliding layer a
/// `DynamicSlidingWindowLayer` (cache_utils.py). Its `update` concatenates the
/// cached and the new states and keeps `full_key_states[:, :,
/// -self.sliding_window + 1 :, :]`, a view that holds the whole concatenation
/// alive: after the prefill the prompt's states (all of them), and from the
/// first generated token on at most `window` positions. The peak per windowed
/// layer is min(prompt + generated, max(prompt, window)) positions. (The
/// `HybridCache` of transformers 4.42–4.55, and `cache_implementation=
/// "static"`, preallocate min(window, max length) instead.) The quantized
/// caches batchfit names for int8 and int4 (torchao's static cache,
/// transformers' `QuantizedCache`, whose every layer is a `QuantizedLayer`)
/// keep every position of every layer.
pub fn kv_cache_per_sample(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Inference || input.arch.kind != Kind::Decoder {
        return 0;
    }
    let arch = &input.arch;
    let (per_token, tokens) = kv_shape(input);
    let layers = u128::from(arch.layers);
    let e = input.activation_bytes();
    let windowed = u128::from(arch.windowed_layers());
    let prompt = u128::from(input.seq);
    let window_positions = tokens.min(prompt.max(u128::from(arch.window)));
    // Positions held over all layers.
    let positions = (layers - windowed) * tokens + windowed * window_positions;
    match input.kv_dtype {
        KvDtype::Bf16 => per_token * positions * e,
        KvDtype::Fp8 => per_token * positions,
        // One 16-bit scale per token and cached head, for K and for V.
        KvDtype::Int8 => {
            let heads = if arch.mla() {
                arch.heads
            } else {
                arch.kv_heads
            };
            let scales = div_ceil(2 * u128::from(heads), u128::from(input.tp));
            layers * tokens * (per_token + 2 * scales)
        }
        KvDtype::Int4 => {
            let recent = KV_RESIDUAL.min(u128::from(input.generated));
            let quantized = layers * per_token * (tokens - recent);
            // 4 bits each, and a 16-bit scale and zero point per 64.
            div_ceil(quantized, 2) + 4 * div_ceil(quantized, 64) + layers * per_token * recent * e
        }
    }
}

/// The 16-bit copies of one layer's cache that a quantized cache makes when
/// that layer attends ([`KvDtype`]): per sample per GPU, 0 for an unquantized
/// or FP8 cache.
pub fn kv_dequantized_per_sample(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Inference || input.arch.kind != Kind::Decoder {
        return 0;
    }
    let (per_token, tokens) = kv_shape(input);
    let copies = match input.kv_dtype {
        KvDtype::Bf16 | KvDtype::Fp8 => 0,
        KvDtype::Int8 => 1,
        KvDtype::Int4 => 2,
    };
    copies * per_token * tokens * input.activation_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets;

    fn arch(id: &str) -> Architecture {
        presets::model(id)
            .map(|m| m.arch)
            .unwrap_or_else(|| panic!("preset {id}"))
    }

    /// What `input` saves outside its layers (the same input without layers).
    fn outside(input: &TransformerInput) -> u128 {
        activations_per_sample(&TransformerInput {
            arch: Architecture {
                layers: 0,
                ..input.arch
            },
            ..*input
        })
    }

    /// Published parameter counts, within 0.5 %.
    #[test]
    fn parameter_counts_match_published_counts() {
        for (id, published) in [
            ("gpt2", 124_439_808.0),
            ("bert-large", 335_141_888.0),
            ("llama-2-7b", 6.74e9),
            ("llama-3.1-8b", 8.03e9),
            ("qwen2.5-7b", 7.62e9),
        ] {
            let count = parameter_count(&arch(id)).total as f64;
            let error = (count - published).abs() / published;
            assert!(error < 0.005, "{id}: {count} vs {published}");
        }
        // The exact counts, from the checkpoints' tensor shapes.
        assert_eq!(parameter_count(&arch("gpt2")).total, 124_439_808);
        assert_eq!(parameter_count(&arch("bert-large")).total, 335_141_888);
        assert_eq!(parameter_count(&arch("llama-2-7b")).total, 6_738_415_616);
        assert_eq!(parameter_count(&arch("llama-3.1-8b")).total, 8_030_261_248);
        assert_eq!(parameter_count(&arch("qwen2.5-7b")).total, 7_615_616_512);
    }

    /// The 2025–2026 dense families, each against a count published to the
    /// parameter: the checkpoint's safetensors total on the Hugging Face Hub
    /// (`safetensors.total` of the model's API page), or keras-team/keras-hub's
    /// preset metadata `params` for the same checkpoint
    /// (keras_hub/src/models/qwen3/qwen3_presets.py,
    /// keras_hub/src/models/gemma/gemma_presets.py,
    /// keras_hub/src/models/gemma3/gemma3_presets.py). Within 0.5 %; the
    /// exact counts agree but for Gemma 3's text models, whose Keras port has
    /// a vocabulary of 262,144 where the config has 262,208 (64 × hidden
    /// fewer). The vision tower of Gemma 3 4B–27B is not counted.
    #[test]
    fn the_new_families_match_their_published_counts() {
        for (id, published, exact) in [
            // keras-hub qwen3_presets.py; Qwen3-0.6B's model.num_parameters().
            ("qwen3-0.6b", 596_049_920, true),
            ("qwen3-1.7b", 1_720_574_976, true),
            ("qwen3-4b", 4_022_468_096, true),
            ("qwen3-8b", 8_190_735_360, true),
            ("qwen3-14b", 14_768_307_200, true),
            ("qwen3-32b", 32_762_123_264, true),
            // keras-hub gemma_presets.py (gemma2_2b_en, gemma2_9b_en, gemma2_27b_en).
            ("gemma-2-2b", 2_614_341_888, true),
            ("gemma-2-9b", 9_241_705_984, true),
            ("gemma-2-27b", 27_227_128_320, true),
            // keras-hub gemma3_presets.py (gemma3_1b, gemma3_*_text).
            ("gemma-3-1b", 999_885_952, true),
            ("gemma-3-4b", 3_880_099_328, false),
            ("gemma-3-12b", 11_765_788_416, false),
            ("gemma-3-27b", 27_009_002_240, false),
            // Hub safetensors totals.
            ("llama-3.3-70b", 70_553_706_496, true),
            ("phi-2", 2_779_683_840, true),
            ("phi-4", 14_659_507_200, true),
            ("olmo-2-7b", 7_298_617_344, true),
            ("olmo-2-13b", 13_716_198_400, true),
        ] {
            let preset = arch(id);
            let count = parameter_count(&preset).total;
            let error = (count as f64 - published as f64).abs() / published as f64;
            assert!(error < 0.005, "{id}: {count} vs {published}");
            if exact {
                assert_eq!(count, published, "{id}");
            } else {
                // The Keras port's vocabulary: 262,144 entries of the tied matrix.
                let keras = Architecture {
                    vocab: 262_144,
                    ..preset
                };
                assert_eq!(parameter_count(&keras).total, published, "{id}");
            }
        }
    }

    /// Mixture-of-experts counts from the configs' tensor shapes, byte-exact
    /// (docs/model.md, "Mixture of experts").
    #[test]
    fn moe_parameter_counts_are_exact() {
        for (id, total, active, routed) in [
            // 32 layers × (attention 41,943,040 + 8 experts × 176,160,768 +
            // router 32,768 + norms 8,192) + embedding and head 262,144,000 +
            // final norm 4,096; active: 2 of the 8 experts.
            (
                "mixtral-8x7b",
                46_702_792_704,
                12_879_925_248,
                32 * 8 * 176_160_768,
            ),
            // 48 × (attention 18,874,368 + QK-norm 256 + norms 4,096 + router
            // 262,144 + 128 × 4,718,592) + 2 × 311,164,928 + 2,048; top-8.
            (
                "qwen3-30b-a3b",
                30_532_122_624,
                3_353_032_704,
                48 * 128 * 4_718_592,
            ),
            // 3 dense layers × (MLA 187,107,328 + norms 14,336 + MLP
            // 396,361,728) + 58 MoE layers × (187,121,664 + 256 × 44,040,192 +
            // shared 44,040,192 + router 1,835,008) + 2 × 926,679,040 + 7,168.
            (
                "deepseek-v3",
                671_026_404_352,
                37_552_282_624,
                58 * 256 * 44_040_192,
            ),
            // 24 × (attention 26,542,080 + biases 8,000 + sinks 64 + norms
            // 5,760 + 32 × 24,891,840 + router 92,192) + 2 × 579,133,440 + 2,880.
            (
                "gpt-oss-20b",
                20_914_757_184,
                4_187_440_704,
                24 * 32 * 24_891_840,
            ),
        ] {
            let count = parameter_count(&arch(id));
            assert_eq!(
                (count.total, count.active, count.routed.total),
                (total, active, routed),
                "{id}"
            );
        }
        // A dense model is all active.
        let dense = parameter_count(&arch("llama-3.1-8b"));
        assert_eq!((dense.active, dense.routed.total), (dense.total, 0));
    }

    /// QK-norm: per head (Qwen3), 2 × head_dim weights per layer; over the
    /// whole projections (OLMoE), q + kv.
    #[test]
    fn qk_norm_weights_per_layer() {
        let qwen3 = arch("qwen3-30b-a3b");
        let without = Architecture {
            qk_norm: false,
            ..qwen3
        };
        assert_eq!(
            parameter_count(&qwen3).total - parameter_count(&without).total,
            48 * 2 * 128
        );
        let olmoe = arch("olmoe-1b-7b");
        let per_head = Architecture {
            qk_norm_full: false,
            ..olmoe
        };
        assert_eq!(
            parameter_count(&olmoe).total - parameter_count(&per_head).total,
            16 * (2048 + 2048 - 2 * 128)
        );
        // Saved for the backward pass like the layer norms' RMSNorm: the FP32
        // upcast and the normalized tensor of every query and key, (4 + 2)
        // bytes each in BF16: 2,048 tokens × 6 × (4,096 + 512) per layer.
        let input = |arch| TransformerInput {
            arch,
            seq: 2048,
            recipe: Recipe::Bf16,
            ..TransformerInput::default()
        };
        assert_eq!(
            layer_activations(&input(qwen3), Ffn::Moe).split
                - layer_activations(&input(without), Ffn::Moe).split,
            2048 * 6 * (4096 + 512)
        );
    }

    /// A MoE layer keeps the router's tensors, k copies of every token and
    /// each copy's FFN intermediates at the expert's width.
    #[test]
    fn moe_layer_activations_follow_top_k() {
        // Mixtral's shape, 1 token, BF16: router 4 × 8 + 12 × 2 = 56 bytes;
        // per copy input and output 2 × 2 × 4,096, routing weight 2, index 8:
        // 16,394, twice; intermediates 2 × 4 × 2 × 14,336 = 229,376.
        let mixtral = TransformerInput {
            arch: arch("mixtral-8x7b"),
            seq: 1,
            recipe: Recipe::Bf16,
            ..TransformerInput::default()
        };
        let dense = layer_activations(&mixtral, Ffn::Dense);
        let moe = layer_activations(&mixtral, Ffn::Moe);
        assert_eq!(moe.replicated - dense.replicated, 56 + 2 * 16_394);
        // The routed experts' intermediates, split by `etp`, and no dense MLP.
        assert_eq!(moe.experts, 229_376);
        assert_eq!(dense.split - moe.split, 4 * 2 * 14_336);
        // Every layer of Mixtral is a MoE layer.
        assert_eq!(
            activations_per_sample(&mixtral)
                - activations_per_sample(&TransformerInput {
                    arch: Architecture {
                        experts: 0,
                        ..mixtral.arch
                    },
                    ..mixtral
                }),
            32 * (56 + 2 * 16_394 + 229_376 - 4 * 2 * 14_336)
        );
        // DeepSeek-V3: 3 dense layers and 58 MoE layers.
        let deepseek = arch("deepseek-v3");
        assert_eq!((deepseek.dense_layers(), deepseek.moe_layers()), (3, 58));
    }

    /// Megatron-Core's capacity factor: every expert computes its capacity
    /// of tokens when padded, at most what is routed when not.
    #[test]
    fn capacity_factor_sets_the_copies() {
        // Mixtral, 4,096 tokens, top-2 of 8: 8,192 copies dropless.
        let input = |capacity_factor, capacity_pad| TransformerInput {
            arch: arch("mixtral-8x7b"),
            seq: 4096,
            capacity_factor,
            capacity_pad,
            ..TransformerInput::default()
        };
        assert_eq!(input(0, false).routed_copies(), 8192);
        // cf = 1.25: capacity ⌈1.25 × 8,192 / 8⌉ = 1,280 per expert; padded,
        // 8 × 1,280 = 10,240 copies; not padded, the 8,192 routed (balanced
        // routing drops none).
        assert_eq!(input(125, true).routed_copies(), 10_240);
        assert_eq!(input(125, false).routed_copies(), 8192);
        // cf = 0.5: 512 per expert, 4,096 kept, the other half dropped.
        assert_eq!(input(50, false).routed_copies(), 4096);
        // The copies' tensors scale with them: 2,048 more copies, each
        // (2 × 2 × 4,096 + 2 + 8) replicated and 4 × 2 × 14,336 split bytes.
        let more = layer_activations(&input(125, true), Ffn::Moe);
        let dropless = layer_activations(&input(0, false), Ffn::Moe);
        assert_eq!(more.replicated - dropless.replicated, 2048 * 16_394);
        assert_eq!(more.experts - dropless.experts, 2048 * 4 * 2 * 14_336);
    }

    /// Expert parallelism: the routed experts' weights per GPU divide by `ep`,
    /// the rest stays.
    #[test]
    fn expert_weights_divide_by_ep() {
        // Mixtral, pure BF16, 8 GPUs: 2 bytes × (46,702,792,704 −
        // 45,097,156,608 routed) + 2 × 45,097,156,608 / ep.
        let count = parameter_count(&arch("mixtral-8x7b"));
        let routed = 32 * 8 * 176_160_768u128;
        let weights = |ep| {
            let input = TransformerInput {
                arch: arch("mixtral-8x7b"),
                recipe: Recipe::Bf16,
                gpus: 8,
                ep,
                ..TransformerInput::default()
            };
            model_states(&count, &input).weights
        };
        for ep in [1, 2, 4, 8] {
            assert_eq!(
                weights(ep),
                2 * (count.total - routed) + 2 * routed / u128::from(ep),
                "ep={ep}"
            );
        }
        assert_eq!(weights(8), 3_211_272_192 + 11_274_289_152);
        // With ZeRO-1 the experts' optimizer states shard over the gpus/ep
        // ranks holding the same experts: per GPU 1/gpus of them whatever ep.
        let states = |ep| {
            let input = TransformerInput {
                arch: arch("mixtral-8x7b"),
                recipe: Recipe::Bf16,
                gpus: 8,
                zero: 1,
                ep,
                ..TransformerInput::default()
            };
            model_states(&count, &input).optimizer_states
        };
        assert_eq!(states(1), states(8));
        assert_eq!(states(8), 4 * count.total / 8);
    }

    /// LoRA on the experts: Mixtral-8x7B, r = 16. PEFT matches
    /// `target_modules` by name suffix and `"all-linear"` takes every
    /// `nn.Linear` of the blocks, the router's too, so with per-expert
    /// `w1`, `w3`, `w2` every layer adapts Q (4,096 → 4,096), K and V
    /// (4,096 → 1,024), O, the router (4,096 → 8) and 8 experts' gate and up
    /// (4,096 → 14,336) and down (14,336 → 4,096).
    #[test]
    fn lora_on_the_experts_counts_every_experts_adapters() {
        let input = |lora_targets, ep| TransformerInput {
            arch: arch("mixtral-8x7b"),
            recipe: Recipe::Bf16,
            lora_rank: 16,
            lora_targets,
            gpus: 8,
            ep,
            seq: 1,
            ..TransformerInput::default()
        };
        let total = |targets| Adapters::of(&input(targets, 1)).total;
        let attention = 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024));
        let router = 16 * (4096 + 8);
        let expert = 16 * 3 * (4096 + 14_336);
        assert_eq!((attention, router, expert), (425_984, 65_664, 884_736));
        assert_eq!(
            total(LoraTargets::AllExperts),
            32 * (attention + router + 8 * expert)
        );
        assert_eq!(total(LoraTargets::AllExperts), 242_225_152);
        assert_eq!(total(LoraTargets::Experts), 32 * 8 * expert);
        assert_eq!(total(LoraTargets::Experts), 226_492_416);
        // `all` and `mlp` leave the routed experts frozen: Mixtral has no
        // dense MLP or shared expert, so `mlp` adapts nothing.
        assert_eq!(total(LoraTargets::All), 32 * attention);
        assert_eq!(total(LoraTargets::Mlp), 0);
        // The routed experts' adapters, their FP32 gradients and AdamW's two
        // FP32 moments live with their experts: over ep = 8, 28,311,552
        // parameters per GPU beside the 15,732,736 of attention and router.
        let states = model_states(
            &parameter_count(&arch("mixtral-8x7b")),
            &input(LoraTargets::AllExperts, 8),
        );
        let per_gpu = 32 * (attention + router) + 32 * 8 * expert / 8;
        assert_eq!(per_gpu, 44_044_288);
        assert_eq!(states.gradients, 4 * per_gpu);
        assert_eq!(states.optimizer_states, 8 * per_gpu);
        // Per token and layer in BF16 (adapters in FP32: lora_A's input is a
        // 4-byte cast, x·A 4 × 16): attention's Q, K, V, O and the router
        // read 4 × 4,096 + 4,096 values; each of the two routed copies the
        // expert's gate, up (4,096 each) and down (14,336) inputs.
        let per_token = 4 * (5 * 4096) + 4 * 16 * 5;
        let per_copy = 4 * (2 * 4096 + 14_336) + 4 * 16 * 3;
        assert_eq!((per_token, per_copy), (82_240, 90_304));
        assert_eq!(
            lora_saved(&input(LoraTargets::AllExperts, 1), Ffn::Moe),
            per_token + 2 * per_copy
        );
        assert_eq!(per_token + 2 * per_copy, 262_848);
    }

    /// Expert tensor parallelism (Megatron-Core `--expert-tensor-parallel-size`,
    /// by default `tp`): each expert's matrices split over `etp` instead of
    /// `tp`, so an unsharded expert term divides by ep × etp; a sharded one
    /// stays 1/(gpus × tp). Mixtral in pure BF16, 4 data-parallel GPUs ×
    /// tensor-parallel 2.
    #[test]
    fn expert_weights_divide_by_ep_times_etp() {
        let count = parameter_count(&arch("mixtral-8x7b"));
        let routed = 32 * 8 * 176_160_768u128;
        let states = |ep, etp, zero| {
            let input = TransformerInput {
                arch: arch("mixtral-8x7b"),
                recipe: Recipe::Bf16,
                gpus: 4,
                tp: 2,
                zero,
                ep,
                etp,
                ..TransformerInput::default()
            };
            model_states(&count, &input)
        };
        // The default follows tp: 2 × 45,097,156,608 / (4 × 2) of experts.
        assert_eq!(states(4, 0, 0).weights, states(4, 2, 0).weights);
        assert_eq!(
            states(4, 1, 0).weights - states(4, 0, 0).weights,
            2 * routed / 4 - 2 * routed / 8
        );
        assert_eq!(2 * routed / 4 - 2 * routed / 8, 11_274_289_152);
        // ep × etp is what divides: 8 × 1 holds what 4 × 2 does.
        assert_eq!(states(8, 1, 0).weights, states(4, 0, 0).weights);
        // ZeRO-1 shards the experts' optimizer states over the expert
        // data-parallel ranks: 1/(gpus × tp) of them per GPU whatever ep and
        // etp, 4 × 45,097,156,608 / 8 = 22,548,578,304 bytes.
        let zero1 = |ep, etp| states(ep, etp, 1).optimizer_states;
        assert_eq!(zero1(4, 1), zero1(4, 0));
        assert_eq!(zero1(8, 1), zero1(1, 0));
        let rest = TransformerInput {
            arch: arch("mixtral-8x7b"),
            recipe: Recipe::Bf16,
            gpus: 4,
            tp: 2,
            zero: 1,
            ..TransformerInput::default()
        };
        let non_expert = ParameterCount {
            total: count.total - routed,
            linear: count.linear - count.routed.linear,
            linear_rows: count.linear_rows - count.routed.linear_rows,
            factored: count.factored - count.routed.factored,
            routed: RoutedExperts::default(),
            ..count
        };
        assert_eq!(
            zero1(8, 1) - pool_states(&non_expert, &rest, &Adapters::default()).optimizer_states,
            4 * routed / 8
        );
        assert_eq!(4 * routed / 8, 22_548_578_304);
    }

    proptest::proptest! {
        /// Over every architecture a URL can give: a token never uses more
        /// parameters than the model has, and a dense model uses them all.
        #[test]
        fn active_parameters_never_exceed_the_total(config in crate::query::tests::any_config()) {
            let arch = config.transformer.arch;
            let count = parameter_count(&arch);
            proptest::prop_assert!(count.active <= count.total);
            proptest::prop_assert!(count.routed.total <= count.total);
            if !arch.moe() {
                proptest::prop_assert_eq!(count.active, count.total);
            }
        }

        /// FSDP1 (`framework=fsdp1`) over twice the GPUs never adds to a
        /// GPU's model states, whatever the architecture, LoRA, tensor
        /// parallelism or offload: the shards halve, the units in flight stay.
        /// From 2 GPUs on, where FULL_SHARD shards (one GPU is NO_SHARD).
        #[test]
        fn fsdp1_model_states_never_grow_with_more_gpus(
            config in crate::query::tests::any_config(),
            gpus_exponent in 1u32..=12,
        ) {
            let mut input = TransformerInput { ep: 1, mode: Mode::Train, ..config.transformer };
            Framework::Fsdp1.apply(&mut input);
            let count = parameter_count(&input.arch);
            let total = |gpus: u64| {
                let s = model_states(&count, &TransformerInput { gpus, ..input });
                s.weights + s.gradients + s.optimizer_states + s.optimizer_step + s.buffers
            };
            let gpus = 1u64 << gpus_exponent;
            proptest::prop_assert!(total(2 * gpus) <= total(gpus), "gpus={gpus}");
            proptest::prop_assert!(total(gpus) <= total(2), "gpus={gpus}");
        }

        /// Splitting the experts over more ranks never adds to any GPU's
        /// model states, term by term, whatever the recipe, ZeRO stage,
        /// tensor parallelism, LoRA or step: `ep` from 1 up the divisors
        /// shared by `gpus` and `experts`.
        #[test]
        fn model_states_never_grow_with_ep(
            config in crate::query::tests::any_config(),
            experts in 1u64..=512,
            gpus_exponent in 0u32..=8,
        ) {
            let gpus = 1u64 << gpus_exponent;
            let input = TransformerInput {
                arch: Architecture { experts, ..config.transformer.arch },
                gpus,
                ..config.transformer
            };
            let count = parameter_count(&input.arch);
            let mut previous = model_states(&count, &TransformerInput { ep: 1, ..input });
            for ep in (1..=gpus_exponent).map(|e| 1u64 << e).filter(|ep| experts % ep == 0) {
                let states = model_states(&count, &TransformerInput { ep, ..input });
                proptest::prop_assert!(states.weights <= previous.weights, "ep={ep}");
                proptest::prop_assert!(states.gradients <= previous.gradients, "ep={ep}");
                proptest::prop_assert!(states.optimizer_states <= previous.optimizer_states, "ep={ep}");
                proptest::prop_assert!(states.optimizer_step <= previous.optimizer_step, "ep={ep}");
                proptest::prop_assert!(states.buffers <= previous.buffers, "ep={ep}");
                previous = states;
            }
        }

        /// Splitting each expert over more ranks never adds to any GPU's
        /// model states, term by term: `etp` from 1 up the powers of two
        /// dividing gpus × tp with `ep` (1, or 2 where it divides).
        #[test]
        fn model_states_never_grow_with_etp(
            config in crate::query::tests::any_config(),
            experts in 1u64..=512,
            gpus_exponent in 0u32..=6,
            tp_exponent in 0u32..=3,
        ) {
            let (gpus, tp) = (1u64 << gpus_exponent, 1u64 << tp_exponent);
            let ep = if experts % 2 == 0 && gpus_exponent > 0 { 2 } else { 1 };
            let input = TransformerInput {
                arch: Architecture { experts, ..config.transformer.arch },
                gpus,
                tp,
                ep,
                ..config.transformer
            };
            let count = parameter_count(&input.arch);
            let mut previous = model_states(&count, &TransformerInput { etp: 1, ..input });
            for etp in (1..=gpus_exponent + tp_exponent).map(|e| 1u64 << e).filter(|etp| (gpus * tp) % (etp * ep) == 0) {
                let states = model_states(&count, &TransformerInput { etp, ..input });
                proptest::prop_assert!(states.weights <= previous.weights, "etp={etp}");
                proptest::prop_assert!(states.gradients <= previous.gradients, "etp={etp}");
                proptest::prop_assert!(states.optimizer_states <= previous.optimizer_states, "etp={etp}");
                proptest::prop_assert!(states.optimizer_step <= previous.optimizer_step, "etp={etp}");
                proptest::prop_assert!(states.buffers <= previous.buffers, "etp={etp}");
                previous = states;
            }
        }
    }

    /// Each new term of the count, on a one-layer model small enough to add
    /// up by hand: hidden 8, 2 heads of 4 (1 KV head), FFN 16, vocabulary 10.
    #[test]
    fn norms_qk_norms_and_a_biased_head_are_counted() {
        let base = Architecture {
            layers: 1,
            hidden: 8,
            heads: 2,
            kv_heads: 1,
            ffn: 16,
            vocab: 10,
            tied: true,
            ..Architecture::default()
        };
        // Q 8×8, K and V 8×4, O 8×8; gate, up, down 8×16; two RMSNorms of 8;
        // the embedding 10×8 and the final norm 8.
        let plain = 64 + 32 + 32 + 64 + 3 * 128 + 2 * 8 + 80 + 8;
        let count = |arch: Architecture| parameter_count(&arch).total;
        assert_eq!(count(base), plain);
        // Gemma's four norms per layer; OLMo 2's two after the blocks; Phi's one.
        let with = |block| Architecture { block, ..base };
        assert_eq!(count(with(Block::Sandwich)), plain + 2 * 8);
        assert_eq!(count(with(Block::Post)), plain);
        assert_eq!(count(with(Block::Parallel)), plain - 8);
        // QK-norm per head: one weight of head_dim 4 each for Q and K; over
        // the whole projections: Q's 8 and K's 4. LayerNorm doubles them.
        let qk = |qk_norm, qk_norm_full, norm| Architecture {
            qk_norm,
            qk_norm_full,
            norm,
            ..base
        };
        assert_eq!(count(qk(true, false, Norm::RmsNorm)), plain + 8);
        assert_eq!(count(qk(true, true, Norm::RmsNormFp32)), plain + 12);
        let layer_norm = count(qk(false, false, Norm::LayerNorm));
        assert_eq!(count(qk(true, false, Norm::LayerNorm)), layer_norm + 16);
        let qk_norms = parameter_count(&qk(true, true, Norm::RmsNorm)).norms;
        assert_eq!(qk_norms, parameter_count(&base).norms + 12);
        // Phi's untied head with bias=1 has a bias of the vocabulary's size
        // (its parallel block has one norm); gpt-oss's biased model does not.
        let untied = Architecture {
            tied: false,
            ..base
        };
        let biased = Architecture {
            bias: true,
            ..untied
        };
        let layer_biases = 8 + 4 + 4 + 8 + 2 * 16 + 8;
        assert_eq!(count(biased), count(untied) + layer_biases);
        let phi = |bias| Architecture {
            bias,
            block: Block::Parallel,
            ..untied
        };
        assert_eq!(count(phi(true)), count(phi(false)) + layer_biases + 10);
    }

    /// MLA in transformers caches the decompressed keys and values.
    #[test]
    fn mla_caches_decompressed_keys_and_values() {
        // DeepSeek-V3: per token and layer 128 × (128 + 64) keys and 128 ×
        // 128 values, 40,960 elements; 61 layers, 4,096 tokens, BF16.
        let input = TransformerInput {
            arch: arch("deepseek-v3"),
            mode: Mode::Inference,
            seq: 4000,
            generated: 96,
            recipe: Recipe::Bf16,
            ..TransformerInput::default()
        };
        assert_eq!(kv_cache_per_sample(&input), 61 * 40_960 * 4096 * 2);
    }

    fn gpt_like(a: u64, s: u64, h: u64, dropout: bool) -> TransformerInput {
        TransformerInput {
            arch: Architecture {
                heads: a,
                kv_heads: a,
                hidden: h,
                ffn: 4 * h,
                mlp: Mlp::Gelu,
                norm: Norm::LayerNorm,
                dropout,
                layers: 1,
                ..Architecture::default()
            },
            seq: s,
            batch: 1,
            // Korthikanti et al. count a model computing in 16 bits throughout.
            recipe: Recipe::Bf16,
            attention: Attention::Eager,
            ..TransformerInput::default()
        }
    }

    /// Korthikanti et al. 2022, Eq. 1: sbh(34 + 5as/h) per layer at 16-bit.
    #[test]
    fn one_layer_reproduces_korthikanti_equation_1() {
        let (a, s, h) = (32u128, 2048u128, 4096u128);
        let input = gpt_like(32, 2048, 4096, true);
        let layer = layer_activations(&input, Ffn::Dense);
        assert_eq!(
            layer.replicated + layer.split + layer.scores,
            s * h * 34 + 5 * a * s * s
        );
        // Eq. 2 (tensor parallel t = 8, no sequence parallelism): sbh(10 + 24/t + 5as/(ht)).
        let tp = TransformerInput { tp: 8, ..input };
        assert_eq!(
            layer.per_rank(&tp, true),
            s * h * 10 + s * h * 24 / 8 + 5 * a * s * s / 8
        );
        // Eq. 4 (with sequence parallelism): sbh/t (34 + 5as/h).
        let sp = TransformerInput {
            tp: 8,
            sp: true,
            ..input
        };
        assert_eq!(layer.per_rank(&sp, true), (s * h * 34 + 5 * a * s * s) / 8);
        // Selective recomputation (§4.2): 34sbh.
        assert_eq!(layer.per_rank(&input, false), s * h * 34);
    }

    #[test]
    fn without_dropout_and_with_flash_only_the_kept_tensors_remain() {
        let (a, s, h) = (32u128, 2048u128, 4096u128);
        let input = TransformerInput {
            attention: Attention::Flash,
            ..gpt_like(32, 2048, 4096, false)
        };
        let layer = layer_activations(&input, Ffn::Dense);
        // 34 − 2 masks = 32 two-byte-ish units of sbh, plus FP32 log-sum-exp per head.
        assert_eq!(
            layer.replicated + layer.split + layer.scores,
            s * h * 32 + 4 * a * s
        );
    }

    /// Under autocast the norms read the FP32 residual stream and the
    /// projections their own BF16 casts.
    #[test]
    fn autocast_keeps_the_residual_stream_in_fp32() {
        // Llama 2 7B's shape with LayerNorm, 4,096 tokens: two norm inputs at
        // 4 bytes and two projection inputs at 2, and the casts of the
        // separate Q, K, V and gate, up projections beyond those two (3 + 2 −
        // 2 = 3 more, `autocast_casts`): 4,096 × (2 × 4 + 2 × 2 + 3 × 2) ×
        // 4,096 bytes.
        let amp = TransformerInput {
            arch: Architecture {
                norm: Norm::LayerNorm,
                ..arch("llama-2-7b")
            },
            seq: 4096,
            recipe: Recipe::Amp,
            ..TransformerInput::default()
        };
        assert_eq!(amp.residual_bytes(), 4);
        assert_eq!(layer_activations(&amp, Ffn::Dense).replicated, 301_989_888);
        // Pure BF16 computes the stream in 16 bits: Korthikanti's 4 × 2 bytes.
        let bf16 = TransformerInput {
            recipe: Recipe::Bf16,
            ..amp
        };
        assert_eq!(layer_activations(&bf16, Ffn::Dense).replicated, 134_217_728);
        // The 16-bit projections' terms do not move.
        assert_eq!(
            layer_activations(&amp, Ffn::Dense).split,
            layer_activations(&bf16, Ffn::Dense).split
        );
        // Inference loads the model in its compute precision.
        let generate = TransformerInput {
            mode: Mode::Inference,
            ..amp
        };
        assert_eq!(generate.residual_bytes(), 2);
    }

    /// Eager attention under autocast: the softmax runs in FP32, and the
    /// product with V needs a 16-bit copy.
    #[test]
    fn eager_scores_under_autocast_keep_an_fp32_softmax() {
        // One layer, 8 heads, 16 tokens: a·s² = 2,048 scores per sample.
        let bf16 = TransformerInput {
            recipe: Recipe::Bf16,
            ..gpt_like(8, 16, 64, true)
        };
        // 16-bit throughout, with dropout (Korthikanti): softmax output 2,
        // mask 1, dropout output 2 bytes per score.
        assert_eq!(
            layer_activations(&bf16, Ffn::Dense).scores,
            2_048 * (2 + 1 + 2)
        );
        // Autocast: FP32 softmax output 4, mask 1, 16-bit dropout output 2
        // (GPT-2's `.type(value.dtype)` cast feeds the dropout, which does
        // not save its input).
        let amp = TransformerInput {
            recipe: Recipe::Amp,
            ..bf16
        };
        assert_eq!(
            layer_activations(&amp, Ffn::Dense).scores,
            2_048 * (4 + 1 + 2)
        );
        // No dropout (Llama): FP32 softmax output 4 and its 16-bit copy 2,
        // the product's input; in 16 bits throughout the softmax output
        // alone, 2.
        let no_dropout = |input: TransformerInput| TransformerInput {
            arch: Architecture {
                dropout: false,
                ..input.arch
            },
            ..input
        };
        assert_eq!(
            layer_activations(&no_dropout(amp), Ffn::Dense).scores,
            2_048 * (4 + 2)
        );
        assert_eq!(
            layer_activations(&no_dropout(bf16), Ffn::Dense).scores,
            2_048 * 2
        );
        // FP32: 4 + 1 + 4 with dropout.
        let fp32 = TransformerInput {
            recipe: Recipe::Fp32,
            ..bf16
        };
        assert_eq!(
            layer_activations(&fp32, Ffn::Dense).scores,
            2_048 * (4 + 1 + 4)
        );
    }

    /// No fused SDPA kernel takes FP32 grouped-query attention: the math
    /// kernel materialises the scores.
    #[test]
    fn fp32_grouped_query_attention_falls_back_to_the_math_kernel() {
        // Qwen2.5-0.5B's shape (14 heads, 2 KV heads), 2,048 tokens, FP32:
        // the softmax output, 14 × 2,048² × 4 = 234,881,024 bytes per layer,
        // and no log-sum-exp.
        let fp32 = TransformerInput {
            arch: arch("qwen2.5-0.5b"),
            seq: 2048,
            recipe: Recipe::Fp32,
            attention: Attention::Flash,
            ..TransformerInput::default()
        };
        assert_eq!(fp32.kernel(), Attention::Eager);
        assert_eq!(layer_activations(&fp32, Ffn::Dense).scores, 234_881_024);
        // BF16 runs the flash kernel: no scores.
        let bf16 = TransformerInput {
            recipe: Recipe::Bf16,
            ..fp32
        };
        assert_eq!(bf16.kernel(), Attention::Flash);
        assert_eq!(layer_activations(&bf16, Ffn::Dense).scores, 0);
        // FP32 with as many KV heads as heads runs the memory-efficient kernel.
        let mha = TransformerInput {
            arch: Architecture {
                kv_heads: 14,
                ..fp32.arch
            },
            ..fp32
        };
        assert_eq!(mha.kernel(), Attention::Flash);
        assert_eq!(layer_activations(&mha, Ffn::Dense).scores, 0);
    }

    /// Full recomputation reruns a layer after the backward pass has freed the
    /// loss's, the head's and the final norm's tensors.
    #[test]
    fn a_recomputed_layer_comes_after_the_loss() {
        // Llama 2 7B, 4,096 tokens, `amp`: 32 FP32 layer inputs (4 × 4,096 ×
        // 4,096 = 67,108,864 each); one layer's set 931,659,776; the output
        // layer's terms (final norm and head inputs 167,772,160, the loss's
        // 12 × 4,096 × 32,000 = 1,572,864,000) 1,740,636,160. The larger of the
        // last two counts.
        let full = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recompute: Recompute::Full,
            ..TransformerInput::default()
        };
        assert_eq!(
            layer_activations(&full, Ffn::Dense).per_rank(&full, true),
            931_659_776
        );
        assert_eq!(
            activations_per_sample(&full),
            32 * 67_108_864 + 1_740_636_160
        );
        // A vocabulary of 10: the output layer's terms (167,772,160 +
        // 12 × 4,096 × 10) are smaller than the recomputed layer's set and
        // the backward pass's working tensors beside it: the FP32 residual
        // stream's gradient (67,108,864) and the gated product's three
        // gradients (3 × 2 × 11,008 × 4,096 = 270,532,608).
        let small_vocabulary = TransformerInput {
            arch: Architecture {
                vocab: 10,
                ..full.arch
            },
            ..full
        };
        assert_eq!(
            activations_per_sample(&small_vocabulary),
            32 * 67_108_864 + 931_659_776 + 67_108_864 + 270_532_608
        );
        // BERT's embedding norm sits below the layers: its input (FP32 under
        // autocast, 4 × 512 × 1,024) is alive while each layer is recomputed.
        let bert = TransformerInput {
            arch: arch("bert-large"),
            seq: 512,
            recompute: Recompute::Full,
            ..TransformerInput::default()
        };
        // The working tensors beside it: the FP32 residual gradient and
        // GELU's two gradients (2 × 2 × 4,096 × 512).
        let set = layer_activations(&bert, Ffn::Dense).per_rank(&bert, true);
        let working = 4 * 512 * 1024 + 2 * 2 * 4096 * 512;
        let dropout_mask = 512 * 1024;
        assert_eq!(
            activations_per_sample(&bert),
            24 * 4 * 512 * 1024 + dropout_mask + 4 * 512 * 1024 + set + working
        );
    }

    /// The backward pass's working tensors (docs/model.md §3.3, "The
    /// backward pass's working tensors"): the residual stream's gradient and
    /// the largest set of a layer's own gradients alive at once, per sample.
    #[test]
    fn the_backward_pass_holds_its_working_tensors() {
        let llama = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::Bf16,
            attention: Attention::Flash,
            ..TransformerInput::default()
        };
        let amp = TransformerInput {
            recipe: Recipe::Amp,
            ..llama
        };
        let vit = TransformerInput {
            arch: arch("vit-b-16"),
            recipe: Recipe::Amp,
            attention: Attention::Flash,
            ..TransformerInput::default()
        };
        // (case, input, residual gradient, the layer's largest set, both)
        for (case, input, residual, layer, working) in [
            // 4,096 × 2 × 4,096; the gated product's three gradients
            // 3 × 2 × 11,008 × 4,096 (the attention's four, 4 × 2 × 4,096 ×
            // 4,096 = 134,217,728, are fewer).
            ("llama bf16", llama, 33_554_432, 270_532_608, 304_087_040),
            // Autocast: the FP32 stream's gradient, 4,096 × 4 × 4,096.
            ("llama amp", amp, 67_108_864, 270_532_608, 337_641_472),
            // Eager attention under autocast: the FP32 softmax's incoming
            // and returned gradients, 2 × 4 × 32 × 4,096².
            (
                "llama amp eager",
                TransformerInput {
                    attention: Attention::Eager,
                    ..amp
                },
                67_108_864,
                4_294_967_296,
                4_362_076_160,
            ),
            // Tensor parallelism with sequence parallelism halves both.
            (
                "llama bf16 tp=2 sp",
                TransformerInput {
                    tp: 2,
                    sp: true,
                    ..llama
                },
                16_777_216,
                135_266_304,
                152_043_520,
            ),
            // ViT-B/16, 197 tokens: 197 × 4 × 768; GELU's two gradients
            // 2 × 2 × 3,072 × 197.
            ("vit amp", vit, 605_184, 2_420_736, 3_025_920),
            // GPT-2's `gelu_new` under autocast: its last product's three
            // FP32 gradients, 3 × 4 × 3,072 × 1,024.
            (
                "gpt2 amp",
                TransformerInput {
                    arch: arch("gpt2"),
                    seq: 1024,
                    recipe: Recipe::Amp,
                    attention: Attention::Flash,
                    ..TransformerInput::default()
                },
                3_145_728,
                37_748_736,
                40_894_464,
            ),
        ] {
            assert_eq!(residual_gradient(&input), residual, "{case}");
            assert_eq!(backward_working(&input, Ffn::Dense), working, "{case}");
            assert_eq!(working - residual, layer, "{case}");
        }
        // A decoder's loss holds more (3 × 4 × 4,096 × 32,000 =
        // 1,572,864,000 bytes of logits and their gradients): the working
        // tensors are not at the peak.
        let saved = training_saved(&llama);
        assert_eq!(
            activations_per_sample(&llama),
            32 * saved.dense + saved.above
        );
        // ViT's final norm input (605,184 bytes) is all above its layers: at
        // the start of the layers' backward pass the working tensors are
        // alive with every saved tensor, 2,420,736 bytes per sample more
        // than the norm's input; 77,463,552 at batch 32 (G039).
        let saved = training_saved(&vit);
        assert_eq!(saved.above, 605_184);
        assert_eq!(activations_per_sample(&vit), 12 * saved.dense + 3_025_920);
        assert_eq!(32 * (3_025_920 - saved.above), 77_463_552);
    }

    /// The gradients created beside the last layer's two working sets
    /// (docs/model.md §3.3, "The gradients beside the layer in flight"):
    /// everything above the layers, and the layer's own parameters whose
    /// backward ran before that set.
    #[test]
    fn the_gradients_beside_the_last_layer_are_counted() {
        let vit = TransformerInput {
            arch: Architecture {
                labels: 1000,
                ..arch("vit-b-16")
            },
            batch: 32,
            recipe: Recipe::Amp,
            attention: Attention::Flash,
            ..TransformerInput::default()
        };
        let bert = TransformerInput {
            arch: Architecture {
                labels: 2,
                ..arch("bert-large")
            },
            batch: 4,
            seq: 512,
            recipe: Recipe::Fp32,
            attention: Attention::Flash,
            ..TransformerInput::default()
        };
        for (case, input, gradients) in [
            // ViT-B/16: the final LayerNorm 2 × 768 and the classifier
            // 1,000 × 768 + 1,000 (770,536). Before GELU's set fc2, 3,072 ×
            // 768 + 768 = 2,360,064, and no norm after the FFN in a pre-norm
            // block: 4 × 3,130,600. Before the attention core's, the FFN
            // (2,362,368 + 2,360,064), the output projection 768² + 768 and
            // the pre-FFN norm 1,536 (5,314,560): 4 × 6,085,096.
            ("vit amp", vit, [12_522_400, 24_340_384]),
            // FP32 gradients alike; pure BF16 ones of 2 bytes.
            (
                "vit fp32",
                TransformerInput {
                    recipe: Recipe::Fp32,
                    ..vit
                },
                [12_522_400, 24_340_384],
            ),
            (
                "vit bf16",
                TransformerInput {
                    recipe: Recipe::Bf16,
                    ..vit
                },
                [6_261_200, 12_170_192],
            ),
            // BERT-large: the pooler 1,024² + 1,024 and the classifier 2 ×
            // 1,024 + 2 (1,051,650). Before GELU's set the output dense
            // 4,096 × 1,024 + 1,024 and the output LayerNorm 2,048 after it
            // (4,197,376): 4 × 5,249,026. Before the attention core's the
            // FFN (4,198,400 + 4,195,328), the attention's output dense
            // 1,024² + 1,024 and both post-norms 2 × 2,048 (9,447,424): 4 ×
            // 10,499,074.
            ("bert", bert, [20_996_104, 41_996_296]),
            // Mixtral 8x7B, 4,096 tokens, `bf16`: before the routed copies'
            // set every local expert's down projection, 8 × 14,336 × 4,096
            // = 469,762,048, beside the final RMSNorm 4,096 and the head
            // 32,000 × 4,096 (131,076,096): 2 × 600,838,144. Before the
            // attention core's every expert's three matrices (8 × 3 ×
            // 58,720,256), the router 4,096 × 8, o_proj 4,096² and the
            // pre-FFN norm 4,096 (1,426,100,224): 2 × 1,557,176,320.
            (
                "mixtral bf16",
                TransformerInput {
                    arch: arch("mixtral-8x7b"),
                    seq: 4096,
                    recipe: Recipe::Bf16,
                    attention: Attention::Flash,
                    ..TransformerInput::default()
                },
                [1_201_676_288, 3_114_352_640],
            ),
            // Where the gradients leave autograd's `.grad` or none is made.
            (
                "vit lora",
                TransformerInput {
                    lora_rank: 16,
                    ..vit
                },
                [0, 0],
            ),
            (
                "vit zero-2",
                TransformerInput {
                    gpus: 2,
                    zero: 2,
                    ..vit
                },
                [0, 0],
            ),
            (
                "vit inference",
                TransformerInput {
                    mode: Mode::Inference,
                    ..vit
                },
                [0, 0],
            ),
        ] {
            assert_eq!(gradients_beside_layers(&input), gradients, "{case}");
        }
        // Each moment's activations: every saved tensor with the layer's
        // working set. A ViT's GELU set is the larger per sample (2,420,736
        // against the flash attention's 197 × 2 × 4 × 768 = 1,210,368), its
        // moment the start of the backward pass as the estimate counts it
        // (the loss's tensors are fewer: the final norm's input).
        let [ffn, attention] = layers_backward(&vit);
        assert_eq!(ffn, (activations_per_sample(&vit), 12_522_400));
        assert_eq!(ffn.0 - attention.0, 2_420_736 - 1_210_368);
        // BERT-large's eager FP32 softmax: two a·s² gradients (2 × 4 × 16 ×
        // 512² = 33,554,432 per sample) against GELU's 2 × 4 × 4,096 × 512.
        let eager = TransformerInput {
            attention: Attention::Eager,
            ..bert
        };
        let [ffn, attention] = layers_backward(&eager);
        assert_eq!(attention.0 - ffn.0, 33_554_432 - 16_777_216);
        assert_eq!(attention.0, activations_per_sample(&eager));
    }

    /// The embedding's backward at the end of the backward pass (docs/model.md
    /// §3.3, "The end of the backward pass"): its incoming gradient, and a
    /// tied embedding's second vocab × hidden gradient.
    #[test]
    fn the_embedding_s_backward_holds_its_gradients() {
        let gpt2 = TransformerInput {
            arch: arch("gpt2"),
            seq: 1024,
            recipe: Recipe::Amp,
            ..TransformerInput::default()
        };
        // GPT-2 ties its head: 4 × 50,257 × 768 beside the head's in the
        // input buffer; the FP32 stream's gradient 1,024 × 4 × 768.
        assert_eq!(embedding_backward(&gpt2), (154_389_504, 3_145_728));
        // Pure BF16: 2 × 50,257 × 768 and 1,024 × 2 × 768.
        let bf16 = TransformerInput {
            recipe: Recipe::Bf16,
            ..gpt2
        };
        assert_eq!(embedding_backward(&bf16), (77_194_752, 1_572_864));
        // Llama 2 7B's embedding is untied: its gradient is stolen into
        // `.grad`; the incoming gradient 4,096 × 4 × 4,096.
        let llama = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::Amp,
            ..TransformerInput::default()
        };
        assert_eq!(embedding_backward(&llama), (0, 67_108_864));
        // With LoRA the embedding is frozen: no backward of its own.
        let lora = TransformerInput {
            lora_rank: 16,
            ..gpt2
        };
        assert_eq!(embedding_backward(&lora), (0, 0));
    }

    /// `grad_accum_fusion=0` (docs/model.md §3.3, "Megatron-LM's 16-bit
    /// weight gradients"): the output layer's BF16 gradient, and beside a
    /// layer's backward a tied head's with the layer's largest.
    #[test]
    fn unfused_weight_gradients_are_the_head_s_and_a_layer_s() {
        let llama = TransformerInput {
            arch: arch("llama-3.1-8b"),
            seq: 1024,
            recipe: Recipe::MainFp32,
            grad_accum_fusion: false,
            ..TransformerInput::default()
        };
        let of = |input: &TransformerInput| unfused_gradients(input, Ends::WHOLE);
        // The head 2 × 128,256 × 4,096; untied, so beside a layer only the
        // layer's largest: Megatron-Core's `linear_fc1`, gate and up as one
        // matrix, 2 × 2 × 14,336 × 4,096, however the checkpoint's code lays
        // its projections out (`fused_proj`); over 4 tensor-parallel ranks a
        // quarter of each.
        assert_eq!(
            of(&llama),
            Some(UnfusedGradients {
                head: 1_050_673_152,
                layers: 234_881_024,
            })
        );
        let fused = TransformerInput {
            arch: Architecture {
                fused_proj: FusedProj::All,
                ..llama.arch
            },
            ..llama
        };
        assert_eq!(of(&fused), of(&llama));
        assert_eq!(
            of(&TransformerInput { tp: 4, ..fused }),
            Some(UnfusedGradients {
                head: 262_668_288,
                layers: 58_720_256,
            })
        );
        // The Megatron GPT toy ties its head: 2 × 50,304 × 512 waits for the
        // embedding's beside every layer, with the first MLP map's 2 × 2,048
        // × 512. A pipeline rank without the embedding holds a copy of the
        // head, which waits for nothing.
        let toy = TransformerInput {
            arch: Architecture {
                layers: 12,
                hidden: 512,
                heads: 8,
                kv_heads: 8,
                ffn: 2048,
                vocab: 50_304,
                mlp: Mlp::Gelu,
                tied: true,
                fused_proj: FusedProj::All,
                ..Architecture::default()
            },
            ..llama
        };
        assert_eq!(
            of(&toy),
            Some(UnfusedGradients {
                head: 51_511_296,
                layers: 53_608_448,
            })
        );
        let last = Ends {
            embedding: false,
            head: true,
        };
        assert_eq!(
            unfused_gradients(&toy, last).map(|g| g.layers),
            Some(2_097_152)
        );
        // Fused (the default), another recipe, inference or LoRA: none.
        for input in [
            TransformerInput {
                grad_accum_fusion: true,
                ..toy
            },
            TransformerInput {
                recipe: Recipe::Amp,
                ..toy
            },
            TransformerInput {
                mode: Mode::Inference,
                ..toy
            },
            TransformerInput {
                lora_rank: 8,
                ..toy
            },
        ] {
            assert_eq!(of(&input), None);
        }
    }

    /// Megatron-Core's `--recompute-modules` (docs/model.md §3.3, "Megatron-Core's
    /// recompute modules"): per layer and sample, what each module set keeps,
    /// and the activations, whose peak is the loss's (the recomputed module
    /// and the working tensors are smaller) and so falls by 32 × the layer's
    /// saving.
    #[test]
    fn recompute_modules_keep_their_inputs() {
        let modules = |text: &str| RecomputeModules::parse(text).unwrap_or_else(|e| panic!("{e}"));
        let llama = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::Bf16,
            recompute: Recompute::Selective,
            ..TransformerInput::default()
        };
        let mixtral = TransformerInput {
            arch: arch("mixtral-8x7b"),
            ..llama
        };
        let sh = 4096 * 4096;
        // The default layer: norms (4 + 2) × 2, the projections' inputs 2 × 2,
        // per hidden unit; Q, K, V and the output 2 × 4 × 4,096, the gated
        // MLP 4 × 2 × 11,008 and the log-sum-exp 4 × 32 per token.
        let layer: u128 = 16 * sh + 4096 * (32_768 + 88_064 + 128);
        assert_eq!(layer, 763_887_616);
        // (modules, set, the layer's saving, the recomputed module's set)
        for (case, input, saving, recomputed) in [
            ("core_attn", llama, 0, 0),
            // The MLP's four intermediates.
            ("core_attn,mlp", llama, 4096 * 88_064, 4096 * 88_064),
            // Each norm keeps its input (2) of its 4 + 2, and its output
            // (2, the projections' input) is freed: 2 × 6 × sbh.
            // One norm is recomputed at a time: 6 × sbh.
            ("core_attn,layernorm", llama, 12 * sh, 6 * sh),
            // Without `core_attn` flash keeps what it kept: nothing to drop.
            ("mlp", llama, 4096 * 88_064, 4096 * 88_064),
        ] {
            let selective = TransformerInput {
                recompute_modules: modules(case),
                ..input
            };
            let saved = training_saved(&selective);
            assert_eq!(saved.dense, layer - saving, "{case}");
            assert_eq!(saved.recomputed_dense, recomputed, "{case}");
            assert_eq!(
                activations_per_sample(&selective),
                activations_per_sample(&llama) - 32 * saving,
                "{case}"
            );
        }
        // Mixtral 8x7B: `moe_act` frees the activation's output and the
        // product of every routed copy (2 × 4,096 of them), 2 × 2 × 14,336
        // bytes each, and keeps the gate's and the up projection's outputs.
        let moe_act = TransformerInput {
            recompute_modules: modules("core_attn,moe_act"),
            ..mixtral
        };
        let saving = 8192 * 4 * 14_336;
        assert_eq!(saving, 469_762_048);
        let (default, freed) = (training_saved(&mixtral), training_saved(&moe_act));
        assert_eq!(default.moe - freed.moe, saving);
        assert_eq!(freed.recomputed_moe, saving);
        assert_eq!(
            activations_per_sample(&mixtral) - activations_per_sample(&moe_act),
            32 * saving
        );
        // The whole MoE layer: its router, copies and experts.
        let moe = TransformerInput {
            recompute_modules: modules("core_attn,moe"),
            ..mixtral
        };
        let (router, copies, experts) = moe_saved(&mixtral);
        assert_eq!(
            default.moe - training_saved(&moe).moe,
            router + copies + experts
        );
    }

    #[test]
    fn recompute_modules_read_as_a_set() {
        let all = "core_attn,mlp,layernorm,moe_act,moe,shared_experts";
        let set = RecomputeModules::parse(all).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(set.text(), all);
        assert_eq!(
            RecomputeModules::parse(" mlp , core_attn").map(RecomputeModules::text),
            Ok("core_attn,mlp".to_owned())
        );
        assert!(RecomputeModules::parse("").is_err());
        assert_eq!(
            RecomputeModules::MLP.dropping(RecomputeModules::MLP),
            RecomputeModules::default()
        );
        assert_eq!(
            RecomputeModules::parse("core_attn,mla_up_proj").map_err(|e| e.problem),
            Err(Problem::NotAnOption {
                allowed: RecomputeModules::NAMES
            })
        );
        assert_eq!(
            RecomputeModules::parse("mlp,core_attn,mlp").map_err(|e| e.problem),
            Err(Problem::Repeated { item: "mlp" })
        );
        assert_eq!(RecomputeModules::default().text(), "core_attn");
    }

    /// Partial checkpointing (`recompute_method`, `recompute_layers`):
    /// Megatron-Core's uniform groups and first-N block, torchtitan's every
    /// n-th layer. Llama 2 7B, 4,096 tokens, `amp`: a layer's input
    /// 67,108,864 bytes (FP32), its full set 931,659,776, the output
    /// layer's terms 1,740,636,160 (`a_recomputed_layer_comes_after_the_loss`).
    #[test]
    fn partial_checkpointing_keeps_the_layers_it_does_not_checkpoint() {
        let (input, set, above) = (67_108_864_u128, 931_659_776_u128, 1_740_636_160_u128);
        // The backward pass's working tensors beside a recomputed set
        // (`the_backward_pass_holds_its_working_tensors`, autocast).
        let working = 337_641_472_u128;
        let full = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recompute: Recompute::Full,
            ..TransformerInput::default()
        };
        let plan = |method, layers| TransformerInput {
            recompute_method: method,
            recompute_layers: layers,
            ..full
        };
        assert_eq!(activations_per_sample(&full), 3_888_119_808);
        // Uniform groups of 4: 8 group inputs; the backward pass recomputes
        // a whole group at once, 4 full sets and the working tensors, more
        // than the loss's tensors.
        let uniform = plan(RecomputeMethod::Uniform, 4);
        assert_eq!(
            activations_per_sample(&uniform),
            8 * input + 4 * set + working
        );
        assert_eq!(activations_per_sample(&uniform), 4_601_151_488);
        // Groups of one are today's `full`, exactly.
        assert_eq!(
            activations_per_sample(&plan(RecomputeMethod::Uniform, 1)),
            activations_per_sample(&full)
        );
        // Block 8: the first 8 layers keep their input, the other 24 their
        // full set; when the backward pass reaches layer 8 the 24 are freed,
        // so its recomputation never adds to the peak: the loss's moment.
        let block = plan(RecomputeMethod::Block, 8);
        assert_eq!(activations_per_sample(&block), 8 * input + 24 * set + above);
        assert_eq!(activations_per_sample(&block), 24_637_341_696);
        // Every 2nd (layers 2, 4, …, 32): 16 inputs and 16 full sets; layer
        // 32 is recomputed first, smaller than the loss's tensors.
        let every = plan(RecomputeMethod::Every, 2);
        assert_eq!(
            activations_per_sample(&every),
            16 * input + 16 * set + above
        );
        assert_eq!(activations_per_sample(&every), 17_720_934_400);
        // A vocabulary of 10 makes the layers' backward pass set the peak:
        // the recomputation where a checkpoint is the last layer (every
        // 2nd), the last layer's own working tensors where it keeps its
        // full set (every 3rd: layers 31 and 32 are not checkpointed, 30
        // is).
        let small = |method, layers| TransformerInput {
            arch: Architecture {
                vocab: 10,
                ..full.arch
            },
            ..plan(method, layers)
        };
        let small_above = 167_772_160 + 12 * 4096 * 10;
        assert_eq!(
            activations_per_sample(&small(RecomputeMethod::Every, 2)),
            16 * input + 16 * set + set + working
        );
        // Every 3rd: the last layer's own backward pass, beside every kept
        // set, outweighs the loss's tensors of so small a vocabulary.
        assert!(working > small_above);
        assert_eq!(
            activations_per_sample(&small(RecomputeMethod::Every, 3)),
            10 * input + 22 * set + working
        );
        // More layers than the model has: block checkpoints every layer,
        // every n-th none (torchtitan's counter never reaches n).
        assert_eq!(
            activations_per_sample(&small(RecomputeMethod::Block, 40)),
            32 * input + set + working
        );
        let none = TransformerInput {
            recompute: Recompute::None,
            ..small(RecomputeMethod::Uniform, 1)
        };
        assert_eq!(
            activations_per_sample(&small(RecomputeMethod::Every, 40)),
            activations_per_sample(&none)
        );
        // Offloaded (`act_offload`), the units come back one at a time: the
        // GPU holds the forward stash's largest set, and in the backward
        // pass a checkpoint's input with its recomputed set and the working
        // tensors, never every kept set at once.
        let offloaded = |input: TransformerInput| TransformerInput {
            act_offload: true,
            ..input
        };
        assert_eq!(
            activations_per_sample(&offloaded(block)),
            set + above.max(input + working)
        );
        assert_eq!(
            activations_per_sample(&offloaded(small(RecomputeMethod::Every, 2))),
            input + set + working
        );
        // Only under full recomputation: `selective` ignores the plan.
        let selective = TransformerInput {
            recompute: Recompute::Selective,
            ..block
        };
        assert_eq!(selective.partial_recompute(), None);
    }

    /// A partial plan's groups hold their own layers' full sets, dense and
    /// MoE where the model places them (`moe_every`), counted from the
    /// chunk's first layer (Megatron-Core transformer_block.py
    /// `_checkpointed_forward`, `uniform`). A layer input of 4 bytes, full
    /// sets of 20 (dense) and 57 (MoE), working tensors of 6; groups of 2.
    #[test]
    fn a_partial_plan_finds_each_moe_layer_in_its_own_group() {
        let arch = Architecture {
            layers: 6,
            experts: 1,
            moe_every: 3,
            ..Architecture::default()
        };
        let saved = Saved {
            dense: 4,
            moe: 4,
            recomputed_dense: 20,
            recomputed_moe: 57,
            working_dense: 6,
            working_moe: 6,
            partial: Some((RecomputeMethod::Uniform, 2)),
            placement: arch.placement(),
            ..Saved::default()
        };
        // Layers 2 and 5 are MoE: groups (0, 1) = 40, (2, 3) = 77, (4, 5) =
        // 77. From the top: 77 − 0, 77 − 4 (the group above freed its
        // input), 40 − 8: the largest excess 77, with the working tensors 83.
        let six = Span { first: 0, end: 6 };
        assert_eq!(saved.layers(six), 3 * 4);
        assert_eq!(saved.layer_transient(six), 77 + 6);
        // Dense layers first, the two MoE layers would have shared the last
        // group: 2 × 57 + 6 = 120.
        assert_eq!(saved.kinds(six), (4, 2));
        // A seventh layer (dense) is a group of its own: 20 − 0, 77 − 4,
        // 77 − 8, 40 − 12; 73 + 6 = 79 beside 4 inputs: 95, as with six
        // (12 + 83). Never less with one more layer.
        let seven = Span { first: 0, end: 7 };
        assert_eq!(saved.layers(seven) + saved.layer_transient(seven), 16 + 79);
        assert_eq!(saved.layers(six) + saved.layer_transient(six), 95);
        // A pipeline chunk of layers 4..7 counts its groups from layer 4:
        // (4, 5) = 20 + 57 and (6) = 20; 77 − 4 + 6 = 79.
        let chunk = Span { first: 4, end: 7 };
        assert_eq!(saved.layers(chunk), 2 * 4);
        assert_eq!(saved.layer_transient(chunk), 73 + 6);
        // Block 1 keeps layer 0's input and the full sets of the rest: the
        // largest, offloaded, is the MoE layers' 57.
        let block = Saved {
            partial: Some((RecomputeMethod::Block, 1)),
            ..saved
        };
        assert_eq!(block.layers(six), 4 + 3 * 20 + 2 * 57);
        assert_eq!(block.largest_kept(six), 57);
        assert_eq!(block.largest_kept(Span { first: 0, end: 2 }), 20);
    }

    /// Transformer Engine's and Apex's fused norms (`norm_kernel=fused`) keep
    /// their input as they receive it, where the element-wise RMSNorm keeps an
    /// FP32 copy and the normalized tensor.
    #[test]
    fn fused_norms_keep_their_input() {
        // Llama 2 7B, 4,096 tokens, pure BF16: per norm its BF16 input (2)
        // and the projection's input (2): 4,096 × 2 × (2 + 2) × 4,096 =
        // 134,217,728 bytes per layer, LayerNorm's count, against 268,435,456
        // element-wise.
        let eager = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::Bf16,
            ..TransformerInput::default()
        };
        let fused = TransformerInput {
            norm_kernel: NormKernel::Fused,
            ..eager
        };
        assert_eq!(
            layer_activations(&eager, Ffn::Dense).replicated,
            268_435_456
        );
        assert_eq!(
            layer_activations(&fused, Ffn::Dense).replicated,
            134_217_728
        );
        // Gemma's RMSNorm (the weight applied in FP32) and LayerNorm alike.
        for norm in [Norm::RmsNormFp32, Norm::LayerNorm] {
            let other = TransformerInput {
                arch: Architecture { norm, ..fused.arch },
                ..fused
            };
            assert_eq!(
                layer_activations(&other, Ffn::Dense).replicated,
                134_217_728
            );
        }
        // The final norm too: 4 bytes × s·h fewer outside the layers.
        assert_eq!(outside(&eager) - outside(&fused), 4 * 4096 * 4096);
        // Inference saves nothing either way.
        let generate = |input: TransformerInput| {
            activations_per_sample(&TransformerInput {
                mode: Mode::Inference,
                ..input
            })
        };
        assert_eq!(generate(eager), generate(fused));
    }

    /// `gelu_new` (transformers activations.py `NewGELUActivation`, GPT-2's
    /// `activation_function`) keeps 3p + 2e bytes per FFN unit and token, p =
    /// 4 under autocast (`pow` on its FP32 list), where a fused GELU keeps 2e:
    /// 16 against 4 under autocast, 20 against 8 in FP32, 10 against 4 in BF16.
    #[test]
    fn gelu_new_keeps_each_operations_tensor() {
        let new = TransformerInput {
            arch: arch("gpt2"),
            seq: 1024,
            ..TransformerInput::default()
        };
        assert_eq!(new.arch.mlp, Mlp::GeluNew);
        let fused = TransformerInput {
            arch: Architecture {
                mlp: Mlp::Gelu,
                ..new.arch
            },
            ..new
        };
        for (recipe, kept, one_kernel) in [
            (Recipe::Amp, 16, 4),
            (Recipe::Fp32, 20, 8),
            (Recipe::Bf16, 10, 4),
        ] {
            let with = |input: &TransformerInput| {
                layer_activations(&TransformerInput { recipe, ..*input }, Ffn::Dense).split
            };
            assert_eq!(
                with(&new) - with(&fused),
                1024 * (kept - one_kernel) * 3072,
                "{recipe:?}"
            );
        }
        // G001 (validation/gpu-measurements.csv: GPT-2 small under autocast,
        // 8 × 1,024 tokens): 12 × 3,072 bytes more per token and layer over
        // 12 layers, 3,623,878,656 bytes.
        let g001 = |input: &TransformerInput| {
            8 * activations_per_sample(&TransformerInput {
                recipe: Recipe::Amp,
                ..*input
            })
        };
        assert_eq!(g001(&new) - g001(&fused), 3_623_878_656);
        // Inference: x, 0.5·x and the cube with its product by a constant at
        // once, 4e per unit against 2e.
        let prefill = |input: &TransformerInput| {
            prefill_activations(&TransformerInput {
                mode: Mode::Inference,
                recipe: Recipe::Bf16,
                ..*input
            })
        };
        assert_eq!(prefill(&new) - prefill(&fused), 1024 * 2 * 2 * 3072);
    }

    /// Under autocast every matrix product casts the norm's FP32 output for
    /// itself and saves the cast: separate projections save one each.
    #[test]
    fn autocast_casts_once_per_projection() {
        // Llama 2 7B, 4,096 tokens, `amp`: Q, K, V and gate, up separate, 5
        // casts where one per sublayer (2) is counted with the inputs: 3 × 2 ×
        // 4,096 × 4,096 = 100,663,296 bytes more per layer; with one QKV
        // matrix the gate and up casts (1 more, 33,554,432); all fused, none.
        let separate = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::Amp,
            ..TransformerInput::default()
        };
        let with = |fused_proj| TransformerInput {
            arch: Architecture {
                fused_proj,
                ..separate.arch
            },
            ..separate
        };
        assert_eq!(autocast_casts(&separate, Ffn::Dense) * 4096, 100_663_296);
        assert_eq!(
            autocast_casts(&with(FusedProj::Qkv), Ffn::Dense) * 4096,
            33_554_432
        );
        assert_eq!(autocast_casts(&with(FusedProj::All), Ffn::Dense), 0);
        // Compiled, the graph's CSE keeps one cast whatever the layout.
        let compiled = TransformerInput {
            compile: true,
            ..with(FusedProj::None)
        };
        assert_eq!(autocast_casts(&compiled, Ffn::Dense), 0);
        assert_eq!(
            layer_activations(&separate, Ffn::Dense).replicated
                - layer_activations(&with(FusedProj::All), Ffn::Dense).replicated,
            100_663_296
        );
        // Phi-3's qkv_proj and gate_up_proj: the preset saves one cast each.
        assert_eq!(arch("phi-3-mini").fused_proj, FusedProj::All);
        // Outside autocast a 16-bit norm output is one tensor for all readers.
        for recipe in [Recipe::Bf16, Recipe::Fp32, Recipe::MainFp32] {
            let input = TransformerInput { recipe, ..separate };
            assert_eq!(autocast_casts(&input, Ffn::Dense), 0, "{recipe:?}");
        }
        // ViT-B/16 (G039): separate Q, K, V and one MLP input: 2 more casts,
        // 2 × 2 × 768 bytes per token and layer. Phi-2's parallel block: one
        // norm read by Q, K, V and fc1, 4 casts where 1 is counted.
        let vit = TransformerInput {
            arch: arch("vit-b-16"),
            ..separate
        };
        assert_eq!(autocast_casts(&vit, Ffn::Dense), 2 * 2 * 768);
        let phi = TransformerInput {
            arch: arch("phi-2"),
            ..separate
        };
        assert_eq!(autocast_casts(&phi, Ffn::Dense), 3 * 2 * 2560);
        // GPT-2's one c_attn and ungated MLP: nothing more.
        let gpt2 = TransformerInput {
            arch: arch("gpt2"),
            ..separate
        };
        assert_eq!(autocast_casts(&gpt2, Ffn::Dense), 0);
        // A MoE layer's router casts the MLP norm's output (the one
        // counted): Mixtral's separate Q, K, V add 2. DeepSeek-V3's MLA reads
        // its norm twice (1 more), and its shared expert casts the MLP norm's
        // output again for gate and up (2 more): 3 × 2 × 7,168 per token,
        // where its dense layers' gate and up make 2 × 2 × 7,168.
        let mixtral = TransformerInput {
            arch: arch("mixtral-8x7b"),
            ..separate
        };
        assert_eq!(autocast_casts(&mixtral, Ffn::Moe), 2 * 2 * 4096);
        let deepseek = TransformerInput {
            arch: arch("deepseek-v3"),
            ..separate
        };
        assert_eq!(autocast_casts(&deepseek, Ffn::Moe), 3 * 2 * 7168);
        assert_eq!(autocast_casts(&deepseek, Ffn::Dense), 2 * 2 * 7168);
    }

    /// Megatron-Core's vocab-parallel cross-entropy keeps one FP32 softmax,
    /// which its backward turns into the gradient in place, and the
    /// gradient's cast back to the logits' dtype.
    #[test]
    fn vocab_parallel_cross_entropy_keeps_one_fp32_softmax() {
        // Llama 2 7B, 4,096 tokens, vocabulary 32,000 (s·v = 131,072,000),
        // BF16 model: (4 + 2) × s·v = 786,432,000 bytes where the full loss
        // keeps 12 × s·v = 1,572,864,000; split over tensor-parallel ranks.
        let megatron = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::MainFp32,
            loss: Loss::VocabParallel,
            ..TransformerInput::default()
        };
        let full = TransformerInput {
            loss: Loss::Full,
            ..megatron
        };
        assert_eq!(outside(&full) - outside(&megatron), 786_432_000);
        // The final norm's input (its FP32 copy and the BF16 normalized
        // tensor, element-wise) and the head's input.
        let inputs = 4096 * (4 + 2 + 2) * 4096;
        assert_eq!(outside(&megatron), inputs + 786_432_000);
        let tp4 = TransformerInput { tp: 4, ..megatron };
        assert_eq!(outside(&tp4), inputs + 196_608_000);
        // `logits` does not change it: the function casts to FP32 itself.
        let bf16_logits = TransformerInput {
            logits: Logits::Bf16,
            ..megatron
        };
        assert_eq!(outside(&bf16_logits), outside(&megatron));
        // An FP32 model: the softmax is the logits' own storage and needs no
        // cast back, 4 × s·v.
        let fp32 = TransformerInput {
            recipe: Recipe::Fp32,
            ..megatron
        };
        assert_eq!(outside(&fp32), 4096 * (4 + 4 + 4) * 4096 + 4 * 131_072_000);
    }

    /// RMSNorm as Hugging Face and torchtune write it saves an FP32 copy of
    /// its input and the normalized tensor, where nn.LayerNorm saves its input.
    #[test]
    fn rms_norm_saves_an_fp32_copy_and_the_normalized_tensor() {
        // Llama 2 7B, 4,096 tokens, pure BF16: per norm the FP32 upcast (4
        // bytes) and the BF16 normalized tensor (2), then the projection's
        // BF16 input (2): 4,096 × 2 × (4 + 2 + 2) × 4,096 = 268,435,456 bytes
        // per layer, where LayerNorm keeps 4,096 × 2 × (2 + 2) × 4,096.
        let bf16 = TransformerInput {
            arch: arch("llama-2-7b"),
            seq: 4096,
            recipe: Recipe::Bf16,
            ..TransformerInput::default()
        };
        assert_eq!(layer_activations(&bf16, Ffn::Dense).replicated, 268_435_456);
        let layer_norm = TransformerInput {
            arch: Architecture {
                norm: Norm::LayerNorm,
                ..bf16.arch
            },
            ..bf16
        };
        assert_eq!(
            layer_activations(&layer_norm, Ffn::Dense).replicated,
            134_217_728
        );
        // FP32 (and autocast's FP32 stream): the input itself and the FP32
        // normalized tensor, 4 + 4, then the projection's input (4, or a BF16
        // cast under autocast, with three more for the separate projections):
        // 4,096 × 2 × (8 + 4) × 4,096 and 4,096 × (2 × (8 + 2) + 3 × 2) × 4,096.
        let fp32 = TransformerInput {
            recipe: Recipe::Fp32,
            ..bf16
        };
        assert_eq!(layer_activations(&fp32, Ffn::Dense).replicated, 402_653_184);
        let amp = TransformerInput {
            recipe: Recipe::Amp,
            ..bf16
        };
        assert_eq!(layer_activations(&amp, Ffn::Dense).replicated, 436_207_616);
        // The final norm of a decoder likewise: (4 + 2) + 2 bytes per hidden
        // unit and token in BF16 besides the loss, against 2 + 2.
        assert_eq!(outside(&bf16) - outside(&layer_norm), 4 * 4096 * 4096);
    }

    /// `F.cross_entropy` is `nll_loss(log_softmax(logits))`: at the start of the
    /// backward pass the saved log-softmax, the NLL loss's gradient and the
    /// logits' gradient are alive together, each s × v logits.
    #[test]
    fn the_loss_holds_three_logit_sized_tensors() {
        // No layers: only the output layer's terms. 4 tokens, hidden 8,
        // vocabulary 10, FP32: final norm and head inputs 2 × 4 × 8 × 4 = 256
        // bytes; 3 × 4 × (4 × 10) = 480 bytes of logit-sized tensors.
        let input = TransformerInput {
            arch: Architecture {
                layers: 0,
                hidden: 8,
                vocab: 10,
                norm: Norm::LayerNorm,
                ..Architecture::default()
            },
            seq: 4,
            recipe: Recipe::Fp32,
            ..TransformerInput::default()
        };
        assert_eq!(activations_per_sample(&input), 256 + 480);
        // Logits left in 16 bits: 3 × 2 × 40 = 240.
        let bf16 = TransformerInput {
            logits: Logits::Bf16,
            ..input
        };
        assert_eq!(activations_per_sample(&bf16), 256 + 240);
        // Chunked, BF16 compute (inputs 2 × 4 × 8 × 2 = 128): every chunk's
        // FP32 log-softmax (4 × 40 = 160) and one chunk's two FP32 gradients
        // (2 × 4 × 40 / 8 = 40).
        let chunked = TransformerInput {
            loss: Loss::Chunked,
            recipe: Recipe::Bf16,
            ..input
        };
        assert_eq!(activations_per_sample(&chunked), 128 + 160 + 40);
    }

    /// Rajbhandari et al. 2020, §5 / Figure 1: Ψ = 7.5B, K = 12, N_d = 64.
    #[test]
    fn zero_paper_example() {
        let count = ParameterCount {
            total: 7_500_000_000,
            ..ParameterCount::default()
        };
        let gb = |stage: u8| {
            let input = TransformerInput {
                recipe: Recipe::Amp16,
                optimizer: Optimizer::AdamW,
                gpus: 64,
                zero: stage,
                ..TransformerInput::default()
            };
            model_states(&count, &input).total() as f64 / 1e9
        };
        for (stage, want) in [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)] {
            assert!(
                (gb(stage) - want).abs() < 0.05,
                "stage {stage}: {} GB",
                gb(stage)
            );
        }
    }

    #[test]
    fn recipes_cost_the_documented_bytes_per_parameter() {
        let count = ParameterCount {
            total: 1_000_000,
            ..ParameterCount::default()
        };
        for (recipe, optimizer, want) in [
            (Recipe::Fp32, Optimizer::AdamW, 16),
            (Recipe::Amp, Optimizer::AdamW, 18),
            (Recipe::Amp16, Optimizer::AdamW, 16),
            (Recipe::Mixed, Optimizer::AdamW, 14),
            (Recipe::Bf16, Optimizer::AdamW, 8),
            (Recipe::MainFp32, Optimizer::AdamW, 18),
            (Recipe::Fp32, Optimizer::SgdMomentum, 12),
            (Recipe::Fp32, Optimizer::Sgd, 8),
            (Recipe::Amp, Optimizer::None, 10),
        ] {
            let input = TransformerInput {
                recipe,
                optimizer,
                ..TransformerInput::default()
            };
            assert_eq!(
                model_states(&count, &input).total(),
                want * 1_000_000,
                "{recipe:?} {optimizer:?}"
            );
        }
        let foreach = TransformerInput {
            recipe: Recipe::Fp32,
            foreach: true,
            ..TransformerInput::default()
        };
        assert_eq!(model_states(&count, &foreach).total(), 20_000_000);
        let adam8 = TransformerInput {
            recipe: Recipe::Fp32,
            optimizer: Optimizer::Adam8bit,
            ..TransformerInput::default()
        };
        assert_eq!(
            model_states(&count, &adam8).optimizer_states,
            2_000_000 + 8 * 489
        );
    }

    #[test]
    fn adafactor_keeps_rows_plus_columns() {
        let arch = Architecture {
            layers: 1,
            hidden: 4,
            heads: 1,
            kv_heads: 1,
            ffn: 8,
            vocab: 10,
            tied: true,
            mlp: Mlp::Gelu,
            ..Architecture::default()
        };
        let count = parameter_count(&arch);
        // q,k,v,o: 4 × (4 + 4); up, down: 2 × (4 + 8); embedding 10 + 4; 3 RMSNorms of 4.
        assert_eq!(count.factored, 32 + 24 + 14 + 12);
        let input = TransformerInput {
            arch,
            recipe: Recipe::Fp32,
            optimizer: Optimizer::Adafactor,
            ..TransformerInput::default()
        };
        assert_eq!(model_states(&count, &input).optimizer_states, 4 * 82);
    }

    #[test]
    fn kv_cache_follows_the_formula() {
        let input = TransformerInput {
            arch: arch("qwen2.5-7b"),
            mode: Mode::Inference,
            seq: 30_720,
            generated: 2048,
            batch: 1,
            ..TransformerInput::default()
        };
        // 2 × 28 layers × 4 kv heads × 128 × 32,768 tokens × 2 bytes.
        assert_eq!(kv_cache_per_sample(&input), 2 * 28 * 4 * 128 * 32_768 * 2);
    }

    /// torch.compile's saved set (docs/model.md §3.3, "Under torch.compile")
    /// on a Llama-3.1-8B layer at 2,048 tokens, batch 1, pure BF16, flash
    /// attention. Eager, per token: two RMSNorms' FP32 upcasts and
    /// normalized tensors (2 × (4 + 2) × 4,096 = 49,152), the inputs of the
    /// QKV and gate/up maps (2 × 2 × 4,096), Q, K, V and attention's output
    /// (2 × (4,096 + 1,024 + 1,024 + 4,096)) and its log-sum-exp (4 × 32),
    /// the gated MLP's gate, activation, up and product (4 × 2 × 14,336):
    /// 200,832 bytes. Compiled: each norm keeps only its input (2 × 2 ×
    /// 4,096) and the activation output is recomputed: 139,392 bytes, 61,440
    /// fewer. The loss over 128,256 FP32 logits: 3 logit-sized tensors
    /// eager, 2 compiled; torchtune's compiled chunked loss keeps the 16-bit
    /// logits and one chunk's 16-bit gradient.
    #[test]
    fn compiled_layer_keeps_what_the_partitioner_cannot_recompute() {
        let eager = TransformerInput {
            arch: arch("llama-3.1-8b"),
            recipe: Recipe::Bf16,
            seq: 2048,
            batch: 1,
            ..TransformerInput::default()
        };
        let compiled = TransformerInput {
            compile: true,
            ..eager
        };
        assert_eq!(training_saved(&eager).dense, 2048 * 200_832);
        assert_eq!(training_saved(&eager).dense, 411_303_936);
        assert_eq!(training_saved(&compiled).dense, 2048 * 139_392);
        assert_eq!(training_saved(&compiled).dense, 285_474_816);
        // Final norm input and head input (2 × 2 × 4,096 compiled, (6 + 2)
        // × 4,096 eager) beside the logits.
        let logits = 2048 * 128_256 * 4;
        assert_eq!(training_saved(&eager).above, 2048 * 8 * 4096 + 3 * logits);
        assert_eq!(
            training_saved(&compiled).above,
            2048 * 4 * 4096 + 2 * logits
        );
        let chunked = TransformerInput {
            loss: Loss::Chunked,
            ..compiled
        };
        let half = 2048 * 128_256 * 2;
        assert_eq!(
            training_saved(&chunked).above,
            2048 * 4 * 4096 + half + half / 8
        );
        // Inference keeps no saved tensors: compile changes nothing there.
        let generate = TransformerInput {
            mode: Mode::Inference,
            ..compiled
        };
        assert!(!generate.compiled());
        // Under autocast, eager attention's FP32 softmax (4 bytes a score)
        // is recomputed from the 16-bit scores (2): 2 + 2 where eager keeps
        // 4 + 2, with a LayerNorm that keeps its FP32 input either way.
        let autocast = TransformerInput {
            arch: Architecture {
                norm: Norm::LayerNorm,
                ..arch("llama-3.1-8b")
            },
            recipe: Recipe::Amp,
            attention: Attention::Eager,
            seq: 16,
            batch: 1,
            ..TransformerInput::default()
        };
        let scores = |input: &TransformerInput| layer_activations(input, Ffn::Dense).scores;
        assert_eq!(scores(&autocast), 32 * 16 * 16 * (4 + 2));
        let compiled_autocast = TransformerInput {
            compile: true,
            ..autocast
        };
        assert_eq!(scores(&compiled_autocast), 32 * 16 * 16 * (2 + 2));
    }

    /// torchtitan's per-op selective recomputation (`recompute=op`) on a
    /// Llama-3.1-8B block at 8,192 tokens, BF16 (FSDP2): per token the
    /// block input (2 × 4,096), wq's and wv's outputs (2 × 4,096, 2 × 1,024),
    /// w1's and w2's (2 × 14,336, 2 × 4,096), attention's output and FP32
    /// log-sum-exp (2 × 4,096 + 4 × 32): 63,616 bytes; wk, wo and w3 are
    /// recomputed. GPT-2's maps carry biases (`addmm`): all are saved.
    #[test]
    fn per_op_recomputation_saves_every_other_product() {
        let llama = TransformerInput {
            arch: arch("llama-3.1-8b"),
            recipe: Recipe::Fsdp,
            recompute: Recompute::Op,
            seq: 8192,
            batch: 1,
            ..TransformerInput::default()
        };
        assert_eq!(op_saved(&llama), 8192 * 63_616);
        let gpt2 = TransformerInput {
            arch: arch("gpt2"),
            recipe: Recipe::Bf16,
            recompute: Recompute::Op,
            seq: 1024,
            ..TransformerInput::default()
        };
        // Input, Q, K, V, O, fc1 (3,072), fc2, attention output + log-sum-exp.
        assert_eq!(
            op_saved(&gpt2),
            1024 * (2 * (768 * 5 + 3072 + 768 + 768) + 4 * 12)
        );
        // Between full recomputation and none.
        let at = |recompute| activations_per_sample(&TransformerInput { recompute, ..llama });
        assert!(at(Recompute::Full) < at(Recompute::Op) && at(Recompute::Op) < at(Recompute::None));
    }

    /// Issue 13's worked example and the scales of each quantized format:
    /// Llama-3.1-8B (32 layers, 8 KV heads of 128) at 32,768 tokens.
    #[test]
    fn kv_cache_formats_carry_their_scales() {
        let at = |kv_dtype| TransformerInput {
            arch: arch("llama-3.1-8b"),
            mode: Mode::Inference,
            recipe: Recipe::Bf16,
            seq: 32_768 - 256,
            generated: 256,
            batch: 1,
            kv_dtype,
            ..TransformerInput::default()
        };
        // 2 × 32 layers × 8 × 128 × 32,768 elements.
        let elements: u128 = 2 * 32 * 8 * 128 * 32_768;
        assert_eq!(elements, 2_147_483_648);
        let table = [
            (KvDtype::Bf16, 4_294_967_296, 0),
            // Before scales: 1 byte each (the per-layer FP32 scales are left out).
            (KvDtype::Fp8, 2_147_483_648, 0),
            // + a 2-byte scale per token and KV head: 2 × 32 × 8 × 32,768 × 2;
            // the dequantized copy is one layer's K and V in BF16.
            (
                KvDtype::Int8,
                2_147_483_648 + 33_554_432,
                2 * 8 * 128 * 32_768 * 2,
            ),
            // 127 recent tokens in BF16, the rest 4 bits + 4 bytes per 64.
            (
                KvDtype::Int4,
                (2 * 32 * 1024 * (32_768 - 127)) / 2
                    + 4 * (2 * 32 * 1024 * (32_768 - 127)) / 64
                    + 2 * 32 * 1024 * 127 * 2,
                2 * 2 * 8 * 128 * 32_768 * 2,
            ),
        ];
        for (kv_dtype, cache, copies) in table {
            let input = at(kv_dtype);
            assert_eq!(kv_cache_per_sample(&input), cache, "{kv_dtype:?}");
            assert_eq!(kv_dequantized_per_sample(&input), copies, "{kv_dtype:?}");
            assert!(activations_per_sample(&input) >= copies);
        }
        // BF16 > int8 (its scales) > FP8 > int4.
        let [bf16, fp8, int8, int4] =
            table.map(|(kv_dtype, ..)| kv_cache_per_sample(&at(kv_dtype)));
        assert!(bf16 > int8 && int8 > fp8 && fp8 > int4);
        // Training has no cache, whatever its format would be.
        let train = TransformerInput {
            mode: Mode::Train,
            ..at(KvDtype::Int4)
        };
        assert_eq!(kv_cache_per_sample(&train), 0);
        assert_eq!(kv_dequantized_per_sample(&train), 0);
    }

    /// docs/model.md's worked example: Gemma 3 1B in BF16 (26 layers, every
    /// sixth global: 4 global, 22 through a 512-token window; one KV head of
    /// 256). A windowed layer holds the prompt's states until the first
    /// generated token, then at most the window (transformers cache_utils.py
    /// `DynamicSlidingWindowLayer.update`).
    #[test]
    fn windowed_layers_keep_at_most_the_prompt_or_the_window() {
        let gemma = TransformerInput {
            arch: arch("gemma-3-1b"),
            mode: Mode::Inference,
            recipe: Recipe::Bf16,
            batch: 1,
            ..TransformerInput::default()
        };
        assert_eq!(gemma.arch.windowed_layers(), 22);
        // 2 (K, V) × 256 × 2 bytes = 1,024 bytes per layer and position.
        let per_position = 2 * 256 * 2;
        let kv = |seq, generated| {
            kv_cache_per_sample(&TransformerInput {
                seq,
                generated,
                ..gemma
            })
        };
        // An 8,192-token prompt and 2,048 generated tokens: the global layers
        // hold 10,240 positions, the windowed ones the prompt's 8,192.
        assert_eq!(kv(8192, 2048), per_position * (4 * 10_240 + 22 * 8192));
        assert_eq!(kv(8192, 2048), 226_492_416);
        // A 100-token prompt: the windowed layers stop at the window.
        assert_eq!(kv(100, 2048), per_position * (4 * 2148 + 22 * 512));
        assert_eq!(kv(100, 2048), 20_332_544);
        // A context shorter than the window: every layer holds all of it.
        assert_eq!(kv(100, 300), per_position * 26 * 400);
        // Without the window, 26 × 10,240 positions.
        let full = TransformerInput {
            arch: Architecture {
                window: 0,
                ..gemma.arch
            },
            seq: 8192,
            generated: 2048,
            ..gemma
        };
        assert_eq!(kv_cache_per_sample(&full), 272_629_760);
        // Mistral 7B v0.1: every layer windowed (4,096).
        let mistral = TransformerInput {
            arch: arch("mistral-7b"),
            seq: 1000,
            generated: 7000,
            ..gemma
        };
        assert_eq!(mistral.arch.windowed_layers(), 32);
        assert_eq!(kv_cache_per_sample(&mistral), 2 * 32 * 1024 * 4096 * 2);
        // global_every = 1: every layer global, the window unused.
        let all_global = Architecture {
            global_every: 1,
            ..gemma.arch
        };
        assert_eq!(all_global.windowed_layers(), 0);
    }

    /// Training saves what the attention computes, and neither kernel saves
    /// less with a window: eager attention masks a full s × s score matrix
    /// (transformers `eager_attention_forward` adds the sliding mask), the
    /// flash kernels keep one log-sum-exp per row either way.
    #[test]
    fn gpt_oss_windows_every_other_layer_at_128_tokens() {
        let oss = TransformerInput {
            arch: arch("gpt-oss-20b"),
            mode: Mode::Inference,
            recipe: Recipe::Bf16,
            batch: 1,
            ..TransformerInput::default()
        };
        // configuration_gpt_oss.py: 12 of the 24 layers slide over 128 tokens.
        assert_eq!(oss.arch.windowed_layers(), 12);
        // 2 (K, V) × 8 KV heads × 64 × 2 bytes = 2,048 bytes per layer and position.
        let per_position = 2 * 8 * 64 * 2;
        let kv = |seq, generated| {
            kv_cache_per_sample(&TransformerInput {
                seq,
                generated,
                ..oss
            })
        };
        // A 100-token prompt and 2,048 generated: the full layers hold 2,148
        // positions, the sliding ones their window.
        assert_eq!(kv(100, 2048), per_position * (12 * 2148 + 12 * 128));
        assert_eq!(kv(100, 2048), 55_934_976);
    }

    /// docs/model.md's worked example: Llama 4 Scout in BF16 (48 layers,
    /// every fourth a global NoPE layer: 12 global, 36 chunked at 8,192
    /// tokens; 8 KV heads of 128). transformers caches a chunked layer as a
    /// sliding one with the chunk as its window (cache_utils.py
    /// `DynamicCache.__init__`: `"chunked_attention"` gets a
    /// `DynamicSlidingWindowLayer(sliding_window=attention_chunk_size)`).
    #[test]
    fn llama_4_scout_keeps_one_chunk_on_its_chunked_layers() {
        let scout = TransformerInput {
            arch: arch("llama-4-scout"),
            mode: Mode::Inference,
            recipe: Recipe::Bf16,
            batch: 1,
            ..TransformerInput::default()
        };
        assert_eq!(scout.arch.windowed_layers(), 36);
        // 2 (K, V) × 8 KV heads × 128 × 2 bytes = 4,096 bytes per layer and position.
        let per_position = 2 * 8 * 128 * 2;
        let kv = |generated| {
            kv_cache_per_sample(&TransformerInput {
                seq: 8192,
                generated,
                ..scout
            })
        };
        // An 8,192-token prompt generating to 32,768 tokens: the global
        // layers hold 32,768 positions, the chunked ones 8,192.
        assert_eq!(kv(24_576), per_position * (12 * 32_768 + 36 * 8192));
        assert_eq!(kv(24_576), 2_818_572_288);
        // To 131,072 tokens.
        assert_eq!(kv(122_880), per_position * (12 * 131_072 + 36 * 8192));
        assert_eq!(kv(122_880), 7_650_410_496);
        // Counted as full attention, as before: 48 × 131,072 positions.
        let full = TransformerInput {
            arch: Architecture {
                window: 0,
                ..scout.arch
            },
            seq: 8192,
            generated: 122_880,
            ..scout
        };
        assert_eq!(kv_cache_per_sample(&full), 25_769_803_776);
    }

    #[test]
    fn a_window_changes_no_training_term() {
        for (model, attention) in [
            ("gemma-2-2b", Attention::Eager),
            ("gemma-2-2b", Attention::Flash),
            ("llama-4-scout", Attention::Eager),
            ("llama-4-scout", Attention::Flash),
        ] {
            let train = TransformerInput {
                arch: arch(model),
                seq: 8192,
                attention,
                ..TransformerInput::default()
            };
            let unwindowed = TransformerInput {
                arch: Architecture {
                    window: 0,
                    ..train.arch
                },
                ..train
            };
            assert_eq!(
                activations_per_sample(&train),
                activations_per_sample(&unwindowed)
            );
            assert_eq!(kv_cache_per_sample(&train), 0);
        }
    }

    proptest::proptest! {
        /// Over the whole domain: a window never adds KV cache, never goes
        /// below the global layers' share, and changes nothing when it holds
        /// the whole context.
        #[test]
        fn a_window_bounds_the_kv_cache(
            layers in 1u64..200, window in 0u64..100_000, global_every in 0u64..300,
            seq in 1u64..200_000, generated in 0u64..200_000,
        ) {
            let windowed = TransformerInput {
                arch: Architecture { layers, window, global_every, ..Architecture::default() },
                mode: Mode::Inference,
                seq,
                generated,
                ..TransformerInput::default()
            };
            let full = TransformerInput {
                arch: Architecture { window: 0, ..windowed.arch },
                ..windowed
            };
            let (with, without) = (kv_cache_per_sample(&windowed), kv_cache_per_sample(&full));
            proptest::prop_assert!(with <= without);
            let global = u128::from(layers - windowed.arch.windowed_layers());
            proptest::prop_assert!(with * u128::from(layers) >= without * global);
            if window >= seq + generated {
                proptest::prop_assert_eq!(with, without);
            }
        }
    }

    /// QK-norm saves what a norm of its kind saves, over the Q and K
    /// projections' outputs (compute dtype): one layer, 2 heads of 4, 1 KV
    /// head, 4 tokens.
    #[test]
    fn qk_norm_saves_its_inputs_like_the_other_norms() {
        let small = |(qk_norm, qk_norm_full), norm, recipe| TransformerInput {
            arch: Architecture {
                layers: 1,
                hidden: 8,
                heads: 2,
                kv_heads: 1,
                ffn: 16,
                qk_norm,
                qk_norm_full,
                norm,
                ..Architecture::default()
            },
            seq: 4,
            recipe,
            ..TransformerInput::default()
        };
        let split =
            |qk, norm, recipe| layer_activations(&small(qk, norm, recipe), Ffn::Dense).split;
        // 4 tokens × (Q 8 + K 4) units.
        let units = 4 * 12;
        for (qk_norm, norm, recipe, bytes) in [
            // Llama-style RMSNorm: the FP32 upcast 4 and the BF16 normalized 2.
            ((true, false), Norm::RmsNorm, Recipe::Bf16, 6),
            ((true, true), Norm::RmsNorm, Recipe::Bf16, 6),
            // Gemma's and OLMo 2's: the FP32 upcast and FP32 normalized.
            ((true, false), Norm::RmsNormFp32, Recipe::Bf16, 8),
            // FP32 throughout: the input itself and the normalized, 4 + 4.
            ((true, false), Norm::RmsNorm, Recipe::Fp32, 8),
            // Phi's qk_layernorm saves its 16-bit input; under autocast the
            // FP32 copy layer_norm runs on.
            ((true, false), Norm::LayerNorm, Recipe::Bf16, 2),
            ((true, false), Norm::LayerNorm, Recipe::Amp, 4),
        ] {
            assert_eq!(
                split(qk_norm, norm, recipe) - split((false, false), norm, recipe),
                units * bytes,
                "{qk_norm:?} {norm:?} {recipe:?}"
            );
        }
    }

    /// Where the norms sit decides what they read: the residual stream
    /// before a block (FP32 under autocast), the block's 16-bit output after
    /// it. Llama 2 7B's shape, 4,096 tokens: per layer 4,096 × 4,096 × the
    /// bytes per unit.
    #[test]
    fn post_norms_read_the_blocks_outputs() {
        let sh = 4096 * 4096;
        let replicated = |block, recipe| {
            let input = TransformerInput {
                arch: Architecture {
                    block,
                    ..arch("llama-2-7b")
                },
                seq: 4096,
                recipe,
                ..TransformerInput::default()
            };
            layer_activations(&input, Ffn::Dense).replicated
        };
        // Autocast: a norm before a block saves 4 + 4 (FP32 stream), after
        // one 4 + 2; each of the separate Q, K, V, gate and up projections
        // reads its own 16-bit cast (2), five per layer.
        for (block, bytes) in [
            (Block::Pre, 2 * 8 + 5 * 2),
            (Block::Post, 2 * 6 + 5 * 2),
            (Block::Sandwich, 2 * 8 + 2 * 6 + 5 * 2),
            // One norm, its output read by attention and the MLP alike.
            (Block::Parallel, 8 + 5 * 2),
        ] {
            assert_eq!(replicated(block, Recipe::Amp), sh * bytes, "{block:?}");
        }
        // In BF16 the stream and the outputs are both 16-bit: 4 + 2 either way.
        assert_eq!(replicated(Block::Post, Recipe::Bf16), sh * (2 * 6 + 2 * 2));
        assert_eq!(
            replicated(Block::Sandwich, Recipe::Bf16),
            sh * (4 * 6 + 2 * 2)
        );
    }

    /// Gemma 2's soft-capping: tanh saves its output, logit-sized for the
    /// final logits, score-sized in eager attention.
    #[test]
    fn soft_capping_keeps_one_tanh_output() {
        // The loss test's model (4 tokens, vocabulary 10, FP32): 256 + 480
        // bytes, and the tanh output of the capped logits, 4 × 40.
        let input = TransformerInput {
            arch: Architecture {
                layers: 0,
                hidden: 8,
                vocab: 10,
                norm: Norm::LayerNorm,
                softcap: true,
                ..Architecture::default()
            },
            seq: 4,
            recipe: Recipe::Fp32,
            ..TransformerInput::default()
        };
        assert_eq!(activations_per_sample(&input), 256 + 480 + 160);
        // Eager scores in BF16 with dropout: softmax 2, mask 1, dropout 2,
        // and the tanh output 2 per score.
        let eager = gpt_like(8, 16, 64, true);
        let capped = TransformerInput {
            arch: Architecture {
                attn_softcap: true,
                ..eager.arch
            },
            ..eager
        };
        assert_eq!(
            layer_activations(&capped, Ffn::Dense).scores,
            2_048 * (2 + 1 + 2 + 2)
        );
        // The flash kernels cap inside: nothing more.
        let flash = TransformerInput {
            attention: Attention::Flash,
            ..capped
        };
        assert_eq!(layer_activations(&flash, Ffn::Dense).scores, 0);
    }

    #[test]
    fn quantized_weights_carry_their_scales() {
        let arch = arch("llama-2-7b");
        let count = parameter_count(&arch);
        let input = |quant| TransformerInput {
            arch,
            mode: Mode::Inference,
            quant,
            ..TransformerInput::default()
        };
        let rest = count.total - count.linear;
        assert_eq!(
            model_states(&count, &input(Quant::None)).weights,
            2 * count.total
        );
        assert_eq!(
            model_states(&count, &input(Quant::Int8)).weights,
            count.linear + 4 * count.linear_rows + 2 * rest
        );
        let int4 = (4 * count.linear + 20 * count.linear.div_ceil(128)).div_ceil(8) + 2 * rest;
        assert_eq!(model_states(&count, &input(Quant::Int4)).weights, int4);
        // About 3.9 GB for Llama 2 7B in 4 bits (0.52 B per linear weight + 16-bit embeddings).
        assert!((3.8e9..4.0e9).contains(&(int4 as f64)), "{int4}");
    }
}
