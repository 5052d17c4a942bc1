//! `batchfit measured`: what a run printed beside the estimate, and the terms
//! that could explain the difference. The reading and the comparison are
//! batchfit-core's (`measured`); this module reads the file and words them.

use std::io::Read;

use batchfit_core::fields::group_thousands;
use batchfit_core::measured::{
    self, Comparison, Direction, Error, Fit, Form, Measured, Problem, Reading, Size, Treatment,
};
use batchfit_core::memory;
use batchfit_core::query::{self, Config};
use batchfit_core::serving::{self, log};
use batchfit_core::units::Units;
use serde::Serialize;

use crate::format::{signed_percent, signed_size, size};

/// The text of `path` (`-`: stdin), refused past the core's limits (a
/// measurement's, or a vLLM start-up log's, the longer) without reading all
/// of it.
pub fn read(path: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    let limit = measured::MAX_BYTES.max(log::MAX_BYTES) as u64 + 1;
    let read = if path == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    read.map_err(|e| format!("{path}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("{path}: not UTF-8 text"))
}

#[derive(Serialize)]
struct Report {
    query: String,
    readings: Vec<Row>,
}

#[derive(Serialize)]
struct Row {
    reading: &'static str,
    peak: bool,
    line: u32,
    measured: u128,
    predicted: u128,
    /// Estimate − run.
    error_bytes: i128,
    /// `error_bytes` over the run's bytes, in percent to a tenth.
    error_percent: Option<f64>,
    explanations: Vec<ExplanationRow>,
}

#[derive(Serialize)]
struct ExplanationRow {
    term: &'static str,
    treatment: &'static str,
    direction: &'static str,
    fit: &'static str,
    size: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    up_to_percent: Option<f64>,
    min_bytes: Option<i128>,
    max_bytes: Option<i128>,
    source: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    note: &'static str,
}

/// The comparison of every reading in `text` with `config`'s estimate, as
/// text or JSON; the problem of `text`, named with `file` and its line.
pub fn report(
    config: &Config,
    file: &str,
    text: &str,
    unlabelled: Option<Reading>,
    json: bool,
) -> Result<String, String> {
    // A served setup is checked against its engine's start-up log, term by
    // term.
    if let Some(plan) = serving::plan(config) {
        return crate::serving::log_report(config, &plan, file, text, json);
    }
    let read = measured::parse(text, unlabelled).map_err(|e| problem(file, &e))?;
    let e = memory::estimate(config);
    let comparisons: Vec<Comparison> = read
        .iter()
        .map(|m| measured::compare(config, &e, m))
        .collect();
    if json {
        let report = Report {
            query: query::to_query(config),
            readings: comparisons.iter().map(row).collect(),
        };
        return Ok(serde_json::to_string_pretty(&report).expect("strings, integers, booleans"));
    }
    let units = config.units;
    let mut out = format!("query: {}\n", query::to_query(config));
    for c in &comparisons {
        out.push('\n');
        out.push_str(&describe(c, units));
    }
    out.pop();
    Ok(out)
}

fn row(c: &Comparison) -> Row {
    Row {
        reading: c.measured.reading.name(),
        peak: c.measured.peak,
        line: c.measured.line,
        measured: c.measured.bytes,
        predicted: c.predicted,
        error_bytes: c.error,
        error_percent: c.error_tenths.map(|t| t as f64 / 10.0),
        explanations: c
            .explanations
            .iter()
            .map(|x| ExplanationRow {
                term: x.info.term.name(),
                treatment: match x.info.treatment {
                    Treatment::Modelled => "modelled",
                    Treatment::NotModelled => "not_modelled",
                },
                direction: match x.info.direction {
                    Direction::Low => "low",
                    Direction::High => "high",
                    Direction::Either => "either",
                },
                fit: match x.fit {
                    Fit::Within => "within",
                    Fit::Part => "part",
                    Fit::Unsized => "unsized",
                },
                size: match x.info.size {
                    Size::Share { .. } => "share",
                    Size::Gradients => "gradients",
                    Size::AllocatorSlack => "allocator_slack",
                    Size::CudaContext => "cuda_context",
                    Size::PerToken { .. } => "per_token",
                    Size::KbitPreparation => "kbit_preparation",
                    Size::NotStated => "not_stated",
                },
                up_to_percent: match x.info.size {
                    Size::Share { tenths } => Some(f64::from(tenths) / 10.0),
                    _ => None,
                },
                min_bytes: x.range.map(|r| r.0),
                max_bytes: x.range.map(|r| r.1),
                source: x.info.source,
                note: x.info.note,
            })
            .collect(),
    }
}

fn bytes(b: u128) -> String {
    u64::try_from(b).map_or_else(|_| b.to_string(), group_thousands)
}

/// One reading: measured, estimated, the error and its explanations.
fn describe(c: &Comparison, units: Units) -> String {
    let m = &c.measured;
    let mut out = format!(
        "{}, line {}: {} ({} bytes)\n  estimate, {}: {} ({} bytes)\n  estimate − run: {}{}\n",
        measured_label(m),
        m.line,
        size(m.bytes, units),
        bytes(m.bytes),
        estimate_label(m.reading),
        size(c.predicted, units),
        bytes(c.predicted),
        signed_size(c.error, units),
        c.error_tenths.map_or(String::new(), |t| format!(
            " ({} of the run)",
            signed_percent(t)
        )),
    );
    if !m.peak {
        out.push_str("  a value at one moment, not the run's peak: at most the peak\n");
    }
    if c.explanations.is_empty() {
        return out;
    }
    out.push_str("  could explain it (docs/model.md §4, §6):\n");
    for x in c.explanations.iter().filter(|x| x.fit != Fit::Unsized) {
        let fit = match x.fit {
            Fit::Within => "within its size",
            _ => "part of it",
        };
        let here = x.range.map_or(String::new(), |(lo, hi)| {
            format!(
                "; here {} to {}",
                signed_size(lo, units),
                signed_size(hi, units)
            )
        });
        out.push_str(&format!(
            "    {fit:<16} {} ({}; {}{here}; {})\n",
            x.info.term.label(),
            match x.info.treatment {
                Treatment::Modelled => "modelled",
                Treatment::NotModelled => "not modelled",
            },
            size_label(x.info.size),
            source(x.info),
        ));
    }
    let unstated: Vec<String> = c
        .explanations
        .iter()
        .filter(|x| x.fit == Fit::Unsized)
        .map(|x| match x.info.size {
            Size::PerToken { .. } => {
                format!("{} ({})", x.info.term.label(), size_label(x.info.size))
            }
            _ => x.info.term.label().to_owned(),
        })
        .collect();
    if !unstated.is_empty() {
        out.push_str(&format!(
            "    no size stated, may go this way: {}\n",
            unstated.join("; ")
        ));
    }
    out
}

/// The term's references, then what they say of it.
fn source(info: &measured::TermInfo) -> String {
    if info.note.is_empty() {
        info.source.to_owned()
    } else {
        format!("{}: {}", info.source, info.note)
    }
}

fn measured_label(m: &Measured) -> &'static str {
    match (m.reading, m.peak) {
        (Reading::Allocated, true) => "measured peak allocated",
        (Reading::Allocated, false) => "measured allocated",
        (Reading::Reserved, true) => "measured peak reserved",
        (Reading::Reserved, false) => "measured reserved",
        (Reading::NvidiaSmi, _) => "measured nvidia-smi memory used",
    }
}

fn estimate_label(reading: Reading) -> &'static str {
    match reading {
        Reading::Allocated => "peak allocated",
        Reading::Reserved => "peak reserved",
        Reading::NvidiaSmi => "nvidia-smi",
    }
}

fn size_label(s: Size) -> String {
    match s {
        Size::Share { tenths } => format!("up to {}.{} % of the run", tenths / 10, tenths % 10),
        Size::Gradients => "up to the gradients".to_owned(),
        Size::AllocatorSlack => "0 % to 25 % of the transient bytes, against 10 %".to_owned(),
        Size::CudaContext => "a context of 0.3 GB to 1,343 MiB, against overhead_gb".to_owned(),
        Size::PerToken { min, max } => format!("{min}–{max} bytes per token"),
        Size::KbitPreparation => "the estimate with prepare_kbit=1, exactly".to_owned(),
        Size::NotStated => "no size stated".to_owned(),
    }
}

fn forms() -> String {
    Form::ALL
        .iter()
        .map(|f| match f {
            Form::Number => "a number of bytes or with a unit (12.3 GB, 11.46 GiB)",
            Form::Labelled => "a labelled number (max_memory_allocated: 123456)",
            Form::MemorySummary => "a torch.cuda.memory_summary() table",
            Form::NvidiaSmiTable => "nvidia-smi's table",
            Form::NvidiaSmiCsv => "nvidia-smi --query-gpu=memory.used --format=csv",
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One English line naming the file, the line and what is wrong.
fn problem(file: &str, e: &Error) -> String {
    let at = e
        .line
        .map_or(file.to_owned(), |line| format!("{file} line {line}"));
    let what = match e.problem {
        Problem::TooLong { max_bytes } => format!(
            "longer than {} bytes; paste the lines with the readings",
            group_thousands(max_bytes as u64)
        ),
        Problem::TooManyLines { max_lines } => format!(
            "more than {} lines; paste the lines with the readings",
            group_thousands(max_lines as u64)
        ),
        Problem::Empty { .. } => format!("no reading found; give {}", forms()),
        Problem::Unreadable { .. } => format!("not a reading; give {}", forms()),
        Problem::UnknownUnit { allowed } => {
            format!("the unit must be one of: {}", allowed.join(", "))
        }
        Problem::UnknownLabel { allowed } => format!(
            "the label names no reading; use one of: {}",
            allowed.join(", ")
        ),
        Problem::Unlabelled { allowed } => format!(
            "a number without a label: label it ({}) or say which it is with --reading {}",
            allowed.join(", "),
            Reading::NAMES.join("|")
        ),
        Problem::NotWholeBytes => {
            "a fraction without a unit: bytes are whole, so give its unit (GiB, GB, MiB)".to_owned()
        }
        Problem::TooLarge { max } => format!("more than {} bytes", bytes(max)),
        Problem::Ambiguous {
            reading,
            peak,
            first_line,
        } => format!(
            "a second, different value of {}{} (the first on line {first_line}): paste one run's, one GPU's",
            if peak { "the peak " } else { "" },
            estimate_label(reading).trim_start_matches("peak "),
        ),
    };
    format!("{at}: {what}")
}
