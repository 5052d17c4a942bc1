//! The browser entry point: install the panic hook (a crash shows a banner with a
//! way back, see `crash.rs`), replace index.html's loading shell with the app, and mark the
//! moment the first estimate is in the DOM (building the page runs every
//! binding once, synchronously).

fn main() {
    batchfit_web::crash::install_panic_hook();
    let document = web_sys::window().and_then(|w| w.document());
    // index.html's loading shell gives way to the app.
    if let Some(boot) = document.as_ref().and_then(|d| d.get_element_by_id("boot")) {
        boot.remove();
    }
    leptos::mount::mount_to_body(move || {
        if let Some(body) = document.as_ref().and_then(|d| d.body()) {
            batchfit_web::app(&body);
        }
    });
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(batchfit_web::FIRST_ESTIMATE_MARK);
    }
}
