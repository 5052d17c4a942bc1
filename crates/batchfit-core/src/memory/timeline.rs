//! The step as a sequence of moments (issue 16): what is allocated after each
//! layer of the forward pass, at the loss, after each layer of the backward
//! pass and in the optimizer step; in inference, after the prefill and as the
//! generation fills the KV cache. Built from the same parts as the estimate,
//! so its largest point is [`Estimate::peak_allocated`](super::Estimate),
//! byte for byte (a property test checks it).
//!
//! Between the two moments the estimate computes (the activations' and the
//! gradients'), the layers are taken as equal: each holds
//! 1/L of the layers' saved tensors (under partial checkpointing without a
//! pipeline, what it keeps: a checkpoint's input or its full set), creates
//! 1/L of the gradients in the
//! backward pass and 1/L of autocast's weight copies in the forward pass. The
//! tensors outside the layers (the loss's, the embedding's and the output
//! layer's) are drawn at the loss, whose point is the start of the backward
//! pass: the loss's tensors, or where it holds more, the last layer's
//! backward pass beside the gradients created by then. The first layer's
//! backward point is the end of the backward pass, the embedding's
//! backward beside every gradient, where that is a moment of its own. Where the end of the forward pass is a
//! moment of its own (autocast's cache under full recomputation), the last
//! layer's forward point is that moment, the loss's forward tensors and
//! every cached copy in it.

use super::{AtPeak, Instant, Parts};
use crate::choice::choice;
use crate::query::{Config, Form};
use crate::transformer::{self, Mode};

choice! {
    /// Where in the step a point of the timeline sits.
    pub enum Moment {
        /// After a layer's forward pass.
        Forward = "forward",
        /// The loss, at the start of the backward pass: every activation.
        Loss = "loss",
        /// After a layer's backward pass.
        Backward = "backward",
        /// Inside `optimizer.step()`: the gradients and the step's temporaries.
        OptimizerStep = "optimizer_step",
        /// Inference: the prompt's keys and values cached, the prefill's
        /// temporaries.
        Prefill = "prefill",
        /// Inference: a share of the tokens generated.
        Generation = "generation",
    }
    default Forward
}

/// One point of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimelinePoint {
    pub moment: Moment,
    /// The layer just computed (forward 1 … L, backward L … 1), or in
    /// generation the quarter of the generated tokens reached (1 … 4); 0
    /// elsewhere.
    pub layer: u64,
    /// What is allocated then, by component: `bytes.sum()` is the total.
    /// `activations_alive` is true up to the loss.
    pub bytes: AtPeak,
}

/// `part × numerator / denominator`, rounded down (never above `part`).
fn share(part: u128, numerator: u64, denominator: u64) -> u128 {
    part * u128::from(numerator) / u128::from(denominator.max(1))
}

/// `part × numerator / denominator` for byte-sized weights, rounded down
/// and `part` itself from `numerator ≥ denominator` on.
fn weighted(part: u128, numerator: u128, denominator: u128) -> u128 {
    if numerator >= denominator {
        return part;
    }
    part.checked_mul(numerator)
        .map_or(part / denominator * numerator, |p| p / denominator)
}

/// `from` moved towards `to` by `numerator / denominator`, for a term that
/// only grows or only shrinks between the two moments.
fn between(from: u128, to: u128, numerator: u64, denominator: u64) -> u128 {
    if to >= from {
        from + share(to - from, numerator, denominator)
    } else {
        from - share(from - to, numerator, denominator)
    }
}

/// The timeline of one step of `config` at its batch.
pub fn timeline(config: &Config) -> Vec<TimelinePoint> {
    let parts = Parts::of(config);
    let batch = config.batch();
    // The loss's point is the start of the backward pass: the loss's
    // tensors, or where it holds more, the last layer's backward pass with
    // the gradients created by then.
    let (loss, layers) = (
        parts.moment(batch, Instant::Loss),
        parts.moment(batch, Instant::LayersBackward),
    );
    let act = if layers.sum() > loss.sum() {
        layers
    } else {
        loss
    };
    let grad = parts.moment(batch, Instant::Gradients);
    let point = |moment, layer, bytes| TimelinePoint {
        moment,
        layer,
        bytes,
    };
    if config.form == Form::Transformer && config.transformer.mode == Mode::Inference {
        return generation(config, act, point);
    }
    let layers = parts.layers.max(1);
    let in_layers = parts.layer_activations_per_sample * u128::from(batch);
    // The forward pass grows towards its own end where that is a moment
    // (every cached copy; the layers' inputs only), else towards the loss's.
    let forward_end = parts.forward_per_sample > 0;
    let (end, forward_in_layers) = if forward_end {
        (
            parts.moment(batch, Instant::ForwardEnd),
            parts.forward_layers_per_sample * u128::from(batch),
        )
    } else {
        (act, in_layers)
    };
    // The layers' share of what they keep after layer i: equal shares, but
    // under partial checkpointing on one stage, where the checkpoints keep
    // their input and the other layers their full set (docs/model.md §3.3).
    let kept = partial_kept(config, layers);
    let through = |total: u128, i: u64| match &kept {
        Some(kept) => {
            let at = |k: u64| usize::try_from(k).ok().and_then(|k| kept.get(k)).copied();
            weighted(total, at(i).unwrap_or(0), at(layers).unwrap_or(0))
        }
        None => share(total, i, layers),
    };
    let forward = (1..=layers).map(|i| {
        point(
            Moment::Forward,
            i,
            AtPeak {
                weights: between(grad.weights, end.weights, i, layers),
                buffers: between(grad.buffers, end.buffers, i, layers),
                activations: through(forward_in_layers, i) + parts.outputs(batch),
                optimizer_step: 0,
                kv_cache: 0,
                ..end
            },
        )
    });
    let mut points: Vec<TimelinePoint> = forward.collect();
    if forward_end && let Some(last) = points.last_mut() {
        last.bytes = end;
    }
    // The napkin forms stop at the end of the forward pass, their whole
    // estimate.
    if config.form != Form::Transformer {
        if let Some(last) = points.last_mut() {
            last.bytes = act;
        }
        return points;
    }
    points.push(point(Moment::Loss, 0, act));
    points.extend((1..=layers).rev().map(|i| {
        let done = layers - i + 1;
        point(
            Moment::Backward,
            i,
            AtPeak {
                weights: between(act.weights, grad.weights, done, layers),
                gradients: between(act.gradients, grad.gradients, done, layers),
                buffers: between(act.buffers, grad.buffers, done, layers),
                activations: through(in_layers, i - 1) + parts.outputs(batch),
                kv_cache: 0,
                activations_alive: false,
                ..act
            },
        )
    }));
    // The last layer's backward point ends with the embedding's backward,
    // where that holds more than every gradient alone.
    let end = parts.moment(batch, Instant::BackwardEnd);
    if parts.end_per_sample > 0
        && let Some(last) = points.last_mut()
    {
        last.bytes = end;
    }
    if !parts.step_in_backward {
        points.push(point(Moment::OptimizerStep, 0, grad));
    }
    points
}

/// What the first k layers keep, k = 0 … `layers`, under partial
/// checkpointing of a model on one stage; `None` elsewhere.
fn partial_kept(config: &Config, layers: u64) -> Option<Vec<u128>> {
    let t = &config.transformer;
    if config.form != Form::Transformer || t.mode != Mode::Train || t.pp > 1 {
        return None;
    }
    t.partial_recompute()?;
    let kept = transformer::training_saved(t).kept_through(transformer::Span::all(&t.arch))?;
    (kept.len() as u64 == layers + 1).then_some(kept)
}

/// Inference: the prefill with the prompt's cache and the prefill's working
/// set, then the cache filling in quarters of the generated tokens beside
/// one decoding step's working set, as the estimate counts them
/// ([`transformer::InferenceMoments`]): the no-grad prefill's temporaries
/// are freed before generation starts.
fn generation(
    config: &Config,
    act: AtPeak,
    point: impl Fn(Moment, u64, AtPeak) -> TimelinePoint,
) -> Vec<TimelinePoint> {
    let t = &config.transformer;
    let moments = transformer::InferenceMoments::of(t);
    let batch = u128::from(config.batch());
    let at = |cache: u128, activations: u128| AtPeak {
        kv_cache: cache,
        activations: activations * batch,
        ..act
    };
    let prompt = moments.prefill_cache * batch;
    let mut points = vec![point(Moment::Prefill, 0, at(prompt, moments.prefill))];
    if t.generated > 0 {
        points.extend((1..=4).map(|quarter| {
            point(
                Moment::Generation,
                quarter,
                at(
                    between(prompt, moments.cache * batch, quarter, 4),
                    moments.decode,
                ),
            )
        }));
    }
    points
}
