use super::write::ARCH_PARAMETERS;
use super::*;
use crate::fields;
use crate::fields::Needed;
use crate::memory;
use crate::transformer::pipeline::{CP, MICROBATCHES, PP};
use crate::transformer::{
    Architecture, Attention, Kind, Mlp, Mode, Norm, Optimizer, Quant, Recipe, Recompute,
};
use proptest::prelude::*;

const WORKED: &str = "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10";

fn named(parsed: &Parsed) -> Vec<(&str, &Problem)> {
    parsed
        .problems
        .iter()
        .map(|p| (p.name.as_str(), &p.problem))
        .collect()
}

#[test]
fn the_documented_example_parses_without_problems() {
    let parsed = parse(WORKED);
    assert_eq!(parsed.problems, []);
    assert_eq!(parsed.config, Config::default());
    assert_eq!(
        activations::estimate(&parsed.config.activations).total,
        85_899_345_920
    );
}

#[test]
fn whole_urls_and_leading_question_marks_are_accepted() {
    for text in [
        format!("?{WORKED}"),
        format!("https://example.org/some/sub/path/?{WORKED}#results"),
        format!("  {WORKED}  "),
    ] {
        assert_eq!(parse(&text), parse(WORKED), "{text}");
    }
}

/// Issue 28: a shared link's `seq=32k` is the 32,768 tokens it means, in
/// every form that has a sequence, and is written back as digits.
#[test]
fn token_counts_in_a_link_read_as_practitioners_write_them() {
    let parsed = parse("form=transformer&model=llama-3.1-8b&seq=32k&gen=1k&mode=inference");
    assert_eq!(parsed.problems, []);
    assert_eq!(parsed.config.transformer.seq, 32_768);
    assert_eq!(parsed.config.transformer.generated, 1_024);
    assert!(to_query(&parsed.config).contains("seq=32768"));
    let activations = parse("form=activations&seq=4K").config;
    assert_eq!(activations.activations.seq, 4_096);
    assert_eq!(
        named(&parse("form=activations&batch=2k")),
        [(
            "batch",
            &Problem::NotANumber {
                range: activations::BATCH.range()
            }
        )]
    );
}

/// What a page shows in the field of a rejected value: the text as written,
/// decoded, the first where it is given twice.
#[test]
fn a_given_value_is_read_back_as_written() {
    let query = "?form=activations&batch=%3Cb%3E+x&seq=32k&batch=2";
    assert_eq!(given(query, Param::Batch).as_deref(), Some("<b> x"));
    assert_eq!(given(query, Param::Seq).as_deref(), Some("32k"));
    assert_eq!(given(query, Param::Layers), None);
    let parsed = parse(query);
    let kept: Vec<&str> = parsed
        .problems
        .iter()
        .filter(|e| e.problem.is_in_the_value())
        .map(|e| e.name.as_str())
        .collect();
    // The repeated `batch` is about the name, not a value to keep.
    assert_eq!(kept, ["batch"]);
}

#[test]
fn writing_then_reading_gives_back_the_config() {
    let config = Config {
        activations: ActivationsInput {
            batch: 3,
            precision: Precision::Fp32,
            k: Multiplier::from_hundredths(1234),
            checkpointing: true,
            ..ActivationsInput::default()
        },
        units: Units::Binary,
        ..Config::default()
    }
    .synced();
    let query = to_query(&config);
    assert_eq!(
        query,
        "form=activations&batch=3&seq=2048&hidden=4096&layers=32&precision=fp32&k=12.34&ckpt=1&units=gib"
    );
    assert_eq!(
        parse(&query),
        Parsed {
            config,
            problems: vec![]
        }
    );
}

#[test]
fn bad_values_keep_defaults_and_are_named() {
    let parsed =
        parse("batch=-1&seq=abc&layers=&precision=fp8&zzz=1&batch=4&ckpt=maybe&units=tb&form=nope");
    assert_eq!(parsed.config, Config::default());
    assert_eq!(
        named(&parsed),
        [
            (
                "batch",
                &Problem::OutOfRange {
                    range: activations::BATCH.range()
                }
            ),
            (
                "seq",
                &Problem::NotANumber {
                    range: activations::SEQ.range()
                }
            ),
            (
                "layers",
                &Problem::Empty {
                    range: activations::LAYERS.range()
                }
            ),
            (
                "precision",
                &Problem::NotAnOption {
                    allowed: Precision::NAMES
                }
            ),
            ("zzz", &Problem::Unknown),
            ("batch", &Problem::Duplicate),
            (
                "ckpt",
                &Problem::NotAnOption {
                    allowed: SWITCH_NAMES
                }
            ),
            (
                "units",
                &Problem::NotAnOption {
                    allowed: Units::NAMES
                }
            ),
            (
                "form",
                &Problem::NotAnOption {
                    allowed: Form::NAMES
                }
            ),
        ]
    );
}

#[test]
fn the_parameters_form_reads_its_documented_query() {
    let parsed = parse(
        "form=parameters&params=7B&precision=fp16&optimizer=sgd_momentum&batch=8&act_mb=250.5",
    );
    assert_eq!(parsed.problems, []);
    let p = parsed.config.parameters;
    assert_eq!(
        (p.params, p.precision, p.optimizer, p.batch, p.act_mb),
        (
            7_000_000_000,
            Precision::Fp16,
            parameters::Optimizer::SgdMomentum,
            8,
            25_050
        )
    );
    assert_eq!(
        to_query(&parsed.config),
        "form=parameters&params=7B&precision=fp16&optimizer=sgd_momentum&batch=8&act_mb=250.5"
    );
    // Shared values follow into the other forms.
    assert_eq!(
        (
            parsed.config.activations.batch,
            parsed.config.activations.precision
        ),
        (8, Precision::Fp16)
    );
    assert_eq!(parsed.config.transformer.batch, 8);
    // The transformer form's optimizers are not the parameters form's.
    let parsed = parse("form=parameters&optimizer=adafactor");
    assert_eq!(
        named(&parsed),
        [(
            "optimizer",
            &Problem::NotAnOption {
                allowed: parameters::Optimizer::NAMES
            }
        )]
    );
}

#[test]
fn a_preset_is_the_base_and_changes_are_written_against_it() {
    // The preset applies first wherever it is written.
    let parsed = parse("form=transformer&layers=40&model=llama-2-7b&gpu=a100-80gb&recipe=bf16");
    assert_eq!(parsed.problems, []);
    let config = parsed.config;
    assert_eq!(config.model.map(|m| m.id), Some("llama-2-7b"));
    assert_eq!(
        (
            config.transformer.arch.layers,
            config.transformer.arch.hidden
        ),
        (40, 4096)
    );
    assert_eq!(config.activations.layers, 40);
    let query = to_query(&config);
    assert_eq!(
        query,
        "form=transformer&model=llama-2-7b&layers=40&batch=16&seq=2048&recipe=bf16&gpu=a100-80gb"
    );
    assert_eq!(parse(&query).config, config);
}

#[test]
fn every_knob_is_a_parameter() {
    let query = "form=transformer&kind=encoder&layers=2&hidden=64&heads=4&kv_heads=2&head_dim=32&ffn=100&mlp=gelu&norm=layernorm&vocab=1000&tied=1&bias=1&qkv_bias=1&qk_norm=1&positions=128&token_types=2&labels=3&dropout=1&channels=1&qk_norm_full=1&block=sandwich&window=4096&global_every=2&softcap=1&attn_softcap=1&attn_sinks=0&experts=0&kv_lora_rank=0&fused_proj=none&attn_output_gate=0&batch=3&seq=77&recipe=fp32&attn=eager&mode=inference&gen=9&quant=int4&gpus=8&zero=2&tp=2&sp=1&foreach=1&gpu_gb=12.5&overhead_gb=0.75&margin=15&global_batch=512&units=gib&lang=es&embed=1";
    let parsed = parse(query);
    assert_eq!(parsed.problems, []);
    let c = parsed.config;
    let t = c.transformer;
    let a = t.arch;
    // A vision transformer's patches and training's own settings, which
    // apply elsewhere (query/rules.rs).
    let trained = parse(
        "form=transformer&kind=vision&image=64&patch=8&optimizer=adafactor&recompute=selective",
    );
    assert_eq!(trained.problems, []);
    let v = trained.config.transformer;
    assert_eq!(
        (v.arch.image, v.arch.patch, v.optimizer, v.recompute),
        (64, 8, Optimizer::Adafactor, Recompute::Selective)
    );
    assert_eq!(
        (
            a.kind, a.layers, a.hidden, a.heads, a.kv_heads, a.head_dim, a.ffn
        ),
        (Kind::Encoder, 2, 64, 4, 2, 32, 100)
    );
    assert_eq!(
        (a.mlp, a.norm, a.vocab, a.tied, a.bias, a.qkv_bias),
        (Mlp::Gelu, Norm::LayerNorm, 1000, true, true, true)
    );
    assert_eq!(
        (a.positions, a.token_types, a.labels, a.dropout, a.channels),
        (128, 2, 3, true, 1)
    );
    assert_eq!(
        (
            a.qk_norm,
            a.qk_norm_full,
            a.block,
            a.window,
            a.global_every,
            a.softcap,
            a.attn_softcap
        ),
        (true, true, tf::Block::Sandwich, 4096, 2, true, true)
    );
    assert_eq!(
        (t.batch, t.seq, t.recipe, t.attention),
        (3, 77, Recipe::Fp32, Attention::Eager)
    );
    assert_eq!(
        (
            t.mode,
            t.generated,
            t.quant,
            t.gpus,
            t.zero,
            t.tp,
            t.sp,
            t.foreach
        ),
        (Mode::Inference, 9, Quant::Int4, 8, 2, 2, true, true)
    );
    assert_eq!(
        c.device,
        Some(Device::Custom {
            hundredths_gb: 1250
        })
    );
    assert_eq!(
        (
            c.overhead,
            c.margin,
            c.global_batch,
            c.units,
            c.lang,
            c.embed
        ),
        (75, 1500, 512, Units::Binary, Some(Lang::Es), Embed::Full)
    );
    assert_eq!(to_query(&c), query);
}

/// The new architecture parameters name their allowed values and keep the
/// defaults on bad input.
#[test]
fn the_families_parameters_name_their_ranges() {
    let parsed = parse(
        "form=transformer&window=-1&global_every=1e9&block=stacked&qk_norm=2&softcap=maybe&attn_softcap=&qk_norm_full=yes",
    );
    assert_eq!(
        named(&parsed),
        [
            (
                "window",
                &Problem::OutOfRange {
                    range: tf::WINDOW.range()
                }
            ),
            (
                "global_every",
                &Problem::OutOfRange {
                    range: tf::GLOBAL_EVERY.range()
                }
            ),
            (
                "block",
                &Problem::NotAnOption {
                    allowed: tf::Block::NAMES
                }
            ),
            (
                "qk_norm",
                &Problem::NotAnOption {
                    allowed: SWITCH_NAMES
                }
            ),
            (
                "softcap",
                &Problem::NotAnOption {
                    allowed: SWITCH_NAMES
                }
            ),
            (
                "attn_softcap",
                &Problem::NotAnOption {
                    allowed: SWITCH_NAMES
                }
            ),
            (
                "qk_norm_full",
                &Problem::OnlyWith {
                    param: Param::QkNorm,
                    value: Needed::Is("1")
                }
            ),
        ]
    );
    assert_eq!(parsed.config.transformer.arch, Architecture::default());
    assert_eq!(
        parsed.problems[0].to_string(),
        "`window` must be from 0 to 10,000,000"
    );
}

#[test]
fn other_forms_parameters_are_known_but_ignored() {
    let parsed = parse("form=activations&params=7B&model=gpt2&recipe=amp&lang=en&embed=0");
    assert_eq!(parsed.problems, []);
    assert_eq!(parsed.config.model, None);
    assert_eq!(parsed.config.parameters.params, parameters::PARAMS.default);
    assert_eq!(parsed.config.lang, Some(Lang::En));
}

#[test]
fn device_problems_are_named() {
    let parsed = parse("gpu=h100-80gb&gpu_gb=80");
    assert_eq!(
        named(&parsed),
        [("gpu_gb", &Problem::Conflict { with: Param::Gpu })]
    );
    assert_eq!(
        parsed.config.device.map(|d| d.bytes()),
        Some(81_559 * (1 << 20))
    );
    let parsed = parse("gpu=h100&lang=fr&model=gpt-5");
    assert_eq!(
        named(&parsed),
        [
            (
                "gpu",
                &Problem::NotAnOption {
                    allowed: DEVICE_IDS
                }
            ),
            (
                "lang",
                &Problem::NotAnOption {
                    allowed: Lang::NAMES
                }
            )
        ]
    );
    let parsed = parse("form=transformer&model=gpt-5");
    assert_eq!(
        named(&parsed),
        [("model", &Problem::NotAnOption { allowed: MODEL_IDS })]
    );
    assert_eq!(
        parse("gpu_gb=0").problems[0].to_string(),
        "`gpu_gb` must be from 0.01 to 1,000,000"
    );
}

#[test]
fn hostile_text_decodes_to_plain_strings() {
    assert_eq!(decode("%3Cscript%3E+x"), "<script> x");
    assert_eq!(decode("%ff%fe"), "\u{fffd}\u{fffd}");
    assert_eq!(decode("%zz%4"), "%zz%4");
    assert_eq!(decode("100%"), "100%");
    let parsed = parse("batch=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&%3Cscript%3E=1");
    assert_eq!(
        parsed.problems[0],
        ParamError::new(
            Param::Batch,
            Problem::NotANumber {
                range: activations::BATCH.range()
            }
        )
    );
    assert_eq!(parsed.problems[1], ParamError::unknown("<script>"));
}

#[test]
fn encoding_round_trips() {
    for text in ["a b&c=d", "ñ%", "<img src=x>", ""] {
        assert_eq!(decode(&encode(text)), text);
    }
}

fn whole(field: WholeField) -> impl Strategy<Value = u64> {
    field.min..=field.max
}

fn pick<T: Copy + Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    proptest::sample::select(all)
}

use std::fmt::Debug;

prop_compose! {
    fn any_arch()(
        kind in pick(Kind::ALL), layers in whole(activations::LAYERS), hidden in whole(activations::HIDDEN),
        heads in whole(tf::HEADS), kv_heads in whole(tf::KV_HEADS), head_dim in whole(tf::HEAD_DIM),
        ffn in whole(tf::FFN), mlp in pick(Mlp::ALL), norm in pick(Norm::ALL), vocab in whole(tf::VOCAB),
        switches in any::<[bool; 4]>(), positions in whole(tf::POSITIONS), token_types in whole(tf::TOKEN_TYPES),
        labels in whole(tf::LABELS), image in whole(tf::IMAGE), patch in whole(tf::PATCH), channels in whole(tf::CHANNELS),
        qk_norms in any::<[bool; 2]>(), block in pick(tf::Block::ALL), window in prop_oneof![Just(0u64), whole(tf::WINDOW)],
        global_every in whole(tf::GLOBAL_EVERY), softcaps in any::<[bool; 2]>(),
        moe in (prop_oneof![Just(0u64), whole(tf::EXPERTS)], whole(tf::EXPERTS_ACTIVE), whole(tf::EXPERT_FFN), whole(tf::SHARED_EXPERTS), whole(tf::SHARED_FFN), whole(tf::FIRST_DENSE_LAYERS), whole(tf::MOE_EVERY)),
        mla in (prop_oneof![Just(0u64), whole(tf::KV_LORA_RANK)], whole(tf::Q_LORA_RANK), whole(tf::QK_ROPE_HEAD_DIM), whole(tf::QK_NOPE_HEAD_DIM), whole(tf::V_HEAD_DIM)),
        attn_sinks in any::<bool>(), fused_proj in pick(tf::FusedProj::ALL),
        linear in (pick(tf::LinearMixer::ALL), whole(tf::FULL_ATTENTION_INTERVAL), whole(tf::LINEAR_NUM_KEY_HEADS), whole(tf::LINEAR_KEY_HEAD_DIM), whole(tf::LINEAR_NUM_VALUE_HEADS), whole(tf::LINEAR_VALUE_HEAD_DIM), whole(tf::LINEAR_CONV_KERNEL_DIM), any::<bool>()),
    ) -> Architecture {
        let [tied, bias, qkv_bias, dropout] = switches;
        let [softcap, attn_softcap] = softcaps;
        let [qk_norm, qk_norm_full] = qk_norms;
        let (experts, experts_active, expert_ffn, shared_experts, shared_ffn, first_dense_layers, moe_every) = moe;
        let (kv_lora_rank, q_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim) = mla;
        let (linear_mixer, full_attention_interval, linear_num_key_heads, linear_key_head_dim, linear_num_value_heads, linear_value_head_dim, linear_conv_kernel_dim, attn_output_gate) = linear;
        Architecture { kind, layers, hidden, heads, kv_heads, head_dim, ffn, mlp, norm, vocab, tied, bias, qkv_bias, qk_norm, qk_norm_full, attn_sinks, positions, token_types, labels, dropout, image, patch, channels, block, window, global_every, softcap, attn_softcap, experts, experts_active, expert_ffn, shared_experts, shared_ffn, first_dense_layers, moe_every, kv_lora_rank, q_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim, fused_proj, linear_mixer, full_attention_interval, linear_num_key_heads, linear_key_head_dim, linear_num_value_heads, linear_value_head_dim, linear_conv_kernel_dim, attn_output_gate }
    }
}

prop_compose! {
    fn any_transformer()(
        arch in any_arch(), batch in whole(activations::BATCH), seq in whole(activations::SEQ),
        recipe in pick(Recipe::ALL), optimizer in pick(Optimizer::ALL), recompute in pick(Recompute::ALL),
        attention in pick(Attention::ALL), mode in pick(Mode::ALL), generated in whole(tf::GEN), quant in pick(Quant::ALL),
        gpus in whole(tf::GPUS), zero in 0u8..=3, tp in whole(tf::TP), switches in any::<[bool; 8]>(),
        framework in pick(tf::Framework::ALL), step in pick(tf::Step::ALL), loss in pick(tf::Loss::ALL),
        bucket_m in whole(tf::BUCKET_M), bucket_view in any::<bool>(), prefetch in whole(tf::PREFETCH), logits in pick(tf::Logits::ALL),
        zero_grad in pick(tf::ZeroGrad::ALL), outputs in pick(tf::Outputs::ALL), norm_kernel in pick(tf::NormKernel::ALL), lora_rank in prop_oneof![Just(0u64), whole(tf::LORA_RANK)],
        lora_targets in pick(tf::LoraTargets::ALL), lora_dropout in any::<bool>(),
        base_quant in pick(tf::BaseQuant::ALL), double_quant in any::<bool>(), kv_dtype in pick(tf::KvDtype::ALL), kv_layout in pick(tf::KvLayout::ALL), cache in pick(tf::CacheImpl::ALL), logits_to_keep in whole(tf::LOGITS_TO_KEEP), param_offload in any::<bool>(), lora_variant in pick(tf::LoraVariant::ALL), fp8 in pick(tf::Fp8::ALL), train_embeddings in any::<bool>(),
        expert_parallel in (prop_oneof![1u64..=64, whole(tf::EP)], prop_oneof![Just(0u64), 1u64..=8, whole(tf::ETP)]),
        capacity in (prop_oneof![Just(0u64), tf::CAPACITY_FACTOR.min..=tf::CAPACITY_FACTOR.max], any::<bool>()),
        pipe in (prop_oneof![Just(1u64), 2u64..=8, whole(PP)], pick(Schedule::ALL), 1u64..=4, prop_oneof![Just(0u64), 1u64..=64, whole(MICROBATCHES)], any::<bool>(), 0u64..=9),
        context in (prop_oneof![Just(1u64), 2u64..=8, whole(CP)], pick(CpKind::ALL)),
        ds in (whole(tf::DS_PREFETCH), whole(tf::DS_LIVE), whole(tf::DS_PERSIST)),
        plan in (pick(tf::RecomputeMethod::ALL), prop_oneof![Just(1u64), 1u64..=8, whole(tf::RECOMPUTE_LAYERS)]),
        modules in proptest::sample::subsequence(tf::RecomputeModules::NAMES.to_vec(), 1..=tf::RecomputeModules::NAMES.len()),
        engine in (tf::GPU_MEMORY_UTILIZATION.min..=tf::GPU_MEMORY_UTILIZATION.max, whole(tf::MAX_MODEL_LEN), whole(tf::MAX_NUM_SEQS), whole(tf::MAX_NUM_BATCHED_TOKENS), whole(tf::BLOCK_SIZE), any::<bool>(), any::<bool>()),
    ) -> TransformerInput {
        let [sp, foreach, offload, act_offload, compile, reentrant, fused, prepare_kbit] = switches;
        // `etp` divides gpus × tp, `ep` the gpus × tp / etp ranks left and
        // `experts`, and only a MoE model has experts to split.
        let (ep, etp) = expert_parallel;
        let ranks = u128::from(gpus) * u128::from(tp);
        let etp = if arch.moe() && ranks % u128::from(etp.max(1)) == 0 { etp } else { 0 };
        let expert_ranks = ranks / u128::from(if etp == 0 { tp } else { etp });
        let ep = if arch.moe() && expert_ranks % u128::from(ep) == 0 && arch.experts % ep == 0 { ep } else { 1 };
        let (capacity_factor, capacity_pad) = capacity;
        let (pp, pp_schedule, vpp, microbatches, uneven, stage) = pipe;
        let (cp, cp_kind) = context;
        let (ds_prefetch, ds_live, ds_persist) = ds;
        let (recompute_method, recompute_layers) = plan;
        let grad_accum_fusion = fused;
        let (gpu_memory_utilization, max_model_len, max_num_seqs, max_num_batched_tokens, block_size, enforce_eager, flashinfer_sampler) = engine;
        let engine = tf::EngineSettings { gpu_memory_utilization, max_model_len, max_num_seqs, max_num_batched_tokens, block_size, enforce_eager, flashinfer_sampler };
        // An uneven layout: one layer moved from the last virtual stage to the first.
        let stages = pp * vpp;
        let pp_layout = if uneven && stages > 1 && stages <= arch.layers && stages <= pipeline::MAX_LAYOUT as u64 {
            let mut entries = vec![arch.layers / stages; stages as usize];
            if let Some(last) = entries.last_mut() {
                *last += arch.layers % stages;
            }
            if entries[stages as usize - 1] > 0 {
                entries[0] += 1;
                entries[stages as usize - 1] -= 1;
            }
            let text = entries.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            Layout::parse(&text).unwrap_or_default()
        } else {
            Layout::default()
        };
        let pp_stage = match stage {
            0 => StageChoice::First,
            1 => StageChoice::Last,
            2..=5 => StageChoice::Peak,
            i => StageChoice::Index(i - 6),
        };
        let recompute_modules = tf::RecomputeModules::parse(&modules.join(",")).unwrap_or_default();
        TransformerInput { arch, batch, seq, recipe, optimizer, recompute, recompute_method, recompute_layers, recompute_modules, attention, mode, generated, quant, gpus, zero, tp, ep, etp, capacity_factor, capacity_pad, pp, pp_schedule, vpp, microbatches, pp_layout, pp_stage, cp, cp_kind, sp, foreach, framework, step, loss, offload, bucket_m, bucket_view, prefetch, ds_prefetch, ds_live, ds_persist, act_offload, logits, zero_grad, outputs, norm_kernel, lora_rank, lora_targets, lora_dropout, base_quant, double_quant, prepare_kbit, kv_dtype, kv_layout, cache, logits_to_keep, param_offload, lora_variant, fp8, train_embeddings, compile, reentrant, grad_accum_fusion, engine }
    }
}

prop_compose! {
    /// Any configuration a page could hold, with its shared values in sync.
    pub(crate) fn any_config()(
        form in pick(Form::ALL),
        act in (whole(activations::BATCH), whole(activations::SEQ), whole(activations::HIDDEN), whole(activations::LAYERS), pick(&Precision::ALL), activations::K.min..=activations::K.max, any::<bool>()),
        par in (1u64..=parameters::PARAMS.max, pick(&Precision::ALL), pick(parameters::Optimizer::ALL), whole(activations::BATCH), parameters::ACT_MB.min..=parameters::ACT_MB.max),
        transformer in any_transformer(),
        model in proptest::option::of((0..presets::MODELS.len()).prop_map(|i| &presets::MODELS[i])),
        device in proptest::option::of(prop_oneof![(0..presets::DEVICES.len()).prop_map(|i| Device::Preset(&presets::DEVICES[i])), (GPU_GB.min..=GPU_GB.max).prop_map(|h| Device::Custom { hundredths_gb: h })]),
        overhead in OVERHEAD_GB.min..=OVERHEAD_GB.max, margin in MARGIN.min..=MARGIN.max, global_batch in whole(GLOBAL_BATCH),
        units in pick(&[Units::Decimal, Units::Binary]), lang in proptest::option::of(pick(Lang::ALL)), embed in pick(Embed::ALL),
        max_gpus in prop_oneof![Just(0u64), 1u64..=64], host_gb in prop_oneof![Just(0u64), HOST_GB.min..=HOST_GB.max],
    ) -> Config {
        let (batch, seq, hidden, layers, precision, k, checkpointing) = act;
        let (params, par_precision, optimizer, par_batch, act_mb) = par;
        let config = Config {
            form,
            activations: ActivationsInput { batch, seq, hidden, layers, precision, k: Multiplier::from_hundredths(k), checkpointing },
            parameters: ParametersInput { params, precision: par_precision, optimizer, batch: par_batch, act_mb },
            transformer,
            model,
            device,
            max_gpus,
            host_gb,
            overhead,
            margin,
            global_batch,
            units,
            lang,
            embed,
        };
        // What `parse` can produce: every rule kept (query/rules.rs).
        rules::normalize(config.synced())
    }
}

proptest! {
    #[test]
    fn to_query_then_parse_gives_back_the_form_shown(config in any_config()) {
        let query = to_query(&config);
        let parsed = parse(&query);
        prop_assert_eq!(&parsed.problems, &vec![], "{}", query);
        let back = parsed.config;
        match config.form {
            Form::Activations => prop_assert_eq!(back.activations, config.activations),
            Form::Parameters => prop_assert_eq!(back.parameters, config.parameters),
            Form::Transformer => {
                prop_assert_eq!(back.transformer, config.transformer);
                prop_assert_eq!(back.model, config.model);
                prop_assert_eq!((back.max_gpus, back.host_gb), (config.max_gpus, config.host_gb));
            }
        }
        prop_assert_eq!((back.device, back.overhead, back.margin, back.global_batch), (config.device, config.overhead, config.margin, config.global_batch));
        prop_assert_eq!((back.units, back.lang, back.embed), (config.units, config.lang, config.embed));
        // And the round trip is exact from then on.
        prop_assert_eq!(parse(&to_query(&back)).config, back);
        // Every configuration estimates without panicking.
        let estimate = memory::estimate(&back);
        prop_assert!(estimate.required >= estimate.total);
    }

    #[test]
    fn reading_never_fails(text in ".{0,200}") {
        let parsed = parse(&text);
        prop_assert!(parsed.problems.len() <= text.len() + 1);
    }
}

/// docs/url-parameters.md is the contract: every parameter is documented there,
/// and every parameter documented there is known.
#[test]
fn the_documentation_lists_every_parameter() {
    let docs = include_str!("../../../../docs/url-parameters.md");
    let documented: Vec<&str> = docs
        .lines()
        .filter_map(|line| {
            line.strip_prefix("| `")?
                .split_once('`')
                .map(|(name, _)| name)
        })
        .collect();
    let known: Vec<&str> = Param::ALL.iter().map(|p| p.name()).collect();
    for name in &known {
        assert!(documented.contains(name), "`{name}` is not documented");
    }
    for name in &documented {
        assert!(
            Param::from_name(name).is_some(),
            "`{name}` is documented but unknown"
        );
    }
}

/// The page fills its fields from `values` and sends them back through `parse`
/// (leaving out empty optional choices): that must give the same configuration.
#[test]
fn values_read_back_as_the_same_config() {
    for text in [
        "",
        "form=activations&batch=3&precision=fp32&k=12.5&ckpt=1&units=gib",
        "form=parameters&params=7B&precision=fp16&optimizer=sgd_momentum&batch=8&act_mb=250&gpu=h100-80gb",
        "form=transformer&model=llama-3.1-8b&batch=4&seq=4096&recompute=full&gpus=8&zero=3&gpu_gb=80",
        "form=transformer&kind=vision&image=384&patch=16&hidden=768&layers=12&heads=12&kv_heads=12&ffn=3072&mlp=gelu&mode=inference&gen=0&lang=es&embed=1",
        "form=transformer&framework=deepspeed&offload=1&zero=2&gpus=4&loss=chunked",
        "form=transformer&framework=hf_generate&step=forloop&bucket_m=7",
    ] {
        let config = parse(text).config;
        let values = values(&config);
        let mut names: Vec<&str> = values.iter().map(|(n, _)| n.name()).collect();
        names.sort_unstable();
        let mut known: Vec<&str> = ["form"]
            .into_iter()
            .chain(ACTIVATIONS_PARAMETERS.iter().map(|p| p.name()))
            .chain(PARAMETERS_PARAMETERS.iter().map(|p| p.name()))
            .chain(TRANSFORMER_PARAMETERS.iter().map(|p| p.name()))
            .chain(COMMON_PARAMETERS.iter().map(|p| p.name()))
            .collect();
        known.sort_unstable();
        known.dedup();
        assert_eq!(names, known, "values() covers every parameter exactly once");
        let every: Vec<&str> = Param::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), every.len(), "every Param is a parameter");
        let custom = matches!(config.device, Some(Device::Custom { .. }));
        let query: Vec<String> = values
            .iter()
            .filter(|(name, value)| match *name {
                Param::Model | Param::Lang | Param::Gpu => !value.is_empty(),
                Param::GpuGb => custom,
                _ => true,
            })
            .map(|(name, value)| format!("{}={}", name.name(), encode(value)))
            .collect();
        let back = parse(&query.join("&"));
        assert_eq!(back.problems, [], "{text}");
        assert_eq!(back.config, config, "{text}");
    }
}

/// A framework profile is the base of the settings: its defaults apply first,
/// the URL's own settings override them, and the page writes only the
/// differences from the profile.
#[test]
fn framework_profiles_are_defaults_the_url_overrides() {
    let config = parse("form=transformer&recipe=amp&framework=torchtune").config;
    let t = config.transformer;
    assert_eq!(t.framework, tf::Framework::Torchtune);
    assert_eq!(
        (t.recipe, t.step, t.loss),
        (Recipe::Amp, tf::Step::InBackward, tf::Loss::Chunked)
    );
    let query = to_query(&config);
    assert!(
        query.starts_with("form=transformer&framework=torchtune&kind=decoder"),
        "{query}"
    );
    assert!(query.contains("&recipe=amp"), "{query}");
    assert!(
        !query.contains("step=") && !query.contains("loss="),
        "{query}"
    );
    assert_eq!(parse(&query).config, config);
    let bad = parse("form=transformer&framework=jax");
    assert_eq!(
        bad.problems,
        [ParamError::new(
            Param::Framework,
            Problem::NotAnOption {
                allowed: tf::Framework::NAMES
            }
        )]
    );
}

#[test]
fn the_architecture_parameters_are_listed_in_their_order() {
    let written: Vec<Param> = arch_values(&Architecture::default())
        .iter()
        .map(|(p, _)| *p)
        .collect();
    assert_eq!(written, ARCH_PARAMETERS);
}

/// Issue 13: `quant` in training is reported, never silently ignored; so is a
/// quantized LoRA base without LoRA. The defaults are used.
#[test]
fn settings_that_need_another_are_reported() {
    let parsed = parse("form=transformer&quant=int4&mode=train");
    assert_eq!(
        named(&parsed),
        [(
            "quant",
            &Problem::OnlyWith {
                param: Param::Mode,
                value: Needed::Is("inference")
            }
        )]
    );
    assert_eq!(parsed.config.transformer.quant, Quant::None);
    assert_eq!(
        parsed.problems[0].to_string(),
        "`quant` applies only with mode=inference"
    );
    let parsed = parse("form=transformer&base_quant=nf4");
    assert_eq!(parsed.problems[0].param(), Some(Param::BaseQuant));
    assert!(
        parse("form=transformer&base_quant=nf4&lora_rank=8")
            .problems
            .is_empty()
    );
    assert!(
        parse("form=transformer&mode=inference&quant=int4")
            .problems
            .is_empty()
    );
    // The embedding and head's trainable copies need adapters to stand
    // beside, a vocabulary, and no parameter offload; reported, and off.
    for (query, param, value) in [
        ("lora_rank=0", Param::LoraRank, Needed::AtLeast(1)),
        (
            "lora_rank=8&kind=vision",
            Param::Kind,
            Needed::Either("decoder", "encoder"),
        ),
        (
            "lora_rank=8&param_offload=1",
            Param::ParamOffload,
            Needed::Is("0"),
        ),
    ] {
        let parsed = parse(&format!("form=transformer&{query}&train_embeddings=1"));
        assert_eq!(
            named(&parsed),
            [("train_embeddings", &Problem::OnlyWith { param, value })],
            "{query}"
        );
        assert!(!parsed.config.transformer.train_embeddings, "{query}");
    }
    // In inference the rank is dropped (quietly: query/rules.rs), and the
    // copies beside it are reported.
    let parsed = parse("form=transformer&lora_rank=8&mode=inference&train_embeddings=1");
    let needs = Problem::OnlyWith {
        param: Param::LoraRank,
        value: Needed::AtLeast(1),
    };
    assert_eq!(named(&parsed), [("train_embeddings", &needs)]);
    let parsed = parse("form=transformer&lora_rank=8&train_embeddings=1");
    assert!(parsed.problems.is_empty());
    assert!(parsed.config.transformer.train_embeddings);
    // torch.compile's saved set is training's: in inference it is reported.
    let parsed = parse("form=transformer&mode=inference&compile=1");
    assert_eq!(
        named(&parsed),
        [(
            "compile",
            &Problem::OnlyWith {
                param: Param::Mode,
                value: Needed::Is("train")
            }
        )]
    );
    assert!(!parsed.config.transformer.compile);
    let parsed = parse("form=transformer&compile=1");
    assert!(parsed.problems.is_empty());
    assert!(parsed.config.transformer.compile);
    assert!(to_query(&parsed.config).contains("compile=1"));
    // A pattern of global layers needs a window: reported, and the pattern
    // falls back to the preset's (none without one).
    let parsed = parse("form=transformer&global_every=6");
    assert_eq!(
        named(&parsed),
        [(
            "global_every",
            &Problem::OnlyWith {
                param: Param::Window,
                value: Needed::AtLeast(1)
            }
        )]
    );
    assert_eq!(parsed.config.transformer.arch.global_every, 0);
    let parsed = parse("form=transformer&model=gemma-3-1b&window=0&global_every=3");
    assert_eq!(parsed.problems[0].param(), Some(Param::GlobalEvery));
    assert_eq!(parsed.config.transformer.arch.global_every, 6);
    for fine in [
        "form=transformer&window=1024&global_every=6",
        "form=transformer&global_every=0",
        // The preset's pattern under a switched-off window is kept silently.
        "form=transformer&model=gemma-3-1b&window=0",
    ] {
        assert!(parse(fine).problems.is_empty(), "{fine}");
    }
    // QK-norm over the whole projections without QK-norm: reported, off.
    let parsed = parse("form=transformer&qk_norm_full=1");
    assert_eq!(parsed.problems[0].param(), Some(Param::QkNormFull));
    assert!(!parsed.config.transformer.arch.qk_norm_full);
    assert!(
        parse("form=transformer&qk_norm=1&qk_norm_full=1")
            .problems
            .is_empty()
    );
    // Another form's parameters are known but not read: nothing to report.
    assert!(parse("form=activations&quant=int4").problems.is_empty());
}

/// The experts' and MLA's parameters are reported where they mean nothing
/// or contradict another, naming the parameter they need.
#[test]
fn moe_parameters_are_checked_against_each_other() {
    let problems = |query: &str| {
        parse(query)
            .problems
            .into_iter()
            .map(|p| (p.name.as_str().to_owned(), p.problem))
            .collect::<Vec<_>>()
    };
    let only_with = |param| Problem::OnlyWith {
        param,
        value: Needed::AtLeast(1),
    };
    // A dense model: the experts' shape and `ep` mean nothing.
    assert_eq!(
        problems("form=transformer&experts_active=4&ep=2&gpus=4&q_lora_rank=64&qk_norm_full=1"),
        [
            ("experts_active".to_owned(), only_with(Param::Experts)),
            ("ep".to_owned(), only_with(Param::Experts)),
            ("q_lora_rank".to_owned(), only_with(Param::KvLoraRank)),
            (
                "qk_norm_full".to_owned(),
                Problem::OnlyWith {
                    param: Param::QkNorm,
                    value: Needed::Is("1")
                }
            ),
        ]
    );
    assert_eq!(
        problems("form=transformer&model=mixtral-8x7b&capacity_pad=1"),
        [(
            "capacity_pad".to_owned(),
            Problem::OnlyWith {
                param: Param::CapacityFactor,
                value: Needed::Above(0)
            }
        )]
    );
    assert_eq!(
        problems("form=transformer&capacity_factor=1.25"),
        [("capacity_factor".to_owned(), only_with(Param::Experts))]
    );
    // Given at their defaults they say nothing wrong.
    assert_eq!(problems("form=transformer&experts_active=2&ep=1"), []);
    // `ep` divides `gpus` and `experts`.
    assert_eq!(
        problems("form=transformer&model=mixtral-8x7b&gpus=6&ep=4"),
        [("ep".to_owned(), Problem::Conflict { with: Param::Gpus })]
    );
    assert_eq!(
        problems("form=transformer&model=mixtral-8x7b&gpus=16&ep=16"),
        [(
            "ep".to_owned(),
            Problem::Conflict {
                with: Param::Experts
            }
        )]
    );
    let parsed = parse("form=transformer&model=mixtral-8x7b&gpus=16&ep=16");
    assert_eq!(parsed.config.transformer.ep, 1);
    assert_eq!(
        parse("form=transformer&model=mixtral-8x7b&gpus=16&ep=8")
            .config
            .transformer
            .ep,
        8
    );
    // Expert tensor parallelism: gpus × tp ranks split as etp × ep × expert
    // data parallel, so with etp = 1 under tp = 2 `ep` may reach gpus × tp.
    let mixtral = "form=transformer&model=mixtral-8x7b&gpus=4&tp=2";
    assert_eq!(problems(&format!("{mixtral}&ep=8&etp=1")), []);
    let parsed = parse(&format!("{mixtral}&ep=8&etp=1")).config.transformer;
    assert_eq!((parsed.ep, parsed.etp, parsed.expert_tp()), (8, 1, 1));
    assert_eq!(
        problems(&format!("{mixtral}&ep=8")),
        [("ep".to_owned(), Problem::Conflict { with: Param::Gpus })]
    );
    assert_eq!(
        problems(&format!("{mixtral}&ep=8&etp=2")),
        [("ep".to_owned(), Problem::Conflict { with: Param::Gpus })]
    );
    // `etp` divides gpus × tp; one that does not is read as tp.
    let parsed = parse(&format!("{mixtral}&etp=3"));
    assert_eq!(
        parsed
            .problems
            .iter()
            .map(|p| (p.name.as_str(), p.problem.clone()))
            .collect::<Vec<_>>(),
        [("etp", Problem::Conflict { with: Param::Tp })]
    );
    assert_eq!(parsed.config.transformer.expert_tp(), 2);
    assert_eq!(
        problems("form=transformer&etp=2"),
        [("etp".to_owned(), only_with(Param::Experts))]
    );
    // The experts' LoRA targets need experts; on a dense model, read as `qv`.
    for targets in ["experts", "all_experts"] {
        let query = format!("form=transformer&lora_rank=8&lora_targets={targets}");
        assert_eq!(
            problems(&query),
            [("lora_targets".to_owned(), only_with(Param::Experts))]
        );
        assert_eq!(
            parse(&query).config.transformer.lora_targets,
            tf::LoraTargets::Qv
        );
        assert_eq!(problems(&format!("{query}&model=mixtral-8x7b")), []);
    }
    assert_eq!(
        problems("form=transformer&etp=2000")[0].1,
        Problem::OutOfRange {
            range: tf::ETP.range()
        }
    );
    // Top-k beyond the experts: reported with the range it has, read as all.
    let parsed = parse("form=transformer&model=mixtral-8x7b&experts_active=9");
    assert_eq!(
        parsed.problems[0].to_string(),
        "`experts_active` must be from 1 to 8"
    );
    assert_eq!(parsed.config.transformer.arch.experts_active, 8);
    // A MoE preset turned dense drops its experts' shape from the link.
    let dense = parse("form=transformer&model=qwen3-30b-a3b&experts=0").config;
    assert_eq!(dense.transformer.arch.expert_ffn, 0);
    assert_eq!(
        to_query(&dense),
        "form=transformer&model=qwen3-30b-a3b&experts=0&batch=16&seq=2048"
    );
    assert_eq!(parse(&to_query(&dense)).problems, []);
}

/// Bad input in every parameter of every form, whichever issue added it:
/// HTML, words, a negative and a huge number are each reported, naming the
/// parameter, and the configuration stays one `estimate` can read (no panic,
/// no overflow).
#[test]
fn every_parameter_names_its_bad_input() {
    for &form in Form::ALL {
        let params = form_parameters(form).iter().chain(COMMON_PARAMETERS);
        for &param in std::iter::once(&Param::Form).chain(params) {
            for bad in ["<b>x</b>", "abc", "-1", "99999999999999999999999"] {
                let query = match param {
                    Param::Form => format!("form={}", encode(bad)),
                    _ => format!("form={}&{}={}", form.name(), param.name(), encode(bad)),
                };
                let parsed = parse(&query);
                assert!(
                    parsed
                        .problems
                        .iter()
                        .any(|p| p.name == fields::Name::Known(param)),
                    "{query}: {:?}",
                    parsed.problems
                );
                let e = memory::estimate(&parsed.config);
                assert_eq!(e.at_peak.sum(), e.peak_allocated, "{query}");
            }
        }
    }
}

#[test]
fn a_second_setup_is_its_differences_under_b() {
    let a = parse("form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb").config;
    let mut b = a;
    b.transformer.recipe = Recipe::Bf16;
    b.transformer.zero = 3;
    b.transformer.gpus = 8;
    let query = to_query_pair(&a, &b);
    assert_eq!(
        query,
        format!("{}&b.recipe=bf16&b.gpus=8&b.zero=3", to_query(&a))
    );
    let pair = parse_pair(&query);
    assert_eq!(pair.a.problems, []);
    assert_eq!(pair.a.config, a);
    let back = pair.b.expect("a second setup");
    assert_eq!((back.problems, back.config), (vec![], b));
    // A alone reads as it always did: `parse` leaves the `b.` parameters to
    // `parse_pair`, and an old link has no second setup.
    assert_eq!(parse(&query), pair.a);
    assert_eq!(parse_pair(&to_query(&a)).b, None);
    // A parameter A writes and B does not is removed with an empty `b.`:
    // B without a device.
    let mut b = a;
    b.device = None;
    let query = to_query_pair(&a, &b);
    assert!(query.ends_with("&b.gpu="), "{query}");
    assert_eq!(parse_pair(&query).b.map(|p| p.config), Some(b));
    // B's problems are its own, named without the prefix.
    let pair = parse_pair("form=parameters&params=7B&b.params=lots");
    assert_eq!(pair.a.problems, []);
    let problems = pair.b.expect("a second setup").problems;
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].param(), Some(Param::Params));
    // B's language and units are A's.
    let a = parse("form=parameters&lang=es&units=binary").config;
    let b = Config {
        lang: Some(Lang::En),
        ..a
    };
    assert_eq!(to_query_pair(&a, &b), to_query(&a));
}

proptest! {
    /// Each one-click comparison changes exactly the parameter it names.
    #[test]
    fn each_toggle_changes_its_one_parameter(a in any_config()) {
        let a = parse(&to_query(&a)).config;
        for (param, b) in toggles(&a) {
            let changed: Vec<Param> = differing(&a, &b).into_iter().map(|(p, ..)| p).collect();
            prop_assert_eq!(changed, vec![param]);
        }
    }

    /// Any two setups a page could hold survive the address: A exactly as
    /// `to_query` alone writes it, B from A and its differences.
    #[test]
    fn two_setups_round_trip(a in any_config(), b in any_config()) {
        let a = parse(&to_query(&a)).config;
        let b = Config { lang: a.lang, units: a.units, ..parse(&to_query(&b)).config };
        let query = to_query_pair(&a, &b);
        let pair = parse_pair(&query);
        prop_assert_eq!(&pair.a.problems, &vec![], "{}", query);
        prop_assert_eq!(pair.a.config, a);
        let back = pair.b.expect("a second setup");
        prop_assert_eq!(&back.problems, &vec![], "{}", query);
        prop_assert_eq!(back.config, b, "{}", query);
    }
}

/// Which layers full recomputation checkpoints: each value validated, the
/// plan written back, and meaningful under `recompute=full` only.
#[test]
fn partial_recomputation_is_validated_and_written_back() {
    let parsed =
        parse("form=transformer&recompute=full&recompute_method=sometimes&recompute_layers=0");
    assert_eq!(
        named(&parsed),
        [
            (
                "recompute_method",
                &Problem::NotAnOption {
                    allowed: tf::RecomputeMethod::NAMES
                }
            ),
            (
                "recompute_layers",
                &Problem::OutOfRange {
                    range: tf::RECOMPUTE_LAYERS.range()
                }
            ),
        ]
    );
    assert_eq!(parsed.config.transformer.partial_recompute(), None);
    let parsed = parse("form=transformer&recompute=full&recompute_layers=2.5");
    assert_eq!(
        named(&parsed),
        [(
            "recompute_layers",
            &Problem::NotWhole {
                range: tf::RECOMPUTE_LAYERS.range()
            }
        )]
    );
    // Without full recomputation: reported, and back at the defaults.
    let parsed = parse(
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=selective&recompute_method=block&recompute_layers=8",
    );
    let needs_full = Problem::OnlyWith {
        param: Param::Recompute,
        value: Needed::Is("full"),
    };
    assert_eq!(
        named(&parsed),
        [
            ("recompute_method", &needs_full),
            ("recompute_layers", &needs_full)
        ]
    );
    assert_eq!(
        to_query(&parsed.config),
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=selective"
    );
    // A plan round-trips; the default (groups of one) is not written.
    for query in [
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full&recompute_method=block&recompute_layers=8",
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full&recompute_method=every&recompute_layers=2",
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full&recompute_layers=4",
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full",
    ] {
        let parsed = parse(query);
        assert!(parsed.problems.is_empty(), "{query}");
        assert_eq!(to_query(&parsed.config), query);
    }
    let parsed =
        parse("form=transformer&recompute=full&recompute_method=uniform&recompute_layers=1");
    assert_eq!(parsed.config.transformer.partial_recompute(), None);
    // Which checkpoint: a switch under full recomputation, written when it
    // is not the profile's; elsewhere reported and back at the profile's.
    let query = "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full&reentrant=1";
    let parsed = parse(query);
    assert!(parsed.problems.is_empty());
    assert!(parsed.config.transformer.reentrant);
    assert_eq!(to_query(&parsed.config), query);
    let parsed = parse("form=transformer&model=llama-2-7b&batch=1&seq=4096&reentrant=1");
    assert_eq!(named(&parsed), [("reentrant", &needs_full)]);
    assert!(!parsed.config.transformer.reentrant);
    let megatron = "form=transformer&model=llama-2-7b&framework=megatron&batch=1&seq=4096";
    let parsed = parse(&format!("{megatron}&reentrant=0"));
    assert_eq!(named(&parsed), [("reentrant", &needs_full)]);
    assert!(parsed.config.transformer.reentrant);
    assert_eq!(to_query(&parsed.config), megatron);
    let parsed = parse(&format!("{megatron}&recompute=full&reentrant=0"));
    assert!(parsed.problems.is_empty());
    assert_eq!(
        to_query(&parsed.config),
        format!("{megatron}&recompute=full&reentrant=0")
    );
    assert_eq!(
        parse("form=transformer&recompute=full&recompute_method=every&recompute_layers=2")
            .config
            .transformer
            .partial_recompute(),
        Some((tf::RecomputeMethod::Every, 2))
    );
}

/// `grad_accum_fusion`: a switch with Megatron-LM's FP32 main gradients
/// (`recipe=main_fp32`) in training without LoRA, written only when off (the fused
/// default is every profile's, so older links read and write as before);
/// elsewhere `0` is reported and the fused default kept.
#[test]
fn gradient_accumulation_fusion_is_read_with_main_gradients_only() {
    let megatron = "form=transformer&model=llama-2-7b&framework=megatron&batch=1&seq=4096";
    let parsed = parse(megatron);
    assert!(parsed.config.transformer.grad_accum_fusion);
    assert_eq!(to_query(&parsed.config), megatron);
    let query = format!("{megatron}&grad_accum_fusion=0");
    let parsed = parse(&query);
    assert!(parsed.problems.is_empty());
    assert!(!parsed.config.transformer.grad_accum_fusion);
    assert_eq!(to_query(&parsed.config), query);
    let parsed = parse(&format!("{megatron}&grad_accum_fusion=1"));
    assert!(parsed.problems.is_empty());
    assert_eq!(to_query(&parsed.config), megatron);
    // The recipe is what carries the FP32 main gradients, not the profile.
    let custom = "form=transformer&model=llama-2-7b&batch=1&seq=4096&recipe=main_fp32";
    let parsed = parse(&format!("{custom}&grad_accum_fusion=0"));
    assert!(parsed.problems.is_empty());
    assert_eq!(
        to_query(&parsed.config),
        format!("{custom}&grad_accum_fusion=0")
    );
    let needs = |param, value| Problem::OnlyWith { param, value };
    let autocast = parse("form=transformer&model=llama-2-7b&batch=1&seq=4096&grad_accum_fusion=0");
    assert_eq!(
        named(&autocast),
        [(
            "grad_accum_fusion",
            &needs(Param::Recipe, Needed::Is("main_fp32"))
        )]
    );
    assert!(autocast.config.transformer.grad_accum_fusion);
    let inference = parse(&format!("{megatron}&mode=inference&grad_accum_fusion=0"));
    assert_eq!(
        named(&inference),
        [(
            "grad_accum_fusion",
            &needs(Param::Mode, Needed::Is("train"))
        )]
    );
    assert!(inference.config.transformer.grad_accum_fusion);
    // LoRA's frozen base computes no weight gradient.
    let lora = parse(&format!("{megatron}&lora_rank=8&grad_accum_fusion=0"));
    assert_eq!(
        named(&lora),
        [(
            "grad_accum_fusion",
            &needs(Param::LoraRank, Needed::Is("0"))
        )]
    );
    assert!(lora.config.transformer.grad_accum_fusion);
    assert_eq!(
        named(&parse(&format!("{megatron}&grad_accum_fusion=2")))
            .first()
            .map(|(n, _)| *n),
        Some("grad_accum_fusion")
    );
}

/// `outputs`: `dropped` (every profile but `pytorch`) is not written, so
/// older links read and write as before; `kept` and `kept_fp32` with a
/// decoder's full loss in training; elsewhere reported and the profile's
/// kept.
#[test]
fn kept_outputs_are_read_with_a_full_loss_in_training_only() {
    let base = "form=transformer&model=llama-3.1-8b&batch=1&seq=4096";
    let parsed = parse(base);
    assert_eq!(parsed.config.transformer.outputs, tf::Outputs::Dropped);
    assert_eq!(to_query(&parsed.config), base);
    for value in ["kept", "kept_fp32"] {
        let query = format!("{base}&outputs={value}");
        let parsed = parse(&query);
        assert!(parsed.problems.is_empty(), "{value}");
        assert_eq!(parsed.config.transformer.outputs.name(), value);
        assert_eq!(to_query(&parsed.config), query);
    }
    let parsed = parse(&format!("{base}&outputs=dropped"));
    assert!(parsed.problems.is_empty());
    assert_eq!(to_query(&parsed.config), base);
    // The `pytorch` profile keeps it: `kept` is not written there, `dropped` is.
    let pytorch = "form=transformer&model=llama-3.1-8b&framework=pytorch&batch=1&seq=4096";
    let parsed = parse(pytorch);
    assert_eq!(parsed.config.transformer.outputs, tf::Outputs::Kept);
    assert_eq!(to_query(&parsed.config), pytorch);
    let query = format!("{pytorch}&outputs=dropped");
    assert_eq!(to_query(&parse(&query).config), query);
    let needs = |param, value| Problem::OnlyWith { param, value };
    for (extra, param, value) in [
        ("mode=inference", Param::Mode, Needed::Is("train")),
        ("loss=chunked", Param::Loss, Needed::Is("full")),
        ("loss=vocab_parallel", Param::Loss, Needed::Is("full")),
        ("kind=encoder", Param::Kind, Needed::Is("decoder")),
    ] {
        let parsed = parse(&format!("{base}&{extra}&outputs=kept"));
        assert_eq!(
            named(&parsed),
            [("outputs", &needs(param, value))],
            "{extra}"
        );
        assert_eq!(parsed.config.transformer.outputs, tf::Outputs::Dropped);
    }
    assert_eq!(
        named(&parse(&format!("{base}&outputs=yes")))
            .first()
            .map(|(n, _)| *n),
        Some("outputs")
    );
}

/// Megatron-Core's `--recompute-modules`: every name validated, duplicates
/// rejected, meaningful under `recompute=selective` only, a module the model
/// lacks reported and dropped, and the set written back when not the default.
#[test]
fn recompute_modules_are_validated_and_written_back() {
    let llama = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    let parsed = parse(&format!(
        "{llama}&recompute=selective&recompute_modules=core_attn,mla_up_proj"
    ));
    assert_eq!(
        named(&parsed),
        [(
            "recompute_modules",
            &Problem::NotAnOption {
                allowed: tf::RecomputeModules::NAMES
            }
        )]
    );
    assert_eq!(
        parsed.config.transformer.recompute_modules,
        tf::RecomputeModules::default()
    );
    let parsed = parse(&format!(
        "{llama}&recompute=selective&recompute_modules=mlp,mlp"
    ));
    assert_eq!(
        named(&parsed),
        [("recompute_modules", &Problem::Repeated { item: "mlp" })]
    );
    // Without selective recomputation: reported, and back at the default.
    let parsed = parse(&format!("{llama}&recompute=full&recompute_modules=mlp"));
    assert_eq!(
        named(&parsed),
        [(
            "recompute_modules",
            &Problem::OnlyWith {
                param: Param::Recompute,
                value: Needed::Is("selective")
            }
        )]
    );
    assert_eq!(to_query(&parsed.config), format!("{llama}&recompute=full"));
    // A dense model has no experts' activation: reported, the rest kept.
    let parsed = parse(&format!(
        "{llama}&recompute=selective&recompute_modules=core_attn,mlp,moe_act"
    ));
    assert_eq!(
        named(&parsed),
        [(
            "recompute_modules",
            &Problem::OnlyWith {
                param: Param::Experts,
                value: Needed::AtLeast(1)
            }
        )]
    );
    assert_eq!(
        to_query(&parsed.config),
        format!("{llama}&recompute=selective&recompute_modules=core_attn%2Cmlp")
    );
    // Megatron's TE spec folds a dense layer's norms into its linear maps.
    let parsed = parse(&format!(
        "{llama}&recompute=selective&norm_kernel=fused&recompute_modules=layernorm"
    ));
    assert_eq!(
        named(&parsed),
        [(
            "recompute_modules",
            &Problem::OnlyWith {
                param: Param::NormKernel,
                value: Needed::Is("eager")
            }
        )]
    );
    // Sets round-trip; the default, `core_attn`, is not written.
    for query in [
        format!("{llama}&recompute=selective"),
        format!("{llama}&recompute=selective&recompute_modules=core_attn%2Cmlp"),
        format!("{llama}&recompute=selective&recompute_modules=core_attn%2Clayernorm"),
        "form=transformer&model=mixtral-8x7b&batch=1&seq=4096&recompute=selective&recompute_modules=core_attn%2Cmoe_act".to_owned(),
    ] {
        let parsed = parse(&query);
        assert_eq!(named(&parsed), [], "{query}");
        assert_eq!(to_query(&parsed.config), query);
    }
    let parsed = parse(&format!(
        "{llama}&recompute=selective&recompute_modules=core_attn"
    ));
    assert_eq!(named(&parsed), []);
    assert_eq!(
        to_query(&parsed.config),
        format!("{llama}&recompute=selective")
    );
}

/// DeepSeek-V3's 61 layers over 8 pipeline stages (issue 28): the report
/// names the real cause, not a `layers` the link never gave, and the
/// example layout it suggests is read without a problem.
#[test]
fn layers_that_do_not_divide_over_the_stages_are_named() {
    let parsed = parse("form=transformer&model=deepseek-v3&pp=8");
    let problem = Problem::Indivisible {
        layers: 61,
        stages: 8,
    };
    assert_eq!(
        parsed.problems,
        [ParamError::new(Param::Pp, problem.clone())]
    );
    assert_eq!(parsed.config.transformer.pp, 1);
    assert_eq!(fields::even_layout(61, 8), "8,8,8,8,8,7,7,7");
    assert_eq!(fields::even_layout(64, 8), "8,8,8,8,8,8,8,8");
    assert_eq!(
        parsed.problems[0].to_string(),
        "the model's 61 layers do not divide evenly over 8 stages (`pp`); give their split \
         with pp_layout, e.g. pp_layout=8,8,8,8,8,7,7,7"
    );
    let fixed = parse("form=transformer&model=deepseek-v3&pp=8&pp_layout=8,8,8,8,8,7,7,7");
    assert_eq!(fixed.problems, []);
    assert_eq!(fixed.config.transformer.pp, 8);
    // Over virtual stages: 32 layers, pp 4 × vpp 3.
    let parsed = parse("form=transformer&model=llama-3.1-8b&pp=4&vpp=3&pp_schedule=interleaved");
    assert_eq!(
        parsed.problems,
        [ParamError::new(
            Param::Vpp,
            Problem::Indivisible {
                layers: 32,
                stages: 12
            }
        )]
    );
}

/// The bare address answers the first screen's question (issue 28); an
/// address that names any setup parameter without `form` keeps the rule
/// of thumb, as every link written before.
#[test]
fn the_bare_address_opens_the_first_screen() {
    let first = parse(FIRST_SCREEN);
    assert_eq!(first.problems, []);
    for bare in [
        "",
        "?",
        "https://example.org/?#top",
        "lang=es",
        "units=gib&embed=compact",
    ] {
        let parsed = parse(bare);
        assert_eq!(parsed.problems, [], "{bare}");
        let c = parsed.config;
        assert_eq!(c.form, Form::Transformer, "{bare}");
        assert_eq!(
            (c.transformer, c.model, c.device),
            (
                first.config.transformer,
                first.config.model,
                first.config.device
            ),
            "{bare}"
        );
    }
    // Written back, it is the constant itself: the page's address after the
    // first write, and what `batchfit --json ""` echoes.
    assert_eq!(to_query(&parse("").config), FIRST_SCREEN);
    assert_eq!(parse("lang=es").config.lang, Some(Lang::Es));
    // An unknown name is reported, and the question still answered.
    let parsed = parse("utm_source=docs");
    assert_eq!(parsed.config.form, Form::Transformer);
    assert_eq!(named(&parsed), [("utm_source", &Problem::Unknown)]);
    // Any setup parameter: the documented default form, as before.
    for old in ["batch=8", "gpu=h100-80gb", "seq=512&lang=es", "margin=10"] {
        assert_eq!(parse(old).config.form, Form::Activations, "{old}");
    }
    // A written setup always names its form, so no written link opens the
    // first screen unless it is the first screen.
    assert!(to_query(&Config::default()).starts_with("form=activations"));
}

/// The addresses that state the first screen's setup, whose pre-rendered
/// shell the page's first part keeps as it is: the bare ones, and the first
/// screen as the page writes it, beside the page's own parameters; any
/// other setup, order or extra parameter does not.
#[test]
fn the_addresses_that_state_the_first_screen() {
    let stated = [
        String::new(),
        "lang=es&units=gib".to_owned(),
        "https://x.example/batchfit/?embed=1".to_owned(),
        FIRST_SCREEN.to_owned(),
        format!("?{FIRST_SCREEN}&lang=es"),
        format!("lang=en&{FIRST_SCREEN}&units=gib&embed=compact"),
    ];
    for address in &stated {
        assert!(states_first_screen(address), "{address}");
        // What it states is the first screen's setup.
        let config = parse(address).config;
        assert_eq!(
            Config {
                lang: None,
                units: Units::default(),
                embed: Embed::Off,
                ..config
            },
            parse(FIRST_SCREEN).config,
            "{address}"
        );
    }
    let (first, rest) = FIRST_SCREEN
        .split_once('&')
        .expect("two parameters or more");
    for address in [
        FIRST_SCREEN.replace("batch=2", "batch=4"),
        format!("{FIRST_SCREEN}&gen=64"),
        format!("{rest}&{first}"),
        "form=transformer".to_owned(),
        "batch=2".to_owned(),
    ] {
        assert!(!states_first_screen(&address), "{address}");
    }
}

/// The first screen is what its task select states: QLoRA as the select
/// (and the QLoRA what-if) sets it, on the preset's defaults.
#[test]
fn the_first_screen_is_qlora_as_the_select_sets_it() {
    let first = parse(FIRST_SCREEN).config;
    let mut by_select = first;
    by_select.transformer = Config::default().transformer;
    by_select.transformer.arch = first.transformer.arch;
    by_select.transformer.batch = 2;
    tf::Method::Qlora.apply(&mut by_select.transformer);
    assert_eq!(by_select.transformer, first.transformer);
    assert_eq!(tf::Method::of(&first.transformer), tf::Method::Qlora);
}

#[test]
fn embed_reads_its_old_switch_and_compact() {
    for (text, embed) in [
        ("1", Embed::Full),
        ("true", Embed::Full),
        ("on", Embed::Full),
        ("0", Embed::Off),
        ("no", Embed::Off),
        ("compact", Embed::Compact),
        ("COMPACT", Embed::Compact),
    ] {
        let parsed = parse(&format!("form=activations&embed={text}"));
        assert_eq!(parsed.problems, [], "{text}");
        assert_eq!(parsed.config.embed, embed, "{text}");
    }
    let parsed = parse("form=activations&embed=small");
    assert_eq!(
        named(&parsed),
        [(
            "embed",
            &Problem::NotAnOption {
                allowed: Embed::NAMES
            }
        )]
    );
    assert_eq!(parsed.config.embed, Embed::Off);
    let compact = parse("form=activations&embed=compact").config;
    assert!(to_query(&compact).ends_with("&embed=compact"));
}

proptest! {
    /// Each method, applied to any transformer input, is the method the
    /// input then states, and applying it again changes nothing.
    #[test]
    fn a_method_applied_is_the_method_read(config in any_config(), method in pick(tf::Method::ALL)) {
        let mut t = config.transformer;
        method.apply(&mut t);
        prop_assert_eq!(tf::Method::of(&t), method);
        let once = t;
        method.apply(&mut t);
        prop_assert_eq!(t, once);
    }
}

/// A `b.` change on the bare address changes the first screen's setup.
#[test]
fn setup_b_of_the_bare_address_changes_the_first_screen() {
    let pair = parse_pair("b.batch=1");
    let a = parse(FIRST_SCREEN).config;
    assert_eq!(pair.a.config.transformer, a.transformer);
    let b = pair.b.expect("a setup B").config;
    assert_eq!(b.transformer, a.with_batch(1).transformer);
    assert_eq!((b.form, b.model, b.device), (a.form, a.model, a.device));
}

proptest! {
    /// `gradient_as_bucket_view` applies exactly where the model counts
    /// DDP's buckets (`TransformerInput::ddp`): the rules table and the
    /// model state one condition.
    #[test]
    fn the_bucket_view_applies_where_ddp_runs(config in any_config()) {
        let transformer = Config { form: Form::Transformer, ..config };
        prop_assert_eq!(
            rules::applies(Param::GradientAsBucketView, &transformer),
            transformer.transformer.ddp()
        );
    }
}
