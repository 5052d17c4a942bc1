//! A published row turned into a batchfit query, with its reading, stack and source.

use batchfit_core::query;
use batchfit_core::{memory, serving};

use super::csv::{Row, first_number, measured_bytes, number_after};

/// What a row becomes: a batchfit query, or the reason it cannot be one.
pub(super) fn to_query(row: &Row<'_>) -> Result<String, String> {
    let model = row.lower("model");
    let finetune = row.lower("finetune_type");
    if finetune.contains("lora") {
        return Err("LoRA/QLoRA fine-tuning (adapters, frozen base) is not modelled".into());
    }
    let mut q: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: String| q.push((name.to_owned(), value));
    set("form", "transformer".into());

    // Family: the architecture details the measurement columns do not carry,
    // from each family's published configuration.
    let seq_text = row.lower("seq_len");
    if seq_text.contains("not published") || seq_text.starts_with('~') {
        return Err("the sequence (prompt) length was not published".into());
    }
    let seq = first_number(&seq_text).ok_or("no sequence length")?;
    let learned_positions = |positions: u64| ("positions", positions.to_string());
    let family: Vec<(&str, String)> = if model.contains("bert") {
        let mut f = vec![
            ("kind", "encoder".to_owned()),
            learned_positions(512),
            ("token_types", "2".into()),
        ];
        if let Some(labels) = number_after(&model, "seqcls, ") {
            f.push(("labels", labels.to_string()));
        }
        // An encoder has no LM head to tie.
        f.extend(gpt_style(false));
        if model.contains("megatron") {
            f.push(("fused_proj", "all".into()));
        }
        f
    } else if model.contains("gpt-2") || model.contains("gpt2") {
        // Hugging Face's GPT-2: one `c_attn` for Q, K and V, and
        // `activation_function` "gelu_new" (element-wise operations).
        let mut f = vec![learned_positions(1024)];
        f.extend(gpt_style(true));
        f.retain(|(name, _)| *name != "mlp");
        f.extend([("mlp", "gelu_new".into()), ("fused_proj", "qkv".into())]);
        f
    } else if model.contains("megatron gpt") || model.contains("bigcode") {
        // Megatron's and GPTBigCode's learned positions: one per position of the
        // trained sequence length (the row does not give max positions).
        // Megatron-Core's `linear_qkv` and `linear_fc1` are one matrix each;
        // GPTBigCode's `c_attn` computes Q, K and V.
        let mut f = vec![learned_positions(seq)];
        f.extend(gpt_style(
            !row.lower("vocab").contains("untied") && !model.contains("untied"),
        ));
        let fused = if model.contains("megatron") {
            "all"
        } else {
            "qkv"
        };
        f.push(("fused_proj", fused.into()));
        f
    } else if model.contains("qwen") {
        vec![
            ("mlp", "swiglu".into()),
            ("norm", "rmsnorm".into()),
            ("qkv_bias", "1".into()),
            ("tied", bit(row.lower("vocab").contains("tied emb"))),
        ]
    } else if model.contains("llama") || model.contains("mistral") {
        vec![
            ("mlp", "swiglu".into()),
            ("norm", "rmsnorm".into()),
            ("tied", bit(model.contains("tied emb"))),
        ]
    } else {
        return Err(format!(
            "no architecture family batchfit knows in {:?}",
            row.get("model")
        ));
    };
    for (name, value) in family {
        set(name, value);
    }
    for column in ["layers", "hidden", "heads", "kv_heads", "ffn"] {
        let value =
            first_number(row.get(column)).ok_or_else(|| format!("no number in `{column}`"))?;
        set(column, value.to_string());
    }
    let vocab_text = row.lower("vocab");
    // Megatron pads the vocabulary; the padded size is the tensor's size.
    let vocab = number_after(&vocab_text, "padded ").or_else(|| first_number(&vocab_text));
    match vocab {
        Some(v) => set("vocab", v.to_string()),
        None if model.contains("bert") => set("vocab", "30522".into()),
        None => return Err("no vocabulary size".into()),
    }

    let mode = row.lower("mode");
    let precision = row.lower("precision");
    if mode.contains("inference") {
        set("mode", "inference".into());
        set("seq", seq.to_string());
        set(
            "gen",
            number_after(&seq_text, "prompt + ")
                .ok_or("no generated length")?
                .to_string(),
        );
        set(
            "recipe",
            if precision.contains("fp32") {
                "fp32"
            } else {
                "bf16"
            }
            .into(),
        );
    } else {
        set("seq", seq.to_string());
        let recipe = if precision.contains("pure bf16") {
            "bf16"
        } else if precision.contains("(megatron)") {
            // Megatron-LM's --bf16: a BF16 model with FP32 main gradients and
            // main parameters (megatron/core/transformer/module.py
            // `Float16Module`), not autocast.
            "main_fp32"
        } else if precision.contains("mixed") || precision.contains("amp") {
            "amp"
        } else if precision.starts_with("fp32") {
            "fp32"
        } else {
            return Err(format!(
                "precision {:?} is not a recipe batchfit knows",
                row.get("precision")
            ));
        };
        set("recipe", recipe.into());
        let optimizer = row.lower("optimizer");
        let (name, foreach) = if optimizer.contains("adafactor") {
            ("adafactor", false)
        } else if optimizer.contains("8bit") {
            ("adam8bit", false)
        } else if optimizer.contains("adam") {
            // torch.optim's AdamW (HF `adamw_torch`, torchtune) defaults to the
            // foreach implementation on CUDA; HF's own `adamw_hf` loops per
            // parameter and Megatron's Adam is fused: no full-size temporaries.
            (
                "adamw",
                optimizer.contains("adamw_torch")
                    || optimizer.contains("torch.optim.adamw")
                    || optimizer.contains("foreach"),
            )
        } else {
            return Err(format!(
                "optimizer {:?} is not one batchfit knows",
                row.get("optimizer")
            ));
        };
        set("optimizer", name.into());
        if foreach {
            set("foreach", "1".into());
        }
        let ckpt = row.lower("grad_ckpt");
        if ckpt.starts_with("on") || ckpt.starts_with("full") {
            set("recompute", "full".into());
        } else if ckpt.starts_with("selective") {
            set("recompute", "selective".into());
        }
    }
    let attention = row.lower("attention");
    // "unfused" (Megatron's unfused backend, materialised scores) contains
    // "fused": it is read first.
    let unfused = attention.contains("unfused");
    let flash = !unfused
        && ["flash", "sdpa", "fused", "no s^2"]
            .iter()
            .any(|k| attention.contains(k));
    if !flash && (attention.contains("eager") || unfused) {
        set("attn", "eager".into());
    }
    let batch = first_number(row.get("micro_batch")).unwrap_or(1);
    set("batch", batch.to_string());

    // Parallelism. A metric summed over GPUs (accelerate's layer split) is the
    // one-device total.
    let gpus = first_number(row.get("num_gpus")).unwrap_or(1);
    let sharding = row.lower("sharding");
    let mut replicas = 1;
    if !row.lower("metric").contains("sum_i") && gpus > 1 {
        let tp = number_after(&sharding, "tp").unwrap_or(1).max(1);
        if tp > 1 {
            set("tp", tp.to_string());
            if sharding.contains("sequence parallel") && !sharding.contains("no sequence parallel")
            {
                set("sp", "1".into());
            }
        }
        replicas = gpus / tp;
        if replicas > 1 {
            set("gpus", replicas.to_string());
            if sharding.contains("full_shard") || sharding.contains("zero-3") {
                set("zero", "3".into());
            } else if sharding.contains("distributed optimizer") {
                // Megatron's distributed optimizer shards FP32 master weights and
                // Adam state over data-parallel ranks: ZeRO stage 1.
                set("zero", "1".into());
            }
        }
    }
    // Gradient accumulation: the global batch that makes batchfit count the
    // gradients of the earlier micro-batches alive through the later ones.
    let accumulation = first_number(row.get("grad_accum")).unwrap_or(1);
    if accumulation > 1 {
        set(
            "global_batch",
            (batch * accumulation * replicas.max(1)).to_string(),
        );
    }
    Ok(q.iter()
        .map(|(n, v)| format!("{n}={}", query::encode(v)))
        .collect::<Vec<_>>()
        .join("&"))
}

fn bit(value: bool) -> String {
    u8::from(value).to_string()
}

/// GPT-2/BERT-style blocks: GELU MLP, LayerNorm, biases, dropout 0.1.
fn gpt_style(tied: bool) -> Vec<(&'static str, String)> {
    vec![
        ("mlp", "gelu".into()),
        ("norm", "layernorm".into()),
        ("bias", "1".into()),
        ("dropout", "1".into()),
        ("tied", bit(tied)),
    ]
}

/// How a row was measured, and so which of batchfit's readings it is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Reading {
    /// An allocator statistic (`max_memory_allocated`, active bytes): `peak_allocated`.
    Allocated,
    /// The caching allocator's peak (`max_memory_reserved`): `peak_reserved`.
    Reserved,
    /// The allocator's peak plus the memory outside PyTorch (CUDA context,
    /// kernels' buffers) measured as device memory minus reserved:
    /// `peak_allocated` + batchfit's overhead.
    AllocatedPlusOverhead,
    /// Device-wide (nvidia-smi / NVML) with the CUDA context measured alone in
    /// the same source: `peak_reserved` + that context.
    DeviceWithContext(f64),
    /// Device-wide without a measured context: the `nvidia_smi` reading, whose
    /// overhead is batchfit's default.
    Device,
    /// A serving engine's start-up log: the weights it loaded ("Model loading
    /// took", SGLang's "Load weight end … mem usage"): the plan's `weights`.
    EngineWeights,
    /// A serving engine's start-up log: its profiling run's activation peak
    /// (vLLM 0.6–0.7's "PyTorch activation peak memory takes"): the plan's
    /// `activation_peak`.
    EngineActivationPeak,
    /// A serving engine's start-up log: the KV cache pool ("Available KV cache
    /// memory", SGLang's K size + V size): the plan's `kv_cache_pool`.
    EngineKvCachePool,
}

impl Reading {
    /// The `reading` column of `validation/preregistered.csv`.
    pub(super) fn parse(text: &str) -> Result<Reading, String> {
        match text.trim() {
            "allocated" => Ok(Reading::Allocated),
            "reserved" => Ok(Reading::Reserved),
            "allocated+overhead" => Ok(Reading::AllocatedPlusOverhead),
            "nvidia_smi" => Ok(Reading::Device),
            "engine_weights" => Ok(Reading::EngineWeights),
            "engine_activation_peak" => Ok(Reading::EngineActivationPeak),
            "engine_kv_cache_pool" => Ok(Reading::EngineKvCachePool),
            other => Err(format!(
                "reading {other:?} is not one of allocated, reserved, allocated+overhead, \
                 nvidia_smi, engine_weights, engine_activation_peak, engine_kv_cache_pool"
            )),
        }
    }
}

/// The reading a row's metric matches ("yes (ctx alone = 1343 MiB)" carries the context).
pub(super) fn reading(row: &Row<'_>) -> Result<Reading, String> {
    let text = row.get("incl_cuda_ctx");
    if !text.to_ascii_lowercase().starts_with("yes") {
        return Ok(Reading::Allocated);
    }
    match text.find("= ") {
        Some(at) => {
            let rest = &text[at + 2..];
            let mut words = rest.split_whitespace();
            let value = words.next().unwrap_or("");
            let unit = words.next().unwrap_or("").trim_end_matches(')');
            measured_bytes(value, unit).map(Reading::DeviceWithContext)
        }
        None => Ok(Reading::Device),
    }
}

/// What batchfit answers for a query: its estimate, and the serving engine's
/// plan where the query names an engine on a device.
pub(super) struct Answer {
    pub(super) estimate: memory::Estimate,
    pub(super) plan: Option<serving::Plan>,
}

impl Answer {
    /// batchfit's answer to a query that [`query::parse`] accepted.
    pub(super) fn of(config: &query::Config) -> Answer {
        let estimate = memory::estimate(config);
        let plan = serving::plan_from(config, &estimate);
        Answer { estimate, plan }
    }
}

/// batchfit's number for a row measured as `reading`; `None` for an engine's
/// reading where the query gives no serving plan.
pub(super) fn estimated(answer: &Answer, reading: Reading) -> Option<f64> {
    let estimate = &answer.estimate;
    let plan = answer.plan.as_ref();
    Some(match reading {
        Reading::Allocated => estimate.peak_allocated as f64,
        Reading::Reserved => estimate.peak_reserved as f64,
        Reading::AllocatedPlusOverhead => (estimate.peak_allocated + estimate.overhead) as f64,
        Reading::DeviceWithContext(context) => estimate.peak_reserved as f64 + context,
        Reading::Device => estimate.nvidia_smi as f64,
        Reading::EngineWeights => plan?.weights as f64,
        Reading::EngineActivationPeak => plan?.activation_peak as f64,
        Reading::EngineKvCachePool => plan?.kv_cache_pool as f64,
    })
}

/// The framework profile a row was measured under, read from its source and
/// optimizer columns, with the settings the row states about that stack where
/// they differ from the profile's defaults (docs/frameworks.md). `None` when
/// the stack is not one batchfit has a profile for.
pub(super) fn stack(row: &Row<'_>) -> Option<String> {
    let source = row.lower("source");
    let optimizer = row.lower("optimizer");
    let notes = row.lower("notes");
    if source.contains("megatron") {
        // The functional tests' model_config.yaml turn Megatron-LM's
        // gradient-accumulation fusion off, which the notes say.
        let mut text = String::from("framework=megatron");
        if notes.contains("--no-gradient-accumulation-fusion") {
            text.push_str("&grad_accum_fusion=0");
        }
        return Some(text);
    }
    if source.contains("torchtune") {
        // The rows state torch AdamW outside the backward pass and name their
        // loss: the standard cross-entropy, or the older CEWithChunkedOutputLoss,
        // which also keeps every chunk's 16-bit logits and is not the `chunked`
        // (LinearCrossEntropyLoss) batchfit models.
        let mut text = String::from("framework=torchtune");
        if optimizer.contains("optimizer_in_bwd=false") {
            text.push_str("&step=foreach");
        }
        if notes.contains("crossentropyloss") || notes.contains("cewithchunkedoutputloss") {
            text.push_str("&loss=full");
        }
        return Some(text);
    }
    if source.contains("qwen") || source.contains("optimizing llms") {
        return Some("framework=hf_generate".into());
    }
    if source.contains("hf transformers docs")
        || source.contains("optimum-benchmark")
        || source.contains("fms-acceleration")
    {
        return Some("framework=hf_trainer".into());
    }
    None
}

/// The stack a row of a source the model was written against ran on, in
/// words, from its profile (the `stack` column of `preregistered.csv` names it
/// for pre-registered rows).
pub(super) fn stack_label(profile: Option<&str>) -> &'static str {
    match profile {
        Some(p) if p.starts_with("framework=megatron") => "Megatron-LM",
        Some(p) if p.starts_with("framework=torchtune") => "torchtune",
        Some(p) if p.starts_with("framework=hf_generate") => "HF transformers generate",
        Some(p) if p.starts_with("framework=hf_trainer") => "HF Trainer",
        _ => "custom",
    }
}

/// The source a row belongs to: its `source` column up to the first " (",
/// which is where the rows of one source differ (the table or run named).
pub(super) fn source_key(source: &str) -> String {
    source
        .split(" (")
        .next()
        .unwrap_or(source)
        .trim()
        .to_owned()
}

pub(super) fn short_metric(row: &Row<'_>) -> String {
    let metric = row.lower("metric");
    if metric.contains("nvml") || metric.contains("nvidia-smi") {
        "device-wide (NVML)".into()
    } else if metric.contains("active_bytes") {
        "peak active".into()
    } else if metric.contains("sum_i") {
        "peak allocated, summed over GPUs".into()
    } else {
        "peak allocated".into()
    }
}
