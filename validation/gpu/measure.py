"""Ground truth for batchfit's transformer model: peak GPU memory of real
training steps and generation, measured with PyTorch on models built from
their published configurations (random weights, nothing downloaded).

Each run of the grid below builds one model on the GPU, runs three full
training steps (forward, loss, backward, optimizer step, zero_grad) or one
generation, and records:

- peak_allocated: torch.cuda.max_memory_allocated() over the steps, the
  reading batchfit calls "peak allocated";
- peak_reserved: torch.cuda.max_memory_reserved(), batchfit's "peak reserved";
- device_used: total - free from cudaMemGetInfo after the steps (what
  nvidia-smi shows for the process: the CUDA context plus the cache);
- weights_allocated: memory_allocated() once the model is built, a check of
  the parameter count and precision;
- for training, the last step phase by phase: peak_forward (forward pass and
  loss), saved_for_backward (what the forward pass leaves allocated),
  peak_backward, gradients_allocated (what the backward pass leaves), and
  peak_step (optimizer step and zero_grad).

Every row carries the batchfit query that describes the same run, so that
`cargo xtask accuracy` can compare like with like. The grid varies one
setting at a time around a base run per model (precision recipe, optimizer
and its step implementation, checkpointing, attention kernel, batch,
sequence length). No batchfit constant is fitted to these rows.

Usage: python3 validation/gpu/measure.py OUT_DIR [--deadline SECONDS]
Writes OUT_DIR/gpu-measurements.csv (one row per run, flushed as it goes)
and OUT_DIR/gpu-environment.json.
"""

import argparse
import csv
import gc
import json
import os
import platform
import sys
import time
import traceback

import torch
import transformers
from transformers import (
    AutoModelForCausalLM,
    BertConfig,
    BertForSequenceClassification,
    GPT2Config,
    LlamaConfig,
    Qwen2Config,
    ViTConfig,
    ViTForImageClassification,
)

# Published configurations (the models' config.json on the Hugging Face hub),
# keyed by batchfit's preset id. Only the sizes that set memory are given.
CONFIGS = {
    # openai-community/gpt2: library defaults are GPT-2 small (dropout 0.1).
    "gpt2": lambda: GPT2Config(),
    # Qwen/Qwen2.5-0.5B
    "qwen2.5-0.5b": lambda: Qwen2Config(
        vocab_size=151936,
        hidden_size=896,
        intermediate_size=4864,
        num_hidden_layers=24,
        num_attention_heads=14,
        num_key_value_heads=2,
        max_position_embeddings=32768,
        tie_word_embeddings=True,
    ),
    # meta-llama/Llama-3.2-1B
    "llama-3.2-1b": lambda: LlamaConfig(
        vocab_size=128256,
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=64,
        max_position_embeddings=131072,
        tie_word_embeddings=True,
    ),
    # meta-llama/Llama-3.2-3B
    "llama-3.2-3b": lambda: LlamaConfig(
        vocab_size=128256,
        hidden_size=3072,
        intermediate_size=8192,
        num_hidden_layers=28,
        num_attention_heads=24,
        num_key_value_heads=8,
        head_dim=128,
        max_position_embeddings=131072,
        tie_word_embeddings=True,
    ),
    # Qwen/Qwen2.5-1.5B
    "qwen2.5-1.5b": lambda: Qwen2Config(
        vocab_size=151936,
        hidden_size=1536,
        intermediate_size=8960,
        num_hidden_layers=28,
        num_attention_heads=12,
        num_key_value_heads=2,
        max_position_embeddings=131072,
        tie_word_embeddings=True,
    ),
    # meta-llama/Llama-3.1-8B
    "llama-3.1-8b": lambda: LlamaConfig(
        vocab_size=128256,
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        max_position_embeddings=131072,
        tie_word_embeddings=False,
    ),
    # google-bert/bert-large-uncased (dropout 0.1), two labels as in the
    # transformers docs' single-GPU training example.
    "bert-large": lambda: BertConfig(
        hidden_size=1024,
        num_hidden_layers=24,
        num_attention_heads=16,
        intermediate_size=4096,
        num_labels=2,
    ),
    # google/vit-base-patch16-224: library defaults, 1000 ImageNet classes.
    "vit-b-16": lambda: ViTConfig(num_labels=1000),
}

# Extra batchfit parameters that describe each model's head and dropout as
# the runs use them (the presets describe the backbone).
EXTRA = {
    "gpt2": "dropout=1",
    "qwen2.5-0.5b": "dropout=0",
    "llama-3.2-1b": "dropout=0",
    "llama-3.1-8b": "dropout=0",
    "llama-3.2-3b": "dropout=0",
    "qwen2.5-1.5b": "dropout=0",
    "bert-large": "dropout=1&labels=2",
    "vit-b-16": "dropout=0&labels=1000",
}


def run(model, **settings):
    base = dict(
        model=model,
        mode="train",
        recipe="amp",
        optimizer="adamw",
        step="foreach",
        recompute="none",
        attn="sdpa",
        batch=4,
        seq=2048,
        gen=0,
    )
    base.update(settings)
    return base


def grid():
    """The runs, most informative first, so that a deadline cuts the least."""
    rows = []
    bases = {
        "gpt2": run("gpt2", batch=8, seq=1024),
        "qwen2.5-0.5b": run("qwen2.5-0.5b"),
        "llama-3.2-1b": run("llama-3.2-1b"),
    }
    rows += bases.values()
    rows += [
        run("llama-3.1-8b", recipe="bf16", batch=1, seq=2048),
        run("llama-3.1-8b", recipe="bf16", step="fused", batch=2, seq=2048),
        run("llama-3.1-8b", recipe="bf16", recompute="full", batch=8, seq=4096),
        run("llama-3.1-8b", recipe="amp", optimizer="sgd_momentum", recompute="full", batch=2, seq=2048),
    ]
    for name, base in bases.items():
        for change in [
            dict(recipe="fp32"),
            dict(recipe="bf16"),
            dict(step="fused"),
            dict(optimizer="sgd_momentum"),
            dict(recompute="full"),
            dict(attn="eager"),
            dict(batch=1),
            dict(batch=base["batch"] * 2),
            dict(seq=base["seq"] // 2),
        ]:
            rows.append({**base, **change})
    rows += [
        run("bert-large", recipe="fp32", batch=4, seq=512),
        run("bert-large", recipe="amp", batch=4, seq=512),
        run("bert-large", recipe="amp", batch=16, seq=512),
        run("bert-large", recipe="fp32", attn="eager", batch=4, seq=512),
        run("vit-b-16", recipe="amp", batch=32, seq=197),
        run("vit-b-16", recipe="fp32", batch=32, seq=197),
        run("vit-b-16", recipe="amp", batch=128, seq=197),
        run("llama-3.2-1b", mode="inference", recipe="bf16", optimizer="none", batch=8, seq=512, gen=256),
        run("llama-3.2-1b", mode="inference", recipe="bf16", optimizer="none", batch=32, seq=1024, gen=128),
        run("qwen2.5-0.5b", mode="inference", recipe="bf16", optimizer="none", batch=16, seq=512, gen=256),
        run("qwen2.5-0.5b", recipe="amp", batch=4, seq=4096),
        run("llama-3.2-1b", recipe="amp", batch=2, seq=8192),
        run("llama-3.2-3b", recipe="amp", batch=2, seq=2048),
        run("llama-3.2-3b", recipe="bf16", batch=4, seq=2048),
        run("qwen2.5-1.5b", recipe="amp", batch=2, seq=2048),
        run("qwen2.5-1.5b", recipe="bf16", batch=4, seq=2048),
    ]
    return rows


def query(r):
    """The batchfit URL query that describes run `r`."""
    parts = [
        "form=transformer",
        f"model={r['model']}",
        EXTRA[r["model"]],
        f"recipe={r['recipe']}",
        f"optimizer={r['optimizer']}",
        f"batch={r['batch']}",
    ]
    if r["model"] != "vit-b-16":
        parts.append(f"seq={r['seq']}")
    if r["mode"] == "inference":
        parts += ["mode=inference", f"gen={r['gen']}"]
    else:
        # SDPA picks the flash or memory-efficient kernel here: no seq x seq
        # scores are kept, which batchfit calls attn=flash.
        attn = "eager" if r["attn"] == "eager" else "flash"
        parts += [f"step={r['step']}", f"recompute={r['recompute']}", f"attn={attn}", "loss=full", "logits=fp32"]
    return "&".join(parts)


def build(r):
    config = CONFIGS[r["model"]]()
    config._attn_implementation = r["attn"]
    if hasattr(config, "use_cache"):
        config.use_cache = r["mode"] == "inference"
    dtype = torch.float32 if r["recipe"] in ("fp32", "amp") else torch.bfloat16
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device("cuda"):
            if r["model"] == "bert-large":
                model = BertForSequenceClassification(config)
            elif r["model"] == "vit-b-16":
                model = ViTForImageClassification(config)
            else:
                model = AutoModelForCausalLM.from_config(config)
    finally:
        torch.set_default_dtype(previous)
    model = model.to(device="cuda", dtype=dtype)
    return model, config


def inputs(r, config):
    b, s = r["batch"], r["seq"]
    if r["model"] == "vit-b-16":
        pixels = torch.randn(b, 3, config.image_size, config.image_size, device="cuda")
        return dict(pixel_values=pixels, labels=torch.randint(0, config.num_labels, (b,), device="cuda"))
    ids = torch.randint(0, config.vocab_size, (b, s), device="cuda")
    if r["model"] == "bert-large":
        return dict(input_ids=ids, labels=torch.randint(0, config.num_labels, (b,), device="cuda"))
    return dict(input_ids=ids, labels=ids)


def optimizer(r, model):
    params = [p for p in model.parameters() if p.requires_grad]
    if r["optimizer"] == "sgd_momentum":
        return torch.optim.SGD(params, lr=1e-4, momentum=0.9, foreach=r["step"] == "foreach")
    if r["step"] == "fused":
        return torch.optim.AdamW(params, lr=1e-4, fused=True)
    return torch.optim.AdamW(params, lr=1e-4, foreach=r["step"] == "foreach")


def measure(r):
    phases = {}
    peaks = dict(allocated=0, reserved=0)

    def phase_peak():
        """The peak allocated since the last call; keeps the run's maxima."""
        allocated = torch.cuda.max_memory_allocated()
        peaks["allocated"] = max(peaks["allocated"], allocated)
        peaks["reserved"] = max(peaks["reserved"], torch.cuda.max_memory_reserved())
        torch.cuda.reset_peak_memory_stats()
        return allocated

    model, config = build(r)
    torch.cuda.synchronize()
    weights = torch.cuda.memory_allocated()
    start = time.perf_counter()
    if r["mode"] == "inference":
        model.eval()
        ids = torch.randint(0, config.vocab_size, (r["batch"], r["seq"]), device="cuda")
        torch.cuda.reset_peak_memory_stats()
        with torch.no_grad():
            out = model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=r["gen"],
                min_new_tokens=r["gen"],
                do_sample=False,
                use_cache=True,
                pad_token_id=0,
            )
        assert out.shape[1] == r["seq"] + r["gen"], out.shape
        steps = 1
    else:
        model.train()
        if r["recompute"] == "full":
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        opt = optimizer(r, model)
        batch = inputs(r, config)
        torch.cuda.reset_peak_memory_stats()
        steps = 3
        for n in range(steps):
            # The last step is read phase by phase (the optimizer state exists
            # by then): the peak inside each phase, and what the forward pass
            # leaves allocated for the backward pass.
            last = n == steps - 1
            if last:
                phase_peak()
                before = torch.cuda.memory_allocated()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=r["recipe"] == "amp"):
                loss = model(**batch).loss
            if last:
                phases["saved_for_backward"] = torch.cuda.memory_allocated() - before
                phases["peak_forward"] = phase_peak()
            loss.backward()
            if last:
                phases["gradients_allocated"] = torch.cuda.memory_allocated() - before
                phases["peak_backward"] = phase_peak()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if last:
                phases["peak_step"] = phase_peak()
        assert torch.isfinite(loss).item(), "loss is not finite"
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / steps
    free, total = torch.cuda.mem_get_info()
    phase_peak()
    return dict(
        phases,
        parameters=sum(p.numel() for p in model.parameters()),
        weights_allocated=weights,
        peak_allocated=peaks["allocated"],
        peak_reserved=peaks["reserved"],
        device_used=total - free,
        seconds_per_step=round(seconds, 4),
    )


FIELDS = [
    "id", "model", "mode", "recipe", "optimizer", "step", "recompute", "attn", "batch", "seq", "gen",
    "parameters", "weights_allocated", "peak_allocated", "peak_reserved", "device_used",
    "peak_forward", "saved_for_backward", "peak_backward", "gradients_allocated", "peak_step",
    "seconds_per_step", "error", "query",
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--deadline", type=float, default=330.0, help="start no run after this many seconds")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    began = time.perf_counter()

    torch.cuda.init()
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    environment = dict(
        gpu=torch.cuda.get_device_name(0),
        total_bytes=total,
        context_bytes=total - free - torch.cuda.memory_reserved(),
        torch=torch.__version__,
        cuda=torch.version.cuda,
        transformers=transformers.__version__,
        python=platform.python_version(),
        allocator_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
        date=time.strftime("%Y-%m-%d"),
    )
    with open(os.path.join(args.out, "gpu-environment.json"), "w") as f:
        json.dump(environment, f, indent=2)
    print(json.dumps(environment), flush=True)

    with open(os.path.join(args.out, "gpu-measurements.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for n, r in enumerate(grid(), start=1):
            if time.perf_counter() - began > args.deadline:
                print(f"deadline reached before run {n}", flush=True)
                break
            row = dict(r, id=f"G{n:03d}", query=query(r), error="")
            try:
                row.update(measure(r))
            except Exception as e:  # an out-of-memory or API error is a result too
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
                traceback.print_exc(limit=3)
            finally:
                gc.collect()
                torch.cuda.empty_cache()
            writer.writerow(row)
            f.flush()
            print(n, row["query"], row.get("peak_allocated"), row["error"], f"t={time.perf_counter() - began:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
