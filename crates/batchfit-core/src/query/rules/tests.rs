use super::*;
use crate::query::tests::any_config;
use crate::query::{TRANSFORMER_PARAMETERS, encode, parse, to_query, values};
use proptest::prelude::*;

/// Whether `problem` is one of `param`'s rules reporting, not a check of its
/// value against another's.
fn is_rule_report(param: Param, problem: &Problem) -> bool {
    RULES.iter().any(|r| {
        r.param == param
            && *problem
                == Problem::OnlyWith {
                    param: r.needs,
                    value: r.value,
                }
    })
}

/// `query` with `param` given as `value`, in place of what it gave.
fn with(query: &str, param: Param, value: &str) -> String {
    let rest = query.split('&').filter(|pair| {
        pair.split_once('=')
            .is_none_or(|(name, _)| name != param.name())
    });
    let mut pairs: Vec<String> = rest.map(str::to_owned).collect();
    pairs.push(format!("{}={}", param.name(), encode(value)));
    pairs.join("&")
}

#[test]
fn no_rule_makes_a_parameter_need_itself() {
    for rule in RULES {
        assert_ne!(rule.param, rule.needs, "{:?}", rule.param);
        assert!(
            TRANSFORMER_PARAMETERS.contains(&rule.param),
            "{:?}",
            rule.param
        );
    }
}

#[test]
fn the_rules_are_checked_in_an_order_that_settles() {
    // A rule's condition is a parameter whose own rules come earlier (or that
    // has none), so that one pass of `enforce` settles every condition before
    // it is read; the pipeline's and the context's degrees are settled by
    // their checks, before the rules that read them.
    for (i, rule) in RULES.iter().enumerate() {
        let later = RULES[i..]
            .iter()
            .any(|r| r.param == rule.needs && !matches!(r.needs, Param::Pp | Param::Cp));
        assert!(!later, "{:?} needs {:?}", rule.param, rule.needs);
    }
}

/// The issue-27 disagreement: the form offered `grad_accum_fusion` beside
/// LoRA, which the parser rejects.
#[test]
fn gradient_accumulation_fusion_does_not_apply_beside_adapters() {
    let megatron = parse("form=transformer&recipe=main_fp32").config;
    assert!(applies(Param::GradAccumFusion, &megatron));
    let lora = parse("form=transformer&recipe=main_fp32&lora_rank=16").config;
    assert_eq!(
        needs(Param::GradAccumFusion, &lora),
        Some((Param::LoraRank, Is("0")))
    );
    assert!(!applies(Param::GradAccumFusion, &lora));
}

#[test]
fn a_preset_or_profile_value_that_does_not_apply_is_kept_unreported() {
    // Unsloth's profile sets a rank; in inference the rank means nothing, and
    // the profile's is neither reported nor changed.
    let parsed = parse("form=transformer&framework=unsloth&mode=inference");
    assert_eq!(parsed.problems, []);
    assert!(!applies(Param::LoraRank, &parsed.config));
    assert!(keeps_rules(&parsed.config));
    // The window off keeps a preset's pattern of global layers.
    let parsed = parse("form=transformer&model=gemma-3-27b&window=0");
    assert_eq!(parsed.problems, []);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// `copy` knows every parameter a rule governs: after it, the
    /// parameter reads as the source's; and it says whether the input
    /// changed.
    #[test]
    fn every_governed_parameter_can_be_reset(config in any_config()) {
        let text = |t: TransformerInput, param: Param| {
            let all = values(&Config { form: Form::Transformer, transformer: t, ..Config::default() });
            all.into_iter().find(|(p, _)| *p == param).map(|(_, v)| v)
        };
        let from = TransformerInput::default();
        for rule in RULES {
            let mut to = config.transformer;
            let changed = copy(rule.param, &from, &mut to);
            prop_assert_eq!(text(to, rule.param), text(from, rule.param), "{:?}", rule.param);
            prop_assert_eq!(changed, to != config.transformer, "{:?}", rule.param);
        }
    }

    /// What the page shows is what the parser takes: for every parameter
    /// of a configuration, given any value another configuration holds, it
    /// is accepted where [`applies`] says it applies (the page shows its
    /// field then), and reported with what it needs where it does not
    /// (unless the value is the one it is reset to, which changes nothing),
    /// or by a quiet rule dropped unreported.
    #[test]
    fn a_parameter_is_accepted_where_it_applies_and_reported_where_not(
        config in any_config(), other in any_config(),
    ) {
        let config = normalize(Config { form: Form::Transformer, ..config }.synced());
        let query = to_query(&config);
        let theirs = values(&other);
        for &param in TRANSFORMER_PARAMETERS {
            let Some((_, value)) = theirs.iter().find(|(p, v)| *p == param && !v.is_empty()) else {
                continue;
            };
            let given = with(&query, param, value);
            let parsed = parse(&given);
            let on_param = parsed.problems.iter().find(|e| e.param() == Some(param));
            match broken(param, &config).map(|r| (r.needs, r.value, r.reported)) {
                // Where the value given resets what the rule reads (a
                // schedule that leaves the layers undivided resets `pp`),
                // that parameter's own report says why.
                None => prop_assert!(
                    !on_param.is_some_and(|e| is_rule_report(param, &e.problem)
                        && !parsed.problems.iter().any(|other| match e.problem {
                            Problem::OnlyWith { param: needed, .. } => other.param() == Some(needed),
                            _ => false,
                        })),
                    "{} applies, but {given} reports {:?}", param.name(), on_param
                ),
                Some((needs, value, loud)) => {
                    let reported = on_param.is_some_and(|e| e.problem == Problem::OnlyWith { param: needs, value });
                    let unchanged = parsed.config == parse(&query).config;
                    prop_assert!(
                        if loud { reported || unchanged } else { on_param.is_none() && unchanged },
                        "{} does not apply, but {given} reports {:?}", param.name(), on_param
                    );
                }
            }
        }
    }

    /// `check` skips the rules it knows settled: the same configuration and
    /// reports as checking every rule on every pass, from a configuration
    /// that breaks rules (another's mode, adapters, recomputation, profile
    /// and model under its own parallelism).
    #[test]
    fn settled_rules_are_skipped_for_nothing(config in any_config(), other in any_config()) {
        let mut mixed = Config { form: Form::Transformer, ..config };
        let (t, o) = (&mut mixed.transformer, other.transformer);
        (t.mode, t.lora_rank, t.recompute, t.framework, t.arch) =
            (o.mode, o.lora_rank, o.recompute, o.framework, o.arch);
        let (mut checked, mut reports) = (mixed, Vec::new());
        check(&mut checked, |param, problem| reports.push((param, problem)));
        let (mut every, mut every_reports) = (mixed, Vec::new());
        let mut report = |param, problem| every_reports.push((param, problem));
        let resets = Resets::of(&mixed);
        enforce_every_rule(&mut every, &resets, |r| !matches!(r.needs, Param::Pp | Param::Cp), &mut report);
        check_values(&mut every.transformer, &mut report);
        enforce_every_rule(&mut every, &resets, |_| true, &mut report);
        prop_assert_eq!(checked, every);
        prop_assert_eq!(reports, every_reports);
    }

    /// A configuration `parse` produces keeps every rule, and normalizing
    /// it changes nothing.
    #[test]
    fn parsed_configurations_keep_the_rules(config in any_config()) {
        prop_assert!(keeps_rules(&config));
        prop_assert_eq!(normalize(config), config);
    }
}

/// [`enforce`] checking every rule `which` selects on every pass, none
/// known settled.
fn enforce_every_rule(
    config: &mut Config,
    resets: &Resets,
    which: impl Fn(&Rule) -> bool,
    report: &mut impl FnMut(Param, Problem),
) {
    for _ in 0..RULES.len() {
        let mut pass = false;
        for rule in RULES.iter().filter(|r| which(r)) {
            let before = config.transformer;
            if !(rule.holds)(&before) {
                copy(
                    rule.param,
                    resets.of_kind(rule.reset),
                    &mut config.transformer,
                );
            }
            if config.transformer != before {
                pass = true;
                if rule.reported {
                    report(
                        rule.param,
                        Problem::OnlyWith {
                            param: rule.needs,
                            value: rule.value,
                        },
                    );
                }
            }
        }
        if !pass {
            break;
        }
    }
}
