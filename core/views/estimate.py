"""The values of one estimate: its scenario, its quantities, its verdict and the view a
renderer reads (``fitproof estimate``).

Apart from ``views/results.py``, which re-exports them, so that the snapshot path of a single
estimate builds these without creating every other view class. They are named tuples
(immutable, compared by value, cheap to define) rather than dataclasses, whose machinery
costs a single estimate more time than its arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ..specs import Location

SELECTORS = ("model", "hardware", "quant", "kv", "engine", "workload", "host")


def names_machine(hardware: str | None) -> bool:
    """Whether ``--on`` lists the devices of a machine (``rtx-5090,rtx-5080``, ``rtx-3090:2``)
    rather than naming one (core/engine/machine.py reads the list)."""
    return hardware is not None and ("," in hardware or ":" in hardware)


class Machine(NamedTuple):
    """A machine of unlike devices (``--on rtx-5090,rtx-5080``), resolved: hardware ids in
    device order and the layers each holds, as llama.cpp splits them (core/engine/machine.py)."""

    devices: tuple[str, ...]  # hardware ids, one per device, in device order
    layers: tuple[int, ...]  # layers each device holds (the last device the output layer)
    n_layer: int  # repeating layers of the model
    proportions: tuple[float, ...]  # what the split was made in proportion to
    given_split: bool  # the proportions came from --tensor-split

    @property
    def id(self) -> str:
        return "+".join(self.devices)

    def shares(self) -> tuple[float, ...]:
        """Each device's share of the layers (the output layer, one more on the last
        device, counted as one: its weights are the output head's)."""
        total = sum(self.layers)
        return tuple(layers / total for layers in self.layers)

    def tensor_split(self) -> str:
        """``--tensor-split``: each device's layers, which llama.cpp splits as they are."""
        return ",".join(str(layers) for layers in self.layers)


class Scenario(NamedTuple):
    """Every choice and input of one evaluation, resolved to pack ids and numbers."""

    model: str
    hardware: str
    quant: str
    kv: str
    engine: str
    workload: str
    host: str  # the machine whose memory holds offloaded weights (a cpu hardware pack)
    inputs: Mapping[str, float]
    origins: Mapping[str, Location] = {}  # where each choice and input came from; not compared
    backend: str | None = None  # the device's compute backend, when not its pack's own
    machine: Machine | None = None  # a machine of unlike devices (hardware is its id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields if f != "origins")

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal


    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form: the five ids, then every input."""
        result: dict[str, Any] = {key: getattr(self, key) for key in SELECTORS}
        if self.backend is not None:
            result["backend"] = self.backend
        if self.machine is not None:
            result["devices"] = list(self.machine.devices)
            result["layers"] = list(self.machine.layers)
            if self.machine.given_split:
                result["tensor_split"] = list(self.machine.proportions)
        for name, value in self.inputs.items():
            if math.isnan(value):
                result[name] = None
            else:
                result[name] = int(value) if float(value).is_integer() else value
        return result


class Quantity(NamedTuple):
    """A computed value (``None`` when it cannot be computed for this scenario)."""

    name: str
    value: float | None
    unit: str
    source: str
    description: str
    precision: int | None = None
    display: str = "number"
    approximate: bool = False


class Verdict(NamedTuple):
    id: str
    label: str
    source: str


def verdict_of(rule_id: str, label: str, source: str, engine: str, hardware: str,
               quant: str) -> Verdict:
    """The verdict of rule ``rule_id``, its label's ``{engine}``, ``{hardware}`` and
    ``{quant}`` filled with the scenario's names ("Not supported by vLLM on Apple M4 Max")."""
    from .message_format import fill

    return Verdict(rule_id, fill(label, {"engine": engine, "hardware": hardware,
                                         "quant": quant}), source)


class MeasuredRun(NamedTuple):
    """A public measurement of the scenario's model, format, device, engine and load: what
    was measured, what fitproof predicts for that same run, and where it was published."""

    metric: str  # decode_tps, prefill_tps, output_tps, tpot_ms, ttft_ms …
    value: float
    predicted: float | None  # the profile's figure for the run as measured
    prompt: int  # tokens before the measured ones: the depth decode ran at
    generate: int | None
    engine_version: str | None
    date: str | None
    source: str
    location: str  # file:line of the row
    apart: str | None = None  # why the run is outside what the profile models, if it is

    def to_dict(self) -> dict[str, Any]:
        return dict(self._asdict())


# what a measurement and a scenario must share for the one to be shown beside the other
MEASUREMENT_KEY_FIELDS = ("model", "hardware", "quant", "kv", "engine", "backend", "gpus",
                          "batch", "cpu_moe")


def measurement_key(model: str, hardware: str, quant: str, kv: str, engine: str,
                    backend: str | None, gpus: float, batch: float, cpu_moe: float) -> str:
    """The same model, device, format, KV type, engine, backend (``None``: the device's
    own) and device count, as many sequences in flight and no experts kept on the host
    (``MEASUREMENT_KEY_FIELDS``), as one string. The snapshot path reads the same keys
    (``fast/build.py``); :func:`key_setup` reads one back."""
    return "|".join((model, hardware, quant, kv, engine, backend or "",
                     f"{int(gpus)}", f"{int(batch)}", f"{int(cpu_moe or 0)}"))


def key_setup(key: str) -> dict[str, Any]:
    """The fields of a :func:`measurement_key`, by name (``backend`` ``None`` for the
    device's own, the counts as integers)."""
    setup: dict[str, Any] = dict(zip(MEASUREMENT_KEY_FIELDS, key.split("|")))
    setup["backend"] = setup["backend"] or None
    for count in ("gpus", "batch", "cpu_moe"):
        setup[count] = int(setup[count])
    return setup


def order_runs(runs: Sequence[MeasuredRun], prompt: float) -> tuple[MeasuredRun, ...]:
    """Each metric's run nearest the scenario's depth (``prompt``) first, by metric; then the
    rest by depth."""
    nearest = sorted(runs, key=lambda run: (abs(run.prompt - prompt), run.metric,
                                            run.location))
    first = {run.metric: run for run in reversed(nearest)}
    return (*sorted(first.values(), key=lambda run: run.metric),
            *(run for run in nearest if first[run.metric] is not run))


class Override(NamedTuple):
    """A built-in pack or formula a pack of another origin replaced (core/registry/overrides.py)."""

    what: str  # "hardware rtx-4090", "formula total_gib"
    location: str  # file:line of the replacement
    origin: str  # who gave it: --pack-dir, a plugin, FITPROOF_PACK_PATH, user packs
    replaced: str  # file:line of the built-in it replaced

    def to_dict(self) -> dict[str, str]:
        return self._asdict()


class DeviceShare(NamedTuple):
    """One device of a machine of unlike devices: the layers it holds, what it must hold
    and may fill, and its own verdict (the machine's is the worst of its devices')."""

    hardware: str  # hardware id
    name: str  # vendor and name
    layers: int  # layers it holds (the last device also the output layer)
    weights_gib: float | None
    kv_gib: float | None
    overhead_gib: float | None
    required_gib: float | None
    usable_gib: float | None
    verdict: Verdict | None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = self._asdict()
        result["verdict"] = self.verdict.id if self.verdict else None
        return result


class EstimateView(NamedTuple):
    """One evaluated scenario as a renderer sees it: names, quantities, verdict, picks."""

    scenario: Scenario
    model_name: str
    hardware_name: str
    engine_name: str
    host_name: str
    kv_from_budget: bool  # the engine turns its memory budget into KV cache (vLLM)
    quantities: Mapping[str, Quantity]
    verdict: Verdict | None
    unknown_cause: str | None  # why no verdict rule decided: "name is missing (file:line)"
    selections: Mapping[str, Mapping[str, Any]]
    hardware_unverified: bool = False  # the hardware pack has no public datasheet
    warnings: tuple[str, ...] = ()  # the verdicts pack's warnings that apply
    measured: tuple[MeasuredRun, ...] = ()  # public runs of this scenario, nearest depth first
    devices: tuple[DeviceShare, ...] = ()  # a machine of unlike devices, device by device
    launch: str | None = None  # the engine's launch command (a machine of unlike devices)
    overrides: tuple[Override, ...] = ()  # built-in packs and formulas packs replaced

    def value(self, name: str) -> float | None:
        quantity = self.quantities.get(name)
        return None if quantity is None else quantity.value

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``fitproof estimate --format json`` (see DESIGN.md)."""
        return {
            "scenario": self.scenario.to_dict(),
            "quantities": {
                name: {"value": q.value, "unit": q.unit, "source": q.source}
                for name, q in self.quantities.items()
            },
            "verdict": ({"id": self.verdict.id, "label": self.verdict.label,
                         "source": self.verdict.source} if self.verdict else
                        {"id": None, "label": "Unknown (missing figures)", "source": None}),
            "selections": {name: dict(picked) for name, picked in self.selections.items()},
            **({"hardware_unverified": True} if self.hardware_unverified else {}),
            "warnings": list(self.warnings),
            **({"measurements": [run.to_dict() for run in self.measured]}
               if self.measured else {}),
            **({"devices": [device.to_dict() for device in self.devices]}
               if self.devices else {}),
            **({"launch_command": self.launch} if self.launch else {}),
            "overrides": [override.to_dict() for override in self.overrides],
        }
