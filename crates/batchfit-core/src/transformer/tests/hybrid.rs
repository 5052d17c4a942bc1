//! Hybrid models: linear-attention and state-space layers beside full
//! attention (docs/model.md §3.13), worked examples byte for byte.

use super::*;
use crate::transformer::activations::{linear_saved, mixer_activations};
use crate::transformer::architecture::{attention_block, linear_block};
use crate::transformer::{Kind, LinearMixer};

/// Qwen3-Next-80B-A3B's layers, parameter by parameter (transformers
/// modeling_qwen3_next.py): a Gated DeltaNet layer's mixer and norms, a
/// gated attention layer's, and the whole model.
#[test]
fn qwen3_next_counts_every_parameter() {
    let a = arch("qwen3-next-80b-a3b");
    assert_eq!((a.attention_layers(), a.linear_layers()), (12, 36));
    // in_proj_qkvz 2,048 × (2 × 2,048 + 2 × 4,096), in_proj_ba 2,048 × 64,
    // conv1d 8,192 × 4, dt_bias and A_log 32 each, the gated norm 128,
    // out_proj 4,096 × 2,048; and the block's two norms of 2,048.
    let gdn = 25_165_824 + 131_072 + 32_768 + 64 + 128 + 8_388_608;
    assert_eq!(gdn, 33_718_464);
    assert_eq!(linear_block(&a).total, gdn + 2 * 2048);
    // q_proj 2,048 × 16 × 256 × 2 (the gate), k and v 2,048 × 512, o_proj
    // 4,096 × 2,048, q_norm and k_norm 256 each.
    let attention = 16_777_216 + 2 * 1_048_576 + 8_388_608 + 512;
    assert_eq!(attention, 27_263_488);
    assert_eq!(attention_block(&a).total, attention + 2 * 2048);
    // Every layer MoE: the router 2,048 × 512, 512 experts and one shared
    // expert of 3 × 2,048 × 512; the embedding and the head 151,936 × 2,048;
    // the final norm.
    let ffn = 1_048_576 + 513 * 3_145_728;
    let total = 12 * (attention + 4096 + ffn) + 36 * (gdn + 4096 + ffn) + 2 * 311_164_928 + 2048;
    assert_eq!(parameter_count(&a).total, total);
    assert_eq!(total, 79_674_292_992);
}

/// Granite 4.0 H Small's Mamba-2 layer (modeling_granitemoehybrid.py
/// `GraniteMoeHybridMambaLayer`): in_proj 4,096 × (2 × 8,192 + 2 × 128 +
/// 128), conv1d over 8,448 channels of 4 with its bias, dt_bias, A_log and D
/// of 128, the norm over 8,192, out_proj 8,192 × 4,096.
#[test]
fn granite_4_h_counts_its_mamba_2_layers() {
    let a = arch("granite-4.0-h-small");
    assert_eq!((a.attention_layers(), a.linear_layers()), (4, 36));
    let mamba = 68_681_728 + 8_448 * 5 + 384 + 8_192 + 33_554_432;
    assert_eq!(mamba, 102_286_976);
    assert_eq!(linear_block(&a).total, mamba + 2 * 4096);
    assert_eq!(parameter_count(&a).total, 32_207_337_984);
}

fn generating(id: &str) -> TransformerInput {
    TransformerInput {
        arch: arch(id),
        mode: Mode::Inference,
        recipe: Recipe::Bf16,
        seq: 1000,
        generated: 24,
        ..TransformerInput::default()
    }
}

/// `generate()` keeps a KV cache in the attention layers only, and each
/// linear layer's state: the convolution's window of 4 columns over 8,192
/// channels in BF16 and Gated DeltaNet's 32 × 128 × 128 FP32 state
/// (`Qwen3NextDynamicCache`); Mamba-2's state in the model's dtype.
#[test]
fn generate_keeps_the_attention_layers_cache_and_the_linear_state() {
    let qwen = generating("qwen3-next-80b-a3b");
    let kv = 12 * 2 * 2 * 256 * 1024 * 2;
    let state = 36 * (8_192 * 4 * 2 + 32 * 128 * 128 * 4);
    assert_eq!(state, 77_856_768);
    assert_eq!(kv_cache_per_sample(&qwen), kv + state);
    let granite = generating("granite-4.0-h-small");
    let kv = 4 * 2 * 8 * 128 * 1024 * 2;
    let state = 36 * (8_448 * 4 * 2 + 128 * 64 * 128 * 2);
    assert_eq!(kv_cache_per_sample(&granite), kv + state);
    // The state does not grow with the context; the cache does.
    let longer = TransformerInput { seq: 2000, ..qwen };
    assert_eq!(
        kv_cache_per_sample(&longer) - kv_cache_per_sample(&qwen),
        12 * 2 * 2 * 256 * 1000 * 2
    );
}

/// A model whose every layer attends (`full_attention_interval=1`, or no
/// mixer) is the model without linear layers, to the byte.
#[test]
fn an_interval_of_one_is_a_model_that_only_attends() {
    let mut every = arch("qwen3-next-80b-a3b");
    every.full_attention_interval = 1;
    let none = Architecture {
        linear_mixer: LinearMixer::None,
        ..every
    };
    assert!(!every.hybrid());
    assert_eq!(parameter_count(&every), parameter_count(&none));
    let input = |arch| TransformerInput {
        arch,
        ..generating("qwen3-next-80b-a3b")
    };
    assert_eq!(
        kv_cache_per_sample(&input(every)),
        kv_cache_per_sample(&input(none))
    );
}

/// What a linear layer's mixer saves for the backward pass, per token in
/// BF16 (`linear_saved`): Gated DeltaNet under transformers 5 with
/// flash-linear-attention, 8 × 2,048 + 8 × 16 + 22 × 4,096 + 146 × 32 =
/// 111,296 bytes; Mamba-2's fused kernel, 2 × (3 × 8,192 + 2 × 128 + 128) +
/// 4 = 49,924. A layer of the training model holds the mean of the two
/// kinds over the layers, so that their sum is the model's.
#[test]
fn training_saves_each_kind_of_layer_s_tensors() {
    let qwen = arch("qwen3-next-80b-a3b");
    let input = |arch| TransformerInput {
        arch,
        recipe: Recipe::Bf16,
        ..TransformerInput::default()
    };
    assert_eq!(linear_saved(&input(qwen), 2), 111_296);
    assert_eq!(linear_saved(&input(arch("granite-4.0-h-small")), 2), 49_924);
    // Training Qwen3-Next (every layer MoE): the layers keep 12 attention
    // layers' sets and 36 linear layers', exactly; a layer in flight is
    // counted as the larger of the two.
    let training = TransformerInput {
        seq: 512,
        attention: Attention::Flash,
        ..input(qwen)
    };
    let set = |mixer| mixer_activations(&training, Ffn::Moe, mixer).per_rank(&training, true);
    let (attention, linear) = (set(Mixer::Attention), set(Mixer::Linear));
    assert!(linear > attention);
    let saved = training_saved(&training);
    assert_eq!(saved.moe, linear);
    assert_eq!(saved.layers(Span::all(&qwen)), 12 * attention + 36 * linear);
    // The first four layers: three linear, then one attending.
    assert_eq!(
        saved.layers(Span { first: 0, end: 4 }),
        attention + 3 * linear
    );
    assert_eq!(saved.layers(Span { first: 0, end: 3 }), 3 * linear);
    assert_eq!(training.arch.kind, Kind::Decoder);
}

/// The prefill's largest block can be a linear layer's (`linear_working`):
/// a dense Qwen3-Next-shaped model with a small FFN, 4,096 tokens in BF16.
/// The Gated DeltaNet layer holds its projections' outputs (2 × 2,048 + 2 ×
/// 4,096 + 2 × 32), the convolution's input and output (2 × 8,192) and the
/// mixer's output (4,096), 32,832 values a token, and one 32 × 128 × 128
/// state every 64 tokens; more than the attention's 9,216 values a token.
#[test]
fn the_prefill_s_largest_block_can_be_a_linear_layer() {
    let input = TransformerInput {
        arch: Architecture {
            experts: 0,
            shared_experts: 0,
            ffn: 512,
            ..arch("qwen3-next-80b-a3b")
        },
        mode: Mode::Inference,
        recipe: Recipe::Bf16,
        attention: Attention::Flash,
        seq: 4096,
        generated: 0,
        ..TransformerInput::default()
    };
    let stream = 2 * 4096 * 2 * 2048;
    let linear = 4096 * 2 * 32_832 + 64 * 524_288 * 2;
    let last_logits = 4 * 151_936;
    assert_eq!(prefill_activations(&input), stream + linear + last_logits);
}
