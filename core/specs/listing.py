"""``kind: model-listing`` — models a page names that fitproof cannot size yet
(packs/listings/): the sizes the page states, and which facts are missing."""

from __future__ import annotations

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class ListedModel:
    """A model named somewhere (a seed page's list) with no pack: what is known of it."""

    name: str
    stated: str  # the sizes its label or page states, as printed
    where: str  # where it is named
    missing: str  # what a pack would need that no source read gives
    config: str  # "not found" (import hf completes it) or "not understood" (the importer refuses it)
    hf_repo: str | None = None  # its repository, where a source names it


@attrs.frozen
class ModelListing:
    """Models a page names that no model pack describes yet."""

    id: str
    source: Sources
    models: tuple[ListedModel, ...]
    kind: str = "model-listing"
    override: bool = False
    name: str | None = None
    description: str | None = None
    pack: PackFile = NO_PACK
