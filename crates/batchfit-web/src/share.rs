//! Sharing and exporting: copy the link, copy the sweep as Markdown, download it
//! as CSV, and an `<iframe>` snippet for embedding. Each action confirms what it
//! did; where the clipboard is unavailable (an insecure context, a denied
//! permission) the text is shown selected for the user to copy by hand. The
//! table, the CSV and the snippet are written by a chunk of the split build
//! (`split_export`), fetched at the first click that needs one.

use crate::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use batchfit_core::query::Embed;

use crate::dom::{self, El, Ev, el, rx};
use crate::i18n;
use crate::location;
use crate::state::State;
use crate::sweep;

/// What the last action did, shown in a status line.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    /// Copied: which text (its button's test id).
    Copied(&'static str),
    Downloaded,
    /// The clipboard failed: show this text, selected.
    Fallback(String),
    /// The code that writes the text could not be fetched.
    Missing,
}

/// What an action writes.
#[derive(Clone, Copy)]
enum Export {
    Markdown,
    Csv,
    /// The snippet of the full page, or of the answer alone (`embed=compact`).
    Embed(Embed),
}

/// The text of an action (the chunk's code): the sweep as a Markdown table or
/// as CSV, or the embedding snippet, in the page's language.
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(export, fallible, preload(#[allow(unsafe_code)] preload_export))
)]
fn export(what: Export, state: State) -> Result<String, dom::ChunkMissing> {
    let lang = state.lang.get_untracked();
    let rows = state.sweep.get_untracked();
    Ok(match what {
        Export::Markdown => sweep::markdown(lang, &rows, state.config.get_untracked().units),
        Export::Csv => sweep::csv(lang, &rows),
        Export::Embed(embed) => embed_snippet(
            lang,
            embed,
            &location::url_for(&untrack(|| state.query(embed))),
        ),
    })
}

/// Writes `text` to the clipboard; `Err` when there is no clipboard or it refused.
async fn copy_to_clipboard(text: &str) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or(JsValue::NULL)?;
    let navigator = window.navigator();
    // `navigator.clipboard` is undefined outside secure contexts: check before use.
    let clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))?;
    if clipboard.is_undefined() || clipboard.is_null() {
        return Err(JsValue::NULL);
    }
    let promise = clipboard
        .unchecked_into::<web_sys::Clipboard>()
        .write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map(drop)
}

/// Starts a download of `text` as a file named `name`.
fn download(name: &str, text: &str) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or(JsValue::NULL)?;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/csv;charset=utf-8");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    web_sys::Url::revoke_object_url(&url)
}

/// How long a "Copied" confirmation stays.
const CONFIRMATION: std::time::Duration = std::time::Duration::from_secs(4);

/// The `<iframe>` snippet for the current state, in the page's language: the
/// frame with an `id`, and the listener that sizes it to the height the
/// widget posts (README.md, "Links, the CLI and embedding"). The listener
/// takes messages only from that frame.
pub fn embed_snippet(lang: i18n::Lang, embed: Embed, url: &str) -> String {
    let escaped = url.replace('&', "&amp;").replace('"', "&quot;");
    let w = i18n::words(lang);
    // The compact answer fits in far less than the page (its e2e test keeps
    // it under 700 px); either way the listener sizes the frame.
    let height = if embed == Embed::Compact { 360 } else { 720 };
    format!(
        "<iframe id=\"batchfit\" src=\"{escaped}\" title=\"batchfit: {title}\" width=\"100%\" height=\"{height}\" style=\"border:0\" loading=\"lazy\"></iframe>\n\
         <script>\n\
         \x20 // {comment}\n\
         \x20 addEventListener(\"message\", (e) => {{\n\
         \x20   const frame = document.getElementById(\"batchfit\");\n\
         \x20   if (frame && e.source === frame.contentWindow && e.data && e.data.type === \"batchfit:resize\" && typeof e.data.height === \"number\") {{\n\
         \x20     frame.style.height = e.data.height + \"px\";\n\
         \x20   }}\n\
         \x20 }});\n\
         </script>",
        title = w.promise_short,
        comment = w.embed_comment,
    )
}

/// The actions section.
pub fn share(state: State) -> El {
    let lang = state.lang;
    let outcome: RwSignal<Option<Outcome>> = RwSignal::new(None);
    let snippet: RwSignal<Option<String>> = RwSignal::new(None);
    let copy = move |what: &'static str, text: String| {
        any_spawner::Executor::spawn_local(async move {
            let result = copy_to_clipboard(&text).await;
            outcome.set(Some(match result {
                Ok(()) => Outcome::Copied(what),
                Err(_) => Outcome::Fallback(text),
            }));
            // The confirmation goes after a while, unless another replaced it.
            set_timeout(
                move || {
                    if outcome.get_untracked() == Some(Outcome::Copied(what)) {
                        outcome.set(None);
                    }
                },
                CONFIRMATION,
            );
        });
    };
    // Writes `what`, then does `then` with it (or says the code is missing).
    let written = move |what: Export, then: Box<dyn FnOnce(String)>| {
        any_spawner::Executor::spawn_local(async move {
            match dom::later(export(what, state)).await {
                Ok(text) => then(text),
                Err(dom::ChunkMissing) => outcome.set(Some(Outcome::Missing)),
            }
        });
    };
    let button = |testid: &str,
                  label: fn(&i18n::Words) -> &'static str,
                  act: Box<dyn FnMut(web_sys::Event)>| {
        el("button")
            .attr("type", "button")
            .attr("data-testid", testid)
            .on(Ev::Click, act)
            .bind_text(i18n::tr(lang, label))
    };
    // The snippet of the full page, or of the answer alone: copied, and
    // shown for copying by hand.
    let embed_button =
        |testid: &'static str, label: fn(&i18n::Words) -> &'static str, embed: Embed| {
            button(
                testid,
                label,
                Box::new(move |_| {
                    written(
                        Export::Embed(embed),
                        Box::new(move |text| {
                            snippet.set(Some(text.clone()));
                            copy(testid, text);
                        }),
                    )
                }),
            )
        };
    el("section")
        .class("actions")
        .attr("aria-labelledby", "actions-title")
        .child(
            el("h2")
                .attr("id", "actions-title")
                .bind_text(i18n::tr(lang, |w| w.actions_title)),
        )
        .child(
            el("div")
                .class("buttons")
                .child(button(
                    "copy-link",
                    |w| w.copy_link,
                    Box::new(move |_| {
                        copy(
                            "copy-link",
                            location::url_for(&untrack(|| state.query(Embed::Off))),
                        )
                    }),
                ))
                .child(button(
                    "copy-table",
                    |w| w.copy_table,
                    Box::new(move |_| {
                        written(
                            Export::Markdown,
                            Box::new(move |text| copy("copy-table", text)),
                        )
                    }),
                ))
                .child(button(
                    "download-csv",
                    |w| w.download_csv,
                    Box::new(move |_| {
                        written(
                            Export::Csv,
                            Box::new(move |csv| {
                                outcome.set(Some(match download("batchfit-sweep.csv", &csv) {
                                    Ok(()) => Outcome::Downloaded,
                                    Err(_) => Outcome::Fallback(csv),
                                }));
                            }),
                        )
                    }),
                ))
                .child(embed_button("embed", |w| w.embed, Embed::Full))
                .child(embed_button(
                    "embed-compact",
                    |w| w.embed_compact,
                    Embed::Compact,
                )),
        )
        .child(
            el("p")
                .class("status")
                .attr("role", "status")
                .attr("data-testid", "share-status")
                .bind_text(rx(move || {
                    let w = i18n::words(lang.get());
                    match outcome.get() {
                        Some(Outcome::Copied("copy-link")) => w.copied_link,
                        Some(Outcome::Copied("copy-table")) => w.copied_table,
                        Some(Outcome::Copied(_)) => w.copied_embed,
                        Some(Outcome::Downloaded) => w.downloaded,
                        Some(Outcome::Fallback(_)) => w.copy_fallback,
                        Some(Outcome::Missing) => w.chunk_failed,
                        None => "",
                    }
                    .to_owned()
                })),
        )
        .show(
            rx(move || outcome.with(|o| matches!(o, Some(Outcome::Fallback(_))))),
            Box::new(move || {
                outcome
                    .with_untracked(|o| match o {
                        Some(Outcome::Fallback(text)) => Some(text.clone()),
                        _ => None,
                    })
                    .map(|t| selected_text("copy-fallback", t))
                    .into_iter()
                    .collect()
            }),
        )
        // The snippet of the last click, built again when a click gives another.
        .rebuild(
            rx(move || snippet.get()),
            Box::new(move |text: &Option<String>| {
                text.clone()
                    .map(|t| selected_text("embed-snippet", t))
                    .into_iter()
                    .collect()
            }),
        )
}

/// Read-only text, selected once shown, for copying by hand.
fn selected_text(testid: &str, text: String) -> El {
    let area = el("textarea")
        .class("copy-text")
        .attr("readonly", "")
        .attr("rows", "3")
        .attr("data-testid", testid);
    let element: web_sys::HtmlTextAreaElement = area.as_();
    element.set_value(&text);
    // Focus and select once it is in the document, so Ctrl+C / ⌘C copies it at once.
    any_spawner::Executor::spawn_local(async move {
        let _ = element.focus();
        element.select();
    });
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_escapes_the_url_for_an_attribute() {
        let snippet = embed_snippet(
            i18n::Lang::En,
            Embed::Full,
            "https://x.org/b/?a=1&embed=1\"",
        );
        assert!(snippet.contains("height=\"720\""), "{snippet}");
        let compact = embed_snippet(
            i18n::Lang::En,
            Embed::Compact,
            "https://x.org/b/?a=1&embed=compact",
        );
        assert!(compact.contains("height=\"360\""), "{compact}");
        assert!(
            snippet.starts_with(
                "<iframe id=\"batchfit\" src=\"https://x.org/b/?a=1&amp;embed=1&quot;\""
            ),
            "{snippet}"
        );
    }

    /// The README's snippet: an id, and a listener that sizes the frame.
    #[test]
    fn the_snippet_sizes_its_frame_in_the_language_of_the_page() {
        for lang in [i18n::Lang::En, i18n::Lang::Es] {
            let snippet = embed_snippet(lang, Embed::Full, "https://x.org/b/?embed=1");
            assert!(
                snippet.contains("addEventListener(\"message\""),
                "{snippet}"
            );
            assert!(snippet.contains("e.data.type === \"batchfit:resize\""));
            assert!(snippet.contains("e.source === frame.contentWindow"));
            assert!(snippet.contains("frame.style.height = e.data.height + \"px\""));
            let w = i18n::words(lang);
            assert!(snippet.contains(w.promise_short) && snippet.contains(w.embed_comment));
        }
        assert!(
            embed_snippet(i18n::Lang::Es, Embed::Full, "u").contains("batchfit: ¿cabe este lote?")
        );
    }
}
