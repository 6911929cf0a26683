"""Mutation check of the core's computing layers: formula/, engine/ and fast/. Does a small
change to an operator, a comparison or a number fail a test?

Each mutant changes one thing in one module: ``+`` and ``-``, ``*`` and ``/`` (``//`` to
``/``, ``%`` to ``//``, ``**`` to ``*``), ``<`` and ``<=``, ``>`` and ``>=``, ``==`` and
``!=``, ``in`` and ``not in``, ``is`` and ``is not``, ``and`` and ``or``, a ``not`` or a
unary minus dropped, a number ``n`` made ``n + 1`` (``1`` made ``0``). Annotations,
docstrings, f-strings and ``if TYPE_CHECKING`` blocks are left alone.

First the suite runs once under coverage with each test as its own context (pytest-cov,
both cores), which gives, for every line of these modules, the tests that run it and how
long each takes. Then each mutant runs the tests that run its line, quickest first
(``pytest -x``), with the mutated module loaded in place of the real one, and is *killed*
when one fails. A test that never runs a line cannot notice its mutant, so this is the
verdict of the whole suite. Tests that run fitproof in a subprocess do not see mutants
(the in-process tests must catch them), nor do the site's JavaScript, browser and LaTeX
tests, which are not run.

    pip install -e '.[test,mutation]'
    python benchmarks/mutate_core.py --record                 # the coverage map (~10 min)
    python benchmarks/mutate_core.py --sample 300 --seed 1    # 300 mutants drawn at random
    python benchmarks/mutate_core.py -k formula/scalar.py     # every mutant of one module
    python benchmarks/mutate_core.py --sample 300 --seed 1 --report   # what is tried so far

A mutant whose tests run past ``--timeout`` (300 s) is reported as timed out and, like one
whose run pytest could not start, is not counted as killed.

Results are appended to ``benchmarks/.mutants/results.jsonl`` keyed by the mutant and the
module's text, so a run resumes where the last stopped and a changed module is tried
again. It prints one line per mutant (killed by which test, or SURVIVED with its place)
and the share killed per layer; ``--list`` prints every mutant without running any.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORE = REPO / "core"
LAYERS = ("formula", "engine", "fast")
WORK = REPO / "benchmarks" / ".mutants"
RESULTS = WORK / "results.jsonl"
COVERAGE = WORK / "coverage.json"
# the tests a mutant can be seen by: in-process ones (no browser, Node or pdflatex)
SELECTION = "not browser and not node and not latex"
# a mutant whose tests run longer is reported as timed out, and not counted as killed: it
# may be a hang the watchdogs would catch, or a survivor whose tests are many and slow
TIMEOUT_S = 300

BINARY = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
          ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}
COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
           ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
           ast.Is: ast.IsNot, ast.IsNot: ast.Is}
BOOLEAN = {ast.And: ast.Or, ast.Or: ast.And}
SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
          ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is",
          ast.IsNot: "is not", ast.And: "and", ast.Or: "or"}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to core/, e.g. formula/scalar.py
    index: int  # the how-manieth mutant of that module
    line: int
    statement: int  # the line of the statement holding it (coverage may record only that)
    change: str
    digest: str  # of the module's text: a changed module's mutants are new ones

    @property
    def key(self) -> str:
        return f"{self.path}#{self.index}@{self.digest}"

    @property
    def module(self) -> str:
        return "fitproof." + self.path.removesuffix(".py").replace("/", ".")


def _skipped(tree: ast.Module) -> set[int]:
    """The nodes no mutant touches: annotations, docstrings, f-strings, TYPE_CHECKING."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip(node)
        elif isinstance(node, ast.JoinedStr):
            skip(node)
        elif isinstance(node, (ast.AnnAssign, ast.arg)):
            skip(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            skip(node.returns)
    return skipped


def _changes(node: ast.AST) -> Iterator[tuple[str, object]]:
    """The mutations of one node: (what changes, how)."""
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        new = BINARY[type(node.op)]
        yield f"{SYMBOL[type(node.op)]} → {SYMBOL[new]}", ("op", new)
    elif isinstance(node, ast.BoolOp):
        new = BOOLEAN[type(node.op)]
        yield f"{SYMBOL[type(node.op)]} → {SYMBOL[new]}", ("op", new)
    elif isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            if type(op) in COMPARE:
                new = COMPARE[type(op)]
                yield f"{SYMBOL[type(op)]} → {SYMBOL[new]}", ("compare", position, new)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        yield f"{'not' if isinstance(node.op, ast.Not) else 'unary -'} dropped", ("drop",)
    elif (isinstance(node, ast.Constant) and type(node.value) in (int, float)):
        value = node.value
        new_value = 0 if value == 1 else value + 1
        if new_value != value:  # 1e300 + 1 is 1e300: no mutant
            yield f"{value!r} → {new_value!r}", ("value", new_value)


def _candidates(text: str) -> list[tuple[int, str, int, int, object]]:
    """Every (node number in walk order, change, line, statement line, how) of a module."""
    tree = ast.parse(text)
    skipped = _skipped(tree)
    statement_of: dict[int, int] = {}
    for statement in ast.walk(tree):
        if isinstance(statement, ast.stmt):  # inner statements come later and win
            for node in ast.walk(statement):
                statement_of[id(node)] = statement.lineno
    found = []
    for number, node in enumerate(ast.walk(tree)):
        if id(node) in skipped:
            continue
        for change, how in _changes(node):
            line = getattr(node, "lineno", 0)
            found.append((number, change, line, statement_of.get(id(node), line), how))
    return found


def mutants(paths: list[Path]) -> list[Mutant]:
    found = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        digest = hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
        relative = str(path.relative_to(CORE))
        for index, (_, change, line, statement, _) in enumerate(_candidates(text)):
            found.append(Mutant(relative, index, line, statement, change, digest))
    return found


def mutated_source(mutant: Mutant) -> str:
    """The module's text with the mutant's one change (written back by ``ast.unparse``)."""
    text = (CORE / mutant.path).read_text(encoding="utf-8")
    number, _, _, _, how = _candidates(text)[mutant.index]
    tree = ast.parse(text)
    node = list(ast.walk(tree))[number]
    kind = how[0]  # type: ignore[index]
    if kind == "op":
        node.op = how[1]()  # type: ignore[attr-defined, index, operator]
    elif kind == "compare":
        node.ops[how[1]] = how[2]()  # type: ignore[attr-defined, index, operator]
    elif kind == "value":
        node.value = how[1]  # type: ignore[attr-defined, index]
    elif kind == "drop":
        _replace(tree, node, node.operand)  # type: ignore[attr-defined]
    return ast.unparse(tree) + "\n"


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[[i for i, item in enumerate(value) if item is old][0]] = new
                return


# loaded by pytest (-p) before anything imports fitproof: the mutated module in place of
# the real one, by a finder ahead of every other
LOADER = '''
import importlib.abc, importlib.util, os, sys

_NAME = os.environ["FITPROOF_MUTANT_MODULE"]
_FILE = os.environ["FITPROOF_MUTANT_FILE"]


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != _NAME:
            return None
        sys.meta_path.remove(self)
        try:
            real = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        loader = importlib.machinery.SourceFileLoader(name, _FILE)
        spec = importlib.util.spec_from_file_location(name, _FILE, loader=loader)
        spec.submodule_search_locations = real.submodule_search_locations
        return spec


import importlib.machinery
sys.meta_path.insert(0, _Finder())
'''


def record() -> None:
    """Run the in-process suite once under coverage, each test its own context, and keep
    for every line of formula/, engine/ and fast/ the tests that run it, with their times."""
    WORK.mkdir(parents=True, exist_ok=True)
    data, junit = WORK / ".coverage", WORK / "junit.xml"
    sources = ",".join(str(CORE / layer) for layer in LAYERS)
    rc = WORK / "coveragerc"
    rc.write_text(f"[run]\nsource = {sources}\ndata_file = {data}\n", encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "--full", "-m", SELECTION,
               "-p", "no:cacheprovider", f"--cov-config={rc}", "--cov", "--cov-context=test",
               "--cov-report=", f"--junitxml={junit}"]
    subprocess.run(command, cwd=REPO, check=False)
    import coverage
    import xml.etree.ElementTree as ElementTree

    seconds: dict[str, float] = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        node = _node_id(case.get("classname", ""), case.get("name", ""))
        seconds[node] = seconds.get(node, 0.0) + float(case.get("time", "0") or 0)
    covered = coverage.CoverageData(basename=str(data))
    covered.read()
    lines: dict[str, dict[str, list[str]]] = {}
    for measured in covered.measured_files():
        relative = str(Path(measured).resolve().relative_to(CORE))
        for line, contexts in covered.contexts_by_lineno(measured).items():
            tests = sorted({_context_test(c) for c in contexts if c})
            lines.setdefault(relative, {})[str(line)] = tests
    COVERAGE.write_text(json.dumps({"seconds": seconds, "lines": lines}), encoding="utf-8")
    print(f"recorded {sum(len(v) for v in lines.values()):,} lines run by "
          f"{len(seconds):,} tests into {COVERAGE.relative_to(REPO)}")


def _node_id(classname: str, name: str) -> str:
    """junit's classname (tests.test_x or tests.test_x.TestY) and name → a pytest node id of
    the test function (parameters dropped: every case of it runs)."""
    parts = classname.split(".")
    modules = [i for i, part in enumerate(parts) if part.startswith("test_")]
    cut = modules[0] + 1 if modules else len(parts)
    path = "/".join(parts[:cut]) + ".py"
    return "::".join([path, *parts[cut:], name.split("[")[0]])


def _context_test(context: str) -> str:
    """pytest-cov's context ``tests/test_x.py::test_y[case]|run`` → the test function."""
    return context.split("|")[0].split("[")[0]


def run_mutant(mutant: Mutant, tests: list[str], timeout: float = TIMEOUT_S
               ) -> dict[str, object]:
    """Run ``tests`` against the mutant, quickest first, stopping at the first failure."""
    start = time.monotonic()
    if not tests:
        return {"status": "survived", "by": "no test runs this line", "seconds": 0.0}
    with tempfile.TemporaryDirectory(prefix="fp-mutant-") as folder:
        # the loader on the path; the mutated module beside it, off the path (a module
        # named select.py there would stand in for the standard library's)
        loader, source = Path(folder, "loader"), Path(folder, "mutant", Path(mutant.path).name)
        loader.mkdir()
        source.parent.mkdir()
        (loader / "fitproof_mutant_loader.py").write_text(LOADER, encoding="utf-8")
        source.write_text(mutated_source(mutant), encoding="utf-8")
        environment = {**os.environ, "FITPROOF_MUTANT_MODULE": mutant.module,
                       "FITPROOF_MUTANT_FILE": str(source),
                       "PYTHONPATH": os.pathsep.join([str(loader),
                                                      os.environ.get("PYTHONPATH", "")]),
                       "PYTHONDONTWRITEBYTECODE": "1"}
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "--full", "-m", SELECTION,
                   "-p", "fitproof_mutant_loader", "-p", "no:cacheprovider", "-p", "no:pytest_cov",
                   "--no-header", "-rf", "--tb=no", *tests]
        try:
            done = subprocess.run(command, cwd=REPO, env=environment, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "by": f"its tests ran past {timeout:g} s",
                    "seconds": round(time.monotonic() - start, 1)}
    seconds = round(time.monotonic() - start, 1)
    if done.returncode == 0:
        return {"status": "survived", "by": f"{len(tests)} tests pass", "seconds": seconds}
    if done.returncode == 1:
        failed = re.findall(r"^FAILED (\S+)", done.stdout, re.M) or ["a test"]
        return {"status": "killed", "by": failed[0], "seconds": seconds}
    collected = "found no collectors" not in done.stdout + done.stderr
    if done.returncode == 2 or not collected:  # an error as a test module was imported
        return {"status": "killed", "by": "an error as the tests were collected",
                "seconds": seconds}
    # pytest's usage errors and "no tests ran" say nothing of the mutant: not a kill
    return {"status": "error", "by": f"pytest exit {done.returncode}: "
            f"{(done.stdout + done.stderr).strip().splitlines()[-1:]}", "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="record the coverage map first")
    parser.add_argument("--sample", type=int, help="draw this many mutants at random")
    parser.add_argument("--seed", type=int, default=0, help="the draw's seed (default 0)")
    parser.add_argument("-k", dest="only", help="only modules whose path contains this")
    parser.add_argument("--jobs", type=int, default=2, help="mutants at a time (default 2)")
    parser.add_argument("--list", action="store_true", help="list the mutants, run none")
    parser.add_argument("--report", action="store_true",
                        help="summarise the mutants of the draw tried so far, run none")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S,
                        help=f"seconds a mutant's tests may take (default {TIMEOUT_S})")
    args = parser.parse_args()
    paths = sorted(p for layer in LAYERS for p in (CORE / layer).glob("*.py"))
    chosen = [m for m in mutants(paths) if not args.only or args.only in m.path]
    if args.list:
        for mutant in chosen:
            print(f"{mutant.path}:{mutant.line}: {mutant.change}")
        print(f"{len(chosen):,} mutants")
        return 0
    if args.sample is not None and args.sample < len(chosen):
        chosen = random.Random(args.seed).sample(chosen, args.sample)
    if not args.report and (args.record or not COVERAGE.exists()):
        record()
    recorded = json.loads(COVERAGE.read_text(encoding="utf-8")) if COVERAGE.exists() else {}
    seconds, lines = recorded.get("seconds", {}), recorded.get("lines", {})
    done = _results()
    todo = [m for m in chosen if m.key not in done]
    if args.report:
        print(f"{len(chosen) - len(todo):,} of {len(chosen):,} mutants of the draw tried")
        return _summary([done[m.key] for m in chosen if m.key in done])
    print(f"{len(chosen):,} mutants, {len(chosen) - len(todo):,} already tried", flush=True)

    def tests_of(mutant: Mutant) -> list[str]:
        by_line = lines.get(mutant.path, {})
        tests = by_line.get(str(mutant.line), []) + by_line.get(str(mutant.statement), [])
        run_at_import = not tests and any(str(n) in by_line
                                          for n in (mutant.line, mutant.statement))
        if run_at_import:  # a module-level line, run as the module is imported: any test
            tests = [t for found in by_line.values() for t in found]  # of the module's
        return sorted(set(tests), key=lambda t: seconds.get(t, 60.0))

    def attempt(mutant: Mutant) -> None:
        outcome = run_mutant(mutant, tests_of(mutant), args.timeout)
        entry = {"key": mutant.key, "place": f"{mutant.path}:{mutant.line}",
                 "change": mutant.change, **outcome}
        with RESULTS.open("a", encoding="utf-8") as stream:
            stream.write(json.dumps(entry) + "\n")
        done[mutant.key] = entry
        label = {"killed": f"killed by {outcome['by']}", "survived": f"SURVIVED ({outcome['by']})",
                 "timeout": f"TIMED OUT ({outcome['by']})",
                 "error": f"ERROR ({outcome['by']})"}[str(outcome["status"])]
        print(f"core/{mutant.path}:{mutant.line}: {mutant.change}: {label} "
              f"[{outcome['seconds']} s]", flush=True)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(attempt, todo))
    return _summary([done[m.key] for m in chosen])


def _results() -> dict[str, dict[str, object]]:
    if not RESULTS.exists():
        return {}
    entries = (json.loads(line) for line in RESULTS.read_text(encoding="utf-8").splitlines()
               if line.strip())
    return {entry["key"]: entry for entry in entries}


def _summary(entries: list[dict[str, object]]) -> int:
    print()
    for layer in (*LAYERS, None):
        group = [e for e in entries if layer is None or str(e["place"]).startswith(layer + "/")]
        if not group:
            continue
        killed = sum(e["status"] == "killed" for e in group)
        timeouts = sum(e["status"] == "timeout" for e in group)
        print(f"{layer or 'all':8} {killed:5,} of {len(group):5,} mutants killed "
              f"({100 * killed / len(group):.1f} %; {timeouts} timed out, counted as not "
              "killed)")
    survivors = [e for e in entries if e["status"] != "killed"]
    for entry in sorted(survivors, key=lambda e: str(e["place"])):
        print(f"  {entry['status']}: core/{entry['place']}: {entry['change']} ({entry['by']})")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
