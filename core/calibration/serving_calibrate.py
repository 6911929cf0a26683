"""``fitproof calibrate`` for the serving engines: the serving constants (those
``benchmarks/fit_serving.py`` fits) of each engine with serving rows of the user's, refitted
on its shipped rows plus the user's, with the held-out error (each device left out in turn)
of the shipped and the refitted constants on the same rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import numpy as np

from ..specs import CalibrationScore
from .crossval import stats
from .rows import Array
from .serving_blocks import serving_block
from .serving_fit import (MIN_DEVICES, SERVING_DONOR, ServingFit, enough_devices, fit,
                          held_out, ratios)
from .serving_rows import SERVING, ServingData, ServingRows

if TYPE_CHECKING:
    from ..registry.index import Registry


@attrs.frozen
class ServingRefit:
    """One engine's refitted serving constants: the YAML of its serving block (without
    BEGIN and END lines), the rows fitted on and the user's among them by metric, and the
    held-out scores."""

    block: str
    rows: dict[str, int]
    user_rows: dict[str, int]
    scores: list[CalibrationScore]


def _user_serving(rows: ServingRows) -> Array:
    """Which rows are serving rows (not single streams) of the user's."""
    mask: Array = rows.user & np.array([m in SERVING for m in rows.metric], dtype=bool)
    return mask


def serving_engines(data: ServingData, engine: str | None) -> tuple[list[str], list[str]]:
    """The serving engines with serving rows of the user's (``engine`` only, if given) whose
    rows, the user's included, are on MIN_DEVICES devices; and one line for each of the
    others with serving rows of the user's, saying why it is not refitted."""
    refit, notes = [], []
    for name in sorted(data) if engine is None else [e for e in (engine,) if e in data]:
        rows = data[name]
        mine = int(_user_serving(rows).sum())
        if not mine:
            continue
        if enough_devices(rows):
            refit.append(name)
            continue
        devices = sorted(set(rows.hardware))
        notes.append(f"{name}: {mine} serving rows of yours, but its rows, yours included, are "
                     f"on {len(devices)} device{'s' if len(devices) != 1 else ''} "
                     f"({', '.join(devices)}); a serving fit needs rows on {MIN_DEVICES}: "
                     "not refitted")
    return refit, notes


def _shipped_fit(data: ServingData, engine: str, registry: Registry) -> ServingFit | None:
    """The shipped constants of ``engine``: fitted on its shipped rows if they are on
    MIN_DEVICES devices, else SERVING_DONOR's (as the engine pack borrows them)."""
    for name in (engine, SERVING_DONOR):
        rows = data.get(name)
        shipped = rows.subset(~rows.user) if rows is not None else None
        if shipped is not None and enough_devices(shipped):
            return fit(shipped, registry)
    return None


def refit_serving_engine(registry: Registry, data: ServingData, engine: str, *, command: str,
                         profile: str) -> ServingRefit:
    """``engine``'s serving constants fitted on its shipped rows and the user's, and the
    held-out error (each device left out in turn) of the shipped and these constants on the
    same rows: all serving rows, the user's, and the user's scored by the constants fitted on
    every row ('yours-in-fit': the shipped constants never saw them)."""
    rows = data[engine]
    calibrated = fit(rows, registry)
    in_sample = ratios(rows, calibrated)
    held = held_out(rows, "hardware", registry)
    shipped_rows = rows.subset(~rows.user)
    shipped = _shipped_fit(data, engine, registry)
    if shipped is None:
        held_shipped = in_shipped = np.full(rows.n, np.nan)
    elif enough_devices(shipped_rows):
        held_shipped = held_out(rows, "hardware", registry, user_rows=False)
        in_shipped = ratios(rows, shipped)
    else:  # borrowed figures, never fitted on these rows: every row is held out
        held_shipped = in_shipped = ratios(rows, shipped)
    scores = []
    for metric in SERVING:
        of_metric = rows.of_metric(metric)
        if not of_metric.any():
            continue
        groups = (("all", of_metric, held_shipped, held),
                  ("yours", of_metric & rows.user, held_shipped, held),
                  ("yours-in-fit", of_metric & rows.user, in_shipped, in_sample))
        for group, mask, before, after in groups:
            for constants, r in (("shipped", before), ("calibrated", after)):
                scored = stats(r[mask]) if mask.any() else None
                if scored is not None:
                    scores.append(CalibrationScore(engine, metric, constants, group, *scored))
    yours = int(rows.user.sum())
    block = serving_block(engine, rows, calibrated, in_sample, held, None, command=command,
                          where=f"the measurement packs, {yours} of them yours",
                          profile=profile)
    counts = {m: int(rows.of_metric(m).sum()) for m in sorted(set(rows.metric))}
    user_counts = {m: int((rows.of_metric(m) & rows.user).sum()) for m in counts}
    return ServingRefit(block, counts, user_counts, scores)
