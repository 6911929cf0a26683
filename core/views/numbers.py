"""Compact, exact-enough text for numbers in derivations (not for report display)."""

from __future__ import annotations

import math


def format_number(value: float | None) -> str:
    """Shortest faithful text: ``20.5``, ``8192``, ``35.95e9``, ``0.0613``; '?' when unknown."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "?"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e7:
        return str(int(value))
    magnitude = abs(value)
    if magnitude >= 1e7 or magnitude < 1e-4:
        exponent = int(math.floor(math.log10(magnitude) / 3) * 3)
        mantissa = value / 10 ** exponent
        text = f"{mantissa:.10g}"
        return f"{text}e{exponent}"
    text = repr(float(value))
    if len(text) > 10:
        text = f"{value:.6g}"
    return text
