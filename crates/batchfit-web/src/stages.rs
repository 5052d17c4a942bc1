//! With pipeline parallelism, every stage's memory (`memory::stages`, the
//! CLI's `stages`): the layers each holds, whether the embedding or the head
//! and loss are on it, its peak allocated and what it requires. The stage the
//! answer above is for (`pp_stage`, or the one that needs the most) is marked.

use crate::prelude::*;
use batchfit_core::memory::{self, Estimate, Stage};
use batchfit_core::query::Config;

use crate::dom::{self, El, el, rx};
use crate::format::short;
use crate::i18n::{self, Lang};
use crate::state::State;

pub fn stages(state: State) -> El {
    let chunk = dom::chunk!(preload_stages);
    el("div")
        .class("stages")
        .attr("data-testid", "stages")
        .rebuild(
            rx(move || {
                // Only a pipeline has stages; the table is a chunk of the
                // split build (dom::Chunk), fetched the first time a setup
                // has one. Without a pipeline an edit leaves the (empty) key
                // as it was.
                let config = state.config.get();
                (config.transformer.pp > 1 && chunk.ready())
                    .then(|| (config, state.estimate.get(), state.lang.get()))
            }),
            Box::new(|key| match key {
                Some((config, answer, lang)) => dom::now(table(*config, *answer, *lang)),
                None => Vec::new(),
            }),
        )
}

/// Every stage's row, the answer's marked (a chunk of the split build).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(stages, fallible, preload(#[allow(unsafe_code)] preload_stages))
)]
fn table(config: Config, answer: Estimate, lang: Lang) -> Result<Vec<El>, dom::ChunkMissing> {
    let list = memory::stages(&config);
    if list.len() < 2 {
        return Ok(Vec::new());
    }
    let units = config.units;
    let w = i18n::words(lang);
    let head = [
        w.answer.stage,
        w.stages_layers,
        w.answer.peak_allocated,
        w.answer.required,
    ]
    .map(|text| el("th").attr("scope", "col").text(text));
    let row = |stage: &Stage| {
        let mut what = i18n::group(lang, u128::from(stage.layers));
        if stage.embedding {
            what.push_str(&format!(" + {}", w.stages_embedding));
        }
        if stage.head {
            what.push_str(&format!(" + {}", w.stages_head));
        }
        let tr = el("tr")
            .attr("data-stage", &stage.index.to_string())
            .attr("data-required", &stage.estimate.required.to_string());
        let tr = if stage.estimate == answer {
            tr.attr("aria-current", "true")
        } else {
            tr
        };
        tr.child(el("th").attr("scope", "row").text(&stage.index.to_string()))
            .child(el("td").text(&what))
            .child(el("td").text(&short(lang, stage.estimate.peak_allocated, units)))
            .child(el("td").text(&short(lang, stage.estimate.required, units)))
    };
    Ok(vec![
        el("h3").text(w.stages_title),
        el("p").class("legend").text(w.stages_note),
        el("div").class("table-scroll").child(
            el("table")
                .child(el("thead").child(el("tr").children(head)))
                .child(el("tbody").children(list.iter().map(row))),
        ),
    ])
}
