//! A DeepSpeed config (the JSON `deepspeed.initialize(config=…)` reads) onto
//! the URL format. Each key's meaning was read in deepspeedai/DeepSpeed:
//! `deepspeed/runtime/zero/config.py` (`DeepSpeedZeroConfig`: defaults),
//! `deepspeed/runtime/config.py` (the batch sizes), `deepspeed/runtime/engine.py`
//! (which optimizer wrapper a precision gets), `deepspeed/runtime/zero/stage_1_and_2.py`
//! (the gradient bucket); `"auto"` is resolved as the Hugging Face integration
//! does (huggingface/transformers `src/transformers/integrations/deepspeed.py`,
//! `HfTrainerDeepSpeedConfig.trainer_config_process` and `trainer_config_finalize`).
//! docs/cli.md and docs/url-parameters.md list every key, mapped or ignored.
//!
//! ```
//! use batchfit_core::import::deepspeed;
//! use batchfit_core::import::Context;
//!
//! let config = r#"{"zero_optimization": {"stage": 2, "overlap_comm": true, "reduce_bucket_size": "auto"},
//!                  "fp16": {"enabled": true}}"#;
//! let imported = deepspeed::import(config, &Context { hidden: Some(4096), gpus: 8 }, None).unwrap();
//! // 4096² = 16,777,216 elements, rounded up to 17 million, twice with overlap_comm.
//! assert_eq!(imported.query(), "framework=deepspeed&zero=2&recipe=amp16&bucket_m=34");
//! ```

use super::json::Json;
use super::training_args::Trainer;
use crate::activations::BATCH;
use crate::import::{self, Context, Error, Imported, Needs, Note, Value, flag, text, whole};
use crate::param::Param;
use crate::query::GLOBAL_BATCH;
use crate::transformer::{self as tf, BUCKET_M};

/// Element counts are bounded so that every product below fits in a `u64`.
const MAX_ELEMENTS: u64 = 1_000_000_000_000_000;

/// Keys that change memory and batchfit does not model, noted when set
/// (an object, `true`, or a number above `above`).
const NOT_MODELLED: &[(&str, u64)] = &[
    // deepspeed/runtime/zero/config.py: quantized weights (ZeRO++ qwZ) and
    // gradients (qgZ), hierarchical partitioning (hpZ), MiCS shards.
    ("zero_optimization.zero_quantized_weights", 0),
    ("zero_optimization.zero_quantized_gradients", 0),
    ("zero_optimization.zero_hpz_partition_size", 1),
    ("zero_optimization.mics_shard_size", 0),
    ("sparse_attention", 0),
    ("compression_training", 0),
    ("pipeline", 0),
    // apex AMP (`amp.enabled`), which DeepSpeed runs without ZeRO.
    ("amp", 0),
];

/// ZeRO-3's keys that change memory and are not modelled
/// (deepspeed/runtime/zero/partitioned_param_coordinator.py
/// `__params_to_release`: parameters reused within `max_reuse_distance`
/// elements stay gathered; stage3.py: the optimizer's sub-groups, modelled at
/// their 1e9 default), noted when set.
const STAGE3_NOT_MODELLED: &[&str] = &[
    "zero_optimization.stage3_max_reuse_distance",
    "zero_optimization.sub_group_size",
];

/// ZeRO-3's sizes that are URL parameters (transformer.rs `zero3_runtime`),
/// each with its `"auto"` as the Trainer fills it from the hidden size.
const STAGE3_SIZES: &[(&str, Param)] = &[
    (
        "zero_optimization.stage3_prefetch_bucket_size",
        Param::DsPrefetch,
    ),
    (
        "zero_optimization.stage3_max_live_parameters",
        Param::DsLive,
    ),
    (
        "zero_optimization.stage3_param_persistence_threshold",
        Param::DsPersist,
    ),
];

/// Reads a DeepSpeed config. `trainer`: the TrainingArguments its `"auto"`
/// values come from, when the Hugging Face Trainer launches it.
pub fn import(text: &str, context: &Context, trainer: Option<&Trainer>) -> Result<Imported, Error> {
    map(&import::document(text)?, context, trainer)
}

/// The Trainer's value for a key, or the mismatch the Trainer refuses.
/// transformers `HfTrainerDeepSpeedConfig.fill_match`: `"auto"` takes the
/// Trainer's value; an explicit value must equal it.
fn fill<T: PartialEq + ToString + Copy>(
    value: Option<Value<T>>,
    key: &'static str,
    trainer: Option<(T, &'static str)>,
    out: &mut Imported,
) -> Result<Option<T>, Error> {
    match (value, trainer) {
        (None, _) => Ok(None),
        (Some(Value::Auto), Some((hf, _))) => Ok(Some(hf)),
        (Some(Value::Auto), None) => {
            out.note(Note::Auto {
                key,
                needs: Needs::TrainingArgs,
            });
            Ok(None)
        }
        (Some(Value::Is(ds)), Some((hf, trainer_key))) if ds != hf => Err(Error::Mismatch {
            key,
            deepspeed: ds.to_string(),
            trainer_key,
            trainer: hf.to_string(),
        }),
        (Some(Value::Is(ds)), _) => Ok(Some(ds)),
    }
}

pub(crate) fn map(
    doc: &Json,
    context: &Context,
    trainer: Option<&Trainer>,
) -> Result<Imported, Error> {
    let mut out = Imported::default();
    out.set(Param::Framework, tf::Framework::Deepspeed.name());

    // ZeRO: the stage (default 0, `DeepSpeedZeroConfig.stage`).
    let stage = match whole(doc, "zero_optimization.stage", 0, 3)? {
        None => 0,
        Some(Value::Is(stage)) => stage,
        Some(Value::Auto) => {
            return Err(Error::whole("zero_optimization.stage", 0, 3));
        }
    };
    out.set(Param::Zero, stage);

    // ZeRO-Offload: optimizer state and the step off the GPU, to CPU memory
    // or NVMe alike (`DeepSpeedZeroOffloadOptimizerConfig.device`); the
    // deprecated `cpu_offload: true` means the same.
    const DEVICES: &[&str] = &["none", "cpu", "nvme"];
    let device = |key: &'static str| -> Result<Option<bool>, Error> {
        match text(doc, key)? {
            None => Ok(None),
            Some(name) => match name.to_ascii_lowercase().as_str() {
                "none" => Ok(Some(false)),
                "cpu" | "nvme" => Ok(Some(true)),
                _ => Err(Error::NotAnOption {
                    key,
                    found: name.to_owned(),
                    allowed: DEVICES,
                }),
            },
        }
    };
    let legacy = flag(doc, "zero_optimization.cpu_offload")? == Some(Value::Is(true));
    if let Some(offload) = device("zero_optimization.offload_optimizer.device")? {
        out.set(Param::Offload, u8::from(offload));
    } else if legacy {
        out.set(Param::Offload, 1);
    }
    // ZeRO-3 `offload_param` to CPU memory is `param_offload`
    // (deepspeed/runtime/zero/partition_parameters.py keeps each partition on
    // the host and fetches it per module); to NVMe (ZeRO-Infinity) it is not
    // modelled.
    let legacy_param = flag(doc, "zero_optimization.cpu_offload_param")? == Some(Value::Is(true));
    let to_nvme = text(doc, "zero_optimization.offload_param.device")?
        .is_some_and(|name| name.eq_ignore_ascii_case("nvme"));
    if to_nvme {
        out.note(Note::NotModelled {
            key: "zero_optimization.offload_param",
            elements: None,
        });
    } else if device("zero_optimization.offload_param.device")? == Some(true) || legacy_param {
        out.set(Param::ParamOffload, 1);
    }

    precision(doc, trainer, &mut out)?;
    batch(doc, context, trainer, &mut out)?;
    buckets(doc, context, stage, &mut out)?;

    // deepspeed/runtime/activation_checkpointing/checkpointing.py acts only
    // where the model's code calls `deepspeed.checkpointing.checkpoint`
    // (Megatron-DeepSpeed); Hugging Face models recompute through
    // `gradient_checkpointing` instead. Its own options (partitioned or
    // CPU-held checkpoints) are not modelled.
    if import::at(doc, "activation_checkpointing").is_some() {
        out.note(Note::ModelCheckpointing);
    }

    // deepspeed/ops/adam (FusedAdam, DeepSpeedCPUAdam): `Adam`/`AdamW` are
    // AdamW's two moments; the profile's fused step. Without an `optimizer`
    // the client's optimizer (the Trainer's `optim`) is used.
    if let Some(name) = text(doc, "optimizer.type")? {
        match name.to_ascii_lowercase().as_str() {
            "adam" | "adamw" => {
                out.set(Param::Optimizer, tf::Optimizer::AdamW.name());
                out.set(Param::Step, tf::Step::Fused.name());
            }
            _ => out.note(Note::UnknownOptimizer {
                key: "optimizer.type",
                name: name.to_owned(),
            }),
        }
    }

    for &(key, above) in NOT_MODELLED {
        let set = match import::at(doc, key) {
            Some(Json::Object(_)) | Some(Json::Bool(true)) => true,
            Some(Json::Number(x)) => *x > above as f64,
            _ => false,
        };
        if set {
            out.note(Note::NotModelled {
                key,
                elements: None,
            });
        }
    }
    Ok(out)
}

/// `bf16.enabled` / `fp16.enabled` → the recipe. DeepSpeed keeps 16-bit
/// parameters and gradients with FP32 master weights in its optimizer
/// (engine.py `get_data_types`: gradients accumulate in the model's dtype
/// unless `data_types.grad_accum_dtype` says otherwise; `_do_optimizer_sanity_check`:
/// the ZeRO optimizer, or FP16_Optimizer at stage 0), the `amp16` recipe;
/// with neither enabled it trains in FP32. With TrainingArguments and no
/// section, accelerate adds the Trainer's (huggingface/accelerate
/// `src/accelerate/utils/dataclasses.py`, `DeepSpeedPlugin.set_mixed_precision`).
fn precision(doc: &Json, trainer: Option<&Trainer>, out: &mut Imported) -> Result<(), Error> {
    let mut enabled =
        |section: &'static str, key: &'static str, hf: Option<(bool, &'static str)>| {
            match (import::at(doc, section), hf) {
                // accelerate adds the Trainer's setting where the section is missing.
                (None, Some((hf, _))) => Ok(Some(hf)),
                _ => fill(flag(doc, key)?, key, hf, out),
            }
        };
    let bf16 = enabled("bf16", "bf16.enabled", trainer.map(|t| (t.bf16, "bf16")))?;
    let fp16 = enabled("fp16", "fp16.enabled", trainer.map(|t| (t.fp16, "fp16")))?;
    let auto = out.notes.iter().any(
        |n| matches!(n, Note::Auto { key, .. } if *key == "bf16.enabled" || *key == "fp16.enabled"),
    );
    let (bf16, fp16) = (bf16.unwrap_or(false), fp16.unwrap_or(false));
    if bf16 && fp16 {
        return Err(Error::Contradiction {
            key: "bf16.enabled",
            with: "fp16.enabled",
        });
    }
    if auto && !bf16 && !fp16 {
        // Undecided: the profile's recipe stands.
        return Ok(());
    }
    let recipe = if bf16 || fp16 {
        tf::Recipe::Amp16
    } else {
        tf::Recipe::Fp32
    };
    out.set(Param::Recipe, recipe.name());
    let model = if bf16 {
        "bf16"
    } else if fp16 {
        "fp16"
    } else {
        "fp32"
    };
    if let Some(dtype) = text(doc, "data_types.grad_accum_dtype")?
        && !dtype.eq_ignore_ascii_case(model)
    {
        out.note(Note::NotModelled {
            key: "data_types.grad_accum_dtype",
            elements: None,
        });
    }
    Ok(())
}

/// The micro-batch, accumulation and global batch, completed and checked as
/// deepspeed/runtime/config.py `_set_batch_related_parameters` and
/// `_batch_assertion` do, over the query's data-parallel GPUs.
fn batch(
    doc: &Json,
    context: &Context,
    trainer: Option<&Trainer>,
    out: &mut Imported,
) -> Result<(), Error> {
    let gpus = context.gpus.max(1);
    let micro = fill(
        whole(doc, "train_micro_batch_size_per_gpu", 1, BATCH.max)?,
        "train_micro_batch_size_per_gpu",
        trainer.map(|t| (t.micro_batch, "per_device_train_batch_size")),
        out,
    )?;
    let accumulation = fill(
        whole(doc, "gradient_accumulation_steps", 1, GLOBAL_BATCH.max)?,
        "gradient_accumulation_steps",
        trainer.map(|t| (t.accumulation, "gradient_accumulation_steps")),
        out,
    )?;
    let trainer_total = trainer.map(|t| {
        (
            t.micro_batch
                .saturating_mul(t.accumulation)
                .saturating_mul(gpus),
            "per_device_train_batch_size × gradient_accumulation_steps × gpus",
        )
    });
    let total = fill(
        whole(doc, "train_batch_size", 1, GLOBAL_BATCH.max)?,
        "train_batch_size",
        trainer_total,
        out,
    )?;
    let (micro, accumulation, total) = match (micro, accumulation, total) {
        (Some(m), Some(a), Some(t)) => (m, a, t),
        (Some(m), None, Some(t)) => (m, t / m / gpus, t),
        (None, Some(a), Some(t)) => (t / gpus / a, a, t),
        (Some(m), a, None) => {
            let a = a.unwrap_or(1);
            (m, a, m.saturating_mul(a).saturating_mul(gpus))
        }
        (None, None, Some(t)) => (t / gpus, 1, t),
        // Neither size: the query's batch applies.
        (None, _, None) => return Ok(()),
    };
    if micro == 0
        || accumulation == 0
        || micro.saturating_mul(accumulation).saturating_mul(gpus) != total
        || micro > BATCH.max
    {
        return Err(Error::BatchMismatch {
            train_batch_size: total,
            micro_batch: micro,
            accumulation,
            gpus,
        });
    }
    out.set(Param::Batch, micro);
    if accumulation > 1 {
        out.set(Param::GlobalBatch, total);
    }
    Ok(())
}

/// The gradient bucket (`bucket_m`, stages 0–2): stage_1_and_2.py
/// `setup_buckets` allocates `reduce_bucket_size` elements in the optimizer's
/// dtype when `contiguous_gradients` (default true), a second such buffer with
/// `overlap_comm` (default: only at stage 3, `DeepSpeedZeroConfig.overlap_comm_valid`);
/// `reduce_bucket_size` defaults to 5e8, `"auto"` is hidden_size² (transformers
/// `trainer_config_finalize`). `bucket_m` counts millions, rounded up.
/// `allgather_bucket_size` allocates nothing: the updated partitions are
/// all-gathered into the existing flat buffer (deepspeed/runtime/utils.py
/// `all_gather_dp_groups` → `all_gather_into_tensor_dp_groups`). At stage 3
/// stage3.py allocates one `reduce_bucket_size` buffer per communication
/// dtype with `contiguous_gradients`, `overlap_comm` or not, and the
/// prefetch bucket, live-parameter budget and persistence threshold are
/// `ds_prefetch`, `ds_live` and `ds_persist`, with `"auto"` resolved as the
/// Trainer does (prefetch 0.9 × hidden², persistence 10 × hidden; the live
/// budget has no `"auto"`).
fn buckets(doc: &Json, context: &Context, stage: u64, out: &mut Imported) -> Result<(), Error> {
    let hidden_squared = context.hidden.map(|h| h.saturating_mul(h));
    // A size in elements: given, `"auto"` filled as the Trainer fills it, or
    // (`None`) an `"auto"` that needs the unknown hidden size, noted.
    let size = |key: &'static str, auto: Option<u64>, out: &mut Imported| {
        Ok::<_, Error>(match whole(doc, key, 0, MAX_ELEMENTS)? {
            None => Some(None),
            Some(Value::Is(n)) => Some(Some(n)),
            Some(Value::Auto) if auto.is_some() => Some(auto),
            Some(Value::Auto) => {
                out.note(Note::Auto {
                    key,
                    needs: Needs::HiddenSize,
                });
                None
            }
        })
    };
    if stage == 3 {
        for &(key, param) in STAGE3_SIZES {
            let auto = match param {
                // 0.9 × hidden², which the Trainer writes as a float: floored.
                Param::DsPrefetch => hidden_squared.map(|s| s.saturating_mul(9) / 10),
                Param::DsPersist => context.hidden.map(|h| h.saturating_mul(10)),
                _ => None,
            };
            let field = match param {
                Param::DsPrefetch => tf::DS_PREFETCH,
                Param::DsLive => tf::DS_LIVE,
                _ => tf::DS_PERSIST,
            };
            if let Some(Some(elements)) = size(key, auto, out)? {
                if elements > field.max {
                    return Err(Error::whole(key, 0, field.max));
                }
                out.set(param, elements);
            }
        }
        for &key in STAGE3_NOT_MODELLED {
            if let Some(Some(elements)) = size(key, None, out)? {
                out.note(Note::NotModelled {
                    key,
                    elements: Some(elements),
                });
            }
        }
    }
    let key = "zero_optimization.reduce_bucket_size";
    // At stage 3 the profile's bucket (`bucket_m=500`) stands unless the key is set.
    if stage == 3 && import::at(doc, key).is_none() {
        return Ok(());
    }
    let Some(elements) = size(key, hidden_squared, out)? else {
        return Ok(());
    };
    // `DeepSpeedZeroConfig.reduce_bucket_size` defaults to 5e8.
    let elements = elements.unwrap_or(500_000_000);
    let contiguous = flag(doc, "zero_optimization.contiguous_gradients")? != Some(Value::Is(false));
    let overlap = flag(doc, "zero_optimization.overlap_comm")? == Some(Value::Is(true));
    let buffers = match (contiguous, overlap && stage < 3) {
        (false, _) => 0,
        (true, false) => 1,
        (true, true) => 2,
    };
    let millions = elements.div_ceil(1_000_000) * buffers;
    if millions > BUCKET_M.max {
        return Err(Error::whole(key, 0, BUCKET_M.max * 1_000_000 / buffers));
    }
    out.set(Param::BucketM, millions);
    Ok(())
}
