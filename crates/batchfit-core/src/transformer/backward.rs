//! Gradients alive through the backward pass: beside the layers, the head's,
//! the embedding's, and the unfused weight gradients (docs/model.md §3.6–3.7).

use super::activations::{residual_gradient, working_sets};
use super::architecture::{Counted, Ends, moe_common, stage_parameter_count};
use super::input::{Ffn, TransformerInput};
use super::options::{Block, Kind, Loss, Mlp, Mode, Outputs, Recipe, Step};
use super::saved::{Saved, backward_start, output_layer_inputs};
use super::states::gradient_bytes;
use crate::arith::div_ceil;

/// The gradients the backward pass has created when the last layer reaches
/// each of its two working sets ([`working_sets`]: the FFN activation's, the
/// attention core's), per GPU: the first moments of the backward pass at
/// which the layers' saved tensors, a layer's working set and gradients are
/// alive together. pytorch/pytorch
/// torch/csrc/autograd/functions/accumulate_grad.cpp: `AccumulateGrad` takes
/// the largest sequence number, so the engine runs it as soon as a weight's
/// gradient is ready (engine.h `ReadyQueue`'s `CompareNodeTaskTime` pops
/// the ready node with the highest `sequence_nr` first), and accumulate_grad.h `accumulateGrad` (Case 1.1) steals that
/// gradient into `.grad`, where it stays until `zero_grad` (a tied weight's
/// gradient from the head waits in the input buffer of its
/// `AccumulateGrad` until the embedding's arrives: the same bytes). So beside
/// the last layer's backward pass the gradients of everything above the
/// layers exist (the final norm and the head; BERT's pooler and classifier,
/// a ViT's final norm and classifier), and of the layer's own parameters
/// those whose backward ran before the set:
///
/// - before the FFN activation's backward: the FFN's output matrix (a MoE
///   layer's: its local experts' and its shared experts' down projections,
///   an upper bound by the branch that runs second) and the norms after
///   the FFN (a post-norm block's and BERT's output norm, Gemma's
///   `post_feedforward_layernorm`);
/// - before the attention core's backward: the whole FFN (a MoE layer's
///   router, shared experts and local experts, experts / ep, over etp), the
///   attention's output projection and every norm of the layer but its
///   input norm (BERT's two post-norms).
///
/// Each in the gradients' bytes ([`gradient_bytes`]), divided by the
/// tensor-parallel ranks as the weights are. The backward's order inside a
/// layer is the engine's: a node's sequence number is its forward
/// position, and the ready node with the highest runs first, so a layer's
/// backward walks its forward in reverse.
///
/// `[FFN's, attention's]`; 0 where this moment is counted otherwise or not
/// at all: outside
/// training, with LoRA (the frozen head has no gradient; the adapters'
/// are not counted), when the gradients are alive with the activations
/// anyway (a step in the backward pass, accumulation, `zero_grad=zeros`,
/// DeepSpeed's ZeRO-3, a pipeline: `memory`), and where the gradients
/// leave autograd's `.grad` layer by layer (ZeRO-2's buckets, FSDP2's
/// reduce-scatter, parameter offload; not modelled, docs/model.md §6).
pub(super) fn gradients_beside_layers(input: &TransformerInput) -> [u128; 2] {
    let arch = &input.arch;
    if !gradients_stay_in_grad(input) || arch.layers == 0 {
        return [0, 0];
    }
    let h = u128::from(arch.hidden);
    let t = u128::from(input.tp);
    let norm = arch.norm_parameters(h);
    let mut none = *arch;
    none.layers = 0;
    let above = stage_parameter_count(
        &none,
        Ends {
            embedding: false,
            head: true,
        },
    );
    let above = above.norms + div_ceil(above.total - above.norms, t);
    // The norms whose backward runs before the FFN activation's and before
    // the attention core's.
    let (norms_ffn, norms_attention) = match (arch.kind, arch.block) {
        // transformers models/bert/modeling_bert.py `BertSelfOutput` and
        // `BertOutput`: a LayerNorm after each residual addition.
        (Kind::Encoder, _) => (1, 2),
        (_, Block::Pre) => (0, 1),
        (_, Block::Post) => (1, 2),
        (_, Block::Sandwich) => (1, 3),
        (_, Block::Parallel) => (0, 0),
    };
    let bias = |rows: u128| if arch.bias { rows } else { 0 };
    let down = |width: u64| u128::from(width) * h + bias(h);
    let every = arch.moe_every.max(1);
    let last_is_moe =
        arch.moe() && arch.layers.is_multiple_of(every) && arch.layers > arch.first_dense_layers;
    let ffn = if last_is_moe { Ffn::Moe } else { Ffn::Dense };
    let (ffn_down, ffn_all) = match ffn {
        Ffn::Dense => {
            let mut mlp = Counted::default();
            mlp.mlp(arch, u128::from(arch.ffn));
            (div_ceil(down(arch.ffn), t), div_ceil(mlp.total, t))
        }
        Ffn::Moe => {
            let mut expert = Counted::default();
            expert.mlp(arch, u128::from(arch.expert_width()));
            let local = u128::from(arch.experts).div_ceil(u128::from(input.ep.max(1)));
            let etp = u128::from(input.expert_tp());
            let shared = if arch.shared_width() > 0 {
                div_ceil(down(arch.shared_width()), t)
            } else {
                0
            };
            (
                div_ceil(local * down(arch.expert_width()), etp) + shared,
                div_ceil(local * expert.total, etp) + div_ceil(moe_common(arch).total, t),
            )
        }
    };
    let output = div_ceil(arch.attention_widths().output * h + bias(h), t);
    let g = gradient_bytes(input);
    [
        g * (above + ffn_down + norms_ffn * norm),
        g * (above + ffn_all + output + norms_attention * norm),
    ]
}

/// The last layer's backward pass at each of its two working sets (the FFN
/// activation's, the attention core's): (activation bytes per sample, the
/// gradients created by then, [`gradients_beside_layers`]), per GPU. The
/// activations are every saved tensor, the embedding's side and the layer
/// in flight's transient set with that working set (the loss's and the
/// head's tensors are freed by then). `memory` counts the larger at its
/// batch, beside the loss's moment. `gradients` is not both 0:
/// [`PerSample::layers_backward`](super::PerSample::layers_backward) answers
/// 0 where no gradient is counted.
pub(super) fn layers_backward(
    input: &TransformerInput,
    gradients: [u128; 2],
    saved: &Saved,
) -> [(u128, u128); 2] {
    let residual = residual_gradient(input);
    let with = |set: fn((u128, u128)) -> u128| {
        let working = |ffn: Ffn, layers: u64| {
            if layers > 0 {
                residual + set(working_sets(input, ffn))
            } else {
                0
            }
        };
        let saved = Saved {
            working_dense: working(Ffn::Dense, input.arch.dense_layers()),
            working_moe: working(Ffn::Moe, input.arch.moe_layers()),
            ..*saved
        };
        let (kept, _, layer) = backward_start(input, &saved);
        kept + layer
    };
    [
        (with(|(mlp, _)| mlp), gradients[0]),
        (with(|(_, attention)| attention), gradients[1]),
    ]
}

/// Megatron-LM's 16-bit weight gradients without gradient-accumulation
/// fusion (`grad_accum_fusion=0`, `--no-gradient-accumulation-fusion`), per
/// GPU: what the backward pass holds beside its other tensors, in two
/// moments ([`unfused_moments`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnfusedGradients {
    /// The output layer's, in the head's backward pass.
    pub head: u128,
    /// Beside every layer's backward pass: the layer's largest, and a tied
    /// head's, waiting for the embedding's.
    pub layers: u128,
}

/// The weight gradients `grad_accum_fusion=0` keeps in the model's 16 bits,
/// on a rank holding `ends`; `None` where the fusion is on or means nothing
/// (not `recipe=main_fp32`, inference, LoRA, whose frozen weights compute no
/// weight gradient). NVIDIA/Megatron-LM at d98e8a64:
///
/// - megatron/core/tensor_parallel/layers.py
///   `LinearWithGradAccumulationAndAsyncCommunication.backward` (the output
///   layer's `ColumnParallelLinear`, and the layers' linear maps under the
///   local spec): with `gradient_accumulation_fusion` off, `grad_weight =
///   grad_output.t().matmul(total_input)` in the parameter's dtype,
///   returned beside `grad_input`; with it on,
///   `fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp32` accumulates into
///   `weight.main_grad`. Transformer Engine's modules, which the default
///   spec builds (megatron/core/extensions/transformer_engine.py:
///   `fuse_wgrad_accumulation=self.config.gradient_accumulation_fusion`),
///   do the same (NVIDIA/TransformerEngine
///   transformer_engine/pytorch/module/linear.py: the wgrad GEMM's `out` is
///   `main_grad` with fusion, else a new tensor of `activation_dtype`).
/// - megatron/core/distributed/distributed_data_parallel.py registers
///   `_make_backward_post_hook` on each parameter's `AccumulateGrad`
///   (`grad_acc.register_hook`): once `AccumulateGrad` has put the gradient
///   in `.grad`, the hook adds it into the FP32 buffer
///   (`param.main_grad.add_(param.grad.data)`) and drops it (`param.grad =
///   None`). `AccumulateGrad` runs as soon as its input is ready (the largest
///   sequence number, [`gradients_beside_layers`]), so one product's 16-bit
///   gradient exists at a time, from its GEMM to the hook.
/// - megatron/training/arguments.py: `--no-gradient-accumulation-fusion` is
///   `action='store_false'`, `dest='gradient_accumulation_fusion'`: fused by
///   default.
///
/// The output layer's gradient, vocabulary × hidden / t (a decoder's head
/// on this rank), exists in the head's backward. A tied head's (the
/// embedding and head on one rank) waits in the shared weight's
/// `AccumulateGrad` input buffer until the embedding's backward, at the end
/// of the pass, adds its own (torch/csrc/autograd/input_buffer.cpp
/// `accumulate`): it is alive beside every layer's backward pass. A layer's
/// largest gradient ([`largest_layer_gradient`]) is counted beside its
/// transient set: an upper bound, as a product's gradient is freed by the
/// hook before the FFN activation's or the attention core's backward runs,
/// beside the product's own incoming and outgoing gradients, which this
/// takes to be no larger than that set.
pub fn unfused_gradients(input: &TransformerInput, ends: Ends) -> Option<UnfusedGradients> {
    if input.grad_accum_fusion
        || input.mode != Mode::Train
        || input.recipe != Recipe::MainFp32
        || input.lora()
    {
        return None;
    }
    let arch = &input.arch;
    let e = input.activation_bytes();
    let head = if ends.head && arch.kind == Kind::Decoder {
        e * div_ceil(
            u128::from(arch.vocab) * u128::from(arch.hidden),
            u128::from(input.tp),
        )
    } else {
        0
    };
    let tied = if arch.tied && ends.embedding { head } else { 0 };
    Some(UnfusedGradients {
        head,
        layers: tied + e * largest_layer_gradient(input),
    })
}

/// The largest weight gradient one of the layers' products returns at once,
/// in elements per GPU: of Megatron-Core's linear maps on the rank
/// ([`megatron_linears`]: `linear_qkv` one matrix, `linear_fc1` gate and up
/// as one), a MoE layer's local experts' first or second maps all at once,
/// as a grouped GEMM's backward returns them.
fn largest_layer_gradient(input: &TransformerInput) -> u128 {
    let layers_only = Ends {
        embedding: false,
        head: false,
    };
    megatron_linears(input, layers_only).largest_at_once()
}

/// What the output layer's backward holds above the layers per sample and
/// GPU, where it computes its weight's 16-bit gradient
/// ([`unfused_gradients`]): the final norm's and head's saved inputs and its
/// incoming gradient, the logits', handed over in the head's dtype (the
/// engine casts the vocab-parallel loss's FP32 gradient to the logits'
/// dtype, torch/csrc/autograd/engine.cpp `validate_outputs`, or the cast
/// node of PyTorch's loss does), the loss's other tensors freed before it
/// runs. Never more than the loss's moment ([`Saved::above`]). The gradient
/// of the head's input (`grad_input = grad_output.matmul(weight)`, e·s·h,
/// h/v of the logits') is not counted, as at the loss (docs/model.md §6).
/// Under a chunked or fused loss, whose head runs inside the loss chunk by
/// chunk, the loss's tensors at the start of the backward pass stand in
/// for it (an upper bound).
pub fn head_backward(input: &TransformerInput, saved: &Saved) -> u128 {
    let arch = &input.arch;
    match (arch.kind, input.loss) {
        (Kind::Decoder, Loss::Full | Loss::VocabParallel | Loss::VocabParallelFused) => {
            let logits =
                input.activation_bytes() * u128::from(input.tokens()) * u128::from(arch.vocab);
            output_layer_inputs(input) + div_ceil(logits, u128::from(input.tp))
        }
        _ => saved.above,
    }
}

/// The two moments [`unfused_gradients`] adds to, as activations per
/// sample and GPU of the whole model: (a layer's backward pass, every
/// saved tensor with the layer in flight's transient set; the output
/// layer's backward, every saved tensor with [`head_backward`]'s).
pub(super) fn unfused_moments(input: &TransformerInput, saved: &Saved) -> (u128, u128) {
    let (kept, _, transient) = backward_start(input, saved);
    (kept + transient, kept + head_backward(input, saved))
}

/// Transformer Engine's dummy weight gradients under Megatron-LM's
/// gradient-accumulation fusion (`grad_accum_fusion=1`, its default), in
/// bytes per GPU on a rank holding `ends`: one 16-bit tensor per distinct
/// weight shape of the rank's linear maps, cached for the whole run and
/// alive from the first backward pass on. 0 where the fusion is off or
/// means nothing (the conditions of [`unfused_gradients`]). Megatron-LM's
/// own stack has Transformer Engine installed (NVIDIA's containers, and
/// the default spec builds its modules): `recipe=main_fp32` counts it.
///
/// - NVIDIA/Megatron-LM d98e8a64 megatron/core/tensor_parallel/layers.py
///   `LinearWithGradAccumulationAndAsyncCommunication.backward` (the output
///   layer's `ColumnParallelLinear`, tied or not: with a tied head it runs
///   with the embedding's weight, which has a `main_grad` too): with the
///   fusion, where the weight has `grad_added_to_main_grad` (which
///   megatron/core/distributed/distributed_data_parallel.py sets on every
///   parameter with a gradient), `grad_weight =
///   get_dummy_wgrad(list(weight.main_grad.shape), input.dtype)` under
///   `HAVE_TE`.
/// - NVIDIA/TransformerEngine d0067d0d transformer_engine/pytorch/module/
///   base.py `get_dummy_wgrad`: `_dummy_wgrads[(*shape, dtype)]`, a
///   module-level cache created by `torch.empty` at the first request and
///   never freed, returned as `.detach()`. linear.py (`TERowParallelLinear`,
///   `linear_proj`, `linear_fc2`), layernorm_linear.py
///   (`TELayerNormColumnParallelLinear`, `linear_qkv`, `linear_fc1`) and
///   grouped_linear.py (`TEGroupedLinear`, the experts, one call per
///   expert's weight, all of one shape) return it under
///   `fuse_wgrad_accumulation` with `grad_added_to_main_grad`;
///   layernorm_mlp.py returns a fresh `torch.empty`, and Megatron-Core's
///   default specs do not build it.
/// - PyTorch torch/csrc/autograd/functions/accumulate_grad.h
///   `accumulateGrad`: a new gradient whose `use_count()` is within the
///   expected references (the detached alias is its own tensor, its only
///   holder the engine) is stolen as `.grad` without a copy; the DDP hook
///   then sets `param.grad = None`. No other allocation.
///
/// The shapes, Megatron-Core's (`linear_qkv` one matrix, `linear_fc1` gate
/// and up as one, whatever `fused_proj` says of the checkpoint's code),
/// divided over the tensor-parallel ranks ([`megatron_linears`]): the
/// layers' and the output layer's. The embedding is no linear map (its
/// gradient is the embedding backward's own), and the MoE router's weight
/// goes through megatron/core/transformer/moe/moe_utils.py
/// `router_gating_linear`, whose backward returns a real gradient.
pub fn dummy_wgrads(input: &TransformerInput, ends: Ends) -> u128 {
    if !input.grad_accum_fusion
        || input.mode != Mode::Train
        || input.recipe != Recipe::MainFp32
        || input.lora()
    {
        return 0;
    }
    input.activation_bytes() * megatron_linears(input, ends).distinct_elements()
}

/// The model's output a training loop keeps (`outputs=kept`,
/// `kept_fp32`), per sample on this rank: one logit-sized tensor,
/// bytes × tokens × vocabulary / tp (the head's output is split over the
/// vocabulary-parallel ranks), alive at every moment of a step from the
/// second on. 0 elsewhere: in inference, without a decoder's head on this
/// rank, and with a loss other than `full` (torchtune's chunked and
/// Unsloth's fused losses never materialise the full logits; Megatron-Core's
/// model returns the per-token loss, not the logits).
///
/// - huggingface/transformers src/transformers/models/llama/
///   modeling_llama.py `LlamaForCausalLM.forward`: `logits =
///   self.lm_head(hidden_states[:, slice_indices, :])`, every position in
///   training (`logits_to_keep=0`), in the head's compute dtype, returned as
///   `CausalLMOutputWithPast(loss=loss, logits=logits, …)`;
///   src/transformers/loss/loss_utils.py `ForCausalLMLoss` upcasts its own
///   local (`logits = logits.float()`). Up to v4.45 the forward itself did
///   `logits = self.lm_head(…).float()` ("Starting from v4.46, the `logits`
///   model output will have the same type as the model"): `kept_fp32`.
/// - The name `outputs` holds the ModelOutput, and with it the logits,
///   through `loss.backward()` and the optimizer step; the next
///   iteration's `outputs = model(**batch)` rebinds it only once that
///   forward pass (and a loss computed inside it) has returned. Under
///   gradient accumulation each micro-batch rebinds it: one micro-batch's.
pub fn kept_outputs(input: &TransformerInput, ends: Ends) -> u128 {
    let bytes = match input.outputs {
        Outputs::Dropped => return 0,
        // The head's dtype: FP32 once `prepare_model_for_kbit_training`
        // cast it ([`TransformerInput::kbit_prepared`]).
        Outputs::Kept => input.unquantized_bytes(),
        Outputs::KeptFp32 => 4,
    };
    if input.mode != Mode::Train
        || input.arch.kind != Kind::Decoder
        || input.loss != Loss::Full
        || !ends.head
    {
        return 0;
    }
    div_ceil(
        bytes * u128::from(input.tokens()) * u128::from(input.arch.vocab),
        u128::from(input.tp.max(1)),
    )
}

/// One rank's linear maps as Megatron-Core lays them out, each as (rows,
/// columns, how many of that shape one backward returns at once: a grouped
/// GEMM's local experts, else 1), in place: a rank has at most twelve kinds
/// (MLA's four projections and the output projection, two per MLP for
/// dense, routed and shared experts, the head), and sorting a list of them
/// cost the page 2.8 KB of gzipped WebAssembly.
#[derive(Clone, Copy, Debug, Default)]
struct MegatronLinears {
    maps: [(u128, u128, u128); 12],
    len: usize,
}

impl MegatronLinears {
    /// Adds a kind of map unless it is already there.
    fn insert(&mut self, map: (u128, u128, u128)) {
        if !self.maps[..self.len].contains(&map) && self.len < self.maps.len() {
            self.maps[self.len] = map;
            self.len += 1;
        }
    }

    /// Elements over the distinct shapes (rows, columns).
    fn distinct_elements(&self) -> u128 {
        let maps = &self.maps[..self.len];
        maps.iter()
            .enumerate()
            .filter(|&(i, (rows, cols, _))| {
                !maps[..i].iter().any(|(r, c, _)| (r, c) == (rows, cols))
            })
            .map(|(_, (rows, cols, _))| rows * cols)
            .sum()
    }

    /// Elements of the largest set of gradients one backward returns.
    fn largest_at_once(&self) -> u128 {
        self.maps[..self.len]
            .iter()
            .map(|(rows, cols, at_once)| rows * cols * at_once)
            .max()
            .unwrap_or(0)
    }
}

/// The linear maps per GPU on a rank holding `ends` whose backward returns a
/// weight gradient: Megatron-Core's modules (megatron/core/models/gpt/
/// gpt_layer_specs.py: `linear_qkv` one matrix, `linear_fc1` gate and up as
/// one under `gated_linear_unit`, whatever `fused_proj` says of the
/// checkpoint's code; megatron/core/transformer/multi_latent_attention.py
/// `MLASelfAttention`: the down projections `parallel_mode='duplicated'`,
/// whole on every rank; the experts of a grouped GEMM, all local ones at
/// once; the output layer on the head's rank). The embedding is no linear
/// map, and the router's weight is not among them
/// (megatron/core/transformer/moe/moe_utils.py `router_gating_linear`).
fn megatron_linears(input: &TransformerInput, ends: Ends) -> MegatronLinears {
    let arch = &input.arch;
    let h = u128::from(arch.hidden);
    let t = u128::from(input.tp.max(1));
    let split = |rows: u128| div_ceil(rows, t);
    let widths = arch.attention_widths();
    let mut maps = MegatronLinears::default();
    if arch.layers > 0 {
        if arch.mla() {
            let (ql, kvl) = (u128::from(arch.q_lora_rank), u128::from(arch.kv_lora_rank));
            let nope = u128::from(arch.heads) * u128::from(arch.qk_nope_head_dim);
            if ql > 0 {
                maps.insert((ql, h, 1));
                maps.insert((split(widths.q), ql, 1));
            } else {
                maps.insert((split(widths.q), h, 1));
            }
            maps.insert((kvl + u128::from(arch.qk_rope_head_dim), h, 1));
            maps.insert((split(nope + widths.v), kvl, 1));
        } else {
            maps.insert((split(widths.q + widths.k + widths.v), h, 1));
        }
        maps.insert((h, split(widths.output), 1));
    }
    // `linear_fc1` (gate and up as one where gated) and `linear_fc2`, over
    // `ranks`, `at_once` of each.
    let mlp = |maps: &mut MegatronLinears, width: u64, ranks: u128, at_once: u128| {
        let f = div_ceil(u128::from(width), ranks);
        let into = match arch.mlp {
            Mlp::Gelu | Mlp::GeluNew => 1,
            Mlp::Swiglu => 2,
        };
        maps.insert((into * f, h, at_once));
        maps.insert((h, f, at_once));
    };
    if arch.dense_layers() > 0 {
        mlp(&mut maps, arch.ffn, t, 1);
    }
    if arch.moe_layers() > 0 {
        let local = u128::from(arch.experts).div_ceil(u128::from(input.ep.max(1)));
        mlp(
            &mut maps,
            arch.expert_width(),
            u128::from(input.expert_tp()),
            local,
        );
        if arch.shared_width() > 0 {
            mlp(&mut maps, arch.shared_width(), t, 1);
        }
    }
    if ends.head && arch.kind == Kind::Decoder {
        maps.insert((split(u128::from(arch.vocab)), h, 1));
    }
    maps
}

/// Training whose gradients stay in autograd's `.grad` as the backward pass
/// creates them, to be stepped after it: no LoRA, no step in the backward
/// pass, no ZeRO-2 or FSDP2 reduction of each gradient as it is made, no
/// parameter offload, no pipeline ([`gradients_beside_layers`]).
fn gradients_stay_in_grad(input: &TransformerInput) -> bool {
    input.mode == Mode::Train
        && !input.lora()
        && input.effective_step() != Step::InBackward
        && input.zero_stage() < 2
        && input.recipe != Recipe::Fsdp
        && !input.param_offload
        && input.pp <= 1
}

/// What the embedding's backward, the last node of the backward pass, holds
/// beside every gradient, per GPU: (bytes, bytes per sample). Its incoming
/// gradient, the residual stream's ([`residual_gradient`]), and with a tied
/// head the embedding's own dense gradient: aten
/// `embedding_dense_backward` writes a vocab × hidden gradient (in the
/// incoming gradient's dtype, the gradients' bytes), which the engine adds
/// into the input buffer that has held the head's gradient for the same
/// weight since the head's backward (torch/csrc/autograd/input_buffer.cpp
/// `accumulate`: `old_var.add_(var)`), both alive until the addition
/// returns and `AccumulateGrad` steals the sum. An untied embedding's
/// gradient is stolen into `.grad` itself (counted with the gradients); a
/// ViT's patch convolution does not compute its input's gradient. (0, 0)
/// where the gradients do not stay in `.grad` ([`gradients_stay_in_grad`]);
/// `memory` counts it only where the gradients are not held with the
/// activations.
pub fn embedding_backward(input: &TransformerInput) -> (u128, u128) {
    if !gradients_stay_in_grad(input) {
        return (0, 0);
    }
    let arch = &input.arch;
    let tied = if arch.tied && arch.kind == Kind::Decoder {
        let matrix = u128::from(arch.vocab) * u128::from(arch.hidden);
        gradient_bytes(input) * div_ceil(matrix, u128::from(input.tp))
    } else {
        0
    };
    (tied, residual_gradient(input))
}
