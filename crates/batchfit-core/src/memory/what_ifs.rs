//! What would make a configuration fit: one change at a time, with its estimate.

use super::{estimate, gpus_needed, required_at};
use crate::Precision;
use crate::query::{Config, Form, rules};
use crate::transformer::{self, BaseQuant, KvDtype, Mode, Recipe};

/// One change that might make a configuration fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// Half the batch (rounded up).
    HalfBatch,
    /// Gradient checkpointing: `ckpt=1` in the activations form, full
    /// recomputation in the transformer form.
    Checkpointing,
    /// BF16 instead of FP32: the precision of the activations and parameters
    /// forms, the pure-BF16 recipe in the transformer form.
    Bf16,
    /// ZeRO stage 3 over the smallest number of GPUs that fits (training).
    Zero3 { gpus: u64 },
    /// Tensor parallelism over the fewest GPUs that fits (inference,
    /// [`serving_tp`](super::serving_tp)).
    Tp { tp: u64 },
    /// Half the sequence length (rounded up).
    HalfSeq,
    /// LoRA of rank 16 on the targets as set (PEFT `LoraConfig(r=16)`) over
    /// a frozen BF16 base, for full fine-tuning.
    Lora,
    /// QLoRA as its paper and PEFT's recipe run it (Dettmers et al. 2023,
    /// §3; peft `prepare_model_for_kbit_training`): an NF4 base with double
    /// quantization under rank-16 adapters (or the rank as set), with
    /// gradient checkpointing.
    Qlora,
    /// An FP8 KV cache in inference.
    Fp8Kv,
}

impl Change {
    /// A stable name for the change, for machines (the page's `data-change`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::HalfBatch => "half_batch",
            Self::Checkpointing => "checkpointing",
            Self::Bf16 => "bf16",
            Self::Zero3 { .. } => "zero3",
            Self::Tp { .. } => "tp",
            Self::HalfSeq => "half_seq",
            Self::Lora => "lora",
            Self::Qlora => "qlora",
            Self::Fp8Kv => "fp8_kv",
        }
    }
}

/// A changed configuration and the memory it requires, for "one change at
/// a time": what the page and the CLI show of it. Its whole estimate is
/// [`super::estimate`] of `config`; the largest batch that fits, which that
/// searches for, is not needed here (each what-if would search again).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WhatIf {
    pub change: Change,
    pub config: Config,
    /// [`super::Estimate::required`] of `config`.
    pub required: u128,
    /// [`super::Estimate::fits`] of `config`: `None` without a device.
    pub fits: Option<bool>,
}

/// Every change that applies to `config` and changes its required memory,
/// with its estimate.
pub fn what_ifs(config: &Config) -> Vec<WhatIf> {
    let mut changes: Vec<(Change, Config)> = Vec::new();
    // What no longer applies beside a change is reset, as a link to it
    // would be (query/rules.rs).
    let mut push = |change, changed: Config| {
        let changed = rules::normalize(changed);
        if changed != *config {
            changes.push((change, changed));
        }
    };

    let batch = config.batch();
    push(Change::HalfBatch, config.with_batch(batch.div_ceil(2)));

    let mut changed = *config;
    match config.form {
        Form::Activations => changed.activations.checkpointing = true,
        Form::Parameters => {}
        Form::Transformer if config.transformer.mode == Mode::Train => {
            changed.transformer.recompute_each_layer()
        }
        Form::Transformer => {}
    }
    push(Change::Checkpointing, changed);

    let mut changed = *config;
    match config.form {
        Form::Activations if config.activations.precision == Precision::Fp32 => {
            changed.activations.precision = Precision::Bf16
        }
        Form::Parameters if config.parameters.precision == Precision::Fp32 => {
            changed.parameters.precision = Precision::Bf16
        }
        Form::Transformer if config.transformer.recipe == Recipe::Fp32 => {
            changed.transformer.recipe = Recipe::Bf16
        }
        Form::Activations | Form::Parameters | Form::Transformer => {}
    }
    push(Change::Bf16, changed);

    if config.form == Form::Transformer && config.transformer.mode == Mode::Inference {
        let fitting = super::serving_tp(&config.transformer).find(|&tp| {
            let mut changed = *config;
            changed.transformer.tp = tp;
            estimate(&changed).fits == Some(true)
        });
        if let Some(tp) = fitting {
            let mut changed = *config;
            changed.transformer.tp = tp;
            push(Change::Tp { tp }, changed);
        }
    } else if config.form == Form::Transformer {
        let mut zero3 = *config;
        zero3.transformer.zero = 3;
        if let Some(gpus) = gpus_needed(&zero3).filter(|&g| g > 1) {
            zero3.transformer.gpus = gpus;
            push(Change::Zero3 { gpus }, zero3);
        }
    }

    let mut changed = *config;
    match config.form {
        Form::Activations => changed.activations.seq = config.activations.seq.div_ceil(2),
        Form::Transformer => changed.transformer.seq = config.transformer.seq.div_ceil(2),
        Form::Parameters => {}
    }
    push(Change::HalfSeq, changed);

    if config.form == Form::Transformer && config.transformer.mode == Mode::Train {
        let t = &config.transformer;
        if t.lora_rank == 0 {
            push(Change::Lora, with_adapters(config, BaseQuant::None));
        }
        if t.base_quant == BaseQuant::None {
            let mut qlora = *config;
            transformer::Method::Qlora.apply(&mut qlora.transformer);
            push(Change::Qlora, qlora);
        }
    }
    if config.form == Form::Transformer
        && config.transformer.mode == Mode::Inference
        && config.transformer.kv_dtype == KvDtype::Bf16
    {
        let mut changed = *config;
        changed.transformer.kv_dtype = KvDtype::Fp8;
        push(Change::Fp8Kv, changed);
    }

    // A change that leaves the memory where it is (half the sequence of a
    // model whose peak is its optimizer step) is no answer.
    let now = required_at(config);
    changes
        .into_iter()
        .map(|(change, config)| {
            let required = required_at(&config);
            WhatIf {
                change,
                config,
                required,
                fits: config.device.map(|d| required <= d.usable_bytes()),
            }
        })
        .filter(|option| option.required != now)
        .collect()
}

/// Fine-tuning with adapters (`TransformerInput::add_adapters`), the base
/// stored in `base_quant` with double quantization for QLoRA.
pub(super) fn with_adapters(config: &Config, base_quant: BaseQuant) -> Config {
    let mut changed = *config;
    let c = &mut changed.transformer;
    c.add_adapters();
    if base_quant != BaseQuant::None {
        c.base_quant = base_quant;
        c.double_quant = true;
    }
    changed
}
