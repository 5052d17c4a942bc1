//! `batchfit devices`: one configuration against every device preset.

use batchfit_core::fields::group_thousands;
use batchfit_core::memory;
use batchfit_core::query::Config;
use batchfit_core::serving;
use serde::Serialize;

use crate::format::size;

/// One device's answer. `bytes` is its total as nvidia-smi reports it,
/// `usable_bytes` what a process can allocate (docs/model.md §4), and
/// `spare_bytes` usable − required: negative when the configuration is short
/// of memory on it.
#[derive(Serialize)]
struct Row {
    id: &'static str,
    name: &'static str,
    bytes: u128,
    usable_bytes: u128,
    fits: bool,
    max_batch: u64,
    /// Data-parallel ranks (of `tp` GPUs each) at which the transformer form
    /// fits; `null` for the other forms, or when no number of GPUs is enough.
    gpus_needed: Option<u64>,
    spare_bytes: i128,
}

/// The core's devices table ([`memory::devices`]), for JSON.
fn rows(config: &Config) -> Vec<Row> {
    memory::devices(config)
        .into_iter()
        .map(|fit| Row {
            id: fit.device.id,
            name: fit.device.name,
            bytes: fit.device.bytes,
            usable_bytes: fit.capacity(),
            fits: fit.fits,
            max_batch: fit.max_batch,
            gpus_needed: fit.gpus_needed,
            spare_bytes: fit.spare(),
        })
        .collect()
}

/// One GPU's serving plan (`framework=vllm`).
#[derive(Serialize)]
struct ServingRow {
    id: &'static str,
    name: &'static str,
    bytes: u128,
    /// What a process can allocate, which the engine takes its share of.
    usable_bytes: u128,
    /// Whether vLLM starts: one request of `max_model_len` fits the pool.
    starts: bool,
    kv_cache_pool: u128,
    kv_cache_tokens: u128,
    max_concurrency: f64,
    concurrent_requests: u128,
    max_seq: u128,
}

/// Every GPU preset's vLLM plan, as a table or JSON.
fn serving_table(config: &Config, json: bool) -> String {
    let plans = serving::devices(config);
    let rows: Vec<ServingRow> = plans
        .iter()
        .map(|(device, plan)| ServingRow {
            id: device.id,
            name: device.name,
            bytes: device.bytes,
            usable_bytes: device.usable_bytes(),
            starts: plan.refusal.is_none(),
            kv_cache_pool: plan.kv_cache_pool,
            kv_cache_tokens: plan.pool_tokens,
            max_concurrency: plan.max_concurrency_hundredths as f64 / 100.0,
            concurrent_requests: plan.concurrent_requests(),
            max_seq: plan.max_seq,
        })
        .collect();
    if json {
        return serde_json::to_string_pretty(&rows).expect("strings, integers and booleans");
    }
    let units = config.units;
    let len = plans.first().map_or(0, |(_, plan)| plan.max_model_len);
    let engine = plans.first().map_or("vLLM", |(_, plan)| plan.engine_name());
    let mut out = format!(
        "{engine}'s plan on each GPU, for requests of {} tokens:\n\n",
        group_thousands(len)
    );
    out.push_str(&format!(
        "  {:<12} {:<30} {:>12} {:>12} {:>16} {:>16}\n",
        "id", "device", "usable", "KV pool", "requests at once", "longest request"
    ));
    for row in &rows {
        out.push_str(&format!(
            "  {:<12} {:<30} {:>12} {:>12} {:>16} {:>16}\n",
            row.id,
            row.name,
            size(row.usable_bytes, units),
            size(row.kv_cache_pool, units),
            if row.starts {
                group_thousands(u64::try_from(row.concurrent_requests).unwrap_or(u64::MAX))
            } else {
                "does not start".to_owned()
            },
            group_thousands(u64::try_from(row.max_seq).unwrap_or(u64::MAX)),
        ));
    }
    out.pop();
    out
}

/// The table for people, or a JSON array of [`Row`]s; under `framework=vllm`
/// the serving plan's table.
pub fn table(config: &Config, json: bool) -> String {
    if serving::engine(config) {
        return serving_table(config, json);
    }
    let rows = rows(config);
    if json {
        return serde_json::to_string_pretty(&rows).expect("strings, integers and booleans");
    }
    let units = config.units;
    let mut out = format!(
        "Needs {} per GPU at batch {}.\n\n",
        size(memory::estimate(config).required, units),
        config.batch()
    );
    out.push_str(&format!(
        "  {:<12} {:<30} {:>12} {:<13} {:>9} {:>11}  {}\n",
        "id", "device", "usable", "fits", "max batch", "GPUs needed", "spare"
    ));
    for row in &rows {
        let spare = match u128::try_from(row.spare_bytes) {
            Ok(bytes) => size(bytes, units),
            Err(_) => format!("short by {}", size(row.spare_bytes.unsigned_abs(), units)),
        };
        out.push_str(&format!(
            "  {:<12} {:<30} {:>12} {:<13} {:>9} {:>11}  {spare}\n",
            row.id,
            row.name,
            size(row.usable_bytes, units),
            if row.fits { "fits" } else { "does not fit" },
            row.max_batch,
            row.gpus_needed.map_or("-".to_owned(), |n| n.to_string()),
        ));
    }
    out.push_str("\nGPUs needed: data-parallel ranks at the query's ZeRO stage (each of `tp` GPUs); - where none is enough or the form is not the transformer form.");
    out
}
