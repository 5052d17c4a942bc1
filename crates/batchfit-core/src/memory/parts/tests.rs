use super::*;
use crate::memory::estimate;
use crate::memory::tests::config;
use crate::query::tests::any_config;
use crate::transformer::{Ends, Recipe};
use proptest::prelude::*;

/// Transformer Engine's dummy weight gradients under Megatron-LM's
/// gradient-accumulation fusion (docs/model.md §3.3, "Transformer Engine's
/// dummy weight gradients"): 2 bytes × the distinct weight shapes per GPU,
/// held at every moment of a step after the first, counted with the
/// gradients.
#[test]
fn dummy_weight_gradients_worked_examples() {
    const TOY: &str = "form=transformer&positions=1024&mlp=gelu&norm=layernorm&bias=1&dropout=1&tied=1&layers=12&hidden=512&heads=8&kv_heads=8&ffn=2048&vocab=50304&framework=megatron&batch=4&seq=1024";
    const LLAMA: &str = "form=transformer&model=llama-3.1-8b&framework=megatron&batch=1&seq=1024";
    const MIXTRAL: &str = "form=transformer&model=mixtral-8x7b&framework=megatron&batch=1&seq=1024";
    let cases = [
        // `linear_qkv`, `linear_proj`, `linear_fc1` (gate and up as one),
        // `linear_fc2`, the output layer: 2 × 4,096 × (6,144 + 4,096 +
        // 28,672 + 14,336 + 128,256).
        (LLAMA.to_owned(), 1_486_880_768),
        // Over 4 tensor-parallel ranks each a quarter: 2 × 4,096 × (1,536 +
        // 1,024 + 7,168 + 3,584 + 32,064).
        (format!("{LLAMA}&tp=4&sp=1"), 371_720_192),
        // The Megatron GPT toy, its head tied (the output layer runs with
        // the embedding's weight and returns a dummy of its shape): 2 × 512
        // × (1,536 + 512 + 2,048 + 2,048 + 50,304).
        (TOY.to_owned(), 57_802_752),
        // Mixtral 8x7B: every expert's `linear_fc1` one shape, its
        // `linear_fc2` another, one cache entry each for the 8 (the router's
        // gradient is real): 2 × 4,096 × (6,144 + 4,096 + 28,672 + 14,336 +
        // 32,000), over 8 expert-parallel ranks the same.
        (MIXTRAL.to_owned(), 698_351_616),
        (format!("{MIXTRAL}&gpus=8&ep=8"), 698_351_616),
        // Attention over 2 tensor-parallel ranks, the experts whole
        // (`etp=1`): 2 × 4,096 × (3,072 + 2,048 + 28,672 + 14,336 + 16,000).
        (
            format!("{MIXTRAL}&tp=2&sp=1&gpus=4&ep=4&etp=1"),
            525_336_576,
        ),
    ];
    for (query, bytes) in &cases {
        let c = config(query);
        assert_eq!(
            transformer::dummy_wgrads(&c.transformer, Ends::WHOLE),
            *bytes,
            "{query}"
        );
        let parts = Parts::of(&c);
        assert_eq!(parts.dummy_wgrads, *bytes, "{query}");
        let without = Parts {
            dummy_wgrads: 0,
            ..parts
        };
        let e = estimate(&c);
        assert_eq!(
            e.peak_allocated,
            without.total(c.batch()) + bytes,
            "{query}"
        );
        assert_eq!(
            e.at_peak.gradients,
            without.at_peak(c.batch()).gradients + bytes,
            "{query}"
        );
    }
    // Off the fusion, outside `recipe=main_fp32`, in inference, under LoRA:
    // none.
    for extra in [
        "grad_accum_fusion=0",
        "recipe=amp",
        "mode=inference",
        "lora_rank=8",
    ] {
        let c = config(&format!("{LLAMA}&{extra}"));
        assert_eq!(Parts::of(&c).dummy_wgrads, 0, "{extra}");
    }
}

proptest! {
    /// Transformer Engine's dummy weight gradients only add, held through
    /// the step: every reading is the one without them plus their bytes,
    /// and they are 0 outside Megatron-LM's fused `recipe=main_fp32`
    /// training (every other query keeps its bytes).
    #[test]
    fn dummy_weight_gradients_only_add_under_the_fusion(config in any_config(), batch in 1u64..100_000) {
        let parts = Parts::of(&config);
        let t = &config.transformer;
        let applies = config.form == Form::Transformer
            && t.mode == Mode::Train
            && t.recipe == Recipe::MainFp32
            && t.grad_accum_fusion
            && !t.lora();
        if !applies {
            prop_assert_eq!(parts.dummy_wgrads, 0);
        }
        let without = Parts { dummy_wgrads: 0, ..parts };
        prop_assert_eq!(parts.total(batch), without.total(batch) + parts.dummy_wgrads);
        prop_assert_eq!(parts.reserved(batch), without.reserved(batch) + parts.dummy_wgrads);
        prop_assert_eq!(parts.at_peak(batch).sum(), parts.total(batch));
    }

    /// The fused default (every link without `grad_accum_fusion`) adds no
    /// moment: the backward pass's candidates are what they were.
    #[test]
    fn fused_gradient_accumulation_adds_no_moment(config in any_config()) {
        let mut fused = config;
        fused.transformer.grad_accum_fusion = true;
        let parts = Parts::of(&fused);
        prop_assert_eq!(parts.head_backward, (0, 0));
        prop_assert!(parts.unfused.is_none());
        if fused.form == Form::Transformer && fused.transformer.pp <= 1 {
            let expected = if parts.gradients_with_activations {
                [(0, 0); 2]
            } else {
                transformer::PerSample::new(&fused.transformer).layers_backward()
            };
            prop_assert_eq!(parts.layers_backward, expected);
        }
    }
}
