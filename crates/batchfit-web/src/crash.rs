//! When the app panics (a bug: no user value should ever cause one), the page
//! must not freeze silently. The panic hook logs the panic to the console, then
//! shows a banner saying what happened, with a link that reloads the page with
//! default values (the link's query may be what triggered the bug).

use wasm_bindgen::JsCast;

/// Installs the hook; called once, before mounting.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_banner(&info.to_string());
    }));
}

/// Puts the crash banner at the top of the page (text only, never HTML).
pub fn show_banner(message: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Some(document) = window.document() else {
        return;
    };
    let Some(body) = document.body() else { return };
    let spanish = document
        .document_element()
        .and_then(|root| root.get_attribute("lang"))
        .is_some_and(|lang| lang == "es");
    let (said, reset) = if spanish {
        (
            "batchfit dejó de funcionar por un error interno: ",
            "Volver a los valores por defecto",
        )
    } else {
        (
            "batchfit stopped working because of an internal error: ",
            "Reset to defaults",
        )
    };
    let Ok(banner) = document.create_element("div") else {
        return;
    };
    banner.set_class_name("crash");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-testid", "crash");
    let Ok(text) = document.create_element("p") else {
        return;
    };
    text.set_text_content(Some(&format!("{said}{message}")));
    let Ok(link) = document.create_element("a") else {
        return;
    };
    let link: web_sys::HtmlAnchorElement = link.unchecked_into();
    // The page's own path without the query: the defaults.
    link.set_href(
        &window
            .location()
            .pathname()
            .unwrap_or_else(|_| "./".to_owned()),
    );
    link.set_text_content(Some(reset));
    let _ = banner.append_child(&text);
    let _ = banner.append_child(&link);
    let _ = body.prepend_with_node_1(&banner);
}
