//! The browser entry point: install the panic hook (a crash shows a banner with a
//! way back, see `crash.rs`), mount the app, and mark the
//! moment the first estimate is in the DOM (mounting renders synchronously).

fn main() {
    batchfit_web::crash::install_panic_hook();
    leptos::mount::mount_to_body(batchfit_web::App);
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(batchfit_web::FIRST_ESTIMATE_MARK);
    }
}
