"""``kind: profile`` — a set of formulas (seed, measured) and what it extends (packs/profiles/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, Figure, PackFile, Sources
from .engine import HeldOutAccuracy


@attrs.frozen
class CalibratedConstants:
    """An engine's speed constants refitted by ``fitproof calibrate``: the fields of the
    engine pack's fitted block and of its serving block, used in place of the engine pack's
    when the profile is chosen (a field left out keeps the engine pack's figures)."""

    decode_bandwidth_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_kernel_factor: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_memory_factor: Mapping[str, Figure] = attrs.field(factory=dict)
    kv_read_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_token_overhead_s: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_layer_overhead_s: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_moe_layer_overhead_s: Mapping[str, Figure] = attrs.field(factory=dict)
    layer_split_hop_s: Figure | None = None
    decode_ops_per_weight: Mapping[str, Figure] = attrs.field(factory=dict)
    host_bandwidth_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_compute_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_kernel_factor: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_attention_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_expert_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_ceiling_tflops: Mapping[str, Figure] = attrs.field(factory=dict)
    sequence_overhead_s: Figure | None = None
    request_overhead_s: Figure | None = None
    output_band_low: Figure | None = None
    output_band_high: Figure | None = None
    decode_band_low: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_band_high: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_band_low: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_band_high: Mapping[str, Figure] = attrs.field(factory=dict)
    held_out_accuracy: HeldOutAccuracy | None = None


@attrs.frozen
class CalibrationScore:
    """The held-out error of one engine's constants on one metric: the shipped constants
    or the refitted ones, on the same rows and device splits."""

    engine: str
    metric: str
    constants: str
    group: str
    rows: int
    mape: float
    median_ape: float
    median_ratio: float


@attrs.frozen
class Calibration:
    """What a calibrated profile was fitted on, and how well it predicts held-out rows."""

    command: str
    date: str
    measurements: tuple[str, ...]
    user_measurements: tuple[str, ...]
    rows: Mapping[str, int]
    user_rows: Mapping[str, int]
    repeats: int
    held_out: tuple[CalibrationScore, ...] = ()


@attrs.frozen
class ProfilePack:
    """A named set of formula packs (``--profile``): the seed pages' formulas, the
    measured physics, or a plugin's own."""

    id: str
    name: str
    description: str
    kind: str = "profile"
    override: bool = False
    extends: str | None = None
    default: bool = False
    number_style: str | None = None
    source: Sources = ()
    notes: Sources = ()
    calibration: Calibration | None = None
    engines: Mapping[str, CalibratedConstants] = attrs.field(factory=dict)
    pack: PackFile = NO_PACK
