//! Every word the page shows, one language per file: each language is one
//! [`Language`], the answer's words ([`AnswerWords`]) and the functions that
//! word the core's data, one [`Words`], the rest of the page's words, one
//! [`Forms`], its fields' texts (`en.rs`, `es.rs`), and one [`Panels`], its
//! panels' words (`en/panels.rs`, `es/panels.rs`). Apart so that each
//! travels with the code that shows it: the module's first part, which
//! writes the answer, carries a [`Language`] alone. The functions are
//! exhaustive matches over the core's enums, so that a missing translation
//! does not compile, as a missing field of [`Words`] does not.

mod en;
mod es;
mod numbers;
#[cfg(test)]
mod tests;

use crate::prelude::{Get, RwSignal};
use batchfit_core::fields::{Problem, Range};
use batchfit_core::hardware;
use batchfit_core::import;
use batchfit_core::measured::{self, Term};
use batchfit_core::param::COUNT;
pub use batchfit_core::query::Lang;
use batchfit_core::query::Param;
use batchfit_core::serving::log;

pub use numbers::{bound, decimal, decimal_point, exact_bytes, group};

/// The label, unit and one-line hint of a form field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldText {
    pub label: &'static str,
    pub unit: &'static str,
    pub hint: &'static str,
}

const fn f(label: &'static str, unit: &'static str, hint: &'static str) -> FieldText {
    FieldText { label, unit, hint }
}

/// A language's field texts indexed by [`Param::index`], built at compile
/// time from a list written by parameter; a parameter listed twice does not
/// compile, one without a field has empty texts.
const fn by_param<const N: usize>(list: [(Param, FieldText); N]) -> [FieldText; COUNT] {
    let mut table = [f("", "", ""); COUNT];
    let mut seen = [false; COUNT];
    let mut i = 0;
    while i < N {
        let (param, text) = list[i];
        assert!(!seen[param.index()], "a parameter listed twice");
        seen[param.index()] = true;
        table[param.index()] = text;
        i += 1;
    }
    table
}

/// One language: its tables, and a function for each kind of sentence that
/// carries the core's numbers and names.
pub struct Language {
    pub answer: &'static AnswerWords,
    /// The label of each select field's option, by its URL spelling.
    pub options: &'static [(Param, &'static str, &'static str)],
    /// "Needs 98.4 GB", the headline.
    pub needs: fn(&str) -> String,
    /// "Needs 16.1 GB per GPU", the headline of a job on several GPUs.
    pub needs_per_gpu: fn(&str) -> String,
    /// "= needs 98.4 GB", the end of the activations form's sum.
    pub sum_needs: fn(&str) -> String,
    /// One parallel degree beside its name: "tensor-parallel 4".
    pub degree: fn(&str, u64) -> String,
    /// "no, 16 GPUs needed (4 data-parallel × pipeline 4)".
    pub gpus_needed: fn(u64, Option<&str>) -> String,
    /// "fits on H100 80GB: yes", from the device's name and the answer.
    pub fits_on: fn(&str, &str) -> String,
    /// A setting the device cannot run (`hardware::Warning`).
    pub hardware: fn(hardware::Warning) -> String,
    /// The parameters form, when the model states alone exceed the device:
    /// from their size and the device's name.
    pub states_exceed: fn(&str, &str) -> String,
    /// The link that hands the parameters form's setup to the transformer
    /// form, from the published model it opens (written by the fix search's
    /// chunk, which is fetched anyway where it applies; here, not in
    /// [`Panels`], so that the chunk shares no code with the panels').
    pub hand_off: fn(&str) -> String,
    /// "fits on each of 32 × H100 80GB: yes", from the job's GPUs, the
    /// device's name and the answer.
    pub fits_on_each: fn(u64, &str, &str) -> String,
    /// The badge's detail when it fits: "3.2 GB to spare".
    pub spare: fn(&str) -> String,
    /// The unified-memory and CPU presets' names, from their GB.
    pub unified_memory: fn(u128) -> String,
    pub cpu_ram: fn(u128) -> String,
    /// "With checkpointing, √32 ≈ 5.66 layers are kept instead of 32.",
    /// from the layers and their square root written out.
    pub kept_layers: fn(u64, &str) -> String,
}

/// The form's own texts, one value per language as [`Language`] is: apart
/// from it, because the answer the module's first part writes before the
/// interface (`results::first_answer`) needs the language's words and
/// sentences but not these, which then travel with the interface's chunk
/// (docs/performance-log.md, issue 31's split).
pub struct Forms {
    /// By [`Param::index`].
    pub fields: &'static [FieldText; COUNT],
    /// The message under a field, naming it with the label given.
    pub problem: fn(&str, &Problem) -> String,
}

/// Why vLLM would not start (`serving::Refusal`), its numbers written in the
/// page's notation.
pub enum Refused {
    /// Free at start, the device, the budget.
    Startup(String, String, String),
    /// The budget.
    NoCacheMemory(String),
    /// `max_model_len`, the KV cache it needs, the pool, the longest that
    /// fits.
    MaxModelLen(String, String, String, String),
    /// SGLang: the static memory, which the weights fill.
    NotEnoughMemory(String),
}

/// The sentences of the panels whose code is fetched when first opened (the
/// file import, the measurement), one value per language as [`Language`] is:
/// apart from it, which every page loads, so that they travel with their
/// panels' code.
pub struct Panels {
    /// Why a pasted config.json, DeepSpeed config or TrainingArguments could
    /// not be read.
    pub file_error: fn(&import::Rejected) -> String,
    /// What a read DeepSpeed config or TrainingArguments says that the
    /// estimate does not follow exactly.
    pub file_note: fn(&import::Note) -> String,
    /// What could not be read in a pasted measurement.
    pub measured_error: fn(&measured::Error) -> String,
    /// The name of a term that can explain a measured difference.
    pub term: fn(Term) -> &'static str,
    /// What the sources say of a term; empty where the sections are the
    /// whole reference.
    pub term_note: fn(Term) -> &'static str,
    /// A serving engine's plan, from the engine's name: its title, and
    /// "✗ vLLM would not start", before its reason.
    pub serving_title: fn(&str) -> String,
    pub serving_refused: fn(&str) -> String,
    /// The names of its terms.
    pub plan_weights: &'static str,
    pub plan_activation: &'static str,
    pub plan_non_torch: &'static str,
    /// The CUDA graphs, not estimated; none under `enforce_eager`.
    pub plan_graphs: &'static str,
    pub plan_graphs_eager: &'static str,
    pub plan_pool: &'static str,
    pub plan_budget: &'static str,
    pub plan_outside: &'static str,
    pub plan_process: &'static str,
    /// SGLang's static memory, from its fraction, and what it leaves
    /// outside it.
    pub plan_static: fn(&str) -> String,
    pub plan_reserve: &'static str,
    /// SGLang's pool, of single-token pages: from the KV cache per token
    /// and the tokens it holds.
    pub kv_tokens: fn(&str, &str) -> String,
    /// vLLM's plan: "Serves 5 requests of 8,192 tokens at once", from the
    /// requests and the tokens of each.
    pub serves: fn(&str, &str) -> String,
    /// vLLM's pool: from the KV cache per token, the blocks, the tokens per
    /// block and the tokens in all.
    pub kv_pool: fn(&str, &str, u64, &str) -> String,
    /// vLLM's pool shared by groups of layers (sliding windows, or a hybrid
    /// model's linear layers when the last is true): per token, blocks,
    /// block size, groups, the tokens vLLM logs, the longest request.
    pub kv_groups: fn(&str, &str, u64, u64, &str, &str, bool) -> String,
    /// A hybrid model's linear layers' state of one request.
    pub linear_state: fn(&str) -> String,
    /// Why vLLM would not start, after [`Panels::serving_refused`].
    pub refused: fn(&Refused) -> String,
    /// The plan over request lengths, and on each GPU: titles and columns.
    pub serving_lengths: &'static str,
    pub serving_requests: &'static str,
    pub serving_concurrency: &'static str,
    pub serving_does_not_start: &'static str,
    /// A request longer than SGLang's pool, which starts all the same.
    pub serving_does_not_fit: &'static str,
    pub serving_devices: &'static str,
    pub serving_gpu: &'static str,
    pub serving_longest: &'static str,
    /// What would serve more: its title, and the 4-bit weights' name.
    pub serving_what_ifs: &'static str,
    pub serving_int4: &'static str,
    /// A serving engine's start-up log in the measurement panel: what may
    /// be pasted, the comparison's title (from the engine's name), each
    /// term's name, one term's line (from the logged value, its line, the
    /// plan's value and plan − log), the concurrency logged for another
    /// request length, the log's other sampler (FlashInfer's when true, its
    /// line), and why the log could not be read.
    pub log_hint: &'static str,
    pub log_title: fn(&str) -> String,
    pub log_term: fn(log::Term) -> &'static str,
    pub log_row: fn(&str, u32, &str, &str) -> String,
    pub log_other_length: &'static str,
    pub log_sampler: fn(bool, u32) -> String,
    pub log_sampler_apply: &'static str,
    pub log_error: fn(&log::Error) -> String,
    /// The questions and answers of "How it works", written by its chunk.
    pub faq: &'static [(&'static str, &'static str)],
}

/// `lang`'s panel sentences. Called only from the panels' own code, so that
/// the English ones, too, travel in the panels' chunks: no code the page
/// starts with may name [`en::ENGLISH_PANELS`].
pub fn panels(lang: Lang) -> &'static Panels {
    match lang {
        Lang::En => &en::ENGLISH_PANELS,
        Lang::Es => spanish_page().map_or(&en::ENGLISH_PANELS, |(panels, _, _)| panels),
    }
}

/// How a config.json's out-of-range or fractional value is worded: as the
/// field problem it would be.
fn bad_value(range: Range, whole: bool) -> Problem {
    if whole {
        Problem::NotWhole { range }
    } else {
        Problem::OutOfRange { range }
    }
}

/// `lang`'s words, tables and sentences.
pub fn language(lang: Lang) -> &'static Language {
    match lang {
        Lang::En => &en::ENGLISH,
        Lang::Es => spanish().unwrap_or(&en::ENGLISH),
    }
}

/// `lang`'s form texts.
pub fn forms(lang: Lang) -> &'static Forms {
    match lang {
        Lang::En => &en::ENGLISH_FORMS,
        Lang::Es => spanish_page().map_or(&en::ENGLISH_FORMS, |(_, forms, _)| forms),
    }
}

/// The name of the task (`transformer::Method`) spelt `value` in the URL
/// format, in `lang`: what the task select shows.
pub fn method(lang: Lang, value: &str) -> &str {
    batchfit_core::transformer::Method::NAMES
        .iter()
        .position(|&n| n == value)
        .map_or(value, |i| answer_words(lang).methods[i])
}

/// Words for the field whose URL parameter is `name`.
pub fn field(lang: Lang, name: Param) -> FieldText {
    forms(lang).fields[name.index()]
}

/// The label of option `value` of the select field `name`.
pub fn option(lang: Lang, name: Param, value: &str) -> String {
    let language = language(lang);
    if name == Param::Zero {
        return format!("{} {value}", language.answer.stage);
    }
    // A table rather than a `match`: it compiles to data, not comparisons.
    language
        .options
        .iter()
        .find(|&&(n, v, _)| n == name && v == value)
        .map_or(value, |&(_, _, label)| label)
        .to_owned()
}

/// The name of a term of docs/model.md that can explain a measured
/// difference (`measured::TERMS`).
pub fn term(lang: Lang, term: Term) -> &'static str {
    (panels(lang).term)(term)
}

/// What the sources say of a term (`TermInfo::note`), in `lang`.
pub fn term_note(lang: Lang, info: &measured::TermInfo) -> &'static str {
    (panels(lang).term_note)(info.term)
}

/// The page's other words, one struct per language so that a missing
/// translation is a compile error.
#[derive(Debug)]
pub struct Words {
    /// The answer's words, which the module's first part carries.
    pub answer: &'static AnswerWords,
    pub promise: &'static str,
    pub language: &'static str,
    pub units: &'static str,
    pub units_gb: &'static str,
    pub units_gib: &'static str,
    pub units_note_gb: &'static str,
    pub units_note_gib: &'static str,
    pub forms: &'static str,
    /// Title and one-line "when to use it" of each form, in `Form::ALL` order.
    pub tabs: [(&'static str, &'static str); 3],
    pub inputs_title: &'static str,
    /// The architecture's closed group on the first screen.
    pub architecture_title: &'static str,
    /// The task select: its label, hint and the words of
    /// `transformer::Method::NAMES`, in that order.
    pub method: &'static str,
    pub method_hint: &'static str,
    pub more_architecture: &'static str,
    /// The collapsed group of the mixture-of-experts and MLA fields.
    pub moe_title: &'static str,
    pub paste_config: &'static str,
    pub paste_hint: &'static str,
    pub config_loaded: &'static str,
    pub deepspeed_loaded: &'static str,
    pub training_args_loaded: &'static str,
    pub custom_model: &'static str,
    /// The group after the form's inputs: the GPUs and host memory the
    /// advice may use, the overhead, the margin, the global batch.
    pub device_title: &'static str,
    /// A closed group's line for the precision recipe in inference, which
    /// loads the model in the recipe's compute precision.
    pub loaded_16: &'static str,
    pub loaded_fp32: &'static str,
    pub parallelism_title: &'static str,
    pub pipeline_more: &'static str,
    pub results_title: &'static str,
    pub stale: &'static str,
    /// The compact summary's word for a result that is not current.
    pub not_current: &'static str,
    pub url_notice: &'static str,
    pub activations_per_sample: &'static str,
    pub capacity: &'static str,
    pub capacity_note: &'static str,
    pub cpu_memory: &'static str,
    pub cpu_memory_note: &'static str,
    pub peak_allocated_note: &'static str,
    pub peak_reserved_note: &'static str,
    pub nvidia_smi_note: &'static str,
    pub required_note: &'static str,
    pub peak_phase: &'static str,
    /// The component table's columns: alive at the peak, and each term's own size.
    pub at_peak: &'static str,
    pub own_size: &'static str,
    /// Why a term is (partly) not in the peak, by the moment that sets it.
    pub not_at_peak_gradients: &'static str,
    pub not_at_peak_step_after: &'static str,
    pub not_at_peak_step_inside: &'static str,
    pub not_at_peak_freed: &'static str,
    pub partly_at_peak: &'static str,
    /// The KV cache at a prefill's peak: the prompt's share only.
    pub prompt_cache_at_peak: &'static str,
    pub not_at_peak_casts: &'static str,
    /// The largest batch when not even one sample fits.
    pub no_batch_fits: &'static str,
    /// GPUs needed when no number of them fits.
    pub gpus_none: &'static str,
    pub max_seq: &'static str,
    pub no_seq_fits: &'static str,
    pub job_gpus: &'static str,
    /// A tap or click shows the exact bytes.
    pub tap_for_bytes: &'static str,
    /// The button that shows every size's exact bytes.
    pub exact_bytes_toggle: &'static str,
    /// Names of `memory::Phase` values, in `Phase::ALL` order.
    pub phases: [&'static str; 6],
    pub moments: [&'static str; 6],
    pub step_title: &'static str,
    pub step_note: &'static str,
    pub step_axis: &'static str,
    pub step_moment: &'static str,
    pub step_layer: &'static str,
    pub step_peak: &'static str,
    pub step_is_peak: &'static str,
    pub max_batch: &'static str,
    pub accumulation: &'static str,
    pub gpus_needed: &'static str,
    pub what_if_title: &'static str,
    pub half_batch: &'static str,
    pub checkpointing: &'static str,
    pub bf16: &'static str,
    pub zero3: &'static str,
    /// Tensor parallelism over more GPUs: inference's what-if.
    pub tensor_parallel: &'static str,
    pub half_seq: &'static str,
    pub with_lora: &'static str,
    pub with_qlora: &'static str,
    pub fp8_kv: &'static str,
    /// A paged optimizer's state, counted on the GPU, may move to the CPU.
    pub optimizer_may_spill: &'static str,
    /// Pipeline stages: each stage's memory.
    pub stages_title: &'static str,
    pub stages_note: &'static str,
    pub stages_layers: &'static str,
    pub stages_embedding: &'static str,
    pub stages_head: &'static str,
    /// The smallest changes that fit, their levers and what each costs.
    pub fixes_title: &'static str,
    pub lever_seq: &'static str,
    pub lever_batch: &'static str,
    /// Inference's batch: the sequences served at once, no micro-steps.
    pub lever_serving_batch: &'static str,
    pub lever_param_offload: &'static str,
    pub lever_offload: &'static str,
    pub lever_act_offload: &'static str,
    pub lever_selective: &'static str,
    /// Full recomputation inside a fix's list: "gradient checkpointing".
    pub lever_checkpointing: &'static str,
    pub lever_adam8bit: &'static str,
    pub lever_bf16: &'static str,
    /// "tensor parallel" before "× 4".
    pub lever_tp: &'static str,
    /// "fits" inside a sentence.
    pub fits_lower: &'static str,
    /// Before the host RAM a fix's offloads need.
    pub fix_host_needs: &'static str,
    /// A fix that fits only at the optimistic end of the range.
    pub fix_fits_optimistic: &'static str,
    pub cost_compute: &'static str,
    pub cost_pcie: &'static str,
    pub cost_at: &'static str,
    pub cost_trains: &'static str,
    pub cost_tokens: &'static str,
    /// The same, in the parameters form, which has no sequence.
    pub cost_samples: &'static str,
    pub cost_micro_steps: &'static str,
    /// The phone's one-line summary under a serving engine's plan.
    pub serving_plan: &'static str,
    /// Inference: the stack the estimate assumes.
    pub inference_stack: &'static str,
    /// Inference: a smaller batch serves fewer sequences at once.
    pub cost_sequences: &'static str,
    /// "Compare with a measurement": a pasted reading beside the estimate.
    pub measure_title: &'static str,
    /// When it could not be.
    pub chunk_failed: &'static str,
    /// Drawn on a chart's canvas when the charts' code could not be fetched.
    pub chart_failed: &'static str,
    pub measure_hint: &'static str,
    pub measure_unlabelled: &'static str,
    pub measure_unlabelled_none: &'static str,
    pub measure_measured: &'static str,
    pub measure_predicted: &'static str,
    /// "estimate − run".
    pub measure_difference: &'static str,
    pub measure_terms: &'static str,
    pub measure_within: &'static str,
    pub measure_part: &'static str,
    pub measure_unsized: &'static str,
    /// After a term's range of the difference it could make: "here".
    pub measure_here: &'static str,
    pub measure_modelled: &'static str,
    pub measure_not_modelled: &'static str,
    pub measure_report: &'static str,
    /// "Compare with…": two setups side by side.
    pub compare_start: &'static str,
    pub compare_title: &'static str,
    /// "The form shows setup" + A or B.
    pub compare_form_shows: &'static str,
    /// "Edit setup" + A or B.
    pub compare_edit: &'static str,
    pub compare_stop: &'static str,
    pub compare_differs: &'static str,
    pub compare_same: &'static str,
    pub compare_presets: &'static str,
    /// "Which GPUs fit": the configuration on every device preset.
    pub devices_title: &'static str,
    pub devices_note: &'static str,
    pub devices_device: &'static str,
    pub devices_memory: &'static str,
    pub devices_spare: &'static str,
    /// The title of a device's button: one click picks it.
    pub devices_pick: &'static str,
    pub sweep_title: &'static str,
    pub sweep_batch: &'static str,
    pub sweep_states: &'static str,
    pub sweep_total: &'static str,
    /// The sweep's note under its header: its parts are those alive at the peak.
    pub sweep_note: &'static str,
    pub sweep_all_columns: &'static str,
    pub sweep_fewer_columns: &'static str,
    pub sweep_over: &'static str,
    pub sweep_chosen: &'static str,
    /// The sweep chart's vertical axis.
    pub sweep_axis: &'static str,
    pub actions_title: &'static str,
    pub copy_link: &'static str,
    pub copy_table: &'static str,
    pub download_csv: &'static str,
    pub embed: &'static str,
    /// The button that copies the snippet of the answer alone (`embed=compact`).
    pub embed_compact: &'static str,
    pub copied_link: &'static str,
    pub copied_table: &'static str,
    pub copied_embed: &'static str,
    /// The page's `<title>`, and the short promise the embed snippet's title uses.
    pub title: &'static str,
    pub promise_short: &'static str,
    /// The comment in the embed snippet's script.
    pub embed_comment: &'static str,
    pub downloaded: &'static str,
    pub copy_fallback: &'static str,
    pub open_full: &'static str,
    pub disclaimer: &'static str,
    pub how_title: &'static str,
    pub faq_title: &'static str,
    /// A what-if's verdict when it does not fit.
    pub still_does_not_fit: &'static str,
    /// The parameter count's scale that is none: the number as typed.
    pub exact: &'static str,
    /// "How it works": the activations rule's terms, and the transformer's
    /// words beside its numbers.
    pub formula_rule: &'static str,
    pub formula_heads: &'static str,
    pub formula_vocabulary: &'static str,
    pub formula_model_states: &'static str,
    pub formula_per_parameter: &'static str,
    pub formula_source: &'static str,
}

/// The words of the answer: the headline's, the verdict's, how sure it is,
/// the bar's and its legend's, the task's and the stage's names, and the
/// interface's loading and failure lines. Apart from [`Words`], so that the
/// module's first part, which writes the answer before the interface
/// (`results::first_answer`), carries these and not every word of the page,
/// which travel with the interface (docs/performance-log.md, issue 31).
#[derive(Debug)]
pub struct AnswerWords {
    pub methods: [&'static str; 4],
    /// After a MoE model's parameter count: "(12.9B active)".
    pub active: &'static str,
    pub weights: &'static str,
    pub gradients: &'static str,
    pub optimizer_states: &'static str,
    pub optimizer_step: &'static str,
    pub kv_cache: &'static str,
    pub activations: &'static str,
    pub overhead: &'static str,
    pub required: &'static str,
    pub parameters: &'static str,
    pub peak_allocated: &'static str,
    pub peak_reserved: &'static str,
    pub nvidia_smi: &'static str,
    pub buffers: &'static str,
    pub allocator_cache: &'static str,
    pub margin: &'static str,
    /// The bar's caption: its segments add up to the required memory.
    pub bar_sums: &'static str,
    pub fits: &'static str,
    pub does_not_fit: &'static str,
    pub stage: &'static str,
    /// While a section's code (dom::Chunk), or the interface asked for
    /// again, is being fetched.
    pub loading: &'static str,
    /// When the interface (the forms, the sections) could not be fetched
    /// after the first answer: that answer stands.
    pub interface_failed: &'static str,
    /// The button under it that asks for the interface again.
    pub retry: &'static str,
    /// How sure "fits" is: the validation range.
    pub confidence_range: &'static str,
    pub confidence_against: &'static str,
    pub confidence_rows: &'static str,
    pub confidence_sources: &'static str,
    pub confidence_pooled: &'static str,
    pub confidence_needs: &'static str,
    pub confidence_fits: &'static str,
    pub confidence_optimistic: &'static str,
    pub confidence_no: &'static str,
    /// The spare column where the device is short of memory: "short by 3.2 GB".
    pub devices_short_by: &'static str,
    /// The names of the parallel degrees in the verdict's split: data,
    /// tensor, pipeline, context.
    pub split_names: [&'static str; 4],
    /// The verdict's answer when it fits.
    pub yes: &'static str,
    /// The device select's first and last options: no device, and a
    /// capacity typed in (the shell's select shows them as the app does).
    pub no_device: &'static str,
    pub custom_device: &'static str,
    /// The title of the transformer form's group of settings, in training
    /// and in inference (the shell's title follows the task as the app's).
    pub training_title: &'static str,
    pub inference_title: &'static str,
}

/// A translated text that follows the page's language: `tr(lang, |w| w.copy_link)`.
/// Every label on the page is this one closure type, a field picked by a
/// function pointer, so its binding is compiled once.
pub fn tr(lang: RwSignal<Lang>, pick: fn(&Words) -> &'static str) -> crate::dom::Rx<String> {
    Box::new(move || pick(words(lang.get())).to_owned())
}

/// "Loading…" in the page's language while a section's code is fetched, or
/// what to do if it could not be (`dom::details_loaded_when_open`).
pub fn chunk_status(lang: RwSignal<Lang>) -> std::rc::Rc<dyn Fn(bool) -> String> {
    std::rc::Rc::new(move |failed| {
        let w = words(lang.get());
        if failed {
            w.chunk_failed
        } else {
            w.answer.loading
        }
        .to_owned()
    })
}

/// `lang`'s words, but the answer's ([`answer_words`]).
pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &en::EN,
        Lang::Es => spanish_page().map_or(&en::EN, |(_, _, words)| words),
    }
}

/// `lang`'s words of the answer.
pub fn answer_words(lang: Lang) -> &'static AnswerWords {
    language(lang).answer
}

/// Spanish's tables but its [`Language`]: what the interface reads.
pub(super) type PageTables = (&'static Panels, &'static Forms, &'static Words);

#[cfg(not(batchfit_split))]
fn spanish() -> Option<&'static Language> {
    Some(&es::SPANISH)
}

#[cfg(not(batchfit_split))]
fn spanish_page() -> Option<PageTables> {
    Some((&es::SPANISH_PANELS, &es::SPANISH_FORMS, &es::ES))
}

/// The Spanish language, in the split build two chunks (`dom::Chunk`), so
/// that an English visit loads neither: its [`Language`] (the sentences and
/// the answer's words), fetched before a Spanish page's first answer
/// ([`load_answer`]), and the rest, fetched with the interface ([`load`]).
/// Each is set once its chunk is here; until then the English one.
#[cfg(batchfit_split)]
static SPANISH: std::sync::OnceLock<&'static Language> = std::sync::OnceLock::new();

#[cfg(batchfit_split)]
static SPANISH_PAGE: std::sync::OnceLock<PageTables> = std::sync::OnceLock::new();

#[cfg(batchfit_split)]
fn spanish() -> Option<&'static Language> {
    SPANISH.get().copied()
}

#[cfg(batchfit_split)]
fn spanish_page() -> Option<PageTables> {
    SPANISH_PAGE.get().copied()
}

/// Whether the answer can be written in `lang` now, without
/// [`load_answer`].
pub fn answer_ready(lang: Lang) -> bool {
    lang == Lang::En || spanish().is_some()
}

/// Whether the page can be shown in `lang` now, without [`load`].
pub fn ready(lang: Lang) -> bool {
    lang == Lang::En || (spanish().is_some() && spanish_page().is_some())
}

/// Makes `lang`'s [`Language`] available: what the first answer is written
/// with. Not fetched (the network): the answer is in English.
pub async fn load_answer(lang: Lang) {
    #[cfg(batchfit_split)]
    if lang == Lang::Es
        && SPANISH.get().is_none()
        && let Ok(spanish) = es::spanish_language().await
    {
        let _ = SPANISH.set(spanish);
    }
    let _ = lang;
}

/// Makes all of `lang`'s tables available (fetches the Spanish chunks once).
/// Without its [`Language`] the page is in English throughout. With it but
/// without the rest, a page would mix the two languages: that is
/// [`ChunkMissing`](crate::dom::ChunkMissing), which the caller says.
pub async fn load(lang: Lang) -> Result<(), crate::dom::ChunkMissing> {
    load_answer(lang).await;
    #[cfg(batchfit_split)]
    if lang == Lang::Es && SPANISH.get().is_some() && SPANISH_PAGE.get().is_none() {
        let _ = SPANISH_PAGE.set(es::spanish_page().await?);
    }
    Ok(())
}
