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
    pub value: f64,
    pub unit: &'static str,
    pub decimals: usize,
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.*} {}", self.decimals, self.value, self.unit)
    }
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
    let limits = [base, base, base, base * 10.0];
    while exponent < 4 && value >= limits[exponent] {
        value /= base;
        exponent += 1;
    }
    let decimals = match (exponent, value) {
        (0, _) => 0,
        (_, v) if v < 10.0 => 3,
        _ => 2,
    };
    Size {
        value,
        unit: labels[exponent],
        decimals,
    }
}

/// `size(bytes, units).to_string()`: "85.90 GB".
pub fn format_bytes(bytes: u128, units: Units) -> String {
    size(bytes, units).to_string()
}

#[cfg(test)]
mod tests {
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
