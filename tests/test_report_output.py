"""The report's formats: JSON valid against its schema, text within 100 columns, Markdown
that reads like the seed page."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from fitproof.cli import main
from fitproof.renderers.blocks import width
from fitproof.files.validation import load_schema


def run(capsys, *argv: str, profile: str = "seed") -> str:
    """The CLI's output, by default on the seed pages' formulas (whose figures these
    tests compare with the pages)."""
    assert main([argv[0], "--no-plugins", "--profile", profile, *argv[1:]]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ("report",),
    ("report", "qwen3.5-122b-a10b", "--on", "rtx-3060-12gb", "--context", "128K"),
    ("report", "qwen3.5-35b-a3b", "--on", "mac-mini-m4-pro-64gb", "--workload", "lora"),
    ("report", "qwen3.5-35b-a3b", "--on", "h800-80gb-sxm", "--gpus", "2", "--kv", "q8_0",
     "--lang", "de"),
])
def test_report_json_matches_its_schema(capsys, argv):
    data = json.loads(run(capsys, *argv, "--format", "json"))
    Draft202012Validator(load_schema("report-output")).validate(data)
    # one row per accelerator pack (hosts, backend cpu, are not accelerators)
    assert len(data["compatibility"]["rows"]) == _accelerators()
    assert [q["quant"] for q in data["quantizations"]][0] == "BF16"


def _accelerators() -> int:
    """How many accelerator packs ship: read off the packs, so that adding one breaks no
    test."""
    import fitproof

    return len(fitproof.load_registry(plugins=False).accelerators)


def test_estimate_json_matches_its_schema(capsys):
    data = json.loads(run(capsys, "estimate", "--json"))
    Draft202012Validator(load_schema("estimate-output")).validate(data)


@pytest.mark.parametrize("profile", ["seed", "measured"])
def test_text_report_fits_100_columns(capsys, profile):
    out = run(capsys, "report", "qwen3.5-35b-a3b", "--on", "rtx-3090", profile=profile)
    too_wide = [line for line in out.splitlines() if width(line) > 100]
    assert too_wide == []
    assert "Fits with Safe Headroom" in out


def test_markdown_reads_like_the_seed_page(capsys):
    out = run(capsys, "report", "qwen3.5-35b-a3b", "--on", "rtx-3090", "--format", "markdown")
    lines = out.splitlines()
    assert lines[0] == "# Qwen3.5 35B-A3B on RTX 3090 — VRAM, KV cache & speed"
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == [
        "## Sizing at a glance", "## Memory Allocation Breakdown (GiB)",
        "## Recommended Hardware for Current Configuration", "## Production Launch Commands",
        "## Live Token Speed Simulator (TTFT ~692ms · ~163.9 tok/s)",
        "## Cloud GPU Comparison & Rent-vs-Buy TCO",
        "## Fine-Tuning VRAM Requirements (QLoRA / LoRA / Full) — Qwen3.5 35B-A3B",
        "## Engineering Sizing Notes & Optimization Playbook",
        "## VRAM Scaling Across Context Windows (4K to 256K, 4-bit Weights)",
        f"## Qwen3.5 35B-A3B × {_accelerators()} accelerators (4-bit Q4_K_M)",
        "## Quantization, Memory & Throughput Matrix — Qwen3.5 35B-A3B @ 8K",
        "## Technical Specifications & FAQ", "## Other models on this hardware",
        "## This model on other hardware"]
    assert "- **Required GPU Memory:** 21.28 GiB · 22.85 GB (decimal)" in lines
    assert "| NVIDIA RTX 3090 | 24 GB (22.8 GiB) | 936 GB/s | 21.28 GiB | 21.75 GiB | " \
           "~163.9 tok/s | Fits with Safe Headroom |" in lines
    assert ("| Vultr ($300 Free Credit\\*) | 1x L40S 48GB (Dedicated Instance · $300 Credit\\*) "
            "| 48 GB | $1.67 / hr | $203.19 / mo | Hourly | https://www.vultr.com |") in lines
    # the providers with no offer on the seed pages are named as outside the profile's rule
    assert ("No offer from Amazon Web Services (EC2), Microsoft Azure, CoreWeave, Crusoe Cloud, "
            "Google Cloud (Compute Engine), Hyperstack, Lambda, Nebius AI Cloud, Oracle Cloud "
            "Infrastructure is among those the “Seed pages” profile compares.") in lines
    assert "llama-server -hf unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M \\" in lines


def test_report_with_no_arguments_is_the_default_scenario(capsys):
    assert main(["--no-plugins"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Qwen3.5 35B-A3B on RTX 3090 — VRAM, KV cache & speed\n")


def test_unknown_language(capsys):
    assert main(["report", "--no-plugins", "--lang", "fr"]) == 2
    assert capsys.readouterr().err.strip() == (
        "fitproof: error: no catalog for language 'fr'; available: de, en, es")


def test_markdown_shows_pack_text_literally(tmp_path):
    """A pack's name with HTML, a link and emphasis: the Markdown report shows the
    characters, and no renderer would make a tag, a link or bold text of them."""
    import subprocess
    import sys

    (tmp_path / "evil-card.yaml").write_text(
        "kind: hardware\nid: evil-card\n"
        "name: '<img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold** | cell'\n"
        "vendor: Acme\nsource: test\nunified_memory: false\nmemory_gb: 48\n"
        "memory_bandwidth_gbs: 900\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "fitproof", "report", "--on", "evil-card",
                             "--pack-dir", str(tmp_path), "--format", "markdown",
                             "--no-plugins"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shown = ("&lt;img src=x onerror=alert(1)> \\[click\\](javascript:alert(1)) \\*\\*bold\\*\\* "
             "\\| cell")
    assert shown in result.stdout
    assert "<img" not in result.stdout and "[click]" not in result.stdout
