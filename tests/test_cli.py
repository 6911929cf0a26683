"""The command line: outputs, the JSON contract, error messages and exit codes."""

from __future__ import annotations

import json
import textwrap

import pytest

from fitproof.cli import main

from .conftest import REPO, pack_line, write_pack

CONTRACT_QUANTITIES = {
    "weights_gib", "kv_cache_gib", "overhead_gib", "offload_gib", "total_gib", "total_gb",
    "usable_gib", "headroom_gib", "utilization", "decode_tps", "prefill_tps", "ttft_s",
    "cost_per_mtok_usd", "params_total", "params_active", "kv_bytes_per_token",
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Run the CLI on the seed pages' formulas, whose figures these tests pin."""
    code = main(["--no-plugins", "--profile", "seed", *argv] if argv and argv[0] != "packs" else
                [argv[0], argv[1], "--no-plugins", *argv[2:]] if len(argv) > 1 else list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_estimate_json_contract(capsys):
    code, out, err = run(capsys, "estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) >= {"scenario", "quantities", "verdict"}
    assert data["scenario"] == {
        "model": "qwen3.5-35b-a3b", "hardware": "arc-pro-b60", "quant": "Q4_K_M", "kv": "f16",
        "engine": "llama.cpp", "workload": "inference", "host": "desktop-ddr5-6000-2ch",
        "context": 8192, "batch": 1, "arrival": 0,
        "gpus": 1, "offload": 0, "prompt": 4096, "generate": 512, "cpu_moe": 0, "hours_per_day": 4,
        "electricity_usd_per_kwh": 0.175, "budget_usd": None, "split": None, "layer_share": None,
        "ubatch": None, "gpu_memory_utilization": None, "rope_scale": None,
        "request_rate": None, "ttft_target_ms": None, "tpot_target_ms": None,
        "gpu_memory_limit": None}
    quantities = data["quantities"]
    assert CONTRACT_QUANTITIES <= set(quantities)
    for quantity in quantities.values():
        assert set(quantity) == {"value", "unit", "source"}
    assert quantities["total_gib"] == {"value": 21.28, "unit": "GiB",
                                       "source": pack_line("formulas/seed-memory.yaml", "total_gib")}
    assert quantities["utilization"]["value"] == pytest.approx(21.28 / 24)
    assert quantities["kv_bytes_per_token"]["value"] == 20480
    assert quantities["params_active"]["value"] == 3e9
    assert data["verdict"]["id"] == "fits"
    assert data["verdict"]["label"] == "Fits with Safe Headroom"


def test_estimate_text_is_the_headline_card(capsys):
    code, out, _ = run(capsys, "estimate", "Qwen3.5-35B-A3B", "--on", "Arc Pro B60")
    assert code == 0
    assert "Fits with Safe Headroom" in out
    assert "Required                  21.28 GiB (22.85 GB)" in out
    assert "Headroom                  +1.52 GiB (89% utilization)" in out
    assert "Decode                    ~98 tok/s" in out
    assert "Prefill                   ~8667 tok/s" in out
    assert "~473 ms for a 4,096-token prompt" in out
    assert "Per 1M tokens             $0.54 at $0.19/h" in out


def test_estimate_without_model_shows_the_default_scenario(capsys):
    code, out, _ = run(capsys, "estimate")
    assert code == 0
    assert out.startswith("Qwen3.5 35B-A3B on NVIDIA RTX 3090\n")
    assert "8,192 tokens context" in out


def test_context_accepts_k_suffix(capsys):
    code, out, _ = run(capsys, "estimate", "qwen3.5-35b-a3b", "--on", "rtx-3090",
                       "--context", "32K", "--json")
    data = json.loads(out)
    assert data["scenario"]["context"] == 32768
    assert data["quantities"]["total_gib"]["value"] == 21.75


def test_explain_reaches_pack_values_with_lines(capsys):
    code, out, _ = run(capsys, "explain", "total_gib", "qwen3.5-35b-a3b", "--on", "rtx-3090",
                       "--depth", "all")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("total_gib = 21.28 GiB")
    assert lines[0].endswith(pack_line("formulas/seed-memory.yaml", "total_gib"))
    assert "  = round(required_gib - offload_gib, 2)" in lines
    assert "    = round(weights_gib + serving_gib + training_state_gib + activations_gib, 2)" \
        in lines
    assert "    = round(20.5 + 0.78 + 0 + 0, 2)" in lines
    assert "      = 0.22 + 0.56 if true else 0" in lines
    assert any(line.strip().startswith("model.params_total = 35.95e9 params")
               and line.endswith(pack_line("models/qwen3.5-35b-a3b.yaml", "params_total"))
               for line in lines)
    assert any(line.strip().startswith("quant.bpw_body = 4.85 bits/param")
               and line.endswith(pack_line("quantizations/weight-formats.yaml", "Q4_K_M",
                                           "bpw_body"))
               for line in lines)
    assert any(line.strip().startswith("kv.bytes_per_element = 2 bytes") for line in lines)


def test_explain_json_has_symbolic_and_latex_forms(capsys):
    code, out, _ = run(capsys, "explain", "kv_cache_gib", "qwen3.5-35b-a3b", "--on",
                       "rtx-3090", "--format", "json")
    data = json.loads(out)
    assert data["value"] == 0.22
    assert data["source"] == pack_line("formulas/seed-memory.yaml", "kv_cache_gib")
    assert data["written"] == (
        "round((arch.kv_elements_full * context + arch.kv_elements_window * min(context, "
        "arch.window_tokens)) * kv.bytes_per_element * batch / 2**30 + recurrent_state_gib "
        "* batch, 2)")
    assert data["symbolic"].startswith("round(")
    assert r"\operatorname{round}" in data["latex"]
    assert [child["name"] for child in data["inputs"]] == [
        "arch.kv_elements_full", "context", "arch.kv_elements_window", "arch.window_tokens",
        "kv.bytes_per_element", "batch", "recurrent_state_gib"]
    full = data["inputs"][0]
    assert full["value"] == 10240
    assert full["source"] == pack_line("architectures/hybrid-linear.yaml", "kv_elements_full")


def test_explain_latex_and_markdown(capsys):
    code, out, _ = run(capsys, "explain", "headroom_gib", "qwen3.5-35b-a3b", "--on",
                       "rtx-3090", "--format", "latex")
    assert code == 0 and out.startswith("\\begin{align*}")
    code, out, _ = run(capsys, "explain", "headroom_gib", "qwen3.5-35b-a3b", "--on",
                       "rtx-3090", "--format", "markdown")
    headroom = pack_line("formulas/seed-memory.yaml", "headroom_gib")
    assert out.startswith(f"- **`headroom_gib` = 1.52 GiB** — `{headroom}`")


def test_explain_a_selection_shows_the_offer(capsys):
    code, out, _ = run(capsys, "explain", "cloud_hourly_usd", "qwen3.5-122b-a10b", "--on",
                       "rtx-pro-6000-blackwell")
    assert code == 0
    assert "Vast.ai · 1x A100 80GB SXM (Verified Host · SXM4)" in out
    assert "offer.hourly_usd = 0.442 USD/h" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["estimate", "qwen3.5-35b-a3b", "--on", "rtx-3009"],
     "fitproof: error: unknown hardware 'rtx-3009'; did you mean rtx-3090, rtx-3080, rtx-3070?"),
    (["estimate", "qwen-35b", "--on", "rtx-3090"],
     "fitproof: error: unknown model 'qwen-35b'; did you mean qwen3.5-35b-a3b, "
     "qwen3.6-35b-a3b, qwen3-32b?"),
    (["estimate", "--context", "-5"], "fitproof: error: context must be at least 1 (got -5)"),
    (["estimate", "--batch", "0"], "fitproof: error: batch must be at least 1 (got 0)"),
    (["estimate", "--gpus", "0"], "fitproof: error: gpus must be at least 1 (got 0)"),
    (["estimate", "--offload", "150"], "fitproof: error: offload must be at most 100% (got 150)"),
    (["estimate", "--quant", "Q9"], "fitproof: error: unknown quantization 'Q9'; did you mean "
                                    "Q8_0, Q6_K, Q5_K_M?"),
    (["estimate", "--kv", "int3"], "fitproof: error: unknown KV cache type 'int3'; choose one of f16, q8_0, "
                                   "q4_0, fp8"),
    (["estimate", "--engine", "vllm", "--kv", "q8_0"],
     "fitproof: error: vLLM cannot store the KV cache as q8_0; it supports f16, fp8"),
    (["explain", "total_gbi"], "fitproof: error: unknown quantity 'total_gbi'; did you mean "
                               "total_gb, total_gib?"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.splitlines() == [message]


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["estimate", "--context", "lots"])
    assert caught.value.code == 2
    assert "expected a whole number of tokens such as 8192 or 8K, got 'lots'" in \
        capsys.readouterr().err


def test_broken_pack_exits_1_and_names_file_and_line(capsys, tmp_path):
    write_pack(tmp_path, "bad.yaml", textwrap.dedent("""\
        kind: hardware
        id: bad
        name: Bad
        vendor: Nobody
        source: test
        unified_memory: false
        memory_gb: -1
        memory_bandwidth_gbs: 100
        """))
    code, out, err = run(capsys, "estimate", "--pack-dir", str(tmp_path))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "fitproof: 1 problem in packs:",
        f"  {tmp_path}/bad.yaml:7: memory_gb: must be greater than 0 (got -1)"]


def test_packs_list_json(capsys):
    code, out, _ = run(capsys, "packs", "list", "--json", "--kind", "hardware")
    data = json.loads(out)
    shipped = sorted(p.stem for p in (REPO / "packs" / "hardware").glob("*.yaml"))
    assert sorted(p["id"] for p in data) == shipped  # every hardware pack file, once
    assert {"id", "kind", "name", "source"} <= set(data[0])
    b60 = next(p for p in data if p["id"] == "arc-pro-b60")
    assert b60 == {"id": "arc-pro-b60", "kind": "hardware", "name": "Intel Arc Pro B60 24GB",
                   "source": "packs/hardware/arc-pro-b60.yaml", "origin": "fitproof"}


def test_packs_show(capsys):
    code, out, _ = run(capsys, "packs", "show", "RTX 3090")
    assert code == 0
    assert out.startswith("hardware rtx-3090: NVIDIA RTX 3090\n  file:   "
                          "packs/hardware/rtx-3090.yaml\n")
    assert "memory_bandwidth_gbs: 936" in out


def test_packs_show_names_no_line_for_a_field_the_file_leaves_out(capsys):
    """A field at its default is not written in the file: it is listed last, as the default,
    not at line 1 (where the file says ``kind:``)."""
    code, out, _ = run(capsys, "packs", "show", "rtx-3090")
    assert code == 0 and "(line 1)" not in out
    assert out.splitlines()[-2:] == ["  unverified: false  (default)",
                                     "  nonexistent: false  (default)"]
    assert "  memory_bandwidth_gbs: 936  (line " in out


@pytest.mark.parametrize("name, shown", [
    ("serving", "workload inference:"),      # every kind whose packs have aliases
    ("LLAMA-SERVER", "engine llama.cpp:"),   # case ignored, as names are resolved
])
def test_packs_show_finds_a_pack_by_alias(capsys, name, shown):
    code, out, _ = run(capsys, "packs", "show", name)
    assert code == 0
    assert out.startswith(shown)


def test_packs_validate(capsys, tmp_path):
    good = write_pack(tmp_path, "ok-card.yaml", textwrap.dedent("""\
        kind: hardware
        id: ok-card
        name: OK Card
        vendor: Acme
        source: test
        unified_memory: false
        memory_gb: 8
        memory_bandwidth_gbs: 100
        """))
    code, out, _ = run(capsys, "packs", "validate", str(good))
    assert code == 0
    assert out.splitlines() == [f"{good}: ok (hardware ok-card)",
                                "1 pack file checked: all valid"]


@pytest.mark.slow
def test_packs_validate_the_shipped_packs(capsys):
    from importlib.resources import files

    code, out, _ = run(capsys, "packs", "validate", str(files("fitproof.packs")))
    assert code == 0, out
    assert out.splitlines()[-1].endswith("checked: all valid")


def test_explain_verdict_shows_each_rule_tried(capsys):
    code, out, _ = run(capsys, "explain", "verdict", "qwen3.5-122b-a10b", "--on", "rtx-3090",
                       "--depth", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("verdict = Exceeds Available GPU Memory")
    assert "  = the first rule whose condition holds" in lines
    # the rules before it were tried and did not hold (the device exists, the engine runs
    # on it and loads the format)
    tried = [line.split("=")[0].strip() for line in lines if line.startswith("  rule ")]
    assert tried == ["rule nonexistent", "rule unsupported", "rule unloadable", "rule exceeds"]
    first = next(i for i, line in enumerate(lines) if line.startswith("  rule exceeds = true"))
    assert all("= false" in line for line in lines[2:first] if line.startswith("  rule "))
    assert lines[first + 1:first + 3] == ["    = not fits_in_memory", "    = not false"]
    assert "      = total_gib <= usable_gib" in lines
    assert "      = 70.03 <= 22.8" in lines
    assert not any("rule fits" in line for line in lines)


def test_explain_depth_limits_the_tree(capsys):
    code, out, _ = run(capsys, "explain", "total_gib", "--depth", "0")
    assert code == 0
    assert [line for line in out.splitlines() if line.strip() and not line.startswith(" ")
            and not line.startswith("Sources")][0].startswith("total_gib = 21.28 GiB")
    assert "required_gib = " not in out


def test_the_default_profile_is_measured(capsys):
    assert main(["--no-plugins", "estimate", "qwen3.5-35b-a3b", "--on", "arc-pro-b60",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["quantities"]["total_gib"]["source"].startswith("packs/formulas/engine-memory.yaml:")
    assert "device_required_gib" in data["quantities"]


@pytest.mark.parametrize("kind, typed, expected", [
    ("hardware", "NVIDIA GeForce RTX 4090", "rtx-4090"),  # as nvidia-smi prints it
    ("hardware", "NVIDIA A100-SXM4-80GB", "a100-80gb-sxm"),
    ("hardware", "NVIDIA H100 80GB HBM3", "h100-80gb-sxm"),  # the SXM card's nvidia-smi name
    ("hardware", "Tesla T4", "t4"),
    ("hardware", "AMD Instinct MI300X OAM", "mi300x"),  # as amd-smi prints it
    ("hardware", "NVIDIA GB10", "dgx-spark"),
    ("hardware", "AMD Radeon RX 7900 XTX", "rx-7900-xtx"),
    ("model", "Qwen/Qwen3-8B", "qwen3-8b"),  # the Hugging Face repository the pack records
    ("model", "meta-llama/Llama-3.1-70B", "llama-3.1-70b"),
])
def test_names_people_type_resolve(kind, typed, expected):
    import fitproof

    assert fitproof.load_registry(plugins=False).resolve(kind, typed) == expected


def test_every_name_of_a_pack_resolves_to_that_pack():
    """Vendor-prefixed names and repositories add no ambiguity: each name any hardware or
    model pack answers to resolves to that pack alone."""
    import fitproof
    from fitproof.registry.index import _names_of

    registry = fitproof.load_registry(plugins=False)
    for kind, table in (("hardware", registry.hardware), ("model", registry.models)):
        for key, obj in table.items():
            names = _names_of(key, obj)
            assert len(names) > 1, key
            for name in names:
                assert registry.resolve(kind, name) == key, (kind, name)
