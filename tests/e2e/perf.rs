//! The browser budgets of issue 6, measured on the release build: the time from
//! navigation start to the first estimate in the DOM over 20 cold loads, and the
//! main-thread cost of one edit over 200 edits. Ignored by default (timings are
//! noisy); `cargo xtask bench` runs them with `-- --ignored` and reads the figures
//! from the JSON file named by `BATCHFIT_PERF_OUT`.

use std::time::Duration;

use batchfit_e2e::{Browser, DevTools, StaticServer, Tab, dist_dir};
use serde_json::{Value, json};

/// The heaviest page state people open: a preset with every term, a device (so
/// the largest batch that fits is searched and the sweep runs up to it), both
/// charts and the sweep table.
const PAGE: &str = "/?form=transformer&model=llama-3.1-8b&gpu=h100-80gb";
const COLD_LOADS: usize = 20;
const EDITS: usize = 200;
/// The mark the app sets once the first result is in the DOM.
const FIRST_ESTIMATE: &str = "batchfit:first-estimate";
/// Decoders of about the page's preset's size, in turn (the page opens on
/// llama-3.1-8b, so each differs from the one before). Not a ViT: its sequence
/// comes from the image, and the next `seq` edit would change nothing.
const MODELS: [&str; 4] = ["llama-2-7b", "qwen2.5-7b", "mistral-7b", "llama-3.1-8b"];

/// One edit, timed in the page: set the field, dispatch the event a user's edit
/// fires, let everything it scheduled run (microtasks first, then this
/// MessageChannel macrotask), force layout, stop the clock. Measures the work,
/// not the display's frame cadence. Also returns the activations' bytes before and
/// after, to prove the edit was handled inside the measured window.
const EDIT_SCRIPT: &str = r#"
const [name, value, done] = arguments;
const field = document.querySelector(`[name="${name}"]`);
const shown = () => document.querySelector('[data-testid="activations"]')?.getAttribute('data-bytes');
const before = shown();
const t0 = performance.now();
field.value = value;
field.dispatchEvent(new Event(field.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
const channel = new MessageChannel();
channel.port1.onmessage = () => {
  document.body.getBoundingClientRect();
  const ms = performance.now() - t0;
  done({ ms, before, after: shown() });
};
channel.port2.postMessage(null);
"#;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "timing: run by `cargo xtask bench`"]
async fn first_estimate_and_edit_cost() {
    let server = StaticServer::start(dist_dir(), &["/"]);
    let url = server.url(PAGE);

    let mut cold_load_ms = Vec::with_capacity(COLD_LOADS);
    for _ in 0..COLD_LOADS {
        // A fresh session each time: a new profile, so no HTTP or compiled-WASM cache.
        let browser = Browser::start(1280, 900).await;
        browser.open(&url).await;
        cold_load_ms.push(first_estimate_ms(&browser).await);
        browser.close().await;
    }

    let browser = Browser::start(1280, 900).await;
    browser.open(&url).await;
    browser.bytes("total").await;
    // Every chart drawn before the edits, as after a reader's scroll: a chart
    // is first drawn near the viewport (its code is a chunk), and redrawn by
    // every edit from then on.
    for chart in ["timeline-chart", "sweep-chart"] {
        browser
            .js(&format!(
                "document.querySelector('[data-testid={chart}]').scrollIntoView()"
            ))
            .await;
        browser
            .wait_until("the chart drawn", || async {
                browser
                    .js(&format!(
                        "const c = document.querySelector('[data-testid={chart}]'); \
                         return c.width === Math.round(c.getBoundingClientRect().width * devicePixelRatio)"
                    ))
                    .await
                    == json!(true)
            })
            .await;
    }
    browser.js("window.scrollTo(0, 0)").await;
    let offered = model_options(&browser).await;
    for model in MODELS {
        assert!(
            offered.iter().any(|o| o == model),
            "the model select has no {model}"
        );
    }
    let before = browser.metrics().await;
    let mut edit_ms = Vec::with_capacity(EDITS);
    let mut by_field: [(&str, Vec<f64>); 3] = [
        ("batch", Vec::new()),
        ("seq", Vec::new()),
        ("model", Vec::new()),
    ];
    for i in 0..EDITS {
        // Batch, sequence and model in turn; each value differs from the field's
        // previous one, so every edit changes the activations (the peak itself
        // may not move: at small batches the optimizer step can set it).
        let round = i / 3;
        let (name, value) = match i % 3 {
            0 => (
                "batch",
                ["1", "2", "4", "8", "3", "6"][round % 6].to_owned(),
            ),
            1 => ("seq", ["1024", "4096", "512", "8192"][round % 4].to_owned()),
            _ => ("model", MODELS[round % MODELS.len()].to_owned()),
        };
        let result = browser
            .client
            .execute_async(EDIT_SCRIPT, vec![json!(name), json!(value)])
            .await
            .unwrap_or_else(|e| panic!("edit {i} ({name}={value}): {e}"));
        let ms = result["ms"].as_f64().expect("a time in ms");
        assert_ne!(
            result["before"], result["after"],
            "edit {i} ({name}={value}) did not change the activations before the next macrotask: \
             the measure would time nothing"
        );
        edit_ms.push(ms);
        by_field[i % 3].1.push(ms);
    }
    // Where the edits' main-thread time went, by Chromium's own counters: the
    // difference over the edits, per edit.
    let after = browser.metrics().await;
    browser.close().await;
    let per_edit = |name: &str| {
        let read = |metrics: &[(String, f64)]| {
            metrics
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| panic!("Chromium reports no {name}"))
        };
        (read(&after) - read(&before)) / EDITS as f64
    };
    let main_thread: serde_json::Map<String, Value> = [
        ("task_ms", per_edit("TaskDuration") * 1000.0),
        ("script_ms", per_edit("ScriptDuration") * 1000.0),
        ("layout_ms", per_edit("LayoutDuration") * 1000.0),
        ("style_ms", per_edit("RecalcStyleDuration") * 1000.0),
        ("layouts", per_edit("LayoutCount")),
        ("style_recalcs", per_edit("RecalcStyleCount")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), json!(v)))
    .collect();

    let figures = json!({
        "edit_main_thread": main_thread,
        "page": PAGE,
        "cold_load_ms": cold_load_ms,
        "cold_load_median_ms": percentile(&cold_load_ms, 50.0),
        "edit_ms": edit_ms,
        "edit_median_ms": percentile(&edit_ms, 50.0),
        "edit_p95_ms": percentile(&edit_ms, 95.0),
        // Which kind of edit costs what, for whoever has to make it cheaper.
        "edit_by_field": by_field
            .iter()
            .map(|(name, ms)| (name.to_string(), json!({
                "median_ms": percentile(ms, 50.0),
                "p95_ms": percentile(ms, 95.0),
            })))
            .collect::<serde_json::Map<String, Value>>(),
    });
    println!(
        "cold load median {:.1} ms, edit median {:.2} ms, p95 {:.2} ms",
        figures["cold_load_median_ms"], figures["edit_median_ms"], figures["edit_p95_ms"]
    );
    if let Some(out) = std::env::var_os("BATCHFIT_PERF_OUT") {
        std::fs::write(&out, figures.to_string())
            .unwrap_or_else(|e| panic!("write {}: {e}", out.to_string_lossy()));
    }
}

/// Waits for the app's mark and returns its time from navigation start.
async fn first_estimate_ms(browser: &Browser) -> f64 {
    let script = format!(
        "const mark = performance.getEntriesByName('{FIRST_ESTIMATE}')[0]; \
         return mark ? mark.startTime : null;"
    );
    for _ in 0..400 {
        let value = browser
            .client
            .execute(&script, vec![])
            .await
            .expect("read the performance mark");
        if let Value::Number(ms) = value {
            return ms.as_f64().expect("a time in ms");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the page set no performance.mark('{FIRST_ESTIMATE}') within 20 s");
}

/// The values the `model` select offers.
async fn model_options(browser: &Browser) -> Vec<String> {
    let value = browser
        .client
        .execute(
            "return Array.from(document.querySelector('select[name=\"model\"]').options, \
             o => o.value);",
            vec![],
        )
        .await
        .expect("read the model options");
    value
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// The nearest-rank percentile: a value that was measured, never interpolated.
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Loads per site and network profile in the side-by-side benchmark.
const SIDE_BY_SIDE_LOADS: usize = 15;

/// A network and CPU profile of the side-by-side benchmark.
struct Profile {
    name: &'static str,
    /// Chromium's network emulation: bytes per second down and up, and the
    /// latency per request in ms, from sending it to the response's headers.
    /// `None`: none.
    network: Option<(u32, u32)>,
    /// Chromium's CPU throttling rate (`Emulation.setCPUThrottlingRate`: 4
    /// runs the page's main thread four times slower); `None`: none.
    cpu_slowdown: Option<u32>,
}

/// The profiles: issue 17's two (10 Mbit/s is 1,250,000 bytes per second),
/// and issue 31's phone (1.6 Mbit/s is 200,000 bytes per second).
const PROFILES: [Profile; 3] = [
    Profile {
        name: "unthrottled",
        network: None,
        cpu_slowdown: None,
    },
    Profile {
        name: "10 Mbit/s, 40 ms",
        network: Some((1_250_000, 40)),
        cpu_slowdown: None,
    },
    Profile {
        name: "phone: 4× CPU slowdown, 1.6 Mbit/s, 150 ms",
        network: Some((200_000, 150)),
        cpu_slowdown: Some(4),
    },
];
/// batchfit's first answer: the results' headline with the required memory,
/// which the module writes into the shell before it builds the interface
/// (issue 31; the app's own headline where no answer can stand in the shell).
/// Outside a hidden subtree: index.html holds the first screen's answer in
/// a shell that stays hidden, and is removed, on any other address.
const BATCHFIT_ANSWER: &str = ".results .headline:not([hidden] *)";

/// Installed before navigation (`Page.addScriptToEvaluateOnNewDocument`), so it
/// sees the document from its first node: `input` is when a form input first
/// became visible (batchfit: boot.js shows the shell; gpu_poor: React renders
/// its form), `paint` the frame after it (requestAnimationFrame runs when the
/// browser is about to paint, and never while a render-blocking style sheet
/// is loading), `answer` when the selector `ANSWER` (if any) first matched.
const OBSERVER: &str = r#"
(() => {
  const load = { input: null, paint: null, answer: null };
  Object.defineProperty(window, '__load', { value: load });
  const answer = ANSWER;
  const seen = () => {
    const now = performance.now();
    // One style query at most per callback: the first field outside a
    // hidden subtree (batchfit's shells are hidden until boot.js picks one).
    const field = load.input === null
      && document.querySelector('input:not([hidden] *), select:not([hidden] *)');
    if (field && field.checkVisibility()) {
      load.input = now;
      requestAnimationFrame(() => { load.paint = performance.now(); });
    }
    if (answer && load.answer === null && document.querySelector(answer)) load.answer = now;
  };
  new MutationObserver(seen).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['hidden', 'class', 'style'],
  });
})();
"#;

/// One site of the side-by-side benchmark.
struct Site {
    name: &'static str,
    url: String,
    /// `None`: its answer is its form appearing (gpu_poor's is empty at first).
    answer: Option<&'static str>,
}

/// How fresh each load's browser is.
#[derive(Clone, Copy)]
enum Fresh {
    /// A new browser context (its own HTTP and code cache, as an incognito
    /// window) in one headless Chromium kept running: issue 17's method.
    Context,
    /// A new headless Chromium with a new profile, started for the load: its
    /// start-up shares the machine with the load's first frames.
    Browser,
}

impl Fresh {
    fn name(self) -> &'static str {
        match self {
            Fresh::Context => "context",
            Fresh::Browser => "browser",
        }
    }
}

/// First paint and first answer of batchfit and, when `BATCHFIT_GPU_POOR`
/// names gpu_poor's built site (its `docs/`), of gpu_poor, both served gzipped
/// from 127.0.0.1, the sites interleaved, in each network profile, each load
/// once in a fresh browser context and once in a fresh browser. Figures to the
/// JSON file `BATCHFIT_LOADS_OUT`. `BATCHFIT_COMPARE_DIST` adds another build
/// of batchfit to the rotation.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "timing: run by `cargo xtask bench`"]
async fn first_paint_and_answer_beside_gpu_poor() {
    let ours = StaticServer::start_gzip(dist_dir(), &["/"]);
    let mut sites = vec![Site {
        name: "batchfit",
        url: ours.url(PAGE),
        answer: Some(BATCHFIT_ANSWER),
    }];
    let peer = std::env::var_os("BATCHFIT_GPU_POOR").map(std::path::PathBuf::from);
    let _peer_server = peer.map(|dir| {
        assert!(
            dir.join("index.html").is_file(),
            "no gpu_poor site at {}",
            dir.display()
        );
        // Its build names its files under /gpu_poor/ (its GitHub Pages path).
        let server = StaticServer::start_gzip(dir, &["/gpu_poor/"]);
        sites.push(Site {
            name: "gpu_poor",
            url: server.url("/gpu_poor/"),
            answer: None,
        });
        server
    });
    // Another build of batchfit, interleaved with this one: how a change is
    // measured for docs/performance-log.md.
    let _other_server = std::env::var_os("BATCHFIT_COMPARE_DIST").map(|dir| {
        let server = StaticServer::start_gzip(dir.into(), &["/"]);
        sites.push(Site {
            name: "batchfit (BATCHFIT_COMPARE_DIST)",
            url: server.url(PAGE),
            answer: Some(BATCHFIT_ANSWER),
        });
        server
    });
    // The DevTools client blocks; this flavour of runtime lets it.
    let mut devtools = tokio::task::block_in_place(|| DevTools::start(1280, 900));
    // One load of each first: the server compresses each file once, and the
    // browser's own first page is behind it. Then, once each, everything the
    // page fetches without a user action (issue 31's budget).
    let unthrottled = &PROFILES[0];
    let mut fetched = serde_json::Map::new();
    for site in &sites {
        tokio::task::block_in_place(|| one_load_in_context(&mut devtools, site, unthrottled));
        let bytes = tokio::task::block_in_place(|| settled_bytes(&mut devtools, site));
        println!("{}: {bytes} bytes fetched without a user action", site.name);
        fetched.insert(site.name.to_owned(), json!(bytes));
    }
    let mut profiles = Vec::new();
    for profile in &PROFILES {
        for fresh in [Fresh::Context, Fresh::Browser] {
            let mut figures: Vec<[Vec<f64>; 4]> =
                sites.iter().map(|_| Default::default()).collect();
            for _ in 0..SIDE_BY_SIDE_LOADS {
                for (site, [paint, answer, fcp, bytes]) in sites.iter().zip(&mut figures) {
                    let load = match fresh {
                        Fresh::Context => tokio::task::block_in_place(|| {
                            one_load_in_context(&mut devtools, site, profile)
                        }),
                        Fresh::Browser => one_load_in_browser(site, profile).await,
                    };
                    paint.push(load.paint);
                    answer.push(load.answer);
                    fcp.push(load.first_contentful_paint);
                    bytes.push(load.bytes_before_answer);
                }
            }
            let by_site: serde_json::Map<String, Value> = sites
                .iter()
                .zip(&figures)
                .map(|(site, [paint, answer, fcp, bytes])| {
                    let figures = json!({
                        "paint_ms": paint,
                        "answer_ms": answer,
                        "first_contentful_paint_ms": fcp,
                        "bytes_before_answer": bytes,
                        "paint_median_ms": percentile(paint, 50.0),
                        "answer_median_ms": percentile(answer, 50.0),
                        "first_contentful_paint_median_ms": percentile(fcp, 50.0),
                        "bytes_before_answer_median": percentile(bytes, 50.0),
                    });
                    println!(
                        "{}, a fresh {}: {} first paint {:.1} ms, first answer {:.1} ms \
                         after {} bytes (medians of {})",
                        profile.name,
                        fresh.name(),
                        site.name,
                        figures["paint_median_ms"],
                        figures["answer_median_ms"],
                        figures["bytes_before_answer_median"],
                        paint.len()
                    );
                    (site.name.to_owned(), figures)
                })
                .collect();
            profiles.push(json!({ "name": profile.name, "fresh": fresh.name(), "sites": by_site }));
        }
    }
    // The cost of fetching the interface at the first action: how long a
    // visitor who acts waits for the controls, in each profile.
    let mut after_action = serde_json::Map::new();
    for profile in &PROFILES {
        let mut times = Vec::new();
        let mut bytes = Vec::new();
        for _ in 0..AFTER_ACTION_LOADS {
            let (ms, fetched) = tokio::task::block_in_place(|| {
                interface_after_action(&mut devtools, &sites[0], profile)
            });
            times.push(ms);
            bytes.push(fetched);
        }
        let figures = json!({
            "interface_ms": times,
            "interface_median_ms": percentile(&times, 50.0),
            "bytes_median": percentile(&bytes, 50.0),
        });
        println!(
            "{}: the interface {:.1} ms after the first action, {} bytes (medians of {})",
            profile.name,
            figures["interface_median_ms"],
            figures["bytes_median"],
            times.len()
        );
        after_action.insert(profile.name.to_owned(), figures);
    }
    let figures = json!({
        "page": PAGE,
        "loads": SIDE_BY_SIDE_LOADS,
        "profiles": profiles,
        "fetched_without_action": fetched,
        "after_action": after_action,
    });
    if let Some(out) = std::env::var_os("BATCHFIT_LOADS_OUT") {
        std::fs::write(&out, figures.to_string())
            .unwrap_or_else(|e| panic!("write {}: {e}", out.to_string_lossy()));
    }
}

/// One load's times from navigation start, in ms, and what it had fetched.
struct Load {
    paint: f64,
    answer: f64,
    first_contentful_paint: f64,
    /// The bodies, as sent (gzipped), of the document and of every resource
    /// whose response had ended when the answer was in the DOM.
    bytes_before_answer: f64,
}

/// The DevTools commands that prepare a load, before navigation: gpu_poor's
/// request to Google's analytics (another origin, not part of either page's
/// own load, and unreachable here) blocked, the profile's network and CPU
/// emulated, the observer installed.
fn before_navigation(site: &Site, profile: &Profile) -> Vec<(&'static str, Value)> {
    let mut commands = vec![
        // The script below is installed only where the Page domain is on.
        ("Page.enable", json!({})),
        ("Network.enable", json!({})),
        (
            "Network.setBlockedURLs",
            json!({ "urls": ["*://www.googletagmanager.com/*"] }),
        ),
    ];
    if let Some(rate) = profile.cpu_slowdown {
        commands.push(("Emulation.setCPUThrottlingRate", json!({ "rate": rate })));
    }
    if let Some((bytes_per_second, latency_ms)) = profile.network {
        commands.push((
            "Network.emulateNetworkConditions",
            json!({
                "offline": false,
                "latency": latency_ms,
                "downloadThroughput": bytes_per_second,
                "uploadThroughput": bytes_per_second,
            }),
        ));
    }
    let answer = site
        .answer
        .map_or("null".to_owned(), |a| json!(a).to_string());
    commands.push((
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": OBSERVER.replace("ANSWER", &answer) }),
    ));
    commands
}

/// The bodies, as sent, of the document and of every resource whose response
/// ended by `t` (ms from navigation start; `Infinity`: all). Same-origin, so
/// Resource Timing gives each body's size; the servers send them gzipped.
const BODIES: &str = "const bodies = (t) => performance.getEntriesByType('navigation') \
     .concat(performance.getEntriesByType('resource')) \
     .filter((e) => e.responseEnd <= t).reduce((sum, e) => sum + e.encodedBodySize, 0);";

/// A function of whether the site has an answer: the load's times and the
/// bytes fetched before its answer once the observer has them all, else `null`.
const READ_LOAD: &str = "(needsAnswer) => { BODIES const l = window.__load; \
     const fcp = performance.getEntriesByName('first-contentful-paint')[0]; \
     const answer = l && (l.answer === null ? l.input : l.answer); \
     return l && l.paint !== null && (l.answer !== null || !needsAnswer) && fcp \
       ? [l.paint, answer, fcp.startTime, bodies(answer)] : null; }";

/// [`READ_LOAD`] as a function expression.
fn read_load_script() -> String {
    READ_LOAD.replace("BODIES", BODIES)
}

/// The times and bytes [`READ_LOAD`] returned, once there.
fn read_load(value: &Value) -> Option<Load> {
    let times = value.as_array()?;
    let [paint, answer, first_contentful_paint, bytes_before_answer] =
        [0, 1, 2, 3].map(|i| times.get(i).and_then(Value::as_f64).unwrap_or(f64::NAN));
    Some(Load {
        paint,
        answer,
        first_contentful_paint,
        bytes_before_answer,
    })
}

/// A new browser context's tab, prepared for `profile`, navigated to `site`.
fn navigate_in_context(devtools: &mut DevTools, site: &Site, profile: &Profile) -> Tab {
    let tab = devtools.new_tab(1280, 900);
    for (method, params) in before_navigation(site, profile) {
        devtools.call(Some(&tab), method, params);
    }
    devtools.call(Some(&tab), "Page.navigate", json!({ "url": site.url }));
    tab
}

/// Everything `site` fetches without a user action, in bytes as sent: a load
/// in a new browser context, unthrottled, read once its answer is in the DOM
/// and no further response has ended for a second (at most 20 s).
fn settled_bytes(devtools: &mut DevTools, site: &Site) -> f64 {
    let tab = navigate_in_context(devtools, site, &PROFILES[0]);
    // Resource Timing lists a request once its response has ended.
    let read = format!(
        "(() => {{ {BODIES} const l = window.__load; \
         return l && l.paint !== null && (l.answer !== null || {}) \
           ? [performance.getEntriesByType('resource').length, bodies(Infinity)] : null; }})()",
        site.answer.is_none()
    );
    let mut last: Option<(f64, u32)> = None;
    for _ in 0..80 {
        std::thread::sleep(Duration::from_millis(250));
        let Some([count, bytes]) = devtools.evaluate(&tab, &read).and_then(|value| {
            let v = value.as_array()?;
            Some([v.first()?.as_f64()?, v.get(1)?.as_f64()?])
        }) else {
            continue;
        };
        last = match last {
            Some((seen, quiet)) if seen == count => {
                if quiet >= 4 {
                    devtools.close_tab(tab);
                    return bytes;
                }
                Some((count, quiet + 1))
            }
            _ => Some((count, 0)),
        };
    }
    panic!("{}: still fetching after 20 s", site.name);
}

/// Loads per profile of the first action's measure.
const AFTER_ACTION_LOADS: usize = 5;

/// The visitor's first action on batchfit's `site`, in a new browser
/// context under `profile`: a key press once the answer is in the DOM and
/// the page has fetched nothing for half a second. Returns the ms from the
/// key's event to the interface's mark (`batchfit:interface`, the app built
/// in place of the shell), and the bytes, as sent, whose responses ended in
/// between.
fn interface_after_action(devtools: &mut DevTools, site: &Site, profile: &Profile) -> (f64, f64) {
    let tab = navigate_in_context(devtools, site, profile);
    let quiet = "(() => { const l = window.__load; const r = performance.getEntriesByType('resource'); \
           return l && l.answer !== null && r.length > 0 \
             && performance.now() - Math.max(...r.map(e => e.responseEnd)) > 500; })()";
    let mut ready = false;
    for _ in 0..400 {
        if devtools.evaluate(&tab, quiet) == Some(json!(true)) {
            ready = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        ready,
        "{}: no answer, or still fetching, after 20 s",
        site.name
    );
    devtools.evaluate(
        &tab,
        "addEventListener('keydown', () => { window.__acted ??= performance.now(); }, true)",
    );
    for kind in ["rawKeyDown", "keyUp"] {
        devtools.call(
            Some(&tab),
            "Input.dispatchKeyEvent",
            json!({ "type": kind, "key": "Shift", "code": "ShiftLeft", "windowsVirtualKeyCode": 16 }),
        );
    }
    let read = format!(
        "(() => {{ {BODIES} const m = performance.getEntriesByName('batchfit:interface')[0]; \
           const a = window.__acted; \
           return m && a ? [m.startTime - a, bodies(m.startTime) - bodies(a)] : null; }})()"
    );
    for _ in 0..600 {
        if let Some([ms, bytes]) = devtools.evaluate(&tab, &read).and_then(|value| {
            let v = value.as_array()?;
            Some([v.first()?.as_f64()?, v.get(1)?.as_f64()?])
        }) {
            devtools.close_tab(tab);
            return (ms, bytes);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "{}: no interface within 30 s of the first action",
        site.name
    );
}

/// Loads `site` in a new browser context of the running browser, under
/// `profile`.
fn one_load_in_context(devtools: &mut DevTools, site: &Site, profile: &Profile) -> Load {
    let tab = navigate_in_context(devtools, site, profile);
    let read = format!("({})({})", read_load_script(), site.answer.is_some());
    for _ in 0..400 {
        // Between the old document and the new one there is no context to
        // evaluate in: that reads as not there yet.
        if let Some(load) = devtools.evaluate(&tab, &read).as_ref().and_then(read_load) {
            devtools.close_tab(tab);
            return load;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let state = devtools.evaluate(
        &tab,
        "JSON.stringify([document.visibilityState, location.href, window.__load])",
    );
    panic!(
        "{}: no first paint and answer within 20 s (the page: {state:?})",
        site.name
    );
}

/// Loads `site` in a fresh browser (a new profile: no cache), under `profile`.
async fn one_load_in_browser(site: &Site, profile: &Profile) -> Load {
    let browser = Browser::start(1280, 900).await;
    for (method, params) in before_navigation(site, profile) {
        browser.cdp(method, params).await;
    }
    browser.open_to_read(&site.url).await;
    let read = format!("return ({})(arguments[0]);", read_load_script());
    for _ in 0..400 {
        let value = browser
            .client
            .execute(&read, vec![json!(site.answer.is_some())])
            .await
            .expect("read the load's times");
        if let Some(load) = read_load(&value) {
            browser.close().await;
            return load;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{}: no first paint and answer within 20 s", site.name);
}
