//! What training saves per sample, by where it sits (layers, below, above,
//! in flight).

use super::activations::{
    CHUNKS, LayerActivations, backward_working, fused_chunk_tokens, mixer_activations,
    norm_saved_bytes, op_saved, residual_gradient, selective_kept, vocab_cast,
};
use super::architecture::{MoePlacement, Span};
use super::input::{Ffn, Mixer, TransformerInput};
use super::options::{Kind, Logits, Loss, Recompute, RecomputeMethod, RecomputeModules};
use super::pipeline::CpKind;
use crate::arith::div_ceil;

/// What training saves per sample and GPU, by where it sits: per layer, below
/// the layers (the embedding's side) and above them (the final norm, head and
/// loss), and the buffers of the layer in flight. [`PerSample::activations`](super::PerSample::activations)
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
    /// A hybrid model's layers: `dense` and `moe` (and their recomputed
    /// sets) are then the larger of an attention layer's and a linear
    /// layer's, and [`Saved::layers`] takes off what each layer keeps less.
    pub hybrid: Option<HybridLayers>,
}

/// What the layers of a hybrid model keep less than [`Saved`]'s per-layer
/// figures, by kind: `[dense, MoE][attention, linear]`, and where its
/// attention layers and its attending MoE layers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HybridLayers {
    pub less: [[u128; 2]; 2],
    pub attention: MoePlacement,
    pub attending_moe: MoePlacement,
}

impl HybridLayers {
    /// What the layers of `span` keep less in all, `moe` of them MoE layers.
    fn less_in(&self, span: Span, moe: u64) -> u128 {
        let attending = self.attention.between(span.first, span.end);
        let attending_moe = self.attending_moe.between(span.first, span.end);
        let dense = span.layers() - moe;
        let counts = [
            [
                attending - attending_moe,
                dense - (attending - attending_moe),
            ],
            [attending_moe, moe - attending_moe],
        ];
        let mut less = 0;
        for (kind, counts) in self.less.iter().zip(counts) {
            for (bytes, n) in kind.iter().zip(counts) {
                less += bytes * u128::from(n);
            }
        }
        less
    }
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
    pub(super) fn kinds(&self, span: Span) -> (u64, u64) {
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
                let all = u128::from(dense_layers) * self.dense + u128::from(moe_layers) * self.moe;
                all - self.hybrid.map_or(0, |h| h.less_in(span, moe_layers))
            }
            Some(plan) => self.units(plan, span).map(|unit| unit.kept).sum(),
        }
    }

    /// The most one of these layers keeps between its forward and its
    /// backward pass: under partial recomputation the largest unit's (a
    /// checkpoint's input, or the full set of a layer outside the
    /// checkpoints).
    pub(super) fn largest_kept(&self, span: Span) -> u128 {
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
pub(super) fn output_layer_inputs(input: &TransformerInput) -> u128 {
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
    let s = u128::from(input.tokens());
    let h = u128::from(arch.hidden);

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
        Recompute::Full => layer_input(input),
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
    // Each kind of layer's kept and recomputed sets. A hybrid model's
    // layers take the larger of the two mixers' (a layer in flight is
    // counted as the larger kind), and the sum over the layers what each
    // keeps ([`HybridLayers`]).
    let sets = |ffn: Ffn, mixer: Mixer| {
        let layer = mixer_activations(input, ffn, mixer);
        (per_layer(&layer, ffn), recomputed(&layer, ffn))
    };
    let ((dense_kept, dense_recomputed), (moe_kept, moe_recomputed), hybrid) =
        if arch.linear_layers() > 0 {
            let [dense_attention, dense_linear, moe_attention, moe_linear] = [
                sets(Ffn::Dense, Mixer::Attention),
                sets(Ffn::Dense, Mixer::Linear),
                sets(Ffn::Moe, Mixer::Attention),
                sets(Ffn::Moe, Mixer::Linear),
            ];
            let larger = |a: (u128, u128), b: (u128, u128)| (a.0.max(b.0), a.1.max(b.1));
            let dense = larger(dense_attention, dense_linear);
            let moe = larger(moe_attention, moe_linear);
            let less = [
                [dense.0 - dense_attention.0, dense.0 - dense_linear.0],
                [moe.0 - moe_attention.0, moe.0 - moe_linear.0],
            ];
            let hybrid = HybridLayers {
                less,
                attention: arch.attention_placement(),
                attending_moe: arch.attending_moe_placement(),
            };
            (dense, moe, Some(hybrid))
        } else {
            (
                sets(Ffn::Dense, Mixer::Attention),
                sets(Ffn::Moe, Mixer::Attention),
                None,
            )
        };
    let dispatch = expert_dispatch(input);
    let (context_backward, context_forward) = context_buffers(input);

    // Korthikanti §4.3 (input and output layers). The embedding's dropout mask
    // is offloaded with the layers' tensors; torchtune's
    // get_act_offloading_ctx_manager wraps the output projection in a
    // NoOpManager, so the final norm input, the head input and the logits stay.
    let embedding_dropout = if input.act_offload {
        0
    } else {
        sp_split(input, s * u128::from(arch.dropout) * h)
    };
    let (below, above, above_saved, above_forward) = outside_layers(input);
    Saved {
        dense: dense_kept,
        moe: moe_kept,
        recomputed_dense: dense_recomputed,
        recomputed_moe: moe_recomputed,
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
        reentrant_output: reentrant_output(input),
        hybrid,
    }
}

/// Bytes per sample a tensor of the sequence's length holds on one rank:
/// split over the tensor-parallel ranks under sequence parallelism.
fn sp_split(input: &TransformerInput, bytes: u128) -> u128 {
    if input.sp {
        div_ceil(bytes, u128::from(input.tp))
    } else {
        bytes
    }
}

/// One layer's input, the residual stream (s · r · h per sample: 2sbh at
/// 16-bit, FP32 under autocast): what full recomputation keeps per layer.
fn layer_input(input: &TransformerInput) -> u128 {
    sp_split(
        input,
        u128::from(input.tokens()) * input.residual_bytes() * u128::from(input.arch.hidden),
    )
}

/// Expert parallelism's all-to-all buffers of the MoE layer in flight, per
/// sample and GPU.
///
/// Expert parallelism's all-to-all (Megatron-Core
/// megatron/core/transformer/moe/token_dispatcher.py
/// `MoEAlltoAllTokenDispatcher`; torchtitan's `ExpertParallel`): a MoE
/// layer sends its permuted top-k copies of every token (e × h each) and
/// receives as many for its local experts (balanced routing). The
/// received tokens are the experts' inputs, counted with the layer; the
/// send and receive buffers of the layer in flight are alive together
/// while it dispatches, in the forward pass and again for the gradients
/// in the backward pass, after the loss's tensors are freed.
fn expert_dispatch(input: &TransformerInput) -> u128 {
    if input.ep > 1 && input.arch.moe() {
        2 * input.routed_copies() * input.activation_bytes() * u128::from(input.arch.hidden)
    } else {
        0
    }
}

/// The rerun's output a reentrant checkpoint keeps through its backward
/// pass, per sample and GPU: one residual-stream tensor, the shape and
/// number format of the layer input it keeps ([`layer_input`]).
///
/// pytorch/pytorch torch/utils/checkpoint.py: `CheckpointFunction.backward`
/// reruns the function under `torch.enable_grad()` (`outputs =
/// ctx.run_function(*detached_inputs)`), collects the outputs that require
/// grad (`outputs_with_grad`) and calls
/// `torch.autograd.backward(outputs_with_grad, args_with_grad)`: the outputs
/// are referenced until that call returns, while the layer's whole backward
/// runs. The non-reentrant checkpoint's `recompute_fn` calls
/// `fn(*args, **kwargs)` and drops what it returns: with `early_stop=True`
/// (the default) the rerun stops at the last saved tensor
/// (`_StopRecomputationError`) before the output is made; with
/// `early_stop=False` (torchtitan's full AC) the output is freed as the
/// rerun returns, before the layer's own gradients are made. Megatron-LM's
/// megatron/core/tensor_parallel/random.py `CheckpointFunction` and
/// Unsloth's unsloth_zoo/gradient_checkpointing.py `UnslothCheckpointFunction`
/// are the reentrant kind. A checkpointed group of layers (`uniform`) keeps
/// one output, its last layer's.
fn reentrant_output(input: &TransformerInput) -> u128 {
    if input.recompute == Recompute::Full && input.reentrant {
        layer_input(input)
    } else {
        0
    }
}

/// Korthikanti §4.3's terms outside the layers, by where they sit: below the
/// layers (alive until the backward pass ends) or above them (freed before
/// the backward pass reaches the layers): (below, above at the start of the backward pass, above kept by a
/// micro-batch waiting for its backward pass, above at the end of the
/// forward pass).
fn outside_layers(input: &TransformerInput) -> (u128, u128, u128, u128) {
    let norm = norm_saved_bytes(input);
    let h = u128::from(input.arch.hidden);
    let s = u128::from(input.tokens());
    match input.arch.kind {
        Kind::Decoder => {
            let (above, saved, forward) = decoder_above(input);
            (0, above, saved, forward)
        }
        // BERT's embedding norm input (post-norm model).
        Kind::Encoder => (sp_split(input, s * norm * h), 0, 0, 0),
        // ViT's final norm input; the head reads one token.
        Kind::Vision => {
            let final_norm = sp_split(input, s * norm * h);
            (0, final_norm, final_norm, final_norm)
        }
    }
}

/// A decoder's tensors above the layers, per sample and GPU: the final
/// norm's input (the residual stream) and the LM head's (2sbh each at
/// 16-bit), and the loss's logit-sized tensors split over the
/// vocabulary-parallel ranks: (at the start of the backward pass, what a
/// micro-batch whose backward pass has not begun keeps, at the end of the
/// forward pass).
fn decoder_above(input: &TransformerInput) -> (u128, u128, u128) {
    let arch = &input.arch;
    let t = u128::from(input.tp);
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
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
    let (logits, kept) = loss_logits(input, l, backward_start);
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
    let forward_moment =
        (input.autocast() && input.recompute == Recompute::Full) || input.zero_grad_after_forward();
    let forward = match (input.loss, input.compiled()) {
        (Loss::Full, false) if forward_moment => {
            inputs + div_ceil(softcap + (e + 2 * l) * s * v, t)
        }
        _ => above,
    };
    (above, saved, forward)
}

/// The loss's logit-sized tensors of a decoder, per sample (all vocabulary
/// ranks together): (at the start of the backward pass, what a micro-batch
/// whose backward pass has not begun keeps), for logits of `l` bytes and
/// the first moment's `backward_start` bytes per logit.
///
/// A compiled loss (the cross-entropy inside the compiled graph:
/// Hugging Face's model with its loss, torchtune's
/// `training.compile_loss`) is decomposed into element-wise ops
/// and reductions over the logits it is given, which are a
/// matrix product's output or a primal of the loss's graph: the
/// partitioner saves them (and a log-sum-exp per token) and
/// recomputes the log-softmax in the backward pass, where one
/// fused kernel writes the logits' gradient. Two logit-sized
/// tensors where eager autograd holds three. torchtune's chunked
/// loss compiles `compute_cross_entropy`, whose `.float()` is
/// inside the graph: each chunk keeps its 16-bit logits (e bytes)
/// and its backward writes their 16-bit gradient.
fn loss_logits(input: &TransformerInput, l: u128, backward_start: u128) -> (u128, u128) {
    let s = u128::from(input.tokens());
    let e = input.activation_bytes();
    let h = u128::from(input.arch.hidden);
    let v = u128::from(input.arch.vocab);
    match (input.loss, input.compiled()) {
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
        // megatron/core/fusions/fused_cross_entropy.py (core_r0.11.0 to
        // d98e8a64): the same steps, each under megatron.core.jit's
        // `jit_fuser`, which is `torch.compile` from PyTorch 2.2.
        // `calculate_gradients` scatters into the saved softmax
        // (`grad_2d[arange_1d, masked_target_1d] -= softmax_update`),
        // multiplies in place and returns `.to(torch.bfloat16)`; compiled,
        // the functional `index_put` writes a fresh FP32 copy of the
        // softmax, which the graph copies back into the input, beside the
        // BF16 result: 4 + 4 + 2 bytes per logit, whatever the model's
        // dtype (the cast is to BF16 unconditionally; an FP32 head's
        // cast back replaces the freed copy). Inductor's output for the
        // function, PyTorch 2.6 and 2.10, is in docs/frameworks.md.
        (Loss::VocabParallelFused, _) => (10 * s * v, 4 * s * v),
    }
}

/// What the layers keep of one sample through the forward pass, on the GPU.
pub(super) fn kept_in_layers(input: &TransformerInput, saved: &Saved) -> u128 {
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

/// Training's activations per sample at the start of the backward pass, in
/// three parts: what stays through it (the layers' saved tensors, the
/// embedding's side), the loss's side (the head's and the loss's tensors,
/// or the forward pass's context-parallel blocks), and the layer in
/// flight's transient set (a recomputed layer, the working tensors).
pub(super) fn backward_start(input: &TransformerInput, saved: &Saved) -> (u128, u128, u128) {
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
