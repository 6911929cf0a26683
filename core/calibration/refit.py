"""What ``benchmarks/fit_speed.py`` does for each engine: cross-validate, print the
held-out tables, fit on every row and make the engine pack's fitted block; and the check
that fitproof's formulas, with the written constants, reproduce this fit's predictions."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..engine.accuracy import IDENTICAL_MOE_BATCH, measurement_scenarios
from ..engine.estimation import Batch
from .blocks import COMMAND, PROFILE, pack_block
from .crossval import (HEADER, REPEATS, SOURCE_REPEATS, Stats, bands_of, cross_validate,
                       cross_validate_by_source, groups_of, stats, summary)
from .engine_packs import DONOR, borrowed
from .fit import Fit
from .rows import Data, Rows

if TYPE_CHECKING:
    from ..registry.index import Registry

MIN_ENGINE_ROWS = 30   # decode rows on at least two devices for an engine's own fit
Emit = Callable[[str], None]


def fittable(data: Data, engine: str) -> bool:
    """Whether ``engine`` has the decode rows (on two devices) for a fit of its own."""
    rows = data.get((engine, "decode_tps"))
    return rows is not None and rows.n >= MIN_ENGINE_ROWS and len(set(rows.hardware)) >= 2


def refit_engine(registry: Registry, data: Data, outside: Data, engine: str, emit: Emit,
                 show_rows: bool = False, *, repeats: int = REPEATS,
                 source_repeats: int = SOURCE_REPEATS, command: str = COMMAND,
                 profile: str = PROFILE) -> tuple[Fit, str]:
    """Print ``engine``'s held-out tables (by device, by source, fitted on every row) and
    return the constants fitted on every row with the YAML of its fitted block."""
    rows_by_metric = {metric: rows for (e, metric), rows in data.items() if e == engine}
    emit(f"Held-out accuracy of the {engine} speed constants: fitted on half the devices "
         "of each backend, scored on the other half, and the other way round; "
         f"{repeats} such splits, pooled")
    emit(HEADER)
    held = cross_validate(data, engine, repeats)
    for metric, ratios in sorted(held.items()):
        rows = rows_by_metric[metric]
        for label, mask in groups_of(registry, rows):
            if mask.any():
                emit(f"{metric:11s}  {label:10s}  {summary(ratios[:, mask])}")
        if show_rows:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # rows never scored: NaN
                medians = np.nanmedian(ratios, axis=0)
            for item, ratio in zip(rows.items, medians):
                emit(f"      {ratio:6.2f}  {item['model']} {item['quant']} on {item['hardware']}  {item['location']}")
    by_source = cross_validate_by_source(data, engine, source_repeats)
    emit(f"\nHeld out by source: fitted on the rows of half the pages, scored on the "
         f"other half, and the other way round; {source_repeats} such splits, pooled")
    emit(HEADER)
    for metric, ratios in sorted(by_source.items()):
        for label, mask in groups_of(registry, rows_by_metric[metric]):
            if mask.any():
                emit(f"{metric:11s}  {label:10s}  {summary(ratios[:, mask])}")
    fit = Fit(rows_by_metric.get("prefill_tps"), rows_by_metric.get("decode_tps"))
    emit("\nFitted on every row (the shipped constants; fitproof validate shows the same)")
    emit(HEADER)
    for metric, rows in sorted(rows_by_metric.items()):
        emit(f"{metric:11s}  {'all':10s}  {summary(fit.predict(rows, metric) / rows.value)}")
    for (e, metric), rows in sorted(outside.items()):
        if e == engine:
            emit(f"Scored apart with these constants (never fitted on): {rows.n} {metric} rows "
                 f"of {IDENTICAL_MOE_BATCH}\n{HEADER}\n"
                 f"{metric:11s}  {'apart':10s}  {summary(fit.predict(rows, metric) / rows.value)}")
    scores: list[tuple[str, str, Stats]] = [
        (metric, prefix + label, scored)
        for prefix, ratios_of in (("", held), ("by-source:", by_source))
        for metric, ratios in sorted(ratios_of.items())
        for label, mask in groups_of(registry, rows_by_metric[metric])
        if (scored := stats(ratios[:, mask])) is not None]
    block = pack_block(engine, fit, {k: v for k, v in data.items() if k[0] == engine},
                       held, bands_of(rows_by_metric, held), scores, command=command,
                       repeats=repeats, source_repeats=source_repeats, profile=profile)
    return fit, block


def refit_all(registry: Registry, data: Data, outside: Data, engines_folder: Path,
              emit: Emit, show_rows: bool = False) -> tuple[dict[str, str], dict[str, Fit]]:
    """Every engine's fitted block (engines with too few rows borrow DONOR's) and fit."""
    engines = sorted(engine for engine in {e for e, _ in data} if fittable(data, engine))
    blocks: dict[str, str] = {}
    fits: dict[str, Fit] = {}
    for engine in engines:
        fits[engine], blocks[engine] = refit_engine(registry, data, outside, engine, emit,
                                                    show_rows)
    for engine in sorted(set(registry.engines) - set(blocks)):
        if DONOR in blocks:
            blocks[engine] = borrowed(engines_folder, blocks[DONOR], engine)
            rows = data.get((engine, "decode_tps"))
            count = rows.n if rows is not None else 0
            emit(f"\n{engine}: {count} decode rows (fewer than {MIN_ENGINE_ROWS} on two devices); "
                 f"{DONOR}'s figures stand in, and fitproof validate scores them on these rows")
    return blocks, fits


def check(registry: Registry, data: Data, fits: dict[str, Fit], emit: Emit) -> int:
    """fitproof's formulas (``registry``, with the written constants) against this fit's
    predictions with the constants ``fits`` found (engines that borrow theirs are not
    compared): 0 when within 1 %."""
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
    emit(f"fitproof's formulas vs this script: largest difference {100 * worst:.2f} % "
         "(constants rounded to 4 significant digits)")
    return 0 if worst < 0.01 else 1


def rows_of(data: Data, engine: str) -> dict[str, Rows]:
    """``engine``'s rows by metric."""
    return {metric: rows for (e, metric), rows in data.items() if e == engine}
