//! Copy link, Copy table, Download CSV and the embed snippet.

use batchfit_core::{memory, query};
use batchfit_e2e::{Browser, StaticServer, dist_dir};

const Q: &str =
    "form=parameters&params=7B&precision=bf16&optimizer=adamw&batch=4&act_mb=800&gpu=h100-80gb";

/// Records every text the page hands to the clipboard (and still copies it).
async fn record_clipboard(browser: &Browser) {
    browser
        .js("window.__copied = []; const write = navigator.clipboard.writeText.bind(navigator.clipboard); \
             navigator.clipboard.writeText = t => { window.__copied.push(t); return write(t); };")
        .await;
}

/// The text the last action copied: what reached the clipboard when the page
/// confirms "Copied!", else the selected fallback text it shows.
async fn copied_text(browser: &Browser) -> String {
    browser
        .wait_until("a confirmation", || async {
            !browser.text("share-status").await.is_empty()
        })
        .await;
    let status = browser.text("share-status").await;
    // The confirmation says what was copied ("Link copied.").
    if status.ends_with("copied.") || status.contains("copied as") || status.contains("copied:") {
        let text = browser
            .js("return window.__copied[window.__copied.length - 1]")
            .await;
        return text.as_str().expect("a copied text").to_owned();
    }
    assert!(
        status.starts_with("Copying is not available"),
        "a confirmation or the fallback: {status}"
    );
    browser
        .testid("copy-fallback")
        .await
        .prop("value")
        .await
        .expect("read")
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn copy_link_gives_the_current_state() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url(&format!("/?{Q}"))).await;
    browser.type_into("batch", "6").await;
    record_clipboard(&browser).await;
    browser.click("copy-link").await;
    let link = copied_text(&browser).await;
    let parsed = query::parse(&link);
    assert_eq!(parsed.problems, [], "{link}");
    assert_eq!(
        parsed.config,
        query::parse(Q).config.with_batch(6),
        "{link}"
    );

    // Without a clipboard (an insecure context), the link is shown selected instead.
    browser
        .js("Object.defineProperty(navigator, 'clipboard', { value: undefined })")
        .await;
    browser.click("copy-link").await;
    browser
        .wait_until("the fallback", || async {
            browser
                .text("share-status")
                .await
                .starts_with("Copying is not available")
        })
        .await;
    let shown = browser
        .testid("copy-fallback")
        .await
        .prop("value")
        .await
        .expect("read")
        .unwrap_or_default();
    assert_eq!(query::parse(&shown).config, parsed.config, "{shown}");
    let selected = browser.js("const a = document.querySelector('[data-testid=copy-fallback]'); return a.selectionEnd - a.selectionStart").await;
    assert_eq!(
        selected.as_u64(),
        Some(shown.len() as u64),
        "the fallback text is selected"
    );
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_csv_download_holds_the_sweep_in_exact_bytes() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url(&format!("/?{Q}"))).await;
    // Capture the Blob the page hands to the download link.
    browser
        .js("window.__blobs = []; const create = URL.createObjectURL; URL.createObjectURL = b => { window.__blobs.push(b); return create(b); };")
        .await;
    browser.click("download-csv").await;
    // The CSV is written by the export chunk, fetched at the first click.
    browser
        .wait_until("the CSV's blob", || async {
            browser.js("return window.__blobs.length").await.as_u64() == Some(1)
        })
        .await;
    let csv = browser
        .client
        .execute_async("window.__blobs[0].text().then(arguments[0])", vec![])
        .await
        .expect("read the blob");
    let config = query::parse(Q).config;
    let mut expected = String::from(
        "\"Batch size\",\"Model states at the peak (bytes)\",\"Activations (bytes)\",\"Peak allocated (bytes)\",\"Required (bytes)\"\n",
    );
    for row in memory::sweep(&config) {
        expected.push_str(&format!(
            "{},{},{},{},{}\n",
            row.batch, row.model_states, row.activations, row.total, row.required
        ));
    }
    assert_eq!(csv.as_str(), Some(expected.as_str()));
    assert_eq!(browser.text("share-status").await, "Downloaded.");
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn copy_table_and_embed_snippet() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url(&format!("/?{Q}"))).await;
    record_clipboard(&browser).await;
    browser.click("copy-table").await;
    let table = copied_text(&browser).await;
    let rows = memory::sweep(&query::parse(Q).config).len();
    assert_eq!(table.lines().count(), rows + 2, "{table}");
    assert!(
        table.starts_with(
            "| Batch size | Model states at the peak | Activations | Peak allocated | Required |"
        ),
        "{table}"
    );

    browser.click("embed").await;
    let snippet = browser
        .testid("embed-snippet")
        .await
        .prop("value")
        .await
        .expect("read")
        .unwrap_or_default();
    assert!(
        snippet.starts_with("<iframe id=\"batchfit\" src=\"http://127.0.0.1:"),
        "{snippet}"
    );
    assert!(
        snippet.contains("addEventListener(\"message\"") && snippet.contains("batchfit:resize"),
        "the snippet sizes its frame: {snippet}"
    );
    assert!(
        snippet.contains("embed=1") && snippet.contains("params=7B"),
        "{snippet}"
    );
    // The answer alone: the compact embed's address, in a shorter frame.
    browser.click("embed-compact").await;
    browser
        .wait_until("the compact snippet copied", || async {
            browser
                .js("const c = window.__copied || []; return c.length > 0 && c[c.length - 1].includes('embed=compact')")
                .await
                == serde_json::json!(true)
        })
        .await;
    let compact = browser
        .js("return window.__copied[window.__copied.length - 1]")
        .await
        .as_str()
        .expect("a copied text")
        .to_owned();
    assert!(
        compact.contains("embed=compact") && compact.contains("params=7B"),
        "{compact}"
    );
    assert!(compact.contains("height=\"360\""), "{compact}");
    browser.close().await;
}
