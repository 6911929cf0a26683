"""Mutation check of the renderers: does gutting any renderer fail a test?

For every public function in ``fitproof.renderers`` that returns text, a list or a dict,
two mutants are made: one that returns an empty value, and one that drops a part (the
middle line of the text, the middle item of the list, the middle key of the dict).

First the whole suite runs once with every renderer function wrapped to record which
tests call it. Then each mutant runs the tests that call its function (``pytest -x``),
with the function replaced wherever fitproof's modules hold it, and is *killed* when one
fails. A test that never calls a function cannot notice its mutant, so this is the same
verdict as running the whole suite, in minutes instead of hours.

    python benchmarks/mutate_renderers.py            # every mutant, two at a time
    python benchmarks/mutate_renderers.py -k html    # the functions whose name has 'html'

It prints one line per mutant (killed by which test, or SURVIVED) and exits 1 when a
mutant survives. Tests that run fitproof in a subprocess do not see the mutant; the
in-process tests must catch it. It is a check to run after changing renderers or their
tests (about 15 minutes on two cores), not part of the test command.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RENDERERS = REPO / "core" / "renderers"
KINDS = {"str": ("empty", "drop"), "list": ("empty", "drop"), "dict": ("empty", "drop")}

PLUGIN = '''
import importlib, json, os, pkgutil, sys

_CALLS = {}
_CURRENT = [None]

def _mutant(original, kind, returns):
    def empty():
        return {"str": "", "list": [], "dict": {}}[returns]

    def drop(value):
        if isinstance(value, str):
            lines = value.splitlines(keepends=True)
            if len(lines) >= 2:
                del lines[len(lines) // 2]
                return "".join(lines)
            return value[: len(value) // 2]
        if isinstance(value, list):
            return value[: len(value) // 2] + value[len(value) // 2 + 1:]
        if isinstance(value, dict):
            keys = list(value)
            return {k: v for k, v in value.items() if keys and k != keys[len(keys) // 2]}
        return value

    def mutated(*args, **kwargs):
        if kind == "empty":
            return empty()
        return drop(original(*args, **kwargs))

    mutated.__name__ = original.__name__
    return mutated


def _recorder(original, key):
    def recorded(*args, **kwargs):
        if _CURRENT[0] is not None:
            _CALLS.setdefault(key, set()).add(_CURRENT[0])
        return original(*args, **kwargs)

    recorded.__name__ = original.__name__
    return recorded


def _replace(original, replacement):
    for name, module in list(sys.modules.items()):
        if name.startswith("fitproof") and module is not None:
            for attribute, value in list(vars(module).items()):
                if value is original:
                    setattr(module, attribute, replacement)


def pytest_configure(config):
    import fitproof.renderers as package
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"fitproof.renderers.{info.name}")
    if "FITPROOF_RECORD" in os.environ:
        for key in os.environ["FITPROOF_FUNCTIONS"].split(","):
            module_name, function = key.split(".")
            original = getattr(sys.modules[f"fitproof.renderers.{module_name}"], function)
            _replace(original, _recorder(original, key))
        return
    module_name, function, kind, returns = os.environ["FITPROOF_MUTANT"].split(":")
    original = getattr(sys.modules[f"fitproof.renderers.{module_name}"], function)
    _replace(original, _mutant(original, kind, returns))


def pytest_runtest_setup(item):
    _CURRENT[0] = item.nodeid


def pytest_runtest_teardown(item):
    _CURRENT[0] = None


def pytest_unconfigure(config):
    if "FITPROOF_RECORD" in os.environ:
        with open(os.environ["FITPROOF_RECORD"], "w", encoding="utf-8") as out:
            json.dump({key: sorted(ids) for key, ids in _CALLS.items()}, out)
'''


def renderer_functions() -> list[tuple[str, str, str]]:
    """(module, function, returned type) for every public renderer function."""
    found = []
    for path in sorted(RENDERERS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and node.returns:
                returns = ast.unparse(node.returns).split("[")[0]
                if returns in KINDS:
                    found.append((path.stem, node.name, returns))
    return found


def _env(plugin_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, **extra,
            "PYTHONPATH": str(plugin_dir) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def record(functions: list[str], plugin_dir: Path) -> dict[str, list[str]]:
    """Which tests call each renderer function: one run of the whole suite."""
    out = plugin_dir / "calls.json"
    env = _env(plugin_dir, FITPROOF_RECORD=str(out), FITPROOF_FUNCTIONS=",".join(functions))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                    "fitproof_renderer_mutant", "tests"], cwd=REPO, env=env,
                   capture_output=True, text=True)
    calls: dict[str, list[str]] = json.loads(out.read_text(encoding="utf-8"))
    return calls


def run(mutant: tuple[str, str, str, str], tests: list[str], plugin_dir: Path
        ) -> tuple[str, float, str]:
    module, function, kind, returns = mutant
    if not tests:
        return "SURVIVED", 0.0, "no test calls it in-process"
    env = _env(plugin_dir, FITPROOF_MUTANT=f"{module}:{function}:{kind}:{returns}")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                           "-p", "fitproof_renderer_mutant", *tests],
                          cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    failed = re.search(r"^FAILED (\S+)", done.stdout, re.MULTILINE)
    if done.returncode == 0:
        return "SURVIVED", seconds, f"{len(tests)} tests call it, none fails"
    if failed is None:
        return "ERROR", seconds, (done.stdout + done.stderr)[-400:]
    return "killed", seconds, failed.group(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only the functions whose name contains this")
    parser.add_argument("-j", type=int, default=2, help="mutants run at once (default 2)")
    args = parser.parse_args()
    plugin_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"fitproof-mutants-{os.getpid()}"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / "fitproof_renderer_mutant.py").write_text(PLUGIN, encoding="utf-8")
    functions = [(m, f, r) for m, f, r in renderer_functions() if args.k in f]
    mutants = [(m, f, kind, r) for m, f, r in functions for kind in KINDS[r]]
    print(f"{len(mutants)} mutants of {len(functions)} renderer functions; recording which "
          "tests call each", flush=True)
    calls = record([f"{m}.{f}" for m, f, _ in functions], plugin_dir)
    survivors = 0
    with ThreadPoolExecutor(max_workers=args.j) as pool:
        for mutant, (verdict, seconds, detail) in zip(mutants, pool.map(
                lambda m: run(m, calls.get(f"{m[0]}.{m[1]}", []), plugin_dir), mutants)):
            survivors += verdict != "killed"
            name = f"{mutant[0]}.{mutant[1]} ({mutant[2]})"
            print(f"{name:<58} {verdict:<9} {seconds:6.1f} s  {detail}", flush=True)
    print(f"{len(mutants) - survivors} of {len(mutants)} mutants killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
