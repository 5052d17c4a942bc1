//! With pipeline parallelism, every stage's memory (`memory::stages`, the
//! CLI's `stages`): the layers each holds, whether the embedding or the head
//! and loss are on it, its peak allocated and what it requires. The stage the
//! answer above is for (`pp_stage`, or the one that needs the most) is marked.

use crate::prelude::*;
use batchfit_core::memory::{self, Stage};

use crate::dom::{El, el, rx};
use crate::format::short;
use crate::i18n;
use crate::state::State;

pub fn stages(state: State) -> El {
    el("div")
        .class("stages")
        .attr("data-testid", "stages")
        .rebuild(
            rx(move || {
                let config = state.config.get();
                let list = match config.transformer.pp {
                    0 | 1 => Vec::new(),
                    _ => memory::stages(&config),
                };
                // The answer's estimate only matters beside a table: without a
                // pipeline an edit leaves the (empty) key as it was.
                let answer = (!list.is_empty()).then(|| state.estimate.get());
                (list, answer, state.lang.get(), config.units)
            }),
            Box::new(|(list, answer, lang, units)| {
                if list.len() < 2 {
                    return Vec::new();
                }
                let w = i18n::words(*lang);
                let head = [w.stage, w.stages_layers, w.peak_allocated, w.required]
                    .map(|text| el("th").attr("scope", "col").text(text));
                let row = |stage: &Stage| {
                    let mut what = i18n::group(*lang, u128::from(stage.layers));
                    if stage.embedding {
                        what.push_str(&format!(" + {}", w.stages_embedding));
                    }
                    if stage.head {
                        what.push_str(&format!(" + {}", w.stages_head));
                    }
                    let tr = el("tr")
                        .attr("data-stage", &stage.index.to_string())
                        .attr("data-required", &stage.estimate.required.to_string());
                    let tr = if Some(stage.estimate) == *answer {
                        tr.attr("aria-current", "true")
                    } else {
                        tr
                    };
                    tr.child(el("th").attr("scope", "row").text(&stage.index.to_string()))
                        .child(el("td").text(&what))
                        .child(el("td").text(&short(*lang, stage.estimate.peak_allocated, *units)))
                        .child(el("td").text(&short(*lang, stage.estimate.required, *units)))
                };
                vec![
                    el("h3").text(w.stages_title),
                    el("p").class("legend").text(w.stages_note),
                    el("div").class("table-scroll").child(
                        el("table")
                            .child(el("thead").child(el("tr").children(head)))
                            .child(el("tbody").children(list.iter().map(row))),
                    ),
                ]
            }),
        )
}
