"""Locations are values (file, line, key path) all the way to a derivation's leaves, never
``file:line`` strings parsed back."""

from __future__ import annotations

import fitproof
from fitproof.specs import Location

from .conftest import pack_line


def leaves(derivation):
    if not derivation.inputs:
        yield derivation
    for step in derivation.inputs:
        yield from leaves(step)


def test_a_derivation_leaf_names_its_file_line_and_key_path():
    estimate = fitproof.estimate("qwen3-8b", "rtx-4090", context=16384)
    found = {d.name: d for d in leaves(estimate.derivation("decode_tps"))}
    bandwidth = found["hardware.memory_bandwidth_gbs"].at
    assert isinstance(bandwidth, Location)
    assert bandwidth.path == ("memory_bandwidth_gbs",)
    assert str(bandwidth) == pack_line("hardware/rtx-4090.yaml", "memory_bandwidth_gbs")
    # a keyed engine figure: the path goes down to the key it was read for
    keyed = [d.at for d in found.values() if d.name == "engine.decode_bandwidth_efficiency"]
    assert keyed and keyed[0].path[-1] == "cuda"
    # an input given on the command line names what gave it
    context = found.get("context")
    assert context is not None and context.at.file == "given" and context.at.line is None


def test_a_formula_step_points_at_its_definition():
    estimate = fitproof.estimate("qwen3-8b", "rtx-4090")
    step = estimate.derivation("physical_gb")
    assert step.at.file == "packs/formulas/seed-memory.yaml"
    assert step.at.path == ("formulas", "physical_gb")
    assert step.location == pack_line("formulas/seed-memory.yaml", "physical_gb")
