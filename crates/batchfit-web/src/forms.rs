//! The three forms and the device panel they share. Fields are bound by URL
//! parameter name; values shared between forms (batch, sequence, hidden size,
//! layers, precision) are one text each, so switching forms keeps them.

use crate::prelude::*;
use batchfit_core::import::hf;
use batchfit_core::import::{self, FileKind};
use batchfit_core::query::{self, Form, Param, rules};
use batchfit_core::transformer as tf;
use batchfit_core::{Precision, parameters, presets};

use crate::dom::{self, El, Ev, Rx, el, rx};
use crate::fields::{self, event_value, number_field, select_field};
use crate::format;
use crate::i18n;
use crate::state::{CUSTOM_DEVICE, State};

fn activations_form(state: State) -> Vec<El> {
    query::ACTIVATIONS_PARAMETERS
        .iter()
        .map(|&param| fields::field(state, param))
        .collect()
}

fn parameters_form(state: State) -> Vec<El> {
    vec![
        params_field(state),
        select_field(state, Param::Precision, Precision::NAMES),
        select_field(state, Param::Optimizer, parameters::Optimizer::NAMES),
        number_field(state, Param::Batch),
        number_field(state, Param::ActMb),
    ]
}

/// The scale names, for the select.
const SCALE_NAMES: [&str; 5] = ["M", "B", "k", "T", ""];

/// What the number box sends as the `params` text: a number typed with its
/// own scale ("7B") or with an exponent ("1.3e9") is a whole count as
/// written; a bare number takes the scale the select shows.
fn typed_count(typed: &str, scale: &'static str) -> String {
    let typed = typed.trim();
    let own_scale = typed
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphabetic());
    let exponent = typed.contains(['e', 'E']);
    if !own_scale && !exponent {
        format!("{typed}{scale}")
    } else {
        typed.to_owned()
    }
}

/// `count` written in `scale`: 7e9 in M is "7000", 125e6 in B is "0.125".
fn count_in(count: u64, scale: &'static str) -> String {
    let power = fields::SCALES
        .iter()
        .find(|(s, _)| *s == scale)
        .map_or(0, |&(_, p)| p);
    let unit = 10u64.pow(power);
    let (whole, rest) = (count / unit, count % unit);
    if rest == 0 {
        return format!("{whole}{scale}");
    }
    let digits = format!("{rest:0width$}", width = power as usize);
    format!("{whole}.{}{scale}", digits.trim_end_matches('0'))
}

/// The parameter count: a number and a scale select ("7000" with M is 7B),
/// written together into the `params` text. The select follows a scale typed
/// in the box ("7B"); changing the select keeps the count (7B becomes 7000M).
fn params_field(state: State) -> El {
    let text = state.text(Param::Params);
    let lang = state.lang;
    let parts = move || text.with(|t| fields::split_count(t));
    let untracked_parts = move || text.with_untracked(|t| fields::split_count(t));
    // Powers of ten rather than words: short enough for a phone, and free of
    // the English/Spanish "billion" ambiguity (10⁹ vs 10¹²).
    let scale_label = move |scale: &'static str| -> Rx<String> {
        rx(move || {
            match scale {
                "k" => "k (10³)",
                "M" => "M (10⁶)",
                "B" => "B (10⁹)",
                "T" => "T (10¹²)",
                _ => i18n::words(lang.get()).exact,
            }
            .to_owned()
        })
    };
    let number = el("input")
        .attr("id", "params")
        .attr("name", "params")
        .attr("type", "text")
        .attr("inputmode", fields::inputmode(Param::Params))
        .attr("autocomplete", "off")
        .attr("spellcheck", "false")
        .attr("aria-describedby", "params-hint")
        .bind_attr(
            "aria-invalid",
            rx(move || Some(state.problem(Param::Params).is_some().to_string())),
        )
        .bind_prop("value", rx(move || parts().0.into()))
        .on(
            Ev::Input,
            Box::new(move |ev| {
                let typed = typed_count(&event_value(&ev), untracked_parts().1);
                state.edit(Param::Params, typed);
            }),
        )
        .on(Ev::Change, Box::new(move |_| state.commit()));
    let scale = fields::select(&SCALE_NAMES, Box::new(scale_label))
        .attr("name", "params_scale")
        .class("scale")
        .bind_attr(
            "aria-label",
            rx(move || Some(i18n::field(lang.get(), Param::Params).label.to_owned())),
        )
        .bind_prop("value", rx(move || parts().1.into()))
        .on(
            Ev::Change,
            Box::new(move |ev| {
                let scale = fields::SCALES
                    .iter()
                    .map(|&(s, _)| s)
                    .find(|s| *s == event_value(&ev))
                    .unwrap_or("");
                let rescaled = match text.with_untracked(|t| parameters::PARAMS.parse(t)) {
                    Ok(count) => count_in(count, scale),
                    // No count to keep: the number as typed, in the new scale.
                    Err(_) => format!("{}{scale}", untracked_parts().0),
                };
                state.choose(Param::Params, rescaled);
            }),
        );
    fields::frame(state, Param::Params, vec![number, scale])
}

/// The transformer form as the first screen asks it (issue 28): the model,
/// what is done with it, the GPUs, the batch and the sequence; everything
/// else in closed groups, each saying its current values in one line.
fn transformer_form(state: State) -> Vec<El> {
    use Param::*;
    let lang = state.lang;
    // Each field shows where its parameter applies, and a group where one of
    // its fields does (`query::rules`, the table the parser reads).
    let group = |params: &'static [Param]| fields::group(state, params);
    vec![
        model_picker(state),
        method_picker(state),
        group(&[Gpus, Batch, Seq, Gen]),
        config_import(state),
        advanced(
            state,
            "architecture",
            i18n::tr(state.lang, |w| w.architecture_title),
            &[Kind, Layers, Hidden, Heads, KvHeads, Experts],
            vec![
                group(&[Kind, Layers, Hidden, Heads, KvHeads, Ffn, Mlp]),
                group(&[Vocab, Tied]),
                group(&[Image, Patch]),
                el("details")
                    .class("more")
                    .child(el("summary").bind_text(i18n::tr(lang, |w| w.more_architecture)))
                    .child(
                        group(&[
                            HeadDim,
                            Norm,
                            Bias,
                            QkvBias,
                            QkNorm,
                            QkNormFull,
                            Positions,
                            TokenTypes,
                            Labels,
                            Dropout,
                            Channels,
                            Block,
                            Window,
                            GlobalEvery,
                            Softcap,
                            AttnSoftcap,
                            AttnSinks,
                            FusedProj,
                            AttnOutputGate,
                            LinearMixer,
                            FullAttentionInterval,
                            LinearNumKeyHeads,
                            LinearKeyHeadDim,
                            LinearNumValueHeads,
                            LinearValueHeadDim,
                            LinearConvKernelDim,
                        ])
                        .class("form-grid"),
                    ),
                // Collapsed, like the details above: a dense model's user
                // never needs it open.
                el("details")
                    .class("more")
                    .attr("data-testid", "moe-group")
                    .child(el("summary").bind_text(i18n::tr(lang, |w| w.moe_title)))
                    .child(
                        group(&[
                            Experts,
                            ExpertsActive,
                            ExpertFfn,
                            SharedExperts,
                            SharedFfn,
                            FirstDenseLayers,
                            MoeEvery,
                            KvLoraRank,
                            QLoraRank,
                            QkRopeHeadDim,
                            QkNopeHeadDim,
                            VHeadDim,
                        ])
                        .class("form-grid"),
                    ),
            ],
        ),
        advanced(
            state,
            "settings",
            settings_title(state),
            &[
                Framework, Recipe, Optimizer, Recompute, LoraRank, BaseQuant, Quant, KvDtype,
            ],
            vec![
                framework_picker(state),
                group(&[Quant, KvDtype, KvLayout, CacheImplementation, LogitsToKeep]),
                // vLLM's flags, under its profile.
                group(&[
                    GpuMemoryUtilization,
                    MaxModelLen,
                    MaxNumSeqs,
                    MaxNumBatchedTokens,
                    BlockSize,
                    EnforceEager,
                    FlashinferSampler,
                ]),
                group(&[Recipe]),
                group(&[Fp8]),
                group(&[
                    Optimizer, Recompute, Compile, Step, Loss, Logits, ZeroGrad, Outputs,
                    NormKernel, LoraRank,
                ]),
                // Megatron-LM's gradient-accumulation fusion, with its FP32
                // main gradients.
                group(&[GradAccumFusion]),
                // Which layers full recomputation checkpoints, and how, with it.
                group(&[RecomputeMethod, RecomputeLayers, Reentrant]),
                // Megatron-Core's recomputed modules, with selective
                // recomputation.
                group(&[RecomputeModules]),
                // LoRA's settings and a quantized base (QLoRA), with a rank.
                group(&[
                    LoraVariant,
                    LoraTargets,
                    LoraDropout,
                    BaseQuant,
                    DoubleQuant,
                    PrepareKbit,
                    TrainEmbeddings,
                ]),
                group(&[ActOffload, Offload, ParamOffload]),
                group(&[Attn]),
            ],
        ),
        multi_gpu(state),
    ]
}

/// A closed group of settings (issue 28): its title and, while closed, one
/// line of the current values of `line` ([`values_line`]).
fn advanced(
    state: State,
    class: &str,
    title: Rx<String>,
    line: &'static [Param],
    body: Vec<El>,
) -> El {
    el("details")
        .class(&format!("more advanced {class}"))
        .child(summary_with_values(state, title, line))
        .children(body)
}

/// A group's `<summary>`: its title and the line of its values.
fn summary_with_values(state: State, title: Rx<String>, line: &'static [Param]) -> El {
    el("summary").child(el("span").bind_text(title)).child(
        el("span")
            .class("values")
            .attr("data-testid", "group-values")
            .bind_text(values_line(state, line)),
    )
}

/// The title of the transformer form's group of settings: the training's,
/// or in inference the inference's (`AnswerWords`: the first part words
/// the shell's title so too).
fn settings_title(state: State) -> Rx<String> {
    rx(move || {
        let words = &i18n::words(state.lang.get()).answer;
        let inference = state
            .config
            .with(|c| c.transformer.mode == tf::Mode::Inference);
        if inference {
            words.inference_title
        } else {
            words.training_title
        }
        .to_owned()
    })
}

/// The values of `params` that apply, as the fields show them, in one line
/// ("Decoder-only · Layers 32 · …"): a choice by its option's words, a
/// switch by its label when on, a number after its label; in inference the
/// precision recipe by the precision it loads the model in, and the KV
/// cache's precision after its label. A count of 0 (none, unknown), a
/// choice of `none` or `custom` (no framework profile) and a parallel
/// degree of 1 say nothing and are left out.
fn values_line(state: State, params: &'static [Param]) -> Rx<String> {
    use batchfit_core::param::Input;
    rx(move || {
        let lang = state.lang.get();
        // Read in place: a Config is large, and every group's line reads it.
        state.config.with(|config| {
            let inference = config.transformer.mode == tf::Mode::Inference;
            params
                .iter()
                .filter(|&&p| rules::applies(p, config))
                .filter_map(|&p| {
                    let text = state.text(p).get();
                    let degree = matches!(p, Param::Tp | Param::Pp | Param::Cp | Param::Ep);
                    if matches!(text.as_str(), "0" | "none" | "custom") || (degree && text == "1") {
                        return None;
                    }
                    let words = i18n::field(lang, p);
                    match p.input() {
                        // Inference loads the model in the recipe's compute
                        // precision: no master copy, gradients or states.
                        Input::Choice if p == Param::Recipe && inference => {
                            let w = i18n::words(lang);
                            Some(
                                match config.transformer.activation_bytes() {
                                    4 => w.loaded_fp32,
                                    _ => w.loaded_16,
                                }
                                .to_owned(),
                            )
                        }
                        // The cache's precision named as such beside the
                        // model's ("Loaded in 16 bits · KV-cache precision
                        // 16-bit, unquantized").
                        Input::Choice if p == Param::KvDtype => {
                            Some(format!("{} {}", words.label, i18n::option(lang, p, &text)))
                        }
                        Input::Choice => Some(i18n::option(lang, p, &text)),
                        Input::Switch => (text == "1").then(|| words.label.to_owned()),
                        _ => Some(format!("{} {text} {}", words.label, words.unit)),
                    }
                    .map(|value| value.trim_end().to_owned())
                })
                .collect::<Vec<_>>()
                .join(" · ")
        })
    })
}

/// What is done with the model: a full fine-tune, LoRA, QLoRA or inference
/// (`transformer::Method`), read from the parameters that state it and, when
/// picked, written into them as the QLoRA what-if writes them.
fn method_picker(state: State) -> El {
    let lang = state.lang;
    let select = fields::select(
        tf::Method::NAMES,
        Box::new(move |value| rx(move || i18n::method(lang.get(), value).to_owned())),
    )
    .attr("id", "method")
    .attr("name", "method")
    .attr("aria-describedby", "method-hint")
    .bind_prop(
        "value",
        rx(move || {
            state
                .config
                .with(|c| tf::Method::of(&c.transformer).name())
                .into()
        }),
    )
    .on(
        Ev::Change,
        Box::new(move |ev| {
            if let Some(method) = tf::Method::parse(&event_value(&ev)) {
                state.load_with(|config| method.apply(&mut config.transformer));
            }
        }),
    );
    el("div")
        .class("field")
        .child(
            el("label")
                .attr("for", "method")
                .bind_text(i18n::tr(lang, |w| w.method)),
        )
        .child(select)
        .child(
            el("p")
                .class("hint")
                .attr("id", "method-hint")
                .bind_text(i18n::tr(lang, |w| w.method_hint)),
        )
}

/// Data, tensor, expert, pipeline and context parallelism, closed for a
/// single-GPU dense setup and opened whenever the setup uses more than one
/// GPU or ZeRO (a link, a fix or a pasted file can make it so).
fn multi_gpu(state: State) -> El {
    use Param::*;
    let lang = state.lang;
    let group = |params: &'static [Param]| fields::group(state, params);
    const PIPELINE_MORE: &[Param] = &[PpSchedule, Vpp, Microbatches, PpLayout, PpStage, CpKind];
    let details = el("details")
        .class("more multi-gpu")
        .attr("data-testid", "multi-gpu")
        .child(summary_with_values(
            state,
            i18n::tr(lang, |w| w.parallelism_title),
            &[Zero, Tp, Pp, Cp, Ep],
        ))
        .child(group(&[Zero, Tp, Sp]))
        .child(group(&[GradientAsBucketView, BucketM, Prefetch]))
        // ZeRO-3's runtime buffers, which only DeepSpeed's engine has.
        .child(group(&[DsPrefetch, DsLive, DsPersist]))
        .child(group(&[Ep, Etp, CapacityFactor, CapacityPad]))
        .child(group(&[Pp, Cp]))
        // The schedule and the split, which only pipeline and context
        // parallelism read, one tap away once either splits.
        .child(el("div").show(
            rx(move || {
                state
                    .config
                    .with(|c| PIPELINE_MORE.iter().any(|&p| rules::applies(p, c)))
            }),
            Box::new(move || {
                vec![
                    el("details")
                        .class("more")
                        .child(el("summary").bind_text(i18n::tr(lang, |w| w.pipeline_more)))
                        .child(fields::group(state, PIPELINE_MORE)),
                ]
            }),
        ));
    let node = details.node().clone();
    dom::bind(
        rx(move || {
            state.config.with(|c| {
                let t = &c.transformer;
                t.gpus > 1
                    || t.tp > 1
                    || t.pp > 1
                    || t.cp > 1
                    || t.ep > 1
                    || t.etp > 0
                    || t.zero > 0
            })
        }),
        Box::new(move |&multi| {
            if multi {
                let _ = node.set_attribute("open", "");
            }
        }),
    );
    details
}

/// A select that is not bound to a URL parameter's text by name but acts on
/// change (the framework and model pickers), with its label and hint.
fn picker(state: State, param: Param, select: El, pick: Box<dyn Fn(String)>) -> El {
    let lang = state.lang;
    let name = param.name();
    // A value no option has (a link's `gpu=t4-16gb`) is marked and named, as
    // a typed field's problem is (`fields::frame`).
    let error = move || state.problem(param);
    el("div")
        .class("field")
        .bind_class("invalid", rx(move || error().is_some()))
        .child(
            el("label")
                .attr("for", name)
                .bind_text(fields::field_text(lang, param, |w| w.label)),
        )
        .child(
            select
                .attr("id", name)
                .attr("name", name)
                .attr("aria-describedby", &format!("{name}-hint"))
                .on(Ev::Change, Box::new(move |ev| pick(event_value(&ev)))),
        )
        .child(
            el("p")
                .class("hint")
                .attr("id", &format!("{name}-hint"))
                .bind_text(fields::field_text(lang, param, |w| w.hint)),
        )
        .show(
            rx(move || error().is_some()),
            Box::new(move || vec![fields::error_line(state, param)]),
        )
}

/// Picking a framework loads the settings its source code implies (recipe,
/// optimizer step, loss, buckets, task) into the fields; each stays editable.
fn framework_picker(state: State) -> El {
    let text = state.text(Param::Framework);
    let lang = state.lang;
    let select = fields::select(
        tf::Framework::NAMES,
        Box::new(move |value| rx(move || i18n::option(lang.get(), Param::Framework, value))),
    )
    .bind_prop("value", rx(move || text.get().into()));
    picker(
        state,
        Param::Framework,
        select,
        Box::new(move |name| {
            if let Some(framework) = tf::Framework::parse(&name) {
                state.load_with(|config| framework.apply(&mut config.transformer));
            }
        }),
    )
}

/// Picking a preset loads its architecture into the fields.
fn model_picker(state: State) -> El {
    let text = state.text(Param::Model);
    let lang = state.lang;
    let select = el("select")
        .child(
            el("option")
                .attr("value", "")
                .bind_text(i18n::tr(lang, |w| w.custom_model)),
        )
        .children(presets::MODELS.iter().map(|m| {
            el("option")
                .attr("value", m.id)
                .text(&format::model_name(m))
        }))
        .bind_prop("value", rx(move || text.get().into()));
    picker(
        state,
        Param::Model,
        select,
        Box::new(move |id| {
            state.load_with(|config| {
                config.model = presets::model(&id);
                if let Some(preset) = config.model {
                    config.transformer.arch = preset.arch;
                }
            });
            text.set(id);
            state.commit();
        }),
    )
}

/// What the last paste did, for the message under the text area.
#[derive(Clone, Debug, PartialEq)]
enum Pasted {
    /// A model's config.json: the architecture replaced.
    Model,
    /// A DeepSpeed config or TrainingArguments read onto the fields, with
    /// what of it the estimate does not follow.
    Settings(FileKind, Vec<import::Note>),
    Rejected(import::Rejected),
}

/// A pasted file: a model's config.json replaces the architecture; a
/// DeepSpeed config or Hugging Face TrainingArguments (as JSON) set the
/// training settings they name (`import::files`, the same reading as the
/// CLI's `--deepspeed` and `--training-args`). Text that is not a usable file
/// is explained and the previous setup stays.
/// The paste box (a config.json, a DeepSpeed config, TrainingArguments),
/// closed until opened; its readers and messages are a chunk of the split
/// build (dom::Chunk), fetched when it is first opened.
fn config_import(state: State) -> El {
    let lang = state.lang;
    dom::details_loaded_when_open(
        i18n::tr(lang, |w| w.paste_config),
        i18n::chunk_status(lang),
        dom::chunk!(preload_import),
        Box::new(move || dom::now(paste_box(state))),
    )
    .class("more")
    .attr("data-testid", "paste-box")
}

#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(import, fallible, preload(#[allow(unsafe_code)] preload_import))
)]
fn paste_box(state: State) -> Result<Vec<El>, dom::ChunkMissing> {
    let lang = state.lang;
    let outcome: RwSignal<Option<Pasted>> = RwSignal::new(None);
    let import = move |text: String| {
        if text.trim().is_empty() {
            outcome.set(None);
            state.import_rejected.set(false);
            return;
        }
        let kind = import::kind_of(&text);
        let read = match kind {
            FileKind::ModelConfig => match hf::import(&text) {
                Ok(arch) => {
                    // A published model's config.json names its preset.
                    let preset = presets::model_of(&arch);
                    state.load_with(|config| {
                        config.model = preset;
                        config.transformer.arch = arch;
                    });
                    state
                        .text(Param::Model)
                        .set(preset.map_or_else(String::new, |m| m.id.to_owned()));
                    Ok(Pasted::Model)
                }
                Err(error) => Err(Pasted::Rejected(import::Rejected {
                    source: import::Source::ModelConfig,
                    error,
                })),
            },
            FileKind::Deepspeed | FileKind::TrainingArgs => {
                let config = state.config.get_untracked();
                let context = import::Context {
                    hidden: (config.form == Form::Transformer)
                        .then_some(config.transformer.arch.hidden),
                    gpus: config.transformer.gpus,
                };
                let files = if kind == FileKind::Deepspeed {
                    import::Files {
                        deepspeed: Some(&text),
                        training_args: None,
                    }
                } else {
                    import::Files {
                        deepspeed: None,
                        training_args: Some(&text),
                    }
                };
                match import::files(&files, &context) {
                    Ok(read) => {
                        state.form.set(Form::Transformer);
                        // The file's framework profile first, as picking it
                        // does and as the CLI reads the file: the settings
                        // the file leaves unsaid are the profile's, not the
                        // form's earlier ones (docs/url-parameters.md).
                        let framework = read
                            .params
                            .iter()
                            .find(|(param, _)| *param == Param::Framework)
                            .and_then(|(_, name)| tf::Framework::parse(name));
                        if let Some(framework) = framework {
                            state.load_with(|config| framework.apply(&mut config.transformer));
                        }
                        for (param, value) in read.params {
                            state.text(param).set(value);
                        }
                        state.import_rejected.set(false);
                        state.commit();
                        Ok(Pasted::Settings(kind, read.notes))
                    }
                    Err(rejected) => Err(Pasted::Rejected(rejected)),
                }
            }
        };
        state.import_rejected.set(read.is_err());
        outcome.set(Some(read.unwrap_or_else(|rejected| rejected)));
    };
    Ok(vec![
        el("div")
            .class("field")
            .child(
                el("textarea")
                    .attr("name", "config_json")
                    .attr("rows", "6")
                    .attr("spellcheck", "false")
                    .attr("aria-describedby", "config-json-hint")
                    .bind_attr(
                        "aria-label",
                        rx(move || Some(i18n::words(lang.get()).paste_config.to_owned())),
                    )
                    .on(Ev::Input, Box::new(move |ev| import(event_value(&ev)))),
            )
            .child(
                el("p")
                    .class("hint")
                    .attr("id", "config-json-hint")
                    .bind_text(i18n::tr(lang, |w| w.paste_hint)),
            )
            .rebuild(
                rx(move || (outcome.get(), lang.get())),
                Box::new(move |(shown, lang)| {
                    let w = i18n::words(*lang);
                    let ok = |testid: &str, text: &str| {
                        el("p")
                            .class("ok")
                            .attr("role", "status")
                            .attr("data-testid", testid)
                            .text(text)
                    };
                    let error = |text: &str| {
                        el("p")
                            .class("error")
                            .attr("role", "alert")
                            .attr("data-testid", "config-import-error")
                            .text(text)
                    };
                    match shown {
                        None => Vec::new(),
                        Some(Pasted::Model) => vec![ok("config-import", w.config_loaded)],
                        Some(Pasted::Settings(kind, notes)) => {
                            let read = if *kind == FileKind::Deepspeed {
                                w.deepspeed_loaded
                            } else {
                                w.training_args_loaded
                            };
                            vec![
                                ok("settings-import", read),
                                el("ul")
                                    .class("hint")
                                    .attr("data-testid", "import-notes")
                                    .children(notes.iter().map(|note| {
                                        el("li").text(&crate::messages::file_note(*lang, note))
                                    })),
                            ]
                        }
                        Some(Pasted::Rejected(e)) => {
                            vec![error(&crate::messages::file_error(*lang, e))]
                        }
                    }
                }),
            ),
    ])
}

/// The device, first in every form: what people ask before anything else is
/// whether their card holds it (issue 28). Its memory when it is custom.
fn device_picker(state: State) -> Vec<El> {
    let device = state.text(Param::Gpu);
    let lang = state.lang;
    let select = el("select")
        .child(
            el("option")
                .attr("value", "")
                .bind_text(i18n::tr(lang, |w| w.answer.no_device)),
        )
        .children(presets::DEVICES.iter().map(|d| {
            el("option")
                .attr("value", d.id)
                .bind_text(rx(move || format::preset_name(lang.get(), d)))
        }))
        .child(
            el("option")
                .attr("value", CUSTOM_DEVICE)
                .bind_text(i18n::tr(lang, |w| w.answer.custom_device)),
        )
        .bind_prop("value", rx(move || device.get().into()));
    vec![
        picker(
            state,
            Param::Gpu,
            select,
            Box::new(move |id| state.choose(Param::Gpu, id)),
        ),
        number_field(state, Param::GpuGb).bind_attr(
            "hidden",
            rx(move || device.with(|d| d != CUSTOM_DEVICE).then(String::new)),
        ),
    ]
}

/// What else the user has and the margin: the GPUs and host memory the
/// advice may use, the overhead, the safety margin, the global batch.
fn limits_panel(state: State) -> El {
    use Param::*;
    advanced(
        state,
        "limits",
        i18n::tr(state.lang, |w| w.device_title),
        &[MaxGpus, HostGb, OverheadGb, Margin, GlobalBatch],
        [MaxGpus, HostGb, OverheadGb, Margin, GlobalBatch]
            .into_iter()
            .map(|param| number_field(state, param))
            .collect(),
    )
}

/// The form switch: one tab per form, with when to use it.
pub fn form_tabs(state: State) -> El {
    let lang = state.lang;
    el("nav")
        .class("tabs")
        .bind_attr(
            "aria-label",
            rx(move || Some(i18n::words(lang.get()).forms.to_owned())),
        )
        .children(Form::ALL.iter().enumerate().map(|(i, &form)| {
            el("button")
                .attr("type", "button")
                .class("tab")
                .attr("data-testid", &format!("form-{}", form.name()))
                .bind_attr(
                    "aria-pressed",
                    rx(move || Some((state.form.get() == form).to_string())),
                )
                .on(Ev::Click, Box::new(move |_| state.form.set(form)))
                .child(
                    el("span")
                        .class("tab-title")
                        .bind_text(rx(move || i18n::words(lang.get()).tabs[i].0.to_owned())),
                )
                .child(
                    el("span")
                        .class("tab-desc")
                        .bind_text(rx(move || i18n::words(lang.get()).tabs[i].1.to_owned())),
                )
        }))
}

/// The device with what else the user has beside it (the GPUs and host
/// memory the advice may use, the margin: a closed group, issue 28), then
/// the inputs of the current form.
pub fn inputs(state: State) -> El {
    el("form")
        .class("form")
        .on(Ev::Submit, Box::new(|ev| ev.prevent_default()))
        .children(device_picker(state))
        .child(limits_panel(state))
        .rebuild(
            rx(move || state.form.get()),
            Box::new(move |form| match form {
                Form::Activations => activations_form(state),
                Form::Parameters => parameters_form(state),
                Form::Transformer => transformer_form(state),
            }),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchfit_core::query;

    #[test]
    fn counts_split_into_number_and_scale() {
        for (text, number, scale) in [
            ("7B", "7", "B"),
            ("7000M", "7000", "M"),
            ("125m", "125", "M"),
            ("1300000000", "1300000000", ""),
            ("", "", ""),
            ("1.3e9", "1.3e9", ""),
            ("7 B", "7", "B"),
        ] {
            assert_eq!(
                fields::split_count(text),
                (number.to_owned(), scale),
                "{text}"
            );
        }
    }

    /// What people type into the number box, with the select on B, is the
    /// count they mean (issue 12: "7B", "7000M", "125M", "1.3e9").
    #[test]
    fn a_typed_scale_or_exponent_wins_over_the_select() {
        for (typed, scale, text) in [
            ("7", "B", "7B"),
            ("7B", "B", "7B"),
            ("7000M", "B", "7000M"),
            ("125M", "B", "125M"),
            ("1.3e9", "B", "1.3e9"),
            (" 7 B ", "B", "7 B"),
            ("2,048", "", "2,048"),
            ("7G", "M", "7G"),
        ] {
            assert_eq!(typed_count(typed, scale), text, "{typed}");
        }
        for typed in ["7B", "7000M", "1.3e9", "7 B", "7,000M"] {
            let count = parameters::PARAMS.parse(&typed_count(typed, "B"));
            assert!(count.is_ok(), "{typed}: {count:?}");
        }
    }

    #[test]
    fn changing_the_scale_keeps_the_count() {
        for (count, scale, text) in [
            (7_000_000_000, "M", "7000M"),
            (7_000_000_000, "B", "7B"),
            (125_000_000, "B", "0.125B"),
            (1_300_000_000, "", "1300000000"),
            (1_300_000_000, "T", "0.0013T"),
            (124_439_808, "M", "124.439808M"),
        ] {
            let written = count_in(count, scale);
            assert_eq!(written, text);
            assert_eq!(parameters::PARAMS.parse(&written), Ok(count), "{text}");
        }
    }

    #[test]
    fn every_form_parameter_is_a_known_url_parameter() {
        for name in [Param::Params, Param::Gpu, Param::GpuGb, Param::Model] {
            assert!(
                query::PARAMETERS_PARAMETERS.contains(&name)
                    || query::COMMON_PARAMETERS.contains(&name)
                    || query::TRANSFORMER_PARAMETERS.contains(&name),
                "{name:?}"
            );
        }
    }
}
