"""Questions across the model library: which models fit this hardware, which match a search."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..errors import InputError
from ..registry.index import Registry
from ..views.results import ModelFit
from .estimation import Batch
from .scenario import resolve_scenario

SORT_KEYS = ("size", "speed", "headroom", "name")


def evaluate_models(registry: Registry, models: Iterable[str], *, hardware: str | None = None,
                    quant: str | None = None, context: int | None = None,
                    choices: Mapping[str, str | None] | None = None,
                    given: Mapping[str, float | None] | None = None,
                    left_out: list[str] | None = None) -> list[ModelFit]:
    """Every model in ``models`` evaluated on one accelerator, in one vectorised pass.

    ``choices`` (kv, engine, workload, host, backend) and ``given`` (scenario inputs) apply
    to every model. A model the scenario is not valid for (a tensor split its heads do not
    divide) is an error, or, with ``left_out``, is left out with the reason appended."""
    models = list(models)
    if not models:
        return []
    scenarios, kept = [], []
    chosen = dict(choices or {})
    for m in models:
        try:
            scenarios.append(resolve_scenario(
                registry, model=m, hardware=hardware, quant=quant, kv=chosen.get("kv"),
                engine=chosen.get("engine"), workload=chosen.get("workload"),
                host=chosen.get("host"), backend=chosen.get("backend"),
                inputs={**(given or {}), "context": context}))
        except InputError as exc:
            if left_out is None:
                raise
            left_out.append(f"{m}: {exc}")
            continue
        kept.append(m)
    models = kept
    if not models:
        return []
    batch = Batch(registry, scenarios)
    # a model the verdicts pack refuses for this scenario (a context past the one it was
    # trained for) is no row: an error, or left out with the refusal's message
    refused = batch.refused() if registry.graph.checks else [False] * len(models)
    for i, m in enumerate(models):
        if refused[i]:
            message = batch.checks(i)[0] or "refused"
            if left_out is None:
                raise InputError(message)
            left_out.append(f"{m}: {message}")
    columns = {name: batch.values(name) for name in
               ("params_total", "params_active", "weights_gib", "total_gib", "headroom_gib",
                "decode_tps")}
    verdicts = batch.verdicts()
    return [ModelFit(m, registry.models[m].name, registry.models[m].family,
                     columns["params_total"][i], columns["params_active"][i],
                     columns["weights_gib"][i], columns["total_gib"][i],
                     columns["headroom_gib"][i], columns["decode_tps"][i], verdicts[i])
            for i, m in enumerate(models) if not refused[i]]


def models_on(registry: Registry, hardware: str, *, quant: str | None = None,
              context: int | None = None, include_all: bool = False, sort: str = "size",
              models: Iterable[str] | None = None, left_out: list[str] | None = None,
              **inputs: float) -> list[ModelFit]:
    """Models that fit ``hardware`` (all of them with ``include_all``), best first; of
    ``models`` (ids) when given, else of the whole library. A model the scenario does not
    suit (a context past the one it was trained for) is left out, with why appended to
    ``left_out`` when given.

    ``sort``: ``size`` (largest model first), ``speed`` (fastest decode first),
    ``headroom`` (most memory left first) or ``name``.
    """
    if sort not in SORT_KEYS:
        raise InputError(f"unknown sort {sort!r}; choose one of {', '.join(SORT_KEYS)}")
    chosen = sorted(registry.models) if models is None else sorted(models)
    rows = evaluate_models(registry, chosen, hardware=hardware, quant=quant, context=context,
                           given=inputs, left_out=[] if left_out is None else left_out)
    return rank(rows, include_all=include_all, sort=sort)


def rank(rows: Iterable[ModelFit], *, include_all: bool = False, sort: str = "size"
         ) -> list[ModelFit]:
    """``rows`` that fit (all with ``include_all``), best first by ``sort``."""
    if sort not in SORT_KEYS:
        raise InputError(f"unknown sort {sort!r}; choose one of {', '.join(SORT_KEYS)}")
    if not include_all:
        rows = [r for r in rows if r.fits]

    def key(row: ModelFit) -> tuple[str] | tuple[bool, float, str]:
        missing = float("inf")
        if sort == "name":
            return (row.name.casefold(),)
        value = {"size": row.params_total, "speed": row.decode_tps,
                 "headroom": row.headroom_gib}[sort]
        return (not row.fits, -(value if value is not None else -missing), row.model)

    return sorted(rows, key=key)


def matching_models(registry: Registry, text: str | None = None, *,
                    family: str | None = None) -> list[str]:
    """Ids of the models whose id, name or aliases contain every word of ``text``, of
    ``family``: read off the packs, nothing evaluated."""
    words = re.findall(r"[a-z0-9.]+", (text or "").casefold())
    if family is not None and family not in {m.family for m in registry.models.values()}:
        families = sorted({m.family for m in registry.models.values()})
        raise InputError(f"unknown family {family!r}; choose one of {', '.join(families)}")
    chosen = []
    for model in registry.models.values():
        haystack = " ".join([model.id, model.name, *model.aliases,
                             model.architecture or ""]).casefold()
        if all(w in haystack for w in words) and (family is None or model.family == family):
            chosen.append(model.id)
    return sorted(chosen)


def within_size(rows: Iterable[ModelFit], min_params: float | None = None,
                max_params: float | None = None) -> list[ModelFit]:
    """``rows`` with a total parameter count in [min_params, max_params]."""
    return [r for r in rows
            if (min_params is None or (r.params_total or 0) >= min_params)
            and (max_params is None or (r.params_total or 0) <= max_params)]


def search_models(registry: Registry, text: str | None = None, *, family: str | None = None,
                  min_params: float | None = None, max_params: float | None = None,
                  ) -> list[ModelFit]:
    """Models whose id, name or aliases contain every word of ``text``, of ``family``, with a
    total parameter count in [min_params, max_params]."""
    rows = evaluate_models(registry, matching_models(registry, text, family=family))
    return within_size(rows, min_params, max_params)
