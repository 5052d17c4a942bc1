//! Hardening of the built page (`dist/index.html`), applied after every release
//! build. Trunk writes its WASM loader as an inline `<script type="module">`;
//! a strict Content-Security-Policy forbids inline scripts unless they are
//! hashed, so the loader moves to its own file (named by a hash of its content,
//! like Trunk's other assets) and the policy is added as a `<meta>` tag, since
//! static hosts differ in how they set headers.

use std::path::Path;

/// Scripts only from the page's own origin, plus WebAssembly compilation;
/// style sheets only from files (`inline.rs` later adds the hash of the one
/// `<style>` it writes into the page), and no `style` attributes (the charts measure
/// text with the canvas, not with styled elements); no connections beyond the
/// origin; no plugins, no `<base>`, no form submission. `frame-ancestors` cannot
/// be set from a `<meta>` tag (browsers ignore it there): embedding stays allowed.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
style-src 'self'; img-src 'self' data:; font-src 'self'; \
connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

const INLINE_MODULE: &str = "<script type=\"module\">";

/// Moves the inline loader out of `dist/index.html` and adds the policy.
pub fn harden_dist(dist: &Path) -> Result<(), String> {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let (html, loader) = harden(&html)?;
    if let Some((name, script)) = loader {
        std::fs::write(dist.join(&name), script).map_err(|e| format!("{name}: {e}"))?;
    }
    std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))
}

/// The hardened page and, when it had an inline loader, the loader's file name
/// and content. Idempotent: a page that already carries the policy is unchanged.
fn harden(html: &str) -> Result<(String, Option<(String, String)>), String> {
    if html.contains("Content-Security-Policy") {
        return Ok((html.to_owned(), None));
    }
    let mut out = html.to_owned();
    let mut loader = None;
    if let Some(start) = out.find(INLINE_MODULE) {
        let body_start = start + INLINE_MODULE.len();
        let end = out[body_start..]
            .find("</script>")
            .map(|i| body_start + i)
            .ok_or("index.html: the inline loader has no </script>")?;
        let script = out[body_start..end].trim().to_owned();
        let name = format!("loader-{:016x}.js", fnv1a(script.as_bytes()));
        out.replace_range(
            start..end + "</script>".len(),
            &format!("<script type=\"module\" src=\"./{name}\"></script>"),
        );
        loader = Some((name, format!("{script}\n")));
    }
    let charset = "<meta charset=\"utf-8\" />";
    let at = out
        .find(charset)
        .map(|i| i + charset.len())
        .ok_or("index.html: no <meta charset=\"utf-8\" /> to put the policy after")?;
    out.insert_str(
        at,
        &format!("\n    <meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\" />"),
    );
    Ok((out, loader))
}

/// FNV-1a: a stable content hash for the loader's file name (not security).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUNK_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\" />\n<title>t</title>\n\
        <script type=\"module\">\nimport init from './app-1.js';\nawait init('./app-1_bg.wasm');\n</script>\n\
        <link rel=\"stylesheet\" href=\"./main.css\"/></head><body></body></html>";

    #[test]
    fn the_loader_moves_to_a_file_and_the_policy_is_added() {
        let (html, loader) = harden(TRUNK_PAGE).expect("hardened");
        let (name, script) = loader.expect("a loader file");
        assert!(name.starts_with("loader-") && name.ends_with(".js"));
        assert_eq!(
            script,
            "import init from './app-1.js';\nawait init('./app-1_bg.wasm');\n"
        );
        assert!(html.contains(&format!(
            "<script type=\"module\" src=\"./{name}\"></script>"
        )));
        assert!(!html.contains("import init"), "no inline script is left");
        let meta = html.find("Content-Security-Policy").expect("a policy");
        assert!(
            meta < html.find("<title>").expect("title"),
            "the policy comes first"
        );
        assert_eq!(harden(&html).expect("again").0, html, "idempotent");
    }

    #[test]
    fn the_policy_is_strict() {
        for directive in [
            "script-src 'self' 'wasm-unsafe-eval';",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "connect-src 'self'",
        ] {
            assert!(CONTENT_SECURITY_POLICY.contains(directive), "{directive}");
        }
        let scripts = CONTENT_SECURITY_POLICY
            .split(';')
            .find(|d| d.trim().starts_with("script-src"))
            .expect("a script-src directive");
        assert!(
            !scripts.contains("unsafe-inline") && !scripts.contains(" 'unsafe-eval'"),
            "{scripts}"
        );
        assert!(
            CONTENT_SECURITY_POLICY.contains("style-src 'self';")
                && !CONTENT_SECURITY_POLICY.contains("unsafe-inline"),
            "style sheets only from files, no style attributes"
        );
    }
}
