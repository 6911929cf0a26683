"""Compile formula trees into numpy closures: fast, vectorised, no sympy on this path.

Every value is a float array; booleans are 1.0/0.0. A missing pack figure is NaN and
stays NaN through arithmetic, comparisons and ``and``/``or`` (three-valued logic), so an
answer that depends on an unknown figure is reported as unknown, never silently wrong.
``coalesce(a, b)`` is the one way to fall back from a missing value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Union

import numpy as np
from numpy.typing import NDArray

from .functions import FUNCTIONS
from .parser import Binary, BoolOp, Call, Compare, Cond, Node, Num, Ref, Unary
from .scalar import power

FloatArray = NDArray[np.float64]
# a formula's value: an array, or a numpy scalar when nothing in it varies by row
Value = Union[FloatArray, np.float64]
Env = Mapping[str, FloatArray]
Compiled = Callable[[Env], Value]

_NAN = float("nan")
_POWER = np.frompyfunc(power, 2, 1)


def _truth(values: Value) -> FloatArray:
    """1.0 where true, 0.0 where false, NaN where unknown."""
    values = np.asarray(values, dtype=float)
    return np.where(np.isnan(values), _NAN, (values != 0).astype(float))


def _compare(op: str, a: Value, b: Value) -> FloatArray:
    with np.errstate(invalid="ignore"):
        if op == "<":
            result = a < b
        elif op == "<=":
            result = a <= b
        elif op == ">":
            result = a > b
        elif op == ">=":
            result = a >= b
        elif op == "==":
            result = a == b
        else:
            result = a != b
    return np.where(np.isnan(a) | np.isnan(b), _NAN, result.astype(float))


def _and(a: Value, b: Value) -> FloatArray:
    a, b = _truth(a), _truth(b)
    return np.where((a == 0) | (b == 0), 0.0, np.where(np.isnan(a) | np.isnan(b), _NAN, 1.0))


def _or(a: Value, b: Value) -> FloatArray:
    a, b = _truth(a), _truth(b)
    return np.where((a == 1) | (b == 1), 1.0, np.where(np.isnan(a) | np.isnan(b), _NAN, 0.0))


def _binary(op: str, a: Value, b: Value) -> FloatArray:
    with np.errstate(all="ignore"):
        if op == "+":
            return np.add(a, b)
        if op == "-":
            return np.subtract(a, b)
        if op == "*":
            return np.multiply(a, b)
        if op == "/":
            return np.true_divide(a, b)
        if op == "//":
            return np.floor_divide(a, b)
        if op == "%":
            return np.mod(a, b)
        # the C library's pow, element by element, as the scalar path computes it: numpy's
        # own power differs from it in the last bit for some operands
        raised: FloatArray = np.asarray(_POWER(np.asarray(a, dtype=float), b), dtype=float)
        return raised


def _apply(func: str, args: list[Value]) -> Value:
    """A function of the table (formula/functions.py) in its numpy form."""
    with np.errstate(all="ignore"):
        result: Value = FUNCTIONS[func].array(np, args)
    return result


def compile_tree(node: Node) -> Compiled:
    """Turn a parsed formula tree into a function of an environment of arrays."""
    if isinstance(node, Num):
        constant = np.float64(node.value)
        return lambda env: constant
    if isinstance(node, Ref):
        name = node.name
        return lambda env: env[name]
    if isinstance(node, Unary):
        operand = compile_tree(node.operand)
        if node.op == "-":
            return lambda env: -np.asarray(operand(env), dtype=float)
        if node.op == "+":
            return operand
        return lambda env: np.where(np.isnan(_truth(operand(env))), _NAN,
                                    1.0 - _truth(operand(env)))
    if isinstance(node, Binary):
        left, right, op = compile_tree(node.left), compile_tree(node.right), node.op
        return lambda env: _binary(op, left(env), right(env))
    if isinstance(node, Compare):
        operands = [compile_tree(o) for o in node.operands]
        ops = node.ops

        def compare(env: Env) -> FloatArray:
            values = [o(env) for o in operands]
            result = _compare(ops[0], values[0], values[1])
            for index in range(1, len(ops)):
                result = _and(result, _compare(ops[index], values[index], values[index + 1]))
            return result
        return compare
    if isinstance(node, BoolOp):
        values = [compile_tree(v) for v in node.values]
        combine = _and if node.op == "and" else _or

        def boolean(env: Env) -> Value:
            result = values[0](env)
            for value in values[1:]:
                result = combine(result, value(env))
            return result
        return boolean
    if isinstance(node, Cond):
        test, body, orelse = compile_tree(node.test), compile_tree(node.body), compile_tree(node.orelse)

        def conditional(env: Env) -> FloatArray:
            truth = _truth(test(env))
            return np.where(np.isnan(truth), _NAN, np.where(truth == 1, body(env), orelse(env)))
        return conditional
    if isinstance(node, Call):
        args = [compile_tree(a) for a in node.args]
        func = node.func
        return lambda env: _apply(func, [a(env) for a in args])
    raise AssertionError(f"unknown node {node!r}")
