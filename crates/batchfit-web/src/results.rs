//! What the user came for: the numbers, in labelled units, with exact bytes in
//! `data-bytes` (and on hover) so that tests and embedders never parse prose.

use batchfit_core::activations::{self, ActivationsInput};
use batchfit_core::fields::{ParamError, group_thousands};
use batchfit_core::units::{self, Units};
use leptos::prelude::*;

use crate::field::message;

/// One labelled size. `data-bytes` holds the exact integer.
#[component]
fn SizeValue(testid: &'static str, bytes: Signal<u128>, units: RwSignal<Units>) -> impl IntoView {
    view! {
        <span
            class="value"
            data-testid=testid
            data-bytes=move || bytes.get().to_string()
            title=move || format!("{} bytes", exact(bytes.get()))
        >
            {move || units::format_bytes(bytes.get(), units.get())}
        </span>
    }
}

fn exact(bytes: u128) -> String {
    u64::try_from(bytes).map_or_else(|_| bytes.to_string(), group_thousands)
}

#[component]
pub fn ActivationsResults(
    input: Memo<ActivationsInput>,
    stale: Signal<bool>,
    units: RwSignal<Units>,
) -> impl IntoView {
    let estimate = Memo::new(move |_| activations::estimate(&input.get()));
    let per_sample = Signal::derive(move || estimate.get().per_sample);
    let total = Signal::derive(move || estimate.get().total);
    let batch = move || input.get().batch;
    view! {
        <div class="result-card" class:stale=stale data-testid="results" data-stale=move || stale.get().to_string()>
            {move || stale.get().then(|| view! {
                <p class="stale-note" role="status">
                    "Not current: showing the last valid result. Fix the marked field to update it."
                </p>
            })}
            <dl class="result-list">
                <div class="result-row">
                    <dt>"Activations per sample"</dt>
                    <dd><SizeValue testid="activations-per-sample" bytes=per_sample units=units /></dd>
                </div>
                <div class="result-row total">
                    <dt>{move || format!("Activations for the batch of {}", batch())}</dt>
                    <dd><SizeValue testid="activations" bytes=total units=units /></dd>
                </div>
            </dl>
            <p class="units-note">
                {move || match units.get() {
                    Units::Decimal => "GB = 10⁹ bytes. Hover a number for its exact bytes.",
                    Units::Binary => "GiB = 2³⁰ bytes. Hover a number for its exact bytes.",
                }}
            </p>
        </div>
    }
}

/// GB or GiB, for every number on the page.
#[component]
pub fn UnitsSwitch(units: RwSignal<Units>) -> impl IntoView {
    view! {
        <label class="units-switch">
            <span>"Units"</span>
            <select name="units"
                prop:value=move || units.get().name()
                on:change=move |ev| {
                    if let Ok(u) = event_target_value(&ev).parse() {
                        units.set(u);
                    }
                }
            >
                <option value="gb">"GB (10⁹ bytes)"</option>
                <option value="gib">"GiB (2³⁰ bytes)"</option>
            </select>
        </label>
    }
}

/// What was wrong with the URL the page was opened with, named parameter by
/// parameter. Values are never echoed: they may be huge or hostile.
#[component]
pub fn UrlNotice(problems: Vec<ParamError>) -> impl IntoView {
    (!problems.is_empty()).then(|| {
        let names: Vec<String> = problems.iter().map(|p| p.name.clone()).collect();
        view! {
            <div class="notice" role="status" data-testid="url-notice" data-params=names.join(",")>
                <p>"Some link parameters were ignored; their fields use defaults:"</p>
                <ul>
                    {problems.into_iter().map(|p| view! {
                        <li data-param=p.name.clone()>{message(&format!("“{}”", truncate(&p.name)), &p.problem)}</li>
                    }).collect_view()}
                </ul>
            </div>
        }
    })
}

/// Unknown parameter names come from strangers' links: show at most 40 characters.
fn truncate(name: &str) -> String {
    match name.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_owned(),
    }
}
