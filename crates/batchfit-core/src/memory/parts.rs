//! The decomposition of an estimate: the batch-independent and per-sample
//! parts of one configuration, per pipeline rank and stage.

use super::{AtPeak, Estimate, FRAGMENTATION_PERCENT, Phase, estimate_of};
use crate::activations;
use crate::arith::div_ceil;
use crate::parameters;
use crate::query::{Config, Form};
use crate::transformer::pipeline::{self, Rank, Schedule};
use crate::transformer::{
    self, Ends, Kind, Mode, ParameterCount, TransformerInput, UnfusedGradients, ZeroGrad,
};

/// The batch-independent and per-sample parts of one configuration.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Parts {
    pub(super) parameters: u128,
    pub(super) active_parameters: u128,
    pub(super) weights: u128,
    pub(super) gradients: u128,
    pub(super) optimizer_states: u128,
    pub(super) optimizer_step: u128,
    pub(super) buffers: u128,
    /// The step runs inside the backward pass, alongside the activations.
    pub(super) step_in_backward: bool,
    /// The gradients are alive with the activations: kept from an earlier
    /// micro-batch, or added to them by a napkin rule.
    gradients_with_activations: bool,
    /// The previous step's gradients are alive through the forward pass
    /// and freed before the backward pass (`zero_grad=after_forward`): they
    /// count at the end of the forward pass, not at the loss.
    gradients_through_forward: bool,
    /// The part of `weights` that exists only from the forward pass to the
    /// end of the backward pass: autocast's 16-bit copies (`recipe=amp`).
    compute_copies: u128,
    /// The part of `compute_copies` alive at the activations' moment (the
    /// loss, the start of the backward pass): all of them, or under full
    /// recomputation the head's and one recomputed layer's
    /// ([`transformer::loss_weight_copies`]).
    loss_copies: u128,
    /// The part of `compute_copies` alive at the end of the forward pass:
    /// all of them while autocast's cache holds them, else `loss_copies`.
    forward_copies: u128,
    /// Where fewer copies are alive at the loss than at the end of the
    /// forward pass, or the gradients are alive through the forward pass
    /// only: the activations per sample at that end, and the part the
    /// layers keep (for the timeline); 0 where the end of the forward pass
    /// is no moment of its own.
    pub(super) forward_per_sample: u128,
    pub(super) forward_layers_per_sample: u128,
    /// The last layer's backward pass at its FFN's and its attention's
    /// working set ([`transformer::PerSample::layers_backward`]): the activations per
    /// sample then and the gradients created by then; all 0 where that is
    /// no moment of its own (no such gradient, or the gradients are held).
    layers_backward: [(u128, u128); 2],
    /// The output layer's backward pass under `grad_accum_fusion=0`: the
    /// activations per sample then and its weight's 16-bit gradient; (0, 0)
    /// elsewhere. With `layers_backward`, the candidates of
    /// [`Self::layers_candidate`].
    head_backward: (u128, u128),
    /// The 16-bit weight gradients of `grad_accum_fusion=0`
    /// ([`transformer::unfused_gradients`]), for [`Self::at_seq`].
    pub(super) unfused: Option<UnfusedGradients>,
    /// Transformer Engine's cached dummy weight gradients under the fusion
    /// ([`transformer::dummy_wgrads`]): held through every moment of a step
    /// after the first, counted with the gradients.
    pub(super) dummy_wgrads: u128,
    /// What the embedding's backward, the end of the backward pass, holds
    /// beside every gradient ([`transformer::embedding_backward`]): a tied
    /// embedding's second gradient, and its incoming gradient per sample; 0
    /// where that is no moment of its own.
    end_gradients: u128,
    pub(super) end_per_sample: u128,
    pub(super) activations_per_sample: u128,
    /// The model's output a loop keeps, per sample
    /// ([`transformer::kept_outputs`]): alive at every moment of the step,
    /// counted with the activations.
    kept_outputs: u128,
    /// The KV cache per sample: its own size (every position), and what of
    /// it is alive at the activations' moment (the prompt's at the
    /// prefill, [`transformer::InferenceMoments`]).
    pub(super) kv_per_sample: u128,
    pub(super) kv_alive_per_sample: u128,
    /// Inference: the prefill, not the end of generation, sets the peak.
    pub(super) prefill_peaks: bool,
    /// Batch-independent tensors alive with the activations only (DoRA's B·A
    /// and weight norm, FP8 training's weight copies), counted with the
    /// buffers.
    pub(super) working: u128,
    /// The part of `activations_per_sample` the layers save, one layer after
    /// another (the rest, outside the layers, is alive at the loss), and how
    /// many layers there are: for the step's timeline.
    pub(super) layer_activations_per_sample: u128,
    pub(super) layers: u64,
    /// CPU memory of the offloads: model states, and activations per sample.
    pub(super) cpu: u128,
    pub(super) cpu_per_sample: u128,
    /// A pipeline rank without the output head: the loss runs on another
    /// rank, so its peak is not the loss's moment.
    no_loss: bool,
}

/// Micro-batches per step of a pipeline: `microbatches`, or `pp`, the fewest
/// that fill a 1F1B pipeline (Megatron-LM derives them from the global batch,
/// global / (micro-batch × data-parallel); batchfit does not, so that a
/// configuration's memory per sample does not move with its batch and the
/// largest batch that fits stays exact).
pub fn microbatches(config: &Config) -> u64 {
    let t = &config.transformer;
    if t.microbatches > 0 {
        t.microbatches
    } else {
        t.pp.max(1)
    }
}

/// The transformer input as one pipeline rank sees it: its layers (dense and
/// MoE, in that order: their parameters, and the terms of the stage taken
/// as a model of its own layers), with the parameters of its layers and
/// ends. The layers' saved tensors and their recomputation
/// ([`rank_activations`]) place each layer where the model does.
fn stage_view(input: &TransformerInput, rank: &Rank) -> (TransformerInput, ParameterCount) {
    let whole = rank.whole();
    let mut view = *input;
    view.arch.layers = whole.layers();
    if view.arch.moe() {
        (view.arch.first_dense_layers, view.arch.moe_every) = (whole.dense, 1);
    }
    let ends = Ends {
        embedding: whole.embedding,
        head: whole.head,
    };
    let count = transformer::stage_parameter_count(&view.arch, ends);
    (view, count)
}

/// A pipeline rank's activations per sample at its peak, and the part its
/// layers save. Each chunk's micro-batch keeps its layers' tensors and, but
/// on the embedding's chunk, the activation it received from the previous
/// stage (Megatron-Core schedules.py keeps `input_tensors` until the
/// micro-batch's backward pass; p2p_communication.py sizes it seq/cp (/tp
/// with sequence parallelism) × micro-batch × hidden). The schedule sets how
/// many micro-batches are in flight ([`pipeline`]). The last stage's head
/// and loss hold one micro-batch at the start of its backward pass (1F1B and
/// interleaved run it right after its forward pass), GPipe's every
/// micro-batch's saved log-softmax. Beside a layer's backward pass: one
/// activation-sized gradient received and one sent
/// (`send_backward_recv_forward`, `send_forward_recv_backward`). The
/// gradient received is where the rank's backward pass starts
/// (schedules.py `backward_step`: `torch.autograd.backward` of the output
/// with the received gradient), and the additions of the residual stream
/// hand it on as the stream's gradient: the working tensors' residual
/// gradient ([`transformer::Saved::residual_gradient`]) is counted once.
///
/// With `unfused` also [`transformer::PerSample::unfused_moments`]' two moments on this
/// rank: a layer's backward pass (its layers' tensors with the largest
/// transient), and on the head's rank the head's backward with the
/// micro-batches' saved loss tensors that wait beside it.
fn rank_activations(
    config: &Config,
    rank: &Rank,
    unfused: bool,
) -> (u128, u128, Option<(u128, u128)>) {
    let input = &config.transformer;
    if input.mode != Mode::Train {
        return (0, 0, None);
    }
    let saved = transformer::training_saved(input);
    let t = u128::from(input.tp);
    let boundary =
        u128::from(input.tokens()) * u128::from(input.arch.hidden) * input.activation_bytes();
    let boundary = if input.sp {
        boundary.div_ceil(t)
    } else {
        boundary
    };
    let weight = |chunk: &pipeline::Chunk| {
        saved.layers(chunk.span())
            + if chunk.embedding {
                saved.below
            } else {
                boundary
            }
    };
    let m = microbatches(config);
    let first = rank.chunks.first().copied().unwrap_or_default();
    let (layers, head_in_flight) = match input.pp_schedule {
        Schedule::OneFOneB => (
            u128::from(pipeline::one_f_one_b_in_flight(input.pp, rank.index, m)) * weight(&first),
            1,
        ),
        Schedule::Interleaved => (
            pipeline::interleaved_peak(input.pp, input.vpp, rank.index, m, |c| {
                rank.chunks
                    .get(usize::try_from(c).unwrap_or(usize::MAX))
                    .map_or(0, weight)
            }),
            1,
        ),
        Schedule::Gpipe => (
            u128::from(m) * rank.chunks.iter().map(weight).sum::<u128>(),
            m,
        ),
    };
    let whole = rank.whole();
    let waiting = u128::from(head_in_flight - 1) * saved.above_saved;
    let head = if whole.head { saved.above + waiting } else { 0 };
    // Each chunk is a block of its own that checkpoints its layers from its
    // first (Megatron-Core transformer_block.py `_checkpointed_forward`):
    // the largest transient of any chunk's layers.
    let transient = rank
        .chunks
        .iter()
        .map(|chunk| saved.layer_transient(chunk.span()))
        .max()
        .unwrap_or(0)
        .saturating_sub(saved.residual_gradient.min(boundary))
        + 2 * boundary;
    let moments = unfused.then(|| {
        let head = if whole.head {
            waiting + transformer::head_backward(input, &saved)
        } else {
            0
        };
        (layers + transient, layers + head)
    });
    (
        layers + head.max(transient).max(saved.context_forward),
        layers,
        moments,
    )
}

/// The backward pass's moments with `grad_accum_fusion=0`'s 16-bit weight
/// gradients ([`transformer::unfused_gradients`]): `layers_backward` (the
/// last layer's two working sets, each with the gradients created by then)
/// with the gradient beside a layer's backward added to each, or where
/// those are no moment of their own (held gradients) one moment of a
/// layer's backward pass beside it; and the output layer's backward with
/// its gradient. `moments` are the activations per sample of the two
/// ([`transformer::PerSample::unfused_moments`]). Unchanged without `unfused`.
fn with_unfused(
    layers_backward: [(u128, u128); 2],
    unfused: Option<UnfusedGradients>,
    moments: Option<(u128, u128)>,
) -> ([(u128, u128); 2], (u128, u128)) {
    let (Some(gradients), Some((layer, head))) = (unfused, moments) else {
        return (layers_backward, (0, 0));
    };
    let layers_backward = if layers_backward == [(0, 0); 2] {
        [(layer, gradients.layers), (0, 0)]
    } else {
        layers_backward.map(|(per_sample, created)| (per_sample, created + gradients.layers))
    };
    (layers_backward, (head, gradients.head))
}

/// Every pipeline rank's parts (one, the whole model, without a pipeline),
/// and the stage `pp_stage` names.
#[derive(Clone, Debug)]
pub(super) struct Model {
    stages: Vec<Parts>,
    named: Option<usize>,
}

impl Model {
    pub(super) fn of(config: &Config) -> Self {
        let t = &config.transformer;
        if config.form != Form::Transformer || t.pp <= 1 {
            return Self {
                stages: vec![Parts::of_rank(config, None)],
                named: None,
            };
        }
        let stages = pipeline::ranks(&t.arch, t.pp, t.vpp, &t.pp_layout)
            .iter()
            .map(|rank| Parts::of_rank(config, Some(rank)))
            .collect();
        Self {
            stages,
            named: t.pp_stage.index(t.pp).and_then(|i| usize::try_from(i).ok()),
        }
    }

    /// The stage answered for at `batch`: the one named, or the one whose
    /// memory is compared with the device (the most reserved bytes; then the
    /// most allocated, then the first).
    pub(super) fn at(&self, batch: u64) -> (usize, &Parts) {
        // Without a pipeline there is nothing to choose (and this runs at
        // every step of the largest-batch search).
        if let [only] = self.stages.as_slice() {
            return (0, only);
        }
        let named = self.named.and_then(|i| self.stages.get(i).map(|p| (i, p)));
        named
            .or_else(|| {
                self.stages
                    .iter()
                    .enumerate()
                    .rev()
                    .max_by_key(|(_, p)| (p.reserved(batch), p.total(batch)))
            })
            .unwrap_or((0, &EMPTY_PARTS))
    }
}

/// What a model without a stage would be (never: `Model::of` makes at least
/// one), so that choosing a stage needs no panic.
static EMPTY_PARTS: Parts = Parts {
    parameters: 0,
    active_parameters: 0,
    weights: 0,
    gradients: 0,
    optimizer_states: 0,
    optimizer_step: 0,
    buffers: 0,
    step_in_backward: false,
    gradients_with_activations: false,
    gradients_through_forward: false,
    compute_copies: 0,
    loss_copies: 0,
    forward_copies: 0,
    forward_per_sample: 0,
    forward_layers_per_sample: 0,
    layers_backward: [(0, 0); 2],
    head_backward: (0, 0),
    unfused: None,
    dummy_wgrads: 0,
    end_gradients: 0,
    end_per_sample: 0,
    activations_per_sample: 0,
    kept_outputs: 0,
    kv_per_sample: 0,
    kv_alive_per_sample: 0,
    prefill_peaks: false,
    working: 0,
    layer_activations_per_sample: 0,
    layers: 0,
    cpu: 0,
    cpu_per_sample: 0,
    no_loss: false,
};

impl Parts {
    pub(super) fn of(config: &Config) -> Self {
        *Model::of(config).at(config.batch()).1
    }
}

impl Parts {
    /// The parts of `config`, or of one pipeline rank of it.
    fn of_rank(config: &Config, rank: Option<&Rank>) -> Self {
        match config.form {
            Form::Activations => Self::of_activations(config),
            Form::Parameters => Self::of_parameters(config),
            Form::Transformer => Self::of_transformer(config, rank),
        }
    }

    /// The activations form: the rule of thumb's activations, nothing else.
    fn of_activations(config: &Config) -> Self {
        let per_sample = activations::estimate(&config.activations).per_sample;
        Self {
            activations_per_sample: per_sample,
            layer_activations_per_sample: per_sample,
            layers: config.activations.layers,
            ..Self::default()
        }
    }

    /// The parameters form: the napkin rule's model states, and its
    /// activations with the gradients.
    fn of_parameters(config: &Config) -> Self {
        let e = parameters::estimate(&config.parameters);
        Self {
            parameters: u128::from(config.parameters.params),
            active_parameters: u128::from(config.parameters.params),
            weights: e.weights,
            gradients: e.gradients,
            optimizer_states: e.optimizer_states,
            gradients_with_activations: true,
            activations_per_sample: e.activations_per_sample,
            layer_activations_per_sample: e.activations_per_sample,
            layers: 1,
            ..Self::default()
        }
    }

    /// The transformer form, or one pipeline rank of it.
    fn of_transformer(config: &Config, rank: Option<&Rank>) -> Self {
        let whole = &config.transformer;
        let count = transformer::parameter_count(&whole.arch);
        // A pipeline rank is a model of its layers and ends.
        let (stage, stage_count) = match rank {
            Some(rank) => stage_view(whole, rank),
            None => (*whole, count),
        };
        let input = &stage;
        let states = transformer::model_states(&stage_count, input);
        let ends = rank.map_or(Ends::WHOLE, |rank| {
            let whole = rank.whole();
            Ends {
                embedding: whole.embedding,
                head: whole.head,
            }
        });
        let unfused = transformer::unfused_gradients(input, ends);
        let per_sample = transformer::PerSample::new(input);
        let inference = transformer::InferenceMoments::of(input);
        let (activations_per_sample, layer_activations_per_sample, unfused_moments) = match rank {
            Some(rank) => rank_activations(config, rank, unfused.is_some()),
            None => {
                let (all, layers) = per_sample.activations_and_layers();
                let moments = unfused.map(|_| per_sample.unfused_moments());
                (all, layers, moments)
            }
        };
        let step_in_backward =
            input.mode == Mode::Train && input.effective_step() == transformer::Step::InBackward;
        // torch/amp/autocast_mode.py: autocast casts each FP32
        // weight to 16 bits at its first use and caches the cast
        // until the autocast region exits; the matrix products
        // save the casts for the backward pass, which frees them
        // layer by layer. The FP32 parameters are what persists.
        // Quantized weights (a QLoRA base) are dequantized per
        // matrix product, not cast and cached.
        let compute_copies = if input.autocast() && !input.quantized() {
            states.weights
        } else {
            0
        };
        // torch/csrc/autograd/functions/accumulate_grad.h: the
        // backward pass creates each `.grad` when it first
        // reaches the parameter, and torch/optim/optimizer.py
        // `zero_grad(set_to_none=True)` (the default since
        // PyTorch 2.0) drops them after the step: at the start
        // of the backward pass no gradient exists, unless an
        // earlier micro-batch of the same step left its own
        // (gradient accumulation adds into them). The step in
        // the backward pass holds one gradient at a time, next to
        // the activations. Accumulation is judged at a
        // micro-batch of one: the answer must not fall as the
        // batch grows (the largest batch that fits is a binary
        // search), so a global batch that a larger micro-batch
        // reaches in one step still counts its gradients early.
        // `zero_grad(set_to_none=False)` zero-fills the gradients
        // instead of dropping them: from the second step on they
        // are alive from the forward pass on (ZeroGrad::Zeros).
        // A pipeline's later micro-batches run their forward
        // passes after the first backward passes (1F1B), or
        // beside the gradients of the first ones (GPipe: from the
        // second backward pass on, with one micro-batch fewer;
        // counted with all of them, an upper bound).
        // DeepSpeed's ZeRO-3 allocates its gradient partition
        // once, at initialization (deepspeed/runtime/zero/stage3.py
        // `grad_partitions_flat_buffer`), and keeps it.
        // `set_to_none=True` is `p.grad = None`: it drops the only
        // reference, and the caching allocator counts the block free
        // at once. A loop that calls it after the forward pass and
        // the loss, before `loss.backward()` (Lightning's
        // lightning/pytorch/loops/optimization/automatic.py
        // `Closure.closure`: `_step_fn()`, then `_zero_grad_fn()`,
        // then `_backward_fn(loss)`), runs every forward pass from
        // the second step on beside the gradients the previous
        // step's backward pass left: `max_memory_allocated` sees
        // them at the end of the forward pass, and not at the loss.
        // Where they are alive with the activations anyway
        // (accumulation, a kept buffer) it changes nothing. A
        // pipeline rank counts them with its activations: an upper
        // bound (its own forward pass's end is not computed).
        let after_forward = input.zero_grad_after_forward();
        let gradients_with_activations = step_in_backward
            || input.deepspeed_stage3()
            || (input.mode == Mode::Train && input.zero_grad == ZeroGrad::Zeros)
            // DDP's buckets under `gradient_as_bucket_view=True`: the
            // gradients are views into them, allocated once
            // (`transformer::model_states`).
            || (input.ddp() && input.bucket_view)
            || (after_forward && rank.is_some())
            || accumulation_steps(&config.with_batch(1)).is_some_and(|steps| steps > 1)
            || (rank.is_some() && microbatches(config) > 1);
        let through_forward = after_forward && !gradients_with_activations;
        // Under full recomputation the checkpointed layers save no
        // copy: the cache's end (the forward's) is a moment of its own.
        let (loss_copies, forward_copies, (forward_per_sample, forward_layers_per_sample)) =
            match transformer::loss_weight_copies(input) {
                Some(copies) if copies < compute_copies && !input.compiled() => {
                    (copies, compute_copies, per_sample.forward())
                }
                Some(copies) if copies < compute_copies => (
                    copies,
                    copies,
                    if through_forward {
                        per_sample.forward()
                    } else {
                        (0, 0)
                    },
                ),
                _ if through_forward => (compute_copies, compute_copies, per_sample.forward()),
                _ => (compute_copies, compute_copies, (0, 0)),
            };
        // Held gradients are counted with the activations already.
        let layers_backward = if gradients_with_activations {
            [(0, 0); 2]
        } else {
            per_sample.layers_backward()
        };
        let (layers_backward, head_backward) =
            with_unfused(layers_backward, unfused, unfused_moments);
        let (end_gradients, end_per_sample) = if gradients_with_activations {
            (0, 0)
        } else {
            transformer::embedding_backward(input)
        };
        Self {
            parameters: count.total,
            active_parameters: count.active,
            weights: states.weights,
            gradients: states.gradients,
            optimizer_states: states.optimizer_states,
            optimizer_step: states.optimizer_step,
            buffers: states.buffers,
            step_in_backward,
            gradients_with_activations,
            gradients_through_forward: through_forward,
            compute_copies,
            loss_copies,
            forward_copies,
            forward_per_sample,
            forward_layers_per_sample,
            layers_backward,
            head_backward,
            unfused,
            dummy_wgrads: transformer::dummy_wgrads(input, ends),
            end_gradients,
            end_per_sample,
            activations_per_sample,
            kept_outputs: transformer::kept_outputs(input, ends),
            layer_activations_per_sample,
            layers: input.arch.layers,
            kv_per_sample: transformer::kv_cache_per_sample(input),
            kv_alive_per_sample: inference.at_peak().0,
            prefill_peaks: input.mode == Mode::Inference && inference.prefill_peaks(),
            // A quantized base's forward (bitsandbytes' product,
            // then DoRA's norm) and its backward dequantize one map
            // at a time: the larger working set counts.
            working: transformer::Adapters::of(input)
                .dora_working
                .max(transformer::dequantized_weight(&stage_count, input))
                + transformer::fp8_weight_copies(&stage_count, input),
            cpu: states.cpu,
            cpu_per_sample: transformer::offloaded_activations_per_sample(input),
            no_loss: rank.is_some_and(|r| !r.whole().head),
        }
    }

    /// The same parts at sequence length `seq` (the prompt in inference):
    /// only the activations and the KV cache depend on it.
    pub(super) fn at_seq(&self, config: &Config, seq: u64) -> Self {
        match config.form {
            Form::Activations => {
                let mut input = config.activations;
                input.seq = seq;
                Self {
                    activations_per_sample: activations::estimate(&input).per_sample,
                    ..*self
                }
            }
            Form::Parameters => *self,
            Form::Transformer => {
                let mut input = config.transformer;
                input.seq = seq;
                let per_sample = transformer::PerSample::new(&input);
                let inference = transformer::InferenceMoments::of(&input);
                let (forward_per_sample, forward_layers_per_sample) = if self.forward_per_sample > 0
                {
                    per_sample.forward()
                } else {
                    (0, 0)
                };
                let (layers_backward, head_backward) = match self.unfused {
                    None if self.layers_backward == [(0, 0); 2] => {
                        (self.layers_backward, self.head_backward)
                    }
                    None => (per_sample.layers_backward(), self.head_backward),
                    Some(_) => with_unfused(
                        if self.gradients_with_activations {
                            [(0, 0); 2]
                        } else {
                            per_sample.layers_backward()
                        },
                        self.unfused,
                        Some(per_sample.unfused_moments()),
                    ),
                };
                let end_per_sample = if self.end_per_sample > 0 {
                    transformer::embedding_backward(&input).1
                } else {
                    0
                };
                let kept_outputs = if self.kept_outputs > 0 {
                    transformer::kept_outputs(&input, Ends::WHOLE)
                } else {
                    0
                };
                Self {
                    activations_per_sample: per_sample.activations(),
                    kept_outputs,
                    kv_per_sample: transformer::kv_cache_per_sample(&input),
                    kv_alive_per_sample: inference.at_peak().0,
                    prefill_peaks: input.mode == Mode::Inference && inference.prefill_peaks(),
                    layers_backward,
                    head_backward,
                    end_per_sample,
                    forward_per_sample,
                    forward_layers_per_sample,
                    ..*self
                }
            }
        }
    }

    /// Held through the whole step: weights, optimizer states, framework
    /// buffers, the gradients when they outlive the backward pass, and
    /// Transformer Engine's dummy weight gradients.
    fn held(&self) -> u128 {
        let gradients = if self.gradients_with_activations {
            self.gradients
        } else {
            0
        };
        self.weights - self.compute_copies
            + self.optimizer_states
            + self.buffers
            + gradients
            + self.dummy_wgrads
    }

    /// CPU memory the offloads need at `batch`, for this GPU's process.
    pub(super) fn cpu_memory(&self, batch: u64) -> u128 {
        self.cpu + self.cpu_per_sample * u128::from(batch)
    }

    /// What grows with the batch: activations, and the KV cache in inference.
    fn per_batch(&self, batch: u64) -> u128 {
        (self.activations_per_sample + self.kv_alive_per_sample) * u128::from(batch)
    }

    /// The model's output a loop keeps at `batch`, alive at every moment
    /// (`outputs=kept`): each moment below adds it.
    pub(super) fn outputs(&self, batch: u64) -> u128 {
        self.kept_outputs * u128::from(batch)
    }

    /// Beyond [`Self::held`] at the start of the backward pass: the batch's
    /// activations (and KV cache), autocast's weight copies alive then and
    /// DoRA's working set, with the step's buffers when the step runs inside
    /// the backward pass.
    fn activation_moment(&self, batch: u64) -> u128 {
        let alive = self.per_batch(batch) + self.outputs(batch) + self.loss_copies + self.working;
        if self.step_in_backward {
            alive + self.optimizer_step
        } else {
            alive
        }
    }

    /// Beyond [`Self::held`] at the end of the forward pass, where it is a
    /// moment of its own (0 elsewhere): the activations then, autocast's
    /// copies alive then, DoRA's working set, and the previous step's
    /// gradients under `zero_grad=after_forward`.
    fn forward_moment(&self, batch: u64) -> u128 {
        if self.forward_per_sample == 0 {
            return 0;
        }
        self.forward_per_sample * u128::from(batch)
            + self.outputs(batch)
            + self.forward_copies
            + self.working
            + self.forward_gradients()
    }

    /// The gradients alive at the end of the forward pass beyond
    /// [`Self::held`].
    fn forward_gradients(&self) -> u128 {
        if self.gradients_through_forward {
            self.gradients
        } else {
            0
        }
    }

    /// Beyond [`Self::held`] while the last layer runs its largest working
    /// set, where that is a moment of its own (0 elsewhere): the activations
    /// then, the gradients created by then, autocast's weight copies alive
    /// at the loss and DoRA's working set.
    fn layers_backward_moment(&self, batch: u64) -> u128 {
        match self.layers_candidate(batch) {
            Some((per_sample, gradients)) => {
                per_sample * u128::from(batch)
                    + self.outputs(batch)
                    + gradients
                    + self.loss_copies
                    + self.working
            }
            None => 0,
        }
    }

    /// The larger of the last layer's two working-set moments at `batch`:
    /// its (activations per sample, gradients), or `None` where neither is
    /// a moment of its own.
    fn layers_candidate(&self, batch: u64) -> Option<(u128, u128)> {
        let [ffn, attention] = self.layers_backward;
        let head = self.head_backward;
        // Most estimates have none (held gradients, inference, the napkin
        // forms): no products to compare, on every step of a search.
        if ffn.1 == 0 && attention.1 == 0 && head.1 == 0 {
            return None;
        }
        let bytes =
            |(per_sample, gradients): (u128, u128)| per_sample * u128::from(batch) + gradients;
        let larger = [attention, head].into_iter().fold(ffn, |larger, c| {
            if bytes(c) > bytes(larger) { c } else { larger }
        });
        (larger.1 > 0).then_some(larger)
    }

    /// Beyond [`Self::held`] at the embedding's backward, the end of the
    /// backward pass, where that is a moment of its own (0 elsewhere): every
    /// gradient, a tied embedding's second one and the incoming gradient.
    fn end_moment(&self, batch: u64) -> u128 {
        if self.end_per_sample == 0 {
            return 0;
        }
        self.gradients
            + self.end_gradients
            + self.end_per_sample * u128::from(batch)
            + self.outputs(batch)
    }

    /// Beyond [`Self::held`] once the backward pass has freed the activations:
    /// the gradients it created and the optimizer step's buffers (and the
    /// model's output a loop keeps).
    fn gradient_moment(&self, batch: u64) -> u128 {
        let gradients = if self.gradients_with_activations {
            0
        } else {
            self.gradients
        };
        let gradients = gradients + self.outputs(batch);
        if self.step_in_backward {
            gradients
        } else {
            gradients + self.optimizer_step
        }
    }

    /// The peak: what is held plus the largest moment. Non-decreasing in the batch.
    pub(super) fn total(&self, batch: u64) -> u128 {
        self.held() + self.transient(batch)
    }

    /// The moment that sets the peak at `batch`: on a tie the activations'
    /// moment, then the last layer's backward pass, then the end of the
    /// forward pass, then the optimizer step's, as in [`Self::phase`].
    fn winner(&self, batch: u64) -> Instant {
        let (forward, loss, layers, gradients) = (
            self.forward_moment(batch),
            self.activation_moment(batch),
            self.layers_backward_moment(batch),
            self.gradient_moment(batch).max(self.end_moment(batch)),
        );
        if loss >= forward && loss >= layers && loss >= gradients {
            Instant::Loss
        } else if layers >= forward && layers >= gradients {
            Instant::LayersBackward
        } else if forward >= gradients {
            Instant::ForwardEnd
        } else if self.gradient_moment(batch) >= gradients {
            Instant::Gradients
        } else {
            Instant::BackwardEnd
        }
    }

    /// [`Self::total`] by component: [`Self::held`] plus the winning moment.
    pub(super) fn at_peak(&self, batch: u64) -> AtPeak {
        self.moment(batch, self.winner(batch))
    }

    /// What is alive at `instant`, by component: [`Self::held`] plus that
    /// moment.
    pub(super) fn moment(&self, batch: u64, instant: Instant) -> AtPeak {
        let alive = !matches!(instant, Instant::Gradients | Instant::BackwardEnd);
        let candidate = self.layers_candidate(batch).unwrap_or_default();
        let gradients = self.dummy_wgrads
            + match instant {
                Instant::LayersBackward if self.gradients_with_activations => {
                    self.gradients + candidate.1
                }
                _ if self.gradients_with_activations => self.gradients,
                Instant::ForwardEnd => self.forward_gradients(),
                Instant::Loss => 0,
                Instant::LayersBackward => candidate.1,
                Instant::BackwardEnd => self.gradients + self.end_gradients,
                Instant::Gradients => self.gradients,
            };
        // The step's temporaries live in the backward pass's moment when the
        // step runs there, else in the gradients' moment.
        let optimizer_step = match instant {
            Instant::Loss if self.step_in_backward => self.optimizer_step,
            Instant::Gradients if !self.step_in_backward => self.optimizer_step,
            Instant::ForwardEnd
            | Instant::Loss
            | Instant::LayersBackward
            | Instant::BackwardEnd
            | Instant::Gradients => 0,
        };
        let (per_sample, copies) = match instant {
            Instant::ForwardEnd => (self.forward_per_sample, self.forward_copies),
            Instant::Loss => (self.activations_per_sample, self.loss_copies),
            Instant::LayersBackward => (candidate.0, self.loss_copies),
            Instant::BackwardEnd => (self.end_per_sample, 0),
            Instant::Gradients => (0, 0),
        };
        let kv_cache = if alive {
            self.kv_alive_per_sample * u128::from(batch)
        } else {
            0
        };
        AtPeak {
            weights: self.weights - self.compute_copies + copies,
            gradients,
            optimizer_states: self.optimizer_states,
            optimizer_step,
            buffers: if alive {
                self.buffers + self.working
            } else {
                self.buffers
            },
            kv_cache,
            activations: per_sample * u128::from(batch) + self.outputs(batch),
            activations_alive: alive,
        }
    }

    /// What is allocated and freed within the step at its peak: the largest
    /// of the moments.
    fn transient(&self, batch: u64) -> u128 {
        self.activation_moment(batch)
            .max(self.forward_moment(batch))
            .max(self.layers_backward_moment(batch))
            .max(self.end_moment(batch))
            .max(self.gradient_moment(batch))
    }

    /// `torch.cuda.max_memory_reserved()`: the peak plus the allocator's slack
    /// on the transient bytes. Non-decreasing in the batch.
    pub(super) fn reserved(&self, batch: u64) -> u128 {
        let transient = self.transient(batch);
        self.held() + transient + div_ceil(transient * FRAGMENTATION_PERCENT, 100)
    }

    /// At most [`Self::reserved`]: what is held and the activations' moment
    /// (the largest moment is at least that), without the allocator's slack;
    /// fewer products for a search to rule a batch out by.
    pub(super) fn reserved_at_least(&self, batch: u64) -> u128 {
        self.held() + self.activation_moment(batch)
    }

    /// The moment that sets the peak of `config` at `batch`.
    pub(super) fn phase(&self, config: &Config, batch: u64) -> Phase {
        let t = &config.transformer;
        let winner = self.winner(batch);
        match config.form {
            Form::Transformer if t.mode == Mode::Inference && self.prefill_peaks => Phase::Prefill,
            Form::Transformer if t.mode == Mode::Inference => Phase::Generation,
            _ if winner == Instant::ForwardEnd => Phase::Forward,
            _ if matches!(winner, Instant::LayersBackward | Instant::BackwardEnd) => {
                Phase::Backward
            }
            _ if winner == Instant::Gradients => {
                if self.step_in_backward || self.optimizer_step == 0 {
                    Phase::Backward
                } else {
                    Phase::OptimizerStep
                }
            }
            Form::Activations => Phase::Forward,
            Form::Parameters if self.gradients == 0 => Phase::Forward,
            Form::Parameters => Phase::Backward,
            // A decoder's activations include the loss's logit-sized tensors
            // (transformer::activations_per_sample): the loss's moment.
            Form::Transformer if t.arch.kind == Kind::Decoder && !self.no_loss => Phase::Loss,
            // An encoder's, or a pipeline rank's without the head: the
            // backward pass starts with every saved activation alive.
            Form::Transformer => Phase::Backward,
        }
    }
}

/// The moments of a step that [`Parts`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Instant {
    /// The end of the forward pass, where it is a moment of its own
    /// ([`Parts::forward_moment`]).
    ForwardEnd,
    /// The activations' moment: the loss, the start of the backward pass
    /// (generation in inference).
    Loss,
    /// The last layer's backward pass at its largest working set, with the
    /// gradients created by then, where that is a moment of its own
    /// ([`Parts::layers_backward_moment`]).
    LayersBackward,
    /// The embedding's backward at the end of the backward pass: every
    /// gradient and its working tensors, where that is a moment of its own
    /// ([`Parts::end_moment`]).
    BackwardEnd,
    /// The end of the backward pass and the optimizer step.
    Gradients,
}

/// Steps of gradient accumulation so that micro-batch × data-parallel GPUs ×
/// steps reaches the target global batch (`global_batch`), if one is set.
pub fn accumulation_steps(config: &Config) -> Option<u64> {
    if config.global_batch == 0 {
        return None;
    }
    let replicas = match config.form {
        Form::Transformer => config.transformer.gpus,
        Form::Activations | Form::Parameters => 1,
    };
    let per_step = config.batch().saturating_mul(replicas);
    Some(config.global_batch.div_ceil(per_step.max(1)))
}

/// One pipeline stage's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stage {
    /// The pipeline rank, from 0.
    pub index: u64,
    /// Layers on the rank (over all its model chunks).
    pub layers: u64,
    /// The embedding, and the output head with the loss, are on it.
    pub embedding: bool,
    pub head: bool,
    /// The rank's estimate, as [`estimate`](super::estimate) gives it (its largest batch is
    /// the rank's own).
    pub estimate: Estimate,
}

/// Every pipeline stage's estimate, in rank order; one stage, the
/// estimate itself, without pipeline parallelism. [`estimate`](super::estimate) is the
/// stage `pp_stage` names, or the one with the most reserved bytes (what is
/// compared with the device).
pub fn stages(config: &Config) -> Vec<Stage> {
    let t = &config.transformer;
    let model = Model::of(config);
    if model.stages.len() == 1 {
        return vec![Stage {
            index: 0,
            layers: match config.form {
                Form::Transformer => t.arch.layers,
                Form::Activations => config.activations.layers,
                Form::Parameters => 0,
            },
            embedding: true,
            head: true,
            estimate: estimate_of(config, &model),
        }];
    }
    pipeline::ranks(&t.arch, t.pp, t.vpp, &t.pp_layout)
        .iter()
        .zip(&model.stages)
        .map(|(rank, parts)| {
            let whole = rank.whole();
            let alone = Model {
                stages: vec![*parts],
                named: None,
            };
            Stage {
                index: rank.index,
                layers: whole.layers(),
                embedding: whole.embedding,
                head: whole.head,
                estimate: estimate_of(config, &alone),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
