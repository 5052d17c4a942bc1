//! The transformer form's settings that name a choice: one `choice!` enum each,
//! and Megatron-Core's recompute modules as a set.

use crate::choice::choice;
use crate::fields::{ParamError, Problem};
use crate::param::Param;

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
        /// keeps what its backward needs ([`ffn_saved`](super::activations::ffn_saved)).
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
    /// it may spill (`memory::Estimate::optimizer_may_spill`).
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
    /// [`TransformerInput::recompute_layers`](super::TransformerInput::recompute_layers) as its number. Counted in each
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
    pub(super) const fn checkpoints(self, index: u64, n: u64) -> bool {
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
/// internals is in [`selective_kept`](super::activations::selective_kept); the default is Korthikanti's
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
        /// `quantize_4bit`, `blocksize=64`); with [`TransformerInput::double_quant`](super::TransformerInput::double_quant)
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
    /// The cache `generate()` builds (transformers' `cache_implementation`).
    pub enum CacheImpl {
        /// `DynamicCache`, the default: each layer grows by concatenation.
        Dynamic = "dynamic",
        /// `StaticCache`: each layer's keys and values preallocated for the
        /// whole generation at its first update, written in place
        /// (cache_utils.py `StaticLayer`), as `torch.compile` needs.
        Static = "static",
        /// The tuple cache of transformers before 4.36 (and of remote code
        /// that keeps its own, ChatGLM's and Qwen-1's): each layer's new keys
        /// and values are `torch.cat` of the cached and the new states
        /// (transformers 4.35 modeling_llama.py `LlamaAttention.forward`:
        /// `key_states = torch.cat([past_key_value[0], key_states], dim=2)`),
        /// while the previous step's whole cache stays referenced by
        /// `generate()`'s `model_kwargs` until the step ends
        /// (generation/utils.py `greedy_search`,
        /// `_update_model_kwargs_for_generation`): at a step's end two
        /// caches, every layer's, are alive.
        Legacy = "legacy",
    }
    default Dynamic
}

choice! {
    /// What a multi-head latent attention model (`kv_lora_rank` ≥ 1) caches
    /// per token and layer in inference (`kv_layout`).
    pub enum KvLayout {
        /// The decompressed keys and values, as transformers' `generate()`
        /// stores them (`DeepseekV3Attention`: `past_key_value.update` after
        /// `kv_b_proj`), split over the tensor-parallel ranks by head.
        Full = "full",
        /// The compressed latent and the shared rotary key, `kv_lora_rank` +
        /// `qk_rope_head_dim` values, as vLLM and SGLang store it: one "head"
        /// the same on every tensor-parallel rank (vllm/v1/kv_cache_interface.py
        /// `MLAAttentionSpec`, built by the MLA attention layer's
        /// `get_kv_cache_spec` with `num_kv_heads=1` and `head_size =
        /// kv_lora_rank + qk_rope_head_dim`; SGLang's `MLATokenToKVPool`).
        Latent = "latent",
    }
    default Full
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
        /// Megatron-Core's fused variant (`--cross-entropy-loss-fusion`,
        /// megatron/core/fusions/fused_cross_entropy.py), whose steps
        /// `torch.compile` compiles from PyTorch 2.2 on: the backward's
        /// scatter into the softmax is compiled out of place, a second FP32
        /// logit-sized buffer beside the softmax and the BF16 gradient.
        VocabParallelFused = "vocab_parallel_fused",
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
    /// for itself and saves its cast ([`autocast_casts`](super::activations::autocast_casts)).
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
    /// The token mixer of the layers that do not attend to every position
    /// (`linear_mixer`): a hybrid model alternates them with full-attention
    /// layers, and each keeps a state of fixed size per sequence in place of a
    /// cache that grows ([`Architecture::linear_layers`](super::Architecture::linear_layers)).
    pub enum LinearMixer {
        /// Every layer attends (no linear layer).
        None = "none",
        /// Gated DeltaNet (Qwen3-Next): transformers
        /// models/qwen3_next/modeling_qwen3_next.py `Qwen3NextGatedDeltaNet`.
        GatedDeltanet = "gated_deltanet",
        /// Mamba-2's state-space mixer (IBM Granite 4.0-H, Bamba): transformers
        /// models/granitemoehybrid/modeling_granitemoehybrid.py
        /// `GraniteMoeHybridMambaLayer`.
        Mamba2 = "mamba2",
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
        /// vLLM (`vllm serve`, V1 engine): the model in BF16, a KV-cache
        /// pool in blocks filling what the weights and the profiling run
        /// leave of `gpu_memory_utilization` × the device; a latent-attention
        /// model caches its latent (`kv_layout=latent`).
        Vllm = "vllm",
        /// SGLang (`sglang.launch_server`): the model in BF16, and a static
        /// share of the device (`mem_fraction_static`, spelled
        /// `gpu_memory_utilization`) for the weights and a KV-cache pool of
        /// single-token pages; the rest is left for activations and CUDA
        /// graphs; a latent-attention model caches its latent.
        Sglang = "sglang",
    }
    default Custom
}
