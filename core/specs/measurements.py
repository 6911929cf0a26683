"""``kind: measurements`` — public speed measurements (packs/measurements/)."""

from __future__ import annotations

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class MeasurementRow:
    """One public measurement: the scenario it was taken in and the figure."""

    model: str
    hardware: str
    quant: str
    engine: str
    metric: str
    value: float
    context: int
    source: str
    prompt: int | None = None
    generate: int | None = None
    backend: str | None = None
    kv: str = "f16"
    gpus: int = 1
    batch: int = 1
    ubatch: int | None = None
    cpu_moe: int | None = None
    host: str | None = None
    sequences: str = "independent"
    calibration_line: int | None = None
    note: str | None = None


@attrs.frozen
class MeasurementPack:
    """Public speed measurements a profile is scored against (``fitproof validate``)."""

    id: str
    name: str
    rows: tuple[MeasurementRow, ...]
    kind: str = "measurements"
    override: bool = False
    description: str | None = None
    source: Sources = ()
    pack: PackFile = NO_PACK
