use super::*;
use crate::memory::{Change, FRAGMENTATION_PERCENT, gpus_needed, what_ifs};
use crate::presets;
use crate::query::{parse, tests::any_config, to_query};
use crate::transformer::RecomputeMethod;
use proptest::prelude::*;

fn config(query: &str) -> Config {
    let parsed = parse(query);
    assert_eq!(parsed.problems, [], "{query}");
    parsed.config
}

/// Issue 16's case: Llama-3.1-8B, AMP, batch 16 × 2,048 on one H100.
const LLAMA_AMP_H100: &str = "form=transformer&model=llama-3.1-8b&gpu=h100-80gb&recipe=amp";
const LLAMA_PARAMETERS: u128 = 8_030_261_248;

/// Llama-3.1-8B's FLOPs per token of 2,048 (docs/model.md §5): the layers'
/// matrices 32 × (2 × 4,096² + 2 × 4,096 × 1,024 + 3 × 4,096 × 14,336),
/// the head 4,096 × 128,256, the attention core 2 × 2,048 × (4,096 + 4,096)
/// per layer.
const LLAMA_LINEAR: u128 = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14_336);
const LLAMA_MATMULS_PER_TOKEN: u128 = 2 * LLAMA_LINEAR;
const LLAMA_HEAD_PER_TOKEN: u128 = 2 * 4096 * 128_256;
const LLAMA_ATTENTION_PER_TOKEN: u128 = 32 * 2 * 2048 * (4096 + 4096);

#[test]
fn llama_in_amp_on_one_h100_has_fixes_where_no_single_change_fits_but_qlora() {
    let c = config(LLAMA_AMP_H100);
    // Every single change but QLoRA (which changes what is trained) is still too big.
    let singles = what_ifs(&c);
    let fitting: Vec<Change> = singles
        .iter()
        .filter(|w| w.fits == Some(true))
        .map(|w| w.change)
        .collect();
    assert_eq!(fitting, [Change::Qlora]);

    let found = fixes(&c);
    assert_eq!(found.len(), FIXES);
    // The cheapest keeps the task: micro-batch 1 with 16 steps of
    // accumulation for the same 16 × 2,048 tokens per optimizer step, in
    // pure BF16.
    let first = &found[0];
    assert_eq!(first.levers, [Lever::Batch { batch: 1 }, Lever::Bf16]);
    assert_eq!(
        to_query(&first.config),
        "form=transformer&model=llama-3.1-8b&batch=1&seq=2048&recipe=bf16&gpu=h100-80gb&global_batch=16"
    );
    // Its numbers from the model: 2 B weights, 2 B gradients (alive at the
    // loss: accumulation keeps them), two 2 B moments, one sample's
    // activations; the allocator's 10 % on the activations, 1 GB overhead.
    let e = first.estimate;
    let p = LLAMA_PARAMETERS;
    assert_eq!(
        (e.weights, e.gradients, e.optimizer_states, e.optimizer_step),
        (2 * p, 2 * p, 4 * p, 0)
    );
    let activations = transformer::activations_per_sample(&first.config.transformer);
    assert_eq!(e.activations, activations);
    let allocated = 8 * p + activations;
    assert_eq!(e.peak_allocated, allocated);
    let reserved = allocated + (activations * FRAGMENTATION_PERCENT).div_ceil(100);
    assert_eq!(e.required, reserved + 1_000_000_000);
    assert_eq!(e.required, 83_261_029_684);
    assert!(e.required <= 85_520_809_984); // the H100's 81,559 MiB
    // What it costs: no GPU, no token, no recomputation, no PCIe; 16 micro-steps.
    let cost = first.cost;
    let per_token =
        3 * (LLAMA_MATMULS_PER_TOKEN + LLAMA_HEAD_PER_TOKEN + LLAMA_ATTENTION_PER_TOKEN);
    assert_eq!(
        (
            LLAMA_MATMULS_PER_TOKEN,
            LLAMA_HEAD_PER_TOKEN,
            LLAMA_ATTENTION_PER_TOKEN
        ),
        (13_958_643_712, 1_050_673_152, 1_073_741_824)
    );
    assert_eq!(per_token, 48_249_176_064);
    assert_eq!(cost.before.flops, per_token * 16 * 2048);
    assert_eq!(cost.after.flops, cost.before.flops);
    assert_eq!(
        (
            cost.extra_gpus(),
            cost.tokens_lost(),
            cost.after.recompute_flops
        ),
        (0, 0, 0)
    );
    assert_eq!(
        (
            cost.after.samples,
            cost.after.accumulation,
            cost.after.step_tokens
        ),
        (1, 16, 16 * 2048)
    );

    // Optimizer and activation offload at the batch as set: the gradients
    // (FP32 under AMP) down and the 16-bit weights up once, and every
    // offloaded activation down and back up.
    // (It needs host RAM the query does not give, so fixes that need none
    // rank before it; its cost is the same wherever it ranks.)
    let offload = applied(&c, &[Lever::Offload, Lever::ActOffload]);
    assert_eq!(estimate(&offload).fits, Some(true));
    let offloaded = transformer::offloaded_activations_per_sample(&offload.transformer);
    let offload = super::cost(&c, &offload);
    assert_eq!(offload.after.pcie_bytes, 4 * p + 2 * p + 2 * 16 * offloaded);
    assert_eq!(offload.after.pcie_bytes, 539_410_063_360);
    assert_eq!(
        offload.after.pcie_micros(),
        (539_410_063_360_u128 * 1_000_000).div_ceil(PCIE_BYTES_PER_SECOND)
    );
}

/// A partially checkpointed model recomputes its checkpointed layers only;
/// the fix that checkpoints every layer is offered beside it.
#[test]
fn partial_recomputation_costs_its_checkpointed_layers() {
    let c = config(LLAMA_AMP_H100);
    let tokens = 16 * 2048;
    let every_layer = tokens * (LLAMA_MATMULS_PER_TOKEN + LLAMA_ATTENTION_PER_TOKEN);
    for (method, layers, recomputed) in [
        (RecomputeMethod::Uniform, 4, every_layer),
        (RecomputeMethod::Block, 8, every_layer * 8 / 32),
        (RecomputeMethod::Every, 2, every_layer / 2),
        (RecomputeMethod::Every, 64, 0),
    ] {
        let mut partial = c;
        partial.transformer.recompute = Recompute::Full;
        (
            partial.transformer.recompute_method,
            partial.transformer.recompute_layers,
        ) = (method, layers);
        let cost = cost(&c, &partial);
        assert_eq!(
            cost.after.recompute_flops, recomputed,
            "{method:?} {layers}"
        );
        // Checkpointing every layer is still a change to try, and applied
        // it checkpoints each layer.
        assert!(
            strongest_levers(&partial).contains(&Lever::FullRecompute),
            "{method:?} {layers}"
        );
        let each = applied(&partial, &[Lever::FullRecompute]);
        assert_eq!(each.transformer.partial_recompute(), None);
        assert_eq!(each.transformer.recompute, Recompute::Full);
    }
    // Each layer checkpointed already: the lever is not offered.
    let mut each = c;
    each.transformer.recompute = Recompute::Full;
    assert!(!strongest_levers(&each).contains(&Lever::FullRecompute));
}

#[test]
fn recomputation_costs_forward_flops_computed_from_the_architecture() {
    let c = config(LLAMA_AMP_H100);
    let checkpointing = what_ifs(&c)
        .into_iter()
        .find(|w| w.change == Change::Checkpointing)
        .expect("listed");
    let cost = checkpointing.cost(&c);
    let tokens = 16 * 2048;
    // Full: every layer's forward again, the head not.
    assert_eq!(
        cost.after.recompute_flops,
        tokens * (LLAMA_MATMULS_PER_TOKEN + LLAMA_ATTENTION_PER_TOKEN)
    );
    // 15,032,385,536 / 48,249,176,064 = 31.16 %: under the 33 % of a whole
    // extra forward, by the head's share.
    assert_eq!(cost.recompute_share_bp(), 3116);
    // Selective: the attention core only, 1,073,741,824 / 48,249,176,064.
    let mut selective = c;
    selective.transformer.recompute = Recompute::Selective;
    let cost = super::cost(&c, &selective);
    assert_eq!(
        cost.after.recompute_flops,
        tokens * LLAMA_ATTENTION_PER_TOKEN
    );
    assert_eq!(cost.recompute_share_bp(), 223);
    // The core grows with the sequence: at 8,192 tokens its share is larger.
    let mut long = selective;
    long.transformer.seq = 8192;
    assert!(super::cost(&c, &long).recompute_share_bp() > 4 * 223 / 2);
    // Megatron-Core's `--recompute-modules`: `mlp` runs the dense MLP's
    // maps again, 2 × 32 × 3 × 4,096 × 14,336 = 11,274,289,152 FLOPs per
    // token, 25.59 % with the attention core; `layernorm` adds no matrix
    // product; without `core_attn` the attention core is not rerun.
    let with_modules = |modules: &str| {
        let mut set = selective;
        set.transformer.recompute_modules =
            RecomputeModules::parse(modules).unwrap_or_else(|e| panic!("{e}"));
        super::cost(&c, &set)
    };
    let mlp = 2 * 32 * 3 * 4096 * 14_336;
    assert_eq!(
        with_modules("core_attn,mlp").after.recompute_flops,
        tokens * (LLAMA_ATTENTION_PER_TOKEN + mlp)
    );
    assert_eq!(with_modules("core_attn,mlp").recompute_share_bp(), 2559);
    assert_eq!(
        with_modules("core_attn,layernorm").after.recompute_flops,
        tokens * LLAMA_ATTENTION_PER_TOKEN
    );
    assert_eq!(with_modules("mlp").after.recompute_flops, tokens * mlp);
    // LoRA: the frozen base has no weight gradients, a smaller step.
    let lora = what_ifs(&c)
        .into_iter()
        .find(|w| w.change == Change::Lora)
        .expect("listed");
    let cost = lora.cost(&c);
    assert_eq!(
        cost.after.flops,
        tokens
            * (2 * (LLAMA_MATMULS_PER_TOKEN + LLAMA_HEAD_PER_TOKEN)
                + 3 * LLAMA_ATTENTION_PER_TOKEN)
    );
    assert_eq!(
        cost.after.trainable,
        Adapters::of(&lora.config.transformer).total
    );
    assert_eq!(
        cost.trainable_share_bp(),
        share_bp(cost.after.trainable, LLAMA_PARAMETERS)
    );
    assert_eq!(cost.trainable_share_bp(), 8); // 0.08 %, docs/model.md §5
}

#[test]
fn more_gpus_are_a_count_and_parameter_offload_moves_the_weights_twice() {
    // Llama-3.1-70B in BF16 with full recomputation, 1 × 4,096 tokens, on
    // H100s: the fixes that keep the task add GPUs or offload.
    let c = config(
        "form=transformer&model=llama-3.1-70b&recipe=bf16&recompute=full&batch=1&seq=4096&gpu=h100-80gb&max_gpus=64",
    );
    let found = fixes(&c);
    assert!(!found.is_empty());
    let zero = found
        .iter()
        .find(|f| matches!(f.levers[..], [Lever::Zero { .. }]))
        .expect("ZeRO alone fits");
    let Lever::Zero { stage, gpus } = zero.levers[0] else {
        unreachable!()
    };
    assert_eq!(
        Some(gpus),
        gpus_needed(&{
            let mut z = c;
            z.transformer.zero = 3;
            z
        })
    );
    assert_eq!(zero.cost.extra_gpus(), gpus - 1);
    assert!(stage >= 1);
    // One GPU fewer, or the stage below, does not fit.
    let mut fewer = zero.config;
    fewer.transformer.gpus -= 1;
    assert_eq!(estimate(&fewer).fits, Some(false));
    if stage > 1 {
        let mut lower = zero.config;
        lower.transformer.zero -= 1;
        assert_eq!(estimate(&lower).fits, Some(false));
    }
    // Parameter offload: weights up twice and gradients down once per step.
    let mut offloaded = c;
    offloaded.transformer.param_offload = true;
    let count = transformer::parameter_count(&c.transformer.arch);
    let p = count.total;
    assert_eq!(profile(&offloaded).pcie_bytes, 2 * 2 * p + 2 * p);
    assert_eq!(profile(&c).pcie_bytes, 0);
}

#[test]
fn the_other_forms_and_inference_have_their_own_levers() {
    // The activations rule: 85.90 GB of activations on a 24 GB card.
    let c = config(
        "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10&gpu=rtx-4090",
    );
    let found = fixes(&c);
    assert!(
        found
            .iter()
            .any(|f| f.levers.contains(&Lever::Checkpointing)),
        "{found:?}"
    );
    for f in &found {
        assert!(!f.levers.iter().any(|l| matches!(l, Lever::Zero { .. })));
    }
    // Inference with a long prompt: an FP8 cache, a smaller batch, a shorter prompt.
    let c = config(
        "form=transformer&model=llama-3.1-8b&mode=inference&recipe=bf16&batch=8&seq=32000&gpu=rtx-4090",
    );
    let found = fixes(&c);
    assert!(!found.is_empty());
    for f in &found {
        assert!(f.levers.iter().all(|l| !matches!(
            l,
            Lever::Lora { .. } | Lever::Qlora { .. } | Lever::FullRecompute | Lever::Offload
        )));
        assert_eq!(f.config.global_batch, 0);
    }
    // A configuration that fits, or has no device, needs no fix.
    assert_eq!(
        fixes(&config("form=transformer&model=gpt2&gpu=h100-80gb")),
        []
    );
    assert_eq!(fixes(&config("form=transformer&model=llama-3.1-8b")), []);
}

/// The search's time: at most a few hundred estimates for any
/// configuration (the page runs it on every edit). Counted, not timed: the
/// bench (`cargo bench -p batchfit-core --bench estimate -- fixes`) times it.
#[test]
fn the_search_is_bounded() {
    let kinds = strongest_levers(&config(&format!("{LLAMA_AMP_H100}&max_gpus=64"))).len();
    let sets: usize = (1..=MAX_LEVERS).map(|k| subsets(kinds, k).len()).sum();
    assert_eq!(kinds, 10);
    assert_eq!(sets, 10 + 45 + 120 + 210);
    assert_eq!(
        subsets(4, 2),
        [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    );
}

prop_compose! {
    /// A transformer setup people share: a model and a device preset, a
    /// batch and sequence of everyday sizes, the recipe, optimizer,
    /// recomputation, GPUs, ZeRO, adapters and offloads in any combination.
    fn shared_setup()(
        model in 0..presets::MODELS.len(), device in 0..presets::DEVICES.len(),
        batch in 1u64..=64, seq in prop_oneof![Just(512u64), Just(2048), Just(8192), Just(32_768)],
        recipe in pick(Recipe::ALL), optimizer in pick(Optimizer::ALL), recompute in pick(Recompute::ALL),
        mode in pick(Mode::ALL), gpus in prop_oneof![Just(1u64), Just(2), Just(8)], zero in 0u8..=3,
        lora in prop_oneof![Just(0u64), Just(16)], switches in any::<[bool; 3]>(), global in prop_oneof![Just(0u64), Just(256)],
    ) -> Config {
        let [offload, act_offload, param_offload] = switches.map(u8::from);
        let mut query = format!(
            "form=transformer&model={}&gpu={}&batch={batch}&seq={seq}&recipe={}\
             &mode={}&gpus={gpus}&zero={zero}&global_batch={global}",
            presets::MODELS[model].id, presets::DEVICES[device].id, recipe.name(), mode.name(),
        );
        // Training's own settings, in training only (query/rules.rs).
        if mode == Mode::Train {
            query.push_str(&format!(
                "&optimizer={}&recompute={}&offload={offload}&act_offload={act_offload}\
                 &lora_rank={lora}&param_offload={param_offload}",
                optimizer.name(), recompute.name(),
            ));
        }
        config(&query)
    }
}

fn pick<T: Copy + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    (0..all.len()).prop_map(move |i| all[i])
}

/// Whether `config` fits `device` and the host, by its whole estimate.
fn fits(config: &Config, device: u128) -> bool {
    let e = estimate(config);
    e.required <= device && fits_host(config, e.cpu_memory)
}

/// The properties of [`fixes`] on one configuration.
fn check_fixes(config: &Config) -> Result<(), TestCaseError> {
    let found = fixes(config);
    prop_assert_eq!(&found, &fixes(config));
    prop_assert!(found.len() <= FIXES);
    if estimate(config).fits != Some(false) {
        prop_assert!(found.is_empty());
    }
    let device = config.device.map_or(0, |d| d.usable_bytes());
    for fix in &found {
        prop_assert!(!fix.levers.is_empty() && fix.levers.len() <= MAX_LEVERS);
        prop_assert_eq!(fix.estimate, estimate(&fix.config));
        prop_assert_eq!(fix.estimate.fits, Some(true));
        prop_assert_eq!(fix.cost, cost(config, &fix.config));
        // Minimal: undoing any one lever does not fit.
        for i in 0..fix.levers.len() {
            let mut others = fix.levers.clone();
            others.remove(i);
            prop_assert!(!fits(&applied(config, &others), device), "{:?}", fix.levers);
        }
        // No fix's levers are a strict superset of another's.
        for other in &found {
            let superset = other.levers.len() < fix.levers.len()
                && other.levers.iter().all(|l| fix.levers.contains(l));
            prop_assert!(!superset, "{:?} ⊃ {:?}", fix.levers, other.levers);
        }
        // It keeps the rules of which parameter applies when, and its link
        // opens the same configuration.
        prop_assert!(rules::keeps_rules(&fix.config), "{:?}", fix.levers);
        let back = parse(&to_query(&fix.config));
        prop_assert_eq!(&back.problems, &vec![]);
        prop_assert_eq!(estimate(&back.config), fix.estimate);
    }
    // Bounded by what the user has: no fix takes more GPUs than `max_gpus`
    // (or the job's own), nor more host RAM than `host_gb` where given.
    for fix in &found {
        let t = &fix.config.transformer;
        prop_assert!(
            job_gpus(&fix.config) <= gpu_budget(config),
            "{:?}: {} × {} × {} × {} GPUs",
            fix.levers,
            t.gpus,
            t.tp,
            t.pp,
            t.cp
        );
        if config.host_gb > 0 {
            prop_assert!(
                host_memory(&fix.config, fix.estimate.cpu_memory)
                    <= u128::from(config.host_gb) * 10_000_000,
                "{:?}",
                fix.levers
            );
        }
    }
    // Inference is advised as inference: tensor parallelism over a degree
    // that divides the heads, never ZeRO, no optimizer step to lose tokens
    // of; training is never advised tensor parallelism.
    let inference = config.form == Form::Transformer && config.transformer.mode == Mode::Inference;
    for fix in &found {
        for lever in &fix.levers {
            match *lever {
                Lever::Zero { .. } => prop_assert!(!inference, "{:?}", fix.levers),
                Lever::Tp { tp } => {
                    prop_assert!(inference, "{:?}", fix.levers);
                    prop_assert!(
                        tp.is_power_of_two() && tp <= SERVING_TP && tp > config.transformer.tp
                    );
                    prop_assert_eq!(fix.config.transformer.arch.heads % tp, 0);
                }
                _ => {}
            }
        }
        if inference {
            prop_assert_eq!(fix.cost.tokens_lost(), 0);
        }
    }
    for option in what_ifs(config) {
        match option.change {
            Change::Zero3 { .. } => prop_assert!(!inference),
            Change::Tp { tp } => {
                prop_assert!(inference);
                prop_assert_eq!(option.fits, Some(true));
                // The fewest GPUs: half the degree does not fit.
                let mut half = *config;
                half.transformer.tp = tp / 2;
                prop_assert!(tp / 2 <= config.transformer.tp || estimate(&half).fits != Some(true));
            }
            _ => {}
        }
    }
    // The least costly first.
    prop_assert!(found.windows(2).all(|w| w[0].rank() <= w[1].rank()));
    Ok(())
}

/// Qwen2.5-7B serving 4 × 32,768 tokens on one RTX 4090 (issue 28): with
/// GPUs to spare (`max_gpus`), the advice is tensor parallelism over 2 GPUs
/// (28 query and 4 key-value heads: 2 and 4 divide both, 8 does not), a
/// smaller batch or a shorter prompt; never ZeRO, which is training's, nor
/// tokens per optimizer step. On the one card alone, no fix adds a GPU.
#[test]
fn inference_is_advised_tensor_parallelism() {
    let one_card =
        config("form=transformer&model=qwen2.5-7b&mode=inference&batch=4&seq=32768&gpu=rtx-4090");
    assert!(!fixes(&one_card).is_empty());
    assert!(fixes(&one_card).iter().all(|f| f.cost.extra_gpus() == 0));
    let c = config(
        "form=transformer&model=qwen2.5-7b&mode=inference&batch=4&seq=32768&gpu=rtx-4090&max_gpus=8",
    );
    assert_eq!(
        serving_tp(&c.transformer).collect::<Vec<_>>(),
        [2, 4],
        "28 heads, 4 key-value heads"
    );
    let found = fixes(&c);
    let tp = found
        .iter()
        .find(|f| f.levers == [Lever::Tp { tp: 2 }])
        .expect("tensor parallelism over 2 GPUs fits");
    assert_eq!(tp.cost.extra_gpus(), 1);
    // Each GPU caches 2 of the 4 key-value heads.
    assert_eq!(tp.estimate.kv_cache * 2, estimate(&c).kv_cache);
    let batch = found
        .iter()
        .find(|f| matches!(f.levers[..], [Lever::Batch { .. }]))
        .expect("a smaller batch fits");
    assert_eq!(batch.cost.sequences_lost(), 3);
    assert_eq!(batch.cost.tokens_lost(), 0);
    assert!(
        what_ifs(&c)
            .iter()
            .any(|w| w.change == Change::Tp { tp: 2 } && w.fits == Some(true))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_fix_fits_and_needs_each_lever(config in any_config()) {
        check_fixes(&config)?;
    }

    #[test]
    fn every_fix_of_a_shared_setup_fits_and_needs_each_lever(config in shared_setup()) {
        check_fixes(&config)?;
    }
}
