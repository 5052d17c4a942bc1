//! Inference: the KV cache and sliding windows.

use super::*;
use crate::transformer::{CacheImpl, InferenceMoments};

/// MLA in transformers caches the decompressed keys and values.
#[test]
fn mla_caches_decompressed_keys_and_values() {
    // DeepSeek-V3: per token and layer 128 × (128 + 64) keys and 128 ×
    // 128 values, 40,960 elements; 61 layers, 4,096 tokens, BF16.
    let input = TransformerInput {
        arch: arch("deepseek-v3"),
        mode: Mode::Inference,
        seq: 4000,
        generated: 96,
        recipe: Recipe::Bf16,
        ..TransformerInput::default()
    };
    assert_eq!(kv_cache_per_sample(&input), 61 * 40_960 * 4096 * 2);
}

#[test]
fn kv_cache_follows_the_formula() {
    let input = TransformerInput {
        arch: arch("qwen2.5-7b"),
        mode: Mode::Inference,
        seq: 30_720,
        generated: 2048,
        batch: 1,
        ..TransformerInput::default()
    };
    // 2 × 28 layers × 4 kv heads × 128 × 32,768 tokens × 2 bytes.
    assert_eq!(kv_cache_per_sample(&input), 2 * 28 * 4 * 128 * 32_768 * 2);
}

/// Issue 13's worked example and the scales of each quantized format:
/// Llama-3.1-8B (32 layers, 8 KV heads of 128) at 32,768 tokens.
#[test]
fn kv_cache_formats_carry_their_scales() {
    let at = |kv_dtype| TransformerInput {
        arch: arch("llama-3.1-8b"),
        mode: Mode::Inference,
        recipe: Recipe::Bf16,
        seq: 32_768 - 256,
        generated: 256,
        batch: 1,
        kv_dtype,
        ..TransformerInput::default()
    };
    // 2 × 32 layers × 8 × 128 × 32,768 elements.
    let elements: u128 = 2 * 32 * 8 * 128 * 32_768;
    assert_eq!(elements, 2_147_483_648);
    let table = [
        (KvDtype::Bf16, 4_294_967_296, 0),
        // Before scales: 1 byte each (the per-layer FP32 scales are left out).
        (KvDtype::Fp8, 2_147_483_648, 0),
        // + a 2-byte scale per token and KV head: 2 × 32 × 8 × 32,768 × 2;
        // the dequantized copy is one layer's K and V in BF16.
        (
            KvDtype::Int8,
            2_147_483_648 + 33_554_432,
            2 * 8 * 128 * 32_768 * 2,
        ),
        // 127 recent tokens in BF16, the rest 4 bits + 4 bytes per 64.
        (
            KvDtype::Int4,
            (2 * 32 * 1024 * (32_768 - 127)) / 2
                + 4 * (2 * 32 * 1024 * (32_768 - 127)) / 64
                + 2 * 32 * 1024 * 127 * 2,
            2 * 2 * 8 * 128 * 32_768 * 2,
        ),
    ];
    for (kv_dtype, cache, copies) in table {
        let input = at(kv_dtype);
        assert_eq!(kv_cache_per_sample(&input), cache, "{kv_dtype:?}");
        assert_eq!(kv_dequantized_per_sample(&input), copies, "{kv_dtype:?}");
        assert!(activations_per_sample(&input) >= copies);
    }
    // BF16 > int8 (its scales) > FP8 > int4.
    let [bf16, fp8, int8, int4] = table.map(|(kv_dtype, ..)| kv_cache_per_sample(&at(kv_dtype)));
    assert!(bf16 > int8 && int8 > fp8 && fp8 > int4);
    // Training has no cache, whatever its format would be.
    let train = TransformerInput {
        mode: Mode::Train,
        ..at(KvDtype::Int4)
    };
    assert_eq!(kv_cache_per_sample(&train), 0);
    assert_eq!(kv_dequantized_per_sample(&train), 0);
}

/// docs/model.md's worked example: Gemma 3 1B in BF16 (26 layers, every
/// sixth global: 4 global, 22 through a 512-token window; one KV head of
/// 256). A windowed layer holds the prompt's states until the first
/// generated token, then at most the window (transformers cache_utils.py
/// `DynamicSlidingWindowLayer.update`).
#[test]
fn windowed_layers_keep_at_most_the_prompt_or_the_window() {
    let gemma = TransformerInput {
        arch: arch("gemma-3-1b"),
        mode: Mode::Inference,
        recipe: Recipe::Bf16,
        batch: 1,
        ..TransformerInput::default()
    };
    assert_eq!(gemma.arch.windowed_layers(), 22);
    // 2 (K, V) × 256 × 2 bytes = 1,024 bytes per layer and position.
    let per_position = 2 * 256 * 2;
    let kv = |seq, generated| {
        kv_cache_per_sample(&TransformerInput {
            seq,
            generated,
            ..gemma
        })
    };
    // An 8,192-token prompt and 2,048 generated tokens: the global layers
    // hold 10,240 positions, the windowed ones the prompt's 8,192.
    assert_eq!(kv(8192, 2048), per_position * (4 * 10_240 + 22 * 8192));
    assert_eq!(kv(8192, 2048), 226_492_416);
    // A 100-token prompt: the windowed layers stop at the window.
    assert_eq!(kv(100, 2048), per_position * (4 * 2148 + 22 * 512));
    assert_eq!(kv(100, 2048), 20_332_544);
    // A context shorter than the window: every layer holds all of it.
    assert_eq!(kv(100, 300), per_position * 26 * 400);
    // Without the window, 26 × 10,240 positions.
    let full = TransformerInput {
        arch: Architecture {
            window: 0,
            ..gemma.arch
        },
        seq: 8192,
        generated: 2048,
        ..gemma
    };
    assert_eq!(kv_cache_per_sample(&full), 272_629_760);
    // Mistral 7B v0.1: every layer windowed (4,096).
    let mistral = TransformerInput {
        arch: arch("mistral-7b"),
        seq: 1000,
        generated: 7000,
        ..gemma
    };
    assert_eq!(mistral.arch.windowed_layers(), 32);
    assert_eq!(kv_cache_per_sample(&mistral), 2 * 32 * 1024 * 4096 * 2);
    // global_every = 1: every layer global, the window unused.
    let all_global = Architecture {
        global_every: 1,
        ..gemma.arch
    };
    assert_eq!(all_global.windowed_layers(), 0);
}

/// Training saves what the attention computes, and neither kernel saves
/// less with a window: eager attention masks a full s × s score matrix
/// (transformers `eager_attention_forward` adds the sliding mask), the
/// flash kernels keep one log-sum-exp per row either way.
#[test]
fn gpt_oss_windows_every_other_layer_at_128_tokens() {
    let oss = TransformerInput {
        arch: arch("gpt-oss-20b"),
        mode: Mode::Inference,
        recipe: Recipe::Bf16,
        batch: 1,
        ..TransformerInput::default()
    };
    // configuration_gpt_oss.py: 12 of the 24 layers slide over 128 tokens.
    assert_eq!(oss.arch.windowed_layers(), 12);
    // 2 (K, V) × 8 KV heads × 64 × 2 bytes = 2,048 bytes per layer and position.
    let per_position = 2 * 8 * 64 * 2;
    let kv = |seq, generated| {
        kv_cache_per_sample(&TransformerInput {
            seq,
            generated,
            ..oss
        })
    };
    // A 100-token prompt and 2,048 generated: the full layers hold 2,148
    // positions, the sliding ones their window.
    assert_eq!(kv(100, 2048), per_position * (12 * 2148 + 12 * 128));
    assert_eq!(kv(100, 2048), 55_934_976);
}

/// docs/model.md's worked example: Llama 4 Scout in BF16 (48 layers,
/// every fourth a global NoPE layer: 12 global, 36 chunked at 8,192
/// tokens; 8 KV heads of 128). transformers caches a chunked layer as a
/// sliding one with the chunk as its window (cache_utils.py
/// `DynamicCache.__init__`: `"chunked_attention"` gets a
/// `DynamicSlidingWindowLayer(sliding_window=attention_chunk_size)`).
#[test]
fn llama_4_scout_keeps_one_chunk_on_its_chunked_layers() {
    let scout = TransformerInput {
        arch: arch("llama-4-scout"),
        mode: Mode::Inference,
        recipe: Recipe::Bf16,
        batch: 1,
        ..TransformerInput::default()
    };
    assert_eq!(scout.arch.windowed_layers(), 36);
    // 2 (K, V) × 8 KV heads × 128 × 2 bytes = 4,096 bytes per layer and position.
    let per_position = 2 * 8 * 128 * 2;
    let kv = |generated| {
        kv_cache_per_sample(&TransformerInput {
            seq: 8192,
            generated,
            ..scout
        })
    };
    // An 8,192-token prompt generating to 32,768 tokens: the global
    // layers hold 32,768 positions, the chunked ones 8,192.
    assert_eq!(kv(24_576), per_position * (12 * 32_768 + 36 * 8192));
    assert_eq!(kv(24_576), 2_818_572_288);
    // To 131,072 tokens.
    assert_eq!(kv(122_880), per_position * (12 * 131_072 + 36 * 8192));
    assert_eq!(kv(122_880), 7_650_410_496);
    // Counted as full attention, as before: 48 × 131,072 positions.
    let full = TransformerInput {
        arch: Architecture {
            window: 0,
            ..scout.arch
        },
        seq: 8192,
        generated: 122_880,
        ..scout
    };
    assert_eq!(kv_cache_per_sample(&full), 25_769_803_776);
}

#[test]
fn a_window_changes_no_training_term() {
    for (model, attention) in [
        ("gemma-2-2b", Attention::Eager),
        ("gemma-2-2b", Attention::Flash),
        ("llama-4-scout", Attention::Eager),
        ("llama-4-scout", Attention::Flash),
    ] {
        let train = TransformerInput {
            arch: arch(model),
            seq: 8192,
            attention,
            ..TransformerInput::default()
        };
        let unwindowed = TransformerInput {
            arch: Architecture {
                window: 0,
                ..train.arch
            },
            ..train
        };
        assert_eq!(
            activations_per_sample(&train),
            activations_per_sample(&unwindowed)
        );
        assert_eq!(kv_cache_per_sample(&train), 0);
    }
}

proptest::proptest! {
    /// Over the whole domain: a window never adds KV cache, never goes
    /// below the global layers' share, and changes nothing when it holds
    /// the whole context.
    #[test]
    fn a_window_bounds_the_kv_cache(
        layers in 1u64..200, window in 0u64..100_000, global_every in 0u64..300,
        seq in 1u64..200_000, generated in 0u64..200_000,
    ) {
        let windowed = TransformerInput {
            arch: Architecture { layers, window, global_every, ..Architecture::default() },
            mode: Mode::Inference,
            seq,
            generated,
            ..TransformerInput::default()
        };
        let full = TransformerInput {
            arch: Architecture { window: 0, ..windowed.arch },
            ..windowed
        };
        let (with, without) = (kv_cache_per_sample(&windowed), kv_cache_per_sample(&full));
        proptest::prop_assert!(with <= without);
        let global = u128::from(layers - windowed.arch.windowed_layers());
        proptest::prop_assert!(with * u128::from(layers) >= without * global);
        if window >= seq + generated {
            proptest::prop_assert_eq!(with, without);
        }
    }
}

/// KV bytes per token, byte for byte (issue 29): Llama-3.1-8B in BF16
/// keeps 2 × 8 heads × 128 × 2 bytes × 32 layers = 131,072 a token, 65,536
/// with an FP8 cache and 65,536 per GPU at tp = 2; Qwen2.5-7B 2 × 4 × 128 ×
/// 2 × 28 = 57,344. DeepSeek-V3 as `generate()` caches it, decompressed: 61
/// × (128 × 192 + 128 × 128) × 2 = 4,997,120 a token, split by head over 8
/// ranks; as vLLM and SGLang cache the latent: (512 + 64) × 2 × 61 = 70,272,
/// the same on each of the 8 ranks.
#[test]
fn kv_bytes_per_token_worked_examples() {
    let per_token = |query: &str| {
        let parsed = crate::query::parse(&format!(
            "form=transformer&mode=inference&batch=1&seq=1&gen=0&{query}"
        ));
        assert_eq!(parsed.problems, [], "{query}");
        kv_cache_per_sample(&parsed.config.transformer)
    };
    assert_eq!(per_token("model=llama-3.1-8b"), 131_072);
    assert_eq!(per_token("model=llama-3.1-8b&kv_dtype=fp8"), 65_536);
    assert_eq!(per_token("model=llama-3.1-8b&tp=2"), 65_536);
    assert_eq!(per_token("model=qwen2.5-7b"), 57_344);
    assert_eq!(per_token("model=deepseek-v3&tp=8"), 4_997_120 / 8);
    assert_eq!(per_token("model=deepseek-v3&tp=8&kv_layout=latent"), 70_272);
    assert_eq!(per_token("model=deepseek-v3&kv_layout=latent"), 70_272);
    // A model without latent attention has no latent to cache: the layout
    // is reported and reset.
    let parsed =
        crate::query::parse("form=transformer&model=llama-3.1-8b&mode=inference&kv_layout=latent");
    assert_eq!(parsed.problems.len(), 1);
    assert_eq!(
        parsed.config.transformer.kv_layout,
        crate::transformer::KvLayout::Full
    );
}

/// The prefill's eager scores (docs/model.md §3.4): Hugging Face's eager
/// attention holds the 16-bit scores, the FP32 softmax written from them
/// and its 16-bit copy, the scores still bound to their name as the copy is
/// written (2 + 4 + 2 bytes per score in FP16), where a softmax in the
/// compute dtype holds 2 + 2. One layer, 8 heads of 8, a small MLP, 1,024 tokens: the
/// attention is the largest block, eager or not.
#[test]
fn eager_prefill_holds_the_scores_and_their_fp32_softmax() {
    let hf = TransformerInput {
        arch: Architecture {
            layers: 1,
            hidden: 64,
            heads: 8,
            kv_heads: 8,
            ffn: 64,
            vocab: 16,
            ..Architecture::default()
        },
        mode: Mode::Inference,
        seq: 1024,
        recipe: Recipe::Bf16,
        attention: Attention::Eager,
        ..TransformerInput::default()
    };
    let flash = TransformerInput {
        attention: Attention::Flash,
        ..hf
    };
    let megatron = TransformerInput {
        framework: Framework::Megatron,
        ..hf
    };
    let scores = 8 * 1024 * 1024;
    assert_eq!(
        prefill_activations(&hf) - prefill_activations(&flash),
        (2 + 4 + 2) * scores
    );
    assert_eq!(
        prefill_activations(&megatron) - prefill_activations(&flash),
        (2 + 2) * scores
    );
}

/// `cache_implementation="static"` (docs/model.md §3.4, "A static cache"):
/// Llama 3.1 8B in BF16, one sample of 4,096 prompt tokens generating 512.
/// Per token 32 layers × 2 × 8 heads × 128 × 2 bytes = 131,072 B; the
/// static cache holds all 4,608 positions from the prefill on (603,979,776
/// B, where the default cache holds the prompt's 536,870,912 B then), the
/// prefill's SDPA reads a boolean mask of 4,096 × 4,608 bytes, and a token
/// written in place leaves no concatenation's copy of one layer's keys
/// (1,024 × 4,607 × 2 bytes) at the end of generation.
#[test]
fn a_static_cache_is_whole_from_the_prefill_and_grows_by_no_copy() {
    let input = |cache: CacheImpl, attention: Attention| TransformerInput {
        arch: arch("llama-3.1-8b"),
        mode: Mode::Inference,
        seq: 4096,
        generated: 512,
        recipe: Recipe::Bf16,
        batch: 1,
        cache,
        attention,
        ..TransformerInput::default()
    };
    let dynamic = InferenceMoments::of(&input(CacheImpl::Dynamic, Attention::Flash));
    let fixed = InferenceMoments::of(&input(CacheImpl::Static, Attention::Flash));
    assert_eq!(dynamic.prefill_cache, 536_870_912);
    assert_eq!(
        (fixed.prefill_cache, fixed.cache),
        (603_979_776, 603_979_776)
    );
    assert_eq!(fixed.cache, dynamic.cache);
    assert_eq!(fixed.prefill - dynamic.prefill, 4096 * 4608);
    assert_eq!(dynamic.decode - fixed.decode, 1024 * 4607 * 2);
    // Eager attention: the prefill's scores span every preallocated
    // position, and the additive mask is in the model's dtype.
    let eager_dynamic = InferenceMoments::of(&input(CacheImpl::Dynamic, Attention::Eager));
    let eager_static = InferenceMoments::of(&input(CacheImpl::Static, Attention::Eager));
    assert!(eager_static.prefill > eager_dynamic.prefill + 2 * 4096 * 4608);
    // A sliding layer preallocates its window, not the prompt.
    let windowed = |cache| TransformerInput {
        arch: arch("gemma-3-1b"),
        ..input(cache, Attention::Flash)
    };
    assert!(
        kv_cache_per_sample(&windowed(CacheImpl::Static))
            < kv_cache_per_sample(&windowed(CacheImpl::Dynamic))
    );
}

/// `cache_implementation=legacy` (docs/model.md §3.4, "The tuple cache"):
/// Llama 2 13B in FP16, one sample of 512 prompt tokens generating 512, as
/// huggingface/optimum's GPTQ benchmark ran it under transformers 4.35.
/// Per token 40 layers × 2 × 5,120 × 2 bytes = 819,200 B. At the end of
/// generation the previous step's whole cache, 1,023 positions, is alive
/// beside the new one: 838,041,600 B, where the default cache copies one
/// layer's keys, 5,120 × 1,023 × 2 = 10,475,520 B. The prefill, which has
/// no previous cache, is the same.
#[test]
fn a_tuple_cache_keeps_the_previous_step_s_whole_cache() {
    let input = |cache: CacheImpl| TransformerInput {
        arch: arch("llama-2-13b"),
        mode: Mode::Inference,
        seq: 512,
        generated: 512,
        recipe: Recipe::Bf16,
        batch: 1,
        cache,
        ..TransformerInput::default()
    };
    let dynamic = InferenceMoments::of(&input(CacheImpl::Dynamic));
    let tuples = InferenceMoments::of(&input(CacheImpl::Legacy));
    assert_eq!(dynamic.cache, 819_200 * 1024);
    assert_eq!(
        (tuples.prefill_cache, tuples.prefill, tuples.cache),
        (dynamic.prefill_cache, dynamic.prefill, dynamic.cache)
    );
    assert_eq!(
        tuples.decode - dynamic.decode,
        819_200 * 1023 - 5120 * 1023 * 2
    );
    assert_eq!(tuples.decode - dynamic.decode, 827_566_080);
    assert!(!tuples.prefill_peaks());
}

/// `logits_to_keep=0` (docs/model.md §3.4, "The prefill's logits"): Llama
/// 3.1 8B in BF16, one 32,768-token prompt. Every position's logits in
/// BF16, 32,768 × 128,256 × 2 = 8,405,385,216 B, beside the residual stream
/// and its normed copy (2 × 32,768 × 4,096 × 2 = 536,870,912 B) and the last
/// position's FP32 copy (4 × 128,256 = 513,024 B): 8,942,769,152 B, far
/// above the block's working set. The default, the last position only,
/// leaves the prefill as it was; 64 positions keep 64 rows.
#[test]
fn the_prefills_kept_logits_are_counted() {
    let input = |logits_to_keep: u64| TransformerInput {
        arch: arch("llama-3.1-8b"),
        mode: Mode::Inference,
        seq: 32_768,
        generated: 16,
        recipe: Recipe::Bf16,
        batch: 1,
        logits_to_keep,
        ..TransformerInput::default()
    };
    let all = InferenceMoments::of(&input(0));
    assert_eq!(all.prefill, 8_942_769_152);
    let last = InferenceMoments::of(&input(1));
    assert!(last.prefill < all.prefill);
    assert_eq!((last.decode, last.cache), (all.decode, all.cache));
    let some = InferenceMoments::of(&input(64));
    assert_eq!(
        some.prefill,
        last.prefill.max(536_870_912 + 64 * 128_256 * 2 + 513_024)
    );
}
