"""The core's folders are its layers (docs/architecture.md): a module imports, at run time,
only modules of its own layer or of the layers below it; the CLI reaches the core only
through the API; renderers read views and never reach the evaluator; the snapshot path
imports no heavy library; there is no import circle; no module is over 400 lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

CORE = Path(__file__).resolve().parent.parent / "core"

# bottom to top (docs/architecture.md, "Layers"): each layer may import those before it
LAYERS = [
    ("errors", "version", "hookspecs"),  # small shared modules
    ("specs",),       # one class per pack kind and the kinds table
    ("formula",),     # the formula language: parser, function table, backends
    ("files",),       # pack files, YAML, schemas, the pack and cache folders, what we write
    ("views",),       # plain evaluated values renderers read; output formats
    ("registry",),    # packs linked: namespaces, the formula graph, profiles, checks, index
    ("engine",),      # scenarios, evaluation, estimates, derivations, solve, accuracy
    ("fast",),        # the snapshot path of a single estimate
    ("report",),      # the sizing report's sections
    ("renderers",),   # views → text, Markdown, JSON, HTML, LaTeX
    ("site",),        # the static site
    ("importers",),   # Hub, GGUF, benchmark outputs and detected devices → packs
    ("calibration",),  # fitting the speed constants to measurement rows
    ("api",),         # the one door: one function per question
    ("cli",),         # a table of commands over the API
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
# the package itself (`import fitproof`, `python -m fitproof`) sits above every layer
TOP = {"__init__": len(LAYERS), "__main__": len(LAYERS)}


class Import:
    """One import of a core module: who imports what, and whether only for type checking."""

    def __init__(self, source: str, target: str, typing_only: bool, line: int) -> None:
        self.source, self.target, self.typing_only, self.line = source, target, typing_only, line

    def __repr__(self) -> str:
        kind = " (type checking)" if self.typing_only else ""
        return f"core/{self.source.replace('.', '/')}.py:{self.line} → {self.target}{kind}"


def module_name(path: Path) -> str:
    """``core/fast/estimate.py`` → ``fast.estimate``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(CORE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[Import]:
    """Every relative import in ``path``, resolved to the core module (or package) it names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(block.test) for node in ast.walk(block)}
    source = module_name(path)
    package = list(path.relative_to(CORE).parent.parts)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.level):
            continue
        base = package[:len(package) - (node.level - 1)]
        module = [*base, *node.module.split(".")] if node.module else base
        # `from .pkg import name` names the module pkg.name when there is one
        targets = {".".join([*module, alias.name]) if _is_module([*module, alias.name])
                   else ".".join(module) for alias in node.names}
        found += [Import(source, target, id(node) in typing_only, node.lineno)
                  for target in sorted(targets)]
    return found


def _is_module(parts: list[str]) -> bool:
    path = CORE.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def all_imports() -> list[Import]:
    return list(_imports_under(CORE))


@functools.lru_cache(maxsize=4)
def _imports_under(core: Path) -> tuple[Import, ...]:
    """Every import of every module under ``core``, read once per folder."""
    return tuple(found for path in sorted(core.rglob("*.py")) for found in imports_of(path))


def layer_of(module: str) -> str:
    return module.split(".")[0]


def test_every_top_level_entry_is_a_layer():
    entries = {p.stem for p in CORE.iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()}
    assert entries - set(TOP) == set(RANK), "a new top-level module or package: name its layer"
    assert len(RANK) <= 17


def test_imports_point_down_the_layers():
    upward = [found for found in all_imports() if not found.typing_only
              and layer_of(found.source) not in TOP
              and RANK[layer_of(found.target)] > RANK[layer_of(found.source)]]
    assert not upward, f"imports above their layer: {upward}"


def test_type_checking_imports_upward_name_only_types():
    """Three modules name a type of a higher layer for annotations only; no more."""
    upward = {(found.source, found.target) for found in all_imports() if found.typing_only
              and layer_of(found.source) not in TOP
              and RANK[layer_of(found.target)] > RANK[layer_of(found.source)]}
    assert upward == {("registry.launch", "engine.evaluator"),
                      ("registry.launch", "engine.scenario"),
                      ("views.results", "engine.derivation")}


def test_the_cli_imports_only_the_public_api_and_errors():
    for found in all_imports():
        if layer_of(found.source) == "cli":
            assert layer_of(found.target) in {"api", "errors", "cli"}, found
    reached = {f.target for path in (CORE / "cli").glob("*.py") for f in imports_of(path)}
    assert reached >= {"api", "errors"}


def test_renderers_read_views_and_never_compute():
    allowed = {"errors", "specs", "views", "renderers", "formula.rounding", "engine.derivation"}
    for found in all_imports():
        if layer_of(found.source) == "renderers":
            assert found.target in allowed or layer_of(found.target) in allowed, found


def test_the_snapshot_estimate_reaches_only_light_modules():
    """``fast.estimate`` and ``fast.select`` run without numpy, sympy, jsonschema and friends:
    what they import is the scalar evaluator, the checks both paths share and plain views."""
    light = {"errors", "fast.select", "formula.scalar", "formula.functions", "formula.rounding",
             "registry.input_checks", "registry.names", "registry.scenario_checks",
             "views.estimate", "views.message_format", "specs"}
    for name in ("estimate", "select"):
        for found in imports_of(CORE / "fast" / f"{name}.py"):
            assert found.target in light or found.typing_only, found


def test_no_import_circle_in_core():
    graph: dict[str, set[str]] = {}
    for found in all_imports():
        graph.setdefault(found.source, set()).add(found.target)
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


def test_the_layer_test_sees_an_upward_import(tmp_path, monkeypatch):
    """The contract can fail: a formula module that imports the registry is caught."""
    import shutil
    import sys

    copy = tmp_path / "core"
    shutil.copytree(CORE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    scalar = copy / "formula" / "scalar.py"
    scalar.write_text(scalar.read_text(encoding="utf-8") + "\nfrom ..registry import graph\n",
                      encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "CORE", copy)
    try:
        test_imports_point_down_the_layers()
    except AssertionError as failure:
        assert "core/formula/scalar.py" in str(failure) and "registry.graph" in str(failure)
    else:
        raise AssertionError("an upward import went unseen")


def test_no_core_module_is_over_400_lines():
    for path in CORE.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 400, f"core/{path.relative_to(CORE)} has {lines} lines"
