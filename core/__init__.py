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

from collections.abc import Iterable
from os import PathLike

from .derivation import Derivation
from .errors import EvaluationError, FitproofError, InputError, PackError, Problem, UnknownIdError
from .estimate import Batch, Estimate, Quantity, Verdict
from .hookspecs import hookimpl
from .registry import Registry, load_registry
from .scenario import Scenario, resolve_scenario
from .specs import HardwareSpec, ModelSpec, Provider

__version__ = "0.1.0"

__all__ = [
    "Batch", "Derivation", "Estimate", "EvaluationError", "FitproofError", "HardwareSpec", "InputError",
    "ModelSpec", "PackError", "Problem", "Provider", "Quantity", "Registry", "Scenario",
    "UnknownIdError", "Verdict", "estimate", "estimate_many", "hookimpl", "load_registry",
    "resolve_scenario",
]


def estimate(model: str | None = None, hardware: str | None = None, *,
             quant: str | None = None, kv: str | None = None, engine: str | None = None,
             workload: str | None = None, registry: Registry | None = None,
             pack_dirs: Iterable[str | PathLike] = (), profile: str | None = None,
             backend: str | None = None, host: str | None = None,
             **inputs: float) -> Estimate:
    """Evaluate one scenario.

    ``model`` and ``hardware`` are ids or aliases ("RTX 3090"); anything left out comes
    from the default scenario pack. ``workload`` is ``inference`` (default), ``qlora``,
    ``lora`` or ``full``. ``profile`` picks the formula profile (``seed``, ``measured``;
    default: the registry's). ``backend`` runs the device through another compute backend
    than its pack's (``vulkan`` on a Radeon, say); ``host`` is the machine whose memory
    holds offloaded weights (a hardware pack of backend ``cpu``). Numeric inputs (``context``, ``batch``, ``gpus``,
    ``offload``, ``prompt``, …) are keyword arguments. Raises :class:`InputError` for
    unknown names or out-of-range inputs and :class:`PackError` for invalid packs.
    """
    registry = (registry or load_registry(pack_dirs)).with_profile(profile)
    scenario = resolve_scenario(registry, model=model, hardware=hardware, quant=quant, kv=kv,
                                engine=engine, workload=workload, inputs=inputs,
                                backend=backend, host=host)
    return Estimate(registry, scenario)


def estimate_many(scenarios: Iterable[Scenario], *, registry: Registry) -> Batch:
    """Evaluate many resolved scenarios in one vectorised pass (see :class:`Batch`)."""
    return Batch(registry, list(scenarios))
