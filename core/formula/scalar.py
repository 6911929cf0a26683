"""Formula trees as plain-Python functions of one scenario: no numpy, same numbers.

The snapshot of a pack set (``fast/snapshot.py``) stores each parsed formula as a nested list
(``formula/parser.py``'s ``tree_data`` writes it from the parser's tree); :func:`compile_data` turns it back
into a closure over a ``dict`` of floats. Every rule of the array compiler
(``formula/compiled.py``) holds here too, so both give the same float for the same inputs: NaN is
unknown and stays unknown through arithmetic, comparisons and ``and``/``or``
(three-valued logic); a division by zero, an overflowing power or the logarithm of zero
gives an infinity, never an exception; ``min``/``max`` of an unknown are unknown;
``coalesce`` is the one way to fall back from a missing value. No text is evaluated: the
trees come from the formula parser and are rebuilt node by node.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .functions import FUNCTIONS
from .operators import OPERATORS, operator_symbol, truth

Env = Mapping[str, float]
Scalar = Callable[[Env], float]

NAN = math.nan
INF = math.inf


def finite(value: float) -> float:
    """An infinity (a division by zero, an overflowing power) is unknown."""
    return NAN if value in (INF, -INF) else value


# each operator's plain-Python form, by symbol (formula/operators.py)
_OPERATORS: dict[str, Callable[[Sequence[float]], float]] = {
    symbol: row.scalar for symbol, row in OPERATORS.items()}


_CALLS: dict[str, Callable[[Sequence[float]], float]] = {
    name: function.scalar for name, function in FUNCTIONS.items()}


def _binary(op: str, left_data: list[Any], right_data: list[Any]) -> Scalar:
    """A binary operation by its row of the operator table; ``+``, ``-`` and ``*`` of names
    and numbers are written out, as they are most of what formulas compute (the very IEEE
    operations of those rows, fewer calls: tests/test_formula_operators.py compares them)."""
    left, right = compile_data(left_data), compile_data(right_data)
    if op in ("+", "-", "*"):
        if left_data[0] == "ref" and right_data[0] == "ref":
            a, b = left_data[1], right_data[1]
            if op == "+":
                return lambda env: env[a] + env[b]
            if op == "-":
                return lambda env: env[a] - env[b]
            return lambda env: env[a] * env[b]
        if right_data[0] == "num":
            c = float(right_data[1])
            if op == "+":
                return lambda env: left(env) + c
            if op == "-":
                return lambda env: left(env) - c
            return lambda env: left(env) * c
    apply = _OPERATORS[op]
    return lambda env: apply([left(env), right(env)])


def compile_data(data: list[Any]) -> Scalar:
    """A closure computing the tree ``data`` (see ``formula/parser.py``'s ``tree_data``) from a dict of
    floats."""
    kind = data[0]
    if kind == "unknown":
        return lambda env: NAN
    if kind == "num":
        constant = float(data[1])
        return lambda env: constant
    if kind == "ref":
        name = data[1]
        return lambda env: env[name]
    if kind == "unary":
        operand = compile_data(data[2])
        if data[1] == "+":
            return operand
        if data[1] == "-":
            return lambda env: -operand(env)  # the "-u" row's IEEE negation, written out
        negate = _OPERATORS[operator_symbol("unary", data[1])]
        return lambda env: negate([operand(env)])
    if kind == "binary":
        return _binary(data[1], data[2], data[3])
    if kind == "compare":
        ops: list[str] = list(data[1])
        operands = [compile_data(o) for o in data[2]]
        tests = [_OPERATORS[op] for op in ops]
        both = _OPERATORS["and"]

        def compare(env: Env) -> float:
            values = [o(env) for o in operands]
            result = tests[0](values[0:2])
            for index in range(1, len(tests)):
                result = both([result, tests[index](values[index:index + 2])])
            return result
        return compare
    if kind == "bool":
        parts = [compile_data(v) for v in data[2]]
        combine = _OPERATORS[data[1]]
        # false and anything is false, true or anything is true, unknowns included: the
        # rest need not be computed
        decided = 0.0 if data[1] == "and" else 1.0

        def boolean(env: Env) -> float:
            result = parts[0](env)
            for part in parts[1:]:
                if truth(result) == decided:
                    return decided
                result = combine([result, part(env)])
            return result
        return boolean
    if kind == "cond":
        test, body, orelse = compile_data(data[1]), compile_data(data[2]), compile_data(data[3])

        def conditional(env: Env) -> float:
            decided = truth(test(env))
            if decided != decided:
                return NAN
            return body(env) if decided == 1 else orelse(env)
        return conditional
    if kind == "call":
        args = [compile_data(a) for a in data[2]]
        call = _CALLS[data[1]]
        if len(args) == 1:
            only = args[0]
            return lambda env: call([only(env)])
        if len(args) == 2:
            first, second = args
            return lambda env: call([first(env), second(env)])
        return lambda env: call([a(env) for a in args])
    raise ValueError(f"unknown formula node {kind!r}")
