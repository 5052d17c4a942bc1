use super::*;
use crate::query::parse;

fn warned(query: &str) -> Vec<Warning> {
    let parsed = parse(query);
    assert_eq!(parsed.problems, [], "{query}");
    warnings(&parsed.config)
}

/// BF16 on a T4 or V100, FP8 training before Ada: each named with the
/// card's compute capability; what the card runs is not warned about.
#[test]
fn settings_the_device_cannot_run_are_named() {
    // The attention is eager here, so that only the precision is warned
    // about; FlashAttention has its own test below.
    assert_eq!(
        warned("form=transformer&model=llama-3.2-1b&attn=eager&gpu=t4"),
        [Warning::Bf16 { capability: (7, 5) }]
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.2-1b&attn=eager&mode=inference&gpu=v100-32gb"),
        [Warning::Bf16 { capability: (7, 0) }]
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.2-1b&attn=eager&recipe=fp32&gpu=t4"),
        []
    );
    assert_eq!(
        warned("form=parameters&params=1B&precision=bf16&gpu=t4"),
        [Warning::Bf16 { capability: (7, 5) }]
    );
    assert_eq!(
        warned("form=parameters&params=1B&precision=fp16&gpu=t4"),
        []
    );
    // FP8 training: Transformer Engine needs 8.9 (an RTX 4090 or L4 has
    // it, an A100 has not).
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&recipe=bf16&fp8=te&gpu=a100-80gb"),
        [Warning::Fp8 { capability: (8, 0) }]
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&recipe=bf16&fp8=torchao&gpu=rtx-4090"),
        []
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&recipe=bf16&fp8=te&attn=eager&gpu=v100-32gb"),
        [
            Warning::Bf16 { capability: (7, 0) },
            Warning::Fp8 { capability: (7, 0) }
        ]
    );
    // No compute capability batchfit knows: no warning.
    assert_eq!(warned("form=transformer&model=llama-3.2-1b&gpu=mi300x"), []);
    assert_eq!(warned("form=transformer&model=llama-3.2-1b&gpu_gb=16"), []);
    assert_eq!(warned("form=transformer&model=llama-3.2-1b"), []);
    assert_eq!(
        Warning::Bf16 { capability: (7, 5) }.name(),
        "bf16_unsupported"
    );
}

/// Every NVIDIA preset has its compute capability, and only those.
#[test]
fn nvidia_presets_carry_their_compute_capability() {
    for device in crate::presets::DEVICES {
        assert_eq!(
            device.capability.is_some(),
            device.name.starts_with("NVIDIA"),
            "{}",
            device.id
        );
    }
}

/// FlashAttention 2 before Ampere (issue 29): the flash-attn kernels refuse
/// compute capability below 8.0; eager and math attention, an Ampere card
/// and the other forms are not warned about.
#[test]
fn flash_attention_before_ampere_is_named() {
    assert_eq!(
        warned("form=transformer&model=llama-3.2-1b&recipe=fp32&gpu=t4"),
        [Warning::FlashAttention { capability: (7, 5) }]
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.2-1b&mode=inference&gpu=v100-32gb"),
        [
            Warning::Bf16 { capability: (7, 0) },
            Warning::FlashAttention { capability: (7, 0) }
        ]
    );
    for query in [
        "form=transformer&model=llama-3.2-1b&recipe=fp32&attn=eager&gpu=t4",
        "form=transformer&model=llama-3.2-1b&gpu=a100-80gb",
        "form=transformer&model=llama-3.2-1b&gpu=rtx-4090",
        "form=activations&precision=fp16&gpu=t4",
    ] {
        assert_eq!(warned(query), [], "{query}");
    }
    assert_eq!(
        Warning::FlashAttention { capability: (7, 5) }.name(),
        "flash_attention_unsupported"
    );
}

/// The serving engines' own limits and the kernels off a GPU (issue 29):
/// vLLM's FP8 cache before Ada, its AWQ kernels before Turing, an INT8 or
/// INT4 cache under either engine, 4-bit AWQ/GPTQ weights on a CPU or Apple
/// silicon, bitsandbytes on Apple silicon; each setting elsewhere, and each
/// card that runs it, is not warned about.
#[test]
fn engine_limits_and_kernels_off_a_gpu_are_named() {
    let vllm = "form=transformer&model=llama-3.1-8b&mode=inference&framework=vllm&attn=eager";
    assert_eq!(
        warned(&format!("{vllm}&kv_dtype=fp8&gpu=a100-80gb")),
        [Warning::Fp8Cache { capability: (8, 0) }]
    );
    assert_eq!(
        warned(&format!("{vllm}&kv_dtype=fp8&recipe=fp32&gpu=t4")),
        [Warning::Fp8Cache { capability: (7, 5) }]
    );
    for card in ["l40s", "rtx-4090", "h100-80gb", "b200"] {
        assert_eq!(
            warned(&format!("{vllm}&kv_dtype=fp8&gpu={card}")),
            [],
            "{card}"
        );
    }
    // SGLang has no such check (server_args.py 0.5.3).
    assert_eq!(
        warned(
            "form=transformer&model=llama-3.1-8b&mode=inference&framework=sglang&kv_dtype=fp8&gpu=a100-80gb"
        ),
        []
    );
    assert_eq!(
        warned(&format!("{vllm}&quant=int4&recipe=fp32&gpu=v100-32gb")),
        [Warning::AwqKernels { capability: (7, 0) }]
    );
    assert_eq!(warned(&format!("{vllm}&quant=int4&gpu=t4&recipe=fp32")), []);
    for (engine, kv) in [
        (Framework::Vllm, "int8"),
        (Framework::Vllm, "int4"),
        (Framework::Sglang, "int8"),
    ] {
        assert_eq!(
            warned(&format!(
                "form=transformer&model=llama-3.1-8b&mode=inference&framework={}&kv_dtype={kv}&gpu=h100-80gb",
                engine.name()
            )),
            [Warning::EngineCache { engine }],
            "{kv}"
        );
    }
    // generate()'s quantized caches are its own.
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&mode=inference&kv_dtype=int8&gpu=h100-80gb"),
        []
    );
    let int4 = "form=transformer&model=llama-3.1-8b&mode=inference&quant=int4";
    assert_eq!(
        warned(&format!("{int4}&gpu=cpu-64gb")),
        [Warning::Int4OnHost {
            kind: DeviceKind::Cpu
        }]
    );
    assert_eq!(
        warned(&format!("{int4}&gpu=apple-32gb")),
        [Warning::Int4OnHost {
            kind: DeviceKind::Unified
        }]
    );
    assert_eq!(warned(&format!("{int4}&gpu=mi300x")), []);
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&lora_rank=16&base_quant=nf4&gpu=apple-64gb"),
        [Warning::BitsandbytesApple]
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&mode=inference&quant=int8&gpu=apple-64gb"),
        [Warning::BitsandbytesApple]
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&lora_rank=16&base_quant=nf4&gpu=cpu-64gb"),
        []
    );
    assert_eq!(
        warned("form=transformer&model=llama-3.1-8b&lora_rank=16&gpu=apple-64gb"),
        []
    );
    assert_eq!(
        Warning::EngineCache {
            engine: Framework::Sglang
        }
        .name(),
        "engine_kv_dtype_unsupported"
    );
}
