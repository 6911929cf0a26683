"""The example third-party plugin, installed with pip: its packs appear, validate and work;
uninstalling it removes them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

EXAMPLE = REPO / "examples" / "fitproof-example-pack"
DISTRIBUTION = "fitproof-example-pack"


def pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=300)


def fitproof(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fitproof", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def installed_example(tmp_path):
    """Install the example from a copy (so the build leaves the repo clean); uninstall after."""
    if pip("show", DISTRIBUTION).returncode == 0:
        pytest.fail(f"{DISTRIBUTION} is already installed; uninstall it to run this test")
    source = tmp_path / "fitproof-example-pack"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    # offline and against the fitproof under test: no index, no dependency resolution
    done = pip("install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
               str(source))
    assert done.returncode == 0, done.stderr
    try:
        yield
    finally:
        pip("uninstall", "--yes", "--quiet", DISTRIBUTION)


def test_the_installed_plugin_adds_its_packs_and_uninstalling_removes_them(installed_example):
    listed = fitproof("packs", "list", "--json")
    assert listed.returncode == 0 and listed.stderr == ""
    origins = {(p["kind"], p["id"]): p["origin"] for p in json.loads(listed.stdout)}
    assert origins[("hardware", "nvidia-a10g-24gb")] == "fitproof-example-pack:example"
    assert origins[("provider", "beam-cloud")] == "fitproof-example-pack:example"

    shown = fitproof("packs", "show", "a10g")
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[:4] == [
        "hardware nvidia-a10g-24gb: NVIDIA A10G 24GB",
        "  file:   fitproof-example-pack:packs/hardware/nvidia-a10g-24gb.yaml",
        "  from:   fitproof-example-pack:example",
        "  wins:   the only hardware pack with id 'nvidia-a10g-24gb'"]

    packs = EXAMPLE / "src" / "fitproof_example_pack" / "packs"
    validated = fitproof("packs", "validate", str(packs))
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.splitlines()[-1] == "2 pack files checked: all valid"

    estimate = fitproof("estimate", "qwen3-8b", "--on", "A10G", "--json")
    assert estimate.returncode == 0, estimate.stderr
    data = json.loads(estimate.stdout)
    assert data["scenario"]["hardware"] == "nvidia-a10g-24gb"
    usable = data["quantities"]["usable_gib"]
    # 24 GiB less the 1 % the driver reserves (llama.cpp fills all the rest)
    assert usable["value"] == round(24 * (1 - 0.01), 2) == 23.76
    assert data["verdict"]["label"] == "Fits with Safe Headroom"
    # the plugin's cloud offer shows up in the report's cloud comparison
    report = fitproof("report", "qwen3-8b", "--on", "A10G", "--format", "json")
    assert report.returncode == 0, report.stderr
    offers = [row for row in json.loads(report.stdout)["cloud"]["providers"]
              if row["provider"] == "beam-cloud"]
    assert [(o["offer"], o["hourly"]["value"], o["billing"]) for o in offers] == [
        ("beam-cloud/a10g", 1.6818, "per-second")]

    # the plugin's output format: estimate --format csv, with the values of --json
    table = fitproof("estimate", "qwen3-8b", "--on", "A10G", "--format", "csv")
    assert table.returncode == 0 and table.stderr == "", table.stderr
    lines = table.stdout.splitlines()
    assert lines[0] == "quantity,value,unit,source"
    rows = {line.split(",")[0]: line.split(",") for line in lines[1:]}
    assert float(rows["usable_gib"][1]) == pytest.approx(usable["value"], abs=0.05)
    assert rows["usable_gib"][2] == "GiB"
    assert rows["total_gib"][3] == data["quantities"]["total_gib"]["source"]
    assert len(rows) == len(data["quantities"])
    # the format exists for estimate only: report lists its own formats
    wrong = fitproof("report", "qwen3-8b", "--on", "A10G", "--format", "csv")
    assert wrong.returncode == 2
    assert wrong.stderr == ("fitproof: error: fitproof report has no output format 'csv'; "
                            "choose from text, markdown, html, json\n")

    pip("uninstall", "--yes", "--quiet", DISTRIBUTION)
    after = fitproof("estimate", "qwen3-8b", "--on", "A10G")
    assert after.returncode == 2
    assert after.stderr == ("fitproof: error: unknown hardware 'A10G'; did you mean "
                            "a10, a100-80gb-sxm, a100-40gb-sxm?\n")
    listed = json.loads(fitproof("packs", "list", "--json").stdout)
    assert not [p for p in listed if p["origin"].startswith(DISTRIBUTION)]
