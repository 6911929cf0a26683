"""``kind: selections`` — picks among candidates, such as the cheapest offer (packs/rules/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile


@attrs.frozen
class SelectionDef:
    candidates: str
    where: str
    minimize: tuple[str, ...]
    description: str
    override: bool = False
    gpus: tuple[int, ...] = ()
    group_by: str | None = None
    match: tuple[str, ...] = ()


@attrs.frozen
class SelectionPack:
    id: str
    selections: Mapping[str, SelectionDef]
    kind: str = "selections"
    override: bool = False
    name: str | None = None
    description: str | None = None
    profile: str | None = None
    pack: PackFile = NO_PACK
