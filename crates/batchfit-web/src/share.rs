//! Sharing and exporting: copy the link, copy the sweep as Markdown, download it
//! as CSV, and an `<iframe>` snippet for embedding. Each action confirms what it
//! did; where the clipboard is unavailable (an insecure context, a denied
//! permission) the text is shown selected for the user to copy by hand.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::i18n;
use crate::location;
use crate::state::State;
use crate::sweep;

/// What the last action did, shown in a status line.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Copied,
    Downloaded,
    /// The clipboard failed: show this text, selected.
    Fallback(String),
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

/// The `<iframe>` snippet for the current state.
pub fn embed_snippet(url: &str) -> String {
    let escaped = url.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        "<iframe src=\"{escaped}\" title=\"batchfit: will this batch fit?\" width=\"100%\" height=\"720\" style=\"border:0\" loading=\"lazy\"></iframe>"
    )
}

#[component]
pub fn Share(state: State) -> impl IntoView {
    let lang = state.lang;
    let w = move || i18n::words(lang.get());
    let outcome: RwSignal<Option<Outcome>> = RwSignal::new(None);
    let snippet: RwSignal<Option<String>> = RwSignal::new(None);
    let copy = move |text: String| {
        leptos::task::spawn_local(async move {
            let result = copy_to_clipboard(&text).await;
            outcome.set(Some(match result {
                Ok(()) => Outcome::Copied,
                Err(_) => Outcome::Fallback(text),
            }));
        });
    };
    let markdown = move || {
        let config = state.config.get_untracked();
        sweep::markdown(
            lang.get_untracked(),
            &state.sweep.get_untracked(),
            config.units,
        )
    };
    let csv = move || sweep::csv(&state.sweep.get_untracked());
    view! {
        <section class="actions" aria-labelledby="actions-title">
            <h2 id="actions-title">{i18n::text(lang, |w| w.actions_title)}</h2>
            <div class="buttons">
                <button type="button" data-testid="copy-link" on:click=move |_| copy(location::url_for(&state.config.get_untracked(), false))>
                    {i18n::text(lang, |w| w.copy_link)}
                </button>
                <button type="button" data-testid="copy-table" on:click=move |_| copy(markdown())>
                    {i18n::text(lang, |w| w.copy_table)}
                </button>
                <button type="button" data-testid="download-csv" on:click=move |_| {
                    let done = download("batchfit-sweep.csv", &csv());
                    outcome.set(Some(match done {
                        Ok(()) => Outcome::Downloaded,
                        Err(_) => Outcome::Fallback(csv()),
                    }));
                }>
                    {i18n::text(lang, |w| w.download_csv)}
                </button>
                <button type="button" data-testid="embed" on:click=move |_| {
                    let text = embed_snippet(&location::url_for(&state.config.get_untracked(), true));
                    snippet.set(Some(text.clone()));
                    copy(text);
                }>
                    {i18n::text(lang, |w| w.embed)}
                </button>
            </div>
            <p class="status" role="status" data-testid="share-status">
                {move || match outcome.get() {
                    Some(Outcome::Copied) => w().copied,
                    Some(Outcome::Downloaded) => w().downloaded,
                    Some(Outcome::Fallback(_)) => w().copy_fallback,
                    None => "",
                }}
            </p>
            {move || match outcome.get() {
                Some(Outcome::Fallback(text)) => Some(view! { <SelectedText testid="copy-fallback" text=text /> }),
                _ => None,
            }}
            {move || snippet.get().map(|text| view! {
                <SelectedText testid="embed-snippet" text=text />
            })}
        </section>
    }
}

/// Read-only text, selected once shown, for copying by hand.
#[component]
fn SelectedText(testid: &'static str, text: String) -> impl IntoView {
    let node = NodeRef::<leptos::html::Textarea>::new();
    // Focus and select once the element exists, so Ctrl+C / ⌘C copies it at once.
    Effect::new(move |_| {
        if let Some(area) = node.get() {
            area.set_value(&text);
            let _ = area.focus();
            area.select();
        }
    });
    view! {
        <textarea class="copy-text" readonly rows="3" data-testid=testid node_ref=node></textarea>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snippet_escapes_the_url_for_an_attribute() {
        let snippet = embed_snippet("https://x.org/b/?a=1&embed=1\"");
        assert!(
            snippet.starts_with("<iframe src=\"https://x.org/b/?a=1&amp;embed=1&quot;\""),
            "{snippet}"
        );
    }
}
