"""Rounding the way the seed pages do it: JavaScript ``toFixed`` semantics.

The value is rounded from its exact binary value, ties away from zero. ``133.95`` is
really 133.94999… and becomes 133.9; ``0.625`` is exact and becomes 0.63 (Python's
``round`` would give 0.62). :func:`round_half_away` works on arrays (numpy does the work,
and the rare elements that sit within float error of a tie are settled exactly with
:mod:`decimal`); :func:`round_scalar` is the same rule for one float, in plain Python, for
the paths that load no numpy (a single estimate from a snapshot, the text renderers).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

# from 2**53 up every float is a whole number: nothing to round, no tie to settle
_WHOLE = 2.0 ** 53


def _exact(value: float, ndigits: int) -> float:
    """``value`` rounded from its exact decimal expansion, ties away from zero."""
    from decimal import ROUND_HALF_UP, Decimal

    quantum = Decimal(1).scaleb(-ndigits)
    return float(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


def round_scalar(x: float, ndigits: int = 0) -> float:
    """One float rounded to ``ndigits`` decimals, ties away from zero (as
    :func:`round_half_away` rounds each element)."""
    ndigits = int(ndigits)
    value = float(x)
    scale = 10.0 ** ndigits
    scaled = value * scale
    if not math.isfinite(scaled):
        # numpy's rule: NaN stays NaN, an infinity (or a product that overflowed) is
        # truncated and divided back
        return scaled / scale if scaled == scaled else math.nan
    magnitude = abs(scaled)
    if magnitude >= _WHOLE:
        return value
    fraction = magnitude - math.floor(magnitude)
    if abs(fraction - 0.5) < max(1e-6, magnitude * 1e-15):
        return _exact(value, ndigits)
    return math.trunc(scaled + math.copysign(0.5, scaled)) / scale


def round_half_away(x: ArrayLike, ndigits: int = 0) -> Any:
    """Round ``x`` (scalar or array) to ``ndigits`` decimals, ties away from zero: an array
    for an array, a numpy float for a numpy scalar, a Python float for a Python number
    (without importing numpy)."""
    if isinstance(x, (int, float)):
        return round_scalar(x, ndigits)
    import numpy as np

    ndigits = int(ndigits)
    values = np.asarray(x, dtype=float)
    scale = 10.0 ** ndigits
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * scale
        result = np.trunc(scaled + np.copysign(0.5, scaled)) / scale
        magnitude = np.abs(scaled)
        fraction = magnitude - np.floor(magnitude)
        tolerance = np.maximum(1e-6, magnitude * 1e-15)
        near_tie = (np.isfinite(scaled) & (magnitude < _WHOLE)
                    & (np.abs(fraction - 0.5) < tolerance))
    result = np.where(np.isfinite(scaled) & (np.abs(scaled) >= _WHOLE), values, result)
    if near_tie.any():
        result = np.array(result, dtype=float, copy=True)
        flat_values, flat_result = values.reshape(-1), result.reshape(-1)
        ties = np.flatnonzero(near_tie.reshape(-1))
        # a value broadcast over many candidates ties in every copy: settle each distinct
        # tie once from its decimal expansion
        distinct, where = np.unique(flat_values[ties], return_inverse=True)
        settled = np.array([_exact(float(v), ndigits) for v in distinct], dtype=float)
        flat_result[ties] = settled[where.reshape(-1)]
        result = flat_result.reshape(values.shape)
    rounded: Any = result if result.ndim else result[()]
    return rounded
