//! The charts on `<canvas>` elements: redrawn when their data or their size
//! changes (a `ResizeObserver`).

use crate::canvas::{self, Canvas};
use crate::dom::{self, El, Rx, el, rx};
use crate::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ResizeObserver, ResizeObserverEntry};

use super::timeline::TimelineLayout;
use super::{
    BreakdownChart, SweepChart, TextWidth, TimelineChart, draw_breakdown, draw_sweep, draw_timeline,
};

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
