//! The step as a timeline: what is alive at each moment, stacked.

use crate::i18n;
use batchfit_core::units::format_bytes;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};

use super::scale::{Scale, axis_unit, round_ticks, tick};
use super::text::{LabelStyle, Theme, draw_label};
use super::{Drawn, TextWidth, TimelineChart, segment};

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
            .map(|value| (value, i18n::decimal(chart.lang, &tick(value, unit))))
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

pub(super) fn timeline<DB: DrawingBackend>(
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
                super::color(*component).filled(),
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
        let text = format!(
            "{label}: {}",
            i18n::decimal(chart.lang, &format_bytes(total, chart.units))
        );
        let (side, dx) = if at > (left + right) / 2 {
            (HPos::Right, -4)
        } else {
            (HPos::Left, 4)
        };
        draw_label(area, &text, (at + dx, top - 6), theme.text(side, VPos::Top))?;
    }
    Ok(())
}
