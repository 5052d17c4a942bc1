//! The two charts: memory against batch size, and the step as a timeline
//! (the breakdown bar is markup, `results::bar`, in their colours). The
//! drawing functions are generic over plotters' `DrawingBackend`, so the browser draws them on a `<canvas>` and the native
//! tests into an SVG string; every number drawn arrives already computed.
//!
//! Shapes are plotters elements placed at pixel coordinates computed here (the
//! scales, the ticks, the layout). Text is drawn by the backend itself, aligned
//! by its anchor, and measured by a width function the caller passes in (the
//! canvas's `measureText` in the browser): plotters' own text layout measures
//! each string with a styled `<span>` on the web, a forced layout per label.

mod mount;
mod scale;
mod sweep;
mod text;
mod timeline;

use batchfit_core::units::Units;

use crate::i18n::Lang;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::BackendCoord;

pub use mount::{sweep_canvas, timeline_canvas, timeline_point_at};
use sweep::sweep;
use timeline::timeline;

pub use batchfit_core::memory::Component;

/// A component's colour, the same in the bar, the legend and the table
/// swatches: Okabe–Ito's eight, with Paul Tol's wine for the rare framework
/// buffers and two greys for what lies beyond the tensors (overhead,
/// margin), distinguishable with the common colour-vision deficiencies and
/// readable on light and dark backgrounds; every item also has its label.
pub fn color_hex(component: Component) -> &'static str {
    match component {
        Component::Weights => "#0072B2",
        Component::Gradients => "#E69F00",
        Component::OptimizerStates => "#009E73",
        Component::OptimizerStep => "#D55E00",
        Component::Buffers => "#882255",
        Component::KvCache => "#56B4E9",
        Component::Activations => "#CC79A7",
        Component::AllocatorCache => "#F0E442",
        Component::Overhead => "#999999",
        Component::Margin => "#DDDDDD",
    }
}

fn color(component: Component) -> RGBColor {
    hex(color_hex(component))
}

/// Required memory against batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepChart {
    /// (batch, required bytes) in increasing batch order, as `memory::sweep`
    /// gives its rows; a point out of that order is not drawn, nor is batch 0,
    /// which has no place on a log axis.
    pub points: Vec<(u64, u128)>,
    pub chosen_batch: u64,
    pub capacity: Option<(String, u128)>,
    pub x_label: String,
    pub y_label: String,
    pub units: Units,
    /// The page's language: the decimal separator of the numbers drawn.
    pub lang: Lang,
    pub dark: bool,
}

/// Allocated memory through one step (`memory::timeline`): a stacked column
/// per point, in the bar's colours, the device's capacity and the peak marked.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineChart {
    /// Per point, (component, bytes) in the bar's order.
    pub points: Vec<Vec<(Component, u128)>>,
    /// The phases' names under the axis, each at its first point.
    pub phases: Vec<(usize, String)>,
    /// The point that sets the peak and its label ("Peak: the loss").
    pub peak: Option<(usize, String)>,
    pub capacity: Option<(String, u128)>,
    pub y_label: String,
    pub units: Units,
    /// The page's language: the decimal separator of the numbers drawn.
    pub lang: Lang,
    pub dark: bool,
}

/// The width in pixels a text takes in the charts' font ([`FONT`]).
pub type TextWidth<'a> = &'a dyn Fn(&str) -> i32;

/// Draws memory against batch size (log2 axis) with the capacity line into `area`.
pub fn draw_sweep<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &SweepChart,
    width: TextWidth<'_>,
) -> Result<(), String> {
    sweep(area, chart, width).map_err(|e| e.to_string())
}

/// Draws the step's timeline into `area`.
pub fn draw_timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &TimelineChart,
    width: TextWidth<'_>,
) -> Result<(), String> {
    timeline(area, chart, width).map_err(|e| e.to_string())
}

type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// "#RRGGBB" to a colour; only ever called with the literals above.
fn hex(text: &str) -> RGBColor {
    let channel = |i: usize| {
        text.get(i..i + 2)
            .and_then(|c| u8::from_str_radix(c, 16).ok())
            .unwrap_or(0)
    };
    RGBColor(channel(1), channel(3), channel(5))
}

/// A straight line from `from` to `to`.
fn segment<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    from: BackendCoord,
    to: BackendCoord,
    style: ShapeStyle,
) -> Drawn<DB> {
    area.draw(&PathElement::new([from, to], style))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
