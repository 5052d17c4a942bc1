//! The panels whose code is a chunk of the release module (`cargo xtask
//! dist`'s split, crates/xtask/src/split.rs): the page loads none of them;
//! each is fetched the first time its panel is used, and then works. The
//! same panels' contents are checked against the core by the browser tests
//! (crates/batchfit-web/tests/browser.rs), on a build without the split.

use batchfit_core::{advice, measured, memory, query};
use batchfit_e2e::{Browser, StaticServer, dist_dir};

/// The fetched chunks that are a section's code: the named splits but the
/// interface, which the visitor's first action brings.
fn sections(fetched: &[String]) -> Vec<String> {
    fetched
        .iter()
        .filter(|n| n.starts_with("split_") && *n != "split_interface")
        .cloned()
        .collect()
}

/// Scrolls to the smallest changes that fit, as a reader would, and waits
/// for `count` of them: their code is a chunk asked for then.
async fn scroll_to_the_fixes(browser: &Browser, count: usize) {
    browser
        .js("document.querySelector('[data-testid=fixes]').scrollIntoView()")
        .await;
    browser
        .wait_until("the smallest changes that fit", || async {
            browser
                .js("return document.querySelectorAll('[data-testid=fixes] li').length")
                .await
                .as_u64()
                == Some(count as u64)
        })
        .await;
}

#[tokio::test]
async fn each_chunk_is_fetched_when_its_panel_is_first_used_and_works() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    // Fits on the H100: no search for changes.
    let q = "form=transformer&model=llama-3.2-1b&batch=1&seq=512&gpu=h100-80gb";
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.testid("required").await;
    // No panel's chunk; the charts', whose timeline may be within a screen
    // of this short page, may come (the charts' test below).
    let panels: Vec<String> = sections(&browser.fetched_modules().await)
        .into_iter()
        .filter(|n| n != "split_charts")
        .collect();
    assert_eq!(panels, Vec::<String>::new());

    // "Compare with a measurement": its chunk, then the comparison the core makes.
    browser
        .js("document.querySelector('[data-testid=measure]').open = true")
        .await;
    let text = include_str!("../../crates/batchfit-core/tests/data/measured/print_gib.txt");
    let area = browser.testid("measure-text").await;
    area.send_keys(text).await.expect("type the measurement");
    browser
        .wait_until("the comparison", || async {
            browser
                .js("return document.querySelectorAll('.measure-one').length")
                .await
                .as_u64()
                > Some(0)
        })
        .await;
    let config = query::parse(q).config;
    let estimate = memory::estimate(&config);
    let read = measured::parse(text, None).expect("the sample reads");
    let predicted = browser
        .js("return document.querySelector('.measure-one').dataset.predicted")
        .await;
    assert_eq!(
        predicted.as_str(),
        Some(
            measured::compare(&config, &estimate, &read[0])
                .predicted
                .to_string()
                .as_str()
        )
    );
    let fetched = browser.fetched_modules().await;
    assert!(fetched.iter().any(|n| n == "split_measure"), "{fetched:?}");
    assert!(!fetched.iter().any(|n| n == "split_fixes"), "{fetched:?}");

    // A setup that does not fit and that no single what-if rescues: the
    // search's chunk, then the core's list.
    let q = "form=transformer&model=llama-3.1-8b&recipe=amp&batch=16&seq=2048&gpu=h100-80gb";
    browser.open(&server.url(&format!("/?{q}"))).await;
    let expected = advice::fixes(&query::parse(q).config);
    assert!(!expected.is_empty());
    // Its list is fetched once it comes near the screen (the next test).
    browser.testid("fixes").await;
    scroll_to_the_fixes(&browser, expected.len()).await;
    let first = browser
        .js("return document.querySelector('[data-testid=fixes] li').dataset.required")
        .await;
    assert_eq!(
        first.as_str(),
        Some(expected[0].fix.estimate.required.to_string().as_str())
    );
    let fetched = browser.fetched_modules().await;
    assert!(fetched.iter().any(|n| n == "split_fixes"), "{fetched:?}");
    assert!(!fetched.iter().any(|n| n == "split_import"), "{fetched:?}");

    // The paste box: its chunk once opened (forms.rs tests what it reads).
    browser
        .js("document.querySelector('[data-testid=paste-box]').open = true")
        .await;
    browser.input("config_json").await;
    let fetched = browser.fetched_modules().await;
    assert!(fetched.iter().any(|n| n == "split_import"), "{fetched:?}");

    // "Compare with another setup", "Which GPUs fit" and the formula of
    // "How it works": a chunk each, fetched when started or opened.
    browser.testid("compare-start").await;
    browser
        .js("document.querySelector('[data-testid=compare-start]').click()")
        .await;
    browser
        .wait_until("the comparison table", || async {
            browser
                .js("return document.querySelectorAll('[data-testid=compare-table] tbody tr').length")
                .await
                .as_u64()
                > Some(0)
        })
        .await;
    browser
        .js(
            "document.querySelector('[data-testid=devices]').open = true; \
             document.querySelector('[data-testid=how-it-works]').open = true",
        )
        .await;
    let devices = memory::devices(&query::parse(q).config).len() as u64;
    browser
        .wait_until("every device's row and the formula", || async {
            browser
                .js("return document.querySelectorAll('[data-testid=devices-table] tbody tr').length")
                .await
                .as_u64()
                == Some(devices)
                && browser
                    .js("return document.querySelectorAll('[data-testid=formula] code').length")
                    .await
                    .as_u64()
                    > Some(0)
        })
        .await;
    let fetched = browser.fetched_modules().await;
    for chunk in ["split_compare", "split_devices", "split_formula"] {
        assert!(fetched.iter().any(|n| n == chunk), "{chunk}: {fetched:?}");
    }

    let errors = browser.js("return window.__probe.errors").await;
    assert_eq!(errors, serde_json::json!([]), "console errors");
    browser.close().await;
}

/// Issue 31's budget page at 1280 × 900, a setup that does not fit: its
/// first screen fetches no chunk. The breakdown bar is markup, the charts
/// are more than a screen below it, and the smallest changes that fit,
/// under the fold, come once the visitor scrolls: the list, then the
/// core's.
#[tokio::test]
async fn a_first_screen_that_does_not_fit_fetches_no_chunk() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb";
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.testid("required").await;
    let expected = advice::fixes(&query::parse(q).config);
    assert!(!expected.is_empty());
    let top = browser
        .js("return document.querySelector('[data-testid=fixes]').getBoundingClientRect().top")
        .await
        .as_f64()
        .expect("a position");
    assert!(top > 900.0, "the list at {top} px");
    // What an idle first load would have fetched by now: the interface
    // (the visitor acted), no section's code.
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    let fetched = browser.fetched_modules().await;
    assert!(
        fetched.iter().any(|n| n == "split_interface"),
        "{fetched:?}"
    );
    assert_eq!(sections(&fetched), Vec::<String>::new(), "{fetched:?}");
    scroll_to_the_fixes(&browser, expected.len()).await;
    let fetched = browser.fetched_modules().await;
    assert!(fetched.iter().any(|n| n == "split_fixes"), "{fetched:?}");
    let errors = browser.js("return window.__probe.errors").await;
    assert_eq!(errors, serde_json::json!([]), "console errors");
    browser.close().await;

    // A screen tall enough to show the what-ifs: they come without a scroll.
    let browser = Browser::start(1280, 1700).await;
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.testid("required").await;
    let expected = memory::what_ifs(&query::parse(q).config).len() as u64;
    browser
        .wait_until("the what-ifs on the first screen", || async {
            browser
                .js("return document.querySelectorAll('[data-testid=what-ifs] li').length")
                .await
                .as_u64()
                == Some(expected)
        })
        .await;
    let scrolled = browser.js("return scrollY").await;
    assert_eq!(scrolled, serde_json::json!(0), "no scroll");
    browser.close().await;
}

/// The charts' drawing code is a chunk fetched when a chart comes near the
/// viewport: a phone's first screen (the answer; the first chart is
/// screens down) fetches none of it, and scrolling to a chart fetches it
/// and draws it.
#[tokio::test]
async fn the_charts_chunk_comes_when_a_chart_is_near() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(375, 812).await;
    browser.open(&server.url("/")).await;
    browser.testid("required").await;
    let top = browser
        .js("return document.querySelector('[data-testid=timeline-chart]').getBoundingClientRect().top")
        .await
        .as_f64()
        .expect("a position");
    assert!(top > 2.0 * 812.0, "the first chart at {top} px");
    assert!(
        !browser
            .fetched_modules()
            .await
            .iter()
            .any(|n| n == "split_charts")
    );
    browser
        .js("document.querySelector('[data-testid=timeline-chart]').scrollIntoView()")
        .await;
    browser
        .wait_until("the timeline drawn", || async {
            browser
                .js("const c = document.querySelector('[data-testid=timeline-chart]'); \
                     return c.width === Math.round(c.getBoundingClientRect().width * devicePixelRatio)")
                .await
                == serde_json::json!(true)
        })
        .await;
    assert!(
        browser
            .fetched_modules()
            .await
            .iter()
            .any(|n| n == "split_charts")
    );
    let errors = browser.js("return window.__probe.errors").await;
    assert_eq!(errors, serde_json::json!([]), "console errors");
    browser.close().await;
}

/// The pipeline's stages are a chunk too: a setup without a pipeline never
/// fetches it (the test above), one with a pipeline does, and its table has
/// the core's stages, each requiring what the core says.
#[tokio::test]
async fn the_stages_chunk_comes_with_a_pipeline() {
    let server = StaticServer::start_with_probe(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=transformer&model=llama-3.1-8b&gpus=2&pp=2&gpu=h100-80gb";
    browser.open(&server.url(&format!("/?{q}"))).await;
    let stages = memory::stages(&query::parse(q).config);
    assert_eq!(stages.len(), 2);
    browser
        .wait_until("every stage's row", || async {
            browser
                .js("return document.querySelectorAll('[data-testid=stages] tbody tr').length")
                .await
                .as_u64()
                == Some(2)
        })
        .await;
    let required = browser
        .js("return [...document.querySelectorAll('[data-testid=stages] tbody tr')].map(r => r.dataset.required)")
        .await;
    let expected: Vec<String> = stages
        .iter()
        .map(|s| s.estimate.required.to_string())
        .collect();
    assert_eq!(required, serde_json::json!(expected));
    let fetched = browser.fetched_modules().await;
    assert!(fetched.iter().any(|n| n == "split_stages"), "{fetched:?}");
    let errors = browser.js("return window.__probe.errors").await;
    assert_eq!(errors, serde_json::json!([]), "console errors");
    browser.close().await;
}

/// A copy of the built site without some of its chunks, as a deployment
/// that lost them or a connection that drops them would leave it.
fn site_without(prefixes: &[&str]) -> std::path::PathBuf {
    let from = dist_dir();
    // One folder per set of missing chunks: the tests run at once.
    let to = std::env::temp_dir().join(format!(
        "batchfit-missing-{}-{}",
        prefixes.join("-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&to);
    std::fs::create_dir_all(&to).expect("a temporary folder");
    for entry in std::fs::read_dir(&from).expect("dist/") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        if path.is_file() && !prefixes.iter().any(|p| name.starts_with(p)) {
            std::fs::copy(&path, to.join(&name)).expect("copy");
        }
    }
    to
}

/// A chunk that cannot be fetched is said so in the page's language where it
/// was needed; nothing panics and the page keeps answering. A Spanish page
/// whose texts are missing opens in English.
#[tokio::test]
async fn a_missing_chunk_is_reported_and_the_page_keeps_answering() {
    let site = site_without(&["split_measure", "split_compare", "split_es", "split_charts"]);
    let server = StaticServer::start(site.clone(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=transformer&model=llama-3.2-1b&batch=1&seq=512&gpu=h100-80gb";
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.testid("required").await;
    // The charts' code missing: the chart scrolled to says so, the answer
    // (the bar is markup) stands.
    browser
        .js("document.querySelector('[data-testid=timeline-chart]').scrollIntoView()")
        .await;
    browser
        .wait_until("the timeline's failure said", || async {
            browser
                .js("return document.querySelector('[data-testid=timeline-chart]').dataset.chartFailed")
                .await
                == serde_json::json!("true")
        })
        .await;

    browser
        .js("document.querySelector('[data-testid=measure]').open = true")
        .await;
    browser
        .wait_until("the missing chunk's message", || async {
            browser
                .js("const s = document.querySelector('[data-testid=measure] [data-testid=chunk-status]'); \
                     return s !== null && s.getAttribute('role') === 'alert'")
                .await
                == serde_json::json!(true)
        })
        .await;
    let said = browser
        .js("return document.querySelector('[data-testid=measure] [data-testid=chunk-status]').textContent")
        .await;
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("could not be loaded")),
        "{said}"
    );

    // Comparing: the message and a way back.
    browser
        .js("document.querySelector('[data-testid=compare-start]').click()")
        .await;
    browser
        .wait_until("the comparison's message", || async {
            browser
                .js("return document.querySelector('[data-testid=compare] [data-testid=chunk-status]') !== null")
                .await
                == serde_json::json!(true)
        })
        .await;
    browser
        .js("document.querySelector('[data-testid=compare-stop]').click()")
        .await;
    browser.testid("compare-start").await;

    // Still answering, and never the crash banner.
    browser.type_into("batch", "4").await;
    let expected = memory::estimate(&query::parse(&q.replace("batch=1", "batch=4")).config);
    browser
        .wait_until("the edited estimate", || async {
            browser.bytes("required").await == expected.required
        })
        .await;
    let crashed = browser
        .js("return document.querySelector('[data-testid=crash]') !== null")
        .await;
    assert_eq!(crashed, serde_json::json!(false), "the crash banner showed");

    // Spanish without its texts: the app mounts, in English.
    browser.open(&server.url(&format!("/?{q}&lang=es"))).await;
    browser.testid("required").await;
    let label = browser
        .js("return document.querySelector('[data-testid=measure] summary').textContent")
        .await;
    assert_eq!(label.as_str(), Some("Compare with a measurement"));
    browser.close().await;
    let _ = std::fs::remove_dir_all(site);
}

/// Issue 31: an interface chunk that cannot be fetched leaves the address's
/// answer standing and says so under it in the page's language; once the
/// chunk can be fetched again, the alert's button asks for it and the app
/// is built in the shell's place, with the core's numbers, without a reload.
#[tokio::test]
async fn a_missing_interface_leaves_the_answer_and_says_so() {
    let site = site_without(&["split_interface"]);
    let server = StaticServer::start(site.clone(), &["/"]);
    let q = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb";
    let expected = memory::estimate(&query::parse(q).config);
    let interface: Vec<std::path::PathBuf> = std::fs::read_dir(dist_dir())
        .expect("dist/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("split_interface"))
        })
        .collect();
    assert!(!interface.is_empty(), "dist/ has the interface's chunk");
    for (lang, said, retry) in [
        (
            "en",
            "The calculator's controls did not load: the estimate above stands, \
             but it cannot be changed here. Check the connection, then try again.",
            "Try again",
        ),
        (
            "es",
            "Los controles de la calculadora no se cargaron: la estimación de arriba \
             sigue en pie, pero aquí no se puede cambiar. Compruebe la conexión y \
             vuelva a intentarlo.",
            "Reintentar",
        ),
    ] {
        for path in &interface {
            let _ = std::fs::remove_file(site.join(path.file_name().expect("a name")));
        }
        let browser = Browser::start(1280, 900).await;
        browser
            .open(&server.url(&format!("/?{q}&lang={lang}")))
            .await;
        browser.testid("interface-failed").await;
        let shown = browser
            .js("const s = document.querySelector('.shell:not([hidden])'); \
                 const alert = s.querySelector('[data-testid=interface-failed]'); \
                 alert.dataset.first = ''; \
                 return [alert.firstChild.data, alert.getAttribute('role'), \
                   s.querySelector('[data-testid=interface-retry]').textContent, \
                   s.querySelectorAll('.boot-loading').length, \
                   [...s.querySelectorAll('.shell-answer .bar-segments > span')].map(e => e.dataset.bytes), \
                   document.querySelector('[data-testid=results]') === null, \
                   document.querySelector('[data-testid=crash]') === null]")
            .await;
        let segments = crate::shell::bar_segments(&expected);
        assert_eq!(
            shown,
            serde_json::json!([said, "alert", retry, 0, segments, true, true]),
            "{lang}: the answer stands, no app, no crash"
        );
        // The button asks again; the chunk still missing, a new alert says
        // so, once.
        browser.click("interface-retry").await;
        browser
            .wait_until("the second failure", || async {
                browser
                    .js("const alerts = document.querySelectorAll('[data-testid=interface-failed]'); \
                         return alerts.length === 1 && !('first' in alerts[0].dataset) \
                           && document.querySelectorAll('.boot-loading').length === 0")
                    .await
                    == serde_json::json!(true)
            })
            .await;
        // The chunk is back: the button builds the app, with the core's bytes.
        for path in &interface {
            std::fs::copy(path, site.join(path.file_name().expect("a name"))).expect("copy");
        }
        browser.click("interface-retry").await;
        browser.testid("required").await;
        assert_eq!(browser.bytes("required").await, expected.required, "{lang}");
        assert_eq!(
            browser
                .js("return [document.querySelectorAll('.shell, [data-testid=interface-failed], .boot-loading').length, \
                       document.querySelectorAll('[data-testid=headline]').length, \
                       document.querySelector('[data-testid=crash]') === null]")
                .await,
            serde_json::json!([0, 1, true]),
            "{lang}: the app alone, once, no alert left"
        );
        browser.close().await;
    }
    let _ = std::fs::remove_dir_all(site);
}

/// A Spanish reader's first answer waits for the Spanish sentences and the
/// answer's words alone (the chunk `es`), not the rest of the page's
/// Spanish (`es_page`), which comes with the interface at the first action:
/// the app is then in Spanish throughout.
#[tokio::test]
async fn a_spanish_reader_fetches_the_answers_words_alone() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    let q = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&lang=es";
    browser.open_to_read(&server.url(&format!("/?{q}"))).await;
    browser.first_answer().await;
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    let fetched = browser.fetched_modules().await;
    assert_eq!(
        sections(&fetched),
        ["split_es"],
        "a reader's Spanish: the answer's words alone: {fetched:?}"
    );
    let headline = browser
        .js("return document.querySelector('.shell:not([hidden]) .shell-answer .headline').textContent")
        .await;
    assert!(
        headline
            .as_str()
            .is_some_and(|h| h.starts_with("Necesita ")),
        "{headline}"
    );
    browser.act().await;
    browser.testid("required").await;
    let fetched = browser.fetched_modules().await;
    assert_eq!(
        sections(&fetched),
        ["split_es", "split_es_page"],
        "{fetched:?}"
    );
    let said = browser
        .js("return [document.querySelector('[data-testid=headline]').textContent.startsWith('Necesita '), \
             document.querySelector('[data-testid=measure] summary').textContent]")
        .await;
    assert_eq!(said, serde_json::json!([true, "Comparar con una medición"]));
    browser.close().await;
}

/// The rest of the Spanish texts missing while the answer's are here: the
/// answer stands in Spanish, and the interface, which would mix the two
/// languages, is not built: the alert says so, in Spanish.
#[tokio::test]
async fn a_missing_spanish_page_leaves_the_spanish_answer_and_says_so() {
    let site = site_without(&["split_es_page"]);
    let server = StaticServer::start(site.clone(), &["/"]);
    let browser = Browser::start(375, 812).await;
    let q = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&lang=es";
    browser.open(&server.url(&format!("/?{q}"))).await;
    browser.testid("interface-failed").await;
    let shown = browser
        .js("const s = document.querySelector('.shell:not([hidden])'); \
             return [s.querySelector('.shell-answer .headline').textContent.startsWith('Necesita '), \
               s.querySelector('[data-testid=interface-failed]').firstChild.data.startsWith('Los controles'), \
               document.querySelector('[data-testid=results]') === null, \
               document.querySelector('[data-testid=crash]') === null]")
        .await;
    assert_eq!(shown, serde_json::json!([true, true, true, true]));
    browser.close().await;
    let _ = std::fs::remove_dir_all(site);
}
