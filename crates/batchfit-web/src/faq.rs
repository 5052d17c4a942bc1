//! "How it works" (the formula in use, with the current numbers) and the FAQ,
//! written for this tool in both languages, as collapsible sections.

use crate::prelude::*;
use batchfit_core::fields::format_hundredths;
use batchfit_core::memory::Estimate;
use batchfit_core::query::{Config, Form};
use batchfit_core::units::{self, Units};

use crate::dom::{self, El, Ev, el, rx};
use crate::format::short;
use crate::i18n::{self, Lang};
use crate::state::State;

/// The formula of the current form with the current numbers substituted.
fn formula(lang: Lang, config: &Config, e: &Estimate) -> Vec<String> {
    let units: Units = config.units;
    let language = i18n::language(lang);
    let w = i18n::words(lang);
    // A word of the formula: the table's heading, in lower case.
    let term = |heading: &str| heading.to_lowercase();
    let s = |bytes| short(lang, bytes, units);
    match config.form {
        Form::Activations => {
            let a = &config.activations;
            // With checkpointing the rule keeps √layers layers: the equation
            // says so, so that it stays true.
            let layers = if a.checkpointing {
                format!("√{}", a.layers)
            } else {
                a.layers.to_string()
            };
            let mut lines = vec![format!(
                "{} = {} × {} × {} × {} × {} × {} = {}",
                term(w.answer.activations),
                a.batch,
                a.seq,
                a.hidden,
                layers,
                a.precision.bytes(),
                i18n::decimal(lang, &format_hundredths(a.k.hundredths())),
                s(e.activations)
            )];
            lines.push(w.formula_rule.to_owned());
            if a.checkpointing {
                let root = units::fixed((a.layers as f64).sqrt(), 2);
                lines.push((language.kept_layers)(a.layers, &root));
            }
            lines
        }
        Form::Parameters => {
            let p = &config.parameters;
            let n = batchfit_core::fields::format_count(p.params);
            let mut lines = vec![format!(
                "{} = {n} × {} B = {}",
                term(w.answer.weights),
                p.precision.bytes(),
                s(e.weights)
            )];
            if e.gradients > 0 {
                lines.push(format!(
                    "{} = {n} × 4 B (FP32) = {}",
                    term(w.answer.gradients),
                    s(e.gradients)
                ));
            }
            if e.optimizer_states > 0 {
                let per = e.optimizer_states / u128::from(p.params.max(1));
                lines.push(format!(
                    "{} = {n} × {per} B = {}",
                    term(w.answer.optimizer_states),
                    s(e.optimizer_states)
                ));
            }
            lines.push(format!(
                "{} = {} × {} MB = {}",
                term(w.answer.activations),
                p.batch,
                i18n::decimal(lang, &format_hundredths(p.act_mb)),
                s(e.activations)
            ));
            lines
        }
        Form::Transformer => {
            let t = &config.transformer;
            let params = e.parameters.max(1);
            let per_param = |bytes: u128| units::fixed(bytes as f64 / params as f64, 1);
            vec![
                format!(
                    "{}: {} ({} × {}, {} {}, FFN {}, {} {})",
                    term(w.answer.parameters),
                    i18n::group(lang, e.parameters),
                    t.arch.layers,
                    t.arch.hidden,
                    t.arch.heads,
                    w.formula_heads,
                    t.arch.ffn,
                    w.formula_vocabulary,
                    t.arch.vocab,
                ),
                format!(
                    "{} = {} + {} + {} B/{} = {}",
                    w.formula_model_states,
                    per_param(e.weights),
                    per_param(e.gradients),
                    per_param(e.optimizer_states),
                    w.formula_per_parameter,
                    s(e.model_states())
                ),
                format!(
                    "{} = {} × {} = {}",
                    term(w.answer.activations),
                    s(e.activations_per_sample),
                    t.batch,
                    s(e.activations)
                ),
                peak_line(lang, e, units),
                w.formula_source.to_owned(),
            ]
        }
    }
}

/// "peak allocated = weights 16.1 GB + optimizer states 96.4 GB + activations
/// 140 GB = 252 GB": the parts alive at the peak, which sum to it exactly (the
/// rounded figures may differ from the sum in their last digit).
fn peak_line(lang: Lang, e: &Estimate, units: Units) -> String {
    let w = i18n::words(lang);
    let parts: Vec<String> = crate::format::bar_segments(e)
        .into_iter()
        .filter(|&(c, _)| !c.beyond_tensors())
        .map(|(c, bytes)| {
            format!(
                "{} {}",
                crate::format::component_label(w.answer, c).to_ascii_lowercase(),
                short(lang, bytes, units)
            )
        })
        .collect();
    format!(
        "{} = {} = {}",
        w.answer.peak_allocated.to_ascii_lowercase(),
        parts.join(" + "),
        short(lang, e.peak_allocated, units)
    )
}

/// [`formula`] where the page calls it: a chunk of the split build.
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(formula, fallible, preload(#[allow(unsafe_code)] preload_formula))
)]
fn formula_now(
    lang: Lang,
    config: Config,
    estimate: Estimate,
) -> Result<Vec<String>, dom::ChunkMissing> {
    Ok(formula(lang, &config, &estimate))
}

/// Question and answer pairs: a chunk of the split build, with the formula
/// (the English ones too, `i18n::panels`).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(formula, fallible, preload(#[allow(unsafe_code)] preload_faq))
)]
fn faq(lang: Lang) -> Result<&'static [(&'static str, &'static str)], dom::ChunkMissing> {
    Ok(i18n::panels(lang).faq)
}

/// "How it works" and the FAQ.
pub fn how_it_works(state: State) -> El {
    let lang = state.lang;
    // The formula's code and the questions are a chunk of the split build
    // (dom::Chunk), fetched when the section is first opened.
    let chunk = dom::chunk!(preload_formula);
    let questions = dom::chunk!(preload_faq);
    // The formula with the current numbers is written only while the section is
    // open: closed, an edit would rebuild text nobody reads. `toggle` fires
    // after the state changes (once for several quick changes), so the handler
    // reads the element's `open` rather than counting events.
    let open = RwSignal::new(false);
    let toggled = move |ev: web_sys::Event| {
        let now = ev
            .target()
            .and_then(|t| js_sys::Reflect::get(&t, &"open".into()).ok())
            .and_then(|v| v.as_bool());
        if now == Some(true) {
            chunk.retry();
            questions.retry();
        }
        open.set(now.unwrap_or(false));
    };
    el("section").class("explain").child(
        el("details")
            .attr("data-testid", "how-it-works")
            .on(Ev::Toggle, Box::new(toggled))
            .child(el("summary").bind_text(i18n::tr(lang, |w| w.how_title)))
            .child(
                el("div")
                    .class("formula")
                    .attr("data-testid", "formula")
                    .rebuild(
                        rx(move || match open.get() && chunk.ready() {
                            true => dom::now(formula_now(
                                lang.get(),
                                state.config.get(),
                                state.estimate.get(),
                            )),
                            false => Vec::new(),
                        }),
                        Box::new(|lines| {
                            lines
                                .iter()
                                .map(|line| el("p").child(el("code").text(line)))
                                .collect()
                        }),
                    ),
            )
            .child(
                el("h2")
                    .class("faq-title")
                    .bind_text(i18n::tr(lang, |w| w.faq_title)),
            )
            .rebuild(
                rx(move || (open.get() && questions.ready()).then(|| lang.get())),
                Box::new(move |shown| {
                    let Some(lang) = *shown else {
                        return Vec::new();
                    };
                    dom::now(faq(lang))
                        .iter()
                        .map(|(question, answer)| {
                            el("details")
                                .class("faq")
                                .child(el("summary").text(question))
                                .child(el("p").text(answer))
                        })
                        .collect()
                }),
            ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_activations_formula_substitutes_the_worked_example() {
        let config = Config::default();
        let estimate = batchfit_core::memory::estimate(&config);
        let lines = formula(Lang::En, &config, &estimate);
        assert_eq!(
            lines[0],
            "activations = 16 × 2048 × 4096 × 32 × 2 × 10 = 85.9 GB"
        );
    }

    /// Issue 12: with checkpointing the equation printed was false
    /// ("… × 32 × 2 × 10 = 15.2 GB"); it now names the √layers it keeps.
    #[test]
    fn the_checkpointed_formula_is_a_true_equation() {
        let config = batchfit_core::query::parse("form=activations&ckpt=1").config;
        let estimate = batchfit_core::memory::estimate(&config);
        let lines = formula(Lang::En, &config, &estimate);
        assert_eq!(
            lines[0],
            "activations = 16 × 2048 × 4096 × √32 × 2 × 10 = 15.2 GB"
        );
        let product = 16.0 * 2048.0 * 4096.0 * 32f64.sqrt() * 2.0 * 10.0;
        assert!((product / estimate.activations as f64 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn both_languages_answer_the_same_questions() {
        let faq = |lang| i18n::panels(lang).faq;
        assert_eq!(faq(Lang::En).len(), faq(Lang::Es).len());
        for ((q_en, _), (q_es, _)) in faq(Lang::En).iter().zip(faq(Lang::Es)) {
            assert_ne!(q_en, q_es);
        }
    }
}
