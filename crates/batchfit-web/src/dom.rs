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
    pub fn on(self, event: &str, handler: Box<dyn FnMut(web_sys::Event)>) -> El {
        let listener = Closure::wrap(handler);
        let _ = self
            .0
            .add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        // Owners may be cleaned up from any thread in general; this page has one.
        let listener = SendWrapper::new(listener);
        Owner::on_cleanup(move || drop(listener));
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
