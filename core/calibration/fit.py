"""The constants of one engine fitted by robust least squares (scipy, soft L1) on
log(predicted / measured), prefill first (decode's compute bound uses its rate)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from ..errors import InputError
from .layout import (CEILINGS, DECODE_KEYS, MOE, OPS, PAIRS, PREFILL_KEYS, SHARES, Layout,
                     neutral)
from .model import (DECODE_CONSTANTS, DECODE_START, PREFILL_CONSTANTS, PREFILL_START,
                    Constants, decode_rate, predict_decode, predict_prefill, prefill_rate,
                    prefill_token_s)
from .rows import Array, Rows

LOSS_SCALE = 0.1  # soft L1: residuals beyond ~10 % count linearly, not squared
# A backend's share of a peak rate is a deviation from the pooled share of all backends,
# and the deviation (in log) costs what one row mispredicted by deviation / PRIOR_LOG_SD
# costs while that error is small: a share its rows pin down is theirs, one they do not (a
# KV read efficiency without deep contexts) stays at the pooled figure instead of drifting
PRIOR_LOG_SD = 1.0
HOST_BACKEND = "cpu"  # offloaded weights are read by the engine's CPU backend
SCIPY_MISSING = "fitting speed constants needs scipy: pip install 'fitproof[fit]'"


def require_scipy() -> None:
    """Raise an :class:`InputError` (one line, exit 2) when scipy is not installed."""
    import importlib.util

    if importlib.util.find_spec("scipy") is None:
        raise InputError(SCIPY_MISSING)


def prior_residuals(deviation: Array) -> Array:
    """Residuals whose soft-L1 cost is deviation squared, as a row with that log error costs
    while it is small: a quadratic (Gaussian) prior, which pulls a well-measured share
    by a fraction of a percent and an unmeasured one all the way to the pooled figure."""
    w = (deviation / LOSS_SCALE) ** 2
    residuals: Array = deviation * np.sqrt(1 + w / 4)
    return residuals


def _fit(layout: Layout, start: dict[str, float],
         predict: Callable[[Layout, Array], Array]) -> Array:
    from scipy.optimize import least_squares  # type: ignore[import-untyped]

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
    pooled_at = np.array([j for _, j in tied], dtype=int)

    def residuals(theta: Array) -> Array:
        data = np.log(predict(layout, theta)[mask] / layout.rows.value[mask])
        return np.concatenate([data, prior_residuals((theta[own] - theta[pooled_at]) / PRIOR_LOG_SD)])

    theta: Array = least_squares(residuals, theta0, bounds=(np.full(len(keys), -np.inf), upper),
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
        self.prefill: Layout | None = None
        self.decode: Layout | None = None
        self.prefill_theta: Array = np.zeros(0)
        self.decode_theta: Array = np.zeros(0)
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

    def constant(self, key: str, backend: str, kernel: str, layout: Layout, theta: Array,
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
    def default_backend(layout: Layout, theta: Array, key: str) -> float:
        if "default" in layout.backends:
            return math.exp(theta[layout.index[(key, "default")]])
        pooled = layout.mean(theta, key, (b for b in layout.backend_of if b in layout.backends))
        return math.nan if pooled is None else pooled

    @staticmethod
    def default_kernel(layout: Layout, theta: Array) -> float:
        pooled = layout.mean(theta, layout.kernel_name,
                             (k for k in layout.kernel_of if k is not None))
        return 1.0 if pooled is None else pooled

    def _constants_for(self, rows: Rows, layout: Layout, theta: Array,
                       keys: Iterable[str]) -> Constants:
        return {key: np.array([self.constant(key, b, k, layout, theta, m)
                               for b, k, m in zip(rows.backend, rows.kernel, rows.memory)])
                for key in keys}

    def host_efficiency(self) -> float:
        """Share of a host's bandwidth the CPU path reaches: the cpu backend's efficiency."""
        assert self.decode is not None
        return self.constant("decode_bandwidth_efficiency", HOST_BACKEND, "", self.decode,
                             self.decode_theta)

    def prefill_tflops(self, rows: Rows) -> Array:
        """Achieved compute per device (2 FLOP per parameter per token) on ``rows``."""
        if self.prefill is None:
            return rows.prefill_tflops
        token = self._prefill_token_s(rows)
        fitted = 2 * rows.params_compute_per_token / token / 1e12
        # a device without a datasheet rate runs at the measured rate its pack states
        rates: Array = np.where(np.isfinite(rows.prefill_peak_tflops), fitted, rows.prefill_tflops)
        return rates

    def _prefill_constants(self, rows: Rows) -> Constants:
        assert self.prefill is not None
        return self._constants_for(rows, self.prefill, self.prefill_theta, PREFILL_CONSTANTS)

    def _prefill_token_s(self, rows: Rows) -> Array:
        return prefill_token_s(rows, self._prefill_constants(rows))

    def predict(self, rows: Rows, metric: str) -> Array:
        """Predictions for any rows (held-out ones included) with these constants."""
        if metric == "prefill_tps":
            if self.prefill is None:
                return np.full(rows.n, np.nan)
            return prefill_rate(rows, self._prefill_constants(rows))
        if self.decode is None:
            return np.full(rows.n, np.nan)
        c = self._constants_for(rows, self.decode, self.decode_theta, DECODE_CONSTANTS)
        return decode_rate(rows, c, self.prefill_tflops(rows), self.host_efficiency())
