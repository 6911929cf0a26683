"""Which pack values formulas can read, under which namespace, in which unit.

A formula reads ``model.hidden_size``, ``hardware.memory_gb``, ``quant.bpw_body``,
``kv.bytes_per_element``, ``engine.*`` and, inside a selection over offers,
``offer.hourly_usd``. The fields of each namespace are the schema properties that carry
an ``x-unit`` annotation, so the schema is the one place a new field is declared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache, cached_property
from typing import Any

import attrs

from ..files.validation import load_schema
from ..specs import Figure, Location, PackFile

# namespace → (pack kind whose schema declares the fields, path to the object schema)
NAMESPACES: dict[str, tuple[str, tuple[str, ...]]] = {
    "model": ("model", ()),
    "hardware": ("hardware", ()),
    "quant": ("quantization", ("formats", "*")),
    "kv": ("kv_cache", ("types", "*")),
    "engine": ("engine", ()),
    "workload": ("workload", ()),
    "host": ("hardware", ()),
    "offer": ("provider", ("offers", "*")),
    "provider": ("provider", ()),
}


def _object_schema(namespace: str) -> dict[str, Any]:
    kind, path = NAMESPACES[namespace]
    schema: dict[str, Any] = load_schema(kind)
    for step in path:
        if step == "*":
            schema = schema.get("additionalProperties") or schema["items"]
        else:
            schema = schema["properties"][step]
    return schema


@cache
def namespace_fields(namespace: str) -> Mapping[str, str]:
    """Field name → unit for every formula-readable field of ``namespace``."""
    return {name: prop["x-unit"] for name, prop in _object_schema(namespace).get("properties", {}).items()
            if "x-unit" in prop}


@cache
def known_field_names() -> dict[str, str]:
    """Every ``namespace.field`` a formula may read, with its unit."""
    return {f"{ns}.{field}": unit for ns in NAMESPACES for field, unit in namespace_fields(ns).items()}


def keyed_fields(namespace: str) -> Mapping[str, str]:
    """Fields holding one figure per key (x-keyed-by): per id of another selector (the exact
    weight bytes of a model by ``quant``) or per value of another pack's field (an engine's
    runtime overhead by ``hardware.backend``): field → key."""
    return {name: prop["x-keyed-by"]
            for name, prop in _object_schema(namespace).get("properties", {}).items()
            if "x-keyed-by" in prop}


def hardware_backends() -> tuple[str, ...]:
    """The compute backends a hardware pack may name (its schema's ``backend`` choices)."""
    return tuple(load_schema("hardware")["properties"]["backend"]["enum"])


def key_namespace(key: str) -> str:
    """The namespace whose entity decides a keyed field's key."""
    return key.partition(".")[0]


def key_value(key: str, entity: "Entity") -> str:
    """The key a keyed field is looked up by, read from ``entity`` (of key_namespace(key)):
    its id, or the value of the field the key names."""
    _, _, attribute = key.partition(".")
    if not attribute:
        return entity.id
    return str(getattr(entity.obj, attribute, None) or "")


@attrs.frozen
class FieldValue:
    """One pack value as a formula sees it, with where it stands and where it comes from."""

    name: str
    value: float
    unit: str
    at: Location
    sources: tuple[str, ...] = ()
    note: str | None = None
    approximate: bool = False
    inherited: bool = False  # sources are the pack's defaults, not the figure's own

    @property
    def missing(self) -> bool:
        return math.isnan(self.value)

    @property
    def location(self) -> str:
        """``file:line`` of the value (or what gave it, for an input)."""
        return str(self.at)


@attrs.frozen
class Entity:
    """A pack object bound to a namespace: a model, a hardware spec, a quant format…"""

    namespace: str
    id: str
    obj: Any
    pack: PackFile
    base_path: tuple[str | int, ...] = ()
    default_sources: tuple[str, ...] = ()
    #: fields written in another pack than ``pack``: name → that pack and the key path
    #: there (a calibrated profile's engine constants, ``engines.<id>.<name>``)
    moved: Mapping[str, tuple[PackFile, tuple[str | int, ...]]] = attrs.field(factory=dict)

    def _where(self, name: str, *key: str) -> Location:
        pack, base = self.moved.get(name, (self.pack, self.base_path))
        return pack.locate(*base, name, *key)

    @cached_property
    def fields(self) -> dict[str, FieldValue]:
        """Every formula-readable field, NaN where the pack leaves a figure out."""
        result = {}
        for name, unit in namespace_fields(self.namespace).items():
            raw = getattr(self.obj, name, None)
            location = self._where(name)
            if isinstance(raw, Figure):
                result[name] = FieldValue(
                    f"{self.namespace}.{name}", float(raw.value), unit, location,
                    raw.source or self.default_sources, raw.note, raw.approximate,
                    inherited=not raw.source)
            elif isinstance(raw, bool):
                result[name] = FieldValue(f"{self.namespace}.{name}", 1.0 if raw else 0.0,
                                          unit, location, self.default_sources, inherited=True)
            elif isinstance(raw, (int, float)):
                result[name] = FieldValue(f"{self.namespace}.{name}", float(raw), unit,
                                          location, self.default_sources, inherited=True)
            else:
                result[name] = FieldValue(f"{self.namespace}.{name}", math.nan, unit,
                                          Location(self.pack.path, None))
        return result

    def keyed(self, name: str, key: str) -> FieldValue:
        """Field ``name`` (one figure per key) for ``key``, else for the key ``default``:
        NaN when the pack has neither."""
        unit = namespace_fields(self.namespace)[name]
        figures = getattr(self.obj, name, None) or {}
        if isinstance(figures, (tuple, list)):  # a list of keys: 1 for a listed key, else 0
            return FieldValue(f"{self.namespace}.{name}", float(key in figures), unit,
                              self.pack.locate(*self.base_path, name), self.default_sources)
        if key not in figures and "default" in figures:
            key = "default"
        raw = figures.get(key)
        if raw is None:
            return FieldValue(f"{self.namespace}.{name}", math.nan, unit, Location(self.pack.path, None))
        return FieldValue(f"{self.namespace}.{name}", float(raw.value), unit,
                          self._where(name, key),
                          raw.source or self.default_sources, raw.note, raw.approximate,
                          inherited=not raw.source)
