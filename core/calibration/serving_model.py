"""The serving engines' speed formulas the serving fit inverts, and which constants it has.

vLLM and SGLang run many requests at once. The measured profile
(packs/formulas/measured-throughput.yaml) predicts, for a run of prompts of I tokens and
answers of O tokens with R requests running at once (the concurrency, capped by the KV
cache and the engine's max_num_seqs):

    prompt token   p = 2 x (dense + routed-expert parameters / epsilon) / (F mu psi_k)
                       + attention FLOPs / (F alpha) + 2 x parameters / C   (one device)
    decode step    memory = weight bytes / (eta phi_k rho_m BW) + KV bytes / (kappa rho_m BW)
                   compute = R x p / TP
                   extra = all-reduce + t0 + tau x layers + sigma x MoE layers
    chunk tokens   P = min((R - 1) x I / O, token budget - R)
    TPOT           max(memory, compute + P x p / TP) + extra
    TTFT           chunks x (max(memory, compute + I / chunks x p / TP) + extra)
                   + the wait for queued prompts when the budget binds
    output tok/s   R x O / (TTFT + (O - 1) x TPOT)

with BW the peak memory bandwidth and F the peak dense rate of the device (phi_k and rho_m,
the kernel family's and memory family's decode factors, are llama.cpp's, which serving rows,
all on HBM, cannot separate)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .engine_packs import DONOR
from .rows import Array
from .serving_rows import ServingRows

if TYPE_CHECKING:
    from ..registry.index import Registry

MIN_KERNEL_ROWS = 8
# the constants of the serving block: (key, is a share of at most 1, pulled towards DONOR's)
SCALARS = (("decode_bandwidth_efficiency", True, True), ("kv_read_efficiency", True, True),
           ("decode_token_overhead_s", False, True), ("decode_layer_overhead_s", False, True),
           ("decode_moe_layer_overhead_s", False, True), ("prefill_compute_efficiency", True, True),
           ("prefill_attention_efficiency", True, True), ("prefill_expert_efficiency", True, True),
           ("prefill_ceiling_tflops", False, True),
           ("sequence_overhead_s", False, False), ("request_overhead_s", False, False))
# where the terms no other engine has start (they have no prior: the rows decide them)
FREE_START = {"sequence_overhead_s": 1e-5, "request_overhead_s": 1e-3}
KERNEL_KEY = "prefill_kernel_factor"
Constants = dict[str, Array]


def donor_figure(registry: Registry, key: str, backend: str) -> float:
    """DONOR's fitted figure for ``key`` on ``backend`` (its 'default' where it has none)."""
    figure = getattr(registry.engines[DONOR], key)
    if isinstance(figure, Mapping):
        figure = figure.get(backend) or figure["default"]
    return float(figure.value)


class ServingLayout:
    """The fitted constants of one engine: the scalars, and a prompt kernel factor per
    kernel family with enough rows (the most-measured family's is 1). Each scalar DONOR
    has starts at, and is pulled towards, DONOR's figure for the rows' backend."""

    def __init__(self, rows: ServingRows, registry: Registry):
        counts = Counter(rows.kernel)
        fitted = [k for k, c in counts.most_common() if c >= MIN_KERNEL_ROWS]
        self.reference = fitted[0] if fitted else counts.most_common(1)[0][0]
        self.kernels = [k for k in fitted if k != self.reference]
        self.backend = Counter(rows.backend).most_common(1)[0][0]
        self.names = [key for key, _, _ in SCALARS] + [f"{KERNEL_KEY}.{k}" for k in self.kernels]
        self.start: Array = np.log([donor_figure(registry, key, self.backend) if prior
                                    else FREE_START[key] for key, _, prior in SCALARS]
                                   + [1.0] * len(self.kernels))
        self.prior: Array = np.array([prior for _, _, prior in SCALARS]
                                     + [True] * len(self.kernels))

    def constants(self, theta: Array, rows: ServingRows) -> Constants:
        c = {key: np.full(rows.n, math.exp(theta[i])) for i, (key, _, _) in enumerate(SCALARS)}
        factors = self.kernel_factors(theta)
        c[KERNEL_KEY] = np.array([factors.get(k, factors["default"]) for k in rows.kernel])
        return c

    def kernel_factors(self, theta: Array) -> dict[str, float]:
        factors = {self.reference: 1.0}
        for j, kernel in enumerate(self.kernels):
            factors[kernel] = math.exp(theta[len(SCALARS) + j])
        factors["default"] = math.exp(float(np.mean(np.log(list(factors.values())))))
        return factors


def predict(rows: ServingRows, c: Constants) -> Array:
    """Every row's metric as packs/formulas/measured-throughput.yaml computes it."""
    peak = rows.prefill_peak_tflops * 1e12
    params = (rows.params_compute_per_token - rows.prefill_expert_params
              + rows.prefill_expert_params / c["prefill_expert_efficiency"])
    token_s = (2 * params / (peak * c["prefill_compute_efficiency"] * c[KERNEL_KEY])
               + rows.prefill_attention_flops / (peak * c["prefill_attention_efficiency"])
               + 2 * rows.params_compute_per_token / (c["prefill_ceiling_tflops"] * 1e12))
    prefill_tps = rows.tensor_parallel * rows.pipeline_speedup / token_s
    bandwidth = rows.decode_bandwidth_gbs * 1e9 * rows.decode_memory_factor
    memory = (rows.decode_weights_gib * 2**30
              / (c["decode_bandwidth_efficiency"] * rows.phi * bandwidth)
              + rows.kv_read_gib * rows.kv_replication * 2**30
              / (c["kv_read_efficiency"] * bandwidth))
    running = rows.running_sequences
    compute = running * token_s / rows.tensor_parallel
    extra = (rows.allreduce_s + rows.decode_arithmetic_s + c["decode_token_overhead_s"]
             + c["decode_layer_overhead_s"] * rows.layers
             + c["decode_moe_layer_overhead_s"] * rows.moe_layers
             + c["sequence_overhead_s"] * running)
    prompt, generate, budget = rows.prompt, rows.generate, rows.ubatch_tokens
    decode_step = np.maximum(memory, compute) + extra
    # a closed loop: the others' prompt chunks ride in every decode step
    demand = (running - 1) * prompt / generate
    chunk = np.minimum(demand, np.maximum(budget - running, 1))
    tpot = np.maximum(memory, compute + chunk / prefill_tps) + extra
    chunks = np.ceil(prompt / budget)
    with np.errstate(divide="ignore", invalid="ignore"):
        wait = np.where(demand > chunk, (generate - 1) * tpot * (demand / chunk - 1), 0.0)
    ttft = chunks * (np.maximum(memory, compute + prompt / chunks / prefill_tps) + extra) + wait
    closed_request = ttft + (generate - 1) * tpot
    # a burst: waves of the running requests, each its prompts and then its answers
    waves = rows.batch / running
    passes = np.maximum(running * prompt / budget, 1)
    pass_s = np.maximum(memory, running * prompt / passes / prefill_tps) + extra
    prefill = passes * pass_s
    wave = prefill + (generate - 1) * decode_step
    # the k-th of a wave's R prompts is done after k R-ths of its passes
    phase = np.minimum(passes * (running - 1) / (2 * running), generate - 1)
    burst_tpot = ((phase * pass_s + (generate - 1 - phase) * decode_step)
                  / np.maximum(generate - 1, 1))
    burst_ttft = (waves - 1) / 2 * wave + prefill * (running + 1) / (2 * running)
    burst = rows.arrival == 1
    tpot = np.where(burst, burst_tpot, tpot)
    ttft = np.where(burst, burst_ttft, ttft)
    output = generate / (np.where(burst, wave, closed_request) / running + c["request_overhead_s"])
    decode = running / decode_step
    by_metric = {"output_tps": output, "total_tps": output * (prompt + generate) / generate,
                 "tpot_ms": tpot * 1000, "ttft_ms": ttft * 1000, "decode_tps": decode,
                 "prefill_tps": prefill_tps}
    predicted: Array = np.array([by_metric[m][i] for i, m in enumerate(rows.metric)])
    return predicted
