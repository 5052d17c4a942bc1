//! Minification of the JavaScript and CSS in `dist/`, after Trunk and
//! `harden.rs`. Trunk's own minifier cannot parse wasm-bindgen's glue (it
//! leaves it as is and warns), so esbuild does both; it saves about a quarter
//! of what these files weigh gzipped (docs/performance-log.md).
//!
//! Trunk marks the style sheet and the preloaded glue with Subresource
//! Integrity hashes; a minified file gets a new hash, and every hash in the
//! page is checked against its file afterwards, so a stale one fails the build
//! here rather than blocking the file in the browser.

use std::ffi::OsStr;
use std::path::Path;

use crate::shell::{Step, output_of};
use crate::tools::Env;

/// Minifies every `.js` and `.css` file in `dist` in place and brings the
/// page's integrity hashes up to date.
pub fn minify_dist(env: &Env, dist: &Path) -> Result<(), String> {
    let index = dist.join("index.html");
    let mut html =
        std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    for entry in std::fs::read_dir(dist).map_err(|e| format!("{}: {e}", dist.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let js = path.extension() == Some(OsStr::new("js"));
        let css = path.extension() == Some(OsStr::new("css"));
        if !(js || css) {
            continue;
        }
        let file = path.to_string_lossy().into_owned();
        let mut step = Step::new(format!("minify {file}"), "esbuild")
            .args([
                file.as_str(),
                "--minify",
                "--allow-overwrite",
                "--log-level=warning",
            ])
            .arg(format!("--outfile={file}"));
        if js {
            step = step.arg("--format=esm");
        }
        env.run(step)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if integrity_of(&html, &name).is_some() {
            let fresh = sha384(env, &path)?;
            html = set_integrity(&html, &name, &fresh).unwrap_or(html);
        }
    }
    std::fs::write(&index, &html).map_err(|e| format!("{}: {e}", index.display()))?;
    check_integrity(env, dist, &html)
}

/// The `integrity` value of the tag in `html` whose `href` is `./name`.
fn integrity_of<'a>(html: &'a str, name: &str) -> Option<&'a str> {
    let at = html.find(&format!("href=\"./{name}\""))?;
    let start = html[..at].rfind('<')?;
    let end = at + html[at..].find('>')?;
    let tag = &html[start..end];
    let value = tag.split("integrity=\"").nth(1)?;
    value.split('"').next()
}

/// `html` with the integrity hash of the tag naming `./name` set to `hash`;
/// `None` if no tag names it with one.
pub fn set_integrity(html: &str, name: &str, hash: &str) -> Option<String> {
    let old = integrity_of(html, name)?;
    Some(html.replace(
        &format!("integrity=\"{old}\""),
        &format!("integrity=\"{hash}\""),
    ))
}

/// Every file the page names with an integrity hash, and that hash.
fn hashed_files(html: &str) -> Vec<(&str, &str)> {
    html.split('<')
        .filter_map(|tag| {
            let href = tag.split("href=\"./").nth(1)?.split('"').next()?;
            let hash = tag.split("integrity=\"").nth(1)?.split('"').next()?;
            Some((href, hash))
        })
        .collect()
}

/// Fails unless each integrity hash in the page is its file's.
fn check_integrity(env: &Env, dist: &Path, html: &str) -> Result<(), String> {
    for (name, hash) in hashed_files(html) {
        let actual = sha384(env, &dist.join(name))?;
        if actual != hash {
            return Err(format!(
                "dist/index.html gives {name} the integrity {hash}, but the file's is {actual}"
            ));
        }
    }
    Ok(())
}

/// `sha384-` and the file's SHA-384 in base64, as Subresource Integrity writes
/// it.
pub fn sha384(env: &Env, file: &Path) -> Result<String, String> {
    digest(env, file, "sha384")
}

/// `<algorithm>-` and the file's digest in base64, as Subresource Integrity
/// and Content-Security-Policy hashes write it; computed by Node.js, which the
/// build already needs for npm.
pub fn digest(env: &Env, file: &Path, algorithm: &str) -> Result<String, String> {
    let script = "const c=require('crypto'),f=require('fs');\
                  process.stdout.write(c.createHash(process.argv[1]).update(f.readFileSync(process.argv[2])).digest('base64'))";
    let file = file.to_string_lossy();
    output_of("node", &["-e", script, algorithm, &file], env.path())
        .filter(|digest| !digest.is_empty())
        .map(|digest| format!("{algorithm}-{digest}"))
        .ok_or_else(|| format!("could not hash {file} with node"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<link rel="stylesheet" href="./main-1.css" integrity="sha384-abc"/>
  <link rel="modulepreload" href="./app-2.js" crossorigin="anonymous" integrity="sha384-def"><link rel="preload" href="./app-2_bg.wasm" crossorigin="anonymous" integrity="sha384-ghi" as="fetch" type="application/wasm">
<script type="module" src="./loader-3.js"></script>"#;

    #[test]
    fn finds_the_integrity_of_each_named_file() {
        assert_eq!(integrity_of(PAGE, "main-1.css"), Some("sha384-abc"));
        assert_eq!(integrity_of(PAGE, "app-2.js"), Some("sha384-def"));
        assert_eq!(integrity_of(PAGE, "app-2_bg.wasm"), Some("sha384-ghi"));
        assert_eq!(integrity_of(PAGE, "loader-3.js"), None);
        assert_eq!(integrity_of(PAGE, "missing.js"), None);
    }

    #[test]
    fn sets_the_integrity_of_one_file_only() {
        let page = set_integrity(PAGE, "app-2_bg.wasm", "sha384-new").expect("named");
        assert_eq!(integrity_of(&page, "app-2_bg.wasm"), Some("sha384-new"));
        assert_eq!(integrity_of(&page, "app-2.js"), Some("sha384-def"));
        assert_eq!(set_integrity(PAGE, "loader-3.js", "sha384-new"), None);
    }

    #[test]
    fn lists_every_hashed_file() {
        assert_eq!(
            hashed_files(PAGE),
            vec![
                ("main-1.css", "sha384-abc"),
                ("app-2.js", "sha384-def"),
                ("app-2_bg.wasm", "sha384-ghi"),
            ]
        );
    }
}
