use super::*;
use crate::memory;
use crate::query;
use proptest::prelude::*;

const MIB: u128 = 1 << 20;
const GIB: u128 = 1 << 30;

/// The checked-in samples (tests/data/measured/README.md says how each was written).
macro_rules! sample {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../tests/data/measured/", $name)),
        )
    };
}

fn m(reading: Reading, peak: bool, bytes: u128, line: u32) -> Measured {
    Measured {
        reading,
        peak,
        bytes,
        line,
    }
}

fn at(line: u32, problem: Problem) -> Error {
    Error {
        line: Some(line),
        problem,
    }
}

use Reading::{Allocated, NvidiaSmi, Reserved};

const UNREADABLE: Problem = Problem::Unreadable { forms: Form::ALL };

#[test]
fn every_sample_reads_as_its_expected_bytes() {
    let summary = vec![
        m(Allocated, true, 44_892 * MIB, 8),
        m(Reserved, true, 45_568 * MIB, 20),
    ];
    let smi = |line| vec![m(NvidiaSmi, false, 46_123 * MIB, line)];
    for ((name, text), unlabelled, want) in [
        (sample!("memory_summary.txt"), None, summary.clone()),
        (
            sample!("memory_summary_abbreviated.txt"),
            None,
            vec![
                m(Allocated, true, 44_892 * MIB, 8),
                m(Reserved, true, 45_568 * MIB, 14),
            ],
        ),
        // Earlier releases print KB/MB/GB for the same powers of 1024.
        (
            sample!("memory_summary_kb_mb_gb.txt"),
            None,
            vec![
                m(Allocated, true, 44_892 * MIB, 8),
                m(Reserved, true, 45_568 * MIB, 16),
            ],
        ),
        (sample!("nvidia_smi.txt"), None, smi(10)),
        (sample!("nvidia_smi_csv.txt"), None, smi(2)),
        (sample!("nvidia_smi_csv_nounits.txt"), None, smi(2)),
        (
            sample!("nvidia_smi_csv_noheader.txt"),
            Some(NvidiaSmi),
            smi(1),
        ),
        // nvidia-smi prints MiB only: a bare number chosen as its reading is MiB.
        (
            sample!("nvidia_smi_csv_noheader_nounits.txt"),
            Some(NvidiaSmi),
            smi(1),
        ),
        (
            sample!("print_bytes.txt"),
            None,
            vec![
                m(Allocated, true, 47_073_234_944, 1),
                m(Reserved, true, 47_781_511_168, 2),
            ],
        ),
        (
            sample!("print_gib.txt"),
            None,
            // 43.84 GiB = 4384 × 2^30 / 100, rounded to the byte; 44.50 GiB is exact.
            vec![
                m(Allocated, true, 47_072_841_564, 1),
                m(Reserved, true, 47_781_511_168, 2),
            ],
        ),
        (
            sample!("repl.txt"),
            None,
            vec![
                m(Allocated, true, 47_073_234_944, 2),
                m(Reserved, true, 47_781_511_168, 4),
            ],
        ),
        (
            sample!("fstring_equals.txt"),
            None,
            vec![
                m(Allocated, true, 47_073_234_944, 1),
                m(Allocated, false, 2_474_666_496, 2),
            ],
        ),
        (
            sample!("bare_grouped.txt"),
            Some(Allocated),
            vec![m(Allocated, false, 47_073_234_944, 1)],
        ),
        (
            sample!("bare_exponent.txt"),
            Some(Reserved),
            vec![m(Reserved, false, 12_000_000_000, 1)],
        ),
    ] {
        assert_eq!(parse(text, unlabelled), Ok(want), "{name}");
    }
}

#[test]
fn every_bad_sample_names_its_problem() {
    let unlabelled = Problem::Unlabelled { allowed: LABELS };
    for ((name, text), hint, want) in [
        // "used" names no reading: torchao prints max_memory_allocated so.
        (
            sample!("bad_used.txt"),
            None,
            at(1, Problem::UnknownLabel { allowed: LABELS }),
        ),
        (
            sample!("bad_fraction.txt"),
            None,
            at(1, Problem::NotWholeBytes),
        ),
        (
            sample!("bad_unit.txt"),
            None,
            at(1, Problem::UnknownUnit { allowed: UNITS }),
        ),
        (sample!("bad_two_numbers.txt"), None, at(1, unlabelled)),
        (
            sample!("bad_two_numbers.txt"),
            Some(Allocated),
            at(
                2,
                Problem::Ambiguous {
                    reading: Allocated,
                    peak: false,
                    first_line: 1,
                },
            ),
        ),
        // A log line's number is not a reading: its label names none.
        (
            sample!("bad_log_line.txt"),
            None,
            at(1, Problem::UnknownLabel { allowed: LABELS }),
        ),
        (
            sample!("bad_csv_two_gpus.txt"),
            None,
            at(
                3,
                Problem::Ambiguous {
                    reading: NvidiaSmi,
                    peak: false,
                    first_line: 2,
                },
            ),
        ),
        (
            sample!("bad_nvidia_smi_two_gpus.txt"),
            None,
            at(
                14,
                Problem::Ambiguous {
                    reading: NvidiaSmi,
                    peak: false,
                    first_line: 10,
                },
            ),
        ),
        (sample!("bad_summary_cut.txt"), None, at(8, UNREADABLE)),
        (
            sample!("bad_nvidia_smi_header_only.txt"),
            None,
            Error {
                line: None,
                problem: Problem::Empty { forms: Form::ALL },
            },
        ),
    ] {
        assert_eq!(parse(text, hint), Err(want), "{name}");
    }
}

fn one(text: &str) -> Result<u128, Problem> {
    match parse(text, Some(Allocated)) {
        Ok(read) => Ok(read[0].bytes),
        Err(e) => Err(e.problem),
    }
}

#[test]
fn units_are_decimal_or_binary_as_written() {
    for (text, bytes) in [
        ("12.3 GB", 12_300_000_000),
        ("12.3GB", 12_300_000_000),
        ("12.3 gb", 12_300_000_000),
        ("11.46 GiB", 12_305_081_303),
        ("12345 MiB", 12_345 * MIB),
        ("512 KiB", 512 * 1024),
        ("2 kB", 2_000),
        ("2 KB", 2_000),
        ("3 TB", 3_000_000_000_000),
        ("1 TiB", 1 << 40),
        ("0 B", 0),
        ("7 bytes", 7),
        ("1.2e10", 12_000_000_000),
        ("1.5E3 MB", 1_500_000_000),
        ("2e-1 GB", 200_000_000),
        ("0.5 B", 1),
        ("0.49 B", 0),
        ("123456", 123_456),
        ("1,234,567", 1_234_567),
    ] {
        assert_eq!(one(text), Ok(bytes), "{text}");
    }
    for (text, problem) in [
        ("12 G", Problem::UnknownUnit { allowed: UNITS }),
        ("12 PB", Problem::UnknownUnit { allowed: UNITS }),
        ("11.46", Problem::NotWholeBytes),
        ("1e-1", Problem::NotWholeBytes),
        ("12.3 GB!", UNREADABLE),
        ("Epoch 1: loss 2.31", UNREADABLE),
        ("1,5", UNREADABLE),
        ("12,34,567", UNREADABLE),
        ("1e100", UNREADABLE),
        ("123456789012345678901", UNREADABLE),
        ("2e19", Problem::TooLarge { max: MAX_READING }),
        ("20 EB", Problem::UnknownUnit { allowed: UNITS }),
        ("16777216 TiB", Problem::TooLarge { max: MAX_READING }),
    ] {
        assert_eq!(one(text), Err(problem), "{text}");
    }
}

#[test]
fn labels_name_the_reading_and_whether_it_is_the_peak() {
    for (text, reading, peak) in [
        ("max_memory_allocated: 1", Allocated, true),
        ("torch.cuda.max_memory_allocated() = 1", Allocated, true),
        ("torch.cuda.max_memory_allocated(0): 1", Allocated, true),
        ("MAX MEMORY ALLOCATED 1", Allocated, true),
        ("Peak allocated: 1", Allocated, true),
        ("max_memory_reserved: 1", Reserved, true),
        ("max_memory_cached: 1", Reserved, true),
        ("Peak reserved 1", Reserved, true),
        ("memory_allocated: 1", Allocated, false),
        ("torch.cuda.memory_reserved()=1", Reserved, false),
        ("GPU reserved memory: 1", Reserved, false),
        ("memory.used [MiB]: 1", NvidiaSmi, false),
        (">>> torch.cuda.max_memory_reserved() 1", Reserved, true),
    ] {
        let want = m(reading, peak, if reading == NvidiaSmi { MIB } else { 1 }, 1);
        assert_eq!(parse(text, None), Ok(vec![want]), "{text}");
    }
    let unknown = Problem::UnknownLabel { allowed: LABELS };
    for text in [
        "Max memory used: 1 GB",
        "allocated reserved: 1",
        "peak: 1",
        "loss: 1",
        "max_memory_allocated(: 1",
        "memory.used [MiB: 1",
    ] {
        assert_eq!(parse(text, None), Err(at(1, unknown)), "{text}");
    }
    assert_eq!(
        parse("memory.used [GiBs]", None),
        Err(at(1, Problem::UnknownUnit { allowed: UNITS }))
    );
    // A line with no number and no label is not a reading.
    assert_eq!(parse(">>> import torch", None), Err(at(1, UNREADABLE)));
}

#[test]
fn a_label_alone_names_the_bare_numbers_right_after_it() {
    let text = "memory.used [MiB]\n10\n10\n\n20";
    // The blank line ends the header's reach: 20 is unlabelled.
    assert_eq!(
        parse(text, None),
        Err(at(5, Problem::Unlabelled { allowed: LABELS }))
    );
    assert_eq!(
        parse(text, Some(Allocated)),
        Ok(vec![
            m(NvidiaSmi, false, 10 * MIB, 2),
            m(Allocated, false, 20, 5)
        ])
    );
    // A labelled line ends it too.
    let text = "max_memory_allocated\nmax_memory_reserved: 5\n7";
    assert_eq!(
        parse(text, None),
        Err(at(3, Problem::Unlabelled { allowed: LABELS }))
    );
}

#[test]
fn the_same_value_twice_counts_once_and_two_readings_stand_together() {
    let text =
        "max_memory_allocated: 5\nPeak allocated: 5 B\nmemory_allocated: 3\nmax_memory_reserved: 8";
    assert_eq!(
        parse(text, None),
        Ok(vec![
            m(Allocated, true, 5, 1),
            m(Allocated, false, 3, 3),
            m(Reserved, true, 8, 4)
        ])
    );
    let text = format!(
        "{}{}",
        include_str!("../../tests/data/measured/memory_summary.txt"),
        "max_memory_allocated: 1"
    );
    assert_eq!(
        parse(&text, None),
        Err(at(
            48,
            Problem::Ambiguous {
                reading: Allocated,
                peak: true,
                first_line: 8
            }
        ))
    );
}

#[test]
fn long_pastes_are_refused_whole() {
    let long = "1\n".repeat(MAX_BYTES);
    assert_eq!(
        parse(&long, Some(Allocated)),
        Err(Error {
            line: None,
            problem: Problem::TooLong {
                max_bytes: MAX_BYTES
            }
        })
    );
    let many = "\n".repeat(MAX_LINES + 1);
    assert!(many.len() <= MAX_BYTES);
    assert_eq!(
        parse(&many, None),
        Err(Error {
            line: None,
            problem: Problem::TooManyLines {
                max_lines: MAX_LINES
            }
        })
    );
    assert_eq!(
        parse("", None),
        Err(Error {
            line: None,
            problem: Problem::Empty { forms: Form::ALL }
        })
    );
}

/// 102 GB allocated (28 GB of gradients), 102.4 GB reserved (0.4 GB of
/// allocator cache), 103.4 GB on nvidia-smi (1 GB overhead).
/// A configuration every term of these tests can apply to: a decoder in
/// training under autocast on 8 GPUs with ZeRO-3, full recomputation, a
/// paged optimizer, compiled.
fn every_term() -> Config {
    let parsed = query::parse(
        "form=transformer&model=llama-3.1-8b&recipe=amp&gpus=8&zero=3&compile=1&recompute=full&optimizer=paged_adamw_8bit",
    );
    assert_eq!(parsed.problems, []);
    parsed.config
}

fn napkin() -> Estimate {
    let config = query::parse(
        "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=4&act_mb=1000",
    )
    .config;
    let e = memory::estimate(&config);
    assert_eq!(
        (e.peak_allocated, e.peak_reserved, e.nvidia_smi, e.gradients),
        (
            102_000_000_000,
            102_400_000_000,
            103_400_000_000,
            28_000_000_000
        )
    );
    e
}

fn fits(c: &Comparison) -> Vec<(Term, Fit)> {
    c.explanations
        .iter()
        .map(|x| (x.info.term, x.fit))
        .collect()
}

fn fit_of(c: &Comparison, term: Term) -> Option<Fit> {
    fits(c)
        .into_iter()
        .find(|(t, _)| *t == term)
        .map(|(_, f)| f)
}

#[test]
fn the_error_is_the_estimate_minus_the_run_over_the_run() {
    let e = napkin();
    let c = compare(&every_term(), &e, &m(Allocated, true, 105_000_000_000, 1));
    assert_eq!(c.predicted, 102_000_000_000);
    assert_eq!(c.error, -3_000_000_000);
    // −3 / 105 = −2.857 %: −28.6 tenths, rounded away from zero.
    assert_eq!(c.error_tenths, Some(-29));
    let c = compare(&every_term(), &e, &m(Reserved, true, 100_000_000_000, 1));
    assert_eq!((c.error, c.error_tenths), (2_400_000_000, Some(24)));
    let c = compare(&every_term(), &e, &m(NvidiaSmi, false, 0, 1));
    assert_eq!(c.error_tenths, None);
    // No difference: nothing to explain.
    let c = compare(&every_term(), &e, &m(Allocated, true, 102_000_000_000, 1));
    assert!(c.explanations.is_empty());
}

#[test]
fn terms_of_the_difference_s_sign_and_size_explain_it() {
    let e = napkin();
    // The run 3 % above the estimate's 102 GB: 105.15 GB. What is left of
    // the backward pass's working tensors (1.3 % on G039) explains part of
    // it, gradients alive through the run all of it.
    let c = compare(&every_term(), &e, &m(Allocated, true, 105_154_639_175, 1));
    assert_eq!(c.error_tenths, Some(-30));
    assert_eq!(fit_of(&c, Term::LiveGradients), Some(Fit::Within));
    assert_eq!(fit_of(&c, Term::BackwardWorkspace), Some(Fit::Part));
    // Low and Either terms of no stated size; never a High term.
    assert_eq!(fit_of(&c, Term::Zero3Buffers), Some(Fit::Unsized));
    assert_eq!(fit_of(&c, Term::TorchCompile), Some(Fit::Unsized));
    assert_eq!(fit_of(&c, Term::NormStatistics), Some(Fit::Unsized));
    // A loop that keeps the model's output: the run holds logits the query
    // does not.
    assert_eq!(fit_of(&c, Term::KeptOutputs), Some(Fit::Unsized));
    assert_eq!(fit_of(&c, Term::RecomputeCasts), None);
    assert_eq!(fit_of(&c, Term::PagedOptimizer), None);
    // The allocator and the context are not in the allocated reading.
    assert_eq!(fit_of(&c, Term::AllocatorSlack), None);
    assert_eq!(fit_of(&c, Term::CudaContext), None);
    // Within first, then part, then unsized, each in the table's order.
    let order: Vec<u8> = c.explanations.iter().map(|x| x.fit as u8).collect();
    assert!(order.is_sorted(), "{order:?}");
    // 1.2 % above: within what is left of the backward pass's working
    // tensors.
    let c = compare(&every_term(), &e, &m(Allocated, true, 103_238_866_397, 1));
    assert_eq!(c.error_tenths, Some(-12));
    assert_eq!(fit_of(&c, Term::BackwardWorkspace), Some(Fit::Within));
    // 5 % above: more than the backward pass's 1.3 % can make alone.
    let c = compare(&every_term(), &e, &m(Allocated, true, 107_368_421_053, 1));
    assert_eq!(c.error_tenths, Some(-50));
    assert_eq!(fit_of(&c, Term::BackwardWorkspace), Some(Fit::Part));
    assert_eq!(fit_of(&c, Term::LiveGradients), Some(Fit::Within));
    // The estimate 5 % high: terms the estimate counts and a run may not
    // hold (autocast's copies under recomputation, of no stated size),
    // nothing the run would hold beyond the estimate.
    let c = compare(&every_term(), &e, &m(Allocated, true, 97_142_857_143, 1));
    assert_eq!(c.error_tenths, Some(50));
    assert_eq!(fit_of(&c, Term::RecomputeCasts), Some(Fit::Unsized));
    assert_eq!(fit_of(&c, Term::PagedOptimizer), Some(Fit::Unsized));
    assert_eq!(fit_of(&c, Term::BackwardWorkspace), None);
    assert_eq!(fit_of(&c, Term::LiveGradients), None);
    assert_eq!(fit_of(&c, Term::KeptOutputs), None);
    let casts = c
        .explanations
        .iter()
        .find(|x| x.info.term == Term::RecomputeCasts)
        .and_then(|x| x.range);
    assert_eq!(casts, None, "no size, no range");
}

#[test]
fn the_allocator_and_the_context_explain_either_way_within_their_ranges() {
    let e = napkin();
    let slack = |measured| {
        fit_of(
            &compare(&every_term(), &e, &m(Reserved, true, measured, 1)),
            Term::AllocatorSlack,
        )
    };
    // Slack from 0 % to 25 % of the 4 GB of transients against 10 %: the
    // estimate from 0.6 GB low to 0.4 GB high.
    assert_eq!(slack(102_900_000_000), Some(Fit::Within));
    assert_eq!(slack(103_000_000_000), Some(Fit::Within));
    assert_eq!(slack(103_500_000_000), Some(Fit::Part));
    assert_eq!(slack(102_100_000_000), Some(Fit::Within));
    assert_eq!(slack(101_900_000_000), Some(Fit::Part));
    // A context of 0.3 GB to 1,343 MiB against the 1 GB overhead.
    let context = |measured| {
        fit_of(
            &compare(&every_term(), &e, &m(NvidiaSmi, false, measured, 1)),
            Term::CudaContext,
        )
    };
    assert_eq!(context(103_000_000_000), Some(Fit::Within));
    assert_eq!(context(103_800_000_000), Some(Fit::Within));
    assert_eq!(context(104_000_000_000), Some(Fit::Part));
    assert_eq!(context(102_600_000_000), Some(Fit::Part));
    let c = compare(&every_term(), &e, &m(NvidiaSmi, false, 103_000_000_000, 1));
    let range = c
        .explanations
        .iter()
        .find(|x| x.info.term == Term::CudaContext)
        .and_then(|x| x.range);
    assert_eq!(
        range,
        Some((1_000_000_000 - 1343 * MIB as i128, 700_000_000))
    );
    // Every term shows in nvidia-smi's reading, which contains the others.
    assert_eq!(fit_of(&c, Term::AllocatorSlack), Some(Fit::Within));
    assert_eq!(fit_of(&c, Term::RecomputeCasts), Some(Fit::Unsized));
}

#[test]
fn the_table_lists_every_term_once_with_the_sizes_its_sources_state() {
    for term in Term::ALL {
        assert_eq!(
            TERMS.iter().filter(|t| t.term == *term).count(),
            1,
            "{term:?}"
        );
    }
    assert_eq!(TERMS.len(), Term::ALL.len());
    let accuracy = include_str!("../../../../docs/accuracy.md");
    let model = include_str!("../../../../docs/model.md");
    for info in TERMS {
        // References only, in no language: the page shows them in Spanish
        // too, beside its own translation of the note.
        for reference in info.source.split("; ") {
            let sections = reference
                .strip_prefix("docs/")
                .and_then(|r| r.split_once(".md"))
                .map(|(_, sections)| sections);
            assert!(
                sections
                    .is_some_and(|s| s.chars().all(|c| c.is_ascii_digit() || " ,.§".contains(c))),
                "{:?}: {reference:?}",
                info.term
            );
        }
        if let Size::Share { tenths } = info.size {
            let share = match tenths % 10 {
                0 => format!("{} %", tenths / 10),
                d => format!("{}.{d} %", tenths / 10),
            };
            // The note quotes the share, and docs/accuracy.md states it.
            assert!(info.note.contains(&share), "{:?}: {share}", info.term);
            assert!(accuracy.contains(&share), "{:?}: {share}", info.term);
            // docs/model.md §7's table says it too.
            assert!(
                model.contains(&format!("up to {share}")),
                "{:?}: {share}",
                info.term
            );
        }
    }
    for stated in [
        "0.3–0.5 GB",
        "1,343 MiB",
        "about 25 %",
        "10 % of those transient bytes",
        "(4–8 bytes per token)",
        "hundreds of MB",
    ] {
        assert!(model.contains(stated), "{stated}");
    }
}

/// Pieces of the forms, put together into near-valid lines.
fn near_valid_line() -> impl Strategy<Value = String> {
    let label = prop::sample::select(vec![
        "",
        "max_memory_allocated",
        "torch.cuda.max_memory_reserved()",
        "Peak reserved",
        "memory_allocated",
        "memory.used [MiB]",
        "memory.used [",
        ">>>",
        "| Allocated memory ",
        "| GPU reserved memory   |",
        "peak",
        "used",
        "|",
        "+--",
        "Tue Mar  4 12:34:56 2025",
    ]);
    let separator = prop::sample::select(vec!["", " ", ": ", "=", " = ", "|", " | "]);
    let number = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        (0u32..100_000, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        (1u32..10, 0i32..40).prop_map(|(a, e)| format!("{a}e{e}")),
        "[0-9,.eE+-]{0,24}",
    ];
    let unit = prop::sample::select(vec![
        "",
        " B",
        " MiB",
        "MiB",
        " GiB",
        " GB",
        " gb",
        " KB",
        " PiB",
        " G",
        " MiB / 81559MiB",
        " |",
    ]);
    (label, separator, number, unit).prop_map(|(l, s, n, u)| format!("{l}{s}{n}{u}"))
}

proptest! {
    /// Any text: an answer, never a panic; readings come with their lines.
    #[test]
    fn any_text_reads_or_names_its_problem(text in "\\PC{0,400}", hint in proptest::option::of(prop::sample::select(Reading::ALL.to_vec()))) {
        match parse(&text, hint) {
            Ok(read) => {
                prop_assert!(!read.is_empty());
                let lines = text.lines().count() as u32;
                for r in &read {
                    prop_assert!(r.line >= 1 && r.line <= lines && r.bytes <= MAX_READING);
                }
            }
            Err(e) => prop_assert!(e.line.is_none_or(|l| l >= 1 && l as usize <= text.lines().count())),
        }
    }

    /// Lines built from the forms' pieces: never a panic, and every reading
    /// is compared without overflow.
    #[test]
    fn near_valid_text_never_panics(lines in prop::collection::vec(near_valid_line(), 1..12), hint in proptest::option::of(prop::sample::select(Reading::ALL.to_vec()))) {
        let text = lines.join("\n");
        if let Ok(read) = parse(&text, hint) {
            let e = napkin();
            for r in &read {
                let c = compare(&every_term(), &e, r);
                prop_assert_eq!(c.error, c.predicted as i128 - r.bytes as i128);
            }
        }
    }

    /// A labelled number with a unit reads as exactly its bytes.
    #[test]
    fn labelled_numbers_read_exactly(whole in 0u64..1_000_000, hundredths in 0u64..100, unit in 0usize..4) {
        let (name, bytes) = [("B", 1u128), ("MB", 1_000_000), ("MiB", MIB), ("GiB", GIB)][unit];
        let text = format!("max_memory_reserved: {whole}.{hundredths:02} {name}");
        let exact = u128::from(whole * 100 + hundredths) * bytes;
        let rounded = exact / 100 + u128::from(exact % 100 >= 50);
        prop_assert_eq!(parse(&text, None), Ok(vec![m(Reserved, true, rounded, 1)]));
    }
}

/// Only the terms that can apply to the run are named (issue 28): a dense
/// single-GPU QLoRA run has no expert routing, pipeline, vision tower, NCCL
/// or latent cache to blame; a Mixtral run over 8 GPUs with a pipeline has.
#[test]
fn only_terms_that_can_apply_are_named() {
    let qlora = query::parse(
        "form=transformer&model=llama-3.1-8b&recipe=bf16&lora_rank=16&base_quant=nf4&recompute=full&gpu=rtx-4090",
    )
    .config;
    let e = memory::estimate(&qlora);
    let low = compare(&qlora, &e, &m(Allocated, true, e.peak_allocated * 3 / 2, 1));
    let named: Vec<Term> = fits(&low).into_iter().map(|(t, _)| t).collect();
    for absent in [
        Term::MoeRouting,
        Term::ExpertAdapters,
        Term::PipelineContextParallel,
        Term::VisionTower,
        Term::NcclBuffers,
        Term::LatentCache,
        Term::Zero3Buffers,
        Term::PreallocatedCache,
        Term::Fp8Recipes,
    ] {
        assert!(!named.contains(&absent), "{absent:?} in {named:?}");
    }
    assert!(named.contains(&Term::LiveGradients), "{named:?}");
    let moe = query::parse(
        "form=transformer&model=mixtral-8x7b&recipe=bf16&gpus=8&ep=8&pp=2&gpu=h100-80gb",
    )
    .config;
    let e = memory::estimate(&moe);
    let low = compare(&moe, &e, &m(Allocated, true, e.peak_allocated * 3 / 2, 1));
    let named: Vec<Term> = fits(&low).into_iter().map(|(t, _)| t).collect();
    for present in [Term::MoeRouting, Term::PipelineContextParallel] {
        assert!(named.contains(&present), "{present:?} not in {named:?}");
    }
}

/// fitcheck's QLoRA run V314 (docs/model.md §3.8) read without
/// `prepare_kbit`: 10,584.77 MiB measured, 8,522,902,528 B estimated. PEFT's
/// preparation is named with its exact size, the estimate with it less the
/// estimate without (2,704,944,128 B), and the difference is within it. It
/// is no cause once the query states it, nor without a quantized base.
#[test]
fn an_unstated_kbit_preparation_is_named_with_its_size() {
    let qlora = crate::memory::tests::FITCHECK_V314;
    let run = m(Allocated, true, 11_098_933_248, 1);
    let config = query::parse(qlora).config;
    let e = memory::estimate(&config);
    let found = compare(&config, &e, &run);
    let kbit = found
        .explanations
        .iter()
        .find(|x| x.info.term == Term::KbitPreparation)
        .expect("named");
    assert_eq!(kbit.fit, Fit::Within);
    assert_eq!(kbit.range, Some((-2_704_944_128, 0)));
    let stated = query::parse(&format!("{qlora}&prepare_kbit=1")).config;
    assert!(!Term::KbitPreparation.applies(&stated));
    let lora = query::parse(&qlora.replace("&base_quant=nf4&double_quant=0", "")).config;
    assert!(!Term::KbitPreparation.applies(&lora));
}
