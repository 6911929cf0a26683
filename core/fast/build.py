"""A linked registry as plain data: what a single estimate needs, for ``fast/snapshot.py`` to store.

The snapshot holds, for the registry's profile, every formula as a parsed tree (nested
lists, see ``formula/parser.py``'s ``tree_data``) in an order where each name comes after what it reads,
the verdict rules, the selections with their candidates, the pack values each namespace
binds (one table entry per entity), the inputs with their ranges and defaults, the name
index of each selector, and what the view shows (names, units, sources). Nothing in it
is code: ``fast/estimate.py`` rebuilds the formulas from the trees.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..engine.accuracy import runs_by_key
from ..engine.estimation import CANDIDATE_ONLY
from ..engine.evaluator import collection_key
from ..engine.scenario import SELECTORS, figure_value
from ..formula.parser import tree_data
from ..registry.graph import CANDIDATE_NAMESPACES, FormulaGraph
from ..registry.index import Registry
from ..registry.namespaces import NAMESPACES, Entity, key_namespace, keyed_fields, namespace_fields

FORMAT = 2


def _number(value: float) -> float | None:
    """JSON has no NaN: an unknown figure is ``None`` in the file."""
    return value if math.isfinite(value) else None


class _Entities:
    """The table of bound entities: one entry per entity object, referenced by index."""

    def __init__(self, located: bool = False) -> None:
        self.located = located
        self.rows: list[dict[str, Any]] = []
        self._index: dict[int, int] = {}
        self._keep: list[Entity] = []  # entities stay alive, so their ids stay unique

    def add(self, entity: Entity) -> int:
        found = self._index.get(id(entity))
        if found is not None:
            return found
        namespace = entity.namespace
        keyed = keyed_fields(namespace)
        # a figure the pack leaves out is absent (read as unknown), and so is an empty table
        row: dict[str, Any] = {
            "id": entity.id,
            "fields": {name: value.value for name, value in entity.fields.items()
                       if math.isfinite(value.value)},
        }
        keyed_figures: dict[str, dict[str, float | None]] = {}
        for field in keyed:
            figures = getattr(entity.obj, field, None) or {}
            if isinstance(figures, (tuple, list)):  # a list of keys (Entity.keyed's rule)
                keyed_figures[field] = {**{key: 1.0 for key in figures}, "default": 0.0}
                continue
            keyed_figures[field] = {key: _number(float(figure.value))
                                    for key, figure in figures.items()}
        keys = {}
        for other in NAMESPACES:  # what keyed fields of other namespaces read off this one
            for key in keyed_fields(other).values():
                attribute = key.partition(".")[2]
                if key_namespace(key) == namespace and attribute:
                    keys[attribute] = str(getattr(entity.obj, attribute, None) or "")
        if any(keyed_figures.values()):
            row["keyed"] = keyed_figures
        if keys:
            row["keys"] = keys
        if self.located:  # where each figure stands, for derivations shown elsewhere (the site)
            row["at"] = {name: str(value.at) for name, value in entity.fields.items()
                         if name in row["fields"]}
        self._index[id(entity)] = len(self.rows)
        self._keep.append(entity)
        self.rows.append(row)
        return self._index[id(entity)]


def _order(graph: FormulaGraph, roots: Iterable[str]) -> list[str]:
    """``roots`` and every formula, ``arch.`` formula, selection and picked quantity they
    read, each after what it reads (an iterative depth-first walk)."""
    done: set[str] = set()
    order: list[str] = []
    for root in roots:
        stack: list[tuple[str, bool]] = [(root, False)]
        while stack:
            name, expanded = stack.pop()
            if name in done:
                continue
            if expanded:
                done.add(name)
                order.append(name)
                continue
            stack.append((name, True))
            stack.extend((dep, False) for dep in sorted(_needs(graph, name)) if dep not in done)
    return order


def _needs(graph: FormulaGraph, name: str) -> frozenset[str]:
    """What must be evaluated before ``name`` on the scenario's own row."""
    if name in graph.selections:
        # a selection's condition reads the row's values of everything its candidates do
        # not rebind: all of it comes first
        refs = graph.selections[name].refs
        return frozenset(r for r in refs | _reads(graph, refs) if _evaluable(graph, r))
    picked = graph.picked_quantity(name)
    if picked is not None:
        selection, quantity = picked
        deps = {selection} | _reads(graph, {quantity})
        deps |= {quantity} if _evaluable(graph, quantity) else set()
        return frozenset(d for d in deps if _evaluable(graph, d))
    read_from = graph.selection_of(name)
    if read_from is not None:
        return frozenset({read_from})
    return frozenset(d for d in graph.dependencies(name) if _evaluable(graph, d))


def _reads(graph: FormulaGraph, names: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for name in names:
        found |= graph.reads(name)
    return found


def _evaluable(graph: FormulaGraph, name: str) -> bool:
    """A name computed on the row (not an input or a pack value, which are bound)."""
    return (name in graph.formulas or name in graph.dispatched or name in graph.selections
            or graph.picked_quantity(name) is not None or graph.selection_of(name) is not None)


def _selection(registry: Registry, name: str, entities: _Entities,
               collections: dict[str, list[dict[str, Any]]], order: list[str]
               ) -> dict[str, Any]:
    graph = registry.graph
    node = graph.selections[name]
    definition = node.definition
    key = collection_key(definition)
    candidates = list(registry.candidates().get(key, ()))
    if key not in collections:
        collections[key] = [
            {"id": c.id, "label": c.label,
             "entities": {ns: entities.add(e) for ns, e in c.entities.items()},
             "inputs": {n: _number(v.value) for n, v in c.inputs.items()}}
            for c in candidates]
    namespaces = CANDIDATE_NAMESPACES[definition.candidates]
    prefixes = tuple(f"{ns}." for ns in namespaces)
    overridden = sorted(set.intersection(*(set(c.inputs) for c in candidates))) \
        if candidates else []
    keyed = [[ns, field, key_spec] for ns in NAMESPACES if ns not in namespaces
             for field, key_spec in keyed_fields(ns).items()
             if key_namespace(key_spec) in namespaces]
    rebound = prefixes + tuple(overridden) + tuple(f"{ns}.{field}" for ns, field, _ in keyed)

    def recompute(roots: Iterable[str]) -> list[str]:
        """The formulas a candidate changes, each after what it reads (the others keep the
        row's value)."""
        return [n for n in _order(graph, roots)
                if n in graph.formulas and graph.depends_on(n, rebound)]

    picked = {q: recompute([q]) for n in order
              if (p := graph.picked_quantity(n)) is not None and p[0] == name for q in [p[1]]}
    computed = recompute(sorted(node.refs))
    per_entities = [f for f in computed if not graph.depends_on(f, tuple(overridden))] \
        if overridden else computed
    # what the candidates' formulas, condition and keys read: the row's values of these
    # are copied into each candidate's values
    reads = set(node.refs).union(*(graph.formulas[f].formula.refs for f in computed))
    return {"recompute": computed, "per_entities": per_entities, "picked": picked,
            "reads": sorted(reads),"location": node.location, "collection": key, "namespaces": list(namespaces),
            "where": tree_data(node.where.tree),
            "minimize": [tree_data(f.tree) for f in node.minimize],
            "fields": {ns: list(namespace_fields(ns)) for ns in namespaces},
            "overridden": overridden, "keyed": keyed, "match": list(definition.match)}


def _formula(graph: FormulaGraph, name: str) -> dict[str, Any]:
    node = graph.formulas[name]
    d = node.definition
    return {"tree": tree_data(node.formula.tree), "unit": d.unit, "source": node.location,
            "description": d.description, "precision": d.precision, "display": d.display,
            "approximate": d.approximate}


def candidate_formulas(registry: Registry) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The formulas only a candidate's values decide (an offer's monthly price), each after
    what it reads, and the data of each formula they read: what a page computes per row
    of a candidate table."""
    graph = registry.graph
    roots = [n for n in graph.formulas if graph.depends_on(n, CANDIDATE_ONLY)]
    order = [n for n in _order(graph, roots) if n in graph.formulas]
    return ([n for n in order if graph.depends_on(n, CANDIDATE_ONLY)],
            {n: _formula(graph, n) for n in order})


def build_snapshot(registry: Registry, *, located: bool = False,
                   roots: Iterable[str] = ()) -> dict[str, Any]:
    """The snapshot of ``registry`` (its packs, in its profile) as JSON-ready data; with
    ``located``, every entity's figures say where they stand (``file:line``); ``roots`` are
    further names to evaluate (a pick's quantity, ``selection.formula``) beyond the shown
    formulas, the verdicts' and the selections'."""
    graph = registry.graph
    entities = _Entities(located)
    shown = [n for n in graph.formulas if not graph.depends_on(n, CANDIDATE_ONLY)]
    verdict_refs = sorted({r for v in graph.verdicts for r in v.when.refs}
                          | {r for c in graph.checks for r in c.reads if r in graph.formulas})
    order = _order(graph, [*shown, *verdict_refs, *graph.selections, *roots])
    collections: dict[str, list[dict[str, Any]]] = {}
    selections = {n: _selection(registry, n, entities, collections, order)
                  for n in graph.selections}
    picked = {n: list(p) for n in order if (p := graph.picked_quantity(n)) is not None}
    formulas = {n: _formula(graph, n) for n in graph.formulas
                if n in order or any(n in s["recompute"] or any(n in r for r in s["picked"].values())
                                     for s in selections.values())}
    bound: dict[str, dict[str, int]] = {}
    for key in SELECTORS:
        kind = "hardware" if key == "host" else key
        bound[key] = {i: entities.add(registry.entity(key, i))
                      for i in _ids(registry, kind)}
    preset = registry.scenarios["default"]
    return {
        "format": FORMAT,
        "profile": registry.profile,
        "warnings": list(registry.warnings),
        "overrides": [list(override) for override in registry.overrides],
        "order": order,
        "formulas": formulas,
        "shown": shown,
        "dispatched": {n: {family: tree_data(f.formula.tree) for family, f in by.items()}
                       for n, by in graph.dispatched.items()},
        "verdicts": [{"id": v.rule.id, "label": v.rule.label, "source": v.location,
                      "when": tree_data(v.when.tree)} for v in graph.verdicts],
        "checks": [list(c.plain) for c in graph.checks],
        "selections": selections,
        "picked": picked,
        "collections": collections,
        "entities": entities.rows,
        "bound": bound,
        "fields": {ns: list(namespace_fields(ns)) for ns in NAMESPACES},
        "keyed": [[ns, field, key] for ns in NAMESPACES
                  for field, key in keyed_fields(ns).items()],
        "names": {key: registry.names_of_kind(key) for key in SELECTORS},
        # public measurements by scenario key, each with the figure predicted for it
        "measured": {key: [list(run) for run in runs]
                     for key, runs in sorted(runs_by_key(registry).items())},
        "inputs": {n: _input(node) for n, node in graph.inputs.items()},
        "preset": {"choices": {key: getattr(preset, key) for key in SELECTORS},
                   "inputs": {n: v for n, v in preset.inputs.items()}},
        "models": {i: {"name": m.name, "family": m.family or "",
                       "checkpoint_format": m.checkpoint_format,
                       "experts": figure_value(getattr(m, "num_experts", None)),
                       "heads": figure_value(getattr(m, "num_attention_heads", None))}
                   for i, m in registry.models.items()},
        "hardware": {i: {"name": h.display_name, "backend": h.backend,
                         **({"unverified": True} if h.unverified else {})}
                     for i, h in registry.hardware.items()},
        "engines": {i: {"name": e.name, "kv_types": list(e.kv_types),
                        "splits_tensors": bool(e.splits_tensors),
                        "kv_from_budget": bool(e.kv_from_budget)}
                    for i, e in registry.engines.items()},
        "quants": {i: {"size_basis": f.size_basis, "requires_experts": bool(f.requires_experts)}
                   for i, (f, _) in registry.quant_formats.items()},
        "workloads": {i: {"quant": w.quant} for i, w in registry.workloads.items()},
    }


def _ids(registry: Registry, kind: str) -> list[str]:
    tables: dict[str, Iterable[str]] = {
        "model": registry.models, "hardware": registry.hardware, "engine": registry.engines,
        "workload": registry.workloads, "quant": registry.quant_formats,
        "kv": registry.kv_types}
    return list(tables[kind])


def _input(node: Any) -> dict[str, Any]:
    d = node.definition
    return {"type": d.type, "unit": d.unit, "minimum": d.minimum,
            "exclusive_minimum": d.exclusive_minimum, "maximum": d.maximum,
            "choices": dict(d.choices), "default": d.default, "source": d.source,
            "default_at_most": d.default_at_most,
            "at": str(node.at)}
