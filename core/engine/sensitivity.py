"""Sensitivity: how strongly a quantity moves with each figure and input behind it.

The elasticity of ``out`` with respect to a leaf ``x`` is d ln out / d ln x: an elasticity
of 1 means 1 % more ``x`` gives 1 % more ``out``. Each formula step is differentiated by
sympy with respect to the names it reads, at the scenario's values, and the chain rule
multiplies the steps down to the pack figures and inputs. Step functions (``round``,
``floor``, ``ceiling``) are differentiated as their argument, ``coalesce`` as the argument
that gave the value, and ``min``/``max``/conditionals as the branch that is taken.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import sympy  # type: ignore[import-untyped]

from ..formula.symbolic import Coalesce, Round, to_sympy
from ..views.results import Elasticity
from .derivation import Derivation

# the groups leaves are ranked in, in the order shown: the device's figures (what a what-if
# changes), the scenario's inputs, the model's and its formats' figures, then every
# constant of the engine or the formulas
GROUPS = ("hardware", "scenario", "model", "constants")
_GROUP_OF = {"hardware": "hardware", "model": "model", "quant": "model", "kv": "model",
             "workload": "model", "host": "model"}
# the powers sympy is asked to evaluate: an exponent beyond MAX_EXPONENT, or a power beyond
# 10 ** ±MAX_POWER_DIGITS (inf or 0 for the plain evaluator, far past a float), is not
# computable; mpmath would work through every bit of it (9 ** 9 ** 9 ** 9 runs for hours)
MAX_EXPONENT = 1e6
MAX_POWER_DIGITS = 400


def group_of(leaf: Derivation) -> str:
    """The group of ``leaf`` in :data:`GROUPS`."""
    if leaf.kind == "input":
        return "scenario"
    return _GROUP_OF.get(leaf.name.partition(".")[0], "constants")


def computable(expr: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> bool:
    """Whether ``expr`` at ``values`` can be evaluated in bounded time: every power in it,
    innermost first, has a finite base and exponent, an exponent of at most MAX_EXPONENT
    and a value within 10 ** ±MAX_POWER_DIGITS. Substituted without evaluating, so no
    power is computed before it is checked; a power whose base or exponent is not a
    number (an ``unknown``) is left to the evaluation, which fails on it."""
    with sympy.evaluate(False):
        probe = expr.xreplace(values)
    for node in sympy.postorder_traversal(probe):  # a power's base and exponent first
        if not isinstance(node, sympy.Pow):
            continue
        try:
            base, exponent = float(node.base), float(node.exp)
        except (TypeError, ValueError):
            continue
        except OverflowError:
            return False
        if not (math.isfinite(base) and math.isfinite(exponent)) \
                or abs(exponent) > MAX_EXPONENT:
            return False
        if base != 0 and abs(exponent * math.log10(abs(base))) > MAX_POWER_DIGITS:
            return False
    return True


def _known(expr: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> bool:
    if not computable(expr, values):
        return False
    try:
        number = float(expr.xreplace(values))
    except (TypeError, ValueError):
        return False
    return math.isfinite(number)


def _smooth(expr: sympy.Basic, values: Mapping[sympy.Symbol, float]) -> sympy.Basic:
    """``expr`` with step functions as their argument and coalesce as its known argument."""
    def known_argument(*args: sympy.Basic) -> sympy.Basic:
        return next((a for a in args if _known(a, values)), args[-1])

    expr = expr.replace(Round, lambda *args: args[0])
    expr = expr.replace(sympy.floor, lambda arg: arg).replace(sympy.ceiling, lambda arg: arg)
    return expr.replace(Coalesce, known_argument)


def local_elasticities(step: Derivation) -> dict[str, float]:
    """d ln step / d ln r for every name ``r`` the formula of ``step`` reads (finite only)."""
    if step.formula is None or step.kind != "formula":
        return {}
    values = {sympy.Symbol(d.name, real=True): float(d.value)
              for d in step.inputs if d.value is not None}
    if not computable(to_sympy(step.formula.tree), values):
        return {}  # as the derivation says of an infinite value: not computable
    expr = _smooth(to_sympy(step.formula.tree), values)
    try:
        out = float(expr.xreplace(values))
    except (TypeError, ValueError):
        return {}
    if not math.isfinite(out) or out == 0:
        return {}
    result: dict[str, float] = {}
    for symbol, value in values.items():
        if value == 0 or symbol not in expr.free_symbols:
            continue
        try:
            derivative = sympy.diff(expr, symbol)
            if not computable(derivative, values):
                continue
            slope = float(derivative.xreplace(values))
        except (TypeError, ValueError):
            continue
        if math.isfinite(slope) and slope != 0:
            result[symbol.name] = slope * value / out
    return result


def elasticities(root: Derivation, smallest: float = 0.005) -> tuple[Elasticity, ...]:
    """The elasticity of ``root`` with respect to every pack figure and input it depends on,
    group by group (:data:`GROUPS`), largest first in each (magnitudes under ``smallest``
    left out)."""
    totals: dict[str, dict[str, float]] = {}
    leaves: dict[str, Derivation] = {}

    def total(step: Derivation) -> dict[str, float]:
        if step.name in totals:
            return totals[step.name]
        result: dict[str, float] = {}
        if step.kind in ("input", "value"):
            if step.value is not None:
                leaves[step.name] = step
                result = {step.name: 1.0}
        else:
            local = local_elasticities(step)
            for child in step.inputs:
                weight = local.get(child.name)
                if weight is None:
                    continue
                for leaf, elasticity in total(child).items():
                    result[leaf] = result.get(leaf, 0.0) + weight * elasticity
        totals[step.name] = result
        return result

    found = [Elasticity(name, float(leaves[name].value or 0), leaves[name].unit, e,
                        leaves[name].at, leaves[name].kind, group_of(leaves[name]))
             for name, e in total(root).items() if abs(e) >= smallest]
    return tuple(sorted(found, key=lambda e: (GROUPS.index(e.group), -abs(e.elasticity),
                                              e.name)))
