use super::*;
use crate::query;

const DS_ZERO2_OFFLOAD: &str = include_str!("../../tests/data/deepspeed_zero2_offload.json");
const HF_ZERO2_AUTO: &str = include_str!("../../tests/data/hf_zero2_auto.json");
const HF_ZERO3_AUTO: &str = include_str!("../../tests/data/hf_zero3_auto.json");
const TRAINING_ARGS: &str = include_str!("../../tests/data/training_args.json");
const TRAINING_ARGS_FSDP: &str = include_str!("../../tests/data/training_args_fsdp.json");

const LLAMA: Context = Context {
    hidden: Some(4096),
    gpus: 8,
};

fn read(deepspeed: Option<&str>, training_args: Option<&str>, context: &Context) -> Imported {
    files(
        &Files {
            deepspeed,
            training_args,
        },
        context,
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

fn not_modelled(key: &'static str, elements: Option<u64>) -> Note {
    Note::NotModelled { key, elements }
}

fn auto(key: &'static str, needs: Needs) -> Note {
    Note::Auto { key, needs }
}

/// The file's query, with the query's model and GPUs before it, reads back
/// without a problem, and writing the configuration and reading it again
/// gives the same configuration.
fn round_trips(imported: &Imported, context: &Context) {
    let full = format!(
        "form=transformer&model=llama-3.1-8b&gpus={}&{}",
        context.gpus,
        imported.query()
    );
    let parsed = query::parse(&full);
    assert_eq!(parsed.problems, [], "{full}");
    let again = query::parse(&query::to_query(&parsed.config));
    assert_eq!(again.problems, [], "{full}");
    assert_eq!(again.config, parsed.config, "{full}");
}

#[test]
fn each_sample_maps_to_its_query() {
    let ta = TRAINING_ARGS;
    let two = Context {
        hidden: Some(4096),
        gpus: 2,
    };
    let no_hidden = Context {
        hidden: None,
        gpus: 8,
    };
    for (deepspeed, training_args, context, query, notes) in [
        (
            Some(DS_ZERO2_OFFLOAD),
            None,
            LLAMA,
            // 4 × 2 × 8 GPUs = 64; two 5e8-element buckets with overlap_comm.
            "framework=deepspeed&zero=2&offload=1&recipe=amp16&batch=4&global_batch=64&bucket_m=1000&optimizer=adamw&step=fused",
            vec![],
        ),
        (
            Some(HF_ZERO2_AUTO),
            None,
            LLAMA,
            // No TrainingArguments: the "auto" sizes and precision stay the query's.
            "framework=deepspeed&zero=2&offload=1&bucket_m=400&optimizer=adamw&step=fused",
            vec![
                auto("bf16.enabled", Needs::TrainingArgs),
                auto("fp16.enabled", Needs::TrainingArgs),
                auto("train_micro_batch_size_per_gpu", Needs::TrainingArgs),
                auto("gradient_accumulation_steps", Needs::TrainingArgs),
                auto("train_batch_size", Needs::TrainingArgs),
            ],
        ),
        (
            Some(HF_ZERO2_AUTO),
            Some(ta),
            two,
            // The Trainer fills the "auto"s: 4 per GPU, 8 steps, bf16, 4 × 8 × 2 = 64.
            "framework=deepspeed&batch=4&global_batch=64&recompute=full&recipe=amp16&optimizer=adamw&step=fused&zero=2&offload=1&bucket_m=400",
            vec![],
        ),
        (
            Some(HF_ZERO3_AUTO),
            Some(ta),
            LLAMA,
            // 0.9 × hidden² = 0.9 × 4096² floored, 10 × hidden, and
            // hidden² = 16,777,216 rounded up to 17 million, one buffer at
            // stage 3 (overlap_comm does not double it there).
            "framework=deepspeed&batch=4&global_batch=256&recompute=full&recipe=amp16&optimizer=adamw&step=fused&zero=3&offload=1&param_offload=1&ds_prefetch=15099494&ds_live=1000000000&ds_persist=40960&bucket_m=17",
            vec![
                not_modelled(
                    "zero_optimization.stage3_max_reuse_distance",
                    Some(1_000_000_000),
                ),
                not_modelled("zero_optimization.sub_group_size", Some(1_000_000_000)),
            ],
        ),
        (
            Some(HF_ZERO3_AUTO),
            Some(ta),
            no_hidden,
            // The live budget is a number; the "auto" sizes need the hidden size.
            "framework=deepspeed&batch=4&global_batch=256&recompute=full&recipe=amp16&optimizer=adamw&step=fused&zero=3&offload=1&param_offload=1&ds_live=1000000000",
            vec![
                auto(
                    "zero_optimization.stage3_prefetch_bucket_size",
                    Needs::HiddenSize,
                ),
                auto(
                    "zero_optimization.stage3_param_persistence_threshold",
                    Needs::HiddenSize,
                ),
                not_modelled(
                    "zero_optimization.stage3_max_reuse_distance",
                    Some(1_000_000_000),
                ),
                not_modelled("zero_optimization.sub_group_size", Some(1_000_000_000)),
                auto("zero_optimization.reduce_bucket_size", Needs::HiddenSize),
            ],
        ),
        (
            None,
            Some(ta),
            LLAMA,
            // 4 × 8 steps × 8 GPUs.
            "framework=hf_trainer&batch=4&global_batch=256&recompute=full&recipe=amp&optimizer=adamw&step=fused",
            vec![],
        ),
        (
            None,
            Some(TRAINING_ARGS_FSDP),
            LLAMA,
            "framework=hf_trainer&batch=2&recompute=full&zero=3&recipe=fsdp&optimizer=adamw&step=foreach",
            vec![],
        ),
    ] {
        let imported = read(deepspeed, training_args, &context);
        assert_eq!(imported.query(), query, "{deepspeed:?} {training_args:?}");
        assert_eq!(imported.notes, notes, "{query}");
        round_trips(&imported, &context);
    }
}

#[test]
fn a_bucket_without_the_hidden_size_is_left_to_the_query() {
    let config = r#"{"zero_optimization": {"stage": 1, "reduce_bucket_size": "auto"}}"#;
    let no_hidden = Context {
        hidden: None,
        gpus: 4,
    };
    let imported = read(Some(config), None, &no_hidden);
    assert_eq!(imported.query(), "framework=deepspeed&zero=1&recipe=fp32");
    assert_eq!(
        imported.notes,
        [auto(
            "zero_optimization.reduce_bucket_size",
            Needs::HiddenSize
        )]
    );
    // With it: 4096² elements, 17 million rounded up, one buffer (overlap_comm
    // is off below stage 3); without contiguous_gradients no buffer at all.
    let imported = read(Some(config), None, &LLAMA);
    assert_eq!(imported.get(Param::BucketM), Some("17"));
    let flat = r#"{"zero_optimization": {"stage": 2, "contiguous_gradients": false}}"#;
    assert_eq!(
        read(Some(flat), None, &LLAMA).get(Param::BucketM),
        Some("0")
    );
    // Nothing said: DeepSpeed's 5e8.
    assert_eq!(
        read(Some("{}"), None, &LLAMA).get(Param::BucketM),
        Some("500")
    );
}

#[test]
fn the_batch_sizes_complete_as_deepspeed_completes_them() {
    let gpus = |gpus| Context {
        hidden: Some(4096),
        gpus,
    };
    for (config, context, batch, global) in [
        (r#"{"train_batch_size": 64}"#, gpus(8), "8", None),
        (
            r#"{"train_batch_size": 64, "gradient_accumulation_steps": 4}"#,
            gpus(8),
            "2",
            Some("64"),
        ),
        (
            r#"{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 2}"#,
            gpus(4),
            "2",
            Some("64"),
        ),
        (
            r#"{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3}"#,
            gpus(4),
            "2",
            Some("24"),
        ),
        (
            r#"{"train_micro_batch_size_per_gpu": 16}"#,
            gpus(4),
            "16",
            None,
        ),
    ] {
        let imported = read(Some(config), None, &context);
        assert_eq!(imported.get(Param::Batch), Some(batch), "{config}");
        assert_eq!(imported.get(Param::GlobalBatch), global, "{config}");
    }
    for (config, gpus_given, error) in [
        (
            r#"{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 4}"#,
            8,
            Error::BatchMismatch {
                train_batch_size: 64,
                micro_batch: 4,
                accumulation: 4,
                gpus: 8,
            },
        ),
        // 10 samples over 4 GPUs: DeepSpeed's floor gives 2 per GPU, 8 ≠ 10.
        (
            r#"{"train_batch_size": 10}"#,
            4,
            Error::BatchMismatch {
                train_batch_size: 10,
                micro_batch: 2,
                accumulation: 1,
                gpus: 4,
            },
        ),
    ] {
        let rejected = files(
            &Files {
                deepspeed: Some(config),
                training_args: None,
            },
            &gpus(gpus_given),
        );
        assert_eq!(
            rejected,
            Err(Rejected {
                source: Source::Deepspeed,
                error
            }),
            "{config}"
        );
    }
}

#[test]
fn contradictions_are_named() {
    let both = r#"{"bf16": {"enabled": true}, "fp16": {"enabled": true}}"#;
    let explicit = r#"{"train_micro_batch_size_per_gpu": 2, "bf16": {"enabled": true}}"#;
    for (deepspeed, training_args, source, error) in [
        (
            Some(both),
            None,
            Source::Deepspeed,
            Error::Contradiction {
                key: "bf16.enabled",
                with: "fp16.enabled",
            },
        ),
        (
            None,
            Some(r#"{"bf16": true, "fp16": true}"#),
            Source::TrainingArgs,
            Error::Contradiction {
                key: "bf16",
                with: "fp16",
            },
        ),
        // The Trainer's fill_match: an explicit value must equal TrainingArguments'.
        (
            Some(explicit),
            Some(TRAINING_ARGS),
            Source::Deepspeed,
            Error::Mismatch {
                key: "train_micro_batch_size_per_gpu",
                deepspeed: "2".into(),
                trainer_key: "per_device_train_batch_size",
                trainer: "4".into(),
            },
        ),
        (
            Some(r#"{"fp16": {"enabled": true}}"#),
            Some(TRAINING_ARGS),
            Source::Deepspeed,
            Error::Mismatch {
                key: "fp16.enabled",
                deepspeed: "true".into(),
                trainer_key: "fp16",
                trainer: "false".into(),
            },
        ),
    ] {
        let got = files(
            &Files {
                deepspeed,
                training_args,
            },
            &LLAMA,
        );
        assert_eq!(got, Err(Rejected { source, error }), "{deepspeed:?}");
    }
}

#[test]
fn bad_values_name_their_key() {
    for (config, error) in [
        (
            "[1]",
            Error::NotAnObject {
                found: json::Kind::Array,
            },
        ),
        (
            r#"{"zero_optimization": {"stage": 4}}"#,
            Error::whole("zero_optimization.stage", 0, 3),
        ),
        (
            r#"{"zero_optimization": {"stage": "auto"}}"#,
            Error::whole("zero_optimization.stage", 0, 3),
        ),
        (
            r#"{"zero_optimization": {"stage": 1.5}}"#,
            Error::whole("zero_optimization.stage", 0, 3),
        ),
        (
            r#"{"zero_optimization": {"offload_optimizer": {"device": "gpu"}}}"#,
            Error::NotAnOption {
                key: "zero_optimization.offload_optimizer.device",
                found: "gpu".into(),
                allowed: &["none", "cpu", "nvme"],
            },
        ),
        (
            r#"{"train_micro_batch_size_per_gpu": 0}"#,
            Error::whole("train_micro_batch_size_per_gpu", 1, 1_000_000_000),
        ),
        (
            r#"{"bf16": {"enabled": "yes"}}"#,
            Error::WrongType {
                key: "bf16.enabled",
                expected: json::Kind::Bool,
                found: json::Kind::String,
            },
        ),
        (
            r#"{"zero_optimization": {"reduce_bucket_size": 2e11}}"#,
            Error::whole("zero_optimization.reduce_bucket_size", 0, 100_000_000_000),
        ),
    ] {
        assert_eq!(
            deepspeed::import(config, &LLAMA, None),
            Err(error),
            "{config}"
        );
    }
    assert!(matches!(
        deepspeed::import("{", &LLAMA, None),
        Err(Error::NotJson(_))
    ));
    for (args, error) in [
        (
            r#"{"fsdp": "full_shard sharded"}"#,
            Error::NotAnOption {
                key: "fsdp",
                found: "sharded".into(),
                allowed: &[
                    "full_shard",
                    "shard_grad_op",
                    "no_shard",
                    "hybrid_shard",
                    "hybrid_shard_zero2",
                    "offload",
                    "auto_wrap",
                ],
            },
        ),
        (
            r#"{"per_device_train_batch_size": "4"}"#,
            Error::WrongType {
                key: "per_device_train_batch_size",
                expected: json::Kind::Number,
                found: json::Kind::String,
            },
        ),
        (
            r#"{"deepspeed": 3}"#,
            Error::WrongType {
                key: "deepspeed",
                expected: json::Kind::Object,
                found: json::Kind::Number,
            },
        ),
    ] {
        assert_eq!(
            training_args::read(args, &LLAMA).map(|t| t.imported),
            Err(error),
            "{args}"
        );
    }
}

#[test]
fn optimizers_map_by_what_the_trainer_builds() {
    for (optim, query) in [
        ("adamw_torch", "optimizer=adamw&step=foreach"),
        ("adamw_torch_fused", "optimizer=adamw&step=fused"),
        ("adamw_bnb_8bit", "optimizer=adam8bit&step=fused"),
        ("adamw_8bit", "optimizer=adam8bit&step=fused"),
        ("adafactor", "optimizer=adafactor&step=fused"),
        ("sgd", "optimizer=sgd&step=fused"),
        ("paged_adamw_8bit", "optimizer=paged_adamw_8bit&step=fused"),
        ("paged_adamw_32bit", "optimizer=paged_adamw&step=fused"),
        ("lion_32bit", ""),
    ] {
        let args = format!(r#"{{"optim": "{optim}"}}"#);
        let read = training_args::read(&args, &LLAMA).expect("reads");
        let tail = read
            .imported
            .query()
            .strip_prefix("framework=hf_trainer&recipe=fp32")
            .map(|rest| rest.trim_start_matches('&').to_owned());
        assert_eq!(tail.as_deref(), Some(query), "{optim}");
    }
    let read = training_args::read(r#"{"optim": "lion_32bit"}"#, &LLAMA).expect("reads");
    assert_eq!(
        read.imported.notes,
        [Note::UnknownOptimizer {
            key: "optim",
            name: "lion_32bit".into()
        }]
    );
    let read = training_args::read(r#"{"optim": "paged_adamw_32bit"}"#, &LLAMA).expect("reads");
    assert_eq!(read.imported.notes, []);
    let ds = deepspeed::import(r#"{"optimizer": {"type": "Lamb"}}"#, &LLAMA, None).expect("reads");
    assert_eq!(
        ds.notes,
        [Note::UnknownOptimizer {
            key: "optimizer.type",
            name: "Lamb".into()
        }]
    );
}

/// `gradient_checkpointing_kwargs={"use_reentrant": True}`: the reentrant
/// checkpoint, under checkpointing only.
#[test]
fn a_reentrant_checkpoint_is_read_from_the_kwargs() {
    let query = |args: &str| {
        training_args::read(args, &LLAMA)
            .expect("reads")
            .imported
            .query()
    };
    assert_eq!(
        query(
            r#"{"gradient_checkpointing": true, "gradient_checkpointing_kwargs": {"use_reentrant": true}}"#
        ),
        "framework=hf_trainer&recompute=full&reentrant=1&recipe=fp32"
    );
    assert_eq!(
        query(
            r#"{"gradient_checkpointing": true, "gradient_checkpointing_kwargs": {"use_reentrant": false}}"#
        ),
        "framework=hf_trainer&recompute=full&recipe=fp32"
    );
    assert_eq!(
        query(
            r#"{"gradient_checkpointing": false, "gradient_checkpointing_kwargs": {"use_reentrant": true}}"#
        ),
        "framework=hf_trainer&recompute=none&recipe=fp32"
    );
    let read = training_args::read(
        r#"{"gradient_checkpointing": true, "gradient_checkpointing_kwargs": {"use_reentrant": true}}"#,
        &LLAMA,
    )
    .expect("reads");
    round_trips(&read.imported, &LLAMA);
}

#[test]
fn what_changes_memory_unmodelled_is_noted() {
    let args = r#"{"torch_compile": true, "use_liger_kernel": true, "ddp_bucket_cap_mb": 25,
                   "auto_find_batch_size": false, "fsdp": "full_shard offload", "fp16": true,
                   "deepspeed": "configs/ds_zero3.json"}"#;
    let imported = read(None, Some(args), &LLAMA);
    // `offload` in `fsdp` is parameter offload, which is modelled, and so
    // is torch.compile's saved set, with the loss's upcast inside the graph
    // (the query below).
    assert!(
        imported.query().contains("param_offload=1"),
        "{}",
        imported.query()
    );
    assert_eq!(
        imported.notes,
        [
            not_modelled("use_liger_kernel", None),
            not_modelled("ddp_bucket_cap_mb", None),
            Note::DeepspeedPath {
                path: "configs/ds_zero3.json".into()
            },
        ]
    );
    assert_eq!(
        imported.query(),
        "framework=hf_trainer&compile=1&logits=bf16&param_offload=1&zero=3&recipe=fsdp",
        "fp16 with full sharding is FSDP's mixed precision"
    );
    let ds = r#"{"activation_checkpointing": {"partition_activations": true},
                 "zero_optimization": {"zero_quantized_weights": true, "zero_hpz_partition_size": 1},
                 "data_types": {"grad_accum_dtype": "fp32"}, "bf16": {"enabled": true}}"#;
    assert_eq!(
        read(Some(ds), None, &LLAMA).notes,
        [
            not_modelled("data_types.grad_accum_dtype", None),
            Note::ModelCheckpointing,
            not_modelled("zero_optimization.zero_quantized_weights", None),
        ]
    );
}

#[test]
fn an_inline_deepspeed_config_takes_the_trainers_values() {
    let args = r#"{"per_device_train_batch_size": 2, "bf16": true,
                   "deepspeed": {"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"},
                                 "train_micro_batch_size_per_gpu": "auto"}}"#;
    let imported = read(None, Some(args), &LLAMA);
    assert_eq!(
        imported.query(),
        "framework=deepspeed&batch=2&recipe=amp16&zero=3"
    );
    // Its problems are the TrainingArguments file's.
    let args = r#"{"bf16": true, "deepspeed": {"fp16": {"enabled": true}}}"#;
    let got = files(
        &Files {
            deepspeed: None,
            training_args: Some(args),
        },
        &LLAMA,
    );
    assert_eq!(got.map_err(|r| r.source), Err(Source::TrainingArgs));
}

#[test]
fn every_message_names_its_key() {
    let notes = [
        not_modelled("zero_optimization.offload_param", None),
        not_modelled("zero_optimization.reduce_bucket_size", Some(16_777_216)),
        auto("train_batch_size", Needs::TrainingArgs),
        auto("zero_optimization.reduce_bucket_size", Needs::HiddenSize),
    ];
    let lines: Vec<String> = notes.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "`zero_optimization.offload_param` is not modelled: the estimate leaves it out",
            "`zero_optimization.reduce_bucket_size` (16,777,216 elements) is not modelled: the estimate leaves it out",
            "`train_batch_size` is \"auto\", which the Trainer fills from TrainingArguments; none given, so the query's value applies",
            "`zero_optimization.reduce_bucket_size` is \"auto\", which needs the model's hidden size; give `model=`, `hidden=` or --config",
        ]
    );
    assert_eq!(
        Error::whole("zero_optimization.stage", 0, 3).to_string(),
        "`zero_optimization.stage` must be a whole number from 0 to 3"
    );
    let error = Error::BatchMismatch {
        train_batch_size: 64,
        micro_batch: 4,
        accumulation: 4,
        gpus: 8,
    };
    assert_eq!(
        error.to_string(),
        "`train_batch_size` 64 is not `train_micro_batch_size_per_gpu` 4 × `gradient_accumulation_steps` 4 × 8 GPUs (`gpus`)"
    );
}

proptest::proptest! {
    /// Any text is read or refused with a problem, never a panic.
    #[test]
    fn any_text_imports_or_names_its_problem(text in ".{0,200}", gpus in 1u64..100_000) {
        let context = Context { hidden: Some(4096), gpus };
        let _ = deepspeed::import(&text, &context, None).map_err(|e| e.to_string());
        let _ = training_args::read(&text, &context).map_err(|e| e.to_string());
    }

    /// Every TrainingArguments file over the settings read gives a query
    /// `query::parse` reads without a problem, or names the contradiction.
    #[test]
    fn any_training_args_give_a_valid_query_or_a_contradiction(
        micro in 1u64..100_000,
        accumulation in 1u64..1_000,
        gpus in 1u64..1_000,
        checkpointing: bool,
        bf16: bool,
        fp16: bool,
        optim in proptest::sample::select(vec![
            "adamw_torch", "adamw_torch_fused", "adamw_apex_fused", "adamw_bnb_8bit", "adamw_8bit",
            "adafactor", "sgd", "paged_adamw_32bit", "paged_adamw_8bit", "lion_8bit", "rmsprop",
        ]),
        fsdp in proptest::sample::select(vec![
            "", "full_shard auto_wrap", "shard_grad_op", "no_shard", "hybrid_shard", "hybrid_shard_zero2 offload",
        ]),
    ) {
        let args = format!(
            r#"{{"per_device_train_batch_size": {micro}, "gradient_accumulation_steps": {accumulation},
                "gradient_checkpointing": {checkpointing}, "bf16": {bf16}, "fp16": {fp16},
                "optim": "{optim}", "fsdp": "{fsdp}"}}"#
        );
        let context = Context { hidden: None, gpus };
        match training_args::read(&args, &context) {
            Err(error) => proptest::prop_assert_eq!(
                error,
                Error::Contradiction { key: "bf16", with: "fp16" }
            ),
            Ok(read) => {
                proptest::prop_assert!(!(bf16 && fp16));
                let full = format!("form=transformer&gpus={gpus}&{}", read.imported.query());
                let parsed = query::parse(&full);
                proptest::prop_assert_eq!(parsed.problems, vec![], "{}", full);
                proptest::prop_assert_eq!(parsed.config.transformer.batch, micro);
                proptest::prop_assert_eq!(
                    parsed.config.transformer.recompute == crate::transformer::Recompute::Full,
                    checkpointing
                );
            }
        }
    }

    /// Every config DeepSpeed accepts over the whole range of its settings
    /// gives a query `query::parse` reads without a problem.
    #[test]
    fn any_valid_deepspeed_config_gives_a_valid_query(
        stage in 0u8..4,
        micro in 1u64..10_000,
        accumulation in 1u64..1_000,
        gpus in 1u64..100_000,
        bucket in 0u64..50_000_000_000,
        overlap: bool,
        contiguous: bool,
        precision in 0u8..3,
        offload in proptest::sample::select(vec!["none", "cpu", "nvme"]),
        hidden in proptest::option::of(1u64..1_000_000),
    ) {
        let (bf16, fp16) = (precision == 1, precision == 2);
        let config = format!(
            r#"{{"zero_optimization": {{"stage": {stage}, "reduce_bucket_size": {bucket}, "overlap_comm": {overlap},
                "contiguous_gradients": {contiguous}, "offload_optimizer": {{"device": "{offload}"}},
                "stage3_prefetch_bucket_size": "auto"}},
                "bf16": {{"enabled": {bf16}}}, "fp16": {{"enabled": {fp16}}},
                "train_micro_batch_size_per_gpu": {micro}, "gradient_accumulation_steps": {accumulation}}}"#
        );
        let context = Context { hidden, gpus };
        let imported = deepspeed::import(&config, &context, None).expect("a valid config");
        let full = format!("form=transformer&gpus={gpus}&{}", imported.query());
        let parsed = query::parse(&full);
        proptest::prop_assert_eq!(parsed.problems, vec![], "{}", full);
        proptest::prop_assert_eq!(parsed.config.transformer.batch, micro);
        proptest::prop_assert_eq!(
            crate::memory::accumulation_steps(&parsed.config),
            (accumulation > 1).then_some(accumulation)
        );
    }
}

#[test]
fn a_pasted_file_is_told_apart_by_its_keys() {
    let data = |name: &str| {
        std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
            .expect("a sample")
    };
    for (name, kind) in [
        ("deepspeed_zero2_offload.json", FileKind::Deepspeed),
        ("hf_zero3_auto.json", FileKind::Deepspeed),
        ("training_args.json", FileKind::TrainingArgs),
        ("training_args_fsdp.json", FileKind::TrainingArgs),
        ("llama-3.1-8b-config.json", FileKind::ModelConfig),
    ] {
        assert_eq!(kind_of(&data(name)), kind, "{name}");
    }
    assert_eq!(kind_of("not json"), FileKind::ModelConfig);
    assert_eq!(kind_of("[1, 2]"), FileKind::ModelConfig);
}
