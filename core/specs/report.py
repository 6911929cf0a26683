"""``kind: report`` — the sizing report's sections and variants (packs/reports/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class RecommendationSlot:
    selection: str
    price: str


@attrs.frozen
class SavingSpec:
    expr: str
    unit: str
    description: str
    precision: int | None = None


@attrs.frozen
class KVTuningSpec:
    compressed_kv: str
    engine_kv: Mapping[str, str]
    saving: SavingSpec


@attrs.frozen
class ReportPack:
    """Which scenario variants each section of the sizing report evaluates."""

    id: str
    recommendations: tuple[RecommendationSlot, ...]
    quantizations: tuple[str, ...]
    context_windows: tuple[int, ...]
    compare_contexts: tuple[int, ...]
    kv_tuning: KVTuningSpec
    provider_selection: str
    headline: Mapping[str, str]  # role the text shows → quantity
    tco: Mapping[str, str]
    columns: Mapping[str, Mapping[str, str]]  # section → role → quantity
    purchase_recommendation: str
    pick_devices: str
    pick_memory: str
    pick_price: str
    provider_hourly: str
    provider_monthly: str
    kind: str = "report"
    name: str | None = None
    override: bool = False
    finetune_recommendation: str | None = None
    finetune_workloads: tuple[str, ...] = ()
    bands: Mapping[str, str] = attrs.field(factory=dict)
    source: Sources = ()
    pack: PackFile = NO_PACK
