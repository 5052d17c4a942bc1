//! The tools the build and the tests need, with their versions pinned here and
//! nowhere else, and the steps that install them on a fresh machine. Every check
//! runs the tool and reads its version, so a second run installs nothing.
//!
//! What installs on these machines (measured, see ../shared/TOOLCHAIN.md): Trunk
//! 0.21 from crates.io (0.22 needs a newer rustc); wasm-bindgen-cli from crates.io
//! at exactly the version in Cargo.lock, without `--locked`; wasm-opt from the npm
//! package `binaryen` (Debian's binaryen 108 breaks the module); wasm-split-cli
//! from crates.io (`wasm_split_cli_support` with `--features build-binary`); esbuild from npm
//! (its native binary comes from the npm registry too); Chromium and
//! chromedriver from Debian's packages.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::shell::{Step, output_of};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
const TRUNK_VERSION: &str = "0.21.14";
/// Must agree with `[tools] wasm_opt` in Trunk.toml (checked below).
const BINARYEN_VERSION: &str = "132";
/// Minifies the JavaScript and CSS Trunk writes (see `minify.rs`).
const ESBUILD_VERSION: &str = "0.25.12";
/// Cuts the release module into the part the page starts with and the
/// chunks it fetches when first used (see `split.rs`): the crate
/// `wasm_split_cli_support`, whose `wasm-split-cli` binary is behind its
/// `build-binary` feature. The binary prints no version, so it is installed
/// under a folder named after its version.
const WASM_SPLIT_VERSION: &str = "0.2.4";

/// The `PATH` under which the installed tools are found, for running steps.
#[derive(Debug)]
pub struct Env {
    path: OsString,
}

impl Env {
    pub fn run(&self, step: Step) -> Result<(), String> {
        step.run_with_path(&self.path)
    }

    /// The `PATH` the tools are found under.
    pub fn path(&self) -> &std::ffi::OsStr {
        &self.path
    }

    fn version_of(&self, program: &str) -> Option<String> {
        output_of(program, &["--version"], &self.path)
    }
}

/// Installs whatever of the wasm32 target, Trunk, wasm-bindgen-cli,
/// wasm-split-cli, wasm-opt and esbuild is missing or at the wrong version.
pub fn ensure_build_tools(root: &Path) -> Result<Env, String> {
    let binaryen_dir = cache_dir()?.join(format!("binaryen-{BINARYEN_VERSION}"));
    let split_dir = cache_dir()?.join(format!("wasm-split-{WASM_SPLIT_VERSION}"));
    let esbuild_dir = cache_dir()?.join(format!("esbuild-{ESBUILD_VERSION}"));
    let env = Env {
        path: std::env::join_paths(
            [
                binaryen_dir.join("node_modules/.bin"),
                esbuild_dir.join("node_modules/.bin"),
                split_dir.join("bin"),
                cargo_bin_dir()?,
            ]
            .into_iter()
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
        )
        .map_err(|e| format!("cannot build PATH: {e}"))?,
    };

    let targets =
        output_of("rustup", &["target", "list", "--installed"], &env.path).unwrap_or_default();
    if !targets.lines().any(|t| t.trim() == WASM_TARGET) {
        env.run(Step::new("install the wasm32 target", "rustup").args([
            "target",
            "add",
            WASM_TARGET,
        ]))?;
    }

    if !has_version(env.version_of("trunk"), TRUNK_VERSION) {
        env.run(
            Step::new(
                format!("install trunk {TRUNK_VERSION} (about 8 minutes, once)"),
                cargo(),
            )
            .args(["install", "--locked", "trunk", "--version", TRUNK_VERSION]),
        )?;
    }

    let bindgen = wasm_bindgen_version(root)?;
    let runner = output_of("wasm-bindgen-test-runner", &["--version"], &env.path);
    if !has_version(env.version_of("wasm-bindgen"), &bindgen) || !has_version(runner, &bindgen) {
        // No `--locked`: one of its locked dependencies is missing from the registry.
        env.run(
            Step::new(
                format!("install wasm-bindgen-cli {bindgen} (about 3 minutes, once)"),
                cargo(),
            )
            .args([
                "install",
                "--force",
                "wasm-bindgen-cli",
                "--version",
                &bindgen,
            ]),
        )?;
    }

    if !split_dir.join("bin/wasm-split-cli").is_file() {
        env.run(
            Step::new(
                format!("install wasm-split-cli {WASM_SPLIT_VERSION} (about 3 minutes, once)"),
                cargo(),
            )
            .args([
                "install",
                "--locked",
                "wasm_split_cli_support",
                "--version",
                WASM_SPLIT_VERSION,
                "--features",
                "build-binary",
                "--root",
            ])
            .arg(&split_dir),
        )?;
    }

    check_trunk_toml(root)?;
    npm_tool(
        &env,
        &binaryen_dir,
        "binaryen",
        BINARYEN_VERSION,
        "wasm-opt",
    )?;
    npm_tool(&env, &esbuild_dir, "esbuild", ESBUILD_VERSION, "esbuild")?;
    Ok(env)
}

/// Installs `package@version` from the npm registry into `dir` unless its
/// `binary` there already reports that version.
fn npm_tool(
    env: &Env,
    dir: &Path,
    package: &str,
    version: &str,
    binary: &str,
) -> Result<(), String> {
    let installed = dir.join("node_modules/.bin").join(binary);
    if has_version(output_of(&installed, &["--version"], &env.path), version) {
        return Ok(());
    }
    if output_of("npm", &["--version"], &env.path).is_none() {
        return Err(format!(
            "{binary} comes from the npm package {package}: install Node.js and npm"
        ));
    }
    env.run(
        Step::new(format!("install {binary} (npm {package}@{version})"), "npm")
            .arg("install")
            .arg("--prefix")
            .arg(dir)
            .arg(format!("{package}@{version}")),
    )
}

/// Where Chromium and its driver are.
#[derive(Debug)]
pub struct Browser {
    pub chromium: PathBuf,
    pub chromedriver: PathBuf,
}

/// Finds Chromium and chromedriver (or `$CHROMIUM` / `$CHROMEDRIVER`); installs
/// them with apt-get on Debian and Ubuntu when they are missing.
pub fn ensure_browser() -> Result<Browser, String> {
    if let Some(browser) = find_browser() {
        return Ok(browser);
    }
    if !Path::new("/usr/bin/apt-get").exists() {
        return Err(
            "the browser tests need Chromium and a matching chromedriver: install them \
                    (e.g. `chromium` and `chromium-driver`) and put them on PATH, or set \
                    CHROMIUM and CHROMEDRIVER"
                .into(),
        );
    }
    let root = output_of("id", &["-u"], &std::env::var_os("PATH").unwrap_or_default())
        .is_some_and(|uid| uid.trim() == "0");
    let apt = |args: &[&str]| {
        let step = if root {
            Step::new("apt-get", "apt-get").args(args)
        } else {
            Step::new("apt-get (sudo)", "sudo")
                .arg("apt-get")
                .args(args)
        };
        step.env("DEBIAN_FRONTEND", "noninteractive")
            .run_with_path(&std::env::var_os("PATH").unwrap_or_default())
    };
    println!("xtask: installing Chromium and chromedriver from Debian's packages (once)");
    apt(&["update"])?;
    // Without the recommended packages: Chromium recommends a desktop (fonts,
    // themes, sound) that a headless test never uses, and which took most of
    // a fresh machine's install time.
    apt(&[
        "install",
        "-y",
        "--no-install-recommends",
        "chromium",
        "chromium-driver",
    ])?;
    find_browser().ok_or_else(|| "apt-get installed chromium, but it is not on PATH".into())
}

fn find_browser() -> Option<Browser> {
    let find = |var: &str, names: &[&str]| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .or_else(|| names.iter().find_map(|name| on_path(name)))
    };
    Some(Browser {
        chromium: find(
            "CHROMIUM",
            &["chromium", "chromium-browser", "google-chrome"],
        )?,
        chromedriver: find("CHROMEDRIVER", &["chromedriver"])?,
    })
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn has_version(output: Option<String>, version: &str) -> bool {
    // Whole words only: "0.2.130" must not match "0.2.1300".
    output.is_some_and(|text| {
        text.split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .any(|word| word == version)
    })
}

/// The `wasm-bindgen` crate version in Cargo.lock: the CLI must match it exactly.
fn wasm_bindgen_version(root: &Path) -> Result<String, String> {
    let lock =
        std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\""
            && let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = \""))
        {
            return Ok(version.trim_end_matches('"').to_owned());
        }
    }
    Err("Cargo.lock has no wasm-bindgen package".into())
}

fn check_trunk_toml(root: &Path) -> Result<(), String> {
    let trunk =
        std::fs::read_to_string(root.join("Trunk.toml")).map_err(|e| format!("Trunk.toml: {e}"))?;
    let expected = format!("wasm_opt = \"version_{BINARYEN_VERSION}\"");
    if trunk.lines().any(|l| l.trim() == expected) {
        Ok(())
    } else {
        Err(format!(
            "Trunk.toml must say `{expected}` under [tools], to match tools.rs"
        ))
    }
}

fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

pub fn cargo_bin_dir() -> Result<PathBuf, String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home_dir().map(|h| h.join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    Ok(home.join("bin"))
}

fn cache_dir() -> Result<PathBuf, String> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| home_dir().map(|h| h.join(".cache")))
        .ok_or("neither XDG_CACHE_HOME nor HOME is set")?;
    Ok(cache.join("batchfit-tools"))
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}
