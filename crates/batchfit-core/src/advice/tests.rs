use super::*;
use crate::query::{parse, tests::any_config};
use proptest::prelude::*;

fn config(query: &str) -> Config {
    let parsed = parse(query);
    assert_eq!(parsed.problems, [], "{query}");
    parsed.config
}

/// The one-card user of issue 28: Llama-3.1-8B, full fine-tune in AMP, 16 ×
/// 2,048 tokens on an RTX 4090. Before, the first fix fitted with 30 MB to
/// spare and only at the optimistic end, and needed 128 GB of host RAM
/// unsaid; ZeRO over 31 GPUs came next. Now no fix adds a GPU, the first
/// fit even at the pessimistic end, and each says the host RAM it needs.
#[test]
fn a_one_card_user_is_advised_on_one_card_with_a_margin() {
    let c = config("form=transformer&model=llama-3.1-8b&gpu=rtx-4090");
    let device = c.device.map(|d| d.usable_bytes()).expect("a device");
    let advice = fixes(&c);
    assert!(!advice.is_empty());
    assert!(advice[0].fits_pessimistic, "{:?}", advice[0].fix.levers);
    for a in &advice {
        assert_eq!(a.fix.cost.extra_gpus(), 0, "{:?}", a.fix.levers);
        let e = &a.fix.estimate;
        let fit = confidence::fit(&a.fix.config, e).expect("a range");
        assert_eq!(a.fits_pessimistic, fit.pessimistic <= device);
        assert_eq!(
            a.host_memory,
            memory::host_memory(&a.fix.config, e.cpu_memory)
        );
    }
    // With 64 GB of host RAM, no fix needs more.
    let small_host = config("form=transformer&model=llama-3.1-8b&gpu=rtx-4090&host_gb=64");
    for a in fixes(&small_host) {
        assert!(a.host_memory <= 64_000_000_000, "{:?}", a.fix.levers);
    }
}

/// docs/model.md §5's example: on one H100, the estimate's cheapest fix
/// (micro-batch 1 in pure BF16, 83.26 GB of 85.52) does not fit at the
/// pessimistic end. The first piece of advice keeps the full fine-tune on
/// the card alone (recomputation, micro-batch 2, pure BF16 and 8-bit
/// moments); parameter offload at micro-batch 2, which needs 16 bytes per
/// parameter on a host whose RAM the query does not give, comes after the
/// fixes that need none.
#[test]
fn the_documented_one_h100_example() {
    let c = config("form=transformer&model=llama-3.1-8b&gpu=h100-80gb&recipe=amp");
    let cheapest = &memory::fixes(&c)[0];
    assert_eq!(cheapest.estimate.required, 83_261_029_684);
    assert!(!fits_pessimistic(&cheapest.config, true));
    let advice = fixes(&c);
    let first = &advice[0];
    assert_eq!(
        first.fix.levers,
        [
            memory::Lever::FullRecompute,
            memory::Lever::Batch { batch: 2 },
            memory::Lever::Bf16,
            memory::Lever::Adam8bit
        ]
    );
    assert!(first.fits_pessimistic);
    assert_eq!(first.host_memory, 0);
    let offload = advice
        .iter()
        .position(|a| {
            a.fix.levers
                == [
                    memory::Lever::ParamOffload,
                    memory::Lever::Batch { batch: 2 },
                ]
        })
        .expect("listed");
    assert_eq!(advice[offload].host_memory, 16 * 8_030_261_248);
    assert!(advice[..offload].iter().all(|a| a.host_memory == 0));
}

/// The one-card case with its host RAM unknown: the one-card answer
/// that needs no host RAM (QLoRA with full recomputation at micro-batch 2,
/// accumulating to the same 16 samples) comes first; the offloads, each
/// saying the host RAM it needs, follow. Given a host that holds them, the
/// offloads, which keep the full fine-tune, come first.
#[test]
fn a_one_card_user_is_first_told_what_needs_no_host_ram() {
    let c = config("form=transformer&model=llama-3.1-8b&gpu=rtx-4090");
    let advice = fixes(&c);
    let first = &advice[0];
    assert_eq!(
        first.fix.levers,
        [
            memory::Lever::Qlora { rank: 16 },
            memory::Lever::FullRecompute,
            memory::Lever::Batch { batch: 2 }
        ]
    );
    assert_eq!(first.host_memory, 0);
    assert!(first.fits_pessimistic);
    assert_eq!(first.fix.cost.tokens_lost(), 0);
    assert!(advice[1..].iter().any(|a| a.host_memory > 0));
    let big_host = config("form=transformer&model=llama-3.1-8b&gpu=rtx-4090&host_gb=256");
    let first = &fixes(&big_host)[0];
    assert!(first.fix.levers.contains(&memory::Lever::ParamOffload));
    assert!(first.fix.levers.iter().all(|l| !l.changes_task()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Every piece of advice is a fix of the configuration, those that fit
    /// at the pessimistic end first; each says truly whether it does.
    #[test]
    fn sure_fixes_come_first_and_each_says_what_it_is(config in any_config()) {
        let advice = fixes(&config);
        prop_assert!(advice.len() <= memory::FIXES);
        if memory::estimate(&config).fits != Some(false) {
            prop_assert!(advice.is_empty());
        }
        prop_assert!(advice.windows(2).all(|w| w[0].fits_pessimistic >= w[1].fits_pessimistic));
        let budget = memory::gpu_budget(&config);
        for a in &advice {
            // Bounded by what the user has: the GPUs (a fix's own budget is
            // its job's GPUs where they exceed `max_gpus`) and the host's RAM.
            prop_assert!(memory::gpu_budget(&a.fix.config) <= budget);
            prop_assert_eq!(a.fix.estimate.fits, Some(true));
            prop_assert_eq!(a.fits_pessimistic, fits_pessimistic(&a.fix.config, true));
            prop_assert!(memory::fits_host(&a.fix.config, a.fix.estimate.cpu_memory));
        }
    }

    /// Over whole input domains, as in the table below.
    #[test]
    fn the_estimate_s_search_only_fills_the_room(config in any_config()) {
        prop_assert_eq!(advised(&config), from_both_searches(&config));
    }
}

/// The parameters form's dead end (issue 28): 7B with AdamW on one H100,
/// whose model states alone exceed the card, is handed to the transformer
/// form on the published dense decoder nearest 7B (Mistral 7B, 7.24B),
/// with its batch and device; there the advice finds fixes on the one card.
#[test]
fn the_parameters_form_hands_off_to_the_transformer_form() {
    let c = config("form=parameters&params=7B&optimizer=adamw&batch=8&gpu=h100-80gb");
    let e = memory::estimate(&c);
    assert!(e.model_states() > c.device.expect("a device").usable_bytes());
    assert!(e.states_exceed_device());
    let small = config("form=parameters&params=1B&optimizer=adamw&batch=8&gpu=h100-80gb");
    assert!(!memory::estimate(&small).states_exceed_device());
    let handed = transformer_hand_off(&c).expect("a hand-off");
    assert_eq!(handed.form, Form::Transformer);
    assert_eq!(handed.model.map(|m| m.id), Some("mistral-7b"));
    assert_eq!(handed.transformer.batch, 8);
    assert_eq!(handed.device, c.device);
    let there = fixes(&handed);
    assert!(!there.is_empty());
    assert!(there.iter().all(|a| a.fix.cost.extra_gpus() == 0));
    // Inference stays inference; the other forms hand nothing off.
    let served = config("form=parameters&params=70B&optimizer=none&gpu=rtx-4090");
    let handed = transformer_hand_off(&served).expect("a hand-off");
    assert_eq!(handed.model.map(|m| m.id), Some("llama-3.1-70b"));
    assert_eq!(handed.transformer.mode, crate::transformer::Mode::Inference);
    assert_eq!(transformer_hand_off(&config("form=activations")), None);
}

/// The fixes `fixes` gives, as configurations.
fn advised(config: &Config) -> Vec<Config> {
    fixes(config).into_iter().map(|a| a.fix.config).collect()
}

/// The fixes as `fixes` gave them before it skipped the estimate's search
/// where the pessimistic one fills the list: both searches run, the
/// estimate's fills what room is left.
fn from_both_searches(config: &Config) -> Vec<Config> {
    let on_device = |c: &Config| fits_pessimistic(c, false);
    let with_host = |c: &Config| fits_pessimistic(c, true);
    let target = Target {
        device: &on_device,
        fits: &with_host,
    };
    let mut sure = memory::fixes_for(config, &target);
    let mut likely: Vec<Fix> = memory::fixes(config)
        .into_iter()
        .filter(|fix| !sure.iter().any(|s| s.config == fix.config))
        .collect();
    sure.truncate(memory::FIXES);
    let room = memory::FIXES - sure.len();
    likely.sort_by_key(|f| !fits_pessimistic(&f.config, true));
    sure.into_iter()
        .chain(likely.into_iter().take(room))
        .map(|f| f.config)
        .collect()
}

/// Skipping the estimate's search when the pessimistic one has filled the
/// list changes nothing: the same fixes, in the same order, on setups that
/// do not fit, with and without five sure fixes.
#[test]
fn the_estimate_s_search_only_fills_what_the_sure_fixes_leave() {
    let mut filled = [false, false];
    for query in [
        "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&recipe=amp",
        "form=transformer&model=llama-3.1-8b&gpu=rtx-4090&batch=16&seq=2048",
        "form=transformer&model=qwen3-235b-a22b&gpu=a100-80gb&seq=8192",
        "form=transformer&model=deepseek-v3&gpu=rtx-4090&batch=64&seq=32768",
        "form=transformer&model=llama-3.1-70b&gpu=h100-80gb&mode=inference&batch=64&seq=8192",
        "form=parameters&params=7B&optimizer=adamw&batch=8&gpu=h100-80gb",
        "form=activations&batch=64&seq=4096&hidden=4096&layers=32&precision=bf16&k=10&gpu=rtx-4090",
    ] {
        let c = config(query);
        let advised = advised(&c);
        assert_eq!(advised, from_both_searches(&c), "{query}");
        let sure = fixes(&c).iter().filter(|a| a.fits_pessimistic).count();
        filled[usize::from(sure < memory::FIXES && !advised.is_empty())] = true;
    }
    assert_eq!(
        filled,
        [true, true],
        "both cases: five sure fixes, and room left"
    );
}
