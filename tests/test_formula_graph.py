"""Load-time checks across packs: unknown names, cycles, conflicts, overrides."""

from __future__ import annotations

import textwrap

import pytest

import fitproof
from fitproof.errors import PackError

from .conftest import pack_line, write_pack


def load_with(tmp_path, **files: str) -> fitproof.Registry:
    for name, text in files.items():
        write_pack(tmp_path, name.replace("__", "/") + ".yaml", textwrap.dedent(text))
    return fitproof.load_registry([tmp_path], plugins=False, profile="seed")


def problems_of(tmp_path, **files: str) -> list[str]:
    with pytest.raises(PackError) as caught:
        load_with(tmp_path, **files)
    return [str(p) for p in caught.value.problems]


def test_unknown_name_gets_a_suggestion(tmp_path):
    found = problems_of(tmp_path, extra="""\
        kind: formulas
        id: extra
        formulas:
          doubled:
            expr: 2 * total_gbi
            unit: GiB
            description: Twice the requirement
        """)
    assert found == [f"{tmp_path}/extra.yaml:4: formulas.doubled.expr: unknown name "
                     "'total_gbi'; did you mean total_gb, total_gib?"]


def test_unknown_namespace_field(tmp_path):
    found = problems_of(tmp_path, extra="""\
        kind: formulas
        id: extra
        formulas:
          width:
            expr: model.hiden_size
            unit: "1"
            description: Typo in a field
        """)
    assert found == [f"{tmp_path}/extra.yaml:4: formulas.width.expr: unknown name "
                     "'model.hiden_size'; did you mean model.hidden_size?"]


def test_cycle_names_every_step_and_file(tmp_path):
    found = problems_of(tmp_path, extra="""\
        kind: formulas
        id: extra
        formulas:
          ping:
            expr: pong + 1
            unit: "1"
            description: One side
          pong:
            expr: ping * 2
            unit: "1"
            description: The other side
        """)
    path = f"{tmp_path}/extra.yaml"
    assert found == [f"{path}:4: ping: formulas form a cycle: ping → pong → ping; defined at "
                     f"ping ({path}:4), pong ({path}:8)"]


def test_conflicting_definition_names_both_files(tmp_path):
    found = problems_of(tmp_path, extra="""\
        kind: formulas
        id: extra
        formulas:
          overhead_gib:
            expr: 1.0
            unit: GiB
            description: A different buffer
        """)
    assert found == [f"{tmp_path}/extra.yaml:4: formulas.overhead_gib: formula 'overhead_gib' "
                     f"is already defined at {pack_line('formulas/engine-memory.yaml', 'overhead_gib')}; "
                     "add 'override: true' to replace it"]


def test_explicit_override_wins_and_is_shown(tmp_path):
    registry = load_with(tmp_path, extra="""\
        kind: formulas
        id: extra
        formulas:
          overhead_gib:
            expr: 1.0
            unit: GiB
            description: A bigger buffer for my engine build
            override: true
        """)
    result = fitproof.estimate("qwen3.5-35b-a3b", "arc-pro-b60", registry=registry)
    assert result.value("overhead_gib") == 1.0
    assert result.value("total_gib") == 21.72
    derivation = result.derivation("overhead_gib")
    assert derivation.location == f"{tmp_path}/extra.yaml:4"
    assert derivation.replaced == (pack_line("formulas/seed-memory.yaml", "overhead_gib"),)


def test_override_without_a_target(tmp_path):
    found = problems_of(tmp_path, extra="""\
        kind: formulas
        id: extra
        formulas:
          brand_new:
            expr: 1
            unit: "1"
            description: Nothing to override
            override: true
        """)
    assert found == [f"{tmp_path}/extra.yaml:4: formulas.brand_new.override: override: true, "
                     "but no other pack defines 'brand_new'"]


def test_duplicate_pack_id_names_both_sources(tmp_path):
    builtin = (fitproof.load_registry(plugins=False).hardware["rtx-3090"])
    text = textwrap.dedent("""\
        kind: hardware
        id: rtx-3090
        name: Another 3090
        vendor: Nobody
        source: test
        unified_memory: false
        memory_gb: 24
        memory_bandwidth_gbs: 900
        """)
    write_pack(tmp_path, "rtx-3090.yaml", text)
    with pytest.raises(PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False, profile="seed")
    assert [str(p) for p in caught.value.problems] == [
        f"{tmp_path}/rtx-3090.yaml:2: id: hardware id 'rtx-3090' is already defined by "
        f"{builtin.pack.path} (from fitproof); ids must be unique, or add 'override: true' "
        "to replace it"]


def test_verdict_rules_must_end_with_a_catch_all(tmp_path):
    found = problems_of(tmp_path, verdicts="""\
        kind: verdicts
        id: verdicts
        override: true
        rules:
          - id: exceeds
            label: Too big
            when: total_gib > usable_gib
        """)
    assert found == [f"{tmp_path}/verdicts.yaml:5: rules.0.when: the last verdict rule must be "
                     "'when: true' so that every scenario gets a verdict"]


def test_a_second_set_of_verdict_rules_must_replace_the_first(tmp_path):
    found = problems_of(tmp_path, strict_rules="""\
        kind: verdicts
        id: strict_rules
        rules:
          - id: fits
            label: Fits
            when: "true"
        """)
    assert len(found) == 1 and found[0].startswith(f"{tmp_path}/strict_rules.yaml:3: rules: "
                                                   "verdict rules are already defined at "
                                                   "packs/rules/verdicts.yaml:")


def test_a_pack_can_replace_a_builtin_pack_by_declaring_it(tmp_path):
    write_pack(tmp_path, "rtx-3090.yaml", textwrap.dedent("""\
        kind: hardware
        id: rtx-3090
        override: true
        name: RTX 3090 (power-capped)
        vendor: NVIDIA
        source: my own measurement
        unified_memory: false
        memory_gb: 24
        memory_bandwidth_gbs: 800
        """))
    registry = fitproof.load_registry([tmp_path], plugins=False, profile="seed")
    pack = registry.pack_of("hardware", "rtx-3090")
    assert pack.path == f"{tmp_path}/rtx-3090.yaml"
    assert [p.path for p in pack.replaces] == ["packs/hardware/rtx-3090.yaml"]
    assert registry.hardware["rtx-3090"].memory_bandwidth_gbs.value == 800
    assert len([p for p in registry.packs if p.id == "rtx-3090"]) == 1


def test_override_without_anything_to_replace(tmp_path):
    write_pack(tmp_path, "new-card.yaml", textwrap.dedent("""\
        kind: hardware
        id: new-card
        override: true
        name: New card
        vendor: Acme
        source: test
        unified_memory: false
        memory_gb: 8
        memory_bandwidth_gbs: 100
        """))
    with pytest.raises(PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False, profile="seed")
    assert [str(p) for p in caught.value.problems] == [
        f"{tmp_path}/new-card.yaml:3: override: override: true, but no other pack defines "
        "hardware 'new-card'"]
