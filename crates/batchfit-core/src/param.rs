//! Every URL parameter batchfit knows, as one enum: the URL parser, the page's
//! state and field labels, and the CLI name parameters by [`Param`], never by a
//! string looked up at run time. Names are a public contract
//! (docs/url-parameters.md): they are only ever added to.
//!
//! ```
//! use batchfit_core::param::{Input, Param};
//!
//! assert_eq!(Param::from_name("kv_heads"), Some(Param::KvHeads));
//! assert_eq!(Param::KvHeads.name(), "kv_heads");
//! assert_eq!(Param::from_name("KV_HEADS"), None); // names are exact
//! assert_eq!(Param::Params.input(), Input::Count);
//! ```

use crate::choice::choice;

choice! {
    /// One URL parameter, spelled as the URL spells it.
    pub enum Param {
        Form = "form",
        Batch = "batch",
        Seq = "seq",
        Hidden = "hidden",
        Layers = "layers",
        Precision = "precision",
        K = "k",
        Ckpt = "ckpt",
        Params = "params",
        Optimizer = "optimizer",
        ActMb = "act_mb",
        Model = "model",
        Framework = "framework",
        Kind = "kind",
        Heads = "heads",
        KvHeads = "kv_heads",
        HeadDim = "head_dim",
        Ffn = "ffn",
        Mlp = "mlp",
        Norm = "norm",
        Vocab = "vocab",
        Tied = "tied",
        Bias = "bias",
        QkvBias = "qkv_bias",
        QkNorm = "qk_norm",
        Positions = "positions",
        TokenTypes = "token_types",
        Labels = "labels",
        Dropout = "dropout",
        Image = "image",
        Patch = "patch",
        Channels = "channels",
        QkNormFull = "qk_norm_full",
        Block = "block",
        Window = "window",
        GlobalEvery = "global_every",
        Softcap = "softcap",
        AttnSoftcap = "attn_softcap",
        AttnSinks = "attn_sinks",
        Experts = "experts",
        ExpertsActive = "experts_active",
        ExpertFfn = "expert_ffn",
        SharedExperts = "shared_experts",
        SharedFfn = "shared_ffn",
        FirstDenseLayers = "first_dense_layers",
        MoeEvery = "moe_every",
        KvLoraRank = "kv_lora_rank",
        QLoraRank = "q_lora_rank",
        QkRopeHeadDim = "qk_rope_head_dim",
        QkNopeHeadDim = "qk_nope_head_dim",
        VHeadDim = "v_head_dim",
        FusedProj = "fused_proj",
        LinearMixer = "linear_mixer",
        FullAttentionInterval = "full_attention_interval",
        LinearNumKeyHeads = "linear_num_key_heads",
        LinearKeyHeadDim = "linear_key_head_dim",
        LinearNumValueHeads = "linear_num_value_heads",
        LinearValueHeadDim = "linear_value_head_dim",
        LinearConvKernelDim = "linear_conv_kernel_dim",
        AttnOutputGate = "attn_output_gate",
        Recipe = "recipe",
        Recompute = "recompute",
        RecomputeMethod = "recompute_method",
        RecomputeLayers = "recompute_layers",
        RecomputeModules = "recompute_modules",
        Reentrant = "reentrant",
        GradAccumFusion = "grad_accum_fusion",
        Attn = "attn",
        Mode = "mode",
        Gen = "gen",
        Quant = "quant",
        Gpus = "gpus",
        Zero = "zero",
        Tp = "tp",
        Ep = "ep",
        Etp = "etp",
        Pp = "pp",
        PpSchedule = "pp_schedule",
        Vpp = "vpp",
        Microbatches = "microbatches",
        PpLayout = "pp_layout",
        PpStage = "pp_stage",
        Cp = "cp",
        CpKind = "cp_kind",
        CapacityFactor = "capacity_factor",
        CapacityPad = "capacity_pad",
        Sp = "sp",
        Foreach = "foreach",
        Step = "step",
        Loss = "loss",
        Offload = "offload",
        BucketM = "bucket_m",
        GradientAsBucketView = "gradient_as_bucket_view",
        Prefetch = "prefetch",
        DsPrefetch = "ds_prefetch",
        DsLive = "ds_live",
        DsPersist = "ds_persist",
        ActOffload = "act_offload",
        Logits = "logits",
        ZeroGrad = "zero_grad",
        Outputs = "outputs",
        NormKernel = "norm_kernel",
        LoraRank = "lora_rank",
        LoraTargets = "lora_targets",
        LoraDropout = "lora_dropout",
        BaseQuant = "base_quant",
        DoubleQuant = "double_quant",
        PrepareKbit = "prepare_kbit",
        KvDtype = "kv_dtype",
        KvLayout = "kv_layout",
        CacheImplementation = "cache_implementation",
        LogitsToKeep = "logits_to_keep",
        ParamOffload = "param_offload",
        LoraVariant = "lora_variant",
        Fp8 = "fp8",
        TrainEmbeddings = "train_embeddings",
        Compile = "compile",
        GpuMemoryUtilization = "gpu_memory_utilization",
        MaxModelLen = "max_model_len",
        MaxNumSeqs = "max_num_seqs",
        MaxNumBatchedTokens = "max_num_batched_tokens",
        BlockSize = "block_size",
        EnforceEager = "enforce_eager",
        FlashinferSampler = "flashinfer_sampler",
        Gpu = "gpu",
        GpuGb = "gpu_gb",
        MaxGpus = "max_gpus",
        HostGb = "host_gb",
        OverheadGb = "overhead_gb",
        Margin = "margin",
        GlobalBatch = "global_batch",
        Units = "units",
        Lang = "lang",
        Embed = "embed",
    }
    default Form
}

/// What a parameter's value is: it decides how it is read, and which keyboard
/// a phone shows for its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Input {
    /// A whole number ("2048", "2,048", "1e3").
    Whole,
    /// A decimal number kept to hundredths ("10.5").
    Decimal,
    /// A count with an optional scale suffix ("7B", "125M", "1.3e9").
    Count,
    /// One name from a list ("bf16").
    Choice,
    /// Yes or no ("1", "0").
    Switch,
    /// Whole numbers separated by commas ("8,8,8,8"), a name
    /// (`pp_stage=last`), or names separated by commas ("core_attn,mlp").
    List,
}

/// How many parameters there are: the length of [`Param::ALL`].
pub const COUNT: usize = Param::ALL.len();

impl Param {
    /// The parameter spelled exactly `name` (URL names are case-sensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// The parameter's position in [`Param::ALL`], for tables indexed by
    /// parameter (always below [`COUNT`]).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the parameter counts tokens, which people write with a binary
    /// suffix: `seq=32k` is 32,768, `gen=1M` 1,048,576
    /// ([`crate::fields::WholeField::parse`]).
    pub const fn counts_tokens(self) -> bool {
        matches!(
            self,
            Self::Seq
                | Self::Gen
                | Self::Positions
                | Self::Window
                | Self::MaxModelLen
                | Self::MaxNumBatchedTokens
        )
    }

    /// What the parameter's value is.
    pub const fn input(self) -> Input {
        use Param::*;
        match self {
            Batch
            | Seq
            | Hidden
            | Layers
            | Heads
            | KvHeads
            | HeadDim
            | Ffn
            | Vocab
            | Positions
            | TokenTypes
            | Labels
            | Image
            | Patch
            | Channels
            | Gen
            | Gpus
            | Zero
            | Tp
            | BucketM
            | Prefetch
            | DsPrefetch
            | DsLive
            | DsPersist
            | GlobalBatch
            | LoraRank
            | Window
            | GlobalEvery
            | Experts
            | ExpertsActive
            | ExpertFfn
            | SharedExperts
            | SharedFfn
            | FirstDenseLayers
            | MoeEvery
            | Ep
            | Etp
            | KvLoraRank
            | QLoraRank
            | QkRopeHeadDim
            | QkNopeHeadDim
            | VHeadDim
            | Pp
            | Vpp
            | Microbatches
            | Cp
            | RecomputeLayers
            | MaxGpus
            | MaxModelLen
            | MaxNumSeqs
            | MaxNumBatchedTokens
            | BlockSize
            | LogitsToKeep
            | FullAttentionInterval
            | LinearNumKeyHeads
            | LinearKeyHeadDim
            | LinearNumValueHeads
            | LinearValueHeadDim
            | LinearConvKernelDim => Input::Whole,
            PpLayout | PpStage | RecomputeModules => Input::List,
            K | ActMb | GpuGb | HostGb | OverheadGb | Margin | CapacityFactor
            | GpuMemoryUtilization => Input::Decimal,
            Params => Input::Count,
            Ckpt | Tied | Bias | QkvBias | Dropout | Sp | Foreach | Offload | ActOffload
            | LoraDropout | DoubleQuant | ParamOffload | Embed | QkNorm | QkNormFull | Softcap
            | AttnSoftcap | AttnSinks | CapacityPad | TrainEmbeddings | Compile | Reentrant
            | GradAccumFusion | EnforceEager | FlashinferSampler | PrepareKbit
            | GradientAsBucketView | AttnOutputGate => Input::Switch,
            Form | Precision | Optimizer | Model | Framework | Kind | Mlp | Norm | Recipe
            | Recompute | Attn | Mode | Quant | Step | Loss | Logits | ZeroGrad | Outputs
            | NormKernel | FusedProj | LoraTargets | BaseQuant | KvDtype | KvLayout
            | CacheImplementation | LoraVariant | Fp8 | Gpu | Units | Lang | Block | PpSchedule
            | CpKind | RecomputeMethod | LinearMixer => Input::Choice,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_read_back() {
        for (i, &param) in Param::ALL.iter().enumerate() {
            assert_eq!(param.index(), i);
            assert_eq!(Param::from_name(param.name()), Some(param));
            assert_eq!(
                Param::ALL
                    .iter()
                    .filter(|p| p.name() == param.name())
                    .count(),
                1,
                "{}",
                param.name()
            );
        }
        assert_eq!(Param::from_name("lora"), None);
        assert_eq!(Param::from_name(" batch"), None);
    }
}
