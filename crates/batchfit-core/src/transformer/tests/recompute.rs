//! Recomputation: modules, partial checkpointing, compiled and per-op plans.

use super::*;

/// Megatron-Core's `--recompute-modules` (docs/model.md §3.3, "Megatron-Core's
/// recompute modules"): per layer and sample, what each module set keeps,
/// and the activations, whose peak is the loss's (the recomputed module
/// and the working tensors are smaller) and so falls by 32 × the layer's
/// saving.
#[test]
fn recompute_modules_keep_their_inputs() {
    let modules = |text: &str| RecomputeModules::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let llama = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recipe: Recipe::Bf16,
        recompute: Recompute::Selective,
        ..TransformerInput::default()
    };
    let mixtral = TransformerInput {
        arch: arch("mixtral-8x7b"),
        ..llama
    };
    let sh = 4096 * 4096;
    // The default layer: norms (4 + 2) × 2, the projections' inputs 2 × 2,
    // per hidden unit; Q, K, V and the output 2 × 4 × 4,096, the gated
    // MLP 4 × 2 × 11,008 and the log-sum-exp 4 × 32 per token.
    let layer: u128 = 16 * sh + 4096 * (32_768 + 88_064 + 128);
    assert_eq!(layer, 763_887_616);
    // (modules, set, the layer's saving, the recomputed module's set)
    for (case, input, saving, recomputed) in [
        ("core_attn", llama, 0, 0),
        // The MLP's four intermediates.
        ("core_attn,mlp", llama, 4096 * 88_064, 4096 * 88_064),
        // Each norm keeps its input (2) of its 4 + 2, and its output
        // (2, the projections' input) is freed: 2 × 6 × sbh.
        // One norm is recomputed at a time: 6 × sbh.
        ("core_attn,layernorm", llama, 12 * sh, 6 * sh),
        // Without `core_attn` flash keeps what it kept: nothing to drop.
        ("mlp", llama, 4096 * 88_064, 4096 * 88_064),
    ] {
        let selective = TransformerInput {
            recompute_modules: modules(case),
            ..input
        };
        let saved = training_saved(&selective);
        assert_eq!(saved.dense, layer - saving, "{case}");
        assert_eq!(saved.recomputed_dense, recomputed, "{case}");
        assert_eq!(
            activations_per_sample(&selective),
            activations_per_sample(&llama) - 32 * saving,
            "{case}"
        );
    }
    // Mixtral 8x7B: `moe_act` frees the activation's output and the
    // product of every routed copy (2 × 4,096 of them), 2 × 2 × 14,336
    // bytes each, and keeps the gate's and the up projection's outputs.
    let moe_act = TransformerInput {
        recompute_modules: modules("core_attn,moe_act"),
        ..mixtral
    };
    let saving = 8192 * 4 * 14_336;
    assert_eq!(saving, 469_762_048);
    let (default, freed) = (training_saved(&mixtral), training_saved(&moe_act));
    assert_eq!(default.moe - freed.moe, saving);
    assert_eq!(freed.recomputed_moe, saving);
    assert_eq!(
        activations_per_sample(&mixtral) - activations_per_sample(&moe_act),
        32 * saving
    );
    // The whole MoE layer: its router, copies and experts.
    let moe = TransformerInput {
        recompute_modules: modules("core_attn,moe"),
        ..mixtral
    };
    let (router, copies, experts) = moe_saved(&mixtral);
    assert_eq!(
        default.moe - training_saved(&moe).moe,
        router + copies + experts
    );
}

#[test]
fn recompute_modules_read_as_a_set() {
    let all = "core_attn,mlp,layernorm,moe_act,moe,shared_experts";
    let set = RecomputeModules::parse(all).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(set.text(), all);
    assert_eq!(
        RecomputeModules::parse(" mlp , core_attn").map(RecomputeModules::text),
        Ok("core_attn,mlp".to_owned())
    );
    assert!(RecomputeModules::parse("").is_err());
    assert_eq!(
        RecomputeModules::MLP.dropping(RecomputeModules::MLP),
        RecomputeModules::default()
    );
    assert_eq!(
        RecomputeModules::parse("core_attn,mla_up_proj").map_err(|e| e.problem),
        Err(Problem::NotAnOption {
            allowed: RecomputeModules::NAMES
        })
    );
    assert_eq!(
        RecomputeModules::parse("mlp,core_attn,mlp").map_err(|e| e.problem),
        Err(Problem::Repeated { item: "mlp" })
    );
    assert_eq!(RecomputeModules::default().text(), "core_attn");
}

/// Partial checkpointing (`recompute_method`, `recompute_layers`):
/// Megatron-Core's uniform groups and first-N block, torchtitan's every
/// n-th layer. Llama 2 7B, 4,096 tokens, `amp`: a layer's input
/// 67,108,864 bytes (FP32), its full set 931,659,776, the output
/// layer's terms 1,740,636,160 (`a_recomputed_layer_comes_after_the_loss`).
#[test]
fn partial_checkpointing_keeps_the_layers_it_does_not_checkpoint() {
    let (input, set, above) = (67_108_864_u128, 931_659_776_u128, 1_740_636_160_u128);
    // The backward pass's working tensors beside a recomputed set
    // (`the_backward_pass_holds_its_working_tensors`, autocast).
    let working = 337_641_472_u128;
    let full = TransformerInput {
        arch: arch("llama-2-7b"),
        seq: 4096,
        recompute: Recompute::Full,
        ..TransformerInput::default()
    };
    let plan = |method, layers| TransformerInput {
        recompute_method: method,
        recompute_layers: layers,
        ..full
    };
    assert_eq!(activations_per_sample(&full), 3_888_119_808);
    // Uniform groups of 4: 8 group inputs; the backward pass recomputes
    // a whole group at once, 4 full sets and the working tensors, more
    // than the loss's tensors.
    let uniform = plan(RecomputeMethod::Uniform, 4);
    assert_eq!(
        activations_per_sample(&uniform),
        8 * input + 4 * set + working
    );
    assert_eq!(activations_per_sample(&uniform), 4_601_151_488);
    // Groups of one are today's `full`, exactly.
    assert_eq!(
        activations_per_sample(&plan(RecomputeMethod::Uniform, 1)),
        activations_per_sample(&full)
    );
    // Block 8: the first 8 layers keep their input, the other 24 their
    // full set; when the backward pass reaches layer 8 the 24 are freed,
    // so its recomputation never adds to the peak: the loss's moment.
    let block = plan(RecomputeMethod::Block, 8);
    assert_eq!(activations_per_sample(&block), 8 * input + 24 * set + above);
    assert_eq!(activations_per_sample(&block), 24_637_341_696);
    // Every 2nd (layers 2, 4, …, 32): 16 inputs and 16 full sets; layer
    // 32 is recomputed first, smaller than the loss's tensors.
    let every = plan(RecomputeMethod::Every, 2);
    assert_eq!(
        activations_per_sample(&every),
        16 * input + 16 * set + above
    );
    assert_eq!(activations_per_sample(&every), 17_720_934_400);
    // A vocabulary of 10 makes the layers' backward pass set the peak:
    // the recomputation where a checkpoint is the last layer (every
    // 2nd), the last layer's own working tensors where it keeps its
    // full set (every 3rd: layers 31 and 32 are not checkpointed, 30
    // is).
    let small = |method, layers| TransformerInput {
        arch: Architecture {
            vocab: 10,
            ..full.arch
        },
        ..plan(method, layers)
    };
    let small_above = 167_772_160 + 12 * 4096 * 10;
    assert_eq!(
        activations_per_sample(&small(RecomputeMethod::Every, 2)),
        16 * input + 16 * set + set + working
    );
    // Every 3rd: the last layer's own backward pass, beside every kept
    // set, outweighs the loss's tensors of so small a vocabulary.
    assert!(working > small_above);
    assert_eq!(
        activations_per_sample(&small(RecomputeMethod::Every, 3)),
        10 * input + 22 * set + working
    );
    // More layers than the model has: block checkpoints every layer,
    // every n-th none (torchtitan's counter never reaches n).
    assert_eq!(
        activations_per_sample(&small(RecomputeMethod::Block, 40)),
        32 * input + set + working
    );
    let none = TransformerInput {
        recompute: Recompute::None,
        ..small(RecomputeMethod::Uniform, 1)
    };
    assert_eq!(
        activations_per_sample(&small(RecomputeMethod::Every, 40)),
        activations_per_sample(&none)
    );
    // Offloaded (`act_offload`), the units come back one at a time: the
    // GPU holds the forward stash's largest set, and in the backward
    // pass a checkpoint's input with its recomputed set and the working
    // tensors, never every kept set at once.
    let offloaded = |input: TransformerInput| TransformerInput {
        act_offload: true,
        ..input
    };
    assert_eq!(
        activations_per_sample(&offloaded(block)),
        set + above.max(input + working)
    );
    assert_eq!(
        activations_per_sample(&offloaded(small(RecomputeMethod::Every, 2))),
        input + set + working
    );
    // Only under full recomputation: `selective` ignores the plan.
    let selective = TransformerInput {
        recompute: Recompute::Selective,
        ..block
    };
    assert_eq!(selective.partial_recompute(), None);
}

/// A partial plan's groups hold their own layers' full sets, dense and
/// MoE where the model places them (`moe_every`), counted from the
/// chunk's first layer (Megatron-Core transformer_block.py
/// `_checkpointed_forward`, `uniform`). A layer input of 4 bytes, full
/// sets of 20 (dense) and 57 (MoE), working tensors of 6; groups of 2.
#[test]
fn a_partial_plan_finds_each_moe_layer_in_its_own_group() {
    let arch = Architecture {
        layers: 6,
        experts: 1,
        moe_every: 3,
        ..Architecture::default()
    };
    let saved = Saved {
        dense: 4,
        moe: 4,
        recomputed_dense: 20,
        recomputed_moe: 57,
        working_dense: 6,
        working_moe: 6,
        partial: Some((RecomputeMethod::Uniform, 2)),
        placement: arch.placement(),
        ..Saved::default()
    };
    // Layers 2 and 5 are MoE: groups (0, 1) = 40, (2, 3) = 77, (4, 5) =
    // 77. From the top: 77 − 0, 77 − 4 (the group above freed its
    // input), 40 − 8: the largest excess 77, with the working tensors 83.
    let six = Span { first: 0, end: 6 };
    assert_eq!(saved.layers(six), 3 * 4);
    assert_eq!(saved.layer_transient(six), 77 + 6);
    // Dense layers first, the two MoE layers would have shared the last
    // group: 2 × 57 + 6 = 120.
    assert_eq!(saved.kinds(six), (4, 2));
    // A seventh layer (dense) is a group of its own: 20 − 0, 77 − 4,
    // 77 − 8, 40 − 12; 73 + 6 = 79 beside 4 inputs: 95, as with six
    // (12 + 83). Never less with one more layer.
    let seven = Span { first: 0, end: 7 };
    assert_eq!(saved.layers(seven) + saved.layer_transient(seven), 16 + 79);
    assert_eq!(saved.layers(six) + saved.layer_transient(six), 95);
    // A pipeline chunk of layers 4..7 counts its groups from layer 4:
    // (4, 5) = 20 + 57 and (6) = 20; 77 − 4 + 6 = 79.
    let chunk = Span { first: 4, end: 7 };
    assert_eq!(saved.layers(chunk), 2 * 4);
    assert_eq!(saved.layer_transient(chunk), 73 + 6);
    // Block 1 keeps layer 0's input and the full sets of the rest: the
    // largest, offloaded, is the MoE layers' 57.
    let block = Saved {
        partial: Some((RecomputeMethod::Block, 1)),
        ..saved
    };
    assert_eq!(block.layers(six), 4 + 3 * 20 + 2 * 57);
    assert_eq!(block.largest_kept(six), 57);
    assert_eq!(block.largest_kept(Span { first: 0, end: 2 }), 20);
}

/// torch.compile's saved set (docs/model.md §3.3, "Under torch.compile")
/// on a Llama-3.1-8B layer at 2,048 tokens, batch 1, pure BF16, flash
/// attention. Eager, per token: two RMSNorms' FP32 upcasts and
/// normalized tensors (2 × (4 + 2) × 4,096 = 49,152), the inputs of the
/// QKV and gate/up maps (2 × 2 × 4,096), Q, K, V and attention's output
/// (2 × (4,096 + 1,024 + 1,024 + 4,096)) and its log-sum-exp (4 × 32),
/// the gated MLP's gate, activation, up and product (4 × 2 × 14,336):
/// 200,832 bytes. Compiled: each norm keeps only its input (2 × 2 ×
/// 4,096) and the activation output is recomputed: 139,392 bytes, 61,440
/// fewer. The loss over 128,256 FP32 logits: 3 logit-sized tensors
/// eager, 2 compiled; torchtune's compiled chunked loss keeps the 16-bit
/// logits and one chunk's 16-bit gradient.
#[test]
fn compiled_layer_keeps_what_the_partitioner_cannot_recompute() {
    let eager = TransformerInput {
        arch: arch("llama-3.1-8b"),
        recipe: Recipe::Bf16,
        seq: 2048,
        batch: 1,
        ..TransformerInput::default()
    };
    let compiled = TransformerInput {
        compile: true,
        ..eager
    };
    assert_eq!(training_saved(&eager).dense, 2048 * 200_832);
    assert_eq!(training_saved(&eager).dense, 411_303_936);
    assert_eq!(training_saved(&compiled).dense, 2048 * 139_392);
    assert_eq!(training_saved(&compiled).dense, 285_474_816);
    // Final norm input and head input (2 × 2 × 4,096 compiled, (6 + 2)
    // × 4,096 eager) beside the logits.
    let logits = 2048 * 128_256 * 4;
    assert_eq!(training_saved(&eager).above, 2048 * 8 * 4096 + 3 * logits);
    assert_eq!(
        training_saved(&compiled).above,
        2048 * 4 * 4096 + 2 * logits
    );
    let chunked = TransformerInput {
        loss: Loss::Chunked,
        ..compiled
    };
    let half = 2048 * 128_256 * 2;
    assert_eq!(
        training_saved(&chunked).above,
        2048 * 4 * 4096 + half + half / 8
    );
    // Inference keeps no saved tensors: compile changes nothing there.
    let generate = TransformerInput {
        mode: Mode::Inference,
        ..compiled
    };
    assert!(!generate.compiled());
    // Under autocast, eager attention's FP32 softmax (4 bytes a score)
    // is recomputed from the 16-bit scores (2): 2 + 2 where eager keeps
    // 4 + 2, with a LayerNorm that keeps its FP32 input either way.
    let autocast = TransformerInput {
        arch: Architecture {
            norm: Norm::LayerNorm,
            ..arch("llama-3.1-8b")
        },
        recipe: Recipe::Amp,
        attention: Attention::Eager,
        seq: 16,
        batch: 1,
        ..TransformerInput::default()
    };
    let scores = |input: &TransformerInput| layer_activations(input, Ffn::Dense).scores;
    assert_eq!(scores(&autocast), 32 * 16 * 16 * (4 + 2));
    let compiled_autocast = TransformerInput {
        compile: true,
        ..autocast
    };
    assert_eq!(scores(&compiled_autocast), 32 * 16 * 16 * (2 + 2));
}

/// torchtitan's per-op selective recomputation (`recompute=op`) on a
/// Llama-3.1-8B block at 8,192 tokens, BF16 (FSDP2): per token the
/// block input (2 × 4,096), wq's and wv's outputs (2 × 4,096, 2 × 1,024),
/// w1's and w2's (2 × 14,336, 2 × 4,096), attention's output and FP32
/// log-sum-exp (2 × 4,096 + 4 × 32): 63,616 bytes; wk, wo and w3 are
/// recomputed. GPT-2's maps carry biases (`addmm`): all are saved.
#[test]
fn per_op_recomputation_saves_every_other_product() {
    let llama = TransformerInput {
        arch: arch("llama-3.1-8b"),
        recipe: Recipe::Fsdp,
        recompute: Recompute::Op,
        seq: 8192,
        batch: 1,
        ..TransformerInput::default()
    };
    assert_eq!(op_saved(&llama), 8192 * 63_616);
    let gpt2 = TransformerInput {
        arch: arch("gpt2"),
        recipe: Recipe::Bf16,
        recompute: Recompute::Op,
        seq: 1024,
        ..TransformerInput::default()
    };
    // Input, Q, K, V, O, fc1 (3,072), fc2, attention output + log-sum-exp.
    assert_eq!(
        op_saved(&gpt2),
        1024 * (2 * (768 * 5 + 3072 + 768 + 768) + 4 * 12)
    );
    // Between full recomputation and none.
    let at = |recompute| activations_per_sample(&TransformerInput { recompute, ..llama });
    assert!(at(Recompute::Full) < at(Recompute::Op) && at(Recompute::Op) < at(Recompute::None));
}
