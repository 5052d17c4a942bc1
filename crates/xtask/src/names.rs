//! The module's import and export names made short, and the JavaScript that
//! names them made to match.
//!
//! wasm-bindgen names each import after the JS function it binds plus a
//! 16-digit hash (`__wbg_setAttribute_f75317b2b5cabfb4`) and keeps each
//! import's module name (`./batchfit-web-<hash>_bg.js`); those names are
//! in the module and again in the glue that provides them, and the hashes do
//! not compress. wasm-opt's `--minify-imports-and-exports-and-modules`
//! (binaryen src/passes/MinifyImportsAndExports.cpp) renames every import
//! and export to one or two characters, puts every import in the module
//! [`MODULE`], and prints the mapping as JSON; this step applies that mapping
//! to the glue's imports object and its `wasm.<export>` reads, and to the
//! split loader's read of the three exports the chunks share.
//! docs/performance-log.md has what it saves.

use std::path::Path;

use batchfit_core::import::json::{self, Json};

use crate::tools::Env;

/// The one module name the pass gives every import.
const MODULE: &str = "a";

/// The split loader's read of the exports the chunks import, as
/// wasm-split-cli writes it.
const LOADER_EXPORTS: &str =
    "const { __indirect_function_table, __wasm_split_shared0, memory,  } = initSync(";

/// The mapping wasm-opt printed.
#[derive(Debug, PartialEq)]
pub struct Renamed {
    /// Module, old name, new name.
    imports: Vec<(String, String, String)>,
    /// Old name, new name.
    exports: Vec<(String, String)>,
}

/// Renames `wasm`'s imports and exports in place (before it is optimized)
/// and returns the mapping.
pub fn minify(env: &Env, wasm: &Path) -> Result<Renamed, String> {
    let wasm = wasm
        .to_str()
        .ok_or_else(|| format!("{} is not UTF-8", wasm.display()))?;
    let printed = crate::shell::output_of(
        "wasm-opt",
        // The features are the module's own (its target-features section,
        // still there before `WASM_OPT` strips it): with all of them enabled
        // wasm-opt would write the imports in a compact encoding that
        // browsers do not read yet.
        &[
            &["--minify-imports-and-exports-and-modules", wasm, "-o", wasm],
            crate::split::keep_names(),
        ]
        .concat(),
        env.path(),
    )
    .ok_or_else(|| format!("wasm-opt could not minify the names of {wasm}"))?;
    Renamed::read(&printed)
}

impl Renamed {
    /// The mapping from what the pass prints: a JSON object with `imports`
    /// (`[module, old, new]` each) and `exports` (`[old, new]` each).
    fn read(printed: &str) -> Result<Self, String> {
        let start = printed
            .find('{')
            .ok_or("wasm-opt printed no mapping of names")?;
        let map = json::parse(&printed[start..]).map_err(|e| format!("wasm-opt's mapping: {e}"))?;
        let rows = |key: &str, width: usize| -> Result<Vec<Vec<String>>, String> {
            let Some(Json::Array(rows)) = map.get(key) else {
                return Err(format!("wasm-opt's mapping has no {key}"));
            };
            rows.iter()
                .map(|row| match row {
                    Json::Array(cells) if cells.len() == width => cells
                        .iter()
                        .map(|c| match c {
                            Json::String(s) => Ok(s.clone()),
                            _ => Err(format!("a row of {key} is not strings")),
                        })
                        .collect(),
                    _ => Err(format!("a row of {key} is not {width} names")),
                })
                .collect()
        };
        Ok(Self {
            imports: rows("imports", 3)?
                .into_iter()
                .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
                .collect(),
            exports: rows("exports", 2)?
                .into_iter()
                .map(|r| (r[0].clone(), r[1].clone()))
                .collect(),
        })
    }

    fn export(&self, old: &str) -> Option<&str> {
        self.exports
            .iter()
            .find(|(o, _)| o == old)
            .map(|(_, n)| n.as_str())
    }

    /// wasm-bindgen's glue with the new names: the keys of its imports
    /// object (`bindings`: the module of the functions it defines; every
    /// other module is one the glue imports as `import1`), the object under
    /// [`MODULE`], and its reads of the module's exports.
    pub fn in_glue(&self, glue: &str, bindings: &str) -> Result<String, String> {
        let mut out = glue.to_owned();
        let mut others = String::new();
        for (module, old, new) in &self.imports {
            if module == bindings {
                let key = format!("\n        {old}: ");
                if out.matches(&key).count() != 1 {
                    return Err(format!("the glue does not define {old} once"));
                }
                out = out.replace(&key, &format!("\n        {new}: "));
            } else {
                others.push_str(&format!(" {new}: import1.{old},"));
            }
        }
        let returned = out
            .find("\n    return {\n        __proto__: null,\n        \"./")
            .ok_or("the glue's imports object is not where wasm-bindgen writes it")?;
        let end = returned
            + out[returned..]
                .find("\n    };\n")
                .ok_or("the glue's imports object does not end")?;
        out.replace_range(
            returned..end,
            &format!(
                "\n    return {{\n        __proto__: null,\n        {MODULE}: Object.assign(import0, {{{others} }}),"
            ),
        );
        for (old, new) in &self.exports {
            out = replace_word(&out, &format!("wasm.{old}"), &format!("wasm.{new}"));
        }
        Ok(out)
    }

    /// The split loader with its read of the shared exports renamed.
    pub fn in_loader(&self, loader: &str) -> Result<String, String> {
        if !loader.contains(LOADER_EXPORTS) {
            return Err(
                "the split loader does not read the exports as wasm-split-cli writes it".into(),
            );
        }
        let mut read = String::from("const {");
        for old in [
            "__indirect_function_table",
            "__wasm_split_shared0",
            "memory",
        ] {
            let new = self
                .export(old)
                .ok_or_else(|| format!("the module exports no {old}"))?;
            read.push_str(&format!(" {new}: {old},"));
        }
        read.push_str(" } = initSync(");
        Ok(loader.replace(LOADER_EXPORTS, &read))
    }
}

/// `text` with every `from` that is not followed by another identifier
/// character replaced by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let after = &rest[at + from.len()..];
        let whole = !after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        out.push_str(&rest[..at]);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRINTED: &str = r#"{
 "imports": [
  ["./app_bg.js", "__wbg_lineTo_91262b25fb37c461", "$"],
  ["./__wasm_split.js", "__wasm_split_load_fixes", "b"]
 ],
"exports": [
  ["memory", "c"],
  ["memory_grow", "d"],
  ["__indirect_function_table", "e"],
  ["__wasm_split_shared0", "f"]
 ]
}
"#;

    const GLUE: &str = "function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_lineTo_91262b25fb37c461: function(arg0) {
            wasm.memory_grow(wasm.memory.buffer);
        },
    };
    return {
        __proto__: null,
        \"./app_bg.js\": import0,
        \"./__wasm_split.js\": import1,
    };
}
";

    #[test]
    fn the_glue_provides_and_reads_the_new_names() {
        let renamed = Renamed::read(PRINTED).unwrap();
        assert_eq!(
            renamed.in_glue(GLUE, "./app_bg.js").unwrap(),
            "function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        $: function(arg0) {
            wasm.d(wasm.c.buffer);
        },
    };
    return {
        __proto__: null,
        a: Object.assign(import0, { b: import1.__wasm_split_load_fixes, }),
    };
}
"
        );
        // A glue whose imports object is laid out otherwise is refused, not
        // half renamed.
        assert!(renamed.in_glue("const x = 1;", "./app_bg.js").is_err());
    }

    #[test]
    fn the_loader_reads_the_shared_exports_by_their_new_names() {
        let renamed = Renamed::read(PRINTED).unwrap();
        let loader = format!("{LOADER_EXPORTS}undefined, undefined);");
        assert_eq!(
            renamed.in_loader(&loader).unwrap(),
            "const { e: __indirect_function_table, f: __wasm_split_shared0, c: memory, } = initSync(undefined, undefined);"
        );
        assert!(renamed.in_loader("initSync()").is_err());
    }

    #[test]
    fn only_whole_names_are_replaced() {
        assert_eq!(
            replace_word(
                "wasm.memory.buffer wasm.memory_grow(1)",
                "wasm.memory",
                "wasm.c"
            ),
            "wasm.c.buffer wasm.memory_grow(1)"
        );
    }

    #[test]
    fn a_mapping_of_another_shape_is_refused() {
        assert!(Renamed::read("no mapping").is_err());
        assert!(Renamed::read(r#"{"imports": [["a", "b"]], "exports": []}"#).is_err());
        assert!(Renamed::read(r#"{"imports": []}"#).is_err());
    }
}
