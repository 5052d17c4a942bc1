//! Parameter counts against published checkpoints.

use super::*;

/// Published parameter counts, within 0.5 %.
#[test]
fn parameter_counts_match_published_counts() {
    for (id, published) in [
        ("gpt2", 124_439_808.0),
        ("bert-large", 335_141_888.0),
        ("llama-2-7b", 6.74e9),
        ("llama-3.1-8b", 8.03e9),
        ("qwen2.5-7b", 7.62e9),
    ] {
        let count = parameter_count(&arch(id)).total as f64;
        let error = (count - published).abs() / published;
        assert!(error < 0.005, "{id}: {count} vs {published}");
    }
    // The exact counts, from the checkpoints' tensor shapes.
    assert_eq!(parameter_count(&arch("gpt2")).total, 124_439_808);
    assert_eq!(parameter_count(&arch("bert-large")).total, 335_141_888);
    assert_eq!(parameter_count(&arch("llama-2-7b")).total, 6_738_415_616);
    assert_eq!(parameter_count(&arch("llama-3.1-8b")).total, 8_030_261_248);
    assert_eq!(parameter_count(&arch("qwen2.5-7b")).total, 7_615_616_512);
}

/// The 2025–2026 dense families, each against a count published to the
/// parameter: the checkpoint's safetensors total on the Hugging Face Hub
/// (`safetensors.total` of the model's API page), or keras-team/keras-hub's
/// preset metadata `params` for the same checkpoint
/// (keras_hub/src/models/qwen3/qwen3_presets.py,
/// keras_hub/src/models/gemma/gemma_presets.py,
/// keras_hub/src/models/gemma3/gemma3_presets.py). Within 0.5 %; the
/// exact counts agree but for Gemma 3's text models, whose Keras port has
/// a vocabulary of 262,144 where the config has 262,208 (64 × hidden
/// fewer). The vision tower of Gemma 3 4B–27B is not counted.
#[test]
fn the_new_families_match_their_published_counts() {
    for (id, published, exact) in [
        // keras-hub qwen3_presets.py; Qwen3-0.6B's model.num_parameters().
        ("qwen3-0.6b", 596_049_920, true),
        ("qwen3-1.7b", 1_720_574_976, true),
        ("qwen3-4b", 4_022_468_096, true),
        ("qwen3-8b", 8_190_735_360, true),
        ("qwen3-14b", 14_768_307_200, true),
        ("qwen3-32b", 32_762_123_264, true),
        // keras-hub gemma_presets.py (gemma2_2b_en, gemma2_9b_en, gemma2_27b_en).
        ("gemma-2-2b", 2_614_341_888, true),
        ("gemma-2-9b", 9_241_705_984, true),
        ("gemma-2-27b", 27_227_128_320, true),
        // keras-hub gemma3_presets.py (gemma3_1b, gemma3_*_text).
        ("gemma-3-1b", 999_885_952, true),
        ("gemma-3-4b", 3_880_099_328, false),
        ("gemma-3-12b", 11_765_788_416, false),
        ("gemma-3-27b", 27_009_002_240, false),
        // Hub safetensors totals.
        ("llama-3.3-70b", 70_553_706_496, true),
        ("phi-2", 2_779_683_840, true),
        ("phi-4", 14_659_507_200, true),
        ("olmo-2-7b", 7_298_617_344, true),
        ("olmo-2-13b", 13_716_198_400, true),
    ] {
        let preset = arch(id);
        let count = parameter_count(&preset).total;
        let error = (count as f64 - published as f64).abs() / published as f64;
        assert!(error < 0.005, "{id}: {count} vs {published}");
        if exact {
            assert_eq!(count, published, "{id}");
        } else {
            // The Keras port's vocabulary: 262,144 entries of the tied matrix.
            let keras = Architecture {
                vocab: 262_144,
                ..preset
            };
            assert_eq!(parameter_count(&keras).total, published, "{id}");
        }
    }
}

/// Mixture-of-experts counts from the configs' tensor shapes, byte-exact
/// (docs/model.md, "Mixture of experts").
#[test]
fn moe_parameter_counts_are_exact() {
    for (id, total, active, routed) in [
        // 32 layers × (attention 41,943,040 + 8 experts × 176,160,768 +
        // router 32,768 + norms 8,192) + embedding and head 262,144,000 +
        // final norm 4,096; active: 2 of the 8 experts.
        (
            "mixtral-8x7b",
            46_702_792_704,
            12_879_925_248,
            32 * 8 * 176_160_768,
        ),
        // 48 × (attention 18,874,368 + QK-norm 256 + norms 4,096 + router
        // 262,144 + 128 × 4,718,592) + 2 × 311,164,928 + 2,048; top-8.
        (
            "qwen3-30b-a3b",
            30_532_122_624,
            3_353_032_704,
            48 * 128 * 4_718_592,
        ),
        // 3 dense layers × (MLA 187,107,328 + norms 14,336 + MLP
        // 396,361,728) + 58 MoE layers × (187,121,664 + 256 × 44,040,192 +
        // shared 44,040,192 + router 1,835,008) + 2 × 926,679,040 + 7,168.
        (
            "deepseek-v3",
            671_026_404_352,
            37_552_282_624,
            58 * 256 * 44_040_192,
        ),
        // 24 × (attention 26,542,080 + biases 8,000 + sinks 64 + norms
        // 5,760 + 32 × 24,891,840 + router 92,192) + 2 × 579,133,440 + 2,880.
        (
            "gpt-oss-20b",
            20_914_757_184,
            4_187_440_704,
            24 * 32 * 24_891_840,
        ),
    ] {
        let count = parameter_count(&arch(id));
        assert_eq!(
            (count.total, count.active, count.routed.total),
            (total, active, routed),
            "{id}"
        );
    }
    // A dense model is all active.
    let dense = parameter_count(&arch("llama-3.1-8b"));
    assert_eq!((dense.active, dense.routed.total), (dense.total, 0));
}

/// QK-norm: per head (Qwen3), 2 × head_dim weights per layer; over the
/// whole projections (OLMoE), q + kv.
#[test]
fn qk_norm_weights_per_layer() {
    let qwen3 = arch("qwen3-30b-a3b");
    let without = Architecture {
        qk_norm: false,
        ..qwen3
    };
    assert_eq!(
        parameter_count(&qwen3).total - parameter_count(&without).total,
        48 * 2 * 128
    );
    let olmoe = arch("olmoe-1b-7b");
    let per_head = Architecture {
        qk_norm_full: false,
        ..olmoe
    };
    assert_eq!(
        parameter_count(&olmoe).total - parameter_count(&per_head).total,
        16 * (2048 + 2048 - 2 * 128)
    );
    // Saved for the backward pass like the layer norms' RMSNorm: the FP32
    // upcast and the normalized tensor of every query and key, (4 + 2)
    // bytes each in BF16: 2,048 tokens × 6 × (4,096 + 512) per layer.
    let input = |arch| TransformerInput {
        arch,
        seq: 2048,
        recipe: Recipe::Bf16,
        ..TransformerInput::default()
    };
    assert_eq!(
        layer_activations(&input(qwen3), Ffn::Moe).split
            - layer_activations(&input(without), Ffn::Moe).split,
        2048 * 6 * (4096 + 512)
    );
}

/// Each new term of the count, on a one-layer model small enough to add
/// up by hand: hidden 8, 2 heads of 4 (1 KV head), FFN 16, vocabulary 10.
#[test]
fn norms_qk_norms_and_a_biased_head_are_counted() {
    let base = Architecture {
        layers: 1,
        hidden: 8,
        heads: 2,
        kv_heads: 1,
        ffn: 16,
        vocab: 10,
        tied: true,
        ..Architecture::default()
    };
    // Q 8×8, K and V 8×4, O 8×8; gate, up, down 8×16; two RMSNorms of 8;
    // the embedding 10×8 and the final norm 8.
    let plain = 64 + 32 + 32 + 64 + 3 * 128 + 2 * 8 + 80 + 8;
    let count = |arch: Architecture| parameter_count(&arch).total;
    assert_eq!(count(base), plain);
    // Gemma's four norms per layer; OLMo 2's two after the blocks; Phi's one.
    let with = |block| Architecture { block, ..base };
    assert_eq!(count(with(Block::Sandwich)), plain + 2 * 8);
    assert_eq!(count(with(Block::Post)), plain);
    assert_eq!(count(with(Block::Parallel)), plain - 8);
    // QK-norm per head: one weight of head_dim 4 each for Q and K; over
    // the whole projections: Q's 8 and K's 4. LayerNorm doubles them.
    let qk = |qk_norm, qk_norm_full, norm| Architecture {
        qk_norm,
        qk_norm_full,
        norm,
        ..base
    };
    assert_eq!(count(qk(true, false, Norm::RmsNorm)), plain + 8);
    assert_eq!(count(qk(true, true, Norm::RmsNormFp32)), plain + 12);
    let layer_norm = count(qk(false, false, Norm::LayerNorm));
    assert_eq!(count(qk(true, false, Norm::LayerNorm)), layer_norm + 16);
    let qk_norms = parameter_count(&qk(true, true, Norm::RmsNorm)).norms;
    assert_eq!(qk_norms, parameter_count(&base).norms + 12);
    // Phi's untied head with bias=1 has a bias of the vocabulary's size
    // (its parallel block has one norm); gpt-oss's biased model does not.
    let untied = Architecture {
        tied: false,
        ..base
    };
    let biased = Architecture {
        bias: true,
        ..untied
    };
    let layer_biases = 8 + 4 + 4 + 8 + 2 * 16 + 8;
    assert_eq!(count(biased), count(untied) + layer_biases);
    let phi = |bias| Architecture {
        bias,
        block: Block::Parallel,
        ..untied
    };
    assert_eq!(count(phi(true)), count(phi(false)) + layer_biases + 10);
}
