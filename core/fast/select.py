"""The selections of a single estimate from a snapshot: each candidate of a list (an
accelerator, a cloud offer) as the row sees it, the formulas a candidate changes, the
pick by the selection's keys, and a quantity evaluated for the pick. Plain Python, the
rules of ``engine/evaluator.py``'s selections (see ``fast/estimate.py``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..formula.scalar import INF, NAN, Scalar, finite


def figure_of(number: float | None) -> float:
    return NAN if number is None else float(number)


class Group:
    """The candidates of one list as one evaluation sees them: each one's values, which of
    the row's values were copied in, which formulas were computed for all of them."""

    def __init__(self, children: list[dict[str, float]], names: set[str]):
        self.children = children
        self.names = names
        self.computed: set[str] = set()


class SnapshotSelections:
    """What :class:`~fitproof.fast.estimate.SnapshotModel` does for its selections
    (it sets these attributes up)."""

    data: Mapping[str, Any]
    formulas: dict[str, Scalar]
    where: dict[str, Scalar]
    minimize: dict[str, list[Scalar]]
    row_reads: dict[str, list[str]]
    per_entities: dict[str, set[str]]
    _packs_groups: dict[str, list[list[int]]]
    _candidate_overlays: dict[tuple[Any, ...],
                              list[tuple[dict[str, float], list[tuple[str, str, str]]]]]

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
                            fields_of[name_read] = figure_of(fields.get(field))
                    common = shared[packs] = (fields_of, [
                        (namespace, field, key_value(k, entities[bound_to[key_ns]]))
                        for namespace, field, k, key_ns in keyed_specs])
                overlay = dict(common[0])
                for input_name in selection["overridden"]:
                    overlay[input_name] = figure_of(candidate["inputs"][input_name])
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
                                         else keyed_value(row_entity, field, key))
            child[f"{lookup[0]}.{lookup[1]}"] = value
        return child

    def _select(self, name: str, env: dict[str, float],
                bound: Mapping[str, Mapping[str, Any]], groups: dict[str, Group]
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
            group = groups[selection["collection"]] = Group(
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
        match = selection.get("match", ())
        for index, child in enumerate(group.children):
            if match and not _matches(match, data["entities"], candidates[index], env, bound):
                continue
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
                    value = figure_of(entity["fields"].get(field))
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


def _matches(match: Sequence[str], entities: Sequence[Mapping[str, Any]],
             candidate: Mapping[str, Any], env: Mapping[str, float],
             bound: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether a candidate shares what selection's ``match`` names with the row: the pack
    bound in a namespace (by id), or an input's value (as ``rows.match_key`` compares)."""
    for item in match:
        if item in candidate["entities"]:
            if entities[candidate["entities"][item]]["id"] != bound[item]["id"]:
                return False
        elif candidate["inputs"].get(item) != env.get(item):
            return False
    return True


def _sort_key(value: float) -> float:
    """How a selection ranks a candidate's key: unknown last, as numpy's nan_to_num does."""
    if value != value or value == INF:
        return INF
    return -_LARGEST if value == -INF else value


_LARGEST = 1.7976931348623157e308


def key_value(key: str, entity: Mapping[str, Any]) -> str:
    """What a keyed field is looked up by: the entity's id or one of its fields."""
    attribute = key.partition(".")[2]
    return str(entity["id"]) if not attribute else str(entity.get("keys", {}).get(attribute, ""))


def finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def keyed_value(entity: Mapping[str, Any], field: str, key: str) -> float:
    """Field ``field`` (one figure per key) of ``entity`` for ``key``, else for ``default``."""
    figures: Mapping[str, float | None] = entity.get("keyed", {}).get(field, {})
    if key not in figures and "default" in figures:
        key = "default"
    return figure_of(figures.get(key))
