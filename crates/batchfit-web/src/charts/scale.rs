//! Values onto pixels, and the axes' units and round ticks.

use batchfit_core::units::{self, Units, size};

/// Values mapped linearly onto pixels: `values.0` lands on `pixels.0` and
/// `values.1` on `pixels.1` (the vertical axes run upwards, so backwards).
#[derive(Clone, Copy)]
pub(super) struct Scale {
    pub(super) values: (f64, f64),
    pub(super) pixels: (i32, i32),
}

impl Scale {
    pub(super) fn at(self, value: f64) -> i32 {
        let share = (value - self.values.0) / (self.values.1 - self.values.0);
        let span = f64::from(self.pixels.1 - self.pixels.0);
        // `as` saturates, so a value far off the axis stays a finite coordinate.
        self.pixels.0 + (share * span).round() as i32
    }
}

/// The unit the axis counts in, chosen as `format_bytes` would for `max`: its
/// size in bytes and its label.
pub(super) fn axis_unit(max: u128, units: Units) -> (f64, &'static str) {
    let unit = size(max, units).unit;
    let base: u128 = match units {
        Units::Decimal => 1000,
        Units::Binary => 1024,
    };
    // Ten of a unit always prints in that unit.
    let bytes = (0..5)
        .map(|power| base.pow(power))
        .find(|bytes| size(bytes * 10, units).unit == unit)
        .unwrap_or(1);
    (bytes as f64, unit)
}

/// An axis tick: "0", "40 GB", "2.5 GiB".
pub(super) fn tick(value: f64, unit: &str) -> String {
    if value.abs() < 5e-4 {
        return "0".into();
    }
    let text = units::fixed(value, 3);
    format!(
        "{} {unit}",
        text.trim_end_matches('0').trim_end_matches('.')
    )
}

/// Round values from 0 up to `max`, at least 2 and at most `most` (at least 2)
/// of them: steps of 1, 2 or 5 times a power of ten, the smallest that keeps
/// within `most`, or the largest that still reaches `max` when that one would not.
pub(super) fn round_ticks(max: f64, most: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) {
        return vec![0.0];
    }
    let most = most.max(2);
    // The epsilon keeps a tick that lands on `max` despite rounding.
    let gaps = |step: f64| ((max / step) * (1.0 + 1e-9)).floor() as usize;
    let power = |value: f64| 10f64.powi(value.log10().floor() as i32);
    // Steps from the power of ten under max / most: ten times it is past
    // max / most already, so one of them keeps within `most`.
    let low = power(max / most as f64);
    let mut step = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .into_iter()
        .map(|times| times * low)
        .find(|step| gaps(*step) < most)
        .unwrap_or(100.0 * low);
    if step > max {
        let high = power(max);
        step = [5.0, 2.0]
            .into_iter()
            .map(|times| times * high)
            .find(|step| *step <= max)
            .unwrap_or(high);
    }
    (0..=gaps(step).min(most - 1))
        .map(|i| i as f64 * step)
        .collect()
}
