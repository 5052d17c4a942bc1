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
//! section ([`El::rebuild`], [`El::switch`], [`El::list`]) it was built in,
//! which drops it with its event listeners when that part is rebuilt or
//! removed. A binding writes to the DOM only when its value changed.

use std::cell::RefCell;

use leptos::prelude::*;
use leptos::reactive::effect::RenderEffect;
use send_wrapper::SendWrapper;
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

pub fn document() -> web_sys::Document {
    DOCUMENT.with(Clone::clone)
}

/// Computes `value` now and whenever a signal it read changes, and applies it
/// when it differs from the last one, for as long as the current owner lives.
pub fn watch<T: PartialEq + 'static>(value: Rx<T>, apply: Box<dyn Fn(&T)>) {
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

/// An element under construction.
#[derive(Clone, Debug)]
pub struct El(pub web_sys::Element);

/// A new element: `el("div")`.
pub fn el(tag: &str) -> El {
    El(document()
        .create_element(tag)
        .expect("tag names are literals"))
}

impl El {
    pub fn attr(self, name: &str, value: &str) -> El {
        let _ = self.0.set_attribute(name, value);
        self
    }

    pub fn class(self, value: &str) -> El {
        self.attr("class", value)
    }

    /// A text child.
    pub fn text(self, text: &str) -> El {
        let _ = self.0.append_with_str_1(text);
        self
    }

    pub fn child(self, child: El) -> El {
        let _ = self.0.append_child(&child.0);
        self
    }

    pub fn children(self, children: impl IntoIterator<Item = El>) -> El {
        for child in children {
            let _ = self.0.append_child(&child.0);
        }
        self
    }

    /// A text child, returned for a binding that writes several nodes at once.
    pub fn text_node(&self) -> web_sys::Text {
        let node = document().create_text_node("");
        let _ = self.0.append_child(&node);
        node
    }

    /// A text child that follows `text`.
    pub fn bind_text(self, text: Rx<String>) -> El {
        let node = document().create_text_node("");
        let _ = self.0.append_child(&node);
        watch(text, Box::new(move |text| node.set_data(text)));
        self
    }

    /// An attribute that follows `value`; `None` removes it.
    pub fn bind_attr(self, name: &'static str, value: Rx<Option<String>>) -> El {
        let element = self.0.clone();
        watch(
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

    /// The class `name`, present while `on` is true.
    pub fn bind_class(self, name: &'static str, on: Rx<bool>) -> El {
        let classes = self.0.class_list();
        watch(
            on,
            Box::new(move |&on| {
                let _ = classes.toggle_with_force(name, on);
            }),
        );
        self
    }

    /// A DOM property (`value`, `checked`) that follows `value`: the property,
    /// not the attribute, is what a form control shows once it has been used.
    pub fn bind_prop(self, name: &'static str, value: Rx<JsValue>) -> El {
        let element = self.0.clone();
        watch(
            value,
            Box::new(move |value| {
                let _ = js_sys::Reflect::set(&element, &name.into(), value);
            }),
        );
        self
    }

    /// Calls `handler` on each `event`, for as long as the current owner lives
    /// (a rebuilt section frees the listeners of what it replaced).
    pub fn on(self, event: &'static str, handler: Box<dyn FnMut(web_sys::Event)>) -> El {
        let listener = Closure::wrap(handler);
        let _ = self
            .0
            .add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        // Owners may be cleaned up from any thread in general; this page has one.
        let attached = SendWrapper::new((self.0.clone(), listener));
        Owner::on_cleanup(move || {
            let (element, listener) = &*attached;
            let _ = element
                .remove_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        });
        self
    }

    /// Children rebuilt by `build` whenever `key` changes (a form, a row set,
    /// a message that comes and goes); the bindings built in them live until
    /// they are rebuilt.
    pub fn switch(self, key: Rx<u32>, build: Box<dyn Fn(u32) -> Vec<El>>) -> El {
        self.rebuild(key, Box::new(move |&key| build(key)))
    }

    /// Children built from `value`, and built again whenever it changes.
    pub fn rebuild<T: PartialEq + 'static>(self, value: Rx<T>, build: Build<T>) -> El {
        let parent = self.0.clone();
        let end = document().create_comment("");
        let _ = parent.append_child(&end);
        // The children's bindings belong to an owner of their own, a child of
        // the one they are built in: the value's effect reruns on every change
        // of what the value reads, and its own owner is cleaned up at each rerun.
        let outer = Owner::current().unwrap_or_default();
        let shown: RefCell<Option<Owner>> = RefCell::new(None);
        let nodes: RefCell<Vec<El>> = RefCell::new(Vec::new());
        watch(
            value,
            Box::new(move |value| {
                if let Some(owner) = shown.take() {
                    owner.cleanup();
                }
                nodes.take().iter().for_each(|node| node.0.remove());
                let owner = outer.with(Owner::new);
                let built = owner.with(|| untrack(|| build(value)));
                for node in &built {
                    let _ = parent.insert_before(&node.0, Some(&end));
                }
                *shown.borrow_mut() = Some(owner);
                *nodes.borrow_mut() = built;
            }),
        );
        self
    }

    /// `count` children made by `item` from their position: when the count
    /// changes, only the children past the shorter count are added or removed
    /// (with their bindings); the others stay and update themselves.
    pub fn list(self, count: Rx<usize>, item: Box<dyn Fn(usize) -> El>) -> El {
        let parent = self.0.clone();
        let end = document().create_comment("");
        let _ = parent.append_child(&end);
        let outer = Owner::current().unwrap_or_default();
        let shown: RefCell<Vec<(Owner, El)>> = RefCell::new(Vec::new());
        watch(
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
        let handle = mount_to(host.clone().unchecked_into(), move || build(&parent));
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
            watch(rx(move || n.get() / 2), Box::new(move |_| write()));
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
            let section = el("div").switch(
                rx(move || key.get()),
                Box::new(move |_| {
                    let (run, clicked) = (run.clone(), clicked.clone());
                    vec![
                        el("button")
                            .on("click", Box::new(move |_| clicked()))
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
