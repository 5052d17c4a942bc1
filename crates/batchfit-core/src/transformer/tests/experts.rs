//! Mixture of experts: routing, capacity and expert (tensor) parallelism.

use super::*;

/// A MoE layer keeps the router's tensors, k copies of every token and
/// each copy's FFN intermediates at the expert's width.
#[test]
fn moe_layer_activations_follow_top_k() {
    // Mixtral's shape, 1 token, BF16: router 4 × 8 + 12 × 2 = 56 bytes;
    // per copy input and output 2 × 2 × 4,096, routing weight 2, index 8:
    // 16,394, twice; intermediates 2 × 4 × 2 × 14,336 = 229,376.
    let mixtral = TransformerInput {
        arch: arch("mixtral-8x7b"),
        seq: 1,
        recipe: Recipe::Bf16,
        ..TransformerInput::default()
    };
    let dense = layer_activations(&mixtral, Ffn::Dense);
    let moe = layer_activations(&mixtral, Ffn::Moe);
    assert_eq!(moe.replicated - dense.replicated, 56 + 2 * 16_394);
    // The routed experts' intermediates, split by `etp`, and no dense MLP.
    assert_eq!(moe.experts, 229_376);
    assert_eq!(dense.split - moe.split, 4 * 2 * 14_336);
    // Every layer of Mixtral is a MoE layer.
    assert_eq!(
        activations_per_sample(&mixtral)
            - activations_per_sample(&TransformerInput {
                arch: Architecture {
                    experts: 0,
                    ..mixtral.arch
                },
                ..mixtral
            }),
        32 * (56 + 2 * 16_394 + 229_376 - 4 * 2 * 14_336)
    );
    // DeepSeek-V3: 3 dense layers and 58 MoE layers.
    let deepseek = arch("deepseek-v3");
    assert_eq!((deepseek.dense_layers(), deepseek.moe_layers()), (3, 58));
}

/// Megatron-Core's capacity factor: every expert computes its capacity
/// of tokens when padded, at most what is routed when not.
#[test]
fn capacity_factor_sets_the_copies() {
    // Mixtral, 4,096 tokens, top-2 of 8: 8,192 copies dropless.
    let input = |capacity_factor, capacity_pad| TransformerInput {
        arch: arch("mixtral-8x7b"),
        seq: 4096,
        capacity_factor,
        capacity_pad,
        ..TransformerInput::default()
    };
    assert_eq!(input(0, false).routed_copies(), 8192);
    // cf = 1.25: capacity ⌈1.25 × 8,192 / 8⌉ = 1,280 per expert; padded,
    // 8 × 1,280 = 10,240 copies; not padded, the 8,192 routed (balanced
    // routing drops none).
    assert_eq!(input(125, true).routed_copies(), 10_240);
    assert_eq!(input(125, false).routed_copies(), 8192);
    // cf = 0.5: 512 per expert, 4,096 kept, the other half dropped.
    assert_eq!(input(50, false).routed_copies(), 4096);
    // The copies' tensors scale with them: 2,048 more copies, each
    // (2 × 2 × 4,096 + 2 + 8) replicated and 4 × 2 × 14,336 split bytes.
    let more = layer_activations(&input(125, true), Ffn::Moe);
    let dropless = layer_activations(&input(0, false), Ffn::Moe);
    assert_eq!(more.replicated - dropless.replicated, 2048 * 16_394);
    assert_eq!(more.experts - dropless.experts, 2048 * 4 * 2 * 14_336);
}

/// Expert parallelism: the routed experts' weights per GPU divide by `ep`,
/// the rest stays.
#[test]
fn expert_weights_divide_by_ep() {
    // Mixtral, pure BF16, 8 GPUs: 2 bytes × (46,702,792,704 −
    // 45,097,156,608 routed) + 2 × 45,097,156,608 / ep.
    let count = parameter_count(&arch("mixtral-8x7b"));
    let routed = 32 * 8 * 176_160_768u128;
    let weights = |ep| {
        let input = TransformerInput {
            arch: arch("mixtral-8x7b"),
            recipe: Recipe::Bf16,
            gpus: 8,
            ep,
            ..TransformerInput::default()
        };
        model_states(&count, &input).weights
    };
    for ep in [1, 2, 4, 8] {
        assert_eq!(
            weights(ep),
            2 * (count.total - routed) + 2 * routed / u128::from(ep),
            "ep={ep}"
        );
    }
    assert_eq!(weights(8), 3_211_272_192 + 11_274_289_152);
    // With ZeRO-1 the experts' optimizer states shard over the gpus/ep
    // ranks holding the same experts: per GPU 1/gpus of them whatever ep.
    let states = |ep| {
        let input = TransformerInput {
            arch: arch("mixtral-8x7b"),
            recipe: Recipe::Bf16,
            gpus: 8,
            zero: 1,
            ep,
            ..TransformerInput::default()
        };
        model_states(&count, &input).optimizer_states
    };
    assert_eq!(states(1), states(8));
    assert_eq!(states(8), 4 * count.total / 8);
}

/// LoRA on the experts: Mixtral-8x7B, r = 16. PEFT matches
/// `target_modules` by name suffix and `"all-linear"` takes every
/// `nn.Linear` of the blocks, the router's too, so with per-expert
/// `w1`, `w3`, `w2` every layer adapts Q (4,096 → 4,096), K and V
/// (4,096 → 1,024), O, the router (4,096 → 8) and 8 experts' gate and up
/// (4,096 → 14,336) and down (14,336 → 4,096).
#[test]
fn lora_on_the_experts_counts_every_experts_adapters() {
    let input = |lora_targets, ep| TransformerInput {
        arch: arch("mixtral-8x7b"),
        recipe: Recipe::Bf16,
        lora_rank: 16,
        lora_targets,
        gpus: 8,
        ep,
        seq: 1,
        ..TransformerInput::default()
    };
    let total = |targets| Adapters::of(&input(targets, 1)).total;
    let attention = 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024));
    let router = 16 * (4096 + 8);
    let expert = 16 * 3 * (4096 + 14_336);
    assert_eq!((attention, router, expert), (425_984, 65_664, 884_736));
    assert_eq!(
        total(LoraTargets::AllExperts),
        32 * (attention + router + 8 * expert)
    );
    assert_eq!(total(LoraTargets::AllExperts), 242_225_152);
    assert_eq!(total(LoraTargets::Experts), 32 * 8 * expert);
    assert_eq!(total(LoraTargets::Experts), 226_492_416);
    // `all` and `mlp` leave the routed experts frozen: Mixtral has no
    // dense MLP or shared expert, so `mlp` adapts nothing.
    assert_eq!(total(LoraTargets::All), 32 * attention);
    assert_eq!(total(LoraTargets::Mlp), 0);
    // The routed experts' adapters, their FP32 gradients and AdamW's two
    // FP32 moments live with their experts: over ep = 8, 28,311,552
    // parameters per GPU beside the 15,732,736 of attention and router.
    let states = model_states(
        &parameter_count(&arch("mixtral-8x7b")),
        &input(LoraTargets::AllExperts, 8),
    );
    let per_gpu = 32 * (attention + router) + 32 * 8 * expert / 8;
    assert_eq!(per_gpu, 44_044_288);
    assert_eq!(states.gradients, 4 * per_gpu);
    assert_eq!(states.optimizer_states, 8 * per_gpu);
    // Per token and layer in BF16 (adapters in FP32: lora_A's input is a
    // 4-byte cast, x·A 4 × 16): attention's Q, K, V, O and the router
    // read 4 × 4,096 + 4,096 values; each of the two routed copies the
    // expert's gate, up (4,096 each) and down (14,336) inputs.
    let per_token = 4 * (5 * 4096) + 4 * 16 * 5;
    let per_copy = 4 * (2 * 4096 + 14_336) + 4 * 16 * 3;
    assert_eq!((per_token, per_copy), (82_240, 90_304));
    assert_eq!(
        lora_saved(
            &input(LoraTargets::AllExperts, 1),
            Ffn::Moe,
            Mixer::Attention
        ),
        per_token + 2 * per_copy
    );
    assert_eq!(per_token + 2 * per_copy, 262_848);
}

/// Expert tensor parallelism (Megatron-Core `--expert-tensor-parallel-size`,
/// by default `tp`): each expert's matrices split over `etp` instead of
/// `tp`, so an unsharded expert term divides by ep × etp; a sharded one
/// stays 1/(gpus × tp). Mixtral in pure BF16, 4 data-parallel GPUs ×
/// tensor-parallel 2.
#[test]
fn expert_weights_divide_by_ep_times_etp() {
    let count = parameter_count(&arch("mixtral-8x7b"));
    let routed = 32 * 8 * 176_160_768u128;
    let states = |ep, etp, zero| {
        let input = TransformerInput {
            arch: arch("mixtral-8x7b"),
            recipe: Recipe::Bf16,
            gpus: 4,
            tp: 2,
            zero,
            ep,
            etp,
            ..TransformerInput::default()
        };
        model_states(&count, &input)
    };
    // The default follows tp: 2 × 45,097,156,608 / (4 × 2) of experts.
    assert_eq!(states(4, 0, 0).weights, states(4, 2, 0).weights);
    assert_eq!(
        states(4, 1, 0).weights - states(4, 0, 0).weights,
        2 * routed / 4 - 2 * routed / 8
    );
    assert_eq!(2 * routed / 4 - 2 * routed / 8, 11_274_289_152);
    // ep × etp is what divides: 8 × 1 holds what 4 × 2 does.
    assert_eq!(states(8, 1, 0).weights, states(4, 0, 0).weights);
    // ZeRO-1 shards the experts' optimizer states over the expert
    // data-parallel ranks: 1/(gpus × tp) of them per GPU whatever ep and
    // etp, 4 × 45,097,156,608 / 8 = 22,548,578,304 bytes.
    let zero1 = |ep, etp| states(ep, etp, 1).optimizer_states;
    assert_eq!(zero1(4, 1), zero1(4, 0));
    assert_eq!(zero1(8, 1), zero1(1, 0));
    let rest = TransformerInput {
        arch: arch("mixtral-8x7b"),
        recipe: Recipe::Bf16,
        gpus: 4,
        tp: 2,
        zero: 1,
        ..TransformerInput::default()
    };
    let non_expert = ParameterCount {
        total: count.total - routed,
        linear: count.linear - count.routed.linear,
        linear_rows: count.linear_rows - count.routed.linear_rows,
        factored: count.factored - count.routed.factored,
        routed: RoutedExperts::default(),
        ..count
    };
    assert_eq!(
        zero1(8, 1) - pool_states(&non_expert, &rest, &Adapters::default()).optimizer_states,
        4 * routed / 8
    );
    assert_eq!(4 * routed / 8, 22_548_578_304);
}

proptest::proptest! {
    /// Over every architecture a URL can give: a token never uses more
    /// parameters than the model has, and a dense model uses them all.
    #[test]
    fn active_parameters_never_exceed_the_total(config in crate::query::tests::any_config()) {
        let arch = config.transformer.arch;
        let count = parameter_count(&arch);
        proptest::prop_assert!(count.active <= count.total);
        proptest::prop_assert!(count.routed.total <= count.total);
        if !arch.moe() {
            proptest::prop_assert_eq!(count.active, count.total);
        }
    }

    /// FSDP1 (`framework=fsdp1`) over twice the GPUs never adds to a
    /// GPU's model states, whatever the architecture, LoRA, tensor
    /// parallelism or offload: the shards halve, the units in flight stay.
    /// From 2 GPUs on, where FULL_SHARD shards (one GPU is NO_SHARD).
    #[test]
    fn fsdp1_model_states_never_grow_with_more_gpus(
        config in crate::query::tests::any_config(),
        gpus_exponent in 1u32..=12,
    ) {
        let mut input = TransformerInput { ep: 1, mode: Mode::Train, ..config.transformer };
        Framework::Fsdp1.apply(&mut input);
        let count = parameter_count(&input.arch);
        let total = |gpus: u64| {
            let s = model_states(&count, &TransformerInput { gpus, ..input });
            s.weights + s.gradients + s.optimizer_states + s.optimizer_step + s.buffers
        };
        let gpus = 1u64 << gpus_exponent;
        proptest::prop_assert!(total(2 * gpus) <= total(gpus), "gpus={gpus}");
        proptest::prop_assert!(total(gpus) <= total(2), "gpus={gpus}");
    }

    /// Splitting the experts over more ranks never adds to any GPU's
    /// model states, term by term, whatever the recipe, ZeRO stage,
    /// tensor parallelism, LoRA or step: `ep` from 1 up the divisors
    /// shared by `gpus` and `experts`.
    #[test]
    fn model_states_never_grow_with_ep(
        config in crate::query::tests::any_config(),
        experts in 1u64..=512,
        gpus_exponent in 0u32..=8,
    ) {
        let gpus = 1u64 << gpus_exponent;
        let input = TransformerInput {
            arch: Architecture { experts, ..config.transformer.arch },
            gpus,
            ..config.transformer
        };
        let count = parameter_count(&input.arch);
        let mut previous = model_states(&count, &TransformerInput { ep: 1, ..input });
        for ep in (1..=gpus_exponent).map(|e| 1u64 << e).filter(|ep| experts % ep == 0) {
            let states = model_states(&count, &TransformerInput { ep, ..input });
            proptest::prop_assert!(states.weights <= previous.weights, "ep={ep}");
            proptest::prop_assert!(states.gradients <= previous.gradients, "ep={ep}");
            proptest::prop_assert!(states.optimizer_states <= previous.optimizer_states, "ep={ep}");
            proptest::prop_assert!(states.optimizer_step <= previous.optimizer_step, "ep={ep}");
            proptest::prop_assert!(states.buffers <= previous.buffers, "ep={ep}");
            previous = states;
        }
    }

    /// Splitting each expert over more ranks never adds to any GPU's
    /// model states, term by term: `etp` from 1 up the powers of two
    /// dividing gpus × tp with `ep` (1, or 2 where it divides).
    #[test]
    fn model_states_never_grow_with_etp(
        config in crate::query::tests::any_config(),
        experts in 1u64..=512,
        gpus_exponent in 0u32..=6,
        tp_exponent in 0u32..=3,
    ) {
        let (gpus, tp) = (1u64 << gpus_exponent, 1u64 << tp_exponent);
        let ep = if experts % 2 == 0 && gpus_exponent > 0 { 2 } else { 1 };
        let input = TransformerInput {
            arch: Architecture { experts, ..config.transformer.arch },
            gpus,
            tp,
            ep,
            ..config.transformer
        };
        let count = parameter_count(&input.arch);
        let mut previous = model_states(&count, &TransformerInput { etp: 1, ..input });
        for etp in (1..=gpus_exponent + tp_exponent).map(|e| 1u64 << e).filter(|etp| (gpus * tp) % (etp * ep) == 0) {
            let states = model_states(&count, &TransformerInput { etp, ..input });
            proptest::prop_assert!(states.weights <= previous.weights, "etp={etp}");
            proptest::prop_assert!(states.gradients <= previous.gradients, "etp={etp}");
            proptest::prop_assert!(states.optimizer_states <= previous.optimizer_states, "etp={etp}");
            proptest::prop_assert!(states.optimizer_step <= previous.optimizer_step, "etp={etp}");
            proptest::prop_assert!(states.buffers <= previous.buffers, "etp={etp}");
            previous = states;
        }
    }
}
