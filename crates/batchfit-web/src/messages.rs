//! Every sentence about bad input, one table per language: a field's problem
//! (from the core's [`Problem`], which carries numbers and names, never words)
//! and a rejected config.json ([`ImportError`]). The CLI words the same data
//! in English with the core's `Display`; the page never shows those.

use batchfit_core::fields::{Problem, Range};
use batchfit_core::import;
use batchfit_core::import::hf::{self, ImportError};
use batchfit_core::import::json::{Expected, Kind, MAX_DEPTH, SyntaxError};
use batchfit_core::measured;

use crate::i18n::{self, Lang};

/// The message under a field (or in the URL notice), naming the field with
/// `label` and, for a numeric field, the range it accepts.
pub fn problem(lang: Lang, label: &str, problem: &Problem) -> String {
    let range = |r: &Range| (i18n::bound(lang, r.min), i18n::bound(lang, r.max));
    match (lang, problem) {
        (Lang::En, Problem::Empty { range: r }) => {
            let (min, max) = range(r);
            format!("{label} is empty: type a number from {min} to {max}.")
        }
        (Lang::Es, Problem::Empty { range: r }) => {
            let (min, max) = range(r);
            format!("{label}: falta un valor; escribe un número entre {min} y {max}.")
        }
        (Lang::En, Problem::NotANumber { range: r }) => {
            let (min, max) = range(r);
            format!("{label} must be a number from {min} to {max}.")
        }
        (Lang::Es, Problem::NotANumber { range: r }) => {
            let (min, max) = range(r);
            format!("{label} debe ser un número entre {min} y {max}.")
        }
        (Lang::En, Problem::NotWhole { range: r }) => {
            let (min, max) = range(r);
            format!("{label} must be a whole number from {min} to {max}.")
        }
        (Lang::Es, Problem::NotWhole { range: r }) => {
            let (min, max) = range(r);
            format!("{label} debe ser un número entero entre {min} y {max}.")
        }
        (Lang::En, Problem::OutOfRange { range: r }) => {
            let (min, max) = range(r);
            format!("{label} must be from {min} to {max}.")
        }
        (Lang::Es, Problem::OutOfRange { range: r }) => {
            let (min, max) = range(r);
            format!("{label} debe estar entre {min} y {max}.")
        }
        (Lang::En, Problem::NotAnOption { allowed }) => {
            format!("{label} must be one of: {}.", allowed.join(", "))
        }
        (Lang::Es, Problem::NotAnOption { allowed }) => {
            format!("{label} debe ser uno de: {}.", allowed.join(", "))
        }
        (Lang::En, Problem::Repeated { item }) => format!("{label} has “{item}” more than once."),
        (Lang::Es, Problem::Repeated { item }) => format!("{label} tiene “{item}” más de una vez."),
        (Lang::En, Problem::Unknown) => format!("{label} is not a known parameter."),
        (Lang::Es, Problem::Unknown) => format!("{label} no es un parámetro conocido."),
        (Lang::En, Problem::Duplicate) => format!("{label} was given more than once."),
        (Lang::Es, Problem::Duplicate) => format!("{label} aparece más de una vez."),
        (Lang::En, Problem::Conflict { with }) => {
            format!("{label} cannot be given together with “{}”.", with.name())
        }
        (Lang::Es, Problem::Conflict { with }) => {
            format!("{label} no puede ir junto con “{}”.", with.name())
        }
        (Lang::En, Problem::OnlyWith { param, value }) => {
            format!("{label} applies only with “{}={value}”.", param.name())
        }
        (Lang::Es, Problem::OnlyWith { param, value }) => {
            format!("{label} solo se aplica con “{}={value}”.", param.name())
        }
    }
}

/// A kind of JSON value, with its article.
fn kind(lang: Lang, kind: Kind) -> &'static str {
    match (lang, kind) {
        (_, Kind::Null) => "«null»",
        (Lang::En, Kind::Bool) => "«true» or «false»",
        (Lang::Es, Kind::Bool) => "«true» o «false»",
        (Lang::En, Kind::Number) => "a number",
        (Lang::Es, Kind::Number) => "un número",
        (Lang::En, Kind::String) => "a text in quotes",
        (Lang::Es, Kind::String) => "un texto entre comillas",
        (Lang::En, Kind::Array) => "a list […]",
        (Lang::Es, Kind::Array) => "una lista […]",
        (Lang::En, Kind::Object) => "an object {…}",
        (Lang::Es, Kind::Object) => "un objeto {…}",
    }
}

/// What the JSON reader expected where the text stopped being JSON, where
/// naming it says more than "JSON" (the structural cases); `None` for the
/// rest (escapes, number syntax, UTF-8, nesting).
fn expected(lang: Lang, expected: Expected) -> Option<&'static str> {
    let (en, es) = match expected {
        Expected::Value => ("a value", "un valor"),
        Expected::Key => ("a key in double quotes", "una clave entre comillas dobles"),
        Expected::Colon => ("«:»", "«:»"),
        Expected::CommaOrBrace => ("«,» or «}»", "«,» o «}»"),
        Expected::CommaOrBracket => ("«,» or «]»", "«,» o «]»"),
        Expected::ClosingQuote => ("a closing quote", "unas comillas de cierre"),
        Expected::End => ("the end of the text", "el final del texto"),
        Expected::LessNesting
        | Expected::HexDigits
        | Expected::Escape
        | Expected::NoControlCharacters
        | Expected::Utf8
        | Expected::NoLeadingZeros
        | Expected::Digit
        | Expected::DigitAfterPoint
        | Expected::Exponent
        | Expected::Number
        | Expected::Literal => return None,
    };
    Some(match lang {
        Lang::En => en,
        Lang::Es => es,
    })
}

/// The rest of a sentence whose subject is the pasted text: why the reader
/// stopped, and where. Nesting deeper than the reader follows is valid JSON,
/// so it is not called invalid.
fn not_json(lang: Lang, e: &SyntaxError) -> String {
    let at = e.offset;
    if e.expected == Expected::LessNesting {
        return match lang {
            Lang::En => format!(
                "nests more than {MAX_DEPTH} levels deep (at byte {at}), which batchfit does not read; a configuration file nests a few."
            ),
            Lang::Es => format!(
                "anida más de {MAX_DEPTH} niveles (en el byte {at}), y batchfit no lo lee; un archivo de configuración anida unos pocos."
            ),
        };
    }
    match (lang, expected(lang, e.expected)) {
        (Lang::En, Some(what)) => format!("is not valid JSON: at byte {at} it expected {what}."),
        (Lang::Es, Some(what)) => format!("no es JSON válido: en el byte {at} se esperaba {what}."),
        (Lang::En, None) => format!("is not valid JSON at byte {at}."),
        (Lang::Es, None) => format!("no es JSON válido en el byte {at}."),
    }
}

/// Why a pasted config.json was not imported.
pub fn import_error(lang: Lang, error: &ImportError) -> String {
    match (lang, error) {
        (Lang::En, ImportError::NotJson(e)) => format!("This text {}", not_json(lang, e)),
        (Lang::Es, ImportError::NotJson(e)) => format!("El texto {}", not_json(lang, e)),
        (Lang::En, ImportError::NotAnObject { found }) => format!(
            "A config.json is an object {{…}}, not {}.",
            kind(lang, *found)
        ),
        (Lang::Es, ImportError::NotAnObject { found }) => format!(
            "Un config.json es un objeto {{…}}, no {}.",
            kind(lang, *found)
        ),
        (Lang::En, ImportError::Missing { key }) => format!("The config.json has no «{key}»."),
        (Lang::Es, ImportError::Missing { key }) => format!("Al config.json le falta «{key}»."),
        (
            Lang::En,
            ImportError::WrongType {
                key,
                expected,
                found,
            },
        ) => format!(
            "«{key}» must be {}, not {}.",
            kind(lang, *expected),
            kind(lang, *found)
        ),
        (
            Lang::Es,
            ImportError::WrongType {
                key,
                expected,
                found,
            },
        ) => format!(
            "«{key}» debe ser {}, no {}.",
            kind(lang, *expected),
            kind(lang, *found)
        ),
        (
            _,
            ImportError::BadValue {
                key,
                range,
                fraction,
            },
        ) => {
            let label = format!("«{key}»");
            let problem = if *fraction {
                Problem::NotWhole { range: *range }
            } else {
                Problem::OutOfRange { range: *range }
            };
            self::problem(lang, &label, &problem)
        }
        (Lang::En, ImportError::UnknownModelType { found }) => format!(
            "batchfit does not read the «model_type» “{found}” (it reads {}).",
            hf::MODEL_TYPES.join(", ")
        ),
        (Lang::Es, ImportError::UnknownModelType { found }) => format!(
            "batchfit no lee el «model_type» “{found}” (lee {}).",
            hf::MODEL_TYPES.join(", ")
        ),
        (Lang::En, ImportError::Unsupported { key }) => {
            format!("«{key}» describes something batchfit does not model for this model type.")
        }
        (Lang::Es, ImportError::Unsupported { key }) => {
            format!("«{key}» describe algo que batchfit no modela en este tipo de modelo.")
        }
        (Lang::En, ImportError::LayerPattern { key }) => {
            format!("«{key}»: only every n-th layer global, the others windowed, is modelled.")
        }
        (Lang::Es, ImportError::LayerPattern { key }) => {
            format!("«{key}»: solo se modela una capa global cada n, las demás con ventana.")
        }
    }
}

/// What could not be read in a pasted measurement, naming the line and the
/// forms, units or labels that are read.
pub fn measured_error(lang: Lang, error: &measured::Error) -> String {
    use measured::Problem as P;
    let es = lang == Lang::Es;
    let forms = |forms: &[measured::Form]| {
        let names: Vec<&str> = forms
            .iter()
            .map(|f| match (f, es) {
                (measured::Form::Number, false) => "a number of bytes or with a unit",
                (measured::Form::Number, true) => "un número de bytes o con unidad",
                (measured::Form::Labelled, false) => "max_memory_allocated: 123456",
                (measured::Form::Labelled, true) => "max_memory_allocated: 123456",
                (measured::Form::MemorySummary, _) => "torch.cuda.memory_summary()",
                (measured::Form::NvidiaSmiTable, _) => "nvidia-smi",
                (measured::Form::NvidiaSmiCsv, _) => "nvidia-smi --query-gpu=memory.used",
            })
            .collect();
        names.join(", ")
    };
    let what = match (error.problem, es) {
        (P::TooLong { max_bytes }, false) => format!("The text is longer than {max_bytes} bytes."),
        (P::TooLong { max_bytes }, true) => format!("El texto pasa de {max_bytes} bytes."),
        (P::TooManyLines { max_lines }, false) => {
            format!("The text has more than {max_lines} lines.")
        }
        (P::TooManyLines { max_lines }, true) => {
            format!("El texto tiene más de {max_lines} líneas.")
        }
        (P::Empty { forms: f }, false) => {
            format!("No memory reading found. Readable: {}.", forms(f))
        }
        (P::Empty { forms: f }, true) => {
            format!("No hay ninguna lectura de memoria. Se leen: {}.", forms(f))
        }
        (P::Unreadable { forms: f }, false) => format!("this line is none of: {}.", forms(f)),
        (P::Unreadable { forms: f }, true) => format!("esta línea no es ninguna de: {}.", forms(f)),
        (P::UnknownUnit { allowed }, false) => {
            format!("the unit must be one of {}.", allowed.join(", "))
        }
        (P::UnknownUnit { allowed }, true) => {
            format!("la unidad debe ser una de {}.", allowed.join(", "))
        }
        (P::UnknownLabel { allowed }, false) => {
            format!("the label must name one reading: {}.", allowed.join(", "))
        }
        (P::UnknownLabel { allowed }, true) => format!(
            "la etiqueta debe nombrar una lectura: {}.",
            allowed.join(", ")
        ),
        (P::Unlabelled { .. }, false) => {
            "a number without a label: say below which reading it is.".to_owned()
        }
        (P::Unlabelled { .. }, true) => {
            "un número sin etiqueta: indique abajo qué lectura es.".to_owned()
        }
        (P::NotWholeBytes, false) => "a fraction of a byte: give its unit (GB or GiB).".to_owned(),
        (P::NotWholeBytes, true) => {
            "una fracción de byte: indique su unidad (GB o GiB).".to_owned()
        }
        (P::TooLarge { max }, false) => format!("more than {max} bytes."),
        (P::TooLarge { max }, true) => format!("más de {max} bytes."),
        (P::Ambiguous { first_line, .. }, false) => format!(
            "a second, different value of the reading on line {first_line}: paste one run at a time."
        ),
        (P::Ambiguous { first_line, .. }, true) => format!(
            "un segundo valor, distinto, de la lectura de la línea {first_line}: pegue una ejecución cada vez."
        ),
    };
    match (error.line, es) {
        (Some(line), false) => format!("Line {line}: {what}"),
        (Some(line), true) => format!("Línea {line}: {what}"),
        (None, _) => what,
    }
}

/// Why a pasted DeepSpeed config or TrainingArguments could not be read,
/// naming the file and the key.
pub fn file_error(lang: Lang, rejected: &import::Rejected) -> String {
    use import::FileError as E;
    let es = lang == Lang::Es;
    // The file as the subject of what is wrong with it as a whole, and as
    // the place of what is wrong with one of its keys.
    let (file, within) = match (rejected.source, es) {
        (import::Source::Deepspeed, false) => ("The DeepSpeed config", "In the DeepSpeed config,"),
        (import::Source::Deepspeed, true) => (
            "La configuración de DeepSpeed",
            "En la configuración de DeepSpeed,",
        ),
        (import::Source::TrainingArgs, false) => {
            ("The TrainingArguments", "In the TrainingArguments,")
        }
        (import::Source::TrainingArgs, true) => (
            "El texto de los TrainingArguments",
            "En los TrainingArguments,",
        ),
    };
    let n = |v: u64| i18n::group(lang, u128::from(v));
    let what = match (&rejected.error, es) {
        (E::NotJson(e), _) => return format!("{file} {}", not_json(lang, e)),
        (E::NotAnObject { found }, false) => {
            return format!(
                "{file} must be an object {{…}}, not {}.",
                kind(lang, *found)
            );
        }
        (E::NotAnObject { found }, true) => {
            return format!(
                "{file} debe ser un objeto {{…}}, no {}.",
                kind(lang, *found)
            );
        }
        (
            E::WrongType {
                key,
                expected: want,
                found,
            },
            false,
        ) => format!(
            "«{key}» must be {}, not {}.",
            kind(lang, *want),
            kind(lang, *found)
        ),
        (
            E::WrongType {
                key,
                expected: want,
                found,
            },
            true,
        ) => format!(
            "«{key}» debe ser {}, no {}.",
            kind(lang, *want),
            kind(lang, *found)
        ),
        (E::BadValue { key, min, max }, false) => format!(
            "«{key}» must be a whole number from {} to {}.",
            n(*min),
            n(*max)
        ),
        (E::BadValue { key, min, max }, true) => format!(
            "«{key}» debe ser un número entero entre {} y {}.",
            n(*min),
            n(*max)
        ),
        (
            E::NotAnOption {
                key,
                found,
                allowed,
            },
            false,
        ) => format!("«{key}» «{found}» must be one of: {}.", allowed.join(", ")),
        (
            E::NotAnOption {
                key,
                found,
                allowed,
            },
            true,
        ) => format!("«{key}» «{found}» debe ser uno de: {}.", allowed.join(", ")),
        (E::Contradiction { key, with }, false) => {
            format!("«{key}» and «{with}» cannot both be true.")
        }
        (E::Contradiction { key, with }, true) => {
            format!("«{key}» y «{with}» no pueden ser ambos verdaderos.")
        }
        (
            E::BatchMismatch {
                train_batch_size,
                micro_batch,
                accumulation,
                gpus,
            },
            false,
        ) => format!(
            "«train_batch_size» {train_batch_size} is not «train_micro_batch_size_per_gpu» {micro_batch} × «gradient_accumulation_steps» {accumulation} × {gpus} GPUs."
        ),
        (
            E::BatchMismatch {
                train_batch_size,
                micro_batch,
                accumulation,
                gpus,
            },
            true,
        ) => format!(
            "«train_batch_size» {train_batch_size} no es «train_micro_batch_size_per_gpu» {micro_batch} × «gradient_accumulation_steps» {accumulation} × {gpus} GPUs."
        ),
        (
            E::Mismatch {
                key,
                deepspeed,
                trainer_key,
                trainer,
            },
            false,
        ) => format!(
            "«{key}» is {deepspeed} but the TrainingArguments' «{trainer_key}» gives {trainer}: set it to \"auto\" or make them agree."
        ),
        (
            E::Mismatch {
                key,
                deepspeed,
                trainer_key,
                trainer,
            },
            true,
        ) => format!(
            "«{key}» es {deepspeed} pero «{trainer_key}» de los TrainingArguments da {trainer}: póngalo en \"auto\" o haga que coincidan."
        ),
    };
    format!("{within} {what}")
}

/// What a read DeepSpeed config or TrainingArguments says that the estimate
/// does not follow exactly.
pub fn file_note(lang: Lang, note: &import::Note) -> String {
    use import::Note as N;
    let es = lang == Lang::Es;
    match (note, es) {
        (N::NotModelled { key, elements: Some(e) }, false) => format!("«{key}» ({} elements) is not modelled: the estimate leaves it out.", i18n::group(lang, u128::from(*e))),
        (N::NotModelled { key, elements: Some(e) }, true) => format!("«{key}» ({} elementos) no está modelado: la estimación lo deja fuera.", i18n::group(lang, u128::from(*e))),
        (N::NotModelled { key, elements: None }, false) => format!("«{key}» is not modelled: the estimate leaves it out."),
        (N::NotModelled { key, elements: None }, true) => format!("«{key}» no está modelado: la estimación lo deja fuera."),
        (N::Auto { key, needs: import::Needs::TrainingArgs }, false) => format!("«{key}» is \"auto\", which the Trainer fills from TrainingArguments: the form's value applies."),
        (N::Auto { key, needs: import::Needs::TrainingArgs }, true) => format!("«{key}» es \"auto\", que el Trainer toma de los TrainingArguments: se usa el valor del formulario."),
        (N::Auto { key, needs: import::Needs::HiddenSize }, false) => format!("«{key}» is \"auto\", which needs the model's hidden size: pick a model first."),
        (N::Auto { key, needs: import::Needs::HiddenSize }, true) => format!("«{key}» es \"auto\", que necesita el tamaño oculto del modelo: elija antes un modelo."),
        (N::UnknownOptimizer { key, name }, false) => format!("«{key}» «{name}» is not an optimizer batchfit models: the optimizer stays as set."),
        (N::UnknownOptimizer { key, name }, true) => format!("«{key}» «{name}» no es un optimizador que batchfit modele: el optimizador queda como está."),
        (N::DeepspeedPath { path }, false) => format!("«deepspeed» names «{path}»: paste that file here too to read it."),
        (N::DeepspeedPath { path }, true) => format!("«deepspeed» nombra «{path}»: pegue también ese archivo aquí para leerlo."),
        (N::ModelCheckpointing, false) => "«activation_checkpointing» acts only where the model's code calls deepspeed.checkpointing: set recomputation to full if it does.".to_owned(),
        (N::ModelCheckpointing, true) => "«activation_checkpointing» solo actúa donde el código del modelo llama a deepspeed.checkpointing: ponga la recomputación en completa si lo hace.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use batchfit_core::fields::{Bound, Range};
    use batchfit_core::import::json::SyntaxError;
    use batchfit_core::query::Param;

    use super::*;

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
    ];

    /// The words of `text` outside quotes («…», “…”) and outside `label`.
    fn words(text: &str, label: &str) -> Vec<String> {
        let text = text.replace(label, " ");
        let mut out = Vec::new();
        let mut quoted = 0u32;
        let mut word = String::new();
        // Identifiers (`gemma3_text`, `qwen2`) are names, not words of a
        // language: a token with a digit or an underscore is skipped.
        let part = |c: char| c.is_alphanumeric() || c == '_';
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
                value: "inference",
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

    fn every_import_error() -> Vec<ImportError> {
        let mut errors: Vec<ImportError> = every_syntax_error().map(ImportError::NotJson).collect();
        for found in Kind::ALL {
            errors.push(ImportError::NotAnObject { found });
            for expected in Kind::ALL {
                errors.push(ImportError::WrongType {
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
            ImportError::Missing { key: "vocab_size" },
            ImportError::BadValue {
                key: "num_hidden_layers",
                range,
                fraction: true,
            },
            ImportError::BadValue {
                key: "num_hidden_layers",
                range,
                fraction: false,
            },
            ImportError::UnknownModelType {
                found: "mamba".to_owned(),
            },
            ImportError::Unsupported {
                key: "num_local_experts",
            },
        ]);
        errors
    }

    fn every_file_error() -> Vec<import::Rejected> {
        use import::FileError as E;
        let mut errors: Vec<E> = every_syntax_error().map(E::NotJson).collect();
        for found in Kind::ALL {
            errors.push(E::NotAnObject { found });
            errors.push(E::WrongType {
                key: "bf16",
                expected: Kind::Bool,
                found,
            });
        }
        errors.extend([
            E::BadValue {
                key: "per_device_train_batch_size",
                min: 1,
                max: 1_000_000_000,
            },
            E::NotAnOption {
                key: "optim",
                found: "adamw_weird".to_owned(),
                allowed: &["adamw_torch", "adafactor"],
            },
            E::Contradiction {
                key: "fp16",
                with: "bf16",
            },
            E::BatchMismatch {
                train_batch_size: 64,
                micro_batch: 4,
                accumulation: 2,
                gpus: 1,
            },
            E::Mismatch {
                key: "train_micro_batch_size_per_gpu",
                deepspeed: "4".to_owned(),
                trainer_key: "per_device_train_batch_size",
                trainer: "8".to_owned(),
            },
        ]);
        errors
            .into_iter()
            .flat_map(|error| {
                [import::Source::Deepspeed, import::Source::TrainingArgs].map(|source| {
                    import::Rejected {
                        source,
                        error: error.clone(),
                    }
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
                .chain(every_import_error().iter().map(|e| import_error(lang, e)))
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
            "Tamaño de lote: falta un valor; escribe un número entre 1 y 1\u{202F}000\u{202F}000."
        );
    }
}
