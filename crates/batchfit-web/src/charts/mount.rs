//! The charts on `<canvas>` elements: redrawn when their data or their size
//! changes (a `ResizeObserver`) while they are near the screen. Their
//! drawing code (plotters, the two charts) is a chunk of the split build
//! (`split_charts`, dom::Chunk), fetched when a chart is first wanted (on
//! the screen, or near it once the visitor has scrolled, `dom::wanted`): a
//! first screen that shows the answer and no chart loads none of it
//! (docs/performance-log.md).

use crate::canvas::{self, Canvas};
use crate::dom::{self, El, Rx, el, rx};
use crate::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ResizeObserver, ResizeObserverEntry};

use super::timeline::TimelineLayout;
use super::{SweepChart, TextWidth, TimelineChart, draw_sweep, draw_timeline};

/// One chart's data, whichever chart: what the chunk's [`draw`] paints.
#[derive(Clone, Debug, PartialEq)]
enum Chart {
    Sweep(SweepChart),
    Timeline(TimelineChart),
}

/// The step's timeline on a canvas; see [`TimelineChart`].
pub fn timeline_canvas(chart: Rx<TimelineChart>, label: Rx<String>, failed: Rx<String>) -> El {
    chart_canvas(
        "timeline-chart",
        "chart-timeline",
        Box::new(move || Chart::Timeline(chart())),
        label,
        failed,
    )
}

/// The timeline's point under the horizontal position `x` (CSS pixels from
/// the canvas's left edge), by the layout the drawing used. The chunk's
/// code, as the drawing is: a pointer is over a drawn timeline, so the
/// chunk is here (call it through `dom::now`).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(charts, fallible, preload(#[allow(unsafe_code)] preload_point_at))
)]
pub fn timeline_point_at(
    element: HtmlCanvasElement,
    chart: TimelineChart,
    x: f64,
) -> Result<Option<usize>, dom::ChunkMissing> {
    let Some(context) = element
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return Ok(None);
    };
    context.set_font(canvas::FONT);
    let text_width = |text: &str| {
        context
            .measure_text(text)
            .map_or(0, |metrics| metrics.width().ceil() as i32)
    };
    let size = (element.client_width(), element.client_height());
    Ok(TimelineLayout::new(&chart, size, &text_width).point_at(x, chart.points.len()))
}

/// Memory against batch size on a canvas; see [`SweepChart`].
pub fn sweep_canvas(chart: Rx<SweepChart>, label: Rx<String>, failed: Rx<String>) -> El {
    chart_canvas(
        "sweep-chart",
        "chart-sweep",
        Box::new(move || Chart::Sweep(chart())),
        label,
        failed,
    )
}

/// What a chart's canvas shows: the chart, or the words `failed` gives
/// where its code could not be fetched.
#[derive(Clone, Debug, PartialEq)]
enum Shown {
    Chart(Chart),
    Failed(String),
}

/// A `<canvas>` sized by its CSS box times the device pixel ratio (so it stays
/// crisp), redrawn when the chart's data or the box's size changes while it
/// is near the viewport, and only then; drawn once it has come near and the
/// chunk is here. If the chunk cannot be fetched the canvas says so
/// (`failed`, marked `data-chart-failed`); its label still gives the chart's
/// numbers.
fn chart_canvas(
    test_id: &'static str,
    class: &'static str,
    chart: Box<dyn Fn() -> Chart>,
    label: Rx<String>,
    failed: Rx<String>,
) -> El {
    let (canvas, element, size) = observed_canvas(test_id, class, label);
    let near = dom::near_viewport(&element);
    let wanted = dom::wanted(&element, near);
    let chunk = dom::chunk!(preload_charts);
    dom::bind(
        rx(move || {
            // Drawn while near; the chunk is asked for only once the chart
            // is wanted (on the screen, or near it once the visitor has
            // scrolled).
            if !(near.get() && wanted.get()) {
                return None;
            }
            let shown = if chunk.ready() {
                Shown::Chart(chart())
            } else if chunk.failed() {
                Shown::Failed(failed())
            } else {
                return None;
            };
            size.get().map(|size| (size, shown))
        }),
        Box::new(move |drawn| match drawn {
            Some((size, Shown::Chart(chart))) => {
                dom::now(draw(element.clone(), *size, chart.clone()));
            }
            Some((size, Shown::Failed(words))) => say(&element, *size, words),
            None => {}
        }),
    );
    canvas
}

/// Writes `words` on the canvas, in the page's text colour, where its chart
/// could not be drawn (no plotters: its code is the missing chunk).
fn say(element: &HtmlCanvasElement, (width, height): (f64, f64), words: &str) {
    let _ = element.set_attribute("data-chart-failed", "true");
    // Setting the size clears the bitmap; a CSS pixel per pixel is enough.
    element.set_width(width.max(1.0) as u32);
    element.set_height(height.max(1.0) as u32);
    let context = element
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
    if let Some(context) = context {
        context.set_font(canvas::FONT);
        let colour = window()
            .get_computed_style(element)
            .ok()
            .flatten()
            .and_then(|style| style.get_property_value("color").ok())
            .unwrap_or_default();
        context.set_fill_style_str(&colour);
        context.set_text_baseline("middle");
        let _ = context.fill_text(words, 4.0, (height / 2.0).min(20.0));
    }
}

/// Paints `chart` on `element` (the chunk's code: plotters and the two
/// charts).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(charts, fallible, preload(#[allow(unsafe_code)] preload_charts))
)]
fn draw(
    element: HtmlCanvasElement,
    size: (f64, f64),
    chart: Chart,
) -> Result<(), dom::ChunkMissing> {
    paint(&element, size, &|area, text_width| match &chart {
        Chart::Sweep(c) => draw_sweep(area, c, text_width),
        Chart::Timeline(c) => draw_timeline(area, c, text_width),
    });
    Ok(())
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
