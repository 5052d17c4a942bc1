//! Inference (docs/model.md §3.4): the prefill's activations and the KV cache.

use super::input::TransformerInput;
use super::options::{Attention, CacheImpl, Kind, KvDtype, KvLayout, LinearMixer, Mlp, Mode};
use crate::arith::div_ceil;

/// Inference holds no activations between layers: the prefill's working set
/// is the largest block's temporaries over the prompt, with the last
/// position's logits.
pub(super) fn prefill_activations(input: &TransformerInput) -> u128 {
    let s = u128::from(input.tokens());
    working_set(input, s, s).max(kept_logits(input, s))
}

/// The moment after the last block when the prefill's logits exist, per
/// sample, where more positions than the last one keep them
/// (`logits_to_keep`, 0 = all): the residual stream and its normed copy,
/// the kept positions' logits in the model's dtype (transformers'
/// `LlamaForCausalLM.forward` since 4.45, PR #31292: `self.lm_head(
/// hidden_states[:, slice_indices, :])`, no FP32 upcast without labels) and
/// the last position's FP32 copy `generate()` samples from. 0 where the
/// prefill keeps the last position only ([`working_set`] counts it).
fn kept_logits(input: &TransformerInput, s: u128) -> u128 {
    let positions = match input.logits_to_keep {
        1 => return 0,
        0 => s,
        k => u128::from(k).min(s),
    };
    let arch = &input.arch;
    if arch.kind != Kind::Decoder {
        return 0;
    }
    let e = input.activation_bytes();
    let stream = 2 * s * e * u128::from(arch.hidden);
    stream
        + div_ceil(positions * u128::from(arch.vocab) * e, u128::from(input.tp))
        + last_logits(input)
}

/// One forward pass's largest block under no_grad, per sample and GPU, over
/// `s` new tokens that attend to `context` positions: the residual stream
/// and its normed copy, the larger of the attention's and the MLP's
/// temporaries, and the last position's FP32 logits.
fn working_set(input: &TransformerInput, s: u128, context: u128) -> u128 {
    let arch = &input.arch;
    let e = input.activation_bytes();
    let t = u128::from(input.tp);
    let h = u128::from(arch.hidden);
    let a = u128::from(arch.heads);
    let widths = arch.attention_widths();
    // The residual stream and its normed copy.
    let stream = 2 * s * e * h;
    // Q, K, V and the attention output; eager attention adds the scores and
    // their softmax, one row per new token and a column per position
    // attended to: both in the compute dtype, or, in Hugging Face's eager
    // attention, the 16-bit scores, the FP32 softmax the kernel writes from
    // them (`softmax(…, dtype=torch.float32)`: aten/src/ATen/native/
    // SoftMax.cpp `softmax` runs `_softmax(input, dim, half_to_float=true)`
    // on FP16 CUDA input, no FP32 copy of it; a BF16 input is converted
    // first, 4 bytes more per score, not counted) and its
    // `.to(query.dtype)` copy: the 16-bit scores are still bound to
    // `attn_weights` until that line's assignment (`attn_weights =
    // softmax(attn_weights, …).to(query.dtype)` in
    // `eager_attention_forward`), so all three are alive as the copy is
    // written ([`TransformerInput::fp32_softmax`]).
    // (Gemma 2's soft-capping adds its tanh output.)
    let per_score = if input.fp32_softmax() {
        2 * e + 4
    } else {
        2 * e
    };
    let scores = match input.kernel() {
        Attention::Eager => (per_score + u128::from(arch.attn_softcap) * e) * a * s * context,
        Attention::Flash => 0,
    };
    let attention = s * e * (widths.q + widths.k + widths.v + widths.output) + scores;
    // GELU: up projection and its activation; gated: gate, up and product.
    let ffn = |width: u64| {
        let width = u128::from(width);
        match arch.mlp {
            Mlp::Gelu => 2 * s * e * width,
            // `gelu_new` under no_grad: x, `0.5 * x`, and `torch.pow(x, 3.0)`
            // with its product by 0.044715 (both alive until the product
            // returns): four tensors of the width at once.
            Mlp::GeluNew => 4 * s * e * width,
            Mlp::Swiglu => 3 * s * e * width,
        }
    };
    let dense = if arch.dense_layers() > 0 {
        ffn(arch.ffn)
    } else {
        0
    };
    // A MoE layer at once (a grouped GEMM; Hugging Face's loop over the
    // experts holds one expert's share of this at a time): the router's FP32
    // probabilities, every routed copy's input, intermediates and output,
    // and the shared experts.
    let moe = if arch.moe_layers() > 0 {
        let k = u128::from(arch.routed_per_token());
        4 * s * u128::from(arch.experts)
            + k * (2 * s * e * h + ffn(arch.expert_width()))
            + ffn(arch.shared_width())
    } else {
        0
    };
    let mlp = dense.max(moe);
    let attention = if arch.attention_layers() > 0 {
        attention
    } else {
        0
    };
    // Generation needs the logits of the last position only, in FP32.
    stream + div_ceil(attention.max(mlp).max(linear_working(input, s)), t) + last_logits(input)
}

/// A linear layer's temporaries under no_grad over `s` tokens, per sample
/// (0 without linear layers): its input projections' outputs, the
/// convolution's input (Q, K and V concatenated) and output, the mixer's
/// output, and the chunked kernel's per-chunk states: Gated DeltaNet's
/// `chunk_gated_delta_rule` keeps one key-by-value state per head every 64
/// tokens in the compute dtype (flash-linear-attention
/// fla/ops/common/chunk_delta_h.py, `h = k.new_empty(B, NT, H, K, V)`),
/// Mamba-2's `mamba_chunk_scan_combined` every 256 tokens in FP32
/// (mamba_ssm/ops/triton/ssd_combined.py, `states_in_fp32`).
fn linear_working(input: &TransformerInput, s: u128) -> u128 {
    let arch = &input.arch;
    if arch.linear_layers() == 0 {
        return 0;
    }
    let e = input.activation_bytes();
    let w = arch.linear_widths();
    let (projected, chunk, state_bytes) = match arch.linear_mixer {
        LinearMixer::Mamba2 => (2 * w.values + 2 * w.keys + w.heads, 256, 4),
        LinearMixer::GatedDeltanet | LinearMixer::None => {
            (2 * w.keys + 2 * w.values + 2 * w.heads, 64, e)
        }
    };
    s * e * (projected + 2 * w.channels() + w.values) + div_ceil(s, chunk) * w.state() * state_bytes
}

/// The linear layers' state of one sequence on one GPU ([`LinearWidths`]):
/// per linear layer, the convolution's last inputs (`conv_columns` of every
/// channel, in `conv_bytes`) and the recurrent state (in `state_bytes`),
/// their heads split by tensor parallelism. 0 without linear layers.
///
/// [`LinearWidths`]: super::architecture::LinearWidths
pub fn linear_state(
    input: &TransformerInput,
    conv_columns: u128,
    conv_bytes: u128,
    state_bytes: u128,
) -> u128 {
    let arch = &input.arch;
    let w = arch.linear_widths();
    let t = u128::from(input.tp);
    u128::from(arch.linear_layers())
        * (div_ceil(w.channels(), t) * conv_columns * conv_bytes
            + div_ceil(w.state(), t) * state_bytes)
}

/// `generate()`'s linear state per sample: transformers' hybrid caches keep
/// the convolution's whole window (`conv_kernel_size` columns:
/// modeling_qwen3_next.py `Qwen3NextDynamicCache`, `F.pad(mixed_qkv,
/// (conv_kernel_size - seq_len, 0))`) in the model's dtype, and Gated
/// DeltaNet's recurrent state in FP32 (the kernel's final state,
/// `output_final_state`), Mamba-2's in the model's dtype
/// (modeling_granitemoehybrid.py `HybridMambaAttentionDynamicCache`).
fn generate_linear_state(input: &TransformerInput) -> u128 {
    let e = input.activation_bytes();
    let state_bytes = match input.arch.linear_mixer {
        LinearMixer::GatedDeltanet => 4,
        LinearMixer::Mamba2 | LinearMixer::None => e,
    };
    linear_state(
        input,
        u128::from(input.arch.linear_conv_kernel_dim),
        e,
        state_bytes,
    )
}

/// The KV cache of one token over every layer on one GPU, as a serving
/// engine's pool stores it: one block's page per layer holds `block_size`
/// tokens of K and V (vllm/v1/kv_cache_interface.py `AttentionSpec.
/// page_size_bytes`: `2 * block_size * num_kv_heads * head_size *
/// dtype_size`; `MLAAttentionSpec`: the latent once, no factor 2). The
/// engine's FP8 cache keeps one byte per value; its per-layer scales are
/// left out. How many tokens a windowed layer keeps is the plan's
/// (`serving::KvGroups`).
pub fn kv_bytes_per_token(input: &TransformerInput) -> u128 {
    if input.arch.kind != Kind::Decoder {
        return 0;
    }
    let (per_token, _) = kv_shape(input);
    let values = per_token * u128::from(input.arch.attention_layers());
    match input.kv_dtype {
        KvDtype::Bf16 => values * input.activation_bytes(),
        KvDtype::Fp8 | KvDtype::Int8 => values,
        KvDtype::Int4 => div_ceil(values, 2),
    }
}

/// A serving engine's forward pass over `tokens` tokens of a step, on one
/// GPU, under no_grad: the flattened batch's largest block with paged
/// attention, which keeps no score matrix (vllm/v1/worker/gpu_model_runner.py
/// `_dummy_run`: one `[tokens, hidden]` batch). No logits: the engine
/// computes them apart, for the requests' last tokens ([`engine_sampler`]).
pub fn engine_forward(input: &TransformerInput, tokens: u64) -> u128 {
    let flash = TransformerInput {
        attention: Attention::Flash,
        ..*input
    };
    let s = u128::from(tokens);
    working_set(&flash, s, s) - last_logits(input)
}

/// What sampling `requests` next tokens holds on one GPU, with the step's
/// hidden states alive (vllm/v1/worker/gpu_model_runner.py `profile_run`
/// keeps `hidden_states` while `_dummy_sampler_run` samples from
/// `last_hidden_states`, a gathered copy, and from its `torch.rand_like`
/// copy: tokens + 2 × requests rows of the hidden size). Its peak is inside
/// the PyTorch sampler's sort (vllm/v1/sample/ops/topk_topp_sampler.py
/// `apply_top_k_top_p`, `logits.sort(dim=-1)`): per request and vocabulary
/// entry, the logits in the model's dtype (`compute_logits`, gathered whole
/// on every rank), their FP32 copy (vllm/v1/sample/sampler.py; none for an
/// FP32 model), the sorted FP32 values and their int64 indices, and the
/// sort's own buffers (PyTorch aten/src/ATen/native/cuda/SortStable.cu):
/// for one request or 128 and more, `segmented_sort_pairs`' int64 reverse
/// indices and CUB's alternate keys and values, 8 + 4 + 8 = 20 bytes; for 2
/// to 127 requests, `segmented_sort_pairs_by_full_sort`'s two 8-byte pair
/// buffers, its 4-byte keys and CUB's 12 bytes, 32. A 16-bit model's 1,024
/// requests: 2 + 4 + 4 + 8 + 20 = 38 bytes (vllm-project/vllm issue #15105:
/// the sort asked for 12 × 1,024 × 152,064 bytes, CUB's part, at its
/// sampler warm-up). FlashInfer's sampler (`flashinfer_sampler`: vLLM
/// 0.10 and 0.11 chose it wherever it was installed, as in their Docker
/// image, and logged "Using FlashInfer for top-p & top-k sampling") sorts
/// nothing: `top_k_top_p_sampling_from_logits` holds the masked FP32 logits
/// and their FP32 softmax beside the two copies (flashinfer
/// python/flashinfer/sampling.py, 0.2.11: `top_k_mask_logits`,
/// `torch.softmax`): 2 + 4 + 4 + 4 = 14 bytes.
pub fn engine_sampler(input: &TransformerInput, tokens: u64, requests: u64) -> u128 {
    let arch = &input.arch;
    let e = input.activation_bytes();
    let h = u128::from(arch.hidden);
    let rows = u128::from(requests);
    let hidden = (u128::from(tokens) + 2 * rows) * h * e;
    let fp32_copy = if e == 4 { 0 } else { 4 };
    let sampling = match (input.engine.flashinfer_sampler, rows) {
        (true, _) => 4 + 4,
        (false, 1 | 128..) => 4 + 8 + 20,
        (false, _) => 4 + 8 + 32,
    };
    let logits = match arch.kind {
        Kind::Decoder => (e + fp32_copy + sampling) * rows * u128::from(arch.vocab),
        Kind::Encoder | Kind::Vision => 0,
    };
    hidden + logits
}

/// The last position's FP32 logits [`working_set`] counts, on one GPU.
fn last_logits(input: &TransformerInput) -> u128 {
    match input.arch.kind {
        Kind::Decoder => div_ceil(4 * u128::from(input.arch.vocab), u128::from(input.tp)),
        Kind::Encoder | Kind::Vision => 0,
    }
}

/// Inference's two moments, per sample and GPU (docs/model.md §3.4).
/// `generate()` runs the prompt through the model under no_grad, which
/// keeps no activation once a block returns, then one token at a time:
///
/// - the prefill: the prompt's cache, and the prefill's working set
///   ([`prefill_activations`]);
/// - the end of generation: the whole cache, and one decoding step's
///   working set: one token's block attending to every position, the last
///   logits, a quantized cache's 16-bit copies of the layer that attends
///   ([`kv_dequantized_per_sample`]), and the growth of the default cache
///   by concatenation. transformers cache_utils.py `DynamicLayer.update`:
///   `self.keys = torch.cat([self.keys, key_states], dim=-2)`, then the
///   same for the values: the new tensor is allocated while the old one is
///   referenced, so one layer's keys (or values) exist twice for a moment.
///
/// Without generated tokens only the prefill is a moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InferenceMoments {
    pub prefill_cache: u128,
    pub prefill: u128,
    pub cache: u128,
    pub decode: u128,
}

impl InferenceMoments {
    pub fn of(input: &TransformerInput) -> Self {
        if input.mode != Mode::Inference {
            return Self::default();
        }
        let prompt = TransformerInput {
            generated: 0,
            ..*input
        };
        if static_cache(input) {
            // The whole generation's cache, allocated layer by layer in the
            // prefill; the prefill attends over all of it, masked; no copy
            // when a token is written in place.
            let (s, tokens) = (u128::from(input.seq), kv_shape(input).1);
            let cache = kv_cache_per_sample(input);
            return Self {
                prefill_cache: cache,
                prefill: (working_set(input, s, tokens) + static_mask(input, s, tokens))
                    .max(kept_logits(input, s)),
                cache,
                decode: working_set(input, 1, tokens) + static_mask(input, 1, tokens),
            };
        }
        let (prefill_cache, prefill) = (kv_cache_per_sample(&prompt), prefill_activations(input));
        if input.generated == 0 || input.arch.kind != Kind::Decoder {
            return Self {
                prefill_cache,
                prefill,
                cache: prefill_cache,
                decode: 0,
            };
        }
        let (_, tokens) = kv_shape(input);
        let concatenated = match input.kv_dtype {
            // The engines that store the latent preallocate their pool.
            KvDtype::Bf16 if latent(input) => 0,
            // The tuple cache: the previous step's whole cache, every
            // layer's keys and values, beside the new one.
            // (One generated token is the prefill's: no step follows it.)
            KvDtype::Bf16 if input.cache == CacheImpl::Legacy && input.generated < 2 => 0,
            KvDtype::Bf16 if input.cache == CacheImpl::Legacy => {
                let previous = TransformerInput {
                    generated: input.generated - 1,
                    ..*input
                };
                kv_cache_per_sample(&previous) - generate_linear_state(&previous)
            }
            // The cache's largest layer, keys or values, for the positions
            // before the last token: a sliding layer holds fewer.
            KvDtype::Bf16 => {
                let arch = &input.arch;
                let widths = arch.attention_widths();
                let largest = div_ceil(widths.k.max(widths.v), u128::from(input.tp));
                let positions = if arch.windowed_layers() < arch.layers {
                    tokens
                } else {
                    tokens.min(u128::from(input.seq).max(u128::from(arch.window)))
                };
                largest * (positions - 1) * input.activation_bytes()
            }
            // The quantized caches keep their recent tokens in a residual
            // (at most 128) and requantize; the FP8 cache is preallocated.
            KvDtype::Fp8 | KvDtype::Int8 | KvDtype::Int4 => 0,
        };
        Self {
            prefill_cache,
            prefill,
            cache: kv_cache_per_sample(input),
            decode: working_set(input, 1, tokens) + kv_dequantized_per_sample(input) + concatenated,
        }
    }

    /// Whether the prefill sets the peak; on a tie it does, being first.
    pub fn prefill_peaks(&self) -> bool {
        self.prefill_cache + self.prefill >= self.cache + self.decode
    }

    /// The (cache, activations) alive at the peak, per sample.
    pub fn at_peak(&self) -> (u128, u128) {
        if self.prefill_peaks() {
            (self.prefill_cache, self.prefill)
        } else {
            (self.cache, self.decode)
        }
    }
}

/// `generate()` with `cache_implementation="static"`, as batchfit states it:
/// a decoder's 16-bit cache (the quantized caches are classes of their own).
fn static_cache(input: &TransformerInput) -> bool {
    input.cache == CacheImpl::Static
        && input.arch.kind == Kind::Decoder
        && input.kv_dtype == KvDtype::Bf16
}

/// The attention mask over a static cache, per sample: `s` new tokens by
/// every preallocated position. transformers masking_utils.py (4.53 on):
/// `sdpa_mask` skips the mask only where the query is one token or as long
/// as the keys (`_ignore_causal_mask_sdpa`), which a static cache's
/// `max_cache_len` keys never are in the prefill; it builds a boolean
/// `[batch, 1, s, keys]` tensor, one byte each, and eager attention's
/// `eager_mask` turns it into an additive one in the model's dtype.
fn static_mask(input: &TransformerInput, s: u128, keys: u128) -> u128 {
    match input.kernel() {
        Attention::Flash if s == 1 => 0,
        Attention::Flash => s * keys,
        Attention::Eager => s * keys * input.activation_bytes(),
    }
}

/// Tokens the quantized cache of [`KvDtype::Int4`] keeps in the compute dtype
/// at most: transformers' `QuantizedLayer` quantizes its recent tokens once
/// `residual_length` (128 by default) would be reached.
const KV_RESIDUAL: u128 = 127;

/// K and V elements per token of one layer on one GPU, and the tokens cached.
fn kv_shape(input: &TransformerInput) -> (u128, u128) {
    let tokens = u128::from(input.seq) + u128::from(input.generated);
    if latent(input) {
        // The latent and the rotary key, one "head" on every rank.
        let arch = &input.arch;
        return (
            u128::from(arch.kv_lora_rank + arch.qk_rope_head_dim),
            tokens,
        );
    }
    // K and V per layer and token (transformers' DeepseekV3Attention caches
    // the decompressed keys and values: `past_key_value.update(key_states,
    // value_states, …)` after kv_b_proj); tensor parallelism splits the
    // heads over the ranks.
    let widths = input.arch.attention_widths();
    let per_token = div_ceil(widths.k + widths.v, u128::from(input.tp));
    (per_token, tokens)
}

/// A latent-attention model's cache as the serving engines store it
/// ([`KvLayout::Latent`]).
fn latent(input: &TransformerInput) -> bool {
    input.arch.mla() && input.kv_layout == KvLayout::Latent
}

/// KV cache per sample per GPU: 2 (K and V) × layers × kv_heads × head_dim ×
/// (prompt + generated tokens) × bytes (Pope et al. 2022, "Efficiently Scaling
/// Transformer Inference", §2), in the format of `kv_dtype` with its scales,
/// over the layers that attend; a hybrid model's linear layers keep their
/// state instead ([`generate_linear_state`]). Only decoders generate.
///
/// A layer attending through a sliding window keeps fewer positions, as the
/// cache `generate()` builds by default holds them: transformers
/// generation/utils.py `_prepare_cache_for_generation` makes a
/// `DynamicCache(config=…)`, which gives each sliding layer a
/// `DynamicSlidingWindowLayer` (cache_utils.py). Its `update` concatenates the
/// cached and the new states and keeps `full_key_states[:, :,
/// -self.sliding_window + 1 :, :]`, a view that holds the whole concatenation
/// alive: after the prefill the prompt's states (all of them), and from the
/// first generated token on at most `window` positions. The peak per windowed
/// layer is min(prompt + generated, max(prompt, window)) positions. (The
/// `HybridCache` of transformers 4.42–4.55, and `cache_implementation=
/// "static"`, preallocate min(window, max length) instead.) The quantized
/// caches batchfit names for int8 and int4 (torchao's static cache,
/// transformers' `QuantizedCache`, whose every layer is a `QuantizedLayer`)
/// keep every position of every layer.
pub fn kv_cache_per_sample(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Inference || input.arch.kind != Kind::Decoder {
        return 0;
    }
    let arch = &input.arch;
    let (per_token, tokens) = kv_shape(input);
    let layers = u128::from(arch.attention_layers());
    let e = input.activation_bytes();
    let windowed = u128::from(arch.windowed_layers());
    let prompt = u128::from(input.seq);
    // A static cache's sliding layer preallocates the window
    // (`StaticSlidingWindowLayer`); the default one holds the prompt first.
    let window_positions = match input.cache {
        CacheImpl::Static if static_cache(input) => tokens.min(u128::from(arch.window)),
        CacheImpl::Static | CacheImpl::Dynamic | CacheImpl::Legacy => {
            tokens.min(prompt.max(u128::from(arch.window)))
        }
    };
    // Positions held over all layers.
    let positions = (layers - windowed) * tokens + windowed * window_positions;
    generate_linear_state(input)
        + match input.kv_dtype {
            KvDtype::Bf16 => per_token * positions * e,
            KvDtype::Fp8 => per_token * positions,
            // One 16-bit scale per token and cached head, for K and for V.
            KvDtype::Int8 => {
                let scales = if latent(input) {
                    // One scale per token for the one latent "head", on every rank.
                    2
                } else {
                    let heads = if arch.mla() {
                        arch.heads
                    } else {
                        arch.kv_heads
                    };
                    div_ceil(2 * u128::from(heads), u128::from(input.tp))
                };
                layers * tokens * (per_token + 2 * scales)
            }
            KvDtype::Int4 => {
                let recent = KV_RESIDUAL.min(u128::from(input.generated));
                let quantized = layers * per_token * (tokens - recent);
                // 4 bits each, and a 16-bit scale and zero point per 64.
                div_ceil(quantized, 2)
                    + 4 * div_ceil(quantized, 64)
                    + layers * per_token * recent * e
            }
        }
}

/// The 16-bit copies of one layer's cache that a quantized cache makes when
/// that layer attends ([`KvDtype`]): per sample per GPU, 0 for an unquantized
/// or FP8 cache.
pub fn kv_dequantized_per_sample(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Inference || input.arch.kind != Kind::Decoder {
        return 0;
    }
    let (per_token, tokens) = kv_shape(input);
    let copies = match input.kv_dtype {
        KvDtype::Bf16 | KvDtype::Fp8 => 0,
        KvDtype::Int8 => 1,
        KvDtype::Int4 => 2,
    };
    copies * per_token * tokens * input.activation_bytes()
}
