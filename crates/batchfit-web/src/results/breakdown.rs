//! Where the memory goes: the breakdown bar with its legend, and the table of
//! each term at the peak beside its own size, the readings down to the
//! required memory and the counts.

use std::rc::Rc;

use crate::prelude::*;
use batchfit_core::memory::{self, Estimate, Phase};
use batchfit_core::query::Form;

use crate::charts::Component;
use crate::dom::{self, El, el, rx};
use crate::format::{bar_segments, component_label, component_testid, short, size, swatch_class};
use crate::i18n::{self, Lang, Words};
use crate::state::State;

use super::bar;

/// The component rows of the table: the four terms every form names, and the
/// others only when present.
fn components(e: &Estimate) -> Vec<Component> {
    Component::TENSORS
        .into_iter()
        .filter(|&c| {
            e.own(c) > 0
                || matches!(
                    c,
                    Component::Weights
                        | Component::Gradients
                        | Component::OptimizerStates
                        | Component::Activations
                )
        })
        .collect()
}

/// A term's (bytes at the peak, own size).
pub(super) fn term_bytes(e: &Estimate, component: Component) -> (u128, u128) {
    (e.at_peak.of(component), e.own(component))
}

/// Why a term is (partly) not alive at the peak, when it is not.
pub(super) fn not_at_peak(w: &Words, e: &Estimate, component: Component) -> Option<&'static str> {
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
        Component::KvCache if e.peak_phase == Phase::Prefill => w.prompt_cache_at_peak,
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
                        bar::legend_item(
                            component,
                            el("span").bind_text(rx(move || {
                                component_label(i18n::answer_words(lang.get()), component)
                                    .to_owned()
                            })),
                            size(
                                state,
                                &format!("bar-{}", component_testid(component)),
                                bytes,
                            ),
                        )
                    })
                    .collect()
            }),
        )
}

/// The bar, its legend and a caption saying that the segments add up.
pub(super) fn breakdown(state: State) -> El {
    let lang = state.lang;
    let (estimate, config) = (state.estimate, state.config);
    el("figure")
        .class("bar")
        // Keyed by what it is drawn from (a key type other sections use:
        // its binding's code is compiled once for them all).
        .rebuild(
            rx(move || Some((config.get(), estimate.get(), lang.get()))),
            Box::new(|drawn| {
                drawn
                    .iter()
                    .map(|(config, e, lang)| bar::track(&bar::geometry(*lang, e, config), true))
                    .collect()
            }),
        )
        .child(bar_legend(state))
        .child(
            el("figcaption")
                .class("note")
                .bind_text(i18n::tr(lang, |w| w.answer.bar_sums)),
        )
}

/// The component table: each term alive at the peak beside its own size, with
/// a line saying why when they differ; then the readings, each the one above
/// plus one labelled addition, down to the required memory.
pub(super) fn breakdown_table(state: State) -> El {
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
                    .bind_text(rx(move || {
                        component_label(w().answer, component).to_owned()
                    })),
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
                                        component_label(w().answer, component).to_owned()
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
                                            let own = short(
                                                lang.get(),
                                                term_bytes(e, component).1,
                                                units,
                                            );
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
                |w| w.answer.peak_allocated,
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
                |w| w.answer.peak_reserved,
                Some(|w| w.peak_reserved_note),
                |e| e.peak_reserved,
            )
            .class("sum"),
        )
        .child(addition(Component::Overhead, |e| e.overhead))
        .child(
            reading(
                "nvidia-smi",
                |w| w.answer.nvidia_smi,
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
                |w| w.answer.required,
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
                    Some(|w| w.capacity_note),
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
        |w| w.answer.parameters,
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
pub(super) fn phase_words(w: &Words, phase: Phase) -> &'static str {
    let index = Phase::ALL.iter().position(|&p| p == phase).unwrap_or(0);
    w.phases[index]
}
