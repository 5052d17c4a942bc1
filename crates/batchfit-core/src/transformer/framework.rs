//! The framework profiles: the defaults each training or inference stack sets
//! (docs/frameworks.md cites the source of every one).

use super::bounds::PREFETCH;
use super::input::TransformerInput;
use super::options::{
    Attention, BaseQuant, Framework, KvLayout, LoraTargets, Loss, Mode, NormKernel, Outputs,
    Recipe, Recompute, Step, ZeroGrad,
};

impl Framework {
    /// Whether the profile is a serving engine that plans its own memory
    /// (`crate::serving`).
    pub const fn engine(self) -> bool {
        matches!(self, Self::Vllm | Self::Sglang)
    }

    /// A serving engine's name as its project writes it: "SGLang", else
    /// "vLLM" (the plans are of these two engines only).
    pub const fn engine_name(self) -> &'static str {
        match self {
            Self::Sglang => "SGLang",
            _ => "vLLM",
        }
    }

    /// Sets the profile's defaults on `input`; the architecture and the batch
    /// are left alone. Each line names the source docs/frameworks.md quotes.
    pub fn apply(self, input: &mut TransformerInput) {
        input.framework = self;
        let (recipe, step, loss, bucket_m) = match self {
            Framework::Custom => return,
            // torch/amp/autocast_mode.py + torch/optim/optimizer.py
            // (_default_to_fused_or_foreach: foreach on CUDA);
            // docs/source/notes/amp_examples.rst "Typical use": `output =
            // model(input)`, `loss = loss_fn(output, target)`,
            // `scaler.scale(loss).backward()`, `scaler.step(optimizer)`:
            // `output` lives until the next iteration rebinds it.
            Framework::Pytorch => {
                input.outputs = Outputs::Kept;
                (Recipe::Amp, Step::Foreach, Loss::Full, 0)
            }
            // transformers/training_args.py: default_optim = "adamw_torch_fused"
            // for torch ≥ 2.8.
            Framework::HfTrainer => (Recipe::Amp, Step::Fused, Loss::Full, 0),
            // megatron/core/transformer/module.py `Float16Module` (the model
            // in BF16), megatron/training/arguments.py (bf16 → FP32 main
            // grads), megatron/core/optimizer/__init__.py (TE/apex FusedAdam),
            // megatron/core/tensor_parallel/cross_entropy.py (the loss),
            // megatron/core/distributed/param_and_grad_buffer.py
            // (`_ParamAndGradBuffer`: `grad_data = torch.zeros(...)` once,
            // `reset` zero-fills it: the gradients are alive at every
            // moment), megatron/core/extensions/transformer_engine.py
            // (`TENorm`, `TELayerNormColumnParallelLinear`: fused norms),
            // megatron/core/tensor_parallel/random.py `CheckpointFunction`
            // (its full recomputation's checkpoint, the reentrant kind: the
            // backward's `torch.autograd.backward(outputs, args)` on the
            // rerun's outputs).
            Framework::Megatron => {
                input.zero_grad = ZeroGrad::Zeros;
                input.norm_kernel = NormKernel::Fused;
                input.reentrant = true;
                (Recipe::MainFp32, Step::Fused, Loss::VocabParallel, 0)
            }
            // deepspeed/runtime/zero/config.py (reduce_bucket_size = 5e8),
            // deepspeed/runtime/zero/stage_1_and_2.py (16-bit grads, FP32 partitions).
            Framework::Deepspeed => (Recipe::Amp16, Step::Fused, Loss::Full, 500),
            // recipes/full_finetune_single_device.py, torchtune/modules/optim.py,
            // torchtune/modules/loss/cross_entropy_loss.py.
            Framework::Torchtune => (Recipe::Bf16, Step::InBackward, Loss::Chunked, 0),
            // huggingface/peft src/peft/tuners/lora/config.py `LoraConfig`:
            // `r` default 8, `lora_dropout` default 0.0; src/peft/utils/
            // constants.py `TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING`
            // ["llama"] = ["q_proj", "v_proj"]; FP32 adapters from
            // `autocast_adapter_dtype=True` (counted for every LoRA). The
            // Trainer's side is `hf_trainer`'s; `gradient_checkpointing`
            // defaults to False (transformers training_args.py), so
            // recomputation stays the user's.
            // A quantized base is prepared as PEFT's quantization guide runs
            // it (docs/source/developer_guides/quantization.md: "you should
            // call the prepare_model_for_kbit_training function to
            // preprocess the quantized model"): `prepare_kbit`, which
            // applies once `base_quant` is set.
            Framework::HfPeft => {
                input.lora_rank = 8;
                input.lora_targets = LoraTargets::Qv;
                input.lora_dropout = false;
                input.prepare_kbit = true;
                (Recipe::Amp, Step::Fused, Loss::Full, 0)
            }
            // pytorch/torchtune recipes/configs/llama3_1/8B_lora_single_device.yaml:
            // lora_rank 8, lora_dropout 0.0, lora_attn_modules [q_proj, v_proj,
            // output_proj] with apply_lora_to_mlp True (no k_proj: `all` is
            // the nearest target set, docs/frameworks.md), dtype bf16,
            // enable_activation_checkpointing True (per
            // TransformerSelfAttentionLayer: full recomputation), torch.optim
            // AdamW with fused True, LinearCrossEntropyLoss.
            Framework::TorchtuneLora => {
                input.lora_rank = 8;
                input.lora_targets = LoraTargets::All;
                input.lora_dropout = false;
                input.recompute = Recompute::Full;
                (Recipe::Bf16, Step::Fused, Loss::Chunked, 0)
            }
            // The Trainer's automatic optimization clears the gradients
            // between `training_step` and the backward pass:
            // src/lightning/pytorch/loops/optimization/automatic.py
            // `Closure.closure` calls `_step_fn()`, `_zero_grad_fn()`
            // (`optimizer_zero_grad` → `optimizer.zero_grad()`, set_to_none
            // by default; src/lightning/pytorch/core/module.py), then
            // `_backward_fn(loss)`; with accumulation only on the first
            // micro-batch (`_make_zero_grad_fn`).
            // src/lightning/pytorch/plugins/precision/precision.py: no conversion.
            Framework::Lightning32 => {
                input.zero_grad = ZeroGrad::AfterForward;
                (Recipe::Fp32, Step::Foreach, Loss::Full, 0)
            }
            // src/lightning/pytorch/plugins/precision/amp.py: torch.autocast.
            Framework::Lightning16Mixed | Framework::LightningBf16Mixed => {
                input.zero_grad = ZeroGrad::AfterForward;
                (Recipe::Amp, Step::Foreach, Loss::Full, 0)
            }
            // src/lightning/pytorch/plugins/precision/half.py: module.to(bfloat16).
            Framework::LightningBf16True => {
                input.zero_grad = ZeroGrad::AfterForward;
                (Recipe::Bf16, Step::Foreach, Loss::Full, 0)
            }
            // transformers/generation/utils.py: inference in the model's dtype.
            Framework::HfGenerate => {
                input.mode = Mode::Inference;
                (Recipe::Bf16, Step::Fused, Loss::Full, 0)
            }
            // vllm/config/model.py (`dtype="auto"`: the checkpoint's 16-bit
            // dtype), vllm/v1/kv_cache_interface.py `MLAAttentionSpec` (the
            // latent, one head on every rank); the paged attention kernels
            // (FlashAttention, FlashInfer) keep no score matrix.
            Framework::Vllm => {
                input.mode = Mode::Inference;
                input.kv_layout = KvLayout::Latent;
                input.attention = Attention::Flash;
                (Recipe::Bf16, Step::Fused, Loss::Full, 0)
            }
            // sgl-project/sglang python/sglang/srt/server_args.py (read in
            // the Ascend/sglang mirror at 1d201cb8): `mem_fraction_static`
            // None (0 here: derived from the card,
            // `crate::serving::sglang_mem_fraction`), `page_size` 1 on CUDA;
            // the paged attention backends keep no score matrix, and an MLA
            // model's pool holds the latent (`MLATokenToKVPool`).
            Framework::Sglang => {
                input.mode = Mode::Inference;
                input.kv_layout = KvLayout::Latent;
                input.attention = Attention::Flash;
                input.engine.gpu_memory_utilization = 0;
                input.engine.block_size = 1;
                (Recipe::Bf16, Step::Fused, Loss::Full, 0)
            }
            // pytorch/torchtitan torchtitan/config/job_config.py
            // (mixed_precision_param = "bfloat16", mixed_precision_reduce =
            // "float32", implementation = "fused"), parallelize.py apply_fsdp
            // (fully_shard per block: ZeRO-3), torch/distributed/fsdp/_fully_shard.
            Framework::Fsdp2 => {
                input.zero = 3;
                input.prefetch = PREFETCH.default;
                (Recipe::Fsdp, Step::Fused, Loss::Full, 0)
            }
            // torch/distributed/fsdp/fully_sharded_data_parallel.py (FULL_SHARD,
            // backward_prefetch=BACKWARD_PRE, limit_all_gathers=True: one block
            // prefetched), accelerate/utils/dataclasses.py
            // FullyShardedDataParallelPlugin.set_mixed_precision
            // (MixedPrecision(param_dtype=bf16, reduce_dtype=bf16)), the user's
            // torch.optim AdamW (foreach on CUDA).
            Framework::Fsdp1 => {
                input.zero = 3;
                input.prefetch = PREFETCH.default;
                (Recipe::Fsdp, Step::Foreach, Loss::Full, 0)
            }
            // unslothai/unsloth unsloth/models/loader.py
            // `FastLanguageModel.from_pretrained`: `load_in_4bit = True`,
            // `use_gradient_checkpointing = "unsloth"`; unsloth/models/llama.py
            // (`bnb_4bit_quant_type = "nf4"`, `bnb_4bit_use_double_quant =
            // True`; the model in BF16 where the GPU supports it), and
            // `FastLlamaModel.get_peft_model`: `r = 16`, q/k/v/o and
            // gate/up/down, `lora_dropout = 0.0`, PEFT's `get_peft_model`
            // (FP32 adapters). "unsloth" checkpointing (unslothai/unsloth-zoo
            // unsloth_zoo/gradient_checkpointing.py
            // `UnslothCheckpointFunction`) keeps each layer's input in pinned
            // CPU buffers and brings it back into a GPU buffer to recompute
            // the layer: `recompute=full` with `act_offload`. Its backward
            // reruns the layer and calls `torch.autograd.backward(
            // outputs_with_grad, args_with_grad)`, the reentrant kind
            // (`unsloth_checkpoint` forces `use_reentrant=True`):
            // `reentrant`. The Trainer's side is `hf_trainer`'s optimizer;
            // unsloth/models/llama.py computes the loss with unsloth-zoo's
            // `unsloth_fused_ce_loss`.
            Framework::Unsloth => {
                input.lora_rank = 16;
                input.lora_targets = LoraTargets::All;
                input.lora_dropout = false;
                input.base_quant = BaseQuant::Nf4;
                input.double_quant = true;
                input.recompute = Recompute::Full;
                input.act_offload = true;
                input.reentrant = true;
                (Recipe::Bf16, Step::Fused, Loss::Fused, 0)
            }
        };
        input.recipe = recipe;
        input.step = step;
        input.loss = loss;
        input.bucket_m = bucket_m;
    }

    /// `TransformerInput::default()` with this profile applied: what a URL
    /// naming the profile means before its other parameters.
    pub fn defaults(self) -> TransformerInput {
        let mut input = TransformerInput::default();
        self.apply(&mut input);
        input
    }
}
