//! Each form's numbers, prefilled from a URL: the page must show exactly what the
//! core computes for that URL (the same function the CLI prints).

use batchfit_core::memory;
use batchfit_core::query;
use batchfit_e2e::{Browser, StaticServer, dist_dir};
use serde_json::json;

/// Every result hook with its expected bytes, as the core computes them.
fn expected(q: &str) -> (memory::Estimate, Vec<memory::SweepRow>) {
    let parsed = query::parse(q);
    assert_eq!(parsed.problems, [], "{q}");
    (
        memory::estimate(&parsed.config),
        memory::sweep(&parsed.config),
    )
}

async fn assert_page_matches_core(browser: &Browser, q: &str) {
    let (e, sweep) = expected(q);
    for (testid, bytes) in [
        ("weights", e.weights),
        ("gradients", e.gradients),
        ("optimizer-states", e.optimizer_states),
        ("activations", e.activations),
        ("activations-per-sample", e.activations_per_sample),
        ("total", e.total),
        ("peak-reserved", e.peak_reserved),
        ("overhead", e.overhead),
        ("nvidia-smi", e.nvidia_smi),
        ("required", e.required),
    ] {
        assert_eq!(browser.bytes(testid).await, bytes, "{testid} for {q}");
    }
    let phase = browser
        .testid("peak-phase")
        .await
        .attr("data-value")
        .await
        .expect("attr");
    assert_eq!(
        phase.as_deref(),
        Some(e.peak_phase.name()),
        "peak phase for {q}"
    );
    if let Some(max) = e.max_batch {
        let shown = browser
            .testid("max-batch")
            .await
            .attr("data-value")
            .await
            .expect("attr");
        assert_eq!(shown, Some(max.to_string()), "max-batch for {q}");
    }
    // The sweep is built in the task after the first estimate's.
    browser.testid("sweep").await;
    let rows = browser
        .js("return [...document.querySelectorAll('[data-testid=sweep] tbody tr')].map(r => [r.dataset.batch, r.querySelectorAll('td')[2].dataset.bytes, r.dataset.over])")
        .await;
    let device = e.device_bytes;
    let want: Vec<serde_json::Value> = sweep
        .iter()
        .map(|r| {
            let over = device.is_some_and(|d| r.required > d);
            serde_json::json!([r.batch.to_string(), r.total.to_string(), over.to_string()])
        })
        .collect();
    assert_eq!(rows, serde_json::Value::Array(want), "sweep for {q}");
}

#[tokio::test(flavor = "multi_thread")]
async fn each_form_shows_the_core_numbers_for_its_worked_examples() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    for q in [
        "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10",
        "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10&ckpt=1&gpu=a100-80gb",
        "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=8&act_mb=500",
        "form=parameters&params=7000M&precision=fp16&optimizer=sgd_momentum&batch=16&act_mb=500&gpu=h100-80gb",
        "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb",
        "form=transformer&model=gpt2&batch=8&seq=1024&recipe=fp32&attn=eager&gpu=rtx-4090",
        "form=transformer&model=qwen2.5-7b&mode=inference&batch=1&seq=30720&gen=2048&recipe=bf16&gpu=a100-80gb",
        "form=transformer&model=llama-3.2-3b&framework=torchtune&batch=2&seq=4096&gpu=a100-80gb",
        "form=transformer&model=mistral-7b&framework=deepspeed&gpus=8&zero=2&batch=4&seq=4096&gpu=h100-80gb",
        "form=transformer&model=llama-2-7b&framework=fsdp2&gpus=8&batch=2&seq=4096&act_offload=1&logits=bf16&gpu=h100-80gb",
    ] {
        browser.open(&server.url(&format!("/?{q}"))).await;
        assert_page_matches_core(&browser, q).await;
        let notice = browser
            .js("return document.querySelector('[data-testid=url-notice]') === null")
            .await;
        assert_eq!(notice, true, "no notice for a valid link: {q}");
    }
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_parameters_worked_example_and_the_m_b_selector() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=1&act_mb=0";
    browser.open(&server.url(&format!("/?{q}"))).await;
    assert_eq!(browser.bytes("weights").await, 14_000_000_000);
    assert_eq!(browser.bytes("gradients").await, 28_000_000_000);
    assert_eq!(browser.bytes("optimizer-states").await, 56_000_000_000);
    // Typed with its scale, "7000M" is the same 7B, and moves the select;
    // picking another scale keeps the count (issue 12).
    for typed in ["7000M", "7B", "1.3e9", "7 B"] {
        browser.type_into("params", typed).await;
        let want = query::parse(&format!(
            "form=parameters&params={}&precision=fp16",
            typed.replace(' ', "")
        ))
        .config;
        let weights = memory::estimate(&want).weights;
        browser
            .wait_until(&format!("{typed} to read as typed"), || async {
                browser.bytes("weights").await == weights
            })
            .await;
    }
    browser.type_into("params", "7000M").await;
    assert_eq!(browser.field_value("params_scale").await, "M");
    browser.set_value("params_scale", "B").await;
    browser
        .wait_until("the count kept in B", || async {
            browser.field_value("params").await == "7"
        })
        .await;
    assert_eq!(browser.bytes("weights").await, 14_000_000_000);
    browser.url_with(&["params=7B"]).await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn switching_forms_keeps_the_shared_values() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=activations&batch=16"))
        .await;
    browser.type_into("batch", "24").await;
    browser.click("form-parameters").await;
    let batch = browser.field_value("batch").await;
    assert_eq!(batch, "24");
    browser.click("form-transformer").await;
    let batch = browser.field_value("batch").await;
    assert_eq!(batch, "24");
    browser.url_with(&["form=transformer", "batch=24"]).await;
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_preset_and_a_pasted_config_set_the_architecture() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=transformer&model=gpt2"))
        .await;
    let gpt2 = browser.data_value("parameters").await;
    let gpt2: f64 = gpt2.parse().expect("a count");
    assert!(
        (gpt2 / 124.4e6 - 1.0).abs() < 0.005,
        "GPT-2 small has 124.4M parameters, page says {gpt2}"
    );
    browser.set_value("model", "llama-3.1-8b").await;
    browser
        .wait_until("Llama 3.1 8B's 32 layers", || async {
            browser.field_value("layers").await == "32"
        })
        .await;
    let count: f64 = browser
        .data_value("parameters")
        .await
        .parse()
        .expect("a count");
    assert!(
        (count / 8.03e9 - 1.0).abs() < 0.005,
        "Llama 3.1 8B: {count}"
    );

    // A pasted config.json: first something that is not JSON, then a real one.
    browser
        .js("document.querySelectorAll('details.more').forEach(d => d.open = true)")
        .await;
    let area = browser.input("config_json").await;
    area.send_keys("{\"hidden_size\": oops")
        .await
        .expect("type");
    let error = browser.text("config-import-error").await;
    assert!(error.contains("JSON"), "{error}");
    let still = browser.field_value("layers").await;
    assert_eq!(still, "32", "the previous model is kept");
    // JSON of the wrong shape, and a config that lacks a key, are named too.
    for (pasted, named) in [
        ("[1, 2]", "object"),
        (
            r#"{"model_type":"llama","hidden_size":4096}"#,
            "num_attention_heads",
        ),
    ] {
        browser.set_value("config_json", pasted).await;
        let error = browser.text("config-import-error").await;
        assert!(error.contains(named), "{pasted}: {error}");
        let still = browser.field_value("layers").await;
        assert_eq!(still, "32", "{pasted}: the previous model is kept");
    }
    let qwen = r#"{"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,"num_attention_heads":28,"num_hidden_layers":28,"num_key_value_heads":4,"vocab_size":152064,"tie_word_embeddings":false}"#;
    browser.set_value("config_json", qwen).await;
    browser
        .wait_until("Qwen2.5-7B's 28 layers", || async {
            browser.field_value("layers").await == "28"
        })
        .await;
    let count: f64 = browser
        .data_value("parameters")
        .await
        .parse()
        .expect("a count");
    assert!((count / 7.62e9 - 1.0).abs() < 0.005, "Qwen2.5 7B: {count}");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_in_every_form_is_named_and_the_last_result_stays() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let cases = [
        ("form=parameters&params=7B&gpu_gb=80", "params"),
        ("form=parameters&params=7B", "act_mb"),
        ("form=transformer&model=llama-3.1-8b", "heads"),
        ("form=transformer&model=llama-3.1-8b", "seq"),
        ("form=transformer&model=llama-3.1-8b", "overhead_gb"),
        ("form=activations", "k"),
    ];
    for (q, field) in cases {
        browser.open(&server.url(&format!("/?{q}"))).await;
        for bad in ["", "0", "-5", "1e30", "abc", "<img src=x onerror=alert(1)>"] {
            browser.type_into(field, bad).await;
            let required = browser.bytes("required").await;
            let text = browser.text("required").await;
            assert!(
                !text.contains("NaN") && !text.contains("inf"),
                "{field}={bad:?}: {text}"
            );
            let stale = browser.stale().await;
            if stale {
                let message = browser.text(&format!("error-{field}")).await;
                assert!(!message.is_empty(), "{field}={bad:?} names the problem");
                let invalid = browser
                    .input(field)
                    .await
                    .attr("aria-invalid")
                    .await
                    .expect("attr");
                assert_eq!(invalid.as_deref(), Some("true"), "{field}={bad:?}");
            } else {
                // Some of these are valid for some fields (0 overhead): then the
                // estimate is current and computed by the core.
                assert!(required > 0, "{field}={bad:?}");
            }
            let pwned = browser.js("return window.__pwned === undefined && document.querySelectorAll('img[src=x]').length === 0").await;
            assert_eq!(pwned, true, "{field}={bad:?} is shown as text only");
        }
        browser.type_into(field, "abc").await;
        assert!(browser.stale().await);
    }
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_language_switch_translates_and_keeps_the_numbers() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(
            &server.url(
                "/?form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10",
            ),
        )
        .await;
    // The activations form headlines its rule's number; what a GPU needs
    // follows as labelled additions.
    assert_eq!(browser.text("headline").await, "Activations 85.90 GB");
    assert!(browser.text("headline-additions").await.contains("= needs"));
    browser.click("lang-es").await;
    browser
        .wait_until("the Spanish headline", || async {
            browser.text("headline").await == "Activaciones 85,90 GB"
        })
        .await;
    assert!(
        browser
            .text("headline-additions")
            .await
            .contains("= necesita")
    );
    assert_eq!(
        browser.js("return document.title").await,
        "batchfit — ¿cabe este lote?"
    );
    // Spanish writes the decimal comma (issue 28): "5,369 GB" is five point
    // three, not five thousand.
    assert_eq!(browser.text("activations-per-sample").await, "5,369 GB");
    assert_eq!(browser.text("activations").await, "85,90 GB");
    // And reads it: k = 9,5 is 9.5, the address keeps the URL's notation,
    // and back in English the field says 9.5.
    browser.type_into("k", "9,5").await;
    browser
        .wait_until("k = 9.5 in the address", || async {
            browser
                .js("return location.search")
                .await
                .as_str()
                .is_some_and(|q| q.contains("k=9.5"))
        })
        .await;
    assert!(!browser.stale().await);
    browser.click("lang-en").await;
    browser
        .wait_until("the English field", || async {
            browser.field_value("k").await == "9.5"
        })
        .await;
    browser.click("lang-es").await;
    browser
        .wait_until("the Spanish field", || async {
            browser.field_value("k").await == "9,5"
        })
        .await;
    assert_eq!(
        browser.js("return document.documentElement.lang").await,
        "es"
    );
    let url = browser.url_with(&["lang=es"]).await;
    // A link with lang=es opens in Spanish.
    browser.open(url.as_str()).await;
    assert!(browser.text("headline").await.starts_with("Activaciones"));
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn picking_a_framework_loads_its_defaults_and_the_three_readings_follow() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=transformer&model=llama-3.2-3b&batch=2&seq=4096&gpu=a100-80gb"))
        .await;
    browser.set_value("framework", "torchtune").await;
    let expected_query =
        "form=transformer&model=llama-3.2-3b&framework=torchtune&batch=2&seq=4096&gpu=a100-80gb";
    let config = query::parse(expected_query).config;
    let e = memory::estimate(&config);
    browser
        .wait_until("torchtune's defaults", || async {
            browser.bytes("required").await == e.required
        })
        .await;
    for (name, value) in [
        ("recipe", "bf16"),
        ("step", "in_backward"),
        ("loss", "chunked"),
    ] {
        let shown = browser.input(name).await.prop("value").await.expect("read");
        assert_eq!(shown.as_deref(), Some(value), "{name}");
    }
    assert_page_matches_core(&browser, expected_query).await;
    assert!(
        e.peak_allocated <= e.peak_reserved
            && e.peak_reserved <= e.nvidia_smi
            && e.nvidia_smi <= e.required
    );
    browser.url_with(&["framework=torchtune"]).await;
    browser.close().await;
}

/// The "what would make it fit" rows of the page, as (change, required bytes).
async fn what_ifs_shown(browser: &Browser) -> Vec<(String, String)> {
    let rows = browser
        .js(
            "return Array.from(document.querySelectorAll('[data-testid=what-ifs] li'))\
             .map(li => [li.dataset.change, li.querySelector('.value').dataset.bytes])",
        )
        .await;
    rows.as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    let field = |i: usize| r[i].as_str().unwrap_or_default().to_owned();
                    (field(0), field(1))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The core's alternatives for `q`, as the page writes them.
fn what_ifs_expected(q: &str) -> Vec<(String, String)> {
    memory::what_ifs(&query::parse(q).config)
        .into_iter()
        .map(|w| (w.change.name().to_owned(), w.required.to_string()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn what_ifs_are_the_cores_and_follow_edits() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&batch=8";
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.bytes("required").await;
    let expected = what_ifs_expected(q);
    assert!(
        expected.len() >= 3,
        "a case with several alternatives: {expected:?}"
    );
    // Below the first screen: built once a reader scrolls to it, and kept
    // current from then on.
    browser
        .js("document.querySelector('[data-testid=what-ifs]').scrollIntoView()")
        .await;
    browser
        .wait_until("the alternatives for batch 8", || async {
            what_ifs_shown(&browser).await == expected
        })
        .await;
    browser.type_into("batch", "3").await;
    let expected = what_ifs_expected(&q.replace("batch=8", "batch=3"));
    browser
        .wait_until("the alternatives for batch 3", || async {
            what_ifs_shown(&browser).await == expected
        })
        .await;
    browser.close().await;
}

/// On a phone, the answer stays in view while editing: after a field at the
/// top of the form and one at the bottom, the headline or the compact summary
/// is inside the 375 × 812 viewport.
#[tokio::test(flavor = "multi_thread")]
async fn on_a_phone_the_answer_stays_in_view_while_editing() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(375, 812).await;
    browser
        .open(&server.url("/?form=transformer&model=llama-3.1-8b&batch=2&seq=2048&gpu=h100-80gb"))
        .await;
    let in_view = "const h = innerHeight; return ['headline', 'mini-summary'].some(id => { \
                   const e = document.querySelector(`[data-testid=${id}]`); if (!e) return false; \
                   const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= h; })";
    for field in ["layers", "global_batch"] {
        let input = browser.input(field).await;
        browser
            .client
            .execute(
                "arguments[0].scrollIntoView({block: 'center'})",
                vec![serde_json::to_value(&input).expect("element")],
            )
            .await
            .expect("scroll");
        browser.type_into(field, "4").await;
        assert_eq!(browser.js(in_view).await, true, "after editing {field}");
        let summary = browser.text("mini-summary").await;
        assert!(summary.contains("Needs"), "{summary}");
    }
    browser.close().await;
}

/// A load asks for nothing that is missing (no favicon 404), logs no error,
/// violates no policy, and the loading shell gives way to the app.
#[tokio::test(flavor = "multi_thread")]
async fn a_load_has_no_missing_file_and_no_console_error() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=transformer&model=llama-3.1-8b&gpu=h100-80gb"))
        .await;
    browser.testid("required").await;
    let icon = browser
        .js("return document.querySelector('link[rel=icon]').href.startsWith('data:image/svg+xml')")
        .await;
    assert_eq!(
        icon, true,
        "the favicon is inline: /favicon.ico is never asked for"
    );
    let failed = browser
        .js("return performance.getEntriesByType('resource').filter(r => r.responseStatus >= 400).map(r => r.name)")
        .await;
    assert_eq!(failed, serde_json::json!([]), "a request failed");
    let probe = browser.js("return window.__probe").await;
    assert_eq!(
        probe["errors"],
        serde_json::json!([]),
        "console errors on load"
    );
    assert_eq!(
        probe["csp"],
        serde_json::json!([]),
        "policy violations on load"
    );
    let boot = browser
        .js("return document.getElementById('boot') === null")
        .await;
    assert_eq!(boot, true, "the loading shell gave way to the app");
    browser.close().await;
}

/// The bare address asks what people ask (issue 28): on a desktop and on a
/// phone the device and model pickers are in the first screen, at most 12
/// controls are shown (a closed group counts as one), and the address becomes
/// the first screen's query, so that a link to it keeps its meaning.
#[tokio::test(flavor = "multi_thread")]
async fn the_first_screen_asks_what_people_ask() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    for (width, height) in [(1280, 900), (375, 812)] {
        let browser = Browser::start(width, height).await;
        browser.open(&server.url("/")).await;
        browser.testid("required").await;
        let seen = browser
            .js("const inView = n => { const r = document.querySelector(`.inputs [name=${n}]`).getBoundingClientRect(); \
                   return r.height > 0 && r.bottom <= innerHeight; }; \
                 let shown = 0; \
                 for (const c of document.querySelectorAll('.inputs input, .inputs select, .inputs textarea, .inputs details')) { \
                   if (c.checkVisibility()) shown++; } \
                 return [inView('gpu'), inView('model'), shown]")
            .await;
        assert_eq!(
            [&seen[0], &seen[1]],
            [&serde_json::json!(true), &serde_json::json!(true)],
            "{width} px: {seen}"
        );
        // The fields outside closed groups, and each closed group as one.
        let shown = seen[2].as_u64().expect("a count");
        assert!((4..=12).contains(&shown), "{width} px: {shown} controls");
        let url = browser.url_with(&["form=transformer"]).await;
        assert_eq!(url.query(), Some(query::FIRST_SCREEN));
        browser.close().await;
    }
}

/// A closed group says its values under its title; opened, its fields say
/// them and the line goes, for every group of the transformer form (the
/// multi-GPU group's line ran into its title while open).
#[tokio::test(flavor = "multi_thread")]
async fn an_open_group_hides_its_values_line() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=transformer&model=llama-3.1-8b&gpus=2&tp=2&gpu=h100-80gb";
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.testid("required").await;
    // Each group's [open, the line's display].
    let shown = || async {
        browser
            .js("return [...document.querySelectorAll('details.more')] \
                 .filter(d => d.querySelector(':scope > summary [data-testid=group-values]')) \
                 .map(d => [d.open, getComputedStyle(d.querySelector(':scope > summary [data-testid=group-values]')).display])")
            .await
    };
    let check = |groups: serde_json::Value| {
        let groups = groups.as_array().expect("a list").clone();
        assert!(groups.len() >= 4, "{groups:?}");
        for group in &groups {
            let want = if group[0] == true { "none" } else { "block" };
            assert_eq!(group[1], want, "{groups:?}");
        }
        groups
    };
    let before = check(shown().await);
    assert!(before.iter().any(|g| g[0] == false), "{before:?}");
    browser
        .js("document.querySelectorAll('details.more').forEach(d => d.open = !d.open)")
        .await;
    check(shown().await);
    browser.close().await;
}

/// On a phone a field's number gives way to its unit: every visible
/// input and unit stays inside its field, on the Spanish page whose units
/// are the longest ("muestras"), in the shell a reader sees and in the app.
#[tokio::test(flavor = "multi_thread")]
async fn a_fields_unit_stays_inside_it_on_a_phone() {
    // A unit squeezed below its text's width keeps its box inside the
    // field and lets the text run out: the text's own extent is measured.
    const OUTSIDE: &str = "return [...document.querySelectorAll('.input-row')] \
        .filter(r => r.checkVisibility()) \
        .flatMap(r => [...r.children].filter(c => { \
            if (!c.checkVisibility()) return false; \
            const text = document.createRange(); text.selectNodeContents(c); \
            const right = Math.max(c.getBoundingClientRect().right, text.getBoundingClientRect().right); \
            return right > r.closest('.field').getBoundingClientRect().right + 0.5; }) \
          .map(c => r.closest('.field').querySelector('label').textContent + ': ' + c.textContent))";
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(375, 812).await;
    for q in [
        "form=transformer&model=llama-3.1-8b&mode=inference&lang=es",
        "form=parameters&params=7B&lang=es",
        "form=activations&lang=es",
    ] {
        browser.open_to_read(&server.url(&format!("/?{q}"))).await;
        browser.first_answer().await;
        assert_eq!(
            browser.js(OUTSIDE).await,
            json!([]),
            "{q}: the reader's shell"
        );
        browser.act().await;
        browser.testid("required").await;
        assert_eq!(browser.js(OUTSIDE).await, json!([]), "{q}: the app");
    }
    browser.close().await;
}
