//! `batchfit`: the web app's estimate on the command line.
//!
//! ```text
//! batchfit [--json] 'form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16'
//! batchfit [--json] 'https://…/batchfit/?form=transformer&model=llama-3.1-8b&gpu=h100-80gb'
//! batchfit presets [--json]
//! ```
//!
//! The argument is the page's URL query string (or a whole URL); the format is
//! documented in docs/url-parameters.md. Exit codes: 0 ok, 2 bad input.

use std::process::ExitCode;

use batchfit_core::query::{self, Config};

mod report;

const USAGE: &str = "usage: batchfit [--json] QUERY_OR_URL | batchfit presets [--json]   (see docs/url-parameters.md)";

fn main() -> ExitCode {
    let mut json = false;
    let mut query_text = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if query_text.is_none() => query_text = Some(arg),
            _ => return usage_error("takes one query string or URL"),
        }
    }
    let Some(query_text) = query_text else {
        return usage_error("needs a query string or URL");
    };
    if query_text == "presets" {
        return emit(&report::presets(json));
    }
    match config_from(&query_text) {
        Ok(config) => {
            let out = if json {
                report::json(&config)
            } else {
                report::text(&config)
            };
            emit(&out)
        }
        Err(lines) => {
            for line in lines {
                eprintln!("batchfit: {line}");
            }
            ExitCode::from(2)
        }
    }
}

/// Unlike the page, which falls back to defaults and shows a notice, a script
/// wants to hear about every problem: any rejected parameter is an error.
fn config_from(text: &str) -> Result<Config, Vec<String>> {
    let parsed = query::parse(text);
    if parsed.problems.is_empty() {
        Ok(parsed.config)
    } else {
        Err(parsed.problems.iter().map(ToString::to_string).collect())
    }
}

/// Writes the report to stdout. A reader that stops early (`batchfit … | head`)
/// closes the pipe: that is not an error, and must not panic as `println!` does.
fn emit(text: &str) -> ExitCode {
    use std::io::Write as _;
    match writeln!(std::io::stdout(), "{text}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("batchfit: writing the report: {error}");
            ExitCode::FAILURE
        }
    }
}

fn usage_error(what: &str) -> ExitCode {
    eprintln!("batchfit: {what}; {USAGE}");
    ExitCode::from(2)
}
