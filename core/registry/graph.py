"""The formula graph: every formula, selection and verdict rule of every pack, linked by name.

Built once per registry. Load-time checks live here: unknown names (with a suggestion),
cycles (naming the cycle and the files), and conflicting definitions (naming both files,
unless the later one says ``override: true``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, cast

import attrs

from ..errors import Problem
from ..formula.compiled import Compiled, compile_tree
from ..formula.parser import Formula, FormulaSyntaxError, parse_formula
from ..specs import (ArchitecturePack, FormulaDef, FormulaPack, InputDef, InputPack, Location,
                     SelectionDef, SelectionPack, VerdictPack, VerdictRule)
from .namespaces import NAMESPACES, known_field_names, namespace_fields

if TYPE_CHECKING:
    from .scenario_checks import CheckNode

ARCH = "arch."

# What a selection over each collection exposes as <selection>.<field>.
CANDIDATE_NAMESPACES: dict[str, tuple[str, ...]] = {
    "offers": ("offer", "hardware", "provider"),
    "hardware": ("hardware",),
}


@attrs.frozen
class FormulaNode:
    """A formula as the graph holds it: parsed, compiled and located."""

    name: str
    formula: Formula
    definition: FormulaDef
    at: Location
    compiled: Compiled = attrs.field(eq=False, repr=False)
    replaced: tuple[str, ...] = ()

    @property
    def location(self) -> str:
        """``file:line`` of the definition."""
        return str(self.at)


@attrs.frozen
class SelectionNode:
    name: str
    definition: SelectionDef
    where: Formula
    minimize: tuple[Formula, ...]
    at: Location
    where_compiled: Compiled = attrs.field(eq=False, repr=False)
    minimize_compiled: tuple[Compiled, ...] = attrs.field(eq=False, repr=False)

    @property
    def refs(self) -> frozenset[str]:
        return self.where.refs.union(*(key.refs for key in self.minimize))

    @property
    def location(self) -> str:
        """``file:line`` of the definition."""
        return str(self.at)


@attrs.frozen
class VerdictNode:
    rule: VerdictRule
    when: Formula
    at: Location
    compiled: Compiled = attrs.field(eq=False, repr=False)

    @property
    def location(self) -> str:
        """``file:line`` of the definition."""
        return str(self.at)


@attrs.frozen
class InputNode:
    name: str
    definition: InputDef
    at: Location

    @property
    def location(self) -> str:
        """``file:line`` of the definition."""
        return str(self.at)


@attrs.frozen
class FormulaGraph:
    """All named quantities and how they depend on each other."""

    formulas: Mapping[str, FormulaNode]
    selections: Mapping[str, SelectionNode]
    verdicts: tuple[VerdictNode, ...]
    inputs: Mapping[str, InputNode]
    dispatched: Mapping[str, Mapping[str, FormulaNode]] = attrs.field(factory=dict)
    checks: tuple[CheckNode, ...] = ()  # refusals and warnings (registry/scenario_checks.py)
    _reads: dict[str, frozenset[str]] = attrs.field(factory=dict, eq=False, repr=False)

    def node_for(self, name: str, family: str | None = None) -> FormulaNode | None:
        """The formula behind ``name``: a formula, or an ``arch.`` formula of ``family``."""
        if name in self.formulas:
            return self.formulas[name]
        return self.dispatched.get(name, {}).get(family or "")

    def selection_of(self, name: str) -> str | None:
        """The selection a ``selection.field`` name reads from, if any."""
        head, _, _ = name.partition(".")
        return head if head in self.selections and "." in name else None

    def picked_quantity(self, name: str) -> tuple[str, str] | None:
        """``(selection, quantity)`` when ``name`` is ``selection.quantity``: a formula or
        input evaluated with the candidate the selection picked bound (its hardware, its
        device count), such as ``recommended_setup.physical_gb``. A field of the candidate's
        packs (``recommended_setup.price_usd``) is not one: it is read off the pick."""
        head, _, tail = name.partition(".")
        if head not in self.selections or not tail:
            return None
        if tail in selection_fields(self.selections[head].definition):
            return None
        return (head, tail) if tail in self.formulas or tail in self.inputs else None

    def dependencies(self, name: str) -> frozenset[str]:
        """Direct references of a formula or selection."""
        if name in self.formulas:
            return self.formulas[name].formula.refs
        if name in self.dispatched:
            return frozenset().union(*(n.formula.refs for n in self.dispatched[name].values()))
        if name in self.selections:
            return self.selections[name].refs
        picked = self.picked_quantity(name)
        if picked is not None:
            return frozenset(picked)
        selection = self.selection_of(name)
        return frozenset({selection}) if selection else frozenset()

    def reads(self, name: str) -> frozenset[str]:
        """Every name ``name`` reads, directly or through other formulas.

        A selection's result is a boundary: it is computed with its own candidates bound,
        so what its condition reads does not count as read by the formulas using it.
        """
        cache = self._reads
        if name not in cache:
            result: set[str] = set()
            if name in self.formulas or name in self.dispatched:
                for dep in self.dependencies(name):
                    result.add(dep)
                    result |= self.reads(dep)
            cache[name] = frozenset(result)
        return cache[name]

    def depends_on(self, name: str, prefixes: tuple[str, ...]) -> bool:
        """True when ``name`` reads (transitively) a name starting with one of ``prefixes``."""
        return any(n.startswith(prefixes) or n in prefixes for n in self.reads(name) | {name})


def selection_fields(selection: SelectionDef) -> dict[str, str]:
    """Field → unit a selection exposes (the fields of its candidates' namespaces)."""
    fields: dict[str, str] = {}
    for namespace in CANDIDATE_NAMESPACES[selection.candidates]:
        for field, unit in namespace_fields(namespace).items():
            fields.setdefault(field, unit)
    return fields


def build_graph(formula_packs: Iterable[FormulaPack], selection_packs: Iterable[SelectionPack],
                verdict_packs: Iterable[VerdictPack], input_packs: Iterable[InputPack],
                architecture_packs: Iterable[ArchitecturePack] = (),
                ) -> tuple[FormulaGraph, list[Problem]]:
    """Link every pack's definitions into one graph; return it with the problems found.

    Packs are given in load order (built-in first); a later definition of the same name
    is a conflict unless it declares ``override: true``.
    """
    problems: list[Problem] = []
    inputs: dict[str, InputNode] = {}
    for input_pack in input_packs:
        for name, input_def in input_pack.inputs.items():
            location = input_pack.pack.locate("inputs", name)
            if name in inputs:
                problems.append(_located(location, f"inputs.{name}",
                                         f"input {name!r} is already defined at {inputs[name].location}"))
                continue
            inputs[name] = InputNode(name, input_def, location)

    formulas: dict[str, FormulaNode] = {}
    for formula_pack in formula_packs:
        for name, definition in formula_pack.formulas.items():
            location = formula_pack.pack.locate("formulas", name)
            field = f"formulas.{name}"
            formula = _parse(definition.expr, formula_pack.pack.locate("formulas", name, "expr"),
                             f"{field}.expr", problems)
            if formula is None:
                continue
            replaced: tuple[str, ...] = ()
            if name in formulas:
                if not definition.override:
                    problems.append(_located(
                        location, field, f"formula {name!r} is already defined at "
                        f"{formulas[name].location}; add 'override: true' to replace it"))
                    continue
                previous = formulas[name]
                replaced = previous.replaced + (previous.location,)
            elif definition.override:
                problems.append(_located(location, f"{field}.override",
                                         f"override: true, but no other pack defines {name!r}"))
            formulas[name] = FormulaNode(name, formula, definition, location,
                                         compile_tree(formula.tree), replaced)
        for index, name in enumerate(formula_pack.retires):
            if formulas.pop(name, None) is None:
                problems.append(_located(formula_pack.pack.locate("retires", index), f"retires.{index}",
                                         f"retires {name!r}, which no pack loaded before it "
                                         "defines"))

    selections: dict[str, SelectionNode] = {}
    for selection_pack in selection_packs:
        for name, selection_def in selection_pack.selections.items():
            location = selection_pack.pack.locate("selections", name)
            field = f"selections.{name}"
            where = _parse(selection_def.where, selection_pack.pack.locate("selections", name, "where"),
                           f"{field}.where", problems)
            minimize = tuple(
                _parse(key, selection_pack.pack.locate("selections", name, "minimize"),
                       f"{field}.minimize", problems) for key in selection_def.minimize)
            if where is None or None in minimize:
                continue
            keys = cast("tuple[Formula, ...]", minimize)  # no None: checked just above
            if name in selections and not selection_def.override:
                problems.append(_located(
                    location, field, f"selection {name!r} is already defined at "
                    f"{selections[name].location}; add 'override: true' to replace it"))
                continue
            selections[name] = SelectionNode(
                name, selection_def, where, keys, location, compile_tree(where.tree),
                tuple(compile_tree(key.tree) for key in keys))

    verdicts: list[VerdictNode] = []
    verdict_location = ""
    for verdict_pack in verdict_packs:
        if verdicts:
            problems.append(_located(verdict_pack.pack.locate("rules"), "rules",
                                     f"verdict rules are already defined at {verdict_location}; "
                                     "to replace them, give this pack the same id with "
                                     "'override: true'"))
            continue
        verdict_location = verdict_pack.pack.at("rules")
        nodes = []
        for index, rule in enumerate(verdict_pack.rules):
            when = _parse(rule.when, verdict_pack.pack.locate("rules", index, "when"),
                          f"rules.{index}.when", problems)
            if when is not None:
                nodes.append(VerdictNode(rule, when, verdict_pack.pack.locate("rules", index),
                                         compile_tree(when.tree)))
        if nodes and nodes[-1].when.refs:
            problems.append(_located(nodes[-1].at, f"rules.{len(nodes) - 1}.when",
                                     "the last verdict rule must be 'when: true' so that "
                                     "every scenario gets a verdict"))
        verdicts = nodes

    dispatched: dict[str, dict[str, FormulaNode]] = {}
    for arch_pack in architecture_packs:
        for name, definition in arch_pack.formulas.items():
            formula = _parse(definition.expr, arch_pack.pack.locate("formulas", name, "expr"),
                             f"formulas.{name}.expr", problems)
            if formula is not None:
                dispatched.setdefault(ARCH + name, {})[arch_pack.id] = FormulaNode(
                    ARCH + name, formula, definition, arch_pack.pack.locate("formulas", name),
                    compile_tree(formula.tree))

    graph = FormulaGraph(formulas, selections, tuple(verdicts), inputs, dispatched)
    problems.extend(_check_names(graph))
    problems.extend(_check_cycles(graph))
    return graph, problems


def _located(location: Location, field: str, message: str) -> Problem:
    return Problem(message, location.file, location.line, field)


def _parse(text: str, location: Location, field: str, problems: list[Problem]) -> Formula | None:
    try:
        return parse_formula(text)
    except FormulaSyntaxError as exc:
        problems.append(_located(location, field, f"formula rejected: {exc}"))
        return None


def _check_names(graph: FormulaGraph) -> list[Problem]:
    problems = []
    fields = known_field_names()
    reserved = set(NAMESPACES) | set(graph.selections)
    for name, node in list(graph.formulas.items()) + list(graph.inputs.items()):
        if name in reserved:
            problems.append(_located(node.at, name, f"{name!r} is a namespace and cannot "
                                     "be the name of a formula or input"))
    for name in graph.formulas:
        if name in graph.inputs:
            problems.append(_located(graph.formulas[name].at, name,
                                     f"{name!r} is also a scenario input ({graph.inputs[name].location})"))
    known = set(graph.formulas) | set(graph.inputs) | set(fields)
    for selection_name, selection in graph.selections.items():
        known |= {f"{selection_name}.{f}" for f in selection_fields(selection.definition)}
        # a formula or input evaluated for the picked candidate (graph.picked_quantity)
        known |= {f"{selection_name}.{q}" for q in (*graph.formulas, *graph.inputs)}
    families: dict[str, set[str]] = {}
    for name, nodes in graph.dispatched.items():
        for family in nodes:
            families.setdefault(family, set()).add(name)
    shared = set.intersection(*families.values()) if families else set()
    family_names = {family: known | names for family, names in families.items()}
    known |= shared

    def check(refs: Iterable[str], location: Location, field: str, names: set[str] = known) -> None:
        for ref in sorted(refs):
            if ref not in names:
                close = difflib.get_close_matches(ref, sorted(names), n=2, cutoff=0.8)
                hint = f"; did you mean {', '.join(close)}?" if close else ""
                problems.append(_located(location, field, f"unknown name {ref!r}{hint}"))

    for name, node in graph.formulas.items():
        check(node.formula.refs, node.at, f"formulas.{name}.expr")
    for name, selection in graph.selections.items():
        check(selection.refs, selection.at, f"selections.{name}")
    for verdict in graph.verdicts:
        check(verdict.when.refs, verdict.at, f"rules.{verdict.rule.id}.when")
    for name, nodes in graph.dispatched.items():
        for family, node in nodes.items():
            check(node.formula.refs, node.at, f"formulas.{name[len(ARCH):]}.expr",
                  family_names[family])
    return problems


MAX_CHAIN = 150  # formulas reading formulas; deeper is refused at load, not a RecursionError


def _check_cycles(graph: FormulaGraph) -> list[Problem]:
    """Report each cycle once, naming every step and where it is defined, and a chain of
    formulas deeper than MAX_CHAIN. The walk is iterative: no depth breaks it."""
    state: dict[str, int] = {}
    depth: dict[str, int] = {}
    problems: list[Problem] = []

    def location(name: str) -> Location:
        if name in graph.formulas:
            return graph.formulas[name].at
        if name in graph.dispatched:
            return next(iter(graph.dispatched[name].values())).at
        return graph.selections[name].at

    def targets(name: str) -> list[str]:
        found = []
        for dep in sorted(graph.dependencies(name)):
            for target in graph.picked_quantity(dep) or (graph.selection_of(dep) or dep,):
                if target in graph.formulas or target in graph.selections \
                        or target in graph.dispatched:
                    found.append(target)
        return found

    for root in sorted(set(graph.formulas) | set(graph.selections) | set(graph.dispatched)):
        if root in state:
            continue
        path, walks = [root], [iter(targets(root))]
        state[root] = 1
        while walks:
            target = next(walks[-1], None)
            if target is None:
                name = path.pop()
                walks.pop()
                state[name] = 2
                depth[name] = 1 + max((depth.get(t, 0) for t in targets(name)), default=0)
            elif state.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                places = ", ".join(f"{n} ({location(n)})" for n in dict.fromkeys(cycle))
                problems.append(_located(location(target), target, "formulas form a cycle: "
                                         f"{' → '.join(cycle)}; defined at {places}"))
            elif target not in state:
                state[target] = 1
                path.append(target)
                walks.append(iter(targets(target)))
    over = [n for n in depth if depth[n] > MAX_CHAIN]  # named where it first grows too deep
    if over:
        first = min(over, key=lambda n: (depth[n], n))
        problems.append(_located(location(first), first, (
            f"formula {first!r} starts a chain of {depth[first]} formulas, each reading "
            f"the next; at most {MAX_CHAIN} are evaluated")))
    return problems
