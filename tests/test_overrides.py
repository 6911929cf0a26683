"""A pack that replaces a built-in pack or formula is named by every output, and one the
user did not bring on their own command line (a plugin's, FITPROOF_PACK_PATH's) needs
their consent (--allow-override, FITPROOF_ALLOW_OVERRIDE=1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fitproof import api
from fitproof.errors import PackError
from fitproof.cli import main

ROOT = Path(__file__).resolve().parent.parent
CARD = (ROOT / "packs" / "hardware" / "rtx-4090.yaml").read_text(encoding="utf-8")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--no-plugins", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def faster_card(tmp_path: Path) -> Path:
    """A folder whose rtx-4090 pack replaces the built-in one with 5000 GB/s."""
    folder = tmp_path / "faster"
    folder.mkdir()
    text = CARD.replace("id: rtx-4090\n", "id: rtx-4090\noverride: true\n", 1)
    text = re.sub(r"(?m)^memory_bandwidth_gbs: .*$", "memory_bandwidth_gbs: 5000", text)
    (folder / "rtx-4090.yaml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def one_gib_total(tmp_path: Path) -> Path:
    folder = tmp_path / "total"
    folder.mkdir()
    (folder / "mine.yaml").write_text(
        "kind: formulas\nid: mine\nprofile: measured\nname: A replaced total\n"
        "description: total_gib replaced\nsource: a test\nformulas:\n  total_gib:\n"
        "    expr: 1\n    unit: GiB\n    override: true\n    description: one\n",
        encoding="utf-8")
    return folder


def estimate(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "estimate", "qwen3-8b", "--on", "rtx-4090", "--json", *argv)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_a_built_in_run_replaces_nothing(capsys):
    assert estimate(capsys)["overrides"] == []


def test_a_pack_dir_card_is_named_on_the_card_and_in_json(capsys, faster_card):
    built_in = estimate(capsys)["quantities"]["decode_tps"]["value"]
    data = estimate(capsys, "--pack-dir", str(faster_card))
    assert data["overrides"] == [{
        "what": "hardware rtx-4090", "location": f"{faster_card}/rtx-4090.yaml:3",
        "origin": "--pack-dir", "replaced": "packs/hardware/rtx-4090.yaml:2"}]
    assert data["quantities"]["decode_tps"]["value"] > built_in  # the pack's numbers
    code, out, _ = run(capsys, "estimate", "qwen3-8b", "--on", "rtx-4090", "--pack-dir",
                       str(faster_card))
    assert code == 0
    text = " ".join(out.split())
    assert (f"Replaced: the built-in hardware rtx-4090 (packs/hardware/rtx-4090.yaml:2) by "
            f"{faster_card}/rtx-4090.yaml:3 (--pack-dir)") in text
    # the second run answers from the snapshot the first stored: it names it too
    again = estimate(capsys, "--pack-dir", str(faster_card))
    assert again["overrides"] == data["overrides"]


def test_a_replaced_formula_is_named(capsys, one_gib_total):
    lines = (ROOT / "packs" / "formulas" / "engine-memory.yaml").read_text().splitlines()
    line = lines.index("  total_gib:") + 1  # the definition it replaces
    data = estimate(capsys, "--pack-dir", str(one_gib_total))
    assert data["quantities"]["total_gib"]["value"] == 1
    assert data["overrides"] == [{
        "what": "formula total_gib", "location": f"{one_gib_total}/mine.yaml:8",
        "origin": "--pack-dir", "replaced": f"packs/formulas/engine-memory.yaml:{line}"}]


def test_the_report_names_it_in_every_language(capsys, faster_card):
    for language, words in (("en", "Replaced: the built-in hardware rtx-4090"),
                            ("de", "Ersetzt: das eingebaute hardware rtx-4090"),
                            ("es", "Sustituido: el hardware rtx-4090 integrado")):
        code, out, err = run(capsys, "report", "qwen3-8b", "--on", "rtx-4090", "--pack-dir",
                             str(faster_card), "--format", "markdown", "--lang", language)
        assert (code, err) == (0, "")
        assert words in " ".join(out.split())
    code, out, _ = run(capsys, "report", "qwen3-8b", "--on", "rtx-4090", "--pack-dir",
                       str(faster_card), "--format", "json")
    assert json.loads(out)["overrides"][0]["what"] == "hardware rtx-4090"


def test_a_folder_of_fitproof_pack_path_needs_consent(capsys, faster_card, monkeypatch):
    monkeypatch.setenv("FITPROOF_PACK_PATH", str(faster_card))
    code, out, err = run(capsys, "estimate", "qwen3-8b", "--on", "rtx-4090")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "fitproof: 1 problem in packs:",
        f"  {faster_card}/rtx-4090.yaml:3: override: replaces the built-in hardware rtx-4090 "
        "(packs/hardware/rtx-4090.yaml:2); a pack from FITPROOF_PACK_PATH may replace "
        "fitproof's own only with --allow-override (or FITPROOF_ALLOW_OVERRIDE=1)"]
    allowed = estimate(capsys, "--allow-override")
    assert allowed["overrides"][0]["origin"] == "FITPROOF_PACK_PATH"
    # the snapshot that run stored does not answer a run without consent
    code, out, err = run(capsys, "estimate", "qwen3-8b", "--on", "rtx-4090")
    assert (code, out) == (1, "") and "--allow-override" in err
    monkeypatch.setenv("FITPROOF_ALLOW_OVERRIDE", "1")
    assert estimate(capsys)["overrides"] == allowed["overrides"]


def test_the_python_api_asks_the_same(faster_card, monkeypatch):
    monkeypatch.setenv("FITPROOF_PACK_PATH", str(faster_card))
    with pytest.raises(PackError):
        api.load_registry(plugins=False)
    registry = api.load_registry(plugins=False, allow_override=True)
    assert [o.what for o in registry.overrides] == ["hardware rtx-4090"]


def test_the_site_page_names_it(faster_card, tmp_path):
    registry = api.load_registry([faster_card], plugins=False)
    out = tmp_path / "site"
    api.site(registry, str(out), models=["qwen3-8b"], hardware=["rtx-4090"], languages=["en"])
    for page in ("en/qwen3-8b/rtx-4090.html", "en/index.html", "en/qwen3-8b/index.html",
                 "en/hardware/rtx-4090.html", "index.html"):
        text = (out / page).read_text(encoding="utf-8")
        assert ('<p class="warning" data-override>Replaced: the built-in hardware rtx-4090 '
                '(packs/hardware/rtx-4090.yaml:2) by ') in text, page


@pytest.mark.parametrize("argv", [
    ["models", "--on", "rtx-4090"],
    ["measurements", "llama-3.1-8b", "--on", "rtx-4090"],
    ["explain", "decode_tps", "qwen3-8b", "--on", "rtx-4090", "--format", "latex"],
    ["sweep", "--models", "qwen3-8b", "--on", "rtx-4090"],
    ["packs", "list", "--kind", "hardware"],
])
def test_every_other_command_notes_it_first(capsys, faster_card, argv):
    code, out, err = run(capsys, *argv, "--pack-dir", str(faster_card))
    assert code == 0
    assert err.splitlines()[0] == (
        "fitproof: note: replaced: the built-in hardware rtx-4090 "
        f"(packs/hardware/rtx-4090.yaml:2) by {faster_card}/rtx-4090.yaml:3 (--pack-dir)")
    assert out


def test_a_pack_dir_replacement_is_answered_from_the_snapshot(faster_card):
    """A --pack-dir replacement needs no consent, so the next estimate of those packs comes
    from their stored snapshot, replacement named, as the full path gives it."""
    registry = api.load_registry([faster_card], plugins=False)
    assert [o.origin for o in registry.overrides] == ["--pack-dir"]
    assert api.store_snapshot(registry, pack_dirs=[faster_card], plugins=False) is True
    choices = {"model": "qwen3-8b", "hardware": "rtx-4090", "quant": None, "kv": None,
               "engine": None, "workload": None, "host": None}
    found = api.estimate_from_snapshot(choices, {}, pack_dirs=[faster_card], plugins=False)
    assert found is not None
    view, _ = found
    full = api.estimate_view(registry, api.scenario(registry, model="qwen3-8b",
                                                    hardware="rtx-4090"))
    assert view.quantities["decode_tps"].value == full.quantities["decode_tps"].value
    assert [o.origin for o in view.overrides] == ["--pack-dir"]
