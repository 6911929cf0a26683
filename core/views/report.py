"""The sizing report as a renderer reads it: evaluated cells per section, and the names,
labels and catalogs the text needs. Built by ``report/sections.py``; read by ``renderers/report_*``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .results import EstimateView, Scenario, Verdict

if TYPE_CHECKING:
    from ..specs import CatalogPack, HardwareSpec, ModelSpec, Provider, QuantFormat


@attrs.frozen
class Cell:
    """One number of the report: value, unit, display precision and the quantity behind it."""

    value: float | None
    unit: str
    quantity: str
    precision: int | None = None
    display: str = "number"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "unit": self.unit, "quantity": self.quantity}


@attrs.frozen
class Pick:
    """A recommended accelerator, machine or cloud offer."""

    slot: str
    id: str | None
    name: str | None
    hardware: str | None
    devices: int
    memory_gb: float | None
    price: Cell
    offer: bool = False


@attrs.frozen
class ProviderRow:
    listing: str
    provider: str
    offer: str | None
    hardware: str | None
    devices: int
    tiers: tuple[str, ...]
    memory_gb: float | None
    hourly: Cell
    monthly: Cell
    billing: str | None
    checked: str | None = None  # when the offer's rate was read
    url: str | None = None  # where the offer is deployed (the listing's, else the provider's)


@attrs.frozen
class FineTuneRow:
    workload: str
    label: str
    weights: Cell
    training_state: Cell
    activations: Cell
    total: Cell
    verdict: Verdict | None
    recommended: Pick


@attrs.frozen
class HardwareRow:
    hardware: str
    name: str
    physical_gb: Cell
    usable_gib: Cell
    bandwidth_gbs: float
    totals: tuple[Cell, ...]
    decode_tps: Cell
    verdict: Verdict | None


@attrs.frozen
class QuantRow:
    quant: str
    label: str
    size_basis: str
    weights: Cell
    kv_cache: Cell
    total_gib: Cell
    total_gb: Cell
    decode_tps: Cell
    verdict: Verdict | None
    recommended: Pick


@attrs.frozen
class ContextRow:
    context: int
    kv_cache: Cell
    total_gib: Cell
    total_gb: Cell
    verdict: Verdict | None


@attrs.frozen
class ModelRow:
    model: str
    name: str
    total_gib: Cell
    decode_tps: Cell
    verdict: Verdict | None


@attrs.frozen
class Skipped:
    """A row a section leaves out because its variant of the scenario does not apply (a
    format the other model cannot take, a split its heads do not divide), and why."""

    section: str
    name: str
    reason: str


@attrs.frozen
class KVTuning:
    contexts: tuple[int, int]
    kv_cache: tuple[Cell, Cell]
    totals: tuple[Cell, Cell]
    compressed_kv: str
    compressed_kv_cache: Cell
    compressed_total: Cell
    saving: Cell
    saving_formula: str
    flags: tuple[tuple[str, str], ...]


@attrs.frozen
class Report:
    """Everything the sizing report shows, as evaluated cells."""

    scenario: Scenario
    estimate: EstimateView
    headline: dict[str, Cell]
    picks: tuple[Pick, ...]
    launch: tuple[tuple[str, str], ...]
    providers: tuple[ProviderRow, ...]
    tco: dict[str, Cell]
    best_single: Pick | None
    finetune: tuple[FineTuneRow, ...]
    kv_tuning: KVTuning | None
    contexts: tuple[ContextRow, ...]
    compatibility: tuple[HardwareRow, ...]
    compare_contexts: tuple[int, ...]
    quantizations: tuple[QuantRow, ...]
    other_models: tuple[ModelRow, ...]
    skipped: tuple[Skipped, ...] = ()
    cost_pick: Pick | None = None  # the offer cost per 1M tokens is priced on
    purchase_pick: Pick | None = None  # what the break-even buys (None: the scenario's devices)
    # where the provider rows' selection does not keep to the scenario's hardware (the seed
    # pages' any-fitting-offer rule): the profile's name, so that a provider without a row
    # is said to have no offer that profile compares rather than none of the scenario's
    provider_rule: str | None = None

    def skipped_in(self, section: str) -> tuple[Skipped, ...]:
        """The rows ``section`` leaves out, with why."""
        return tuple(s for s in self.skipped if s.section == section)

    @property
    def verdict(self) -> Verdict | None:
        return self.estimate.verdict


@attrs.frozen
class ReportView:
    """A :class:`Report` with the pack facts its text names (display names, labels, dates)
    and the message catalogs, so that a renderer needs nothing else."""

    report: Report
    model: ModelSpec
    quant: QuantFormat
    hardware: Mapping[str, HardwareSpec]  # every hardware pack, for the names of picks and rows
    accelerators: tuple[str, ...]  # the accelerator tables' ids (hosts left out)
    providers: Mapping[str, Provider]
    kv_label: str
    engine_name: str
    workload_name: str
    catalogs: Mapping[str, CatalogPack]
    number_style: str = "locale"  # the profile's: Babel in the locale, or the catalog's separators
    preselected: bool = False  # the accelerator was picked for the model, not given
    family_name: str = ""  # the model's architecture family (where its pack names no label)
