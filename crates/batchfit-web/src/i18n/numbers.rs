//! Numbers in the reader's notation, one rule for what is printed and what
//! is typed (docs/url-parameters.md, "Numbers on the page"): English writes
//! the decimal point and groups thousands with commas ("1,234.5"); Spanish
//! writes the decimal comma ("85,90 GB") and groups numbers of five or more
//! digits with a narrow no-break space, as the RAE and ISO 80000 recommend
//! ("1 000 000"), leaving four-digit numbers whole ("2048"). The Spanish
//! page reads its fields the same way (`fields::spanish_number`); links and
//! the CLI keep the URL's notation, the decimal point.

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
/// with their decimal separator and their whole part grouped, counts with
/// their scale ("1000T").
pub fn bound(lang: Lang, bound: Bound) -> String {
    match bound {
        Bound::Whole(n) => group(lang, u128::from(n)),
        Bound::Hundredths(h) => decimal(
            lang,
            &format_hundredths_with(h, |w| group(lang, u128::from(w))),
        ),
        Bound::Count(n) => decimal(lang, &format_count(n)),
    }
}

/// The language's decimal separator.
pub fn decimal_point(lang: Lang) -> &'static str {
    match lang {
        Lang::En => ".",
        Lang::Es => ",",
    }
}

/// `text`, a number in the URL's notation (or one inside a label, "85.90
/// GB"), with the language's decimal separator: every point between two
/// digits is one, since neither notation groups with a point.
pub fn decimal(lang: Lang, text: &str) -> String {
    if lang == Lang::En {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        out.push(if c == '.' && i > 0 && digit(i - 1) && digit(i + 1) {
            ','
        } else {
            c
        });
    }
    out
}
