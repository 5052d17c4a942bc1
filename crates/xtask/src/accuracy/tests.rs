use std::path::Path;

use batchfit_core::confidence::Reading as Measured;
use batchfit_core::memory::{self, Phase};
use batchfit_core::query;
use batchfit_core::serving;
use batchfit_core::transformer::Framework;
use batchfit_core::units::{Units, format_bytes};

use super::csv::{measured_bytes, read_csv};
use super::gpu::{GPU_SOURCE, estimated_phase, gpu_evaluate};
use super::preregistered::read_preregistered;
use super::published::evaluate;
use super::rows::{Reading, source_key};
use super::stats::{Summary, group_by, headline, median, percent_error, summarize};
use super::{DOCS_PATH, readme_matches, run};
use crate::confidence::{self, Sample};

fn report(csv: &str, preregistered_csv: &str) -> Result<String, String> {
    evaluate(csv, preregistered_csv).map(|e| e.text)
}

fn gpu_report(csv: &str, environment_json: &str) -> Result<String, String> {
    gpu_evaluate(csv, environment_json).map(|e| e.text)
}

#[test]
fn csv_fields_may_hold_quotes_commas_and_newlines() {
    let text = "id,model,notes\r\nC1,\"bert, large\",\"say \"\"hi\"\"\nagain\"\n\nC2,gpt2,\n";
    let records = read_csv(text).expect("valid CSV");
    assert_eq!(
        records,
        vec![
            vec!["id".to_owned(), "model".into(), "notes".into()],
            vec![
                "C1".to_owned(),
                "bert, large".into(),
                "say \"hi\"\nagain".into()
            ],
            vec!["C2".to_owned(), "gpt2".into(), String::new()],
        ]
    );
    assert!(read_csv("a,\"b\n").is_err());
    assert!(read_csv("a,b\"c\n").is_err());
}

#[test]
fn errors_and_medians() {
    assert_eq!(percent_error(110.0, 100.0), 10.0);
    assert_eq!(percent_error(90.0, 100.0), -10.0);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[]), None);
}

#[test]
fn units_convert_to_bytes() {
    assert_eq!(measured_bytes("14949", "MiB"), Ok(14949.0 * 1_048_576.0));
    assert_eq!(
        measured_bytes("2506.73664", "MB (1e6 B)"),
        Ok(2_506_736_640.0)
    );
    assert_eq!(measured_bytes("14.38", "GiB"), Ok(14.38 * 1_073_741_824.0));
    assert_eq!(measured_bytes("4702430720", "bytes"), Ok(4_702_430_720.0));
    assert!(measured_bytes("1", "furlongs").is_err());
}

const HEADER: &str = "id,source,source_ref,model,params,layers,hidden,heads,kv_heads,ffn,vocab,seq_len,mode,finetune_type,precision,optimizer,micro_batch,grad_accum,grad_ckpt,attention,num_gpus,sharding,gpu,value,unit,metric,incl_cuda_ctx,reliability,notes";

#[test]
fn rows_become_queries_and_like_is_compared_with_like() {
    let csv = format!(
        "{HEADER}\n\
         C002,HF,ref,\"bert-large-uncased (SeqCls, 2 labels)\",335.1M,24,1024,16,16,4096,30522,512,train,full,fp32,\"AdamW (HF adamw_hf, fp32 states)\",4,1,off,eager (BERT 2022),1,none,V100,14949,MiB,pynvml (= nvidia-smi; device-wide),yes (ctx alone = 1343 MiB),A,\n\
         C070,Qwen,ref,Qwen2.5-7B-Instruct,7.62B,28,3584,28,4,18944,152064,1 prompt + 2048 generated,\"inference (generate)\",n/a,bf16,none,1,,n/a,FlashAttention-2,1,none,A100,14.38,GiB,sum_i torch.cuda.max_memory_allocated(i),no,A,\n\
         V009,HF,ref,\"bert-large-uncased (SeqCls, 2 labels)\",335.1M,24,1024,16,16,4096,30522,512,train,full,fp32,\"AdamW (HF adamw_hf, fp32 states)\",1,4,off,eager (BERT 2022),1,none,V100,8681,MiB,pynvml (= nvidia-smi; device-wide),yes (ctx alone = 1343 MiB),A,\n\
         V027,HF,ref,mistralai/Mistral-7B-v0.1,7.24B,32,4096,32,8,14336,32000 (untied),4096 (packed),train (SFT),LoRA r=16,pure bf16,AdamW,4,1,on,FlashAttention-2,1,none,A100,26704571904,bytes,tracker,no,A,\n"
    );
    let report = report(&csv, "").expect("a report");
    assert!(report.contains("| C002 |"), "{report}");
    assert!(report.contains("kind=encoder&positions=512&token_types=2&labels=2&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=0"), "{report}");
    assert!(
        report.contains("(reserved + 1.312 GiB CUDA context)"),
        "{report}"
    );
    assert!(
        report.contains("mode=inference&seq=1&gen=2048&recipe=bf16"),
        "{report}"
    );
    assert!(
        report.contains("- V027 (mistralai/Mistral-7B-v0.1): LoRA/QLoRA"),
        "{report}"
    );
    assert!(
        report.contains("3 rows compared, 1 not comparable"),
        "{report}"
    );
    // No pre-registered row: the headline says so, and the two sources
    // (HF docs, Qwen) are both ones the model was written against.
    assert!(
        report.contains("No pre-registered source has a comparable row yet."),
        "{report}"
    );
    assert!(
        report.contains(
            "- Sources the model was written against, the current model: median over 2 sources"
        ),
        "{report}"
    );
    // Four micro-batches of one accumulate: the global batch says so.
    let v009 = report
        .lines()
        .find(|l| l.starts_with("| V009 |"))
        .expect("row");
    assert!(v009.contains("&batch=1&global_batch=4`"), "{v009}");
    assert!(
        report.contains("our own measurements on an H200"),
        "{report}"
    );
    // C070: 7.62B BF16 weights (14.18 GiB) + KV cache + prefill, against 14.38 GiB.
    let c070 = report
        .lines()
        .find(|l| l.starts_with("| C070 |"))
        .expect("row");
    assert!(
        c070.contains("| 14.38 GiB | 14.30 GiB | -0.6 % |"),
        "{c070}"
    );
    // Qwen's benchmark runs `generate`: the hf_generate profile, which
    // changes nothing the row does not already state.
    assert!(
        c070.contains("| `framework=hf_generate` | 14.30 GiB | -0.6 % |"),
        "{c070}"
    );

    // The validation samples: one per compared row, by the reading it
    // measured. A device-wide row is compared with batchfit's own
    // nvidia-smi reading (what the range is applied to), not with the
    // reserved bytes plus the context the source measured; a row of a
    // stack with a profile with the profile's estimate.
    let samples = evaluate(&csv, "").expect("a report").samples;
    let query_of = |line: &str| {
        let text = line.rsplit('`').nth(1).expect("a query").to_owned();
        query::parse(&text).config
    };
    let c002 = report
        .lines()
        .find(|l| l.starts_with("| C002 |"))
        .expect("row");
    let e002 = memory::estimate(&query_of(c002));
    let mut with_profile = query_of(c070);
    Framework::HfGenerate.apply(&mut with_profile.transformer);
    let e070 = memory::estimate(&with_profile);
    assert_eq!(
        samples,
        vec![
            Sample {
                source: "HF".into(),
                reading: Measured::NvidiaSmi,
                profile: Framework::Custom,
                measured: 14949.0 * 1_048_576.0,
                predicted: e002.nvidia_smi as f64,
            },
            Sample {
                source: "Qwen".into(),
                reading: Measured::Allocated,
                profile: Framework::HfGenerate,
                measured: 14.38 * 1_073_741_824.0,
                predicted: e070.peak_allocated as f64,
            },
            Sample {
                source: "HF".into(),
                reading: Measured::NvidiaSmi,
                profile: Framework::Custom,
                measured: 8681.0 * 1_048_576.0,
                predicted: memory::estimate(&query_of(v009)).nvidia_smi as f64,
            },
        ]
    );
}
#[test]
fn summaries_give_median_worst_and_shares() {
    // |errors| 5, 20, 8, 40: median (8 + 20) / 2 = 14; the worst is -40;
    // 5 and 8 are within 10 % (2 of 4), 5, 8 and 20 within 30 % (3 of 4).
    let s = summarize(&[5.0, -20.0, 8.0, -40.0]).expect("rows");
    assert_eq!(
        s,
        Summary {
            rows: 4,
            median: 14.0,
            worst: -40.0,
            within_10: 0.5,
            within_30: 0.75,
        }
    );
    // The limits are inclusive: 10 is within 10 %, 30.5 is not within 30 %.
    let s = summarize(&[10.0, -30.0, 30.5]).expect("rows");
    assert_eq!((s.median, s.worst), (30.0, 30.5));
    assert_eq!((s.within_10, s.within_30), (1.0 / 3.0, 2.0 / 3.0));
    assert_eq!(summarize(&[]), None);
}

#[test]
fn the_headline_is_the_median_of_per_source_medians() {
    let groups = group_by([
        ("A", 1.0),
        ("B", 20.0),
        ("A", -3.0),
        ("C", -50.0),
        ("A", 10.0),
        ("C", 40.0),
    ]);
    // Groups keep the order in which their sources first appear.
    assert_eq!(
        groups,
        vec![
            ("A", vec![1.0, -3.0, 10.0]),
            ("B", vec![20.0]),
            ("C", vec![-50.0, 40.0]),
        ]
    );
    // Per-source medians of |error|: A 3, B 20, C (40 + 50) / 2 = 45; their
    // median is 20, where the six rows pooled give (10 + 20) / 2 = 15.
    let h = headline(&groups).expect("a headline");
    assert_eq!(h.sources, 3);
    assert_eq!(h.median_of_medians, 20.0);
    assert_eq!(h.rows.rows, 6);
    assert_eq!(h.rows.median, 15.0);
    assert_eq!(h.rows.worst, -50.0);
    // 1, 3, 10 within 10 % (3 of 6); 20 too within 30 % (4 of 6).
    assert_eq!((h.rows.within_10, h.rows.within_30), (0.5, 4.0 / 6.0));
    // An even number of sources: the mean of the middle two medians.
    let two = headline(&group_by([("A", 2.0), ("B", -6.0), ("B", 6.0)])).expect("a headline");
    assert_eq!(two.median_of_medians, 4.0);
    assert_eq!(headline::<&str>(&[]), None);
}

#[test]
fn sources_are_keyed_by_their_name_before_the_parenthesis() {
    assert_eq!(
        source_key(
            "HF transformers docs 'Efficient Training on a Single GPU' (perf_train_gpu_one, ~v4.20-4.30) + 'Model training anatomy'"
        ),
        source_key(
            "HF transformers docs 'Efficient Training on a Single GPU' (perf_train_gpu_one, ~v4.20-4.30); same experiment series as C002/C005"
        ),
    );
    assert_eq!(
        source_key("NVIDIA/Megatron-LM functional-test golden values"),
        "NVIDIA/Megatron-LM functional-test golden values"
    );
}

const PREREG_HEADER: &str =
    "id,source,stack,predicted_at,query,reading,gpus_summed,predicted,comparable,reason,base_query";

#[test]
fn preregistered_rows_are_checked_when_read() {
    let good = format!(
        "{PREREG_HEADER}\n\
         P1,S,st,abc,form=transformer,reserved,2,123,yes,,\n\
         P2,S,st,abc,,allocated,,,no,LoRA is not modelled,form=transformer\n"
    );
    let rows = read_preregistered(&good).expect("valid");
    assert_eq!(rows[0].reading, Reading::Reserved);
    assert_eq!((rows[0].gpus_summed, rows[0].predicted), (2, Some(123.0)));
    assert_eq!((rows[1].gpus_summed, rows[1].predicted), (1, None));
    assert_eq!(rows[1].reason, "LoRA is not modelled");
    assert_eq!(read_preregistered(""), Ok(Vec::new()));
    let bad = |line: &str| read_preregistered(&format!("{PREREG_HEADER}\n{line}\n")).is_err();
    // A comparable row needs a query and a prediction in whole bytes.
    assert!(bad("P1,S,st,abc,,allocated,1,123,yes,,"));
    assert!(bad("P1,S,st,abc,form=transformer,allocated,1,,yes,,"));
    assert!(bad("P1,S,st,abc,form=transformer,allocated,1,1.5e9,yes,,"));
    // One that is not comparable says why and predicts nothing.
    assert!(bad("P1,S,st,abc,,allocated,1,,no,,"));
    assert!(bad("P1,S,st,abc,,allocated,1,123,no,why,"));
    assert!(bad("P1,S,st,abc,form=transformer,peak,1,123,yes,,"));
    assert!(bad("P1,S,st,abc,form=transformer,allocated,0,123,yes,,"));
    assert!(bad("P1,S,st,abc,form=transformer,allocated,1,123,maybe,,"));
}

#[test]
fn preregistered_rows_show_before_and_after_by_source() {
    let llama = "form=transformer&model=llama-2-7b&mode=inference&seq=6&gen=50&recipe=bf16&batch=1";
    let csv = format!(
        "{HEADER}\n\
         C070,Qwen,ref,Qwen2.5-7B-Instruct,7.62B,28,3584,28,4,18944,152064,1 prompt + 2048 generated,\"inference (generate)\",n/a,bf16,none,1,,n/a,FlashAttention-2,1,none,A100,14.38,GiB,sum_i torch.cuda.max_memory_allocated(i),no,A,\n\
         P001,Lit (table one),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,1,none,A100,10,GB,max_memory_allocated,no,B,\n\
         P002,Lit (table two),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,2,none,A100,20,GB,not stated,no,C,\n\
         P003,Lit (table three),ref,Llama 2 7B LoRA,7B,32,4096,32,32,11008,32000,1304,train,LoRA,bf16,AdamW,1,,off,sdpa,1,none,A100,30,GB,max_memory_allocated,no,B,\n"
    );
    let prereg = format!(
        "{PREREG_HEADER}\n\
         P001,Lit,Lit stack,abcdef1234567890,{llama},allocated,1,9000000000,yes,,\n\
         P002,Lit,Lit stack,abcdef1234567890,{llama},reserved,2,26000000000,yes,,\n\
         P003,Lit,LoRA stack,abcdef1234567890,,allocated,1,,no,LoRA is not modelled,\n"
    );
    let report = report(&csv, &prereg).expect("a report");
    let e = memory::estimate(&query::parse(llama).config);
    // Before: P001 9 GB against 10 GB is -10 %, P002 26 GB against 20 GB
    // +30 %; the one pre-registered source's median is 20 %, 1 of 2 rows
    // within 10 %, both within 30 %.
    assert!(
        report.contains("**On a stack the validation set does not cover, expect a median error of 20.0 %:** the median over the 1 pre-registered source"),
        "{report}"
    );
    assert!(report.contains("(at `abcdef12`); 50 % of their 2 comparable rows are within 10 % and 100 % within 30 % (1 of those rows come from sources that do not state their metric)"), "{report}");
    assert!(
        report.contains("- Pre-registered sources, predictions at registration: median over 1 source 20.0 %; 2 rows, 50 % within 10 %, 100 % within 30 %; pooled median over rows 20.0 %."),
        "{report}"
    );
    // After: the current model on the same queries, P002 summed over two GPUs'
    // peak reserved.
    let after = [
        percent_error(e.peak_allocated as f64, 10e9),
        percent_error(2.0 * e.peak_reserved as f64, 20e9),
    ];
    let now = summarize(&after).expect("rows");
    let source = report
        .lines()
        .find(|l| l.starts_with("| Lit | pre-registered at `abcdef12` |"))
        .unwrap_or_else(|| panic!("no source line in {report}"));
    assert!(
        source.contains(&format!(
            "| Lit stack; LoRA stack | 2 of 3 | 20.0 % | +30.0 % | {:.1} % | {:+.1} % |",
            now.median, now.worst
        )),
        "{source}"
    );
    // The source written against is reported apart, with no "before".
    assert!(
        report.contains("| Qwen | written against | HF transformers generate | 1 of 1 | — | — |"),
        "{report}"
    );
    // Per source and stack: the LoRA row counts as not comparable there.
    assert!(
        report.contains("| Lit | LoRA stack | 0 | 1 | — | — | — | — |"),
        "{report}"
    );
    let p002 = report
        .lines()
        .find(|l| l.starts_with("| P002 | Lit |"))
        .expect("a pre-registered line");
    assert_eq!(
        p002,
        format!(
            "| P002 | Lit | not stated (compared as peak allocated), summed over 2 GPUs | {} | {} (`abcdef12`) | +30.0 % | {} | {:+.1} % |",
            format_bytes(20_000_000_000, Units::Binary),
            format_bytes(26_000_000_000, Units::Binary),
            format_bytes(2 * e.peak_reserved, Units::Binary),
            after[1]
        )
    );
    assert!(
        report.contains("- P003 (pre-registered) (Llama 2 7B LoRA): LoRA is not modelled."),
        "{report}"
    );
    assert!(
        report.contains("3 rows compared, 1 not comparable"),
        "{report}"
    );
    // A prediction for a row that is not in measurements.csv is an error.
    let orphan = format!("{PREREG_HEADER}\nP999,Lit,st,abc,{llama},allocated,1,1,yes,,\n");
    assert!(report_err(&csv, &orphan).contains("P999"));
}

const PREREG_AFTER_HEADER: &str = "id,source,stack,predicted_at,query,reading,gpus_summed,predicted,comparable,reason,base_query,query_after,query_after_at,reason_after";

#[test]
fn queries_written_after_registration_are_checked_when_read() {
    let good = format!(
        "{PREREG_AFTER_HEADER}\n\
         P1,S,st,abc,form=transformer,allocated,1,123,yes,,,,,\n\
         P2,S,st,abc,,allocated,1,,no,LoRA is not modelled,form=transformer,form=transformer&lora_rank=8,def,\n\
         P3,S,st,abc,,allocated,1,,no,QLoRA is not modelled,,,,paged AdamW is not modelled\n"
    );
    let rows = read_preregistered(&good).expect("valid");
    assert_eq!(
        (rows[0].query_after.as_str(), rows[0].predicted),
        ("", Some(123.0))
    );
    assert_eq!(
        (
            rows[1].query_after.as_str(),
            rows[1].query_after_at.as_str(),
            rows[1].predicted
        ),
        ("form=transformer&lora_rank=8", "def", None)
    );
    assert_eq!(rows[2].reason_after, "paged AdamW is not modelled");
    // The old layout, without the three columns, still reads.
    let old = format!("{PREREG_HEADER}\nP1,S,st,abc,form=transformer,allocated,1,123,yes,,\n");
    assert_eq!(read_preregistered(&old).expect("valid")[0].query_after, "");
    let bad = |line: &str| read_preregistered(&format!("{PREREG_AFTER_HEADER}\n{line}\n")).is_err();
    // A row compared at registration keeps its registered query: a later
    // query sets each registered parameter in its order and may append
    // others; a registered value it changes needs a reason_after.
    let row = |after: &str, reason: &str| {
        format!("P1,S,st,abc,form=transformer&batch=2,allocated,1,123,yes,,,{after},def,{reason}")
    };
    for after in [
        "form=transformer&batch=2",
        "form=transformer",
        "batch=2&form=transformer",
        "form=transformer&batch=2&batch=4",
        "form=transformer&batch=4",
    ] {
        assert!(bad(&row(after, "")), "{after}");
    }
    // An appended setting needs no reason, and gets none.
    let appended = "form=transformer&batch=2&grad_accum_fusion=0";
    assert!(bad(&row(appended, "the source sets it")));
    let restated = read_preregistered(&format!("{PREREG_AFTER_HEADER}\n{}\n", row(appended, "")))
        .expect("an appended setting is a restatement");
    assert_eq!(
        (restated[0].query_after.as_str(), restated[0].predicted),
        (appended, Some(123.0))
    );
    // A changed value, with the reason the source gives.
    let changed = "form=transformer&batch=4&recompute=op";
    let restated = read_preregistered(&format!(
        "{PREREG_AFTER_HEADER}\n{}\n",
        row(changed, "the source's policy; a value since def")
    ))
    .expect("a changed value with its reason");
    assert_eq!(
        restated[0].reason_after,
        "the source's policy; a value since def"
    );
    assert!(bad(
        "P1,S,st,abc,form=transformer,allocated,1,123,yes,,,,,still fine"
    ));
    // The later query names the commit whose model expresses it, and back.
    assert!(bad("P2,S,st,abc,,allocated,1,,no,LoRA,,form=transformer,,"));
    assert!(bad("P2,S,st,abc,,allocated,1,,no,LoRA,,,def,"));
    // A row with a later query is comparable: no reason after.
    assert!(bad(
        "P2,S,st,abc,,allocated,1,,no,LoRA,,form=transformer,def,why"
    ));
    // The prediction of registration stays empty for it.
    assert!(bad(
        "P2,S,st,abc,,allocated,1,5,no,LoRA,,form=transformer,def,"
    ));
}

#[test]
fn rows_made_comparable_later_count_now_and_never_before() {
    let llama = "form=transformer&model=llama-2-7b&mode=inference&seq=6&gen=50&recipe=bf16&batch=1";
    let lora =
        "form=transformer&model=llama-2-7b&batch=1&seq=512&recipe=bf16&lora_rank=8&lora_dropout=1";
    let estimate = |q: &str| memory::estimate(&query::parse(q).config).peak_allocated;
    let (a, b) = (estimate(llama), estimate(lora));
    // Measured, in bytes: P001 exactly batchfit's reading (0 % now), P002
    // twice it (-50 % now), P003 0.8 of the LoRA query's (+25 % now).
    let m3 = (0.8 * b as f64).round() as u128;
    let csv = format!(
        "{HEADER}\n\
         P001,Lit (table one),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,1,none,A100,{a},bytes,max_memory_allocated,no,B,\n\
         P002,Lit (table two),ref,Llama 2 7B,7B,32,4096,32,32,11008,32000,6 prompt + 50 generated,inference,n/a,bf16,none,1,,n/a,sdpa,1,none,A100,{},bytes,max_memory_allocated,no,B,\n\
         P003,Lit (table three),ref,Llama 2 7B LoRA,7B,32,4096,32,32,11008,32000,512,train,LoRA,bf16,AdamW,1,,off,sdpa,1,none,A100,{m3},bytes,max_memory_allocated,no,B,\n\
         P004,Lit (table three),ref,Llama 2 7B QLoRA,7B,32,4096,32,32,11008,32000,512,train,QLoRA,bf16,PagedAdamW,1,,off,sdpa,1,none,A100,9,GB,max_memory_allocated,no,B,\n",
        2 * a
    );
    // At registration: P001 predicted 5 % low, P002 20 % high.
    let prereg = format!(
        "{PREREG_AFTER_HEADER}\n\
         P001,Lit,Lit stack,abcdef1234567890,{llama},allocated,1,{},yes,,,,,\n\
         P002,Lit,Lit stack,abcdef1234567890,{llama},allocated,1,{},yes,,,,,\n\
         P003,Lit,LoRA stack,abcdef1234567890,,allocated,1,,no,LoRA is not modelled,,{lora},fedcba9876543210,\n\
         P004,Lit,LoRA stack,abcdef1234567890,,allocated,1,,no,QLoRA is not modelled,,,,paged AdamW is not modelled\n",
        (0.95 * a as f64).round() as u128,
        (1.2 * (2 * a) as f64).round() as u128,
    );
    let report = report(&csv, &prereg).expect("a report");
    let line = |start: &str| {
        report
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line {start} in {report}"))
            .to_owned()
    };
    // Before: |-5|, |+20| → median 12.5 %, 1 of 2 within 10 %, 2 of 2
    // within 30 %; P003 is not among them.
    assert!(
        report.contains(
            "expect a median error of 12.5 %:** the median over the 1 pre-registered source of"
        ),
        "{report}"
    );
    assert!(report.contains("(at `abcdef12`); 50 % of their 2 comparable rows are within 10 % and 100 % within 30 % (0 of those rows come from sources that do not state their metric). 1 more row became comparable after registration through a change to the model (at `fedcba98`)"), "{report}");
    assert_eq!(
        line("- Pre-registered sources, predictions at registration"),
        "- Pre-registered sources, predictions at registration: median over 1 source 12.5 %; 2 rows, 50 % within 10 %, 100 % within 30 %; pooled median over rows 12.5 %."
    );
    // Now: 0, -50, +25 → median 25 %, 1 of 3 within 10 %, 2 of 3 within 30 %.
    assert_eq!(
        line("- Pre-registered sources, the current model:"),
        "- Pre-registered sources, the current model: median over 1 source 25.0 %; 3 rows (1 of them made comparable by a change to the model since registration, at `fedcba98`), 33 % within 10 %, 67 % within 30 %; pooled median over rows 25.0 %."
    );
    // Now on the two rows of registration: 0, -50 → median 25 %.
    assert_eq!(
        line("- Pre-registered sources, the current model on the rows compared at registration:"),
        "- Pre-registered sources, the current model on the rows compared at registration: median over 1 source 25.0 %; 2 rows, 50 % within 10 %, 50 % within 30 %; pooled median over rows 25.0 %."
    );
    // Per source: "before" over P001 and P002, "now" over all three; the
    // last column compares the same two rows (12.5 % → 25 %: worse).
    assert_eq!(
        line("| Lit | pre-registered"),
        "| Lit | pre-registered at `abcdef12` | Lit stack; LoRA stack | 3 of 4 (1 since `fedcba98`) | 12.5 % | +20.0 % | 25.0 % | -50.0 % | 33 % | 67 % | worse |"
    );
    assert_eq!(
        line("| Lit | Lit stack |"),
        "| Lit | Lit stack | 2 | 0 | 12.5 % | +20.0 % | 25.0 % | -50.0 % |"
    );
    assert_eq!(
        line("| Lit | LoRA stack |"),
        "| Lit | LoRA stack | 1 (1 since `fedcba98`) | 1 | not comparable at registration | not comparable at registration | 25.0 % | +25.0 % |"
    );
    // Per row: compared on its later query, listed with the pre-registered
    // ones, with no prediction at registration.
    assert!(
        line("| P003 | Llama 2 7B LoRA |")
            .ends_with(&format!("| +25.0 % | — | — | — | `{lora}` |"))
    );
    assert_eq!(
        line("| P003 | Lit |"),
        format!(
            "| P003 | Lit | peak allocated | {} | not comparable at registration (query from `fedcba98`) | — | {} | +25.0 % |",
            format_bytes(m3, Units::Binary),
            format_bytes(b, Units::Binary)
        )
    );
    // The row that stays out says why now, and why at registration.
    assert!(
        report.contains("- P004 (pre-registered) (Llama 2 7B QLoRA): paged AdamW is not modelled (at registration: QLoRA is not modelled)."),
        "{report}"
    );
    assert!(
        report.contains("3 rows compared, 1 not comparable"),
        "{report}"
    );
}

#[test]
fn check_fails_when_a_generated_file_is_stale() {
    let root = std::env::temp_dir().join(format!("batchfit-accuracy-{}", std::process::id()));
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for dir in ["validation", "docs", "crates/batchfit-core/src/confidence"] {
        std::fs::create_dir_all(root.join(dir)).expect("a temporary directory");
    }
    for file in [
        "validation/measurements.csv",
        "validation/preregistered.csv",
        "validation/gpu-measurements.csv",
        "validation/gpu-environment.json",
        "README.md",
    ] {
        std::fs::copy(real.join(file), root.join(file)).expect("a copy");
    }
    // Nothing generated yet: stale; generated: up to date.
    assert!(run(&root, true).expect_err("stale").contains(DOCS_PATH));
    run(&root, false).expect("written");
    run(&root, true).expect("up to date");
    // A hand edit of the table is caught, and only the table is named.
    let table = root.join(confidence::TABLE_PATH);
    let text = std::fs::read_to_string(&table).expect("the table");
    std::fs::write(
        &table,
        text.replace("MIN_ROWS: u32 = 10", "MIN_ROWS: u32 = 9"),
    )
    .expect("written");
    let stale = run(&root, true).expect_err("stale");
    assert!(
        stale.starts_with(&format!("{} differs", confidence::TABLE_PATH)),
        "{stale}"
    );
    // So is a README whose accuracy figures are not the headline's.
    let readme = root.join("README.md");
    let text = std::fs::read_to_string(&readme).expect("the README");
    std::fs::write(
        &readme,
        text.replace("**Accuracy.**", "**Accuracy.** 99.9 %,"),
    )
    .expect("written");
    assert!(run(&root, false).expect_err("stale").contains("99.9"));
    std::fs::remove_dir_all(&root).expect("removed");
}

#[test]
fn engine_log_rows_are_compared_with_the_serving_plan() {
    let serve = "form=transformer&model=llama-3.1-8b&mode=inference&framework=vllm&gpu=h100-80gb&max_model_len=8192";
    let plan = serving::plan(&query::parse(serve).config).expect("a plan");
    let csv = format!(
        "{HEADER}\n\
         P1,vLLM log (one),ref,Llama-3.1-8B,8B,32,4096,32,8,14336,128256,8192,inference,n/a,bf16,none,1,,n/a,flash,1,none,H100,15,GiB,Model loading took,no,A,\n\
         P2,vLLM log (one),ref,Llama-3.1-8B,8B,32,4096,32,8,14336,128256,8192,inference,n/a,bf16,none,1,,n/a,flash,1,none,H100,1.5,GiB,PyTorch activation peak memory takes,no,A,\n\
         P3,vLLM log (one),ref,Llama-3.1-8B,8B,32,4096,32,8,14336,128256,8192,inference,n/a,bf16,none,1,,n/a,flash,1,none,H100,50,GiB,Available KV cache memory,no,A,\n"
    );
    let row = |id: &str, reading: &str, bytes: u128| {
        format!("{id},vLLM log,vLLM V1,abcdef1234567890,{serve},{reading},1,{bytes},yes,,")
    };
    let prereg = format!(
        "{PREREG_HEADER}\n{}\n{}\n{}\n",
        row("P1", "engine_weights", plan.weights),
        row("P2", "engine_activation_peak", plan.activation_peak),
        row("P3", "engine_kv_cache_pool", plan.kv_cache_pool),
    );
    let report = report(&csv, &prereg).expect("a report");
    let gib = |bytes: u128| format_bytes(bytes, Units::Binary);
    for (id, metric, bytes) in [
        ("P1", "engine log: weights loaded", plan.weights),
        (
            "P2",
            "engine log: profiling run's activation peak",
            plan.activation_peak,
        ),
        ("P3", "engine log: KV cache pool", plan.kv_cache_pool),
    ] {
        let line = report
            .lines()
            .find(|l| l.starts_with(&format!("| {id} | Llama-3.1-8B | {metric} |")))
            .unwrap_or_else(|| panic!("{id}'s row in {report}"));
        assert!(line.contains(&gib(bytes)), "{line}");
    }
    // Predicted exactly at registration and now: no change for P3.
    let p3 = percent_error(plan.kv_cache_pool as f64, 50.0 * f64::from(1u32 << 30));
    assert!(report.contains(&format!("{p3:+.1} %")), "{report}");
    // The round's lines count the rows registered at its commits only.
    let at_round = prereg.replacen(
        "P3,vLLM log,vLLM V1,abcdef1234567890",
        "P3,vLLM log,vLLM V1,a6e935f88648c008ae47fcd0c59f81f83ece7ba1",
        1,
    );
    let report = evaluate(&csv, &at_round).expect("a report").text;
    assert!(
        report.contains(&format!(
            "- Sources registered in this round (`50dc47ca`, `a6e935f8`, `65feeac7`, `f22311c5`, `c2e726ec`), predictions \
             at registration: median over 1 source {:.1} %; 1 rows,",
            p3.abs()
        )),
        "{report}"
    );
    // An engine's reading needs a query that gives a plan.
    let generate = "form=transformer&model=llama-3.1-8b&mode=inference&gpu=h100-80gb";
    let prereg = format!(
        "{PREREG_HEADER}\nP3,vLLM log,vLLM V1,abcdef1234567890,{generate},engine_kv_cache_pool,1,1,yes,,\n"
    );
    assert!(report_err(&csv, &prereg).contains("row P3: an engine's reading needs"));
}

fn report_err(csv: &str, prereg: &str) -> String {
    report(csv, prereg).expect_err("an error")
}

const GPU_HEADER: &str = "id,model,mode,recipe,optimizer,step,recompute,attn,batch,seq,gen,parameters,weights_allocated,peak_allocated,peak_reserved,device_used,peak_forward,saved_for_backward,peak_backward,gradients_allocated,peak_step,seconds_per_step,error,query";
const ENVIRONMENT: &str = r#"{"gpu": "NVIDIA H200", "total_bytes": 150109880320, "context_bytes": 552402944, "torch": "2.11.0+cu130", "cuda": "13.0", "transformers": "5.17.0", "python": "3.12.3", "allocator_conf": "", "date": "2026-11-29"}"#;

#[test]
fn gpu_rows_compare_both_readings_and_the_phase() {
    let bert = "form=transformer&model=bert-large&dropout=1&labels=2&recipe=fp32&optimizer=adamw&batch=4&seq=512&step=foreach&recompute=none&attn=flash&loss=full&logits=fp32";
    let generate = "form=transformer&model=qwen2.5-0.5b&dropout=0&recipe=bf16&optimizer=none&batch=16&seq=512&mode=inference&gen=256";
    let csv = format!(
        "{GPU_HEADER}\n\
         G035,bert-large,train,fp32,adamw,foreach,none,sdpa,4,512,0,335143938,1410601472,7507341312,8160018432,8974565376,7446497792,3344753664,7507341312,1341387264,6776167936,0.12,,{bert}\n\
         G044,qwen2.5-0.5b,inference,bf16,none,foreach,none,sdpa,16,512,256,494032768,1064872960,1465692160,1541406720,2416771072,,,,,,20.0495,,{generate}\n\
         G051,llama-3.1-8b,train,fp32,adamw,foreach,none,sdpa,64,8192,0,,,,,,,,,,,,\"OutOfMemoryError: CUDA out of memory, tried to allocate 1 GiB\",form=transformer&model=llama-3.1-8b&recipe=fp32&batch=64&seq=8192\n"
    );
    let report = gpu_report(&csv, ENVIRONMENT).expect("a report");
    let config = |q: &str| query::parse(q).config;
    let (e035, e044) = (
        memory::estimate(&config(bert)),
        memory::estimate(&config(generate)),
    );
    let row = |id: &str| {
        report
            .lines()
            .find(|l| l.starts_with(&format!("| {id} |")))
            .unwrap_or_else(|| panic!("no row {id} in {report}"))
            .to_owned()
    };
    // BERT: the backward pass set the measured peak (7,507,341,312 bytes
    // against 7,446,497,792 forward and 6,776,167,936 at the step).
    let g035 = row("G035");
    let allocated = percent_error(e035.peak_allocated as f64, 7_507_341_312.0);
    let reserved = percent_error(e035.peak_reserved as f64, 8_160_018_432.0);
    assert!(
        g035.starts_with(&format!(
            "| G035 | bert-large, fp32, adamw foreach, sdpa, 4 × 512 | 6.992 GiB | {} | {allocated:+.1} % | 7.600 GiB | {} | {reserved:+.1} % | backward | {} |",
            format_bytes(e035.peak_allocated, Units::Binary),
            format_bytes(e035.peak_reserved, Units::Binary),
            estimated_phase(e035.peak_phase),
        )),
        "{g035}"
    );
    assert!(row("G044").contains("| generation | generation |"));
    assert_eq!(e044.peak_phase, Phase::Prefill);
    assert!(row("G044").contains("qwen2.5-0.5b, generate, bf16, 16 × (512 + 256 generated)"));
    // A run that failed is listed, not compared.
    assert!(
        report.contains("over 2 runs (1 failed, listed below)"),
        "{report}"
    );
    assert!(
        report.contains(
            "- G051 (llama-3.1-8b, fp32, adamw foreach, sdpa, 64 × 8192): OutOfMemoryError: CUDA out of memory, tried to allocate 1 GiB"
        ),
        "{report}"
    );
    // The medians of two runs are the means of their absolute errors.
    let errors = [
        allocated.abs(),
        percent_error(e044.peak_allocated as f64, 1_465_692_160.0).abs(),
    ];
    assert!(
        report.contains(&format!(
            "**Median absolute error: {:.1} % (peak allocated)",
            (errors[0] + errors[1]) / 2.0
        )),
        "{report}"
    );
    // One line per value of each factor.
    assert!(report.contains("| recipe | bf16 | 1 |"), "{report}");
    assert!(report.contains("| mode | train | 1 |"), "{report}");
    assert!(
        report.contains(
            "NVIDIA H200 (139.80 GiB = 150109880320 bytes), PyTorch 2.11.0+cu130, CUDA 13.0, transformers 5.17.0, Python 3.12.3, the default caching allocator (`PYTORCH_CUDA_ALLOC_CONF` unset); CUDA context 526.81 MiB (552402944 bytes); measured 2026-11-29."
        ),
        "{report}"
    );
    assert!(report.contains("`python3 validation/gpu/measure.py OUT`"));
    // Each run that completed gives a sample of each allocator reading,
    // one source for all of them; the failed run gives none.
    let samples = gpu_evaluate(&csv, ENVIRONMENT).expect("a report").samples;
    let got: Vec<(Measured, f64, f64)> = samples
        .iter()
        .map(|s| (s.reading, s.measured, s.predicted))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                Measured::Allocated,
                7_507_341_312.0,
                e035.peak_allocated as f64
            ),
            (
                Measured::Reserved,
                8_160_018_432.0,
                e035.peak_reserved as f64
            ),
            (
                Measured::Allocated,
                1_465_692_160.0,
                e044.peak_allocated as f64
            ),
            (
                Measured::Reserved,
                1_541_406_720.0,
                e044.peak_reserved as f64
            ),
        ]
    );
    assert!(
        samples
            .iter()
            .all(|s| s.source == GPU_SOURCE && s.profile == Framework::Custom)
    );
    // Bad input is an error, not a panic.
    assert!(gpu_report(&csv, "{").is_err());
    assert!(gpu_report(&format!("{GPU_HEADER}\nG1,gpt2,train,amp,adamw,foreach,none,sdpa,8,1024,0,1,1,lots,1,1,1,1,1,1,1,1,,form=transformer"), ENVIRONMENT).is_err());
}

#[test]
fn the_readme_gives_the_headline_s_figures() {
    let docs = "# A\n\n## Headline\n\n- median over 27 sources 11.4 %; 42 % within 10 %\n\n## Next\n\n99 %\n";
    let readme = |text: &str| format!("# batchfit\n\n{text}\n\nmore 12.8 %\n");
    assert_eq!(
        readme_matches(
            &readme("**Accuracy.** 11.4 % over 27 sources, 42 % within 10 %."),
            docs
        ),
        Ok(())
    );
    // A figure from outside the headline, or an old one, is stale.
    let err = readme_matches(&readme("**Accuracy.** 12.8 % over 27 sources, 99 %."), docs)
        .expect_err("stale");
    assert!(err.contains("12.8, 99"), "{err}");
    assert!(readme_matches("# batchfit\n", docs).is_err());
}
