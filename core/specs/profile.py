"""``kind: profile`` — a set of formulas (seed, measured) and what it extends (packs/profiles/)."""

from __future__ import annotations

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class ProfilePack:
    """A named set of formula packs (``--profile``): the seed pages' formulas, the
    measured physics, or a plugin's own."""

    id: str
    name: str
    description: str
    kind: str = "profile"
    override: bool = False
    extends: str | None = None
    default: bool = False
    number_style: str | None = None
    source: Sources = ()
    notes: Sources = ()
    pack: PackFile = NO_PACK
