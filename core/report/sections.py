"""The sizing report: every section of the seed pages, built from evaluated quantities.

The report only gathers what the formula graph computed for a set of scenario variants
(the scenario itself, every accelerator, every quantization, every fine-tuning workload,
each context window); renderers in ``renderers/report_*.py`` turn it into text. Which
variants each section shows is data (``packs/reports/``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable

import numpy as np

from ..engine.estimation import Estimate
from ..engine.evaluator import Evaluation
from ..engine.scenario import Scenario
from ..errors import InputError
from ..formula.compiled import compile_tree
from ..formula.parser import parse_formula
from ..registry.index import Registry
from ..registry.launch import engine_kv_flag, launch_command
from ..specs import EngineSpec, HardwareSpec, ReportPack
from ..views.report import (Cell, ContextRow, FineTuneRow, HardwareRow, KVTuning, ModelRow, Pick,
                            ProviderRow, QuantRow, Report, ReportView, Skipped)
from .plan import Plan, Variants, cell_of, pick_of, spec_of
from .variants import applicable, compare_contexts, refusals, variant


def _recommendation(spec: ReportPack) -> str:
    """The selection whose pick each fine-tuning and quantization row shows."""
    return spec.finetune_recommendation or spec.purchase_recommendation


def build_report(registry: Registry, scenario: Scenario) -> Report:
    """Evaluate every section of the sizing report for ``scenario``."""
    spec = spec_of(registry)
    estimate = Estimate(registry, scenario)
    evaluation = estimate.evaluation
    headline = {role: cell_of(registry, name, estimate.value(name))
                for role, name in spec.headline.items()}
    headline.update({role: cell_of(registry, name, estimate.value(name))
                     for role, name in spec.bands.items() if name in estimate.quantities})
    picks = tuple(pick_of(registry, evaluation, slot.selection, slot.price, 0)
                  for slot in spec.recommendations)
    tco = {role: cell_of(registry, name, estimate.value(name)) for role, name in spec.tco.items()}
    best_single = next((p for p in picks if p.slot == spec.purchase_recommendation), None)
    # what a number is priced on is named after the selection it reads: the cost per 1M
    # tokens after its offer, the break-even after the devices bought (none: the scenario's)
    cost_pick = _pick_behind(registry, evaluation, spec.headline["cost_per_mtok"])
    purchase_pick = _pick_behind(registry, evaluation, spec.tco["purchase"])
    # every section's variants in one batch
    plan = Plan(registry)
    skipped: list[Skipped] = []  # rows a section leaves out, each with why
    finetune = _finetune(registry, scenario, plan, skipped)
    quantizations = _quantizations(registry, scenario, plan, skipped)
    kv_tuning = _kv_tuning(registry, scenario, plan, skipped)
    contexts = _contexts(registry, scenario, plan, skipped)
    compatibility = _compatibility(registry, scenario, plan, skipped)
    other_models = _other_models(registry, scenario, plan, skipped)
    launch = _launch(registry, scenario, estimate, plan)
    plan.run()
    return Report(
        scenario=scenario, estimate=estimate.view(), headline=headline, picks=picks,
        launch=launch(), providers=_providers(registry, estimate),
        tco=tco, best_single=best_single, cost_pick=cost_pick, purchase_pick=purchase_pick,
        provider_rule=_provider_rule(registry, evaluation, spec.provider_selection),
        finetune=finetune(), kv_tuning=kv_tuning(),
        contexts=contexts(), compatibility=compatibility(),
        compare_contexts=compare_contexts(registry, scenario), quantizations=quantizations(),
        other_models=other_models(), skipped=tuple(skipped))


def report_view(registry: Registry, report: Report, *, preselected: bool = False) -> ReportView:
    """``report`` with the pack facts its text names, for the renderers."""
    scenario = report.scenario
    workload = registry.workloads.get(scenario.workload)
    return ReportView(
        report=report, model=registry.models[scenario.model],
        quant=registry.quant_formats[scenario.quant][0], hardware=dict(registry.hardware),
        accelerators=tuple(registry.accelerators), providers=dict(registry.providers),
        kv_label=registry.kv_types[scenario.kv][0].label or scenario.kv,
        engine_name=registry.engines[scenario.engine].name,
        workload_name=workload.name if workload is not None else scenario.workload,
        catalogs=dict(registry.catalogs), number_style=number_style(registry),
        preselected=preselected, family_name=_family_name(registry, scenario.model))


def _family_name(registry: Registry, model: str) -> str:
    """The name of the model's architecture family pack ("Full attention (GQA, MHA)")."""
    family = registry.models[model].family or ""
    pack = registry.by_kind.get("architecture", {}).get(family)
    return getattr(pack, "name", family) if pack is not None else family


def preselect_hardware(registry: Registry, scenario: Scenario) -> Scenario:
    """``scenario`` on the accelerator the report pack's purchase recommendation picks for
    it (the seed pages' model page without a chosen accelerator: the best single GPU),
    or unchanged where nothing qualifies."""
    spec = spec_of(registry)
    pick = Estimate(registry, scenario).view().selections.get(spec.purchase_recommendation, {})
    chosen = registry.graph.selections.get(spec.purchase_recommendation)
    if not pick.get("id") or chosen is None or chosen.definition.candidates != "hardware":
        return scenario
    return variant(registry, scenario, hardware=pick["id"])


def number_style(registry: Registry) -> str:
    """How the registry's profile writes numbers: its own ``number_style``, else that of
    the profile it extends, else ``locale``."""
    profile = registry.profiles.get(registry.profile or "")
    seen = set()
    while profile is not None and profile.id not in seen:
        if profile.number_style:
            return profile.number_style
        seen.add(profile.id)
        profile = registry.profiles.get(profile.extends or "")
    return "locale"


def _pick_behind(registry: Registry, evaluation: Evaluation, name: str) -> Pick | None:
    """The pick of the selection quantity ``name`` is computed from (the offer a cost is
    priced on, the devices a break-even buys), or ``None`` when it reads no selection."""
    graph = registry.graph
    spec = spec_of(registry)
    for read in sorted({name} | graph.reads(name)):
        picked = graph.picked_quantity(read)
        selection = graph.selection_of(read) or (picked[0] if picked else None)
        if selection is not None:
            offers = graph.selections[selection].definition.candidates == "offers"
            return pick_of(registry, evaluation, selection,
                           spec.provider_hourly if offers else spec.pick_price, 0)
    return None


def _launch(registry: Registry, scenario: Scenario, estimate: Estimate, plan: Plan
            ) -> Callable[[], tuple[tuple[str, str], ...]]:
    """Each engine's launch command: for the scenario's own engine from its estimate, for
    the others from a variant (that engine, a KV precision it stores) in the report's batch."""
    def stores(engine: EngineSpec) -> bool:  # an engine that names no KV types takes any
        return not engine.kv_types or scenario.kv in engine.kv_types

    engines = sorted(registry.engines.values(), key=lambda e: e.id)
    refused: dict[str, str] = {}  # another engine the scenario's checks refuse (a split)
    refusals: list[Skipped] = []
    others = [e for e in engines if e.id != scenario.engine or not stores(e)]
    others, variants = applicable(
        registry, scenario, "launch",
        [(e, e.id, {"engine": e.id, "kv": scenario.kv if stores(e) else next(iter(e.kv_types))})
         for e in others], refusals)
    refused.update((s.name, s.reason) for s in refusals)
    rows = plan.add("launch", variants, picks=True) if variants else None

    def commands() -> tuple[tuple[str, str], ...]:
        found = []
        position = {e.id: i for i, e in enumerate(others)}
        for engine in engines:
            if engine.id in refused:  # a note, not a command that would fail
                found.append((engine.name, "\n".join(
                    f"# {line}" for line in textwrap.wrap(
                        f"Not available: {refused[engine.id]}", 76))))
                continue
            if engine.id in position and rows is not None:
                i = position[engine.id]
                command = launch_command(registry, variants[i], engine,
                                         plan.batch.evaluation, rows.start + i)
            else:
                command = launch_command(registry, scenario, engine, estimate.evaluation)
            if command:
                found.append((engine.name, command))
        return tuple(found)
    return commands


def _provider_rule(registry: Registry, evaluation: Evaluation, selection: str) -> str | None:
    """The profile's name where the provider selection does not keep to the scenario's
    hardware (its ``match`` names none)."""
    definition = evaluation.graph.selections[selection].definition
    if "hardware" in definition.match:
        return None
    profile = registry.profiles.get(registry.profile or "")
    return (profile.name or profile.id) if profile else "default"


def _providers(registry: Registry, estimate: Estimate) -> tuple[ProviderRow, ...]:
    spec = spec_of(registry)
    evaluation = estimate.evaluation
    result = evaluation.select(spec.provider_selection)
    choices = result.group_choices(0)
    offers = evaluation.over(spec.provider_selection)
    # each provider's pick, evaluated as a candidate of the selection (first row)
    columns = {name: offers.values_of(name)[0]
               for name in (spec.provider_hourly, spec.provider_monthly, spec.pick_memory,
                            spec.pick_devices)}

    def cell(name: str, index: int | None) -> Cell:
        value = float(columns[name][index]) if index is not None else None
        return cell_of(registry, name, value)

    rows = []
    for provider in sorted(registry.providers.values(), key=lambda p: (p.rank or 10**6, p.id)):
        choice = choices.get(provider.id)
        index = result.candidates.index(choice) if choice is not None else None
        for listing in provider.listings or (None,):
            name = listing.name if listing else provider.name
            memory = offer_id = hardware_id = checked = None
            devices, tiers = 0, tuple[str, ...]()
            if choice is not None and index is not None:
                offer = choice.entities["offer"].obj
                tiers = tuple(t for t in (offer.tier, listing.tier_suffix if listing else None)
                              if t)
                offer_id, hardware_id = choice.id, choice.entities["hardware"].obj.id
                checked = offer.checked or provider.checked
                devices = int(columns[spec.pick_devices][index])
                memory = float(columns[spec.pick_memory][index])
            rows.append(ProviderRow(
                name, provider.id, offer_id, hardware_id, devices, tiers, memory,
                cell(spec.provider_hourly, index), cell(spec.provider_monthly, index),
                provider.billing, checked, (listing.url if listing else None) or provider.url))
    return tuple(rows)


def _finetune(registry: Registry, scenario: Scenario, plan: Plan, skipped: list[Skipped]
              ) -> Callable[[], tuple[FineTuneRow, ...]]:
    spec = spec_of(registry)
    workloads, scenarios = applicable(
        registry, scenario, "finetune",
        [(w, registry.workloads[w].name, {"workload": w, "quant": None})
         for w in spec.finetune_workloads if w in registry.workloads], skipped)
    variants = plan.add("finetune", scenarios, picks=True)
    return lambda: _finetune_rows(registry, workloads, variants)


def _finetune_rows(registry: Registry, workloads: list[str], variants: Variants
                   ) -> tuple[FineTuneRow, ...]:
    spec = spec_of(registry)
    rows = []
    for row, workload in enumerate(workloads):
        spec_w = registry.workloads[workload]
        rows.append(FineTuneRow(
            workload, spec_w.label or spec_w.name, **variants.columns("finetune", row),
            verdict=variants.verdict(row),
            recommended=variants.pick(_recommendation(spec), spec.pick_price, row)))
    return tuple(rows)


def _kv_tuning(registry: Registry, scenario: Scenario, plan: Plan, skipped: list[Skipped]
               ) -> Callable[[], KVTuning | None]:
    spec = spec_of(registry)
    tuning = spec.kv_tuning
    small, large = compare_contexts(registry, scenario)
    engine = next((e for e in registry.engines.values() if tuning.compressed_kv in e.kv_types),
                  None)
    if engine is None:
        return lambda: None
    try:
        scenarios = [variant(registry, scenario, inputs={"context": small}),
                     variant(registry, scenario, inputs={"context": large}),
                     variant(registry, scenario, inputs={"context": large},
                              kv=tuning.compressed_kv, engine=engine.id)]
    except InputError as error:  # a split the engine refuses
        skipped.append(Skipped("kv_tuning", f"{engine.name} {tuning.compressed_kv}", str(error)))
        return lambda: None
    refusal = next((r for r in refusals(registry, scenarios) if r is not None), None)
    if refusal is not None:  # a context the model was not trained for
        skipped.append(Skipped("kv_tuning", f"{engine.name} {tuning.compressed_kv}", refusal))
        return lambda: None
    variants = plan.add("kv_tuning", scenarios)
    return lambda: _kv_tuning_rows(registry, variants, (small, large))


def _kv_tuning_rows(registry: Registry, variants: Variants, contexts: tuple[int, int]
                    ) -> KVTuning:
    spec = spec_of(registry)
    tuning = spec.kv_tuning
    small, large = contexts
    formula = parse_formula(tuning.saving.expr)
    env = {}
    for ref in formula.refs:
        side, _, quantity = ref.partition(".")
        row = 1 if side == "standard" else 2
        env[ref] = np.asarray([variants.value(quantity, row)], dtype=float)
    saving = float(compile_tree(formula.tree)(env).reshape(-1)[0])
    flags = []
    for engine_id, kv in tuning.engine_kv.items():
        if engine_id in registry.engines:
            flag = engine_kv_flag(registry.engines[engine_id], kv)
            if flag:
                flags.append((registry.engines[engine_id].name, flag))
    cells = [variants.columns("kv_tuning", row) for row in range(3)]
    return KVTuning(
        (small, large), (cells[0]["kv_cache"], cells[1]["kv_cache"]),
        (cells[0]["total"], cells[1]["total"]), tuning.compressed_kv,
        cells[2]["kv_cache"], cells[2]["total"],
        Cell(saving if np.isfinite(saving) else None, tuning.saving.unit, "kv_saving",
             tuning.saving.precision), tuning.saving.expr, tuple(flags))


def _contexts(registry: Registry, scenario: Scenario, plan: Plan, skipped: list[Skipped]
              ) -> Callable[[], tuple[ContextRow, ...]]:
    windows = list(spec_of(registry).context_windows)
    model = registry.models[scenario.model]
    if model.max_position_embeddings is not None:
        longest = int(model.max_position_embeddings.value)
        windows = [w for w in windows if w <= longest]
        if longest not in windows:
            windows.append(longest)
        # the compared contexts have rows too (a 4K model compares 2K and 4K)
        windows = sorted(set(windows) | set(compare_contexts(registry, scenario)))
    windows, scenarios = applicable(
        registry, scenario, "contexts",
        [(w, f"{w:,}", {"inputs": {"context": w}}) for w in windows], skipped)
    variants = plan.add("contexts", scenarios)
    return lambda: tuple(ContextRow(w, **variants.columns("contexts", i),
                                    verdict=variants.verdict(i))
                         for i, w in enumerate(windows))


def _compatibility(registry: Registry, scenario: Scenario, plan: Plan, skipped: list[Skipped]
                   ) -> Callable[[], tuple[HardwareRow, ...]]:
    contexts = compare_contexts(registry, scenario)
    ordered = sorted(registry.accelerators.values(),
                     key=lambda h: (h.vendor, h.memory_gb.value, h.memory_bandwidth_gbs.value,
                                    h.id))
    # an accelerator is a row when the scenario applies to it at every compared context
    hardware, _ = applicable(
        registry, scenario, "compatibility",
        [(h, h.display_name, {"hardware": h.id, "inputs": {"context": max(contexts)}})
         for h in ordered], skipped)
    variants = plan.add("compatibility",
                        [variant(registry, scenario, hardware=h.id, inputs={"context": c})
                         for c in contexts for h in hardware])
    return lambda: _compatibility_rows(hardware, len(contexts), variants)


def _compatibility_rows(hardware: list[HardwareSpec], contexts: int, variants: Variants
                        ) -> tuple[HardwareRow, ...]:
    count = len(hardware)
    rows = []
    for i, h in enumerate(hardware):
        cells = variants.columns("compatibility", i)
        totals = tuple(variants.columns("compatibility", k * count + i)["total_gib"]
                       for k in range(contexts))
        rows.append(HardwareRow(
            h.id, h.display_name, cells["physical_gb"], cells["usable_gib"],
            h.memory_bandwidth_gbs.value, totals, cells["decode_tps"], variants.verdict(i)))
    return tuple(rows)


def _quantizations(registry: Registry, scenario: Scenario, plan: Plan, skipped: list[Skipped]
                   ) -> Callable[[], tuple[QuantRow, ...]]:
    spec = spec_of(registry)
    formats, scenarios = applicable(
        registry, scenario, "quantizations",
        [(q, q, {"quant": q}) for q in spec.quantizations if q in registry.quant_formats],
        skipped)
    variants = plan.add("quantizations", scenarios, picks=True)
    return lambda: _quantization_rows(registry, formats, variants)


def _quantization_rows(registry: Registry, formats: list[str], variants: Variants
                       ) -> tuple[QuantRow, ...]:
    spec = spec_of(registry)
    rows = []
    for i, quant in enumerate(formats):
        fmt = registry.quant_formats[quant][0]
        rows.append(QuantRow(
            quant, fmt.label or quant, fmt.size_basis, **variants.columns("quantizations", i),
            verdict=variants.verdict(i),
            recommended=variants.pick(_recommendation(spec), spec.pick_price, i)))
    return tuple(rows)


def _other_models(registry: Registry, scenario: Scenario, plan: Plan, skipped: list[Skipped]
                  ) -> Callable[[], tuple[ModelRow, ...]]:
    """The other models on this hardware (same format, context and inputs): those whose
    ``fits`` column is true first, then by the ``size`` column, largest first (the report
    pack names both quantities)."""
    models, scenarios = applicable(
        registry, scenario, "other_models",
        [(m, registry.models[m].name, {"model": m})
         for m in sorted(registry.models) if m != scenario.model], skipped)
    variants = plan.add("other_models", scenarios)

    def rows() -> tuple[ModelRow, ...]:
        built = []
        for i, model in enumerate(models):
            cells = variants.columns("other_models", i)
            size, fits = cells.pop("size").value, cells.pop("fits").value
            order = (not fits, -(size if size is not None else -math.inf), model)
            built.append((order, ModelRow(model, registry.models[model].name, **cells,
                                          verdict=variants.verdict(i))))
        return tuple(row for _, row in sorted(built, key=lambda pair: pair[0]))
    return rows