//! Spanish: the field texts, the option labels, the page's other words and
//! the sentences that word the core's data; the panels' words (the
//! questions of "How it works", the measured terms' names and notes…) are in
//! `panels.rs`. The split build fetches it as two chunks: `es`, the
//! `Language` a first answer is written with (`spanish_language`), and
//! `es_page`, the rest, with the interface (`spanish_page`).
//!
//! The page addresses the reader as *usted* ("Pegue…", "elija", "su
//! navegador"): it was the majority when the two were unified, 18 forms in
//! 14 texts against 13 forms of *tú* in 10.

use batchfit_core::fields::{self, Needed, Problem, Range};
use batchfit_core::hardware;
use batchfit_core::import::json::Kind;
use batchfit_core::param::COUNT;
use batchfit_core::presets::DeviceKind;
use batchfit_core::query::Param;

mod panels;
pub(super) use panels::SPANISH_PANELS;

use super::{AnswerWords, FieldText, Forms, Lang, Language, Words, bound, by_param, f};

pub(super) static FIELDS_ES: [FieldText; COUNT] = by_param([
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
            "Cantidad, p. ej. 7B, 7000M, 125M o 1,3e9.",
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
            "Configuraciones publicadas; cambie cualquier valor abajo.",
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
        Param::AttnOutputGate,
        f(
            "Compuerta de salida de la atención",
            "",
            "Una compuerta sigmoide de una segunda Q (Qwen3-Next).",
        ),
    ),
    (
        Param::LinearMixer,
        f(
            "Capas lineales",
            "",
            "Modelos híbridos: las capas que no atienden guardan un estado, no una caché KV.",
        ),
    ),
    (
        Param::FullAttentionInterval,
        f(
            "Atención completa cada n capas",
            "",
            "Las demás son lineales.",
        ),
    ),
    (
        Param::LinearNumKeyHeads,
        f("Cabezas clave lineales", "", "Mamba-2: grupos."),
    ),
    (
        Param::LinearKeyHeadDim,
        f(
            "Tamaño de cabeza clave lineal",
            "",
            "Mamba-2: tamaño del estado.",
        ),
    ),
    (
        Param::LinearNumValueHeads,
        f("Cabezas valor lineales", "", "Mamba-2: cabezas."),
    ),
    (
        Param::LinearValueHeadDim,
        f(
            "Tamaño de cabeza valor lineal",
            "",
            "Mamba-2: tamaño de cabeza.",
        ),
    ),
    (
        Param::LinearConvKernelDim,
        f("Ancho de la convolución lineal", "", "Mamba-2: d_conv."),
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
            "Qué copias de pesos, gradientes y estados existen. La inferencia carga el modelo en FP32 con «FP32 en todo», en 16 bits con cualquier otra.",
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
            "Cada una ejecuta una copia del trabajo; al entrenar, ZeRO puede repartir entre ellas los estados del modelo.",
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
            "Fija los valores por defecto que implica su código; cambie cualquier campo después.",
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
        Param::GradientAsBucketView,
        f(
            "Gradientes DDP como vistas de los buckets",
            "",
            "gradient_as_bucket_view de DDP en PyTorch. Desactivado (por defecto): sus buckets guardan una segunda copia de cada gradiente.",
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
        Param::PrepareKbit,
        f(
            "prepare_model_for_kbit_training",
            "",
            "Embedding, cabeza y normas en FP32.",
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
        Param::LogitsToKeep,
        f(
            "Logits del prompt guardados",
            "posiciones",
            "1: la última (generate()); 0: todas.",
        ),
    ),
    (
        Param::CacheImplementation,
        f(
            "Caché KV",
            "",
            "La estática reserva toda la generación; las tuplas guardan la caché del paso anterior junto a la nueva.",
        ),
    ),
    (
        Param::KvLayout,
        f(
            "Caché KV latente",
            "",
            "Lo que guarda un modelo de atención latente.",
        ),
    ),
    (
        Param::GpuMemoryUtilization,
        f(
            "gpu_memory_utilization",
            "",
            "La parte de la GPU del motor; 0: la suya.",
        ),
    ),
    (
        Param::MaxModelLen,
        f(
            "max_model_len",
            "tokens",
            "Petición más larga; 0: prompt + generados.",
        ),
    ),
    (
        Param::MaxNumSeqs,
        f("max_num_seqs", "", "Peticiones por paso; 0: lo del motor."),
    ),
    (
        Param::MaxNumBatchedTokens,
        f(
            "max_num_batched_tokens",
            "tokens",
            "Tokens por paso; 0: lo del motor.",
        ),
    ),
    (
        Param::BlockSize,
        f("block_size", "tokens", "Tokens por bloque KV."),
    ),
    (
        Param::EnforceEager,
        f("enforce_eager", "", "Sin grafos CUDA."),
    ),
    (
        Param::FlashinferSampler,
        f(
            "flashinfer_sampler",
            "",
            "Muestreo de FlashInfer: sin ordenar.",
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
            "Se compara con lo que un proceso puede asignar: en una tarjeta NVIDIA, algo menos que el total de nvidia-smi.",
        ),
    ),
    (
        Param::GpuGb,
        f("Capacidad personalizada", "GB", "GB = 10⁹ bytes."),
    ),
    (
        Param::MaxGpus,
        f(
            "GPUs disponibles",
            "",
            "Para los cambios sugeridos; 0: las del trabajo.",
        ),
    ),
    (
        Param::HostGb,
        f(
            "RAM del equipo",
            "GB",
            "La de una máquina, para descargar; 0: desconocida.",
        ),
    ),
    (
        Param::OverheadGb,
        f(
            "Sobrecarga",
            "GB",
            "Contexto CUDA y búferes del framework; 0,5–2 GB en la práctica.",
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
]);

/// The Spanish labels of [`OPTIONS`](super::en::OPTIONS), by select name and URL spelling.
pub(super) static OPTIONS_ES: &[(Param, &str, &str)] = &[
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
    (Param::LinearMixer, "none", "Ninguna (todas atienden)"),
    (Param::LinearMixer, "gated_deltanet", "Gated DeltaNet"),
    (Param::LinearMixer, "mamba2", "Mamba-2"),
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
    (Param::Framework, "vllm", "vLLM (servidor)"),
    (Param::Framework, "sglang", "SGLang (servidor)"),
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
    (Param::KvLayout, "full", "Claves y valores (generate())"),
    (Param::CacheImplementation, "dynamic", "Dinámica"),
    (Param::CacheImplementation, "static", "Estática"),
    (
        Param::CacheImplementation,
        "legacy",
        "Tuplas (transformers < 4.36)",
    ),
    (Param::KvLayout, "latent", "El latente (vLLM, SGLang)"),
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
    (
        Param::Loss,
        "vocab_parallel_fused",
        "Paralela fusionada (Megatron)",
    ),
    (Param::NormKernel, "eager", "Como en el modelo"),
    (
        Param::NormKernel,
        "fused",
        "Fusionadas (Transformer Engine, Apex)",
    ),
];

/// The Spanish [`Language`]: the chunk a Spanish page's first answer waits
/// for (`super::load_answer`).
#[cfg(batchfit_split)]
#[allow(unsafe_code)]
#[wasm_split_helpers::wasm_split(es, fallible, preload(#[allow(unsafe_code)] preload_es))]
pub(super) fn spanish_language() -> Result<&'static Language, crate::dom::ChunkMissing> {
    Ok(&SPANISH)
}

/// The rest of the Spanish tables: the chunk the interface waits for
/// (`super::load`).
#[cfg(batchfit_split)]
#[allow(unsafe_code)]
#[wasm_split_helpers::wasm_split(es_page, fallible, preload(#[allow(unsafe_code)] preload_es_page))]
pub(super) fn spanish_page() -> Result<super::PageTables, crate::dom::ChunkMissing> {
    Ok((&SPANISH_PANELS, &SPANISH_FORMS, &ES))
}

pub(super) static ES: Words = Words {
    answer: &ES_ANSWER,
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
            "La precisa: un modelo predefinido, un config.json o su propia arquitectura.",
        ),
    ],
    inputs_title: "Datos",
    architecture_title: "Arquitectura",
    method: "Tarea",
    method_hint: "LoRA entrena adaptadores sobre una base congelada, QLoRA sobre una de 4 bits.",
    more_architecture: "Más detalles de la arquitectura",
    moe_title: "Mezcla de expertos y atención latente",
    paste_config: "Pegue un config.json, una configuración de DeepSpeed o TrainingArguments",
    paste_hint: "El config.json de un modelo fija la arquitectura; una configuración de DeepSpeed o unos TrainingArguments (to_json_string()), el entrenamiento. No se envía nada.",
    config_loaded: "Arquitectura cargada desde config.json.",
    deepspeed_loaded: "Entrenamiento leído de la configuración de DeepSpeed.",
    training_args_loaded: "Entrenamiento leído de los TrainingArguments.",
    custom_model: "Arquitectura propia",
    device_title: "Lo que además tiene: GPUs, RAM del host, margen",
    pipeline_more: "Detalles de pipeline y de contexto",
    loaded_16: "Cargado en 16 bits",
    loaded_fp32: "Cargado en FP32",
    parallelism_title: "Varias GPUs: paralelismo de datos, tensores, pipeline y contexto",
    results_title: "Memoria necesaria",
    stale: "Desactualizado: se muestra el último resultado válido. Corrija el campo marcado para actualizarlo.",
    not_current: "Desactualizado",
    url_notice: "Algunos parámetros del enlace no se pudieron usar; los resultados mantienen los valores por defecto hasta que se corrijan los campos marcados:",
    activations_per_sample: "Activaciones por muestra",
    capacity: "Capacidad utilizable",
    capacity_note: "Lo que un proceso puede asignar: en una tarjeta NVIDIA, el total de nvidia-smi menos lo que reserva el driver.",
    cpu_memory: "Memoria de CPU (offload)",
    cpu_memory_note: "RAM del host para el proceso de esta GPU; no cuenta en ninguna lectura de la GPU.",
    peak_allocated_note: "Lo que informa torch.cuda.max_memory_allocated(): los tensores vivos en el pico.",
    peak_reserved_note: "Lo que informa torch.cuda.max_memory_reserved(): más los bloques que el asignador guarda sin poder usarlos.",
    nvidia_smi_note: "Lo que muestra nvidia-smi: lo reservado más el contexto CUDA y los búferes de las bibliotecas (la sobrecarga).",
    required_note: "La lectura de nvidia-smi más el margen de seguridad: lo que debe caber en el dispositivo.",
    peak_phase: "Pico marcado por",
    at_peak: "En el pico",
    own_size: "Tamaño propio",
    not_at_peak_gradients: "Fuera del pico: se crean en el paso hacia atrás, después de liberar las activaciones.",
    not_at_peak_step_after: "Fuera del pico: solo existen dentro de optimizer.step(), después de liberar las activaciones.",
    not_at_peak_step_inside: "Fuera del pico: se ejecuta dentro del paso hacia atrás, junto a las activaciones.",
    not_at_peak_freed: "Fuera del pico: el paso hacia atrás las libera antes del pico de los gradientes.",
    partly_at_peak: "En parte en el pico: son máximas en otro momento del paso, con menos tensores vivos.",
    prompt_cache_at_peak: "Solo la parte del prompt está en el pico, el del prefill; los tokens generados se guardan después.",
    not_at_peak_casts: "En parte fuera del pico: las copias de 16 bits de autocast se liberan con las activaciones.",
    gpus_none: "No cabe con ninguna cantidad",
    no_batch_fits: "Ninguno (ni siquiera 1)",
    max_seq: "Contexto más largo que cabe con este lote (tokens)",
    no_seq_fits: "Ninguno (ni 1 token)",
    job_gpus: "GPUs de este trabajo (datos × tensorial × tubería × contexto)",
    tap_for_bytes: "Pase el puntero, toque o haga clic en un tamaño para ver sus bytes exactos.",
    exact_bytes_toggle: "Mostrar bytes exactos",
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
        "la pérdida (tensores del tamaño de los logits y sus gradientes)",
        "el final de la generación (toda la caché KV)",
        "el prefill (el conjunto de trabajo del prompt)",
    ],
    max_batch: "Lote más grande que cabe",
    accumulation: "Pasos de acumulación de gradientes",
    gpus_needed: "GPUs necesarias",
    what_if_title: "Un cambio a la vez",
    half_batch: "La mitad del lote",
    checkpointing: "Con checkpointing de gradientes",
    bf16: "BF16 en vez de FP32",
    zero3: "ZeRO-3 entre GPUs",
    tensor_parallel: "Paralelismo tensorial entre GPUs",
    half_seq: "La mitad de la secuencia",
    with_lora: "Con LoRA, base congelada de 16 bits",
    with_qlora: "Con QLoRA: base NF4, checkpointing",
    fp8_kv: "Con una caché KV en FP8",
    optimizer_may_spill: "El estado del optimizador paginado se cuenta arriba en la GPU; si falta memoria, bitsandbytes lo pagina a la memoria de la CPU (memoria unificada), lo que evita quedarse sin memoria a costa de velocidad.",
    stages_title: "Etapas del pipeline",
    stages_note: "Las GPUs de cada etapa guardan sus capas y los microlotes que su calendario mantiene en curso; la respuesta de arriba es la de la etapa marcada (pp_stage, o la que más necesita).",
    stages_layers: "Capas",
    stages_embedding: "embedding",
    stages_head: "cabeza y pérdida",
    fixes_title: "Los cambios más pequeños que caben",
    lever_seq: "secuencia",
    lever_batch: "microlote",
    lever_serving_batch: "lote",
    lever_param_offload: "parámetros descargados a la CPU",
    lever_offload: "optimizador descargado a la CPU",
    lever_act_offload: "activaciones descargadas a la CPU",
    lever_selective: "recomputación selectiva",
    lever_checkpointing: "checkpointing de gradientes",
    lever_adam8bit: "AdamW de 8 bits",
    lever_bf16: "BF16 puro (pesos y optimizador en BF16)",
    lever_tp: "paralelismo tensorial",
    fits_lower: "cabe",
    fix_host_needs: "necesita RAM del equipo:",
    fix_fits_optimistic: "cabe solo en el extremo optimista",
    cost_compute: "de cómputo (recomputación)",
    cost_pcie: "por PCIe en cada paso",
    cost_at: "a",
    cost_trains: "entrena el",
    cost_tokens: "tokens por paso",
    cost_samples: "muestras por paso",
    cost_micro_steps: "micropasos por paso del optimizador",
    cost_sequences: "secuencias a la vez",
    serving_plan: "Plan de memoria, por GPU",
    inference_stack: "Como lo ejecuta generate() de transformers: el prompt en un solo prefill y luego un token cada vez en una caché KV que crece. vLLM y SGLang reservan un pool de KV: elija uno.",
    measure_title: "Comparar con una medición",
    chunk_failed: "No se pudo cargar esta sección. Compruebe la conexión y luego ciérrela y vuelva a abrirla.",
    chart_failed: "No se pudo cargar el gráfico: sus números están a su lado.",
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
    devices_memory: "Memoria utilizable",
    devices_spare: "Sobra",
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
    embed_compact: "Insertar solo la respuesta",
    copied_link: "Enlace copiado.",
    copied_table: "Tabla copiada en Markdown.",
    copied_embed: "Código para incrustar copiado: péguelo en su página.",
    title: "batchfit — ¿cabe este lote?",
    promise_short: "¿cabe este lote?",
    embed_comment: "El widget envía su altura cada vez que cambia; ajuste el iframe a ella.",
    downloaded: "Descargado.",
    copy_fallback: "Aquí no se puede copiar automáticamente: el texto está seleccionado abajo, cópielo con Ctrl+C / ⌘C.",
    open_full: "Abrir la calculadora completa",
    disclaimer: "Son estimaciones, no mediciones: los picos reales dependen del framework, los kernels y el asignador de memoria. batchfit funciona entero en su navegador y no envía nada a ningún sitio.",
    how_title: "Cómo funciona",
    faq_title: "Preguntas",
    still_does_not_fit: "sigue sin caber",
    exact: "exacto",
    formula_rule: "lote × secuencia × oculto × capas × bytes × k",
    formula_heads: "cabezas",
    formula_vocabulary: "vocabulario",
    formula_model_states: "estados del modelo",
    formula_per_parameter: "parámetro",
    formula_source: "Activaciones por capa según Korthikanti et al. 2022 (ec. 1), generalizadas a GQA, SwiGLU y FlashAttention; ver docs/model.md.",
};

pub(super) static ES_ANSWER: AnswerWords = AnswerWords {
    methods: [
        "Ajuste completo",
        "LoRA",
        "QLoRA (base de 4 bits)",
        "Inferencia",
    ],
    active: "activos",
    weights: "Pesos",
    gradients: "Gradientes",
    optimizer_states: "Estados del optimizador",
    optimizer_step: "Búferes del paso del optimizador",
    kv_cache: "Caché KV",
    activations: "Activaciones",
    overhead: "Sobrecarga",
    required: "Necesaria",
    parameters: "Parámetros",
    peak_allocated: "Pico asignado",
    peak_reserved: "Pico reservado",
    nvidia_smi: "nvidia-smi",
    buffers: "Búferes del framework",
    allocator_cache: "Caché del asignador",
    margin: "Margen de seguridad",
    bar_sums: "Lo vivo en el pico y lo añadido: los segmentos suman la memoria necesaria.",
    fits: "Cabe",
    does_not_fit: "No cabe",
    stage: "Etapa",
    loading: "Cargando…",
    interface_failed: "Los controles de la calculadora no se cargaron: la estimación de arriba sigue en pie, pero aquí no se puede cambiar. Compruebe la conexión y vuelva a intentarlo.",
    retry: "Reintentar",
    confidence_range: "En la validación, ejecuciones como esta midieron",
    confidence_against: "respecto de la estimación",
    confidence_rows: "filas",
    confidence_sources: "fuentes",
    confidence_pooled: "todos los perfiles juntos: muy pocas filas para",
    confidence_needs: "Memoria necesaria en ese rango:",
    confidence_fits: "Cabe incluso en el extremo pesimista",
    confidence_optimistic: "Cabe solo en el extremo optimista",
    confidence_no: "No cabe ni en el extremo optimista",
    devices_short_by: "faltan",
    split_names: ["de datos", "tensorial", "de tubería", "de contexto"],
    yes: "sí",
    no_device: "Sin dispositivo (solo números)",
    custom_device: "Capacidad personalizada…",
    training_title: "Entrenamiento",
    inference_title: "Inferencia",
};

/// Spanish: the tables above and the sentences below.
pub(super) static SPANISH_FORMS: Forms = Forms {
    fields: &FIELDS_ES,
    problem,
};

pub(super) static SPANISH: Language = Language {
    answer: &ES_ANSWER,
    options: OPTIONS_ES,
    needs: |needs| format!("Necesita {needs}"),
    needs_per_gpu: |needs| format!("Necesita {needs} por GPU"),
    sum_needs: |needs| format!("= necesita {needs}"),
    degree: |name, degree| format!("{degree} {name}"),
    gpus_needed: |n, parts| match parts {
        Some(parts) => format!("no, hacen falta {n} GPUs ({parts})"),
        None => format!("no, hacen falta {n} GPUs"),
    },
    fits_on: |name, answer| format!("¿cabe en {name}? {answer}"),
    fits_on_each: |gpus, name, answer| {
        format!("¿cabe en cada una de las {gpus} × {name}? {answer}")
    },
    hardware: |warning| {
        match warning {
        hardware::Warning::Bf16 {
            capability: (major, minor),
        } => format!(
            "Esta tarjeta (capacidad de cómputo {major}.{minor}) no tiene BF16: vLLM lo rechaza y PyTorch lo emula. FP16 ocupa la misma memoria."
        ),
        hardware::Warning::Fp8 {
            capability: (major, minor),
        } => format!(
            "El entrenamiento en FP8 necesita capacidad de cómputo 8.9 (Ada, Hopper); esta tarjeta tiene {major}.{minor}: Transformer Engine lo rechaza."
        ),
        hardware::Warning::FlashAttention {
            capability: (major, minor),
        } => format!(
            "FlashAttention 2 necesita capacidad de cómputo 8.0; esta tarjeta tiene {major}.{minor}: flash_attention_2 falla, el kernel de memoria eficiente de SDPA funciona y la estimación se mantiene."
        ),
        hardware::Warning::Fp8Cache {
            capability: (major, minor),
        } => format!(
            "vLLM 0.11 no puede guardar una caché KV en FP8 con capacidad de cómputo {major}.{minor} (FlexAttention la rechaza por debajo de 8.0, sus kernels de Triton no compilan antes de Ada); vLLM 0.10 vuelve a su motor V0, que la guarda en FP8 como la cuenta el plan."
        ),
        hardware::Warning::AwqKernels {
            capability: (major, minor),
        } => format!(
            "Los kernels AWQ de vLLM necesitan capacidad de cómputo 7.5; esta tarjeta tiene {major}.{minor}: un checkpoint GPTQ funciona, uno AWQ no."
        ),
        hardware::Warning::Int4OnHost { kind } => format!(
            "Pesos AWQ o GPTQ de 4 bits en {}: AWQ solo funciona fuera de una GPU con IPEX de Intel (CPU Intel, no Apple silicon), GPTQ con los kernels de PyTorch de gptqmodel.",
            if kind == DeviceKind::Unified { "Apple silicon" } else { "una CPU" }
        ),
        hardware::Warning::BitsandbytesApple => "bitsandbytes en Apple silicon necesita la versión 0.49 o posterior, y usa su GPU a partir de la 0.50; antes, la CPU.".to_owned(),
        hardware::Warning::EngineCache { engine } => format!(
            "La caché KV de {} es de 16 bits o FP8: una caché INT8 o INT4 es la de generate() (torchao, quanto, HQQ). El plan cuenta una caché que el motor no crea.",
            engine.engine_name()
        ),
    }
    },
    states_exceed: |states, device| {
        format!(
            "Pesos, gradientes y estado del optimizador ocupan por sí solos {states}, más que {device}: ningún lote cabe. El formulario Transformer los reparte entre GPUs y ofrece optimizadores de 8 bits y LoRA."
        )
    },
    hand_off: |model| {
        format!(
            "Abrir {model}, el modelo publicado más cercano a este tamaño, en el formulario Transformer"
        )
    },
    spare: |spare| format!("sobran {spare}"),
    unified_memory: |gb| format!("Apple silicon, {gb} GB de memoria unificada"),
    cpu_ram: |gb| format!("CPU, {gb} GB de RAM"),
    kept_layers: |layers, root| {
        format!("Con checkpointing se guardan √{layers} ≈ {root} capas en vez de {layers}.")
    },
};

fn problem(label: &str, problem: &Problem) -> String {
    let range = |r: &Range| (bound(Lang::Es, r.min), bound(Lang::Es, r.max));
    match problem {
        Problem::Empty { range: r } => {
            let (min, max) = range(r);
            format!("{label}: falta un valor; escriba un número entre {min} y {max}.")
        }
        Problem::NotANumber { range: r } => {
            let (min, max) = range(r);
            format!("{label} debe ser un número entre {min} y {max}.")
        }
        Problem::NotWhole { range: r } => {
            let (min, max) = range(r);
            format!("{label} debe ser un número entero entre {min} y {max}.")
        }
        Problem::OutOfRange { range: r } => {
            let (min, max) = range(r);
            format!("{label} debe estar entre {min} y {max}.")
        }
        Problem::NotAnOption { allowed } => {
            format!("{label} debe ser uno de: {}.", allowed.join(", "))
        }
        Problem::Repeated { item } => format!("{label} tiene “{item}” más de una vez."),
        Problem::Unknown => format!("{label} no es un parámetro conocido."),
        Problem::Duplicate => format!("{label} aparece más de una vez."),
        Problem::Conflict { with } => {
            format!("{label} no puede ir junto con “{}”.", with.name())
        }
        Problem::OnlyWith { param, value } => {
            format!(
                "{label} solo se aplica con “{}={}”.",
                param.name(),
                needed(*value)
            )
        }
        Problem::Indivisible { layers, stages } => format!(
            "{label}: las {layers} capas del modelo no se reparten por igual entre {stages} etapas. Indique su reparto en “pp_layout”, por ejemplo {}.",
            fields::even_layout(*layers, *stages)
        ),
    }
}

/// A kind of JSON value, with its article.
fn kind(kind: Kind) -> &'static str {
    match kind {
        Kind::Null => "«null»",
        Kind::Bool => "«true» o «false»",
        Kind::Number => "un número",
        Kind::String => "un texto entre comillas",
        Kind::Array => "una lista […]",
        Kind::Object => "un objeto {…}",
    }
}

/// What another parameter must be, as the problem names it.
fn needed(value: Needed) -> String {
    match value {
        Needed::Is(spelling) => spelling.to_owned(),
        Needed::Either(a, b) => format!("{a} o {b}"),
        Needed::AtLeast(n) => format!("{n} o más"),
        Needed::Above(n) => format!("más de {n}"),
        Needed::SixteenBitRecipe => "una receta de 16 bits".to_owned(),
        Needed::Not(spelling) => format!("distinto de {spelling}"),
    }
}
