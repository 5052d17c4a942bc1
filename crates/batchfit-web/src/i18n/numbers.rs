//! Numbers: both languages write the decimal point (as the worked examples read,
//! "5.369 GB" in either language: the usage of Mexico, Central America and most
//! machine-learning writing in Spanish). English groups thousands with commas;
//! Spanish groups numbers of five or more digits with a narrow no-break space,
//! as the RAE and ISO 80000 recommend ("1 000 000"), and leaves four-digit
//! numbers whole ("2048").

use batchfit_core::fields::{Bound, format_count, format_hundredths_with};

use super::Lang;

/// A size's exact bytes, for its tooltip: "85,899,345,920 bytes".
pub fn exact_bytes(lang: Lang, bytes: u128) -> String {
    format!("{} bytes", group(lang, bytes))
}

/// Writes a whole number as the language groups it.
pub fn group(lang: Lang, n: u128) -> String {
    let digits = n.to_string();
    let (separator, min_len) = match lang {
        Lang::En => (',', 4),
        Lang::Es => ('\u{202F}', 5),
    };
    if digits.len() < min_len {
        return digits;
    }
    let mut out = String::with_capacity(digits.len() * 2);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(separator);
        }
        out.push(c);
    }
    out
}

/// A field's bound as the language writes it: whole numbers grouped, decimals
/// with their point and their whole part grouped, counts with their scale
/// ("1000T").
pub fn bound(lang: Lang, bound: Bound) -> String {
    match bound {
        Bound::Whole(n) => group(lang, u128::from(n)),
        Bound::Hundredths(h) => format_hundredths_with(h, |w| group(lang, u128::from(w))),
        Bound::Count(n) => format_count(n),
    }
}
