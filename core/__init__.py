"""fitproof: will this open LLM run on this accelerator, how fast, at what cost, and why.

Every number comes from formulas and figures in YAML packs, with a derivation down to the
pack line it came from::

    import fitproof

    registry = fitproof.load_registry()
    result = fitproof.estimate("qwen3.5-35b-a3b", "arc-pro-b60", registry=registry)
    result.value("total_gib")              # 21.28
    print(result.derivation("total_gib"))  # formula, values, sources

``import fitproof`` is cheap: each name below loads its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from . import api
    from .api import estimate, estimate_many, load_registry, render
    from .engine.derivation import Derivation
    from .engine.estimation import Batch, Estimate
    from .engine.scenario import resolve_scenario
    from .errors import (EvaluationError, FitproofError, InputError, PackError, Problem,
                         UnknownIdError)
    from .hookspecs import hookimpl
    from .registry.index import Registry
    from .specs import HardwareSpec, ModelSpec, Provider
    from .views.results import EstimateView, Quantity, Scenario, Verdict

# name → the module (under fitproof) it comes from
_EXPORTS = {
    "api": "", "estimate": "api", "estimate_many": "api", "load_registry": "api",
    "render": "api", "Derivation": "engine.derivation", "EvaluationError": "errors",
    "FitproofError": "errors", "InputError": "errors", "PackError": "errors",
    "Problem": "errors", "UnknownIdError": "errors", "Batch": "engine.estimation",
    "Estimate": "engine.estimation", "hookimpl": "hookspecs", "Registry": "registry.index",
    "resolve_scenario": "engine.scenario", "HardwareSpec": "specs", "ModelSpec": "specs",
    "Provider": "specs", "EstimateView": "views.estimate", "Quantity": "views.estimate",
    "Scenario": "views.estimate", "Verdict": "views.estimate",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    module = import_module(f".{_EXPORTS[name]}" if _EXPORTS[name] else ".api", __name__)
    value = module if name == "api" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
