"""Machines of unlike devices (``--on rtx-5090,rtx-5080``): llama.cpp's layer split, each
device's fit, the machine's speed from each device's share, and the launch command."""

from __future__ import annotations

import json

import pytest

from fitproof import api
from fitproof.cli import main
from fitproof.engine.machine import split_layers
from fitproof.files.validation import load_schema


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--no-plugins", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def estimate_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "estimate", *argv, "--json")
    assert (code, err) == (0, ""), err
    return json.loads(out)


@pytest.fixture(scope="module")
def registry():
    return api.load_registry(plugins=False)


@pytest.mark.parametrize(("proportions", "n_layer", "layers"), [
    # 33 slots (32 layers and the output layer); split points 0.75, 1: layer il goes to
    # device 0 while il / 33 < 0.75, that is il <= 24
    ([3, 1], 32, [25, 8]),
    # an even split of 80 layers: 81 slots, device 0 takes il / 81 < 0.5, il <= 40
    ([1, 1], 80, [41, 40]),
    ([1, 1, 1, 1], 31, [8, 8, 8, 8]),
    # a device of proportion 0 takes no layer
    ([1, 0, 1], 9, [5, 0, 5]),
])
def test_layers_are_split_as_llama_cpp_splits_them(proportions, n_layer, layers):
    assert split_layers(proportions, n_layer) == layers


def test_a_70b_model_on_an_rtx_5090_and_an_rtx_5080(capsys, registry):
    data = estimate_json(capsys, "llama-3.3-70b-instruct", "--on", "rtx-5090,rtx-5080")
    scenario, devices = data["scenario"], data["devices"]
    assert (scenario["hardware"], scenario["devices"], scenario["gpus"]) == (
        "rtx-5090+rtx-5080", ["rtx-5090", "rtx-5080"], 2)
    assert [d["hardware"] for d in devices] == ["rtx-5090", "rtx-5080"]
    # the split follows the memory each device reports (llama.cpp's default), in whole
    # layers: 80 repeating layers and the output layer
    memory = [api.estimate_view(registry, api.scenario(
        registry, model="llama-3.3-70b-instruct", hardware=hw)).value("device_memory_gib")
        for hw in ("rtx-5090", "rtx-5080")]
    assert memory == [31.36, 15.84]
    assert [d["layers"] for d in devices] == split_layers(memory, 80) == [54, 27]
    assert scenario["layers"] == [54, 27]
    # each device holds its share of the weights and KV cache, and the fit is judged on it
    weights = data["quantities"]["weights_gib"]["value"]
    host = 0.55  # llama.cpp keeps the token embedding in system RAM
    assert data["quantities"]["offload_gib"]["value"] == pytest.approx(host, abs=0.01)
    for device in devices:
        assert device["weights_gib"] == pytest.approx((weights - host) * device["layers"] / 81,
                                                      abs=0.01)
        assert device["required_gib"] == pytest.approx(
            device["weights_gib"] + device["kv_gib"] + device["overhead_gib"], abs=0.011)
        assert device["required_gib"] <= device["usable_gib"]
        assert device["verdict"] == "fits"
    assert [d["usable_gib"] for d in devices] == memory
    assert data["verdict"]["id"] == "fits"
    # what one device holds is listed device by device, not for the machine
    assert "device_required_gib" not in data["quantities"]
    assert data["launch_command"].endswith(
        "--ctx-size 8192 -ngl 81 --flash-attn on --split-mode layer --tensor-split 54,27")


def test_the_verdict_is_the_worst_devices(capsys):
    data = estimate_json(capsys, "llama-3.3-70b-instruct", "--on", "rtx-5090,rtx-5080",
                         "--tensor-split", "1,1")
    assert [d["layers"] for d in data["devices"]] == [41, 40]
    assert [d["verdict"] for d in data["devices"]] == ["fits", "exceeds"]
    assert data["verdict"]["id"] == "exceeds"
    assert data["scenario"]["tensor_split"] == [1, 1]
    assert "--tensor-split 41,40" in data["launch_command"]


def test_decode_pays_each_devices_share_at_its_own_bandwidth(capsys, registry):
    text = run(capsys, "explain", "hardware.memory_bandwidth_gbs", "llama-3.3-70b-instruct",
               "--on", "rtx-5090,rtx-5080")[1]
    bandwidth = {hw: registry.hardware[hw].memory_bandwidth_gbs.value
                 for hw in ("rtx-5090", "rtx-5080")}
    assert bandwidth == {"rtx-5090": 1792, "rtx-5080": 960}
    expected = 1 / (54 / 81 / 1792 + 27 / 81 / 960)
    assert f"hardware.memory_bandwidth_gbs = {expected:.2f} GB/s" in text
    assert "1 / (0.6667 / 1792 + 0.3333 / 960)" in text
    data = estimate_json(capsys, "llama-3.3-70b-instruct", "--on", "rtx-5090,rtx-5080")
    machine = data["quantities"]["decode_tps"]["value"]
    alone = {hw: estimate_json(capsys, "llama-3.3-70b-instruct", "--on", hw, "--gpus", "2")[
        "quantities"]["decode_tps"]["value"] for hw in ("rtx-5090", "rtx-5080")}
    assert alone["rtx-5080"] < machine < alone["rtx-5090"]


def test_one_kind_listed_twice_is_the_same_as_gpus_2(capsys):
    listed = estimate_json(capsys, "qwen3-32b", "--on", "rtx-4090,rtx-4090")
    counted = estimate_json(capsys, "qwen3-32b", "--on", "rtx-4090", "--gpus", "2")
    for name in ("decode_tps", "prefill_tps", "total_gib", "usable_gib", "ttft_ms"):
        assert listed["quantities"][name]["value"] == pytest.approx(
            counted["quantities"][name]["value"], rel=1e-9), name
    assert listed["verdict"]["id"] == counted["verdict"]["id"]
    repeated = estimate_json(capsys, "qwen3-32b", "--on", "rtx-4090:2")
    assert repeated["devices"] == listed["devices"]


def test_the_card_lists_each_device_and_the_launch_command(capsys):
    code, out, err = run(capsys, "estimate", "qwen3-8b", "--on", "rtx-3090:2,rtx-3060")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Qwen3 8B on NVIDIA 2x RTX 3090 + RTX 3060 12GB"
    at = lines.index("    Per device                (layer split; the verdict is the worst "
                     "device's)")
    assert [line.split(":")[0].strip() for line in lines[at + 1:at + 6:2]] == [
        "NVIDIA RTX 3090", "NVIDIA RTX 3090", "NVIDIA RTX 3060 12GB"]
    assert "--tensor-split 15,15,7" in out
    assert lines[-1] == ("Every number has a derivation: fitproof explain total_gib qwen3-8b "
                         "--on rtx-3090,rtx-3090,rtx-3060-12gb")


@pytest.mark.parametrize(("argv", "message"), [
    (["--on", "rtx-5090,rtx-5080", "--engine", "vllm"],
     "vLLM cannot give unlike devices unlike shares of the model (its pack states no "
     "tensor_split_flag): run it on devices of one kind (--on NAME --gpus N), or choose "
     "--engine llama.cpp"),
    (["--on", "rtx-5090,rtx-5080", "--gpus", "3"],
     "--gpus: the devices --on 'rtx-5090,rtx-5080' lists are the machine's; leave out --gpus "
     "(repeat a device with NAME:N)"),
    (["--on", "rtx-5090,rtx-5080", "--tensor-split", "1"],
     "--tensor-split gives 1 proportions for 2 devices; give one per device, in device order"),
    (["--on", "rtx-5090,rtx-5080", "--tensor-split", "0,0"],
     "--tensor-split: proportions are numbers of at least 0, not all 0"),
    (["--on", "rtx-5090", "--tensor-split", "1,2"],
     "--tensor-split gives the shares of unlike devices; list them with --on, e.g. --on "
     "rtx-5090,rtx-5080 --tensor-split 2,1"),
    (["--on", "rtx-5090,"],
     "--on 'rtx-5090,': an empty device name; list devices as rtx-5090,rtx-5080 (a count "
     "after a colon: rtx-3090:2)"),
    (["--on", "rtx-5090:x,rtx-5080"],
     "--on 'rtx-5090:x,rtx-5080': 'x' is not a device count; write NAME:N with N a whole "
     "number of at least 1"),
    (["--on", "rtx-5090,m4-max"],
     "RTX 5090 + MacBook Pro M4 Max 128GB: the devices differ in unified_memory (RTX 5090: "
     "no, MacBook Pro M4 Max 128GB: yes); fitproof models a split over devices that agree "
     "on it"),
    (["--on", "rtx-5090,rtx-4090", "--split", "tensor"],
     "a tensor split divides every layer evenly over the devices; a machine of unlike "
     "devices is split by layers (--split layer)"),
])
def test_what_a_machine_cannot_be_is_one_line(capsys, argv, message):
    code, out, err = run(capsys, "estimate", "qwen3-8b", *argv)
    assert (code, out, err) == (2, "", f"fitproof: error: {message}\n")


@pytest.mark.parametrize("command", ["report", "solve"])
def test_report_and_solve_take_one_kind_of_device(capsys, command):
    argv = [command, "qwen3-8b", "--on", "rtx-5090,rtx-5080"]
    if command == "solve":
        argv.insert(1, "max-context")
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: fitproof {command} takes devices of one kind (--on NAME "
                   "--gpus N); for the machine rtx-5090+rtx-5080 use fitproof estimate or "
                   "fitproof explain\n")


def test_every_hardware_field_says_how_a_machine_combines_it():
    rules = {name: spec.get("x-combine")
             for name, spec in load_schema("hardware")["properties"].items()}
    assert None not in rules.values(), [n for n, r in rules.items() if r is None]
    assert set(rules.values()) == {"by-layer-share", "mean", "slowest", "largest", "same",
                                   "joined", "any", "machine"}


@pytest.mark.parametrize("argv", [["models", "--on", "rtx-5090,rtx-5080"],
                                  ["measurements", "--on", "rtx-3090:2"]])
def test_commands_of_one_device_say_so_of_a_list(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: {argv[-1]!r} lists several devices: fitproof estimate "
                   "and explain take a machine of unlike devices; here, name one hardware "
                   "pack\n")


def test_the_python_api_gives_the_machine_the_same_answer(registry):
    result = api.estimate("llama-3.3-70b-instruct", "rtx-5090,rtx-5080", registry=registry,
                          context=32768)
    assert result.verdict is not None and result.verdict.id == "exceeds"
    assert [d.verdict.id for d in result.devices] == ["exceeds", "exceeds"]
    assert "fits_in_memory" not in result.quantities
    view = api.estimate_view(registry, result.scenario)
    assert view.verdict == result.verdict and view.devices == result.devices


def test_explain_has_no_figure_of_one_device_for_a_machine(capsys):
    code, out, err = run(capsys, "explain", "device_required_gib", "qwen3-8b", "--on",
                         "rtx-5090,rtx-5080")
    assert (code, out) == (2, "")
    assert err == ("fitproof: error: device_required_gib is a figure of one device: fitproof "
                   "estimate --on rtx-5090,rtx-5080 lists it device by device\n")
