"""Issue 31, item by item: each contradiction a demanding user found one pace off the fitted
path, as a test that failed before it was fixed (the grid properties of
tests/test_consistency.py check the same rules over every combination)."""

from __future__ import annotations

import json
import re

import pytest

import fitproof
from fitproof.cli import main
from fitproof.errors import InputError


@pytest.fixture(scope="module")
def measured():
    return fitproof.load_registry(plugins=False)


def estimate(registry, model, hardware, **kwargs):
    return fitproof.estimate(model, hardware, registry=registry, **kwargs)


def run(capsys, *argv):
    code = main([*argv, "--no-plugins"])
    out, err = capsys.readouterr()
    return code, out, err


# 1. the verdict counts every term of the workload, on one device
def test_full_fine_tuning_is_judged_with_its_training_state(measured):
    one = estimate(measured, "llama-3.1-8b", "rtx-4090", workload="full")
    assert one.verdict.id == "exceeds"
    assert one.value("device_required_gib") == pytest.approx(one.value("total_gib"), abs=0.01)
    assert one.value("device_required_gib") > one.value("device_usable_gib")
    eight = estimate(measured, "llama-3.1-8b", "rtx-4090", workload="full", gpus=8)
    # the job's 63.86 GiB shared over eight devices, not 17 GiB left out of the count
    assert eight.value("device_required_gib") == pytest.approx(eight.value("total_gib") / 8,
                                                               abs=0.02)
    assert eight.value("total_gib") == pytest.approx(one.value("total_gib"), abs=0.01)


def test_the_card_of_a_fine_tuning_run_shows_what_it_counts(capsys):
    code, out, _ = run(capsys, "estimate", "llama-3.1-8b", "--on", "rtx-4090", "--workload",
                       "full")
    assert code == 0
    assert "Exceeds Available GPU Memory" in out and "Fits with" not in out
    assert "Gradients & optimizer     46.38 GiB" in out
    assert "not estimated for a fine-tuning workload" in out


# 2. a report never fails for a row of another model
@pytest.mark.parametrize("argv", [
    ["deepseek-r1", "--on", "h200-141gb-sxm", "--gpus", "8", "--quant", "native", "--engine",
     "vllm"],
    ["qwen3-30b-a3b", "--on", "rtx-4090", "--quant", "MXFP4_MOE"],
])
def test_report_succeeds_where_estimate_does(capsys, argv):
    assert run(capsys, "estimate", *argv)[0] == 0
    code, out, err = run(capsys, "report", *argv, "--format", "json")
    assert code == 0, err
    skipped = json.loads(out)["skipped"]
    assert skipped and all(s["reason"] for s in skipped)


# 3. unified memory: what the OS lets the GPU use, raised on request
def test_a_mac_gives_the_gpu_what_macos_allows(measured):
    default = estimate(measured, "qwen3-235b-a22b", "macbook-pro-m4-max-128gb", quant="Q3_K_M")
    assert default.value("device_usable_gib") == 96.0  # recommendedMaxWorkingSetSize
    assert default.verdict.id == "exceeds"
    raised = estimate(measured, "qwen3-235b-a22b", "macbook-pro-m4-max-128gb", quant="Q3_K_M",
                      gpu_memory_limit=120)
    assert raised.verdict.id in ("fits", "tight")
    with pytest.raises(InputError, match="more than the 128 GB"):
        estimate(measured, "qwen3-235b-a22b", "macbook-pro-m4-max-128gb", quant="Q3_K_M",
                 gpu_memory_limit=130)


def test_an_8gb_mac_is_not_recommended_for_a_6_gib_job(measured):
    job = estimate(measured, "qwen3-8b", "rtx-4090", quant="Q4_K_M")
    assert 5 < job.value("total_gib") < 8
    assert job.view().selections["unified_machine"]["id"] != "apple-m1-8gb"
    small = estimate(measured, "qwen3-8b", "apple-m1-8gb", quant="Q4_K_M")
    assert small.value("device_usable_gib") == pytest.approx(5.33, abs=0.01)


# 4. cost on the scenario's own hardware
def test_cost_is_priced_on_the_scenarios_own_hardware(measured):
    card = estimate(measured, "llama-3.1-8b", "rtx-4090")
    offer = card.view().selections["scenario_offer"]
    assert offer["id"] and "RTX 4090" in offer["label"]
    node = estimate(measured, "deepseek-r1", "h200-141gb-sxm", gpus=8, quant="native",
                    engine="vllm")
    offer = node.view().selections["scenario_offer"]
    assert "8x H200" in offer["label"] and node.value("cost_per_mtok_usd") is not None
    # break-even buys the scenario's own device, at its board power
    assert card.value("purchase_usd") == measured.hardware["rtx-4090"].price_usd.value
    assert card.value("local_power_usd_month") == pytest.approx(round(
        450 / 1000 * card.value("hours_per_month") * 0.175, 2))


def test_no_offer_of_the_hardware_says_so(capsys):
    code, out, _ = run(capsys, "estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60")
    assert code == 0
    assert "n/a: no cloud offer of 1x Intel Arc Pro B60 24GB is known" in out
    assert "Another card" in out


# 5. an engine without a backend for the device gives no speed
@pytest.mark.parametrize(("hardware", "engine", "quant"), [
    ("gaudi-3", "llama.cpp", "Q4_K_M"), ("mlu590-80gb", "llama.cpp", "Q4_K_M"),
    ("macbook-pro-m4-max-128gb", "vllm", "BF16"), ("v100-32gb-sxm", "vllm", "BF16")])
def test_an_unsupported_engine_and_device_has_no_speed(measured, hardware, engine, quant):
    result = estimate(measured, "llama-3.1-8b", hardware, engine=engine, quant=quant)
    assert result.verdict.id == "unsupported"
    assert result.verdict.label.startswith(f"Not Supported by {measured.engines[engine].name} on")
    assert result.value("decode_tps") is None and result.value("prefill_tps") is None
    assert result.value("cost_per_mtok_usd") is None


# 6. vLLM by its own rules; a format an engine cannot load
def test_vllm_runs_a_batch_its_cache_pages(measured):
    result = estimate(measured, "llama-3.1-8b-instruct", "h100-80gb-sxm", quant="FP8",
                      engine="vllm", batch=64)
    assert result.verdict.id == "fits"
    assert result.value("max_concurrency") > 60 and result.value("running_sequences") == 64


@pytest.mark.parametrize(("hardware", "context", "running"), [
    ("h100-80gb-sxm", 256, 1024),  # the cache holds 1,936 such sequences; max_num_seqs 1,024
    ("rtx-4090", 128, 256),  # 613 fit; a card under 70 GiB runs 256 by default
    ("rtx-4090", 1024, 76)])  # the cache holds 76: its blocks run out first
def test_vllm_runs_no_more_sequences_than_its_cache_or_max_num_seqs(measured, hardware,
                                                                     context, running):
    result = estimate(measured, "llama-3.1-8b-instruct", hardware, quant="FP8", engine="vllm",
                      batch=2000, context=context)
    assert result.value("running_sequences") == running


def test_a_format_an_engine_cannot_load_has_no_command(capsys, measured):
    result = estimate(measured, "llama-3.1-8b-instruct", "rtx-4090", quant="FP8")
    assert result.verdict.id == "unloadable" and result.value("decode_tps") is None
    code, out, _ = run(capsys, "report", "llama-3.1-8b-instruct", "--on", "h100-80gb-sxm",
                       "--quant", "FP8", "--engine", "vllm", "--format", "json")
    commands = {c["engine"]: c["command"] for c in json.loads(out)["launch_commands"]}
    assert commands["llama.cpp"].startswith("# Not available: llama.cpp loads GGUF files")
    assert "llama-server" not in commands["llama.cpp"]


# 8. a context past the trained one
def test_a_context_past_the_trained_one_is_refused_unless_asked_for(capsys):
    code, _, err = run(capsys, "estimate", "llama-2-7b", "--on", "rtx-4090", "--context", "1M")
    assert code == 2
    assert err == ("fitproof: error: Llama 2 7B was trained for a context of up to 4,096 tokens "
                   "(max_position_embeddings); 1,048,576 tokens needs RoPE scaling: add "
                   "--rope-scale 256 to estimate it anyway\n")
    code, out, _ = run(capsys, "estimate", "llama-2-7b", "--on", "rtx-4090", "--context", "8K",
                       "--rope-scale", "2", "--json")
    assert code == 0
    assert json.loads(out)["warnings"] == [
        "8,192 tokens is beyond the 4,096 tokens Llama 2 7B was trained for: the numbers "
        "assume RoPE scaling stretches it, and the model's quality past its trained length "
        "is not measured"]
    code, out, _ = run(capsys, "estimate", "llama-2-7b", "--on", "rtx-4090", "--json")
    assert json.loads(out)["scenario"]["context"] == 4096  # the default stays within


# 9. experts kept on the host: prefill bound by the link, the copy's room on the GPU
def test_offloaded_experts_bound_prefill_by_the_host_link(measured):
    result = estimate(measured, "gpt-oss-120b", "rtx-4090", quant="native", cpu_moe=36)
    assert result.value("prefill_tps") < 1000  # users report a few hundred, not ~6,900
    copy = result.value("prefill_copy_gib") * 2**30 / (31.5e9 * 0.5) / 512
    assert result.value("prefill_copy_s") == pytest.approx(copy)
    # the first device keeps room for one copied expert tensor (538 MiB in MXFP4)
    assert result.value("host_copy_buffer_gib") * 1024 == pytest.approx(538, abs=5)
    assert result.value("overhead_gib") == pytest.approx(
        round(result.value("activation_gib") + result.value("runtime_gib")
              + result.value("host_copy_buffer_gib"), 2))


# 10. the smaller contradictions
def test_german_reports_write_german_numbers(capsys):
    code, out, _ = run(capsys, "report", "--lang", "de")
    assert code == 0
    assert "20,32 GiB" in out and "20.32" not in out
    assert "8.192 (8K)" in out
    code, out, _ = run(capsys, "report", "--lang", "de", "--profile", "seed")
    assert "21.28 GiB" in out  # the seed pages' own style, kept under their profile


def test_the_report_prints_the_electricity_price_and_dates_in_the_locale(capsys):
    code, out, _ = run(capsys, "report", "llama-3.1-8b", "--on", "rtx-4090",
                       "--electricity-price", "0.31")
    assert "at $0.31 / kWh" in out
    code, out, _ = run(capsys, "report", "llama-3.1-8b", "--on", "rtx-4090", "--lang", "es")
    assert re.search(r"\(\d{1,2} [a-z]{3} 2026\)", out)  # "1 oct 2026": no day can shift


def test_qwen35_is_a_gated_deltanet_hybrid(measured):
    assert "Gated DeltaNet" in measured.models["qwen3.5-35b-a3b"].architecture
    assert "Mamba" not in measured.models["qwen3.5-35b-a3b"].architecture


def test_a_device_never_sold_is_never_picked(measured):
    result = estimate(measured, "qwen3-235b-a22b", "mac-studio-m4-ultra-256gb", quant="Q3_K_M")
    assert result.verdict.id == "nonexistent" and result.value("decode_tps") is None
    big = estimate(measured, "qwen3.5-122b-a10b", "rtx-4090")
    assert big.view().selections["unified_machine"]["id"] != "mac-studio-m4-ultra-256gb"


def test_no_report_heading_stands_empty(capsys):
    code, out, _ = run(capsys, "report", "llama-3.1-8b", "--on", "rtx-4090")
    lines = out.splitlines()
    for i, line in enumerate(lines[:-2]):
        if lines[i + 1] and set(lines[i + 1]) == {"-"}:  # a section heading
            assert lines[i + 2] == "" and lines[i + 3].strip() or lines[i + 2].strip(), line
    notes = lines.index("Engineering Sizing Notes & Optimization Playbook")
    assert lines[notes + 3] == "» Quick Hardware Verdict"


def test_explain_is_short_by_default_and_cites_the_measured_formula(capsys):
    code, out, _ = run(capsys, "explain", "total_gib", "llama-3.1-8b", "--on", "rtx-4090")
    assert code == 0 and len(out.splitlines()) < 150
    assert "deeper steps below level 3 left out (--depth all shows them)" in out
    code, out, _ = run(capsys, "explain", "decode_tps", "llama-3.1-8b", "--on", "rtx-4090")
    assert out.splitlines()[0].endswith(".yaml:" + out.splitlines()[0].rsplit(":", 1)[1])
    assert "packs/formulas/measured-throughput.yaml" in out.splitlines()[0]


# 11. public GGUF repositories in the launch commands
def test_launch_commands_name_public_gguf_repositories(measured):
    recorded = [m for m in measured.models.values() if m.gguf_repo]
    assert len(recorded) >= 59  # of 62: three have no confirmed public GGUF of that exact model
    for model in recorded:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", model.gguf_repo), model.id
        assert any(str(s).startswith("gguf_repo: ") for s in model.source), model.id
