//! What the user came for: the headline, the fits badge, the breakdown bar and
//! table, and what would make it fit. Every size carries its exact integer bytes
//! in `data-bytes` (and on hover) so that tests and embedders never parse prose.

use batchfit_core::memory::{Change, Estimate, Phase};
use batchfit_core::presets::Device;
use batchfit_core::query::{Config, Form};
use batchfit_core::units::{self, Units};
use leptos::prelude::*;

use crate::charts::{BreakdownCanvas, BreakdownChart, Component};
use crate::i18n::{self, Lang, Words};
use crate::state::State;

/// Three significant figures, for prose: "98.4 GB", "5.37 GB", "171 GB".
pub fn short(bytes: u128, units: Units) -> String {
    let size = units::size(bytes, units);
    let decimals = match size.value() {
        v if size.unit == "B" || v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    size.with_decimals(decimals).to_string()
}

/// A labelled size with its exact bytes in `data-bytes` and in the tooltip.
#[component]
pub fn Size(testid: &'static str, bytes: Signal<u128>, state: State) -> impl IntoView {
    let units = Memo::new(move |_| state.config.get().units);
    view! {
        <span class="value" data-testid=testid data-bytes=move || bytes.get().to_string()
            title=move || i18n::exact_bytes(state.lang.get(), bytes.get())
        >
            {move || units::format_bytes(bytes.get(), units.get())}
        </span>
    }
}

/// The device's display name.
pub fn device_name(device: Device) -> String {
    match device {
        Device::Preset(preset) => preset.name.to_owned(),
        Device::Custom { hundredths_gb } => {
            format!(
                "{} GB",
                batchfit_core::fields::format_hundredths(hundredths_gb)
            )
        }
    }
}

/// The CSS class that paints a component's swatch, `c-` and its test id. The
/// page's Content-Security-Policy forbids inline styles, so the colours live in
/// style/main.css (a test checks they are the charts' colours).
pub fn swatch_class(component: Component) -> String {
    format!("c-{}", component_testid(component))
}

/// "Needs 98.4 GB — fits on H100 80GB: no, 2 GPUs needed".
fn headline(lang: Lang, config: &Config, estimate: &Estimate, gpus: Option<u64>) -> String {
    let units = config.units;
    let needs = short(estimate.required, units);
    let es = lang == Lang::Es;
    let Some(device) = config.device else {
        return if es {
            format!("Necesita {needs}")
        } else {
            format!("Needs {needs}")
        };
    };
    let name = device_name(device);
    let fits = estimate.fits == Some(true);
    let answer = match (fits, es) {
        (true, false) => "yes".to_owned(),
        (true, true) => "sí".to_owned(),
        (false, _) => {
            let no = "no";
            match gpus.filter(|&n| n > 1 && config.form == Form::Transformer) {
                Some(n) if es => format!("{no}, hacen falta {n} GPUs"),
                Some(n) => format!("{no}, {n} GPUs needed"),
                None => no.to_owned(),
            }
        }
    };
    if es {
        format!("Necesita {needs} — ¿cabe en {name}? {answer}")
    } else {
        format!("Needs {needs} — fits on {name}: {answer}")
    }
}

/// The component rows, in the order of the bar: the four terms every form
/// names, and the optimizer step and KV cache only when present.
fn components(e: &Estimate) -> Vec<Component> {
    [
        Component::Weights,
        Component::Gradients,
        Component::OptimizerStates,
        Component::OptimizerStep,
        Component::KvCache,
        Component::Activations,
    ]
    .into_iter()
    .filter(|&c| {
        component_bytes(e, c) > 0 || !matches!(c, Component::OptimizerStep | Component::KvCache)
    })
    .collect()
}

/// A component's share of the estimate (the overhead is what lies beyond the tensors).
fn component_bytes(e: &Estimate, component: Component) -> u128 {
    match component {
        Component::Weights => e.weights,
        Component::Gradients => e.gradients,
        Component::OptimizerStates => e.optimizer_states,
        Component::OptimizerStep => e.optimizer_step,
        Component::KvCache => e.kv_cache,
        Component::Activations => e.activations,
        Component::Overhead => e.required.saturating_sub(e.total),
    }
}

fn component_label(w: &Words, component: Component) -> &'static str {
    match component {
        Component::Weights => w.weights,
        Component::Gradients => w.gradients,
        Component::OptimizerStates => w.optimizer_states,
        Component::OptimizerStep => w.optimizer_step,
        Component::KvCache => w.kv_cache,
        Component::Activations => w.activations,
        Component::Overhead => w.beyond_tensors,
    }
}

fn component_testid(component: Component) -> &'static str {
    match component {
        Component::Weights => "weights",
        Component::Gradients => "gradients",
        Component::OptimizerStates => "optimizer-states",
        Component::OptimizerStep => "optimizer-step",
        Component::KvCache => "kv-cache",
        Component::Activations => "activations",
        Component::Overhead => "overhead",
    }
}

#[component]
pub fn Results(state: State) -> impl IntoView {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let estimate = state.estimate;
    let config = state.config;
    let bytes = move |pick: fn(&Estimate) -> u128| Signal::derive(move || estimate.with(pick));
    let present = Memo::new(move |_| estimate.with(components));
    let has_device = Memo::new(move |_| estimate.with(|e| e.device_bytes.is_some()));
    let bytes_of =
        move |c: Component| Signal::derive(move || estimate.with(|e| component_bytes(e, c)));
    let chart = Signal::derive(move || {
        let e = estimate.get();
        let c = config.get();
        let w = w();
        let segments = components(&e)
            .into_iter()
            .chain([Component::Overhead])
            .map(|c| (c, component_label(w, c).to_owned(), component_bytes(&e, c)))
            .collect();
        BreakdownChart {
            segments,
            capacity: c.device.map(|d| (device_name(d), d.bytes())),
            units: c.units,
            dark: state.dark.get(),
        }
    });
    let chart_label = Signal::derive(move || {
        let e = estimate.get();
        let units = config.get().units;
        let w = w();
        let parts: Vec<String> = components(&e)
            .into_iter()
            .map(|c| {
                format!(
                    "{} {}",
                    component_label(w, c),
                    short(component_bytes(&e, c), units)
                )
            })
            .collect();
        format!(
            "{}: {}; {} {}.",
            w.required,
            parts.join(", "),
            w.beyond_tensors,
            short(e.required - e.total, units)
        )
    });
    view! {
        <div class="result-card" class:stale=move || state.stale.get() data-testid="results"
            data-stale=move || state.stale.get().to_string()
        >
            {move || state.stale.get().then(|| view! { <p class="stale-note" role="status">{w().stale}</p> })}
            <p class="headline" data-testid="headline">
                {move || headline(lang.get(), &config.get(), &estimate.get(), state.gpus_needed.get())}
            </p>
            <FitsBadge state=state />
            <BreakdownCanvas chart=chart label=chart_label />
            <table class="breakdown">
                <tbody>
                    // One row per component present; an edit updates the numbers in
                    // place, and the rows are built again only when the set of
                    // components changes (a KV cache in inference).
                    {move || present.get().into_iter().map(|component| view! {
                        <tr>
                            <th scope="row">
                                <span class=format!("swatch {}", swatch_class(component))></span>
                                {move || component_label(w(), component)}
                            </th>
                            <td><Size testid=component_testid(component) bytes=bytes_of(component) state=state /></td>
                        </tr>
                    }).collect_view()}
                    <tr class="sub">
                        <th scope="row">{i18n::text(lang, |w| w.activations_per_sample)}</th>
                        <td><Size testid="activations-per-sample" bytes=bytes(|e| e.activations_per_sample) state=state /></td>
                    </tr>
                    <tr class="sum">
                        <th scope="row">{i18n::text(lang, |w| w.peak_allocated)}<Note text=i18n::text(lang, |w| w.peak_allocated_note) /></th>
                        <td><Size testid="total" bytes=bytes(|e| e.peak_allocated) state=state /></td>
                    </tr>
                    <tr>
                        <th scope="row">{i18n::text(lang, |w| w.peak_reserved)}<Note text=i18n::text(lang, |w| w.peak_reserved_note) /></th>
                        <td><Size testid="peak-reserved" bytes=bytes(|e| e.peak_reserved) state=state /></td>
                    </tr>
                    <tr>
                        <th scope="row">
                            <span class=format!("swatch {}", swatch_class(Component::Overhead))></span>
                            {i18n::text(lang, |w| w.overhead)}
                        </th>
                        <td><Size testid="overhead" bytes=bytes(|e| e.overhead) state=state /></td>
                    </tr>
                    <tr>
                        <th scope="row">{i18n::text(lang, |w| w.nvidia_smi)}<Note text=i18n::text(lang, |w| w.nvidia_smi_note) /></th>
                        <td><Size testid="nvidia-smi" bytes=bytes(|e| e.nvidia_smi) state=state /></td>
                    </tr>
                    <tr class="sum required">
                        <th scope="row">{i18n::text(lang, |w| w.required)}<Note text=i18n::text(lang, |w| w.required_note) /></th>
                        <td><Size testid="required" bytes=bytes(|e| e.required) state=state /></td>
                    </tr>
                    <tr>
                        <th scope="row">{i18n::text(lang, |w| w.peak_phase)}</th>
                        <td class="phase" data-testid="peak-phase" data-value=move || estimate.get().peak_phase.name()>
                            {move || phase_words(w(), estimate.get().peak_phase)}
                        </td>
                    </tr>
                    {move || has_device.get().then(|| view! {
                        <tr>
                            <th scope="row">{i18n::text(lang, |w| w.capacity)}</th>
                            <td><Size testid="device-bytes" bytes=bytes(|e| e.device_bytes.unwrap_or(0)) state=state /></td>
                        </tr>
                    })}
                    <CountRow testid="parameters" label=|w| w.parameters lang=lang
                        value=Memo::new(move |_| estimate.with(|e| (e.parameters > 0).then_some(e.parameters))) />
                    <CountRow testid="max-batch" label=|w| w.max_batch lang=lang
                        value=Memo::new(move |_| estimate.with(|e| e.max_batch.map(u128::from))) />
                    <CountRow testid="accumulation-steps" label=|w| w.accumulation lang=lang
                        value=Memo::new(move |_| estimate.with(|e| e.accumulation_steps.map(u128::from))) />
                    <CountRow testid="gpus-needed" label=|w| w.gpus_needed lang=lang
                        value=Memo::new(move |_| {
                            let too_small = estimate.with(|e| e.fits == Some(false));
                            state.gpus_needed.get().filter(|&n| n > 1 && too_small).map(u128::from)
                        }) />
                </tbody>
            </table>
            <p class="units-note">
                {move || match config.get().units { Units::Decimal => w().units_note_gb, Units::Binary => w().units_note_gib }}
            </p>
            <WhatIfs state=state />
        </div>
    }
}

/// A row holding a whole number (parameters, the largest batch that fits,
/// accumulation steps, GPUs needed), present while `value` is `Some`. The row is
/// built when it appears; edits then update its number in place.
#[component]
fn CountRow(
    testid: &'static str,
    label: fn(&Words) -> &'static str,
    value: Memo<Option<u128>>,
    lang: RwSignal<Lang>,
) -> impl IntoView {
    let shown = Memo::new(move |_| value.with(Option::is_some));
    let number = move || value.get().unwrap_or(0);
    move || {
        shown.get().then(|| {
            view! {
                <tr>
                    <th scope="row">{i18n::text(lang, label)}</th>
                    <td class="value" data-testid=testid data-value=move || number().to_string()>
                        {move || i18n::group(lang.get(), number())}
                    </td>
                </tr>
            }
        })
    }
}

/// One short sentence under a reading's name: which number it is.
#[component]
fn Note(text: impl Fn() -> &'static str + Send + Sync + 'static) -> impl IntoView {
    view! { <span class="note">{text}</span> }
}

/// The moment that sets the peak, in words.
fn phase_words(w: &Words, phase: Phase) -> &'static str {
    let index = Phase::ALL.iter().position(|&p| p == phase).unwrap_or(0);
    w.phases[index]
}

/// Fits or not, in words and a symbol (not colour alone), with the margin.
#[component]
fn FitsBadge(state: State) -> impl IntoView {
    let lang = state.lang;
    move || {
        let e = state.estimate.get();
        let (fits, device) = (e.fits?, e.device_bytes?);
        let w = i18n::words(lang.get());
        let units = state.config.get().units;
        let es = lang.get() == Lang::Es;
        let detail = if fits {
            let spare = short(device - e.required, units);
            if es {
                format!("sobran {spare}")
            } else {
                format!("{spare} to spare")
            }
        } else {
            let short_by = short(e.required - device, units);
            if es {
                format!("faltan {short_by}")
            } else {
                format!("short by {short_by}")
            }
        };
        Some(view! {
            <p class=if fits { "badge fits" } else { "badge nofit" } data-testid="fits" data-value=fits.to_string()>
                <span aria-hidden="true">{if fits { "✓ " } else { "✗ " }}</span>
                <strong>{if fits { w.fits } else { w.does_not_fit }}</strong>
                {format!(" — {detail}")}
            </p>
        })
    }
}

/// For a configuration that does not fit: the same estimate with one change each.
#[component]
fn WhatIfs(state: State) -> impl IntoView {
    let lang = state.lang;
    move || {
        let options = state.what_ifs.get();
        if options.is_empty() {
            return None;
        }
        let w = i18n::words(lang.get());
        let units = state.config.get().units;
        let es = lang.get() == Lang::Es;
        let items = options
            .into_iter()
            .map(|option| {
                let label = match option.change {
                    Change::HalfBatch => format!("{} ({})", w.half_batch, option.config.batch()),
                    Change::Checkpointing => w.checkpointing.to_owned(),
                    Change::Bf16 => w.bf16.to_owned(),
                    Change::Zero3 { gpus } => format!("{} ({gpus})", w.zero3),
                    Change::HalfSeq => {
                        let seq = match option.config.form {
                            Form::Transformer => option.config.transformer.seq,
                            Form::Activations | Form::Parameters => option.config.activations.seq,
                        };
                        format!("{} ({seq})", w.half_seq)
                    }
                };
                let fits = option.estimate.fits == Some(true);
                let verdict = match (fits, es) {
                    (true, false) => "fits",
                    (true, true) => "cabe",
                    (false, false) => "still does not fit",
                    (false, true) => "sigue sin caber",
                };
                view! {
                    <li class:fits=fits data-change=format!("{:?}", option.change)>
                        <span>{label}</span>
                        <span class="value" data-bytes=option.estimate.required.to_string()>
                            {format!("{} — {}{verdict}", short(option.estimate.required, units), if fits { "✓ " } else { "✗ " })}
                        </span>
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <section class="what-ifs" data-testid="what-ifs">
                <h3>{w.what_if_title}</h3>
                <ul>{items}</ul>
            </section>
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swatches_in_the_stylesheet_have_the_charts_colours() {
        let css = include_str!("../../../style/main.css").to_ascii_lowercase();
        for component in Component::ALL {
            let rule = format!(
                ".{} {{ background: {}; }}",
                swatch_class(component),
                component.color_hex().to_ascii_lowercase()
            );
            assert!(css.contains(&rule), "style/main.css lacks `{rule}`");
        }
    }

    #[test]
    fn every_phase_has_words() {
        for lang in [Lang::En, Lang::Es] {
            let w = i18n::words(lang);
            assert_eq!(Phase::ALL.len(), w.phases.len());
            for &phase in Phase::ALL {
                assert!(!phase_words(w, phase).is_empty());
            }
        }
    }

    #[test]
    fn prose_sizes_have_three_significant_figures() {
        for (bytes, want) in [
            (98_400_000_000, "98.4 GB"),
            (5_368_709_120, "5.37 GB"),
            (171_798_691_840, "172 GB"),
            (999, "999 B"),
        ] {
            assert_eq!(short(bytes, Units::Decimal), want);
        }
    }
}
