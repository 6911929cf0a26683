"""Decode and prefill in the measured profile: bytes a token reads, the compute ceiling at
large batches, and how a layer split and tensor parallelism share the work."""

from __future__ import annotations

from pathlib import Path

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


# -- decode: bytes over achieved bandwidth, plus overheads -----------------------------------

def engine_figure(registry, engine, field, key):
    figures = getattr(registry.engines[engine], field)
    return float((figures.get(key) or figures["default"]).value)


def test_decode_step_is_bytes_over_achieved_bandwidth_plus_arithmetic_and_overheads(measured):
    result = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="F16", context=8192,
                      prompt=4096, generate=512)
    eta = engine_figure(measured, "llama.cpp", "decode_bandwidth_efficiency", "cuda")
    phi = engine_figure(measured, "llama.cpp", "decode_kernel_factor", "float")
    kappa = engine_figure(measured, "llama.cpp", "kv_read_efficiency", "cuda")
    t0 = engine_figure(measured, "llama.cpp", "decode_token_overhead_s", "cuda")
    tau = engine_figure(measured, "llama.cpp", "decode_layer_overhead_s", "cuda")
    # every sequence at the average depth: 4096 + 512 / 2 tokens of 32 layers x 8 KV heads
    # x 128 x 2 (keys and values) x 2 bytes
    assert result.value("decode_depth") == 4352
    kv_bytes = 4352 * 32 * 8 * 128 * 2 * 2
    assert result.value("kv_read_gib") == pytest.approx(kv_bytes / 2**30)
    weights = result.value("decode_weights_gib") * 2**30
    # and the shader arithmetic of each weight at the RTX 4090's 82.6 FP32 TFLOP/s
    ops = measured.engines["llama.cpp"].decode_ops_per_weight["cuda"].value
    arithmetic = result.value("params_compute_per_token") * ops / 82.6e12
    expected = (weights / (eta * phi * 1008e9) + kv_bytes / (kappa * 1008e9) + arithmetic
                + t0 + 32 * tau)
    assert result.value("decode_step_s") == pytest.approx(expected)
    assert result.value("decode_tps") == pytest.approx(1 / expected)


def test_each_weight_costs_shader_arithmetic_where_the_pack_gives_the_shader_rate(measured):
    # the M2 Ultra's pack gives its FP32 shader rate (27.2 TFLOP/s): each weight a decode step
    # reads costs the fitted operations at that rate, on top of the memory stream
    ops = measured.engines["llama.cpp"].decode_ops_per_weight["metal"].value
    assert 1 < ops < 100
    apple = estimate(measured, "llama-3.1-8b", "apple-m2-ultra-76c-192gb")
    weights = apple.value("params_compute_per_token")
    assert apple.value("decode_arithmetic_s") == pytest.approx(weights * ops / 27.2e12)
    step = apple.value("decode_step_s")
    assert step == pytest.approx(
        apple.value("decode_memory_s") + apple.value("decode_arithmetic_s")
        + apple.value("decode_overhead_s"))
    # a pack without a shader rate (the H800 SXM: no readable source) pays no such term;
    # the RTX 4090's pays CUDA's own figure at 82.6 TFLOP/s
    assert measured.hardware["h800-80gb-sxm"].shader_tflops is None
    assert estimate(measured, "llama-3.1-8b", "h800-80gb-sxm").value("decode_arithmetic_s") == 0
    cuda = measured.engines["llama.cpp"].decode_ops_per_weight["cuda"].value
    nvidia = estimate(measured, "llama-3.1-8b", "rtx-4090")
    assert nvidia.value("decode_arithmetic_s") == pytest.approx(
        nvidia.value("params_compute_per_token") * cuda / 82.6e12)



def test_each_mixture_of_experts_layer_pays_its_routing_overhead(measured):
    # a MoE layer launches the router's kernels and the gathered expert matmuls on top of a
    # dense layer's: Qwen3-30B-A3B's 48 MoE layers on the M2 Ultra pay Metal's fitted figure
    # 48 times, a dense model of as many layers (Qwen3-32B, 64 layers) pays none
    engine = measured.engines["llama.cpp"]
    t0 = engine.decode_token_overhead_s["metal"].value
    tau = engine.decode_layer_overhead_s["metal"].value
    sigma = engine.decode_moe_layer_overhead_s["metal"].value
    assert 1e-6 < sigma < 1e-3
    moe = estimate(measured, "qwen3-30b-a3b", "apple-m2-ultra-76c-192gb", quant="Q8_0")
    assert moe.value("decode_overhead_s") == pytest.approx(t0 + 48 * tau + 48 * sigma)
    dense = estimate(measured, "qwen3-32b", "apple-m2-ultra-76c-192gb", quant="Q8_0")
    assert dense.value("decode_overhead_s") == pytest.approx(t0 + 64 * tau)
    # a backend without MoE rows (SYCL) takes the default figure
    assert "sycl" not in engine.decode_moe_layer_overhead_s
    assert engine.decode_moe_layer_overhead_s["default"].value >= 0


def test_each_sequence_the_mat_vec_kernels_take_pays_the_shader_arithmetic(measured):
    # llama.cpp runs a batch of up to 8 sequences through its matrix-vector kernels (CUDA's
    # MMVQ_MAX_BATCH_SIZE, Metal's small-batch mat-mv, Vulkan's mul_mat_vec_max_cols), each
    # sequence's multiply-adds on the shader cores; a larger batch goes to the matrix
    # kernels, so the arithmetic grows with the batch up to 8 and no further
    engine = measured.engines["llama.cpp"]
    assert engine.decode_vector_batch_max.value == 8
    ops = engine.decode_ops_per_weight["cuda"].value

    def arithmetic(batch):
        result = estimate(measured, "llama-3.1-8b", "dgx-spark", quant="Q8_0",
                          context=1024, batch=batch)
        assert result.value("decode_vector_batch") == min(batch, 8)
        return result.value("decode_arithmetic_s"), result.value("params_compute_per_token")

    one, weights = arithmetic(1)
    assert one == pytest.approx(weights * ops / 31e12)  # the GB10's ~31 FP32 TFLOP/s
    assert arithmetic(4)[0] == pytest.approx(4 * one)
    assert arithmetic(8)[0] == pytest.approx(8 * one)
    assert arithmetic(32)[0] == pytest.approx(8 * one)
    # an engine that gives no mat-vec batch (vLLM's GEMMs) pays the arithmetic once a step
    vllm = estimate(measured, "llama-3.1-8b-instruct", "rtx-4090", quant="BF16",
                    engine="vllm", context=256, batch=16)
    assert measured.engines["vllm"].decode_vector_batch_max is None
    assert vllm.value("decode_vector_batch") == 1

def test_hbm_streams_at_its_memory_family_factor(measured):
    # the same step on an A100 (HBM2e): weights and KV cache at the hbm factor's share
    result = estimate(measured, "llama-3.1-8b", "a100-80gb-sxm", quant="F16", context=8192,
                      prompt=4096, generate=512)
    rho = engine_figure(measured, "llama.cpp", "decode_memory_factor", "hbm")
    assert 0.3 < rho < 0.9  # fitted on the A100, H100 PCIe and MI300X rows
    assert result.value("decode_memory_factor") == rho
    eta = engine_figure(measured, "llama.cpp", "decode_bandwidth_efficiency", "cuda")
    phi = engine_figure(measured, "llama.cpp", "decode_kernel_factor", "float")
    kappa = engine_figure(measured, "llama.cpp", "kv_read_efficiency", "cuda")
    t0 = engine_figure(measured, "llama.cpp", "decode_token_overhead_s", "cuda")
    tau = engine_figure(measured, "llama.cpp", "decode_layer_overhead_s", "cuda")
    weights = result.value("decode_weights_gib") * 2**30
    kv_bytes = 4352 * 32 * 8 * 128 * 2 * 2
    # plus the shader arithmetic at the A100's 19.5 FP32 TFLOP/s
    ops = measured.engines["llama.cpp"].decode_ops_per_weight["cuda"].value
    arithmetic = result.value("params_compute_per_token") * ops / 19.5e12
    expected = (weights / (eta * phi * rho * 2039e9) + kv_bytes / (kappa * rho * 2039e9)
                + arithmetic + t0 + 32 * tau)
    assert result.value("decode_step_s") == pytest.approx(expected)
    # GDDR is the reference family; a device whose pack names no family gets no factor
    assert estimate(measured, "llama-3.1-8b", "rtx-4090").value("decode_memory_factor") == 1
    assert measured.hardware["apple-m2-ultra-76c-192gb"].memory_family is None
    assert estimate(measured, "llama-3.1-8b", "apple-m2-ultra-76c-192gb").value(
        "decode_memory_factor") == engine_figure(measured, "llama.cpp", "decode_memory_factor",
                                                 "default") == 1


def test_an_unknown_memory_family_is_refused_with_its_line(tmp_path, capsys):
    from fitproof.cli import main
    pack = (tmp_path / "x.yaml")
    pack.write_text((Path(__file__).resolve().parent.parent / "examples" / "hardware-template.yaml")
                    .read_text(encoding="utf-8").replace("memory_family: gddr", "memory_family: sram"),
                    encoding="utf-8")
    assert main(["packs", "validate", str(pack)]) == 1
    out = capsys.readouterr()
    line = next(i for i, text in enumerate(pack.read_text().splitlines(), 1)
                if text.startswith("memory_family"))
    assert f"x.yaml:{line}: memory_family:" in out.out + out.err


def test_a_deeper_cache_slows_decode(measured):
    rates = [estimate(measured, "llama-3.1-8b", "rtx-4090", quant="Q4_K_M", context=65536,
                      prompt=p).value("decode_tps") for p in (0, 8192, 32768)]
    assert rates[0] > rates[1] > rates[2]


def test_the_band_comes_from_the_held_out_residuals_of_the_backend(measured):
    result = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="Q4_K_M")
    low = engine_figure(measured, "llama.cpp", "decode_band_low", "cuda")
    high = engine_figure(measured, "llama.cpp", "decode_band_high", "cuda")
    assert low < 1 < high
    assert result.value("decode_tps_low") == pytest.approx(result.value("decode_tps") * low)
    assert result.value("decode_tps_high") == pytest.approx(result.value("decode_tps") * high)


def one_stream_compute(measured) -> float:
    return estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                    context=256).value("decode_compute_s")


def test_batch_reads_more_experts_and_saturates_at_the_compute_ceiling(measured):
    one = estimate(measured, "qwen3-30b-a3b", quant="Q4_K_M", context=1024)
    many = estimate(measured, "qwen3-30b-a3b", quant="Q4_K_M", context=1024, batch=64)
    assert one.value("experts_touched_share") == pytest.approx(8 / 128)
    assert many.value("experts_touched_share") == pytest.approx(1 - (1 - 8 / 128) ** 64)
    rates = [estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                      context=256, batch=b).value("decode_tps") for b in (1, 16, 128, 1024)]
    assert rates == sorted(rates)
    big = estimate(measured, "llama-3.1-8b-instruct", quant="BF16", engine="vllm",
                   context=256, batch=1024)
    ceiling = big.value("decode_compute_ceiling_tps")
    assert ceiling == pytest.approx(big.value("prefill_tflops") * 1e12 / (2 * 7504924672))
    assert all(rate < ceiling for rate in rates)
    # the step is bound by whichever of compute and memory is slower, plus what neither hides
    assert big.value("decode_step_s") == pytest.approx(
        max(big.value("decode_compute_s"), big.value("decode_memory_s"))
        + big.value("decode_step_extra_s"))
    assert big.value("decode_step_extra_s") == pytest.approx(
        big.value("decode_arithmetic_s") + big.value("decode_overhead_s")
        + big.value("running_sequences") * measured.engines["vllm"].sequence_overhead_s.value)
    assert big.value("decode_compute_s") > 20 * one_stream_compute(measured)


# -- prefill: FLOPs over achieved compute ----------------------------------------------------

def test_prefill_is_flops_over_achieved_compute(measured):
    result = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="F16", prompt=2048)
    mu = engine_figure(measured, "llama.cpp", "prefill_compute_efficiency", "cuda")
    psi = engine_figure(measured, "llama.cpp", "prefill_kernel_factor", "float")
    alpha = engine_figure(measured, "llama.cpp", "prefill_attention_efficiency", "cuda")
    peak = 660.6e12  # the RTX 4090's dense INT8 rate
    # attention over half the prompt: 4 FLOP x 32 heads x 128 x 32 layers per cached token
    attention = 4 * 32 * 128 * 32 * 1024
    assert result.value("prefill_attention_flops") == pytest.approx(attention)
    ceiling = engine_figure(measured, "llama.cpp", "prefill_ceiling_tflops", "cuda") * 1e12
    token = (2 * 7504924672 / (peak * mu * psi) + attention / (peak * alpha)
             + 2 * 7504924672 / ceiling)
    assert result.value("prefill_tps") == pytest.approx(1 / token)


def test_a_faster_tensor_peak_approaches_the_backends_ceiling(measured):
    # the H100 PCIe has 2.3x the RTX 4090's INT8 peak; its prompt rate grows by less, and no
    # device's achieved compute passes the ceiling (the part a faster tensor unit does not
    # shorten)
    ceiling = engine_figure(measured, "llama.cpp", "prefill_ceiling_tflops", "cuda")
    rates = {}
    for device in ("rtx-4090", "h100-80gb-pcie"):
        result = estimate(measured, "llama-3.1-8b", device, quant="Q4_K_M", prompt=512)
        rates[device] = result.value("prefill_tps")
        assert result.value("prefill_tflops") < ceiling
    peaks = 1513 / 660.6
    assert 1 < rates["h100-80gb-pcie"] / rates["rtx-4090"] < peaks


# -- several devices -------------------------------------------------------------------------

def test_layer_split_streams_one_device_after_the_other(measured):
    one = estimate(measured, "llama-3.3-70b-instruct", "rtx-3090", quant="Q4_K_M",
                   context=2048, gpus=2, split="layer", prompt=512)
    assert one.value("decode_bandwidth_gbs") == 936  # one RTX 3090
    assert one.value("allreduce_s") == 0
    hop = float(measured.engines["llama.cpp"].layer_split_hop_s.value)
    assert one.value("decode_overhead_s") == pytest.approx(
        engine_figure(measured, "llama.cpp", "decode_token_overhead_s", "cuda")
        + 80 * engine_figure(measured, "llama.cpp", "decode_layer_overhead_s", "cuda") + hop)
    # one ubatch of 512 tokens: nothing to pipeline
    assert one.value("pipeline_speedup") == 1
    assert one.value("prefill_tps") == pytest.approx(1 / one.value("prefill_token_s"))


def test_a_layer_split_pipelines_the_ubatches_of_a_long_prompt(measured):
    # 4096 tokens in n_batch 2048 = 4 ubatches of 512 in flight over 4 stages: 4 x 4 / 7
    four = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="Q4_K_M", context=4096,
                    gpus=4, prompt=4096)
    assert four.value("prefill_passes_in_flight") == 4
    assert four.value("pipeline_speedup") == pytest.approx(16 / 7)
    one = estimate(measured, "llama-3.1-8b", "rtx-4090", quant="Q4_K_M", context=4096,
                   prompt=4096)
    assert four.value("prefill_tps") == pytest.approx(16 / 7 * one.value("prefill_tps"))


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
    # no source gives the MLU590's compute: decode still streams its memory (under vLLM,
    # which runs on it through Cambricon's plugin; llama.cpp has no backend for it)
    result = estimate(measured, "qwen3.5-35b-a3b", "mlu590-80gb", engine="vllm", quant="BF16")
    assert result.value("prefill_tps") is None and result.value("decode_compute_s") is None
    assert result.value("decode_step_s") == pytest.approx(
        result.value("decode_memory_s") + result.value("decode_step_extra_s"))


@pytest.mark.slow
def test_prefill_is_known_for_every_accelerator_a_source_describes(measured):
    results = {hw: estimate(measured, "llama-3.1-8b-instruct", hw) for hw in measured.accelerators}
    unknown = {hw for hw, r in results.items() if r.value("prefill_tps") is None}
    unsupported = {hw for hw, r in results.items() if not r.value("engine_supported")}
    # llama.cpp has no backend for Gaudi, Cambricon, Kunlunxin, MetaX or Hygon's DCU, and
    # the "M4 Ultra" of the seed pages was never made (reference/hardware/NOTES.md §4): no
    # speed for them
    assert unsupported == {"mlu590-80gb", "gaudi-3", "kunlunxin-p800-64gb", "metax-c500-64gb",
                           "dcu-k100-ai-64gb", "mac-studio-m4-ultra-256gb"}
    # of the others, no source gives the Arc A770's matrix (XMX) rates; its pack says so
    assert unknown - unsupported == {"arc-a770-16gb"}


def test_the_report_headline_carries_the_bands(capsys):
    import json

    from fitproof.cli import main

    assert main(["report", "llama-3.1-8b", "--on", "rtx-4090", "--format", "json",
                 "--no-plugins"]) == 0
    data = json.loads(capsys.readouterr().out)
    headline = json.dumps(data)
    assert '"quantity": "decode_tps_low"' in headline and '"quantity": "prefill_tps_high"' in headline
    assert main(["report", "llama-3.1-8b", "--on", "rtx-4090", "--no-plugins"]) == 0
    text = capsys.readouterr().out
    low = fitproof.estimate("llama-3.1-8b", "rtx-4090").value("decode_tps_low")
    assert f"tok/s ({round(low, 1):g}–" in text  # one decimal, a trailing .0 dropped
    assert main(["report", "llama-3.1-8b", "--on", "rtx-4090", "--profile", "seed",
                 "--no-plugins"]) == 0
    assert "tok/s (" not in capsys.readouterr().out  # the seed pages have no bands


def test_the_measured_profile_retires_the_seed_speed_constants(measured):
    result = fitproof.estimate("llama-3.1-8b", "rtx-4090", registry=measured)
    assert "token_overhead_s" not in result.quantities
    assert "decode_efficiency" not in result.quantities
    seed = fitproof.estimate("llama-3.1-8b", "rtx-4090", profile="seed", registry=measured)
    assert seed.value("token_overhead_s") == pytest.approx(0.0022)


@pytest.mark.parametrize(("body", "message"), [
    ("retires: [no_such_formula]\nformulas:\n  x_tps:\n    expr: 1\n    unit: tok/s\n    description: A test\n",
     "my.yaml:5: retires.0: retires 'no_such_formula', which no pack loaded before it defines"),
    ("retires: [gpu_share]\nformulas:\n  x_tps:\n    expr: 1\n    unit: tok/s\n    description: A test\n",
     "gpu_share"),
])
def test_retiring_is_checked(tmp_path, body, message):
    from fitproof.errors import PackError

    (tmp_path / "my.yaml").write_text(
        "kind: formulas\nid: my\nprofile: measured\nname: Mine\n" + body, encoding="utf-8")
    with pytest.raises(PackError) as error:
        fitproof.load_registry([tmp_path], plugins=False, profile="measured")
    assert message in str(error.value)
