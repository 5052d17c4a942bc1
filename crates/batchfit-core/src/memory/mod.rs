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

use crate::arith::div_ceil;
use crate::choice::choice;
use crate::query::{Config, Form};
use crate::transformer::Mode;

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
        /// Inference, the end of generation: the whole KV cache and one
        /// decoding step's working set.
        Generation = "generation",
        /// Inference, the prefill: the prompt's KV cache and the prefill's
        /// working set, which the no-grad forward frees before generating.
        Prefill = "prefill",
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
    /// ([`transformer::unfused_gradients`](crate::transformer::unfused_gradients)),
    /// or under the fusion Transformer Engine's cached dummy weight gradients
    /// ([`transformer::dummy_wgrads`](crate::transformer::dummy_wgrads)).
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
    /// [`transformer::kept_outputs`](crate::transformer::kept_outputs)): part of `activations`, and at the
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
    /// What a process can allocate on the device, when one is chosen
    /// ([`crate::presets::Device::usable_bytes`]: an NVIDIA card's total as
    /// CUDA reports it, below nvidia-smi's).
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
    /// the GPU, none of it less ([`transformer::Optimizer::paged`](crate::transformer::Optimizer::paged)).
    pub optimizer_may_spill: bool,
}

impl Estimate {
    /// Weights, gradients and optimizer states: each term's own size, whatever
    /// the batch (not all of it need be alive at the peak: [`Self::at_peak`]).
    pub fn model_states(&self) -> u128 {
        self.weights + self.gradients + self.optimizer_states
    }

    /// Whether the model states alone, with the overhead, exceed the
    /// device: no batch fits, whatever changes in the activations (the
    /// parameters form's dead end, issue 28).
    pub fn states_exceed_device(&self) -> bool {
        self.device_bytes
            .is_some_and(|device| self.model_states() + self.overhead > device)
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
/// shared matrix beside every gradient ([`transformer::embedding_backward`](crate::transformer::embedding_backward)).
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

/// `nvidia_smi × (1 + margin)`, rounded up to a byte, where `nvidia_smi` is the
/// reserved bytes plus the overhead.
fn required(reserved: u128, config: &Config) -> u128 {
    with_margin(reserved + config.overhead_bytes(), config)
}

/// [`Estimate::required`] of `config` at its own batch, without the search
/// for the largest batch that fits.
fn required_at(config: &Config) -> u128 {
    let batch = config.batch();
    required(Model::of(config).at(batch).1.reserved(batch), config)
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
    let device_bytes = config.device.map(|d| d.usable_bytes());
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
        cpu_memory: parts.cpu_memory(batch),
        optimizer_may_spill: config.form == Form::Transformer
            && config.transformer.mode == Mode::Train
            && config.transformer.optimizer.paged()
            && parts.optimizer_states > 0,
    }
}

mod component;
pub use component::Component;

mod parts;
use parts::{Instant, Model, Parts};
pub use parts::{Stage, accumulation_steps, microbatches, stages};

mod search;
pub(crate) use search::largest;
pub use search::{DeviceFit, SweepRow, devices, gpus_needed, max_seq, sweep, total_gpus};
use search::{max_batch_within, smallest};

mod what_ifs;
use what_ifs::with_adapters;
pub use what_ifs::{Change, WhatIf, what_ifs};

mod fixes;
pub use fixes::{
    Cost, FIXES, Fix, GPUS_PER_HOST, Lever, MAX_LEVERS, PCIE_BYTES_PER_SECOND, Profile, SERVING_TP,
    Target, cost, fits_host, fixes, fixes_for, gpu_budget, host_memory, job_gpus, profile,
    serving_tp,
};

mod timeline;
pub use timeline::{Moment, TimelinePoint, timeline};

#[cfg(test)]
pub(crate) mod tests;
