"""A scenario and an estimate on a machine of unlike devices (``--on rtx-5090,rtx-5080``).

:func:`machine_scenario` resolves the devices, asks the formula graph what memory each
reports, splits the model's layers as llama.cpp does (core/engine/machine.py) and resolves the
scenario on the machine as one hardware entity. :func:`machine_estimate_view` evaluates
the machine (speed, time to first token, cost) and each device on its own with its share
of the layers (weights, KV cache, buffers, verdict); the machine's verdict is the worst of
its devices', the formulas a pack marks ``per_device`` are listed device by device rather
than for the machine, and the launch command carries the engine's ``tensor_split_flag``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..errors import InputError
from ..registry.index import Registry
from ..registry.launch import launch_command
from ..views.estimate import DeviceShare, verdict_of
from ..views.results import EstimateView, Scenario
from .estimation import Batch, Estimate
from .machine import machine_devices, machine_registry, resolve_machine
from .scenario import figure_value, resolve_scenario

__all__ = ["MachineEstimate", "estimate_of", "explained", "machine_scenario",
           "one_kind_of_device"]


def machine_scenario(registry: Registry, hardware: str, *,
                     tensor_split: Sequence[float] | None = None,
                     inputs: Mapping[str, float | None] | None = None,
                     input_origins: Mapping[str, str] | None = None,
                     model: str | None = None, quant: str | None = None,
                     kv: str | None = None, engine: str | None = None,
                     workload: str | None = None, backend: str | None = None,
                     host: str | None = None) -> Scenario:
    """The scenario on the machine ``hardware`` lists (``rtx-5090,rtx-5080``), with the
    other selectors and inputs as :func:`~fitproof.engine.scenario.resolve_scenario` takes them."""
    def resolve(within: Registry, device: str, inputs: Mapping[str, float | None],
                origins: Mapping[str, str] | None) -> Scenario:
        return resolve_scenario(within, model=model, hardware=device, quant=quant, kv=kv,
                                engine=engine, workload=workload, host=host, inputs=inputs,
                                input_origins=origins, backend=backend)

    devices = machine_devices(hardware)
    if devices is None:
        raise InputError(f"--on {hardware!r} names one device; list several, comma-separated")
    given = {name: value for name, value in (inputs or {}).items() if value is not None}
    if "gpus" in given:
        raise InputError(f"--gpus: the devices --on {hardware!r} lists are the machine's; "
                         "leave out --gpus (repeat a device with NAME:N)")
    if "layer_share" in given:
        raise InputError("layer_share is set for each device of the machine; give the "
                         "proportions with --tensor-split")
    count = sum(n for _, n in devices)
    first = resolve(registry, devices[0][0], given, input_origins)
    spec = registry.engines[first.engine]
    if not spec.tensor_split_flag:
        able = sorted(e.name for e in registry.engines.values() if e.tensor_split_flag)
        raise InputError(
            f"{spec.name} cannot give unlike devices unlike shares of the model (its pack "
            f"states no tensor_split_flag): run it on devices of one kind (--on NAME "
            f"--gpus N){', or choose --engine ' + ' or '.join(able) if able else ''}")
    if first.inputs.get("split") == 1 or (math.isnan(first.inputs.get("split", math.nan))
                                          and spec.splits_tensors):
        raise InputError("a tensor split divides every layer evenly over the devices; a "
                         "machine of unlike devices is split by layers (--split layer)")
    ids = [registry.resolve("hardware", name) for name, _ in devices]
    per_kind = [first._replace(hardware=device, inputs={**first.inputs, "gpus": count})
                for device in dict.fromkeys(ids)]
    memory = Batch(registry, per_kind).values("device_memory_gib")
    model_spec = registry.models[first.model]
    layers = figure_value(model_spec.num_hidden_layers)
    if layers is None or any(m is None for m in memory):
        raise InputError(f"--on {hardware!r}: the split needs {model_spec.name}'s layer count "
                         "and each device's memory, and one is unknown")
    machine = resolve_machine(registry, devices, int(layers),
                              dict(zip(dict.fromkeys(ids), [m or 0.0 for m in memory])),
                              tensor_split)
    mixed = machine_registry(registry, machine)
    origins = {**(input_origins or {}), "gpus": f"--on {hardware} (the devices listed)"}
    resolved = resolve(mixed, machine.id, {**given, "gpus": count}, origins)
    return resolved._replace(machine=machine)


class MachineEstimate(Estimate):
    """The estimate of a scenario on a machine of unlike devices: the machine evaluated as
    one hardware entity (speed, time to first token, cost), each device on its own with its
    share of the layers (``devices``), the worst device's verdict, and no quantity a pack
    marks ``per_device`` (each device has its own)."""

    def __init__(self, registry: Registry, scenario: Scenario):
        machine = scenario.machine
        assert machine is not None
        mixed = machine_registry(registry, machine)
        super().__init__(mixed, scenario)
        engine = registry.engines[scenario.engine]
        self.devices, worst = _devices(registry, scenario, engine.name)
        rules = registry.graph.verdicts
        self.verdict = verdict_of(
            rules[worst].rule.id, rules[worst].rule.label, str(rules[worst].location),
            engine.name, mixed.hardware[machine.id].display_name, scenario.quant) \
            if worst >= 0 else None
        per_device = {name for name, node in mixed.graph.formulas.items()
                      if node.definition.per_device}
        self.quantities = {name: quantity for name, quantity in self.quantities.items()
                           if name not in per_device}
        self.launch = launch_command(mixed, scenario, engine, self.evaluation,
                                     tensor_split=machine.tensor_split())

    def view(self) -> EstimateView:
        return super().view()._replace(devices=self.devices, launch=self.launch)


def _devices(registry: Registry, scenario: Scenario, engine: str
             ) -> tuple[tuple[DeviceShare, ...], int]:
    """Each device of the machine evaluated with its share of the layers, and the index of
    the worst verdict rule any meets (-1 when one device's is unknown)."""
    machine = scenario.machine
    assert machine is not None
    shares = machine.shares()
    held = [i for i, share in enumerate(shares) if share > 0]
    rows = [scenario._replace(hardware=machine.devices[i], machine=None,
                              inputs={**scenario.inputs, "layer_share": shares[i]})
            for i in held]
    batch = Batch(registry, rows)
    rules = registry.graph.verdicts
    indices = batch.evaluation.verdict_index().tolist()

    def column(name: str) -> list[float | None]:
        return batch.values(name) if name in registry.graph.formulas else [None] * len(rows)

    figures = {name: column(name) for name in (
        "device_weights_gib", "device_kv_gib", "overhead_gib", "device_required_gib",
        "device_usable_gib")}
    devices = []
    for row, (i, index) in enumerate(zip(held, indices)):
        spec = registry.hardware[machine.devices[i]]
        verdict = verdict_of(rules[index].rule.id, rules[index].rule.label,
                             str(rules[index].location), engine, spec.display_name,
                             scenario.quant) if index >= 0 else None
        devices.append(DeviceShare(
            spec.id, spec.display_name, machine.layers[i],
            weights_gib=figures["device_weights_gib"][row],
            kv_gib=figures["device_kv_gib"][row], overhead_gib=figures["overhead_gib"][row],
            required_gib=figures["device_required_gib"][row],
            usable_gib=figures["device_usable_gib"][row], verdict=verdict))
    # the machine's verdict: the worst of its devices' (the first rule any device meets)
    worst = min(indices) if indices and min(indices) >= 0 else -1
    return tuple(devices), worst


def estimate_of(registry: Registry, scenario: Scenario) -> Estimate:
    """The estimate of ``scenario``: a :class:`MachineEstimate` on unlike devices."""
    return Estimate(registry, scenario) if scenario.machine is None else \
        MachineEstimate(registry, scenario)


def explained(registry: Registry, scenario: Scenario, quantity: str) -> Estimate:
    """The estimate ``fitproof explain`` derives ``quantity`` in: on a machine of unlike
    devices, the machine's, which has no figure of one device."""
    estimate = estimate_of(registry, scenario)
    node = estimate.registry.graph.formulas.get(quantity)
    if scenario.machine is not None and node is not None and node.definition.per_device:
        raise InputError(f"{quantity} is a figure of one device: fitproof estimate --on "
                         f"{','.join(scenario.machine.devices)} lists it device by device")
    return estimate


def one_kind_of_device(resolved: Scenario, command: str) -> None:
    """``solve`` and ``report`` search and compare devices of one kind: a machine of unlike
    devices is answered by ``estimate`` and ``explain``."""
    if resolved.machine is not None:
        raise InputError(f"fitproof {command} takes devices of one kind (--on NAME --gpus N); "
                         f"for the machine {resolved.hardware} use fitproof estimate or "
                         "fitproof explain")
