"""Within one process, a pack file already structured (same path, origin and bytes) and a
pack set already linked are reused (core/registry/linking.py), and a formula text is parsed once
(core/formula/parser.py): counted work, not time. A changed file is read again."""

from __future__ import annotations

import pytest

import fitproof
import fitproof.registry.linking
import fitproof.specs
from fitproof.formula.parser import FormulaSyntaxError, parse_formula

from .conftest import REPO, write_pack


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    calls = [0]
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_second_load_structures_and_links_nothing_again(tmp_path, monkeypatch):
    card = (REPO / "packs/hardware/rtx-4090.yaml").read_text(encoding="utf-8")
    write_pack(tmp_path, "rtx-4090.yaml", "override: true\n" + card)  # a --pack-dir card
    first = fitproof.load_registry([tmp_path], plugins=False)
    loads = _counting(monkeypatch, fitproof.registry.linking, "load_pack")
    graphs = _counting(monkeypatch, fitproof.registry.linking, "profile_graph")
    second = fitproof.load_registry([tmp_path], plugins=False)
    assert loads[0] == 0 and graphs[0] == 0
    # its own Registry, the same packs and graph
    assert second is not first and second.graph is first.graph
    assert second.hardware["rtx-4090"] is first.hardware["rtx-4090"]

    # one file changed: that file alone is read and structured again, and the set linked
    path = tmp_path / "rtx-4090.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    third = fitproof.load_registry([tmp_path], plugins=False)
    assert loads[0] == 1 and graphs[0] == 1
    assert third.hardware["rtx-4090"] is not first.hardware["rtx-4090"]
    assert third.hardware["rtx-4090"] == first.hardware["rtx-4090"]


def test_a_file_that_became_broken_is_refused_after_a_good_load(tmp_path):
    write_pack(tmp_path, "memo-broken.yaml", "kind: hardware\nid: memo-broken\n")
    with pytest.raises(fitproof.PackError) as first:
        fitproof.load_registry([tmp_path], plugins=False)
    (tmp_path / "memo-broken.yaml").unlink()
    fitproof.load_registry([tmp_path], plugins=False)
    write_pack(tmp_path, "memo-broken.yaml", "kind: hardware\nid: memo-broken\n")
    with pytest.raises(fitproof.PackError) as again:
        fitproof.load_registry([tmp_path], plugins=False)
    assert [str(p) for p in again.value.problems] == [str(p) for p in first.value.problems]


def test_a_formula_is_parsed_once_and_a_rejected_one_every_time():
    text = "memo_a * 2 + memo_b"
    assert parse_formula(text) is parse_formula(text)
    for _ in range(2):
        with pytest.raises(FormulaSyntaxError, match="unknown function .__import__."):
            parse_formula("__import__('os')")
    with pytest.raises(FormulaSyntaxError, match="must be text"):
        parse_formula(["memo_a"])  # type: ignore[arg-type]
