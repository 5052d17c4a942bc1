//! batchfit in the browser. This crate binds form fields to `batchfit-core`,
//! renders the results and keeps the URL in sync; every number it shows comes
//! from the core.
//!
//! State flows one way: the raw text of each field (keyed by URL parameter) →
//! `query::parse` → the last valid `Config` → one memo of the estimate, read by
//! every view ([`state::State`]). Effects only touch the outside world: the
//! address bar, the document's language, the embedding host's iframe height.

use batchfit_core::fields::ParamError;
use batchfit_core::query::{self, Lang};
use batchfit_core::units::Units;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

mod charts;
pub mod crash;
mod faq;
mod fields;
mod forms;
mod i18n;
mod location;
mod results;
mod share;
mod state;
mod sweep;

use state::State;

/// The name of the `performance.mark` set once the first estimate is in the DOM.
pub const FIRST_ESTIMATE_MARK: &str = "batchfit:first-estimate";

/// The page language: the link's `lang`, else the browser's, else English.
fn browser_lang() -> Lang {
    let language = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default();
    if language.to_ascii_lowercase().starts_with("es") {
        Lang::Es
    } else {
        Lang::En
    }
}

/// Whether the user's system asks for a dark theme, kept current by the media
/// query's `change` event: the charts read it on every redraw, and asking
/// `matchMedia` there would query the browser on every edit.
pub(crate) fn dark_theme() -> ReadSignal<bool> {
    let query = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
    let (dark, set_dark) = signal(query.as_ref().is_some_and(|m| m.matches()));
    if let Some(query) = query {
        let watched = query.clone();
        let changed = Closure::<dyn FnMut()>::new(move || set_dark.set(watched.matches()));
        let _ = query.add_event_listener_with_callback("change", changed.as_ref().unchecked_ref());
        // The listener lives as long as the page.
        changed.forget();
    }
    dark
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let opened = query::parse(&location::current_query());
    let lang = opened.config.lang.unwrap_or_else(browser_lang);
    let state = State::new(&opened.config, lang);
    let embed = opened.config.embed;

    // The outside world: rewrite the address bar as the user types, without a
    // history entry per keystroke; keep <html lang> right for screen readers.
    Effect::new(move |_| location::replace_query(query::to_query(&state.config.get())));
    location::write_when_leaving();
    Effect::new(move |_| {
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("lang", state.lang.get().name());
        }
    });
    if embed {
        report_height_to_host();
    }

    view! {
        {(!embed).then(|| view! { <TopBar state=state /> })}
        <UrlNotice problems=opened.problems lang=state.lang />
        <div class="page" class:embed=embed>
            <forms::FormTabs state=state />
            <main class="layout">
                <section class="inputs" aria-labelledby="inputs-title">
                    <h2 id="inputs-title">{i18n::text(state.lang, |w| w.inputs_title)}</h2>
                    <forms::Inputs state=state />
                </section>
                <section class="results" aria-labelledby="results-title" aria-live="polite">
                    <h2 id="results-title">{i18n::text(state.lang, |w| w.results_title)}</h2>
                    <results::Results state=state />
                    {embed.then(|| view! {
                        <p class="open-full">
                            <a href=move || location::url_for(&state.config.get(), false) target="_blank" rel="noopener noreferrer">
                                {i18n::text(state.lang, |w| w.open_full)}
                            </a>
                        </p>
                    })}
                </section>
            </main>
            {(!embed).then(|| view! {
                <sweep::Sweep state=state />
                <share::Share state=state />
                <faq::HowItWorks state=state />
                <footer class="disclaimer"><p>{i18n::text(state.lang, |w| w.disclaimer)}</p></footer>
            })}
        </div>
    }
}

#[component]
fn TopBar(state: State) -> impl IntoView {
    let lang = state.lang;
    let units = state.text("units");
    let switch_lang = move |to: Lang| {
        lang.set(to);
        state.text("lang").set(to.name().to_owned());
    };
    view! {
        <header class="top-bar">
            <div class="brand">
                <h1>"batchfit"</h1>
                <p class="promise">{i18n::text(lang, |w| w.promise)}</p>
            </div>
            <div class="switches">
                <div class="lang-switch" role="group" aria-label=i18n::text(lang, |w| w.language)>
                    {[Lang::En, Lang::Es].map(|option| view! {
                        <button type="button" data-testid=format!("lang-{}", option.name())
                            aria-pressed=move || (lang.get() == option).to_string()
                            on:click=move |_| switch_lang(option)
                        >{option.name().to_ascii_uppercase()}</button>
                    })}
                </div>
                <label class="units-switch">
                    <span>{i18n::text(lang, |w| w.units)}</span>
                    <select name="units" prop:value=move || units.get()
                        on:change=move |ev| units.set(event_target_value(&ev))
                    >
                        <option value=Units::Decimal.name() selected=move || units.with(|u| u == "gb")>{i18n::text(lang, |w| w.units_gb)}</option>
                        <option value=Units::Binary.name() selected=move || units.with(|u| u == "gib")>{i18n::text(lang, |w| w.units_gib)}</option>
                    </select>
                </label>
            </div>
        </header>
    }
}

/// What was wrong with the URL the page was opened with, parameter by parameter.
/// Values are never echoed (they may be huge or hostile); names are cut at 40
/// characters and shown as text.
#[component]
fn UrlNotice(problems: Vec<ParamError>, lang: RwSignal<Lang>) -> impl IntoView {
    (!problems.is_empty()).then(|| {
        let names: Vec<String> = problems.iter().map(|p| p.name.clone()).collect();
        view! {
            <div class="notice" role="status" data-testid="url-notice" data-params=names.join(",")>
                <p>{i18n::text(lang, |w| w.url_notice)}</p>
                <ul>
                    {problems.into_iter().map(|p| {
                        let name = format!("“{}”", truncate(&p.name));
                        view! {
                            <li data-param=p.name.clone()>{move || fields::message(lang.get(), &name, &p.problem)}</li>
                        }
                    }).collect_view()}
                </ul>
            </div>
        }
    })
}

fn truncate(name: &str) -> String {
    match name.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_owned(),
    }
}

/// Embedded in an iframe: tell the host page our height whenever it changes, so
/// it can size the iframe without an inner scrollbar. The message carries only
/// the height; the page listens to no message from its host.
fn report_height_to_host() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    if parent == window {
        return;
    }
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    let measured = body.clone();
    let post = Closure::<dyn FnMut()>::new(move || {
        let height = measured.get_bounding_client_rect().height().ceil();
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"batchfit:resize".into());
        let _ = js_sys::Reflect::set(&message, &"height".into(), &height.into());
        let _ = parent.post_message(&message, "*");
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(post.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // The observer lives as long as the page.
    post.forget();
}
