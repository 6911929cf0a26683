"""``kind: hardware`` — an accelerator or a host: memory, bandwidth, compute (packs/hardware/)."""

from __future__ import annotations

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


@attrs.frozen
class HardwareSpec:
    """An accelerator or machine: memory, bandwidth, compute, power and price."""

    id: str
    name: str
    vendor: str
    source: Sources
    unified_memory: bool
    memory_gb: Figure
    memory_bandwidth_gbs: Figure
    kind: str = "hardware"
    override: bool = False
    unverified: bool = False  # no public datasheet: estimates and reports say so
    aliases: tuple[str, ...] = ()
    notes: Sources = ()
    memory_type: str | None = None
    memory_family: str | None = None
    fp16_tflops: Figure | None = None
    bf16_tflops: Figure | None = None
    fp8_tflops: Figure | None = None
    fp4_tflops: Figure | None = None
    int8_tops: Figure | None = None
    shader_tflops: Figure | None = None
    prefill_tflops: Figure | None = None
    tdp_w: Figure | None = None
    price_usd: Figure | None = None
    used_price_usd: Figure | None = None
    interconnect: str | None = None
    interconnect_gbs: Figure | None = None
    interconnect_latency_us: Figure | None = None
    backend: str | None = None
    visible_memory_gib: Figure | None = None
    host_link_gbs: Figure | None = None
    nonexistent: bool = False
    form_factor: str | None = None
    pack: PackFile = NO_PACK

    @property
    def display_name(self) -> str:
        """Vendor and name, as tables print it."""
        return f"{self.vendor} {self.name}"
