"""What ``benchmarks/fit_serving.py`` does: fit each serving engine with rows on
MIN_DEVICES devices, cross-validate it twice (leaving out each device, and each source page),
print the tables, make its serving block (the others borrow SERVING_DONOR's); and the check
that fitproof's formulas, with the written constants, reproduce this fit's predictions."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..engine.accuracy import measurement_scenarios
from ..engine.estimation import Batch
from .rows import Array
from .serving_blocks import borrowed, pack_serving_block, serving_block
from .serving_fit import SERVING_DONOR, ServingFit, enough_devices, fit, held_out, ratios
from .serving_model import predict
from .serving_rows import METRICS, SERVING, SERVING_ENGINES, ServingData, ServingRows

if TYPE_CHECKING:
    from ..registry.index import Registry

Emit = Callable[[str], None]
# each engine's rows with their held-out ratios (by device, by page), for the pooled table
Pooled = list[tuple[ServingRows, Array, Array]]
HEADER = ("metric       rows    MAPE  median APE  median pred/meas\n"
          "-----------  ----  ------  ----------  ----------------")


def stats(r: Array) -> str:
    """Row count, MAPE, median APE and median ratio of the finite ratios ``r``, as a line."""
    r = r[np.isfinite(r)]
    if not r.size:
        return "   -        -          -"
    ape = 100 * np.abs(r - 1)
    return f"{len(r):4d}  {ape.mean():6.1f} %  {np.median(ape):8.1f} %  {np.median(r):14.2f}"


def report(rows: ServingRows, r: Array) -> list[str]:
    """The table's lines: each metric, then the serving metrics together."""
    lines = []
    for metric in sorted(set(rows.metric)):
        lines.append(f"{metric:11s}  {stats(r[rows.of_metric(metric)])}")
    serving = np.array([m in SERVING for m in rows.metric])
    lines.append(f"{'serving':11s}  {stats(r[serving])}")
    return lines


def print_pooled(pooled: Pooled, emit: Emit, site_of: Callable[[str], object]) -> None:
    """The serving engines' rows together, each predicted without its device (or page), or
    by figures fitted on another engine's rows only (``site_of`` a page's site: its pages
    share one benchmark setup, so they are not independent sources)."""
    if len(pooled) < 2:
        return
    rows = ServingRows([item for engine_rows, _, _ in pooled for item in engine_rows.items])
    serving = [m in SERVING for m in rows.metric]
    pages = {s for s, keep in zip(rows.source, serving) if keep}
    devices = {h for h, keep in zip(rows.hardware, serving) if keep}
    emit(f"{' and '.join(sorted({i['engine'] for i in rows.items}))} pooled: {sum(serving)} "
         f"serving rows on {len(devices)} devices from {len(pages)} pages of "
         f"{len({site_of(page) for page in pages})} sites, each predicted without its device "
         "(or page) or by figures fitted on another engine's rows")
    for title, k in (("held out by device", 1), ("held out by source", 2)):
        r = np.concatenate([entry[k] for entry in pooled])
        emit(f"\n{title}\n{HEADER}")
        emit("\n".join(line for line in report(rows, r) if not line.startswith("decode_tps")))
    emit("")


def _constants_line(fitted: ServingFit) -> str:
    layout, theta = fitted
    return "constants: " + ", ".join(f"{n}={math.exp(t):.4g}"
                                     for n, t in zip(layout.names, theta))


def refit_serving(registry: Registry, data: ServingData, apart: ServingData, emit: Emit,
                  show_rows: bool = False) -> tuple[dict[str, str], dict[str, ServingFit], Pooled]:
    """Print every serving engine's tables; return its serving block (BEGIN and END lines
    included), the constants of the engines fitted on rows of their own, and the rows with
    their held-out ratios for the pooled table."""
    fits: dict[str, ServingFit] = {}
    blocks: dict[str, str] = {}
    pooled: Pooled = []
    for engine in sorted(data):
        rows = data[engine]
        if not enough_devices(rows):
            continue
        fitted = fits[engine] = fit(rows, registry)
        in_sample = ratios(rows, fitted)
        by_device = held_out(rows, "hardware", registry)
        by_source = held_out(rows, "source", registry)
        emit(f"{engine}: {rows.n} rows on {len(set(rows.hardware))} devices from "
             f"{len(set(rows.source))} pages")
        for title, r in (("fitted on every row (in-sample)", in_sample),
                         ("held out by device (fitted without the row's device)", by_device),
                         ("held out by source (fitted without the row's page)", by_source)):
            emit(f"\n{title}\n{HEADER}")
            emit("\n".join(report(rows, r)))
        if engine in apart:
            emit(f"\nscored apart with these constants (never fitted on)\n{HEADER}")
            emit("\n".join(report(apart[engine], ratios(apart[engine], fitted))))
        emit("\n" + _constants_line(fitted))
        if show_rows:
            for item, a, b, c in zip(rows.items, in_sample, by_device, by_source):
                emit(f"  {a:5.2f} {b:5.2f} {c:5.2f}  {item['metric']:10s} {item['model']} "
                     f"{item['quant']} on {item['hardware']} I{item['prompt']:.0f} "
                     f"O{item['generate']:.0f} R{item['running_sequences']:.0f}  {item['location']}")
        blocks[engine] = pack_serving_block(serving_block(engine, rows, fitted, in_sample,
                                                          by_device, by_source))
        pooled.append((rows, by_device, by_source))
        emit("")
    # the serving engines without rows on MIN_DEVICES devices borrow the fitted engine's
    # figures, and fitproof validate scores them on their own rows
    for engine in SERVING_ENGINES:
        if engine in blocks or engine not in registry.engines or SERVING_DONOR not in blocks:
            continue
        own = data.get(engine)
        count = own.n if own is not None else 0
        emit(f"{engine}: {count} rows on {len(set(own.hardware)) if own else 0} device(s), "
             f"too few for a fit of its own; {SERVING_DONOR}'s figures stand in")
        if engine in apart or own is not None:
            donor = fits[SERVING_DONOR]
            for title, scored in (("scored with them", own),
                                  ("scored apart with them", apart.get(engine))):
                if scored is not None:
                    emit(f"\n{title}\n{HEADER}")
                    emit("\n".join(report(scored, ratios(scored, donor))))
            emit("")
            if own is not None:  # rows of an engine the figures were never fitted on
                r = ratios(own, donor)
                pooled.append((own, r, r))
        blocks[engine] = borrowed(blocks[SERVING_DONOR], engine)
    return blocks, fits, pooled


def check_formulas(registry: Registry, data: ServingData, fits: dict[str, ServingFit],
                   emit: Emit) -> int:
    """fitproof's formulas (``registry``, with the written constants) against this fit's
    predictions: 0 when within 1 %."""
    entries, scenarios = measurement_scenarios(registry)
    batch = Batch(registry, scenarios)
    values = {m: batch.values(m) for m in METRICS}
    expected = {}
    for engine, rows in data.items():
        # an engine without a fit of its own is predicted with the figures it borrows
        layout, theta = fits.get(engine, fits[SERVING_DONOR])
        for item, value in zip(rows.items, predict(rows, layout.constants(theta, rows))):
            expected[item["location"]] = value
    worst = 0.0
    for i, (pack, index, row) in enumerate(entries):
        want = expected.get(pack.pack.at("rows", index))
        got = values[row.metric][i] if row.metric in values else None
        if want is None or got is None or not math.isfinite(want):
            continue
        worst = max(worst, abs(got / want - 1))
    emit(f"fitproof's formulas vs this script: largest difference {100 * worst:.2f} %")
    return 0 if worst < 0.01 else 1
