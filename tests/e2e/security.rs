//! Hostile input and the page's promises about it: links whose every parameter
//! carries a script payload run nothing; the Content-Security-Policy is never
//! violated; the page makes no request to another origin, nor any after it has
//! loaded; thousands of random edits leave it answering, error-free, with its
//! memory bounded.

use batchfit_core::{memory, query};
use batchfit_e2e::{Browser, PROBE_FILE, StaticServer, dist_dir};

/// Every parameter name the URL format knows.
fn all_parameters() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = query::Param::ALL.iter().map(|p| p.name()).collect();
    names.sort_unstable();
    names
}

async fn probe(browser: &Browser, what: &str) -> serde_json::Value {
    browser.js(&format!("return window.__probe.{what}")).await
}

#[tokio::test(flavor = "multi_thread")]
async fn script_payloads_in_every_parameter_run_nothing_and_are_named() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let payloads = [
        "<script>window.__pwned=1</script>",
        "\"><img src=x onerror=\"window.__pwned=1\">",
        "javascript:window.__pwned=1",
        "%ff%fe%fd",
    ];
    for (i, payload) in payloads.iter().enumerate() {
        let value = if payload.starts_with('%') {
            (*payload).to_owned()
        } else {
            query::encode(payload)
        };
        let mut pairs: Vec<String> = all_parameters()
            .iter()
            .map(|n| format!("{n}={value}"))
            .collect();
        // A duplicated parameter and an unknown one, hostile too.
        pairs.push(format!("batch={value}"));
        pairs.push(format!(
            "{}={value}",
            query::encode("<b onmouseover=alert(1)>")
        ));
        browser
            .open(&server.url(&format!("/?{}", pairs.join("&"))))
            .await;
        // The page works: every field fell back to its default.
        assert_eq!(
            browser.bytes("required").await,
            memory::estimate(&query::Config::default()).required,
            "payload {i}"
        );
        assert_eq!(
            browser.js("return window.__pwned === undefined").await,
            true,
            "payload {i} ran"
        );
        assert_eq!(
            browser
                .js("return document.querySelectorAll('img[src=x], b[onmouseover]').length")
                .await,
            0
        );
        let named = browser
            .testid("url-notice")
            .await
            .attr("data-params")
            .await
            .expect("attr")
            .unwrap_or_default();
        // `form` decides which parameters apply; with form itself rejected the
        // activations form is shown, and its parameters and the common ones are named.
        for name in [
            "form",
            "batch",
            "seq",
            "layers",
            "precision",
            "gpu",
            "units",
            "lang",
            "embed",
        ] {
            assert!(
                named.split(',').any(|n| n == name),
                "payload {i}: {name} is not named in {named}"
            );
        }
        assert!(
            named.contains("<b onmouseover=alert(1)>"),
            "the unknown name is reported, as text"
        );
        assert_eq!(
            probe(&browser, "csp").await,
            serde_json::json!([]),
            "payload {i}"
        );
    }
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_one_megabyte_value_is_rejected_without_harm() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let huge = "9".repeat(1 << 20);
    // Browsers cap URLs at 2 MiB: one 1 MiB value, and a 1 MiB unknown name in a second visit.
    browser
        .open(&server.url(&format!("/?form=activations&seq={huge}&zzz=1")))
        .await;
    assert_eq!(browser.bytes("activations").await, 85_899_345_920);
    let named = browser
        .testid("url-notice")
        .await
        .attr("data-params")
        .await
        .expect("attr")
        .unwrap_or_default();
    assert!(
        named.starts_with("seq,"),
        "{}",
        &named[..named.len().min(80)]
    );
    let shown = browser.text("url-notice").await;
    assert!(
        shown.len() < 2_000,
        "the notice does not echo a megabyte: {} bytes",
        shown.len()
    );
    browser
        .open(&server.url(&format!("/?form=activations&{huge}=1")))
        .await;
    assert_eq!(browser.bytes("activations").await, 85_899_345_920);
    let shown = browser.text("url-notice").await;
    assert!(
        shown.len() < 2_000,
        "the notice shows at most 40 characters of a name: {} bytes",
        shown.len()
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_content_security_policy_holds_and_the_probe_would_see_a_violation() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=transformer&model=llama-3.1-8b&gpu=h100-80gb"))
        .await;
    browser.testid("required").await;
    let policy = browser
        .js("return document.querySelector('meta[http-equiv=Content-Security-Policy]').content")
        .await;
    let policy = policy.as_str().expect("a policy");
    for directive in [
        "script-src 'self' 'wasm-unsafe-eval'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "style-src 'self'",
    ] {
        assert!(policy.contains(directive), "{directive} in {policy}");
    }
    // Neither inline scripts nor style attributes: the charts measure text
    // with the canvas, not with a styled element, and the bars' widths are
    // set through the CSSOM.
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    // The one style sheet is in the page, allowed by its hash: the browser
    // made a sheet of it (a blocked <style> has none), and nothing is linked.
    let styles = browser
        .js("const s = [...document.querySelectorAll('style')]; \
             return [s.length, s.filter(e => e.sheet && e.sheet.cssRules.length > 0).length, \
                     document.querySelectorAll('link[rel=stylesheet]').length]")
        .await;
    assert_eq!(styles, serde_json::json!([1, 1, 0]), "{policy}");
    assert_eq!(policy.matches("'sha256-").count(), 1, "{policy}");
    // Use the page: every form, the language, the charts, the share buttons.
    for form in ["activations", "parameters", "transformer"] {
        browser.click(&format!("form-{form}")).await;
    }
    browser.click("lang-es").await;
    browser.click("download-csv").await;
    browser.click("embed").await;
    browser.type_into("batch", "64").await;
    assert_eq!(
        probe(&browser, "csp").await,
        serde_json::json!([]),
        "no violation while using the page"
    );
    assert_eq!(
        probe(&browser, "errors").await,
        serde_json::json!([]),
        "no console error"
    );
    // The probe is live: an injected inline script is blocked, and reported.
    browser
        .js("const s = document.createElement('script'); s.textContent = 'window.__pwned = 1'; document.body.append(s);")
        .await;
    browser
        .wait_until("the probe to report the violation", || async {
            probe(&browser, "csp")
                .await
                .as_array()
                .is_some_and(|v| !v.is_empty())
        })
        .await;
    assert_eq!(
        browser.js("return window.__pwned === undefined").await,
        true,
        "the inline script did not run"
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn no_request_to_another_origin_and_after_load_only_the_modules_chunks() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/sub/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/sub/?form=transformer&model=qwen2.5-7b&gpu=a100-80gb"))
        .await;
    browser.testid("required").await;
    let requests = || async {
        let entries = browser
            .js("return performance.getEntriesByType('resource').map(e => e.name)")
            .await;
        entries
            .as_array()
            .expect("a list")
            .iter()
            .map(|e| e.as_str().unwrap_or_default().to_owned())
            .filter(|name| !name.ends_with(PROBE_FILE))
            .collect::<Vec<String>>()
    };
    let at_load = requests().await;
    let origin = server.url("/");
    assert!(!at_load.is_empty(), "the page's own files are listed");
    for name in &at_load {
        assert!(
            name.starts_with(&origin),
            "a request to another origin: {name}"
        );
    }
    for (field, value) in [("batch", "32"), ("seq", "8192"), ("heads", "40")] {
        browser.type_into(field, value).await;
    }
    for form in ["activations", "parameters", "transformer"] {
        browser.click(&format!("form-{form}")).await;
    }
    browser.click("lang-es").await;
    browser.click("download-csv").await;
    // blob: URLs are the page's own memory, not requests. After the load,
    // the only requests are the module's own chunks (the Spanish texts here,
    // crates/xtask/src/split.rs), from the page's origin and folder.
    let after: Vec<String> = requests()
        .await
        .into_iter()
        .filter(|n| !n.starts_with("blob:"))
        .collect();
    assert_eq!(&after[..at_load.len()], &at_load[..]);
    let later = &after[at_load.len()..];
    assert!(
        !later.is_empty(),
        "Spanish is a chunk fetched on the switch"
    );
    let folder = server.url("/sub/");
    for name in later {
        let file = name.strip_prefix(&folder).unwrap_or_else(|| {
            panic!("a request after the load outside the page's folder: {name}")
        });
        assert!(
            (file.starts_with("split_") || file.starts_with("chunk_")) && file.ends_with(".wasm"),
            "a request after the load that is not one of the module's chunks: {name}"
        );
    }
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn five_thousand_random_edits_leave_the_page_answering_with_bounded_memory() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=transformer&model=llama-3.1-8b&gpu=h100-80gb"))
        .await;
    browser.testid("required").await;
    let before = browser
        .js("return [performance.memory ? performance.memory.usedJSHeapSize : 0, window.__probe.memory.buffer.byteLength]")
        .await;
    // Edits in the page itself (WebDriver round trips would take minutes): a
    // seeded generator picks a field of the current form and a value, valid or
    // not, dispatches the event a user's edit fires, and lets the app settle
    // every few edits. Forms switch now and then.
    let script = r#"
        const done = arguments[0];
        let seed = 20261129;
        const next = n => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
        const values = ['1', '2', '16', '4096', '0', '-3', '', 'abc', '1e30', '3.5', '<img src=x onerror=window.__pwned=1>',
                        '99999999999999999999', '7B', '125M', '0.5', '  8  ', '1_000', 'NaN', 'inf', '%ff'];
        const forms = ['form-activations', 'form-parameters', 'form-transformer'];
        const tick = () => new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); });
        (async () => {
            for (let i = 0; i < 5000; i++) {
                if (i % 250 === 0) document.querySelector(`[data-testid=${forms[next(3)]}]`).click();
                const fields = [...document.querySelectorAll('.inputs input, .inputs select')];
                const field = fields[next(fields.length)];
                if (field.type === 'checkbox') { field.checked = !field.checked; field.dispatchEvent(new Event('change')); }
                else if (field.tagName === 'SELECT') { field.selectedIndex = next(field.options.length); field.dispatchEvent(new Event('change')); }
                else { field.value = values[next(values.length)]; field.dispatchEvent(new Event('input')); }
                if (i % 10 === 0) await tick();
            }
            await tick();
            done(true);
        })();
    "#;
    let finished = browser
        .client
        .execute_async(script, vec![])
        .await
        .expect("the soak script");
    assert_eq!(finished, true);
    // Still answering: valid values in every field of the form give a current,
    // exact result again.
    browser.click("form-activations").await;
    for (field, value) in [
        ("batch", "16"),
        ("seq", "2048"),
        ("hidden", "4096"),
        ("layers", "32"),
        ("k", "10"),
        ("overhead_gb", "1"),
        ("margin", "0"),
        ("global_batch", "0"),
    ] {
        browser.type_into(field, value).await;
    }
    browser.set_value("precision", "bf16").await;
    browser.set_value("gpu", "").await;
    browser
        .js("const c = document.querySelector('[name=ckpt]'); if (c.checked) { c.click(); }")
        .await;
    browser
        .wait_until("the worked example again", || async {
            browser.bytes("activations").await == 85_899_345_920
        })
        .await;
    assert_eq!(
        browser.js("return window.__pwned === undefined").await,
        true
    );
    assert_eq!(
        probe(&browser, "errors").await,
        serde_json::json!([]),
        "no console error"
    );
    assert_eq!(probe(&browser, "csp").await, serde_json::json!([]));
    let after = browser
        .js("return [performance.memory ? performance.memory.usedJSHeapSize : 0, window.__probe.memory.buffer.byteLength]")
        .await;
    let (js_before, js_after) = (
        before[0].as_f64().unwrap_or(0.0),
        after[0].as_f64().unwrap_or(0.0),
    );
    let (wasm_before, wasm_after) = (
        before[1].as_f64().unwrap_or(0.0),
        after[1].as_f64().unwrap_or(0.0),
    );
    println!(
        "soak: JS heap {js_before} → {js_after} bytes; WASM memory {wasm_before} → {wasm_after} bytes"
    );
    assert!(
        js_after < js_before + 64.0 * 1024.0 * 1024.0,
        "JS heap grew without bound: {js_before} → {js_after}"
    );
    assert!(
        wasm_after <= wasm_before * 4.0 + 16.0 * 1024.0 * 1024.0,
        "WASM memory grew without bound: {wasm_before} → {wasm_after}"
    );
    browser.close().await;
}

/// The built page carries no path of the machine that built it: the release
/// build names the registry's crates by name and version alone
/// (`split::release_rustflags` in xtask), so the module's panic locations
/// read `hashbrown-0.17.2/src/raw.rs`, and the page weighs the same wherever
/// `CARGO_HOME` is.
#[test]
fn the_built_files_name_no_folder_of_the_machine_that_built_them() {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    let registry = cargo_home.join("registry").display().to_string();
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the e2e crate sits in the workspace")
        .display()
        .to_string();
    let mut read = 0;
    for entry in std::fs::read_dir(dist_dir()).expect("dist/ is built") {
        let path = entry.expect("a dist/ entry").path();
        let bytes = std::fs::read(&path).expect("a readable file");
        read += 1;
        for folder in [&registry, &workspace] {
            assert!(
                !bytes.windows(folder.len()).any(|w| w == folder.as_bytes()),
                "{} names {folder}",
                path.display()
            );
        }
    }
    assert!(read > 3, "dist/ holds the page's files");
}
