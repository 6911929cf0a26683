"""The scenario variants of a sizing report, evaluated together: one batch for every
section's rows, selections only where a row shows a pick, and the cells, verdicts and picks
read back from it by the sections of :mod:`report`."""

from __future__ import annotations

import numpy as np

from ..engine.estimation import Batch, Verdict
from ..engine.evaluator import Evaluation
from ..engine.scenario import Scenario
from ..errors import FitproofError
from ..registry.index import Registry
from ..specs import ReportPack
from ..views.report import Cell, Pick


def spec_of(registry: Registry) -> ReportPack:
    """The report pack (the sizing report needs one)."""
    if registry.report is None:
        raise FitproofError("no report pack is loaded (packs/reports/)")
    return registry.report


def cell_of(registry: Registry, name: str, value: float | None) -> Cell:
    """A number of the report: formula ``name`` (or ``selection.formula``) and its value."""
    picked = registry.graph.picked_quantity(name)
    node = registry.graph.formulas[picked[1] if picked else name]
    definition = node.definition
    if value is not None and not np.isfinite(value):
        value = None
    return Cell(value, definition.unit, name, definition.precision, definition.display)


class Plan:
    """The scenario variants every section needs, evaluated together in one batch."""

    def __init__(self, registry: Registry):
        self.registry = registry
        self.scenarios: list[Scenario] = []
        self.picking: list[int] = []  # the rows that show a pick (selections evaluated)
        self._batch: Batch | None = None
        self._verdicts: list[Verdict | None] = []
        self._columns: dict[str, list[float | None]] = {}

    def add(self, section: str, scenarios: list[Scenario], *, picks: bool = False
            ) -> "Variants":
        """Reserve rows for ``scenarios`` of ``section``; read them after :meth:`run`.

        Selections are evaluated only on rows that show a pick, or whose columns or
        verdict read one (each row × every candidate is most of a batch's cost)."""
        if self._batch is not None:
            raise RuntimeError("the plan has already been evaluated")
        start = len(self.scenarios)
        self.scenarios.extend(scenarios)
        if picks or self._reads_a_selection(section):
            self.picking.extend(range(start, len(self.scenarios)))
        return Variants(self, start)

    def _reads_a_selection(self, section: str) -> bool:
        graph = self.registry.graph
        names = set(spec_of(self.registry).columns.get(section, {}).values())
        names |= {ref for node in graph.verdicts for ref in node.when.refs}
        read = set(names).union(*(graph.reads(n) for n in names))
        return any(n in graph.selections or graph.selection_of(n) for n in read)

    def run(self) -> None:
        """Evaluate every row in one batch."""
        if self.scenarios:
            self._batch = Batch(self.registry, self.scenarios, self.picking)
            self._verdicts = self._batch.verdicts()

    def verdict(self, row: int) -> Verdict | None:
        return self._verdicts[row]

    def column(self, name: str) -> list[float | None]:
        """Quantity ``name`` for every row, computed once."""
        if name not in self._columns:
            self._columns[name] = self.batch.values(name)
        return self._columns[name]

    @property
    def batch(self) -> Batch:
        if self._batch is None:
            raise RuntimeError("the plan has not been evaluated yet")
        return self._batch


class Variants:
    """One section's rows of the report's batch (row 0 is the section's first scenario)."""

    def __init__(self, plan: Plan, start: int):
        self.plan, self.start = plan, start

    def value(self, name: str, row: int) -> float | None:
        return self.plan.column(name)[self.start + row]

    def cell(self, name: str, row: int) -> Cell:
        return cell_of(self.plan.registry, name, self.value(name, row))

    def columns(self, section: str, row: int) -> dict[str, Cell]:
        """The cells of ``row`` for the columns the report pack gives ``section``, by role."""
        return {role: self.cell(name, row)
                for role, name in spec_of(self.plan.registry).columns[section].items()}

    def verdict(self, row: int) -> Verdict | None:
        return self.plan.verdict(self.start + row)

    def pick(self, selection: str, price: str, row: int) -> Pick:
        return pick_of(self.plan.registry, self.plan.batch.evaluation, selection, price,
                     self.start + row)


def pick_of(registry: Registry, evaluation: Evaluation, selection: str, price: str, row: int
          ) -> Pick:
    """The candidate ``selection`` picked for ``row``: its device count, memory and price,
    each a quantity evaluated for the pick (``selection.quantity``), with a derivation."""
    spec = spec_of(registry)
    choice = evaluation.select(selection).choice(row)
    price_name = f"{selection}.{price}"
    if choice is None:
        return Pick(selection, None, None, None, 0, None, cell_of(registry, price_name, None))
    hardware = choice.entities["hardware"].obj
    devices = evaluation.scalar(f"{selection}.{spec.pick_devices}", row)
    memory = evaluation.scalar(f"{selection}.{spec.pick_memory}", row)
    return Pick(selection, choice.id, choice.label, hardware.id,
                int(devices) if np.isfinite(devices) else 1,
                memory if np.isfinite(memory) else None,
                cell_of(registry, price_name, evaluation.scalar(price_name, row)),
                offer="offer" in choice.entities)
