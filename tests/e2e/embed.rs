//! The compact widget inside an iframe on another origin, served from a sub-path:
//! it renders, posts its height to the host, and has no top bar or FAQ.

use batchfit_e2e::{Browser, StaticServer, dist_dir};

/// A host page on another origin (another port) whose frame shows `src`,
/// `width` px wide, sized by the widget's height messages, which it keeps in
/// `window.__messages`.
fn host_page(name: &str, src: &str, width: u32) -> StaticServer {
    let host_dir = std::env::temp_dir().join(format!("batchfit-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&host_dir).expect("host dir");
    std::fs::write(
        host_dir.join("index.html"),
        format!(
            "<!doctype html><title>host</title><script>window.__messages = [];\
             addEventListener('message', e => {{ if (e.data && e.data.type === 'batchfit:resize') {{ \
             window.__messages.push(e.data); document.getElementById('f').style.height = e.data.height + 'px'; }} }});</script>\
             <iframe id=f src=\"{src}\" style=\"width:{width}px;border:0\"></iframe>"
        ),
    )
    .expect("write host page");
    StaticServer::start(host_dir, &["/"])
}

/// The height the host gave the frame `id` (CSS px), once it is above
/// `above`: the host's listener has taken the widget's message.
async fn frame_height_above(browser: &Browser, id: &str, above: f64) -> f64 {
    let height = format!("return parseFloat(document.getElementById('{id}').style.height || '0')");
    browser
        .wait_until(&format!("the frame's height above {above} px"), || async {
            browser.js(&height).await.as_f64().unwrap_or(0.0) > above
        })
        .await;
    browser.js(&height).await.as_f64().expect("a height")
}

/// Into the host page's frame, once the widget's headline is there.
async fn enter_the_answer(browser: &Browser) {
    browser
        .client
        .enter_frame(0)
        .await
        .expect("enter the iframe");
    browser.testid("headline").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn embedded_on_another_origin_it_works_and_reports_its_height() {
    let app = StaticServer::start(dist_dir(), &["/docs/tools/batchfit/"]);
    let src = app.url("/docs/tools/batchfit/?form=parameters&params=7B&precision=bf16&optimizer=adamw&batch=4&act_mb=800&gpu=h100-80gb&embed=1");
    let host = host_page("host", &src, 420);
    let browser = Browser::start(1000, 900).await;
    browser.open(&host.url("/")).await;
    browser
        .wait_until("a resize message from the widget", || async {
            browser
                .js("return window.__messages.length")
                .await
                .as_u64()
                .unwrap_or(0)
                > 0
        })
        .await;
    let message = browser
        .js("return window.__messages[window.__messages.length - 1]")
        .await;
    let keys: Vec<&String> = message.as_object().expect("an object").keys().collect();
    assert_eq!(
        keys,
        ["height", "type"],
        "the message carries only its type and a height"
    );
    let height = message["height"].as_f64().expect("a number");
    assert!(height > 200.0, "a real height: {height}");

    browser
        .client
        .enter_frame(0)
        .await
        .expect("enter the iframe");
    assert_eq!(browser.bytes("weights").await, 14_000_000_000);
    let chrome = browser
        .js("return [document.querySelector('.top-bar'), document.querySelector('.explain'), document.querySelector('[data-testid=sweep]')].every(x => x === null)")
        .await;
    assert_eq!(chrome, true, "embed mode has no top bar, FAQ or sweep");
    let full = browser
        .js("return document.querySelector('.open-full a').href")
        .await;
    let full = full.as_str().expect("a link");
    assert!(
        full.contains("/docs/tools/batchfit/?") && !full.contains("embed=1"),
        "{full}"
    );
    // The link follows edits made in the widget, at once.
    browser.type_into("batch", "3").await;
    browser
        .wait_until("the full calculator's link to carry batch=3", || async {
            let href = browser
                .js("return document.querySelector('.open-full a').href")
                .await;
            href.as_str().is_some_and(|h| {
                h.contains("/docs/tools/batchfit/?")
                    && h.contains("batch=3")
                    && !h.contains("embed=1")
            })
        })
        .await;
    browser.close().await;
}

/// The Embed button's own snippet, pasted into a host page on another origin
/// in a 900 px docs column: the frame sizes itself from the widget's message,
/// and the answer is within the first 720 px of the frame (below 960 px the
/// embed puts its results before its inputs).
#[tokio::test(flavor = "multi_thread")]
async fn the_embed_buttons_snippet_sizes_its_frame_and_shows_the_answer_first() {
    let app = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser
        .open(&app.url("/?form=transformer&model=llama-3.1-8b&batch=2&seq=2048&gpu=h100-80gb"))
        .await;
    browser.click("embed").await;
    let snippet = browser
        .testid("embed-snippet")
        .await
        .prop("value")
        .await
        .expect("read")
        .unwrap_or_default();
    assert!(
        snippet.contains("<script>") && snippet.contains("id=\"batchfit\""),
        "{snippet}"
    );
    let host_dir = std::env::temp_dir().join(format!("batchfit-snippet-{}", std::process::id()));
    std::fs::create_dir_all(&host_dir).expect("host dir");
    std::fs::write(
        host_dir.join("index.html"),
        format!(
            "<!doctype html><title>docs</title><body style=\"margin:0\">\
             <main style=\"width:900px\">{snippet}</main></body>"
        ),
    )
    .expect("write host page");
    let host = StaticServer::start(host_dir, &["/"]);
    browser.open(&host.url("/")).await;
    frame_height_above(&browser, "batchfit", 720.0).await;
    enter_the_answer(&browser).await;
    let top = browser
        .js("return document.querySelector('[data-testid=headline]').getBoundingClientRect().bottom")
        .await;
    let top = top.as_f64().expect("a position");
    assert!(top < 720.0, "the headline ends {top} px down the frame");
    browser.close().await;
}

/// `embed=compact` in a docs column on another origin: the answer alone
/// (headline with its verdict, the bar, a link to the full calculator),
/// before and after the app arrives, in a frame that sizes itself to it.
#[tokio::test(flavor = "multi_thread")]
async fn the_compact_embed_is_the_answer_alone_in_a_small_frame() {
    let app = StaticServer::start(dist_dir(), &["/"]);
    let query = "form=transformer&model=llama-3.1-8b&batch=2&seq=2048&gpu=h100-80gb";
    let src = app.url(&format!("/?{query}&embed=compact"));
    // Before the module: the shell shows no form and no tabs either.
    let browser = Browser::start(1280, 900).await;
    browser.cdp("Network.enable", serde_json::json!({})).await;
    browser
        .cdp(
            "Network.setBlockedURLs",
            serde_json::json!({ "urls": ["*.wasm"] }),
        )
        .await;
    browser.open(&src).await;
    let shell = browser
        .js("const s = document.querySelector('.shell:not([hidden])'); \
             return [!!s, !!s.querySelector('.inputs, .tabs, .top-bar, input, select')]")
        .await;
    assert_eq!(shell, serde_json::json!([true, false]));
    browser.close().await;

    let host = host_page("compact", &src, 360);
    let browser = Browser::start(1000, 900).await;
    browser.open(&host.url("/")).await;
    let height = frame_height_above(&browser, "f", 100.0).await;
    assert!(height < 700.0, "the answer alone is {height} px tall");
    enter_the_answer(&browser).await;
    let parts = browser
        .js(
            "return [document.querySelectorAll('input, select, .tabs, .top-bar, .sweep').length, \
                    document.querySelectorAll('.bar-legend [data-bytes]').length > 2, \
                    document.querySelector('.open-full a').href]",
        )
        .await;
    assert_eq!(parts[0], serde_json::json!(0), "{parts}");
    assert_eq!(parts[1], serde_json::json!(true), "{parts}");
    let link = parts[2].as_str().unwrap_or_default();
    assert!(link.ends_with(&format!("?{query}")), "{link}");
    browser.close().await;
}
