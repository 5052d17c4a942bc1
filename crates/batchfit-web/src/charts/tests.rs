use super::scale::{axis_unit, round_ticks, tick};
use super::text::{Theme, Unmeasured};
use super::timeline::TimelineLayout;
use super::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendTextStyle, DrawingErrorKind};

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
        lang: Lang::En,
        dark: false,
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
        lang: Lang::En,
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
    assert_eq!(filled(color_hex(Component::Weights)), 6);
    assert_eq!(filled(color_hex(Component::Gradients)), 3);
    assert_eq!(filled(color_hex(Component::Activations)), 4);
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
    let activations_top = top(color_hex(Component::Activations));
    assert!(activations_top < top(color_hex(Component::Gradients)));
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
    let line = color_hex(Component::Weights);
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
    let mut timeline = timeline_chart(Some(80 * GB));
    timeline.dark = true;
    let mut sweep = sweep_chart(Some(80 * GIB));
    sweep.dark = true;
    let (a, one) = render((600, 260), |area| draw_timeline(area, &timeline, &width));
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
    let timeline = timeline_chart(Some(80 * GB));
    let sweep = sweep_chart(Some(80 * GIB));
    for (size, dark) in [((600, 520), false), ((375, 600), true)] {
        let mut out = String::new();
        {
            let svg = SVGBackend::with_string(&mut out, size);
            let area = Unmeasuring(svg).into_drawing_area();
            let (top, bottom) = area.split_vertically(size.1 / 2);
            let chart = TimelineChart {
                dark,
                ..timeline.clone()
            };
            draw_timeline(&top, &chart, &width).unwrap();
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
    let hexes: Vec<_> = Component::ALL.iter().map(|c| color_hex(*c)).collect();
    assert_eq!(
        hexes,
        [
            "#0072B2", "#E69F00", "#009E73", "#D55E00", "#882255", "#56B4E9", "#CC79A7", "#F0E442",
            "#999999", "#DDDDDD"
        ]
    );
    assert_eq!(color(Component::OptimizerStep), RGBColor(0xD5, 0x5E, 0x00));
}
