//! The two canvases: crisp on high-DPI screens (pixels = CSS size × devicePixelRatio),
//! redrawn at the new size when resized, and described in words for screen readers.

use batchfit_e2e::{Browser, StaticServer, dist_dir};

const Q: &str =
    "/?form=parameters&params=7B&precision=bf16&optimizer=adamw&batch=8&act_mb=1200&gpu=h100-80gb";

/// `[canvas.width, clientWidth × dpr, canvas.height, clientHeight × dpr]` for a chart.
async fn pixels(browser: &Browser, testid: &str) -> Vec<i64> {
    let sizes = browser
        .js(&format!(
            "const c = document.querySelector('[data-testid={testid}]'); const r = devicePixelRatio; \
             const b = c.getBoundingClientRect(); \
             return [c.width, Math.round(b.width * r), c.height, Math.round(b.height * r)]"
        ))
        .await;
    sizes
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_i64().unwrap_or(-1))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn canvases_match_device_pixels_and_follow_resizes() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    // A phone at devicePixelRatio 2.
    let phone = Browser::start(375, 800).await;
    phone.open(&server.url(Q)).await;
    phone.testid("required").await;
    assert_eq!(phone.js("return devicePixelRatio").await, 2.0);
    for chart in ["breakdown-chart", "sweep-chart"] {
        // A chart is drawn once it comes near the viewport (its code is a
        // chunk fetched then): scrolled to, as a reader would.
        phone
            .js(&format!(
                "document.querySelector('[data-testid={chart}]').scrollIntoView()"
            ))
            .await;
        phone
            .wait_until("the chart drawn at the device's pixels", || async {
                let p = pixels(&phone, chart).await;
                p[0] > 0 && p[0] == p[1] && p[2] == p[3]
            })
            .await;
    }
    phone.close().await;

    let desktop = Browser::start(1280, 900).await;
    desktop.open(&server.url(Q)).await;
    desktop.testid("required").await;
    let wide = pixels(&desktop, "breakdown-chart").await;
    desktop
        .client
        .set_window_size(900, 900)
        .await
        .expect("resize");
    desktop
        .wait_until("the breakdown redrawn at its new width", || async {
            let p = pixels(&desktop, "breakdown-chart").await;
            (p[0] - p[1]).abs() <= 1 && p[0] != wide[0]
        })
        .await;
    desktop.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn canvases_are_images_described_with_their_numbers() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url(Q)).await;
    let bar = browser.testid("breakdown-chart").await;
    assert_eq!(
        bar.attr("role").await.expect("attr").as_deref(),
        Some("img")
    );
    let label = bar
        .attr("aria-label")
        .await
        .expect("attr")
        .unwrap_or_default();
    assert!(
        label.contains("Weights 14.0 GB") && label.contains("Optimizer states 56.0 GB"),
        "{label}"
    );
    let sweep = browser.testid("sweep-chart").await;
    assert_eq!(
        sweep.attr("role").await.expect("attr").as_deref(),
        Some("img")
    );
    let label = sweep
        .attr("aria-label")
        .await
        .expect("attr")
        .unwrap_or_default();
    let config = batchfit_core::query::parse(Q.trim_start_matches("/?")).config;
    let row = batchfit_core::memory::sweep(&config)
        .into_iter()
        .find(|r| r.batch == 8)
        .expect("batch 8");
    let gb = row.required as f64 / 1e9;
    assert!(
        label.contains(&format!("8 → {gb:.0} GB")),
        "{label} (batch 8 needs {gb} GB)"
    );
    browser.close().await;
}

/// The chart's pixels, as a PNG data URL.
async fn image(browser: &Browser, testid: &str) -> String {
    let url = browser
        .js(&format!(
            "return document.querySelector('[data-testid={testid}]').toDataURL()"
        ))
        .await;
    url.as_str().expect("a data URL").to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redraw_leaves_nothing_of_the_drawing_before() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let browser = Browser::start(1280, 900).await;
    browser.open(&server.url(Q)).await;
    browser.testid("required").await;
    browser
        .wait_until("the breakdown drawn", || async {
            browser
                .js(
                    "const c = document.querySelector('[data-testid=breakdown-chart]'); \
                     const blank = document.createElement('canvas'); \
                     blank.width = c.width; blank.height = c.height; \
                     return c.toDataURL() !== blank.toDataURL()",
                )
                .await
                == true
        })
        .await;
    let before = image(&browser, "breakdown-chart").await;
    browser.type_into("batch", "16").await;
    browser
        .wait_until("the breakdown redrawn for batch 16", || async {
            image(&browser, "breakdown-chart").await != before
        })
        .await;
    // The canvas keeps its size, so the bitmap is not reset: the same data
    // must give the same pixels, with no trace of the batch-16 drawing.
    browser.type_into("batch", "8").await;
    browser
        .wait_until("the breakdown drawn as before", || async {
            image(&browser, "breakdown-chart").await == before
        })
        .await;
    browser.close().await;
}
