"""Questions answered over many scenarios at once: which models fit a device
(``models``), every combination of a sweep (``sweep``), the profile's speeds against the
measurement packs (``accuracy``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from ..registry.index import Registry
    from ..views.results import Accuracy, ModelsView, SweepView


def models(registry: Registry, *, hardware: str | None = None, search: str | None = None,
           family: str | None = None, min_params: float | None = None,
           max_params: float | None = None, quant: str | None = None,
           context: int | None = None, include_all: bool = False,
           sort: str = "size", kv: str | None = None, engine: str | None = None,
           workload: str | None = None, host: str | None = None, backend: str | None = None,
           inputs: Mapping[str, float | None] | None = None) -> ModelsView:
    """``fitproof models``: the models matching a search, evaluated on ``hardware`` if given,
    with the other choices and ``inputs`` (batch, gpus, …) of the scenario applied to each;
    a model the scenario is not valid for is left out, with why (``ModelsView.left_out``)."""
    from ..engine.queries import evaluate_models, matching_models, rank, within_size
    from ..views.results import ModelsView

    chosen = matching_models(registry, search, family=family)
    if hardware is None:
        return ModelsView(tuple(within_size(evaluate_models(registry, chosen), min_params,
                                            max_params)))
    hardware_id = registry.resolve("hardware", hardware)
    left_out: list[str] = []
    # the matching models only, evaluated once on the hardware
    rows = evaluate_models(registry, chosen, hardware=hardware_id, quant=quant,
                           context=context, left_out=left_out,
                           choices={"kv": kv, "engine": engine, "workload": workload,
                                    "host": host, "backend": backend},
                           given={k: v for k, v in (inputs or {}).items() if k != "context"})
    ranked = rank(within_size(rows, min_params, max_params), include_all=include_all,
                  sort=sort)
    gpus = (inputs or {}).get("gpus")
    name = registry.hardware[hardware_id].display_name
    return ModelsView(tuple(ranked), f"{int(gpus)}x {name}" if gpus and gpus > 1 else name,
                      tuple(left_out))


def sweep(registry: Registry, *, models: Sequence[str] | None = None,
          hardware: Sequence[str] | None = None, quants: Sequence[str] = (),
          context: Sequence[float] = (), batch: Sequence[float] = (), gpus: Sequence[float] = (),
          progress: Callable[[int, int], None] | None = None, yes: bool = False) -> SweepView:
    """Every combination of models (``None``: all), accelerators (``None``: all), formats
    and inputs, one row each with the headline quantities and the verdict (past
    ``sweep.SWEEP_LIMIT`` scenarios only with ``yes``)."""
    from ..engine.sweep import sweep as run, sweep_axes

    axes = sweep_axes(registry, models=models, hardware=hardware, quants=quants,
                      context=context, batch=batch, gpus=gpus)
    return run(registry, axes, progress, yes=yes)


def accuracy(registry: Registry, group_by: Sequence[str] = ()) -> Accuracy:
    """``fitproof validate``: the profile's speeds against the measurement packs."""
    from ..engine.accuracy import score

    return score(registry, group_by)
