"""The formula language: a whitelisting parser from text to a small expression tree.

Formula text comes from packs, which are untrusted. It is parsed with :func:`ast.parse`
(which only parses; nothing is executed) and every node is checked against a whitelist:
numbers, names, one-level namespaced names (``model.hidden_size``), arithmetic,
comparisons, ``and``/``or``/``not``, ``a if cond else b`` and the functions of the
table :data:`~fitproof.formula.functions.FUNCTIONS`. Anything else — attribute chains,
dunders, calls outside the list, lambdas, comprehensions, f-strings, subscripts, walrus,
strings — is rejected with the column where it stands. The tree is then turned into numpy
closures (``formula/compiled.py``) or sympy expressions (``formula/symbolic.py``); pack text never reaches
eval, exec or sympify.
"""

from __future__ import annotations

import ast
import functools
import math
import warnings
from collections.abc import Iterator
from typing import Any, Union, cast

import attrs

from .functions import FUNCTIONS  # the table of functions: names, arities, forms
from .operators import OPERATORS  # the table of operators: symbols, forms

MAX_FORMULA_CHARS = 2000
MAX_DEPTH = 60
MAX_LITERAL = 1e24
MAX_ROUND_DIGITS = 12

_CONSTANT_NAMES = {"true": True, "True": True, "false": False, "False": False}
# the value no figure gives: a speed an engine cannot reach on a device, say (every
# evaluator treats it as a missing figure: NaN, propagated and three-valued in logic)
UNKNOWN = "unknown"



def _operators(kind: str) -> dict[type, str]:
    """The Python operators of one kind the language has (formula/operators.py), each with
    the symbol a tree writes for it (a unary minus is "-", its table row "-u")."""
    return {getattr(ast, row.syntax): row.symbol.removesuffix("u") if kind == "unary"
            else row.symbol for row in OPERATORS.values() if row.kind == kind}


_BINARY = _operators("arithmetic")
_UNARY = _operators("unary")
_COMPARE = _operators("comparison")
_BOOL = _operators("logic")

_FRIENDLY = {
    "Lambda": "lambda expressions", "ListComp": "comprehensions", "SetComp": "comprehensions",
    "DictComp": "comprehensions", "GeneratorExp": "comprehensions",
    "JoinedStr": "f-strings", "FormattedValue": "f-strings", "NamedExpr": "assignment (:=)",
    "Subscript": "indexing ([…])", "Starred": "star arguments", "Tuple": "tuples",
    "List": "lists", "Dict": "dicts", "Set": "sets", "Await": "await", "Yield": "yield",
    "YieldFrom": "yield", "Slice": "slices", "MatMult": "the @ operator",
    "BitAnd": "bitwise operators", "BitOr": "bitwise operators", "BitXor": "bitwise operators",
    "LShift": "bitwise operators", "RShift": "bitwise operators", "Invert": "bitwise operators",
    "Is": "'is'", "IsNot": "'is not'", "In": "'in'", "NotIn": "'not in'",
}


class FormulaSyntaxError(ValueError):
    """Formula text that the language does not accept; ``column`` is 1-based."""

    def __init__(self, message: str, column: int | None = None):
        self.column = column
        where = f" (column {column})" if column else ""
        super().__init__(message + where)
        self.detail = message


@attrs.frozen
class Num:
    value: float


@attrs.frozen
class Ref:
    """A name: a formula, a scenario input, or ``namespace.field``."""

    name: str
    start: int
    end: int


@attrs.frozen
class Unary:
    op: str
    operand: "Node"


@attrs.frozen
class Binary:
    op: str
    left: "Node"
    right: "Node"


@attrs.frozen
class Compare:
    ops: tuple[str, ...]
    operands: tuple["Node", ...]


@attrs.frozen
class BoolOp:
    op: str
    values: tuple["Node", ...]


@attrs.frozen
class Cond:
    test: "Node"
    body: "Node"
    orelse: "Node"


@attrs.frozen
class Call:
    func: str
    args: tuple["Node", ...]


Node = Union[Num, Ref, Unary, Binary, Compare, BoolOp, Cond, Call]


@attrs.frozen
class Formula:
    """A parsed formula: its text (normalised to one line), tree and the names it uses."""

    text: str
    tree: Node
    refs: frozenset[str]


def normalise(text: str) -> str:
    """Collapse the line breaks a YAML block scalar may leave into single spaces."""
    return " ".join(text.split())


def parse_formula(text: str) -> Formula:
    """Parse formula ``text``; raise :class:`FormulaSyntaxError` if it is not allowed."""
    if not isinstance(text, str):
        raise FormulaSyntaxError("a formula must be text")
    return _parse_text(text)


@functools.lru_cache(maxsize=8192)
def _parse_text(text: str) -> Formula:
    """:func:`parse_formula` of a string, remembered: a formula is a frozen value of its
    text, and a process that links packs twice (a program using the API, a test suite)
    parses each text once. A rejected text is not remembered; it raises each time."""
    if len(text) > MAX_FORMULA_CHARS:
        raise FormulaSyntaxError(f"formula is {len(text):,} characters long; "
                                 f"the limit is {MAX_FORMULA_CHARS}")
    for index, char in enumerate(text):
        if not char.isascii():
            raise FormulaSyntaxError(f"character {char!r} (U+{ord(char):04X}) is not allowed; "
                                     "formulas are plain ASCII", index + 1)
    text = normalise(text)
    if not text:
        raise FormulaSyntaxError("formula is empty")
    try:
        with warnings.catch_warnings():
            # e.g. "9e9and x": Python only warns; for a formula it is an error, and a
            # warning must not leak onto the user's terminal
            warnings.simplefilter("error", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            module = ast.parse(text, mode="eval")
    except SyntaxWarning as exc:
        raise FormulaSyntaxError(f"not a valid expression: {exc}") from None
    except SyntaxError as exc:
        raise FormulaSyntaxError(f"not a valid expression: {exc.msg}", exc.offset) from None
    except (ValueError, MemoryError, RecursionError):
        raise FormulaSyntaxError("expression is too complex to parse") from None
    refs: set[str] = set()
    tree = _Converter(refs).convert(module.body, 0)
    return Formula(text=text, tree=tree, refs=frozenset(refs))


def _shown(value: int | float) -> str:
    """A literal as a message shows it: ``1e+30``, or its digits where it is an integer no
    float can hold (formatting it as one would raise OverflowError)."""
    if isinstance(value, int) and abs(value) > 1e300:
        return f"with {len(str(abs(value)))} digits"
    return f"{value:.3g}"


def _not_allowed(name: str, default: str) -> str:
    """``lambda expressions are not allowed in formulas`` for AST node class ``name``."""
    what = _FRIENDLY.get(name, default)
    return f"{what} {'are' if what.endswith('s') else 'is'} not allowed in formulas"


class _Converter:
    def __init__(self, refs: set[str]):
        self.refs = refs

    def _reject(self, node: ast.AST, what: str | None = None) -> FormulaSyntaxError:
        what = what or _not_allowed(type(node).__name__, type(node).__name__)
        return FormulaSyntaxError(what, getattr(node, "col_offset", -1) + 1 or None)

    def convert(self, node: ast.AST, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise FormulaSyntaxError(f"expression is nested more than {MAX_DEPTH} levels deep")
        d = depth + 1
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                return Num(1.0 if value else 0.0)
            if isinstance(value, (int, float)) and not isinstance(value, complex):
                if abs(value) > MAX_LITERAL:
                    raise FormulaSyntaxError(f"number {_shown(value)} is larger than "
                                             f"{MAX_LITERAL:.0e}", node.col_offset + 1)
                return Num(float(value))
            kind = "text" if isinstance(value, (str, bytes)) else type(value).__name__
            raise FormulaSyntaxError(f"{kind} constants are not allowed in formulas",
                                     node.col_offset + 1)
        if isinstance(node, ast.Name):
            if node.id == UNKNOWN:
                return Num(math.nan)
            if node.id in _CONSTANT_NAMES:
                return Num(1.0 if _CONSTANT_NAMES[node.id] else 0.0)
            self._check_name(node.id, node)
            return self._ref(node.id, node)
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                self._check_name(node.attr, node)
            if not isinstance(node.value, ast.Name):
                raise FormulaSyntaxError("only one level of namespace is allowed "
                                         "(namespace.field)", node.col_offset + 1)
            self._check_name(node.value.id, node)
            self._check_name(node.attr, node)
            return self._ref(f"{node.value.id}.{node.attr}", node)
        if isinstance(node, ast.BinOp):
            op = _BINARY.get(type(node.op))
            if op is None:
                raise self._reject(node.op if hasattr(node.op, "col_offset") else node,
                                   _not_allowed(type(node.op).__name__, "this operator"))
            return Binary(op, self.convert(node.left, d), self.convert(node.right, d))
        if isinstance(node, ast.UnaryOp):
            op = _UNARY.get(type(node.op))
            if op is None:
                raise FormulaSyntaxError("bitwise operators are not allowed in formulas",
                                         node.col_offset + 1)
            return Unary(op, self.convert(node.operand, d))
        if isinstance(node, ast.BoolOp):
            return BoolOp(_BOOL[type(node.op)], tuple(self.convert(v, d) for v in node.values))
        if isinstance(node, ast.Compare):
            ops: list[str] = []
            for cmp_op in node.ops:
                if type(cmp_op) not in _COMPARE:
                    raise FormulaSyntaxError(f"{_FRIENDLY.get(type(cmp_op).__name__, 'this comparison')}"
                                             " is not allowed in formulas", node.col_offset + 1)
                ops.append(_COMPARE[type(cmp_op)])
            operands = (node.left, *node.comparators)
            return Compare(tuple(ops), tuple(self.convert(o, d) for o in operands))
        if isinstance(node, ast.IfExp):
            return Cond(self.convert(node.test, d), self.convert(node.body, d),
                        self.convert(node.orelse, d))
        if isinstance(node, ast.Call):
            return self._call(node, d)
        raise self._reject(node)

    def _call(self, node: ast.Call, depth: int) -> Call:
        if not isinstance(node.func, ast.Name):
            raise FormulaSyntaxError("only the built-in functions "
                                     f"{', '.join(FUNCTIONS)} can be called", node.col_offset + 1)
        name = "ceiling" if node.func.id == "ceil" else node.func.id
        if name not in FUNCTIONS:
            raise FormulaSyntaxError(f"unknown function {node.func.id!r}; formulas may call "
                                     f"{', '.join(FUNCTIONS)}", node.col_offset + 1)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise FormulaSyntaxError(f"{name}() takes plain positional arguments",
                                     node.col_offset + 1)
        low, high = FUNCTIONS[name].least, FUNCTIONS[name].most  # the table's arity
        count = len(node.args)
        if count < low or (high is not None and count > high):
            expected = f"{low}" if low == high else (f"at least {low}" if high is None
                                                     else f"{low} to {high}")
            raise FormulaSyntaxError(f"{name}() takes {expected} arguments, got {count}",
                                     node.col_offset + 1)
        args = tuple(self.convert(a, depth) for a in node.args)
        if name == "round" and count == 2:
            digits = args[1]
            if not (isinstance(digits, Num) and digits.value == int(digits.value)
                    and 0 <= digits.value <= MAX_ROUND_DIGITS):
                raise FormulaSyntaxError(f"round(x, n) needs n to be a whole number from 0 to "
                                         f"{MAX_ROUND_DIGITS}", node.col_offset + 1)
        return Call(name, args)

    def _check_name(self, name: str, node: ast.expr) -> None:
        if name.startswith("_"):
            raise FormulaSyntaxError(f"names starting with '_' ({name!r}) are not allowed",
                                     node.col_offset + 1)
        if name in FUNCTIONS:
            raise FormulaSyntaxError(f"{name!r} is a function; call it as {name}(...)",
                                     node.col_offset + 1)

    def _ref(self, name: str, node: ast.expr) -> Ref:
        self.refs.add(name)
        # ast.parse always records end positions; typeshed types them as optional
        return Ref(name, node.col_offset, cast(int, node.end_col_offset))


def walk(node: Node) -> Iterator[Node]:
    """Yield ``node`` and all nodes below it."""
    yield node
    if isinstance(node, Unary):
        yield from walk(node.operand)
    elif isinstance(node, Binary):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, (Compare,)):
        for child in node.operands:
            yield from walk(child)
    elif isinstance(node, (BoolOp,)):
        for child in node.values:
            yield from walk(child)
    elif isinstance(node, Call):
        for child in node.args:
            yield from walk(child)
    elif isinstance(node, Cond):
        yield from walk(node.test)
        yield from walk(node.body)
        yield from walk(node.orelse)


def tree_data(node: Node) -> list[Any]:
    """``node`` as nested lists of strings and numbers: what a snapshot stores, and
    ``scalar.compile_data`` turns back into a function."""
    if isinstance(node, Num):
        if math.isnan(node.value):
            return ["unknown"]
        return ["num", float(node.value)]
    if isinstance(node, Ref):
        return ["ref", node.name]
    if isinstance(node, Unary):
        return ["unary", node.op, tree_data(node.operand)]
    if isinstance(node, Binary):
        return ["binary", node.op, tree_data(node.left), tree_data(node.right)]
    if isinstance(node, Compare):
        return ["compare", list(node.ops), [tree_data(o) for o in node.operands]]
    if isinstance(node, BoolOp):
        return ["bool", node.op, [tree_data(v) for v in node.values]]
    if isinstance(node, Cond):
        return ["cond", tree_data(node.test), tree_data(node.body), tree_data(node.orelse)]
    return ["call", node.func, [tree_data(a) for a in node.args]]
