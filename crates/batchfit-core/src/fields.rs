//! The first stage of input: raw text, as typed in a form field or found in a URL,
//! becomes a validated number, or a [`ParamError`] that names the field and says
//! what it accepts. Every bound lives here, once, so the page, the URL parser and
//! the CLI agree on them.

use std::fmt;

use crate::param::Param;

/// A bound of a numeric field, kept as a number: each language writes it its
/// own way ("1,000,000" / "1 000 000", "0.01" / "0,01").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// A whole number.
    Whole(u64),
    /// Hundredths of a decimal number: 1 is 0.01.
    Hundredths(u64),
    /// A count, written with its scale suffix ("1000T").
    Count(u64),
}

impl fmt::Display for Bound {
    /// The English spelling, for the CLI.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Whole(n) => f.write_str(&group_thousands(n)),
            Self::Hundredths(h) => f.write_str(&format_hundredths_with(h, group_thousands)),
            Self::Count(n) => f.write_str(&format_count(n)),
        }
    }
}

/// The values a numeric field accepts, `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    pub min: Bound,
    pub max: Bound,
}

/// What is wrong with one value: data (numbers and names), not sentences. The
/// web page words these in the user's language; [`ParamError`]'s `Display`
/// words them in English for the CLI. Every problem of a numeric field carries
/// the range it accepts, so every message can say it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The value is empty.
    Empty { range: Range },
    /// Not a number at all ("abc", "1.2.3", "<img …>").
    NotANumber { range: Range },
    /// A number, but this field only takes whole numbers.
    NotWhole { range: Range },
    /// A number outside the field's bounds.
    OutOfRange { range: Range },
    /// Not one of the names the field accepts.
    NotAnOption { allowed: &'static [&'static str] },
    /// A list that names one item twice (`recompute_modules=mlp,mlp`).
    Repeated { item: &'static str },
    /// A URL parameter this version does not know.
    Unknown,
    /// The same URL parameter given more than once (the first one is used).
    Duplicate,
    /// Two parameters that say the same thing differently (`gpu` and `gpu_gb`);
    /// the first one is used.
    Conflict { with: Param },
    /// A setting that means something only with another one (`quant` in
    /// training, `base_quant` without LoRA): reported rather than silently
    /// ignored, and the default is used.
    OnlyWith { param: Param, value: Needed },
    /// The model's layers do not divide evenly over the pipeline's
    /// (virtual) stages and no `pp_layout` says how to split them; the
    /// degree is read as before (`pp=1`, `vpp=1`).
    Indivisible { layers: u64, stages: u64 },
}

/// A split of `layers` over `stages` as even as it goes, the larger stages
/// first: `pp_layout`'s text for an example ("8,8,8,8,8,7,7,7" for 61 over 8).
pub fn even_layout(layers: u64, stages: u64) -> String {
    let stages = stages.max(1);
    let (each, extra) = (layers / stages, layers % stages);
    (0..stages)
        .map(|k| (each + u64::from(k < extra)).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl Problem {
    /// Whether the problem is with the value itself (as a field shows it),
    /// not with the parameter's name or with another parameter.
    pub fn is_in_the_value(&self) -> bool {
        matches!(
            self,
            Self::Empty { .. }
                | Self::NotANumber { .. }
                | Self::NotWhole { .. }
                | Self::OutOfRange { .. }
                | Self::NotAnOption { .. }
                | Self::Repeated { .. }
        )
    }
}

/// What another parameter must be for one to apply, as a report names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Needed {
    /// This URL spelling (`mode=inference`, `recompute=full`, `pp=1`).
    Is(&'static str),
    /// One of two URL spellings (`kind=decoder` or `encoder`).
    Either(&'static str, &'static str),
    /// A whole number this or more (`lora_rank` 1 or more).
    AtLeast(u64),
    /// A number above this (`capacity_factor` above 0).
    Above(u64),
    /// A recipe that computes in 16 bits (`bf16`, `amp16`…).
    SixteenBitRecipe,
    /// Any URL spelling but this one (`base_quant` other than `none`).
    Not(&'static str),
}

impl fmt::Display for Needed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Is(value) => f.write_str(value),
            Self::Either(a, b) => write!(f, "{a} or {b}"),
            Self::AtLeast(n) => write!(f, "{n} or more"),
            Self::Above(n) => write!(f, "above {n}"),
            Self::SixteenBitRecipe => f.write_str("a 16-bit recipe"),
            Self::Not(value) => write!(f, "other than {value}"),
        }
    }
}

/// The name of a rejected parameter: one batchfit knows, or the text of one it
/// does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Name {
    Known(Param),
    Unknown(String),
}

impl Name {
    /// The name as the URL spells it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Known(param) => param.name(),
            Self::Unknown(text) => text,
        }
    }
}

/// A rejected value: which field (its URL parameter) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub name: Name,
    pub problem: Problem,
}

impl ParamError {
    pub fn new(param: Param, problem: Problem) -> Self {
        Self {
            name: Name::Known(param),
            problem,
        }
    }

    /// A parameter this version does not know, named as it was written.
    pub fn unknown(name: impl Into<String>) -> Self {
        Self {
            name: Name::Unknown(name.into()),
            problem: Problem::Unknown,
        }
    }

    /// The parameter, when batchfit knows it.
    pub fn param(&self) -> Option<Param> {
        match self.name {
            Name::Known(param) => Some(param),
            Name::Unknown(_) => None,
        }
    }
}

impl fmt::Display for ParamError {
    /// One English line for the CLI; the page words problems itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name.as_str();
        match &self.problem {
            Problem::Empty { range } => write!(
                f,
                "`{name}` is empty; give a number from {} to {}",
                range.min, range.max
            ),
            Problem::NotANumber { range } => write!(
                f,
                "`{name}` must be a number from {} to {}",
                range.min, range.max
            ),
            Problem::NotWhole { range } => write!(
                f,
                "`{name}` must be a whole number from {} to {}",
                range.min, range.max
            ),
            Problem::OutOfRange { range } => {
                write!(f, "`{name}` must be from {} to {}", range.min, range.max)
            }
            Problem::NotAnOption { allowed } => {
                write!(f, "`{name}` must be one of: {}", allowed.join(", "))
            }
            Problem::Repeated { item } => write!(f, "`{name}` lists `{item}` more than once"),
            Problem::Unknown => write!(f, "`{name}` is not a parameter batchfit knows"),
            Problem::Duplicate => write!(f, "`{name}` is given more than once"),
            Problem::Conflict { with } => write!(
                f,
                "`{name}` and `{}` cannot both be given; use one",
                with.name()
            ),
            Problem::OnlyWith { param, value } => {
                write!(f, "`{name}` applies only with {}={value}", param.name())
            }
            Problem::Indivisible { layers, stages } => write!(
                f,
                "the model's {layers} layers do not divide evenly over {stages} stages (`{name}`); \
                 give their split with pp_layout, e.g. pp_layout={}",
                even_layout(*layers, *stages)
            ),
        }
    }
}

impl std::error::Error for ParamError {}

/// A field that takes a whole number in `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WholeField {
    /// The URL parameter, also the form input's `name`.
    pub param: Param,
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl WholeField {
    /// Parses `text` ("16", " 2048 ", "2,048", "1e3", "1_000"), accepting only
    /// whole numbers inside the bounds. A token count also takes the binary
    /// suffixes practitioners write a context length with: `32k` or `32K`
    /// is 32,768, `1M` 1,048,576, `1.5k` 1,536 ([`Param::counts_tokens`]).
    pub fn parse(&self, text: &str) -> Result<u64, ParamError> {
        let range = self.range();
        let out_of_range = || self.error(Problem::OutOfRange { range });
        let (digits, scale) = match self.param.counts_tokens() {
            true => token_scale(text),
            false => (text, 1),
        };
        let number = parse_number(digits).map_err(|p| self.error(p.with(range)))?;
        let number = match (number, scale) {
            (number, 1) => number,
            (Number::Whole(n), _) => n
                .checked_mul(scale)
                .map_or(Number::Fraction(f64::MAX), Number::Whole),
            (Number::Fraction(x), _) => match x * scale as f64 {
                x if x.fract() == 0.0 && x <= u64::MAX as f64 => Number::Whole(x as u64),
                x => Number::Fraction(x),
            },
            (Number::Negative, _) => Number::Negative,
        };
        match number {
            Number::Whole(n) if (self.min..=self.max).contains(&n) => Ok(n),
            Number::Whole(_) | Number::Negative => Err(out_of_range()),
            Number::Fraction(x) if x < self.min as f64 || x > self.max as f64 => {
                Err(out_of_range())
            }
            Number::Fraction(_) => Err(self.error(Problem::NotWhole { range })),
        }
    }

    /// The values this field accepts.
    pub fn range(&self) -> Range {
        Range {
            min: Bound::Whole(self.min),
            max: Bound::Whole(self.max),
        }
    }

    fn error(&self, problem: Problem) -> ParamError {
        ParamError::new(self.param, problem)
    }
}

/// `text` without a trailing `k`/`K` (× 1,024) or `M` (× 1,048,576), and the
/// factor it stood for; `text` and 1 without one.
fn token_scale(text: &str) -> (&str, u64) {
    let text = text.trim();
    let (digits, scale) = if let Some(digits) = text.strip_suffix(['k', 'K']) {
        (digits, 1 << 10)
    } else if let Some(digits) = text.strip_suffix('M') {
        (digits, 1 << 20)
    } else {
        return (text, 1);
    };
    // A suffix alone ("k") is not a number, not an empty field.
    if digits.is_empty() {
        (text, 1)
    } else {
        (digits, scale)
    }
}

/// A whole-number field of `param`.
pub(crate) const fn whole(param: Param, min: u64, max: u64, default: u64) -> WholeField {
    WholeField {
        param,
        min,
        max,
        default,
    }
}

/// A field that takes a decimal number with two decimals, stored as hundredths
/// (so that the model stays in integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HundredthsField {
    pub param: Param,
    /// Bounds and default in hundredths: `min: 1` is 0.01.
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl HundredthsField {
    /// Parses "10", "10.5", "1e1", "1,000.5"; values are rounded to the nearest
    /// hundredth.
    pub fn parse(&self, text: &str) -> Result<u64, ParamError> {
        let range = self.range();
        let hundredths = match parse_number(text).map_err(|p| self.error(p.with(range)))? {
            Number::Whole(n) => n.checked_mul(100),
            Number::Fraction(x) => {
                let scaled = (x * 100.0).round();
                (scaled >= 0.0 && scaled < u64::MAX as f64).then_some(scaled as u64)
            }
            Number::Negative => None,
        };
        match hundredths {
            Some(h) if (self.min..=self.max).contains(&h) => Ok(h),
            _ => Err(self.error(Problem::OutOfRange { range })),
        }
    }

    /// The values this field accepts.
    pub fn range(&self) -> Range {
        Range {
            min: Bound::Hundredths(self.min),
            max: Bound::Hundredths(self.max),
        }
    }

    fn error(&self, problem: Problem) -> ParamError {
        ParamError::new(self.param, problem)
    }
}

/// A field that takes a count written the way people write model sizes: `7B`,
/// `7000M`, `125M`, `125k`, `1.3e9`, `1.5T` or an exact number. Suffixes are
/// decimal (k = 10^3, M = 10^6, B = G = 10^9, T = 10^12), any letter case; a
/// fraction of a unit is rounded to the nearest whole count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountField {
    pub param: Param,
    pub min: u64,
    pub max: u64,
    pub default: u64,
}

impl CountField {
    /// The values this field accepts.
    pub fn range(&self) -> Range {
        Range {
            min: Bound::Count(self.min),
            max: Bound::Count(self.max),
        }
    }

    /// Parses "7B", "7 B", "7,000M", "1.3e9", "124439808".
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
        let bounds = self.range();
        let error = |problem| ParamError::new(self.param, problem);
        let range = || error(Problem::OutOfRange { range: bounds });
        let value = match parse_number(digits).map_err(|p| error(p.with(bounds)))? {
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
    format_hundredths_with(hundredths, |whole| whole.to_string())
}

/// [`format_hundredths`] with the whole part written by `whole`: grouped,
/// where a message gives a range ("0.01 to 1,000,000").
pub fn format_hundredths_with(hundredths: u64, whole: impl Fn(u64) -> String) -> String {
    let (units, frac) = (hundredths / 100, hundredths % 100);
    let units = whole(units);
    match frac {
        0 => units,
        f if f % 10 == 0 => format!("{units}.{}", f / 10),
        f => format!("{units}.{f:02}"),
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

/// Why a text is not a number, before the field's range is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotNumber {
    Empty,
    NotANumber,
}

impl NotNumber {
    /// The field's problem, naming the range it accepts.
    pub fn with(self, range: Range) -> Problem {
        match self {
            Self::Empty => Problem::Empty { range },
            Self::NotANumber => Problem::NotANumber { range },
        }
    }
}

/// Characters that group thousands as people type them: the comma of English
/// ("2,048"), and the spaces of ISO 80000 and of Spanish ("2 048", with a
/// no-break, narrow no-break or thin space).
fn is_group_separator(c: char) -> bool {
    matches!(c, ',' | ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}')
}

/// `text` without its thousands separators, or `None` when a separator is
/// not between groups of three digits in the integer part ("1,5", "20,48",
/// "1.5,0" are not numbers: a comma there is a decimal comma or a typo, and
/// reading it either way would be a guess).
fn ungroup(text: &str) -> Option<String> {
    if !text.contains(is_group_separator) {
        return Some(text.to_owned());
    }
    // `get` rather than slicing or `split_at`: no char-boundary panic (nor the
    // formatting its message needs) in the page.
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let sign = text.get(..text.len() - unsigned.len()).unwrap_or("");
    // The integer part ends at the decimal point or the exponent.
    let at = unsigned.find(['.', 'e', 'E']).unwrap_or(unsigned.len());
    let (integer, rest) = (
        unsigned.get(..at).unwrap_or(unsigned),
        unsigned.get(at..).unwrap_or(""),
    );
    if rest.contains(is_group_separator) {
        return None;
    }
    let digits = |group: &str| group.bytes().all(|b| b.is_ascii_digit());
    let mut groups = integer.split(is_group_separator);
    let first = groups
        .next()
        .filter(|g| (1..=3).contains(&g.len()) && digits(g))?;
    let mut out = format!("{sign}{first}");
    for group in groups {
        if group.len() != 3 || !digits(group) {
            return None;
        }
        out.push_str(group);
    }
    out.push_str(rest);
    Some(out)
}

/// A number as a Spanish reader writes it, in the URL's notation: the
/// decimal comma ("9,5" → "9.5", "1,3B" → "1.3B"), thousands grouped with
/// dots or spaces ("2.048" → "2,048", "1.234,5" → "1,234.5", which
/// [`parse_number`] reads as the URL's notation). The dots and commas swap
/// roles; but a text without a comma whose dots do not group digits in
/// threes ("2.5", "0.01": the usage of Mexico and of much machine-learning
/// writing in Spanish) keeps its dot as the decimal point. The page reads
/// its fields this way in Spanish; URLs always use the decimal point.
pub fn spanish_number(text: &str) -> String {
    let swapped: String = text
        .chars()
        .map(|c| match c {
            '.' => ',',
            ',' => '.',
            c => c,
        })
        .collect();
    if text.contains(',') || ungroup(swapped.trim()).is_some() {
        swapped
    } else {
        text.to_owned()
    }
}

/// Reads a number from user text: surrounding spaces, thousands separators
/// (`2,048`, `2 048`) and `_` digit separators are ignored; plain digits,
/// decimals and exponents ("1.3e9") are accepted; "inf", "NaN", hex and
/// anything else are not numbers.
pub fn parse_number(text: &str) -> Result<Number, NotNumber> {
    let text = text.trim();
    if text.is_empty() {
        return Err(NotNumber::Empty);
    }
    let text = ungroup(text).ok_or(NotNumber::NotANumber)?;
    // Only text made of the characters a written-out number uses: anything else
    // ("inf", "0x10", "1,5") is not a number, whatever a parser would make of it.
    let plausible = text
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_'));
    if !plausible || !text.chars().any(|c| c.is_ascii_digit()) {
        return Err(NotNumber::NotANumber);
    }
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    if cleaned.bytes().all(|b| b.is_ascii_digit()) {
        // Too long for u64: still a (huge) number, reported as out of range.
        return Ok(cleaned
            .parse::<u64>()
            .map_or(Number::Fraction(f64::MAX), Number::Whole));
    }
    let value = crate::decimal::parse(&cleaned).ok_or(NotNumber::NotANumber)?;
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
        param: Param::Batch,
        min: 1,
        max: 1_000_000,
        default: 16,
    };
    const K: HundredthsField = HundredthsField {
        param: Param::K,
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
            ("2,048", 2048),
            ("2 048", 2048),
            ("2\u{202f}048", 2048),
            ("1,000,000", 1_000_000),
            ("1 000 000", 1_000_000),
            ("1,000e0", 1000),
        ] {
            assert_eq!(BATCH.parse(text), Ok(want), "{text:?}");
        }
    }

    const SEQ: WholeField = WholeField {
        param: Param::Seq,
        min: 1,
        max: 10_000_000,
        default: 2048,
    };

    /// A context length as practitioners write it: `k` and `M` are binary.
    #[test]
    fn token_counts_take_binary_suffixes() {
        for (text, want) in [
            ("32k", 32_768),
            ("32K", 32_768),
            (" 8k ", 8_192),
            ("128k", 131_072),
            ("1.5k", 1_536),
            ("1M", 1_048_576),
            ("2048", 2_048),
        ] {
            assert_eq!(SEQ.parse(text), Ok(want), "{text:?}");
        }
        let range = SEQ.range();
        for (text, problem) in [
            ("k", Problem::NotANumber { range }),
            ("0.1k", Problem::NotWhole { range }),
            ("32m", Problem::NotANumber { range }),
            ("32kk", Problem::NotANumber { range }),
            ("-2k", Problem::OutOfRange { range }),
            ("0k", Problem::OutOfRange { range }),
            ("10M", Problem::OutOfRange { range }),
            ("99999999999999999999k", Problem::OutOfRange { range }),
        ] {
            assert_eq!(
                SEQ.parse(text).map_err(|e| e.problem),
                Err(problem),
                "{text:?}"
            );
        }
        // A count that is not of tokens takes no suffix.
        assert_eq!(
            BATCH.parse("2k").map_err(|e| e.problem),
            Err(Problem::NotANumber {
                range: BATCH.range()
            })
        );
    }

    #[test]
    fn whole_fields_name_the_problem() {
        let range = BATCH.range();
        let out = Problem::OutOfRange { range };
        for (text, problem) in [
            ("", Problem::Empty { range }),
            ("   ", Problem::Empty { range }),
            ("abc", Problem::NotANumber { range }),
            ("inf", Problem::NotANumber { range }),
            ("NaN", Problem::NotANumber { range }),
            ("0x10", Problem::NotANumber { range }),
            (
                "<img src=x onerror=alert(1)>",
                Problem::NotANumber { range },
            ),
            ("1.2.3", Problem::NotANumber { range }),
            ("-", Problem::NotANumber { range }),
            // A comma that does not group thousands is not guessed at.
            ("1,5", Problem::NotANumber { range }),
            ("20,48", Problem::NotANumber { range }),
            ("2,0480", Problem::NotANumber { range }),
            (",048", Problem::NotANumber { range }),
            ("1.5,00", Problem::NotANumber { range }),
            ("1.5", Problem::NotWhole { range }),
            ("-1", out.clone()),
            ("0", out.clone()),
            ("1e30", out.clone()),
            ("1e999", out.clone()),
            ("99999999999999999999999999", out.clone()),
            ("1000001", out.clone()),
            ("0.5", out.clone()),
        ] {
            assert_eq!(
                BATCH.parse(text),
                Err(ParamError::new(Param::Batch, problem)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn errors_read_as_one_line_naming_the_field_and_range() {
        let message = BATCH.parse("-1").unwrap_err().to_string();
        assert_eq!(message, "`batch` must be from 1 to 1,000,000");
        let message = K.parse("0").unwrap_err().to_string();
        assert_eq!(message, "`k` must be from 0.01 to 1,000");
        let message = BATCH.parse("abc").unwrap_err().to_string();
        assert_eq!(message, "`batch` must be a number from 1 to 1,000,000");
        let message = BATCH.parse("").unwrap_err().to_string();
        assert_eq!(
            message,
            "`batch` is empty; give a number from 1 to 1,000,000"
        );
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
            param: Param::Params,
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
            ("7 B", 7_000_000_000),
            ("7,000M", 7_000_000_000),
            ("1,300,000,000", 1_300_000_000),
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
        let range = PARAMS.range();
        for (text, problem) in [
            ("", Problem::Empty { range }),
            ("B", Problem::Empty { range }),
            ("7X", Problem::NotANumber { range }),
            ("seven", Problem::NotANumber { range }),
        ] {
            assert_eq!(
                PARAMS.parse(text),
                Err(ParamError::new(Param::Params, problem)),
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
    fn spanish_numbers_read_with_the_decimal_comma() {
        for (text, want) in [
            ("2.048", Some(2048.0)),
            (" 1.000.000 ", Some(1_000_000.0)),
            ("12.345", Some(12_345.0)),
            ("9,5", Some(9.5)),
            ("1.234,5", Some(1234.5)),
            ("1 000 000", Some(1_000_000.0)),
            ("1\u{202f}000,25", Some(1000.25)),
            ("0,01", Some(0.01)),
            // A dot before other than three digits is a decimal point.
            ("2.5", Some(2.5)),
            ("0.01", Some(0.01)),
            ("2048", Some(2048.0)),
            // Not a number written so.
            ("1,2,3", None),
            ("2.04,5", None),
            ("20 48", None),
            ("abc", None),
        ] {
            let read = spanish_number(text);
            let value = match parse_number(&read) {
                Ok(Number::Whole(n)) => Some(n as f64),
                Ok(Number::Fraction(f)) => Some(f),
                _ => None,
            };
            assert_eq!(value, want, "{text:?} read as {read:?}");
        }
        assert_eq!(spanish_number("1,3B"), "1.3B");
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
