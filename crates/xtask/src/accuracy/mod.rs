//! `cargo xtask accuracy`: batchfit's estimates against published measurements.
//!
//! Reads `validation/measurements.csv` (one published peak-memory measurement a
//! row, with its configuration, metric and unit) and `validation/preregistered.csv`
//! (for the rows of sources added after the model was written: the query that
//! states each row, the reading it is compared with, and batchfit's prediction at
//! the commit it was registered). The other rows are turned into a batchfit
//! transformer query from their columns. `docs/accuracy.md` then gets the error
//! per row, grouped by source and by source and stack (each group's row count,
//! median and worst absolute error, before and after for pre-registered rows),
//! and a headline that is the median over sources of each source's median
//! absolute error with the shares of rows within 10 % and 30 %, given
//! separately for the pre-registered sources (unseen when the model was
//! written: the error to expect on a new stack) and for the sources the model
//! was written against. Like is compared with like: bytes in the row's unit,
//! and the reading that matches the row's metric (`peak_allocated` for
//! allocator statistics, `peak_reserved` for `max_memory_reserved`, the
//! nvidia-smi reading for device-wide rows). Rows batchfit cannot represent
//! (LoRA, unpublished prompt lengths) are listed with the reason. A
//! pre-registered row that was not comparable at registration and that a later
//! change to the model lets batchfit state carries the query written for it
//! then (`query_after`, at `query_after_at`): it is compared with the current
//! model only, counted apart from every figure at registration. A row compared
//! at registration keeps its query and prediction; a `query_after` may only
//! restate it with a setting or value the URL format gained later, which its
//! source states (`restates`; a changed value with its `reason_after`), and
//! its current number is computed on it.
//!
//! A second table compares our own measurements, `validation/gpu-measurements.csv`
//! (written by `validation/gpu/measure.py` on a GPU machine, its environment in
//! `validation/gpu-environment.json`): each row carries the batchfit query of the
//! same run, and both allocator readings and the phase of the step that set the
//! peak are compared. No constant is fitted to any row of either table.

use std::path::Path;

use batchfit_core::confidence::Reading as Measured;
use batchfit_core::memory;
use batchfit_core::transformer::Framework;

use crate::confidence::{self, Sample};

mod behaviours;
mod csv;
mod gpu;
mod preregistered;
mod published;
mod rows;
mod stats;

use gpu::gpu_evaluate;
use published::evaluate;
use rows::Reading;

/// The generated docs, relative to the repository root.
const DOCS_PATH: &str = "docs/accuracy.md";

/// Regenerates `root/docs/accuracy.md` and the core's validation range
/// (`confidence::TABLE_PATH`) from the published measurements and our own GPU
/// measurements under `root/validation/`. With `check`, writes nothing and
/// fails when either file differs from what the rows give.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let read = |path: &str| {
        let path = root.join(path);
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))
    };
    let published = evaluate(
        &read("validation/measurements.csv")?,
        &read("validation/preregistered.csv")?,
    )?;
    let gpu = gpu_evaluate(
        &read("validation/gpu-measurements.csv")?,
        &read("validation/gpu-environment.json")?,
    )?;
    let samples: Vec<Sample> = published.samples.into_iter().chain(gpu.samples).collect();
    let cells = confidence::cells(&samples)?;
    let mut docs = published.text;
    docs.push_str(&confidence::markdown(
        &cells,
        &confidence::held_out_coverage(&samples)?,
    ));
    docs.push_str(&gpu.text);
    readme_matches(&read("README.md")?, &docs)?;
    let outputs = [
        (DOCS_PATH, docs),
        (confidence::TABLE_PATH, confidence::table_rs(&cells)),
    ];
    if check {
        let stale: Vec<&str> = outputs
            .iter()
            .filter(|(path, text)| read(path).ok().as_ref() != Some(text))
            .map(|(path, _)| *path)
            .collect();
        if !stale.is_empty() {
            return Err(format!(
                "{} differ{} from what validation/ gives: run `cargo xtask accuracy`",
                stale.join(" and "),
                if stale.len() == 1 { "s" } else { "" }
            ));
        }
        println!("{DOCS_PATH} and {} are up to date", confidence::TABLE_PATH);
        return Ok(());
    }
    for (path, text) in outputs {
        let out = root.join(path);
        std::fs::write(&out, text).map_err(|e| format!("writing {}: {e}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}

/// Every number in README.md's accuracy paragraph (from `**Accuracy.**` to
/// the next blank line) must be one of the numbers of docs/accuracy.md's
/// headline: the README says what the generated report says.
fn readme_matches(readme: &str, docs: &str) -> Result<(), String> {
    let paragraph = readme
        .split("\n\n")
        .find(|p| p.trim_start().starts_with("**Accuracy.**"))
        .ok_or("README.md has no paragraph starting with **Accuracy.**")?;
    let headline = docs
        .split_once("## Headline")
        .and_then(|(_, rest)| rest.split("\n## ").next())
        .ok_or("docs/accuracy.md has no headline section")?;
    let numbers = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map(|t| t.trim_matches('.'))
            .filter(|t| !t.is_empty() && t.starts_with(|c: char| c.is_ascii_digit()))
            .map(str::to_owned)
            .collect()
    };
    let known = numbers(headline);
    let stale: Vec<String> = numbers(paragraph)
        .into_iter()
        .filter(|n| !known.contains(n))
        .collect();
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "README.md's accuracy paragraph gives {} that docs/accuracy.md's headline does not: \
             write the headline's figures there. The headline:\n{}",
            stale.join(", "),
            headline.trim()
        ))
    }
}

/// A report's text and the validation samples its rows give.
pub struct Evaluated {
    pub text: String,
    pub samples: Vec<Sample>,
}

/// The sample of a row measured as `reading`, compared with `estimate` (of a
/// query naming `profile`) times the GPUs its value sums; `None` for a reading
/// that is none of the estimate's three (allocated + overhead).
fn sample(
    source: &str,
    reading: Reading,
    estimate: &memory::Estimate,
    profile: Framework,
    measured: f64,
    gpus: f64,
) -> Option<Sample> {
    let reading = match reading {
        Reading::Allocated => Measured::Allocated,
        Reading::Reserved => Measured::Reserved,
        Reading::DeviceWithContext(_) | Reading::Device => Measured::NvidiaSmi,
        Reading::AllocatedPlusOverhead
        | Reading::EngineWeights
        | Reading::EngineActivationPeak
        | Reading::EngineKvCachePool => return None,
    };
    Some(Sample {
        source: source.to_owned(),
        reading,
        profile,
        measured,
        predicted: reading.of(estimate) as f64 * gpus,
    })
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests;
