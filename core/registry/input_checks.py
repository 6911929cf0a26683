"""Whether a value given for an input is acceptable: a choice it names, a whole number, its
range. The full path (``engine/scenario.py``) and the snapshot path of a single estimate
(``fast/estimate.py``) check inputs with these same functions."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol

from ..errors import InputError


class InputRange(Protocol):
    """What an input's definition says about its values (a specs.InputDef)."""

    @property
    def type(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def minimum(self) -> float | None: ...
    @property
    def exclusive_minimum(self) -> float | None: ...
    @property
    def maximum(self) -> float | None: ...
    @property
    def choices(self) -> Mapping[str, float]: ...


def checked_input(name: str, value: Any, definition: InputRange) -> float:
    """``value`` given for input ``name`` as a number, checked against ``definition``: a
    named choice, a whole number, the range. Raises :class:`InputError` naming the rule."""
    if isinstance(value, str) and definition.choices:
        key = value.strip().lower()
        if key not in definition.choices:
            raise InputError(f"{name} must be one of {', '.join(definition.choices)} "
                             f"(got {value!r})")
        value = definition.choices[key]
    try:
        number = float(value)
    except (TypeError, ValueError):
        expected = (f"one of {', '.join(definition.choices)}" if definition.choices
                    else "a number")
        raise InputError(f"{name} must be {expected} (got {value!r})") from None
    if not math.isfinite(number):
        raise InputError(f"{name} must be a finite number (got {value!r})")
    if definition.type == "integer" and not number.is_integer():
        raise InputError(f"{name} must be a whole number (got {value!r})")
    unit = "%" if definition.unit == "%" else ""
    shown = int(number) if number.is_integer() else number
    if definition.minimum is not None and number < definition.minimum:
        raise InputError(f"{name} must be at least {_plain(definition.minimum)}{unit} "
                         f"(got {shown})")
    if definition.exclusive_minimum is not None and number <= definition.exclusive_minimum:
        raise InputError(f"{name} must be more than {_plain(definition.exclusive_minimum)}{unit} "
                         f"(got {shown})")
    if definition.maximum is not None and number > definition.maximum:
        raise InputError(f"{name} must be at most {_plain(definition.maximum)}{unit} "
                         f"(got {shown})")
    return number


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def tensor_split_problem(values: Mapping[str, float], splits_tensors: bool, heads: float,
                         model_name: str) -> str | None:
    """Why the devices cannot split the model's tensors (the heads must divide evenly among
    them), or ``None``: ``values`` are the inputs (``gpus``, ``split``), ``splits_tensors``
    the engine's default when ``split`` is not given."""
    gpus = values.get("gpus", 1.0)
    split = values.get("split", math.nan)
    tensor = bool(split) if not math.isnan(split) else splits_tensors
    if tensor and gpus > 1 and heads and heads % gpus:
        divisors = [n for n in range(2, min(int(heads), 64) + 1) if heads % n == 0]
        return (f"a tensor-parallel split over {int(gpus)} devices does not divide the "
                f"{int(heads)} attention heads of {model_name}; "
                f"use --gpus {', '.join(str(n) for n in divisors[:6])} or --split layer")
    return None
