//! Form fields bound to the state by URL parameter name. A field never rewrites
//! what the user typed: an invalid value is marked (`aria-invalid`) and explained
//! under the field (`role="alert"`), and the results keep the last valid estimate.

use batchfit_core::fields::Problem;
use leptos::prelude::*;

use crate::dom::{El, Rx, el, rx};
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

/// The value of the form control that fired `event`.
pub fn event_value(event: &web_sys::Event) -> String {
    event
        .target()
        .and_then(|t| js_sys::Reflect::get(&t, &"value".into()).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Whether the checkbox that fired `event` is now checked.
fn event_checked(event: &web_sys::Event) -> bool {
    event
        .target()
        .and_then(|t| js_sys::Reflect::get(&t, &"checked".into()).ok())
        .and_then(|v| v.as_bool())
        .unwrap_or_default()
}

/// A text that follows the field's words in the page's language.
pub fn field_text(
    lang: RwSignal<Lang>,
    name: &'static str,
    pick: fn(i18n::FieldText) -> &'static str,
) -> Rx<String> {
    rx(move || pick(i18n::field(lang.get(), name)).to_owned())
}

/// Label, hint and error wiring shared by every kind of field.
pub fn frame(state: State, name: &'static str, controls: Vec<El>) -> El {
    let lang = state.lang;
    // The field's problem; a binding reads it again only when the set of
    // problems changes, and writes only when what it shows changes.
    let error = move || state.problem(name);
    el("div")
        .class("field")
        .bind_class("invalid", rx(move || error().is_some()))
        .child(
            el("label")
                .attr("for", name)
                .bind_text(field_text(lang, name, |w| w.label)),
        )
        .child(
            el("div").class("input-row").children(controls).child(
                el("span")
                    .class("unit")
                    .bind_text(field_text(lang, name, |w| w.unit)),
            ),
        )
        .child(
            el("p")
                .class("hint")
                .attr("id", &format!("{name}-hint"))
                .bind_text(field_text(lang, name, |w| w.hint)),
        )
        .switch(
            rx(move || u32::from(error().is_some())),
            Box::new(move |shown| {
                (shown == 1)
                    .then(|| {
                        el("p")
                            .class("error")
                            .attr("id", &format!("{name}-error"))
                            .attr("role", "alert")
                            .attr("data-testid", &format!("error-{name}"))
                            .bind_text(rx(move || {
                                let label = i18n::field(lang.get(), name).label;
                                error()
                                    .map(|problem| message(lang.get(), label, &problem))
                                    .unwrap_or_default()
                            }))
                    })
                    .into_iter()
                    .collect()
            }),
        )
}

/// A numeric text field. `decimal` picks the phone keyboard with a decimal point.
pub fn number_field(state: State, name: &'static str, decimal: bool) -> El {
    let text = state.text(name);
    let invalid = move || state.problem(name).is_some();
    let control = el("input")
        .attr("id", name)
        .attr("name", name)
        .attr("type", "text")
        .attr("inputmode", if decimal { "decimal" } else { "numeric" })
        .attr("autocomplete", "off")
        .attr("spellcheck", "false")
        .bind_prop("value", rx(move || text.get().into()))
        .on("input", Box::new(move |ev| text.set(event_value(&ev))))
        .bind_attr("aria-invalid", rx(move || Some(invalid().to_string())))
        .bind_attr(
            "aria-describedby",
            rx(move || {
                Some(if invalid() {
                    format!("{name}-hint {name}-error")
                } else {
                    format!("{name}-hint")
                })
            }),
        );
    frame(state, name, vec![control])
}

/// A `<select>` over `values`, each option labelled by `label`; the caller
/// binds its value after this (once the options exist, a value can select one).
pub fn select(
    values: &'static [&'static str],
    label: Box<dyn Fn(&'static str) -> Rx<String>>,
) -> El {
    el("select").children(
        values
            .iter()
            .map(|&value| el("option").attr("value", value).bind_text(label(value))),
    )
}

/// A select over the URL spellings `values`, labelled in the page's language.
pub fn select_field(state: State, name: &'static str, values: &'static [&'static str]) -> El {
    let text = state.text(name);
    let lang = state.lang;
    let control = select(
        values,
        Box::new(move |value| rx(move || i18n::option(lang.get(), name, value))),
    )
    .attr("id", name)
    .attr("name", name)
    .attr("aria-describedby", &format!("{name}-hint"))
    .bind_prop("value", rx(move || text.get().into()))
    .on("change", Box::new(move |ev| text.set(event_value(&ev))));
    frame(state, name, vec![control])
}

/// A yes/no switch stored as `1` / `0`.
pub fn check_field(state: State, name: &'static str) -> El {
    let text = state.text(name);
    let lang = state.lang;
    el("div")
        .class("field checkbox")
        .child(
            el("label")
                .child(
                    el("input")
                        .attr("type", "checkbox")
                        .attr("name", name)
                        .attr("aria-describedby", &format!("{name}-hint"))
                        .bind_prop("checked", rx(move || text.with(|t| t == "1").into()))
                        .on(
                            "change",
                            Box::new(move |ev| {
                                text.set(if event_checked(&ev) { "1" } else { "0" }.to_owned())
                            }),
                        ),
                )
                .child(el("span").bind_text(field_text(lang, name, |w| w.label))),
        )
        .child(
            el("p")
                .class("hint")
                .attr("id", &format!("{name}-hint"))
                .bind_text(field_text(lang, name, |w| w.hint)),
        )
}
