//! The browser entry point: install the panic hook (a crash shows a banner with a
//! way back, see `crash.rs`), build the app beside index.html's stand-in (the
//! pre-rendered form shell, or the loading line) and replace it in the same
//! task, so no frame shows both or neither, and mark the moment the first
//! estimate is in the DOM (building the page runs every binding once,
//! synchronously).

fn main() {
    batchfit_web::crash::install_panic_hook();
    let document = web_sys::window().and_then(|w| w.document());
    let stand_in = batchfit_web::stand_in();
    leptos::mount::mount_to_body(move || {
        if let Some(body) = document.as_ref().and_then(|d| d.body()) {
            batchfit_web::app(&body);
        }
    });
    if let Some(stand_in) = stand_in {
        batchfit_web::replace_stand_in(&stand_in);
    }
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(batchfit_web::FIRST_ESTIMATE_MARK);
    }
}
