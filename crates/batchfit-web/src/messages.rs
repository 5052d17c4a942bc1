//! Every sentence about bad input: a field's problem (from the core's
//! [`Problem`], which carries numbers and names, never words), a rejected
//! pasted file ([`import::Error`]), and an unreadable
//! measurement, each in the page's language (`i18n::Forms`, `i18n::Panels`). The CLI words
//! the same data in English with the core's `Display`; the page never shows
//! those.

use batchfit_core::fields::Problem;
use batchfit_core::import;
use batchfit_core::measured;

use crate::i18n::{Lang, forms, panels};

/// The message under a field (or in the URL notice), naming the field with
/// `label` and, for a numeric field, the range it accepts.
pub fn problem(lang: Lang, label: &str, problem: &Problem) -> String {
    (forms(lang).problem)(label, problem)
}

/// What could not be read in a pasted measurement, naming the line and the
/// forms, units or labels that are read.
pub fn measured_error(lang: Lang, error: &measured::Error) -> String {
    (panels(lang).measured_error)(error)
}

/// Why a pasted config.json, DeepSpeed config or TrainingArguments could not
/// be read, naming the file and the key.
pub fn file_error(lang: Lang, rejected: &import::Rejected) -> String {
    (panels(lang).file_error)(rejected)
}

/// What a read DeepSpeed config or TrainingArguments says that the estimate
/// does not follow exactly.
pub fn file_note(lang: Lang, note: &import::Note) -> String {
    (panels(lang).file_note)(note)
}
