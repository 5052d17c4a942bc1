//! End-to-end tests: the release build, served the way users get it, in headless
//! Chromium. One binary (matklad, "Delete Cargo Integration Tests"); one module per area.

mod activations;
mod charts;
mod chunks;
mod embed;
mod forms;
mod perf;
mod screenshots;
mod security;
mod share;
mod shell;
