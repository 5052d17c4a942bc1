//! The end-to-end harness: the built `dist/` served from an in-process static
//! server on 127.0.0.1 (a random free port), and headless Chromium driven through
//! chromedriver (or, for loads in fresh browser contexts, over the DevTools
//! Protocol itself: `devtools.rs`). Tests read the page through `data-testid`
//! hooks only.
//!
//! Environment: `BATCHFIT_DIST` (default `<repo>/dist`), `CHROMEDRIVER` and
//! `CHROMIUM` (default: found on `PATH`). `cargo xtask test` sets all three.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

mod devtools;
pub use devtools::{DevTools, Tab};

/// The built site, or a panic that says how to build it.
pub fn dist_dir() -> PathBuf {
    let dir = std::env::var_os("BATCHFIT_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../dist"));
    assert!(
        dir.join("index.html").is_file(),
        "no built site at {}: run `cargo xtask dist` (or `cargo xtask test`, which does)",
        dir.display()
    );
    dir
}

/// A static file server on 127.0.0.1, serving `root` under every prefix in `mounts`
/// (e.g. `/` and `/some/sub/path/`), so tests can load the site from a sub-path.
#[derive(Debug)]
pub struct StaticServer {
    pub port: u16,
}

/// A test-only script the server can add to `index.html` (a same-origin file, so
/// the page's Content-Security-Policy allows it). It runs before the app and
/// records, in `window.__probe`: CSP violations, console errors and uncaught
/// errors, and the WASM module's memory (for heap-growth checks; found by
/// type, as the module's export names are minified, xtask's `names.rs`).
pub const PROBE: &str = "window.__probe = { csp: [], errors: [], memory: null };\n\
addEventListener('securitypolicyviolation', e => window.__probe.csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample + ' ' + e.sourceFile + ':' + e.lineNumber));\n\
const consoleError = console.error.bind(console);\n\
console.error = (...args) => { window.__probe.errors.push(args.map(String).join(' ')); consoleError(...args); };\n\
addEventListener('error', e => window.__probe.errors.push('uncaught: ' + e.message));\n\
addEventListener('TrunkApplicationStarted', e => { window.__probe.memory = Object.values(e.detail.wasm).find(v => v instanceof WebAssembly.Memory); });\n";

/// The probe's file name, under each mount.
pub const PROBE_FILE: &str = "__probe.js";

impl StaticServer {
    pub fn start(root: PathBuf, mounts: &[&str]) -> Self {
        Self::serve(root, mounts, false, false, None)
    }

    /// Like [`StaticServer::start`], with [`PROBE`] added to every `index.html`.
    pub fn start_with_probe(root: PathBuf, mounts: &[&str]) -> Self {
        Self::serve(root, mounts, true, false, None)
    }

    /// Like [`StaticServer::start_with_probe`], sending each file whose name
    /// starts with `prefix` only after `delay`: a chunk on a slow network.
    pub fn start_delaying(
        root: PathBuf,
        mounts: &[&str],
        prefix: &'static str,
        delay: Duration,
    ) -> Self {
        Self::serve(root, mounts, true, false, Some((prefix, delay)))
    }

    /// Like [`StaticServer::start`], sending every file but images gzipped
    /// (`gzip -9`, as the page weight is measured) to a browser that accepts
    /// it, as static hosts do: for timing loads the way visitors get them.
    pub fn start_gzip(root: PathBuf, mounts: &[&str]) -> Self {
        Self::serve(root, mounts, false, true, None)
    }

    fn serve(
        root: PathBuf,
        mounts: &[&str],
        probe: bool,
        gzip: bool,
        delay: Option<(&'static str, Duration)>,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
        let port = listener.local_addr().expect("local address").port();
        let mounts: Vec<String> = mounts.iter().map(|m| (*m).to_owned()).collect();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, mounts) = (root.clone(), mounts.clone());
                std::thread::spawn(move || serve_one(stream, &root, &mounts, probe, gzip, delay));
            }
        });
        Self { port }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn serve_one(
    mut stream: TcpStream,
    root: &Path,
    mounts: &[String],
    probe: bool,
    gzip: bool,
    delay: Option<(&'static str, Duration)>,
) {
    let mut request_line = String::new();
    let mut reader = BufReader::new(&stream);
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Drain the headers; the server only needs the request line, and
    // whether the browser accepts gzip.
    let mut header = String::new();
    let mut accepts_gzip = false;
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        let line = header.to_ascii_lowercase();
        accepts_gzip |= line.starts_with("accept-encoding:") && line.contains("gzip");
        header.clear();
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let file = mounts
        .iter()
        .filter_map(|mount| path.strip_prefix(mount.as_str()))
        .map(|rest| {
            if rest.is_empty() || rest.ends_with('/') {
                format!("{rest}index.html")
            } else {
                rest.to_owned()
            }
        })
        .map(|rest| root.join(rest))
        .find(|file| is_inside(file, root) && file.is_file());
    let wants_probe = probe && mounts.iter().any(|m| path == format!("{m}{PROBE_FILE}"));
    let file = if wants_probe {
        Some(PathBuf::from(PROBE_FILE))
    } else {
        file
    };
    let read = |f: &Path| -> Option<Vec<u8>> {
        if wants_probe {
            return Some(PROBE.as_bytes().to_vec());
        }
        let body = std::fs::read(f).ok()?;
        if !(probe && f.file_name().is_some_and(|n| n == "index.html")) {
            return Some(body);
        }
        let html = String::from_utf8(body).ok()?;
        let at = html.find("<meta name=\"viewport\"")?;
        let mut html = html;
        html.insert_str(
            at,
            &format!("<script src=\"./{PROBE_FILE}\"></script>\n    "),
        );
        Some(html.into_bytes())
    };
    let response = match file.and_then(|f| read(&f).map(|body| (f, body))) {
        Some((file, body)) => {
            if let Some((prefix, delay)) = delay
                && file
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            {
                std::thread::sleep(delay);
            }
            let compress = gzip && accepts_gzip && !content_type(&file).starts_with("image/");
            let (body, encoding) = match compress.then(|| gzipped(&file, &body)) {
                Some(zipped) => (
                    zipped,
                    "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n",
                ),
                None => (body, ""),
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\n{encoding}Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(&file),
                body.len()
            );
            [head.into_bytes(), body].concat()
        }
        None => {
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()
        }
    };
    let _ = stream.write_all(&response);
}

/// `body` (the content of `file`) compressed by `gzip -9 -n`, once per file
/// for the life of the process: a timed load waits for the network, never
/// for the compressor.
fn gzipped(file: &Path, body: &[u8]) -> Vec<u8> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<PathBuf, Vec<u8>>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(zipped) = cache.lock().expect("the gzip cache").get(file) {
        return zipped.clone();
    }
    let mut child = Command::new("gzip")
        .args(["-c", "-9", "-n"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run gzip");
    let mut stdin = child.stdin.take().expect("gzip's stdin");
    let input = body.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("gzip's output");
    writer.join().expect("the writer").expect("write to gzip");
    assert!(out.status.success(), "gzip {} failed", file.display());
    cache
        .lock()
        .expect("the gzip cache")
        .insert(file.to_owned(), out.stdout.clone());
    out.stdout
}

fn is_inside(file: &Path, root: &Path) -> bool {
    file.strip_prefix(root)
        .is_ok_and(|rel| rel.components().all(|c| matches!(c, Component::Normal(_))))
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        Some("ico") => "image/x-icon",
        Some("jpg") => "image/jpeg",
        _ => "application/octet-stream",
    }
}

/// A chromedriver process and one headless Chromium session on it.
#[derive(Debug)]
pub struct Browser {
    driver: Child,
    pub client: Client,
}

impl Browser {
    /// Starts chromedriver on a free port and opens a headless session with a
    /// window of `width` × `height` CSS pixels, in the light colour scheme.
    pub async fn start(width: u32, height: u32) -> Self {
        Self::start_with(width, height, false).await
    }

    /// Like [`Browser::start`]; `dark` makes the page see
    /// `prefers-color-scheme: dark`.
    pub async fn start_with(width: u32, height: u32, dark: bool) -> Self {
        let chromedriver = tool("CHROMEDRIVER", "chromedriver");
        let chromium = tool("CHROMIUM", "chromium");
        let port = free_port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", chromedriver.display()));
        wait_for_port(port);
        let profile =
            std::env::temp_dir().join(format!("batchfit-e2e-{}-{port}", std::process::id()));
        let mut options = serde_json::json!({
            "binary": chromium,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                format!("--window-size={},{height}", width.max(500)),
                // Blink's preferredColorScheme: 0 is dark, 1 is light.
                format!("--blink-settings=preferredColorScheme={}", if dark { 0 } else { 1 }),
                format!("--user-data-dir={}", profile.display()),
            ],
        });
        // Headless windows are at least 500 px wide: phones are emulated, at a
        // device pixel ratio of 2 (which also checks the canvases are crisp).
        if width < 500 {
            options["mobileEmulation"] = serde_json::json!({
                "deviceMetrics": { "width": width, "height": height, "pixelRatio": 2.0, "touch": true },
            });
        }
        let capabilities = serde_json::json!({ "goog:chromeOptions": options });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!("a JSON object literal")
        };
        let client = ClientBuilder::native()
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("a WebDriver session in headless Chromium");
        Self { driver, client }
    }

    /// Closes the session and stops chromedriver.
    pub async fn close(mut self) {
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }

    /// Navigates to `url` and acts there as a visitor does first
    /// ([`Browser::act`]): the page fetches its interface on the visitor's
    /// first action (issue 31, boot.js), and most tests read the interface.
    pub async fn open(&self, url: &str) {
        self.open_to_read(url).await;
        self.act().await;
    }

    /// Navigates to `url` and does nothing there, as a visitor who only
    /// reads: the page shows the address's answer and fetches no more.
    pub async fn open_to_read(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    /// Waits for the page's first estimate in the DOM: the mark the module
    /// sets (`batchfit:first-estimate`), whether its first part wrote it
    /// into the shell or the app did.
    pub async fn first_answer(&self) {
        self.wait_until("the first answer", || async {
            self.js("return performance.getEntriesByName('batchfit:first-estimate').length")
                .await
                == serde_json::json!(1)
        })
        .await;
    }

    /// The `.wasm` files the page has fetched so far, by name without the
    /// hash (Trunk writes its hash without leading zeros: up to 16 hex
    /// digits), sorted, once each.
    pub async fn fetched_modules(&self) -> Vec<String> {
        let names = self
            .js("return performance.getEntriesByType('resource').map(e => e.name.split('/').pop()) \
                 .filter(n => n.endsWith('.wasm')).map(n => n.replace(/-[0-9a-f]{1,16}(_bg)?\\.wasm$/, ''))")
            .await;
        let mut names: Vec<String> = names
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// A visitor's first action on the open page: a press of the Shift key,
    /// which changes nothing on the page (boot.js counts it, as it counts a
    /// pointer, a wheel, a touch, a scroll or a focus).
    pub async fn act(&self) {
        for kind in ["rawKeyDown", "keyUp"] {
            self.cdp(
                "Input.dispatchKeyEvent",
                serde_json::json!({
                    "type": kind, "key": "Shift", "code": "ShiftLeft",
                    "windowsVirtualKeyCode": 16, "nativeVirtualKeyCode": 16,
                }),
            )
            .await;
        }
    }

    /// Waits for the element with this `data-testid`.
    pub async fn testid(&self, id: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(&format!("[data-testid=\"{id}\"]")))
            .await
            .unwrap_or_else(|e| panic!("no element with data-testid={id}: {e}"))
    }

    /// The exact byte count a result carries in `data-bytes`.
    pub async fn bytes(&self, id: &str) -> u128 {
        let attr = self
            .testid(id)
            .await
            .attr("data-bytes")
            .await
            .expect("read data-bytes");
        attr.unwrap_or_else(|| panic!("{id} has no data-bytes"))
            .parse()
            .unwrap_or_else(|e| panic!("{id}: data-bytes is not an integer: {e}"))
    }

    /// Evaluates `script` (a function body; `return` gives the value).
    pub async fn js(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Saves a PNG of the viewport under `<repo>/target/screenshots/`.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots");
        std::fs::create_dir_all(&dir).expect("create target/screenshots");
        let png = self.client.screenshot().await.expect("take a screenshot");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write the screenshot");
        path
    }

    /// The visible text of a result.
    pub async fn text(&self, id: &str) -> String {
        self.testid(id).await.text().await.expect("read text")
    }

    /// The form input whose `name` is this URL parameter, once the app has
    /// rendered it (it mounts after its WASM module has loaded; the form
    /// shell index.html shows until then is not the app's).
    pub async fn input(&self, name: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(&format!("[name=\"{name}\"]:not(.shell *)")))
            .await
            .unwrap_or_else(|e| panic!("no input named {name}: {e}"))
    }

    /// Replaces the text of the input `name` the way a user does: select all
    /// (Ctrl+A), delete, type. Every keystroke fires a real `input` event.
    pub async fn type_into(&self, name: &str, text: &str) {
        const SELECT_ALL_DELETE: &str = "\u{e009}a\u{e000}\u{e003}";
        let input = self.input(name).await;
        self.reveal(&input).await;
        input
            .send_keys(&format!("{SELECT_ALL_DELETE}{text}"))
            .await
            .expect("type into the input");
    }

    /// Opens the closed groups (`<details>`) around `element`, as a user
    /// clicks their titles to reach a field behind the first screen.
    pub async fn reveal(&self, element: &fantoccini::elements::Element) {
        self.client
            .execute(
                "for (let d = arguments[0].closest('details:not([open])'); d; \
                   d = d.parentElement.closest('details:not([open])')) d.open = true;",
                vec![serde_json::to_value(element).expect("an element")],
            )
            .await
            .expect("open the groups around the field");
    }

    /// The current value of the form field `name`.
    pub async fn field_value(&self, name: &str) -> String {
        self.input(name)
            .await
            .prop("value")
            .await
            .unwrap_or_else(|e| panic!("read {name}: {e}"))
            .unwrap_or_default()
    }

    /// The `data-value` a result carries (counts that are not bytes).
    pub async fn data_value(&self, testid: &str) -> String {
        self.testid(testid)
            .await
            .attr("data-value")
            .await
            .unwrap_or_else(|e| panic!("read {testid}: {e}"))
            .unwrap_or_default()
    }

    /// Whether the results are marked as not current (`data-stale`).
    pub async fn stale(&self) -> bool {
        self.testid("results")
            .await
            .attr("data-stale")
            .await
            .expect("read data-stale")
            .as_deref()
            == Some("true")
    }

    /// Clicks the element with this `data-testid`.
    pub async fn click(&self, testid: &str) {
        self.testid(testid)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {testid}: {e}"));
    }

    /// Sets the field `name` to `value` in one edit, the event a user's edit
    /// fires (`change` for a select, `input` otherwise): for selects and for
    /// pasting a whole text at once.
    pub async fn set_value(&self, name: &str, value: &str) {
        self.input(name).await;
        self.client
            .execute(
                "const f = document.querySelector(`[name=${arguments[0]}]`); f.value = arguments[1]; \
                 f.dispatchEvent(new Event(f.tagName === 'SELECT' ? 'change' : 'input'));",
                vec![serde_json::json!(name), serde_json::json!(value)],
            )
            .await
            .unwrap_or_else(|e| panic!("set {name}: {e}"));
    }

    /// Polls `check` until it returns true or `what` times out after 10 s.
    /// The address once its query holds every `name=value` pair in `pairs` (the
    /// page rewrites the address bar a moment after an edit, coalescing bursts).
    pub async fn url_with(&self, pairs: &[&str]) -> url::Url {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let url = self.client.current_url().await.expect("url");
            let query: Vec<String> = url
                .query_pairs()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            if pairs.iter().all(|p| query.iter().any(|q| q == p)) {
                return url;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for the address to hold {pairs:?}: {url}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Runs a Chrome DevTools Protocol command (chromedriver's
    /// `goog/cdp/execute`) and returns its result.
    pub async fn cdp(&self, cmd: &'static str, params: serde_json::Value) -> serde_json::Value {
        self.client
            .issue_cmd(Cdp { cmd, params })
            .await
            .unwrap_or_else(|e| panic!("CDP {cmd}: {e}"))
    }

    /// Chromium's main-thread counters (`Performance.getMetrics`): durations in
    /// seconds and counts since the page opened, by name.
    pub async fn metrics(&self) -> Vec<(String, f64)> {
        self.cdp("Performance.enable", serde_json::json!({})).await;
        let result = self
            .cdp("Performance.getMetrics", serde_json::json!({}))
            .await;
        result["metrics"]
            .as_array()
            .map(|metrics| {
                metrics
                    .iter()
                    .filter_map(|m| Some((m["name"].as_str()?.to_owned(), m["value"].as_f64()?)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub async fn wait_until<F, Fut>(&self, what: &str, mut check: F)
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = bool>,
    {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !check().await {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A DevTools Protocol command sent through chromedriver.
#[derive(Debug)]
struct Cdp {
    cmd: &'static str,
    params: serde_json::Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/goog/cdp/execute",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = serde_json::json!({ "cmd": self.cmd, "params": self.params });
        (http::Method::POST, Some(body.to_string()))
    }
}

fn tool(var: &str, name: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| {
            panic!("{name} not found: set {var} or put it on PATH (`cargo xtask test` installs it)")
        })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn wait_for_port(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not open port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
