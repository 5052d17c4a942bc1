//! What the user came for: the headline, the fits badge, the breakdown bar and
//! table, and what would make it fit. Every size carries its exact integer bytes
//! in `data-bytes` (and on hover) so that tests and embedders never parse prose.

use std::rc::Rc;

use batchfit_core::memory::{Change, Estimate, Phase, WhatIf};
use batchfit_core::presets::Device;
use batchfit_core::query::{Config, Form};
use batchfit_core::units::{self, Units};
use leptos::prelude::*;

use crate::charts::{self, BreakdownChart, Component};
use crate::dom::{self, El, el, rx};
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
/// One binding writes all three, and formats only when the bytes, the units
/// or the language changed.
pub fn size(state: State, testid: &str, bytes: Rc<dyn Fn() -> u128>) -> El {
    let span = el("span").class("value").attr("data-testid", testid);
    let (element, text) = (span.0.clone(), span.text_node());
    dom::watch(
        rx(move || (bytes(), state.config.with(|c| c.units), state.lang.get())),
        Box::new(move |&(bytes, units, lang)| {
            let _ = element.set_attribute("data-bytes", &bytes.to_string());
            let _ = element.set_attribute("title", &i18n::exact_bytes(lang, bytes));
            text.set_data(&units::format_bytes(bytes, units));
        }),
    );
    span
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

/// What the estimate reads: the headline, the badge, the breakdown and what
/// would make it fit.
pub fn results(state: State) -> El {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let estimate = state.estimate;
    let config = state.config;
    let bytes = move |pick: fn(&Estimate) -> u128| -> Rc<dyn Fn() -> u128> {
        Rc::new(move || estimate.with(pick))
    };
    let chart = rx(move || {
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
    let chart_label = rx(move || {
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
    let reading = move |testid: &'static str,
                        name: fn(&Words) -> &'static str,
                        note: Option<fn(&Words) -> &'static str>,
                        pick: fn(&Estimate) -> u128| {
        let th = el("th")
            .attr("scope", "row")
            .bind_text(i18n::tr(lang, name));
        let th = match note {
            Some(note) => th.child(el("span").class("note").bind_text(i18n::tr(lang, note))),
            None => th,
        };
        el("tr")
            .child(th)
            .child(el("td").child(size(state, testid, bytes(pick))))
    };
    // A row holding a whole number (parameters, the largest batch that fits,
    // accumulation steps, GPUs needed), present while its value is `Some`:
    // built when it appears; one binding then writes its number.
    let count_row = move |body: El,
                          testid: &'static str,
                          label: fn(&Words) -> &'static str,
                          value: Rc<dyn Fn() -> Option<u128>>| {
        let shown = value.clone();
        body.list(
            rx(move || usize::from(shown().is_some())),
            Box::new(move |_| {
                let cell = el("td").class("value").attr("data-testid", testid);
                let (element, text) = (cell.0.clone(), cell.text_node());
                let value = value.clone();
                dom::watch(
                    rx(move || (value().unwrap_or(0), lang.get())),
                    Box::new(move |&(number, lang)| {
                        let _ = element.set_attribute("data-value", &number.to_string());
                        text.set_data(&i18n::group(lang, number));
                    }),
                );
                el("tr")
                    .child(
                        el("th")
                            .attr("scope", "row")
                            .bind_text(i18n::tr(lang, label)),
                    )
                    .child(cell)
            }),
        )
    };
    let swatch =
        |component: Component| el("span").class(&format!("swatch {}", swatch_class(component)));
    let body = el("tbody")
        // One row per component present; an edit updates the numbers in place,
        // and the rows are built again only when the set of components changes
        // (a KV cache in inference).
        .switch(
            rx(move || {
                estimate.with(|e| components(e).iter().fold(0, |set, &c| set | 1 << c as u32))
            }),
            Box::new(move |_| {
                estimate
                    .with_untracked(components)
                    .into_iter()
                    .map(|component| {
                        el("tr")
                            .child(
                                el("th")
                                    .attr("scope", "row")
                                    .child(swatch(component))
                                    .bind_text(rx(move || {
                                        component_label(w(), component).to_owned()
                                    })),
                            )
                            .child(el("td").child(size(
                                state,
                                component_testid(component),
                                Rc::new(move || estimate.with(|e| component_bytes(e, component))),
                            )))
                    })
                    .collect()
            }),
        )
        .child(
            reading(
                "activations-per-sample",
                |w| w.activations_per_sample,
                None,
                |e| e.activations_per_sample,
            )
            .class("sub"),
        )
        .child(
            reading(
                "total",
                |w| w.peak_allocated,
                Some(|w| w.peak_allocated_note),
                |e| e.peak_allocated,
            )
            .class("sum"),
        )
        .child(reading(
            "peak-reserved",
            |w| w.peak_reserved,
            Some(|w| w.peak_reserved_note),
            |e| e.peak_reserved,
        ))
        .child(
            el("tr")
                .child(
                    el("th")
                        .attr("scope", "row")
                        .child(swatch(Component::Overhead))
                        .bind_text(i18n::tr(lang, |w| w.overhead)),
                )
                .child(el("td").child(size(state, "overhead", bytes(|e| e.overhead)))),
        )
        .child(reading(
            "nvidia-smi",
            |w| w.nvidia_smi,
            Some(|w| w.nvidia_smi_note),
            |e| e.nvidia_smi,
        ))
        .child(
            reading(
                "required",
                |w| w.required,
                Some(|w| w.required_note),
                |e| e.required,
            )
            .class("sum required"),
        )
        .child(
            el("tr")
                .child(
                    el("th")
                        .attr("scope", "row")
                        .bind_text(i18n::tr(lang, |w| w.peak_phase)),
                )
                .child(
                    el("td")
                        .class("phase")
                        .attr("data-testid", "peak-phase")
                        .bind_attr(
                            "data-value",
                            rx(move || Some(estimate.with(|e| e.peak_phase.name()).to_owned())),
                        )
                        .bind_text(rx(move || {
                            phase_words(w(), estimate.with(|e| e.peak_phase)).to_owned()
                        })),
                ),
        )
        .switch(
            rx(move || u32::from(estimate.with(|e| e.device_bytes.is_some()))),
            Box::new(move |shown| {
                if shown == 0 {
                    return Vec::new();
                }
                vec![reading(
                    "device-bytes",
                    |w| w.capacity,
                    None,
                    |e| e.device_bytes.unwrap_or(0),
                )]
            }),
        );
    let body = count_row(
        body,
        "parameters",
        |w| w.parameters,
        Rc::new(move || estimate.with(|e| (e.parameters > 0).then_some(e.parameters))),
    );
    let body = count_row(
        body,
        "max-batch",
        |w| w.max_batch,
        Rc::new(move || estimate.with(|e| e.max_batch.map(u128::from))),
    );
    let body = count_row(
        body,
        "accumulation-steps",
        |w| w.accumulation,
        Rc::new(move || estimate.with(|e| e.accumulation_steps.map(u128::from))),
    );
    let body = count_row(
        body,
        "gpus-needed",
        |w| w.gpus_needed,
        Rc::new(move || {
            let too_small = estimate.with(|e| e.fits == Some(false));
            state
                .gpus_needed
                .get()
                .filter(|&n| n > 1 && too_small)
                .map(u128::from)
        }),
    );
    el("div")
        .class("result-card")
        .bind_class("stale", rx(move || state.stale()))
        .attr("data-testid", "results")
        .bind_attr("data-stale", rx(move || Some(state.stale().to_string())))
        .switch(
            rx(move || u32::from(state.stale())),
            Box::new(move |stale| {
                if stale == 0 {
                    return Vec::new();
                }
                vec![
                    el("p")
                        .class("stale-note")
                        .attr("role", "status")
                        .bind_text(i18n::tr(lang, |w| w.stale)),
                ]
            }),
        )
        .child(
            el("p")
                .class("headline")
                .attr("data-testid", "headline")
                .bind_text(rx(move || {
                    headline(
                        lang.get(),
                        &config.get(),
                        &estimate.get(),
                        state.gpus_needed.get(),
                    )
                })),
        )
        .switch(
            rx(move || {
                estimate.with(|e| match (e.fits, e.device_bytes) {
                    (Some(true), Some(_)) => 1,
                    (Some(false), Some(_)) => 2,
                    _ => 0,
                })
            }),
            Box::new(move |shown| match shown {
                0 => Vec::new(),
                _ => vec![fits_badge(state, shown == 1)],
            }),
        )
        .child(charts::breakdown_canvas(chart, chart_label))
        .child(el("table").class("breakdown").child(body))
        .child(el("p").class("units-note").bind_text(rx(move || {
            match config.get().units {
                Units::Decimal => w().units_note_gb,
                Units::Binary => w().units_note_gib,
            }
            .to_owned()
        })))
        .switch(
            rx(move || u32::from(state.what_ifs.with(|options| !options.is_empty()))),
            Box::new(move |shown| match shown {
                0 => Vec::new(),
                _ => vec![what_ifs(state)],
            }),
        )
}

/// The moment that sets the peak, in words.
fn phase_words(w: &Words, phase: Phase) -> &'static str {
    let index = Phase::ALL.iter().position(|&p| p == phase).unwrap_or(0);
    w.phases[index]
}

/// Fits or not, in words and a symbol (not colour alone), with the margin.
fn fits_badge(state: State, fits: bool) -> El {
    let lang = state.lang;
    el("p")
        .class(if fits { "badge fits" } else { "badge nofit" })
        .attr("data-testid", "fits")
        .attr("data-value", if fits { "true" } else { "false" })
        .child(
            el("span")
                .attr("aria-hidden", "true")
                .text(if fits { "✓ " } else { "✗ " }),
        )
        .child(el("strong").bind_text(rx(move || {
            let w = i18n::words(lang.get());
            if fits { w.fits } else { w.does_not_fit }.to_owned()
        })))
        .bind_text(rx(move || {
            let e = state.estimate.get();
            let device = e.device_bytes.unwrap_or(0);
            let units = state.config.with(|c| c.units);
            let es = lang.get() == Lang::Es;
            let detail = if fits {
                let spare = short(device.saturating_sub(e.required), units);
                if es {
                    format!("sobran {spare}")
                } else {
                    format!("{spare} to spare")
                }
            } else {
                let short_by = short(e.required.saturating_sub(device), units);
                if es {
                    format!("faltan {short_by}")
                } else {
                    format!("short by {short_by}")
                }
            };
            format!(" — {detail}")
        }))
}

/// For a configuration that does not fit: the same estimate with one change
/// each. The items read their change by position, so an edit updates them in
/// place.
fn what_ifs(state: State) -> El {
    let lang = state.lang;
    // One binding writes an item, and only when its change, the language or
    // the units changed.
    let item = move |index: usize| {
        let (label, value) = (el("span"), el("span").class("value"));
        let li = el("li").child(label.clone()).child(value.clone());
        let (element, value_element) = (li.0.clone(), value.0.clone());
        let (label, value) = (label.text_node(), value.text_node());
        dom::watch(
            rx(move || {
                let option = state.what_ifs.with(|options| options.get(index).copied());
                (option, lang.get(), state.config.with(|c| c.units))
            }),
            Box::new(move |&(option, lang, units)| {
                // An item the shorter list no longer has is empty until the list
                // removes it.
                let Some(option) = option else {
                    label.set_data("");
                    value.set_data("");
                    return;
                };
                let fits = option.estimate.fits == Some(true);
                let _ = element.class_list().toggle_with_force("fits", fits);
                let _ = element.set_attribute("data-change", option.change.name());
                let required = option.estimate.required;
                let _ = value_element.set_attribute("data-bytes", &required.to_string());
                label.set_data(&change_label(lang, &option));
                let verdict = match (fits, lang == Lang::Es) {
                    (true, false) => "fits",
                    (true, true) => "cabe",
                    (false, false) => "still does not fit",
                    (false, true) => "sigue sin caber",
                };
                let mark = if fits { "✓ " } else { "✗ " };
                value.set_data(&format!("{} — {mark}{verdict}", short(required, units)));
            }),
        );
        li
    };
    el("section")
        .class("what-ifs")
        .attr("data-testid", "what-ifs")
        .child(el("h3").bind_text(i18n::tr(lang, |w| w.what_if_title)))
        .child(el("ul").list(rx(move || state.what_ifs.with(Vec::len)), Box::new(item)))
}

/// The change in words, with the value it changes to.
fn change_label(lang: Lang, option: &WhatIf) -> String {
    let w = i18n::words(lang);
    match option.change {
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
