//! The backward pass: its order, working tensors and gradients.

use super::*;

/// Full recomputation reruns a layer after the backward pass has freed the
/// loss's, the head's and the final norm's tensors.
#[test]
fn a_recomputed_layer_comes_after_the_loss() {
    // Llama 2 7B, 4,096 tokens, `amp`: 32 FP32 layer inputs (4 × 4,096 ×
    // 4,096 = 67,108,864 each); one layer's set 931,659,776; the output
    // layer's terms (final norm and head inputs 167,772,160, the loss's
    // 12 × 4,096 × 32,000 = 1,572,864,000) 1,740,636,160. The larger of the
    // last two counts.
    let full = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recompute: Recompute::Full,
        ..TransformerInput::default()
    };
    assert_eq!(
        layer_activations(&full, Ffn::Dense).per_rank(&full, true),
        931_659_776
    );
    assert_eq!(
        activations_per_sample(&full),
        32 * 67_108_864 + 1_740_636_160
    );
    // A vocabulary of 10: the output layer's terms (167,772,160 +
    // 12 × 4,096 × 10) are smaller than the recomputed layer's set and
    // the backward pass's working tensors beside it: the FP32 residual
    // stream's gradient (67,108,864) and the gated product's three
    // gradients (3 × 2 × 11,008 × 4,096 = 270,532,608).
    let small_vocabulary = TransformerInput {
        arch: Architecture {
            vocab: 10,
            ..full.arch
        },
        ..full
    };
    assert_eq!(
        activations_per_sample(&small_vocabulary),
        32 * 67_108_864 + 931_659_776 + 67_108_864 + 270_532_608
    );
    // BERT's embedding norm sits below the layers: its input (FP32 under
    // autocast, 4 × 512 × 1,024) is alive while each layer is recomputed.
    let bert = TransformerInput {
        arch: arch("bert-large"),
        seq: 512,
        recompute: Recompute::Full,
        ..TransformerInput::default()
    };
    // The working tensors beside it: the FP32 residual gradient and
    // GELU's two gradients (2 × 2 × 4,096 × 512).
    let set = layer_activations(&bert, Ffn::Dense).per_rank(&bert, true);
    let working = 4 * 512 * 1024 + 2 * 2 * 4096 * 512;
    let dropout_mask = 512 * 1024;
    assert_eq!(
        activations_per_sample(&bert),
        24 * 4 * 512 * 1024 + dropout_mask + 4 * 512 * 1024 + set + working
    );
}

/// The backward pass's working tensors (docs/model.md §3.3, "The
/// backward pass's working tensors"): the residual stream's gradient and
/// the largest set of a layer's own gradients alive at once, per sample.
#[test]
fn the_backward_pass_holds_its_working_tensors() {
    let llama = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::Bf16,
        attention: Attention::Flash,
        ..TransformerInput::default()
    };
    let amp = TransformerInput {
        recipe: Recipe::Amp,
        ..llama
    };
    let vit = TransformerInput {
        arch: arch("vit-b-16"),
        recipe: Recipe::Amp,
        attention: Attention::Flash,
        ..TransformerInput::default()
    };
    // (case, input, residual gradient, the layer's largest set, both)
    for (case, input, residual, layer, working) in [
        // 4,096 × 2 × 4,096; the gated product's three gradients
        // 3 × 2 × 11,008 × 4,096 (the attention's four, 4 × 2 × 4,096 ×
        // 4,096 = 134,217,728, are fewer).
        ("llama bf16", llama, 33_554_432, 270_532_608, 304_087_040),
        // Autocast: the FP32 stream's gradient, 4,096 × 4 × 4,096.
        ("llama amp", amp, 67_108_864, 270_532_608, 337_641_472),
        // Eager attention under autocast: the FP32 softmax's incoming
        // and returned gradients, 2 × 4 × 32 × 4,096².
        (
            "llama amp eager",
            TransformerInput {
                attention: Attention::Eager,
                ..amp
            },
            67_108_864,
            4_294_967_296,
            4_362_076_160,
        ),
        // Tensor parallelism with sequence parallelism halves both.
        (
            "llama bf16 tp=2 sp",
            TransformerInput {
                tp: 2,
                sp: true,
                ..llama
            },
            16_777_216,
            135_266_304,
            152_043_520,
        ),
        // ViT-B/16, 197 tokens: 197 × 4 × 768; GELU's two gradients
        // 2 × 2 × 3,072 × 197.
        ("vit amp", vit, 605_184, 2_420_736, 3_025_920),
        // GPT-2's `gelu_new` under autocast: its last product's three
        // FP32 gradients, 3 × 4 × 3,072 × 1,024.
        (
            "gpt2 amp",
            TransformerInput {
                arch: arch("gpt2"),
                seq: 1024,
                recipe: Recipe::Amp,
                attention: Attention::Flash,
                ..TransformerInput::default()
            },
            3_145_728,
            37_748_736,
            40_894_464,
        ),
    ] {
        assert_eq!(residual_gradient(&input), residual, "{case}");
        assert_eq!(backward_working(&input, Ffn::Dense), working, "{case}");
        assert_eq!(working - residual, layer, "{case}");
    }
    // A decoder's loss holds more (3 × 4 × 4,096 × 32,000 =
    // 1,572,864,000 bytes of logits and their gradients): the working
    // tensors are not at the peak.
    let saved = training_saved(&llama);
    assert_eq!(
        activations_per_sample(&llama),
        32 * saved.dense + saved.above
    );
    // ViT's final norm input (605,184 bytes) is all above its layers: at
    // the start of the layers' backward pass the working tensors are
    // alive with every saved tensor, 2,420,736 bytes per sample more
    // than the norm's input; 77,463,552 at batch 32 (G039).
    let saved = training_saved(&vit);
    assert_eq!(saved.above, 605_184);
    assert_eq!(activations_per_sample(&vit), 12 * saved.dense + 3_025_920);
    assert_eq!(32 * (3_025_920 - saved.above), 77_463_552);
}

/// The gradients created beside the last layer's two working sets
/// (docs/model.md §3.3, "The gradients beside the layer in flight"):
/// everything above the layers, and the layer's own parameters whose
/// backward ran before that set.
#[test]
fn the_gradients_beside_the_last_layer_are_counted() {
    let vit = TransformerInput {
        arch: Architecture {
            labels: 1000,
            ..arch("vit-b-16")
        },
        batch: 32,
        recipe: Recipe::Amp,
        attention: Attention::Flash,
        ..TransformerInput::default()
    };
    let bert = TransformerInput {
        arch: Architecture {
            labels: 2,
            ..arch("bert-large")
        },
        batch: 4,
        seq: 512,
        recipe: Recipe::Fp32,
        attention: Attention::Flash,
        ..TransformerInput::default()
    };
    for (case, input, gradients) in [
        // ViT-B/16: the final LayerNorm 2 × 768 and the classifier
        // 1,000 × 768 + 1,000 (770,536). Before GELU's set fc2, 3,072 ×
        // 768 + 768 = 2,360,064, and no norm after the FFN in a pre-norm
        // block: 4 × 3,130,600. Before the attention core's, the FFN
        // (2,362,368 + 2,360,064), the output projection 768² + 768 and
        // the pre-FFN norm 1,536 (5,314,560): 4 × 6,085,096.
        ("vit amp", vit, [12_522_400, 24_340_384]),
        // FP32 gradients alike; pure BF16 ones of 2 bytes.
        (
            "vit fp32",
            TransformerInput {
                recipe: Recipe::Fp32,
                ..vit
            },
            [12_522_400, 24_340_384],
        ),
        (
            "vit bf16",
            TransformerInput {
                recipe: Recipe::Bf16,
                ..vit
            },
            [6_261_200, 12_170_192],
        ),
        // BERT-large: the pooler 1,024² + 1,024 and the classifier 2 ×
        // 1,024 + 2 (1,051,650). Before GELU's set the output dense
        // 4,096 × 1,024 + 1,024 and the output LayerNorm 2,048 after it
        // (4,197,376): 4 × 5,249,026. Before the attention core's the
        // FFN (4,198,400 + 4,195,328), the attention's output dense
        // 1,024² + 1,024 and both post-norms 2 × 2,048 (9,447,424): 4 ×
        // 10,499,074.
        ("bert", bert, [20_996_104, 41_996_296]),
        // Mixtral 8x7B, 4,096 tokens, `bf16`: before the routed copies'
        // set every local expert's down projection, 8 × 14,336 × 4,096
        // = 469,762,048, beside the final RMSNorm 4,096 and the head
        // 32,000 × 4,096 (131,076,096): 2 × 600,838,144. Before the
        // attention core's every expert's three matrices (8 × 3 ×
        // 58,720,256), the router 4,096 × 8, o_proj 4,096² and the
        // pre-FFN norm 4,096 (1,426,100,224): 2 × 1,557,176,320.
        (
            "mixtral bf16",
            TransformerInput {
                arch: arch("mixtral-8x7b"),
                seq: 4096,
                recipe: Recipe::Bf16,
                attention: Attention::Flash,
                ..TransformerInput::default()
            },
            [1_201_676_288, 3_114_352_640],
        ),
        // Where the gradients leave autograd's `.grad` or none is made.
        (
            "vit lora",
            TransformerInput {
                lora_rank: 16,
                ..vit
            },
            [0, 0],
        ),
        (
            "vit zero-2",
            TransformerInput {
                gpus: 2,
                zero: 2,
                ..vit
            },
            [0, 0],
        ),
        (
            "vit inference",
            TransformerInput {
                mode: Mode::Inference,
                ..vit
            },
            [0, 0],
        ),
    ] {
        assert_eq!(gradients_beside_layers(&input), gradients, "{case}");
    }
    // Each moment's activations: every saved tensor with the layer's
    // working set. A ViT's GELU set is the larger per sample (2,420,736
    // against the flash attention's 197 × 2 × 4 × 768 = 1,210,368), its
    // moment the start of the backward pass as the estimate counts it
    // (the loss's tensors are fewer: the final norm's input).
    let [ffn, attention] = PerSample::new(&vit).layers_backward();
    assert_eq!(ffn, (activations_per_sample(&vit), 12_522_400));
    assert_eq!(ffn.0 - attention.0, 2_420_736 - 1_210_368);
    // BERT-large's eager FP32 softmax: two a·s² gradients (2 × 4 × 16 ×
    // 512² = 33,554,432 per sample) against GELU's 2 × 4 × 4,096 × 512.
    let eager = TransformerInput {
        attention: Attention::Eager,
        ..bert
    };
    let [ffn, attention] = PerSample::new(&eager).layers_backward();
    assert_eq!(attention.0 - ffn.0, 33_554_432 - 16_777_216);
    assert_eq!(attention.0, activations_per_sample(&eager));
}

/// The embedding's backward at the end of the backward pass (docs/model.md
/// §3.3, "The end of the backward pass"): its incoming gradient, and a
/// tied embedding's second vocab × hidden gradient.
#[test]
fn the_embedding_s_backward_holds_its_gradients() {
    let gpt2 = TransformerInput {
        arch: arch("gpt2"),
        seq: 1024,
        recipe: Recipe::Amp,
        ..TransformerInput::default()
    };
    // GPT-2 ties its head: 4 × 50,257 × 768 beside the head's in the
    // input buffer; the FP32 stream's gradient 1,024 × 4 × 768.
    assert_eq!(embedding_backward(&gpt2), (154_389_504, 3_145_728));
    // Pure BF16: 2 × 50,257 × 768 and 1,024 × 2 × 768.
    let bf16 = TransformerInput {
        recipe: Recipe::Bf16,
        ..gpt2
    };
    assert_eq!(embedding_backward(&bf16), (77_194_752, 1_572_864));
    // Llama 2 7B's embedding is untied: its gradient is stolen into
    // `.grad`; the incoming gradient 4,096 × 4 × 4,096.
    let llama = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::Amp,
        ..TransformerInput::default()
    };
    assert_eq!(embedding_backward(&llama), (0, 67_108_864));
    // With LoRA the embedding is frozen: no backward of its own.
    let lora = TransformerInput {
        lora_rank: 16,
        ..gpt2
    };
    assert_eq!(embedding_backward(&lora), (0, 0));
}

/// `grad_accum_fusion=0` (docs/model.md §3.3, "Megatron-LM's 16-bit
/// weight gradients"): the output layer's BF16 gradient, and beside a
/// layer's backward a tied head's with the layer's largest.
#[test]
fn unfused_weight_gradients_are_the_head_s_and_a_layer_s() {
    let llama = TransformerInput {
        arch: arch("llama-3.1-8b"),
        seq: 1024,
        recipe: Recipe::MainFp32,
        grad_accum_fusion: false,
        ..TransformerInput::default()
    };
    let of = |input: &TransformerInput| unfused_gradients(input, Ends::WHOLE);
    // The head 2 × 128,256 × 4,096; untied, so beside a layer only the
    // layer's largest: Megatron-Core's `linear_fc1`, gate and up as one
    // matrix, 2 × 2 × 14,336 × 4,096, however the checkpoint's code lays
    // its projections out (`fused_proj`); over 4 tensor-parallel ranks a
    // quarter of each.
    assert_eq!(
        of(&llama),
        Some(UnfusedGradients {
            head: 1_050_673_152,
            layers: 234_881_024,
        })
    );
    let fused = TransformerInput {
        arch: Architecture {
            fused_proj: FusedProj::All,
            ..llama.arch
        },
        ..llama
    };
    assert_eq!(of(&fused), of(&llama));
    assert_eq!(
        of(&TransformerInput { tp: 4, ..fused }),
        Some(UnfusedGradients {
            head: 262_668_288,
            layers: 58_720_256,
        })
    );
    // The Megatron GPT toy ties its head: 2 × 50,304 × 512 waits for the
    // embedding's beside every layer, with the first MLP map's 2 × 2,048
    // × 512. A pipeline rank without the embedding holds a copy of the
    // head, which waits for nothing.
    let toy = TransformerInput {
        arch: Architecture {
            layers: 12,
            hidden: 512,
            heads: 8,
            kv_heads: 8,
            ffn: 2048,
            vocab: 50_304,
            mlp: Mlp::Gelu,
            tied: true,
            fused_proj: FusedProj::All,
            ..Architecture::default()
        },
        ..llama
    };
    assert_eq!(
        of(&toy),
        Some(UnfusedGradients {
            head: 51_511_296,
            layers: 53_608_448,
        })
    );
    let last = Ends {
        embedding: false,
        head: true,
    };
    assert_eq!(
        unfused_gradients(&toy, last).map(|g| g.layers),
        Some(2_097_152)
    );
    // Fused (the default), another recipe, inference or LoRA: none.
    for input in [
        TransformerInput {
            grad_accum_fusion: true,
            ..toy
        },
        TransformerInput {
            recipe: Recipe::Amp,
            ..toy
        },
        TransformerInput {
            mode: Mode::Inference,
            ..toy
        },
        TransformerInput {
            lora_rank: 8,
            ..toy
        },
    ] {
        assert_eq!(of(&input), None);
    }
}
