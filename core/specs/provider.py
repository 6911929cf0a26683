"""``kind: provider`` — a cloud provider and its offers (packs/providers/)."""

from __future__ import annotations

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


@attrs.frozen
class CloudOffer:
    """One instance type a provider rents out."""

    id: str
    hardware: str
    gpus: Figure
    hourly_usd: Figure
    tier: str | None = None
    source: Sources = ()
    note: str | None = None
    on_seed_pages: bool = False
    checked: str | None = None
    provider: str = ""
    index: int = 0


@attrs.frozen
class Listing:
    """A row under which a provider appears in tables."""

    name: str
    tier_suffix: str | None = None
    url: str | None = None


@attrs.frozen
class Provider:
    """A cloud provider and its offers."""

    id: str
    name: str
    source: Sources
    offers: tuple[CloudOffer, ...]
    kind: str = "provider"
    override: bool = False
    aliases: tuple[str, ...] = ()
    url: str | None = None
    billing: str | None = None
    checked: str | None = None
    rank: int | None = None
    listings: tuple[Listing, ...] = ()
    notes: Sources = ()
    pack: PackFile = NO_PACK
