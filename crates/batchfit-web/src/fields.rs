//! Form fields bound to the state by URL parameter name. A field never rewrites
//! what the user typed: an invalid value is marked (`aria-invalid`) and explained
//! under the field (`role="alert"`), and the results keep the last valid estimate.

use crate::prelude::*;
use batchfit_core::param::Input;
use batchfit_core::query::{self, Config, Param, rules};

use crate::dom::{El, Ev, Rx, el, rx};
use crate::i18n::{self, Lang};
use crate::messages;
use crate::state::State;

/// Scales the parameter-count field offers, with their powers of ten; ""
/// is an exact count.
pub(crate) const SCALES: [(&str, u32); 5] = [("M", 6), ("B", 9), ("k", 3), ("T", 12), ("", 0)];

/// Splits "7000M" (or "7 B", "7b") into ("7000", "M"); an exact count, or one
/// written with an exponent ("1.3e9"), has no scale.
pub(crate) fn split_count(text: &str) -> (String, &'static str) {
    let trimmed = text.trim();
    SCALES
        .iter()
        .filter(|(s, _)| !s.is_empty())
        .find_map(|&(scale, _)| {
            trimmed
                .strip_suffix(scale)
                .or_else(|| trimmed.strip_suffix(&scale.to_ascii_lowercase()))
                .map(|number| (number.trim_end().to_owned(), scale))
        })
        .unwrap_or_else(|| (trimmed.to_owned(), ""))
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
    name: Param,
    pick: fn(i18n::FieldText) -> &'static str,
) -> Rx<String> {
    rx(move || pick(i18n::field(lang.get(), name)).to_owned())
}

/// Label, hint and error wiring shared by every kind of field.
pub fn frame(state: State, param: Param, controls: Vec<El>) -> El {
    let lang = state.lang;
    let name = param.name();
    // The field's problem; a binding reads it again only when the set of
    // problems changes, and writes only when what it shows changes.
    let error = move || state.problem(param);
    // Shown where the parameter applies (`query::rules`), as the parser
    // reads it, in the form shown: while a field is invalid the results stay
    // with the last valid setup, which may be another form's, and a field
    // that setup has no use for must stay in reach to be fixed.
    let hidden = move || {
        let form = state.form.get();
        (!state
            .config
            .with(|c| rules::applies(param, &Config { form, ..*c })))
        .then(String::new)
    };
    el("div")
        .class("field")
        .bind_attr("hidden", rx(hidden))
        .bind_class("invalid", rx(move || error().is_some()))
        .child(
            el("label")
                .attr("for", name)
                .bind_text(field_text(lang, param, |w| w.label)),
        )
        .child(
            el("div").class("input-row").children(controls).child(
                el("span")
                    .class("unit")
                    .bind_text(field_text(lang, param, |w| w.unit)),
            ),
        )
        .child(
            el("p")
                .class("hint")
                .attr("id", &format!("{name}-hint"))
                .bind_text(field_text(lang, param, |w| w.hint)),
        )
        .show(
            rx(move || error().is_some()),
            Box::new(move || vec![error_line(state, param)]),
        )
}

/// The message under a field whose value is wrong, naming the field and
/// what it takes, in the page's language.
pub fn error_line(state: State, param: Param) -> El {
    let lang = state.lang;
    let name = param.name();
    el("p")
        .class("error")
        .attr("id", &format!("{name}-error"))
        .attr("role", "alert")
        .attr("data-testid", &format!("error-{name}"))
        .bind_text(rx(move || {
            let label = i18n::field(lang.get(), param).label;
            state
                .problem(param)
                .map(|problem| messages::problem(lang.get(), label, &problem))
                .unwrap_or_default()
        }))
}

/// The phone keyboard for a parameter's field: digits only for whole numbers,
/// with a decimal point for decimals and counts.
pub fn inputmode(param: Param) -> &'static str {
    match param.input() {
        Input::Whole => "numeric",
        Input::Decimal | Input::Count | Input::Choice | Input::Switch => "decimal",
        Input::List => "text",
    }
}

/// A numeric text field; its keyboard follows the parameter ([`inputmode`]).
/// Typing edits the state at once; the state it makes becomes the one kept
/// while a later edit is invalid after a pause, or at once when the field
/// loses focus (`change`).
pub fn number_field(state: State, param: Param) -> El {
    let name = param.name();
    let text = state.text(param);
    let invalid = move || state.problem(param).is_some();
    let control = el("input")
        .attr("id", name)
        .attr("name", name)
        .attr("type", "text")
        .attr("inputmode", inputmode(param))
        .attr("autocomplete", "off")
        .attr("spellcheck", "false")
        .bind_prop("value", rx(move || text.get().into()))
        .on(
            Ev::Input,
            Box::new(move |ev| state.edit(param, event_value(&ev))),
        )
        .on(Ev::Change, Box::new(move |_| state.commit()))
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
    frame(state, param, vec![control])
}

/// The field for `param`, by what its value is: a number, a yes/no switch
/// or a choice from its names (`query::choices`).
pub fn field(state: State, param: Param) -> El {
    match (param.input(), query::choices(param)) {
        (Input::Choice, Some(names)) => select_field(state, param, names),
        (Input::Switch, _) => check_field(state, param),
        _ => number_field(state, param),
    }
}

/// The fields of `params`, in a group shown while one of them applies
/// (`query::rules`): hidden, not removed, so that their texts stay and
/// showing them again shows what was typed.
pub fn group(state: State, params: &'static [Param]) -> El {
    el("div")
        .class("form")
        .children(params.iter().map(|&param| field(state, param)))
        .bind_attr("hidden", hidden_unless_one_applies(state, params))
}

/// `hidden` while no parameter of `params` applies to the configuration.
pub fn hidden_unless_one_applies(state: State, params: &'static [Param]) -> Rx<Option<String>> {
    rx(move || {
        let shown = state
            .config
            .with(|c| params.iter().any(|&p| rules::applies(p, c)));
        (!shown).then(String::new)
    })
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
pub fn select_field(state: State, param: Param, values: &'static [&'static str]) -> El {
    let name = param.name();
    let text = state.text(param);
    let lang = state.lang;
    let control = select(
        values,
        Box::new(move |value| rx(move || i18n::option(lang.get(), param, value))),
    )
    .attr("id", name)
    .attr("name", name)
    .attr("aria-describedby", &format!("{name}-hint"))
    .bind_prop("value", rx(move || text.get().into()))
    .on(
        Ev::Change,
        Box::new(move |ev| state.choose(param, event_value(&ev))),
    );
    frame(state, param, vec![control])
}

/// A yes/no switch stored as `1` / `0`.
pub fn check_field(state: State, param: Param) -> El {
    let name = param.name();
    let text = state.text(param);
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
                            Ev::Change,
                            Box::new(move |ev| {
                                let on = if event_checked(&ev) { "1" } else { "0" };
                                state.choose(param, on.to_owned())
                            }),
                        ),
                )
                .child(el("span").bind_text(field_text(lang, param, |w| w.label))),
        )
        .child(
            el("p")
                .class("hint")
                .attr("id", &format!("{name}-hint"))
                .bind_text(field_text(lang, param, |w| w.hint)),
        )
}
