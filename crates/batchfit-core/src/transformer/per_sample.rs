//! The per-sample activations the estimate asks for, each moment from one
//! [`Saved`]: the start of the backward pass (the peak of training), the
//! end of the forward pass, each layer's backward pass, and inference's
//! prefill.

use std::cell::OnceCell;

use super::backward::{gradients_beside_layers, layers_backward, unfused_moments};
use super::inference::InferenceMoments;
use super::input::TransformerInput;
use super::options::Mode;
use super::saved::{Saved, backward_start, kept_in_layers, training_saved};

/// The part of [`activations_per_sample`] in training that the layers save,
/// one layer's share after another in the forward pass: all of it less what
/// the same configuration keeps with no layers (the embedding's and output
/// layer's terms, and the larger of the loss's tensors and a recomputed
/// layer's set). 0 in inference, which keeps nothing between layers.
pub fn layer_activations_per_sample(input: &TransformerInput) -> u128 {
    PerSample::new(input).activations_and_layers().1
}

/// Activation bytes one sample keeps alive per GPU at the peak of training (the
/// start of the backward pass), or in inference the larger of the prefill's
/// transient activations and a quantized cache's dequantized copies.
pub fn activations_per_sample(input: &TransformerInput) -> u128 {
    PerSample::new(input).activations()
}

/// The per-sample activations of one input at each moment the estimate
/// asks about, from one [`Saved`]: [`training_saved`] runs at most once,
/// and only when a moment of training needs it (inference never does).
#[derive(Debug)]
pub struct PerSample<'a> {
    input: &'a TransformerInput,
    saved: OnceCell<Saved>,
}

impl<'a> PerSample<'a> {
    pub fn new(input: &'a TransformerInput) -> Self {
        Self {
            input,
            saved: OnceCell::new(),
        }
    }

    fn saved(&self) -> &Saved {
        self.saved.get_or_init(|| training_saved(self.input))
    }

    /// [`activations_per_sample`].
    pub fn activations(&self) -> u128 {
        match self.input.mode {
            Mode::Train => {
                let (kept, loss, layer) = backward_start(self.input, self.saved());
                kept + loss.max(layer)
            }
            // The prefill's working set, or one decoding step's, whichever
            // moment sets the peak.
            Mode::Inference => InferenceMoments::of(self.input).at_peak().1,
        }
    }

    /// [`activations_per_sample`] and [`layer_activations_per_sample`]
    /// together (the estimate needs both).
    pub fn activations_and_layers(&self) -> (u128, u128) {
        let all = self.activations();
        if self.input.mode != Mode::Train {
            return (all, 0);
        }
        let mut none = *self.input;
        none.arch.layers = 0;
        (all, all.saturating_sub(activations_per_sample(&none)))
    }

    /// Activation bytes one sample holds at the end of the forward pass in
    /// training, inside the autocast region with the loss computed, and the
    /// part of it the layers keep: what [`loss_weight_copies`](super::loss_weight_copies) needs beside
    /// [`activations_per_sample`], whose moment (the start of the backward
    /// pass) has fewer weight copies. No layer is being recomputed yet, and the
    /// loss holds its forward's tensors ([`Saved::above_forward`]).
    pub fn forward(&self) -> (u128, u128) {
        let saved = self.saved();
        let in_layers = kept_in_layers(self.input, saved);
        (
            in_layers + saved.below + saved.above_forward.max(saved.context_forward),
            in_layers,
        )
    }

    /// Each layer's backward pass with the gradients created by then
    /// ([`layers_backward`]).
    pub fn layers_backward(&self) -> [(u128, u128); 2] {
        let gradients = gradients_beside_layers(self.input);
        if gradients == [0, 0] {
            return [(0, 0); 2];
        }
        layers_backward(self.input, gradients, self.saved())
    }

    /// The two moments [`unfused_gradients`](super::unfused_gradients) adds
    /// to ([`unfused_moments`]).
    pub fn unfused_moments(&self) -> (u128, u128) {
        unfused_moments(self.input, self.saved())
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
    PerSample::new(&kept).activations() - PerSample::new(input).activations()
}
