"""``fitproof detect`` and ``--on auto``: fake device tools on PATH (small shell scripts),
never the test machine's own hardware."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fitproof.importers.detect
from fitproof.cli import main
from fitproof.api.validate import validate_paths

from .conftest import watchdog

SLEEP = shutil.which("sleep") or "/bin/sleep"
RTX_4090_BOX = "NVIDIA GeForce RTX 4090, 24564, 2\nNVIDIA GeForce RTX 4090, 24564, 2\n"


@pytest.fixture
def tools(tmp_path, monkeypatch):
    """A folder that is the whole PATH; ``tools(name, script)`` puts a tool in it. The host's
    RAM comes from a file of the test's (missing until ``meminfo`` is written)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setenv("FITPROOF_MEMINFO", str(tmp_path / "meminfo"))

    def add(name: str, script: str) -> Path:
        path = folder / name
        path.write_text("#!/bin/sh\n" + script, encoding="utf-8")
        path.chmod(0o755)
        return path
    add.folder = folder  # type: ignore[attr-defined]
    add.meminfo = tmp_path / "meminfo"  # type: ignore[attr-defined]
    return add


def printing(text: str) -> str:
    """A script body that prints ``text`` (no single quotes in it) exactly."""
    assert "'" not in text
    return f"printf '%s' '{text}'\n"


def nvidia_smi(tools, text: str) -> None:
    tools("nvidia-smi", printing(text))


def sysctl(tools, brand: str, memsize: int) -> None:
    tools("sysctl", f'case "$2" in\n  machdep.cpu.brand_string) echo "{brand}" ;;\n'
                    f'  hw.memsize) echo {memsize} ;;\n  *) exit 1 ;;\nesac\n')


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--no-plugins", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def detected(capsys) -> dict:
    code, out, err = run(capsys, "detect", "--json")
    assert (code, err) == (0, ""), err
    return json.loads(out)


def auto_estimate(capsys, *extra: str) -> tuple[dict, str]:
    code, out, err = run(capsys, "estimate", "llama-3.1-8b", "--on", "auto", "--json", *extra)
    assert code == 0, err
    return json.loads(out)["scenario"], err


def test_two_rtx_4090s_are_one_entry_and_auto_uses_both(tools, capsys):
    nvidia_smi(tools, RTX_4090_BOX)
    data = detected(capsys)
    assert [(d["name"], d["count"], d["hardware"], d["memory_bytes"], d["tool"], d["template"])
            for d in data["devices"]] == [
        ("NVIDIA GeForce RTX 4090", 2, "rtx-4090", 24564 * 2**20, "nvidia-smi", None)]
    assert data["auto"] == {"hardware": "rtx-4090", "gpus": 2}
    scenario, err = auto_estimate(capsys)
    assert (scenario["hardware"], scenario["gpus"]) == ("rtx-4090", 2)
    assert err == "fitproof: detected 2 x NVIDIA GeForce RTX 4090 -> rtx-4090\n"


def test_gpus_given_on_the_command_line_wins(tools, capsys):
    nvidia_smi(tools, RTX_4090_BOX)
    scenario, _ = auto_estimate(capsys, "--gpus", "1")
    assert (scenario["hardware"], scenario["gpus"]) == ("rtx-4090", 1)


def test_the_text_output(tools, capsys):
    nvidia_smi(tools, RTX_4090_BOX)
    tools.meminfo.write_text("MemTotal:       65799664 kB\nMemFree:  1 kB\n", encoding="utf-8")
    code, out, err = run(capsys, "detect")
    assert (code, err) == (0, "")
    assert out == ("2 x NVIDIA GeForce RTX 4090 · 24 GiB each · cuda (nvidia-smi)\n"
                   "  hardware pack: rtx-4090 (NVIDIA RTX 4090)\n"
                   f"host RAM: 62.8 GiB ({tools.meminfo})\n"
                   "--on auto: --on rtx-4090 --gpus 2\n")


def test_unlike_devices_are_one_machine_largest_first(tools, capsys):
    nvidia_smi(tools, "Tesla T4, 15360, 2\nNVIDIA GeForce RTX 4090, 24564, 2\n"
                      "NVIDIA GeForce RTX 4090, 24564, 2\n")
    data = detected(capsys)
    assert [(d["hardware"], d["count"]) for d in data["devices"]] == [("rtx-4090", 2), ("t4", 1)]
    assert data["auto"] == {"hardware": "rtx-4090:2,t4", "gpus": 1}
    scenario, err = auto_estimate(capsys)
    # llama.cpp splits the layers over all three, each in proportion to its memory
    assert (scenario["hardware"], scenario["devices"], scenario["gpus"]) == (
        "rtx-4090+rtx-4090+t4", ["rtx-4090", "rtx-4090", "t4"], 3)
    assert err == ("fitproof: detected 2 x NVIDIA GeForce RTX 4090, 1 x Tesla T4 -> "
                   "rtx-4090:2,t4\n")
    code, out, _ = run(capsys, "detect")
    assert out.splitlines()[-1] == "--on auto: --on rtx-4090:2,t4"


def test_a_unified_memory_machine_is_not_split_with_a_card(tools, capsys):
    nvidia_smi(tools, RTX_4090_BOX)
    sysctl(tools, "Apple M3 Max", 36 * 2**30)
    scenario, _ = auto_estimate(capsys)
    assert (scenario["hardware"], scenario["gpus"]) == ("rtx-4090", 2)


def test_a_name_no_alias_holds_maps_by_a_run_of_its_words_and_its_memory(tools, capsys):
    # "NVIDIA H100 80GB HBM3" (81559 MiB): "NVIDIA H100 80GB" names the SXM pack
    nvidia_smi(tools, "NVIDIA H100 80GB HBM3, 81559, 1\n")
    assert detected(capsys)["devices"][0]["hardware"] == "h100-80gb-sxm"


def test_memory_keeps_a_name_from_mapping_to_another_card(tools, capsys):
    # the laptop RTX 4090 has 16 GB: "4090" names the 24 GB desktop card, so no pack
    nvidia_smi(tools, "NVIDIA GeForce RTX 4090 Laptop GPU, 16376, 1\n")
    device = detected(capsys)["devices"][0]
    assert (device["hardware"], device["candidates"]) == (None, [])
    assert 'name: "GeForce RTX 4090 Laptop GPU"' in device["template"]


def test_an_unknown_device_gets_a_pack_template_that_validates_once_filled(tools, capsys,
                                                                            tmp_path):
    nvidia_smi(tools, "NVIDIA Acme X9, 49140, 1\n")
    data = detected(capsys)
    device = data["devices"][0]
    assert (device["hardware"], data["auto"]) == (None, None)
    template = device["template"]
    for line in ("kind: hardware", "id: acme-x9", 'name: "Acme X9"', 'vendor: "NVIDIA"',
                 'aliases: ["NVIDIA Acme X9"]', "unified_memory: false", "backend: cuda",
                 "memory_gb: 51.53  # detected: 49140 MiB (nvidia-smi); check it against "
                 "the datasheet", "memory_bandwidth_gbs:  # required: peak memory bandwidth "
                 "in GB/s"):
        assert line in template.splitlines(), line
    assert "CONTRIBUTING.md" in template
    filled = (template.replace("source: []", "source: [https://example.com/x9.pdf]")
              .replace("memory_bandwidth_gbs:", "memory_bandwidth_gbs: 1000  #"))
    pack = tmp_path / "acme-x9.yaml"
    pack.write_text(filled, encoding="utf-8")
    assert validate_paths([str(pack)], plugins=False).ok
    code, out, err = run(capsys, "estimate", "llama-3.1-8b", "--on", "auto")
    assert (code, out) == (2, "")
    assert err == ("fitproof: error: detected 1 x NVIDIA Acme X9, which no hardware pack "
                   "describes; `fitproof detect` prints a pack template for it, or name one "
                   "with --on\n")
    # with the filled-in pack, the same device maps to it (its alias is the printed name)
    code, out, err = run(capsys, "--pack-dir", str(tmp_path), "detect", "--json")
    assert json.loads(out)["devices"][0]["hardware"] == "acme-x9"


def test_the_text_output_of_an_unknown_device_shows_the_template(tools, capsys):
    nvidia_smi(tools, "NVIDIA Acme X9, 49140, 1\n")
    code, out, err = run(capsys, "detect")
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == ["1 x NVIDIA Acme X9 · 48 GiB · cuda (nvidia-smi)",
                         "  no hardware pack describes it; a template to start one (save it, "
                         "fill it in, use it with --pack-dir):",
                         "    # A hardware pack for the NVIDIA Acme X9 that nvidia-smi "
                         "reports."]
    assert "    kind: hardware" in lines


ROCM_SMI_JSON = json.dumps({
    "card0": {"Card Series": "AMD Instinct MI300X", "Card Model": "0x74a1",
              "Card Vendor": "Advanced Micro Devices, Inc. [AMD/ATI]", "Card SKU": "M3000100",
              "VRAM Total Memory (B)": "205822885888", "VRAM Total Used Memory (B)": "1"},
    "card1": {"Card Series": "AMD Instinct MI300X", "Card Model": "0x74a1",
              "VRAM Total Memory (B)": "205822885888", "VRAM Total Used Memory (B)": "1"},
    "system": {"Driver version": "6.7.0"},
}, indent=4)


def test_rocm_smi_json(tools, capsys):
    tools("rocm-smi", printing(ROCM_SMI_JSON))
    data = detected(capsys)
    assert [(d["name"], d["count"], d["hardware"], d["backend"], d["tool"])
            for d in data["devices"]] == [("AMD Instinct MI300X", 2, "mi300x", "rocm", "rocm-smi")]
    scenario, err = auto_estimate(capsys)
    assert (scenario["hardware"], scenario["gpus"]) == ("mi300x", 2)
    assert err == "fitproof: detected 2 x AMD Instinct MI300X -> mi300x\n"


def test_an_older_rocm_smi_with_a_marketing_name_in_brackets(tools, capsys):
    old = {"card0": {"Card series": "Navi 31 [Radeon PRO W7900]", "Card model": "0x7448",
                     "VRAM Total Memory (B)": str(48 * 2**30)}}
    tools("rocm-smi", "echo WARNING: a line before the JSON\n" + printing(json.dumps(old)))
    device = detected(capsys)["devices"][0]
    assert (device["name"], device["hardware"]) == ("Navi 31 [Radeon PRO W7900]",
                                                    "radeon-pro-w7900")


def test_amd_smi_when_there_is_no_rocm_smi(tools, capsys):
    static = {"gpu_data": [{"gpu": 0, "asic": {"market_name": "AMD Radeon PRO W7900"},
                            "vram": {"type": "GDDR6", "size": {"value": 49136, "unit": "MB"}}}]}
    tools("amd-smi", printing(json.dumps(static)))
    device = detected(capsys)["devices"][0]
    assert (device["hardware"], device["memory_bytes"], device["tool"]) == (
        "radeon-pro-w7900", 49136 * 2**20, "amd-smi")


@pytest.mark.parametrize("memory, pack", [(128, "apple-m3-max-40c-128gb"),
                                          (48, "apple-m3-max-40c-48gb")])
def test_an_apple_chip_maps_by_its_name_and_memory(tools, capsys, memory, pack):
    sysctl(tools, "Apple M3 Max", memory * 2**30)
    data = detected(capsys)
    assert [(d["name"], d["hardware"], d["backend"]) for d in data["devices"]] == [
        ("Apple M3 Max", pack, "metal")]
    # no /proc/meminfo: a Mac's memory is the host's
    assert (data["host_ram_bytes"], data["host_ram_source"]) == (memory * 2**30,
                                                                 "sysctl hw.memsize")
    scenario, err = auto_estimate(capsys)
    assert (scenario["hardware"], scenario["gpus"]) == (pack, 1)
    assert err == f"fitproof: detected 1 x Apple M3 Max -> {pack}\n"


def test_an_apple_chip_with_a_memory_no_pack_has_gets_a_template(tools, capsys):
    sysctl(tools, "Apple M3 Max", 36 * 2**30)
    template = detected(capsys)["devices"][0]["template"].splitlines()
    for line in ("id: apple-m3-max-36gb", 'name: "M3 Max 36GB"', 'vendor: "Apple"',
                 'aliases: ["Apple M3 Max 36GB"]', "unified_memory: true", "backend: metal"):
        assert line in template, line
    assert ("memory_gb: 36  # detected: 38654705664 bytes (sysctl hw.memsize); check it "
            "against the datasheet") in template


def test_an_intel_mac_has_no_apple_chip(tools, capsys):
    sysctl(tools, "Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", 32 * 2**30)
    code, out, err = run(capsys, "estimate", "llama-3.1-8b", "--on", "auto")
    assert code == 2
    assert err == ("fitproof: error: no accelerator detected: nvidia-smi and rocm-smi were not "
                   "found; sysctl reports no Apple chip (\"Intel(R) Core(TM) i9-9880H CPU @ "
                   "2.30GHz\"); name one with --on\n")


def test_nothing_detected(tools, capsys):
    code, out, err = run(capsys, "detect")
    assert (code, out, err) == (0, "no accelerator detected: nvidia-smi, rocm-smi and sysctl "
                                   "were not found\n", "")
    for command in (["estimate", "llama-3.1-8b"], ["report", "llama-3.1-8b"],
                    ["explain", "total_gib", "llama-3.1-8b"], ["models"]):
        code, out, err = run(capsys, *command, "--on", "auto")
        assert (code, out) == (2, ""), command
        assert err == ("fitproof: error: no accelerator detected: nvidia-smi, rocm-smi and "
                       "sysctl were not found; name one with --on\n")


def test_a_tool_that_fails(tools, capsys):
    tools("nvidia-smi", "echo \"NVIDIA-SMI has failed because it couldn't communicate with "
                        "the NVIDIA driver.\" >&2\nexit 9\n")
    message = ("fitproof: error: nvidia-smi failed (exit 9): \"NVIDIA-SMI has failed because "
               "it couldn't communicate with the NVIDIA driver.\"\n")
    for command in (["detect"], ["estimate", "llama-3.1-8b", "--on", "auto"]):
        code, out, err = run(capsys, *command)
        assert (code, out, err) == (2, "", message)


def test_a_tool_that_exits_1_saying_nothing(tools, capsys):
    tools("nvidia-smi", "exit 1\n")
    assert run(capsys, "detect") == (2, "", "fitproof: error: nvidia-smi failed (exit 1)\n")


def test_a_tool_that_prints_garbage(tools, capsys):
    tools("nvidia-smi", "printf 'hello\\033[31m world\\001\\n'\n")
    assert run(capsys, "detect") == (2, "", "fitproof: error: nvidia-smi printed what fitproof "
                                            "cannot read (expected name, memory, count): "
                                            "\"hello world\"\n")


def test_garbage_is_quoted_truncated_on_one_line(tools, capsys):
    tools("rocm-smi", printing("WARNING: No JSON data to report\n" + "x" * 300))
    code, out, err = run(capsys, "detect")
    assert code == 2 and "\n" not in err.rstrip("\n")
    assert err.startswith("fitproof: error: rocm-smi printed what fitproof cannot read "
                          "(expected JSON): \"WARNING: No JSON data to report xxx")
    assert err.endswith("x…\"\n") and len(err.split('"')[1]) == 120


def test_a_memory_figure_that_is_not_a_number(tools, capsys):
    nvidia_smi(tools, "NVIDIA GeForce RTX 4090, lots, 1\n")
    assert run(capsys, "detect") == (2, "", "fitproof: error: nvidia-smi printed what fitproof "
                                            "cannot read (memory in MiB): \"NVIDIA GeForce RTX "
                                            "4090, lots, 1\"\n")


def test_a_memory_the_tool_does_not_report_matches_by_name(tools, capsys):
    nvidia_smi(tools, "NVIDIA GeForce RTX 4090, [N/A], 1\n")
    device = detected(capsys)["devices"][0]
    assert (device["hardware"], device["memory_bytes"]) == ("rtx-4090", None)


@pytest.mark.parametrize("script", [f"exec {SLEEP} 600\n", f"{SLEEP} 600\necho late\n"])
def test_a_tool_that_hangs_is_stopped(tools, capsys, monkeypatch, script):
    """The tool sleeps ten times longer than the watchdog allows: only detect's own
    timeout, stopping the tool and what it started, lets the command answer."""
    monkeypatch.setattr(fitproof.importers.detect, "TIMEOUT_S", 0.5)
    tools("nvidia-smi", script)
    with watchdog():
        answer = run(capsys, "detect")
    assert answer == (2, "", "fitproof: error: nvidia-smi did not answer within 0.5 s\n")


def test_by_subprocess_with_nothing_but_the_fake_tools_on_path(tools, tmp_path):
    nvidia_smi(tools, RTX_4090_BOX)
    env = {**os.environ, "PATH": str(tools.folder), "FITPROOF_MEMINFO": str(tools.meminfo)}
    done = subprocess.run([sys.executable, "-m", "fitproof", "--no-plugins", "estimate",
                           "llama-3.1-8b", "--on", "auto", "--json"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    scenario = json.loads(done.stdout)["scenario"]
    assert (scenario["hardware"], scenario["gpus"]) == ("rtx-4090", 2)
    assert done.stderr == "fitproof: detected 2 x NVIDIA GeForce RTX 4090 -> rtx-4090\n"


def test_models_and_explain_on_auto(tools, capsys):
    nvidia_smi(tools, RTX_4090_BOX)
    code, out, err = run(capsys, "models", "--on", "auto", "llama-3.1-8b")
    assert code == 0 and out.startswith("Models on 2x NVIDIA RTX 4090\n")  # both devices
    code, out, err = run(capsys, "explain", "gpus", "llama-3.1-8b", "--on", "auto")
    assert code == 0 and "detected (--on auto)" in out, out


def test_the_python_api_takes_auto(tools):
    import fitproof.api as api

    nvidia_smi(tools, RTX_4090_BOX)
    registry = api.load_registry(plugins=False)
    scenario = api.scenario(registry, model="llama-3.1-8b", hardware="auto")
    assert (scenario.hardware, scenario.inputs["gpus"], str(scenario.origins["gpus"])) == (
        "rtx-4090", 2, "detected (hardware auto)")
    assert api.scenario(registry, hardware="auto", inputs={"gpus": 1}).inputs["gpus"] == 1
    view = api.detect(registry)
    assert [(d.hardware, d.count) for d in view.devices] == [("rtx-4090", 2)]
