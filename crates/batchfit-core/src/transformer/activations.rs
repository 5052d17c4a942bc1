//! What one layer saves for the backward pass, and the working sets its
//! backward pass holds (docs/model.md §3.3).

use super::adapters::AdapterBlocks;
use super::architecture::Architecture;
use super::input::{Ffn, Mixer, TransformerInput};
use super::options::{
    Attention, Block, Fp8, FusedProj, LinearMixer, LoraTargets, LoraVariant, Mlp, Mode, Norm,
    NormKernel, RecomputeModules,
};
use crate::arith::div_ceil;

/// One layer's activations for one sample, split the way tensor parallelism
/// divides them (Korthikanti et al. 2022, §4.2.2, Eq. 2).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LayerActivations {
    /// Not split by tensor parallelism (split only with sequence parallelism):
    /// the norm inputs, the inputs of the first linear maps, the dropout masks
    /// after the attention and MLP blocks — Korthikanti's 10sbh.
    pub(super) replicated: u128,
    /// Split by tensor parallelism: Q, K, V, the attention output, the MLP's
    /// intermediate tensors — Korthikanti's 24sbh.
    pub(super) split: u128,
    /// The attention core's seq × seq tensors — Korthikanti's 5as²b; gone with
    /// flash kernels and with selective recomputation.
    pub(super) scores: u128,
    /// The routed experts' FFN intermediates, split by expert tensor
    /// parallelism (`etp`, by default `tp`).
    pub(super) experts: u128,
}

impl LayerActivations {
    pub(super) fn per_rank(&self, input: &TransformerInput, scores: bool) -> u128 {
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
pub(super) const CHUNKS: u128 = 8;

/// Bytes per logit of the gradient that Megatron-Core's vocab-parallel
/// cross-entropy hands back to the head when the head computes in `e`-byte
/// elements: autograd casts the FP32 gradient to the logits' dtype, a new
/// tensor unless they are FP32 already.
pub(super) const fn vocab_cast(e: u128) -> u128 {
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
pub(super) fn fused_chunk_tokens(tokens: u128, vocab: u128) -> u128 {
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
pub(super) fn norm_saved_bytes(input: &TransformerInput) -> u128 {
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
pub(super) fn ffn_saved(input: &TransformerInput, e: u128, width: u128) -> u128 {
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
pub(super) fn autocast_casts(input: &TransformerInput, ffn: Ffn) -> u128 {
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
pub(super) fn moe_saved(input: &TransformerInput) -> (u128, u128, u128) {
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

/// An attention layer's [`mixer_activations`] (the tests' shorthand).
#[cfg(test)]
pub(super) fn layer_activations(input: &TransformerInput, ffn: Ffn) -> LayerActivations {
    mixer_activations(input, ffn, Mixer::Attention)
}

/// Korthikanti et al. 2022, §4.1, term by term, for one layer and one sample.
/// At 16-bit with MHA, a 4h GELU MLP and dropout this is s·h·34 + 5·a·s² bytes
/// (Eq. 1); each line says which of Korthikanti's terms it generalises. A
/// hybrid model's linear layer (`mixer`) saves its mixer's tensors
/// ([`linear_saved`]) in place of the attention's, and no score matrix.
pub(super) fn mixer_activations(
    input: &TransformerInput,
    ffn: Ffn,
    mixer: Mixer,
) -> LayerActivations {
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
    // An output gate (Qwen3-Next): the sigmoid's output and the ungated
    // attention output, which the product saves.
    let gate = if arch.attn_output_gate {
        2 * e * widths.q
    } else {
        0
    };
    let attention = s
        * (e * widths.q // Q (Korthikanti: Q and K, 4sbh; K and V sized by kv_heads under GQA)
            + e * (widths.k + widths.v) // K and V (V: 2sbh)
            + e * widths.output // attention output, input of the output projection (2sbh)
            + projection_copy
            + qk_norm
            + gate
            + flash_statistics);
    let mixing = match mixer {
        Mixer::Attention => attention,
        Mixer::Linear => s * linear_saved(input, e),
    };
    let split = mixing + s * mlp + moe_split;
    // The softmax's output, which its backward needs: in the compute dtype,
    // or in FP32 under autocast (pytorch/pytorch aten/src/ATen/autocast_mode.cpp
    // `KERNEL_CUDA2(softmax, int, fp32_set_opt_dtype)`: autocast runs softmax
    // in FP32 and returns FP32).
    // Hugging Face's eager attention computes it in FP32 whatever the
    // recipe ([`TransformerInput::fp32_softmax`]).
    // Under torch.compile the FP32 softmax is recomputed from the scores the
    // first product wrote in the compute dtype (saved: a matrix product's
    // output), e bytes in place of 4.
    let upcast = input.fp32_softmax();
    let softmax = if upcast && !input.compiled() { 4 } else { e };
    // The product with V needs its left operand in the compute dtype: the
    // dropout's output, or without dropout a 16-bit copy of an FP32 softmax
    // (autocast casts it; Hugging Face's eager attention writes
    // `.to(query.dtype)`, a copy unless the compute dtype is FP32), or the
    // softmax output itself.
    let product_input = if arch.dropout || (upcast && e < 4) {
        e
    } else {
        0
    };
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
        replicated: replicated + lora_saved(input, ffn, mixer),
        split,
        scores: if mixer == Mixer::Attention { scores } else { 0 },
        experts,
    }
}

/// What a linear layer's token mixer saves for the backward pass per token
/// (its input, read by the input projections, is counted with the
/// attention's), in place of the attention's tensors:
///
/// - Gated DeltaNet as transformers 5 runs it (models/qwen3_next/
///   modeling_qwen3_next.py `Qwen3NextGatedDeltaNet.forward` in training,
///   with flash-linear-attention's `chunk_gated_delta_rule` and
///   causal-conv1d): the convolution's input, Q, K and V (`CausalConv1dFn`
///   saves only it and recomputes its output); what
///   `ChunkGatedDeltaRuleFunction.forward` saves (fla/ops/gated_delta_rule/
///   chunk.py: Q and K after their L2 norm with an FP32 reciprocal norm per
///   head, V, the chunk-local cumulative sum of the decay in FP32, β, and
///   the 64-wide `A` per value head; the per-chunk states are recomputed);
///   the decay's softplus, its FP32 input and output; and the gated
///   RMSNorm in PyTorch (`Qwen3NextRMSNormGated`: the FP32 input, its
///   normalized copy, the FP32 gate, the weighted copy and the FP32 SiLU
///   output, and one FP32 norm per head) and the output projection's input.
///   4e·keys + 8·key heads + (5e + 12)·values + (16 + 65e)·value heads.
/// - Mamba-2 through mamba_ssm's fused `mamba_split_conv1d_scan_combined`
///   (ssd_combined.py `MambaSplitConv1dScanCombinedFn.forward`: it saves
///   the input projection's output `zxbcdt`, the scan's output before the
///   norm and gate, and an FP32 reciprocal norm per group; the convolution,
///   the states and the norm's output are recomputed):
///   e·(2·d_inner + 2·groups·d_state + heads) + e·d_inner + 4·groups.
pub(super) fn linear_saved(input: &TransformerInput, e: u128) -> u128 {
    let arch = &input.arch;
    let w = arch.linear_widths();
    let key_heads = u128::from(arch.linear_num_key_heads);
    match arch.linear_mixer {
        LinearMixer::None => 0,
        LinearMixer::GatedDeltanet => {
            4 * e * w.keys + 8 * key_heads + (5 * e + 12) * w.values + (16 + 65 * e) * w.heads
        }
        LinearMixer::Mamba2 => e * (3 * w.values + 2 * w.keys + w.heads) + 4 * key_heads,
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
pub(super) fn residual_gradient(input: &TransformerInput) -> u128 {
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
pub(super) fn backward_working(input: &TransformerInput, ffn: Ffn) -> u128 {
    let (mlp, attention) = working_sets(input, ffn);
    residual_gradient(input) + mlp.max(attention)
}

/// The two candidates of [`backward_working`]'s largest set, per sample and
/// GPU: the FFN activation's and the attention core's.
pub(super) fn working_sets(input: &TransformerInput, ffn: Ffn) -> (u128, u128) {
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
            let softmax = if input.fp32_softmax() && !input.compiled() {
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
pub(super) fn wrapped_norms(input: &TransformerInput, ffn: Ffn) -> u128 {
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
/// Kept out of line: the default set never reaches it ([`training_saved`](super::training_saved)
/// returns early), and the estimate's common path stays as small as it was.
#[inline(never)]
pub(super) fn selective_kept(
    input: &TransformerInput,
    ffn: Ffn,
    layer: &LayerActivations,
) -> (u128, u128) {
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
pub(super) fn op_saved(input: &TransformerInput) -> u128 {
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
pub(super) fn lora_saved(input: &TransformerInput, ffn: Ffn, mixer: Mixer) -> u128 {
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
    blocks.per_layer(input, ffn, mixer, |b| {
        x_copy * b.inputs_per_token + adapter_bytes * r * b.maps + dora * b.outputs_per_token
    })
}
