"""``kind: inputs`` — the scenario inputs, their defaults and ranges (packs/scenario/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class InputDef:
    """A scenario input a user sets (context, batch, …) with its allowed range."""

    description: str
    unit: str
    type: str
    default: float | None
    option: str | None = None
    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    source: Sources = ()
    choices: Mapping[str, float] = attrs.field(factory=dict)
    default_at_most: str | None = None  # a model field the default never exceeds

    def choice_name(self, value: float) -> str | None:
        """The choice name that stands for ``value`` (None when there is none)."""
        return next((name for name, number in self.choices.items() if number == value), None)


@attrs.frozen
class InputPack:
    id: str
    inputs: Mapping[str, InputDef]
    kind: str = "inputs"
    override: bool = False
    name: str | None = None
    pack: PackFile = NO_PACK
