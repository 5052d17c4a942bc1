//! The three forms and the device panel they share. Fields are bound by URL
//! parameter name; values shared between forms (batch, sequence, hidden size,
//! layers, precision) are one text each, so switching forms keeps them.

use batchfit_core::fields::Problem;
use batchfit_core::hf::{self, ImportError};
use batchfit_core::query::Form;
use batchfit_core::transformer::{self as tf, Kind, Mode};
use batchfit_core::{Precision, parameters, presets};
use leptos::prelude::*;

use crate::fields::{CheckField, NumberField, SelectField};
use crate::i18n::{self, Lang};
use crate::state::{CUSTOM_DEVICE, State};

#[component]
pub fn ActivationsForm(state: State) -> impl IntoView {
    view! {
        <NumberField state=state name="batch" />
        <NumberField state=state name="seq" />
        <NumberField state=state name="hidden" />
        <NumberField state=state name="layers" />
        <SelectField state=state name="precision" values=Precision::NAMES />
        <NumberField state=state name="k" decimal=true />
        <CheckField state=state name="ckpt" />
    }
}

#[component]
pub fn ParametersForm(state: State) -> impl IntoView {
    view! {
        <ParamsField state=state />
        <SelectField state=state name="precision" values=Precision::NAMES />
        <SelectField state=state name="optimizer" values=parameters::Optimizer::NAMES />
        <NumberField state=state name="batch" />
        <NumberField state=state name="act_mb" decimal=true />
    }
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
#[component]
fn ParamsField(state: State) -> impl IntoView {
    let text = state.text("params");
    let lang = state.lang;
    let parts = Memo::new(move |_| text.with(|t| split_count(t)));
    let error = Memo::new(move |_| state.problem("params"));
    let words = move || i18n::field(lang.get(), "params");
    // Powers of ten rather than words: short enough for a phone, and free of
    // the English/Spanish "billion" ambiguity (10⁹ vs 10¹²).
    let scale_label = move |scale: &str| -> &'static str {
        match scale {
            "k" => "k (10³)",
            "M" => "M (10⁶)",
            "B" => "B (10⁹)",
            "T" => "T (10¹²)",
            _ if lang.get() == Lang::Es => "exacto",
            _ => "exact",
        }
    };
    let control = view! {
        <input id="params" name="params" type="text" inputmode="decimal" autocomplete="off"
            spellcheck="false" aria-describedby="params-hint"
            aria-invalid=move || error.with(Option::is_some).to_string()
            prop:value=move || parts.get().0
            on:input=move |ev| text.set(format!("{}{}", event_target_value(&ev), parts.get_untracked().1))
        />
        <select name="params_scale" aria-label=move || words().label class="scale"
            prop:value=move || parts.get().1
            on:change=move |ev| text.set(format!("{}{}", parts.get_untracked().0, event_target_value(&ev)))
        >
            {SCALES.iter().map(|&scale| view! {
                <option value=scale selected=move || parts.get().1 == scale>{move || scale_label(scale)}</option>
            }).collect_view()}
        </select>
    }
    .into_any();
    crate::fields::frame(state, "params", control)
}

#[component]
pub fn TransformerForm(state: State) -> impl IntoView {
    let mode = Memo::new(move |_| state.text("mode").with(|m| Mode::parse(m)));
    let kind = Memo::new(move |_| state.text("kind").with(|k| Kind::parse(k)));
    let lang = state.lang;
    let zero_values: &'static [&'static str] = &["0", "1", "2", "3"];
    view! {
        <ModelPicker state=state />
        <ConfigImport state=state />
        <SelectField state=state name="kind" values=Kind::NAMES />
        <NumberField state=state name="layers" />
        <NumberField state=state name="hidden" />
        <NumberField state=state name="heads" />
        <NumberField state=state name="kv_heads" />
        <NumberField state=state name="ffn" />
        <SelectField state=state name="mlp" values=tf::Mlp::NAMES />
        {move || (kind.get() != Some(Kind::Vision)).then(|| view! {
            <NumberField state=state name="vocab" />
            <CheckField state=state name="tied" />
        })}
        {move || (kind.get() == Some(Kind::Vision)).then(|| view! {
            <NumberField state=state name="image" />
            <NumberField state=state name="patch" />
        })}
        <details class="more">
            <summary>{i18n::text(lang, |w| w.more_architecture)}</summary>
            <div class="form-grid">
                <NumberField state=state name="head_dim" />
                <SelectField state=state name="norm" values=tf::Norm::NAMES />
                <CheckField state=state name="bias" />
                <CheckField state=state name="qkv_bias" />
                <NumberField state=state name="positions" />
                <NumberField state=state name="token_types" />
                <NumberField state=state name="labels" />
                <CheckField state=state name="dropout" />
                <NumberField state=state name="channels" />
            </div>
        </details>
        <h3 class="group-title">{i18n::text(lang, |w| w.training_title)}</h3>
        <FrameworkPicker state=state />
        <SelectField state=state name="mode" values=Mode::NAMES />
        <NumberField state=state name="batch" />
        <NumberField state=state name="seq" />
        {move || (mode.get() == Some(Mode::Inference)).then(|| view! {
            <NumberField state=state name="gen" />
            <SelectField state=state name="quant" values=tf::Quant::NAMES />
        })}
        <SelectField state=state name="recipe" values=tf::Recipe::NAMES />
        {move || (mode.get() != Some(Mode::Inference)).then(|| view! {
            <SelectField state=state name="optimizer" values=tf::Optimizer::NAMES />
            <SelectField state=state name="recompute" values=tf::Recompute::NAMES />
            <SelectField state=state name="step" values=tf::Step::NAMES />
            <SelectField state=state name="loss" values=tf::Loss::NAMES />
            <SelectField state=state name="logits" values=tf::Logits::NAMES />
            <CheckField state=state name="act_offload" />
            <CheckField state=state name="offload" />
            <NumberField state=state name="bucket_m" />
            <NumberField state=state name="prefetch" />
        })}
        <SelectField state=state name="attn" values=tf::Attention::NAMES />
        <h3 class="group-title">{i18n::text(lang, |w| w.parallelism_title)}</h3>
        <NumberField state=state name="gpus" />
        <SelectField state=state name="zero" values=zero_values />
        <NumberField state=state name="tp" />
        <CheckField state=state name="sp" />
    }
}

/// Picking a framework loads the settings its source code implies (recipe,
/// optimizer step, loss, buckets, task) into the fields; each stays editable.
#[component]
fn FrameworkPicker(state: State) -> impl IntoView {
    let text = state.text("framework");
    let lang = state.lang;
    let pick = move |name: String| {
        let Some(framework) = tf::Framework::parse(&name) else {
            return;
        };
        state.load_with(|config| framework.apply(&mut config.transformer));
    };
    view! {
        <div class="field">
            <label for="framework">{move || i18n::field(lang.get(), "framework").label}</label>
            <select id="framework" name="framework" aria-describedby="framework-hint"
                prop:value=move || text.get()
                on:change=move |ev| pick(event_target_value(&ev))
            >
                {tf::Framework::NAMES.iter().map(|&value| view! {
                    <option value=value selected=move || text.with(|t| t == value)>
                        {move || i18n::option(lang.get(), "framework", value)}
                    </option>
                }).collect_view()}
            </select>
            <p class="hint" id="framework-hint">{move || i18n::field(lang.get(), "framework").hint}</p>
        </div>
    }
}

/// Picking a preset loads its architecture into the fields.
#[component]
fn ModelPicker(state: State) -> impl IntoView {
    let text = state.text("model");
    let lang = state.lang;
    let pick = move |id: String| {
        state.load_with(|config| {
            config.model = presets::model(&id);
            if let Some(preset) = config.model {
                config.transformer.arch = preset.arch;
            }
        });
        text.set(id);
    };
    view! {
        <div class="field">
            <label for="model">{move || i18n::field(lang.get(), "model").label}</label>
            <select id="model" name="model" aria-describedby="model-hint"
                prop:value=move || text.get()
                on:change=move |ev| pick(event_target_value(&ev))
            >
                <option value="" selected=move || text.with(String::is_empty)>{i18n::text(lang, |w| w.custom_model)}</option>
                {presets::MODELS.iter().map(|m| view! {
                    <option value=m.id selected=move || text.with(|t| t == m.id)>{format!("{} ({})", m.name, m.published)}</option>
                }).collect_view()}
            </select>
            <p class="hint" id="model-hint">{move || i18n::field(lang.get(), "model").hint}</p>
        </div>
    }
}

/// A pasted config.json replaces the architecture; text that is not a usable
/// config is explained and the previous architecture stays.
#[component]
fn ConfigImport(state: State) -> impl IntoView {
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
    view! {
        <details class="more">
            <summary>{i18n::text(lang, |w| w.paste_config)}</summary>
            <div class="field">
                <textarea name="config_json" rows="6" spellcheck="false" aria-describedby="config-json-hint"
                    aria-label=i18n::text(lang, |w| w.paste_config)
                    on:input=move |ev| import(event_target_value(&ev))
                ></textarea>
                <p class="hint" id="config-json-hint">{i18n::text(lang, |w| w.paste_hint)}</p>
                {move || outcome.get().map(|result| match result {
                    Ok(()) => view! {
                        <p class="ok" role="status" data-testid="config-import">{i18n::words(lang.get()).config_loaded}</p>
                    }.into_any(),
                    Err(error) => view! {
                        <p class="error" role="alert" data-testid="config-import-error">{import_message(lang.get(), &error)}</p>
                    }.into_any(),
                })}
            </div>
        </details>
    }
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
#[component]
pub fn DevicePanel(state: State) -> impl IntoView {
    let device = state.text("gpu");
    let lang = state.lang;
    view! {
        <div class="field">
            <label for="gpu">{move || i18n::field(lang.get(), "gpu").label}</label>
            <select id="gpu" name="gpu" aria-describedby="gpu-hint"
                prop:value=move || device.get()
                on:change=move |ev| device.set(event_target_value(&ev))
            >
                <option value="" selected=move || device.with(String::is_empty)>{i18n::text(lang, |w| w.no_device)}</option>
                {presets::DEVICES.iter().map(|d| view! {
                    <option value=d.id selected=move || device.with(|t| t == d.id)>{d.name}</option>
                }).collect_view()}
                <option value=CUSTOM_DEVICE selected=move || device.with(|t| t == CUSTOM_DEVICE)>{i18n::text(lang, |w| w.custom_device)}</option>
            </select>
            <p class="hint" id="gpu-hint">{move || i18n::field(lang.get(), "gpu").hint}</p>
        </div>
        {move || device.with(|d| d == CUSTOM_DEVICE).then(|| view! {
            <NumberField state=state name="gpu_gb" decimal=true />
        })}
        <NumberField state=state name="overhead_gb" decimal=true />
        <NumberField state=state name="margin" decimal=true />
        <NumberField state=state name="global_batch" />
    }
}

/// The form switch: one tab per form, with when to use it.
#[component]
pub fn FormTabs(state: State) -> impl IntoView {
    let lang = state.lang;
    view! {
        <nav class="tabs" aria-label=i18n::text(lang, |w| w.forms)>
            {Form::ALL.iter().enumerate().map(|(i, &form)| view! {
                <button type="button" class="tab"
                    data-testid=format!("form-{}", form.name())
                    aria-pressed=move || (state.form.get() == form).to_string()
                    on:click=move |_| state.form.set(form)
                >
                    <span class="tab-title">{move || i18n::words(lang.get()).tabs[i].0}</span>
                    <span class="tab-desc">{move || i18n::words(lang.get()).tabs[i].1}</span>
                </button>
            }).collect_view()}
        </nav>
    }
}

/// The inputs of the current form, then the device panel.
#[component]
pub fn Inputs(state: State) -> impl IntoView {
    view! {
        <form class="form" on:submit=|ev| ev.prevent_default()>
            {move || match state.form.get() {
                Form::Activations => view! { <ActivationsForm state=state /> }.into_any(),
                Form::Parameters => view! { <ParametersForm state=state /> }.into_any(),
                Form::Transformer => view! { <TransformerForm state=state /> }.into_any(),
            }}
            <h3 class="group-title">{i18n::text(state.lang, |w| w.device_title)}</h3>
            <DevicePanel state=state />
        </form>
    }
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
