use proptest::prelude::*;

use super::*;
use crate::query::{self, tests::any_config};

const GB: u128 = 1_000_000_000;

fn make(
    reading: Reading,
    profile: Option<Framework>,
    rows: u32,
    sources: u32,
    range: Option<(i32, i32)>,
) -> Cell {
    Cell {
        reading,
        profile,
        rows,
        sources,
        range: range.map(|(low, high)| Bounds { low, high }),
    }
}

/// A table with worked numbers: pooled allocated −6 % … +4 %, HF Trainer's
/// own −10 % … +25 %, Megatron's too few; nvidia-smi −5 % … +10 %; reserved
/// +2 % … +8 % (every row above the estimate).
fn table() -> Vec<Cell> {
    vec![
        make(Reading::Allocated, None, 40, 8, Some((-600, 400))),
        make(Reading::Allocated, Some(Framework::Megatron), 4, 1, None),
        make(
            Reading::Allocated,
            Some(Framework::HfTrainer),
            20,
            5,
            Some((-1000, 2500)),
        ),
        make(Reading::NvidiaSmi, None, 12, 3, Some((-500, 1000))),
        make(Reading::Reserved, None, 30, 4, Some((200, 800))),
    ]
}

fn config(text: &str) -> Config {
    let parsed = query::parse(text);
    assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
    parsed.config
}

/// 50 GB allocated, 55 GB reserved, 56 GB on nvidia-smi.
fn estimate() -> Estimate {
    Estimate {
        peak_allocated: 50 * GB,
        peak_reserved: 55 * GB,
        nvidia_smi: 56 * GB,
        ..Estimate::default()
    }
}

#[test]
fn a_profile_with_a_range_of_its_own_uses_it() {
    let c = config("form=transformer&framework=hf_trainer");
    let r = range_in(&table(), &c, &estimate(), Reading::Allocated).expect("a range");
    assert_eq!(r.basis, Basis::Profile(Framework::HfTrainer));
    assert_eq!((r.rows, r.sources), (20, 5));
    // 50 GB × 0.90 and × 1.25.
    assert_eq!(
        (r.estimate, r.low, r.high),
        (50 * GB, 45 * GB, 62_500_000_000)
    );
}

#[test]
fn a_profile_with_too_few_rows_says_so_and_takes_the_pooled_range() {
    // Megatron's 4 rows of 1 source, and torchtune's none.
    for (profile, rows, sources) in [(Framework::Megatron, 4, 1), (Framework::Torchtune, 0, 0)] {
        let c = config(&format!("form=transformer&framework={}", profile.name()));
        let r = range_in(&table(), &c, &estimate(), Reading::Allocated).expect("a range");
        assert_eq!(
            r.basis,
            Basis::Pooled {
                profile,
                rows,
                sources
            }
        );
        assert_eq!((r.rows, r.sources), (40, 8));
        // 50 GB × 0.94 and × 1.04.
        assert_eq!((r.low, r.high), (47 * GB, 52 * GB));
    }
}

#[test]
fn ends_round_outwards() {
    let c = config("form=transformer");
    let e = Estimate {
        peak_allocated: 12_345,
        ..Estimate::default()
    };
    let r = range_in(&table(), &c, &e, Reading::Allocated).expect("a range");
    // 12,345 × 0.94 = 11,604.3 → 11,604; × 1.04 = 12,838.8 → 12,839.
    assert_eq!((r.low, r.high), (11_604, 12_839));
}

#[test]
fn no_range_for_the_napkin_forms_nor_without_a_pooled_cell() {
    for form in ["activations", "parameters"] {
        let c = config(&format!("form={form}"));
        assert_eq!(
            range_in(&table(), &c, &estimate(), Reading::Allocated),
            None
        );
        assert_eq!(fit_in(&table(), &c, &estimate()), None);
    }
    let c = config("form=transformer&framework=megatron");
    let thin = [make(
        Reading::Allocated,
        Some(Framework::Megatron),
        4,
        1,
        None,
    )];
    assert_eq!(range_in(&thin, &c, &estimate(), Reading::Allocated), None);
    assert_eq!(fit_in(&thin, &c, &estimate()), None);
}

#[test]
fn the_high_end_is_the_pessimistic_one() {
    let c = config("form=transformer");
    let fit = fit_in(&table(), &c, &estimate()).expect("a fit");
    assert_eq!(fit.range.reading, Reading::NvidiaSmi);
    // 56 GB × 0.95 = 53.2 GB, × 1.10 = 61.6 GB; no margin.
    assert_eq!(
        (fit.optimistic, fit.pessimistic),
        (53_200_000_000, 61_600_000_000)
    );
    assert_eq!(fit.verdict(61_600_000_000), Verdict::Fits);
    assert_eq!(fit.verdict(61_600_000_000 - 1), Verdict::FitsOnlyOptimistic);
    assert_eq!(fit.verdict(56 * GB), Verdict::FitsOnlyOptimistic);
    assert_eq!(fit.verdict(53_200_000_000), Verdict::FitsOnlyOptimistic);
    assert_eq!(fit.verdict(53_200_000_000 - 1), Verdict::DoesNotFit);
    // A 10 % margin on both ends: 58.52 GB and 67.76 GB.
    let c = config("form=transformer&margin=10");
    let fit = fit_in(&table(), &c, &estimate()).expect("a fit");
    assert_eq!(
        (fit.optimistic, fit.pessimistic),
        (58_520_000_000, 67_760_000_000)
    );
}

#[test]
fn without_device_wide_rows_the_reserved_range_is_used_and_the_estimate_stays_inside() {
    let c = config("form=transformer");
    let no_smi: Vec<Cell> = table()
        .into_iter()
        .filter(|c| c.reading != Reading::NvidiaSmi)
        .collect();
    let fit = fit_in(&no_smi, &c, &estimate()).expect("a fit");
    assert_eq!(fit.range.reading, Reading::Reserved);
    // Every reserved row measured 2 % to 8 % above the estimate: the
    // optimistic end is the estimate, 55 GB + 1 GB of overhead; the
    // pessimistic end 55 GB × 1.08 + 1 GB.
    assert_eq!(
        (fit.range.low, fit.range.high),
        (56_100_000_000, 59_400_000_000)
    );
    assert_eq!((fit.optimistic, fit.pessimistic), (56 * GB, 60_400_000_000));
    // With neither, the allocated range: 50 GB × 0.94 + 6 GB, × 1.04 + 6 GB.
    let allocated: Vec<Cell> = no_smi
        .into_iter()
        .filter(|c| c.reading == Reading::Allocated)
        .collect();
    let fit = fit_in(&allocated, &c, &estimate()).expect("a fit");
    assert_eq!(fit.range.reading, Reading::Allocated);
    assert_eq!((fit.optimistic, fit.pessimistic), (53 * GB, 58 * GB));
    // Every row below the estimate: the estimate is the pessimistic end.
    let below = [make(Reading::NvidiaSmi, None, 10, 3, Some((-3000, -1000)))];
    let fit = fit_in(&below, &c, &estimate()).expect("a fit");
    assert_eq!((fit.optimistic, fit.pessimistic), (39_200_000_000, 56 * GB));
    assert_eq!(fit.verdict(56 * GB - 1), Verdict::FitsOnlyOptimistic);
}

#[test]
fn scaling_saturates_and_never_goes_below_zero() {
    assert_eq!(scale(u128::MAX, 5000, true), u128::MAX);
    assert_eq!(scale(u128::MAX, -5000, false), u128::MAX / 2);
    assert_eq!(scale(10 * GB, -10_000, false), 0);
    assert_eq!(scale(10 * GB, i32::MIN, false), 0);
    assert_eq!(scale(10 * GB, 0, true), 10 * GB);
}

#[test]
fn the_generated_table_keeps_its_own_rules() {
    const { assert!(LOW_PERCENTILE < HIGH_PERCENTILE && HIGH_PERCENTILE < 100) };
    for reading in Reading::ALL {
        let of: Vec<&Cell> = CELLS.iter().filter(|c| c.reading == *reading).collect();
        let Some(pooled) = of.iter().find(|c| c.profile.is_none()) else {
            assert!(
                of.is_empty(),
                "{reading:?}: profile cells without a pooled one"
            );
            continue;
        };
        let profiles: Vec<&&Cell> = of.iter().filter(|c| c.profile.is_some()).collect();
        assert_eq!(
            pooled.rows,
            profiles.iter().map(|c| c.rows).sum::<u32>(),
            "{reading:?}"
        );
        assert_eq!(of.len(), profiles.len() + 1, "one pooled cell: {reading:?}");
        // The public lookup reads the generated table.
        assert_eq!(cell(*reading, None), Some(*pooled));
        for c in &of {
            assert!(c.sources >= 1 && c.sources <= c.rows, "{c:?}");
            assert!(c.sources <= pooled.sources, "{c:?}");
            let enough = c.rows >= MIN_ROWS && c.sources >= MIN_SOURCES;
            assert_eq!(c.range.is_some(), enough, "{c:?}");
            if let Some(b) = c.range {
                assert!(b.low <= b.high && b.low >= -10_000, "{c:?}");
            }
            assert_eq!(
                of.iter().filter(|o| o.profile == c.profile).count(),
                1,
                "{c:?}"
            );
        }
    }
}

/// The order of the verdicts as capacity grows.
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::DoesNotFit => 0,
        Verdict::FitsOnlyOptimistic => 1,
        Verdict::Fits => 2,
    }
}

proptest! {
    #[test]
    fn the_verdict_grows_with_capacity_and_fits_only_where_the_estimate_does(
        config in any_config(),
        capacities in (0u128..200 * GB, 0u128..200 * GB),
        worked in any::<bool>(),
    ) {
        let e = memory::estimate(&config);
        let fit = if worked { fit_in(&table(), &config, &e) } else { fit(&config, &e) };
        let Some(fit) = fit else {
            prop_assert!(config.form != Form::Transformer || !worked);
            return Ok(());
        };
        prop_assert!(fit.optimistic <= e.required && e.required <= fit.pessimistic, "{:?}", fit);
        let (small, large) = (capacities.0.min(capacities.1), capacities.0.max(capacities.1));
        prop_assert!(rank(fit.verdict(small)) <= rank(fit.verdict(large)));
        for capacity in [small, large, e.required, e.required.saturating_sub(1), fit.pessimistic] {
            let v = fit.verdict(capacity);
            if v == Verdict::Fits {
                prop_assert!(e.required <= capacity);
            }
            if e.required <= capacity {
                prop_assert!(v != Verdict::DoesNotFit);
            }
        }
        // The configuration's own device gives the same verdict.
        if let Some(bytes) = e.device_bytes.filter(|_| !worked) {
            prop_assert_eq!(verdict(&config, &e), Some(fit.verdict(bytes)));
        }
    }

    #[test]
    fn ranges_hold_the_estimate_when_they_straddle_it(
        bytes in any::<u128>(),
        low in -10_000i32..=0,
        high in 0i32..=1_000_000,
    ) {
        prop_assert!(scale(bytes, low, false) <= bytes);
        prop_assert!(scale(bytes, high, true) >= bytes);
    }
}
