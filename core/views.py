"""Plain values the layers hand each other: scenarios, quantities, verdicts, and the views
renderers read.

Nothing here evaluates anything or knows the registry: the API builds these objects and a
renderer (``renderers/``, or an output format a plugin registers) turns one into text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from typing import TYPE_CHECKING

import attrs

from .errors import Problem

if TYPE_CHECKING:
    from .derivation import Derivation
    from .specs import Location, MeasurementRow

SELECTORS = ("model", "hardware", "quant", "kv", "engine", "workload", "host")


@attrs.frozen
class Scenario:
    """Every choice and input of one evaluation, resolved to pack ids and numbers."""

    model: str
    hardware: str
    quant: str
    kv: str
    engine: str
    workload: str
    host: str  # the machine whose memory holds offloaded weights (a cpu hardware pack)
    inputs: Mapping[str, float]
    origins: Mapping[str, Location] = attrs.field(factory=dict, eq=False)
    backend: str | None = None  # the device's compute backend, when not its pack's own

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form: the five ids, then every input."""
        result: dict[str, Any] = {key: getattr(self, key) for key in SELECTORS}
        if self.backend is not None:
            result["backend"] = self.backend
        for name, value in self.inputs.items():
            if math.isnan(value):
                result[name] = None
            else:
                result[name] = int(value) if float(value).is_integer() else value
        return result


@attrs.frozen
class Quantity:
    """A computed value (``None`` when it cannot be computed for this scenario)."""

    name: str
    value: float | None
    unit: str
    source: str
    description: str
    precision: int | None = None
    display: str = "number"
    approximate: bool = False


@attrs.frozen
class Verdict:
    id: str
    label: str
    source: str


@attrs.frozen
class LoadedPack:
    """A pack as ``packs list`` shows it."""

    kind: str
    id: str
    name: str
    path: str
    origin: str
    obj: Any = attrs.field(eq=False, repr=False)
    replaces: tuple["LoadedPack", ...] = attrs.field(default=(), eq=False, repr=False)

    @property
    def override_line(self) -> int | None:
        pack = getattr(self.obj, "pack", None)
        return pack.line_of("override") if pack is not None else None


@attrs.frozen
class ModelFit:
    """One model on one accelerator: its size, memory, headroom, speed and verdict."""

    model: str
    name: str
    family: str
    params_total: float | None
    params_active: float | None
    weights_gib: float | None
    total_gib: float | None
    headroom_gib: float | None
    decode_tps: float | None
    verdict: Verdict | None

    @property
    def fits(self) -> bool:
        return self.verdict is not None and self.verdict.id != "exceeds"


@attrs.frozen
class Scored:
    """One measurement and what the profile predicts for it."""

    row: MeasurementRow
    location: str
    group: tuple[str, ...]
    predicted: float | None

    @property
    def ratio(self) -> float | None:
        return None if self.predicted is None else self.predicted / self.row.value

    @property
    def ape(self) -> float | None:
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1)


@attrs.frozen
class GroupScore:
    group: tuple[str, ...]
    count: int
    unknown: int
    mape: float | None
    median_ape: float | None
    median_ratio: float | None


@attrs.frozen
class Accuracy:
    profile: str | None
    group_by: tuple[str, ...]
    rows: tuple[Scored, ...]
    groups: tuple[GroupScore, ...]

    def worst(self, n: int = 5) -> list[Scored]:
        known = [s for s in self.rows if s.ape is not None]
        return sorted(known, key=lambda s: s.ape or 0.0, reverse=True)[:n]


@attrs.frozen
class FileResult:
    path: str
    kind: str | None
    id: str | None
    problems: tuple[Problem, ...]


@attrs.frozen
class ValidationReport:
    """Per-file results, then problems found when the files join the installed packs."""

    files: tuple[FileResult, ...]
    context: tuple[Problem, ...]
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.context and not self.warnings and all(not f.problems for f in self.files)


@attrs.frozen
class EstimateView:
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
        }


@attrs.frozen
class DerivationView:
    """``fitproof explain``: one quantity's derivation, and how deep to print it."""

    derivation: Derivation
    depth: int | None = None


@attrs.frozen
class ModelsView:
    """``fitproof models``: the matching models, evaluated on ``hardware_name`` if given."""

    rows: tuple[ModelFit, ...]
    hardware_name: str | None = None


@attrs.frozen
class PacksView:
    """``fitproof packs list``: the loaded packs, in load order."""

    packs: tuple[LoadedPack, ...]


@attrs.frozen
class PackView:
    """``fitproof packs show``: one pack, what it replaced, and its fields by line."""

    pack: LoadedPack


@attrs.frozen
class SweepView:
    """One row per scenario of a sweep, by column: the ids and swept inputs, the verdict,
    every headline quantity (``units`` gives each one's unit) and, for a combination that
    could not be evaluated, the reason."""

    columns: tuple[str, ...]
    units: Mapping[str, str]
    data: Mapping[str, list[Any]]

    @property
    def rows(self) -> int:
        return len(self.data[self.columns[0]]) if self.columns else 0

    def plain(self, name: str) -> list[Any]:
        """Column ``name`` with an unknown number (NaN) as None, for formats without NaN."""
        return [None if isinstance(v, float) and not math.isfinite(v) else v
                for v in self.data[name]]
