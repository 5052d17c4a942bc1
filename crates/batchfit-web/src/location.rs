//! The address bar: read the query once at start, rewrite it as the state changes.
//!
//! Rewrites are coalesced: a burst of keystrokes becomes one `history.replaceState`
//! at most every [`WRITE_EVERY`], with the latest query, made when the main
//! thread is next idle (`requestIdleCallback`, at most [`IDLE_WITHIN`] later;
//! at once where the browser has no idle callbacks). Each call costs the
//! browser several milliseconds (it updates the session history entry: 4 to
//! 16 ms each in headless Chromium here, docs/performance-log.md; the CPU
//! profile found it the largest single cost of an edit when done per
//! keystroke), so one made beside an edit's work delays that edit's frame,
//! and Chromium throttles pages that call it hundreds of times in a few
//! seconds. Links the page hands out (copy link, embed, "open the
//! full calculator") are built from the state, never read back from the address
//! bar, so they are current even while a rewrite is pending.

use std::cell::RefCell;
use std::time::Duration;

use crate::prelude::set_timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// How long the state must have changed before the address bar is rewritten.
const WRITE_EVERY: Duration = Duration::from_millis(250);
/// The longest a rewrite then waits for the main thread to be idle, in ms.
const IDLE_WITHIN: u32 = 1000;

thread_local! {
    /// The query waiting to be written; `Some` while a write is scheduled.
    static PENDING: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The current query string without its `?` (empty outside a browser window).
pub fn current_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The page's own address: origin and path, without query or fragment.
fn page_address() -> String {
    web_sys::window()
        .map(|w| w.location())
        .and_then(|l| Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?)))
        .unwrap_or_default()
}

/// The address that opens the page in `config`'s state, as the compact widget
/// (`embed`) or as the full calculator.
pub fn url_for(query: &str) -> String {
    format!("{}?{query}", page_address())
}

/// Schedules the address bar to show `query` (see the module's note). A relative
/// `?…` URL keeps the page's own path, so this works from any sub-path the site
/// is served under.
pub fn replace_query(query: String) {
    let first = PENDING.with(|pending| pending.replace(Some(query)).is_none());
    if first {
        set_timeout(write_when_idle, WRITE_EVERY);
    }
}

/// Writes the scheduled query in the main thread's next idle period.
fn write_when_idle() {
    let Some(window) = web_sys::window() else {
        return;
    };
    if !js_sys::Reflect::has(&window, &"requestIdleCallback".into()).unwrap_or(false) {
        write_pending();
        return;
    }
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(IDLE_WITHIN);
    let write = Closure::once_into_js(write_pending);
    if window
        .request_idle_callback_with_options(write.unchecked_ref(), &options)
        .is_err()
    {
        write_pending();
    }
}

/// Writes the scheduled query now, if any: on the timer, and when the page is
/// being left (so a reload or the back button finds the latest state).
fn write_pending() {
    let Some(query) = PENDING.with(RefCell::take) else {
        return;
    };
    let Some(history) = web_sys::window().and_then(|w| w.history().ok()) else {
        return;
    };
    // A failure here (e.g. a sandboxed iframe that forbids it) only means the
    // address bar is not updated; the calculator keeps working.
    let _ = history.replace_state_with_url(
        &wasm_bindgen::JsValue::NULL,
        "",
        Some(&format!("?{query}")),
    );
}

/// Writes any scheduled query when the page is hidden or left.
pub fn write_when_leaving() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let flush = Closure::<dyn FnMut()>::new(write_pending);
    let _ = window.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    flush.forget();
}
