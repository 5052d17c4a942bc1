//! batchfit in the browser. This crate binds form fields to `batchfit-core`,
//! renders the results and keeps the URL in sync; every number it shows comes
//! from the core.

use batchfit_core::query::{self, Config};
use leptos::prelude::*;

mod activations_form;
mod field;
mod location;
mod results;

use activations_form::{ActivationsFields, ActivationsForm};
use results::{ActivationsResults, UrlNotice};

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let opened = query::parse(&location::current_query());
    let problems = opened.problems;
    let units = RwSignal::new(opened.config.units);
    let fields = ActivationsFields::new(&opened.config.activations);
    let base = opened.config;

    // `Err` while any field is invalid; the results then keep the last good input.
    let input = Memo::new(move |_| fields.validated());
    let last_good = Memo::new(move |previous| match input.get() {
        Ok(input) => input,
        Err(()) => previous.copied().unwrap_or_default(),
    });

    // The outside world: rewrite the address bar as the user types, without
    // adding a history entry per keystroke.
    Effect::new(move |_| {
        if let Ok(activations) = input.get() {
            let config = Config {
                activations,
                units: units.get(),
                ..base.clone()
            };
            location::replace_query(&query::to_query(&config));
        }
    });

    view! {
        <header class="top-bar">
            <div class="brand">
                <h1>"batchfit"</h1>
                <p class="promise">"Will this batch fit? Training memory, before you rent the GPU."</p>
            </div>
            <results::UnitsSwitch units=units />
        </header>
        <UrlNotice problems=problems />
        <main class="layout">
            <section class="inputs" aria-labelledby="inputs-title">
                <h2 id="inputs-title">"Activations: the rule of thumb"</h2>
                <p class="form-help">
                    "batch × sequence length × hidden size × layers × bytes × k, with k ≈ 10."
                </p>
                <ActivationsForm fields=fields />
            </section>
            <section class="results" aria-labelledby="results-title" aria-live="polite">
                <h2 id="results-title">"Activation memory"</h2>
                <ActivationsResults input=last_good stale=Signal::derive(move || input.get().is_err()) units=units />
            </section>
        </main>
    }
}
