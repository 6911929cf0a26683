"""The imports between core modules follow docs/architecture.md: each module may import
only the parts listed for it, so the layers never point upward and renderers never
reach the evaluator."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"

# module → the core modules it may import (docs/architecture.md)
ALLOWED = {
    "__init__": {"api", "derivation", "errors", "estimation", "hookspecs", "linking", "registry",
                 "scenario", "specs", "version", "views"},
    "__main__": {"cli"},
    "accuracy": {"errors", "estimation", "registry", "scenario", "specs", "views"},
    "amounts": {"errors"},
    "api": {"accuracy", "amounts", "calibration", "detect_match", "errors", "estimation", "formats", "importers", "linking", "plugins",
            "own_output", "parquet", "queries", "registry", "renderers", "report", "report_view", "scenario",
            "sensitivity", "site", "snapshot", "solve", "sweep", "validate", "version", "views", "machine", "machine_estimate"},
    "builtin": {"hookspecs", "pack_files", "renderers"},
    "candidates": {"evaluator", "namespaces", "specs"},
    "columns": set(),
    "checks": {"errors", "input_checks", "launch", "message_format", "names", "namespaces",
               "quant_formats", "specs", "views"},
    "cache_paths": set(),
    "compiled": {"formula_functions", "formula_parser", "scalar"},
    "derivation": {"evaluator", "formula_parser", "numbers", "specs", "symbolic"},
    "detect": {"errors"},
    "detect_match": {"detect", "errors", "names", "registry", "specs", "views"},
    "errors": set(),
    "estimate_view": {"message_format", "specs"},
    "estimation": {"derivation", "errors", "estimate_view", "evaluator", "registry", "scenario",
                   "scenario_checks", "views"},
    "evaluator": {"columns", "graph", "namespaces", "rows"},
    "formats": {"errors"},
    "formula_functions": {"rounding"},
    "formula_js": {"formula_functions"},
    "formula_parser": {"formula_functions"},
    "graph": {"compiled", "errors", "formula_parser", "namespaces", "scenario_checks", "specs"},
    "hookspecs": set(),
    "input_checks": {"errors"},
    "launch": {"compiled", "evaluator", "formula_parser", "registry", "scenario", "specs"},
    "machine": {"errors", "estimate_view", "registry", "specs", "validation", "views"},
    "machine_estimate": {"errors", "estimate_view", "estimation", "launch", "machine", "registry",
                         "scenario", "views"},
    "linking": {"checks", "errors", "formats", "graph", "loader", "overrides", "pack_files", "plugins",
                "profiles", "questions", "registry", "views"},
    "loader": {"cache_paths", "errors", "pack_files", "specs", "validation", "version",
               "yaml_reader"},
    "message_format": set(),
    "names": set(),
    "namespaces": {"specs", "validation"},
    "numbers": set(),
    "own_output": {"errors"},
    "pack_files": {"errors"},
    "plugins": {"formats", "hookspecs", "pack_files"},
    "parquet": {"errors", "own_output", "views"},
    "profiles": {"errors", "formula_parser", "graph", "scenario_checks", "specs", "views"},
    "quant_formats": {"specs", "validation"},
    "queries": {"errors", "estimation", "registry", "scenario", "views"},
    "questions": {"errors", "graph", "namespaces", "specs", "views"},
    "registry": {"candidates", "errors", "formats", "graph", "names", "namespaces", "overrides",
                 "profiles", "quant_formats", "questions", "specs", "views"},
    "overrides": {"errors", "estimate_view", "graph", "pack_files", "views"},
    "report": {"compiled", "errors", "estimation", "evaluator", "formula_parser", "launch",
               "registry", "report_plan", "report_variants", "report_view", "scenario", "specs"},
    "report_variants": {"errors", "estimation", "registry", "report_plan", "report_view",
                        "scenario"},
    "report_plan": {"errors", "estimation", "evaluator", "registry", "report_view", "scenario",
                    "specs"},
    "report_view": {"specs", "views"},
    "rounding": set(),
    "rows": {"namespaces"},
    "scenario_checks": {"errors", "message_format", "specs"},
    "scalar": {"formula_functions"},
    "sensitivity": {"derivation", "symbolic", "views"},
    "solve": {"errors", "estimation", "questions", "registry", "scenario", "views"},
    "scenario": {"errors", "evaluator", "input_checks", "namespaces", "registry", "specs", "views"},
    "site": {"errors", "estimate_view", "formula_js", "own_output", "registry", "renderers",
             "rounding", "site_data", "version"},
    "site_data": {"formula_js", "formula_parser", "launch", "registry", "renderers",
                  "snapshot_build"},
    "snapshot": {"cache_paths", "estimate_view", "pack_files", "registry", "snapshot_build",
                 "snapshot_estimate", "version"},
    "snapshot_build": {"accuracy", "estimation", "evaluator", "formula_parser", "graph", "namespaces",
                       "registry", "scenario"},
    "snapshot_estimate": {"errors", "estimate_view", "input_checks", "names", "scalar",
                          "scenario_checks", "snapshot_select"},
    "snapshot_select": {"scalar"},
    "sweep": {"errors", "estimation", "own_output", "registry", "scenario", "views"},
    "symbolic": {"formula_functions", "formula_parser"},
    "validate": {"errors", "linking", "overrides", "pack_files", "views"},
    "validation": {"errors", "specs", "yaml_reader"},
    "version": set(),
    "views": {"derivation", "errors", "estimate_view", "specs"},
    "yaml_reader": {"errors", "pack_files"},
}
# renderers and importers: what each package may reach in the core
PACKAGES = {
    "renderers": {"derivation", "errors", "estimate_view", "formats", "message_format",
                  "numbers", "report_view", "rounding", "specs", "views"},
    "importers": {"errors", "loader", "own_output", "pack_files", "registry", "specs"},
    # fitproof calibrate and benchmarks/fit_speed.py: rows, fit, cross-validation, blocks
    "calibration": {"accuracy", "errors", "estimation", "importers", "pack_files", "registry",
                    "specs", "views"},
    # the command line: its parser and its commands reach the core only through the API
    "cli": {"api", "errors"},
    "specs": set(),  # one module per pack kind, the kinds table and structuring: no core imports
}


def imports_of(path: Path, package: str | None) -> set[str]:
    """The core modules ``path`` imports (``from . import x`` counts as module ``x``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            top = 1 if package is None else 2
            names = ([node.module.split(".")[0]] if node.module
                     else [alias.name for alias in node.names])
            if node.level == top:
                found.update(names)
            elif node.level == top - 1 and package is not None:
                found.update(f"{package}.{name}" for name in names)
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


def _graph() -> dict[str, set[str]]:
    """Every core module and the core modules it imports (packages by their modules)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(CORE.rglob("*.py")):
        package = path.parent.name if path.parent != CORE else None
        name = path.stem if package is None else f"{package}.{path.stem}"
        graph[name] = imports_of(path, package)
    return graph


def test_no_import_circle_in_core():
    graph = _graph()
    state: dict[str, int] = {}
    for start in graph:  # iterative depth-first search; a grey node met again is a circle
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        state[start], path = 1, [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if child not in graph:
                continue
            assert state.get(child) != 1, f"import circle: {' -> '.join(path + [child])}"
            if child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))


def test_the_cli_imports_only_the_public_api_and_errors():
    for path in (CORE / "cli").glob("*.py"):
        reached = {name for name in imports_of(path, "cli") if "." not in name}
        assert reached <= {"api", "errors"}, path.name
    assert imports_of(CORE / "cli" / "__init__.py", "cli") >= {"api", "errors"}


def test_no_renderer_imports_the_layers_below_the_views():
    banned = {"registry", "evaluator", "graph", "estimation", "scenario", "loader", "linking"}
    for path in (CORE / "renderers").glob("*.py"):
        assert not imports_of(path, "renderers") & banned, path.name


def test_no_core_module_is_over_400_lines():
    for path in CORE.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 400, f"core/{path.relative_to(CORE)} has {lines} lines"
