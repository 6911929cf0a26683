"""The measurement rows of each engine and metric, as arrays of what fitproof computes for
their scenarios (bytes, FLOPs, bandwidth, peak rates: everything but the constants)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..engine.accuracy import IDENTICAL_MOE_BATCH, measurement_scenarios, outside_model
from ..engine.estimation import Batch
from ..files.pack_files import USER_PACKS_ORIGIN

if TYPE_CHECKING:
    from ..registry.index import Registry

Array = npt.NDArray[Any]
Item = dict[str, Any]

COLUMNS = ("decode_weights_gib", "kv_read_gib", "kv_replication", "decode_bandwidth_gbs",
           "gpu_share", "layer_stages", "allreduce_s", "params_compute_per_token",
           "prefill_attention_flops", "prefill_expert_params", "prefill_peak_tflops", "pipeline_speedup",
           "tensor_parallel", "prefill_tflops", "host_layers_share", "host_decode_weights_gib",
           "host_bandwidth_gbs", "decode_vector_batch", "decode_depth", "prompt")
NUMBERS = COLUMNS + ("value", "layers", "moe_layers", "batch", "shader_tflops")


class Rows:
    """The measurement rows of one engine and metric, as arrays of what fitproof computes."""

    decode_weights_gib: Array
    kv_read_gib: Array
    kv_replication: Array
    decode_bandwidth_gbs: Array
    gpu_share: Array
    layer_stages: Array
    allreduce_s: Array
    params_compute_per_token: Array
    prefill_attention_flops: Array
    prefill_expert_params: Array
    prefill_peak_tflops: Array
    pipeline_speedup: Array
    tensor_parallel: Array
    prefill_tflops: Array
    host_layers_share: Array
    host_decode_weights_gib: Array
    host_bandwidth_gbs: Array
    decode_vector_batch: Array
    decode_depth: Array
    prompt: Array
    value: Array
    layers: Array
    moe_layers: Array
    batch: Array
    shader_tflops: Array

    def __init__(self, items: list[Item]):
        self.items = items
        self.n = len(items)
        for name in NUMBERS:
            setattr(self, name, np.array([item[name] for item in items], dtype=float))
        self.backend: list[str] = [item["backend"] for item in items]
        self.kernel: list[str] = [item["kernel"] for item in items]
        self.memory: list[str] = [item["memory"] for item in items]
        self.hardware: list[str] = [item["hardware"] for item in items]
        self.source: list[str] = [item.get("source", "") for item in items]
        self.user: Array = np.array([bool(item.get("user")) for item in items], dtype=bool)

    def subset(self, mask: Iterable[bool] | Array) -> Rows:
        return Rows([item for item, keep in zip(self.items, mask) if keep])


Data = dict[tuple[str, str], Rows]


def load(registry: Registry, apart: bool = False, user_rows: bool = True) -> Data:
    """Every measurement row with its scenario's features, by (engine, metric): the rows whose
    workload the profile models, or with ``apart`` the batches of identical sequences
    (fitproof.engine.accuracy.outside_model; rows with experts kept on the host are left to
    fitproof validate, whose formulas have the host-copy term this fit does not fit),
    which fit no constant and are scored apart. Rows of the user's pack folder are marked
    ``user``; without ``user_rows`` they are left out."""
    entries, scenarios = measurement_scenarios(registry)
    batch = Batch(registry, scenarios)
    columns = {name: batch.values(name) for name in COLUMNS}
    groups: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for i, (pack, index, row) in enumerate(entries):
        user = pack.pack.origin == USER_PACKS_ORIGIN
        if user and not user_rows:
            continue
        reason = outside_model(registry, row)
        if bool(reason) != apart or (apart and reason != IDENTICAL_MOE_BATCH):
            continue  # rows of another workload (experts on the host) only validate scores
        scenario = scenarios[i]
        item: Item = {name: (math.nan if columns[name][i] is None else columns[name][i])
                      for name in COLUMNS}
        model = registry.models[scenario.model]
        hardware = registry.hardware[scenario.hardware]
        shader = hardware.shader_tflops
        item.update(value=row.value, layers=float(model.num_hidden_layers.value),
                    moe_layers=float(model.moe_layers.value) if model.moe_layers else 0.0,
                    shader_tflops=0.0 if shader is None else float(shader.value),
                    batch=float(scenario.inputs["batch"] or 0),
                    backend=scenario.backend or hardware.backend or "other",
                    kernel=registry.quant_formats[scenario.quant][0].kernel or "float",
                    memory=hardware.memory_family or "",
                    hardware=scenario.hardware, model=scenario.model, quant=scenario.quant,
                    location=pack.pack.at("rows", index), metric=row.metric,
                    source=row.source.split("#")[0], user=user)
        groups[(scenario.engine, row.metric)].append(item)
    return {key: Rows(items) for key, items in groups.items()}
