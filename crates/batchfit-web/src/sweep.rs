//! How memory grows with the batch: a table and a line chart over powers of two,
//! from 1 to past the largest batch that fits, with the chosen batch highlighted
//! and the rows over the device's capacity marked.

use batchfit_core::memory::SweepRow;
use batchfit_core::units::{self, Units};
use leptos::prelude::*;

use crate::charts::{SweepCanvas, SweepChart};
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

#[component]
pub fn Sweep(state: State, #[prop(optional)] without_chart: bool) -> impl IntoView {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let chart = Signal::derive(move || {
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
    let row_count = Memo::new(move |_| state.sweep.with(Vec::len));
    let chart_label = Signal::derive(move || {
        let units = state.config.get().units;
        let points: Vec<String> = state
            .sweep
            .get()
            .iter()
            .map(|r| format!("{} → {}", r.batch, short(r.required, units)))
            .collect();
        format!("{}: {}", w().sweep_title, points.join(", "))
    });
    view! {
        <section class="sweep" aria-labelledby="sweep-title">
            <h2 id="sweep-title">{i18n::text(lang, |w| w.sweep_title)}</h2>
            <div class="sweep-body">
                <div class="table-scroll">
                    <table data-testid="sweep">
                        <thead>
                            <tr>
                                <th scope="col">{i18n::text(lang, |w| w.sweep_batch)}</th>
                                <th scope="col">{i18n::text(lang, |w| w.sweep_states)}</th>
                                <th scope="col">{i18n::text(lang, |w| w.activations)}</th>
                                <th scope="col">{i18n::text(lang, |w| w.sweep_total)}</th>
                            </tr>
                        </thead>
                        <tbody>
                            // Row i reads its numbers from the sweep, so an edit updates
                            // text in place; rows are built again only when their
                            // count changes (docs/performance-log.md).
                            {move || (0..row_count.get()).map(|index| view! {
                                <SweepRowView state=state index=index />
                            }).collect_view()}
                        </tbody>
                    </table>
                    <p class="legend">{move || format!("▸ {} · ✗ {}", w().sweep_chosen, w().sweep_over)}</p>
                </div>
                {(!without_chart).then(|| view! { <SweepCanvas chart=chart label=chart_label /> })}
            </div>
        </section>
    }
}

/// Row `index` of the sweep: batch, model states, activations, total.
#[component]
fn SweepRowView(state: State, index: usize) -> impl IntoView {
    let lang = state.lang;
    // The rows are built again when the sweep's length changes; a row the
    // shorter sweep no longer has reads as zeros until then.
    let row = Memo::new(move |_| state.sweep.with(|rows| rows.get(index).copied()));
    let number = move |pick: fn(&SweepRow) -> u128| row.with(|r| r.as_ref().map_or(0, pick));
    let batch = move || number(|r| u128::from(r.batch));
    let chosen = Memo::new(move |_| batch() == u128::from(state.config.with(|c| c.batch())));
    let over = Memo::new(move |_| {
        let required = number(|r| r.required);
        state
            .config
            .with(|c| c.device.is_some_and(|d| required > d.bytes()))
    });
    let cell = move |pick: fn(&SweepRow) -> u128| {
        let bytes = move || number(pick);
        view! {
            <td data-bytes=move || bytes().to_string()
                title=move || i18n::exact_bytes(lang.get(), bytes())
            >
                {move || units::format_bytes(bytes(), state.config.with(|c| c.units))}
            </td>
        }
    };
    view! {
        <tr data-batch=move || batch().to_string() class:chosen=chosen class:over=over
            data-over=move || over.get().to_string() aria-current=move || chosen.get().then_some("true")>
            <th scope="row">
                <span class="mark" aria-hidden="true">
                    {move || if over.get() { "✗" } else if chosen.get() { "▸" } else { "" }}
                </span>
                {move || i18n::group(lang.get(), batch())}
                <span class="visually-hidden">
                    {move || {
                        let w = i18n::words(lang.get());
                        let mut notes = String::new();
                        if chosen.get() {
                            notes.push_str(&format!(" ({})", w.sweep_chosen));
                        }
                        if over.get() {
                            notes.push_str(&format!(" ({})", w.sweep_over));
                        }
                        notes
                    }}
                </span>
            </th>
            {cell(|r| r.model_states)}
            {cell(|r| r.activations)}
            {cell(|r| r.total)}
        </tr>
    }
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
