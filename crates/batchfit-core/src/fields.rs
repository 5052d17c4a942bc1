//! The first stage of input: raw text, as typed in a form field or found in a URL,
//! becomes a validated number, or a [`ParamError`] that names the field and says
//! what it accepts. Every bound lives here, once, so the page, the URL parser and
//! the CLI agree on them.

use std::fmt;

/// What is wrong with one value. The web page words these in the user's language;
/// [`ParamError`]'s `Display` words them in English for the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The value is empty.
    Empty,
    /// Not a number at all ("abc", "1.2.3", "<img …>").
    NotANumber,
    /// A number, but this field only takes whole numbers.
    NotWhole,
    /// A number outside the field's bounds.
    OutOfRange { min: String, max: String },
    /// Not one of the names the field accepts.
    NotAnOption { allowed: &'static [&'static str] },
    /// A URL parameter this version does not know.
    Unknown,
    /// The same URL parameter given more than once (the first one is used).
    Duplicate,
    /// Two parameters that say the same thing differently (`gpu` and `gpu_gb`);
    /// the first one is used.
    Conflict { with: &'static str },
}

/// A rejected value: which field (its URL parameter name) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub name: String,
    pub problem: Problem,
}

impl ParamError {
    pub fn new(name: impl Into<String>, problem: Problem) -> Self {
        Self {
            name: name.into(),
            problem,
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.problem {
            Problem::Empty => write!(f, "`{name}` is empty; give it a value"),
            Problem::NotANumber => write!(f, "`{name}` must be a number"),
            Problem::NotWhole => write!(f, "`{name}` must be a whole number"),
            Problem::OutOfRange { min, max } => {
                write!(f, "`{name}` must be from {min} to {max}")
            }
            Problem::NotAnOption { allowed } => {
                write!(f, "`{name}` must be one of: {}", allowed.join(", "))
            }
            Problem::Unknown => write!(f, "`{name}` is not a parameter batchfit knows"),
            Problem::Duplicate => write!(f, "`{name}` is given more than once"),
            Problem::Conflict { with } => {
                write!(f, "`{name}` and `{with}` cannot both be given; use one")
            }
        }
    }
}

impl std::error::Error for ParamError {}

/// A field that takes a whole number in `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WholeField {
    /// The URL parameter name, also the form input's `name`.
    pub name: &'static str,
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl WholeField {
    /// Parses `text` ("16", " 2048 ", "1e3", "1_000"), accepting only whole numbers
    /// inside the bounds.
    pub fn parse(&self, text: &str) -> Result<u64, ParamError> {
        let out_of_range = || self.error(self.range());
        match parse_number(text).map_err(|p| self.error(p))? {
            Number::Whole(n) if (self.min..=self.max).contains(&n) => Ok(n),
            Number::Whole(_) | Number::Negative => Err(out_of_range()),
            Number::Fraction(x) if x < self.min as f64 || x > self.max as f64 => {
                Err(out_of_range())
            }
            Number::Fraction(_) => Err(self.error(Problem::NotWhole)),
        }
    }

    /// The `OutOfRange` problem for this field, with its bounds written out.
    pub fn range(&self) -> Problem {
        Problem::OutOfRange {
            min: group_thousands(self.min),
            max: group_thousands(self.max),
        }
    }

    fn error(&self, problem: Problem) -> ParamError {
        ParamError::new(self.name, problem)
    }
}

/// A field that takes a decimal number with two decimals, stored as hundredths
/// (so that the model stays in integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HundredthsField {
    pub name: &'static str,
    /// Bounds and default in hundredths: `min: 1` is 0.01.
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl HundredthsField {
    /// Parses "10", "10.5", "1e1"; values are rounded to the nearest hundredth.
    pub fn parse(&self, text: &str) -> Result<u64, ParamError> {
        let hundredths = match parse_number(text).map_err(|p| self.error(p))? {
            Number::Whole(n) => n.checked_mul(100),
            Number::Fraction(x) => {
                let scaled = (x * 100.0).round();
                (scaled >= 0.0 && scaled < u64::MAX as f64).then_some(scaled as u64)
            }
            Number::Negative => None,
        };
        match hundredths {
            Some(h) if (self.min..=self.max).contains(&h) => Ok(h),
            _ => Err(self.error(Problem::OutOfRange {
                min: format_hundredths(self.min),
                max: format_hundredths(self.max),
            })),
        }
    }

    fn error(&self, problem: Problem) -> ParamError {
        ParamError::new(self.name, problem)
    }
}

/// A field that takes a count written the way people write model sizes: `7B`,
/// `7000M`, `125M`, `125k`, `1.3e9`, `1.5T` or an exact number. Suffixes are
/// decimal (k = 10^3, M = 10^6, B = G = 10^9, T = 10^12), any letter case; a
/// fraction of a unit is rounded to the nearest whole count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountField {
    pub name: &'static str,
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl CountField {
    pub fn parse(&self, text: &str) -> Result<u64, ParamError> {
        let text = text.trim();
        let scale = |suffix: char| match suffix.to_ascii_lowercase() {
            'k' => Some(1e3),
            'm' => Some(1e6),
            'b' | 'g' => Some(1e9),
            't' => Some(1e12),
            _ => None,
        };
        // `strip_suffix` rather than slicing at an index: the page then carries
        // no char-boundary panic (nor the formatting its message needs).
        let (digits, scale) = text
            .chars()
            .last()
            .and_then(|suffix| Some((text.strip_suffix(suffix)?, scale(suffix)?)))
            .unwrap_or((text, 1.0));
        let error = |problem| ParamError::new(self.name, problem);
        let range = || {
            error(Problem::OutOfRange {
                min: format_count(self.min),
                max: format_count(self.max),
            })
        };
        let value = match parse_number(digits).map_err(error)? {
            Number::Negative => return Err(range()),
            Number::Whole(n) if scale == 1.0 => n as f64,
            Number::Whole(n) => n as f64 * scale,
            Number::Fraction(x) => (x * scale).round(),
        };
        if !(self.min as f64..=self.max as f64).contains(&value) {
            return Err(range());
        }
        match parse_number(digits) {
            // Exact counts stay exact even above 2^53.
            Ok(Number::Whole(n)) if scale == 1.0 => Ok(n),
            _ => Ok(value as u64),
        }
    }
}

/// 7_000_000_000 → "7B", 125_000_000 → "125M", 124_439_808 → "124439808": the
/// shortest spelling [`CountField::parse`] reads back exactly.
pub fn format_count(count: u64) -> String {
    for (unit, suffix) in [
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
        (1_000, "k"),
    ] {
        if count >= unit && count.is_multiple_of(unit) {
            return format!("{}{suffix}", count / unit);
        }
    }
    count.to_string()
}

/// "1000" → "10", "1050" → "10.5", "1" → "0.01".
pub fn format_hundredths(hundredths: u64) -> String {
    let (whole, frac) = (hundredths / 100, hundredths % 100);
    match frac {
        0 => whole.to_string(),
        f if f % 10 == 0 => format!("{whole}.{}", f / 10),
        f => format!("{whole}.{f:02}"),
    }
}

/// 1000000 → "1,000,000".
pub fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number read from user text, before bounds are applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Whole(u64),
    /// Finite, non-negative, and either fractional or too large for `u64`.
    Fraction(f64),
    Negative,
}

/// Reads a number from user text: surrounding spaces and `_` digit separators are
/// ignored; plain digits, decimals and exponents ("1.3e9") are accepted; "inf",
/// "NaN", hex and anything else are not numbers.
pub fn parse_number(text: &str) -> Result<Number, Problem> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Problem::Empty);
    }
    // Only text made of the characters a written-out number uses: anything else
    // ("inf", "0x10", "1,5") is not a number, whatever a parser would make of it.
    let plausible = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_'));
    if !plausible || !text.chars().any(|c| c.is_ascii_digit()) {
        return Err(Problem::NotANumber);
    }
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    if cleaned.bytes().all(|b| b.is_ascii_digit()) {
        // Too long for u64: still a (huge) number, reported as out of range.
        return Ok(cleaned
            .parse::<u64>()
            .map_or(Number::Fraction(f64::MAX), Number::Whole));
    }
    let value = crate::decimal::parse(&cleaned).ok_or(Problem::NotANumber)?;
    if !value.is_finite() {
        // "1e999": a number, far beyond any bound.
        return Ok(if value < 0.0 {
            Number::Negative
        } else {
            Number::Fraction(f64::MAX)
        });
    }
    if value < 0.0 {
        return Ok(Number::Negative);
    }
    if value.fract() == 0.0 && value <= u64::MAX as f64 {
        // Exact: an integral f64 below 2^64 converts without loss.
        return Ok(Number::Whole(value as u64));
    }
    Ok(Number::Fraction(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BATCH: WholeField = WholeField {
        name: "batch",
        min: 1,
        max: 1_000_000,
        default: 16,
    };
    const K: HundredthsField = HundredthsField {
        name: "k",
        min: 1,
        max: 100_000,
        default: 1000,
    };

    #[test]
    fn whole_fields_accept_written_out_whole_numbers() {
        for (text, want) in [
            ("16", 16),
            (" 16 ", 16),
            ("1e3", 1000),
            ("1_000", 1000),
            ("+5", 5),
            ("1000000", 1_000_000),
        ] {
            assert_eq!(BATCH.parse(text), Ok(want), "{text:?}");
        }
    }

    #[test]
    fn whole_fields_name_the_problem() {
        let range = BATCH.range();
        for (text, problem) in [
            ("", Problem::Empty),
            ("   ", Problem::Empty),
            ("abc", Problem::NotANumber),
            ("inf", Problem::NotANumber),
            ("NaN", Problem::NotANumber),
            ("0x10", Problem::NotANumber),
            ("<img src=x onerror=alert(1)>", Problem::NotANumber),
            ("1.2.3", Problem::NotANumber),
            ("-", Problem::NotANumber),
            ("1.5", Problem::NotWhole),
            ("-1", range.clone()),
            ("0", range.clone()),
            ("1e30", range.clone()),
            ("1e999", range.clone()),
            ("99999999999999999999999999", range.clone()),
            ("1000001", range.clone()),
            ("0.5", range.clone()),
        ] {
            assert_eq!(
                BATCH.parse(text),
                Err(ParamError::new("batch", problem)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn errors_read_as_one_line_naming_the_field_and_range() {
        let message = BATCH.parse("-1").unwrap_err().to_string();
        assert_eq!(message, "`batch` must be from 1 to 1,000,000");
        let message = K.parse("0").unwrap_err().to_string();
        assert_eq!(message, "`k` must be from 0.01 to 1000");
    }

    #[test]
    fn hundredths_fields_round_to_two_decimals() {
        for (text, want) in [
            ("10", 1000),
            ("10.5", 1050),
            ("0.01", 1),
            ("1e1", 1000),
            ("3.14159", 314),
        ] {
            assert_eq!(K.parse(text), Ok(want), "{text:?}");
        }
        for text in ["0", "0.001", "-3", "1001", "1e30"] {
            assert!(
                matches!(
                    K.parse(text),
                    Err(ParamError {
                        problem: Problem::OutOfRange { .. },
                        ..
                    })
                ),
                "{text:?}"
            );
        }
        assert_eq!(format_hundredths(1050), "10.5");
        assert_eq!(format_hundredths(1005), "10.05");
    }

    #[test]
    fn counts_read_the_way_model_sizes_are_written() {
        const PARAMS: CountField = CountField {
            name: "params",
            min: 1,
            max: 1_000_000_000_000_000,
            default: 7_000_000_000,
        };
        for (text, want) in [
            ("7B", 7_000_000_000),
            ("7b", 7_000_000_000),
            ("7000M", 7_000_000_000),
            ("125M", 125_000_000),
            ("125k", 125_000),
            ("1.3e9", 1_300_000_000),
            ("1.5T", 1_500_000_000_000),
            ("6.74B", 6_740_000_000),
            ("124439808", 124_439_808),
            ("1000000000000000", 1_000_000_000_000_000),
            ("1", 1),
        ] {
            assert_eq!(PARAMS.parse(text), Ok(want), "{text:?}");
            assert_eq!(PARAMS.parse(&format_count(want)), Ok(want), "{want}");
        }
        for text in ["0", "-7B", "1001T", "0.1"] {
            assert!(
                matches!(
                    PARAMS.parse(text),
                    Err(ParamError {
                        problem: Problem::OutOfRange { .. },
                        ..
                    })
                ),
                "{text:?}"
            );
        }
        for (text, problem) in [
            ("", Problem::Empty),
            ("B", Problem::Empty),
            ("7X", Problem::NotANumber),
            ("seven", Problem::NotANumber),
        ] {
            assert_eq!(
                PARAMS.parse(text),
                Err(ParamError::new("params", problem)),
                "{text:?}"
            );
        }
        assert_eq!(format_count(7_000_000_000), "7B");
        assert_eq!(format_count(124_439_808), "124439808");
        assert_eq!(
            PARAMS.parse("2e15").unwrap_err().to_string(),
            "`params` must be from 1 to 1000T"
        );
    }

    #[test]
    fn thousands_are_grouped() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(group_thousands(n), want);
        }
    }
}
