"""Formula trees as sympy expressions, for the symbolic and LaTeX forms of derivations.

Built node by node from the whitelisted tree with ``evaluate=False``: pack text never
reaches ``sympify``. sympy is imported only here, and only when a derivation is rendered.
"""

from __future__ import annotations

from functools import lru_cache

import sympy  # type: ignore[import-untyped]
from sympy.printing.latex import LatexPrinter  # type: ignore[import-untyped]
from sympy.printing.str import StrPrinter  # type: ignore[import-untyped]

from .functions import FUNCTIONS, SymbolicKit
from .operators import OPERATORS, operator_symbol
from .parser import Binary, BoolOp, Call, Compare, Cond, Formula, Node, Num, Ref, Unary


class Round(sympy.Function):  # type: ignore[misc]  # sympy ships no type information
    """round(x, n), ties away from zero; kept unevaluated."""

    nargs = (1, 2)

    def _sympystr(self, printer: StrPrinter) -> str:
        return f"round({', '.join(printer._print(a) for a in self.args)})"

    def _latex(self, printer: LatexPrinter) -> str:
        digits = f", {printer._print(self.args[1])}" if len(self.args) > 1 else ""
        return rf"\operatorname{{round}}\left({printer._print(self.args[0])}{digits}\right)"


class Coalesce(sympy.Function):  # type: ignore[misc]  # sympy ships no type information
    """The first argument that is known (the pack gives it)."""

    def _sympystr(self, printer: StrPrinter) -> str:
        return f"coalesce({', '.join(printer._print(a) for a in self.args)})"

    def _latex(self, printer: LatexPrinter) -> str:
        args = ", ".join(printer._print(a) for a in self.args)
        return rf"\operatorname{{coalesce}}\left({args}\right)"


# what the table's symbolic forms build with (formula/functions.py imports no sympy)
_KIT = SymbolicKit(sympy, Round, Coalesce)


def _truth(expr: sympy.Basic) -> sympy.Basic:
    """A number used as a condition means 'is not zero', as in the numeric evaluator."""
    if isinstance(expr, sympy.logic.boolalg.Boolean):
        return expr
    return sympy.Ne(expr, 0, evaluate=False)


def _symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, real=True)


def to_sympy(node: Node) -> sympy.Basic:
    """Convert a parsed formula tree to an unevaluated sympy expression."""
    if isinstance(node, Num):
        value = node.value
        if value != value:  # the formula language's `unknown`
            return sympy.Symbol("unknown")
        return sympy.Integer(int(value)) if value.is_integer() else sympy.Float(repr(value))
    if isinstance(node, Ref):
        return _symbol(node.name)
    if isinstance(node, Unary):
        operand = to_sympy(node.operand)
        if node.op == "+":
            return operand
        if node.op == "not":
            operand = _truth(operand)
        return OPERATORS[operator_symbol("unary", node.op)].symbolic(sympy, [operand])
    if isinstance(node, Binary):
        return OPERATORS[node.op].symbolic(sympy, [to_sympy(node.left), to_sympy(node.right)])
    if isinstance(node, Compare):
        operands = [to_sympy(o) for o in node.operands]
        parts = [OPERATORS[op].symbolic(sympy, operands[i:i + 2])
                 for i, op in enumerate(node.ops)]
        return parts[0] if len(parts) == 1 else OPERATORS["and"].symbolic(sympy, parts)
    if isinstance(node, BoolOp):
        return OPERATORS[node.op].symbolic(sympy, [_truth(to_sympy(v)) for v in node.values])
    if isinstance(node, Cond):
        return sympy.Piecewise((to_sympy(node.body), _truth(to_sympy(node.test))),
                               (to_sympy(node.orelse), True), evaluate=False)
    if isinstance(node, Call):
        args = [to_sympy(a) for a in node.args]
        return FUNCTIONS[node.func].symbolic(_KIT, args)
    raise AssertionError(f"unknown node {node!r}")


class _Str(StrPrinter):  # type: ignore[misc]  # sympy ships no type information
    def _print_Symbol(self, expr: sympy.Symbol) -> str:
        name: str = expr.name
        return name


class _Latex(LatexPrinter):  # type: ignore[misc]  # sympy ships no type information
    def _print_Symbol(self, expr: sympy.Symbol, style: str = "plain") -> str:
        name: str = expr.name
        namespace, _, field = name.rpartition(".")
        text = r"\mathrm{" + field.replace("_", r"\_") + "}"
        if namespace:
            text = r"\mathrm{" + namespace + "}." + text
        return text


@lru_cache(maxsize=512)
def _expression(formula: Formula) -> sympy.Basic:
    return to_sympy(formula.tree)


def to_text(formula: Formula) -> str:
    """The formula as sympy prints it, in the author's term order."""
    text: str = _Str({"order": "none"}).doprint(_expression(formula))
    return text


def to_latex(formula: Formula) -> str:
    """The formula in LaTeX, in the author's term order."""
    text: str = _Latex({"order": "none"}).doprint(_expression(formula))
    return text


class _LatexValues(_Latex):
    """Prints each name as its value: the substituted line of a derivation, in math mode."""

    def __init__(self, values: dict[str, str]):
        super().__init__({"order": "none"})
        self._values = values

    def _print_Symbol(self, expr: sympy.Symbol, style: str = "plain") -> str:
        shown = self._values.get(expr.name)
        return super()._print_Symbol(expr, style) if shown is None else shown


def to_latex_values(formula: Formula, values: dict[str, str]) -> str:
    """The formula in LaTeX with each name replaced by ``values[name]`` (LaTeX text)."""
    text: str = _LatexValues(values).doprint(_expression(formula))
    return text
