//! The address bar: read the query once at start, rewrite it as the state changes.

/// The current query string without its `?` (empty outside a browser window).
pub fn current_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Replaces the query part of the address in place: a relative `?…` URL keeps the
/// page's own path, so this works from any sub-path the site is served under.
pub fn replace_query(query: &str) {
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
