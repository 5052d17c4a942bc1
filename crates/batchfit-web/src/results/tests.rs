use super::breakdown::{not_at_peak, phase_words, term_bytes};
use super::summary::{additions, headline, percent};
use crate::charts::Component;
use crate::format::short_count;
use crate::i18n::{self, Lang};
use batchfit_core::memory::{self, Phase};

#[test]
fn a_validation_percent_is_rounded_away_from_the_estimate() {
    assert_eq!(percent(-1022, false), "−11\u{a0}%");
    assert_eq!(percent(3120, true), "+32\u{a0}%");
    assert_eq!(percent(8, false), "0\u{a0}%");
    assert_eq!(percent(8, true), "+1\u{a0}%");
    assert_eq!(percent(-8, true), "0\u{a0}%");
    assert_eq!(percent(-100, false), "−1\u{a0}%");
    assert_eq!(percent(300, true), "+3\u{a0}%");
}

/// A mixture of experts shows its total and active parameters under the
/// headline; a dense model in the transformer form shows nothing there.
#[test]
fn a_mixture_of_experts_shows_its_active_parameters() {
    let config = batchfit_core::query::parse("form=transformer&model=mixtral-8x7b").config;
    let e = memory::estimate(&config);
    assert_eq!(
        additions(Lang::En, &config, &e, None),
        "46.7B parameters (12.9B active)"
    );
    assert_eq!(
        additions(Lang::Es, &config, &e, None),
        "46,7B parámetros (12,9B activos)"
    );
    let dense = batchfit_core::query::parse("form=transformer&model=llama-3.1-8b").config;
    let e = memory::estimate(&dense);
    assert_eq!(additions(Lang::En, &dense, &e, None), "");
    assert_eq!(short_count(671_026_404_352), "671B");
    assert_eq!(short_count(3_353_032_704), "3.35B");
    assert_eq!(short_count(999), "999");
}

#[test]
fn every_phase_has_words() {
    for lang in [Lang::En, Lang::Es] {
        let w = i18n::words(lang);
        assert_eq!(Phase::ALL.len(), w.phases.len());
        for &phase in Phase::ALL {
            assert!(!phase_words(w, phase).is_empty());
        }
    }
}

/// A term alive at the peak but larger at another moment is "partly in
/// the peak", never "not in the peak": the forward's end sets the peak
/// under autocast with full recomputation (a recomputed layer comes
/// after it); at the optimizer step the activations are gone.
#[test]
fn a_term_partly_at_the_peak_is_said_to_be() {
    let w = i18n::words(Lang::En);
    let at_forward_end = memory::estimate(
        &batchfit_core::query::parse(
            "form=transformer&model=llama-3.1-8b&recompute=full&recompute_method=block&recompute_layers=8",
        )
        .config,
    );
    assert_eq!(at_forward_end.peak_phase, Phase::Forward);
    let (at, own) = term_bytes(&at_forward_end, Component::Activations);
    assert!(0 < at && at < own, "{at} {own}");
    assert_eq!(
        not_at_peak(w, &at_forward_end, Component::Activations),
        Some(w.partly_at_peak)
    );
    let at_step = memory::estimate(
        &batchfit_core::query::parse(
            "form=transformer&model=llama-3.2-1b&batch=1&seq=128&step=foreach",
        )
        .config,
    );
    assert_eq!(at_step.peak_phase, Phase::OptimizerStep);
    assert_eq!(term_bytes(&at_step, Component::Activations).0, 0);
    assert_eq!(
        not_at_peak(w, &at_step, Component::Activations),
        Some(w.not_at_peak_freed)
    );
    // Inference with a long prompt peaks at the prefill: the prompt's share
    // of the cache is alive, the generated tokens' comes after.
    let prefill = memory::estimate(
        &batchfit_core::query::parse(
            "form=transformer&model=qwen2.5-7b&mode=inference&seq=30720&gen=2048",
        )
        .config,
    );
    assert_eq!(prefill.peak_phase, Phase::Prefill);
    let (at, own) = term_bytes(&prefill, Component::KvCache);
    assert!(0 < at && at < own, "{at} {own}");
    assert_eq!(
        not_at_peak(w, &prefill, Component::KvCache),
        Some(w.prompt_cache_at_peak)
    );
    // A ViT's peak is its last layer's backward pass: the gradients
    // created by then are alive, the others come after.
    let vit = memory::estimate(
        &batchfit_core::query::parse(
            "form=transformer&model=vit-b-16&labels=1000&recipe=amp&batch=32",
        )
        .config,
    );
    let (at, own) = term_bytes(&vit, Component::Gradients);
    assert!(0 < at && at < own, "{at} {own}");
    assert_eq!(
        not_at_peak(w, &vit, Component::Gradients),
        Some(w.partly_at_peak)
    );
}

/// A job on several GPUs (issue 28): the headline says its number is one
/// GPU's and names the job's count, in both languages; a job on one GPU
/// keeps the short form.
#[test]
fn a_multi_gpu_headline_is_per_gpu_and_names_the_job() {
    let query = "form=transformer&model=mixtral-8x7b&gpus=8&tp=2&pp=2&ep=8&gpu=h100-80gb";
    let config = batchfit_core::query::parse(query).config;
    assert_eq!(memory::total_gpus(&config, 8), 32);
    let e = memory::estimate(&config);
    let needs = crate::format::short(Lang::En, e.required, config.units);
    let answer = if e.fits == Some(true) { "yes" } else { "no" };
    assert_eq!(
        headline(Lang::En, &config, &e, None, false),
        format!("Needs {needs} per GPU — fits on each of 32 × NVIDIA H100 80GB SXM: {answer}")
    );
    assert!(
        headline(Lang::Es, &config, &e, None, false)
            .contains("por GPU — ¿cabe en cada una de las 32 × NVIDIA H100 80GB SXM?")
    );
    // Not current: the number, still per GPU, and no verdict.
    assert_eq!(
        headline(Lang::En, &config, &e, None, true),
        format!("Needs {needs} per GPU")
    );
    let one =
        batchfit_core::query::parse("form=transformer&model=llama-3.1-8b&gpu=h100-80gb").config;
    let e = memory::estimate(&one);
    assert!(headline(Lang::En, &one, &e, None, false).starts_with("Needs "));
    assert!(!headline(Lang::En, &one, &e, None, false).contains("per GPU"));
}
