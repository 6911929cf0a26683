"""Formula trees as JavaScript: the site's configurator runs the packs' own formulas.

Each parsed formula (a tree as ``formula/parser.py``'s ``tree_data`` writes it) becomes one
JavaScript function of an environment object, generated node by node; nothing is
written by hand per formula, and no formula text is evaluated. The functions call a
small runtime, ``R`` in ``site/assets/fitproof-site.js``, that keeps the rules of
``formula/scalar.py``: NaN is unknown and stays unknown through arithmetic, comparisons and
``and``/``or``; a division by zero or an overflowing power gives an infinity; ``min`` and
``max`` of an unknown are unknown; ``coalesce`` falls back from a missing value;
``round`` rounds ties away from zero as JavaScript's ``toFixed`` does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from .functions import FUNCTIONS
from .operators import OPERATORS, Operator, operator_symbol

_COMPARISONS = {row.symbol for row in OPERATORS.values() if row.kind == "comparison"}


class UnknownNode(ValueError):
    """A tree holds a node this generator does not know (a newer snapshot format)."""


def _number(value: float) -> str:
    if not math.isfinite(value):
        raise UnknownNode(f"a formula constant must be finite (got {value!r})")
    return repr(float(value))


def js_expression(tree: list[Any]) -> str:
    """The JavaScript expression computing ``tree`` from an environment ``e``."""
    kind = tree[0]
    if kind == "num":
        return _number(float(tree[1]))
    if kind == "unknown":
        return "NaN"
    if kind == "ref":
        return f"e[{json.dumps(str(tree[1]))}]"
    if kind == "unary":
        row = OPERATORS.get(operator_symbol("unary", str(tree[1])))
        if row is not None and row.kind == "unary":
            return _operation(row, [js_expression(tree[2])])
    elif kind == "binary":
        row = OPERATORS.get(str(tree[1]))
        if row is not None and row.kind == "arithmetic":
            return _operation(row, [js_expression(tree[2]), js_expression(tree[3])])
    elif kind == "compare":
        ops = [str(op) for op in tree[1]]
        if not ops or any(op not in _COMPARISONS for op in ops):
            raise UnknownNode(f"unknown comparison {ops!r}")
        operands = ", ".join(js_expression(o) for o in tree[2])
        return f"R.compare({json.dumps(ops)}, [{operands}])"
    elif kind == "bool":
        row = OPERATORS.get(str(tree[1]))
        if row is not None and row.kind == "logic":
            return _operation(row, [js_expression(v) for v in tree[2]])
    elif kind == "cond":
        return (f"R.cond({js_expression(tree[1])}, {js_expression(tree[2])}, "
                f"{js_expression(tree[3])})")
    elif kind == "call":
        if tree[1] in FUNCTIONS:
            args = ", ".join(js_expression(a) for a in tree[2])
            return f"R.fn[{json.dumps(tree[1])}]([{args}])"
    raise UnknownNode(f"unknown formula node {tree[:2]!r}")


def _operation(row: Operator, operands: list[str]) -> str:
    """An operator applied: inline where JavaScript has it with the row's very meaning
    (``(a + b)``), else a call of the row's function in the runtime (``R.op["//"]([a, b])``)."""
    if row.inline is not None:
        return row.inline.format(*operands)
    return f"R.op[{json.dumps(row.symbol)}]([{', '.join(operands)}])"


# where the runtime (site/assets/fitproof-runtime.js) takes the tables' functions
FUNCTIONS_SLOT = "/* formula functions: formula/javascript.py runtime_script */ null"
OPERATORS_SLOT = "/* formula operators: formula/javascript.py runtime_script */ null"


def runtime_script(runtime: str) -> str:
    """The site's runtime with the function and operator tables' JavaScript forms in their
    slots (``R.fn``, ``R.op``): what ``fitproof site`` writes as fitproof-runtime.js, so the
    browser calls the very functions the tables define (core/formula/functions.py and
    core/formula/operators.py)."""
    for slot, what in ((FUNCTIONS_SLOT, "functions"), (OPERATORS_SLOT, "operators")):
        if runtime.count(slot) != 1:
            raise ValueError(f"the runtime has no single slot for the formula {what}")
    runtime = runtime.replace(FUNCTIONS_SLOT, _object(
        ((name, function.javascript) for name, function in FUNCTIONS.items()), "      "))
    return runtime.replace(OPERATORS_SLOT, _object(
        ((symbol, row.javascript) for symbol, row in OPERATORS.items()), "      "))


def js_function(tree: list[Any]) -> str:
    """``function (e) { return ...; }`` for ``tree``."""
    return f"function (e) {{ return {js_expression(tree)}; }}"


def _object(entries: Iterable[tuple[str, str]], indent: str = "  ") -> str:
    # computed keys: a pack's name "__proto__" is then a property like any other, where
    # a literal "__proto__": key would set the object's prototype instead
    body = ",\n".join(f"{indent}[{json.dumps(key)}]: {value}" for key, value in entries)
    return "{\n" + body + "\n" + indent[:-2] + "}"


def js_module(data: Mapping[str, Any]) -> str:
    """The formulas, dispatched variants, verdict rules, selection conditions and launch
    template conditions of a snapshot's data (``fast/build.py``'s ``build_snapshot``) as one script that defines
    ``FITPROOF_FORMULAS`` for the configurator."""
    formulas = _object((name, js_function(f["tree"])) for name, f in data["formulas"].items())
    dispatched = _object(
        (name, _object(((family, js_function(tree)) for family, tree in by.items()), "    "))
        for name, by in data["dispatched"].items())
    verdicts = ",\n".join(f"  {js_function(v['when'])}" for v in data["verdicts"])
    where = _object((name, js_function(s["where"])) for name, s in data["selections"].items())
    minimize = _object((name, "[" + ", ".join(js_function(t) for t in s["minimize"]) + "]")
                       for name, s in data["selections"].items())
    # each launch template option's condition (null: always), for the site's commands
    launch = _object((engine, "[" + ", ".join(js_function(o["when"]) if o["when"] else "null"
                                               for o in template["options"]) + "]")
                     for engine, template in data.get("launch", {}).get("engines", {}).items())
    # each template's cases the engine cannot serve, in order
    unavailable = _object((engine, "[" + ", ".join(js_function(u["when"])
                                                   for u in template.get("unavailable", [])) + "]")
                          for engine, template in data.get("launch", {}).get("engines", {}).items())
    return ("// Generated by fitproof (core/formula/javascript.py) from the packs' parsed formulas.\n"
            "var FITPROOF_FORMULAS = {\n"
            f"formulas: {formulas},\n"
            f"dispatched: {dispatched},\n"
            f"verdicts: [\n{verdicts}\n],\n"
            f"where: {where},\n"
            f"minimize: {minimize},\n"
            f"launch: {launch},\n"
            f"unavailable: {unavailable}\n"
            "};\n")
