//! The stacked breakdown bar with the device's capacity.

use crate::i18n;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};

use super::scale::{Scale, axis_unit, round_ticks, tick};
use super::text::{Theme, draw_label};
use super::{BreakdownChart, Component, Drawn, TextWidth, segment};

pub(super) fn breakdown<DB: DrawingBackend>(
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
            super::color(*component).filled(),
        ))?;
        start = end;
    }

    segment(area, (left, axis), (right, axis), theme.fg.into())?;
    let room = f64::from(right - left)
        / f64::from(text_width(&i18n::decimal(chart.lang, &tick(x_max, unit))) + 16);
    for value in round_ticks(x_max, room.clamp(2.0, 8.0) as usize) {
        let at = x.at(value);
        segment(area, (at, axis), (at, axis + 3), theme.fg.into())?;
        let text = i18n::decimal(chart.lang, &tick(value, unit));
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
