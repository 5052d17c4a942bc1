//! What the user came for: the headline, the fits badge, the breakdown bar and
//! table, and what would make it fit. Every size carries its exact integer bytes
//! in `data-bytes` (and on hover) so that tests and embedders never parse prose.

use std::rc::Rc;

use crate::prelude::*;
use batchfit_core::confidence::{self, Basis, Fit, Reading, Verdict};
use batchfit_core::memory::{self, Change, Estimate, Phase, WhatIf};
use batchfit_core::query::{Config, Form};
use batchfit_core::units::{self, Units};

use crate::charts::{self, BreakdownChart, Component};
use crate::dom::{self, El, el, rx};
use crate::format::{
    bar_segments, component_label, component_testid, device_name, short, short_count, size,
    swatch_class, terms,
};
use crate::i18n::{self, Lang, Words};
use crate::state::State;

/// "4 data-parallel × tensor-parallel 4 × pipeline 2": the degrees above 1
/// beside the data-parallel ranks, or `None` when there are none.
fn split(lang: Lang, config: &Config, ranks: u64) -> Option<String> {
    let t = &config.transformer;
    let es = lang == Lang::Es;
    let names = if es {
        ["de datos", "tensorial", "de tubería", "de contexto"]
    } else {
        ["data-parallel", "tensor-parallel", "pipeline", "context"]
    };
    let degrees: Vec<String> = [(names[1], t.tp), (names[2], t.pp), (names[3], t.cp)]
        .into_iter()
        .filter(|&(_, degree)| degree > 1)
        .map(|(name, degree)| {
            if es {
                format!("{degree} {name}")
            } else {
                format!("{name} {degree}")
            }
        })
        .collect();
    (!degrees.is_empty()).then(|| format!("{ranks} {} × {}", names[0], degrees.join(" × ")))
}

/// "Needs 98.4 GB — fits on H100 80GB: no, 16 GPUs needed". The activations
/// form headlines its rule's number instead ("Activations 85.90 GB"); what a
/// GPU needs beyond it is [`additions`].
fn headline(lang: Lang, config: &Config, estimate: &Estimate, gpus: Option<u64>) -> String {
    let units = config.units;
    let es = lang == Lang::Es;
    if config.form == Form::Activations {
        let w = i18n::words(lang);
        return format!(
            "{} {}",
            w.activations,
            units::format_bytes(estimate.activations, units)
        );
    }
    let needs = short(estimate.required, units);
    let needs = if es {
        format!("Necesita {needs}")
    } else {
        format!("Needs {needs}")
    };
    match verdict(lang, config, estimate, gpus) {
        Some(verdict) => format!("{needs} — {verdict}"),
        None => needs,
    }
}

/// "fits on H100 80GB: no, 16 GPUs needed", when a device is chosen.
fn verdict(lang: Lang, config: &Config, estimate: &Estimate, gpus: Option<u64>) -> Option<String> {
    let name = device_name(lang, config.device?);
    let es = lang == Lang::Es;
    let answer = match (estimate.fits == Some(true), es) {
        (true, false) => "yes".to_owned(),
        (true, true) => "sí".to_owned(),
        (false, _) => {
            let no = "no";
            let total = gpus
                .filter(|&n| n > 1 && config.form == Form::Transformer)
                .map(|n| memory::total_gpus(config, n));
            let parts = gpus.and_then(|ranks| split(lang, config, ranks));
            match (total, parts) {
                (Some(n), Some(parts)) if es => format!("{no}, hacen falta {n} GPUs ({parts})"),
                (Some(n), Some(parts)) => format!("{no}, {n} GPUs needed ({parts})"),
                (Some(n), None) if es => format!("{no}, hacen falta {n} GPUs"),
                (Some(n), None) => format!("{no}, {n} GPUs needed"),
                (None, _) => no.to_owned(),
            }
        }
    };
    Some(if es {
        format!("¿cabe en {name}? {answer}")
    } else {
        format!("fits on {name}: {answer}")
    })
}

/// Under the activations form's headline: what a GPU needs beyond the rule's
/// number, each addition labelled. For a mixture of experts in the
/// transformer form, its total and active parameters ("46.7B parameters
/// (12.9B active)"). Empty otherwise: the headline is the required memory
/// itself.
fn additions(lang: Lang, config: &Config, e: &Estimate, gpus: Option<u64>) -> String {
    if config.form == Form::Transformer && e.active_parameters < e.parameters {
        let w = i18n::words(lang);
        return format!(
            "{} {} ({} {})",
            short_count(e.parameters),
            w.parameters.to_ascii_lowercase(),
            short_count(e.active_parameters),
            w.active
        );
    }
    if config.form != Form::Activations {
        return String::new();
    }
    let units = config.units;
    let w = i18n::words(lang);
    let mut parts = vec![format!(
        "+ {} {}",
        short(e.allocator_cache(), units),
        w.allocator_cache.to_ascii_lowercase()
    )];
    parts.push(format!(
        "+ {} {}",
        short(e.overhead, units),
        w.overhead.to_ascii_lowercase()
    ));
    if e.margin_bytes() > 0 {
        parts.push(format!(
            "+ {} {}",
            short(e.margin_bytes(), units),
            w.margin.to_ascii_lowercase()
        ));
    }
    let needs = short(e.required, units);
    let total = if lang == Lang::Es {
        format!("= necesita {needs}")
    } else {
        format!("= needs {needs}")
    };
    let line = format!("{} {total}", parts.join(" "));
    match verdict(lang, config, e, gpus) {
        Some(verdict) => format!("{line} — {verdict}"),
        None => line,
    }
}

/// The component rows of the table: the four terms every form names, and the
/// others only when present.
fn components(e: &Estimate) -> Vec<Component> {
    terms(e)
        .into_iter()
        .filter(|&(c, _, own)| {
            own > 0
                || matches!(
                    c,
                    Component::Weights
                        | Component::Gradients
                        | Component::OptimizerStates
                        | Component::Activations
                )
        })
        .map(|(c, _, _)| c)
        .collect()
}

/// A term's (bytes at the peak, own size).
fn term_bytes(e: &Estimate, component: Component) -> (u128, u128) {
    terms(e)
        .into_iter()
        .find(|&(c, _, _)| c == component)
        .map_or((0, 0), |(_, at, own)| (at, own))
}

/// Why a term is (partly) not alive at the peak, when it is not.
fn not_at_peak(w: &Words, e: &Estimate, component: Component) -> Option<&'static str> {
    let (at, own) = term_bytes(e, component);
    // More than its own size: a tied embedding's second gradient at the end
    // of the backward pass. All of it is in the peak.
    if at >= own {
        return None;
    }
    let alive = e.at_peak.activations_alive;
    Some(match component {
        // The gradients created by the last layer's backward pass are alive
        // at its peak (memory::Phase::Backward); the rest come after.
        Component::Gradients if at == 0 => w.not_at_peak_gradients,
        Component::OptimizerStep if alive => w.not_at_peak_step_after,
        Component::OptimizerStep => w.not_at_peak_step_inside,
        Component::Weights => w.not_at_peak_casts,
        // Alive at the peak, but larger at a moment that is not it (the
        // forward's end sets the peak; a recomputed layer comes after).
        _ if at > 0 => w.partly_at_peak,
        _ => w.not_at_peak_freed,
    })
}

/// The bar's legend: one item per segment, with its bytes (`data-bytes`), in
/// the bar's order; a tap shows the exact bytes.
fn bar_legend(state: State) -> El {
    let lang = state.lang;
    let estimate = state.estimate;
    el("ul")
        .class("bar-legend")
        .attr("data-testid", "bar-legend")
        // Built again only when the set of segments changes.
        .rebuild(
            rx(move || {
                estimate.with(|e| {
                    bar_segments(e)
                        .iter()
                        .fold(0, |set, &(c, _)| set | 1 << c as u32)
                })
            }),
            Box::new(move |_| {
                estimate
                    .with_untracked(bar_segments)
                    .into_iter()
                    .map(|(component, _)| {
                        let bytes: Rc<dyn Fn() -> u128> = Rc::new(move || {
                            estimate.with(|e| {
                                bar_segments(e)
                                    .into_iter()
                                    .find(|&(c, _)| c == component)
                                    .map_or(0, |(_, b)| b)
                            })
                        });
                        el("li")
                            .child(el("span").class(&format!("swatch {}", swatch_class(component))))
                            .child(el("span").class("legend-label").bind_text(rx(move || {
                                component_label(i18n::words(lang.get()), component).to_owned()
                            })))
                            .child(size(
                                state,
                                &format!("bar-{}", component_testid(component)),
                                bytes,
                            ))
                    })
                    .collect()
            }),
        )
}

/// What the estimate reads: the headline, the badge, the breakdown and what
/// would make it fit.
pub fn results(state: State) -> El {
    el("div")
        .class("result-card")
        .bind_class("stale", rx(move || state.stale()))
        .attr("data-testid", "results")
        .bind_attr("data-stale", rx(move || Some(state.stale().to_string())))
        .child(summary(state))
        .child(breakdown(state))
        .child(breakdown_table(state))
        .child(crate::stages::stages(state))
        .show(
            rx(move || state.estimate.with(|e| e.optimizer_may_spill)),
            Box::new(move || {
                vec![
                    el("p")
                        .class("legend")
                        .attr("data-testid", "optimizer-may-spill")
                        .bind_text(i18n::tr(state.lang, |w| w.optimizer_may_spill)),
                ]
            }),
        )
        .child(el("p").class("units-note").bind_text(rx(move || {
            let w = i18n::words(state.lang.get());
            let units = match state.config.get().units {
                Units::Decimal => w.units_note_gb,
                Units::Binary => w.units_note_gib,
            };
            format!("{units} {}", w.tap_for_bytes)
        })))
        .show(
            rx(move || state.what_ifs.with(|options| !options.is_empty())),
            Box::new(move || vec![what_ifs(state)]),
        )
        .child(crate::fixes::fixes(state))
        .child(crate::compare::compare(state))
        .child(crate::devices::devices(state))
        .child(crate::measure::measurement(state))
}

/// The headline and the verdict in one line that stays at the top of a phone's
/// screen while the inputs scroll (hidden from 960 px, where the results sit
/// beside the inputs); a tap goes to the results.
pub fn mini_summary(state: State) -> El {
    let lang = state.lang;
    let (estimate, config) = (state.estimate, state.config);
    el("a")
        .class("mini-summary")
        .attr("href", "#results-title")
        .attr("data-testid", "mini-summary")
        .bind_class("stale", rx(move || state.stale()))
        .child(el("span").class("mini-headline").bind_text(rx(move || {
            let (lang, config, e) = (lang.get(), config.get(), estimate.get());
            let units = config.units;
            let needs = match lang {
                Lang::En => format!("Needs {}", short(e.required, units)),
                Lang::Es => format!("Necesita {}", short(e.required, units)),
            };
            match config.form {
                // The rule's number, then what a GPU needs.
                Form::Activations => format!(
                    "{} {} · {needs}",
                    i18n::words(lang).activations,
                    short(e.activations, units),
                ),
                Form::Parameters | Form::Transformer => needs,
            }
        })))
        .child(el("span").class("mini-verdict").bind_text(rx(move || {
            let w = i18n::words(lang.get());
            match (state.stale(), estimate.with(|e| e.fits)) {
                (true, _) => w.not_current.to_owned(),
                (false, Some(true)) => format!("✓ {}", w.fits),
                (false, Some(false)) => format!("✗ {}", w.does_not_fit),
                (false, None) => String::new(),
            }
        })))
}

/// The answer: the not-current note, the headline, its labelled additions and
/// the fits badge. It stays in view on a phone while the inputs scroll.
fn summary(state: State) -> El {
    let lang = state.lang;
    let (estimate, config) = (state.estimate, state.config);
    el("div")
        .class("summary")
        .attr("data-testid", "summary")
        .show(
            rx(move || state.stale()),
            Box::new(move || {
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
        .child(
            el("p")
                .class("additions")
                .attr("data-testid", "headline-additions")
                .bind_text(rx(move || {
                    additions(
                        lang.get(),
                        &config.get(),
                        &estimate.get(),
                        state.gpus_needed.get(),
                    )
                })),
        )
        // A result that is not current says nothing about fitting.
        .rebuild(
            rx(move || {
                let stale = state.stale();
                estimate.with(|e| match (e.fits, e.device_bytes, stale) {
                    (Some(fits), Some(_), false) => Some(fits),
                    _ => None,
                })
            }),
            Box::new(move |&fits| {
                fits.map(|fits| fits_badge(state, fits))
                    .into_iter()
                    .collect()
            }),
        )
        .child(confidence(state))
}

/// How sure "fits" is: the range validation runs like this one measured
/// (`batchfit_core::confidence`, regenerated with docs/accuracy.md) and what
/// it says against the device. Empty for the napkin forms (no validation row
/// is one of them) and while the result is not current.
fn confidence(state: State) -> El {
    let p = el("p")
        .class("confidence")
        .attr("data-testid", "confidence");
    let (node, text) = (p.node().clone(), p.text_node());
    dom::bind(
        rx(move || {
            let (config, estimate) = (state.config.get(), state.estimate.get());
            let fit = confidence::fit(&config, &estimate).filter(|_| !state.stale());
            (fit, estimate.device_bytes, config.units, state.lang.get())
        }),
        Box::new(move |&(fit, capacity, units, lang)| {
            let Some(fit) = fit else {
                let _ = node.remove_attribute("data-verdict");
                text.set_data("");
                return;
            };
            let verdict = capacity.map(|c| fit.verdict(c));
            let _ = node.set_attribute("data-verdict", verdict.map_or("", |v| v.name()));
            let _ = node.set_attribute("data-optimistic", &fit.optimistic.to_string());
            let _ = node.set_attribute("data-pessimistic", &fit.pessimistic.to_string());
            text.set_data(&confidence_text(lang, &fit, verdict, units));
        }),
    );
    p
}

/// A basis-point error as a whole percent rounded away from the estimate,
/// so the range shown is never narrower than the one measured: "−11 %".
fn percent(basis_points: i32, up: bool) -> String {
    let whole = if up {
        basis_points.div_euclid(100) + i32::from(basis_points.rem_euclid(100) > 0)
    } else {
        basis_points.div_euclid(100)
    };
    match whole {
        0 => "0 %".to_owned(),
        w if w > 0 => format!("+{w} %"),
        w => format!("−{} %", w.unsigned_abs()),
    }
}

fn confidence_text(lang: Lang, fit: &Fit, verdict: Option<Verdict>, units: Units) -> String {
    let w = i18n::words(lang);
    let range = &fit.range;
    let reading = match range.reading {
        Reading::Allocated => w.peak_allocated,
        Reading::Reserved => w.peak_reserved,
        Reading::NvidiaSmi => w.nvidia_smi,
    };
    let mut out = format!(
        "{} {} … {} {} ({reading}: {} {}, {} {})",
        w.confidence_range,
        percent(range.bounds.low, false),
        percent(range.bounds.high, true),
        w.confidence_against,
        i18n::group(lang, u128::from(range.rows)),
        w.confidence_rows,
        i18n::group(lang, u128::from(range.sources)),
        w.confidence_sources,
    );
    if let Basis::Pooled { profile, .. } = range.basis {
        let name = i18n::option(lang, batchfit_core::query::Param::Framework, profile.name());
        out.push_str(&format!("; {} {name}", w.confidence_pooled));
    }
    out.push_str(". ");
    let (low, high) = (short(fit.optimistic, units), short(fit.pessimistic, units));
    out.push_str(&match verdict {
        None => format!("{} {low} … {high}.", w.confidence_needs),
        Some(Verdict::Fits) => format!("{} ({high}).", w.confidence_fits),
        Some(Verdict::FitsOnlyOptimistic) => {
            format!("{} ({low} … {high}).", w.confidence_optimistic)
        }
        Some(Verdict::DoesNotFit) => format!("{} ({low}).", w.confidence_no),
    });
    out
}

/// The bar, its legend and a caption saying that the segments add up.
fn breakdown(state: State) -> El {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let (estimate, config) = (state.estimate, state.config);
    let chart = rx(move || {
        let c = config.get();
        BreakdownChart {
            segments: estimate.with(bar_segments),
            capacity: c.device.map(|d| (device_name(lang.get(), d), d.bytes())),
            units: c.units,
            dark: state.dark.get(),
        }
    });
    let chart_label = rx(move || {
        let e = estimate.get();
        let units = config.get().units;
        let w = w();
        let parts: Vec<String> = bar_segments(&e)
            .into_iter()
            .map(|(c, bytes)| format!("{} {}", component_label(w, c), short(bytes, units)))
            .collect();
        format!(
            "{} {}: {}.",
            w.required,
            short(e.required, units),
            parts.join(" + ")
        )
    });
    el("figure")
        .class("bar")
        .child(charts::breakdown_canvas(chart, chart_label))
        .child(bar_legend(state))
        .child(
            el("figcaption")
                .class("note")
                .bind_text(i18n::tr(lang, |w| w.bar_sums)),
        )
}

/// The component table: each term alive at the peak beside its own size, with
/// a line saying why when they differ; then the readings, each the one above
/// plus one labelled addition, down to the required memory.
fn breakdown_table(state: State) -> El {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let estimate = state.estimate;
    let bytes = move |pick: fn(&Estimate) -> u128| -> Rc<dyn Fn() -> u128> {
        Rc::new(move || estimate.with(pick))
    };
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
            .child(el("td"))
    };
    // An addition to the reading above it: a swatch of the bar's colour.
    let addition = move |component: Component, pick: fn(&Estimate) -> u128| {
        el("tr")
            .class("addition")
            .child(
                el("th")
                    .attr("scope", "row")
                    .child(swatch(component))
                    .text("+ ")
                    .bind_text(rx(move || component_label(w(), component).to_owned())),
            )
            .child(el("td").child(size(state, component_testid(component), bytes(pick))))
            .child(el("td"))
    };
    let heading = el("thead").child(
        el("tr")
            .child(el("td"))
            .child(
                el("th")
                    .attr("scope", "col")
                    .bind_text(i18n::tr(lang, |w| w.at_peak)),
            )
            .child(
                el("th")
                    .attr("scope", "col")
                    .bind_text(i18n::tr(lang, |w| w.own_size)),
            ),
    );
    let body = el("tbody")
        // One row per component present (and a note under those not all alive
        // at the peak); an edit updates the numbers in place, and the rows are
        // built again only when that set changes.
        .rebuild(
            rx(move || {
                estimate.with(|e| {
                    components(e).iter().fold(0, |set, &c| {
                        let noted = not_at_peak(i18n::words(Lang::En), e, c).is_some();
                        set | 1 << c as u32 | u32::from(noted) << (16 + c as u32)
                    })
                })
            }),
            Box::new(move |_| {
                estimate
                    .with_untracked(components)
                    .into_iter()
                    .flat_map(|component| {
                        let row = el("tr")
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
                                &format!("at-peak-{}", component_testid(component)),
                                Rc::new(move || estimate.with(|e| term_bytes(e, component).0)),
                            )))
                            .child(el("td").class("own").child(size(
                                state,
                                component_testid(component),
                                Rc::new(move || estimate.with(|e| term_bytes(e, component).1)),
                            )));
                        let noted = estimate
                            .with_untracked(|e| not_at_peak(i18n::words(Lang::En), e, component))
                            .is_some();
                        let note = noted.then(|| {
                            el("tr").class("why").child(
                                el("td")
                                    .attr("colspan", "3")
                                    .attr(
                                        "data-testid",
                                        &format!("why-{}", component_testid(component)),
                                    )
                                    .bind_text(rx(move || {
                                        let units = state.config.with(|c| c.units);
                                        estimate.with(|e| {
                                            let why = not_at_peak(w(), e, component);
                                            let own = short(term_bytes(e, component).1, units);
                                            why.map_or_else(String::new, |why| {
                                                format!("{why} {} {own}.", w().own_size)
                                            })
                                        })
                                    })),
                            )
                        });
                        std::iter::once(row).chain(note)
                    })
                    .collect()
            }),
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
        .child(addition(
            Component::AllocatorCache,
            Estimate::allocator_cache,
        ))
        .child(
            reading(
                "peak-reserved",
                |w| w.peak_reserved,
                Some(|w| w.peak_reserved_note),
                |e| e.peak_reserved,
            )
            .class("sum"),
        )
        .child(addition(Component::Overhead, |e| e.overhead))
        .child(
            reading(
                "nvidia-smi",
                |w| w.nvidia_smi,
                Some(|w| w.nvidia_smi_note),
                |e| e.nvidia_smi,
            )
            .class("sum"),
        )
        .show(
            rx(move || estimate.with(|e| e.margin_bytes() > 0)),
            Box::new(move || vec![addition(Component::Margin, Estimate::margin_bytes)]),
        )
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
            reading(
                "activations-per-sample",
                |w| w.activations_per_sample,
                None,
                |e| e.activations_per_sample,
            )
            .class("sub"),
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
                        .attr("colspan", "2")
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
        .show(
            rx(move || estimate.with(|e| e.device_bytes.is_some())),
            Box::new(move || {
                vec![reading(
                    "device-bytes",
                    |w| w.capacity,
                    None,
                    |e| e.device_bytes.unwrap_or(0),
                )]
            }),
        )
        // Offloads move state to the host: a reading of its own, in no GPU sum.
        .show(
            rx(move || estimate.with(|e| e.cpu_memory > 0)),
            Box::new(move || {
                vec![reading(
                    "cpu-memory",
                    |w| w.cpu_memory,
                    Some(|w| w.cpu_memory_note),
                    |e| e.cpu_memory,
                )]
            }),
        );
    let body = count_row(
        state,
        body,
        "parameters",
        |w| w.parameters,
        Rc::new(move || estimate.with(|e| (e.parameters > 0).then_some(e.parameters))),
    );
    let body = count_row(
        state,
        body,
        "max-batch",
        |w| w.max_batch,
        Rc::new(move || estimate.with(|e| e.max_batch.map(u128::from))),
    );
    let body = count_row(
        state,
        body,
        "max-seq",
        |w| w.max_seq,
        Rc::new(move || state.max_seq.get().map(u128::from)),
    );
    // Accumulation steps answer how to reach a global batch with a
    // micro-batch that fits; for one that does not, there is no such answer.
    let body = count_row(
        state,
        body,
        "accumulation-steps",
        |w| w.accumulation,
        Rc::new(move || {
            estimate.with(|e| {
                e.accumulation_steps
                    .filter(|_| e.fits != Some(false))
                    .map(u128::from)
            })
        }),
    );
    let body = count_row(
        state,
        body,
        "gpus-needed",
        |w| w.gpus_needed,
        Rc::new(move || {
            let too_small = estimate.with(|e| e.fits == Some(false));
            let config = state.config.get();
            state
                .gpus_needed
                .get()
                .filter(|&n| n > 1 && too_small)
                .map(|n| u128::from(memory::total_gpus(&config, n)))
        }),
    );
    // The job's size when it runs on more than one GPU: what it rents.
    let body = count_row(
        state,
        body,
        "job-gpus",
        |w| w.job_gpus,
        Rc::new(move || {
            state.config.with(|c| {
                let total = memory::total_gpus(c, c.transformer.gpus);
                (c.form == Form::Transformer && total > 1).then_some(u128::from(total))
            })
        }),
    );
    el("table").class("breakdown").child(heading).child(body)
}

fn swatch(component: Component) -> El {
    el("span").class(&format!("swatch {}", swatch_class(component)))
}

/// A row holding a whole number (parameters, the largest batch and the longest
/// context that fit, accumulation steps, GPUs needed, the job's GPUs), present
/// while its value is `Some`: built when it appears; one binding then writes
/// its number. The largest batch and the longest context say "none" rather
/// than 0.
fn count_row(
    state: State,
    body: El,
    testid: &'static str,
    label: fn(&Words) -> &'static str,
    value: Rc<dyn Fn() -> Option<u128>>,
) -> El {
    let lang = state.lang;
    let shown = value.clone();
    body.list(
        rx(move || usize::from(shown().is_some())),
        Box::new(move |_| {
            let cell = el("td")
                .class("value")
                .attr("colspan", "2")
                .attr("data-testid", testid);
            let (element, text) = (cell.node().clone(), cell.text_node());
            let value = value.clone();
            dom::bind(
                rx(move || (value().unwrap_or(0), lang.get())),
                Box::new(move |&(number, lang)| {
                    let _ = element.set_attribute("data-value", &number.to_string());
                    if number == 0 && testid == "max-batch" {
                        text.set_data(i18n::words(lang).no_batch_fits);
                    } else if number == 0 && testid == "max-seq" {
                        text.set_data(i18n::words(lang).no_seq_fits);
                    } else {
                        text.set_data(&i18n::group(lang, number));
                    }
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
        let cost = el("span").class("legend cost");
        let li = el("li")
            .child(label.clone())
            .child(value.clone())
            .child(cost.clone());
        let (element, value_element) = (li.node().clone(), value.node().clone());
        let (label, value, cost) = (label.text_node(), value.text_node(), cost.text_node());
        dom::bind(
            rx(move || {
                let option = state.what_ifs.with(|options| options.get(index).copied());
                (option, lang.get(), state.config.get())
            }),
            Box::new(move |&(option, lang, config)| {
                // An item the shorter list no longer has is empty until the list
                // removes it.
                let Some(option) = option else {
                    label.set_data("");
                    value.set_data("");
                    cost.set_data("");
                    return;
                };
                let units = config.units;
                cost.set_data(&crate::fixes::costs(lang, &option.cost(&config), units));
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
        Change::Lora => format!(
            "{} (r = {})",
            w.with_lora, option.config.transformer.lora_rank
        ),
        Change::Qlora => format!(
            "{} (r = {})",
            w.with_qlora, option.config.transformer.lora_rank
        ),
        Change::Fp8Kv => w.fp8_kv.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_validation_percent_is_rounded_away_from_the_estimate() {
        assert_eq!(percent(-1022, false), "−11 %");
        assert_eq!(percent(3120, true), "+32 %");
        assert_eq!(percent(8, false), "0 %");
        assert_eq!(percent(8, true), "+1 %");
        assert_eq!(percent(-8, true), "0 %");
        assert_eq!(percent(-100, false), "−1 %");
        assert_eq!(percent(300, true), "+3 %");
    }

    /// A mixture of experts shows its total and active parameters under the
    /// headline; a dense model in the transformer form shows nothing there.
    #[test]
    fn a_mixture_of_experts_shows_its_active_parameters() {
        let config = batchfit_core::query::parse("form=transformer&model=mixtral-8x7b").config;
        let e = memory::estimate(&config);
        assert_eq!(
            additions(Lang::En, &config, &e, None),
            "46.7B parameters (12.9B active)"
        );
        assert_eq!(
            additions(Lang::Es, &config, &e, None),
            "46.7B parámetros (12.9B activos)"
        );
        let dense = batchfit_core::query::parse("form=transformer&model=llama-3.1-8b").config;
        let e = memory::estimate(&dense);
        assert_eq!(additions(Lang::En, &dense, &e, None), "");
        assert_eq!(short_count(671_026_404_352), "671B");
        assert_eq!(short_count(3_353_032_704), "3.35B");
        assert_eq!(short_count(999), "999");
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

    /// A term alive at the peak but larger at another moment is "partly in
    /// the peak", never "not in the peak": the forward's end sets the peak
    /// under autocast with full recomputation (a recomputed layer comes
    /// after it); at the optimizer step the activations are gone.
    #[test]
    fn a_term_partly_at_the_peak_is_said_to_be() {
        let w = i18n::words(Lang::En);
        let at_forward_end = memory::estimate(
            &batchfit_core::query::parse(
                "form=transformer&model=llama-3.1-8b&recompute=full&recompute_method=block&recompute_layers=8",
            )
            .config,
        );
        assert_eq!(at_forward_end.peak_phase, Phase::Forward);
        let (at, own) = term_bytes(&at_forward_end, Component::Activations);
        assert!(0 < at && at < own, "{at} {own}");
        assert_eq!(
            not_at_peak(w, &at_forward_end, Component::Activations),
            Some(w.partly_at_peak)
        );
        let at_step = memory::estimate(
            &batchfit_core::query::parse(
                "form=transformer&model=llama-3.2-1b&batch=1&seq=128&step=foreach",
            )
            .config,
        );
        assert_eq!(at_step.peak_phase, Phase::OptimizerStep);
        assert_eq!(term_bytes(&at_step, Component::Activations).0, 0);
        assert_eq!(
            not_at_peak(w, &at_step, Component::Activations),
            Some(w.not_at_peak_freed)
        );
        // A ViT's peak is its last layer's backward pass: the gradients
        // created by then are alive, the others come after.
        let vit = memory::estimate(
            &batchfit_core::query::parse(
                "form=transformer&model=vit-b-16&labels=1000&recipe=amp&batch=32",
            )
            .config,
        );
        let (at, own) = term_bytes(&vit, Component::Gradients);
        assert!(0 < at && at < own, "{at} {own}");
        assert_eq!(
            not_at_peak(w, &vit, Component::Gradients),
            Some(w.partly_at_peak)
        );
    }
}
