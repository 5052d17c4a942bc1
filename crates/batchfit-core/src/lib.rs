//! The memory model behind batchfit.
//!
//! Raw text (URL query values, form fields) passes two stages: [`fields`] turns it
//! into validated numbers or names a [`fields::ParamError`]; the model functions
//! ([`activations::estimate`]) then take only validated inputs and cannot fail.
//! All sizes are integer bytes (`u128`, so that no product of in-range inputs can
//! overflow); [`units`] formats them as GB (10^9 bytes) or GiB (2^30 bytes).
//!
//! This crate depends on no web crate and does no IO.
//!
//! ```
//! use batchfit_core::{activations, Precision};
//!
//! let input = activations::ActivationsInput {
//!     batch: 16,
//!     seq: 2048,
//!     hidden: 4096,
//!     layers: 32,
//!     precision: Precision::Bf16,
//!     k: activations::Multiplier::from_hundredths(1000),
//!     checkpointing: false,
//! };
//! assert_eq!(activations::estimate(&input).total, 85_899_345_920);
//! ```

pub mod activations;
pub mod fields;
pub mod query;
pub mod units;

mod precision;

pub use precision::Precision;
