"""``kind: quantization`` — weight formats and the block types they mix (packs/quantizations/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


TENSOR_CLASSES = ("token_embd", "output", "attn", "attn_v", "attn_v_more", "attn_output", "ffn",
                  "ffn_down",
                  "ffn_down_more", "experts", "experts_down", "experts_down_more", "norm")


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
    pack: PackFile = NO_PACK
