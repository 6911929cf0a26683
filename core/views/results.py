"""Plain values the layers hand each other: scenarios, quantities, verdicts, and the views
renderers read.

Nothing here evaluates anything or knows the registry: the API builds these objects and a
renderer (``renderers/``, or an output format a plugin registers) turns one into text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import Problem
# the values of one estimate live apart (views/estimate.py) and are views like the rest
from .estimate import EstimateView as EstimateView
from .estimate import MeasuredRun as MeasuredRun
from .estimate import Override as Override
from .estimate import Quantity as Quantity
from .estimate import SELECTORS as SELECTORS
from .estimate import Scenario as Scenario
from .estimate import Verdict as Verdict
from .estimate import key_setup as key_setup
from .estimate import measurement_key as measurement_key
from .estimate import names_machine as names_machine
from .estimate import order_runs as order_runs

if TYPE_CHECKING:
    from ..engine.derivation import Derivation
    from ..specs import CalibrationScore, HeldOutAccuracy, Location, MeasurementRow


@dataclass(frozen=True, slots=True)
class LoadedPack:
    """A pack as ``packs list`` shows it."""

    kind: str
    id: str
    name: str
    path: str
    origin: str
    obj: Any = field(compare=False, repr=False)
    replaces: tuple["LoadedPack", ...] = field(default=(), compare=False, repr=False)

    @property
    def override_line(self) -> int | None:
        pack = getattr(self.obj, "pack", None)
        return pack.line_of("override") if pack is not None else None


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Scored:
    """One measurement and what the profile predicts for it."""

    row: MeasurementRow
    location: str
    group: tuple[str, ...]
    predicted: float | None
    outside: str | None = None  # why the profile's scenario is not the row's workload

    @property
    def ratio(self) -> float | None:
        return None if self.predicted is None else self.predicted / self.row.value

    @property
    def ape(self) -> float | None:
        ratio = self.ratio
        return None if ratio is None else abs(ratio - 1)


@dataclass(frozen=True, slots=True)
class GroupScore:
    group: tuple[str, ...]
    count: int
    unknown: int
    mape: float | None
    median_ape: float | None
    median_ratio: float | None


@dataclass(frozen=True, slots=True)
class Accuracy:
    profile: str | None
    group_by: tuple[str, ...]
    rows: tuple[Scored, ...]
    groups: tuple[GroupScore, ...]
    # rows whose workload the profile's scenario does not describe, scored apart by reason
    outside: tuple[GroupScore, ...] = ()
    # per engine, the fitted constants scored on devices left out of the fit (as its pack
    # records them, for this profile)
    held_out: tuple[tuple[str, HeldOutAccuracy], ...] = ()

    def worst(self, n: int = 5) -> list[Scored]:
        known = [s for s in self.rows if s.ape is not None and s.outside is None]
        return sorted(known, key=lambda s: s.ape or 0.0, reverse=True)[:n]


@dataclass(frozen=True, slots=True)
class FileResult:
    path: str
    kind: str | None
    id: str | None
    problems: tuple[Problem, ...]


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """Per-file results, then problems found when the files join the installed packs."""

    files: tuple[FileResult, ...]
    context: tuple[Problem, ...]
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.context and not self.warnings and all(not f.problems for f in self.files)


@dataclass(frozen=True, slots=True)
class Elasticity:
    """d ln quantity / d ln ``name`` at a scenario, and where ``name``'s value is written."""

    name: str
    value: float
    unit: str
    elasticity: float
    at: Location
    kind: str  # input (a scenario input) or value (a pack figure)
    group: str  # hardware, scenario, model or constants (sensitivity.GROUPS)


@dataclass(frozen=True, slots=True)
class DerivationView:
    """``fitproof explain``: one quantity's derivation, and how deep to print it; with
    ``--sensitivity``, the elasticity of the quantity with respect to each leaf."""

    derivation: Derivation
    depth: int | None = None
    sensitivity: tuple[Elasticity, ...] | None = None


@dataclass(frozen=True, slots=True)
class ModelsView:
    """``fitproof models``: the matching models, evaluated on ``hardware_name`` if given."""

    rows: tuple[ModelFit, ...]
    hardware_name: str | None = None
    left_out: tuple[str, ...] = ()  # "model: why" for each model the scenario does not suit


@dataclass(frozen=True, slots=True)
class PacksView:
    """``fitproof packs list``: the loaded packs, in load order."""

    packs: tuple[LoadedPack, ...]


@dataclass(frozen=True, slots=True)
class PackView:
    """``fitproof packs show``: one pack, what it replaced, and its fields by line."""

    pack: LoadedPack


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class DetectedDevice:
    """``count`` identical local devices as ``tool`` reports them, and the hardware pack
    they map to; without one, the packs they could be, or a pack ``template`` (YAML)."""

    name: str
    vendor: str
    backend: str
    count: int
    memory_bytes: int | None
    tool: str
    hardware: str | None = None
    hardware_name: str | None = None
    candidates: tuple[str, ...] = ()
    template: str | None = None


@dataclass(frozen=True, slots=True)
class DetectView:
    """``fitproof detect``: the local accelerators, largest first; ``chosen`` is the index
    of the one ``--on auto`` uses; ``notes`` say which tools were missing or found none."""

    devices: tuple[DetectedDevice, ...]
    host_ram_bytes: int | None
    host_ram_source: str | None
    notes: tuple[str, ...]
    chosen: int | None = None
    #: what ``--on auto`` uses: the hardware as ``--on`` names it (one id, or the devices of
    #: a machine of unlike devices, ``rtx-5090,rtx-5080``) and ``--gpus``
    auto: tuple[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Binding:
    """What stops a ``solve`` answer from going further: a formula that turns false one
    step beyond it, the end of the range searched, or the speed asked for."""

    constraint: str  # a formula, a model field (model.max_position_embeddings), or "price"
    description: str
    at: str  # file:line where the constraint is written
    detail: str  # the constraint at the step beyond, its names replaced by their values
    beyond: Scenario | None = None  # the step beyond, where the constraint fails (if any)


@dataclass(frozen=True, slots=True)
class SolveView:
    """``fitproof solve``: one question's answer, what binds it, and its derivation."""

    question: str
    description: str
    at: str  # file:line of the question
    scenario: Scenario  # the scenario at the answer
    value: float | str
    unit: str
    binding: Binding
    derivation: Derivation  # of the question's `explain` quantity at the answer
    evaluated: int  # scenarios the search evaluated
    label: str | None = None  # cheapest: the purchase or offer
    min_speed: float | None = None  # cheapest: the speed asked for
    target: str | None = None  # cheapest: the speed asked for, as "decode_tps >= 100 tok/s"
    basis: str | None = None  # cheapest: buy or rent
    notes: tuple[str, ...] = ()  # a question with `over`: how every value of it fared


@dataclass(frozen=True, slots=True)
class MeasurementsView:
    """``fitproof measurements``: the shipped and user measurement rows of the filters
    (``model``, ``hardware``, ``quant``, ``engine``; ``None`` for any), each with its setup
    (quant, kv, engine, backend, gpus, batch) and its run beside the prediction."""

    filters: Mapping[str, str | None]
    runs: tuple[tuple[Mapping[str, Any], MeasuredRun], ...]



@dataclass(frozen=True, slots=True)
class CalibrationView:
    """``fitproof calibrate``: the calibrated profile written (its id, the profile it
    extends, its file), the engines refitted, the rows fitted on and the user's among them
    by metric, and the held-out error of the shipped and refitted constants on the same
    rows (``repeats`` device splits; each device left out in turn for the serving metrics);
    ``notes``, one line for each engine with rows of the user's too few to refit."""

    profile: str
    extends: str
    path: str
    engines: tuple[str, ...]
    rows: Mapping[str, int]
    user_rows: Mapping[str, int]
    repeats: int
    scores: tuple[CalibrationScore, ...]
    notes: tuple[str, ...] = ()
