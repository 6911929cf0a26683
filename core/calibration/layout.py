"""Which constants a fit has: per-backend, per-kernel-family and per-memory-family groups
and their positions in the parameter vector (the logs of the constants)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

import numpy as np

from .rows import Array, Rows

MIN_BACKEND_ROWS = 5
MIN_KERNEL_ROWS = 10
REFERENCE_MEMORY = "gddr"  # the memory family whose factor is 1 (the one most rows were measured on)
DECODE_KEYS = ("decode_bandwidth_efficiency", "kv_read_efficiency", "decode_token_overhead_s",
               "decode_layer_overhead_s")
PREFILL_KEYS = ("prefill_compute_efficiency", "prefill_attention_efficiency", "prefill_ceiling_tflops",
                "prefill_expert_efficiency")
OPS = "decode_ops_per_weight"  # keyed by the backends whose rows have a shader rate
MOE = "decode_moe_layer_overhead_s"  # keyed by the backends whose rows run a mixture of experts
# the rows each such term informs, and how a figure's source names them
TERM_ROWS: dict[str, Callable[[Rows], Array]] = {
    OPS: lambda rows: rows.shader_tflops > 0, MOE: lambda rows: rows.moe_layers > 0}
TERM_TEXT = {OPS: "whose pack gives shader_tflops", MOE: "that run a mixture-of-experts model"}
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
        devices: dict[str, set[str]] = defaultdict(set)
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
        family_devices: dict[str, set[str]] = defaultdict(set)
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
        self.sparse_rows: dict[str, Array] = {}
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
            self.index[(memory_name or "", family)] = len(self.index)
        for key in shared:
            self.index[(key, "default")] = len(self.index)
        self.rows = rows

    def mean(self, theta: Array, key: str, groups: Iterable[str]) -> float | None:
        """The row-weighted geometric mean of ``key`` over the groups (backends, or kernel
        families) the rows ``groups`` names, one entry per row; None for no rows."""
        counts = Counter(groups)
        total = sum(counts.values())
        if not total:
            return None
        return math.exp(sum(count * theta[self.index[(key, g)]] for g, count in counts.items())
                        / total)

    def sparse(self, theta: Array, key: str, backend: str) -> float:
        """A term only some rows have (OPS, MOE) on ``backend``: its own figure, else the
        mean of the backends' figures weighted by their rows with the term (0 if none has)."""
        if backend in self.sparse_backends.get(key, ()):
            return math.exp(theta[self.index[(key, backend)]])
        if key not in self.sparse_rows:
            return 0.0
        pooled = self.mean(theta, key, (b for b, use in zip(self.backend_of, self.sparse_rows[key])
                                        if use))
        return 0.0 if pooled is None else pooled

    def usable(self) -> Array:
        return np.array([k is not None for k in self.kernel_of])

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.index)

    def values(self, theta: Array, key: str) -> Array:
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
