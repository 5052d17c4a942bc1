//! batchfit in the browser. This crate binds form fields to `batchfit-core`,
//! renders the results and keeps the URL in sync; every number it shows comes
//! from the core.
//!
//! State flows one way: the raw text of each field (keyed by URL parameter) →
//! `query::parse` → the last valid `Config` → one memo of the estimate, read by
//! every view ([`state::State`]). Effects only touch the outside world: the
//! address bar, the document's language, the embedding host's iframe height.

use crate::prelude::*;
use batchfit_core::fields::{Name, ParamError};
use batchfit_core::query::{self, Config, Embed, Form, Lang, Param};
use batchfit_core::units::Units;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

pub mod prelude;

mod canvas;
mod charts;
mod compare;
pub mod crash;
mod devices;
mod dom;
mod faq;
mod fields;
mod fixes;
mod format;
mod forms;
mod i18n;
mod location;
mod measure;
mod messages;
mod results;
mod serving;
mod share;
mod stages;
mod state;
mod step;
mod sweep;

pub use dom::mount;
use dom::{El, Ev, el, rx};
pub use results::first_answer;
use state::State;

/// The name of the `performance.mark` set once the first estimate is in the DOM.
pub const FIRST_ESTIMATE_MARK: &str = "batchfit:first-estimate";
/// The name of the `performance.mark` set once the app has replaced the shell.
pub const INTERFACE_MARK: &str = "batchfit:interface";

/// The language the page opens in (the address's, else the browser's), and
/// the texts its answer is written with fetched if they are a chunk
/// (`i18n::load_answer`); `main` starts once this is done.
pub async fn load_opening_language() {
    i18n::load_answer(opening_lang()).await;
}

/// Whether the opening language's answer can be written now, from the
/// module, in this task.
pub fn opening_language_ready() -> bool {
    i18n::answer_ready(opening_lang())
}

/// The address's language, else the browser's (what [`app`] opens in).
fn opening_lang() -> Lang {
    query::parse(&location::current_query())
        .config
        .lang
        .unwrap_or_else(browser_lang)
}

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

/// What the visitor did in the stand-in before the app arrived: the fields
/// they changed, by name, with the property and its new value, and the field
/// that had the focus.
#[derive(Debug, Default)]
struct StandInEdits {
    edits: Vec<(String, &'static str, wasm_bindgen::JsValue)>,
    focused: Option<String>,
}

/// Removes what stood in for the app until its module arrived (the form
/// shell `boot.js` showed, built by `cargo xtask dist`; or, under `trunk
/// serve`, the loading line) and returns what the visitor changed in it.
/// Call it in the task that mounts the app, before building it, then
/// [`replay_edits`]: the browser cannot paint in between, so it shows either
/// the stand-in or the app, never neither, and the app's construction never
/// lays out both. `boot.js` makes the address's values the fields' defaults,
/// so only the visitor's own edits differ from them.
fn take_stand_in() -> StandInEdits {
    let document = dom::document();
    let Some(stand_in) = document.query_selector(".shell, #boot").ok().flatten() else {
        return StandInEdits::default();
    };
    let focused = document.active_element();
    let mut taken = StandInEdits::default();
    let fields = stand_in
        .query_selector_all("input[name], select[name], textarea[name]")
        .ok();
    for i in 0..fields.as_ref().map_or(0, web_sys::NodeList::length) {
        let Some(field) = fields
            .as_ref()
            .and_then(|f| f.item(i))
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let name = field.get_attribute("name").unwrap_or_default();
        let node: &wasm_bindgen::JsValue = field.as_ref();
        let edited = if property(node, "type").as_string().as_deref() == Some("checkbox") {
            Some(("checked", property(node, "checked")))
                .filter(|(_, now)| *now != property(node, "defaultChecked"))
        } else if field.tag_name() == "SELECT" {
            let chosen = field
                .query_selector("option[selected]")
                .ok()
                .flatten()
                .map(|o| property(o.as_ref(), "value"));
            Some(("value", property(node, "value")))
                .filter(|(_, now)| chosen.is_some_and(|c| *now != c))
        } else {
            Some(("value", property(node, "value")))
                .filter(|(_, now)| *now != property(node, "defaultValue"))
        };
        if let Some((key, now)) = edited {
            taken.edits.push((name.clone(), key, now));
        }
        if focused.as_ref() == Some(&field) {
            taken.focused = Some(name);
        }
    }
    stand_in.remove();
    taken
}

/// The shell's fields as the app will show them for `config`, the setup the
/// first answer is for. boot.js gave them the address's own values; the
/// others are the pre-rendered page's (the transformer shell's are the first
/// screen's, `query::FIRST_SCREEN`), which on another address are not that
/// setup's: a visitor who only reads would see a batch the answer is not
/// for. Each field the visitor has not changed (its value still its
/// default) takes the setup's value, as its default too, so that
/// [`take_stand_in`] still finds only the visitor's own edits. A select
/// without that value gets it as an option, worded as the app words it.
/// The values are `query::shown_values`, the shells' fields' part of what
/// the app fills its fields from: the writer of every parameter stays in
/// the interface.
fn fill_stand_in(shell: &web_sys::Element, address: &str, config: &Config, lang: Lang) {
    let named = |name: &str| {
        shell
            .query_selector(&format!("[name=\"{name}\"]"))
            .ok()
            .flatten()
    };
    let words = i18n::answer_words(lang);
    let custom = matches!(
        config.device,
        Some(batchfit_core::presets::Device::Custom { .. })
    );
    // Where the app shows a field: where its parameter applies
    // (`query::rules`, as `fields::frame` hides the others), and a typed
    // capacity only with the custom device (`forms::device_picker`).
    let shown = |param| query::rules::applies(param, config) && (param != Param::GpuGb || custom);
    for (param, value) in query::shown_values(config) {
        let Some(field) = named(param.name()) else {
            continue;
        };
        // The shell keeps, hidden, the fields the pre-rendered setup hid
        // (the generated tokens, a typed capacity).
        if let Ok(Some(frame)) = field.closest(".field") {
            let _ = frame.toggle_attribute_with_force("hidden", !shown(param));
        }
        let node: &wasm_bindgen::JsValue = field.as_ref();
        if param == Param::Gpu {
            // The select's value for a typed capacity is the app's, not the
            // address's (which names no preset then).
            let value = if custom {
                state::CUSTOM_DEVICE
            } else {
                value.as_str()
            };
            fill_select(&field, value, || option_label(lang, param, value));
        } else if field.tag_name() == "SELECT" {
            fill_select(&field, &value, || option_label(lang, param, &value));
        } else if property(node, "type").as_string().as_deref() == Some("checkbox") {
            if property(node, "checked") == property(node, "defaultChecked") {
                let on = wasm_bindgen::JsValue::from_bool(value == "1");
                set_property(node, "defaultChecked", &on);
                set_property(node, "checked", &on);
            }
        } else if property(node, "value") == property(node, "defaultValue") {
            let mut text = state::localized(lang, param, value);
            // The parameter count is a number and a scale select, the
            // count split as the app splits it ("13B": 13, B).
            if param == Param::Params {
                let (number, scale) = fields::split_count(&text);
                if let Some(select) = named("params_scale") {
                    fill_select(&select, scale, || scale.to_owned());
                }
                text = number;
            }
            let text = wasm_bindgen::JsValue::from_str(&text);
            set_property(node, "defaultValue", &text);
            set_property(node, "value", &text);
        }
    }
    // The task is no parameter: the app reads it from those that state it.
    if config.form == Form::Transformer
        && let Some(select) = named("method")
    {
        let method = batchfit_core::transformer::Method::of(&config.transformer).name();
        fill_select(&select, method, || i18n::method(lang, method).to_owned());
    }
    // The closed groups' lines (`forms::values_line`) say the pre-rendered
    // setup's values (the transformer shell's, the first screen's): they
    // stay only on an address that states that setup, and the app writes
    // them elsewhere.
    if !(config.form == Form::Transformer && query::states_first_screen(address))
        && let Ok(lines) = shell.query_selector_all("summary > .values")
    {
        for line in (0..lines.length()).filter_map(|i| lines.item(i)) {
            line.set_text_content(None);
        }
    }
    // The settings group's title follows the task, as the app's.
    if config.transformer.mode == batchfit_core::transformer::Mode::Inference
        && let Ok(Some(title)) = shell.query_selector(".settings > summary > span:first-child")
    {
        title.set_text_content(Some(words.inference_title));
    }
}

/// The stand-in's `select` showing `value`, unless the visitor changed it
/// (its value not its default option's): as its default option, added and
/// worded by `label` if it has none, or named by its value alone (boot.js
/// names the options it adds so, until the app names them).
fn fill_select(select: &web_sys::Element, value: &str, label: impl FnOnce() -> String) {
    let node: &wasm_bindgen::JsValue = select.as_ref();
    let chosen = select.query_selector("option[selected]").ok().flatten();
    if chosen
        .as_ref()
        .is_some_and(|c| property(c.as_ref(), "value") != property(node, "value"))
    {
        return;
    }
    let option = select
        .query_selector(&format!("option[value=\"{value}\"]"))
        .ok()
        .flatten()
        .unwrap_or_else(|| {
            let option = el("option").attr("value", value).node().clone();
            let _ = select.append_child(&option);
            option
        });
    if option
        .text_content()
        .is_none_or(|t| t.is_empty() || t == value)
    {
        option.set_text_content(Some(&label()));
    }
    if let Some(chosen) = chosen {
        let _ = chosen.remove_attribute("selected");
    }
    let _ = option.set_attribute("selected", "");
    set_property(node, "value", &value.into());
}

fn property(node: &wasm_bindgen::JsValue, key: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(node, &key.into()).unwrap_or_default()
}

fn set_property(node: &wasm_bindgen::JsValue, key: &str, value: &wasm_bindgen::JsValue) {
    let _ = js_sys::Reflect::set(node, &key.into(), value);
}

/// How the app's select `param` names its option `value` (the device
/// select's first and last: no device, a typed capacity).
fn option_label(lang: Lang, param: Param, value: &str) -> String {
    use batchfit_core::presets;
    let words = i18n::answer_words(lang);
    match param {
        Param::Gpu if value.is_empty() => words.no_device.to_owned(),
        Param::Gpu if value == state::CUSTOM_DEVICE => words.custom_device.to_owned(),
        Param::Gpu => presets::DEVICES
            .iter()
            .find(|d| d.id == value)
            .map_or_else(|| value.to_owned(), |d| format::preset_name(lang, d)),
        Param::Model => presets::MODELS
            .iter()
            .find(|m| m.id == value)
            .map_or_else(|| value.to_owned(), format::model_name),
        _ => i18n::option(lang, param, value),
    }
}

/// Replays the stand-in's edits into the app's fields of the same names, as
/// the events an edit fires (the app's own handlers read them), and gives
/// the focus to the field that had it.
fn replay_edits(taken: StandInEdits) {
    let document = dom::document();
    let field = |name: &str| {
        document
            .query_selector(&format!("[name=\"{name}\"]"))
            .ok()
            .flatten()
    };
    for (name, key, now) in taken.edits {
        let Some(app_field) = field(&name) else {
            continue;
        };
        let _ = js_sys::Reflect::set(app_field.as_ref(), &key.into(), &now);
        for kind in ["input", "change"] {
            if let Ok(event) = web_sys::Event::new(kind) {
                let _ = app_field.dispatch_event(&event);
            }
        }
    }
    if let Some(focusable) = taken
        .focused
        .and_then(|name| field(&name))
        .and_then(|f| f.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = focusable.focus();
    }
}

/// Builds the whole page into `parent` and keeps it current. Call it inside a
/// reactive owner ([`mount`] makes one): the page's bindings live as long as
/// that owner.
pub fn app(parent: &web_sys::Element) {
    finish(parent, open());
}

/// Writes the address's answer into index.html's stand-in, then mounts the
/// app in its place, and marks the moments the first estimate is in the DOM
/// ([`FIRST_ESTIMATE_MARK`]) and the app is ([`INTERFACE_MARK`]).
///
/// The answer comes before the interface (issue 31): with the pre-rendered
/// shell shown, [`first_answer`] writes the address's headline, verdict and
/// bar into it with plain DOM writes and the core's estimate. The
/// interface (the forms, the reactive graph, every section) is [`interface`],
/// in the split build a chunk of its own, fetched on the visitor's first
/// action (a pointer, a key, a wheel, a touch, a scroll or a focus, which
/// boot.js records from the start): a visitor who only reads the answer
/// loads nothing more. What is typed into the shell meanwhile carries over.
/// Where no answer can stand in the shell, and without a shell (`trunk
/// serve`'s loading line), the interface is fetched and built at once; in
/// an embed too, after the answer: the frame's height, which the host page
/// sizes the frame by, is the interface's message.
pub fn start() {
    let query = location::current_query();
    let shell = dom::document()
        .query_selector(".shell:not([hidden])")
        .ok()
        .flatten();
    let config = query::parse(&query).config;
    let answered = shell.as_ref().is_some_and(|shell| {
        let answered = first_answer(shell, &query, browser_lang());
        if answered {
            fill_stand_in(
                shell,
                &query,
                &config,
                config.lang.unwrap_or_else(browser_lang),
            );
        }
        answered
    });
    if answered {
        mark(FIRST_ESTIMATE_MARK);
        if config.embed == Embed::Off {
            after_first_action(|| wasm_bindgen_futures::spawn_local(open_interface(false)));
        } else {
            wasm_bindgen_futures::spawn_local(open_interface(false));
        }
    } else {
        wasm_bindgen_futures::spawn_local(open_interface(true));
    }
}

/// The name of the event boot.js dispatches on `window` at the visitor's
/// first action, and of the attribute it then sets on `<html>`.
const ACTED: &str = "batchfit:acted";
const ACTED_ATTRIBUTE: &str = "data-acted";

/// Runs `then` at the visitor's first action: now if boot.js has seen one
/// already, else when it does.
fn after_first_action(then: impl FnOnce() + 'static) {
    let html = dom::document().document_element();
    if html.is_none_or(|html| html.has_attribute(ACTED_ATTRIBUTE)) {
        then();
        return;
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    let once = web_sys::AddEventListenerOptions::new();
    once.set_once(true);
    let _ = window.add_event_listener_with_callback_and_add_event_listener_options(
        ACTED,
        Closure::once_into_js(then).unchecked_ref(),
        &once,
    );
}

/// Fetches the interface (in the split build) and builds it in place of the
/// stand-in; if it cannot be fetched, the answer stands and says so, with a
/// way to ask again. `first_estimate`: whether the app's own is the first
/// estimate.
async fn open_interface(first_estimate: bool) {
    // The interface's chunk is asked for at once, beside the page's texts in
    // its language (a Spanish page's); the app is built once both are here.
    #[cfg(batchfit_split)]
    wasm_bindgen_futures::spawn_local(async {
        let _ = preload_interface().await;
    });
    let built = match i18n::load(opening_lang()).await {
        Ok(()) => dom::later(interface()).await,
        Err(missing) => Err(missing),
    };
    match built {
        Ok(()) => {
            if first_estimate {
                mark(FIRST_ESTIMATE_MARK);
            }
            mark(INTERFACE_MARK);
        }
        Err(dom::ChunkMissing) => interface_failed(first_estimate),
    }
}

/// The interface: takes what was typed into the stand-in, builds the app
/// (the page's bindings live as long as the page: its owner is never
/// dropped) and replays those edits into it, in one task, so the browser
/// shows the stand-in or the app, never neither.
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(interface, fallible, preload(#[allow(unsafe_code)] preload_interface))
)]
fn interface() -> Result<(), dom::ChunkMissing> {
    if let Some(body) = dom::document().body() {
        let edits = take_stand_in();
        std::mem::forget(mount(|| app(&body)));
        replay_edits(edits);
    }
    Ok(())
}

/// The interface's chunk could not be fetched: the answer in the shell
/// stands, and an alert under it says so in the page's language, with a
/// button that asks for the chunk again (the loader keeps only a load that
/// succeeded). The browser's coming back online asks again too. While it
/// is on its way the alert is the loading line.
fn interface_failed(first_estimate: bool) {
    let document = dom::document();
    let Some(results) = document
        .query_selector(".shell:not([hidden]) section.results, #boot")
        .ok()
        .flatten()
    else {
        return;
    };
    while let Some(loading) = document.query_selector(".boot-loading").ok().flatten() {
        loading.remove();
    }
    let words = i18n::answer_words(opening_lang());
    let retry = el("button")
        .class("secondary")
        .attr("type", "button")
        .attr("data-testid", "interface-retry")
        .text(words.retry);
    let alert = el("p")
        .class("boot-failed")
        .attr("role", "alert")
        .attr("data-testid", "interface-failed")
        .text(words.interface_failed)
        .child(retry.clone());
    let _ = results.append_child(alert.node());
    let alert = alert.node().clone();
    let again = move || {
        // A click and the network's return both ask; the first that comes
        // while the alert stands does.
        if !alert.is_connected() {
            return;
        }
        alert.set_class_name("boot-loading");
        alert.set_text_content(Some(words.loading));
        let _ = alert.set_attribute("role", "status");
        let _ = alert.remove_attribute("data-testid");
        wasm_bindgen_futures::spawn_local(open_interface(first_estimate));
    };
    let once = web_sys::AddEventListenerOptions::new();
    once.set_once(true);
    let listen = |target: &web_sys::EventTarget, event: &str| {
        let again = again.clone();
        let _ = target.add_event_listener_with_callback_and_add_event_listener_options(
            event,
            Closure::once_into_js(again).unchecked_ref(),
            &once,
        );
    };
    listen(retry.node(), "click");
    if let Some(window) = web_sys::window() {
        listen(&window, "online");
    }
}

fn mark(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(name);
    }
}

/// What [`app`] builds first: what the address said, the page's state, the
/// results section and its one-line summary; [`finish`] puts the rest of the
/// page around them.
struct Opening {
    opened: query::Pair,
    /// Whether a bad value of the address stands in its field.
    kept_bad_values: bool,
    state: State,
    results: El,
    summary: El,
}

fn open() -> Opening {
    let opened = query::parse_pair(&location::current_query());
    let lang = opened.a.config.lang.unwrap_or_else(browser_lang);
    // An address with a setup B opens on B, the setup that was being changed.
    let shown = opened.b.as_ref().map_or(&opened.a.config, |b| &b.config);
    let state = State::new(shown, lang);
    if opened.b.is_some() {
        state.other.set(Some(opened.a.config));
        state.editing_b.set(true);
    }
    let kept_bad_values = opened.b.is_none() && keep_bad_values(state, &opened.a.problems);
    let embed = opened.a.config.embed;
    let tr = |pick| i18n::tr(state.lang, pick);
    let results = el("section")
        .class("results")
        .attr("aria-labelledby", "results-title")
        .attr("aria-live", "polite")
        .child(
            el("h2")
                .attr("id", "results-title")
                .bind_text(titled(state, |w| w.results_title)),
        )
        .child(match embed {
            Embed::Compact => results::compact(state),
            Embed::Off | Embed::Full => results::results(state),
        });
    let results = if embed != Embed::Off {
        results.child(
            el("p").class("open-full").child(
                el("a")
                    .bind_attr(
                        "href",
                        rx(move || Some(location::url_for(&state.query(Embed::Off)))),
                    )
                    .attr("target", "_blank")
                    .attr("rel", "noopener noreferrer")
                    .bind_text(tr(|w| w.open_full)),
            ),
        )
    } else {
        results
    };
    Opening {
        opened,
        kept_bad_values,
        state,
        results,
        summary: results::mini_summary(state),
    }
}

/// A bad value in the address, kept in its field as if it had been typed
/// there: the field is marked, the results are not current and give no
/// verdict until it is fixed. Whether any was kept.
fn keep_bad_values(state: State, problems: &[ParamError]) -> bool {
    let query = location::current_query();
    let mut kept = false;
    for problem in problems.iter().filter(|p| p.problem.is_in_the_value()) {
        let Name::Known(param) = problem.name else {
            continue;
        };
        // The language select has no field to mark: a bad `lang` only
        // falls back to the browser's.
        if param == Param::Lang {
            continue;
        }
        if let Some(text) = query::given(&query, param) {
            state.text(param).set(text);
            kept = true;
            // A typed capacity is the custom device's: its field shows, to
            // be fixed, only with that device picked.
            if param == Param::GpuGb && query::given(&query, Param::Gpu).is_none() {
                state.text(Param::Gpu).set(state::CUSTOM_DEVICE.to_owned());
            }
        }
    }
    kept
}

/// The rest of the page around [`Opening`]'s results, into `parent`.
fn finish(parent: &web_sys::Element, opening: Opening) {
    let Opening {
        opened,
        kept_bad_values,
        state,
        results,
        summary,
    } = opening;
    let embed = opened.a.config.embed;
    // The outside world: rewrite the address bar as the user types, without a
    // history entry per keystroke; keep <html lang> right for screen readers,
    // and the <title> in the page's language. An address with a bad value
    // stays as the user wrote it until the state changes: the first write
    // would replace it with the defaults.
    let skip_first = std::cell::Cell::new(kept_bad_values);
    dom::bind(
        rx(move || state.query(Embed::Off)),
        Box::new(move |query| {
            if !skip_first.replace(false) {
                location::replace_query(query.clone());
            }
        }),
    );
    location::write_when_leaving();
    dom::bind(
        rx(move || state.lang.get()),
        Box::new(|&lang| {
            let document = dom::document();
            if let Some(root) = document.document_element() {
                let _ = root.set_attribute("lang", lang.name());
            }
            document.set_title(i18n::words(lang).title);
        }),
    );
    if embed != Embed::Off {
        report_height_to_host();
    }

    let page = el("div")
        .class(match embed {
            Embed::Off => "page",
            Embed::Full => "page embed",
            Embed::Compact => "page embed compact",
        })
        .child(summary);
    // The compact embed is the answer alone: no form, no tabs.
    let page = if embed == Embed::Compact {
        page.child(el("main").class("layout").child(results))
    } else {
        page.child(forms::form_tabs(state)).child(
            el("main")
                .class("layout")
                .child(
                    el("section")
                        .class("inputs")
                        .attr("aria-labelledby", "inputs-title")
                        .child(
                            el("h2")
                                .attr("id", "inputs-title")
                                .bind_text(titled(state, |w| w.inputs_title)),
                        )
                        .child(forms::inputs(state)),
                )
                .child(results),
        )
    };
    if embed == Embed::Off {
        let _ = parent.append_child(top_bar(state).node());
    }
    let b_problems = opened.b.map(|b| b.problems).unwrap_or_default();
    if let Some(notice) = url_notice(opened.a.problems, b_problems, state.lang) {
        let _ = parent.append_child(notice.node());
    }
    let _ = parent.append_child(page.node());
    if embed == Embed::Off {
        below_the_fold(state, page);
    }
}

/// The sweep, the share panel, How it works and the disclaimer, built in a
/// task of their own after the one that puts the first estimate in the DOM
/// (and replaces the shell): they are below the fold, and the answer need
/// not wait for them. They belong to the page's owner like the rest.
/// A section's title, with the setup it shows while comparing ("Inputs · B").
fn titled(state: State, pick: fn(&i18n::Words) -> &'static str) -> dom::Rx<String> {
    rx(move || {
        let title = pick(i18n::words(state.lang.get()));
        match state.other.with(Option::is_some) {
            false => title.to_owned(),
            true if state.editing_b.get() => format!("{title} · B"),
            true => format!("{title} · A"),
        }
    })
}

fn below_the_fold(state: State, page: El) {
    let owner = Owner::current().unwrap_or_default();
    set_timeout(
        move || {
            owner.with(|| {
                let tr = |pick| i18n::tr(state.lang, pick);
                // generate()'s step and batch sweep, hidden under a serving
                // engine's plan (issue 29).
                let serves = move || serving::serves(state);
                page.child(step::step(state).bind_class("serving", rx(serves)))
                    .child(sweep::sweep(state).bind_class("serving", rx(serves)))
                    .child(share::share(state))
                    .child(faq::how_it_works(state))
                    .child(
                        el("footer")
                            .class("disclaimer")
                            .child(el("p").bind_text(tr(|w| w.disclaimer))),
                    );
            });
        },
        std::time::Duration::ZERO,
    );
}

fn top_bar(state: State) -> El {
    let lang = state.lang;
    let units = state.text(Param::Units);
    let switch_lang = move |to: Lang| {
        let switch = move || {
            state.set_lang(to);
            state.text(Param::Lang).set(to.name().to_owned());
        };
        if i18n::ready(to) {
            switch();
        } else {
            any_spawner::Executor::spawn_local(async move {
                // Without the language's texts the page stays as it is.
                if i18n::load(to).await.is_ok() {
                    switch();
                }
            });
        }
    };
    el("header")
        .class("top-bar")
        .child(
            el("div")
                .class("brand")
                .child(el("h1").text("batchfit"))
                .child(
                    el("p")
                        .class("promise")
                        .bind_text(i18n::tr(lang, |w| w.promise)),
                ),
        )
        .child(
            el("div")
                .class("switches")
                .child(
                    el("div")
                        .class("lang-switch")
                        .attr("role", "group")
                        .bind_attr(
                            "aria-label",
                            rx(move || Some(i18n::words(lang.get()).language.to_owned())),
                        )
                        .children([Lang::En, Lang::Es].map(|option| {
                            el("button")
                                .attr("type", "button")
                                .attr("data-testid", &format!("lang-{}", option.name()))
                                .bind_attr(
                                    "aria-pressed",
                                    rx(move || Some((lang.get() == option).to_string())),
                                )
                                .on(Ev::Click, Box::new(move |_| switch_lang(option)))
                                .text(&option.name().to_ascii_uppercase())
                        })),
                )
                .child(
                    el("label")
                        .class("units-switch")
                        .child(el("span").bind_text(i18n::tr(lang, |w| w.units)))
                        .child(
                            fields::select(
                                Units::NAMES,
                                Box::new(move |value| {
                                    let pick: fn(&i18n::Words) -> &'static str =
                                        if value == Units::Binary.name() {
                                            |w| w.units_gib
                                        } else {
                                            |w| w.units_gb
                                        };
                                    i18n::tr(lang, pick)
                                }),
                            )
                            .attr("name", "units")
                            .bind_prop("value", rx(move || units.get().into()))
                            .on(
                                Ev::Change,
                                Box::new(move |ev| units.set(fields::event_value(&ev))),
                            ),
                        ),
                ),
        )
}

/// What was wrong with the URL the page was opened with, parameter by parameter.
/// Values are never echoed (they may be huge or hostile); names are cut at 40
/// characters and shown as text.
fn url_notice(a: Vec<ParamError>, b: Vec<ParamError>, lang: RwSignal<Lang>) -> Option<El> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    // Setup B's parameters are named as the address writes them (`b.batch`).
    let problems: Vec<(String, ParamError)> = a
        .into_iter()
        .map(|p| (p.name.as_str().to_owned(), p))
        .chain(
            b.into_iter()
                .map(|p| (format!("{}{}", query::B_PREFIX, p.name.as_str()), p)),
        )
        .collect();
    let names: Vec<&str> = problems.iter().map(|(name, _)| name.as_str()).collect();
    Some(
        el("div")
            .class("notice")
            .attr("role", "status")
            .attr("data-testid", "url-notice")
            .attr("data-params", &names.join(","))
            .child(el("p").bind_text(i18n::tr(lang, |w| w.url_notice)))
            .child(el("ul").children(problems.into_iter().map(|(name, p)| {
                let shown = format!("“{}”", truncate(&name));
                el("li").attr("data-param", &name).bind_text(rx(move || {
                    messages::problem(lang.get(), &shown, &p.problem)
                }))
            }))),
    )
}

fn truncate(name: &str) -> String {
    let mut cut: String = name.chars().take(40).collect();
    if cut.len() < name.len() {
        cut.push('…');
    }
    cut
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
