"""``kind: measurements`` — public speed measurements (packs/measurements/)."""

from __future__ import annotations

import math

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
    concurrency: int | None = None
    requests: int | None = None
    request_rate: float | None = None  # 'inf' in a pack structures to math.inf
    engine_version: str | None = None
    date: str | None = None
    quote: str | None = None
    missing: tuple[str, ...] = ()
    tuned: bool = False

    @property
    def burst(self) -> bool:
        """Every request was sent at once, with no client-side cap on those in flight."""
        return self.concurrency is None and self.requests is not None \
            and self.request_rate == math.inf

    @property
    def in_flight(self) -> int:
        """Requests the engine is offered at once: the client's concurrency, a burst's
        requests (all sent at once), else the batch."""
        if self.concurrency is not None:
            return self.concurrency
        if self.burst:
            assert self.requests is not None
            return self.requests
        return self.batch


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
