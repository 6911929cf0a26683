"""The serving engines' measurement rows (their serving runs and their single streams), as
arrays of what fitproof computes for their scenarios: everything but the constants the
serving fit (``serving_model``) inverts."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..engine.accuracy import measurement_scenarios, outside_model
from ..engine.estimation import Batch
from ..files.pack_files import USER_PACKS_ORIGIN
from .rows import Array, Item

if TYPE_CHECKING:
    from ..registry.index import Registry

SERVING_ENGINES = ("vllm", "sglang")  # the engines whose packs hold a fitted serving block
SERVING = ("output_tps", "total_tps", "tpot_ms", "ttft_ms")
METRICS = SERVING + ("decode_tps", "prefill_tps")
COLUMNS = ("decode_weights_gib", "kv_read_gib", "kv_replication", "decode_bandwidth_gbs",
           "decode_memory_factor", "allreduce_s", "params_compute_per_token",
           "prefill_expert_params", "prefill_peak_tflops", "prefill_attention_flops",
           "tensor_parallel", "pipeline_speedup", "running_sequences", "prompt", "generate",
           "ubatch_tokens", "batch", "arrival", "decode_arithmetic_s")
NUMBERS = COLUMNS + ("value", "layers", "moe_layers", "phi")


class ServingRows:
    """One engine's rows, as arrays of what fitproof computes for their scenarios."""

    decode_weights_gib: Array
    kv_read_gib: Array
    kv_replication: Array
    decode_bandwidth_gbs: Array
    decode_memory_factor: Array
    allreduce_s: Array
    params_compute_per_token: Array
    prefill_expert_params: Array
    prefill_peak_tflops: Array
    prefill_attention_flops: Array
    tensor_parallel: Array
    pipeline_speedup: Array
    running_sequences: Array
    prompt: Array
    generate: Array
    ubatch_tokens: Array
    batch: Array
    arrival: Array
    decode_arithmetic_s: Array
    value: Array
    layers: Array
    moe_layers: Array
    phi: Array

    def __init__(self, items: list[Item]):
        self.items = items
        self.n = len(items)
        for name in NUMBERS:
            setattr(self, name, np.array([item[name] for item in items], dtype=float))
        self.metric: list[str] = [item["metric"] for item in items]
        self.kernel: list[str] = [item["kernel"] for item in items]
        self.hardware: list[str] = [item["hardware"] for item in items]
        self.source: list[str] = [item["source"] for item in items]
        self.backend: list[str] = [item["backend"] for item in items]
        self.user: Array = np.array([bool(item.get("user")) for item in items], dtype=bool)

    def subset(self, mask: Iterable[bool] | Array) -> ServingRows:
        return ServingRows([item for item, keep in zip(self.items, mask) if keep])

    def of_metric(self, metric: str) -> Array:
        """Which rows are of ``metric``."""
        return np.array([m == metric for m in self.metric], dtype=bool)


ServingData = dict[str, ServingRows]


def page_of(url: str) -> str:
    """A source's page (rows of one page share its runs' quirks)."""
    return url.split("#")[0]


def load_serving(registry: Registry, apart: bool = False, user_rows: bool = True) -> ServingData:
    """The rows of the serving engines by engine: those whose workload the profile models,
    or with ``apart`` those it does not (fitproof.engine.accuracy.outside_model), which fit no
    constant and are scored apart. Rows of the user's pack folder are marked ``user``;
    without ``user_rows`` they are left out."""
    entries, scenarios = measurement_scenarios(registry)
    chosen = [i for i, (pack, _, row) in enumerate(entries)
              if row.engine in SERVING_ENGINES and row.metric in METRICS
              and bool(outside_model(registry, row)) == apart
              and (user_rows or pack.pack.origin != USER_PACKS_ORIGIN)]
    batch = Batch(registry, [scenarios[i] for i in chosen])
    columns = {name: batch.values(name) for name in COLUMNS}
    by_engine: dict[str, list[Item]] = defaultdict(list)
    for k, i in enumerate(chosen):
        pack, index, row = entries[i]
        scenario = scenarios[i]
        model = registry.models[scenario.model]
        kernel = registry.quant_formats[scenario.quant][0].kernel or "float"
        engine = registry.engines[row.engine]
        phi = engine.decode_kernel_factor.get(kernel) or engine.decode_kernel_factor["default"]
        item: Item = {name: (math.nan if (value := columns[name][k]) is None else float(value))
                      for name in COLUMNS}
        item.update(value=row.value, metric=row.metric, kernel=kernel, phi=float(phi.value),
                    engine=row.engine,
                    layers=float(model.num_hidden_layers.value),
                    moe_layers=float(model.moe_layers.value) if model.moe_layers else 0.0,
                    hardware=scenario.hardware, model=scenario.model, quant=scenario.quant,
                    source=page_of(row.source), location=pack.pack.at("rows", index),
                    backend=scenario.backend or registry.hardware[scenario.hardware].backend
                    or "other", user=pack.pack.origin == USER_PACKS_ORIGIN)
        by_engine[row.engine].append(item)
    return {engine: ServingRows(items) for engine, items in by_engine.items()}
