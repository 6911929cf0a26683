"""One scenario in, every quantity with its derivation out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..errors import InputError
from ..registry.index import Registry
from ..registry.scenario_checks import outcome, refuse
from ..views.estimate import verdict_of
from ..views.results import EstimateView, Quantity, Verdict
from .derivation import Derivation, DerivationBuilder
from .evaluator import Evaluation
from .scenario import Scenario, scenario_row

__all__ = ["Batch", "Estimate", "Quantity", "Verdict"]

# Namespaces bound only while a selection looks at its candidates.
CANDIDATE_ONLY = ("offer.", "provider.")


class Estimate:
    """The result of evaluating one scenario: quantities, verdict and derivations."""

    def __init__(self, registry: Registry, scenario: Scenario):
        self.registry = registry
        self.scenario = scenario
        self.evaluation = Evaluation(registry.graph, [scenario_row(registry, scenario)],
                                     registry.candidates())
        self._derivations: DerivationBuilder | None = None
        graph = registry.graph
        self.quantities: dict[str, Quantity] = {}
        for name, node in graph.formulas.items():
            if graph.depends_on(name, CANDIDATE_ONLY):
                continue  # defined per cloud offer, shown in tables, not for the scenario
            value = self.evaluation.scalar(name)
            definition = node.definition
            self.quantities[name] = Quantity(
                name, value if math.isfinite(value) else None, definition.unit, node.location,
                definition.description, definition.precision, definition.display,
                definition.approximate)
        index = int(self.evaluation.verdict_index()[0])
        self.verdict: Verdict | None = None
        if index >= 0:
            rule = graph.verdicts[index]
            self.verdict = verdict_of(
                rule.rule.id, rule.rule.label, rule.location,
                registry.engines[scenario.engine].name,
                registry.hardware[scenario.hardware].display_name, scenario.quant)
        # a scenario the verdicts pack refuses (a context past the trained length) is an
        # input error; one it warns about carries the warning
        refusal, self.warnings = outcome([c.plain for c in graph.checks],
                                         self.evaluation.scalar,
                                         scenario_names(registry, scenario))
        refuse(refusal)

    def value(self, name: str) -> float | None:
        """Value of quantity ``name``."""
        return self.quantities[name].value

    def derivation(self, name: str) -> Derivation:
        """How ``name`` (a formula, input, pack value or selection field) was computed."""
        if self._derivations is None:
            self._derivations = DerivationBuilder(self.evaluation)
        try:
            return self._derivations.derive(name)
        except KeyError:
            import difflib

            names = list(self.registry.graph.formulas) + list(self.registry.graph.inputs)
            close = difflib.get_close_matches(name, names, n=2, cutoff=0.8)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InputError(f"unknown quantity {name!r}{hint}") from None

    def selections(self) -> dict[str, dict[str, Any]]:
        """What each selection picked for this scenario."""
        result = {}
        for name, node in self.registry.graph.selections.items():
            picked = self.evaluation.select(name)
            choice = picked.choice(0)
            result[name] = {
                "id": choice.id if choice else None,
                "label": choice.label if choice else None,
                "qualifying": int(picked.qualifying[0]),
                "candidates": len(picked.candidates),
                "source": node.location,
            }
        return result

    def view(self) -> EstimateView:
        """What a renderer reads: names, quantities, verdict and selections, all evaluated."""
        registry, scenario = self.registry, self.scenario
        unknown_cause = None
        if self.verdict is None:
            causes = self.derivation("verdict").root_causes()
            if causes:
                cause = causes[0]
                unknown_cause = f"{cause.name} is {cause.missing or 'unknown'} ({cause.location})"
        return EstimateView(
            scenario=scenario, model_name=registry.models[scenario.model].name,
            hardware_name=registry.hardware[scenario.hardware].display_name,
            engine_name=registry.engines[scenario.engine].name,
            host_name=registry.hardware[scenario.host].display_name,
            kv_from_budget=bool(registry.engines[scenario.engine].kv_from_budget),
            quantities=dict(self.quantities), verdict=self.verdict,
            unknown_cause=unknown_cause, selections=self.selections(),
            hardware_unverified=registry.hardware[scenario.hardware].unverified,
            warnings=self.warnings, overrides=registry.overrides)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``fitproof estimate --json`` (see DESIGN.md)."""
        return self.view().to_dict()


class Batch:
    """Many scenarios evaluated together: one pass through the graph, one array per quantity.

    Used for tables (every accelerator × every quantization × every context) where
    looping over :class:`Estimate` would repeat the same work thousands of times.
    """

    def __init__(self, registry: Registry, scenarios: list[Scenario],
                 selection_rows: Sequence[int] | None = None):
        """``selection_rows``: the scenarios whose selections (picks among every accelerator
        or offer) are wanted; by default all. Elsewhere what reads a pick is unknown."""
        if not scenarios:
            raise InputError("no scenarios to evaluate")
        self.registry = registry
        self.scenarios = list(scenarios)
        bound: dict[Any, Any] = {}
        self.evaluation = Evaluation(registry.graph,
                                     [scenario_row(registry, s, bound) for s in self.scenarios],
                                     registry.candidates(), selection_rows)

    def values(self, name: str) -> list[float | None]:
        """Quantity ``name`` for every scenario (``None`` where it cannot be computed)."""
        column = self.array(name)
        return [v if math.isfinite(v) else None for v in column.tolist()]

    def array(self, name: str) -> Any:
        """Quantity ``name`` for every scenario as a float array (NaN where it cannot be
        computed): no conversion per value."""
        import numpy as np

        return np.broadcast_to(np.asarray(self.evaluation.get(name), dtype=float),
                               (len(self.scenarios),))

    def checks(self, row: int) -> tuple[str | None, tuple[str, ...]]:
        """Scenario ``row``'s refusal (its message, or ``None``) and warnings."""
        return outcome([c.plain for c in self.registry.graph.checks],
                       lambda name: float(self.array(name)[row]),
                       scenario_names(self.registry, self.scenarios[row]))

    def refused(self) -> list[bool]:
        """Whether each scenario is refused (a context past the trained length, say)."""
        import numpy as np

        refused = np.zeros(len(self.scenarios), dtype=bool)
        for node in self.registry.graph.checks:
            if node.kind == "refusals":
                truth = self.array(node.check.when)
                refused |= np.nan_to_num(truth, nan=0.0) != 0
        return refused.tolist()

    def verdict_ids(self) -> list[str | None]:
        """The id of every scenario's verdict."""
        ids = [node.rule.id for node in self.registry.graph.verdicts]
        return [ids[i] if i >= 0 else None for i in self.evaluation.verdict_index().tolist()]

    def verdicts(self) -> list[Verdict | None]:
        """The verdict of every scenario."""
        rules = self.registry.graph.verdicts
        return [Verdict(rules[i].rule.id, rules[i].rule.label, rules[i].location)
                if i >= 0 else None for i in self.evaluation.verdict_index()]

    def estimate(self, index: int) -> Estimate:
        """The full :class:`Estimate` (with derivations) of one scenario."""
        return Estimate(self.registry, self.scenarios[index])


REFUSED = "refused"  # the verdict column of a scenario the verdicts pack refuses


def scenario_names(registry: Registry, scenario: Scenario) -> dict[str, str]:
    """The names a refusal's or warning's message may use."""
    return {"model": registry.models[scenario.model].name,
            "hardware": registry.hardware[scenario.hardware].display_name,
            "engine": registry.engines[scenario.engine].name}


CHUNK = 20_000  # scenarios per batch of estimate_columns: bounds its memory


def estimate_columns(registry: Registry, scenarios: Sequence[Scenario], names: Sequence[str],
                     chunk: int = CHUNK) -> dict[str, Any]:
    """Quantities ``names`` of every scenario as float arrays (NaN where unknown), and under
    ``"verdict"`` each scenario's verdict id: evaluated ``chunk`` scenarios at a time, so
    memory grows with the chunk and the columns asked for, not with every intermediate
    quantity of every scenario. No selection is evaluated unless a name reads one."""
    import numpy as np

    if not scenarios:
        raise InputError("no scenarios to evaluate")
    parts: dict[str, list[Any]] = {name: [] for name in names}
    verdicts: list[str | None] = []
    for start in range(0, len(scenarios), chunk):
        batch = Batch(registry, list(scenarios[start:start + chunk]))
        for name in names:
            parts[name].append(np.array(batch.array(name), dtype=float))
        verdicts.extend(REFUSED if refused else verdict
                        for verdict, refused in zip(batch.verdict_ids(), batch.refused()))
    columns: dict[str, Any] = {name: np.concatenate(arrays) for name, arrays in parts.items()}
    columns["verdict"] = verdicts
    return columns
