"""Sweeps: every combination of models, accelerators, weight formats and inputs, evaluated
in batches, one row per scenario with the report's headline quantities and the verdict.

A combination that cannot be evaluated (a format for MoE experts on a dense model, a
tensor split that does not divide the heads) is a row too, with its reason and no numbers,
so the table always has every combination asked for.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import attrs

from ..errors import FitproofError, InputError
from ..files.own_output import check_size
from ..registry.index import Registry
from ..views.results import Scenario, SweepView
from .estimation import Batch
from .scenario import check_input, input_default, resolve_scenario

CHUNK = 20_000  # scenarios per batch: bounds memory, and the progress bar's step
# scenarios a sweep runs without --yes (about a minute, some hundreds of MB of rows)
SWEEP_LIMIT = 500_000
# the inputs a sweep varies, each a column of its table
SWEPT_INPUTS = ("context", "batch", "gpus")

Progress = Callable[[int, int], None]


@attrs.frozen
class SweepAxes:
    """What a sweep varies: ids (resolved), and values of each swept input (None: the
    default scenario's)."""

    models: tuple[str, ...]
    hardware: tuple[str, ...]
    quants: tuple[str | None, ...] = (None,)
    context: tuple[float | None, ...] = (None,)
    batch: tuple[float | None, ...] = (None,)
    gpus: tuple[float | None, ...] = (None,)

    @property
    def size(self) -> int:
        return (len(self.models) * len(self.hardware) * len(self.quants) * len(self.context)
                * len(self.batch) * len(self.gpus))


def sweep_axes(registry: Registry, *, models: Sequence[str] | None = None,
               hardware: Sequence[str] | None = None, quants: Sequence[str] = (),
               context: Sequence[float] = (), batch: Sequence[float] = (),
               gpus: Sequence[float] = ()) -> SweepAxes:
    """Resolve names (ids or aliases; ``None``: every model, every accelerator)."""
    model_ids = (tuple(sorted(registry.models)) if models is None
                 else tuple(dict.fromkeys(registry.resolve("model", m) for m in models)))
    hardware_ids = (tuple(sorted(registry.accelerators)) if hardware is None
                    else tuple(dict.fromkeys(registry.resolve("hardware", h) for h in hardware)))
    quant_ids = tuple(dict.fromkeys(registry.resolve("quant", q) for q in quants)) or (None,)
    if not model_ids or not hardware_ids:
        raise InputError("a sweep needs at least one model and one accelerator")
    # an input out of range is wrong for every combination: refused before any is evaluated
    values = {name: tuple(check_input(registry, name, v) for v in given) or (None,)
              for name, given in (("context", context), ("batch", batch), ("gpus", gpus))}
    return SweepAxes(model_ids, hardware_ids, quant_ids, **values)


def sweep_columns(registry: Registry) -> tuple[str, ...]:
    """The quantities a sweep writes: the report pack's headline and bands, in that order,
    those the profile defines."""
    if registry.report is None:
        raise FitproofError("no report pack is loaded (packs/reports/): a sweep writes the "
                            "quantities its headline names")
    names = [*registry.report.headline.values(), *registry.report.bands.values()]
    return tuple(n for n in dict.fromkeys(names) if n in registry.graph.formulas)


def sweep(registry: Registry, axes: SweepAxes, progress: Progress | None = None, *,
          yes: bool = False) -> SweepView:
    """Evaluate every combination of ``axes``; ``progress(done, total)`` before the first
    batch and after each. Past ``SWEEP_LIMIT`` scenarios, only with ``yes``."""
    check_size(axes.size, SWEEP_LIMIT, job="sweep", unit="scenarios", yes=yes,
               narrow="--models, --on, --quant, --context, --batch or --gpus")
    quantities = sweep_columns(registry)
    keys = ("model", "hardware", "quant", *SWEPT_INPUTS, "verdict")
    data: dict[str, list[object]] = {name: [] for name in (*keys, *quantities, "error")}
    total, done = axes.size, 0
    pending: list[Scenario] = []
    if progress is not None:
        progress(0, total)

    def flush() -> None:
        nonlocal done
        if pending:
            batch = Batch(registry, pending)
            for name in quantities:  # NaN: unknown
                data[name].extend(batch.array(name).tolist())
            data["verdict"].extend(batch.verdict_ids())
            for scenario in pending:
                data["model"].append(scenario.model)
                data["hardware"].append(scenario.hardware)
                data["quant"].append(scenario.quant)
                for name in SWEPT_INPUTS:
                    data[name].append(_number(scenario.inputs.get(name)))
                data["error"].append(None)
            done += len(pending)
            pending.clear()
        if progress is not None:
            progress(done, total)

    for model, quant, context, batch_size, gpus in itertools.product(
            axes.models, axes.quants, axes.context, axes.batch, axes.gpus):
        inputs = {"context": context, "batch": batch_size, "gpus": gpus}
        try:
            # resolved once for the first accelerator; the others differ only in the id
            base = resolve_scenario(registry, model=model, hardware=axes.hardware[0],
                                    quant=quant, inputs=inputs)
        except InputError as exc:
            flush()  # rows stay in the order of the axes
            given = {n: _number(input_default(registry, n)[0] if v is None else v)
                     for n, v in inputs.items()}
            for hardware in axes.hardware:
                for name, value in (("model", model), ("hardware", hardware),
                                    ("quant", quant), ("verdict", None), ("error", str(exc)),
                                    *given.items()):
                    data[name].append(value)
                for name in quantities:
                    data[name].append(math.nan)
            done += len(axes.hardware)
            continue
        pending.extend(base._replace(hardware=h) for h in axes.hardware)
        if len(pending) >= CHUNK:
            flush()
    flush()
    units = {name: registry.graph.formulas[name].definition.unit for name in quantities}
    return SweepView(columns=(*keys, *quantities, "error"), units=units, data=data)


def _number(value: float | None) -> float | int | None:
    """An input as the table shows it: whole numbers without a decimal point."""
    if value is None or math.isnan(value):
        return None
    return int(value) if float(value).is_integer() else value
