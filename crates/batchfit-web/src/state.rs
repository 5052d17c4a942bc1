//! The page's state: the raw text of every field, keyed by its URL parameter
//! name, and what the core derives from it. Validation is the core's: the texts
//! are written into a query string and read back with `query::parse`, so the
//! page, shared links and the CLI can never disagree about what a value means.

use batchfit_core::fields::{ParamError, Problem};
use batchfit_core::memory::{self, Estimate, SweepRow, WhatIf};
use batchfit_core::presets::Device;
use batchfit_core::query::{self, Config, Form, Lang};
use leptos::prelude::*;

/// The device select's value for "type a capacity".
pub const CUSTOM_DEVICE: &str = "custom";

/// Every parameter the page holds a text for.
fn all_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = query::ACTIVATIONS_PARAMETERS
        .iter()
        .chain(query::PARAMETERS_PARAMETERS)
        .chain(query::TRANSFORMER_PARAMETERS)
        .chain(query::COMMON_PARAMETERS)
        .copied()
        .collect();
    let mut seen = Vec::new();
    names.retain(|n| {
        let first = !seen.contains(n);
        seen.push(*n);
        first
    });
    names
}

#[derive(Clone, Copy, Debug)]
pub struct State {
    texts: &'static [(&'static str, RwSignal<String>)],
    pub form: RwSignal<Form>,
    pub lang: RwSignal<Lang>,
    /// The system's dark theme (the charts draw light text on it).
    pub dark: ReadSignal<bool>,
    /// What is wrong with the fields, by name: a memo of its own, so that an
    /// edit that leaves the problems as they were (most edits) wakes none of
    /// the fields' messages.
    problems: Memo<Vec<ParamError>>,
    /// The last configuration without problems: what the results show.
    pub config: Memo<Config>,
    pub estimate: Memo<Estimate>,
    pub sweep: Memo<Vec<SweepRow>>,
    pub what_ifs: Memo<Vec<WhatIf>>,
    pub gpus_needed: Memo<Option<u64>>,
}

impl State {
    pub fn new(opened: &Config, lang: Lang) -> Self {
        // One set of signals for the page's lifetime.
        let texts: &'static [(&'static str, RwSignal<String>)] = Box::leak(
            all_names()
                .into_iter()
                .map(|name| (name, RwSignal::new(String::new())))
                .collect(),
        );
        let form = RwSignal::new(opened.form);
        let lang = RwSignal::new(lang);
        let dark = crate::dark_theme();
        let parsed = Memo::new(move |_| query::parse(&current_query(texts, form.get())));
        let config = Memo::new(move |previous: Option<&Config>| {
            parsed.with(|p| match (p.problems.is_empty(), previous) {
                (false, Some(previous)) => *previous,
                _ => p.config,
            })
        });
        let problems = Memo::new(move |_| parsed.with(|p| p.problems.clone()));
        let estimate = Memo::new(move |_| memory::estimate(&config.get()));
        let sweep = Memo::new(move |_| memory::sweep(&config.get()));
        let what_ifs = Memo::new(move |_| match estimate.get().fits {
            Some(false) => memory::what_ifs(&config.get()),
            _ => Vec::new(),
        });
        let gpus_needed = Memo::new(move |_| memory::gpus_needed(&config.get()));
        let state = Self {
            texts,
            form,
            lang,
            dark,
            problems,
            config,
            estimate,
            sweep,
            what_ifs,
            gpus_needed,
        };
        state.load(opened);
        state
    }

    /// True while some field is invalid (the results are then not current).
    pub fn stale(&self) -> bool {
        self.problems.with(|p| !p.is_empty())
    }

    /// The raw text of the field `name`.
    pub fn text(&self, name: &str) -> RwSignal<String> {
        self.texts
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, signal)| *signal)
            .unwrap_or_else(|| panic!("the page holds no field named {name}"))
    }

    /// What is wrong with the field `name`, if anything (reactive).
    pub fn problem(&self, name: &str) -> Option<Problem> {
        self.problems.with(|problems| {
            problems
                .iter()
                .find(|e| e.name == name)
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
    }

    /// Fills every field from `config` (at start, and when a preset or a pasted
    /// config.json replaces the architecture).
    pub fn load(&self, config: &Config) {
        for (name, value) in query::values(config) {
            if let Some((_, signal)) = self.texts.iter().find(|(n, _)| *n == name) {
                // Only the texts that change: a preset rewrites a handful of the
                // sixty fields, and each set wakes that field's views.
                if signal.with_untracked(|text| *text != value) {
                    signal.set(value);
                }
            }
        }
        // `values` writes a custom capacity under `gpu_gb` and leaves `gpu` empty;
        // the device select says "custom" then.
        if matches!(config.device, Some(Device::Custom { .. })) {
            self.text("gpu").set(CUSTOM_DEVICE.to_owned());
        }
    }
}

/// The query the fields spell: the form, its own parameters and the common ones.
/// Empty optional choices (no preset, no device, the browser's language) are left
/// out rather than sent as empty values.
fn current_query(texts: &[(&'static str, RwSignal<String>)], form: Form) -> String {
    let own = match form {
        Form::Activations => query::ACTIVATIONS_PARAMETERS,
        Form::Parameters => query::PARAMETERS_PARAMETERS,
        Form::Transformer => query::TRANSFORMER_PARAMETERS,
    };
    let text = |name: &str| {
        texts
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s.get())
            .unwrap_or_default()
    };
    let device = text("gpu");
    let mut out = format!("form={}", form.name());
    for &name in own.iter().chain(query::COMMON_PARAMETERS) {
        let value = text(name);
        let skip = match name {
            "model" | "lang" => value.is_empty(),
            "gpu" => device.is_empty() || device == CUSTOM_DEVICE,
            "gpu_gb" => device != CUSTOM_DEVICE,
            _ => false,
        };
        if !skip {
            out.push('&');
            out.push_str(name);
            out.push('=');
            out.push_str(&query::encode(&value));
        }
    }
    out
}
