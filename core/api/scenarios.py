"""One scenario: resolve it, estimate it (from the compiled snapshot when one answers),
explain a quantity and answer an inverse question about it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .library import load_registry

if TYPE_CHECKING:
    from ..engine.estimation import Batch, Estimate
    from ..engine.scenario import Scenario
    from ..registry.index import Registry
    from ..views.results import DerivationView, EstimateView, SolveView


def scenario(registry: Registry, *, model: str | None = None, hardware: str | None = None,
             quant: str | None = None, kv: str | None = None, engine: str | None = None,
             workload: str | None = None, backend: str | None = None, host: str | None = None,
             inputs: Mapping[str, float | None] | None = None,
             input_origins: Mapping[str, str] | None = None,
             tensor_split: Sequence[float] | None = None) -> Scenario:
    """Resolve names and inputs to a :class:`Scenario` (defaults from the default scenario).
    ``hardware="auto"`` is the local accelerator (:func:`detected_hardware`); a
    comma-separated list (``"rtx-5090,rtx-5080"``, ``"rtx-3090:2,rtx-3060"``) is a machine
    of unlike devices, its layers split as llama.cpp splits them (in proportion to each
    device's memory, or to ``tensor_split``)."""
    from ..engine.machine import machine_devices
    from ..engine.scenario import resolve_scenario

    if hardware == "auto":  # on as many devices as were detected, unless inputs say
        from ..importers.detect_match import detected_hardware

        hardware, count, _ = detected_hardware(registry)
        if count > 1 and (inputs or {}).get("gpus") is None:
            inputs = {**(inputs or {}), "gpus": count}
            input_origins = {**(input_origins or {}), "gpus": "detected (hardware auto)"}
    if machine_devices(hardware) is not None:
        from ..engine.machine_estimate import machine_scenario

        assert hardware is not None
        return machine_scenario(registry, hardware, tensor_split=tensor_split, model=model,
                                quant=quant, kv=kv, engine=engine, workload=workload,
                                inputs=inputs, input_origins=input_origins,
                                backend=backend, host=host)
    if tensor_split is not None:
        raise InputError("--tensor-split gives the shares of unlike devices; list them "
                         "with --on, e.g. --on rtx-5090,rtx-5080 --tensor-split 2,1")
    return resolve_scenario(registry, model=model, hardware=hardware, quant=quant, kv=kv,
                            engine=engine, workload=workload, inputs=inputs,
                            input_origins=input_origins, backend=backend, host=host)


def estimate(model: str | None = None, hardware: str | None = None, *,
             quant: str | None = None, kv: str | None = None, engine: str | None = None,
             workload: str | None = None, registry: Registry | None = None,
             pack_dirs: Iterable[str | os.PathLike[str]] = (), profile: str | None = None,
             backend: str | None = None, host: str | None = None,
             **inputs: float) -> Estimate:
    """Evaluate one scenario.

    ``model`` and ``hardware`` are ids or aliases ("RTX 3090"); anything left out comes
    from the default scenario pack. ``workload`` is ``inference`` (default), ``qlora``,
    ``lora`` or ``full``. ``profile`` picks the formula profile (``seed``, ``measured``;
    default: the registry's). ``backend`` runs the device through another compute backend
    than its pack's (``vulkan`` on a Radeon, say); ``host`` is the machine whose memory
    holds offloaded weights (a hardware pack of backend ``cpu``). Numeric inputs
    (``context``, ``batch``, ``gpus``, ``offload``, ``prompt``, …) are keyword arguments.
    Raises :class:`InputError` for unknown names or out-of-range inputs and
    :class:`PackError` for invalid packs.
    """
    from ..engine.machine_estimate import estimate_of

    registry = (registry or load_registry(pack_dirs)).with_profile(profile)
    resolved = scenario(registry, model=model, hardware=hardware, quant=quant, kv=kv,
                        engine=engine, workload=workload, inputs=inputs, backend=backend,
                        host=host)
    return estimate_of(registry, resolved)


def estimate_many(scenarios: Iterable[Scenario], *, registry: Registry) -> Batch:
    """Evaluate many resolved scenarios in one vectorised pass (see :class:`Batch`): each
    quantity as an array with ``Batch.array(name)`` (``Batch.values(name)`` converts to a
    list), every derivation on request."""
    from ..engine.estimation import Batch

    return Batch(registry, list(scenarios))


def estimate_columns(scenarios: Sequence[Scenario], names: Sequence[str], *,
                     registry: Registry) -> dict[str, Any]:
    """Quantities ``names`` of many resolved scenarios as float arrays, and ``"verdict"``
    (ids), evaluated in chunks: for large tables, where :func:`estimate_many` would keep
    every intermediate quantity of every scenario."""
    from ..engine.estimation import estimate_columns as columns

    return columns(registry, scenarios, names)


def estimate_view(registry: Registry, resolved: Scenario) -> EstimateView:
    """``fitproof estimate``: one scenario, evaluated, as its renderers read it."""
    from ..engine.accuracy import measured_runs
    from ..engine.machine_estimate import estimate_of

    view = estimate_of(registry, resolved).view()
    if resolved.machine is not None:  # no public run measured a machine of unlike devices
        return view
    return view._replace(measured=measured_runs(registry, resolved))


def estimate_from_snapshot(choices: Mapping[str, str | None], inputs: Mapping[str, Any], *,
                           pack_dirs: Iterable[str | os.PathLike[str]] = (),
                           plugins: bool = True, profile: str | None = None,
                           allow_override: bool = False
                           ) -> tuple[EstimateView, list[str]] | None:
    """``fitproof estimate`` from the compiled snapshot of these packs, if one is stored,
    with the warnings their full load gave; ``None`` when the full path must answer.
    ``choices`` are the selectors as typed (``model``, ``hardware``…, ``None`` for the
    default), ``inputs`` the numeric inputs."""
    from ..fast.snapshot import snapshot_estimate

    return snapshot_estimate(pack_dirs, profile, choices, inputs, plugins=plugins,
                             allow_override=allow_override)


def store_snapshot(registry: Registry, *, pack_dirs: Iterable[str | os.PathLike[str]] = (),
                   plugins: bool = True, profile: str | None = None) -> bool:
    """Store the compiled snapshot of ``registry`` (loaded from ``pack_dirs`` with
    ``profile``) for :func:`estimate_from_snapshot`; whether one is stored."""
    from ..fast.snapshot import store_snapshot as store

    return store(registry, pack_dirs, profile, plugins=plugins)


def render_estimate(view: EstimateView, format: str) -> str | None:
    """``view`` in a built-in estimate format (``text``, ``json``) without loading the
    format table; ``None`` for any other format."""
    from ..renderers.estimate_text import render_estimate as text, render_estimate_json

    renderers = {"text": text, "json": render_estimate_json}
    return renderers[format](view) if format in renderers else None


def explain(registry: Registry, resolved: Scenario, quantity: str,
            depth: int | None = None, *, sensitivity: bool = False) -> DerivationView:
    """``fitproof explain``: how ``quantity`` was computed for the scenario; with
    ``sensitivity``, how strongly it moves with each figure and input (elasticities)."""
    from ..engine.machine_estimate import explained
    from ..views.results import DerivationView

    derivation = explained(registry, resolved, quantity).derivation(quantity)
    if not sensitivity:
        return DerivationView(derivation, depth)
    from ..engine.sensitivity import elasticities

    if derivation.kind != "formula" or derivation.unit == "bool":
        raise InputError(f"--sensitivity needs a numeric formula; {quantity} is "
                         f"{'a yes/no condition' if derivation.unit == 'bool' else 'not one'}")
    return DerivationView(derivation, depth, elasticities(derivation))


def solve(registry: Registry, question: str, resolved: Scenario, *,
          given: Iterable[str] = (), min_speed: float | None = None,
          rent: bool = False) -> SolveView:
    """``fitproof solve``: answer an inverse question (packs/questions/) for the scenario,
    such as the largest context that fits. ``given`` names the choices and inputs the user
    set, which the question must not be searching; ``min_speed`` is cheapest's target and
    ``rent`` prices cloud offers instead of purchases."""
    from ..engine.solve import solve as answer

    from ..engine.machine_estimate import one_kind_of_device

    one_kind_of_device(resolved, "solve")
    return answer(registry, question, resolved, given=frozenset(given), min_speed=min_speed,
                  rent=rent)
