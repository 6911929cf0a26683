"""``fitproof import hf``: a model pack from a Hugging Face config.json.

Which config keys give which model field, which keys do not matter for sizing, and facts a
config format leaves out are data (``packs/importers/huggingface.yaml``). This module only
reads the structural conventions — layer patterns, MoE schedules, shared experts — and
refuses, with the key's name, anything it does not understand.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..errors import InputError
from ..registry.index import Registry
from ..specs import ImporterPack
from .checkpoint_formats import checkpoint_format
from .config_file import read_config as read_config



class ConfigNotUnderstood(InputError):
    """The config has keys or values fitproof cannot size correctly."""

    exit_code = 1


@attrs.frozen
class ImportedModel:
    """Model-pack fields read from a config, in pack order, and remarks for the pack."""

    fields: dict[str, Any]
    notes: tuple[str, ...] = ()


def _flatten(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's config: text_config over the top-level keys."""
    text = config.get("text_config")
    if isinstance(text, dict):
        merged = {k: v for k, v in config.items() if k != "text_config"}
        merged.update(text)
        return merged
    return dict(config)


def import_config(config: dict[str, Any], registry: Registry) -> ImportedModel:
    """Translate a config into model-pack fields, or raise :class:`ConfigNotUnderstood`."""
    mapping = registry.importers.get("huggingface")
    if mapping is None:
        raise InputError("no importer pack 'huggingface' is loaded")
    cfg = _flatten(config)
    reader = _Reader(cfg, mapping)
    fields = reader.read()
    reader.check_unread()
    return ImportedModel(fields, tuple(reader.notes))


class _Reader:
    def __init__(self, cfg: dict[str, Any], mapping: ImporterPack):
        self.cfg, self.mapping = cfg, mapping
        self.used: set[str] = {"text_config"}
        self.notes: list[str] = []
        self.problems: list[str] = []

    # -- helpers --------------------------------------------------------------------------
    def get(self, key: str, default: Any = None) -> Any:
        if key in self.cfg:
            self.used.add(key)
            value = self.cfg[key]
            for number in (value if isinstance(value, list) else [value]):
                if isinstance(number, float) and not math.isfinite(number):
                    # configs hold infinities in keys no size depends on (a time-step
                    # limit); one the importer reads cannot size anything
                    raise InputError(f"{key}: {number} is not a number a model can be "
                                     "sized with")
            return default if value is None else value
        return default

    def one(self, key: str) -> Any:
        """A value that may be given per layer: every layer must agree."""
        value = self.get(key)
        if isinstance(value, list):
            distinct = {json.dumps(v) for v in value}
            if len(distinct) != 1:
                self.problems.append(f"{key} differs between layers ({sorted(distinct)[:3]}…); "
                                     "per-layer sizes are not understood")
                return None
            return value[0]
        return value

    # -- reading ----------------------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        cfg, mapping = self.cfg, self.mapping
        model_type = self.get("model_type")
        self.get("architectures")
        defaults = mapping.config_defaults.get(model_type)
        for key, value in (defaults.set.items() if defaults else ()):
            if key not in cfg:
                cfg[key] = value
                self.notes.append(f"{key} {_scalar(value)} is assumed (the config gives "
                                  f"none): {defaults.source if defaults else ''}")
        fields: dict[str, Any] = {}
        for field, keys in mapping.fields.items():
            for key in keys:
                value = self.one(key) if key in cfg else None
                for other in keys:
                    if other in cfg:
                        self.used.add(other)
                if value is not None:
                    fields[field] = value
                    break
        fields.setdefault("tie_word_embeddings", False)
        if "tie_word_embeddings" not in cfg:
            self.notes.append("tie_word_embeddings is not in the config; transformers' default "
                              "for this format (false) is assumed")
        if self.get("use_cla"):
            self.problems.append("use_cla (cross-layer KV sharing) is not understood")
        self.get("cla_share_factor")
        self._layers(fields)
        self._ffn(fields)
        self._state_dtypes(fields)
        for field, value in (mapping.model_types or {}).get(model_type, {}).items():
            fields[field] = value
            self.notes.append(f"{field}: {_scalar(value)} is a fact of the {model_type} format that its "
                              "config does not state")
        fields["family"] = self._family(fields)
        self._checkpoint_format(fields)
        if "vision_config" in cfg:
            self.used.add("vision_config")
            self.notes.append("the vision tower (vision_config) is not counted")
        fields["hf_model_type"] = model_type
        return fields

    def _layers(self, fields: dict[str, Any]) -> None:
        layers = int(self.get("num_hidden_layers", 0))
        types = self.get("layer_types")
        attn_types = self.get("attn_type_list")
        pattern = self.get("hybrid_override_pattern")
        self.get("mtp_hybrid_override_pattern")
        interval = self.get("full_attention_interval")
        window = self.get("sliding_window")
        use_window = self.get("use_sliding_window", True)
        self.get("max_window_layers")
        window_pattern = self.get("sliding_window_pattern")
        if self.get("sliding_window_size", window) != window:
            self.problems.append(f"sliding_window_size {self.cfg['sliding_window_size']} differs "
                                 f"from sliding_window {window}; which applies is not understood")
        if isinstance(types, list):
            counts = Counter(types)
            unknown = set(counts) - {"full_attention", "sliding_attention", "linear_attention"}
            if unknown:
                self.problems.append(f"layer_types {sorted(unknown)} are not understood")
            fields["full_attention_layers"] = counts.get("full_attention", 0)
            if counts.get("sliding_attention"):
                fields["sliding_attention_layers"] = counts["sliding_attention"]
                fields["sliding_window"] = window
            if counts.get("linear_attention"):
                fields["linear_attention_layers"] = counts["linear_attention"]
        elif isinstance(pattern, str):
            counts = Counter(pattern)
            unknown = set(counts) - set("M*-E")
            if unknown:
                self.problems.append(f"hybrid_override_pattern characters {sorted(unknown)} are "
                                     "not understood")
            fields["mamba_layers"] = counts.get("M", 0)
            fields["full_attention_layers"] = counts.get("*", 0)
            fields["dense_layers"] = counts.get("-", 0)
            fields["moe_layers"] = counts.get("E", 0)
            if len(pattern) != layers:
                self.problems.append(f"hybrid_override_pattern has {len(pattern)} layers, "
                                     f"num_hidden_layers says {layers}")
        elif interval:
            fields["full_attention_layers"] = layers // int(interval)
            fields["linear_attention_layers"] = layers - layers // int(interval)
        elif window_pattern and window:
            globals_ = layers // int(window_pattern)
            fields["full_attention_layers"] = globals_
            fields["sliding_attention_layers"] = layers - globals_
            fields["sliding_window"] = window
        if isinstance(attn_types, list) and set(attn_types) != {1}:
            self.problems.append("attn_type_list with values other than 1 (full attention) "
                                 "is not understood")
        if window and use_window and "sliding_window" not in fields and not types:
            rule = self.mapping.window_without_layer_types
            if rule is None:
                self.problems.append(f"sliding_window {window} without layer_types: which "
                                     "layers slide is not stated")
            else:  # every layer slides (Mistral 7B v0.1); the importer pack says who applies it
                fields["full_attention_layers"] = 0
                fields["sliding_attention_layers"] = layers
                fields["sliding_window"] = window
                fields["sliding_window_engines"] = list(rule.engines)
                self.notes.append(rule.note)
        block_configs = self.get("block_configs")
        if block_configs:
            self.problems.append("block_configs (per-layer NAS blocks) are not understood")

    def _ffn(self, fields: dict[str, Any]) -> None:
        layers = int(self.get("num_hidden_layers", 0))
        experts = fields.get("num_experts")
        inter = self.one("intermediate_size")
        inter_mlp = self.get("intermediate_size_mlp")
        moe_inter = self.one("moe_intermediate_size")
        if "dense_layers" in fields:  # a layer pattern already said which layers do what
            moe_layers = fields.get("moe_layers", 0)
        elif experts:
            first_dense = self.get("first_k_dense_replace")
            freq = self.get("moe_layer_freq")
            only = self.get("mlp_only_layers")
            step = self.get("decoder_sparse_step")
            interleave = self.get("interleave_moe_layer_step")
            if first_dense is not None:
                moe_layers = len([i for i in range(int(first_dense), layers)
                                  if (i - int(first_dense)) % int(freq or 1) == 0])
            elif interleave:
                moe_layers = len([i for i in range(layers) if (i + 1) % int(interleave) == 0])
            else:
                dense = set(only or [])
                moe_layers = len([i for i in range(layers) if i not in dense
                                  and (i + 1) % int(step or 1) == 0])
            fields["moe_layers"] = moe_layers
            fields["dense_layers"] = layers - moe_layers
        else:
            fields["dense_layers"] = layers
            moe_layers = 0
        if experts:
            if moe_inter is None:
                moe_inter, inter = inter, inter_mlp
            fields["moe_intermediate_size"] = moe_inter
            shared = None
            for key in ("shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                        "shared_intermediate_size"):
                value = self.one(key)
                if value is not None and shared is None:
                    shared = value
            count = self.one("n_shared_experts")
            mixed = self.get("use_mixed_mlp_moe")
            shared_per_layer = self.one("num_shared_expert")
            if shared is None and count:
                shared = int(count) * int(moe_inter)
            if shared is None and mixed and shared_per_layer:
                shared = int(shared_per_layer) * int(inter)
            if shared is None and inter_mlp is not None:  # Llama 4: one shared expert per MoE layer
                shared = moe_inter
            fields["shared_expert_intermediate_size"] = int(shared or 0)
        if fields.get("dense_layers"):
            if inter is None:
                self.problems.append("dense MLP layers without intermediate_size")
            else:
                fields["intermediate_size"] = inter
        act = (self.get("mlp_hidden_act") or self.get("hidden_activation") or
               self.get("hidden_act") or "silu")
        gated = self.mapping.activations.get(act)
        if gated is None:
            self.problems.append(f"hidden_act {act!r} is not understood (is the MLP gated?)")
        elif not gated:
            fields["mlp_gated"] = False

    def _state_dtypes(self, fields: dict[str, Any]) -> None:
        dtype = self.get("torch_dtype") or self.get("dtype") or "bfloat16"
        sizes = self.mapping.dtype_bytes
        for field, keys in (("linear_state_bytes", ("mamba_ssm_dtype",)),
                            ("mamba_state_bytes", ("mamba_ssm_cache_dtype",))):
            layer_field = "linear_attention_layers" if field.startswith("linear") else \
                "mamba_layers"
            if not fields.get(layer_field):
                for key in keys:
                    self.get(key)
                continue
            name = next((self.get(k) for k in keys if self.get(k)), None)
            if name is None:
                name = dtype
                self.notes.append(f"{field}: the config gives no state dtype; the weight dtype "
                                  f"{dtype} is assumed")
            if name not in sizes:
                self.problems.append(f"state dtype {name!r} is not understood")
            else:
                fields[field] = sizes[name]

    def _checkpoint_format(self, fields: dict[str, Any]) -> None:
        """checkpoint_format from quantization_config, by the importer pack's rules."""
        config = self.get("quantization_config")
        if not isinstance(config, dict):
            return
        found = checkpoint_format(config, self.mapping)
        if found:
            fields["checkpoint_format"] = found
            return
        method = config.get("quant_method", "unnamed")
        self.notes.append(f"quantization_config ({method}) matches no checkpoint format of the "
                          "importer pack; checkpoint_format is left out, so --quant native "
                          "sizes the model at BF16")

    def _family(self, fields: dict[str, Any]) -> str:
        """The family of the importer pack's first rule that holds for ``fields``."""
        return family_of(self.mapping, fields)

    def check_unread(self) -> None:
        mapping = self.mapping
        ignored = {key for keys in mapping.ignored.values() for key in keys}
        understood = set(mapping.structure) | ignored
        for key, value in self.cfg.items():
            if key in self.used or key in understood:
                continue
            if key in mapping.neutral:
                if value not in mapping.neutral[key]:
                    self.problems.append(f"{key} = {json.dumps(value)} is not understood "
                                         f"(understood: {json.dumps(mapping.neutral[key])})")
                continue
            if key.startswith("_"):
                continue
            self.problems.append(f"config field {key!r} is not understood")
        if self.problems:
            raise ConfigNotUnderstood("cannot size this model safely:\n  " +
                                      "\n  ".join(self.problems))


def family_of(mapping: ImporterPack, fields: Mapping[str, Any]) -> str:
    """The family of the importer pack's first rule whose field ``fields`` has (not empty)."""
    for rule in mapping.families:
        if rule.when is None or fields.get(rule.when):
            return rule.family
    raise ConfigNotUnderstood(f"no family rule of importer pack {mapping.id!r} holds; add a "
                              "last rule without 'when'")


FIELD_ORDER = (
    "family", "hf_model_type", "hidden_size", "num_hidden_layers", "vocab_size",
    "tie_word_embeddings", "max_position_embeddings", "num_attention_heads",
    "num_key_value_heads", "head_dim", "attention_bias", "attention_output_gate",
    "full_attention_layers", "sliding_attention_layers", "sliding_window",
    "sliding_window_engines", "linear_attention_layers", "mamba_layers", "q_lora_rank", "kv_lora_rank",
    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "index_n_heads", "index_head_dim",
    "intermediate_size", "dense_layers", "mlp_gated", "moe_layers", "num_experts",
    "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size",
    "moe_latent_size", "expert_bias", "linear_num_key_heads", "linear_num_value_heads",
    "linear_key_head_dim", "linear_value_head_dim", "linear_conv_kernel_dim",
    "linear_state_bytes", "mamba_num_heads", "mamba_head_dim", "ssm_state_size",
    "mamba_groups", "mamba_conv_kernel", "mamba_state_bytes", "mtp_layers", "checkpoint_format",
)


def model_pack_text(model_id: str, name: str, source: str, imported: ImportedModel,
                    hf_repo: str | None = None, origin: str = "config by `fitproof import hf`",
                    notes: Sequence[str] = (), checkpoint_params: Mapping[str, int] = {},
                    ) -> str:
    """YAML text of a model pack (stable field order, one field per line); ``notes`` are
    added to the importer's, ``checkpoint_params`` (dtype -> parameters, as the checkpoint's
    headers count them) is recorded as an informative field."""
    lines = ["kind: model", f"id: {model_id}", f"name: {_scalar(name)}"]
    if hf_repo:
        lines.append(f"hf_repo: {hf_repo}")
    lines.append(f"source: {_scalar(source)}")
    every_note = [*imported.notes, *notes]
    if every_note:
        lines.append("notes:")
        lines.extend(f"  - {_scalar(note)}" for note in every_note)
    lines.append(f"# Architecture facts imported from the {origin}.")
    for field in FIELD_ORDER:
        if field in imported.fields:
            lines.append(f"{field}: {_scalar(imported.fields[field])}")
    if checkpoint_params:
        lines.append("checkpoint_params:")
        lines.extend(f"  {_scalar(dtype)}: {count}" for dtype, count in checkpoint_params.items())
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    if isinstance(value, (list, tuple)):  # a flow sequence: [vllm]
        return "[" + ", ".join(_scalar(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    text = str(value)
    if any(c in text for c in ":#{}[],&*!|>'\"%@`") or text != text.strip() or not text:
        return json.dumps(text, ensure_ascii=False)
    return text
