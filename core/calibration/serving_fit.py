"""The serving constants of one engine fitted by robust least squares (scipy, soft L1) on
log(predicted / measured), each pulled towards DONOR's figure by a weak prior; and the
held-out ratios of rows predicted by constants fitted without their device (or page)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .rows import Array
from .serving_model import SCALARS, ServingLayout, predict
from .serving_rows import ServingRows

if TYPE_CHECKING:
    from ..registry.index import Registry

LOSS_SCALE = 0.1
PRIOR_LOG_SD = 1.0  # each constant's pull towards its start (a weak prior, in log)
# an engine fits constants of its own on rows from this many devices: on two, each
# held-out fit sees a single device, whose overheads and prompt rates trade freely against
# each other (SGLang's rows on B200 and MI300X alone put its prompt ceiling at 44 TFLOP/s,
# a fifth of vLLM's); with fewer, it is scored with SERVING_DONOR's figures
MIN_DEVICES = 3
SERVING_DONOR = "vllm"  # the serving engine with rows enough to stand in for the others
ServingFit = tuple[ServingLayout, Array]


def residuals(theta: Array, layout: ServingLayout, rows: ServingRows) -> Array:
    c = layout.constants(theta, rows)
    misfit = np.log(predict(rows, c) / rows.value)
    shares = np.array([max(0.0, theta[i]) for i, (_, share, _) in enumerate(SCALARS) if share]
                      + [max(0.0, t) for t in theta[len(SCALARS):]])
    prior = ((theta - layout.start) / PRIOR_LOG_SD)[layout.prior]
    result: Array = np.concatenate([misfit, 10 * shares, prior])
    return result


def fit(rows: ServingRows, registry: Registry) -> ServingFit:
    """The constants fitted on ``rows`` (the layout and the logs of its constants)."""
    from scipy.optimize import least_squares  # type: ignore[import-untyped]

    layout = ServingLayout(rows, registry)
    done = least_squares(residuals, layout.start, args=(layout, rows), loss="soft_l1",
                         f_scale=LOSS_SCALE, max_nfev=2000)
    theta: Array = done.x
    return layout, theta


def ratios(rows: ServingRows, fitted: ServingFit) -> Array:
    """Every row's predicted / measured with the constants ``fitted``."""
    layout, theta = fitted
    result: Array = predict(rows, layout.constants(theta, rows)) / rows.value
    return result


def enough_devices(rows: ServingRows | None) -> bool:
    """Whether ``rows`` are on the devices a fit of the engine's own needs."""
    return rows is not None and len(set(rows.hardware)) >= MIN_DEVICES


def held_out(rows: ServingRows, key: str, registry: Registry,
             user_rows: bool = True) -> Array:
    """Each row's pred/meas with constants fitted without the rows of its device (key
    'hardware') or its page (key 'source'), and without ``user_rows`` without the rows of
    the user's packs too; NaN where that leaves nothing to fit on."""
    out = np.full(rows.n, np.nan)
    groups = getattr(rows, key)
    for group in sorted(set(groups)):
        test = np.array([g == group for g in groups])
        if test.all():
            continue
        train = ~test if user_rows else ~test & ~rows.user
        if not train.any():
            continue
        out[test] = ratios(rows.subset(test), fit(rows.subset(train), registry))
    return out

