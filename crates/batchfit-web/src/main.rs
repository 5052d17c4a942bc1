//! The browser entry point: install the panic hook (a crash shows a banner with a
//! way back, see `crash.rs`), mount the app, and mark the
//! moment the first estimate is in the DOM (building the page runs every
//! binding once, synchronously).

fn main() {
    batchfit_web::crash::install_panic_hook();
    leptos::mount::mount_to_body(|| {
        if let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        {
            batchfit_web::app(&body);
        }
    });
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(batchfit_web::FIRST_ESTIMATE_MARK);
    }
}
