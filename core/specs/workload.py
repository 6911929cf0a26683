"""``kind: workload`` — inference or a fine-tuning method (packs/workloads/)."""

from __future__ import annotations

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


@attrs.frozen
class WorkloadSpec:
    """What is done with the model: inference or a kind of fine-tuning."""

    id: str
    name: str
    source: Sources
    serves_tokens: bool
    optimizer_weight_factor: Figure
    optimizer_base_gib: Figure
    optimizer_gib_per_1k_hidden: Figure
    activation_base_gib: Figure
    activation_gib_per_1k_hidden: Figure
    kind: str = "workload"
    override: bool = False
    label: str | None = None
    aliases: tuple[str, ...] = ()
    quant: str | None = None
    notes: Sources = ()
    pack: PackFile = NO_PACK
