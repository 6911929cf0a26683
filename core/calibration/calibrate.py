"""``fitproof calibrate``: the speed constants refitted on the shipped measurement rows plus
the user's (``fitproof bench ingest``), written as a profile pack in the user's pack folder,
with the held-out error of the shipped and the refitted constants on the same rows: the
single-stream constants of each engine with single-stream rows of the user's, the serving
constants (``serving_calibrate``) of each serving engine with serving rows of the user's."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..files.pack_files import USER_PACKS_ORIGIN
from ..importers.hub import user_pack_folder_or_error
from ..importers.writer import write_pack
from ..specs import CalibrationScore
from ..views.results import CalibrationView
from .blocks import PROFILE, pack_block
from .crossval import bands_of, cross_validate, groups_of, stats
from .engine_packs import drop_keys
from .fit import Fit, require_scipy
from .profile_pack import METRICS, check_name, profile_text
from .refit import MIN_ENGINE_ROWS, fittable, rows_of
from .rows import Array, Data, Rows, load
from .serving_calibrate import refit_serving_engine, serving_engines
from .serving_rows import SERVING, SERVING_ENGINES, load_serving

if TYPE_CHECKING:
    from ..registry.index import Registry

COMMAND = "fitproof calibrate"
DEFAULT_REPEATS = 5  # device splits; benchmarks/fit_speed.py pools 20
MAX_REPEATS = 100  # each split is a fit: 100 take minutes; a billion would not fit in memory


def calibrate(registry: Registry, *, name: str = "mine", engine: str | None = None,
              repeats: int = DEFAULT_REPEATS, force: bool = False,
              out: str | None = None) -> CalibrationView:
    """Refit the speed constants of ``engine`` (default: every engine with enough rows) on
    the shipped rows and the user's, write them as profile ``name`` (extending the
    measured profile) into ``out`` (default: ``profiles`` in the user's pack folder), and
    score the shipped and the refitted constants by the same device-split
    cross-validation (``repeats`` splits) on the same rows."""
    if not 1 <= repeats <= MAX_REPEATS:  # before anything else: the splits' work grows with it
        raise InputError(f"--repeats {repeats}: give from 1 to {MAX_REPEATS} device splits")
    require_scipy()
    check_name(registry, name)
    folder = Path(out) if out else user_pack_folder_or_error() / "profiles"
    path = folder / f"{name}.yaml"
    if path.exists() and not force:  # before the fit, which takes a while
        raise InputError(f"{path} exists; pass --force to overwrite it")
    base = registry.with_profile(PROFILE)
    data = load(base)
    serving_data = load_serving(base)
    wanted = base.resolve("engine", engine) if engine is not None else None
    engines, notes = _engines(data, wanted)
    serving, serving_notes = serving_engines(serving_data, wanted)
    notes += serving_notes
    if not engines and not serving:
        if notes:
            raise InputError("; ".join(notes))
        known = sorted({e for e, _ in data if fittable(data, e)} | set(SERVING_ENGINES))
        raise InputError(f"no measurement row of yours is of {wanted or ' or '.join(known)}; "
                         "add your benchmark outputs with fitproof bench ingest FILE")
    scores: list[CalibrationScore] = []
    blocks: dict[str, str] = {}
    rows = dict.fromkeys(METRICS, 0) if engines else {}
    user_rows = dict.fromkeys(METRICS, 0) if engines else {}
    for engine_id in engines:
        by_metric = {m: r for m, r in rows_of(data, engine_id).items() if m in METRICS}
        for metric, metric_rows in by_metric.items():
            rows[metric] += metric_rows.n
            user_rows[metric] += int(metric_rows.user.sum())
        shipped = cross_validate(data, engine_id, repeats, user_rows=False)
        held = cross_validate(data, engine_id, repeats)
        fit = Fit(by_metric.get("prefill_tps"), by_metric.get("decode_tps"))
        scores += _scores(engine_id, by_metric, shipped, held, fit)
        blocks[engine_id] = _block(base, data, engine_id, by_metric, held, fit, name, repeats)
    for engine_id in serving:
        refit = refit_serving_engine(base, serving_data, engine_id, command=COMMAND, profile=name)
        scores += refit.scores
        blocks[engine_id] = _merge(blocks.get(engine_id), refit.block)
        for metric, count in refit.rows.items():
            rows[metric] = rows.get(metric, 0) + count
            user_rows[metric] = user_rows.get(metric, 0) + refit.user_rows[metric]
    order = METRICS + SERVING
    rows = {m: rows[m] for m in sorted(rows, key=order.index)}
    user_rows = {m: user_rows[m] for m in rows}
    refitted = sorted(set(engines) | set(serving))
    packs = [p for p in base.packs if p.kind == "measurements"]
    command = " ".join([COMMAND, "--name", name, "--repeats", str(repeats)]
                       + (["--engine", refitted[0]] if engine else []))
    text = profile_text(name, PROFILE, command, datetime.date.today().isoformat(),
                        sorted(p.id for p in packs),
                        sorted(p.id for p in packs if p.origin == USER_PACKS_ORIGIN),
                        rows, user_rows, repeats, scores, blocks)
    written = write_pack(text, folder, name, force=force)
    return CalibrationView(name, PROFILE, str(written), tuple(refitted), rows, user_rows,
                           repeats, tuple(scores), tuple(notes))


def _merge(speed: str | None, serving: str) -> str:
    """An engine's refitted blocks as one: the serving block's constants replace the
    single-stream block's of the same names (as in the engine packs, whose fitted speed
    block leaves out what their serving block holds)."""
    if speed is None:
        return serving
    keys = {line.split(":")[0] for line in serving.splitlines() if line[:1].isalpha()}
    return drop_keys(speed + "\n", keys).rstrip("\n") + "\n" + serving


def _engines(data: Data, engine: str | None) -> tuple[list[str], list[str]]:
    """The engines whose single-stream constants to refit: ``engine`` (or every engine)
    with single-stream rows of the user's and enough rows for a fit; and one line for each
    other engine with such rows of the user's, saying why it is not refitted."""
    refit, notes = [], []
    for name in sorted({e for e, _ in data}) if engine is None else [engine]:
        mine = sum(int(rows.user.sum()) for metric, rows in rows_of(data, name).items()
                   if metric in METRICS)
        if not mine:
            continue
        if fittable(data, name):
            refit.append(name)
            continue
        decode = data.get((name, "decode_tps"))
        notes.append(f"{name}: {mine} single-stream rows of yours, but "
                     f"{decode.n if decode else 0} decode_tps rows in all; a fit of its "
                     f"single-stream constants needs {MIN_ENGINE_ROWS} on at least two "
                     "devices: not refitted")
    return refit, notes


def _scores(engine: str, by_metric: dict[str, Rows], shipped: dict[str, Array],
            held: dict[str, Array], fit: Fit) -> list[CalibrationScore]:
    """The held-out error of both sets of constants on all rows and on the user's, and
    their error on the user's rows when fitted on every row (the shipped constants on the
    shipped rows, the calibrated ones on those and the user's)."""
    shipped_fit = Fit(*(None if rows is None else rows.subset(~rows.user) for rows in
                        (by_metric.get("prefill_tps"), by_metric.get("decode_tps"))))
    result = []
    for metric in METRICS:
        if metric not in held:
            continue
        metric_rows = by_metric[metric]
        groups = (("all", np.ones(metric_rows.n, dtype=bool), shipped, held),
                  ("yours", metric_rows.user, shipped, held),
                  ("yours-in-fit", metric_rows.user,
                   {metric: shipped_fit.predict(metric_rows, metric)[None] / metric_rows.value},
                   {metric: fit.predict(metric_rows, metric)[None] / metric_rows.value}))
        for group, mask, before, after in groups:
            for constants, ratios in (("shipped", before), ("calibrated", after)):
                scored = stats(ratios[metric][:, mask]) if mask.any() else None
                if scored is not None:
                    result.append(CalibrationScore(engine, metric, constants, group, *scored))
    return result


def _block(registry: Registry, data: Data, engine: str, by_metric: dict[str, Rows],
           held: dict[str, Array], fit: Fit, name: str, repeats: int) -> str:
    """The engine's fitted block: ``fit``, on every row (the user's included)."""
    scores = [(metric, label, scored) for metric, ratios in sorted(held.items())
              for label, mask in groups_of(registry, by_metric[metric])
              if (scored := stats(ratios[:, mask])) is not None]
    return pack_block(engine, fit, {k: v for k, v in data.items() if k[0] == engine}, held,
                      bands_of(by_metric, held), scores, command=COMMAND, repeats=repeats,
                      source_repeats=0, profile=name)
