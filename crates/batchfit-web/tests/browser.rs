//! Browser tests: the app mounted in a real headless Chromium page
//! (`cargo test --target wasm32-unknown-unknown -p batchfit-web`; webdriver.json
//! holds the browser flags). They check what the page shows, through the same
//! `data-testid` / `data-bytes` hooks as the end-to-end tests.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts a fresh app into its own element; keeps it mounted while the handle
/// lives. The app reads the page's query: use [`mount_with`].
fn mount() -> (Element, impl Drop) {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    let host = document.create_element("div").expect("create a div");
    document
        .body()
        .expect("a body")
        .append_child(&host)
        .expect("append");
    let parent = host.clone();
    let handle = leptos::mount::mount_to(host.clone().unchecked_into::<HtmlElement>(), move || {
        batchfit_web::app(&parent)
    });
    (host, DropHandle(Some(handle)))
}

struct DropHandle<T>(Option<T>);

impl<T> Drop for DropHandle<T> {
    fn drop(&mut self) {
        drop(self.0.take());
    }
}

fn find(host: &Element, selector: &str) -> Element {
    host.query_selector(selector)
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("nothing matches {selector}"))
}

fn bytes(host: &Element, testid: &str) -> String {
    find(host, &format!("[data-testid=\"{testid}\"]"))
        .get_attribute("data-bytes")
        .unwrap_or_default()
}

/// Types `text` into the input named `name` and lets the reactive system settle.
async fn type_into(host: &Element, name: &str, text: &str) {
    let input: HtmlInputElement = find(host, &format!("input[name=\"{name}\"]")).unchecked_into();
    input.set_value(text);
    let event = web_sys::Event::new("input").expect("an input event");
    input.dispatch_event(&event).expect("dispatch");
    settle().await;
}

/// Waits one macrotask, by which time Leptos has run the effects it scheduled.
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("a window")
            .set_timeout_with_callback(&resolve)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("the timer fires");
}

#[wasm_bindgen_test]
async fn worked_example_shows_the_documented_numbers() {
    let (host, _app) = mount_with("");
    settle().await;
    assert_eq!(bytes(&host, "activations-per-sample"), "5368709120");
    assert_eq!(bytes(&host, "activations"), "85899345920");
    let text = find(&host, "[data-testid=\"activations\"]")
        .text_content()
        .unwrap_or_default();
    assert_eq!(text, "85.90 GB");
}

#[wasm_bindgen_test]
async fn typing_recomputes_and_bad_text_keeps_the_last_good_result() {
    let (host, _app) = mount_with("");
    settle().await;
    type_into(&host, "layers", "64").await;
    assert_eq!(bytes(&host, "activations"), "171798691840");
    type_into(&host, "layers", "twelve").await;
    assert_eq!(
        bytes(&host, "activations"),
        "171798691840",
        "last good result kept"
    );
    let error = find(&host, "[data-testid=\"error-layers\"]");
    assert_eq!(error.get_attribute("role").as_deref(), Some("alert"));
    assert_eq!(
        error.text_content().as_deref(),
        Some("Layers must be a number.")
    );
    let input = find(&host, "input[name=\"layers\"]");
    assert_eq!(input.get_attribute("aria-invalid").as_deref(), Some("true"));
    type_into(&host, "layers", "32").await;
    assert_eq!(bytes(&host, "activations"), "85899345920");
    assert!(
        host.query_selector("[data-testid=\"error-layers\"]")
            .ok()
            .flatten()
            .is_none()
    );
}

#[wasm_bindgen_test]
async fn a_crash_banner_says_what_happened_and_offers_the_defaults() {
    batchfit_web::crash::show_banner("index out of bounds <script>x</script>");
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    let banner = document
        .query_selector("[data-testid=crash]")
        .ok()
        .flatten()
        .expect("a banner");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    let text = banner.text_content().unwrap_or_default();
    assert!(
        text.contains("index out of bounds <script>x</script>"),
        "{text}"
    );
    assert!(
        banner.query_selector("script").ok().flatten().is_none(),
        "the message is text, not HTML"
    );
    let link = banner
        .query_selector("a")
        .ok()
        .flatten()
        .expect("a reset link");
    let href = link.get_attribute("href").unwrap_or_default();
    assert!(
        !href.contains('?'),
        "the reset link drops the query: {href}"
    );
    assert_eq!(link.text_content().as_deref(), Some("Reset to defaults"));
    banner.remove();
}

/// Mounts the app as if opened with `query` (every app rewrites the address as
/// it runs, so each test sets the one it means).
fn mount_with(query: &str) -> (Element, impl Drop) {
    let history = web_sys::window()
        .and_then(|w| w.history().ok())
        .expect("history");
    history
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("?{query}")))
        .expect("set the query");
    mount()
}

fn value(host: &Element, testid: &str) -> String {
    find(host, &format!("[data-testid=\"{testid}\"]"))
        .get_attribute("data-value")
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_parameters_form_shows_its_worked_example() {
    let (host, _app) =
        mount_with("form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=2&act_mb=500");
    settle().await;
    assert_eq!(bytes(&host, "weights"), "14000000000");
    assert_eq!(bytes(&host, "gradients"), "28000000000");
    assert_eq!(bytes(&host, "optimizer-states"), "56000000000");
    assert_eq!(bytes(&host, "activations"), "1000000000");
    type_into(&host, "batch", "4").await;
    assert_eq!(
        bytes(&host, "activations"),
        "2000000000",
        "doubling the batch doubles activations"
    );
    assert_eq!(bytes(&host, "weights"), "14000000000", "and nothing else");

    // The count and its scale are two controls over one text: typing the count
    // keeps the scale, and picking a scale keeps the count.
    let scale: web_sys::HtmlSelectElement =
        find(&host, "select[name=\"params_scale\"]").unchecked_into();
    assert_eq!(scale.value(), "B");
    type_into(&host, "params", "7000").await;
    assert_eq!(scale.value(), "B");
    assert_eq!(bytes(&host, "weights"), "14000000000000");
    scale.set_value("M");
    scale
        .dispatch_event(&web_sys::Event::new("change").expect("a change event"))
        .expect("dispatch");
    settle().await;
    let count: HtmlInputElement = find(&host, "input[name=\"params\"]").unchecked_into();
    assert_eq!(
        (count.value(), scale.value()),
        ("7000".to_owned(), "M".to_owned())
    );
    assert_eq!(bytes(&host, "weights"), "14000000000", "7000M is 7B");
}

#[wasm_bindgen_test]
async fn the_transformer_form_matches_the_core_for_a_preset_on_a_device() {
    let query = "form=transformer&model=llama-3.1-8b&batch=2&seq=4096&recompute=full&gpu=h100-80gb";
    let config = batchfit_core::query::parse(query).config;
    let expected = batchfit_core::memory::estimate(&config);
    let (host, _app) = mount_with(query);
    settle().await;
    assert_eq!(value(&host, "parameters"), expected.parameters.to_string());
    assert_eq!(bytes(&host, "required"), expected.required.to_string());
    assert_eq!(
        bytes(&host, "activations"),
        expected.activations.to_string()
    );
    let max = expected.max_batch.expect("a device is set");
    assert_eq!(value(&host, "max-batch"), max.to_string());
    let fits = find(&host, "[data-testid=\"fits\"]").get_attribute("data-value");
    assert_eq!(fits, expected.fits.map(|f| f.to_string()));
}
