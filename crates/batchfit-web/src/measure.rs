//! "Compare with a measurement": paste what a run printed
//! (`torch.cuda.max_memory_allocated()` / `max_memory_reserved()`,
//! `torch.cuda.memory_summary()`, an `nvidia-smi` line) and see it beside the
//! estimate's matching reading, the difference, and the terms of
//! docs/model.md that could make a difference of that size and sign
//! (`batchfit_core::measured`, the same as `batchfit measured`). A closed
//! `<details>` until opened; nothing here runs on an edit while it is closed.

use crate::prelude::*;
use batchfit_core::measured::{self, Comparison, Fit, Reading};
use batchfit_core::memory::Estimate;
use batchfit_core::query::{self, Config};
use batchfit_core::serving::{self, log};
use batchfit_core::units::Units;

use crate::dom::{self, El, Ev, el, rx};
use crate::format::{short, tenths_percent, times};
use crate::i18n::{self, Lang, group};
use crate::location;
use crate::messages;
use crate::state::State;

pub fn measurement(state: State) -> El {
    let lang = state.lang;
    dom::details_loaded_when_open(
        i18n::tr(lang, |w| w.measure_title),
        i18n::chunk_status(lang),
        dom::chunk!(preload_measure),
        Box::new(move || dom::now(panel(state))),
    )
    .class("measure")
    .attr("data-testid", "measure")
}

/// The panel, its parser and its messages: a chunk of the split build.
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(measure, fallible, preload(#[allow(unsafe_code)] preload_measure))
)]
fn panel(state: State) -> Result<Vec<El>, dom::ChunkMissing> {
    let lang = state.lang;
    let pasted = RwSignal::new(String::new());
    // What an unlabelled number is: "" (say nothing) or a reading's name.
    let unlabelled = RwSignal::new(String::new());
    let area = el("textarea")
        .attr("name", "measured")
        .attr("rows", "4")
        .attr("spellcheck", "false")
        .attr("data-testid", "measure-text")
        .bind_attr(
            "aria-label",
            rx(move || Some(i18n::words(lang.get()).measure_title.to_owned())),
        );
    let area = area.on(
        Ev::Input,
        Box::new(move |event| pasted.set(crate::fields::event_value(&event))),
    );
    let select = crate::fields::select(
        &["", "allocated", "reserved", "nvidia_smi"],
        Box::new(move |value| {
            rx(move || {
                let w = i18n::words(lang.get());
                match value {
                    "allocated" => w.answer.peak_allocated,
                    "reserved" => w.answer.peak_reserved,
                    "nvidia_smi" => w.answer.nvidia_smi,
                    _ => w.measure_unlabelled_none,
                }
                .to_owned()
            })
        }),
    )
    .attr("name", "measured_reading");
    let select = select.on(
        Ev::Change,
        Box::new(move |event| unlabelled.set(crate::fields::event_value(&event))),
    );
    Ok(vec![
        el("p")
            .class("legend")
            .bind_text(i18n::tr(lang, |w| w.measure_hint))
            // A serving engine's setup: its start-up log may be pasted too.
            .show(
                rx(move || state.config.with(serving::engine)),
                Box::new(move || {
                    vec![el("span").bind_text(rx(move || {
                        format!(" {}", i18n::panels(lang.get()).log_hint)
                    }))]
                }),
            ),
        area,
        el("label")
            .class("measure-reading")
            .child(el("span").bind_text(i18n::tr(lang, |w| w.measure_unlabelled)))
            .child(select),
        el("div")
            .attr("data-testid", "measure-result")
            .attr("aria-live", "polite")
            .rebuild(
                rx(move || {
                    let reading = unlabelled.with(|r| Reading::parse(r));
                    let (estimate, config) = (state.estimate.get(), state.config.get());
                    let read = pasted.with(|text| {
                        (!text.trim().is_empty())
                            .then(|| pasted_read(&config, &estimate, text, reading))
                    });
                    (read, lang.get(), config)
                }),
                Box::new(move |(read, lang, config)| match read {
                    None => Vec::new(),
                    Some(Pasted::Readings(all)) => {
                        let mut shown: Vec<El> =
                            all.iter().map(|c| result(c, *lang, config.units)).collect();
                        shown.push(report(
                            state,
                            &readings_report(all),
                            *lang,
                            &pasted.get_untracked(),
                        ));
                        shown
                    }
                    Some(Pasted::Log(log)) => {
                        let (plan, started) = &**log;
                        let mut shown = started_log(state, *lang, config, plan, started);
                        let compared = log::compare(plan, started);
                        shown.push(report(
                            state,
                            &log_report(&compared),
                            *lang,
                            &pasted.get_untracked(),
                        ));
                        shown
                    }
                    Some(Pasted::Unread(error)) => {
                        vec![error_line(&messages::measured_error(*lang, error))]
                    }
                    Some(Pasted::LogUnread(error)) => {
                        vec![error_line(&(i18n::panels(*lang).log_error)(error))]
                    }
                }),
            ),
    ])
}

/// What the pasted text is, read for the setup: a run's readings beside the
/// estimate, or, for a serving engine's setup, its start-up log beside the
/// plan (`serving::log`, as `batchfit measured` reads it); or why neither
/// could be read.
#[derive(PartialEq)]
enum Pasted {
    Readings(Vec<Comparison>),
    Log(Box<(serving::Plan, log::Started)>),
    Unread(measured::Error),
    LogUnread(log::Error),
}

fn pasted_read(
    config: &Config,
    estimate: &Estimate,
    text: &str,
    reading: Option<Reading>,
) -> Pasted {
    let readings = || match measured::parse(text, reading) {
        Ok(all) => Pasted::Readings(
            all.iter()
                .map(|m| measured::compare(config, estimate, m))
                .collect(),
        ),
        Err(error) => Pasted::Unread(error),
    };
    let Some(plan) = serving::plan(config) else {
        return readings();
    };
    match log::read(text) {
        Ok(started) => Pasted::Log(Box::new((plan, started))),
        // Not a log: the run's readings, or, where there are none either,
        // what could have been pasted.
        Err(log::Error::NothingFound) => match readings() {
            Pasted::Unread(measured::Error {
                problem: measured::Problem::Empty { .. } | measured::Problem::Unreadable { .. },
                ..
            }) => Pasted::LogUnread(log::Error::NothingFound),
            read => read,
        },
        Err(error) => Pasted::LogUnread(error),
    }
}

fn error_line(message: &str) -> El {
    el("p")
        .class("field-error")
        .attr("role", "alert")
        .attr("data-testid", "measure-error")
        .text(message)
}

/// The log's terms beside the plan's, and the log's sampler where it is not
/// the plan's, with a link that states it.
fn started_log(
    state: State,
    lang: Lang,
    config: &Config,
    plan: &serving::Plan,
    started: &log::Started,
) -> Vec<El> {
    let p = i18n::panels(lang);
    let units = config.units;
    let compared = log::compare(plan, started);
    let value = |term: log::Term, n: u128| match term {
        log::Term::KvCacheTokens | log::Term::MaxRunningRequests => group(lang, n),
        log::Term::MaxConcurrency => times(lang, n),
        log::Term::Weights | log::Term::CudaGraphs | log::Term::KvCacheMemory => {
            short(lang, n, units)
        }
    };
    let rows = compared.iter().map(|c| {
        let sign = if c.error < 0 {
            "−"
        } else if c.error > 0 {
            "+"
        } else {
            ""
        };
        let size = c.error.unsigned_abs();
        let error = format!("{sign}{}", value(c.term, size));
        let error = match i128::try_from(c.logged.value) {
            Ok(logged) if logged > 0 => {
                let tenths = (c.error * 1000 / logged).unsigned_abs();
                format!("{error} ({})", tenths_percent(lang, sign, tenths))
            }
            _ => error,
        };
        el("li")
            .attr("data-term", c.term.name())
            .attr("data-logged", &c.logged.value.to_string())
            .attr("data-planned", &c.planned.to_string())
            .attr("data-error", &c.error.to_string())
            .text(&format!(
                "{}: {}",
                (p.log_term)(c.term),
                (p.log_row)(
                    &value(c.term, c.logged.value),
                    c.logged.line,
                    &value(c.term, c.planned),
                    &error
                )
            ))
    });
    let mut shown = vec![
        el("p")
            .class("measure-line")
            .text(&(p.log_title)(plan.engine_name())),
        if compared.is_empty() {
            el("p").class("legend").text(p.log_other_length)
        } else {
            el("ul").attr("data-testid", "measure-log").children(rows)
        },
    ];
    if let Some((flashinfer, line)) = log::other_sampler(plan, started) {
        let mut stated = *config;
        stated.transformer.engine.flashinfer_sampler = flashinfer;
        shown.push(
            el("p")
                .class("legend")
                .attr("data-testid", "measure-sampler")
                .text(&format!("{} ", (p.log_sampler)(flashinfer, line)))
                .child(state.link_to(stated).text(p.log_sampler_apply)),
        );
    }
    shown
}

/// Each reading in exact bytes beside the prediction, for the report.
fn readings_report(all: &[Comparison]) -> String {
    all.iter()
        .map(|c| {
            format!(
                "{}: measured {} B, predicted {} B, estimate − run {} B\n",
                c.measured.reading.name(),
                c.measured.bytes,
                c.predicted,
                c.error
            )
        })
        .collect()
}

/// Each term of the log beside the plan's, for the report.
fn log_report(compared: &[log::Compared]) -> String {
    compared
        .iter()
        .map(|c| {
            format!(
                "{}: log {} (line {}), plan {}, plan − log {}\n",
                c.term.name(),
                c.logged.value,
                c.logged.line,
                c.planned,
                c.error
            )
        })
        .collect()
}

/// A difference in bytes with its sign ("−32.1 GB", "+1.20 GB", "0 B").
fn signed(lang: Lang, bytes: i128, units: Units) -> String {
    let sign = match bytes {
        0 => "",
        ..0 => "−",
        _ => "+",
    };
    format!("{sign}{}", short(lang, bytes.unsigned_abs(), units))
}

/// One reading: measured beside predicted, the difference, what could explain it.
fn result(c: &Comparison, lang: Lang, units: Units) -> El {
    let w = i18n::words(lang);
    let reading = match c.measured.reading {
        Reading::Allocated => w.answer.peak_allocated,
        Reading::Reserved => w.answer.peak_reserved,
        Reading::NvidiaSmi => w.answer.nvidia_smi,
    };
    let (sign, size) = if c.error >= 0 {
        ('+', c.error.unsigned_abs())
    } else {
        ('−', c.error.unsigned_abs())
    };
    let percent = c.error_tenths.map_or(String::new(), |t| {
        format!(
            " ({})",
            tenths_percent(lang, &sign.to_string(), t.unsigned_abs())
        )
    });
    let line = format!(
        "{reading}: {} {} · {} {} · {} {sign}{}{percent}",
        w.measure_measured,
        short(lang, c.measured.bytes, units),
        w.measure_predicted,
        short(lang, c.predicted, units),
        w.measure_difference,
        short(lang, size, units),
    );
    let terms = c.explanations.iter().map(|x| {
        let how = match x.fit {
            Fit::Within => w.measure_within,
            Fit::Part => w.measure_part,
            Fit::Unsized => w.measure_unsized,
        };
        // The difference the term could make in this run, as the CLI gives it.
        let how = match x.range {
            Some((lo, hi)) => format!(
                "{how} ({} … {} {})",
                signed(lang, lo, units),
                signed(lang, hi, units),
                w.measure_here
            ),
            None => how.to_owned(),
        };
        let modelled = match x.info.treatment {
            measured::Treatment::Modelled => w.measure_modelled,
            measured::Treatment::NotModelled => w.measure_not_modelled,
        };
        el("li").attr("data-term", x.info.term.name()).text(&{
            let name = i18n::term(lang, x.info.term);
            match i18n::term_note(lang, x.info) {
                "" => format!("{name} — {how}; {modelled} ({})", x.info.source),
                note => format!("{name} — {how}; {modelled} ({}: {note})", x.info.source),
            }
        })
    });
    let section = el("div")
        .class("measure-one")
        .attr("data-reading", c.measured.reading.name())
        .attr("data-measured", &c.measured.bytes.to_string())
        .attr("data-predicted", &c.predicted.to_string())
        .attr("data-error", &c.error.to_string())
        .child(el("p").class("measure-line").text(&line));
    if c.explanations.is_empty() {
        return section;
    }
    section
        .child(el("p").class("legend").text(w.measure_terms))
        .child(el("ul").children(terms))
}

/// The case written out for an issue report: the setup's link, what was
/// compared in exact numbers, and the text as pasted.
fn report(state: State, compared: &str, lang: Lang, pasted: &str) -> El {
    let mut text = format!(
        "{}\n",
        location::url_for(&untrack(|| state.query(query::Embed::Off)))
    );
    text.push_str(compared);
    text.push_str("```\n");
    text.push_str(pasted.trim());
    text.push_str("\n```\n");
    el("label")
        .class("measure-report")
        .child(el("span").text(i18n::words(lang).measure_report))
        .child(
            el("textarea")
                .attr("readonly", "")
                .attr("rows", "5")
                .attr("data-testid", "measure-report")
                .text(&text),
        )
}
