//! The transformer model's tests, by topic; the helpers below build their inputs.

use super::activations::{
    autocast_casts, backward_working, layer_activations, lora_saved, moe_saved, op_saved,
    residual_gradient, working_sets,
};
use super::adapters::Adapters;
use super::architecture::{
    Architecture, Ends, ParameterCount, RoutedExperts, Span, parameter_count,
};
use super::backward::{
    UnfusedGradients, embedding_backward, gradients_beside_layers, unfused_gradients,
};
use super::inference::{kv_cache_per_sample, kv_dequantized_per_sample, prefill_activations};
use super::input::{Ffn, Mixer, TransformerInput};
use super::options::{
    Attention, Block, Framework, FusedProj, KvDtype, Logits, LoraTargets, Loss, Mlp, Mode, Norm,
    NormKernel, Optimizer, Quant, Recipe, Recompute, RecomputeMethod, RecomputeModules,
};
use super::per_sample::{PerSample, activations_per_sample};
use super::saved::{Saved, training_saved};
use super::states::{model_states, pool_states};
use crate::fields::Problem;
use crate::presets;

mod activations;
mod backward;
mod experts;
mod hybrid;
mod inference;
mod parameters;
mod recompute;
mod states;

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
        // Korthikanti et al. count Megatron-LM computing in 16 bits
        // throughout, its softmax included.
        recipe: Recipe::Bf16,
        framework: Framework::Megatron,
        attention: Attention::Eager,
        ..TransformerInput::default()
    }
}
