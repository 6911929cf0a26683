"""The formula language: what it accepts, what it refuses, and that nothing ever runs."""

from __future__ import annotations

import numpy as np
import pytest

from fitproof.formula.compiled import compile_tree
from fitproof.formula.parser import FormulaSyntaxError, parse_formula, tree_data


def evaluate(text: str, **env: float) -> float:
    formula = parse_formula(text)
    values = {k.replace("__", "."): np.array([v], dtype=float) for k, v in env.items()}
    return float(np.asarray(compile_tree(formula.tree)(values)).reshape(-1)[0])


@pytest.mark.parametrize(("text", "expected"), [
    ("1 + 2 * 3", 7), ("2 ** 10", 1024), ("7 // 2", 3), ("7 % 4", 3), ("-3 + +1", -2),
    ("round(0.625, 2)", 0.63), ("round(133.95, 1)", 133.9), ("round(2.5)", 3),
    ("min(3, 1, 2)", 1), ("max(3, 1, 2)", 3), ("floor(2.7)", 2), ("ceiling(2.1)", 3),
    ("ceil(2.1)", 3), ("sqrt(16)", 4), ("abs(-2)", 2), ("log(8, 2)", 3),
    ("1 if 2 > 1 else 0", 1), ("1 if 1 > 2 else 0", 0), ("1 < 2 < 3", 1), ("1 < 3 < 2", 0),
    ("true and not false", 1), ("0 or 1", 1), ("coalesce(5, 6)", 5),
])
def test_arithmetic_and_functions(text, expected):
    assert evaluate(text) == pytest.approx(expected)


def test_names_and_namespaces():
    formula = parse_formula("model.hidden_size * 2 + context")
    assert formula.refs == {"model.hidden_size", "context"}
    assert evaluate("model.hidden_size * 2 + context", model__hidden_size=3, context=4) == 10


def test_missing_values_stay_unknown_and_coalesce_falls_back():
    nan = float("nan")
    assert np.isnan(evaluate("x + 1", x=nan))
    assert np.isnan(evaluate("x > 1", x=nan))
    assert np.isnan(evaluate("1 if x > 1 else 2", x=nan))
    assert evaluate("x > 1 and 0", x=nan) == 0  # false whatever x is
    assert evaluate("x > 1 or 1", x=nan) == 1
    assert evaluate("coalesce(x, y, 3)", x=nan, y=nan) == 3
    assert np.isnan(evaluate("min(x, 1)", x=nan))


def test_division_by_zero_is_not_an_exception():
    assert np.isinf(evaluate("1 / x", x=0))
    assert np.isnan(evaluate("x / x", x=0))


def test_huge_exponents_evaluate_quickly_to_infinity():
    assert np.isinf(evaluate("9 ** 9 ** 9"))


@pytest.mark.parametrize(("text", "message"), [
    ("__import__('os').system('touch pwned')",
     "only the built-in functions min, max, floor, ceiling, round, log, sqrt, abs, coalesce "
     "can be called (column 1)"),
    ("().__class__", "names starting with '_' ('__class__') are not allowed (column 1)"),
    ("model.__dict__", "names starting with '_' ('__dict__') are not allowed (column 1)"),
    ("open('x')", "unknown function 'open'; formulas may call min, max, floor, ceiling, "
                  "round, log, sqrt, abs, coalesce (column 1)"),
    ("eval('1')", "unknown function 'eval'; formulas may call min, max, floor, ceiling, "
                  "round, log, sqrt, abs, coalesce (column 1)"),
    ("lambda: 1", "lambda expressions are not allowed in formulas (column 1)"),
    ("[x for x in y]", "comprehensions are not allowed in formulas (column 1)"),
    ("f'{x}'", "f-strings are not allowed in formulas (column 1)"),
    ("(x := 1)", "assignment (:=) is not allowed in formulas (column 2)"),
    ("x[0]", "indexing ([…]) is not allowed in formulas (column 1)"),
    ("a.b.c", "only one level of namespace is allowed (namespace.field) (column 1)"),
    ("'text'", "text constants are not allowed in formulas (column 1)"),
    ("1e30", "number 1e+30 is larger than 1e+24 (column 1)"),
    ("x is None", "'is' is not allowed in formulas (column 1)"),
    ("x & 1", "bitwise operators are not allowed in formulas (column 1)"),
    ("round(x, y)", "round(x, n) needs n to be a whole number from 0 to 12 (column 1)"),
    ("min(1)", "min() takes at least 2 arguments, got 1 (column 1)"),
    ("max(x=1, y=2)", "max() takes plain positional arguments (column 1)"),
    ("m\u0430x(1, 2)", "character 'а' (U+0430) is not allowed; formulas are plain ASCII (column 2)"),
    ("x +", "not a valid expression: invalid syntax"),
    ("9e9and x", "not a valid expression: invalid decimal literal (column 3)"),
    ("", "formula is empty"),
])
def test_rejected(text, message):
    with pytest.raises(FormulaSyntaxError) as caught:
        parse_formula(text)
    assert str(caught.value) == message


def test_deep_nesting_and_long_text_are_rejected():
    with pytest.raises(FormulaSyntaxError, match="nested more than 60 levels"):
        parse_formula("-" * 100 + "1")
    # the bound exactly: sixty signs over a name are read, sixty-one are not
    assert parse_formula("-" * 60 + "x").refs == frozenset({"x"})
    with pytest.raises(FormulaSyntaxError, match="nested more than 60 levels"):
        parse_formula("-" * 61 + "x")


@pytest.mark.parametrize("text, value", [("true", 1.0), ("True", 1.0), ("false", 0.0),
                                         ("False", 0.0), ("x > 1 and false", 0.0),
                                         ("x > 1 or false", 1.0)])
def test_true_and_false_are_one_and_zero(text, value):
    from fitproof.formula.scalar import compile_data

    assert compile_data(tree_data(parse_formula(text).tree))({"x": 2.0}) == value
    with pytest.raises(FormulaSyntaxError, match="the limit is 2000"):
        parse_formula("1+" * 1500 + "1")


def test_multiline_text_is_normalised():
    assert parse_formula("a *\n   (b + 1)\n").text == "a * (b + 1)"


@pytest.mark.parametrize("text, column", [("~x", 1), ("a + ~x", 5), ("a | b", 1)])
def test_a_bitwise_operator_is_refused_at_its_column(text, column):
    with pytest.raises(FormulaSyntaxError) as caught:
        parse_formula(text)
    assert str(caught.value) == (f"bitwise operators are not allowed in formulas "
                                 f"(column {column})")
    assert caught.value.column == column
