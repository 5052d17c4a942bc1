//! The page's elements, built with web-sys and kept current by Leptos's
//! reactive graph (signals, memos, render effects and their owners).
//!
//! Why not Leptos's `view!`: its typed view trees compile into code for every
//! distinct element, attribute and closure on the page. The same page built
//! here is 71 KB gzipped smaller (221,814 → 151,258 bytes of WASM; issue 6's
//! page-weight budget, docs/performance-log.md). Every binding takes a boxed
//! closure, so the code that keeps a text, an attribute or a section current is
//! compiled once for the page rather than once per place it is used.
//!
//! A binding is a `RenderEffect` owned by the reactive owner current when the
//! element is built: the app's root owner, or the owner of the part of a
//! section ([`El::show`], [`El::rebuild`], [`El::list`]) it was built in,
//! which drops it with its event listeners when that part is rebuilt or
//! removed. A binding writes to the DOM only when its value changed.
//!
//! For a Leptos developer, the pieces map onto `view!`:
//!
//! | `view!` | here |
//! |---|---|
//! | `<p class="note">{move \|\| text()}</p>` | `el("p").class("note").bind_text(rx(move \|\| text()))` |
//! | `attr:title=move \|\| …` | `.bind_attr("title", rx(move \|\| Some(…)))` |
//! | `class:stale=move \|\| …` | `.bind_class("stale", rx(move \|\| …))` |
//! | `prop:value=move \|\| …` | `.bind_prop("value", rx(move \|\| ….into()))` |
//! | `style:width="40%"` | `.style("width", "40%")` |
//! | `on:input=move \|ev\| …` | `.on(Ev::Input, Box::new(move \|ev\| …))` |
//! | `<Show when=…>` | `.show(rx(move \|\| …), Box::new(move \|\| vec![…]))` |
//! | a keyed section (`move \|\| match … { … }`) | `.rebuild(rx(move \|\| key), Box::new(move \|key\| …))` |
//! | `<For>` by position | `.list(rx(move \|\| len), Box::new(move \|i\| …))` |
//! | `RenderEffect::new` that writes the DOM | `dom::bind(rx(move \|\| value), Box::new(move \|v\| …))` |

use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;

use crate::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::Closure;

/// A value that follows the reactive graph: computed again whenever a signal
/// it read changes.
pub type Rx<T> = Box<dyn Fn() -> T>;

/// Builds the children of a section from the value it shows.
pub type Build<T> = Box<dyn Fn(&T) -> Vec<El>>;

/// Boxes a reactive closure (the one generic step, a few bytes per use).
pub fn rx<T>(f: impl Fn() -> T + 'static) -> Rx<T> {
    Box::new(f)
}

thread_local! {
    static DOCUMENT: web_sys::Document = web_sys::window()
        .and_then(|w| w.document())
        .expect("the page runs in a document");
}

/// Cleanups that hold JS objects (an event listener, an observer), which are
/// neither `Send` nor `Sync` as an owner's cleanup must be: the page has one
/// thread, so they wait here and the owner's cleanup names their slot. (A
/// `SendWrapper` would do the same by checking the thread on every use, and
/// brings `std::thread::current` into the module: 2 KB gzipped.)
type LocalCleanups = RefCell<(Vec<Option<Box<dyn FnOnce()>>>, Vec<usize>)>;

thread_local! {
    static LOCAL_CLEANUPS: LocalCleanups = RefCell::default();
}

/// Runs `cleanup` when the current owner is cleaned up, like
/// `Owner::on_cleanup`, for a closure that holds JS objects.
pub fn on_cleanup_local(cleanup: impl FnOnce() + 'static) {
    let slot = LOCAL_CLEANUPS.with_borrow_mut(|(slots, free)| {
        let cleanup: Box<dyn FnOnce()> = Box::new(cleanup);
        match free.pop() {
            Some(slot) => {
                slots[slot] = Some(cleanup);
                slot
            }
            None => {
                slots.push(Some(cleanup));
                slots.len() - 1
            }
        }
    });
    Owner::on_cleanup(move || {
        let cleanup = LOCAL_CLEANUPS.with_borrow_mut(|(slots, free)| {
            free.push(slot);
            slots.get_mut(slot).and_then(Option::take)
        });
        // Run with the list released: a cleanup may drop owners of its own.
        if let Some(cleanup) = cleanup {
            cleanup();
        }
    });
}

pub fn document() -> web_sys::Document {
    DOCUMENT.with(Clone::clone)
}

/// Computes `value` now and whenever a signal it read changes, and applies it
/// when it differs from the last one, for as long as the current owner lives:
/// the one render effect every binding is made of.
///
/// ```ignore
/// // One effect writes two attributes, only when the bytes change.
/// dom::bind(
///     rx(move || estimate.with(|e| e.required)),
///     Box::new(move |bytes| {
///         let _ = cell.set_attribute("data-bytes", &bytes.to_string());
///         let _ = cell.set_attribute("title", &i18n::exact_bytes(lang, *bytes));
///     }),
/// );
/// ```
pub fn bind<T: PartialEq + 'static>(value: Rx<T>, apply: Box<dyn Fn(&T)>) {
    let last: RefCell<Option<T>> = RefCell::new(None);
    effect(Box::new(move || {
        let now = value();
        let mut last = last.borrow_mut();
        if last.as_ref() != Some(&now) {
            apply(&now);
            *last = Some(now);
        }
    }));
}

/// Runs `run` now and whenever a signal it read changes, for as long as the
/// current owner lives. Every binding is this one effect type: its code is
/// compiled once, whatever the type of the value a binding compares.
fn effect(run: Box<dyn Fn()>) {
    let handle = RenderEffect::new(move |_: Option<()>| run());
    Owner::on_cleanup(move || drop(handle));
}

/// The children of a rebuilt section, before an end marker in their parent,
/// and the reactive owner of their bindings. Not generic, so that each key
/// type of [`El::rebuild`] adds only its comparison.
struct Section {
    parent: web_sys::Element,
    end: web_sys::Comment,
    /// The owner current where the section was built: the children's owners
    /// are its children.
    outer: Owner,
    shown: RefCell<Option<(Owner, Vec<El>)>>,
}

impl Section {
    fn new(parent: &web_sys::Element) -> Self {
        let end = document().create_comment("");
        let _ = parent.append_child(&end);
        Self {
            parent: parent.clone(),
            end,
            outer: Owner::current().unwrap_or_default(),
            shown: RefCell::new(None),
        }
    }

    /// Removes the children and their bindings, and builds new ones under an
    /// owner of their own (the value's effect reruns on every change of what
    /// the value reads; only `build`'s children depend on it).
    fn replace(&self, build: &dyn Fn() -> Vec<El>) {
        if let Some((owner, nodes)) = self.shown.take() {
            owner.cleanup();
            nodes.iter().for_each(|node| node.0.remove());
        }
        let owner = self.outer.with(Owner::new);
        let built = owner.with(|| untrack(build));
        for node in &built {
            let _ = self.parent.insert_before(&node.0, Some(&self.end));
        }
        *self.shown.borrow_mut() = Some((owner, built));
    }
}

/// Code of the page kept out of the WASM module it starts with: a part of
/// the module (a chunk) that `wasm-split` cut out of the release build
/// (`cargo xtask dist`, docs/performance-log.md) and that is fetched the
/// first time it is needed. The functions in it carry
/// `#[cfg_attr(batchfit_split, wasm_split(name, fallible, preload(preload_name)))]`,
/// return `Result<_, ChunkMissing>` and are called through [`now`];
/// [`chunk!`] names the preload. A build without the split (tests, `cargo
/// xtask serve`) has the code in the module: its chunks are always ready.
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    state: RwSignal<ChunkState>,
    /// Resolves to whether the chunk arrived.
    preload: fn() -> Pin<Box<dyn Future<Output = bool>>>,
}

/// Where a [`Chunk`]'s code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ChunkState {
    NotAskedFor,
    OnItsWay,
    Here,
    /// The fetch failed; [`Chunk::retry`] asks again.
    Missing,
}

/// A chunk that could not be fetched (the network, or a deployment that
/// replaced it): what needed it says so instead of panicking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkMissing;

#[cfg(batchfit_split)]
impl From<wasm_split_helpers::SplitLoaderError> for ChunkMissing {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        Self
    }
}

impl Chunk {
    #[cfg(batchfit_split)]
    pub fn new(preload: fn() -> Pin<Box<dyn Future<Output = bool>>>) -> Self {
        Self {
            state: RwSignal::new(ChunkState::NotAskedFor),
            preload,
        }
    }

    /// A chunk whose code is in the module already.
    #[cfg(not(batchfit_split))]
    pub fn here() -> Self {
        Self {
            state: RwSignal::new(ChunkState::Here),
            preload: || Box::pin(async { true }),
        }
    }

    /// Whether the chunk's code is here (tracked); the first call asks for it.
    pub fn ready(self) -> bool {
        let state = self.state.get();
        if state == ChunkState::NotAskedFor {
            self.state.update_untracked(|s| *s = ChunkState::OnItsWay);
            let preload = self.preload;
            let chunk = self.state;
            any_spawner::Executor::spawn_local(async move {
                let arrived = preload().await;
                chunk.set(if arrived {
                    ChunkState::Here
                } else {
                    ChunkState::Missing
                });
            });
        }
        state == ChunkState::Here
    }

    /// Whether fetching the chunk failed (tracked).
    pub fn failed(self) -> bool {
        self.state.get() == ChunkState::Missing
    }

    /// After a failure, lets the next [`Chunk::ready`] ask again.
    pub fn retry(self) {
        if self.state.get_untracked() == ChunkState::Missing {
            self.state.set(ChunkState::NotAskedFor);
        }
    }
}

/// `chunk!(preload_name)`: the [`Chunk`] whose code `preload_name` loads.
macro_rules! chunk {
    ($preload:ident) => {{
        #[cfg(batchfit_split)]
        {
            $crate::dom::Chunk::new(|| Box::pin(async { $preload().await.is_ok() }))
        }
        #[cfg(not(batchfit_split))]
        {
            $crate::dom::Chunk::here()
        }
    }};
}
pub(crate) use chunk;

/// The value of a call into a chunk that [`Chunk::ready`] said is here: in
/// the split build the call is a future, which is then ready at its first
/// poll (its chunk is loaded: the loader's cell is set); `T::default()` if it
/// were not, or if the chunk were missing.
#[cfg(batchfit_split)]
pub fn now<T: Default>(call: impl Future<Output = Result<T, ChunkMissing>>) -> T {
    let mut call = core::pin::pin!(call);
    let mut context = core::task::Context::from_waker(core::task::Waker::noop());
    match call.as_mut().poll(&mut context) {
        core::task::Poll::Ready(value) => value.unwrap_or_default(),
        core::task::Poll::Pending => T::default(),
    }
}

/// Without the split, a call into a chunk is a plain call, and never misses.
#[cfg(not(batchfit_split))]
pub fn now<T: Default>(value: Result<T, ChunkMissing>) -> T {
    value.unwrap_or_default()
}

/// A call into a chunk from async code (a click's action): its value once
/// the chunk is here, fetched first if need be.
#[cfg(batchfit_split)]
pub async fn later<T>(
    call: impl Future<Output = Result<T, ChunkMissing>>,
) -> Result<T, ChunkMissing> {
    call.await
}

/// Without the split, the call's value as it is.
#[cfg(not(batchfit_split))]
pub async fn later<T>(value: Result<T, ChunkMissing>) -> Result<T, ChunkMissing> {
    value
}

/// Whether `element` is within a viewport's height of the viewport
/// (tracked): a chart far from the screen is not redrawn as the setup
/// changes, and is drawn again with the current data when it comes near.
/// In a build without the split every chunk's code is in the module:
/// every element is near from the start.
pub fn near_viewport(element: &web_sys::Element) -> RwSignal<bool> {
    let near = RwSignal::new(!cfg!(batchfit_split));
    if near.get_untracked() {
        return near;
    }
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let seen = entries.iter().any(|entry| {
            entry
                .unchecked_into::<web_sys::IntersectionObserverEntry>()
                .is_intersecting()
        });
        if seen != near.get_untracked() {
            near.set(seen);
        }
    });
    let options = web_sys::IntersectionObserverInit::new();
    options.set_root_margin("100% 0px");
    if let Ok(observer) =
        web_sys::IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options)
    {
        observer.observe(element);
        on_cleanup_local(move || {
            observer.disconnect();
            drop(callback);
        });
    } else {
        near.set(true);
    }
    near
}

/// Whether `element`, whose nearness [`near_viewport`] gave as `near`, is
/// wanted (tracked; it stays true): on the screen, or near it once the
/// visitor has scrolled. Content whose code is a [`Chunk`] asks for it then:
/// a visitor who reads the first screen fetches nothing more, one who
/// scrolls asks for it a viewport's height before it shows; what it built
/// stays when it is scrolled past.
pub fn wanted(element: &web_sys::Element, near: RwSignal<bool>) -> RwSignal<bool> {
    let wanted = RwSignal::new(!cfg!(batchfit_split));
    if wanted.get_untracked() {
        return wanted;
    }
    let element = element.clone();
    let scrolled = RwSignal::new(false);
    let on_scroll = Closure::<dyn FnMut()>::new(move || scrolled.set(true));
    let window = window();
    let options = web_sys::AddEventListenerOptions::new();
    options.set_once(true);
    options.set_passive(true);
    let _ = window.add_event_listener_with_callback_and_add_event_listener_options(
        "scroll",
        on_scroll.as_ref().unchecked_ref(),
        &options,
    );
    on_cleanup_local(move || drop(on_scroll));
    effect(Box::new(move || {
        if near.get()
            && !wanted.get_untracked()
            && (scrolled.get()
                || window
                    .inner_height()
                    .ok()
                    .and_then(|h| h.as_f64())
                    .is_some_and(|h| element.get_bounding_client_rect().top() < h))
        {
            wanted.set(true);
        }
    }));
    wanted
}

/// The line that stands for a [`Chunk`]'s content until it is here: a status
/// while it is on its way, an alert if it could not be fetched.
pub fn chunk_status(failed: bool, text: Rx<String>) -> El {
    el("p")
        .class(if failed { "field-error" } else { "legend" })
        .attr("role", if failed { "alert" } else { "status" })
        .attr("data-testid", "chunk-status")
        .bind_text(text)
}

/// [`details_built_when_open`] for content whose code is in a [`Chunk`]: a
/// status line while the chunk is on its way (`status(false)`), or if it
/// could not be fetched (`status(true)`); reopening the section asks again.
pub fn details_loaded_when_open(
    summary: Rx<String>,
    status: Rc<dyn Fn(bool) -> String>,
    chunk: Chunk,
    build: Box<dyn Fn() -> Vec<El>>,
) -> El {
    let build: Rc<dyn Fn() -> Vec<El>> = build.into();
    details_built_when_open(
        summary,
        Box::new(move || {
            chunk.retry();
            let status = status.clone();
            let build = build.clone();
            vec![el("div").rebuild(
                rx(move || (chunk.ready(), chunk.failed())),
                Box::new(move |&(ready, failed)| {
                    if ready {
                        build()
                    } else {
                        let status = status.clone();
                        vec![chunk_status(failed, rx(move || status(failed)))]
                    }
                }),
            )]
        }),
    )
}

/// A `<details>` whose content is built when it is first opened and dropped
/// with its bindings when it is closed, so that nothing in it runs on an
/// edit while it is closed (the page's on-demand panels).
pub fn details_built_when_open(summary: Rx<String>, build: Box<dyn Fn() -> Vec<El>>) -> El {
    let open = RwSignal::new(false);
    let details = el("details").child(el("summary").bind_text(summary));
    let node = details.node().clone();
    details
        .on(
            Ev::Toggle,
            Box::new(move |_| open.set(node.has_attribute("open"))),
        )
        .show(rx(move || open.get()), build)
}

/// The DOM events the page listens to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// Each edit of a text field.
    Input,
    /// A field left with a new value, a select or checkbox changed.
    Change,
    Click,
    Submit,
    /// A `<details>` opened or closed.
    Toggle,
    /// A mouse, pen or finger moved over the element.
    PointerMove,
}

impl Ev {
    /// The event's DOM name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Input => "input",
            Self::Change => "change",
            Self::Click => "click",
            Self::Submit => "submit",
            Self::Toggle => "toggle",
            Self::PointerMove => "pointermove",
        }
    }
}

/// Runs `build` under a new reactive owner, with the browser's executor
/// installed for effects and tasks, as `leptos::mount::mount_to` does for a
/// view: the bindings `build` makes live as long as the returned owner
/// (forgotten, for the page's life).
///
/// ```ignore
/// std::mem::forget(dom::mount(move || batchfit_web::app(&body)));
/// ```
pub fn mount(build: impl FnOnce()) -> Owner {
    // An error only says that the executor is already installed.
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.with(build);
    owner
}

/// An element under construction; [`El::node`] is the DOM element itself.
#[derive(Clone, Debug)]
pub struct El(web_sys::Element);

/// A new element: `el("div")`.
///
/// ```ignore
/// el("p").class("hint").attr("id", "batch-hint").text("Samples per step.")
/// ```
pub fn el(tag: &str) -> El {
    El(document()
        .create_element(tag)
        .expect("tag names are literals"))
}

impl El {
    /// The DOM element, for a binding that writes it directly.
    pub fn node(&self) -> &web_sys::Element {
        &self.0
    }

    /// A fixed attribute: `el("input").attr("type", "text")`.
    pub fn attr(self, name: &str, value: &str) -> El {
        let _ = self.0.set_attribute(name, value);
        self
    }

    /// A fixed class list: `el("p").class("note")`.
    pub fn class(self, value: &str) -> El {
        self.attr("class", value)
    }

    /// A fixed style property, set through the CSSOM (the page's
    /// Content-Security-Policy refuses style attributes, docs/security.md):
    /// `el("span").style("width", "40%")`.
    pub fn style(self, property: &str, value: &str) -> El {
        let _ = self
            .as_::<web_sys::HtmlElement>()
            .style()
            .set_property(property, value);
        self
    }

    /// A fixed text child: `el("span").text("✓ ")`.
    pub fn text(self, text: &str) -> El {
        let _ = self.0.append_with_str_1(text);
        self
    }

    /// Appends `child`: `el("tr").child(el("th")).child(el("td"))`.
    pub fn child(self, child: El) -> El {
        let _ = self.0.append_child(&child.0);
        self
    }

    /// Appends every element of `children`, in order.
    pub fn children(self, children: impl IntoIterator<Item = El>) -> El {
        for child in children {
            let _ = self.0.append_child(&child.0);
        }
        self
    }

    /// A text child, returned for a binding that writes several nodes at once
    /// (see [`bind`]).
    pub fn text_node(&self) -> web_sys::Text {
        let node = document().create_text_node("");
        let _ = self.0.append_child(&node);
        node
    }

    /// A text child that follows `text`:
    /// `el("h3").bind_text(i18n::tr(lang, |w| w.what_if_title))`.
    pub fn bind_text(self, text: Rx<String>) -> El {
        let node = document().create_text_node("");
        let _ = self.0.append_child(&node);
        bind(text, Box::new(move |text| node.set_data(text)));
        self
    }

    /// An attribute that follows `value`; `None` removes it:
    /// `.bind_attr("hidden", rx(move || (!shown()).then(String::new)))`.
    pub fn bind_attr(self, name: &'static str, value: Rx<Option<String>>) -> El {
        let element = self.0.clone();
        bind(
            value,
            Box::new(move |value| {
                let _ = match value {
                    Some(value) => element.set_attribute(name, value),
                    None => element.remove_attribute(name),
                };
            }),
        );
        self
    }

    /// The class `name`, present while `on` is true:
    /// `.bind_class("invalid", rx(move || error().is_some()))`.
    pub fn bind_class(self, name: &'static str, on: Rx<bool>) -> El {
        let classes = self.0.class_list();
        bind(
            on,
            Box::new(move |&on| {
                let _ = classes.toggle_with_force(name, on);
            }),
        );
        self
    }

    /// A DOM property (`value`, `checked`) that follows `value`: the property,
    /// not the attribute, is what a form control shows once it has been used:
    /// `.bind_prop("value", rx(move || text.get().into()))`.
    pub fn bind_prop(self, name: &'static str, value: Rx<JsValue>) -> El {
        let element = self.0.clone();
        bind(
            value,
            Box::new(move |value| {
                let _ = js_sys::Reflect::set(&element, &name.into(), value);
            }),
        );
        self
    }

    /// Calls `handler` on each `event`, for as long as the current owner lives
    /// (a rebuilt section frees the listeners of what it replaced):
    /// `.on(Ev::Input, Box::new(move |ev| text.set(event_value(&ev))))`.
    pub fn on(self, event: Ev, handler: Box<dyn FnMut(web_sys::Event)>) -> El {
        let event = event.name();
        let listener = Closure::wrap(handler);
        let _ = self
            .0
            .add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        let element = self.0.clone();
        on_cleanup_local(move || {
            let _ = element
                .remove_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        });
        self
    }

    /// Children built by `build` while `when` is true, and removed (with their
    /// bindings and listeners) when it turns false, like Leptos's `<Show>`:
    ///
    /// ```ignore
    /// el("div").show(
    ///     rx(move || state.stale()),
    ///     Box::new(move || vec![el("p").class("stale-note").bind_text(i18n::tr(lang, |w| w.stale))]),
    /// )
    /// ```
    pub fn show(self, when: Rx<bool>, build: Box<dyn Fn() -> Vec<El>>) -> El {
        self.rebuild(
            when,
            Box::new(move |&shown| if shown { build() } else { Vec::new() }),
        )
    }

    /// Children built from `value`, and built again whenever it changes: a
    /// section keyed by an enum (which form, which badge) or by a set.
    ///
    /// ```ignore
    /// el("div").rebuild(
    ///     rx(move || state.form.get()),
    ///     Box::new(move |&form| match form { Form::Activations => activations_form(state), … }),
    /// )
    /// ```
    pub fn rebuild<T: PartialEq + 'static>(self, value: Rx<T>, build: Build<T>) -> El {
        let section = Section::new(&self.0);
        bind(
            value,
            Box::new(move |value| section.replace(&|| build(value))),
        );
        self
    }

    /// `count` children made by `item` from their position: when the count
    /// changes, only the children past the shorter count are added or removed
    /// (with their bindings); the others stay and update themselves:
    /// `el("tbody").list(rx(move || state.sweep.with(Vec::len)), Box::new(move |i| row(state, i)))`.
    pub fn list(self, count: Rx<usize>, item: Box<dyn Fn(usize) -> El>) -> El {
        let parent = self.0.clone();
        let end = document().create_comment("");
        let _ = parent.append_child(&end);
        let outer = Owner::current().unwrap_or_default();
        let shown: RefCell<Vec<(Owner, El)>> = RefCell::new(Vec::new());
        bind(
            count,
            Box::new(move |&count| {
                let mut shown = shown.borrow_mut();
                while shown.len() > count {
                    if let Some((owner, node)) = shown.pop() {
                        node.0.remove();
                        owner.cleanup();
                    }
                }
                while shown.len() < count {
                    let owner = outer.with(Owner::new);
                    let node = owner.with(|| untrack(|| item(shown.len())));
                    let _ = parent.insert_before(&node.0, Some(&end));
                    shown.push((owner, node));
                }
            }),
        );
        self
    }

    /// The element as the web-sys type it is (`HtmlTextAreaElement`, ...).
    pub fn as_<T: JsCast>(&self) -> T {
        self.0.clone().unchecked_into()
    }
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    use super::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// Builds into a fresh element under a reactive owner, as the app is
    /// mounted; the owner lives as long as the returned handle.
    fn mounted(build: impl FnOnce(&web_sys::Element) + 'static) -> (web_sys::Element, impl Sized) {
        let host = el("div").0;
        document()
            .body()
            .expect("a body")
            .append_child(&host)
            .expect("append");
        let parent = host.clone();
        let handle = mount(move || build(&parent));
        (host, handle)
    }

    /// Waits one macrotask, by which time the effects a change woke have run.
    async fn settle() {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .expect("a window")
                .set_timeout_with_callback(&resolve)
                .expect("setTimeout");
        });
        wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .expect("the timer fires");
    }

    fn count() -> (Rc<Cell<u32>>, impl Fn() + Clone + 'static) {
        let counter = Rc::new(Cell::new(0));
        let bump = counter.clone();
        (counter, move || bump.set(bump.get() + 1))
    }

    fn all(host: &web_sys::Element, selector: &str) -> Vec<web_sys::Element> {
        let found = host.query_selector_all(selector).expect("a selector");
        (0..found.length())
            .filter_map(|i| found.get(i))
            .map(|node| node.unchecked_into())
            .collect()
    }

    fn click(element: &web_sys::Element) {
        let event = web_sys::Event::new("click").expect("an event");
        element.dispatch_event(&event).expect("dispatch");
    }

    #[wasm_bindgen_test]
    async fn a_binding_applies_only_a_changed_value() {
        let n = RwSignal::new(0);
        let (writes, write) = count();
        let (_host, _app) = mounted(move |_| {
            bind(rx(move || n.get() / 2), Box::new(move |_| write()));
        });
        assert_eq!(writes.get(), 1, "applied once when built");
        n.set(1);
        settle().await;
        assert_eq!(writes.get(), 1, "1 / 2 is still 0: nothing to write");
        n.set(2);
        settle().await;
        assert_eq!(writes.get(), 2);
    }

    #[wasm_bindgen_test]
    async fn a_rebuilt_section_drops_its_bindings_and_listeners() {
        let key = RwSignal::new(0u32);
        let other = RwSignal::new(0);
        let (runs, run) = count();
        let (clicks, clicked) = count();
        let (host, _app) = mounted(move |parent| {
            let section = el("div").rebuild(
                rx(move || key.get()),
                Box::new(move |_| {
                    let (run, clicked) = (run.clone(), clicked.clone());
                    vec![
                        el("button")
                            .on(Ev::Click, Box::new(move |_| clicked()))
                            .bind_text(rx(move || {
                                run();
                                other.get().to_string()
                            })),
                    ]
                }),
            );
            let _ = parent.append_child(&section.0);
        });
        let old = all(&host, "button").remove(0);
        click(&old);
        assert_eq!((runs.get(), clicks.get()), (1, 1));

        key.set(1);
        settle().await;
        let buttons = all(&host, "button");
        assert_eq!(buttons.len(), 1, "the old button is gone");
        assert!(!buttons[0].is_same_node(Some(&old)));
        assert_eq!(runs.get(), 2, "the new button's binding ran once");

        other.set(5);
        settle().await;
        assert_eq!(runs.get(), 3, "only the new binding follows the signal");
        assert_eq!(buttons[0].text_content().as_deref(), Some("5"));
        // A listener left attached would count this click (a leaked closure)
        // or throw from a dropped one, which the window reports as an error.
        let (errors, errored) = count();
        let on_error = Closure::<dyn FnMut()>::new(errored);
        let window = web_sys::window().expect("a window");
        let _ = window.add_event_listener_with_callback("error", on_error.as_ref().unchecked_ref());
        click(&old);
        let _ =
            window.remove_event_listener_with_callback("error", on_error.as_ref().unchecked_ref());
        assert_eq!(clicks.get(), 1, "the old button's listener was removed");
        assert_eq!(errors.get(), 0, "no listener of a dropped closure was left");
        click(&buttons[0]);
        assert_eq!(clicks.get(), 2);
    }

    #[wasm_bindgen_test]
    async fn rebuilding_reuses_the_local_cleanups_slots() {
        let key = RwSignal::new(0u32);
        let (_host, _app) = mounted(move |parent| {
            let section = el("div").rebuild(
                rx(move || key.get()),
                Box::new(|_| {
                    (0..3)
                        .map(|_| el("button").on(Ev::Click, Box::new(|_| ())))
                        .collect()
                }),
            );
            let _ = parent.append_child(&section.0);
        });
        let held =
            || LOCAL_CLEANUPS.with_borrow(|(slots, free)| (slots.len(), slots.len() - free.len()));
        let (_, before) = held();
        for round in 1..=50 {
            key.set(round);
            settle().await;
        }
        let (slots, after) = held();
        assert_eq!(
            after, before,
            "each rebuild frees the listeners it replaced"
        );
        assert!(slots <= before + 3, "freed slots are reused: {slots} slots");
    }

    #[wasm_bindgen_test]
    async fn a_list_keeps_its_items_and_drops_only_those_past_its_length() {
        let length = RwSignal::new(2usize);
        let value = RwSignal::new(0);
        let (runs, run) = count();
        let (host, _app) = mounted(move |parent| {
            let list = el("ul").list(
                rx(move || length.get()),
                Box::new(move |index| {
                    let run = run.clone();
                    el("li").bind_text(rx(move || {
                        run();
                        format!("{index}:{}", value.get())
                    }))
                }),
            );
            let _ = parent.append_child(&list.0);
        });
        let first = all(&host, "li");
        assert_eq!(first.len(), 2);

        length.set(3);
        settle().await;
        let grown = all(&host, "li");
        assert_eq!(grown.len(), 3);
        assert!(grown[0].is_same_node(Some(&first[0])) && grown[1].is_same_node(Some(&first[1])));
        assert_eq!(runs.get(), 3, "only the new item was built");

        length.set(1);
        settle().await;
        let shrunk = all(&host, "li");
        assert_eq!(shrunk.len(), 1);
        assert!(shrunk[0].is_same_node(Some(&first[0])));

        value.set(7);
        settle().await;
        assert_eq!(runs.get(), 4, "the removed items' bindings are gone");
        assert_eq!(shrunk[0].text_content().as_deref(), Some("0:7"));
    }
}
