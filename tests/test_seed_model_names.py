"""Every model name the seed pages print resolves: to a model pack, or to an entry of a model
listing (packs/listings/) whose error says what is known, what is missing and what
completes it. The names are the helper-collected list in docs/research/catalog/."""

from __future__ import annotations

from pathlib import Path

import pytest

import fitproof
from fitproof.errors import ListedModelError

NAMES = Path(__file__).resolve().parent.parent / "docs" / "research" / "catalog" / \
    "seed-model-names.txt"


def _names() -> list[str]:
    lines = NAMES.read_text(encoding="utf-8").splitlines()
    return [line.split("\t")[0] for line in lines if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def shipped():
    return fitproof.load_registry(plugins=False)


def test_every_seed_name_resolves_to_a_pack_or_a_listing(shipped):
    names = _names()
    assert len(names) == 80
    packs, listed = [], []
    for name in names:
        try:
            packs.append(shipped.resolve("model", name))
        except ListedModelError:
            listed.append(name)
    # 25 resolved before the catalog work, 13 by aliases, 1 by a new pack; 41 are listed
    assert (len(packs), len(listed)) == (39, 41)


@pytest.mark.parametrize("name, message", [
    ("Mistral Large 2 123B",
     "'Mistral Large 2 123B' has no model pack, so it cannot be sized. Known: size 123B in the "
     "name (the label does not say total or active), from seed pages 002 and 003 (their lists "
     "of other models). Missing: no public copy of its config.json was found (layers, heads, "
     "KV heads, experts and context length are unknown). `fitproof import hf "
     "mistralai/Mistral-Large-Instruct-2407` completes it from the Hugging Face Hub (network)"),
    ("qwen3.8 27b",  # names match as any other name does: ignoring case and punctuation
     "'Qwen3.8 27B' has no model pack, so it cannot be sized. Known: size 27B in the name (the "
     "label does not say total or active), from seed pages 002 and 003 (their lists of other "
     "models). Missing: no public copy of its config.json was found (layers, heads, KV heads, "
     "experts and context length are unknown). `fitproof import hf ORG/NAME` with its Hugging "
     "Face repository completes it (no source read names the repository)"),
])
def test_a_listed_model_says_what_is_missing(capsys, name, message):
    from fitproof.cli import main

    assert main(["--no-plugins", "estimate", name, "--on", "h100-80gb-sxm"]) == 2
    assert capsys.readouterr().err == f"fitproof: error: {message}\n"


def test_a_config_the_importer_refuses_is_not_sent_to_the_importer(shipped):
    with pytest.raises(ListedModelError) as caught:
        shipped.resolve("model", "GLM-5 (744B)")
    text = str(caught.value)
    assert "the importer does not understand it (3 config fields not understood: " \
           "indexer_rope_interleave, qk_head_dim, rope_interleave)" in text
    assert text.endswith("fitproof's importer does not read that config yet; a model pack "
                         "written from it by hand completes it")
    assert "import hf" not in text
