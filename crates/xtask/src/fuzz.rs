//! `cargo xtask fuzz [--seconds N]`: runs each cargo-fuzz target in `fuzz/` for N
//! seconds (default 60), prints what each did, and rewrites the results table in
//! docs/security.md. Fails when any target found a crash.
//!
//! Needs the nightly toolchain (libFuzzer's instrumentation) and cargo-fuzz, which
//! it installs when missing. The targets are built with debug assertions (overflow
//! checks on) and without a sanitizer: batchfit-core forbids unsafe code, so
//! AddressSanitizer would only halve the runs per second.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use batchfit_core::query::{self, Config, Form, Lang};
use batchfit_core::transformer as tf;
use batchfit_core::units::Units;
use batchfit_core::{Precision, parameters};

use crate::bench::group;
use crate::shell::{Step, output_of};
use crate::tools;

/// cargo-fuzz installs from crates.io in about a minute (../shared/TOOLCHAIN.md).
const CARGO_FUZZ_VERSION: &str = "0.13.2";
const DEFAULT_SECONDS: u64 = 60;
const USAGE: &str = "usage: cargo xtask fuzz [--seconds N]";
/// Between these two lines docs/security.md holds the last run's figures.
const RESULTS_START: &str =
    "<!-- fuzz-results: written by `cargo xtask fuzz`, do not edit by hand -->";
const RESULTS_END: &str = "<!-- /fuzz-results -->";

/// Which libFuzzer dictionary a target gets.
#[derive(Clone, Copy, Debug)]
enum Dictionary {
    /// Written from batchfit-core's own lists before each run, so it cannot drift.
    Query,
    /// `fuzz/hf_import.dict`: the keys hf.rs reads are literals there, not exported.
    HfImport,
}

#[derive(Debug)]
struct Target {
    name: &'static str,
    /// Under `fuzz/seeds/`.
    seeds: &'static str,
    dictionary: Dictionary,
}

const TARGETS: &[Target] = &[
    Target {
        name: "query_parse",
        seeds: "query",
        dictionary: Dictionary::Query,
    },
    Target {
        name: "hf_import",
        seeds: "hf_import",
        dictionary: Dictionary::HfImport,
    },
    Target {
        name: "estimate_path",
        seeds: "query",
        dictionary: Dictionary::Query,
    },
];

/// What one target's run did.
#[derive(Debug)]
struct Outcome {
    target: &'static str,
    seconds: u64,
    runs: u64,
    /// The input libFuzzer saved when the target crashed, hung or ran out of memory.
    crash: Option<String>,
}

pub fn run(root: &Path, args: &[String]) -> Result<(), String> {
    let seconds = match args {
        [] => DEFAULT_SECONDS,
        [flag, n] if flag == "--seconds" => n
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("--seconds takes a whole number above 0, not {n:?}"))?,
        _ => return Err(USAGE.to_owned()),
    };
    let path = ensure_fuzz_tools()?;
    let fuzz_dir = root.join("fuzz");
    let target_dir = fuzz_dir.join("target");
    let query_dict = target_dir.join("query.dict");
    std::fs::create_dir_all(&target_dir)
        .and_then(|()| std::fs::write(&query_dict, query_dictionary()))
        .map_err(|e| format!("{}: {e}", query_dict.display()))?;

    Step::new("build the fuzz targets (nightly)", "cargo")
        .args(["+nightly", "fuzz", "build"])
        .args(BUILD_FLAGS)
        .env("CARGO_TARGET_DIR", &target_dir)
        .cwd(&fuzz_dir)
        .run_with_path(&path)?;

    let mut outcomes = Vec::new();
    for target in TARGETS {
        let dictionary = match target.dictionary {
            Dictionary::Query => query_dict.clone(),
            Dictionary::HfImport => fuzz_dir.join("hf_import.dict"),
        };
        outcomes.push(fuzz_one(&fuzz_dir, &path, target, &dictionary, seconds)?);
    }

    println!();
    println!(
        "{:<14} {:>8} {:>12} {:>9}  crashes",
        "target", "seconds", "runs", "runs/s"
    );
    for o in &outcomes {
        println!(
            "{:<14} {:>8} {:>12} {:>9}  {}",
            o.target,
            o.seconds,
            o.runs,
            o.runs / o.seconds.max(1),
            o.crash.as_deref().unwrap_or("none")
        );
    }
    let nightly = output_of("rustc", &["+nightly", "--version"], &path)
        .unwrap_or_else(|| "rustc nightly".into());
    let doc = root.join("docs/security.md");
    let command = format!("cargo xtask fuzz --seconds {seconds}");
    update_doc(&doc, &results_table(&outcomes, &command, nightly.trim())?)?;
    println!("xtask: wrote the figures to {}", doc.display());

    let crashed: Vec<&Outcome> = outcomes.iter().filter(|o| o.crash.is_some()).collect();
    if crashed.is_empty() {
        return Ok(());
    }
    for o in &crashed {
        println!(
            "xtask: {} crashed on fuzz/{}; minimise it with \
             `cd fuzz && cargo +nightly fuzz tmin {} {} {}`",
            o.target,
            o.crash.as_deref().unwrap_or_default(),
            BUILD_FLAGS.join(" "),
            o.target,
            o.crash.as_deref().unwrap_or_default(),
        );
    }
    Err(format!("{} fuzz target(s) found a crash", crashed.len()))
}

/// The same flags for `build` and `run`, or `run` rebuilds everything.
const BUILD_FLAGS: [&str; 3] = ["--debug-assertions", "--sanitizer", "none"];

/// Installs cargo-fuzz when it is missing; returns the `PATH` to run it with.
fn ensure_fuzz_tools() -> Result<OsString, String> {
    let path = std::env::join_paths(std::iter::once(tools::cargo_bin_dir()?).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .map_err(|e| format!("cannot build PATH: {e}"))?;
    let toolchains = output_of("rustup", &["toolchain", "list"], &path).unwrap_or_default();
    if !toolchains.lines().any(|t| t.starts_with("nightly")) {
        Step::new("install the nightly toolchain (for libFuzzer)", "rustup")
            .args(["toolchain", "install", "nightly", "--profile", "minimal"])
            .run_with_path(&path)?;
    }
    // Any 0.13 release: the flags used here are the same across them.
    let series = CARGO_FUZZ_VERSION.rsplit_once('.').map_or("", |(s, _)| s);
    let installed = output_of("cargo", &["fuzz", "--version"], &path).is_some_and(|v| {
        v.split_whitespace()
            .any(|word| word.starts_with(&format!("{series}.")))
    });
    if !installed {
        Step::new(
            format!("install cargo-fuzz {CARGO_FUZZ_VERSION} (about a minute, once)"),
            "cargo",
        )
        .args([
            "install",
            "--locked",
            "cargo-fuzz",
            "--version",
            CARGO_FUZZ_VERSION,
        ])
        .run_with_path(&path)?;
    }
    Ok(path)
}

/// Runs one target for `seconds`, keeping what it learns in `fuzz/corpus/<target>`.
fn fuzz_one(
    fuzz_dir: &Path,
    path: &OsString,
    target: &Target,
    dictionary: &Path,
    seconds: u64,
) -> Result<Outcome, String> {
    let corpus = fuzz_dir.join("corpus").join(target.name);
    std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    println!("xtask: ── fuzzing {} for {seconds} s ──", target.name);
    let output = Command::new("cargo")
        .args(["+nightly", "fuzz", "run"])
        .args(BUILD_FLAGS)
        .arg(target.name)
        .arg(&corpus)
        .arg(fuzz_dir.join("seeds").join(target.seeds))
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-dict={}", dictionary.display()))
        // A unit slower than this is a hang, reported like a crash.
        .arg("-timeout=10")
        .arg("-print_final_stats=1")
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", fuzz_dir.join("target"))
        .current_dir(fuzz_dir)
        .output()
        .map_err(|e| format!("could not start cargo fuzz: {e}"))?;
    let log = String::from_utf8_lossy(&output.stderr);
    let log_path = fuzz_dir.join("target").join(format!("{}.log", target.name));
    std::fs::write(&log_path, log.as_bytes())
        .map_err(|e| format!("{}: {e}", log_path.display()))?;
    // Relative to `fuzz/`, where `cargo fuzz tmin` runs.
    let crash = log
        .lines()
        .find_map(|l| l.split_once("Test unit written to ").map(|(_, f)| f.trim()))
        .map(|file| {
            Path::new(file)
                .strip_prefix(fuzz_dir)
                .map_or_else(|_| file.to_owned(), |f| f.display().to_string())
        });
    if crash.is_none() && !output.status.success() {
        return Err(format!(
            "cargo fuzz run {} failed ({}) without saving a crash; see {}",
            target.name,
            output.status,
            log_path.display()
        ));
    }
    if crash.is_some() {
        // The panic message and the input, as libFuzzer printed them.
        let tail: Vec<&str> = log.lines().rev().take(40).collect();
        for line in tail.into_iter().rev() {
            println!("  {line}");
        }
    }
    let runs = final_stat(&log, "number_of_executed_units")
        .or_else(|| last_status_runs(&log))
        .unwrap_or(0);
    // "Done 48394 runs in 11 second(s)": the fuzzing time itself, build excluded.
    let done_seconds = log.lines().find_map(|l| {
        let rest = l.strip_prefix("Done ")?;
        let (_, after) = rest.split_once(" runs in ")?;
        after.split_whitespace().next()?.parse().ok()
    });
    let outcome = Outcome {
        target: target.name,
        seconds: done_seconds.unwrap_or(seconds),
        runs,
        crash,
    };
    println!(
        "xtask: {}: {} runs in {} s ({} runs/s), {}",
        outcome.target,
        outcome.runs,
        outcome.seconds,
        outcome.runs / outcome.seconds.max(1),
        if outcome.crash.is_some() {
            "CRASHED"
        } else {
            "no crash"
        }
    );
    Ok(outcome)
}

/// `stat::number_of_executed_units: 48394`
fn final_stat(log: &str, name: &str) -> Option<u64> {
    log.lines().find_map(|l| {
        l.strip_prefix("stat::")?
            .strip_prefix(name)?
            .strip_prefix(':')?
            .trim()
            .parse()
            .ok()
    })
}

/// `#48394 NEW cov: …`: the run count libFuzzer last reported (after a crash
/// it prints no final statistics).
fn last_status_runs(log: &str) -> Option<u64> {
    log.lines()
        .rev()
        .find_map(|l| l.strip_prefix('#')?.split_whitespace().next()?.parse().ok())
}

/// Every parameter name (as `name=`) and every option value batchfit-core
/// accepts, as a libFuzzer dictionary: mutations then build real queries
/// instead of guessing names byte by byte.
fn query_dictionary() -> String {
    let names = query::values(&Config::default())
        .into_iter()
        .map(|(name, _)| format!("{}=", name.name()));
    let lists: [&[&str]; 18] = [
        Form::NAMES,
        Lang::NAMES,
        Units::NAMES,
        Precision::NAMES,
        parameters::Optimizer::NAMES,
        tf::Kind::NAMES,
        tf::Mlp::NAMES,
        tf::Norm::NAMES,
        tf::Recipe::NAMES,
        tf::Optimizer::NAMES,
        tf::Recompute::NAMES,
        tf::Attention::NAMES,
        tf::Mode::NAMES,
        tf::Quant::NAMES,
        query::SWITCH_NAMES,
        query::MODEL_IDS,
        query::DEVICE_IDS,
        // The number syntax of `fields`: separators, exponents, count suffixes,
        // and the URL's own punctuation and escapes.
        &[
            "&",
            "?",
            "#",
            "%",
            "%25",
            "+",
            "_",
            ".",
            "e",
            "e9",
            "E-",
            "k",
            "M",
            "B",
            "G",
            "T",
            "1000000000000",
            "18446744073709551615",
            "inf",
            "NaN",
            "-",
            "0x",
        ],
    ];
    let values = lists.into_iter().flatten().map(|v| (*v).to_owned());
    let mut out = String::from("# Written by `cargo xtask fuzz` from batchfit-core's lists.\n");
    for token in names.chain(values) {
        // libFuzzer's syntax: a quoted string, `"` and `\` escaped.
        let escaped = token.replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("\"{escaped}\"\n"));
    }
    out
}

fn results_table(outcomes: &[Outcome], command: &str, nightly: &str) -> Result<String, String> {
    let date = output_of(
        "date",
        &["-u", "+%Y-%m-%d"],
        &std::env::var_os("PATH").unwrap_or_default(),
    )
    .ok_or("could not read the date (`date -u`)")?;
    let date = date.trim();
    let mut table = format!(
        "Last run: {date}, `{command}`, {nightly}, cargo-fuzz {CARGO_FUZZ_VERSION}, {} CPU \
         cores, one target at a time.\n\n\
         | target | seconds | runs | runs/s | crashes | date | command |\n\
         |---|---:|---:|---:|---|---|---|\n",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for o in outcomes {
        table.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {date} | `{command}` |\n",
            o.target,
            o.seconds,
            group(o.runs),
            group(o.runs / o.seconds.max(1)),
            o.crash
                .as_deref()
                .map_or_else(|| "0".to_owned(), |c| format!("1 (`fuzz/{c}`)")),
        ));
    }
    Ok(table)
}

/// Replaces what lies between the result markers of `doc`.
fn update_doc(doc: &Path, table: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(doc).map_err(|e| format!("{}: {e}", doc.display()))?;
    let (before, rest) = text
        .split_once(RESULTS_START)
        .ok_or_else(|| format!("{} has no line `{RESULTS_START}`", doc.display()))?;
    let (_, after) = rest
        .split_once(RESULTS_END)
        .ok_or_else(|| format!("{} has no line `{RESULTS_END}`", doc.display()))?;
    let updated = format!("{before}{RESULTS_START}\n{table}{RESULTS_END}{after}");
    std::fs::write(doc, updated).map_err(|e| format!("{}: {e}", doc.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_holds_every_parameter_and_option() {
        let dict = query_dictionary();
        for token in [
            "\"form=\"",
            "\"zero=\"",
            "\"gpu_gb=\"",
            "\"llama-3.1-8b\"",
            "\"h100-80gb\"",
            "\"selective\"",
        ] {
            assert!(dict.lines().any(|l| l == token), "{token} missing");
        }
    }

    #[test]
    fn run_counts_come_from_the_final_stats_or_the_last_status_line() {
        let done = "#1024\tpulse  cov: 10\nDone 2048 runs in 3 second(s)\n\
                    stat::number_of_executed_units: 2048\nstat::peak_rss_mb: 40\n";
        assert_eq!(final_stat(done, "number_of_executed_units"), Some(2048));
        let crashed =
            "#512\tNEW    cov: 9\n#700\tREDUCE cov: 9\n==1== ERROR: libFuzzer: deadly signal\n";
        assert_eq!(final_stat(crashed, "number_of_executed_units"), None);
        assert_eq!(last_status_runs(crashed), Some(700));
    }

    #[test]
    fn the_results_replace_only_what_lies_between_the_markers() {
        let dir = std::env::temp_dir().join(format!("xtask-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let doc = dir.join("security.md");
        std::fs::write(
            &doc,
            format!("# S\n\n{RESULTS_START}\nold\n{RESULTS_END}\n\n## Next\n"),
        )
        .unwrap();
        update_doc(&doc, "new\n").unwrap();
        let text = std::fs::read_to_string(&doc).unwrap();
        assert_eq!(
            text,
            format!("# S\n\n{RESULTS_START}\nnew\n{RESULTS_END}\n\n## Next\n")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
