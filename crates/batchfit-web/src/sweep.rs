//! How memory grows with the batch: a table and a line chart over powers of two,
//! from 1 to past the largest batch that fits, with the chosen batch highlighted
//! and the rows over the device's capacity marked.

use batchfit_core::memory::SweepRow;
use batchfit_core::units::{self, Units};
use leptos::prelude::*;

use crate::charts::{self, SweepChart};
use crate::dom::{self, El, el, rx};
use crate::i18n::{self, Lang};
use crate::results::{device_name, short};
use crate::state::State;

/// The sweep as a Markdown table (for "Copy table").
pub fn markdown(lang: Lang, rows: &[SweepRow], units: Units) -> String {
    let w = i18n::words(lang);
    let mut out = format!(
        "| {} | {} | {} | {} |\n|---:|---:|---:|---:|\n",
        w.sweep_batch, w.sweep_states, w.activations, w.sweep_total
    );
    for row in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            i18n::group(lang, u128::from(row.batch)),
            units::format_bytes(row.model_states, units),
            units::format_bytes(row.activations, units),
            units::format_bytes(row.total, units),
        ));
    }
    out
}

/// The sweep as CSV with exact bytes (for "Download CSV").
pub fn csv(rows: &[SweepRow]) -> String {
    let mut out =
        String::from("batch,model_states_bytes,activations_bytes,total_bytes,required_bytes\n");
    for row in rows {
        out.push_str(&format!(
            "{},{},{},{},{}\n",
            row.batch, row.model_states, row.activations, row.total, row.required
        ));
    }
    out
}

/// The sweep section: the table, its legend and the chart.
pub fn sweep(state: State) -> El {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let chart = rx(move || {
        let config = state.config.get();
        SweepChart {
            points: state
                .sweep
                .get()
                .iter()
                .map(|r| (r.batch, r.required))
                .collect(),
            chosen_batch: config.batch(),
            capacity: config.device.map(|d| (device_name(d), d.bytes())),
            x_label: w().sweep_batch.to_owned(),
            y_label: w().sweep_axis.to_owned(),
            units: config.units,
            dark: state.dark.get(),
        }
    });
    let chart_label = rx(move || {
        let units = state.config.get().units;
        let points: Vec<String> = state
            .sweep
            .get()
            .iter()
            .map(|r| format!("{} → {}", r.batch, short(r.required, units)))
            .collect();
        format!("{}: {}", w().sweep_title, points.join(", "))
    });
    let heading = |pick| {
        el("th")
            .attr("scope", "col")
            .bind_text(i18n::tr(lang, pick))
    };
    el("section")
        .class("sweep")
        .attr("aria-labelledby", "sweep-title")
        .child(
            el("h2")
                .attr("id", "sweep-title")
                .bind_text(i18n::tr(lang, |w| w.sweep_title)),
        )
        .child(
            el("div")
                .class("sweep-body")
                .child(
                    el("div")
                        .class("table-scroll")
                        .child(
                            el("table")
                                .attr("data-testid", "sweep")
                                .child(el("thead").child(el("tr").children([
                                    heading(|w| w.sweep_batch),
                                    heading(|w| w.sweep_states),
                                    heading(|w| w.activations),
                                    heading(|w| w.sweep_total),
                                ])))
                                // Row i reads its numbers from the sweep, so an edit
                                // updates text in place; rows are built again only
                                // when their count changes (docs/performance-log.md).
                                .child(el("tbody").list(
                                    rx(move || state.sweep.with(Vec::len)),
                                    Box::new(move |index| row(state, index)),
                                )),
                        )
                        .child(el("p").class("legend").bind_text(rx(move || {
                            format!("▸ {} · ✗ {}", w().sweep_chosen, w().sweep_over)
                        }))),
                )
                .child(charts::sweep_canvas(chart, chart_label)),
        )
}

/// Row `index` of the sweep: batch, model states, activations, total. One
/// binding writes the whole row, and only when what it shows changed: a row's
/// numbers do not depend on the chosen batch, so editing the batch rewrites
/// only the rows that stop or start being the chosen one.
fn row(state: State, index: usize) -> El {
    let lang = state.lang;
    let mark = el("span").class("mark").attr("aria-hidden", "true");
    let notes = el("span").class("visually-hidden");
    let th = el("th").attr("scope", "row").child(mark.clone());
    let batch = th.text_node();
    let th = th.child(notes.clone());
    let cells: [El; 3] = [el("td"), el("td"), el("td")];
    let tr = el("tr").child(th).children(cells.clone());
    let (mark, notes, element) = (mark.text_node(), notes.text_node(), tr.0.clone());
    let texts: Vec<web_sys::Text> = cells.iter().map(El::text_node).collect();
    dom::watch(
        rx(move || {
            // A row the shorter sweep no longer has reads as zeros until the
            // list removes it.
            let row = state.sweep.with(|rows| rows.get(index).copied());
            let (chosen, capacity, units) = state
                .config
                .with(|c| (c.batch(), c.device.map(|d| d.bytes()), c.units));
            (row, chosen, capacity, units, lang.get())
        }),
        Box::new(move |&(row, chosen_batch, capacity, units, lang)| {
            let row = row.unwrap_or(SweepRow {
                batch: 0,
                model_states: 0,
                activations: 0,
                total: 0,
                required: 0,
            });
            let chosen = row.batch == chosen_batch;
            let over = capacity.is_some_and(|c| row.required > c);
            let _ = element.set_attribute("data-batch", &row.batch.to_string());
            let classes = element.class_list();
            let _ = classes.toggle_with_force("chosen", chosen);
            let _ = classes.toggle_with_force("over", over);
            let _ = element.set_attribute("data-over", if over { "true" } else { "false" });
            let _ = if chosen {
                element.set_attribute("aria-current", "true")
            } else {
                element.remove_attribute("aria-current")
            };
            mark.set_data(if over {
                "✗"
            } else if chosen {
                "▸"
            } else {
                ""
            });
            batch.set_data(&i18n::group(lang, u128::from(row.batch)));
            let w = i18n::words(lang);
            let mut said = String::new();
            if chosen {
                said.push_str(&format!(" ({})", w.sweep_chosen));
            }
            if over {
                said.push_str(&format!(" ({})", w.sweep_over));
            }
            notes.set_data(&said);
            for ((cell, text), bytes) in
                cells
                    .iter()
                    .zip(&texts)
                    .zip([row.model_states, row.activations, row.total])
            {
                let _ = cell.0.set_attribute("data-bytes", &bytes.to_string());
                let _ = cell
                    .0
                    .set_attribute("title", &i18n::exact_bytes(lang, bytes));
                text.set_data(&units::format_bytes(bytes, units));
            }
        }),
    );
    tr
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<SweepRow> {
        vec![
            SweepRow {
                batch: 1,
                model_states: 10,
                activations: 5,
                total: 15,
                required: 20,
            },
            SweepRow {
                batch: 16,
                model_states: 10,
                activations: 80,
                total: 90,
                required: 95,
            },
        ]
    }

    #[test]
    fn csv_carries_exact_bytes() {
        assert_eq!(
            csv(&rows()),
            "batch,model_states_bytes,activations_bytes,total_bytes,required_bytes\n1,10,5,15,20\n16,10,80,90,95\n"
        );
    }

    #[test]
    fn markdown_has_a_header_and_one_line_per_row() {
        let table = markdown(Lang::En, &rows(), Units::Decimal);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0],
            "| Batch size | Weights + Grad + Opt | Activations | Total |"
        );
        assert_eq!(lines[3], "| 16 | 10 B | 80 B | 90 B |");
        assert!(markdown(Lang::Es, &rows(), Units::Decimal).starts_with("| Tamaño de lote |"));
    }
}
