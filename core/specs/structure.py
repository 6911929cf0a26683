"""Structuring validated pack data into the frozen classes (cattrs)."""

from __future__ import annotations

from typing import Any

import attrs
import cattrs

from .common import Figure, PackFile, Sources
from .engine import LaunchPart
from .kinds import PACK_CLASSES
from .kv_cache import KVCachePack
from .provider import Provider
from .quantization import QuantizationPack




def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)

    def structure_sources(value: Any, _type: Any) -> Sources:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        return tuple(str(v) for v in value)

    def structure_figure(value: Any, _type: Any) -> Figure:
        if isinstance(value, dict):
            return Figure(
                value=value["value"],
                source=structure_sources(value.get("source"), Sources),
                note=value.get("note"),
                approximate=bool(value.get("approximate", False)),
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"expected a number, got {value!r}")
        return Figure(value=value)

    def structure_part(value: Any, _type: Any) -> LaunchPart:
        if isinstance(value, str):
            return LaunchPart(value)
        return LaunchPart(value["text"], value.get("when"))

    converter.register_structure_hook_func(lambda t: t == Sources, structure_sources)
    converter.register_structure_hook(LaunchPart, structure_part)
    converter.register_structure_hook(Figure, structure_figure)
    return converter


converter = _make_converter()


def structure_pack(data: dict[str, Any], pack: PackFile) -> Any:
    """Build the frozen pack object for validated ``data`` (dispatching on ``kind``)."""
    cls = PACK_CLASSES[data["kind"]]
    obj: Any = converter.structure(data, cls)
    changes: dict[str, Any] = {"pack": pack}
    if isinstance(obj, QuantizationPack):
        changes["formats"] = {k: attrs.evolve(v, id=k) for k, v in obj.formats.items()}
        changes["types"] = {k: attrs.evolve(v, id=k) for k, v in obj.types.items()}
    elif isinstance(obj, KVCachePack):
        changes["types"] = {k: attrs.evolve(v, id=k) for k, v in obj.types.items()}
    elif isinstance(obj, Provider):
        changes["offers"] = tuple(attrs.evolve(o, provider=obj.id, index=i)
                                  for i, o in enumerate(obj.offers))
    return attrs.evolve(obj, **changes)
