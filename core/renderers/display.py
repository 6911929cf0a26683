"""How numbers look on screen: the seed pages' conventions (toFixed, trailing zeros dropped)."""

from __future__ import annotations

from ..formula.rounding import round_half_away


def display_number(value: float | None, precision: int | None = None, display: str = "number",
                   *, keep_zeros: bool = False) -> str:
    """``value`` rounded to ``precision`` decimals, ties away from zero.

    Trailing zeros are dropped (``20.50`` → ``20.5``, ``98.0`` → ``98``) unless
    ``keep_zeros``; ``display="percent"`` shows a ratio as a percentage. ``None`` is
    shown as ``n/a``.
    """
    if value is None:
        return "n/a"
    if display == "percent":
        value = value * 100
    if precision is None:
        precision = 2
    rounded = float(round_half_away(value, precision))
    text = f"{rounded:.{precision}f}"
    if not keep_zeros and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", "-0.0"):
        text = "0"
    return text + ("%" if display == "percent" else "")


def signed(text: str) -> str:
    """Prefix a plus sign to a non-negative number's text."""
    return text if text.startswith("-") or text == "n/a" else f"+{text}"


def significant(value: float) -> str:
    """A measured figure to four significant digits with thousands separators, never in
    exponent form (``130.58`` → ``130.6``, ``11094.5`` → ``11,095``)."""
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:,.4g}"
