"""An input's default is capped by the model field its definition names (``default_at_most``:
the context at the model's trained length): below it the default stands, with the default's
own place as its origin; above it the field's value, with the field's place."""

from __future__ import annotations

import fitproof

from .conftest import REPO, write_pack


def _model_with_trained_length(folder, length: int) -> str:
    text = (REPO / "packs" / "models" / "llama-2-7b.yaml").read_text(encoding="utf-8")
    text = text.replace("id: llama-2-7b", "id: llama-2-7b-trained")
    text = text.replace("max_position_embeddings: 4096", f"max_position_embeddings: {length}")
    text = "\n".join(line for line in text.splitlines()  # names of its own only
                     if not line.startswith(("aliases:", "hf_repo:", "gguf_repo:"))) + "\n"
    text = text.replace("name: Llama 2 7B\n", "name: Llama 2 7B trained length test\n")
    write_pack(folder, "models/llama-2-7b-trained.yaml", text)
    return "llama-2-7b-trained"


def _context(tmp_path, length: int):
    model = _model_with_trained_length(tmp_path, length)
    registry = fitproof.load_registry([tmp_path], plugins=False)
    scenario = fitproof.api.scenario(registry, model=model, hardware="rtx-4090")
    default = registry.graph.inputs["context"].definition.default
    return scenario.inputs["context"], scenario.origins["context"], default


def test_a_default_at_the_trained_length_is_the_default(tmp_path):
    value, origin, default = _context(tmp_path, 8192)
    assert default == 8192 and value == 8192
    assert "llama-2-7b-trained.yaml" not in str(origin)  # the default's own place


def test_a_default_past_the_trained_length_is_the_trained_length(tmp_path):
    value, origin, default = _context(tmp_path, 4096)
    assert value == 4096 < default
    assert "llama-2-7b-trained.yaml" in str(origin)
