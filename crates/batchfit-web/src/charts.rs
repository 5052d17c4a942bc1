//! The three charts: the stacked breakdown bar with the device's capacity,
//! memory against batch size, and the step as a timeline. The drawing functions are generic over plotters'
//! `DrawingBackend`, so the browser draws them on a `<canvas>` and the native
//! tests into an SVG string; every number drawn arrives already computed.
//!
//! Shapes are plotters elements placed at pixel coordinates computed here (the
//! scales, the ticks, the layout). Text is drawn by the backend itself, aligned
//! by its anchor, and measured by a width function the caller passes in (the
//! canvas's `measureText` in the browser): plotters' own text layout measures
//! each string with a styled `<span>` on the web, a forced layout per label.

use std::error::Error;
use std::fmt;

use batchfit_core::units::{self, Units, format_bytes, size};

use crate::canvas::{self, Canvas};
use crate::dom::{self, El, Rx, el, rx};
use crate::prelude::*;
use plotters::coord::Shift;
use plotters::element::{DashedPathElement, Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind, FontFamily, FontTransform,
};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ResizeObserver, ResizeObserverEntry};

/// One memory component; its colour is the same in the bar, the legend and the table swatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    Weights,
    Gradients,
    OptimizerStates,
    OptimizerStep,
    /// Framework buffers alive through the step (DeepSpeed's gradient bucket).
    Buffers,
    KvCache,
    Activations,
    /// The caching allocator's reserved but unused bytes at the peak.
    AllocatorCache,
    /// The CUDA context and libraries' workspaces.
    Overhead,
    /// The safety margin the user asked for.
    Margin,
}

impl Component {
    /// In the order of the bar: what is alive at the peak, then what is added
    /// to it up to the required memory.
    pub const ALL: [Component; 10] = [
        Self::Weights,
        Self::Gradients,
        Self::OptimizerStates,
        Self::OptimizerStep,
        Self::Buffers,
        Self::KvCache,
        Self::Activations,
        Self::AllocatorCache,
        Self::Overhead,
        Self::Margin,
    ];

    /// Okabe–Ito's eight, with Paul Tol's wine for the rare framework buffers
    /// and two greys for what lies beyond the tensors (overhead, margin):
    /// distinguishable with the common colour-vision deficiencies and readable
    /// on light and dark backgrounds; every item also has its label.
    pub fn color_hex(self) -> &'static str {
        match self {
            Self::Weights => "#0072B2",
            Self::Gradients => "#E69F00",
            Self::OptimizerStates => "#009E73",
            Self::OptimizerStep => "#D55E00",
            Self::Buffers => "#882255",
            Self::KvCache => "#56B4E9",
            Self::Activations => "#CC79A7",
            Self::AllocatorCache => "#F0E442",
            Self::Overhead => "#999999",
            Self::Margin => "#DDDDDD",
        }
    }

    fn color(self) -> RGBColor {
        hex(self.color_hex())
    }
}

/// The stacked bar: one segment per component, and the device's capacity. Its
/// legend is the page's (results.rs), where each item is text with its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakdownChart {
    /// (component, bytes); zero-byte segments are not drawn.
    pub segments: Vec<(Component, u128)>,
    /// (device name such as "H100 80GB", bytes).
    pub capacity: Option<(String, u128)>,
    pub units: Units,
    /// Light text and axes, for a dark background.
    pub dark: bool,
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
    pub dark: bool,
}

/// The width in pixels a text takes in the charts' font ([`FONT`]).
pub type TextWidth<'a> = &'a dyn Fn(&str) -> i32;

/// Draws the breakdown bar and its capacity marker into `area`.
pub fn draw_breakdown<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &BreakdownChart,
    width: TextWidth<'_>,
) -> Result<(), String> {
    breakdown(area, chart, width).map_err(|e| e.to_string())
}

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

/// The size of the charts' one font ([`canvas::FONT`]), for backends that ask.
const FONT_PX: f64 = 12.0;

/// "#RRGGBB" to a colour; only ever called with the literals above.
fn hex(text: &str) -> RGBColor {
    let channel = |i: usize| {
        text.get(i..i + 2)
            .and_then(|c| u8::from_str_radix(c, 16).ok())
            .unwrap_or(0)
    };
    RGBColor(channel(1), channel(3), channel(5))
}

/// Colours shared by both charts.
struct Theme {
    fg: RGBColor,
    grid: RGBAColor,
    capacity: RGBColor,
    line: RGBColor,
}

impl Theme {
    fn new(dark: bool) -> Self {
        let (fg, grid, capacity, line) = if dark {
            ("#E6E6E6", WHITE.mix(0.15), WHITE, Component::KvCache)
        } else {
            ("#333333", BLACK.mix(0.1), BLACK, Component::Weights)
        };
        Self {
            fg: hex(fg),
            grid,
            capacity,
            line: line.color(),
        }
    }

    /// Text in the foreground colour, placed by `anchor`.
    fn text(&self, h: HPos, v: VPos) -> LabelStyle {
        LabelStyle {
            color: self.fg,
            anchor: Pos::new(h, v),
            upwards: false,
        }
    }
}

/// How a [`Label`] is drawn. The backend aligns the text by the anchor itself
/// (the canvas's `textAlign`/`textBaseline`, SVG's `text-anchor`), so nothing
/// here lays text out; a backend that asks gets [`Unmeasured`].
#[derive(Clone, Copy)]
struct LabelStyle {
    color: RGBColor,
    anchor: Pos,
    /// Reads bottom to top, for the vertical axis's name.
    upwards: bool,
}

impl BackendTextStyle for LabelStyle {
    type FontError = Unmeasured;

    fn color(&self) -> BackendColor {
        self.color.to_backend_color()
    }

    fn size(&self) -> f64 {
        FONT_PX
    }

    fn transform(&self) -> FontTransform {
        if self.upwards {
            FontTransform::Rotate270
        } else {
            FontTransform::None
        }
    }

    fn anchor(&self) -> Pos {
        self.anchor
    }

    fn family(&self) -> FontFamily<'_> {
        FontFamily::SansSerif
    }

    fn layout_box(&self, _: &str) -> Result<((i32, i32), (i32, i32)), Unmeasured> {
        Err(Unmeasured)
    }

    fn draw<E, DrawFunc: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        _: &str,
        _: BackendCoord,
        _: DrawFunc,
    ) -> Result<Result<(), E>, Unmeasured> {
        Err(Unmeasured)
    }
}

/// What a backend gets when it asks the charts' text for its size or its glyphs:
/// the charts only draw on backends that place text themselves.
#[derive(Debug)]
struct Unmeasured;

impl fmt::Display for Unmeasured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("chart text is measured by the chart, not laid out by plotters")
    }
}

impl Error for Unmeasured {}

/// A text at a point of its area, drawn with `DrawingBackend::draw_text`.
struct Label<'a> {
    text: &'a str,
    at: BackendCoord,
    style: LabelStyle,
}

impl<'a> PointCollection<'a, BackendCoord> for &'a Label<'_> {
    type Point = &'a BackendCoord;
    type IntoIter = std::iter::Once<&'a BackendCoord>;

    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<DB: DrawingBackend> Drawable<DB> for Label<'_> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        match points.next() {
            Some(at) => backend.draw_text(self.text, &self.style, at),
            None => Ok(()),
        }
    }
}

fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    at: BackendCoord,
    style: LabelStyle,
) -> Drawn<DB> {
    area.draw(&Label { text, at, style })
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

/// Values mapped linearly onto pixels: `values.0` lands on `pixels.0` and
/// `values.1` on `pixels.1` (the vertical axes run upwards, so backwards).
#[derive(Clone, Copy)]
struct Scale {
    values: (f64, f64),
    pixels: (i32, i32),
}

impl Scale {
    fn at(self, value: f64) -> i32 {
        let share = (value - self.values.0) / (self.values.1 - self.values.0);
        let span = f64::from(self.pixels.1 - self.pixels.0);
        // `as` saturates, so a value far off the axis stays a finite coordinate.
        self.pixels.0 + (share * span).round() as i32
    }
}

/// The unit the axis counts in, chosen as `format_bytes` would for `max`: its
/// size in bytes and its label.
fn axis_unit(max: u128, units: Units) -> (f64, &'static str) {
    let unit = size(max, units).unit;
    let base: u128 = match units {
        Units::Decimal => 1000,
        Units::Binary => 1024,
    };
    // Ten of a unit always prints in that unit.
    let bytes = (0..5)
        .map(|power| base.pow(power))
        .find(|bytes| size(bytes * 10, units).unit == unit)
        .unwrap_or(1);
    (bytes as f64, unit)
}

/// An axis tick: "0", "40 GB", "2.5 GiB".
fn tick(value: f64, unit: &str) -> String {
    if value.abs() < 5e-4 {
        return "0".into();
    }
    let text = units::fixed(value, 3);
    format!(
        "{} {unit}",
        text.trim_end_matches('0').trim_end_matches('.')
    )
}

/// Round values from 0 up to `max`, at least 2 and at most `most` (at least 2)
/// of them: steps of 1, 2 or 5 times a power of ten, the smallest that keeps
/// within `most`, or the largest that still reaches `max` when that one would not.
fn round_ticks(max: f64, most: usize) -> Vec<f64> {
    if !(max.is_finite() && max > 0.0) {
        return vec![0.0];
    }
    let most = most.max(2);
    // The epsilon keeps a tick that lands on `max` despite rounding.
    let gaps = |step: f64| ((max / step) * (1.0 + 1e-9)).floor() as usize;
    let power = |value: f64| 10f64.powi(value.log10().floor() as i32);
    // Steps from the power of ten under max / most: ten times it is past
    // max / most already, so one of them keeps within `most`.
    let low = power(max / most as f64);
    let mut step = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .into_iter()
        .map(|times| times * low)
        .find(|step| gaps(*step) < most)
        .unwrap_or(100.0 * low);
    if step > max {
        let high = power(max);
        step = [5.0, 2.0]
            .into_iter()
            .map(|times| times * high)
            .find(|step| *step <= max)
            .unwrap_or(high);
    }
    (0..=gaps(step).min(most - 1))
        .map(|i| i as f64 * step)
        .collect()
}

fn breakdown<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &BreakdownChart,
    text_width: TextWidth<'_>,
) -> Drawn<DB> {
    let (width, height) = area.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    if width < 60 || height < 30 {
        return Ok(());
    }
    let theme = Theme::new(chart.dark);
    let segments: Vec<_> = Component::ALL
        .iter()
        .flat_map(|c| chart.segments.iter().filter(move |s| s.0 == *c && s.1 > 0))
        .collect();
    // The axis reaches past both the total and the capacity, so the marker shows.
    let total: f64 = segments.iter().map(|s| s.1 as f64).sum();
    let capacity = chart.capacity.as_ref();
    let most = total.max(capacity.map_or(0.0, |c| c.1 as f64));
    let (unit_bytes, unit) = axis_unit(most as u128, chart.units);
    let x_max = if most > 0.0 {
        most / unit_bytes * 1.05
    } else {
        1.0
    };
    // The tick labels take the 18 pixels under the axis; the capacity's name
    // sits above the bar, inside the plot.
    let (left, right) = (6, width - 24);
    let (top, axis) = (0, area.dim_in_pixel().1 as i32 - 18);
    let x = Scale {
        values: (0.0, x_max),
        pixels: (left, right),
    };
    let plot_height = f64::from(axis - top).max(1.0);
    let label_room = if capacity.is_some() { 16.0 } else { 2.0 };
    let bar_top = axis - (plot_height - label_room).max(0.3 * plot_height).round() as i32;

    let mut start = 0.0;
    for (component, bytes) in &segments {
        let end = start + *bytes as f64 / unit_bytes;
        area.draw(&Rectangle::new(
            [(x.at(start), bar_top), (x.at(end), axis)],
            component.color().filled(),
        ))?;
        start = end;
    }

    segment(area, (left, axis), (right, axis), theme.fg.into())?;
    let room = f64::from(right - left) / f64::from(text_width(&tick(x_max, unit)) + 16);
    for value in round_ticks(x_max, room.clamp(2.0, 8.0) as usize) {
        let at = x.at(value);
        segment(area, (at, axis), (at, axis + 3), theme.fg.into())?;
        let text = tick(value, unit);
        // Centred under its tick, but never past the canvas's edges.
        let half = text_width(&text) / 2;
        let centre = at.min(width - half).max(half);
        draw_label(
            area,
            &text,
            (centre, axis + 5),
            theme.text(HPos::Center, VPos::Top),
        )?;
    }

    if let Some((name, bytes)) = capacity {
        let value = *bytes as f64 / unit_bytes;
        let at = x.at(value);
        segment(area, (at, top), (at, axis), theme.capacity.stroke_width(2))?;
        let (side, dx) = if value > x_max / 2.0 {
            (HPos::Right, -5)
        } else {
            (HPos::Left, 5)
        };
        draw_label(area, name, (at + dx, top), theme.text(side, VPos::Top))?;
    }
    Ok(())
}

fn sweep<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &SweepChart,
    text_width: TextWidth<'_>,
) -> Drawn<DB> {
    let (width, height) = area.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    if width < 120 || height < 80 {
        return Ok(());
    }
    let theme = Theme::new(chart.dark);
    // The rows arrive in order: keeping each batch above the last one kept
    // costs no sort (and no sorting code in the page).
    let mut last = 0;
    let points: Vec<(u64, u128)> = chart
        .points
        .iter()
        .copied()
        .filter(|p| {
            let next = p.0 > last;
            last = last.max(p.0);
            next
        })
        .collect();
    let capacity = chart.capacity.as_ref();
    let most = points
        .iter()
        .map(|p| p.1)
        .chain(capacity.map(|c| c.1))
        .max()
        .unwrap_or(0);
    let (unit_bytes, unit) = axis_unit(most, chart.units);
    let y_max = if most > 0 {
        most as f64 / unit_bytes * 1.05
    } else {
        1.0
    };
    let log = |batch: u64| (batch as f64).log2();
    let (low, high) = match (points.first(), points.last()) {
        (Some(first), Some(last)) => (log(first.0), log(last.0)),
        _ => (0.0, 4.0),
    };
    let pad = ((high - low) * 0.04).max(0.5);

    // Left of the plot: the vertical axis's name, then its tick labels; under
    // it: the batch labels, then the horizontal axis's name.
    let y_ticks: Vec<(f64, String)> = round_ticks(y_max, (height / 40).clamp(2, 8) as usize)
        .into_iter()
        .map(|value| (value, tick(value, unit)))
        .collect();
    let widest_y = y_ticks.iter().map(|t| text_width(&t.1)).max().unwrap_or(0);
    let (left, right) = (8 + (widest_y + 26).min(width / 2), width - 8);
    let (top, bottom) = (18, height - 8 - 38);
    let x = Scale {
        values: (low - pad, high + pad),
        pixels: (left, right),
    };
    let y = Scale {
        values: (0.0, y_max),
        pixels: (bottom, top),
    };
    let xy = |(batch, bytes): (u64, u128)| (x.at(log(batch)), y.at(bytes as f64 / unit_bytes));

    // Ticks at the powers of two (the sweep's own batches), thinned so that
    // the widest label fits between neighbours.
    let mut batches: Vec<u64> = points
        .iter()
        .map(|p| p.0)
        .filter(|b| b.is_power_of_two())
        .collect();
    if batches.is_empty() {
        batches = points.iter().map(|p| p.0).collect();
    }
    let widest = batches.last().map_or(0, |b| text_width(&b.to_string()));
    let room = ((right - left) / (widest + 12)).max(1) as usize;
    let every = batches.len().div_ceil(room).max(1);

    for batch in batches.iter().step_by(every) {
        let at = x.at(log(*batch));
        segment(area, (at, top), (at, bottom), theme.grid.into())?;
        segment(area, (at, bottom), (at, bottom + 3), theme.fg.into())?;
        let style = theme.text(HPos::Center, VPos::Top);
        draw_label(area, &batch.to_string(), (at, bottom + 5), style)?;
    }
    for (value, text) in &y_ticks {
        let at = y.at(*value);
        segment(area, (left, at), (right, at), theme.grid.into())?;
        segment(area, (left - 3, at), (left, at), theme.fg.into())?;
        draw_label(
            area,
            text,
            (left - 5, at),
            theme.text(HPos::Right, VPos::Center),
        )?;
    }
    segment(area, (left, top), (left, bottom), theme.fg.into())?;
    segment(area, (left, bottom), (right, bottom), theme.fg.into())?;
    let centre = (left + right) / 2;
    let style = theme.text(HPos::Center, VPos::Bottom);
    draw_label(area, &chart.x_label, (centre, height - 8), style)?;
    let style = LabelStyle {
        upwards: true,
        ..theme.text(HPos::Center, VPos::Top)
    };
    draw_label(area, &chart.y_label, (8, (top + bottom) / 2), style)?;

    if let Some((name, bytes)) = capacity {
        let at = y.at(*bytes as f64 / unit_bytes);
        let style = theme.capacity.stroke_width(2);
        area.draw(&DashedPathElement::new(
            [(left, at), (right, at)],
            6,
            4,
            style,
        ))?;
        // The name goes to the side away from the chosen batch's label, which
        // sits beside the chosen point (below): the two never overlap.
        let chosen_right = points
            .iter()
            .find(|p| p.0 == chart.chosen_batch)
            .is_some_and(|p| log(p.0) > (low + high) / 2.0);
        let (side, x) = if chosen_right {
            (HPos::Left, left + 4)
        } else {
            (HPos::Right, right - 4)
        };
        draw_label(area, name, (x, at - 3), theme.text(side, VPos::Bottom))?;
    }

    area.draw(&PathElement::new(
        points.iter().map(|p| xy(*p)).collect::<Vec<_>>(),
        theme.line.stroke_width(2),
    ))?;
    // A batch that does not fit is a hollow point, so the chart does not rely on colour alone.
    for point in &points {
        let fits = capacity.is_none_or(|c| point.1 <= c.1);
        let style = if fits {
            theme.line.filled()
        } else {
            theme.line.stroke_width(2)
        };
        area.draw(&Circle::new(xy(*point), 4, style))?;
    }

    if let Some(chosen) = points.iter().find(|p| p.0 == chart.chosen_batch) {
        let at = xy(*chosen);
        area.draw(&Circle::new(at, 7, theme.line.filled()))?;
        area.draw(&Circle::new(at, 7, theme.fg.stroke_width(2)))?;
        let (side, dx) = if log(chosen.0) > (low + high) / 2.0 {
            (HPos::Right, -8)
        } else {
            (HPos::Left, 8)
        };
        let text = format!("{}: {}", chosen.0, format_bytes(chosen.1, chart.units));
        draw_label(
            area,
            &text,
            (at.0 + dx, at.1 - 8),
            theme.text(side, VPos::Bottom),
        )?;
    }
    Ok(())
}

/// The timeline's vertical scale and the horizontal span of its columns, for
/// a canvas `width` pixels wide: what the drawing uses, and what the page maps
/// a pointer's position with.
pub struct TimelineLayout {
    pub left: i32,
    pub right: i32,
    unit_bytes: f64,
    y_max: f64,
    ticks: Vec<(f64, String)>,
}

impl TimelineLayout {
    pub fn new(
        chart: &TimelineChart,
        (width, height): (i32, i32),
        text_width: TextWidth<'_>,
    ) -> Self {
        let most = chart
            .points
            .iter()
            .map(|p| p.iter().map(|c| c.1).sum::<u128>())
            .chain(chart.capacity.as_ref().map(|c| c.1))
            .max()
            .unwrap_or(0);
        let (unit_bytes, unit) = axis_unit(most, chart.units);
        let y_max = if most > 0 {
            most as f64 / unit_bytes * 1.08
        } else {
            1.0
        };
        let ticks: Vec<(f64, String)> = round_ticks(y_max, (height / 40).clamp(2, 6) as usize)
            .into_iter()
            .map(|value| (value, tick(value, unit)))
            .collect();
        let widest = ticks.iter().map(|t| text_width(&t.1)).max().unwrap_or(0);
        Self {
            left: 8 + (widest + 26).min(width / 2),
            right: width - 8,
            unit_bytes,
            y_max,
            ticks,
        }
    }

    /// The point under the horizontal position `x` (pixels), if any.
    pub fn point_at(&self, x: f64, points: usize) -> Option<usize> {
        let span = f64::from(self.right - self.left);
        if points == 0 || span <= 0.0 {
            return None;
        }
        let at = ((x - f64::from(self.left)) / span * points as f64).floor();
        (at >= 0.0).then(|| (at as usize).min(points - 1))
    }
}

fn timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &TimelineChart,
    text_width: TextWidth<'_>,
) -> Drawn<DB> {
    let (width, height) = area.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    let n = chart.points.len();
    if width < 120 || height < 80 || n == 0 {
        return Ok(());
    }
    let theme = Theme::new(chart.dark);
    let layout = TimelineLayout::new(chart, (width, height), text_width);
    let (left, right) = (layout.left, layout.right);
    let (top, bottom) = (20, height - 24);
    let y = Scale {
        values: (0.0, layout.y_max),
        pixels: (bottom, top),
    };
    let column = |i: usize| {
        let span = i64::from(right - left);
        let at = |k: usize| left + (span * k as i64 / n as i64) as i32;
        (at(i), at(i + 1).max(at(i) + 1))
    };
    for (value, text) in &layout.ticks {
        let at = y.at(*value);
        segment(area, (left, at), (right, at), theme.grid.into())?;
        segment(area, (left - 3, at), (left, at), theme.fg.into())?;
        let style = theme.text(HPos::Right, VPos::Center);
        draw_label(area, text, (left - 5, at), style)?;
    }
    for (i, point) in chart.points.iter().enumerate() {
        let (x0, x1) = column(i);
        let mut below = 0.0;
        for (component, bytes) in point.iter().filter(|c| c.1 > 0) {
            let above = below + *bytes as f64 / layout.unit_bytes;
            area.draw(&Rectangle::new(
                [(x0, y.at(above)), (x1, y.at(below))],
                component.color().filled(),
            ))?;
            below = above;
        }
    }
    segment(area, (left, top), (left, bottom), theme.fg.into())?;
    segment(area, (left, bottom), (right, bottom), theme.fg.into())?;
    // Each phase's name: centred under its columns where it fits there, else
    // at its column, kept inside the plot; a name that would run into the
    // one before it is left out (the readout names every moment).
    let mut free_from = left;
    for (k, (first, name)) in chart.phases.iter().enumerate() {
        let end = chart.phases.get(k + 1).map_or(n, |next| next.0);
        let (x0, x1) = (column(*first).0, column(end.max(first + 1) - 1).1);
        let text = text_width(name);
        let centre = if x1 - x0 >= text + 8 {
            (x0 + x1) / 2
        } else {
            ((x0 + x1) / 2).clamp(left + text / 2, right - text / 2)
        };
        segment(area, (x0, bottom), (x0, bottom + 4), theme.fg.into())?;
        if centre - text / 2 < free_from {
            continue;
        }
        draw_label(
            area,
            name,
            (centre, bottom + 5),
            theme.text(HPos::Center, VPos::Top),
        )?;
        free_from = centre + text / 2 + 8;
    }
    let style = LabelStyle {
        upwards: true,
        ..theme.text(HPos::Center, VPos::Top)
    };
    draw_label(area, &chart.y_label, (8, (top + bottom) / 2), style)?;

    // The capacity's name sits under its line at the right, or at the left
    // where the peak's marker would cross it.
    let peak_x = chart.peak.as_ref().map(|(index, _)| {
        let (x0, x1) = column(*index);
        (x0 + x1) / 2
    });
    if let Some((name, bytes)) = &chart.capacity {
        let at = y.at(*bytes as f64 / layout.unit_bytes);
        let style = theme.capacity.stroke_width(2);
        area.draw(&DashedPathElement::new(
            [(left, at), (right, at)],
            6,
            4,
            style,
        ))?;
        let from = right - 4 - text_width(name);
        let (side, x) = match peak_x {
            Some(x) if x >= from - 4 => (HPos::Left, left + 4),
            _ => (HPos::Right, right - 4),
        };
        draw_label(area, name, (x, at + 3), theme.text(side, VPos::Top))?;
    }
    if let Some((index, label)) = &chart.peak
        && let Some(point) = chart.points.get(*index)
    {
        let (x0, x1) = column(*index);
        let at = (x0 + x1) / 2;
        let total: u128 = point.iter().map(|c| c.1).sum();
        let peak_y = y.at(total as f64 / layout.unit_bytes);
        segment(area, (at, top - 4), (at, peak_y), theme.fg.stroke_width(2))?;
        let text = format!("{label}: {}", format_bytes(total, chart.units));
        let (side, dx) = if at > (left + right) / 2 {
            (HPos::Right, -4)
        } else {
            (HPos::Left, 4)
        };
        draw_label(area, &text, (at + dx, top - 6), theme.text(side, VPos::Top))?;
    }
    Ok(())
}

/// The step's timeline on a canvas; see [`TimelineChart`].
pub fn timeline_canvas(chart: Rx<TimelineChart>, label: Rx<String>) -> El {
    chart_canvas(
        "timeline-chart",
        "chart-timeline",
        chart,
        label,
        draw_timeline,
    )
}

/// The timeline's point under the horizontal position `x` (CSS pixels from
/// the canvas's left edge), by the layout the drawing used.
pub fn timeline_point_at(
    element: &HtmlCanvasElement,
    chart: &TimelineChart,
    x: f64,
) -> Option<usize> {
    let context = element.get_context("2d").ok().flatten()?;
    let context = context.dyn_into::<CanvasRenderingContext2d>().ok()?;
    context.set_font(canvas::FONT);
    let text_width = |text: &str| {
        context
            .measure_text(text)
            .map_or(0, |metrics| metrics.width().ceil() as i32)
    };
    let size = (element.client_width(), element.client_height());
    TimelineLayout::new(chart, size, &text_width).point_at(x, chart.points.len())
}

/// The breakdown bar on a canvas; see [`BreakdownChart`].
pub fn breakdown_canvas(chart: Rx<BreakdownChart>, label: Rx<String>) -> El {
    chart_canvas(
        "breakdown-chart",
        "chart-breakdown",
        chart,
        label,
        draw_breakdown,
    )
}

/// Memory against batch size on a canvas; see [`SweepChart`].
pub fn sweep_canvas(chart: Rx<SweepChart>, label: Rx<String>) -> El {
    chart_canvas("sweep-chart", "chart-sweep", chart, label, draw_sweep)
}

type Draw<T> = fn(&DrawingArea<Canvas, Shift>, &T, TextWidth<'_>) -> Result<(), String>;

/// A `<canvas>` sized by its CSS box times the device pixel ratio (so it stays
/// crisp), redrawn when the chart's data or the box's size changes, and only then.
/// Only the binding is generic: the canvas, its observer and the painting are
/// compiled once for the three charts.
fn chart_canvas<T: PartialEq + 'static>(
    test_id: &'static str,
    class: &'static str,
    chart: Rx<T>,
    label: Rx<String>,
    draw: Draw<T>,
) -> El {
    let (canvas, element, size) = observed_canvas(test_id, class, label);
    dom::bind(
        rx(move || size.get().map(|size| (size, chart()))),
        Box::new(move |drawn| {
            if let Some((size, chart)) = drawn {
                paint(&element, *size, &|area, text_width| {
                    draw(area, chart, text_width)
                });
            }
        }),
    );
    canvas
}

/// The chart's `<canvas>` and its CSS size as a `ResizeObserver` last
/// reported it (it reports once as soon as it observes): reading the
/// element's box instead would force a layout.
fn observed_canvas(
    test_id: &'static str,
    class: &'static str,
    label: Rx<String>,
) -> (El, HtmlCanvasElement, RwSignal<Option<(f64, f64)>>) {
    let canvas = el("canvas")
        .attr("data-testid", test_id)
        .class(class)
        .attr("role", "img")
        .bind_attr("aria-label", rx(move || Some(label())));
    let element: HtmlCanvasElement = canvas.as_();
    let size = RwSignal::new(None::<(f64, f64)>);
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let Some(entry) = entries.iter().last() else {
            return;
        };
        let rect = entry.unchecked_into::<ResizeObserverEntry>().content_rect();
        let reported = Some((rect.width(), rect.height()));
        if size.get_untracked() != reported {
            size.set(reported);
        }
    });
    if let Ok(observer) = ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&element);
        dom::on_cleanup_local(move || {
            observer.disconnect();
            drop(callback);
        });
    }
    (canvas, element, size)
}

/// One chart's drawing on the canvas: `draw` with the drawing area and the
/// text measure.
type Drawing<'a> = &'a dyn Fn(&DrawingArea<Canvas, Shift>, TextWidth<'_>) -> Result<(), String>;

/// Draws in CSS pixels on a bitmap of device pixels: the context is scaled by
/// the device pixel ratio and plotters is given an area of the CSS size.
fn paint(element: &HtmlCanvasElement, (width, height): (f64, f64), draw: Drawing<'_>) {
    let ratio = window().device_pixel_ratio();
    let ratio = if ratio.is_finite() && ratio > 0.0 {
        ratio
    } else {
        1.0
    };
    let pixels = |css: f64| (css * ratio).round() as u32;
    // Setting a size clears the bitmap and resets the context even when it is
    // unchanged, so only a new size is set; otherwise the old drawing is cleared.
    if element.width() != pixels(width) {
        element.set_width(pixels(width));
    }
    if element.height() != pixels(height) {
        element.set_height(pixels(height));
    }
    let context = element.get_context("2d").ok().flatten();
    let Some(context) = context.and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else {
        return;
    };
    let cleared = context.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0).is_ok() && {
        let (device_width, device_height) = (element.width(), element.height());
        context.clear_rect(0.0, 0.0, device_width.into(), device_height.into());
        context
            .set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)
            .is_ok()
    };
    if !cleared {
        return;
    }
    context.set_font(canvas::FONT);
    let text_width = |text: &str| {
        context
            .measure_text(text)
            .map_or(0, |metrics| metrics.width().ceil() as i32)
    };
    let area = Canvas {
        context: context.clone(),
        size: (width as u32, height as u32),
    }
    .into_drawing_area();
    let drawn = draw(&area, &text_width).and_then(|()| area.present().map_err(|e| e.to_string()));
    if let Err(error) = drawn {
        leptos_dom::warn!("chart not drawn: {error}");
    }
}
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    const GB: u128 = 1_000_000_000;
    const GIB: u128 = 1 << 30;

    /// Text widths for the native tests: deterministic, about what 12 px
    /// sans-serif takes for digits and lower-case letters.
    fn width(text: &str) -> i32 {
        7 * text.chars().count() as i32
    }

    /// Draws into an SVG string of `size` pixels; the drawing's result and the SVG.
    fn render(
        size: (u32, u32),
        draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
    ) -> (Result<(), String>, String) {
        let mut out = String::new();
        let drawn = {
            let area = SVGBackend::with_string(&mut out, size).into_drawing_area();
            draw(&area).and_then(|()| area.present().map_err(|e| e.to_string()))
        };
        (drawn, out)
    }

    /// The opening tags `<name …>` in the SVG.
    fn tags<'a>(svg: &'a str, name: &str) -> Vec<&'a str> {
        svg.split('<')
            .filter(|tag| {
                tag.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(' '))
            })
            .map(|tag| tag.split('>').next().unwrap_or(""))
            .collect()
    }

    fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
        let start = tag.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        tag[start..].split('"').next().unwrap_or("")
    }

    fn number(tag: &str, name: &str) -> f64 {
        attr(tag, name).parse().expect(name)
    }

    /// The texts drawn, trimmed.
    fn texts(svg: &str) -> Vec<&str> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>')?.1.split("</text>").next())
            .map(str::trim)
            .collect()
    }

    /// The (x1, y1, x2, y2) of every opaque straight line in `color`.
    fn lines(svg: &str, color: &str) -> Vec<(f64, f64, f64, f64)> {
        tags(svg, "polyline")
            .into_iter()
            .filter(|t| attr(t, "stroke") == color && attr(t, "opacity") == "1")
            .filter_map(|t| {
                let xy: Vec<f64> = attr(t, "points")
                    .split([' ', ','])
                    .filter_map(|n| n.parse().ok())
                    .collect();
                (xy.len() == 4).then(|| (xy[0], xy[1], xy[2], xy[3]))
            })
            .collect()
    }

    fn breakdown_chart(capacity: Option<u128>) -> BreakdownChart {
        BreakdownChart {
            // Out of order on purpose, with two empty components.
            segments: vec![
                (Component::Activations, 20 * GB),
                (Component::Weights, 14 * GB),
                (Component::KvCache, 0),
                (Component::Overhead, 2 * GB),
                (Component::Gradients, 14 * GB),
                (Component::OptimizerStep, 0),
                (Component::OptimizerStates, 56 * GB),
            ],
            capacity: capacity.map(|bytes| ("H100 80GB".into(), bytes)),
            units: Units::Decimal,
            dark: false,
        }
    }

    fn sweep_chart(capacity: Option<u128>) -> SweepChart {
        let memory = |batch: u64| 5 * GIB + u128::from(batch) * 3 * GIB / 2;
        let mut points: Vec<_> = (0..11).map(|i| (1 << i, memory(1 << i))).collect();
        // The chosen batch in its place, as `memory::sweep` puts it.
        points.insert(5, (24, memory(24)));
        SweepChart {
            points,
            chosen_batch: 24,
            capacity: capacity.map(|bytes| ("H100 80GB".into(), bytes)),
            x_label: "Batch size".into(),
            y_label: "Memory".into(),
            units: Units::Binary,
            dark: false,
        }
    }

    #[test]
    fn the_bar_has_one_segment_per_nonzero_component_in_its_colour_and_order() {
        let chart = breakdown_chart(None);
        let (drawn, svg) = render((600, 120), |area| draw_breakdown(area, &chart, &width));
        drawn.unwrap();
        let rects = tags(&svg, "rect");
        let bar: Vec<_> = rects.iter().collect();
        let drawn_colours: Vec<_> = bar.iter().map(|r| attr(r, "fill")).collect();
        let nonzero = [
            (Component::Weights, 14),
            (Component::Gradients, 14),
            (Component::OptimizerStates, 56),
            (Component::Activations, 20),
            (Component::Overhead, 2),
        ];
        let want: Vec<_> = nonzero.iter().map(|(c, _)| c.color_hex()).collect();
        assert_eq!(drawn_colours, want, "bar segments, left to right");
        assert!(
            !svg.contains(Component::KvCache.color_hex()),
            "an empty component is drawn"
        );
        assert!(!svg.contains(Component::OptimizerStep.color_hex()));
        // Segments touch and their widths follow the bytes (to the pixel).
        for (pair, gb) in bar.windows(2).zip(nonzero) {
            let end = number(pair[0], "x") + number(pair[0], "width");
            assert!(
                (end - number(pair[1], "x")).abs() <= 1.0,
                "gap after {:?}",
                gb.0
            );
        }
        let span = bar
            .last()
            .map(|r| number(r, "x") + number(r, "width"))
            .unwrap();
        let per_gb = (span - number(bar[0], "x")) / 106.0;
        for (rect, (component, gb)) in bar.iter().zip(nonzero) {
            let expected = per_gb * f64::from(gb);
            assert!(
                (number(rect, "width") - expected).abs() <= 1.5,
                "{component:?}"
            );
        }
        let drawn_texts = texts(&svg);
        assert!(drawn_texts.contains(&"100 GB"), "ticks: {drawn_texts:?}");
    }

    #[test]
    fn the_capacity_marker_and_its_name_appear_only_when_given() {
        let (drawn, without) = render((600, 120), |a| {
            draw_breakdown(a, &breakdown_chart(None), &width)
        });
        drawn.unwrap();
        assert!(lines(&without, "#000000").is_empty());
        assert!(!texts(&without).contains(&"H100 80GB"));

        // Above the total: the axis reaches past it, so the marker is inside the chart.
        for capacity in [80 * GB, 200 * GB, 0] {
            let chart = breakdown_chart(Some(capacity));
            let (drawn, svg) = render((600, 120), |a| draw_breakdown(a, &chart, &width));
            drawn.unwrap();
            let marker = lines(&svg, "#000000");
            assert_eq!(marker.len(), 1, "{capacity}: {marker:?}");
            let (x1, y1, x2, y2) = marker[0];
            assert!(x1 == x2 && y1 != y2, "vertical");
            assert!((0.0..590.0).contains(&x1), "{capacity}: marker at {x1}");
            assert!(texts(&svg).contains(&"H100 80GB"));
            let bar: Vec<_> = tags(&svg, "rect")
                .into_iter()
                .filter(|r| number(r, "height") > 12.0)
                .collect();
            let start = number(bar[0], "x");
            let end = bar
                .last()
                .map(|r| number(r, "x") + number(r, "width"))
                .unwrap();
            // The marker sits where the capacity falls on the same scale as the bar.
            let expected = start + (end - start) * capacity as f64 / (106 * GB) as f64;
            assert!(
                (x1 - expected).abs() <= 2.0,
                "{capacity}: {x1} vs {expected}"
            );
        }
    }

    fn timeline_chart(capacity: Option<u128>) -> TimelineChart {
        // Forward 1, 2, the loss (the peak), backward 2, 1, the step.
        let point = |weights: u128, gradients: u128, activations: u128| {
            vec![
                (Component::Weights, weights),
                (Component::Gradients, gradients),
                (Component::Activations, activations),
            ]
        };
        TimelineChart {
            points: vec![
                point(16 * GB, 0, 10 * GB),
                point(16 * GB, 0, 20 * GB),
                point(16 * GB, 0, 30 * GB),
                point(16 * GB, 8 * GB, 10 * GB),
                point(16 * GB, 16 * GB, 0),
                point(16 * GB, 16 * GB, 0),
            ],
            phases: vec![
                (0, "forward".into()),
                (2, "loss".into()),
                (3, "backward".into()),
                (5, "step".into()),
            ],
            peak: Some((2, "Peak".into())),
            capacity: capacity.map(|c| ("H100 80GB".to_owned(), c)),
            y_label: "Allocated".into(),
            units: Units::Decimal,
            dark: false,
        }
    }

    #[test]
    fn the_timeline_stacks_each_moment_and_marks_the_peak() {
        let chart = timeline_chart(Some(80 * GB));
        let (drawn, svg) = render((600, 260), |a| draw_timeline(a, &chart, &width));
        drawn.unwrap();
        // One rectangle per non-zero part of each point, in the bar's colours.
        let filled = |color: &str| {
            tags(&svg, "rect")
                .into_iter()
                .filter(|r| attr(r, "fill") == color)
                .count()
        };
        assert_eq!(filled(Component::Weights.color_hex()), 6);
        assert_eq!(filled(Component::Gradients.color_hex()), 3);
        assert_eq!(filled(Component::Activations.color_hex()), 4);
        let texts = texts(&svg);
        assert!(texts.contains(&"Peak: 46.00 GB"), "{texts:?}");
        for name in [
            "forward",
            "loss",
            "backward",
            "step",
            "H100 80GB",
            "Allocated",
        ] {
            assert!(texts.contains(&name), "{name}: {texts:?}");
        }
        // The loss's column is the tallest: its activations reach highest.
        let top = |color: &str| {
            tags(&svg, "rect")
                .into_iter()
                .filter(|r| attr(r, "fill") == color)
                .map(|r| number(r, "y"))
                .fold(f64::MAX, f64::min)
        };
        let activations_top = top(Component::Activations.color_hex());
        assert!(activations_top < top(Component::Gradients.color_hex()));
        // A pointer maps to the column under it, by the drawing's layout.
        let layout = TimelineLayout::new(&chart, (600, 260), &width);
        let column = f64::from(layout.right - layout.left) / 6.0;
        let middle = |i: f64| f64::from(layout.left) + column * (i + 0.5);
        assert_eq!(layout.point_at(middle(2.0), 6), Some(2));
        assert_eq!(layout.point_at(middle(5.0), 6), Some(5));
        assert_eq!(layout.point_at(f64::from(layout.left) - 5.0, 6), None);
        assert_eq!(layout.point_at(10_000.0, 6), Some(5));
        // Too small, or nothing to draw: no drawing, no error.
        let empty = TimelineChart {
            points: Vec::new(),
            ..timeline_chart(None)
        };
        let (drawn, svg) = render((600, 260), |a| draw_timeline(a, &empty, &width));
        drawn.unwrap();
        assert!(tags(&svg, "rect").is_empty());
    }

    #[test]
    fn the_sweep_draws_every_point_the_line_and_the_capacity() {
        let chart = sweep_chart(Some(80 * GIB));
        let (drawn, svg) = render((700, 280), |a| draw_sweep(a, &chart, &width));
        drawn.unwrap();
        let line = Component::Weights.color_hex();
        let circles = tags(&svg, "circle");
        let points: Vec<_> = circles.iter().filter(|c| number(c, "r") == 4.0).collect();
        assert_eq!(points.len(), 12, "one marker per batch");
        // Above 80 GiB (batch 64 and up) the marker is hollow.
        let hollow = points.iter().filter(|c| attr(c, "fill") == "none").count();
        assert_eq!(hollow, 5);
        let chosen: Vec<_> = circles.iter().filter(|c| number(c, "r") == 7.0).collect();
        assert_eq!(chosen.len(), 2, "the chosen batch is emphasised");
        let path = tags(&svg, "polyline")
            .into_iter()
            .find(|t| attr(t, "stroke") == line && attr(t, "stroke-width") == "2")
            .expect("the line");
        let xy: Vec<(f64, f64)> = attr(path, "points")
            .split_whitespace()
            .filter_map(|p| p.split_once(','))
            .map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap()))
            .collect();
        assert_eq!(xy.len(), 12);
        // Left to right by batch, upwards (smaller y) with memory.
        assert!(
            xy.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 >= w[1].1),
            "{xy:?}"
        );
        assert!(xy[0].1 - xy[11].1 > 150.0, "{xy:?}");
        // Powers of two are evenly spaced: the axis is log2.
        let step = xy[1].0 - xy[0].0;
        assert!((xy[10].0 - xy[9].0 - step).abs() <= 1.0, "{xy:?}");
        // Batch 24 sits between 16 and 32.
        let between = |b: f64| xy[4].0 + (b.log2() - 4.0) * step;
        assert!((xy[5].0 - between(24.0)).abs() <= 1.5, "{xy:?}");

        let capacity = lines(&svg, "#000000");
        assert!(capacity.len() > 10, "a dashed line: {capacity:?}");
        assert!(capacity.iter().all(|l| l.1 == l.3 && l.1 == capacity[0].1));
        let drawn_texts = texts(&svg);
        assert!(drawn_texts.contains(&"H100 80GB"), "{drawn_texts:?}");
        assert!(drawn_texts.contains(&"24: 41.00 GiB"), "{drawn_texts:?}");
        for text in [
            "1",
            "2",
            "16",
            "64",
            "1024",
            "Batch size",
            "Memory",
            "1500 GiB",
        ] {
            assert!(
                drawn_texts.contains(&text),
                "{text} missing from {drawn_texts:?}"
            );
        }
        assert!(!drawn_texts.contains(&"24"), "24 is not a tick");

        let (drawn, without) = render((700, 280), |a| draw_sweep(a, &sweep_chart(None), &width));
        drawn.unwrap();
        assert!(lines(&without, "#000000").is_empty());
        assert!(!texts(&without).contains(&"H100 80GB"));
        let points = tags(&without, "circle");
        let points: Vec<_> = points.iter().filter(|c| number(c, "r") == 4.0).collect();
        assert_eq!(points.len(), 12);
        assert!(
            points.iter().all(|c| attr(c, "fill") == line),
            "all fit without a device"
        );
    }

    /// Issue 12: the capacity's name collided with the chosen batch's label;
    /// it now goes to the other side of the chart.
    #[test]
    fn the_capacity_name_keeps_away_from_the_chosen_batch() {
        let name_x = |chosen: u64| {
            let chart = SweepChart {
                chosen_batch: chosen,
                ..sweep_chart(Some(20 * GIB))
            };
            let (drawn, svg) = render((600, 300), |area| draw_sweep(area, &chart, &width));
            drawn.unwrap();
            // Each <text …>body</text>: the x of the one whose body is the name.
            svg.split("<text")
                .skip(1)
                .find_map(|t| {
                    let (tag, rest) = t.split_once('>')?;
                    rest.trim_start()
                        .starts_with("H100")
                        .then(|| number(&format!("text {tag}"), "x"))
                })
                .expect("the capacity's name")
        };
        assert!(
            name_x(512) < 300.0,
            "chosen on the right: the name on the left"
        );
        assert!(
            name_x(1) > 300.0,
            "chosen on the left: the name on the right"
        );
    }

    #[test]
    fn crowded_ticks_are_thinned() {
        let mut chart = sweep_chart(None);
        chart.points = (0..40).map(|i| (1 << i, GB)).collect();
        let (drawn, svg) = render((360, 280), |a| draw_sweep(a, &chart, &width));
        drawn.unwrap();
        let ticks = texts(&svg)
            .into_iter()
            .filter(|t| t.parse::<u64>().is_ok())
            .count();
        assert!((2..=8).contains(&ticks), "{ticks} labels on 360 pixels");
    }

    #[test]
    fn dark_charts_draw_light_text() {
        let mut breakdown = breakdown_chart(Some(80 * GB));
        breakdown.dark = true;
        let mut sweep = sweep_chart(Some(80 * GIB));
        sweep.dark = true;
        let (a, one) = render((600, 120), |area| draw_breakdown(area, &breakdown, &width));
        let (b, two) = render((700, 280), |area| draw_sweep(area, &sweep, &width));
        a.and(b).unwrap();
        for svg in [one, two] {
            assert!(svg.contains("fill=\"#E6E6E6\""));
            assert!(!svg.contains("#333333"));
            assert!(!lines(&svg, "#FFFFFF").is_empty(), "the capacity in white");
        }
    }

    #[test]
    fn extreme_inputs_draw_or_not_but_never_panic() {
        let huge = [10u128.pow(30), u128::MAX];
        let mut breakdowns = vec![
            (vec![], None),
            (vec![], Some(80 * GB)),
            (vec![(Component::Weights, 0)], Some(0)),
            (vec![(Component::Weights, 1)], None),
            (vec![(Component::Weights, 14 * GB)], Some(0)),
        ];
        for bytes in huge {
            breakdowns.push((
                Component::ALL.iter().map(|c| (*c, bytes)).collect(),
                Some(bytes),
            ));
            breakdowns.push((vec![(Component::Overhead, 1)], Some(bytes)));
        }
        let mut sweeps = vec![
            (vec![], None),
            (vec![], Some(80 * GB)),
            (vec![(0, 0)], Some(0)),
            (vec![(8, 0), (16, 0)], None),
            (vec![(8, GB)], Some(GB)),
            (vec![(3, GB), (3, 2 * GB), (5, GB)], None),
            (vec![(1, GB), (u64::MAX, GB)], Some(0)),
        ];
        for bytes in huge {
            sweeps.push((
                (0..40).map(|i| (1 << i, bytes >> (40 - i))).collect(),
                Some(bytes),
            ));
            sweeps.push((vec![(1, bytes)], Some(1)));
        }
        for size in [
            (0, 0),
            (1, 1),
            (59, 200),
            (200, 40),
            (320, 120),
            (2000, 1500),
        ] {
            for (segments, capacity) in &breakdowns {
                for units in [Units::Decimal, Units::Binary] {
                    let chart = BreakdownChart {
                        segments: segments.clone(),
                        capacity: capacity.map(|c| ("GPU".into(), c)),
                        units,
                        dark: true,
                    };
                    let (drawn, svg) = render(size, |a| draw_breakdown(a, &chart, &width));
                    assert_eq!(drawn, Ok(()), "{chart:?} at {size:?}");
                    assert!(!svg.contains("NaN") && !svg.contains("inf"), "{chart:?}");
                }
            }
            for (points, capacity) in &sweeps {
                let chart = SweepChart {
                    points: points.clone(),
                    chosen_batch: points.first().map_or(0, |p| p.0),
                    capacity: capacity.map(|c| ("GPU".into(), c)),
                    ..sweep_chart(None)
                };
                let (drawn, svg) = render(size, |a| draw_sweep(a, &chart, &width));
                assert_eq!(drawn, Ok(()), "{chart:?} at {size:?}");
                assert!(!svg.contains("NaN") && !svg.contains("inf"), "{chart:?}");
            }
        }
    }

    /// An SVG backend that fails the test when plotters is asked to measure text.
    struct Unmeasuring<'a>(SVGBackend<'a>);

    type SvgError = <SVGBackend<'static> as DrawingBackend>::ErrorType;

    impl DrawingBackend for Unmeasuring<'_> {
        type ErrorType = SvgError;

        fn get_size(&self) -> (u32, u32) {
            self.0.get_size()
        }

        fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.ensure_prepared()
        }

        fn present(&mut self) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.present()
        }

        fn draw_pixel(
            &mut self,
            point: BackendCoord,
            color: BackendColor,
        ) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.draw_pixel(point, color)
        }

        fn draw_line<S: plotters_backend::BackendStyle>(
            &mut self,
            from: BackendCoord,
            to: BackendCoord,
            style: &S,
        ) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.draw_line(from, to, style)
        }

        fn draw_rect<S: plotters_backend::BackendStyle>(
            &mut self,
            upper_left: BackendCoord,
            bottom_right: BackendCoord,
            style: &S,
            fill: bool,
        ) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.draw_rect(upper_left, bottom_right, style, fill)
        }

        fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            path: I,
            style: &S,
        ) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.draw_path(path, style)
        }

        fn draw_circle<S: plotters_backend::BackendStyle>(
            &mut self,
            center: BackendCoord,
            radius: u32,
            style: &S,
            fill: bool,
        ) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.draw_circle(center, radius, style, fill)
        }

        fn draw_text<S: BackendTextStyle>(
            &mut self,
            text: &str,
            style: &S,
            pos: BackendCoord,
        ) -> Result<(), DrawingErrorKind<SvgError>> {
            self.0.draw_text(text, style, pos)
        }

        fn estimate_text_size<S: BackendTextStyle>(
            &self,
            text: &str,
            _: &S,
        ) -> Result<(u32, u32), DrawingErrorKind<SvgError>> {
            panic!("plotters was asked to measure {text:?}")
        }
    }

    #[test]
    fn no_text_is_measured_or_laid_out_by_plotters() {
        let breakdown = breakdown_chart(Some(80 * GB));
        let sweep = sweep_chart(Some(80 * GIB));
        for (size, dark) in [((600, 120), false), ((375, 300), true)] {
            let mut out = String::new();
            {
                let svg = SVGBackend::with_string(&mut out, size);
                let area = Unmeasuring(svg).into_drawing_area();
                let (top, bottom) = area.split_vertically(size.1 / 2);
                let chart = BreakdownChart {
                    dark,
                    ..breakdown.clone()
                };
                draw_breakdown(&top, &chart, &width).unwrap();
                let chart = SweepChart {
                    dark,
                    ..sweep.clone()
                };
                draw_sweep(&bottom, &chart, &width).unwrap();
                area.present().unwrap();
            }
            assert!(texts(&out).len() > 6, "{out}");
        }
        // A backend that lays text out itself (a bitmap) is told why it cannot.
        let style = Theme::new(false).text(HPos::Left, VPos::Top);
        let laid_out = style.layout_box("Weights").map_err(|e| e.to_string());
        assert_eq!(laid_out, Err(Unmeasured.to_string()));
    }

    #[test]
    fn round_ticks_step_by_one_two_or_five_within_the_count() {
        assert_eq!(round_ticks(111.3, 7), [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(round_ticks(395.85, 7), [0.0, 100.0, 200.0, 300.0]);
        assert_eq!(round_ticks(1618.05, 7), [0.0, 500.0, 1000.0, 1500.0]);
        let hundreds: Vec<f64> = (0..7).map(|i| f64::from(i) * 100.0).collect();
        assert_eq!(round_ticks(640.0, 7), hundreds, "as many as fit");
        assert_eq!(
            round_ticks(100.0, 2),
            [0.0, 100.0],
            "a tick on the end is kept"
        );
        assert_eq!(round_ticks(0.0, 8), [0.0]);
        assert_eq!(round_ticks(f64::NAN, 8), [0.0]);
        for max in [1e-6, 0.7, 3.0, 1e5, 3e26, f64::MAX] {
            for most in 0..=9 {
                let ticks = round_ticks(max, most);
                assert!(
                    (2..=most.max(2)).contains(&ticks.len()),
                    "{max} {most}: {ticks:?}"
                );
                assert!(
                    ticks
                        .iter()
                        .all(|t| t.is_finite() && *t <= max * (1.0 + 1e-9)),
                    "{max}: {ticks:?}"
                );
            }
        }
    }

    #[test]
    fn axes_count_in_the_unit_format_bytes_would_pick() {
        assert_eq!(axis_unit(80 * GB, Units::Decimal), (1e9, "GB"));
        assert_eq!(axis_unit(80 * GIB, Units::Binary), (GIB as f64, "GiB"));
        assert_eq!(axis_unit(655_360, Units::Decimal), (1e3, "kB"));
        assert_eq!(axis_unit(0, Units::Decimal), (1.0, "B"));
        let (bytes, unit) = axis_unit(u128::MAX, Units::Binary);
        assert!(bytes.is_finite() && unit == "TiB");
        assert_eq!(tick(40.0, "GB"), "40 GB");
        assert_eq!(tick(2.5, "GiB"), "2.5 GiB");
        assert_eq!(tick(0.1 + 0.2, "GB"), "0.3 GB");
        assert_eq!(tick(1e-9, "GB"), "0");
    }

    #[test]
    fn colours_are_the_okabe_ito_palette() {
        let hexes: Vec<_> = Component::ALL.iter().map(|c| c.color_hex()).collect();
        assert_eq!(
            hexes,
            [
                "#0072B2", "#E69F00", "#009E73", "#D55E00", "#882255", "#56B4E9", "#CC79A7",
                "#F0E442", "#999999", "#DDDDDD"
            ]
        );
        assert_eq!(Component::OptimizerStep.color(), RGBColor(0xD5, 0x5E, 0x00));
    }
}
