//! The two canvases: crisp on high-DPI screens (pixels = CSS size × devicePixelRatio),
//! redrawn at the new size when resized, and described in words for screen readers;
//! and the breakdown bar, markup whose segments are the core's terms on one axis.

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
    for chart in ["timeline-chart", "sweep-chart"] {
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
    desktop
        .js("document.querySelector('[data-testid=sweep-chart]').scrollIntoView()")
        .await;
    desktop
        .wait_until("the sweep drawn", || async {
            let p = pixels(&desktop, "sweep-chart").await;
            p[0] > 0 && p[0] == p[1]
        })
        .await;
    let wide = pixels(&desktop, "sweep-chart").await;
    desktop
        .client
        .set_window_size(900, 900)
        .await
        .expect("resize");
    desktop
        .wait_until("the sweep redrawn at its new width", || async {
            let p = pixels(&desktop, "sweep-chart").await;
            (p[0] - p[1]).abs() <= 1 && p[0] != wide[0]
        })
        .await;
    desktop.close().await;
}

/// The bar and the sweep are images for a screen reader, described with
/// their numbers.
#[tokio::test(flavor = "multi_thread")]
async fn charts_are_images_described_with_their_numbers() {
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
        .js("document.querySelector('[data-testid=sweep-chart]').scrollIntoView()")
        .await;
    browser
        .wait_until("the sweep drawn", || async {
            browser
                .js(
                    "const c = document.querySelector('[data-testid=sweep-chart]'); \
                     const blank = document.createElement('canvas'); \
                     blank.width = c.width; blank.height = c.height; \
                     return c.toDataURL() !== blank.toDataURL()",
                )
                .await
                == true
        })
        .await;
    let before = image(&browser, "sweep-chart").await;
    // Typing scrolls to the field, and a chart far from the screen waits:
    // back to it, as a reader would.
    let back = "document.querySelector('[data-testid=sweep-chart]').scrollIntoView()";
    browser.type_into("batch", "16").await;
    browser.js(back).await;
    browser
        .wait_until("the sweep redrawn for batch 16", || async {
            image(&browser, "sweep-chart").await != before
        })
        .await;
    // The canvas keeps its size, so the bitmap is not reset: the same data
    // must give the same pixels, with no trace of the batch-16 drawing.
    browser.type_into("batch", "8").await;
    browser.js(back).await;
    browser
        .wait_until("the sweep drawn as before", || async {
            image(&browser, "sweep-chart").await == before
        })
        .await;
    browser.close().await;
}

/// The breakdown bar's segments are the core's terms, in the table's
/// order, each as wide on screen as its bytes' share of the axis; the
/// device's line sits where its usable bytes fall on the same axis. At a
/// phone's width as at a desktop's, in either units.
#[tokio::test(flavor = "multi_thread")]
async fn the_bar_s_segments_are_the_core_s_terms_on_one_axis() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    for (width, query) in [
        (1280, "form=transformer&model=llama-3.1-8b&gpu=h100-80gb"),
        (
            375,
            "form=parameters&params=7B&precision=bf16&optimizer=adamw&batch=8&act_mb=1200&gpu=h100-80gb&units=binary",
        ),
    ] {
        let browser = Browser::start(width, 900).await;
        browser.open(&server.url(&format!("/?{query}"))).await;
        browser.testid("required").await;
        let config = batchfit_core::query::parse(query).config;
        let e = batchfit_core::memory::estimate(&config);
        let read = browser
            .js("const plot = document.querySelector('[data-testid=breakdown-chart]'); \
                 const box = plot.getBoundingClientRect(); \
                 const line = plot.querySelector('[data-testid=bar-capacity]').getBoundingClientRect(); \
                 return [box.width, line.left - box.left, \
                   [...plot.querySelectorAll('.bar-segments > span')].map(s => \
                     [s.className, s.dataset.bytes, s.getBoundingClientRect().width])]")
            .await;
        let plot = read[0].as_f64().expect("a width");
        let segments = read[2].as_array().expect("segments");
        let expected: Vec<_> = e.bar().into_iter().filter(|&(_, b)| b > 0).collect();
        assert_eq!(segments.len(), expected.len(), "{query}: {read}");
        let device = config.device.expect("a device").usable_bytes();
        let most = e.required.max(device);
        let axis = (most + most / 20) as f64;
        for (segment, (component, bytes)) in segments.iter().zip(&expected) {
            let class = segment[0].as_str().expect("a class");
            assert!(
                class.starts_with("c-"),
                "{query}: {class} for {component:?}"
            );
            assert_eq!(segment[1], bytes.to_string(), "{query}: {component:?}");
            let share = segment[2].as_f64().expect("a width") / plot;
            assert!(
                (share - *bytes as f64 / axis).abs() < 0.01,
                "{query}: {component:?} takes {share} of the axis"
            );
        }
        let line = read[1].as_f64().expect("the line") / plot;
        assert!(
            (line - device as f64 / axis).abs() < 0.01,
            "{query}: the device's line at {line}"
        );
        browser.close().await;
    }
}
