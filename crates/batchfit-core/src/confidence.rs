//! How sure "fits" is: the range of bytes that runs like this one measured,
//! from the validation rows' errors, and a verdict against the device.
//!
//! `cargo xtask accuracy` compares every validation row with the current
//! model (docs/accuracy.md) and writes [`CELLS`] (`confidence/table.rs`,
//! generated, never edited by hand): per reading and per framework profile,
//! the 10th and 90th percentiles of the signed error
//! `(measured − predicted) / predicted` over the rows whose query names that
//! profile, each source weighing the same however many rows it has (the rows
//! of one source share a stack and often a mistake). A profile whose rows are
//! fewer than [`MIN_ROWS`] or come from fewer than [`MIN_SOURCES`] sources
//! has no range of its own: every profile's rows pooled give it, and
//! [`Basis::Pooled`] says so with the profile's own counts.
//!
//! The sign: a positive error is a run that used more than batchfit
//! predicted, so the high end of a range is the pessimistic one.
//!
//! ```
//! use batchfit_core::confidence::{self, Reading};
//! use batchfit_core::{memory, query};
//!
//! let config = query::parse("form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb").config;
//! let e = memory::estimate(&config);
//! let range = confidence::range(&config, &e, Reading::Allocated).expect("a transformer");
//! assert!(range.low <= range.high);
//! let fit = confidence::fit(&config, &e).expect("a transformer");
//! assert!(fit.optimistic <= e.required && e.required <= fit.pessimistic);
//! ```

use crate::choice::choice;
use crate::memory::{self, Estimate};
use crate::query::{Config, Form};
use crate::transformer::Framework;

mod table;

pub use table::{CELLS, HIGH_PERCENTILE, LOW_PERCENTILE, MIN_ROWS, MIN_SOURCES};

choice! {
    /// One of the estimate's three readings, as the validation rows measured
    /// them (docs/accuracy.md says which row was compared with which).
    pub enum Reading {
        /// `torch.cuda.max_memory_allocated()`: [`Estimate::peak_allocated`].
        Allocated = "allocated",
        /// `torch.cuda.max_memory_reserved()`: [`Estimate::peak_reserved`].
        Reserved = "reserved",
        /// Device-wide, as nvidia-smi or NVML show it: [`Estimate::nvidia_smi`],
        /// the reading `required` adds the margin to.
        NvidiaSmi = "nvidia_smi",
    }
    default NvidiaSmi
}

impl Reading {
    /// The estimate's bytes for this reading.
    pub fn of(self, e: &Estimate) -> u128 {
        match self {
            Reading::Allocated => e.peak_allocated,
            Reading::Reserved => e.peak_reserved,
            Reading::NvidiaSmi => e.nvidia_smi,
        }
    }
}

/// A signed error range in basis points (hundredths of a percent) of
/// `(measured − predicted) / predicted`: `low` rounded down, `high` up, so
/// that rounding only widens it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bounds {
    pub low: i32,
    pub high: i32,
}

/// One cell of the generated table: the validation rows of one reading and
/// one profile (or of every profile, `profile: None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    pub reading: Reading,
    /// The framework profile the rows' queries name; `None`: every row of
    /// the reading, pooled.
    pub profile: Option<Framework>,
    pub rows: u32,
    pub sources: u32,
    /// The [`LOW_PERCENTILE`]th and [`HIGH_PERCENTILE`]th percentiles, or
    /// `None` when the cell has fewer than [`MIN_ROWS`] rows or
    /// [`MIN_SOURCES`] sources.
    pub range: Option<Bounds>,
}

/// Whose rows a range comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Basis {
    /// The rows measured under the configuration's own profile.
    Profile(Framework),
    /// Every profile's rows pooled, because the profile's own (`rows` from
    /// `sources`, possibly none) are too few for a range.
    Pooled {
        profile: Framework,
        rows: u32,
        sources: u32,
    },
}

/// The bytes that runs like this one measured, for one reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    pub reading: Reading,
    pub bounds: Bounds,
    /// The rows and sources the bounds come from.
    pub rows: u32,
    pub sources: u32,
    pub basis: Basis,
    /// The estimate's bytes for the reading.
    pub estimate: u128,
    /// `estimate × (1 + bounds.low)`, rounded down, and `estimate × (1 +
    /// bounds.high)`, rounded up.
    pub low: u128,
    pub high: u128,
}

choice! {
    /// What the validation range says about the device.
    pub enum Verdict {
        /// Even the pessimistic end fits: `Fit::pessimistic ≤ capacity`.
        Fits = "fits",
        /// Between the ends: the estimate fits but the pessimistic end does
        /// not, or the estimate does not fit but the optimistic end does.
        FitsOnlyOptimistic = "fits_only_optimistic",
        /// Not even the optimistic end fits: `Fit::optimistic > capacity`.
        DoesNotFit = "does_not_fit",
    }
    default DoesNotFit
}

/// The memory required at both ends of a range, margin included: the
/// range's reading at its end, plus what nvidia-smi shows above that reading
/// as estimated, times `1 + margin`. The reading is the first of
/// [`FIT_READINGS`] with a range: nvidia-smi's, what `required` is made of;
/// where too few device-wide rows give none, the reserved bytes' range with
/// the overhead as set; then the allocated bytes' with the allocator's cache
/// and the overhead as estimated. The ends never exclude the estimate
/// itself: when every validation row measured above the estimate (or every
/// one below), the estimate is the optimistic (or pessimistic) end, so that
/// `optimistic ≤ required ≤ pessimistic`: validation data may make "fits"
/// less sure, never surer than the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fit {
    /// The range the ends come from.
    pub range: Range,
    /// `(min(range.low, range.estimate) + nvidia_smi − range.estimate) × (1 +
    /// margin)`, rounded up as `required` is.
    pub optimistic: u128,
    /// `(max(range.high, range.estimate) + nvidia_smi − range.estimate) × (1 +
    /// margin)`.
    pub pessimistic: u128,
}

/// The readings a [`Fit`] tries, in order: the one `required` is made of
/// first, then those it contains.
pub const FIT_READINGS: [Reading; 3] = [Reading::NvidiaSmi, Reading::Reserved, Reading::Allocated];

impl Fit {
    /// The verdict against `capacity` bytes. Monotone: more capacity never
    /// gives a worse verdict.
    pub fn verdict(&self, capacity: u128) -> Verdict {
        if self.pessimistic <= capacity {
            Verdict::Fits
        } else if self.optimistic <= capacity {
            Verdict::FitsOnlyOptimistic
        } else {
            Verdict::DoesNotFit
        }
    }
}

/// The range of `reading` that runs like `config` measured, `estimate`
/// being `config`'s estimate. `None` for the activations and parameters
/// forms (no validation row states one: the rows are transformer
/// configurations) and when even the pooled cell has too few rows.
pub fn range(config: &Config, estimate: &Estimate, reading: Reading) -> Option<Range> {
    range_in(CELLS, config, estimate, reading)
}

/// The ends of the first range of [`FIT_READINGS`] as memory required, for
/// [`Fit::verdict`]; `None` where [`range`] is for all of them.
pub fn fit(config: &Config, estimate: &Estimate) -> Option<Fit> {
    fit_in(CELLS, config, estimate)
}

/// The verdict against the configuration's device; `None` without a device
/// or a [`fit`].
pub fn verdict(config: &Config, estimate: &Estimate) -> Option<Verdict> {
    let capacity = estimate.device_bytes?;
    fit(config, estimate).map(|fit| fit.verdict(capacity))
}

fn range_in(
    cells: &[Cell],
    config: &Config,
    estimate: &Estimate,
    reading: Reading,
) -> Option<Range> {
    if config.form != Form::Transformer {
        return None;
    }
    let profile = config.transformer.framework;
    let own = find(cells, reading, Some(profile));
    let (cell, bounds, basis) = match own.and_then(|c| c.range.map(|b| (c, b))) {
        Some((cell, bounds)) => (cell, bounds, Basis::Profile(profile)),
        None => {
            let pooled = find(cells, reading, None)?;
            let basis = Basis::Pooled {
                profile,
                rows: own.map_or(0, |c| c.rows),
                sources: own.map_or(0, |c| c.sources),
            };
            (pooled, pooled.range?, basis)
        }
    };
    let bytes = reading.of(estimate);
    Some(Range {
        reading,
        bounds,
        rows: cell.rows,
        sources: cell.sources,
        basis,
        estimate: bytes,
        low: scale(bytes, bounds.low, false),
        high: scale(bytes, bounds.high, true),
    })
}

fn fit_in(cells: &[Cell], config: &Config, estimate: &Estimate) -> Option<Fit> {
    let range = FIT_READINGS
        .iter()
        .find_map(|&reading| range_in(cells, config, estimate, reading))?;
    // Every reading is part of nvidia-smi's (the estimate's readings are
    // ordered), so this never underflows.
    let above = estimate.nvidia_smi.saturating_sub(range.estimate);
    let required = |end: u128| memory::with_margin(end.saturating_add(above), config);
    Some(Fit {
        optimistic: required(range.low.min(range.estimate)),
        pessimistic: required(range.high.max(range.estimate)),
        range,
    })
}

/// The table's cell of `reading` and `profile` (`None`: the pooled cell), if
/// any validation row measured it: its counts say why a profile has no range
/// of its own.
pub fn cell(reading: Reading, profile: Option<Framework>) -> Option<&'static Cell> {
    find(CELLS, reading, profile)
}

fn find(cells: &[Cell], reading: Reading, profile: Option<Framework>) -> Option<&Cell> {
    cells
        .iter()
        .find(|c| c.reading == reading && c.profile == profile)
}

/// `bytes × (1 + basis_points / 10 000)`, rounded up or down, exact up to
/// `u128::MAX`, where it saturates; a factor below zero (an error under
/// −100 %, which no measurement of a positive size gives) is zero.
fn scale(bytes: u128, basis_points: i32, up: bool) -> u128 {
    let factor = u128::try_from(10_000 + i64::from(basis_points)).unwrap_or(0);
    // bytes = whole × 10 000 + rest: whole × factor is exact, rest × factor
    // (below 10 000 × 2^32) is divided with the rounding asked for.
    let (whole, rest) = (bytes / 10_000, bytes % 10_000);
    let part = if up {
        (rest * factor).div_ceil(10_000)
    } else {
        rest * factor / 10_000
    };
    whole.saturating_mul(factor).saturating_add(part)
}

#[cfg(test)]
mod tests;
