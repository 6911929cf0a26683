"""The speed formulas the fit inverts, as packs/formulas/measured-throughput.yaml computes
them, over arrays of rows and constants."""

from __future__ import annotations

import numpy as np

from .layout import MOE, OPS, Layout
from .rows import Array, Rows

Constants = dict[str, Array]

PREFILL_CONSTANTS = ("prefill_compute_efficiency", "prefill_attention_efficiency",
                     "prefill_kernel_factor", "prefill_expert_efficiency", "prefill_ceiling_tflops")
DECODE_CONSTANTS = ("decode_bandwidth_efficiency", "decode_kernel_factor", "decode_memory_factor",
                    "kv_read_efficiency",
                    "decode_token_overhead_s", "decode_layer_overhead_s", "layer_split_hop_s",
                    OPS, MOE)
PREFILL_START = {"prefill_compute_efficiency": 0.5, "prefill_attention_efficiency": 0.2,
                 "prefill_kernel_factor": 0.8, "prefill_expert_efficiency": 0.99,
                 "prefill_ceiling_tflops": 300.0}
DECODE_START = {"decode_bandwidth_efficiency": 0.7, "kv_read_efficiency": 0.5,
                "decode_token_overhead_s": 1e-3, "decode_kernel_factor": 1.0,
                "decode_memory_factor": 0.9,
                "decode_layer_overhead_s": 1e-5, "layer_split_hop_s": 1e-4, OPS: 5.0, MOE: 1e-5}


def prefill_token_s(r: Rows, c: Constants) -> Array:
    """One prompt token's time on one device, as packs/formulas/measured-throughput.yaml
    computes it (prefill_matmul_s + prefill_attention_s), for constants ``c``."""
    peak = r.prefill_peak_tflops * 1e12
    params = (r.params_compute_per_token - r.prefill_expert_params
              + r.prefill_expert_params / c["prefill_expert_efficiency"])
    token: Array = (2 * params / (peak * c["prefill_compute_efficiency"] * c["prefill_kernel_factor"])
                    + r.prefill_attention_flops / (peak * c["prefill_attention_efficiency"])
                    + 2 * r.params_compute_per_token / (c["prefill_ceiling_tflops"] * 1e12))
    return token


def prefill_rate(r: Rows, c: Constants) -> Array:
    """prefill_tps: tensor-parallel ranks x pipeline speedup / one token's time."""
    rate: Array = r.tensor_parallel * r.pipeline_speedup / prefill_token_s(r, c)
    return rate


def decode_rate(r: Rows, c: Constants, prefill_tflops: Array, host_efficiency: float) -> Array:
    """decode_tps as the pack computes it (decode_step_s), for constants ``c``."""
    bandwidth = r.decode_bandwidth_gbs * 1e9 * c["decode_memory_factor"]
    memory = ((r.decode_weights_gib - r.host_decode_weights_gib) * 2**30
              / (c["decode_bandwidth_efficiency"] * c["decode_kernel_factor"] * bandwidth)
              + r.kv_read_gib * (1 - r.host_layers_share) * r.kv_replication * 2**30
              / (c["kv_read_efficiency"] * bandwidth))
    compute = np.nan_to_num(r.batch * 2 * r.params_compute_per_token
                            / (prefill_tflops * 1e12 * r.tensor_parallel), nan=0.0)
    host = np.where(r.host_decode_weights_gib > 0,
                    (r.host_decode_weights_gib / c["decode_kernel_factor"]
                     + r.kv_read_gib * r.host_layers_share)
                    * 2**30 / (host_efficiency * r.host_bandwidth_gbs * 1e9), 0.0)
    # the per-weight arithmetic at the shader rate, where the hardware pack gives one
    shader = np.where(r.shader_tflops > 0, r.shader_tflops, np.inf) * 1e12 * r.tensor_parallel
    arithmetic = (r.params_compute_per_token * (1 - r.host_layers_share)
                  * c[OPS] * r.decode_vector_batch / shader)
    step = (np.maximum(memory, compute) + arithmetic + r.allreduce_s + c["decode_token_overhead_s"]
            + c["decode_layer_overhead_s"] * r.layers + c[MOE] * r.moe_layers
            + c["layer_split_hop_s"] * (r.layer_stages - 1) + host)
    rate: Array = r.batch / step
    return rate


def predict_prefill(layout: Layout, theta: Array) -> Array:
    return prefill_rate(layout.rows, {k: layout.values(theta, k) for k in PREFILL_CONSTANTS})


def predict_decode(layout: Layout, theta: Array, prefill_tflops: Array) -> Array:
    # the fitted rows hold every weight on the device, so the host term is zero
    constants = {k: layout.values(theta, k) for k in DECODE_CONSTANTS}
    return decode_rate(layout.rows, constants, prefill_tflops, host_efficiency=1.0)
