//! The two ways the CLI prints an estimate: text for people, JSON for scripts.

use batchfit_core::activations;
use batchfit_core::fields::{format_hundredths, group_thousands};
use batchfit_core::query::Config;
use batchfit_core::units::{self, Units};
use serde::Serialize;

/// The JSON document. Byte counts are integers (never formatted, never floats).
#[derive(Serialize)]
struct Report {
    form: &'static str,
    units: &'static str,
    activations_per_sample: u128,
    activations: u128,
}

pub fn json(config: &Config) -> String {
    let estimate = activations::estimate(&config.activations);
    let report = Report {
        form: config.form.name(),
        units: config.units.name(),
        activations_per_sample: estimate.per_sample,
        activations: estimate.total,
    };
    serde_json::to_string_pretty(&report).expect("a struct of strings and integers serializes")
}

pub fn text(config: &Config) -> String {
    let input = &config.activations;
    let estimate = activations::estimate(input);
    let checkpointing = if input.checkpointing {
        "gradient checkpointing (√layers layers kept)"
    } else {
        "no checkpointing"
    };
    let rows = [
        ("Activations per sample".to_owned(), estimate.per_sample),
        (format!("Activations (batch {})", input.batch), estimate.total),
    ];
    let mut out = format!(
        "Activations rule of thumb: batch × seq × hidden × layers × bytes × k\n\
         batch {}, seq {}, hidden {}, layers {}, {} ({} bytes), k = {}, {checkpointing}\n\n",
        input.batch,
        input.seq,
        input.hidden,
        input.layers,
        input.precision,
        input.precision.bytes(),
        format_hundredths(input.k.hundredths()),
    );
    for (label, bytes) in rows {
        out.push_str(&format!(
            "  {label:<28}{:>14}   ({} bytes)\n",
            units::format_bytes(bytes, config.units),
            group_bytes(bytes)
        ));
    }
    out.push_str(match config.units {
        Units::Decimal => "\nGB = 10^9 bytes.",
        Units::Binary => "\nGiB = 2^30 bytes.",
    });
    out
}

fn group_bytes(bytes: u128) -> String {
    u64::try_from(bytes).map_or_else(|_| bytes.to_string(), group_thousands)
}
