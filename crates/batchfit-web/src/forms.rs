//! The three forms and the device panel they share. Fields are bound by URL
//! parameter name; values shared between forms (batch, sequence, hidden size,
//! layers, precision) are one text each, so switching forms keeps them.

use batchfit_core::fields::Problem;
use batchfit_core::hf::{self, ImportError};
use batchfit_core::query::Form;
use batchfit_core::transformer::{self as tf, Kind, Mode};
use batchfit_core::{Precision, parameters, presets};
use leptos::prelude::*;

use crate::dom::{El, Rx, el, rx};
use crate::fields::{self, check_field, event_value, number_field, select_field};
use crate::i18n::{self, Lang};
use crate::state::{CUSTOM_DEVICE, State};

fn activations_form(state: State) -> Vec<El> {
    vec![
        number_field(state, "batch", false),
        number_field(state, "seq", false),
        number_field(state, "hidden", false),
        number_field(state, "layers", false),
        select_field(state, "precision", Precision::NAMES),
        number_field(state, "k", true),
        check_field(state, "ckpt"),
    ]
}

fn parameters_form(state: State) -> Vec<El> {
    vec![
        params_field(state),
        select_field(state, "precision", Precision::NAMES),
        select_field(state, "optimizer", parameters::Optimizer::NAMES),
        number_field(state, "batch", false),
        number_field(state, "act_mb", true),
    ]
}

/// Scales the parameter-count field offers; "" is an exact count.
const SCALES: [&str; 5] = ["M", "B", "k", "T", ""];

/// Splits "7000M" into ("7000", "M"); an exact count has no scale.
fn split_count(text: &str) -> (String, &'static str) {
    let trimmed = text.trim();
    SCALES
        .iter()
        .filter(|s| !s.is_empty())
        .find_map(|&scale| {
            trimmed
                .strip_suffix(scale)
                .or_else(|| trimmed.strip_suffix(&scale.to_ascii_lowercase()))
                .map(|number| (number.to_owned(), scale))
        })
        .unwrap_or_else(|| (trimmed.to_owned(), ""))
}

/// The parameter count: a number and an M/B selector ("7000" with M is 7B),
/// written together into the `params` text.
fn params_field(state: State) -> El {
    let text = state.text("params");
    let lang = state.lang;
    let parts = move || text.with(|t| split_count(t));
    let untracked_parts = move || text.with_untracked(|t| split_count(t));
    // Powers of ten rather than words: short enough for a phone, and free of
    // the English/Spanish "billion" ambiguity (10⁹ vs 10¹²).
    let scale_label = move |scale: &'static str| -> Rx<String> {
        rx(move || {
            match scale {
                "k" => "k (10³)",
                "M" => "M (10⁶)",
                "B" => "B (10⁹)",
                "T" => "T (10¹²)",
                _ if lang.get() == Lang::Es => "exacto",
                _ => "exact",
            }
            .to_owned()
        })
    };
    let number = el("input")
        .attr("id", "params")
        .attr("name", "params")
        .attr("type", "text")
        .attr("inputmode", "decimal")
        .attr("autocomplete", "off")
        .attr("spellcheck", "false")
        .attr("aria-describedby", "params-hint")
        .bind_attr(
            "aria-invalid",
            rx(move || Some(state.problem("params").is_some().to_string())),
        )
        .bind_prop("value", rx(move || parts().0.into()))
        .on(
            "input",
            Box::new(move |ev| text.set(format!("{}{}", event_value(&ev), untracked_parts().1))),
        );
    let scale = fields::select(&SCALES, Box::new(scale_label))
        .attr("name", "params_scale")
        .class("scale")
        .bind_attr(
            "aria-label",
            rx(move || Some(i18n::field(lang.get(), "params").label.to_owned())),
        )
        .bind_prop("value", rx(move || parts().1.into()))
        .on(
            "change",
            Box::new(move |ev| text.set(format!("{}{}", untracked_parts().0, event_value(&ev)))),
        );
    fields::frame(state, "params", vec![number, scale])
}

fn transformer_form(state: State) -> Vec<El> {
    let (mode, kind) = (state.text("mode"), state.text("kind"));
    let lang = state.lang;
    let vision = move || kind.with(|k| Kind::parse(k)) == Some(Kind::Vision);
    let inference = move || mode.with(|m| Mode::parse(m)) == Some(Mode::Inference);
    // Fields that do not apply are hidden, not removed: their texts stay in
    // the URL, and switching back shows what was typed.
    let shown_if = |field: El, when: Rx<bool>| {
        field.bind_attr("hidden", rx(move || (!when()).then(String::new)))
    };
    let for_training = move |field: El| shown_if(field, rx(move || !inference()));
    let zero_values: &'static [&'static str] = &["0", "1", "2", "3"];
    vec![
        model_picker(state),
        config_import(state),
        select_field(state, "kind", Kind::NAMES),
        number_field(state, "layers", false),
        number_field(state, "hidden", false),
        number_field(state, "heads", false),
        number_field(state, "kv_heads", false),
        number_field(state, "ffn", false),
        select_field(state, "mlp", tf::Mlp::NAMES),
        shown_if(number_field(state, "vocab", false), rx(move || !vision())),
        shown_if(check_field(state, "tied"), rx(move || !vision())),
        shown_if(number_field(state, "image", false), rx(vision)),
        shown_if(number_field(state, "patch", false), rx(vision)),
        el("details")
            .class("more")
            .child(el("summary").bind_text(i18n::tr(lang, |w| w.more_architecture)))
            .child(el("div").class("form-grid").children([
                number_field(state, "head_dim", false),
                select_field(state, "norm", tf::Norm::NAMES),
                check_field(state, "bias"),
                check_field(state, "qkv_bias"),
                number_field(state, "positions", false),
                number_field(state, "token_types", false),
                number_field(state, "labels", false),
                check_field(state, "dropout"),
                number_field(state, "channels", false),
            ])),
        el("h3")
            .class("group-title")
            .bind_text(i18n::tr(lang, |w| w.training_title)),
        framework_picker(state),
        select_field(state, "mode", Mode::NAMES),
        number_field(state, "batch", false),
        number_field(state, "seq", false),
        shown_if(number_field(state, "gen", false), rx(inference)),
        shown_if(
            select_field(state, "quant", tf::Quant::NAMES),
            rx(inference),
        ),
        select_field(state, "recipe", tf::Recipe::NAMES),
        for_training(select_field(state, "optimizer", tf::Optimizer::NAMES)),
        for_training(select_field(state, "recompute", tf::Recompute::NAMES)),
        for_training(select_field(state, "step", tf::Step::NAMES)),
        for_training(select_field(state, "loss", tf::Loss::NAMES)),
        for_training(select_field(state, "logits", tf::Logits::NAMES)),
        for_training(check_field(state, "act_offload")),
        for_training(check_field(state, "offload")),
        for_training(number_field(state, "bucket_m", false)),
        for_training(number_field(state, "prefetch", false)),
        select_field(state, "attn", tf::Attention::NAMES),
        el("h3")
            .class("group-title")
            .bind_text(i18n::tr(lang, |w| w.parallelism_title)),
        number_field(state, "gpus", false),
        select_field(state, "zero", zero_values),
        number_field(state, "tp", false),
        check_field(state, "sp"),
    ]
}

/// A select that is not bound to a URL parameter's text by name but acts on
/// change (the framework and model pickers), with its label and hint.
fn picker(state: State, name: &'static str, select: El, pick: Box<dyn Fn(String)>) -> El {
    let lang = state.lang;
    el("div")
        .class("field")
        .child(
            el("label")
                .attr("for", name)
                .bind_text(fields::field_text(lang, name, |w| w.label)),
        )
        .child(
            select
                .attr("id", name)
                .attr("name", name)
                .attr("aria-describedby", &format!("{name}-hint"))
                .on("change", Box::new(move |ev| pick(event_value(&ev)))),
        )
        .child(
            el("p")
                .class("hint")
                .attr("id", &format!("{name}-hint"))
                .bind_text(fields::field_text(lang, name, |w| w.hint)),
        )
}

/// Picking a framework loads the settings its source code implies (recipe,
/// optimizer step, loss, buckets, task) into the fields; each stays editable.
fn framework_picker(state: State) -> El {
    let text = state.text("framework");
    let lang = state.lang;
    let select = fields::select(
        tf::Framework::NAMES,
        Box::new(move |value| rx(move || i18n::option(lang.get(), "framework", value))),
    )
    .bind_prop("value", rx(move || text.get().into()));
    picker(
        state,
        "framework",
        select,
        Box::new(move |name| {
            if let Some(framework) = tf::Framework::parse(&name) {
                state.load_with(|config| framework.apply(&mut config.transformer));
            }
        }),
    )
}

/// Picking a preset loads its architecture into the fields.
fn model_picker(state: State) -> El {
    let text = state.text("model");
    let lang = state.lang;
    let select = el("select")
        .child(
            el("option")
                .attr("value", "")
                .bind_text(i18n::tr(lang, |w| w.custom_model)),
        )
        .children(presets::MODELS.iter().map(|m| {
            el("option")
                .attr("value", m.id)
                .text(&format!("{} ({})", m.name, m.published))
        }))
        .bind_prop("value", rx(move || text.get().into()));
    picker(
        state,
        "model",
        select,
        Box::new(move |id| {
            state.load_with(|config| {
                config.model = presets::model(&id);
                if let Some(preset) = config.model {
                    config.transformer.arch = preset.arch;
                }
            });
            text.set(id);
        }),
    )
}

/// A pasted config.json replaces the architecture; text that is not a usable
/// config is explained and the previous architecture stays.
fn config_import(state: State) -> El {
    let lang = state.lang;
    let outcome: RwSignal<Option<Result<(), ImportError>>> = RwSignal::new(None);
    let import = move |text: String| {
        if text.trim().is_empty() {
            outcome.set(None);
            return;
        }
        match hf::import(&text) {
            Ok(arch) => {
                state.load_with(|config| {
                    config.model = None;
                    config.transformer.arch = arch;
                });
                state.text("model").set(String::new());
                outcome.set(Some(Ok(())));
            }
            Err(error) => outcome.set(Some(Err(error))),
        }
    };
    el("details")
        .class("more")
        .child(el("summary").bind_text(i18n::tr(lang, |w| w.paste_config)))
        .child(
            el("div")
                .class("field")
                .child(
                    el("textarea")
                        .attr("name", "config_json")
                        .attr("rows", "6")
                        .attr("spellcheck", "false")
                        .attr("aria-describedby", "config-json-hint")
                        .bind_attr(
                            "aria-label",
                            rx(move || Some(i18n::words(lang.get()).paste_config.to_owned())),
                        )
                        .on("input", Box::new(move |ev| import(event_value(&ev)))),
                )
                .child(
                    el("p")
                        .class("hint")
                        .attr("id", "config-json-hint")
                        .bind_text(i18n::tr(lang, |w| w.paste_hint)),
                )
                .switch(
                    rx(move || {
                        outcome.with(|o| match o {
                            None => 0,
                            Some(Ok(())) => 1,
                            Some(Err(_)) => 2,
                        })
                    }),
                    Box::new(move |shown| match shown {
                        1 => vec![
                            el("p")
                                .class("ok")
                                .attr("role", "status")
                                .attr("data-testid", "config-import")
                                .bind_text(i18n::tr(lang, |w| w.config_loaded)),
                        ],
                        2 => vec![
                            el("p")
                                .class("error")
                                .attr("role", "alert")
                                .attr("data-testid", "config-import-error")
                                .bind_text(rx(move || match outcome.get() {
                                    Some(Err(error)) => import_message(lang.get(), &error),
                                    _ => String::new(),
                                })),
                        ],
                        _ => Vec::new(),
                    }),
                ),
        )
}

fn import_message(lang: Lang, error: &ImportError) -> String {
    if lang == Lang::En {
        // The core's messages start with a lower-case ASCII word.
        let mut text = error.to_string();
        if let Some(first) = text.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        return text + ".";
    }
    match error {
        ImportError::NotJson(e) => {
            format!(
                "El texto no es JSON válido (byte {}: se esperaba {}).",
                e.offset, e.expected
            )
        }
        ImportError::NotAnObject { found } => {
            format!("Un config.json es un objeto {{…}}, no {found}.")
        }
        ImportError::Missing { key } => format!("Al config le falta «{key}»."),
        ImportError::WrongType {
            key,
            expected,
            found,
        } => {
            format!("«{key}» debe ser {expected}, no {found}.")
        }
        ImportError::BadValue {
            key,
            problem: Problem::OutOfRange { min, max },
        } => {
            format!(
                "«{key}» debe estar entre {} y {}.",
                i18n::regroup(lang, min),
                i18n::regroup(lang, max)
            )
        }
        ImportError::BadValue { key, .. } => format!("«{key}» debe ser un número entero."),
        ImportError::UnknownModelType { found } => {
            format!("batchfit no lee el «model_type» \"{found}\".")
        }
        ImportError::Unsupported { key } => {
            format!("«{key}»: los modelos de mezcla de expertos no se modelan.")
        }
    }
}

/// The device, the overhead and the safety margin: shared by every form.
fn device_panel(state: State) -> Vec<El> {
    let device = state.text("gpu");
    let lang = state.lang;
    let select = el("select")
        .child(
            el("option")
                .attr("value", "")
                .bind_text(i18n::tr(lang, |w| w.no_device)),
        )
        .children(
            presets::DEVICES
                .iter()
                .map(|d| el("option").attr("value", d.id).text(d.name)),
        )
        .child(
            el("option")
                .attr("value", CUSTOM_DEVICE)
                .bind_text(i18n::tr(lang, |w| w.custom_device)),
        )
        .bind_prop("value", rx(move || device.get().into()));
    vec![
        picker(state, "gpu", select, Box::new(move |id| device.set(id))),
        number_field(state, "gpu_gb", true).bind_attr(
            "hidden",
            rx(move || device.with(|d| d != CUSTOM_DEVICE).then(String::new)),
        ),
        number_field(state, "overhead_gb", true),
        number_field(state, "margin", true),
        number_field(state, "global_batch", false),
    ]
}

/// The form switch: one tab per form, with when to use it.
pub fn form_tabs(state: State) -> El {
    let lang = state.lang;
    el("nav")
        .class("tabs")
        .bind_attr(
            "aria-label",
            rx(move || Some(i18n::words(lang.get()).forms.to_owned())),
        )
        .children(Form::ALL.iter().enumerate().map(|(i, &form)| {
            el("button")
                .attr("type", "button")
                .class("tab")
                .attr("data-testid", &format!("form-{}", form.name()))
                .bind_attr(
                    "aria-pressed",
                    rx(move || Some((state.form.get() == form).to_string())),
                )
                .on("click", Box::new(move |_| state.form.set(form)))
                .child(
                    el("span")
                        .class("tab-title")
                        .bind_text(rx(move || i18n::words(lang.get()).tabs[i].0.to_owned())),
                )
                .child(
                    el("span")
                        .class("tab-desc")
                        .bind_text(rx(move || i18n::words(lang.get()).tabs[i].1.to_owned())),
                )
        }))
}

/// The inputs of the current form, then the device panel.
pub fn inputs(state: State) -> El {
    el("form")
        .class("form")
        .on("submit", Box::new(|ev| ev.prevent_default()))
        .switch(
            rx(move || {
                let form = state.form.get();
                Form::ALL
                    .iter()
                    .position(|&f| f == form)
                    .unwrap_or_default() as u32
            }),
            Box::new(move |index| match Form::ALL.get(index as usize) {
                Some(Form::Activations) => activations_form(state),
                Some(Form::Parameters) => parameters_form(state),
                _ => transformer_form(state),
            }),
        )
        .child(
            el("h3")
                .class("group-title")
                .bind_text(i18n::tr(state.lang, |w| w.device_title)),
        )
        .children(device_panel(state))
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchfit_core::query;

    #[test]
    fn counts_split_into_number_and_scale() {
        for (text, number, scale) in [
            ("7B", "7", "B"),
            ("7000M", "7000", "M"),
            ("125m", "125", "M"),
            ("1300000000", "1300000000", ""),
            ("", "", ""),
            ("1.3e9", "1.3e9", ""),
        ] {
            assert_eq!(split_count(text), (number.to_owned(), scale), "{text}");
        }
    }

    #[test]
    fn every_form_parameter_is_a_known_url_parameter() {
        for name in ["params", "gpu", "gpu_gb", "model"] {
            assert!(
                query::PARAMETERS_PARAMETERS.contains(&name)
                    || query::COMMON_PARAMETERS.contains(&name)
                    || query::TRANSFORMER_PARAMETERS.contains(&name),
                "{name}"
            );
        }
    }
}
