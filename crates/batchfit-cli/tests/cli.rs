//! The `batchfit` binary as scripts use it: arguments in, stdout/stderr and exit code out.

use std::process::{Command, Output};

const WORKED: &str = "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16";

fn batchfit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_batchfit"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = batchfit(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

#[test]
fn json_carries_the_worked_example_as_integer_bytes() {
    let report = json(&["--json", WORKED]);
    assert_eq!(report["activations"], 85_899_345_920_u64);
    assert_eq!(report["activations_per_sample"], 5_368_709_120_u64);
    assert!(report["activations"].is_u64());
}

#[test]
fn a_whole_url_reads_like_its_query() {
    let url = format!("https://example.org/batchfit/?{WORKED}&precision_unused_fragment#top");
    let out = batchfit(&["--json", &url]);
    // An unknown parameter in a URL is an error for scripts.
    assert_eq!(out.status.code(), Some(2));
    let url = format!("https://example.org/batchfit/?{WORKED}#top");
    assert_eq!(json(&["--json", &url]), json(&["--json", WORKED]));
}

#[test]
fn text_output_shows_labelled_gb() {
    let out = batchfit(&[WORKED]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(out.status.success());
    assert!(text.contains("5.369 GB"), "{text}");
    assert!(text.contains("85.90 GB"), "{text}");
    assert!(text.contains("85,899,345,920 bytes"), "{text}");
    assert!(text.contains("GB = 10^9 bytes"), "{text}");
    let fp32_query = WORKED.replace("precision=bf16", "precision=fp32");
    let fp32 = String::from_utf8(batchfit(&[&fp32_query]).stdout).expect("utf-8");
    assert!(fp32.contains("171.80 GB"), "{fp32}");
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_parameter() {
    for (query, expected) in [
        ("batch=-1", "`batch` must be from 1 to 1,000,000,000"),
        ("batch=abc", "`batch` must be a number"),
        ("layers=", "`layers` is empty"),
        ("precision=fp8", "`precision` must be one of: fp32, fp16, bf16, int8"),
    ] {
        let (name, _) = query.split_once('=').expect("name=value");
        let others = WORKED.split('&').filter(|pair| !pair.starts_with(&format!("{name}=")));
        let full = others.chain([query]).collect::<Vec<_>>().join("&");
        let out = batchfit(&["--json", &full]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{query}");
        assert!(out.stdout.is_empty(), "{query}");
        assert!(stderr.lines().any(|l| l.contains(expected)), "{query}: {stderr}");
    }
    let out = batchfit(&["--json", "batch=-1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_argument_is_a_usage_error() {
    let out = batchfit(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: batchfit"));
}
