//! Settings the chosen device cannot run: a configuration batchfit can
//! estimate but whose stack refuses it, or runs it another way, on that
//! card. Each rule is the check of the software that refuses, at the
//! device's compute capability ([`DevicePreset::capability`]) or on its
//! kind (a CPU, Apple silicon).

use crate::Precision;
use crate::presets::{Device, DeviceKind, DevicePreset};
use crate::query::{Config, Form};
use crate::transformer::{Attention, BaseQuant, Fp8, Framework, KvDtype, Mode, Quant, Recipe};

/// One setting the device cannot run as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warning {
    /// BF16 below compute capability 8.0 (V100 7.0, T4 7.5): no BF16
    /// tensor cores. vLLM refuses it (vllm/v1/worker/gpu_worker.py
    /// `_check_if_gpu_supports_dtype`: "Bfloat16 is only supported on GPUs
    /// with compute capability of at least 8.0"), PyTorch runs it in
    /// emulation; FP16 takes the same memory (2 bytes either way).
    Bf16 { capability: (u8, u8) },
    /// FP8 training below compute capability 8.9 (Ada, Hopper):
    /// Transformer Engine refuses it (transformer_engine/pytorch/fp8.py
    /// `check_fp8_support`: "Device compute capability 8.9 or higher
    /// required for FP8 execution."), and torchao's float8 training needs
    /// the same FP8 tensor cores.
    Fp8 { capability: (u8, u8) },
    /// `attn=flash` below compute capability 8.0 (Turing, Volta): the
    /// FlashAttention 2 kernels refuse the card
    /// (Dao-AILab/flash-attention csrc/flash_attn/flash_api.cpp `mha_fwd`:
    /// "FlashAttention only supports Ampere GPUs or newer."), so
    /// transformers' `attn_implementation="flash_attention_2"` fails there.
    /// PyTorch's SDPA runs its memory-efficient kernel instead, which keeps
    /// no s × s scores either: the estimate stands for SDPA.
    FlashAttention { capability: (u8, u8) },
    /// vLLM's FP8 KV cache below compute capability 8.9, read at 0.11.0
    /// (vllm/platforms/cuda.py `get_attn_backend_cls`): from 8.0 an FP8
    /// cache takes the Triton backend, whose E4M3 cache kernels do not
    /// compile before Ada ("type fp8e4nv not supported in this
    /// architecture", vllm issue #26431, an RTX 3090); below 8.0 the
    /// FlexAttention backend refuses it (`flex_attention.py`: "FlexAttention
    /// does not support quantized kv-cache. Yet"). vLLM 0.10 falls back to
    /// its V0 engine (`arg_utils.py` `_raise_or_fallback`), whose paged
    /// attention stores FP8 and converts it in the kernel: the plan's
    /// cache holds there.
    Fp8Cache { capability: (u8, u8) },
    /// vLLM's 4-bit weights below compute capability 7.5: its AWQ kernels
    /// need Turing (vllm/model_executor/layers/quantization/awq.py
    /// `get_min_capability`: 75), GPTQ's run from 6.0 (`gptq.py`: 60).
    AwqKernels { capability: (u8, u8) },
    /// 4-bit AWQ or GPTQ weights on a CPU or Apple silicon (transformers
    /// 4.56 `quantizer_awq.py`, `quantizer_gptq.py`; vLLM 0.11
    /// `ipex_quant.py`): AWQ runs off a GPU only through Intel's IPEX
    /// (autoawq > 0.2.6, Intel CPUs: not Apple silicon); GPTQ through
    /// gptqmodel's PyTorch kernels; vLLM's CPU backend runs both through
    /// IPEX only.
    Int4OnHost { kind: DeviceKind },
    /// bitsandbytes (LLM.int8 weights, a QLoRA base) on Apple silicon:
    /// PyPI has macOS arm64 wheels from bitsandbytes 0.49.0 (its CPU
    /// library), and an MPS backend from 0.50 (`backends/mps`); transformers
    /// accepts MPS through bitsandbytes' multi-backend
    /// (`supported_torch_devices`), from 0.46.
    BitsandbytesApple,
    /// An INT8 or INT4 KV cache under a serving engine: vLLM's caches are
    /// 16-bit or FP8 (vllm/config/cache.py `CacheDType`: auto, bfloat16,
    /// fp8, fp8_e4m3, fp8_e5m2, fp8_inc), SGLang's too (server_args.py
    /// `--kv-cache-dtype`: auto, fp8_e5m2, fp8_e4m3). The quantized caches
    /// with per-token scales are `generate()`'s (torchao, quanto, HQQ): the
    /// plan counts the bytes asked, a cache the engine cannot make.
    EngineCache { engine: Framework },
}

impl Warning {
    /// A stable name, for machines (the CLI's JSON).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bf16 { .. } => "bf16_unsupported",
            Self::Fp8 { .. } => "fp8_unsupported",
            Self::FlashAttention { .. } => "flash_attention_unsupported",
            Self::Fp8Cache { .. } => "fp8_kv_cache_unsupported",
            Self::AwqKernels { .. } => "awq_kernels_unsupported",
            Self::Int4OnHost { .. } => "int4_kernels_on_host",
            Self::BitsandbytesApple => "bitsandbytes_apple_silicon",
            Self::EngineCache { .. } => "engine_kv_dtype_unsupported",
        }
    }
}

/// The settings of `config` that its device preset or its serving engine
/// cannot run; empty without a device preset for the device's rules, and
/// for the compute capability's rules on a device with none batchfit knows
/// (AMD, Apple silicon, CPUs, a custom capacity).
pub fn warnings(config: &Config) -> Vec<Warning> {
    let mut out = Vec::new();
    let t = &config.transformer;
    let transformer = config.form == Form::Transformer;
    let inference = transformer && t.mode == Mode::Inference;
    let engine = inference && t.framework.engine();
    let int4 = inference && t.quant == Quant::Int4;
    let bitsandbytes = transformer
        && ((inference && t.quant == Quant::Int8)
            || (t.mode == Mode::Train && t.lora_rank > 0 && t.base_quant != BaseQuant::None));
    if engine && matches!(t.kv_dtype, KvDtype::Int8 | KvDtype::Int4) {
        out.push(Warning::EngineCache {
            engine: t.framework,
        });
    }
    let Some(Device::Preset(DevicePreset {
        capability, kind, ..
    })) = config.device
    else {
        return out;
    };
    if *kind != DeviceKind::Gpu && int4 {
        out.push(Warning::Int4OnHost { kind: *kind });
    }
    if *kind == DeviceKind::Unified && bitsandbytes {
        out.push(Warning::BitsandbytesApple);
    }
    let Some(capability) = *capability else {
        return out;
    };
    let bf16 = match config.form {
        Form::Activations => config.activations.precision == Precision::Bf16,
        Form::Parameters => config.parameters.precision == Precision::Bf16,
        // Every recipe but FP32 computes in 16 bits, BF16 as batchfit's
        // recipes and `generate()`'s weights name it.
        Form::Transformer => t.recipe != Recipe::Fp32,
    };
    let fp8 = transformer && t.mode == Mode::Train && t.fp8 != Fp8::None;
    let flash = transformer && t.attention == Attention::Flash;
    let vllm = engine && t.framework == Framework::Vllm;
    if bf16 && capability < (8, 0) {
        out.push(Warning::Bf16 { capability });
    }
    if fp8 && capability < (8, 9) {
        out.push(Warning::Fp8 { capability });
    }
    if flash && capability < (8, 0) {
        out.push(Warning::FlashAttention { capability });
    }
    if vllm && t.kv_dtype == KvDtype::Fp8 && capability < (8, 9) {
        out.push(Warning::Fp8Cache { capability });
    }
    if vllm && int4 && capability < (7, 5) {
        out.push(Warning::AwqKernels { capability });
    }
    out
}

#[cfg(test)]
mod tests;
