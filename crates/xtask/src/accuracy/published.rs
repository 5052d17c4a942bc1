//! The published rows compared with batchfit, and the Markdown report of them.

use std::fmt::Write as _;

use batchfit_core::query;
use batchfit_core::units::{Units, format_bytes};

use super::csv::{Row, measured_bytes, read_csv};
use super::preregistered::{preregistered_metric, read_preregistered};
use super::rows::{
    Answer, Reading, estimated, reading, short_metric, source_key, stack, stack_label, to_query,
};
use super::stats::{Headline, Summary, group_by, headline, median, percent_error, summarize};
use super::{Evaluated, behaviours, escape, sample};
use crate::confidence::Sample;

struct Compared {
    id: String,
    model: String,
    metric: String,
    measured: f64,
    estimated: f64,
    reading: Reading,
    query: String,
    /// The row's stack and batchfit's number under that profile.
    profile: Option<(String, f64)>,
    source: String,
    stack: String,
    /// The prediction recorded before the model was changed for this source,
    /// and the commit it was computed at (pre-registered rows compared at
    /// registration only).
    before: Option<(f64, String)>,
    /// The commit of its registration, for a pre-registered row.
    registered: Option<String>,
    /// For a pre-registered row that was not comparable at registration: the
    /// commit whose model first expressed it (its `query_after_at`).
    comparable_since: Option<String>,
    /// For a row compared at registration whose source states a setting the
    /// URL format gained later: the commit whose model first expresses it
    /// (its `query_after_at`), and why where a registered value changed (its
    /// `reason_after`); "now" is computed on its `query_after`.
    restated: Option<(String, String)>,
}

impl Compared {
    fn error(&self) -> f64 {
        percent_error(self.estimated, self.measured)
    }

    fn error_before(&self) -> Option<f64> {
        self.before
            .as_ref()
            .map(|(bytes, _)| percent_error(*bytes, self.measured))
    }
}

struct Skipped {
    id: String,
    model: String,
    reason: String,
    source: String,
    stack: String,
    /// The commit of its pre-registration, for a pre-registered row.
    preregistered: Option<String>,
}

/// Where a source stands: written against (its rows were in validation/ when
/// the model was written) or pre-registered (predicted before any change for it).
fn is_preregistered(source: &str, compared: &[Compared], skipped: &[Skipped]) -> bool {
    compared
        .iter()
        .filter(|c| c.source == source)
        .all(|c| c.registered.is_some())
        && skipped
            .iter()
            .filter(|s| s.source == source)
            .all(|s| s.preregistered.is_some())
}

fn percent(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// "1 source", "2 sources".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn short_commit(commit: &str) -> &str {
    commit.get(..8).unwrap_or(commit)
}

/// The Markdown report for the measurements in `csv` and their pre-registered
/// predictions in `preregistered_csv`, with the rows' validation samples.
pub fn evaluate(csv: &str, preregistered_csv: &str) -> Result<Evaluated, String> {
    let Comparison {
        compared,
        skipped,
        samples,
    } = compare_rows(csv, preregistered_csv)?;
    Ok(Evaluated {
        text: write_published(&compared, &skipped),
        samples,
    })
}

/// The published rows batchfit states, compared with it, those it cannot, and
/// the validation samples of the compared ones.
struct Comparison {
    compared: Vec<Compared>,
    skipped: Vec<Skipped>,
    samples: Vec<Sample>,
}

/// Each measurement in `csv` compared with batchfit: through its
/// pre-registered query in `preregistered_csv` where it has one, else through
/// the query its columns give.
fn compare_rows(csv: &str, preregistered_csv: &str) -> Result<Comparison, String> {
    let records = read_csv(csv)?;
    let (header, rows) = records.split_first().ok_or("the CSV is empty")?;
    let preregistered = read_preregistered(preregistered_csv)?;
    for p in &preregistered {
        if !rows
            .iter()
            .any(|fields| Row { header, fields }.get("id") == p.id)
        {
            return Err(format!(
                "preregistered.csv row {}: no such measurement",
                p.id
            ));
        }
    }
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    let mut samples = Vec::new();
    for fields in rows {
        let row = Row { header, fields };
        let id = row.get("id").to_owned();
        let measured = measured_bytes(row.get("value"), row.get("unit"))
            .map_err(|e| format!("row {id}: {e}"))?;
        let source = source_key(row.get("source"));
        // batchfit's answer to a query, and the framework profile it names.
        let estimate_of = |text: &str| {
            let parsed = query::parse(text);
            match parsed.problems.first() {
                Some(problem) => Err(format!("row {id}: the query {text} is invalid: {problem}")),
                None => Ok((
                    Answer::of(&parsed.config),
                    parsed.config.transformer.framework,
                )),
            }
        };
        // Its number for the row's reading.
        let reading_of = |answer: &Answer, reading: Reading| {
            estimated(answer, reading).ok_or_else(|| {
                format!("row {id}: an engine's reading needs a query with framework=vllm or sglang on a device")
            })
        };
        if let Some(p) = preregistered.iter().find(|p| p.id == id) {
            // Compared with the query of registration, or with the one written
            // when a change to the model first could state the row.
            let (query, before, since) = match p.predicted {
                Some(before) if !p.query_after.is_empty() => {
                    (&p.query_after, Some((before, p.predicted_at.clone())), None)
                }
                Some(before) => (&p.query, Some((before, p.predicted_at.clone())), None),
                None if !p.query_after.is_empty() => {
                    (&p.query_after, None, Some(p.query_after_at.clone()))
                }
                None => {
                    let reason = if p.reason_after.is_empty() {
                        p.reason.clone()
                    } else {
                        format!("{} (at registration: {})", p.reason_after, p.reason)
                    };
                    skipped.push(Skipped {
                        id,
                        model: row.get("model").to_owned(),
                        reason,
                        source,
                        stack: p.stack.clone(),
                        preregistered: Some(p.predicted_at.clone()),
                    });
                    continue;
                }
            };
            let (answer, profile) = estimate_of(query)?;
            let gpus = f64::from(p.gpus_summed);
            samples.extend(sample(
                &source,
                p.reading,
                &answer.estimate,
                profile,
                measured,
                gpus,
            ));
            let now = reading_of(&answer, p.reading)? * gpus;
            compared.push(Compared {
                metric: preregistered_metric(&row, p),
                model: row.get("model").to_owned(),
                measured,
                estimated: now,
                reading: p.reading,
                query: query.clone(),
                profile: None,
                source,
                stack: p.stack.clone(),
                before,
                registered: Some(p.predicted_at.clone()),
                comparable_since: since,
                restated: (p.predicted.is_some() && !p.query_after.is_empty())
                    .then(|| (p.query_after_at.clone(), p.reason_after.clone())),
                id,
            });
            continue;
        }
        match to_query(&row) {
            Err(reason) => skipped.push(Skipped {
                model: row.get("model").to_owned(),
                reason,
                stack: stack_label(stack(&row).as_deref()).to_owned(),
                source,
                preregistered: None,
                id,
            }),
            Ok(text) => {
                let (answer, framework) = estimate_of(&text)?;
                let reading = reading(&row).map_err(|e| format!("row {id}: {e}"))?;
                // The profile comes first when parsed, so the row's own settings
                // still override it. The validation sample is the row under its
                // stack's profile where it has one: what a user who names that
                // profile is told.
                let settings = stack(&row);
                let profile = match &settings {
                    None => {
                        samples.extend(sample(
                            &source,
                            reading,
                            &answer.estimate,
                            framework,
                            measured,
                            1.0,
                        ));
                        None
                    }
                    Some(settings) => {
                        let (with, framework) = estimate_of(&format!("{text}&{settings}"))?;
                        samples.extend(sample(
                            &source,
                            reading,
                            &with.estimate,
                            framework,
                            measured,
                            1.0,
                        ));
                        Some((settings.clone(), reading_of(&with, reading)?))
                    }
                };
                compared.push(Compared {
                    profile,
                    model: row.get("model").to_owned(),
                    metric: short_metric(&row),
                    measured,
                    estimated: reading_of(&answer, reading)?,
                    reading,
                    query: text,
                    stack: stack_label(settings.as_deref()).to_owned(),
                    source,
                    before: None,
                    registered: None,
                    comparable_since: None,
                    restated: None,
                    id,
                });
            }
        }
    }
    Ok(Comparison {
        compared,
        skipped,
        samples,
    })
}

/// The Markdown report of `compared` and `skipped`: the headline, the errors
/// by source and by source and stack, every row, the pre-registered
/// predictions, the rows not comparable and the model's known gaps.
/// The registrations of this round of issue 30 (new stacks, registered before
/// any change for them), whose sources' figures the headline also gives on
/// their own.
const ROUND: &[&str] = &[
    "50dc47ca866c7a34abecbaddb351bdfa1821f0f3",
    "a6e935f88648c008ae47fcd0c59f81f83ece7ba1",
    "65feeac7cf94f024c16812c1eee99bc970c34226",
    "f22311c5b65507525317fc483c680c9903d0eff7",
    "c2e726ec488eacdcfcf22e894e00912181539036",
];

fn write_published(compared: &[Compared], skipped: &[Skipped]) -> String {
    // Per source (the headline's unit) and per source and stack.
    let mut sources: Vec<String> = Vec::new();
    for s in compared
        .iter()
        .map(|c| &c.source)
        .chain(skipped.iter().map(|s| &s.source))
    {
        if !sources.contains(s) {
            sources.push(s.clone());
        }
    }
    let after_by_source = group_by(compared.iter().map(|c| (c.source.clone(), c.error())));
    // Which errors of which rows: the predictions at registration (of the rows
    // compared then), the current model's on every row, or the current
    // model's on the rows compared at registration.
    #[derive(Clone, Copy)]
    enum Errors {
        AtRegistration,
        Now,
        NowOnRegistered,
    }
    let error_of = |c: &Compared, errors: Errors| match errors {
        Errors::AtRegistration => c.error_before(),
        Errors::NowOnRegistered => c.error_before().map(|_| c.error()),
        Errors::Now => Some(c.error()),
    };
    let split = |preregistered: bool, errors: Errors| -> Vec<(String, Vec<f64>)> {
        group_by(
            compared
                .iter()
                .filter(|c| is_preregistered(&c.source, compared, skipped) == preregistered)
                .filter_map(|c| Some((c.source.clone(), error_of(c, errors)?))),
        )
    };
    // The sources registered in this round, on their own.
    let round = |errors: Errors| {
        headline(&group_by(
            compared
                .iter()
                .filter(|c| {
                    c.registered
                        .as_deref()
                        .is_some_and(|at| ROUND.contains(&at))
                })
                .filter_map(|c| Some((c.source.clone(), error_of(c, errors)?))),
        ))
    };
    let seen = headline(&split(false, Errors::Now));
    let unseen_before = headline(&split(true, Errors::AtRegistration));
    let unseen_after = headline(&split(true, Errors::Now));
    let unseen_after_registered = headline(&split(true, Errors::NowOnRegistered));
    let all = headline(&after_by_source);
    // Rows a change to the model made comparable after registration, and the
    // commits of those changes.
    let newly = compared
        .iter()
        .filter(|c| c.comparable_since.is_some())
        .count();
    let newly_at = since_commits(compared.iter());
    let commits: Vec<&str> = {
        let mut c: Vec<&str> = compared
            .iter()
            .filter_map(|c| c.before.as_ref().map(|(_, at)| short_commit(at)))
            .collect();
        c.dedup();
        c.sort_unstable();
        c.dedup();
        c
    };
    let commit_text = match commits.as_slice() {
        [] => "—".to_owned(),
        list => list
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    let registered = sources
        .iter()
        .filter(|s| is_preregistered(s, compared, skipped))
        .count();
    let unstated = compared
        .iter()
        .filter(|c| c.before.is_some() && c.metric.starts_with("not stated"))
        .count();

    // The rows measured under a known stack, without and with its profile.
    let profiled: Vec<&Compared> = compared.iter().filter(|c| c.profile.is_some()).collect();
    let median_plain = median(&profiled.iter().map(|c| c.error().abs()).collect::<Vec<_>>());
    let median_profiled = median(
        &profiled
            .iter()
            .filter_map(|c| c.profile.as_ref().map(|(_, bytes)| (bytes, c.measured)))
            .map(|(bytes, measured)| percent_error(*bytes, measured).abs())
            .collect::<Vec<_>>(),
    );

    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "# Accuracy against published measurements\n");
    let _ = writeln!(
        w,
        "Generated by `cargo xtask accuracy` from `validation/measurements.csv` and \
         `validation/preregistered.csv` (sources in `validation/SOURCES.md`); do not edit by hand. \
         Each row's configuration becomes the batchfit query shown, run through the same \
         `memory::estimate` as the page and the CLI. Measured values are converted to bytes from \
         their unit (MiB = 2^20, MB = 10^6, GiB = 2^30, GB = 10^9 bytes). Each row is compared with \
         the reading that matches its metric: rows measured with `torch.cuda.max_memory_allocated` \
         (or the equivalent allocator statistic) with batchfit's peak allocated; rows measured with \
         `max_memory_reserved` with its peak reserved; rows measured device-wide (nvidia-smi / NVML, \
         `incl_cuda_ctx` = yes) with batchfit's peak reserved (allocated + the caching allocator's \
         slack) plus the CUDA context measured in the same source, or batchfit's nvidia-smi reading \
         where no context was measured; rows that add the memory outside PyTorch to the peak \
         allocated with batchfit's peak allocated plus its overhead; rows whose metric the source \
         does not state are kept, marked \"not stated\", and compared with the peak allocated; \
         rows read from a serving engine's start-up log (vLLM, SGLang: the weights it loaded, its \
         profiling run's activation peak, its KV-cache pool) with the term of the same name in \
         batchfit's plan for that engine (docs/model.md §3.12), per GPU. A \
         value summed over GPUs is compared with the sum of batchfit's per-GPU readings. No constant \
         in batchfit was fitted to any row.\n"
    );
    let _ = writeln!(
        w,
        "**How accuracy is claimed.** Errors are grouped by source, because the rows of one source \
         share a stack, a metric and often a mistake, and one long table would otherwise decide a \
         pooled median. The headline is the median over sources of each source's median absolute \
         error, with the share of rows within 10 % and within 30 %. Sources are of two kinds: those \
         the model was written against (their rows were in `validation/` while its terms were \
         chosen), and pre-registered ones, whose rows went into `validation/preregistered.csv` with \
         the query that states each one and batchfit's prediction at the commit named there, before \
         any change to the model was written for them. Only the second kind measures the error on a \
         stack the model has not seen; once a change is written for a pre-registered source, its \
         \"now\" column is no longer unseen, and its \"before\" column keeps the honest figure. A \
         pre-registered row that batchfit could not state at registration has no prediction; when a \
         later change to the model lets batchfit state it, its query is written from its source then, \
         before any prediction for it (`query_after` in `validation/preregistered.csv`), and it counts \
         in the current model's figures only, never in those at registration. A row compared at \
         registration keeps its query and its prediction; where its source states a setting or a value \
         the URL format gained after registration, its `query_after` restates it: every registered \
         parameter in its order, then any appended (`cargo xtask accuracy` refuses anything else), a \
         changed registered value with the reason its source gives (`reason_after`); its \"now\" is \
         computed on it, marked \"query restated\" in the table of pre-registered predictions.\n"
    );
    let _ = writeln!(w, "## Headline\n");
    match &unseen_before {
        Some(h) => {
            let _ = writeln!(
                w,
                "**On a stack the validation set does not cover, expect a median error of {:.1} %:** \
                 the median over the {}{} of each source's median absolute error, \
                 from the predictions recorded before any change to the model (at {commit_text}); {} of \
                 their {} comparable rows are within 10 % and {} within 30 % ({unstated} of those rows \
                 come from sources that do not state their metric).{}\n",
                h.median_of_medians,
                count(h.sources, "pre-registered source"),
                match registered - h.sources {
                    0 => String::new(),
                    n => format!(
                        " with a comparable row ({} more ha{} none)",
                        n,
                        if n == 1 { "s" } else { "ve" }
                    ),
                },
                percent(h.rows.within_10),
                h.rows.rows,
                percent(h.rows.within_30),
                match newly {
                    0 => String::new(),
                    n => format!(
                        " {} became comparable after registration through a change to the model \
                         (at {newly_at}): queries written from the sources then, before any \
                         prediction, and counted in the current model's figures below, never in \
                         these.",
                        count(n, "more row")
                    ),
                },
            );
        }
        None => {
            let _ = writeln!(w, "No pre-registered source has a comparable row yet.\n");
        }
    }
    let line = |w: &mut String, what: &str, h: &Option<Headline>, rows_note: &str| {
        if let Some(h) = h {
            let _ = writeln!(
                w,
                "- {what}: median over {} {:.1} %; {} rows{rows_note}, {} within 10 %, {} within \
                 30 %; pooled median over rows {:.1} %.",
                count(h.sources, "source"),
                h.median_of_medians,
                h.rows.rows,
                percent(h.rows.within_10),
                percent(h.rows.within_30),
                h.rows.median
            );
        }
    };
    line(
        w,
        "Pre-registered sources, predictions at registration",
        &unseen_before,
        "",
    );
    let newly_note = match newly {
        0 => String::new(),
        n => format!(
            " ({n} of them made comparable by a change to the model since registration, at \
             {newly_at})"
        ),
    };
    line(
        w,
        "Pre-registered sources, the current model",
        &unseen_after,
        &newly_note,
    );
    if newly > 0 {
        line(
            w,
            "Pre-registered sources, the current model on the rows compared at registration",
            &unseen_after_registered,
            "",
        );
    }
    line(
        w,
        "Sources the model was written against, the current model",
        &seen,
        "",
    );
    line(w, "All sources, the current model", &all, "");
    let round_commits = ROUND
        .iter()
        .map(|at| format!("`{}`", short_commit(at)))
        .collect::<Vec<_>>()
        .join(", ");
    line(
        w,
        &format!("Sources registered in this round ({round_commits}), predictions at registration"),
        &round(Errors::AtRegistration),
        "",
    );
    line(
        w,
        &format!("Sources registered in this round ({round_commits}), the current model"),
        &round(Errors::Now),
        "",
    );
    let _ = writeln!(
        w,
        "\n{} rows compared, {} not comparable (listed [below](#not-comparable)).\n",
        compared.len(),
        skipped.len()
    );

    let _ = writeln!(w, "## Error by source\n");
    let _ = writeln!(
        w,
        "\"Before\" is the prediction recorded in `validation/preregistered.csv` at the commit shown; \
         \"now\" is the current model on the same query. A change written for one source must move \
         the rows of the others the right way too: the last column says where the median error grew \
         since registration, over the rows predicted at registration. Rows that were not comparable \
         at registration and that a later change to the model lets batchfit state count in \"now\" \
         only (\"rows compared\" says how many, and since which commit); where a source or stack has \
         no other, \"before\" says they were not comparable at registration.\n"
    );
    let _ = writeln!(
        w,
        "| source | kind | stacks | rows compared | median \\|error\\| before | worst before | median \\|error\\| now | worst now | within 10 % now | within 30 % now | since registration |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for source in &sources {
        let rows: Vec<&Compared> = compared.iter().filter(|c| &c.source == source).collect();
        let total = rows.len() + skipped.iter().filter(|s| &s.source == source).count();
        let mut stacks: Vec<&str> = rows
            .iter()
            .map(|c| c.stack.as_str())
            .chain(
                skipped
                    .iter()
                    .filter(|s| &s.source == source)
                    .map(|s| s.stack.as_str()),
            )
            .collect();
        stacks.dedup();
        let mut unique: Vec<&str> = Vec::new();
        for s in stacks {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        let pre = is_preregistered(source, compared, skipped);
        let kind = if pre {
            let at: Vec<&str> = rows
                .iter()
                .filter_map(|c| c.registered.as_deref().map(short_commit))
                .chain(
                    skipped
                        .iter()
                        .filter(|s| &s.source == source)
                        .filter_map(|s| s.preregistered.as_deref().map(short_commit)),
                )
                .collect();
            format!("pre-registered at `{}`", at.first().copied().unwrap_or("—"))
        } else {
            "written against".to_owned()
        };
        let now = summarize(&rows.iter().map(|c| c.error()).collect::<Vec<_>>());
        let before = if pre {
            summarize(
                &rows
                    .iter()
                    .filter_map(|c| c.error_before())
                    .collect::<Vec<_>>(),
            )
        } else {
            None
        };
        let cell =
            |s: &Option<Summary>, f: fn(&Summary) -> String| s.as_ref().map_or("—".to_owned(), f);
        // The current model on the rows predicted at registration, against
        // those predictions.
        let now_registered = summarize(
            &rows
                .iter()
                .filter(|c| c.before.is_some())
                .map(|c| c.error())
                .collect::<Vec<_>>(),
        );
        let moved = match (&before, &now_registered) {
            (Some(b), Some(n)) if n.median > b.median + 0.05 => "worse".to_owned(),
            (Some(b), Some(n)) if n.median + 0.05 < b.median => "better".to_owned(),
            (Some(_), Some(_)) => "unchanged".to_owned(),
            _ => "—".to_owned(),
        };
        let before_cell = |f: fn(&Summary) -> String| match &before {
            Some(s) => f(s),
            None if pre && !rows.is_empty() => "not comparable at registration".to_owned(),
            None => "—".to_owned(),
        };
        let _ = writeln!(
            w,
            "| {} | {kind} | {} | {} | {} | {} | {} | {} | {} | {} | {moved} |",
            escape(source),
            escape(&unique.join("; ")),
            rows_compared(&rows, total),
            before_cell(|s| format!("{:.1} %", s.median)),
            before_cell(|s| format!("{:+.1} %", s.worst)),
            cell(&now, |s| format!("{:.1} %", s.median)),
            cell(&now, |s| format!("{:+.1} %", s.worst)),
            cell(&now, |s| percent(s.within_10)),
            cell(&now, |s| percent(s.within_30)),
        );
    }
    let _ = writeln!(w, "\n## Error by source and stack\n");
    let _ = writeln!(
        w,
        "| source | stack | rows compared | not comparable | median \\|error\\| before | worst before | median \\|error\\| now | worst now |"
    );
    let _ = writeln!(w, "|---|---|---:|---:|---:|---:|---:|---:|");
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for (source, stack) in compared
        .iter()
        .map(|c| (c.source.as_str(), c.stack.as_str()))
        .chain(
            skipped
                .iter()
                .map(|s| (s.source.as_str(), s.stack.as_str())),
        )
    {
        if !pairs.contains(&(source, stack)) {
            pairs.push((source, stack));
        }
    }
    pairs.sort_by_key(|(source, _)| sources.iter().position(|s| s == source));
    for (source, stack) in pairs {
        let rows: Vec<&Compared> = compared
            .iter()
            .filter(|c| c.source == source && c.stack == stack)
            .collect();
        let not = skipped
            .iter()
            .filter(|s| s.source == source && s.stack == stack)
            .count();
        let now = summarize(&rows.iter().map(|c| c.error()).collect::<Vec<_>>());
        let before = summarize(
            &rows
                .iter()
                .filter_map(|c| c.error_before())
                .collect::<Vec<_>>(),
        );
        let cell =
            |s: &Option<Summary>, f: fn(&Summary) -> String| s.as_ref().map_or("—".to_owned(), f);
        let registered = !rows.is_empty() && rows.iter().all(|c| c.registered.is_some());
        let before_cell = |f: fn(&Summary) -> String| match &before {
            Some(s) => f(s),
            None if registered => "not comparable at registration".to_owned(),
            None => "—".to_owned(),
        };
        let newly = rows.iter().filter(|c| c.comparable_since.is_some()).count();
        let compared_text = match newly {
            0 => rows.len().to_string(),
            n => format!(
                "{} ({n} since {})",
                rows.len(),
                since_commits(rows.iter().copied())
            ),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {compared_text} | {not} | {} | {} | {} | {} |",
            escape(source),
            escape(stack),
            before_cell(|s| format!("{:.1} %", s.median)),
            before_cell(|s| format!("{:+.1} %", s.worst)),
            cell(&now, |s| format!("{:.1} %", s.median)),
            cell(&now, |s| format!("{:+.1} %", s.worst)),
        );
    }
    if let (Some(plain), Some(with)) = (median_plain, median_profiled) {
        let _ = writeln!(
            w,
            "\n**Framework profiles.** {} rows of the sources the model was written against were \
             measured under a stack batchfit has a profile for (docs/frameworks.md); the `profile` \
             column adds that profile to the row's query, with the row's own settings still \
             overriding it. Median absolute error over those rows: {plain:.1} % without the profile, \
             {with:.1} % with it. Most rows already state the settings their stack chose (recipe, \
             optimizer implementation), so the profile changes only what they leave unsaid. \
             Pre-registered rows name their profile in their query.",
            profiled.len()
        );
    }
    let _ = writeln!(w, "\n## Every row\n");
    let _ = writeln!(
        w,
        "Every row of this table is a measurement published by someone else; our own \
         measurements on an H200 follow in the second table ([below](#our-own-measurements-on-a-gpu)). \
         The pre-registered rows' predictions at registration are in the [next table](#pre-registered-predictions).\n"
    );
    let _ = writeln!(
        w,
        "| id | model | metric | measured | batchfit | error | profile | with profile | error | query |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---|---:|---:|---|");
    for c in compared {
        let context = match c.reading {
            Reading::Allocated | Reading::Reserved => String::new(),
            Reading::AllocatedPlusOverhead => " (allocated + overhead)".to_owned(),
            Reading::DeviceWithContext(b) => format!(
                " (reserved + {} CUDA context)",
                format_bytes(b as u128, Units::Binary)
            ),
            Reading::Device => " (nvidia-smi reading)".to_owned(),
            Reading::EngineWeights | Reading::EngineActivationPeak | Reading::EngineKvCachePool => {
                String::new()
            }
        };
        let profile = match &c.profile {
            Some((settings, bytes)) => format!(
                "`{settings}` | {} | {:+.1} %",
                format_bytes(*bytes as u128, Units::Binary),
                percent_error(*bytes, c.measured)
            ),
            None => "— | — | —".to_owned(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {}{context} | {:+.1} % | {profile} | `{}` |",
            c.id,
            escape(&c.model),
            escape(&c.metric),
            format_bytes(c.measured as u128, Units::Binary),
            format_bytes(c.estimated as u128, Units::Binary),
            c.error(),
            c.query
        );
    }
    let _ = writeln!(w, "\n## Pre-registered predictions\n");
    let _ = writeln!(
        w,
        "| id | source | metric | measured | predicted at registration | error | batchfit now | error |"
    );
    let _ = writeln!(w, "|---|---|---|---:|---:|---:|---:|---:|");
    for c in compared.iter().filter(|c| c.registered.is_some()) {
        let (predicted, error) = match (&c.before, &c.comparable_since) {
            (Some((before, at)), _) => (
                format!(
                    "{} (`{}`)",
                    format_bytes(*before as u128, Units::Binary),
                    short_commit(at)
                ),
                format!("{:+.1} %", percent_error(*before, c.measured)),
            ),
            (None, Some(since)) => (
                format!(
                    "not comparable at registration (query from `{}`)",
                    short_commit(since)
                ),
                "—".to_owned(),
            ),
            (None, None) => continue,
        };
        // A row restated with a setting the format gained later says so
        // beside its current number.
        let restated = c.restated.as_ref().map_or(String::new(), |(at, _)| {
            format!(" (query restated at `{}`)", short_commit(at))
        });
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {predicted} | {error} | {}{restated} | {:+.1} % |",
            c.id,
            escape(&c.source),
            escape(&c.metric),
            format_bytes(c.measured as u128, Units::Binary),
            format_bytes(c.estimated as u128, Units::Binary),
            c.error(),
        );
    }
    let reasons: Vec<&Compared> = compared
        .iter()
        .filter(|c| c.restated.as_ref().is_some_and(|(_, why)| !why.is_empty()))
        .collect();
    if !reasons.is_empty() {
        let _ = writeln!(
            w,
            "\nRestated queries that change a registered value (the registered query and \
             prediction stay in \"predicted at registration\"), with what their source says:\n"
        );
        for c in reasons {
            if let Some((at, why)) = &c.restated {
                let _ = writeln!(w, "- {} (at `{}`): {}", c.id, short_commit(at), escape(why));
            }
        }
    }
    if !skipped.is_empty() {
        let _ = writeln!(w, "\n## Not comparable\n");
        for s in skipped {
            let marker = if s.preregistered.is_some() {
                " (pre-registered)"
            } else {
                ""
            };
            let _ = writeln!(
                w,
                "- {}{marker} ({}): {}.",
                s.id,
                escape(&s.model),
                s.reason
            );
        }
    }
    let behaviour_rows: Vec<behaviours::Row<'_>> = compared
        .iter()
        .map(|c| behaviours::Row {
            id: &c.id,
            source: &c.source,
            stack: &c.stack,
            query: &c.query,
            before: c.error_before(),
            now: c.error(),
            plan_term: match c.reading {
                Reading::EngineWeights => Some("weights"),
                Reading::EngineActivationPeak => Some("activation peak"),
                Reading::EngineKvCachePool => Some("KV-cache pool"),
                _ => None,
            },
        })
        .collect();
    w.push_str(&behaviours::section(&behaviour_rows));
    let _ = writeln!(w, "\n## What the model lacks, and where it shows\n");
    for note in NOTES {
        let _ = writeln!(w, "- {note}");
    }
    out
}

/// "18 of 22" rows of a source compared, with how many a change to the model
/// made comparable after registration and since which commits ("18 of 22 (5
/// since `d6f29d10`)").
fn rows_compared(rows: &[&Compared], total: usize) -> String {
    match rows.iter().filter(|c| c.comparable_since.is_some()).count() {
        0 => format!("{} of {total}", rows.len()),
        n => format!(
            "{} of {total} ({n} since {})",
            rows.len(),
            since_commits(rows.iter().copied())
        ),
    }
}

/// The commits at which a change to the model made `rows` comparable after
/// registration, shortened, in order, each once: "`d6f29d10`".
fn since_commits<'a>(rows: impl Iterator<Item = &'a Compared>) -> String {
    let mut at: Vec<&str> = rows
        .filter_map(|c| c.comparable_since.as_deref().map(short_commit))
        .collect();
    at.sort_unstable();
    at.dedup();
    at.iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Known gaps between the model and real runs, written once from the model's
/// definition (docs/model.md), not from any row.
const NOTES: &[&str] = &[
    "**Allocator slack is a judgement.** batchfit's peak reserved adds 10 % of the step's transient bytes for the caching allocator's rounding and split blocks (docs/model.md, range 0–25 %); the true slack depends on the order and sizes of a run's allocations, which no configuration states.",
    "**The loss's tensors.** batchfit counts PyTorch's cross-entropy at the start of the backward pass: the FP32 log-softmax, its incoming gradient and the logits' gradient (docs/model.md §3.3), and Megatron-Core's vocab-parallel cross-entropy as its one FP32 softmax and the gradient's cast back (`loss=vocab_parallel`, which `framework=megatron` sets), with one more FP32 softmax in the backward of its fused variant as `torch.compile` builds it (`loss=vocab_parallel_fused`, `--cross-entropy-loss-fusion`; docs/frameworks.md). Older transformers versions also shifted a contiguous copy of the logits (`logits[..., :-1, :].contiguous()`), one more FP32 logit-sized tensor. Rows with large vocabularies and short models show this most.",
    "**Autocast's casts.** Under `torch.autocast` (Hugging Face AMP) batchfit counts the FP32 residual stream the norms read and one BF16 cast per matrix product that reads a norm's output, as the model code lays its projections out (`fused_proj`, from the preset or `model_type`; docs/model.md §3.3). Under full recomputation autocast's cache holds every weight copy to the end of the forward pass and only the head's and one recomputed layer's are alive at the loss (docs/model.md §3.3, from PyTorch's `cached_cast` and `torch/utils/checkpoint.py`): G030 +6.4 % and G021 +2.9 % before, and counting the recomputed layer's copies with the head's, which are never alive together, leaves at most the smaller of the two too many. Not counted: the casts of a MoE layer's router and experts.",
    "**Softmax in FP32.** batchfit counts the FP32 softmax of eager attention under autocast (docs/model.md §3.3); unfused attention that asks for an FP32 softmax in a 16-bit model (Megatron's unfused backend, Hugging Face's eager Llama in pure BF16) keeps 4-byte scores and a 16-bit copy where batchfit counts 2 bytes.",
    "**Heads batchfit does not have.** Megatron's BERT has an MLM head and a binary head; batchfit's encoder has a pooler and a classifier only.",
    "**Inference peaks.** `generate` asks for the last position's logits only since transformers 4.45, as batchfit counts by default; `logits_to_keep=0` states a model or loop that computes every position's (docs/model.md §3.4). Before 4.45 the forward also cast all of them to FP32, which batchfit does not count, and no registered row's query states an older version's setting.",
    "**Fused and chunked alternatives.** torchtune's recipes compute the loss in chunks (`CEWithChunkedOutputLoss`) and may configure a fused AdamW; the rows do not say which, and batchfit maps `torch.optim.AdamW` to its default foreach implementation and counts full FP32 logits.",
    "**Gradients that outlive the step.** batchfit follows PyTorch's lifetime: the backward pass creates the gradients as it frees the activations, and `zero_grad(set_to_none=True)` (the default since PyTorch 2.0) drops them after the step; rows with gradient accumulation get a `global_batch`, which keeps them alive through the later micro-batches, `framework=megatron` keeps Megatron-LM's gradient buffer alive for the whole run (`zero_grad=zeros`), and the `lightning_*` profiles keep the previous step's gradients through the forward pass, where Lightning's Trainer clears them just before the backward pass (`zero_grad=after_forward`). Gradients under `zero_grad(set_to_none=False)`, the default before PyTorch 2.0, which the Hugging Face BERT rows (C002, C005, V012, V014, published in 2022, versions not stated) may have run, are not in their queries: batchfit is low by the gradients there.",
    "**Megatron-LM beyond its profile.** `framework=megatron` counts a BF16 model (`recipe=main_fp32`: 16-bit residual stream, no per-op casts, BF16 parameters kept through the step), FP32 main gradients in a buffer alive at every moment, fused norms and the vocab-parallel loss (docs/frameworks.md). The BF16 gradient each weight gets before it is added into the FP32 buffer under `--no-gradient-accumulation-fusion`, which every functional-test row ran with, is `grad_accum_fusion=0` (the head's in its backward, a layer's and a tied head's beside each layer's); it moves no row whose loss's tensors set the peak. With the fusion (`grad_accum_fusion=1`, Megatron-LM's default) the profile counts Transformer Engine's cached dummy weight gradients, one 16-bit tensor per distinct weight shape held from the first backward pass on: V277 (Megatron-SWIFT, the fusion not turned off in its registered query) moves from −13.0 % to −12.2 %. The pre-registered functional-test rows V304–V310 ran with `--no-gradient-accumulation-fusion`, a setting the URL format gained after their registration: their queries are restated with `grad_accum_fusion=0` appended (the protocol above), so they count no dummies, and give the bytes they gave before the fusion was modelled. Counted on their registered queries, which leave the fusion on, they would have moved towards their readings for a reason those runs do not have (V304 −4.0 % → −2.4 %, V305 −5.3 % → −3.2 %, V306 −2.2 % → −0.9 %, V307 −7.9 % → −7.0 %, V308 −3.8 % → −1.2 %, V309 −5.1 % → −2.5 %, V310 −2.2 % → −0.7 %). Not counted: the distributed optimizer's bucket padding, and the rows' unfused attention's FP32 softmax where its fused kernel does not run.",
    "**Learned positions for Megatron and GPTBigCode rows** are taken as the trained sequence length (the rows do not give the maximum), a difference of at most positions × hidden parameters.",
    "**A serving engine's memory outside PyTorch.** vLLM's plan counts nothing for what its profiling step allocates outside PyTorch (kernels loaded on first use, communication buffers) nor for the CUDA graphs vLLM 0.21 and later measure before sizing the pool: both are measured by the engine, not derived from the model, and the plan's pool is larger than the engine's by them (docs/model.md §3.12).",
];
