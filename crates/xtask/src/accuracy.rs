//! `cargo xtask accuracy`: batchfit's estimates against published measurements.
//!
//! Reads `validation/measurements.csv` (one published peak-memory measurement a
//! row, with its configuration, metric and unit) and `validation/preregistered.csv`
//! (for the rows of sources added after the model was written: the query that
//! states each row, the reading it is compared with, and batchfit's prediction at
//! the commit it was registered). The other rows are turned into a batchfit
//! transformer query from their columns. `docs/accuracy.md` then gets the error
//! per row, grouped by source and by source and stack (each group's row count,
//! median and worst absolute error, before and after for pre-registered rows),
//! and a headline that is the median over sources of each source's median
//! absolute error with the shares of rows within 10 % and 30 %, given
//! separately for the pre-registered sources (unseen when the model was
//! written: the error to expect on a new stack) and for the sources the model
//! was written against. Like is compared with like: bytes in the row's unit,
//! and the reading that matches the row's metric (`peak_allocated` for
//! allocator statistics, `peak_reserved` for `max_memory_reserved`, the
//! nvidia-smi reading for device-wide rows). Rows batchfit cannot represent
//! (LoRA, unpublished prompt lengths) are listed with the reason. A
//! pre-registered row that was not comparable at registration and that a later
//! change to the model lets batchfit state carries the query written for it
//! then (`query_after`, at `query_after_at`): it is compared with the current
//! model only, counted apart from every figure at registration. A row compared
//! at registration keeps its query and prediction; a `query_after` may only
//! restate it with a setting or value the URL format gained later, which its
//! source states (`restates`; a changed value with its `reason_after`), and
//! its current number is computed on it.
//!
//! A second table compares our own measurements, `validation/gpu-measurements.csv`
//! (written by `validation/gpu/measure.py` on a GPU machine, its environment in
//! `validation/gpu-environment.json`): each row carries the batchfit query of the
//! same run, and both allocator readings and the phase of the step that set the
//! peak are compared. No constant is fitted to any row of either table.

use std::fmt::Write as _;
use std::path::Path;

use batchfit_core::confidence::Reading as Measured;
use batchfit_core::import::json::{self, Json};
use batchfit_core::memory::{self, Phase};
use batchfit_core::query;
use batchfit_core::transformer::Framework;
use batchfit_core::units::{Units, format_bytes};

use crate::confidence::{self, Sample};

/// The generated docs, relative to the repository root.
const DOCS_PATH: &str = "docs/accuracy.md";

/// Regenerates `root/docs/accuracy.md` and the core's validation range
/// (`confidence::TABLE_PATH`) from the published measurements and our own GPU
/// measurements under `root/validation/`. With `check`, writes nothing and
/// fails when either file differs from what the rows give.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let read = |path: &str| {
        let path = root.join(path);
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))
    };
    let published = evaluate(
        &read("validation/measurements.csv")?,
        &read("validation/preregistered.csv")?,
    )?;
    let gpu = gpu_evaluate(
        &read("validation/gpu-measurements.csv")?,
        &read("validation/gpu-environment.json")?,
    )?;
    let samples: Vec<Sample> = published.samples.into_iter().chain(gpu.samples).collect();
    let cells = confidence::cells(&samples)?;
    let mut docs = published.text;
    docs.push_str(&confidence::markdown(&cells));
    docs.push_str(&gpu.text);
    let outputs = [
        (DOCS_PATH, docs),
        (confidence::TABLE_PATH, confidence::table_rs(&cells)),
    ];
    if check {
        let stale: Vec<&str> = outputs
            .iter()
            .filter(|(path, text)| read(path).ok().as_ref() != Some(text))
            .map(|(path, _)| *path)
            .collect();
        if !stale.is_empty() {
            return Err(format!(
                "{} differ{} from what validation/ gives: run `cargo xtask accuracy`",
                stale.join(" and "),
                if stale.len() == 1 { "s" } else { "" }
            ));
        }
        println!("{DOCS_PATH} and {} are up to date", confidence::TABLE_PATH);
        return Ok(());
    }
    for (path, text) in outputs {
        let out = root.join(path);
        std::fs::write(&out, text).map_err(|e| format!("writing {}: {e}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}

/// A report's text and the validation samples its rows give.
pub struct Evaluated {
    pub text: String,
    pub samples: Vec<Sample>,
}

/// The sample of a row measured as `reading`, compared with `estimate` (of a
/// query naming `profile`) times the GPUs its value sums; `None` for a reading
/// that is none of the estimate's three (allocated + overhead).
fn sample(
    source: &str,
    reading: Reading,
    estimate: &memory::Estimate,
    profile: Framework,
    measured: f64,
    gpus: f64,
) -> Option<Sample> {
    let reading = match reading {
        Reading::Allocated => Measured::Allocated,
        Reading::Reserved => Measured::Reserved,
        Reading::DeviceWithContext(_) | Reading::Device => Measured::NvidiaSmi,
        Reading::AllocatedPlusOverhead => return None,
    };
    Some(Sample {
        source: source.to_owned(),
        reading,
        profile,
        measured,
        predicted: reading.of(estimate) as f64 * gpus,
    })
}

/// Splits CSV text into records of fields (RFC 4180: fields in double quotes may
/// hold commas, newlines and doubled quotes).
pub fn read_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, '"') => return Err(format!("line {line}: a quote inside an unquoted field")),
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                line += 1;
                record.push(std::mem::take(&mut field));
                if record.iter().any(|f| !f.is_empty()) {
                    records.push(std::mem::take(&mut record));
                }
                record.clear();
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {line}: a quoted field is not closed"));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// Signed percentage error of an estimate against a measurement.
pub fn percent_error(estimate: f64, measured: f64) -> f64 {
    (estimate - measured) / measured * 100.0
}

/// The median of `values` (mean of the middle two for an even count), `None` if empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// One measurement row, by column name.
struct Row<'a> {
    header: &'a [String],
    fields: &'a [String],
}

impl Row<'_> {
    fn get(&self, column: &str) -> &str {
        self.header
            .iter()
            .position(|h| h == column)
            .and_then(|i| self.fields.get(i))
            .map_or("", |s| s.trim())
    }

    fn lower(&self, column: &str) -> String {
        self.get(column).to_ascii_lowercase()
    }
}

/// The leading whole number of a cell ("8 (MQA)" → 8, "~6.75B" → none).
fn first_number(text: &str) -> Option<u64> {
    let digits: String = text
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The number after `marker` in a cell ("50257 (padded 50304)", "padded " → 50304).
fn number_after(text: &str, marker: &str) -> Option<u64> {
    let at = text.find(marker)? + marker.len();
    first_number(&text[at..])
}

/// A measured value in bytes from the row's value and unit.
fn measured_bytes(value: &str, unit: &str) -> Result<f64, String> {
    let value: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("value {value:?} is not a number"))?;
    let scale = match unit.split_whitespace().next().unwrap_or("") {
        "bytes" | "B" => 1.0,
        "MiB" => 1_048_576.0,
        "MB" => 1e6,
        "GiB" => 1_073_741_824.0,
        "GB" => 1e9,
        other => {
            return Err(format!(
                "unit {other:?} is not one of bytes, MiB, MB, GiB, GB"
            ));
        }
    };
    Ok(value * scale)
}

/// What a row becomes: a batchfit query, or the reason it cannot be one.
fn to_query(row: &Row<'_>) -> Result<String, String> {
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
enum Reading {
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
}

impl Reading {
    /// The `reading` column of `validation/preregistered.csv`.
    fn parse(text: &str) -> Result<Reading, String> {
        match text.trim() {
            "allocated" => Ok(Reading::Allocated),
            "reserved" => Ok(Reading::Reserved),
            "allocated+overhead" => Ok(Reading::AllocatedPlusOverhead),
            "nvidia_smi" => Ok(Reading::Device),
            other => Err(format!(
                "reading {other:?} is not one of allocated, reserved, allocated+overhead, nvidia_smi"
            )),
        }
    }
}

/// The reading a row's metric matches ("yes (ctx alone = 1343 MiB)" carries the context).
fn reading(row: &Row<'_>) -> Result<Reading, String> {
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

/// batchfit's number for a row measured as `reading`.
fn estimated(estimate: &memory::Estimate, reading: Reading) -> f64 {
    match reading {
        Reading::Allocated => estimate.peak_allocated as f64,
        Reading::Reserved => estimate.peak_reserved as f64,
        Reading::AllocatedPlusOverhead => (estimate.peak_allocated + estimate.overhead) as f64,
        Reading::DeviceWithContext(context) => estimate.peak_reserved as f64 + context,
        Reading::Device => estimate.nvidia_smi as f64,
    }
}

/// The framework profile a row was measured under, read from its source and
/// optimizer columns, with the settings the row states about that stack where
/// they differ from the profile's defaults (docs/frameworks.md). `None` when
/// the stack is not one batchfit has a profile for.
fn stack(row: &Row<'_>) -> Option<String> {
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
fn stack_label(profile: Option<&str>) -> &'static str {
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
fn source_key(source: &str) -> String {
    source
        .split(" (")
        .next()
        .unwrap_or(source)
        .trim()
        .to_owned()
}

/// One row of `validation/preregistered.csv`: the query that states a
/// measurement and batchfit's prediction for it, recorded at `predicted_at`
/// before any change to the model was written for its source.
#[derive(Clone, Debug, PartialEq)]
struct Preregistered {
    id: String,
    stack: String,
    predicted_at: String,
    /// Empty for a row batchfit cannot state.
    query: String,
    reading: Reading,
    /// How many GPUs' readings the measured value sums (1 for one GPU's).
    gpus_summed: u32,
    /// The prediction in bytes at `predicted_at`, already times `gpus_summed`;
    /// `None` for a row batchfit cannot state.
    predicted: Option<f64>,
    /// Why the row is not comparable; empty when it is.
    reason: String,
    /// For a row that was not comparable at registration: the query written
    /// from its source once a change to the model could state it, before any
    /// prediction for it was computed; empty otherwise.
    query_after: String,
    /// The commit whose model first expresses `query_after`.
    query_after_at: String,
    /// For a row still not comparable after such a change: why, as of then.
    reason_after: String,
}

/// Reads `validation/preregistered.csv`. A comparable row (`comparable` = yes)
/// has a query and a prediction; any other has a reason and neither.
fn read_preregistered(csv: &str) -> Result<Vec<Preregistered>, String> {
    let records = read_csv(csv)?;
    let Some((header, rows)) = records.split_first() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for fields in rows {
        let row = Row { header, fields };
        let id = row.get("id").to_owned();
        let fail = |e: String| format!("preregistered.csv row {id}: {e}");
        let comparable = match row.lower("comparable").as_str() {
            "yes" => true,
            "no" => false,
            other => return Err(fail(format!("comparable is {other:?}, not yes or no"))),
        };
        let query = row.get("query").to_owned();
        let predicted =
            match row.get("predicted") {
                "" => None,
                text => Some(text.parse::<u128>().map_err(|_| {
                    fail(format!("predicted {text:?} is not a whole number of bytes"))
                })? as f64),
            };
        let reason = row.get("reason").to_owned();
        if comparable && (query.is_empty() || predicted.is_none()) {
            return Err(fail(
                "a comparable row needs a query and a prediction".into(),
            ));
        }
        if !comparable && (predicted.is_some() || reason.is_empty()) {
            return Err(fail(
                "a row that is not comparable has a reason and no prediction".into(),
            ));
        }
        let query_after = row.get("query_after").to_owned();
        let query_after_at = row.get("query_after_at").to_owned();
        let reason_after = row.get("reason_after").to_owned();
        if comparable {
            let changed = match query_after.as_str() {
                "" => false,
                after => restates(&query, after).map_err(fail)?,
            };
            if changed == reason_after.is_empty() {
                return Err(fail(
                    if changed {
                        "a restated row whose registered values change says why (reason_after)"
                    } else {
                        "a row compared at registration stays comparable: a reason_after only \
                     explains a registered value its query_after changes"
                    }
                    .into(),
                ));
            }
        }
        if query_after.is_empty() != query_after_at.is_empty() {
            return Err(fail(
                "query_after and query_after_at go together (the query and the commit whose model \
                 first expresses it)"
                    .into(),
            ));
        }
        if !comparable && !query_after.is_empty() && !reason_after.is_empty() {
            return Err(fail(
                "a row with a query_after is comparable: it has no reason_after".into(),
            ));
        }
        let gpus_summed = match row.get("gpus_summed") {
            "" => 1,
            text => text
                .parse()
                .ok()
                .filter(|&n: &u32| n > 0)
                .ok_or_else(|| fail(format!("gpus_summed {text:?} is not a positive count")))?,
        };
        out.push(Preregistered {
            stack: row.get("stack").to_owned(),
            predicted_at: row.get("predicted_at").to_owned(),
            reading: Reading::parse(row.get("reading")).map_err(fail)?,
            query,
            gpus_summed,
            predicted,
            reason,
            query_after,
            query_after_at,
            reason_after,
            id,
        });
    }
    Ok(out)
}

/// Checks that `after` restates a row compared at registration: every
/// parameter of its registered `query`, in order, then any parameters
/// appended, none set twice. Such a row gains only what the URL format could
/// not say when it was registered (a later change added the setting or the
/// value), stated from its source. Returns whether a registered value
/// changed: such a row must say why (`reason_after`).
fn restates(query: &str, after: &str) -> Result<bool, String> {
    fn pairs(text: &str) -> Vec<(&str, &str)> {
        text.split('&')
            .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
            .collect()
    }
    let (registered, restated) = (pairs(query), pairs(after));
    if restated.len() < registered.len()
        || registered
            .iter()
            .zip(&restated)
            .any(|((name, _), (again, _))| name != again)
    {
        return Err(format!(
            "a row compared at registration keeps its query: query_after sets each of {query:?}'s \
             parameters in its order, then may append others"
        ));
    }
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in &restated {
        if names.contains(name) {
            return Err(format!("query_after sets {name} twice"));
        }
        names.push(name);
    }
    let changed = registered
        .iter()
        .zip(&restated)
        .any(|((_, value), (_, again))| value != again);
    if !changed && restated.len() == registered.len() {
        return Err("query_after restates nothing: leave it empty".into());
    }
    Ok(changed)
}

/// Absolute-error statistics of a group of rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub rows: usize,
    /// Median absolute percentage error.
    pub median: f64,
    /// The signed error of the row furthest off.
    pub worst: f64,
    /// Shares of rows (0–1) whose absolute error is at most 10 % and 30 %.
    pub within_10: f64,
    pub within_30: f64,
}

/// The statistics of signed percentage errors; `None` for no rows.
pub fn summarize(errors: &[f64]) -> Option<Summary> {
    let absolute: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    let median = median(&absolute)?;
    let worst = errors
        .iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))?;
    let share = |limit: f64| {
        absolute.iter().filter(|&&e| e <= limit).count() as f64 / absolute.len() as f64
    };
    Some(Summary {
        rows: errors.len(),
        median,
        worst,
        within_10: share(10.0),
        within_30: share(30.0),
    })
}

/// Signed errors grouped by key, groups in order of first appearance.
pub fn group_by<K: PartialEq + Clone>(
    items: impl IntoIterator<Item = (K, f64)>,
) -> Vec<(K, Vec<f64>)> {
    let mut groups: Vec<(K, Vec<f64>)> = Vec::new();
    for (key, error) in items {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, errors)) => errors.push(error),
            None => groups.push((key, vec![error])),
        }
    }
    groups
}

/// The headline of a set of sources: the median over sources of each
/// source's median absolute error (so that no one large table dominates),
/// and the shares of all their rows within 10 % and 30 %.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub sources: usize,
    pub median_of_medians: f64,
    /// Over the rows of all the sources together.
    pub rows: Summary,
}

/// The headline over `groups` (one per source, of signed errors); `None` when
/// no source has a row.
pub fn headline<K>(groups: &[(K, Vec<f64>)]) -> Option<Headline> {
    let medians: Vec<f64> = groups
        .iter()
        .filter_map(|(_, errors)| summarize(errors).map(|s| s.median))
        .collect();
    let all: Vec<f64> = groups.iter().flat_map(|(_, e)| e.iter().copied()).collect();
    Some(Headline {
        sources: medians.len(),
        median_of_medians: median(&medians)?,
        rows: summarize(&all)?,
    })
}

struct Compared {
    id: String,
    model: String,
    metric: String,
    measured: f64,
    estimated: f64,
    reading: Reading,
    query: String,
    /// The row's stack and batchfit's number under that profile.
    profile: Option<(String, f64)>,
    source: String,
    stack: String,
    /// The prediction recorded before the model was changed for this source,
    /// and the commit it was computed at (pre-registered rows compared at
    /// registration only).
    before: Option<(f64, String)>,
    /// The commit of its registration, for a pre-registered row.
    registered: Option<String>,
    /// For a pre-registered row that was not comparable at registration: the
    /// commit whose model first expressed it (its `query_after_at`).
    comparable_since: Option<String>,
    /// For a row compared at registration whose source states a setting the
    /// URL format gained later: the commit whose model first expresses it
    /// (its `query_after_at`), and why where a registered value changed (its
    /// `reason_after`); "now" is computed on its `query_after`.
    restated: Option<(String, String)>,
}

impl Compared {
    fn error(&self) -> f64 {
        percent_error(self.estimated, self.measured)
    }

    fn error_before(&self) -> Option<f64> {
        self.before
            .as_ref()
            .map(|(bytes, _)| percent_error(*bytes, self.measured))
    }
}

struct Skipped {
    id: String,
    model: String,
    reason: String,
    source: String,
    stack: String,
    /// The commit of its pre-registration, for a pre-registered row.
    preregistered: Option<String>,
}

/// Where a source stands: written against (its rows were in validation/ when
/// the model was written) or pre-registered (predicted before any change for it).
fn is_preregistered(source: &str, compared: &[Compared], skipped: &[Skipped]) -> bool {
    compared
        .iter()
        .filter(|c| c.source == source)
        .all(|c| c.registered.is_some())
        && skipped
            .iter()
            .filter(|s| s.source == source)
            .all(|s| s.preregistered.is_some())
}

fn percent(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// "1 source", "2 sources".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn short_commit(commit: &str) -> &str {
    commit.get(..8).unwrap_or(commit)
}

/// The Markdown report for the measurements in `csv` and their pre-registered
/// predictions in `preregistered_csv`, with the rows' validation samples.
pub fn evaluate(csv: &str, preregistered_csv: &str) -> Result<Evaluated, String> {
    let records = read_csv(csv)?;
    let (header, rows) = records.split_first().ok_or("the CSV is empty")?;
    let preregistered = read_preregistered(preregistered_csv)?;
    for p in &preregistered {
        if !rows
            .iter()
            .any(|fields| Row { header, fields }.get("id") == p.id)
        {
            return Err(format!(
                "preregistered.csv row {}: no such measurement",
                p.id
            ));
        }
    }
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    let mut samples = Vec::new();
    for fields in rows {
        let row = Row { header, fields };
        let id = row.get("id").to_owned();
        let measured = measured_bytes(row.get("value"), row.get("unit"))
            .map_err(|e| format!("row {id}: {e}"))?;
        let source = source_key(row.get("source"));
        // The estimate of a query, and the framework profile it names.
        let estimate_of = |text: &str| {
            let parsed = query::parse(text);
            match parsed.problems.first() {
                Some(problem) => Err(format!("row {id}: the query {text} is invalid: {problem}")),
                None => Ok((
                    memory::estimate(&parsed.config),
                    parsed.config.transformer.framework,
                )),
            }
        };
        if let Some(p) = preregistered.iter().find(|p| p.id == id) {
            // Compared with the query of registration, or with the one written
            // when a change to the model first could state the row.
            let (query, before, since) = match p.predicted {
                Some(before) if !p.query_after.is_empty() => {
                    (&p.query_after, Some((before, p.predicted_at.clone())), None)
                }
                Some(before) => (&p.query, Some((before, p.predicted_at.clone())), None),
                None if !p.query_after.is_empty() => {
                    (&p.query_after, None, Some(p.query_after_at.clone()))
                }
                None => {
                    let reason = if p.reason_after.is_empty() {
                        p.reason.clone()
                    } else {
                        format!("{} (at registration: {})", p.reason_after, p.reason)
                    };
                    skipped.push(Skipped {
                        id,
                        model: row.get("model").to_owned(),
                        reason,
                        source,
                        stack: p.stack.clone(),
                        preregistered: Some(p.predicted_at.clone()),
                    });
                    continue;
                }
            };
            let (estimate, profile) = estimate_of(query)?;
            let gpus = f64::from(p.gpus_summed);
            samples.extend(sample(
                &source, p.reading, &estimate, profile, measured, gpus,
            ));
            let now = estimated(&estimate, p.reading) * gpus;
            compared.push(Compared {
                metric: preregistered_metric(&row, p),
                model: row.get("model").to_owned(),
                measured,
                estimated: now,
                reading: p.reading,
                query: query.clone(),
                profile: None,
                source,
                stack: p.stack.clone(),
                before,
                registered: Some(p.predicted_at.clone()),
                comparable_since: since,
                restated: (p.predicted.is_some() && !p.query_after.is_empty())
                    .then(|| (p.query_after_at.clone(), p.reason_after.clone())),
                id,
            });
            continue;
        }
        match to_query(&row) {
            Err(reason) => skipped.push(Skipped {
                model: row.get("model").to_owned(),
                reason,
                stack: stack_label(stack(&row).as_deref()).to_owned(),
                source,
                preregistered: None,
                id,
            }),
            Ok(text) => {
                let (estimate, framework) = estimate_of(&text)?;
                let reading = reading(&row).map_err(|e| format!("row {id}: {e}"))?;
                // The profile comes first when parsed, so the row's own settings
                // still override it. The validation sample is the row under its
                // stack's profile where it has one: what a user who names that
                // profile is told.
                let settings = stack(&row);
                let profile = match &settings {
                    None => {
                        samples.extend(sample(
                            &source, reading, &estimate, framework, measured, 1.0,
                        ));
                        None
                    }
                    Some(settings) => {
                        let (with, framework) = estimate_of(&format!("{text}&{settings}"))?;
                        samples.extend(sample(&source, reading, &with, framework, measured, 1.0));
                        Some((settings.clone(), estimated(&with, reading)))
                    }
                };
                compared.push(Compared {
                    profile,
                    model: row.get("model").to_owned(),
                    metric: short_metric(&row),
                    measured,
                    estimated: estimated(&estimate, reading),
                    reading,
                    query: text,
                    stack: stack_label(settings.as_deref()).to_owned(),
                    source,
                    before: None,
                    registered: None,
                    comparable_since: None,
                    restated: None,
                    id,
                });
            }
        }
    }

    // Per source (the headline's unit) and per source and stack.
    let mut sources: Vec<String> = Vec::new();
    for s in compared
        .iter()
        .map(|c| &c.source)
        .chain(skipped.iter().map(|s| &s.source))
    {
        if !sources.contains(s) {
            sources.push(s.clone());
        }
    }
    let after_by_source = group_by(compared.iter().map(|c| (c.source.clone(), c.error())));
    // Which errors of which rows: the predictions at registration (of the rows
    // compared then), the current model's on every row, or the current
    // model's on the rows compared at registration.
    #[derive(Clone, Copy)]
    enum Errors {
        AtRegistration,
        Now,
        NowOnRegistered,
    }
    let split = |preregistered: bool, errors: Errors| -> Vec<(String, Vec<f64>)> {
        group_by(
            compared
                .iter()
                .filter(|c| is_preregistered(&c.source, &compared, &skipped) == preregistered)
                .filter_map(|c| {
                    let error = match errors {
                        Errors::AtRegistration => c.error_before()?,
                        Errors::NowOnRegistered => c.error_before().map(|_| c.error())?,
                        Errors::Now => c.error(),
                    };
                    Some((c.source.clone(), error))
                }),
        )
    };
    let seen = headline(&split(false, Errors::Now));
    let unseen_before = headline(&split(true, Errors::AtRegistration));
    let unseen_after = headline(&split(true, Errors::Now));
    let unseen_after_registered = headline(&split(true, Errors::NowOnRegistered));
    let all = headline(&after_by_source);
    // Rows a change to the model made comparable after registration, and the
    // commits of those changes.
    let newly = compared
        .iter()
        .filter(|c| c.comparable_since.is_some())
        .count();
    let newly_at = since_commits(compared.iter());
    let commits: Vec<&str> = {
        let mut c: Vec<&str> = compared
            .iter()
            .filter_map(|c| c.before.as_ref().map(|(_, at)| short_commit(at)))
            .collect();
        c.dedup();
        c.sort_unstable();
        c.dedup();
        c
    };
    let commit_text = match commits.as_slice() {
        [] => "—".to_owned(),
        list => list
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let registered = sources
        .iter()
        .filter(|s| is_preregistered(s, &compared, &skipped))
        .count();
    let unstated = compared
        .iter()
        .filter(|c| c.before.is_some() && c.metric.starts_with("not stated"))
        .count();

    // The rows measured under a known stack, without and with its profile.
    let profiled: Vec<&Compared> = compared.iter().filter(|c| c.profile.is_some()).collect();
    let median_plain = median(&profiled.iter().map(|c| c.error().abs()).collect::<Vec<_>>());
    let median_profiled = median(
        &profiled
            .iter()
            .filter_map(|c| c.profile.as_ref().map(|(_, bytes)| (bytes, c.measured)))
            .map(|(bytes, measured)| percent_error(*bytes, measured).abs())
            .collect::<Vec<_>>(),
    );

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "# Accuracy against published measurements\n");
    let _ = writeln!(
        w,
        "Generated by `cargo xtask accuracy` from `validation/measurements.csv` and \
         `validation/preregistered.csv` (sources in `validation/SOURCES.md`); do not edit by hand. \
         Each row's configuration becomes the batchfit query shown, run through the same \
         `memory::estimate` as the page and the CLI. Measured values are converted to bytes from \
         their unit (MiB = 2^20, MB = 10^6, GiB = 2^30, GB = 10^9 bytes). Each row is compared with \
         the reading that matches its metric: rows measured with `torch.cuda.max_memory_allocated` \
         (or the equivalent allocator statistic) with batchfit's peak allocated; rows measured with \
         `max_memory_reserved` with its peak reserved; rows measured device-wide (nvidia-smi / NVML, \
         `incl_cuda_ctx` = yes) with batchfit's peak reserved (allocated + the caching allocator's \
         slack) plus the CUDA context measured in the same source, or batchfit's nvidia-smi reading \
         where no context was measured; rows that add the memory outside PyTorch to the peak \
         allocated with batchfit's peak allocated plus its overhead; rows whose metric the source \
         does not state are kept, marked \"not stated\", and compared with the peak allocated. A \
         value summed over GPUs is compared with the sum of batchfit's per-GPU readings. No constant \
         in batchfit was fitted to any row.\n"
    );
    let _ = writeln!(
        w,
        "**How accuracy is claimed.** Errors are grouped by source, because the rows of one source \
         share a stack, a metric and often a mistake, and one long table would otherwise decide a \
         pooled median. The headline is the median over sources of each source's median absolute \
         error, with the share of rows within 10 % and within 30 %. Sources are of two kinds: those \
         the model was written against (their rows were in `validation/` while its terms were \
         chosen), and pre-registered ones, whose rows went into `validation/preregistered.csv` with \
         the query that states each one and batchfit's prediction at the commit named there, before \
         any change to the model was written for them. Only the second kind measures the error on a \
         stack the model has not seen; once a change is written for a pre-registered source, its \
         \"now\" column is no longer unseen, and its \"before\" column keeps the honest figure. A \
         pre-registered row that batchfit could not state at registration has no prediction; when a \
         later change to the model lets batchfit state it, its query is written from its source then, \
         before any prediction for it (`query_after` in `validation/preregistered.csv`), and it counts \
         in the current model's figures only, never in those at registration. A row compared at \
         registration keeps its query and its prediction; where its source states a setting or a value \
         the URL format gained after registration, its `query_after` restates it: every registered \
         parameter in its order, then any appended (`cargo xtask accuracy` refuses anything else), a \
         changed registered value with the reason its source gives (`reason_after`); its \"now\" is \
         computed on it, marked \"query restated\" in the table of pre-registered predictions.\n"
    );
    let _ = writeln!(w, "## Headline\n");
    match &unseen_before {
        Some(h) => {
            let _ = writeln!(
                w,
                "**On a stack the validation set does not cover, expect a median error of {:.1} %:** \
                 the median over the {}{} of each source's median absolute error, \
                 from the predictions recorded before any change to the model (at {commit_text}); {} of \
                 their {} comparable rows are within 10 % and {} within 30 % ({unstated} of those rows \
                 come from sources that do not state their metric).{}\n",
                h.median_of_medians,
                count(h.sources, "pre-registered source"),
                match registered - h.sources {
                    0 => String::new(),
                    n => format!(
                        " with a comparable row ({} more ha{} none)",
                        n,
                        if n == 1 { "s" } else { "ve" }
                    ),
                },
                percent(h.rows.within_10),
                h.rows.rows,
                percent(h.rows.within_30),
                match newly {
                    0 => String::new(),
                    n => format!(
                        " {} became comparable after registration through a change to the model \
                         (at {newly_at}): queries written from the sources then, before any \
                         prediction, and counted in the current model's figures below, never in \
                         these.",
                        count(n, "more row")
                    ),
                },
            );
        }
        None => {
            let _ = writeln!(w, "No pre-registered source has a comparable row yet.\n");
        }
    }
    let line = |w: &mut String, what: &str, h: &Option<Headline>, rows_note: &str| {
        if let Some(h) = h {
            let _ = writeln!(
                w,
                "- {what}: median over {} {:.1} %; {} rows{rows_note}, {} within 10 %, {} within \
                 30 %; pooled median over rows {:.1} %.",
                count(h.sources, "source"),
                h.median_of_medians,
                h.rows.rows,
                percent(h.rows.within_10),
                percent(h.rows.within_30),
                h.rows.median
            );
        }
    };
    line(
        w,
        "Pre-registered sources, predictions at registration",
        &unseen_before,
        "",
    );
    let newly_note = match newly {
        0 => String::new(),
        n => format!(
            " ({n} of them made comparable by a change to the model since registration, at \
             {newly_at})"
        ),
    };
    line(
        w,
        "Pre-registered sources, the current model",
        &unseen_after,
        &newly_note,
    );
    if newly > 0 {
        line(
            w,
            "Pre-registered sources, the current model on the rows compared at registration",
            &unseen_after_registered,
            "",
        );
    }
    line(
        w,
        "Sources the model was written against, the current model",
        &seen,
        "",
    );
    line(w, "All sources, the current model", &all, "");
    let _ = writeln!(
        w,
        "\n{} rows compared, {} not comparable (listed [below](#not-comparable)).\n",
        compared.len(),
        skipped.len()
    );

    let _ = writeln!(w, "## Error by source\n");
    let _ = writeln!(
        w,
        "\"Before\" is the prediction recorded in `validation/preregistered.csv` at the commit shown; \
         \"now\" is the current model on the same query. A change written for one source must move \
         the rows of the others the right way too: the last column says where the median error grew \
         since registration, over the rows predicted at registration. Rows that were not comparable \
         at registration and that a later change to the model lets batchfit state count in \"now\" \
         only (\"rows compared\" says how many, and since which commit); where a source or stack has \
         no other, \"before\" says they were not comparable at registration.\n"
    );
    let _ = writeln!(
        w,
        "| source | kind | stacks | rows compared | median \\|error\\| before | worst before | median \\|error\\| now | worst now | within 10 % now | within 30 % now | since registration |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for source in &sources {
        let rows: Vec<&Compared> = compared.iter().filter(|c| &c.source == source).collect();
        let total = rows.len() + skipped.iter().filter(|s| &s.source == source).count();
        let mut stacks: Vec<&str> = rows
            .iter()
            .map(|c| c.stack.as_str())
            .chain(
                skipped
                    .iter()
                    .filter(|s| &s.source == source)
                    .map(|s| s.stack.as_str()),
            )
            .collect();
        stacks.dedup();
        let mut unique: Vec<&str> = Vec::new();
        for s in stacks {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        let pre = is_preregistered(source, &compared, &skipped);
        let kind = if pre {
            let at: Vec<&str> = rows
                .iter()
                .filter_map(|c| c.registered.as_deref().map(short_commit))
                .chain(
                    skipped
                        .iter()
                        .filter(|s| &s.source == source)
                        .filter_map(|s| s.preregistered.as_deref().map(short_commit)),
                )
                .collect();
            format!("pre-registered at `{}`", at.first().copied().unwrap_or("—"))
        } else {
            "written against".to_owned()
        };
        let now = summarize(&rows.iter().map(|c| c.error()).collect::<Vec<_>>());
        let before = if pre {
            summarize(
                &rows
                    .iter()
                    .filter_map(|c| c.error_before())
                    .collect::<Vec<_>>(),
            )
        } else {
            None
        };
        let cell =
            |s: &Option<Summary>, f: fn(&Summary) -> String| s.as_ref().map_or("—".to_owned(), f);
        // The current model on the rows predicted at registration, against
        // those predictions.
        let now_registered = summarize(
            &rows
                .iter()
                .filter(|c| c.before.is_some())
                .map(|c| c.error())
                .collect::<Vec<_>>(),
        );
        let moved = match (&before, &now_registered) {
            (Some(b), Some(n)) if n.median > b.median + 0.05 => "worse".to_owned(),
            (Some(b), Some(n)) if n.median + 0.05 < b.median => "better".to_owned(),
            (Some(_), Some(_)) => "unchanged".to_owned(),
            _ => "—".to_owned(),
        };
        let before_cell = |f: fn(&Summary) -> String| match &before {
            Some(s) => f(s),
            None if pre && !rows.is_empty() => "not comparable at registration".to_owned(),
            None => "—".to_owned(),
        };
        let _ = writeln!(
            w,
            "| {} | {kind} | {} | {} | {} | {} | {} | {} | {} | {} | {moved} |",
            escape(source),
            escape(&unique.join("; ")),
            rows_compared(&rows, total),
            before_cell(|s| format!("{:.1} %", s.median)),
            before_cell(|s| format!("{:+.1} %", s.worst)),
            cell(&now, |s| format!("{:.1} %", s.median)),
            cell(&now, |s| format!("{:+.1} %", s.worst)),
            cell(&now, |s| percent(s.within_10)),
            cell(&now, |s| percent(s.within_30)),
        );
    }
    let _ = writeln!(w, "\n## Error by source and stack\n");
    let _ = writeln!(
        w,
        "| source | stack | rows compared | not comparable | median \\|error\\| before | worst before | median \\|error\\| now | worst now |"
    );
    let _ = writeln!(w, "|---|---|---:|---:|---:|---:|---:|---:|");
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (source, stack) in compared
        .iter()
        .map(|c| (c.source.as_str(), c.stack.as_str()))
        .chain(
            skipped
                .iter()
                .map(|s| (s.source.as_str(), s.stack.as_str())),
        )
    {
        if !pairs.contains(&(source, stack)) {
            pairs.push((source, stack));
        }
    }
    pairs.sort_by_key(|(source, _)| sources.iter().position(|s| s == source));
    for (source, stack) in pairs {
        let rows: Vec<&Compared> = compared
            .iter()
            .filter(|c| c.source == source && c.stack == stack)
            .collect();
        let not = skipped
            .iter()
            .filter(|s| s.source == source && s.stack == stack)
            .count();
        let now = summarize(&rows.iter().map(|c| c.error()).collect::<Vec<_>>());
        let before = summarize(
            &rows
                .iter()
                .filter_map(|c| c.error_before())
                .collect::<Vec<_>>(),
        );
        let cell =
            |s: &Option<Summary>, f: fn(&Summary) -> String| s.as_ref().map_or("—".to_owned(), f);
        let registered = !rows.is_empty() && rows.iter().all(|c| c.registered.is_some());
        let before_cell = |f: fn(&Summary) -> String| match &before {
            Some(s) => f(s),
            None if registered => "not comparable at registration".to_owned(),
            None => "—".to_owned(),
        };
        let newly = rows.iter().filter(|c| c.comparable_since.is_some()).count();
        let compared_text = match newly {
            0 => rows.len().to_string(),
            n => format!(
                "{} ({n} since {})",
                rows.len(),
                since_commits(rows.iter().copied())
            ),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {compared_text} | {not} | {} | {} | {} | {} |",
            escape(source),
            escape(stack),
            before_cell(|s| format!("{:.1} %", s.median)),
            before_cell(|s| format!("{:+.1} %", s.worst)),
            cell(&now, |s| format!("{:.1} %", s.median)),
            cell(&now, |s| format!("{:+.1} %", s.worst)),
        );
    }
    if let (Some(plain), Some(with)) = (median_plain, median_profiled) {
        let _ = writeln!(
            w,
            "\n**Framework profiles.** {} rows of the sources the model was written against were \
             measured under a stack batchfit has a profile for (docs/frameworks.md); the `profile` \
             column adds that profile to the row's query, with the row's own settings still \
             overriding it. Median absolute error over those rows: {plain:.1} % without the profile, \
             {with:.1} % with it. Most rows already state the settings their stack chose (recipe, \
             optimizer implementation), so the profile changes only what they leave unsaid. \
             Pre-registered rows name their profile in their query.",
            profiled.len()
        );
    }
    let _ = writeln!(w, "\n## Every row\n");
    let _ = writeln!(
        w,
        "Every row of this table is a measurement published by someone else; our own \
         measurements on an H200 follow in the second table ([below](#our-own-measurements-on-a-gpu)). \
         The pre-registered rows' predictions at registration are in the [next table](#pre-registered-predictions).\n"
    );
    let _ = writeln!(
        w,
        "| id | model | metric | measured | batchfit | error | profile | with profile | error | query |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---|---:|---:|---|");
    for c in &compared {
        let context = match c.reading {
            Reading::Allocated | Reading::Reserved => String::new(),
            Reading::AllocatedPlusOverhead => " (allocated + overhead)".to_owned(),
            Reading::DeviceWithContext(b) => format!(
                " (reserved + {} CUDA context)",
                format_bytes(b as u128, Units::Binary)
            ),
            Reading::Device => " (nvidia-smi reading)".to_owned(),
        };
        let profile = match &c.profile {
            Some((settings, bytes)) => format!(
                "`{settings}` | {} | {:+.1} %",
                format_bytes(*bytes as u128, Units::Binary),
                percent_error(*bytes, c.measured)
            ),
            None => "— | — | —".to_owned(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {}{context} | {:+.1} % | {profile} | `{}` |",
            c.id,
            escape(&c.model),
            escape(&c.metric),
            format_bytes(c.measured as u128, Units::Binary),
            format_bytes(c.estimated as u128, Units::Binary),
            c.error(),
            c.query
        );
    }
    let _ = writeln!(w, "\n## Pre-registered predictions\n");
    let _ = writeln!(
        w,
        "| id | source | metric | measured | predicted at registration | error | batchfit now | error |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---:|---:|");
    for c in compared.iter().filter(|c| c.registered.is_some()) {
        let (predicted, error) = match (&c.before, &c.comparable_since) {
            (Some((before, at)), _) => (
                format!(
                    "{} (`{}`)",
                    format_bytes(*before as u128, Units::Binary),
                    short_commit(at)
                ),
                format!("{:+.1} %", percent_error(*before, c.measured)),
            ),
            (None, Some(since)) => (
                format!(
                    "not comparable at registration (query from `{}`)",
                    short_commit(since)
                ),
                "—".to_owned(),
            ),
            (None, None) => continue,
        };
        // A row restated with a setting the format gained later says so
        // beside its current number.
        let restated = c.restated.as_ref().map_or(String::new(), |(at, _)| {
            format!(" (query restated at `{}`)", short_commit(at))
        });
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {predicted} | {error} | {}{restated} | {:+.1} % |",
            c.id,
            escape(&c.source),
            escape(&c.metric),
            format_bytes(c.measured as u128, Units::Binary),
            format_bytes(c.estimated as u128, Units::Binary),
            c.error(),
        );
    }
    let reasons: Vec<&Compared> = compared
        .iter()
        .filter(|c| c.restated.as_ref().is_some_and(|(_, why)| !why.is_empty()))
        .collect();
    if !reasons.is_empty() {
        let _ = writeln!(
            w,
            "\nRestated queries that change a registered value (the registered query and \
             prediction stay in \"predicted at registration\"), with what their source says:\n"
        );
        for c in reasons {
            if let Some((at, why)) = &c.restated {
                let _ = writeln!(w, "- {} (at `{}`): {}", c.id, short_commit(at), escape(why));
            }
        }
    }
    if !skipped.is_empty() {
        let _ = writeln!(w, "\n## Not comparable\n");
        for s in &skipped {
            let marker = if s.preregistered.is_some() {
                " (pre-registered)"
            } else {
                ""
            };
            let _ = writeln!(
                w,
                "- {}{marker} ({}): {}.",
                s.id,
                escape(&s.model),
                s.reason
            );
        }
    }
    let _ = writeln!(w, "\n## What the model lacks, and where it shows\n");
    for note in NOTES {
        let _ = writeln!(w, "- {note}");
    }
    Ok(Evaluated { text: out, samples })
}

/// "18 of 22" rows of a source compared, with how many a change to the model
/// made comparable after registration and since which commits ("18 of 22 (5
/// since `d6f29d10`)").
fn rows_compared(rows: &[&Compared], total: usize) -> String {
    match rows.iter().filter(|c| c.comparable_since.is_some()).count() {
        0 => format!("{} of {total}", rows.len()),
        n => format!(
            "{} of {total} ({n} since {})",
            rows.len(),
            since_commits(rows.iter().copied())
        ),
    }
}

/// The commits at which a change to the model made `rows` comparable after
/// registration, shortened, in order, each once: "`d6f29d10`".
fn since_commits<'a>(rows: impl Iterator<Item = &'a Compared>) -> String {
    let mut at: Vec<&str> = rows
        .filter_map(|c| c.comparable_since.as_deref().map(short_commit))
        .collect();
    at.sort_unstable();
    at.dedup();
    at.iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The metric of a pre-registered row in a few words: the reading it is
/// compared with, marked where the source does not state its metric.
fn preregistered_metric(row: &Row<'_>, p: &Preregistered) -> String {
    let stated = !row.lower("metric").starts_with("not stated");
    let mut text = match (p.reading, stated) {
        (_, false) => "not stated (compared as peak allocated)".to_owned(),
        (Reading::Reserved, true) => "peak reserved".to_owned(),
        (Reading::AllocatedPlusOverhead, true) => {
            "peak allocated + memory outside PyTorch".to_owned()
        }
        (Reading::Device | Reading::DeviceWithContext(_), true) => "device-wide (NVML)".to_owned(),
        (Reading::Allocated, true) => "peak allocated".to_owned(),
    };
    if p.gpus_summed > 1 {
        let _ = write!(text, ", summed over {} GPUs", p.gpus_summed);
    }
    text
}

/// Known gaps between the model and real runs, written once from the model's
/// definition (docs/model.md), not from any row.
const NOTES: &[&str] = &[
    "**Allocator slack is a judgement.** batchfit's peak reserved adds 10 % of the step's transient bytes for the caching allocator's rounding and split blocks (docs/model.md, range 0–25 %); the true slack depends on the order and sizes of a run's allocations, which no configuration states.",
    "**The loss's tensors.** batchfit counts PyTorch's cross-entropy at the start of the backward pass: the FP32 log-softmax, its incoming gradient and the logits' gradient (docs/model.md §3.3), and Megatron-Core's vocab-parallel cross-entropy as its one FP32 softmax and the gradient's cast back (`loss=vocab_parallel`, which `framework=megatron` sets). Older transformers versions also shifted a contiguous copy of the logits (`logits[..., :-1, :].contiguous()`), one more FP32 logit-sized tensor. Rows with large vocabularies and short models show this most.",
    "**Autocast's casts.** Under `torch.autocast` (Hugging Face AMP) batchfit counts the FP32 residual stream the norms read and one BF16 cast per matrix product that reads a norm's output, as the model code lays its projections out (`fused_proj`, from the preset or `model_type`; docs/model.md §3.3). Under full recomputation autocast's cache holds every weight copy to the end of the forward pass and only the head's and one recomputed layer's are alive at the loss (docs/model.md §3.3, from PyTorch's `cached_cast` and `torch/utils/checkpoint.py`): G030 +6.4 % and G021 +2.9 % before, and counting the recomputed layer's copies with the head's, which are never alive together, leaves at most the smaller of the two too many. Not counted: the casts of a MoE layer's router and experts.",
    "**Softmax in FP32.** batchfit counts the FP32 softmax of eager attention under autocast (docs/model.md §3.3); unfused attention that asks for an FP32 softmax in a 16-bit model (Megatron's unfused backend, Hugging Face's eager Llama in pure BF16) keeps 4-byte scores and a 16-bit copy where batchfit counts 2 bytes.",
    "**Heads batchfit does not have.** Megatron's BERT has an MLM head and a binary head; batchfit's encoder has a pooler and a classifier only.",
    "**Inference peaks.** `generate` can hold the prompt's full logits in some transformers versions; batchfit counts the last position's logits only.",
    "**Fused and chunked alternatives.** torchtune's recipes compute the loss in chunks (`CEWithChunkedOutputLoss`) and may configure a fused AdamW; the rows do not say which, and batchfit maps `torch.optim.AdamW` to its default foreach implementation and counts full FP32 logits.",
    "**Gradients that outlive the step.** batchfit follows PyTorch's lifetime: the backward pass creates the gradients as it frees the activations, and `zero_grad(set_to_none=True)` (the default since PyTorch 2.0) drops them after the step; rows with gradient accumulation get a `global_batch`, which keeps them alive through the later micro-batches, `framework=megatron` keeps Megatron-LM's gradient buffer alive for the whole run (`zero_grad=zeros`), and the `lightning_*` profiles keep the previous step's gradients through the forward pass, where Lightning's Trainer clears them just before the backward pass (`zero_grad=after_forward`). Gradients under `zero_grad(set_to_none=False)`, the default before PyTorch 2.0, which the Hugging Face BERT rows (C002, C005, V012, V014, published in 2022, versions not stated) may have run, are not in their queries: batchfit is low by the gradients there.",
    "**Megatron-LM beyond its profile.** `framework=megatron` counts a BF16 model (`recipe=main_fp32`: 16-bit residual stream, no per-op casts, BF16 parameters kept through the step), FP32 main gradients in a buffer alive at every moment, fused norms and the vocab-parallel loss (docs/frameworks.md). The BF16 gradient each weight gets before it is added into the FP32 buffer under `--no-gradient-accumulation-fusion`, which every functional-test row ran with, is `grad_accum_fusion=0` (the head's in its backward, a layer's and a tied head's beside each layer's); it moves no row whose loss's tensors set the peak. With the fusion (`grad_accum_fusion=1`, Megatron-LM's default) the profile counts Transformer Engine's cached dummy weight gradients, one 16-bit tensor per distinct weight shape held from the first backward pass on: V277 (Megatron-SWIFT, the fusion not turned off in its registered query) moves from −13.0 % to −12.2 %. The pre-registered functional-test rows V304–V310 ran with `--no-gradient-accumulation-fusion`, a setting the URL format gained after their registration: their queries are restated with `grad_accum_fusion=0` appended (the protocol above), so they count no dummies, and give the bytes they gave before the fusion was modelled. Counted on their registered queries, which leave the fusion on, they would have moved towards their readings for a reason those runs do not have (V304 −4.0 % → −2.4 %, V305 −5.3 % → −3.2 %, V306 −2.2 % → −0.9 %, V307 −7.9 % → −7.0 %, V308 −3.8 % → −1.2 %, V309 −5.1 % → −2.5 %, V310 −2.2 % → −0.7 %). Not counted: the distributed optimizer's bucket padding, and the rows' unfused attention's FP32 softmax where its fused kernel does not run.",
    "**Learned positions for Megatron and GPTBigCode rows** are taken as the trained sequence length (the rows do not give the maximum), a difference of at most positions × hidden parameters.",
];

/// The phase of a training step that set a measured peak: the largest of the
/// last step's per-phase peaks (`measure.py` resets the peak statistics between
/// `model(...)`, `loss.backward()` and `opt.step()`), or generation.
fn measured_phase(row: &Row<'_>) -> Result<&'static str, String> {
    if row.get("mode") == "inference" {
        return Ok("generation");
    }
    let mut best = ("forward", 0u128);
    for (column, phase) in [
        ("peak_forward", "forward"),
        ("peak_backward", "backward"),
        ("peak_step", "optimizer step"),
    ] {
        let bytes = whole_bytes(row, column)?;
        if bytes > best.1 {
            best = (phase, bytes);
        }
    }
    Ok(best.0)
}

/// batchfit's moment of the peak in the words of the measured phases:
/// `loss.backward()` starts with the loss's gradient, so batchfit's `loss`
/// moment falls in the measured backward phase.
fn estimated_phase(phase: Phase) -> &'static str {
    match phase {
        Phase::Forward => "forward",
        Phase::Loss | Phase::Backward => "backward",
        Phase::OptimizerStep => "optimizer step",
        Phase::Generation => "generation",
    }
}

/// A column of whole bytes.
fn whole_bytes(row: &Row<'_>, column: &str) -> Result<u128, String> {
    let text = row.get(column);
    text.parse()
        .map_err(|_| format!("`{column}` is {text:?}, not a whole number of bytes"))
}

/// One GPU run compared with batchfit.
struct GpuCompared {
    id: String,
    run: String,
    query: String,
    /// (recipe, attention, model, mode), the factors the medians are split by.
    factors: [String; 4],
    allocated: (u128, u128),
    reserved: (u128, u128),
    phases: (&'static str, &'static str),
}

impl GpuCompared {
    fn allocated_error(&self) -> f64 {
        percent_error(self.allocated.1 as f64, self.allocated.0 as f64)
    }

    fn reserved_error(&self) -> f64 {
        percent_error(self.reserved.1 as f64, self.reserved.0 as f64)
    }
}

/// A readable summary of a GPU run: model, mode, recipe, optimizer and step,
/// recomputation, attention kernel, batch × tokens.
fn gpu_run(row: &Row<'_>) -> String {
    let model = row.get("model");
    let (b, s) = (row.get("batch"), row.get("seq"));
    if row.get("mode") == "inference" {
        return format!(
            "{model}, generate, {}, {b} × ({s} + {} generated)",
            row.get("recipe"),
            row.get("gen")
        );
    }
    let recompute = match row.get("recompute") {
        "none" => String::new(),
        other => format!(", recompute {other}"),
    };
    format!(
        "{model}, {}, {} {}{recompute}, {}, {b} × {s}",
        row.get("recipe"),
        row.get("optimizer"),
        row.get("step"),
        row.get("attn"),
    )
}

/// The environment line of `gpu-environment.json`.
fn environment(text: &str) -> Result<String, String> {
    let doc = json::parse(text).map_err(|e| format!("gpu-environment.json: {e}"))?;
    let text_of = |key: &str| match doc.get(key) {
        Some(Json::String(s)) => Ok(s.clone()),
        Some(Json::Number(n)) => Ok(format!("{n}")),
        _ => Err(format!("gpu-environment.json has no `{key}`")),
    };
    let bytes_of = |key: &str| match doc.get(key) {
        Some(Json::Number(n)) if *n >= 0.0 && n.fract() == 0.0 => Ok(*n as u128),
        _ => Err(format!("gpu-environment.json: `{key}` is not a byte count")),
    };
    let allocator = match text_of("allocator_conf")?.as_str() {
        "" => "the default caching allocator (`PYTORCH_CUDA_ALLOC_CONF` unset)".to_owned(),
        conf => format!("`PYTORCH_CUDA_ALLOC_CONF={conf}`"),
    };
    let total = bytes_of("total_bytes")?;
    let context = bytes_of("context_bytes")?;
    Ok(format!(
        "{} ({} = {total} bytes), PyTorch {}, CUDA {}, transformers {}, Python {}, {allocator}; \
         CUDA context {} ({context} bytes); measured {}.",
        text_of("gpu")?,
        format_bytes(total, Units::Binary),
        text_of("torch")?,
        text_of("cuda")?,
        text_of("transformers")?,
        text_of("python")?,
        format_bytes(context, Units::Binary),
        text_of("date")?,
    ))
}

/// The source of our own GPU runs, as the validation range counts sources.
const GPU_SOURCE: &str = "batchfit's own GPU runs (validation/gpu-measurements.csv)";

/// The Markdown section for our own GPU measurements in `csv`, run in the
/// environment `environment_json`, with a validation sample of each reading
/// of each run.
pub fn gpu_evaluate(csv: &str, environment_json: &str) -> Result<Evaluated, String> {
    let records = read_csv(csv)?;
    let (header, rows) = records.split_first().ok_or("the GPU CSV is empty")?;
    let mut compared = Vec::new();
    let mut failed = Vec::new();
    let mut samples = Vec::new();
    for fields in rows {
        let row = Row { header, fields };
        let id = row.get("id").to_owned();
        if !row.get("error").is_empty() {
            failed.push((id, gpu_run(&row), row.get("error").to_owned()));
            continue;
        }
        let text = row.get("query").to_owned();
        let parsed = query::parse(&text);
        if let Some(problem) = parsed.problems.first() {
            return Err(format!("row {id}: the query {text} is invalid: {problem}"));
        }
        let e = memory::estimate(&parsed.config);
        let measured = |column| whole_bytes(&row, column).map_err(|e| format!("row {id}: {e}"));
        for (reading, column) in [
            (Reading::Allocated, "peak_allocated"),
            (Reading::Reserved, "peak_reserved"),
        ] {
            let profile = parsed.config.transformer.framework;
            let bytes = measured(column)? as f64;
            samples.extend(sample(GPU_SOURCE, reading, &e, profile, bytes, 1.0));
        }
        compared.push(GpuCompared {
            run: gpu_run(&row),
            factors: ["recipe", "attn", "model", "mode"].map(|c| row.get(c).to_owned()),
            allocated: (measured("peak_allocated")?, e.peak_allocated),
            reserved: (measured("peak_reserved")?, e.peak_reserved),
            phases: (
                measured_phase(&row).map_err(|e| format!("row {id}: {e}"))?,
                estimated_phase(e.peak_phase),
            ),
            query: text,
            id,
        });
    }
    let medians = |rows: &[&GpuCompared]| {
        let of = |error: fn(&GpuCompared) -> f64, absolute: bool| {
            let errors: Vec<f64> = rows
                .iter()
                .map(|c| error(c))
                .map(|e| if absolute { e.abs() } else { e })
                .collect();
            median(&errors).unwrap_or(0.0)
        };
        (
            of(GpuCompared::allocated_error, true),
            of(GpuCompared::reserved_error, true),
            of(GpuCompared::allocated_error, false),
        )
    };
    let all: Vec<&GpuCompared> = compared.iter().collect();
    let (allocated, reserved, signed) = medians(&all);
    let same_phase = compared.iter().filter(|c| c.phases.0 == c.phases.1).count();

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "\n# Our own measurements on a GPU\n");
    let _ = writeln!(
        w,
        "Generated by `cargo xtask accuracy` from `validation/gpu-measurements.csv` and \
         `validation/gpu-environment.json`, which `python3 validation/gpu/measure.py OUT` wrote on a \
         GPU machine (the script says exactly what each run does; `validation/SOURCES.md` describes \
         the data set). Each run builds a model from its published configuration with random weights \
         on the GPU and trains it for three steps with a plain PyTorch loop (`loss = model(**batch).loss` \
         with Hugging Face's own loss, `loss.backward()`, `opt.step()`, `opt.zero_grad(set_to_none=True)`; \
         `torch.autocast` to BF16 over FP32 weights for `amp`, the model in BF16 for `bf16`), or \
         generates with `model.generate`. Measured: `torch.cuda.max_memory_allocated()` and \
         `max_memory_reserved()` over the steps, compared with batchfit's peak allocated and peak \
         reserved for the row's query (the CUDA context is in neither); and the phase of the last step \
         whose peak was the largest, compared with batchfit's `peak_phase` (batchfit's `loss` moment is \
         the start of `loss.backward()`). No constant in batchfit was fitted to these rows.\n"
    );
    let _ = writeln!(w, "**Environment.** {}\n", environment(environment_json)?);
    let _ = writeln!(
        w,
        "**Median absolute error: {allocated:.1} % (peak allocated), {reserved:.1} % (peak reserved)** \
         over {} runs ({} failed, listed below); median signed error of peak allocated {signed:+.1} %. \
         batchfit names the measured phase of the peak in {same_phase} of {} runs.\n",
        compared.len(),
        failed.len(),
        compared.len()
    );
    let _ = writeln!(
        w,
        "| factor | value | runs | median \\|error\\| allocated | median \\|error\\| reserved | median signed error allocated |"
    );
    let _ = writeln!(w, "|---|---|---:|---:|---:|---:|");
    for (index, factor) in ["recipe", "attn", "model", "mode"].iter().enumerate() {
        let mut values: Vec<&str> = compared.iter().map(|c| c.factors[index].as_str()).collect();
        values.sort_unstable();
        values.dedup();
        for value in values {
            let rows: Vec<&GpuCompared> = compared
                .iter()
                .filter(|c| c.factors[index] == value)
                .collect();
            let (a, r, s) = medians(&rows);
            let _ = writeln!(
                w,
                "| {factor} | {} | {} | {a:.1} % | {r:.1} % | {s:+.1} % |",
                escape(value),
                rows.len()
            );
        }
    }
    let _ = writeln!(
        w,
        "\n| id | run | allocated, measured | batchfit | error | reserved, measured | batchfit | error | peak phase, measured | batchfit | query |"
    );
    let _ = writeln!(w, "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|");
    for c in &compared {
        let gib = |bytes: u128| format_bytes(bytes, Units::Binary);
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {:+.1} % | {} | {} | {:+.1} % | {} | {} | `{}` |",
            c.id,
            escape(&c.run),
            gib(c.allocated.0),
            gib(c.allocated.1),
            c.allocated_error(),
            gib(c.reserved.0),
            gib(c.reserved.1),
            c.reserved_error(),
            c.phases.0,
            c.phases.1,
            c.query
        );
    }
    if !failed.is_empty() {
        let _ = writeln!(w, "\n## Runs that did not complete\n");
        for (id, run, error) in &failed {
            let _ = writeln!(w, "- {id} ({}): {}", escape(run), escape(error));
        }
    }
    let _ = writeln!(
        w,
        "\n## What these runs show that batchfit does not model\n"
    );
    for note in GPU_NOTES {
        let _ = writeln!(w, "- {note}");
    }
    Ok(Evaluated { text: out, samples })
}

/// Causes the GPU runs reveal that batchfit does not encode, each with its
/// source and its size measured in the runs of 2026-11-29 (the phase columns of
/// `validation/gpu-measurements.csv`).
const GPU_NOTES: &[&str] = &[
    "**Two causes these runs showed are modelled now** (issue 15), from the models' code, not from the rows: GPT-2's `gelu_new` (transformers `activations.py`, `NewGELUActivation`: element-wise operations that each save a tensor, 16 bytes per FFN unit and token under autocast where a fused GELU keeps 4; G001 saved 66,200 bytes per token and layer, the 12 × 3,072 bytes of difference over 12 layers and 8,192 tokens 3.62 GB), `mlp=gelu_new`, and one autocast cast per projection that reads a norm's output (6 bytes × hidden per token and layer for Llama and Qwen, 4 for ViT's separate Q, K, V), `fused_proj`. The GPT-2 and `amp` rows above are counted with both.",
    "**Autocast's copies under full recomputation are modelled now** (issue 15), from PyTorch's source, not from the rows: autocast's cache (`aten/src/ATen/autocast_mode.cpp` `cached_cast`) holds every weight's 16-bit copy until the autocast region exits, checkpointed layers save none (`torch/utils/checkpoint.py`), so at the loss only the head's copy and, once recomputation starts, one layer's are alive, and the end of the forward pass is a moment of its own (docs/model.md §3.3). Before: G030 +6.4 %, G021 +2.9 %, G012 +1.4 %; the table above is counted with it. The forward pass of G030 left 5,970,706,944 bytes allocated: batchfit's saved tensors plus the head's copy, within 1.2 MB. It moves the published rows with full recomputation under autocast the wrong way, all of them already below their measurement: V011 −0.1 % → −0.8 %, V013 −2.7 % → −3.8 %, V015 −0.2 % → −1.2 % (BERT-large, nvidia-smi through NVML), V080 −50.6 % → −54.2 % and V144 −30.9 % → −32.4 %; their sources do not say which moment set their peak, and what they lack is not this term (the pooled median of the sources the model was written against goes from 3.0 % to 3.4 %, their median over sources stays 1.5 %).",
    "**The backward pass's working tensors are modelled now** (issue 15), from PyTorch's source, not from the rows: while a layer runs its backward pass the autograd engine holds the residual stream's gradient, waiting in the input buffer of the layer's input until the branch's gradient is added into it in place (`torch/csrc/autograd/engine.cpp` `Engine::evaluate_function`, `input_buffer.cpp` `accumulate`), and the largest set of the layer's own gradients alive at once: the FFN activation's incoming and returned gradients (GELU's two, the gated product's three, `gelu_new`'s last product's three in FP32 under autocast) or the attention core's (eager attention's softmax, two seq × seq tensors per head), as `tools/autograd/derivatives.yaml` writes each backward (docs/model.md §3.3). For ViT-B/16 at batch 32 (G039) that is 96,829,440 bytes beside every saved tensor, 77,463,552 more than the final norm's input that the start of the backward pass held before. Before: G039 −6.3 %, G040 −4.5 %, G041 −5.1 %, G035–G038 (BERT-large) −2.0 %, −1.2 %, −1.2 %, −1.3 %; the table above is counted with it. G039's backward pass peaked 140,426,432 bytes above what its forward pass left (with the FP32 weights and AdamW's two FP32 moments held): the 62,962,880 bytes this term did not count, 1.7 % of the peak, were what was left, among them the gradients the backward pass has created by then (the head's, the layer's own), which the next entry counts. The published BERT-large rows move towards their measurements (C002 −16.5 % → −15.5 %, C005 −20.6 % → −19.5 %, V009 −4.6 % → −4.2 %, V010 −2.8 % → −2.2 %, V012 and V014 −19.3 % → −18.1 % and −18.2 %, V023 −12.3 % → −11.6 %). A decoder's loss tensors are larger than the working tensors: decoder rows move only where a recomputed layer's set already exceeded them (V050 −56.4 % → −56.0 %, V051 −70.0 % → −69.7 %). It moves the pre-registered timm ViT-H rows of pytorch/ao's low-bit optimizers README the wrong way, all at or above their measurement already: V070 −0.1 % → +0.2 %, V071 +1.4 % → +1.9 %, V072 and V073 +1.2 % → +1.7 % (the source's median stays 4.5 %); and the peak reserved of G037, G038 and G041 from +3.3 %, +0.7 % and −0.4 % to +4.7 %, +2.0 % and +2.5 %, the allocator's 10 % now taken of more transient bytes.",
    "**The gradients beside the layer in flight are modelled now** (issue 15), from PyTorch's source, not from the rows: `AccumulateGrad` takes the largest sequence number (`torch/csrc/autograd/functions/accumulate_grad.cpp`) and the engine's ready queue runs the highest first (`torch/csrc/autograd/engine.h`, `CompareNodeTaskTime`), so each weight's gradient is in `.grad` as soon as its product's backward returns it, and when the last layer reaches its largest working set the gradients above the layers (the head's, the final norm's; BERT's pooler and classifier, a ViT's classifier) and the layer's own whose backward ran first (before GELU's set, the FFN's output matrix; before the attention core's, the whole FFN, the output projection and the norms after it) are alive with every saved tensor; batchfit counts both moments and takes the larger at the batch (docs/model.md §3.3). A weight's 16-bit gradient under autocast is not among them: its cast's backward runs before the activation's (the cast was made after it in the forward pass). For G039 that is 12,522,400 bytes: of the 62,962,880 bytes the backward pass held beyond the modelled terms, 50,440,480 are left, 1.3 % of the peak (the comparison table's `backward_workspace` row). Before → after, peak allocated: G035 −1.0 % → −0.7 %, G036 −0.5 % → −0.2 %, G039 −4.3 % → −4.0 %, G040 −1.4 % → −1.1 %, G041 −2.3 % → −2.2 %; the wrong way, past their measurements: G037 +0.0 % → +0.2 % and G038 (BERT-large, eager attention, where the attention core's set comes after the whole FFN's gradients) −0.1 % → +0.3 %. Peak reserved: G035, G036, G039, G040 towards their measurements (−4.7 % → −4.4 %, −0.9 % → −0.5 %, −5.4 % → −5.1 %, −1.4 % → −1.2 %), G037, G038, G041 away (+4.7 % → +4.9 %, +2.0 % → +2.4 %, +2.5 % → +2.6 %). The published BERT-large rows move towards their measurements (C002 −15.5 % → −15.2 %, C005 −19.5 % → −19.2 %, V012 −18.1 % → −17.7 %, V014 −18.2 % → −17.8 %); the pre-registered timm ViT-H rows of pytorch/ao's low-bit optimizers README the wrong way, all above their measurement already (V070 +0.2 % → +0.5 %, V071 +1.9 % → +2.3 %, V072 and V073 +1.7 % → +2.2 %; at their batch of 8 the attention core's moment, after the whole FFN's gradients, is the larger). A decoder's loss tensors are larger than its last layer's set with these gradients: no decoder row moves.",
    "**The end of the backward pass is modelled now** (issue 15), from PyTorch's source, not from the rows: the embedding's backward runs last, beside every gradient, with its incoming gradient (the residual stream's) alive, and for a tied embedding `embedding_dense_backward`'s vocab × hidden gradient is added into the input buffer that has held the head's gradient of the same weight (`torch/csrc/autograd/input_buffer.cpp` `accumulate`), a second copy until the addition returns (docs/model.md §3.3). It sets the peak where the optimizer step adds less than it (a fused step, SGD, optimizers without state temporaries): GPT-2 under autocast with fused AdamW at 1 × 128 tokens peaks there, 2,145,819,648 bytes. Before → after, peak allocated: G007 −0.2 % → −0.1 % (reserved −3.4 % → −3.3 %), and the pre-registered timm ViT-g rows of pytorch/ao's low-bit optimizers README, all towards their measurements: V075 −7.6 % → −7.3 %, V076 −4.5 % → −4.2 %, V077 −13.4 % → −12.9 %, V079 −8.3 % → −8.1 %, V080 −54.2 % → −53.6 % (the source's median 4.5 % → 4.2 %). No row moves the wrong way. The same session's MoE change (a MoE layer's shared experts cast the FP32 norm output once per first projection under autocast, as a dense layer's gate and up do) moves no row: no validation row trains a MoE model with shared experts under autocast.",
    "**Allocator slack.** The caching allocator reserved 1.2 % to 27.8 % more than the peak allocated (median 5.3 %), the most with full recomputation (G030, G021), where recomputed layers allocate and free differently sized tensors; batchfit adds a fixed 10 % of the step's transient bytes (docs/model.md §4), a judgement not fitted to these rows.",
];

fn short_metric(row: &Row<'_>) -> String {
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

fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(csv: &str, preregistered_csv: &str) -> Result<String, String> {
        evaluate(csv, preregistered_csv).map(|e| e.text)
    }

    fn gpu_report(csv: &str, environment_json: &str) -> Result<String, String> {
        gpu_evaluate(csv, environment_json).map(|e| e.text)
    }

    #[test]
    fn csv_fields_may_hold_quotes_commas_and_newlines() {
        let text = "id,model,notes\r\nC1,\"bert, large\",\"say \"\"hi\"\"\nagain\"\n\nC2,gpt2,\n";
        let records = read_csv(text).expect("valid CSV");
        assert_eq!(
            records,
            vec![
                vec!["id".to_owned(), "model".into(), "notes".into()],
                vec![
                    "C1".to_owned(),
                    "bert, large".into(),
                    "say \"hi\"\nagain".into()
                ],
                vec!["C2".to_owned(), "gpt2".into(), String::new()],
            ]
        );
        assert!(read_csv("a,\"b\n").is_err());
        assert!(read_csv("a,b\"c\n").is_err());
    }

    #[test]
    fn errors_and_medians() {
        assert_eq!(percent_error(110.0, 100.0), 10.0);
        assert_eq!(percent_error(90.0, 100.0), -10.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn units_convert_to_bytes() {
        assert_eq!(measured_bytes("14949", "MiB"), Ok(14949.0 * 1_048_576.0));
        assert_eq!(
            measured_bytes("2506.73664", "MB (1e6 B)"),
            Ok(2_506_736_640.0)
        );
        assert_eq!(measured_bytes("14.38", "GiB"), Ok(14.38 * 1_073_741_824.0));
        assert_eq!(measured_bytes("4702430720", "bytes"), Ok(4_702_430_720.0));
        assert!(measured_bytes("1", "furlongs").is_err());
    }

    const HEADER: &str = "id,source,source_ref,model,params,layers,hidden,heads,kv_heads,ffn,vocab,seq_len,mode,finetune_type,precision,optimizer,micro_batch,grad_accum,grad_ckpt,attention,num_gpus,sharding,gpu,value,unit,metric,incl_cuda_ctx,reliability,notes";

    #[test]
    fn rows_become_queries_and_like_is_compared_with_like() {
        let csv = format!(
            "{HEADER}\n\
             C002,HF,ref,\"bert-large-uncased (SeqCls, 2 labels)\",335.1M,24,1024,16,16,4096,30522,512,train,full,fp32,\"AdamW (HF adamw_hf, fp32 states)\",4,1,off,eager (BERT 2022),1,none,V100,14949,MiB,pynvml (= nvidia-smi; device-wide),yes (ctx alone = 1343 MiB),A,\n\
             C070,Qwen,ref,Qwen2.5-7B-Instruct,7.62B,28,3584,28,4,18944,152064,1 prompt + 2048 generated,\"inference (generate)\",n/a,bf16,none,1,,n/a,FlashAttention-2,1,none,A100,14.38,GiB,sum_i torch.cuda.max_memory_allocated(i),no,A,\n\
             V009,HF,ref,\"bert-large-uncased (SeqCls, 2 labels)\",335.1M,24,1024,16,16,4096,30522,512,train,full,fp32,\"AdamW (HF adamw_hf, fp32 states)\",1,4,off,eager (BERT 2022),1,none,V100,8681,MiB,pynvml (= nvidia-smi; device-wide),yes (ctx alone = 1343 MiB),A,\n\
             V027,HF,ref,mistralai/Mistral-7B-v0.1,7.24B,32,4096,32,8,14336,32000 (untied),4096 (packed),train (SFT),LoRA r=16,pure bf16,AdamW,4,1,on,FlashAttention-2,1,none,A100,26704571904,bytes,tracker,no,A,\n"
        );
        let report = report(&csv, "").expect("a report");
        assert!(report.contains("| C002 |"), "{report}");
        assert!(report.contains("kind=encoder&positions=512&token_types=2&labels=2&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=0"), "{report}");
        assert!(
            report.contains("(reserved + 1.312 GiB CUDA context)"),
            "{report}"
        );
        assert!(
            report.contains("mode=inference&seq=1&gen=2048&recipe=bf16"),
            "{report}"
        );
        assert!(
            report.contains("- V027 (mistralai/Mistral-7B-v0.1): LoRA/QLoRA"),
            "{report}"
        );
        assert!(
            report.contains("3 rows compared, 1 not comparable"),
            "{report}"
        );
        // No pre-registered row: the headline says so, and the two sources
        // (HF docs, Qwen) are both ones the model was written against.
        assert!(
            report.contains("No pre-registered source has a comparable row yet."),
            "{report}"
        );
        assert!(
            report.contains(
                "- Sources the model was written against, the current model: median over 2 sources"
            ),
            "{report}"
        );
        // Four micro-batches of one accumulate: the global batch says so.
        let v009 = report
            .lines()
            .find(|l| l.starts_with("| V009 |"))
            .expect("row");
        assert!(v009.contains("&batch=1&global_batch=4`"), "{v009}");
        assert!(
            report.contains("our own measurements on an H200"),
            "{report}"
        );
        // C070: 7.62B BF16 weights (14.18 GiB) + KV cache + prefill, against 14.38 GiB.
        let c070 = report
            .lines()
            .find(|l| l.starts_with("| C070 |"))
            .expect("row");
        assert!(
            c070.contains("| 14.38 GiB | 14.30 GiB | -0.6 % |"),
            "{c070}"
        );
        // Qwen's benchmark runs `generate`: the hf_generate profile, which
        // changes nothing the row does not already state.
        assert!(
            c070.contains("| `framework=hf_generate` | 14.30 GiB | -0.6 % |"),
            "{c070}"
        );

        // The validation samples: one per compared row, by the reading it
        // measured. A device-wide row is compared with batchfit's own
        // nvidia-smi reading (what the range is applied to), not with the
        // reserved bytes plus the context the source measured; a row of a
        // stack with a profile with the profile's estimate.
        let samples = evaluate(&csv, "").expect("a report").samples;
        let query_of = |line: &str| {
            let text = line.rsplit('`').nth(1).expect("a query").to_owned();
            query::parse(&text).config
        };
        let c002 = report
            .lines()
            .find(|l| l.starts_with("| C002 |"))
            .expect("row");
        let e002 = memory::estimate(&query_of(c002));
        let mut with_profile = query_of(c070);
        Framework::HfGenerate.apply(&mut with_profile.transformer);
        let e070 = memory::estimate(&with_profile);
        assert_eq!(
            samples,
            vec![
                Sample {
                    source: "HF".into(),
                    reading: Measured::NvidiaSmi,
                    profile: Framework::Custom,
                    measured: 14949.0 * 1_048_576.0,
                    predicted: e002.nvidia_smi as f64,
                },
                Sample {
                    source: "Qwen".into(),
                    reading: Measured::Allocated,
                    profile: Framework::HfGenerate,
                    measured: 14.38 * 1_073_741_824.0,
                    predicted: e070.peak_allocated as f64,
                },
                Sample {
                    source: "HF".into(),
                    reading: Measured::NvidiaSmi,
                    profile: Framework::Custom,
                    measured: 8681.0 * 1_048_576.0,
                    predicted: memory::estimate(&query_of(v009)).nvidia_smi as f64,
                },
            ]
        );
    }
    #[test]
    fn summaries_give_median_worst_and_shares() {
        // |errors| 5, 20, 8, 40: median (8 + 20) / 2 = 14; the worst is -40;
        // 5 and 8 are within 10 % (2 of 4), 5, 8 and 20 within 30 % (3 of 4).
        let s = summarize(&[5.0, -20.0, 8.0, -40.0]).expect("rows");
        assert_eq!(
            s,
            Summary {
                rows: 4,
                median: 14.0,
                worst: -40.0,
                within_10: 0.5,
                within_30: 0.75,
            }
        );
        // The limits are inclusive: 10 is within 10 %, 30.5 is not within 30 %.
        let s = summarize(&[10.0, -30.0, 30.5]).expect("rows");
        assert_eq!((s.median, s.worst), (30.0, 30.5));
        assert_eq!((s.within_10, s.within_30), (1.0 / 3.0, 2.0 / 3.0));
        assert_eq!(summarize(&[]), None);
    }

    #[test]
    fn the_headline_is_the_median_of_per_source_medians() {
        let groups = group_by([
            ("A", 1.0),
            ("B", 20.0),
            ("A", -3.0),
            ("C", -50.0),
            ("A", 10.0),
            ("C", 40.0),
        ]);
        // Groups keep the order in which their sources first appear.
        assert_eq!(
            groups,
            vec![
                ("A", vec![1.0, -3.0, 10.0]),
                ("B", vec![20.0]),
                ("C", vec![-50.0, 40.0]),
            ]
        );
        // Per-source medians of |error|: A 3, B 20, C (40 + 50) / 2 = 45; their
        // median is 20, where the six rows pooled give (10 + 20) / 2 = 15.
        let h = headline(&groups).expect("a headline");
        assert_eq!(h.sources, 3);
        assert_eq!(h.median_of_medians, 20.0);
        assert_eq!(h.rows.rows, 6);
        assert_eq!(h.rows.median, 15.0);
        assert_eq!(h.rows.worst, -50.0);
        // 1, 3, 10 within 10 % (3 of 6); 20 too within 30 % (4 of 6).
        assert_eq!((h.rows.within_10, h.rows.within_30), (0.5, 4.0 / 6.0));
        // An even number of sources: the mean of the middle two medians.
        let two = headline(&group_by([("A", 2.0), ("B", -6.0), ("B", 6.0)])).expect("a headline");
        assert_eq!(two.median_of_medians, 4.0);
        assert_eq!(headline::<&str>(&[]), None);
    }

    #[test]
    fn sources_are_keyed_by_their_name_before_the_parenthesis() {
        assert_eq!(
            source_key(
                "HF transformers docs 'Efficient Training on a Single GPU' (perf_train_gpu_one, ~v4.20-4.30) + 'Model training anatomy'"
            ),
            source_key(
                "HF transformers docs 'Efficient Training on a Single GPU' (perf_train_gpu_one, ~v4.20-4.30); same experiment series as C002/C005"
            ),
        );
        assert_eq!(
            source_key("NVIDIA/Megatron-LM functional-test golden values"),
            "NVIDIA/Megatron-LM functional-test golden values"
        );
    }

    const PREREG_HEADER: &str = "id,source,stack,predicted_at,query,reading,gpus_summed,predicted,comparable,reason,base_query";

    #[test]
    fn preregistered_rows_are_checked_when_read() {
        let good = format!(
            "{PREREG_HEADER}\n\
             P1,S,st,abc,form=transformer,reserved,2,123,yes,,\n\
             P2,S,st,abc,,allocated,,,no,LoRA is not modelled,form=transformer\n"
        );
        let rows = read_preregistered(&good).expect("valid");
        assert_eq!(rows[0].reading, Reading::Reserved);
        assert_eq!((rows[0].gpus_summed, rows[0].predicted), (2, Some(123.0)));
        assert_eq!((rows[1].gpus_summed, rows[1].predicted), (1, None));
        assert_eq!(rows[1].reason, "LoRA is not modelled");
        assert_eq!(read_preregistered(""), Ok(Vec::new()));
        let bad = |line: &str| read_preregistered(&format!("{PREREG_HEADER}\n{line}\n")).is_err();
        // A comparable row needs a query and a prediction in whole bytes.
        assert!(bad("P1,S,st,abc,,allocated,1,123,yes,,"));
        assert!(bad("P1,S,st,abc,form=transformer,allocated,1,,yes,,"));
        assert!(bad("P1,S,st,abc,form=transformer,allocated,1,1.5e9,yes,,"));
        // One that is not comparable says why and predicts nothing.
        assert!(bad("P1,S,st,abc,,allocated,1,,no,,"));
        assert!(bad("P1,S,st,abc,,allocated,1,123,no,why,"));
        assert!(bad("P1,S,st,abc,form=transformer,peak,1,123,yes,,"));
        assert!(bad("P1,S,st,abc,form=transformer,allocated,0,123,yes,,"));
        assert!(bad("P1,S,st,abc,form=transformer,allocated,1,123,maybe,,"));
    }

    #[test]
    fn preregistered_rows_show_before_and_after_by_source() {
        let llama =
            "form=transformer&model=llama-2-7b&mode=inference&seq=6&gen=50&recipe=bf16&batch=1";
        let csv = format!(
            "{HEADER}\n\
             C070,Qwen,ref,Qwen2.5-7B-Instruct,7.62B,28,3584,28,4,18944,152064,1 prompt + 2048 generated,\"inference (generate)\",n/a,bf16,none,1,,n/a,FlashAttention-2,1,none,A100,14.38,GiB,sum_i torch.cuda.max_memory_allocated(i),no,A,\n\
             P001,Lit (table one),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,1,none,A100,10,GB,max_memory_allocated,no,B,\n\
             P002,Lit (table two),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,2,none,A100,20,GB,not stated,no,C,\n\
             P003,Lit (table three),ref,Llama 2 7B LoRA,7B,32,4096,32,32,11008,32000,1304,train,LoRA,bf16,AdamW,1,,off,sdpa,1,none,A100,30,GB,max_memory_allocated,no,B,\n"
        );
        let prereg = format!(
            "{PREREG_HEADER}\n\
             P001,Lit,Lit stack,abcdef1234567890,{llama},allocated,1,9000000000,yes,,\n\
             P002,Lit,Lit stack,abcdef1234567890,{llama},reserved,2,26000000000,yes,,\n\
             P003,Lit,LoRA stack,abcdef1234567890,,allocated,1,,no,LoRA is not modelled,\n"
        );
        let report = report(&csv, &prereg).expect("a report");
        let e = memory::estimate(&query::parse(llama).config);
        // Before: P001 9 GB against 10 GB is -10 %, P002 26 GB against 20 GB
        // +30 %; the one pre-registered source's median is 20 %, 1 of 2 rows
        // within 10 %, both within 30 %.
        assert!(
            report.contains("**On a stack the validation set does not cover, expect a median error of 20.0 %:** the median over the 1 pre-registered source"),
            "{report}"
        );
        assert!(report.contains("(at `abcdef12`); 50 % of their 2 comparable rows are within 10 % and 100 % within 30 % (1 of those rows come from sources that do not state their metric)"), "{report}");
        assert!(
            report.contains("- Pre-registered sources, predictions at registration: median over 1 source 20.0 %; 2 rows, 50 % within 10 %, 100 % within 30 %; pooled median over rows 20.0 %."),
            "{report}"
        );
        // After: the current model on the same queries, P002 summed over two GPUs'
        // peak reserved.
        let after = [
            percent_error(e.peak_allocated as f64, 10e9),
            percent_error(2.0 * e.peak_reserved as f64, 20e9),
        ];
        let now = summarize(&after).expect("rows");
        let source = report
            .lines()
            .find(|l| l.starts_with("| Lit | pre-registered at `abcdef12` |"))
            .unwrap_or_else(|| panic!("no source line in {report}"));
        assert!(
            source.contains(&format!(
                "| Lit stack; LoRA stack | 2 of 3 | 20.0 % | +30.0 % | {:.1} % | {:+.1} % |",
                now.median, now.worst
            )),
            "{source}"
        );
        // The source written against is reported apart, with no "before".
        assert!(
            report
                .contains("| Qwen | written against | HF transformers generate | 1 of 1 | — | — |"),
            "{report}"
        );
        // Per source and stack: the LoRA row counts as not comparable there.
        assert!(
            report.contains("| Lit | LoRA stack | 0 | 1 | — | — | — | — |"),
            "{report}"
        );
        let p002 = report
            .lines()
            .find(|l| l.starts_with("| P002 | Lit |"))
            .expect("a pre-registered line");
        assert_eq!(
            p002,
            format!(
                "| P002 | Lit | not stated (compared as peak allocated), summed over 2 GPUs | {} | {} (`abcdef12`) | +30.0 % | {} | {:+.1} % |",
                format_bytes(20_000_000_000, Units::Binary),
                format_bytes(26_000_000_000, Units::Binary),
                format_bytes(2 * e.peak_reserved, Units::Binary),
                after[1]
            )
        );
        assert!(
            report.contains("- P003 (pre-registered) (Llama 2 7B LoRA): LoRA is not modelled."),
            "{report}"
        );
        assert!(
            report.contains("3 rows compared, 1 not comparable"),
            "{report}"
        );
        // A prediction for a row that is not in measurements.csv is an error.
        let orphan = format!("{PREREG_HEADER}\nP999,Lit,st,abc,{llama},allocated,1,1,yes,,\n");
        assert!(report_err(&csv, &orphan).contains("P999"));
    }

    const PREREG_AFTER_HEADER: &str = "id,source,stack,predicted_at,query,reading,gpus_summed,predicted,comparable,reason,base_query,query_after,query_after_at,reason_after";

    #[test]
    fn queries_written_after_registration_are_checked_when_read() {
        let good = format!(
            "{PREREG_AFTER_HEADER}\n\
             P1,S,st,abc,form=transformer,allocated,1,123,yes,,,,,\n\
             P2,S,st,abc,,allocated,1,,no,LoRA is not modelled,form=transformer,form=transformer&lora_rank=8,def,\n\
             P3,S,st,abc,,allocated,1,,no,QLoRA is not modelled,,,,paged AdamW is not modelled\n"
        );
        let rows = read_preregistered(&good).expect("valid");
        assert_eq!(
            (rows[0].query_after.as_str(), rows[0].predicted),
            ("", Some(123.0))
        );
        assert_eq!(
            (
                rows[1].query_after.as_str(),
                rows[1].query_after_at.as_str(),
                rows[1].predicted
            ),
            ("form=transformer&lora_rank=8", "def", None)
        );
        assert_eq!(rows[2].reason_after, "paged AdamW is not modelled");
        // The old layout, without the three columns, still reads.
        let old = format!("{PREREG_HEADER}\nP1,S,st,abc,form=transformer,allocated,1,123,yes,,\n");
        assert_eq!(read_preregistered(&old).expect("valid")[0].query_after, "");
        let bad =
            |line: &str| read_preregistered(&format!("{PREREG_AFTER_HEADER}\n{line}\n")).is_err();
        // A row compared at registration keeps its registered query: a later
        // query sets each registered parameter in its order and may append
        // others; a registered value it changes needs a reason_after.
        let row = |after: &str, reason: &str| {
            format!(
                "P1,S,st,abc,form=transformer&batch=2,allocated,1,123,yes,,,{after},def,{reason}"
            )
        };
        for after in [
            "form=transformer&batch=2",
            "form=transformer",
            "batch=2&form=transformer",
            "form=transformer&batch=2&batch=4",
            "form=transformer&batch=4",
        ] {
            assert!(bad(&row(after, "")), "{after}");
        }
        // An appended setting needs no reason, and gets none.
        let appended = "form=transformer&batch=2&grad_accum_fusion=0";
        assert!(bad(&row(appended, "the source sets it")));
        let restated =
            read_preregistered(&format!("{PREREG_AFTER_HEADER}\n{}\n", row(appended, "")))
                .expect("an appended setting is a restatement");
        assert_eq!(
            (restated[0].query_after.as_str(), restated[0].predicted),
            (appended, Some(123.0))
        );
        // A changed value, with the reason the source gives.
        let changed = "form=transformer&batch=4&recompute=op";
        let restated = read_preregistered(&format!(
            "{PREREG_AFTER_HEADER}\n{}\n",
            row(changed, "the source's policy; a value since def")
        ))
        .expect("a changed value with its reason");
        assert_eq!(
            restated[0].reason_after,
            "the source's policy; a value since def"
        );
        assert!(bad(
            "P1,S,st,abc,form=transformer,allocated,1,123,yes,,,,,still fine"
        ));
        // The later query names the commit whose model expresses it, and back.
        assert!(bad("P2,S,st,abc,,allocated,1,,no,LoRA,,form=transformer,,"));
        assert!(bad("P2,S,st,abc,,allocated,1,,no,LoRA,,,def,"));
        // A row with a later query is comparable: no reason after.
        assert!(bad(
            "P2,S,st,abc,,allocated,1,,no,LoRA,,form=transformer,def,why"
        ));
        // The prediction of registration stays empty for it.
        assert!(bad(
            "P2,S,st,abc,,allocated,1,5,no,LoRA,,form=transformer,def,"
        ));
    }

    #[test]
    fn rows_made_comparable_later_count_now_and_never_before() {
        let llama =
            "form=transformer&model=llama-2-7b&mode=inference&seq=6&gen=50&recipe=bf16&batch=1";
        let lora = "form=transformer&model=llama-2-7b&batch=1&seq=512&recipe=bf16&lora_rank=8&lora_dropout=1";
        let estimate = |q: &str| memory::estimate(&query::parse(q).config).peak_allocated;
        let (a, b) = (estimate(llama), estimate(lora));
        // Measured, in bytes: P001 exactly batchfit's reading (0 % now), P002
        // twice it (-50 % now), P003 0.8 of the LoRA query's (+25 % now).
        let m3 = (0.8 * b as f64).round() as u128;
        let csv = format!(
            "{HEADER}\n\
             P001,Lit (table one),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,1,none,A100,{a},bytes,max_memory_allocated,no,B,\n\
             P002,Lit (table two),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,1,none,A100,{},bytes,max_memory_allocated,no,B,\n\
             P003,Lit (table three),ref,Llama 2 7B LoRA,7B,32,4096,32,32,11008,32000,512,train,LoRA,bf16,AdamW,1,,off,sdpa,1,none,A100,{m3},bytes,max_memory_allocated,no,B,\n\
             P004,Lit (table three),ref,Llama 2 7B QLoRA,7B,32,4096,32,32,11008,32000,512,train,QLoRA,bf16,PagedAdamW,1,,off,sdpa,1,none,A100,9,GB,max_memory_allocated,no,B,\n",
            2 * a
        );
        // At registration: P001 predicted 5 % low, P002 20 % high.
        let prereg = format!(
            "{PREREG_AFTER_HEADER}\n\
             P001,Lit,Lit stack,abcdef1234567890,{llama},allocated,1,{},yes,,,,,\n\
             P002,Lit,Lit stack,abcdef1234567890,{llama},allocated,1,{},yes,,,,,\n\
             P003,Lit,LoRA stack,abcdef1234567890,,allocated,1,,no,LoRA is not modelled,,{lora},fedcba9876543210,\n\
             P004,Lit,LoRA stack,abcdef1234567890,,allocated,1,,no,QLoRA is not modelled,,,,paged AdamW is not modelled\n",
            (0.95 * a as f64).round() as u128,
            (1.2 * (2 * a) as f64).round() as u128,
        );
        let report = report(&csv, &prereg).expect("a report");
        let line = |start: &str| {
            report
                .lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no line {start} in {report}"))
                .to_owned()
        };
        // Before: |-5|, |+20| → median 12.5 %, 1 of 2 within 10 %, 2 of 2
        // within 30 %; P003 is not among them.
        assert!(
            report.contains(
                "expect a median error of 12.5 %:** the median over the 1 pre-registered source of"
            ),
            "{report}"
        );
        assert!(report.contains("(at `abcdef12`); 50 % of their 2 comparable rows are within 10 % and 100 % within 30 % (0 of those rows come from sources that do not state their metric). 1 more row became comparable after registration through a change to the model (at `fedcba98`)"), "{report}");
        assert_eq!(
            line("- Pre-registered sources, predictions at registration"),
            "- Pre-registered sources, predictions at registration: median over 1 source 12.5 %; 2 rows, 50 % within 10 %, 100 % within 30 %; pooled median over rows 12.5 %."
        );
        // Now: 0, -50, +25 → median 25 %, 1 of 3 within 10 %, 2 of 3 within 30 %.
        assert_eq!(
            line("- Pre-registered sources, the current model:"),
            "- Pre-registered sources, the current model: median over 1 source 25.0 %; 3 rows (1 of them made comparable by a change to the model since registration, at `fedcba98`), 33 % within 10 %, 67 % within 30 %; pooled median over rows 25.0 %."
        );
        // Now on the two rows of registration: 0, -50 → median 25 %.
        assert_eq!(
            line(
                "- Pre-registered sources, the current model on the rows compared at registration:"
            ),
            "- Pre-registered sources, the current model on the rows compared at registration: median over 1 source 25.0 %; 2 rows, 50 % within 10 %, 50 % within 30 %; pooled median over rows 25.0 %."
        );
        // Per source: "before" over P001 and P002, "now" over all three; the
        // last column compares the same two rows (12.5 % → 25 %: worse).
        assert_eq!(
            line("| Lit | pre-registered"),
            "| Lit | pre-registered at `abcdef12` | Lit stack; LoRA stack | 3 of 4 (1 since `fedcba98`) | 12.5 % | +20.0 % | 25.0 % | -50.0 % | 33 % | 67 % | worse |"
        );
        assert_eq!(
            line("| Lit | Lit stack |"),
            "| Lit | Lit stack | 2 | 0 | 12.5 % | +20.0 % | 25.0 % | -50.0 % |"
        );
        assert_eq!(
            line("| Lit | LoRA stack |"),
            "| Lit | LoRA stack | 1 (1 since `fedcba98`) | 1 | not comparable at registration | not comparable at registration | 25.0 % | +25.0 % |"
        );
        // Per row: compared on its later query, listed with the pre-registered
        // ones, with no prediction at registration.
        assert!(
            line("| P003 | Llama 2 7B LoRA |")
                .ends_with(&format!("| +25.0 % | — | — | — | `{lora}` |"))
        );
        assert_eq!(
            line("| P003 | Lit |"),
            format!(
                "| P003 | Lit | peak allocated | {} | not comparable at registration (query from `fedcba98`) | — | {} | +25.0 % |",
                format_bytes(m3, Units::Binary),
                format_bytes(b, Units::Binary)
            )
        );
        // The row that stays out says why now, and why at registration.
        assert!(
            report.contains("- P004 (pre-registered) (Llama 2 7B QLoRA): paged AdamW is not modelled (at registration: QLoRA is not modelled)."),
            "{report}"
        );
        assert!(
            report.contains("3 rows compared, 1 not comparable"),
            "{report}"
        );
    }

    #[test]
    fn check_fails_when_a_generated_file_is_stale() {
        let root = std::env::temp_dir().join(format!("batchfit-accuracy-{}", std::process::id()));
        let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for dir in ["validation", "docs", "crates/batchfit-core/src/confidence"] {
            std::fs::create_dir_all(root.join(dir)).expect("a temporary directory");
        }
        for file in [
            "validation/measurements.csv",
            "validation/preregistered.csv",
            "validation/gpu-measurements.csv",
            "validation/gpu-environment.json",
        ] {
            std::fs::copy(real.join(file), root.join(file)).expect("a copy");
        }
        // Nothing generated yet: stale; generated: up to date.
        assert!(run(&root, true).expect_err("stale").contains(DOCS_PATH));
        run(&root, false).expect("written");
        run(&root, true).expect("up to date");
        // A hand edit of the table is caught, and only the table is named.
        let table = root.join(confidence::TABLE_PATH);
        let text = std::fs::read_to_string(&table).expect("the table");
        std::fs::write(
            &table,
            text.replace("MIN_ROWS: u32 = 10", "MIN_ROWS: u32 = 9"),
        )
        .expect("written");
        let stale = run(&root, true).expect_err("stale");
        assert!(
            stale.starts_with(&format!("{} differs", confidence::TABLE_PATH)),
            "{stale}"
        );
        std::fs::remove_dir_all(&root).expect("removed");
    }

    fn report_err(csv: &str, prereg: &str) -> String {
        report(csv, prereg).expect_err("an error")
    }

    const GPU_HEADER: &str = "id,model,mode,recipe,optimizer,step,recompute,attn,batch,seq,gen,parameters,weights_allocated,peak_allocated,peak_reserved,device_used,peak_forward,saved_for_backward,peak_backward,gradients_allocated,peak_step,seconds_per_step,error,query";
    const ENVIRONMENT: &str = r#"{"gpu": "NVIDIA H200", "total_bytes": 150109880320, "context_bytes": 552402944, "torch": "2.11.0+cu130", "cuda": "13.0", "transformers": "5.17.0", "python": "3.12.3", "allocator_conf": "", "date": "2026-11-29"}"#;

    #[test]
    fn gpu_rows_compare_both_readings_and_the_phase() {
        let bert = "form=transformer&model=bert-large&dropout=1&labels=2&recipe=fp32&optimizer=adamw&batch=4&seq=512&step=foreach&recompute=none&attn=flash&loss=full&logits=fp32";
        let generate = "form=transformer&model=qwen2.5-0.5b&dropout=0&recipe=bf16&optimizer=none&batch=16&seq=512&mode=inference&gen=256";
        let csv = format!(
            "{GPU_HEADER}\n\
             G035,bert-large,train,fp32,adamw,foreach,none,sdpa,4,512,0,335143938,1410601472,7507341312,8160018432,8974565376,7446497792,3344753664,7507341312,1341387264,6776167936,0.12,,{bert}\n\
             G044,qwen2.5-0.5b,inference,bf16,none,foreach,none,sdpa,16,512,256,494032768,1064872960,1465692160,1541406720,2416771072,,,,,,20.0495,,{generate}\n\
             G051,llama-3.1-8b,train,fp32,adamw,foreach,none,sdpa,64,8192,0,,,,,,,,,,,,\"OutOfMemoryError: CUDA out of memory, tried to allocate 1 GiB\",form=transformer&model=llama-3.1-8b&recipe=fp32&batch=64&seq=8192\n"
        );
        let report = gpu_report(&csv, ENVIRONMENT).expect("a report");
        let config = |q: &str| query::parse(q).config;
        let (e035, e044) = (
            memory::estimate(&config(bert)),
            memory::estimate(&config(generate)),
        );
        let row = |id: &str| {
            report
                .lines()
                .find(|l| l.starts_with(&format!("| {id} |")))
                .unwrap_or_else(|| panic!("no row {id} in {report}"))
                .to_owned()
        };
        // BERT: the backward pass set the measured peak (7,507,341,312 bytes
        // against 7,446,497,792 forward and 6,776,167,936 at the step).
        let g035 = row("G035");
        let allocated = percent_error(e035.peak_allocated as f64, 7_507_341_312.0);
        let reserved = percent_error(e035.peak_reserved as f64, 8_160_018_432.0);
        assert!(
            g035.starts_with(&format!(
                "| G035 | bert-large, fp32, adamw foreach, sdpa, 4 × 512 | 6.992 GiB | {} | {allocated:+.1} % | 7.600 GiB | {} | {reserved:+.1} % | backward | {} |",
                format_bytes(e035.peak_allocated, Units::Binary),
                format_bytes(e035.peak_reserved, Units::Binary),
                estimated_phase(e035.peak_phase),
            )),
            "{g035}"
        );
        assert!(row("G044").contains("| generation | generation |"));
        assert_eq!(e044.peak_phase, Phase::Generation);
        assert!(row("G044").contains("qwen2.5-0.5b, generate, bf16, 16 × (512 + 256 generated)"));
        // A run that failed is listed, not compared.
        assert!(
            report.contains("over 2 runs (1 failed, listed below)"),
            "{report}"
        );
        assert!(
            report.contains(
                "- G051 (llama-3.1-8b, fp32, adamw foreach, sdpa, 64 × 8192): OutOfMemoryError: CUDA out of memory, tried to allocate 1 GiB"
            ),
            "{report}"
        );
        // The medians of two runs are the means of their absolute errors.
        let errors = [
            allocated.abs(),
            percent_error(e044.peak_allocated as f64, 1_465_692_160.0).abs(),
        ];
        assert!(
            report.contains(&format!(
                "**Median absolute error: {:.1} % (peak allocated)",
                (errors[0] + errors[1]) / 2.0
            )),
            "{report}"
        );
        // One line per value of each factor.
        assert!(report.contains("| recipe | bf16 | 1 |"), "{report}");
        assert!(report.contains("| mode | train | 1 |"), "{report}");
        assert!(
            report.contains(
                "NVIDIA H200 (139.80 GiB = 150109880320 bytes), PyTorch 2.11.0+cu130, CUDA 13.0, transformers 5.17.0, Python 3.12.3, the default caching allocator (`PYTORCH_CUDA_ALLOC_CONF` unset); CUDA context 526.81 MiB (552402944 bytes); measured 2026-11-29."
            ),
            "{report}"
        );
        assert!(report.contains("`python3 validation/gpu/measure.py OUT`"));
        // Each run that completed gives a sample of each allocator reading,
        // one source for all of them; the failed run gives none.
        let samples = gpu_evaluate(&csv, ENVIRONMENT).expect("a report").samples;
        let got: Vec<(Measured, f64, f64)> = samples
            .iter()
            .map(|s| (s.reading, s.measured, s.predicted))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    Measured::Allocated,
                    7_507_341_312.0,
                    e035.peak_allocated as f64
                ),
                (
                    Measured::Reserved,
                    8_160_018_432.0,
                    e035.peak_reserved as f64
                ),
                (
                    Measured::Allocated,
                    1_465_692_160.0,
                    e044.peak_allocated as f64
                ),
                (
                    Measured::Reserved,
                    1_541_406_720.0,
                    e044.peak_reserved as f64
                ),
            ]
        );
        assert!(
            samples
                .iter()
                .all(|s| s.source == GPU_SOURCE && s.profile == Framework::Custom)
        );
        // Bad input is an error, not a panic.
        assert!(gpu_report(&csv, "{").is_err());
        assert!(gpu_report(&format!("{GPU_HEADER}\nG1,gpt2,train,amp,adamw,foreach,none,sdpa,8,1024,0,1,1,lots,1,1,1,1,1,1,1,1,,form=transformer"), ENVIRONMENT).is_err());
    }
}
