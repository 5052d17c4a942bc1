//! The memory model behind batchfit.
//!
//! Raw text (URL query values, form fields) passes two stages: [`fields`] (through
//! [`query::parse`]) turns it into validated numbers or names a
//! [`fields::ParamError`]; the model functions then take only validated inputs and
//! cannot fail. [`memory::estimate`] answers for all three forms: the activations
//! rule of thumb ([`activations`]), the parameters rule ([`parameters`]) and the
//! transformer model ([`transformer`]); [`memory`] also sweeps batches, finds the
//! largest batch that fits and what would make a configuration fit. [`presets`]
//! holds published models and devices, [`import::hf`] imports a Hugging Face config.json,
//! [`import`] a DeepSpeed config ([`import::deepspeed`]) and `TrainingArguments` ([`import::training_args`]) as URL parameters.
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
pub mod advice;
pub mod confidence;
pub mod fields;
pub mod hardware;
pub mod import;
pub mod measured;
pub mod memory;
pub mod param;
pub mod parameters;
pub mod presets;
pub mod query;
pub mod serving;
pub mod transformer;
pub mod units;

mod arith;
mod choice;
mod decimal;
mod precision;

pub use precision::Precision;
