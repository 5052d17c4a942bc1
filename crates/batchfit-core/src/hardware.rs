//! Settings the chosen device cannot run: a configuration batchfit can
//! estimate but whose stack refuses it, or runs it another way, on that
//! card. Each rule is the check of the software that refuses, at the
//! device's compute capability ([`DevicePreset::capability`]).

use crate::Precision;
use crate::presets::{Device, DevicePreset};
use crate::query::{Config, Form};
use crate::transformer::{Attention, Fp8, Mode, Recipe};

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
}

impl Warning {
    /// A stable name, for machines (the CLI's JSON).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bf16 { .. } => "bf16_unsupported",
            Self::Fp8 { .. } => "fp8_unsupported",
            Self::FlashAttention { .. } => "flash_attention_unsupported",
        }
    }
}

/// The settings of `config` that its device preset cannot run; empty
/// without a device preset, or for a device with no compute capability
/// batchfit knows (AMD, Apple silicon, CPUs, a custom capacity).
pub fn warnings(config: &Config) -> Vec<Warning> {
    let Some(Device::Preset(DevicePreset {
        capability: Some(capability),
        ..
    })) = config.device
    else {
        return Vec::new();
    };
    let capability = *capability;
    let t = &config.transformer;
    let bf16 = match config.form {
        Form::Activations => config.activations.precision == Precision::Bf16,
        Form::Parameters => config.parameters.precision == Precision::Bf16,
        // Every recipe but FP32 computes in 16 bits, BF16 as batchfit's
        // recipes and `generate()`'s weights name it.
        Form::Transformer => t.recipe != Recipe::Fp32,
    };
    let fp8 = config.form == Form::Transformer && t.mode == Mode::Train && t.fp8 != Fp8::None;
    let flash = config.form == Form::Transformer && t.attention == Attention::Flash;
    let mut out = Vec::new();
    if bf16 && capability < (8, 0) {
        out.push(Warning::Bf16 { capability });
    }
    if fp8 && capability < (8, 9) {
        out.push(Warning::Fp8 { capability });
    }
    if flash && capability < (8, 0) {
        out.push(Warning::FlashAttention { capability });
    }
    out
}

#[cfg(test)]
mod tests;
