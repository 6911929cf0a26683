"""``kind: formulas`` — named formulas of a profile (packs/formulas/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class FormulaDef:
    """A named quantity: its expression, unit and one-line description."""

    expr: str
    unit: str
    description: str
    precision: int | None = None
    display: str = "number"
    source: Sources = ()
    approximate: bool = False
    per_device: bool = False  # a figure of one device (listed per device on a mixed machine)
    override: bool = False


@attrs.frozen
class FormulaPack:
    id: str
    formulas: Mapping[str, FormulaDef]
    retires: tuple[str, ...] = ()
    kind: str = "formulas"
    override: bool = False
    profile: str | None = None
    name: str | None = None
    description: str | None = None
    source: Sources = ()
    notes: Sources = ()
    pack: PackFile = NO_PACK
