"""What an evaluation binds and what its selections pick: a scenario row (a pack entity per
namespace, a value per input), a candidate a selection can pick, and the picks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from .namespaces import Entity, FieldValue, key_namespace, key_value, keyed_fields


@attrs.frozen
class ScenarioRow:
    """What one scenario binds: a pack entity per namespace and a value per input."""

    entities: Mapping[str, Entity]
    inputs: Mapping[str, FieldValue]

    def leaf(self, name: str) -> FieldValue | None:
        """The pack value or input behind ``name``, if it is one."""
        if name in self.inputs:
            return self.inputs[name]
        namespace, _, field = name.partition(".")
        entity = self.entities.get(namespace)
        if entity is not None and field:
            key = keyed_fields(namespace).get(field)
            if key is not None:
                return entity.keyed(field, key_value(key, self.entities[key_namespace(key)]))
            return entity_values(entity).get(field)
        return None

    @property
    def family(self) -> str | None:
        """Architecture family of the row's model."""
        model = self.entities.get("model")
        return getattr(model.obj, "family", None) if model is not None else None


@attrs.frozen
class Candidate:
    """One thing a selection can pick: an offer (with its hardware) or a hardware spec."""

    id: str
    label: str
    entities: Mapping[str, Entity]
    inputs: Mapping[str, FieldValue] = attrs.field(factory=dict)


@attrs.frozen
class SelectionResult:
    """Per row: index of the chosen candidate (or -1) and how many candidates qualified.

    ``groups`` holds one such index array per group for selections with ``group_by``.
    """

    candidates: tuple[Candidate, ...]
    chosen: NDArray[np.intp]
    qualifying: NDArray[np.intp]
    groups: Mapping[str, NDArray[np.intp]] = attrs.field(factory=dict)

    def choice(self, row: int = 0) -> Candidate | None:
        index = int(self.chosen[row])
        return self.candidates[index] if index >= 0 else None

    def group_choices(self, row: int = 0) -> dict[str, Candidate | None]:
        """Per group, the chosen candidate of ``row``."""
        return {group: (self.candidates[int(chosen[row])] if chosen[row] >= 0 else None)
                for group, chosen in self.groups.items()}


def match_key(bound: ScenarioRow | Candidate, item: str) -> Any:
    """What a selection's ``match`` compares: the id of the pack bound in namespace
    ``item``, or the value of input ``item``."""
    entity = bound.entities.get(item)
    if entity is not None:
        return entity.id
    value = bound.inputs.get(item)
    return None if value is None else value.value


def entity_values(entity: Entity) -> dict[str, FieldValue]:
    """Formula-readable fields of ``entity`` (computed once per entity)."""
    return entity.fields
