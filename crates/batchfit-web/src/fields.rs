//! Form fields bound to the state by URL parameter name. A field never rewrites
//! what the user typed: an invalid value is marked (`aria-invalid`) and explained
//! under the field (`role="alert"`), and the results keep the last valid estimate.

use batchfit_core::fields::Problem;
use leptos::prelude::*;

use crate::i18n::{self, Lang};
use crate::state::State;

/// The message under a field, in words a person would use.
pub fn message(lang: Lang, label: &str, problem: &Problem) -> String {
    let es = lang == Lang::Es;
    match problem {
        Problem::Empty if es => format!("{label}: falta un valor."),
        Problem::Empty => format!("{label} is empty."),
        Problem::NotANumber if es => format!("{label} debe ser un número."),
        Problem::NotANumber => format!("{label} must be a number."),
        Problem::NotWhole if es => format!("{label} debe ser un número entero."),
        Problem::NotWhole => format!("{label} must be a whole number."),
        Problem::OutOfRange { min, max } => {
            let (min, max) = (i18n::regroup(lang, min), i18n::regroup(lang, max));
            if es {
                format!("{label} debe estar entre {min} y {max}.")
            } else {
                format!("{label} must be from {min} to {max}.")
            }
        }
        Problem::NotAnOption { allowed } if es => {
            format!("{label} debe ser uno de: {}.", allowed.join(", "))
        }
        Problem::NotAnOption { allowed } => {
            format!("{label} must be one of: {}.", allowed.join(", "))
        }
        Problem::Unknown if es => format!("{label} no es un parámetro conocido."),
        Problem::Unknown => format!("{label} is not a known parameter."),
        Problem::Duplicate if es => format!("{label} aparece más de una vez."),
        Problem::Duplicate => format!("{label} was given more than once."),
        Problem::Conflict { with } if es => format!("{label} no puede ir junto con “{with}”."),
        Problem::Conflict { with } => format!("{label} cannot be given together with “{with}”."),
    }
}

/// Label, hint and error wiring shared by every kind of field.
pub fn frame(state: State, name: &'static str, control: AnyView) -> impl IntoView {
    let lang = state.lang;
    let words = move || i18n::field(lang.get(), name);
    let error = Memo::new(move |_| state.problem(name));
    let hint_id = format!("{name}-hint");
    let error_id = format!("{name}-error");
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=name>{move || words().label}</label>
            <div class="input-row">
                {control}
                <span class="unit">{move || words().unit}</span>
            </div>
            <p class="hint" id=hint_id>{move || words().hint}</p>
            {move || error.get().map(|problem| view! {
                <p class="error" id=error_id.clone() role="alert" data-testid=format!("error-{name}")>
                    {message(lang.get(), words().label, &problem)}
                </p>
            })}
        </div>
    }
}

/// A numeric text field. `decimal` picks the phone keyboard with a decimal point.
#[component]
pub fn NumberField(
    state: State,
    name: &'static str,
    #[prop(optional)] decimal: bool,
) -> impl IntoView {
    let text = state.text(name);
    let invalid = Memo::new(move |_| state.problem(name).is_some());
    let control = view! {
        <input
            id=name
            name=name
            type="text"
            inputmode=if decimal { "decimal" } else { "numeric" }
            autocomplete="off"
            spellcheck="false"
            prop:value=move || text.get()
            on:input=move |ev| text.set(event_target_value(&ev))
            aria-invalid=move || invalid.get().to_string()
            aria-describedby=move || if invalid.get() {
                format!("{name}-hint {name}-error")
            } else {
                format!("{name}-hint")
            }
        />
    }
    .into_any();
    frame(state, name, control)
}

/// A select over the URL spellings `values`, labelled in the page's language.
#[component]
pub fn SelectField(
    state: State,
    name: &'static str,
    values: &'static [&'static str],
) -> impl IntoView {
    let text = state.text(name);
    let lang = state.lang;
    let control = view! {
        <select id=name name=name aria-describedby=format!("{name}-hint")
            prop:value=move || text.get()
            on:change=move |ev| text.set(event_target_value(&ev))
        >
            {values.iter().map(|&value| view! {
                <option value=value selected=move || text.with(|t| t == value)>
                    {move || i18n::option(lang.get(), name, value)}
                </option>
            }).collect_view()}
        </select>
    }
    .into_any();
    frame(state, name, control)
}

/// A yes/no switch stored as `1` / `0`.
#[component]
pub fn CheckField(state: State, name: &'static str) -> impl IntoView {
    let text = state.text(name);
    let lang = state.lang;
    let words = move || i18n::field(lang.get(), name);
    view! {
        <div class="field checkbox">
            <label>
                <input type="checkbox" name=name aria-describedby=format!("{name}-hint")
                    prop:checked=move || text.with(|t| t == "1")
                    on:change=move |ev| text.set(if event_target_checked(&ev) { "1" } else { "0" }.to_owned())
                />
                <span>{move || words().label}</span>
            </label>
            <p class="hint" id=format!("{name}-hint")>{move || words().hint}</p>
        </div>
    }
}
