//! The browser entry point: install the panic hook, mount the app, and mark the
//! moment the first estimate is in the DOM (mounting renders synchronously).

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(batchfit_web::App);
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(batchfit_web::FIRST_ESTIMATE_MARK);
    }
}
