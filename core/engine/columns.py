"""A batch's rows as columns: which entity each row binds in a namespace, its inputs.

Rows that share a binding share one object (``scenario.scenario_row`` keeps one entities
mapping per set of choices and one inputs mapping per inputs object), so each column is
read once per distinct object and spread over the rows, not once per row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


class _Row(Protocol):
    @property
    def entities(self) -> Mapping[str, Any]: ...
    @property
    def inputs(self) -> Mapping[str, Any]: ...


def column(values: Sequence[float]) -> FloatArray:
    return np.asarray(values, dtype=float)


def _groups(objects: Iterable[object]) -> tuple[list[Any], NDArray[np.intp]]:
    """The distinct objects (by identity) in order, and per item its object's position."""
    seen: dict[int, int] = {}
    distinct_objects: list[Any] = []
    positions = []
    for item in objects:
        position = seen.get(id(item))
        if position is None:
            position = seen[id(item)] = len(distinct_objects)
            distinct_objects.append(item)
        positions.append(position)
    return distinct_objects, np.asarray(positions, dtype=np.intp)


def entity_codes(rows: Sequence[_Row], namespaces: Iterable[str]) -> dict[str, NDArray[np.intp]]:
    """Per namespace, per row, a number for the entity the row binds there (equal numbers:
    the same entity, by identity, as the registry holds one per pack; -1: none bound)."""
    mappings, position = _groups(row.entities for row in rows)
    codes = {}
    for namespace in namespaces:
        seen: dict[int, int] = {}
        per = [-1 if (entity := mapping.get(namespace)) is None
               else seen.setdefault(id(entity), len(seen)) for mapping in mappings]
        codes[namespace] = np.asarray(per, dtype=np.intp)[position] if len(rows) \
            else np.zeros(0, dtype=np.intp)
    return codes


def input_columns(rows: Sequence[_Row], names: Iterable[str]) -> dict[str, FloatArray]:
    """Each input's value on every row."""
    mappings, position = _groups(row.inputs for row in rows)
    return {name: column([mapping[name].value for mapping in mappings])[position]
            if len(rows) else column([]) for name in names}


def distinct(codes: Sequence[NDArray[np.intp]]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The first row of each distinct combination of ``codes``, and per row the position of
    its combination among those first rows."""
    combined = np.zeros(len(codes[0]), dtype=np.int64)
    for code in codes:
        combined = combined * (int(code.max(initial=0)) + 2) + (code + 1)
    _, first, index = np.unique(combined, return_index=True, return_inverse=True)
    return np.asarray(first, dtype=np.intp), np.asarray(index, dtype=np.intp).reshape(-1)


def choose(ok: NDArray[np.bool_], keys: Sequence[FloatArray]) -> NDArray[np.intp]:
    """Per row, the first column that is ``ok`` and smallest by ``keys`` in order.

    Unknown (NaN) keys sort after known ones. Returns -1 where no column is ok.
    """
    mask = ok.copy()
    for key in keys:
        key = np.where(mask, np.nan_to_num(key, nan=np.inf, posinf=np.inf), np.inf)
        best = key.min(axis=1, keepdims=True)
        mask &= key == best
    return np.where(mask.any(axis=1), np.argmax(mask, axis=1), -1)


def finite_values(value: FloatArray) -> FloatArray:
    """Infinities (a division by zero, an overflowing power) become unknown (NaN), so that
    nothing downstream — a comparison, a verdict, a minimum — treats them as a figure."""
    return np.where(np.isinf(value), np.nan, value)


def matching(row_keys: Sequence[Any], candidate_keys: Sequence[Any]) -> NDArray[np.bool_]:
    """Rows x candidates: whether a candidate's key is the row's (a selection's ``match``:
    an offer of the scenario's own hardware and device count)."""
    rows = np.asarray(row_keys, dtype=object)[:, None]
    return np.asarray(rows == np.asarray(candidate_keys, dtype=object)[None, :], dtype=bool)
