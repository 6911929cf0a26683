"""``kind: importer`` — how a config.json or GGUF header maps to a model pack (packs/importers/)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class ImporterPack:
    """How a configuration format maps to model-pack fields (see importers/)."""

    id: str
    source: Sources
    fields: Mapping[str, tuple[str, ...]]
    structure: Mapping[str, str]
    ignored: Mapping[str, tuple[str, ...]]
    neutral: Mapping[str, tuple[Any, ...]]
    activations: Mapping[str, bool]
    dtype_bytes: Mapping[str, float]
    families: tuple["FamilyRule", ...]
    kind: str = "importer"
    override: bool = False
    name: str | None = None
    model_types: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    config_defaults: Mapping[str, "ConfigDefaults"] = attrs.field(factory=dict)
    file_types: Mapping[str, str] = attrs.field(factory=dict)
    checkpoint_formats: tuple["CheckpointFormatRule", ...] = ()
    window_without_layer_types: "WindowRule | None" = None
    pack: PackFile = NO_PACK


@attrs.frozen
class ConfigDefaults:
    """Config keys a model_type's config class assumes where a config.json omits them."""

    set: Mapping[str, Any]
    source: str


@attrs.frozen
class WindowRule:
    """How a sliding_window without layer_types is read: every layer slides; ``engines``
    apply the window."""

    engines: tuple[str, ...]
    note: str


@attrs.frozen
class CheckpointFormatRule:
    """A checkpoint format recognised by conditions on a config's quantization_config."""

    format: str
    when: Mapping[str, Any]
    source: Sources = ()


@attrs.frozen
class FamilyRule:
    """An architecture family, recognised by a model-pack field that is present."""

    family: str
    when: str | None = None
