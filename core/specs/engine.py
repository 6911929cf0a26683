"""``kind: engine`` — an inference engine: memory terms, speed constants, launch template (packs/engines/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


@attrs.frozen
class LaunchPart:
    """A piece of a launch command, included only when ``when`` holds (if given)."""

    text: str
    when: str | None = None


@attrs.frozen
class Unavailable:
    """A case the engine cannot serve: where ``when`` holds, ``note`` replaces the command."""

    when: str
    note: str


@attrs.frozen
class LaunchTemplate:
    command: str
    options: tuple[LaunchPart, ...] = ()
    fallback_command: str | None = None
    fallback_note: str | None = None
    unavailable: tuple[Unavailable, ...] = ()


@attrs.frozen
class HeldOutScore:
    """One group's error on devices left out of the speed fit (benchmarks/fit_speed.py)."""

    metric: str
    group: str
    rows: int
    mape: float
    median_ape: float
    median_ratio: float


@attrs.frozen
class HeldOutAccuracy:
    """The fitted constants scored on devices left out of the fit, for one profile."""

    profile: str
    source: str
    groups: tuple[HeldOutScore, ...] = ()


@attrs.frozen
class EngineSpec:
    """An inference engine."""

    id: str
    name: str
    source: Sources
    kind: str = "engine"
    override: bool = False
    aliases: tuple[str, ...] = ()
    url: str | None = None
    weights: str | None = None
    kv_types: Mapping[str, str] = attrs.field(factory=dict)
    gpu_memory_utilization: Figure | None = None
    kv_flag: str | None = None
    tensor_split_flag: str | None = None
    launch: LaunchTemplate | None = None
    launch_by_profile: Mapping[str, LaunchTemplate] = attrs.field(factory=dict)
    notes: Sources = ()
    # memory accounting (see schemas/engine.schema.json)
    splits_tensors: bool = False
    kv_from_budget: bool = False
    token_embd_on_host: bool = False
    kv_block_tokens: Figure | None = None
    ubatch_tokens: Figure | None = None
    max_num_seqs: Figure | None = None
    large_device_gib: Figure | None = None
    ubatch_tokens_large: Figure | None = None
    max_num_seqs_large: Figure | None = None
    small_defaults_devices: Mapping[str, Figure] = attrs.field(factory=dict)
    runs_on: Mapping[str, Figure] = attrs.field(factory=dict)
    host_copy_efficiency: Figure | None = None
    op_offload_min_batch: Figure | None = None
    runs_on_devices: Mapping[str, Figure] = attrs.field(factory=dict)
    runtime_overhead_gib: Mapping[str, Figure] = attrs.field(factory=dict)
    device_reserved_share: Mapping[str, Figure] = attrs.field(factory=dict)
    tensor_parallel_overhead_gib: Figure | None = None
    cuda_graph_base_gib: Figure | None = None
    cuda_graph_gib_per_layer: Figure | None = None
    startup_overhead_gib: Figure | None = None
    activation_bytes_per_vocab: Figure | None = None
    activation_bytes_per_hidden: Figure | None = None
    activation_bytes_per_ffn: Figure | None = None
    sampler_bytes_per_vocab: Figure | None = None
    # speed constants fitted to measurements (benchmarks/fit_speed.py)
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
    batch_tokens: Figure | None = None
    pipeline_copies: Figure | None = None
    decode_vector_batch_max: Figure | None = None
    held_out_accuracy: HeldOutAccuracy | None = None
    decode_band_low: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_band_high: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_band_low: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_band_high: Mapping[str, Figure] = attrs.field(factory=dict)
    pack: PackFile = NO_PACK
