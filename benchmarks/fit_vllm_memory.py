"""Fit vLLM's memory terms to public startup logs and cross-validate them.

Reads tests/data/vllm-logs.csv (vLLM 0.19 startup logs on H100 80GB, each row cited) and
the model packs, then:

1. fits the activation peak of vLLM's profiling run as
   ``max_num_seqs x vocab x s + max_num_batched_tokens x hidden x h`` (bytes) by least
   squares: s is packs/engines/vllm.yaml's sampler_bytes_per_vocab, h its
   activation_bytes_per_hidden;
2. takes the tensor-parallel communication memory as the mean non-torch memory of the
   tensor-parallel logs minus that of the single-GPU logs;
3. fits the CUDA graph pool, captured after the KV cache in the 1 - utilization margin, as
   ``base + per_layer x layers`` (cuda_graph_base_gib, cuda_graph_gib_per_layer);
4. leaves each model out in turn, refits on the others and predicts the held-out model's
   activation peak and KV capacity (tokens) with fitproof's engine accounting;
5. prints every row and the error of each prediction.

Run: python benchmarks/fit_vllm_memory.py
"""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fitproof  # noqa: E402

LOGS = ROOT / "tests" / "data" / "vllm-logs.csv"


def features(registry, row) -> list[float]:
    model = registry.models[row["model"]]
    vocab = float(model.vocab_size.value)
    hidden = float(model.hidden_size.value)
    return [float(row["max_num_seqs"]) * vocab, float(row["max_num_batched_tokens"]) * hidden]


def fit(registry, rows) -> np.ndarray:
    a = np.array([features(registry, r) for r in rows])
    b = np.array([float(r["activation_gib"]) * 2**30 for r in rows])
    coefficients, *_ = np.linalg.lstsq(a, b, rcond=None)
    return coefficients


def fit_graphs(registry, rows) -> np.ndarray:
    layers = np.array([float(registry.models[r["model"]].num_hidden_layers.value) for r in rows])
    a = np.c_[np.ones_like(layers), layers]
    coefficients, *_ = np.linalg.lstsq(a, np.array([float(r["cuda_graph_gib"]) for r in rows]),
                                       rcond=None)
    return coefficients


def predict_capacity(registry, row, sampler: float, per_hidden: float) -> float:
    """KV capacity of ``row`` with the engine pack's activation figures replaced."""
    import attrs

    from fitproof.specs import Figure

    engine = registry.engines["vllm"]
    patched = attrs.evolve(engine, sampler_bytes_per_vocab=Figure(sampler),
                           activation_bytes_per_hidden=Figure(per_hidden))
    registry.engines["vllm"] = patched
    registry._entities.pop(("engine", "vllm"), None)
    try:
        result = estimate(registry, row)
        value = result.value("kv_capacity_tokens")
        return float("nan") if value is None else value
    finally:
        registry.engines["vllm"] = engine
        registry._entities.pop(("engine", "vllm"), None)


def estimate(registry, row):
    return fitproof.estimate(
        row["model"], row["hardware"], quant=row["quant"], kv=row["kv"], engine="vllm",
        registry=registry, context=int(row["max_model_len"]), gpus=int(row["gpus"]),
        gpu_memory_utilization=float(row["gpu_memory_utilization"]))


def main() -> int:
    registry = fitproof.load_registry(profile="measured")
    rows = list(csv.DictReader(LOGS.open()))
    sampler, per_hidden = fit(registry, rows)
    single = [float(r["non_torch_gib"]) for r in rows if r["gpus"] == "1"]
    parallel = [float(r["non_torch_gib"]) for r in rows if r["gpus"] != "1"]
    print(f"{len(rows)} vLLM logs, {len({r['model'] for r in rows})} models "
          f"({LOGS.relative_to(ROOT)})")
    print(f"fit on all rows: sampler_bytes_per_vocab = {sampler:.2f}, "
          f"activation_bytes_per_hidden = {per_hidden:.2f}")
    print(f"non-torch memory: single GPU median {statistics.median(single):.2f} GiB, "
          f"tensor parallel mean {statistics.mean(parallel):.2f} GiB "
          f"-> tensor_parallel_overhead_gib = "
          f"{statistics.mean(parallel) - statistics.median(single):.2f}")
    base, per_layer = fit_graphs(registry, rows)
    print(f"CUDA graph pool: cuda_graph_base_gib = {base:.2f}, "
          f"cuda_graph_gib_per_layer = {per_layer:.4f}")
    print()
    print("leave-one-model-out: coefficients fitted without the row's model")
    print(f"{'model':24} {'quant':9} {'kv':4} {'tp':>2}  {'act GiB pred/log':>17}  "
          f"{'KV tokens pred/log':>21}  error")
    errors, graph_errors = [], []
    for model in sorted({r["model"] for r in rows}):
        train = [r for r in rows if r["model"] != model]
        s, h = fit(registry, train)
        g0, g1 = fit_graphs(registry, train)
        for row in (r for r in rows if r["model"] == model):
            act = float(np.dot(features(registry, row), [s, h])) / 2**30
            tokens = predict_capacity(registry, row, s, h)
            logged = float(row["kv_tokens"])
            error = tokens / logged - 1
            errors.append(abs(error))
            layers = float(registry.models[row["model"]].num_hidden_layers.value)
            graphs = g0 + g1 * layers
            graph_errors.append(abs(graphs - float(row["cuda_graph_gib"])))
            print(f"{row['model']:24} {row['quant']:9} {row['kv']:4} {row['gpus']:>2}  "
                  f"{act:7.2f} / {float(row['activation_gib']):6.2f}  "
                  f"{tokens:10.0f} / {logged:9.0f}  {error:+6.1%}   "
                  f"graphs {graphs:.2f} / {float(row['cuda_graph_gib']):.2f} GiB")
    print()
    print(f"KV capacity, held-out models: mean |error| {statistics.mean(errors):.1%}, "
          f"max {max(errors):.1%} over {len(errors)} logs")
    print(f"CUDA graph pool, held-out models: mean |error| {statistics.mean(graph_errors):.2f} "
          f"GiB, max {max(graph_errors):.2f} GiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
