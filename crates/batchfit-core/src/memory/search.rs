//! The searches over an estimate: the largest batch and sequence that fit,
//! the batch sweep, the GPUs needed, and the fit on every device preset.

use super::{Model, Parts, estimate, required, required_at};
use crate::activations::{BATCH, SEQ};
use crate::presets::{DEVICES_BY_CAPACITY, Device, DevicePreset};
use crate::query::{Config, Form};
use crate::transformer::{GPUS, Kind, Mode};

/// The largest batch in 1 … `BATCH.max` whose required memory is at most
/// `device`, or 0. Binary search on the monotone `required(batch)`: exact, not
/// a search over powers of two.
pub(super) fn max_batch_within(model: &Model, config: &Config, device: u128) -> u64 {
    // Most batches the search tries are far too large: what is held and the
    // activations' moment alone exceed the device. `required` adds the rest
    // of the peak, the allocator's slack, the overhead and the margin to
    // those bytes, and where the margin's product saturates it is
    // `u128::MAX / 10_000` or more: above the device, without computing it.
    let unsaturated = device < u128::MAX / 10_000;
    let fits = |batch: u64| {
        let parts = model.at(batch).1;
        !(unsaturated && parts.reserved_at_least(batch) > device)
            && required(parts.reserved(batch), config) <= device
    };
    largest(1, BATCH.max, fits).unwrap_or(0)
}

/// The largest value in `low..=high` for which `fits` holds, where it holds
/// for every value up to some point and for none beyond (a binary search);
/// `None` when it does not hold at `low`.
pub(crate) fn largest(low: u64, high: u64, fits: impl Fn(u64) -> bool) -> Option<u64> {
    if low > high || !fits(low) {
        return None;
    }
    if fits(high) {
        return Some(high);
    }
    let (mut fitting, mut too_much) = (low, high);
    while too_much - fitting > 1 {
        let middle = fitting + (too_much - fitting) / 2;
        if fits(middle) {
            fitting = middle;
        } else {
            too_much = middle;
        }
    }
    Some(fitting)
}

/// The smallest value in `low..=high` for which `fits` holds, where it holds
/// from some point on; `None` when it does not hold at `high`.
pub(super) fn smallest(low: u64, high: u64, fits: impl Fn(u64) -> bool) -> Option<u64> {
    if low > high || !fits(high) {
        return None;
    }
    if fits(low) {
        return Some(low);
    }
    let (mut too_few, mut enough) = (low, high);
    while enough - too_few > 1 {
        let middle = too_few + (enough - too_few) / 2;
        if fits(middle) {
            enough = middle;
        } else {
            too_few = middle;
        }
    }
    Some(enough)
}

/// The longest sequence that fits the device at the chosen batch: in training
/// the sequence length, in inference the whole context (prompt + the
/// generated tokens as set; the prompt grows). `None` without a device, for
/// the parameters form (no sequence) and for vision transformers (their length
/// is the image's). 0 when not even one token fits. Exact: binary search on
/// `required(seq)`, which never decreases with the sequence; the model's own
/// context limit (`max_position_embeddings`) is not applied.
pub fn max_seq(config: &Config) -> Option<u64> {
    let device = config.device?.usable_bytes();
    let generated = match config.form {
        Form::Parameters => return None,
        Form::Transformer if config.transformer.arch.kind == Kind::Vision => return None,
        Form::Transformer if config.transformer.mode == Mode::Inference => {
            config.transformer.generated
        }
        Form::Activations | Form::Transformer => 0,
    };
    let parts = Parts::of(config);
    let batch = config.batch();
    let pipelined = config.form == Form::Transformer && config.transformer.pp > 1;
    let fits = |seq: u64| {
        let parts = if pipelined {
            let mut longer = *config;
            longer.transformer.seq = seq;
            Parts::of(&longer)
        } else {
            parts.at_seq(config, seq)
        };
        required(parts.reserved(batch), config) <= device
    };
    Some(largest(SEQ.min, SEQ.max, fits).map_or(0, |seq| seq.saturating_add(generated)))
}

/// One row of the batch sweep, at-peak quantities: `model_states +
/// activations = total` on every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SweepRow {
    pub batch: u64,
    /// Weights, gradients, optimizer states, the step's temporaries and
    /// framework buffers, as far as they are alive at this batch's peak
    /// ([`AtPeak::fixed`](super::AtPeak::fixed)): gradients count once the backward pass has freed
    /// the activations, so this can change where the peak moves.
    pub model_states: u128,
    /// Activations and KV cache alive at the peak ([`AtPeak::per_batch`](super::AtPeak::per_batch); 0
    /// when the gradients' moment sets it).
    pub activations: u128,
    /// The peak at this batch, `peak_allocated` (see [`Estimate`](super::Estimate)).
    pub total: u128,
    /// What is compared with the device, as in [`Estimate::required`](super::Estimate::required).
    pub required: u128,
}

/// Powers of two from 1 until one batch past the largest that fits (without a
/// device: past the chosen batch), plus the chosen batch, in increasing order.
pub fn sweep(config: &Config) -> Vec<SweepRow> {
    let model = Model::of(config);
    let chosen = config.batch();
    let last = match config.device {
        Some(device) => max_batch_within(&model, config, device.usable_bytes()).max(chosen),
        None => chosen,
    };
    let mut batches: Vec<u64> = std::iter::successors(Some(1u64), |&b| {
        (b <= last && b < BATCH.max).then(|| (b * 2).min(BATCH.max))
    })
    .collect();
    // The powers of two are in order: the chosen batch goes in its place.
    if let Err(at) = batches.binary_search(&chosen) {
        batches.insert(at, chosen);
    }
    batches
        .into_iter()
        .map(|batch| {
            let (_, parts) = model.at(batch);
            let at_peak = parts.at_peak(batch);
            SweepRow {
                batch,
                model_states: at_peak.fixed(),
                activations: at_peak.per_batch(),
                total: at_peak.sum(),
                required: required(parts.reserved(batch), config),
            }
        })
        .collect()
}

/// The smallest data-parallel degree at which the transformer configuration fits
/// its device with its ZeRO stage (model states shrink as GPUs are added from
/// stage 1 on), or `None` when no device is chosen, the form is not the
/// transformer form, or even `GPUS.max` GPUs are not enough. With expert
/// parallelism the degree is a multiple of `ep` (of ep × etp / gcd(ep × etp,
/// tp) with expert tensor parallelism), which must divide it.
pub fn gpus_needed(config: &Config) -> Option<u64> {
    let device = config.device?.usable_bytes();
    if config.form != Form::Transformer {
        return None;
    }
    let ep = config.transformer.gpus_multiple().max(1);
    let fits = |groups: u64| {
        let mut trial = *config;
        trial.transformer.gpus = groups * ep;
        required_at(&trial) <= device
    };
    smallest(1, GPUS.max / ep, fits).map(|groups| groups * ep)
}

/// One device preset's answer for a configuration: [`devices`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceFit {
    pub device: &'static DevicePreset,
    /// What a GPU needs at the configuration's batch on this device (the
    /// device changes nothing but the capacity, so this is the same on every
    /// row; kept per row for the spare memory's sign).
    pub required: u128,
    pub fits: bool,
    /// The largest batch that fits (0: not even one sample).
    pub max_batch: u64,
    /// Data-parallel ranks at which the transformer form fits, as
    /// [`gpus_needed`] says.
    pub gpus_needed: Option<u64>,
}

impl DeviceFit {
    /// What a process can allocate on the device, which the required memory
    /// is compared with ([`Device::usable_bytes`]).
    pub fn capacity(&self) -> u128 {
        self.device.usable_bytes()
    }

    /// Capacity − required: negative when the device is short of memory.
    pub fn spare(&self) -> i128 {
        // Both are below 2^127 (a capacity is at most a few TB, the required
        // memory is a sum of u128s that the estimate saturates).
        let signed = |bytes: u128| i128::try_from(bytes).unwrap_or(i128::MAX);
        signed(self.capacity()).saturating_sub(signed(self.required))
    }
}

/// The configuration on every device preset, by capacity ascending (presets
/// of equal capacity in their list's order): which GPUs fit, the largest batch
/// on each, and the GPUs needed. The page's "Which GPUs fit" table and
/// `batchfit devices` both print this.
pub fn devices(config: &Config) -> Vec<DeviceFit> {
    DEVICES_BY_CAPACITY
        .iter()
        .map(|&device| {
            let on = Config {
                device: Some(Device::Preset(device)),
                ..*config
            };
            let e = estimate(&on);
            DeviceFit {
                device,
                required: e.required,
                fits: e.fits == Some(true),
                max_batch: e.max_batch.unwrap_or(0),
                gpus_needed: gpus_needed(&on),
            }
        })
        .collect()
}

/// Every GPU the job takes for `dp` data-parallel ranks: dp × tp × pp × cp
/// (expert parallelism runs inside the data-parallel ranks, as
/// Megatron-Core's parallel_state.py and torchtitan's mesh place it). 1 per
/// rank outside the transformer form.
pub fn total_gpus(config: &Config, dp: u64) -> u64 {
    match config.form {
        Form::Transformer => {
            let t = &config.transformer;
            dp.saturating_mul(t.tp)
                .saturating_mul(t.pp)
                .saturating_mul(t.cp)
        }
        Form::Activations | Form::Parameters => dp,
    }
}
