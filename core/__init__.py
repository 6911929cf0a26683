"""fitproof: will this open LLM run on this accelerator, how fast, at what cost, and why.

Every number comes from formulas and figures in YAML packs, with a derivation down to the
pack line it came from::

    import fitproof

    registry = fitproof.load_registry()
    result = fitproof.estimate("qwen3.5-35b-a3b", "arc-pro-b60", registry=registry)
    result.value("total_gib")              # 21.28
    print(result.derivation("total_gib"))  # formula, values, sources
"""

from __future__ import annotations

from . import api
from .api import estimate, estimate_many, render
from .derivation import Derivation
from .errors import EvaluationError, FitproofError, InputError, PackError, Problem, UnknownIdError
from .estimate import Batch, Estimate
from .hookspecs import hookimpl
from .linking import load_registry
from .registry import Registry
from .scenario import resolve_scenario
from .specs import HardwareSpec, ModelSpec, Provider
from .version import __version__
from .views import EstimateView, Quantity, Scenario, Verdict

__all__ = [
    "Batch", "Derivation", "Estimate", "EstimateView", "EvaluationError", "FitproofError",
    "HardwareSpec", "InputError", "ModelSpec", "PackError", "Problem", "Provider", "Quantity",
    "Registry", "Scenario", "UnknownIdError", "Verdict", "__version__", "api", "estimate",
    "estimate_many", "hookimpl", "load_registry", "render", "resolve_scenario",
]
