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
from .operators import OPERATORS, array_truth, operator_symbol
from .parser import Binary, BoolOp, Call, Compare, Cond, Node, Num, Ref, Unary

FloatArray = NDArray[np.float64]
# a formula's value: an array, or a numpy scalar when nothing in it varies by row
Value = Union[FloatArray, np.float64]
Env = Mapping[str, FloatArray]
Compiled = Callable[[Env], Value]

_NAN = float("nan")


def _operate(symbol: str, operands: list[Value]) -> FloatArray:
    """An operator of the table (formula/operators.py) in its numpy form."""
    with np.errstate(all="ignore"):
        result: FloatArray = OPERATORS[symbol].array(np, operands)
    return result


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
        if node.op == "+":
            return operand
        unary = operator_symbol("unary", node.op)
        return lambda env: _operate(unary, [operand(env)])
    if isinstance(node, Binary):
        left, right, op = compile_tree(node.left), compile_tree(node.right), node.op
        return lambda env: _operate(op, [left(env), right(env)])
    if isinstance(node, Compare):
        operands = [compile_tree(o) for o in node.operands]
        ops = node.ops

        def compare(env: Env) -> FloatArray:
            values = [o(env) for o in operands]
            result = _operate(ops[0], [values[0], values[1]])
            for index in range(1, len(ops)):
                result = _operate("and", [result, _operate(ops[index], values[index:index + 2])])
            return result
        return compare
    if isinstance(node, BoolOp):
        values = [compile_tree(v) for v in node.values]
        combine = node.op

        def boolean(env: Env) -> Value:
            return _operate(combine, [value(env) for value in values])
        return boolean
    if isinstance(node, Cond):
        test, body, orelse = compile_tree(node.test), compile_tree(node.body), compile_tree(node.orelse)

        def conditional(env: Env) -> FloatArray:
            truth: FloatArray = array_truth(np, test(env))
            return np.where(np.isnan(truth), _NAN, np.where(truth == 1, body(env), orelse(env)))
        return conditional
    if isinstance(node, Call):
        args = [compile_tree(a) for a in node.args]
        func = node.func
        return lambda env: _apply(func, [a(env) for a in args])
    raise AssertionError(f"unknown node {node!r}")
