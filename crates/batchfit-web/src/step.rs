//! "The step, moment by moment" (issue 16): the core's timeline of one step
//! as a stacked chart in the bar's colours, a slider (and the pointer over
//! the chart) to read any moment's bytes, and the phases in words for screen
//! readers.

use crate::prelude::*;
use batchfit_core::memory::{self, AtPeak, Moment, TimelinePoint};

use crate::charts::{self, Component, TimelineChart};
use crate::dom::{self, El, Ev, el, rx};
use crate::fields::event_value;
use crate::format::{device_name, short};
use crate::i18n::{self, Lang, Words};
use crate::state::State;
use wasm_bindgen::JsCast;

/// The point's parts in the bar's order (the tensors only: the timeline is
/// allocated memory).
fn parts(bytes: &AtPeak) -> Vec<(Component, u128)> {
    Component::TENSORS.map(|c| (c, bytes.of(c))).to_vec()
}

fn moment_name(w: &Words, moment: Moment) -> &'static str {
    let index = Moment::ALL.iter().position(|&m| m == moment).unwrap_or(0);
    w.moments[index]
}

/// "backward, layer 12" / "generation, 3/4" / "loss".
fn point_name(w: &Words, point: &TimelinePoint) -> String {
    let name = moment_name(w, point.moment);
    match (point.moment, point.layer) {
        (_, 0) => name.to_owned(),
        (Moment::Generation, quarter) => format!("{name}, {quarter}/4"),
        (_, layer) => format!("{name}, {} {layer}", w.step_layer),
    }
}

/// The index of the first point with the largest total.
fn peak_index(points: &[TimelinePoint]) -> usize {
    let top = points.iter().map(|p| p.bytes.sum()).max().unwrap_or(0);
    points
        .iter()
        .position(|p| p.bytes.sum() == top)
        .unwrap_or(0)
}

/// Each phase with its largest total, in order: "forward pass up to 40.1 GB;
/// the loss 52.3 GB (the peak); …".
fn summary(
    lang: Lang,
    w: &Words,
    points: &[TimelinePoint],
    units: batchfit_core::units::Units,
) -> String {
    let peak = peak_index(points);
    let mut phases: Vec<(Moment, u128, bool)> = Vec::new();
    for (i, point) in points.iter().enumerate() {
        let total = point.bytes.sum();
        match phases.last_mut() {
            Some(last) if last.0 == point.moment => {
                last.1 = last.1.max(total);
                last.2 |= i == peak;
            }
            _ => phases.push((point.moment, total, i == peak)),
        }
    }
    let text: Vec<String> = phases
        .iter()
        .map(|&(moment, most, is_peak)| {
            let peak = if is_peak { w.step_is_peak } else { "" };
            format!(
                "{} {}{peak}",
                moment_name(w, moment),
                short(lang, most, units)
            )
        })
        .collect();
    format!("{}: {}.", w.step_title, text.join("; "))
}

pub fn step(state: State) -> El {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    // Recomputed where it is read (a few microseconds) rather than memoized:
    // a memo of a new type costs the page more code than the computing.
    let points = move || state.config.with(memory::timeline);
    // The moment read out: the peak until the user picks another.
    let picked = RwSignal::new(None::<usize>);
    let make_chart = move || {
        let config = state.config.get();
        let w = w();
        let points = &points();
        {
            let mut phases: Vec<(usize, String)> = Vec::new();
            for (i, point) in points.iter().enumerate() {
                if i == 0 || points[i - 1].moment != point.moment {
                    phases.push((i, moment_name(w, point.moment).to_owned()));
                }
            }
            let peak = peak_index(points);
            TimelineChart {
                points: points.iter().map(|p| parts(&p.bytes)).collect(),
                phases,
                peak: (!points.is_empty()).then(|| (peak, w.step_peak.to_owned())),
                capacity: config
                    .device
                    .map(|d| (device_name(lang.get(), d), d.usable_bytes())),
                y_label: w.step_axis.to_owned(),
                units: config.units,
                lang: lang.get(),
                dark: state.dark.get(),
            }
        }
    };
    let chart_label = rx(move || {
        let units = state.config.get().units;
        summary(lang.get(), w(), &points(), units)
    });
    // The chart's data for tests and tools: its points and its largest total.
    let canvas = charts::timeline_canvas(
        rx(make_chart),
        chart_label,
        i18n::tr(lang, |w| w.chart_failed),
    )
    .bind_attr("data-points", rx(move || Some(points().len().to_string())))
    .bind_attr(
        "data-max-bytes",
        rx(move || {
            let top = points().iter().map(|p| p.bytes.sum()).max().unwrap_or(0);
            Some(top.to_string())
        }),
    );
    let element: web_sys::HtmlCanvasElement = canvas.as_();
    let canvas = canvas.on(
        Ev::PointerMove,
        Box::new(move |event| {
            let Some(pointer) = event.dyn_ref::<web_sys::MouseEvent>() else {
                return;
            };
            let x = f64::from(pointer.offset_x());
            if let Some(at) =
                untrack(|| dom::now(charts::timeline_point_at(element.clone(), make_chart(), x)))
            {
                picked.set(Some(at));
            }
        }),
    );
    let shown = move || {
        let points = points();
        let last = points.len().saturating_sub(1);
        picked
            .get()
            .unwrap_or_else(|| peak_index(&points))
            .min(last)
    };
    let readout = el("p")
        .class("step-readout")
        .attr("data-testid", "step-readout")
        .attr("aria-live", "polite")
        .bind_text(rx(move || {
            let units = state.config.get().units;
            let w = w();
            {
                points().get(shown()).map_or_else(String::new, |point| {
                    let items: Vec<String> = parts(&point.bytes)
                        .into_iter()
                        .filter(|c| c.1 > 0)
                        .map(|(c, bytes)| {
                            format!(
                                "{} {}",
                                crate::format::component_label(w.answer, c),
                                short(lang.get(), bytes, units)
                            )
                        })
                        .collect();
                    format!(
                        "{}: {} ({})",
                        point_name(w, point),
                        short(lang.get(), point.bytes.sum(), units),
                        items.join(" + ")
                    )
                })
            }
        }));
    let slider = el("input")
        .attr("type", "range")
        .attr("id", "step-moment")
        .attr("min", "0")
        .bind_attr(
            "max",
            rx(move || Some(points().len().saturating_sub(1).to_string())),
        )
        .bind_prop("value", rx(move || shown().to_string().into()))
        .on(
            Ev::Input,
            Box::new(move |event| {
                if let Ok(at) = event_value(&event).parse::<usize>() {
                    picked.set(Some(at));
                }
            }),
        );
    el("section")
        .class("step")
        .attr("aria-labelledby", "step-title")
        .child(
            el("h2")
                .attr("id", "step-title")
                .bind_text(i18n::tr(lang, |w| w.step_title)),
        )
        .child(
            el("p")
                .class("note")
                .bind_text(i18n::tr(lang, |w| w.step_note)),
        )
        .child(el("figure").class("timeline").child(canvas))
        .child(
            el("div")
                .class("step-pick")
                .child(
                    el("label")
                        .attr("for", "step-moment")
                        .bind_text(i18n::tr(lang, |w| w.step_moment)),
                )
                .child(slider),
        )
        .child(readout)
}
