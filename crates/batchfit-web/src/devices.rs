//! "Which GPUs fit": the current setup on every device preset (the core's
//! `memory::devices`, the table `batchfit devices` prints), smallest first,
//! each a button that picks that device. A closed `<details>` until opened:
//! the table is computed only while it is open, so an edit with it closed
//! costs nothing here.

use crate::prelude::*;
use batchfit_core::memory::{self, DeviceFit};
use batchfit_core::presets::Device;
use batchfit_core::query::Param;
use batchfit_core::units::Units;

use crate::dom::{self, El, Ev, el, rx};
use crate::format::{preset_name, short};
use crate::i18n::{self, Lang};
use crate::state::State;

pub fn devices(state: State) -> El {
    let lang = state.lang;
    dom::details_loaded_when_open(
        i18n::tr(lang, |w| w.devices_title),
        i18n::chunk_status(lang),
        dom::chunk!(preload_devices),
        Box::new(move || dom::now(body(state))),
    )
    .class("devices")
    .attr("data-testid", "devices")
}

/// The note and the table, rebuilt when the setup, the language or the units
/// change (only while the section is open); a chunk of the split build.
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(devices, fallible, preload(#[allow(unsafe_code)] preload_devices))
)]
fn body(state: State) -> Result<Vec<El>, dom::ChunkMissing> {
    let lang = state.lang;
    Ok(vec![
        el("div")
            .child(
                el("p")
                    .class("legend")
                    .bind_text(i18n::tr(lang, |w| w.devices_note)),
            )
            .child(el("div").class("table-scroll").rebuild(
                rx(move || {
                    let config = state.config.get();
                    let chosen = match config.device {
                        Some(Device::Preset(preset)) => Some(preset.id),
                        _ => None,
                    };
                    let rows: Vec<(DeviceFit, u64)> = memory::devices(&config)
                        .into_iter()
                        .map(|fit| {
                            let gpus = fit
                                .gpus_needed
                                .map_or(0, |n| memory::total_gpus(&config, n));
                            (fit, gpus)
                        })
                        .collect();
                    (rows, chosen, lang.get(), config.units)
                }),
                Box::new(move |(rows, chosen, lang, units)| {
                    vec![table(state, rows, *chosen, *lang, *units)]
                }),
            )),
    ])
}

fn table(
    state: State,
    rows: &[(DeviceFit, u64)],
    chosen: Option<&'static str>,
    lang: Lang,
    units: Units,
) -> El {
    let w = i18n::words(lang);
    let head = [
        w.devices_device,
        w.devices_memory,
        w.answer.fits,
        w.max_batch,
        w.gpus_needed,
        w.devices_spare,
    ]
    .map(|text| el("th").attr("scope", "col").text(text));
    let body = rows.iter().map(|&(fit, gpus)| {
        let id = fit.device.id;
        let spare = fit.spare();
        let spare = match u128::try_from(spare) {
            Ok(bytes) => short(lang, bytes, units),
            Err(_) => format!(
                "{} {}",
                w.answer.devices_short_by,
                short(lang, spare.unsigned_abs(), units)
            ),
        };
        let tr = el("tr")
            .attr("data-device", id)
            .attr("data-fits", if fit.fits { "true" } else { "false" })
            .class(if fit.fits { "fits" } else { "over" });
        let tr = if chosen == Some(id) {
            tr.attr("aria-current", "true")
        } else {
            tr
        };
        tr.child(
            el("th").attr("scope", "row").child(
                el("button")
                    .attr("type", "button")
                    .attr("title", w.devices_pick)
                    .on(
                        Ev::Click,
                        Box::new(move |_| state.choose(Param::Gpu, id.to_owned())),
                    )
                    .text(&preset_name(lang, fit.device)),
            ),
        )
        .child(el("td").text(&short(lang, fit.capacity(), units)))
        .child(el("td").text(if fit.fits { "✓" } else { "✗" }))
        .child(
            el("td")
                .attr("data-max-batch", &fit.max_batch.to_string())
                .text(&if fit.max_batch == 0 {
                    w.no_batch_fits.to_owned()
                } else {
                    i18n::group(lang, u128::from(fit.max_batch))
                }),
        )
        .child(el("td").text(&if gpus == 0 {
            "–".to_owned()
        } else {
            i18n::group(lang, u128::from(gpus))
        }))
        .child(
            el("td")
                .attr("data-bytes", &fit.spare().to_string())
                .text(&spare),
        )
    });
    el("table")
        .attr("data-testid", "devices-table")
        .child(el("thead").child(el("tr").children(head)))
        .child(el("tbody").children(body))
}
