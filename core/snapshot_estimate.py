"""A single estimate from a snapshot (``snapshot_build.py``), in plain Python.

The same scenario resolution, formulas, selections and verdict as the full path
(``scenario.py``, ``evaluator.py``, ``estimation.py``), for one scenario row, over the
snapshot's data: no numpy, sympy, jsonschema, yaml, cattrs or pluggy. What this path does
not handle itself returns ``None``, and the caller takes the full path, which gives the
same answer or the exact error message: a name that is not an exact id or alias, an
input out of range, another backend, a verdict no rule decides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import InputError
from .input_checks import checked_input, tensor_split_problem
from .names import LazyStages, matching_ids
from .scalar import INF, NAN, Scalar, compile_data, finite
from .estimate_view import SELECTORS, EstimateView, Quantity, Scenario, Verdict


class _Definition:
    """An input's definition as :func:`checked_input` reads it."""

    def __init__(self, data: Mapping[str, Any]):
        self.type: str = data["type"]
        self.unit: str = data["unit"]
        self.minimum: float | None = data["minimum"]
        self.exclusive_minimum: float | None = data["exclusive_minimum"]
        self.maximum: float | None = data["maximum"]
        self.choices: Mapping[str, float] = data["choices"]


def _value(number: float | None) -> float:
    return NAN if number is None else float(number)


class _Group:
    """The candidates of one list as one evaluation sees them: each one's values, which of
    the row's values were copied in, which formulas were computed for all of them."""

    def __init__(self, children: list[dict[str, float]], names: set[str]):
        self.children = children
        self.names = names
        self.computed: set[str] = set()


class SnapshotModel:
    """A snapshot's data with its formula trees compiled (once per process)."""

    def __init__(self, data: Mapping[str, Any]):
        self.data = data
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
                env[f"{namespace}.{field}"] = _value(values.get(field))
        for namespace, field, key in data["keyed"]:
            entity = bound.get(namespace)
            env[f"{namespace}.{field}"] = (
                NAN if entity is None else
                _keyed(entity, field, _key_value(key, bound[key.partition(".")[0]])))
        return env

    def evaluate(self, scenario: Scenario) -> EstimateView:
        data = self.data
        entities = data["entities"]
        bound = {key: entities[data["bound"][key][getattr(scenario, key)]] for key in SELECTORS}
        env = self._row(scenario, bound)
        chosen: dict[str, int] = {}
        groups: dict[str, _Group] = {}
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
        verdict = self._verdict(env)
        names = data["hardware"]
        return EstimateView(
            scenario=scenario, model_name=data["models"][scenario.model]["name"],
            hardware_name=names[scenario.hardware]["name"],
            engine_name=data["engines"][scenario.engine]["name"],
            host_name=names[scenario.host]["name"],
            kv_from_budget=data["engines"][scenario.engine]["kv_from_budget"],
            quantities=quantities, verdict=verdict, unknown_cause=None,
            selections={n: picks[n] for n in data["selections"]},
            hardware_unverified=bool(names[scenario.hardware].get("unverified")))

    def _verdict(self, env: Mapping[str, float]) -> Verdict | None:
        for rule, when in zip(self.data["verdicts"], self.verdicts):
            truth = when(env)
            if truth != truth:
                return None
            if truth == 1:
                return Verdict(rule["id"], rule["label"], rule["source"])
        return None

    def _overlays(self, name: str) -> list[tuple[dict[str, float], list[tuple[str, str, str]]]]:
        """What each candidate of selection ``name``'s list sets, whatever the row: its
        packs' fields and the inputs it gives, and the keys it looks the row's keyed
        figures up by (built once per candidate list)."""
        selection = self.data["selections"][name]
        key = (selection["collection"], tuple(selection["namespaces"]),
               tuple(selection["overridden"]))
        found = self._candidate_overlays.get(key)
        if found is None:
            found = self._candidate_overlays[key] = []
            entities = self.data["entities"]
            keyed_specs = [(ns, field, k, k.partition(".")[0]) for ns, field, k in selection["keyed"]]

            # what the formulas, conditions and keys of every selection over this list read
            read = {r for s in self.data["selections"].values()
                    if s["collection"] == selection["collection"]
                    for r in [*s["reads"], *(r for q in s["picked"].values() for f in q
                                             for r in self.reads_of(f))]}
            # what no formula reads is left out
            wanted = [(ns, [(field, f"{ns}.{field}") for field in selection["fields"][ns]
                            if f"{ns}.{field}" in read]) for ns in selection["namespaces"]]
            # candidates of the same packs (differing in the inputs they set) share their
            # fields and keys: read once per set of packs
            shared: dict[tuple[tuple[str, int], ...],
                         tuple[dict[str, float], list[tuple[str, str, str]]]] = {}
            for candidate in self.data["collections"].get(selection["collection"], []):
                bound_to = candidate["entities"]
                packs = tuple(bound_to.items())
                common = shared.get(packs)
                if common is None:
                    fields_of: dict[str, float] = {}
                    for namespace, fields_read in wanted:
                        fields = entities[bound_to[namespace]]["fields"]
                        for field, name_read in fields_read:
                            fields_of[name_read] = _value(fields.get(field))
                    common = shared[packs] = (fields_of, [
                        (namespace, field, _key_value(k, entities[bound_to[key_ns]]))
                        for namespace, field, k, key_ns in keyed_specs])
                overlay = dict(common[0])
                for input_name in selection["overridden"]:
                    overlay[input_name] = _value(candidate["inputs"][input_name])
                found.append((overlay, common[1]))
        return found

    def _same_packs(self, collection: str) -> list[list[int]]:
        """The candidates of a list grouped by the packs they bind (by position)."""
        if collection not in self._packs_groups:
            groups: dict[tuple[tuple[str, int], ...], list[int]] = {}
            for index, candidate in enumerate(self.data["collections"].get(collection, [])):
                groups.setdefault(tuple(sorted(candidate["entities"].items())), []).append(index)
            self._packs_groups[collection] = list(groups.values())
        return self._packs_groups[collection]

    def reads_of(self, formula: str) -> list[str]:
        """The names formula ``formula``'s tree reads."""
        found: list[str] = []
        stack = [self.data["formulas"][formula]["tree"]]
        while stack:
            node = stack.pop()
            if node[0] == "ref":
                found.append(node[1])
            else:
                stack.extend(part for part in node[1:] if isinstance(part, list) and part
                             and isinstance(part[0], str))
                stack.extend(item for part in node[1:] if isinstance(part, list) and part
                             and isinstance(part[0], list) for item in part)
        return found

    def _candidate_env(self, name: str, index: int, base: Mapping[str, float],
                       bound: Mapping[str, Mapping[str, Any]],
                       keyed: dict[tuple[str, str, str], float]) -> dict[str, float]:
        """The row seen from inside selection ``name`` with its candidate ``index`` bound:
        the row's values the selection reads (``base``), then what the candidate sets, and
        the row's figures keyed by the candidate's fields (``keyed`` remembers them by key)."""
        overlay, keys = self._overlays(name)[index]
        child = dict(base)
        child.update(overlay)
        for lookup in keys:
            value = keyed.get(lookup)
            if value is None:
                namespace, field, key = lookup
                row_entity = bound.get(namespace)
                value = keyed[lookup] = (NAN if row_entity is None
                                         else _keyed(row_entity, field, key))
            child[f"{lookup[0]}.{lookup[1]}"] = value
        return child

    def _select(self, name: str, env: dict[str, float],
                bound: Mapping[str, Mapping[str, Any]], groups: dict[str, _Group]
                ) -> tuple[dict[str, Any], int]:
        """Selection ``name`` on the row ``env``: what it picked (as the view shows it) and
        the pick's index; the pick's fields go into ``env``. Selections over the same
        candidates share their candidates' values (``groups``, by candidate list)."""
        data = self.data
        selection = data["selections"][name]
        candidates = data["collections"].get(selection["collection"], [])
        group = groups.get(selection["collection"])
        reads = self.row_reads[name]
        if group is None:
            keyed: dict[tuple[str, str, str], float] = {}
            base = {n: env[n] for n in reads if n in env}
            group = groups[selection["collection"]] = _Group(
                [self._candidate_env(name, i, base, bound, keyed)
                 for i in range(len(candidates))], set(reads))
        missing = [n for n in reads if n not in group.names and n in env]
        for child in group.children:
            for n in missing:
                child.setdefault(n, env[n])
        group.names.update(missing)
        per_entities = self.per_entities[name]
        for formula in selection["recompute"]:  # each after what it reads
            if formula in group.computed:
                continue
            compute = self.formulas[formula]
            if formula in per_entities:
                # the same for candidates of the same packs (they differ only in the inputs
                # they set, which it does not read): once per set of packs
                for same in self._same_packs(selection["collection"]):
                    value = finite(compute(group.children[same[0]]))
                    for index in same:
                        group.children[index][formula] = value
            else:
                for child in group.children:
                    child[formula] = finite(compute(child))
            group.computed.add(formula)
        where, minimize = self.where[name], self.minimize[name]
        best: tuple[float, ...] | None = None
        chosen, qualifying = -1, 0
        for index, child in enumerate(group.children):
            if where(child) != 1:
                continue
            qualifying += 1
            keys = tuple(_sort_key(key(child)) for key in minimize)
            if best is None or keys < best:
                best, chosen = keys, index
        entities = data["entities"]
        for namespace in reversed(selection["namespaces"]):  # the first namespace wins
            for field in selection["fields"][namespace]:
                value = NAN
                if chosen >= 0:
                    entity = entities[candidates[chosen]["entities"][namespace]]
                    value = _value(entity["fields"].get(field))
                env[f"{name}.{field}"] = value
        choice = candidates[chosen] if chosen >= 0 else None
        return ({"id": choice["id"] if choice else None,
                 "label": choice["label"] if choice else None,
                 "qualifying": qualifying, "candidates": len(candidates),
                 "source": selection["location"]}, chosen)

    def _picked(self, name: str, quantity: str, chosen: int, env: Mapping[str, float],
                bound: Mapping[str, Mapping[str, Any]]) -> float:
        """``name.quantity``: the quantity evaluated with selection ``name``'s pick bound."""
        if chosen < 0:
            return NAN
        selection = self.data["selections"][name]
        child = self._candidate_env(name, chosen, env, bound, {})
        for formula in selection["picked"][quantity]:
            child[formula] = finite(self.formulas[formula](child))
        return child[quantity]


def _sort_key(value: float) -> float:
    """How a selection ranks a candidate's key: unknown last, as numpy's nan_to_num does."""
    if value != value or value == INF:
        return INF
    return -_LARGEST if value == -INF else value


_LARGEST = 1.7976931348623157e308


def _key_value(key: str, entity: Mapping[str, Any]) -> str:
    """What a keyed field is looked up by: the entity's id or one of its fields."""
    attribute = key.partition(".")[2]
    return str(entity["id"]) if not attribute else str(entity.get("keys", {}).get(attribute, ""))


def _keyed(entity: Mapping[str, Any], field: str, key: str) -> float:
    """Field ``field`` (one figure per key) of ``entity`` for ``key``, else for ``default``."""
    figures: Mapping[str, float | None] = entity.get("keyed", {}).get(field, {})
    if key not in figures and "default" in figures:
        key = "default"
    return _value(figures.get(key))


def estimate_from_snapshot(model: SnapshotModel, choices: Mapping[str, str | None],
                           inputs: Mapping[str, Any]) -> EstimateView | None:
    """The estimate view of the scenario, or ``None`` where the full path must answer."""
    scenario = model.resolve(choices, inputs)
    if scenario is None:
        return None
    view = model.evaluate(scenario)
    return view if view.verdict is not None else None


__all__: Sequence[str] = ("SnapshotModel", "estimate_from_snapshot")
