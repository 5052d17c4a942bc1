//! Every sentence in both languages: a Spanish one has no English word
//! outside quotes, and the reverse.

use batchfit_core::fields::{Bound, Needed, Problem, Range};
use batchfit_core::import::json::{Expected, Kind, SyntaxError};
use batchfit_core::import::{self, Error};
use batchfit_core::query::Param;

use batchfit_core::measured;

use crate::i18n::{self, Lang, Language, Words};
use crate::messages::{file_error, problem};

/// Words that give English away, and words that give Spanish away; none of
/// them is a word of the other language.
const ENGLISH: &[&str] = &[
    "the",
    "applies",
    "only",
    "is",
    "must",
    "be",
    "from",
    "to",
    "not",
    "empty",
    "number",
    "whole",
    "type",
    "expected",
    "given",
    "known",
    "cannot",
    "with",
    "one",
    "of",
    "more",
    "than",
    "once",
    "together",
    "has",
    "no",
    "an",
    "a",
    "or",
    "it",
    "at",
    "does",
    "read",
    "reads",
    "models",
    "are",
    "modelled",
    "yet",
    "this",
    "valid",
    "value",
    "values",
    "text",
    "quotes",
    "list",
    "object",
    "key",
    "digit",
    "digits",
    "leading",
    "zeros",
    "end",
    "point",
    "exponent",
    "closing",
    "quote",
    "escape",
    "control",
    "characters",
    "inside",
    "less",
    "deeply",
    "nested",
    "four",
    "hexadecimal",
    "byte",
    "parameter",
    "needs",
    "fits",
    "on",
    "yes",
    // "et al.", and the output projection's O.
    "al",
    "o",
];
const SPANISH: &[&str] = &[
    "el",
    "solo",
    "aplica",
    "la",
    "los",
    "las",
    "debe",
    "ser",
    "estar",
    "entre",
    "un",
    "una",
    "uno",
    "falta",
    "valor",
    "valores",
    "escriba",
    "número",
    "entero",
    "conocido",
    "parámetro",
    "aparece",
    "más",
    "vez",
    "puede",
    "ir",
    "junto",
    "con",
    "de",
    "y",
    "o",
    "se",
    "esperaba",
    "texto",
    "lista",
    "objeto",
    "clave",
    "comillas",
    "dobles",
    "cifra",
    "cifras",
    "cero",
    "final",
    "tras",
    "punto",
    "exponente",
    "cierre",
    "secuencia",
    "escape",
    "válida",
    "no",
    "inicial",
    "válido",
    "ningún",
    "carácter",
    "control",
    "menos",
    "anidados",
    "cuatro",
    "uno",
    "hexadecimales",
    "lee",
    "modelos",
    "mezcla",
    "expertos",
    "aún",
    "modelan",
    "al",
    "le",
    "es",
    "en",
    "byte",
    "a",
    "necesita",
    "sobran",
    "nombra",
];

/// The words of `text` outside quotes («…», “…”) and outside `label`.
fn words(text: &str, label: &str) -> Vec<String> {
    // An empty label would put a space between every character.
    let text = if label.is_empty() {
        text.to_owned()
    } else {
        text.replace(label, " ")
    };
    let mut out = Vec::new();
    let mut quoted = 0u32;
    let mut word = String::new();
    // Identifiers (`gemma3_text`, `qwen2`, `all-to-all`) are names, not
    // words of a language: a token with a digit, an underscore or a hyphen
    // is skipped.
    let part = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    for c in text.chars().chain([' ']) {
        match c {
            '«' | '“' => quoted += 1,
            '»' | '”' => quoted = quoted.saturating_sub(1),
            c if part(c) && quoted == 0 => word.extend(c.to_lowercase()),
            _ => {}
        }
        if !part(c) && !word.is_empty() {
            let token = std::mem::take(&mut word);
            if token.chars().all(char::is_alphabetic) {
                out.push(token);
            }
        }
    }
    out
}

fn every_problem() -> Vec<Problem> {
    let range = Range {
        min: Bound::Whole(1),
        max: Bound::Whole(1_000_000),
    };
    let decimal = Range {
        min: Bound::Hundredths(1),
        max: Bound::Hundredths(100_000),
    };
    let count = Range {
        min: Bound::Count(1),
        max: Bound::Count(1_000_000_000_000_000),
    };
    vec![
        Problem::Empty { range },
        Problem::NotANumber { range: decimal },
        Problem::NotWhole { range: count },
        Problem::OutOfRange { range },
        Problem::NotAnOption {
            allowed: &["fp32", "bf16"],
        },
        Problem::Repeated { item: "mlp" },
        Problem::Unknown,
        Problem::Duplicate,
        Problem::Conflict { with: Param::Gpu },
        Problem::OnlyWith {
            param: Param::Mode,
            value: Needed::Is("inference"),
        },
        Problem::OnlyWith {
            param: Param::Kind,
            value: Needed::Either("decoder", "encoder"),
        },
        Problem::OnlyWith {
            param: Param::LoraRank,
            value: Needed::AtLeast(1),
        },
        Problem::OnlyWith {
            param: Param::CapacityFactor,
            value: Needed::Above(0),
        },
        Problem::OnlyWith {
            param: Param::Recipe,
            value: Needed::SixteenBitRecipe,
        },
        Problem::Indivisible {
            layers: 61,
            stages: 8,
        },
    ]
}

/// One syntax error for each thing the JSON reader can expect.
fn every_syntax_error() -> impl Iterator<Item = SyntaxError> {
    Expected::ALL.iter().map(|&expected| SyntaxError {
        offset: 12,
        expected,
    })
}

/// Every kind of error a pasted file can have, in each of the files.
fn every_file_error() -> Vec<import::Rejected> {
    let mut errors: Vec<Error> = every_syntax_error().map(Error::NotJson).collect();
    for found in Kind::ALL {
        errors.push(Error::NotAnObject { found });
        for expected in Kind::ALL {
            errors.push(Error::WrongType {
                key: "hidden_size",
                expected,
                found,
            });
        }
    }
    let range = Range {
        min: Bound::Whole(1),
        max: Bound::Whole(10_000),
    };
    errors.extend([
        Error::Missing { key: "vocab_size" },
        Error::BadValue {
            key: "num_hidden_layers",
            range,
            whole: true,
        },
        Error::BadValue {
            key: "num_hidden_layers",
            range,
            whole: false,
        },
        Error::whole("per_device_train_batch_size", 1, 1_000_000_000),
        Error::UnknownModelType {
            found: "mamba".to_owned(),
        },
        Error::Unsupported {
            key: "num_local_experts",
        },
        Error::LayerPattern {
            key: "sliding_window_pattern",
        },
        Error::NotAnOption {
            key: "optim",
            found: "adamw_weird".to_owned(),
            allowed: &["adamw_torch", "adafactor"],
        },
        Error::Contradiction {
            key: "fp16",
            with: "bf16",
        },
        Error::BatchMismatch {
            train_batch_size: 64,
            micro_batch: 4,
            accumulation: 2,
            gpus: 1,
        },
        Error::Mismatch {
            key: "train_micro_batch_size_per_gpu",
            deepspeed: "4".to_owned(),
            trainer_key: "per_device_train_batch_size",
            trainer: "8".to_owned(),
        },
    ]);
    let sources = [
        import::Source::ModelConfig,
        import::Source::Deepspeed,
        import::Source::TrainingArgs,
    ];
    errors
        .iter()
        .flat_map(|error| {
            sources.map(|source| import::Rejected {
                source,
                error: error.clone(),
            })
        })
        .collect()
}

/// Every problem and every import error, in both languages: a Spanish
/// message has no English word outside quotes, and the reverse.
#[test]
fn each_message_is_in_one_language() {
    for lang in [Lang::En, Lang::Es] {
        let (foreign, own): (&[&str], &[&str]) = match lang {
            Lang::En => (SPANISH, ENGLISH),
            Lang::Es => (ENGLISH, SPANISH),
        };
        let label = i18n::field(lang, Param::Batch).label;
        let messages: Vec<String> = every_problem()
            .iter()
            .map(|p| problem(lang, label, p))
            .chain(every_file_error().iter().map(|e| file_error(lang, e)))
            .collect();
        for message in messages {
            let words = words(&message, label);
            assert!(!words.is_empty(), "{message}");
            for word in &words {
                let english_and_spanish = own.contains(&word.as_str());
                assert!(
                    english_and_spanish || !foreign.contains(&word.as_str()),
                    "{lang:?}: «{word}» in {message:?}"
                );
            }
            assert!(
                words.iter().any(|w| own.contains(&w.as_str())),
                "{lang:?}: no word of the language in {message:?}"
            );
            assert!(!message.contains('`'), "{message}");
        }
    }
}

#[test]
fn numeric_problems_name_the_range_in_the_language() {
    let range = Range {
        min: Bound::Whole(1),
        max: Bound::Whole(1_000_000),
    };
    assert_eq!(
        problem(Lang::En, "Batch size", &Problem::NotANumber { range }),
        "Batch size must be a number from 1 to 1,000,000."
    );
    assert_eq!(
        problem(Lang::Es, "Tamaño de lote", &Problem::Empty { range }),
        "Tamaño de lote: falta un valor; escriba un número entre 1 y 1\u{202F}000\u{202F}000."
    );
}

fn every_measured_error() -> Vec<measured::Error> {
    use measured::Problem as P;
    let forms = measured::Form::ALL;
    let problems = [
        P::TooLong { max_bytes: 65_536 },
        P::TooManyLines { max_lines: 400 },
        P::Empty { forms },
        P::Unreadable { forms },
        P::UnknownUnit {
            allowed: &["GB", "GiB"],
        },
        P::UnknownLabel {
            allowed: &["max_memory_allocated"],
        },
        P::Unlabelled {
            allowed: &["max_memory_allocated"],
        },
        P::NotWholeBytes,
        P::TooLarge { max: 1 << 50 },
        P::Ambiguous {
            reading: measured::Reading::Allocated,
            peak: true,
            first_line: 2,
        },
    ];
    problems
        .into_iter()
        .flat_map(|problem| [Some(3), None].map(|line| measured::Error { line, problem }))
        .collect()
}

fn every_file_note() -> Vec<import::Note> {
    use import::Note as N;
    vec![
        N::NotModelled {
            key: "offload_param",
            elements: Some(500_000_000),
        },
        N::NotModelled {
            key: "offload_param",
            elements: None,
        },
        N::Auto {
            key: "train_micro_batch_size_per_gpu",
            needs: import::Needs::TrainingArgs,
        },
        N::Auto {
            key: "reduce_bucket_size",
            needs: import::Needs::HiddenSize,
        },
        N::UnknownOptimizer {
            key: "optim",
            name: "lion".to_owned(),
        },
        N::DeepspeedPath {
            path: "ds.json".to_owned(),
        },
        N::ModelCheckpointing,
    ]
}

/// The headline's and the badge's sentences, with every variant.
fn every_headline(language: &Language) -> Vec<String> {
    let w = language.answer;
    let parts = format!(
        "4 {} × {}",
        w.split_names[0],
        (language.degree)(w.split_names[2], 2)
    );
    vec![
        (language.needs)("98.4 GB"),
        (language.needs_per_gpu)("98.4 GB"),
        (language.fits_on_each)(32, "H100 80GB", w.yes),
        (language.states_exceed)("98.0 GB", "H100 80GB"),
        (language.hardware)(batchfit_core::hardware::Warning::Bf16 { capability: (7, 5) }),
        (language.hardware)(batchfit_core::hardware::Warning::Fp8 { capability: (8, 0) }),
        (language.hardware)(batchfit_core::hardware::Warning::FlashAttention {
            capability: (7, 5),
        }),
        (language.sum_needs)("98.4 GB"),
        (language.fits_on)("H100 80GB", w.yes),
        (language.fits_on)("H100 80GB", &(language.gpus_needed)(16, Some(&parts))),
        (language.fits_on)("H100 80GB", &(language.gpus_needed)(16, None)),
        (language.spare)("3.2 GB"),
        (language.kept_layers)(32, "5.66"),
    ]
}

/// The quoted texts of `Words`' Debug form: every field, without naming one.
fn every_word(words: &Words) -> Vec<String> {
    format!("{words:?}")
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|text| text.replace("\\'", "'"))
        .collect()
}

/// The new sentences (measurements, file notes, the headline) and every table
/// (words, fields, options, FAQ, terms) in both languages: none has a word
/// that gives the other language away.
#[test]
fn every_text_is_in_one_language() {
    let mut wrong = Vec::new();
    for lang in [Lang::En, Lang::Es] {
        let foreign: &[&str] = match lang {
            Lang::En => SPANISH,
            Lang::Es => ENGLISH,
        };
        let own: &[&str] = match lang {
            Lang::En => ENGLISH,
            Lang::Es => SPANISH,
        };
        let language = i18n::language(lang);
        let panels = i18n::panels(lang);
        let sentences: Vec<String> = every_measured_error()
            .iter()
            .map(|e| (panels.measured_error)(e))
            .chain(every_file_note().iter().map(|n| (panels.file_note)(n)))
            .chain(every_headline(language))
            .collect();
        for sentence in &sentences {
            if !words(sentence, "")
                .iter()
                .any(|w| own.contains(&w.as_str()))
            {
                wrong.push(format!("{lang:?}: no word of the language in {sentence:?}"));
            }
        }
        let fields = i18n::forms(lang)
            .fields
            .iter()
            .flat_map(|f| [f.label, f.unit, f.hint]);
        let options = language.options.iter().map(|&(_, _, label)| label);
        // Names of devices, which may have no word of either language.
        let presets = [(language.unified_memory)(16), (language.cpu_ram)(16)];
        let faq = panels.faq.iter().flat_map(|&(q, a)| [q, a]);
        let terms = measured::Term::ALL
            .iter()
            .flat_map(|&t| [(panels.term)(t), (panels.term_note)(t)]);
        let texts = sentences
            .into_iter()
            .chain(every_word(i18n::words(lang)))
            .chain(presets)
            .chain(
                fields
                    .chain(options)
                    .chain(faq)
                    .chain(terms)
                    .map(str::to_owned),
            );
        for text in texts {
            for word in words(&text, "") {
                if !own.contains(&word.as_str()) && foreign.contains(&word.as_str()) {
                    wrong.push(format!("{lang:?}: «{word}» in {text:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
