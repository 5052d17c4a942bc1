//! The release module cut in parts: what the page needs to show its first
//! answer, and the chunks of the panels most visits never open (the paste
//! box's readers, "Compare with a measurement", the search for the smallest
//! changes that fit), fetched the first time one is used.
//!
//! The web crate marks those functions with `wasm_split` (under
//! `cfg(batchfit_split)`, `dom::Chunk`); Trunk builds with that cfg and with
//! the linker's relocations kept (`release_rustflags`). This step then runs
//! `wasm-split-cli` on the linked module (before wasm-bindgen, which drops
//! the relocations), wasm-bindgen on the part that stays, and wasm-opt on
//! every part, and writes them over Trunk's module and glue. The chunks and
//! their loader get content-hashed names like Trunk's assets, so that a new
//! deployment never pairs a cached chunk with another module. The module's
//! import and export names are then made short (`names.rs`).
//! docs/performance-log.md has what it saves.

use std::path::{Path, PathBuf};

use crate::shell::Step;
use crate::tools::Env;

/// What the release build of the page is compiled with: the cfg that turns
/// the marked functions into split points, the relocations `wasm-split-cli`
/// reads, and the registry's source folders named by crate alone in the
/// module's panic locations (`hashbrown-0.17.2/src/raw.rs`, not
/// `/root/.cargo/registry/src/index.crates.io-…/hashbrown-0.17.2/src/raw.rs`):
/// the page then weighs the same whatever the machine's `CARGO_HOME`, and
/// carries no path of the machine that built it.
pub fn release_rustflags() -> String {
    let mut flags = String::from("--cfg batchfit_split -C link-args=--emit-relocs");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    let sources = cargo_home.map(|home| home.join("registry/src"));
    let registries = sources
        .and_then(|src| std::fs::read_dir(src).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path());
    for registry in registries {
        // RUSTFLAGS is split on spaces: a path with one is left as it is.
        if let Some(path) = registry.to_str().filter(|p| !p.contains(' ')) {
            flags.push_str(&format!(" --remap-path-prefix={path}/="));
        }
    }
    flags
}

/// wasm-opt's arguments for every part: the five index.html gives Trunk (whose
/// own output the split replaces), then two more rounds.
/// `--low-memory-unused` lets wasm-opt fold `p + C` (C below 1,024) into a
/// load's or store's offset, which differs from the addition only where
/// `p + C` wraps past 2³²: never for the addresses Rust code forms, which lie
/// inside the memory (binaryen's `OptimizeAddedConstants`; 664 B less of the
/// first part, gzipped, docs/performance-log.md). Then two rounds of
/// `--flatten --rereloop -Oz`: the control flow rebuilt by the Relooper and
/// shrunk again, 598 B less of the first part, gzipped (the same log).
const WASM_OPT: [&str; 11] = [
    "-Oz",
    "--converge",
    "--low-memory-unused",
    "--strip-producers",
    "--strip-target-features",
    "--flatten",
    "--rereloop",
    "-Oz",
    "--flatten",
    "--rereloop",
    "-Oz",
];

/// The loader `wasm-split-cli` writes beside the parts; the glue imports it.
const LOADER: &str = "__wasm_split.js";

pub fn split_dist(env: &Env, root: &Path, dist: &Path) -> Result<(), String> {
    let linked = root.join("target/wasm32-unknown-unknown/release/batchfit-web.wasm");
    let glue = trunk_glue(dist)?;
    let stem = glue
        .strip_suffix(".js")
        .ok_or_else(|| format!("{glue} is not a .js file"))?
        .to_owned();
    let work = root.join("target/wasm-split");
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    let parts = work.join("parts");
    let bound = work.join("bindgen");
    env.run(
        Step::new("split the module (wasm-split-cli)", "wasm-split-cli")
            .arg(&linked)
            .arg(&parts)
            .args(["--out-name", &stem]),
    )?;
    env.run(
        Step::new(
            "bind the module's first part (wasm-bindgen)",
            "wasm-bindgen",
        )
        .args([
            "--target",
            "web",
            "--keep-lld-exports",
            "--no-typescript",
            "--out-name",
            &stem,
            "--out-dir",
        ])
        .arg(&bound)
        .arg(parts.join(format!("{stem}.wasm"))),
    )?;
    let wasm = format!("{stem}_bg.wasm");
    let renamed = crate::names::minify(env, &bound.join(&wasm))?;
    optimize(env, &bound.join(&wasm), &dist.join(&wasm))?;

    // The chunks, renamed after their content; the loader, renamed after its
    // own once it names them.
    let mut loader = renamed.in_loader(&read(&parts.join(LOADER))?)?;
    for chunk in chunk_files(&parts)? {
        let optimized = work.join(&chunk);
        optimize(env, &parts.join(&chunk), &optimized)?;
        let bytes = std::fs::read(&optimized).map_err(|e| format!("{chunk}: {e}"))?;
        let base = chunk.trim_end_matches(".wasm");
        let named = format!("{base}-{:016x}.wasm", crate::harden::fnv1a(&bytes));
        let quoted = format!("\"./{chunk}\"");
        if !loader.contains(&quoted) {
            return Err(format!("{LOADER} does not load {chunk}"));
        }
        loader = loader.replace(&quoted, &format!("\"./{named}\""));
        write(&dist.join(&named), &bytes)?;
    }
    let loader_name = format!(
        "__wasm_split-{:016x}.js",
        crate::harden::fnv1a(loader.as_bytes())
    );
    write(&dist.join(&loader_name), loader.as_bytes())?;
    // Only the glue's `import … from` moves to the new name: the key of the
    // imports object is the module's own import name and stays.
    let glue_text = renamed.in_glue(&read(&bound.join(&glue))?, &format!("./{stem}_bg.js"))?;
    let import = format!("from \"./{LOADER}\"");
    if !glue_text.contains(&import) {
        return Err(format!(
            "the glue does not import {LOADER}: was the module built with release_rustflags()?"
        ));
    }
    write(
        &dist.join(&glue),
        glue_text
            .replace(&import, &format!("from \"./{loader_name}\""))
            .as_bytes(),
    )?;

    // Trunk's integrity hash of the module is now stale; minify.rs brings
    // the glue's up to date and checks them all.
    let index = dist.join("index.html");
    let html = read(&index)?;
    let fresh = crate::minify::sha384(env, &dist.join(&wasm))?;
    let html = crate::minify::set_integrity(&html, &wasm, &fresh)
        .ok_or_else(|| format!("index.html gives {wasm} no integrity hash"))?;
    let html = preload_loader(
        &html,
        &glue,
        &loader_name,
        &crate::minify::sha384(env, &dist.join(&loader_name))?,
    )?;
    write(&index, html.as_bytes())
}

/// `html` with the loader preloaded beside the glue: the glue imports it at
/// once, and its request then need not wait for the glue to be parsed (the
/// module's first part, which writes the answer, starts one round trip
/// sooner; docs/performance-log.md, issue 31's split). Its integrity hash
/// follows it through minification (`minify.rs`).
fn preload_loader(html: &str, glue: &str, loader: &str, integrity: &str) -> Result<String, String> {
    let tag = format!("<link rel=\"modulepreload\" href=\"./{glue}\"");
    let at = html
        .find(&tag)
        .and_then(|start| Some(start + html[start..].find('>')? + 1))
        .ok_or_else(|| format!("index.html does not preload {glue}"))?;
    Ok(format!(
        "{}<link rel=\"modulepreload\" href=\"./{loader}\" crossorigin=\"anonymous\" integrity=\"{integrity}\">{}",
        &html[..at],
        &html[at..]
    ))
}

/// The name of Trunk's glue in `dist` (`batchfit-web-<hash>.js`).
fn trunk_glue(dist: &Path) -> Result<String, String> {
    let mut glues: Vec<String> = names_in(dist)?
        .into_iter()
        .filter(|n| n.starts_with("batchfit-web-") && n.ends_with(".js"))
        .collect();
    match glues.len() {
        1 => Ok(glues.remove(0)),
        n => Err(format!(
            "{} holds {n} files named batchfit-web-*.js, not one",
            dist.display()
        )),
    }
}

/// The chunks `wasm-split-cli` wrote: every `.wasm` but the first part.
fn chunk_files(parts: &Path) -> Result<Vec<String>, String> {
    let mut chunks: Vec<String> = names_in(parts)?
        .into_iter()
        .filter(|n| (n.starts_with("split_") || n.starts_with("chunk_")) && n.ends_with(".wasm"))
        .collect();
    chunks.sort();
    if chunks.is_empty() {
        return Err(format!(
            "wasm-split-cli wrote no chunk into {}",
            parts.display()
        ));
    }
    Ok(chunks)
}

fn optimize(env: &Env, from: &Path, to: &Path) -> Result<(), String> {
    env.run(
        Step::new(format!("optimize {} (wasm-opt)", file_name(to)), "wasm-opt")
            .args(WASM_OPT)
            .args(keep_names())
            .arg(from)
            .arg("-o")
            .arg(to),
    )
}

/// `-g` when `BATCHFIT_KEEP_NAMES` is set: every part keeps its functions'
/// names, so that a CPU profile of the page names them (the parts are then
/// larger than the budgets allow; for profiling only, never for a release).
pub fn keep_names() -> &'static [&'static str] {
    if std::env::var_os("BATCHFIT_KEEP_NAMES").is_some() {
        &["-g"]
    } else {
        &[]
    }
}

fn names_in(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let path: PathBuf = entry.map_err(|e| e.to_string())?.path();
        names.push(file_name(&path));
    }
    Ok(names)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}
