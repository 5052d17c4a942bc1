//! Spanish: the words of the panels whose code is fetched when first
//! opened (the file import, the measurement, the serving plan, "How it
//! works"), `i18n::Panels`; in the split build part of the chunk `es`
//! with the rest of the language.

use batchfit_core::import::hf;
use batchfit_core::import::json::{Expected, MAX_DEPTH, SyntaxError};
use batchfit_core::import::{self};
use batchfit_core::measured::{self, Term};
use batchfit_core::serving::log;

use super::{kind, problem};
use crate::i18n::{Lang, Panels, Refused, bad_value, group};

/// The name of a term of docs/model.md that can explain a measured
/// difference (`measured::TERMS`).
fn term(term: Term) -> &'static str {
    match term {
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
            "La distancia de reúso y los subgrupos de ZeRO-3, los búferes de NCCL"
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
        Term::KbitPreparation => {
            "prepare_model_for_kbit_training de PEFT (embedding, cabeza y normas en FP32)"
        }
    }
}

/// What the sources say of a term (`TermInfo::note`); empty where the
/// sections are the whole reference.
fn term_note(term: Term) -> &'static str {
    match term {
        Term::AllocatorSlack => {
            "la holgura medida allí: del 1,2 % al 27,8 % sobre el pico asignado"
        }
        Term::CudaContext => "su tabla de contextos medidos",
        Term::NcclBuffers => "cientos de MB",
        Term::LiveGradients => "gradientes que sobreviven al paso",
        Term::KeptOutputs => "un tensor del tamaño de los logits en cada momento, con outputs=kept",
        Term::RecomputeCasts => {
            "la pérdida cuenta la copia de la cabeza y la de una capa, que nunca viven a la vez"
        }
        Term::BackwardWorkspace => {
            "sus tensores de trabajo y gradientes más allá de los términos modelados: 1,3 % (G039)"
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
        Term::KbitPreparation => {
            "el embedding, la cabeza, las normas y los sesgos en FP32, y con ellos el flujo residual y los logits; prepare_kbit=1 lo indica"
        }
    }
}

/// The Spanish questions and answers: with the Spanish tables, fetched
/// only by a Spanish page (`i18n`).
static FAQ_ES: &[(&str, &str)] = &[
    (
        "¿Qué ahorran LoRA y QLoRA, y qué no?",
        "LoRA congela la base y entrena adaptadores pequeños: sin gradientes ni estado del optimizador para la base, los estados del modelo bajan de unos 18 a unos 2 bytes por parámetro. QLoRA guarda la base congelada en 4 bits, unos 0,5 bytes por peso. Ninguno reduce las activaciones: con secuencias largas o lotes grandes siguen dominando, y lo que las recorta es el checkpointing de gradientes.",
    ),
    (
        "¿Por qué suele agotar la memoria el tamaño de lote y no el del modelo?",
        "Pesos, gradientes y estados del optimizador se pagan una vez, sea cual sea el lote. Las activaciones se guardan para cada muestra hasta que el paso hacia atrás las usa, así que crecen linealmente con lote × longitud de secuencia y, con secuencias largas, dominan. Reducir el lote a la mitad las reduce a la mitad; lo demás no cambia.",
    ),
    (
        "¿Qué cambian FP32, FP16, BF16 e INT8?",
        "Los bytes por valor: 4, 2, 2 y 1. BF16 conserva el rango de FP32 con menos precisión y entrena sin escalar la pérdida; FP16 necesita un escalador. INT8 e INT4 son para pesos de inferencia.",
    ),
    (
        "¿AdamW o SGD?",
        "AdamW guarda dos momentos FP32 por parámetro (8 bytes); SGD con momento guarda uno (4 bytes); SGD simple, ninguno. Con pesos maestros FP32, la precisión mixta suma 4 bytes más por parámetro.",
    ),
    (
        "¿Por qué los gradientes no dependen del lote?",
        "Hay un gradiente por parámetro, sumado sobre las muestras del lote. Un lote mayor cambia sus valores, no su número.",
    ),
    (
        "¿Qué es la precisión mixta?",
        "Calcular en BF16 o FP16 y guardar una copia maestra FP32 de los pesos para la actualización: 2 + 4 bytes de pesos, 4 de gradientes y 8 de estado de AdamW, unos 18 bytes por parámetro antes de las activaciones.",
    ),
    (
        "¿Qué hace el checkpointing de gradientes?",
        "Guarda solo algunas activaciones (la entrada de cada capa, o todo menos el núcleo de atención) y recalcula el resto en el paso hacia atrás: un tercio más de cómputo por mucha menos memoria.",
    ),
    (
        "¿Qué cambia FlashAttention?",
        "La atención clásica guarda las puntuaciones del softmax, una matriz s × s por cabeza que crece con el cuadrado de la secuencia. FlashAttention y los kernels SDPA de PyTorch nunca la guardan.",
    ),
    (
        "¿Por qué nvidia-smi muestra más?",
        "nvidia-smi muestra todo el proceso: el contexto CUDA (unos 0,3–1,3 GB), los búferes del framework y la memoria que el asignador de PyTorch retiene tras liberar tensores. Eso representan la sobrecarga y el margen de seguridad; los tensores del modelo son el total.",
    ),
    (
        "¿Qué tan exacto es?",
        "Es una estimación con fórmulas publicadas; los picos reales dependen del framework, los kernels y el asignador. docs/accuracy.md lo compara fila a fila con mediciones publicadas.",
    ),
    (
        "¿Cuántas peticiones atiende a la vez vLLM o SGLang?",
        "Elija el perfil vLLM o SGLang. Un motor de servicio no crece con el lote como generate(): toma gpu_memory_utilization de la tarjeta (en SGLang, mem_fraction_static), carga los pesos, perfila un paso y llena el resto con su pool de caché KV. batchfit planifica los mismos términos y da las peticiones de max_model_len tokens que caben a la vez y la petición más larga; en «Comparar con una medición», pegue el registro de arranque del motor para verlo junto al plan.",
    ),
];

pub(in crate::i18n) static SPANISH_PANELS: Panels = Panels {
    faq: FAQ_ES,
    file_error,
    file_note,
    measured_error,
    term,
    term_note,
    serving_title: |engine| format!("El plan de memoria de {engine}, por GPU"),
    serving_refused: |engine| format!("✗ {engine} no arrancaría"),
    plan_weights: "Pesos",
    plan_activation: "Pico del paso de perfilado",
    plan_non_torch: "Fuera de PyTorch (sin estimar)",
    plan_graphs: "Grafos CUDA (los mide vLLM 0.21+; sin estimar)",
    plan_graphs_eager: "Grafos CUDA (ninguno: enforce_eager)",
    plan_pool: "Pool de caché KV",
    plan_budget: "= gpu_memory_utilization × la GPU según CUDA",
    plan_outside: "+ contexto CUDA, fuera de él",
    plan_process: "= nvidia-smi ya sirviendo",
    plan_static: |fraction| format!("= mem_fraction_static {fraction} × la memoria libre"),
    plan_reserve: "+ queda para activaciones y grafos CUDA (sin estimar)",
    kv_tokens: |per_token, tokens| {
        format!(
            "Caché KV de {per_token} por token: el pool guarda {tokens} tokens, la petición más larga."
        )
    },
    serves: |requests, tokens| match requests {
        "1" => format!("Atiende 1 petición de {tokens} tokens a la vez"),
        _ => format!("Atiende {requests} peticiones de {tokens} tokens a la vez"),
    },
    kv_pool: |per_token, blocks, block, tokens| {
        format!(
            "Caché KV de {per_token} por token: {blocks} bloques de {block} tokens guardan {tokens} tokens, la petición más larga."
        )
    },
    kv_groups: |per_token, blocks, block, groups, tokens, longest, linear| {
        let held = if linear {
            "las lineales con un bloque de estado por petición"
        } else {
            "las de ventana deslizante con solo su ventana"
        };
        format!(
            "Caché KV de {per_token} por token: {blocks} bloques de {block} tokens repartidos entre {groups} grupos de capas, {held}; vLLM cuenta {tokens} tokens. La petición más larga: {longest} tokens."
        )
    },
    linear_state: |state| {
        format!(
            "Las capas lineales guardan {state} de estado por petición, sea cual sea su longitud."
        )
    },
    refused: |refused| match refused {
        Refused::Startup(free, total, budget) => format!(
            "Al inicio hay {free} libres de {total}, menos que gpu_memory_utilization × la GPU ({budget})."
        ),
        Refused::NoCacheMemory(budget) => format!(
            "Los pesos y el paso de perfilado llenan el presupuesto ({budget}) y no queda nada para la caché KV. Suba gpu_memory_utilization."
        ),
        Refused::MaxModelLen(len, needed, pool, longest) => format!(
            "Una petición de max_model_len = {len} tokens necesita {needed} de caché KV, más que los {pool} del pool. La más larga que cabe es de {longest} tokens: baje max_model_len o suba gpu_memory_utilization."
        ),
        Refused::NotEnoughMemory(budget) => format!(
            "Los pesos llenan la memoria estática ({budget}): no cabe ningún token en el pool KV. Suba gpu_memory_utilization (--mem-fraction-static de SGLang)."
        ),
    },
    serving_lengths: "Por longitud de petición",
    serving_requests: "peticiones a la vez",
    serving_concurrency: "concurrencia máxima",
    serving_does_not_start: "no arranca",
    serving_does_not_fit: "no cabe",
    serving_devices: "En cada GPU",
    serving_gpu: "GPU",
    serving_longest: "petición más larga",
    serving_what_ifs: "Qué atendería más",
    serving_int4: "pesos de 4 bits (AWQ, GPTQ)",
    log_hint: "Con vLLM o SGLang, pegue en su lugar su registro de arranque: las líneas de su plan de memoria se comparan con las de batchfit, término a término.",
    log_title: |engine| {
        format!(
            "El registro de arranque de {engine} frente al plan de batchfit (plan − registro; 0 dentro de la última cifra del registro):"
        )
    },
    log_term: |term| match term {
        log::Term::Weights => "Pesos",
        log::Term::CudaGraphs => "Grafos CUDA",
        log::Term::KvCacheMemory => "Memoria de la caché KV",
        log::Term::KvCacheTokens => "Tamaño de la caché KV (tokens)",
        log::Term::MaxConcurrency => "Concurrencia máxima",
        log::Term::MaxRunningRequests => "max_running_requests",
    },
    log_row: |logged, line, planned, error| {
        format!("registro {logged} (línea {line}) · plan {planned} · plan − registro {error}")
    },
    log_other_length: "Nada que comparar: la concurrencia del registro es para otro max_model_len que el de esta configuración.",
    log_sampler: |flashinfer, line| {
        let (logged, assumed, more) = if flashinfer {
            (
                "el muestreador de FlashInfer",
                "la ordenación de PyTorch",
                "más",
            )
        } else {
            (
                "la ordenación de PyTorch",
                "el muestreador de FlashInfer",
                "menos",
            )
        };
        format!(
            "El vLLM del registro muestreó con {logged} (línea {line}); este plan supone {assumed}, 24 bytes {more} por petición y entrada del vocabulario en el paso de perfilado."
        )
    },
    log_sampler_apply: "Usar el muestreador del registro",
    log_error: |error| {
        match error {
        log::Error::TooLong => format!(
            "El registro pasa de {} bytes: pegue su arranque, hasta las líneas de la caché KV.",
            group(Lang::Es, log::MAX_BYTES as u128)
        ),
        log::Error::NothingFound => "No se encontró ninguna lectura de memoria ni ninguna línea del plan de memoria del motor (vLLM: \"Model loading took\", \"Available KV cache memory\", \"GPU KV cache size\", \"Maximum concurrency for\"; SGLang: \"KV Cache is allocated\", \"max_total_num_tokens=\").".to_owned(),
        log::Error::Unreadable { line } => format!(
            "La línea {line} da un término del plan de memoria con un número que no se puede leer."
        ),
        log::Error::TwoValues { line, first } => format!(
            "La línea {line} da un segundo valor, distinto, de lo que da la línea {first}: pegue un solo arranque."
        ),
    }
    },
};

/// What the JSON reader expected where the text stopped being JSON, where
/// naming it says more than "JSON" (the structural cases); `None` for the
/// rest (escapes, number syntax, UTF-8, nesting).
fn expected(expected: Expected) -> Option<&'static str> {
    Some(match expected {
        Expected::Value => "un valor",
        Expected::Key => "una clave entre comillas dobles",
        Expected::Colon => "«:»",
        Expected::CommaOrBrace => "«,» o «}»",
        Expected::CommaOrBracket => "«,» o «]»",
        Expected::ClosingQuote => "unas comillas de cierre",
        Expected::End => "el final del texto",
        Expected::LessNesting
        | Expected::HexDigits
        | Expected::Escape
        | Expected::NoControlCharacters
        | Expected::Utf8
        | Expected::NoLeadingZeros
        | Expected::Digit
        | Expected::DigitAfterPoint
        | Expected::Exponent
        | Expected::Number
        | Expected::Literal => return None,
    })
}

/// The rest of a sentence whose subject is the pasted text: why the reader
/// stopped, and where. Nesting deeper than the reader follows is valid JSON,
/// so it is not called invalid.
fn not_json(e: &SyntaxError) -> String {
    let at = e.offset;
    if e.expected == Expected::LessNesting {
        return format!(
            "anida más de {MAX_DEPTH} niveles (en el byte {at}), y batchfit no lo lee; un archivo de configuración anida unos pocos."
        );
    }
    match expected(e.expected) {
        Some(what) => format!("no es JSON válido: en el byte {at} se esperaba {what}."),
        None => format!("no es JSON válido en el byte {at}."),
    }
}

fn measured_error(error: &measured::Error) -> String {
    use measured::Problem as P;
    let forms = |forms: &[measured::Form]| {
        let names: Vec<&str> = forms
            .iter()
            .map(|f| match f {
                measured::Form::Number => "un número de bytes o con unidad",
                measured::Form::Labelled => "max_memory_allocated: 123456",
                measured::Form::MemorySummary => "torch.cuda.memory_summary()",
                measured::Form::NvidiaSmiTable => "nvidia-smi",
                measured::Form::NvidiaSmiCsv => "nvidia-smi --query-gpu=memory.used",
            })
            .collect();
        names.join(", ")
    };
    let what = match error.problem {
        P::TooLong { max_bytes } => format!("El texto pasa de {max_bytes} bytes."),
        P::TooManyLines { max_lines } => format!("El texto tiene más de {max_lines} líneas."),
        P::Empty { forms: f } => {
            format!("No hay ninguna lectura de memoria. Se leen: {}.", forms(f))
        }
        P::Unreadable { forms: f } => format!("esta línea no es ninguna de: {}.", forms(f)),
        P::UnknownUnit { allowed } => {
            format!("la unidad debe ser una de {}.", allowed.join(", "))
        }
        P::UnknownLabel { allowed } => format!(
            "la etiqueta debe nombrar una lectura: {}.",
            allowed.join(", ")
        ),
        P::Unlabelled { .. } => "un número sin etiqueta: indique abajo qué lectura es.".to_owned(),
        P::NotWholeBytes => "una fracción de byte: indique su unidad (GB o GiB).".to_owned(),
        P::TooLarge { max } => format!("más de {max} bytes."),
        P::Ambiguous { first_line, .. } => format!(
            "un segundo valor, distinto, de la lectura de la línea {first_line}: pegue una ejecución cada vez."
        ),
    };
    match error.line {
        Some(line) => format!("Línea {line}: {what}"),
        None => what,
    }
}

fn file_error(rejected: &import::Rejected) -> String {
    use import::Error as E;
    // The file as the subject of what is wrong with it as a whole, and as
    // the place of what is wrong with one of its keys.
    let (file, within) = match rejected.source {
        import::Source::ModelConfig => ("El config.json", "En el config.json,"),
        import::Source::Deepspeed => (
            "La configuración de DeepSpeed",
            "En la configuración de DeepSpeed,",
        ),
        import::Source::TrainingArgs => (
            "El texto de los TrainingArguments",
            "En los TrainingArguments,",
        ),
    };
    let what = match &rejected.error {
        E::NotJson(e) => return format!("{file} {}", not_json(e)),
        E::NotAnObject { found } => {
            return format!("{file} debe ser un objeto {{…}}, no {}.", kind(*found));
        }
        E::WrongType {
            key,
            expected: want,
            found,
        } => format!("«{key}» debe ser {}, no {}.", kind(*want), kind(*found)),
        E::Missing { key } => format!("falta «{key}»."),
        E::BadValue { key, range, whole } => {
            problem(&format!("«{key}»"), &bad_value(*range, *whole))
        }
        E::UnknownModelType { found } => format!(
            "batchfit no lee el «model_type» “{found}” (lee {}).",
            hf::MODEL_TYPES.join(", ")
        ),
        E::Unsupported { key } => {
            format!("«{key}» describe algo que batchfit no modela en este tipo de modelo.")
        }
        E::LayerPattern { key } => {
            format!("«{key}»: solo se modela una capa global cada n, las demás con ventana.")
        }
        E::NotAnOption {
            key,
            found,
            allowed,
        } => format!("«{key}» «{found}» debe ser uno de: {}.", allowed.join(", ")),
        E::Contradiction { key, with } => {
            format!("«{key}» y «{with}» no pueden ser ambos verdaderos.")
        }
        E::BatchMismatch {
            train_batch_size,
            micro_batch,
            accumulation,
            gpus,
        } => format!(
            "«train_batch_size» {train_batch_size} no es «train_micro_batch_size_per_gpu» {micro_batch} × «gradient_accumulation_steps» {accumulation} × {gpus} GPUs."
        ),
        E::Mismatch {
            key,
            deepspeed,
            trainer_key,
            trainer,
        } => format!(
            "«{key}» es {deepspeed} pero «{trainer_key}» de los TrainingArguments da {trainer}: póngalo en \"auto\" o haga que coincidan."
        ),
    };
    format!("{within} {what}")
}

fn file_note(note: &import::Note) -> String {
    use import::Note as N;
    match note {
        N::NotModelled { key, elements: Some(e) } => format!("«{key}» ({} elementos) no está modelado: la estimación lo deja fuera.", group(Lang::Es, u128::from(*e))),
        N::NotModelled { key, elements: None } => format!("«{key}» no está modelado: la estimación lo deja fuera."),
        N::Auto { key, needs: import::Needs::TrainingArgs } => format!("«{key}» es \"auto\", que el Trainer toma de los TrainingArguments: se usa el valor del formulario."),
        N::Auto { key, needs: import::Needs::HiddenSize } => format!("«{key}» es \"auto\", que necesita el tamaño oculto del modelo: elija antes un modelo."),
        N::UnknownOptimizer { key, name } => format!("«{key}» «{name}» no es un optimizador que batchfit modele: el optimizador queda como está."),
        N::DeepspeedPath { path } => format!("«deepspeed» nombra «{path}»: pegue también ese archivo aquí para leerlo."),
        N::ModelCheckpointing => "«activation_checkpointing» solo actúa donde el código del modelo llama a deepspeed.checkpointing: ponga la recomputación en completa si lo hace.".to_owned(),
    }
}
