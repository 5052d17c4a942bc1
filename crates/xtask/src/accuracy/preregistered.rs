//! `validation/preregistered.csv`: the pre-registered predictions, checked when read.

use std::fmt::Write as _;

use super::csv::{Row, read_csv};
use super::rows::Reading;

/// One row of `validation/preregistered.csv`: the query that states a
/// measurement and batchfit's prediction for it, recorded at `predicted_at`
/// before any change to the model was written for its source.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Preregistered {
    pub(super) id: String,
    pub(super) stack: String,
    pub(super) predicted_at: String,
    /// Empty for a row batchfit cannot state.
    pub(super) query: String,
    pub(super) reading: Reading,
    /// How many GPUs' readings the measured value sums (1 for one GPU's).
    pub(super) gpus_summed: u32,
    /// The prediction in bytes at `predicted_at`, already times `gpus_summed`;
    /// `None` for a row batchfit cannot state.
    pub(super) predicted: Option<f64>,
    /// Why the row is not comparable; empty when it is.
    pub(super) reason: String,
    /// For a row that was not comparable at registration: the query written
    /// from its source once a change to the model could state it, before any
    /// prediction for it was computed; empty otherwise.
    pub(super) query_after: String,
    /// The commit whose model first expresses `query_after`.
    pub(super) query_after_at: String,
    /// For a row still not comparable after such a change: why, as of then.
    pub(super) reason_after: String,
}

/// Reads `validation/preregistered.csv`. A comparable row (`comparable` = yes)
/// has a query and a prediction; any other has a reason and neither.
pub(super) fn read_preregistered(csv: &str) -> Result<Vec<Preregistered>, String> {
    let records = read_csv(csv)?;
    let Some((header, rows)) = records.split_first() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for fields in rows {
        let row = Row { header, fields };
        let id = row.get("id").to_owned();
        let fail = |e: String| format!("preregistered.csv row {id}: {e}");
        let comparable = match row.lower("comparable").as_str() {
            "yes" => true,
            "no" => false,
            other => return Err(fail(format!("comparable is {other:?}, not yes or no"))),
        };
        let query = row.get("query").to_owned();
        let predicted =
            match row.get("predicted") {
                "" => None,
                text => Some(text.parse::<u128>().map_err(|_| {
                    fail(format!("predicted {text:?} is not a whole number of bytes"))
                })? as f64),
            };
        let reason = row.get("reason").to_owned();
        if comparable && (query.is_empty() || predicted.is_none()) {
            return Err(fail(
                "a comparable row needs a query and a prediction".into(),
            ));
        }
        if !comparable && (predicted.is_some() || reason.is_empty()) {
            return Err(fail(
                "a row that is not comparable has a reason and no prediction".into(),
            ));
        }
        let query_after = row.get("query_after").to_owned();
        let query_after_at = row.get("query_after_at").to_owned();
        let reason_after = row.get("reason_after").to_owned();
        if comparable {
            let changed = match query_after.as_str() {
                "" => false,
                after => restates(&query, after).map_err(fail)?,
            };
            if changed == reason_after.is_empty() {
                return Err(fail(
                    if changed {
                        "a restated row whose registered values change says why (reason_after)"
                    } else {
                        "a row compared at registration stays comparable: a reason_after only \
                     explains a registered value its query_after changes"
                    }
                    .into(),
                ));
            }
        }
        if query_after.is_empty() != query_after_at.is_empty() {
            return Err(fail(
                "query_after and query_after_at go together (the query and the commit whose model \
                 first expresses it)"
                    .into(),
            ));
        }
        if !comparable && !query_after.is_empty() && !reason_after.is_empty() {
            return Err(fail(
                "a row with a query_after is comparable: it has no reason_after".into(),
            ));
        }
        let gpus_summed = match row.get("gpus_summed") {
            "" => 1,
            text => text
                .parse()
                .ok()
                .filter(|&n: &u32| n > 0)
                .ok_or_else(|| fail(format!("gpus_summed {text:?} is not a positive count")))?,
        };
        out.push(Preregistered {
            stack: row.get("stack").to_owned(),
            predicted_at: row.get("predicted_at").to_owned(),
            reading: Reading::parse(row.get("reading")).map_err(fail)?,
            query,
            gpus_summed,
            predicted,
            reason,
            query_after,
            query_after_at,
            reason_after,
            id,
        });
    }
    Ok(out)
}

/// Checks that `after` restates a row compared at registration: every
/// parameter of its registered `query`, in order, then any parameters
/// appended, none set twice. Such a row gains only what the URL format could
/// not say when it was registered (a later change added the setting or the
/// value), stated from its source. Returns whether a registered value
/// changed: such a row must say why (`reason_after`).
fn restates(query: &str, after: &str) -> Result<bool, String> {
    fn pairs(text: &str) -> Vec<(&str, &str)> {
        text.split('&')
            .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
            .collect()
    }
    let (registered, restated) = (pairs(query), pairs(after));
    if restated.len() < registered.len()
        || registered
            .iter()
            .zip(&restated)
            .any(|((name, _), (again, _))| name != again)
    {
        return Err(format!(
            "a row compared at registration keeps its query: query_after sets each of {query:?}'s \
             parameters in its order, then may append others"
        ));
    }
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in &restated {
        if names.contains(name) {
            return Err(format!("query_after sets {name} twice"));
        }
        names.push(name);
    }
    let changed = registered
        .iter()
        .zip(&restated)
        .any(|((_, value), (_, again))| value != again);
    if !changed && restated.len() == registered.len() {
        return Err("query_after restates nothing: leave it empty".into());
    }
    Ok(changed)
}

/// The metric of a pre-registered row in a few words: the reading it is
/// compared with, marked where the source does not state its metric.
pub(super) fn preregistered_metric(row: &Row<'_>, p: &Preregistered) -> String {
    let stated = !row.lower("metric").starts_with("not stated");
    let mut text = match (p.reading, stated) {
        (_, false) => "not stated (compared as peak allocated)".to_owned(),
        (Reading::Reserved, true) => "peak reserved".to_owned(),
        (Reading::AllocatedPlusOverhead, true) => {
            "peak allocated + memory outside PyTorch".to_owned()
        }
        (Reading::Device | Reading::DeviceWithContext(_), true) => "device-wide (NVML)".to_owned(),
        (Reading::Allocated, true) => "peak allocated".to_owned(),
        (Reading::EngineWeights, true) => "engine log: weights loaded".to_owned(),
        (Reading::EngineActivationPeak, true) => {
            "engine log: profiling run's activation peak".to_owned()
        }
        (Reading::EngineKvCachePool, true) => "engine log: KV cache pool".to_owned(),
    };
    if p.gpus_summed > 1 {
        let _ = write!(text, ", summed over {} GPUs", p.gpus_summed);
    }
    text
}
