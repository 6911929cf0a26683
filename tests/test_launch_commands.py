"""Every generated launch command parses against the options its engine accepts, and says
what the sizing assumed.

The accepted options are those of llama-server
(https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md, common/arg.cpp)
and of `vllm serve` (https://docs.vllm.ai/en/latest/models/engine_args.html).
"""

from __future__ import annotations

import argparse
import shlex

import pytest

import fitproof
from fitproof.registry.launch import launch_command


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} < 1")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not in (0, 1]")
    return value


class _Strict(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(message)


def llama_server() -> argparse.ArgumentParser:
    parser = _Strict(prog="llama-server", add_help=False)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("-hf", dest="hf")
    source.add_argument("-m", dest="model")
    parser.add_argument("--ctx-size", "-c", type=_positive_int, required=True)
    parser.add_argument("-ngl", "--n-gpu-layers", type=int, required=True)
    parser.add_argument("--flash-attn", "-fa", choices=("on", "off", "auto"), required=True)
    kv = ("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")
    parser.add_argument("-ctk", "--cache-type-k", choices=kv)
    parser.add_argument("-ctv", "--cache-type-v", choices=kv)
    parser.add_argument("--parallel", "-np", type=_positive_int)
    parser.add_argument("--ubatch-size", "-ub", type=_positive_int)
    parser.add_argument("--split-mode", "-sm", choices=("none", "layer", "row"))
    return parser


def vllm_serve() -> argparse.ArgumentParser:
    parser = _Strict(prog="vllm serve", add_help=False)
    parser.add_argument("model")
    parser.add_argument("--max-model-len", type=_positive_int, required=True)
    parser.add_argument("--gpu-memory-utilization", type=_share, required=True)
    parser.add_argument("--kv-cache-dtype", choices=("auto", "fp8", "fp8_e4m3", "fp8_e5m2"))
    parser.add_argument("--tensor-parallel-size", type=_positive_int)
    parser.add_argument("--pipeline-parallel-size", type=_positive_int)
    parser.add_argument("--max-num-seqs", type=_positive_int)
    parser.add_argument("--max-num-batched-tokens", type=_positive_int)
    parser.add_argument("--quantization", choices=("fp8", "awq", "gptq", "bitsandbytes",
                                                   "compressed-tensors", "modelopt"))
    return parser


def parse(command: str):
    """(comment lines, program, parsed options) of a generated command."""
    lines = command.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    text = " ".join(line.rstrip("\\").strip() for line in lines if not line.startswith("#"))
    words = shlex.split(text)
    if words[:2] == ["vllm", "serve"]:
        return comments, "vllm", vllm_serve().parse_args(words[2:])
    assert words[0] == "llama-server", command
    return comments, "llama.cpp", llama_server().parse_args(words[1:])


@pytest.fixture(scope="module")
def measured():
    return fitproof.load_registry(plugins=False, profile="measured")


VARIANTS = [
    {},
    {"batch": 4, "kv": "q8_0", "gpus": 2},
    {"offload": 30, "ubatch": 1024},
]


def _cases(registry):
    for model in sorted(registry.models):
        for engine in ("llama.cpp", "vllm"):
            for index, variant in enumerate(VARIANTS):
                yield model, engine, index


CASES = list(_cases(fitproof.load_registry(plugins=False)))


@pytest.mark.parametrize(("model", "engine", "variant"), CASES,
                         ids=[f"{m}-{e}-{v}" for m, e, v in CASES])
def test_every_command_parses_and_matches_the_sizing(measured, model, engine, variant):
    choices = dict(VARIANTS[variant])
    kv = choices.pop("kv", "f16")
    if engine == "vllm" and kv == "q8_0":
        kv = "fp8"
    quant = "Q4_K_M" if engine == "llama.cpp" else "native"
    try:
        result = fitproof.estimate(model, "h200-141gb-sxm", quant=quant, kv=kv, engine=engine,
                                   registry=measured, **choices)
    except fitproof.InputError as exc:
        # the only refusal: a tensor split that does not divide the heads
        assert "does not divide" in str(exc) and engine == "vllm"
        return
    command = launch_command(measured, result.scenario, measured.engines[engine],
                             result.evaluation)
    comments, program, options = parse(command)
    assert program == engine
    assert "?" not in command
    spec = measured.models[model]
    if engine == "llama.cpp":
        assert options.ctx_size == result.value("context_total") \
            == result.scenario.inputs["context"] * result.scenario.inputs["batch"]
        assert options.n_gpu_layers == result.value("gpu_layers")
        assert options.flash_attn == "on"
        if spec.gguf_repo:
            assert options.hf == f"{spec.gguf_repo}:Q4_K_M" and not comments
        else:
            assert options.model and comments and "No GGUF repository" in comments[0]
        assert (options.parallel or 1) == result.scenario.inputs["batch"]
    else:
        assert options.max_model_len == result.scenario.inputs["context"]
        tp = options.tensor_parallel_size or 1
        assert tp == result.value("tensor_parallel")
        assert spec.num_attention_heads.value % tp == 0
        if spec.hf_repo and not comments:
            assert options.model == spec.hf_repo


def test_ngl_follows_the_offload(measured):
    result = fitproof.estimate("llama-3.1-8b-instruct", "rtx-4090", quant="Q4_K_M",
                               offload=25, registry=measured)
    command = launch_command(measured, result.scenario, measured.engines["llama.cpp"],
                             result.evaluation)
    assert parse(command)[2].n_gpu_layers == 24  # 75 % of 32 layers
    full = fitproof.estimate("llama-3.1-8b-instruct", "rtx-4090", quant="Q4_K_M",
                             registry=measured)
    command = launch_command(measured, full.scenario, measured.engines["llama.cpp"],
                             full.evaluation)
    assert parse(command)[2].n_gpu_layers == 33  # every layer and the output layer


def test_vllm_serves_the_checkpoint_or_quantizes_online(measured):
    def command(model, quant):
        result = fitproof.estimate(model, "h100-80gb-sxm", quant=quant, engine="vllm",
                                   registry=measured)
        return launch_command(measured, result.scenario, measured.engines["vllm"],
                              result.evaluation)

    native = parse(command("deepseek-r1", "native"))
    assert native[2].model == "deepseek-ai/DeepSeek-R1" and native[0] == []
    online = parse(command("llama-3.1-8b-instruct", "FP8"))
    assert online[2].quantization == "fp8" and online[0] == []
    missing = parse(command("llama-3.1-8b-instruct", "AWQ-INT4"))
    assert missing[0] and "No AWQ-INT4 checkpoint" in missing[0][0]


def test_seed_profile_keeps_the_seed_pages_commands():
    seed = fitproof.load_registry(plugins=False, profile="seed")
    result = fitproof.estimate("qwen3.5-35b-a3b", "rtx-3090", registry=seed)
    command = launch_command(seed, result.scenario, seed.engines["llama.cpp"],
                             result.evaluation)
    assert " ".join(command.split()) == ("llama-server -hf unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M "
                                         "\\ --ctx-size 8192 -ngl 999 --flash-attn")


def test_pack_text_in_a_launch_command_is_quoted_for_the_shell(tmp_path):
    """An engine pack naming a KV type with shell syntax: the command carries it as one
    quoted word, which a shell passes on without running anything."""
    from pathlib import Path

    engine = (Path(__file__).resolve().parent.parent / "packs" / "engines" / "llama.cpp.yaml"
              ).read_text(encoding="utf-8")
    hostile = engine.replace("  q8_0: q8_0\n", "  q8_0: \"q8_0$(touch pwned);`id`\"\n", 1)
    hostile = hostile.replace("id: llama.cpp\n", "id: llama.cpp\noverride: true\n", 1)
    (tmp_path / "llama.cpp.yaml").write_text(hostile, encoding="utf-8")
    registry = fitproof.load_registry([tmp_path], plugins=False)
    scenario = fitproof.api.scenario(registry, model="qwen3-8b", hardware="rtx-4090", kv="q8_0")
    estimate = fitproof.Estimate(registry, scenario)
    command = launch_command(registry, scenario, registry.engines["llama.cpp"],
                             estimate.evaluation)
    assert "-ctk 'q8_0$(touch pwned);`id`' -ctv 'q8_0$(touch pwned);`id`'" in command
    words = shlex.split(command.replace("\\\n", " "))
    assert words[words.index("-ctk") + 1] == "q8_0$(touch pwned);`id`"


def test_a_repository_with_shell_syntax_is_refused_where_it_stands(tmp_path):
    from pathlib import Path

    model = (Path(__file__).resolve().parent.parent / "packs" / "models" / "qwen3-8b.yaml"
             ).read_text(encoding="utf-8")
    lines = model.splitlines()
    number = next(i for i, line in enumerate(lines) if line.startswith("gguf_repo:")) + 1
    lines[number - 1] = 'gguf_repo: "Qwen/x$(reboot)"'
    (tmp_path / "qwen3-8b.yaml").write_text("\n".join(lines).replace(
        "id: qwen3-8b\n", "id: qwen3-8b\noverride: true\n", 1) + "\n", encoding="utf-8")
    with pytest.raises(fitproof.PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False)
    (problem,) = caught.value.problems
    assert problem.field == "gguf_repo" and problem.line == number + 1
    assert problem.message == ("must match the pattern ^[A-Za-z0-9][A-Za-z0-9_.-]*/"
                               "[A-Za-z0-9][A-Za-z0-9_.-]*$ (got \"Qwen/x$(reboot)\")")
