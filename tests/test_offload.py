"""Weights kept in system memory (--offload, --cpu-moe) are read by the CPU at the host's
bandwidth: a host is a hardware pack of backend cpu, chosen with --host."""

from __future__ import annotations

import pytest

import fitproof
from fitproof.cli import main


@pytest.fixture(scope="module")
def measured():
    return fitproof.load_registry(plugins=False, profile="measured")


def estimate(registry, model, hardware, **kwargs):
    return fitproof.estimate(model, hardware, registry=registry, **kwargs)


def test_cpu_moe_moves_the_experts_of_the_first_layers_to_the_host(measured):
    plain = estimate(measured, "qwen3-30b-a3b", "rtx-3060-12gb")
    half = estimate(measured, "qwen3-30b-a3b", "rtx-3060-12gb", cpu_moe=24)
    assert half.value("cpu_moe_share") == 0.5  # 24 of 48 expert layers
    experts = half.value("expert_bits") / 8 / 2**30
    assert half.value("offloaded_layers_gib") == pytest.approx(experts / 2)
    # system RAM holds those experts and, as with every layer on the GPU, the token embedding
    assert half.value("offload_gib") == pytest.approx(
        round(experts / 2 + half.value("host_weights_gib"), 2))
    assert plain.value("offload_gib") == pytest.approx(round(plain.value("host_weights_gib"), 2))
    assert half.value("total_gib") == pytest.approx(
        plain.value("total_gib") - half.value("offloaded_layers_gib"), abs=0.011 + 0.53)
    assert half.value("total_gib") == pytest.approx(
        half.value("weights_gib") + half.value("devices_kv_gib")
        + half.value("devices_overhead_gib") - half.value("offload_gib"), abs=0.021)
    assert plain.verdict.id == "exceeds" and half.verdict.id in ("fits", "tight")
    # the picked experts of those layers are read from system memory at every step
    picked = half.value("expert_bits") * 8 / 128 / 8 / 2**30
    assert half.value("host_decode_weights_gib") == pytest.approx(picked / 2)


def test_the_host_part_is_read_at_the_hosts_bandwidth(measured):
    engine = measured.engines["llama.cpp"]
    eta = float(engine.host_bandwidth_efficiency["cpu"].value)
    phi = float(engine.decode_kernel_factor["k-quant"].value)
    result = estimate(measured, "qwen3-30b-a3b", "rtx-3060-12gb", cpu_moe=48)
    assert result.value("host_bandwidth_gbs") == 96  # the default host, DDR5-6000 x 2
    expected = result.value("host_decode_weights_gib") / phi * 2**30 / (eta * 96e9)
    assert result.value("decode_host_s") == pytest.approx(expected)
    rates = [estimate(measured, "qwen3-30b-a3b", "rtx-3060-12gb", cpu_moe=48, host=h)
             .value("decode_tps") for h in ("desktop-ddr4-3200-2ch", "desktop-ddr5-6000-2ch",
                                            "epyc-9004-genoa-384gb")]
    assert rates == sorted(rates) and rates[0] < rates[2] / 2


def test_offload_is_slower_than_none_and_unified_memory_is_its_own_host(measured):
    none = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="Q4_K_M")
    half = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="Q4_K_M", offload=50)
    assert half.value("host_layers_share") == pytest.approx(0.5)
    assert half.value("decode_tps") < none.value("decode_tps") / 2
    mac = estimate(measured, "llama-3.1-8b", "apple-m2-ultra-76c-192gb", quant="Q4_K_M",
                   offload=50)
    assert mac.value("host_bandwidth_gbs") == 800


def test_a_host_must_be_a_cpu_pack(capsys):
    assert main(["estimate", "qwen3-8b", "--on", "rtx-4090", "--host", "rtx-3090",
                 "--no-plugins"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fitproof: error: unknown host (cpu hardware pack) 'rtx-3090'; "
                          "choose one of core-ultra-7-258v, desktop-ddr4-3200-2ch")


def test_the_card_says_which_host_holds_the_offloaded_weights(capsys):
    assert main(["estimate", "qwen3-30b-a3b", "--on", "rtx-3060-12gb", "--cpu-moe", "24",
                 "--no-plugins"]) == 0
    out = capsys.readouterr().out
    assert ("Kept in system RAM        -8.34 GiB (host: Generic desktop PC, dual-channel "
            "DDR5-6000, 64 GB)") in out
    assert main(["estimate", "qwen3-4b", "--on", "rtx-4090", "--no-plugins"]) == 0
    # Qwen3 4B ties its embeddings, so llama.cpp keeps nothing on the host
    assert "(host:" not in capsys.readouterr().out


def test_hosts_are_not_in_the_tables_of_accelerators(measured):
    hosts = {h for h, spec in measured.hardware.items() if spec.backend == "cpu"}
    assert hosts == {"desktop-ddr5-6000-2ch", "desktop-ddr4-3200-2ch", "epyc-9004-genoa-384gb",
                     "core-ultra-7-258v"}
    assert not hosts & set(measured.accelerators)
    assert not hosts & {c.id for c in measured.candidates()["hardware"]}
    # but a CPU is a target of its own
    cpu = estimate(measured, "llama-2-7b", "epyc-9004-genoa-384gb", quant="Q4_0")
    assert cpu.value("decode_tps") > 0


def test_the_launch_command_keeps_the_same_experts_on_the_cpu(capsys):
    assert main(["report", "qwen3-30b-a3b", "--on", "rtx-3060-12gb", "--cpu-moe", "24",
                 "--no-plugins"]) == 0
    out = capsys.readouterr().out
    assert "--ctx-size 8192 -ngl 49 --flash-attn on --n-cpu-moe 24" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--backend", "vulcan"], "fitproof: error: unknown backend 'vulcan'; choose from cuda, rocm, "
                              "metal, vulkan, sycl, cann, musa, cpu, other"),
    (["--cpu-moe", "-1"], "fitproof: error: cpu_moe must be at least 0 (got -1)"),
    (["--generate", "0"], "fitproof: error: generate must be at least 1 (got 0)"),
])
def test_bad_speed_options_are_one_line_errors(capsys, argv, message):
    assert main(["estimate", "qwen3-8b", "--on", "rtx-4090", "--no-plugins", *argv]) == 2
    assert capsys.readouterr().err.strip() == message


def test_another_backend_takes_that_backends_constants(measured):
    rocm = estimate(measured, "llama-2-7b", "ryzen-ai-max-plus-395-128gb", quant="Q4_0")
    vulkan = estimate(measured, "llama-2-7b", "ryzen-ai-max-plus-395-128gb", quant="Q4_0",
                      backend="vulkan")
    engine = measured.engines["llama.cpp"]
    assert vulkan.scenario.backend == "vulkan" and rocm.scenario.backend is None
    lpddr = float(engine.decode_memory_factor["lpddr"].value)  # the Strix Halo's memory
    assert vulkan.value("decode_weight_efficiency") == pytest.approx(
        float(engine.decode_bandwidth_efficiency["vulkan"].value)
        * float(engine.decode_kernel_factor["legacy"].value) * lpddr)
    assert rocm.value("decode_weight_efficiency") == pytest.approx(
        float(engine.decode_bandwidth_efficiency["rocm"].value)
        * float(engine.decode_kernel_factor["legacy"].value) * lpddr)
