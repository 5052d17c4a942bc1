//! Two setups in one address, for "Compare with…" (issue 16): setup A is
//! the query as it always was, and setup B is written as `b.`-prefixed copies
//! of only the parameters where B's query differs from A's. Old links have no
//! `b.` parameter and read exactly as before.
//!
//! B's query is A's with each `b.NAME=VALUE` replacing (or adding) `NAME`,
//! and each `b.NAME=` (empty) removing it: B leaves that parameter to its
//! default, its preset or its framework profile, where A wrote one. The
//! language and the units belong to the page, not to a setup:
//! [`to_query_pair`] writes B with A's.

use super::{
    COMMON_PARAMETERS, Config, FIRST_SCREEN, Form, Param, Parsed, encode, form_parameters,
    opens_first_screen, pairs, parse, query_part, to_query, values,
};

/// What marks a parameter of setup B.
pub const B_PREFIX: &str = "b.";

/// Setup A and, when the query has any `b.` parameter, setup B.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pair {
    pub a: Parsed,
    /// B's problems name B's parameters without the prefix; the page and the
    /// CLI say they are B's.
    pub b: Option<Parsed>,
}

/// Reads A (the parameters without the prefix, as [`parse`] does) and B.
pub fn parse_pair(text: &str) -> Pair {
    let query = query_part(text);
    let a = parse(query);
    let mut b_pairs: Vec<(String, String)> = Vec::new();
    let mut changes: Vec<(String, String)> = Vec::new();
    // B changes what A is, the first screen's setup where A names none.
    let a_query = if opens_first_screen(query) {
        format!("{FIRST_SCREEN}&{query}")
    } else {
        query.to_owned()
    };
    for (name, value) in pairs(&a_query) {
        match name.strip_prefix(B_PREFIX) {
            Some(name) => changes.push((name.to_owned(), value)),
            None => b_pairs.push((name, value)),
        }
    }
    if changes.is_empty() {
        return Pair { a, b: None };
    }
    for (name, value) in changes {
        // The first of a repeated `b.` parameter wins; `parse` reports the
        // repeat as B's duplicate.
        match b_pairs.iter().position(|(n, _)| *n == name) {
            Some(i) if value.is_empty() => {
                b_pairs.remove(i);
            }
            Some(i) => b_pairs[i].1 = value,
            None if value.is_empty() => {}
            None => b_pairs.push((name, value)),
        }
    }
    let b_query: Vec<String> = b_pairs
        .iter()
        .map(|(n, v)| format!("{}={}", encode(n), encode(v)))
        .collect();
    Pair {
        a,
        b: Some(parse(&b_query.join("&"))),
    }
}

/// A's query and the `b.` parameters that make B of it: each parameter B's
/// query writes differently from A's (or A does not write), and an empty
/// `b.NAME=` for each one A writes and B does not. B's language and units
/// are A's.
pub fn to_query_pair(a: &Config, b: &Config) -> String {
    let b = Config {
        lang: a.lang,
        units: a.units,
        ..*b
    };
    let a_query = to_query(a);
    let a_pairs: Vec<(String, String)> = pairs(&a_query).collect();
    let b_pairs: Vec<(String, String)> = pairs(&to_query(&b)).collect();
    let mut out = a_query.clone();
    let mut add = |name: &str, value: &str| {
        out.push('&');
        out.push_str(B_PREFIX);
        out.push_str(name);
        out.push('=');
        out.push_str(&encode(value));
    };
    for (name, value) in &b_pairs {
        if !a_pairs.iter().any(|(n, v)| n == name && v == value) {
            add(name, value);
        }
    }
    for (name, _) in &a_pairs {
        if !b_pairs.iter().any(|(n, _)| n == name) {
            add(name, "");
        }
    }
    out
}

/// The parameters either setup's form reads (and `form` itself), each with
/// its text in A and in B as [`values`] writes it, where the two differ, in
/// [`Param::ALL`]'s order: what the page's comparison and `batchfit compare`
/// list as "differs in". The page's language and units are left out only by
/// callers that share them.
pub fn differing(a: &Config, b: &Config) -> Vec<(Param, String, String)> {
    let read = |p: &Param| {
        *p == Param::Form
            || form_parameters(a.form).contains(p)
            || form_parameters(b.form).contains(p)
            || COMMON_PARAMETERS.contains(p)
    };
    let (va, vb) = (values(a), values(b));
    let text = |values: &[(Param, String)], p: Param| {
        values
            .iter()
            .find(|(q, _)| *q == p)
            .map_or(String::new(), |(_, v)| v.clone())
    };
    Param::ALL
        .iter()
        .copied()
        .filter(read)
        .filter_map(|p| {
            let (ta, tb) = (text(&va, p), text(&vb, p));
            (ta != tb).then_some((p, ta, tb))
        })
        .collect()
}

/// The comparisons people make most, each one parameter of `a` changed, for
/// "Compare with…": the precision (pure BF16 against AMP, BF16 against FP32 in
/// the napkin forms), and in training the ZeRO stage (3 against 2), LoRA
/// against full fine-tuning (rank 16 or 0) and recomputation (full against
/// none); each with the parameter it changes.
pub fn toggles(a: &Config) -> Vec<(Param, Config)> {
    use crate::Precision;
    use crate::transformer::{Mode, Recipe, Recompute};
    let mut out = Vec::new();
    let mut with = |param: Param, change: &dyn Fn(&mut Config)| {
        let mut b = *a;
        change(&mut b);
        // The values the forms share follow the form's own.
        out.push((param, b.synced()));
    };
    let other = |p: Precision| {
        if p == Precision::Bf16 {
            Precision::Fp32
        } else {
            Precision::Bf16
        }
    };
    match a.form {
        Form::Activations => {
            with(Param::Precision, &|b| {
                b.activations.precision = other(a.activations.precision)
            });
            with(Param::Ckpt, &|b| {
                b.activations.checkpointing = !a.activations.checkpointing
            });
        }
        Form::Parameters => {
            with(Param::Precision, &|b| {
                b.parameters.precision = other(a.parameters.precision)
            });
        }
        Form::Transformer => {
            let t = &a.transformer;
            with(Param::Recipe, &|b| {
                b.transformer.recipe = if t.recipe == Recipe::Bf16 {
                    Recipe::Amp
                } else {
                    Recipe::Bf16
                }
            });
            if t.mode == Mode::Train {
                with(Param::Zero, &|b| {
                    b.transformer.zero = if t.zero == 3 { 2 } else { 3 }
                });
                with(Param::LoraRank, &|b| {
                    b.transformer.lora_rank = if t.lora_rank == 0 { 16 } else { 0 }
                });
                with(Param::Recompute, &|b| {
                    b.transformer.recompute = if t.recompute == Recompute::Full {
                        Recompute::None
                    } else {
                        Recompute::Full
                    }
                });
            }
        }
    }
    out
}
