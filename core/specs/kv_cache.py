"""``kind: kv_cache`` — KV cache element types (packs/kv-cache/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


@attrs.frozen
class KVCacheType:
    """A precision the KV cache can be stored in."""

    bytes_per_element: Figure
    id: str = ""
    label: str | None = None
    aliases: tuple[str, ...] = ()
    source: Sources = ()
    note: str | None = None


@attrs.frozen
class KVCachePack:
    id: str
    source: Sources
    types: Mapping[str, KVCacheType]
    kind: str = "kv_cache"
    override: bool = False
    name: str | None = None
    notes: Sources = ()
    pack: PackFile = NO_PACK
