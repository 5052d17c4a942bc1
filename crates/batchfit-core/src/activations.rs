//! The activations rule of thumb: the quick estimate a practitioner does on a napkin.
//!
//! activation memory ≈ batch × sequence length × hidden size × layers × bytes × k
//!
//! `k` stands for "how many hidden-sized values each layer keeps per token for the
//! backward pass". k = 10 is the rule of thumb this form starts from, not a derived
//! constant. For comparison, Korthikanti et al. 2022 ("Reducing Activation
//! Recomputation in Large Transformer Models", §4.1, Eq. 1) count 34 bytes per token
//! per hidden unit per layer at 16 bit for a GPT-3-style layer without the
//! attention-score term (k = 17 here), fewer without dropout masks. The transformer
//! form models those terms one by one; this form is the quick napkin estimate.

use crate::Precision;
use crate::fields::{HundredthsField, WholeField};
use crate::param::Param;

/// Batch size: samples per step on one device.
pub const BATCH: WholeField = WholeField {
    param: Param::Batch,
    min: 1,
    max: 1_000_000_000,
    default: 16,
};
/// Sequence length in tokens.
pub const SEQ: WholeField = WholeField {
    param: Param::Seq,
    min: 1,
    max: 10_000_000,
    default: 2048,
};
/// Hidden size (model width).
pub const HIDDEN: WholeField = WholeField {
    param: Param::Hidden,
    min: 1,
    max: 1_000_000,
    default: 4096,
};
/// Number of transformer layers.
pub const LAYERS: WholeField = WholeField {
    param: Param::Layers,
    min: 1,
    max: 10_000,
    default: 32,
};
/// The multiplier k, in hundredths (1000 = 10).
pub const K: HundredthsField = HundredthsField {
    param: Param::K,
    min: 1,
    max: 100_000,
    default: 1000,
};

/// The multiplier `k`, held in hundredths so that the model stays in integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Multiplier(u64);

impl Multiplier {
    pub const fn from_hundredths(hundredths: u64) -> Self {
        Self(hundredths)
    }

    pub const fn hundredths(self) -> u64 {
        self.0
    }
}

impl Default for Multiplier {
    fn default() -> Self {
        Self(K.default)
    }
}

/// Validated inputs of the activations form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ActivationsInput {
    pub batch: u64,
    pub seq: u64,
    pub hidden: u64,
    pub layers: u64,
    pub precision: Precision,
    pub k: Multiplier,
    /// Gradient checkpointing: keep about √layers layers' activations.
    pub checkpointing: bool,
}

impl Default for ActivationsInput {
    /// The worked example of the docs: 16 × 2,048 tokens through a 4,096-wide,
    /// 32-layer model in BF16.
    fn default() -> Self {
        Self {
            batch: BATCH.default,
            seq: SEQ.default,
            hidden: HIDDEN.default,
            layers: LAYERS.default,
            precision: Precision::Bf16,
            k: Multiplier::default(),
            checkpointing: false,
        }
    }
}

/// The rule's answer, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ActivationsEstimate {
    /// Activations one sample keeps alive for the backward pass.
    pub per_sample: u128,
    /// `per_sample × batch`.
    pub total: u128,
}

/// Applies the rule of thumb. Cannot fail or overflow: with every input at its
/// bound the product stays below 2^100.
pub fn estimate(input: &ActivationsInput) -> ActivationsEstimate {
    // One layer, one sample, k in hundredths: exact in integers.
    let per_layer_hundredths = u128::from(input.seq)
        * u128::from(input.hidden)
        * u128::from(input.precision.bytes())
        * u128::from(input.k.hundredths());
    let all_layers = per_layer_hundredths * u128::from(input.layers) / 100;
    let per_sample = if input.checkpointing {
        // Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost", §4:
        // checkpointing every √n-th layer keeps O(√n) layers' activations alive at a
        // time. The rule counts exactly √layers layers. √n ≤ n, so checkpointing
        // never keeps more than all layers; the `min` keeps that true where f64
        // rounding of a product above 2^53 would not (a one-layer model).
        let kept = (input.layers as f64).sqrt();
        ((per_layer_hundredths as f64 * kept / 100.0).round() as u128).min(all_layers)
    } else {
        all_layers
    };
    ActivationsEstimate {
        per_sample,
        total: per_sample * u128::from(input.batch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn worked_example() -> ActivationsInput {
        ActivationsInput::default()
    }

    /// Every worked number in README.md and docs/ for this form.
    #[test]
    fn worked_examples() {
        let fp32 = ActivationsInput {
            precision: Precision::Fp32,
            ..worked_example()
        };
        let ckpt = ActivationsInput {
            checkpointing: true,
            ..worked_example()
        };
        let cases: [(&str, ActivationsInput, u128, u128); 3] = [
            ("bf16", worked_example(), 5_368_709_120, 85_899_345_920),
            ("fp32", fp32, 10_737_418_240, 171_798_691_840),
            // 167,772,160 bytes per layer per sample × √32 = 949,062,656.24…
            ("checkpointed", ckpt, 949_062_656, 15_185_002_496),
        ];
        for (name, input, per_sample, total) in cases {
            let got = estimate(&input);
            assert_eq!((got.per_sample, got.total), (per_sample, total), "{name}");
        }
    }

    /// Found by the property test below: with one layer and a product above 2^53,
    /// the float path rounded one byte above the exact, uncheckpointed value.
    #[test]
    fn checkpointing_one_layer_never_rounds_above_all_layers() {
        let input = ActivationsInput {
            batch: 1,
            seq: 2_945_102,
            hidden: 583_185,
            layers: 1,
            precision: Precision::Fp32,
            k: Multiplier::from_hundredths(3231),
            checkpointing: true,
        };
        let full = estimate(&ActivationsInput {
            checkpointing: false,
            ..input
        });
        assert!(estimate(&input).per_sample <= full.per_sample);
    }

    #[test]
    fn fractional_k_scales_exactly() {
        let input = ActivationsInput {
            k: Multiplier::from_hundredths(1050),
            ..worked_example()
        };
        assert_eq!(estimate(&input).per_sample, 5_368_709_120 * 1050 / 1000);
    }

    fn any_input() -> impl Strategy<Value = ActivationsInput> {
        (
            BATCH.min..=BATCH.max,
            SEQ.min..=SEQ.max,
            HIDDEN.min..=HIDDEN.max,
            LAYERS.min..=LAYERS.max,
            proptest::sample::select(Precision::ALL.to_vec()),
            K.min..=K.max,
            any::<bool>(),
        )
            .prop_map(
                |(batch, seq, hidden, layers, precision, k, checkpointing)| ActivationsInput {
                    batch,
                    seq,
                    hidden,
                    layers,
                    precision,
                    k: Multiplier::from_hundredths(k),
                    checkpointing,
                },
            )
    }

    proptest! {
        #[test]
        fn linear_in_batch(input in any_input(), factor in 1u64..1000) {
            let bigger = ActivationsInput { batch: input.batch.saturating_mul(factor), ..input };
            let (one, many) = (estimate(&input), estimate(&bigger));
            prop_assert_eq!(one.per_sample, many.per_sample);
            prop_assert_eq!(many.total, one.per_sample * u128::from(bigger.batch));
        }

        #[test]
        fn monotone_in_every_size(input in any_input()) {
            let base = estimate(&input).total;
            for grown in [
                ActivationsInput { seq: input.seq + 1, ..input },
                ActivationsInput { hidden: input.hidden + 1, ..input },
                ActivationsInput { layers: input.layers + 1, ..input },
                ActivationsInput { k: Multiplier::from_hundredths(input.k.hundredths() + 1), ..input },
            ] {
                prop_assert!(estimate(&grown).total >= base);
            }
        }

        #[test]
        fn checkpointing_never_costs_more(input in any_input()) {
            let full = estimate(&ActivationsInput { checkpointing: false, ..input });
            let ckpt = estimate(&ActivationsInput { checkpointing: true, ..input });
            prop_assert!(ckpt.per_sample <= full.per_sample);
        }

        #[test]
        fn extremes_stay_far_from_overflow(precision in proptest::sample::select(Precision::ALL.to_vec()), checkpointing in any::<bool>()) {
            let input = ActivationsInput {
                batch: BATCH.max, seq: SEQ.max, hidden: HIDDEN.max, layers: LAYERS.max,
                precision, k: Multiplier::from_hundredths(K.max), checkpointing,
            };
            prop_assert!(estimate(&input).total < 1u128 << 100);
        }
    }
}
