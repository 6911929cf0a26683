"""Weight formats resolved to bits per weight per tensor class.

A format names a block type for some tensor classes (``tensors: {default: Q4_K, output:
Q6_K, …}``); every other class takes the type of the first class in its fallback list. The
lists are data: ``x-fallback`` of each class in ``schemas/quantization.schema.json``. A
format may also state ``bpw_<class>`` directly, which wins over its ``tensors``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, cast

import attrs

from ..files.validation import load_schema
from ..specs import ROW_FALLBACK_CLASSES, TENSOR_CLASSES, BlockType, Figure, QuantFormat


@cache
def fallbacks() -> Mapping[str, tuple[str, ...]]:
    """Tensor class → the classes whose type it takes when a format does not name it."""
    tensors = (load_schema("quantization")["properties"]["formats"]["additionalProperties"]
               ["properties"]["tensors"]["properties"])
    return {name: tuple(prop.get("x-fallback", ())) for name, prop in tensors.items()}


def type_of(fmt: QuantFormat, tensor_class: str) -> str | None:
    """The block type id that ``fmt`` uses for ``tensor_class`` (None when it names none)."""
    for name in (tensor_class, *fallbacks()[tensor_class]):
        if name in fmt.tensors:
            return fmt.tensors[name]
    return None


def resolve_format(fmt: QuantFormat, types: Mapping[str, tuple[BlockType, str]]) -> QuantFormat:
    """``fmt`` with every ``bpw_<class>`` it does not state filled in from its block types.

    ``types`` maps a type id to the type and the ``file:line`` where it is defined; each
    derived figure cites that line and says how its bits were counted.
    """
    if not fmt.tensors:
        return fmt
    changes: dict[str, Figure] = {}
    for tensor_class in (*TENSOR_CLASSES, *(f"{c}_fallback" for c in ROW_FALLBACK_CLASSES)):
        field = f"bpw_{tensor_class}"
        type_id = type_of(fmt, tensor_class.removesuffix("_fallback"))
        if getattr(fmt, field) is not None or type_id is None or type_id not in types:
            continue
        stored, how = type_id, ""
        if tensor_class.endswith("_fallback"):
            # llama.cpp's type for rows that are not a whole number of the type's blocks
            stored = types[type_id][0].row_fallback or type_id
            how = f" (the row fallback of {type_id})"
            if stored not in types:
                continue
        block, location = types[stored]
        changes[field] = Figure(
            block.bits_per_weight, (location, *block.source),
            f"{stored}{how}: {_plain(block.block_bytes)} bytes per {block.block_weights} "
            f"weights x 8 bits", block.approximate)
    # every key is a bpw_<class> field, typed Figure | None; mypy checks ** against all fields
    return attrs.evolve(fmt, **cast("dict[str, Any]", changes)) if changes else fmt


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)
