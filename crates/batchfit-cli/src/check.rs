//! `batchfit check`: one line and an exit status, for launch scripts.

use batchfit_core::memory;
use batchfit_core::query::Config;

use crate::report::{device_name, size};

/// Whether `config` fits its device, and the one line that says so:
/// `fits: needs 61.20 GB of 85.52 GB (NVIDIA H100 80GB SXM); largest batch 9`.
/// Without a device there is nothing to check: that is an input problem.
pub fn verdict(config: &Config) -> Result<(bool, String), String> {
    let e = memory::estimate(config);
    let (Some(device), Some(bytes), Some(fits), Some(max_batch)) =
        (config.device, e.device_bytes, e.fits, e.max_batch)
    else {
        return Err(
            "`check` needs a device: `gpu=ID` or `gpu_gb=GB` in the query, or --gpu ID".to_owned(),
        );
    };
    let largest = match max_batch {
        0 => "no batch fits, not even 1".to_owned(),
        n => format!("largest batch {n}"),
    };
    let line = format!(
        "{}: needs {} of {} ({}); {largest}",
        if fits { "fits" } else { "does not fit" },
        size(e.required, config.units),
        size(bytes, config.units),
        device_name(device),
    );
    Ok((fits, line))
}
