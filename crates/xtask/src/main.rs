//! Project automation, run as `cargo xtask <command>` (an alias in .cargo/config.toml).
//!
//! - `serve [--port N]`: install missing tools, build, serve on http://127.0.0.1:8080
//! - `dist`: release build of the site into `dist/`, its form shell pre-rendered
//!   in headless Chromium (installed when missing, as for `test`)
//! - `test`: install missing tools (browser included), then run every check there is
//! - `accuracy [--check]`: compare the model with validation/measurements.csv
//!   (published) and validation/gpu-measurements.csv (our own H200 runs), write
//!   docs/accuracy.md and the core's validation range
//!   (crates/batchfit-core/src/confidence/table.rs); `--check` writes nothing and
//!   fails when either differs from what the rows give
//! - `fuzz [--seconds N]`: run every fuzz target N seconds, record the figures in docs/security.md
//! - `bench [--check]`: release build, then size, load, edit and core timings → docs/performance.md
//! - `size`: the page weight of the last `dist/` build, failing over its ceiling
//!   (`BUNDLE_GZIP_CEILING` in bench/mod.rs; issue 31's budgets are `bench`'s)
//!
//! Each command installs what it needs first (see `tools.rs`, where every version
//! is pinned), and skips what is already there.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod accuracy;
mod bench;
mod confidence;
mod fuzz;
mod harden;
mod inline;
mod minify;
mod names;
mod prerender;
mod shell;
mod split;
mod tools;

use shell::{Step, cargo};

const USAGE: &str = "usage: cargo xtask <serve [--port N] | dist | test | accuracy [--check] | fuzz [--seconds N] | bench [--check] | size>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&root, &args[1..]),
        Some("dist") => dist(&root),
        Some("test") => test(&root),
        Some("accuracy") => match &args[1..] {
            [] => accuracy::run(&root, false),
            [flag] if flag == "--check" => accuracy::run(&root, true),
            _ => Err(format!("`accuracy` takes only --check; {USAGE}")),
        },
        Some("fuzz") => fuzz::run(&root, &args[1..]),
        Some("bench") => dist(&root).and_then(|()| bench::run(&root, &args[1..])),
        Some("size") => bench::check_bundle(&root),
        _ => Err(format!("unknown command; {USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root: this crate lives in `<root>/crates/xtask`.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/xtask sits two levels below the root")
        .to_path_buf()
}

fn serve(root: &Path, args: &[String]) -> Result<(), String> {
    let port = match args {
        [] => 8080,
        [flag, port] if flag == "--port" => port
            .parse::<u16>()
            .map_err(|_| format!("--port takes a number from 1 to 65535, not {port:?}"))?,
        _ => return Err(USAGE.to_owned()),
    };
    let env = tools::ensure_build_tools(root)?;
    println!("xtask: serving batchfit on http://127.0.0.1:{port}/ (Ctrl-C stops)");
    env.run(
        Step::new("trunk serve", "trunk")
            .args(["serve", "--offline", "--address", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .cwd(root),
    )
}

fn dist(root: &Path) -> Result<(), String> {
    let env = tools::ensure_build_tools(root)?;
    let browser = tools::ensure_browser()?;
    build_dist(&env, &browser, root)
}

/// Trunk's release build, its module split (`split.rs`), hardened and
/// minified, then the form shell pre-rendered from the built page
/// (`prerender.rs`) and the style sheet written into it (`inline.rs`).
fn build_dist(env: &tools::Env, browser: &tools::Browser, root: &Path) -> Result<(), String> {
    env.run(
        Step::new("release build of the site (trunk)", "trunk")
            .args(["build", "--release", "--offline"])
            .env("RUSTFLAGS", split::release_rustflags())
            .cwd(root),
    )?;
    split::split_dist(env, root, &root.join("dist"))?;
    harden::harden_dist(&root.join("dist"))?;
    minify::minify_dist(env, &root.join("dist"))?;
    prerender::prerender_dist(&root.join("dist"), browser)?;
    inline::inline_style_sheet(env, &root.join("dist"))?;
    println!("xtask: built {}", root.join("dist").display());
    Ok(())
}

/// Every check, in the order that fails fastest; stops at the first failure.
fn test(root: &Path) -> Result<(), String> {
    let started = Instant::now();
    let mut passed = 0;
    let outcome = run_all_checks(root, &mut passed);
    let seconds = started.elapsed().as_secs();
    match &outcome {
        Ok(()) => println!("xtask test: all {passed} steps passed in {seconds} s"),
        Err(message) => {
            println!("xtask test: FAILED after {passed} passing steps in {seconds} s: {message}")
        }
    }
    outcome
}

fn run_all_checks(root: &Path, passed: &mut usize) -> Result<(), String> {
    let env = tools::ensure_build_tools(root)?;
    let browser = tools::ensure_browser()?;
    *passed += 1;
    // In-process and well under a second: docs/accuracy.md and the core's
    // validation range must be what validation/ gives the current model.
    accuracy::run(root, true)?;
    *passed += 1;
    let wasm = ["--target", tools::WASM_TARGET];
    let steps = [
        cargo("format", ["fmt", "--all", "--check"]),
        cargo(
            "clippy (native)",
            ["clippy", "--workspace", "--all-targets"],
        )
        .args(["--", "-D", "warnings"]),
        cargo(
            "clippy (wasm32, web)",
            ["clippy", "-p", "batchfit-web", "--all-targets"],
        )
        .args(wasm)
        .args(["--", "-D", "warnings"]),
        // The core's own tests use proptest, which does not build for wasm32;
        // its library is what ships in the page.
        cargo(
            "clippy (wasm32, core)",
            ["clippy", "-p", "batchfit-core", "--lib"],
        )
        .args(wasm)
        .args(["--", "-D", "warnings"]),
        // The web crate's native unit tests (i18n, charts to SVG, tables) run here;
        // its browser tests below.
        cargo(
            "native tests",
            ["test", "--workspace", "--exclude", "batchfit-e2e"],
        ),
        cargo(
            "browser tests (wasm-bindgen-test, headless Chromium)",
            ["test", "-p", "batchfit-web"],
        )
        .args(wasm)
        .env("CHROMEDRIVER", &browser.chromedriver)
        // wasm-bindgen-test-runner gives the whole suite 20 s by default
        // (wasm_bindgen_test_runner.rs `timeout_from_env`); the 27 tests of
        // the debug build take about that on this 2-core machine, and a run
        // past it is killed as if it had failed.
        .env("WASM_BINDGEN_TEST_TIMEOUT", "180"),
    ];
    for step in steps {
        env.run(step.cwd(root))?;
        *passed += 1;
    }
    build_dist(&env, &browser, root)?;
    bench::check_bundle(root)?;
    *passed += 1;
    env.run(
        cargo(
            "end-to-end tests (built dist/, headless Chromium)",
            ["test", "-p", "batchfit-e2e"],
        )
        .env("BATCHFIT_DIST", root.join("dist"))
        .env("CHROMEDRIVER", &browser.chromedriver)
        .env("CHROMIUM", &browser.chromium)
        .cwd(root),
    )?;
    *passed += 1;
    Ok(())
}
