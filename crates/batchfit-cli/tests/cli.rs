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

/// The site's bare address reads as the page reads it: the first screen,
/// written out in full (issue 28).
#[test]
fn the_bare_address_is_the_first_screen() {
    for bare in ["", "https://example.org/batchfit/?lang=es"] {
        let report = json(&["--json", bare]);
        let query = report["query"].as_str().unwrap_or_default();
        assert!(
            query.starts_with(batchfit_core::query::FIRST_SCREEN),
            "{bare}: {query}"
        );
        assert_eq!(report["fits"], true, "{bare}");
    }
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

/// Settings the device cannot run are warned about (issue 29): BF16 on a
/// T4, FP8 training on an A100; nothing on a card that runs them.
#[test]
fn settings_the_device_cannot_run_are_warned_about() {
    let t4 = json(&["--json", "form=transformer&model=llama-3.2-1b&gpu=t4"]);
    assert_eq!(t4["warnings"][0]["name"], "bf16_unsupported");
    assert!(
        t4["warnings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("compute capability 7.5"))
    );
    // The default attention, FlashAttention / SDPA: FlashAttention 2's
    // kernels refuse a card before Ampere.
    assert_eq!(t4["warnings"][1]["name"], "flash_attention_unsupported");
    assert!(
        t4["warnings"][1]["message"]
            .as_str()
            .is_some_and(|m| m.contains("flash_attention_2") && m.contains("7.5"))
    );
    let a100 = json(&[
        "--json",
        "form=transformer&model=llama-3.1-8b&recipe=bf16&fp8=te&gpu=a100-80gb",
    ]);
    assert_eq!(a100["warnings"][0]["name"], "fp8_unsupported");
    let h100 = json(&[
        "--json",
        "form=transformer&model=llama-3.1-8b&gpu=h100-80gb",
    ]);
    assert_eq!(h100["warnings"], serde_json::json!([]));
    let out = batchfit(&["form=transformer&model=llama-3.2-1b&gpu=t4"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warning: the device (compute capability 7.5) has no BF16"),
        "{text}"
    );
    // The engines' own limits and the kernels off a GPU.
    for (query, name, words) in [
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&framework=vllm&kv_dtype=fp8&gpu=a100-80gb",
            "fp8_kv_cache_unsupported",
            "compute capability 8.0",
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&framework=vllm&quant=int4&recipe=fp32&gpu=v100-32gb",
            "awq_kernels_unsupported",
            "7.5 (Turing)",
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&quant=int4&gpu=cpu-64gb",
            "int4_kernels_on_host",
            "on a CPU",
        ),
        (
            "form=transformer&model=llama-3.1-8b&lora_rank=16&base_quant=nf4&gpu=apple-64gb",
            "bitsandbytes_apple_silicon",
            "0.49",
        ),
        (
            "form=transformer&model=llama-3.1-8b&mode=inference&framework=vllm&kv_dtype=int4&gpu=h100-80gb",
            "engine_kv_dtype_unsupported",
            "vLLM's KV cache is 16-bit or FP8",
        ),
    ] {
        let report = json(&["--json", query]);
        let warning = report["warnings"]
            .as_array()
            .and_then(|w| w.iter().find(|w| w["name"] == name))
            .unwrap_or_else(|| panic!("{name}: {report}"));
        assert!(
            warning["message"]
                .as_str()
                .is_some_and(|m| m.contains(words)),
            "{warning}"
        );
    }
}

/// `--help` and each command's help list the commands, options, examples
/// and exit codes (issue 28); completions are written for the shells.
#[test]
fn help_and_completions_are_what_a_practitioner_expects() {
    let out = batchfit(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for expected in [
        "Usage: batchfit [OPTIONS] [QUERY_OR_URL]",
        "Commands:",
        "check",
        "devices",
        "compare",
        "measured",
        "completions",
        "--deepspeed <FILE>",
        "Examples:",
        "Exit codes: 0 ok",
    ] {
        assert!(help.contains(expected), "{expected}: {help}");
    }
    let out = batchfit(&["check", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("--strict") && help.contains("--gpu <ID>"),
        "{help}"
    );
    assert!(help.contains("Exit codes: 0 it fits"), "{help}");
    // Every command says its examples and its exit codes.
    for command in ["devices", "compare", "measured"] {
        let out = batchfit(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("Example"), "{command}: {help}");
        assert!(help.contains("Exit codes: 0 "), "{command}: {help}");
        assert!(help.contains("; 2 bad input"), "{command}: {help}");
    }
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef batchfit"),
        ("fish", "complete -c batchfit"),
    ] {
        let out = batchfit(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("measured"), "{shell}");
    }
    let out = batchfit(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let out = batchfit(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("batchfit "));
}

#[test]
fn missing_argument_is_a_usage_error() {
    let out = batchfit(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: batchfit"));
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
    // The text says the answer is each GPU's, and how many the job has
    // (issue 28: Mixtral with tp 2, pp 2 and 8 data-parallel ranks is a
    // 32-GPU job); one GPU's job names the card alone.
    let out =
        batchfit(&["form=transformer&model=mixtral-8x7b&gpus=8&tp=2&pp=2&ep=8&gpu=h100-80gb"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains(
            "\nEach of 32 × NVIDIA H100 80GB SXM: 85.03 GB usable of 85.52 GB — does not fit."
        ),
        "{text}"
    );
    let out = batchfit(&["form=transformer&model=llama-3.1-8b&gpu=h100-80gb"]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("\nNVIDIA H100 80GB SXM: 85.03 GB usable of 85.52 GB — does not fit."),
        "{text}"
    );
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

/// A paged optimizer's state is counted on the GPU in full, and the report
/// says it may spill (JSON `optimizer_may_spill`, a line of text); the
/// embedding and head's trainable copies count among the trainable parameters.
#[test]
fn fine_tuning_says_what_trains_and_what_may_spill() {
    let lora = "form=transformer&model=llama-3.1-8b&recipe=bf16&lora_rank=16&lora_targets=all";
    let paged = json(&["--json", &format!("{lora}&optimizer=paged_adamw")]);
    assert_eq!(paged["optimizer_may_spill"], true);
    assert_eq!(paged["optimizer_states"], 8 * 41_943_040_u64);
    let unpaged = json(&["--json", lora]);
    assert_eq!(unpaged.get("optimizer_may_spill"), None);
    assert_eq!(unpaged["optimizer_states"], paged["optimizer_states"]);
    let text = String::from_utf8(batchfit(&[&format!("{lora}&optimizer=paged_adamw_8bit")]).stdout)
        .expect("utf-8");
    assert!(
        text.contains("they may spill to CPU under pressure"),
        "{text}"
    );
    let embeddings = json(&["--json", &format!("{lora}&train_embeddings=1")]);
    assert_eq!(embeddings["trainable_parameters"], 1_092_616_192_u64);
}

/// `compile=1` (docs/model.md §3.3): the JSON carries the compiled
/// activations (Llama-3.1-8B, pure BF16, 2,048 tokens: 11,270,094,848 bytes
/// where eager keeps 16,380,854,272) and the text says what it assumes.
#[test]
fn compile_is_carried_to_the_json_and_said_in_text() {
    let query = "form=transformer&model=llama-3.1-8b&recipe=bf16&seq=2048&batch=1";
    let compiled = json(&["--json", &format!("{query}&compile=1")]);
    assert_eq!(compiled["activations"], 11_270_094_848_u64);
    assert!(
        compiled["query"]
            .as_str()
            .is_some_and(|q| q.ends_with("&compile=1"))
    );
    assert_eq!(json(&["--json", query])["activations"], 16_380_854_272_u64);
    let text = String::from_utf8(batchfit(&[&format!("{query}&compile=1")]).stdout).expect("utf-8");
    assert!(
        text.contains("torch.compile: Inductor's partitioner"),
        "{text}"
    );
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
        text.contains("NVIDIA A100 80GB: 85.09 GB usable of 85.90 GB — does not fit"),
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

/// `max_seq` (issue 13): with a device, the longest context (prompt +
/// generated) that fits, one token past it does not; absent without a device.
#[test]
fn json_gives_the_longest_context_that_fits() {
    let base = "form=transformer&model=llama-3.1-8b&mode=inference&recipe=bf16&batch=1\
                &gen=256&gpu=rtx-4090&kv_dtype=fp8";
    let max = json(&["--json", base])["max_seq"]
        .as_u64()
        .expect("max_seq with a device");
    let at = |total: u64| json(&["--json", &format!("{base}&seq={}", total - 256)])["fits"].clone();
    assert_eq!(at(max), true);
    assert_eq!(at(max + 1), false);
    let without = base.replace("&gpu=rtx-4090", "");
    assert!(json(&["--json", &without]).get("max_seq").is_none());
}

/// Llama 3.1 8B with ZeRO-3 over 8 GPUs and full recomputation: 53.18 GB per
/// GPU at batch 4 (docs/cli.md's worked example).
const SHARDED: &str = "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&zero=3&gpus=8&recompute=full&gpu=h100-80gb";

#[test]
fn check_exits_0_when_it_fits_with_one_line() {
    let out = batchfit(&["check", SHARDED]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        estimate_part(&String::from_utf8_lossy(&out.stdout)),
        "fits: needs 53.18 GB of 85.03 GB usable (NVIDIA H100 80GB SXM); largest batch 7"
    );
    assert!(out.stderr.is_empty());
    // The line's numbers are the estimate's.
    let report = json(&["--json", SHARDED]);
    assert_eq!(report["required"], 53_178_610_484_u64);
    assert_eq!(report["max_batch"], 7);
    // The H100's 81,559 MiB as nvidia-smi reports it, and the 81,090 MiB a
    // process can allocate, which the fit is checked against.
    assert_eq!(report["device_bytes"], 85_520_809_984_u64);
    assert_eq!(report["usable_bytes"], 85_029_027_840_u64);
}

#[test]
fn check_exits_1_when_it_does_not_fit_and_gpu_overrides_the_query() {
    for (args, line) in [
        (
            vec!["check", SHARDED, "--gpu", "rtx-4090"],
            "does not fit: needs 53.18 GB of 25.38 GB usable (NVIDIA RTX 4090 24GB); largest batch 1\n",
        ),
        // --gpu also replaces a custom capacity, and may come first.
        (
            vec![
                "check",
                "--gpu",
                "t4",
                "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&zero=3&gpus=8&recompute=full&gpu_gb=200",
            ],
            "does not fit: needs 53.18 GB of 15.84 GB usable (NVIDIA T4 16GB); no batch fits, not even 1\n",
        ),
        (
            vec!["check", &SHARDED.replace("batch=4", "batch=8")],
            "does not fit: needs 91.10 GB of 85.03 GB usable (NVIDIA H100 80GB SXM); largest batch 7\n",
        ),
    ] {
        let out = batchfit(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            estimate_part(&String::from_utf8_lossy(&out.stdout)),
            line.trim_end(),
            "{args:?}"
        );
    }
    // Without --gpu a custom capacity is checked as given.
    let custom = SHARDED.replace("gpu=h100-80gb", "gpu_gb=53.17");
    let out = batchfit(&["check", &custom]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("of 53.17 GB usable (53.17 GB device)"),
        "{out:?}"
    );
}

/// `check`'s one line up to the validation range: the estimate's answer.
/// The range follows as `; in validation …` (tested below).
fn estimate_part(stdout: &str) -> &str {
    let line = stdout.strip_suffix('\n').expect("one line");
    assert!(!line.contains('\n'), "{stdout}");
    line.split_once("; in validation ")
        .map_or(line, |(before, _)| before)
}

/// A query without a device, on a custom capacity of `bytes` rounded to a
/// hundredth of a GB, up or down.
fn on_capacity(query: &str, bytes: u64, up: bool) -> String {
    let hundredths = gb_hundredths(bytes, up);
    format!(
        "{query}&gpu_gb={}.{:02}",
        hundredths / 100,
        hundredths % 100
    )
}

#[test]
fn check_prints_the_validation_range_and_strict_needs_its_pessimistic_end() {
    let query = SHARDED.replace("&gpu=h100-80gb", "");
    let report = json(&["--json", &query]);
    let fit = &report["confidence"]["fit"];
    let (optimistic, pessimistic, required) = (
        fit["optimistic_required"].as_u64().expect("bytes"),
        fit["pessimistic_required"].as_u64().expect("bytes"),
        report["required"].as_u64().expect("bytes"),
    );
    // The ends hold the estimate; without a device there is no verdict.
    assert!(optimistic <= required && required <= pessimistic, "{fit}");
    assert!(fit.get("verdict").is_none(), "{fit}");
    let range = format!(
        "required {} … {} ({} range)",
        gb(optimistic),
        gb(pessimistic),
        match fit["reading"].as_str().expect("a reading") {
            "allocated" => "peak allocated",
            "reserved" => "peak reserved",
            _ => "nvidia-smi",
        }
    );
    let run = |capacity: String, strict: bool| {
        let mut args = vec!["check", capacity.as_str()];
        if strict {
            args.push("--strict");
        }
        let out = batchfit(&args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        (out.status.code(), stdout)
    };
    // Even the pessimistic end fits: 0 either way.
    for strict in [false, true] {
        let (code, line) = run(on_capacity(&query, pessimistic, true), strict);
        assert_eq!(code, Some(0), "{line}");
        assert!(line.starts_with("fits: "), "{line}");
        assert!(
            line.ends_with(&format!(
                "; in validation fits even at the pessimistic end, {range}\n"
            )),
            "{line}"
        );
    }
    // The estimate fits, the pessimistic end does not: 0, but 1 with --strict.
    let between = on_capacity(&query, required, true);
    if gb_hundredths(required, true) * 10_000_000 < pessimistic {
        let (code, line) = run(between.clone(), false);
        assert_eq!(code, Some(0), "{line}");
        assert!(
            line.starts_with("fits: ")
                && line.contains("; in validation fits only at the optimistic end, "),
            "{line}"
        );
        let (code, line) = run(between, true);
        assert_eq!(code, Some(1), "{line}");
        assert!(
            line.starts_with("fits only at the optimistic end: "),
            "{line}"
        );
    }
    // Not even the optimistic end fits: 1 either way.
    for strict in [false, true] {
        let (code, line) = run(on_capacity(&query, optimistic - 10_000_000, false), strict);
        assert_eq!(code, Some(1), "{line}");
        assert!(line.starts_with("does not fit: "), "{line}");
        assert!(
            line.contains("; in validation does not fit, not even at the optimistic end, "),
            "{line}"
        );
    }
    // --strict is `check`'s only.
    let out = batchfit(&["--strict", SHARDED]);
    assert_eq!(out.status.code(), Some(2));
    // The napkin forms have no validation rows: the line is the estimate's.
    let (code, line) = run("form=parameters&params=1B&gpu=h100-80gb".to_owned(), true);
    assert_eq!(code, Some(0), "{line}");
    assert!(!line.contains("in validation"), "{line}");
}

/// Bytes in hundredths of a GB, rounded up or down.
fn gb_hundredths(bytes: u64, up: bool) -> u64 {
    if up {
        bytes.div_ceil(10_000_000)
    } else {
        bytes / 10_000_000
    }
}

/// Bytes as the CLI prints GB.
fn gb(bytes: u64) -> String {
    batchfit_core::units::format_bytes(u128::from(bytes), batchfit_core::units::Units::Decimal)
}

#[test]
fn the_report_gives_each_readings_validation_range() {
    let report = json(&["--json", SHARDED]);
    let ranges = report["confidence"]["ranges"].as_array().expect("ranges");
    assert!(!ranges.is_empty(), "{report}");
    for r in ranges {
        let reading = r["reading"].as_str().expect("a reading");
        let field = match reading {
            "allocated" => "peak_allocated",
            "reserved" => "peak_reserved",
            _ => "nvidia_smi",
        };
        assert_eq!(r["estimate"], report[field], "{r}");
        let (low, high) = (
            r["low_basis_points"].as_i64().expect("bp"),
            r["high_basis_points"].as_i64().expect("bp"),
        );
        assert!(low <= high, "{r}");
        let estimate = r["estimate"].as_u64().expect("bytes");
        let end = |bp: i64| (i128::from(estimate) * i128::from(10_000 + bp)) as f64 / 10_000.0;
        assert!(
            (r["low"].as_u64().expect("bytes") as f64 - end(low)).abs() <= 1.0,
            "{r}"
        );
        assert!(
            (r["high"].as_u64().expect("bytes") as f64 - end(high)).abs() <= 1.0,
            "{r}"
        );
        assert!(r["rows"].as_u64() >= r["sources"].as_u64(), "{r}");
        assert_eq!(r["profile"], "custom", "{r}");
    }
    assert!(report["confidence"]["fit"]["verdict"].as_str().is_some());
    // The text report prints a line per reading.
    let text = String::from_utf8(batchfit(&[SHARDED]).stdout).expect("utf-8");
    assert!(
        text.contains("In validation, runs like this one measured"),
        "{text}"
    );
    for label in [
        "  peak allocated  ",
        "  peak reserved   ",
        "  nvidia-smi      ",
    ] {
        assert!(text.contains(label), "{text}");
    }
    assert!(text.contains("\nIn validation: "), "{text}");
    // No validation rows state the napkin forms: no `confidence`.
    assert!(json(&["--json", WORKED]).get("confidence").is_none());
}

#[test]
fn check_exits_2_on_bad_input_naming_the_parameter() {
    let no_device = SHARDED.replace("&gpu=h100-80gb", "");
    for (args, expected) in [
        (
            vec!["check".to_owned(), format!("{SHARDED}&colour=red")],
            "`colour` is not a parameter batchfit knows",
        ),
        (
            vec!["check".to_owned(), SHARDED.replace("zero=3", "zero=4")],
            "`zero` must be from 0 to 3",
        ),
        (
            vec![
                "check".into(),
                SHARDED.into(),
                "--gpu".into(),
                "h1000".into(),
            ],
            "`gpu` must be one of: t4, ",
        ),
        (
            vec!["check".to_owned(), no_device],
            "`check` needs a device",
        ),
        (
            vec!["check".into(), SHARDED.into(), "--gpu".into()],
            "a value is required for '--gpu <ID>'",
        ),
        (vec!["check".into()], "`check` takes one query"),
        (
            vec!["check".into(), SHARDED.into(), "--json".into()],
            "unexpected argument '--json'",
        ),
    ] {
        let out = batchfit(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn devices_answers_as_the_estimate_does_on_every_preset() {
    let presets = json(&["presets", "--json"]);
    let ids: Vec<&str> = presets["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .filter_map(|d| d["id"].as_str())
        .collect();
    // The query's own device is replaced by each preset in turn.
    let rows = json(&["devices", SHARDED, "--json"]);
    let rows = rows.as_array().expect("an array");
    assert_eq!(rows.len(), ids.len());
    let without_device = SHARDED.replace("&gpu=h100-80gb", "");
    for id in ids {
        let row = rows
            .iter()
            .find(|r| r["id"] == id)
            .expect("a row per preset");
        let report = json(&["--json", &format!("{without_device}&gpu={id}")]);
        assert_eq!(row["fits"], report["fits"], "{id}");
        assert_eq!(row["max_batch"], report["max_batch"], "{id}");
        assert_eq!(
            row["gpus_needed"],
            report.get("gpus_needed").cloned().unwrap_or_default(),
            "{id}"
        );
        let spare = i128::from(report["usable_bytes"].as_u64().expect("bytes"))
            - i128::from(report["required"].as_u64().expect("bytes"));
        assert_eq!(
            row["spare_bytes"].as_i64().map(i128::from),
            Some(spare),
            "{id}"
        );
        assert_eq!(row["usable_bytes"], report["usable_bytes"], "{id}");
        assert_eq!(row["bytes"], report["device_bytes"], "{id}");
        assert!(
            row["bytes"].as_u64() >= row["usable_bytes"].as_u64(),
            "{id}"
        );
    }
    let capacities: Vec<u64> = rows
        .iter()
        .filter_map(|r| r["usable_bytes"].as_u64())
        .collect();
    assert!(capacities.is_sorted(), "{capacities:?}");
    let fits: Vec<bool> = rows.iter().filter_map(|r| r["fits"].as_bool()).collect();
    // More memory never fits less.
    assert!(fits.is_sorted(), "{fits:?}");
}

#[test]
fn devices_text_shows_the_shortfall() {
    let out = batchfit(&["devices", SHARDED]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.starts_with("Needs 53.18 GB per GPU at batch 4."),
        "{text}"
    );
    let line = |id: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_default()
            .to_owned()
    };
    // What CUDA can allocate less 53,178,610,484 bytes: 15,837,691,904 on a T4,
    // 85,029,027,840 on an H100.
    assert!(line("t4").ends_with("short by 37.34 GB"), "{text}");
    assert!(line("h100-80gb").contains(" fits "), "{text}");
    assert!(line("h100-80gb").ends_with("31.85 GB"), "{text}");
    let out = batchfit(&["devices", "batch=abc"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compare_gives_each_difference_and_the_parameters_that_differ() {
    let bigger = SHARDED
        .replace("batch=4", "batch=8")
        .replace("zero=3", "zero=2");
    let comparison = json(&["compare", SHARDED, &bigger, "--json"]);
    let (a, b) = (json(&["--json", SHARDED]), json(&["--json", &bigger]));
    let differences = comparison["difference"].as_array().expect("a list");
    for name in [
        "weights",
        "gradients",
        "optimizer_states",
        "optimizer_step",
        "buffers",
        "kv_cache",
        "activations",
        "peak_allocated",
        "peak_reserved",
        "nvidia_smi",
        "required",
    ] {
        let bytes = |r: &serde_json::Value| i128::from(r[name].as_u64().expect("bytes"));
        assert_eq!(comparison["a"]["bytes"][name], a[name], "{name}");
        assert_eq!(comparison["b"]["bytes"][name], b[name], "{name}");
        let d = differences.iter().find(|d| d["name"] == name).expect(name);
        assert_eq!(
            d["bytes"].as_i64().map(i128::from),
            Some(bytes(&b) - bytes(&a))
        );
        if bytes(&a) == 0 {
            assert!(d["percent"].is_null(), "{name}");
        } else {
            let percent = (bytes(&b) - bytes(&a)) as f64 * 100.0 / bytes(&a) as f64;
            let shown = d["percent"].as_f64().expect("a percentage");
            assert!(
                (shown - percent).abs() <= 0.05,
                "{name}: {shown} vs {percent}"
            );
        }
    }
    // ZeRO-2 keeps every 16-bit weight, 8,030,261,248 × 2 bytes, where ZeRO-3
    // keeps an eighth; twice the batch is twice the activations.
    let difference = |name: &str| differences.iter().find(|d| d["name"] == name).expect(name);
    assert_eq!(
        difference("weights")["bytes"],
        16_060_522_496_i64 - 2_007_565_312
    );
    assert_eq!(difference("activations")["percent"], 100.0);
    for side in ["a", "b"] {
        let report = if side == "a" { &a } else { &b };
        assert_eq!(comparison[side]["fits"], report["fits"]);
        assert_eq!(comparison[side]["max_batch"], report["max_batch"]);
    }
    assert_eq!(
        comparison["differing_parameters"],
        serde_json::json!([
            {"name": "batch", "a": "4", "b": "8"},
            {"name": "zero", "a": "3", "b": "2"},
        ])
    );
    // Each side's query opens the same configuration.
    assert_eq!(
        json(&["--json", comparison["b"]["query"].as_str().expect("text")]),
        b
    );
}

#[test]
fn compare_of_a_query_with_itself_differs_in_nothing() {
    let comparison = json(&["compare", SHARDED, SHARDED, "--json"]);
    assert_eq!(comparison["differing_parameters"], serde_json::json!([]));
    assert!(
        comparison["difference"]
            .as_array()
            .expect("a list")
            .iter()
            .all(|d| d["bytes"] == 0)
    );
    let out = batchfit(&["compare", SHARDED, SHARDED]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("No parameter differs."), "{text}");
    // Across forms, the form and every value either form reads are listed.
    let text = String::from_utf8(batchfit(&["compare", WORKED, SHARDED]).stdout).expect("utf-8");
    assert!(text.contains("form: activations → transformer"), "{text}");
    assert!(text.contains("  Activations  "), "{text}");
}

#[test]
fn compare_writes_signs_percents_and_answers_as_the_other_commands_do() {
    let a = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&gpu=h100-80gb";
    let b = format!("{a}&recipe=bf16&optimizer=adam8bit");
    let text = String::from_utf8(batchfit(&["compare", a, &b]).stdout).expect("utf-8");
    // 16-bit gradients are half of AMP's FP32 ones: the minus sign and the
    // spaced percent of `measured` and the page.
    let gradients = text
        .lines()
        .find(|l| l.trim_start().starts_with("Gradients"))
        .expect("a gradients row");
    assert!(gradients.ends_with(" −50.0 %"), "{gradients}");
    let largest = json(&["--json", &b])["max_batch"]
        .as_u64()
        .expect("a batch");
    assert!(largest > 0);
    assert!(
        text.contains("A: does not fit, not even at batch 1"),
        "{text}"
    );
    assert!(
        text.contains(&format!("B: fits, largest batch {largest}")),
        "{text}"
    );
}

#[test]
fn compare_names_which_query_is_wrong() {
    let out = batchfit(&["compare", SHARDED, "form=transformer&batch=0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("QUERY_B: `batch` must be from 1"),
        "{stderr}"
    );
    let out = batchfit(&["compare", SHARDED]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn one_address_with_a_second_setup_compares_the_two() {
    let both = format!("{SHARDED}&b.batch=8&b.zero=2");
    let bigger = SHARDED
        .replace("batch=4", "batch=8")
        .replace("zero=3", "zero=2");
    assert_eq!(
        json(&["compare", &both, "--json"]),
        json(&["compare", SHARDED, &bigger, "--json"])
    );
    // A command that reads one setup says the address holds two, rather than
    // answering for A alone.
    for command in [
        vec!["--json", both.as_str()],
        vec!["check", both.as_str()],
        vec!["devices", both.as_str()],
    ] {
        let out = batchfit(&command);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("second setup"), "{stderr}");
    }
    // B's problems are named as B's.
    let out = batchfit(&["compare", &format!("{SHARDED}&b.batch=0")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("QUERY_B: `batch` must be from 1"),
        "{stderr}"
    );
}

/// A checked-in sample (crates/batchfit-core/tests/data).
fn sample(name: &str) -> String {
    format!(
        "{}/../batchfit-core/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The query the CLI reports on stderr for imported files.
fn reported_query(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("batchfit: query: "))
        .expect("the imported configuration's query")
        .to_owned()
}

/// One reading of a pasted file (issue 28): each checked-in file, read with
/// its flag over a query, gives the query written in
/// crates/batchfit-core/tests/data/pasted-queries.txt, the table the page's
/// browser test holds the page to.
#[test]
fn each_checked_in_file_reads_as_the_page_reads_it() {
    let table = include_str!("../../batchfit-core/tests/data/pasted-queries.txt");
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (given, expected) = line.split_once(" -> ").expect("a row");
        let mut words = given.split(' ');
        let (flag, file, query) = (
            words.next().expect("a flag"),
            sample(words.next().expect("a file")),
            words.next().expect("a query"),
        );
        let out = batchfit(&["-v", flag, &file, query]);
        assert!(out.status.success(), "{line}: {out:?}");
        assert_eq!(reported_query(&out), expected, "{line}");
        rows += 1;
    }
    assert_eq!(rows, 6);
}

#[test]
fn imported_files_give_a_query_that_opens_the_same_configuration() {
    let zero3 = sample("hf_zero3_auto.json");
    let args = sample("training_args.json");
    let query = "model=llama-3.1-8b&seq=4096&gpus=8&gpu=h100-80gb";
    let flags = ["--deepspeed", &zero3, "--training-args", &args];
    // Quiet unless asked: without -v no query on stderr.
    let quiet = batchfit(&[&["--json", query][..], &flags].concat());
    assert!(quiet.status.success(), "{quiet:?}");
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("batchfit: query:"));
    let out = batchfit(&[&["--json", "-v", query][..], &flags].concat());
    assert!(out.status.success(), "{out:?}");
    let link = reported_query(&out);
    assert_eq!(
        link,
        "form=transformer&model=llama-3.1-8b&framework=deepspeed&batch=4&seq=4096&recompute=full&gpus=8&zero=3&offload=1&bucket_m=17&ds_prefetch=15099494&ds_persist=40960&param_offload=1&gpu=h100-80gb&global_batch=256"
    );
    let imported: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(imported, json(&["--json", &link]));
    assert_eq!(imported["query"], link.as_str());
    // What the estimate leaves out is named, once each; offload_param to the
    // CPU is param_offload now, ZeRO-3's "auto" buckets are ds_prefetch,
    // ds_persist and bucket_m.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("offload_param` is not modelled"),
        "{stderr}"
    );
    assert!(!stderr.contains("stage3_prefetch_bucket_size"), "{stderr}");
    assert!(
        stderr.contains("`zero_optimization.stage3_max_reuse_distance` (1,000,000,000 elements)"),
        "{stderr}"
    );
    // check and devices read the same files.
    let out = batchfit(&[&["check", query][..], &flags].concat());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        estimate_part(&String::from_utf8_lossy(&out.stdout)),
        "fits: needs 36.59 GB of 85.03 GB usable (NVIDIA H100 80GB SXM); largest batch 9"
    );
    let rows = json(&[&["devices", query, "--json"][..], &flags].concat());
    let h100 = rows
        .as_array()
        .and_then(|r| r.iter().find(|r| r["id"] == "h100-80gb"))
        .expect("a row");
    assert_eq!(h100["fits"], true);
}

#[test]
fn the_query_completes_and_overrides_the_files() {
    let args = sample("training_args.json");
    // The query's batch wins over per_device_train_batch_size; the rest is the file's.
    let out = batchfit(&[
        "--json",
        "--verbose",
        "model=llama-3.1-8b&batch=1&gpus=2",
        "--training-args",
        &args,
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        reported_query(&out),
        "form=transformer&model=llama-3.1-8b&framework=hf_trainer&batch=1&seq=2048&recompute=full&gpus=2&global_batch=64"
    );
    // Files alone, with no query.
    let out = batchfit(&["--training-args", &args]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_config_json_is_the_architecture_of_its_preset() {
    let config = sample("llama-3.1-8b-config.json");
    let from_file = json(&["--json", "batch=2&seq=1024", "--config", &config]);
    let preset = json(&[
        "--json",
        "form=transformer&model=llama-3.1-8b&batch=2&seq=1024",
    ]);
    for key in ["parameters", "weights", "activations", "required"] {
        assert_eq!(from_file[key], preset[key], "{key}");
    }
    assert_eq!(from_file["parameters"], 8_030_261_248_u64);
    let out = batchfit(&["model=gpt2", "--config", &config]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("and `model` cannot both be given"),
        "{out:?}"
    );
}

#[test]
fn file_problems_exit_2_naming_the_file_and_key() {
    let dir = std::env::temp_dir().join(format!("batchfit-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("written");
        path.to_string_lossy().into_owned()
    };
    let both = write(
        "both.json",
        r#"{"bf16": {"enabled": true}, "fp16": {"enabled": true}}"#,
    );
    let batch = write(
        "batch.json",
        r#"{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}"#,
    );
    let not_json = write("broken.json", "{\"optim\": ");
    let args = sample("training_args.json");
    let missing = dir.join("missing.json").to_string_lossy().into_owned();
    for (argv, expected) in [
        (
            vec!["gpus=8", "--deepspeed", &both],
            format!("--deepspeed {both}: `bf16.enabled` and `fp16.enabled` cannot both be true"),
        ),
        (
            vec!["gpus=8", "--deepspeed", &batch],
            format!(
                "--deepspeed {batch}: `train_batch_size` 64 is not `train_micro_batch_size_per_gpu` 4 × `gradient_accumulation_steps` 4 × 8 GPUs (`gpus`)"
            ),
        ),
        (
            vec!["--training-args", &not_json],
            format!("--training-args {not_json}: the file is not valid JSON at byte 10"),
        ),
        (
            vec!["--deepspeed", &missing],
            format!("--deepspeed {missing}: "),
        ),
        (
            vec!["form=activations", "--training-args", &args],
            "the files describe the transformer form".to_owned(),
        ),
        (
            vec!["compare", "batch=1", "batch=2", "--training-args", &args],
            "apply to one query".to_owned(),
        ),
        (
            vec!["--deepspeed"],
            "a value is required for '--deepspeed <FILE>'".to_owned(),
        ),
    ] {
        let out = batchfit(&argv);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{argv:?}");
        assert!(stderr.contains(&expected), "{argv:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).expect("removed");
}

/// `timeline` (issue 16): the step point by point; its largest total is
/// `peak_allocated`, and each point's components add up to its total.
#[test]
fn json_carries_the_step_as_a_timeline() {
    let report = json(&[
        "--json",
        "form=transformer&model=llama-3.1-8b&batch=2&seq=2048",
    ]);
    let points = report["timeline"].as_array().expect("timeline");
    assert_eq!(points.len(), 66);
    assert_eq!(points[32]["phase"], "loss");
    let total = |p: &serde_json::Value| p["total"].as_u64().expect("bytes");
    let top = points.iter().map(total).max().expect("points");
    assert_eq!(top, report["peak_allocated"].as_u64().expect("bytes"));
    for p in points {
        let sum: u64 = p["bytes"]
            .as_object()
            .expect("components")
            .values()
            .map(|v| v.as_u64().expect("bytes"))
            .sum();
        assert_eq!(sum, total(p));
    }
}

const RUN: &str = "form=transformer&model=llama-3.2-1b&dropout=0&recipe=amp&optimizer=adamw&batch=4&seq=2048&step=foreach&recompute=none&attn=flash&loss=full&logits=fp32";

/// A checked-in measurement sample (crates/batchfit-core/tests/data/measured).
fn run_sample(name: &str) -> String {
    sample(&format!("measured/{name}"))
}

#[test]
fn measured_puts_each_reading_beside_the_estimate() {
    let estimate = json(&["--json", RUN]);
    let report = json(&["measured", RUN, &run_sample("memory_summary.txt"), "--json"]);
    let readings = report["readings"].as_array().expect("a list");
    assert_eq!(readings.len(), 2);
    for (row, reading, estimated, mib, line) in [
        (&readings[0], "allocated", "peak_allocated", 44_892_u64, 8),
        (&readings[1], "reserved", "peak_reserved", 45_568, 20),
    ] {
        let measured = mib << 20;
        let predicted = estimate[estimated].as_u64().expect("bytes");
        assert_eq!(row["reading"], reading);
        assert_eq!(row["peak"], true);
        assert_eq!(row["line"], line);
        assert_eq!(row["measured"], measured);
        assert_eq!(row["predicted"], predicted);
        assert_eq!(
            row["error_bytes"].as_i64(),
            Some(predicted as i64 - measured as i64)
        );
    }
    // The estimate is 0.1 % below the summary's peak allocated; what is left
    // of the backward pass's working tensors (up to 1.3 %) could make that
    // alone.
    assert_eq!(readings[0]["error_percent"], -0.1);
    let workspace = readings[0]["explanations"]
        .as_array()
        .expect("a list")
        .iter()
        .find(|x| x["term"] == "backward_workspace")
        .expect("listed");
    assert_eq!(workspace["fit"], "within");
    assert_eq!(workspace["up_to_percent"], 1.3);
    // The text says the same.
    let out = batchfit(&["measured", RUN, &run_sample("memory_summary.txt")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("measured peak allocated, line 8: 47.07 GB (47,072,673,792 bytes)"),
        "{text}"
    );
    assert!(text.contains("(−0.1 % of the run)"), "{text}");
    // In the words the page uses for the term: the core's one name for it.
    let workspace = batchfit_core::measured::Term::BackwardWorkspace.label();
    assert!(
        text.contains(&format!("within its size  {workspace}")),
        "{text}"
    );
}

#[test]
fn measured_reads_stdin_and_takes_the_reading_of_bare_numbers() {
    use std::io::Write as _;
    let run = |args: &[&str], input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_batchfit"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("written");
        child.wait_with_output().expect("it ends")
    };
    let out = run(&["measured", RUN, "-", "--json"], "46123 MiB\n");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("batchfit: - line 1: a number without a label"),
        "{stderr}"
    );
    let out = run(
        &["measured", RUN, "-", "--json", "--reading", "nvidia_smi"],
        "46123\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["readings"][0]["measured"], 46_123_u64 << 20);
    assert_eq!(report["readings"][0]["peak"], false);
}

#[test]
fn measured_bad_input_exits_2_naming_the_file_and_line() {
    for (args, expected) in [
        (
            vec!["measured", RUN, &run_sample("bad_unit.txt") as &str],
            "bad_unit.txt line 1: the unit must be one of: B, bytes, kB, MB, GB, TB, KiB, MiB, GiB, TiB",
        ),
        (
            vec!["measured", RUN, &run_sample("bad_nvidia_smi_two_gpus.txt")],
            "line 14: a second, different value of nvidia-smi (the first on line 10)",
        ),
        (
            vec![
                "measured",
                RUN,
                &run_sample("bad_nvidia_smi_header_only.txt"),
            ],
            "bad_nvidia_smi_header_only.txt: no reading found; give a number of bytes",
        ),
        (
            vec!["measured", RUN, "/nonexistent/run.txt"],
            "/nonexistent/run.txt: ",
        ),
        (
            vec!["measured", RUN],
            "the following required arguments were not provided:\n  <FILE>",
        ),
        (
            vec!["measured", RUN, "-", "--reading", "peak"],
            "[possible values: allocated, reserved, nvidia_smi]",
        ),
        (
            vec!["devices", RUN, "--reading", "allocated"],
            "unexpected argument '--reading'",
        ),
        (
            vec!["measured", "batch=-1", &run_sample("print_bytes.txt")],
            "`batch` must be from 1",
        ),
    ] {
        let out = batchfit(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}
/// Issue 28: inference is advised as inference. Qwen2.5-7B serving 4 ×
/// 32,768 tokens on one RTX 4090: tensor parallelism over 2 GPUs is a
/// what-if and a fix, and nothing offers ZeRO or counts tokens per
/// optimizer step; a smaller batch costs sequences served at once.
#[test]
fn inference_advice_offers_tensor_parallelism_and_no_zero() {
    let query = "form=transformer&model=qwen2.5-7b&mode=inference&batch=4&seq=32768&gpu=rtx-4090&max_gpus=8";
    let report = json(&["--json", query]);
    assert_eq!(report["fits"], false);
    let what_ifs = report["what_ifs"].as_array().expect("what_ifs");
    let tp = what_ifs
        .iter()
        .find(|w| w["change"] == "tp_2")
        .expect("tensor parallelism over 2 GPUs");
    assert_eq!(tp["fits"], true);
    assert!(tp["query"].as_str().expect("query").contains("tp=2"));
    assert!(
        what_ifs
            .iter()
            .all(|w| !w["change"].as_str().expect("name").starts_with("zero"))
    );
    let fixes = report["fixes"].as_array().expect("fixes");
    assert!(
        fixes
            .iter()
            .any(|f| f["levers"] == serde_json::json!([{ "name": "tp", "tp": 2 }]))
    );
    for fix in fixes {
        assert_eq!(fix["costs"]["tokens_per_step_lost"], 0, "{fix}");
        for lever in fix["levers"].as_array().expect("levers") {
            assert_ne!(lever["name"], "zero", "{fix}");
        }
        let again = json(&["--json", fix["query"].as_str().expect("query")]);
        assert_eq!(again["fits"], true, "{fix}");
    }
    let batch = fixes
        .iter()
        .find(|f| f["levers"][0]["name"] == "batch")
        .expect("a smaller batch");
    assert_eq!(batch["costs"]["sequences_lost"], 3);
    let text = String::from_utf8(batchfit(&[query]).stdout).expect("utf-8");
    assert!(text.contains("tensor parallelism over 2 GPUs"), "{text}");
    assert!(text.contains("batch 1 (sequences at once)"), "{text}");
    assert!(!text.contains("per optimizer step"), "{text}");
    assert!(!text.contains("ZeRO"), "{text}");
}

/// Inference's timeline (issue 28): the prefill's working set is freed
/// before the first generated token; every generation moment holds a
/// step's working set and a growing cache.
#[test]
fn the_inference_timeline_frees_the_prefill_before_generating() {
    let report = json(&[
        "--json",
        "form=transformer&model=qwen2.5-7b&mode=inference&batch=1&seq=30720&gen=2048",
    ]);
    let points = report["timeline"].as_array().expect("a timeline");
    let bytes = |p: &serde_json::Value, term: &str| p["bytes"][term].as_u64().expect("bytes");
    assert_eq!(points[0]["phase"], "prefill");
    let prefill = bytes(&points[0], "activations");
    let generation: Vec<_> = points
        .iter()
        .filter(|p| p["phase"] == "generation")
        .collect();
    assert!(generation.len() >= 2, "{report}");
    for point in &generation {
        assert!(bytes(point, "activations") * 100 < prefill, "{point}");
    }
    for pair in generation.windows(2) {
        assert!(bytes(pair[0], "kv_cache") < bytes(pair[1], "kv_cache"));
    }
}

/// Issue 16: Llama-3.1-8B in AMP on one H100. Every single change but QLoRA
/// is still too big; `fixes` lists combinations that fit, each with its
/// query (which fits when run again) and what it costs. Issue 28: on the
/// one GPU the job has, those that fit even at the pessimistic end of the
/// validation range first, each with the host RAM its offloads need.
#[test]
fn fixes_combine_levers_and_say_what_each_costs() {
    let query = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&recipe=amp";
    let report = json(&["--json", query]);
    assert_eq!(report["fits"], false);
    let fixes = report["fixes"].as_array().expect("fixes");
    assert_eq!(fixes.len(), 5);
    // The first keeps the full fine-tune on the card alone.
    let first = &fixes[0];
    assert_eq!(
        first["levers"],
        serde_json::json!([{ "name": "full_recompute" }, { "name": "batch", "batch": 2 }, { "name": "bf16" }, { "name": "adam8bit" }])
    );
    assert_eq!(
        (&first["fits_pessimistic"], &first["cpu_memory"]),
        (&serde_json::json!(true), &serde_json::json!(0))
    );
    // Parameter offload needs host RAM the query does not give: it follows
    // the fixes that need none. The FP32 parameters, gradients and Adam
    // moments on the host: 16 bytes for each of the 8,030,261,248 parameters.
    let offload = fixes
        .iter()
        .position(|f| {
            f["levers"]
                == serde_json::json!([{ "name": "param_offload" }, { "name": "batch", "batch": 2 }])
        })
        .expect("parameter offload");
    assert!(fixes[..offload].iter().all(|f| f["cpu_memory"] == 0));
    let offload = &fixes[offload];
    assert_eq!(offload["fits_pessimistic"], true);
    assert_eq!(offload["cpu_memory"], 16 * 8_030_261_248_u64);
    assert_eq!(offload["host_memory"], offload["cpu_memory"]);
    let costs = &offload["costs"];
    assert_eq!(
        (&costs["accumulation_steps"], &costs["tokens_per_step"]),
        (&serde_json::json!(8), &serde_json::json!(32_768))
    );
    assert_eq!(
        (&costs["extra_gpus"], &costs["pcie_bytes"]),
        (
            &serde_json::json!(0),
            &serde_json::json!(513_936_719_872_u64)
        )
    );
    let mut seen_optimistic = false;
    for fix in fixes {
        let again = json(&["--json", fix["query"].as_str().expect("query")]);
        assert_eq!(again["fits"], true, "{fix}");
        assert_eq!(again["required"], fix["required"]);
        // The report names `cpu_memory` only where an offload applies.
        assert_eq!(again["cpu_memory"].as_u64().unwrap_or(0), fix["cpu_memory"]);
        // Those that fit at the pessimistic end come first.
        let sure = fix["fits_pessimistic"].as_bool().expect("a bool");
        assert!(!(sure && seen_optimistic), "{fix}");
        seen_optimistic |= !sure;
        assert_eq!(fix["costs"]["extra_gpus"], 0, "{fix}");
    }
    // The single changes carry their costs too: full recomputation adds
    // 31.16 % of the step's FLOPs.
    let checkpointing = report["what_ifs"]
        .as_array()
        .expect("what_ifs")
        .iter()
        .find(|w| w["change"] == "checkpointing")
        .expect("listed");
    assert_eq!(checkpointing["costs"]["recompute_share_bp"], 3116);
    // The text lists them, the least costly first, with their links.
    let out = batchfit(&[query]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("the pessimistic end first):\n  1. full recomputation + micro-batch 2 + BF16 + 8-bit AdamW: 57.48 GB required\n"),
        "{text}"
    );
    assert!(
        text.contains("  2. parameters offloaded to CPU + micro-batch 2: 46.72 GB required\n    needs 128.48 GB of host RAM (give host_gb to bound the advice)"),
        "{text}"
    );
    assert!(
        text.contains("    query: form=transformer&model=llama-3.1-8b&batch=2&seq=2048&param_offload=1&gpu=h100-80gb&global_batch=16"),
        "{text}"
    );
    assert!(
        text.contains("recomputation 31.16 % of the step's FLOPs"),
        "{text}"
    );
}

/// A model with sliding-window layers under vLLM: its groups in the JSON,
/// and the tokens vLLM counts (blocks ÷ groups × block size) apart from the
/// longest request in the text.
#[test]
fn vllm_states_the_groups_of_a_hybrid_model() {
    let query =
        "form=transformer&model=gpt-oss-20b&framework=vllm&gpu=h100-80gb&max_model_len=131072";
    let plan = &json(&["--json", query])["serving"];
    assert_eq!(
        plan["kv_cache_groups"],
        serde_json::json!({
            "layers_per_group": 12, "full_attention": 1, "sliding_window": 1, "linear": 0,
            "window": 128
        })
    );
    let blocks = plan["blocks"].as_u64().expect("blocks");
    assert_eq!(plan["kv_cache_tokens"], blocks / 2 * 16);
    assert!(plan["max_seq"].as_u64().expect("max_seq") > blocks / 2 * 16);
    let text = String::from_utf8_lossy(&batchfit(&[query]).stdout).into_owned();
    assert!(
        text.contains("blocks of 16 tokens shared by 2 groups of 12 layers"),
        "{text}"
    );
}

/// A model with linear layers under vLLM and SGLang: the state of one
/// request in the JSON and the text, the groups of linear layers, and the
/// attention's block raised to hold a layer's state.
#[test]
fn a_hybrid_model_states_its_linear_state() {
    let query =
        "form=transformer&model=qwen3-next-80b-a3b&framework=vllm&gpu=h200&tp=2&max_model_len=32k";
    let plan = &json(&["--json", query])["serving"];
    assert_eq!(plan["linear_state_per_request"], 19_759_104);
    assert_eq!(plan["block_size"], 544);
    assert_eq!(plan["kv_cache_groups"]["linear"], 3);
    let text = String::from_utf8_lossy(&batchfit(&[query]).stdout).into_owned();
    assert!(
        text.contains("blocks of 544 tokens shared by 4 groups of 12 layers (linear layers hold one block of state a request)"),
        "{text}"
    );
    assert!(
        text.contains("Linear layers' state: 19.76 MB per request, whatever its length."),
        "{text}"
    );
    let sglang = query.replace("framework=vllm", "framework=sglang");
    let plan = &json(&["--json", &sglang])["serving"];
    assert_eq!(plan["linear_state_per_request"], 38_633_472);
}

/// Issue 29: `framework=vllm` answers with vLLM's memory plan: its parts fill
/// the budget, its concurrency is the one the engine logs, and where the
/// engine would refuse to start the text gives the engine's own reason.
#[test]
fn vllm_states_its_plan_and_its_refusals() {
    let query = "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090&max_model_len=8k";
    let plan = &json(&["--json", query])["serving"];
    let at = |key: &str| {
        plan[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {plan}"))
    };
    assert_eq!(
        at("weights")
            + at("activation_peak")
            + at("non_torch")
            + at("cuda_graphs")
            + at("kv_cache_pool"),
        at("budget")
    );
    assert_eq!(at("budget"), 22_844_591_308);
    assert_eq!(at("kv_bytes_per_token"), 131_072);
    assert_eq!(at("kv_cache_tokens"), 42_064);
    assert_eq!(plan["max_concurrency"], 5.13);
    assert_eq!(at("concurrent_requests"), 5);
    assert_eq!(at("max_seq"), 42_064);
    assert_eq!(
        at("process"),
        at("budget") + at("outside_budget") + at("cuda_graphs")
    );
    assert!(plan.get("refusal").is_none(), "{plan}");
    let text = String::from_utf8(batchfit(&[query]).stdout).expect("utf-8");
    assert!(
        text.contains("Serves 5 requests of 8,192 tokens at once (maximum concurrency 5.13x"),
        "{text}"
    );
    // generate()'s batch does not apply to a serving engine.
    assert!(!text.contains("Largest batch"), "{text}");

    let long = "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090&max_model_len=128k";
    let refusal = &json(&["--json", long])["serving"]["refusal"];
    assert_eq!(refusal["reason"], "max_model_len");
    assert!(
        refusal["message"]
            .as_str()
            .expect("message")
            .contains("the estimated maximum model length is 42064"),
        "{refusal}"
    );
    // What would make it start: the longest max_model_len that fits.
    let what_ifs = json(&["--json", long])["serving"]["what_ifs"].clone();
    let shorter = what_ifs
        .as_array()
        .expect("what_ifs")
        .iter()
        .find(|w| w["change"] == "max_model_len")
        .unwrap_or_else(|| panic!("{what_ifs}"))
        .clone();
    assert_eq!(shorter["flag"], "--max-model-len 42064");
    assert_eq!(shorter["concurrent_requests"], 1);
    assert!(
        shorter["query"]
            .as_str()
            .expect("query")
            .contains("max_model_len=42064")
    );
    let text = String::from_utf8(batchfit(&[long]).stdout).expect("utf-8");
    assert!(
        text.contains("vLLM would not start: To serve at least one request"),
        "{text}"
    );
    // The sweep over request lengths: 8,192 tokens is the plan's own row.
    let sweep = plan["sweep"].as_array().expect("sweep");
    let row = sweep
        .iter()
        .find(|r| r["max_model_len"] == 8_192)
        .expect("the 8,192-token row");
    assert_eq!(row["concurrent_requests"], 5);
    assert_eq!(sweep.last().expect("a last row")["fits"], false);
    // Every GPU's plan: the RTX 4090 holds 42,064 tokens, the T4 does not start.
    let devices = json(&["devices", query, "--json"]);
    let rows = devices.as_array().expect("rows");
    let on = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {devices}"))
    };
    assert_eq!(on("rtx-4090")["kv_cache_tokens"], 42_064);
    // Its budget is a share of what CUDA reports, 24,207 MiB, and the rows
    // go by it.
    assert_eq!(on("rtx-4090")["usable_bytes"], 25_382_879_232_u64);
    let usable: Vec<u64> = rows
        .iter()
        .filter_map(|r| r["usable_bytes"].as_u64())
        .collect();
    assert_eq!(usable.len(), rows.len());
    assert!(usable.is_sorted(), "{usable:?}");
    assert_eq!(on("t4")["starts"], false);
    assert!(rows.iter().all(|r| r["id"] != "apple-64gb"));
    // Without the profile, no plan.
    let generate = json(&[
        "--json",
        "form=transformer&model=llama-3.1-8b&mode=inference&gpu=rtx-4090",
    ]);
    assert!(generate.get("serving").is_none());
}

/// Issue 29: `batchfit measured` on a vLLM setup reads the engine's
/// start-up log and puts each stated term beside the plan.
/// An engine's start-up log in a temporary folder of its own: the folder
/// (removed by the test) and the file.
fn start_up_log(engine: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("batchfit-{engine}-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let log = dir.join(format!("{engine}.log"));
    std::fs::write(&log, text).expect("the log");
    (dir, log)
}

/// One term of `batchfit measured --json`'s comparison with a start-up log.
fn log_term<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["terms"]
        .as_array()
        .expect("terms")
        .iter()
        .find(|t| t["term"] == name)
        .unwrap_or_else(|| panic!("{name}: {report}"))
}

#[test]
fn measured_reads_a_vllm_start_up_log() {
    let query =
        "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090&max_model_len=8192";
    let (dir, log) = start_up_log(
        "vllm",
        "INFO [gpu_model_runner.py:2007] Model loading took 14.96 GiB memory and 4.2 seconds\n\
         INFO [gpu_worker.py:298] Available KV cache memory: 5.20 GiB\n\
         INFO [kv_cache_utils.py:864] GPU KV cache size: 42,592 tokens\n\
         INFO [kv_cache_utils.py:868] Maximum concurrency for 8,192 tokens per request: 5.20x\n",
    );
    let path = log.to_str().expect("a UTF-8 path");
    let report = json(&["measured", query, path, "--json"]);
    let term = |name: &str| log_term(&report, name);
    assert_eq!(term("weights")["error"], 0);
    assert_eq!(term("kv_cache_tokens")["planned"], 42_064);
    assert_eq!(term("kv_cache_tokens")["error"], 42_064 - 42_592);
    assert_eq!(term("max_concurrency")["logged"], 520);
    let text = String::from_utf8(batchfit(&["measured", query, path]).stdout).expect("utf-8");
    assert!(
        text.contains(
            "KV-cache size        log 42,592 tokens (line 3), plan 42,064 tokens: −528 tokens"
        ),
        "{text}"
    );
    // A file with none of the plan's lines is an error naming the file.
    std::fs::write(&log, "Loading safetensors checkpoint shards\n").expect("the log");
    let out = batchfit(&["measured", query, path]);
    // Bad input.
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no line of vLLM's start-up memory plan")
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A vLLM log whose start names FlashInfer's sampler, beside a plan that
/// assumes PyTorch's sort: `batchfit measured` says so and writes the query
/// with the log's setting; a log that agrees says nothing.
#[test]
fn measured_names_the_log_s_sampler() {
    let query =
        "form=transformer&model=llama-3.1-8b&framework=vllm&gpu=rtx-4090&max_model_len=8192";
    let (dir, log) = start_up_log(
        "vllm-sampler",
        "WARNING [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.\n\
         INFO [gpu_worker.py:298] Available KV cache memory: 5.77 GiB\n",
    );
    let path = log.to_str().expect("a UTF-8 path");
    let report = json(&["measured", query, path, "--json"]);
    assert_eq!(report["other_sampler"]["logged"], "flashinfer");
    assert_eq!(report["other_sampler"]["line"], 1);
    let stated = report["other_sampler"]["query"].as_str().expect("a query");
    assert!(stated.contains("flashinfer_sampler=1"), "{stated}");
    // The query it writes plans the log's start: its pool is larger.
    let planned = |q: &str| {
        json(&["--json", q])["serving"]["kv_cache_pool"]
            .as_u64()
            .expect("pool")
    };
    assert!(planned(stated) > planned(query));
    let text = String::from_utf8(batchfit(&["measured", query, path]).stdout).expect("utf-8");
    assert!(
        text.contains("The log's vLLM sampled with FlashInfer's sampler (line 1); the plan assumed PyTorch's sort"),
        "{text}"
    );
    let agreeing = json(&["measured", stated, path, "--json"]);
    assert!(agreeing.get("other_sampler").is_none(), "{agreeing}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `batchfit measured` with an SGLang query reads SGLang's start-up lines
/// (docs/cli.md): the pool's tokens and memory, and max_running_requests,
/// beside the plan.
#[test]
fn measured_reads_an_sglang_start_up_log() {
    let query =
        "form=transformer&model=llama-3.1-8b&framework=sglang&gpu=h100-80gb&max_model_len=8192";
    let (dir, log) = start_up_log(
        "sglang",
        "[TP0] KV Cache is allocated. #tokens: 400000, K size: 24.41 GB, V size: 24.41 GB\n\
         max_total_num_tokens=400000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, context_len=8192, available_gpu_mem=12.10 GB\n",
    );
    let path = log.to_str().expect("a UTF-8 path");
    let report = json(&["measured", query, path, "--json"]);
    let term = |name: &str| log_term(&report, name);
    assert_eq!(term("kv_cache_tokens")["planned"], 412_778);
    assert_eq!(term("kv_cache_tokens")["error"], 412_778 - 400_000);
    assert_eq!(term("max_running_requests")["error"], 0);
    let text = String::from_utf8(batchfit(&["measured", query, path]).stdout).expect("utf-8");
    assert!(
        text.contains("SGLang's start-up log beside batchfit's plan"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `cache_implementation=static` (issue 29): generate()'s static cache is
/// whole from the prefill on, so a long prompt's prefill holds more than the
/// default cache's; a quantized cache or a serving engine reports it.
#[test]
fn a_static_cache_is_read_and_bounded_by_its_rules() {
    let base =
        "form=transformer&model=llama-3.1-8b&mode=inference&recipe=bf16&batch=1&seq=16384&gen=4096";
    let dynamic = json(&["--json", base]);
    let fixed = json(&["--json", &format!("{base}&cache_implementation=static")]);
    assert!(
        fixed["query"]
            .as_str()
            .is_some_and(|q| q.ends_with("&cache_implementation=static")),
        "{}",
        fixed["query"]
    );
    assert_eq!(fixed["kv_cache"], dynamic["kv_cache"]);
    assert_eq!(fixed["peak_phase"], "prefill");
    assert!(fixed["peak_allocated"].as_u64() > dynamic["peak_allocated"].as_u64());
    for bad in [
        "&cache_implementation=static&kv_dtype=int8",
        "&cache_implementation=static&framework=vllm",
        "&cache_implementation=paged",
    ] {
        let out = batchfit(&["--json", &format!("{base}{bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cache_implementation"), "{bad}: {stderr}");
    }
}

/// Inference keeps no master copy: its line says the precision the recipe
/// loads the model in, FP32 under `fp32` and 16 bits under any other
/// (the weights 4 and 2 bytes a parameter).
#[test]
fn the_inference_line_says_the_precision_the_model_is_loaded_in() {
    let base = "form=transformer&model=llama-3.1-8b&mode=inference&gpu=l4";
    for (recipe, bits, weights) in [
        ("fp32", 32, 32_121_044_992_u64),
        ("amp", 16, 16_060_522_496),
        ("main_fp32", 16, 16_060_522_496),
    ] {
        let query = format!("{base}&recipe={recipe}");
        let out = batchfit(&[&query]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!(
                "recipe {recipe} (the model loaded in {bits} bits), quant none"
            )),
            "{text}"
        );
        assert_eq!(json(&["--json", &query])["weights"], weights, "{recipe}");
    }
}
