//! For a configuration that does not fit: the same estimate with one change
//! each, each a link that applies it. The what-ifs are computed and worded
//! in the fix search's chunk (`split_fixes`), fetched the first time a setup
//! does not fit and the section is wanted (on the screen, or near it once
//! the visitor has scrolled): a setup that fits loads none of their code.

use crate::prelude::*;
use batchfit_core::memory::{self, Change, WhatIf};
use batchfit_core::query::{Config, Form};

use crate::dom::{self, El, el, rx};
use crate::format::{short, short_down};
use crate::i18n::{self, Lang};
use crate::state::State;

/// One what-if, worded: what the section shows of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Row {
    change: &'static str,
    label: String,
    /// "283 GB — ✗ still does not fit".
    value: String,
    cost: String,
    fits: bool,
    required: u128,
    config: Config,
}

/// The what-ifs of `config`, worded in `lang` (the chunk's code).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(fixes, fallible, preload(#[allow(unsafe_code)] preload_what_ifs))
)]
fn rows(config: Config, lang: Lang) -> Result<Vec<Row>, dom::ChunkMissing> {
    let w = i18n::words(lang);
    let units = config.units;
    Ok(memory::what_ifs(&config)
        .into_iter()
        .map(|option| {
            let fits = option.fits == Some(true);
            let required = option.required;
            let (mark, verdict) = if fits {
                ("✓ ", w.fits_lower)
            } else {
                ("✗ ", w.still_does_not_fit)
            };
            Row {
                change: option.change.name(),
                label: change_label(lang, &option),
                // A need that fits is never printed above the capacity.
                value: format!(
                    "{} — {mark}{verdict}",
                    if fits {
                        short_down(lang, required, units)
                    } else {
                        short(lang, required, units)
                    }
                ),
                cost: crate::fixes::costs(lang, &option.cost(&config), units),
                fits,
                required,
                config: option.config,
            }
        })
        .collect())
}

/// For a configuration that does not fit: the same estimate with one change
/// each, a link that applies it in place.
pub(super) fn what_ifs(state: State) -> El {
    let chunk = dom::chunk!(preload_what_ifs);
    let section = el("section")
        .class("what-ifs")
        .attr("data-testid", "what-ifs");
    // Asked for once the section is wanted (dom::wanted), as the fix list.
    let wanted = dom::wanted(section.node(), dom::near_viewport(section.node()));
    section.rebuild(
        rx(move || match state.estimate.with(|e| e.fits) {
            Some(false) if wanted.get() && chunk.ready() => {
                dom::now(rows(state.config.get(), state.lang.get()))
            }
            _ => Vec::new(),
        }),
        Box::new(move |rows: &Vec<Row>| {
            if rows.is_empty() {
                return Vec::new();
            }
            let lang = state.lang.get_untracked();
            vec![
                el("h3").text(i18n::words(lang).what_if_title),
                el("ul").children(rows.iter().map(|row| item(state, row))),
            ]
        }),
    )
}

fn item(state: State, row: &Row) -> El {
    let config = row.config;
    let li = el("li").attr("data-change", row.change);
    let li = if row.fits { li.class("fits") } else { li };
    li.child(state.link_to(config).text(&row.label))
        .child(
            el("span")
                .class("value")
                .attr("data-bytes", &row.required.to_string())
                .text(&row.value),
        )
        .child(el("span").class("legend cost").text(&row.cost))
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
