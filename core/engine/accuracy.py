"""How far a profile's speeds are from public measurements (``fitproof validate``).

Every row of the measurement packs is evaluated as the scenario it was taken in; the
prediction over the measurement, and the absolute percentage error, are summarised per
group (metric, and optionally device class, engine, dense or MoE, backend).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ..errors import InputError
from ..registry.index import Registry
from ..specs import MeasurementPack, MeasurementRow
from ..views.results import (Accuracy, GroupScore, MeasuredRun, MeasurementsView, Scored,
                             key_setup, measurement_key, order_runs)
from .scenario import Scenario, figure_value, resolve_scenario

GROUPS = ("device", "engine", "moe", "backend")


def _group_of(registry: Registry, row: MeasurementRow, group_by: Sequence[str]) -> tuple[str, ...]:
    hardware = registry.hardware[row.hardware]
    model = registry.models[row.model]
    experts = figure_value(getattr(model, "num_experts", None))
    values = {
        "device": "unified" if hardware.unified_memory else "discrete",
        "engine": row.engine,
        "moe": "moe" if experts else "dense",
        "backend": row.backend or hardware.backend or "unknown",
    }
    return (row.metric, *(values[key] for key in group_by))


IDENTICAL_MOE_BATCH = (
    "identical sequences of a mixture-of-experts model (their routers pick the same experts, "
    "where fitproof's batch is of independent requests)")


EXPERTS_ON_HOST = (
    "routed experts kept in system memory (--n-cpu-moe), which the speed fit does not cover: "
    "prefill's host-copy efficiency is derived from five of these rows (the engine pack's "
    "host_copy_efficiency says which)")


TUNED_ENGINE = ("an engine run at settings other than its defaults or a build other than a "
                "release (the row's note names them)")


def outside_model(registry: Registry, row: MeasurementRow) -> str | None:
    """Why the row's workload is not the scenario the profile models, or None if it is.

    A batch of identical sequences (llama-batched-bench's) reads, in a mixture-of-experts
    model, only the experts one sequence picks; fitproof's batch is of independent requests,
    whose routers pick experts apart (``experts_touched_share``). Such rows are scored apart
    and fit no constant."""
    if row.sequences == "identical" and row.batch > 1:
        experts = figure_value(getattr(registry.models[row.model], "num_experts", None))
        if experts:
            return IDENTICAL_MOE_BATCH
    if row.cpu_moe:
        return EXPERTS_ON_HOST
    if row.missing:
        return "the source does not state " + " or ".join(sorted(row.missing))
    if row.tuned:
        return TUNED_ENGINE
    return None


def _summaries(members: Sequence[Scored], group: tuple[str, ...]) -> GroupScore:
    apes = [s.ape for s in members if s.ape is not None]
    ratios = [s.ratio for s in members if s.ratio is not None]
    return GroupScore(group, len(apes), len(members) - len(apes),
                      statistics.mean(apes) if apes else None,
                      statistics.median(apes) if apes else None,
                      statistics.median(ratios) if ratios else None)


def measurement_scenarios(registry: Registry) -> tuple[
        list[tuple[MeasurementPack, int, MeasurementRow]], list[Scenario]]:
    """Every row of the loaded measurement packs, and the scenario it was measured in."""
    entries = [(pack, index, row) for pack in registry.measurements.values()
               for index, row in enumerate(pack.rows)]
    if not entries:
        raise InputError("no measurement pack is loaded (packs/measurements/)")
    return entries, [row_scenario(registry, row) for _, _, row in entries]


def row_scenario(registry: Registry, row: MeasurementRow) -> Scenario:
    """The scenario a measurement row was taken in."""
    inputs: dict[str, float | None] = {
        "context": row.context,
        "prompt": row.context if row.prompt is None else row.prompt,
        "generate": row.generate, "gpus": row.gpus, "batch": row.in_flight, "ubatch": row.ubatch,
        "cpu_moe": row.cpu_moe, "arrival": 1 if row.burst else 0}
    hardware = registry.hardware.get(row.hardware)
    if hardware is not None and hardware.unified_memory:
        # the run shows the model fit on the GPU: its machine let the GPU use what it
        # needed (a Mac's iogpu.wired_limit_mb raised, say), up to the whole memory
        inputs["gpu_memory_limit"] = float(hardware.memory_gb.value)
    return resolve_scenario(registry, model=row.model, hardware=row.hardware, quant=row.quant,
                            kv=row.kv, engine=row.engine, host=row.host, inputs=inputs,
                            backend=row.backend)


def row_key(registry: Registry, row: MeasurementRow) -> str:
    """The row's :func:`measurement_key` (a backend the device's pack names is its own)."""
    own = registry.hardware[row.hardware].backend
    backend = None if row.backend in (None, own) else row.backend
    return measurement_key(row.model, row.hardware, row.quant, row.kv, row.engine, backend,
                           row.gpus, row.in_flight, row.cpu_moe or 0)


def scenario_key(scenario: Scenario) -> str:
    """The scenario's :func:`measurement_key`."""
    inputs = scenario.inputs
    return measurement_key(scenario.model, scenario.hardware, scenario.quant, scenario.kv,
                           scenario.engine, scenario.backend, inputs.get("gpus", 1),
                           inputs.get("batch", 1), inputs.get("cpu_moe", 0) or 0)


def measured_runs(registry: Registry, scenario: Scenario) -> tuple[MeasuredRun, ...]:
    """The public measurements of ``scenario`` (its :func:`scenario_key`), each with the
    profile's figure for the run as measured, in :func:`order_runs` order. A metric the
    profile has no formula for is left out."""
    key = scenario_key(scenario)
    entries = [(pack, index, row) for pack in registry.measurements.values()
               for index, row in enumerate(pack.rows)
               if row.model == scenario.model and row.hardware == scenario.hardware
               and row.metric in registry.graph.formulas and row_key(registry, row) == key]
    runs = _runs(registry, entries)
    return order_runs(runs.get(key, []), scenario.inputs.get("prompt", 0))


def runs_by_key(registry: Registry) -> dict[str, list[MeasuredRun]]:
    """Every measurement the profile has a formula for, as a run, by :func:`row_key` (what
    a snapshot stores, so that it shows them as the full path does)."""
    return _runs(registry, [(pack, index, row) for pack in registry.measurements.values()
                            for index, row in enumerate(pack.rows)
                            if row.metric in registry.graph.formulas])


def measurements(registry: Registry, *, model: str | None = None,
                 hardware: str | None = None, quant: str | None = None,
                 engine: str | None = None, pack: str | None = None) -> MeasurementsView:
    """``fitproof measurements`` (``fitproof.api.measurements``): the measurement rows of a
    model, device, format, engine or pack (ids or aliases; ``None`` for any), each with the
    prediction for the run."""
    return listed_runs(registry, model=model, hardware=hardware, quant=quant, engine=engine,
                       pack=pack)


def listed_runs(registry: Registry, *, model: str | None = None, hardware: str | None = None,
                quant: str | None = None, engine: str | None = None,
                pack: str | None = None) -> MeasurementsView:
    """``fitproof measurements``: every row of the filters (ids or aliases; ``None`` for
    any; ``pack``: the rows of one measurement pack), by setup, metric and depth."""
    wanted = {"model": model and registry.resolve("model", model),
              "hardware": hardware and registry.resolve("hardware", hardware),
              "quant": quant and registry.resolve("quant", quant),
              "engine": engine and registry.resolve("engine", engine)}
    entries = [(found, index, row) for found in registry.measurements.values()
               if pack is None or found.id == pack
               for index, row in enumerate(found.rows) if row.metric in registry.graph.formulas
               and all(value is None or getattr(row, key) == value
                       for key, value in wanted.items())]
    listed = [(key_setup(key), run) for key, runs in _runs(registry, entries).items()
              for run in runs]
    listed.sort(key=lambda item: (*(str(v) for v in item[0].values()), item[1].metric,
                                  item[1].prompt, item[1].location))
    return MeasurementsView(wanted, tuple(listed))


def _runs(registry: Registry, entries: Sequence[tuple[MeasurementPack, int, MeasurementRow]],
          ) -> dict[str, list[MeasuredRun]]:
    if not entries:
        return {}
    from .estimation import Batch

    batch = Batch(registry, [row_scenario(registry, row) for _, _, row in entries])
    columns = {metric: batch.values(metric) for metric in {row.metric for _, _, row in entries}}
    runs: dict[str, list[MeasuredRun]] = {}
    for i, (pack, index, row) in enumerate(entries):
        runs.setdefault(row_key(registry, row), []).append(MeasuredRun(
            row.metric, row.value, columns[row.metric][i],
            row.context if row.prompt is None else row.prompt, row.generate,
            row.engine_version, row.date, row.source, str(pack.pack.at("rows", index)),
            outside_model(registry, row)))
    return runs


def score(registry: Registry, group_by: Sequence[str] = ()) -> Accuracy:
    """Every measurement of ``registry`` against its profile's prediction."""
    unknown_keys = [key for key in group_by if key not in GROUPS]
    if unknown_keys:
        raise InputError(f"cannot group by {unknown_keys[0]!r}; choose from {', '.join(GROUPS)}")
    from .estimation import Batch

    entries, scenarios = measurement_scenarios(registry)
    # a metric the profile has no formula for (the seed pages knew no serving engine) is not
    # scored
    kept = [i for i, (_, _, row) in enumerate(entries) if row.metric in registry.graph.formulas]
    entries, scenarios = [entries[i] for i in kept], [scenarios[i] for i in kept]
    batch = Batch(registry, scenarios)
    columns = {metric: batch.values(metric) for metric in {row.metric for _, _, row in entries}}
    scored = tuple(
        Scored(row, pack.pack.at("rows", index), _group_of(registry, row, group_by),
               columns[row.metric][i], outside_model(registry, row))
        for i, (pack, index, row) in enumerate(entries))
    modelled = [s for s in scored if s.outside is None]
    groups = tuple(_summaries([s for s in modelled if s.group == group], group)
                   for group in sorted({s.group for s in modelled}))
    apart = tuple(_summaries([s for s in scored if (s.row.metric, s.outside) == key], key)
                  for key in sorted({(s.row.metric, s.outside) for s in scored
                                     if s.outside is not None}))
    held_out = tuple((engine_id, engine.held_out_accuracy)
                     for engine_id, engine in sorted(registry.engines.items())
                     if engine.held_out_accuracy is not None
                     and engine.held_out_accuracy.profile == registry.profile)
    return Accuracy(registry.profile, tuple(group_by), scored, groups, apart, held_out)
