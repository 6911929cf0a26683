"""Formula profiles: which formula packs make up the graph of a profile (``seed``,
``measured``), following the chain of profiles each extends."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

import attrs

from ..errors import Problem
from ..formula.parser import FormulaSyntaxError, parse_formula
from ..specs import (ArchitecturePack, EngineSpec, FormulaPack, InputPack, PackFile,
                     ReportPack, SelectionPack, VerdictPack)
from ..views.results import LoadedPack
from .graph import FormulaGraph, build_graph
from .scenario_checks import link_checks


def default_profile(loaded: Sequence[LoadedPack]) -> str | None:
    """The profile marked ``default: true`` (None when no profile pack is loaded)."""
    defaults = [p.id for p in loaded if p.kind == "profile" and p.obj.default]
    return defaults[0] if defaults else None


def profile_chain(loaded: Sequence[LoadedPack], profile: str | None) -> list[str]:
    """``profile`` and the profiles it extends, the most basic first."""
    by_id = {p.id: p.obj for p in loaded if p.kind == "profile"}
    chain: list[str] = []
    while profile is not None and profile in by_id and profile not in chain:
        chain.insert(0, profile)
        profile = by_id[profile].extends
    return chain


def calibrated_engines(loaded: Sequence[LoadedPack], profile: str | None,
                       ) -> dict[str, tuple[EngineSpec, dict[str, tuple[PackFile, str]]]]:
    """The engines whose speed constants a profile in ``profile``'s chain refits
    (``engines:``, written by ``fitproof calibrate``): each engine pack with those figures
    in place of its own, and for each replaced field the profile pack and the engine id
    under ``engines`` where it is written. A later profile in the chain wins, field by
    field; engines no profile names keep their own packs (and are not listed)."""
    by_id = {p.id: p.obj for p in loaded if p.kind == "profile"}
    engines = {p.id: p.obj for p in loaded if isinstance(p.obj, EngineSpec)}
    result: dict[str, tuple[EngineSpec, dict[str, tuple[PackFile, str]]]] = {}
    for member in profile_chain(loaded, profile):
        for engine_id, constants in by_id[member].engines.items():
            if engine_id not in engines:
                continue
            engine, moved = result.get(engine_id, (engines[engine_id], {}))
            given = {field.name: getattr(constants, field.name)
                     for field in attrs.fields(type(constants))
                     if getattr(constants, field.name) not in (None, {})}
            moved = {**moved, **{name: (by_id[member].pack, engine_id) for name in given}}
            result[engine_id] = (attrs.evolve(engine, **given), moved)
    return result


def profile_graph(loaded: Sequence[LoadedPack], profile: str | None,
                  ) -> tuple[FormulaGraph, list[Problem]]:
    """The formula graph of ``profile``: the shared formula packs and those of each profile
    in its chain (a redefinition needs ``override: true``)."""
    objs = [p.obj for p in loaded]
    rank = {member: i + 1 for i, member in enumerate(profile_chain(loaded, profile))}
    # load order, except that within each origin a profile's packs follow those of the
    # profiles it extends: a later definition is the one that must say 'override: true'
    chosen = [p for p in loaded if isinstance(p.obj, FormulaPack)
              and (p.obj.profile is None or p.obj.profile in rank)]
    origin_rank = {origin: i for i, origin in enumerate(dict.fromkeys(p.origin for p in loaded))}
    chosen.sort(key=lambda p: (origin_rank[p.origin], rank.get(p.obj.profile, 0)))
    formula_packs = [p.obj for p in chosen]
    # selections likewise: the shared ones, then those of each profile in the chain
    picks = [p for p in loaded if isinstance(p.obj, SelectionPack)
             and (p.obj.profile is None or p.obj.profile in rank)]
    picks.sort(key=lambda p: (origin_rank[p.origin], rank.get(p.obj.profile, 0)))
    graph, problems = build_graph(
        formula_packs,
        [p.obj for p in picks],
        [o for o in objs if isinstance(o, VerdictPack)],
        [o for o in objs if isinstance(o, InputPack)],
        [o for o in objs if isinstance(o, ArchitecturePack)])
    known = {**{n: f.definition.unit for n, f in graph.formulas.items()},
             **{n: i.definition.unit for n, i in graph.inputs.items()}}
    checks, check_problems = link_checks(
        [o for o in objs if isinstance(o, VerdictPack)], known)
    graph = attrs.evolve(graph, checks=checks)
    problems += check_problems
    for pack in loaded:
        if isinstance(pack.obj, ReportPack):
            problems += _report_names(pack.path, pack.obj, graph)
    return graph, problems


def _report_names(path: str, report: ReportPack, graph: FormulaGraph) -> list[Problem]:
    """The quantities and selections a report pack names exist in the profile's graph."""
    problems: list[Problem] = []

    def unknown(what: str, name: str, options: Iterable[str], *key: str | int) -> None:
        close = difflib.get_close_matches(name, sorted(options), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        problems.append(Problem(f"unknown {what} {name!r}{hint}", path,
                                report.pack.line_of(*key), ".".join(map(str, key))))

    for field in ("headline", "tco"):
        for role, name in getattr(report, field).items():
            if name not in graph.formulas:
                unknown("quantity", name, graph.formulas, field, role)
    for section, columns in report.columns.items():
        for role, name in columns.items():
            if name not in graph.formulas:
                unknown("quantity", name, graph.formulas, "columns", section, role)
    for field in ("pick_memory", "pick_price", "provider_hourly", "provider_monthly"):
        if getattr(report, field) not in graph.formulas:
            unknown("quantity", getattr(report, field), graph.formulas, field)
    if report.pick_devices not in graph.inputs:
        unknown("input", report.pick_devices, graph.inputs, "pick_devices")
    for index, slot in enumerate(report.recommendations):
        if slot.selection not in graph.selections:
            unknown("selection", slot.selection, graph.selections, "recommendations", index,
                    "selection")
        if slot.price not in graph.formulas:
            unknown("quantity", slot.price, graph.formulas, "recommendations", index, "price")
    for field in ("provider_selection", "finetune_recommendation"):
        name = getattr(report, field)
        if name is not None and name not in graph.selections:
            unknown("selection", name, graph.selections, field)
    problems += _saving_names(path, report, graph)
    slots = [slot.selection for slot in report.recommendations]
    if report.purchase_recommendation not in slots:
        unknown("recommendation slot", report.purchase_recommendation, slots,
                "purchase_recommendation")
    return problems


def _saving_names(path: str, report: ReportPack, graph: FormulaGraph) -> list[Problem]:
    """The KV tuning saving is a formula over ``standard.<quantity>`` and
    ``compressed.<quantity>``, the two variants the report evaluates it with."""
    key = ("kv_tuning", "saving", "expr")

    def problem(message: str) -> Problem:
        return Problem(message, path, report.pack.line_of(*key), ".".join(key))

    try:
        formula = parse_formula(report.kv_tuning.saving.expr)
    except FormulaSyntaxError as exc:
        return [problem(f"formula rejected: {exc}")]
    problems = []
    quantities = sorted({*graph.formulas, *graph.inputs})
    for ref in sorted(formula.refs):
        side, _, quantity = ref.partition(".")
        if side not in ("standard", "compressed") or not quantity:
            problems.append(problem(f"unknown name {ref!r}; the saving reads "
                                    "standard.<quantity> and compressed.<quantity>"))
        elif quantity not in quantities:
            close = difflib.get_close_matches(quantity, quantities, n=1)
            hint = f"; did you mean {side}.{close[0]}?" if close else ""
            problems.append(problem(f"unknown name {ref!r}{hint}"))
    return problems
