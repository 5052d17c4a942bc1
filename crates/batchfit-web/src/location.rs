//! The address bar: read the query once at start, rewrite it as the state changes.

/// The current query string without its `?` (empty outside a browser window).
pub fn current_query() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The page's full address, with the query the state last wrote.
pub fn current_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// The page's address with `embed` set as asked: the compact widget's address,
/// or the full calculator's in the same state.
pub fn url_with_embed(embed: bool) -> String {
    let url = current_url();
    let (base, query) = url.split_once('?').unwrap_or((&url, ""));
    let mut pairs: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("embed="))
        .collect();
    if embed {
        pairs.push("embed=1");
    }
    format!("{base}?{}", pairs.join("&"))
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
