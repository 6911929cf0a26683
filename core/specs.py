"""Typed, frozen views of validated packs, built with cattrs.

Every pack class carries ``pack`` (a :class:`PackFile`): the file it was read from and the
line of every field, so derivations can cite ``file:line`` for each value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
import cattrs

Sources = tuple[str, ...]


@attrs.frozen
class Figure:
    """A number with its provenance."""

    value: float
    source: Sources = ()
    note: str | None = None
    approximate: bool = False


@attrs.frozen
class PackFile:
    """Where a pack came from: its display path, the plugin that provided it, its lines."""

    path: str
    origin: str = "fitproof"
    lines: Mapping[tuple, int] = attrs.field(factory=dict, eq=False, repr=False)

    def line_of(self, *path: str | int) -> int | None:
        """Line of the value at ``path`` (or of its nearest ancestor)."""
        key = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return 1

    def at(self, *path: str | int) -> str:
        """``file:line`` of the value at ``path``."""
        return f"{self.path}:{self.line_of(*path)}"


_NO_PACK = PackFile(path="<api>")


@attrs.frozen
class ModelSpec:
    """An open model: architecture facts, parameter counts, and where they come from."""

    id: str
    name: str
    source: Sources
    family: str
    hidden_size: Figure
    num_hidden_layers: Figure
    vocab_size: Figure
    tie_word_embeddings: bool
    kind: str = "model"
    override: bool = False
    aliases: tuple[str, ...] = ()
    architecture: str | None = None
    license: str | None = None
    hf_repo: str | None = None
    checkpoint_format: str | None = None
    gguf_repo: str | None = None
    checkpoint_repos: Mapping[str, str] = attrs.field(factory=dict)
    hf_model_type: str | None = None
    notes: Sources = ()
    params_total: Figure | None = None
    params_active: Figure | None = None
    stated_params_total: Figure | None = None
    stated_params_active: Figure | None = None
    stated_active_basis: str = "all"
    max_position_embeddings: Figure | None = None
    num_attention_heads: Figure | None = None
    num_key_value_heads: Figure | None = None
    head_dim: Figure | None = None
    attention_bias: bool | None = None
    attention_output_gate: bool | None = None
    mlp_gated: bool | None = None
    full_attention_layers: Figure | None = None
    sliding_attention_layers: Figure | None = None
    sliding_window: Figure | None = None
    linear_attention_layers: Figure | None = None
    mamba_layers: Figure | None = None
    kv_heads_total: Figure | None = None
    q_lora_rank: Figure | None = None
    kv_lora_rank: Figure | None = None
    qk_nope_head_dim: Figure | None = None
    qk_rope_head_dim: Figure | None = None
    v_head_dim: Figure | None = None
    index_n_heads: Figure | None = None
    index_head_dim: Figure | None = None
    intermediate_size: Figure | None = None
    dense_layers: Figure | None = None
    dense_intermediate_total: Figure | None = None
    moe_layers: Figure | None = None
    num_experts: Figure | None = None
    num_experts_per_tok: Figure | None = None
    moe_intermediate_size: Figure | None = None
    shared_expert_intermediate_size: Figure | None = None
    moe_latent_size: Figure | None = None
    expert_bias: bool | None = None
    linear_num_key_heads: Figure | None = None
    linear_num_value_heads: Figure | None = None
    linear_key_head_dim: Figure | None = None
    linear_value_head_dim: Figure | None = None
    linear_conv_kernel_dim: Figure | None = None
    linear_state_bytes: Figure | None = None
    mamba_num_heads: Figure | None = None
    mamba_head_dim: Figure | None = None
    ssm_state_size: Figure | None = None
    mamba_groups: Figure | None = None
    mamba_conv_kernel: Figure | None = None
    mamba_state_bytes: Figure | None = None
    recurrent_state_gib: Figure | None = None
    mtp_layers: Figure | None = None
    weights_bytes: Mapping[str, Figure] = attrs.field(factory=dict)
    gguf_tensor_bytes: Mapping[str, int] = attrs.field(factory=dict)
    pack: PackFile = _NO_PACK


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
    aliases: tuple[str, ...] = ()
    notes: Sources = ()
    memory_type: str | None = None
    fp16_tflops: Figure | None = None
    bf16_tflops: Figure | None = None
    fp8_tflops: Figure | None = None
    fp4_tflops: Figure | None = None
    int8_tops: Figure | None = None
    prefill_tflops: Figure | None = None
    tdp_w: Figure | None = None
    price_usd: Figure | None = None
    used_price_usd: Figure | None = None
    interconnect: str | None = None
    interconnect_gbs: Figure | None = None
    interconnect_latency_us: Figure | None = None
    backend: str | None = None
    visible_memory_gib: Figure | None = None
    form_factor: str | None = None
    pack: PackFile = _NO_PACK

    @property
    def display_name(self) -> str:
        """Vendor and name, as tables print it."""
        return f"{self.vendor} {self.name}"


@attrs.frozen
class CloudOffer:
    """One instance type a provider rents out."""

    id: str
    hardware: str
    gpus: Figure
    hourly_usd: Figure
    tier: str | None = None
    source: Sources = ()
    note: str | None = None
    provider: str = ""
    index: int = 0


@attrs.frozen
class Listing:
    """A row under which a provider appears in tables."""

    name: str
    tier_suffix: str | None = None
    url: str | None = None


@attrs.frozen
class Provider:
    """A cloud provider and its offers."""

    id: str
    name: str
    source: Sources
    offers: tuple[CloudOffer, ...]
    kind: str = "provider"
    override: bool = False
    aliases: tuple[str, ...] = ()
    url: str | None = None
    billing: str | None = None
    checked: str | None = None
    rank: int | None = None
    listings: tuple[Listing, ...] = ()
    notes: Sources = ()
    pack: PackFile = _NO_PACK


TENSOR_CLASSES = ("token_embd", "output", "attn", "attn_v", "attn_v_more", "attn_output", "ffn",
                  "ffn_down",
                  "ffn_down_more", "experts", "experts_down", "experts_down_more", "norm")
# classes whose rows are the feed-forward width, which need not be a whole number of blocks
ROW_FALLBACK_CLASSES = ("ffn_down", "ffn_down_more", "experts_down", "experts_down_more")


@attrs.frozen
class BlockType:
    """A block layout: weights per block and bytes per block, scales included."""

    block_weights: int
    block_bytes: float
    source: Sources
    layout: str | None = None
    approximate: bool = False
    id: str = ""
    row_fallback: str | None = None

    @property
    def bits_per_weight(self) -> float:
        return self.block_bytes * 8 / self.block_weights


@attrs.frozen
class QuantFormat:
    """A weight format: bits per weight per tensor class (given, or from block types)."""

    bits: int
    bpw_body: Figure | None = None
    bpw_embed: Figure | None = None
    bpw_token_embd: Figure | None = None
    bpw_output: Figure | None = None
    bpw_attn: Figure | None = None
    bpw_attn_v: Figure | None = None
    bpw_attn_v_more: Figure | None = None
    bpw_attn_output: Figure | None = None
    bpw_ffn: Figure | None = None
    bpw_ffn_down: Figure | None = None
    bpw_ffn_down_fallback: Figure | None = None
    bpw_ffn_down_more_fallback: Figure | None = None
    bpw_experts_down_fallback: Figure | None = None
    bpw_experts_down_more_fallback: Figure | None = None
    bpw_ffn_down_more: Figure | None = None
    bpw_experts: Figure | None = None
    bpw_experts_down: Figure | None = None
    bpw_experts_down_more: Figure | None = None
    bpw_norm: Figure | None = None
    tensors: Mapping[str, str] = attrs.field(factory=dict)
    attn_v_more_share: Figure | None = None
    attn_v_more_layers: Figure | None = None
    ffn_down_more_share: Figure | None = None
    ffn_down_more_layers: Figure | None = None
    checkpoint: bool = False
    requires_experts: bool = False
    online_quantization: str | None = None
    kernel: str | None = None
    group_size: int | None = None
    engines: tuple[str, ...] = ()
    id: str = ""
    label: str | None = None
    size_basis: str = "config"
    aliases: tuple[str, ...] = ()
    source: Sources = ()
    note: str | None = None


@attrs.frozen
class QuantizationPack:
    id: str
    source: Sources
    formats: Mapping[str, QuantFormat] = attrs.field(factory=dict)
    types: Mapping[str, BlockType] = attrs.field(factory=dict)
    kind: str = "quantization"
    override: bool = False
    name: str | None = None
    notes: Sources = ()
    pack: PackFile = _NO_PACK


@attrs.frozen
class KVCacheType:
    """A precision the KV cache can be stored in."""

    bytes_per_element: Figure
    id: str = ""
    label: str | None = None
    aliases: tuple[str, ...] = ()
    source: Sources = ()
    note: str | None = None


@attrs.frozen
class KVCachePack:
    id: str
    source: Sources
    types: Mapping[str, KVCacheType]
    kind: str = "kv_cache"
    override: bool = False
    name: str | None = None
    notes: Sources = ()
    pack: PackFile = _NO_PACK


@attrs.frozen
class LaunchPart:
    """A piece of a launch command, included only when ``when`` holds (if given)."""

    text: str
    when: str | None = None


@attrs.frozen
class LaunchTemplate:
    command: str
    options: tuple[LaunchPart, ...] = ()
    fallback_command: str | None = None
    fallback_note: str | None = None


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
    kv_read_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_token_overhead_s: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_layer_overhead_s: Mapping[str, Figure] = attrs.field(factory=dict)
    layer_split_hop_s: Figure | None = None
    host_bandwidth_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_compute_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_kernel_factor: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_attention_efficiency: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_expert_efficiency: Figure | None = None
    batch_tokens: Figure | None = None
    pipeline_copies: Figure | None = None
    decode_band_low: Mapping[str, Figure] = attrs.field(factory=dict)
    decode_band_high: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_band_low: Mapping[str, Figure] = attrs.field(factory=dict)
    prefill_band_high: Mapping[str, Figure] = attrs.field(factory=dict)
    pack: PackFile = _NO_PACK


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
    pack: PackFile = _NO_PACK


@attrs.frozen
class CatalogPack:
    """Labels and sentences of reports in one language."""

    id: str
    name: str
    decimal_separator: str
    thousands_separator: str
    messages: Mapping[str, str]
    kind: str = "catalog"
    override: bool = False
    source: Sources = ()
    pack: PackFile = _NO_PACK


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
    kind: str = "report"
    name: str | None = None
    override: bool = False
    finetune_recommendation: str | None = None
    finetune_workloads: tuple[str, ...] = ()
    source: Sources = ()
    pack: PackFile = _NO_PACK


@attrs.frozen
class ImporterPack:
    """How a configuration format maps to model-pack fields (see importers/)."""

    id: str
    source: Sources
    fields: Mapping[str, tuple[str, ...]]
    structure: Mapping[str, str]
    ignored: Mapping[str, tuple[str, ...]]
    neutral: Mapping[str, tuple[Any, ...]]
    activations: Mapping[str, bool]
    dtype_bytes: Mapping[str, float]
    kind: str = "importer"
    override: bool = False
    name: str | None = None
    model_types: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    file_types: Mapping[str, str] = attrs.field(factory=dict)
    checkpoint_formats: tuple["CheckpointFormatRule", ...] = ()
    pack: PackFile = _NO_PACK


@attrs.frozen
class CheckpointFormatRule:
    """A checkpoint format recognised by conditions on a config's quantization_config."""

    format: str
    when: Mapping[str, Any]
    source: Sources = ()


@attrs.frozen
class ArchitecturePack:
    """Formulas of one attention/mixer family, read by the general formulas as arch.<name>."""

    id: str
    name: str
    source: Sources
    formulas: Mapping[str, "FormulaDef"]
    kind: str = "architecture"
    override: bool = False
    description: str | None = None
    examples: tuple[str, ...] = ()
    notes: Sources = ()
    pack: PackFile = _NO_PACK


@attrs.frozen
class FormulaDef:
    """A named quantity: its expression, unit and one-line description."""

    expr: str
    unit: str
    description: str
    precision: int | None = None
    display: str = "number"
    source: Sources = ()
    approximate: bool = False
    override: bool = False


@attrs.frozen
class FormulaPack:
    id: str
    formulas: Mapping[str, FormulaDef]
    retires: tuple[str, ...] = ()
    kind: str = "formulas"
    override: bool = False
    profile: str | None = None
    name: str | None = None
    description: str | None = None
    source: Sources = ()
    notes: Sources = ()
    pack: PackFile = _NO_PACK


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
    source: Sources = ()
    notes: Sources = ()
    pack: PackFile = _NO_PACK


@attrs.frozen
class VerdictRule:
    id: str
    label: str
    when: str
    description: str | None = None
    source: Sources = ()


@attrs.frozen
class VerdictPack:
    id: str
    rules: tuple[VerdictRule, ...]
    kind: str = "verdicts"
    name: str | None = None
    description: str | None = None
    source: Sources = ()
    override: bool = False
    pack: PackFile = _NO_PACK


@attrs.frozen
class SelectionDef:
    candidates: str
    where: str
    minimize: tuple[str, ...]
    description: str
    override: bool = False
    gpus: tuple[int, ...] = ()
    group_by: str | None = None


@attrs.frozen
class SelectionPack:
    id: str
    selections: Mapping[str, SelectionDef]
    kind: str = "selections"
    override: bool = False
    name: str | None = None
    description: str | None = None
    pack: PackFile = _NO_PACK


@attrs.frozen
class InputDef:
    """A scenario input a user sets (context, batch, …) with its allowed range."""

    description: str
    unit: str
    type: str
    default: float | None
    option: str | None = None
    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    source: Sources = ()
    choices: Mapping[str, float] = attrs.field(factory=dict)

    def choice_name(self, value: float) -> str | None:
        """The choice name that stands for ``value`` (None when there is none)."""
        return next((name for name, number in self.choices.items() if number == value), None)


@attrs.frozen
class InputPack:
    id: str
    inputs: Mapping[str, InputDef]
    kind: str = "inputs"
    override: bool = False
    name: str | None = None
    pack: PackFile = _NO_PACK


@attrs.frozen
class ScenarioPack:
    """A named scenario; the one with id ``default`` is shown when nothing is given."""

    id: str
    model: str
    hardware: str
    quant: str
    kv: str
    engine: str
    workload: str = "inference"
    host: str | None = None
    kind: str = "scenario"
    name: str | None = None
    description: str | None = None
    override: bool = False
    inputs: Mapping[str, float] = attrs.field(factory=dict)
    pack: PackFile = _NO_PACK


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
    pack: PackFile = _NO_PACK


PACK_CLASSES: dict[str, type] = {
    "model": ModelSpec,
    "hardware": HardwareSpec,
    "provider": Provider,
    "quantization": QuantizationPack,
    "kv_cache": KVCachePack,
    "engine": EngineSpec,
    "formulas": FormulaPack,
    "profile": ProfilePack,
    "verdicts": VerdictPack,
    "selections": SelectionPack,
    "inputs": InputPack,
    "scenario": ScenarioPack,
    "workload": WorkloadSpec,
    "catalog": CatalogPack,
    "report": ReportPack,
    "architecture": ArchitecturePack,
    "importer": ImporterPack,
    "measurements": MeasurementPack,
}


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)

    def structure_sources(value: Any, _type: Any) -> Sources:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        return tuple(str(v) for v in value)

    def structure_figure(value: Any, _type: Any) -> Figure:
        if isinstance(value, dict):
            return Figure(
                value=value["value"],
                source=structure_sources(value.get("source"), Sources),
                note=value.get("note"),
                approximate=bool(value.get("approximate", False)),
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"expected a number, got {value!r}")
        return Figure(value=value)

    def structure_part(value: Any, _type: Any) -> LaunchPart:
        if isinstance(value, str):
            return LaunchPart(value)
        return LaunchPart(value["text"], value.get("when"))

    converter.register_structure_hook_func(lambda t: t == Sources, structure_sources)
    converter.register_structure_hook(LaunchPart, structure_part)
    converter.register_structure_hook(Figure, structure_figure)
    return converter


converter = _make_converter()


def structure_pack(data: dict[str, Any], pack: PackFile):
    """Build the frozen pack object for validated ``data`` (dispatching on ``kind``)."""
    cls = PACK_CLASSES[data["kind"]]
    obj = converter.structure(data, cls)
    changes: dict[str, Any] = {"pack": pack}
    if isinstance(obj, QuantizationPack):
        changes["formats"] = {k: attrs.evolve(v, id=k) for k, v in obj.formats.items()}
        changes["types"] = {k: attrs.evolve(v, id=k) for k, v in obj.types.items()}
    elif isinstance(obj, KVCachePack):
        changes["types"] = {k: attrs.evolve(v, id=k) for k, v in obj.types.items()}
    elif isinstance(obj, Provider):
        changes["offers"] = tuple(attrs.evolve(o, provider=obj.id, index=i)
                                  for i, o in enumerate(obj.offers))
    return attrs.evolve(obj, **changes)
