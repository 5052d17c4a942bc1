use super::*;
use crate::query::{self, tests::any_config};
use proptest::prelude::*;

/// The plan of `query` under `framework`'s profile.
fn served_by(framework: &str, query: &str) -> Plan {
    let parsed = query::parse(&format!("form=transformer&framework={framework}&{query}"));
    assert!(parsed.problems.is_empty(), "{query}: {:?}", parsed.problems);
    plan(&parsed.config).expect("a serving plan")
}

fn served(query: &str) -> Plan {
    served_by("vllm", query)
}

/// The KV cache per token the pool stores, on one GPU (issue 29's worked
/// examples; docs/model.md §3.12).
#[test]
fn kv_bytes_per_token_worked_examples() {
    for (query, bytes) in [
        // 2 × 8 heads × 128 × 2 B × 32 layers.
        ("model=llama-3.1-8b&gpu=h100-80gb", 131_072),
        ("model=llama-3.1-8b&gpu=h100-80gb&kv_dtype=fp8", 65_536),
        ("model=llama-3.1-8b&gpu=h100-80gb&tp=2", 65_536),
        // 2 × 4 heads × 128 × 2 B × 28 layers.
        ("model=qwen2.5-7b&gpu=h100-80gb", 57_344),
        // (512 + 64) × 2 B × 61 layers, the same on each of 8 ranks.
        ("model=deepseek-v3&gpu=h200&tp=8", 70_272),
    ] {
        assert_eq!(served(query).kv_bytes_per_token, bytes, "{query}");
    }
}

/// docs/model.md §3.12's hybrid examples: the pool's blocks shared by
/// groups of layers, a sliding-window group holding only the window's and
/// one step's blocks of a request.
#[test]
fn sliding_window_layers_hold_their_window_only() {
    // gpt-oss-20b: 12 sliding (window 128) and 12 full layers, 2 × 8 heads
    // × 64 × 2 B = 2,048 B a token and layer: two groups of 12, a block
    // 12 × 16 × 2,048 = 393,216 B. At 131,072 tokens and 8,192 a step: 8,192
    // blocks of the full group, ⌈(127 + 8,192) / 16⌉ + 1 = 521 of the other.
    let plan = served("model=gpt-oss-20b&gpu=h100-80gb&max_model_len=131072");
    assert_eq!(
        plan.groups,
        KvGroups {
            layers: 12,
            full: 1,
            windowed: 1,
            linear: 0,
            window: 128
        }
    );
    assert_eq!(plan.kv_bytes_per_token, 49_152);
    assert_eq!(plan.blocks, plan.kv_cache_pool / 393_216);
    assert_eq!(plan.request_blocks(131_072), 8_713);
    assert_eq!(plan.max_concurrency_hundredths, plan.blocks * 100 / 8_713);
    // vLLM's "GPU KV cache size": the blocks over the two groups.
    assert_eq!(plan.pool_tokens, plan.blocks / 2 * 16);
    // A request shorter than the window and a step holds as many blocks in
    // both groups, plus the window's one.
    assert_eq!(plan.request_blocks(1_000), 63 + 64);
    // Gemma 3 27B: 10 full and 52 sliding layers (window 1,024): groups of
    // 10, the last sliding one padded; 8,192 + 6 × (⌈9,215 / 16⌉ + 1).
    let gemma = served("model=gemma-3-27b&gpu=h200&max_model_len=131072");
    assert_eq!(
        (
            gemma.groups.layers,
            gemma.groups.full,
            gemma.groups.windowed
        ),
        (10, 1, 6)
    );
    assert_eq!(gemma.request_blocks(131_072), 8_192 + 6 * 577);
    assert_eq!(gemma.pool_tokens, gemma.blocks / 7 * 16);
    // A model without a window is one group of every layer, as before.
    let llama = served("model=llama-3.1-8b&gpu=h100-80gb&max_model_len=8192");
    assert_eq!(
        (
            llama.groups.layers,
            llama.groups.full,
            llama.groups.windowed
        ),
        (32, 1, 0)
    );
    assert_eq!(llama.pool_tokens, llama.blocks * 16);
    assert_eq!(llama.max_seq, llama.blocks * 16);
}

/// docs/model.md §3.12's worked example, term by term: Llama-3.1-8B on an
/// RTX 4090 at vLLM's defaults for a card under 70 GiB.
#[test]
fn the_rtx_4090_worked_example() {
    let plan = served("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=8192");
    // 0.9 × 25,382,879,232 bytes (24,207 MiB, the total CUDA reports; not
    // nvidia-smi's 24,564), rounded down.
    assert_eq!(plan.budget, 22_844_591_308);
    // 8,030,261,248 parameters × 2 bytes.
    assert_eq!(plan.weights, 16_060_522_496);
    assert_eq!(
        (plan.max_num_batched_tokens, plan.max_num_seqs),
        (2_048, 256)
    );
    // Sampling 256 requests outweighs the forward pass over 2,048 tokens:
    // (2,048 + 2 × 256) × 4,096 × 2 B of hidden states and, at the sort,
    // 38 B × 256 × 128,256: 2 + 4 + 4 + 8 + 20 (`engine_sampler`).
    assert_eq!(plan.activation_peak, 20_971_520 + 1_247_674_368);
    assert!(engine_forward(&parsed("model=llama-3.1-8b"), 2_048) < plan.activation_peak);
    assert_eq!(plan.kv_cache_pool, 5_515_422_924);
    // Blocks of 16 tokens × 131,072 bytes.
    assert_eq!(plan.blocks, 5_515_422_924 / 2_097_152);
    assert_eq!(plan.blocks, 2_629);
    assert_eq!(plan.pool_tokens, 42_064);
    // 2,629 blocks over the 512 an 8,192-token request needs: 5.13×.
    assert_eq!(plan.max_concurrency_hundredths, 513);
    assert_eq!(plan.concurrent_requests(), 5);
    assert_eq!(plan.max_seq, 42_064);
    assert_eq!(plan.refusal, None);
}

/// The profiling step's sampling by sampler and request count, per request
/// and vocabulary entry (`engine_sampler`): PyTorch's sort holds 38 bytes
/// for a 16-bit model's 128 requests or more, 50 for 2 to 127 (its
/// full-sort path), and FlashInfer's sampler 14.
#[test]
fn the_sampler_s_peak_by_path() {
    let at = |query: &str| served(&format!("model=llama-3.1-8b&gpu=rtx-4090&{query}"));
    let hidden = |requests: u128| (2_048 + 2 * requests) * 4_096 * 2;
    let vocab = 128_256;
    assert_eq!(at("").activation_peak, hidden(256) + 38 * 256 * vocab);
    assert_eq!(
        at("max_num_seqs=64").activation_peak,
        hidden(64) + 50 * 64 * vocab
    );
    assert_eq!(
        at("flashinfer_sampler=1").activation_peak,
        hidden(256) + 14 * 256 * vocab
    );
    // One request sorts as 128 do; a lighter sampler leaves a larger pool.
    assert_eq!(
        at("max_num_seqs=1").activation_peak,
        engine_forward(&parsed("model=llama-3.1-8b"), 2_048).max(hidden(1) + 38 * vocab)
    );
    assert!(at("flashinfer_sampler=1").kv_cache_pool > at("").kv_cache_pool);
    // SGLang does not take vLLM's sampler setting.
    let sglang = query::parse(
        "form=transformer&framework=sglang&model=llama-3.1-8b&gpu=rtx-4090&flashinfer_sampler=1",
    );
    assert!(!sglang.config.transformer.engine.flashinfer_sampler);
}

/// A hybrid model under vLLM (docs/model.md §3.13): the attention layers'
/// KV cache per token and, per request, one page of every linear layer's
/// state, the attention's block raised to hold it. Qwen3-Next-80B-A3B over
/// two H200s: 12 layers × 2 × 1 head × 256 × 2 B = 12,288 bytes a token;
/// each Gated DeltaNet layer keeps 3 × 4,096 BF16 convolution inputs and a
/// 16 × 128 × 128 BF16 state, 548,864 bytes, 36 layers 19,759,104; the
/// attention's 1,024 bytes a token and layer in blocks of 16 × ⌈548,864 /
/// (16 × 1,024)⌉ = 544 tokens; four groups of 12 layers, one attending.
#[test]
fn a_hybrid_model_keeps_its_state_in_the_pool() {
    let plan = served("model=qwen3-next-80b-a3b&gpu=h200&tp=2&max_model_len=32768");
    assert_eq!(plan.kv_bytes_per_token, 12_288);
    assert_eq!(plan.linear_state_per_request, 19_759_104);
    assert_eq!(plan.block_size, 544);
    assert_eq!(
        plan.groups,
        KvGroups {
            layers: 12,
            full: 1,
            windowed: 0,
            linear: 3,
            window: 0
        }
    );
    // A block is one 544 × 1,024-byte page of each layer of a group.
    assert_eq!(plan.blocks, plan.kv_cache_pool / (544 * 1_024 * 12));
    // ⌈32,768 / 544⌉ = 61 blocks of the attention group and one of each
    // linear group.
    assert_eq!(plan.request_blocks(32_768), 64);
    assert_eq!(plan.max_concurrency_hundredths, plan.blocks * 100 / 64);
    assert_eq!(plan.pool_tokens, plan.blocks / 4 * 544);
    // Granite 4.0 H Small on one H100: 4 attention layers, 16,384 bytes a
    // token; 36 Mamba-2 layers of 3 × 8,448 + 128 × 64 × 128 BF16 values,
    // 2,147,840 bytes each; blocks of 16 × ⌈2,147,840 / 65,536⌉ = 528.
    let granite = served("model=granite-4.0-h-small&gpu=h100-80gb&max_model_len=8192");
    assert_eq!(granite.kv_bytes_per_token, 16_384);
    assert_eq!(granite.linear_state_per_request, 36 * 2_147_840);
    assert_eq!(granite.block_size, 528);
    // A larger block asked for is kept.
    let larger =
        served("model=qwen3-next-80b-a3b&gpu=h200&tp=2&max_model_len=32768&block_size=1024");
    assert_eq!(larger.block_size, 1_024);
}

/// SGLang keeps the linear state apart: `max_running_requests` (or 512)
/// requests' state, its convolution in BF16 and its recurrent state in FP32
/// (`mamba_ssm_dtype`), before the KV cache of the attention layers.
#[test]
fn sglang_sets_the_linear_state_apart() {
    let plan = served_by(
        "sglang",
        "model=qwen3-next-80b-a3b&gpu=h200&tp=2&max_model_len=32768",
    );
    // 36 × (3 × 4,096 × 2 + 16 × 128 × 128 × 4) on each of two GPUs.
    assert_eq!(plan.linear_state_per_request, 38_633_472);
    assert_eq!(
        plan.pool_tokens,
        (plan.kv_cache_pool - 512 * 38_633_472) / 12_288
    );
    assert!(plan.max_num_seqs <= 512);
    let given = served_by(
        "sglang",
        "model=qwen3-next-80b-a3b&gpu=h200&tp=2&max_model_len=32768&max_num_seqs=64",
    );
    assert_eq!(
        given.pool_tokens,
        (given.kv_cache_pool - 64 * 38_633_472) / 12_288
    );
}

fn parsed(query: &str) -> TransformerInput {
    query::parse(&format!("form=transformer&framework=vllm&{query}"))
        .config
        .transformer
}

#[test]
fn the_engine_refuses_as_it_would() {
    // The model's full context does not fit the pool: vLLM names the
    // longest that does.
    let plan = served("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=131072");
    assert_eq!(
        plan.refusal,
        Some(Refusal::MaxModelLen {
            needed: 131_072 * 131_072,
            estimate: 42_064
        })
    );
    // Half the card is less than the weights.
    let plan = served("model=llama-3.1-8b&gpu=rtx-4090&gpu_memory_utilization=0.5");
    assert_eq!(plan.refusal, Some(Refusal::NoCacheMemory));
    assert_eq!(plan.kv_cache_pool, 0);
    assert_eq!(plan.max_concurrency_hundredths, 0);
    // The whole card, with the CUDA context already on it: 24,207 MiB as
    // CUDA reports it.
    let plan = served("model=llama-3.1-8b&gpu=rtx-4090&gpu_memory_utilization=1");
    assert_eq!(
        plan.refusal,
        Some(Refusal::Startup {
            free: 25_382_879_232 - 1_000_000_000,
            total: 25_382_879_232
        })
    );
}

#[test]
fn only_an_engine_profile_in_inference_on_a_device_has_a_plan() {
    for query in [
        "form=transformer&model=llama-3.1-8b&mode=inference&gpu=h100-80gb",
        "form=transformer&model=llama-3.1-8b&framework=vllm",
        "form=parameters&gpu=h100-80gb",
    ] {
        assert_eq!(plan(&query::parse(query).config), None, "{query}");
    }
    // The profile switches to inference; training drops the engine's flags.
    let parsed = query::parse("form=transformer&framework=vllm&mode=train&max_num_seqs=8");
    assert_eq!(plan(&parsed.config), None);
    assert_eq!(parsed.problems.len(), 1, "{:?}", parsed.problems);
}

/// vLLM measures its CUDA graphs' memory by capturing them: batchfit does
/// not estimate it, and says whether any is missing (none with
/// `enforce_eager`).
#[test]
fn cuda_graphs_are_not_estimated_and_enforce_eager_has_none() {
    let graphs = served("model=llama-3.1-8b&gpu=h100-80gb");
    assert_eq!((graphs.cuda_graphs, graphs.eager), (0, false));
    let eager = served("model=llama-3.1-8b&gpu=h100-80gb&enforce_eager=1");
    assert_eq!((eager.cuda_graphs, eager.eager), (0, true));
    assert_eq!(eager.kv_cache_pool, graphs.kv_cache_pool);
}

/// A configuration served by vLLM on a device.
fn any_served() -> impl Strategy<Value = Config> {
    (any_config(), 0..crate::presets::DEVICES.len()).prop_map(|(mut config, device)| {
        config.form = Form::Transformer;
        Framework::Vllm.apply(&mut config.transformer);
        if config.device.is_none() {
            config.device = Some(Device::Preset(&crate::presets::DEVICES[device]));
        }
        config
    })
}

/// A preset model served by vLLM on a preset device, at any utilization,
/// block size, batch limits and cache format.
fn any_preset_served() -> impl Strategy<Value = Config> {
    (
        0..crate::presets::MODELS.len(),
        0..crate::presets::DEVICES.len(),
        (1u64..=100, 1u64..=256, 0u64..=2_048, 0u64..=65_536),
        proptest::sample::select(vec!["bf16", "fp8"]),
        1u64..=8,
    )
        .prop_map(|(model, device, (util, block, seqs, tokens), kv, tp)| {
            let query = format!(
                "form=transformer&framework=vllm&model={}&gpu={}&gpu_memory_utilization={}&block_size={block}&max_num_seqs={seqs}&max_num_batched_tokens={tokens}&kv_dtype={kv}&tp={tp}",
                crate::presets::MODELS[model].id,
                crate::presets::DEVICES[device].id,
                crate::fields::format_hundredths(util),
            );
            query::parse(&query).config
        })
}

proptest! {
    #[test]
    fn the_plan_fills_the_budget_and_counts_its_blocks(config in any_served()) {
        let plan = plan(&config).expect("a plan");
        let taken = plan.weights + plan.activation_peak + plan.non_torch + plan.cuda_graphs;
        if taken < plan.budget {
            prop_assert_eq!(taken + plan.kv_cache_pool, plan.budget);
        } else {
            prop_assert_eq!(plan.kv_cache_pool, 0);
            prop_assert_eq!(plan.refusal.is_some(), true);
        }
        // A block is one page of each layer of a group; a request holds all
        // its tokens' blocks in a full-attention group, the window's and one
        // step's (and one more) in a sliding-window group, one in a group of
        // linear layers, whose state fits the attention's page.
        let arch = &config.transformer.arch;
        let (attention, linear) = (
            u128::from(arch.attention_layers()),
            u128::from(arch.linear_layers()),
        );
        let g = plan.groups;
        let (len, size) = (u128::from(plan.max_model_len), u128::from(plan.block_size));
        let state_page = plan.linear_state_per_request / linear.max(1);
        let page = match plan.kv_bytes_per_token / attention.max(1) {
            0 => state_page,
            token => token * size,
        };
        prop_assert!(page >= state_page);
        let block = page * u128::from(g.layers);
        let window = (u128::from(g.window.saturating_sub(1))
            + u128::from(plan.max_num_batched_tokens))
            .min(len);
        let request = u128::from(g.full) * len.div_ceil(size)
            + u128::from(g.windowed) * (window.div_ceil(size) + 1)
            + u128::from(g.linear);
        prop_assert_eq!(plan.blocks, plan.kv_cache_pool / block.max(1));
        prop_assert_eq!(plan.max_concurrency_hundredths, plan.blocks * 100 / request.max(1));
        prop_assert_eq!(
            plan.pool_tokens,
            plan.blocks / u128::from(g.count()) * size
        );
        prop_assert!(plan.concurrent_requests() <= u128::from(plan.max_num_seqs));
    }

    #[test]
    fn a_lower_utilization_never_grows_the_pool(config in any_served(), lower in 1u64..=100) {
        let high = plan(&config).expect("a plan");
        let mut less = config;
        less.transformer.engine.gpu_memory_utilization =
            lower.min(config.transformer.engine.gpu_memory_utilization);
        let low = plan(&less).expect("a plan");
        prop_assert!(low.kv_cache_pool <= high.kv_cache_pool);
        prop_assert!(low.max_seq <= high.max_seq);
    }

    #[test]
    fn max_seq_fits_and_one_more_token_does_not(config in any_preset_served()) {
        let Some(plan) = plan(&config) else {
            // A model the engine does not generate with (an encoder).
            return Ok(());
        };
        // The start's own check comes first; a pool of no block holds nothing.
        prop_assume!(!matches!(plan.refusal, Some(Refusal::Startup { .. })));
        prop_assume!(plan.blocks > 0 && plan.max_seq < u128::from(MAX_MODEL_LEN.max));
        let with = |len: u128| {
            let mut c = config;
            c.transformer.engine.max_model_len = u64::try_from(len).unwrap_or(u64::MAX);
            super::plan(&c).expect("a plan").refusal
        };
        let refused = |refusal: Option<Refusal>| matches!(refusal, Some(Refusal::MaxModelLen { .. }));
        // No length fits (a sliding-window request holds more blocks than
        // the pool has): `max_model_len=0` would mean the form's length,
        // so only the one-token request is asked.
        if plan.max_seq > 0 {
            prop_assert!(!refused(with(plan.max_seq)));
        }
        prop_assert!(refused(with(plan.max_seq + 1)));
    }
}

mod startup_log {
    use super::super::log::{self, Compared, Error, Logged, Term};
    use super::served;

    /// vllm-project/vllm issue #25350 (vLLM V1, 2025-09): a start-up with an
    /// FP8 cache, then the refusal of a longer `max_model_len`.
    const FP8_CACHE: &str = "\
INFO [gpu_worker.py:298] Available KV cache memory: 10.55 GiB
INFO [kv_cache_utils.py:864] GPU KV cache size: 230,528 tokens
INFO [kv_cache_utils.py:868] Maximum concurrency for 100,000 tokens per request: 2.31x
";

    /// vllm-project/vllm pull request #12569 (2025-01): the older wording of
    /// the weights (GiB printed as \"GB\") and of the concurrency.
    const OLDER: &str = "\
INFO 01-30 03:18:12 gpu_model_runner.py:848] Loading model weights took 67.7229 GB
INFO 01-30 03:19:14 kv_cache_utils.py:395] # GPU blocks: 1381
INFO 01-30 03:19:14 kv_cache_utils.py:398] Maximum concurrency for 2048 tokens per request: 10.79x
";

    /// vllm-project/vllm issue #46462 (2026): vLLM 0.21's CUDA-graph line,
    /// among lines that state nothing of the plan.
    const GRAPHS: &str = "\
(EngineCore pid=29723) INFO 06-23 10:27:14 [monitor.py:81] Initial profiling/warmup run took 0.14 s
(EngineCore pid=29723) INFO 06-23 10:27:28 [gpu_model_runner.py:6042] Estimated CUDA graph memory: 6.24 GiB total
(EngineCore pid=29723) INFO 06-23 10:27:28 [gpu_worker.py:440] Available KV cache memory: 5.16 GiB
";

    #[test]
    fn published_start_up_lines_are_read() {
        let fp8 = log::read(FP8_CACHE).expect("a log");
        assert_eq!(
            fp8.kv_cache_memory,
            Some(Logged {
                value: 11_327_976_243, // 10.55 × 2^30, rounded
                half_unit: 5_368_709,
                line: 1
            })
        );
        assert_eq!(fp8.kv_cache_tokens.map(|t| t.value), Some(230_528));
        let (concurrency, tokens) = fp8.max_concurrency.expect("the concurrency");
        assert_eq!((concurrency.value, tokens), (231, 100_000));
        assert_eq!(fp8.weights, None);

        let older = log::read(OLDER).expect("a log");
        // 67.7229 "GB", which vLLM computed as GiB.
        assert_eq!(
            older.weights.map(|w| (w.value, w.half_unit)),
            Some((72_716_910_173, 53_687))
        );
        assert_eq!(
            older.max_concurrency.map(|(c, t)| (c.value, t)),
            Some((1_079, 2_048))
        );

        let graphs = log::read(GRAPHS).expect("a log");
        assert_eq!(
            graphs.cuda_graphs.map(|g| g.value),
            Some(6_700_148_982) // 6.24 × 2^30, rounded
        );
        assert_eq!(graphs.kv_cache_memory.map(|m| m.line), Some(3));
    }

    #[test]
    fn a_log_that_cannot_be_read_says_where() {
        assert_eq!(
            log::read("Loading safetensors shards\n"),
            Err(Error::NothingFound)
        );
        assert_eq!(log::read(""), Err(Error::NothingFound));
        assert_eq!(
            log::read("ok\nAvailable KV cache memory: lots GiB"),
            Err(Error::Unreadable { line: 2 })
        );
        assert_eq!(
            log::read("GPU KV cache size: -5 tokens"),
            Err(Error::Unreadable { line: 1 })
        );
        assert_eq!(
            log::read("Maximum concurrency for 8,192 tokens per request: NaNx"),
            Err(Error::Unreadable { line: 1 })
        );
        // Two ranks printing the same value are one value; two values are not.
        assert!(log::read("GPU KV cache size: 10 tokens\nGPU KV cache size: 10 tokens").is_ok());
        assert_eq!(
            log::read("GPU KV cache size: 10 tokens\nx\nGPU KV cache size: 12 tokens"),
            Err(Error::TwoValues { line: 3, first: 1 })
        );
        assert_eq!(
            log::read(&"Available KV cache memory: 1 GiB\n".repeat(10_000)),
            Err(Error::TooLong)
        );
        // Huge numbers are refused, never wrapped.
        assert_eq!(
            log::read(&format!(
                "Available KV cache memory: {} GiB",
                "9".repeat(30)
            )),
            Err(Error::Unreadable { line: 1 })
        );
    }

    /// The sampler vLLM's start names is read (the first such line), is no
    /// line of the plan by itself, and is set beside the query's setting.
    #[test]
    fn the_sampler_line_is_read() {
        let fallback = "WARNING [topk_topp_sampler.py:61] FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & top-k sampling. For the best performance, please install FlashInfer.";
        let flashinfer =
            "INFO [topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling.";
        let pool = "Available KV cache memory: 5.45 GiB";
        let read = |text: &str| log::read(text).expect("a log");
        assert_eq!(
            read(&format!("{fallback}\n{pool}")).flashinfer_sampler,
            Some((false, 1))
        );
        assert_eq!(
            read(&format!("{pool}\n{flashinfer}\n{fallback}")).flashinfer_sampler,
            Some((true, 2))
        );
        assert_eq!(log::read(flashinfer), Err(Error::NothingFound));
        let plan = served("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=8192");
        assert_eq!(
            log::other_sampler(&plan, &read(&format!("{flashinfer}\n{pool}"))),
            Some((true, 1))
        );
        assert_eq!(
            log::other_sampler(&plan, &read(&format!("{fallback}\n{pool}"))),
            None
        );
        let stated =
            served("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=8192&flashinfer_sampler=1");
        assert_eq!(
            log::other_sampler(&stated, &read(&format!("{flashinfer}\n{pool}"))),
            None
        );
    }

    #[test]
    fn the_log_is_compared_with_the_plan_term_by_term() {
        // The RTX 4090 worked example as vLLM would print it.
        let plan = served("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=8192");
        let text = "\
Model loading took 14.96 GiB memory and 4.2 seconds
Available KV cache memory: 5.14 GiB
GPU KV cache size: 42,064 tokens
Maximum concurrency for 8,192 tokens per request: 5.13x
";
        let compared = log::compare(&plan, &log::read(text).expect("a log"));
        let error = |term: Term| {
            compared
                .iter()
                .find(|c: &&Compared| c.term == term)
                .map(|c| c.error)
        };
        // 16,060,522,496 bytes are 14.957 GiB: within 14.96's half unit.
        assert_eq!(error(Term::Weights), Some(0));
        assert_eq!(error(Term::KvCacheMemory), Some(0));
        assert_eq!(error(Term::KvCacheTokens), Some(0));
        // 5.1348 printed rounded and planned rounded down: 5.13 both.
        assert_eq!(error(Term::MaxConcurrency), Some(0));
        assert_eq!(error(Term::CudaGraphs), None);
        // A log whose pool is 1,000 tokens larger: the plan is low by that.
        let larger = log::read("GPU KV cache size: 43,064 tokens").expect("a log");
        assert_eq!(log::compare(&plan, &larger)[0].error, -1_000, "plan − log");
        // A concurrency for another request length is not compared.
        let other =
            log::read("Maximum concurrency for 4,096 tokens per request: 11.51x").expect("a log");
        assert!(log::compare(&plan, &other).is_empty());
    }
}

/// The RTX 4090 example over request lengths: 1,024 to 65,536 tokens, the
/// last no longer fitting the 42,064-token pool.
#[test]
fn the_sweep_over_request_lengths() {
    let plan = served("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=8192");
    let rows = sweep(&plan);
    let lengths: Vec<u64> = rows.iter().map(|r| r.max_model_len).collect();
    assert_eq!(
        lengths,
        [1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 65_536]
    );
    let at = |len: u64| *rows.iter().find(|r| r.max_model_len == len).expect("a row");
    // 2,629 blocks over 64 a 1,024-token request needs: 41.07×, 41 requests.
    assert_eq!(
        (at(1_024).concurrency_hundredths, at(1_024).requests),
        (4_107, 41)
    );
    assert_eq!(
        at(8_192).concurrency_hundredths,
        plan.max_concurrency_hundredths
    );
    assert!(at(32_768).fits && !at(65_536).fits);
    // A max_model_len between powers of two has its own row.
    let odd = sweep(&served(
        "model=llama-3.1-8b&gpu=rtx-4090&max_model_len=5000",
    ));
    assert!(odd.iter().any(|r| r.max_model_len == 5_000));
}

#[test]
fn every_gpu_preset_gets_its_plan() {
    let config =
        query::parse("form=transformer&model=llama-3.1-8b&framework=vllm&max_model_len=8192")
            .config;
    let plans = devices(&config);
    assert!(plans.iter().all(|(d, _)| d.kind == DeviceKind::Gpu));
    assert!(plans.iter().any(|(d, _)| d.id == "h100-80gb"));
    for (device, plan) in &plans {
        let on = Config {
            device: Some(Device::Preset(device)),
            ..config
        };
        assert_eq!(Some(*plan), super::plan(&on), "{}", device.id);
    }
    // 16 GB cards cannot hold 16 GB of weights and a pool: vLLM refuses.
    let t4 = plans.iter().find(|(d, _)| d.id == "t4").expect("the T4");
    assert_eq!(t4.1.refusal, Some(Refusal::NoCacheMemory));
}

/// A model whose every layer has a window holds a request's window only:
/// every length the URL format can ask for fits, and the sweep shows none
/// beyond it (a row it could not link to, marked as not starting).
#[test]
fn a_windowed_only_model_fits_every_length() {
    let plan = served("model=gpt-oss-20b&global_every=0&gpu=h100-80gb&max_model_len=131072");
    assert_eq!((plan.groups.full, plan.groups.windowed), (0, 1));
    assert_eq!(plan.max_seq, u128::from(MAX_MODEL_LEN.max));
    let rows = sweep(&plan);
    assert_eq!(rows.last().map(|r| r.max_model_len), Some(1 << 26));
    assert!(rows.iter().all(|r| r.fits && r.requests >= 1), "{rows:?}");
}

proptest! {
    #[test]
    fn a_sweep_row_fits_exactly_when_the_pool_holds_its_request(config in any_preset_served()) {
        let Some(plan) = plan(&config) else { return Ok(()) };
        for row in sweep(&plan) {
            prop_assert_eq!(row.fits, u128::from(row.max_model_len) <= plan.max_seq);
            prop_assert!(row.requests <= u128::from(plan.max_num_seqs));
        }
    }
}

#[test]
fn what_would_make_it_serve() {
    // Refused at 131,072 tokens: the longest that fits starts it.
    let config = query::parse(
        "form=transformer&framework=vllm&model=llama-3.1-8b&gpu=rtx-4090&max_model_len=131072",
    )
    .config;
    let found = what_ifs(&config);
    let names: Vec<&str> = found.iter().map(|w| w.change.name()).collect();
    assert!(names.contains(&"max_model_len"), "{names:?}");
    for w in &found {
        assert_eq!(w.plan.refusal, None, "{:?}", w.change);
        assert_eq!(Some(w.plan), plan(&w.config));
    }
    let shorter = found
        .iter()
        .find(|w| w.change == Change::MaxModelLen(42_064))
        .expect("max_model_len = 42,064");
    assert_eq!(shorter.plan.concurrent_requests(), 1);
    // At 8,192 tokens every kept change serves more requests; tensor
    // parallelism only within the GPUs the user has.
    let config = query::parse(
        "form=transformer&framework=vllm&model=llama-3.1-8b&gpu=rtx-4090&max_model_len=8192",
    )
    .config;
    let base = plan(&config).expect("a plan").concurrent_requests();
    let found = what_ifs(&config);
    assert!(found.iter().all(|w| w.plan.concurrent_requests() > base));
    assert!(found.iter().any(|w| w.change == Change::KvFp8));
    assert!(!found.iter().any(|w| matches!(w.change, Change::Tp(_))));
    let two = Config {
        max_gpus: 2,
        ..config
    };
    let tp = what_ifs(&two)
        .into_iter()
        .find(|w| w.change == Change::Tp(2))
        .expect("tp=2 within 2 GPUs");
    assert_eq!(tp.config.transformer.tp, 2);
    // Sorted: the most requests first.
    let counts: Vec<u128> = found.iter().map(|w| w.plan.concurrent_requests()).collect();
    assert!(counts.windows(2).all(|p| p[0] >= p[1]), "{counts:?}");
}

fn sglang(query: &str) -> Plan {
    served_by("sglang", query)
}

/// SGLang's default `mem_fraction_static` by card (docs/model.md §3.12,
/// server_args.py `_handle_gpu_memory_settings`): an H100 80GB (81,559 MiB)
/// takes the 8,192-token chunks and 256 CUDA-graph batch sizes of its tier,
/// reserved = 512 + 8,192 × 1.5 + 256 × 2 + 1 × 1 / 8 × 1,024 = 13,440 MiB,
/// and (81,559 − 13,440) / 81,559 = 0.835; an RTX 4090 (24,564 MiB): 2,048
/// and 24, reserved 512 + 3,072 + 48 + 128 = 3,760 MiB, 0.847; a T4 (15,360
/// MiB): 2,048 and 8, 3,728 MiB, 0.757. An H200 with tp 8 (8,192 and 512):
/// 512 + 12,288 + 1,024 + 8 / 8 × 1,024 = 14,848 MiB of 143,771, 0.897
/// (above the 10,240 MiB floor of cards over 60 GiB).
#[test]
fn sglang_takes_its_static_fraction_from_the_card() {
    assert_eq!(sglang_defaults(81_559, 1), (8_192, 256));
    assert_eq!(sglang_mem_fraction(81_559, 8_192, 256, 1, 1), 835);
    assert_eq!(sglang_defaults(24_564, 1), (2_048, 24));
    assert_eq!(sglang_mem_fraction(24_564, 2_048, 24, 1, 1), 847);
    assert_eq!(sglang_defaults(15_360, 1), (2_048, 8));
    assert_eq!(sglang_mem_fraction(15_360, 2_048, 8, 1, 1), 757);
    assert_eq!(sglang_defaults(143_771, 8), (8_192, 512));
    assert_eq!(sglang_mem_fraction(143_771, 8_192, 512, 8, 1), 897);
    // The floor: an A100 80GB with chunks of 2,048 given still reserves
    // 10,240 MiB, (81,920 − 10,240) / 81,920 = 0.875.
    assert_eq!(sglang_mem_fraction(81_920, 2_048, 256, 1, 1), 875);
}

/// docs/model.md §3.12's SGLang worked example: Llama-3.1-8B on an H100
/// 80GB with `overhead_gb` = 1. The static memory is 0.835 (from
/// nvidia-smi's 81,559 MiB) of what is free before the weights load (of
/// the 81,090 MiB CUDA reports), the pool what the weights leave of it, in
/// tokens of 131,072 B; `max_running_requests` is clamped to 4,096.
#[test]
fn the_sglang_h100_worked_example() {
    let plan = sglang("model=llama-3.1-8b&gpu=h100-80gb&max_model_len=8192");
    let free = 81_090 * (1u128 << 20) - 1_000_000_000;
    assert_eq!(plan.engine, Framework::Sglang);
    assert_eq!(plan.fraction_thousandths, 835);
    assert_eq!(plan.budget, free * 835 / 1_000);
    assert_eq!(plan.weights + plan.kv_cache_pool, plan.budget);
    assert_eq!(plan.budget + plan.reserve, free);
    assert_eq!(plan.kv_bytes_per_token, 131_072);
    assert_eq!(plan.pool_tokens, plan.kv_cache_pool / 131_072);
    assert_eq!(plan.max_num_seqs, 4_096);
    assert_eq!(plan.block_size, 1);
    assert_eq!(
        (plan.weights, plan.pool_tokens, plan.concurrent_requests()),
        (16_060_522_496, 412_778, 50)
    );
    assert_eq!(plan.concurrent_requests(), plan.pool_tokens / 8_192);
    assert_eq!(plan.refusal, None);
    // A given fraction is used as it is.
    let given = sglang("model=llama-3.1-8b&gpu=h100-80gb&gpu_memory_utilization=0.7");
    assert_eq!(given.budget, free * 700 / 1_000);
    // vLLM's budget on the same card is 0.9 of the device.
    let vllm = served("model=llama-3.1-8b&gpu=h100-80gb&max_model_len=8192");
    assert_eq!(vllm.fraction_thousandths, 900);
    assert_eq!(vllm.reserve, 0);
}

/// SGLang refuses where the weights fill the static memory, in its words;
/// its `max_running_requests` follows the pool where it is small.
#[test]
fn sglang_refuses_when_no_token_fits() {
    let plan = sglang("model=llama-3.1-70b&gpu=rtx-4090");
    assert_eq!(plan.refusal, Some(Refusal::NotEnoughMemory));
    assert_eq!((plan.kv_cache_pool, plan.pool_tokens), (0, 0));
    let small = sglang("model=llama-3.1-8b&gpu=rtx-4090&max_model_len=131072");
    assert_eq!(small.refusal, None);
    assert_eq!(
        u128::from(small.max_num_seqs),
        (small.pool_tokens * 512 / 131_072)
            .clamp(2_048, 4_096)
            .min(small.pool_tokens / 2)
    );
    // A request longer than the pool does not fit: none at once.
    assert_eq!(small.concurrent_requests(), 0);
}

proptest! {
    /// SGLang's plan on any configuration: the weights and the pool fill the
    /// static memory, which with the reserve is what was free before the
    /// weights loaded; the pool's tokens are whole pages.
    #[test]
    fn the_sglang_plan_fills_the_static_memory(config in any_config(), device in 0..crate::presets::DEVICES.len()) {
        let mut config = config;
        config.form = Form::Transformer;
        Framework::Sglang.apply(&mut config.transformer);
        config.device = Some(Device::Preset(&crate::presets::DEVICES[device]));
        let plan = plan(&config).expect("a plan");
        let free = config.device.map_or(0, |d| d.usable_bytes()).saturating_sub(config.overhead_bytes());
        prop_assert_eq!(plan.budget + plan.reserve, free);
        if plan.weights < plan.budget {
            prop_assert_eq!(plan.weights + plan.kv_cache_pool, plan.budget);
        } else {
            prop_assert_eq!(plan.kv_cache_pool, 0);
        }
        prop_assert_eq!(plan.refusal.is_some(), plan.pool_tokens == 0);
        prop_assert_eq!(plan.pool_tokens % u128::from(plan.block_size), 0);
        prop_assert!(plan.pool_tokens * plan.kv_bytes_per_token <= plan.kv_cache_pool);
    }
}

/// SGLang's start-up lines, as published: the pool line quoted in
/// vllm-project/vllm issue #21348 (Qwen3-235B-A22B-FP8, tp 4) and the
/// scheduler's line in sgl-project/sglang issue #29575. Its `GB` is 2^30
/// bytes; K and V are read together.
#[test]
fn sglang_start_up_lines_are_read() {
    let pool =
        log::read("[TP0] KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB")
            .expect("read");
    assert_eq!(pool.kv_cache_tokens.map(|t| t.value), Some(367_404));
    let memory = pool.kv_cache_memory.expect("K and V");
    assert_eq!(memory.value, 2 * 8_836_895_212);
    assert_eq!(memory.half_unit, 2 * 5_368_709);
    let latent =
        log::read("KV Cache is allocated. #tokens: 524288, KV size: 17.16 GB").expect("read");
    assert_eq!(
        latent.kv_cache_memory.map(|m| m.value),
        Some(18_425_409_700)
    );
    let scheduler = log::read(
        "[2026-06-28 15:16:45] max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=33, context_len=256000, available_gpu_mem=17.22 GB",
    )
    .expect("read");
    assert_eq!(scheduler.kv_cache_tokens.map(|t| t.value), Some(2_086_558));
    assert_eq!(scheduler.max_running_requests.map(|r| r.value), Some(33));
    // The two lines of one start agree on the tokens; a second value is
    // named.
    assert_eq!(
        log::read(
            "KV Cache is allocated. #tokens: 10, K size: 1.00 GB, V size: 1.00 GB\nmax_total_num_tokens=11, max_running_requests=2"
        ),
        Err(log::Error::TwoValues { line: 2, first: 1 })
    );
    assert_eq!(
        log::read("KV Cache is allocated. #tokens: ten, K size: 1 GB"),
        Err(log::Error::Unreadable { line: 1 })
    );
    // Beside SGLang's plan: the tokens, the memory and max_running_requests.
    let plan = sglang("model=llama-3.1-8b&gpu=h100-80gb&max_model_len=8192");
    let compared = log::compare(&plan, &scheduler);
    let running = compared
        .iter()
        .find(|c| c.term == log::Term::MaxRunningRequests)
        .expect("compared");
    assert_eq!(running.planned, 4_096);
    assert_eq!(running.error, 4_096 - 33);
}
