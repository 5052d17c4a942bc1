//! `batchfit check`: one line and an exit status, for launch scripts.

use batchfit_core::confidence::{self, Verdict};
use batchfit_core::memory;
use batchfit_core::query::Config;

use crate::format::size;
use crate::report::{device_name, fit_ends, verdict_words};

/// Whether `config` fits its device, and the one line that says so:
/// `fits: needs 53.18 GB of 85.52 GB (NVIDIA H100 80GB SXM); largest batch 7;
/// in validation fits even at the pessimistic end, required 53.18 GB … 73.87 GB
/// (peak reserved range)`. Fitting is the estimate's answer; with `strict`, it
/// is the validation range's pessimistic end (`confidence::Verdict::Fits`),
/// where the configuration has a range (the transformer form), and the line
/// begins `fits only at the optimistic end` where only the estimate fits.
/// Without a device there is nothing to check: that is an input problem.
pub fn verdict(config: &Config, strict: bool) -> Result<(bool, String), String> {
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
    let fit = confidence::fit(config, &e);
    let validation = fit.map_or(String::new(), |fit| {
        format!(
            "; in validation {}, {}",
            verdict_words(fit.verdict(bytes)),
            fit_ends(&fit, config.units)
        )
    });
    let passes = match fit {
        Some(fit) if strict => fit.verdict(bytes) == Verdict::Fits,
        _ => fits,
    };
    let answer = match (passes, fits) {
        (true, _) => "fits",
        (false, true) => "fits only at the optimistic end",
        (false, false) => "does not fit",
    };
    let line = format!(
        "{answer}: needs {} of {} usable ({}); {largest}{validation}",
        size(e.required, config.units),
        size(bytes, config.units),
        device_name(device),
    );
    Ok((passes, line))
}
