"""Amounts as people write them, parsed: token counts (``8K``) and parameter counts
(``7B``). The CLI's options and any downstream tool read the same notation."""

from __future__ import annotations

import re

from ..errors import InputError

_TOKENS = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
_PARAMETERS = re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([bBtTmM]?)\s*$")


def parse_tokens(text: str) -> int:
    """A token count: ``8192``, ``8K`` (8192) or ``1M`` (1048576)."""
    match = _TOKENS.match(text)
    if not match:
        raise InputError(f"expected a whole number of tokens such as 8192 or 8K, got {text!r}")
    number = float(match.group(1)) * {"": 1, "k": 1024, "m": 1024 * 1024}[match.group(2).lower()]
    if not number.is_integer():
        raise InputError(f"{text!r} is not a whole number of tokens")
    return int(number)


def parse_parameters(text: str) -> float:
    """A parameter count: ``7B``, ``0.5B``, ``70e9`` or ``1T``."""
    match = _PARAMETERS.match(text)
    if not match:
        raise InputError(f"expected a parameter count such as 7B or 70e9, got {text!r}")
    return float(match.group(1)) * {"": 1, "m": 1e6, "b": 1e9, "t": 1e12}[match.group(2).lower()]
