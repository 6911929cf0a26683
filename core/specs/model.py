"""``kind: model`` — an open-weight model: shapes, parameters, formats (packs/models/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, Figure, PackFile, Sources


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
    sliding_window_engines: tuple[str, ...] = ()
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
    checkpoint_params: Mapping[str, int] = attrs.field(factory=dict)
    pack: PackFile = NO_PACK
