"""``kind: architecture`` — the formulas of one architecture family (packs/architectures/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources
from .formulas import FormulaDef


@attrs.frozen
class ArchitecturePack:
    """Formulas of one attention/mixer family, read by the general formulas as arch.<name>."""

    id: str
    name: str
    source: Sources
    formulas: Mapping[str, "FormulaDef"]
    kind: str = "architecture"
    override: bool = False
    description: str | None = None
    examples: tuple[str, ...] = ()
    notes: Sources = ()
    pack: PackFile = NO_PACK
