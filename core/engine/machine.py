"""Machines of unlike devices: ``--on rtx-5090,rtx-5080``.

llama.cpp splits a model over several devices by whole layers, in proportion to each
device's free memory or to the proportions ``--tensor-split`` gives. This module does what
the engine does with those proportions (which device holds which layer), then builds two
things the formula graph evaluates:

* each device on its own, holding its share of the layers (the ``layer_share`` input):
  its weights, KV cache, buffers and verdict, so the fit is judged device by device;
* the machine as one hardware entity whose figures follow from its devices' as the
  hardware schema's ``x-combine`` says: a token passes through each device's layers in
  turn, so the machine's bandwidth and compute rates are each device's weighted by its
  share of the layers (``1 / sum(share / rate)``), its memory, price and power are the
  devices' on average (times the device count, their total). Decode, prefill, time to
  first token and cost are that machine's.

The machine's verdict is the worst of its devices'. Engines whose pack states no
``tensor_split_flag`` cannot give unlike devices unlike shares and are refused.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..errors import InputError
from ..files.validation import load_schema
from ..registry.index import Registry
from ..specs import Figure, HardwareSpec
from ..specs.common import PackFile
from ..views.estimate import Machine, names_machine
from ..views.results import LoadedPack

__all__ = ["Machine", "machine_devices", "split_layers", "machine_registry", "MAX_DEVICES"]

MAX_DEVICES = 64  # devices a machine may list (a typo such as "x" * 10_000 is refused)
SPLIT_SOURCE = ("https://github.com/ggml-org/llama.cpp/blob/master/src/llama-model.cpp "
                "(load_tensors: 'default split, by free memory'; the split points are the "
                "running sums of the proportions over their total, as float; layer il goes to "
                "std::upper_bound(splits, float(il - i_gpu_start)/act_gpu_layers); the output "
                "layer counts as layer n_layer)")


def machine_devices(text: str | None) -> list[tuple[str, int]] | None:
    """The devices ``--on`` lists, as (name, count) in device order, or ``None`` for one
    name. ``rtx-5090,rtx-5080``; a count after a colon repeats a device
    (``rtx-3090:2,rtx-3060``)."""
    if text is None or not names_machine(text):
        return None
    devices: list[tuple[str, int]] = []
    for item in text.split(","):
        name, _, count_text = item.strip().partition(":")
        name = name.strip()
        if not name:
            raise InputError(f"--on {text!r}: an empty device name; list devices as "
                             "rtx-5090,rtx-5080 (a count after a colon: rtx-3090:2)")
        count = 1
        if count_text:
            if not count_text.strip().isdigit() or int(count_text) < 1:
                raise InputError(f"--on {text!r}: {count_text!r} is not a device count; "
                                 "write NAME:N with N a whole number of at least 1")
            count = int(count_text)
        devices.append((name, count))
    if sum(count for _, count in devices) > MAX_DEVICES:
        raise InputError(f"--on {text!r}: more than {MAX_DEVICES} devices")
    return devices


def split_layers(proportions: Sequence[float], n_layer: int) -> list[int]:
    """Layers each device holds when llama.cpp splits ``n_layer`` repeating layers and the
    output layer (counted as layer ``n_layer``) in these proportions, as the engine
    computes it: cumulative split points in 32-bit float, each layer to the first device
    whose split point is above the layer's position."""
    import numpy as np

    f32 = np.float32
    running, points = f32(0), []
    for share in proportions:
        running = f32(running + f32(share))
        points.append(running)
    points = [f32(point / running) for point in points]
    layers = [0] * len(proportions)
    for layer in range(n_layer + 1):
        position = f32(f32(layer) / f32(n_layer + 1))
        layers[min(bisect.bisect_right(points, position), len(points) - 1)] += 1
    return layers


def _word(value: Any) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _combined(rule: str, field: str, specs: Sequence[HardwareSpec],
              shares: Sequence[float], name: str) -> Any:
    """Field ``field`` of the machine from its devices' by schema rule ``rule``."""
    values = [getattr(spec, field) for spec in specs]
    if rule in ("same", "joined", "any"):
        if rule == "any":
            return any(values)
        if rule == "joined":
            words = list(dict.fromkeys(v for v in values if v))
            return " + ".join(str(w) for w in words) if words else None
        if len(set(values)) > 1:
            shown = ", ".join(f"{spec.name}: {_word(value)}"
                              for spec, value in zip(specs, values))
            raise InputError(f"{name}: the devices differ in {field} ({shown}); fitproof "
                             "models a split over devices that agree on it")
        return values[0]
    numbers = [v.value if isinstance(v, Figure) else v for v in values]
    if any(n is None for n in numbers):
        return None  # a device without the figure: the machine's is unknown
    if rule == "by-layer-share":
        used = [(s, n) for s, n in zip(shares, numbers) if s > 0]
        value = 1 / sum(s / n for s, n in used)
        how = "1 / (" + " + ".join(f"{s:.4g} / {n:g}" for s, n in used) + ")"
        why = "each device runs its share of the layers in turn"
    elif rule == "mean":
        value = sum(numbers) / len(numbers)
        how = "(" + " + ".join(f"{n:g}" for n in numbers) + f") / {len(numbers)}"
        why = "per device on average; times the device count, the machine's total"
    elif rule == "slowest":
        value, how, why = min(numbers), f"min({', '.join(f'{n:g}' for n in numbers)})", \
            "the slowest link between the devices"
    elif rule == "largest":
        value, how, why = max(numbers), f"max({', '.join(f'{n:g}' for n in numbers)})", \
            "the slowest link between the devices"
    else:  # a rule the schema names and this module does not know is a defect
        raise ValueError(f"unknown x-combine rule {rule!r} for hardware.{field}")
    sources: list[str] = []
    for spec, v in zip(specs, values):
        sources += [str(s) for s in (v.source if isinstance(v, Figure) and v.source
                                     else spec.source)]
    return Figure(value, tuple(dict.fromkeys(sources)),
                  f"{name}: {how} ({why}; schemas/hardware.schema.json x-combine: {rule})",
                  any(isinstance(v, Figure) and v.approximate for v in values) or
                  rule == "by-layer-share")


def machine_spec(registry: Registry, machine: Machine) -> HardwareSpec:
    """The machine as one hardware pack object, its figures combined from its devices'."""
    specs = [registry.hardware[device] for device in machine.devices]
    names = []
    for device in dict.fromkeys(machine.devices):
        count = machine.devices.count(device)
        names.append(f"{count}x {registry.hardware[device].name}" if count > 1
                     else registry.hardware[device].name)
    name = " + ".join(names)
    rules = {field: spec["x-combine"]
             for field, spec in load_schema("hardware")["properties"].items()}
    fields: dict[str, Any] = {}
    for field, rule in rules.items():
        if rule != "machine" and field not in ("name",):
            fields[field] = _combined(rule, field, specs, machine.shares(), name)
    vendor = fields.pop("vendor") or specs[0].vendor
    return attrs.evolve(specs[0], id=machine.id, name=name, vendor=vendor, aliases=(),
                        source=tuple(dict.fromkeys(str(s) for spec in specs
                                                   for s in spec.source)),
                        notes=(f"{name}: a machine of unlike devices, layers "
                               f"{machine.tensor_split()} ({SPLIT_SOURCE})",),
                        pack=PackFile(path=f"<machine {machine.id}>", origin="machine"),
                        **fields)


def machine_registry(registry: Registry, machine: Machine) -> Registry:
    """``registry`` with the machine as one more hardware entity (not a candidate of any
    selection: those pick among the packs' own devices)."""
    spec = machine_spec(registry, machine)
    pack = LoadedPack("hardware", spec.id, spec.name, spec.pack.path, "machine", spec)
    mixed = Registry((*registry.packs, pack), registry.graph, registry.warnings,
                     registry.profile)
    mixed.output_formats = registry.output_formats
    mixed._candidates = registry.candidates()
    return mixed


def resolve_machine(registry: Registry, devices: Sequence[tuple[str, int]], n_layer: int,
                    memory_gib: Mapping[str, float],
                    tensor_split: Sequence[float] | None) -> Machine:
    """The machine ``devices`` name, its layers split as llama.cpp splits them: in
    proportion to ``tensor_split`` when given (one figure per device), else to each
    device's memory (``memory_gib`` by hardware id: what the driver reports free)."""
    ids = tuple(registry.resolve("hardware", name) for name, count in devices
                for _ in range(count))
    if tensor_split is not None:
        if len(tensor_split) != len(ids):
            raise InputError(f"--tensor-split gives {len(tensor_split)} proportions for "
                             f"{len(ids)} devices; give one per device, in device order")
        if any(not math.isfinite(p) or p < 0 for p in tensor_split) or not sum(tensor_split):
            raise InputError("--tensor-split: proportions are numbers of at least 0, "
                             "not all 0")
        proportions = tuple(float(p) for p in tensor_split)
    else:
        proportions = tuple(memory_gib[device] for device in ids)
    layers = tuple(split_layers(proportions, n_layer))
    return Machine(ids, layers, n_layer, proportions, tensor_split is not None)
