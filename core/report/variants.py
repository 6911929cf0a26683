"""The scenario variants a report's sections show, and which of them apply: a variant is
the report's scenario with one choice or input changed (another model, format, context,
engine); one the scenario's checks or the verdicts pack refuse is left out of its section
with the reason, never failing the report."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine.estimation import Batch
from ..engine.scenario import SELECTORS, Scenario, resolve_scenario
from ..errors import InputError
from ..registry.index import Registry
from ..views.report import Skipped
from .plan import spec_of


def variant(registry: Registry, scenario: Scenario, **changes: Any) -> Scenario:
    """``scenario`` with some choices or inputs changed, resolved and checked again."""
    given: dict[str, float] = dict(scenario.inputs)
    given.update(changes.pop("inputs", {}))
    inputs: dict[str, float | None] = {
        k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in given.items()}
    choices = {key: getattr(scenario, key) for key in SELECTORS}
    choices["backend"] = scenario.backend
    choices.update(changes)
    return resolve_scenario(registry, inputs=inputs, **choices)


def applicable(registry: Registry, scenario: Scenario, section: str,
               options: list[tuple[Any, str, dict[str, Any]]], skipped: list[Skipped]
                ) -> tuple[list[Any], list[Scenario]]:
    """The options of ``section`` whose variant of ``scenario`` applies, and those variants.

    Each option is (key, name, changes). A variant the scenario's checks refuse (a format
    the other model cannot take, a tensor split its heads do not divide) is left out of the
    section and recorded in ``skipped`` with the check's message: a row that does not
    apply never fails the report."""
    keys, variants, names = [], [], []
    for key, name, changes in options:
        try:
            changed = variant(registry, scenario, **changes)
        except InputError as error:
            skipped.append(Skipped(section, name, str(error)))
            continue
        keys.append(key)
        variants.append(changed)
        names.append(name)
    refused = refusals(registry, variants)
    for name, refusal in zip(names, refused):
        if refusal is not None:  # the verdicts pack refuses it (a context past the trained one)
            skipped.append(Skipped(section, name, refusal))
    kept = [i for i, refusal in enumerate(refused) if refusal is None]
    return [keys[i] for i in kept], [variants[i] for i in kept]


def refusals(registry: Registry, scenarios: list[Scenario]) -> list[str | None]:
    """Each scenario's refusal by the verdicts pack (its message), or None; evaluated in a
    batch that computes only what the checks read."""
    if not scenarios or not registry.graph.checks:
        return [None] * len(scenarios)
    batch = Batch(registry, scenarios)
    return [batch.checks(i)[0] if refused else None for i, refused in enumerate(batch.refused())]


def compare_contexts(registry: Registry, scenario: Scenario) -> tuple[int, int]:
    """The report pack's two compared contexts, within what the model was trained for (and
    any RoPE scaling asked for): a 4K model compares 2K and 4K rather than refusing both."""
    small, large = spec_of(registry).compare_contexts
    trained = registry.models[scenario.model].max_position_embeddings
    if trained is None:
        return small, large
    scale = scenario.inputs.get("rope_scale", math.nan)
    limit = int(trained.value * (1 if math.isnan(scale) else scale))
    large = min(large, limit)
    return (small if small < large else max(1, large // 2)), large
