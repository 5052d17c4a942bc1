//! The answer at the top of the results: the headline and its additions,
//! the fits badge, how sure "fits" is, and the one-line summary a phone keeps
//! in view.

use crate::prelude::*;
use batchfit_core::confidence::{self, Basis, Fit, Reading, Verdict};
use batchfit_core::memory::{self, Estimate};
use batchfit_core::query::{Config, Form};
use batchfit_core::units::{self, Units};

use crate::dom::{self, El, el, rx};
use crate::format::{device_name, short, short_count};
use crate::i18n::{self, Lang};
use crate::state::State;

use super::bar;

/// "4 data-parallel × tensor-parallel 4 × pipeline 2": the degrees above 1
/// beside the data-parallel ranks, or `None` when there are none.
fn split(lang: Lang, config: &Config, ranks: u64) -> Option<String> {
    let t = &config.transformer;
    let language = i18n::language(lang);
    let names = language.answer.split_names;
    let degrees: Vec<String> = [(names[1], t.tp), (names[2], t.pp), (names[3], t.cp)]
        .into_iter()
        .filter(|&(_, degree)| degree > 1)
        .map(|(name, degree)| (language.degree)(name, degree))
        .collect();
    (!degrees.is_empty()).then(|| format!("{ranks} {} × {}", names[0], degrees.join(" × ")))
}

/// "Needs 98.4 GB — fits on H100 80GB: no, 16 GPUs needed". The activations
/// form headlines its rule's number instead ("Activations 85.90 GB"); what a
/// GPU needs beyond it is [`additions`]. A result that is not current
/// (`stale`) says nothing about fitting: its headline has no verdict.
pub(super) fn headline(
    lang: Lang,
    config: &Config,
    estimate: &Estimate,
    gpus: Option<u64>,
    stale: bool,
) -> String {
    let units = config.units;
    if config.form == Form::Activations {
        let w = i18n::answer_words(lang);
        return format!(
            "{} {}",
            w.activations,
            i18n::decimal(lang, &units::format_bytes(estimate.activations, units))
        );
    }
    let needs = needs(lang, config, estimate);
    match verdict(lang, config, estimate, gpus).filter(|_| !stale) {
        Some(verdict) => format!("{needs} — {verdict}"),
        None => needs,
    }
}

/// The GPUs of the job (`memory::job_gpus`), where there are several: the
/// estimate is then one GPU's.
fn job_gpus(config: &Config) -> Option<u64> {
    Some(memory::job_gpus(config)).filter(|&gpus| gpus > 1)
}

/// "Needs 98.4 GB", or "Needs 16.1 GB per GPU" for a job on several GPUs.
fn needs(lang: Lang, config: &Config, estimate: &Estimate) -> String {
    let language = i18n::language(lang);
    let required = short(lang, estimate.required, config.units);
    match job_gpus(config) {
        Some(_) => (language.needs_per_gpu)(&required),
        None => (language.needs)(&required),
    }
}

/// "fits on H100 80GB: no, 16 GPUs needed", when a device is chosen; "fits
/// on each of 32 × H100 80GB: yes" for a job on several GPUs.
fn verdict(lang: Lang, config: &Config, estimate: &Estimate, gpus: Option<u64>) -> Option<String> {
    let name = device_name(lang, config.device?);
    let language = i18n::language(lang);
    let answer = if estimate.fits == Some(true) {
        language.answer.yes.to_owned()
    } else {
        let total = gpus
            .filter(|&n| n > 1 && config.form == Form::Transformer)
            .map(|n| memory::total_gpus(config, n));
        let parts = gpus.and_then(|ranks| split(lang, config, ranks));
        match total {
            Some(n) => (language.gpus_needed)(n, parts.as_deref()),
            None => "no".to_owned(),
        }
    };
    Some(match job_gpus(config) {
        Some(job) => (language.fits_on_each)(job, &name, &answer),
        None => (language.fits_on)(&name, &answer),
    })
}

/// Under the activations form's headline: what a GPU needs beyond the rule's
/// number, each addition labelled. For a mixture of experts in the
/// transformer form, its total and active parameters ("46.7B parameters
/// (12.9B active)"). Empty otherwise: the headline is the required memory
/// itself.
pub(super) fn additions(lang: Lang, config: &Config, e: &Estimate, gpus: Option<u64>) -> String {
    if config.form == Form::Transformer && e.active_parameters < e.parameters {
        let w = i18n::answer_words(lang);
        return format!(
            "{} {} ({} {})",
            i18n::decimal(lang, &short_count(e.parameters)),
            w.parameters.to_ascii_lowercase(),
            i18n::decimal(lang, &short_count(e.active_parameters)),
            w.active
        );
    }
    if config.form != Form::Activations {
        return String::new();
    }
    let units = config.units;
    let w = i18n::answer_words(lang);
    let mut parts = vec![format!(
        "+ {} {}",
        short(lang, e.allocator_cache(), units),
        w.allocator_cache.to_ascii_lowercase()
    )];
    parts.push(format!(
        "+ {} {}",
        short(lang, e.overhead, units),
        w.overhead.to_ascii_lowercase()
    ));
    if e.margin_bytes() > 0 {
        parts.push(format!(
            "+ {} {}",
            short(lang, e.margin_bytes(), units),
            w.margin.to_ascii_lowercase()
        ));
    }
    let total = (i18n::language(lang).sum_needs)(&short(lang, e.required, units));
    let line = format!("{} {total}", parts.join(" "));
    match verdict(lang, config, e, gpus) {
        Some(verdict) => format!("{line} — {verdict}"),
        None => line,
    }
}

/// The headline and the verdict in one line that stays at the top of a phone's
/// screen while the inputs scroll (hidden from 960 px, where the results sit
/// beside the inputs); a tap goes to the results.
pub fn mini_summary(state: State) -> El {
    let lang = state.lang;
    let (estimate, config) = (state.estimate, state.config);
    el("a")
        .class("mini-summary")
        .attr("href", "#results-title")
        .attr("data-testid", "mini-summary")
        .bind_class("stale", rx(move || state.stale()))
        .child(el("span").class("mini-headline").bind_text(rx(move || {
            let (lang, config, e) = (lang.get(), config.get(), estimate.get());
            // A serving engine's answer, as its plan's chunk words it (its
            // plan's title until the chunk has shown it).
            if crate::serving::serves(state) {
                let served = state.served.get();
                if served.is_empty() {
                    return i18n::words(lang).serving_plan.to_owned();
                }
                return served;
            }
            mini_headline(lang, &config, &e)
        })))
        .child(el("span").class("mini-verdict").bind_text(rx(move || {
            let w = i18n::words(lang.get());
            // vLLM's plan says its answer in the results.
            if crate::serving::serves(state) && !state.stale() {
                return String::new();
            }
            match state.stale() {
                true => w.not_current.to_owned(),
                false => mini_verdict(lang.get(), estimate.with(|e| e.fits)),
            }
        })))
}

/// The phone bar's headline: "Needs 18.5 GB", after the rule's number on
/// the activations form.
fn mini_headline(lang: Lang, config: &Config, e: &Estimate) -> String {
    let needs = needs(lang, config, e);
    match config.form {
        Form::Activations => format!(
            "{} {} · {needs}",
            i18n::answer_words(lang).activations,
            short(lang, e.activations, config.units),
        ),
        Form::Parameters | Form::Transformer => needs,
    }
}

/// "✓ Fits" or "✗ Does not fit"; nothing without a device.
fn mini_verdict(lang: Lang, fits: Option<bool>) -> String {
    let w = i18n::answer_words(lang);
    match fits {
        Some(true) => format!("✓ {}", w.fits),
        Some(false) => format!("✗ {}", w.does_not_fit),
        None => String::new(),
    }
}

/// The answer before the interface: the headline, its additions, the fits
/// badge, how sure it is and the breakdown bar with its legend for the
/// address `query`, and the phone bar's headline and verdict, written into
/// the pre-rendered `shell` in place of its loading lines with plain DOM
/// writes and the core's estimate (no state, no bindings), as the markup
/// the app builds (`shell-answer`; the first screen's headline and verdict
/// are in the built page, crates/xtask/src/prerender.js, and the rest is
/// written here).
/// The app replaces the shell, with the same words, once it is built.
/// Whether an answer stands in the shell: an address with a bad value, two
/// setups or a serving engine's plan (whose views say it otherwise), or
/// shown another form's shell, waits for the app.
pub fn first_answer(shell: &web_sys::Element, query: &str, browser: Lang) -> bool {
    let find = |selector: &str| shell.query_selector(selector).ok().flatten();
    let opened = batchfit_core::query::parse_pair(query);
    let config = opened.a.config;
    // boot.js shows the shell of the form the address's fields name; an
    // address naming only parameters no shell has (`lora_rank=8`, no
    // `form`) gets the first screen's, though it opens the rule of thumb.
    // No answer stands in another form's shell, not even its built one.
    if shell.get_attribute("data-form").as_deref() != Some(config.form.name()) {
        while let Some(built) = find(".shell-answer") {
            built.remove();
        }
        return false;
    }
    if opened.b.is_some()
        || opened
            .a
            .problems
            .iter()
            .any(|p| p.problem.is_in_the_value())
        || batchfit_core::serving::serves(&config)
    {
        return find(".shell-answer").is_some();
    }
    let (Some(results), Some(mini)) = (find("section.results"), find(".mini-summary")) else {
        return false;
    };
    let lang = config.lang.unwrap_or(browser);
    let e = memory::estimate(&config);
    let summary = answer(lang, &config, &e, memory::gpus_needed(&config));
    // The first screen's headline and verdict are in the built page: the
    // whole summary takes their place, the same words and more.
    if let Some(built) = find(".shell-answer.summary") {
        let _ = built.replace_with_with_node_1(summary.node());
    } else {
        let _ = results.append_child(summary.node());
        for (class, text) in [
            (
                "mini-headline shell-answer",
                mini_headline(lang, &config, &e),
            ),
            ("mini-verdict shell-answer", mini_verdict(lang, e.fits)),
        ] {
            let _ = mini.append_child(el("span").class(class).text(&text).node());
        }
    }
    let bar = el("figure")
        .class("bar shell-answer")
        .child(bar::track(&bar::geometry(lang, &e, &config), false))
        .children(bar::legend(lang, &e, config.units));
    let _ = results.append_child(bar.node());
    // As on the first screen: the answer, not a loading line, in both places.
    while let Some(loading) = find(".boot-loading") {
        loading.remove();
    }
    true
}

/// The summary the app's first task writes: the headline, its additions,
/// the fits badge and how sure it is, as [`summary`] shows them.
fn answer(lang: Lang, config: &Config, e: &Estimate, gpus: Option<u64>) -> El {
    let additions = additions(lang, config, e, gpus);
    let answer = el("div")
        .class("summary shell-answer")
        .child(
            el("p")
                .class("headline")
                .text(&headline(lang, config, e, gpus, false)),
        )
        .children((!additions.is_empty()).then(|| el("p").class("additions").text(&additions)));
    let answer = match e.fits.filter(|_| e.device_bytes.is_some()) {
        Some(fits) => answer.child(
            badge_frame(fits)
                .child(el("strong").text(fits_word(lang, fits)))
                .text(&badge_detail(lang, e, config.units, fits)),
        ),
        None => answer,
    };
    match confidence::fit(config, e) {
        Some(fit) => {
            let verdict = e.device_bytes.map(|c| fit.verdict(c));
            answer.child(el("p").class("confidence").text(&confidence_text(
                lang,
                &fit,
                verdict,
                config.units,
            )))
        }
        None => answer,
    }
}

/// The answer: the not-current note, the headline, its labelled additions and
/// the fits badge. It stays in view on a phone while the inputs scroll.
pub(super) fn summary(state: State) -> El {
    let lang = state.lang;
    let (estimate, config) = (state.estimate, state.config);
    el("div")
        .class("summary")
        .attr("data-testid", "summary")
        .show(
            rx(move || state.stale()),
            Box::new(move || {
                vec![
                    el("p")
                        .class("stale-note")
                        .attr("role", "status")
                        .bind_text(i18n::tr(lang, |w| w.stale)),
                ]
            }),
        )
        .child(
            el("p")
                .class("headline")
                .attr("data-testid", "headline")
                .bind_text(rx(move || {
                    headline(
                        lang.get(),
                        &config.get(),
                        &estimate.get(),
                        state.gpus_needed.get(),
                        state.stale(),
                    )
                })),
        )
        .child(
            el("p")
                .class("additions")
                .attr("data-testid", "headline-additions")
                .bind_text(rx(move || {
                    additions(
                        lang.get(),
                        &config.get(),
                        &estimate.get(),
                        state.gpus_needed.get(),
                    )
                })),
        )
        // A result that is not current says nothing about fitting.
        .rebuild(
            rx(move || {
                let stale = state.stale();
                estimate.with(|e| match (e.fits, e.device_bytes, stale) {
                    (Some(fits), Some(_), false) => Some(fits),
                    _ => None,
                })
            }),
            Box::new(move |&fits| {
                fits.map(|fits| fits_badge(state, fits))
                    .into_iter()
                    .collect()
            }),
        )
        .child(confidence(state))
}

/// How sure "fits" is: the range validation runs like this one measured
/// (`batchfit_core::confidence`, regenerated with docs/accuracy.md) and what
/// it says against the device. Empty for the napkin forms (no validation row
/// is one of them) and while the result is not current.
fn confidence(state: State) -> El {
    let p = el("p")
        .class("confidence")
        .attr("data-testid", "confidence");
    let (node, text) = (p.node().clone(), p.text_node());
    dom::bind(
        rx(move || {
            let (config, estimate) = (state.config.get(), state.estimate.get());
            let fit = confidence::fit(&config, &estimate).filter(|_| !state.stale());
            (fit, estimate.device_bytes, config.units, state.lang.get())
        }),
        Box::new(move |&(fit, capacity, units, lang)| {
            let Some(fit) = fit else {
                let _ = node.remove_attribute("data-verdict");
                text.set_data("");
                return;
            };
            let verdict = capacity.map(|c| fit.verdict(c));
            let _ = node.set_attribute("data-verdict", verdict.map_or("", |v| v.name()));
            let _ = node.set_attribute("data-optimistic", &fit.optimistic.to_string());
            let _ = node.set_attribute("data-pessimistic", &fit.pessimistic.to_string());
            text.set_data(&confidence_text(lang, &fit, verdict, units));
        }),
    );
    p
}

/// A basis-point error as a whole percent rounded away from the estimate,
/// so the range shown is never narrower than the one measured: "−11 %".
pub(super) fn percent(basis_points: i32, up: bool) -> String {
    let whole = if up {
        basis_points.div_euclid(100) + i32::from(basis_points.rem_euclid(100) > 0)
    } else {
        basis_points.div_euclid(100)
    };
    match whole {
        0 => "0\u{a0}%".to_owned(),
        w if w > 0 => format!("+{w}\u{a0}%"),
        w => format!("−{}\u{a0}%", w.unsigned_abs()),
    }
}

fn confidence_text(lang: Lang, fit: &Fit, verdict: Option<Verdict>, units: Units) -> String {
    let w = i18n::answer_words(lang);
    let range = &fit.range;
    let reading = match range.reading {
        Reading::Allocated => w.peak_allocated,
        Reading::Reserved => w.peak_reserved,
        Reading::NvidiaSmi => w.nvidia_smi,
    };
    let mut out = format!(
        "{} {} … {} {} ({reading}: {} {}, {} {})",
        w.confidence_range,
        percent(range.bounds.low, false),
        percent(range.bounds.high, true),
        w.confidence_against,
        i18n::group(lang, u128::from(range.rows)),
        w.confidence_rows,
        i18n::group(lang, u128::from(range.sources)),
        w.confidence_sources,
    );
    if let Basis::Pooled { profile, .. } = range.basis {
        let name = i18n::option(lang, batchfit_core::query::Param::Framework, profile.name());
        out.push_str(&format!("; {} {name}", w.confidence_pooled));
    }
    out.push_str(". ");
    let (low, high) = (
        short(lang, fit.optimistic, units),
        short(lang, fit.pessimistic, units),
    );
    out.push_str(&match verdict {
        None => format!("{} {low} … {high}.", w.confidence_needs),
        Some(Verdict::Fits) => format!("{} ({high}).", w.confidence_fits),
        Some(Verdict::FitsOnlyOptimistic) => {
            format!("{} ({low} … {high}).", w.confidence_optimistic)
        }
        Some(Verdict::DoesNotFit) => format!("{} ({low}).", w.confidence_no),
    });
    out
}

/// Fits or not, in words and a symbol (not colour alone), with the margin.
fn fits_badge(state: State, fits: bool) -> El {
    let lang = state.lang;
    badge_frame(fits)
        .attr("data-testid", "fits")
        .child(el("strong").bind_text(rx(move || fits_word(lang.get(), fits).to_owned())))
        .bind_text(rx(move || {
            let units = state.config.with(|c| c.units);
            state
                .estimate
                .with(|e| badge_detail(lang.get(), e, units, fits))
        }))
}

/// The badge without its words: its class, its value and its symbol.
fn badge_frame(fits: bool) -> El {
    el("p")
        .class(if fits { "badge fits" } else { "badge nofit" })
        .attr("data-value", if fits { "true" } else { "false" })
        .child(
            el("span")
                .attr("aria-hidden", "true")
                .text(if fits { "✓ " } else { "✗ " }),
        )
}

fn fits_word(lang: Lang, fits: bool) -> &'static str {
    let w = i18n::answer_words(lang);
    if fits { w.fits } else { w.does_not_fit }
}

/// " — 6.88 GB to spare", or " — short by 117 MB".
fn badge_detail(lang: Lang, e: &Estimate, units: Units, fits: bool) -> String {
    let device = e.device_bytes.unwrap_or(0);
    let language = i18n::language(lang);
    let detail = if fits {
        (language.spare)(&short(lang, device.saturating_sub(e.required), units))
    } else {
        let short_by = short(lang, e.required.saturating_sub(device), units);
        format!("{} {short_by}", language.answer.devices_short_by)
    };
    format!(" — {detail}")
}
