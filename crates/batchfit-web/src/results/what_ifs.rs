//! For a configuration that does not fit: the same estimate with one change
//! each, each a link that applies it.

use crate::prelude::*;
use batchfit_core::memory::{Change, WhatIf};
use batchfit_core::query::Form;

use crate::dom::{self, El, Ev, el, rx};
use crate::format::short;
use crate::i18n::{self, Lang};
use crate::location;
use crate::state::State;
use batchfit_core::query;

/// For a configuration that does not fit: the same estimate with one change
/// each. The items read their change by position, so an edit updates them in
/// place.
pub(super) fn what_ifs(state: State) -> El {
    let lang = state.lang;
    // One binding writes an item, and only when its change, the language or
    // the units changed.
    let item = move |index: usize| {
        // The change is a link to the changed configuration; a click applies
        // it in place, as a fix's does.
        let label = el("a").on(
            Ev::Click,
            Box::new(move |event| {
                event.prevent_default();
                let changed = state
                    .what_ifs
                    .with_untracked(|options| options.get(index).map(|o| o.config));
                if let Some(config) = changed {
                    state.apply(&config);
                }
            }),
        );
        let value = el("span").class("value");
        let cost = el("span").class("legend cost");
        let li = el("li")
            .child(label.clone())
            .child(value.clone())
            .child(cost.clone());
        let (element, value_element, link) = (
            li.node().clone(),
            value.node().clone(),
            label.node().clone(),
        );
        let (label, value, cost) = (label.text_node(), value.text_node(), cost.text_node());
        dom::bind(
            rx(move || {
                let option = state.what_ifs.with(|options| options.get(index).copied());
                (option, lang.get(), state.config.get())
            }),
            Box::new(move |&(option, lang, config)| {
                // An item the shorter list no longer has is empty until the list
                // removes it.
                let Some(option) = option else {
                    label.set_data("");
                    value.set_data("");
                    cost.set_data("");
                    return;
                };
                let units = config.units;
                cost.set_data(&crate::fixes::costs(lang, &option.cost(&config), units));
                let fits = option.estimate.fits == Some(true);
                let _ = element.class_list().toggle_with_force("fits", fits);
                let _ = element.set_attribute("data-change", option.change.name());
                let href = location::url_for(&query::to_query(&option.config));
                let _ = link.set_attribute("href", &href);
                let required = option.estimate.required;
                let _ = value_element.set_attribute("data-bytes", &required.to_string());
                label.set_data(&change_label(lang, &option));
                let w = i18n::words(lang);
                let verdict = if fits {
                    w.fits_lower
                } else {
                    w.still_does_not_fit
                };
                let mark = if fits { "✓ " } else { "✗ " };
                value.set_data(&format!(
                    "{} — {mark}{verdict}",
                    short(lang, required, units)
                ));
            }),
        );
        li
    };
    el("section")
        .class("what-ifs")
        .attr("data-testid", "what-ifs")
        .child(el("h3").bind_text(i18n::tr(lang, |w| w.what_if_title)))
        .child(el("ul").list(rx(move || state.what_ifs.with(Vec::len)), Box::new(item)))
}

/// The change in words, with the value it changes to.
fn change_label(lang: Lang, option: &WhatIf) -> String {
    let w = i18n::words(lang);
    match option.change {
        Change::HalfBatch => format!("{} ({})", w.half_batch, option.config.batch()),
        Change::Checkpointing => w.checkpointing.to_owned(),
        Change::Bf16 => w.bf16.to_owned(),
        Change::Zero3 { gpus } => format!("{} ({gpus})", w.zero3),
        Change::Tp { tp } => format!("{} ({tp})", w.tensor_parallel),
        Change::HalfSeq => {
            let seq = match option.config.form {
                Form::Transformer => option.config.transformer.seq,
                Form::Activations | Form::Parameters => option.config.activations.seq,
            };
            format!("{} ({seq})", w.half_seq)
        }
        Change::Lora => format!(
            "{} (r = {})",
            w.with_lora, option.config.transformer.lora_rank
        ),
        Change::Qlora => format!(
            "{} (r = {})",
            w.with_qlora, option.config.transformer.lora_rank
        ),
        Change::Fp8Kv => w.fp8_kv.to_owned(),
    }
}
