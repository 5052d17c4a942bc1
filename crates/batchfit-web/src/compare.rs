//! "Compare with…": a second setup beside the first. The form shows one
//! setup at a time (B, once comparing starts, as a copy of A that the user
//! changes); this section puts both estimates side by side, term by term,
//! with what differs marked, and the address holds both
//! (`query::to_query_pair`, docs/url-parameters.md).

use crate::prelude::*;
use batchfit_core::memory::{self, Estimate};
use batchfit_core::query::{self, Config, Param};
use batchfit_core::units::Units;

use crate::dom::{self, El, Ev, el, rx};
use crate::format::short;
use crate::i18n::{self, Lang, Words};
use crate::state::State;

pub fn compare(state: State) -> El {
    let lang = state.lang;
    // The comparison's code is a chunk of the split build (dom::Chunk),
    // fetched when a comparison starts.
    let chunk = dom::chunk!(preload_compare);
    el("div")
        .class("compare")
        .attr("data-testid", "compare")
        .show(
            rx(move || state.other.with(Option::is_none)),
            Box::new(move || {
                vec![
                    el("button")
                        .attr("type", "button")
                        .class("secondary")
                        .attr("data-testid", "compare-start")
                        .on(
                            Ev::Click,
                            Box::new(move |_| {
                                chunk.retry();
                                state.compare_with(None);
                            }),
                        )
                        .bind_text(i18n::tr(lang, |w| w.compare_start)),
                ]
            }),
        )
        .show(
            rx(move || state.other.with(Option::is_some) && chunk.ready()),
            Box::new(move || dom::now(comparing(state))),
        )
        // Its chunk could not be fetched: say so, and keep a way back.
        .show(
            rx(move || state.other.with(Option::is_some) && chunk.failed()),
            Box::new(move || {
                vec![
                    dom::chunk_status(true, i18n::tr(lang, |w| w.chunk_failed)),
                    stop_button(state),
                ]
            }),
        )
}

/// "Stop comparing": back to one setup.
fn stop_button(state: State) -> El {
    el("button")
        .attr("type", "button")
        .class("secondary")
        .attr("data-testid", "compare-stop")
        .on(Ev::Click, Box::new(move |_| state.stop_comparing()))
        .bind_text(i18n::tr(state.lang, |w| w.compare_stop))
}

/// The two setups side by side, the buttons that change which one the form
/// shows, and one-click B's.
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(compare, fallible, preload(#[allow(unsafe_code)] preload_compare))
)]
fn comparing(state: State) -> Result<Vec<El>, dom::ChunkMissing> {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    Ok(vec![
        el("section")
            .class("comparing")
            .attr("aria-labelledby", "compare-title")
            .child(
                el("h3")
                    .attr("id", "compare-title")
                    .bind_text(i18n::tr(lang, |w| w.compare_title)),
            )
            .child(el("p").class("legend").bind_text(rx(move || {
                let w = w();
                let shown = if state.editing_b.get() { "B" } else { "A" };
                format!("{} {shown}.", w.compare_form_shows)
            })))
            .child(
                el("div")
                    .class("compare-actions")
                    .child(
                        el("button")
                            .attr("type", "button")
                            .class("secondary")
                            .attr("data-testid", "compare-switch")
                            .on(Ev::Click, Box::new(move |_| state.switch_setup()))
                            .bind_text(rx(move || {
                                let other = if state.editing_b.get() { "A" } else { "B" };
                                format!("{} {other}", w().compare_edit)
                            })),
                    )
                    .child(stop_button(state)),
            )
            .child(el("div").class("table-scroll").rebuild(
                rx(move || (state.pair(), lang.get())),
                Box::new(move |(pair, lang)| match pair {
                    Some((a, b)) => vec![table(a, b, *lang), differing(a, b, *lang)],
                    None => Vec::new(),
                }),
            ))
            .child(presets(state)),
    ])
}

/// One row of the comparison: a label and a number for each setup.
struct Row {
    label: &'static str,
    key: &'static str,
    a: u128,
    b: u128,
    bytes: bool,
}

fn rows(w: &Words, (a, ea): (&Config, &Estimate), (b, eb): (&Config, &Estimate)) -> Vec<Row> {
    let bytes = |label, key, of: fn(&Estimate) -> u128| Row {
        label,
        key,
        a: of(ea),
        b: of(eb),
        bytes: true,
    };
    let gpus =
        |c: &Config| u128::from(memory::gpus_needed(c).map_or(0, |n| memory::total_gpus(c, n)));
    vec![
        bytes(w.answer.required, "required", |e| e.required),
        bytes(w.answer.peak_allocated, "peak_allocated", |e| {
            e.peak_allocated
        }),
        bytes(w.answer.peak_reserved, "peak_reserved", |e| e.peak_reserved),
        bytes(w.answer.nvidia_smi, "nvidia_smi", |e| e.nvidia_smi),
        bytes(w.answer.weights, "weights", |e| e.weights),
        bytes(w.answer.gradients, "gradients", |e| e.gradients),
        bytes(w.answer.optimizer_states, "optimizer_states", |e| {
            e.optimizer_states
        }),
        bytes(w.answer.activations, "activations", |e| e.activations),
        bytes(w.answer.kv_cache, "kv_cache", |e| e.kv_cache),
        Row {
            label: w.max_batch,
            key: "max_batch",
            a: u128::from(ea.max_batch.unwrap_or(0)),
            b: u128::from(eb.max_batch.unwrap_or(0)),
            bytes: false,
        },
        Row {
            label: w.job_gpus,
            key: "job_gpus",
            a: u128::from(memory::total_gpus(a, a.transformer.gpus)),
            b: u128::from(memory::total_gpus(b, b.transformer.gpus)),
            bytes: false,
        },
        Row {
            label: w.gpus_needed,
            key: "gpus_needed",
            a: gpus(a),
            b: gpus(b),
            bytes: false,
        },
    ]
}

fn table(a: &Config, b: &Config, lang: Lang) -> El {
    let w = i18n::words(lang);
    let (ea, eb) = (memory::estimate(a), memory::estimate(b));
    let units = a.units;
    let fits = |e: &Estimate| match e.fits {
        Some(true) => format!("✓ {}", w.answer.fits),
        Some(false) => format!("✗ {}", w.answer.does_not_fit),
        None => "–".to_owned(),
    };
    let head = ["", "A", "B", "B − A"].map(|text| el("th").attr("scope", "col").text(text));
    let fit_row = el("tr")
        .attr("data-row", "fits")
        .class(if ea.fits == eb.fits {
            "same"
        } else {
            "differs"
        })
        .child(el("th").attr("scope", "row").text(w.answer.fits))
        .child(el("td").text(&fits(&ea)))
        .child(el("td").text(&fits(&eb)))
        .child(el("td"));
    let body = rows(w, (a, &ea), (b, &eb)).into_iter().map(|row| {
        // A count of 0 is an answer, "none": no batch, or no number of
        // GPUs up to the most batchfit tries, fits.
        let show = |n: u128| match (row.bytes, n, row.key) {
            (true, n, _) => short(lang, n, units),
            (false, 0, "gpus_needed") => w.gpus_none.to_owned(),
            (false, 0, _) => w.no_batch_fits.to_owned(),
            (false, n, _) => i18n::group(lang, n),
        };
        let difference = difference(lang, units, &row);
        el("tr")
            .attr("data-row", row.key)
            .class(if row.a == row.b { "same" } else { "differs" })
            .child(el("th").attr("scope", "row").text(row.label))
            .child(
                el("td")
                    .attr("data-a", &row.a.to_string())
                    .text(&show(row.a)),
            )
            .child(
                el("td")
                    .attr("data-b", &row.b.to_string())
                    .text(&show(row.b)),
            )
            .child(el("td").text(&difference))
    });
    el("table")
        .attr("data-testid", "compare-table")
        .child(el("thead").child(el("tr").children(head)))
        .child(el("tbody").child(fit_row).children(body))
}

/// "+1.20 GB (+12 %)", "−3", or "=" where the two are the same.
fn difference(lang: Lang, units: Units, row: &Row) -> String {
    if row.a == row.b {
        return "=".to_owned();
    }
    // "None" on one side: no difference to count.
    if !row.bytes && (row.a == 0 || row.b == 0) {
        return "–".to_owned();
    }
    let (sign, size) = if row.b > row.a {
        ('+', row.b - row.a)
    } else {
        ('−', row.a - row.b)
    };
    let amount = if row.bytes {
        short(lang, size, units)
    } else {
        i18n::group(lang, size)
    };
    match (row.bytes, row.a) {
        (true, a) if a > 0 => {
            // Whole percent, rounded half away from zero, in integers.
            let percent = (size.saturating_mul(200) / a).div_ceil(2);
            format!("{sign}{amount} ({sign}{percent}\u{a0}%)")
        }
        _ => format!("{sign}{amount}"),
    }
}

/// The parameters whose values differ, as the address writes them.
fn differing(a: &Config, b: &Config, lang: Lang) -> El {
    let changes: Vec<String> = query::differing(a, b)
        .into_iter()
        .map(|(p, x, y)| format!("{} {x} → {y}", p.name()))
        .collect();
    let w = i18n::words(lang);
    el("p")
        .class("legend")
        .attr("data-testid", "compare-differs")
        .text(&if changes.is_empty() {
            w.compare_same.to_owned()
        } else {
            format!("{} {}", w.compare_differs, changes.join(" · "))
        })
}

/// One click makes B the A with one parameter changed: the comparisons
/// people make most (`query::toggles`: precision, ZeRO stage, LoRA against
/// full fine-tuning, recomputation on or off).
fn presets(state: State) -> El {
    let lang = state.lang;
    el("div").class("compare-presets").rebuild(
        rx(move || {
            let a = state.pair().map(|(a, _)| a);
            (a.map(|a| query::toggles(&a)), lang.get())
        }),
        Box::new(move |(options, lang)| {
            let Some(options) = options.as_ref().filter(|o| !o.is_empty()) else {
                return Vec::new();
            };
            let w = i18n::words(*lang);
            let button = |&(param, b): &(Param, Config)| {
                let value = query::values(&b)
                    .into_iter()
                    .find(|(p, _)| *p == param)
                    .map_or(String::new(), |(_, v)| v);
                let label = format!(
                    "{}: {}",
                    i18n::field(*lang, param).label,
                    i18n::option(*lang, param, &value)
                );
                el("button")
                    .attr("type", "button")
                    .class("secondary")
                    .attr("data-param", param.name())
                    .on(Ev::Click, Box::new(move |_| state.set_b(b)))
                    .text(&label)
            };
            vec![
                el("span").class("legend").text(w.compare_presets),
                el("span").children(options.iter().map(button)),
            ]
        }),
    )
}
