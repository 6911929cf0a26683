"""The SGLang engine pack (packs/engines/sglang.yaml): its figures are SGLang's own rules
read from its source (docs/research/serving-engine-facts.md, commit 8905cbd4), and the
registry, the estimate and the launch command carry them.

The launch options accepted below are those of ``python -m sglang.launch_server``
(https://github.com/sgl-project/sglang/blob/8905cbd42f4a27dbecad6487cd3904278756fef8/docs_new/docs/advanced_features/server_arguments.mdx).
"""

from __future__ import annotations

import argparse
import math
import shlex

import pytest

import fitproof
from fitproof.registry.launch import launch_command

SGLANG_COMMIT = "8905cbd42f4a27dbecad6487cd3904278756fef8"


@pytest.fixture(scope="module")
def registry():
    return fitproof.load_registry(plugins=False, profile="measured")


def _prefill_graph_sizes(max_bs: int) -> list[int]:
    """SGLang's _generate_prefill_cuda_graph_batch_sizes (server_args.py L4232-L4249)."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1024 + 1, 64)) + list(range(1280, 4096 + 1, 256))
             + list(range(4608, max_bs + 1, 512)))
    return [s for s in sizes if s <= max_bs]


def test_mem_fraction_static_is_sglangs_rule_on_an_h100(registry):
    """mem_fraction_static = round((gpu_mem - reserved_mem) / gpu_mem, 3) with the H100's
    nvidia-smi total (81,559 MiB), chunked prefill 8192 and decode max_bs 256 at tp 1."""
    gpu_mem, chunked, max_bs, tp, pp = 81559, 8192, 256, 1, 1
    reserved = (512 + max(chunked, 2048) * 1.5 + tp * pp / 8 * 1024
                + max_bs * 2 + len(_prefill_graph_sizes(chunked)) * 8)
    assert len(_prefill_graph_sizes(chunked)) == 58 and reserved == 13904
    assert reserved > 10 * 1024  # the floor for devices above 60 GiB does not bind
    engine = registry.engines["sglang"]
    assert engine.gpu_memory_utilization.value == round((gpu_mem - reserved) / gpu_mem, 3) \
        == 0.83
    assert engine.gpu_memory_utilization.approximate  # other devices differ
    assert any(SGLANG_COMMIT in source for source in engine.gpu_memory_utilization.source)


def test_scheduling_defaults_are_sglangs(registry):
    engine = registry.engines["sglang"]
    assert engine.kv_block_tokens.value == 1  # page_size resolves to 1 off MUSA
    assert engine.ubatch_tokens.value == 8192  # chunked_prefill_size below 90 GiB
    assert engine.max_num_seqs.value == 2048  # max_running_requests' lower clamp
    assert engine.kv_from_budget and engine.splits_tensors
    assert engine.large_device_gib is None  # the ladder has more rungs than two keys hold
    assert engine.kv_types == {"f16": "auto", "fp8": "fp8_e4m3"}
    # activations and CUDA graphs live outside mem_fraction_static, not in the budget
    for figure in (engine.activation_bytes_per_vocab, engine.activation_bytes_per_hidden,
                   engine.activation_bytes_per_ffn):
        assert figure.value == 0
    assert engine.sampler_bytes_per_vocab is None and engine.cuda_graph_base_gib is None
    assert engine.runtime_overhead_gib["default"].approximate


def test_runs_on_the_platforms_sglang_documents(registry):
    runs_on = {backend: figure.value
               for backend, figure in registry.engines["sglang"].runs_on.items()}
    assert runs_on == {"cuda": 1, "rocm": 1, "sycl": 1, "cann": 1, "cpu": 1, "metal": 1,
                       "musa": 1, "vulkan": 0, "other": 0}
    gaudi = fitproof.estimate("qwen3-8b", "gaudi-3", quant="native", engine="sglang",
                              registry=registry)
    assert gaudi.value("engine_runs_on_device") == 0


def test_formats_sglang_loads(registry):
    loads = {name for name, (fmt, _) in registry.quant_formats.items()
             if "sglang" in (fmt.engines or ())}
    assert {"BF16", "FP8", "FP8-B128", "MXFP4", "AWQ-INT4", "AWQ-INT4-G64", "GPTQ-INT4",
            "GPTQ-INT4-G64", "GPTQ-INT4-G32", "NVFP4", "NVFP4-EXPERTS", "NF4"} == loads
    assert not any(pack.id == "gguf-formats" for name, (_, pack) in registry.quant_formats.items()
                   if name in loads)


def launch_server() -> argparse.ArgumentParser:
    class Strict(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(message)

    parser = Strict(prog="python -m sglang.launch_server", add_help=False)
    parser.add_argument("--model-path", "--model", required=True)
    parser.add_argument("--context-length", type=int, required=True)
    parser.add_argument("--mem-fraction-static", type=float)
    parser.add_argument("--kv-cache-dtype", choices=("auto", "fp8_e5m2", "fp8_e4m3"))
    parser.add_argument("--tp-size", "--tensor-parallel-size", type=int)
    parser.add_argument("--pp-size", "--pipeline-parallel-size", type=int)
    parser.add_argument("--max-running-requests", type=int)
    parser.add_argument("--chunked-prefill-size", type=int)
    parser.add_argument("--quantization", choices=("fp8", "awq", "gptq", "bitsandbytes",
                                                   "modelopt_fp4", "mxfp4"))
    return parser


def command(registry, model, hardware="h100-80gb-sxm", **choices):
    result = fitproof.estimate(model, hardware, engine="sglang", registry=registry, **choices)
    text = launch_command(registry, result.scenario, registry.engines["sglang"],
                          result.evaluation)
    lines = text.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    words = shlex.split(" ".join(line.rstrip("\\").strip() for line in lines
                                 if not line.startswith("#")))
    return result, comments, words


def test_launch_command(registry):
    result, comments, words = command(registry, "qwen3-8b", quant="native")
    assert words[:3] == ["python", "-m", "sglang.launch_server"] and not comments
    options = launch_server().parse_args(words[3:])
    assert options.model_path == "Qwen/Qwen3-8B"
    assert options.context_length == result.scenario.inputs["context"] == 8192
    assert options.mem_fraction_static is None  # SGLang's own rule unless one is asked for
    result, _, words = command(registry, "qwen3-8b", quant="native", kv="fp8", gpus=2,
                               batch=8, ubatch=4096, gpu_memory_utilization=0.8)
    options = launch_server().parse_args(words[3:])
    assert (options.mem_fraction_static, options.kv_cache_dtype, options.tp_size,
            options.max_running_requests, options.chunked_prefill_size) == \
        (0.8, "fp8_e4m3", 2, 8, 4096)
    _, _, words = command(registry, "qwen3-8b", quant="native", gpus=2, split=0)
    assert launch_server().parse_args(words[3:]).pp_size == 2


def test_an_fp8_model_loads(registry):
    result, comments, words = command(registry, "deepseek-r1", "h200-141gb-sxm",
                                      quant="native", gpus=8)
    assert result.scenario.quant == "FP8-B128"
    assert result.value("engine_loads_format") == 1 and result.value("engine_supported") == 1
    assert result.view().verdict.id != "unloadable"
    options = launch_server().parse_args(words[3:])
    assert (options.model_path, options.tp_size, comments) == ("deepseek-ai/DeepSeek-R1", 8, [])
    result, comments, words = command(registry, "llama-3.1-8b-instruct", quant="FP8")
    assert result.value("engine_loads_format") == 1 and not comments
    assert launch_server().parse_args(words[3:]).quantization == "fp8"
    assert math.isfinite(result.value("decode_tps"))


def test_a_gguf_format_is_refused_as_vllm_refuses_it(registry):
    verdicts = {}
    for engine in ("vllm", "sglang"):
        result = fitproof.estimate("qwen3-8b", "h100-80gb-sxm", quant="Q4_K_M", engine=engine,
                                   registry=registry)
        assert result.value("engine_loads_format") == 0
        assert result.value("engine_supported") == 0
        verdicts[engine] = result.view().verdict
        note = launch_command(registry, result.scenario, registry.engines[engine],
                              result.evaluation)
        assert note.startswith("# Not available:")
        assert all(line.startswith("#") for line in note.splitlines())
    assert verdicts["sglang"].id == verdicts["vllm"].id == "unloadable"
    assert verdicts["sglang"].label == verdicts["vllm"].label.replace("vLLM", "SGLang") \
        == "SGLang Cannot Load Q4_K_M Weights"


def test_the_h100_budget(registry):
    """The KV pool is 0.83 of the device's memory less the weights and the runtime."""
    result = fitproof.estimate("qwen3-8b", "h100-80gb-sxm", quant="native", engine="sglang",
                               registry=registry)
    visible = registry.hardware["h100-80gb-sxm"].visible_memory_gib.value
    assert result.value("device_usable_gib") == round(0.83 * visible, 2)
    assert result.value("activation_gib") == 0
    budget = result.value("device_usable_gib") - result.value("device_weights_gib") - 0.25
    assert result.value("kv_capacity_tokens") == math.floor(
        budget * 2**30 / result.value("device_kv_bytes_per_token"))
    gpt_oss = fitproof.estimate("gpt-oss-120b", "h100-80gb-sxm", quant="native",
                                engine="sglang", registry=registry)
    assert gpt_oss.scenario.quant == "MXFP4" and gpt_oss.value("fits_in_memory") == 1
    assert gpt_oss.value("kv_capacity_tokens") > gpt_oss.scenario.inputs["context"]


def test_speed_constants_stand_in_for_now(registry):
    """The measured profile's speed formulas need the fitted constants. SGLang's serving
    rows are on two devices (B200 and MI300X; the rest scored apart), too few for a fit of its
    own (benchmarks/fit_serving.py's MIN_DEVICES is three): the serving
    constants are vLLM's (benchmarks/fit_serving.py), the rest llama.cpp's
    (benchmarks/fit_speed.py), each figure saying so."""
    engine = registry.engines["sglang"]
    vllm, llama = registry.engines["vllm"], registry.engines["llama.cpp"]
    serving = ("too few serving rows of sglang in packs/measurements/ for a fit of its own "
               "(a fit needs rows on 3 devices): the figure fitted for vllm (benchmarks/fit_serving.py) "
               "stands in")
    speed = ("too few measurement rows of sglang in packs/measurements/ for a fit of its own: "
             "the figure fitted for llama.cpp (benchmarks/fit_speed.py) stands in")
    for donor, source, names in (
            (vllm, serving, ("decode_bandwidth_efficiency", "prefill_compute_efficiency",
                             "kv_read_efficiency")),
            (llama, speed, ("decode_band_low", "prefill_band_high", "decode_kernel_factor"))):
        for name in names:
            for key, figure in getattr(engine, name).items():
                assert figure.value == getattr(donor, name)[key].value
                assert figure.approximate and figure.source == (source,)
    assert engine.request_overhead_s.value == vllm.request_overhead_s.value