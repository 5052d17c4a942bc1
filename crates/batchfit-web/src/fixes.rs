//! "The smallest changes that fit": when the setup does not fit, the few
//! combinations of levers that do within the GPUs and host RAM the user has
//! (`advice::fixes`, the same list as the CLI's), those that fit even at
//! the pessimistic end of the validation range first, each a link that
//! applies it, each with the host RAM its offloads need and what it costs
//! besides memory (`memory::Cost`, docs/model.md §5).

use crate::prelude::*;
use batchfit_core::advice::{self, Advice};
use batchfit_core::memory::{Cost, Estimate, Lever, PCIE_BYTES_PER_SECOND};
use batchfit_core::query::{Config, Form};
use batchfit_core::units::Units;

use crate::dom::{self, El, el, rx};
use crate::format::{short, short_down};
use crate::i18n::{self, Lang};
use crate::state::State;

pub fn fixes(state: State) -> El {
    let chunk = dom::chunk!(preload_fixes);
    let section = el("section").class("fixes").attr("data-testid", "fixes");
    let wanted = dom::wanted(section.node(), dom::near_viewport(section.node()));
    section.rebuild(
        rx(move || {
            // Searched whenever the setup does not fit, as the CLI
            // lists it (issue 28), whatever single what-if fits. The
            // search and its words are a chunk of the split build
            // (dom::Chunk), fetched the first time a setup needs it
            // and the section is wanted (dom::wanted): a visitor who
            // reads the first screen only fetches none of it (issue 31).
            match state.estimate.with(|e| e.fits) {
                Some(false) if !state.stale() && wanted.get() && chunk.ready() => dom::now(search(
                    state.config.get(),
                    state.estimate.get(),
                    state.lang.get(),
                )),
                _ => Found::default(),
            }
        }),
        Box::new(move |found: &Found| {
            let mut shown = Vec::new();
            if !found.rows.is_empty() {
                let w = i18n::words(state.lang.get_untracked());
                shown.push(el("h3").text(w.fixes_title));
                shown.push(el("ol").children(found.rows.iter().map(|row| item(state, row))));
            }
            if let Some((handed, text)) = &found.hand_off {
                shown.push(
                    el("p").class("legend").child(
                        state
                            .link_to(*handed)
                            .attr("data-testid", "hand-off")
                            .text(text),
                    ),
                );
            }
            shown
        }),
    )
}

/// What the fix search found: the fixes, worded, and where the parameters
/// form's model states alone exceed the device, its hand-off to the
/// transformer form (`advice::transformer_hand_off`) with the link's words.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Found {
    rows: Vec<Row>,
    hand_off: Option<(Config, String)>,
}

/// One fix, worded: what the list shows of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Row {
    label: String,
    /// "17.0 GB — ✓ fits".
    value: String,
    /// "needs host RAM: 175 GB", or empty.
    host: String,
    /// "fits only at the optimistic end", or empty.
    optimistic: String,
    cost: String,
    required: u128,
    host_bytes: u128,
    fits_pessimistic: bool,
    config: Config,
}

/// The smallest changes that fit `config`, worded in `lang` (the chunk's
/// code: the search, the levers', costs' and sizes' words).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(fixes, fallible, preload(#[allow(unsafe_code)] preload_fixes))
)]
fn search(config: Config, estimate: Estimate, lang: Lang) -> Result<Found, dom::ChunkMissing> {
    let w = i18n::words(lang);
    let units = config.units;
    // No batch of the rule fits where the model states alone exceed the
    // device: the transformer form has the levers that can.
    let hand_off = advice::transformer_hand_off(&config)
        .filter(|_| estimate.states_exceed_device())
        .and_then(|handed| {
            let model = handed.model?;
            let name = format!("{} ({})", model.name, model.published);
            Some((handed, (i18n::language(lang).hand_off)(&name)))
        });
    let rows = advice::fixes(&config)
        .into_iter()
        .map(|advice: Advice| {
            let fix = &advice.fix;
            let transformer = fix.config.form == Form::Transformer;
            let label: Vec<String> = fix
                .levers
                .iter()
                .map(|l| lever(lang, *l, transformer, fix.cost.after.inference))
                .collect();
            Row {
                label: label.join(" + "),
                value: format!(
                    "{} — ✓ {}",
                    short_down(lang, fix.estimate.required, units),
                    w.fits_lower
                ),
                host: if advice.host_memory > 0 {
                    format!(
                        "{} {}",
                        w.fix_host_needs,
                        short(lang, advice.host_memory, units)
                    )
                } else {
                    String::new()
                },
                optimistic: if advice.fits_pessimistic {
                    String::new()
                } else {
                    w.fix_fits_optimistic.to_owned()
                },
                cost: costs(lang, &fix.cost, units),
                required: fix.estimate.required,
                host_bytes: advice.host_memory,
                fits_pessimistic: advice.fits_pessimistic,
                config: fix.config,
            }
        })
        .collect();
    Ok(Found { rows, hand_off })
}

fn item(state: State, row: &Row) -> El {
    let config = row.config;
    let note =
        |class: &str, text: &str| (!text.is_empty()).then(|| el("span").class(class).text(text));
    el("li")
        .attr("data-required", &row.required.to_string())
        .attr("data-bytes", &row.required.to_string())
        .attr("data-host-bytes", &row.host_bytes.to_string())
        .attr("data-fits-pessimistic", &row.fits_pessimistic.to_string())
        .child(state.link_to(config).text(&row.label))
        .child(el("span").class("value").text(&row.value))
        .children(note("legend optimistic", &row.optimistic))
        .children(note("legend host", &row.host))
        .child(el("span").class("legend cost").text(&row.cost))
}

/// A lever in words, with its value (BF16 is the pure-BF16 recipe in the
/// transformer form, the precision in the napkin forms; inference's batch
/// is the sequences served at once).
pub fn lever(lang: Lang, lever: Lever, transformer: bool, inference: bool) -> String {
    let w = i18n::words(lang);
    let n = |v: u64| i18n::group(lang, u128::from(v));
    match lever {
        Lever::Seq { seq } => format!("{} {}", w.lever_seq, n(seq)),
        Lever::Lora { rank } => format!("LoRA r = {rank}"),
        Lever::Qlora { rank } => format!("QLoRA r = {rank}"),
        Lever::Zero { stage, gpus } => format!("ZeRO-{stage} × {}", n(gpus)),
        Lever::Tp { tp } => format!("{} × {}", w.lever_tp, n(tp)),
        Lever::ParamOffload => w.lever_param_offload.to_owned(),
        Lever::Offload => w.lever_offload.to_owned(),
        Lever::ActOffload => w.lever_act_offload.to_owned(),
        Lever::SelectiveRecompute => w.lever_selective.to_owned(),
        Lever::FullRecompute | Lever::Checkpointing => w.lever_checkpointing.to_owned(),
        Lever::Batch { batch } if inference => format!("{} {}", w.lever_serving_batch, n(batch)),
        Lever::Batch { batch } => format!("{} {}", w.lever_batch, n(batch)),
        Lever::Bf16 if transformer => w.lever_bf16.to_owned(),
        Lever::Bf16 => w.bf16.to_owned(),
        Lever::Adam8bit => w.lever_adam8bit.to_owned(),
        Lever::Fp8Kv => w.fp8_kv.to_owned(),
    }
}

/// A hundredths-of-a-percent share as "31.2 %" ("31,2 %" in Spanish), or
/// under 1 % to the hundredth ("0.08 %": LoRA's share of a large model is
/// not "0.0 %").
fn share(lang: Lang, bp: u128) -> String {
    let point = i18n::decimal_point(lang);
    if bp < 100 {
        return format!("0{point}{bp:02}\u{a0}%");
    }
    let tenths = (bp + 5) / 10;
    format!("{}{point}{}\u{a0}%", tenths / 10, tenths % 10)
}

/// What a change costs besides memory, in words: only the figures that are
/// not zero; "" when none is.
pub fn costs(lang: Lang, cost: &Cost, units: Units) -> String {
    let w = i18n::words(lang);
    let n = |v: u128| i18n::group(lang, v);
    let mut out: Vec<String> = Vec::new();
    let recompute = cost.recompute_share_bp();
    if recompute > 0 && cost.after.recompute_flops > cost.before.recompute_flops {
        out.push(format!("+{} {}", share(lang, recompute), w.cost_compute));
    }
    let (before, after) = (&cost.before, &cost.after);
    if after.pcie_bytes > before.pcie_bytes {
        let tenths = after.pcie_micros().div_ceil(100_000);
        out.push(format!(
            "{} {} ({}{}{} s {} {} GB/s)",
            short(lang, after.pcie_bytes, units),
            w.cost_pcie,
            tenths / 10,
            i18n::decimal_point(lang),
            tenths % 10,
            w.cost_at,
            PCIE_BYTES_PER_SECOND / 1_000_000_000
        ));
    }
    match cost.extra_gpus() {
        0 => {}
        1 => out.push("+1 GPU".to_owned()),
        gpus => out.push(format!("+{} GPUs", n(u128::from(gpus)))),
    }
    if after.trainable < before.trainable {
        out.push(format!(
            "{} {}",
            w.cost_trains,
            share(lang, cost.trainable_share_bp())
        ));
    }
    if cost.tokens_lost() > 0 {
        // The core counts a step's samples where the form has no sequence.
        let unit = if before.tokens == 0 {
            w.cost_samples
        } else {
            w.cost_tokens
        };
        out.push(format!("−{} {unit}", n(cost.tokens_lost())));
    }
    if cost.sequences_lost() > 0 {
        out.push(format!(
            "−{} {}",
            n(u128::from(cost.sequences_lost())),
            w.cost_sequences
        ));
    }
    if after.accumulation > before.accumulation {
        out.push(format!(
            "{} {}",
            n(u128::from(after.accumulation)),
            w.cost_micro_steps
        ));
    }
    out.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchfit_core::query;

    /// Halving the batch loses tokens where the form has a sequence, and
    /// samples where it has none (the parameters form).
    use batchfit_core::memory;

    #[test]
    fn a_smaller_step_is_counted_in_what_the_form_has() {
        for (query, half, lost) in [
            (
                "form=parameters&params=7B&batch=8",
                "form=parameters&params=7B&batch=4",
                "−4 samples per step",
            ),
            (
                "form=transformer&model=llama-3.1-8b&batch=8&seq=1024",
                "form=transformer&model=llama-3.1-8b&batch=4&seq=1024",
                "−4,096 tokens per step",
            ),
        ] {
            let cost = memory::cost(&query::parse(query).config, &query::parse(half).config);
            let said = costs(Lang::En, &cost, Units::Decimal);
            assert!(said.contains(lost), "{query}: {said}");
        }
        let cost = memory::cost(
            &query::parse("form=parameters&params=7B&batch=8").config,
            &query::parse("form=parameters&params=7B&batch=4").config,
        );
        assert!(costs(Lang::Es, &cost, Units::Decimal).contains("−4 muestras por paso"));
        // Inference takes no optimizer step: a smaller batch serves fewer
        // sequences at once.
        let cost = memory::cost(
            &query::parse("form=transformer&model=qwen2.5-7b&mode=inference&batch=4").config,
            &query::parse("form=transformer&model=qwen2.5-7b&mode=inference&batch=1").config,
        );
        let said = costs(Lang::En, &cost, Units::Decimal);
        assert!(said.contains("−3 sequences at once"), "{said}");
        assert!(!said.contains("per step"), "{said}");
        assert!(costs(Lang::Es, &cost, Units::Decimal).contains("−3 secuencias a la vez"));
        // One GPU more is one GPU.
        let q = "form=transformer&model=qwen2.5-7b&mode=inference&batch=4";
        for (tp, said) in [(2, "+1 GPU"), (4, "+3 GPUs")] {
            let cost = memory::cost(
                &query::parse(q).config,
                &query::parse(&format!("{q}&tp={tp}")).config,
            );
            assert_eq!(costs(Lang::En, &cost, Units::Decimal), said);
        }
    }

    /// A share under 1 % keeps its hundredths (LoRA on Mixtral trains
    /// 0.08 %, not "0.0 %"); above, tenths; each in the reader's notation.
    #[test]
    fn shares_keep_their_first_figure() {
        assert_eq!(share(Lang::En, 8), "0.08\u{a0}%");
        assert_eq!(share(Lang::Es, 8), "0,08\u{a0}%");
        assert_eq!(share(Lang::En, 3116), "31.2\u{a0}%");
        assert_eq!(share(Lang::En, 100), "1.0\u{a0}%");
        assert_eq!(share(Lang::Es, 4522), "45,2\u{a0}%");
    }
}
