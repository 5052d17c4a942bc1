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

use super::{Config, Parsed, encode, pairs, parse, query_part, to_query};

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
    for (name, value) in pairs(query) {
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
