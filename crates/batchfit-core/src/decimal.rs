//! Decimal text to `f64`, for the numbers people type and config.json holds.
//!
//! The standard library's parser is correctly rounded for every input, which
//! takes a 10 KB table of powers of five and about 8 KB of code (Eisel–Lemire
//! with a big-decimal fallback); in the page's WebAssembly that is about 5 % of
//! what the browser downloads (`cargo xtask size`). The numbers batchfit reads
//! have few significant digits ("1.3e9", "0.25", "500000.0"), and for those
//! Clinger's fast path is exact: a mantissa below 2^53 and a power of ten up to
//! 10^22 are both exact doubles, so one multiplication or division rounds once,
//! correctly (W. D. Clinger, "How to read floating point numbers accurately",
//! PLDI 1990). Other inputs (more than 15 significant digits, exponents beyond
//! ±22) are computed in double arithmetic, within a few units in the last
//! place; every field's bounds are far coarser than that.

/// Reads `[+-]digits[.digits][(e|E)[+-]digits]` (digits on at least one side of
/// the point, as Rust's `f64::from_str` accepts for finite numbers). `None` for
/// anything else, including "inf" and "NaN". Huge exponents give infinities or
/// zero, like the standard parser.
pub fn parse(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            at = 1;
            true
        }
        Some(b'+') => {
            at = 1;
            false
        }
        _ => false,
    };
    // Up to 19 significant digits fit a u64; later ones only move the exponent.
    let mut mantissa: u64 = 0;
    let mut significant = 0;
    let mut truncated = false;
    let mut exponent: i64 = 0;
    let mut digits = 0;
    let mut in_fraction = false;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'0'..=b'9' => {
                digits += 1;
                let digit = u64::from(b - b'0');
                if significant < 19 {
                    if mantissa > 0 || digit > 0 {
                        significant += 1;
                    }
                    mantissa = mantissa * 10 + digit;
                    if in_fraction {
                        exponent -= 1;
                    }
                } else {
                    truncated |= digit > 0;
                    if !in_fraction {
                        exponent += 1;
                    }
                }
            }
            b'.' if !in_fraction => in_fraction = true,
            _ => break,
        }
        at += 1;
    }
    if digits == 0 {
        return None;
    }
    if let Some(b'e' | b'E') = bytes.get(at) {
        at += 1;
        let sign = match bytes.get(at) {
            Some(b'-') => {
                at += 1;
                -1
            }
            Some(b'+') => {
                at += 1;
                1
            }
            _ => 1,
        };
        let from = at;
        let mut written: i64 = 0;
        while let Some(&b @ b'0'..=b'9') = bytes.get(at) {
            // Saturates far beyond any double's range (10^±400 is ±inf or 0).
            written = (written * 10 + i64::from(b - b'0')).min(1_000_000);
            at += 1;
        }
        if at == from {
            return None;
        }
        exponent += sign * written;
    }
    if at != bytes.len() {
        return None;
    }
    let magnitude = value(mantissa, exponent, truncated);
    Some(if negative { -magnitude } else { magnitude })
}

/// `mantissa × 10^exponent`.
fn value(mantissa: u64, exponent: i64, truncated: bool) -> f64 {
    /// The largest mantissa a double holds exactly.
    const EXACT: u64 = 1 << 53;
    if mantissa == 0 {
        return 0.0;
    }
    if !truncated && mantissa <= EXACT {
        let m = mantissa as f64;
        // Clinger's fast path: both operands exact, one rounding.
        if (0..=22).contains(&exponent) {
            return m * pow10(exponent);
        }
        if (-22..0).contains(&exponent) {
            return m / pow10(-exponent);
        }
        // "1234e25": move powers of ten into the mantissa while it stays exact.
        if (23..=22 + 15).contains(&exponent) {
            let shift = exponent - 22;
            if let Some(m) = mantissa
                .checked_mul(10u64.pow(shift as u32))
                .filter(|&m| m <= EXACT)
            {
                return m as f64 * pow10(22);
            }
        }
    }
    // Outside the exact cases: a few units in the last place.
    if exponent >= 0 {
        mantissa as f64 * pow10(exponent)
    } else if exponent >= -300 {
        mantissa as f64 / pow10(-exponent)
    } else {
        // Keep the intermediate power finite: 10^(e+300) first, then 10^-300.
        mantissa as f64 / pow10(-exponent - 300) / pow10(300)
    }
}

/// 10^n for n ≥ 0 (infinite past 10^308), exact up to 10^22.
fn pow10(n: i64) -> f64 {
    let mut result = 1.0;
    let mut base = 10.0_f64;
    let mut n = n.min(400);
    while n > 0 {
        if n & 1 == 1 {
            result *= base;
        }
        base *= base;
        n >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_what_people_and_configs_write() {
        for (text, want) in [
            ("0", 0.0),
            ("16", 16.0),
            ("1.3e9", 1.3e9),
            ("0.25", 0.25),
            (".5", 0.5),
            ("5.", 5.0),
            ("-1.5e3", -1500.0),
            ("+2", 2.0),
            ("1e-05", 1e-5),
            ("500000.0", 500_000.0),
            ("0.02", 0.02),
            ("10.25", 10.25),
            ("1E6", 1e6),
            ("123456789012345678901234567890", 1.2345678901234568e29),
        ] {
            assert_eq!(parse(text), Some(want), "{text}");
        }
    }

    #[test]
    fn rejects_what_is_not_a_finite_decimal() {
        for text in [
            "", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", "inf", "NaN", "infinity", "1,5", "0x10",
            " 1", "1 ", "--1", "1e5e5", "1_000",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn extremes_are_infinite_or_zero_like_the_standard_parser() {
        for text in [
            "1e400",
            "1e999999999999",
            "-1e400",
            "1e-400",
            "0e999999",
            "1e-999999",
        ] {
            assert_eq!(parse(text), text.parse::<f64>().ok(), "{text}");
        }
    }

    proptest! {
        /// Clinger's domain: exactly the standard library's correctly rounded value.
        #[test]
        fn exact_where_the_fast_path_applies(
            mantissa in 0u64..=(1 << 53),
            exponent in -22i64..=22,
            point in 0usize..20,
        ) {
            let digits = mantissa.to_string();
            let point = point.min(digits.len());
            let text = format!("{}.{}e{}", &digits[..digits.len() - point], &digits[digits.len() - point..], exponent + point as i64);
            prop_assert_eq!(parse(&text), text.parse::<f64>().ok(), "{}", text);
        }

        /// Anywhere else: accepted exactly when the standard parser accepts it,
        /// and within a few units in the last place of its value.
        #[test]
        fn close_to_the_standard_parser_elsewhere(text in "[+-]?[0-9]{0,25}(\\.[0-9]{0,25})?([eE][+-]?[0-9]{1,3})?") {
            let ours = parse(&text);
            let std = text.parse::<f64>().ok();
            prop_assert_eq!(ours.is_some(), std.is_some(), "{}", text);
            if let (Some(a), Some(b)) = (ours, std) {
                if b.is_finite() && b != 0.0 && b.abs() > 1e-290 {
                    prop_assert!(((a - b) / b).abs() < 1e-14, "{} → {} vs {}", text, a, b);
                } else {
                    prop_assert!(a == b || (a.abs() < 1e-280 && b.abs() < 1e-280), "{} → {} vs {}", text, a, b);
                }
            }
        }
    }
}
