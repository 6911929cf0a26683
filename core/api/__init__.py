"""The public API: one function per question, each returning a value or a view.

The CLI (``cli/``) is a table of commands over these functions; a library user calls the
same ones (``import fitproof``). Renderers never see the registry: every function that a
command renders returns a view (``views/results.py``, ``views/report.py``) with everything
evaluated, and :func:`render` turns it into text in a registered output format.

This module is the door; the functions live by use case: ``library`` (load, list, show,
check and calibrate packs), ``scenarios`` (one scenario: estimate, explain, solve),
``tables`` (many scenarios: models, sweep, accuracy), ``documents`` (report, site,
rendering), ``commands`` (the commands plugins add).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import PluginCommandError
from ..version import __version__
from .amounts import parse_parameters, parse_tokens
from .commands import plugin_commands, run_plugin_command
from .documents import output_formats, render, report, site
from .library import calibrate, load, load_registry, pack, packs, validate_packs
from .scenarios import (estimate, estimate_columns, estimate_from_snapshot, estimate_many,
                        estimate_view, explain, render_estimate, scenario, solve,
                        store_snapshot)
from .tables import accuracy, models, sweep

# the modules behind each command load when it runs: `import fitproof` and a single
# estimate from a snapshot import none of numpy, sympy, jsonschema, yaml, cattrs or pluggy
if TYPE_CHECKING:
    from ..engine.scenario import Scenario
    from ..registry.index import Registry
    from ..views.formats import Formats, RenderOptions

_LAZY = {"Formats": "..views.formats", "RenderOptions": "..views.formats",
         "Registry": "..registry.index", "Scenario": "..engine.scenario",
         # fitproof import: the importers package's own door (importers/commands.py)
         "HubImport": "..importers.commands", "import_gguf": "..importers.commands",
         "import_hf": "..importers.commands", "import_hub": "..importers.commands",
         "is_hub_repository": "..importers.commands", "bench_ingest": "..importers.commands",
         # fitproof detect and --on auto; sweep --format parquet
         "detect": "..importers.detect_match", "detected_hardware": "..importers.detect_match",
         "write_parquet": ".parquet", "measurements": "..engine.accuracy",
         "write_file": "..files.own_output", "check_new_file": "..files.own_output"}


def __getattr__(name: str) -> Any:
    """``api.Registry``, ``api.Scenario``… imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(_LAZY[name], __package__), name)
    globals()[name] = value
    return value


__all__ = [
    "__version__", "accuracy", "bench_ingest", "calibrate", "check_new_file", "detect",
    "detected_hardware", "estimate", "estimate_columns", "estimate_from_snapshot",
    "estimate_many", "estimate_view", "explain", "Formats", "HubImport", "import_gguf",
    "import_hf", "import_hub", "is_hub_repository", "load", "load_registry", "measurements",
    "models", "output_formats", "pack", "packs", "parse_parameters", "parse_tokens",
    "plugin_commands", "PluginCommandError", "Registry", "render", "render_estimate",
    "RenderOptions", "report", "run_plugin_command", "scenario", "Scenario", "site", "solve",
    "store_snapshot", "sweep", "validate_packs", "write_file", "write_parquet",
]
