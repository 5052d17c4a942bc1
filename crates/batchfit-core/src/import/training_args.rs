//! Hugging Face `TrainingArguments` as JSON (what `TrainingArguments.to_json_string()`
//! writes) onto the URL format. Each key's meaning was read in
//! huggingface/transformers `src/transformers/training_args.py` (the fields,
//! their defaults, `OptimizerNames`, `FSDPOption`) and `src/transformers/trainer.py`
//! (`get_optimizer_cls_and_kwargs`: which class each `optim` builds).
//! docs/cli.md and docs/url-parameters.md list every key, mapped or ignored.
//!
//! ```
//! use batchfit_core::import::Context;
//! use batchfit_core::import::training_args;
//!
//! let args = r#"{"per_device_train_batch_size": 4, "gradient_accumulation_steps": 8,
//!                "gradient_checkpointing": true, "optim": "adamw_torch", "bf16": true}"#;
//! let read = training_args::read(args, &Context { hidden: None, gpus: 2 }).unwrap();
//! assert_eq!(
//!     read.imported.query(),
//!     "framework=hf_trainer&batch=4&global_batch=64&recompute=full&recipe=amp&optimizer=adamw&step=foreach"
//! );
//! ```

use super::json::{self, Json};
use crate::activations::BATCH;
use crate::import::{self, Context, Error, Imported, Note, Value, flag, text, whole};
use crate::param::Param;
use crate::query::GLOBAL_BATCH;
use crate::transformer::{self as tf, Optimizer, Recipe, Recompute, Step};

/// The values of TrainingArguments a DeepSpeed config's `"auto"` takes, at
/// TrainingArguments' defaults where the file has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trainer {
    /// `per_device_train_batch_size` (default 8).
    pub micro_batch: u64,
    /// `gradient_accumulation_steps` (default 1).
    pub accumulation: u64,
    pub fp16: bool,
    pub bf16: bool,
}

/// `TrainingArguments.deepspeed`: a path to a config, or the config itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Deepspeed {
    Path(String),
    Inline(Json),
}

/// A read TrainingArguments file.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingArgs {
    pub imported: Imported,
    pub values: Trainer,
    pub deepspeed: Option<Deepspeed>,
}

/// `optim` names (transformers `OptimizerNames`) with what the Trainer builds
/// for each (`get_optimizer_cls_and_kwargs`): the optimizer and how its step runs.
const OPTIMIZERS: &[(&str, Optimizer, Step)] = &[
    // torch.optim.AdamW with neither `fused` nor `foreach`: foreach on CUDA
    // (torch/optim/optimizer.py `_default_to_fused_or_foreach`).
    ("adamw_torch", Optimizer::AdamW, Step::Foreach),
    // torch.optim.AdamW(fused=True).
    ("adamw_torch_fused", Optimizer::AdamW, Step::Fused),
    // apex.optimizers.FusedAdam.
    ("adamw_apex_fused", Optimizer::AdamW, Step::Fused),
    // bitsandbytes.optim.AdamW8bit / Adam8bit: block-wise 8-bit state,
    // updated in place by one kernel per tensor.
    ("adamw_bnb_8bit", Optimizer::Adam8bit, Step::Fused),
    ("adamw_8bit", Optimizer::Adam8bit, Step::Fused),
    // bitsandbytes.optim.PagedAdamW (`optim_bits=32`) and PagedAdamW8bit:
    // the same state in CUDA unified memory, which may spill to CPU under
    // pressure (counted on the GPU, the estimate says it may spill).
    ("paged_adamw_32bit", Optimizer::PagedAdamW, Step::Fused),
    ("paged_adamw_8bit", Optimizer::PagedAdamW8bit, Step::Fused),
    // transformers.optimization.Adafactor.
    ("adafactor", Optimizer::Adafactor, Step::Fused),
    // torch.optim.SGD with no arguments: no momentum, no state.
    ("sgd", Optimizer::Sgd, Step::Fused),
];

/// Keys that change memory and batchfit does not model, noted when set
/// (`true`, a non-empty string or list, a number above 0).
const NOT_MODELLED: &[&str] = &[
    // A batch found at run time by halving on out-of-memory.
    "auto_find_batch_size",
    // Liger kernels: fused linear cross-entropy, fused norms and MLPs.
    "use_liger_kernel",
    // DDP's gradient buckets (docs/model.md: not modelled).
    "ddp_bucket_cap_mb",
    // torch.cuda.empty_cache() every N steps: less cached, not less allocated.
    "torch_empty_cache_steps",
    // GaLore's low-rank projections of the optimizer state.
    "optim_target_modules",
];

fn truthy(value: &Json) -> bool {
    match value {
        Json::Bool(b) => *b,
        Json::Number(x) => *x > 0.0,
        Json::String(s) => !s.is_empty(),
        Json::Array(items) => !items.is_empty(),
        Json::Object(members) => !members.is_empty(),
        Json::Null => false,
    }
}

/// Whether a TrainingArguments flag is true (absent: its default, false).
fn on(doc: &Json, key: &'static str) -> Result<bool, Error> {
    match flag(doc, key)? {
        None => Ok(false),
        Some(Value::Is(b)) => Ok(b),
        // TrainingArguments has no "auto".
        Some(Value::Auto) => Err(Error::WrongType {
            key,
            expected: json::Kind::Bool,
            found: json::Kind::String,
        }),
    }
}

fn count(doc: &Json, key: &'static str, max: u64) -> Result<Option<u64>, Error> {
    match whole(doc, key, 1, max)? {
        None => Ok(None),
        Some(Value::Is(n)) => Ok(Some(n)),
        Some(Value::Auto) => Err(Error::whole(key, 1, max)),
    }
}

/// The FSDP options: a list of strings, or one string of them separated by
/// spaces (both are what `TrainingArguments.fsdp` accepts).
fn fsdp_options(doc: &Json) -> Result<Vec<String>, Error> {
    let key = "fsdp";
    match import::at(doc, key) {
        None | Some(Json::Bool(false)) => Ok(Vec::new()),
        Some(Json::String(s)) => Ok(s.split_whitespace().map(str::to_owned).collect()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| match item {
                Json::String(s) => Ok(s.clone()),
                other => Err(Error::WrongType {
                    key,
                    expected: json::Kind::String,
                    found: other.kind(),
                }),
            })
            .collect(),
        Some(other) => Err(Error::WrongType {
            key,
            expected: json::Kind::Array,
            found: other.kind(),
        }),
    }
}

/// `FSDPOption` values (transformers `trainer_utils.py`).
const FSDP_OPTIONS: &[&str] = &[
    "full_shard",
    "shard_grad_op",
    "no_shard",
    "hybrid_shard",
    "hybrid_shard_zero2",
    "offload",
    "auto_wrap",
];

/// Reads a TrainingArguments JSON file.
pub fn read(text_of_file: &str, context: &Context) -> Result<TrainingArgs, Error> {
    let doc = import::document(text_of_file)?;
    let mut out = Imported::default();
    out.set(Param::Framework, tf::Framework::HfTrainer.name());

    let micro = count(&doc, "per_device_train_batch_size", BATCH.max)?;
    if let Some(micro) = micro {
        out.set(Param::Batch, micro);
    }
    let accumulation = count(&doc, "gradient_accumulation_steps", GLOBAL_BATCH.max)?;
    let values = Trainer {
        micro_batch: micro.unwrap_or(8),
        accumulation: accumulation.unwrap_or(1),
        fp16: on(&doc, "fp16")?,
        bf16: on(&doc, "bf16")?,
    };
    if values.accumulation > 1 {
        let global = values
            .micro_batch
            .checked_mul(values.accumulation)
            .and_then(|n| n.checked_mul(context.gpus.max(1)))
            .filter(|&n| n <= GLOBAL_BATCH.max)
            .ok_or(Error::whole(
                "gradient_accumulation_steps",
                1,
                GLOBAL_BATCH.max / (values.micro_batch * context.gpus.max(1)),
            ))?;
        out.set(Param::GlobalBatch, global);
    }

    // `gradient_checkpointing` (or FSDP's `activation_checkpointing`): the
    // model's layers recompute from their inputs (`model.gradient_checkpointing_enable()`).
    let recompute = on(&doc, "gradient_checkpointing")?
        || flag(&doc, "fsdp_config.activation_checkpointing")? == Some(Value::Is(true));
    if import::at(&doc, "gradient_checkpointing").is_some() || recompute {
        let recompute = if recompute {
            Recompute::Full
        } else {
            Recompute::None
        };
        out.set(Param::Recompute, recompute.name());
    }
    // `gradient_checkpointing_kwargs` goes to `torch.utils.checkpoint`
    // (transformers modeling_utils.py `gradient_checkpointing_enable`:
    // `functools.partial(checkpoint, **gradient_checkpointing_kwargs)`);
    // without `use_reentrant` the profile's (the current default, False).
    if recompute
        && flag(&doc, "gradient_checkpointing_kwargs.use_reentrant")? == Some(Value::Is(true))
    {
        out.set(Param::Reentrant, 1);
    }

    // `torch_compile`: the Trainer compiles the whole model after wrapping
    // it (transformers trainer.py `_wrap_model`: `model = torch.compile(model,
    // backend=self.args.torch_compile_backend, mode=self.args.torch_compile_mode)`),
    // its loss inside when labels are passed, the logits' `.float()`
    // included: the compiled loss keeps the head's 16-bit logits
    // (docs/model.md §3.3, `logits=bf16`).
    if on(&doc, "torch_compile")? {
        out.set(Param::Compile, 1);
        out.set(Param::Logits, "bf16");
    }

    if values.fp16 && values.bf16 {
        // TrainingArguments.__post_init__ refuses both.
        return Err(Error::Contradiction {
            key: "bf16",
            with: "fp16",
        });
    }
    let mixed = values.fp16 || values.bf16;

    // FSDP: the sharding strategy is the ZeRO stage (FULL_SHARD = 3,
    // SHARD_GRAD_OP = 2; the hybrid ones shard within a node, `gpus` being
    // the GPUs of one node). With mixed precision accelerate gives FSDP
    // `MixedPrecision(param_dtype=…, reduce_dtype=…)` over FP32 sharded
    // parameters (huggingface/accelerate `FullyShardedDataParallelPlugin.set_mixed_precision`):
    // FP32 parameters, gradients and state with 16-bit all-gathered layers,
    // the `fsdp` recipe (its FP32 gradient reduction differs only in the
    // transient reduce buffers, not modelled).
    let options = fsdp_options(&doc)?;
    let mut zero = None;
    for option in &options {
        match option.as_str() {
            "full_shard" | "hybrid_shard" => zero = Some(3),
            "shard_grad_op" | "hybrid_shard_zero2" => zero = Some(2),
            "no_shard" => zero = Some(0),
            // transformers/training_args.py: `offload` is FSDP's
            // `CPUOffload(offload_params=True)`.
            "offload" => out.set(Param::ParamOffload, 1),
            "auto_wrap" => {}
            _ => {
                return Err(Error::NotAnOption {
                    key: "fsdp",
                    found: option.clone(),
                    allowed: FSDP_OPTIONS,
                });
            }
        }
    }
    // FSDP2 (`fsdp_version: 2`): reshard_after_forward=False is SHARD_GRAD_OP.
    if zero == Some(3) && flag(&doc, "fsdp_config.reshard_after_forward")? == Some(Value::Is(false))
    {
        zero = Some(2);
    }
    let recipe = match (zero, mixed) {
        (Some(stage), true) if stage >= 2 => Recipe::Fsdp,
        // autocast over FP32 weights (the Trainer's `torch.autocast` in
        // `compute_loss_context_manager` / accelerate's native AMP).
        (_, true) => Recipe::Amp,
        (_, false) => Recipe::Fp32,
    };
    if let Some(stage) = zero {
        out.set(Param::Zero, stage);
    }
    out.set(Param::Recipe, recipe.name());
    if let Some(Json::Object(config)) = import::at(&doc, "fsdp_config")
        && config
            .iter()
            .any(|(k, v)| matches!(k.as_str(), "offload_params" | "cpu_offload") && truthy(v))
    {
        // accelerate's FSDP plugin: `CPUOffload(offload_params=True)`.
        out.set(Param::ParamOffload, 1);
    }

    // The optimizer: `optim`, or the deprecated `adafactor: true`.
    let optim = if on(&doc, "adafactor")? {
        Some("adafactor")
    } else {
        text(&doc, "optim")?
    };
    if let Some(name) = optim {
        let name_lower = name.to_ascii_lowercase();
        if let Some(&(_, optimizer, step)) = OPTIMIZERS.iter().find(|(n, ..)| *n == name_lower) {
            out.set(Param::Optimizer, optimizer.name());
            out.set(Param::Step, step.name());
        } else {
            out.note(Note::UnknownOptimizer {
                key: "optim",
                name: name.to_owned(),
            });
        }
    }

    for &key in NOT_MODELLED {
        if import::at(&doc, key).is_some_and(truthy) {
            out.note(Note::NotModelled {
                key,
                elements: None,
            });
        }
    }

    let deepspeed = match import::at(&doc, "deepspeed") {
        None => None,
        Some(Json::String(path)) if path.is_empty() => None,
        Some(Json::String(path)) => Some(Deepspeed::Path(path.clone())),
        Some(inline @ Json::Object(_)) => Some(Deepspeed::Inline(inline.clone())),
        Some(other) => {
            return Err(Error::WrongType {
                key: "deepspeed",
                expected: json::Kind::Object,
                found: other.kind(),
            });
        }
    };
    Ok(TrainingArgs {
        imported: out,
        values,
        deepspeed,
    })
}
