"""Derivations: why a number has the value it has, down to the pack lines it came from."""

from __future__ import annotations

import math
from collections.abc import Iterator

import attrs

from ..formula.parser import Formula, Ref, walk
from ..specs import Location
from ..views.numbers import format_number
from .evaluator import Evaluation, ScenarioRow, entity_values


@attrs.frozen
class Derivation:
    """One step of an explanation.

    ``kind`` is ``formula`` (a pack formula), ``value`` (a figure in a pack), ``input`` (a
    scenario input) or ``selection`` (a candidate picked by a selection rule). For formulas,
    ``written`` is the formula as its author wrote it and ``substituted`` the same text
    with every name replaced by its value; ``inputs`` are the derivations of those names.
    """

    name: str
    value: float | None
    unit: str
    at: Location
    kind: str
    description: str = ""
    written: str | None = None
    substituted: str | None = None
    inputs: tuple["Derivation", ...] = ()
    sources: tuple[str, ...] = ()
    note: str | None = None
    approximate: bool = False
    missing: str | None = None
    replaced: tuple[str, ...] = ()
    inherited_sources: bool = False
    formula: Formula | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def known(self) -> bool:
        return self.value is not None

    @property
    def location(self) -> str:
        """``file:line`` where the step is written (what gave it, for an input)."""
        return str(self.at)

    def symbolic(self) -> str | None:
        """The formula as a sympy expression, printed (imports sympy)."""
        if self.formula is None:
            return None
        from ..formula.symbolic import to_text

        return to_text(self.formula)

    def latex(self) -> str | None:
        """The formula in LaTeX (imports sympy)."""
        if self.formula is None:
            return None
        from ..formula.symbolic import to_latex

        return to_latex(self.formula)

    def latex_substituted(self) -> str | None:
        """The formula in LaTeX with every name replaced by its value (imports sympy)."""
        if self.formula is None:
            return None
        from ..formula.symbolic import to_latex_values

        def shown(d: "Derivation") -> str:
            if d.value is None:
                return "?"
            if d.unit == "bool":
                return r"\mathrm{true}" if d.value else r"\mathrm{false}"
            shown = latex_number(d.value)
            return rf"\left({shown}\right)" if d.value < 0 else shown

        return to_latex_values(self.formula, {d.name: shown(d) for d in self.inputs})

    def steps(self) -> Iterator[tuple[int, "Derivation", bool]]:
        """Yield ``(depth, step, repeated)`` in reading order; a step met again is yielded
        with ``repeated=True`` and its inputs are not repeated."""
        seen: set[str] = set()

        def visit(step: "Derivation", depth: int) -> Iterator[tuple[int, "Derivation", bool]]:
            repeated = step.name in seen and bool(step.inputs)
            yield depth, step, repeated
            if repeated:
                return
            seen.add(step.name)
            for child in step.inputs:
                yield from visit(child, depth + 1)

        yield from visit(self, 0)

    def root_causes(self) -> list["Derivation"]:
        """The unknown steps where the unknown starts, following unknown inputs only: a
        formula not computable although its inputs are known, or a figure no pack gives.
        Empty when this step is known."""
        if self.known:
            return []
        unknown = [step for step in self.inputs if not step.known]
        if not unknown:
            return [self]
        causes: dict[str, Derivation] = {}
        for step in unknown:
            for cause in step.root_causes():
                causes.setdefault(cause.name, cause)
        return list(causes.values())

    def walk(self, depth: int = 0) -> Iterator[tuple[int, "Derivation"]]:
        """Yield ``(depth, derivation)`` for this step and every step below it."""
        yield depth, self
        for child in self.inputs:
            yield from child.walk(depth + 1)


def latex_number(value: float) -> str:
    """A number as math-mode LaTeX: 1.5e9 as 1.5 \\cdot 10^{9}."""
    mantissa, _, exponent = format_number(value).partition("e")
    return mantissa + (rf" \cdot 10^{{{int(exponent)}}}" if exponent else "")


def _value(number: float) -> float | None:
    return None if math.isnan(number) or math.isinf(number) else number


def ordered_refs(formula: Formula) -> list[Ref]:
    """References in the order they appear in the text."""
    return sorted((n for n in walk(formula.tree) if isinstance(n, Ref)), key=lambda r: r.start)


def substitute(formula: Formula, values: dict[str, float],
               units: dict[str, str] | None = None) -> str:
    """``formula.text`` with each name replaced by its value (true/false for flags)."""
    text, pieces, position = formula.text, [], 0
    for ref in ordered_refs(formula):
        pieces.append(text[position:ref.start])
        value = values.get(ref.name)
        if (units or {}).get(ref.name) == "bool" and value in (0.0, 1.0):
            pieces.append("true" if value else "false")
        else:
            pieces.append(format_number(value))
        position = ref.end
    pieces.append(text[position:])
    return "".join(pieces)


class DerivationBuilder:
    """Builds derivations for one row of an :class:`Evaluation`, sharing repeated steps."""

    def __init__(self, evaluation: Evaluation, row: int = 0):
        self.evaluation = evaluation
        self.graph = evaluation.graph
        self.row = row
        self._cache: dict[str, Derivation] = {}

    def derive(self, name: str) -> Derivation:
        """The derivation of formula, input, pack value or ``selection.field`` ``name``."""
        if name not in self._cache:
            self._cache[name] = self._build(name)
        return self._cache[name]

    def _verdict(self) -> Derivation:
        """Which verdict rule held, and why the rules before it did not."""
        index = int(self.evaluation.verdict_index()[self.row])
        steps = []
        for position, node in enumerate(self.graph.verdicts):
            refs = list(dict.fromkeys(r.name for r in ordered_refs(node.when)))
            inputs = tuple(self.derive(r) for r in refs)
            values = {r: self.evaluation.scalar(r, self.row) for r in refs}
            truth = float(node.compiled({r: self.evaluation.get(r) for r in refs}).reshape(-1)[
                self.row] if refs else 1.0)
            steps.append(Derivation(
                f"rule {node.rule.id}", _value(truth), "bool", node.at, "formula",
                description=node.rule.label, written=node.when.text,
                substituted=substitute(node.when, values, {d.name: d.unit for d in inputs}),
                inputs=inputs, sources=node.rule.source, formula=node.when))
            if position == index:
                break
        chosen = self.graph.verdicts[index] if index >= 0 else None
        return Derivation(
            "verdict", None, "", chosen.at if chosen else Location("", None), "verdict",
            description=chosen.rule.label if chosen else "undecided: a rule needs a missing figure",
            written="the first rule whose condition holds", inputs=tuple(steps),
            missing=None if chosen else "a rule depends on a figure no pack gives")

    def _build(self, name: str) -> Derivation:
        if name == "verdict":
            return self._verdict()
        graph, row = self.graph, self.evaluation.rows[self.row]
        value = self.evaluation.scalar(name, self.row)
        node = graph.node_for(name, row.family)
        if node is not None:
            refs = list(dict.fromkeys(r.name for r in ordered_refs(node.formula)))
            inputs = tuple(self.derive(r) for r in refs)
            values = {r: self.evaluation.scalar(r, self.row) for r in refs}
            missing = None
            if _value(value) is None:
                unknown = [d for d in inputs if not d.known]
                missing = ("needs " + ", ".join(f"{d.name} ({d.missing or 'unknown'})"
                                                for d in unknown)) if unknown else \
                    "not computable for these inputs (division by zero or out of range)"
            definition = node.definition
            return Derivation(
                name, _value(value), definition.unit, node.at, "formula",
                description=definition.description, written=node.formula.text,
                substituted=substitute(node.formula, values, {d.name: d.unit for d in inputs}),
                inputs=inputs, sources=definition.source, approximate=definition.approximate,
                missing=missing, replaced=node.replaced, formula=node.formula)
        picked = graph.picked_quantity(name)
        if picked is not None:
            return self._picked(name, *picked, value)
        selection = graph.selection_of(name)
        if selection is not None:
            return self._selection(name, selection, value)
        leaf = row.leaf(name)
        if leaf is None:
            raise KeyError(name)
        input_node = graph.inputs.get(name)
        kind = "input" if input_node is not None else "value"
        description = input_node.definition.description if input_node is not None else ""
        missing = "not given" if _value(value) is None else None
        return Derivation(name, _value(value), leaf.unit, leaf.at, kind, description,
                          sources=leaf.sources, note=leaf.note, approximate=leaf.approximate,
                          missing=missing, inherited_sources=leaf.inherited)

    def _selection(self, name: str, selection: str, value: float) -> Derivation:
        node = self.graph.selections[selection]
        result = self.evaluation.select(selection)
        field = name.partition(".")[2]
        choice = result.choice(self.row)
        total = len(result.candidates)
        qualifying = int(result.qualifying[self.row])
        rule = (f"smallest {node.definition.minimize} among {node.definition.candidates} "
                f"where {node.where.text}")
        if choice is None:
            return Derivation(name, None, "", node.at, "selection",
                              description=node.definition.description, written=rule,
                              missing=f"no candidate of {total} meets {node.where.text}")
        leaf = None
        for namespace, entity in choice.entities.items():
            values = entity_values(entity)
            if field in values:
                leaf = values[field]
                break
        inputs: tuple[Derivation, ...] = ()
        if leaf is not None:
            inputs = (Derivation(leaf.name, _value(leaf.value), leaf.unit, leaf.at, "value",
                                 sources=leaf.sources, note=leaf.note,
                                 approximate=leaf.approximate,
                                 inherited_sources=leaf.inherited),)
        return Derivation(
            name, _value(value), leaf.unit if leaf else "", node.at, "selection",
            description=f"{node.definition.description}: {choice.label}", written=rule,
            substituted=f"{choice.label} ({qualifying} of {total} candidates qualify)",
            inputs=inputs)

    def _picked(self, name: str, selection: str, quantity: str, value: float) -> Derivation:
        """``selection.quantity``: the quantity's own derivation, for the row with the
        picked candidate's packs and inputs bound (what the selection evaluated)."""
        node = self.graph.selections[selection]
        result = self.evaluation.select(selection)
        choice = result.choice(self.row)
        rule = (f"{quantity} of the smallest {node.definition.minimize} among "
                f"{node.definition.candidates} where {node.where.text}")
        if choice is None:
            return Derivation(name, None, "", node.at, "selection",
                              description=node.definition.description, written=rule,
                              missing=f"no candidate of {len(result.candidates)} meets "
                                      f"{node.where.text}")
        row = self.evaluation.rows[self.row]
        bound = ScenarioRow({**row.entities, **choice.entities}, {**row.inputs, **choice.inputs})
        inner = DerivationBuilder(
            Evaluation(self.graph, [bound], self.evaluation.candidates)).derive(quantity)
        return Derivation(
            name, _value(value), inner.unit, node.at, "selection",
            description=f"{node.definition.description}: {choice.label}", written=rule,
            substituted=f"{quantity} for {choice.label}", inputs=(inner,))
