//! The browser entry point: install the panic hook (a crash shows a banner with a
//! way back, see `crash.rs`), replace index.html's stand-in (the pre-rendered
//! form shell, or the loading line) with the app in one task, so no frame
//! shows neither, carrying over what the visitor typed into it, and mark the
//! moment the first estimate is in the DOM (building the page runs every
//! binding once, synchronously).

/// Talc instead of the standard library's dlmalloc: the same `GlobalAlloc`
/// in fewer bytes of WebAssembly (docs/performance-log.md). The page runs on
/// one thread, which this allocator requires.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    batchfit_web::crash::install_panic_hook();
    // A Spanish page first fetches its texts (a chunk of the split build); the
    // shell stays until then, and what is typed into it is carried over.
    if batchfit_web::opening_language_ready() {
        start();
    } else {
        wasm_bindgen_futures::spawn_local(async {
            batchfit_web::load_opening_language().await;
            start();
        });
    }
}

fn start() {
    let document = web_sys::window().and_then(|w| w.document());
    let edits = batchfit_web::take_stand_in();
    // The page's bindings live as long as the page: its owner is never dropped.
    std::mem::forget(batchfit_web::mount(move || {
        if let Some(body) = document.as_ref().and_then(|d| d.body()) {
            batchfit_web::app(&body);
        }
    }));
    batchfit_web::replay_edits(edits);
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(batchfit_web::FIRST_ESTIMATE_MARK);
    }
}
