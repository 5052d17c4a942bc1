//! English: the words of the panels whose code is fetched when first
//! opened (the file import, the measurement, the serving plan, "How it
//! works"), `i18n::Panels`: apart from the words every page loads, so that
//! they travel with their panels' chunks.

use batchfit_core::import::hf;
use batchfit_core::import::json::{Expected, MAX_DEPTH, SyntaxError};
use batchfit_core::import::{self};
use batchfit_core::measured::{self, Term};
use batchfit_core::serving::log;

use super::{kind, problem};
use crate::i18n::{Lang, Panels, Refused, bad_value, group};

static FAQ_EN: &[(&str, &str)] = &[
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
    (
        "How many requests can vLLM or SGLang serve at once?",
        "Pick the vLLM or SGLang profile. A serving engine does not grow with the batch as generate() does: it takes gpu_memory_utilization of the card (SGLang: mem_fraction_static), loads the weights, profiles one step and fills the rest with its KV-cache pool. batchfit plans the same terms and gives the requests of max_model_len tokens that fit at once and the longest single request; under \"Compare with a measurement\", paste the engine's start-up log to see it beside the plan.",
    ),
];

pub(in crate::i18n) static ENGLISH_PANELS: Panels = Panels {
    faq: FAQ_EN,
    file_error,
    file_note,
    measured_error,
    term,
    term_note,
    serving_title: |engine| format!("{engine}'s memory plan, per GPU"),
    serving_refused: |engine| format!("✗ {engine} would not start"),
    plan_weights: "Weights",
    plan_activation: "Profiling step's peak",
    plan_non_torch: "Outside PyTorch (not estimated)",
    plan_graphs: "CUDA graphs (measured by vLLM 0.21+; not estimated)",
    plan_graphs_eager: "CUDA graphs (none: enforce_eager)",
    plan_pool: "KV-cache pool",
    plan_budget: "= gpu_memory_utilization × the GPU as CUDA reports it",
    plan_outside: "+ CUDA context, outside it",
    plan_process: "= nvidia-smi once serving",
    plan_static: |fraction| format!("= mem_fraction_static {fraction} × the free memory"),
    plan_reserve: "+ left for activations and CUDA graphs (not estimated)",
    kv_tokens: |per_token, tokens| {
        format!(
            "KV cache {per_token} per token: the pool holds {tokens} tokens, the longest single request."
        )
    },
    serves: |requests, tokens| match requests {
        "1" => format!("Serves 1 request of {tokens} tokens at once"),
        _ => format!("Serves {requests} requests of {tokens} tokens at once"),
    },
    kv_pool: |per_token, blocks, block, tokens| {
        format!(
            "KV cache {per_token} per token: {blocks} blocks of {block} tokens hold {tokens} tokens, the longest single request."
        )
    },
    kv_groups: |per_token, blocks, block, groups, tokens, longest, linear| {
        let held = if linear {
            "the linear ones holding one block of state per request"
        } else {
            "the sliding-window ones holding their window only"
        };
        format!(
            "KV cache {per_token} per token: {blocks} blocks of {block} tokens shared by {groups} groups of layers, {held}; vLLM counts {tokens} tokens. The longest single request: {longest} tokens."
        )
    },
    linear_state: |state| {
        format!("The linear layers keep {state} of state per request, whatever its length.")
    },
    refused: |refused| match refused {
        Refused::Startup(free, total, budget) => format!(
            "Only {free} of {total} is free at start, less than gpu_memory_utilization × the GPU ({budget})."
        ),
        Refused::NoCacheMemory(budget) => format!(
            "The weights and the profiling step fill the budget ({budget}), leaving nothing for the KV cache. Raise gpu_memory_utilization."
        ),
        Refused::MaxModelLen(len, needed, pool, longest) => format!(
            "One request of max_model_len = {len} tokens needs {needed} of KV cache, more than the pool's {pool}. The longest that fits is {longest} tokens: lower max_model_len or raise gpu_memory_utilization."
        ),
        Refused::NotEnoughMemory(budget) => format!(
            "The weights fill the static memory ({budget}): no token fits the KV pool. Raise gpu_memory_utilization (SGLang's --mem-fraction-static)."
        ),
    },
    serving_lengths: "By request length",
    serving_requests: "requests at once",
    serving_concurrency: "maximum concurrency",
    serving_does_not_start: "does not start",
    serving_does_not_fit: "does not fit",
    serving_devices: "On each GPU",
    serving_gpu: "GPU",
    serving_longest: "longest request",
    serving_what_ifs: "What would serve more",
    serving_int4: "4-bit weights (AWQ, GPTQ)",
    log_hint: "With vLLM or SGLang, paste its start-up log instead: the lines of its memory plan are set beside batchfit's, term by term.",
    log_title: |engine| {
        format!(
            "{engine}'s start-up log beside batchfit's plan (plan − log; 0 within the log's last digit):"
        )
    },
    log_term: |term| match term {
        log::Term::Weights => "Weights",
        log::Term::CudaGraphs => "CUDA graphs",
        log::Term::KvCacheMemory => "KV-cache memory",
        log::Term::KvCacheTokens => "KV-cache size (tokens)",
        log::Term::MaxConcurrency => "Maximum concurrency",
        log::Term::MaxRunningRequests => "max_running_requests",
    },
    log_row: |logged, line, planned, error| {
        format!("log {logged} (line {line}) · plan {planned} · plan − log {error}")
    },
    log_other_length: "Nothing to compare: the log's concurrency is for another max_model_len than this setup's.",
    log_sampler: |flashinfer, line| {
        let (logged, assumed, more) = if flashinfer {
            ("FlashInfer's sampler", "PyTorch's sort", "more")
        } else {
            ("PyTorch's sort", "FlashInfer's sampler", "fewer")
        };
        format!(
            "The log's vLLM sampled with {logged} (line {line}); this plan assumes {assumed}, 24 bytes {more} per request and vocabulary entry in the profiling step."
        )
    },
    log_sampler_apply: "Use the log's sampler",
    log_error: |error| {
        match error {
        log::Error::TooLong => format!(
            "The log is longer than {} bytes: paste its start, up to the KV-cache lines.",
            group(Lang::En, log::MAX_BYTES as u128)
        ),
        log::Error::NothingFound => "No memory reading and no line of the engine's memory plan found (vLLM: \"Model loading took\", \"Available KV cache memory\", \"GPU KV cache size\", \"Maximum concurrency for\"; SGLang: \"KV Cache is allocated\", \"max_total_num_tokens=\").".to_owned(),
        log::Error::Unreadable { line } => {
            format!("Line {line} states a term of the memory plan with a number that cannot be read.")
        }
        log::Error::TwoValues { line, first } => format!(
            "Line {line} gives a second, different value for what line {first} states: paste one start at a time."
        ),
    }
    },
};

/// What the JSON reader expected where the text stopped being JSON, where
/// naming it says more than "JSON" (the structural cases); `None` for the
/// rest (escapes, number syntax, UTF-8, nesting).
fn expected(expected: Expected) -> Option<&'static str> {
    Some(match expected {
        Expected::Value => "a value",
        Expected::Key => "a key in double quotes",
        Expected::Colon => "«:»",
        Expected::CommaOrBrace => "«,» or «}»",
        Expected::CommaOrBracket => "«,» or «]»",
        Expected::ClosingQuote => "a closing quote",
        Expected::End => "the end of the text",
        Expected::LessNesting
        | Expected::HexDigits
        | Expected::Escape
        | Expected::NoControlCharacters
        | Expected::Utf8
        | Expected::NoLeadingZeros
        | Expected::Digit
        | Expected::DigitAfterPoint
        | Expected::Exponent
        | Expected::Number
        | Expected::Literal => return None,
    })
}

/// The rest of a sentence whose subject is the pasted text: why the reader
/// stopped, and where. Nesting deeper than the reader follows is valid JSON,
/// so it is not called invalid.
fn not_json(e: &SyntaxError) -> String {
    let at = e.offset;
    if e.expected == Expected::LessNesting {
        return format!(
            "nests more than {MAX_DEPTH} levels deep (at byte {at}), which batchfit does not read; a configuration file nests a few."
        );
    }
    match expected(e.expected) {
        Some(what) => format!("is not valid JSON: at byte {at} it expected {what}."),
        None => format!("is not valid JSON at byte {at}."),
    }
}

fn measured_error(error: &measured::Error) -> String {
    use measured::Problem as P;
    let forms = |forms: &[measured::Form]| {
        let names: Vec<&str> = forms
            .iter()
            .map(|f| match f {
                measured::Form::Number => "a number of bytes or with a unit",
                measured::Form::Labelled => "max_memory_allocated: 123456",
                measured::Form::MemorySummary => "torch.cuda.memory_summary()",
                measured::Form::NvidiaSmiTable => "nvidia-smi",
                measured::Form::NvidiaSmiCsv => "nvidia-smi --query-gpu=memory.used",
            })
            .collect();
        names.join(", ")
    };
    let what = match error.problem {
        P::TooLong { max_bytes } => format!("The text is longer than {max_bytes} bytes."),
        P::TooManyLines { max_lines } => format!("The text has more than {max_lines} lines."),
        P::Empty { forms: f } => format!("No memory reading found. Readable: {}.", forms(f)),
        P::Unreadable { forms: f } => format!("this line is none of: {}.", forms(f)),
        P::UnknownUnit { allowed } => format!("the unit must be one of {}.", allowed.join(", ")),
        P::UnknownLabel { allowed } => {
            format!("the label must name one reading: {}.", allowed.join(", "))
        }
        P::Unlabelled { .. } => {
            "a number without a label: say below which reading it is.".to_owned()
        }
        P::NotWholeBytes => "a fraction of a byte: give its unit (GB or GiB).".to_owned(),
        P::TooLarge { max } => format!("more than {max} bytes."),
        P::Ambiguous { first_line, .. } => format!(
            "a second, different value of the reading on line {first_line}: paste one run at a time."
        ),
    };
    match error.line {
        Some(line) => format!("Line {line}: {what}"),
        None => what,
    }
}

fn file_error(rejected: &import::Rejected) -> String {
    use import::Error as E;
    // The file as the subject of what is wrong with it as a whole, and as
    // the place of what is wrong with one of its keys.
    let (file, within) = match rejected.source {
        import::Source::ModelConfig => ("The config.json", "In the config.json,"),
        import::Source::Deepspeed => ("The DeepSpeed config", "In the DeepSpeed config,"),
        import::Source::TrainingArgs => ("The TrainingArguments", "In the TrainingArguments,"),
    };
    let what = match &rejected.error {
        E::NotJson(e) => return format!("{file} {}", not_json(e)),
        E::NotAnObject { found } => {
            return format!("{file} must be an object {{…}}, not {}.", kind(*found));
        }
        E::WrongType {
            key,
            expected: want,
            found,
        } => format!("«{key}» must be {}, not {}.", kind(*want), kind(*found)),
        E::Missing { key } => return format!("{file} has no «{key}»."),
        E::BadValue { key, range, whole } => {
            problem(&format!("«{key}»"), &bad_value(*range, *whole))
        }
        E::UnknownModelType { found } => format!(
            "batchfit does not read the «model_type» “{found}” (it reads {}).",
            hf::MODEL_TYPES.join(", ")
        ),
        E::Unsupported { key } => {
            format!("«{key}» describes something batchfit does not model for this model type.")
        }
        E::LayerPattern { key } => {
            format!("«{key}»: only every n-th layer global, the others windowed, is modelled.")
        }
        E::NotAnOption {
            key,
            found,
            allowed,
        } => format!("«{key}» «{found}» must be one of: {}.", allowed.join(", ")),
        E::Contradiction { key, with } => format!("«{key}» and «{with}» cannot both be true."),
        E::BatchMismatch {
            train_batch_size,
            micro_batch,
            accumulation,
            gpus,
        } => format!(
            "«train_batch_size» {train_batch_size} is not «train_micro_batch_size_per_gpu» {micro_batch} × «gradient_accumulation_steps» {accumulation} × {gpus} GPUs."
        ),
        E::Mismatch {
            key,
            deepspeed,
            trainer_key,
            trainer,
        } => format!(
            "«{key}» is {deepspeed} but the TrainingArguments' «{trainer_key}» gives {trainer}: set it to \"auto\" or make them agree."
        ),
    };
    format!("{within} {what}")
}

fn file_note(note: &import::Note) -> String {
    use import::Note as N;
    match note {
        N::NotModelled { key, elements: Some(e) } => format!("«{key}» ({} elements) is not modelled: the estimate leaves it out.", group(Lang::En, u128::from(*e))),
        N::NotModelled { key, elements: None } => format!("«{key}» is not modelled: the estimate leaves it out."),
        N::Auto { key, needs: import::Needs::TrainingArgs } => format!("«{key}» is \"auto\", which the Trainer fills from TrainingArguments: the form's value applies."),
        N::Auto { key, needs: import::Needs::HiddenSize } => format!("«{key}» is \"auto\", which needs the model's hidden size: pick a model first."),
        N::UnknownOptimizer { key, name } => format!("«{key}» «{name}» is not an optimizer batchfit models: the optimizer stays as set."),
        N::DeepspeedPath { path } => format!("«deepspeed» names «{path}»: paste that file here too to read it."),
        N::ModelCheckpointing => "«activation_checkpointing» acts only where the model's code calls deepspeed.checkpointing: set recomputation to full if it does.".to_owned(),
    }
}

/// The name of a term (the same as the core's `Term::label`, which the CLI
/// shows; a test holds them equal).
fn term(term: Term) -> &'static str {
    match term {
        Term::AllocatorSlack => "The caching allocator's slack",
        Term::CudaContext => "The CUDA context",
        Term::NcclBuffers => "NCCL's communicator buffers",
        Term::LiveGradients => {
            "Gradients kept through the step (zero_grad(set_to_none=False), Megatron's buffer)"
        }
        Term::KeptOutputs => "The model's output a training loop keeps (outputs=kept)",
        Term::RecomputeCasts => "Autocast's copies under full recomputation",
        Term::BackwardWorkspace => "The backward pass's working tensors",
        Term::Fp32Softmax => "An FP32 softmax in unfused attention",
        Term::NormStatistics => "Norms' per-token statistics",
        Term::RepeatedKv => "K and V repeated to every head (GQA, eager attention)",
        Term::Zero3Buffers => "ZeRO-3's reuse distance and sub-groups, NCCL's buffers",
        Term::PipelineContextParallel => "Pipeline and context parallelism",
        Term::MoeRouting => "Unbalanced expert routing, router logits",
        Term::ExpertAdapters => "LoRA on fused expert tensors (target_parameters)",
        Term::WindowedAttention => "Sliding-window and chunked attention's cache",
        Term::LatentCache => "A serving engine's latent MLA cache",
        Term::Fp8Recipes => "FP8 recipes other than the two modelled",
        Term::PagedOptimizer => "A paged optimizer's spill to CPU",
        Term::TorchCompile => "torch.compile's saved set",
        Term::LigerKernels => "Liger kernels",
        Term::VisionTower => "A vision tower and its image tokens",
        Term::PreallocatedCache => "A preallocated (static) KV cache",
        Term::FusedLora => "LoRA on fused projections (qkv_proj)",
        Term::QkNormTp => "QK-norm per tensor-parallel rank",
        Term::KbitPreparation => {
            "PEFT's prepare_model_for_kbit_training (FP32 embedding, head and norms)"
        }
    }
}

/// What the sources say of a term (the same as the core's `TermInfo::note`;
/// a test holds them equal).
fn term_note(term: Term) -> &'static str {
    match term {
        Term::AllocatorSlack => "the slack measured there: 1.2 % to 27.8 % over the peak allocated",
        Term::CudaContext => "its table of measured contexts",
        Term::NcclBuffers => "hundreds of MB",
        Term::LiveGradients => "gradients that outlive the step",
        Term::KeptOutputs => "one logit-sized tensor at every moment, with outputs=kept",
        Term::RecomputeCasts => {
            "the loss counts the head's copy and one layer's, never alive together"
        }
        Term::BackwardWorkspace => {
            "its working tensors and gradients beyond the modelled terms: 1.3 % (G039)"
        }
        Term::Zero3Buffers => {
            "ZeRO-3's bucket, parameters in flight and gradient partition are modelled (§3.2)"
        }
        Term::PipelineContextParallel => {
            "§3.11 models the schedules and kernels it names; §6 lists the others"
        }
        Term::WindowedAttention => {
            "§3.4 models sliding-window and Llama 4's chunked layers as DynamicCache holds them; §6 lists the static caches"
        }
        Term::Fp32Softmax
        | Term::NormStatistics
        | Term::RepeatedKv
        | Term::MoeRouting
        | Term::ExpertAdapters
        | Term::LatentCache
        | Term::Fp8Recipes
        | Term::PagedOptimizer
        | Term::TorchCompile
        | Term::LigerKernels
        | Term::VisionTower
        | Term::PreallocatedCache
        | Term::FusedLora
        | Term::QkNormTp => "",
        Term::KbitPreparation => {
            "the embedding, head, norms and biases in FP32, and with them the residual stream and the logits; prepare_kbit=1 states it"
        }
    }
}
