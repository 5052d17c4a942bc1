//! The whole path a URL takes through the page: parse → estimate → sweep →
//! what-ifs → formatted text. Nothing panics or overflows, no printed size is
//! NaN or infinite, and the numbers keep the identities the page's breakdown
//! shows (see `memory::Estimate` and `memory::AtPeak`).

#![no_main]

use batchfit_core::memory::{self, Estimate};
use batchfit_core::query::{self, Config, Form};
use batchfit_core::transformer::{Mode, Recompute};
use batchfit_core::units::{self, Units};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let config = query::parse(&String::from_utf8_lossy(data)).config;
    let estimate = memory::estimate(&config);
    check(&config, &estimate);
    check_max_batch(&config, &estimate);
    for row in memory::sweep(&config) {
        // Sweep rows are at-peak quantities: their parts add up, and each is
        // the estimate at its batch.
        assert_eq!(
            row.model_states + row.activations,
            row.total,
            "sweep row {row:?}"
        );
        let at = memory::estimate(&config.with_batch(row.batch));
        assert_eq!(
            (row.total, row.required),
            (at.total, at.required),
            "sweep row {row:?}"
        );
        assert!(row.required >= row.total, "sweep row {row:?}");
        for bytes in [row.model_states, row.activations, row.total, row.required] {
            check_printed(bytes);
        }
    }
    for what_if in memory::what_ifs(&config) {
        let changed = memory::estimate(&what_if.config);
        check(&what_if.config, &changed);
        assert_eq!(
            (what_if.required, what_if.fits),
            (changed.required, changed.fits),
            "{what_if:?}"
        );
    }
});

/// The peak identity, the three readings, the fit verdict, and every size
/// printed in both units.
fn check(config: &Config, e: &Estimate) {
    let t = &config.transformer;
    assert_peak(
        config.form,
        t.mode == Mode::Train,
        t.recompute != Recompute::None,
        e.total,
        e.model_states() + e.buffers,
        e.gradients,
        e.activations + e.kv_cache,
        e.optimizer_step,
    );
    assert_eq!(e.peak_allocated, e.total, "{e:?}");
    assert_eq!(e.at_peak.sum(), e.peak_allocated, "{e:?}");
    assert_eq!(
        e.peak_allocated + e.allocator_cache() + e.overhead + e.margin_bytes(),
        e.required,
        "{e:?}"
    );
    assert!(e.peak_reserved >= e.total, "{e:?}");
    assert_eq!(e.nvidia_smi, e.peak_reserved + e.overhead, "{e:?}");
    assert!(e.required >= e.nvidia_smi, "{e:?}");
    assert_eq!(e.fits, e.device_bytes.map(|d| e.required <= d), "{e:?}");
    assert_eq!(e.max_batch.is_some(), config.device.is_some(), "{e:?}");
    let sizes = [
        e.parameters,
        e.weights,
        e.gradients,
        e.optimizer_states,
        e.optimizer_step,
        e.buffers,
        e.kv_cache,
        e.activations,
        e.activations_per_sample,
        e.total,
        e.overhead,
        e.required,
        e.peak_allocated,
        e.peak_reserved,
        e.nvidia_smi,
        e.device_bytes.unwrap_or(0),
    ];
    for bytes in sizes {
        check_printed(bytes);
    }
}

/// The peak of allocated bytes against its parts (`memory::Estimate`). The
/// napkin forms hold everything through the step: the fixed bytes plus the
/// larger of the batch's transients and the optimizer step's buffers, or both
/// when the step runs inside the backward pass. The transformer form follows
/// PyTorch's timeline, moment by moment (docs/model.md §3.3): its peak is at
/// least the model states without the gradients; in training without
/// recomputation, at least the backward pass's start (everything but the
/// gradients, with every saved activation); in inference, at most every
/// term at once.
fn assert_peak(
    form: Form,
    training: bool,
    recomputed: bool,
    total: u128,
    fixed: u128,
    gradients: u128,
    per_batch: u128,
    step: u128,
) {
    let parts = format!(
        "total {total}: fixed {fixed}, gradients {gradients}, per batch {per_batch}, step {step}"
    );
    if form != Form::Transformer {
        assert!(
            total == fixed + per_batch.max(step) || total == fixed + per_batch + step,
            "{parts}"
        );
        return;
    }
    assert!(
        total >= fixed - gradients,
        "less than the model states: {parts}"
    );
    if !training {
        // No backward pass: the prefill's activations and the end of
        // generation's cache are moments of their own, at most all at once.
        assert!(
            total <= fixed + per_batch + step,
            "more than all at once: {parts}"
        );
        return;
    }
    // In training the backward pass's working tensors (the residual
    // stream's gradient, a layer's gradients in flight, docs/model.md §3.3)
    // are a moment's terms that no field above holds: at a small batch they
    // exceed the saved activations, so the fields bound the peak from below
    // only. Without recomputation every saved activation is alive at the
    // backward pass's start; with it, a recomputed layer's working set is
    // alive only in that layer's backward pass, after the loss's tensors.
    if !recomputed {
        assert!(
            total >= fixed - gradients + per_batch,
            "less than the backward pass's start: {parts}"
        );
    }
}

/// The largest batch that fits is exact: it fits, and one more sample does not
/// (unless it is already the largest batch a URL can ask for).
fn check_max_batch(config: &Config, e: &Estimate) {
    let (Some(max), Some(device)) = (e.max_batch, e.device_bytes) else {
        return;
    };
    let required = |batch: u64| memory::estimate(&config.with_batch(batch)).required;
    if max > 0 {
        assert!(required(max) <= device, "{e:?}");
    }
    if max < batchfit_core::activations::BATCH.max {
        assert!(required(max + 1) > device, "{e:?}");
    }
}

fn check_printed(bytes: u128) {
    for units in [Units::Decimal, Units::Binary] {
        let text = units::format_bytes(bytes, units);
        let lower = text.to_ascii_lowercase();
        assert!(
            !lower.contains("nan") && !lower.contains("inf") && !text.is_empty(),
            "{bytes} prints as {text:?}"
        );
    }
}
