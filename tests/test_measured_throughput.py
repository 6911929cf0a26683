"""Decode and prefill in the measured profile: bytes a token reads, the compute ceiling at
large batches, and how a layer split and tensor parallelism share the work."""

from __future__ import annotations

import pytest

import fitproof


@pytest.fixture(scope="module")
def measured():
    return fitproof.load_registry(plugins=False, profile="measured")


def estimate(registry, model, hardware="h100-80gb-sxm", **kwargs):
    return fitproof.estimate(model, hardware, registry=registry, **kwargs)


# -- params_active: the model-card convention ----------------------------------------------

@pytest.mark.parametrize(("model", "card"), [
    # reference/hf-configs/INDEX.md quotes each model card's activated parameters
    ("deepseek-v3", 37e9), ("kimi-k2-instruct", 32e9), ("llama-4-scout-17b-16e-instruct", 17e9),
    ("llama-4-maverick-17b-128e-instruct", 17e9),
])
def test_params_active_counts_embeddings_as_model_cards_do(measured, model, card):
    assert estimate(measured, model).value("params_active") == pytest.approx(card, rel=0.03)


def test_gpt_oss_cards_leave_the_input_embedding_out(measured):
    # OpenAI's 5.1B and 3.6B count the output head but not the embedding lookup: that is
    # the parameters a token multiplies with, a quantity of its own
    big = estimate(measured, "gpt-oss-120b")
    small = estimate(measured, "gpt-oss-20b")
    assert big.value("params_compute_per_token") == pytest.approx(5.1e9, rel=0.01)
    assert small.value("params_compute_per_token") == pytest.approx(3.6e9, rel=0.01)
    assert big.value("params_active") - big.value("params_compute_per_token") == \
        201088 * 2880  # the untied embedding


def test_qwen1_5_moe_a2_7b_is_2_69b(measured, tmp_path, capsys):
    from pathlib import Path

    from fitproof.cli import main

    config = Path(__file__).parent / "data" / "unseen-configs" / "qwen1.5-moe-a2.7b.json"
    assert main(["import", "hf", str(config), "--id", "qwen1.5-moe-a2.7b", "--out",
                 str(tmp_path), "--no-plugins"]) == 0
    capsys.readouterr()
    registry = fitproof.load_registry([tmp_path], plugins=False, profile="measured")
    result = estimate(registry, "qwen1.5-moe-a2.7b")
    assert result.value("params_active") == pytest.approx(2.69e9, rel=0.005)


# -- bytes read per decoded token ------------------------------------------------------------

def test_decode_reads_every_weight_but_the_embedding_and_idle_experts(measured):
    dense = estimate(measured, "llama-3.1-8b-instruct", quant="BF16")
    embedding = 128256 * 4096 * 16 / 8 / 2**30
    assert dense.value("decode_weights_gib") == pytest.approx(
        dense.value("weight_bits") / 8 / 2**30 - embedding)
    moe = estimate(measured, "qwen3-30b-a3b", quant="BF16")
    idle = moe.value("expert_bits") * (1 - 8 / 128)
    assert moe.value("decode_weights_gib") == pytest.approx(
        (moe.value("weight_bits") - moe.value("token_embd_bits") - idle) / 8 / 2**30)
    assert moe.value("active_weights_gib") == moe.value("decode_weights_gib")


# -- batch: decode saturates at the compute ceiling ------------------------------------------

def test_decode_throughput_saturates_at_the_compute_ceiling(measured):
    rates = [estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                      context=256, batch=b).value("decode_tps") for b in (1, 16, 128, 1024)]
    assert rates == sorted(rates)
    ceiling = estimate(measured, "llama-3.1-8b-instruct", quant="BF16",
                       engine="vllm").value("decode_compute_ceiling_tps")
    # 0.5 x 989 TFLOP/s BF16 of an H100 over 2 FLOP per parameter
    assert ceiling == pytest.approx(0.5 * 989e12 / (2 * 7504924672), rel=1e-6)
    assert all(rate < ceiling for rate in rates)
    big = estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                   context=256, batch=1024)
    assert big.value("decode_compute_s") > big.value("decode_memory_s")  # compute-bound
    assert big.value("decode_step_s") == pytest.approx(
        big.value("decode_compute_s") + big.value("token_overhead_s"))


# -- several devices -------------------------------------------------------------------------

def test_layer_split_streams_one_device_after_the_other(measured):
    one = estimate(measured, "llama-3.3-70b-instruct", "rtx-3090", quant="Q4_K_M",
                   context=2048, gpus=2, split="layer")
    assert one.value("decode_bandwidth_gbs") == 936  # one RTX 3090
    assert one.value("allreduce_s") == 0
    assert one.value("prefill_tps") == pytest.approx(
        one.value("prefill_tflops") * 1e12 / (2 * one.value("params_compute_per_token")))


def test_tensor_parallel_adds_bandwidth_and_pays_all_reduces(measured):
    tp = estimate(measured, "llama-3.3-70b-instruct", quant="BF16", engine="vllm", gpus=4)
    assert tp.value("decode_bandwidth_gbs") == 4 * 3350
    # 2 all-reduces x 80 layers x (13.67 us + 2 x 3/4 x 8192 x 2 bytes / 450 GB/s)
    per_layer = 13.67e-6 + 2 * 3 / 4 * 8192 * 2 / 450e9
    assert tp.value("allreduce_s") == pytest.approx(2 * 80 * per_layer)
    layer = estimate(measured, "llama-3.3-70b-instruct", quant="BF16", engine="vllm", gpus=4,
                     split="layer")
    assert tp.value("decode_tps") > 2 * layer.value("decode_tps")


def test_tensor_parallel_without_interconnect_figures_is_unknown(measured):
    result = estimate(measured, "qwen3-8b", "mlu590-80gb", quant="BF16", engine="vllm", gpus=2)
    assert result.value("allreduce_s") is None and result.value("decode_tps") is None


def test_decode_is_memory_bound_where_compute_is_unknown(measured):
    # no source gives the MLU590's compute: decode still streams its memory
    result = estimate(measured, "qwen3.5-35b-a3b", "mlu590-80gb")
    assert result.value("prefill_tps") is None and result.value("decode_compute_s") is None
    assert result.value("decode_step_s") == pytest.approx(
        result.value("decode_memory_s") + result.value("token_overhead_s"))


def test_prefill_is_known_for_every_accelerator_a_source_describes(measured):
    unknown = {hw for hw in measured.hardware
               if estimate(measured, "llama-3.1-8b-instruct", hw).value("prefill_tps") is None}
    # no source gives the MLU590's compute, and the "M4 Ultra" of the seed pages was never
    # made (reference/hardware/NOTES.md §4); each pack says so in its notes
    assert unknown == {"mlu590-80gb", "mac-studio-m4-ultra-256gb"}
