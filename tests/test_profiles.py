"""Profiles: named sets of formula packs, chosen with --profile."""

from __future__ import annotations

import json
import textwrap

import pytest

import fitproof

import fitproof
from fitproof.cli import main

from .conftest import write_pack

pytestmark = pytest.mark.slow

SCENARIO = ["llama-3.1-8b", "--on", "rtx-4090", "--no-plugins"]

LEAN = """\
    kind: profile
    id: lean
    name: Lean
    description: The seed formulas with a smaller engine overhead (test profile).
    extends: seed
    source: test
    """

LEAN_FORMULAS = """\
    kind: formulas
    id: lean-memory
    profile: lean
    name: Lean memory
    source: test
    formulas:
      overhead_gib:
        expr: 0.25
        unit: GiB
        description: Engine buffers (test figure)
        override: {override}
    """


def estimate(capsys, *argv: str) -> tuple[int, dict, str]:
    code = main(["estimate", *SCENARIO, "--json", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


def test_the_default_profile_is_measured_and_naming_it_changes_nothing(capsys):
    assert fitproof.load_registry(plugins=False).profile == "measured"
    _, default, _ = estimate(capsys)
    code, measured, err = estimate(capsys, "--profile", "measured")
    assert code == 0 and err == ""
    assert measured["quantities"] == default["quantities"]
    _, seed, _ = estimate(capsys, "--profile", "seed")
    assert seed["quantities"] != default["quantities"]


def test_an_extending_profile_replaces_only_what_it_overrides(capsys, tmp_path):
    write_pack(tmp_path, "lean.yaml", textwrap.dedent(LEAN))
    write_pack(tmp_path, "lean-memory.yaml", textwrap.dedent(LEAN_FORMULAS.format(override="true")))
    _, seed, _ = estimate(capsys, "--pack-dir", str(tmp_path), "--profile", "seed")
    code, lean, err = estimate(capsys, "--pack-dir", str(tmp_path), "--profile", "lean")
    assert code == 0 and err == ""
    assert seed["quantities"]["overhead_gib"]["value"] == 0.56
    assert lean["quantities"]["overhead_gib"]["value"] == 0.25
    assert lean["quantities"]["weights_gib"] == seed["quantities"]["weights_gib"]
    # the total moves by exactly the difference of the overheads
    assert lean["quantities"]["total_gib"]["value"] == pytest.approx(
        seed["quantities"]["total_gib"]["value"] - 0.31, abs=0.011)


def test_a_redefinition_without_override_names_both_lines(capsys, tmp_path):
    write_pack(tmp_path, "lean.yaml", textwrap.dedent(LEAN))
    write_pack(tmp_path, "lean-memory.yaml", textwrap.dedent(LEAN_FORMULAS.format(override="false")))
    code, _, err = estimate(capsys, "--pack-dir", str(tmp_path), "--profile", "lean")
    assert code == 1
    assert "lean-memory.yaml:7: formulas.overhead_gib: formula 'overhead_gib' is already " \
           "defined at packs/formulas/seed-memory.yaml:" in err


def test_unknown_profile_is_one_line_exit_2(capsys):
    code, _, err = estimate(capsys, "--profile", "sed")
    assert code == 2
    assert err.strip().splitlines() == ["fitproof: error: unknown profile 'sed'; choose one of measured, seed"]


@pytest.mark.parametrize("text, message", [
    ("""\
     kind: profile
     id: second
     name: Second
     description: Another default.
     default: true
     source: test
     """, "second.yaml:5: default: profile 'measured' (packs/profiles/measured.yaml) is already the "
          "default; only one profile may say 'default: true'"),
    ("""\
     kind: profile
     id: orphan
     name: Orphan
     description: Extends nothing that exists.
     extends: sed
     source: test
     """, "orphan.yaml:5: extends: unknown profile 'sed'; did you mean 'seed'?"),
    ("""\
     kind: formulas
     id: stray
     profile: meassured
     name: Stray
     source: test
     formulas:
       stray_quantity: {expr: 1, unit: GiB, description: Stray}
     """, "stray.yaml:3: profile: unknown profile 'meassured'; did you mean 'measured'?"),
])
def test_profile_cross_checks(tmp_path, text, message):
    name = message.split(":")[0]
    write_pack(tmp_path, name, textwrap.dedent(text))
    with pytest.raises(fitproof.PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False, use_cache=False)
    assert [f"{p}".replace(f"{tmp_path}/", "") for p in caught.value.problems] == [message]


def test_profiles_extending_each_other_in_a_cycle(tmp_path):
    for me, parent in (("ping", "pong"), ("pong", "ping")):
        write_pack(tmp_path, f"{me}.yaml", textwrap.dedent(f"""\
            kind: profile
            id: {me}
            name: {me}
            description: Half of a cycle.
            extends: {parent}
            source: test
            """))
    with pytest.raises(fitproof.PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False, use_cache=False)
    shown = [f"{p}".replace(f"{tmp_path}/", "") for p in caught.value.problems]
    assert shown == ["ping.yaml:5: extends: profiles extend each other in a cycle: ping → pong → ping",
                     "pong.yaml:5: extends: profiles extend each other in a cycle: pong → ping → pong"]
