"""A single estimate from a snapshot (``fast/build.py``), in plain Python.

The same scenario resolution, formulas, selections and verdict as the full path
(``engine/scenario.py``, ``engine/evaluator.py``, ``engine/estimation.py``), for one scenario row, over the
snapshot's data: no numpy, sympy, jsonschema, yaml, cattrs or pluggy. What this path does
not handle itself returns ``None``, and the caller takes the full path, which gives the
same answer or the exact error message: a name that is not an exact id or alias, an
input out of range, another backend, a verdict no rule decides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError
from ..formula.scalar import NAN, Scalar, compile_data, finite
from ..registry.input_checks import checked_input, tensor_split_problem
from ..registry.names import LazyStages, matching_ids
from ..registry.scenario_checks import outcome
from ..views.estimate import (SELECTORS, EstimateView, MeasuredRun, Override, Quantity, Scenario,
                              Verdict, measurement_key, order_runs, verdict_of)
from .select import (Group, SnapshotSelections, figure_of, finite_or_none, key_value,
                     keyed_value)


class _Definition:
    """An input's definition as :func:`checked_input` reads it."""

    def __init__(self, data: Mapping[str, Any]):
        self.type: str = data["type"]
        self.unit: str = data["unit"]
        self.minimum: float | None = data["minimum"]
        self.exclusive_minimum: float | None = data["exclusive_minimum"]
        self.maximum: float | None = data["maximum"]
        self.choices: Mapping[str, float] = data["choices"]


class SnapshotModel(SnapshotSelections):
    """A snapshot's data with its formula trees compiled (once per process)."""

    def __init__(self, data: Mapping[str, Any]):
        self.data = data
        self.measured: Mapping[str, list[list[Any]]] = data["measured"]
        self.formulas: dict[str, Scalar] = {n: compile_data(f["tree"])
                                            for n, f in data["formulas"].items()}
        self.dispatched = {n: {family: compile_data(t) for family, t in by.items()}
                           for n, by in data["dispatched"].items()}
        self.verdicts = [compile_data(v["when"]) for v in data["verdicts"]]
        self.where = {n: compile_data(s["where"]) for n, s in data["selections"].items()}
        self.minimize = {n: [compile_data(t) for t in s["minimize"]]
                         for n, s in data["selections"].items()}
        # per selection: the row values its candidates read as they are (not the formulas
        # a candidate changes, which are computed for it)
        self.row_reads = {n: [r for r in s["reads"] if r not in changed]
                          for n, s in data["selections"].items()
                          for changed in [set(s["recompute"])]}
        self._name_stages: dict[str, LazyStages] = {}
        self._packs_groups: dict[str, list[list[int]]] = {}
        # per selection: the formulas its candidates change that do not read the inputs a
        # candidate sets (a device count), so candidates of the same packs share them
        self.per_entities = {n: set(s["per_entities"]) for n, s in data["selections"].items()}
        self._candidate_overlays: dict[tuple[Any, ...],
                                       list[tuple[dict[str, float], list[tuple[str, str, str]]]]] = {}

    # -- resolution ---------------------------------------------------------------------
    def _stages(self, kind: str) -> LazyStages:
        if kind not in self._name_stages:
            self._name_stages[kind] = LazyStages(self.data["names"][kind])
        return self._name_stages[kind]

    def resolve(self, choices: Mapping[str, str | None],
                inputs: Mapping[str, Any]) -> Scenario | None:
        """The scenario as ``resolve_scenario`` resolves it, or ``None`` where it would
        need more than exact names and inputs in range (then it raises, or suggests)."""
        data = self.data
        preset = data["preset"]
        resolved: dict[str, str] = {}
        for key in ("workload", *[k for k in SELECTORS if k != "workload"]):
            name = choices.get(key)
            if name is None:
                implied = (data["workloads"][resolved["workload"]]["quant"]
                           if key == "quant" else None)
                name = implied or preset["choices"][key]
            if not isinstance(name, str):
                return None
            hits = matching_ids(self._stages(key), name)
            if len(hits) != 1:
                return None
            resolved[key] = hits[0]
        engine = data["engines"][resolved["engine"]]
        if engine["kv_types"] and resolved["kv"] not in engine["kv_types"]:
            return None
        model = data["models"][resolved["model"]]
        fmt = data["quants"][resolved["quant"]]
        if fmt["size_basis"] == "checkpoint" and model["checkpoint_format"]:
            resolved["quant"] = model["checkpoint_format"]
            fmt = data["quants"][resolved["quant"]]
        if fmt["requires_experts"] and not model["experts"]:
            return None
        given = {k: v for k, v in inputs.items() if v is not None}
        if set(given) - set(data["inputs"]):
            return None
        values: dict[str, float] = {}
        try:
            for name, definition in data["inputs"].items():
                if name in given:
                    value = given[name]
                else:
                    value = preset["inputs"].get(name, definition["default"])
                    value = self._default_cap(resolved["model"], definition, value)
                values[name] = (NAN if value is None
                                else checked_input(name, value, _Definition(definition)))
        except InputError:
            return None
        if tensor_split_problem(values, engine["splits_tensors"], model["heads"],
                                model["name"]):
            return None
        return Scenario(model=resolved["model"], hardware=resolved["hardware"],
                        quant=resolved["quant"], kv=resolved["kv"], engine=resolved["engine"],
                        workload=resolved["workload"], host=resolved["host"], inputs=values)

    def _default_cap(self, model: str, definition: Mapping[str, Any], value: Any) -> Any:
        """A default never above the model field its input names (scenario._default_cap)."""
        field = definition.get("default_at_most")
        if field is None or value is None:
            return value
        entity = self.data["entities"][self.data["bound"]["model"][model]]
        cap = entity["fields"].get(field.partition(".")[2])
        return cap if cap and value > cap else value

    # -- evaluation ---------------------------------------------------------------------
    def _row(self, scenario: Scenario, bound: Mapping[str, Mapping[str, Any]]
             ) -> dict[str, float]:
        """The inputs and every namespace's pack values the scenario binds (``bound``)."""
        data = self.data
        env: dict[str, float] = dict(scenario.inputs)
        for namespace, fields in data["fields"].items():
            entity = bound.get(namespace)
            if entity is None:  # offers and providers: bound only inside a selection
                env.update((f"{namespace}.{f}", NAN) for f in fields)
                continue
            values = entity["fields"]  # a figure the pack leaves out is absent: unknown
            for field in fields:
                env[f"{namespace}.{field}"] = figure_of(values.get(field))
        for namespace, field, key in data["keyed"]:
            entity = bound.get(namespace)
            env[f"{namespace}.{field}"] = (
                NAN if entity is None else
                keyed_value(entity, field, key_value(key, bound[key.partition(".")[0]])))
        return env

    def evaluate(self, scenario: Scenario) -> EstimateView:
        data = self.data
        entities = data["entities"]
        bound = {key: entities[data["bound"][key][getattr(scenario, key)]] for key in SELECTORS}
        env = self._row(scenario, bound)
        chosen: dict[str, int] = {}
        groups: dict[str, Group] = {}
        family = data["models"][scenario.model]["family"]
        picks: dict[str, dict[str, Any]] = {}
        for name in data["order"]:
            if name in self.formulas:
                env[name] = finite(self.formulas[name](env))
            elif name in self.dispatched:
                formula = self.dispatched[name].get(family)
                env[name] = finite(formula(env)) if formula is not None else NAN
            elif name in data["selections"]:
                picks[name], chosen[name] = self._select(name, env, bound, groups)
            elif name in data["picked"]:
                selection, quantity = data["picked"][name]
                env[name] = self._picked(selection, quantity, chosen[selection], env, bound)
        quantities = {}
        for name in data["shown"]:
            f = data["formulas"][name]
            value = env[name]
            quantities[name] = Quantity(name, value if math.isfinite(value) else None, f["unit"],
                                        f["source"], f["description"], f["precision"],
                                        f["display"], f["approximate"])
        names = data["hardware"]
        verdict = self._verdict(env, data["engines"][scenario.engine]["name"],
                                names[scenario.hardware]["name"], scenario.quant)
        refusal, warnings = outcome(
            data["checks"], lambda name: finite_or_none(env.get(name, NAN)),
            {"model": data["models"][scenario.model]["name"],
             "hardware": names[scenario.hardware]["name"],
             "engine": data["engines"][scenario.engine]["name"]})
        return EstimateView(
            scenario=scenario, model_name=data["models"][scenario.model]["name"],
            hardware_name=names[scenario.hardware]["name"],
            engine_name=data["engines"][scenario.engine]["name"],
            host_name=names[scenario.host]["name"],
            kv_from_budget=data["engines"][scenario.engine]["kv_from_budget"],
            quantities=quantities, verdict=verdict, unknown_cause=None,
            selections={n: picks[n] for n in data["selections"]},
            hardware_unverified=bool(names[scenario.hardware].get("unverified")),
            warnings=warnings if refusal is None else None,  # type: ignore[arg-type]
            overrides=tuple(Override(*override) for override in data["overrides"]))

    def _verdict(self, env: Mapping[str, float], engine: str, hardware: str, quant: str
                 ) -> Verdict | None:
        for rule, when in zip(self.data["verdicts"], self.verdicts):
            truth = when(env)
            if truth != truth:
                return None
            if truth == 1:
                return verdict_of(rule["id"], rule["label"], rule["source"], engine, hardware,
                                  quant)
        return None


def estimate_from_snapshot(model: SnapshotModel, choices: Mapping[str, str | None],
                           inputs: Mapping[str, Any]) -> EstimateView | None:
    """The estimate view of the scenario, or ``None`` where the full path must answer."""
    scenario = model.resolve(choices, inputs)
    if scenario is None:
        return None
    key = measurement_key(
        scenario.model, scenario.hardware, scenario.quant, scenario.kv, scenario.engine,
        scenario.backend, scenario.inputs.get("gpus", 1), scenario.inputs.get("batch", 1),
        scenario.inputs.get("cpu_moe", 0) or 0)
    runs = [MeasuredRun(*run) for run in model.measured.get(key, ())]
    view = model.evaluate(scenario)._replace(
        measured=order_runs(runs, scenario.inputs.get("prompt", 0)))
    # an undecided verdict, or a refusal (the full path raises it with its message)
    return view if view.verdict is not None and view.warnings is not None else None


__all__: Sequence[str] = ("SnapshotModel", "estimate_from_snapshot")
