//! `batchfit compare`: two configurations side by side, and what differs.

use batchfit_core::fields::group_thousands;
use batchfit_core::memory::{self, Estimate};
use batchfit_core::query::{self, Config};
use serde::Serialize;

use crate::format::{signed_percent, signed_size, size};

/// A compared quantity: its JSON name, its label, and how to read it.
type Quantity = (&'static str, &'static str, fn(&Estimate) -> u128);

/// The quantities compared, in the order they are printed: each component's
/// own size, the three readings and what is compared with the device.
const QUANTITIES: &[Quantity] = &[
    ("weights", "Weights", |e| e.weights),
    ("gradients", "Gradients", |e| e.gradients),
    ("optimizer_states", "Optimizer states", |e| {
        e.optimizer_states
    }),
    ("optimizer_step", "Optimizer step buffers", |e| {
        e.optimizer_step
    }),
    ("buffers", "Framework buffers", |e| e.buffers),
    ("kv_cache", "KV cache", |e| e.kv_cache),
    ("activations", "Activations", |e| e.activations),
    ("peak_allocated", "Peak allocated", |e| e.peak_allocated),
    ("peak_reserved", "Peak reserved", |e| e.peak_reserved),
    ("nvidia_smi", "nvidia-smi", |e| e.nvidia_smi),
    ("required", "Required", |e| e.required),
];

#[derive(Serialize)]
struct Side {
    query: String,
    /// Each quantity of [`QUANTITIES`], in bytes.
    bytes: Bytes,
    /// The device's memory as its driver reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    device_bytes: Option<u128>,
    /// What a process can allocate on it, which `fits` is checked against.
    #[serde(skip_serializing_if = "Option::is_none")]
    usable_bytes: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fits: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_batch: Option<u64>,
}

/// The quantities of [`QUANTITIES`] by name (serde writes `u128` as digits).
#[derive(Serialize)]
struct Bytes {
    weights: u128,
    gradients: u128,
    optimizer_states: u128,
    optimizer_step: u128,
    buffers: u128,
    kv_cache: u128,
    activations: u128,
    peak_allocated: u128,
    peak_reserved: u128,
    nvidia_smi: u128,
    required: u128,
}

#[derive(Serialize)]
struct Difference {
    name: &'static str,
    /// b − a.
    bytes: i128,
    /// (b − a) / a in percent, to a tenth; `null` when a is 0.
    percent: Option<f64>,
}

#[derive(Serialize)]
struct Parameter {
    name: &'static str,
    a: String,
    b: String,
}

#[derive(Serialize)]
struct Comparison {
    a: Side,
    b: Side,
    difference: Vec<Difference>,
    differing_parameters: Vec<Parameter>,
}

fn signed(bytes: u128) -> i128 {
    // Estimates are far below 2^127 bytes.
    i128::try_from(bytes).unwrap_or(i128::MAX)
}

/// (b − a) / a in tenths of a percent, rounded half away from zero.
fn tenths_of_percent(a: u128, b: u128) -> Option<i128> {
    if a == 0 {
        return None;
    }
    let (a, diff) = (signed(a), signed(b) - signed(a));
    let scaled = diff.saturating_mul(1000);
    let half = a / 2;
    Some(if scaled >= 0 {
        (scaled + half) / a
    } else {
        (scaled - half) / a
    })
}

/// [`query::differing`], for JSON.
fn differing(a: &Config, b: &Config) -> Vec<Parameter> {
    query::differing(a, b)
        .into_iter()
        .map(|(p, a, b)| Parameter {
            name: p.name(),
            a,
            b,
        })
        .collect()
}

fn side(config: &Config, e: &Estimate) -> Side {
    Side {
        query: query::to_query(config),
        bytes: Bytes {
            weights: e.weights,
            gradients: e.gradients,
            optimizer_states: e.optimizer_states,
            optimizer_step: e.optimizer_step,
            buffers: e.buffers,
            kv_cache: e.kv_cache,
            activations: e.activations,
            peak_allocated: e.peak_allocated,
            peak_reserved: e.peak_reserved,
            nvidia_smi: e.nvidia_smi,
            required: e.required,
        },
        device_bytes: config.device.map(|d| d.bytes()),
        usable_bytes: e.device_bytes,
        fits: e.fits,
        max_batch: e.max_batch,
    }
}

/// Both estimates and their differences, as text or JSON.
pub fn report(a: &Config, b: &Config, json: bool) -> String {
    let (ea, eb) = (memory::estimate(a), memory::estimate(b));
    let difference: Vec<Difference> = QUANTITIES
        .iter()
        .map(|(name, _, get)| Difference {
            name,
            bytes: signed(get(&eb)) - signed(get(&ea)),
            percent: tenths_of_percent(get(&ea), get(&eb)).map(|t| t as f64 / 10.0),
        })
        .collect();
    let comparison = Comparison {
        a: side(a, &ea),
        b: side(b, &eb),
        difference,
        differing_parameters: differing(a, b),
    };
    if json {
        return serde_json::to_string_pretty(&comparison).expect("strings, integers, booleans");
    }
    // Both sides in A's units, so that the columns compare.
    let units = a.units;
    let mut out = format!("A: {}\nB: {}\n\n", comparison.a.query, comparison.b.query);
    out.push_str(&format!(
        "  {:<24}{:>14} {:>14} {:>16} {:>9}\n",
        "", "A", "B", "B − A", "%"
    ));
    for ((_, label, get), d) in QUANTITIES.iter().zip(&comparison.difference) {
        out.push_str(&format!(
            "  {label:<24}{:>14} {:>14} {:>16} {:>9}\n",
            size(get(&ea), units),
            size(get(&eb), units),
            signed_size(d.bytes, units),
            tenths_of_percent(get(&ea), get(&eb)).map_or("-".to_owned(), signed_percent),
        ));
    }
    let answer = |e: &Estimate| match (e.fits, e.max_batch) {
        (Some(_), Some(0)) => "does not fit, not even at batch 1".to_owned(),
        (Some(fits), Some(max)) => format!(
            "{}, largest batch {}",
            if fits { "fits" } else { "does not fit" },
            group_thousands(max)
        ),
        _ => "no device".to_owned(),
    };
    out.push_str(&format!("\n  A: {}\n  B: {}\n", answer(&ea), answer(&eb)));
    if comparison.differing_parameters.is_empty() {
        out.push_str("\nNo parameter differs.");
    } else {
        out.push_str("\nParameters that differ (A → B):\n");
        for p in &comparison.differing_parameters {
            let shown = |v: &str| {
                if v.is_empty() {
                    "(none)".to_owned()
                } else {
                    v.to_owned()
                }
            };
            out.push_str(&format!(
                "  {}: {} → {}\n",
                p.name,
                shown(&p.a),
                shown(&p.b)
            ));
        }
        out.pop();
    }
    out
}
