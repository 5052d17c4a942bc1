//! How memory grows with the batch: a table and a line chart over powers of two,
//! from 1 to past the largest batch that fits, with the chosen batch highlighted
//! and the rows over the device's capacity marked.

use crate::prelude::*;
use batchfit_core::memory::SweepRow;
use batchfit_core::units::{self, Units};

use crate::charts::{self, SweepChart};
use crate::dom::{self, El, Ev, el, rx};
use crate::format::{device_name, short};
use crate::i18n::{self, Lang};
use crate::state::State;

/// The sweep's columns, in order: batch, then the parts alive at the peak,
/// their sum, and the required memory.
fn headers(lang: Lang) -> [&'static str; 5] {
    let w = i18n::words(lang);
    [
        w.sweep_batch,
        w.sweep_states,
        w.answer.activations,
        w.sweep_total,
        w.answer.required,
    ]
}

/// The sweep as a Markdown table (for "Copy table"), in the page's language.
pub fn markdown(lang: Lang, rows: &[SweepRow], units: Units) -> String {
    let mut out = format!(
        "| {} |\n|---:|---:|---:|---:|---:|\n",
        headers(lang).join(" | ")
    );
    for row in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            i18n::group(lang, u128::from(row.batch)),
            i18n::decimal(lang, &units::format_bytes(row.model_states, units)),
            i18n::decimal(lang, &units::format_bytes(row.activations, units)),
            i18n::decimal(lang, &units::format_bytes(row.total, units)),
            i18n::decimal(lang, &units::format_bytes(row.required, units)),
        ));
    }
    out
}

/// The sweep as CSV with exact bytes (for "Download CSV"): a header in the
/// page's language, then integers a spreadsheet reads in any locale.
pub fn csv(lang: Lang, rows: &[SweepRow]) -> String {
    let [batch, rest @ ..] = headers(lang);
    let mut out = std::iter::once(batch.to_owned())
        .chain(rest.iter().map(|h| format!("{h} (bytes)")))
        .map(|h| format!("\"{h}\""))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
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
            capacity: config
                .device
                .map(|d| (device_name(lang.get(), d), d.usable_bytes())),
            x_label: w().sweep_batch.to_owned(),
            y_label: w().sweep_axis.to_owned(),
            units: config.units,
            lang: lang.get(),
            dark: state.dark.get(),
        }
    });
    let chart_label = rx(move || {
        let units = state.config.get().units;
        let points: Vec<String> = state
            .sweep
            .get()
            .iter()
            .map(|r| format!("{} → {}", r.batch, short(lang.get(), r.required, units)))
            .collect();
        format!("{}: {}", w().sweep_title, points.join(", "))
    });
    let heading = |pick, class: &str| {
        el("th")
            .attr("scope", "col")
            .class(class)
            .bind_text(i18n::tr(lang, pick))
    };
    // On a phone the table shows batch, peak and required; the parts are one
    // tap away.
    let all_columns = RwSignal::new(false);
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
                                .bind_class("all-columns", rx(move || all_columns.get()))
                                .child(el("thead").child(el("tr").children([
                                    heading(|w| w.sweep_batch, "batch"),
                                    heading(|w| w.sweep_states, "part"),
                                    heading(|w| w.answer.activations, "part"),
                                    heading(|w| w.sweep_total, "peak"),
                                    heading(|w| w.answer.required, "required"),
                                ])))
                                // Row i reads its numbers from the sweep, so an edit
                                // updates text in place; rows are built again only
                                // when their count changes (docs/performance-log.md).
                                .child(el("tbody").list(
                                    rx(move || state.sweep.with(Vec::len)),
                                    Box::new(move |index| row(state, index)),
                                )),
                        )
                        .child(
                            el("button")
                                .attr("type", "button")
                                .class("columns-toggle")
                                .attr("data-testid", "sweep-columns")
                                .bind_attr(
                                    "aria-pressed",
                                    rx(move || Some(all_columns.get().to_string())),
                                )
                                .on(
                                    Ev::Click,
                                    Box::new(move |_| all_columns.update(|on| *on = !*on)),
                                )
                                .bind_text(rx(move || {
                                    if all_columns.get() {
                                        w().sweep_fewer_columns
                                    } else {
                                        w().sweep_all_columns
                                    }
                                    .to_owned()
                                })),
                        )
                        .child(el("p").class("legend").bind_text(rx(move || {
                            format!("▸ {} · ✗ {}", w().sweep_chosen, w().sweep_over)
                        })))
                        .child(
                            el("p")
                                .class("legend")
                                .bind_text(i18n::tr(lang, |w| w.sweep_note)),
                        ),
                )
                .child(charts::sweep_canvas(
                    chart,
                    chart_label,
                    i18n::tr(lang, |w| w.chart_failed),
                )),
        )
}

/// Row `index` of the sweep: batch, model states, activations, total, required. One
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
    let cells: [El; 4] = [
        el("td").class("part").attr("data-testid", "model-states"),
        el("td").class("part").attr("data-testid", "activations"),
        el("td").class("peak").attr("data-testid", "total"),
        el("td").class("required").attr("data-testid", "required"),
    ];
    let tr = el("tr").child(th).children(cells.clone());
    let (mark, notes, element) = (mark.text_node(), notes.text_node(), tr.node().clone());
    let texts: Vec<web_sys::Text> = cells.iter().map(El::text_node).collect();
    dom::bind(
        rx(move || {
            // A row the shorter sweep no longer has reads as zeros until the
            // list removes it.
            let row = state.sweep.with(|rows| rows.get(index).copied());
            let (chosen, capacity, units) = state
                .config
                .with(|c| (c.batch(), c.device.map(|d| d.usable_bytes()), c.units));
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
            for ((cell, text), bytes) in cells.iter().zip(&texts).zip([
                row.model_states,
                row.activations,
                row.total,
                row.required,
            ]) {
                let _ = cell.node().set_attribute("data-bytes", &bytes.to_string());
                let _ = cell
                    .node()
                    .set_attribute("title", &i18n::exact_bytes(lang, bytes));
                text.set_data(&i18n::decimal(lang, &units::format_bytes(bytes, units)));
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
    fn csv_carries_exact_bytes_under_a_header_in_the_language() {
        assert_eq!(
            csv(Lang::En, &rows()),
            "\"Batch size\",\"Model states at the peak (bytes)\",\"Activations (bytes)\",\"Peak allocated (bytes)\",\"Required (bytes)\"\n1,10,5,15,20\n16,10,80,90,95\n"
        );
        assert!(
            csv(Lang::Es, &rows())
                .starts_with("\"Tamaño de lote\",\"Estados del modelo en el pico (bytes)\"")
        );
    }

    #[test]
    fn markdown_has_a_header_and_one_line_per_row() {
        let table = markdown(Lang::En, &rows(), Units::Decimal);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0],
            "| Batch size | Model states at the peak | Activations | Peak allocated | Required |"
        );
        assert_eq!(lines[3], "| 16 | 10 B | 80 B | 90 B | 95 B |");
        assert!(markdown(Lang::Es, &rows(), Units::Decimal).starts_with("| Tamaño de lote |"));
    }
}
