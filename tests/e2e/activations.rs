//! The activations form: worked example, URL prefill from a sub-path, typing, bad input.

use batchfit_e2e::{Browser, StaticServer, dist_dir};

const WORKED: &str = "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10";

fn server() -> StaticServer {
    StaticServer::start(dist_dir(), &["/", "/some/sub/path/"])
}

#[tokio::test(flavor = "multi_thread")]
async fn worked_example_from_a_prefilled_url() {
    let server = server();
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url(&format!("/?{WORKED}"))).await;
    assert_eq!(browser.bytes("activations-per-sample").await, 5_368_709_120);
    assert_eq!(browser.bytes("activations").await, 85_899_345_920);
    assert_eq!(browser.text("activations-per-sample").await, "5.369 GB");
    assert_eq!(browser.text("activations").await, "85.90 GB");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn prefilled_url_from_a_sub_path() {
    let server = server();
    let browser = Browser::start(1280, 900).await;
    let fp32 = WORKED.replace("precision=bf16", "precision=fp32");
    browser
        .open(&server.url(&format!("/some/sub/path/?{fp32}")))
        .await;
    assert_eq!(browser.bytes("activations").await, 171_798_691_840);
    assert_eq!(browser.text("activations").await, "171.80 GB");
    let precision = browser.field_value("precision").await;
    assert_eq!(precision, "fp32");
    assert_eq!(
        browser
            .input("seq")
            .await
            .prop("value")
            .await
            .expect("read")
            .as_deref(),
        Some("2048")
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn typing_updates_the_result_and_the_url_in_place() {
    let server = server();
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url(&format!("/some/sub/path/?{WORKED}")))
        .await;
    assert_eq!(browser.bytes("activations").await, 85_899_345_920);
    let history_before = browser
        .client
        .execute("return history.length", vec![])
        .await
        .expect("js");
    browser.type_into("batch", "32").await;
    browser
        .wait_until("batch 32 to double the activations", || async {
            browser.bytes("activations").await == 2 * 85_899_345_920
        })
        .await;
    let url = browser.url_with(&["batch=32"]).await;
    assert_eq!(url.path(), "/some/sub/path/", "the page keeps its own path");
    let history_after = browser
        .client
        .execute("return history.length", vec![])
        .await
        .expect("js");
    assert_eq!(
        history_before, history_after,
        "replaceState, not a history entry per keystroke"
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_text_is_explained_and_the_last_good_result_stays() {
    let server = server();
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url("/?form=activations")).await;
    assert_eq!(browser.bytes("activations").await, 85_899_345_920);
    // Typing goes key by key, and "1e30" passes through "1e3" (batch 1,000) on
    // its way: a keystroke that did not stand for half a second is not the
    // result kept, so every case keeps the committed batch 16 (issue 12).
    let per_sample = 5_368_709_120_u128;
    let range = "from 1 to 1,000,000,000.";
    for (bad, message, kept_batch) in [
        ("abc", format!("Batch size must be a number {range}"), 16),
        ("-1", format!("Batch size must be {range}"), 16),
        (
            "",
            format!("Batch size is empty: type a number {range}"),
            16,
        ),
        (
            "<img src=x onerror=alert(1)>",
            format!("Batch size must be a number {range}"),
            16,
        ),
        ("1e30", format!("Batch size must be {range}"), 16),
    ] {
        browser.type_into("batch", bad).await;
        assert_eq!(browser.text("error-batch").await, message, "{bad:?}");
        let invalid = browser
            .input("batch")
            .await
            .attr("aria-invalid")
            .await
            .expect("attr");
        assert_eq!(invalid.as_deref(), Some("true"), "{bad:?}");
        assert_eq!(
            browser.bytes("activations").await,
            per_sample * kept_batch,
            "{bad:?}: last good result kept"
        );
        let stale = browser.stale().await;
        assert!(stale, "{bad:?}: marked as not current");
        let text = browser.text("activations").await;
        assert!(
            !text.contains("NaN") && !text.contains("inf"),
            "{bad:?}: {text}"
        );
    }
    browser.type_into("batch", "8").await;
    browser
        .wait_until("batch 8 to halve the activations", || async {
            browser.bytes("activations").await == 85_899_345_920 / 2
        })
        .await;
    let stale = browser.stale().await;
    assert!(!stale);
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_url_parameters_fall_back_to_defaults_with_a_notice() {
    let server = server();
    let browser = Browser::start(1280, 900).await;
    let url = server.url("/?form=activations&batch=-1&layers=&seq=abc&zzz=1&precision=fp32");
    browser.open(&url).await;
    let notice = browser.testid("url-notice").await;
    let named = notice
        .attr("data-params")
        .await
        .expect("attr")
        .unwrap_or_default();
    assert_eq!(named, "batch,layers,seq,zzz");
    // Defaults for the bad fields, the good one (fp32) applied: 16 × 2048 × 4096 × 32 × 4 × 10.
    assert_eq!(browser.bytes("activations").await, 171_798_691_840);
    browser.close().await;
}

/// Issue 28: a bad value in a link is treated as one typed: its field keeps
/// the text and is marked, the result is not current, and the address keeps
/// what was written; `seq=32k` is the 32,768 tokens it means.
#[tokio::test(flavor = "multi_thread")]
async fn a_bad_link_value_stays_in_its_field_and_the_result_is_not_current() {
    let server = server();
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=activations&batch=abc&seq=32k&lang=en"))
        .await;
    // The last good setup: the default batch of 16, at the 32,768 tokens read.
    assert_eq!(
        browser.bytes("activations").await,
        16 * 32_768 * 4_096 * 32 * 2 * 10
    );
    browser.input("batch").await;
    let stale = browser.stale().await;
    assert!(stale);
    assert_eq!(browser.field_value("batch").await, "abc");
    assert_eq!(
        browser
            .js("return document.querySelector('input[name=batch]:not(.shell *)').closest('.field').classList.contains('invalid')")
            .await,
        true,
        "the field is marked"
    );
    assert_eq!(
        browser
            .js("return location.search.includes('batch=abc')")
            .await,
        true,
        "the address keeps what the link said"
    );
    // Fixed, the result is current: 1 × 32,768 × 4,096 × 32 × 2 bytes × 10.
    browser.type_into("batch", "1").await;
    browser
        .wait_until("batch 1 at 32,768 tokens", || async {
            browser.bytes("activations").await == 32_768 * 4_096 * 32 * 2 * 10
        })
        .await;
    browser.url_with(&["batch=1", "seq=32768"]).await;
    browser.close().await;
}

/// "How it works" writes the formula with the page's own numbers, and only
/// while it is open (closed, an edit would rebuild text nobody reads).
#[tokio::test(flavor = "multi_thread")]
async fn how_it_works_shows_the_formula_with_the_current_numbers() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&server.url("/?form=activations&lang=en"))
        .await;
    browser.bytes("activations").await;
    // How it works is built in the task after the first estimate's.
    browser.testid("formula").await;
    let lines = "return document.querySelector('[data-testid=formula]').textContent";
    assert_eq!(
        browser.js(lines).await,
        "",
        "closed, the formula is not written"
    );
    let questions =
        "return document.querySelectorAll('[data-testid=how-it-works] details.faq').length";
    assert_eq!(
        browser.js(questions).await.as_u64(),
        Some(0),
        "closed, the questions are not written (their words are the formula's chunk)"
    );
    browser
        .js("document.querySelector('[data-testid=how-it-works] summary').click()")
        .await;
    browser
        .wait_until("the formula with the worked example", || async {
            browser.js(lines).await.as_str().is_some_and(|t| {
                t.contains("activations = 16 × 2048 × 4096 × 32 × 2 × 10 = 85.9 GB")
            })
        })
        .await;
    browser
        .wait_until("the questions, written from the chunk", || async {
            browser.js(questions).await.as_u64() == Some(11)
        })
        .await;
    browser.type_into("batch", "32").await;
    browser
        .wait_until("the formula to follow the batch", || async {
            browser.js(lines).await.as_str().is_some_and(|t| {
                t.contains("activations = 32 × 2048 × 4096 × 32 × 2 × 10 = 172 GB")
            })
        })
        .await;
    browser.close().await;
}
