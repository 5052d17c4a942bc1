mod one_language;

use super::*;
use batchfit_core::fields::Bound;
use batchfit_core::measured::TERMS;
use batchfit_core::query;

#[test]
fn every_term_that_can_explain_a_measurement_has_a_name_in_both_languages() {
    let mut named: Vec<&str> = Vec::new();
    for info in TERMS {
        let names = [term(Lang::En, info.term), term(Lang::Es, info.term)];
        for name in names {
            assert!(
                !name.is_empty() && !named.contains(&name),
                "{:?}: {name:?} is empty or names another term or language too",
                info.term
            );
        }
        named.extend(names);
        // The page's English is the CLI's, in the page's own table.
        assert_eq!(names[0], info.term.label(), "{:?}", info.term);
        assert_eq!(term_note(Lang::En, info), info.note, "{:?}", info.term);
        // A note in English has its Spanish, and only then, with the
        // same figures, each in its language's notation (the decimal comma
        // in Spanish).
        let spanish = term_note(Lang::Es, info);
        assert_eq!(spanish.is_empty(), info.note.is_empty(), "{:?}", info.term);
        let figures = info
            .note
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map(|f| f.trim_end_matches('.'))
            .filter(|f| f.starts_with(|c: char| c.is_ascii_digit()));
        for figure in figures {
            // A section of docs/model.md ("§3.2") is a reference, not a
            // decimal: it stays as written.
            let written = if info.note.contains(&format!("§{figure}")) {
                figure.to_owned()
            } else {
                decimal(Lang::Es, figure)
            };
            assert!(spanish.contains(&written), "{:?}: {written}", info.term);
        }
    }
}

#[test]
fn every_url_parameter_with_a_field_has_words_in_both_languages() {
    let fields = query::ACTIVATIONS_PARAMETERS
        .iter()
        .chain(query::PARAMETERS_PARAMETERS)
        .chain(query::TRANSFORMER_PARAMETERS)
        .chain(query::COMMON_PARAMETERS)
        .filter(|n| !matches!(**n, Param::Units | Param::Lang | Param::Embed));
    for &name in fields {
        for lang in [Lang::En, Lang::Es] {
            let text = field(lang, name);
            assert!(
                !text.label.is_empty() && !text.hint.is_empty(),
                "{name:?} in {lang:?}"
            );
        }
        assert_ne!(
            field(Lang::En, name),
            field(Lang::Es, name),
            "{name:?} is not translated"
        );
    }
}

#[test]
fn every_option_label_has_its_spanish_label() {
    let keys = |table: &[(Param, &str, &str)]| -> Vec<(Param, String)> {
        table.iter().map(|&(p, v, _)| (p, v.to_owned())).collect()
    };
    assert_eq!(
        keys(language(Lang::En).options),
        keys(language(Lang::Es).options)
    );
    assert_eq!(
        option(Lang::Es, Param::Optimizer, "adam8bit"),
        "Adam de 8 bits"
    );
    assert_eq!(option(Lang::En, Param::Optimizer, "adam8bit"), "Adam 8-bit");
}

/// One rule for what is typed and what is printed (issue 28): every number
/// the Spanish page prints in its notation reads back, through the core's
/// reading of Spanish fields, as the same number in the URL's notation.
#[test]
fn a_printed_spanish_number_reads_back() {
    use batchfit_core::fields::{format_hundredths, parse_number, spanish_number};
    for hundredths in [
        0,
        1,
        5,
        50,
        99,
        100,
        950,
        104_857,
        1_000_000_050,
        12_345_678_901,
    ] {
        let machine = format_hundredths(hundredths);
        let printed = bound(Lang::Es, Bound::Hundredths(hundredths));
        assert_eq!(
            parse_number(&spanish_number(&printed)),
            parse_number(&machine),
            "{printed:?}"
        );
        assert_eq!(decimal(Lang::Es, &machine), machine.replace('.', ","));
    }
    assert_eq!(decimal(Lang::Es, "85.90 GB"), "85,90 GB");
    assert_eq!(decimal(Lang::Es, "v1.5 of 2."), "v1,5 of 2.");
    assert_eq!(decimal(Lang::En, "85.90 GB"), "85.90 GB");
}

#[test]
fn numbers_are_grouped_as_each_language_writes_them() {
    assert_eq!(group(Lang::En, 1_000_000), "1,000,000");
    assert_eq!(group(Lang::En, 999), "999");
    assert_eq!(group(Lang::En, 2048), "2,048");
    assert_eq!(group(Lang::Es, 2048), "2048");
    assert_eq!(group(Lang::Es, 1_000_000), "1\u{202F}000\u{202F}000");
    assert_eq!(
        bound(Lang::Es, Bound::Whole(1_000_000_000)),
        "1\u{202F}000\u{202F}000\u{202F}000"
    );
    // Spanish writes the decimal comma.
    assert_eq!(bound(Lang::Es, Bound::Hundredths(1)), "0,01");
    assert_eq!(bound(Lang::En, Bound::Hundredths(1)), "0.01");
    // A decimal bound's whole part is grouped as a whole bound is.
    assert_eq!(bound(Lang::En, Bound::Hundredths(100_000_000)), "1,000,000");
    assert_eq!(
        bound(Lang::Es, Bound::Hundredths(100_000_050)),
        "1\u{202F}000\u{202F}000,5"
    );
    assert_eq!(
        bound(Lang::En, Bound::Count(1_000_000_000_000_000)),
        "1000T"
    );
}
