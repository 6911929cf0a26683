"""The public API: one function per question, each returning a value or a view.

The CLI (``cli.py``) is a table of commands over these functions; a library user calls the
same ones (``import fitproof``). Renderers never see the registry: every function that a
command renders returns a view (``views/results.py``, ``views/report.py``) with everything
evaluated, and :func:`render` turns it into text in a registered output format.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, UnknownIdError
from ..version import __version__
from .amounts import parse_parameters, parse_tokens

# the modules behind each command load when it runs: `import fitproof` and a single
# estimate from a snapshot import none of numpy, sympy, jsonschema, yaml, cattrs or pluggy
if TYPE_CHECKING:
    from ..engine.estimation import Batch, Estimate
    from ..engine.scenario import Scenario
    from ..registry.index import Registry
    from ..site.build import SiteSummary
    from ..views.formats import Formats, RenderOptions
    from ..views.report import ReportView
    from ..views.results import (Accuracy, DerivationView, EstimateView, LoadedPack, ModelsView,
                                 PacksView, PackView, SolveView, SweepView, ValidationReport)
    from ..views.results import CalibrationView

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
    "Formats", "Registry", "Scenario", "__version__", "RenderOptions", "accuracy", "estimate",
    "estimate_columns", "estimate_from_snapshot", "estimate_many", "estimate_view", "render_estimate", "store_snapshot",
    "explain", "HubImport", "import_gguf", "import_hf", "import_hub", "is_hub_repository", "load", "load_registry", "models", "output_formats",
    "pack", "packs", "parse_parameters", "parse_tokens",
    "render", "report", "scenario", "site", "sweep", "validate_packs", "write_parquet",
]
__all__ += ["bench_ingest", "calibrate", "detect", "detected_hardware", "measurements", "write_file",
            "check_new_file"]

def load_registry(pack_dirs: Iterable[str | os.PathLike[str]] = (), *, plugins: bool = True,
                  extra_plugins: Iterable[object] = (), use_cache: bool = True,
                  environ: dict[str, str] | None = None, strict: bool = False,
                  profile: str | None = None, allow_override: bool = False) -> Registry:
    """Every pack, linked: built-in, installed plugins', ``FITPROOF_PACK_PATH``'s and
    ``pack_dirs``' (see :func:`fitproof.registry.linking.load_registry`)."""
    from ..registry.linking import load_registry as load_all

    return load_all(pack_dirs, plugins=plugins, extra_plugins=extra_plugins,
                    use_cache=use_cache, environ=environ, strict=strict, profile=profile,
                    allow_override=allow_override)


load = load_registry


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


def report(registry: Registry, resolved: Scenario, *, preselect: bool = False) -> ReportView:
    """``fitproof report``: every section of the sizing report. ``preselect``: the model's
    page without a chosen accelerator, on the one the report pack's purchase recommendation
    picks (the best single GPU), titled for it."""
    from ..engine.machine_estimate import one_kind_of_device
    from ..report.sections import build_report, preselect_hardware, report_view

    one_kind_of_device(resolved, "report")
    if preselect:
        resolved = preselect_hardware(registry, resolved)
    return report_view(registry, build_report(registry, resolved), preselected=preselect)


def accuracy(registry: Registry, group_by: Sequence[str] = ()) -> Accuracy:
    """``fitproof validate``: the profile's speeds against the measurement packs."""
    from ..engine.accuracy import score

    return score(registry, group_by)


def models(registry: Registry, *, hardware: str | None = None, search: str | None = None,
           family: str | None = None, min_params: float | None = None,
           max_params: float | None = None, quant: str | None = None,
           context: int | None = None, include_all: bool = False,
           sort: str = "size", kv: str | None = None, engine: str | None = None,
           workload: str | None = None, host: str | None = None, backend: str | None = None,
           inputs: Mapping[str, float | None] | None = None) -> ModelsView:
    """``fitproof models``: the models matching a search, evaluated on ``hardware`` if given,
    with the other choices and ``inputs`` (batch, gpus, …) of the scenario applied to each;
    a model the scenario is not valid for is left out, with why (``ModelsView.left_out``)."""
    from ..engine.queries import evaluate_models, matching_models, rank, within_size
    from ..views.results import ModelsView

    chosen = matching_models(registry, search, family=family)
    if hardware is None:
        return ModelsView(tuple(within_size(evaluate_models(registry, chosen), min_params,
                                            max_params)))
    hardware_id = registry.resolve("hardware", hardware)
    left_out: list[str] = []
    # the matching models only, evaluated once on the hardware
    rows = evaluate_models(registry, chosen, hardware=hardware_id, quant=quant,
                           context=context, left_out=left_out,
                           choices={"kv": kv, "engine": engine, "workload": workload,
                                    "host": host, "backend": backend},
                           given={k: v for k, v in (inputs or {}).items() if k != "context"})
    ranked = rank(within_size(rows, min_params, max_params), include_all=include_all,
                  sort=sort)
    gpus = (inputs or {}).get("gpus")
    name = registry.hardware[hardware_id].display_name
    return ModelsView(tuple(ranked), f"{int(gpus)}x {name}" if gpus and gpus > 1 else name,
                      tuple(left_out))


def packs(registry: Registry, kind: str | None = None) -> PacksView:
    """``fitproof packs list``: the loaded packs, of ``kind`` when given."""
    from ..views.results import PacksView

    found = [p for p in registry.packs if not kind or p.kind == kind]
    if kind and not found:
        kinds = sorted({p.kind for p in registry.packs})
        raise InputError(f"no packs of kind {kind!r}; kinds are {', '.join(kinds)}")
    return PacksView(tuple(found))


def pack(registry: Registry, name: str, kind: str | None = None) -> PackView:
    """``fitproof packs show``: the pack called ``name`` (id or alias), of ``kind`` if given."""
    from ..views.results import PackView

    matches = [p for p in registry.packs if p.id == name and (not kind or p.kind == kind)]
    if not matches:
        matches = _by_alias(registry, name, kind)
    if not matches:
        import difflib

        ids = sorted({p.id for p in registry.packs if not kind or p.kind == kind})
        close = difflib.get_close_matches(name.lower(), ids, n=3, cutoff=0.5)
        raise UnknownIdError(kind or "pack", name, close)
    if len(matches) > 1:
        raise InputError(f"{name!r} is the id of several packs "
                         f"({', '.join(p.kind for p in matches)}); add --kind")
    return PackView(matches[0])


def _by_alias(registry: Registry, name: str, kind: str | None) -> list[LoadedPack]:
    named = set(registry.named(name, kind))
    return [p for p in registry.packs if (p.kind, p.id) in named]


def validate_packs(paths: Iterable[str], *, plugins: bool = True) -> ValidationReport:
    """``fitproof packs validate``: each file alone, then together with the installed packs."""
    from .validate import validate_paths

    return validate_paths(paths, plugins=plugins)


def output_formats(registry: Registry | None = None, *, plugins: bool = True) -> Formats:
    """The output formats in use: those of the plugins ``registry`` was loaded with; without
    one, the built-in formats and (``plugins``) those the installed plugins add."""
    if registry is not None and registry.output_formats is not None:
        return registry.output_formats
    from ..registry.plugins import collect_output_formats, plugin_manager

    manager = plugin_manager(entry_points_group="fitproof" if plugins else None)
    return collect_output_formats(manager)[0]


def render(view_kind: str, view: object, format: str = "text", *,
           registry: Registry | None = None, plugins: bool = True, language: str = "en",
           depth: int | None = None) -> str:
    """``view`` (of kind ``view_kind``, see :data:`fitproof.views.formats.VIEW_KINDS`) as text, in
    a format of ``registry``'s plugins (without a registry: see :func:`output_formats`)."""
    from ..views.formats import RenderOptions

    formats = output_formats(registry, plugins=plugins)
    return formats.render(view_kind, format, view, RenderOptions(language, depth))


def sweep(registry: Registry, *, models: Sequence[str] | None = None,
          hardware: Sequence[str] | None = None, quants: Sequence[str] = (),
          context: Sequence[float] = (), batch: Sequence[float] = (), gpus: Sequence[float] = (),
          progress: Callable[[int, int], None] | None = None, yes: bool = False) -> SweepView:
    """Every combination of models (``None``: all), accelerators (``None``: all), formats
    and inputs, one row each with the headline quantities and the verdict (past
    ``sweep.SWEEP_LIMIT`` scenarios only with ``yes``)."""
    from ..engine.sweep import sweep as run, sweep_axes

    axes = sweep_axes(registry, models=models, hardware=hardware, quants=quants,
                      context=context, batch=batch, gpus=gpus)
    return run(registry, axes, progress, yes=yes)


def site(registry: Registry, out: str, *, models: Sequence[str] | None = None,
         hardware: Sequence[str] | None = None, languages: Sequence[str] | None = None,
         base_url: str | None = None, progress: Callable[[int, int], None] | None = None,
         force: bool = False, yes: bool = False) -> SiteSummary:
    """Write the static site (a configurator page per model x accelerator x language) to
    the folder ``out`` (``site.build_site``: ``force``, ``yes``); ``None`` means every
    model, accelerator or catalog language."""
    from ..site.build import build_site

    return build_site(registry, out, models=models, hardware=hardware, languages=languages,
                      base_url=base_url, progress=progress, force=force, yes=yes)


def calibrate(registry: Registry, *, name: str = "mine", engine: str | None = None,
              repeats: int | None = None, force: bool = False,
              out: str | None = None) -> CalibrationView:
    """``fitproof calibrate``: the speed constants refitted on the shipped measurement rows
    plus the user's, written as profile ``name`` (``--profile name`` then uses them), with
    the held-out error of the shipped and refitted constants (needs scipy: the fit extra)."""
    from ..calibration.fit import require_scipy

    require_scipy()  # before numpy and the fit's modules load
    from ..calibration.calibrate import DEFAULT_REPEATS, calibrate as run

    return run(registry, name=name, engine=engine, force=force, out=out,
               repeats=DEFAULT_REPEATS if repeats is None else repeats)
