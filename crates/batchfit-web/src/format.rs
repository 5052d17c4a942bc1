//! The formatting the sections share: sizes in prose and with their exact
//! bytes, device names, and the memory components' terms, labels, test ids
//! and swatches. Sections import it rather than each other.

use std::rc::Rc;

use crate::prelude::*;
use batchfit_core::memory::Estimate;
use batchfit_core::presets::{Device, DeviceKind, DevicePreset};
use batchfit_core::units::{self, Units};
use wasm_bindgen::JsCast;

use crate::charts::Component;
use crate::dom::{self, El, Ev, el, rx};
use crate::i18n::{self, AnswerWords, Lang};
use crate::state::State;

/// Three significant figures, for prose, in the reader's notation: "98.4
/// GB", "5.37 GB", "171 GB"; in Spanish "98,4 GB".
pub fn short(lang: Lang, bytes: u128, units: Units) -> String {
    i18n::decimal(lang, &three_figures(bytes, units).to_string())
}

/// [`short`] rounded down, for a need said to fit: never printed above the
/// capacity it fits ("25.7 GB — ✓ fits" on a 25.76 GB card).
pub fn short_down(lang: Lang, bytes: u128, units: Units) -> String {
    i18n::decimal(lang, &three_figures(bytes, units).down().to_string())
}

/// Hundredths as "5.75×" in the page's notation (a concurrency).
pub fn times(lang: Lang, hundredths: u128) -> String {
    i18n::decimal(
        lang,
        &format!(
            "{}.{:02}×",
            i18n::group(lang, hundredths / 100),
            hundredths % 100
        ),
    )
}

/// Tenths of a percent with their sign, as "+4.8 %" in the page's
/// notation (a difference against a measurement).
pub fn tenths_percent(lang: Lang, sign: &str, tenths: u128) -> String {
    format!(
        "{sign}{}{}{}\u{a0}%",
        tenths / 10,
        i18n::decimal_point(lang),
        tenths % 10
    )
}

fn three_figures(bytes: u128, units: Units) -> units::Size {
    let size = units::size(bytes, units);
    let decimals = match size.value() {
        v if size.unit == "B" || v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    size.with_decimals(decimals)
}

/// A labelled size with its exact bytes in `data-bytes` and in the tooltip.
/// One binding writes all three, and formats only when the bytes, the units
/// or the language changed. It is no tab stop: a click or tap shows its
/// bytes, and the keyboard has one button for every size ([`exact_toggle`]).
pub fn size(state: State, testid: &str, bytes: Rc<dyn Fn() -> u128>) -> El {
    let span = el("span")
        .class("value")
        .attr("data-testid", testid)
        .on(Ev::Click, Box::new(toggle_exact));
    let (element, text) = (span.node().clone(), span.text_node());
    dom::bind(
        rx(move || (bytes(), state.config.with(|c| c.units), state.lang.get())),
        Box::new(move |&(bytes, units, lang)| {
            let _ = element.set_attribute("data-bytes", &bytes.to_string());
            let _ = element.set_attribute("title", &i18n::exact_bytes(lang, bytes));
            text.set_data(&i18n::decimal(lang, &units::format_bytes(bytes, units)));
        }),
    );
    span
}

/// The one switch that shows every size's exact bytes beside it, and hides
/// them again: a native checkbox (one tab stop, its state announced), which
/// the style sheet reads (`:root:has(.exact-toggle input:checked)`), so it
/// needs no code. The keyboard's way to the bytes, instead of one tab stop
/// per size.
pub fn exact_toggle(state: State) -> El {
    el("label")
        .class("exact-toggle")
        .child(
            el("input")
                .attr("type", "checkbox")
                .attr("data-testid", "exact-toggle"),
        )
        .bind_text(i18n::tr(state.lang, |w| w.exact_bytes_toggle))
}

/// A tap or click on a size shows its exact bytes beside it (the tooltip of
/// a mouse, for touch), and a second one hides them.
fn toggle_exact(event: web_sys::Event) {
    if let Some(element) = event
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    {
        let _ = element.toggle_attribute("data-exact");
    }
}

/// A model preset's name as the model select words it: "Llama 3.1 8B (8.03B)".
pub fn model_name(model: &batchfit_core::presets::ModelPreset) -> String {
    format!("{} ({})", model.name, model.published)
}

/// A preset device's name in the page's language: product names stay as they
/// are; the unified-memory and CPU presets, which are descriptions, are
/// worded per language ("CPU, 16 GB RAM" / "CPU, 16 GB de RAM").
pub fn preset_name(lang: Lang, preset: &DevicePreset) -> String {
    let gb = preset.bytes >> 30;
    let language = i18n::language(lang);
    match preset.kind {
        DeviceKind::Unified => (language.unified_memory)(gb),
        DeviceKind::Cpu => (language.cpu_ram)(gb),
        DeviceKind::Gpu => preset.name.to_owned(),
    }
}

/// The device's display name in the page's language.
pub fn device_name(lang: Lang, device: Device) -> String {
    match device {
        Device::Preset(preset) => preset_name(lang, preset),
        Device::Custom { hundredths_gb } => {
            format!(
                "{} GB",
                i18n::decimal(
                    lang,
                    &batchfit_core::fields::format_hundredths(hundredths_gb)
                )
            )
        }
    }
}

/// The CSS class that paints a component's swatch, `c-` and its test id. The
/// page's Content-Security-Policy forbids inline styles, so the colours live in
/// style/main.css (a test checks they are the charts' colours).
pub fn swatch_class(component: Component) -> String {
    format!("c-{}", component_testid(component))
}

/// A parameter count to three significant figures: "46.7B", "12.9B", "671B",
/// in integers (formatting an `f64` would bring the float printer into the
/// page).
pub(crate) fn short_count(count: u128) -> String {
    let (unit, suffix) = [
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
        (1_000, "k"),
    ]
    .into_iter()
    .find(|&(unit, _)| count >= unit)
    .unwrap_or((1, ""));
    let decimals: u32 = match count / unit {
        _ if unit == 1 => 0,
        v if v >= 100 => 0,
        v if v >= 10 => 1,
        _ => 2,
    };
    let scale = 10u128.pow(decimals);
    // Rounded half up at the last digit shown.
    let scaled = (count * scale * 2 / unit).div_ceil(2);
    let whole = scaled / scale;
    if decimals == 0 {
        format!("{whole}{suffix}")
    } else {
        let fraction = scaled % scale;
        format!(
            "{whole}.{fraction:0width$}{suffix}",
            width = decimals as usize
        )
    }
}

/// The bar's segments with bytes: what is alive at the peak, then the
/// allocator's cache, the overhead and the margin. They sum exactly to
/// `required`.
pub fn bar_segments(e: &Estimate) -> Vec<(Component, u128)> {
    e.bar()
        .into_iter()
        .filter(|&(_, bytes)| bytes > 0)
        .collect()
}

/// `part`'s share of `whole` as CSS reads it, to a hundredth of a percent
/// and rounded down ("42.17%"); a whole of 0 counts as 1.
pub fn percent(part: u128, whole: u128) -> String {
    // In floating point: a hundredth of a percent is far above its rounding,
    // and the `as` saturates where a share is past any width.
    let basis = (part as f64 / whole.max(1) as f64 * 10_000.0) as u32;
    format!("{}.{:02}%", basis / 100, basis % 100)
}

pub fn component_label(w: &AnswerWords, component: Component) -> &'static str {
    match component {
        Component::Weights => w.weights,
        Component::Gradients => w.gradients,
        Component::OptimizerStates => w.optimizer_states,
        Component::OptimizerStep => w.optimizer_step,
        Component::Buffers => w.buffers,
        Component::KvCache => w.kv_cache,
        Component::Activations => w.activations,
        Component::AllocatorCache => w.allocator_cache,
        Component::Overhead => w.overhead,
        Component::Margin => w.margin,
    }
}

pub fn component_testid(component: Component) -> &'static str {
    match component {
        Component::Weights => "weights",
        Component::Gradients => "gradients",
        Component::OptimizerStates => "optimizer-states",
        Component::OptimizerStep => "optimizer-step",
        Component::Buffers => "buffers",
        Component::KvCache => "kv-cache",
        Component::Activations => "activations",
        Component::AllocatorCache => "allocator-cache",
        Component::Overhead => "overhead",
        Component::Margin => "margin",
    }
}

#[cfg(test)]
mod tests;
