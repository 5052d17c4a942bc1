//! The parameters form: memory from a parameter count, the way most people first
//! estimate it.
//!
//! weights = parameters × bytes of the weight precision; when training, gradients
//! are FP32 (4 bytes per parameter) whatever the weight precision, and the
//! optimizer keeps its state in FP32 (AdamW: two moments, 8 bytes; SGD with
//! momentum: one buffer, 4 bytes); activations = batch × activation MB per sample.

use crate::Precision;
use crate::choice::choice;
use crate::fields::{CountField, HundredthsField};
use crate::param::Param;

/// Parameter count: 1 … 10^15.
pub const PARAMS: CountField = CountField {
    param: Param::Params,
    min: 1,
    max: 1_000_000_000_000_000,
    default: 7_000_000_000,
};

/// Activation memory per sample in MB (10^6 bytes), in hundredths.
pub const ACT_MB: HundredthsField = HundredthsField {
    param: Param::ActMb,
    min: 0,
    max: 100_000_000,
    default: 50_000,
};

choice! {
    /// The optimizers this form knows; `none` means inference.
    pub enum Optimizer {
        /// Two FP32 moments: 8 bytes per parameter.
        AdamW = "adamw",
        /// One FP32 momentum buffer: 4 bytes per parameter.
        SgdMomentum = "sgd_momentum",
        /// Inference: no gradients and no optimizer state.
        None = "none",
    }
    default AdamW
}

/// Validated inputs of the parameters form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParametersInput {
    pub params: u64,
    /// Precision of the weights.
    pub precision: Precision,
    pub optimizer: Optimizer,
    pub batch: u64,
    /// Activation memory per sample, in hundredths of a MB.
    pub act_mb: u64,
}

impl Default for ParametersInput {
    fn default() -> Self {
        Self {
            params: PARAMS.default,
            precision: Precision::Bf16,
            optimizer: Optimizer::default(),
            batch: crate::activations::BATCH.default,
            act_mb: ACT_MB.default,
        }
    }
}

/// The form's answer in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParametersEstimate {
    pub weights: u128,
    pub gradients: u128,
    pub optimizer_states: u128,
    pub activations_per_sample: u128,
    pub activations: u128,
}

/// Applies the rule. Cannot fail or overflow (10^15 × 8 and 10^9 × 10^14 are far below 2^128).
pub fn estimate(input: &ParametersInput) -> ParametersEstimate {
    let params = u128::from(input.params);
    let (gradient_bytes, state_bytes) = match input.optimizer {
        Optimizer::AdamW => (4, 8),
        Optimizer::SgdMomentum => (4, 4),
        Optimizer::None => (0, 0),
    };
    // act_mb is in hundredths of 10^6 bytes: × 10^4 gives bytes.
    let activations_per_sample = u128::from(input.act_mb) * 10_000;
    ParametersEstimate {
        weights: params * u128::from(input.precision.bytes()),
        gradients: params * gradient_bytes,
        optimizer_states: params * state_bytes,
        activations_per_sample,
        activations: activations_per_sample * u128::from(input.batch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u128 = 1_000_000_000;

    fn seven_b(precision: Precision, optimizer: Optimizer) -> ParametersInput {
        ParametersInput {
            params: 7_000_000_000,
            precision,
            optimizer,
            ..ParametersInput::default()
        }
    }

    /// The worked examples of docs/model.md.
    #[test]
    fn worked_examples() {
        for (input, weights, gradients, optimizer) in [
            (seven_b(Precision::Fp16, Optimizer::None), 14, 0, 0),
            (seven_b(Precision::Fp16, Optimizer::AdamW), 14, 28, 56),
            (seven_b(Precision::Fp16, Optimizer::SgdMomentum), 14, 28, 28),
            (seven_b(Precision::Fp32, Optimizer::AdamW), 28, 28, 56),
            (seven_b(Precision::Int8, Optimizer::None), 7, 0, 0),
        ] {
            let got = estimate(&input);
            assert_eq!(
                (got.weights, got.gradients, got.optimizer_states),
                (weights * GB, gradients * GB, optimizer * GB),
                "{input:?}"
            );
        }
    }

    #[test]
    fn doubling_the_batch_doubles_activations_and_nothing_else() {
        let one = ParametersInput {
            batch: 8,
            act_mb: 12_345,
            ..ParametersInput::default()
        };
        let two = ParametersInput { batch: 16, ..one };
        let (a, b) = (estimate(&one), estimate(&two));
        assert_eq!(a.activations, 8 * 123_450_000);
        assert_eq!(b.activations, 2 * a.activations);
        assert_eq!(
            (a.weights, a.gradients, a.optimizer_states),
            (b.weights, b.gradients, b.optimizer_states)
        );
    }
}
