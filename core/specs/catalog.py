"""``kind: catalog`` — the messages of one language (packs/catalogs/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class CatalogPack:
    """Labels and sentences of reports in one language."""

    id: str
    name: str
    decimal_separator: str
    thousands_separator: str
    messages: Mapping[str, str]
    kind: str = "catalog"
    override: bool = False
    source: Sources = ()
    pack: PackFile = NO_PACK
