"""``kind: scenario`` — a named scenario, such as the default one (packs/scenario/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile


@attrs.frozen
class ScenarioPack:
    """A named scenario; the one with id ``default`` is shown when nothing is given."""

    id: str
    model: str
    hardware: str
    quant: str
    kv: str
    engine: str
    workload: str = "inference"
    host: str | None = None
    kind: str = "scenario"
    name: str | None = None
    description: str | None = None
    override: bool = False
    inputs: Mapping[str, float] = attrs.field(factory=dict)
    pack: PackFile = NO_PACK
