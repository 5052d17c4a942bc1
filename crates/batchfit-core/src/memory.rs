//! One estimate for all three forms, and the answers derived from it: the batch
//! sweep, the largest batch that fits, gradient-accumulation steps, GPUs needed,
//! and what would make a configuration fit.
//!
//! ```
//! use batchfit_core::{memory, query};
//!
//! let config = query::parse("form=parameters&params=7B&precision=fp16&optimizer=adamw&gpu=h100-80gb").config;
//! let estimate = memory::estimate(&config);
//! assert_eq!(estimate.weights, 14_000_000_000);
//! assert_eq!(estimate.fits, Some(false));
//! ```

use crate::Precision;
use crate::activations::{self, BATCH, SEQ};
use crate::arith::div_ceil;
use crate::choice::choice;
use crate::parameters;
use crate::presets::{DEVICES_BY_CAPACITY, Device, DevicePreset};
use crate::query::{Config, Form};
use crate::transformer::pipeline::{self, Rank, Schedule};
use crate::transformer::{
    self, BaseQuant, Ends, GPUS, Kind, KvDtype, Mode, ParameterCount, Recipe, Recompute,
    TransformerInput, UnfusedGradients, ZeroGrad,
};

choice! {
    /// The moment of a step that sets the peak (docs/model.md, "Timeline").
    pub enum Phase {
        /// End of the forward pass: every activation kept for the backward pass,
        /// no gradient yet (the activations form, or training without an
        /// optimizer); under autocast with full recomputation, every cached
        /// 16-bit weight copy beside the loss's forward, before the autocast
        /// region exits.
        Forward = "forward",
        /// The backward pass: at its start (an encoder's or ViT's activations,
        /// the last layer's working set beside the gradients created by then,
        /// or gradients kept from an earlier micro-batch), or at its end, every
        /// gradient allocated and the activations freed but the embedding's
        /// incoming gradient (a fused step adds nothing).
        Backward = "backward",
        /// Inside `optimizer.step()`: the step's temporaries, after the backward
        /// pass has freed the activations.
        OptimizerStep = "optimizer_step",
        /// The loss: a decoder's log-softmax and gradients of logit size on top
        /// of the activations, at the start of the backward pass.
        Loss = "loss",
        /// Inference: the prefill's transients on top of the weights and KV cache.
        Generation = "generation",
    }
    default Backward
}

/// Share of the bytes allocated and freed within a step (activations, KV cache,
/// the step's buffers) that PyTorch's caching allocator keeps reserved but
/// unusable at the peak, in percent. A judgement from the allocator's design,
/// not fitted to any measurement: requests are rounded to 512 B, blocks over
/// 1 MiB are carved from 20 MiB or 2 MiB-rounded segments
/// (pytorch/pytorch c10/core/AllocatorConfig.h: kMinBlockSize, kLargeBuffer,
/// kRoundLarge), and a cached block is split for a smaller request, leaving
/// remainders the next, differently sized tensors cannot use. The documented
/// range is 0 % (`expandable_segments:True`, or one size of tensor per step) to
/// 25 %; model states are allocated once and packed, so they carry none.
pub const FRAGMENTATION_PERCENT: u128 = 10;

/// Memory of one configuration, per GPU, in bytes, as three readings.
///
/// `total` = `peak_allocated` is the peak of what tensors occupy, what
/// `torch.cuda.max_memory_allocated()` reports: weights + optimizer states +
/// framework buffers + the larger of two moments. At the start of the backward
/// pass the activations (and KV cache) are alive; the transformer form's
/// gradients are not yet, because autograd creates them during the backward
/// pass and `zero_grad(set_to_none=True)` frees them after each step, unless
/// gradient accumulation keeps them from the previous micro-batch (the
/// last layer's backward pass holds the activations with the gradients
/// created by then: the head's and its own first). After the backward pass
/// the activations are freed and the gradients and the optimizer step's
/// buffers are alive (its last node, the embedding's backward, holds its
/// incoming gradient and a tied embedding's second gradient beside them). A step inside the backward pass counts
/// with the activations; the activations and parameters forms, napkin rules,
/// add gradients and activations. `peak_phase` says which moment wins. `peak_reserved` adds the
/// caching allocator's slack on the transient bytes ([`FRAGMENTATION_PERCENT`]),
/// what `torch.cuda.max_memory_reserved()` reports. `nvidia_smi` adds `overhead`
/// (the CUDA context, cuBLAS workspaces, communication buffers): the process's
/// memory as nvidia-smi shows it. `required = nvidia_smi × (1 + margin)` is what
/// is compared with the device. The activations form models activations only:
/// its weights, gradients and optimizer states are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Estimate {
    /// Parameters of the whole model (0 for the activations form).
    pub parameters: u128,
    /// Parameters one token uses: below `parameters` for a mixture of
    /// experts (the routed experts it is not sent to), equal otherwise.
    pub active_parameters: u128,
    pub weights: u128,
    /// The gradients, and under `grad_accum_fusion=0` the largest of the
    /// 16-bit weight gradients that exist beside them one at a time
    /// ([`transformer::unfused_gradients`]), or under the fusion Transformer
    /// Engine's cached dummy weight gradients ([`transformer::dummy_wgrads`]).
    pub gradients: u128,
    /// Optimizer state, including FP32 master weights when the recipe keeps them.
    pub optimizer_states: u128,
    /// Temporary buffers of the optimizer step (foreach, for-loop, in-backward).
    pub optimizer_step: u128,
    /// Framework buffers alive through the step (DeepSpeed's gradient bucket).
    pub buffers: u128,
    /// Inference only: keys and values of every token, for the whole batch.
    pub kv_cache: u128,
    /// The activations, with the model's output a loop keeps
    /// ([`Self::kept_outputs`]).
    pub activations: u128,
    pub activations_per_sample: u128,
    /// The model's output (a decoder's logits) a loop that keeps it holds
    /// at every moment of the step (`outputs=kept`,
    /// [`transformer::kept_outputs`]): part of `activations`, and at the
    /// gradients' moment the whole of `at_peak.activations`.
    pub kept_outputs: u128,
    /// The peak of allocated bytes; equal to `peak_allocated`.
    pub total: u128,
    pub overhead: u128,
    pub required: u128,
    /// What `torch.cuda.max_memory_allocated()` reports.
    pub peak_allocated: u128,
    /// What `torch.cuda.max_memory_reserved()` reports: allocated plus the
    /// caching allocator's slack.
    pub peak_reserved: u128,
    /// What nvidia-smi shows for the process: reserved plus the overhead.
    pub nvidia_smi: u128,
    /// The moment that sets the peak.
    pub peak_phase: Phase,
    /// What is alive at the peak, by component: its parts sum exactly to
    /// `peak_allocated`. The fields above are each term's own size.
    pub at_peak: AtPeak,
    /// The device's memory, when one is chosen.
    pub device_bytes: Option<u128>,
    pub fits: Option<bool>,
    /// The largest batch whose `required` fits the device (0: not even one sample).
    pub max_batch: Option<u64>,
    /// Steps of gradient accumulation to reach the target global batch.
    pub accumulation_steps: Option<u64>,
    /// CPU memory the offloads need for this GPU's process (`offload`,
    /// `param_offload`, `act_offload`; 0 without them): not in any GPU reading.
    pub cpu_memory: u128,
    /// The optimizer state counted on the GPU is a paged optimizer's
    /// (`optimizer=paged_adamw_8bit`, `paged_adamw`), in CUDA unified memory
    /// that may spill to CPU under pressure: the readings count all of it on
    /// the GPU, none of it less ([`transformer::Optimizer::paged`]).
    pub optimizer_may_spill: bool,
}

impl Estimate {
    /// Weights, gradients and optimizer states: each term's own size, whatever
    /// the batch (not all of it need be alive at the peak: [`Self::at_peak`]).
    pub fn model_states(&self) -> u128 {
        self.weights + self.gradients + self.optimizer_states
    }

    /// The caching allocator's reserved but unused bytes at the peak:
    /// `peak_reserved − peak_allocated`.
    pub fn allocator_cache(&self) -> u128 {
        self.peak_reserved - self.peak_allocated
    }

    /// The safety margin's bytes: `required − nvidia_smi`.
    pub fn margin_bytes(&self) -> u128 {
        self.required - self.nvidia_smi
    }
}

/// The tensors alive at the moment that sets the peak, by component. The
/// parts sum exactly to [`Estimate::peak_allocated`]; a part smaller than the
/// term's own size in [`Estimate`] is (partly) not alive then:
///
/// - when the activations' moment sets the peak (`activations_alive`), the
///   gradients autograd creates during the backward pass do not exist yet
///   (unless accumulation or a step in the backward pass keeps them), nor do
///   the optimizer step's temporaries;
/// - when the gradients' moment sets it, the backward pass has freed the
///   activations, the KV cache and autocast's 16-bit weight copies.
///
/// A part can also be larger than the term's own size: at the end of the
/// backward pass a tied embedding's backward holds a second gradient of the
/// shared matrix beside every gradient ([`transformer::embedding_backward`]).
///
/// Then `peak_allocated + allocator cache + overhead + margin = required`:
/// the page's bar, the CLI's `at_peak` and every sweep row are this sum.
///
/// ```
/// use batchfit_core::{memory, query};
///
/// let config = query::parse("form=transformer&model=llama-3.1-8b&batch=4&seq=4096").config;
/// let e = memory::estimate(&config);
/// assert_eq!(e.at_peak.sum(), e.peak_allocated);
/// assert!(e.at_peak.activations_alive);
/// assert_eq!(e.at_peak.gradients, 0); // created after the activations are freed
/// assert_eq!(
///     e.peak_allocated + e.allocator_cache() + e.overhead + e.margin_bytes(),
///     e.required
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AtPeak {
    pub weights: u128,
    pub gradients: u128,
    pub optimizer_states: u128,
    pub optimizer_step: u128,
    pub buffers: u128,
    pub kv_cache: u128,
    pub activations: u128,
    /// The activations' moment (the end of the forward pass, the loss, the
    /// start of the backward pass, generation) sets the peak, rather than the
    /// gradients' (the end of the backward pass, the optimizer step).
    pub activations_alive: bool,
}

impl AtPeak {
    /// Every part: `peak_allocated`.
    pub fn sum(&self) -> u128 {
        self.fixed() + self.per_batch()
    }

    /// The parts that do not grow with the batch: model states, the step's
    /// temporaries and framework buffers, as far as they are alive at the peak.
    pub fn fixed(&self) -> u128 {
        self.weights + self.gradients + self.optimizer_states + self.optimizer_step + self.buffers
    }

    /// The parts that grow with the batch: activations and the KV cache.
    pub fn per_batch(&self) -> u128 {
        self.activations + self.kv_cache
    }
}

/// The batch-independent and per-sample parts of one configuration.
#[derive(Clone, Copy, Debug, Default)]
struct Parts {
    parameters: u128,
    active_parameters: u128,
    weights: u128,
    gradients: u128,
    optimizer_states: u128,
    optimizer_step: u128,
    buffers: u128,
    /// The step runs inside the backward pass, alongside the activations.
    step_in_backward: bool,
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
    forward_per_sample: u128,
    forward_layers_per_sample: u128,
    /// The last layer's backward pass at its FFN's and its attention's
    /// working set ([`transformer::layers_backward`]): the activations per
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
    unfused: Option<UnfusedGradients>,
    /// Transformer Engine's cached dummy weight gradients under the fusion
    /// ([`transformer::dummy_wgrads`]): held through every moment of a step
    /// after the first, counted with the gradients.
    dummy_wgrads: u128,
    /// What the embedding's backward, the end of the backward pass, holds
    /// beside every gradient ([`transformer::embedding_backward`]): a tied
    /// embedding's second gradient, and its incoming gradient per sample; 0
    /// where that is no moment of its own.
    end_gradients: u128,
    end_per_sample: u128,
    activations_per_sample: u128,
    /// The model's output a loop keeps, per sample
    /// ([`transformer::kept_outputs`]): alive at every moment of the step,
    /// counted with the activations.
    kept_outputs: u128,
    kv_per_sample: u128,
    /// Batch-independent tensors alive with the activations only (DoRA's B·A
    /// and weight norm, FP8 training's weight copies), counted with the
    /// buffers.
    working: u128,
    /// The part of `activations_per_sample` the layers save, one layer after
    /// another (the rest, outside the layers, is alive at the loss), and how
    /// many layers there are: for the step's timeline.
    layer_activations_per_sample: u128,
    layers: u64,
    /// CPU memory of the offloads: model states, and activations per sample.
    cpu: u128,
    cpu_per_sample: u128,
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
/// With `unfused` also [`transformer::unfused_moments`]' two moments on this
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
/// ([`transformer::unfused_moments`]). Unchanged without `unfused`.
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
struct Model {
    stages: Vec<Parts>,
    named: Option<usize>,
}

impl Model {
    fn of(config: &Config) -> Self {
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
    fn at(&self, batch: u64) -> (usize, &Parts) {
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
    working: 0,
    layer_activations_per_sample: 0,
    layers: 0,
    cpu: 0,
    cpu_per_sample: 0,
    no_loss: false,
};

impl Parts {
    fn of(config: &Config) -> Self {
        *Model::of(config).at(config.batch()).1
    }
}

impl Parts {
    /// The parts of `config`, or of one pipeline rank of it.
    fn of_rank(config: &Config, rank: Option<&Rank>) -> Self {
        match config.form {
            Form::Activations => {
                let per_sample = activations::estimate(&config.activations).per_sample;
                Self {
                    activations_per_sample: per_sample,
                    layer_activations_per_sample: per_sample,
                    layers: config.activations.layers,
                    ..Self::default()
                }
            }
            Form::Parameters => {
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
            Form::Transformer => {
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
                let (activations_per_sample, layer_activations_per_sample, unfused_moments) =
                    match rank {
                        Some(rank) => rank_activations(config, rank, unfused.is_some()),
                        None => {
                            let (all, layers) =
                                transformer::activations_and_layers_per_sample(input);
                            let moments = unfused.map(|_| transformer::unfused_moments(input));
                            (all, layers, moments)
                        }
                    };
                let step_in_backward = input.mode == Mode::Train
                    && input.effective_step() == transformer::Step::InBackward;
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
                    || (after_forward && rank.is_some())
                    || accumulation_steps(&config.with_batch(1)).is_some_and(|steps| steps > 1)
                    || (rank.is_some() && microbatches(config) > 1);
                let through_forward = after_forward && !gradients_with_activations;
                // Under full recomputation the checkpointed layers save no
                // copy: the cache's end (the forward's) is a moment of its own.
                let (loss_copies, forward_copies, (forward_per_sample, forward_layers_per_sample)) =
                    match transformer::loss_weight_copies(input) {
                        Some(copies) if copies < compute_copies && !input.compiled() => (
                            copies,
                            compute_copies,
                            transformer::forward_activations_per_sample(input),
                        ),
                        Some(copies) if copies < compute_copies => (
                            copies,
                            copies,
                            if through_forward {
                                transformer::forward_activations_per_sample(input)
                            } else {
                                (0, 0)
                            },
                        ),
                        _ if through_forward => (
                            compute_copies,
                            compute_copies,
                            transformer::forward_activations_per_sample(input),
                        ),
                        _ => (compute_copies, compute_copies, (0, 0)),
                    };
                // Held gradients are counted with the activations already.
                let layers_backward = if gradients_with_activations {
                    [(0, 0); 2]
                } else {
                    transformer::layers_backward(input)
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
        }
    }

    /// The same parts at sequence length `seq` (the prompt in inference):
    /// only the activations and the KV cache depend on it.
    fn at_seq(&self, config: &Config, seq: u64) -> Self {
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
                let (forward_per_sample, forward_layers_per_sample) = if self.forward_per_sample > 0
                {
                    transformer::forward_activations_per_sample(&input)
                } else {
                    (0, 0)
                };
                let (layers_backward, head_backward) = match self.unfused {
                    None if self.layers_backward == [(0, 0); 2] => {
                        (self.layers_backward, self.head_backward)
                    }
                    None => (transformer::layers_backward(&input), self.head_backward),
                    Some(_) => with_unfused(
                        if self.gradients_with_activations {
                            [(0, 0); 2]
                        } else {
                            transformer::layers_backward(&input)
                        },
                        self.unfused,
                        Some(transformer::unfused_moments(&input)),
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
                    activations_per_sample: transformer::activations_per_sample(&input),
                    kept_outputs,
                    kv_per_sample: transformer::kv_cache_per_sample(&input),
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

    /// What grows with the batch: activations, and the KV cache in inference.
    fn per_batch(&self, batch: u64) -> u128 {
        (self.activations_per_sample + self.kv_per_sample) * u128::from(batch)
    }

    /// The model's output a loop keeps at `batch`, alive at every moment
    /// (`outputs=kept`): each moment below adds it.
    fn outputs(&self, batch: u64) -> u128 {
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
    fn total(&self, batch: u64) -> u128 {
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
    fn at_peak(&self, batch: u64) -> AtPeak {
        self.moment(batch, self.winner(batch))
    }

    /// What is alive at `instant`, by component: [`Self::held`] plus that
    /// moment.
    fn moment(&self, batch: u64, instant: Instant) -> AtPeak {
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
            self.kv_per_sample * u128::from(batch)
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
    fn reserved(&self, batch: u64) -> u128 {
        let transient = self.transient(batch);
        self.held() + transient + div_ceil(transient * FRAGMENTATION_PERCENT, 100)
    }

    /// The moment that sets the peak of `config` at `batch`.
    fn phase(&self, config: &Config, batch: u64) -> Phase {
        let t = &config.transformer;
        let winner = self.winner(batch);
        match config.form {
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
enum Instant {
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

/// `nvidia_smi × (1 + margin)`, rounded up to a byte, where `nvidia_smi` is the
/// reserved bytes plus the overhead.
fn required(reserved: u128, config: &Config) -> u128 {
    with_margin(reserved + config.overhead_bytes(), config)
}

/// `nvidia_smi × (1 + margin)`, rounded up to a byte: what is compared with
/// the device for a process that nvidia-smi would show at `nvidia_smi` bytes
/// (saturating, for the validation range's ends: [`crate::confidence`]).
pub(crate) fn with_margin(nvidia_smi: u128, config: &Config) -> u128 {
    div_ceil(
        nvidia_smi.saturating_mul(10_000 + u128::from(config.margin)),
        10_000,
    )
}

/// The estimate for `config`. Pure and total: never fails, panics or overflows
/// for any configuration [`crate::query::parse`] can produce.
pub fn estimate(config: &Config) -> Estimate {
    estimate_of(config, &Model::of(config))
}

/// The estimate of `model`'s stage answered for, its largest batch the one
/// at which every stage of `model` fits.
fn estimate_of(config: &Config, model: &Model) -> Estimate {
    let batch = config.batch();
    let (_, parts) = model.at(batch);
    let total = parts.total(batch);
    let reserved = parts.reserved(batch);
    let device_bytes = config.device.map(|d| d.bytes());
    let required_bytes = required(reserved, config);
    Estimate {
        parameters: parts.parameters,
        active_parameters: parts.active_parameters,
        weights: parts.weights,
        gradients: parts.gradients
            + parts.dummy_wgrads
            + parts
                .unfused
                .map_or(0, |unfused| unfused.head.max(unfused.layers)),
        optimizer_states: parts.optimizer_states,
        optimizer_step: parts.optimizer_step,
        buffers: parts.buffers + parts.working,
        kv_cache: parts.kv_per_sample * u128::from(batch),
        activations: parts.activations_per_sample * u128::from(batch) + parts.outputs(batch),
        activations_per_sample: parts.activations_per_sample,
        kept_outputs: parts.outputs(batch),
        total,
        overhead: config.overhead_bytes(),
        required: required_bytes,
        peak_allocated: total,
        peak_reserved: reserved,
        nvidia_smi: reserved + config.overhead_bytes(),
        peak_phase: parts.phase(config, batch),
        at_peak: parts.at_peak(batch),
        device_bytes,
        fits: device_bytes.map(|d| required_bytes <= d),
        max_batch: device_bytes.map(|d| max_batch_within(model, config, d)),
        accumulation_steps: accumulation_steps(config),
        cpu_memory: parts.cpu + parts.cpu_per_sample * u128::from(batch),
        optimizer_may_spill: config.form == Form::Transformer
            && config.transformer.mode == Mode::Train
            && config.transformer.optimizer.paged()
            && parts.optimizer_states > 0,
    }
}

/// The largest batch in 1 … `BATCH.max` whose required memory is at most
/// `device`, or 0. Binary search on the monotone `required(batch)`: exact, not
/// a search over powers of two.
fn max_batch_within(model: &Model, config: &Config, device: u128) -> u64 {
    let fits = |batch: u64| required(model.at(batch).1.reserved(batch), config) <= device;
    if !fits(1) {
        return 0;
    }
    let (mut fitting, mut too_big) = (1u64, BATCH.max + 1);
    if fits(BATCH.max) {
        return BATCH.max;
    }
    while too_big - fitting > 1 {
        let middle = fitting + (too_big - fitting) / 2;
        if fits(middle) {
            fitting = middle;
        } else {
            too_big = middle;
        }
    }
    fitting
}

/// The longest sequence that fits the device at the chosen batch: in training
/// the sequence length, in inference the whole context (prompt + the
/// generated tokens as set; the prompt grows). `None` without a device, for
/// the parameters form (no sequence) and for vision transformers (their length
/// is the image's). 0 when not even one token fits. Exact: binary search on
/// `required(seq)`, which never decreases with the sequence; the model's own
/// context limit (`max_position_embeddings`) is not applied.
pub fn max_seq(config: &Config) -> Option<u64> {
    let device = config.device?.bytes();
    let generated = match config.form {
        Form::Parameters => return None,
        Form::Transformer if config.transformer.arch.kind == Kind::Vision => return None,
        Form::Transformer if config.transformer.mode == Mode::Inference => {
            config.transformer.generated
        }
        Form::Activations | Form::Transformer => 0,
    };
    let parts = Parts::of(config);
    let batch = config.batch();
    let pipelined = config.form == Form::Transformer && config.transformer.pp > 1;
    let fits = |seq: u64| {
        let parts = if pipelined {
            let mut longer = *config;
            longer.transformer.seq = seq;
            Parts::of(&longer)
        } else {
            parts.at_seq(config, seq)
        };
        required(parts.reserved(batch), config) <= device
    };
    if !fits(SEQ.min) {
        return Some(0);
    }
    if fits(SEQ.max) {
        return Some(SEQ.max.saturating_add(generated));
    }
    let (mut fitting, mut too_long) = (SEQ.min, SEQ.max);
    while too_long - fitting > 1 {
        let middle = fitting + (too_long - fitting) / 2;
        if fits(middle) {
            fitting = middle;
        } else {
            too_long = middle;
        }
    }
    Some(fitting.saturating_add(generated))
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

/// One row of the batch sweep, at-peak quantities: `model_states +
/// activations = total` on every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SweepRow {
    pub batch: u64,
    /// Weights, gradients, optimizer states, the step's temporaries and
    /// framework buffers, as far as they are alive at this batch's peak
    /// ([`AtPeak::fixed`]): gradients count once the backward pass has freed
    /// the activations, so this can change where the peak moves.
    pub model_states: u128,
    /// Activations and KV cache alive at the peak ([`AtPeak::per_batch`]; 0
    /// when the gradients' moment sets it).
    pub activations: u128,
    /// The peak at this batch, `peak_allocated` (see [`Estimate`]).
    pub total: u128,
    /// What is compared with the device, as in [`Estimate::required`].
    pub required: u128,
}

/// Powers of two from 1 until one batch past the largest that fits (without a
/// device: past the chosen batch), plus the chosen batch, in increasing order.
pub fn sweep(config: &Config) -> Vec<SweepRow> {
    let model = Model::of(config);
    let chosen = config.batch();
    let last = match config.device {
        Some(device) => max_batch_within(&model, config, device.bytes()).max(chosen),
        None => chosen,
    };
    let mut batches: Vec<u64> = std::iter::successors(Some(1u64), |&b| {
        (b <= last && b < BATCH.max).then(|| (b * 2).min(BATCH.max))
    })
    .collect();
    // The powers of two are in order: the chosen batch goes in its place.
    if let Err(at) = batches.binary_search(&chosen) {
        batches.insert(at, chosen);
    }
    batches
        .into_iter()
        .map(|batch| {
            let (_, parts) = model.at(batch);
            let at_peak = parts.at_peak(batch);
            SweepRow {
                batch,
                model_states: at_peak.fixed(),
                activations: at_peak.per_batch(),
                total: at_peak.sum(),
                required: required(parts.reserved(batch), config),
            }
        })
        .collect()
}

/// The smallest data-parallel degree at which the transformer configuration fits
/// its device with its ZeRO stage (model states shrink as GPUs are added from
/// stage 1 on), or `None` when no device is chosen, the form is not the
/// transformer form, or even `GPUS.max` GPUs are not enough. With expert
/// parallelism the degree is a multiple of `ep` (of ep × etp / gcd(ep × etp,
/// tp) with expert tensor parallelism), which must divide it.
pub fn gpus_needed(config: &Config) -> Option<u64> {
    let device = config.device?.bytes();
    if config.form != Form::Transformer {
        return None;
    }
    let ep = config.transformer.gpus_multiple().max(1);
    let fits = |groups: u64| {
        let mut trial = *config;
        trial.transformer.gpus = groups * ep;
        let batch = trial.batch();
        required(Model::of(&trial).at(batch).1.reserved(batch), &trial) <= device
    };
    let most = GPUS.max / ep;
    if most == 0 || !fits(most) {
        return None;
    }
    let (mut too_few, mut enough) = (0u64, most);
    while enough - too_few > 1 {
        let middle = too_few + (enough - too_few) / 2;
        if fits(middle) {
            enough = middle;
        } else {
            too_few = middle;
        }
    }
    Some(enough * ep)
}

/// One device preset's answer for a configuration: [`devices`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceFit {
    pub device: &'static DevicePreset,
    /// What a GPU needs at the configuration's batch on this device (the
    /// device changes nothing but the capacity, so this is the same on every
    /// row; kept per row for the spare memory's sign).
    pub required: u128,
    pub fits: bool,
    /// The largest batch that fits (0: not even one sample).
    pub max_batch: u64,
    /// Data-parallel ranks at which the transformer form fits, as
    /// [`gpus_needed`] says.
    pub gpus_needed: Option<u64>,
}

impl DeviceFit {
    /// Capacity − required: negative when the device is short of memory.
    pub fn spare(&self) -> i128 {
        // Both are below 2^127 (a capacity is at most a few TB, the required
        // memory is a sum of u128s that the estimate saturates).
        let signed = |bytes: u128| i128::try_from(bytes).unwrap_or(i128::MAX);
        signed(self.device.bytes).saturating_sub(signed(self.required))
    }
}

/// The configuration on every device preset, by capacity ascending (presets
/// of equal capacity in their list's order): which GPUs fit, the largest batch
/// on each, and the GPUs needed. The page's "Which GPUs fit" table and
/// `batchfit devices` both print this.
pub fn devices(config: &Config) -> Vec<DeviceFit> {
    DEVICES_BY_CAPACITY
        .iter()
        .map(|&device| {
            let on = Config {
                device: Some(Device::Preset(device)),
                ..*config
            };
            let e = estimate(&on);
            DeviceFit {
                device,
                required: e.required,
                fits: e.fits == Some(true),
                max_batch: e.max_batch.unwrap_or(0),
                gpus_needed: gpus_needed(&on),
            }
        })
        .collect()
}

/// Every GPU the job takes for `dp` data-parallel ranks: dp × tp × pp × cp
/// (expert parallelism runs inside the data-parallel ranks, as
/// Megatron-Core's parallel_state.py and torchtitan's mesh place it). 1 per
/// rank outside the transformer form.
pub fn total_gpus(config: &Config, dp: u64) -> u64 {
    match config.form {
        Form::Transformer => {
            let t = &config.transformer;
            dp.saturating_mul(t.tp)
                .saturating_mul(t.pp)
                .saturating_mul(t.cp)
        }
        Form::Activations | Form::Parameters => dp,
    }
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
    /// The rank's estimate, as [`estimate`] gives it (its largest batch is
    /// the rank's own).
    pub estimate: Estimate,
}

/// Every pipeline stage's estimate, in rank order; one stage, the
/// estimate itself, without pipeline parallelism. [`estimate`] is the
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

/// One change that might make a configuration fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// Half the batch (rounded up).
    HalfBatch,
    /// Gradient checkpointing: `ckpt=1` in the activations form, full
    /// recomputation in the transformer form.
    Checkpointing,
    /// BF16 instead of FP32: the precision of the activations and parameters
    /// forms, the pure-BF16 recipe in the transformer form.
    Bf16,
    /// ZeRO stage 3 over the smallest number of GPUs that fits.
    Zero3 { gpus: u64 },
    /// Half the sequence length (rounded up).
    HalfSeq,
    /// LoRA of rank 16 on the targets as set (PEFT `LoraConfig(r=16)`) over
    /// a frozen BF16 base, for full fine-tuning.
    Lora,
    /// QLoRA as its paper and PEFT's recipe run it (Dettmers et al. 2023,
    /// §3; peft `prepare_model_for_kbit_training`): an NF4 base with double
    /// quantization under rank-16 adapters (or the rank as set), with
    /// gradient checkpointing.
    Qlora,
    /// An FP8 KV cache in inference.
    Fp8Kv,
}

impl Change {
    /// A stable name for the change, for machines (the page's `data-change`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::HalfBatch => "half_batch",
            Self::Checkpointing => "checkpointing",
            Self::Bf16 => "bf16",
            Self::Zero3 { .. } => "zero3",
            Self::HalfSeq => "half_seq",
            Self::Lora => "lora",
            Self::Qlora => "qlora",
            Self::Fp8Kv => "fp8_kv",
        }
    }
}

/// A changed configuration and its estimate, for "what would make it fit".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WhatIf {
    pub change: Change,
    pub config: Config,
    pub estimate: Estimate,
}

/// Every change that applies to `config` and changes its required memory,
/// with its estimate.
pub fn what_ifs(config: &Config) -> Vec<WhatIf> {
    let mut changes: Vec<(Change, Config)> = Vec::new();
    let mut push = |change, changed: Config| {
        if changed != *config {
            changes.push((change, changed));
        }
    };

    let batch = config.batch();
    push(Change::HalfBatch, config.with_batch(batch.div_ceil(2)));

    let mut changed = *config;
    match config.form {
        Form::Activations => changed.activations.checkpointing = true,
        Form::Parameters => {}
        Form::Transformer if config.transformer.mode == Mode::Train => {
            changed.transformer.recompute_each_layer()
        }
        Form::Transformer => {}
    }
    push(Change::Checkpointing, changed);

    let mut changed = *config;
    match config.form {
        Form::Activations if config.activations.precision == Precision::Fp32 => {
            changed.activations.precision = Precision::Bf16
        }
        Form::Parameters if config.parameters.precision == Precision::Fp32 => {
            changed.parameters.precision = Precision::Bf16
        }
        Form::Transformer if config.transformer.recipe == Recipe::Fp32 => {
            changed.transformer.recipe = Recipe::Bf16
        }
        Form::Activations | Form::Parameters | Form::Transformer => {}
    }
    push(Change::Bf16, changed);

    if config.form == Form::Transformer {
        let mut zero3 = *config;
        zero3.transformer.zero = 3;
        if let Some(gpus) = gpus_needed(&zero3).filter(|&g| g > 1) {
            zero3.transformer.gpus = gpus;
            push(Change::Zero3 { gpus }, zero3);
        }
    }

    let mut changed = *config;
    match config.form {
        Form::Activations => changed.activations.seq = config.activations.seq.div_ceil(2),
        Form::Transformer => changed.transformer.seq = config.transformer.seq.div_ceil(2),
        Form::Parameters => {}
    }
    push(Change::HalfSeq, changed);

    if config.form == Form::Transformer && config.transformer.mode == Mode::Train {
        let t = &config.transformer;
        if t.lora_rank == 0 {
            push(Change::Lora, with_adapters(config, BaseQuant::None));
        }
        if t.base_quant == BaseQuant::None {
            let mut qlora = with_adapters(config, BaseQuant::Nf4);
            // peft/utils/other.py `prepare_model_for_kbit_training(model,
            // use_gradient_checkpointing=True)`: the QLoRA recipe turns on
            // gradient checkpointing by default.
            qlora.transformer.recompute = Recompute::Full;
            qlora.transformer.recompute_modules = transformer::RecomputeModules::default();
            push(Change::Qlora, qlora);
        }
    }
    if config.form == Form::Transformer
        && config.transformer.mode == Mode::Inference
        && config.transformer.kv_dtype == KvDtype::Bf16
    {
        let mut changed = *config;
        changed.transformer.kv_dtype = KvDtype::Fp8;
        push(Change::Fp8Kv, changed);
    }

    // A change that leaves the memory where it is (half the sequence of a
    // model whose peak is its optimizer step) is no answer.
    let now = estimate(config).required;
    changes
        .into_iter()
        .map(|(change, config)| WhatIf {
            change,
            config,
            estimate: estimate(&config),
        })
        .filter(|option| option.estimate.required != now)
        .collect()
}

/// Fine-tuning with adapters: LoRA of rank 16 (or the rank as set) over the
/// frozen base, loaded in BF16 (a PEFT model over `torch_dtype=torch.bfloat16`)
/// where the recipe would keep it in FP32, and stored in `base_quant` with
/// double quantization for QLoRA.
fn with_adapters(config: &Config, base_quant: BaseQuant) -> Config {
    let mut changed = *config;
    let c = &mut changed.transformer;
    if c.lora_rank == 0 {
        c.lora_rank = 16;
    }
    // Recipes that would keep the frozen base in FP32.
    if matches!(c.recipe, Recipe::Fp32 | Recipe::Amp | Recipe::Fsdp) {
        c.recipe = Recipe::Bf16;
    }
    if base_quant != BaseQuant::None {
        c.base_quant = base_quant;
        c.double_quant = true;
    }
    changed
}

mod fixes;
pub use fixes::{
    Cost, FIXES, Fix, Lever, MAX_LEVERS, PCIE_BYTES_PER_SECOND, Profile, cost, fixes, profile,
};

mod timeline;
pub use timeline::{Moment, TimelinePoint, timeline};

#[cfg(test)]
mod tests;
