//! The browser entry point: install the panic hook (a crash shows a banner with a
//! way back, see `crash.rs`), then [`batchfit_web::start`]: the address's
//! answer in place of the pre-rendered shell's loading lines, then, at the
//! visitor's first action, the interface (a chunk of the split build) in
//! place of the shell, carrying over what the visitor typed into it, so no
//! frame shows neither.

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
        batchfit_web::start();
    } else {
        wasm_bindgen_futures::spawn_local(async {
            batchfit_web::load_opening_language().await;
            batchfit_web::start();
        });
    }
}
