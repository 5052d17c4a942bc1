//! The browser entry point: install the panic hook, then mount the app.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(batchfit_web::App);
}
