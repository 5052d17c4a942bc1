use super::*;
use crate::activations::{self, BATCH, SEQ};
use crate::param::Param;
use crate::parameters;
use crate::presets::Device;
use crate::query::{parse, tests::any_config};
use crate::transformer::Attention;
use crate::transformer::{self, BaseQuant, Ends, Kind, KvDtype, Recipe, Recompute, ZeroGrad};
use proptest::prelude::*;

const GB: u128 = 1_000_000_000;

pub(super) fn config(query: &str) -> Config {
    let parsed = parse(query);
    assert_eq!(parsed.problems, [], "{query}");
    parsed.config
}

fn estimate_of(query: &str) -> Estimate {
    estimate(&config(query))
}

/// `param=value` means nothing beside `query`: the parser drops it (a quiet
/// rule of query/rules.rs), and the estimate is `query`'s.
fn assert_inert(query: &str, param: Param, value: &str) {
    let given = format!("{query}&{}={value}", param.name());
    assert_eq!(config(&given), config(query), "{given}");
    assert_eq!(estimate_of(&given), estimate_of(query), "{given}");
}

/// Every worked number of docs/model.md and docs/url-parameters.md, by query.
#[test]
fn worked_examples() {
    struct Case {
        query: &'static str,
        weights: u128,
        gradients: u128,
        optimizer_states: u128,
        activations: u128,
    }
    let cases = [
        // The activations rule: 85.90 GB; checkpointed 15.19 GB. No model states.
        Case {
            query: "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10",
            weights: 0,
            gradients: 0,
            optimizer_states: 0,
            activations: 85_899_345_920,
        },
        Case {
            query: "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10&ckpt=1",
            weights: 0,
            gradients: 0,
            optimizer_states: 0,
            activations: 15_185_002_496,
        },
        // The parameters rule: 7B in FP16.
        Case {
            query: "form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=0",
            weights: 14 * GB,
            gradients: 0,
            optimizer_states: 0,
            activations: 0,
        },
        Case {
            query: "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=1&act_mb=0",
            weights: 14 * GB,
            gradients: 28 * GB,
            optimizer_states: 56 * GB,
            activations: 0,
        },
        Case {
            query: "form=parameters&params=7B&precision=fp16&optimizer=sgd_momentum&batch=1&act_mb=0",
            weights: 14 * GB,
            gradients: 28 * GB,
            optimizer_states: 28 * GB,
            activations: 0,
        },
        Case {
            query: "form=parameters&params=7000M&precision=fp16&optimizer=adamw&batch=8&act_mb=500",
            weights: 14 * GB,
            gradients: 28 * GB,
            optimizer_states: 56 * GB,
            activations: 4 * GB,
        },
        Case {
            query: "form=parameters&params=7000M&precision=fp16&optimizer=adamw&batch=16&act_mb=500",
            weights: 14 * GB,
            gradients: 28 * GB,
            optimizer_states: 56 * GB,
            activations: 8 * GB,
        },
        // Llama 2 7B, AMP + AdamW (18 B/param), batch 1 × 4096 tokens, flash attention:
        // per layer 4096 × ((2·8 + 5·2)·4096 + 2·(4·4096 + 4·11008) + 4·32) bytes
        // (each RMSNorm saves its FP32 input and FP32 normalized tensor, the
        // separate Q, K, V, gate and up projections one 16-bit cast each);
        // final norm and head inputs
        // 4096 × (8 + 2) × 4096; the loss's three FP32 logit-sized tensors
        // 3 × 4 × 4096 × 32000.
        Case {
            query: "form=transformer&model=llama-2-7b&batch=1&seq=4096",
            weights: 2 * 6_738_415_616,
            gradients: 4 * 6_738_415_616,
            optimizer_states: 12 * 6_738_415_616,
            activations: 32 * 4096 * (26 * 4096 + 2 * (4 * 4096 + 4 * 11_008) + 4 * 32)
                + 4096 * (8 + 2) * 4096
                + 12 * 4096 * 32_000,
        },
        // Same, full recomputation: 32 FP32 layer inputs, then the larger of
        // the output layer's terms (at the loss) and one recomputed layer's
        // set (after them): here the output layer's, 4096 × (8 + 2) × 4096 +
        // 12 × 4096 × 32000 against 4096 × (20·4096 + 2·(4·4096 + 4·11008) +
        // 4·32).
        Case {
            query: "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full",
            weights: 2 * 6_738_415_616,
            gradients: 4 * 6_738_415_616,
            optimizer_states: 12 * 6_738_415_616,
            activations: 32 * 4 * 4096 * 4096 + 4096 * (8 + 2) * 4096 + 12 * 4096 * 32_000,
        },
    ];
    for case in cases {
        let e = estimate_of(case.query);
        assert_eq!(
            (e.weights, e.gradients, e.optimizer_states, e.activations),
            (
                case.weights,
                case.gradients,
                case.optimizer_states,
                case.activations
            ),
            "{}",
            case.query
        );
        // The napkin rules add everything; the transformer form holds the
        // optimizer state, then either the activations with autocast's 16-bit
        // copies or, at the end of the backward pass, the gradients beside
        // the embedding's incoming FP32 gradient, 4,096 × 4 × 4,096.
        let total = if case.query.starts_with("form=transformer") {
            e.optimizer_states + (e.weights + e.activations).max(e.gradients + 4096 * 4 * 4096)
        } else {
            e.weights + e.gradients + e.optimizer_states + e.activations
        };
        assert_eq!(e.total, total, "{}", case.query);
    }
}

#[test]
fn optimizer_step_buffers_and_activations_are_never_alive_together() {
    // GPT-2 small, FP32 AdamW with foreach: 16 B/param of states plus a 4 B/param
    // temporary during the step, larger than the activations of 2 × 16 tokens.
    let e = estimate_of("form=transformer&model=gpt2&batch=2&seq=16&recipe=fp32&foreach=1");
    assert_eq!(e.optimizer_step, 4 * 124_439_808);
    assert!(e.activations < e.optimizer_step);
    assert_eq!(e.total, 20 * 124_439_808);
    // With a long sequence the activations dominate; neither the buffers nor
    // the gradients, which come after them, add.
    let e = estimate_of("form=transformer&model=gpt2&batch=8&seq=1024&recipe=fp32&foreach=1");
    assert!(e.activations > e.gradients + e.optimizer_step);
    assert_eq!(e.total, e.weights + e.optimizer_states + e.activations);
}

/// torch/utils/checkpoint.py: the reentrant checkpoint's backward
/// (`CheckpointFunction.backward`) keeps the rerun's outputs until its
/// `torch.autograd.backward(outputs_with_grad, args_with_grad)` returns;
/// the non-reentrant one drops them (docs/frameworks.md).
#[test]
fn a_reentrant_checkpoint_keeps_the_rerun_s_output() {
    // Llama 2 7B under autocast, 4,096 tokens, every layer checkpointed,
    // with torchtune's chunked loss so that the layer being recomputed, not
    // the loss, sets the activations' moment: 32 layer inputs (32 × 4,096
    // × 4,096 × 4 = 2,147,483,648, FP32 residual stream), the recomputed
    // layer's set (931,659,776) and the backward pass's working tensors
    // (the FP32 residual gradient 67,108,864 and the SwiGLU's 6 bytes ×
    // 4,096 × 11,008 = 270,532,608): 3,416,784,896.
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full&loss=chunked";
    let plain = estimate_of(base);
    assert_eq!(
        plain.activations,
        32 * 67_108_864 + 931_659_776 + 67_108_864 + 270_532_608
    );
    assert_eq!(plain.activations, 3_416_784_896);
    // Reentrant: one more FP32 residual-stream tensor, 4,096 × 4,096 × 4 =
    // 67,108,864 (7.2 % of the recomputed set), only while that layer's
    // backward runs.
    let reentrant = estimate_of(&format!("{base}&reentrant=1"));
    assert_eq!(reentrant.activations - plain.activations, 67_108_864);
    assert_eq!(reentrant.activations, 3_483_893_760);
    // A group of four layers under one checkpoint keeps one output, its
    // last layer's.
    let group = format!("{base}&recompute_layers=4");
    assert_eq!(
        estimate_of(&format!("{group}&reentrant=1")).activations - estimate_of(&group).activations,
        67_108_864
    );
    // In pure BF16 the residual stream is 2 bytes: 33,554,432.
    let bf16 = format!("{base}&recipe=bf16");
    assert_eq!(
        estimate_of(&format!("{bf16}&reentrant=1")).activations - estimate_of(&bf16).activations,
        33_554_432
    );
    // Megatron-LM's CheckpointFunction is reentrant: its profile says so.
    let megatron = format!("{base}&framework=megatron");
    assert_eq!(
        estimate_of(&megatron),
        estimate_of(&format!("{megatron}&reentrant=1"))
    );
    assert_ne!(
        estimate_of(&megatron),
        estimate_of(&format!("{megatron}&reentrant=0"))
    );
}

/// Megatron-LM with `--no-gradient-accumulation-fusion` (`grad_accum_fusion=0`;
/// docs/model.md §3.3, "Megatron-LM's 16-bit weight gradients"): each
/// weight's gradient exists in BF16 until the DDP hook adds it into the FP32
/// buffer, beside the output layer's backward (the head's) and beside each
/// layer's backward (a tied head's, waiting for the embedding's, and the
/// layer's largest). The FP32 buffer is alive throughout (`zero_grad=zeros`),
/// so these are moments of their own beside the loss's.
#[test]
fn unfused_weight_gradients_worked_examples() {
    // Megatron GPT toy of the functional tests (C013's shape: 12 layers,
    // hidden 512, FFN 2,048, vocabulary 50,304, tied).
    const TOY: &str = "form=transformer&positions=1024&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=1&fused_proj=all&layers=12&hidden=512&heads=8&kv_heads=8&ffn=2048&vocab=50304&framework=megatron";
    struct Case {
        query: String,
        fused: u128,
        unfused: u128,
        phase: Phase,
        /// The 16-bit weight gradients at the peak, beside the FP32 buffer.
        gradients: u128,
    }
    let (toy_p, toy_long_p, llama_p): (u128, u128, u128) = (64_109_568, 65_682_432, 8_030_261_248);
    // With the fusion, Transformer Engine's dummy weight gradients
    // (dummy_weight_gradients_worked_examples), which the unfused run lacks.
    let (toy_dummy, llama_dummy): (u128, u128) = (57_802_752, 1_486_880_768);
    let cases = [
        // 1 × 128 tokens: at the loss 18P + 26,853,376 (12 layers' saved
        // tensors and the embedding dropout's mask) + 38,895,616 (the final
        // norm's and head's inputs 262,144 and the vocab-parallel loss's 6 ×
        // 128 × 50,304). In the head's backward: the same saved tensors, the
        // inputs and the logits' BF16 gradient 2 × 128 × 50,304 =
        // 12,877,824, beside the head's weight gradient 2 × 50,304 × 512 =
        // 51,511,296: 25,755,648 more than the loss.
        Case {
            query: format!("{TOY}&batch=1&seq=128"),
            fused: 18 * toy_p + 26_853_376 + 38_895_616 + toy_dummy,
            unfused: 18 * toy_p + 26_853_376 + 262_144 + 12_877_824 + 51_511_296,
            phase: Phase::Backward,
            gradients: 51_511_296,
        },
        // 1 × 4,096 tokens (4,096 positions), eager attention, every layer
        // recomputed: the recomputed layer's set with its working tensors and
        // the reentrant rerun's output (1,287,651,328) sets the activations'
        // moment above the loss's tensors (1,244,659,712), with 52,428,800
        // kept. Beside it the tied head's gradient, waiting for the
        // embedding's (51,511,296), and the layer's largest, the first MLP
        // map's 2 × 2,048 × 512 = 2,097,152.
        Case {
            query: format!(
                "{}&batch=1&seq=4096&attn=eager&recompute=full",
                TOY.replace("positions=1024", "positions=4096")
            ),
            fused: 18 * toy_long_p + 52_428_800 + 1_287_651_328 + toy_dummy,
            unfused: 18 * toy_long_p + 52_428_800 + 1_287_651_328 + 51_511_296 + 2_097_152,
            phase: Phase::Backward,
            gradients: 53_608_448,
        },
        // Llama-3.1-8B under the Megatron profile, 1 × 1,024 tokens: at the
        // loss 18P + 5,507,121,152 + 804,782,080 (inputs 16,777,216 and 6 ×
        // 1,024 × 128,256); in the head's backward the inputs and 2 × 1,024
        // × 128,256 = 262,668,288 beside the head's gradient 2 × 128,256 ×
        // 4,096 = 1,050,673,152.
        Case {
            query: "form=transformer&model=llama-3.1-8b&framework=megatron&batch=1&seq=1024".into(),
            fused: 18 * llama_p + 5_507_121_152 + 804_782_080 + llama_dummy,
            unfused: 18 * llama_p + 5_507_121_152 + 16_777_216 + 262_668_288 + 1_050_673_152,
            phase: Phase::Backward,
            gradients: 1_050_673_152,
        },
        // At 4,096 tokens the loss's tensors hold more than either moment:
        // 169,792,315,392, and the fused run's dummies beside them.
        Case {
            query: "form=transformer&model=llama-3.1-8b&framework=megatron&batch=1&seq=4096".into(),
            fused: 169_792_315_392 + llama_dummy,
            unfused: 169_792_315_392,
            phase: Phase::Loss,
            gradients: 0,
        },
    ];
    for case in &cases {
        let fused = estimate_of(&case.query);
        let unfused = estimate_of(&format!("{}&grad_accum_fusion=0", case.query));
        let dummy = Parts::of(&config(&case.query)).dummy_wgrads;
        assert_eq!(fused.peak_allocated, case.fused, "{}", case.query);
        assert_eq!(unfused.peak_allocated, case.unfused, "{}", case.query);
        assert_eq!(unfused.peak_phase, case.phase, "{}", case.query);
        assert_eq!(
            unfused.at_peak.gradients + dummy - fused.at_peak.gradients,
            case.gradients,
            "{}",
            case.query
        );
        assert_eq!(unfused.at_peak.sum(), unfused.peak_allocated);
    }
    assert_eq!(cases[0].fused, 1_277_523_968);
    assert_eq!(cases[1].fused, 2_580_166_656);
    assert_eq!(cases[3].fused, 171_279_196_160);
    assert_eq!(cases[0].unfused, 1_245_476_864);
    assert_eq!(cases[1].unfused, 2_575_972_352);
    assert_eq!(cases[2].fused, 152_343_486_464);
    assert_eq!(cases[2].unfused, 151_381_942_272);
    // The timeline's largest point is the head's backward, beside the
    // buffer and the head's 16-bit gradient.
    let c = config(&format!("{}&grad_accum_fusion=0", cases[2].query));
    let top = timeline(&c).into_iter().max_by_key(|p| p.bytes.sum());
    assert_eq!(top.map(|p| p.bytes.sum()), Some(cases[2].unfused));
    // With the fusion (Megatron-LM's default) no 16-bit gradient of the
    // product is counted, only the dummies: the link without the parameter
    // is the fused one.
    assert_eq!(
        estimate_of(&format!("{}&grad_accum_fusion=1", cases[2].query)),
        estimate_of(&cases[2].query)
    );
}

/// A loop that keeps the model's output (`outputs=kept`, docs/model.md §3.3,
/// "The model's output a loop keeps"): one logit-sized tensor in the head's
/// compute dtype, split over the tensor-parallel ranks, at every moment of
/// the step, counted with the activations.
#[test]
fn kept_outputs_worked_examples() {
    const LLAMA: &str = "form=transformer&model=llama-3.1-8b&batch=1&seq=4096";
    const GPT2: &str = "form=transformer&model=gpt2&batch=1&seq=1024";
    let cases = [
        // Autocast: the head's BF16 output, 2 × 4,096 × 128,256.
        (format!("{LLAMA}&outputs=kept"), 1_050_673_152),
        // Pure BF16 the same; FP32 4 bytes; transformers ≤ 4.45's FP32
        // upcast in the forward 4 bytes whatever the recipe.
        (format!("{LLAMA}&recipe=bf16&outputs=kept"), 1_050_673_152),
        (format!("{LLAMA}&recipe=fp32&outputs=kept"), 2_101_346_304),
        (format!("{LLAMA}&outputs=kept_fp32"), 2_101_346_304),
        // Over 2 tensor-parallel ranks, each its half of the vocabulary:
        // 2 × 4,096 × 64,128.
        (format!("{LLAMA}&tp=2&sp=1&outputs=kept"), 525_336_576),
        // Gradient accumulation: each micro-batch rebinds `outputs`, one
        // micro-batch's are alive.
        (
            format!("{LLAMA}&global_batch=8&outputs=kept"),
            1_050_673_152,
        ),
        // GPT-2 small, 1 × 1,024: 2 × 1,024 × 50,257.
        (format!("{GPT2}&outputs=kept"), 102_926_336),
        // Batch 4: four samples' logits, 4 × 102,926,336.
        (
            "form=transformer&model=gpt2&batch=4&seq=1024&outputs=kept".to_owned(),
            411_705_344,
        ),
    ];
    for (query, bytes) in &cases {
        let kept = config(query);
        let mut dropped = kept;
        dropped.transformer.outputs = transformer::Outputs::Dropped;
        let (k, d) = (estimate(&kept), estimate(&dropped));
        assert_eq!(k.kept_outputs, *bytes, "{query}");
        assert_eq!(k.peak_allocated, d.peak_allocated + bytes, "{query}");
        assert_eq!(k.activations, d.activations + bytes, "{query}");
        assert_eq!(k.peak_phase, d.peak_phase, "{query}");
        assert_eq!(
            k.at_peak.activations,
            d.at_peak.activations + bytes,
            "{query}"
        );
        // In every point of the step.
        let (with, without) = (timeline(&kept), timeline(&dropped));
        assert_eq!(with.len(), without.len());
        for (a, b) in with.iter().zip(&without) {
            assert_eq!(a.bytes.sum(), b.bytes.sum() + bytes, "{query} {a:?}");
        }
    }
    // Where no full logits are the model's output: none.
    for extra in ["loss=chunked", "loss=fused", "loss=vocab_parallel"] {
        let mut c = config(&format!("{LLAMA}&{extra}"));
        c.transformer.outputs = transformer::Outputs::Kept;
        assert_eq!(estimate(&c).kept_outputs, 0, "{extra}");
    }
    // A pipeline: the head's rank only.
    let pipe = config(&format!("{LLAMA}&pp=2&outputs=kept&pp_stage=first"));
    assert_eq!(estimate(&pipe).kept_outputs, 0);
    let pipe = config(&format!("{LLAMA}&pp=2&outputs=kept&pp_stage=last"));
    assert_eq!(estimate(&pipe).kept_outputs, 1_050_673_152);
}

/// `framework=pytorch` (PyTorch's AMP recipe: `output = model(input)`
/// through the backward pass and the step) keeps the output; every other
/// profile drops it.
#[test]
fn only_the_pytorch_profile_keeps_the_output() {
    for framework in transformer::Framework::ALL {
        let expected = if *framework == transformer::Framework::Pytorch {
            transformer::Outputs::Kept
        } else {
            transformer::Outputs::Dropped
        };
        assert_eq!(framework.defaults().outputs, expected, "{framework:?}");
    }
    let e = estimate_of("form=transformer&model=llama-3.1-8b&batch=1&seq=4096&framework=pytorch");
    assert_eq!(e.kept_outputs, 1_050_673_152);
}

/// Links written before `grad_accum_fusion` read as the fused default: the
/// validation rows of Megatron-LM's functional tests under the profile, as
/// `cargo xtask accuracy` computed them before the parameter existed, with
/// Transformer Engine's dummy weight gradients added (the toy's 57,802,752,
/// V023's BERT over 4 tensor-parallel ranks, its two MLP maps of one shape
/// and no decoder head, 2 × 1,024 × (768 + 256 + 1,024) = 4,194,304; V261's
/// last stage 2 × 4,096 × (6,144 + 4,096 + 16,384 + 16,384 + 131,200) =
/// 1,427,111,936).
#[test]
fn links_without_grad_accum_fusion_read_as_fused() {
    let cases = [
        // C013.
        (
            "form=transformer&positions=1024&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=1&fused_proj=all&layers=12&hidden=512&heads=8&kv_heads=8&ffn=2048&vocab=50304&seq=1024&recipe=main_fp32&optimizer=adamw&attn=eager&batch=4&gpus=8&zero=1&framework=megatron",
            4_596_482_560 + 57_802_752,
        ),
        // V016.
        (
            "form=transformer&positions=1024&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=1&fused_proj=all&layers=12&hidden=512&heads=8&kv_heads=8&ffn=2048&vocab=50304&seq=1024&recipe=main_fp32&optimizer=adamw&recompute=full&attn=eager&batch=4&gpus=8&framework=megatron",
            2_451_060_736 + 57_802_752,
        ),
        // V023.
        (
            "form=transformer&kind=encoder&positions=512&token_types=2&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=0&fused_proj=all&layers=24&hidden=1024&heads=16&kv_heads=16&ffn=4096&vocab=30522&seq=512&recipe=main_fp32&optimizer=adamw&attn=eager&batch=4&tp=4&gpus=2&global_batch=128&framework=megatron",
            2_845_379_072 + 4_194_304,
        ),
        // V261.
        (
            "form=transformer&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=0&positions=8192&layers=32&hidden=4096&heads=32&kv_heads=8&ffn=16384&vocab=131200&seq=8192&batch=1&gpus=2&zero=1&global_batch=8&framework=megatron&pp=4&pp_schedule=interleaved&vpp=8&pp_stage=last",
            62_089_756_672 + 1_427_111_936,
        ),
    ];
    for (query, bytes) in cases {
        assert_eq!(estimate_of(query).peak_allocated, bytes, "{query}");
        assert!(!crate::query::to_query(&config(query)).contains("grad_accum_fusion"));
    }
}

/// `zero_grad(set_to_none=True)` between the loss and `loss.backward()`
/// (`zero_grad=after_forward`, Lightning's automatic optimization): from the
/// second step on the previous step's gradients are alive through the whole
/// forward pass and the loss's forward, and freed before the backward pass
/// makes them again (docs/model.md §3.6).
#[test]
fn zero_grad_after_the_forward_pass_worked_example() {
    // Llama 2 7B, `amp`, fused AdamW, 1 × 4,096 tokens, as below: 12P held,
    // 2P of BF16 copies, FP32 gradients 4P (P = 6,738,415,616). At the end
    // of the forward pass the loss's forward holds the BF16 logits, their
    // FP32 copy and the log-softmax (2 + 4 + 4 = 10 bytes per logit), not
    // the 12 of the backward pass's start: the activations then are A − 2 ×
    // 4,096 × 32,000 = 31,553,748,992 − 262,144,000 = 31,291,604,992.
    // 18P + 31,291,604,992 = 121,291,481,088 + 31,291,604,992 =
    // 152,583,086,080, above the loss's 125,891,567,616 (the gradients gone
    // by then) and the end of the backward pass's 12P + 4P.
    const P: u128 = 6_738_415_616;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    let e = estimate_of(&format!("{base}&zero_grad=after_forward"));
    assert_eq!(e.peak_phase, Phase::Forward);
    assert_eq!(e.at_peak.gradients, 4 * P);
    assert_eq!(e.at_peak.activations, 31_291_604_992);
    assert_eq!(e.total, 18 * P + 31_291_604_992);
    assert_eq!(e.total, 152_583_086_080);
    // Between `none` (125,891,567,616) and `zeros` (152,845,230,080, the
    // gradients alive at the loss too).
    assert_eq!(estimate_of(base).total, 125_891_567_616);
    assert_eq!(
        estimate_of(&format!("{base}&zero_grad=zeros")).total,
        152_845_230_080
    );
    // The timeline: the gradients in every forward point, none at the loss,
    // then made again layer by layer.
    let points = timeline(&parse(&format!("{base}&zero_grad=after_forward")).config);
    let forward = points.iter().filter(|p| p.moment == Moment::Forward);
    assert_eq!(forward.clone().count(), 32);
    for point in forward {
        assert_eq!(point.bytes.gradients, 4 * P, "{point:?}");
    }
    let loss = points.iter().find(|p| p.moment == Moment::Loss);
    assert_eq!(loss.map(|p| p.bytes.gradients), Some(0));
    let last = points.iter().rfind(|p| p.moment == Moment::Backward);
    assert_eq!(last.map(|p| p.bytes.gradients), Some(4 * P));
    // With accumulation the earlier micro-batches' gradients are alive
    // through the later ones' forward and backward passes anyway: where the
    // loop clears them changes nothing.
    assert_eq!(
        estimate_of(&format!("{base}&global_batch=2&zero_grad=after_forward")),
        estimate_of(&format!("{base}&global_batch=2"))
    );
    // A step inside the backward pass drops each gradient as it is made
    // (torchtune's `optimizer_in_bwd`): none left for the next forward pass.
    assert_eq!(
        estimate_of(&format!("{base}&step=in_backward&zero_grad=after_forward")),
        estimate_of(&format!("{base}&step=in_backward"))
    );
    // Lightning's profiles set it (their Trainer's closure); a query can
    // still say otherwise.
    let lightning =
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&framework=lightning_bf16_mixed";
    assert_eq!(
        estimate_of(lightning),
        estimate_of(&format!("{lightning}&zero_grad=after_forward"))
    );
    assert_ne!(
        estimate_of(lightning),
        estimate_of(&format!("{lightning}&zero_grad=none"))
    );
}

/// Autograd creates each gradient during the backward pass and
/// `zero_grad(set_to_none=True)` frees it after the step: the gradients and
/// the activations peak at different moments, unless gradient accumulation
/// keeps the gradients of an earlier micro-batch.
#[test]
fn gradients_appear_in_the_backward_pass() {
    // Llama 2 7B, `amp`, fused AdamW, 1 × 4,096 tokens (P = 6,738,415,616):
    // FP32 parameters and two FP32 moments (12P = 80,860,987,392) are held; at
    // the start of the backward pass autocast's BF16 copies (2P =
    // 13,476,831,232) and the activations (A = 31,553,748,992) are alive,
    // after it the FP32 gradients (4P = 26,953,662,464). 45.0 GB > 27.0 GB: the
    // loss.
    const P: u128 = 6_738_415_616;
    const A: u128 = 31_553_748_992;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    let e = estimate_of(base);
    assert_eq!(e.activations, A);
    assert_eq!(e.total, 12 * P + 2 * P + A);
    assert_eq!(e.total, 125_891_567_616);
    assert_eq!(e.peak_phase, Phase::Loss);
    // Gradient accumulation over two micro-batches: the second one's forward
    // and backward run on top of the first one's gradients.
    let e = estimate_of(&format!("{base}&global_batch=2"));
    assert_eq!(e.accumulation_steps, Some(2));
    assert_eq!(e.total, 12 * P + 4 * P + 2 * P + A);
    assert_eq!(e.total, 152_845_230_080);
    // zero_grad(set_to_none=False) (PyTorch before 2.0): the zero-filled
    // gradients stay allocated through the next forward pass, so they are
    // alive at the loss too: the same peak as accumulation (docs/model.md §3.6).
    let zeros = estimate_of(&format!("{base}&zero_grad=zeros"));
    assert_eq!(zeros.total, 152_845_230_080);
    assert_eq!(zeros.at_peak.gradients, 4 * P);
    assert_eq!(zeros.peak_phase, Phase::Loss);
    // Inference has no gradients to keep: the setting changes nothing.
    for zero_grad in ["zeros", "after_forward"] {
        assert_inert(
            &format!("{base}&mode=inference"),
            Param::ZeroGrad,
            zero_grad,
        );
    }
    assert_eq!(e.peak_phase, Phase::Loss);
    // 128 tokens in pure BF16 (P = 8,030,261,248 for Llama 3.1 8B): 2P
    // weights and 4P of moments held; the activations (well under 2P) lose to
    // the BF16 gradients (2P) at the end of the backward pass, where a fused
    // step adds nothing: 8P, and the embedding's incoming gradient beside
    // them, 128 × 2 × 4,096.
    const Q: u128 = 8_030_261_248;
    let e =
        estimate_of("form=transformer&model=llama-3.1-8b&batch=1&seq=128&recipe=bf16&step=fused");
    assert!(e.activations < 2 * Q);
    assert_eq!(e.total, 8 * Q + 128 * 2 * 4096);
    assert_eq!(e.peak_phase, Phase::Backward);
    // A foreach step adds its square roots (2P) to the gradients: 10P.
    let e =
        estimate_of("form=transformer&model=llama-3.1-8b&batch=1&seq=128&recipe=bf16&step=foreach");
    assert_eq!(e.total, 10 * Q);
    assert_eq!(e.peak_phase, Phase::OptimizerStep);
}

/// The three readings and the moment of the peak, byte by byte.
#[test]
fn three_readings_and_the_phase_of_the_peak() {
    // 14 GB weights + 2 × 1 GB activations: allocated 16 GB; the allocator keeps
    // 10 % of the 2 GB transient on top (16.2 GB); nvidia-smi adds the 1 GB
    // overhead (17.2 GB), which with no margin is what must fit.
    let e =
        estimate_of("form=parameters&params=7B&precision=fp16&optimizer=none&batch=2&act_mb=1000");
    assert_eq!(e.peak_allocated, 16 * GB);
    assert_eq!(e.total, e.peak_allocated);
    assert_eq!(e.peak_reserved, 16 * GB + 200_000_000);
    assert_eq!(e.nvidia_smi, 17 * GB + 200_000_000);
    assert_eq!(e.required, e.nvidia_smi);
    assert_eq!(e.peak_phase, Phase::Forward);
    // The gradients and the optimizer step's buffers win for GPT-2 on 2 × 16
    // tokens: they are the transient the slack applies to (the gradients are
    // allocated by every backward pass and freed after every step).
    let e = estimate_of("form=transformer&model=gpt2&batch=2&seq=16&recipe=fp32&foreach=1");
    assert_eq!(e.peak_phase, Phase::OptimizerStep);
    assert_eq!(
        e.peak_reserved,
        e.peak_allocated + (e.gradients + e.optimizer_step).div_ceil(10)
    );
    // A decoder peaks at the loss (FP32 logits and their gradient), an encoder at
    // the start of the backward pass, generation in the prefill (2,048 prompt
    // tokens' working set against 256 more tokens' cache) or, with a long
    // generation after a short prompt, at its end.
    let phase = |q| estimate_of(q).peak_phase;
    assert_eq!(
        phase("form=transformer&model=llama-2-7b&batch=1&seq=4096"),
        Phase::Loss
    );
    assert_eq!(
        phase("form=transformer&model=bert-large&batch=1&seq=512"),
        Phase::Backward
    );
    assert_eq!(
        phase("form=transformer&model=qwen2.5-7b&mode=inference"),
        Phase::Prefill
    );
    assert_eq!(
        phase("form=transformer&model=qwen2.5-7b&mode=inference&seq=128&gen=8192"),
        Phase::Generation
    );
    assert_eq!(phase("form=activations"), Phase::Forward);
    assert_eq!(phase("form=parameters&optimizer=adamw"), Phase::Backward);
}

#[test]
fn required_adds_the_overhead_then_the_margin() {
    let e = estimate_of(
        "form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=0&overhead_gb=1&margin=20",
    );
    assert_eq!(e.overhead, GB);
    assert_eq!(e.required, 18 * GB);
    // The default overhead is 1 GB and no margin.
    let e = estimate_of("form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=0");
    assert_eq!((e.overhead, e.required), (GB, 15 * GB));
}

#[test]
fn devices_give_fit_and_the_exact_largest_batch() {
    // 14 GB weights + 1 GB overhead + 1 GB per sample, reserved as 1.1 GB with
    // the allocator's 10 % slack, on a 40 GB custom device: 22 samples (25 × 1.1
    // = 27.5 > 25 GB left; 22 × 1.1 = 24.2 ≤ 25).
    let e = estimate_of(
        "form=parameters&params=7B&precision=fp16&optimizer=none&batch=32&act_mb=1000&gpu_gb=40",
    );
    assert_eq!(
        (e.device_bytes, e.fits, e.max_batch),
        (Some(40 * GB), Some(false), Some(22))
    );
    let e = estimate_of(
        "form=parameters&params=7B&precision=fp16&optimizer=adamw&batch=1&act_mb=1000&gpu=h100-80gb",
    );
    assert_eq!((e.fits, e.max_batch), (Some(false), Some(0)));
    let e =
        estimate_of("form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=1000");
    assert_eq!((e.device_bytes, e.fits, e.max_batch), (None, None, None));
}

#[test]
fn every_device_preset_with_its_fit_and_largest_batch() {
    // 14 GB of FP16 weights + 1 GB overhead + 1.1 GB reserved per sample:
    // 16.1 GB at batch 1, against what CUDA can allocate. A T4 (15,104 MiB =
    // 15,837,691,904 bytes, under nvidia-smi's 15,360 MiB) holds none; a V100
    // 16GB (16,144 MiB) one, with 828,210,944 bytes to spare; an RTX 3090
    // (24,238 MiB = 25,415,385,088 bytes) nine (10.42 GB / 1.1 GB).
    let c = config("form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=1000");
    let rows = devices(&c);
    assert_eq!(rows.len(), crate::presets::DEVICES.len());
    let row = |id: &str| *rows.iter().find(|r| r.device.id == id).unwrap();
    let t4 = row("t4");
    assert_eq!(
        (t4.required, t4.fits, t4.max_batch),
        (16_100_000_000, false, 0)
    );
    assert_eq!(t4.capacity(), 15_837_691_904);
    assert_eq!(t4.spare(), 15_837_691_904 - 16_100_000_000);
    let v100 = row("v100-16gb");
    assert_eq!(
        (v100.fits, v100.max_batch, v100.spare()),
        (true, 1, 828_210_944)
    );
    assert_eq!(row("rtx-3090").max_batch, 9);
    // Not the transformer form: no GPU count.
    assert!(rows.iter().all(|r| r.gpus_needed.is_none()));
    // Twenty samples (36.0 GB) are too many for the 32 GB cards and fit on a
    // 40 GB one; the spare is negative where it does not fit.
    let rows = devices(&c.with_batch(20));
    for r in &rows {
        assert_eq!(r.fits, r.capacity() >= 36_000_000_000, "{}", r.device.id);
        assert_eq!(r.fits, r.spare() >= 0, "{}", r.device.id);
    }
    // The transformer form says how many GPUs ZeRO-3 needs on each.
    let c = config("form=transformer&model=llama-3.1-8b&zero=3&batch=1&seq=2048");
    let rows = devices(&c);
    let h100 = rows.iter().find(|r| r.device.id == "h100-80gb").unwrap();
    let mut on_h100 = c;
    on_h100.device = Some(Device::Preset(h100.device));
    assert_eq!(h100.gpus_needed, gpus_needed(&on_h100));
    assert!(h100.gpus_needed.is_some());
}

#[test]
fn the_sweep_runs_past_the_largest_batch_that_fits() {
    let c = config(
        "form=parameters&params=7B&precision=fp16&optimizer=none&batch=3&act_mb=1000&gpu_gb=40",
    );
    let rows = sweep(&c);
    let batches: Vec<u64> = rows.iter().map(|r| r.batch).collect();
    assert_eq!(batches, [1, 2, 3, 4, 8, 16, 32]);
    for row in &rows {
        assert_eq!(row.model_states, 14 * GB);
        assert_eq!(row.activations, u128::from(row.batch) * GB);
        assert_eq!(row.total, row.model_states + row.activations);
        // Reserved: 10 % slack on the activations; then the 1 GB overhead.
        assert_eq!(row.required, row.total + row.activations / 10 + GB);
    }
    // Without a device: up to one power of two past the chosen batch.
    let c = config("form=parameters&params=7B&batch=5");
    assert_eq!(
        sweep(&c).iter().map(|r| r.batch).collect::<Vec<_>>(),
        [1, 2, 4, 5, 8]
    );
}

/// The three contradictions of issue 12, each now one story: what is alive at
/// the peak sums to the peak, and a sweep row's parts to its total.
#[test]
fn what_is_alive_at_the_peak_is_named() {
    // Llama-3.1-8B, batch 4 × 4096, AMP: the loss sets the peak, before any
    // gradient exists; the FP32 gradients (32.1 GB) are not in the sum.
    let e = estimate_of("form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb");
    assert_eq!(e.peak_phase, Phase::Loss);
    assert!(e.at_peak.activations_alive);
    assert_eq!(e.at_peak.gradients, 0);
    assert!(e.gradients > 30 * GB);
    assert_eq!(e.at_peak.sum(), e.peak_allocated);
    assert!(e.weights + e.gradients + e.optimizer_states + e.activations > e.total);
    // Llama-3.1-70B over TP 8 with sequence parallelism: the first sweep row's
    // model states are those alive at its peak, so they do not exceed its total.
    let rows = sweep(&config("form=transformer&model=llama-3.1-70b&tp=8&sp=1"));
    for row in &rows {
        assert_eq!(row.model_states + row.activations, row.total);
    }
    // The end of the backward pass sets the peak of a small batch: the
    // activations are freed by then but for the embedding's incoming FP32
    // gradient, 128 × 4 × 4,096.
    let e = estimate_of("form=transformer&model=llama-3.1-8b&batch=1&seq=128");
    assert_eq!(e.peak_phase, Phase::Backward);
    assert!(!e.at_peak.activations_alive);
    assert_eq!(
        (e.at_peak.activations, e.at_peak.gradients),
        (2_097_152, e.gradients)
    );
    // The parameters form's napkin rule adds everything: nothing is left out.
    let e =
        estimate_of("form=parameters&params=1.3B&precision=fp16&batch=8&act_mb=800&gpu=rtx-4090");
    assert_eq!(
        e.at_peak.sum(),
        e.weights + e.gradients + e.optimizer_states + e.activations
    );
}

/// LoRA (Hu et al. 2021) as PEFT runs it, docs/model.md §3.8: Llama 3.1 8B
/// with r = 16 on q_proj and v_proj has 6,815,744 adapter parameters (what
/// PEFT's `print_trainable_parameters` reports for it); the BF16 base stays,
/// the FP32 adapters train.
#[test]
fn lora_trains_fp32_adapters_over_a_frozen_base() {
    const P: u128 = 8_030_261_248;
    const A: u128 = 6_815_744;
    let base = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recipe=bf16";
    let full = estimate_of(base);
    let lora = estimate_of(&format!("{base}&lora_rank=16"));
    assert_eq!(lora.weights, 2 * P + 4 * A);
    assert_eq!(lora.gradients, 4 * A);
    assert_eq!(lora.optimizer_states, 8 * A);
    assert!(lora.total < full.total);
    // The adapter branches save more: lora_A's FP32 copy of its input
    // (h per token for q and for v) and x·A (r per token for each).
    assert_eq!(
        lora.activations - full.activations,
        2048 * (4 * 2 * 4096 + 4 * 16 * 2) * 32
    );
    // Every linear map: r (d_in + d_out) summed over the seven maps, 32 layers.
    let all = estimate_of(&format!("{base}&lora_rank=16&lora_targets=all"));
    let per_layer = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 3 * (4096 + 14_336));
    assert_eq!(all.gradients, 4 * 32 * per_layer);
    // QLoRA: the linear maps in bitsandbytes 4-bit, 0.5 byte and 4/64 of a
    // byte per weight; embeddings, the head and the norms stay BF16.
    let count = transformer::parameter_count(&config(base).transformer.arch);
    assert_eq!(count.linear, 6_979_321_856);
    assert_eq!(P - count.linear, 1_050_939_392);
    let qlora = estimate_of(&format!("{base}&lora_rank=16&base_quant=nf4"));
    assert_eq!(
        qlora.weights,
        count.linear / 2 + 4 * count.linear / 64 + 2 * (P - count.linear) + 4 * A
    );
    // The issue's worked example: with double quantization, an 8-bit absmax
    // per 64 weights and an FP32 scale per 256 absmaxes, 3,600,416,768 bytes.
    let double = estimate_of(&format!(
        "{base}&lora_rank=16&base_quant=nf4&double_quant=1"
    ));
    assert_eq!(double.weights, 3_600_416_768 + 2 * 1_050_939_392 + 4 * A);
    // Every linear map at r = 16: 41,943,040 trainable parameters (PEFT's count).
    let all = transformer::Adapters::of(
        &config(&format!("{base}&lora_rank=16&lora_targets=all")).transformer,
    );
    assert_eq!(all.total, 41_943_040);
    // Inference has no adapters to train: the rank changes nothing.
    assert_inert(&format!("{base}&mode=inference"), Param::LoraRank, "16");
}

/// DoRA (`lora_variant=dora`, peft/tuners/lora/dora.py): Llama-3.1-8B in
/// BF16, every linear map at r = 16. The magnitudes add Σ d_out = 43,008 per
/// block (43,319,296 trainable in all); each map saves its base output (BF16)
/// and its adapter output (FP32) per token; the largest map's forward builds
/// B·A from a 14,336 × 14,336 FP32 identity (down_proj) (docs/model.md §3.8).
#[test]
fn dora_adds_magnitudes_saved_outputs_and_a_working_set() {
    let base = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recipe=bf16&lora_rank=16&lora_targets=all";
    let lora = estimate_of(base);
    let dora = estimate_of(&format!("{base}&lora_variant=dora"));
    let adapters =
        transformer::Adapters::of(&config(&format!("{base}&lora_variant=dora")).transformer);
    assert_eq!(adapters.total, 41_943_040 + 32 * 43_008);
    assert_eq!(adapters.total, 43_319_296);
    assert_eq!(dora.gradients, 4 * 43_319_296);
    assert_eq!(
        dora.activations - lora.activations,
        2048 * (2 + 4) * 43_008 * 32
    );
    // down_proj: 4 d_in² + 4 r d_in + (4 + 3 × 2) d_in d_out bytes.
    let (d_in, d_out) = (14_336u128, 4096u128);
    let working = 4 * d_in * d_in + 4 * 16 * d_in + 10 * d_in * d_out;
    assert_eq!(adapters.dora_working, working);
    assert_eq!(working, 1_410_203_648); // docs/model.md §3.8
    assert_eq!(dora.buffers - lora.buffers, working);
    assert!(dora.at_peak.activations_alive);
    assert_eq!(dora.at_peak.buffers, dora.buffers);
    assert_eq!(dora.at_peak.sum(), dora.peak_allocated);
    // Without a rank it is reported and dropped.
    let parsed = parse("form=transformer&lora_variant=dora");
    assert_eq!(
        parsed.config.transformer.lora_variant,
        transformer::LoraVariant::Lora
    );
    assert_eq!(parsed.problems.len(), 1);
}

/// docs/model.md §3.7, worked example.
#[test]
fn the_documented_decomposition_of_the_peak() {
    let e = estimate_of("form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb");
    let p = e.at_peak;
    assert_eq!(
        (p.weights, p.gradients, p.optimizer_states, p.activations),
        (16_060_522_496, 0, 96_363_134_976, 152_655_888_384)
    );
    assert_eq!(e.peak_allocated, 265_079_545_856);
    assert_eq!(e.allocator_cache(), 16_871_641_088);
    assert_eq!(e.peak_reserved, 281_951_186_944);
    assert_eq!(e.required, 282_951_186_944);
    assert_eq!(e.gradients, 32_121_044_992);
}

#[test]
fn accumulation_steps_reach_the_global_batch() {
    assert_eq!(
        estimate_of("form=transformer&batch=16&gpus=4&global_batch=512").accumulation_steps,
        Some(8)
    );
    assert_eq!(
        estimate_of("form=transformer&batch=16&gpus=4&global_batch=500").accumulation_steps,
        Some(8)
    );
    assert_eq!(
        estimate_of("form=parameters&batch=16&global_batch=20").accumulation_steps,
        Some(2)
    );
    assert_eq!(
        estimate_of("form=parameters&batch=16").accumulation_steps,
        None
    );
}

#[test]
fn gpus_needed_is_the_smallest_that_fits() {
    let c = config(
        "form=transformer&model=llama-3.1-70b&batch=1&seq=4096&recompute=full&zero=3&gpu=h100-80gb",
    );
    let n = gpus_needed(&c).expect("some number of GPUs fits");
    let fits = |gpus: u64| {
        let mut trial = c;
        trial.transformer.gpus = gpus;
        estimate(&trial).fits == Some(true)
    };
    assert!(fits(n) && !fits(n - 1), "{n}");
    // 70.6B × 14 B (BF16 weights and the optimizer state; the 4 B of
    // gradients come after the activations are freed) over n GPUs plus the
    // activations under 80 GB: at least 13.
    assert!((13..=24).contains(&n), "{n}");
    // Stage 0 does not shard: more GPUs never help.
    assert_eq!(
        gpus_needed(&config(
            "form=transformer&model=llama-3.1-70b&gpu=h100-80gb"
        )),
        None
    );
}

#[test]
fn what_ifs_name_each_change_and_its_estimate() {
    // 1,024 tokens: at 2,048 the FP32 attention scores (SDPA's math kernel
    // for grouped-query attention) alone outgrow the device, so that no
    // number of ZeRO-3 GPUs helps.
    let c =
        config("form=transformer&model=llama-3.1-8b&batch=2&seq=1024&recipe=fp32&gpu=a100-80gb");
    let found = what_ifs(&c);
    let changes: Vec<Change> = found.iter().map(|w| w.change).collect();
    assert_eq!(changes.len(), 7, "{changes:?}");
    assert!(matches!(
        changes[..],
        [
            Change::HalfBatch,
            Change::Checkpointing,
            Change::Bf16,
            Change::Zero3 { .. },
            Change::HalfSeq,
            Change::Lora,
            Change::Qlora
        ]
    ));
    let base = estimate(&c);
    for w in &found {
        let e = estimate(&w.config);
        assert_eq!((w.required, w.fits), (e.required, e.fits));
        assert!(w.required < base.required, "{:?}", w.change);
    }
    if let Change::Zero3 { gpus } = changes[3] {
        assert_eq!(found[3].fits, Some(true));
        assert_eq!(
            (
                found[3].config.transformer.zero,
                found[3].config.transformer.gpus
            ),
            (3, gpus)
        );
    }
    // Nothing to change: batch 1, checkpointed, BF16, parameters form has no sequence.
    let c = config("form=parameters&batch=1&precision=bf16");
    assert_eq!(what_ifs(&c), []);
}

/// Issue 13's RTX 4090 user: Llama-3.1-8B does not fit one 24 GB card for
/// full fine-tuning, nor with LoRA alone at any batch (the activations of
/// 2,048 tokens), and QLoRA as PEFT's recipe runs it (its FP32 embedding,
/// head and residual stream, `prepare_kbit`) fits 3 of the 4 sequences.
#[test]
fn adapters_are_what_ifs_with_their_real_numbers() {
    let c = config("form=transformer&model=llama-3.1-8b&batch=4&seq=2048&gpu=rtx-4090");
    let found = what_ifs(&c);
    let by = |change| found.iter().find(|w| w.change == change).expect("listed");
    let (lora, qlora) = (by(Change::Lora), by(Change::Qlora));
    let t = lora.config.transformer;
    assert_eq!(
        (t.lora_rank, t.recipe, t.base_quant),
        (16, Recipe::Bf16, BaseQuant::None)
    );
    let q = qlora.config.transformer;
    assert_eq!(
        (
            q.lora_rank,
            q.base_quant,
            q.double_quant,
            q.recompute,
            q.prepare_kbit
        ),
        (16, BaseQuant::Nf4, true, Recompute::Full, true)
    );
    let (lora_estimate, qlora_estimate) = (estimate(&lora.config), estimate(&qlora.config));
    assert_eq!((lora.fits, lora_estimate.max_batch), (Some(false), Some(0)));
    assert_eq!(
        (qlora.fits, qlora_estimate.max_batch),
        (Some(false), Some(3))
    );
    assert!(qlora_estimate.weights < lora_estimate.weights);
    // Already LoRA: only QLoRA is offered; already QLoRA: neither.
    let lora_now = config(&format!(
        "{}&recipe=bf16&lora_rank=8",
        "form=transformer&model=llama-3.1-8b&batch=4&seq=2048&gpu=rtx-4090"
    ));
    let changes: Vec<Change> = what_ifs(&lora_now).iter().map(|w| w.change).collect();
    assert!(
        !changes.contains(&Change::Lora) && changes.contains(&Change::Qlora),
        "{changes:?}"
    );
    assert_eq!(
        what_ifs(&lora_now)
            .iter()
            .find(|w| w.change == Change::Qlora)
            .unwrap()
            .config
            .transformer
            .lora_rank,
        8
    );
    // Inference: an FP8 KV cache halves the cache, with its real number.
    let c = config(
        "form=transformer&model=llama-3.1-8b&mode=inference&recipe=bf16&batch=8&seq=32000&gpu=rtx-4090",
    );
    let fp8 = what_ifs(&c)
        .into_iter()
        .find(|w| w.change == Change::Fp8Kv)
        .expect("listed");
    assert_eq!(fp8.config.transformer.kv_dtype, KvDtype::Fp8);
    assert_eq!(estimate(&fp8.config).kv_cache * 2, estimate(&c).kv_cache);
}

#[test]
fn inference_has_weights_kv_cache_and_prefill_only() {
    // Qwen2.5-7B, BF16, 30,720-token prompt + 2,048 generated (Qwen's speed benchmark row).
    let e =
        estimate_of("form=transformer&model=qwen2.5-7b&mode=inference&batch=1&seq=30720&gen=2048");
    assert_eq!((e.gradients, e.optimizer_states), (0, 0));
    assert_eq!(e.weights, 2 * 7_615_616_512);
    assert_eq!(e.kv_cache, 2 * 28 * 4 * 128 * 32_768 * 2);
    // Residual + normed copy, then the gated MLP's three ffn-wide tensors, plus last-token logits.
    let prefill = 2 * 30_720 * 2 * 3584 + 3 * 30_720 * 2 * 18_944 + 4 * 152_064;
    assert_eq!(e.activations, prefill);
    // The prefill sets the peak: the prompt's cache only, the 2,048
    // generated tokens' not yet.
    assert_eq!(e.peak_phase, Phase::Prefill);
    let prompt_cache = 2 * 28 * 4 * 128 * 30_720 * 2;
    assert_eq!(e.at_peak.kv_cache, prompt_cache);
    assert_eq!(e.peak_allocated, e.weights + prompt_cache + prefill);
    // The end of generation: the whole cache beside one token's block (its
    // stream 2 × 2 × 3,584, the MLP's 3 × 2 × 18,944, the logits) and the
    // concatenation's second copy of one layer's keys, 32,767 positions ×
    // 4 heads × 128 × 2 bytes (transformers `DynamicLayer.update`).
    let moments = transformer::InferenceMoments::of(
        &config("form=transformer&model=qwen2.5-7b&mode=inference&batch=1&seq=30720&gen=2048")
            .transformer,
    );
    let decode = 2 * 2 * 3584 + 3 * 2 * 18_944 + 4 * 152_064 + 32_767 * 4 * 128 * 2;
    assert_eq!(
        moments,
        transformer::InferenceMoments {
            prefill_cache: prompt_cache,
            prefill,
            cache: e.kv_cache,
            decode,
        }
    );
    // The timeline frees the prefill's working set before generating.
    let points = timeline(&config(
        "form=transformer&model=qwen2.5-7b&mode=inference&batch=1&seq=30720&gen=2048",
    ));
    assert_eq!(points[0].bytes.activations, prefill);
    let last = points.last().expect("generation");
    assert_eq!(last.moment, Moment::Generation);
    assert_eq!(
        (last.bytes.kv_cache, last.bytes.activations),
        (e.kv_cache, decode)
    );
    // Every moment of the generation holds a step's working set, none the
    // prefill's, and a cache that grows.
    let generation: Vec<_> = points
        .iter()
        .filter(|p| p.moment == Moment::Generation)
        .collect();
    assert!(generation.len() >= 2, "{points:?}");
    for pair in generation.windows(2) {
        assert!(pair[0].bytes.kv_cache < pair[1].bytes.kv_cache);
    }
    for point in &generation {
        assert!(point.bytes.activations <= decode, "{point:?}");
        assert!(point.bytes.activations < prefill, "{point:?}");
    }
}

/// The longest context that fits: Llama-3.1-8B in BF16 on one 24 GB card
/// generating 256 tokens, with the KV cache in BF16 and in FP8 (issue 13).
#[test]
fn the_longest_context_that_fits() {
    let base = "form=transformer&model=llama-3.1-8b&mode=inference&recipe=bf16&batch=1&gen=256&gpu=rtx-4090";
    let longest = |extra: &str| max_seq(&config(&format!("{base}{extra}"))).unwrap();
    let (bf16, fp8, int4) = (
        longest(""),
        longest("&kv_dtype=fp8"),
        longest("&kv_dtype=int4"),
    );
    // 16.06 GB of BF16 weights leave about 6 GB for the cache: 128 KiB a token
    // in BF16 (2 × 32 layers × 8 × 128 × 2 bytes), half in FP8.
    assert_eq!((bf16, fp8), (32_659, 45_304)); // docs/model.md §5
    assert!(int4 > fp8, "{fp8} {int4}");
    for (extra, max) in [("", bf16), ("&kv_dtype=fp8", fp8), ("&kv_dtype=int4", int4)] {
        let at = |seq: u64| estimate_of(&format!("{base}{extra}&seq={}", seq - 256)).fits;
        assert_eq!((at(max), at(max + 1)), (Some(true), Some(false)), "{extra}");
    }
    // Training (LoRA over a BF16 base): the longest sequence at the chosen
    // batch; none without a device.
    let train = config(
        "form=transformer&model=llama-3.1-8b&batch=1&recipe=bf16&lora_rank=16&recompute=full&gpu=h100-80gb",
    );
    let seq = max_seq(&train).unwrap();
    assert!(seq > 8192, "{seq}");
    assert_eq!(estimate(&with_seq(&train, seq)).fits, Some(true));
    assert_eq!(estimate(&with_seq(&train, seq + 1)).fits, Some(false));
    assert_eq!(
        max_seq(&config("form=transformer&model=llama-3.1-8b")),
        None
    );
    assert_eq!(max_seq(&config("form=parameters&gpu=h100-80gb")), None);
}

fn with_seq(config: &Config, seq: u64) -> Config {
    let mut changed = *config;
    changed.activations.seq = seq;
    changed.transformer.seq = seq;
    changed
}

proptest! {

    /// The 64-bit fast path of `div_ceil` is the 128-bit division, over
    /// both halves of the domain.
    #[test]
    fn div_ceil_is_the_128_bit_division(n in any::<u128>(), d in 1u128.., small in any::<u64>(), d_small in 1u64..) {
        prop_assert_eq!(div_ceil(n, d), n.div_ceil(d));
        let (n, d) = (u128::from(small), u128::from(d_small));
        prop_assert_eq!(div_ceil(n, d), n.div_ceil(d));
    }

    /// The one list of components is the estimate: the bar sums exactly to
    /// `required`, its tensors to `peak_allocated` (the timeline's points
    /// too), and no tensor's own size is beyond the components'.
    #[test]
    fn the_components_add_up_to_every_reading(c in any_config()) {
        let e = estimate(&c);
        prop_assert_eq!(e.bar().iter().map(|&(_, b)| b).sum::<u128>(), e.required);
        let tensors = |p: &AtPeak| Component::TENSORS.iter().map(|&t| p.of(t)).sum::<u128>();
        prop_assert_eq!(tensors(&e.at_peak), e.peak_allocated);
        prop_assert_eq!(e.own(Component::AllocatorCache), e.peak_reserved - e.peak_allocated);
        for point in timeline(&c) {
            prop_assert_eq!(tensors(&point.bytes), point.bytes.sum());
        }
        for &beyond in &Component::ALL[Component::TENSORS.len()..] {
            prop_assert!(beyond.beyond_tensors());
            prop_assert_eq!(e.at_peak.of(beyond), 0);
        }
    }

    /// The devices table is the estimate on each device: sorted by capacity,
    /// one required memory on every row, and a device fits exactly when the
    /// estimate on it does (so every larger device fits too).
    #[test]
    fn devices_are_the_estimate_on_each_device(c in any_config()) {
        let rows = devices(&c);
        prop_assert!(rows.windows(2).all(|w| w[0].capacity() <= w[1].capacity()));
        for r in &rows {
            let mut on = c;
            on.device = Some(Device::Preset(r.device));
            let e = estimate(&on);
            prop_assert_eq!(r.required, e.required);
            prop_assert_eq!(r.fits, e.fits == Some(true));
            prop_assert_eq!(r.fits, r.spare() >= 0);
            prop_assert_eq!(r.max_batch, e.max_batch.unwrap_or(0));
        }
    }
    #[test]
    /// Per stage (the estimate itself without a pipeline): which stage is
    /// the answer can change with the batch, each stage's memory cannot.
    fn activations_are_linear_in_batch_and_model_states_do_not_move(config in any_config(), factor in 1u64..64) {
        let (ones, manys) = (stages(&config.with_batch(1)), stages(&config.with_batch(factor)));
        prop_assert_eq!(ones.len(), manys.len());
        for (one, many) in ones.iter().map(|s| s.estimate).zip(manys.iter().map(|s| s.estimate)) {
            prop_assert_eq!(many.activations, one.activations * u128::from(factor));
            prop_assert_eq!(many.kv_cache, one.kv_cache * u128::from(factor));
            prop_assert_eq!(many.activations_per_sample, one.activations_per_sample);
            prop_assert_eq!(many.model_states(), one.model_states());
        }
    }

    /// The answer's readings grow with the batch, and every stage's peak does.
    #[test]
    fn readings_are_ordered_and_grow_with_the_batch(config in any_config(), batch in 1u64..100_000) {
        let e = estimate(&config.with_batch(batch));
        prop_assert!(e.peak_allocated <= e.peak_reserved);
        prop_assert!(e.peak_reserved <= e.nvidia_smi);
        prop_assert!(e.nvidia_smi <= e.required);
        let next = estimate(&config.with_batch(batch + 1));
        prop_assert!(next.peak_reserved >= e.peak_reserved);
        prop_assert!(next.nvidia_smi >= e.nvidia_smi);
        let (now, later) = (stages(&config.with_batch(batch)), stages(&config.with_batch(batch + 1)));
        for (now, later) in now.iter().zip(&later) {
            prop_assert!(later.estimate.peak_allocated >= now.estimate.peak_allocated);
        }
    }

    /// The peak against its parts, as the page's breakdown shows them: never
    /// more than everything at once, never less than the start of the backward
    /// pass (everything but the gradients, and under autocast with full
    /// recomputation but the checkpointed layers' weight copies, with the
    /// batch's transients). The fuzz target estimate_path checks the same; it
    /// found this bound missing.
    #[test]
    fn the_peak_lies_between_its_moments(config in any_config(), batch in 1u64..100_000) {
        let e = estimate(&config.with_batch(batch));
        let fixed = e.model_states() + e.buffers;
        // The KV cache alive at the peak: the prompt's, where the prefill
        // sets it.
        let per_batch = e.activations + e.at_peak.kv_cache;
        let freed_copies = match transformer::loss_weight_copies(&config.transformer) {
            Some(copies) if config.form == Form::Transformer => e.weights - copies.min(e.weights),
            _ => 0,
        };
        prop_assert!(e.total <= fixed + per_batch + e.optimizer_step, "{:?}", e);
        prop_assert!(e.total >= fixed - e.gradients - freed_copies + per_batch, "{:?}", e);
        prop_assert!(e.total >= fixed - e.weights, "{:?}", e);
    }

    /// One decomposition of the peak: the parts alive at the peak sum to it,
    /// each is at most the term's own size, and with the allocator's cache,
    /// the overhead and the margin they make `required`, byte for byte. Every
    /// sweep row's columns add up to its total, and the row of the chosen batch
    /// is the estimate.
    #[test]
    fn the_parts_alive_at_the_peak_add_up(config in any_config(), batch in 1u64..100_000) {
        let config = config.with_batch(batch);
        let e = estimate(&config);
        let p = e.at_peak;
        prop_assert_eq!(p.sum(), e.peak_allocated, "{:?}", e);
        prop_assert!(p.weights <= e.weights && p.gradients <= e.gradients);
        prop_assert_eq!(p.optimizer_states, e.optimizer_states);
        prop_assert!(p.optimizer_step <= e.optimizer_step);
        // DoRA's and FP8's working tensors count with the buffers only while
        // the activations are alive.
        prop_assert!(p.buffers <= e.buffers);
        if p.activations_alive {
            prop_assert_eq!(p.buffers, e.buffers);
            // The prefill holds the prompt's cache, the end of generation
            // all of it.
            if e.peak_phase == Phase::Prefill {
                prop_assert!(p.kv_cache <= e.kv_cache);
            } else {
                prop_assert_eq!(p.kv_cache, e.kv_cache);
            }
            // A moment inside the backward pass (the last layer's working
            // set, the output layer's backward) holds at most the loss's
            // activations, and so does the forward pass's end under full
            // recomputation (the layers' inputs and the loss's forward
            // tensors, no layer recomputed yet; docs/model.md §3.3); every
            // other moment of theirs holds them all.
            if matches!(e.peak_phase, Phase::Backward | Phase::Forward) {
                prop_assert!(p.activations <= e.activations);
            } else {
                prop_assert_eq!(p.activations, e.activations);
            }
        } else {
            // Only the model's output a loop keeps outlives the backward pass.
            prop_assert_eq!((p.activations, p.kv_cache), (e.kept_outputs, 0));
            prop_assert_eq!(p.gradients, e.gradients);
        }
        prop_assert_eq!(
            e.peak_allocated + e.allocator_cache() + e.overhead + e.margin_bytes(),
            e.required
        );
        for row in sweep(&config) {
            prop_assert_eq!(row.model_states + row.activations, row.total, "{:?}", row);
            let at = estimate(&config.with_batch(row.batch));
            prop_assert_eq!((row.total, row.required), (at.peak_allocated, at.required));
        }
    }

    #[test]
    fn memory_grows_with_the_sequence(config in any_config(), seq in SEQ.min..SEQ.max) {
        let shorter = estimate(&with_seq(&config, seq));
        let longer = estimate(&with_seq(&config, seq + 1));
        prop_assert!(longer.total >= shorter.total);
    }

    #[test]
    fn memory_grows_with_the_parameter_count(config in any_config()) {
        let mut bigger = config;
        bigger.parameters.params = (config.parameters.params + 1).min(parameters::PARAMS.max);
        bigger.transformer.arch.layers = (config.transformer.arch.layers + 1).min(activations::LAYERS.max);
        bigger.transformer.arch.ffn = (config.transformer.arch.ffn + 1).min(transformer::FFN.max);
        let (small, big) = (estimate(&config), estimate(&bigger));
        prop_assert!(big.parameters >= small.parameters);
        prop_assert!(big.model_states() >= small.model_states());
        prop_assert!(big.total >= small.total);
    }

    #[test]
    fn the_largest_batch_that_fits_is_exact(config in any_config(), gb in 1u64..2_000) {
        let mut config = config;
        config.device = Some(Device::Custom { hundredths_gb: gb * 100 });
        let max = estimate(&config).max_batch.unwrap_or(0);
        if max > 0 {
            prop_assert_eq!(estimate(&config.with_batch(max)).fits, Some(true));
        } else {
            prop_assert_eq!(estimate(&config.with_batch(1)).fits, Some(false));
        }
        if max < BATCH.max {
            prop_assert_eq!(estimate(&config.with_batch(max + 1)).fits, Some(false));
        }
        let sweep = sweep(&config);
        prop_assert!(sweep.iter().any(|row| row.batch > max || row.batch == BATCH.max));
        prop_assert!(sweep.iter().any(|row| row.batch == config.batch()));
    }

    /// `max_seq` fits at its answer and not one token above (issue 13), with
    /// the estimate the page shows for that sequence.
    #[test]
    fn the_longest_sequence_that_fits_is_exact(config in any_config(), gb in 1u64..2_000) {
        let mut config = config;
        config.device = Some(Device::Custom { hundredths_gb: gb * 100 });
        let Some(max) = max_seq(&config) else {
            let t = &config.transformer;
            prop_assert!(
                config.form == Form::Parameters
                    || (config.form == Form::Transformer && t.arch.kind == Kind::Vision)
            );
            return Ok(());
        };
        // The prompt that `max` stands for: the generated tokens are kept.
        let generated = match config.form {
            Form::Transformer if config.transformer.mode == Mode::Inference => config.transformer.generated,
            _ => 0,
        };
        let prompt = max.saturating_sub(generated);
        if max == 0 {
            prop_assert_eq!(estimate(&with_seq(&config, 1)).fits, Some(false));
        } else {
            prop_assert!(prompt >= 1);
            prop_assert_eq!(estimate(&with_seq(&config, prompt)).fits, Some(true));
        }
        if max > 0 && prompt < SEQ.max {
            prop_assert_eq!(estimate(&with_seq(&config, prompt + 1)).fits, Some(false));
        }
    }

    /// Where the loop clears the gradients orders the peaks: dropping them
    /// after the step (`none`) never holds more than dropping them after
    /// the forward pass (`after_forward`), which never holds more than
    /// zero-filling them (`zeros`, alive at every moment).
    #[test]
    fn zero_grad_after_the_forward_pass_lies_between_none_and_zeros(config in any_config()) {
        let with = |zero_grad| {
            let mut c = config;
            c.transformer.zero_grad = zero_grad;
            estimate(&c).peak_allocated
        };
        let (none, after, zeros) = (
            with(ZeroGrad::None),
            with(ZeroGrad::AfterForward),
            with(ZeroGrad::Zeros),
        );
        prop_assert!(none <= after, "{} > {}", none, after);
        prop_assert!(after <= zeros, "{} > {}", after, zeros);
    }

    /// Turning Megatron-LM's gradient-accumulation fusion off
    /// (`grad_accum_fusion=0`) adds 16-bit weight gradients and drops
    /// Transformer Engine's dummies: no reading falls below the fused one
    /// without the dummies.
    #[test]
    fn unfused_weight_gradients_never_lower_a_reading(config in any_config()) {
        let mut fused = config;
        fused.transformer.recipe = Recipe::MainFp32;
        fused.transformer.grad_accum_fusion = true;
        let mut unfused = fused;
        unfused.transformer.grad_accum_fusion = false;
        // The fused run's dummy weight gradients (on any rank at most the
        // whole model's) may hold more than the unfused one's transients.
        let dummy = transformer::dummy_wgrads(&fused.transformer, Ends::WHOLE);
        let (a, b) = (estimate(&fused), estimate(&unfused));
        prop_assert!(b.peak_allocated + dummy >= a.peak_allocated);
        prop_assert!(b.peak_reserved + dummy >= a.peak_reserved);
        prop_assert!(b.nvidia_smi + dummy >= a.nvidia_smi);
    }

    /// A loop that keeps the model's output never lowers a reading, and
    /// where the term applies on a model without a pipeline it adds exactly
    /// its bytes to the peak allocated, at every moment alike.
    #[test]
    fn kept_outputs_only_add(config in any_config(), batch in 1u64..100_000) {
        let config = config.with_batch(batch);
        let mut kept = config;
        kept.transformer.outputs = transformer::Outputs::Kept;
        let mut dropped = config;
        dropped.transformer.outputs = transformer::Outputs::Dropped;
        let (k, d) = (estimate(&kept), estimate(&dropped));
        prop_assert!(k.peak_allocated >= d.peak_allocated);
        prop_assert!(k.peak_reserved >= d.peak_reserved);
        prop_assert!(k.required >= d.required);
        prop_assert_eq!(d.kept_outputs, 0);
        let t = &kept.transformer;
        if config.form == Form::Transformer && t.pp <= 1 {
            let term = transformer::kept_outputs(t, Ends::WHOLE) * u128::from(batch);
            prop_assert_eq!(k.kept_outputs, term);
            prop_assert_eq!(k.peak_allocated, d.peak_allocated + term);
        }
    }

    /// The step's picture and the estimate are one story (issue 16): the
    /// timeline's largest point is `peak_allocated`, byte for byte, and it is
    /// the point of the moment the estimate names.
    #[test]
    fn the_timeline_peaks_at_the_estimate(config in any_config(), batch in 1u64..10_000) {
        let config = config.with_batch(batch);
        let e = estimate(&config);
        let points = timeline(&config);
        prop_assert!(!points.is_empty());
        let top = points.iter().map(|p| p.bytes.sum()).max().unwrap_or(0);
        prop_assert_eq!(top, e.peak_allocated);
        prop_assert!(points.iter().any(|p| p.bytes == e.at_peak
            || (p.bytes.sum() == e.peak_allocated && !e.at_peak.activations_alive)));
    }

    /// The largest-batch search rules batches out by a lower bound of their
    /// reserved bytes: the answer of measuring every batch it tries whole.
    #[test]
    fn max_batch_rules_out_only_what_does_not_fit(config in any_config()) {
        let model = Model::of(&config);
        let batch = config.batch();
        let now = required(model.at(batch).1.reserved(batch), &config);
        let near = [now.saturating_sub(1), now, now + 1, 2 * now];
        for device in config.device.map(|d| d.usable_bytes()).into_iter().chain(near).chain([24 * GB, 80 * GB]) {
            let fits = |b: u64| required(model.at(b).1.reserved(b), &config) <= device;
            let measured = largest(1, BATCH.max, fits).unwrap_or(0);
            prop_assert_eq!(max_batch_within(&model, &config, device), measured);
        }
    }

    #[test]
    fn what_ifs_are_consistent(config in any_config()) {
        for what_if in what_ifs(&config) {
            prop_assert_ne!(what_if.config, config);
            let e = estimate(&what_if.config);
            prop_assert_eq!((what_if.required, what_if.fits), (e.required, e.fits));
        }
    }
}

/// Every input at its bound at once, for every kind, kernel and mode: no
/// overflow (debug builds check every operation), no panic.
#[test]
fn extremes_stay_in_range() {
    use crate::transformer::{Kind, Mode, Recipe};
    for &kind in Kind::ALL {
        for &attention in Attention::ALL {
            for &mode in Mode::ALL {
                for recipe in [Recipe::Fp32, Recipe::Amp] {
                    let mut c = config(
                        "form=transformer&gpu_gb=1000000&margin=100&overhead_gb=1000&global_batch=1000000000000",
                    );
                    let t = &mut c.transformer;
                    t.arch = transformer::Architecture {
                        kind,
                        layers: 10_000,
                        hidden: 1_000_000,
                        heads: 100_000,
                        kv_heads: 100_000,
                        head_dim: 100_000,
                        ffn: 10_000_000,
                        vocab: 100_000_000,
                        positions: 10_000_000,
                        token_types: 1_000,
                        labels: 1_000_000,
                        dropout: true,
                        bias: true,
                        image: 4_096,
                        patch: 1,
                        channels: 1_000,
                        ..t.arch
                    };
                    (t.batch, t.seq, t.generated, t.attention, t.mode, t.recipe) = (
                        BATCH.max,
                        SEQ.max,
                        transformer::GEN.max,
                        attention,
                        mode,
                        recipe,
                    );
                    let e = estimate(&c);
                    assert!(
                        e.required > e.total && e.fits == Some(false),
                        "{kind:?} {attention:?} {mode:?}"
                    );
                    assert_eq!(sweep(&c).first().map(|r| r.batch), Some(1));
                }
            }
        }
    }
    let e =
        estimate_of("form=parameters&params=1000T&batch=1000000000&act_mb=1000000&precision=fp32");
    assert_eq!(e.weights, 4_000_000_000_000_000);
    assert_eq!(e.activations, 1_000_000_000 * 1_000_000_000_000);
}

/// The byte counts written out in docs/model.md.
#[test]
fn documented_numbers() {
    let e = estimate_of("form=transformer&model=llama-2-7b&batch=1&seq=4096");
    assert_eq!(
        (
            e.weights,
            e.gradients,
            e.optimizer_states,
            e.activations,
            e.total
        ),
        (
            13_476_831_232,
            26_953_662_464,
            80_860_987_392,
            31_553_748_992,
            125_891_567_616
        )
    );
    assert_eq!(
        crate::units::format_bytes(e.total, crate::units::Units::Decimal),
        "125.89 GB"
    );
    let e = estimate_of("form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full");
    assert_eq!(e.activations, 3_888_119_808);
    let e =
        estimate_of("form=transformer&model=qwen2.5-7b&mode=inference&batch=1&seq=30720&gen=2048");
    assert_eq!(
        (e.weights, e.kv_cache, e.activations),
        (15_231_233_024, 1_879_048_192, 3_932_768_256)
    );
    let e = estimate_of("form=transformer&model=gpt2&batch=2&seq=16&recipe=fp32&foreach=1");
    assert_eq!(
        (e.total, e.optimizer_step, e.activations),
        (2_488_796_160, 497_759_232, 53_158_272)
    );
    assert_eq!(crate::presets::MODELS.len(), 55);
    // 14 GB weights + 1 GB overhead, 20 % margin: 18 GB.
    let e = estimate_of(
        "form=parameters&params=7B&precision=fp16&optimizer=none&batch=1&act_mb=0&margin=20",
    );
    assert_eq!(e.required, 18 * GB);
}

/// A worked example per framework profile: Llama 2 7B (P = 6,738,415,616
/// parameters; its largest matrix, the embedding, L = 32,000 × 4,096 =
/// 131,072,000), batch 1 × 4,096 tokens, one GPU. docs/frameworks.md states
/// the same terms.
#[test]
fn framework_profiles_worked_examples() {
    const P: u128 = 6_738_415_616;
    const L: u128 = 131_072_000;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    let terms = |framework: &str| {
        let e = estimate_of(&format!("{base}&framework={framework}"));
        (
            e.weights,
            e.gradients,
            e.optimizer_states,
            e.optimizer_step,
            e.buffers,
        )
    };
    // Autocast: 16-bit copies (2P), FP32 gradients (4P), FP32 parameters and
    // two FP32 moments (12P); foreach AdamW's sqrt list (4P).
    let amp_foreach = (2 * P, 4 * P, 12 * P, 4 * P, 0);
    assert_eq!(terms("pytorch"), amp_foreach);
    assert_eq!(terms("lightning_16_mixed"), amp_foreach);
    assert_eq!(terms("lightning_bf16_mixed"), amp_foreach);
    // The same states with a fused step: no temporary.
    assert_eq!(terms("hf_trainer"), (2 * P, 4 * P, 12 * P, 0, 0));
    // Megatron-LM: Transformer Engine's dummy weight gradients beside the
    // FP32 buffer, 2 × 4,096 × (12,288 + 4,096 + 22,016 + 11,008 + 32,000).
    assert_eq!(
        terms("megatron"),
        (2 * P, 4 * P + 666_894_336, 12 * P, 0, 0)
    );
    // DeepSpeed: 16-bit gradients (2P) and a 5e8-element 16-bit bucket (1 GB).
    assert_eq!(terms("deepspeed"), (2 * P, 2 * P, 12 * P, 0, 1_000_000_000));
    // torchtune: pure BF16 (2P weights, two 2-byte moments 4P); the step in the
    // backward pass holds one gradient (2L) and one temporary (2L) at a time.
    assert_eq!(terms("torchtune"), (2 * P, 2 * L, 4 * P, 2 * L, 0));
    // Lightning 32: FP32 everything (4P + 4P + 8P), foreach temporary 4P.
    assert_eq!(terms("lightning_32"), (4 * P, 4 * P, 8 * P, 4 * P, 0));
    // Lightning bf16-true: the module in BF16 (2P + 2P + 4P), temporary 2P.
    assert_eq!(
        terms("lightning_bf16_true"),
        (2 * P, 2 * P, 4 * P, 2 * P, 0)
    );
    // generate: BF16 weights and the KV cache, nothing of training.
    let e = estimate_of(&format!("{base}&framework=hf_generate"));
    assert_eq!((e.weights, e.gradients, e.optimizer_states), (2 * P, 0, 0));
    assert_eq!(e.peak_phase, Phase::Prefill);
    // A profile's defaults give way to the URL's settings.
    let e = estimate_of(&format!("{base}&framework=pytorch&step=fused"));
    assert_eq!(e.optimizer_step, 0);

    // In-backward: the step's temporary coexists with the activations, so the
    // peak is their sum, at the loss (a decoder).
    let e = estimate_of(&format!("{base}&framework=torchtune"));
    assert_eq!(e.total, e.model_states() + e.activations + e.optimizer_step);
    assert_eq!(e.peak_phase, Phase::Loss);
}

/// `framework=megatron` (docs/frameworks.md): Llama 2 7B, 1 × 4,096 tokens,
/// one GPU. Megatron's `Float16Module` computes in BF16 throughout: per layer
/// each fused norm keeps its BF16 input and each first projection its BF16
/// input, 4,096 × (2 × 2 + 2 × 2) × 4,096 = 134,217,728 bytes replicated, and
/// the split terms 4,096 × (2·4,096 + 2·2·4,096 + 2·4,096 + 4·2·11,008 +
/// 4·32) = 495,452,160; the final norm and head inputs 4,096 × (2 + 2) ×
/// 4,096; the vocab-parallel loss (4 + 2) × 4,096 × 32,000. The BF16 weights
/// (2P), the FP32 gradient buffer (4P), Transformer Engine's dummy weight
/// gradients (D = 2 × 4,096 × (12,288 + 4,096 + 22,016 + 11,008 + 32,000))
/// and the FP32 main parameters with two moments (12P) are all alive at the
/// loss.
#[test]
fn megatron_profile_worked_example() {
    const P: u128 = 6_738_415_616;
    const D: u128 = 666_894_336;
    const A: u128 = 32 * (134_217_728 + 495_452_160) + 67_108_864 + 786_432_000;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096&framework=megatron";
    let e = estimate_of(base);
    assert_eq!(A, 21_002_977_280);
    assert_eq!(e.activations, A);
    assert_eq!(
        (e.weights, e.gradients, e.optimizer_states, e.optimizer_step),
        (2 * P, 4 * P + D, 12 * P, 0)
    );
    assert_eq!(e.total, 18 * P + D + A);
    assert_eq!(e.total, 142_961_352_704);
    assert_eq!(e.at_peak.gradients, 4 * P + D);
    assert_eq!(e.at_peak.weights, 2 * P);
    assert_eq!(e.peak_phase, Phase::Loss);
    // The distributed optimizer over 8 data-parallel ranks (`zero=1`): the
    // main parameters and moments are sharded, the gradient buffer is not
    // (megatron/core/distributed/param_and_grad_buffer.py: every rank's
    // `grad_data` holds every gradient; the reduce-scatter writes its shard
    // in place).
    let sharded = estimate_of(&format!("{base}&gpus=8&zero=1"));
    assert_eq!(sharded.total, 2 * P + 4 * P + D + 12 * P / 8 + A);
    // The profile is its knobs: the same estimate spelled out.
    assert_eq!(
        e,
        estimate_of(
            "form=transformer&model=llama-2-7b&batch=1&seq=4096&recipe=main_fp32&step=fused\
             &loss=vocab_parallel&zero_grad=zeros&norm_kernel=fused"
        )
    );
    // A link names the profile alone.
    assert_eq!(
        crate::query::to_query(&config(base)),
        "form=transformer&model=llama-2-7b&framework=megatron&batch=1&seq=4096"
    );
    // Under autocast (`recipe=amp`, the profile before issue 15) the same run
    // was 2P + 12P + 31,553,748,992 at the loss, its gradients not yet alive.
    let amp = estimate_of(&format!(
        "{base}&recipe=amp&loss=full&zero_grad=none&norm_kernel=eager"
    ));
    assert_eq!(amp.total, 14 * P + 31_553_748_992);
}

#[test]
fn adapter_profiles_worked_examples() {
    // Llama 3.1 8B, batch 1 × 2,048 tokens, one GPU.
    const P: u128 = 8_030_261_248;
    let base = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048";
    let profile = |name: &str| {
        format!("form=transformer&model=llama-3.1-8b&framework={name}&batch=1&seq=2048")
    };
    let link = |query: &str| crate::query::to_query(&config(query));

    // hf_peft: hf_trainer's settings plus LoraConfig's defaults, r = 8 on q
    // and v: 8 × (4,096 + 4,096) + 8 × (4,096 + 1,024) = 106,496 per layer,
    // 3,407,872 adapter parameters in 32 layers, in FP32.
    const A: u128 = 3_407_872;
    let peft = estimate_of(&format!("{base}&framework=hf_peft"));
    let trainer = estimate_of(&format!("{base}&framework=hf_trainer&lora_rank=8"));
    assert_eq!(peft, trainer);
    assert_eq!(peft.weights, 2 * P + 4 * A);
    assert_eq!(peft.gradients, 4 * A);
    assert_eq!(peft.optimizer_states, 8 * A);
    assert_eq!((peft.optimizer_step, peft.buffers), (0, 0));
    // Against the Trainer's full fine-tuning (2P + 4P + 12P), 16P − 16A less.
    let full = estimate_of(&format!("{base}&framework=hf_trainer"));
    assert_eq!(full.model_states() - peft.model_states(), 16 * P - 16 * A);
    // A link writes the profile alone; a setting that differs is written.
    assert_eq!(
        link(&format!("{base}&framework=hf_peft")),
        profile("hf_peft")
    );
    assert!(link(&format!("{base}&framework=hf_peft&lora_rank=16")).ends_with("&lora_rank=16"));

    // torchtune_lora: r = 8 on every linear map of the blocks (the nearest
    // set to torchtune's q, v, output and MLP), 20,971,520 adapter
    // parameters (half the issue's 41,943,040 at r = 16), pure BF16 base,
    // full recomputation, fused AdamW, chunked loss.
    const T: u128 = 20_971_520;
    let tune = estimate_of(&format!("{base}&framework=torchtune_lora"));
    let spelled = estimate_of(&format!(
        "{base}&framework=torchtune&step=fused&lora_rank=8&lora_targets=all&recompute=full"
    ));
    assert_eq!(tune, spelled);
    assert_eq!(
        transformer::Adapters::of(&config(&format!("{base}&framework=torchtune_lora")).transformer)
            .total,
        T
    );
    assert_eq!(tune.weights, 2 * P + 4 * T);
    assert_eq!(tune.gradients, 4 * T);
    assert_eq!(tune.optimizer_states, 8 * T);
    // Its recomputation is the recipe's: without it, more activations.
    let saved = estimate_of(&format!("{base}&framework=torchtune_lora&recompute=none"));
    assert!(saved.activations > tune.activations);
    assert!(
        link(&format!("{base}&framework=torchtune_lora&recompute=none"))
            .ends_with("&recompute=none")
    );

    // unsloth: QLoRA, NF4 with double quantization, r = 16 on every linear
    // map (41,943,040 FP32 adapter parameters), BF16 elsewhere, offloaded
    // full recomputation, the Trainer's fused AdamW. Model states are those
    // of the same knobs spelled out: 3,600,416,768 bytes of NF4 maps,
    // 2 × 1,050,939,392 of BF16 embedding, head and norms, 4 × 41,943,040 of
    // adapters.
    const U: u128 = 41_943_040;
    let unsloth = estimate_of(&profile("unsloth"));
    let knobs = "&framework=hf_trainer&recipe=bf16&lora_rank=16&lora_targets=all&base_quant=nf4\
                 &double_quant=1&recompute=full&act_offload=1&loss=fused";
    let spelled = estimate_of(&format!("{base}{knobs}"));
    assert_eq!(unsloth.weights, 3_600_416_768 + 2 * 1_050_939_392 + 4 * U);
    assert_eq!(unsloth.weights, 5_870_067_712);
    assert_eq!(
        (unsloth.gradients, unsloth.optimizer_states),
        (4 * U, 8 * U)
    );
    assert_eq!(unsloth.model_states(), spelled.model_states());
    assert_eq!(unsloth.buffers, spelled.buffers);
    // Its kernels: the layer being recomputed keeps per token each RMSNorm's
    // input (2 × 2 × 4,096, Fast_RMS_Layernorm), the projections' inputs (2 ×
    // 2 × 4,096), Q, K, V, the output and the log-sum-exp (20,608), LoRA_MLP's
    // gate and up outputs (2 × 2 × 14,336) and no adapter intermediates:
    // 110,720 bytes; PEFT's layers keep more.
    let recomputed =
        |query: &str| transformer::training_saved(&config(query).transformer).recomputed_dense;
    assert_eq!(recomputed(&profile("unsloth")), 2048 * 110_720);
    assert!(recomputed(&format!("{base}{knobs}")) > recomputed(&profile("unsloth")));
    // With dropout on the adapters its fast paths are off: PEFT's count.
    assert_eq!(
        recomputed(&format!("{}&lora_dropout=1", profile("unsloth"))),
        recomputed(&format!("{base}{knobs}&lora_dropout=1"))
    );
    // The final norm's input is its kernel's too: 4 bytes × 4,096 × 2,048 fewer.
    assert_eq!(spelled.activations - unsloth.activations, 4 * 4096 * 2048);
    // Activations: one offloaded layer's input brought back (2 × 4,096 per
    // token), the final norm's input (2 × 4,096), the fused loss's hidden
    // states gradient (2 × 4,096) and its one chunk (2,048 tokens' FP32
    // logits fit 4 GiB): BF16 logits and their gradient, 2 × 2 × 128,256
    // per token. No head input, no log-softmax.
    assert_eq!(unsloth.activations, 2048 * (3 * 2 * 4096 + 2 * 2 * 128_256));
    assert_eq!(unsloth.activations, 1_101_004_800);
    // At 65,536 tokens the FP32 logits (33.6 GB) need 8 chunks of 8,192
    // tokens (4 × ⌈33.6 GB / 16 GiB⌉): beside the final norm's input and the
    // hidden states' gradient, a chunk of 2 × 2 × 8,192 × 128,256 bytes.
    let long = "form=transformer&model=llama-3.1-8b&framework=unsloth&batch=1&seq=65536";
    assert_eq!(
        transformer::training_saved(&config(long).transformer).above,
        65_536 * 2 * 2 * 4096 + 2 * 2 * 8192 * 128_256
    );
}

#[test]
fn fsdp2_worked_example() {
    // Llama 2 7B: P = 6,738,415,616; one block = 4 × 4,096² (attention) +
    // 3 × 4,096 × 11,008 (MLP) + 2 × 4,096 (norms) = 202,383,360 = B, larger
    // than the largest matrix (32,000 × 4,096 = 131,072,000).
    const P: u128 = 6_738_415_616;
    const B: u128 = 202_383_360;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096&framework=fsdp2";
    let terms = |query: &str| {
        let e = estimate_of(query);
        (
            e.weights,
            e.gradients,
            e.optimizer_states,
            e.optimizer_step,
            e.buffers,
        )
    };
    // 8 GPUs, full sharding: FP32 parameter shard 4P/8, FP32 gradient shard
    // 4P/8, two FP32 moments 8P/8, fused step; BF16 all-gather of the block
    // computing and of the one prefetched: 2 × (B + B).
    let shards = (4 * P / 8, 4 * P / 8, 8 * P / 8, 0);
    assert_eq!(
        terms(&format!("{base}&gpus=8")),
        (shards.0, shards.1, shards.2, shards.3, 2 * (B + B))
    );
    assert_eq!(2 * (B + B), 809_533_440);
    // Two blocks prefetched: 2 × (B + 2B).
    assert_eq!(terms(&format!("{base}&gpus=8&prefetch=2")).4, 1_214_300_160);
    // No prefetch: only the block computing, 2B.
    assert_eq!(terms(&format!("{base}&gpus=8&prefetch=0")).4, 2 * B);
    // One GPU: nothing to shard; every block's BF16 copy lives from its forward
    // to its backward (2P), as autocast's cache does: 4P + 2P + 4P + 8P = 18P,
    // the `amp` recipe's bytes.
    assert_eq!(terms(base), (4 * P, 4 * P, 8 * P, 0, 2 * P));
    let amp = estimate_of("form=transformer&model=llama-2-7b&batch=1&seq=4096");
    let fsdp = estimate_of(base);
    assert_eq!(fsdp.model_states() + fsdp.buffers, amp.model_states());
    // BF16 compute on the all-gathered BF16 parameters, no autocast: the
    // activations of the pure BF16 recipe.
    let bf16 = estimate_of("form=transformer&model=llama-2-7b&batch=1&seq=4096&recipe=bf16");
    assert_eq!(fsdp.activations, bf16.activations);
    // The profile's settings written into a link are only those that differ.
    let link = crate::query::to_query(&config(&format!("{base}&gpus=8")));
    assert!(
        !link.contains("zero=") && !link.contains("prefetch="),
        "{link}"
    );
}

/// `framework=fsdp1`'s worked examples, one row each: Llama 2 7B (P =
/// 6,738,415,616, block B = 202,383,360, root R = 2 × 32,000 × 4,096 + 4,096
/// = 262,148,096: embedding, head, final norm), 1 × 4,096 tokens. Columns:
/// weights, gradients, optimizer state, optimizer step, framework buffers.
#[test]
fn fsdp1_worked_examples() {
    const P: u128 = 6_738_415_616;
    const B: u128 = 202_383_360;
    const R: u128 = 262_148_096;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096&framework=fsdp1";
    #[rustfmt::skip]
    let rows: [(&str, [u128; 5]); 5] = [
        // 8 GPUs: FP32 shards 4P/8 + 4P/8 + 8P/8, foreach's 4P/8 list; BF16
        // root kept unsharded, block computing and block prefetched
        // 2 × (R + 2B), unsharded BF16 gradients of the root and the block
        // 2 × (R + B).
        ("&gpus=8", [4 * P / 8, 4 * P / 8, 8 * P / 8, 4 * P / 8, 2 * (R + 2 * B) + 2 * (R + B)]),
        // No backward prefetch: the block computing only.
        ("&gpus=8&prefetch=0", [4 * P / 8, 4 * P / 8, 8 * P / 8, 4 * P / 8, 2 * (R + B) + 2 * (R + B)]),
        // 64 GPUs: the shards shrink, the unsharded units do not.
        ("&gpus=64", [4 * P / 64, 4 * P / 64, 8 * P / 64, 4 * P / 64, 2 * (R + 2 * B) + 2 * (R + B)]),
        // The module in BF16 (Lightning's bf16-true): BF16 shards and
        // moments, the same unsharded BF16 units.
        ("&gpus=8&recipe=bf16", [2 * P / 8, 2 * P / 8, 4 * P / 8, 2 * P / 8, 2 * (R + 2 * B) + 2 * (R + B)]),
        // One GPU (FSDP1 falls back to NO_SHARD): every block's BF16 copy
        // stays, as FSDP2 unsharded: 4P + 4P + 8P, 2P of copies.
        ("", [4 * P, 4 * P, 8 * P, 4 * P, 2 * P]),
    ];
    for (extra, expected) in rows {
        let e = estimate_of(&format!("{base}{extra}"));
        let got = [
            e.weights,
            e.gradients,
            e.optimizer_states,
            e.optimizer_step,
            e.buffers,
        ];
        assert_eq!(got, expected, "{extra}");
    }
    assert_eq!(2 * (R + 2 * B) + 2 * (R + B), 2_262_892_544);
    // Against FSDP2 on 8 GPUs (whose unit computing is the larger of the
    // block and the head, 4B): FSDP1 adds the root's BF16 parameters and
    // gradient (4R) and the block's gradient (2B), 4R + 2B.
    let fsdp2 = estimate_of(&format!("{}&gpus=8", base.replace("fsdp1", "fsdp2")));
    let fsdp1 = estimate_of(&format!("{base}&gpus=8"));
    assert_eq!(fsdp1.buffers - fsdp2.buffers, 4 * R + 2 * B);
    assert_eq!(4 * R + 2 * B, 1_453_359_104);
    // Activations as FSDP2's: BF16 compute on the gathered BF16 parameters.
    assert_eq!(fsdp1.activations, fsdp2.activations);
    // The profile's settings written into a link are only those that differ.
    let link = crate::query::to_query(&config(&format!("{base}&gpus=8")));
    assert!(
        !link.contains("zero=") && !link.contains("prefetch=") && !link.contains("step="),
        "{link}"
    );
}

#[test]
fn activation_offloading_keeps_the_layer_in_flight() {
    // Llama 2 7B, 1 × 4,096 tokens, `amp`, flash, no dropout. One layer:
    // replicated s × (2(4 + r) + 5e)h = 4,096 × (16 + 10) × 4,096 = 436,207,616
    // (each RMSNorm's FP32 input and FP32 normalized tensor, the 16-bit casts
    // of the separate Q, K, V, gate and up projections); split s × (2eq +
    // 2e·kv + 4ef + 4a) = 4,096 × (16,384 + 16,384 + 88,064 + 128) =
    // 495,452,160; together 931,659,776 (× 32 layers = 29,813,112,832). Outside the layers: final norm and head inputs
    // s·(4 + r + e)·h = 167,772,160, the loss's three FP32 logit-sized
    // tensors 12 × 4,096 × 32,000 = 1,572,864,000.
    const LAYER: u128 = 931_659_776;
    const OUTSIDE: u128 = 167_772_160 + 1_572_864_000;
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    assert_eq!(estimate_of(base).activations, 32 * LAYER + OUTSIDE);
    // Offloaded: the GPU keeps one layer's saved set and the output layer's.
    let e = estimate_of(&format!("{base}&act_offload=1"));
    assert_eq!(e.activations, LAYER + OUTSIDE);
    assert_eq!(e.activations, 2_672_295_936);
    // With full recomputation: the FP32 layer input being brought back
    // (s·r·h = 67,108,864), and the larger of the output layer's terms and the
    // layer recomputed after them.
    let e = estimate_of(&format!("{base}&act_offload=1&recompute=full"));
    assert_eq!(e.activations, 67_108_864 + OUTSIDE.max(LAYER));
    assert_eq!(e.activations, 1_807_745_024);
    // Model states do not move.
    assert_eq!(e.model_states(), estimate_of(base).model_states());
}

#[test]
fn logits_precision() {
    // Llama 2 7B, 1 × 4,096 tokens, vocabulary 32,000: s·v = 131,072,000.
    // Full loss: the log-softmax, its incoming gradient and the logits'
    // gradient at 3 × 4 bytes (1,572,864,000) or, left in BF16, 3 × 2 bytes
    // (786,432,000).
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    let fp32 = estimate_of(base);
    let bf16 = estimate_of(&format!("{base}&logits=bf16"));
    assert_eq!(fp32.activations - bf16.activations, 786_432_000);
    // Chunked: 4sv + max(2 × 4, 4 + 2)sv/8 = 5sv against 2sv + max(2 × 2,
    // 2 + 2)sv/8 = 2.5sv, 2.5sv = 327,680,000 fewer.
    let fp32 = estimate_of(&format!("{base}&recipe=bf16&loss=chunked"));
    let bf16 = estimate_of(&format!("{base}&recipe=bf16&loss=chunked&logits=bf16"));
    assert_eq!(fp32.activations - bf16.activations, 327_680_000);
    // Nothing else moves.
    assert_eq!(fp32.model_states(), bf16.model_states());
}

#[test]
fn chunked_loss_keeps_only_the_log_softmax() {
    // Full: the FP32 log-softmax, its incoming gradient and the logits'
    // gradient, 12 × s × v. Chunked: the FP32 log-softmax of every chunk (4sv)
    // plus one chunk's two FP32 gradients (8sv / 8) = 5sv; 7 × 4,096 × 32,000
    // bytes fewer.
    let full = estimate_of("form=transformer&model=llama-2-7b&batch=1&seq=4096&recipe=bf16");
    let chunked =
        estimate_of("form=transformer&model=llama-2-7b&batch=1&seq=4096&recipe=bf16&loss=chunked");
    assert_eq!(full.activations - chunked.activations, 917_504_000);
}

#[test]
fn optimizer_offload_and_step_implementations() {
    let base = "form=transformer&model=llama-2-7b&batch=1&seq=4096";
    // ZeRO-Offload: master weights and moments leave the GPU, and the step with them.
    let e = estimate_of(&format!("{base}&framework=deepspeed&offload=1"));
    assert_eq!((e.optimizer_states, e.optimizer_step), (0, 0));
    // The for-loop step: sqrt and quotient of the largest parameter, FP32.
    let e = estimate_of(&format!("{base}&step=forloop"));
    assert_eq!(e.optimizer_step, 2 * 4 * 131_072_000);
    // `foreach=1` (old links) wins over `step`.
    let e = estimate_of(&format!("{base}&step=fused&foreach=1"));
    assert_eq!(e.optimizer_step, 4 * 6_738_415_616);
}

/// DeepSpeed ZeRO-3's runtime memory (transformer.rs `zero3_runtime`,
/// docs/model.md §3.2) for Llama-2-7B (6,738,415,616 parameters, 32 blocks of
/// 202,383,360, the 131,072,000-element embedding and head, 65 hidden-wide
/// RMSNorm weights) over 8 GPUs at DeepSpeed's defaults. Before this term the
/// buffers were 0 and the step's FP32 gradients were not counted.
#[test]
fn deepspeed_zero3_runtime_buffers() {
    let base =
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&framework=deepspeed&zero=3&gpus=8";
    let e = estimate_of(base);
    // The reduce bucket, 5e8 16-bit elements; the block computing and the
    // 5e7-element prefetch bucket gathered in 16 bits.
    assert_eq!(e.buffers, 500_000_000 * 2 + (202_383_360 + 50_000_000) * 2);
    // The 16-bit shard, plus the norms kept whole: 266,240 elements, of
    // which the rank's 33,280 are already in its shard.
    assert_eq!(e.weights, 6_738_415_616 * 2 / 8 + (266_240 - 33_280) * 2);
    // One sub-group (the rank's 842,301,952-element partition, under 1e9)
    // flattened in 16 bits and converted to FP32 at once.
    assert_eq!(e.optimizer_step, 6 * 842_301_952);
    // The gradient partition lives from initialization: with the activations.
    assert!(e.at_peak.activations_alive);
    assert_eq!(e.at_peak.gradients, 6_738_415_616 * 2 / 8);
    // Smaller buckets, as the Hugging Face integration's "auto" sets them for
    // hidden 4096: prefetch 0.9 × 4096², persistence 10 × 4096 (the norms
    // still persist), reduce 4096² rounded up to 17 million.
    let auto = estimate_of(&format!(
        "{base}&ds_prefetch=15099494&ds_persist=40960&bucket_m=17"
    ));
    assert_eq!(
        auto.buffers,
        17_000_000 * 2 + (202_383_360 + 15_099_494) * 2
    );
    // A live budget below the block leaves nothing to prefetch; a threshold
    // below the hidden size shards the norms too.
    let tight = estimate_of(&format!("{base}&ds_live=100000000&ds_persist=4095"));
    assert_eq!(tight.buffers, 500_000_000 * 2 + 202_383_360 * 2);
    assert_eq!(tight.weights, 6_738_415_616 * 2 / 8);
    // The same run without the DeepSpeed profile keeps the old numbers.
    let plain = estimate_of(
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recipe=amp16&zero=3&gpus=8",
    );
    assert_eq!((plain.buffers, plain.optimizer_step), (0, 0));
}

/// `param_offload` (FSDP `CPUOffload(offload_params=True)`): Llama-3.1-8B in
/// pure BF16 on one GPU keeps the layers in flight (the 525,336,576-element
/// embedding or head computing, one 218,112,000-parameter block prefetched)
/// and the computing unit's gradients; the CPU holds the 16 B/param of
/// weights, gradients and AdamW's BF16 moments (docs/model.md §3.2).
#[test]
fn parameter_offload_keeps_the_layers_in_flight() {
    let q = "form=transformer&model=llama-3.1-8b&recipe=bf16&batch=1&seq=2048";
    let e = estimate_of(&format!("{q}&param_offload=1"));
    let (largest, layer): (u128, u128) = (128_256 * 4096, 218_112_000);
    assert_eq!(e.weights, 2 * (largest + layer));
    assert_eq!(e.gradients, 2 * largest);
    assert_eq!((e.optimizer_states, e.optimizer_step), (0, 0));
    assert_eq!(e.cpu_memory, 8 * 8_030_261_248);
    let kept = estimate_of(q);
    assert_eq!(kept.cpu_memory, 0);
    assert_eq!(e.activations, kept.activations);
    assert!(e.required < kept.required / 2);
    // Over 4 GPUs the CPU holds a quarter per process; the GPU the same layers.
    let four = estimate_of(&format!("{q}&param_offload=1&gpus=4"));
    assert_eq!(four.cpu_memory, 2 * 8_030_261_248);
    assert_eq!(four.weights, e.weights);
    // ZeRO-Offload: the FP32 master, moments and gradient partition.
    let zo = estimate_of(&format!(
        "{}&recipe=amp16&offload=1&gpus=4&zero=2",
        q.replace("&recipe=bf16", "")
    ));
    assert_eq!(zo.cpu_memory, (16 * 8_030_261_248_u128).div_ceil(4));
    // Activation offloading: what leaves the GPU is on the CPU.
    let on = estimate_of(&format!("{q}&act_offload=1"));
    assert_eq!(on.cpu_memory + on.activations, kept.activations);
    // In inference it is reported and dropped.
    let parsed = parse("form=transformer&mode=inference&param_offload=1");
    assert!(!parsed.config.transformer.param_offload);
    assert_eq!(parsed.problems.len(), 1);
}

/// FP8 training (`fp8`): Transformer Engine's delayed scaling on Llama-3.1-8B
/// under autocast (docs/model.md §3.3). Per block and token it saves
/// 5 × 4,096 bytes less for the FP8 inputs of the separate Q, K, V, gate and
/// up maps (each quantizes its own FP32 input, where autocast saves five
/// BF16 casts), 4,096 more for the output projection's FP8 copy, and 3 ×
/// 14,336 less in the MLP (the first maps' 2 × 14,336 outputs in BF16 and the
/// FP8 input of the second map, instead of four BF16 tensors): 59,392 bytes
/// less. It also
/// keeps every linear weight in FP8 with its transpose from the forward pass
/// to the backward pass, and 20,500 bytes of scaling state per GEMM: more
/// memory than BF16 at one sample, less at eight. torchao saves what BF16
/// saves.
#[test]
fn fp8_training_keeps_weight_copies_and_saves_fp8_inputs() {
    let q = "form=transformer&model=llama-3.1-8b&seq=2048";
    let at = |extra: &str, batch: u64| estimate_of(&format!("{q}&batch={batch}{extra}"));
    let (none, te) = (at("", 1), at("&fp8=te", 1));
    let linear: u128 = 6_979_321_856;
    assert_eq!(none.activations - te.activations, 59_392 * 2048 * 32);
    assert_eq!(te.buffers - none.buffers, 2 * linear + 32 * 4 * 20_500);
    assert_eq!(te.at_peak.buffers, te.buffers);
    assert_eq!(te.at_peak.sum(), te.peak_allocated);
    assert!(te.required > none.required);
    assert!(at("&fp8=te", 8).required < at("", 8).required);
    // torchao: the same saved tensors as BF16, one matrix's FP8 cast on top.
    let torchao = at("&fp8=torchao", 1);
    assert_eq!(torchao.activations, none.activations);
    assert_eq!(torchao.buffers - none.buffers, 4096 * 14_336);
    // Inference has no FP8 training recipe: reported and dropped.
    let parsed = parse("form=transformer&mode=inference&fp8=te");
    assert_eq!(parsed.config.transformer.fp8, transformer::Fp8::None);
    assert_eq!(parsed.problems.len(), 1);
}

/// ViT-B/16 under autocast at batch 32 (G039's query): the last layer's
/// backward pass holds every saved tensor, its working set and the
/// gradients created by then (the final norm's, the classifier's and fc2's,
/// 12,522,400 bytes: transformer.rs
/// `the_gradients_beside_the_last_layer_are_counted`), more than the start
/// of the backward pass without them; the timeline's loss point is that
/// moment. A decoder's loss holds more: no change there.
#[test]
fn the_gradients_beside_the_last_layer_set_a_vit_s_peak() {
    let c = config(
        "form=transformer&model=vit-b-16&dropout=0&labels=1000&recipe=amp&optimizer=adamw&batch=32&step=foreach&recompute=none&attn=flash&loss=full&logits=fp32",
    );
    let e = estimate(&c);
    assert_eq!(e.peak_phase, Phase::Backward);
    assert_eq!(e.at_peak.gradients, 12_522_400);
    assert!(e.at_peak.activations_alive);
    assert_eq!(e.at_peak.activations, e.activations);
    // 3,636,314,288 bytes at the start of the backward pass without them.
    assert_eq!(e.peak_allocated, 3_636_314_288 + 12_522_400);
    let points = timeline(&c);
    assert_eq!(points[12].moment, Moment::Loss);
    assert_eq!(points[12].bytes, e.at_peak);
    // Accumulation keeps every gradient with the activations already.
    let accumulating = estimate(&config(&format!(
        "{}&global_batch=64",
        "form=transformer&model=vit-b-16&dropout=0&labels=1000&recipe=amp&optimizer=adamw&batch=32&step=foreach&recompute=none&attn=flash&loss=full&logits=fp32"
    )));
    assert_eq!(accumulating.at_peak.gradients, accumulating.gradients);
    assert_eq!(
        accumulating.peak_allocated,
        e.peak_allocated - 12_522_400 + e.gradients
    );
}

/// GPT-2 under autocast with a fused AdamW step, batch 1 × 128: the end of
/// the backward pass sets the peak, where the embedding's backward adds its
/// dense gradient into the buffer holding the tied head's (4 × 50,257 × 768
/// = 154,389,504) beside every FP32 gradient (4P) and its incoming gradient
/// (128 × 4 × 768 = 393,216); the FP32 parameters and moments (12P) held.
#[test]
fn a_tied_embedding_s_backward_sets_the_end_of_the_backward_pass() {
    const P: u128 = 124_439_808;
    let c =
        config("form=transformer&model=gpt2&recipe=amp&optimizer=adamw&step=fused&batch=1&seq=128");
    let e = estimate(&c);
    assert_eq!(e.parameters, P);
    assert_eq!(e.peak_phase, Phase::Backward);
    assert!(!e.at_peak.activations_alive);
    assert_eq!(e.at_peak.gradients, 4 * P + 154_389_504);
    assert_eq!(e.at_peak.activations, 393_216);
    assert_eq!(e.peak_allocated, 16 * P + 154_389_504 + 393_216);
    assert_eq!(e.peak_allocated, 2_145_819_648);
    // The first layer's backward point is that moment.
    let points = timeline(&c);
    assert_eq!(points[24].moment, Moment::Backward);
    assert_eq!(points[24].layer, 1);
    assert_eq!(points[24].bytes, e.at_peak);
    // A foreach step's square roots (4P) outweigh it.
    let foreach = estimate(&config(
        "form=transformer&model=gpt2&recipe=amp&optimizer=adamw&step=foreach&batch=1&seq=128",
    ));
    assert_eq!(foreach.peak_phase, Phase::OptimizerStep);
    assert_eq!(foreach.peak_allocated, 20 * P);
}

/// The step of Llama-3.1-8B, batch 1 × 2,048 (issue 16): 32 forward points,
/// the loss, 32 backward points and the optimizer step; the activations grow
/// by one layer's share per forward point and the loss is the peak.
#[test]
fn the_timeline_walks_the_step() {
    let c = config("form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recipe=bf16");
    let e = estimate(&c);
    let points = timeline(&c);
    assert_eq!(points.len(), 32 + 1 + 32 + 1);
    assert_eq!(points[0].moment, Moment::Forward);
    assert_eq!(points[32].moment, Moment::Loss);
    assert_eq!(points[32].bytes, e.at_peak);
    assert_eq!(points[65].moment, Moment::OptimizerStep);
    let per_layer = points[1].bytes.activations - points[0].bytes.activations;
    assert_eq!(points[0].bytes.activations, per_layer);
    assert!(points[31].bytes.activations <= points[32].bytes.activations);
    // The backward pass frees the activations as it creates the gradients:
    // at its end, the embedding's backward, its incoming gradient is left
    // (2,048 × 2 × 4,096).
    assert_eq!(points[64].bytes.activations, 16_777_216);
    assert_eq!(points[64].bytes.gradients, e.gradients);
    // Inference: the prefill, then the cache filling in quarters.
    let g = config(
        "form=transformer&model=llama-3.1-8b&mode=inference&recipe=bf16&batch=1&seq=1024&gen=1024",
    );
    let points = timeline(&g);
    let moments: Vec<Moment> = points.iter().map(|p| p.moment).collect();
    assert_eq!(
        moments,
        [
            Moment::Prefill,
            Moment::Generation,
            Moment::Generation,
            Moment::Generation,
            Moment::Generation
        ]
    );
    assert_eq!(points[0].bytes.kv_cache * 2, estimate(&g).kv_cache);
    assert_eq!(points[4].bytes, estimate(&g).at_peak);
}

/// Autocast's weight copies under full recomputation (docs/model.md §3.3,
/// "Autocast's weight copies under full recomputation"): the cache holds
/// every copy to the end of the forward pass; at the loss only the head's
/// and one recomputed layer's are alive. Per query: the phase, the weights
/// alive at the peak, the activations then and the peak allocated.
#[test]
fn autocast_copies_under_full_recomputation() {
    // Llama 2 7B: the head 32,000 × 4,096 and one layer's matrices
    // 4 × 4,096² + 3 × 4,096 × 11,008 = 202,375,168, 2 bytes each:
    // 666,894,336 at the loss, of 13,476,831,232 in all.
    let llama = "form=transformer&model=llama-2-7b&recipe=amp&recompute=full&batch=1&seq=4096";
    assert_eq!(
        transformer::loss_weight_copies(&config(llama).transformer),
        Some(2 * (32_000 * 4_096 + 202_375_168))
    );
    let cases: [(&str, Phase, u128, u128, u128); 5] = [
        // G030: Llama 3.2 1B (tied), 4 × 2,048: 2 × (128,256 × 2,048 +
        // 60,817,408) at the loss, which sets the peak.
        (
            "form=transformer&model=llama-3.2-1b&dropout=0&recipe=amp&optimizer=adamw&batch=4\
             &seq=2048&step=foreach&recompute=full&attn=flash&loss=full&logits=fp32",
            Phase::Loss,
            646_971_392,
            13_849_591_808,
            29_326_336_000,
        ),
        // G021: Qwen2.5-0.5B (tied), 4 × 2,048.
        (
            "form=transformer&model=qwen2.5-0.5b&dropout=0&recipe=amp&optimizer=adamw&batch=4\
             &seq=2048&step=foreach&recompute=full&attn=flash&loss=full&logits=fp32",
            Phase::Loss,
            302_090_496,
            15_713_959_936,
            21_944_443_648,
        ),
        // Llama 2 7B, 1 × 4,096, ZeRO-2 over 8 GPUs (the FP32 gradients are
        // an eighth): the end of the forward pass sets the peak, every copy
        // (13,476,831,232) beside 32 FP32 layer inputs (2,147,483,648), the
        // final norm's and head's inputs (167,772,160) and the loss's
        // forward, (2 + 4 + 4) × 4,096 × 32,000 = 1,310,720,000; held: the
        // optimizer's shard 10,107,623,424.
        (
            "form=transformer&model=llama-2-7b&recipe=amp&recompute=full&batch=1&seq=4096\
             &gpus=8&zero=2",
            Phase::Forward,
            13_476_831_232,
            3_625_975_808,
            10_107_623_424 + 13_476_831_232 + 3_625_975_808,
        ),
        // The same without recomputation: every copy is saved, the loss.
        (
            "form=transformer&model=llama-2-7b&recipe=amp&recompute=none&batch=1&seq=4096\
             &gpus=8&zero=2",
            Phase::Loss,
            13_476_831_232,
            31_553_748_992,
            10_107_623_424 + 13_476_831_232 + 31_553_748_992,
        ),
        // Pure BF16 has no copies: unchanged, the BF16 weights, the moments'
        // shard (3,369,207,808), 32 BF16 layer inputs (1,073,741,824) and the
        // output layer's terms (1,707,081,728).
        (
            "form=transformer&model=llama-2-7b&recipe=bf16&recompute=full&batch=1&seq=4096\
             &gpus=8&zero=2",
            Phase::Loss,
            13_476_831_232,
            1_073_741_824 + 1_707_081_728,
            13_476_831_232 + 3_369_207_808 + 1_073_741_824 + 1_707_081_728,
        ),
    ];
    for (query, phase, weights, activations, peak) in cases {
        let c = config(query);
        let e = estimate(&c);
        assert_eq!(
            (
                e.peak_phase,
                e.at_peak.weights,
                e.at_peak.activations,
                e.peak_allocated
            ),
            (phase, weights, activations, peak),
            "{query}"
        );
        // The timeline's largest point is the peak, and where the end of
        // the forward pass wins it is the last forward point.
        let points = timeline(&c);
        let top = points.iter().map(|p| p.bytes.sum()).max();
        assert_eq!(top, Some(e.peak_allocated), "{query}");
        if phase == Phase::Forward {
            let last = points.iter().rfind(|p| p.moment == Moment::Forward);
            assert_eq!(last.map(|p| p.bytes), Some(e.at_peak), "{query}");
        }
    }
}

/// Under partial checkpointing the layers keep unequal shares, layer by
/// layer: Llama 2 7B, `amp`, 4,096 tokens, the first 8 layers checkpointed
/// (67,108,864 bytes each), the other 24 keeping their full set
/// (931,659,776; docs/model.md §3.3).
#[test]
fn the_timeline_follows_a_partial_plan() {
    let (input, set) = (67_108_864_u128, 931_659_776_u128);
    let c = config(
        "form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full&recompute_method=block&recompute_layers=8",
    );
    let points = timeline(&c);
    let activations = |i: usize| points[i].bytes.activations;
    assert_eq!(activations(0), input);
    assert_eq!(activations(7), 8 * input);
    assert_eq!(activations(8), 8 * input + set);
    assert_eq!(activations(30), 8 * input + 23 * set);
    // The forward pass's end, the loss computed, with every autocast copy
    // cached: this plan's peak.
    assert_eq!(points[31].bytes, estimate(&c).at_peak);
    assert_eq!(estimate(&c).peak_phase, Phase::Forward);
    assert!(activations(31) > 8 * input + 24 * set);
    // After layer 9's backward pass: the 8 checkpoints' inputs.
    assert_eq!((points[56].layer, activations(56)), (9, 8 * input));
    // Each layer its own checkpoint: equal shares, as before.
    let each = config("form=transformer&model=llama-2-7b&batch=1&seq=4096&recompute=full");
    assert_eq!(timeline(&each)[7].bytes.activations, 8 * input);
}

/// docs/url-parameters.md's mixture-of-experts example: Mixtral-8x7B in pure
/// BF16 on 8 GPUs with ep = 8 and ZeRO-1, one sample of 4,096 tokens.
#[test]
fn the_mixture_of_experts_example() {
    let e = estimate_of(
        "form=transformer&model=mixtral-8x7b&recipe=bf16&gpus=8&ep=8&zero=1&batch=1&seq=4096",
    );
    // Weights and gradients: 2 × 1,605,636,096 non-expert bytes + 2 ×
    // 45,097,156,608 / 8 of the experts; moments 4 × 46,702,792,704 / 8.
    assert_eq!(
        (e.parameters, e.active_parameters),
        (46_702_792_704, 12_879_925_248)
    );
    assert_eq!(
        (e.weights, e.gradients, e.optimizer_states),
        (14_485_561_344, 14_485_561_344, 23_351_396_352)
    );
    // Per token and layer 98,380 bytes unsplit (the norms and projection
    // inputs 65,536, the router 56, two copies of 16,394) and 249,984 split
    // (Q, K, V, output 20,480, log-sum-exp 128, two experts' intermediates
    // 229,376), × 4,096 tokens × 32 layers; the output layer's 1,707,081,728
    // outweigh the all-to-all's 2 × 8,192 × 2 × 4,096.
    assert_eq!(
        e.activations,
        (98_380 + 249_984) * 4096 * 32 + 1_707_081_728
    );
    assert_eq!(e.activations, 47_367_847_936);
    assert_eq!(e.total, 85_204_805_632);
    assert_eq!(
        crate::units::format_bytes(e.total, crate::units::Units::Decimal),
        "85.20 GB"
    );
    assert_eq!(e.peak_phase, Phase::Loss);
}

/// With expert parallelism the GPUs needed are a multiple of `ep`, which
/// must divide them.
#[test]
fn gpus_needed_keep_ep_dividing_them() {
    let config = config(
        "form=transformer&model=mixtral-8x7b&recipe=bf16&zero=3&gpus=8&ep=8&batch=1&seq=4096&gpu=h100-80gb",
    );
    let needed = gpus_needed(&config).expect("some number fits");
    assert_eq!(needed % 8, 0, "{needed}");
    assert_eq!(needed, 16);
    // One group of 8 fewer does not fit: the answer is the smallest multiple.
    let mut fewer = config;
    fewer.transformer.gpus = needed - 8;
    assert!(needed == 8 || estimate(&fewer).fits == Some(false));
    let mut enough = config;
    enough.transformer.gpus = needed;
    assert_eq!(estimate(&enough).fits, Some(true));
}

/// Llama 3.1 8B in pure BF16 with flash attention, one sample of 2,048 tokens.
fn llama_query(extra: &str) -> Config {
    let seq = if extra.contains("seq=") {
        ""
    } else {
        "&seq=2048"
    };
    let parsed = parse(&format!(
        "form=transformer&model=llama-3.1-8b&recipe=bf16&attn=flash&batch=1{seq}{extra}"
    ));
    assert_eq!(parsed.problems, vec![], "{extra}");
    parsed.config
}

/// Korthikanti et al. 2022, §4.2.3: a 1F1B pipeline of p stages with at least
/// p micro-batches keeps on its first stage p micro-batches of L/p layers, the
/// un-pipelined model's layer activations for one micro-batch, plus the
/// first stage's own terms: its embedding's (none for Llama, which has no
/// dropout), the activation-sized gradient received and sent, and beside
/// them the backward pass's working tensors less the residual stream's
/// gradient, which is the one received.
#[test]
fn a_1f1b_first_stage_holds_one_micro_batch_of_every_layer() {
    let whole = llama_query("");
    let layers = transformer::layer_activations_per_sample(&whole.transformer);
    // Per layer: 16sh replicated (two RMSNorms' FP32 copy and output, two
    // linear inputs) + s(2q + 2(k+v) + 2·out + 8f + 4a) split: 2,048 ×
    // (65,536 + 135,296) = 411,303,936 bytes; × 32 layers.
    assert_eq!(layers, 32 * 411_303_936);
    let boundary = 2048 * 4096 * 2;
    // The gated product's backward: its incoming gradient and both factors'
    // gradients, 3 × 2 × 14,336 × 2,048 bytes.
    let working = 3 * 2 * 14_336 * 2048;
    for (p, m) in [(2u64, 2u64), (4, 4), (4, 8), (8, 32), (32, 64)] {
        let piped = llama_query(&format!("&pp={p}&microbatches={m}"));
        let stages = stages(&piped);
        assert_eq!(stages.len() as u64, p);
        let first = stages[0].estimate;
        assert_eq!(
            first.activations_per_sample,
            layers + working + 2 * boundary,
            "p={p}"
        );
        // The last stage holds one micro-batch of its layers, its head's
        // and its loss's tensors.
        assert!(stages[p as usize - 1].head && !stages[p as usize - 1].embedding);
        // Only the last stage runs the loss: the others' peak is the start
        // of their backward pass.
        assert_eq!(first.peak_phase, Phase::Backward, "p={p}");
        assert_eq!(
            stages[p as usize - 1].estimate.peak_phase,
            Phase::Loss,
            "p={p}"
        );
    }
    // Fewer micro-batches than stages: every one of them, no more.
    let short = llama_query("&pp=4&microbatches=2");
    assert_eq!(
        stages(&short)[0].estimate.activations_per_sample,
        layers / 2 + working + 2 * boundary
    );
    // GPipe keeps every micro-batch on every stage.
    let gpipe = llama_query("&pp=4&pp_schedule=gpipe&microbatches=8");
    assert_eq!(
        stages(&gpipe)[1].estimate.activations_per_sample,
        8 * (layers / 4 + boundary) + working + 2 * boundary
    );
}

/// Each stage's model states are its layers' share: the middle stages of an
/// untied model hold L/p layers' parameters, the first the embedding too,
/// the last the final norm and head; together every parameter once. A tied
/// head is copied onto the last stage (Megatron-Core).
#[test]
fn stage_model_states_are_the_layers_share() {
    let whole = llama_query("");
    let count = transformer::parameter_count(&whole.transformer.arch);
    let piped = llama_query("&pp=4");
    let stages = stages(&piped);
    let weights: u128 = stages.iter().map(|s| s.estimate.weights).sum();
    assert_eq!(weights, 2 * count.total);
    let mut one_layer = whole.transformer.arch;
    one_layer.layers = 1;
    let mut none = whole.transformer.arch;
    none.layers = 0;
    let layer =
        transformer::parameter_count(&one_layer).total - transformer::parameter_count(&none).total;
    assert_eq!(stages[1].estimate.weights, 2 * 8 * layer);
    assert_eq!(stages[2].estimate.weights, 2 * 8 * layer);
    // 128,256 × 4,096 embedding on the first; the head and final norm on the last.
    assert_eq!(stages[0].estimate.weights, 2 * (8 * layer + 128_256 * 4096));
    assert_eq!(
        stages[3].estimate.weights,
        2 * (8 * layer + 128_256 * 4096 + 4096)
    );
    let tied = parse("form=transformer&model=llama-3.2-1b&recipe=bf16&pp=2").config;
    let tied_stages = super::stages(&tied);
    // The embedding on the first stage, its copy and the final norm (2,048
    // weights) on the last.
    assert_eq!(
        tied_stages[1].estimate.weights - tied_stages[0].estimate.weights,
        2 * 2048
    );
}

/// Context parallelism of degree c divides the sequence-proportional
/// activations by c: c ranks over c × s tokens hold what one rank holds over
/// s (Llama's peak is its loss, above the ring's K/V buffers).
#[test]
fn context_parallel_divides_the_sequence() {
    let one = estimate(&llama_query(""));
    for (c, kind) in [(2u64, "ring"), (4, "ring"), (8, "ulysses")] {
        let split = estimate(&llama_query(&format!(
            "&seq={}&cp={c}&cp_kind={kind}",
            2048 * c
        )));
        assert_eq!(
            split.activations_per_sample, one.activations_per_sample,
            "cp={c}"
        );
        assert_eq!(split.model_states(), one.model_states());
    }
    // An encoder without a loss of logit size: the ring's buffers set the
    // transient instead, at cp = 2 the backward pass's two buffers of K, V
    // and their gradients (the forward pass's 2 blocks are half of that).
    let bert = |extra: &str| {
        let parsed = parse(&format!(
            "form=transformer&model=bert-base&recipe=bf16&batch=1{extra}"
        ));
        assert_eq!(parsed.problems, vec![]);
        estimate(&parsed.config)
    };
    let (plain, ring) = (bert("&seq=2048"), bert("&seq=4096&cp=2"));
    // 4 × the rank's 2,048 tokens' K and V (768 wide each), 2 bytes.
    assert_eq!(
        ring.activations_per_sample - plain.activations_per_sample,
        4 * 2048 * (768 + 768) * 2
    );
}

#[test]
fn the_job_counts_every_parallel_degree() {
    let config = llama_query("&gpus=4&tp=2&pp=4&cp=2");
    assert_eq!(total_gpus(&config, config.transformer.gpus), 64);
}

proptest! {
    /// Per-GPU model states never grow with pp or cp (nor with tp and ep,
    /// checked beside the ZeRO tests); without `pp_stage` the answer is the
    /// stage that needs the most, and no stage's peak is above it.
    #[test]
    fn pipeline_and_context_parallelism_never_add_model_states(config in any_config()) {
        let t = config.transformer;
        let mut unsplit = config;
        (unsplit.transformer.pp, unsplit.transformer.cp) = (1, 1);
        let reparsed = parse(&crate::query::to_query(&unsplit)).config;
        let base = estimate(&reparsed);
        let stages = stages(&config);
        prop_assert_eq!(stages.len() as u64, if config.form == Form::Transformer { t.pp } else { 1 });
        for stage in &stages {
            prop_assert!(stage.estimate.weights + stage.estimate.optimizer_states <= base.weights + base.optimizer_states + base.buffers);
        }
        let e = estimate(&config);
        if t.pp_stage.index(t.pp).is_none() {
            let most = stages.iter().map(|s| s.estimate.required).max().unwrap_or(0);
            prop_assert_eq!(e.required, most);
            for stage in &stages {
                prop_assert!(stage.estimate.peak_reserved <= e.peak_reserved);
            }
        }
    }
}

/// Fine-tuning's worked examples (docs/model.md §3.8), Llama-3.1-8B in BF16
/// at r = 16 on every linear map (41,943,040 adapter parameters), by query:
/// what each setting adds to the weights, gradients and working buffers of
/// the same query without it, the optimizer state it ends with, and whether
/// that state may spill to CPU.
#[test]
fn fine_tuning_worked_examples() {
    const P: u128 = 8_030_261_248;
    const A: u128 = 41_943_040;
    // gate_proj (4,096 → 14,336): the largest linear map, 58,720,256 weights.
    const W: u128 = 4096 * 14_336;
    // The embedding, and the untied head: 128,256 × 4,096 each.
    const V: u128 = 128_256 * 4096;
    // The linear maps' weights, and what NF4 stores them in.
    const L: i128 = 6_979_321_856;
    let nf4 = L / 2 + 4 * L / 64;
    struct Case {
        base: &'static str,
        with: &'static str,
        /// The setting the differences are taken against.
        without: &'static str,
        /// More weights, gradients and buffers than `without`.
        more: [i128; 3],
        optimizer_states: u128,
        may_spill: bool,
    }
    let lora = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recipe=bf16&lora_rank=16&lora_targets=all";
    let full = "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recipe=bf16";
    let cases = [
        // bitsandbytes PagedAdamW: two FP32 moments, as AdamW over FP32
        // adapters; nothing else changes.
        Case {
            base: lora,
            with: "&optimizer=paged_adamw",
            without: "",
            more: [0, 0, 0],
            optimizer_states: 8 * A,
            may_spill: true,
        },
        // PagedAdamW8bit: Adam8bit's bytes, 1 + 1 per parameter and the absmaxes.
        Case {
            base: lora,
            with: "&optimizer=paged_adamw_8bit",
            without: "&optimizer=adam8bit",
            more: [0, 0, 0],
            optimizer_states: 2 * A + 8 * A.div_ceil(2048),
            may_spill: true,
        },
        // Full training: PagedAdamW's moments are FP32 whatever the
        // parameter's dtype, twice torch's BF16 AdamW under `recipe=bf16`.
        Case {
            base: full,
            with: "&optimizer=paged_adamw",
            without: "",
            more: [0, 0, 0],
            optimizer_states: 8 * P,
            may_spill: true,
        },
        // The same state in CPU memory (ZeRO-Offload) cannot spill from the GPU.
        Case {
            base: full,
            with: "&optimizer=paged_adamw&offload=1",
            without: "&offload=1",
            more: [0, 0, 0],
            optimizer_states: 0,
            may_spill: false,
        },
        // NF4: the linear maps in 0.5625 bytes a weight, and one BF16 copy
        // of gate_proj, 117,440,512 bytes.
        Case {
            base: lora,
            with: "&base_quant=nf4",
            without: "",
            more: [nf4 - 2 * L, 0, 2 * W as i128],
            optimizer_states: 8 * A,
            may_spill: false,
        },
        // Double quantization: its FP32 absmaxes too, 121,110,528 bytes.
        Case {
            base: lora,
            with: "&base_quant=nf4&double_quant=1",
            without: "&base_quant=nf4",
            more: [
                L / 64 + 4 * (L / 64 / 256) - 4 * L / 64,
                0,
                (4 * W / 64) as i128,
            ],
            optimizer_states: 8 * A,
            may_spill: false,
        },
        // LLM.int8: a byte a weight and an FP32 scale per output row (43,008
        // a layer); its BF16 copy and one FP32 scale per row of gate_proj,
        // 117,497,856 bytes.
        Case {
            base: lora,
            with: "&base_quant=int8",
            without: "&base_quant=nf4",
            more: [L + 4 * 32 * 43_008 - nf4, 0, 4 * 14_336],
            optimizer_states: 8 * A,
            may_spill: false,
        },
        // DoRA's working set over a 4-bit base already holds a dequantized
        // copy (its own, e · d_in · d_out of down_proj) and more: the two do
        // not add.
        Case {
            base: lora,
            with: "&lora_variant=dora&base_quant=nf4",
            without: "&lora_variant=dora",
            more: [nf4 - 2 * L, 0, 2 * 14_336 * 4096],
            optimizer_states: 8 * (A + 32 * 43_008),
            may_spill: false,
        },
        // PEFT modules_to_save: trainable BF16 copies of the embedding and
        // the head beside the frozen originals, trained as full training
        // trains them: 2 bytes of weights and gradients, 2 + 2 of AdamW's
        // moments per parameter.
        Case {
            base: lora,
            with: "&train_embeddings=1",
            without: "",
            more: [2 * 2 * V as i128, 2 * 2 * V as i128, 0],
            optimizer_states: 8 * A + 4 * 2 * V,
            may_spill: false,
        },
        // Llama 3.2 1B ties them: one copy, 128,256 × 2,048.
        Case {
            base: "form=transformer&model=llama-3.2-1b&batch=1&seq=2048&recipe=bf16&lora_rank=16",
            with: "&train_embeddings=1",
            without: "",
            more: [2 * 128_256 * 2048, 2 * 128_256 * 2048, 0],
            optimizer_states: 8 * 16 * 16 * (2048 + 2048 + 2048 + 512) + 4 * 128_256 * 2048,
            may_spill: false,
        },
    ];
    for case in cases {
        let e = estimate_of(&format!("{}{}", case.base, case.with));
        let before = estimate_of(&format!("{}{}", case.base, case.without));
        assert_eq!(
            (
                [
                    e.weights as i128 - before.weights as i128,
                    e.gradients as i128 - before.gradients as i128,
                    e.buffers as i128 - before.buffers as i128
                ],
                e.optimizer_states,
                e.optimizer_may_spill
            ),
            (case.more, case.optimizer_states, case.may_spill),
            "{}{}",
            case.base,
            case.with
        );
    }
}

proptest! {
    /// torch.compile's partitioner saves a minimum cut of the joint graph,
    /// never more than eager autograd keeps: over every training
    /// configuration the compiled activations and peak are at most the eager
    /// ones (docs/model.md §3.3). Not where the loss reads logits narrower
    /// than the model computes (`logits=bf16` under `recipe=fp32`): the
    /// compiled chunked loss keeps the head's output as it is.
    #[test]
    fn compiling_never_keeps_more(config in any_config()) {
        let config = Config { form: Form::Transformer, ..config };
        let t = config.transformer;
        prop_assume!(t.mode == Mode::Train);
        prop_assume!(!(t.logits == transformer::Logits::Bf16 && t.activation_bytes() == 4));
        let (mut eager, mut compiled) = (config, config);
        eager.transformer.compile = false;
        compiled.transformer.compile = true;
        let (eager, compiled) = (estimate(&eager), estimate(&compiled));
        prop_assert!(compiled.activations <= eager.activations);
        prop_assert!(compiled.peak_allocated <= eager.peak_allocated);
    }
}

/// docs/model.md §3.3's worked example of torch.compile: Llama-3.1-8B, pure
/// BF16, 2,048 tokens, batch 1. Eager: 32 layers × 411,303,936 bytes, the
/// final norm's and head's inputs (67,108,864) and three FP32 logit-sized
/// tensors (3,152,019,456). Compiled: 32 × 285,474,816, 33,554,432 and two
/// (2,101,346,304).
#[test]
fn compiled_activations_worked_example() {
    let query = "form=transformer&model=llama-3.1-8b&recipe=bf16&seq=2048&batch=1";
    let eager = estimate_of(query);
    assert_eq!(
        eager.activations,
        32 * 411_303_936 + 67_108_864 + 3_152_019_456
    );
    assert_eq!(eager.activations, 16_380_854_272);
    let compiled = estimate_of(&format!("{query}&compile=1"));
    assert_eq!(
        compiled.activations,
        32 * 285_474_816 + 33_554_432 + 2_101_346_304
    );
    assert_eq!(compiled.activations, 11_270_094_848);
}

/// The property test's two shrunk cases (proptest-regressions): one MoE
/// layer in every 1,883 (2,076) under uniform groups of 2. One more
/// layer and a wider FFN never lower the activations: the MoE layers
/// stay in their own groups (layers 1,882 and 3,765; 2,075 and 4,151),
/// where counting the dense layers first put both in the last group.
#[test]
fn one_more_layer_never_regroups_the_moe_layers() {
    let common = "form=transformer&kind=decoder&hidden=1&heads=1&kv_heads=1&mlp=gelu&norm=layernorm&vocab=1&experts=1&experts_active=1&recipe=fp32&optimizer=adamw&recompute=full&recompute_method=uniform&recompute_layers=2&attn=eager&gpus=1&batch=1&seq=1";
    for (model, layers) in [
        ("moe_every=1883&tp=7", 5646),
        (
            "moe_every=2076&shared_experts=1&tp=501&step=fused&global_batch=26150",
            6226,
        ),
    ] {
        let small = estimate_of(&format!("{common}&{model}&layers={layers}&ffn=1"));
        let big = estimate_of(&format!("{common}&{model}&layers={}&ffn=2", layers + 1));
        assert!(big.activations >= small.activations, "{model}");
        assert!(big.total >= small.total, "{model}");
    }
}

/// fitcheck's QLoRA run of Qwen2.5-7B on a T4, pre-registered as V314
/// (validation/preregistered.csv), as registered: without `prepare_kbit`.
pub(crate) const FITCHECK_V314: &str = "form=transformer&mlp=swiglu&norm=rmsnorm&qkv_bias=1&tied=0&layers=28\
    &hidden=3584&heads=28&kv_heads=4&ffn=18944&vocab=152064&seq=1024\
    &recipe=bf16&optimizer=adamw&step=foreach&batch=1&recompute=full\
    &reentrant=0&attn=eager&outputs=kept&lora_rank=16&lora_targets=attn\
    &lora_dropout=0&base_quant=nf4&double_quant=0";

/// docs/model.md §3.8's worked example of `prepare_kbit`: fitcheck's
/// QLoRA run of Qwen2.5-7B on a T4 (validation row V314), with and without
/// PEFT's `prepare_model_for_kbit_training`. The cast makes every parameter
/// the NF4 base leaves unquantized FP32: the embedding and the untied head
/// (2 × 152,064 × 3,584), the norms ((2 × 28 + 1) × 3,584) and the q, k, v
/// biases (28 × (3,584 + 2 × 512)), 1,090,328,064 parameters, 2 bytes more
/// each. The FP32 embedding makes the residual stream FP32: the 28 layers'
/// checkpointed inputs and the final norm's (29 × 1,024 × 3,584), 2 bytes
/// more each. The FP32 head writes FP32 logits, which the kept output holds
/// (1,024 × 152,064), 2 bytes more each.
#[test]
fn prepare_kbit_worked_example() {
    let qlora = FITCHECK_V314;
    let before = estimate_of(qlora);
    let after = estimate_of(&format!("{qlora}&prepare_kbit=1"));
    let unquantized = 2 * 152_064 * 3_584 + (2 * 28 + 1) * 3_584 + 28 * (3_584 + 2 * 512);
    assert_eq!(unquantized, 1_090_328_064);
    assert_eq!(after.weights - before.weights, 2 * unquantized);
    assert_eq!(
        after.activations_per_sample - before.activations_per_sample,
        2 * 29 * 1_024 * 3_584
    );
    assert_eq!(
        after.kept_outputs - before.kept_outputs,
        2 * 1_024 * 152_064
    );
    assert_eq!(
        after.activations - before.activations,
        2 * 29 * 1_024 * 3_584 + 2 * 1_024 * 152_064
    );
    // Nothing that trains changes: the adapters were FP32 already.
    assert_eq!(
        (after.gradients, after.optimizer_states),
        (before.gradients, before.optimizer_states)
    );
    assert_eq!(after.peak_allocated, 11_227_846_656);
}

/// `prepare_kbit` applies to a quantized LoRA base only: with a 16-bit base
/// or without adapters the parser reports it and resets it.
#[test]
fn prepare_kbit_needs_a_quantized_base() {
    let lora = "form=transformer&model=llama-3.1-8b&lora_rank=16";
    for query in [lora, "form=transformer&model=llama-3.1-8b"] {
        let parsed = parse(&format!("{query}&prepare_kbit=1"));
        assert_eq!(parsed.problems.len(), 1, "{query}");
        assert_eq!(parsed.config, config(query), "{query}");
    }
    assert!(
        config(&format!("{lora}&base_quant=nf4&prepare_kbit=1"))
            .transformer
            .prepare_kbit
    );
}

/// `framework=hf_peft` prepares a quantized base as PEFT's quantization
/// guide does (docs/frameworks.md); `prepare_kbit=0` says a run did not.
#[test]
fn hf_peft_prepares_a_quantized_base() {
    let peft = "form=transformer&model=llama-3.1-8b&framework=hf_peft";
    assert!(
        config(&format!("{peft}&base_quant=nf4"))
            .transformer
            .kbit_prepared()
    );
    assert!(
        !config(&format!("{peft}&base_quant=nf4&prepare_kbit=0"))
            .transformer
            .kbit_prepared()
    );
    // Without a quantized base there is nothing to prepare.
    assert!(!config(peft).transformer.kbit_prepared());
}
