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
    let es = lang == Lang::Es;
    let s = |bytes| short(bytes, units);
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
                if es { "activaciones" } else { "activations" },
                a.batch,
                a.seq,
                a.hidden,
                layers,
                a.precision.bytes(),
                format_hundredths(a.k.hundredths()),
                s(e.activations)
            )];
            lines.push(if es {
                "lote × secuencia × oculto × capas × bytes × k".to_owned()
            } else {
                "batch × sequence × hidden × layers × bytes × k".to_owned()
            });
            if a.checkpointing {
                lines.push(if es {
                    format!(
                        "Con checkpointing se guardan √{} ≈ {} capas en vez de {}.",
                        a.layers,
                        units::fixed((a.layers as f64).sqrt(), 2),
                        a.layers
                    )
                } else {
                    format!(
                        "With checkpointing, √{} ≈ {} layers are kept instead of {}.",
                        a.layers,
                        units::fixed((a.layers as f64).sqrt(), 2),
                        a.layers
                    )
                });
            }
            lines
        }
        Form::Parameters => {
            let p = &config.parameters;
            let n = batchfit_core::fields::format_count(p.params);
            let mut lines = vec![format!(
                "{} = {n} × {} B = {}",
                if es { "pesos" } else { "weights" },
                p.precision.bytes(),
                s(e.weights)
            )];
            if e.gradients > 0 {
                lines.push(format!(
                    "{} = {n} × 4 B (FP32) = {}",
                    if es { "gradientes" } else { "gradients" },
                    s(e.gradients)
                ));
            }
            if e.optimizer_states > 0 {
                let per = e.optimizer_states / u128::from(p.params.max(1));
                lines.push(format!(
                    "{} = {n} × {per} B = {}",
                    if es {
                        "estados del optimizador"
                    } else {
                        "optimizer states"
                    },
                    s(e.optimizer_states)
                ));
            }
            lines.push(format!(
                "{} = {} × {} MB = {}",
                if es { "activaciones" } else { "activations" },
                p.batch,
                format_hundredths(p.act_mb),
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
                    if es { "parámetros" } else { "parameters" },
                    i18n::group(lang, e.parameters),
                    t.arch.layers,
                    t.arch.hidden,
                    t.arch.heads,
                    if es { "cabezas" } else { "heads" },
                    t.arch.ffn,
                    if es { "vocabulario" } else { "vocabulary" },
                    t.arch.vocab,
                ),
                format!(
                    "{} = {} + {} + {} B/{} = {}",
                    if es {
                        "estados del modelo"
                    } else {
                        "model states"
                    },
                    per_param(e.weights),
                    per_param(e.gradients),
                    per_param(e.optimizer_states),
                    if es { "parámetro" } else { "parameter" },
                    s(e.model_states())
                ),
                format!(
                    "{} = {} × {} = {}",
                    if es { "activaciones" } else { "activations" },
                    s(e.activations_per_sample),
                    t.batch,
                    s(e.activations)
                ),
                peak_line(lang, e, units),
                if es {
                    "Activaciones por capa según Korthikanti et al. 2022 (ec. 1), generalizadas a GQA, SwiGLU y FlashAttention; ver docs/model.md.".to_owned()
                } else {
                    "Per-layer activations after Korthikanti et al. 2022 (Eq. 1), generalised to GQA, SwiGLU and FlashAttention; see docs/model.md.".to_owned()
                },
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
        .filter(|&(c, _)| !crate::format::beyond_tensors(c))
        .map(|(c, bytes)| {
            format!(
                "{} {}",
                crate::format::component_label(w, c).to_ascii_lowercase(),
                short(bytes, units)
            )
        })
        .collect();
    format!(
        "{} = {} = {}",
        w.peak_allocated.to_ascii_lowercase(),
        parts.join(" + "),
        short(e.peak_allocated, units)
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

/// Question and answer pairs.
fn faq(lang: Lang) -> &'static [(&'static str, &'static str)] {
    match lang {
        Lang::En => FAQ_EN,
        Lang::Es => i18n::spanish_faq(),
    }
}

pub static FAQ_EN: &[(&str, &str)] = &[
    (
        "Why does batch size, not model size, usually cause out-of-memory?",
        "Weights, gradients and optimizer states are paid once, whatever the batch. Activations are kept for every sample until the backward pass uses them, so they grow linearly with batch × sequence length, and for long sequences they dominate. Halving the batch halves them; the rest stays.",
    ),
    (
        "What do FP32, FP16, BF16 and INT8 change?",
        "Bytes per value: 4, 2, 2 and 1. BF16 keeps FP32's range with less precision and trains without loss scaling; FP16 needs a loss scaler. INT8 and INT4 are for inference weights.",
    ),
    (
        "AdamW or SGD?",
        "AdamW keeps two FP32 moments per parameter (8 bytes); SGD with momentum keeps one (4 bytes); plain SGD none. With FP32 master weights, mixed precision adds 4 more bytes per parameter.",
    ),
    (
        "Why don't gradients depend on the batch?",
        "There is one gradient per parameter, summed over the samples of the batch. A larger batch changes their values, not their number.",
    ),
    (
        "What is mixed precision?",
        "Compute in BF16 or FP16 and keep an FP32 master copy of the weights for the update: 2 + 4 bytes of weights, 4 of gradients and 8 of AdamW state, about 18 bytes per parameter before activations.",
    ),
    (
        "What do LoRA and QLoRA save, and what not?",
        "LoRA freezes the base and trains small adapters: no gradients or optimizer state for the base, so the model states shrink from about 18 to about 2 bytes per parameter. QLoRA stores the frozen base in 4 bits, about 0.5 byte per weight. Neither shrinks the activations: at long sequences or large batches they still dominate, and gradient checkpointing is what cuts them.",
    ),
    (
        "What does gradient checkpointing do?",
        "It keeps only some activations (each layer's input, or all but the attention core) and recomputes the rest during the backward pass: a third more compute for much less memory.",
    ),
    (
        "What does FlashAttention change?",
        "Eager attention stores the softmax scores, an s × s matrix per head, which grows with the square of the sequence. FlashAttention and PyTorch's SDPA kernels never store it.",
    ),
    (
        "Why does nvidia-smi show more than this?",
        "nvidia-smi shows the whole process: the CUDA context (about 0.3–1.3 GB), the framework's buffers and the memory PyTorch's caching allocator holds after tensors are freed. That is what the overhead and the safety margin stand for; the model's own tensors are the total.",
    ),
    (
        "How exact is it?",
        "It is an estimate from published formulas; real peaks depend on the framework, kernels and allocator. docs/accuracy.md compares it with published measurements, row by row.",
    ),
];

/// The Spanish questions and answers: with the Spanish tables, fetched
/// only by a Spanish page (`i18n`).
pub static FAQ_ES: &[(&str, &str)] = &[
    (
        "¿Qué ahorran LoRA y QLoRA, y qué no?",
        "LoRA congela la base y entrena adaptadores pequeños: sin gradientes ni estado del optimizador para la base, los estados del modelo bajan de unos 18 a unos 2 bytes por parámetro. QLoRA guarda la base congelada en 4 bits, unos 0,5 bytes por peso. Ninguno reduce las activaciones: con secuencias largas o lotes grandes siguen dominando, y lo que las recorta es el checkpointing de gradientes.",
    ),
    (
        "¿Por qué suele agotar la memoria el tamaño de lote y no el del modelo?",
        "Pesos, gradientes y estados del optimizador se pagan una vez, sea cual sea el lote. Las activaciones se guardan para cada muestra hasta que el paso hacia atrás las usa, así que crecen linealmente con lote × longitud de secuencia y, con secuencias largas, dominan. Reducir el lote a la mitad las reduce a la mitad; lo demás no cambia.",
    ),
    (
        "¿Qué cambian FP32, FP16, BF16 e INT8?",
        "Los bytes por valor: 4, 2, 2 y 1. BF16 conserva el rango de FP32 con menos precisión y entrena sin escalar la pérdida; FP16 necesita un escalador. INT8 e INT4 son para pesos de inferencia.",
    ),
    (
        "¿AdamW o SGD?",
        "AdamW guarda dos momentos FP32 por parámetro (8 bytes); SGD con momento guarda uno (4 bytes); SGD simple, ninguno. Con pesos maestros FP32, la precisión mixta suma 4 bytes más por parámetro.",
    ),
    (
        "¿Por qué los gradientes no dependen del lote?",
        "Hay un gradiente por parámetro, sumado sobre las muestras del lote. Un lote mayor cambia sus valores, no su número.",
    ),
    (
        "¿Qué es la precisión mixta?",
        "Calcular en BF16 o FP16 y guardar una copia maestra FP32 de los pesos para la actualización: 2 + 4 bytes de pesos, 4 de gradientes y 8 de estado de AdamW, unos 18 bytes por parámetro antes de las activaciones.",
    ),
    (
        "¿Qué hace el checkpointing de gradientes?",
        "Guarda solo algunas activaciones (la entrada de cada capa, o todo menos el núcleo de atención) y recalcula el resto en el paso hacia atrás: un tercio más de cómputo por mucha menos memoria.",
    ),
    (
        "¿Qué cambia FlashAttention?",
        "La atención clásica guarda las puntuaciones del softmax, una matriz s × s por cabeza que crece con el cuadrado de la secuencia. FlashAttention y los kernels SDPA de PyTorch nunca la guardan.",
    ),
    (
        "¿Por qué nvidia-smi muestra más?",
        "nvidia-smi muestra todo el proceso: el contexto CUDA (unos 0.3–1.3 GB), los búferes del framework y la memoria que el asignador de PyTorch retiene tras liberar tensores. Eso representan la sobrecarga y el margen de seguridad; los tensores del modelo son el total.",
    ),
    (
        "¿Qué tan exacto es?",
        "Es una estimación con fórmulas publicadas; los picos reales dependen del framework, los kernels y el asignador. docs/accuracy.md lo compara fila a fila con mediciones publicadas.",
    ),
];

/// "How it works" and the FAQ.
pub fn how_it_works(state: State) -> El {
    let lang = state.lang;
    // The formula's code is a chunk of the split build (dom::Chunk), fetched
    // when the section is first opened.
    let chunk = dom::chunk!(preload_formula);
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
        }
        open.set(now.unwrap_or(false));
    };
    el("section")
        .class("explain")
        .child(
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
                ),
        )
        .child(
            el("h2")
                .class("faq-title")
                .bind_text(i18n::tr(lang, |w| w.faq_title)),
        )
        .rebuild(
            rx(move || lang.get()),
            Box::new(move |&lang| {
                faq(lang)
                    .iter()
                    .map(|(question, answer)| {
                        el("details")
                            .class("faq")
                            .child(el("summary").text(question))
                            .child(el("p").text(answer))
                    })
                    .collect()
            }),
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
        assert_eq!(faq(Lang::En).len(), faq(Lang::Es).len());
        for ((q_en, _), (q_es, _)) in faq(Lang::En).iter().zip(faq(Lang::Es)) {
            assert_ne!(q_en, q_es);
        }
    }
}
