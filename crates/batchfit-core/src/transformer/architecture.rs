//! The architecture and its parameters, counted matrix by matrix
//! (docs/model.md §3.1), per pipeline stage, and where the MoE layers are.

use super::bounds::{
    CHANNELS, EXPERT_FFN, EXPERTS, EXPERTS_ACTIVE, FIRST_DENSE_LAYERS, FULL_ATTENTION_INTERVAL,
    GLOBAL_EVERY, IMAGE, KV_LORA_RANK, LINEAR_CONV_KERNEL_DIM, LINEAR_KEY_HEAD_DIM,
    LINEAR_NUM_KEY_HEADS, LINEAR_NUM_VALUE_HEADS, LINEAR_VALUE_HEAD_DIM, MOE_EVERY, PATCH,
    Q_LORA_RANK, QK_NOPE_HEAD_DIM, QK_ROPE_HEAD_DIM, SHARED_EXPERTS, SHARED_FFN, V_HEAD_DIM,
    WINDOW,
};
use super::options::{Block, FusedProj, Kind, LinearMixer, Mlp, Norm};

/// A transformer's shape: enough to count every parameter exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Architecture {
    pub kind: Kind,
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    /// Key/value heads: = heads for multi-head, fewer for GQA, 1 for MQA.
    pub kv_heads: u64,
    /// Per-head size; 0 means hidden / heads.
    pub head_dim: u64,
    pub ffn: u64,
    pub mlp: Mlp,
    pub norm: Norm,
    pub vocab: u64,
    /// Input embedding and LM head share one matrix.
    pub tied: bool,
    /// Every linear map has a bias (GPT-2, BERT, ViT).
    pub bias: bool,
    /// Only the query/key/value maps have biases (Qwen2).
    pub qkv_bias: bool,
    /// Norms on the queries and keys before the rotary embedding (QK-norm),
    /// of the kind of [`Architecture::norm`], over each head's head_dim and
    /// shared by the heads: transformers models/qwen3/modeling_qwen3.py,
    /// qwen3_moe and models/gemma3/modeling_gemma3.py, `q_norm =
    /// …RMSNorm(head_dim)`, `k_norm = …RMSNorm(head_dim)`: 2 × head_dim
    /// weights per layer.
    pub qk_norm: bool,
    /// The QK-norms run over the whole Q and K projections instead:
    /// transformers models/olmo2/modeling_olmo2.py and models/olmoe,
    /// `q_norm = …RMSNorm(heads × head_dim)`, `k_norm = …RMSNorm(kv_heads ×
    /// head_dim)`: (heads + kv_heads) × head_dim weights per layer. Only with
    /// `qk_norm`.
    pub qk_norm_full: bool,
    /// Attention sinks (gpt-oss): one learned logit per head and layer.
    pub attn_sinks: bool,
    pub positions: u64,
    pub token_types: u64,
    pub labels: u64,
    /// Dropout active in training (GPT-2, BERT, ViT: 0.1; Llama-style: 0):
    /// each dropout keeps a 1-byte mask.
    pub dropout: bool,
    pub image: u64,
    pub patch: u64,
    pub channels: u64,
    /// Where the norms sit, and whether attention and the MLP run in parallel.
    pub block: Block,
    /// Sliding-window length in tokens (0 = none).
    pub window: u64,
    /// Every n-th layer is global (0 = none).
    pub global_every: u64,
    /// Gemma 2's soft-capping of the final logits, `cap × tanh(logits / cap)`
    /// (transformers models/gemma2/modeling_gemma2.py `Gemma2ForCausalLM`,
    /// `final_logit_softcapping`).
    pub softcap: bool,
    /// Gemma 2's soft-capping of the attention scores (`attn_logit_softcapping`).
    pub attn_softcap: bool,
    /// Routed experts per MoE layer; 0 is a dense model.
    pub experts: u64,
    /// Routed experts per token (top-k).
    pub experts_active: u64,
    /// Each routed expert's FFN size; 0 means `ffn`.
    pub expert_ffn: u64,
    /// Shared experts, computed for every token.
    pub shared_experts: u64,
    /// Each shared expert's FFN size; 0 means the routed experts' size.
    pub shared_ffn: u64,
    /// Dense layers before the first MoE layer.
    pub first_dense_layers: u64,
    /// Layer i (from 0) is a MoE layer when i ≥ first_dense_layers and
    /// (i + 1) is a multiple of this.
    pub moe_every: u64,
    /// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the compressed
    /// KV size; 0 is ordinary attention.
    pub kv_lora_rank: u64,
    /// MLA's compressed query size; 0 projects the queries directly.
    pub q_lora_rank: u64,
    pub qk_rope_head_dim: u64,
    pub qk_nope_head_dim: u64,
    pub v_head_dim: u64,
    /// Which projections reading one norm's output are one matrix.
    pub fused_proj: FusedProj,
    /// A hybrid model's token mixer in the layers that do not attend
    /// ([`Self::linear_layers`]); `None`: every layer attends.
    pub linear_mixer: LinearMixer,
    /// Every n-th layer attends to every position, the others are linear.
    pub full_attention_interval: u64,
    /// The linear mixer's key heads and their size, value heads and their
    /// size ([`Self::linear_widths`]), and its convolution's width.
    pub linear_num_key_heads: u64,
    pub linear_key_head_dim: u64,
    pub linear_num_value_heads: u64,
    pub linear_value_head_dim: u64,
    pub linear_conv_kernel_dim: u64,
    /// The attention output gated per element by a sigmoid of a second
    /// query-sized projection (Qwen3-Next: transformers
    /// modeling_qwen3_next.py `Qwen3NextAttention`, `q_proj` of `heads ×
    /// head_dim × 2`, `attn_output * torch.sigmoid(gate)`).
    pub attn_output_gate: bool,
}

impl Default for Architecture {
    /// Llama 3.1 8B (meta-llama/Llama-3.1-8B, config.json).
    fn default() -> Self {
        Self {
            kind: Kind::Decoder,
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 8,
            head_dim: 0,
            ffn: 14_336,
            mlp: Mlp::Swiglu,
            norm: Norm::RmsNorm,
            vocab: 128_256,
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
            image: IMAGE.default,
            patch: PATCH.default,
            channels: CHANNELS.default,
            block: Block::Pre,
            window: WINDOW.default,
            global_every: GLOBAL_EVERY.default,
            softcap: false,
            attn_softcap: false,
            experts: EXPERTS.default,
            experts_active: EXPERTS_ACTIVE.default,
            expert_ffn: EXPERT_FFN.default,
            shared_experts: SHARED_EXPERTS.default,
            shared_ffn: SHARED_FFN.default,
            first_dense_layers: FIRST_DENSE_LAYERS.default,
            moe_every: MOE_EVERY.default,
            kv_lora_rank: KV_LORA_RANK.default,
            q_lora_rank: Q_LORA_RANK.default,
            qk_rope_head_dim: QK_ROPE_HEAD_DIM.default,
            qk_nope_head_dim: QK_NOPE_HEAD_DIM.default,
            v_head_dim: V_HEAD_DIM.default,
            fused_proj: FusedProj::None,
            linear_mixer: LinearMixer::None,
            full_attention_interval: FULL_ATTENTION_INTERVAL.default,
            linear_num_key_heads: LINEAR_NUM_KEY_HEADS.default,
            linear_key_head_dim: LINEAR_KEY_HEAD_DIM.default,
            linear_num_value_heads: LINEAR_NUM_VALUE_HEADS.default,
            linear_value_head_dim: LINEAR_VALUE_HEAD_DIM.default,
            linear_conv_kernel_dim: LINEAR_CONV_KERNEL_DIM.default,
            attn_output_gate: false,
        }
    }
}

impl Architecture {
    /// The per-head size actually used: `head_dim`, or hidden / heads when 0.
    pub fn head_size(&self) -> u64 {
        match self.head_dim {
            0 => (self.hidden / self.heads.max(1)).max(1),
            d => d,
        }
    }

    /// Layers that attend through the sliding window: all but every
    /// `global_every`-th, none without a window or in a hybrid model (the
    /// rules do not give it both).
    pub fn windowed_layers(&self) -> u64 {
        if self.window == 0 || self.hybrid() {
            return 0;
        }
        let global = match self.global_every {
            0 => 0,
            n => self.layers / n,
        };
        self.layers - global
    }

    /// A hybrid model: some layers mix tokens with `linear_mixer`.
    pub fn hybrid(&self) -> bool {
        self.linear_mixer != LinearMixer::None && self.full_attention_interval > 1
    }

    /// Layers whose token mixer is `linear_mixer`: all but every
    /// `full_attention_interval`-th, none in a model that is not hybrid.
    pub fn linear_layers(&self) -> u64 {
        if !self.hybrid() {
            return 0;
        }
        self.layers - self.layers / self.full_attention_interval
    }

    /// Layers that attend, and keep a KV cache.
    pub fn attention_layers(&self) -> u64 {
        self.layers - self.linear_layers()
    }

    /// Which layers attend in a hybrid model (every
    /// `full_attention_interval`-th; none is linear otherwise), as
    /// [`MoePlacement`] counts them over a span.
    pub fn attention_placement(&self) -> MoePlacement {
        MoePlacement {
            moe: true,
            first_dense: 0,
            every: self.attention_every(),
        }
    }

    /// Every how many layers one attends: `full_attention_interval` in a
    /// hybrid model, 1 otherwise.
    fn attention_every(&self) -> u64 {
        if self.hybrid() {
            self.full_attention_interval
        } else {
            1
        }
    }

    /// Which layers attend and have a MoE FFN: from `first_dense_layers`
    /// on, every layer whose number is a multiple of both periods.
    pub fn attending_moe_placement(&self) -> MoePlacement {
        let (a, b) = (self.moe_every.max(1), self.attention_every());
        let mut gcd = (a, b);
        while gcd.1 != 0 {
            gcd = (gcd.1, gcd.0 % gcd.1);
        }
        MoePlacement {
            moe: self.moe(),
            first_dense: self.first_dense_layers,
            every: a / gcd.0 * b,
        }
    }

    /// The linear mixer's widths per token and layer: the keys (key heads ×
    /// their size), the values (value heads × their size), and the value
    /// heads. Mamba-2 read the same way: its groups' B and C are the keys
    /// (`n_groups × d_state` each), its `x` the values (`heads × head_dim`,
    /// `d_inner`).
    pub fn linear_widths(&self) -> LinearWidths {
        LinearWidths {
            keys: u128::from(self.linear_num_key_heads) * u128::from(self.linear_key_head_dim),
            values: u128::from(self.linear_num_value_heads)
                * u128::from(self.linear_value_head_dim),
            heads: u128::from(self.linear_num_value_heads),
            key_dim: u128::from(self.linear_key_head_dim),
            value_dim: u128::from(self.linear_value_head_dim),
        }
    }

    /// Parameters of one norm over `dims` units: a weight, and a bias for LayerNorm.
    pub(super) fn norm_parameters(&self, dims: u128) -> u128 {
        match self.norm {
            Norm::LayerNorm => 2 * dims,
            Norm::RmsNorm | Norm::RmsNormFp32 => dims,
        }
    }

    /// Units the QK-norms normalize per layer: 2 × head_dim for per-head
    /// norms, (heads + kv_heads) × head_dim over the whole projections.
    fn qk_norm_units(&self) -> u128 {
        let head = u128::from(self.head_size());
        match (self.qk_norm, self.qk_norm_full) {
            (false, _) => 0,
            (true, false) => 2 * head,
            (true, true) => (u128::from(self.heads) + u128::from(self.kv_heads)) * head,
        }
    }

    /// Tokens per sample for a vision transformer: one per patch plus the class token.
    pub fn patch_tokens(&self) -> u64 {
        let side = self.image / self.patch.max(1);
        side * side + 1
    }

    /// A mixture-of-experts model: some layers route tokens to experts.
    pub const fn moe(&self) -> bool {
        self.experts > 0
    }

    /// Layers whose FFN is a MoE block: layer i (from 0) when i ≥
    /// `first_dense_layers` and (i + 1) is a multiple of `moe_every`, the
    /// rule of transformers' Qwen2-MoE/Qwen3-MoE (`(layer_idx + 1) %
    /// decoder_sparse_step == 0`), Llama 4 (`moe_layers = range(step - 1,
    /// layers, step)`) and DeepSeek-V3 (`layer_idx >= first_k_dense_replace`).
    /// The multiples of n in (first, layers] number ⌊layers/n⌋ − ⌊first/n⌋.
    pub fn moe_layers(&self) -> u64 {
        self.placement().between(0, self.layers)
    }

    /// Which of the layers are MoE layers ([`Self::moe_layers`]' rule).
    pub const fn placement(&self) -> MoePlacement {
        MoePlacement {
            moe: self.moe(),
            first_dense: self.first_dense_layers,
            every: self.moe_every,
        }
    }

    /// Layers with a dense FFN of size `ffn`.
    pub fn dense_layers(&self) -> u64 {
        self.layers - self.moe_layers()
    }

    /// Each routed expert's FFN size.
    pub fn expert_width(&self) -> u64 {
        match self.expert_ffn {
            0 => self.ffn,
            f => f,
        }
    }

    /// The shared experts' FFN size together: DeepSeek-V3 builds them as one
    /// MLP of `moe_intermediate_size × n_shared_experts`
    /// (transformers models/deepseek_v3/modeling_deepseek_v3.py
    /// `DeepseekV3MoE.shared_experts`).
    pub fn shared_width(&self) -> u64 {
        let each = match self.shared_ffn {
            0 => self.expert_width(),
            f => f,
        };
        self.shared_experts.saturating_mul(each)
    }

    /// Routed experts each token reaches: top-k, at most every expert.
    pub fn routed_per_token(&self) -> u64 {
        self.experts_active.min(self.experts)
    }

    /// Multi-head latent attention.
    pub fn mla(&self) -> bool {
        self.kv_lora_rank > 0
    }

    /// Per token and layer, the widths of Q, K, V and the attention output
    /// (the output projection's input). MLA decompresses K and V per head:
    /// Q and K are heads × (qk_nope + qk_rope), V and the output heads × v_head_dim.
    pub fn attention_widths(&self) -> AttentionWidths {
        let a = u128::from(self.heads);
        if self.mla() {
            let qk = a * u128::from(self.qk_nope_head_dim + self.qk_rope_head_dim);
            let v = a * u128::from(self.v_head_dim);
            return AttentionWidths {
                q: qk,
                k: qk,
                v,
                output: v,
            };
        }
        let head = u128::from(self.head_size());
        let kv = u128::from(self.kv_heads) * head;
        AttentionWidths {
            q: a * head,
            k: kv,
            v: kv,
            output: a * head,
        }
    }
}

/// Per token and layer, the widths of a linear mixer's tensors
/// ([`Architecture::linear_widths`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearWidths {
    pub keys: u128,
    pub values: u128,
    pub heads: u128,
    pub key_dim: u128,
    pub value_dim: u128,
}

impl LinearWidths {
    /// The causal convolution's channels: Q, K and V (Gated DeltaNet's
    /// `conv_dim = key_dim × 2 + value_dim`), Mamba-2's x, B and C
    /// (`d_inner + 2 × n_groups × d_state`).
    pub const fn channels(&self) -> u128 {
        2 * self.keys + self.values
    }

    /// The recurrent state of one sequence: a key-by-value matrix per value
    /// head (Gated DeltaNet's `(num_v_heads, head_k_dim, head_v_dim)`,
    /// Mamba-2's `(heads, head_dim, d_state)`).
    pub const fn state(&self) -> u128 {
        self.heads * self.key_dim * self.value_dim
    }
}

/// Per token and layer, the widths of the attention's tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionWidths {
    pub q: u128,
    pub k: u128,
    pub v: u128,
    /// The attention output, the output projection's input.
    pub output: u128,
}

/// Parameters of an architecture, split the ways the memory terms need.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParameterCount {
    pub total: u128,
    /// Weights of the layers' linear maps: what int8/int4 quantization compresses
    /// (embeddings, head and norms stay 16-bit, as GPTQ/AWQ/bitsandbytes do).
    pub linear: u128,
    /// Output rows of those linear maps: one int8 scale each.
    pub linear_rows: u128,
    /// Norm weights and biases: replicated on every tensor-parallel rank.
    pub norms: u128,
    /// Σ (rows + columns) over matrices plus the size of every vector: the
    /// entries of Adafactor's factored second moment.
    pub factored: u128,
    /// The largest single weight matrix: what a per-parameter optimizer step
    /// or gradient holds at most at once.
    pub largest: u128,
    /// The largest matrix of the layers' linear maps (what a quantized base
    /// dequantizes at once), and its output rows.
    pub largest_linear: u128,
    pub largest_linear_rows: u128,
    /// The token embedding and the output head's matrix (with its bias) held
    /// here, a tied head counted once: what `train_embeddings` trains.
    pub vocabulary: u128,
    /// Those matrices' count (0, 1 or 2): Adafactor's factored rows.
    pub vocabulary_matrices: u128,
    /// Parameters one token's forward pass uses: `total` less the routed
    /// experts it is not sent to (the embedding and head counted whole, as
    /// Mistral counts Mixtral's 12.9B). Equal to `total` for a dense model.
    pub active: u128,
    /// The routed experts, a part of the fields above: what expert
    /// parallelism splits.
    pub routed: RoutedExperts,
}

/// The routed experts' share of a [`ParameterCount`], with the same meanings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RoutedExperts {
    pub total: u128,
    pub linear: u128,
    pub linear_rows: u128,
    pub factored: u128,
    /// One expert's largest matrix.
    pub largest: u128,
}

/// A block's parameters, as [`ParameterCount`] splits them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Counted {
    pub(super) total: u128,
    linear: u128,
    rows: u128,
    pub(super) norms: u128,
    factored: u128,
    largest: u128,
    /// Output rows of the largest matrix (the most, among equal sizes).
    largest_rows: u128,
}

impl Counted {
    /// Keep `(size, rows)` when it is the larger matrix.
    fn keep_largest(&mut self, size: u128, rows: u128) {
        if (size, rows) > (self.largest, self.largest_rows) {
            (self.largest, self.largest_rows) = (size, rows);
        }
    }

    /// A weight matrix of `d_in` → `d_out`, with a bias when `bias`.
    fn linear(&mut self, d_in: u128, d_out: u128, bias: bool) {
        let bias = if bias { d_out } else { 0 };
        self.total += d_in * d_out + bias;
        self.linear += d_in * d_out;
        self.rows += d_out;
        self.factored += d_in + d_out + bias;
        self.keep_largest(d_in * d_out, d_out);
    }

    /// A norm's weights (and biases).
    fn norm(&mut self, size: u128) {
        self.total += size;
        self.norms += size;
        self.factored += size;
    }

    /// A vector of learned values that is no norm (attention sinks).
    fn vector(&mut self, size: u128) {
        self.total += size;
        self.factored += size;
    }

    /// An FFN of `width`: up (and gate) `h → width`, down `width → h`.
    pub(super) fn mlp(&mut self, arch: &Architecture, width: u128) {
        let h = u128::from(arch.hidden);
        let into = match arch.mlp {
            Mlp::Gelu | Mlp::GeluNew => 1,
            Mlp::Swiglu => 2,
        };
        for _ in 0..into {
            self.linear(h, width, arch.bias);
        }
        self.linear(width, h, arch.bias);
    }

    /// `count` copies of this block.
    pub(super) fn times(self, count: u128) -> Self {
        Self {
            total: self.total * count,
            linear: self.linear * count,
            rows: self.rows * count,
            norms: self.norms * count,
            factored: self.factored * count,
            largest: if count > 0 { self.largest } else { 0 },
            largest_rows: if count > 0 { self.largest_rows } else { 0 },
        }
    }

    pub(super) fn add(&mut self, other: Self) {
        self.total += other.total;
        self.linear += other.linear;
        self.rows += other.rows;
        self.norms += other.norms;
        self.factored += other.factored;
        self.keep_largest(other.largest, other.largest_rows);
    }
}

/// One layer's attention and its two norms (everything but the FFN).
pub(super) fn attention_block(arch: &Architecture) -> Counted {
    let h = u128::from(arch.hidden);
    let norm = arch.norm_parameters(h);
    let widths = arch.attention_widths();
    let mut block = Counted::default();
    if arch.mla() {
        // transformers models/deepseek_v3/modeling_deepseek_v3.py
        // `DeepseekV3Attention.__init__`: q_a_proj (h → q_lora_rank), its
        // RMSNorm and q_b_proj (→ heads × (nope + rope)), or one q_proj
        // without q_lora_rank; kv_a_proj_with_mqa (h → kv_lora_rank + rope),
        // kv_a_layernorm, kv_b_proj (kv_lora_rank → heads × (nope + v));
        // o_proj (heads × v → h). `attention_bias` puts biases on q_a_proj,
        // kv_a_proj_with_mqa and o_proj (and none on q_proj).
        let (ql, kvl) = (u128::from(arch.q_lora_rank), u128::from(arch.kv_lora_rank));
        let rope = u128::from(arch.qk_rope_head_dim);
        let a = u128::from(arch.heads);
        if ql > 0 {
            block.linear(h, ql, arch.bias);
            block.norm(arch.norm_parameters(ql));
            block.linear(ql, widths.q, false);
        } else {
            block.linear(h, widths.q, false);
        }
        block.linear(h, kvl + rope, arch.bias);
        block.norm(arch.norm_parameters(kvl));
        block.linear(kvl, a * u128::from(arch.qk_nope_head_dim) + widths.v, false);
        block.linear(widths.output, h, arch.bias);
    } else {
        // W_q (h×q), W_k and W_v (h×kv), W_o (q×h); Qwen2's biases on Q, K, V only.
        // An output gate doubles W_q: its second half is the gate.
        let qkv_bias = arch.bias || arch.qkv_bias;
        block.linear(
            h,
            widths.q * (1 + u128::from(arch.attn_output_gate)),
            qkv_bias,
        );
        block.linear(h, widths.k, qkv_bias);
        block.linear(h, widths.v, qkv_bias);
        block.linear(widths.output, h, arch.bias);
    }
    // The QK-norms' weights ([`Architecture::qk_norm`]), of the norm's kind.
    block.norm(arch.norm_parameters(arch.qk_norm_units()));
    if arch.attn_sinks {
        // transformers models/gpt_oss/modeling_gpt_oss.py
        // `GptOssAttention.sinks = nn.Parameter(torch.empty(num_attention_heads))`.
        block.vector(u128::from(arch.heads));
    }
    // The block's norms (two before the sublayers; Gemma's four, Phi's one:
    // [`Block::norms`]).
    block.norm(arch.block.norms() * norm);
    block
}

/// One linear layer's token mixer and its block's norms (everything but the
/// FFN), read from transformers' modules:
///
/// - Gated DeltaNet (modeling_qwen3_next.py `Qwen3NextGatedDeltaNet.__init__`):
///   `in_proj_qkvz` (h → 2 × keys + 2 × values: Q, K, V and the output gate
///   z), `in_proj_ba` (h → 2 × value heads: β and the decay's input), the
///   depthwise `conv1d` over Q, K and V (`bias=False`), `dt_bias` and `A_log`
///   (one per value head), the gated RMSNorm over one head's values
///   (`head_v_dim` weights) and `out_proj` (values → h).
/// - Mamba-2 (modeling_granitemoehybrid.py `GraniteMoeHybridMambaLayer.__init__`,
///   `mamba_proj_bias=False`, `mamba_conv_bias=True` by default): `in_proj`
///   (h → 2 × d_inner + 2 × groups × d_state + heads: z, x, B, C and dt), the
///   depthwise `conv1d` over x, B and C with its bias, `dt_bias`, `A_log`
///   and `D` (one per head), the gated RMSNorm over d_inner and `out_proj`.
///
/// The convolutions' weights are no `nn.Linear`: kept in 16 bits by a
/// quantized base, as the norms are.
pub(super) fn linear_block(arch: &Architecture) -> Counted {
    let h = u128::from(arch.hidden);
    let w = arch.linear_widths();
    let kernel = u128::from(arch.linear_conv_kernel_dim);
    let mut block = Counted::default();
    match arch.linear_mixer {
        LinearMixer::None => return block,
        LinearMixer::GatedDeltanet => {
            block.linear(h, 2 * w.keys + 2 * w.values, false);
            block.linear(h, 2 * w.heads, false);
            block.vector(w.channels() * kernel + 2 * w.heads);
            block.norm(w.value_dim);
        }
        LinearMixer::Mamba2 => {
            block.linear(h, 2 * w.values + 2 * w.keys + w.heads, false);
            block.vector(w.channels() * (kernel + 1) + 3 * w.heads);
            block.norm(w.values);
        }
    }
    block.linear(w.values, h, false);
    block.norm(arch.block.norms() * arch.norm_parameters(h));
    block
}

/// A MoE layer's FFN without the routed experts: the router (transformers
/// Mixtral, Qwen3-MoE, OLMoE, Llama 4: `gate = nn.Linear(h, experts,
/// bias=False)`; gpt-oss's router has a bias, DeepSeek-V3's
/// `e_score_correction_bias` is a buffer, not a parameter) and the shared
/// experts as one MLP.
pub(super) fn moe_common(arch: &Architecture) -> Counted {
    let mut block = Counted::default();
    block.linear(u128::from(arch.hidden), u128::from(arch.experts), arch.bias);
    let shared = u128::from(arch.shared_width());
    if shared > 0 {
        block.mlp(arch, shared);
    }
    block
}

/// Counts every parameter of `arch`.
pub fn parameter_count(arch: &Architecture) -> ParameterCount {
    stage_parameter_count(arch, Ends::WHOLE)
}

/// Which ends of the model a pipeline stage holds beside its layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    /// The embedding (and BERT's embedding norm).
    pub embedding: bool,
    /// The final norm, the output head (BERT's pooler, a classifier).
    pub head: bool,
}

impl Ends {
    /// The whole model: both ends.
    pub const WHOLE: Self = Self {
        embedding: true,
        head: true,
    };
}

/// The parameters of `arch`'s layers with the ends in `ends`: a pipeline
/// stage's share. A tied head on a stage without the embedding is a copy
/// of it: Megatron-Core's `LanguageModule.setup_embeddings_and_output_layer`
/// (megatron/core/models/common/language_module/language_module.py) gives
/// the last stage its own output weight when `share_embeddings_and_output_weights`
/// and pipeline parallelism meet, kept equal by an all-reduce of the
/// gradients over the embedding group.
pub fn stage_parameter_count(arch: &Architecture, ends: Ends) -> ParameterCount {
    let h = u128::from(arch.hidden);
    let layers = u128::from(arch.layers);
    let norm = arch.norm_parameters(h);

    let mut dense = Counted::default();
    dense.mlp(arch, u128::from(arch.ffn));
    let mut expert = Counted::default();
    expert.mlp(arch, u128::from(arch.expert_width()));
    let moe_layers = u128::from(arch.moe_layers());
    let dense_layers = layers - moe_layers;
    let (experts, routed_per_token) = (
        u128::from(arch.experts),
        u128::from(arch.routed_per_token()),
    );

    let mut blocks = attention_block(arch).times(u128::from(arch.attention_layers()));
    blocks.add(linear_block(arch).times(u128::from(arch.linear_layers())));
    blocks.add(dense.times(dense_layers));
    blocks.add(moe_common(arch).times(moe_layers));
    let routed = expert.times(moe_layers * experts);
    blocks.add(routed);
    // The routed experts a token does not reach.
    let idle = moe_layers * (experts - routed_per_token) * expert.total;

    let mut total = blocks.total;
    let mut norms = blocks.norms;
    let mut factored = blocks.factored;

    let matrix = |rows: u128, cols: u128, total: &mut u128, factored: &mut u128| {
        *total += rows * cols;
        *factored += rows + cols;
    };
    match arch.kind {
        _ if !ends.embedding => {}
        Kind::Decoder | Kind::Encoder => {
            matrix(u128::from(arch.vocab), h, &mut total, &mut factored);
            if arch.positions > 0 {
                matrix(u128::from(arch.positions), h, &mut total, &mut factored);
            }
            if arch.token_types > 0 {
                matrix(u128::from(arch.token_types), h, &mut total, &mut factored);
            }
        }
        Kind::Vision => {
            // Patch embedding: a conv of h filters over channels × patch × patch,
            // with bias; the class token; one learned position per token.
            let patch = u128::from(arch.patch);
            matrix(
                h,
                u128::from(arch.channels) * patch * patch,
                &mut total,
                &mut factored,
            );
            let vectors = h + h;
            total += vectors;
            factored += vectors;
            matrix(
                u128::from(arch.patch_tokens()),
                h,
                &mut total,
                &mut factored,
            );
        }
    }
    // Decoder and ViT are pre-norm with a final norm; BERT is post-norm with a
    // norm on the embeddings instead. One extra norm either way.
    let extra_norm = match arch.kind {
        Kind::Encoder => ends.embedding,
        Kind::Decoder | Kind::Vision => ends.head,
    };
    if extra_norm {
        total += norm;
        norms += norm;
        factored += norm;
    }
    let head_matrix = ends.head && arch.kind == Kind::Decoder && (!arch.tied || !ends.embedding);
    match arch.kind {
        _ if !ends.head => {}
        Kind::Decoder if head_matrix => {
            let vocab = u128::from(arch.vocab);
            matrix(vocab, h, &mut total, &mut factored);
            // Phi-1/2's head has a bias (transformers models/phi/modeling_phi.py
            // `PhiForCausalLM`: `nn.Linear(hidden_size, vocab_size,
            // bias=True)`); Phi is the family of the parallel block. Other
            // models with biases keep a head without one (GPT-2 ties it;
            // gpt-oss's `lm_head` is `bias=False`).
            if !arch.tied && arch.bias && arch.block == Block::Parallel {
                total += vocab;
                factored += vocab;
            }
        }
        Kind::Decoder => {}
        Kind::Encoder => {
            // BERT's pooler: dense h×h with bias on the [CLS] token.
            matrix(h, h, &mut total, &mut factored);
            total += h;
            factored += h;
        }
        Kind::Vision => {}
    }
    if ends.head && arch.labels > 0 && arch.kind != Kind::Decoder {
        let labels = u128::from(arch.labels);
        matrix(labels, h, &mut total, &mut factored);
        total += labels;
        factored += labels;
    }
    // The largest matrix: the vocabulary embedding or head, a projection or an
    // MLP matrix (a ViT's patch and position embeddings are smaller than its MLP).
    let vocabulary = match arch.kind {
        Kind::Decoder | Kind::Encoder if ends.embedding || head_matrix => {
            u128::from(arch.vocab) * h
        }
        Kind::Decoder | Kind::Encoder | Kind::Vision => 0,
    };
    let positions = if ends.embedding {
        u128::from(arch.positions) * h
    } else {
        0
    };
    let largest = vocabulary.max(blocks.largest).max(positions);
    let embedding_matrix = ends.embedding && arch.kind != Kind::Vision;
    let head_bias = head_matrix && !arch.tied && arch.bias && arch.block == Block::Parallel;
    let vocabulary_matrices = u128::from(embedding_matrix) + u128::from(head_matrix);
    ParameterCount {
        vocabulary: vocabulary_matrices * u128::from(arch.vocab) * h
            + u128::from(head_bias) * u128::from(arch.vocab),
        vocabulary_matrices,
        total,
        linear: blocks.linear,
        linear_rows: blocks.rows,
        norms,
        factored,
        largest,
        largest_linear: blocks.largest,
        largest_linear_rows: blocks.largest_rows,
        active: total - idle,
        routed: RoutedExperts {
            total: routed.total,
            linear: routed.linear,
            linear_rows: routed.rows,
            factored: routed.factored,
            largest: routed.largest,
        },
    }
}

/// Where a model's MoE layers are ([`Architecture::moe_layers`]' rule):
/// layer i (from 0) is one when i ≥ `first_dense` and (i + 1) is a
/// multiple of `every`; none in a dense model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoePlacement {
    moe: bool,
    first_dense: u64,
    every: u64,
}

impl MoePlacement {
    /// MoE layers among the layers `from..to`. Among the first x there are
    /// as many as multiples of `every` in (min(first_dense, x), x]:
    /// ⌊x/every⌋ − ⌊min(first_dense, x)/every⌋.
    pub fn between(self, from: u64, to: u64) -> u64 {
        if !self.moe {
            return 0;
        }
        let every = self.every.max(1);
        let before = |x: u64| x / every - self.first_dense.min(x) / every;
        before(to).saturating_sub(before(from.min(to)))
    }
}

/// A run of consecutive layers of the model, `first..end` by index from 0:
/// a pipeline rank's model chunk, or every layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: u64,
    pub end: u64,
}

impl Span {
    /// Every layer of `arch`.
    pub const fn all(arch: &Architecture) -> Self {
        Self {
            first: 0,
            end: arch.layers,
        }
    }

    pub const fn layers(self) -> u64 {
        self.end.saturating_sub(self.first)
    }
}
