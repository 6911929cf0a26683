"""Fit the measured profile's speed constants to public measurements, and cross-validate.

The measured profile (packs/formulas/measured-throughput.yaml) predicts, for engine e,
hardware backend b, the weight format's kernel family k and the device's memory family m:

    decode step   = on-device share x (weight bytes / (eta_b phi_k rho_m BW)
                                       + KV bytes / (kappa_b rho_m BW))
                    + active parameters x omega_b x min(batch, V) / S
                    + t0_b + tau_b x layers + sigma_b x mixture-of-experts layers
                    + hop x (devices of a layer split - 1)
                    + all-reduce + the share served from system RAM
                    (or the batch's arithmetic, if that takes longer than the bytes)
    prefill token = 2 x (dense + routed-expert parameters / epsilon) / (F mu_b psi_k)
                    + attention FLOPs / (F alpha_b)
    prefill tok/s = tensor-parallel ranks x pipeline speedup / prefill token

with BW the peak memory bandwidth and F the dense FP16 tensor rate of the device, S its
shader (non-tensor FP32) rate where its pack gives one (else that term is 0), and V the
largest batch the engine's matrix-vector kernels take (decode_vector_batch_max). The shader
figure omega_b and the routing overhead sigma_b of a MoE layer are fitted for the backends
whose rows have the term (a shader rate, a MoE model); the others get their row-weighted
mean. This
script

1. evaluates the scenario of every row of packs/measurements/ with fitproof (bytes,
   FLOPs, bandwidth, peak rate, pipeline speedup: everything but the constants);
2. fits the constants of each engine by robust least squares (scipy, soft L1) on
   log(predicted / measured), prefill first (decode's compute bound uses its rate);
3. cross-validates: the devices of each backend are dealt alternately into two halves,
   the constants are fitted on one half and scored on the other, and the other way round,
   over REPEATS shuffles of the devices, pooled;
4. takes each backend's error band, the 10th and 90th percentile of measured / predicted
   over the held-out rows;
5. with --write, writes the constants fitted on all rows into the fitted block of each
   engine pack (packs/engines/*.yaml), every figure naming the rows it was fitted on and
   its residual, then checks that fitproof's formulas reproduce this script's predictions.

A backend gets its own efficiency and overhead with at least MIN_BACKEND_ROWS rows of a
metric on at least two devices; the others use the key 'default', the pooled figure. Each
backend's share (an efficiency) is tied to the pooled one by a quadratic prior
(PRIOR_LOG_SD), so a share its rows do not pin down (a KV read efficiency where no row
reads a deep cache) takes the pooled figure instead of drifting; overheads, near 0 on most
backends, are left free: the pooled overhead is fitted on the rows of backends without
figures of their own or, if every row's backend has its own, is their row-weighted
geometric mean. A kernel family gets its own factor with at least
MIN_KERNEL_ROWS rows; every share is at most 1, the best-measured family's factor is 1 (the
split between a backend's efficiency and a family's factor is otherwise free), and 'default'
(for families without measurements) is the row-weighted geometric mean of the fitted
families. A memory family (hbm, lpddr, ddr: the hardware pack's memory_family) gets a
factor rho relative to gddr with at least MIN_KERNEL_ROWS rows on two devices; the others,
and devices whose pack names no family, get 1. An engine without measurement rows of its own gets the figures of DONOR, each
saying so, until rows of it are added.

Run: python benchmarks/fit_speed.py [--write] [--rows]
"""

from __future__ import annotations

import argparse
import hashlib
import math
import re
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fitproof  # noqa: E402
from fitproof.accuracy import IDENTICAL_MOE_BATCH, measurement_scenarios, outside_model  # noqa: E402
from fitproof.estimation import Batch  # noqa: E402

MIN_BACKEND_ROWS = 5
DONOR = "llama.cpp"  # stands in for engines without measurements
MIN_ENGINE_ROWS = 30   # decode rows on at least two devices for an engine's own fit
MIN_KERNEL_ROWS = 10
REFERENCE_MEMORY = "gddr"  # the memory family whose factor is 1 (the one most rows were measured on)
GIB_GB = 2**30 / 1e9
LOSS_SCALE = 0.1  # soft L1: residuals beyond ~10 % count linearly, not squared
# A backend's share of a peak rate is a deviation from the pooled share of all backends,
# and the deviation (in log) costs what one row mispredicted by deviation / PRIOR_LOG_SD
# costs while that error is small: a share its rows pin down is theirs, one they do not (a
# KV read efficiency without deep contexts) stays at the pooled figure instead of drifting
PRIOR_LOG_SD = 1.0
COLUMNS = ("decode_weights_gib", "kv_read_gib", "kv_replication", "decode_bandwidth_gbs",
           "gpu_share", "layer_stages", "allreduce_s", "params_compute_per_token",
           "prefill_attention_flops", "prefill_expert_params", "prefill_peak_tflops", "pipeline_speedup",
           "tensor_parallel", "prefill_tflops", "host_layers_share", "host_decode_weights_gib",
           "host_bandwidth_gbs", "decode_vector_batch", "decode_depth", "prompt")
DECODE_KEYS = ("decode_bandwidth_efficiency", "kv_read_efficiency", "decode_token_overhead_s",
               "decode_layer_overhead_s")
PREFILL_KEYS = ("prefill_compute_efficiency", "prefill_attention_efficiency", "prefill_ceiling_tflops",
                "prefill_expert_efficiency")
OPS = "decode_ops_per_weight"  # keyed by the backends whose rows have a shader rate
MOE = "decode_moe_layer_overhead_s"  # keyed by the backends whose rows run a mixture of experts
# the rows each such term informs, and how a figure's source names them
TERM_ROWS = {OPS: lambda rows: rows.shader_tflops > 0, MOE: lambda rows: rows.moe_layers > 0}
TERM_TEXT = {OPS: "whose pack gives shader_tflops", MOE: "that run a mixture-of-experts model"}
HOST_BACKEND = "cpu"  # offloaded weights are read by the engine's CPU backend  # keyed by backend in the schema, fitted once


class Rows:
    """The measurement rows of one engine and metric, as arrays of what fitproof computes."""

    def __init__(self, items: list[dict]):
        self.items = items
        self.n = len(items)
        for name in COLUMNS + ("value", "layers", "moe_layers", "batch", "shader_tflops"):
            setattr(self, name, np.array([item[name] for item in items], dtype=float))
        self.backend = [item["backend"] for item in items]
        self.kernel = [item["kernel"] for item in items]
        self.memory = [item["memory"] for item in items]
        self.hardware = [item["hardware"] for item in items]
        self.source = [item.get("source", "") for item in items]

    def subset(self, mask) -> "Rows":
        return Rows([item for item, keep in zip(self.items, mask) if keep])


def load(registry, apart: bool = False) -> dict[tuple[str, str], Rows]:
    """Every measurement row with its scenario's features, by (engine, metric): the rows whose
    workload the profile models, or with ``apart`` the batches of identical sequences
    (fitproof.accuracy.outside_model; rows with experts kept on the host are left to
    fitproof validate, whose formulas have the host-copy term this script does not fit),
    which fit no constant and are scored apart."""
    entries, scenarios = measurement_scenarios(registry)
    batch = Batch(registry, scenarios)
    columns = {name: batch.values(name) for name in COLUMNS}
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for i, (pack, index, row) in enumerate(entries):
        reason = outside_model(registry, row)
        if bool(reason) != apart or (apart and reason != IDENTICAL_MOE_BATCH):
            continue  # rows of another workload (experts on the host) only validate scores
        scenario = scenarios[i]
        item = {name: (math.nan if columns[name][i] is None else columns[name][i])
                for name in COLUMNS}
        model = registry.models[scenario.model]
        shader = registry.hardware[scenario.hardware].shader_tflops
        item.update(value=row.value, layers=float(model.num_hidden_layers.value),
                    moe_layers=float(model.moe_layers.value) if model.moe_layers else 0.0,
                    shader_tflops=0.0 if shader is None else float(shader.value),
                    batch=float(scenario.inputs["batch"]),
                    backend=scenario.backend or registry.hardware[scenario.hardware].backend or "other",
                    kernel=registry.quant_formats[scenario.quant][0].kernel or "float",
                    memory=registry.hardware[scenario.hardware].memory_family or "",
                    hardware=scenario.hardware, model=scenario.model, quant=scenario.quant,
                    location=pack.pack.at("rows", index), metric=row.metric,
                    source=row.source.split("#")[0])
        groups[(scenario.engine, row.metric)].append(item)
    return {key: Rows(items) for key, items in groups.items()}


class Layout:
    """Which constants a fit has: per-backend and per-kernel groups and their positions."""

    def __init__(self, rows: Rows, keys: tuple[str, ...], kernel_name: str,
                 shared: tuple[str, ...], memory_name: str | None = None):
        kernels = Counter(rows.kernel)
        self.kernels = sorted(k for k, c in kernels.items() if c >= MIN_KERNEL_ROWS)
        if not self.kernels:  # too few rows of any family: one factor for all
            self.kernels = [kernels.most_common(1)[0][0]]
        self.kernel_of = [k if k in self.kernels else None for k in rows.kernel]
        # only rows the fit uses (a fitted kernel family) count towards a backend's own
        # constants
        usable = [k is not None for k in self.kernel_of]
        counts = Counter(b for b, use in zip(rows.backend, usable) if use)
        devices = defaultdict(set)
        for backend, hardware, use in zip(rows.backend, rows.hardware, usable):
            if use:
                devices[backend].add(hardware)
        self.backends = sorted(b for b, c in counts.items()
                               if c >= MIN_BACKEND_ROWS and len(devices[b]) >= 2)
        if not self.backends:  # too few rows anywhere: one pooled set
            self.backends = ["default"]
        self.backend_of = [b if b in self.backends else self.backends[0] if len(self.backends) == 1
                           else "default" for b in rows.backend]
        # with several backends, 'default' is the pooled figure: each backend's own share is
        # tied to it by the prior (PRIOR_LOG_SD), and rows of backends without figures of
        # their own, like backends never measured, use it
        if len(self.backends) > 1 and "default" not in self.backends:
            self.backends.append("default")
        # memory families with enough rows on at least two devices get a factor relative to
        # the reference family; the others (and devices whose pack names none) get none
        self.memory_name = memory_name
        family_devices = defaultdict(set)
        for family, hardware in zip(rows.memory, rows.hardware):
            family_devices[family].add(hardware)
        families = Counter(rows.memory)
        self.memories = sorted(f for f, c in families.items()
                               if memory_name and f and f != REFERENCE_MEMORY
                               and c >= MIN_KERNEL_ROWS and len(family_devices[f]) >= 2)
        self.memory_of = [f if f in self.memories else None for f in rows.memory]
        self.keys, self.kernel_name, self.shared = keys, kernel_name, shared
        self.index: dict[tuple[str, str], int] = {}
        for key in keys:
            for backend in self.backends:
                self.index[(key, backend)] = len(self.index)
        # terms only some rows have: the shader arithmetic (rows on devices whose pack gives a
        # shader rate) and the routing of a mixture-of-experts layer (rows of MoE models); a
        # backend gets its own figure if its rows include such rows, the others the
        # row-weighted mean of those figures
        self.sparse_rows: dict[str, np.ndarray] = {}
        self.sparse_backends: dict[str, list[str]] = {}
        if memory_name:  # the decode layout
            for key, informed in ((OPS, getattr(rows, "shader_tflops", np.zeros(rows.n)) > 0),
                                  (MOE, getattr(rows, "moe_layers", np.zeros(rows.n)) > 0)):
                self.sparse_rows[key] = informed & np.array(usable)
                self.sparse_backends[key] = sorted(
                    {b for b, use in zip(self.backend_of, self.sparse_rows[key]) if use})
                for backend in self.sparse_backends[key]:
                    self.index[(key, backend)] = len(self.index)
        for kernel in self.kernels:
            self.index[(kernel_name, kernel)] = len(self.index)
        for family in self.memories:
            self.index[(memory_name, family)] = len(self.index)
        for key in shared:
            self.index[(key, "default")] = len(self.index)
        self.rows = rows

    def mean(self, theta: np.ndarray, key: str, groups) -> float | None:
        """The row-weighted geometric mean of ``key`` over the groups (backends, or kernel
        families) the rows ``groups`` names, one entry per row; None for no rows."""
        counts = Counter(groups)
        total = sum(counts.values())
        if not total:
            return None
        return math.exp(sum(count * theta[self.index[(key, g)]] for g, count in counts.items())
                        / total)

    def sparse(self, theta: np.ndarray, key: str, backend: str) -> float:
        """A term only some rows have (OPS, MOE) on ``backend``: its own figure, else the
        mean of the backends' figures weighted by their rows with the term (0 if none has)."""
        if backend in self.sparse_backends.get(key, ()):
            return math.exp(theta[self.index[(key, backend)]])
        if key not in self.sparse_rows:
            return 0.0
        pooled = self.mean(theta, key, (b for b, use in zip(self.backend_of, self.sparse_rows[key])
                                        if use))
        return 0.0 if pooled is None else pooled

    def usable(self) -> np.ndarray:
        return np.array([k is not None for k in self.kernel_of])

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.index)

    def values(self, theta: np.ndarray, key: str) -> np.ndarray:
        """The constant ``key`` for every row (1 for a kernel family without a factor)."""
        out = np.ones(self.rows.n)
        if key in (OPS, MOE):
            per_backend = {b: self.sparse(theta, key, b) for b in set(self.backend_of)}
            return np.array([per_backend[b] for b in self.backend_of])
        if not self.has(key):  # a term this fit has no rows for
            return np.full(self.rows.n, neutral(key))
        for i in range(self.rows.n):
            if key == self.kernel_name:
                kernel = self.kernel_of[i]
                out[i] = 1.0 if kernel is None else math.exp(theta[self.index[(key, kernel)]])
            elif key == self.memory_name:
                family = self.memory_of[i]
                out[i] = 1.0 if family is None else math.exp(theta[self.index[(key, family)]])
            elif key in self.shared:
                out[i] = math.exp(theta[self.index[(key, "default")]])
            else:
                out[i] = math.exp(theta[self.index[(key, self.backend_of[i])]])
        return out


PREFILL_CONSTANTS = ("prefill_compute_efficiency", "prefill_attention_efficiency",
                     "prefill_kernel_factor", "prefill_expert_efficiency", "prefill_ceiling_tflops")
DECODE_CONSTANTS = ("decode_bandwidth_efficiency", "decode_kernel_factor", "decode_memory_factor",
                    "kv_read_efficiency",
                    "decode_token_overhead_s", "decode_layer_overhead_s", "layer_split_hop_s",
                    OPS, MOE)


def prefill_token_s(r: Rows, c: dict[str, np.ndarray]) -> np.ndarray:
    """One prompt token's time on one device, as packs/formulas/measured-throughput.yaml
    computes it (prefill_matmul_s + prefill_attention_s), for constants ``c``."""
    peak = r.prefill_peak_tflops * 1e12
    params = (r.params_compute_per_token - r.prefill_expert_params
              + r.prefill_expert_params / c["prefill_expert_efficiency"])
    return (2 * params / (peak * c["prefill_compute_efficiency"] * c["prefill_kernel_factor"])
            + r.prefill_attention_flops / (peak * c["prefill_attention_efficiency"])
            + 2 * r.params_compute_per_token / (c["prefill_ceiling_tflops"] * 1e12))


def prefill_rate(r: Rows, c: dict[str, np.ndarray]) -> np.ndarray:
    """prefill_tps: tensor-parallel ranks x pipeline speedup / one token's time."""
    return r.tensor_parallel * r.pipeline_speedup / prefill_token_s(r, c)


def decode_rate(r: Rows, c: dict[str, np.ndarray], prefill_tflops: np.ndarray,
                host_efficiency: float) -> np.ndarray:
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
    return r.batch / step


def predict_prefill(layout: Layout, theta: np.ndarray) -> np.ndarray:
    return prefill_rate(layout.rows, {k: layout.values(theta, k) for k in PREFILL_CONSTANTS})


def predict_decode(layout: Layout, theta: np.ndarray, prefill_tflops: np.ndarray) -> np.ndarray:
    # the fitted rows hold every weight on the device, so the host term is zero
    constants = {k: layout.values(theta, k) for k in DECODE_CONSTANTS}
    return decode_rate(layout.rows, constants, prefill_tflops, host_efficiency=1.0)


PREFILL_START = {"prefill_compute_efficiency": 0.5, "prefill_attention_efficiency": 0.2,
                 "prefill_kernel_factor": 0.8, "prefill_expert_efficiency": 0.99,
                 "prefill_ceiling_tflops": 300.0}
DECODE_START = {"decode_bandwidth_efficiency": 0.7, "kv_read_efficiency": 0.5,
                "decode_token_overhead_s": 1e-3, "decode_kernel_factor": 1.0,
                "decode_memory_factor": 0.9,
                "decode_layer_overhead_s": 1e-5, "layer_split_hop_s": 1e-4, OPS: 5.0, MOE: 1e-5}


# shares of a peak rate cannot exceed 1; overheads are only kept positive
SHARES = {"decode_bandwidth_efficiency", "decode_kernel_factor", "kv_read_efficiency",
          "decode_memory_factor",
          "prefill_compute_efficiency", "prefill_kernel_factor", "prefill_attention_efficiency",
          "prefill_expert_efficiency"}
# rates no faster device passes: tied to the pooled figure as the shares are
CEILINGS = {"prefill_ceiling_tflops"}
# efficiency x kernel factor: the split between the two is free, so the best-measured
# family's factor is set to 1 after the fit
PAIRS = {"decode_kernel_factor": "decode_bandwidth_efficiency",
         "prefill_kernel_factor": "prefill_compute_efficiency"}


def neutral(key: str) -> float:
    """The value of a term no row informs: a share of 1, an overhead of 0."""
    return 1.0 if key in SHARES else math.inf if key in CEILINGS else 0.0


def prior_residuals(deviation: np.ndarray) -> np.ndarray:
    """Residuals whose soft-L1 cost is deviation squared, as a row with that log error costs
    while it is small: a quadratic (Gaussian) prior, which pulls a well-measured share
    by a fraction of a percent and an unmeasured one all the way to the pooled figure."""
    w = (deviation / LOSS_SCALE) ** 2
    return deviation * np.sqrt(1 + w / 4)


def _fit(layout: Layout, start: dict[str, float], predict) -> np.ndarray:
    keys = [key for key, _ in layout.index]
    upper = np.array([0.0 if key in SHARES else np.inf for key in keys])
    theta0 = np.minimum(np.array([math.log(start[key]) for key in keys]), upper - 1e-3)
    mask = layout.usable()

    # the prior: each backend's share against the pooled one ('default'); an overhead, which
    # is near 0 for most backends, is left free
    tied = [(i, layout.index[(key, "default")]) for (key, backend), i in layout.index.items()
            if key in layout.keys and key in SHARES | CEILINGS and backend != "default"
            and (key, "default") in layout.index]
    own = np.array([i for i, _ in tied], dtype=int)
    pooled = np.array([j for _, j in tied], dtype=int)

    def residuals(theta):
        data = np.log(predict(layout, theta)[mask] / layout.rows.value[mask])
        return np.concatenate([data, prior_residuals((theta[own] - theta[pooled]) / PRIOR_LOG_SD)])

    theta = least_squares(residuals, theta0, bounds=(np.full(len(keys), -np.inf), upper),
                          loss="soft_l1", f_scale=LOSS_SCALE).x
    # a pooled overhead no row informs (every backend has its own): the row-weighted
    # geometric mean of the backends' overheads
    pooled_rows = mask & np.array([b == "default" for b in layout.backend_of])
    if not pooled_rows.any():
        for key in layout.keys:
            if key not in SHARES | CEILINGS and (key, "default") in layout.index:
                pooled = layout.mean(theta, key, (b for b, use in zip(layout.backend_of, mask)
                                                  if use))
                if pooled is not None:
                    theta[layout.index[(key, "default")]] = math.log(pooled)
    factor = layout.kernel_name
    top = max(theta[layout.index[(factor, k)]] for k in layout.kernels)
    for (key, _), i in layout.index.items():
        if key == factor:
            theta[i] -= top
        elif key == PAIRS[factor]:
            theta[i] += top
    return theta


class Fit:
    """The constants of one engine: prefill and decode layouts with their parameters."""

    def __init__(self, prefill: Rows | None, decode: Rows | None):
        self.prefill = self.decode = None
        if prefill is not None and prefill.n:
            prefill = prefill.subset(np.isfinite(prefill.prefill_peak_tflops))
        if prefill is not None and prefill.n:
            self.prefill = Layout(prefill, PREFILL_KEYS, "prefill_kernel_factor", ())
            self.prefill_theta = _fit(self.prefill, PREFILL_START, predict_prefill)
        if decode is not None and decode.n:
            decode = decode.subset(decode.gpu_share >= 1)
        if decode is not None and decode.n:
            shared = ("layer_split_hop_s",) if np.any(decode.layer_stages > 1) else ()
            self.decode = Layout(decode, DECODE_KEYS, "decode_kernel_factor", shared,
                                 "decode_memory_factor")
            rates = self.prefill_tflops(decode)
            self.decode_theta = _fit(self.decode, DECODE_START,
                                     lambda layout, theta: predict_decode(layout, theta, rates))

    def constant(self, key: str, backend: str, kernel: str, layout: Layout, theta,
                 memory: str = "") -> float:
        if key in (OPS, MOE):
            return layout.sparse(theta, key, backend)
        if key == layout.memory_name:
            if memory in layout.memories:
                return math.exp(theta[layout.index[(key, memory)]])
            return 1.0  # the reference family, or a device whose pack names none
        if not layout.has(key):
            return neutral(key)
        if key == layout.kernel_name:
            if kernel in layout.kernels:
                return math.exp(theta[layout.index[(key, kernel)]])
            return self.default_kernel(layout, theta)
        if key in layout.shared:
            return math.exp(theta[layout.index[(key, "default")]])
        if backend in layout.backends:
            return math.exp(theta[layout.index[(key, backend)]])
        return self.default_backend(layout, theta, key)

    @staticmethod
    def default_backend(layout: Layout, theta, key: str) -> float:
        if "default" in layout.backends:
            return math.exp(theta[layout.index[(key, "default")]])
        return layout.mean(theta, key, (b for b in layout.backend_of if b in layout.backends))

    @staticmethod
    def default_kernel(layout: Layout, theta) -> float:
        pooled = layout.mean(theta, layout.kernel_name,
                             (k for k in layout.kernel_of if k is not None))
        return 1.0 if pooled is None else pooled

    def _constants_for(self, rows: Rows, layout: Layout, theta, keys) -> dict[str, np.ndarray]:
        return {key: np.array([self.constant(key, b, k, layout, theta, m)
                               for b, k, m in zip(rows.backend, rows.kernel, rows.memory)])
                for key in keys}

    def host_efficiency(self) -> float:
        """Share of a host's bandwidth the CPU path reaches: the cpu backend's efficiency."""
        return self.constant("decode_bandwidth_efficiency", HOST_BACKEND, "", self.decode,
                             self.decode_theta)

    def prefill_tflops(self, rows: Rows) -> np.ndarray:
        """Achieved compute per device (2 FLOP per parameter per token) on ``rows``."""
        if self.prefill is None:
            return rows.prefill_tflops
        token = self._prefill_token_s(rows)
        fitted = 2 * rows.params_compute_per_token / token / 1e12
        # a device without a datasheet rate runs at the measured rate its pack states
        return np.where(np.isfinite(rows.prefill_peak_tflops), fitted, rows.prefill_tflops)

    def _prefill_constants(self, rows: Rows) -> dict[str, np.ndarray]:
        return self._constants_for(rows, self.prefill, self.prefill_theta, PREFILL_CONSTANTS)

    def _prefill_token_s(self, rows: Rows) -> np.ndarray:
        return prefill_token_s(rows, self._prefill_constants(rows))

    def predict(self, rows: Rows, metric: str) -> np.ndarray:
        """Predictions for any rows (held-out ones included) with these constants."""
        if metric == "prefill_tps":
            if self.prefill is None:
                return np.full(rows.n, np.nan)
            return prefill_rate(rows, self._prefill_constants(rows))
        if self.decode is None:
            return np.full(rows.n, np.nan)
        c = self._constants_for(rows, self.decode, self.decode_theta, DECODE_CONSTANTS)
        return decode_rate(rows, c, self.prefill_tflops(rows), self.host_efficiency())


REPEATS = 20  # device splits the cross-validation averages over
PROFILE = "measured"  # the profile whose formulas these constants are fitted for


def folds(rows: Rows, repeat: int) -> np.ndarray:
    """Fold (0 or 1) of every row in split ``repeat``: each backend's devices, in an order
    drawn from a hash of (repeat, device id), dealt alternately. Both folds hold about half
    of every backend, and the splits do not depend on the order rows are read in."""
    def key(device: str) -> str:
        return hashlib.sha256(f"{repeat}:{device}".encode()).hexdigest()

    fold_of = {}
    for backend in sorted(set(rows.backend)):
        devices = sorted({h for h, b in zip(rows.hardware, rows.backend) if b == backend}, key=key)
        for i, device in enumerate(devices):
            fold_of[device] = i % 2
    return np.array([fold_of[h] for h in rows.hardware])


SOURCE_REPEATS = 5  # source splits the by-source cross-validation averages over


def source_folds(rows: Rows, repeat: int) -> np.ndarray:
    """Fold (0 or 1) of every row in source split ``repeat``: the pages the rows were
    copied from, in an order drawn from a hash of (repeat, page), dealt alternately, so
    rows of one page (which share its builds and settings) are never on both sides."""
    def key(page: str) -> str:
        return hashlib.sha256(f"{repeat}:{page}".encode()).hexdigest()

    pages = sorted(set(rows.source), key=key)
    fold_of = {page: i % 2 for i, page in enumerate(pages)}
    return np.array([fold_of[p] for p in rows.source])


def stats(ratios: np.ndarray) -> tuple[int, float, float, float] | None:
    """Row count, MAPE, median APE and median ratio (None for no ratio); ``ratios`` is one
    ratio per row, or one line of them per device split (then every split's ratios are
    pooled, the count is rows)."""
    rows = int(np.isfinite(ratios).any(axis=0).sum()) if ratios.ndim > 1 else None
    ratios = ratios[np.isfinite(ratios)]
    if not len(ratios):
        return None
    apes = np.abs(ratios - 1)
    count = rows if rows is not None else len(ratios)
    return count, float(apes.mean()), float(np.median(apes)), float(np.median(ratios))


def summary(ratios: np.ndarray) -> str:
    """stats() as a line of the printed tables."""
    scored = stats(ratios)
    if scored is None:
        return f"{0:5d}  {'n/a':>6}  {'n/a':>10}  {'n/a':>16}"
    count, mape, median, ratio = scored
    return f"{count:5d}  {100 * mape:4.1f} %  {100 * median:8.1f} %  {ratio:16.2f}"


def groups_of(registry, rows: Rows) -> list[tuple[str, np.ndarray]]:
    """The groups the held-out error is reported for: all rows, dense and MoE models,
    discrete and unified-memory devices, each backend."""
    groups = [("all", np.ones(rows.n, dtype=bool))]
    for label, test in (("dense", lambda i: not _moe(registry, rows.items[i])),
                        ("moe", lambda i: _moe(registry, rows.items[i])),
                        ("discrete", lambda i: not registry.hardware[rows.hardware[i]].unified_memory),
                        ("unified", lambda i: registry.hardware[rows.hardware[i]].unified_memory)):
        groups.append((label, np.array([bool(test(i)) for i in range(rows.n)])))
    for backend in sorted(set(rows.backend)):
        groups.append((backend, np.array([b == backend for b in rows.backend])))
    # the tokens already in the cache a decode step reads, or a prompt's length
    depth = rows.decode_depth if rows.items and rows.items[0]["metric"] == "decode_tps" \
        else rows.prompt
    for label, low, high in DEPTH_BANDS:
        groups.append((label, (depth > low) & (depth <= high)))
    return groups


# depth bands the held-out error is reported for: (label, above, at most) tokens
DEPTH_BANDS = (("depth<=4K", -1, 4096), ("depth4-16K", 4096, 16384),
               ("depth>16K", 16384, math.inf))


HEADER = ("metric       rows on       rows    MAPE  median APE  median pred/meas\n"
          "-----------  ----------  -----  ------  ----------  ----------------")


def cross_validate(data: dict[tuple[str, str], Rows], engine: str):
    """Held-out predicted / measured ratios per metric, one line of them per device split
    (REPEATS lines): in each split every row is predicted by constants fitted without its
    device."""
    return _held_out(data, engine, REPEATS, folds, "hardware")


def cross_validate_by_source(data: dict[tuple[str, str], Rows], engine: str):
    """As cross_validate, the rows dealt by the page they were copied from instead of the
    device (SOURCE_REPEATS splits): a page's rows share its builds and settings."""
    return _held_out(data, engine, SOURCE_REPEATS, source_folds, "source")


def _held_out(data: dict[tuple[str, str], Rows], engine: str, repeats: int, fold_rows,
              unit: str):
    """Ratios of rows predicted without their ``unit`` (a row attribute: hardware or
    source), ``repeats`` two-fold splits drawn by ``fold_rows``; one split serves both
    metrics, so a device (or page) is in the same fold in prefill and decode."""
    prefill, decode = data.get((engine, "prefill_tps")), data.get((engine, "decode_tps"))
    held = {metric: np.full((repeats, rows.n), np.nan)
            for metric, rows in (("prefill_tps", prefill), ("decode_tps", decode)) if rows is not None}
    for repeat in range(repeats):
        fold_of: dict[str, int] = {}
        for rows in (r for r in (prefill, decode) if r is not None):
            for u, f in zip(getattr(rows, unit), fold_rows(rows, repeat)):
                fold_of.setdefault(u, f)
        for f in (0, 1):
            train_p = prefill.subset([fold_of[u] != f for u in getattr(prefill, unit)]) if prefill else None
            train_d = decode.subset([fold_of[u] != f for u in getattr(decode, unit)]) if decode else None
            fit = Fit(train_p, train_d)
            for metric, rows in (("prefill_tps", prefill), ("decode_tps", decode)):
                if rows is None:
                    continue
                test = np.array([fold_of[u] == f for u in getattr(rows, unit)])
                held[metric][repeat, test] = (fit.predict(rows, metric) / rows.value)[test]
    return held


def band(ratios_pred_over_meas: np.ndarray) -> tuple[float, float]:
    """10th and 90th percentiles of measured / predicted, every split's ratios pooled."""
    measured_over_predicted = 1 / ratios_pred_over_meas[np.isfinite(ratios_pred_over_meas)]
    return (float(np.percentile(measured_over_predicted, 10)),
            float(np.percentile(measured_over_predicted, 90)))


def significant(value: float, digits: int = 4) -> float:
    if value == 0:
        return 0.0
    return float(f"{value:.{digits}g}")


def pack_block(engine: str, fit: Fit, data, held, bands, scores) -> str:
    """The YAML of the fitted block of engine ``engine``; ``scores`` are the held-out
    (metric, group, stats) that fitproof validate prints from it."""
    lines = []
    sources = sorted({item["location"].split(":")[0] for rows in data.values() for item in rows.items})

    def rows_text(metric: str, backend: str | None = None, kernel: str | None = None,
                  memory: str | None = None, term: str | None = None) -> tuple[int, str]:
        rows = data[(engine, metric)]
        mask = np.ones(rows.n, dtype=bool)
        if term is not None:  # the rows a term only some rows have informs
            mask &= TERM_ROWS[term](rows)
        if metric == "decode_tps":
            mask &= rows.gpu_share >= 1
        if metric == "prefill_tps":
            mask &= np.isfinite(rows.prefill_peak_tflops)
        if backend is not None:
            mask &= np.array([b == backend for b in rows.backend])
        if kernel is not None:
            mask &= np.array([k == kernel for k in rows.kernel])
        if memory is not None:
            mask &= np.array([m == memory for m in rows.memory])
        predicted = fit.predict(rows, metric)
        residual = np.log(predicted[mask] / rows.value[mask])
        rms = float(np.sqrt(np.mean(residual ** 2))) if mask.any() else math.nan
        return int(mask.sum()), f"RMS log residual {rms:.3f}"

    def figure(key: str, value: float, metric: str, backend: str | None, kernel: str | None,
               what: str, memory: str | None = None) -> list[str]:
        count, residual = rows_text(metric, backend, kernel, memory)
        which = [f"{metric} rows of {engine}"]
        if backend:
            which.append(f"on {backend} devices")
        if kernel:
            which.append(f"with {kernel} weights")
        if memory:
            which.append(f"on {memory} memory")
        source = (f"fit: python benchmarks/fit_speed.py over the {count} {' '.join(which)} in "
                  + ", ".join(sources) + " (fitted jointly with the other constants)")
        return [f"    value: {significant(value)}", f'    source: "{source}"',
                f'    note: "{what}; {residual} over those rows"', "    approximate: true"]

    def keyed(key: str, layout: Layout, theta, metric: str, by: str) -> None:
        lines.append(f"{key}:")
        if by == "backend":
            for backend in layout.backends:
                if backend == "default":
                    continue
                lines.append(f"  {backend}:")
                body = figure(key, math.exp(theta[layout.index[(key, backend)]]), metric,
                              backend, None, "fitted")
                lines.extend(body)
            lines.append("  default:")
            value = fit.default_backend(layout, theta, key)
            count, _ = rows_text(metric)
            lines.extend([f"    value: {significant(value)}",
                          f'    source: "fit: python benchmarks/fit_speed.py ({count} {metric} rows of {engine})"',
                          '    note: "backends without enough measurements of their own: the row-weighted geometric mean of the fitted backends\' figures"'
                          if "default" not in layout.backends else
                          '    note: "fitted on the rows of backends with too few measurements of their own"',
                          "    approximate: true"])
        elif by == "memory":
            for family in layout.memories:
                lines.append(f"  {family}:")
                lines.extend(figure(key, math.exp(theta[layout.index[(key, family)]]), metric,
                                    None, None, f"fitted, relative to {REFERENCE_MEMORY}", family))
            lines.append(f"  {REFERENCE_MEMORY}:")
            lines.extend(["    value: 1.0",
                          '    source: "fit: python benchmarks/fit_speed.py (the reference family)"',
                          f'    note: "the other families\' factors are relative to {REFERENCE_MEMORY}"'])
            lines.append("  default:")
            lines.extend(["    value: 1.0",
                          '    source: "fit: python benchmarks/fit_speed.py"',
                          '    note: "families without enough measurements on two devices, and devices whose pack names none: no factor"'])
        else:
            for kernel in layout.kernels:
                lines.append(f"  {kernel}:")
                body = figure(key, math.exp(theta[layout.index[(key, kernel)]]), metric, None,
                              kernel, "fitted")
                lines.extend(body)
            lines.append("  default:")
            lines.extend([f"    value: {significant(fit.default_kernel(layout, theta))}",
                          '    source: "fit: python benchmarks/fit_speed.py"',
                          '    note: "kernel families without enough measurements: the row-weighted geometric mean of the fitted families\' factors"',
                          "    approximate: true"])

    def sparse_block(key: str, layout: Layout, theta) -> None:
        """A term only some rows have (OPS, MOE): a figure for each backend with such rows."""
        if not layout.sparse_backends.get(key):
            return
        lines.append(f"{key}:")
        for backend in layout.sparse_backends[key]:
            count, residual = rows_text("decode_tps", backend, term=key)
            lines.extend([f"  {backend}:",
                          f"    value: {significant(layout.sparse(theta, key, backend))}",
                          f'    source: "fit: python benchmarks/fit_speed.py over the {count} '
                          f'decode_tps rows of {engine} on {backend} devices {TERM_TEXT[key]}, in '
                          + ", ".join(sources) + '"',
                          f'    note: "fitted jointly with the other constants; {residual} over those rows"',
                          "    approximate: true"])
        count, _ = rows_text("decode_tps", term=key)
        lines.extend(["  default:", f"    value: {significant(layout.sparse(theta, key, 'default'))}",
                      f'    source: "fit: python benchmarks/fit_speed.py ({count} decode_tps rows of '
                      f'{engine} on devices {TERM_TEXT[key]})"',
                      '    note: "backends without such rows: the row-weighted geometric mean of the '
                      'fitted backends\' figures"',
                      "    approximate: true"])

    def shared(layout: Layout, theta, metric: str) -> None:
        """Figures fitted once for every backend."""
        for key in layout.shared:
            value = math.exp(theta[layout.index[(key, "default")]])
            count, residual = rows_text(metric)
            source = (f"fit: python benchmarks/fit_speed.py over the {count} {metric} rows of "
                      f"{engine} in " + ", ".join(sources))
            entry = [f"value: {significant(value)}", f'source: "{source}"',
                     f'note: "fitted, one figure for every backend; {residual}"',
                     "approximate: true"]
            lines.append(f"{key}:")
            lines.extend("  " + line for line in entry)

    if fit.prefill is not None:
        shared(fit.prefill, fit.prefill_theta, "prefill_tps")
        keyed("prefill_compute_efficiency", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
        keyed("prefill_kernel_factor", fit.prefill, fit.prefill_theta, "prefill_tps", "kernel")
        keyed("prefill_attention_efficiency", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
        keyed("prefill_expert_efficiency", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
        keyed("prefill_ceiling_tflops", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
    if fit.decode is not None:
        keyed("decode_bandwidth_efficiency", fit.decode, fit.decode_theta, "decode_tps", "backend")
        keyed("decode_kernel_factor", fit.decode, fit.decode_theta, "decode_tps", "kernel")
        keyed("decode_memory_factor", fit.decode, fit.decode_theta, "decode_tps", "memory")
        keyed("kv_read_efficiency", fit.decode, fit.decode_theta, "decode_tps", "backend")
        keyed("decode_token_overhead_s", fit.decode, fit.decode_theta, "decode_tps", "backend")
        keyed("decode_layer_overhead_s", fit.decode, fit.decode_theta, "decode_tps", "backend")
        shared(fit.decode, fit.decode_theta, "decode_tps")
        sparse_block(OPS, fit.decode, fit.decode_theta)
        sparse_block(MOE, fit.decode, fit.decode_theta)
        count, residual = rows_text("decode_tps", HOST_BACKEND)
        own = HOST_BACKEND in fit.decode.backends
        lines.append("host_bandwidth_efficiency:")
        lines.append(f"  {HOST_BACKEND if own else 'default'}:")
        where = ", ".join(sources)
        source = (f"fit: decode_bandwidth_efficiency of the {HOST_BACKEND} backend, python "
                  f"benchmarks/fit_speed.py over the {count} decode_tps rows of {engine} run on a "
                  f"CPU alone in {where}" if own else
                  "no CPU rows: the default backend figure (benchmarks/fit_speed.py)")
        note = ("the engine's CPU path reads offloaded weights as it reads them when it runs on "
                f"the CPU alone; {residual} over those rows")
        lines.extend([f"    value: {significant(fit.host_efficiency())}", f'    source: "{source}"',
                      f'    note: "{note}"', "    approximate: true"])
    for metric, prefix in (("decode_tps", "decode"), ("prefill_tps", "prefill")):
        if metric not in bands:
            continue
        for side, index, q in (("low", 0, "10th"), ("high", 1, "90th")):
            lines.append(f"{prefix}_band_{side}:")
            for backend, (values, count) in sorted(bands[metric].items()):
                lines.append(f"  {backend}:")
                lines.append(f"    value: {significant(values[index], 3)}")
                lines.append(f'    source: "fit: python benchmarks/fit_speed.py, the {q} percentile of measured / predicted over {count} held-out {metric} rows of {engine}'
                             + (f" on {backend} devices" if backend != "default" else "") + f' (2-fold cross-validation by device, {REPEATS} splits pooled)"')
                lines.append("    approximate: true")
    lines.extend(["held_out_accuracy:", f"  profile: {PROFILE}",
                  f'  source: "python benchmarks/fit_speed.py: fitted on half the devices of each '
                  f'backend, scored on the other half and the other way round, {REPEATS} device '
                  f'splits pooled (groups by-source: the rows of half the pages, {SOURCE_REPEATS} '
                  'splits)"', "  groups:"])
    for metric, group, (count, mape, median, ratio) in scores:
        lines.append(f"    - {{metric: {metric}, group: {group}, rows: {count}, "
                     f"mape: {significant(mape)}, median_ape: {significant(median)}, "
                     f"median_ratio: {significant(ratio)}}}")
    return "\n".join(lines)


BEGIN = "# BEGIN fitted speed constants"
END = "# END fitted speed constants"


def current_block(engine: str) -> str | None:
    """The fitted block engine pack ``engine`` holds now."""
    text = (ROOT / "packs" / "engines" / f"{engine}.yaml").read_text(encoding="utf-8")
    match = re.search(rf"{re.escape(BEGIN)}[^\n]*\n(.*?){re.escape(END)}", text, re.S)
    return match.group(1).rstrip("\n") if match else None


def write_block(engine: str, block: str) -> Path:
    path = ROOT / "packs" / "engines" / f"{engine}.yaml"
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(rf"({re.escape(BEGIN)}[^\n]*\n)(.*?)(?={re.escape(END)})", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no '{BEGIN}' ... '{END}' block to write into")
    text = pattern.sub(lambda m: m.group(1) + (block + "\n" if block else ""), text, count=1)
    path.write_text(text, encoding="utf-8")
    return path


def bands_of(rows_by_metric, held) -> dict[str, dict[str, tuple[tuple[float, float], int]]]:
    """Error bands per metric and backend from the held-out ratios (one line per split); the
    count is of rows with a held-out prediction."""
    result: dict[str, dict[str, tuple[tuple[float, float], int]]] = {}
    for metric, ratios in held.items():
        rows = rows_by_metric[metric]
        scored = np.isfinite(ratios).any(axis=0)
        if scored.sum() < 5:
            continue
        per = {"default": (band(ratios), int(scored.sum()))}
        for backend in sorted(set(rows.backend)):
            mask = scored & np.array([b == backend for b in rows.backend])
            if mask.sum() >= MIN_BACKEND_ROWS:
                per[backend] = (band(ratios[:, mask]), int(mask.sum()))
        result[metric] = per
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="write the constants fitted on all rows into packs/engines/*.yaml")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless packs/engines/*.yaml hold exactly what this fit writes")
    parser.add_argument("--rows", action="store_true", help="print every row's held-out ratio")
    args = parser.parse_args(argv)
    registry = fitproof.load_registry().with_profile(PROFILE)
    data, outside = load(registry), load(registry, apart=True)
    engines = sorted(engine for engine in {e for e, _ in data} if _fittable(data, engine))
    blocks, fits = {}, {}
    for engine in engines:
        rows_by_metric = {metric: rows for (e, metric), rows in data.items() if e == engine}
        print(f"Held-out accuracy of the {engine} speed constants: fitted on half the devices "
              "of each backend, scored on the other half, and the other way round; "
              f"{REPEATS} such splits, pooled")
        print(HEADER)
        held = cross_validate(data, engine)
        for metric, ratios in sorted(held.items()):
            rows = rows_by_metric[metric]
            for label, mask in groups_of(registry, rows):
                if mask.any():
                    print(f"{metric:11s}  {label:10s}  {summary(ratios[:, mask])}")
            if args.rows:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # rows never scored: NaN
                    medians = np.nanmedian(ratios, axis=0)
                for item, ratio in zip(rows.items, medians):
                    print(f"      {ratio:6.2f}  {item['model']} {item['quant']} on {item['hardware']}  {item['location']}")
        by_source = cross_validate_by_source(data, engine)
        print(f"\nHeld out by source: fitted on the rows of half the pages, scored on the "
              f"other half, and the other way round; {SOURCE_REPEATS} such splits, pooled")
        print(HEADER)
        for metric, ratios in sorted(by_source.items()):
            for label, mask in groups_of(registry, rows_by_metric[metric]):
                if mask.any():
                    print(f"{metric:11s}  {label:10s}  {summary(ratios[:, mask])}")
        fit = fits[engine] = Fit(rows_by_metric.get("prefill_tps"), rows_by_metric.get("decode_tps"))
        print("\nFitted on every row (the shipped constants; fitproof validate shows the same)")
        print(HEADER)
        for metric, rows in sorted(rows_by_metric.items()):
            print(f"{metric:11s}  {'all':10s}  {summary(fit.predict(rows, metric) / rows.value)}")
        for (e, metric), rows in sorted(outside.items()):
            if e == engine:
                print(f"Scored apart with these constants (never fitted on): {rows.n} {metric} rows "
                      f"of {IDENTICAL_MOE_BATCH}\n{HEADER}\n"
                      f"{metric:11s}  {'apart':10s}  {summary(fit.predict(rows, metric) / rows.value)}")
        scores = [(metric, prefix + label, scored)
                  for prefix, ratios_of in (("", held), ("by-source:", by_source))
                  for metric, ratios in sorted(ratios_of.items())
                  for label, mask in groups_of(registry, rows_by_metric[metric])
                  if (scored := stats(ratios[:, mask])) is not None]
        blocks[engine] = pack_block(engine, fit, {k: v for k, v in data.items() if k[0] == engine},
                                    held, bands_of(rows_by_metric, held), scores)
    for engine in sorted(set(registry.engines) - set(blocks)):
        if DONOR in blocks:
            blocks[engine] = borrowed(blocks[DONOR], engine)
            rows = data.get((engine, "decode_tps"))
            count = rows.n if rows is not None else 0
            print(f"\n{engine}: {count} decode rows (fewer than {MIN_ENGINE_ROWS} on two devices); "
                  f"{DONOR}'s figures stand in, and fitproof validate scores them on these rows")
    if args.check:
        stale = [engine for engine, block in blocks.items() if current_block(engine) != block]
        for engine in stale:
            print(f"packs/engines/{engine}.yaml: the fitted block differs from a refit; "
                  "run python benchmarks/fit_speed.py --write")
        return 1 if stale else 0
    if args.write:
        for engine, block in blocks.items():
            print(f"wrote {write_block(engine, block).relative_to(ROOT)}")
        return check(data, fits)
    return 0


def _fittable(data, engine: str) -> bool:
    rows = data.get((engine, "decode_tps"))
    return rows is not None and rows.n >= MIN_ENGINE_ROWS and len(set(rows.hardware)) >= 2


SERVING_BEGIN = "# BEGIN fitted serving constants"
SERVING_END = "# END fitted serving constants"


def serving_keys(engine: str) -> set[str]:
    """The constants the serving block of ``engine``'s pack holds (benchmarks/fit_serving.py
    fits them on the engine's own rows), which DONOR's block therefore leaves out."""
    text = (ROOT / "packs" / "engines" / f"{engine}.yaml").read_text("utf-8")
    match = re.search(re.escape(SERVING_BEGIN) + r".*?" + re.escape(SERVING_END), text, re.S)
    return set(re.findall(r"^([a-z_]+):", match.group(0), re.M)) if match else set()


def drop_keys(block: str, keys: set[str]) -> str:
    """``block`` without the top-level YAML entries named ``keys`` (and their contents)."""
    out, keep = [], True
    for line in block.splitlines(keepends=True):
        top = re.match(r"^([a-z_]+):", line)
        if top:
            keep = top.group(1) not in keys
        elif line.startswith("#"):
            keep = True
        if keep:
            out.append(line)
    return "".join(out)


def borrowed(block: str, engine: str) -> str:
    """DONOR's fitted block for ``engine``, every figure saying where it comes from (and
    without DONOR's held-out scores, which are of DONOR's rows, or the constants the
    engine's serving block holds)."""
    block = block.split("\nheld_out_accuracy:")[0]
    block = drop_keys(block, serving_keys(engine))
    block = re.sub(r'source: "[^"]*"', f'source: "too few measurement rows of {engine} in '
                   f'packs/measurements/ for a fit of its own: the figure fitted for {DONOR} '
                   '(benchmarks/fit_speed.py) stands in"', block)
    return re.sub(r'note: "[^"]*"', f'note: "an assumption until {engine} rows are added and '
                  'refitted: both engines stream the same bytes at the same devices\' bandwidth"', block)


def _moe(registry, item) -> bool:
    experts = registry.models[item["model"]].num_experts
    return bool(experts is not None and float(getattr(experts, "value", experts)))


def check(data, fits: dict[str, Fit]) -> int:
    """fitproof's formulas, with the written constants, against this script's predictions
    with the constants ``fits`` found (engines that borrow theirs are not compared)."""
    registry = fitproof.load_registry().with_profile("measured")
    entries, scenarios = measurement_scenarios(registry)
    batch = Batch(registry, scenarios)
    packs = {m: batch.values(m) for m in ("decode_tps", "prefill_tps")}
    worst = 0.0
    by_location = {}
    for (engine, metric), rows in data.items():
        if engine not in fits:
            continue
        for item, value in zip(rows.items, fits[engine].predict(rows, metric)):
            by_location[item["location"]] = value
    for i, (pack, index, row) in enumerate(entries):
        expected = by_location.get(pack.pack.at("rows", index))
        if row.metric not in packs:  # a serving metric: benchmarks/fit_serving.py checks it
            continue
        got = packs[row.metric][i]
        if expected is None or got is None or not math.isfinite(expected):
            continue
        worst = max(worst, abs(got / expected - 1))
    print(f"fitproof's formulas vs this script: largest difference {100 * worst:.2f} % "
          "(constants rounded to 4 significant digits)")
    return 0 if worst < 0.01 else 1


if __name__ == "__main__":
    raise SystemExit(main())
