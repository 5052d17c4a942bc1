//! The page's state: the raw text of every field, keyed by its URL parameter
//! name, and what the core derives from it. Validation is the core's: the texts
//! are written into a query string and read back with `query::parse`, so the
//! page, shared links and the CLI can never disagree about what a value means.

use batchfit_core::fields::{self, ParamError, Problem};
use batchfit_core::memory::{self, Estimate, SweepRow};
use batchfit_core::param::{self, Input};
use batchfit_core::presets::Device;
use batchfit_core::query::{self, Config, Embed, Form, Lang, Param};
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use crate::i18n;
use crate::prelude::*;

/// The device select's value for "type a capacity".
pub const CUSTOM_DEVICE: &str = "custom";

/// How long a valid state must stand before it becomes the one the results
/// fall back to while a field is invalid: long enough that a keystroke on the
/// way to another number ("2" of "2,048") is not kept, short enough that a
/// pause reads as "done". A field's `change` event (it loses focus, Enter)
/// commits at once.
pub const COMMIT_AFTER: Duration = Duration::from_millis(500);

/// One text per parameter, indexed by [`Param::index`].
type Texts = [RwSignal<String>; param::COUNT];

#[derive(Clone, Copy, Debug)]
pub struct State {
    texts: &'static Texts,
    pub form: RwSignal<Form>,
    pub lang: RwSignal<Lang>,
    /// The system's dark theme (the charts draw light text on it).
    pub dark: ReadSignal<bool>,
    /// What is wrong with the fields, by name: a memo of its own, so that an
    /// edit that leaves the problems as they were (most edits) wakes none of
    /// the fields' messages.
    problems: Memo<Vec<ParamError>>,
    /// The last valid configuration that stood for [`COMMIT_AFTER`] or was
    /// committed by a `change` event: what the results show while some field
    /// is invalid.
    committed: RwSignal<Config>,
    /// A pasted config.json was rejected: the results are for the previous
    /// shape, not for what the user asked, until the next edit or import.
    pub import_rejected: RwSignal<bool>,
    /// The current configuration when the fields are valid, else the
    /// committed one: what the results show.
    pub config: Memo<Config>,
    pub estimate: Memo<Estimate>,
    pub sweep: Memo<Vec<SweepRow>>,

    pub gpus_needed: Memo<Option<u64>>,
    /// The longest sequence (inference: context) that fits at the batch.
    pub max_seq: Memo<Option<u64>>,
    /// "Compare with…": the setup the form does not show, if any.
    pub other: RwSignal<Option<Config>>,
    /// Whether the form shows setup B (then `other` is A).
    pub editing_b: RwSignal<bool>,
    /// A serving engine's answer ("Serves 183 requests of 2,304 tokens at
    /// once"), as its plan's chunk words it (`serving`), for the phone's
    /// bar; empty until the chunk has shown it.
    pub served: RwSignal<String>,
}

impl State {
    pub fn new(opened: &Config, lang: Lang) -> Self {
        // One set of signals for the page's lifetime.
        let texts: &'static Texts = Box::leak(Box::new(std::array::from_fn(|_| {
            RwSignal::new(String::new())
        })));
        let form = RwSignal::new(opened.form);
        let lang = RwSignal::new(lang);
        let dark = dark_theme();
        let parsed = Memo::new(move |_| parse_fields(texts, form.get(), lang.get()));
        let committed = RwSignal::new(*opened);
        let import_rejected = RwSignal::new(false);
        let config = Memo::new(move |_| {
            parsed.with(|p| {
                if p.problems.is_empty() {
                    p.config
                } else {
                    committed.get()
                }
            })
        });
        let problems = Memo::new(move |_| parsed.with(|p| p.problems.clone()));
        let estimate = Memo::new(move |_| memory::estimate(&config.get()));
        let sweep = Memo::new(move |_| memory::sweep(&config.get()));
        let gpus_needed = Memo::new(move |_| memory::gpus_needed(&config.get()));
        let max_seq = Memo::new(move |_| memory::max_seq(&config.get()));
        let state = Self {
            texts,
            form,
            lang,
            dark,
            problems,
            committed,
            import_rejected,
            config,
            estimate,
            sweep,
            gpus_needed,
            max_seq,
            other: RwSignal::new(None),
            editing_b: RwSignal::new(false),
            served: RwSignal::new(String::new()),
        };
        state.load(opened);
        state.commit();
        state
    }

    /// The address of the current state: one setup, or A and B
    /// (`query::to_query_pair`).
    pub fn query(&self, embed: Embed) -> String {
        let mut shown = self.config.get();
        shown.embed = embed;
        match self.other.get() {
            None => query::to_query(&shown),
            Some(other) if self.editing_b.get() => {
                query::to_query_pair(&Config { embed, ..other }, &shown)
            }
            Some(other) => query::to_query_pair(&shown, &other),
        }
    }

    /// Setups A and B, when comparing (reactive).
    pub fn pair(&self) -> Option<(Config, Config)> {
        let shown = self.config.get();
        // The language and the units are the page's: the other setup takes
        // the current ones.
        let other = Config {
            lang: shown.lang,
            units: shown.units,
            ..self.other.get()?
        };
        Some(if self.editing_b.get() {
            (other, shown)
        } else {
            (shown, other)
        })
    }

    /// Starts comparing: B begins as a copy of the current setup, or as
    /// `b` (a one-click comparison), and the form shows B.
    pub fn compare_with(&self, b: Option<Config>) {
        let a = self.config.get_untracked();
        self.other.set(Some(a));
        self.editing_b.set(true);
        if let Some(b) = b {
            self.apply(&b);
        }
    }

    /// Makes `b` setup B (a one-click comparison), wherever the form is.
    pub fn set_b(&self, b: Config) {
        if self.editing_b.get_untracked() {
            self.apply(&b);
        } else {
            self.other.set(Some(b));
        }
    }

    /// The form shows the other setup; the one it showed is kept.
    pub fn switch_setup(&self) {
        let Some(other) = self.other.get_untracked() else {
            return;
        };
        self.other.set(Some(self.config.get_untracked()));
        self.editing_b.update(|b| *b = !*b);
        self.apply(&other);
    }

    /// Stops comparing, keeping the setup the form shows.
    pub fn stop_comparing(&self) {
        self.other.set(None);
        self.editing_b.set(false);
    }

    /// A link to `config`: its address, for a new tab or a copy, and
    /// [`Self::apply`] on a click (a what-if, a fix, a hand-off).
    pub fn link_to(self, config: Config) -> crate::dom::El {
        crate::dom::el("a")
            .attr("href", &crate::location::url_for(&query::to_query(&config)))
            .on(
                crate::dom::Ev::Click,
                Box::new(move |event| {
                    event.prevent_default();
                    self.apply(&config);
                }),
            )
    }

    /// Fills the form with `config` (its form included) and commits it: a
    /// fix's link, a comparison's setup.
    pub fn apply(&self, config: &Config) {
        self.form.set(config.form);
        self.load(config);
        self.import_rejected.maybe_update(std::mem::take);
        self.commit();
    }

    /// True while some field is invalid or a pasted config.json was rejected
    /// (the results are then not current).
    pub fn stale(&self) -> bool {
        self.problems.with(|p| !p.is_empty()) || self.import_rejected.get()
    }

    /// The raw text of the field `param`.
    pub fn text(&self, param: Param) -> RwSignal<String> {
        self.texts[param.index()]
    }

    /// Sets a field's text as the user typed it, and commits the state once
    /// it has stood for [`COMMIT_AFTER`].
    pub fn edit(&self, param: Param, text: String) {
        self.text(param).set(text);
        // Written (and its readers woken) only when it changes: not on
        // every keystroke.
        self.import_rejected.maybe_update(std::mem::take);
        let state = *self;
        let typed = self.config.get_untracked();
        set_timeout(
            move || {
                // Still the state this keystroke made: it stood long enough.
                if state.config.get_untracked() == typed {
                    state.commit();
                }
            },
            COMMIT_AFTER,
        );
    }

    /// Sets a field to a complete value (a select, a checkbox, a preset's
    /// value) and commits it.
    pub fn choose(&self, param: Param, value: String) {
        self.text(param).set(value);
        // Written (and its readers woken) only when it changes: not on
        // every keystroke.
        self.import_rejected.maybe_update(std::mem::take);
        self.commit();
    }

    /// Makes the current state, when valid, the one the results fall back to
    /// (a field's `change` event, a preset, an import).
    pub fn commit(&self) {
        let valid = self.problems.with_untracked(Vec::is_empty);
        if valid {
            let now = self.config.get_untracked();
            if self.committed.get_untracked() != now {
                self.committed.set(now);
            }
        }
    }

    /// What is wrong with the field `param`, if anything (reactive).
    pub fn problem(&self, param: Param) -> Option<Problem> {
        self.problems.with(|problems| {
            problems
                .iter()
                .find(|e| e.param() == Some(param))
                .map(|e| e.problem.clone())
        })
    }

    /// Changes the transformer form's configuration (a preset, a pasted
    /// config.json, a framework profile) and fills the fields from the result.
    pub fn load_with(&self, change: impl FnOnce(&mut Config)) {
        let mut config = self.config.get_untracked();
        config.form = Form::Transformer;
        change(&mut config);
        self.load(&config.synced());
        // Written (and its readers woken) only when it changes: not on
        // every keystroke.
        self.import_rejected.maybe_update(std::mem::take);
        self.commit();
    }

    /// Switches the page's language, rewriting every number in the fields in
    /// its notation ("9,5" in Spanish is "9.5" in English) from the setup
    /// they make; while a field does not read, every field stays as typed.
    pub fn set_lang(&self, to: Lang) {
        // Read in the notation the fields were typed in, before the switch.
        let valid = self.problems.with_untracked(Vec::is_empty);
        let config = self.config.get_untracked();
        self.lang.set(to);
        if valid {
            self.load(&config);
        }
    }

    /// Fills every field from `config` (at start, and when a preset or a pasted
    /// config.json replaces the architecture).
    pub fn load(&self, config: &Config) {
        let lang = self.lang.get_untracked();
        for (param, value) in query::values(config) {
            let value = localized(lang, param, value);
            let signal = self.text(param);
            // Only the texts that change: a preset rewrites a handful of the
            // sixty fields, and each set wakes that field's views.
            if signal.with_untracked(|text| *text != value) {
                signal.set(value);
            }
        }
        // `values` writes a custom capacity under `gpu_gb` and leaves `gpu` empty;
        // the device select says "custom" then.
        if matches!(config.device, Some(Device::Custom { .. })) {
            self.text(Param::Gpu).set(CUSTOM_DEVICE.to_owned());
        }
    }
}

/// What the fields say, read by the core as a query (`query::parse_fields`):
/// the form, its own parameters and the common ones. Empty optional choices
/// (no preset, no device, the browser's language) send nothing. In Spanish,
/// numbers are read as Spanish writes them, the decimal comma and dots or
/// spaces between thousands ("9,5", "2.048": `fields::spanish_number`),
/// and sent in the URL's notation.
fn parse_fields(texts: &Texts, form: Form, lang: Lang) -> query::Parsed {
    let device = texts[Param::Gpu.index()].get();
    query::parse_fields(form, |param| {
        let value = texts[param.index()].get();
        let sends = match param {
            Param::Model | Param::Lang => !value.is_empty(),
            Param::Gpu => !device.is_empty() && device != CUSTOM_DEVICE,
            Param::GpuGb => device == CUSTOM_DEVICE,
            _ => true,
        };
        sends.then(|| match lang {
            Lang::Es if numeric(param) => fields::spanish_number(&value),
            Lang::Es | Lang::En => value,
        })
    })
}

/// Whether a parameter's field holds a number, which each language writes
/// in its own notation.
fn numeric(param: Param) -> bool {
    matches!(param.input(), Input::Whole | Input::Decimal | Input::Count)
}

/// A field's text in `lang`'s notation, from the URL's.
pub(crate) fn localized(lang: Lang, param: Param, value: String) -> String {
    if numeric(param) {
        i18n::decimal(lang, &value)
    } else {
        value
    }
}

/// Whether the user's system asks for a dark theme, kept current by the media
/// query's `change` event: the charts read it on every redraw, and asking
/// `matchMedia` there would query the browser on every edit.
fn dark_theme() -> ReadSignal<bool> {
    let query = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
    let (dark, set_dark) = signal(query.as_ref().is_some_and(|m| m.matches()));
    if let Some(query) = query {
        let watched = query.clone();
        let changed = Closure::<dyn FnMut()>::new(move || set_dark.set(watched.matches()));
        let _ = query.add_event_listener_with_callback("change", changed.as_ref().unchecked_ref());
        // The listener lives as long as the page.
        changed.forget();
    }
    dark
}
