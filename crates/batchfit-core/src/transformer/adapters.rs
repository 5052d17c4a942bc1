//! LoRA's adapters (docs/model.md §3.8) and QLoRA's dequantized weight.

use super::architecture::ParameterCount;
use super::input::{Ffn, Mixer, TransformerInput};
use super::options::{BaseQuant, LinearMixer, LoraTargets, LoraVariant, Mlp, Mode};
use crate::arith::div_ceil;

/// LoRA's adapters per GPU (Hu et al. 2021, §4.1): beside each targeted
/// linear map W (d_in → d_out) of every block, A (r × d_in) and B (d_out × r),
/// split over tensor-parallel ranks with their map (the routed experts' over
/// the expert tensor-parallel ranks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adapters {
    /// The whole model's adapter parameters: what trains.
    pub total: u128,
    /// Those on one tensor-parallel rank.
    pub parameters: u128,
    /// The largest single adapter matrix.
    pub largest: u128,
    /// Σ (rows + columns) over the adapter matrices: Adafactor's factored state.
    pub factored: u128,
    /// DoRA's working set while one targeted map computes its forward
    /// (largest over the maps), per GPU; 0 for LoRA.
    pub dora_working: u128,
    /// The adapters of the layer that has the most, on one rank.
    pub layer: u128,
}

/// The adapters of one block's targeted maps, summed over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct BlockAdapters {
    parameters: u128,
    largest: u128,
    factored: u128,
    /// Σ d_in: how much input the adapter branches read per token.
    pub(super) inputs_per_token: u128,
    /// Σ d_out: DoRA's magnitudes, and the outputs it saves per token.
    pub(super) outputs_per_token: u128,
    pub(super) maps: u128,
    dora_working: u128,
}

impl BlockAdapters {
    /// `maps` as (d_in, d_out, targeted).
    fn of(input: &TransformerInput, maps: &[(u128, u128, bool)]) -> Self {
        let r = u128::from(input.lora_rank);
        let mut out = Self::default();
        let dora = input.lora_variant == LoraVariant::Dora;
        // peft/tuners/lora/dora.py `DoraLinearLayer.forward`, per targeted
        // map in training: `get_lora_weight` builds B·A as lora_B(lora_A(
        // x_eye)) from a d_in × d_in identity in the adapters' dtype (FP32),
        // with lora_A's d_in × r output and the d_in × d_out product; the
        // product is cast to the input's dtype, and `get_weight_norm` adds
        // `scaling * lora_weight` (one temporary) to the (dequantized) base
        // weight (the sum, another) before its norm. All freed by the end of
        // the map's forward: the largest map's set is alive at once.
        let e = input.activation_bytes();
        let dequantized = if input.quantized() { e } else { 0 };
        for &(d_in, d_out, _) in maps.iter().filter(|m| m.2 && m.0 > 0 && m.1 > 0) {
            let magnitude = if dora { d_out } else { 0 };
            out.parameters += r * (d_in + d_out) + magnitude;
            out.largest = out.largest.max(r * d_in.max(d_out));
            out.factored += (r + d_in) + (d_out + r) + magnitude;
            out.inputs_per_token += d_in;
            out.outputs_per_token += d_out;
            out.maps += 1;
            if dora {
                let working =
                    4 * d_in * d_in + 4 * r * d_in + (4 + 3 * e + dequantized) * d_in * d_out;
                out.dora_working = out.dora_working.max(working);
            }
        }
        out
    }
}

/// The targeted maps of each kind of block, as PEFT matches them: its
/// `target_modules` names match every module whose name ends with one of
/// them (peft/tuners/tuners_utils.py `check_target_module_exists`), so
/// `gate_proj`, `up_proj`, `down_proj` reach the dense MLPs, the shared
/// experts and, where the experts are separate `nn.Linear`s, every routed
/// expert's; `"all-linear"` is every `nn.Linear` but the output layer,
/// the router's too (`_maybe_include_all_linear_layers`). batchfit's `mlp`
/// and `all` on a MoE model are the dense and shared maps, `experts` the
/// routed experts' and `all_experts` all of them with the router.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct AdapterBlocks {
    /// Every attending layer's attention.
    attention: BlockAdapters,
    /// A hybrid model's linear layer's mixer: its input projections and
    /// `out_proj`, `nn.Linear`s that only `"all-linear"` reaches
    /// (`in_proj_qkvz`, `in_proj_ba` of Gated DeltaNet, Mamba-2's `in_proj`;
    /// PEFT's default targets name attention projections these layers do
    /// not have).
    linear: BlockAdapters,
    /// A dense layer's MLP.
    dense: BlockAdapters,
    /// A MoE layer's shared experts and router.
    moe: BlockAdapters,
    /// One routed expert of a MoE layer.
    expert: BlockAdapters,
}

impl AdapterBlocks {
    pub(super) fn of(input: &TransformerInput) -> Self {
        if !input.lora() {
            return Self::default();
        }
        let arch = &input.arch;
        let h = u128::from(arch.hidden);
        let head = u128::from(arch.head_size());
        let (q, kv) = (
            u128::from(arch.heads) * head,
            u128::from(arch.kv_heads) * head,
        );
        let targets = input.lora_targets;
        let attention = matches!(
            targets,
            LoraTargets::Attn | LoraTargets::All | LoraTargets::AllExperts
        );
        let mlp = matches!(
            targets,
            LoraTargets::Mlp | LoraTargets::All | LoraTargets::AllExperts
        );
        let experts = matches!(targets, LoraTargets::Experts | LoraTargets::AllExperts);
        let qv = attention || targets == LoraTargets::Qv;
        let gated = arch.mlp == Mlp::Swiglu;
        // (d_in, d_out, targeted) of gate, up and down at width f.
        let ffn = |f: u64, on: bool| {
            let f = u128::from(f);
            [(h, f, on && gated), (h, f, on), (f, h, on)]
        };
        let router = (
            h,
            u128::from(arch.experts),
            targets == LoraTargets::AllExperts,
        );
        let [gate, up, down] = ffn(arch.shared_width(), mlp);
        let w = arch.linear_widths();
        let linear_in = match arch.linear_mixer {
            LinearMixer::None => [(0, 0, false); 2],
            LinearMixer::GatedDeltanet => [
                (h, 2 * w.keys + 2 * w.values, attention),
                (h, 2 * w.heads, attention),
            ],
            LinearMixer::Mamba2 => [
                (h, 2 * w.values + 2 * w.keys + w.heads, attention),
                (0, 0, false),
            ],
        };
        Self {
            linear: BlockAdapters::of(
                input,
                &[linear_in[0], linear_in[1], (w.values, h, attention)],
            ),
            // W_q, W_k, W_v, W_o.
            attention: BlockAdapters::of(
                input,
                &[
                    (h, q, qv),
                    (h, kv, attention),
                    (h, kv, qv),
                    (q, h, attention),
                ],
            ),
            dense: BlockAdapters::of(input, &ffn(arch.ffn, mlp)),
            moe: BlockAdapters::of(input, &[gate, up, down, router]),
            expert: BlockAdapters::of(input, &ffn(arch.expert_width(), experts)),
        }
    }

    /// What the adapter branches save per sample in one layer of the kind
    /// `ffn`: per token for the attention and the dense or shared maps, per
    /// routed copy for the routed experts' (each expert's adapters read the
    /// tokens routed to it).
    pub(super) fn per_layer<F: Fn(&BlockAdapters) -> u128>(
        &self,
        input: &TransformerInput,
        ffn: Ffn,
        mixer: Mixer,
        saved: F,
    ) -> u128 {
        let s = u128::from(input.tokens());
        let mixer = match mixer {
            Mixer::Attention => saved(&self.attention),
            Mixer::Linear => saved(&self.linear),
        };
        match ffn {
            Ffn::Dense => s * (mixer + saved(&self.dense)),
            Ffn::Moe => {
                s * (mixer + saved(&self.moe)) + input.routed_copies() * saved(&self.expert)
            }
        }
    }
}

impl Adapters {
    /// The adapters of `input`, all zero without LoRA.
    pub fn of(input: &TransformerInput) -> Self {
        // Without LoRA every count is zero: the page asks for them on every
        // estimate, and their 128-bit divisions are not free.
        if !input.lora() {
            return Self::default();
        }
        let (shared, routed) = Self::pools(input);
        // A MoE layer's own adapters beside its routed experts'.
        let blocks = AdapterBlocks::of(input);
        let arch = &input.arch;
        let (t, et) = (u128::from(input.tp), u128::from(input.expert_tp()));
        // The mixer with the most adapters among the layers'.
        let mixer = match arch.linear_layers() {
            0 => blocks.attention.parameters,
            _ if arch.attention_layers() == 0 => blocks.linear.parameters,
            _ => blocks.attention.parameters.max(blocks.linear.parameters),
        };
        let dense = if arch.dense_layers() > 0 {
            div_ceil(mixer + blocks.dense.parameters, t)
        } else {
            0
        };
        let moe = if arch.moe_layers() > 0 {
            div_ceil(mixer + blocks.moe.parameters, t)
                + div_ceil(u128::from(arch.experts) * blocks.expert.parameters, et)
        } else {
            0
        };
        Self {
            total: shared.total + routed.total,
            parameters: shared.parameters + div_ceil(routed.parameters, et),
            largest: shared.largest.max(div_ceil(routed.largest, et)),
            factored: shared.factored + div_ceil(routed.factored, et),
            dora_working: shared.dora_working.max(div_ceil(routed.dora_working, et)),
            layer: dense.max(moe),
        }
    }

    /// The adapters beside the attention, dense and shared maps (and the
    /// router), split over `tp`; and those on the routed experts, whole
    /// (`model_states` divides them over ep × etp with their experts).
    pub fn pools(input: &TransformerInput) -> (Self, Self) {
        if !input.lora() {
            return (Self::default(), Self::default());
        }
        let blocks = AdapterBlocks::of(input);
        let arch = &input.arch;
        let (attention, linear) = (
            u128::from(arch.attention_layers()),
            u128::from(arch.linear_layers()),
        );
        let dense = u128::from(arch.dense_layers());
        let moe = u128::from(arch.moe_layers());
        let experts = u128::from(arch.experts);
        let t = u128::from(input.tp);
        let over = |layers_of: [(u128, &BlockAdapters); 4], t: u128| {
            let sum = |f: fn(&BlockAdapters) -> u128| {
                layers_of.iter().map(|(n, b)| n * f(b)).sum::<u128>()
            };
            let most = |f: fn(&BlockAdapters) -> u128| {
                layers_of
                    .iter()
                    .filter(|(n, _)| *n > 0)
                    .map(|(_, b)| f(b))
                    .max()
                    .unwrap_or(0)
            };
            let total = sum(|b| b.parameters);
            Self {
                total,
                parameters: div_ceil(total, t),
                largest: div_ceil(most(|b| b.largest), t),
                factored: div_ceil(sum(|b| b.factored), t),
                dora_working: div_ceil(most(|b| b.dora_working), t),
                layer: div_ceil(most(|b| b.parameters), t),
            }
        };
        let none = BlockAdapters::default();
        let shared = over(
            [
                (attention, &blocks.attention),
                (linear, &blocks.linear),
                (dense, &blocks.dense),
                (moe, &blocks.moe),
            ],
            t,
        );
        let routed = over(
            [
                (moe * experts, &blocks.expert),
                (0, &none),
                (0, &none),
                (0, &none),
            ],
            1,
        );
        (shared, routed)
    }
}

/// bitsandbytes' dequantized copy of one quantized weight (`base_quant`), per
/// GPU: the largest of the layers' linear maps, alive while it computes.
/// 4-bit (`nf4`, `fp4`): `MatMul4Bit.backward` (bitsandbytes/autograd/
/// _functions.py) computes the input's gradient as `grad_output @
/// F.dequantize_4bit(B, ctx.state).to(grad_output.dtype)`: the whole weight
/// in its load dtype (taken as the compute dtype, so `.to` copies nothing),
/// and with double quantization the FP32 absmaxes dequantized first, one per
/// 64 weights (functional.py `dequantize_4bit`: `absmax =
/// dequantize_blockwise(quant_state.absmax, quant_state.state2)`). The
/// forward pass over more than 1,536 tokens dequantizes the same weight
/// (backends/cuda/ops.py `_dequant_linear_fallback`, past
/// `_gemm_4bit_custom_max_m`); fewer run a fused kernel. One map at a time
/// either way. int8: `MatMul8bitLt.backward` builds `state.CB.to(dtype_A,
/// copy=True).mul_(state.SCB.unsqueeze(1).mul(1.0 / 127.0))`: the 16-bit
/// copy and one FP32 scale per output row; its forward multiplies in int8
/// without one. Tensor parallelism splits the map (taken as column-parallel
/// for its rows).
pub fn dequantized_weight(count: &ParameterCount, input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train || !input.quantized() {
        return 0;
    }
    let t = u128::from(input.tp);
    let (weight, rows) = (
        div_ceil(count.largest_linear, t),
        div_ceil(count.largest_linear_rows, t),
    );
    let copy = input.activation_bytes() * weight;
    match input.base_quant {
        BaseQuant::None => 0,
        BaseQuant::Nf4 | BaseQuant::Fp4 if input.double_quant => copy + 4 * div_ceil(weight, 64),
        BaseQuant::Nf4 | BaseQuant::Fp4 => copy,
        BaseQuant::Int8 => copy + 4 * rows,
    }
}
