//! Model states per GPU (docs/model.md §3.2): weights, gradients, optimizer
//! state and step, their sharding and offload, ZeRO-3/FSDP parameters in
//! flight, and the FP8 and loss weight copies alive with the activations.

use super::adapters::Adapters;
use super::architecture::{
    Counted, ParameterCount, RoutedExperts, attention_block, moe_common, parameter_count,
};
use super::input::TransformerInput;
use super::options::{
    BaseQuant, Block, Fp8, Framework, Kind, Mode, Optimizer, Quant, Recipe, Recompute, Step,
};
use crate::arith::div_ceil;

/// The batch-independent memory per GPU, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModelStates {
    pub weights: u128,
    pub gradients: u128,
    /// Optimizer state, including FP32 master weights where the recipe keeps them
    /// (the ZeRO paper counts them there too: its K = 12 is 4 + 4 + 4).
    pub optimizer_states: u128,
    /// Temporary buffers the optimizer step allocates (foreach, for-loop and
    /// in-backward steps; docs/frameworks.md).
    pub optimizer_step: u128,
    /// Framework buffers that live through the step (DeepSpeed's gradient bucket).
    pub buffers: u128,
    /// What the offloads keep in CPU memory for this GPU's process (not part
    /// of [`Self::total`]): with `offload`, the optimizer's FP32 partition;
    /// with `param_offload`, every model state.
    pub cpu: u128,
}

impl ModelStates {
    pub fn total(&self) -> u128 {
        self.weights + self.gradients + self.optimizer_states + self.optimizer_step + self.buffers
    }
}

/// Model states per GPU for a model of `count` parameters.
///
/// Expert parallelism (`ep`) places each routed expert on one of `ep` ranks
/// of the data-parallel group, so each GPU holds 1/ep of the routed experts'
/// weights, gradients and optimizer states; the other parameters are
/// replicated (or ZeRO-sharded) over all `gpus` as before. The routed
/// experts' own data-parallel group is the `gpus / ep` ranks holding the same
/// experts: Megatron-Core's expert-data-parallel group
/// (megatron/core/parallel_state.py `_EXPERT_DATA_PARALLEL_GROUP`, world /
/// (ep × expert tp × pp)), over which its distributed optimizer shards the
/// experts' states (megatron/core/distributed/distributed_data_parallel.py:
/// `expert_parallel` buffers reduce over the expert-data-parallel group), and
/// torchtitan's `dp_shard_mod_ep` mesh dimension that FSDP shards the experts
/// over (torchtitan/models/llama4/infra/parallelize.py `apply_fsdp`). Expert
/// tensor parallelism (`etp`, Megatron's `expert_tensor_parallel_size`, by
/// default the tensor-parallel size) splits each expert's matrices instead
/// of `tp`: an unsharded term holds 1/(ep × etp) of the experts, a sharded
/// one 1/(gpus × tp) ([`TransformerInput::experts_view`]).
pub fn model_states(count: &ParameterCount, input: &TransformerInput) -> ModelStates {
    let routed = count.routed;
    // Parameter offload holds the layers in flight whatever their experts
    // (expert parallelism changes only what the host holds), and no
    // all-gathered copies beside them.
    if input.param_offload {
        return pool_states(count, input, &Adapters::of(input));
    }
    if routed.total == 0 {
        let states = pool_states(count, input, &Adapters::of(input));
        let buffers = states.buffers
            + gathered_parameters(count, input, per_rank(count, input))
            + fp8_buffers(input);
        return zero3_runtime(count, input, ModelStates { buffers, ..states });
    }
    let ep = u128::from(input.ep.max(1));
    let rest = ParameterCount {
        total: count.total - routed.total,
        linear: count.linear - routed.linear,
        linear_rows: count.linear_rows - routed.linear_rows,
        factored: count.factored - routed.factored,
        routed: RoutedExperts::default(),
        ..*count
    };
    let all_experts = ParameterCount {
        total: routed.total,
        linear: routed.linear,
        linear_rows: routed.linear_rows,
        norms: 0,
        factored: routed.factored,
        largest: routed.largest,
        largest_linear: routed.largest,
        // Read from the whole count only (`dequantized_weight`), never per pool.
        largest_linear_rows: 0,
        vocabulary: 0,
        vocabulary_matrices: 0,
        active: 0,
        routed: RoutedExperts::default(),
    };
    let (shared_adapters, expert_adapters) = Adapters::pools(input);
    let shared = pool_states(&rest, input, &shared_adapters);
    // Every expert whole, with ZeRO over the gpus × tp ranks of a stage, and
    // their adapters (`lora_targets=experts` or `all_experts`; frozen
    // otherwise).
    let view = input.experts_view();
    let experts = pool_states(&all_experts, &view, &expert_adapters);
    // A ZeRO-sharded term is 1/(ep × etp × expert dp) = 1/(gpus × tp) of the
    // experts on every GPU, whatever `ep` and `etp`; an unsharded one holds
    // the rank's 1/(ep × etp) of them. A step that holds one parameter at a
    // time (its gradient and temporaries) holds the larger of the two
    // pools' largest, an expert's split over `etp`.
    let etp = u128::from(input.expert_tp());
    let stage = input.zero_stage();
    let local = |bytes: u128, sharded_from: u8| {
        if stage >= sharded_from {
            bytes
        } else {
            div_ceil(bytes, ep * etp)
        }
    };
    let step = input.effective_step();
    let one_at_a_time = |a: u128, b: u128| a.max(div_ceil(b, etp));
    let gradients = match step {
        Step::InBackward => one_at_a_time(shared.gradients, experts.gradients),
        Step::Fused | Step::Foreach | Step::ForLoop => {
            shared.gradients + local(experts.gradients, 2)
        }
    };
    let optimizer_step = match step {
        Step::InBackward | Step::ForLoop => {
            one_at_a_time(shared.optimizer_step, experts.optimizer_step)
        }
        Step::Fused | Step::Foreach => shared.optimizer_step + local(experts.optimizer_step, 1),
    };
    let per_rank = per_rank(&rest, input) + div_ceil(per_rank(&all_experts, &view), ep * etp);
    let states = ModelStates {
        weights: shared.weights + local(experts.weights, 3),
        gradients,
        optimizer_states: shared.optimizer_states + local(experts.optimizer_states, 1),
        optimizer_step,
        buffers: shared.buffers + gathered_parameters(count, input, per_rank) + fp8_buffers(input),
        cpu: shared.cpu + local(experts.cpu, 1),
    };
    zero3_runtime(count, input, states)
}

/// Parameters on one tensor-parallel rank: Megatron tensor parallelism
/// splits every matrix (and its bias) over t ranks (Shoeybi et al. 2019, §3);
/// norms are replicated.
fn per_rank(count: &ParameterCount, input: &TransformerInput) -> u128 {
    count.norms + div_ceil(count.total - count.norms, u128::from(input.tp))
}

/// The parameters of the trainable copies of the token embedding and the
/// output head beside LoRA (`train_embeddings`), per pool before tensor
/// parallelism: PEFT `modules_to_save=["embed_tokens", "lm_head"]` wraps each
/// in a `ModulesToSaveWrapper` (peft/utils/other.py), whose `update` keeps
/// the frozen `original_module` (`requires_grad_(False)`) and trains
/// `copy.deepcopy(self.original_module)` beside it: the original stays in
/// memory and the copy adds its full size, in the original's dtype (PEFT's
/// `cast_adapter_dtype` upcasts only `BaseTunerLayer` adapters, and a
/// wrapper is none). With tied weights the head's copy shares the
/// embedding copy's weight (`modules_to_tie`, the `tied_module` branch of
/// `update`): one matrix. 0 without LoRA or without the switch.
pub fn embedding_copies(count: &ParameterCount, input: &TransformerInput) -> u128 {
    if input.lora() && input.train_embeddings {
        count.vocabulary
    } else {
        0
    }
}

/// Bytes of one trained parameter's gradient: FP32 for the adapters, which
/// PEFT keeps in FP32, and for the recipes that keep FP32 parameters or
/// accumulate into FP32 (FSDP2 reduce-scatters in its FP32 `reduce_dtype`
/// into the FP32 sharded parameters' `.grad`); the parameters' 16 bits for
/// pure 16-bit training.
pub(super) fn gradient_bytes(input: &TransformerInput) -> u128 {
    match input.recipe {
        _ if input.lora() => 4,
        Recipe::Fp32 | Recipe::Amp | Recipe::Mixed | Recipe::MainFp32 | Recipe::Fsdp => 4,
        Recipe::Amp16 | Recipe::Bf16 => 2,
    }
}

/// Model states per GPU for `count` parameters sharded over `input.gpus`
/// ranks, with the framework's gradient bucket in `buffers` (FSDP2's
/// all-gathered copies are [`gathered_parameters`]), and the trainable copies
/// of the embedding and head with LoRA ([`embedding_copies`]). The copies
/// train as full training trains any parameter under the recipe: their
/// weights, gradients, master copy and optimizer state in its dtypes; a step
/// that holds one parameter at a time holds the larger of the two groups'.
pub(super) fn pool_states(
    count: &ParameterCount,
    input: &TransformerInput,
    adapters: &Adapters,
) -> ModelStates {
    let states = trained_states(count, input, adapters);
    let copies = embedding_copies(count, input);
    if copies == 0 {
        return states;
    }
    let (v, h) = (u128::from(input.arch.vocab), u128::from(input.arch.hidden));
    let matrices = count.vocabulary_matrices;
    let bias = copies - matrices * v * h;
    let only_copies = ParameterCount {
        total: copies,
        factored: matrices * (v + h) + bias,
        largest: v * h,
        ..ParameterCount::default()
    };
    let full = TransformerInput {
        lora_rank: 0,
        ..*input
    };
    let c = trained_states(&only_copies, &full, &Adapters::default());
    let step = input.effective_step();
    let gradients = match step {
        Step::InBackward => states.gradients.max(c.gradients),
        Step::Fused | Step::Foreach | Step::ForLoop => states.gradients + c.gradients,
    };
    let optimizer_step = match step {
        Step::InBackward | Step::ForLoop => states.optimizer_step.max(c.optimizer_step),
        Step::Fused | Step::Foreach => states.optimizer_step + c.optimizer_step,
    };
    ModelStates {
        weights: states.weights + c.weights,
        gradients,
        optimizer_states: states.optimizer_states + c.optimizer_states,
        optimizer_step,
        buffers: states.buffers,
        cpu: states.cpu + c.cpu,
    }
}

/// [`pool_states`] without the embedding copies: the base (frozen under
/// LoRA) and what trains.
fn trained_states(
    count: &ParameterCount,
    input: &TransformerInput,
    adapters: &Adapters,
) -> ModelStates {
    let t = u128::from(input.tp);
    let per_rank = per_rank(count, input);
    let linear = div_ceil(count.linear, t);
    let rest = per_rank - linear.min(per_rank);
    let training = input.mode == Mode::Train;

    let compute_bytes = input.activation_bytes();
    let base = if !training && input.quantized() {
        match input.quant {
            Quant::None => per_rank * compute_bytes,
            // LLM.int8 (Dettmers et al. 2022, §3): int8 weights + one FP32 absmax per row.
            Quant::Int8 => linear + 4 * div_ceil(count.linear_rows, t) + rest * compute_bytes,
            // GPTQ/AWQ layout: 4-bit weights; per 128 weights an FP16 scale (16 bits)
            // and a packed 4-bit zero point: 4 + 20/128 bits per weight.
            Quant::Int4 => {
                div_ceil(4 * linear + 20 * div_ceil(linear, 128), 8) + rest * compute_bytes
            }
        }
    } else if input.quantized() {
        // A QLoRA base (`quantized` in training means exactly that).
        let blocks = div_ceil(linear, 64);
        let packed = match input.base_quant {
            BaseQuant::Int8 => linear + 4 * div_ceil(count.linear_rows, t),
            // One absmax per 64 weights: FP32, or 8 bits plus one FP32 scale
            // per 256 absmaxes when double-quantized.
            _ if input.double_quant => div_ceil(linear, 2) + blocks + 4 * div_ceil(blocks, 256),
            BaseQuant::None | BaseQuant::Nf4 | BaseQuant::Fp4 => div_ceil(linear, 2) + 4 * blocks,
        };
        packed + rest * input.unquantized_bytes()
    } else if training && input.recipe == Recipe::Fsdp {
        // FSDP2 keeps the (sharded) parameters in their FP32 dtype; the BF16
        // copies are all-gathered per layer (`buffers` below).
        per_rank * 4
    } else {
        per_rank * compute_bytes
    };
    if !training {
        return shard(
            ModelStates {
                weights: base,
                ..ModelStates::default()
            },
            input,
        );
    }

    // What trains: every parameter, or with LoRA the adapters only, which
    // PEFT keeps in FP32 over a 16-bit base (peft/tuners/tuners_utils.py
    // `_cast_adapter_dtype`, `autocast_adapter_dtype=True` by default): their
    // gradients, moments and step temporaries are FP32, and there is no
    // master copy.
    let lora = input.lora();
    let (trainable, largest, factored) = if lora {
        (adapters.parameters, adapters.largest, adapters.factored)
    } else {
        (
            per_rank,
            div_ceil(count.largest, t),
            div_ceil(count.factored, t),
        )
    };
    let weights = base + 4 * adapters.parameters;
    let gradient_bytes = gradient_bytes(input);
    let step = input.effective_step();
    let gradients = match step {
        // torchtune/modules/optim.py: a post-accumulate-grad hook steps each
        // parameter and sets its gradient to None, so one gradient at a time.
        Step::InBackward => largest * gradient_bytes,
        Step::Fused | Step::Foreach | Step::ForLoop => trainable * gradient_bytes,
    };
    // Master weights: the FP32 copy the optimizer updates (Micikevicius et al.
    // 2018, "Mixed Precision Training", §3.1).
    let master = match input.recipe {
        _ if lora => 0,
        // Megatron's main parameters likewise (`recipe=main_fp32`).
        Recipe::Amp | Recipe::Amp16 | Recipe::MainFp32 => 4 * per_rank,
        // FSDP2's FP32 parameters are what the optimizer updates: no extra copy.
        Recipe::Fp32 | Recipe::Mixed | Recipe::Bf16 | Recipe::Fsdp => 0,
    };
    let state_bytes: u128 = match input.recipe {
        _ if lora => 4,
        Recipe::Bf16 => 2,
        Recipe::Fp32
        | Recipe::Amp
        | Recipe::Amp16
        | Recipe::Mixed
        | Recipe::MainFp32
        | Recipe::Fsdp => 4,
    };
    let state = match input.optimizer {
        // Loshchilov & Hutter 2019: first and second moment per parameter.
        Optimizer::AdamW => 2 * state_bytes * trainable,
        // Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", §2:
        // two 1-byte moments and one FP32 absmax per block of 2048 for each.
        Optimizer::Adam8bit | Optimizer::PagedAdamW8bit => {
            2 * trainable + 2 * 4 * div_ceil(trainable, 2048)
        }
        // bitsandbytes/optim/optimizer.py `Optimizer2State.init_state`: with
        // `optim_bits=32` both moments are `torch.float32` buffers, whatever
        // the parameter's dtype; updated in place by one kernel per tensor
        // (`optimizer_update_32bit`), no step temporaries.
        Optimizer::PagedAdamW => 2 * 4 * trainable,
        // Shazeer & Stern 2018, "Adafactor", §3–4: row and column sums of the
        // second moment per matrix, full second moment for vectors, β1 = 0.
        Optimizer::Adafactor => state_bytes * factored,
        Optimizer::SgdMomentum => state_bytes * trainable,
        Optimizer::Sgd | Optimizer::None => 0,
    };
    let optimizer_step = match (step, input.optimizer) {
        // torch/optim/adam.py `_multi_tensor_adam`: `exp_avg_sq_sqrt =
        // torch._foreach_sqrt(device_exp_avg_sqs)` for all parameters, then
        // in-place ops: one state-sized temporary.
        (Step::Foreach, Optimizer::AdamW) => state_bytes * trainable,
        // torch/optim/adam.py `_single_tensor_adam`: `(exp_avg_sq.sqrt() /
        // bias_correction2_sqrt)` holds the sqrt and the quotient of one
        // parameter at once: two temporaries of the largest parameter.
        (Step::ForLoop, Optimizer::AdamW) => 2 * state_bytes * largest,
        // One torch.optim AdamW per parameter (torchtune/modules/optim.py), on
        // its default foreach path: one temporary of that parameter.
        (Step::InBackward, Optimizer::AdamW) => state_bytes * largest,
        _ => 0,
    };
    if input.param_offload {
        // Under autocast the FP32 master copy is the stored parameter; the
        // 16-bit weights are its casts.
        let stored = if input.autocast() && !lora {
            0
        } else {
            weights
        };
        let held = stored + trainable * gradient_bytes + master + state;
        return offloaded(count, input, adapters.layer, gradient_bytes, held);
    }
    // DeepSpeed ZeRO-Offload keeps master weights and optimizer state in CPU
    // memory and runs the step there (DeepSpeedCPUAdam), with the FP32
    // gradient partition it steps from (Ren et al. 2021, "ZeRO-Offload", §4.1;
    // deepspeed/runtime/zero/stage_1_and_2.py: with `cpu_offload` each reduced
    // gradient is copied into `single_partition_of_fp32_groups[i].grad` on
    // the CPU), divided over the data-parallel ranks like the optimizer state.
    let (optimizer_states, optimizer_step, cpu) = if input.offload {
        let n = if input.zero_stage() >= 1 {
            u128::from(input.gpus)
        } else {
            1
        };
        (0, 0, div_ceil(master + state + 4 * trainable, n))
    } else {
        (master + state, optimizer_step, 0)
    };
    // deepspeed/runtime/zero/stage_1_and_2.py `backward()`: with
    // contiguous_gradients (the default) one bucket of reduce_bucket_size
    // elements in the gradients' dtype. DeepSpeed's stage 3 allocates the
    // same (stage3.py `DeepSpeedZeroOptimizer_Stage3.__init__`, "IPG": with
    // contiguous_gradients, `torch.empty(self.reduce_bucket_size)` in each
    // communication dtype, one for 16-bit training); its other buffers are
    // [`zero3_runtime`].
    let bucket = if input.zero <= 2 || input.deepspeed_stage3() {
        u128::from(input.bucket_m) * 1_000_000 * gradient_bytes
    } else {
        0
    };
    // PyTorch DDP (torch/csrc/distributed/c10d/reducer.cpp
    // `Reducer::initialize_buckets`): at construction, one flat
    // `bucket.gradients = at::empty(...)` per bucket, in the gradients'
    // dtype, together as large as every trainable parameter's gradient,
    // kept for the run. With `gradient_as_bucket_view=False`, DDP's default
    // (torch/nn/parallel/distributed.py), each `param.grad` is a tensor of
    // its own that the reducer copies into its bucket view before the
    // all-reduce (`mark_variable_ready_dense`): the gradients exist twice.
    // With `True` they are views into the buckets (the docstring: "the
    // saved memory size will be equal to the total gradients size"), alive
    // from the first step on (`memory::parts`).
    let ddp_buckets = if input.ddp() && !input.bucket_view {
        trainable * gradient_bytes
    } else {
        0
    };
    let sharded = shard(
        ModelStates {
            weights,
            gradients,
            optimizer_states,
            optimizer_step,
            buffers: 0,
            cpu,
        },
        input,
    );
    ModelStates {
        buffers: bucket + ddp_buckets,
        ..sharded
    }
}

/// Model states with the parameters offloaded (`param_offload`): FSDP2
/// `fully_shard(offload_policy=CPUOffloadPolicy())` and FSDP1
/// `CPUOffload(offload_params=True)` keep the sharded parameters, their
/// gradients and the optimizer's state in CPU memory and step there
/// (torch/distributed/fsdp/_fully_shard/_fsdp_param.py: the sharded
/// parameter lives on the CPU and is copied to the GPU for each all-gather;
/// the reduce-scattered gradient is copied back); DeepSpeed ZeRO-3
/// `offload_param` with `offload_optimizer` does the same
/// (deepspeed/runtime/zero/partition_parameters.py). The GPU holds the
/// layers in flight: the one computing (or the largest matrix, if larger)
/// and `prefetch` layers fetched ahead, in the compute dtype, and the
/// computing layer's unsharded gradients before they are reduced and copied
/// out. The CPU holds `held`, what the GPU would have held (the stored
/// parameters, their gradients, master copy and optimizer state), sharded
/// over the data-parallel ranks as ZeRO-3 shards it.
fn offloaded(
    count: &ParameterCount,
    input: &TransformerInput,
    adapter_layer: u128,
    gradient_bytes: u128,
    held: u128,
) -> ModelStates {
    let n = u128::from(input.gpus);
    let (layer, computing) = units_in_flight(count, input);
    let in_flight = computing + u128::from(input.prefetch) * layer;
    // What trains of the layer computing: all of it, or the adapters of the
    // layer that has the most.
    let trained = if input.lora() {
        adapter_layer
    } else {
        computing
    };
    ModelStates {
        weights: in_flight * input.activation_bytes(),
        gradients: trained * gradient_bytes,
        optimizer_states: 0,
        optimizer_step: 0,
        buffers: 0,
        cpu: div_ceil(held, n),
    }
}

/// FP8 training's weight copies alive with the activations (`fp8`), per GPU:
/// Transformer Engine's FP8 weight and its FP8 transpose for every linear map
/// of the blocks, cast in the forward pass and saved for the backward pass
/// (1 + 1 bytes per weight); torchao's FP8 cast of the largest block matrix,
/// alive during its product (the cast of its input, 1 byte per element of one
/// matrix product's input, is not counted).
pub fn fp8_weight_copies(count: &ParameterCount, input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train {
        return 0;
    }
    let t = u128::from(input.tp);
    let arch = &input.arch;
    let (h, f) = (u128::from(arch.hidden), u128::from(arch.ffn));
    let q = u128::from(arch.heads) * u128::from(arch.head_size());
    match input.fp8 {
        Fp8::None => 0,
        Fp8::Te => 2 * div_ceil(count.linear, t),
        Fp8::Torchao => div_ceil((h * f).max(h * q), t),
    }
}

/// Autocast's 16-bit weight copies alive at the loss under full
/// recomputation, per GPU: `None` where every copy the forward pass cast is
/// alive there, as without recomputation (the default count), so that the
/// other paths do no more work.
///
/// pytorch/pytorch aten/src/ATen/autocast_mode.cpp `cached_cast`: the cast
/// of an FP32 leaf that requires grad is cached (`can_try_cache` asks for
/// `requires_grad()`, `is_leaf()`, no view, and not for grad mode, so the
/// no-grad forward of a reentrant checkpoint caches too), and `clear_cache`
/// empties the cache when the outermost autocast context exits
/// (torch/amp/autocast_mode.py `autocast.__exit__`:
/// `_decrement_autocast_nesting() == 0` → `clear_autocast_cache()`). Until
/// then the cache holds every weight's cast: all copies are alive at the end
/// of the forward pass (the loss's forward inside the region). A
/// checkpointed layer saves none of its casts for the backward pass
/// (torch/utils/checkpoint.py: `CheckpointFunction.forward` runs it under
/// `torch.no_grad()`; `_checkpoint_without_reentrant_generator`'s pack hook
/// keeps a holder, not the tensor), so once the region has exited only the
/// casts saved by the modules outside the layers are alive at the loss: the
/// LM head's (with tied weights the embedding matrix, which the head casts;
/// the embedding lookup is on no autocast list and reads the FP32 table),
/// BERT's pooler and classifier, ViT's patch convolution and classifier.
/// Norms cast nothing (layer_norm is on the FP32 list; RMSNorm's product
/// with its weight is on no list). Recomputing a layer enters autocast again
/// (`CheckpointFunction.backward` and `recompute_fn`: `device_autocast_ctx`)
/// and casts that layer's weights anew; its products save them until its
/// backward frees them: one layer's copies at a time. They are never alive
/// with the head's (whose backward has run before the last layer's
/// recomputation); batchfit counts both at the loss, at most the smaller of
/// the two too many. A MoE layer's copies are its attention's, its router's,
/// its shared experts' and every local expert's (experts / ep).
///
/// Applies to `recipe=amp` with `recompute=full` without a pipeline, and
/// not to LoRA (a frozen weight does not require grad: never cached), FP8
/// modules, ZeRO-3 or parameter offload (the gathered copies are their own
/// term). Under torch.compile the same copies are alive at the loss (a cast
/// of a weight is recomputable and not saved from a checkpointed layer);
/// the compiled graph's casts are ops of their own, freed after their last
/// use rather than held by the cache, so there the end of the forward pass
/// is no moment of its own (assumed from how the graph runs, not read from
/// Inductor's source).
pub fn loss_weight_copies(input: &TransformerInput) -> Option<u128> {
    if !input.autocast()
        || input.recompute != Recompute::Full
        || input.lora()
        || input.fp8 != Fp8::None
        || input.zero_stage() >= 3
        || input.param_offload
        || input.pp > 1
    {
        return None;
    }
    let arch = &input.arch;
    let h = u128::from(arch.hidden);
    let labels = u128::from(arch.labels);
    let classifier = if labels > 0 { labels * h + labels } else { 0 };
    let outside = match arch.kind {
        Kind::Decoder => {
            let v = u128::from(arch.vocab);
            let bias = !arch.tied && arch.bias && arch.block == Block::Parallel;
            v * h + if bias { v } else { 0 }
        }
        Kind::Encoder => h * h + h + classifier,
        Kind::Vision => {
            let patch = u128::from(arch.patch);
            h * u128::from(arch.channels) * patch * patch + h + classifier
        }
    };
    let cast = |ffn: Counted| {
        let mut layer = attention_block(arch);
        layer.add(ffn);
        layer.total - layer.norms
    };
    let dense = if arch.dense_layers() > 0 {
        let mut mlp = Counted::default();
        mlp.mlp(arch, u128::from(arch.ffn));
        cast(mlp)
    } else {
        0
    };
    let moe = if arch.moe_layers() > 0 {
        let mut expert = Counted::default();
        expert.mlp(arch, u128::from(arch.expert_width()));
        let mut ffn = moe_common(arch);
        ffn.add(expert.times(div_ceil(u128::from(arch.experts), u128::from(input.ep))));
        cast(ffn)
    } else {
        0
    };
    Some(input.activation_bytes() * div_ceil(outside + dense.max(moe), u128::from(input.tp)))
}

/// Transformer Engine's delayed-scaling state (`fp8=te`), held through the
/// run: per GEMM, 3 forward and 2 backward FP8 tensors
/// (module/base.py: `num_gemms * 3 if fwd else num_gemms * 2`), each with an
/// FP32 amax history of `amax_history_len` = 1,024 steps and an FP32 scale
/// (quantization.py `DelayedScalingRecipeState`); four GEMMs per block (the
/// fused QKV and first MLP maps, the output projection, the second MLP map).
pub fn fp8_buffers(input: &TransformerInput) -> u128 {
    if input.mode != Mode::Train || input.fp8 != Fp8::Te {
        return 0;
    }
    u128::from(input.arch.layers) * 4 * 5 * (1024 + 1) * 4
}

/// The BF16 parameter copies FSDP2 all-gathers (`recipe=fsdp`), per GPU.
fn gathered_parameters(count: &ParameterCount, input: &TransformerInput, per_rank: u128) -> u128 {
    // FSDP1 all-gathers BF16 flat parameters from FP32 shards (`recipe=fsdp`)
    // or from a module already in BF16 (`recipe=bf16`, Lightning's
    // `bf16-true`); NO_SHARD (stage < 3) keeps FSDP2's unsharded copies, or
    // none when the module is in BF16 already.
    if input.framework == Framework::Fsdp1
        && input.mode == Mode::Train
        && input.zero_stage() == 3
        && matches!(input.recipe, Recipe::Fsdp | Recipe::Bf16)
    {
        return fsdp1_in_flight(input, units_in_flight(count, input).0);
    }
    if input.recipe != Recipe::Fsdp {
        return 0;
    }
    if input.zero_stage() < 3 {
        // Unsharded parameters (one GPU, or reshard_after_forward=False): every
        // layer's BF16 copy stays alive from its forward to its backward
        // (torchtitan without dp_shard runs autocast, which caches the casts).
        return 2 * per_rank;
    }
    // _fsdp_param_group.py: unshard() all-gathers the group's BF16 parameters
    // (param_dtype) and reshard() frees them after its forward
    // (reshard_after_forward=True) and after its backward. At the start of the
    // backward pass the unit computing (the last block, or the output
    // projection when it is larger: torchtitan's apply_fsdp shards
    // [norm, output] as one unit)
    // holds its copy while `prefetch` blocks ahead are all-gathered
    // (_fsdp_param_group.py `_backward_prefetch`: the next group in backward order).
    let (layer, computing) = units_in_flight(count, input);
    2 * (computing + u128::from(input.prefetch) * layer)
}

/// FSDP1's unsharded BF16 flat parameters and gradients per GPU
/// (`framework=fsdp1`, full sharding), the wrapped unit being one block of
/// `layer` parameters and the root the parameters outside the blocks (the
/// embedding, the final norm and the head):
///
/// - The root's flat parameter stays unsharded from its forward to its
///   backward: `_runtime_utils.py` `_post_forward_reshard` frees the unsharded
///   flat parameter only `not state._is_root`.
/// - The block computing and `prefetch` blocks ahead: `_pre_backward_hook`
///   unshards the block and `_prefetch_handles(..., BACKWARD)` all-gathers the
///   next (`backward_prefetch=BACKWARD_PRE`); `limit_all_gathers=True` makes
///   `_unshard` wait on `_free_event_queue` (`_limiter_utils.py`, two
///   all-gathers in flight at most), so the default is one block ahead.
/// - Unsharded gradients: `_post_backward_hook` reduce-scatters
///   `flat_param.grad`, one tensor the size of the whole unsharded flat
///   parameter in `param_dtype`, after the unit's backward, and keeps only the
///   new shard (`_saved_grad_shard`, cast to the FP32 sharded parameter's
///   dtype, `gradients`). The block in backward holds its full gradient; the
///   root's is produced from the head's backward on and reduce-scattered after
///   the embedding's, at the end: counted whole through the blocks' backward.
fn fsdp1_in_flight(input: &TransformerInput, layer: u128) -> u128 {
    let mut none = input.arch;
    none.layers = 0;
    let root = div_ceil(parameter_count(&none).total, u128::from(input.tp));
    let parameters = root + layer + u128::from(input.prefetch) * layer;
    let gradients = root + layer;
    2 * (parameters + gradients)
}

/// DeepSpeed ZeRO-3's optimizer sub-group (`sub_group_size`), in elements:
/// deepspeed/runtime/zero/config.py defaults it to 1e9; the step converts one
/// sub-group's gradients to FP32 at a time.
const DS_SUB_GROUP: u128 = 1_000_000_000;

/// DeepSpeed ZeRO-3's runtime memory on top of `states` (ZeRO-sharded model
/// states and the reduce bucket, `bucket_m`), per GPU, under
/// `framework=deepspeed` with `zero=3` ([`TransformerInput::deepspeed_stage3`]):
///
/// - Persistent parameters: deepspeed/runtime/zero/parameter_offload.py
///   `DeepSpeedZeRoOffload.mark_persistent_parameters` marks every parameter
///   of at most `stage3_param_persistence_threshold` elements `ds_persist`,
///   never partitioned: whole on every rank in the 16-bit dtype. The norms'
///   weights and biases are such vectors (hidden-wide at most) when `hidden`
///   ≤ `ds_persist`; the rank's 1/n share is already in `weights`. Their
///   gradients and FP32 copies stay partitioned.
/// - The parameters in flight: partitioned_param_coordinator.py
///   `PartitionedParameterCoordinator.fetch_sub_module` all-gathers the
///   module computing and then prefetches the next modules' parameters, up
///   to `min(prefetch_bucket_size, max_live_parameters − available)`
///   elements, in the 16-bit dtype; `release_sub_module` frees them after
///   use. At the start of the backward pass the unit computing (the last
///   layer, or the largest matrix) is gathered and the prefetch bucket is
///   full.
/// - The FP32 gradient partition: stage3.py `_prepare_fp32_grad_for_sub_group`
///   flattens one optimizer sub-group's 16-bit gradient partition (a new
///   tensor) and converts it to FP32 (`.to(fp32)`), both alive at that
///   moment, for at most `sub_group_size` (1e9) elements; `_release_sub_group`
///   frees the FP32 copy after that sub-group's step. 2 + 4 bytes per element
///   of the rank's partition in 16-bit training (4 in FP32, where `.to` makes
///   no copy), in the step's moment.
/// - The gradient partition itself (stage3.py `grad_partitions_flat_buffer`,
///   `torch.zeros` of the rank's partition in the 16-bit dtype, allocated at
///   initialization) is `gradients`; that it is alive through the forward
///   pass is memory.rs's `gradients_with_activations`.
///
/// Not counted: `stage3_max_reuse_distance` (parameters reused within that
/// many elements are kept gathered, at the turn from the forward to the
/// backward pass) and the prefetch's overshoot by up to one whole parameter.
fn zero3_runtime(
    count: &ParameterCount,
    input: &TransformerInput,
    states: ModelStates,
) -> ModelStates {
    if !input.deepspeed_stage3() {
        return states;
    }
    let n = u128::from(input.gpus.max(1));
    let bytes = input.activation_bytes();
    let persistent = if u128::from(input.arch.hidden) <= u128::from(input.ds_persist) {
        count.norms
    } else {
        0
    };
    let whole_extra = (persistent - div_ceil(persistent, n).min(persistent)) * bytes;
    let (layer, computing) = units_in_flight(count, input);
    let available = u128::from(input.ds_live).saturating_sub(computing);
    let prefetched = u128::from(input.ds_prefetch)
        .min(available)
        .min(layer * u128::from(input.arch.layers));
    let in_flight = (computing + prefetched) * bytes;
    let trainable = if input.lora() {
        Adapters::of(input).parameters
    } else {
        per_rank(count, input)
    };
    let sub_group = div_ceil(trainable, n).min(DS_SUB_GROUP);
    // The flattened copy in the model's dtype, and its FP32 conversion
    // (`.to` returns the same tensor when the model already trains in FP32).
    let fp32_copy = if bytes == 4 { 0 } else { 4 };
    ModelStates {
        weights: states.weights + whole_extra,
        optimizer_step: states.optimizer_step + (bytes + fp32_copy) * sub_group,
        buffers: states.buffers + in_flight,
        ..states
    }
}

/// The parameters per tensor-parallel rank of one layer, and of the unit
/// computing (that layer, or the largest matrix when it is larger): what a
/// framework that gathers or fetches parameters layer by layer holds. One
/// layer is the count with one layer minus the count with none; for a MoE
/// model, a MoE layer, its routed experts split over `ep`.
fn units_in_flight(count: &ParameterCount, input: &TransformerInput) -> (u128, u128) {
    let t = u128::from(input.tp);
    let mut one = input.arch;
    (one.layers, one.first_dense_layers, one.moe_every) = (1, 0, 1);
    let mut none = input.arch;
    none.layers = 0;
    let one = parameter_count(&one);
    let routed = one.routed.total;
    let layer = div_ceil(
        one.total - parameter_count(&none).total - routed + div_ceil(routed, u128::from(input.ep)),
        t,
    );
    (layer, layer.max(div_ceil(count.largest, t)))
}

/// ZeRO (Rajbhandari et al. 2020, §5.1–5.3): stage 1 partitions the optimizer
/// states over the data-parallel ranks, stage 2 also the gradients, stage 3 also
/// the weights.
fn shard(states: ModelStates, input: &TransformerInput) -> ModelStates {
    let n = u128::from(input.gpus);
    let stage = input.zero_stage();
    let split = |bytes: u128, from: u8| {
        if stage >= from {
            div_ceil(bytes, n)
        } else {
            bytes
        }
    };
    ModelStates {
        weights: split(states.weights, 3),
        gradients: split(states.gradients, 2),
        optimizer_states: split(states.optimizer_states, 1),
        optimizer_step: split(states.optimizer_step, 1),
        buffers: states.buffers,
        cpu: states.cpu,
    }
}
