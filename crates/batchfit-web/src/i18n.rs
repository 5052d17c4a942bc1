//! Every word the page shows, in English and Spanish. Field texts are looked up
//! by URL parameter name, so a field added to the URL format without its words
//! shows its name and fails the completeness test below.
//!
//! Numbers: both languages write the decimal point (as the worked examples read,
//! "5.369 GB" in either language: the usage of Mexico, Central America and most
//! machine-learning writing in Spanish). English groups thousands with commas;
//! Spanish groups numbers of five or more digits with a narrow no-break space,
//! as the RAE and ISO 80000 recommend ("1 000 000"), and leaves four-digit
//! numbers whole ("2048").

use crate::prelude::{Get, RwSignal};
use batchfit_core::fields::{Bound, format_count, format_hundredths_with};
use batchfit_core::measured::{Term, TermInfo};
pub use batchfit_core::query::Lang;
use batchfit_core::query::Param;

/// The label, unit and one-line hint of a form field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldText {
    pub label: &'static str,
    pub unit: &'static str,
    pub hint: &'static str,
}

const fn f(label: &'static str, unit: &'static str, hint: &'static str) -> FieldText {
    FieldText { label, unit, hint }
}

/// The name of a term of docs/model.md that can explain a measured
/// difference (`measured::TERMS`): the core's English one, or its Spanish.
pub fn term(lang: Lang, term: Term) -> &'static str {
    if lang == Lang::Es {
        return match term {
            Term::AllocatorSlack => "La holgura del asignador con caché",
            Term::CudaContext => "El contexto de CUDA",
            Term::NcclBuffers => "Los búferes de comunicación de NCCL",
            Term::LiveGradients => {
                "Gradientes que viven todo el paso (zero_grad(set_to_none=False), el búfer de Megatron)"
            }
            Term::KeptOutputs => {
                "La salida del modelo que guarda el bucle de entrenamiento (outputs=kept)"
            }
            Term::RecomputeCasts => "Las copias de autocast con recomputación completa",
            Term::BackwardWorkspace => "Los tensores de trabajo del pase hacia atrás",
            Term::Fp32Softmax => "Un softmax en FP32 en la atención sin fusionar",
            Term::NormStatistics => "Las estadísticas por token de las normas",
            Term::RepeatedKv => "K y V repetidos en cada cabeza (GQA, atención eager)",
            Term::Zero3Buffers => {
                "La distancia de reúso y los subgrupos de ZeRO-3, NCCL y los cubos de DDP"
            }
            Term::PipelineContextParallel => "Paralelismo de pipeline y de contexto",
            Term::MoeRouting => "Enrutado desigual de expertos, logits del router",
            Term::ExpertAdapters => "LoRA en tensores de expertos fusionados (target_parameters)",
            Term::WindowedAttention => "La caché de la atención por ventana y por bloques",
            Term::LatentCache => "La caché latente de MLA de un motor de servicio",
            Term::Fp8Recipes => "Recetas FP8 distintas de las dos modeladas",
            Term::PagedOptimizer => "El desborde a CPU de un optimizador paginado",
            Term::TorchCompile => "Lo que guarda torch.compile",
            Term::LigerKernels => "Kernels de Liger",
            Term::VisionTower => "Una torre de visión y sus tokens de imagen",
            Term::PreallocatedCache => "Una caché KV reservada de antemano (estática)",
            Term::FusedLora => "LoRA en proyecciones fusionadas (qkv_proj)",
            Term::QkNormTp => "QK-norm por rango de paralelismo de tensores",
        };
    }
    term.label()
}

/// What the sources say of a term (`TermInfo::note`): the core's English, or
/// its Spanish; empty where the sections are the whole reference.
pub fn term_note(lang: Lang, info: &TermInfo) -> &'static str {
    if lang != Lang::Es {
        return info.note;
    }
    match info.term {
        Term::AllocatorSlack => {
            "la holgura medida allí: del 1.2 % al 27.8 % sobre el pico asignado"
        }
        Term::CudaContext => "su tabla de contextos medidos",
        Term::NcclBuffers => "cientos de MB",
        Term::LiveGradients => "gradientes que sobreviven al paso",
        Term::KeptOutputs => "un tensor del tamaño de los logits en cada momento, con outputs=kept",
        Term::RecomputeCasts => {
            "la pérdida cuenta la copia de la cabeza y la de una capa, que nunca viven a la vez"
        }
        Term::BackwardWorkspace => {
            "sus tensores de trabajo y gradientes más allá de los términos modelados: 1.3 % (G039)"
        }
        Term::Zero3Buffers => {
            "el cubo de ZeRO-3, los parámetros en tránsito y la partición de gradientes sí se modelan (§3.2)"
        }
        Term::PipelineContextParallel => {
            "el §3.11 modela los esquemas y kernels que nombra; el §6 enumera los demás"
        }
        Term::WindowedAttention => {
            "el §3.4 modela las capas de ventana deslizante y las capas por bloques de Llama 4 tal como las guarda DynamicCache; el §6 enumera las cachés estáticas"
        }
        Term::Fp32Softmax
        | Term::NormStatistics
        | Term::RepeatedKv
        | Term::MoeRouting
        | Term::ExpertAdapters
        | Term::LatentCache
        | Term::Fp8Recipes
        | Term::PagedOptimizer
        | Term::TorchCompile
        | Term::LigerKernels
        | Term::VisionTower
        | Term::PreallocatedCache
        | Term::FusedLora
        | Term::QkNormTp => "",
    }
}

/// Words for the field whose URL parameter is `name`.
pub fn field(lang: Lang, name: Param) -> FieldText {
    let table = match lang {
        Lang::En => FIELDS_EN,
        Lang::Es => spanish().fields,
    };
    // A table rather than a `match`: it compiles to data, not comparisons.
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(f("", "", ""), |&(_, text)| text)
}

static FIELDS_EN: &[(Param, FieldText)] = &[
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
        Param::QkNorm,
        f(
            "QK-norm",
            "",
            "Norms on the queries and keys, per head (Qwen3, Gemma 3).",
        ),
    ),
    (
        Param::QkNormFull,
        f(
            "QK-norm over the projection",
            "",
            "With QK-norm: one norm over all of Q and one over all of K (OLMo 2).",
        ),
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
            "Which copies of weights, gradients and states exist.",
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
            "ZeRO shards model states across these.",
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
        f("Device", "", "Capacity as the driver reports it."),
    ),
    (Param::GpuGb, f("Custom capacity", "GB", "GB = 10⁹ bytes.")),
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
];

static FIELDS_ES: &[(Param, FieldText)] = &[
    (
        Param::Batch,
        f(
            "Tamaño de lote",
            "muestras",
            "Microlote: muestras por paso en una GPU.",
        ),
    ),
    (
        Param::Seq,
        f(
            "Longitud de secuencia",
            "tokens",
            "Tokens por muestra (el prompt, en inferencia).",
        ),
    ),
    (
        Param::Hidden,
        f("Tamaño oculto", "", "Ancho del modelo, d_model."),
    ),
    (Param::Layers, f("Capas", "", "Bloques transformer.")),
    (
        Param::Precision,
        f("Precisión", "", "Bytes por valor almacenado."),
    ),
    (
        Param::K,
        f(
            "Multiplicador k",
            "×",
            "Valores del tamaño oculto guardados por token y capa; unos 10.",
        ),
    ),
    (
        Param::Ckpt,
        f(
            "Checkpointing de gradientes",
            "",
            "Guarda las activaciones de unas √capas capas; recalcula el resto.",
        ),
    ),
    (
        Param::Params,
        f(
            "Parámetros",
            "",
            "Cantidad, p. ej. 7B, 7000M, 125M o 1.3e9.",
        ),
    ),
    (
        Param::Optimizer,
        f(
            "Optimizador",
            "",
            "Su estado se guarda para cada parámetro.",
        ),
    ),
    (
        Param::ActMb,
        f(
            "Activaciones por muestra",
            "MB",
            "Medidas o estimadas; MB = 10⁶ bytes.",
        ),
    ),
    (
        Param::Model,
        f(
            "Modelo predefinido",
            "",
            "Configuraciones publicadas; cambia cualquier valor abajo.",
        ),
    ),
    (
        Param::Kind,
        f(
            "Arquitectura",
            "",
            "Decodificador (GPT, Llama), codificador (BERT) o visión (ViT).",
        ),
    ),
    (
        Param::Heads,
        f("Cabezas de atención", "", "Cabezas de consulta por capa."),
    ),
    (
        Param::KvHeads,
        f(
            "Cabezas clave/valor",
            "",
            "Menos que las cabezas con GQA, 1 con MQA.",
        ),
    ),
    (
        Param::HeadDim,
        f("Tamaño de cabeza", "", "0 = oculto ÷ cabezas."),
    ),
    (Param::Ffn, f("Tamaño FFN", "", "Tamaño interno del MLP.")),
    (
        Param::Mlp,
        f("Tipo de MLP", "", "GELU usa dos matrices, SwiGLU tres."),
    ),
    (
        Param::Norm,
        f("Normalización", "", "LayerNorm tiene sesgo, RMSNorm no."),
    ),
    (
        Param::Vocab,
        f("Vocabulario", "tokens", "Filas de la matriz de embeddings."),
    ),
    (
        Param::Tied,
        f(
            "Embeddings compartidos",
            "",
            "La capa de salida reutiliza el embedding de entrada.",
        ),
    ),
    (
        Param::Bias,
        f(
            "Sesgos lineales",
            "",
            "Sesgos en las proyecciones de atención y MLP.",
        ),
    ),
    (
        Param::QkvBias,
        f(
            "Solo sesgos Q/K/V",
            "",
            "Como en Qwen2: sesgos en Q, K y V.",
        ),
    ),
    (
        Param::QkNorm,
        f(
            "Norma QK",
            "",
            "RMSNorm en consultas y claves, por cabeza (Qwen3, OLMoE).",
        ),
    ),
    (
        Param::QkNormFull,
        f(
            "Norma QK sobre proyecciones enteras",
            "",
            "Las normas abarcan todas las cabezas de Q y de K (OLMoE).",
        ),
    ),
    (
        Param::AttnSinks,
        f(
            "Sumideros de atención",
            "",
            "Un logit aprendido por cabeza y capa (gpt-oss).",
        ),
    ),
    (
        Param::FusedProj,
        f(
            "Proyecciones fusionadas",
            "",
            "Con AMP cada proyección separada guarda su propia copia de 16 bits.",
        ),
    ),
    (
        Param::Experts,
        f(
            "Expertos enrutados",
            "",
            "Expertos por capa MoE; 0 es un modelo denso.",
        ),
    ),
    (
        Param::ExpertsActive,
        f(
            "Expertos por token",
            "",
            "Top-k: expertos enrutados a los que va cada token.",
        ),
    ),
    (
        Param::ExpertFfn,
        f(
            "Tamaño FFN de experto",
            "",
            "Tamaño intermedio de cada experto enrutado; 0 usa el tamaño FFN.",
        ),
    ),
    (
        Param::SharedExperts,
        f(
            "Expertos compartidos",
            "",
            "Expertos por los que pasa cada token (DeepSeek, Llama 4).",
        ),
    ),
    (
        Param::SharedFfn,
        f(
            "Tamaño FFN compartido",
            "",
            "Tamaño de cada experto compartido; 0 usa el de los enrutados.",
        ),
    ),
    (
        Param::FirstDenseLayers,
        f(
            "Capas densas iniciales",
            "",
            "Capas densas antes de la primera capa MoE (DeepSeek: 3).",
        ),
    ),
    (
        Param::MoeEvery,
        f(
            "MoE cada n capas",
            "",
            "1: toda capa es MoE; 2: una de cada dos.",
        ),
    ),
    (
        Param::KvLoraRank,
        f(
            "KV latente (MLA)",
            "",
            "KV comprimido de la atención latente; 0 es atención corriente.",
        ),
    ),
    (
        Param::QLoraRank,
        f(
            "Consulta latente (MLA)",
            "",
            "Consultas comprimidas; 0 las proyecta directamente.",
        ),
    ),
    (
        Param::QkRopeHeadDim,
        f(
            "Cabeza rotatoria (MLA)",
            "",
            "La parte rotatoria de cada cabeza de consulta y clave.",
        ),
    ),
    (
        Param::QkNopeHeadDim,
        f(
            "Cabeza sin rotación (MLA)",
            "",
            "La parte sin rotación de cada cabeza de consulta y clave.",
        ),
    ),
    (
        Param::VHeadDim,
        f(
            "Cabeza de valores (MLA)",
            "",
            "Tamaño de cada cabeza de valores.",
        ),
    ),
    (
        Param::CapacityFactor,
        f(
            "Factor de capacidad de experto",
            "",
            "Megatron-Core: tokens que toma un experto, frente a un reparto parejo; 0 no descarta ninguno.",
        ),
    ),
    (
        Param::CapacityPad,
        f(
            "Rellenar expertos hasta su capacidad",
            "",
            "Cada experto calcula su capacidad completa de tokens.",
        ),
    ),
    (
        Param::Ep,
        f(
            "Paralelismo de expertos",
            "",
            "Expertos enrutados repartidos entre estas GPU de datos.",
        ),
    ),
    (
        Param::Etp,
        f(
            "Paralelismo tensorial de expertos",
            "",
            "Cada experto enrutado repartido entre estas GPU; 0: como el tensorial.",
        ),
    ),
    (
        Param::Pp,
        f(
            "Paralelismo de tubería",
            "",
            "Etapas entre las que se reparten las capas, cada una en sus GPU.",
        ),
    ),
    (
        Param::PpSchedule,
        f(
            "Programa de la tubería",
            "",
            "1F1B, 1F1B intercalado o GPipe.",
        ),
    ),
    (
        Param::Vpp,
        f(
            "Etapas virtuales",
            "",
            "Trozos del modelo por GPU (intercalado).",
        ),
    ),
    (
        Param::Microbatches,
        f("Microlotes", "", "Por paso; 0 es uno por etapa."),
    ),
    (
        Param::PpLayout,
        f(
            "Capas por etapa",
            "",
            "Reparto desigual opcional, p. ej. 7,9,9,7.",
        ),
    ),
    (
        Param::PpStage,
        f(
            "Etapa mostrada",
            "",
            "first, last o un índice; vacío: la que más necesita.",
        ),
    ),
    (
        Param::Cp,
        f(
            "Paralelismo de contexto",
            "",
            "GPU entre las que se reparte la secuencia (atención flash).",
        ),
    ),
    (
        Param::CpKind,
        f(
            "Tipo de paralelismo de contexto",
            "",
            "Atención en anillo o Ulysses.",
        ),
    ),
    (
        Param::Positions,
        f(
            "Posiciones aprendidas",
            "",
            "Filas de un embedding de posición aprendido; 0 con RoPE.",
        ),
    ),
    (
        Param::TokenTypes,
        f("Tipos de token", "", "Embeddings de segmento (BERT: 2)."),
    ),
    (
        Param::Labels,
        f(
            "Etiquetas del clasificador",
            "",
            "Salidas de una cabeza de clasificación; 0 si no hay.",
        ),
    ),
    (
        Param::Dropout,
        f(
            "Dropout",
            "",
            "Las máscaras de dropout se guardan para el paso hacia atrás.",
        ),
    ),
    (
        Param::Image,
        f(
            "Tamaño de imagen",
            "px",
            "Lado de la imagen cuadrada de entrada.",
        ),
    ),
    (
        Param::Patch,
        f(
            "Tamaño de parche",
            "px",
            "Lado de un parche; tokens = (imagen ÷ parche)² + 1.",
        ),
    ),
    (
        Param::Channels,
        f("Canales", "", "Canales de color de la imagen."),
    ),
    (
        Param::QkNorm,
        f(
            "Norma QK",
            "",
            "Normas sobre consultas y claves, por cabeza (Qwen3, Gemma 3).",
        ),
    ),
    (
        Param::QkNormFull,
        f(
            "Norma QK sobre la proyección",
            "",
            "Con norma QK: una norma sobre toda Q y otra sobre toda K (OLMo 2).",
        ),
    ),
    (
        Param::Block,
        f(
            "Posición de las normas",
            "",
            "Dónde van las normas de cada capa: antes de los bloques, después (OLMo 2), ambas (Gemma 2/3) o una compartida por bloques en paralelo (Phi-2).",
        ),
    ),
    (
        Param::Window,
        f(
            "Ventana deslizante",
            "tokens",
            "Tokens que atiende una capa con ventana; su caché KV no guarda más. 0 si no hay.",
        ),
    ),
    (
        Param::GlobalEvery,
        f(
            "Capa global cada",
            "capas",
            "Cada n-ésima capa atiende a todo el contexto (Gemma 2: 2, Gemma 3: 6); 0 si ninguna.",
        ),
    ),
    (
        Param::Softcap,
        f(
            "Limitación de logits",
            "",
            "El tope tanh de Gemma 2 sobre los logits: un tensor más del tamaño de los logits al entrenar.",
        ),
    ),
    (
        Param::AttnSoftcap,
        f(
            "Limitación de puntuaciones",
            "",
            "El tope tanh de Gemma 2 sobre las puntuaciones de atención: un tensor más de ese tamaño con atención clásica.",
        ),
    ),
    (
        Param::Recipe,
        f(
            "Receta de precisión",
            "",
            "Qué copias de pesos, gradientes y estados existen.",
        ),
    ),
    (
        Param::Recompute,
        f(
            "Recálculo de activaciones",
            "",
            "Checkpointing: qué se guarda y qué se recalcula.",
        ),
    ),
    (
        Param::RecomputeMethod,
        f(
            "Capas con checkpoint",
            "",
            "Con recálculo completo: grupos de N capas (uniform de Megatron), las N primeras de cada etapa (block de Megatron) o una de cada N (torchtitan).",
        ),
    ),
    (
        Param::RecomputeLayers,
        f(
            "Capas del plan de checkpoints",
            "capas",
            "La N del método: capas por grupo, capas con checkpoint o el paso.",
        ),
    ),
    (
        Param::RecomputeModules,
        f(
            "Módulos recalculados",
            "",
            "El --recompute-modules de Megatron: core_attn, mlp, layernorm, moe_act, moe, shared_experts.",
        ),
    ),
    (
        Param::Reentrant,
        f(
            "Checkpoint reentrante",
            "",
            "use_reentrant=True (Megatron, Unsloth): la salida recalculada vive durante el paso hacia atrás de la capa.",
        ),
    ),
    (
        Param::GradAccumFusion,
        f(
            "Fusión de la acumulación de gradientes",
            "",
            "Lo predeterminado en Megatron: Transformer Engine guarda un gradiente BF16 ficticio por forma de peso durante toda la ejecución. Sin ella (--no-gradient-accumulation-fusion): el gradiente BF16 de cada peso existe hasta que el búfer FP32 lo recibe.",
        ),
    ),
    (
        Param::Attn,
        f(
            "Kernel de atención",
            "",
            "FlashAttention / SDPA nunca guarda las puntuaciones s×s.",
        ),
    ),
    (
        Param::Mode,
        f(
            "Tarea",
            "",
            "Entrenar guarda gradientes y estado del optimizador; la inferencia, una caché KV.",
        ),
    ),
    (
        Param::Gen,
        f(
            "Tokens generados",
            "tokens",
            "Tokens nuevos por muestra; la caché KV crece hasta prompt + estos.",
        ),
    ),
    (
        Param::Quant,
        f(
            "Cuantización de pesos",
            "",
            "Pesos de inferencia en INT8 o INT4, con sus escalas.",
        ),
    ),
    (
        Param::Gpus,
        f(
            "GPUs (paralelismo de datos)",
            "",
            "ZeRO reparte los estados del modelo entre ellas.",
        ),
    ),
    (
        Param::Zero,
        f(
            "Etapa ZeRO",
            "",
            "0 nada, 1 optimizador, 2 + gradientes, 3 + pesos (FSDP full shard).",
        ),
    ),
    (
        Param::Tp,
        f(
            "Paralelismo de tensores",
            "",
            "Divide los pesos y activaciones de cada capa.",
        ),
    ),
    (
        Param::Sp,
        f(
            "Paralelismo de secuencia",
            "",
            "Con paralelismo de tensores: divide también el resto de activaciones.",
        ),
    ),
    (
        Param::Foreach,
        f(
            "Búferes del paso del optimizador",
            "",
            "El AdamW foreach de PyTorch reserva temporales en el paso.",
        ),
    ),
    (
        Param::Framework,
        f(
            "Framework",
            "",
            "Fija los valores por defecto que implica su código; cambia cualquier campo después.",
        ),
    ),
    (
        Param::Step,
        f(
            "Paso del optimizador",
            "",
            "Los pasos fusionados o dentro del backward no necesitan temporales del tamaño de los parámetros.",
        ),
    ),
    (
        Param::Loss,
        f(
            "Entropía cruzada",
            "",
            "La pérdida por trozos nunca guarda a la vez los logits FP32 de todos los tokens.",
        ),
    ),
    (
        Param::Offload,
        f(
            "Estado del optimizador en CPU",
            "",
            "ZeRO-Offload: el estado del optimizador vive en la memoria de la CPU.",
        ),
    ),
    (
        Param::BucketM,
        f(
            "Búferes de comunicación",
            "M elementos",
            "Los buckets de gradientes de DeepSpeed; 0 si no hay.",
        ),
    ),
    (
        Param::Prefetch,
        f(
            "Prefetch del all-gather",
            "capas",
            "Capas cuyos parámetros completos FSDP reúne antes de usarlos.",
        ),
    ),
    (
        Param::DsPrefetch,
        f(
            "Bucket de prefetch de ZeRO-3",
            "elementos",
            "stage3_prefetch_bucket_size de DeepSpeed: parámetros reunidos antes de usarlos.",
        ),
    ),
    (
        Param::DsLive,
        f(
            "Parámetros vivos de ZeRO-3",
            "elementos",
            "stage3_max_live_parameters de DeepSpeed: el máximo reunido a la vez.",
        ),
    ),
    (
        Param::DsPersist,
        f(
            "Umbral de persistencia de ZeRO-3",
            "elementos",
            "DeepSpeed guarda enteros en cada GPU los parámetros así de pequeños.",
        ),
    ),
    (
        Param::ActOffload,
        f(
            "Descarga de activaciones",
            "",
            "Las activaciones guardadas esperan en la memoria de la CPU hasta el paso hacia atrás.",
        ),
    ),
    (
        Param::Compile,
        f(
            "torch.compile",
            "",
            "Inductor recalcula en el paso hacia atrás los tensores elementales baratos.",
        ),
    ),
    (
        Param::Logits,
        f(
            "Precisión de los logits",
            "",
            "Bytes de cada logit y de su gradiente en la pérdida.",
        ),
    ),
    (
        Param::LoraRank,
        f(
            "Rango de LoRA",
            "",
            "0: ajuste completo; r > 0: base congelada, adaptadores FP32.",
        ),
    ),
    (
        Param::LoraTargets,
        f(
            "Destinos de LoRA",
            "",
            "Las capas lineales de cada bloque que llevan adaptadores.",
        ),
    ),
    (
        Param::BaseQuant,
        f(
            "Base de QLoRA",
            "",
            "Capas lineales congeladas en 4 u 8 bits.",
        ),
    ),
    (
        Param::DoubleQuant,
        f(
            "Doble cuantización",
            "",
            "Bases de 4 bits: absmax de 8 bits.",
        ),
    ),
    (
        Param::TrainEmbeddings,
        f(
            "Entrenar embedding y cabeza",
            "",
            "Una copia entrenable de cada uno junto al original congelado.",
        ),
    ),
    (
        Param::Fp8,
        f(
            "Entrenamiento en FP8",
            "",
            "TE guarda copias FP8 de los pesos; torchao guarda tensores de 16 bits.",
        ),
    ),
    (
        Param::LoraVariant,
        f(
            "Método de adaptadores",
            "",
            "DoRA añade una magnitud por salida y guarda más por token.",
        ),
    ),
    (
        Param::ParamOffload,
        f(
            "Descarga de parámetros",
            "",
            "Pesos, gradientes y el paso en la CPU; la GPU guarda las capas en curso.",
        ),
    ),
    (
        Param::KvDtype,
        f(
            "Precisión de la caché KV",
            "",
            "Las cachés cuantizadas guardan escalas; int8 e int4 descuantizan por capa.",
        ),
    ),
    (
        Param::LoraDropout,
        f(
            "Dropout de LoRA",
            "",
            "Guarda la entrada con dropout y su máscara.",
        ),
    ),
    (
        Param::ZeroGrad,
        f(
            "Gradientes entre pasos",
            "",
            "set_to_none=False los mantiene hasta el paso siguiente.",
        ),
    ),
    (
        Param::Outputs,
        f(
            "Salida del modelo en el bucle",
            "",
            "outputs = model(…) vivo durante el backward retiene sus logits.",
        ),
    ),
    (
        Param::NormKernel,
        f(
            "Kernels de las normas",
            "",
            "Una norma fusionada guarda solo su entrada.",
        ),
    ),
    (
        Param::Gpu,
        f(
            "Dispositivo",
            "",
            "Capacidad tal como la informa el driver.",
        ),
    ),
    (
        Param::GpuGb,
        f("Capacidad personalizada", "GB", "GB = 10⁹ bytes."),
    ),
    (
        Param::OverheadGb,
        f(
            "Sobrecarga",
            "GB",
            "Contexto CUDA y búferes del framework; 0.5–2 GB en la práctica.",
        ),
    ),
    (
        Param::Margin,
        f(
            "Margen de seguridad",
            "%",
            "Holgura para la fragmentación; se suele aconsejar 15–20 %.",
        ),
    ),
    (
        Param::GlobalBatch,
        f(
            "Lote global objetivo",
            "muestras",
            "Para acumulación de gradientes; 0 si no hay.",
        ),
    ),
];

/// The label of option `value` of the select field `name`.
pub fn option(lang: Lang, name: Param, value: &str) -> String {
    let es = lang == Lang::Es;
    if name == Param::Zero {
        return format!("{} {value}", if es { "Etapa" } else { "Stage" });
    }
    // A table rather than a `match`: it compiles to data, not comparisons.
    let table = if es { spanish().options } else { OPTIONS };
    table
        .iter()
        .find(|&&(n, v, _)| n == name && v == value)
        .map_or(value, |&(_, _, label)| label)
        .to_owned()
}

/// Option labels: select name, URL spelling, English (the Spanish ones are
/// [`OPTIONS_ES`], with the Spanish tables).
static OPTIONS: &[(Param, &str, &str)] = &[
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
    (Param::NormKernel, "eager", "As in the model code"),
    (
        Param::NormKernel,
        "fused",
        "Fused (Transformer Engine, Apex)",
    ),
];

/// The Spanish labels of [`OPTIONS`], by select name and URL spelling.
static OPTIONS_ES: &[(Param, &str, &str)] = &[
    (Param::Precision, "fp32", "FP32 (4 bytes)"),
    (Param::Precision, "fp16", "FP16 (2 bytes)"),
    (Param::Precision, "bf16", "BF16 (2 bytes)"),
    (Param::Precision, "int8", "INT8 (1 byte)"),
    (Param::Optimizer, "adamw", "AdamW"),
    (Param::Optimizer, "adam8bit", "Adam de 8 bits"),
    (
        Param::Optimizer,
        "paged_adamw_8bit",
        "AdamW paginado de 8 bits (puede pasar a la CPU)",
    ),
    (
        Param::Optimizer,
        "paged_adamw",
        "AdamW paginado de 32 bits (puede pasar a la CPU)",
    ),
    (Param::Optimizer, "adafactor", "Adafactor"),
    (Param::Optimizer, "sgd_momentum", "SGD con momento"),
    (Param::Optimizer, "sgd", "SGD simple"),
    (Param::Optimizer, "none", "Ninguno (solo inferencia)"),
    (Param::Kind, "decoder", "Decodificador"),
    (Param::Kind, "encoder", "Codificador"),
    (Param::Kind, "vision", "Transformer de visión"),
    (Param::Mlp, "gelu", "GELU (2)"),
    (
        Param::Mlp,
        "gelu_new",
        "GELU elemento a elemento (2, GPT-2)",
    ),
    (Param::Mlp, "swiglu", "SwiGLU (3)"),
    (Param::Norm, "layernorm", "LayerNorm"),
    (Param::Norm, "rmsnorm", "RMSNorm"),
    (
        Param::Norm,
        "rmsnorm_fp32",
        "RMSNorm, peso en FP32 (Gemma, OLMo 2)",
    ),
    (Param::Block, "pre", "Antes de cada bloque"),
    (Param::Block, "post", "Después de cada bloque"),
    (Param::Block, "sandwich", "Antes y después (4 normas)"),
    (Param::Block, "parallel", "Una norma, bloques en paralelo"),
    (Param::Recipe, "fp32", "FP32 en todo"),
    (Param::Recipe, "amp", "Mixta BF16 con maestro FP32 (AMP)"),
    (Param::Recipe, "amp16", "Mixta FP16 con maestro FP32 (AMP)"),
    (
        Param::Recipe,
        "mixed",
        "Pesos de 2 bytes, gradientes y estados FP32",
    ),
    (Param::Recipe, "bf16", "BF16 puro"),
    (
        Param::Recipe,
        "fsdp",
        "FP32 fragmentado, cálculo en BF16 (FSDP2)",
    ),
    (
        Param::Recipe,
        "main_fp32",
        "Modelo BF16, gradientes y parámetros principales FP32 (Megatron)",
    ),
    (Param::FusedProj, "none", "Q, K, V y gate, up separadas"),
    (Param::FusedProj, "qkv", "Una matriz QKV"),
    (Param::FusedProj, "all", "QKV y gate-up fusionadas"),
    (Param::PpSchedule, "1f1b", "1F1B"),
    (Param::PpSchedule, "interleaved", "1F1B intercalado"),
    (Param::PpSchedule, "gpipe", "GPipe"),
    (Param::CpKind, "ring", "Atención en anillo"),
    (Param::CpKind, "ulysses", "Ulysses (all-to-all)"),
    (Param::Recompute, "none", "Ninguno"),
    (
        Param::Recompute,
        "selective",
        "Selectivo (núcleo de atención)",
    ),
    (
        Param::Recompute,
        "full",
        "Completo (solo la entrada de cada capa)",
    ),
    (Param::Recompute, "op", "Por operador (torchtitan)"),
    (Param::RecomputeMethod, "uniform", "Grupos de N"),
    (Param::RecomputeMethod, "block", "Las N primeras"),
    (Param::RecomputeMethod, "every", "Una de cada N"),
    (Param::Attn, "eager", "Clásica (guarda las puntuaciones)"),
    (Param::Attn, "flash", "FlashAttention / SDPA"),
    (Param::Mode, "train", "Entrenamiento"),
    (Param::Mode, "inference", "Inferencia (generación)"),
    (Param::Quant, "none", "Sin cuantizar"),
    (Param::Quant, "int8", "INT8"),
    (Param::Quant, "int4", "INT4 (grupos de 128)"),
    (Param::Framework, "custom", "Ninguno (valores de batchfit)"),
    (Param::Framework, "pytorch", "PyTorch con AMP"),
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
    (Param::Logits, "fp32", "FP32"),
    (Param::Logits, "bf16", "BF16"),
    (Param::LoraTargets, "qv", "Q y V (por defecto en PEFT)"),
    (Param::LoraTargets, "attn", "Atención: Q, K, V, O"),
    (Param::LoraTargets, "mlp", "MLP: gate, up, down"),
    (Param::LoraTargets, "all", "Todas las capas lineales"),
    (
        Param::LoraTargets,
        "experts",
        "Expertos enrutados: gate, up, down",
    ),
    (
        Param::LoraTargets,
        "all_experts",
        "Todas las capas lineales, también expertos y router",
    ),
    (Param::KvDtype, "bf16", "16 bits, sin cuantizar"),
    (Param::Fp8, "none", "No"),
    (Param::Fp8, "te", "Transformer Engine (escalado diferido)"),
    (Param::Fp8, "torchao", "torchao float8"),
    (Param::LoraVariant, "lora", "LoRA"),
    (Param::LoraVariant, "dora", "DoRA"),
    (Param::KvDtype, "fp8", "FP8 (vLLM)"),
    (Param::KvDtype, "int8", "INT8 (torchao)"),
    (
        Param::KvDtype,
        "int4",
        "INT4 (QuantizedCache de transformers)",
    ),
    (Param::BaseQuant, "none", "16 bits (LoRA)"),
    (Param::BaseQuant, "nf4", "NF4 de 4 bits"),
    (Param::BaseQuant, "fp4", "FP4 de 4 bits"),
    (Param::BaseQuant, "int8", "INT8 (LLM.int8)"),
    (Param::ZeroGrad, "none", "Liberados (PyTorch ≥ 2.0)"),
    (Param::ZeroGrad, "zeros", "Se mantienen, a cero"),
    (
        Param::ZeroGrad,
        "after_forward",
        "Liberados tras el forward (Lightning)",
    ),
    (Param::Outputs, "dropped", "Se descarta (Trainer)"),
    (Param::Outputs, "kept", "Se mantiene (outputs = model(…))"),
    (
        Param::Outputs,
        "kept_fp32",
        "Se mantiene, FP32 (transformers ≤ 4.45)",
    ),
    (Param::Step, "fused", "Fusionado"),
    (Param::Step, "foreach", "foreach"),
    (Param::Step, "forloop", "Bucle por parámetro"),
    (Param::Step, "in_backward", "Dentro del backward"),
    (Param::Loss, "full", "Completa (logits FP32)"),
    (Param::Loss, "chunked", "Por trozos"),
    (
        Param::Loss,
        "vocab_parallel",
        "Paralela en vocabulario (Megatron)",
    ),
    (Param::Loss, "fused", "Fusionada (Unsloth)"),
    (Param::NormKernel, "eager", "Como en el modelo"),
    (
        Param::NormKernel,
        "fused",
        "Fusionadas (Transformer Engine, Apex)",
    ),
];

/// A size's exact bytes, for its tooltip: "85,899,345,920 bytes".
pub fn exact_bytes(lang: Lang, bytes: u128) -> String {
    format!("{} bytes", group(lang, bytes))
}

/// Writes a whole number as the language groups it.
pub fn group(lang: Lang, n: u128) -> String {
    let digits = n.to_string();
    let (separator, min_len) = match lang {
        Lang::En => (',', 4),
        Lang::Es => ('\u{202F}', 5),
    };
    if digits.len() < min_len {
        return digits;
    }
    let mut out = String::with_capacity(digits.len() * 2);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(separator);
        }
        out.push(c);
    }
    out
}

/// A field's bound as the language writes it: whole numbers grouped, decimals
/// with their point and their whole part grouped, counts with their scale
/// ("1000T").
pub fn bound(lang: Lang, bound: Bound) -> String {
    match bound {
        Bound::Whole(n) => group(lang, u128::from(n)),
        Bound::Hundredths(h) => format_hundredths_with(h, |w| group(lang, u128::from(w))),
        Bound::Count(n) => format_count(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchfit_core::query;

    #[test]
    fn every_term_that_can_explain_a_measurement_has_a_name_in_both_languages() {
        let mut named: Vec<&str> = Vec::new();
        for info in batchfit_core::measured::TERMS {
            let names = [term(Lang::En, info.term), term(Lang::Es, info.term)];
            for name in names {
                assert!(
                    !name.is_empty() && !named.contains(&name),
                    "{:?}: {name:?} is empty or names another term or language too",
                    info.term
                );
            }
            named.extend(names);
            // A note in English has its Spanish, and only then, with the
            // same figures written the same way (the page's decimal point).
            let spanish = term_note(Lang::Es, info);
            assert_eq!(spanish.is_empty(), info.note.is_empty(), "{:?}", info.term);
            let figures = info
                .note
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map(|f| f.trim_end_matches('.'))
                .filter(|f| f.starts_with(|c: char| c.is_ascii_digit()));
            for figure in figures {
                assert!(spanish.contains(figure), "{:?}: {figure}", info.term);
            }
        }
    }

    #[test]
    fn every_url_parameter_with_a_field_has_words_in_both_languages() {
        let fields = query::ACTIVATIONS_PARAMETERS
            .iter()
            .chain(query::PARAMETERS_PARAMETERS)
            .chain(query::TRANSFORMER_PARAMETERS)
            .chain(query::COMMON_PARAMETERS)
            .filter(|n| !matches!(**n, Param::Units | Param::Lang | Param::Embed));
        for &name in fields {
            for lang in [Lang::En, Lang::Es] {
                let text = field(lang, name);
                assert!(
                    !text.label.is_empty() && !text.hint.is_empty(),
                    "{name:?} in {lang:?}"
                );
            }
            assert_ne!(
                field(Lang::En, name),
                field(Lang::Es, name),
                "{name:?} is not translated"
            );
        }
    }

    #[test]
    fn every_option_label_has_its_spanish_label() {
        let keys = |table: &[(Param, &str, &str)]| -> Vec<(Param, String)> {
            table.iter().map(|&(p, v, _)| (p, v.to_owned())).collect()
        };
        assert_eq!(keys(OPTIONS), keys(OPTIONS_ES));
        assert_eq!(
            option(Lang::Es, Param::Optimizer, "adam8bit"),
            "Adam de 8 bits"
        );
        assert_eq!(option(Lang::En, Param::Optimizer, "adam8bit"), "Adam 8-bit");
    }

    #[test]
    fn numbers_are_grouped_as_each_language_writes_them() {
        assert_eq!(group(Lang::En, 1_000_000), "1,000,000");
        assert_eq!(group(Lang::En, 999), "999");
        assert_eq!(group(Lang::En, 2048), "2,048");
        assert_eq!(group(Lang::Es, 2048), "2048");
        assert_eq!(group(Lang::Es, 1_000_000), "1\u{202F}000\u{202F}000");
        assert_eq!(
            bound(Lang::Es, Bound::Whole(1_000_000_000)),
            "1\u{202F}000\u{202F}000\u{202F}000"
        );
        assert_eq!(bound(Lang::Es, Bound::Hundredths(1)), "0.01");
        // A decimal bound's whole part is grouped as a whole bound is.
        assert_eq!(bound(Lang::En, Bound::Hundredths(100_000_000)), "1,000,000");
        assert_eq!(
            bound(Lang::Es, Bound::Hundredths(100_000_050)),
            "1\u{202F}000\u{202F}000.5"
        );
        assert_eq!(
            bound(Lang::En, Bound::Count(1_000_000_000_000_000)),
            "1000T"
        );
    }
}

/// The page's other words, one struct per language so that a missing
/// translation is a compile error.
#[derive(Debug)]
pub struct Words {
    pub promise: &'static str,
    pub language: &'static str,
    pub units: &'static str,
    pub units_gb: &'static str,
    pub units_gib: &'static str,
    pub units_note_gb: &'static str,
    pub units_note_gib: &'static str,
    pub forms: &'static str,
    /// Title and one-line "when to use it" of each form, in `Form::ALL` order.
    pub tabs: [(&'static str, &'static str); 3],
    pub inputs_title: &'static str,
    pub more_architecture: &'static str,
    /// The collapsed group of the mixture-of-experts and MLA fields.
    pub moe_title: &'static str,
    /// After a MoE model's parameter count: "(12.9B active)".
    pub active: &'static str,
    pub paste_config: &'static str,
    pub paste_hint: &'static str,
    pub config_loaded: &'static str,
    pub deepspeed_loaded: &'static str,
    pub training_args_loaded: &'static str,
    pub custom_model: &'static str,
    pub device_title: &'static str,
    pub no_device: &'static str,
    pub custom_device: &'static str,
    pub parallelism_title: &'static str,
    pub pipeline_more: &'static str,
    pub training_title: &'static str,
    pub results_title: &'static str,
    pub stale: &'static str,
    /// The compact summary's word for a result that is not current.
    pub not_current: &'static str,
    pub url_notice: &'static str,
    pub weights: &'static str,
    pub gradients: &'static str,
    pub optimizer_states: &'static str,
    pub optimizer_step: &'static str,
    pub kv_cache: &'static str,
    pub activations: &'static str,
    pub activations_per_sample: &'static str,
    pub overhead: &'static str,
    pub required: &'static str,
    pub parameters: &'static str,
    pub capacity: &'static str,
    pub cpu_memory: &'static str,
    pub cpu_memory_note: &'static str,
    pub peak_allocated: &'static str,
    pub peak_allocated_note: &'static str,
    pub peak_reserved: &'static str,
    pub peak_reserved_note: &'static str,
    pub nvidia_smi: &'static str,
    pub nvidia_smi_note: &'static str,
    pub required_note: &'static str,
    pub peak_phase: &'static str,
    pub buffers: &'static str,
    pub allocator_cache: &'static str,
    pub margin: &'static str,
    /// The component table's columns: alive at the peak, and each term's own size.
    pub at_peak: &'static str,
    pub own_size: &'static str,
    /// Why a term is (partly) not in the peak, by the moment that sets it.
    pub not_at_peak_gradients: &'static str,
    pub not_at_peak_step_after: &'static str,
    pub not_at_peak_step_inside: &'static str,
    pub not_at_peak_freed: &'static str,
    pub partly_at_peak: &'static str,
    pub not_at_peak_casts: &'static str,
    /// The bar's caption: its segments add up to the required memory.
    pub bar_sums: &'static str,
    /// The largest batch when not even one sample fits.
    pub no_batch_fits: &'static str,
    pub max_seq: &'static str,
    pub no_seq_fits: &'static str,
    pub job_gpus: &'static str,
    /// A tap or click shows the exact bytes.
    pub tap_for_bytes: &'static str,
    /// Names of `memory::Phase` values, in `Phase::ALL` order.
    pub phases: [&'static str; 5],
    pub moments: [&'static str; 6],
    pub step_title: &'static str,
    pub step_note: &'static str,
    pub step_axis: &'static str,
    pub step_moment: &'static str,
    pub step_layer: &'static str,
    pub step_peak: &'static str,
    pub step_is_peak: &'static str,
    pub fits: &'static str,
    pub does_not_fit: &'static str,
    pub max_batch: &'static str,
    pub accumulation: &'static str,
    pub gpus_needed: &'static str,
    pub what_if_title: &'static str,
    pub half_batch: &'static str,
    pub checkpointing: &'static str,
    pub bf16: &'static str,
    pub zero3: &'static str,
    pub half_seq: &'static str,
    pub with_lora: &'static str,
    pub with_qlora: &'static str,
    pub fp8_kv: &'static str,
    /// A paged optimizer's state, counted on the GPU, may move to the CPU.
    pub optimizer_may_spill: &'static str,
    /// Pipeline stages: each stage's memory.
    pub stages_title: &'static str,
    pub stages_note: &'static str,
    pub stage: &'static str,
    pub stages_layers: &'static str,
    pub stages_embedding: &'static str,
    pub stages_head: &'static str,
    /// The smallest changes that fit, their levers and what each costs.
    pub fixes_title: &'static str,
    pub lever_seq: &'static str,
    pub lever_batch: &'static str,
    pub lever_param_offload: &'static str,
    pub lever_offload: &'static str,
    pub lever_act_offload: &'static str,
    pub lever_selective: &'static str,
    pub lever_adam8bit: &'static str,
    pub lever_bf16: &'static str,
    /// "fits" inside a sentence.
    pub fits_lower: &'static str,
    pub cost_compute: &'static str,
    pub cost_pcie: &'static str,
    pub cost_at: &'static str,
    pub cost_trains: &'static str,
    pub cost_tokens: &'static str,
    /// The same, in the parameters form, which has no sequence.
    pub cost_samples: &'static str,
    pub cost_micro_steps: &'static str,
    /// "Compare with a measurement": a pasted reading beside the estimate.
    pub measure_title: &'static str,
    /// While a section's code is being fetched (dom::Chunk).
    pub loading: &'static str,
    /// When it could not be.
    pub chunk_failed: &'static str,
    pub measure_hint: &'static str,
    pub measure_unlabelled: &'static str,
    pub measure_unlabelled_none: &'static str,
    pub measure_measured: &'static str,
    pub measure_predicted: &'static str,
    /// "estimate − run".
    pub measure_difference: &'static str,
    pub measure_terms: &'static str,
    pub measure_within: &'static str,
    pub measure_part: &'static str,
    pub measure_unsized: &'static str,
    /// After a term's range of the difference it could make: "here".
    pub measure_here: &'static str,
    pub measure_modelled: &'static str,
    pub measure_not_modelled: &'static str,
    pub measure_report: &'static str,
    /// How sure "fits" is: the validation range.
    pub confidence_range: &'static str,
    pub confidence_against: &'static str,
    pub confidence_rows: &'static str,
    pub confidence_sources: &'static str,
    pub confidence_pooled: &'static str,
    pub confidence_needs: &'static str,
    pub confidence_fits: &'static str,
    pub confidence_optimistic: &'static str,
    pub confidence_no: &'static str,
    /// "Compare with…": two setups side by side.
    pub compare_start: &'static str,
    pub compare_title: &'static str,
    /// "The form shows setup" + A or B.
    pub compare_form_shows: &'static str,
    /// "Edit setup" + A or B.
    pub compare_edit: &'static str,
    pub compare_stop: &'static str,
    pub compare_differs: &'static str,
    pub compare_same: &'static str,
    pub compare_presets: &'static str,
    /// "Which GPUs fit": the configuration on every device preset.
    pub devices_title: &'static str,
    pub devices_note: &'static str,
    pub devices_device: &'static str,
    pub devices_memory: &'static str,
    pub devices_spare: &'static str,
    /// The spare column where the device is short of memory: "short by 3.2 GB".
    pub devices_short_by: &'static str,
    /// The title of a device's button: one click picks it.
    pub devices_pick: &'static str,
    pub sweep_title: &'static str,
    pub sweep_batch: &'static str,
    pub sweep_states: &'static str,
    pub sweep_total: &'static str,
    /// The sweep's note under its header: its parts are those alive at the peak.
    pub sweep_note: &'static str,
    pub sweep_all_columns: &'static str,
    pub sweep_fewer_columns: &'static str,
    pub sweep_over: &'static str,
    pub sweep_chosen: &'static str,
    /// The sweep chart's vertical axis.
    pub sweep_axis: &'static str,
    pub actions_title: &'static str,
    pub copy_link: &'static str,
    pub copy_table: &'static str,
    pub download_csv: &'static str,
    pub embed: &'static str,
    pub copied_link: &'static str,
    pub copied_table: &'static str,
    pub copied_embed: &'static str,
    /// The page's `<title>`, and the short promise the embed snippet's title uses.
    pub title: &'static str,
    pub promise_short: &'static str,
    /// The comment in the embed snippet's script.
    pub embed_comment: &'static str,
    pub downloaded: &'static str,
    pub copy_fallback: &'static str,
    pub open_full: &'static str,
    pub disclaimer: &'static str,
    pub how_title: &'static str,
    pub faq_title: &'static str,
}

/// A translated text that follows the page's language: `tr(lang, |w| w.copy_link)`.
/// Every label on the page is this one closure type, a field picked by a
/// function pointer, so its binding is compiled once.
pub fn tr(lang: RwSignal<Lang>, pick: fn(&Words) -> &'static str) -> crate::dom::Rx<String> {
    Box::new(move || pick(words(lang.get())).to_owned())
}

/// "Loading…" in the page's language while a section's code is fetched, or
/// what to do if it could not be (`dom::details_loaded_when_open`).
pub fn chunk_status(lang: RwSignal<Lang>) -> std::rc::Rc<dyn Fn(bool) -> String> {
    std::rc::Rc::new(move |failed| {
        let w = words(lang.get());
        if failed { w.chunk_failed } else { w.loading }.to_owned()
    })
}

/// The Spanish questions and answers of "How it works".
pub fn spanish_faq() -> &'static [(&'static str, &'static str)] {
    spanish().faq
}

pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &EN,
        Lang::Es => spanish().words,
    }
}

/// The Spanish words and field texts: in the split build a chunk
/// (`dom::Chunk`), fetched before a Spanish page is shown (`load`), so that
/// an English visit does not load them.
#[derive(Clone, Copy, Debug)]
struct Spanish {
    words: &'static Words,
    fields: &'static [(Param, FieldText)],
    options: &'static [(Param, &'static str, &'static str)],
    faq: &'static [(&'static str, &'static str)],
}

#[cfg(batchfit_split)]
#[allow(unsafe_code)]
#[wasm_split_helpers::wasm_split(es, fallible, preload(#[allow(unsafe_code)] preload_es))]
fn spanish_tables() -> Result<Spanish, crate::dom::ChunkMissing> {
    Ok(Spanish {
        words: &ES,
        fields: FIELDS_ES,
        options: OPTIONS_ES,
        faq: crate::faq::FAQ_ES,
    })
}

#[cfg(not(batchfit_split))]
fn spanish() -> Spanish {
    Spanish {
        words: &ES,
        fields: FIELDS_ES,
        options: OPTIONS_ES,
        faq: crate::faq::FAQ_ES,
    }
}

/// Set once the chunk is here; until then (never seen: the page switches to
/// Spanish only after `load`) the English tables.
#[cfg(batchfit_split)]
static SPANISH: std::sync::OnceLock<Spanish> = std::sync::OnceLock::new();

#[cfg(batchfit_split)]
fn spanish() -> Spanish {
    SPANISH.get().copied().unwrap_or(Spanish {
        words: &EN,
        fields: FIELDS_EN,
        options: OPTIONS,
        faq: crate::faq::FAQ_EN,
    })
}

/// Whether the page can be shown in `lang` now, without [`load`].
pub fn ready(lang: Lang) -> bool {
    #[cfg(batchfit_split)]
    if lang == Lang::Es {
        return SPANISH.get().is_some();
    }
    let _ = lang;
    true
}

/// Makes `lang`'s tables available (fetches the Spanish chunk once).
pub async fn load(lang: Lang) {
    #[cfg(batchfit_split)]
    // Not fetched (the network): the page stays in English.
    if lang == Lang::Es
        && SPANISH.get().is_none()
        && let Ok(tables) = spanish_tables().await
    {
        let _ = SPANISH.set(tables);
    }
    let _ = lang;
}

static EN: Words = Words {
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
    more_architecture: "More architecture details",
    moe_title: "Mixture of experts and latent attention",
    active: "active",
    paste_config: "Paste a config.json, a DeepSpeed config or TrainingArguments",
    paste_hint: "A model's config.json sets the architecture; a DeepSpeed config or TrainingArguments (to_json_string()) the training settings. Nothing is uploaded.",
    config_loaded: "Architecture loaded from config.json.",
    deepspeed_loaded: "Training settings read from the DeepSpeed config.",
    training_args_loaded: "Training settings read from the TrainingArguments.",
    custom_model: "Custom architecture",
    device_title: "Device",
    no_device: "No device (numbers only)",
    custom_device: "Custom capacity…",
    pipeline_more: "Pipeline and context-parallel details",
    parallelism_title: "Multi-GPU: data, tensor, pipeline and context parallelism",
    training_title: "Training setup",
    results_title: "Memory needed",
    stale: "Not current: showing the last valid result. Fix the marked field to update it.",
    not_current: "Not current",
    url_notice: "Some link parameters were ignored; their fields use defaults:",
    weights: "Weights",
    gradients: "Gradients",
    optimizer_states: "Optimizer states",
    optimizer_step: "Optimizer step buffers",
    kv_cache: "KV cache",
    activations: "Activations",
    activations_per_sample: "Activations per sample",
    overhead: "Overhead",
    required: "Required",
    parameters: "Parameters",
    capacity: "Device capacity",
    cpu_memory: "CPU memory (offload)",
    cpu_memory_note: "Host RAM for this GPU's process; in no GPU reading.",
    peak_allocated: "Peak allocated",
    peak_allocated_note: "What torch.cuda.max_memory_allocated() reports: the tensors alive at the peak.",
    peak_reserved: "Peak reserved",
    peak_reserved_note: "What torch.cuda.max_memory_reserved() reports: plus the allocator's cached, unusable blocks.",
    nvidia_smi: "nvidia-smi",
    nvidia_smi_note: "What nvidia-smi shows: reserved plus the CUDA context and library buffers (the overhead).",
    required_note: "The nvidia-smi reading plus the safety margin: what must fit the device.",
    peak_phase: "Peak set by",
    buffers: "Framework buffers",
    allocator_cache: "Allocator cache",
    margin: "Safety margin",
    at_peak: "At the peak",
    own_size: "Own size",
    not_at_peak_gradients: "Not in the peak: created during the backward pass, after the activations are freed.",
    not_at_peak_step_after: "Not in the peak: exists only inside optimizer.step(), after the activations are freed.",
    not_at_peak_step_inside: "Not in the peak: runs inside the backward pass, next to the activations.",
    not_at_peak_freed: "Not in the peak: the backward pass frees them before the gradients' peak.",
    partly_at_peak: "Partly in the peak: they are largest at another moment of the step, when fewer other tensors are alive.",
    not_at_peak_casts: "Partly not in the peak: autocast's 16-bit copies are freed with the activations.",
    bar_sums: "Alive at the peak, then what is added: the segments sum to the required memory.",
    no_batch_fits: "None (not even 1)",
    max_seq: "Longest context that fits at this batch (tokens)",
    no_seq_fits: "None (not even 1 token)",
    job_gpus: "GPUs in this job (data-parallel × tensor × pipeline × context)",
    tap_for_bytes: "Hover, tap or click a size for its exact bytes.",
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
        "the loss (log-softmax and the logits' gradients)",
        "generation",
    ],
    fits: "Fits",
    does_not_fit: "Does not fit",
    max_batch: "Largest batch that fits",
    accumulation: "Gradient-accumulation steps",
    gpus_needed: "GPUs needed",
    what_if_title: "What would make it fit",
    half_batch: "Half the batch",
    checkpointing: "With gradient checkpointing",
    bf16: "BF16 instead of FP32",
    zero3: "ZeRO-3 across GPUs",
    half_seq: "Half the sequence length",
    with_lora: "With LoRA, frozen 16-bit base",
    with_qlora: "With QLoRA: NF4 base, checkpointing",
    fp8_kv: "With an FP8 KV cache",
    optimizer_may_spill: "The paged optimizer's state is counted on the GPU above; under memory pressure bitsandbytes pages it out to CPU memory (unified memory), which avoids running out of memory at the cost of speed.",
    stages_title: "Pipeline stages",
    stages_note: "Each stage's GPUs hold its layers and the micro-batches its schedule keeps in flight; the answer above is for the marked stage (pp_stage, or the one that needs the most).",
    stage: "Stage",
    stages_layers: "Layers",
    stages_embedding: "embedding",
    stages_head: "head and loss",
    fixes_title: "The smallest changes that fit",
    lever_seq: "sequence",
    lever_batch: "micro-batch",
    lever_param_offload: "parameters offloaded to CPU",
    lever_offload: "optimizer offloaded to CPU",
    lever_act_offload: "activations offloaded to CPU",
    lever_selective: "selective recomputation",
    lever_adam8bit: "8-bit AdamW",
    lever_bf16: "pure BF16 (BF16 weights and optimizer)",
    fits_lower: "fits",
    cost_compute: "compute (recomputation)",
    cost_pcie: "over PCIe per step",
    cost_at: "at",
    cost_trains: "trains",
    cost_tokens: "tokens per step",
    cost_samples: "samples per step",
    cost_micro_steps: "micro-steps per optimizer step",
    measure_title: "Compare with a measurement",
    loading: "Loading…",
    chunk_failed: "This section could not be loaded. Check the connection, then close and reopen it.",
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
    confidence_range: "In validation, runs like this one measured",
    confidence_against: "of the estimate",
    confidence_rows: "rows",
    confidence_sources: "sources",
    confidence_pooled: "every profile pooled: too few rows for",
    confidence_needs: "Memory required over that range:",
    confidence_fits: "Fits even at the pessimistic end",
    confidence_optimistic: "Fits only at the optimistic end",
    confidence_no: "Does not fit even at the optimistic end",
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
    devices_memory: "Memory",
    devices_spare: "Left",
    devices_short_by: "short by",
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
};

static ES: Words = Words {
    promise: "¿Cabe este lote? La memoria del entrenamiento, antes de alquilar la GPU.",
    language: "Idioma",
    units: "Unidades",
    units_gb: "GB (10⁹ bytes)",
    units_gib: "GiB (2³⁰ bytes)",
    units_note_gb: "GB = 10⁹ bytes.",
    units_note_gib: "GiB = 2³⁰ bytes.",
    forms: "Estimar a partir de",
    tabs: [
        (
            "Activaciones",
            "La regla rápida para la memoria de activaciones.",
        ),
        (
            "Parámetros",
            "Cualquier modelo, a partir de su número de parámetros.",
        ),
        (
            "Transformer",
            "La precisa: un modelo predefinido, un config.json o tu propia arquitectura.",
        ),
    ],
    inputs_title: "Datos",
    more_architecture: "Más detalles de la arquitectura",
    moe_title: "Mezcla de expertos y atención latente",
    active: "activos",
    paste_config: "Pegue un config.json, una configuración de DeepSpeed o TrainingArguments",
    paste_hint: "El config.json de un modelo fija la arquitectura; una configuración de DeepSpeed o unos TrainingArguments (to_json_string()), el entrenamiento. No se envía nada.",
    config_loaded: "Arquitectura cargada desde config.json.",
    deepspeed_loaded: "Entrenamiento leído de la configuración de DeepSpeed.",
    training_args_loaded: "Entrenamiento leído de los TrainingArguments.",
    custom_model: "Arquitectura propia",
    device_title: "Dispositivo",
    no_device: "Sin dispositivo (solo números)",
    custom_device: "Capacidad personalizada…",
    pipeline_more: "Detalles de pipeline y de contexto",
    parallelism_title: "Varias GPUs: paralelismo de datos, tensores, pipeline y contexto",
    training_title: "Entrenamiento",
    results_title: "Memoria necesaria",
    stale: "Desactualizado: se muestra el último resultado válido. Corrige el campo marcado para actualizarlo.",
    not_current: "Desactualizado",
    url_notice: "Se ignoraron algunos parámetros del enlace; sus campos usan valores por defecto:",
    weights: "Pesos",
    gradients: "Gradientes",
    optimizer_states: "Estados del optimizador",
    optimizer_step: "Búferes del paso del optimizador",
    kv_cache: "Caché KV",
    activations: "Activaciones",
    activations_per_sample: "Activaciones por muestra",
    overhead: "Sobrecarga",
    required: "Necesaria",
    parameters: "Parámetros",
    capacity: "Capacidad del dispositivo",
    cpu_memory: "Memoria de CPU (offload)",
    cpu_memory_note: "RAM del host para el proceso de esta GPU; no cuenta en ninguna lectura de la GPU.",
    peak_allocated: "Pico asignado",
    peak_allocated_note: "Lo que informa torch.cuda.max_memory_allocated(): los tensores vivos en el pico.",
    peak_reserved: "Pico reservado",
    peak_reserved_note: "Lo que informa torch.cuda.max_memory_reserved(): más los bloques que el asignador guarda sin poder usarlos.",
    nvidia_smi: "nvidia-smi",
    nvidia_smi_note: "Lo que muestra nvidia-smi: lo reservado más el contexto CUDA y los búferes de las bibliotecas (la sobrecarga).",
    required_note: "La lectura de nvidia-smi más el margen de seguridad: lo que debe caber en el dispositivo.",
    peak_phase: "Pico marcado por",
    buffers: "Búferes del framework",
    allocator_cache: "Caché del asignador",
    margin: "Margen de seguridad",
    at_peak: "En el pico",
    own_size: "Tamaño propio",
    not_at_peak_gradients: "Fuera del pico: se crean en el paso hacia atrás, después de liberar las activaciones.",
    not_at_peak_step_after: "Fuera del pico: solo existen dentro de optimizer.step(), después de liberar las activaciones.",
    not_at_peak_step_inside: "Fuera del pico: se ejecuta dentro del paso hacia atrás, junto a las activaciones.",
    not_at_peak_freed: "Fuera del pico: el paso hacia atrás las libera antes del pico de los gradientes.",
    partly_at_peak: "En parte en el pico: son máximas en otro momento del paso, con menos tensores vivos.",
    not_at_peak_casts: "En parte fuera del pico: las copias de 16 bits de autocast se liberan con las activaciones.",
    bar_sums: "Lo vivo en el pico y lo añadido: los segmentos suman la memoria necesaria.",
    no_batch_fits: "Ninguno (ni siquiera 1)",
    max_seq: "Contexto más largo que cabe con este lote (tokens)",
    no_seq_fits: "Ninguno (ni 1 token)",
    job_gpus: "GPUs de este trabajo (datos × tensorial × tubería × contexto)",
    tap_for_bytes: "Pasa el puntero, toca o haz clic en un tamaño para ver sus bytes exactos.",
    moments: [
        "hacia delante",
        "pérdida",
        "hacia atrás",
        "paso del optimizador",
        "prellenado",
        "generación",
    ],
    step_title: "El paso, momento a momento",
    step_note: "Memoria asignada a lo largo de un paso, prevista: cada columna es un momento, apilada con los colores de la barra. Su columna más alta es el pico asignado de arriba.",
    step_axis: "Asignada",
    step_moment: "Momento",
    step_layer: "capa",
    step_peak: "Pico",
    step_is_peak: " (el pico)",
    phases: [
        "el final del paso hacia delante",
        "el paso hacia atrás",
        "el paso del optimizador",
        "la pérdida (log-softmax y gradientes de los logits)",
        "la generación",
    ],
    fits: "Cabe",
    does_not_fit: "No cabe",
    max_batch: "Lote más grande que cabe",
    accumulation: "Pasos de acumulación de gradientes",
    gpus_needed: "GPUs necesarias",
    what_if_title: "Qué haría que quepa",
    half_batch: "La mitad del lote",
    checkpointing: "Con checkpointing de gradientes",
    bf16: "BF16 en vez de FP32",
    zero3: "ZeRO-3 entre GPUs",
    half_seq: "La mitad de la secuencia",
    with_lora: "Con LoRA, base congelada de 16 bits",
    with_qlora: "Con QLoRA: base NF4, checkpointing",
    fp8_kv: "Con una caché KV en FP8",
    optimizer_may_spill: "El estado del optimizador paginado se cuenta arriba en la GPU; si falta memoria, bitsandbytes lo pagina a la memoria de la CPU (memoria unificada), lo que evita quedarse sin memoria a costa de velocidad.",
    stages_title: "Etapas del pipeline",
    stages_note: "Las GPUs de cada etapa guardan sus capas y los microlotes que su calendario mantiene en curso; la respuesta de arriba es la de la etapa marcada (pp_stage, o la que más necesita).",
    stage: "Etapa",
    stages_layers: "Capas",
    stages_embedding: "embedding",
    stages_head: "cabeza y pérdida",
    fixes_title: "Los cambios más pequeños que caben",
    lever_seq: "secuencia",
    lever_batch: "microlote",
    lever_param_offload: "parámetros descargados a la CPU",
    lever_offload: "optimizador descargado a la CPU",
    lever_act_offload: "activaciones descargadas a la CPU",
    lever_selective: "recomputación selectiva",
    lever_adam8bit: "AdamW de 8 bits",
    lever_bf16: "BF16 puro (pesos y optimizador en BF16)",
    fits_lower: "cabe",
    cost_compute: "de cómputo (recomputación)",
    cost_pcie: "por PCIe en cada paso",
    cost_at: "a",
    cost_trains: "entrena el",
    cost_tokens: "tokens por paso",
    cost_samples: "muestras por paso",
    cost_micro_steps: "micropasos por paso del optimizador",
    measure_title: "Comparar con una medición",
    loading: "Cargando…",
    chunk_failed: "No se pudo cargar esta sección. Compruebe la conexión y luego ciérrela y vuelva a abrirla.",
    measure_hint: "Pegue lo que imprimió su ejecución: torch.cuda.max_memory_allocated() o max_memory_reserved() (bytes, o con GB, GiB, MiB), una tabla de torch.cuda.memory_summary() o la línea de memoria de nvidia-smi.",
    measure_unlabelled: "Un número sin etiqueta es",
    measure_unlabelled_none: "(indique cuál)",
    measure_measured: "medido",
    measure_predicted: "estimado",
    measure_difference: "estimación − ejecución",
    measure_terms: "Qué podría dar una diferencia de este tamaño y signo (docs/model.md §6):",
    measure_within: "podría explicarla entera",
    measure_part: "podría explicar una parte",
    measure_unsized: "va en este sentido, sin tamaño publicado",
    measure_here: "aquí",
    measure_modelled: "modelado",
    measure_not_modelled: "no modelado",
    measure_report: "Para informar de este caso, copie esto en un issue:",
    confidence_range: "En la validación, ejecuciones como esta midieron",
    confidence_against: "respecto de la estimación",
    confidence_rows: "filas",
    confidence_sources: "fuentes",
    confidence_pooled: "todos los perfiles juntos: muy pocas filas para",
    confidence_needs: "Memoria necesaria en ese rango:",
    confidence_fits: "Cabe incluso en el extremo pesimista",
    confidence_optimistic: "Cabe solo en el extremo optimista",
    confidence_no: "No cabe ni en el extremo optimista",
    compare_start: "Comparar con otra configuración…",
    compare_title: "Configuraciones A y B",
    compare_form_shows: "El formulario de arriba muestra la configuración",
    compare_edit: "Editar la configuración",
    compare_stop: "Dejar de comparar",
    compare_differs: "B cambia en:",
    compare_same: "B es igual que A: cámbiela en el formulario.",
    compare_presets: "Hacer B como A con un cambio:",
    devices_title: "Qué GPUs caben",
    devices_note: "Esta configuración en cada GPU de la lista, de menor a mayor: si cabe con este lote, el lote más grande que cabe, las GPUs necesarias (ZeRO y paralelismo como están) y la memoria que sobra. Elija una GPU para usarla.",
    devices_device: "GPU",
    devices_memory: "Memoria",
    devices_spare: "Sobra",
    devices_short_by: "faltan",
    devices_pick: "Usar esta GPU",
    sweep_title: "Memoria según el tamaño de lote",
    sweep_batch: "Tamaño de lote",
    sweep_states: "Estados del modelo en el pico",
    sweep_total: "Pico asignado",
    sweep_note: "Lo vivo en el pico de cada fila suma ese pico; Necesaria añade caché, sobrecarga y margen, y decide la ✗.",
    sweep_all_columns: "Mostrar todas las columnas",
    sweep_fewer_columns: "Mostrar menos columnas",
    sweep_over: "excede la capacidad del dispositivo",
    sweep_chosen: "el lote elegido",
    sweep_axis: "Memoria (necesaria)",
    actions_title: "Compartir y exportar",
    copy_link: "Copiar enlace",
    copy_table: "Copiar tabla (Markdown)",
    download_csv: "Descargar CSV",
    embed: "Insertar",
    copied_link: "Enlace copiado.",
    copied_table: "Tabla copiada en Markdown.",
    copied_embed: "Código para incrustar copiado: pégalo en tu página.",
    title: "batchfit — ¿cabe este lote?",
    promise_short: "¿cabe este lote?",
    embed_comment: "El widget envía su altura cada vez que cambia; ajusta el iframe a ella.",
    downloaded: "Descargado.",
    copy_fallback: "Aquí no se puede copiar automáticamente: el texto está seleccionado abajo, cópialo con Ctrl+C / ⌘C.",
    open_full: "Abrir la calculadora completa",
    disclaimer: "Son estimaciones, no mediciones: los picos reales dependen del framework, los kernels y el asignador de memoria. batchfit funciona entero en tu navegador y no envía nada a ningún sitio.",
    how_title: "Cómo funciona",
    faq_title: "Preguntas",
};
