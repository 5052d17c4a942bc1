//! Formatting integer bytes for people. Decimal units (GB = 10^9 bytes) and binary
//! units (GiB = 2^30 bytes) are both offered and always labelled: a number printed
//! as "GB" here is never a GiB.

use std::fmt;
use std::str::FromStr;

/// Which family of units to print in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Units {
    /// kB, MB, GB, TB: powers of 10^3.
    #[default]
    Decimal,
    /// KiB, MiB, GiB, TiB: powers of 2^10.
    Binary,
}

impl Units {
    pub const NAMES: &'static [&'static str] = &["gb", "gib"];

    /// The URL spelling: `gb` or `gib`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Decimal => "gb",
            Self::Binary => "gib",
        }
    }

    const fn base(self) -> f64 {
        match self {
            Self::Decimal => 1000.0,
            Self::Binary => 1024.0,
        }
    }

    const fn labels(self) -> [&'static str; 5] {
        match self {
            Self::Decimal => ["B", "kB", "MB", "GB", "TB"],
            Self::Binary => ["B", "KiB", "MiB", "GiB", "TiB"],
        }
    }

    /// The gigabyte of this family: 10^9 or 2^30 bytes, and its label.
    pub const fn giga(self) -> (u128, &'static str) {
        match self {
            Self::Decimal => (1_000_000_000, "GB"),
            Self::Binary => (1 << 30, "GiB"),
        }
    }
}

impl FromStr for Units {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        match text.trim().to_ascii_lowercase().as_str() {
            "gb" => Ok(Self::Decimal),
            "gib" => Ok(Self::Binary),
            _ => Err(()),
        }
    }
}

/// A byte count ready to print: the value in its unit, rounded for reading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size {
    pub unit: &'static str,
    pub decimals: usize,
    bytes: u128,
    /// Bytes per `unit`.
    divisor: u128,
    /// Printed rounded down, never above the exact size ([`Self::down`]).
    down: bool,
}

impl Size {
    /// The value in `unit`, for choosing how to round.
    pub fn value(&self) -> f64 {
        self.bytes as f64 / self.divisor as f64
    }

    /// The same size printed with `decimals` digits after the point (at most 3).
    pub fn with_decimals(self, decimals: usize) -> Self {
        Self {
            decimals: decimals.min(3),
            ..self
        }
    }

    /// The same size printed rounded down: a need that fits a capacity is
    /// never printed above it ("25.7 GB — fits" on a 25.76 GB card, not
    /// "25.8 GB").
    pub fn down(self) -> Self {
        Self { down: true, ..self }
    }
}

impl fmt::Display for Size {
    /// Rounds the exact quotient bytes / unit, half to even, in integers: the
    /// text never depends on how a double happens to round.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scale = 10u128.pow(self.decimals as u32);
        let scaled = match self.bytes.checked_mul(scale) {
            Some(n) => {
                let (quotient, remainder) = (n / self.divisor, n % self.divisor);
                // remainder < divisor ≤ 2^40, so doubling cannot overflow.
                let twice = remainder * 2;
                let up = twice > self.divisor || (twice == self.divisor && quotient % 2 == 1);
                quotient + u128::from(up && !self.down)
            }
            // Beyond 3 × 10^35 bytes: whole units, the decimals shown as zeros.
            None => (self.bytes / self.divisor).saturating_mul(scale),
        };
        write_fixed(f, scaled, self.decimals)?;
        write!(f, " {}", self.unit)
    }
}

/// Writes `scaled / 10^decimals` with exactly `decimals` digits after the point.
fn write_fixed(out: &mut impl fmt::Write, scaled: u128, decimals: usize) -> fmt::Result {
    if decimals == 0 {
        return write!(out, "{scaled}");
    }
    let scale = 10u128.pow(decimals as u32);
    write!(out, "{}.{:0decimals$}", scaled / scale, scaled % scale)
}

/// `value` with `decimals` digits after the point (at most 3), for prose and
/// chart labels: "3.46", "12.0". Rounds value × 10^decimals half away from
/// zero, so a value that sits on a tie only because of its binary
/// representation may round up where `format!("{:.2}")` rounds down; printing
/// through this function keeps the standard library's float formatting (about
/// 8 KB gzipped) out of the page. Not-a-number prints as 0, infinities as the
/// largest value it can write.
pub fn fixed(value: f64, decimals: usize) -> String {
    let decimals = decimals.min(3);
    let scaled = (value.abs() * 10f64.powi(decimals as i32)).round();
    // `as` saturates: NaN → 0, beyond u128 → u128::MAX.
    let scaled = scaled as u128;
    let mut out = String::new();
    if value < 0.0 && scaled > 0 {
        out.push('-');
    }
    // Writing into a String cannot fail.
    let _ = write_fixed(&mut out, scaled, decimals);
    out
}

/// Picks the unit: gigabytes from 1 GB up to (but not including) 10,000 GB, so
/// that the numbers people compare with a GPU's capacity share one unit; MB, kB
/// and B below; TB above. Four significant figures below 10 ("5.369 GB"), two
/// decimals from 10 up ("85.90 GB", "171.80 GB").
pub fn size(bytes: u128, units: Units) -> Size {
    let base = units.base();
    let labels = units.labels();
    let mut value = bytes as f64;
    let mut exponent = 0;
    let mut divisor: u128 = 1;
    let limits = [base, base, base, base * 10.0];
    while exponent < 4 && value >= limits[exponent] {
        value /= base;
        divisor *= base as u128;
        exponent += 1;
    }
    let decimals = match (exponent, value) {
        (0, _) => 0,
        (_, v) if v < 10.0 => 3,
        _ => 2,
    };
    Size {
        unit: labels[exponent],
        decimals,
        bytes,
        divisor,
        down: false,
    }
}

/// `size(bytes, units).to_string()`: "85.90 GB".
pub fn format_bytes(bytes: u128, units: Units) -> String {
    size(bytes, units).to_string()
}

#[cfg(test)]
mod tests {

    /// A need printed rounded down is never above the exact size: a fix of
    /// 25.75 GB on an RTX 4090 (24,564 MiB = 25.76 GB) reads "25.7 GB", not
    /// the "25.8 GB" nearest rounding gives (issue 28).
    #[test]
    fn a_size_rounded_down_never_reads_above_it() {
        let need = size(25_750_000_000, Units::Decimal).with_decimals(1);
        assert_eq!(need.to_string(), "25.8 GB");
        assert_eq!(need.down().to_string(), "25.7 GB");
        assert_eq!(
            size(25_700_000_000, Units::Decimal)
                .with_decimals(1)
                .down()
                .to_string(),
            "25.7 GB"
        );
        assert_eq!(format_bytes(24_564 << 20, Units::Decimal), "25.76 GB");
    }
    use super::*;

    #[test]
    fn worked_examples_print_as_the_docs_say() {
        for (bytes, units, want) in [
            (5_368_709_120, Units::Decimal, "5.369 GB"),
            (85_899_345_920, Units::Decimal, "85.90 GB"),
            (171_798_691_840, Units::Decimal, "171.80 GB"),
            (85_899_345_920, Units::Binary, "80.00 GiB"),
            (5_368_709_120, Units::Binary, "5.000 GiB"),
            (0, Units::Decimal, "0 B"),
            (999, Units::Decimal, "999 B"),
            (1_000, Units::Decimal, "1.000 kB"),
            (1_024, Units::Binary, "1.000 KiB"),
            (655_360, Units::Decimal, "655.36 kB"),
            (9_999_000_000_000, Units::Decimal, "9999.00 GB"),
            (10_000_000_000_000, Units::Decimal, "10.00 TB"),
        ] {
            assert_eq!(format_bytes(bytes, units), want, "{bytes} {units:?}");
        }
    }

    #[test]
    fn ties_round_to_even_on_the_exact_bytes() {
        // 1.0005 MB and 1.0015 MB are exact ties at three decimals.
        assert_eq!(format_bytes(1_000_500, Units::Decimal), "1.000 MB");
        assert_eq!(format_bytes(1_001_500, Units::Decimal), "1.002 MB");
        // 9.9996 GB rounds up into the next digit, as it reads.
        assert_eq!(format_bytes(9_999_600_000, Units::Decimal), "10.000 GB");
        assert_eq!(
            size(655_360, Units::Decimal).with_decimals(0).to_string(),
            "655 kB"
        );
    }

    #[test]
    fn fixed_prints_prose_numbers() {
        for (value, decimals, want) in [
            (5.656854, 2, "5.66"),
            (2.0, 1, "2.0"),
            (18.25, 1, "18.3"),
            (0.0, 2, "0.00"),
            (-1.5, 0, "-2"),
            (-0.001, 2, "0.00"),
            (1e300, 0, "340282366920938463463374607431768211455"),
            (f64::NAN, 1, "0.0"),
            (12.3456, 9, "12.346"),
        ] {
            assert_eq!(fixed(value, decimals), want, "{value} {decimals}");
        }
    }

    proptest::proptest! {
        /// The integer rounding agrees with the standard library's float
        /// formatting except where the quotient is within a hair of a tie.
        #[test]
        fn exact_sizes_agree_with_float_formatting_off_ties(bytes in 0u128..(1u128 << 70)) {
            for units in [Units::Decimal, Units::Binary] {
                let s = size(bytes, units);
                let scaled = s.value() * 10f64.powi(s.decimals as i32);
                if (scaled - scaled.floor() - 0.5).abs() > 1e-6 {
                    proptest::prop_assert_eq!(
                        s.to_string(),
                        format!("{:.*} {}", s.decimals, s.value(), s.unit)
                    );
                }
            }
        }
    }

    #[test]
    fn the_largest_count_prints_as_a_finite_number() {
        let text = format_bytes(u128::MAX, Units::Binary);
        assert!(
            text.ends_with(" TiB") && !text.contains("inf") && !text.contains("NaN"),
            "{text}"
        );
    }

    #[test]
    fn names_parse() {
        assert_eq!("GiB".parse(), Ok(Units::Binary));
        assert_eq!("gb".parse(), Ok(Units::Decimal));
        assert!("tb".parse::<Units>().is_err());
    }
}
