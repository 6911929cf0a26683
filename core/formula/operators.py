"""The operators of the formula language: one table, read by the parser (which Python
operators a formula may use, and the symbol each stands for) and by every evaluator, each
of which takes its own form from the row, as it does from the function table
(``functions.py``): ``scalar`` (plain Python, ``scalar.py``), ``array`` (numpy,
``compiled.py``), ``symbolic`` (sympy, ``symbolic.py``) and ``javascript`` (the site's
runtime: ``javascript.py`` writes these into ``site/assets/fitproof-runtime.js`` when a site
is built).

Every form takes the operands as one sequence, as a function's forms take its arguments.
The rules they keep: NaN is unknown and stays unknown through arithmetic and comparisons;
``and``, ``or`` and ``not`` are three-valued (false and anything is false, true or anything
is true, otherwise an unknown operand makes the answer unknown); a division by zero is an
infinity of the quotient's sign (zero over zero unknown), ``//`` and ``%`` follow Python's
floor rule, ``%`` by zero is unknown; ``**`` is the C library's ``pow`` (an overflow an
infinity, a negative number to a fractional power unknown; JavaScript's ``Math.pow``, which
the site's form calls, may differ from it in the last bit). Comparisons chain as in Python
(``a < b <= c`` is ``a < b and b <= c``), each operand computed once.

``symbolic`` receives the sympy module; the logic rows receive operands already made
conditions (a number as a condition means "is not zero"). This module imports no
third-party package.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .functions import INF, NAN, divide


class Operator(NamedTuple):
    """One operator, in every form an evaluator needs."""

    symbol: str  #: as the trees write it: "+", "//", "<=", "and", "not"
    #: "arithmetic" (two operands), "comparison" (two; chained), "logic" (two or more,
    #: folded), "unary" (one)
    kind: str
    syntax: str  #: the class of Python's ast the parser reads it from: "Add", "LtE", "Not"
    scalar: Callable[[Sequence[float]], float]
    #: (numpy, the operand arrays) → an array; called under ``np.errstate(all="ignore")``
    array: Callable[[Any, Sequence[Any]], Any]
    #: (the sympy module, the operand expressions) → an unevaluated expression
    symbolic: Callable[[Any, Sequence[Any]], Any]
    #: a JavaScript function of the array of operands ``v``; ``R.truth``, ``R.divmod`` and
    #: ``R.isOddInteger`` are the runtime's helpers it may call
    javascript: str
    meaning: str
    #: a JavaScript expression template for the operators JavaScript has with the very same
    #: IEEE meaning (``{0} + {1}``): written inline rather than as a call
    inline: str | None = None


def truth(value: float) -> float:
    """1.0 where true, 0.0 where false, NaN where unknown."""
    if value != value:
        return NAN
    return 1.0 if value != 0 else 0.0


def floor_divide(a: float, b: float) -> float:
    """``a // b`` by Python's rule (which numpy's floor_divide follows); by zero, divide's."""
    try:
        return a // b
    except ZeroDivisionError:
        return divide(a, b)


def modulo(a: float, b: float) -> float:
    """``a % b`` by Python's rule; by zero, unknown."""
    try:
        return a % b
    except ZeroDivisionError:
        return NAN


def odd_integer(value: float) -> bool:
    return math.isfinite(value) and value.is_integer() and value % 2 == 1


def power(a: float, b: float) -> float:
    """``a ** b`` by the C library's ``pow`` (the array form uses this function too, so both
    paths agree to the last bit), an overflow as an infinity, an undefined power as NaN."""
    try:
        return math.pow(a, b)
    except OverflowError:
        return -INF if a < 0 and odd_integer(b) else INF
    except ValueError:
        if a == 0:  # zero to a negative power
            return math.copysign(INF, a) if odd_integer(b) else INF
        return NAN  # a negative number to a fractional power


def both(values: Sequence[float]) -> float:
    """Three-valued ``and``: false if any is false, else unknown if any is unknown."""
    unknown = False
    for value in values:
        if value == 0:
            return 0.0
        unknown = unknown or value != value
    return NAN if unknown else 1.0


def either(values: Sequence[float]) -> float:
    """Three-valued ``or``: true if any is true, else unknown if any is unknown."""
    unknown = False
    for value in values:
        if value != value:
            unknown = True
        elif value != 0:
            return 1.0
    return NAN if unknown else 0.0


_POWER_UFUNCS: dict[int, Any] = {}


def _array_power(np: Any, a: Any, b: Any) -> Any:
    """:func:`power` element by element: numpy's own power differs from the C library's in
    the last bit for some operands."""
    ufunc = _POWER_UFUNCS.get(id(np))
    if ufunc is None:
        ufunc = _POWER_UFUNCS.setdefault(id(np), np.frompyfunc(power, 2, 1))
    return np.asarray(ufunc(np.asarray(a, dtype=float), b), dtype=float)


def array_truth(np: Any, values: Any) -> Any:
    """1.0 where true, 0.0 where false, NaN where unknown, element by element."""
    values = np.asarray(values, dtype=float)
    return np.where(np.isnan(values), NAN, (values != 0).astype(float))


def _array_both(np: Any, values: Sequence[Any]) -> Any:
    result = array_truth(np, values[0])
    for value in values[1:]:
        b = array_truth(np, value)
        result = np.where((result == 0) | (b == 0), 0.0,
                          np.where(np.isnan(result) | np.isnan(b), NAN, 1.0))
    return result


def _array_either(np: Any, values: Sequence[Any]) -> Any:
    result = array_truth(np, values[0])
    for value in values[1:]:
        b = array_truth(np, value)
        result = np.where((result == 1) | (b == 1), 1.0,
                          np.where(np.isnan(result) | np.isnan(b), NAN, 0.0))
    return result


def _comparison(symbol: str, syntax: str, test: Callable[[float, float], bool],
                ufunc: str, sympy_class: str, javascript: str, meaning: str) -> Operator:
    """A comparison: unknown when either side is, else 1.0 or 0.0 (``test``, numpy's
    ``ufunc``, sympy's ``sympy_class``, JavaScript's operator ``javascript``)."""
    def scalar(v: Sequence[float]) -> float:
        a, b = v[0], v[1]
        return NAN if a != a or b != b else float(test(a, b))

    def array(np: Any, v: Sequence[Any]) -> Any:
        a, b = v[0], v[1]
        with np.errstate(invalid="ignore"):
            result = getattr(np, ufunc)(a, b)
        return np.where(np.isnan(a) | np.isnan(b), NAN, np.asarray(result, dtype=float))

    return Operator(
        symbol, "comparison", syntax, scalar, array,
        lambda sympy, v: getattr(sympy, sympy_class)(v[0], v[1], evaluate=False),
        f"function (v) {{ var a = v[0], b = v[1]; "
        f"return a !== a || b !== b ? NaN : (a {javascript} b ? 1 : 0); }}", meaning)


_ROWS = (
    Operator("+", "arithmetic", "Add", lambda v: v[0] + v[1],
             lambda np, v: np.add(v[0], v[1]),
             lambda sympy, v: sympy.Add(v[0], v[1], evaluate=False),
             "function (v) { return v[0] + v[1]; }", "sum", "({0} + {1})"),
    Operator("-", "arithmetic", "Sub", lambda v: v[0] - v[1],
             lambda np, v: np.subtract(v[0], v[1]),
             # a number subtracted is written as its negative, anything else as -1 times it
             lambda sympy, v: sympy.Add(v[0], -v[1] if v[1].is_Number else
                                        sympy.Mul(-1, v[1], evaluate=False), evaluate=False),
             "function (v) { return v[0] - v[1]; }", "difference", "({0} - {1})"),
    Operator("*", "arithmetic", "Mult", lambda v: v[0] * v[1],
             lambda np, v: np.multiply(v[0], v[1]),
             lambda sympy, v: sympy.Mul(v[0], v[1], evaluate=False),
             "function (v) { return v[0] * v[1]; }", "product", "({0} * {1})"),
    Operator("/", "arithmetic", "Div", lambda v: divide(v[0], v[1]),
             lambda np, v: np.true_divide(v[0], v[1]),
             lambda sympy, v: sympy.Mul(v[0], sympy.Pow(v[1], -1, evaluate=False),
                                        evaluate=False),
             "function (v) { return v[0] / v[1]; }", "quotient (by zero: an infinity)"),
    Operator("//", "arithmetic", "FloorDiv", lambda v: floor_divide(v[0], v[1]),
             lambda np, v: np.floor_divide(v[0], v[1]),
             lambda sympy, v: sympy.floor(sympy.Mul(v[0], sympy.Pow(v[1], -1, evaluate=False),
                                                    evaluate=False), evaluate=False),
             """function (v) {
        var a = v[0], b = v[1];
        if (b === 0) return a / b;
        if (a !== a || b !== b) return NaN;
        if (!isFinite(a) || !isFinite(b)) {
          if (!isFinite(a)) return NaN;
          // a finite number over an infinity: Python's floor of a tiny quotient, a zero
          // with the quotient's sign (a / b) or minus one
          return (a === 0 || (a > 0) === (b > 0)) ? a / b : -1;
        }
        return R.divmod(a, b)[0];
      }""", "floor of the quotient (Python's rule)"),
    Operator("%", "arithmetic", "Mod", lambda v: modulo(v[0], v[1]),
             lambda np, v: np.mod(v[0], v[1]),
             lambda sympy, v: sympy.Mod(v[0], v[1], evaluate=False),
             """function (v) {
        var a = v[0], b = v[1];
        if (b === 0 || a !== a || b !== b || !isFinite(a)) return NaN;
        // over an infinity: a zero takes the divisor's sign (Python's rule), a number of
        // the divisor's sign stays, one of the other sign becomes the divisor
        if (!isFinite(b)) return a === 0 ? (b > 0 ? 0 : -0) : ((a > 0) === (b > 0) ? a : b);
        return R.divmod(a, b)[1];
      }""", "remainder with the divisor's sign (Python's rule; by zero: unknown)"),
    Operator("**", "arithmetic", "Pow", lambda v: power(v[0], v[1]),
             lambda np, v: _array_power(np, v[0], v[1]),
             lambda sympy, v: sympy.Pow(v[0], v[1], evaluate=False),
             """function (v) {
        var a = v[0], b = v[1];
        if (a === 1 || b === 0) return 1;  // C's pow: 1**NaN and NaN**0 are 1
        if (a === -1 && (b === Infinity || b === -Infinity)) return 1;  // and (-1)**inf
        if (a === 0 && b < 0) return R.isOddInteger(b) ? (Object.is(a, -0) ? -Infinity : Infinity) : Infinity;
        if (a < 0 && isFinite(a) && isFinite(b) && Math.floor(b) !== b) return NaN;
        return Math.pow(a, b);
      }""", "power (the C library's pow)"),
    _comparison("<", "Lt", lambda a, b: a < b, "less", "StrictLessThan", "<", "less than"),
    _comparison("<=", "LtE", lambda a, b: a <= b, "less_equal", "LessThan", "<=",
                "at most"),
    _comparison(">", "Gt", lambda a, b: a > b, "greater", "StrictGreaterThan", ">",
                "greater than"),
    _comparison(">=", "GtE", lambda a, b: a >= b, "greater_equal", "GreaterThan", ">=",
                "at least"),
    _comparison("==", "Eq", lambda a, b: a == b, "equal", "Eq", "===", "equal to"),
    _comparison("!=", "NotEq", lambda a, b: a != b, "not_equal", "Ne", "!==",
                "not equal to"),
    Operator("and", "logic", "And", both,
             _array_both, lambda sympy, v: sympy.And(*v, evaluate=False),
             """function (v) {
        var unknown = false;
        for (var i = 0; i < v.length; i++) {
          var t = R.truth(v[i]);
          if (t === 0) return 0;
          if (t !== t) unknown = true;
        }
        return unknown ? NaN : 1;
      }""", "all true (three-valued)"),
    Operator("or", "logic", "Or", either,
             _array_either, lambda sympy, v: sympy.Or(*v, evaluate=False),
             """function (v) {
        var unknown = false;
        for (var i = 0; i < v.length; i++) {
          var t = R.truth(v[i]);
          if (t === 1) return 1;
          if (t !== t) unknown = true;
        }
        return unknown ? NaN : 0;
      }""", "any true (three-valued)"),
    Operator("not", "unary", "Not",
             lambda v: NAN if (t := truth(v[0])) != t else 1.0 - t,
             lambda np, v: np.where(np.isnan(array_truth(np, v[0])), NAN,
                                    1.0 - array_truth(np, v[0])),
             lambda sympy, v: sympy.Not(v[0], evaluate=False),
             "function (v) { var t = R.truth(v[0]); return t !== t ? NaN : 1 - t; }",
             "negation (three-valued)"),
    Operator("-u", "unary", "USub", lambda v: -v[0],
             lambda np, v: -np.asarray(v[0], dtype=float),
             lambda sympy, v: sympy.Mul(-1, v[0], evaluate=False),
             "function (v) { return -v[0]; }", "negative", "(-({0}))"),
    Operator("+u", "unary", "UAdd", lambda v: v[0], lambda np, v: v[0],
             lambda sympy, v: v[0], "function (v) { return v[0]; }", "the operand itself",
             "{0}"),
)

#: every operator by symbol (the unary minus and plus as "-u" and "+u")
OPERATORS: dict[str, Operator] = {row.symbol: row for row in _ROWS}


def operator_symbol(kind: str, symbol: str) -> str:
    """The table's key of an operator as a tree writes it: a unary ``-`` is ``-u``."""
    return f"{symbol}u" if kind == "unary" and symbol in ("-", "+") else symbol
