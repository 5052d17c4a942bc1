//! Memory against batch size, on a log2 axis, with the capacity line.

use crate::i18n;
use batchfit_core::units::format_bytes;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};

use super::scale::{Scale, axis_unit, round_ticks, tick};
use super::text::{LabelStyle, Theme, draw_label};
use super::{Drawn, SweepChart, TextWidth, segment};

pub(super) fn sweep<DB: DrawingBackend>(
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
        .map(|value| (value, i18n::decimal(chart.lang, &tick(value, unit))))
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
        let text = format!(
            "{}: {}",
            chosen.0,
            i18n::decimal(chart.lang, &format_bytes(chosen.1, chart.units))
        );
        draw_label(
            area,
            &text,
            (at.0 + dx, at.1 - 8),
            theme.text(side, VPos::Bottom),
        )?;
    }
    Ok(())
}
