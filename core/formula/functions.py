"""The functions a formula may call: one table, read by the parser (which names exist and
how many arguments each takes) and by every evaluator, each of which takes its own form
from the row: ``scalar`` (plain Python over one scenario: ``formula/scalar.py``, the snapshot
path), ``array`` (numpy over many scenario rows: ``formula/compiled.py``), ``symbolic`` (sympy, for
``explain``: ``formula/symbolic.py``) and ``javascript`` (the site's runtime: ``formula/javascript.py``
writes these into ``site/assets/fitproof-runtime.js`` when a site is built).

Adding a function is adding a row here and nothing else; tests/test_formula_functions.py
checks every row's forms against each other (NaN, infinities, zero, ties, many arguments)
and adds a function on a copy of the package.

The rules every form keeps: NaN is unknown and stays unknown (``min``/``max`` of an
unknown are unknown; ``coalesce`` is the one way to fall back from one); ``floor``,
``ceiling`` and ``round`` leave an infinity as it is; ``round`` rounds ties away from zero;
the square root and logarithm of a negative number are unknown, the logarithm of zero is
minus infinity. This module imports no third-party package: ``array`` receives numpy and
``symbolic`` receives the sympy names it uses (:class:`SymbolicKit`) from its caller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .rounding import round_half_away, round_scalar

NAN = math.nan
INF = math.inf


def divide(a: float, b: float) -> float:
    """``a / b`` of two floats, a division by zero as an infinity of the quotient's sign
    (NaN for zero or an unknown over zero), as numpy divides."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def natural_log(value: float) -> float:
    """The natural logarithm: unknown below zero, minus infinity at zero."""
    if value != value or value < 0:
        return NAN
    if value == 0:
        return -INF
    return math.log(value)


class SymbolicKit(NamedTuple):
    """What a row's ``symbolic`` form builds with: the sympy module and fitproof's own
    unevaluated functions (formula/symbolic.py defines them; this module imports no sympy)."""

    sympy: Any
    Round: Any
    Coalesce: Any


class FormulaFunction(NamedTuple):
    """One function formulas may call, in every form an evaluator needs."""

    name: str
    least: int  #: the fewest arguments
    most: int | None  #: the most arguments (None: any number)
    scalar: Callable[[Sequence[float]], float]
    #: (numpy, the argument arrays) → an array; called under ``np.errstate(all="ignore")``
    array: Callable[[Any, Sequence[Any]], Any]
    #: (a :class:`SymbolicKit`, the argument expressions) → an unevaluated expression
    symbolic: Callable[[SymbolicKit, Sequence[Any]], Any]
    #: a JavaScript function of the array of arguments ``v``; ``R.roundScalar`` and
    #: ``R.ln`` (natural_log) are the runtime's helpers it may call
    javascript: str
    #: what it computes, for the parser's messages and the documentation
    meaning: str


def _unknown_if_any(values: Sequence[float]) -> bool:
    return any(value != value for value in values)


def _whole_part(name: str, step: Callable[[float], float], short: str,
                meaning: str) -> FormulaFunction:
    """``floor`` or ``ceiling``: the one rule both keep, an infinity (or an unknown) is left
    as it is. numpy and JavaScript name the ceiling ``ceil``, sympy ``ceiling``."""
    def scalar(values: Sequence[float]) -> float:
        value = values[0]
        return value if not math.isfinite(value) else float(step(value))
    return FormulaFunction(
        name, 1, 1,
        scalar=scalar,
        array=lambda np, v: getattr(np, short)(v[0]),
        symbolic=lambda kit, v: getattr(kit.sympy, name)(v[0], evaluate=False),
        javascript=f"function (v) {{ return isFinite(v[0]) ? Math.{short}(v[0]) : v[0]; }}",
        meaning=meaning)


def _coalesce_scalar(values: Sequence[float]) -> float:
    for value in values[:-1]:
        if value == value:
            return value
    return values[-1]


def _coalesce_array(np: Any, values: Sequence[Any]) -> Any:
    result = values[-1]
    for value in reversed(values[:-1]):
        result = np.where(np.isnan(value), result, value)
    return result


def _digits(values: Sequence[Any]) -> int:
    return int(values[1]) if len(values) > 1 else 0


def _extreme(name: str, pick: Callable[[Sequence[float]], float], ufunc: str, sympy_name: str,
             meaning: str) -> FormulaFunction:
    """``min`` or ``max``: the one rule both keep, unknown if any argument is unknown (numpy's
    ``minimum``/``maximum`` and JavaScript's NaN check keep it too)."""
    return FormulaFunction(
        name, 2, None,
        scalar=lambda v: NAN if _unknown_if_any(v) else pick(v),
        array=lambda np, v: getattr(np, ufunc).reduce(np.broadcast_arrays(*v)),
        symbolic=lambda kit, v: getattr(kit.sympy, sympy_name)(*v, evaluate=False),
        javascript=("function (v) { for (var i = 0; i < v.length; i++) if (v[i] !== v[i]) "
                    f"return NaN; return Math.{name}.apply(null, v); }}"),
        meaning=meaning)


_ROWS = (
    _extreme("min", min, "minimum", "Min", "the least of its arguments"),
    _extreme("max", max, "maximum", "Max", "the greatest of its arguments"),
    _whole_part("floor", math.floor, "floor", "the largest whole number not above it"),
    _whole_part("ceiling", math.ceil, "ceil", "the smallest whole number not below it"),
    FormulaFunction(
        "round", 1, 2,
        scalar=lambda v: round_scalar(v[0], _digits(v)),
        array=lambda np, v: round_half_away(v[0], _digits(v)),
        symbolic=lambda kit, v: kit.Round(*v, evaluate=False),
        javascript="function (v) { return R.roundScalar(v[0], v.length > 1 ? v[1] : 0); }",
        meaning="rounded to the given decimals (default 0), ties away from zero"),
    FormulaFunction(
        "log", 1, 2,
        scalar=lambda v: (natural_log(v[0]) if len(v) == 1
                          else divide(natural_log(v[0]), natural_log(v[1]))),
        array=lambda np, v: np.log(v[0]) if len(v) == 1 else np.log(v[0]) / np.log(v[1]),
        symbolic=lambda kit, v: kit.sympy.log(*v, evaluate=False),
        javascript=("function (v) { return v.length === 1 ? R.ln(v[0]) "
                    ": R.ln(v[0]) / R.ln(v[1]); }"),
        meaning="the natural logarithm, or the logarithm to the base given second"),
    FormulaFunction(
        "sqrt", 1, 1,
        scalar=lambda v: math.sqrt(v[0]) if v[0] >= 0 else NAN,
        array=lambda np, v: np.sqrt(v[0]),
        symbolic=lambda kit, v: kit.sympy.sqrt(v[0], evaluate=False),
        javascript="function (v) { return v[0] >= 0 ? Math.sqrt(v[0]) : NaN; }",
        meaning="the square root"),
    FormulaFunction(
        "abs", 1, 1,
        scalar=lambda v: abs(v[0]),
        array=lambda np, v: np.abs(v[0]),
        symbolic=lambda kit, v: kit.sympy.Abs(v[0], evaluate=False),
        javascript="function (v) { return Math.abs(v[0]); }",
        meaning="the absolute value"),
    FormulaFunction(
        "coalesce", 2, None,
        scalar=_coalesce_scalar,
        array=_coalesce_array,
        symbolic=lambda kit, v: kit.Coalesce(*v, evaluate=False),
        javascript=("function (v) { for (var i = 0; i < v.length - 1; i++) "
                    "if (v[i] === v[i]) return v[i]; return v[v.length - 1]; }"),
        meaning="the first argument that is known (the last one if none is)"),
)

#: every function formulas may call, by name, in the order messages list them
FUNCTIONS: dict[str, FormulaFunction] = {row.name: row for row in _ROWS}
