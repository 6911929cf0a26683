"""Engine-aware memory (profile measured): what llama.cpp and vLLM allocate, per device.

The logged figures come from public engine logs, cited row by row in
tests/data/vllm-logs.csv and tests/data/llamacpp-logs.csv; the hand-computed values below
follow the engine source lines the engine packs cite.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import fitproof
from fitproof.cli import main

DATA = Path(__file__).parent / "data"
VLLM_LOGS = list(csv.DictReader((DATA / "vllm-logs.csv").open()))
LLAMACPP_LOGS = list(csv.DictReader((DATA / "llamacpp-logs.csv").open()))


@pytest.fixture(scope="module")
def measured():
    return fitproof.load_registry(profile="measured")


def estimate(registry, model, hardware="h100-80gb-sxm", **kwargs):
    return fitproof.estimate(model, hardware, registry=registry, **kwargs)


# -- vLLM: the KV cache takes what the budget leaves ---------------------------------------

@pytest.mark.parametrize("row", VLLM_LOGS, ids=lambda r: f"{r['model']}-{r['quant']}-"
                         f"kv{r['kv']}-tp{r['gpus']}-{r['max_model_len']}")
def test_vllm_kv_capacity_matches_the_logged(measured, row):
    result = estimate(measured, row["model"], row["hardware"], quant=row["quant"], kv=row["kv"],
                      engine="vllm", context=int(row["max_model_len"]), gpus=int(row["gpus"]),
                      gpu_memory_utilization=float(row["gpu_memory_utilization"]))
    tokens = result.value("kv_capacity_tokens")
    assert tokens == pytest.approx(float(row["kv_tokens"]), rel=0.03)
    assert result.value("max_concurrency") == pytest.approx(float(row["max_concurrency"]),
                                                            rel=0.03)
    # the parts: weights per device, activation peak and non-torch memory as logged
    assert result.value("device_weights_gib") == pytest.approx(float(row["weights_gib"]),
                                                               rel=0.02)
    assert result.value("activation_gib") == pytest.approx(float(row["activation_gib"]),
                                                           rel=0.03)
    assert result.value("runtime_gib") == pytest.approx(float(row["non_torch_gib"]), abs=0.1)


def test_vllm_budget_by_hand(measured):
    """Llama 3.1 8B BF16 on one H100 at util 0.95: budget minus weights, activation and
    runtime, divided by 128 KiB per token, in blocks of 16."""
    result = estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                      gpu_memory_utilization=0.95)
    activation = (1024 * 128256 * 14.83 + 8192 * 4096 * 2.35) / 2**30
    assert result.value("activation_gib") == pytest.approx(activation)
    assert result.value("device_usable_gib") == pytest.approx(round(79.19 * 0.95, 2))
    budget = round(79.19 * 0.95, 2) - result.value("device_weights_gib") \
        - round(activation + 0.25, 2)
    assert result.value("kv_budget_gib") == pytest.approx(budget)
    assert result.value("kv_capacity_tokens") == (budget * 2**30 // (131072 * 16)) * 16


def test_vllm_sequences_take_whole_blocks(measured):
    result = estimate(measured, "llama-3.1-8b-instruct", engine="vllm", quant="BF16",
                      context=5000, batch=3)
    assert result.value("kv_cells_per_sequence") == 5008  # 313 blocks of 16
    # vLLM pages its cache: one full-length sequence must fit, the scheduler runs as many
    # of the three as the cache holds
    assert result.value("kv_sequences") == 1
    assert result.value("kv_cells") == 5008
    assert result.value("running_sequences") == 3


def test_vllm_tensor_parallel_beyond_kv_heads_replicates_them(measured):
    # Qwen2.5-72B has 8 KV heads: over 16 devices each stores one head, not half of one
    result = estimate(measured, "qwen2.5-72b-instruct", quant="BF16", engine="vllm", gpus=16)
    assert result.value("tensor_parallel") == 16
    assert result.value("kv_split_ways") == 8
    assert result.value("device_kv_bytes_per_token") == pytest.approx(
        result.value("kv_bytes_per_token") / 8)


# -- llama.cpp: buffers sized to the context ----------------------------------------------

@pytest.mark.parametrize("row", LLAMACPP_LOGS,
                         ids=lambda r: f"{r['model']}-{r['quantity']}-{r['context']}")
def test_llamacpp_buffers_match_the_logged(measured, row):
    # a log of a sibling release with a longer trained context (Qwen3-30B-A3B-Thinking-2507,
    # 262,144 tokens) stands in under a pack of 40,960: the context is asked for explicitly
    trained = measured.models[row["model"]].max_position_embeddings.value
    result = estimate(measured, row["model"], row["hardware"], quant=row["quant"], kv=row["kv"],
                      engine="llama.cpp", context=int(row["context"]), batch=int(row["batch"]),
                      ubatch=int(row["ubatch"]),
                      rope_scale=max(1.0, int(row["context"]) / trained))
    value = {
        "device_buffers_mib": lambda: (result.value("device_weights_gib")
                                       + result.value("kv_cache_gib")
                                       + result.value("activation_gib")) * 1024,
        "kv_cache_mib": lambda: result.value("kv_cache_gib") * 1024,
        "activation_mib": lambda: result.value("activation_gib") * 1024,
        "host_weights_mib": lambda: result.value("host_weights_gib") * 1024,
    }[row["quantity"]]()
    assert value == pytest.approx(float(row["logged_mib"]), rel=0.05)


def test_llamacpp_pads_every_sequence_to_256_cells(measured):
    result = estimate(measured, "llama-3.1-8b-instruct", context=6000, batch=3)
    assert result.value("kv_cells_per_sequence") == 6144
    assert result.value("kv_cells") == 3 * 6144
    # 32 layers x 8 KV heads x 128 x (K + V) x 2 bytes = 128 KiB per cell
    assert result.value("kv_cache_gib") == pytest.approx(3 * 6144 * 131072 / 2**30)


def test_llamacpp_window_layers_keep_window_plus_ubatch(measured):
    # gemma 3: 1024-token window; llama.cpp keeps pad(1024 + 512, 256) = 1536 cells
    result = estimate(measured, "gemma-3-4b-it", quant="Q4_K_M", context=32768)
    assert result.value("kv_window_cells") == 1536
    assert estimate(measured, "gemma-3-4b-it", quant="Q4_K_M", context=32768,
                    ubatch=2048).value("kv_window_cells") == 3072
    assert estimate(measured, "gemma-3-4b-it", quant="Q4_K_M",
                    context=1000).value("kv_window_cells") == 1024


def test_llamacpp_compute_buffer_follows_ubatch_and_vocabulary(measured):
    # the f32 logits and normed hidden state of one ubatch: 512 x (128256 + 4096) x 4 bytes
    result = estimate(measured, "llama-3.1-8b-instruct")
    assert result.value("activation_gib") == pytest.approx(512 * (128256 + 4096) * 4 / 2**30)
    assert estimate(measured, "llama-3.1-8b-instruct", ubatch=2048).value(
        "activation_gib") == pytest.approx(4 * 512 * (128256 + 4096) * 4 / 2**30)


def test_llamacpp_keeps_the_token_embedding_on_the_host(measured):
    untied = estimate(measured, "llama-3.1-8b-instruct", quant="Q4_K_M")
    # token_embd at Q4_K (4.5 bits): 128256 x 4096 x 4.5 / 8 bytes
    assert untied.value("host_weights_gib") == pytest.approx(128256 * 4096 * 4.5 / 8 / 2**30)
    assert untied.value("device_weights_gib") == pytest.approx(
        untied.value("weights_gib") - untied.value("host_weights_gib"))
    tied = estimate(measured, "qwen3-4b", quant="Q4_K_M")  # tied embeddings
    assert tied.value("host_weights_gib") == 0
    unified = estimate(measured, "llama-3.1-8b-instruct", "macbook-pro-m4-max-128gb")
    assert unified.value("host_weights_gib") == 0  # host memory is the same pool
    vllm = estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm")
    assert vllm.value("host_weights_gib") == 0


# -- the engine, the split and the device count change the numbers -------------------------

def test_engine_changes_the_accounting(measured):
    llama = estimate(measured, "llama-3.1-8b-instruct", "rtx-4090", quant="BF16")
    vllm = estimate(measured, "llama-3.1-8b-instruct", "rtx-4090", quant="BF16", engine="vllm")
    assert llama.value("overhead_gib") == pytest.approx(round(0.25244140625 + 0.32, 2))
    assert vllm.value("overhead_gib") != llama.value("overhead_gib")
    assert llama.value("kv_capacity_tokens") is not None
    # vLLM may fill its utilization share; llama.cpp the whole visible memory
    assert vllm.value("device_usable_gib") == pytest.approx(round(
        24 * (1 - 0.01) * 0.92, 2))
    assert llama.value("device_usable_gib") == pytest.approx(round(24 * (1 - 0.01), 2))


def test_layer_split_gives_each_device_its_share(measured):
    one = estimate(measured, "llama-3.3-70b-instruct", "rtx-3090", quant="Q4_K_M")
    two = estimate(measured, "llama-3.3-70b-instruct", "rtx-3090", quant="Q4_K_M", gpus=2)
    assert two.value("tensor_parallel") == 1 and two.value("layer_stages") == 2
    assert two.value("device_weights_gib") == pytest.approx(one.value("device_weights_gib") / 2)
    assert two.value("device_required_gib") == pytest.approx(round(
        two.value("device_weights_gib") + two.value("kv_cache_gib") / 2
        + two.value("overhead_gib"), 2))
    assert not one.value("fits_in_memory") and two.value("fits_in_memory")


def test_split_option_overrides_the_engine_default(measured):
    layer = estimate(measured, "llama-3.1-8b-instruct", engine="vllm", quant="BF16", gpus=2,
                     split="layer")
    tensor = estimate(measured, "llama-3.1-8b-instruct", engine="vllm", quant="BF16", gpus=2)
    assert (layer.value("tensor_parallel"), tensor.value("tensor_parallel")) == (1, 2)
    # the communication buffers of tensor parallelism
    assert tensor.value("runtime_gib") - layer.value("runtime_gib") == pytest.approx(1.88)


def test_fit_is_judged_on_one_device(measured):
    result = estimate(measured, "llama-3.3-70b-instruct", "rtx-3090", quant="Q4_K_M", gpus=2)
    assert result.value("fits_in_memory") == (
        result.value("device_required_gib") <= result.value("device_usable_gib"))
    assert result.value("usable_gib") == pytest.approx(round(
        result.value("device_usable_gib") * 2, 2))


# -- bad input: one line, exit 2 -----------------------------------------------------------

def test_tensor_split_that_does_not_divide_the_heads(capsys):
    code = main(["estimate", "llama-3.1-8b-instruct", "--engine", "vllm", "--gpus", "3"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ("fitproof: error: a tensor-parallel split over 3 devices does not divide "
                   "the 32 attention heads of Llama 3.1 8B Instruct; use --gpus 2, 4, 8, 16, "
                   "32 or --split layer\n")
    # a layer split of the same three devices is fine
    assert main(["estimate", "llama-3.1-8b-instruct", "--engine", "vllm", "--gpus", "3",
                 "--split", "layer"]) == 0


def test_unknown_split_name(capsys, measured):
    with pytest.raises(SystemExit) as caught:
        main(["estimate", "--split", "diagonal"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'diagonal'" in err
    with pytest.raises(fitproof.InputError, match=r"^split must be one of layer, tensor "
                                                  r"\(got 'diagonal'\)$"):
        estimate(measured, "llama-3.1-8b-instruct", split="diagonal")


def test_zero_ubatch_is_refused(capsys):
    assert main(["estimate", "--ubatch", "0"]) == 2
    assert capsys.readouterr().err == "fitproof: error: ubatch must be at least 1 (got 0)\n"


def test_shared_options_before_the_command(capsys):
    assert main(["--profile", "measured", "estimate", "llama-3.1-8b-instruct", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert "kv_capacity_tokens" in data["quantities"]


def test_estimate_text_shows_the_device_and_the_kv_capacity(capsys, measured):
    assert main(["--no-plugins", "estimate", "llama-3.3-70b-instruct", "--on",
                 "h100-80gb-sxm", "--quant", "BF16", "--engine", "vllm", "--gpus", "4"]) == 0
    out = capsys.readouterr().out
    result = estimate(measured, "llama-3.3-70b-instruct", quant="BF16", engine="vllm", gpus=4)
    per_device = (f"    Per device                {result.value('device_required_gib')} GiB of "
                  f"{result.value('device_usable_gib')} GiB usable (tensor parallel over 4)")
    assert per_device in out.splitlines()
    tokens = f"{int(result.value('kv_capacity_tokens')):,}"
    assert f"    KV cache capacity         {tokens} tokens (" in out
    assert "    Engine & activation       " in out and " GiB per device" in out


def test_vllm_cuda_graphs_sit_beside_the_budget(measured):
    # the fitted pool for 32 layers, against the 0.91 GiB vLLM 0.19 logs for Llama 3.1 8B
    result = estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                      gpu_memory_utilization=0.95)
    assert result.value("cuda_graph_gib") == pytest.approx(0.33 + 0.0165 * 32)
    assert result.value("cuda_graph_gib") == pytest.approx(0.91, abs=0.1)  # fit residual
    assert result.value("budget_margin_gib") == pytest.approx(
        79.19 * 0.05 - result.value("cuda_graph_gib") - 0.51)
    assert estimate(measured, "llama-3.1-8b-instruct").value("cuda_graph_gib") == 0  # llama.cpp


def test_tensor_parallel_keeps_an_mla_latent_cache_whole(measured):
    # DeepSeek's compressed latent (512 + 64 per layer) is not split by head: each of the
    # eight ranks stores all of it
    result = estimate(measured, "deepseek-r1", "h200-141gb-sxm", quant="native", engine="vllm",
                      gpus=8)
    assert result.value("kv_split_ways") == 1
    assert result.value("device_kv_bytes_per_token") == result.value("kv_bytes_per_token") \
        == 61 * (512 + 64) * 2
