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
fn mount() -> (Element, impl Drop + use<>) {
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
    let handle = batchfit_web::mount(move || batchfit_web::app(&parent));
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

/// The input named `name` loses focus with a changed value (its `change` event).
async fn leave(host: &Element, name: &str) {
    let input = find(host, &format!("input[name=\"{name}\"]"));
    let event = web_sys::Event::new("change").expect("a change event");
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

/// Opens the `<details>` at `selector` as a click on its summary does (the
/// attribute, then the `toggle` event), and lets the page build its content.
async fn open(host: &Element, selector: &str) {
    let details = find(host, selector);
    details.set_attribute("open", "").expect("open");
    details
        .dispatch_event(&web_sys::Event::new("toggle").expect("a toggle event"))
        .expect("dispatch");
    settle().await;
}

#[wasm_bindgen_test]
async fn worked_example_shows_the_documented_numbers() {
    let (host, _app) = mount_with("form=activations");
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
    let (host, _app) = mount_with("form=activations");
    settle().await;
    type_into(&host, "layers", "64").await;
    assert_eq!(bytes(&host, "activations"), "171798691840");
    // Leaving the field commits what it holds: that is the result kept.
    leave(&host, "layers").await;
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
        Some("Layers must be a number from 1 to 10,000.")
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
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    // The banner speaks the page's language; a Spanish page an earlier test
    // mounted may still have set it.
    document
        .document_element()
        .expect("a root")
        .set_attribute("lang", "en")
        .expect("lang");
    batchfit_web::crash::show_banner("index out of bounds <script>x</script>");
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
fn mount_with(query: &str) -> (Element, impl Drop + use<>) {
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

/// Inference names the stack it assumes (issue 28): transformers'
/// `generate()`; training says nothing of it.
#[wasm_bindgen_test]
async fn inference_names_the_stack_it_assumes() {
    let (host, _app) = mount_with("form=transformer&model=qwen2.5-7b&mode=inference");
    settle().await;
    let note = find(&host, "[data-testid=\"inference-stack\"]")
        .text_content()
        .unwrap_or_default();
    assert!(note.contains("generate()"), "{note}");
    let (host, _app) = mount_with("form=transformer&model=qwen2.5-7b");
    settle().await;
    assert!(all(&host, "[data-testid=\"inference-stack\"]").is_empty());
}

/// A model with sliding-window layers under vLLM: the pool's blocks are
/// shared by groups of layers, so the tokens vLLM logs and the longest single
/// request are two numbers, each the core's.
#[wasm_bindgen_test]
async fn vllm_groups_sliding_window_layers() {
    let query =
        "form=transformer&model=gpt-oss-20b&framework=vllm&gpu=h100-80gb&max_model_len=131072";
    let plan =
        batchfit_core::serving::plan(&batchfit_core::query::parse(query).config).expect("a plan");
    assert!(plan.max_seq > plan.pool_tokens);
    let group = |n: u128| batchfit_core::fields::group_thousands(u64::try_from(n).expect("a u64"));
    let (host, _app) = mount_with(query);
    settle().await;
    let pool = find(&host, "[data-testid=\"serving-pool\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        pool.contains(&format!(
            "{} blocks of 16 tokens shared by 2 groups of layers",
            group(plan.blocks)
        )) && pool.contains(&format!("vLLM counts {} tokens", group(plan.pool_tokens)))
            && pool.contains(&format!(
                "The longest single request: {} tokens.",
                group(plan.max_seq)
            )),
        "{pool}"
    );
}

/// SGLang answers with its own plan (issue 29), the core's: the weights and
/// the pool fill `mem_fraction_static` of the free memory, the reserve for
/// activations and CUDA graphs beside it, its own flags in the what-ifs, and
/// in Spanish its refusal where the weights fill the static memory.
#[wasm_bindgen_test]
async fn sglang_answers_with_its_plan_in_both_languages() {
    let query =
        "form=transformer&model=llama-3.1-8b&framework=sglang&gpu=h100-80gb&max_model_len=8192";
    let config = batchfit_core::query::parse(query).config;
    let plan = batchfit_core::serving::plan(&config).expect("a plan");
    let (host, _app) = mount_with(query);
    settle().await;
    let answer = find(&host, "[data-testid=\"serving-answer\"]");
    assert_eq!(
        answer.text_content().unwrap_or_default(),
        format!(
            "Serves {} requests of 8,192 tokens at once",
            plan.concurrent_requests()
        )
    );
    let title = find(&host, "[data-testid=\"serving\"] h3")
        .text_content()
        .unwrap_or_default();
    assert_eq!(title, "SGLang's memory plan, per GPU");
    let term = |id: &str| -> u128 { bytes(&host, id).parse().expect("bytes") };
    assert_eq!(
        term("plan-weights") + term("plan-pool"),
        term("plan-budget")
    );
    assert_eq!(term("plan-budget"), plan.budget);
    assert_eq!(term("plan-reserve"), plan.reserve);
    // The fraction SGLang derives for the card, as the engine would log it.
    let budget = find(&host, "[data-testid=\"plan-budget\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        budget.starts_with("= mem_fraction_static 0.835 × "),
        "{budget}"
    );
    // No profiling step inside SGLang's static memory.
    assert!(all(&host, "[data-testid=\"plan-activation\"]").is_empty());
    let fp8 = find(
        &host,
        "[data-testid=\"serving-what-ifs\"] li[data-change=\"kv_fp8\"] a",
    )
    .text_content()
    .unwrap_or_default();
    assert!(fp8.starts_with("--kv-cache-dtype fp8_e4m3: "), "{fp8}");

    let (host, _app) =
        mount_with("form=transformer&model=llama-3.1-70b&framework=sglang&gpu=rtx-4090&lang=es");
    settle().await;
    settle().await;
    assert_eq!(
        find(&host, "[data-testid=\"serving-answer\"]")
            .text_content()
            .unwrap_or_default(),
        "✗ SGLang no arrancaría"
    );
    let reason = find(&host, "[data-testid=\"serving-reason\"]")
        .text_content()
        .unwrap_or_default();
    assert!(reason.contains("--mem-fraction-static"), "{reason}");
}

/// A hybrid model under vLLM (docs/model.md §3.13): the pool's blocks are
/// shared with the linear layers' state, and the page says what one request
/// keeps, in both languages, the numbers the core's plan gives.
#[wasm_bindgen_test]
async fn a_hybrid_model_s_state_is_stated_in_both_languages() {
    let query = "form=transformer&model=qwen3-next-80b-a3b&framework=vllm&gpu=h200&tp=2&max_model_len=32768";
    let plan =
        batchfit_core::serving::plan(&batchfit_core::query::parse(query).config).expect("a plan");
    assert_eq!(plan.linear_state_per_request, 19_759_104);
    for (lang, state, held) in [
        (
            "en",
            "The linear layers keep 19.8 MB of state per request, whatever its length.",
            "blocks of 544 tokens shared by 4 groups of layers, the linear ones holding one block of state per request",
        ),
        (
            "es",
            "Las capas lineales guardan 19,8 MB de estado por petición, sea cual sea su longitud.",
            "las lineales con un bloque de estado por petición",
        ),
    ] {
        let (host, _app) = mount_with(&format!("{query}&lang={lang}"));
        settle().await;
        let text = |id: &str| {
            find(&host, &format!("[data-testid=\"{id}\"]"))
                .text_content()
                .unwrap_or_default()
        };
        assert_eq!(text("serving-state"), state);
        let pool = text("serving-pool");
        assert!(pool.contains(held), "{pool}");
    }
}

/// vLLM answers with its memory plan (issue 29), the same as the CLI's: the
/// requests served at once, its terms summing to the budget, the result card
/// marked so that generate()'s answer is hidden; in Spanish, the engine's
/// refusal with the longest request that fits.
#[wasm_bindgen_test]
async fn vllm_answers_with_its_plan_in_both_languages() {
    let base = "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090";
    let (host, _app) = mount_with(&format!("{base}&max_model_len=8192"));
    settle().await;
    let answer = find(&host, "[data-testid=\"serving-answer\"]");
    assert_eq!(
        answer.get_attribute("data-refused").as_deref(),
        Some("false")
    );
    assert_eq!(
        answer
            .get_attribute("data-concurrency-hundredths")
            .as_deref(),
        Some("513")
    );
    let text = answer.text_content().unwrap_or_default();
    assert_eq!(text, "Serves 5 requests of 8,192 tokens at once");
    // The phone's bar says the plan's answer, not its title.
    assert_eq!(
        find(&host, "[data-testid=\"mini-summary\"] .mini-headline").text_content(),
        Some(text.clone())
    );
    let term = |id: &str| -> u128 { bytes(&host, id).parse().expect("bytes") };
    assert_eq!(
        term("plan-weights")
            + term("plan-activation")
            + term("plan-non-torch")
            + term("plan-graphs")
            + term("plan-pool"),
        term("plan-budget")
    );
    assert_eq!(term("plan-budget"), 22_844_591_308);
    assert_eq!(term("plan-pool"), 5_515_422_924);
    // The plan as a bar: its three segments' bytes are the plan's terms.
    let segments: Vec<u128> = all(&host, "[data-testid=\"plan-bar\"] > span[data-bytes]")
        .iter()
        .map(|s| {
            s.get_attribute("data-bytes")
                .unwrap_or_default()
                .parse()
                .expect("bytes")
        })
        .collect();
    assert_eq!(
        segments,
        [
            term("plan-weights"),
            term("plan-activation"),
            term("plan-pool")
        ]
    );
    let pool = find(&host, "[data-testid=\"serving-pool\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        pool.contains("2,629 blocks of 16 tokens hold 42,064 tokens"),
        "{pool}"
    );
    let card = find(&host, "[data-testid=\"results\"]");
    assert!(card.class_list().contains("serving"));
    // The plan over request lengths and on each GPU, the current row marked.
    let current = |testid: &str| {
        find(
            &host,
            &format!("[data-testid=\"{testid}\"] tr[aria-current]"),
        )
        .text_content()
        .unwrap_or_default()
    };
    assert_eq!(current("serving-lengths"), "8,19255.13×");
    assert_eq!(current("serving-devices"), "NVIDIA RTX 4090 24GB542,064");
    // What would serve more: an FP8 cache, one click away.
    let fp8: HtmlElement = find(
        &host,
        "[data-testid=\"serving-what-ifs\"] li[data-change=\"kv_fp8\"] a",
    )
    .unchecked_into();
    assert!(
        fp8.text_content()
            .unwrap_or_default()
            .starts_with("--kv-cache-dtype fp8: Serves 10 requests of 8,192 tokens")
    );
    fp8.click();
    settle().await;
    let after = find(&host, "[data-testid=\"serving-answer\"]")
        .get_attribute("data-concurrency-hundredths")
        .unwrap_or_default();
    assert_eq!(after, "1027");
    // Not generate()'s stack note: the plan is the answer.
    assert!(all(&host, "[data-testid=\"inference-stack\"]").is_empty());

    let (host, _app) = mount_with(&format!("{base}&max_model_len=131072&lang=es"));
    settle().await;
    settle().await;
    let answer = find(&host, "[data-testid=\"serving-answer\"]");
    assert_eq!(
        answer.get_attribute("data-refused").as_deref(),
        Some("true")
    );
    assert_eq!(
        answer.text_content().unwrap_or_default(),
        "✗ vLLM no arrancaría"
    );
    let text = find(&host, "[data-testid=\"serving-reason\"]")
        .text_content()
        .unwrap_or_default();
    // Spanish groups thousands with a narrow no-break space.
    assert!(
        text.contains("La más larga que cabe es de 42\u{202f}064 tokens"),
        "{text:?}"
    );

    // generate() itself, or no device: no plan.
    let (host, _app) =
        mount_with("form=transformer&model=llama-3.1-8b&mode=inference&gpu=rtx-4090");
    settle().await;
    assert!(all(&host, "[data-testid=\"serving-answer\"]").is_empty());
    assert!(
        !find(&host, "[data-testid=\"results\"]")
            .class_list()
            .contains("serving")
    );
}

/// Sizes are no tab stops (issue 28): one checkbox shows every size's exact
/// bytes, for the keyboard as for the mouse, and hides them again.
#[wasm_bindgen_test]
async fn one_switch_shows_every_exact_size() {
    let (host, _app) = mount_with("form=transformer&model=llama-3.2-1b&gpu=h100-80gb");
    settle().await;
    let sizes = all(&host, ".value[data-bytes]");
    assert!(sizes.len() > 5, "{}", sizes.len());
    assert!(sizes.iter().all(|s| s.get_attribute("tabindex").is_none()));
    let toggle: HtmlInputElement = find(&host, "[data-testid=\"exact-toggle\"]").unchecked_into();
    assert_eq!(toggle.type_(), "checkbox");
    let shown = || {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .and_then(|root| root.matches(":has(.exact-toggle input:checked)").ok())
            .unwrap_or(false)
    };
    assert!(!shown());
    toggle.click();
    settle().await;
    assert!(toggle.checked() && shown());
    toggle.click();
    settle().await;
    assert!(!toggle.checked() && !shown());
}

/// A setting the device cannot run is said beside the estimate (issue 29),
/// in the page's language: BF16 on a T4; nothing on an H100.
#[wasm_bindgen_test]
async fn settings_the_device_cannot_run_are_said() {
    let (host, _app) = mount_with("form=transformer&model=llama-3.2-1b&gpu=t4&lang=es");
    settle().await;
    let warning = find(&host, "[data-testid=\"hardware-warning\"]");
    assert_eq!(
        warning.get_attribute("data-warning").as_deref(),
        Some("bf16_unsupported")
    );
    let text = warning.text_content().unwrap_or_default();
    assert!(text.contains("capacidad de cómputo 7.5"), "{text}");
    // The default attention is FlashAttention / SDPA: its second warning.
    let names: Vec<_> = all(&host, "[data-testid=\"hardware-warning\"]")
        .iter()
        .filter_map(|w| w.get_attribute("data-warning"))
        .collect();
    assert_eq!(names, ["bf16_unsupported", "flash_attention_unsupported"]);
    let (host, _app) = mount_with("form=transformer&model=llama-3.2-1b&gpu=h100-80gb");
    settle().await;
    assert!(all(&host, "[data-testid=\"hardware-warning\"]").is_empty());
    // The engines' own limits and the kernels off a GPU, in both languages.
    for (q, name, en, es) in [
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&framework=vllm&kv_dtype=fp8&gpu=a100-80gb",
            "fp8_kv_cache_unsupported",
            "vLLM 0.11 cannot keep an FP8 KV cache on compute capability 8.0",
            "vLLM 0.11 no puede guardar una caché KV en FP8 con capacidad de cómputo 8.0",
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&quant=int4&gpu=apple-64gb",
            "int4_kernels_on_host",
            "4-bit AWQ or GPTQ weights on Apple silicon",
            "Pesos AWQ o GPTQ de 4 bits en Apple silicon",
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&framework=sglang&kv_dtype=int8&gpu=h100-80gb",
            "engine_kv_dtype_unsupported",
            "SGLang's KV cache is 16-bit or FP8",
            "La caché KV de SGLang es de 16 bits o FP8",
        ),
    ] {
        for (lang, words) in [("en", en), ("es", es)] {
            let (host, _app) = mount_with(&format!("{q}&lang={lang}"));
            settle().await;
            let warning = find(&host, "[data-testid=\"hardware-warning\"]");
            assert_eq!(warning.get_attribute("data-warning").as_deref(), Some(name));
            let text = warning.text_content().unwrap_or_default();
            assert!(text.contains(words), "{lang}: {text}");
        }
    }
}

/// The parameters form's dead end is said (issue 28): 7B with AdamW on an
/// H100 holds 98 GB of model states, more than the card; 1B does not.
#[wasm_bindgen_test]
async fn the_parameters_form_says_when_the_model_states_alone_exceed_the_device() {
    let (host, _app) =
        mount_with("form=parameters&params=7B&precision=fp16&optimizer=adamw&gpu=h100-80gb");
    settle().await;
    let note = find(&host, "[data-testid=\"states-exceed\"]")
        .text_content()
        .unwrap_or_default();
    assert!(note.contains("98.0 GB"), "{note}");
    // The hand-off: the same device, batch and task on the published model
    // nearest 7B, in the transformer form, where the fixes are.
    let q = "form=parameters&params=7B&precision=fp16&optimizer=adamw&gpu=h100-80gb";
    let handed =
        batchfit_core::advice::transformer_hand_off(&batchfit_core::query::parse(q).config)
            .expect("a hand-off");
    let link = find(&host, "[data-testid=\"hand-off\"]");
    let text = link.text_content().unwrap_or_default();
    assert!(text.starts_with("Open Mistral 7B v0.1 (7.24B)"), "{text}");
    link.unchecked_into::<HtmlElement>().click();
    settle().await;
    let model: HtmlInputElement = find(&host, "[name=\"model\"]").unchecked_into();
    assert_eq!(model.value(), "mistral-7b");
    assert_eq!(
        bytes(&host, "required"),
        batchfit_core::memory::estimate(&handed)
            .required
            .to_string()
    );
    assert!(!all(&host, "[data-testid=\"fixes\"] li").is_empty());
    let (host, _app) =
        mount_with("form=parameters&params=1B&precision=fp16&optimizer=adamw&gpu=h100-80gb");
    settle().await;
    assert!(all(&host, "[data-testid=\"states-exceed\"]").is_empty());
    assert!(all(&host, "[data-testid=\"hand-off\"]").is_empty());
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

    // The count and its scale are two controls over one text: typing a bare
    // number keeps the scale, typing a scale moves the select, and picking a
    // scale keeps the count (issue 12).
    let scale: web_sys::HtmlSelectElement =
        find(&host, "select[name=\"params_scale\"]").unchecked_into();
    assert_eq!(scale.value(), "B");
    type_into(&host, "params", "7000").await;
    assert_eq!(scale.value(), "B");
    assert_eq!(bytes(&host, "weights"), "14000000000000");
    type_into(&host, "params", "7000M").await;
    assert_eq!(scale.value(), "M", "a typed scale moves the select");
    assert_eq!(bytes(&host, "weights"), "14000000000", "7000M is 7B");
    scale.set_value("B");
    scale
        .dispatch_event(&web_sys::Event::new("change").expect("a change event"))
        .expect("dispatch");
    settle().await;
    let count: HtmlInputElement = find(&host, "input[name=\"params\"]").unchecked_into();
    assert_eq!(
        (count.value(), scale.value()),
        ("7".to_owned(), "B".to_owned()),
        "the count is kept in the new scale"
    );
    assert_eq!(bytes(&host, "weights"), "14000000000");
}

fn all(host: &Element, selector: &str) -> Vec<Element> {
    let found = host.query_selector_all(selector).expect("a selector");
    (0..found.length())
        .filter_map(|i| found.get(i))
        .map(|node| node.unchecked_into())
        .collect()
}

fn bytes_of(element: &Element) -> u128 {
    element
        .get_attribute("data-bytes")
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("no data-bytes on {:?}", element.outer_html()))
}

/// One decomposition of the peak, everywhere: the bar's segments sum to the
/// required memory the headline names, and every sweep row's parts to its
/// total, for each form and for training, inference and many GPUs.
#[wasm_bindgen_test]
async fn the_bar_and_every_sweep_row_add_up() {
    for query in [
        "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&gpu=h100-80gb",
        "form=parameters&params=1.3B&precision=fp16&batch=8&act_mb=800&gpu=rtx-4090&margin=5",
        "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb",
        "form=transformer&model=llama-3.1-8b&batch=1&seq=128",
        "form=transformer&model=qwen2.5-7b&mode=inference&batch=2&seq=8192&gen=512&gpu=l40s",
        "form=transformer&model=llama-3.1-70b&tp=8&sp=1&gpus=4&zero=3&gpu=h100-80gb",
        // This session's terms, on the Spanish page: a mixture of experts
        // with expert parallelism, DoRA over an FP8 recipe, parameter offload
        // and a quantized KV cache.
        "form=transformer&model=mixtral-8x7b&recipe=bf16&gpus=8&ep=8&zero=1&batch=1&seq=4096&gpu=h100-80gb&lang=es",
        "form=transformer&model=llama-3.1-8b&recipe=bf16&lora_rank=16&lora_variant=dora&fp8=te&batch=2&gpu=rtx-4090&lang=es",
        "form=transformer&model=llama-3.1-8b&recipe=bf16&param_offload=1&batch=1&gpu=rtx-4090&lang=es",
        "form=transformer&model=qwen3-8b&mode=inference&recipe=bf16&kv_dtype=int4&seq=16000&gen=512&gpu=l40s&lang=es",
    ] {
        let (host, app) = mount_with(query);
        settle().await;
        let segments = all(&host, ".bar-legend [data-testid^=\"bar-\"]");
        assert!(segments.len() >= 3, "{query}: {} segments", segments.len());
        let sum: u128 = segments.iter().map(bytes_of).sum();
        let required = bytes_of(&find(&host, ".breakdown [data-testid=\"required\"]"));
        assert_eq!(
            sum, required,
            "{query}: the bar adds up to the required memory"
        );
        let expected = batchfit_core::memory::estimate(&batchfit_core::query::parse(query).config);
        assert_eq!(required, expected.required, "{query}");
        // The step's picture peaks at the peak allocated the table shows.
        let timeline = find(&host, "[data-testid=\"timeline-chart\"]");
        let top: u128 = timeline
            .get_attribute("data-max-bytes")
            .and_then(|b| b.parse().ok())
            .unwrap_or_else(|| panic!("{query}: the timeline's data"));
        assert_eq!(
            top,
            bytes_of(&find(&host, ".breakdown [data-testid=\"total\"]")),
            "{query}: the timeline's maximum is the peak allocated"
        );
        let rows = all(&host, "[data-testid=\"sweep\"] tbody tr");
        assert!(!rows.is_empty(), "{query}");
        for row in rows {
            let cell = |column: &str| bytes_of(&find(&row, &format!("[data-testid=\"{column}\"]")));
            assert_eq!(
                cell("model-states") + cell("activations"),
                cell("total"),
                "{query}: row {:?}",
                row.get_attribute("data-batch")
            );
            assert!(cell("required") >= cell("total"));
        }
        drop(app);
        host.remove();
    }
}

/// What people type is what the URL says: the same bytes for `7B`, `7000M`,
/// `1.3e9`, `2,048` in English and `2.048` in Spanish.
#[wasm_bindgen_test]
async fn fields_take_what_people_type() {
    let weights_for = |query: &str| {
        batchfit_core::memory::estimate(&batchfit_core::query::parse(query).config).weights
    };
    let (host, app) = mount_with("form=parameters&params=125M&precision=fp16&batch=1");
    settle().await;
    for (typed, query) in [
        ("7B", "form=parameters&params=7B&precision=fp16"),
        ("7000M", "form=parameters&params=7000M&precision=fp16"),
        ("1.3e9", "form=parameters&params=1300000000&precision=fp16"),
        ("7 B", "form=parameters&params=7B&precision=fp16"),
    ] {
        type_into(&host, "params", typed).await;
        assert!(
            host.query_selector("[data-testid=\"error-params\"]")
                .ok()
                .flatten()
                .is_none(),
            "{typed} is accepted"
        );
        assert_eq!(
            bytes_of(&find(&host, "[data-testid=\"weights\"]")),
            weights_for(query),
            "{typed}"
        );
    }
    drop(app);
    host.remove();

    let activations = |query: &str| {
        batchfit_core::memory::estimate(&batchfit_core::query::parse(query).config)
            .activations
            .to_string()
    };
    let worked = "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16";
    for (lang, typed) in [
        ("en", "2,048"),
        ("en", "2 048"),
        ("es", "2.048"),
        ("es", "2 048"),
    ] {
        let (host, app) = mount_with(&format!(
            "form=activations&batch=16&seq=512&hidden=4096&layers=32&precision=bf16&lang={lang}"
        ));
        settle().await;
        type_into(&host, "seq", typed).await;
        assert_eq!(
            bytes(&host, "activations"),
            activations(worked),
            "{lang}: {typed}"
        );
        drop(app);
        host.remove();
    }
}

/// A keystroke on the way to a number is not the result kept while the field
/// is invalid: the last result kept is one that stood (or was committed).
#[wasm_bindgen_test]
async fn a_partial_keystroke_is_not_the_result_kept() {
    let (host, _app) =
        mount_with("form=activations&batch=16&seq=4096&hidden=4096&layers=32&precision=bf16");
    settle().await;
    let before = bytes(&host, "activations");
    type_into(&host, "seq", "2").await;
    type_into(&host, "seq", "2,").await;
    assert_eq!(
        bytes(&host, "activations"),
        before,
        "the result kept is the committed one, not the one of \"2\""
    );
    let results = find(&host, "[data-testid=\"results\"]");
    assert_eq!(results.get_attribute("data-stale").as_deref(), Some("true"));
}

/// A token count written as practitioners write it (`seq=32k`) is read as
/// the 32,768 tokens it means, and the field shows what it read.
#[wasm_bindgen_test]
async fn a_token_count_with_a_suffix_shows_what_it_read() {
    let (host, _app) = mount_with("form=transformer&model=llama-3.1-8b&seq=32k&gpu=h100-80gb");
    settle().await;
    let field: HtmlInputElement = find(&host, "input[name=\"seq\"]").unchecked_into();
    assert_eq!(field.value(), "32768");
    let results = find(&host, "[data-testid=\"results\"]");
    assert_eq!(
        results.get_attribute("data-stale").as_deref(),
        Some("false")
    );
}

/// Bad values in a link (issue 28's `params=0`, `gpu=t4-16gb`, `seq=abc`
/// on a setup with a device) are kept as if typed: the field says what is
/// wrong, the results are not current and give no verdict.
#[wasm_bindgen_test]
async fn a_bad_link_value_with_a_device_gives_no_verdict() {
    // Each message names the field and what it takes.
    for (q, name, label) in [
        (
            "form=parameters&params=0&gpu=h100-80gb",
            "params",
            "Parameters",
        ),
        (
            "form=transformer&model=llama-3.1-8b&seq=abc&gpu=rtx-4090",
            "seq",
            "Sequence length",
        ),
        (
            "form=transformer&model=llama-3.1-8b&gpu=t4-16gb",
            "gpu",
            "Device must be one of: t4,",
        ),
    ] {
        let (host, _app) = mount_with(q);
        settle().await;
        let results = find(&host, "[data-testid=\"results\"]");
        assert_eq!(
            results.get_attribute("data-stale").as_deref(),
            Some("true"),
            "{q}"
        );
        assert!(
            host.query_selector("[data-testid=\"fits\"]")
                .ok()
                .flatten()
                .is_none(),
            "{q}: no verdict"
        );
        let field = find(&host, &format!("[name=\"{name}\"]"));
        let marked = field
            .closest(".field")
            .ok()
            .flatten()
            .is_some_and(|f| f.class_list().contains("invalid"));
        assert!(marked, "{q}: the field is marked");
        let message = find(&host, &format!("[data-testid=\"error-{name}\"]"))
            .text_content()
            .unwrap_or_default();
        assert!(message.contains(label), "{q}: {message}");
    }
}

/// A pasted config.json that is refused marks the results as not current and
/// hides the fits badge, until the next valid edit.
#[wasm_bindgen_test]
async fn a_rejected_config_marks_the_results_stale() {
    let (host, _app) =
        mount_with("form=transformer&model=llama-3.2-1b&batch=1&seq=512&gpu=h100-80gb");
    settle().await;
    let results = find(&host, "[data-testid=\"results\"]");
    assert_eq!(
        results.get_attribute("data-stale").as_deref(),
        Some("false")
    );
    assert!(
        host.query_selector("[data-testid=\"fits\"]")
            .ok()
            .flatten()
            .is_some()
    );
    open(&host, "[data-testid=\"paste-box\"]").await;
    let area: web_sys::HtmlTextAreaElement =
        find(&host, "textarea[name=\"config_json\"]").unchecked_into();
    area.set_value("{\"model_type\": \"mamba\"}");
    area.dispatch_event(&web_sys::Event::new("input").expect("an event"))
        .expect("dispatch");
    settle().await;
    assert_eq!(results.get_attribute("data-stale").as_deref(), Some("true"));
    assert!(
        host.query_selector("[data-testid=\"fits\"]")
            .ok()
            .flatten()
            .is_none(),
        "no verdict on a result that is not current"
    );
    type_into(&host, "batch", "2").await;
    assert_eq!(
        results.get_attribute("data-stale").as_deref(),
        Some("false")
    );
}

/// The Spanish page has a Spanish title, and its messages are Spanish.
#[wasm_bindgen_test]
async fn the_spanish_page_is_spanish() {
    let (host, _app) = mount_with("form=activations&lang=es");
    settle().await;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    assert_eq!(document.title(), "batchfit — ¿cabe este lote?");
    type_into(&host, "layers", "abc").await;
    let error = find(&host, "[data-testid=\"error-layers\"]")
        .text_content()
        .unwrap_or_default();
    assert_eq!(error, "Capas debe ser un número entre 1 y 10\u{202F}000.");
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

/// The fit is checked against what a process can allocate: an RTX 4090's
/// 24,207 MiB as CUDA reports it, not nvidia-smi's 24,564. A need between the
/// two (7B FP16 weights, 14 GB, + 1.1 × 9,545 MB reserved for one sample + 1
/// GB of overhead = 25.4995 GB) does not fit, short by what the page says,
/// and the capacity row shows the usable figure with its reason.
#[wasm_bindgen_test]
async fn a_need_above_what_cuda_can_allocate_does_not_fit() {
    let query =
        "form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=9545&gpu=rtx-4090";
    let (host, _app) = mount_with(query);
    settle().await;
    let usable: u128 = 24_207 * (1 << 20);
    let required: u128 = bytes(&host, "required").parse().expect("bytes");
    assert_eq!(required, 25_499_500_000);
    assert!(usable < required && required < 24_564 * (1 << 20));
    assert_eq!(bytes(&host, "device-bytes"), usable.to_string());
    let badge = find(&host, "[data-testid=\"fits\"]");
    assert_eq!(badge.get_attribute("data-value").as_deref(), Some("false"));
    let text = badge.text_content().unwrap_or_default();
    // 25,499,500,000 − 25,382,879,232 = 116,620,768 bytes.
    assert!(text.ends_with("short by 117 MB"), "{text}");
    let row = find(&host, "[data-testid=\"device-bytes\"]")
        .closest("tr")
        .ok()
        .flatten()
        .expect("the capacity row")
        .text_content()
        .unwrap_or_default();
    assert!(row.starts_with("Usable capacity"), "{row}");
    assert!(
        row.contains("nvidia-smi's total less what the driver keeps"),
        "{row}"
    );
    // The same answer the core gives, which the CLI prints.
    let e = batchfit_core::memory::estimate(&batchfit_core::query::parse(query).config);
    assert_eq!((e.device_bytes, e.fits), (Some(usable), Some(false)));
}

/// "Which GPUs fit": built only once opened; its fit marks and largest batches
/// are `memory::devices`' (what `batchfit devices` prints), and a click on a
/// device picks it for the whole page.
#[wasm_bindgen_test]
async fn the_devices_table_is_the_cores_and_a_click_picks_a_device() {
    let query = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recompute=full&gpu=rtx-4090";
    let (host, _app) = mount_with(query);
    settle().await;
    let details = find(&host, "[data-testid=\"devices\"]");
    assert!(all(&host, "[data-testid=\"devices-table\"] tbody tr").is_empty());
    details.set_attribute("open", "").expect("open");
    details
        .dispatch_event(&web_sys::Event::new("toggle").expect("a toggle event"))
        .expect("dispatch");
    settle().await;
    let expected = batchfit_core::memory::devices(&batchfit_core::query::parse(query).config);
    let rows = all(&host, "[data-testid=\"devices-table\"] tbody tr");
    assert_eq!(rows.len(), expected.len());
    for (row, fit) in rows.iter().zip(&expected) {
        assert_eq!(
            row.get_attribute("data-device").as_deref(),
            Some(fit.device.id)
        );
        let fits = row.get_attribute("data-fits");
        assert_eq!(fits, Some(fit.fits.to_string()), "{}", fit.device.id);
        let max = row
            .query_selector("[data-max-batch]")
            .ok()
            .flatten()
            .expect("a cell");
        assert_eq!(
            max.get_attribute("data-max-batch"),
            Some(fit.max_batch.to_string())
        );
    }
    assert!(expected.iter().any(|f| f.fits) && expected.iter().any(|f| !f.fits));
    // The RTX 4090 row is the page's device; picking the H100 makes it so.
    let current = find(&host, "[data-testid=\"devices-table\"] tr[aria-current]");
    assert_eq!(
        current.get_attribute("data-device").as_deref(),
        Some("rtx-4090")
    );
    let h100: HtmlElement = find(
        &host,
        "[data-testid=\"devices-table\"] tr[data-device=\"h100-80gb\"] button",
    )
    .unchecked_into();
    h100.click();
    settle().await;
    let select: web_sys::HtmlSelectElement = find(&host, "select[name=\"gpu\"]").unchecked_into();
    assert_eq!(select.value(), "h100-80gb");
    let current = find(&host, "[data-testid=\"devices-table\"] tr[aria-current]");
    assert_eq!(
        current.get_attribute("data-device").as_deref(),
        Some("h100-80gb")
    );
}

/// Waits `ms` milliseconds (the address is rewritten on a timer).
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("a window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("the timer fires");
}

fn address() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// A count that is "none" reads so, and has no difference to count (issue
/// 28): B's sequence of 2 million tokens fits on no number of GPUs.
#[wasm_bindgen_test]
async fn a_count_of_none_reads_none_in_the_comparison() {
    use batchfit_core::{memory, query};
    let both = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&b.seq=2000000";
    let pair = query::parse_pair(both);
    let b = pair.b.expect("a setup B").config;
    assert_eq!(memory::gpus_needed(&b), None);
    let (host, _app) = mount_with(both);
    settle().await;
    let row = find(
        &host,
        "[data-testid=\"compare-table\"] tr[data-row=\"gpus_needed\"]",
    );
    let text = row.text_content().unwrap_or_default();
    assert!(text.contains("None fits"), "{text}");
    assert!(!text.contains("−"), "{text}");
}

/// "Compare with…": an address with a setup B opens on B beside A, each
/// number the core's; the form switches between them and the address keeps
/// both; stopping keeps the setup shown.
#[wasm_bindgen_test]
async fn two_setups_side_by_side_from_the_address_and_back() {
    use batchfit_core::{memory, query};
    let a_query = "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb";
    let both = format!("{a_query}&b.batch=1&b.zero=3&b.gpus=8");
    let pair = query::parse_pair(&both);
    let (a, b) = (pair.a.config, pair.b.expect("a setup B").config);
    let (host, _app) = mount_with(&both);
    settle().await;
    let input = |name: &str| {
        find(&host, &format!("input[name=\"{name}\"]"))
            .unchecked_into::<HtmlInputElement>()
            .value()
    };
    assert_eq!(input("batch"), "1");
    let cell = |row: &str, side: &str| {
        find(
            &host,
            &format!("[data-testid=\"compare-table\"] tr[data-row=\"{row}\"] [data-{side}]"),
        )
        .get_attribute(&format!("data-{side}"))
        .unwrap_or_default()
    };
    let (ea, eb) = (memory::estimate(&a), memory::estimate(&b));
    assert_eq!(cell("required", "a"), ea.required.to_string());
    assert_eq!(cell("required", "b"), eb.required.to_string());
    assert_eq!(cell("weights", "b"), eb.weights.to_string());
    assert_ne!(ea.weights, eb.weights);
    let row = find(
        &host,
        "[data-testid=\"compare-table\"] tr[data-row=\"weights\"]",
    );
    assert!(row.class_list().contains("differs"));
    let differs = find(&host, "[data-testid=\"compare-differs\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        differs.contains("batch 4 → 1") && differs.contains("zero 0 → 3"),
        "{differs}"
    );
    // The result card above is B's.
    assert_eq!(bytes(&host, "required"), eb.required.to_string());
    // Switch: the form shows A, the address still holds both.
    find(&host, "[data-testid=\"compare-switch\"]")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    assert_eq!(input("batch"), "4");
    assert_eq!(bytes(&host, "required"), ea.required.to_string());
    assert_eq!(cell("required", "b"), eb.required.to_string());
    sleep(400).await;
    assert_eq!(query::parse_pair(&address()).b.map(|p| p.config), Some(b));
    // Stop: one setup (A, shown) and an address without `b.`.
    find(&host, "[data-testid=\"compare-stop\"]")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    assert!(all(&host, "[data-testid=\"compare-table\"]").is_empty());
    sleep(400).await;
    assert!(!address().contains("b."), "{}", address());
    // Start again: B is a copy of A; one click each makes it A with one
    // change: precision, ZeRO stage, LoRA, recomputation.
    find(&host, "[data-testid=\"compare-start\"]")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    assert_eq!(cell("required", "a"), cell("required", "b"));
    let toggles = query::toggles(&a);
    let names: Vec<String> = all(&host, ".compare-presets button")
        .iter()
        .map(|b| b.get_attribute("data-param").unwrap_or_default())
        .collect();
    assert_eq!(names, ["recipe", "zero", "lora_rank", "recompute"]);
    for (i, (_, b)) in toggles.iter().enumerate() {
        let button = all(&host, ".compare-presets button").remove(i);
        button.unchecked_into::<HtmlElement>().click();
        settle().await;
        assert_eq!(
            cell("required", "b"),
            memory::estimate(b).required.to_string()
        );
    }
}

/// A problem in setup B's parameters is named as the address writes it.
#[wasm_bindgen_test]
async fn a_problem_in_setup_b_is_named_with_its_prefix() {
    let (host, _app) = mount_with("form=parameters&params=7B&b.params=lots");
    settle().await;
    let notice = find(&host, "[data-testid=\"url-notice\"]");
    assert_eq!(
        notice.get_attribute("data-params").as_deref(),
        Some("b.params")
    );
}

/// How sure "fits" is: the page states the core's validation range and its
/// verdict, and says nothing for a form no validation row is of.
#[wasm_bindgen_test]
async fn the_validation_range_is_the_cores() {
    use batchfit_core::{confidence, memory, query};
    for (q, verdict) in [
        (
            "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&zero=3&gpus=8&recompute=full&gpu=h100-80gb",
            Some(confidence::Verdict::Fits),
        ),
        (
            "form=transformer&model=llama-3.1-8b&batch=6&seq=4096&zero=3&gpus=8&recompute=full&framework=hf_trainer&gpu=a100-40gb",
            None,
        ),
    ] {
        let config = query::parse(q).config;
        let estimate = memory::estimate(&config);
        let fit = confidence::fit(&config, &estimate).expect("a range");
        let expected = fit.verdict(estimate.device_bytes.expect("a device"));
        if let Some(verdict) = verdict {
            assert_eq!(expected, verdict, "{q}");
        }
        let (host, _app) = mount_with(q);
        settle().await;
        let p = find(&host, "[data-testid=\"confidence\"]");
        assert_eq!(
            p.get_attribute("data-verdict").as_deref(),
            Some(expected.name()),
            "{q}"
        );
        assert_eq!(
            p.get_attribute("data-pessimistic"),
            Some(fit.pessimistic.to_string())
        );
        assert_eq!(
            p.get_attribute("data-optimistic"),
            Some(fit.optimistic.to_string())
        );
    }
    let (host, _app) = mount_with("form=parameters&params=7B&gpu=h100-80gb");
    settle().await;
    let p = find(&host, "[data-testid=\"confidence\"]");
    assert_eq!(p.text_content().as_deref(), Some(""));
}

/// Pastes `text` into "Compare with a measurement" as a user does, and lets
/// the page compare it.
async fn paste_measurement(host: &Element, text: &str) {
    let area: web_sys::HtmlTextAreaElement =
        find(host, "[data-testid=\"measure-text\"]").unchecked_into();
    area.set_value(text);
    area.dispatch_event(&web_sys::Event::new("input").expect("an input event"))
        .expect("dispatch");
    settle().await;
}

/// "Compare with a measurement": a pasted printout reads as the core reads
/// it, beside the estimate's reading; bad text names its line.
#[wasm_bindgen_test]
async fn a_pasted_measurement_is_compared_with_the_estimate() {
    use batchfit_core::{measured, memory, query};
    let q = "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&zero=3&gpus=8&recompute=full&gpu=h100-80gb";
    let config = query::parse(q).config;
    let estimate = memory::estimate(&config);
    let (host, _app) = mount_with(q);
    settle().await;
    open(&host, "[data-testid=\"measure\"]").await;
    let text = include_str!("../../batchfit-core/tests/data/measured/print_gib.txt");
    paste_measurement(&host, text).await;
    let expected = measured::parse(text, None).expect("the sample reads");
    let shown = all(&host, ".measure-one");
    assert_eq!(shown.len(), expected.len());
    for (one, m) in shown.iter().zip(&expected) {
        let c = measured::compare(&config, &estimate, m);
        assert_eq!(
            one.get_attribute("data-reading").as_deref(),
            Some(m.reading.name())
        );
        assert_eq!(
            one.get_attribute("data-measured"),
            Some(m.bytes.to_string())
        );
        assert_eq!(
            one.get_attribute("data-predicted"),
            Some(c.predicted.to_string())
        );
        assert_eq!(one.get_attribute("data-error"), Some(c.error.to_string()));
    }
    let report = find(&host, "[data-testid=\"measure-report\"]")
        .text_content()
        .unwrap_or_default();
    assert!(report.contains("Peak reserved: 44.50 GiB"), "{report}");
    paste_measurement(&host, "Peak reserved: 44.5 G").await;
    let error = find(&host, "[data-testid=\"measure-error\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        error.starts_with("Line 1: the unit must be one of"),
        "{error}"
    );
}

/// A serving setup's measurement panel reads the engine's start-up log as
/// `batchfit measured` does: each term beside the plan's, in the page's
/// language; the log's other sampler named, with a link that applies it; a
/// line that cannot be read named; a run's readings still read.
#[wasm_bindgen_test]
async fn a_pasted_start_up_log_is_compared_with_the_plan() {
    use batchfit_core::query;
    use batchfit_core::serving::{self, log};
    let text = "WARNING [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.\n\
        INFO [gpu_model_runner.py:2007] Model loading took 14.96 GiB memory and 4.2 seconds\n\
        INFO [gpu_worker.py:298] Available KV cache memory: 5.20 GiB\n\
        INFO [kv_cache_utils.py:864] GPU KV cache size: 42,592 tokens\n\
        INFO [kv_cache_utils.py:868] Maximum concurrency for 8,192 tokens per request: 5.20x\n";
    for (lang, title, row) in [
        (
            "en",
            "vLLM's start-up log beside batchfit's plan",
            "KV-cache size (tokens): log 42,592 (line 4) · plan 42,064 · plan − log −528 (−1.2\u{a0}%)",
        ),
        (
            "es",
            "El registro de arranque de vLLM frente al plan de batchfit",
            "Tamaño de la caché KV (tokens): registro 42\u{202f}592 (línea 4) · plan 42\u{202f}064 · plan − registro −528 (−1,2\u{a0}%)",
        ),
    ] {
        let q = format!(
            "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090&max_model_len=8192&lang={lang}"
        );
        let plan = serving::plan(&query::parse(&q).config).expect("a plan");
        let compared = log::compare(&plan, &log::read(text).expect("the log reads"));
        let (host, _app) = mount_with(&q);
        settle().await;
        open(&host, "[data-testid=\"measure\"]").await;
        paste_measurement(&host, text).await;
        let items = all(&host, "[data-testid=\"measure-log\"] li");
        assert_eq!(items.len(), compared.len(), "{lang}");
        assert_eq!(compared.len(), 4, "{lang}");
        for (item, c) in items.iter().zip(&compared) {
            let attr = |name: &str| item.get_attribute(name).unwrap_or_default();
            assert_eq!(attr("data-term"), c.term.name(), "{lang}");
            assert_eq!(attr("data-logged"), c.logged.value.to_string(), "{lang}");
            assert_eq!(attr("data-planned"), c.planned.to_string(), "{lang}");
            assert_eq!(attr("data-error"), c.error.to_string(), "{lang}");
        }
        let result = find(&host, "[data-testid=\"measure-result\"]")
            .text_content()
            .unwrap_or_default();
        assert!(result.contains(title), "{lang}: {result}");
        assert!(result.contains(row), "{lang}: {result}");
        // The log sampled with FlashInfer; the plan assumed PyTorch's sort.
        let link = find(&host, "[data-testid=\"measure-sampler\"] a");
        link.unchecked_ref::<HtmlElement>().click();
        settle().await;
        let field: HtmlInputElement =
            find(&host, "input[name=\"flashinfer_sampler\"]").unchecked_into();
        assert!(field.checked(), "{lang}");
        assert!(
            all(&host, "[data-testid=\"measure-sampler\"]").is_empty(),
            "{lang}"
        );
        assert_eq!(
            all(&host, "[data-testid=\"measure-log\"] li").len(),
            4,
            "{lang}"
        );
    }
    let q = "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090&max_model_len=8192";
    let (host, _app) = mount_with(q);
    settle().await;
    open(&host, "[data-testid=\"measure\"]").await;
    paste_measurement(&host, "ok\nAvailable KV cache memory: lots GiB").await;
    let error = find(&host, "[data-testid=\"measure-error\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        error.starts_with("Line 2 states a term of the memory plan"),
        "{error}"
    );
    paste_measurement(&host, "Loading safetensors shards").await;
    let error = find(&host, "[data-testid=\"measure-error\"]")
        .text_content()
        .unwrap_or_default();
    assert!(error.contains("\"Available KV cache memory\""), "{error}");
    paste_measurement(&host, "max_memory_allocated: 20 GiB").await;
    assert_eq!(all(&host, ".measure-one").len(), 1);
}

/// The terms that could explain a measured difference are written in the
/// page's language: the core's references, and its English note only on an
/// English page; a term with a size says the difference it could make here.
#[wasm_bindgen_test]
async fn a_measured_differences_terms_are_in_the_pages_language() {
    use batchfit_core::{measured, memory, query};
    // Far above the estimate: the terms that make an estimate low, some sized.
    let pasted = "max_memory_allocated: 200 GiB";
    for (lang, english, here) in [("en", true, " here)"), ("es", false, " aquí)")] {
        let q = format!(
            "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&gpu=h100-80gb&lang={lang}"
        );
        let config = query::parse(&q).config;
        let estimate = memory::estimate(&config);
        let read = measured::parse(pasted, None).expect("the text reads");
        let comparison = measured::compare(&config, &estimate, &read[0]);
        let (host, _app) = mount_with(&q);
        settle().await;
        open(&host, "[data-testid=\"measure\"]").await;
        paste_measurement(&host, pasted).await;
        let items = all(&host, "[data-testid=\"measure-result\"] li[data-term]");
        assert_eq!(items.len(), comparison.explanations.len(), "{lang}");
        let (mut noted, mut sized) = (0, 0);
        for (item, x) in items.iter().zip(&comparison.explanations) {
            let name = x.info.term.name();
            assert_eq!(item.get_attribute("data-term").as_deref(), Some(name));
            let text = item.text_content().unwrap_or_default();
            assert!(text.contains(x.info.source), "{lang} {name}: {text}");
            if !x.info.note.is_empty() {
                noted += 1;
                assert_eq!(text.contains(x.info.note), english, "{lang} {name}: {text}");
            }
            if x.range.is_some() {
                sized += 1;
            }
            assert_eq!(
                text.contains(here),
                x.range.is_some(),
                "{lang} {name}: {text}"
            );
        }
        assert!(
            noted > 0 && sized > 0,
            "{lang}: {noted} noted, {sized} sized"
        );
    }
}

/// The one-card user of issue 28 (Llama 3.1 8B, a full fine-tune on one RTX
/// 4090, host RAM not given): every fix the page lists stays on the one
/// card, the first needs no host RAM, and each, applied by its link, gives
/// the required memory it promised and fits.
#[wasm_bindgen_test]
async fn a_one_card_user_s_fixes_stay_on_the_card_and_keep_their_promise() {
    use batchfit_core::{advice, query};
    let q = "form=transformer&model=llama-3.1-8b&gpu=rtx-4090";
    let expected = advice::fixes(&query::parse(q).config);
    assert_eq!(expected.len(), 5);
    assert_eq!(expected[0].host_memory, 0);
    for (i, a) in expected.iter().enumerate() {
        assert_eq!(a.fix.cost.extra_gpus(), 0, "{:?}", a.fix.levers);
        let (host, _app) = mount_with(q);
        settle().await;
        let items = all(&host, "[data-testid=\"fixes\"] li");
        assert_eq!(items.len(), expected.len());
        let promised = items[i].get_attribute("data-bytes").unwrap_or_default();
        assert_eq!(promised, a.fix.estimate.required.to_string());
        items[i]
            .query_selector("a")
            .ok()
            .flatten()
            .expect("a link")
            .unchecked_into::<HtmlElement>()
            .click();
        settle().await;
        assert_eq!(bytes(&host, "required"), promised, "{:?}", a.fix.levers);
        let fits = find(&host, "[data-testid=\"fits\"]").get_attribute("data-value");
        assert_eq!(fits.as_deref(), Some("true"), "{:?}", a.fix.levers);
    }
}

/// The smallest changes that fit: the core's list (`advice::fixes`, the
/// CLI's), in its order, each with its required memory, the host RAM it
/// needs and its cost; a click applies it and the page then fits.
#[wasm_bindgen_test]
async fn the_smallest_changes_that_fit_are_the_cores_and_apply_in_one_click() {
    use batchfit_core::{advice, memory, query};
    let q = "form=transformer&model=llama-3.1-8b&recipe=amp&batch=16&seq=2048&gpu=h100-80gb";
    let expected = advice::fixes(&query::parse(q).config);
    assert!(!expected.is_empty());
    let (host, _app) = mount_with(q);
    settle().await;
    let items = all(&host, "[data-testid=\"fixes\"] li");
    assert_eq!(items.len(), expected.len());
    for (li, a) in items.iter().zip(&expected) {
        let required = a.fix.estimate.required.to_string();
        assert_eq!(li.get_attribute("data-bytes"), Some(required.clone()));
        assert_eq!(li.get_attribute("data-required"), Some(required));
        assert_eq!(
            li.get_attribute("data-host-bytes"),
            Some(a.host_memory.to_string())
        );
        assert_eq!(
            li.get_attribute("data-fits-pessimistic"),
            Some(a.fits_pessimistic.to_string())
        );
        // An offload says the host RAM it needs.
        let host_note = li.query_selector(".host").ok().flatten().is_some();
        assert_eq!(host_note, a.host_memory > 0);
    }
    // The first keeps the global batch by accumulation: its cost says so.
    let cost = find(&host, "[data-testid=\"fixes\"] li .cost")
        .text_content()
        .unwrap_or_default();
    assert!(cost.contains("micro-steps"), "{cost}");
    // Each what-if says what it costs besides memory: recomputation's compute.
    let checkpointing = find(&host, "[data-change=\"checkpointing\"] .cost")
        .text_content()
        .unwrap_or_default();
    assert!(checkpointing.contains("% compute"), "{checkpointing}");
    find(&host, "[data-testid=\"fixes\"] li a")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    assert_eq!(
        bytes(&host, "required"),
        expected[0].fix.estimate.required.to_string()
    );
    let fits = find(&host, "[data-testid=\"fits\"]").get_attribute("data-value");
    assert_eq!(fits.as_deref(), Some("true"));
    assert!(all(&host, "[data-testid=\"fixes\"] li").is_empty());
    // When one change that keeps the task fits (recomputation here), the
    // list is still the CLI's (issue 28), and the what-if is a link that
    // applies it.
    let q = "form=transformer&model=llama-3.1-8b&recipe=bf16&batch=4&seq=4096&gpu=h100-80gb";
    let config = query::parse(q).config;
    assert_eq!(memory::estimate(&config).fits, Some(false));
    let one = memory::what_ifs(&config)
        .into_iter()
        .find(|w| w.change == memory::Change::Checkpointing)
        .expect("recomputation is offered");
    assert_eq!(one.fits, Some(true));
    let (host, _app) = mount_with(q);
    settle().await;
    assert_eq!(
        all(&host, "[data-testid=\"fixes\"] li").len(),
        advice::fixes(&config).len()
    );
    find(&host, "[data-change=\"checkpointing\"] a")
        .unchecked_into::<HtmlElement>()
        .click();
    settle().await;
    assert_eq!(bytes(&host, "required"), one.required.to_string());
}

/// Pipeline parallelism: every stage's memory is the core's, the answer's
/// stage is marked, and without a pipeline there is no stage table.
#[wasm_bindgen_test]
async fn every_pipeline_stage_is_shown_and_the_answers_is_marked() {
    use batchfit_core::{memory, query};
    let q =
        "form=transformer&model=llama-3.1-8b&batch=1&seq=4096&pp=4&microbatches=8&gpu=h100-80gb";
    let config = query::parse(q).config;
    let stages = memory::stages(&config);
    assert_eq!(stages.len(), 4);
    let answer = memory::estimate(&config);
    let (host, _app) = mount_with(q);
    settle().await;
    let rows = all(&host, "[data-testid=\"stages\"] tbody tr");
    assert_eq!(rows.len(), 4);
    for (row, stage) in rows.iter().zip(&stages) {
        assert_eq!(
            row.get_attribute("data-required"),
            Some(stage.estimate.required.to_string())
        );
        assert_eq!(
            row.has_attribute("aria-current"),
            stage.estimate == answer,
            "stage {}",
            stage.index
        );
    }
    assert_eq!(
        all(&host, "[data-testid=\"stages\"] tr[aria-current]").len(),
        1
    );
    assert_eq!(bytes(&host, "required"), answer.required.to_string());
    let (host, _app) = mount_with("form=transformer&model=llama-3.1-8b&batch=1&gpu=h100-80gb");
    settle().await;
    assert!(all(&host, "[data-testid=\"stages\"] tr").is_empty());
}

/// A pasted DeepSpeed config or TrainingArguments sets the training settings
/// `import::files` reads from it (the CLI's `--deepspeed`/`--training-args`),
/// with its notes; one that contradicts the page names the file and the keys.
#[wasm_bindgen_test]
async fn a_pasted_deepspeed_config_or_training_arguments_sets_the_training_settings() {
    use batchfit_core::import;
    let paste = |host: &Element, text: &str| {
        let area: web_sys::HtmlTextAreaElement =
            find(host, "textarea[name=\"config_json\"]").unchecked_into();
        area.set_value(text);
        area.dispatch_event(&web_sys::Event::new("input").expect("an input event"))
            .expect("dispatch");
    };
    // A field's value as the URL writes it (a checkbox: 1 or 0).
    let value = |host: &Element, name: &str| {
        let field = find(host, &format!("[name=\"{name}\"]"));
        let get = |key: &str| js_sys::Reflect::get(&field, &key.into()).unwrap_or_default();
        if get("type").as_string().as_deref() == Some("checkbox") {
            if get("checked").is_truthy() { "1" } else { "0" }.to_owned()
        } else {
            get("value").as_string().unwrap_or_default()
        }
    };
    let deepspeed = include_str!("../../batchfit-core/tests/data/deepspeed_zero2_offload.json");
    let trainer = include_str!("../../batchfit-core/tests/data/training_args.json");
    for (text, files) in [
        (
            deepspeed,
            import::Files {
                deepspeed: Some(deepspeed),
                training_args: None,
            },
        ),
        (
            trainer,
            import::Files {
                deepspeed: None,
                training_args: Some(trainer),
            },
        ),
    ] {
        let (host, _app) = mount_with("form=transformer&model=llama-3.1-8b&gpus=8&gpu=h100-80gb");
        settle().await;
        let context = import::Context {
            hidden: Some(4096),
            gpus: 8,
        };
        let expected = import::files(&files, &context).expect("the sample reads");
        assert!(!expected.params.is_empty());
        open(&host, "[data-testid=\"paste-box\"]").await;
        paste(&host, text);
        settle().await;
        find(&host, "[data-testid=\"settings-import\"]");
        for (param, v) in &expected.params {
            assert_eq!(&value(&host, param.name()), v, "{}", param.name());
        }
        let notes = all(&host, "[data-testid=\"import-notes\"] li");
        assert_eq!(notes.len(), expected.notes.len());
        assert_eq!(bytes(&host, "required"), {
            let q = format!(
                "form=transformer&model=llama-3.1-8b&gpus=8&gpu=h100-80gb&{}",
                expected.query()
            );
            batchfit_core::memory::estimate(&batchfit_core::query::parse(&q).config)
                .required
                .to_string()
        });
    }
    // On one GPU, DeepSpeed's batch of 64 is not 4 × 2 × 1: the file is named.
    let (host, _app) = mount_with("form=transformer&model=llama-3.1-8b&gpu=h100-80gb");
    settle().await;
    open(&host, "[data-testid=\"paste-box\"]").await;
    paste(&host, deepspeed);
    settle().await;
    let error = find(&host, "[data-testid=\"config-import-error\"]")
        .text_content()
        .unwrap_or_default();
    assert!(
        error.starts_with("In the DeepSpeed config, «train_batch_size» 64"),
        "{error}"
    );
}

/// One reading of a pasted file (issue 28): every checked-in config.json,
/// DeepSpeed config and TrainingArguments pasted on the page opened at a
/// query gives the address that `batchfit -v` prints for the same file over
/// the same query: the table crates/batchfit-core/tests/data/pasted-queries.txt,
/// which the CLI's test holds the CLI to. A DeepSpeed config whose precision
/// is "auto" keeps its profile's `amp16`, not the form's earlier recipe; a
/// published model's config.json names its preset.
#[wasm_bindgen_test]
async fn a_pasted_file_reads_as_the_cli_reads_it() {
    use batchfit_core::{memory, query};
    let samples = [
        (
            "deepspeed_zero2_offload.json",
            include_str!("../../batchfit-core/tests/data/deepspeed_zero2_offload.json"),
        ),
        (
            "hf_zero2_auto.json",
            include_str!("../../batchfit-core/tests/data/hf_zero2_auto.json"),
        ),
        (
            "hf_zero3_auto.json",
            include_str!("../../batchfit-core/tests/data/hf_zero3_auto.json"),
        ),
        (
            "training_args.json",
            include_str!("../../batchfit-core/tests/data/training_args.json"),
        ),
        (
            "training_args_fsdp.json",
            include_str!("../../batchfit-core/tests/data/training_args_fsdp.json"),
        ),
        (
            "llama-3.1-8b-config.json",
            include_str!("../../batchfit-core/tests/data/llama-3.1-8b-config.json"),
        ),
    ];
    let table = include_str!("../../batchfit-core/tests/data/pasted-queries.txt");
    let rows: Vec<&str> = table.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), samples.len());
    for row in rows {
        let (given, cli) = row.split_once(" -> ").expect("a row");
        let words: Vec<&str> = given.split(' ').collect();
        let [_, file, base] = words[..] else {
            panic!("{row}");
        };
        let text = samples
            .iter()
            .find(|(name, _)| *name == file)
            .map(|(_, text)| *text)
            .expect("a checked-in file");
        let (host, _app) = mount_with(base);
        settle().await;
        open(&host, "[data-testid=\"paste-box\"]").await;
        let area: web_sys::HtmlTextAreaElement =
            find(&host, "textarea[name=\"config_json\"]").unchecked_into();
        area.set_value(text);
        area.dispatch_event(&web_sys::Event::new("input").expect("an input event"))
            .expect("dispatch");
        settle().await;
        // The address is written once the page has been idle a moment.
        sleep(1500).await;
        assert_eq!(address(), format!("?{cli}"), "{file}");
        let parsed = query::parse(cli);
        assert_eq!(parsed.problems, [], "{cli}");
        assert_eq!(
            bytes(&host, "required"),
            memory::estimate(&parsed.config).required.to_string(),
            "{file}"
        );
        let recipe: HtmlInputElement = find(&host, "[name=\"recipe\"]").unchecked_into();
        assert_eq!(
            recipe.value(),
            parsed.config.transformer.recipe.name(),
            "{file}"
        );
        let model: HtmlInputElement = find(&host, "[name=\"model\"]").unchecked_into();
        assert_eq!(
            model.value(),
            parsed.config.model.map_or("", |m| m.id),
            "{file}"
        );
    }
}

/// A job on several GPUs (issue 28's cluster user: Mixtral with 8
/// data-parallel ranks, tensor parallel 2, pipeline 2, experts over 8) says
/// on the page that its number is each GPU's and how many GPUs the job
/// has, in both languages; one GPU's job says neither.
#[wasm_bindgen_test]
async fn a_job_on_several_gpus_reads_per_gpu_with_its_count() {
    for (lang, per_gpu, each) in [
        (
            "en",
            "per GPU",
            "fits on each of 32 × NVIDIA H100 80GB SXM: ",
        ),
        (
            "es",
            "por GPU",
            "¿cabe en cada una de las 32 × NVIDIA H100 80GB SXM? ",
        ),
    ] {
        let q = format!(
            "form=transformer&model=mixtral-8x7b&gpus=8&tp=2&pp=2&ep=8&gpu=h100-80gb&lang={lang}"
        );
        let (host, _app) = mount_with(&q);
        settle().await;
        let summary = find(&host, "[data-testid=\"summary\"]")
            .text_content()
            .unwrap_or_default();
        assert!(summary.contains(per_gpu), "{lang}: {summary}");
        assert!(summary.contains(each), "{lang}: {summary}");
        let (host, _app) = mount_with(&format!(
            "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&lang={lang}"
        ));
        settle().await;
        let summary = find(&host, "[data-testid=\"summary\"]")
            .text_content()
            .unwrap_or_default();
        assert!(!summary.contains(per_gpu), "{lang}: {summary}");
        assert!(!summary.contains(" × NVIDIA"), "{lang}: {summary}");
    }
}

/// A dense single-GPU setup sees parallelism only if it opens "Multi-GPU";
/// a setup on several GPUs has it open.
#[wasm_bindgen_test]
async fn multi_gpu_settings_are_closed_for_one_gpu_and_open_for_several() {
    for (q, open) in [
        ("form=transformer&model=llama-3.1-8b&gpu=h100-80gb", false),
        (
            "form=transformer&model=llama-3.1-8b&gpus=8&zero=3&gpu=h100-80gb",
            true,
        ),
        (
            "form=transformer&model=llama-3.1-8b&tp=2&gpu=h100-80gb",
            true,
        ),
    ] {
        let (host, _app) = mount_with(q);
        settle().await;
        let details = find(&host, "[data-testid=\"multi-gpu\"]");
        assert_eq!(details.has_attribute("open"), open, "{q}");
        // The fields are there either way, with the address's values.
        let gpus: HtmlInputElement = find(&host, "input[name=\"gpus\"]").unchecked_into();
        let expected = batchfit_core::query::parse(q).config.transformer.gpus;
        assert_eq!(gpus.value(), expected.to_string());
    }
}

/// A paged optimizer's state is counted on the GPU, and the page says it may
/// move to the CPU under pressure; AdamW's does not.
#[wasm_bindgen_test]
async fn a_paged_optimizer_says_its_state_may_spill_to_the_cpu() {
    for (optimizer, spills) in [("paged_adamw_8bit", true), ("adamw", false)] {
        let q = format!(
            "form=transformer&model=llama-3.1-8b&lora_rank=16&recipe=bf16&optimizer={optimizer}&gpu=rtx-4090"
        );
        let expected = batchfit_core::memory::estimate(&batchfit_core::query::parse(&q).config);
        assert_eq!(expected.optimizer_may_spill, spills);
        let (host, _app) = mount_with(&q);
        settle().await;
        assert_eq!(
            !all(&host, "[data-testid=\"optimizer-may-spill\"]").is_empty(),
            spills,
            "{optimizer}"
        );
    }
}

/// The bare address asks what people ask (issue 28): the first screen's
/// setup, the task select on QLoRA, at most 12 controls shown (a closed
/// group counts as one), and each closed group saying its values.
#[wasm_bindgen_test]
async fn the_bare_address_opens_the_first_screen() {
    let (host, _app) = mount_with("");
    settle().await;
    let first = batchfit_core::query::parse(batchfit_core::query::FIRST_SCREEN).config;
    let expected = batchfit_core::memory::estimate(&first);
    let required = bytes_of(&find(&host, ".breakdown [data-testid=\"required\"]"));
    assert_eq!(required, expected.required);
    let method: web_sys::HtmlSelectElement =
        find(&host, "select[name=\"method\"]").unchecked_into();
    assert_eq!(method.value(), "qlora");
    // The controls shown: the fields outside closed groups, and each closed
    // group as one.
    let controls = host
        .query_selector_all(".inputs input, .inputs select, .inputs textarea, .inputs details")
        .expect("controls");
    let mut shown = 0;
    for i in 0..controls.length() {
        let control = controls.item(i).expect("a control");
        // `checkVisibility()`: a closed group's content is not rendered.
        let check: js_sys::Function = js_sys::Reflect::get(&control, &"checkVisibility".into())
            .expect("checkVisibility")
            .unchecked_into();
        if check.call0(&control).is_ok_and(|v| v.is_truthy()) {
            shown += 1;
        }
    }
    assert!((4..=12).contains(&shown), "{shown} controls shown");
    let groups: Vec<String> = all(&host, "details.advanced [data-testid=\"group-values\"]")
        .iter()
        .filter_map(|e| e.text_content())
        .collect();
    let architecture = groups
        .iter()
        .find(|g| g.starts_with("Decoder-only"))
        .expect("the architecture group");
    assert!(architecture.contains("Layers 32"), "{architecture}");
    assert!(!architecture.contains(" 0"), "{architecture}");
    // The training group: its values, and no word for the absent profile.
    let training = groups
        .iter()
        .find(|g| g.starts_with("Pure BF16"))
        .expect("the training group");
    assert!(!training.contains("defaults"), "{training}");
}

/// A bad typed capacity in a link is kept and marked in its field, which
/// shows with the custom device picked: the visitor can fix it there.
#[wasm_bindgen_test]
async fn a_bad_capacity_in_a_link_is_marked_in_its_field() {
    for (text, lang) in [("abc", "en"), ("-5", "es"), ("", "en")] {
        let query = format!("form=transformer&model=llama-3.1-8b&gpu_gb={text}&lang={lang}");
        let (host, _app) = mount_with(&query);
        settle().await;
        let device: web_sys::HtmlSelectElement =
            find(&host, "select[name=\"gpu\"]").unchecked_into();
        assert_eq!(device.value(), "custom", "{query}");
        let input: HtmlInputElement = find(&host, "input[name=\"gpu_gb\"]").unchecked_into();
        assert_eq!(input.value(), text, "{query}");
        let frame = input
            .closest(".field")
            .ok()
            .flatten()
            .expect("the capacity's frame");
        assert!(!frame.has_attribute("hidden"), "{query}");
        assert!(frame.class_list().contains("invalid"), "{query}");
    }
}

/// A serving engine schedules the requests it holds: its plan reads no
/// batch, and the form shows no batch field (`query::rules`), where
/// generate()'s inference and training keep theirs. A link's batch there
/// changes nothing and is not reported.
#[wasm_bindgen_test]
async fn a_serving_engine_has_no_batch_field() {
    for (query, shown) in [
        (
            "form=transformer&model=llama-3.1-8b&framework=vllm&mode=inference&gpu=h100-80gb&batch=64",
            false,
        ),
        (
            "form=transformer&model=llama-3.1-8b&framework=sglang&mode=inference&gpu=h100-80gb",
            false,
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&gpu=h100-80gb",
            true,
        ),
        ("form=transformer&model=llama-3.1-8b&gpu=h100-80gb", true),
    ] {
        let (host, _app) = mount_with(query);
        settle().await;
        let field = find(&host, "[name=\"batch\"]")
            .closest(".field")
            .ok()
            .flatten()
            .expect("the batch field's frame");
        assert_eq!(!field.has_attribute("hidden"), shown, "{query}");
        assert!(
            host.query_selector("[data-testid=\"url-notice\"]")
                .ok()
                .flatten()
                .is_none(),
            "{query}: nothing reported"
        );
    }
}

/// The transformer form's settings group speaks of the task: in inference
/// it is the inference's, and says the precision the model is loaded in
/// (the recipe's compute precision: inference keeps no master copy,
/// gradients or states) and the KV cache's, named as such; in training, the
/// recipe by its own words.
#[wasm_bindgen_test]
async fn the_settings_group_speaks_of_the_task() {
    for (query, title, line) in [
        (
            "form=transformer&model=llama-3.1-8b&mode=inference",
            "Inference setup",
            "Loaded in 16 bits · KV-cache precision 16-bit, unquantized",
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&recipe=fp32&kv_dtype=fp8",
            "Inference setup",
            "Loaded in FP32 · KV-cache precision FP8 (vLLM)",
        ),
        (
            "form=transformer&model=llama-3.1-8b&recipe=amp",
            "Training setup",
            "Mixed BF16, FP32 master (AMP) · AdamW",
        ),
    ] {
        let (host, _app) = mount_with(query);
        settle().await;
        let summary = find(&host, "details.settings > summary");
        let spans = all(&summary, "span");
        let texts: Vec<String> = spans.iter().filter_map(|s| s.text_content()).collect();
        assert_eq!(texts, [title, line], "{query}");
    }
}

/// Each task picked gives the memory of the setup `Method::apply` makes
/// from the first screen, and the select reads it back.
#[wasm_bindgen_test]
async fn the_task_select_states_each_method() {
    use batchfit_core::transformer::Method;
    let (host, _app) = mount_with("");
    settle().await;
    let first = batchfit_core::query::parse(batchfit_core::query::FIRST_SCREEN).config;
    for &method in Method::ALL {
        let select: web_sys::HtmlSelectElement =
            find(&host, "select[name=\"method\"]").unchecked_into();
        select.set_value(method.name());
        let event = web_sys::Event::new("change").expect("a change event");
        select.dispatch_event(&event).expect("dispatch");
        settle().await;
        let mut expected = first;
        method.apply(&mut expected.transformer);
        let expected = batchfit_core::memory::estimate(&expected);
        let required = bytes_of(&find(&host, ".breakdown [data-testid=\"required\"]"));
        assert_eq!(required, expected.required, "{method:?}");
        let select: web_sys::HtmlSelectElement =
            find(&host, "select[name=\"method\"]").unchecked_into();
        assert_eq!(select.value(), method.name());
    }
}

/// `embed=compact` is the answer alone: the headline, the verdict, the bar
/// and a link to the full page; no form, no tabs.
#[wasm_bindgen_test]
async fn the_compact_embed_is_the_answer_alone() {
    let query = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&embed=compact";
    let (host, _app) = mount_with(query);
    settle().await;
    for part in [".inputs", ".tabs", ".top-bar", ".breakdown", ".sweep"] {
        assert!(host.query_selector(part).ok().flatten().is_none(), "{part}");
    }
    let headline = find(&host, "[data-testid=\"headline\"]")
        .text_content()
        .unwrap_or_default();
    assert!(headline.contains("H100"), "{headline}");
    let segments = all(&host, ".bar-legend [data-testid^=\"bar-\"]");
    let sum: u128 = segments.iter().map(bytes_of).sum();
    let expected = batchfit_core::memory::estimate(&batchfit_core::query::parse(query).config);
    assert_eq!(sum, expected.required, "the bar adds up to the estimate");
    let link = find(&host, ".open-full a")
        .get_attribute("href")
        .unwrap_or_default();
    assert!(
        link.contains("model=llama-3.1-8b") && !link.contains("embed"),
        "{link}"
    );
}

/// The page's fix list is the CLI's (`advice::fixes`) item for item, by
/// required memory, host RAM and sureness, for a full fine-tune, LoRA,
/// inference, a multi-GPU job and the parameters form (issue 28). Each of
/// these does not fit, so each has a list.
#[wasm_bindgen_test]
async fn the_fix_list_is_the_clis_in_five_configurations() {
    use batchfit_core::{advice, memory, query};
    for q in [
        "form=transformer&model=llama-3.1-8b&batch=8&seq=4096&gpu=rtx-4090",
        "form=transformer&model=llama-3.1-8b&recipe=bf16&lora_rank=16&batch=8&seq=4096&gpu=rtx-4090",
        "form=transformer&model=qwen2.5-7b&mode=inference&batch=4&seq=32768&gpu=rtx-4090",
        "form=transformer&model=llama-3.1-70b&gpus=8&zero=1&batch=2&seq=4096&gpu=h100-80gb&max_gpus=16",
        "form=parameters&params=1B&optimizer=adamw&batch=32&act_mb=1200&gpu=rtx-4090",
    ] {
        let config = query::parse(q).config;
        assert_eq!(memory::estimate(&config).fits, Some(false), "{q}");
        let expected = advice::fixes(&config);
        assert!(!expected.is_empty(), "{q}");
        let (host, app) = mount_with(q);
        settle().await;
        let items = all(&host, "[data-testid=\"fixes\"] li");
        assert_eq!(items.len(), expected.len(), "{q}");
        for (li, a) in items.iter().zip(&expected) {
            let row = (
                li.get_attribute("data-bytes"),
                li.get_attribute("data-host-bytes"),
                li.get_attribute("data-fits-pessimistic"),
            );
            let want = (
                Some(a.fix.estimate.required.to_string()),
                Some(a.host_memory.to_string()),
                Some(a.fits_pessimistic.to_string()),
            );
            assert_eq!(row, want, "{q}");
            // One that fits only at the optimistic end says so.
            let text = li.text_content().unwrap_or_default();
            assert_eq!(
                text.contains("fits only at the optimistic end"),
                !a.fits_pessimistic,
                "{q}: {text}"
            );
        }
        drop(app);
        host.remove();
    }
}

/// The answer written before the interface (issue 31,
/// `batchfit_web::first_answer`) reads as the app's results, word for word:
/// the headline, its additions, the badge and the phone's bar, over the
/// forms, both languages, both units, several GPUs, no device and a
/// mixture of experts; an address whose answer the results word otherwise
/// (a bad value, two setups, a serving engine's plan), or shown another
/// form's shell, writes nothing.
#[wasm_bindgen_test]
async fn the_first_answer_is_the_results_word_for_word() {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .expect("a document");
    // The shell boot.js shows for `query`: its form's.
    let shell = |query: &str| {
        let shell = document.create_element("div").expect("a div");
        let form = batchfit_core::query::parse(query).config.form;
        shell.set_class_name("shell");
        shell
            .set_attribute("data-form", form.name())
            .expect("a form");
        shell.set_inner_html(
            "<section class=\"results\"><h2>Memory needed</h2>\
             <p class=\"boot-loading\">Loading</p></section>\
             <div class=\"mini-summary\"><span class=\"boot-loading\">Loading</span></div>",
        );
        shell
    };
    let text = |root: &Element, selector: &str| {
        root.query_selector(selector)
            .ok()
            .flatten()
            .map(|e| e.text_content().unwrap_or_default())
    };
    for query in [
        "form=activations&batch=64&gpu=rtx-4090",
        "form=activations&batch=2&gpu=h100-80gb&lang=es",
        "form=parameters&lang=es&gpu=a100-80gb&units=gib",
        "form=transformer&model=llama-3.1-70b&gpu=a100-80gb",
        "form=transformer&model=llama-3.1-70b&gpu=h100-80gb&gpus=8&zero=3&tp=2",
        "form=transformer&model=qwen2.5-7b&mode=inference&gpu=t4",
        "form=transformer&model=mixtral-8x7b&gpu=h200&lang=es",
        "form=transformer&model=llama-3.1-8b",
    ] {
        let written = shell(query);
        assert!(
            batchfit_web::first_answer(&written, query, batchfit_core::query::Lang::En),
            "{query}"
        );
        assert!(text(&written, ".boot-loading").is_none(), "{query}");
        let (host, _app) = mount_with(query);
        settle().await;
        for (in_shell, in_app) in [
            (".headline", "[data-testid=\"headline\"]"),
            (".additions", "[data-testid=\"headline-additions\"]"),
            (".badge", "[data-testid=\"fits\"]"),
            (
                ".mini-headline",
                "[data-testid=\"mini-summary\"] .mini-headline",
            ),
            (
                ".mini-verdict",
                "[data-testid=\"mini-summary\"] .mini-verdict",
            ),
        ] {
            let said = |root: &Element, selector| text(root, selector).filter(|t| !t.is_empty());
            assert_eq!(
                said(&written, in_shell),
                said(&host, in_app),
                "{query}: {in_shell}"
            );
        }
    }
    for query in [
        "form=transformer&model=llama-3.1-8b&batch=-3&gpu=h100-80gb",
        "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&b.batch=4",
        "form=transformer&model=llama-3.1-8b&framework=vllm&mode=inference&gpu=h100-80gb",
    ] {
        let untouched = shell(query);
        assert!(
            !batchfit_web::first_answer(&untouched, query, batchfit_core::query::Lang::En),
            "{query}"
        );
        assert_eq!(
            text(&untouched, ".boot-loading").as_deref(),
            Some("Loading"),
            "{query}"
        );
        assert!(text(&untouched, ".headline").is_none(), "{query}");
    }
    // Another form's shell (an address naming only parameters no shell
    // has: boot.js shows the first screen's) gets no answer.
    let other = shell(batchfit_core::query::FIRST_SCREEN);
    assert!(!batchfit_web::first_answer(
        &other,
        "lora_rank=8",
        batchfit_core::query::Lang::En
    ));
    assert!(text(&other, ".headline").is_none());
}
