//! One form field: label, input, unit, hint and, when the text is invalid, a
//! message under it naming the allowed range.

use batchfit_core::fields::{HundredthsField, ParamError, Problem, WholeField};
use leptos::prelude::*;

/// The bounds check a text field runs as the user types.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    Whole(WholeField),
    Hundredths(HundredthsField),
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Self::Whole(f) => f.name,
            Self::Hundredths(f) => f.name,
        }
    }

    pub fn error(self, text: &str) -> Option<ParamError> {
        match self {
            Self::Whole(f) => f.parse(text).err(),
            Self::Hundredths(f) => f.parse(text).err(),
        }
    }
}

/// The message shown under a field, in words a person would use.
pub fn message(label: &str, problem: &Problem) -> String {
    match problem {
        Problem::Empty => format!("{label} is empty."),
        Problem::NotANumber => format!("{label} must be a number."),
        Problem::NotWhole => format!("{label} must be a whole number."),
        Problem::OutOfRange { min, max } => format!("{label} must be from {min} to {max}."),
        Problem::NotAnOption { allowed } => {
            format!("{label} must be one of {}.", allowed.join(", "))
        }
        Problem::Unknown => format!("{label} is not a known parameter."),
        Problem::Duplicate => format!("{label} was given more than once."),
        Problem::Conflict { with } => format!("{label} cannot be given together with “{with}”."),
    }
}

/// A numeric text field bound to `text`. It never rewrites what the user typed:
/// an invalid value is marked and explained, and the results keep the last valid one.
#[component]
pub fn NumberField(
    check: Check,
    text: RwSignal<String>,
    label: &'static str,
    unit: &'static str,
    hint: &'static str,
) -> impl IntoView {
    let name = check.name();
    let error = Memo::new(move |_| text.with(|t| check.error(t)));
    let hint_id = format!("{name}-hint");
    let error_id = format!("{name}-error");
    let described_by = {
        let (hint_id, error_id) = (hint_id.clone(), error_id.clone());
        move || match error.with(Option::is_some) {
            true => format!("{hint_id} {error_id}"),
            false => hint_id.clone(),
        }
    };
    let inputmode = match check {
        Check::Whole(_) => "numeric",
        Check::Hundredths(_) => "decimal",
    };
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=name>{label}</label>
            <div class="input-row">
                <input
                    id=name
                    name=name
                    type="text"
                    inputmode=inputmode
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                    aria-invalid=move || error.with(Option::is_some).to_string()
                    aria-describedby=described_by
                />
                <span class="unit">{unit}</span>
            </div>
            <p class="hint" id=hint_id>{hint}</p>
            {move || {
                error.get().map(|e| view! {
                    <p class="error" id=error_id.clone() role="alert" data-testid=format!("error-{name}")>
                        {message(label, &e.problem)}
                    </p>
                })
            }}
        </div>
    }
}
