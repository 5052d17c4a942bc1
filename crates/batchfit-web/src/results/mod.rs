//! What the user came for: the headline, the fits badge, the breakdown bar and
//! table, and what would make it fit. Every size carries its exact integer bytes
//! in `data-bytes` (and on hover) so that tests and embedders never parse prose.

mod bar;
mod breakdown;
mod summary;
mod what_ifs;

use crate::prelude::*;
use batchfit_core::query::Form;
use batchfit_core::units::Units;

use crate::dom::{El, el, rx};
use crate::format::{device_name, short};
use crate::i18n;
use crate::serving;
use crate::state::State;

use breakdown::{breakdown, breakdown_table};
use summary::summary;
pub use summary::{first_answer, mini_summary};
use what_ifs::what_ifs;

/// The answer alone, for a compact embed (`embed=compact`): the headline,
/// the verdict and the bar.
pub fn compact(state: State) -> El {
    card(state).child(serving::serving(state))
}

/// The result card's frame with the headline, the verdict and the bar.
fn card(state: State) -> El {
    el("div")
        .class("result-card")
        .bind_class("stale", rx(move || state.stale()))
        // A serving engine plans its own memory: its plan is the answer, and
        // generate()'s estimate at a batch, with what would make it fit, is
        // hidden (issue 29).
        .bind_class("serving", rx(move || serving::serves(state)))
        .attr("data-testid", "results")
        .bind_attr("data-stale", rx(move || Some(state.stale().to_string())))
        .child(summary(state))
        .child(breakdown(state))
}

/// What the estimate reads: the headline, the badge, the breakdown and what
/// would make it fit.
pub fn results(state: State) -> El {
    card(state)
        .child(breakdown_table(state))
        .child(crate::stages::stages(state))
        .child(serving::serving(state))
        // Inference: the stack the estimate assumes (issue 28).
        .show(
            rx(move || {
                state.config.with(|c| {
                    c.form == Form::Transformer
                        && c.transformer.mode == batchfit_core::transformer::Mode::Inference
                        && !c.transformer.framework.engine()
                })
            }),
            Box::new(move || {
                vec![
                    el("p")
                        .class("legend")
                        .attr("data-testid", "inference-stack")
                        .bind_text(i18n::tr(state.lang, |w| w.inference_stack)),
                ]
            }),
        )
        // Settings the device cannot run: the estimate stands, the stack
        // refuses or emulates them there.
        .rebuild(
            rx(move || {
                (
                    state.config.with(batchfit_core::hardware::warnings),
                    state.lang.get(),
                )
            }),
            Box::new(move |(warnings, lang)| {
                let language = i18n::language(*lang);
                warnings
                    .iter()
                    .map(|&warning| {
                        el("p")
                            .class("legend")
                            .attr("data-testid", "hardware-warning")
                            .attr("data-warning", warning.name())
                            .text(&(language.hardware)(warning))
                    })
                    .collect()
            }),
        )
        // The parameters form's dead end, said: no batch can fit where the
        // model states alone exceed the device.
        .show(
            rx(move || {
                state.config.with(|c| c.form == Form::Parameters)
                    && state.estimate.with(|e| e.states_exceed_device())
            }),
            Box::new(move || {
                vec![
                    el("p")
                        .class("legend")
                        .attr("data-testid", "states-exceed")
                        .bind_text(rx(move || {
                            let lang = state.lang.get();
                            let (e, config) = (state.estimate.get(), state.config.get());
                            let device = config
                                .device
                                .map_or_else(String::new, |d| device_name(lang, d));
                            (i18n::language(lang).states_exceed)(
                                &short(lang, e.model_states(), config.units),
                                &device,
                            )
                        })),
                ]
            }),
        )
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
        .child(
            el("p")
                .class("units-note")
                .bind_text(rx(move || {
                    let w = i18n::words(state.lang.get());
                    let units = match state.config.get().units {
                        Units::Decimal => w.units_note_gb,
                        Units::Binary => w.units_note_gib,
                    };
                    format!("{units} {} ", w.tap_for_bytes)
                }))
                .child(crate::format::exact_toggle(state)),
        )
        .child(what_ifs(state))
        .child(crate::fixes::fixes(state))
        .child(crate::compare::compare(state))
        .child(crate::devices::devices(state))
        .child(crate::measure::measurement(state))
}

#[cfg(test)]
mod tests;
