//! What `leptos::prelude` gives a CSR app that builds its own DOM: Leptos
//! 0.8's reactive graph (signals, memos, effects, owners) and its DOM
//! helpers, taken from the crates the `leptos` umbrella re-exports. The
//! umbrella itself is left out: its `server_fn` dependency is always built
//! with the `browser` feature, which exports wasm-streams' classes into the
//! module whether or not anything uses them (docs/performance-log.md).

pub use leptos_dom::helpers::{set_timeout, window};
pub use reactive_graph::computed::Memo;
pub use reactive_graph::effect::{Effect, RenderEffect};
pub use reactive_graph::graph::untrack;
pub use reactive_graph::owner::Owner;
pub use reactive_graph::prelude::*;
pub use reactive_graph::signal::{ReadSignal, RwSignal, signal};
