//! The pre-rendered form shell (issue 17): the served index.html already holds
//! every form's inputs, the page shows the one the address names with its
//! values before any WebAssembly runs, and the app replaces it without
//! duplicating a field, keeping the address's values and what was typed.

use batchfit_core::query::{self, Form, Param};
use batchfit_e2e::{Browser, StaticServer, dist_dir};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;

/// A non-default form, a non-default language, numbers, a switch and a select.
const OPENED: &[(&str, &str)] = &[
    ("form", "transformer"),
    ("lang", "es"),
    ("model", "qwen2.5-7b"),
    ("batch", "3"),
    ("seq", "1536"),
    ("gpu", "a100-80gb"),
];

fn opened_query() -> String {
    OPENED
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// `GET path` from the test server, as the raw text a browser receives.
fn served_text(server: &StaticServer, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let (head, body) = response.split_once("\r\n\r\n").expect("a response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_owned()
}

/// Every form's fields, by URL parameter name, appear in the served page
/// (each form once per language), before any script has run.
#[tokio::test(flavor = "multi_thread")]
async fn the_served_page_holds_every_forms_inputs() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let html = served_text(&server, "/");
    let shells: Vec<&str> = html.split("<div class=\"shell\" ").skip(1).collect();
    assert_eq!(
        shells.len(),
        Form::ALL.len() * 2,
        "one shell per form and language"
    );
    let forms: [(Form, &[Param]); 3] = [
        (Form::Activations, query::ACTIVATIONS_PARAMETERS),
        (Form::Parameters, query::PARAMETERS_PARAMETERS),
        (
            Form::Transformer,
            // The first screen's questions; the rest is in closed groups,
            // whose fields the app brings (prerender.js).
            &[Param::Model, Param::Gpus, Param::Batch, Param::Seq],
        ),
    ];
    for lang in ["en", "es"] {
        for (form, params) in forms {
            let opening = format!("data-form=\"{}\" lang=\"{lang}\" hidden>", form.name());
            let shell = shells
                .iter()
                .find(|s| s.starts_with(&opening))
                .unwrap_or_else(|| panic!("no shell for {} in {lang}", form.name()));
            // The device comes first in every form; its limits and margin
            // are a closed group.
            for param in params.iter().chain(&[Param::Gpu]) {
                assert!(
                    shell.contains(&format!("name=\"{}\"", param.name())),
                    "the {} shell in {lang} has no field {}",
                    form.name(),
                    param.name()
                );
            }
            assert_eq!(
                shell.matches("class=\"tab\"").count(),
                Form::ALL.len(),
                "the {} shell in {lang} has the form switch",
                form.name()
            );
            assert!(shell.contains("<h1>batchfit</h1>"), "the product name");
            assert!(
                !shell.contains("data-testid"),
                "tests never find the shell's elements"
            );
            assert!(
                !shell.contains("<!---->"),
                "the app's section markers mean nothing in the shell"
            );
            // Hidden, only a field of the form's first screen that another
            // setup shows (the generated tokens, a typed capacity): the
            // module's first part shows it where the app does. Never a group.
            let filled = query::shown_values(&query::Config::default()).map(|(p, _)| p.name());
            for (at, _) in shell.match_indices(" hidden=\"\"") {
                let tag = &shell[shell[..at].rfind('<').expect("a tag")..at];
                let name = shell[at..]
                    .split(" name=\"")
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or_default();
                assert!(
                    tag == "<div class=\"field\"" && filled.contains(&name),
                    "the {} shell in {lang} carries {tag} ({name}), which its setup hides",
                    form.name()
                );
            }
        }
    }
}

/// The opened address in a browser of `width` × `height` whose WebAssembly
/// module has not arrived: the page as it is before the app arrives.
async fn without_the_module(width: u32, height: u32) -> (StaticServer, Browser) {
    without_the_module_at(width, height, &opened_query()).await
}

/// The page at `query`, its WebAssembly on its way for ever.
async fn without_the_module_at(width: u32, height: u32, query: &str) -> (StaticServer, Browser) {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(width, height).await;
    hold_the_module(&browser).await;
    browser.open(&server.url(&format!("/?{query}"))).await;
    (server, browser)
}

/// Holds every WebAssembly request that `browser` makes from now on: paused
/// before it is sent, never continued, as on a network that has not
/// delivered it yet (a blocked request fails, which the page reports,
/// `a_module_that_cannot_be_fetched_says_so`).
async fn hold_the_module(browser: &Browser) {
    browser
        .cdp(
            "Fetch.enable",
            json!({ "patterns": [{ "urlPattern": "*.wasm" }] }),
        )
        .await;
}

/// Before the WebAssembly module arrives, the page shows the shell of the
/// address's form and language, with the address's values, and no other.
#[tokio::test(flavor = "multi_thread")]
async fn the_address_form_and_values_show_before_the_app() {
    let (_server, browser) = without_the_module(1280, 900).await;
    let shown = browser
        .js("const shells = [...document.querySelectorAll('.shell')]; \
             return shells.map(s => [s.dataset.form, s.lang, s.hidden, \
               s.querySelector('[name=batch]').checkVisibility()])")
        .await;
    assert_eq!(shown, json!([["transformer", "es", false, true]]));
    let values = field_values(&browser).await;
    // The first screen's task is not this address's: not shown until known;
    // nor its answer: the loading line stands in its place.
    assert_eq!(values["method"], vec![String::new()]);
    let answer = browser
        .js(
            "return [document.querySelectorAll('.shell-answer').length, \
               document.querySelectorAll('.shell :is(.boot-loading, .boot-failed)').length]",
        )
        .await;
    assert_eq!(answer, json!([0, 2]));
    for (name, value) in OPENED
        .iter()
        .filter(|(n, _)| !matches!(*n, "form" | "lang"))
    {
        assert_eq!(
            values[*name],
            vec![(*value).to_owned()],
            "{name} in the shell"
        );
    }
    let app = browser
        .js("return document.querySelector('[data-testid=results]') === null")
        .await;
    assert_eq!(
        app, true,
        "the app did not run: the shell is HTML and CSS only"
    );
    browser.close().await;
}

/// The bare address shows the first screen's shell before the app: the
/// transformer form with the first screen's model, device, task and batch,
/// named as the app names them.
#[tokio::test(flavor = "multi_thread")]
async fn the_bare_address_shows_the_first_screen_before_the_app() {
    let (server, browser) = without_the_module_at(1280, 900, "lang=en").await;
    let shown = browser
        .js("return [...document.querySelectorAll('.shell')].map(s => [s.dataset.form, s.hidden])")
        .await;
    assert_eq!(shown, json!([["transformer", false]]));
    let values = field_values(&browser).await;
    let first = query::parse(query::FIRST_SCREEN).config;
    let t = &first.transformer;
    for (name, value) in [
        ("model", first.model.map_or("", |m| m.id).to_owned()),
        (
            "gpu",
            query::values(&first)
                .into_iter()
                .find(|(p, _)| *p == Param::Gpu)
                .map(|(_, v)| v)
                .unwrap_or_default(),
        ),
        (
            "method",
            batchfit_core::transformer::Method::of(t).name().to_owned(),
        ),
        ("batch", t.batch.to_string()),
        ("seq", t.seq.to_string()),
    ] {
        assert_eq!(values[name], vec![value], "{name}");
    }
    // Named, not a raw id, and in view at 1280 × 900.
    let model = browser
        .js("const s = document.querySelector('.shell [name=model]'); \
             return [s.options[s.selectedIndex].text, s.getBoundingClientRect().bottom <= innerHeight]")
        .await;
    assert_eq!(model, json!(["Llama 3.1 8B (8.03B)", true]));
    // Its answer is there before the module, built with the site, and no
    // loading line; it is the app's answer, word for word.
    let answer = "const s = document.querySelector('.shell:not([hidden])'); \
                  return [s.querySelector('.headline').textContent, \
                    s.querySelector('.badge').textContent, \
                    s.querySelector('.mini-summary').textContent, \
                    s.querySelectorAll('.boot-loading').length]";
    let shown = browser.js(answer).await;
    browser.close().await;
    assert_eq!(shown[3], json!(0), "{shown}");
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url("/?lang=en")).await;
    browser.testid("required").await;
    let app = app_answer(&browser).await;
    assert_eq!(
        [&shown[0], &shown[1], &shown[2]],
        [&app[0], &app[1], &app[2]],
        "the built answer is the app's"
    );
    browser.close().await;
    // On a phone, before the module, the bar at the top holds the answer
    // from the first frame, in view.
    let (_phone_server, phone) = without_the_module_at(375, 812, "lang=en").await;
    let bar = phone
        .js(
            "const b = document.querySelector('.shell:not([hidden]) .mini-summary'); \
             const r = b.getBoundingClientRect(); \
             return [b.textContent, b.checkVisibility(), r.top >= 0 && r.bottom <= innerHeight]",
        )
        .await;
    phone.close().await;
    assert_eq!(bar, json!([shown[2], true, true]), "the phone's bar");
}

/// On a phone, before the app arrives, the bar that stays at the top says
/// the calculator is loading, in the page's language, rather than being empty
/// while the loading line sits below the whole form.
#[tokio::test(flavor = "multi_thread")]
async fn the_phone_s_top_bar_says_it_is_loading() {
    let (_server, browser) = without_the_module(375, 800).await;
    // In the first screen, and at the very top once the form is scrolled.
    for (scroll, at_top) in [(0, false), (3_000, true)] {
        let bar = browser
            .js(&format!(
                "window.scrollTo(0, {scroll}); \
                 const bar = document.querySelector('.shell:not([hidden]) .mini-summary'); \
                 const box = bar.getBoundingClientRect(); \
                 return [bar.checkVisibility(), bar.textContent, \
                   box.height > 0 && box.bottom <= innerHeight, box.top === 0]"
            ))
            .await;
        assert_eq!(
            [&bar[0], &bar[1], &bar[2]],
            [
                &json!(true),
                &json!("Cargando la calculadora…"),
                &json!(true)
            ],
            "scrolled {scroll}"
        );
        if at_top {
            assert_eq!(bar[3], json!(true), "scrolled {scroll}: {bar}");
        }
    }
    browser.close().await;
}

/// Installed before navigation: at the first mutation that shows an answer
/// in the shell, what it reads (headline, badge, the phone's bar, the
/// breakdown bar's words and segments) and whether any of the app was in
/// the DOM then.
const ANSWER_WATCH: &str = "
  window.__firstAnswer = null;
  new MutationObserver(() => {
    if (window.__firstAnswer) return;
    const shell = document.querySelector('.shell:not([hidden])');
    const headline = shell && shell.querySelector('.shell-answer.summary .headline');
    if (!headline) return;
    const badge = shell.querySelector('.shell-answer .badge');
    const bar = shell.querySelector('.shell-answer .bar-track');
    window.__firstAnswer = [headline.textContent, badge ? badge.textContent : null,
      shell.querySelector('.mini-summary').textContent,
      document.querySelectorAll('[data-testid]').length,
      performance.getEntriesByName('batchfit:interface').length,
      bar && [bar.getAttribute('aria-label'),
        [...bar.querySelectorAll('.bar-segments > span')].map(s => s.dataset.bytes)],
      (shell.querySelector('.shell-answer .confidence') || {}).textContent];
  }).observe(document, { subtree: true, childList: true });
";

/// Issue 31: the address's answer (headline, verdict, the phone's bar, the
/// breakdown bar) is written into the shell before the app exists (no
/// element of the app in the DOM, the interface not marked), and once the
/// app has replaced the shell it reads the same words, once, with the
/// core's bytes: the bar's segments are the core's terms.
#[tokio::test(flavor = "multi_thread")]
async fn the_answer_stands_before_the_interface() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    for (width, query, badge) in [
        (
            1280,
            "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&lang=en".to_owned(),
            "✗ Does not fit",
        ),
        (
            375,
            "form=transformer&lang=es&model=qwen2.5-7b&batch=2&seq=1024&gpu=h200".to_owned(),
            "✓ Cabe",
        ),
    ] {
        let browser = Browser::start(width, 900).await;
        browser
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": ANSWER_WATCH }),
            )
            .await;
        browser.open(&server.url(&format!("/?{query}"))).await;
        browser.testid("required").await;
        let first = browser.js("return window.__firstAnswer").await;
        assert_eq!(
            first[3],
            json!(0),
            "{query}: no element of the app yet: {first}"
        );
        assert_eq!(
            first[4],
            json!(0),
            "{query}: the interface not built yet: {first}"
        );
        assert!(
            first[1].as_str().is_some_and(|b| b.starts_with(badge)),
            "{query}: {first}"
        );
        let app = app_answer(&browser).await;
        assert_eq!(
            [&first[0], &first[1], &first[2]],
            [&app[0], &app[1], &app[2]],
            "{query}: the first answer is the app's, word for word"
        );
        let answers = browser
            .js("return document.querySelectorAll('.summary, .headline, .badge, .mini-summary, .bar-track, .shell-answer').length")
            .await;
        assert_eq!(answers, json!(5), "{query}: one of each, no shell's left");
        let expected = batchfit_core::memory::estimate(&query::parse(&query).config);
        assert_eq!(browser.bytes("required").await, expected.required);
        let segments = bar_segments(&expected);
        assert_eq!(
            first[5][1],
            json!(segments),
            "{query}: the first bar's segments"
        );
        let bar = browser
            .js(
                "const bar = document.querySelector('[data-testid=breakdown-chart]'); \
                 return [bar.getAttribute('aria-label'), \
                   [...bar.querySelectorAll('.bar-segments > span')].map(s => s.dataset.bytes)]",
            )
            .await;
        assert_eq!(first[5], bar, "{query}: the first bar is the app's");
        let sure = browser
            .js("return document.querySelector('[data-testid=confidence]').textContent")
            .await;
        assert!(
            sure.as_str().is_some_and(|s| !s.is_empty()),
            "{query}: {sure}"
        );
        assert_eq!(first[6], sure, "{query}: how sure, as the app says it");
        browser.close().await;
    }
}

/// What the shell's answer reads: the headline, the badge, the breakdown
/// bar's words and segments, and how many elements of the app (those with
/// a test id) and interface marks the page has.
const SHELL_ANSWER: &str = "const s = document.querySelector('.shell:not([hidden])'); \
  const bar = s && s.querySelector('.shell-answer .bar-track'); \
  return s && [s.querySelector('.shell-answer.summary .headline')?.textContent ?? null, \
    s.querySelector('.shell-answer .badge')?.textContent ?? null, \
    bar && bar.getAttribute('aria-label'), \
    bar && [...bar.querySelectorAll('.bar-segments > span')].map(e => e.dataset.bytes), \
    document.querySelectorAll('[data-testid]').length, \
    performance.getEntriesByName('batchfit:interface').length, \
    [...s.querySelectorAll('.shell-answer .bar-legend li')].map(li => li.textContent)]";

/// Each named field under `ROOT` (a selector), by name: its value (a
/// switch as `1`/`0`) and, for a select, its chosen option's words.
/// An address naming only parameters no shell has, and no `form`
/// (`lora_rank=8`): boot.js shows the first screen's shell, by the fields
/// the address names, though the address opens the rule of thumb. Neither
/// the first screen's built answer nor the rule of thumb's stands in that
/// shell: the interface comes without an action, on the rule of thumb's
/// form, with the core's answer.
#[tokio::test(flavor = "multi_thread")]
async fn no_answer_stands_in_another_forms_shell() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    for q in ["lora_rank=8", "mode=inference&lang=es"] {
        let config = query::parse(q).config;
        assert_eq!(config.form, Form::Activations, "{q}");
        browser.open_to_read(&server.url(&format!("/?{q}"))).await;
        browser.testid("required").await;
        assert_eq!(
            browser.bytes("required").await,
            batchfit_core::memory::estimate(&config).required,
            "{q}"
        );
        assert_eq!(
            browser
                .js(
                    "return [document.documentElement.hasAttribute('data-acted'), \
                     document.querySelectorAll('.shell').length, \
                     document.querySelector('.tab[aria-pressed=true] .tab-title').textContent]"
                )
                .await,
            json!([
                false,
                0,
                if q.contains("lang=es") {
                    "Activaciones"
                } else {
                    "Activations"
                }
            ]),
            "{q}: built without an action, on the rule of thumb's form"
        );
    }
    browser.close().await;
}

/// Each closed group's title and line of values under ROOT.
const GROUP_LINES: &str = "return [...document.querySelector('ROOT') \
  .querySelectorAll('details.advanced > summary')].map(s => \
    [s.children[0].textContent, s.querySelector('.values')?.textContent ?? ''])";

/// The fields under ROOT shown outside the groups (a shell has none in
/// them), by name: a select's value and the words of its option.
const FIELDS_SHOWN: &str = "return Object.fromEntries([...document.querySelector('ROOT') \
  .querySelectorAll('input[name], select[name]')].filter(f => f.checkVisibility() && !f.closest('details')).map(f => [f.name, \
    f.type === 'checkbox' ? (f.checked ? '1' : '0') \
    : f.tagName === 'SELECT' ? [f.value, f.selectedOptions[0]?.textContent ?? ''] : f.value]))";

/// Issue 31: the interface is fetched at the visitor's first action. A
/// visitor who only reads gets the address's answer (headline, verdict,
/// bar: the core's bytes) from the module's first part and nothing more;
/// at the first action the interface is asked for, and while it is on its
/// way (the server holds it 1.5 s) the answer stands; once mounted, the
/// app says the same, once, with the core's numbers.
#[tokio::test(flavor = "multi_thread")]
async fn the_interface_comes_at_the_first_action() {
    let server = StaticServer::start_delaying(
        dist_dir(),
        &["/"],
        "split_interface",
        std::time::Duration::from_millis(1_500),
    );
    let q = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&lang=en";
    let expected = batchfit_core::memory::estimate(&query::parse(q).config);
    let segments = bar_segments(&expected);
    for (width, height) in [(1280, 900), (375, 812)] {
        let browser = Browser::start(width, height).await;
        browser.open_to_read(&server.url(&format!("/?{q}"))).await;
        browser.first_answer().await;
        // What a reader's load has fetched a second later: the first part.
        tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
        let read = browser.js(SHELL_ANSWER).await;
        assert!(
            read[0].as_str().is_some_and(|h| !h.is_empty()),
            "{width}: a headline: {read}"
        );
        assert!(
            read[1]
                .as_str()
                .is_some_and(|b| b.starts_with("✗ Does not fit")),
            "{width}: {read}"
        );
        assert_eq!(read[3], json!(segments), "{width}: the bar's segments");
        assert_eq!(
            [&read[4], &read[5]],
            [&json!(0), &json!(0)],
            "{width}: no app"
        );
        assert_eq!(
            browser.fetched_modules().await,
            ["batchfit-web"],
            "{width}: a reader fetches the first part alone"
        );
        let fields = browser
            .js(&FIELDS_SHOWN.replace("ROOT", ".shell:not([hidden])"))
            .await;

        browser.act().await;
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert_eq!(
            browser.js(SHELL_ANSWER).await,
            read,
            "{width}: the answer stands while the interface is on its way"
        );

        browser.testid("required").await;
        assert_eq!(browser.bytes("required").await, expected.required);
        let app = browser
            .js(
                "const bar = document.querySelector('[data-testid=breakdown-chart]'); \
                 return [document.querySelector('[data-testid=headline]').textContent, \
                   document.querySelector('[data-testid=summary] .badge').textContent, \
                   bar.getAttribute('aria-label'), \
                   [...bar.querySelectorAll('.bar-segments > span')].map(s => s.dataset.bytes)]",
            )
            .await;
        assert_eq!(
            app,
            json!([read[0], read[1], read[2], read[3]]),
            "{width}: the app's answer is the shell's"
        );
        let legend = browser
            .js("return [...document.querySelectorAll('[data-testid=bar-legend] li')].map(li => li.textContent)")
            .await;
        assert_eq!(
            legend, read[6],
            "{width}: the first bar's legend, item for item, is the app's"
        );
        assert_eq!(
            read[6].as_array().map(Vec::len),
            Some(segments.len()),
            "{width}: one legend item per segment"
        );
        let answers = browser
            .js("return [document.querySelectorAll('.summary, .headline, .badge, .mini-summary, .bar-track').length, \
                 document.querySelectorAll('.shell, .shell-answer').length]")
            .await;
        assert_eq!(
            answers,
            json!([5, 0]),
            "{width}: one of each, no shell's left"
        );
        // Every field the reader saw says what the app's says: the setup
        // the answer is for, not the pre-rendered first screen's.
        let app_fields = browser.js(&FIELDS_SHOWN.replace("ROOT", "body")).await;
        let shown = fields.as_object().expect("the shell's fields");
        // The first screen's questions: the device, the model, the task, the
        // GPUs, the batch, the sequence, the units.
        assert_eq!(shown.len(), 7, "{width}: {fields}");
        for (name, seen) in shown {
            assert_eq!(
                Some(seen),
                app_fields.get(name),
                "{width}: the reader's {name} is the app's"
            );
        }
        let fetched = browser.fetched_modules().await;
        assert!(
            fetched.iter().any(|n| n == "split_interface"),
            "{width}: {fetched:?}"
        );
        assert_eq!(
            browser.js("return window.__probe.errors").await,
            json!([]),
            "{width}: console errors"
        );
        browser.close().await;
    }
}

/// The breakdown bar's segments for `estimate`, as the page's carry them
/// (`data-bytes`): the core's terms that are not zero, in its order.
pub(crate) fn bar_segments(estimate: &batchfit_core::memory::Estimate) -> Vec<String> {
    estimate
        .bar()
        .into_iter()
        .filter(|&(_, bytes)| bytes > 0)
        .map(|(_, bytes)| bytes.to_string())
        .collect()
}

/// Once the app has mounted: no shell is left, each field is there once, and
/// it holds the address's value.
#[tokio::test(flavor = "multi_thread")]
async fn the_app_replaces_the_shell_without_duplicates() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url(&format!("/?{}", opened_query())))
        .await;
    browser.testid("required").await;
    let shells = browser
        .js("return document.querySelectorAll('.shell, #boot').length")
        .await;
    assert_eq!(shells, 0);
    let values = field_values(&browser).await;
    for (name, found) in &values {
        assert_eq!(found.len(), 1, "{name} appears {} times", found.len());
    }
    for (name, value) in OPENED
        .iter()
        .filter(|(n, _)| !matches!(*n, "form" | "lang"))
    {
        assert_eq!(
            values[*name],
            vec![(*value).to_owned()],
            "{name} in the app"
        );
    }
    // The task the address implies (a full fine-tune), which the shell left
    // blank, not known before the app.
    assert_eq!(
        values["method"],
        vec!["full".to_owned()],
        "method in the app"
    );
    let pressed = browser
        .js("return document.querySelector('[data-testid=form-transformer]').getAttribute('aria-pressed')")
        .await;
    assert_eq!(pressed, "true");
    assert_eq!(
        browser.js("return document.documentElement.lang").await,
        "es"
    );
    browser.close().await;
}

/// What a visitor types into the shell before the module has arrived is what
/// the app shows and computes with, and the field keeps the focus.
#[tokio::test(flavor = "multi_thread")]
async fn what_is_typed_before_the_app_arrives_is_kept() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    // 40 KB/s: the module takes seconds to arrive, time enough to type.
    browser.cdp("Network.enable", json!({})).await;
    browser
        .cdp(
            "Network.emulateNetworkConditions",
            json!({ "offline": false, "latency": 20, "downloadThroughput": 40_000, "uploadThroughput": 40_000 }),
        )
        .await;
    // Navigate from script: `goto` would wait for the load event, which waits
    // for the preloaded module.
    browser.open("about:blank").await;
    browser
        .js(&format!(
            "location.href = '{}'; return true",
            server.url("/?form=activations&lang=en")
        ))
        .await;
    browser
        .wait_until("the shell's batch field", || async {
            browser
                .js("const f = document.querySelector('.shell [name=batch]'); return !!f && f.checkVisibility()")
                .await
                == true
        })
        .await;
    let before = browser
        .js("return performance.getEntriesByName('batchfit:interface').length")
        .await;
    assert_eq!(before, 0, "typed before the app mounted");
    browser
        .client
        .execute(
            "const f = document.querySelector('.shell [name=batch]'); f.focus(); f.select();",
            vec![],
        )
        .await
        .expect("focus the shell's field");
    browser
        .client
        .active_element()
        .await
        .expect("the focused field")
        .send_keys("24")
        .await
        .expect("type");
    browser.testid("required").await;
    assert_eq!(browser.field_value("batch").await, "24");
    assert_eq!(
        browser.js("return document.activeElement.name").await,
        "batch",
        "the focus moved to the app's field"
    );
    browser.url_with(&["batch=24"]).await;
    browser.close().await;
}

/// The app's answer as it reads: its headline, its badge and the phone's bar.
async fn app_answer(browser: &Browser) -> serde_json::Value {
    browser
        .js(
            "return [document.querySelector('[data-testid=headline]').textContent, \
               document.querySelector('[data-testid=summary] .badge').textContent, \
               document.querySelector('[data-testid=mini-summary]').textContent]",
        )
        .await
}

/// Every named field's value (a switch as `1`/`0`), by name, in page order.
async fn field_values(browser: &Browser) -> BTreeMap<String, Vec<String>> {
    let pairs = browser
        .js(
            "return [...document.querySelectorAll('input[name], select[name], textarea[name]')] \
             .map(f => [f.name, f.type === 'checkbox' ? (f.checked ? '1' : '0') : f.value])",
        )
        .await;
    let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for pair in pairs.as_array().expect("an array") {
        let (name, value) = (
            pair[0].as_str().unwrap_or(""),
            pair[1].as_str().unwrap_or(""),
        );
        values
            .entry(name.to_owned())
            .or_default()
            .push(value.to_owned());
    }
    values
}

/// A module that cannot be fetched (the WebAssembly, or the glue that
/// loads it) says so in the page's language where the loading lines stood,
/// at once and not after a timeout; the first screen's answer, built with
/// the site, stays standing beside it.
#[tokio::test(flavor = "multi_thread")]
async fn a_module_that_cannot_be_fetched_says_so() {
    let cases = [
        (
            opened_query(),
            "*.wasm",
            "La calculadora no se cargó: compruebe la conexión y vuelva a cargar la página.",
            "La calculadora no se cargó",
        ),
        (
            "lang=en".to_owned(),
            "*/batchfit-web-*.js",
            "The calculator did not load: check the connection, then reload the page.",
            "",
        ),
    ];
    for (query, blocked, said, bar) in cases {
        let server = StaticServer::start(dist_dir(), &["/"]);
        let browser = Browser::start(1280, 900).await;
        browser.cdp("Network.enable", json!({})).await;
        browser
            .cdp("Network.setBlockedURLs", json!({ "urls": [blocked] }))
            .await;
        browser.open(&server.url(&format!("/?{query}"))).await;
        let alert = browser.testid("module-failed").await;
        assert_eq!(
            alert.text().await.expect("read the alert"),
            said,
            "{blocked}"
        );
        let shown = browser
            .js("const s = document.querySelector('.shell:not([hidden])'); \
                 return [s.querySelector('[data-testid=module-failed]').getAttribute('role'), \
                   s.querySelectorAll('.boot-loading').length, \
                   s.querySelectorAll('.results .boot-failed').length, \
                   s.querySelector('.mini-summary .boot-failed')?.textContent ?? '', \
                   s.querySelectorAll('.shell-answer').length, \
                   document.querySelector('[data-testid=results]') === null]")
            .await;
        // Not loading any more, one alert in the results; the first screen's
        // answer (the bare address) in the bar and the results, untouched.
        let answered = if bar.is_empty() { 3 } else { 0 };
        assert_eq!(
            shown,
            json!(["alert", 0, 1, bar, answered, true]),
            "{blocked}"
        );
        browser.close().await;
    }
}

/// Every field, tab and heading on the first screen sits where the app puts
/// it: the shell is laid out in the same boxes (CSS pixels), on a desktop
/// and on a phone, so the app replaces it without a visible jump. (Below the
/// first screen the shell skips layout until scrolled to, style/main.css.)
#[tokio::test(flavor = "multi_thread")]
async fn the_app_takes_the_shells_boxes() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let url = server.url(&format!("/?{}", opened_query()));
    for (width, height) in [(1280, 900), (390, 844)] {
        let shell = {
            let browser = Browser::start(width, height).await;
            hold_the_module(&browser).await;
            browser.open(&url).await;
            let boxes = boxes(&browser).await;
            browser.close().await;
            boxes
        };
        let browser = Browser::start(width, height).await;
        browser.open(&url).await;
        browser.testid("required").await;
        let app = boxes(&browser).await;
        browser.close().await;
        assert!(shell.len() > 6, "{width} px: only {} boxes", shell.len());
        assert_eq!(
            shell.keys().collect::<Vec<_>>(),
            app.keys().collect::<Vec<_>>(),
            "{width} px: the same elements"
        );
        for (what, at) in &shell {
            let moved = at.iter().zip(&app[what]).any(|(s, a)| (s - a).abs() > 0.5);
            assert!(
                !moved,
                "{width} px: {what} is at {at:?} in the shell, {:?} in the app",
                app[what]
            );
        }
    }
}

/// Where the fields, the tabs and the section titles on the first screen are:
/// `[x, y, width, height]`, by name (or class and position).
async fn boxes(browser: &Browser) -> BTreeMap<String, Vec<f64>> {
    let found = browser
        .js(
            "const key = (e, i) => e.getAttribute('name') || `${e.className || e.tagName}#${i}`; \
             return [...document.querySelectorAll('[name], .tab, .inputs h2, .results h2, .top-bar h1')] \
             .filter(e => e.checkVisibility() && e.getBoundingClientRect().top < innerHeight) \
             .map((e, i) => { const r = e.getBoundingClientRect(); \
               return [key(e, i), [r.x, r.y, r.width, r.height]]; })",
        )
        .await;
    found
        .as_array()
        .expect("an array")
        .iter()
        .map(|pair| {
            let at = pair[1].as_array().expect("a box");
            (
                pair[0].as_str().unwrap_or_default().to_owned(),
                at.iter().filter_map(serde_json::Value::as_f64).collect(),
            )
        })
        .collect()
}

/// The module's first part fills a shell's fields with the answer's setup
/// from `query::shown_values` alone (issue 31's split): every field a
/// pre-rendered shell has is one of those, or the transformer form's task
/// (no parameter; the first part reads it from the setup) or the
/// parameter count's scale (part of the `params` field's value). A field
/// the app adds to a form's first screen must be added there, or a reader
/// would see the first screen's value beside an answer for another.
#[test]
fn every_shell_field_is_filled_by_the_first_part() {
    let page = std::fs::read_to_string(dist_dir().join("index.html")).expect("dist/index.html");
    let shells = page
        .find("<div class=\"shell\"")
        .map(|start| &page[start..])
        .expect("the page pre-renders its shells");
    let filled: Vec<&str> = query::shown_values(&query::Config::default())
        .iter()
        .map(|(param, _)| param.name())
        .collect();
    let names: std::collections::BTreeSet<&str> = shells
        .split(" name=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(
        names.contains("batch") && names.contains("model") && names.contains("act_mb"),
        "the three forms' shells are read: {names:?}"
    );
    let unfilled: Vec<&str> = names
        .into_iter()
        .filter(|name| !filled.contains(name) && !["method", "params_scale"].contains(name))
        .collect();
    assert!(
        unfilled.is_empty(),
        "shell fields query::shown_values does not write: {unfilled:?}"
    );
}

/// A reader's shell says the setup its answer is for, on every form and in
/// both languages: the shell shows the fields the app shows, each holding
/// what the app's holds once it is built (the parameter count split into
/// its number and scale as the app splits it, "13B": 13 and B; the
/// generated tokens in inference; the device select's "no device" and
/// typed capacity, with its field). A closed group's line says the app's
/// values or nothing (the pre-rendered first screen's values stay only on
/// that setup), under the app's title (the settings' follows the task).
#[tokio::test(flavor = "multi_thread")]
async fn a_readers_fields_are_the_apps_on_every_form() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let first_screen = format!("{}&lang=es", query::FIRST_SCREEN);
    for q in [
        "form=parameters&params=13B&gpu=a100-80gb&batch=4",
        "form=parameters&params=1.3e9&optimizer=sgd_momentum&act_mb=12.5&lang=es",
        "form=parameters&params=7000M&units=gib",
        "form=activations&batch=3&seq=1024&hidden=2048&layers=24&ckpt=1&gpu=rtx-4090&lang=es",
        "form=transformer&model=qwen2.5-7b&gpus=4&batch=2&seq=4096&gpu=h200",
        "form=transformer&model=llama-3.1-8b&mode=inference&gpu=l4&batch=8&seq=8192&gen=1024",
        "form=transformer&model=qwen2.5-7b&gpu_gb=30&mode=inference&lang=es",
        "form=transformer&model=qwen2.5-7b&batch=4&seq=1024",
        query::FIRST_SCREEN,
        first_screen.as_str(),
    ] {
        browser.open_to_read(&server.url(&format!("/?{q}"))).await;
        browser.first_answer().await;
        assert_eq!(
            browser
                .js("return document.querySelector('.shell:not([hidden]) .shell-answer') !== null")
                .await,
            json!(true),
            "{q}: the answer stands in the shell"
        );
        let shell = browser
            .js(&FIELDS_SHOWN.replace("ROOT", ".shell:not([hidden])"))
            .await;
        let shell_groups = browser
            .js(&GROUP_LINES.replace("ROOT", ".shell:not([hidden])"))
            .await;
        browser.act().await;
        browser.testid("required").await;
        let app = browser.js(&FIELDS_SHOWN.replace("ROOT", "body")).await;
        assert_eq!(shell, app, "{q}: the reader's fields are the app's");
        assert!(
            shell.as_object().is_some_and(|f| f.len() >= 7),
            "{q}: {shell}"
        );
        let app_groups = browser.js(&GROUP_LINES.replace("ROOT", "body")).await;
        let (shell_groups, app_groups) = (
            shell_groups.as_array().expect("the shell's groups"),
            app_groups.as_array().expect("the app's groups"),
        );
        assert_eq!(shell_groups.len(), app_groups.len(), "{q}: the groups");
        let on_first_screen = q.starts_with(query::FIRST_SCREEN);
        for (seen, built) in shell_groups.iter().zip(app_groups) {
            assert_eq!(seen[0], built[0], "{q}: a group's title is the app's");
            let line = seen[1].as_str().expect("a line");
            assert!(
                line == built[1] || (line.is_empty() && !on_first_screen),
                "{q}: the reader's line {line:?} against the app's {}",
                built[1]
            );
            if on_first_screen {
                assert!(!line.is_empty(), "{q}: the first screen keeps its lines");
            }
        }
    }
    browser.close().await;
}
