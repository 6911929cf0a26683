"""Rounding the way the seed pages do it: JavaScript ``toFixed`` semantics.

The value is rounded from its exact binary value, ties away from zero. ``133.95`` is
really 133.94999… and becomes 133.9; ``0.625`` is exact and becomes 0.63 (Python's
``round`` would give 0.62). Vectorised: numpy does the work, and the rare elements that
sit within float error of a tie are settled exactly with :mod:`decimal`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
from numpy.typing import ArrayLike, NDArray


def round_half_away(x: ArrayLike, ndigits: int = 0) -> NDArray[np.float64] | np.float64:
    """Round ``x`` (scalar or array) to ``ndigits`` decimals, ties away from zero."""
    ndigits = int(ndigits)
    values = np.asarray(x, dtype=float)
    scale = 10.0 ** ndigits
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = values * scale
        result = np.trunc(scaled + np.copysign(0.5, scaled)) / scale
        magnitude = np.abs(scaled)
        fraction = magnitude - np.floor(magnitude)
        tolerance = np.maximum(1e-6, magnitude * 1e-15)
        # from 2**53 up every float is a whole number: nothing to round, no tie to settle
        near_tie = (np.isfinite(scaled) & (magnitude < 2.0 ** 53)
                    & (np.abs(fraction - 0.5) < tolerance))
    result = np.where(np.isfinite(scaled) & (np.abs(scaled) >= 2.0 ** 53), values, result)
    if near_tie.any():
        quantum = Decimal(1).scaleb(-ndigits)
        result = np.array(result, dtype=float, copy=True)
        flat_values, flat_result = values.reshape(-1), result.reshape(-1)
        for index in np.flatnonzero(near_tie.reshape(-1)):
            exact = Decimal(float(flat_values[index])).quantize(quantum, rounding=ROUND_HALF_UP)
            flat_result[index] = float(exact)
        result = flat_result.reshape(values.shape)
    return result if result.ndim else result[()]
