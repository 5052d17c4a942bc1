//! The breakdown bar: one segment per term alive at the peak or added to it,
//! each as wide as its share of the axis, and the device's capacity marked
//! with its name; the legend under it gives each segment's size. It is
//! markup sized by CSS (no canvas, no chunk), so that the answer written
//! before the interface has its bar (issue 31): `results::first_answer`
//! writes it into the shell, and the app builds the same markup from the
//! same [`Geometry`].

use batchfit_core::memory::Estimate;
use batchfit_core::query::Config;
use batchfit_core::units::{self, Units};

use crate::charts::Component;
use crate::dom::{El, el};
use crate::format::{bar_segments, component_label, device_name, percent, short, swatch_class};
use crate::i18n::{self, Lang};

/// Where everything sits on the bar, in shares of its axis as CSS reads
/// them ("42.17%"), and its words.
#[derive(Debug)]
pub(super) struct Geometry {
    /// (term, bytes, width).
    segments: Vec<(Component, u128, String)>,
    /// The device: its name, where its line is, and whether the name is set
    /// on the line's left (past the axis's middle).
    capacity: Option<(String, String, bool)>,
    /// The bar in words, for a screen reader.
    label: String,
}

/// The bar for `e` on `config`'s device. The axis reaches 5 % past the
/// larger of the total and the capacity, so that the line shows.
pub(super) fn geometry(lang: Lang, e: &Estimate, config: &Config) -> Geometry {
    let units = config.units;
    let w = i18n::answer_words(lang);
    let parts = bar_segments(e);
    let total = parts
        .iter()
        .fold(0u128, |sum, &(_, b)| sum.saturating_add(b));
    let capacity = config
        .device
        .map(|d| (device_name(lang, d), d.usable_bytes()));
    let most = total.max(capacity.as_ref().map_or(0, |c| c.1));
    let axis = most.saturating_add(most / 20).max(1);
    let label = format!(
        "{} {}: {}.",
        w.required,
        short(lang, e.required, units),
        parts
            .iter()
            .map(|&(c, bytes)| format!("{} {}", component_label(w, c), short(lang, bytes, units)))
            .collect::<Vec<_>>()
            .join(" + ")
    );
    Geometry {
        segments: parts
            .iter()
            .map(|&(c, bytes)| (c, bytes, percent(bytes, axis)))
            .collect(),
        capacity: capacity.map(|(name, bytes)| (name, percent(bytes, axis), bytes > axis / 2)),
        label,
    }
}

/// The bar's markup: the segments and the capacity's line (the legend
/// under it names each segment, with its size). The app's carries test ids;
/// the shell's markup has none (`app` false: the first answer).
pub(super) fn track(g: &Geometry, app: bool) -> El {
    let testid = |el: El, id: &str| if app { el.attr("data-testid", id) } else { el };
    let segments = g.segments.iter().map(|(c, bytes, width)| {
        el("span")
            .class(&swatch_class(*c))
            .attr("data-bytes", &bytes.to_string())
            .style("width", width)
    });
    let track = testid(el("div"), "breakdown-chart")
        .class("bar-track")
        .attr("role", "img")
        .attr("aria-label", &g.label)
        .child(el("div").class("bar-segments").children(segments));
    match &g.capacity {
        Some((name, at, on_left)) => track.child(
            testid(el("span"), "bar-capacity")
                .class(if *on_left {
                    "bar-capacity left"
                } else {
                    "bar-capacity"
                })
                .style("left", at)
                .child(el("span").text(name)),
        ),
        None => track,
    }
}

/// One item of the bar's legend: its swatch, then `label` and `size` (the
/// app's bind them; [`legend`]'s are written once).
pub(super) fn legend_item(component: Component, label: El, size: El) -> El {
    el("li")
        .child(el("span").class(&format!("swatch {}", swatch_class(component))))
        .child(label.class("legend-label"))
        .child(size)
}

/// The bar's legend for `e`, written once: what the first answer puts under
/// its bar before the interface, as the app's reads (each segment's name,
/// its size in `units` and its bytes in `data-bytes`), and the caption.
pub(super) fn legend(lang: Lang, e: &Estimate, units: Units) -> [El; 2] {
    let w = i18n::answer_words(lang);
    [
        el("ul")
            .class("bar-legend")
            .children(bar_segments(e).into_iter().map(|(component, bytes)| {
                legend_item(
                    component,
                    el("span").text(component_label(w, component)),
                    el("span")
                        .class("value")
                        .attr("data-bytes", &bytes.to_string())
                        .attr("title", &i18n::exact_bytes(lang, bytes))
                        .text(&i18n::decimal(lang, &units::format_bytes(bytes, units))),
                )
            })),
        el("figcaption").class("note").text(w.bar_sums),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchfit_core::query;

    /// The worked example of the bench's page: Llama 3.1 8B fully
    /// fine-tuned on an H100, 451 GB against the card's usable bytes.
    #[test]
    fn segments_and_capacity_share_one_axis() {
        let config = query::parse("form=transformer&model=llama-3.1-8b&gpu=h100-80gb").config;
        let e = batchfit_core::memory::estimate(&config);
        let g = geometry(Lang::En, &e, &config);
        let device = config.device.expect("a device").usable_bytes();
        let axis = e.required + e.required / 20;
        // Every term the table adds up, in its order, none of zero bytes.
        let bytes: Vec<u128> = g.segments.iter().map(|s| s.1).collect();
        assert_eq!(bytes.iter().sum::<u128>(), e.required);
        assert!(bytes.iter().all(|&b| b > 0));
        for (c, b, width) in &g.segments {
            assert_eq!(*width, percent(*b, axis), "{c:?}");
        }
        let (name, at, on_left) = g.capacity.clone().expect("the device's line");
        assert_eq!(
            name,
            device_name(Lang::En, config.device.expect("a device"))
        );
        assert_eq!(at, percent(device, axis));
        assert!(
            !on_left,
            "the capacity is under half the axis: its name on the right"
        );
        assert_eq!(
            g.label,
            "Required 451 GB: Weights 16.1 GB + Optimizer states 96.4 GB + Activations 305 GB \
             + Allocator cache 32.1 GB + Overhead 1.00 GB."
        );
    }

    /// The widths are shares of an axis past the device, when the device
    /// is the larger, and the words are in the page's language.
    #[test]
    fn a_setup_that_fits_leaves_room_up_to_the_device() {
        let config =
            query::parse("form=transformer&model=qwen2.5-7b&batch=2&seq=1024&gpu=h200&lang=es")
                .config;
        let e = batchfit_core::memory::estimate(&config);
        assert_eq!(e.fits, Some(true));
        let g = geometry(Lang::Es, &e, &config);
        let device = config.device.expect("a device").usable_bytes();
        let axis = device + device / 20;
        let (_, at, on_left) = g.capacity.clone().expect("the device's line");
        assert_eq!(at, percent(device, axis));
        assert!(on_left, "the device past the middle: its name on the left");
        let widths: u128 = g
            .segments
            .iter()
            .map(|s| {
                s.2.trim_end_matches('%')
                    .replace('.', "")
                    .parse::<u128>()
                    .expect("a share")
            })
            .sum();
        assert!(
            widths <= 9_524,
            "{widths}: the segments end before the device"
        );
        assert!(g.label.contains(','), "Spanish decimals: {}", g.label);
    }

    /// Nothing on the device and the smallest or largest estimates: no
    /// panic, no share past what the axis holds.
    #[test]
    fn extreme_setups_still_draw_within_the_axis() {
        for q in [
            "form=activations&act_mb=0&batch=1",
            "form=parameters&params=1e15&batch=1000000",
            "form=transformer&model=llama-3.1-405b&batch=4096&seq=131072",
        ] {
            let config = query::parse(q).config;
            let e = batchfit_core::memory::estimate(&config);
            let g = geometry(Lang::En, &e, &config);
            for (_, _, width) in &g.segments {
                let basis: u128 = width
                    .trim_end_matches('%')
                    .replace('.', "")
                    .parse()
                    .expect("a share");
                assert!(basis <= 10_000, "{q}: {width}");
            }
            assert!(!g.label.contains("NaN") && !g.label.contains("inf"), "{q}");
        }
    }
}
