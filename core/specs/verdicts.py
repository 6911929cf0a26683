"""``kind: verdicts`` — the rules that decide fits / tight / exceeds (packs/rules/)."""

from __future__ import annotations

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class VerdictRule:
    id: str
    label: str
    when: str
    description: str | None = None
    source: Sources = ()


@attrs.frozen
class VerdictPack:
    id: str
    rules: tuple[VerdictRule, ...]
    kind: str = "verdicts"
    name: str | None = None
    description: str | None = None
    source: Sources = ()
    override: bool = False
    pack: PackFile = NO_PACK
