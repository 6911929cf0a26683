"""Cross-validation: the devices (or source pages) of each backend dealt into two halves,
constants fitted on one half and scored on the other and the other way round, over several
shuffles, pooled; the summaries, groups and error bands of the held-out ratios."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .fit import Fit
from .layout import MIN_BACKEND_ROWS
from .rows import Array, Data, Item, Rows

if TYPE_CHECKING:
    from ..registry.index import Registry

REPEATS = 20  # device splits the cross-validation averages over
SOURCE_REPEATS = 5  # source splits the by-source cross-validation averages over
# depth bands the held-out error is reported for: (label, above, at most) tokens
DEPTH_BANDS = (("depth<=4K", -1, 4096), ("depth4-16K", 4096, 16384),
               ("depth>16K", 16384, math.inf))
HEADER = ("metric       rows on       rows    MAPE  median APE  median pred/meas\n"
          "-----------  ----------  -----  ------  ----------  ----------------")
Stats = tuple[int, float, float, float]
Bands = dict[str, dict[str, tuple[tuple[float, float], int]]]


def folds(rows: Rows, repeat: int) -> Array:
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


def source_folds(rows: Rows, repeat: int) -> Array:
    """Fold (0 or 1) of every row in source split ``repeat``: the pages the rows were
    copied from, in an order drawn from a hash of (repeat, page), dealt alternately, so
    rows of one page (which share its builds and settings) are never on both sides."""
    def key(page: str) -> str:
        return hashlib.sha256(f"{repeat}:{page}".encode()).hexdigest()

    pages = sorted(set(rows.source), key=key)
    fold_of = {page: i % 2 for i, page in enumerate(pages)}
    return np.array([fold_of[p] for p in rows.source])


def stats(ratios: Array) -> Stats | None:
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


def summary(ratios: Array) -> str:
    """stats() as a line of the printed tables."""
    scored = stats(ratios)
    if scored is None:
        return f"{0:5d}  {'n/a':>6}  {'n/a':>10}  {'n/a':>16}"
    count, mape, median, ratio = scored
    return f"{count:5d}  {100 * mape:4.1f} %  {100 * median:8.1f} %  {ratio:16.2f}"


def is_moe(registry: Registry, item: Item) -> bool:
    experts = registry.models[item["model"]].num_experts
    return bool(experts is not None and float(experts.value))


def groups_of(registry: Registry, rows: Rows) -> list[tuple[str, Array]]:
    """The groups the held-out error is reported for: all rows, dense and MoE models,
    discrete and unified-memory devices, each backend."""
    groups = [("all", np.ones(rows.n, dtype=bool))]
    tests: tuple[tuple[str, Callable[[int], bool]], ...] = (
        ("dense", lambda i: not is_moe(registry, rows.items[i])),
        ("moe", lambda i: is_moe(registry, rows.items[i])),
        ("discrete", lambda i: not registry.hardware[rows.hardware[i]].unified_memory),
        ("unified", lambda i: bool(registry.hardware[rows.hardware[i]].unified_memory)))
    for label, test in tests:
        groups.append((label, np.array([bool(test(i)) for i in range(rows.n)])))
    for backend in sorted(set(rows.backend)):
        groups.append((backend, np.array([b == backend for b in rows.backend])))
    # the tokens already in the cache a decode step reads, or a prompt's length
    depth = rows.decode_depth if rows.items and rows.items[0]["metric"] == "decode_tps" \
        else rows.prompt
    for label, low, high in DEPTH_BANDS:
        groups.append((label, (depth > low) & (depth <= high)))
    return groups


def cross_validate(data: Data, engine: str, repeats: int = REPEATS,
                   user_rows: bool = True) -> dict[str, Array]:
    """Held-out predicted / measured ratios per metric, one line of them per device split
    (``repeats`` lines): in each split every row is predicted by constants fitted without
    its device (and, without ``user_rows``, without the rows of the user's packs)."""
    return _held_out(data, engine, repeats, folds, "hardware", user_rows)


def cross_validate_by_source(data: Data, engine: str,
                             repeats: int = SOURCE_REPEATS) -> dict[str, Array]:
    """As cross_validate, the rows dealt by the page they were copied from instead of the
    device (SOURCE_REPEATS splits): a page's rows share its builds and settings."""
    return _held_out(data, engine, repeats, source_folds, "source", True)


def _held_out(data: Data, engine: str, repeats: int, fold_rows: Callable[[Rows, int], Array],
              unit: str, user_rows: bool) -> dict[str, Array]:
    """Ratios of rows predicted without their ``unit`` (a row attribute: hardware or
    source), ``repeats`` two-fold splits drawn by ``fold_rows``; one split serves both
    metrics, so a device (or page) is in the same fold in prefill and decode."""
    prefill, decode = data.get((engine, "prefill_tps")), data.get((engine, "decode_tps"))
    held = {metric: np.full((repeats, rows.n), np.nan)
            for metric, rows in (("prefill_tps", prefill), ("decode_tps", decode)) if rows is not None}

    def train(rows: Rows | None, fold_of: dict[str, int], f: int) -> Rows | None:
        if not rows:
            return None
        return rows.subset([fold_of[u] != f and (user_rows or not user)
                            for u, user in zip(getattr(rows, unit), rows.user)])

    for repeat in range(repeats):
        fold_of: dict[str, int] = {}
        for rows in (r for r in (prefill, decode) if r is not None):
            for u, f in zip(getattr(rows, unit), fold_rows(rows, repeat)):
                fold_of.setdefault(u, f)
        for f in (0, 1):
            fit = Fit(train(prefill, fold_of, f), train(decode, fold_of, f))
            for metric, scored in (("prefill_tps", prefill), ("decode_tps", decode)):
                if scored is None:
                    continue
                test = np.array([fold_of[u] == f for u in getattr(scored, unit)])
                held[metric][repeat, test] = (fit.predict(scored, metric) / scored.value)[test]
    return held


def band(ratios_pred_over_meas: Array) -> tuple[float, float]:
    """10th and 90th percentiles of measured / predicted, every split's ratios pooled."""
    measured_over_predicted = 1 / ratios_pred_over_meas[np.isfinite(ratios_pred_over_meas)]
    return (float(np.percentile(measured_over_predicted, 10)),
            float(np.percentile(measured_over_predicted, 90)))


def bands_of(rows_by_metric: dict[str, Rows], held: dict[str, Array]) -> Bands:
    """Error bands per metric and backend from the held-out ratios (one line per split); the
    count is of rows with a held-out prediction."""
    result: Bands = {}
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
