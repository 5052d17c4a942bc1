//! `batchfit devices`: one configuration against every device preset.

use batchfit_core::memory;
use batchfit_core::presets::{self, Device};
use batchfit_core::query::Config;
use serde::Serialize;

use crate::report::size;

/// One device's answer. `spare_bytes` is capacity − required: negative when
/// the configuration is short of memory on it.
#[derive(Serialize)]
struct Row {
    id: &'static str,
    name: &'static str,
    bytes: u128,
    fits: bool,
    max_batch: u64,
    /// Data-parallel ranks (of `tp` GPUs each) at which the transformer form
    /// fits; `null` for the other forms, or when no number of GPUs is enough.
    gpus_needed: Option<u64>,
    spare_bytes: i128,
}

/// Every device preset, by capacity ascending (presets of equal capacity in
/// their list's order), each with the query's device replaced by it.
fn rows(config: &Config) -> Vec<Row> {
    let mut devices: Vec<_> = presets::DEVICES.iter().collect();
    devices.sort_by_key(|d| d.bytes);
    devices
        .into_iter()
        .map(|device| {
            let on = Config {
                device: Some(Device::Preset(device)),
                ..*config
            };
            let e = memory::estimate(&on);
            // Both sides are far below 2^127: the conversions cannot fail.
            let signed = |bytes: u128| i128::try_from(bytes).unwrap_or(i128::MAX);
            Row {
                id: device.id,
                name: device.name,
                bytes: device.bytes,
                fits: e.fits == Some(true),
                max_batch: e.max_batch.unwrap_or(0),
                gpus_needed: memory::gpus_needed(&on),
                spare_bytes: signed(device.bytes) - signed(e.required),
            }
        })
        .collect()
}

/// The table for people, or a JSON array of [`Row`]s.
pub fn table(config: &Config, json: bool) -> String {
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
        "id", "device", "memory", "fits", "max batch", "GPUs needed", "spare"
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
            size(row.bytes, units),
            if row.fits { "fits" } else { "does not fit" },
            row.max_batch,
            row.gpus_needed.map_or("-".to_owned(), |n| n.to_string()),
        ));
    }
    out.push_str("\nGPUs needed: data-parallel ranks at the query's ZeRO stage (each of `tp` GPUs); - where none is enough or the form is not the transformer form.");
    out
}
