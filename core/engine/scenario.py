"""Scenarios: which model, hardware and settings to evaluate, resolved and checked."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..registry.index import Registry
from ..registry.input_checks import checked_input, tensor_split_problem
from ..registry.namespaces import FieldValue, hardware_backends
from ..specs import Location
from ..views.results import SELECTORS, Scenario
from .evaluator import ScenarioRow

__all__ = ["SELECTORS", "Scenario", "check_input", "figure_value", "input_default",
           "resolve_scenario", "scenario_row", "variant"]

def resolve_scenario(registry: Registry, *, model: str | None = None,
                     hardware: str | None = None, quant: str | None = None,
                     kv: str | None = None, engine: str | None = None,
                     workload: str | None = None, host: str | None = None,
                     base: str = "default", inputs: Mapping[str, float | None] | None = None,
                     input_origins: Mapping[str, str] | None = None,
                     backend: str | None = None) -> Scenario:
    """Fill a :class:`Scenario` from explicit choices, then scenario ``base``, then defaults.

    Names are resolved case-insensitively against ids and aliases. Raises
    :class:`~fitproof.errors.InputError` for unknown names and out-of-range inputs.
    """
    if base not in registry.scenarios:
        registry.resolve("scenario", base)  # raises with suggestions
    preset = registry.scenarios[base]
    chosen = {"model": model, "hardware": hardware, "quant": quant, "kv": kv, "engine": engine,
              "workload": workload, "host": host}
    resolved: dict[str, str] = {}
    origins: dict[str, Location] = {}
    # the workload comes first: it may imply the weight format (QLoRA trains 4-bit weights)
    for key in ("workload", *[k for k in SELECTORS if k != "workload"]):
        name = chosen[key]
        if name is None:
            implied = registry.workloads[resolved["workload"]].quant if key == "quant" else None
            source = preset if getattr(preset, key) else registry.scenarios["default"]
            name = implied or getattr(source, key)
            origins[key] = (registry.workloads[resolved["workload"]].pack.locate("quant")
                            if implied else source.pack.locate(key))
        resolved[key] = registry.resolve(key, name)

    engine_spec = registry.engines[resolved["engine"]]
    if engine_spec.kv_types and resolved["kv"] not in engine_spec.kv_types:
        supported = ", ".join(engine_spec.kv_types)
        raise InputError(f"{engine_spec.name} cannot store the KV cache as {resolved['kv']}; "
                         f"it supports {supported}")

    model_spec = registry.models[resolved["model"]]
    quant = _model_format(registry, resolved["model"], resolved["quant"])
    if quant != resolved["quant"]:  # "native": the format the checkpoint is stored in
        resolved["quant"] = quant
        origins["quant"] = model_spec.pack.locate("checkpoint_format")

    given = {k: v for k, v in (inputs or {}).items() if v is not None}
    unknown = sorted(set(given) - set(registry.graph.inputs))
    if unknown:
        raise InputError(f"unknown input {unknown[0]!r}; inputs are "
                         f"{', '.join(registry.graph.inputs)}")
    values: dict[str, float] = {}
    for name, node in registry.graph.inputs.items():
        definition = node.definition
        value: float | None
        if name in given:
            value = given[name]
            origins[name] = Location((input_origins or {}).get(name, "given"), None)
        else:
            value, origins[name] = input_default(registry, name, base)
            capped = _default_cap(model_spec, definition.default_at_most, value)
            if capped is not None:
                value, origins[name] = capped
        values[name] = math.nan if value is None else checked_input(name, value, definition)
    _check_tensor_split(registry, resolved, values)
    if backend is not None:
        backend = _check_backend(backend)
        if backend == registry.hardware[resolved["hardware"]].backend:
            backend = None
        else:
            origins["backend"] = Location("given", None)
    return Scenario(resolved["model"], resolved["hardware"], resolved["quant"], resolved["kv"],
                    resolved["engine"], resolved["workload"], resolved["host"],
                    inputs=values, origins=origins, backend=backend)


def _model_format(registry: Registry, model: str, quant: str) -> str:
    """Weight format ``quant`` as model ``model`` is stored in it: a checkpoint-sized
    format ("native") is the model's checkpoint format. Raises InputError when the format
    cannot hold the model (experts-only formats on a dense model)."""
    model_spec = registry.models[model]
    fmt = registry.quant_formats[quant][0]
    if fmt.size_basis == "checkpoint" and model_spec.checkpoint_format:
        quant = model_spec.checkpoint_format
        fmt = registry.quant_formats[quant][0]
    if fmt.requires_experts and not figure_value(getattr(model_spec, "num_experts", None)):
        raise InputError(f"{quant} quantizes only the routed experts, and "
                         f"{model_spec.name} has none; choose a format for dense models")
    return quant


def variant(registry: Registry, scenario: Scenario, *, hardware: str | None = None,
            quant: str | None = None, inputs: Mapping[str, float] | None = None) -> Scenario:
    """``scenario`` with another hardware pack, weight format or input values (ids, not
    names), checked as :func:`resolve_scenario` checks: raises InputError when the
    variant is not a valid scenario (an input out of range, an uneven tensor split)."""
    values = dict(scenario.inputs)
    for name, value in (inputs or {}).items():
        values[name] = check_input(registry, name, value)
    chosen_quant = _model_format(registry, scenario.model, quant or scenario.quant)
    _check_tensor_split(registry, {"model": scenario.model, "engine": scenario.engine}, values)
    return scenario._replace(inputs=values, hardware=hardware or scenario.hardware,
                             quant=chosen_quant)


def _check_backend(name: str) -> str:
    """A compute backend name as hardware packs spell it (cuda, rocm, metal, vulkan, ...)."""
    choices = hardware_backends()
    wanted = name.strip().lower()
    if wanted not in choices:
        raise InputError(f"unknown backend {name!r}; choose from {', '.join(choices)}")
    return wanted



def _check_tensor_split(registry: Registry, resolved: Mapping[str, str],
                        values: Mapping[str, float]) -> None:
    """A tensor-parallel split must divide the attention heads evenly among the devices."""
    engine = registry.engines[resolved["engine"]]
    model = registry.models[resolved["model"]]
    problem = tensor_split_problem(values, engine.splits_tensors,
                                   figure_value(getattr(model, "num_attention_heads", None)),
                                   model.name)
    if problem:
        raise InputError(problem)


def figure_value(value: Any) -> float:
    """The number of a pack field that may be a plain number or a sourced figure."""
    return float(getattr(value, "value", value) or 0)


def input_default(registry: Registry, name: str, base: str = "default"
                  ) -> tuple[float | None, Location]:
    """Input ``name`` when not given: scenario ``base``'s value, else the input's own
    default; and where that value is written."""
    preset = registry.scenarios[base]
    if name in preset.inputs:
        return preset.inputs[name], preset.pack.locate("inputs", name)
    node = registry.graph.inputs[name]
    return node.definition.default, node.at


def _default_cap(model: Any, field: str | None, value: float | None
                 ) -> tuple[float, Location] | None:
    """A default above the model pack field ``field`` (``model.max_position_embeddings``)
    names: that field's value, and where it is written; else ``None``."""
    if field is None or value is None:
        return None
    cap = figure_value(getattr(model, field.partition(".")[2], None))
    if not cap or value <= cap:
        return None
    return cap, model.pack.locate(field.partition(".")[2])


def check_input(registry: Registry, name: str, value: Any) -> float:
    """Input ``name`` given as ``value``, checked against its definition (raises
    :class:`~fitproof.errors.InputError` out of range)."""
    return checked_input(name, value, registry.graph.inputs[name].definition)


_CHOSEN = len(SELECTORS)
assert Scenario._fields[:_CHOSEN] == SELECTORS  # scenario[:_CHOSEN] are its choices


def scenario_row(registry: Registry, scenario: Scenario,
                 bound: dict[Any, Any] | None = None) -> ScenarioRow:
    """Bind a scenario's packs and inputs for evaluation. ``bound`` (shared by the rows of
    one batch, while its scenarios are alive) keeps one binding per set of choices and one
    per inputs object, so that scenarios sharing them share the bound values."""
    memo: dict[Any, Any] = {} if bound is None else bound
    by_choices: dict[Any, Any] = memo.setdefault("choices", {})
    by_inputs: dict[Any, Any] = memo.setdefault("inputs", {})
    fields: dict[Any, Any] = memo.setdefault("fields", {})
    choices = (scenario[:_CHOSEN], scenario.backend)  # the selectors lead the fields
    entities = by_choices.get(choices)
    if entities is None:
        entities = {key: registry.entity(key, getattr(scenario, key)) for key in SELECTORS}
        if scenario.backend is not None:
            entities["hardware"] = registry.hardware_on_backend(scenario.hardware,
                                                                scenario.backend)
        by_choices[choices] = entities
    given = (id(scenario.inputs), id(scenario.origins))
    inputs = by_inputs.get(given)
    if inputs is None:
        inputs = by_inputs[given] = {}
        for name, value in scenario.inputs.items():
            origin = scenario.origins.get(name)
            key = (name, value, origin)
            field = fields.get(key)
            if field is None:
                node = registry.graph.inputs[name]
                field = fields[key] = FieldValue(name, float(value), node.definition.unit,
                                                origin or node.at, node.definition.source)
            inputs[name] = field
    return ScenarioRow(entities, inputs)
