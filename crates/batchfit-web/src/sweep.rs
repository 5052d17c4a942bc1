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
            dark: crate::prefers_dark(),
        }
    });
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
                            {move || {
                                let config = state.config.get();
                                let device = config.device.map(|d| d.bytes());
                                let chosen = config.batch();
                                let units = config.units;
                                let lang = lang.get();
                                let w = i18n::words(lang);
                                state.sweep.get().into_iter().map(|row| {
                                    let over = device.is_some_and(|d| row.required > d);
                                    let is_chosen = row.batch == chosen;
                                    let cell = move |bytes: u128| view! {
                                        <td data-bytes=bytes.to_string() title=format!("{} bytes", i18n::group(lang, bytes))>
                                            {units::format_bytes(bytes, units)}
                                        </td>
                                    };
                                    view! {
                                        <tr data-batch=row.batch.to_string() class:chosen=is_chosen class:over=over
                                            data-over=over.to_string() aria-current=is_chosen.then_some("true")>
                                            <th scope="row">
                                                <span class="mark" aria-hidden="true">{if over { "✗" } else if is_chosen { "▸" } else { "" }}</span>
                                                {i18n::group(lang, u128::from(row.batch))}
                                                {is_chosen.then(|| view! { <span class="visually-hidden">{format!(" ({})", w.sweep_chosen)}</span> })}
                                                {over.then(|| view! { <span class="visually-hidden">{format!(" ({})", w.sweep_over)}</span> })}
                                            </th>
                                            {cell(row.model_states)}
                                            {cell(row.activations)}
                                            {cell(row.total)}
                                        </tr>
                                    }
                                }).collect_view()
                            }}
                        </tbody>
                    </table>
                    <p class="legend">{move || format!("▸ {} · ✗ {}", w().sweep_chosen, w().sweep_over)}</p>
                </div>
                {(!without_chart).then(|| view! { <SweepCanvas chart=chart label=chart_label /> })}
            </div>
        </section>
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
