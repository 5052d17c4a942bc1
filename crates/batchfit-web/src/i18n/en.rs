//! English: the field texts, the option labels, the page's other words and
//! the sentences that word the core's data; the panels' words are in
//! `panels.rs`.

use batchfit_core::fields::{self, Needed, Problem, Range};
use batchfit_core::hardware;
use batchfit_core::import::json::Kind;
use batchfit_core::param::COUNT;
use batchfit_core::presets::DeviceKind;
use batchfit_core::query::Param;

mod panels;
pub(super) use panels::ENGLISH_PANELS;

use super::{AnswerWords, FieldText, Forms, Lang, Language, Words, bound, by_param, f};

pub(super) static FIELDS_EN: [FieldText; COUNT] = by_param([
    (
        Param::Batch,
        f(
            "Batch size",
            "samples",
            "Micro-batch: samples per step on one GPU.",
        ),
    ),
    (
        Param::Seq,
        f(
            "Sequence length",
            "tokens",
            "Tokens per sample (the prompt, for inference).",
        ),
    ),
    (Param::Hidden, f("Hidden size", "", "Model width, d_model.")),
    (Param::Layers, f("Layers", "", "Transformer blocks.")),
    (
        Param::Precision,
        f("Precision", "", "Bytes per stored value."),
    ),
    (
        Param::K,
        f(
            "Multiplier k",
            "×",
            "Hidden-sized values kept per token per layer; about 10.",
        ),
    ),
    (
        Param::Ckpt,
        f(
            "Gradient checkpointing",
            "",
            "Keep about √layers layers' activations; recompute the rest.",
        ),
    ),
    (
        Param::Params,
        f("Parameters", "", "Count, e.g. 7B, 7000M, 125M or 1.3e9."),
    ),
    (
        Param::Optimizer,
        f("Optimizer", "", "Its state is kept for every parameter."),
    ),
    (
        Param::ActMb,
        f(
            "Activations per sample",
            "MB",
            "Measured or estimated; MB = 10⁶ bytes.",
        ),
    ),
    (
        Param::Model,
        f(
            "Model preset",
            "",
            "Published configurations; edit any value below.",
        ),
    ),
    (
        Param::Kind,
        f(
            "Architecture",
            "",
            "Decoder (GPT, Llama), encoder (BERT) or vision (ViT).",
        ),
    ),
    (
        Param::Heads,
        f("Attention heads", "", "Query heads per layer."),
    ),
    (
        Param::KvHeads,
        f(
            "Key/value heads",
            "",
            "Fewer than heads for GQA, 1 for MQA.",
        ),
    ),
    (Param::HeadDim, f("Head size", "", "0 = hidden ÷ heads.")),
    (Param::Ffn, f("FFN size", "", "Inner size of the MLP.")),
    (
        Param::Mlp,
        f("MLP type", "", "GELU uses two matrices, SwiGLU three."),
    ),
    (
        Param::Norm,
        f(
            "Normalisation",
            "",
            "LayerNorm has a bias, RMSNorm does not.",
        ),
    ),
    (
        Param::Vocab,
        f("Vocabulary", "tokens", "Rows of the embedding matrix."),
    ),
    (
        Param::Tied,
        f(
            "Tied embeddings",
            "",
            "The output layer reuses the input embedding.",
        ),
    ),
    (
        Param::Bias,
        f(
            "Linear biases",
            "",
            "Biases in attention and MLP projections.",
        ),
    ),
    (
        Param::QkvBias,
        f(
            "Q/K/V biases only",
            "",
            "As in Qwen2: biases on Q, K and V.",
        ),
    ),
    (
        Param::QkNorm,
        f(
            "QK-norm",
            "",
            "RMSNorm on queries and keys, per head (Qwen3, OLMoE).",
        ),
    ),
    (
        Param::QkNormFull,
        f(
            "QK-norm over whole projections",
            "",
            "The norms span all heads of Q and of K (OLMoE).",
        ),
    ),
    (
        Param::AttnSinks,
        f(
            "Attention sinks",
            "",
            "One learned logit per head and layer (gpt-oss).",
        ),
    ),
    (
        Param::FusedProj,
        f(
            "Fused projections",
            "",
            "Under AMP each separate projection saves its own 16-bit cast.",
        ),
    ),
    (
        Param::AttnOutputGate,
        f(
            "Attention output gate",
            "",
            "A sigmoid gate from a second Q (Qwen3-Next).",
        ),
    ),
    (
        Param::LinearMixer,
        f(
            "Linear layers",
            "",
            "Hybrid models: the layers that do not attend keep a state, not a KV cache.",
        ),
    ),
    (
        Param::FullAttentionInterval,
        f(
            "Full attention every n layers",
            "",
            "The others are linear.",
        ),
    ),
    (
        Param::LinearNumKeyHeads,
        f("Linear key heads", "", "Mamba-2: groups."),
    ),
    (
        Param::LinearKeyHeadDim,
        f("Linear key head size", "", "Mamba-2: state size."),
    ),
    (
        Param::LinearNumValueHeads,
        f("Linear value heads", "", "Mamba-2: heads."),
    ),
    (
        Param::LinearValueHeadDim,
        f("Linear value head size", "", "Mamba-2: head size."),
    ),
    (
        Param::LinearConvKernelDim,
        f("Linear convolution width", "", "Mamba-2: d_conv."),
    ),
    (
        Param::Experts,
        f(
            "Routed experts",
            "",
            "Experts per MoE layer; 0 is a dense model.",
        ),
    ),
    (
        Param::ExpertsActive,
        f(
            "Experts per token",
            "",
            "Top-k: routed experts each token is sent to.",
        ),
    ),
    (
        Param::ExpertFfn,
        f(
            "Expert FFN size",
            "",
            "Each routed expert's intermediate size; 0 uses the FFN size.",
        ),
    ),
    (
        Param::SharedExperts,
        f(
            "Shared experts",
            "",
            "Experts every token passes through (DeepSeek, Llama 4).",
        ),
    ),
    (
        Param::SharedFfn,
        f(
            "Shared expert FFN size",
            "",
            "Each shared expert's size; 0 uses the routed experts' size.",
        ),
    ),
    (
        Param::FirstDenseLayers,
        f(
            "Dense layers first",
            "",
            "Dense layers before the first MoE layer (DeepSeek: 3).",
        ),
    ),
    (
        Param::MoeEvery,
        f(
            "MoE every n layers",
            "",
            "1: every layer is MoE; 2: every second one.",
        ),
    ),
    (
        Param::KvLoraRank,
        f(
            "Latent KV size (MLA)",
            "",
            "Multi-head latent attention's compressed KV; 0 is ordinary attention.",
        ),
    ),
    (
        Param::QLoraRank,
        f(
            "Latent query size (MLA)",
            "",
            "Compressed queries; 0 projects them directly.",
        ),
    ),
    (
        Param::QkRopeHeadDim,
        f(
            "Rotary head size (MLA)",
            "",
            "The rotary part of each query and key head.",
        ),
    ),
    (
        Param::QkNopeHeadDim,
        f(
            "Non-rotary head size (MLA)",
            "",
            "The part of each query and key head without rotary.",
        ),
    ),
    (
        Param::VHeadDim,
        f("Value head size (MLA)", "", "Each value head's size."),
    ),
    (
        Param::CapacityFactor,
        f(
            "Expert capacity factor",
            "",
            "Megatron-Core: tokens an expert takes, relative to an even share; 0 drops none.",
        ),
    ),
    (
        Param::CapacityPad,
        f(
            "Pad experts to capacity",
            "",
            "Every expert computes its full capacity of tokens.",
        ),
    ),
    (
        Param::Ep,
        f(
            "Expert parallel",
            "",
            "Routed experts split over this many of the data-parallel GPUs.",
        ),
    ),
    (
        Param::Etp,
        f(
            "Expert tensor parallel",
            "",
            "Each routed expert split over this many GPUs; 0: as tensor parallel.",
        ),
    ),
    (
        Param::Pp,
        f(
            "Pipeline parallel",
            "",
            "Stages the layers are split over, each on its own GPUs.",
        ),
    ),
    (
        Param::PpSchedule,
        f("Pipeline schedule", "", "1F1B, interleaved 1F1B or GPipe."),
    ),
    (
        Param::Vpp,
        f(
            "Virtual stages",
            "",
            "Model chunks per pipeline GPU (interleaved).",
        ),
    ),
    (
        Param::Microbatches,
        f("Micro-batches", "", "Per step; 0 means as many as stages."),
    ),
    (
        Param::PpLayout,
        f(
            "Layers per stage",
            "",
            "Optional uneven split, e.g. 7,9,9,7.",
        ),
    ),
    (
        Param::PpStage,
        f(
            "Stage shown",
            "",
            "first, last or an index; empty: the one needing most.",
        ),
    ),
    (
        Param::Cp,
        f(
            "Context parallel",
            "",
            "GPUs the sequence is split over (flash attention).",
        ),
    ),
    (
        Param::CpKind,
        f("Context parallel kind", "", "Ring attention or Ulysses."),
    ),
    (
        Param::Positions,
        f(
            "Learned positions",
            "",
            "Rows of a learned position embedding; 0 for RoPE.",
        ),
    ),
    (
        Param::TokenTypes,
        f("Token types", "", "Segment embeddings (BERT: 2)."),
    ),
    (
        Param::Labels,
        f(
            "Classifier labels",
            "",
            "Outputs of a classification head; 0 for none.",
        ),
    ),
    (
        Param::Dropout,
        f(
            "Dropout",
            "",
            "Dropout masks are kept for the backward pass.",
        ),
    ),
    (
        Param::Image,
        f("Image size", "px", "Side of the square input image."),
    ),
    (
        Param::Patch,
        f(
            "Patch size",
            "px",
            "Side of one patch; tokens = (image ÷ patch)² + 1.",
        ),
    ),
    (
        Param::Channels,
        f("Channels", "", "Colour channels of the image."),
    ),
    (
        Param::Block,
        f(
            "Norm placement",
            "",
            "Where each layer's norms sit: before the blocks, after them (OLMo 2), both (Gemma 2/3), or one shared by parallel blocks (Phi-2).",
        ),
    ),
    (
        Param::Window,
        f(
            "Sliding window",
            "tokens",
            "Tokens a windowed layer attends to; its KV cache keeps no more. 0 for none.",
        ),
    ),
    (
        Param::GlobalEvery,
        f(
            "Global layer every",
            "layers",
            "Every n-th layer attends to the whole context (Gemma 2: 2, Gemma 3: 6); 0 for none.",
        ),
    ),
    (
        Param::Softcap,
        f(
            "Logit soft-capping",
            "",
            "Gemma 2's tanh cap on the logits: one more logit-sized tensor in training.",
        ),
    ),
    (
        Param::AttnSoftcap,
        f(
            "Score soft-capping",
            "",
            "Gemma 2's tanh cap on the attention scores: one more score-sized tensor with eager attention.",
        ),
    ),
    (
        Param::Recipe,
        f(
            "Precision recipe",
            "",
            "Which copies of weights, gradients and states exist. Inference loads the model in FP32 with “FP32 throughout”, in 16 bits with any other.",
        ),
    ),
    (
        Param::Recompute,
        f(
            "Activation recomputation",
            "",
            "Checkpointing: what is kept, what is recomputed.",
        ),
    ),
    (
        Param::RecomputeMethod,
        f(
            "Checkpointed layers",
            "",
            "Under full recomputation: groups of N layers (Megatron's uniform), the first N of each stage (Megatron's block) or every N-th (torchtitan).",
        ),
    ),
    (
        Param::RecomputeLayers,
        f(
            "Layers per checkpoint plan",
            "layers",
            "The method's N: layers per group, layers checkpointed, or the stride.",
        ),
    ),
    (
        Param::RecomputeModules,
        f(
            "Recomputed modules",
            "",
            "Megatron's --recompute-modules: core_attn, mlp, layernorm, moe_act, moe, shared_experts.",
        ),
    ),
    (
        Param::Reentrant,
        f(
            "Reentrant checkpoint",
            "",
            "use_reentrant=True (Megatron, Unsloth): the rerun's output is kept during the layer's backward.",
        ),
    ),
    (
        Param::GradAccumFusion,
        f(
            "Gradient-accumulation fusion",
            "",
            "Megatron's default: Transformer Engine keeps one BF16 dummy gradient per weight shape for the run. Off (--no-gradient-accumulation-fusion): each weight's BF16 gradient exists until the FP32 buffer takes it.",
        ),
    ),
    (
        Param::Attn,
        f(
            "Attention kernel",
            "",
            "FlashAttention / SDPA never stores the s×s scores.",
        ),
    ),
    (
        Param::Mode,
        f(
            "Task",
            "",
            "Training keeps gradients and optimizer state; inference keeps a KV cache.",
        ),
    ),
    (
        Param::Gen,
        f(
            "Generated tokens",
            "tokens",
            "New tokens per sample; the KV cache grows to prompt + these.",
        ),
    ),
    (
        Param::Quant,
        f(
            "Weight quantization",
            "",
            "Inference weights in INT8 or INT4, with their scales.",
        ),
    ),
    (
        Param::Gpus,
        f(
            "GPUs (data parallel)",
            "",
            "Each runs a copy of the job; in training, ZeRO can shard the model states across them.",
        ),
    ),
    (
        Param::Zero,
        f(
            "ZeRO stage",
            "",
            "0 none, 1 optimizer, 2 + gradients, 3 + weights (FSDP full shard).",
        ),
    ),
    (
        Param::Tp,
        f(
            "Tensor parallel",
            "",
            "Splits each layer's weights and activations.",
        ),
    ),
    (
        Param::Sp,
        f(
            "Sequence parallel",
            "",
            "With tensor parallel: split the remaining activations too.",
        ),
    ),
    (
        Param::Foreach,
        f(
            "Optimizer step buffers",
            "",
            "PyTorch's foreach AdamW allocates temporaries at the step.",
        ),
    ),
    (
        Param::Framework,
        f(
            "Framework",
            "",
            "Sets the defaults its source code implies; change any field after.",
        ),
    ),
    (
        Param::Step,
        f(
            "Optimizer step",
            "",
            "Fused and in-backward steps need no parameter-sized temporaries.",
        ),
    ),
    (
        Param::Loss,
        f(
            "Cross-entropy",
            "",
            "Chunked loss never holds every token's FP32 logits at once.",
        ),
    ),
    (
        Param::Offload,
        f(
            "Optimizer state on CPU",
            "",
            "ZeRO-Offload: the optimizer state lives in CPU memory.",
        ),
    ),
    (
        Param::GradientAsBucketView,
        f(
            "DDP gradients as bucket views",
            "",
            "Off (PyTorch's default): DDP's buckets hold a second copy of the gradients.",
        ),
    ),
    (
        Param::BucketM,
        f(
            "Communication buckets",
            "M elements",
            "DeepSpeed's gradient buckets; 0 for none.",
        ),
    ),
    (
        Param::Prefetch,
        f(
            "All-gather prefetch",
            "layers",
            "Layers whose full parameters FSDP gathers ahead of use.",
        ),
    ),
    (
        Param::DsPrefetch,
        f(
            "ZeRO-3 prefetch bucket",
            "elements",
            "DeepSpeed's stage3_prefetch_bucket_size: parameters gathered ahead of use.",
        ),
    ),
    (
        Param::DsLive,
        f(
            "ZeRO-3 live parameters",
            "elements",
            "DeepSpeed's stage3_max_live_parameters: the most gathered at once.",
        ),
    ),
    (
        Param::DsPersist,
        f(
            "ZeRO-3 persistence threshold",
            "elements",
            "DeepSpeed keeps parameters this small whole on every GPU.",
        ),
    ),
    (
        Param::ActOffload,
        f(
            "Activation offloading",
            "",
            "Saved activations wait in CPU memory until the backward pass.",
        ),
    ),
    (
        Param::Compile,
        f(
            "torch.compile",
            "",
            "Inductor recomputes cheap element-wise tensors in the backward pass.",
        ),
    ),
    (
        Param::Logits,
        f(
            "Logits precision",
            "",
            "Bytes of each logit and its gradient in the loss.",
        ),
    ),
    (
        Param::LoraRank,
        f(
            "LoRA rank",
            "",
            "0: full fine-tuning; r > 0: frozen base, FP32 adapters.",
        ),
    ),
    (
        Param::LoraTargets,
        f(
            "LoRA targets",
            "",
            "The linear maps of each block that carry adapters.",
        ),
    ),
    (
        Param::LoraDropout,
        f("LoRA dropout", "", "Saves the dropped input and its mask."),
    ),
    (
        Param::BaseQuant,
        f("QLoRA base", "", "Frozen linear maps in 4 or 8 bits."),
    ),
    (
        Param::DoubleQuant,
        f("Double quantization", "", "4-bit bases: 8-bit absmaxes."),
    ),
    (
        Param::PrepareKbit,
        f(
            "prepare_model_for_kbit_training",
            "",
            "Embedding, head and norms in FP32.",
        ),
    ),
    (
        Param::TrainEmbeddings,
        f(
            "Train embedding and head",
            "",
            "A trainable copy of each beside the frozen original.",
        ),
    ),
    (
        Param::Fp8,
        f(
            "FP8 training",
            "",
            "TE keeps FP8 weight copies; torchao saves 16-bit tensors.",
        ),
    ),
    (
        Param::LoraVariant,
        f(
            "Adapter method",
            "",
            "DoRA adds a magnitude per output and saves more per token.",
        ),
    ),
    (
        Param::ParamOffload,
        f(
            "Parameter offloading",
            "",
            "Weights, gradients and the step on the CPU; the GPU keeps the layers in flight.",
        ),
    ),
    (
        Param::KvDtype,
        f(
            "KV-cache precision",
            "",
            "Quantized caches keep scales; int8 and int4 dequantize per layer.",
        ),
    ),
    (
        Param::LogitsToKeep,
        f(
            "Prompt logits kept",
            "positions",
            "1: the last (generate()); 0: all.",
        ),
    ),
    (
        Param::CacheImplementation,
        f(
            "KV cache",
            "",
            "Static preallocates the whole generation; tuples keep the last step's cache beside the new one.",
        ),
    ),
    (
        Param::KvLayout,
        f(
            "Latent KV cache",
            "",
            "What a latent-attention model caches.",
        ),
    ),
    (
        Param::GpuMemoryUtilization,
        f(
            "gpu_memory_utilization",
            "",
            "The engine's share of the GPU; 0: its default.",
        ),
    ),
    (
        Param::MaxModelLen,
        f(
            "max_model_len",
            "tokens",
            "Longest request; 0: prompt + generated.",
        ),
    ),
    (
        Param::MaxNumSeqs,
        f(
            "max_num_seqs",
            "",
            "Requests per step; 0: the engine's default.",
        ),
    ),
    (
        Param::MaxNumBatchedTokens,
        f(
            "max_num_batched_tokens",
            "tokens",
            "Tokens per step; 0: the engine's default.",
        ),
    ),
    (
        Param::BlockSize,
        f("block_size", "tokens", "Tokens per KV block."),
    ),
    (
        Param::EnforceEager,
        f("enforce_eager", "", "No CUDA graphs."),
    ),
    (
        Param::FlashinferSampler,
        f("flashinfer_sampler", "", "FlashInfer's sampler: no sort."),
    ),
    (
        Param::ZeroGrad,
        f(
            "Gradients between steps",
            "",
            "set_to_none=False keeps them into the next step.",
        ),
    ),
    (
        Param::Outputs,
        f(
            "Model output in the loop",
            "",
            "outputs = model(…) kept through backward holds its logits.",
        ),
    ),
    (
        Param::NormKernel,
        f("Norm kernels", "", "A fused norm keeps only its input."),
    ),
    (
        Param::Gpu,
        f(
            "Device",
            "",
            "Checked against what a process can allocate: on an NVIDIA card, a little under nvidia-smi's total.",
        ),
    ),
    (Param::GpuGb, f("Custom capacity", "GB", "GB = 10⁹ bytes.")),
    (
        Param::MaxGpus,
        f(
            "GPUs you can use",
            "",
            "For suggested changes; 0: the job's own.",
        ),
    ),
    (
        Param::HostGb,
        f(
            "Host RAM",
            "GB",
            "One machine's, for offloading; 0: unknown.",
        ),
    ),
    (
        Param::OverheadGb,
        f(
            "Overhead",
            "GB",
            "CUDA context and framework buffers; 0.5–2 GB in practice.",
        ),
    ),
    (
        Param::Margin,
        f(
            "Safety margin",
            "%",
            "Headroom for fragmentation; 15–20 % is common advice.",
        ),
    ),
    (
        Param::GlobalBatch,
        f(
            "Target global batch",
            "samples",
            "For gradient accumulation; 0 for none.",
        ),
    ),
]);

/// Option labels: select name, URL spelling, English (the Spanish ones are
/// [`OPTIONS_ES`](super::es::OPTIONS_ES), with the Spanish tables).
pub(super) static OPTIONS: &[(Param, &str, &str)] = &[
    (Param::Precision, "fp32", "FP32 (4 bytes)"),
    (Param::Precision, "fp16", "FP16 (2 bytes)"),
    (Param::Precision, "bf16", "BF16 (2 bytes)"),
    (Param::Precision, "int8", "INT8 (1 byte)"),
    (Param::Optimizer, "adamw", "AdamW"),
    (Param::Optimizer, "adam8bit", "Adam 8-bit"),
    (
        Param::Optimizer,
        "paged_adamw_8bit",
        "Paged AdamW 8-bit (may spill to CPU)",
    ),
    (
        Param::Optimizer,
        "paged_adamw",
        "Paged AdamW 32-bit (may spill to CPU)",
    ),
    (Param::Optimizer, "adafactor", "Adafactor"),
    (Param::Optimizer, "sgd_momentum", "SGD with momentum"),
    (Param::Optimizer, "sgd", "Plain SGD"),
    (Param::Optimizer, "none", "None (inference only)"),
    (Param::Kind, "decoder", "Decoder-only"),
    (Param::Kind, "encoder", "Encoder-only"),
    (Param::Kind, "vision", "Vision transformer"),
    (Param::Mlp, "gelu", "GELU (2)"),
    (Param::Mlp, "gelu_new", "Element-wise GELU (2, GPT-2)"),
    (Param::Mlp, "swiglu", "SwiGLU (3)"),
    (Param::Norm, "layernorm", "LayerNorm"),
    (Param::Norm, "rmsnorm", "RMSNorm"),
    (
        Param::Norm,
        "rmsnorm_fp32",
        "RMSNorm, FP32 weight (Gemma, OLMo 2)",
    ),
    (Param::Block, "pre", "Before each block"),
    (Param::Block, "post", "After each block"),
    (Param::Block, "sandwich", "Before and after (4 norms)"),
    (Param::Block, "parallel", "One norm, parallel blocks"),
    (Param::Recipe, "fp32", "FP32 throughout"),
    (Param::Recipe, "amp", "Mixed BF16, FP32 master (AMP)"),
    (Param::Recipe, "amp16", "Mixed FP16, FP32 master (AMP)"),
    (
        Param::Recipe,
        "mixed",
        "2-byte weights, FP32 grads and states",
    ),
    (Param::Recipe, "bf16", "Pure BF16"),
    (Param::Recipe, "fsdp", "Sharded FP32, BF16 compute (FSDP2)"),
    (
        Param::Recipe,
        "main_fp32",
        "BF16 model, FP32 main grads and params (Megatron)",
    ),
    (Param::FusedProj, "none", "Separate Q, K, V and gate, up"),
    (Param::FusedProj, "qkv", "One QKV matrix"),
    (Param::FusedProj, "all", "QKV and gate-up fused"),
    (Param::LinearMixer, "none", "None (every layer attends)"),
    (Param::LinearMixer, "gated_deltanet", "Gated DeltaNet"),
    (Param::LinearMixer, "mamba2", "Mamba-2"),
    (Param::PpSchedule, "1f1b", "1F1B"),
    (Param::PpSchedule, "interleaved", "Interleaved 1F1B"),
    (Param::PpSchedule, "gpipe", "GPipe"),
    (Param::CpKind, "ring", "Ring attention"),
    (Param::CpKind, "ulysses", "Ulysses (all-to-all)"),
    (Param::Recompute, "none", "None"),
    (Param::Recompute, "selective", "Selective (attention core)"),
    (Param::Recompute, "full", "Full (each layer's input only)"),
    (Param::Recompute, "op", "Per operator (torchtitan)"),
    (Param::RecomputeMethod, "uniform", "Groups of N"),
    (Param::RecomputeMethod, "block", "First N per stage"),
    (Param::RecomputeMethod, "every", "Every N-th"),
    (Param::Attn, "eager", "Eager (stores the scores)"),
    (Param::Attn, "flash", "FlashAttention / SDPA"),
    (Param::Mode, "train", "Training"),
    (Param::Mode, "inference", "Inference (generation)"),
    (Param::Quant, "none", "Not quantized"),
    (Param::Quant, "int8", "INT8"),
    (Param::Quant, "int4", "INT4 (groups of 128)"),
    (Param::Framework, "custom", "None (batchfit's defaults)"),
    (Param::Framework, "pytorch", "PyTorch with AMP"),
    (Param::Framework, "hf_trainer", "Hugging Face Trainer"),
    (Param::Framework, "megatron", "Megatron-LM"),
    (Param::Framework, "deepspeed", "DeepSpeed ZeRO"),
    (Param::Framework, "torchtune", "torchtune"),
    (
        Param::Framework,
        "hf_peft",
        "Hugging Face Trainer + PEFT LoRA",
    ),
    (Param::Framework, "torchtune_lora", "torchtune LoRA"),
    (Param::Framework, "lightning_32", "Lightning 32"),
    (Param::Framework, "lightning_16_mixed", "Lightning 16-mixed"),
    (
        Param::Framework,
        "lightning_bf16_mixed",
        "Lightning bf16-mixed",
    ),
    (
        Param::Framework,
        "lightning_bf16_true",
        "Lightning bf16-true",
    ),
    (Param::Framework, "hf_generate", "Hugging Face generate()"),
    (Param::Framework, "fsdp2", "PyTorch FSDP2 / torchtitan"),
    (
        Param::Framework,
        "fsdp1",
        "PyTorch FSDP1 (FullyShardedDataParallel)",
    ),
    (Param::Framework, "unsloth", "Unsloth QLoRA"),
    (Param::Framework, "vllm", "vLLM (server)"),
    (Param::Framework, "sglang", "SGLang (server)"),
    (Param::Logits, "fp32", "FP32"),
    (Param::Logits, "bf16", "BF16"),
    (Param::LoraTargets, "qv", "Q and V (PEFT's default)"),
    (Param::LoraTargets, "attn", "Attention: Q, K, V, O"),
    (Param::LoraTargets, "mlp", "MLP: gate, up, down"),
    (Param::LoraTargets, "all", "Every linear map"),
    (
        Param::LoraTargets,
        "experts",
        "Routed experts: gate, up, down",
    ),
    (
        Param::LoraTargets,
        "all_experts",
        "Every linear map, experts and router too",
    ),
    (Param::KvDtype, "bf16", "16-bit, unquantized"),
    (Param::KvLayout, "full", "Keys and values (generate())"),
    (Param::CacheImplementation, "dynamic", "Dynamic"),
    (Param::CacheImplementation, "static", "Static"),
    (
        Param::CacheImplementation,
        "legacy",
        "Tuples (transformers < 4.36)",
    ),
    (Param::KvLayout, "latent", "The latent (vLLM, SGLang)"),
    (Param::Fp8, "none", "Off"),
    (Param::Fp8, "te", "Transformer Engine (delayed scaling)"),
    (Param::Fp8, "torchao", "torchao float8"),
    (Param::LoraVariant, "lora", "LoRA"),
    (Param::LoraVariant, "dora", "DoRA"),
    (Param::KvDtype, "fp8", "FP8 (vLLM)"),
    (Param::KvDtype, "int8", "INT8 (torchao)"),
    (Param::KvDtype, "int4", "INT4 (transformers QuantizedCache)"),
    (Param::BaseQuant, "none", "16-bit (LoRA)"),
    (Param::BaseQuant, "nf4", "NF4 4-bit"),
    (Param::BaseQuant, "fp4", "FP4 4-bit"),
    (Param::BaseQuant, "int8", "INT8 (LLM.int8)"),
    (Param::ZeroGrad, "none", "Freed (PyTorch ≥ 2.0)"),
    (Param::ZeroGrad, "zeros", "Kept, zero-filled"),
    (
        Param::ZeroGrad,
        "after_forward",
        "Freed after the forward (Lightning)",
    ),
    (Param::Outputs, "dropped", "Dropped (Trainer)"),
    (Param::Outputs, "kept", "Kept (outputs = model(…))"),
    (
        Param::Outputs,
        "kept_fp32",
        "Kept, FP32 (transformers ≤ 4.45)",
    ),
    (Param::Step, "fused", "Fused"),
    (Param::Step, "foreach", "foreach"),
    (Param::Step, "forloop", "Per-parameter loop"),
    (Param::Step, "in_backward", "In the backward pass"),
    (Param::Loss, "full", "Full (FP32 logits)"),
    (Param::Loss, "chunked", "Chunked"),
    (Param::Loss, "vocab_parallel", "Vocab-parallel (Megatron)"),
    (Param::Loss, "fused", "Fused (Unsloth)"),
    (
        Param::Loss,
        "vocab_parallel_fused",
        "Fused vocab-parallel (Megatron)",
    ),
    (Param::NormKernel, "eager", "As in the model code"),
    (
        Param::NormKernel,
        "fused",
        "Fused (Transformer Engine, Apex)",
    ),
];

pub(super) static EN: Words = Words {
    answer: &EN_ANSWER,
    promise: "Will this batch fit? Training memory, before you rent the GPU.",
    language: "Language",
    units: "Units",
    units_gb: "GB (10⁹ bytes)",
    units_gib: "GiB (2³⁰ bytes)",
    units_note_gb: "GB = 10⁹ bytes.",
    units_note_gib: "GiB = 2³⁰ bytes.",
    forms: "Estimate from",
    tabs: [
        (
            "Activations",
            "The quick rule of thumb for activation memory.",
        ),
        ("Parameters", "Any model, from its parameter count."),
        (
            "Transformer",
            "The accurate one: a preset, a config.json or your own architecture.",
        ),
    ],
    inputs_title: "Inputs",
    architecture_title: "Architecture",
    method: "Task",
    method_hint: "LoRA trains adapters on a frozen base, QLoRA on a 4-bit one.",
    more_architecture: "More architecture details",
    moe_title: "Mixture of experts and latent attention",
    paste_config: "Paste a config.json, a DeepSpeed config or TrainingArguments",
    paste_hint: "A model's config.json sets the architecture; a DeepSpeed config or TrainingArguments (to_json_string()) the training settings. Nothing is uploaded.",
    config_loaded: "Architecture loaded from config.json.",
    deepspeed_loaded: "Training settings read from the DeepSpeed config.",
    training_args_loaded: "Training settings read from the TrainingArguments.",
    custom_model: "Custom architecture",
    device_title: "What else you have: GPUs, host RAM, margin",
    pipeline_more: "Pipeline and context-parallel details",
    loaded_16: "Loaded in 16 bits",
    loaded_fp32: "Loaded in FP32",
    parallelism_title: "Multi-GPU: data, tensor, pipeline and context parallelism",
    results_title: "Memory needed",
    stale: "Not current: showing the last valid result. Fix the marked field to update it.",
    not_current: "Not current",
    url_notice: "Some link parameters could not be used; the results keep the defaults until the marked fields are fixed:",
    activations_per_sample: "Activations per sample",
    capacity: "Usable capacity",
    capacity_note: "What a process can allocate: on an NVIDIA card, nvidia-smi's total less what the driver keeps.",
    cpu_memory: "CPU memory (offload)",
    cpu_memory_note: "Host RAM for this GPU's process; in no GPU reading.",
    peak_allocated_note: "What torch.cuda.max_memory_allocated() reports: the tensors alive at the peak.",
    peak_reserved_note: "What torch.cuda.max_memory_reserved() reports: plus the allocator's cached, unusable blocks.",
    nvidia_smi_note: "What nvidia-smi shows: reserved plus the CUDA context and library buffers (the overhead).",
    required_note: "The nvidia-smi reading plus the safety margin: what must fit the device.",
    peak_phase: "Peak set by",
    at_peak: "At the peak",
    own_size: "Own size",
    not_at_peak_gradients: "Not in the peak: created during the backward pass, after the activations are freed.",
    not_at_peak_step_after: "Not in the peak: exists only inside optimizer.step(), after the activations are freed.",
    not_at_peak_step_inside: "Not in the peak: runs inside the backward pass, next to the activations.",
    not_at_peak_freed: "Not in the peak: the backward pass frees them before the gradients' peak.",
    partly_at_peak: "Partly in the peak: they are largest at another moment of the step, when fewer other tensors are alive.",
    prompt_cache_at_peak: "Only the prompt's share is in the peak, the prefill's; the generated tokens are cached after it.",
    not_at_peak_casts: "Partly not in the peak: autocast's 16-bit copies are freed with the activations.",
    no_batch_fits: "None (not even 1)",
    gpus_none: "None fits",
    max_seq: "Longest context that fits at this batch (tokens)",
    no_seq_fits: "None (not even 1 token)",
    job_gpus: "GPUs in this job (data-parallel × tensor × pipeline × context)",
    tap_for_bytes: "Hover, tap or click a size for its exact bytes.",
    exact_bytes_toggle: "Show exact bytes",
    moments: [
        "forward",
        "loss",
        "backward",
        "optimizer step",
        "prefill",
        "generation",
    ],
    step_title: "The step, moment by moment",
    step_note: "Allocated memory through one step, predicted: each column is a moment, stacked in the bar's colours. Its highest column is the peak allocated above.",
    step_axis: "Allocated",
    step_moment: "Moment",
    step_layer: "layer",
    step_peak: "Peak",
    step_is_peak: " (the peak)",
    phases: [
        "the end of the forward pass",
        "the backward pass",
        "the optimizer step",
        "the loss (its logit-sized tensors and their gradients)",
        "the end of generation (the whole KV cache)",
        "the prefill (the prompt's working set)",
    ],
    max_batch: "Largest batch that fits",
    accumulation: "Gradient-accumulation steps",
    gpus_needed: "GPUs needed",
    what_if_title: "One change at a time",
    half_batch: "Half the batch",
    checkpointing: "With gradient checkpointing",
    bf16: "BF16 instead of FP32",
    zero3: "ZeRO-3 across GPUs",
    tensor_parallel: "Tensor parallelism across GPUs",
    half_seq: "Half the sequence length",
    with_lora: "With LoRA, frozen 16-bit base",
    with_qlora: "With QLoRA: NF4 base, checkpointing",
    fp8_kv: "With an FP8 KV cache",
    optimizer_may_spill: "The paged optimizer's state is counted on the GPU above; under memory pressure bitsandbytes pages it out to CPU memory (unified memory), which avoids running out of memory at the cost of speed.",
    stages_title: "Pipeline stages",
    stages_note: "Each stage's GPUs hold its layers and the micro-batches its schedule keeps in flight; the answer above is for the marked stage (pp_stage, or the one that needs the most).",
    stages_layers: "Layers",
    stages_embedding: "embedding",
    stages_head: "head and loss",
    fixes_title: "The smallest changes that fit",
    lever_seq: "sequence",
    lever_batch: "micro-batch",
    lever_serving_batch: "batch",
    lever_param_offload: "parameters offloaded to CPU",
    lever_offload: "optimizer offloaded to CPU",
    lever_act_offload: "activations offloaded to CPU",
    lever_selective: "selective recomputation",
    lever_checkpointing: "gradient checkpointing",
    lever_adam8bit: "8-bit AdamW",
    lever_bf16: "pure BF16 (BF16 weights and optimizer)",
    lever_tp: "tensor parallel",
    fits_lower: "fits",
    fix_host_needs: "needs host RAM:",
    fix_fits_optimistic: "fits only at the optimistic end",
    cost_compute: "compute (recomputation)",
    cost_pcie: "over PCIe per step",
    cost_at: "at",
    cost_trains: "trains",
    cost_tokens: "tokens per step",
    cost_samples: "samples per step",
    cost_micro_steps: "micro-steps per optimizer step",
    cost_sequences: "sequences at once",
    serving_plan: "Memory plan, per GPU",
    inference_stack: "As transformers' generate() runs it: the prompt in one prefill, then one token at a time into a growing KV cache. vLLM and SGLang reserve a KV pool: pick one.",
    measure_title: "Compare with a measurement",
    chunk_failed: "This section could not be loaded. Check the connection, then close and reopen it.",
    chart_failed: "The chart could not be loaded: its numbers are beside it.",
    measure_hint: "Paste what your run printed: torch.cuda.max_memory_allocated() or max_memory_reserved() (bytes, or with GB, GiB, MiB), a torch.cuda.memory_summary() table, or nvidia-smi's memory line.",
    measure_unlabelled: "A number without a label is",
    measure_unlabelled_none: "(say which)",
    measure_measured: "measured",
    measure_predicted: "predicted",
    measure_difference: "estimate − run",
    measure_terms: "What could make a difference of this size and sign (docs/model.md §6):",
    measure_within: "could make all of it",
    measure_part: "could make part of it",
    measure_unsized: "goes this way, size not stated",
    measure_here: "here",
    measure_modelled: "modelled",
    measure_not_modelled: "not modelled",
    measure_report: "To report this case, copy this into an issue:",
    compare_start: "Compare with another setup…",
    compare_title: "Setups A and B",
    compare_form_shows: "The form above shows setup",
    compare_edit: "Edit setup",
    compare_stop: "Stop comparing",
    compare_differs: "B differs in:",
    compare_same: "B is the same as A: change it in the form.",
    compare_presets: "Make B the A with one change:",
    devices_title: "Which GPUs fit",
    devices_note: "This setup on every GPU in the list, smallest first: whether it fits at this batch, the largest batch that fits, the GPUs needed (ZeRO and parallelism as set) and the memory left. Pick a GPU to use it.",
    devices_device: "GPU",
    devices_memory: "Usable memory",
    devices_spare: "Left",
    devices_pick: "Use this GPU",
    sweep_title: "Memory by batch size",
    sweep_batch: "Batch size",
    sweep_states: "Model states at the peak",
    sweep_total: "Peak allocated",
    sweep_note: "Parts alive at each row's peak add up to it; Required adds cache, overhead and margin, and sets the ✗.",
    sweep_all_columns: "Show every column",
    sweep_fewer_columns: "Show fewer columns",
    sweep_over: "over the device's capacity",
    sweep_chosen: "the chosen batch",
    sweep_axis: "Memory (required)",
    actions_title: "Share and export",
    copy_link: "Copy link",
    copy_table: "Copy table (Markdown)",
    download_csv: "Download CSV",
    embed: "Embed",
    embed_compact: "Embed the answer only",
    copied_link: "Link copied.",
    copied_table: "Table copied as Markdown.",
    copied_embed: "Embed snippet copied: paste it into your page.",
    title: "batchfit — will this batch fit?",
    promise_short: "will this batch fit?",
    embed_comment: "The widget posts its height whenever it changes; size the iframe to it.",
    downloaded: "Downloaded.",
    copy_fallback: "Copying is not available here: the text is selected below, copy it with Ctrl+C / ⌘C.",
    open_full: "Open the full calculator",
    disclaimer: "Estimates, not measurements: real peaks depend on the framework, kernels and allocator. batchfit runs entirely in your browser and sends nothing anywhere.",
    how_title: "How it works",
    faq_title: "Questions",
    still_does_not_fit: "still does not fit",
    exact: "exact",
    formula_rule: "batch × sequence × hidden × layers × bytes × k",
    formula_heads: "heads",
    formula_vocabulary: "vocabulary",
    formula_model_states: "model states",
    formula_per_parameter: "parameter",
    formula_source: "Per-layer activations after Korthikanti et al. 2022 (Eq. 1), generalised to GQA, SwiGLU and FlashAttention; see docs/model.md.",
};

pub(super) static EN_ANSWER: AnswerWords = AnswerWords {
    methods: ["Full fine-tune", "LoRA", "QLoRA (4-bit base)", "Inference"],
    active: "active",
    weights: "Weights",
    gradients: "Gradients",
    optimizer_states: "Optimizer states",
    optimizer_step: "Optimizer step buffers",
    kv_cache: "KV cache",
    activations: "Activations",
    overhead: "Overhead",
    required: "Required",
    parameters: "Parameters",
    peak_allocated: "Peak allocated",
    peak_reserved: "Peak reserved",
    nvidia_smi: "nvidia-smi",
    buffers: "Framework buffers",
    allocator_cache: "Allocator cache",
    margin: "Safety margin",
    bar_sums: "Alive at the peak, then what is added: the segments sum to the required memory.",
    fits: "Fits",
    does_not_fit: "Does not fit",
    stage: "Stage",
    loading: "Loading…",
    interface_failed: "The calculator's controls did not load: the estimate above stands, but it cannot be changed here. Check the connection, then try again.",
    retry: "Try again",
    confidence_range: "In validation, runs like this one measured",
    confidence_against: "of the estimate",
    confidence_rows: "rows",
    confidence_sources: "sources",
    confidence_pooled: "every profile pooled: too few rows for",
    confidence_needs: "Memory required over that range:",
    confidence_fits: "Fits even at the pessimistic end",
    confidence_optimistic: "Fits only at the optimistic end",
    confidence_no: "Does not fit even at the optimistic end",
    devices_short_by: "short by",
    split_names: ["data-parallel", "tensor-parallel", "pipeline", "context"],
    yes: "yes",
    no_device: "No device (numbers only)",
    custom_device: "Custom capacity…",
    training_title: "Training setup",
    inference_title: "Inference setup",
};

/// English: the tables above and the sentences below.
pub(super) static ENGLISH_FORMS: Forms = Forms {
    fields: &FIELDS_EN,
    problem,
};

pub(super) static ENGLISH: Language = Language {
    answer: &EN_ANSWER,
    options: OPTIONS,
    needs: |needs| format!("Needs {needs}"),
    needs_per_gpu: |needs| format!("Needs {needs} per GPU"),
    sum_needs: |needs| format!("= needs {needs}"),
    degree: |name, degree| format!("{name} {degree}"),
    gpus_needed: |n, parts| match parts {
        Some(parts) => format!("no, {n} GPUs needed ({parts})"),
        None => format!("no, {n} GPUs needed"),
    },
    fits_on: |name, answer| format!("fits on {name}: {answer}"),
    fits_on_each: |gpus, name, answer| format!("fits on each of {gpus} × {name}: {answer}"),
    hardware: |warning| {
        match warning {
        hardware::Warning::Bf16 {
            capability: (major, minor),
        } => format!(
            "This card (compute capability {major}.{minor}) has no BF16: vLLM refuses it, PyTorch emulates it. FP16 takes the same memory."
        ),
        hardware::Warning::Fp8 {
            capability: (major, minor),
        } => format!(
            "FP8 training needs compute capability 8.9 (Ada, Hopper); this card has {major}.{minor}: Transformer Engine refuses it."
        ),
        hardware::Warning::FlashAttention {
            capability: (major, minor),
        } => format!(
            "FlashAttention 2 needs compute capability 8.0; this card has {major}.{minor}: flash_attention_2 fails, SDPA's memory-efficient kernel runs and the estimate stands."
        ),
        hardware::Warning::Fp8Cache {
            capability: (major, minor),
        } => format!(
            "vLLM 0.11 cannot keep an FP8 KV cache on compute capability {major}.{minor} (FlexAttention refuses it below 8.0, its Triton kernels do not compile before Ada); vLLM 0.10 falls back to its V0 engine, which stores FP8 as planned."
        ),
        hardware::Warning::AwqKernels {
            capability: (major, minor),
        } => format!(
            "vLLM's AWQ kernels need compute capability 7.5; this card has {major}.{minor}: a GPTQ checkpoint runs, an AWQ one does not."
        ),
        hardware::Warning::Int4OnHost { kind } => format!(
            "4-bit AWQ or GPTQ weights on {}: AWQ runs off a GPU only through Intel's IPEX (Intel CPUs, not Apple silicon), GPTQ through gptqmodel's PyTorch kernels.",
            if kind == DeviceKind::Unified { "Apple silicon" } else { "a CPU" }
        ),
        hardware::Warning::BitsandbytesApple => "bitsandbytes on Apple silicon needs version 0.49 or later, and runs on its GPU from 0.50; before that, on the CPU.".to_owned(),
        hardware::Warning::EngineCache { engine } => format!(
            "{}'s KV cache is 16-bit or FP8: an INT8 or INT4 cache is generate()'s (torchao, quanto, HQQ). The plan counts a cache the engine does not make.",
            engine.engine_name()
        ),
    }
    },
    states_exceed: |states, device| {
        format!(
            "Weights, gradients and optimizer state alone take {states}, more than {device}: no batch fits. The Transformer form splits them over GPUs and offers 8-bit optimizers and LoRA."
        )
    },
    hand_off: |model| {
        format!("Open {model}, the published model nearest this size, in the Transformer form")
    },
    spare: |spare| format!("{spare} to spare"),
    unified_memory: |gb| format!("Apple silicon, {gb} GB unified"),
    cpu_ram: |gb| format!("CPU, {gb} GB RAM"),
    kept_layers: |layers, root| {
        format!("With checkpointing, √{layers} ≈ {root} layers are kept instead of {layers}.")
    },
};

fn problem(label: &str, problem: &Problem) -> String {
    let range = |r: &Range| (bound(Lang::En, r.min), bound(Lang::En, r.max));
    match problem {
        Problem::Empty { range: r } => {
            let (min, max) = range(r);
            format!("{label} is empty: type a number from {min} to {max}.")
        }
        Problem::NotANumber { range: r } => {
            let (min, max) = range(r);
            format!("{label} must be a number from {min} to {max}.")
        }
        Problem::NotWhole { range: r } => {
            let (min, max) = range(r);
            format!("{label} must be a whole number from {min} to {max}.")
        }
        Problem::OutOfRange { range: r } => {
            let (min, max) = range(r);
            format!("{label} must be from {min} to {max}.")
        }
        Problem::NotAnOption { allowed } => {
            format!("{label} must be one of: {}.", allowed.join(", "))
        }
        Problem::Repeated { item } => format!("{label} has “{item}” more than once."),
        Problem::Unknown => format!("{label} is not a known parameter."),
        Problem::Duplicate => format!("{label} was given more than once."),
        Problem::Conflict { with } => {
            format!("{label} cannot be given together with “{}”.", with.name())
        }
        Problem::OnlyWith { param, value } => {
            format!(
                "{label} applies only with “{}={}”.",
                param.name(),
                needed(*value)
            )
        }
        Problem::Indivisible { layers, stages } => format!(
            "{label}: the model's {layers} layers do not divide evenly over {stages} stages. Give their split in “pp_layout”, for example {}.",
            fields::even_layout(*layers, *stages)
        ),
    }
}

/// A kind of JSON value, with its article.
fn kind(kind: Kind) -> &'static str {
    match kind {
        Kind::Null => "«null»",
        Kind::Bool => "«true» or «false»",
        Kind::Number => "a number",
        Kind::String => "a text in quotes",
        Kind::Array => "a list […]",
        Kind::Object => "an object {…}",
    }
}

/// What another parameter must be, as the problem names it.
fn needed(value: Needed) -> String {
    match value {
        Needed::Is(spelling) => spelling.to_owned(),
        Needed::Either(a, b) => format!("{a} or {b}"),
        Needed::AtLeast(n) => format!("{n} or more"),
        Needed::Above(n) => format!("above {n}"),
        Needed::SixteenBitRecipe => "a 16-bit recipe".to_owned(),
        Needed::Not(spelling) => format!("other than {spelling}"),
    }
}
