//! Published model configurations and device capacities, each with its source.
//! Ids are URL values (`model=llama-3.1-8b`, `gpu=h100-80gb`) and never change.

use crate::transformer::{
    self as tf, Architecture, Block, FusedProj, Kind, LinearMixer, Mlp, Norm,
};

/// A published model: its architecture as its config.json gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModelPreset {
    pub id: &'static str,
    pub name: &'static str,
    /// The parameter count as its authors publish it.
    pub published: &'static str,
    /// A mixture-of-experts model's active parameters as its authors publish
    /// them ("" for a dense model, or where none is published).
    pub published_active: &'static str,
    pub arch: Architecture,
    /// Where the configuration was read. Not in the page's WebAssembly, which
    /// shows no sources (1.2 KB gzipped of URLs; docs/performance-log.md).
    #[cfg(not(target_arch = "wasm32"))]
    pub source: &'static str,
}

/// A device: its memory as the driver reports it (nvidia-smi "Total", or the
/// installed memory for unified-memory machines and CPUs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DevicePreset {
    pub id: &'static str,
    pub name: &'static str,
    pub kind: DeviceKind,
    pub bytes: u128,
    /// An NVIDIA card's compute capability (major, minor), which decides the
    /// number formats its tensor cores run (NVIDIA, "CUDA GPUs – Compute
    /// Capability", developer.nvidia.com/cuda-gpus); `None` for AMD, Apple
    /// silicon and CPUs.
    pub capability: Option<(u8, u8)>,
    /// The total CUDA reports for an NVIDIA card (`cudaMemGetInfo`, PyTorch's
    /// `mem_get_info()` and `total_memory`), in MiB: nvidia-smi's less what
    /// the driver keeps, and all a process can allocate (docs/model.md
    /// §3.12); 0 where none is published.
    pub cuda_mib: u32,
    /// How the memory figure was read (not in the page's WebAssembly).
    #[cfg(not(target_arch = "wasm32"))]
    pub source: &'static str,
}

impl DevicePreset {
    /// What a process can allocate: the total CUDA reports
    /// ([`Self::cuda_mib`]) where one is published, else [`Self::bytes`].
    pub const fn usable_bytes(&self) -> u128 {
        if self.cuda_mib > 0 {
            self.cuda_mib as u128 * MIB
        } else {
            self.bytes
        }
    }
}

/// What a device preset is: a card, whose name is a product's, or memory
/// described by its size (named per language on the page).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    Gpu,
    /// Apple silicon's unified memory, shared by the CPU and the GPU.
    Unified,
    /// A CPU's RAM.
    Cpu,
}

const MIB: u128 = 1 << 20;
const GIB: u128 = 1 << 30;

const BASE: Architecture = Architecture {
    kind: Kind::Decoder,
    layers: 32,
    hidden: 4096,
    heads: 32,
    kv_heads: 32,
    head_dim: 0,
    ffn: 11_008,
    mlp: Mlp::Swiglu,
    norm: Norm::RmsNorm,
    vocab: 32_000,
    tied: false,
    bias: false,
    qkv_bias: false,
    qk_norm: false,
    qk_norm_full: false,
    attn_sinks: false,
    positions: 0,
    token_types: 0,
    labels: 0,
    dropout: false,
    image: 224,
    patch: 16,
    channels: 3,
    block: Block::Pre,
    window: 0,
    global_every: 0,
    softcap: false,
    attn_softcap: false,
    experts: tf::EXPERTS.default,
    experts_active: tf::EXPERTS_ACTIVE.default,
    expert_ffn: tf::EXPERT_FFN.default,
    shared_experts: tf::SHARED_EXPERTS.default,
    shared_ffn: tf::SHARED_FFN.default,
    first_dense_layers: tf::FIRST_DENSE_LAYERS.default,
    moe_every: tf::MOE_EVERY.default,
    kv_lora_rank: tf::KV_LORA_RANK.default,
    q_lora_rank: tf::Q_LORA_RANK.default,
    qk_rope_head_dim: tf::QK_ROPE_HEAD_DIM.default,
    qk_nope_head_dim: tf::QK_NOPE_HEAD_DIM.default,
    v_head_dim: tf::V_HEAD_DIM.default,
    fused_proj: FusedProj::None,
    linear_mixer: LinearMixer::None,
    full_attention_interval: tf::FULL_ATTENTION_INTERVAL.default,
    linear_num_key_heads: tf::LINEAR_NUM_KEY_HEADS.default,
    linear_key_head_dim: tf::LINEAR_KEY_HEAD_DIM.default,
    linear_num_value_heads: tf::LINEAR_NUM_VALUE_HEADS.default,
    linear_value_head_dim: tf::LINEAR_VALUE_HEAD_DIM.default,
    linear_conv_kernel_dim: tf::LINEAR_CONV_KERNEL_DIM.default,
    attn_output_gate: false,
};

/// GPT-2 (Radford et al. 2019): learned positions, LayerNorm, biases, tied,
/// dropout 0.1; transformers models/gpt2/modeling_gpt2.py computes Q, K and
/// V with one `c_attn` and its MLP's GELU is `activation_function`
/// "gelu_new" (GPT2Config's default, and every checkpoint's config.json).
const fn gpt2(layers: u64, hidden: u64, heads: u64) -> Architecture {
    Architecture {
        layers,
        hidden,
        heads,
        kv_heads: heads,
        ffn: 4 * hidden,
        mlp: Mlp::GeluNew,
        fused_proj: FusedProj::Qkv,
        norm: Norm::LayerNorm,
        vocab: 50_257,
        tied: true,
        bias: true,
        positions: 1024,
        dropout: true,
        ..BASE
    }
}

/// BERT (Devlin et al. 2019) as BertModel: encoder with pooler, no MLM head;
/// separate `query`, `key`, `value` and `hidden_act` "gelu"
/// (`nn.functional.gelu`), as ViT's.
const fn bert(layers: u64, hidden: u64, heads: u64) -> Architecture {
    Architecture {
        kind: Kind::Encoder,
        mlp: Mlp::Gelu,
        fused_proj: FusedProj::None,
        vocab: 30_522,
        positions: 512,
        token_types: 2,
        ..gpt2(layers, hidden, heads)
    }
}

/// ViT (Dosovitskiy et al. 2021) at 224 × 224 with 16 × 16 patches, backbone only;
/// the released configs set dropout to 0.
const fn vit(layers: u64, hidden: u64, heads: u64) -> Architecture {
    Architecture {
        kind: Kind::Vision,
        vocab: 1,
        positions: 0,
        dropout: false,
        tied: false,
        mlp: Mlp::Gelu,
        fused_proj: FusedProj::None,
        ..gpt2(layers, hidden, heads)
    }
}

/// Llama-style decoder: RMSNorm, SwiGLU, rotary, no biases.
const fn llama(
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    ffn: u64,
    vocab: u64,
) -> Architecture {
    Architecture {
        layers,
        hidden,
        heads,
        kv_heads,
        ffn,
        vocab,
        ..BASE
    }
}

/// Qwen2.5: Llama-style with biases on Q, K and V.
const fn qwen(
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    ffn: u64,
    vocab: u64,
    tied: bool,
) -> Architecture {
    Architecture {
        qkv_bias: true,
        tied,
        ..llama(layers, hidden, heads, kv_heads, ffn, vocab)
    }
}

/// Qwen3 dense (transformers models/qwen3/modeling_qwen3.py): Llama-style
/// without Q/K/V biases, with per-head QK-norm and head_dim 128.
const fn qwen3(
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    ffn: u64,
    tied: bool,
) -> Architecture {
    Architecture {
        head_dim: 128,
        tied,
        qk_norm: true,
        ..llama(layers, hidden, heads, kv_heads, ffn, 151_936)
    }
}

/// Gemma 2 (transformers models/gemma2/modeling_gemma2.py): GeGLU (a gated
/// MLP with tanh-GELU), four norms per layer with the weight applied in FP32,
/// tied head, layers alternating a 4,096-token window and global attention
/// (the first windowed), tanh soft-capping of the scores (50) and logits (30).
const fn gemma2(
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    ffn: u64,
) -> Architecture {
    Architecture {
        head_dim,
        tied: true,
        norm: Norm::RmsNormFp32,
        block: Block::Sandwich,
        window: 4096,
        global_every: 2,
        softcap: true,
        attn_softcap: true,
        ..llama(layers, hidden, heads, kv_heads, ffn, 256_000)
    }
}

/// Gemma 3's text model (transformers models/gemma3/modeling_gemma3.py
/// `Gemma3ForCausalLM`): Gemma 2's block without soft-capping, with per-head
/// QK-norm, five windowed layers per global one (`sliding_window_pattern` 6)
/// of 1,024 tokens, a vocabulary of 262,208.
const fn gemma3(
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: u64,
    head_dim: u64,
    ffn: u64,
) -> Architecture {
    Architecture {
        qk_norm: true,
        vocab: 262_208,
        window: 1024,
        global_every: 6,
        softcap: false,
        attn_softcap: false,
        ..gemma2(layers, hidden, heads, kv_heads, head_dim, ffn)
    }
}

/// OLMo 2 (transformers models/olmo2/modeling_olmo2.py): norms on the block
/// outputs only, QK-norm over the whole projections, the weight applied in FP32.
const fn olmo2(layers: u64, hidden: u64, heads: u64, ffn: u64) -> Architecture {
    Architecture {
        norm: Norm::RmsNormFp32,
        block: Block::Post,
        qk_norm: true,
        qk_norm_full: true,
        ..llama(layers, hidden, heads, heads, ffn, 100_352)
    }
}

const fn entry(
    id: &'static str,
    name: &'static str,
    published: &'static str,
    arch: Architecture,
    source: &'static str,
) -> ModelPreset {
    #[cfg(target_arch = "wasm32")]
    let _ = source;
    ModelPreset {
        id,
        name,
        published,
        published_active: "",
        arch,
        #[cfg(not(target_arch = "wasm32"))]
        source,
    }
}

/// A mixture-of-experts preset: total and active counts as published.
const fn moe_entry(
    id: &'static str,
    name: &'static str,
    (published, published_active): (&'static str, &'static str),
    arch: Architecture,
    source: &'static str,
) -> ModelPreset {
    ModelPreset {
        published_active,
        ..entry(id, name, published, arch, source)
    }
}

/// A Llama-style decoder whose FFNs are routed experts: `experts` of size
/// `expert_ffn`, `top_k` per token, in every layer.
const fn moe(dense: Architecture, experts: u64, top_k: u64, expert_ffn: u64) -> Architecture {
    Architecture {
        experts,
        experts_active: top_k,
        expert_ffn,
        ..dense
    }
}

/// Qwen3-MoE (transformers models/qwen3_moe): Llama-style with QK-norm per
/// head, no biases, explicit head_dim 128, untied.
const fn qwen3_moe(
    layers: u64,
    hidden: u64,
    heads: u64,
    ffn: u64,
    expert_ffn: u64,
) -> Architecture {
    Architecture {
        head_dim: 128,
        qk_norm: true,
        ..moe(
            llama(layers, hidden, heads, 4, ffn, 151_936),
            128,
            8,
            expert_ffn,
        )
    }
}

/// gpt-oss (transformers models/gpt_oss/modeling_gpt_oss.py): biases on the
/// attention projections, the experts and the router, attention sinks, 64
/// heads of 64, 8 KV heads, every expert of size 2,880, top-4, untied. Its
/// alternating sliding-window layers are counted as full attention.
const fn gpt_oss(layers: u64, experts: u64) -> Architecture {
    Architecture {
        head_dim: 64,
        bias: true,
        attn_sinks: true,
        // configuration_gpt_oss.py: `sliding_window=128` and `layer_types`
        // alternating sliding and full attention, the first sliding.
        window: 128,
        global_every: 2,
        ..moe(llama(layers, 2880, 64, 8, 2880, 201_088), experts, 4, 0)
    }
}

pub const MODELS: &[ModelPreset] = &[
    entry(
        "gpt2",
        "GPT-2 small",
        "124M",
        gpt2(12, 768, 12),
        "huggingface.co/openai-community/gpt2/blob/main/config.json",
    ),
    entry(
        "gpt2-medium",
        "GPT-2 medium",
        "355M",
        gpt2(24, 1024, 16),
        "huggingface.co/openai-community/gpt2-medium/blob/main/config.json",
    ),
    entry(
        "gpt2-large",
        "GPT-2 large",
        "774M",
        gpt2(36, 1280, 20),
        "huggingface.co/openai-community/gpt2-large/blob/main/config.json",
    ),
    entry(
        "gpt2-xl",
        "GPT-2 XL",
        "1.56B",
        gpt2(48, 1600, 25),
        "huggingface.co/openai-community/gpt2-xl/blob/main/config.json",
    ),
    entry(
        "bert-base",
        "BERT base",
        "110M",
        bert(12, 768, 12),
        "huggingface.co/google-bert/bert-base-uncased/blob/main/config.json",
    ),
    entry(
        "bert-large",
        "BERT large",
        "335M",
        bert(24, 1024, 16),
        "huggingface.co/google-bert/bert-large-uncased/blob/main/config.json",
    ),
    entry(
        "vit-b-16",
        "ViT-B/16",
        "86M",
        vit(12, 768, 12),
        "huggingface.co/google/vit-base-patch16-224/blob/main/config.json",
    ),
    entry(
        "vit-l-16",
        "ViT-L/16",
        "304M",
        vit(24, 1024, 16),
        "huggingface.co/google/vit-large-patch16-224/blob/main/config.json",
    ),
    entry(
        "llama-2-7b",
        "Llama 2 7B",
        "6.74B",
        llama(32, 4096, 32, 32, 11_008, 32_000),
        "huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json",
    ),
    entry(
        "llama-2-13b",
        "Llama 2 13B",
        "13.0B",
        llama(40, 5120, 40, 40, 13_824, 32_000),
        "huggingface.co/meta-llama/Llama-2-13b-hf/blob/main/config.json",
    ),
    entry(
        "llama-2-70b",
        "Llama 2 70B",
        "69.0B",
        llama(80, 8192, 64, 8, 28_672, 32_000),
        "huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json",
    ),
    entry(
        "llama-3.1-8b",
        "Llama 3.1 8B",
        "8.03B",
        llama(32, 4096, 32, 8, 14_336, 128_256),
        "huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json",
    ),
    entry(
        "llama-3.1-70b",
        "Llama 3.1 70B",
        "70.6B",
        llama(80, 8192, 64, 8, 28_672, 128_256),
        "huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json",
    ),
    entry(
        "llama-3.2-1b",
        "Llama 3.2 1B",
        "1.24B",
        Architecture {
            tied: true,
            ..llama(16, 2048, 32, 8, 8192, 128_256)
        },
        "huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json",
    ),
    entry(
        "llama-3.2-3b",
        "Llama 3.2 3B",
        "3.21B",
        Architecture {
            tied: true,
            ..llama(28, 3072, 24, 8, 8192, 128_256)
        },
        "huggingface.co/meta-llama/Llama-3.2-3B/blob/main/config.json",
    ),
    entry(
        "mistral-7b",
        "Mistral 7B v0.1",
        "7.24B",
        // `sliding_window: 4096` on every layer.
        Architecture {
            window: 4096,
            ..llama(32, 4096, 32, 8, 14_336, 32_000)
        },
        "huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json",
    ),
    entry(
        "qwen2.5-0.5b",
        "Qwen2.5 0.5B",
        "0.49B",
        qwen(24, 896, 14, 2, 4864, 151_936, true),
        "huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json",
    ),
    entry(
        "qwen2.5-1.5b",
        "Qwen2.5 1.5B",
        "1.54B",
        qwen(28, 1536, 12, 2, 8960, 151_936, true),
        "huggingface.co/Qwen/Qwen2.5-1.5B/blob/main/config.json",
    ),
    entry(
        "qwen2.5-3b",
        "Qwen2.5 3B",
        "3.09B",
        qwen(36, 2048, 16, 2, 11_008, 151_936, true),
        "huggingface.co/Qwen/Qwen2.5-3B/blob/main/config.json",
    ),
    entry(
        "qwen2.5-7b",
        "Qwen2.5 7B",
        "7.62B",
        qwen(28, 3584, 28, 4, 18_944, 152_064, false),
        "huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json",
    ),
    entry(
        "qwen2.5-14b",
        "Qwen2.5 14B",
        "14.7B",
        qwen(48, 5120, 40, 8, 13_824, 152_064, false),
        "huggingface.co/Qwen/Qwen2.5-14B/blob/main/config.json",
    ),
    entry(
        "qwen2.5-32b",
        "Qwen2.5 32B",
        "32.5B",
        qwen(64, 5120, 40, 8, 27_648, 152_064, false),
        "huggingface.co/Qwen/Qwen2.5-32B/blob/main/config.json",
    ),
    entry(
        "qwen2.5-72b",
        "Qwen2.5 72B",
        "72.7B",
        qwen(80, 8192, 64, 8, 29_568, 152_064, false),
        "huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json",
    ),
    entry(
        "gemma-2b",
        "Gemma 2B",
        "2.51B",
        Architecture {
            head_dim: 256,
            tied: true,
            norm: Norm::RmsNormFp32,
            ..llama(18, 2048, 8, 1, 16_384, 256_000)
        },
        "huggingface.co/google/gemma-2b/blob/main/config.json",
    ),
    entry(
        "gemma-7b",
        "Gemma 7B",
        "8.54B",
        Architecture {
            head_dim: 256,
            tied: true,
            norm: Norm::RmsNormFp32,
            ..llama(28, 3072, 16, 16, 24_576, 256_000)
        },
        "huggingface.co/google/gemma-7b/blob/main/config.json",
    ),
    entry(
        "phi-3-mini",
        "Phi-3 mini (4k)",
        "3.8B",
        // `sliding_window: 2047` on every layer; transformers
        // models/phi3/modeling_phi3.py: one `qkv_proj`, one `gate_up_proj`.
        Architecture {
            window: 2047,
            fused_proj: FusedProj::All,
            ..llama(32, 3072, 32, 32, 8192, 32_064)
        },
        "huggingface.co/microsoft/Phi-3-mini-4k-instruct/blob/main/config.json",
    ),
    entry(
        "llama-3.3-70b",
        "Llama 3.3 70B",
        "70.6B",
        llama(80, 8192, 64, 8, 28_672, 128_256),
        "huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json",
    ),
    entry(
        "qwen3-0.6b",
        "Qwen3 0.6B",
        "0.6B",
        qwen3(28, 1024, 16, 8, 3072, true),
        "huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json",
    ),
    entry(
        "qwen3-1.7b",
        "Qwen3 1.7B",
        "1.7B",
        qwen3(28, 2048, 16, 8, 6144, true),
        "huggingface.co/Qwen/Qwen3-1.7B/blob/main/config.json",
    ),
    entry(
        "qwen3-4b",
        "Qwen3 4B",
        "4.0B",
        qwen3(36, 2560, 32, 8, 9728, true),
        "huggingface.co/Qwen/Qwen3-4B/blob/main/config.json",
    ),
    entry(
        "qwen3-8b",
        "Qwen3 8B",
        "8.2B",
        qwen3(36, 4096, 32, 8, 12_288, false),
        "huggingface.co/Qwen/Qwen3-8B/blob/main/config.json",
    ),
    entry(
        "qwen3-14b",
        "Qwen3 14B",
        "14.8B",
        qwen3(40, 5120, 40, 8, 17_408, false),
        "huggingface.co/Qwen/Qwen3-14B/blob/main/config.json",
    ),
    entry(
        "qwen3-32b",
        "Qwen3 32B",
        "32.8B",
        qwen3(64, 5120, 64, 8, 25_600, false),
        "huggingface.co/Qwen/Qwen3-32B/blob/main/config.json",
    ),
    entry(
        "gemma-2-2b",
        "Gemma 2 2B",
        "2.61B",
        gemma2(26, 2304, 8, 4, 256, 9216),
        "huggingface.co/google/gemma-2-2b/blob/main/config.json",
    ),
    entry(
        "gemma-2-9b",
        "Gemma 2 9B",
        "9.24B",
        gemma2(42, 3584, 16, 8, 256, 14_336),
        "huggingface.co/google/gemma-2-9b/blob/main/config.json",
    ),
    entry(
        "gemma-2-27b",
        "Gemma 2 27B",
        "27.2B",
        gemma2(46, 4608, 32, 16, 128, 36_864),
        "huggingface.co/google/gemma-2-27b/blob/main/config.json",
    ),
    entry(
        "gemma-3-1b",
        "Gemma 3 1B",
        "1.00B",
        // A vocabulary of 262,144 and a 512-token window.
        Architecture {
            vocab: 262_144,
            window: 512,
            ..gemma3(26, 1152, 4, 1, 256, 6912)
        },
        "huggingface.co/google/gemma-3-1b-pt/blob/main/config.json",
    ),
    // The 4B–27B checkpoints are multimodal (Gemma3ForConditionalGeneration):
    // these presets are their `text_config`; the SigLIP vision tower (about
    // 0.42B) and the projector are not counted.
    entry(
        "gemma-3-4b",
        "Gemma 3 4B (text)",
        "3.88B",
        gemma3(34, 2560, 8, 4, 256, 10_240),
        "huggingface.co/google/gemma-3-4b-pt/blob/main/config.json (text_config)",
    ),
    entry(
        "gemma-3-12b",
        "Gemma 3 12B (text)",
        "11.8B",
        gemma3(48, 3840, 16, 8, 256, 15_360),
        "huggingface.co/google/gemma-3-12b-pt/blob/main/config.json (text_config)",
    ),
    entry(
        "gemma-3-27b",
        "Gemma 3 27B (text)",
        "27.0B",
        gemma3(62, 5376, 32, 16, 128, 21_504),
        "huggingface.co/google/gemma-3-27b-pt/blob/main/config.json (text_config)",
    ),
    entry(
        "phi-2",
        "Phi-2",
        "2.78B",
        // Phi-1/2 (transformers models/phi/modeling_phi.py): attention and a
        // GELU MLP in parallel on one LayerNorm, biases everywhere (the
        // untied head too), partial rotary (no parameters), resid_pdrop 0.1;
        // separate q_proj, k_proj, v_proj and `hidden_act` "gelu_new".
        Architecture {
            block: Block::Parallel,
            fused_proj: FusedProj::None,
            tied: false,
            vocab: 51_200,
            positions: 0,
            ..gpt2(32, 2560, 32)
        },
        "huggingface.co/microsoft/phi-2/blob/main/config.json",
    ),
    entry(
        "phi-4",
        "Phi-4",
        "14.7B",
        // `phi3` model type: fused qkv_proj and gate_up_proj, counted as the
        // separate maps they concatenate (and one autocast cast each).
        Architecture {
            fused_proj: FusedProj::All,
            ..llama(40, 5120, 40, 10, 17_920, 100_352)
        },
        "huggingface.co/microsoft/phi-4/blob/main/config.json",
    ),
    entry(
        "olmo-2-7b",
        "OLMo 2 7B",
        "7.30B",
        olmo2(32, 4096, 32, 11_008),
        "huggingface.co/allenai/OLMo-2-1124-7B/blob/main/config.json",
    ),
    entry(
        "olmo-2-13b",
        "OLMo 2 13B",
        "13.7B",
        olmo2(40, 5120, 40, 13_824),
        "huggingface.co/allenai/OLMo-2-1124-13B/blob/main/config.json",
    ),
    moe_entry(
        "mixtral-8x7b",
        "Mixtral 8x7B",
        ("46.7B", "12.9B"),
        moe(llama(32, 4096, 32, 8, 14_336, 32_000), 8, 2, 0),
        "huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json; \
         counts: mistral.ai/news/mixtral-of-experts",
    ),
    moe_entry(
        "mixtral-8x22b",
        "Mixtral 8x22B",
        ("141B", "39B"),
        moe(llama(56, 6144, 48, 8, 16_384, 32_000), 8, 2, 0),
        "huggingface.co/mistralai/Mixtral-8x22B-v0.1/blob/main/config.json; \
         counts: mistral.ai/news/mixtral-8x22b",
    ),
    moe_entry(
        "qwen3-30b-a3b",
        "Qwen3-30B-A3B",
        ("30.5B", "3.3B"),
        qwen3_moe(48, 2048, 32, 6144, 768),
        "huggingface.co/Qwen/Qwen3-30B-A3B/blob/main/config.json; counts: its model card",
    ),
    moe_entry(
        "qwen3-235b-a22b",
        "Qwen3-235B-A22B",
        ("235B", "22B"),
        qwen3_moe(94, 4096, 64, 12_288, 1536),
        "huggingface.co/Qwen/Qwen3-235B-A22B/blob/main/config.json; counts: its model card",
    ),
    moe_entry(
        "deepseek-v3",
        "DeepSeek-V3",
        ("671B", "37B"),
        Architecture {
            kv_heads: 128,
            shared_experts: 1,
            first_dense_layers: 3,
            kv_lora_rank: 512,
            q_lora_rank: 1536,
            qk_rope_head_dim: 64,
            qk_nope_head_dim: 128,
            v_head_dim: 128,
            ..moe(llama(61, 7168, 128, 128, 18_432, 129_280), 256, 8, 2048)
        },
        "huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json (the \
         multi-token-prediction layer left out, as transformers loads it); \
         counts: arXiv:2412.19437, abstract",
    ),
    moe_entry(
        "gpt-oss-20b",
        "gpt-oss-20b",
        ("20.91B", "3.61B"),
        gpt_oss(24, 32),
        "huggingface.co/openai/gpt-oss-20b/blob/main/config.json; \
         counts: gpt-oss model card, arXiv:2508.10925, Table 1",
    ),
    moe_entry(
        "gpt-oss-120b",
        "gpt-oss-120b",
        ("116.83B", "5.13B"),
        gpt_oss(36, 128),
        "huggingface.co/openai/gpt-oss-120b/blob/main/config.json; \
         counts: gpt-oss model card, arXiv:2508.10925, Table 1",
    ),
    moe_entry(
        "llama-4-scout",
        "Llama 4 Scout (text)",
        ("109B", "17B"),
        Architecture {
            head_dim: 128,
            shared_experts: 1,
            // `attention_chunk_size` 8,192 on the RoPE layers, every fourth
            // layer global (configuration_llama4.py `no_rope_layer_interval`).
            window: 8192,
            global_every: 4,
            ..moe(llama(48, 5120, 40, 8, 16_384, 202_048), 16, 1, 8192)
        },
        "huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json \
         (`text_config`; the vision encoder is not modelled); counts: its model card",
    ),
    moe_entry(
        "olmoe-1b-7b",
        "OLMoE-1B-7B",
        ("6.9B", "1.3B"),
        Architecture {
            qk_norm: true,
            qk_norm_full: true,
            ..moe(llama(16, 2048, 16, 16, 1024, 50_304), 64, 8, 0)
        },
        "huggingface.co/allenai/OLMoE-1B-7B-0924/blob/main/config.json; \
         counts: arXiv:2409.02060, §1",
    ),
    moe_entry(
        "qwen3-next-80b-a3b",
        "Qwen3-Next-80B-A3B",
        ("80B", "3B"),
        Architecture {
            head_dim: 256,
            qk_norm: true,
            attn_output_gate: true,
            shared_experts: 1,
            shared_ffn: 512,
            linear_mixer: LinearMixer::GatedDeltanet,
            full_attention_interval: 4,
            linear_num_key_heads: 16,
            linear_key_head_dim: 128,
            linear_num_value_heads: 32,
            linear_value_head_dim: 128,
            linear_conv_kernel_dim: 4,
            ..moe(llama(48, 2048, 16, 2, 5120, 151_936), 512, 10, 512)
        },
        "huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json, read \
         through transformers' configuration_qwen3_next.py, whose defaults are this model's \
         (4.57.1); 12 full-attention layers gated, 36 Gated DeltaNet layers, every layer \
         MoE with one shared expert; the shared expert's one-output gate \
         (`shared_expert_gate`, 48 × 2,048 parameters) is not counted; counts: its model card",
    ),
    moe_entry(
        "granite-4.0-h-small",
        "Granite 4.0 H Small",
        ("32B", "9B"),
        Architecture {
            tied: true,
            shared_experts: 1,
            shared_ffn: 1536,
            linear_mixer: LinearMixer::Mamba2,
            full_attention_interval: 10,
            linear_num_key_heads: 1,
            linear_key_head_dim: 128,
            linear_num_value_heads: 128,
            linear_value_head_dim: 64,
            linear_conv_kernel_dim: 4,
            ..moe(llama(40, 4096, 32, 8, 1536, 100_352), 72, 10, 768)
        },
        "huggingface.co/ibm-granite/granite-4.0-h-small/blob/main/config.json, as its GGUF \
         metadata (ollama.com/ibm/granite4:small-h) and copies of the file give it: 40 layers, \
         4 of them attention (at 5, 15, 25, 35; batchfit places them at 9, 19, 29, 39, the same \
         count), Mamba-2 with 128 heads of 64, one group, state 128; every layer MoE (72 experts, \
         top 10) beside a dense `shared_mlp` of 1,536; counts: IBM's model card (32B, 9B active)",
    ),
];

/// An NVIDIA card of compute capability `capability`, with its total as
/// nvidia-smi reports it and as CUDA does, both in MiB.
const fn nvidia(
    id: &'static str,
    name: &'static str,
    (smi_mib, cuda_mib): (u32, u32),
    capability: (u8, u8),
) -> DevicePreset {
    DevicePreset {
        capability: Some(capability),
        cuda_mib,
        ..preset(DeviceKind::Gpu, id, name, smi_mib as u128 * MIB, SMI)
    }
}

const fn gpu(
    id: &'static str,
    name: &'static str,
    bytes: u128,
    source: &'static str,
) -> DevicePreset {
    preset(DeviceKind::Gpu, id, name, bytes, source)
}

const fn unified(id: &'static str, name: &'static str, gb: u128) -> DevicePreset {
    let source = if gb <= 32 {
        "installed unified memory; macOS lets the GPU use about 2/3–3/4 of it by default"
    } else {
        "installed unified memory; macOS lets the GPU use about 3/4 of it by default"
    };
    preset(DeviceKind::Unified, id, name, gb * GIB, source)
}

const fn cpu(id: &'static str, name: &'static str, gb: u128) -> DevicePreset {
    let source = "installed RAM (DIMMs are sold in GiB); the OS needs some of it";
    preset(DeviceKind::Cpu, id, name, gb * GIB, source)
}

const fn preset(
    kind: DeviceKind,
    id: &'static str,
    name: &'static str,
    bytes: u128,
    source: &'static str,
) -> DevicePreset {
    #[cfg(target_arch = "wasm32")]
    let _ = source;
    DevicePreset {
        id,
        name,
        kind,
        bytes,
        capability: None,
        cuda_mib: 0,
        #[cfg(not(target_arch = "wasm32"))]
        source,
    }
}

const SMI: &str = "nvidia-smi memory.total as the driver reports it";

/// Each NVIDIA card's second figure is the total CUDA reports on a current
/// driver (R535 and later), 8 to 925 MiB under nvidia-smi's, as public device
/// queries, PyTorch's device properties and its out-of-memory messages print
/// it for that card; docs/model.md §3.12 gives each figure's sources.
pub const DEVICES: &[DevicePreset] = &[
    nvidia("t4", "NVIDIA T4 16GB", (15_360, 15_104), (7, 5)),
    nvidia("v100-16gb", "NVIDIA V100 16GB", (16_160, 16_144), (7, 0)),
    nvidia("v100-32gb", "NVIDIA V100 32GB", (32_510, 32_502), (7, 0)),
    nvidia("rtx-3090", "NVIDIA RTX 3090 24GB", (24_576, 24_238), (8, 6)),
    nvidia("rtx-4090", "NVIDIA RTX 4090 24GB", (24_564, 24_207), (8, 9)),
    // nvidia-smi's total on a GeForce RTX 5090 (github.com/noonghunna/club-3090
    // issue #1229); Blackwell consumer cards are compute capability 12.0.
    nvidia(
        "rtx-5090",
        "NVIDIA RTX 5090 32GB",
        (32_607, 32_109),
        (12, 0),
    ),
    // nvidia-smi's total on an RTX PRO 6000 Blackwell (github.com/vllm-project/
    // vllm issue #27542; the Workstation Edition's in lxc902/realtime-video-demo
    // quantization/README.md); compute capability 12.0, as the RTX 5090's.
    nvidia(
        "rtx-pro-6000",
        "NVIDIA RTX PRO 6000 Blackwell 96GB",
        (97_887, 97_250),
        (12, 0),
    ),
    nvidia("a10g", "NVIDIA A10G 24GB", (23_028, 22_587), (8, 6)),
    nvidia("l4", "NVIDIA L4 24GB", (23_034, 22_518), (8, 9)),
    nvidia("l40s", "NVIDIA L40S 48GB", (46_068, 45_589), (8, 9)),
    nvidia("a100-40gb", "NVIDIA A100 40GB", (40_960, 40_339), (8, 0)),
    nvidia("a100-80gb", "NVIDIA A100 80GB", (81_920, 81_152), (8, 0)),
    nvidia(
        "h100-80gb",
        "NVIDIA H100 80GB SXM",
        (81_559, 81_090),
        (9, 0),
    ),
    // nvidia-smi's totals: an H100 NVL (github.com/NVIDIA/gpu-admin-tools
    // issue #4) and an H20 (github.com/deepseek-ai/DeepGEMM issue #268), both
    // Hopper, compute capability 9.0.
    nvidia("h100-nvl", "NVIDIA H100 NVL 94GB", (95_830, 95_232), (9, 0)),
    nvidia("h20", "NVIDIA H20 96GB", (97_871, 97_285), (9, 0)),
    nvidia("h200", "NVIDIA H200 141GB", (143_771, 143_155), (9, 0)),
    // nvidia-smi's total on each of eight B200s (github.com/modal-labs/
    // gpu-glossary gpu-glossary/host-software/nvidia-smi.md at e05d085c);
    // compute capability 10.0 (the device query in pytorch/ao pull request
    // #4002).
    nvidia("b200", "NVIDIA B200 180GB", (183_359, 182_630), (10, 0)),
    // nvidia-smi's total on a GB200's Blackwell GPU (github.com/vllm-project/
    // vllm issue #24272), compute capability 10.0 as the B200's.
    nvidia(
        "gb200",
        "NVIDIA GB200 (one GPU) 186GB",
        (189_471, 188_733),
        (10, 0),
    ),
    // nvidia-smi's total on a B300 SXM6 AC, the same on drivers 580 and
    // 590 in several public captures (the search index's files 63125688786
    // and 71609078484, whose table also gives the H100's 81,559, the H200's
    // 143,771 and the B200's 183,359 MiB these presets use); compute
    // capability 10.3 (sm_103: github.com/datacrunch-research/blogs
    // blackwell-vms/blackwell_vms.md at 1bb44355, and the `compute_cap`
    // field of the same captures).
    nvidia("b300", "NVIDIA B300 288GB", (275_040, 274_115), (10, 3)),
    gpu(
        "gaudi3",
        "Intel Gaudi 3 128GB",
        131_072 * MIB,
        "hl-smi's total on an HL-325L, driver 1.20.1 (the search index's files \
         37883250406 and 1326203634): 128 GiB of HBM2e; what PyTorch may use of it \
         is not published",
    ),
    gpu(
        "mi300x",
        "AMD Instinct MI300X 192GB",
        196_592 * MIB,
        "rocm-smi VRAM total (192 GiB HBM3 less the driver's reservation)",
    ),
    gpu(
        "mi355x",
        "AMD Instinct MI355X 288GB",
        309_220_868_096,
        "PyTorch's total_memory and rocm-smi's VRAM Total Memory (B) for an MI355X, \
         as public benchmark code and rocm-smi logs record them (the search index's \
         files 67158699254 and 65773950940): 288 GiB HBM3E less 16 MiB",
    ),
    unified("apple-16gb", "Apple silicon, 16 GB unified", 16),
    unified("apple-32gb", "Apple silicon, 32 GB unified", 32),
    unified("apple-64gb", "Apple silicon, 64 GB unified", 64),
    unified("apple-128gb", "Apple silicon, 128 GB unified", 128),
    unified("apple-192gb", "Apple silicon, 192 GB unified", 192),
    cpu("cpu-16gb", "CPU, 16 GB RAM", 16),
    cpu("cpu-32gb", "CPU, 32 GB RAM", 32),
    cpu("cpu-64gb", "CPU, 64 GB RAM", 64),
    cpu("cpu-128gb", "CPU, 128 GB RAM", 128),
];

/// [`DEVICES`] by usable capacity ([`DevicePreset::usable_bytes`]) ascending,
/// presets of equal capacity in the list's order: sorted when the crate
/// compiles (an insertion sort in a `const` block), so the page carries no
/// sorting code for its devices table.
pub const DEVICES_BY_CAPACITY: [&DevicePreset; DEVICES.len()] = {
    let mut sorted = [&DEVICES[0]; DEVICES.len()];
    let mut i = 0;
    while i < DEVICES.len() {
        sorted[i] = &DEVICES[i];
        let mut j = i;
        while j > 0 && sorted[j - 1].usable_bytes() > sorted[j].usable_bytes() {
            let earlier = sorted[j - 1];
            sorted[j - 1] = sorted[j];
            sorted[j] = earlier;
            j -= 1;
        }
        i += 1;
    }
    sorted
};

/// The device a configuration is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Preset(&'static DevicePreset),
    /// A capacity typed in, in hundredths of a GB (10^9 bytes).
    Custom {
        hundredths_gb: u64,
    },
}

impl Device {
    pub fn bytes(&self) -> u128 {
        match self {
            Self::Preset(preset) => preset.bytes,
            Self::Custom { hundredths_gb } => u128::from(*hundredths_gb) * 10_000_000,
        }
    }

    /// What a process can allocate: a preset's
    /// [`DevicePreset::usable_bytes`], a capacity typed in as it is. The fit
    /// is checked against it, and a serving engine takes its share of it.
    pub fn usable_bytes(&self) -> u128 {
        match self {
            Self::Preset(preset) => preset.usable_bytes(),
            Self::Custom { .. } => self.bytes(),
        }
    }
}

/// The model preset with this id (any letter case).
pub fn model(id: &str) -> Option<&'static ModelPreset> {
    let id = id.trim();
    MODELS.iter().find(|m| m.id.eq_ignore_ascii_case(id))
}

/// The model preset whose architecture is exactly `arch` (the first listed,
/// where two share one: Llama 3.1 and 3.3 70B): a pasted config.json of a
/// published model is that model, on the page and in the CLI.
pub fn model_of(arch: &Architecture) -> Option<&'static ModelPreset> {
    MODELS.iter().find(|m| m.arch == *arch)
}

/// The device preset with this id (any letter case).
pub fn device(id: &str) -> Option<&'static DevicePreset> {
    let id = id.trim();
    DEVICES.iter().find(|d| d.id.eq_ignore_ascii_case(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transformer::parameter_count;

    #[test]
    fn ids_are_unique_and_url_safe() {
        let ids: Vec<&str> = MODELS
            .iter()
            .map(|m| m.id)
            .chain(DEVICES.iter().map(|d| d.id))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            assert!(!ids[..i].contains(id), "{id} twice");
            assert!(
                id.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || b == b'-'
                    || b == b'.'),
                "{id}"
            );
        }
        assert!(MODELS.len() >= 20);
    }

    /// Every preset's derived count is within 1.5 % of its published, rounded count.
    #[test]
    fn every_model_preset_lands_on_its_published_size() {
        for preset in MODELS {
            let text = preset.published;
            let (digits, scale) = match text.chars().last() {
                Some('B') => (&text[..text.len() - 1], 1e9),
                _ => (&text[..text.len() - 1], 1e6),
            };
            let published: f64 = digits.parse::<f64>().expect("a number") * scale;
            let count = parameter_count(&preset.arch).total as f64;
            let error = (count - published).abs() / published;
            assert!(error < 0.015, "{}: {count} vs {text}", preset.id);
        }
    }

    /// A published count ("46.7B", "3.3B") as a number and the unit of its
    /// last digit.
    fn published(text: &str) -> (f64, f64) {
        let digits = text.strip_suffix('B').expect("in billions");
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len());
        let unit = 10f64.powi(-i32::try_from(decimals).expect("few digits"));
        (digits.parse::<f64>().expect("a number") * 1e9, unit * 1e9)
    }

    /// Every MoE preset's total and active counts against the published
    /// ones: within 0.5 %, or within the published figure's own rounding
    /// when that is coarser, rounded or cut ("3.3B" is 3.25B up to 3.4B:
    /// Qwen publishes Qwen3-30B-A3B's exact 3,353,032,704 active parameters
    /// as 3.3B). OpenAI (gpt-oss model
    /// card) and DeepSeek (V3 report) count the active parameters without
    /// the input embedding, which a token reads one row of; Mistral, Qwen,
    /// Meta and AI2 count it whole. Llama 4 Scout's published total
    /// includes its vision encoder, which is not modelled: its text model
    /// (107.8B) is compared through the active count only.
    #[test]
    fn moe_presets_land_on_their_published_total_and_active_counts() {
        for (id, total_comparable, active_without_embedding) in [
            ("mixtral-8x7b", true, false),
            ("mixtral-8x22b", true, false),
            ("qwen3-30b-a3b", true, false),
            ("qwen3-235b-a22b", true, false),
            ("deepseek-v3", true, true),
            ("gpt-oss-20b", true, true),
            ("gpt-oss-120b", true, true),
            ("llama-4-scout", false, false),
            ("olmoe-1b-7b", true, false),
            ("qwen3-next-80b-a3b", true, false),
            ("granite-4.0-h-small", true, false),
        ] {
            let preset = model(id).expect("preset");
            let count = parameter_count(&preset.arch);
            let embedding = u128::from(preset.arch.vocab) * u128::from(preset.arch.hidden);
            let active = if active_without_embedding {
                count.active - embedding
            } else {
                count.active
            };
            let close = |ours: u128, text: &str| {
                let (figure, unit) = published(text);
                let ours = ours as f64;
                let within =
                    |below: f64, above: f64| figure - below <= ours && ours < figure + above;
                within(0.005 * figure, 0.005 * figure) || within(unit / 2.0, unit)
            };
            if total_comparable {
                assert!(
                    close(count.total, preset.published),
                    "{id}: {}",
                    count.total
                );
            }
            assert!(close(active, preset.published_active), "{id}: {active}");
            assert!(count.active < count.total, "{id}");
        }
        // docs/model.md §3.10's table, in billions to two decimals (active
        // without the embedding where the authors count it so).
        let billions = |n: u128| format!("{:.2}", n as f64 / 1e9);
        for (id, total, active, without_embedding) in [
            ("mixtral-8x7b", "46.70", "12.88", false),
            ("mixtral-8x22b", "140.62", "39.15", false),
            ("qwen3-30b-a3b", "30.53", "3.35", false),
            ("qwen3-235b-a22b", "235.09", "22.19", false),
            ("deepseek-v3", "671.03", "36.63", true),
            ("gpt-oss-20b", "20.91", "3.61", true),
            ("gpt-oss-120b", "116.83", "5.13", true),
            ("llama-4-scout", "107.77", "17.17", false),
            ("olmoe-1b-7b", "6.92", "1.28", false),
        ] {
            let arch = model(id).expect("preset").arch;
            let count = parameter_count(&arch);
            let embedding = u128::from(arch.vocab) * u128::from(arch.hidden);
            let counted_active = count.active - if without_embedding { embedding } else { 0 };
            assert_eq!(
                (billions(count.total), billions(counted_active)),
                (total.to_owned(), active.to_owned()),
                "{id}"
            );
        }
        // The published figures with enough digits land within 0.5 %.
        for (id, ours, figure) in [
            (
                "mixtral-8x7b",
                parameter_count(&model("mixtral-8x7b").expect("").arch).active,
                12.9e9,
            ),
            (
                "gpt-oss-20b",
                parameter_count(&model("gpt-oss-20b").expect("").arch).total,
                20.91e9,
            ),
            (
                "gpt-oss-120b",
                parameter_count(&model("gpt-oss-120b").expect("").arch).total,
                116.83e9,
            ),
            (
                "qwen3-30b-a3b",
                parameter_count(&model("qwen3-30b-a3b").expect("").arch).total,
                30.5e9,
            ),
        ] {
            assert!(
                (ours as f64 - figure).abs() / figure < 0.005,
                "{id}: {ours}"
            );
        }
    }

    #[test]
    fn devices_by_capacity_are_every_device_sorted_stably() {
        let mut expected: Vec<&DevicePreset> = DEVICES.iter().collect();
        expected.sort_by_key(|d| d.usable_bytes());
        let sorted: Vec<&str> = DEVICES_BY_CAPACITY.iter().map(|d| d.id).collect();
        let expected: Vec<&str> = expected.iter().map(|d| d.id).collect();
        assert_eq!(sorted, expected);
    }

    /// docs/model.md §3.12's table: each NVIDIA card's nvidia-smi total and
    /// the total CUDA reports, which the serving engines take their share
    /// of; the driver keeps between 8 MiB (a V100) and 925 MiB (a B300).
    #[test]
    fn every_nvidia_card_has_the_total_cuda_reports() {
        let table: [(&str, u128, u32); 19] = [
            ("t4", 15_360, 15_104),
            ("v100-16gb", 16_160, 16_144),
            ("v100-32gb", 32_510, 32_502),
            ("rtx-3090", 24_576, 24_238),
            ("rtx-4090", 24_564, 24_207),
            ("rtx-5090", 32_607, 32_109),
            ("rtx-pro-6000", 97_887, 97_250),
            ("a10g", 23_028, 22_587),
            ("l4", 23_034, 22_518),
            ("l40s", 46_068, 45_589),
            ("a100-40gb", 40_960, 40_339),
            ("a100-80gb", 81_920, 81_152),
            ("h100-80gb", 81_559, 81_090),
            ("h100-nvl", 95_830, 95_232),
            ("h20", 97_871, 97_285),
            ("h200", 143_771, 143_155),
            ("b200", 183_359, 182_630),
            ("gb200", 189_471, 188_733),
            ("b300", 275_040, 274_115),
        ];
        let nvidia: Vec<&str> = DEVICES
            .iter()
            .filter(|d| d.capability.is_some())
            .map(|d| d.id)
            .collect();
        assert_eq!(nvidia, table.map(|(id, _, _)| id));
        for (id, smi, cuda) in table {
            let preset = device(id).expect(id);
            assert_eq!((preset.bytes, preset.cuda_mib), (smi * MIB, cuda), "{id}");
            let kept = smi - u128::from(cuda);
            assert!((8..=925).contains(&kept), "{id}: {kept} MiB");
            assert_eq!(
                Device::Preset(preset).usable_bytes(),
                u128::from(cuda) * MIB
            );
        }
        // Where no figure is published, the device's own total.
        for id in ["mi300x", "gaudi3", "apple-64gb", "cpu-32gb"] {
            let preset = device(id).expect(id);
            assert_eq!(preset.cuda_mib, 0);
            assert_eq!(Device::Preset(preset).usable_bytes(), preset.bytes);
        }
        let typed = Device::Custom {
            hundredths_gb: 8_000,
        };
        assert_eq!(typed.usable_bytes(), typed.bytes());
    }

    #[test]
    fn devices_are_as_the_driver_reports_them() {
        for (id, mib) in [
            ("a100-40gb", 40_960),
            ("a100-80gb", 81_920),
            ("h100-80gb", 81_559),
            ("h200", 143_771),
            ("rtx-4090", 24_564),
            ("rtx-5090", 32_607),
            ("b200", 183_359),
            ("rtx-pro-6000", 97_887),
            ("h100-nvl", 95_830),
            ("h20", 97_871),
            ("gb200", 189_471),
        ] {
            assert_eq!(device(id).map(|d| d.bytes), Some(mib * MIB), "{id}");
        }
        assert_eq!(device("mi355x").map(|d| d.bytes), Some(309_220_868_096));
        assert_eq!(model("LLAMA-3.1-8B").map(|m| m.id), Some("llama-3.1-8b"));
        assert_eq!(device("nope"), None);
    }
}
