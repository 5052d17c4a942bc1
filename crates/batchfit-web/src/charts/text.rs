//! The charts' text: its colours and style, and labels that the backend
//! places by their anchor.

use std::error::Error;
use std::fmt;

use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind, FontFamily, FontTransform,
};

use super::{Component, Drawn, hex};

/// The size of the charts' one font ([`canvas::FONT`]), for backends that ask.
const FONT_PX: f64 = 12.0;

/// Colours shared by both charts.
pub(super) struct Theme {
    pub(super) fg: RGBColor,
    pub(super) grid: RGBAColor,
    pub(super) capacity: RGBColor,
    pub(super) line: RGBColor,
}

impl Theme {
    pub(super) fn new(dark: bool) -> Self {
        let (fg, grid, capacity, line) = if dark {
            ("#E6E6E6", WHITE.mix(0.15), WHITE, Component::KvCache)
        } else {
            ("#333333", BLACK.mix(0.1), BLACK, Component::Weights)
        };
        Self {
            fg: hex(fg),
            grid,
            capacity,
            line: super::color(line),
        }
    }

    /// Text in the foreground colour, placed by `anchor`.
    pub(super) fn text(&self, h: HPos, v: VPos) -> LabelStyle {
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
pub(super) struct LabelStyle {
    pub(super) color: RGBColor,
    pub(super) anchor: Pos,
    /// Reads bottom to top, for the vertical axis's name.
    pub(super) upwards: bool,
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
pub(super) struct Unmeasured;

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

pub(super) fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    at: BackendCoord,
    style: LabelStyle,
) -> Drawn<DB> {
    area.draw(&Label { text, at, style })
}
