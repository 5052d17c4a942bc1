//! Model states: recipes, optimizers and quantized weights.

use super::*;

/// Rajbhandari et al. 2020, §5 / Figure 1: Ψ = 7.5B, K = 12, N_d = 64.
#[test]
fn zero_paper_example() {
    let count = ParameterCount {
        total: 7_500_000_000,
        ..ParameterCount::default()
    };
    let gb = |stage: u8| {
        let input = TransformerInput {
            recipe: Recipe::Amp16,
            optimizer: Optimizer::AdamW,
            gpus: 64,
            zero: stage,
            // The paper counts each gradient once, as DDP holds them with
            // `gradient_as_bucket_view=True` (its buckets are below).
            bucket_view: true,
            ..TransformerInput::default()
        };
        model_states(&count, &input).total() as f64 / 1e9
    };
    for (stage, want) in [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)] {
        assert!(
            (gb(stage) - want).abs() < 0.05,
            "stage {stage}: {} GB",
            gb(stage)
        );
    }
}

#[test]
fn recipes_cost_the_documented_bytes_per_parameter() {
    let count = ParameterCount {
        total: 1_000_000,
        ..ParameterCount::default()
    };
    for (recipe, optimizer, want) in [
        (Recipe::Fp32, Optimizer::AdamW, 16),
        (Recipe::Amp, Optimizer::AdamW, 18),
        (Recipe::Amp16, Optimizer::AdamW, 16),
        (Recipe::Mixed, Optimizer::AdamW, 14),
        (Recipe::Bf16, Optimizer::AdamW, 8),
        (Recipe::MainFp32, Optimizer::AdamW, 18),
        (Recipe::Fp32, Optimizer::SgdMomentum, 12),
        (Recipe::Fp32, Optimizer::Sgd, 8),
        (Recipe::Amp, Optimizer::None, 10),
    ] {
        let input = TransformerInput {
            recipe,
            optimizer,
            ..TransformerInput::default()
        };
        assert_eq!(
            model_states(&count, &input).total(),
            want * 1_000_000,
            "{recipe:?} {optimizer:?}"
        );
    }
    let foreach = TransformerInput {
        recipe: Recipe::Fp32,
        foreach: true,
        ..TransformerInput::default()
    };
    assert_eq!(model_states(&count, &foreach).total(), 20_000_000);
    let adam8 = TransformerInput {
        recipe: Recipe::Fp32,
        optimizer: Optimizer::Adam8bit,
        ..TransformerInput::default()
    };
    assert_eq!(
        model_states(&count, &adam8).optimizer_states,
        2_000_000 + 8 * 489
    );
}

#[test]
fn adafactor_keeps_rows_plus_columns() {
    let arch = Architecture {
        layers: 1,
        hidden: 4,
        heads: 1,
        kv_heads: 1,
        ffn: 8,
        vocab: 10,
        tied: true,
        mlp: Mlp::Gelu,
        ..Architecture::default()
    };
    let count = parameter_count(&arch);
    // q,k,v,o: 4 × (4 + 4); up, down: 2 × (4 + 8); embedding 10 + 4; 3 RMSNorms of 4.
    assert_eq!(count.factored, 32 + 24 + 14 + 12);
    let input = TransformerInput {
        arch,
        recipe: Recipe::Fp32,
        optimizer: Optimizer::Adafactor,
        ..TransformerInput::default()
    };
    assert_eq!(model_states(&count, &input).optimizer_states, 4 * 82);
}

#[test]
fn quantized_weights_carry_their_scales() {
    let arch = arch("llama-2-7b");
    let count = parameter_count(&arch);
    let input = |quant| TransformerInput {
        arch,
        mode: Mode::Inference,
        quant,
        ..TransformerInput::default()
    };
    let rest = count.total - count.linear;
    assert_eq!(
        model_states(&count, &input(Quant::None)).weights,
        2 * count.total
    );
    assert_eq!(
        model_states(&count, &input(Quant::Int8)).weights,
        count.linear + 4 * count.linear_rows + 2 * rest
    );
    let int4 = (4 * count.linear + 20 * count.linear.div_ceil(128)).div_ceil(8) + 2 * rest;
    assert_eq!(model_states(&count, &input(Quant::Int4)).weights, int4);
    // About 3.9 GB for Llama 2 7B in 4 bits (0.52 B per linear weight + 16-bit embeddings).
    assert!((3.8e9..4.0e9).contains(&(int4 as f64)), "{int4}");
}

/// PyTorch DDP's buckets (docs/model.md §3.2, "DDP's gradient buckets"):
/// with `gradient_as_bucket_view=False`, DDP's default, one more copy of
/// every trainable gradient, in its dtype, for the run; none with `True`,
/// on one GPU, under ZeRO, FSDP, Megatron's buffer or DeepSpeed.
#[test]
fn ddp_buckets_hold_a_second_copy_of_the_gradients() {
    // GPT-2 small's 124,439,808 parameters.
    let count = ParameterCount {
        total: 124_439_808,
        ..ParameterCount::default()
    };
    let buffers = |change: &dyn Fn(&mut TransformerInput)| {
        let mut input = TransformerInput {
            recipe: Recipe::Bf16,
            gpus: 2,
            ..TransformerInput::default()
        };
        change(&mut input);
        model_states(&count, &input).buffers
    };
    // Pure BF16: 2 bytes a gradient, 248,879,616 B of buckets per GPU.
    assert_eq!(buffers(&|_| {}), 248_879_616);
    // Under AMP the gradients are FP32: 497,759,232 B.
    assert_eq!(buffers(&|t| t.recipe = Recipe::Amp), 497_759_232);
    // The gradients as views into the buckets: nothing beside them.
    assert_eq!(buffers(&|t| t.bucket_view = true), 0);
    for (what, change) in [
        (
            "one GPU",
            &(|t: &mut TransformerInput| t.gpus = 1) as &dyn Fn(&mut TransformerInput),
        ),
        ("ZeRO-1", &|t| t.zero = 1),
        ("FSDP", &|t| t.recipe = Recipe::Fsdp),
        ("Megatron's buffer", &|t| t.recipe = Recipe::MainFp32),
        ("inference", &|t| t.mode = Mode::Inference),
    ] {
        // No DDP: the view switch changes nothing (FSDP keeps buffers of
        // its own).
        let viewed = buffers(&|t| {
            change(t);
            t.bucket_view = true;
        });
        assert_eq!(buffers(change), viewed, "{what}");
    }
    assert_eq!(buffers(&|t| t.gpus = 1), 0);
}
