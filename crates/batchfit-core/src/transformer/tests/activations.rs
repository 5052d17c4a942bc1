//! What one layer saves, term by term.

use super::*;

/// Korthikanti et al. 2022, Eq. 1: sbh(34 + 5as/h) per layer at 16-bit.
#[test]
fn one_layer_reproduces_korthikanti_equation_1() {
    let (a, s, h) = (32u128, 2048u128, 4096u128);
    let input = gpt_like(32, 2048, 4096, true);
    let layer = layer_activations(&input, Ffn::Dense);
    assert_eq!(
        layer.replicated + layer.split + layer.scores,
        s * h * 34 + 5 * a * s * s
    );
    // Eq. 2 (tensor parallel t = 8, no sequence parallelism): sbh(10 + 24/t + 5as/(ht)).
    let tp = TransformerInput { tp: 8, ..input };
    assert_eq!(
        layer.per_rank(&tp, true),
        s * h * 10 + s * h * 24 / 8 + 5 * a * s * s / 8
    );
    // Eq. 4 (with sequence parallelism): sbh/t (34 + 5as/h).
    let sp = TransformerInput {
        tp: 8,
        sp: true,
        ..input
    };
    assert_eq!(layer.per_rank(&sp, true), (s * h * 34 + 5 * a * s * s) / 8);
    // Selective recomputation (§4.2): 34sbh.
    assert_eq!(layer.per_rank(&input, false), s * h * 34);
}

#[test]
fn without_dropout_and_with_flash_only_the_kept_tensors_remain() {
    let (a, s, h) = (32u128, 2048u128, 4096u128);
    let input = TransformerInput {
        attention: Attention::Flash,
        ..gpt_like(32, 2048, 4096, false)
    };
    let layer = layer_activations(&input, Ffn::Dense);
    // 34 − 2 masks = 32 two-byte-ish units of sbh, plus FP32 log-sum-exp per head.
    assert_eq!(
        layer.replicated + layer.split + layer.scores,
        s * h * 32 + 4 * a * s
    );
}

/// Under autocast the norms read the FP32 residual stream and the
/// projections their own BF16 casts.
#[test]
fn autocast_keeps_the_residual_stream_in_fp32() {
    // Llama 2 7B's shape with LayerNorm, 4,096 tokens: two norm inputs at
    // 4 bytes and two projection inputs at 2, and the casts of the
    // separate Q, K, V and gate, up projections beyond those two (3 + 2 −
    // 2 = 3 more, `autocast_casts`): 4,096 × (2 × 4 + 2 × 2 + 3 × 2) ×
    // 4,096 bytes.
    let amp = TransformerInput {
        arch: Architecture {
            norm: Norm::LayerNorm,
            ..arch("llama-2-7b")
        },
        seq: 4096,
        recipe: Recipe::Amp,
        ..TransformerInput::default()
    };
    assert_eq!(amp.residual_bytes(), 4);
    assert_eq!(layer_activations(&amp, Ffn::Dense).replicated, 301_989_888);
    // Pure BF16 computes the stream in 16 bits: Korthikanti's 4 × 2 bytes.
    let bf16 = TransformerInput {
        recipe: Recipe::Bf16,
        ..amp
    };
    assert_eq!(layer_activations(&bf16, Ffn::Dense).replicated, 134_217_728);
    // The 16-bit projections' terms do not move.
    assert_eq!(
        layer_activations(&amp, Ffn::Dense).split,
        layer_activations(&bf16, Ffn::Dense).split
    );
    // Inference loads the model in its compute precision.
    let generate = TransformerInput {
        mode: Mode::Inference,
        ..amp
    };
    assert_eq!(generate.residual_bytes(), 2);
}

/// Hugging Face's eager attention in a 16-bit model without autocast
/// (transformers models/llama/modeling_llama.py `eager_attention_forward`:
/// `softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)`):
/// the FP32 softmax output (4 bytes per score) and its 16-bit copy, which
/// the product with V saves (2), where Megatron's 16-bit softmax keeps 2;
/// the softmax backward's two score-sized tensors are FP32 too. In FP32
/// the `.to` copies nothing.
#[test]
fn hugging_face_eager_attention_keeps_an_fp32_softmax_and_a_16_bit_copy() {
    // One layer, 8 heads, 16 tokens, no dropout: a·s² = 2,048 scores.
    let megatron = gpt_like(8, 16, 64, false);
    let hf = TransformerInput {
        framework: Framework::Custom,
        ..megatron
    };
    assert!(!megatron.fp32_softmax() && hf.fp32_softmax());
    assert_eq!(layer_activations(&megatron, Ffn::Dense).scores, 2_048 * 2);
    assert_eq!(layer_activations(&hf, Ffn::Dense).scores, 2_048 * (4 + 2));
    assert_eq!(working_sets(&megatron, Ffn::Dense).1, 2 * 2 * 2_048);
    assert_eq!(working_sets(&hf, Ffn::Dense).1, 2 * 4 * 2_048);
    // Megatron's recipe is Megatron's stack, whatever the profile says.
    let main_fp32 = TransformerInput {
        recipe: Recipe::MainFp32,
        ..hf
    };
    assert!(!main_fp32.fp32_softmax());
    // FP32: the softmax is the compute dtype, and no copy.
    let fp32 = TransformerInput {
        recipe: Recipe::Fp32,
        ..hf
    };
    assert_eq!(layer_activations(&fp32, Ffn::Dense).scores, 2_048 * 4);
    // The user's `attn=flash` that falls back to the math kernel is not
    // Hugging Face's eager code.
    let flash = TransformerInput {
        attention: Attention::Flash,
        ..hf
    };
    assert!(!flash.fp32_softmax());
}

/// Eager attention under autocast: the softmax runs in FP32, and the
/// product with V needs a 16-bit copy.
#[test]
fn eager_scores_under_autocast_keep_an_fp32_softmax() {
    // One layer, 8 heads, 16 tokens: a·s² = 2,048 scores per sample.
    let bf16 = TransformerInput {
        recipe: Recipe::Bf16,
        ..gpt_like(8, 16, 64, true)
    };
    // 16-bit throughout, with dropout (Korthikanti): softmax output 2,
    // mask 1, dropout output 2 bytes per score.
    assert_eq!(
        layer_activations(&bf16, Ffn::Dense).scores,
        2_048 * (2 + 1 + 2)
    );
    // Autocast: FP32 softmax output 4, mask 1, 16-bit dropout output 2
    // (GPT-2's `.type(value.dtype)` cast feeds the dropout, which does
    // not save its input).
    let amp = TransformerInput {
        recipe: Recipe::Amp,
        ..bf16
    };
    assert_eq!(
        layer_activations(&amp, Ffn::Dense).scores,
        2_048 * (4 + 1 + 2)
    );
    // No dropout (Llama): FP32 softmax output 4 and its 16-bit copy 2,
    // the product's input; in 16 bits throughout the softmax output
    // alone, 2.
    let no_dropout = |input: TransformerInput| TransformerInput {
        arch: Architecture {
            dropout: false,
            ..input.arch
        },
        ..input
    };
    assert_eq!(
        layer_activations(&no_dropout(amp), Ffn::Dense).scores,
        2_048 * (4 + 2)
    );
    assert_eq!(
        layer_activations(&no_dropout(bf16), Ffn::Dense).scores,
        2_048 * 2
    );
    // FP32: 4 + 1 + 4 with dropout.
    let fp32 = TransformerInput {
        recipe: Recipe::Fp32,
        ..bf16
    };
    assert_eq!(
        layer_activations(&fp32, Ffn::Dense).scores,
        2_048 * (4 + 1 + 4)
    );
}

/// No fused SDPA kernel takes FP32 grouped-query attention: the math
/// kernel materialises the scores.
#[test]
fn fp32_grouped_query_attention_falls_back_to_the_math_kernel() {
    // Qwen2.5-0.5B's shape (14 heads, 2 KV heads), 2,048 tokens, FP32:
    // the softmax output, 14 × 2,048² × 4 = 234,881,024 bytes per layer,
    // and no log-sum-exp.
    let fp32 = TransformerInput {
        arch: arch("qwen2.5-0.5b"),
        seq: 2048,
        recipe: Recipe::Fp32,
        attention: Attention::Flash,
        ..TransformerInput::default()
    };
    assert_eq!(fp32.kernel(), Attention::Eager);
    assert_eq!(layer_activations(&fp32, Ffn::Dense).scores, 234_881_024);
    // BF16 runs the flash kernel: no scores.
    let bf16 = TransformerInput {
        recipe: Recipe::Bf16,
        ..fp32
    };
    assert_eq!(bf16.kernel(), Attention::Flash);
    assert_eq!(layer_activations(&bf16, Ffn::Dense).scores, 0);
    // FP32 with as many KV heads as heads runs the memory-efficient kernel.
    let mha = TransformerInput {
        arch: Architecture {
            kv_heads: 14,
            ..fp32.arch
        },
        ..fp32
    };
    assert_eq!(mha.kernel(), Attention::Flash);
    assert_eq!(layer_activations(&mha, Ffn::Dense).scores, 0);
}

/// Transformer Engine's and Apex's fused norms (`norm_kernel=fused`) keep
/// their input as they receive it, where the element-wise RMSNorm keeps an
/// FP32 copy and the normalized tensor.
#[test]
fn fused_norms_keep_their_input() {
    // Llama 2 7B, 4,096 tokens, pure BF16: per norm its BF16 input (2)
    // and the projection's input (2): 4,096 × 2 × (2 + 2) × 4,096 =
    // 134,217,728 bytes per layer, LayerNorm's count, against 268,435,456
    // element-wise.
    let eager = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::Bf16,
        ..TransformerInput::default()
    };
    let fused = TransformerInput {
        norm_kernel: NormKernel::Fused,
        ..eager
    };
    assert_eq!(
        layer_activations(&eager, Ffn::Dense).replicated,
        268_435_456
    );
    assert_eq!(
        layer_activations(&fused, Ffn::Dense).replicated,
        134_217_728
    );
    // Gemma's RMSNorm (the weight applied in FP32) and LayerNorm alike.
    for norm in [Norm::RmsNormFp32, Norm::LayerNorm] {
        let other = TransformerInput {
            arch: Architecture { norm, ..fused.arch },
            ..fused
        };
        assert_eq!(
            layer_activations(&other, Ffn::Dense).replicated,
            134_217_728
        );
    }
    // The final norm too: 4 bytes × s·h fewer outside the layers.
    assert_eq!(outside(&eager) - outside(&fused), 4 * 4096 * 4096);
    // Inference saves nothing either way.
    let generate = |input: TransformerInput| {
        activations_per_sample(&TransformerInput {
            mode: Mode::Inference,
            ..input
        })
    };
    assert_eq!(generate(eager), generate(fused));
}

/// `gelu_new` (transformers activations.py `NewGELUActivation`, GPT-2's
/// `activation_function`) keeps 3p + 2e bytes per FFN unit and token, p =
/// 4 under autocast (`pow` on its FP32 list), where a fused GELU keeps 2e:
/// 16 against 4 under autocast, 20 against 8 in FP32, 10 against 4 in BF16.
#[test]
fn gelu_new_keeps_each_operations_tensor() {
    let new = TransformerInput {
        arch: arch("gpt2"),
        seq: 1024,
        ..TransformerInput::default()
    };
    assert_eq!(new.arch.mlp, Mlp::GeluNew);
    let fused = TransformerInput {
        arch: Architecture {
            mlp: Mlp::Gelu,
            ..new.arch
        },
        ..new
    };
    for (recipe, kept, one_kernel) in [
        (Recipe::Amp, 16, 4),
        (Recipe::Fp32, 20, 8),
        (Recipe::Bf16, 10, 4),
    ] {
        let with = |input: &TransformerInput| {
            layer_activations(&TransformerInput { recipe, ..*input }, Ffn::Dense).split
        };
        assert_eq!(
            with(&new) - with(&fused),
            1024 * (kept - one_kernel) * 3072,
            "{recipe:?}"
        );
    }
    // G001 (validation/gpu-measurements.csv: GPT-2 small under autocast,
    // 8 × 1,024 tokens): 12 × 3,072 bytes more per token and layer over
    // 12 layers, 3,623,878,656 bytes.
    let g001 = |input: &TransformerInput| {
        8 * activations_per_sample(&TransformerInput {
            recipe: Recipe::Amp,
            ..*input
        })
    };
    assert_eq!(g001(&new) - g001(&fused), 3_623_878_656);
    // Inference: x, 0.5·x and the cube with its product by a constant at
    // once, 4e per unit against 2e.
    let prefill = |input: &TransformerInput| {
        prefill_activations(&TransformerInput {
            mode: Mode::Inference,
            recipe: Recipe::Bf16,
            ..*input
        })
    };
    assert_eq!(prefill(&new) - prefill(&fused), 1024 * 2 * 2 * 3072);
}

/// Under autocast every matrix product casts the norm's FP32 output for
/// itself and saves the cast: separate projections save one each.
#[test]
fn autocast_casts_once_per_projection() {
    // Llama 2 7B, 4,096 tokens, `amp`: Q, K, V and gate, up separate, 5
    // casts where one per sublayer (2) is counted with the inputs: 3 × 2 ×
    // 4,096 × 4,096 = 100,663,296 bytes more per layer; with one QKV
    // matrix the gate and up casts (1 more, 33,554,432); all fused, none.
    let separate = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::Amp,
        ..TransformerInput::default()
    };
    let with = |fused_proj| TransformerInput {
        arch: Architecture {
            fused_proj,
            ..separate.arch
        },
        ..separate
    };
    assert_eq!(autocast_casts(&separate, Ffn::Dense) * 4096, 100_663_296);
    assert_eq!(
        autocast_casts(&with(FusedProj::Qkv), Ffn::Dense) * 4096,
        33_554_432
    );
    assert_eq!(autocast_casts(&with(FusedProj::All), Ffn::Dense), 0);
    // Compiled, the graph's CSE keeps one cast whatever the layout.
    let compiled = TransformerInput {
        compile: true,
        ..with(FusedProj::None)
    };
    assert_eq!(autocast_casts(&compiled, Ffn::Dense), 0);
    assert_eq!(
        layer_activations(&separate, Ffn::Dense).replicated
            - layer_activations(&with(FusedProj::All), Ffn::Dense).replicated,
        100_663_296
    );
    // Phi-3's qkv_proj and gate_up_proj: the preset saves one cast each.
    assert_eq!(arch("phi-3-mini").fused_proj, FusedProj::All);
    // Outside autocast a 16-bit norm output is one tensor for all readers.
    for recipe in [Recipe::Bf16, Recipe::Fp32, Recipe::MainFp32] {
        let input = TransformerInput { recipe, ..separate };
        assert_eq!(autocast_casts(&input, Ffn::Dense), 0, "{recipe:?}");
    }
    // ViT-B/16 (G039): separate Q, K, V and one MLP input: 2 more casts,
    // 2 × 2 × 768 bytes per token and layer. Phi-2's parallel block: one
    // norm read by Q, K, V and fc1, 4 casts where 1 is counted.
    let vit = TransformerInput {
        arch: arch("vit-b-16"),
        ..separate
    };
    assert_eq!(autocast_casts(&vit, Ffn::Dense), 2 * 2 * 768);
    let phi = TransformerInput {
        arch: arch("phi-2"),
        ..separate
    };
    assert_eq!(autocast_casts(&phi, Ffn::Dense), 3 * 2 * 2560);
    // GPT-2's one c_attn and ungated MLP: nothing more.
    let gpt2 = TransformerInput {
        arch: arch("gpt2"),
        ..separate
    };
    assert_eq!(autocast_casts(&gpt2, Ffn::Dense), 0);
    // A MoE layer's router casts the MLP norm's output (the one
    // counted): Mixtral's separate Q, K, V add 2. DeepSeek-V3's MLA reads
    // its norm twice (1 more), and its shared expert casts the MLP norm's
    // output again for gate and up (2 more): 3 × 2 × 7,168 per token,
    // where its dense layers' gate and up make 2 × 2 × 7,168.
    let mixtral = TransformerInput {
        arch: arch("mixtral-8x7b"),
        ..separate
    };
    assert_eq!(autocast_casts(&mixtral, Ffn::Moe), 2 * 2 * 4096);
    let deepseek = TransformerInput {
        arch: arch("deepseek-v3"),
        ..separate
    };
    assert_eq!(autocast_casts(&deepseek, Ffn::Moe), 3 * 2 * 7168);
    assert_eq!(autocast_casts(&deepseek, Ffn::Dense), 2 * 2 * 7168);
}

/// Megatron-Core's vocab-parallel cross-entropy keeps one FP32 softmax,
/// which its backward turns into the gradient in place, and the
/// gradient's cast back to the logits' dtype.
#[test]
fn vocab_parallel_cross_entropy_keeps_one_fp32_softmax() {
    // Llama 2 7B, 4,096 tokens, vocabulary 32,000 (s·v = 131,072,000),
    // BF16 model: (4 + 2) × s·v = 786,432,000 bytes where the full loss
    // keeps 12 × s·v = 1,572,864,000; split over tensor-parallel ranks.
    let megatron = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::MainFp32,
        loss: Loss::VocabParallel,
        ..TransformerInput::default()
    };
    let full = TransformerInput {
        loss: Loss::Full,
        ..megatron
    };
    assert_eq!(outside(&full) - outside(&megatron), 786_432_000);
    // The final norm's input (its FP32 copy and the BF16 normalized
    // tensor, element-wise) and the head's input.
    let inputs = 4096 * (4 + 2 + 2) * 4096;
    assert_eq!(outside(&megatron), inputs + 786_432_000);
    let tp4 = TransformerInput { tp: 4, ..megatron };
    assert_eq!(outside(&tp4), inputs + 196_608_000);
    // `logits` does not change it: the function casts to FP32 itself.
    let bf16_logits = TransformerInput {
        logits: Logits::Bf16,
        ..megatron
    };
    assert_eq!(outside(&bf16_logits), outside(&megatron));
    // An FP32 model: the softmax is the logits' own storage and needs no
    // cast back, 4 × s·v.
    let fp32 = TransformerInput {
        recipe: Recipe::Fp32,
        ..megatron
    };
    assert_eq!(outside(&fp32), 4096 * (4 + 4 + 4) * 4096 + 4 * 131_072_000);
}

/// Megatron-Core's fused cross-entropy, compiled: its backward's scatter
/// writes a fresh FP32 copy of the softmax beside it and the BF16
/// gradient (docs/frameworks.md, `vocab_parallel_fused`).
#[test]
fn fused_vocab_parallel_cross_entropy_adds_a_compiled_copy() {
    // The example above: (4 + 4 + 2) × s·v = 1,310,720,000 bytes, the
    // unfused function's 786,432,000 and one more FP32 softmax,
    // 524,288,000; over 4 tensor-parallel ranks 327,680,000.
    let unfused = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::MainFp32,
        loss: Loss::VocabParallel,
        ..TransformerInput::default()
    };
    let fused = TransformerInput {
        loss: Loss::VocabParallelFused,
        ..unfused
    };
    assert_eq!(outside(&fused) - outside(&unfused), 524_288_000);
    let inputs = 4096 * (4 + 2 + 2) * 4096;
    assert_eq!(outside(&fused), inputs + 1_310_720_000);
    let tp4 = TransformerInput { tp: 4, ..fused };
    assert_eq!(outside(&tp4), inputs + 327_680_000);
    // An FP32 model: the function still returns a BF16 gradient, so the
    // same 10 bytes a logit where the unfused one holds 4.
    let fp32 = TransformerInput {
        recipe: Recipe::Fp32,
        ..fused
    };
    assert_eq!(outside(&fp32), 4096 * (4 + 4 + 4) * 4096 + 10 * 131_072_000);
}

/// RMSNorm as Hugging Face and torchtune write it saves an FP32 copy of
/// its input and the normalized tensor, where nn.LayerNorm saves its input.
#[test]
fn rms_norm_saves_an_fp32_copy_and_the_normalized_tensor() {
    // Llama 2 7B, 4,096 tokens, pure BF16: per norm the FP32 upcast (4
    // bytes) and the BF16 normalized tensor (2), then the projection's
    // BF16 input (2): 4,096 × 2 × (4 + 2 + 2) × 4,096 = 268,435,456 bytes
    // per layer, where LayerNorm keeps 4,096 × 2 × (2 + 2) × 4,096.
    let bf16 = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::Bf16,
        ..TransformerInput::default()
    };
    assert_eq!(layer_activations(&bf16, Ffn::Dense).replicated, 268_435_456);
    let layer_norm = TransformerInput {
        arch: Architecture {
            norm: Norm::LayerNorm,
            ..bf16.arch
        },
        ..bf16
    };
    assert_eq!(
        layer_activations(&layer_norm, Ffn::Dense).replicated,
        134_217_728
    );
    // FP32 (and autocast's FP32 stream): the input itself and the FP32
    // normalized tensor, 4 + 4, then the projection's input (4, or a BF16
    // cast under autocast, with three more for the separate projections):
    // 4,096 × 2 × (8 + 4) × 4,096 and 4,096 × (2 × (8 + 2) + 3 × 2) × 4,096.
    let fp32 = TransformerInput {
        recipe: Recipe::Fp32,
        ..bf16
    };
    assert_eq!(layer_activations(&fp32, Ffn::Dense).replicated, 402_653_184);
    let amp = TransformerInput {
        recipe: Recipe::Amp,
        ..bf16
    };
    assert_eq!(layer_activations(&amp, Ffn::Dense).replicated, 436_207_616);
    // The final norm of a decoder likewise: (4 + 2) + 2 bytes per hidden
    // unit and token in BF16 besides the loss, against 2 + 2.
    assert_eq!(outside(&bf16) - outside(&layer_norm), 4 * 4096 * 4096);
}

/// `F.cross_entropy` is `nll_loss(log_softmax(logits))`: at the start of the
/// backward pass the saved log-softmax, the NLL loss's gradient and the
/// logits' gradient are alive together, each s × v logits.
#[test]
fn the_loss_holds_three_logit_sized_tensors() {
    // No layers: only the output layer's terms. 4 tokens, hidden 8,
    // vocabulary 10, FP32: final norm and head inputs 2 × 4 × 8 × 4 = 256
    // bytes; 3 × 4 × (4 × 10) = 480 bytes of logit-sized tensors.
    let input = TransformerInput {
        arch: Architecture {
            layers: 0,
            hidden: 8,
            vocab: 10,
            norm: Norm::LayerNorm,
            ..Architecture::default()
        },
        seq: 4,
        recipe: Recipe::Fp32,
        ..TransformerInput::default()
    };
    assert_eq!(activations_per_sample(&input), 256 + 480);
    // Logits left in 16 bits: 3 × 2 × 40 = 240.
    let bf16 = TransformerInput {
        logits: Logits::Bf16,
        ..input
    };
    assert_eq!(activations_per_sample(&bf16), 256 + 240);
    // Chunked, BF16 compute (inputs 2 × 4 × 8 × 2 = 128): every chunk's
    // FP32 log-softmax (4 × 40 = 160) and one chunk's two FP32 gradients
    // (2 × 4 × 40 / 8 = 40).
    let chunked = TransformerInput {
        loss: Loss::Chunked,
        recipe: Recipe::Bf16,
        ..input
    };
    assert_eq!(activations_per_sample(&chunked), 128 + 160 + 40);
}

/// QK-norm saves what a norm of its kind saves, over the Q and K
/// projections' outputs (compute dtype): one layer, 2 heads of 4, 1 KV
/// head, 4 tokens.
#[test]
fn qk_norm_saves_its_inputs_like_the_other_norms() {
    let small = |(qk_norm, qk_norm_full), norm, recipe| TransformerInput {
        arch: Architecture {
            layers: 1,
            hidden: 8,
            heads: 2,
            kv_heads: 1,
            ffn: 16,
            qk_norm,
            qk_norm_full,
            norm,
            ..Architecture::default()
        },
        seq: 4,
        recipe,
        ..TransformerInput::default()
    };
    let split = |qk, norm, recipe| layer_activations(&small(qk, norm, recipe), Ffn::Dense).split;
    // 4 tokens × (Q 8 + K 4) units.
    let units = 4 * 12;
    for (qk_norm, norm, recipe, bytes) in [
        // Llama-style RMSNorm: the FP32 upcast 4 and the BF16 normalized 2.
        ((true, false), Norm::RmsNorm, Recipe::Bf16, 6),
        ((true, true), Norm::RmsNorm, Recipe::Bf16, 6),
        // Gemma's and OLMo 2's: the FP32 upcast and FP32 normalized.
        ((true, false), Norm::RmsNormFp32, Recipe::Bf16, 8),
        // FP32 throughout: the input itself and the normalized, 4 + 4.
        ((true, false), Norm::RmsNorm, Recipe::Fp32, 8),
        // Phi's qk_layernorm saves its 16-bit input; under autocast the
        // FP32 copy layer_norm runs on.
        ((true, false), Norm::LayerNorm, Recipe::Bf16, 2),
        ((true, false), Norm::LayerNorm, Recipe::Amp, 4),
    ] {
        assert_eq!(
            split(qk_norm, norm, recipe) - split((false, false), norm, recipe),
            units * bytes,
            "{qk_norm:?} {norm:?} {recipe:?}"
        );
    }
}

/// Where the norms sit decides what they read: the residual stream
/// before a block (FP32 under autocast), the block's 16-bit output after
/// it. Llama 2 7B's shape, 4,096 tokens: per layer 4,096 × 4,096 × the
/// bytes per unit.
#[test]
fn post_norms_read_the_blocks_outputs() {
    let sh = 4096 * 4096;
    let replicated = |block, recipe| {
        let input = TransformerInput {
            arch: Architecture {
                block,
                ..arch("llama-2-7b")
            },
            seq: 4096,
            recipe,
            ..TransformerInput::default()
        };
        layer_activations(&input, Ffn::Dense).replicated
    };
    // Autocast: a norm before a block saves 4 + 4 (FP32 stream), after
    // one 4 + 2; each of the separate Q, K, V, gate and up projections
    // reads its own 16-bit cast (2), five per layer.
    for (block, bytes) in [
        (Block::Pre, 2 * 8 + 5 * 2),
        (Block::Post, 2 * 6 + 5 * 2),
        (Block::Sandwich, 2 * 8 + 2 * 6 + 5 * 2),
        // One norm, its output read by attention and the MLP alike.
        (Block::Parallel, 8 + 5 * 2),
    ] {
        assert_eq!(replicated(block, Recipe::Amp), sh * bytes, "{block:?}");
    }
    // In BF16 the stream and the outputs are both 16-bit: 4 + 2 either way.
    assert_eq!(replicated(Block::Post, Recipe::Bf16), sh * (2 * 6 + 2 * 2));
    assert_eq!(
        replicated(Block::Sandwich, Recipe::Bf16),
        sh * (4 * 6 + 2 * 2)
    );
}

/// Gemma 2's soft-capping: tanh saves its output, logit-sized for the
/// final logits, score-sized in eager attention.
#[test]
fn soft_capping_keeps_one_tanh_output() {
    // The loss test's model (4 tokens, vocabulary 10, FP32): 256 + 480
    // bytes, and the tanh output of the capped logits, 4 × 40.
    let input = TransformerInput {
        arch: Architecture {
            layers: 0,
            hidden: 8,
            vocab: 10,
            norm: Norm::LayerNorm,
            softcap: true,
            ..Architecture::default()
        },
        seq: 4,
        recipe: Recipe::Fp32,
        ..TransformerInput::default()
    };
    assert_eq!(activations_per_sample(&input), 256 + 480 + 160);
    // Eager scores in BF16 with dropout: softmax 2, mask 1, dropout 2,
    // and the tanh output 2 per score.
    let eager = gpt_like(8, 16, 64, true);
    let capped = TransformerInput {
        arch: Architecture {
            attn_softcap: true,
            ..eager.arch
        },
        ..eager
    };
    assert_eq!(
        layer_activations(&capped, Ffn::Dense).scores,
        2_048 * (2 + 1 + 2 + 2)
    );
    // The flash kernels cap inside: nothing more.
    let flash = TransformerInput {
        attention: Attention::Flash,
        ..capped
    };
    assert_eq!(layer_activations(&flash, Ffn::Dense).scores, 0);
}
