//! The style sheet written into `dist/index.html`, the last step of the
//! release build. Linked, it cost the first paint a request of its own: the
//! browser paints nothing before a render-blocking style sheet has arrived,
//! and on a 10 Mbit/s link with 40 ms of latency that request, beside the
//! module's download, came after the page's (docs/performance-log.md, "The
//! style sheet in the page"). Inline, the page and its styles arrive
//! together. The Content-Security-Policy stays strict: `style-src` names the
//! one `<style>` element by the SHA-256 of its text, so no other inline style
//! runs, and `style` attributes stay blocked (that needs `'unsafe-hashes'`).
//! boot.js stays a file: the policy allows no inline script.

use std::path::Path;

use crate::minify;
use crate::tools::Env;

/// The directive `harden.rs` writes, which gains the style's hash.
const STYLE_SRC: &str = "style-src 'self';";

/// Writes the page's linked style sheet into `dist/index.html` as a
/// `<style>` element named in the policy by its hash, and removes the file.
pub fn inline_style_sheet(env: &Env, dist: &Path) -> Result<(), String> {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let name = style_sheet(&html)?.to_owned();
    let file = dist.join(&name);
    let css = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let hash = minify::digest(env, &file, "sha256")?;
    let html = inlined(&html, &name, &css, &hash)?;
    std::fs::write(&index, html).map_err(|e| format!("{}: {e}", index.display()))?;
    std::fs::remove_file(&file).map_err(|e| format!("{}: {e}", file.display()))
}

/// The file name of the page's one linked style sheet.
fn style_sheet(html: &str) -> Result<&str, String> {
    let mut sheets = html
        .split("<link ")
        .skip(1)
        .filter(|tag| tag.starts_with("rel=\"stylesheet\""))
        .filter_map(|tag| tag.split("href=\"./").nth(1)?.split('"').next());
    match (sheets.next(), sheets.next()) {
        (Some(name), None) => Ok(name),
        (None, _) => Err("dist/index.html links no style sheet to write into it".into()),
        (Some(_), Some(_)) => Err("dist/index.html links more than one style sheet".into()),
    }
}

/// `html` with the `<link>` of `name` replaced by `<style>` holding `css`, and
/// the policy's `style-src` allowing it by `hash` (`sha256-…`).
fn inlined(html: &str, name: &str, css: &str, hash: &str) -> Result<String, String> {
    if css.contains("</style") {
        return Err(format!(
            "{name} contains </style: it cannot be written inline"
        ));
    }
    let href = html
        .find(&format!("href=\"./{name}\""))
        .ok_or_else(|| format!("dist/index.html does not link {name}"))?;
    let start = html[..href]
        .rfind("<link ")
        .ok_or("dist/index.html: the style sheet's <link> has no start")?;
    let end = href
        + html[href..]
            .find('>')
            .ok_or("dist/index.html: the style sheet's <link> has no end")?
        + 1;
    if html.matches(STYLE_SRC).count() != 1 {
        return Err(format!(
            "dist/index.html's policy does not have one {STYLE_SRC} to add the style's hash to"
        ));
    }
    let mut out = String::with_capacity(html.len() + css.len());
    out.push_str(&html[..start]);
    out.push_str("<style>");
    out.push_str(css);
    out.push_str("</style>");
    out.push_str(&html[end..]);
    Ok(out.replace(STYLE_SRC, &format!("style-src 'self' '{hash}';")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; \
        style-src 'self'; img-src 'self'\" />\n\
        <link rel=\"preload\" href=\"./boot.js\" as=\"script\" />\n\
        <link rel=\"stylesheet\" href=\"./main-1.css\" integrity=\"sha384-abc\"/>\n\
        <link rel=\"modulepreload\" href=\"./app-2.js\">";

    #[test]
    fn finds_the_one_style_sheet() {
        assert_eq!(style_sheet(PAGE), Ok("main-1.css"));
        assert!(style_sheet("<link rel=\"preload\" href=\"./boot.js\">").is_err());
        let two = format!("{PAGE}<link rel=\"stylesheet\" href=\"./other.css\">");
        assert!(style_sheet(&two).is_err());
    }

    #[test]
    fn writes_the_sheet_in_place_of_its_link_and_its_hash_into_the_policy() {
        let page = inlined(PAGE, "main-1.css", "body{margin:0}", "sha256-xyz").expect("inlined");
        assert_eq!(
            page,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; \
             style-src 'self' 'sha256-xyz'; img-src 'self'\" />\n\
             <link rel=\"preload\" href=\"./boot.js\" as=\"script\" />\n\
             <style>body{margin:0}</style>\n\
             <link rel=\"modulepreload\" href=\"./app-2.js\">"
        );
        // Neither script nor style is allowed inline wholesale.
        assert!(!page.contains("unsafe-inline"));
    }

    #[test]
    fn refuses_what_it_cannot_write_safely() {
        assert!(inlined(PAGE, "main-1.css", "a{}</style><script>", "sha256-x").is_err());
        assert!(inlined(PAGE, "missing.css", "a{}", "sha256-x").is_err());
        let no_policy = PAGE.replace("style-src 'self'; ", "");
        assert!(inlined(&no_policy, "main-1.css", "a{}", "sha256-x").is_err());
    }
}
