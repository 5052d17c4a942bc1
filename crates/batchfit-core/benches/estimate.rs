//! What the page recomputes on every keystroke, timed natively (issue 6's budget:
//! a full estimate plus the sweep, the exact max-batch search included, in
//! ≤ 20 µs). `cargo xtask bench` runs this and reads criterion's estimates.
//!
//! Each configuration names a device, so `memory::estimate` runs its binary
//! search for the largest batch that fits and the sweep runs up to it.

use std::hint::black_box;

use batchfit_core::query::{self, Config};
use batchfit_core::{advice, memory};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

/// One configuration per form, as URLs people share.
const CONFIGS: &[(&str, &str)] = &[
    (
        // Llama 3.1 8B, mixed precision, ZeRO-3 over 8 H100s, a target global batch.
        "transformer",
        "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&batch=4&seq=4096\
         &recompute=selective&gpus=8&zero=3&global_batch=512",
    ),
    (
        "parameters",
        "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=16&act_mb=500\
         &gpu=a100-80gb",
    ),
    (
        "activations",
        "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10\
         &gpu=h100-80gb",
    ),
];

fn configs() -> Vec<(&'static str, Config)> {
    CONFIGS
        .iter()
        .map(|&(name, url)| {
            let parsed = query::parse(url);
            assert!(parsed.problems.is_empty(), "{name}: {:?}", parsed.problems);
            (name, parsed.config)
        })
        .collect()
}

fn estimate_and_sweep(c: &mut Criterion) {
    let mut group = c.benchmark_group("estimate_sweep");
    for (name, config) in configs() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &config, |b, config| {
            b.iter(|| {
                let config = black_box(config);
                (memory::estimate(config), memory::sweep(config))
            });
        });
    }
    group.finish();
}

/// Everything the results panel shows, the "what would make it fit" list included.
fn with_what_ifs(c: &mut Criterion) {
    let mut group = c.benchmark_group("estimate_sweep_what_ifs");
    for (name, config) in configs() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &config, |b, config| {
            b.iter(|| {
                let config = black_box(config);
                (
                    memory::estimate(config),
                    memory::sweep(config),
                    memory::what_ifs(config),
                )
            });
        });
    }
    group.finish();
}

/// Reading the address bar and writing it back, which the page does per edit too.
fn url_round_trip(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_to_query");
    for &(name, url) in CONFIGS {
        group.bench_with_input(BenchmarkId::from_parameter(name), url, |b, url| {
            b.iter(|| query::to_query(&query::parse(black_box(url)).config));
        });
    }
    group.finish();
}

/// The smallest change that fits (issue 16, budget 1 ms for the transformer
/// form): Llama 3.1 8B in AMP on one H100, whose fixes are pairs of levers;
/// Qwen3-235B-A22B at 16 × 8,192 tokens on an A100, a mixture of experts
/// that needs more sets tried; DeepSeek-V3 at 64 × 32,768 tokens on a 24 GB
/// card, where only a shorter sequence with more GPUs fits.
fn fixes(c: &mut Criterion) {
    let mut group = c.benchmark_group("fixes");
    for (name, url) in [
        (
            "llama_amp_h100",
            "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&recipe=amp",
        ),
        (
            "qwen3_235b_a100",
            "form=transformer&model=qwen3-235b-a22b&gpu=a100-80gb&seq=8192",
        ),
        (
            "deepseek_v3_rtx_4090",
            "form=transformer&model=deepseek-v3&gpu=rtx-4090&batch=64&seq=32768",
        ),
    ] {
        let config = query::parse(url).config;
        group.bench_with_input(BenchmarkId::from_parameter(name), &config, |b, config| {
            b.iter(|| memory::fixes(black_box(config)));
        });
    }
    group.finish();
    // What the page and the CLI run on every change of a setup that does
    // not fit: the search at the validation range's pessimistic end, and
    // the estimate's where that leaves room (`advice::fixes`).
    let config = query::parse("form=transformer&model=llama-3.1-8b&gpu=h100-80gb").config;
    c.bench_function("advice_fixes/llama_h100", |b| {
        b.iter(|| advice::fixes(black_box(&config)));
    });
}

criterion_group!(
    benches,
    estimate_and_sweep,
    with_what_ifs,
    url_round_trip,
    fixes
);
criterion_main!(benches);
