//! `cargo xtask accuracy`: batchfit's estimates against published measurements.
//!
//! Reads `validation/measurements.csv` (one published peak-memory measurement a
//! row, with its configuration, metric and unit), turns each row into a batchfit
//! transformer query, and writes `docs/accuracy.md` with the error per row and the
//! median absolute percentage error. Like is compared with like: bytes in the
//! row's unit, and the reading that matches the row's metric: `peak_allocated`
//! for allocator statistics, the nvidia-smi reading (reserved + the CUDA context
//! measured in the same source, else batchfit's overhead) for device-wide rows.
//! Rows batchfit cannot represent (LoRA, unpublished prompt lengths) are listed
//! with the reason and left out of the median. No constant is fitted to any row.

use std::fmt::Write as _;
use std::path::Path;

use batchfit_core::memory;
use batchfit_core::query;
use batchfit_core::units::{Units, format_bytes};

/// Regenerates `root/docs/accuracy.md` from `root/validation/measurements.csv`.
pub fn run(root: &Path) -> Result<(), String> {
    let csv_path = root.join("validation/measurements.csv");
    let text = std::fs::read_to_string(&csv_path)
        .map_err(|e| format!("reading {}: {e}", csv_path.display()))?;
    let report = report(&text)?;
    let out = root.join("docs/accuracy.md");
    std::fs::write(&out, report).map_err(|e| format!("writing {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
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
        f
    } else if model.contains("gpt-2") || model.contains("gpt2") {
        let mut f = vec![learned_positions(1024)];
        f.extend(gpt_style(true));
        f
    } else if model.contains("megatron gpt") || model.contains("bigcode") {
        // Megatron's and GPTBigCode's learned positions: one per position of the
        // trained sequence length (the row does not give max positions).
        let mut f = vec![learned_positions(seq)];
        f.extend(gpt_style(
            !row.lower("vocab").contains("untied") && !model.contains("untied"),
        ));
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
    let flash = ["flash", "sdpa", "fused", "no s^2"]
        .iter()
        .any(|k| attention.contains(k));
    if !flash && (attention.contains("eager") || attention.contains("unfused")) {
        set("attn", "eager".into());
    }
    set(
        "batch",
        first_number(row.get("micro_batch"))
            .unwrap_or(1)
            .to_string(),
    );

    // Parallelism. A metric summed over GPUs (accelerate's layer split) is the
    // one-device total.
    let gpus = first_number(row.get("num_gpus")).unwrap_or(1);
    let sharding = row.lower("sharding");
    if !row.lower("metric").contains("sum_i") && gpus > 1 {
        let tp = number_after(&sharding, "tp").unwrap_or(1).max(1);
        if tp > 1 {
            set("tp", tp.to_string());
            if sharding.contains("sequence parallel") && !sharding.contains("no sequence parallel")
            {
                set("sp", "1".into());
            }
        }
        let replicas = gpus / tp;
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
    /// Device-wide (nvidia-smi / NVML) with the CUDA context measured alone in
    /// the same source: `peak_reserved` + that context.
    DeviceWithContext(f64),
    /// Device-wide without a measured context: the `nvidia_smi` reading, whose
    /// overhead is batchfit's default.
    Device,
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
        return Some("framework=megatron".into());
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
}

/// The Markdown report for the measurements in `csv`.
pub fn report(csv: &str) -> Result<String, String> {
    let records = read_csv(csv)?;
    let (header, rows) = records.split_first().ok_or("the CSV is empty")?;
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    for fields in rows {
        let row = Row { header, fields };
        let id = row.get("id").to_owned();
        let measured = measured_bytes(row.get("value"), row.get("unit"))
            .map_err(|e| format!("row {id}: {e}"))?;
        match to_query(&row) {
            Err(reason) => skipped.push((id, row.get("model").to_owned(), reason)),
            Ok(text) => {
                let parsed = query::parse(&text);
                if let Some(problem) = parsed.problems.first() {
                    return Err(format!("row {id}: the query {text} is invalid: {problem}"));
                }
                let estimate = memory::estimate(&parsed.config);
                let reading = reading(&row).map_err(|e| format!("row {id}: {e}"))?;
                // The profile comes first when parsed, so the row's own settings
                // still override it.
                let profile = match stack(&row) {
                    None => None,
                    Some(settings) => {
                        let with = format!("{text}&{settings}");
                        let parsed = query::parse(&with);
                        if let Some(problem) = parsed.problems.first() {
                            return Err(format!(
                                "row {id}: the query {with} is invalid: {problem}"
                            ));
                        }
                        Some((
                            settings,
                            estimated(&memory::estimate(&parsed.config), reading),
                        ))
                    }
                };
                compared.push(Compared {
                    profile,
                    id,
                    model: row.get("model").to_owned(),
                    metric: short_metric(&row),
                    measured,
                    estimated: estimated(&estimate, reading),
                    reading,
                    query: text,
                });
            }
        }
    }
    let errors: Vec<f64> = compared
        .iter()
        .map(|c| percent_error(c.estimated, c.measured).abs())
        .collect();
    let median_error = median(&errors);
    // The rows measured under a known stack, without and with its profile.
    let profiled: Vec<&Compared> = compared.iter().filter(|c| c.profile.is_some()).collect();
    let median_plain = median(
        &profiled
            .iter()
            .map(|c| percent_error(c.estimated, c.measured).abs())
            .collect::<Vec<_>>(),
    );
    let median_profiled = median(
        &profiled
            .iter()
            .filter_map(|c| c.profile.as_ref())
            .zip(&profiled)
            .map(|((_, bytes), c)| percent_error(*bytes, c.measured).abs())
            .collect::<Vec<_>>(),
    );

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "# Accuracy against published measurements\n");
    let _ = writeln!(
        w,
        "Generated by `cargo xtask accuracy` from `validation/measurements.csv` (sources in \
         `validation/SOURCES.md`); do not edit by hand. Each row's configuration becomes the batchfit \
         query shown, run through the same `memory::estimate` as the page and the CLI. Measured values \
         are converted to bytes from their unit (MiB = 2^20, MB = 10^6, GiB = 2^30, GB = 10^9 bytes). \
         Each row is compared with the reading that matches its metric: rows measured with \
         `torch.cuda.max_memory_allocated` (or the equivalent allocator statistic) with batchfit's \
         peak allocated; rows measured device-wide (nvidia-smi / NVML, `incl_cuda_ctx` = yes) with \
         batchfit's peak reserved (allocated + the caching allocator's slack) plus the CUDA context \
         measured in the same source, or batchfit's nvidia-smi reading where no context was measured. \
         No constant in batchfit was fitted to any row.\n"
    );
    match median_error {
        Some(m) => {
            let _ = writeln!(
                w,
                "**Median absolute error: {m:.1} %** over {} rows compared ({} not comparable, listed below).\n",
                compared.len(),
                skipped.len()
            );
        }
        None => {
            let _ = writeln!(w, "No row could be compared.\n");
        }
    }
    if let (Some(plain), Some(with)) = (median_plain, median_profiled) {
        let _ = writeln!(
            w,
            "**Framework profiles.** {} rows were measured under a stack batchfit has a profile for \
             (docs/frameworks.md); the `profile` column adds that profile to the row's query, with \
             the row's own settings still overriding it. Median absolute error over those rows: \
             {plain:.1} % without the profile, {with:.1} % with it. Most rows already state the \
             settings their stack chose (recipe, optimizer implementation), so the profile changes \
             only what they leave unsaid.\n",
            profiled.len()
        );
    }
    let _ = writeln!(
        w,
        "**No GPU measurement of our own yet.** This session had no GPU: the validation grid under \
         `validation/` (PyTorch + transformers from configs, `max_memory_allocated` after full training \
         steps) has not been run. Every row below is a published measurement by someone else.\n"
    );
    let _ = writeln!(
        w,
        "| id | model | metric | measured | batchfit | error | profile | with profile | error | query |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---|---:|---:|---|");
    for c in &compared {
        let context = match c.reading {
            Reading::Allocated => String::new(),
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
            percent_error(c.estimated, c.measured),
            c.query
        );
    }
    if !skipped.is_empty() {
        let _ = writeln!(w, "\n## Not comparable\n");
        for (id, model, reason) in &skipped {
            let _ = writeln!(w, "- {id} ({}): {reason}.", escape(model));
        }
    }
    let _ = writeln!(w, "\n## What the model lacks, and where it shows\n");
    for note in NOTES {
        let _ = writeln!(w, "- {note}");
    }
    Ok(out)
}

/// Known gaps between the model and real runs, written once from the model's
/// definition (docs/model.md), not from any row.
const NOTES: &[&str] = &[
    "**Allocator slack is a judgement.** batchfit's peak reserved adds 10 % of the step's transient bytes for the caching allocator's rounding and split blocks (docs/model.md, range 0–25 %); the true slack depends on the order and sizes of a run's allocations, which no configuration states.",
    "**Framework temporaries.** Hugging Face's loss shifts and copies the logits (`logits[..., :-1, :].contiguous()`) and keeps the log-softmax; batchfit counts the FP32 logits and their gradient only. Rows with large vocabularies and short models show this most.",
    "**Autocast keeps some activations in FP32.** Under `torch.autocast` (Hugging Face AMP), softmax, layer norm and the residual additions run in FP32, so an `amp` run keeps a mix of 2- and 4-byte activations; batchfit counts 2 bytes for every activation of the `amp` recipe.",
    "**Softmax in FP32.** Unfused attention that computes the softmax in FP32 (Megatron's unfused backend, HF eager Llama) keeps 4-byte scores where batchfit counts the activation precision.",
    "**Heads batchfit does not have.** Megatron's BERT has an MLM head and a binary head; batchfit's encoder has a pooler and a classifier only.",
    "**Inference peaks.** `generate` can hold the prompt's full logits in some transformers versions; batchfit counts the last position's logits only.",
    "**Fused and chunked alternatives.** torchtune's recipes compute the loss in chunks (`CEWithChunkedOutputLoss`) and may configure a fused AdamW; the rows do not say which, and batchfit maps `torch.optim.AdamW` to its default foreach implementation and counts full FP32 logits.",
    "**Gradients and activations are counted together.** PyTorch frees activations as the backward pass allocates gradients; batchfit, like Korthikanti et al. and the ZeRO paper, adds both, which overestimates runs whose peak falls mid-backward.",
    "**Learned positions for Megatron and GPTBigCode rows** are taken as the trained sequence length (the rows do not give the maximum), a difference of at most positions × hidden parameters.",
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
             V027,HF,ref,mistralai/Mistral-7B-v0.1,7.24B,32,4096,32,8,14336,32000 (untied),4096 (packed),train (SFT),LoRA r=16,pure bf16,AdamW,4,1,on,FlashAttention-2,1,none,A100,26704571904,bytes,tracker,no,A,\n"
        );
        let report = report(&csv).expect("a report");
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
            report.contains("over 2 rows compared (1 not comparable"),
            "{report}"
        );
        assert!(
            report.contains("No GPU measurement of our own yet"),
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
    }
}
