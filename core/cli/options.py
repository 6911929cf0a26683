"""Options the ``fitproof`` commands share: the argument types (token counts, numbers,
whole numbers) and the options that describe a scenario."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from .. import api
from ..errors import InputError

def argument_type(parse: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """An argparse type from a parser of the API (its message becomes the usage error)."""
    def convert(text: str) -> Any:
        try:
            return parse(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = name
    return convert


tokens = argument_type(api.parse_tokens, "tokens")


def context_tokens(text: str) -> int | str:
    """A token count, or ``max``: the largest context that fits (fitproof solve max-context)."""
    return "max" if text.strip().lower() == "max" else int(tokens(text))


billions = argument_type(api.parse_parameters, "parameters")


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def proportions(text: str) -> list[float]:
    """Comma-separated proportions, as llama.cpp's --tensor-split takes them ("3,1")."""
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r}: give numbers separated by commas, e.g. 3,1") from None
        if not math.isfinite(value) or value < 0:
            raise argparse.ArgumentTypeError(f"{text!r}: proportions are numbers of at least 0")
        values.append(value)
    return values


def whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def milliseconds(text: str) -> float:
    """A duration in milliseconds: "50ms", "1s", "1.5 s", or a bare number of milliseconds."""
    import re

    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ms|s)?\s*", text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"expected a duration such as 50ms or 1s, got {text!r}")
    value = float(match.group(1))
    return value * 1000 if match.group(2) == "s" else value


# option → scenario input it sets
INPUT_OPTIONS = {
    "context": "--context", "batch": "--batch", "gpus": "--gpus", "offload": "--offload",
    "prompt": "--prompt", "generate": "--generate", "hours_per_day": "--hours-per-day",
    "electricity_usd_per_kwh": "--electricity-price", "budget_usd": "--budget",
    "split": "--split", "arrival": "--arrival", "ubatch": "--ubatch", "cpu_moe": "--cpu-moe",
    "gpu_memory_utilization": "--gpu-memory-utilization",
    "gpu_memory_limit": "--gpu-memory-limit", "rope_scale": "--rope-scale",
    "request_rate": "--rate", "ttft_target_ms": "--ttft", "tpot_target_ms": "--tpot",
}


def format_option(parser: argparse.ArgumentParser, built_in: str, *,
                  json_flag: bool = True) -> None:
    parser.add_argument("--format", default="text", metavar="NAME",
                        help=f"output format: {built_in}, or one a plugin adds (default text)")
    if json_flag:
        parser.add_argument("--json", action="store_true", help="the same as --format json")


def scenario_options(parser: argparse.ArgumentParser, *, model_optional: bool = True,
                     with_model: bool = True,
                     on_help: str = "hardware id or alias, e.g. rtx-3090 or 'RTX 3090', or "
                                    "auto (detected)") -> None:
    """The options of a scenario; ``with_model=False`` leaves out the model (``models``
    evaluates every model of the library with the rest)."""
    if with_model:
        parser.add_argument("model", nargs="?" if model_optional else None, metavar="MODEL",
                            help="model id or alias, or a Hugging Face repository ORG/NAME "
                                 "(default: the default scenario's model)")
        parser.add_argument("--fetch", action="store_true",
                            help="a MODEL given as ORG/NAME that no pack records: import it "
                                 "from the Hugging Face Hub first (network), as fitproof "
                                 "import hf does")
    parser.add_argument("--on", dest="hardware", metavar="HW", help=on_help)
    parser.add_argument("--quant", metavar="Q", help="weight format, e.g. Q4_K_M (default)")
    parser.add_argument("--context", type=context_tokens, metavar="N",
                        help="context window in tokens, e.g. 8192 or 32K (default 8192), or "
                             "max: the largest that fits (fitproof solve max-context)")
    parser.add_argument("--batch", type=whole, metavar="N", help="parallel sequences (default 1)")
    parser.add_argument("--kv", metavar="TYPE", help="KV cache precision: f16, q8_0, q4_0, fp8")
    parser.add_argument("--gpus", type=whole, metavar="N",
                        help="devices the model is spread over (default 1)")
    parser.add_argument("--tensor-split", dest="tensor_split", type=proportions,
                        metavar="N0,N1,...",
                        help="with unlike devices (--on rtx-5090,rtx-5080): each device's "
                             "proportion of the layers, in device order (llama.cpp "
                             "--tensor-split; default: in proportion to their memory)")
    parser.add_argument("--split", choices=("layer", "tensor"),
                        help="with several devices: whole layers per device (llama.cpp's "
                             "default) or every layer split across them (vLLM's default)")
    parser.add_argument("--arrival", choices=("closed", "burst"),
                        help="how a serving engine's --batch requests arrive: closed, a "
                             "closed loop keeping them in flight (default), or burst, all "
                             "sent at once")
    parser.add_argument("--ubatch", type=whole, metavar="N",
                        help="tokens per forward pass the engine reserves activations for "
                             "(llama.cpp -ub, vLLM --max-num-batched-tokens)")
    parser.add_argument("--gpu-memory-utilization", dest="gpu_memory_utilization", type=number,
                        metavar="SHARE", help="share of each device's memory the engine may "
                        "fill, 0-1 (vLLM; default: the engine pack's)")
    parser.add_argument("--gpu-memory-limit", dest="gpu_memory_limit", type=number,
                        metavar="GIB", help="memory in GiB the OS lets each device use (a "
                        "Mac's iogpu.wired_limit_mb, an AMD APU's GTT; default: the hardware "
                        "pack's)")
    parser.add_argument("--rope-scale", dest="rope_scale", type=number, metavar="FACTOR",
                        help="RoPE context scaling the engine runs with (llama.cpp "
                             "--rope-scale): allows a context past the model's trained length, "
                             "with a warning")
    parser.add_argument("--engine", metavar="ENGINE",
                        help="llama.cpp (default), vllm or sglang")
    parser.add_argument("--host", metavar="HOST",
                        help="the machine whose system memory holds offloaded weights (a cpu "
                             "hardware pack; default: the default scenario's)")
    parser.add_argument("--cpu-moe", dest="cpu_moe", type=whole, metavar="N",
                        help="keep the routed experts of the first N layers in system memory "
                             "(llama.cpp --n-cpu-moe)")
    parser.add_argument("--backend", metavar="NAME",
                        help="compute backend the engine uses on the device, when not the "
                             "hardware pack's own: cuda, rocm, metal, vulkan, sycl, ...")
    parser.add_argument("--workload", metavar="W",
                        help="inference (default), qlora, lora or full (fine-tuning)")
    parser.add_argument("--offload", type=number, metavar="PCT",
                        help="share of weights kept in system RAM, 0-100 (default 0)")
    parser.add_argument("--prompt", "--isl", dest="prompt", type=tokens, metavar="N",
                        help="prompt tokens: time to first token, and the depth decode "
                             "starts at (default 4096)")
    parser.add_argument("--generate", "--osl", dest="generate", type=tokens, metavar="N",
                        help="tokens generated per request; decode runs at the average depth "
                             "(default 512)")
    parser.add_argument("--rate", dest="request_rate", type=number, metavar="REQ/S",
                        help="requests per second to serve (solve capacity sizes the "
                             "replicas for it)")
    parser.add_argument("--ttft", dest="ttft_target_ms", type=milliseconds, metavar="TIME",
                        help="longest time to first token allowed, e.g. 1s or 500ms "
                             "(solve capacity)")
    parser.add_argument("--tpot", dest="tpot_target_ms", type=milliseconds, metavar="TIME",
                        help="longest time per output token allowed, e.g. 50ms "
                             "(solve capacity)")
    parser.add_argument("--hours-per-day", dest="hours_per_day", type=number, metavar="H",
                        help="hours of use per day for monthly costs (default 4)")
    parser.add_argument("--electricity-price", dest="electricity_usd_per_kwh", type=number,
                        metavar="USD", help="electricity price per kWh (default 0.175)")
    parser.add_argument("--budget", dest="budget_usd", type=number, metavar="USD",
                        help="local hardware budget for break-even (default: the best single "
                             "GPU's price)")
