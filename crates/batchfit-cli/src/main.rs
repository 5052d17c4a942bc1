//! `batchfit`: the web app's estimate on the command line.
//!
//! ```text
//! batchfit [--json] 'form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16'
//! batchfit [--json] 'https://…/batchfit/?form=transformer&model=llama-3.1-8b&gpu=h100-80gb'
//! batchfit presets [--json]
//! batchfit check QUERY [--gpu ID] [--strict]
//! batchfit devices QUERY [--json]
//! batchfit compare QUERY_A QUERY_B [--json]
//! batchfit compare 'QUERY_A&b.NAME=VALUE…' [--json]
//! batchfit measured QUERY FILE|- [--reading allocated|reserved|nvidia_smi] [--json]
//! batchfit [check|devices] [QUERY] --deepspeed ds_config.json --training-args args.json --config config.json
//! batchfit completions bash|zsh|fish|elvish|powershell
//! ```
//!
//! `batchfit --help` and `batchfit <command> --help` say the same, with
//! examples (args.rs, clap).
//!
//! The argument is the page's URL query string (or a whole URL); the format is
//! documented in docs/url-parameters.md, the commands in docs/cli.md. Exit
//! codes: 0 ok (for `check`: it fits; with `--strict`, even at the
//! validation range's pessimistic end), 1 (`check` only) it does not fit, 2
//! bad input.

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use batchfit_core::import::hf;
use batchfit_core::import::{self, Context, Files, Source};
use batchfit_core::measured::Reading;
use batchfit_core::param::Param;
use batchfit_core::query::{self, Config, Form};

mod args;
mod check;
mod compare;
mod devices;
mod format;
mod measured;
mod report;
mod serving;

/// What the command line asks for.
enum Command {
    Estimate,
    Presets,
    Check,
    Devices,
    Compare,
    Measured,
}

/// The command line, read but not yet acted on.
struct Args {
    command: Command,
    json: bool,
    gpu: Option<String>,
    /// `check`: fit at the validation range's pessimistic end.
    strict: bool,
    /// `measured --reading`: what an unlabelled number is.
    reading: Option<Reading>,
    queries: Vec<String>,
    files: FileArgs,
}

use args::Files as FileArgs;

fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and --version on stdout with 0; a usage error on stderr with 2.
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
    let args = match read_args(cli) {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(what) => return usage_error(&what),
    };
    match args.command {
        Command::Presets => emit(&report::presets(args.json)),
        Command::Estimate => {
            let Some(query_text) = one_query(&args) else {
                return usage_error("takes one query string or URL");
            };
            with_config(query_text, None, &args.files, |config| {
                emit(&if args.json {
                    report::json(config)
                } else {
                    report::text(config)
                })
            })
        }
        Command::Check => {
            let Some(query_text) = one_query(&args) else {
                return usage_error("`check` takes one query string or URL");
            };
            with_config(
                query_text,
                args.gpu.as_deref(),
                &args.files,
                |config| match check::verdict(config, args.strict) {
                    // A report that could not be written is no answer: 2, not 1.
                    Ok((fits, line)) => match (written(&line), fits) {
                        (false, _) => ExitCode::from(2),
                        (true, true) => ExitCode::SUCCESS,
                        (true, false) => ExitCode::from(1),
                    },
                    Err(problem) => fail(&[problem]),
                },
            )
        }
        Command::Devices => {
            let Some(query_text) = one_query(&args) else {
                return usage_error("`devices` takes one query string or URL");
            };
            with_config(query_text, None, &args.files, |config| {
                emit(&devices::table(config, args.json))
            })
        }
        Command::Compare => {
            let (a, b) = match args.queries.as_slice() {
                [a, b] => (config_from(a, None), config_from(b, None)),
                // One address holding both setups, as the page shares them.
                [both] => {
                    let pair = query::parse_pair(both);
                    let Some(b) = pair.b else {
                        return usage_error(
                            "`compare` takes two query strings or URLs, or one with `b.` parameters",
                        );
                    };
                    (problems_or_config(pair.a), problems_or_config(b))
                }
                _ => {
                    return usage_error(
                        "`compare` takes two query strings or URLs, or one with `b.` parameters",
                    );
                }
            };
            match (a, b) {
                (Ok(a), Ok(b)) => emit(&compare::report(&a, &b, args.json)),
                (a, b) => {
                    let label = |which: &'static str, lines: Vec<String>| {
                        lines.into_iter().map(move |l| format!("{which}: {l}"))
                    };
                    let lines: Vec<String> = label("QUERY_A", a.err().unwrap_or_default())
                        .chain(label("QUERY_B", b.err().unwrap_or_default()))
                        .collect();
                    fail(&lines)
                }
            }
        }
        Command::Measured => {
            let [query_text, file] = args.queries.as_slice() else {
                return usage_error("`measured` takes a query string or URL and a file (or -)");
            };
            let text = match measured::read(file) {
                Ok(text) => text,
                Err(line) => return fail(&[line]),
            };
            with_config(
                query_text,
                None,
                &args.files,
                |config| match measured::report(config, file, &text, args.reading, args.json) {
                    Ok(report) => emit(&report),
                    Err(line) => fail(&[line]),
                },
            )
        }
    }
}

/// The command line clap read, checked for what the commands need beyond
/// its shape; `Ok(None)` when the command is done (completions written).
fn read_args(cli: args::Cli) -> Result<Option<Args>, String> {
    use args::Sub;
    let files = cli.files;
    let (command, queries, json, gpu, strict, reading) = match cli.command {
        None => (
            Command::Estimate,
            cli.query.into_iter().collect(),
            cli.json,
            None,
            false,
            None,
        ),
        Some(Sub::Completions { shell }) => {
            args::completions(shell);
            return Ok(None);
        }
        Some(Sub::Presets { json }) => (Command::Presets, vec![], json, None, false, None),
        Some(Sub::Check { query, gpu, strict }) => (
            Command::Check,
            query.into_iter().collect(),
            false,
            gpu,
            strict,
            None,
        ),
        Some(Sub::Devices { query, json }) => (
            Command::Devices,
            query.into_iter().collect(),
            json,
            None,
            false,
            None,
        ),
        Some(Sub::Compare { queries, json }) => {
            (Command::Compare, queries, json, None, false, None)
        }
        Some(Sub::Measured {
            query,
            file,
            reading,
            json,
        }) => (
            Command::Measured,
            vec![query, file],
            json,
            None,
            false,
            reading.map(Reading::from),
        ),
    };
    if matches!(command, Command::Estimate) && queries.is_empty() && !files.any() {
        return Err("needs a query string or URL".to_owned());
    }
    if files.any()
        && matches!(
            command,
            Command::Presets | Command::Compare | Command::Measured
        )
    {
        return Err("--deepspeed, --training-args and --config apply to one query".into());
    }
    Ok(Some(Args {
        command,
        json,
        gpu,
        strict,
        reading,
        queries,
        files,
    }))
}

/// The one query of a command, which files may stand in for (an empty query).
fn one_query(args: &Args) -> Option<&str> {
    match args.queries.as_slice() {
        [query] => Some(query),
        [] if args.files.any() => Some(""),
        _ => None,
    }
}

/// Runs `then` on the configuration of `text` and the files, or reports
/// their problems.
fn with_config(
    text: &str,
    gpu: Option<&str>,
    files: &FileArgs,
    then: impl FnOnce(&Config) -> ExitCode,
) -> ExitCode {
    let config = if files.any() {
        imported(text, gpu, files)
    } else {
        config_from(text, gpu)
    };
    match config {
        Ok(config) => then(&config),
        Err(lines) => fail(&lines),
    }
}

/// The names of the parameters a query sets.
fn names_in(text: &str) -> Vec<String> {
    query::query_part(text)
        .split('&')
        .filter(|segment| !segment.is_empty())
        .map(|segment| query::decode(segment.split_once('=').map_or(segment, |(n, _)| n)))
        .collect()
}

/// The configuration of the files completed (and overridden, parameter by
/// parameter) by the query: config.json's architecture, TrainingArguments,
/// the DeepSpeed config (docs/cli.md). Notes on what the estimate leaves out
/// and the resulting query, a shareable link, go to stderr.
fn imported(text: &str, gpu: Option<&str>, files: &FileArgs) -> Result<Config, Vec<String>> {
    let read = |flag: &str, path: &Option<String>| -> Result<Option<String>, Vec<String>> {
        path.as_ref()
            .map(|path| {
                std::fs::read_to_string(path).map_err(|e| vec![format!("{flag} {path}: {e}")])
            })
            .transpose()
    };
    let named = names_in(text);
    let mut base: Vec<(Param, String)> = vec![(Param::Form, Form::Transformer.name().to_owned())];
    if let Some(config_json) = read("--config", &files.config)? {
        let path = files.config.as_deref().unwrap_or_default();
        let arch = hf::import(&config_json).map_err(|e| vec![format!("--config {path}: {e}")])?;
        if named.iter().any(|n| n == Param::Model.name()) {
            return Err(vec![format!(
                "--config {path} and `model` cannot both be given; use one"
            )]);
        }
        // A published model's config.json is its preset, as on the page.
        match batchfit_core::presets::model_of(&arch) {
            Some(preset) => base.push((Param::Model, preset.id.to_owned())),
            None => base.extend(query::arch_values(&arch)),
        }
    }
    // What the files need from the query: the hidden size (only when
    // something names the model) and the data-parallel GPUs.
    let base_query = |extra: &[(Param, String)]| {
        base.iter()
            .chain(extra)
            .filter(|(p, _)| !named.iter().any(|n| n == p.name()))
            .map(|(p, v)| format!("{}={}", p.name(), query::encode(v)))
            .chain(std::iter::once(query::query_part(text).to_owned()))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("&")
    };
    let first = query::parse(&base_query(&[])).config;
    let knows_model = files.config.is_some()
        || named
            .iter()
            .any(|n| n == Param::Model.name() || n == Param::Hidden.name());
    let context = Context {
        hidden: knows_model.then_some(first.transformer.arch.hidden),
        gpus: first.transformer.gpus,
    };
    let deepspeed = read("--deepspeed", &files.deepspeed)?;
    let training_args = read("--training-args", &files.training_args)?;
    let from_files = import::files(
        &Files {
            deepspeed: deepspeed.as_deref(),
            training_args: training_args.as_deref(),
        },
        &context,
    )
    .map_err(|rejected| {
        let (flag, path) = match rejected.source {
            Source::ModelConfig => ("--config", &files.config),
            Source::Deepspeed => ("--deepspeed", &files.deepspeed),
            Source::TrainingArgs => ("--training-args", &files.training_args),
        };
        vec![format!(
            "{flag} {}: {}",
            path.as_deref().unwrap_or_default(),
            rejected.error
        )]
    })?;
    let config = config_from(&base_query(&from_files.params), gpu)?;
    if config.form != Form::Transformer {
        return Err(vec![
            "the files describe the transformer form: drop `form` from the query".to_owned(),
        ]);
    }
    for note in &from_files.notes {
        eprintln!("batchfit: note: {note}");
    }
    if files.verbose {
        eprintln!("batchfit: query: {}", query::to_query(&config));
    }
    Ok(config)
}

/// Unlike the page, which falls back to defaults and shows a notice, a script
/// wants to hear about every problem: any rejected parameter is an error.
/// `gpu` (from `--gpu`) replaces the query's device, `gpu=` or `gpu_gb=`.
fn config_from(text: &str, gpu: Option<&str>) -> Result<Config, Vec<String>> {
    let text = match gpu {
        None => text.to_owned(),
        Some(id) => query::query_part(text)
            .split('&')
            .filter(|segment| {
                let name = query::decode(segment.split_once('=').map_or(*segment, |(n, _)| n));
                !matches!(name.as_str(), "gpu" | "gpu_gb")
            })
            .chain([format!("gpu={}", query::encode(id)).as_str()])
            .collect::<Vec<_>>()
            .join("&"),
    };
    let pair = query::parse_pair(&text);
    if pair.b.is_some() {
        return Err(vec![format!(
            "the query holds a second setup (`{}` parameters): `batchfit compare QUERY` compares the two",
            query::B_PREFIX
        )]);
    }
    problems_or_config(pair.a)
}

/// The configuration, or every problem as a line.
fn problems_or_config(parsed: query::Parsed) -> Result<Config, Vec<String>> {
    if parsed.problems.is_empty() {
        Ok(parsed.config)
    } else {
        Err(parsed.problems.iter().map(ToString::to_string).collect())
    }
}

/// Every problem on its own line on stderr, exit code 2.
fn fail(lines: &[String]) -> ExitCode {
    for line in lines {
        eprintln!("batchfit: {line}");
    }
    ExitCode::from(2)
}

/// Writes the report to stdout. A reader that stops early (`batchfit … | head`)
/// closes the pipe: that is not an error, and must not panic as `println!` does.
fn emit(text: &str) -> ExitCode {
    if written(text) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Writes `text` and a newline to stdout; false (and a line on stderr) when
/// that failed for another reason than a closed pipe.
fn written(text: &str) -> bool {
    use std::io::Write as _;
    match writeln!(std::io::stdout(), "{text}") {
        Ok(()) => true,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => true,
        Err(error) => {
            eprintln!("batchfit: writing the report: {error}");
            false
        }
    }
}

fn usage_error(what: &str) -> ExitCode {
    eprintln!(
        "batchfit: {what}\n\n{}\nFor more, try 'batchfit --help'.",
        args::Cli::command().render_usage()
    );
    ExitCode::from(2)
}
