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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
        (
            "precision=fp8",
            "`precision` must be one of: fp32, fp16, bf16, int8",
        ),
    ] {
        let (name, _) = query.split_once('=').expect("name=value");
        let others = WORKED
            .split('&')
            .filter(|pair| !pair.starts_with(&format!("{name}=")));
        let full = others.chain([query]).collect::<Vec<_>>().join("&");
        let out = batchfit(&["--json", &full]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{query}");
        assert!(out.stdout.is_empty(), "{query}");
        assert!(
            stderr.lines().any(|l| l.contains(expected)),
            "{query}: {stderr}"
        );
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

#[test]
fn json_has_every_term_and_the_device_answers() {
    let report = json(&[
        "--json",
        "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=4&act_mb=1000&gpu_gb=120",
    ]);
    for (key, bytes) in [
        ("weights", 14_000_000_000_u64),
        ("gradients", 28_000_000_000),
        ("optimizer_states", 56_000_000_000),
        ("activations", 4_000_000_000),
        ("activations_per_sample", 1_000_000_000),
        ("total", 102_000_000_000),
        ("overhead", 1_000_000_000),
        // Reserved: 10 % allocator slack on the 4 GB of activations; nvidia-smi
        // adds the 1 GB overhead; with no margin that is what must fit.
        ("peak_allocated", 102_000_000_000),
        ("peak_reserved", 102_400_000_000),
        ("nvidia_smi", 103_400_000_000),
        ("required", 103_400_000_000),
        ("device_bytes", 120_000_000_000),
    ] {
        assert_eq!(report[key], bytes, "{key}");
    }
    assert_eq!(report["peak_phase"], "backward");
    assert_eq!(report["buffers"], 0);
    assert_eq!(report["fits"], true);
    // 98 GB of model states + 1 GB overhead + 1.1 GB reserved per sample ≤ 120 GB: 19 samples.
    assert_eq!(report["max_batch"], 19);
    let sweep = report["sweep"].as_array().expect("a list");
    let batches: Vec<u64> = sweep
        .iter()
        .filter_map(|row| row["batch"].as_u64())
        .collect();
    assert_eq!(batches, [1, 2, 4, 8, 16, 32]);
    assert_eq!(sweep[0]["model_states"], 98_000_000_000_u64);
    assert_eq!(sweep[0]["activations"], 1_000_000_000_u64);
    assert_eq!(sweep[0]["total"], 99_000_000_000_u64);
    // Without a device, no device answers.
    let report = json(&["--json", "form=parameters&params=7B"]);
    assert!(report.get("fits").is_none() && report.get("max_batch").is_none());
}

#[test]
fn the_transformer_form_reports_per_gpu_numbers() {
    let report = json(&[
        "--json",
        "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recompute=full&zero=3&gpus=8&gpu=h100-80gb",
    ]);
    assert_eq!(report["parameters"], 8_030_261_248_u64);
    // AMP + AdamW: 18 bytes per parameter, sharded over 8 GPUs by ZeRO-3.
    let states = ["weights", "gradients", "optimizer_states"]
        .iter()
        .filter_map(|k| report[k].as_u64())
        .sum::<u64>();
    assert!(
        (states as f64 - 18.0 * 8_030_261_248.0 / 8.0).abs() < 10.0,
        "{states}"
    );
    assert_eq!(report["fits"], true);
    assert!(report["what_ifs"].is_array());
}

/// A mixture of experts reports its active parameters beside the total;
/// a dense model's are its total.
#[test]
fn active_parameters_sit_next_to_parameters() {
    let report = json(&["--json", "form=transformer&model=mixtral-8x7b&ep=8&gpus=8"]);
    assert_eq!(report["parameters"], 46_702_792_704_u64);
    assert_eq!(report["active_parameters"], 12_879_925_248_u64);
    let report = json(&["--json", "form=transformer&model=llama-3.1-8b"]);
    assert_eq!(report["active_parameters"], 8_030_261_248_u64);
    let out = batchfit(&["form=transformer&model=qwen3-30b-a3b"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("mixture of experts: 3,353,032,704 active parameters; 128 routed experts of ffn 768 (top 8)"),
        "{text}"
    );
    let list = json(&["presets", "--json"]);
    let deepseek = list["models"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["id"] == "deepseek-v3"))
        .expect("listed");
    assert_eq!(deepseek["active_parameters"], 37_552_282_624_u64);
    assert_eq!(deepseek["published_active"], "37B");
}

#[test]
fn presets_are_listed() {
    let out = batchfit(&["presets"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(out.status.success());
    for id in [
        "llama-3.1-8b",
        "qwen2.5-72b",
        "vit-l-16",
        "h100-80gb",
        "rtx-4090",
        "cpu-64gb",
    ] {
        assert!(text.contains(id), "{id}");
    }
    let list = json(&["presets", "--json"]);
    assert!(list["models"].as_array().is_some_and(|m| m.len() >= 20));
    assert_eq!(
        list["devices"]
            .as_array()
            .and_then(|d| d.iter().find(|d| d["id"] == "a100-80gb"))
            .map(|d| d["bytes"].clone()),
        Some(serde_json::json!(85_899_345_920_u64))
    );
}

#[test]
fn every_problem_gets_its_own_line() {
    let out = batchfit(&["form=transformer&model=gpt-9&recipe=fp8&gpu=h100&gpu_gb=80"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(
        lines[0].contains("`model` must be one of: gpt2, "),
        "{stderr}"
    );
    assert!(
        lines[1].contains("`recipe` must be one of: fp32, amp, amp16, mixed, bf16"),
        "{stderr}"
    );
    assert!(lines[2].contains("`gpu` must be one of: t4, "), "{stderr}");
    assert!(
        lines[3].contains("`gpu_gb` and `gpu` cannot both be given"),
        "{stderr}"
    );
}

#[test]
fn text_output_says_whether_it_fits_and_what_would_help() {
    // 1,024 tokens: at 2,048 the FP32 attention scores of SDPA's math kernel
    // alone outgrow the device, and ZeRO-3 cannot help.
    let out = batchfit(&[
        "form=transformer&model=llama-3.1-8b&batch=2&seq=1024&recipe=fp32&gpu=a100-80gb",
    ]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(out.status.success());
    assert!(
        text.contains("NVIDIA A100 80GB: 85.90 GB — does not fit"),
        "{text}"
    );
    assert!(text.contains("with ZeRO-3 over"), "{text}");
    assert!(text.contains("GB = 10^9 bytes"), "{text}");
}

#[test]
fn framework_profiles_reach_the_json() {
    let report = json(&[
        "--json",
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&framework=deepspeed",
    ]);
    // DeepSpeed's 5e8-element 16-bit gradient bucket.
    assert_eq!(report["buffers"], 1_000_000_000_u64);
    assert_eq!(report["peak_phase"], "loss");
    let allocated = report["peak_allocated"].as_u64().expect("bytes");
    let reserved = report["peak_reserved"].as_u64().expect("bytes");
    let smi = report["nvidia_smi"].as_u64().expect("bytes");
    assert!(allocated < reserved && reserved < smi);
    assert_eq!(smi - reserved, 1_000_000_000);
}

/// The sum of the field values of a JSON object of byte counts.
fn sum_of(object: &serde_json::Value) -> u128 {
    object
        .as_object()
        .expect("an object")
        .values()
        .map(|v| u128::from(v.as_u64().expect("integer bytes")))
        .sum()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]

    /// `at_peak` is one decomposition of the peak: its parts sum exactly to
    /// `peak_allocated`, and every sweep row's parts to its total, across the
    /// three forms, training and inference, one GPU and many.
    #[test]
    fn what_is_alive_at_the_peak_sums_to_the_peak(
        form in 0usize..3,
        model in proptest::sample::select(vec!["gpt2", "llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b", "bert-large", "vit-b-16"]),
        batch in 1u64..64,
        seq in proptest::sample::select(vec![128u64, 1024, 4096]),
        mode in proptest::sample::select(vec!["train", "inference"]),
        recompute in proptest::sample::select(vec!["none", "selective", "full"]),
        recipe in proptest::sample::select(vec!["amp", "bf16", "fp32"]),
        step in proptest::sample::select(vec!["fused", "foreach", "in_backward"]),
        (gpus, zero, tp) in (1u64..9, 0u8..4, proptest::sample::select(vec![1u64, 2, 8])),
        global_batch in proptest::sample::select(vec![0u64, 256]),
    ) {
        let query = match form {
            0 => format!("form=activations&batch={batch}&seq={seq}&ckpt={}", batch % 2),
            1 => format!("form=parameters&params={batch}B&batch={batch}&act_mb={seq}"),
            _ => format!(
                "form=transformer&model={model}&batch={batch}&seq={seq}&mode={mode}&recompute={recompute}\
                 &recipe={recipe}&step={step}&gpus={gpus}&zero={zero}&tp={tp}&global_batch={global_batch}&gpu=h100-80gb"
            ),
        };
        let out = batchfit(&["--json", &query]);
        proptest::prop_assert!(out.status.success(), "{query}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let peak = u128::from(report["peak_allocated"].as_u64().expect("bytes"));
        proptest::prop_assert_eq!(sum_of(&report["at_peak"]), peak, "{}", query);
        let required = u128::from(report["required"].as_u64().expect("bytes"));
        let parts = peak
            + u128::from(report["allocator_cache"].as_u64().expect("bytes"))
            + u128::from(report["overhead"].as_u64().expect("bytes"))
            + u128::from(report["margin_bytes"].as_u64().expect("bytes"));
        proptest::prop_assert_eq!(parts, required, "{}", query);
        for row in report["sweep"].as_array().expect("rows") {
            let part = |name: &str| row[name].as_u64().expect("bytes");
            proptest::prop_assert_eq!(part("model_states") + part("activations"), part("total"), "{}", query);
        }
    }
}
