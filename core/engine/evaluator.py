"""Evaluate the formula graph for one scenario or for many at once.

Values are numpy arrays with one element per scenario row, so a table over every
accelerator is a single pass through the graph. A selection (e.g. the cheapest cloud
offer that holds the model) evaluates its condition for every row × every candidate by
broadcasting, then picks per row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol, cast

import numpy as np
from numpy.typing import NDArray

from ..registry.graph import CANDIDATE_NAMESPACES, FormulaGraph
from ..registry.namespaces import (NAMESPACES, FieldValue, key_namespace, key_value, keyed_fields,
                                   namespace_fields)
from ..registry.rows import Candidate, ScenarioRow, SelectionResult, entity_values, match_key
from .columns import (FloatArray, choose, column, distinct, entity_codes, finite_values,
                      input_columns, matching)

__all__ = ["Candidate", "Evaluation", "ScenarioRow", "SelectionResult", "collection_key",
           "entity_values", "match_key"]


class _SelectionSource(Protocol):
    """What names the candidate list of a selection definition."""

    @property
    def candidates(self) -> str: ...
    @property
    def gpus(self) -> tuple[int, ...]: ...


def collection_key(definition: _SelectionSource) -> str:
    """Key of the candidate list a selection draws from (hardware sets carry their sizes)."""
    if definition.gpus:
        return f"{definition.candidates}x" + ",".join(str(n) for n in definition.gpus)
    return definition.candidates


class Evaluation:
    """Lazily computes formulas, selections and verdicts for a batch of scenario rows."""

    def __init__(self, graph: FormulaGraph, rows: Sequence[ScenarioRow],
                 candidates: Mapping[str, Sequence[Candidate]],
                 selection_rows: Sequence[int] | None = None):
        self.graph = graph
        self.rows = tuple(rows)
        self.candidates = candidates
        # the rows selections are evaluated for (each row × every candidate is the costly
        # part of a batch); on the others a selection picks nothing, so what reads it is
        # unknown there
        self.selection_rows: NDArray[np.intp] = (
            np.arange(len(self.rows)) if selection_rows is None
            else np.asarray(sorted(set(selection_rows)), dtype=np.intp))
        self.values: dict[str, FloatArray] = {}
        self.selections: dict[str, SelectionResult] = {}
        self._children: dict[str, _CandidateEvaluation] = {}
        self._candidate_columns: dict[tuple[str, str, str], FloatArray] = {}
        self._bind_rows()

    def _bind_rows(self) -> None:
        """Bind the rows' inputs; a namespace's pack values are bound when first read (a
        large batch reads few of the hundreds of fields), once per distinct entity."""
        rows = self.rows
        self.values.update(input_columns(rows, self.graph.inputs))
        self.codes = entity_codes(rows, NAMESPACES)
        self._unbound: dict[str, tuple[str, str | None]] = {
            f"{namespace}.{field}": (namespace, keyed_fields(namespace).get(field))
            for namespace in NAMESPACES for field in namespace_fields(namespace)}
        self._firsts: dict[tuple[str, ...], tuple[NDArray[np.intp], NDArray[np.intp]]] = {}
        first, index = self._first_rows(("model",))
        family = np.array([rows[i].family or "" for i in first] or [""])
        self.families = family[index] if len(rows) else np.array([], dtype=str)

    def _first_rows(self, namespaces: tuple[str, ...]
                    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        if namespaces not in self._firsts:
            self._firsts[namespaces] = distinct([self.codes[ns] for ns in namespaces])
        return self._firsts[namespaces]

    def _bind_field(self, name: str) -> FloatArray:
        """Pack value ``name`` for every row, read once per distinct entity (and key
        entity, for a keyed field); NaN where the row binds no entity there."""
        namespace, key = self._unbound.pop(name)
        field = name.partition(".")[2]
        rows = self.rows
        if key is None:
            first, index = self._first_rows((namespace,))
            per = column([entity_values(rows[i].entities[namespace])[field].value
                          if namespace in rows[i].entities else np.nan for i in first])
        else:
            first, index = self._first_rows((namespace, key_namespace(key)))
            # a keyed field of a bound entity always has a value
            per = column([cast(FieldValue, rows[i].leaf(name)).value
                          if namespace in rows[i].entities else np.nan for i in first])
        self.values[name] = per[index]
        return self.values[name]

    # -- public ---------------------------------------------------------------------------
    def get(self, name: str) -> FloatArray:
        """Value of a formula, input, pack value or ``selection.field`` (one per row)."""
        if name in self.values:
            return self.values[name]
        if name in self._unbound:
            return self._bind_field(name)
        if name in self.graph.formulas:
            return self._formula(name)
        if name in self.graph.dispatched:
            return self._dispatched(name)
        picked = self.graph.picked_quantity(name)
        if picked is not None:
            return self._picked(name, *picked)
        selection = self.graph.selection_of(name)
        if selection is not None:
            return self._exposed(name, selection)
        raise KeyError(name)

    def scalar(self, name: str, row: int = 0) -> float:
        """Value of ``name`` for one row as a Python float (NaN when unknown)."""
        value = np.asarray(self.get(name), dtype=float)
        return float(np.broadcast_to(value, (len(self.rows),))[row])

    def select(self, name: str) -> SelectionResult:
        """Evaluate selection ``name`` for every row (cached)."""
        if name in self.selections:
            return self.selections[name]
        node = self.graph.selections[name]
        definition = node.definition
        candidates = tuple(self.candidates.get(collection_key(definition), ()))
        rows = len(self.rows)
        groups: dict[str, NDArray[np.intp]] = {}
        chosen = np.full(rows, -1)
        qualifying = np.zeros(rows, dtype=int)
        picked_rows = self.selection_rows
        if candidates and len(picked_rows):
            child = self.over(name)
            shape = (len(picked_rows), len(candidates))
            ok = np.broadcast_to(node.where_compiled(child.env()), shape) == 1
            for item in definition.match:  # what a candidate shares with the scenario
                ok = ok & matching([match_key(self.rows[i], item) for i in picked_rows],
                                   [match_key(c, item) for c in candidates])
            keys = [np.broadcast_to(key(child.env()), shape) for key in node.minimize_compiled]
            chosen[picked_rows] = choose(ok, keys)
            qualifying[picked_rows] = ok.sum(axis=1)
            if definition.group_by:
                labels = np.array([c.entities[definition.group_by].id for c in candidates])
                for group in dict.fromkeys(labels):
                    grouped = np.full(rows, -1)
                    grouped[picked_rows] = choose(ok & (labels == group)[None, :], keys)
                    groups[str(group)] = grouped
        result = SelectionResult(candidates, chosen, qualifying, groups)
        self.selections[name] = result
        return result

    def candidate_column(self, collection: str, namespace: str, field: str) -> FloatArray:
        """Pack value ``namespace.field`` of every candidate of list ``collection`` (read
        once per evaluation, for every selection over that list)."""
        key = (collection, namespace, field)
        if key not in self._candidate_columns:
            self._candidate_columns[key] = column(
                [entity_values(c.entities[namespace])[field].value
                 for c in self.candidates.get(collection, ())])
        return self._candidate_columns[key]

    def _exposed(self, name: str, selection: str) -> FloatArray:
        """``selection.field``: the field of each row's pick (the first of the candidates'
        namespaces that has it), NaN where nothing was picked."""
        result = self.select(selection)
        definition = self.graph.selections[selection].definition
        field = name.partition(".")[2]
        namespace = next((ns for ns in CANDIDATE_NAMESPACES[definition.candidates]
                          if field in namespace_fields(ns)), None)
        if namespace is None:
            raise KeyError(name)
        if result.candidates:
            values = self.candidate_column(collection_key(definition), namespace, field)
            picked = np.where(result.chosen >= 0, values[np.maximum(result.chosen, 0)], np.nan)
        else:
            picked = np.full(len(self.rows), np.nan)
        self.values[name] = picked
        return picked

    def over(self, selection: str) -> "_CandidateEvaluation":
        """The graph evaluated for every row × every candidate of ``selection``."""
        if selection not in self._children:
            definition = self.graph.selections[selection].definition
            candidates = tuple(self.candidates.get(collection_key(definition), ()))
            self._children[selection] = _CandidateEvaluation(
                self, collection_key(definition), candidates,
                CANDIDATE_NAMESPACES[definition.candidates])
        return self._children[selection]

    def verdict_index(self) -> NDArray[np.intp]:
        """Per row, the index of the first verdict rule that holds (-1 when undecidable)."""
        rows = len(self.rows)
        decided = np.full(rows, -1)
        open_rows = np.ones(rows, dtype=bool)
        for index, node in enumerate(self.graph.verdicts):
            for ref in node.when.refs:
                self.get(ref)
            truth = np.broadcast_to(node.compiled(self.values), (rows,))
            hit = open_rows & (truth == 1)
            decided[hit] = index
            open_rows &= ~hit & ~np.isnan(truth)
        return decided

    # -- internals ------------------------------------------------------------------------
    def _picked(self, name: str, selection: str, quantity: str) -> FloatArray:
        """``selection.quantity``: the quantity as evaluated for each row's pick."""
        result = self.select(selection)
        value = np.full(len(self.rows), np.nan)
        picked_rows = self.selection_rows
        if result.candidates and len(picked_rows):
            column = self.over(selection).values_of(quantity)
            chosen = result.chosen[picked_rows]
            value[picked_rows] = np.where(
                chosen >= 0, column[np.arange(len(picked_rows)), np.maximum(chosen, 0)], np.nan)
        self.values[name] = value
        return value

    def _dispatched(self, name: str) -> FloatArray:
        """An ``arch.`` formula: each row takes the formula of its model's family."""
        result = np.full(len(self.rows), np.nan)
        for family, node in self.graph.dispatched[name].items():
            mask = self.families == family
            if not mask.any():
                continue
            for ref in node.formula.refs:
                self.get(ref)
            value = np.broadcast_to(np.asarray(node.compiled(self.values), dtype=float),
                                    (len(self.rows),))
            result = np.where(mask, value, result)
        result = finite_values(result)
        self.values[name] = result
        return result

    def _formula(self, name: str) -> FloatArray:
        node = self.graph.formulas[name]
        for ref in node.formula.refs:
            self.get(ref)
        value = node.compiled(self.values)
        value = finite_values(np.broadcast_to(np.asarray(value, dtype=float), (len(self.rows),)))
        self.values[name] = value
        return value


class _CandidateEvaluation:
    """The graph seen from inside a selection: rows × candidates, candidate names rebound."""

    def __init__(self, parent: Evaluation, collection: str, candidates: Sequence[Candidate],
                 namespaces: tuple[str, ...]):
        self.parent = parent
        self.graph = parent.graph
        self.collection = collection
        self.candidates = tuple(candidates)
        self.prefixes = tuple(f"{ns}." for ns in namespaces)
        overridden = set.intersection(*(set(c.inputs) for c in candidates)) if candidates \
            else set()
        self.rebound = self.prefixes + tuple(sorted(overridden))
        self.values: dict[str, FloatArray] = {}
        # the candidates' pack values, bound when a formula first reads one
        self._fields = {f"{ns}.{field}": (ns, field) for ns in namespaces
                        for field in namespace_fields(ns)}
        for name in overridden:
            self.values[name] = column([c.inputs[name].value for c in candidates])[None, :]
        # a row's pack value keyed by a candidate's field (an engine's overhead by the
        # candidate hardware's backend): one value per row x candidate
        self.row_index = parent.selection_rows
        rows = [parent.rows[i] for i in self.row_index]
        for namespace in NAMESPACES:
            if namespace in namespaces:
                continue
            for field, key in keyed_fields(namespace).items():
                if key_namespace(key) not in namespaces:
                    continue
                name = f"{namespace}.{field}"
                # read once per distinct entity of the rows and distinct key of the
                # candidates, then spread over rows x candidates
                first, index = (distinct([parent.codes[namespace][self.row_index]]) if rows else
                                 (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)))
                keys = [key_value(key, c.entities[key_namespace(key)]) for c in candidates]
                distinct_keys = list(dict.fromkeys(keys))
                position = {k: i for i, k in enumerate(distinct_keys)}
                per: FloatArray = np.array(
                    [[rows[i].entities[namespace].keyed(field, k).value
                      if namespace in rows[i].entities else np.nan for k in distinct_keys]
                     for i in first], dtype=float).reshape(len(first), len(distinct_keys))
                spread = np.asarray([position[k] for k in keys], dtype=np.intp)
                self.values[name] = per[index][:, spread]
                self.rebound += (name,)

    def env(self) -> "_CandidateEnv":
        return _CandidateEnv(self)

    def values_of(self, name: str) -> FloatArray:
        """``name`` for every row × candidate."""
        return np.broadcast_to(self.get(name), (len(self.row_index), len(self.candidates)))

    def get(self, name: str) -> FloatArray:
        if name in self.values:
            return self.values[name]
        if name in self._fields:
            namespace, field = self._fields[name]
            value = self.parent.candidate_column(self.collection, namespace, field)[None, :]
            self.values[name] = value
            return value
        if name in self.graph.formulas and self.graph.depends_on(name, self.rebound):
            node = self.graph.formulas[name]
            env = self.env()
            for ref in node.formula.refs:
                self.get(ref)
            value = finite_values(np.asarray(node.compiled(env), dtype=float))
            self.values[name] = value
            return value
        column = np.broadcast_to(np.asarray(self.parent.get(name), dtype=float),
                                 (len(self.parent.rows),))
        return column[self.row_index][:, None]


class _CandidateEnv(Mapping[str, FloatArray]):
    """Mapping view handed to compiled formulas inside a selection."""

    def __init__(self, evaluation: _CandidateEvaluation):
        self._evaluation = evaluation

    def __getitem__(self, name: str) -> FloatArray:
        return self._evaluation.get(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._evaluation.values)

    def __len__(self) -> int:
        return len(self._evaluation.values)
