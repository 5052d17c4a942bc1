//! The page's first paint without the WebAssembly (issue 17): after the release
//! build, headless Chromium opens the built page once per form and language,
//! and what the app itself rendered there (the top bar, the form switch, every
//! input with its default value, the results' title) goes into
//! `dist/index.html` in place of the loading line, one hidden `.shell` each.
//! `boot.js` shows the one the visitor's address names and puts the address's
//! values into it; the app replaces it when it mounts (`main.rs`).
//!
//! The snapshots come from the app's own code, so they cannot drift from it:
//! a field added to a form is in the next build's shell. They need Chromium,
//! found or installed by `tools::ensure_browser`, as for `cargo xtask test`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use batchfit_core::query::{Form, Lang};

use crate::tools::Browser;

/// Served beside the page while the snapshots are taken (never written to dist/).
const HELPER: &str = include_str!("prerender.js");
const HELPER_FILE: &str = "__prerender.js";
/// Where the helper posts a snapshot.
const SNAPSHOT_PATH: &str = "/__prerender";
/// Where a snapshot's results line goes (the helper's placeholder).
const LOADING_MARKER: &str = "<p data-shell-loading=\"\"></p>";
/// The phone's summary bar as the snapshot opens it: empty, or with the
/// first screen's answer (`prerender.js`).
const SUMMARY_OPEN: &str = "<div class=\"mini-summary\" aria-hidden=\"true\">";
/// How long the whole set of snapshots may take.
const TIMEOUT: Duration = Duration::from_secs(120);
const LANGS: [Lang; 2] = [Lang::En, Lang::Es];

/// Replaces the loading block (`#boot`) of `dist/index.html` with one
/// pre-rendered shell per form and language.
pub fn prerender_dist(dist: &Path, browser: &Browser) -> Result<(), String> {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let pages: Vec<String> = LANGS
        .iter()
        .flat_map(|lang| {
            // The transformer form's shell is the first screen, the bare
            // address's (`query::FIRST_SCREEN`; boot.js shows it there).
            Form::ALL.iter().map(move |form| match form {
                Form::Transformer => format!("/?lang={}", lang.name()),
                _ => format!("/?form={}&lang={}", form.name(), lang.name()),
            })
        })
        .collect();
    println!(
        "xtask: ── pre-render the form shell ({} pages, headless Chromium) ──",
        pages.len()
    );
    let snapshots = take_snapshots(dist, &html, &pages, browser)?;
    let html = with_shells(&html, &snapshots)?;
    std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))
}

/// One snapshot: the page's query and the markup the helper sent.
type Snapshot = (String, String);

/// `html` with its `#boot` block replaced by the shells.
fn with_shells(html: &str, snapshots: &[Snapshot]) -> Result<String, String> {
    let start = html
        .find("<div id=\"boot\"")
        .ok_or("dist/index.html has no <div id=\"boot\"> to replace")?;
    let end = start
        + html[start..]
            .find("</div>")
            .ok_or("dist/index.html: #boot has no </div>")?
        + "</div>".len();
    let boot = &html[start..end];
    let mut shells = String::new();
    for (query, markup) in snapshots {
        let (form, lang) = form_and_lang(query)?;
        let loading = format!(
            "<p class=\"boot-loading\" role=\"status\">{}</p>",
            text_in(boot, &format!("<span lang=\"{lang}\">"), "</span>")
                .ok_or_else(|| format!("#boot has no loading line in {lang}"))?
        );
        if !markup.contains(LOADING_MARKER) || !markup.contains("<input") {
            return Err(format!(
                "the snapshot of ?{query} has no inputs or no results placeholder"
            ));
        }
        // The bar that stays at the top of a phone's screen says it too, so
        // that the loading line is not only below the whole form.
        if !markup.contains(SUMMARY_OPEN) {
            return Err(format!("the snapshot of ?{query} has no summary bar"));
        }
        let summary = format!(
            "{SUMMARY_OPEN}<span class=\"boot-loading\">{}</span>",
            text_in(&loading, "\"status\">", "</p>").unwrap_or_default()
        );
        shells.push_str(&format!(
            "<div class=\"shell\" data-form=\"{form}\" lang=\"{lang}\" hidden>{}</div>\n    ",
            markup
                .replace(LOADING_MARKER, &loading)
                .replacen(SUMMARY_OPEN, &summary, 1)
        ));
    }
    Ok(format!(
        "{}{}{}",
        &html[..start],
        shells.trim_end(),
        &html[end..]
    ))
}

/// The form and language a snapshot's query opens, as the app reads it.
fn form_and_lang(query: &str) -> Result<(&'static str, &'static str), String> {
    let config = batchfit_core::query::parse(query).config;
    let lang = config
        .lang
        .ok_or_else(|| format!("snapshot query {query:?} has no lang"))?;
    Ok((config.form.name(), lang.name()))
}

/// The text between `open` and the next `close` in `text`.
fn text_in<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let from = text.find(open)? + open.len();
    Some(&text[from..from + text[from..].find(close)?])
}

/// Serves `dist` (the page with the helper added) and has one Chromium visit
/// every page in turn; returns the snapshots in the order of `pages`.
fn take_snapshots(
    dist: &Path,
    html: &str,
    pages: &[String],
    browser: &Browser,
) -> Result<Vec<Snapshot>, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let page = html.replacen(
        "</head>",
        &format!("<script src=\"./{HELPER_FILE}\"></script></head>"),
        1,
    );
    let (sender, received) = mpsc::channel::<Snapshot>();
    let (dist_dir, next_pages) = (dist.to_path_buf(), pages[1..].to_vec());
    std::thread::spawn(move || {
        let mut next = next_pages.into_iter();
        for stream in listener.incoming().flatten() {
            let served = serve(stream, &dist_dir, &page, &mut || next.next());
            if let Some(snapshot) = served
                && sender.send(snapshot).is_err()
            {
                return;
            }
        }
    });
    let profile =
        std::env::temp_dir().join(format!("batchfit-prerender-{}-{port}", std::process::id()));
    let mut chromium = Chromium::start(
        &browser.chromium,
        &profile,
        &format!("http://127.0.0.1:{port}{}", pages[0]),
    )?;
    let deadline = Instant::now() + TIMEOUT;
    let mut snapshots = Vec::new();
    while snapshots.len() < pages.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match received.recv_timeout(left) {
            Ok(snapshot) => snapshots.push(snapshot),
            Err(_) => {
                chromium.stop();
                return Err(format!(
                    "headless Chromium sent {} of {} snapshots within {} s: does the built \
                     page load (cargo xtask serve)?",
                    snapshots.len(),
                    pages.len(),
                    TIMEOUT.as_secs()
                ));
            }
        }
    }
    chromium.stop();
    let _ = std::fs::remove_dir_all(&profile);
    Ok(snapshots)
}

/// Headless Chromium on one address, stopped when dropped.
struct Chromium(Child);

impl Chromium {
    fn start(binary: &Path, profile: &Path, url: &str) -> Result<Self, String> {
        Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map(Self)
            .map_err(|e| format!("start {}: {e}", binary.display()))
    }

    fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Answers one request: a file of `dist` (`index.html` as `page`), the
/// helper, or a posted snapshot (answered with the next page, from `next`).
fn serve(
    mut stream: TcpStream,
    dist: &Path,
    page: &str,
    next: &mut dyn FnMut() -> Option<String>,
) -> Option<Snapshot> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request = String::new();
    reader.read_line(&mut request).ok()?;
    let mut length = 0;
    let mut header = String::new();
    while reader.read_line(&mut header).ok()? > 2 {
        if let Some(value) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        header.clear();
    }
    let mut words = request.split_whitespace();
    let (method, target) = (words.next()?, words.next()?);
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let (body, kind, snapshot): (Vec<u8>, &str, _) = if method == "POST" && path == SNAPSHOT_PATH {
        let mut markup = vec![0; length];
        reader.read_exact(&mut markup).ok()?;
        let markup = String::from_utf8(markup).ok()?;
        let following = next().unwrap_or_default();
        (
            following.into_bytes(),
            "text/plain",
            Some((query.to_owned(), markup)),
        )
    } else if path == "/" || path == "/index.html" {
        (page.as_bytes().to_vec(), "text/html; charset=utf-8", None)
    } else if path == format!("/{HELPER_FILE}") {
        (HELPER.as_bytes().to_vec(), "text/javascript", None)
    } else {
        let file = file_in(dist, path)?;
        let kind = match file.extension().and_then(|e| e.to_str()) {
            Some("js") => "text/javascript",
            Some("wasm") => "application/wasm",
            Some("css") => "text/css",
            _ => "application/octet-stream",
        };
        (std::fs::read(&file).ok()?, kind, None)
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(&[head.into_bytes(), body].concat());
    snapshot
}

/// The file of `dist` a request path names: one plain file name, nothing above.
fn file_in(dist: &Path, path: &str) -> Option<PathBuf> {
    let name = path.strip_prefix('/')?;
    let plain = !name.is_empty() && !name.contains(['/', '\\']) && !name.starts_with('.');
    let file = dist.join(name);
    (plain && file.is_file()).then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILT: &str = "<html><head><title>t</title></head><body>\n    \
        <div id=\"boot\" class=\"boot\"><p class=\"boot-name\">batchfit</p>\
        <p class=\"boot-loading\" role=\"status\"><span lang=\"en\">Loading…</span>\
        <span lang=\"es\">Cargando…</span></p>\n    </div>\n    <noscript>x</noscript></body></html>";

    #[test]
    fn the_shells_replace_the_loading_block() {
        let markup = |value: &str| {
            format!(
                "<header></header><div class=\"page\">{SUMMARY_OPEN}</div><input name=\"batch\" \
                 value=\"{value}\"><section class=\"results\"><h2>R</h2>{LOADING_MARKER}</section></div>"
            )
        };
        let snapshots = vec![
            ("?form=activations&lang=en".to_owned(), markup("1")),
            ("?form=parameters&lang=es".to_owned(), markup("2")),
        ];
        let html = with_shells(BUILT, &snapshots).expect("shells");
        assert!(!html.contains("id=\"boot\""), "{html}");
        assert!(html.contains(
            "<div class=\"shell\" data-form=\"activations\" lang=\"en\" hidden><header>"
        ));
        assert!(
            html.contains(
                "<div class=\"shell\" data-form=\"parameters\" lang=\"es\" hidden><header>"
            )
        );
        assert!(html.contains(
            "<h2>R</h2><p class=\"boot-loading\" role=\"status\">Loading…</p></section>"
        ));
        assert!(html.contains(
            "<h2>R</h2><p class=\"boot-loading\" role=\"status\">Cargando…</p></section>"
        ));
        assert!(!html.contains(LOADING_MARKER));
        assert!(html.contains(
            "<div class=\"mini-summary\" aria-hidden=\"true\"><span class=\"boot-loading\">Cargando…</span></div>"
        ));
        assert!(!html.contains(&format!("{SUMMARY_OPEN}</div>")));
        assert!(html.ends_with("</div>\n    <noscript>x</noscript></body></html>"));
    }

    /// The first screen's snapshot keeps its answer in the bar; the loading
    /// line goes in front of it, and boot.js keeps one of the two.
    #[test]
    fn the_first_screens_bar_keeps_its_answer_beside_the_loading_line() {
        let answer = "<span class=\"mini-headline shell-answer\">Needs 18.5 GB</span>";
        let snapshots = vec![(
            "?lang=en".to_owned(),
            format!(
                "<div class=\"page\">{SUMMARY_OPEN}{answer}</div><input name=\"batch\" \
                 value=\"2\"><section class=\"results\"><h2>R</h2>{LOADING_MARKER}</section></div>"
            ),
        )];
        let html = with_shells(BUILT, &snapshots).expect("shells");
        assert!(
            html.contains("data-form=\"transformer\" lang=\"en\""),
            "{html}"
        );
        assert!(html.contains(&format!(
            "{SUMMARY_OPEN}<span class=\"boot-loading\">Loading…</span>{answer}</div>"
        )));
    }

    #[test]
    fn a_snapshot_without_inputs_fails_the_build() {
        let empty = vec![(
            "?form=activations&lang=en".to_owned(),
            format!("<section>{LOADING_MARKER}</section>"),
        )];
        let error = with_shells(BUILT, &empty).expect_err("no inputs");
        assert!(error.contains("form=activations&lang=en"), "{error}");
        let no_lang = vec![("?form=activations".to_owned(), String::new())];
        assert!(with_shells(BUILT, &no_lang).is_err());
    }

    #[test]
    fn only_plain_files_of_dist_are_served() {
        let dir = std::env::temp_dir().join(format!("xtask-prerender-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("app.js"), "x").unwrap();
        assert_eq!(file_in(&dir, "/app.js"), Some(dir.join("app.js")));
        for path in ["/../etc/passwd", "/", "/missing.js", "/.hidden", "app.js"] {
            assert_eq!(file_in(&dir, path), None, "{path}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
