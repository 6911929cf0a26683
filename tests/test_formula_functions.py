"""One definition of the functions formulas call (core/formula/functions.py), and one
conformance suite over it: every row's plain-Python, numpy, JavaScript and sympy forms give
the same value for the same arguments, edges included (unknowns, infinities, zeros, signed
zeros, ties, many arguments); and adding a function is adding a row, done here on a copy of
the package."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
from importlib.resources import files

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from fitproof.formula.compiled import compile_tree
from fitproof.formula.functions import FUNCTIONS
from fitproof.formula.javascript import js_expression, runtime_script
from fitproof.formula.parser import Call, Num, Ref, parse_formula, tree_data
from fitproof.formula.scalar import compile_data
from fitproof.formula.symbolic import to_sympy

from .conftest import REPO, js_number, require_tool

NODE_HINT = "apt-get install nodejs"
EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e-300, 1e300,
         3.7, -3.7, 1234.5678]


def _arities(name: str) -> list[int]:
    function = FUNCTIONS[name]
    return list(range(function.least, (function.most or function.least + 2) + 1))


def _arguments(name: str, values: list[float]) -> list[float]:
    if name == "round" and len(values) > 1:  # the parser allows whole digits 0..12 only
        values = [values[0], float(int(abs(values[1])) % 13 if math.isfinite(values[1]) else 2)]
    return values


def _cases() -> list[tuple[str, list[float]]]:
    cases = []
    for name in FUNCTIONS:
        for count in _arities(name):
            for index, first in enumerate(EDGES):
                values = [first] + [EDGES[(index + 3 * k + 1) % len(EDGES)]
                                    for k in range(count - 1)]
                cases.append((name, _arguments(name, values)))
    return cases


CASES = _cases()


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _call(name: str, values: list[float]) -> Call:
    """The call with its arguments as constants (what sympy is shown)."""
    return Call(name, tuple(Num(v) for v in values))


def _over_names(name: str, values: list[float]) -> Call:
    """The call with its arguments read from the scenario (a0, a1…), as formulas read
    figures: a constant cannot be unknown or infinite, a figure can (round's digits are a
    constant: the parser takes nothing else)."""
    return Call(name, tuple(Num(v) if name == "round" and k == 1 else Ref(f"a{k}", 0, 2)
                            for k, v in enumerate(values)))


def _python(name: str, values: list[float]) -> float:
    return compile_data(tree_data(_over_names(name, values)))(
        {f"a{k}": v for k, v in enumerate(values)})


def _numpy(name: str, values: list[float]) -> float:
    env = {f"a{k}": np.array([v]) for k, v in enumerate(values)}
    return float(np.asarray(compile_tree(_over_names(name, values))(env))[0])


def test_every_function_has_every_form_and_the_parser_reads_its_arity():
    for name, function in FUNCTIONS.items():
        assert function.name == name and function.meaning
        assert function.javascript.startswith("function (v) {")
        arguments = ", ".join(["x"] * function.least)
        tree = parse_formula(f"{name}({arguments})").tree
        assert isinstance(tree, Call) and tree.func == name and len(tree.args) == function.least
        if function.least > 1:
            with pytest.raises(ValueError, match=f"{name}\\(\\) takes"):
                parse_formula(f"{name}(x)")
    with pytest.raises(ValueError, match="formulas may call " + ", ".join(FUNCTIONS)):
        parse_formula("hypot(x, y)")
    # each row's most arguments is the function's: one more is refused
    for name, most in (("log", 2), ("round", 2), ("sqrt", 1), ("abs", 1), ("floor", 1)):
        assert FUNCTIONS[name].most == most
        with pytest.raises(ValueError, match=f"{name}\\(\\) takes"):
            parse_formula(f"{name}({', '.join(['x'] * (most + 1))})")


@pytest.mark.parametrize("name,values", CASES, ids=[f"{n}{v}" for n, v in CASES])
def test_python_and_numpy_forms_agree_at_the_edges(name, values):
    assert _same(_python(name, values), _numpy(name, values))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(FUNCTIONS)),
       st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=4,
                max_size=4))
def test_python_and_numpy_forms_agree_on_drawn_arguments(name, drawn):
    count = _arities(name)[len(drawn) % len(_arities(name))]
    values = _arguments(name, drawn[:count])
    assert _same(_python(name, values), _numpy(name, values))


def test_the_rules_every_form_keeps():
    nan = math.nan
    assert math.isnan(_python("min", [nan, 1.0])) and math.isnan(_python("max", [1.0, nan]))
    assert _python("coalesce", [nan, nan, 3.0]) == 3.0 and _python("coalesce", [2.0, nan]) == 2.0
    assert _python("floor", [math.inf]) == math.inf and _python("ceiling", [-math.inf]) == -math.inf
    assert _python("round", [2.5]) == 3.0 and _python("round", [-2.5]) == -3.0
    assert _python("round", [0.125, 2.0]) == 0.13  # an exact decimal tie, away from zero
    assert _python("round", [1.005, 2.0]) == 1.0  # 1.005 is 1.00499999… as a float
    assert math.isnan(_python("sqrt", [-1.0])) and math.isnan(_python("log", [-1.0]))
    assert _python("log", [0.0]) == -math.inf and _python("log", [8.0, 2.0]) == 3.0


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_sympy_form_is_the_same_function(name):
    # at ordinary arguments (sympy has no NaN rules to compare), the unevaluated
    # expression evaluates to the value the other forms compute
    for values in ([3.7, 1.25, 9.5], [2.5, 2.0, 4.0], [16.0, 4.0, 0.5]):
        values = _arguments(name, values[:FUNCTIONS[name].least])
        expression = to_sympy(_call(name, values))
        if name == "coalesce":
            assert [float(a) for a in expression.args] == values
            continue
        if name == "round":
            assert expression.func.__name__ == "Round"
            continue
        assert float(expression.doit().evalf()) == pytest.approx(_python(name, values))


@pytest.mark.node
def test_the_javascript_forms_give_the_python_values():
    node = require_tool("node", "nodejs", install=NODE_HINT)
    runtime = runtime_script(files("fitproof").joinpath("site/assets", "fitproof-runtime.js")
                             .read_text(encoding="utf-8"))
    lines = [f"(function (e) {{ return {js_expression(tree_data(_over_names(name, values)))};"
             " })({" + ", ".join(f"a{k}: {js_number(v)}" for k, v in enumerate(values)) + "})"
             for name, values in CASES]
    script = (runtime + "\nvar out = [" + ",\n".join(lines) + "];\n"
              "process.stdout.write(JSON.stringify(out.map(function (v) { return v !== v ? "
              "'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : "
              "Object.is(v, -0) ? '-0' : v; })));")
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0": -0.0}
    for (name, values), got in zip(CASES, json.loads(done.stdout)):
        got = words.get(got, got) if isinstance(got, str) else float(got)
        assert _same(got, _python(name, values)), (name, values, got)


ROW = '''
    FormulaFunction(
        "hypot", 2, 2,
        scalar=lambda v: math.hypot(v[0], v[1]),
        array=lambda np, v: np.hypot(v[0], v[1]),
        symbolic=lambda kit, v: kit.sympy.sqrt(v[0] ** 2 + v[1] ** 2, evaluate=False),
        javascript="function (v) { return Math.hypot(v[0], v[1]); }",
        meaning="the length of the hypotenuse"),
'''


def test_a_new_function_is_one_row_of_the_table(tmp_path):
    package = tmp_path / "fitproof"
    shutil.copytree(REPO / "core", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "packs", package / "packs")
    shutil.copytree(REPO / "schemas", package / "schemas")
    table = package / "formula/functions.py"
    text = table.read_text(encoding="utf-8")
    head, _, tail = text.partition("\n)\n\n#: every function")
    table.write_text(head + ROW.rstrip("\n") + "\n)\n\n#: every function" + tail, encoding="utf-8")
    script = textwrap.dedent("""
        import json, numpy
        from fitproof.formula.compiled import compile_tree
        from fitproof.formula.javascript import js_expression, runtime_script
        from fitproof.formula.parser import parse_formula, tree_data
        from fitproof.formula.scalar import compile_data
        from fitproof.formula.symbolic import to_sympy
        tree = parse_formula("hypot(3, 4) * 2").tree
        runtime = runtime_script(open(RUNTIME, encoding="utf-8").read())
        print(json.dumps([float(numpy.asarray(compile_tree(tree)({}))),
                          compile_data(tree_data(tree))({}),
                          float(to_sympy(tree).doit()),
                          js_expression(tree_data(tree)), runtime]))
    """).replace("RUNTIME", repr(str(package / "site/assets" / "fitproof-runtime.js")))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    array, scalar, symbolic, expression, runtime = json.loads(done.stdout)
    assert array == scalar == symbolic == 10.0
    assert expression == '(R.fn["hypot"]([3.0, 4.0]) * 2.0)'
    assert '["hypot"]: function (v) { return Math.hypot(v[0], v[1]); }' in runtime
    node = shutil.which("node") or shutil.which("nodejs")
    if node:
        value = subprocess.run([node, "-e", runtime + f"\nvar e = {{}};\n"
                                f"process.stdout.write(String({expression}));"],
                               capture_output=True, text=True, timeout=60)
        assert value.stdout == "10", value.stderr
