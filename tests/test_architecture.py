"""The imports between core modules follow docs/architecture.md: each module may import
only the parts listed for it, so the layers never point upward and renderers never
reach the evaluator."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"

# module → the core modules it may import (docs/architecture.md)
ALLOWED = {
    "__init__": {"derivation", "errors", "estimate", "hookspecs", "registry", "scenario", "specs"},
    "__main__": {"cli"},
    "accuracy": {"errors", "estimate", "registry", "scenario", "specs"},
    "builtin": {"hookspecs"},
    "cli": {"__init__", "errors", "estimate", "importers", "queries", "registry", "renderers",
            "report", "scenario", "validate", "accuracy"},
    "compiled": {"formula_parser", "rounding"},
    "derivation": {"evaluator", "formula_parser", "numbers", "symbolic"},
    "errors": set(),
    "estimate": {"derivation", "errors", "evaluator", "registry", "scenario"},
    "evaluator": {"graph", "namespaces"},
    "formula_parser": set(),
    "graph": {"compiled", "errors", "formula_parser", "namespaces", "specs"},
    "hookspecs": set(),
    "launch": {"compiled", "evaluator", "formula_parser", "registry", "scenario", "specs"},
    "loader": {"__init__", "errors", "plugins", "specs", "validation", "yaml_reader"},
    "namespaces": {"specs", "validation"},
    "numbers": set(),
    "plugins": {"__init__"},
    "quant_formats": {"specs", "validation"},
    "queries": {"errors", "estimate", "registry", "scenario"},
    "registry": {"errors", "evaluator", "graph", "launch", "loader", "namespaces", "plugins",
                 "quant_formats", "specs"},
    "report": {"compiled", "errors", "estimate", "formula_parser", "launch", "queries",
               "registry", "scenario"},
    "rounding": set(),
    "scenario": {"errors", "evaluator", "namespaces", "registry"},
    "specs": set(),
    "symbolic": {"formula_parser"},
    "validate": {"errors", "loader", "plugins", "registry"},
    "validation": {"errors", "yaml_reader"},
    "yaml_reader": {"errors"},
}
# renderers and importers: what each package may reach in the core
PACKAGES = {
    "renderers": {"accuracy", "derivation", "errors", "estimate", "numbers", "queries", "registry",
                  "report", "rounding", "validate"},
    "importers": {"errors", "loader", "registry"},
}


def imports_of(path: Path, package: str | None) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            top = 1 if package is None else 2
            if node.level == top:
                found.add(node.module.split(".")[0] if node.module else "__init__")
            elif node.level == top - 1 and package is not None:
                found.add(f"{package}.{node.module or ''}")
    return found


def test_core_modules_import_only_what_the_architecture_allows():
    for path in sorted(CORE.glob("*.py")):
        wrong = imports_of(path, None) - ALLOWED[path.stem]
        assert not wrong, f"core/{path.name} imports {sorted(wrong)} (docs/architecture.md)"
    assert {p.stem for p in CORE.glob("*.py")} == set(ALLOWED)


def test_packages_reach_only_their_layer():
    for package, allowed in PACKAGES.items():
        for path in sorted((CORE / package).glob("*.py")):
            reached = {name for name in imports_of(path, package) if "." not in name}
            wrong = reached - allowed
            assert not wrong, f"core/{package}/{path.name} imports {sorted(wrong)}"


def test_renderers_never_compute():
    for path in (CORE / "renderers").glob("*.py"):
        reached = imports_of(path, "renderers")
        assert not reached & {"evaluator", "compiled", "graph", "formula_parser"}, path.name
