"""One definition of the formula language's operators (core/formula/operators.py), and one
conformance suite over it: arithmetic, comparisons (chained too), three-valued and/or/not
and the unary signs give the same value in the plain-Python, numpy and JavaScript
evaluators and the row's own form, for every pair of edge values (unknowns, infinities,
signed zeros, ties, huge and tiny numbers) and for drawn ones; sympy's form is the same
operation at ordinary values; the parser reads which operators exist from the table."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
from importlib.resources import files

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from fitproof.formula.compiled import compile_tree
from fitproof.formula.javascript import js_expression, runtime_script
from fitproof.formula.operators import OPERATORS
from fitproof.formula.parser import FormulaSyntaxError, parse_formula, tree_data
from fitproof.formula.scalar import compile_data
from fitproof.formula.symbolic import to_sympy

from .conftest import js_number, require_tool

EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 1e-300,
         1e300, 7.25, -7.0]
# how each operator is written in a formula over the names a, b, c
WRITTEN = {"+": "a + b", "-": "a - b", "*": "a * b", "/": "a / b", "//": "a // b",
           "%": "a % b", "**": "a ** b", "<": "a < b", "<=": "a <= b", ">": "a > b",
           ">=": "a >= b", "==": "a == b", "!=": "a != b", "and": "a and b", "or": "a or b",
           "not": "not a", "-u": "-a", "+u": "+a"}
# besides one operator alone: chains, folds over three operands, the scalar evaluator's
# written-out forms (a name and a number) and operators nested in operators
MORE = ["a < b <= c", "a == b != c", "a > b > c", "a and b and c", "a or b or c",
        "a and b or not c", "a + 2.5", "a - 2.5", "a * 2.5", "(a + b) * c", "(a - b) - c",
        "a * b * c", "-(a * b)", "a ** b ** c", "a // b % c", "(a < b) + (b < c)"]
FORMULAS = [WRITTEN[symbol] for symbol in OPERATORS] + MORE


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                  math.copysign(1, b))


def _env(values: tuple[float, ...]) -> dict[str, float]:
    return dict(zip("abc", values))


def _python(text: str, values: tuple[float, ...]) -> float:
    return compile_data(tree_data(parse_formula(text).tree))(_env(values))


def _numpy(text: str, values: tuple[float, ...]) -> float:
    env = {name: np.array([value]) for name, value in _env(values).items()}
    return float(np.asarray(compile_tree(parse_formula(text).tree)(env))[0])


def _cases() -> list[tuple[str, tuple[float, ...]]]:
    pairs = list(itertools.product(EDGES, EDGES))
    cases = [(text, (a, b, EDGES[(i * 7) % len(EDGES)])) for text in FORMULAS
             for i, (a, b) in enumerate(pairs)]
    return cases


CASES = _cases()


def test_every_operator_has_every_form_and_the_parser_reads_them_from_the_table():
    kinds = {"arithmetic": 2, "comparison": 2, "logic": 2, "unary": 1}
    for symbol, row in OPERATORS.items():
        assert row.symbol == symbol and row.kind in kinds and row.meaning
        assert row.javascript.startswith("function (v) {")
        assert row.scalar([2.0] * kinds[row.kind]) == row.scalar([2.0] * kinds[row.kind])
        parse_formula(WRITTEN[symbol])  # the parser accepts each row's Python operator
    for text, what in (("a @ b", "the @ operator"), ("a << b", "<<"), ("a is b", "is"),
                       ("a in b", "in"), ("~a", "~")):
        with pytest.raises(FormulaSyntaxError, match="not allowed|not supported"):
            parse_formula(text)


@pytest.mark.parametrize("text", FORMULAS)
def test_python_and_numpy_agree_for_every_pair_of_edges(text):
    for formula, values in CASES:
        if formula == text:
            assert _same(_python(text, values), _numpy(text, values)), (text, values)


@pytest.mark.parametrize("symbol", [s for s, row in OPERATORS.items() if row.kind != "unary"])
def test_each_rows_own_forms_are_what_the_evaluators_compute(symbol):
    """The row's scalar and numpy forms called directly give what a formula gives."""
    row = OPERATORS[symbol]
    for a, b in itertools.product(EDGES, EDGES):
        expected = _python(WRITTEN[symbol], (a, b, 0.0))
        assert _same(row.scalar([a, b]), expected), (symbol, a, b)
        with np.errstate(all="ignore"):
            got = float(np.asarray(row.array(np, [np.array([a]), np.array([b])]))[0])
        assert _same(got, expected), (symbol, a, b)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(FORMULAS),
       st.tuples(*[st.floats(allow_nan=True, allow_infinity=True, width=64)] * 3))
def test_python_and_numpy_agree_on_drawn_operands(text, values):
    assert _same(_python(text, values), _numpy(text, values))


def test_the_rules_every_form_keeps():
    nan, inf = math.nan, math.inf
    assert _python("a / b", (1.0, 0.0)) == inf and _python("a / b", (-1.0, 0.0)) == -inf
    assert math.isnan(_python("a / b", (0.0, 0.0))) and math.isnan(_python("a % b", (1.0, 0.0)))
    assert _python("a // b", (-7.0, 2.0)) == -4.0 and _python("a % b", (-7.0, 2.0)) == 1.0
    assert _python("a ** b", (10.0, 400.0)) == inf and math.isnan(_python("a ** b", (-8.0, 0.5)))
    assert _python("a ** b", (nan, 0.0)) == 1.0  # the C library's pow
    # an overflow keeps the sign an odd power gives; zero to a negative power is infinite,
    # of the zero's sign for an odd power
    assert _python("a ** b", (-1e300, 3.0)) == -inf and _python("a ** b", (-1e300, 2.0)) == inf
    assert _python("a ** b", (-0.0, -3.0)) == -inf and _python("a ** b", (-0.0, -2.0)) == inf
    assert math.isnan(_python("a < b", (nan, 1.0))) and _python("a < b <= c", (1.0, 2.0, 2.0)) == 1
    assert _python("a and b", (0.0, nan)) == 0.0 and math.isnan(_python("a and b", (1.0, nan)))
    assert _python("a or b", (nan, 2.0)) == 1.0 and math.isnan(_python("a or b", (0.0, nan)))
    assert math.isnan(_python("not a", (nan,))) and _python("not a", (-0.0,)) == 1.0


@pytest.mark.parametrize("symbol", sorted(OPERATORS))
def test_the_sympy_form_is_the_same_operation(symbol):
    # at ordinary operands (sympy has no NaN rules to compare), the unevaluated expression
    # evaluates to the value the other forms compute; a condition to true or false
    for values in ((3.5, 1.25, 2.0), (2.0, 2.0, 0.0), (-4.0, 3.0, 1.0), (0.0, 5.0, 1.0)):
        text = WRITTEN[symbol]
        logic = OPERATORS[symbol].kind in ("logic",) or symbol == "not"
        # a name read as a condition is a sympy symbol, which sympy takes for a boolean
        expression = to_sympy(parse_formula(text).tree).subs(
            {sympy.Symbol(name, real=True): (sympy.true if value else sympy.false) if logic
             else sympy.Float(value) for name, value in _env(values).items()})
        got = _evaluated(expression)
        expected = _python(text, values)
        if isinstance(got, sympy.logic.boolalg.BooleanAtom):
            assert float(bool(got)) == expected, (symbol, values)
        else:
            assert float(got.evalf()) == pytest.approx(expected), (symbol, values)


def _evaluated(expression: sympy.Basic) -> sympy.Basic:
    """The unevaluated expression rebuilt node by node, each node evaluated."""
    if not expression.args:
        return expression
    return expression.func(*[_evaluated(argument) for argument in expression.args])


@pytest.mark.node
def test_the_javascript_forms_give_the_python_values(tmp_path):
    node = require_tool("node", "nodejs", install="apt-get install nodejs")
    runtime = runtime_script(files("fitproof").joinpath("site/assets", "fitproof-runtime.js")
                             .read_text(encoding="utf-8"))
    functions = {text: js_expression(tree_data(parse_formula(text).tree)) for text in FORMULAS}
    lines = [f"(function (e) {{ return {functions[text]}; }})({{"
             + ", ".join(f"{name}: {js_number(v)}" for name, v in _env(values).items()) + "})"
             for text, values in CASES]
    script = (runtime + "\nvar out = [" + ",\n".join(lines) + "];\n"
              "process.stdout.write(JSON.stringify(out.map(function (v) { return v !== v ? "
              "'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : "
              "Object.is(v, -0) ? '-0' : v; })));")
    (tmp_path / "cases.js").write_text(script, encoding="utf-8")
    done = subprocess.run([node, str(tmp_path / "cases.js")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    words = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}
    for (text, values), got in zip(CASES, json.loads(done.stdout)):
        got = words.get(got, got) if isinstance(got, str) else float(got)
        expected = _python(text, values)
        if "**" in text and math.isfinite(expected) and expected != 0:
            # JavaScript's Math.pow is not correctly rounded (V8's differs from the C
            # library's pow in the last bit for some operands): within two units there
            assert abs(got - expected) <= 2 * math.ulp(expected), (text, values, got)
        else:
            assert _same(got, expected), (text, values, got)


def test_only_the_operators_javascript_has_natively_are_written_inline():
    """``+ - *`` and the signs are JavaScript's own IEEE operations; every other operator is
    a call of its row's function (R.op), so its rules are the table's."""
    inline = {symbol for symbol, row in OPERATORS.items() if row.inline is not None}
    assert inline == {"+", "-", "*", "-u", "+u"}
    assert js_expression(tree_data(parse_formula("a // b").tree)) == \
        'R.op["//"]([e["a"], e["b"]])'
    assert js_expression(tree_data(parse_formula("a and b").tree)) == \
        'R.op["and"]([e["a"], e["b"]])'
