"""Turn the serving measurements collected in docs/research/ into measurement packs.

docs/research/serving-rows-*.jsonl hold, verbatim, what public serving benchmarks printed
(vllm bench serve, SGLang's bench_serving, AMD's ROCm tables): one metric value per line,
with its page, the quoted line and what the page leaves out. This script maps each row
onto fitproof's packs (model, hardware, weight format, engine) and writes
packs/measurements/serving-*.yaml, one pack per site. It keeps

- the mean TTFT, the mean TPOT, the output throughput, and the total throughput where a
  source gives no output throughput (metrics: ttft_ms, tpot_ms, output_tps, total_tps);
- rows whose engine, model and device have packs;

and leaves out rows without prompt and output lengths (ShareGPT runs: the lengths are the
dataset's, per request) and medians, p99s and request rates (the means say the same).
What a kept row's source does not state of the scenario (the device's form factor, whether
a throughput counts prompt tokens, the concurrency) goes to the row's `missing`, which
`fitproof validate` scores apart.

The mapping tables below are the reading of each page's own words (the note of every row
quotes them); a row whose model, device or format is not in them is left out and counted.

Run: python benchmarks/serving_rows.py [--check]   (--check: fail if the packs are stale)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT / "docs" / "research"
OUT = ROOT / "packs" / "measurements"

METRICS = {"output_throughput_tps": "output_tps", "total_throughput_tps": "total_tps",
           "mean_tpot_ms": "tpot_ms", "mean_ttft_ms": "ttft_ms"}

# device names as the pages print them -> hardware pack, and what the name leaves open
HARDWARE = {
    "NVIDIA H100 SXM": ("h100-80gb-sxm", None),
    "NVIDIA H100 (8xH100)": ("h100-80gb-sxm", "the H100's form factor (SXM or PCIe)"),
    "NVIDIA H200 SXM": ("h200-141gb-sxm", None),
    "NVIDIA H200": ("h200-141gb-sxm", "the H200's form factor (SXM or NVL)"),
    "NVIDIA A100 SXM 80GB": ("a100-80gb-sxm", None),
    "NVIDIA A100 SXM": ("a100-80gb-sxm", None),
    "NVIDIA A100 80GB": ("a100-80gb-sxm", "the A100's form factor (SXM or PCIe)"),
    "MI300X (192GB HBM3 750W)": ("mi300x", None),
    "MI300X": ("mi300x", None),
    "AMD MI300X": ("mi300x", None),
    # the SGLang cookbook's "NVIDIA B200 GPU (8x)": an eight-GPU HGX B200 board, whose
    # B200s are the 180 GB part (the GB200's are in fours, per Grace CPU)
    "NVIDIA B200": ("b200-180gb", None),
    "NVIDIA A100": ("a100-80gb-sxm", "the A100's memory size and form factor"),
    "MI355": ("mi355x", None),
    "RTX 5090": ("rtx-5090", None),
    # llm-benchmaq's RunPod logs (the README's GPU table names the part)
    '8x H100 SXM (RunPod; README table "H100 SXM"; pod example gpu_type "NVIDIA H100 80GB HBM3")':
        ("h100-80gb-sxm", None),
    '8x H200 SXM (RunPod; README table "H200 SXM")': ("h200-141gb-sxm", None),
    '8x B200 (RunPod; README table "B200")': ("b200-180gb", None),
    # dstackai/benchmarks' DeepSeek-R1 study
    "8x NVIDIA H200 SXM5 GPU, 141GB, 700W": ("h200-141gb-sxm", None),
    "8x AMD Mi300x GPU, 192GB, 750W": ("mi300x", None),
    # Vultr's inference cookbook: an HGX board, whose B200s are the 180 GB part
    "NVIDIA HGX B200 (179 GB HBM3e each)": ("b200-180gb", None),
}

# Hugging Face ids -> model pack of the same shapes
MODELS = {
    "openai/gpt-oss-20b": "gpt-oss-20b",
    "openai/gpt-oss-120b": "gpt-oss-120b",
    "deepseek-ai/DeepSeek-R1-0528": "deepseek-r1",
    "Qwen/Qwen3-8B": "qwen3-8b",
    "Qwen/Qwen3-14B": "qwen3-14b",
    "Qwen/Qwen3-14B-AWQ": "qwen3-14b",
    "Qwen/Qwen3-32B": "qwen3-32b",
    "Qwen/Qwen3-32B-FP8": "qwen3-32b",
    "Qwen/Qwen3-235B-A22B-Instruct-2507": "qwen3-235b-a22b",
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8": "qwen3-235b-a22b",
    "amd/Llama-3.1-70B-Instruct-FP8-KV": "llama-3.1-70b",
    "amd/Llama-3.1-405B-Instruct-FP8-KV": "llama-3.1-405b",
    "amd/Llama-3.3-70B-Instruct-FP8-KV": "llama-3.3-70b-instruct",
    "meta-llama/Llama-3.1-70B": "llama-3.1-70b",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": "llama-4-scout-17b-16e-instruct",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": "llama-4-maverick-17b-128e-instruct",
    "deepseek-ai/DeepSeek-R1": "deepseek-r1",
    "deepseek-ai/DeepSeek-V3-0324": "deepseek-v3",
    "Qwen/Qwen3-4B": "qwen3-4b",
    "meta-llama/Llama-3.1-70B-Instruct": "llama-3.1-70b",
    "meta-llama/Llama-3.1-70B (base or Instruct not stated)": "llama-3.1-70b",
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8": "nvidia-nemotron-3-nano-30b-a3b-bf16",
}

# (model id, format as printed) -> (weight format pack entry, KV cache type)
FORMATS = {
    ("openai/gpt-oss-20b", "mxfp4"): ("MXFP4", "f16"),
    ("openai/gpt-oss-120b", "mxfp4"): ("MXFP4", "f16"),
    # the checkpoint's quantization_config: fp8 e4m3 with 128 x 128 block scales
    ("deepseek-ai/DeepSeek-R1-0528", "fp8"): ("FP8-B128", "f16"),
    ("Qwen/Qwen3-8B", "bf16"): ("BF16", "f16"),
    ("Qwen/Qwen3-14B", "bf16"): ("BF16", "f16"),
    ("Qwen/Qwen3-32B", "bf16"): ("BF16", "f16"),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "bf16"): ("BF16", "f16"),
    # Qwen's FP8 checkpoints: "fine-grained fp8 quantization with a block size of 128"
    ("Qwen/Qwen3-32B-FP8", "fp8"): ("FP8-B128", "f16"),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "fp8"): ("FP8-B128", "f16"),
    ("Qwen/Qwen3-14B-AWQ", "awq"): ("AWQ-INT4", "f16"),
    # AMD's -FP8-KV checkpoints: per-tensor FP8 weights and an FP8 KV cache
    ("amd/Llama-3.1-70B-Instruct-FP8-KV", "FP8 (FP8-KV checkpoint)"): ("FP8", "fp8"),
    ("amd/Llama-3.1-405B-Instruct-FP8-KV", "FP8 (FP8-KV checkpoint)"): ("FP8", "fp8"),
    ("amd/Llama-3.1-405B-Instruct-FP8-KV", "fp8"): ("FP8", "fp8"),
    ("amd/Llama-3.3-70B-Instruct-FP8-KV", "fp8"): ("FP8", "fp8"),
    ("meta-llama/Llama-3.1-70B", "bf16"): ("BF16", "f16"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "bf16"): ("BF16", "f16"),
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "bf16"): ("BF16", "f16"),
    # DeepSeek's checkpoints: fp8 e4m3 with 128 x 128 block scales, as R1-0528's
    ("deepseek-ai/DeepSeek-R1", "fp8"): ("FP8-B128", "f16"),
    ("deepseek-ai/DeepSeek-V3-0324", "fp8"): ("FP8-B128", "f16"),
    ("Qwen/Qwen3-4B", "bf16"): ("BF16", "f16"),
    ("deepseek-ai/DeepSeek-R1", "fp8 (native DeepSeek-R1 checkpoint)"): ("FP8-B128", "f16"),
    # NVIDIA's -FP8 checkpoint of Nemotron 3 Nano (its model card: FP8 weights and activations)
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8", "FP8 (pre-quantized checkpoint)"):
        ("FP8", "f16"),
}

# a page that names no format runs the checkpoint's own (vLLM's --dtype auto), which the row
# records with the format as missing: scored apart, never fitted
UNSTATED_FORMAT = {
    "Qwen/Qwen3-8B": ("BF16", "f16"), "Qwen/Qwen3-14B": ("BF16", "f16"),
    "Qwen/Qwen3-32B": ("BF16", "f16"), "openai/gpt-oss-120b": ("MXFP4", "f16"),
    "meta-llama/Llama-3.1-70B-Instruct": ("BF16", "f16"),
    "meta-llama/Llama-3.1-70B (base or Instruct not stated)": ("BF16", "f16"),
}
# what a page leaves out, as its row's missing notes begin, -> the scenario fact it is (and
# the metric it concerns; None: every metric)
UNSTATED = (
    ("dtype (not stated", "the weight format", None),
    ("page does not say whether the TTFT column is mean or median",
     "whether the TTFT is a mean or a median", "mean_ttft_ms"),
    ("whether --ignore-eos was set", "whether every request generated its set length", None),
)

ENGINES = {"vllm": "vllm", "sglang": "sglang"}

# words of a row's note that say the engine did not run as released, at its defaults
TUNED = ("not defaults", "--enforce-eager", "PR build",
         # AMD's AITER kernels, switched on by environment, not by vLLM's defaults
         "VLLM_ROCM_USE_AITER=1",
         # attention kernels or layouts chosen by hand: CK's flash attention on ROCm instead
         # of vLLM's Triton default, SGLang's data-parallel attention
         "VLLM_USE_TRITON_FLASH_ATTN=0", "--enable-dp-attention")
# a run whose lengths SGLang drew per request (no --random-range-ratio: uniform up to the
# set lengths) prints its totals; the row's lengths are the means of those
DRAWN = re.compile(r"Successful requests: (\d+), Total input tokens: (\d+), "
                   r"Total generated tokens: (\d+)")


# a source's site (the first of these its address contains) -> the pack (id, name) its rows go to
SITES = (
    ("gpustack/gpustack", "serving-gpustack-performance-lab",
     "vLLM and SGLang on gpustack's performance-lab pages"),
    ("amd.com", "serving-amd-rocm", "vLLM on MI300X, AMD's ROCm performance results"),
    ("SemiAnalysisAI/InferenceX", "serving-inferencex",
     "SGLang and vLLM in InferenceX issues and changelog"),
    ("sgl-project/sgl-cookbook", "serving-sglang-cookbook",
     "SGLang bench_serving output on the SGLang cookbook's model pages"),
    ("sgl-project/sglang", "serving-sglang-threads",
     "SGLang bench_serving output in SGLang pull requests"),
    ("vllm-project/recipes", "serving-vllm-recipes", "vllm bench serve output in vLLM's recipes"),
    ("vllm-project/vllm", "serving-vllm-threads",
     "vLLM bench serve output in vLLM issues and pull requests"),
    ("Scicom-AI-Enterprise-Organization/llm-benchmaq", "serving-llm-benchmaq",
     "vllm bench serve logs of llm-benchmaq's RunPod runs"),
    ("dstackai/benchmarks", "serving-dstack-deepseek-r1",
     "SGLang and vLLM serving DeepSeek-R1, dstack's benchmark study"),
    ("docs.vultr.com", "serving-vultr-cookbook", "vLLM on Vultr's inference cookbook pages"),
)


def pack_of(source: str) -> tuple[str, str]:
    """The pack (id, name) a source's rows go to: one per site."""
    for site, pack_id, name in SITES:
        if site in source:
            return pack_id, name
    return "serving-other", "Serving benchmarks from other pages"


def missing_of(raw: dict) -> list[str]:
    """What the scenario needs that the row's source does not state."""
    missing = []
    if raw.get("engine_version") is None and raw.get("date") is None:
        missing.append("the engine's version or date")
    burst = raw.get("request_rate") == "inf" and raw.get("num_prompts")
    if raw.get("concurrency") is None and not burst:
        missing.append("the concurrency")
    for note in raw.get("missing") or ():
        if note.startswith("whether 'Throughput'"):
            missing.append("whether the throughput counts prompt tokens")
    hardware = HARDWARE.get(raw["hardware"])
    if hardware and hardware[1]:
        missing.append(hardware[1])
    for note in raw.get("missing") or ():
        for start, fact, metric in UNSTATED:
            if note.startswith(start) and metric in (None, raw["metric"]):
                missing.append(fact)
    return missing


# pages whose rows are collected but not yet turned into measurement rows, and why
HELD_BACK = (
    ("dstackai/benchmarks",
     "DeepSeek-R1 on vLLM 0.7.4.dev and SGLang 0.4.2/0.4.3 builds of March 2025: fitted, they "
     "move vLLM's KV read efficiency from 0.52 to 0.19 and the pooled held-out serving median "
     "from 23.7 to 39.1 %; they wait for the engine build as a scenario input"),
)


def convert(raw: dict) -> tuple[dict | None, str]:
    """The measurement row of ``raw``, or None and why it is left out."""
    for site, why in HELD_BACK:
        if site in raw["source"]:
            return None, why
    if raw["metric"] not in METRICS:
        return None, "a median, p99 or request rate (the mean is kept)"
    if raw["engine"] not in ENGINES:
        return None, f"engine {raw['engine']} has no pack"
    if raw["model"] not in MODELS:
        return None, "model without a pack of its shapes"
    if raw["hardware"] not in HARDWARE:
        return None, "device without a pack"
    if raw.get("isl") is None or raw.get("osl") is None:
        return None, "no prompt and output lengths (a dataset's own)"
    fmt = FORMATS.get((raw["model"], raw["dtype_or_quant"]))
    if fmt is None and raw["dtype_or_quant"] is None:
        fmt = UNSTATED_FORMAT.get(raw["model"])
    if fmt is None:
        return None, "format not mapped"
    if raw.get("tp") and raw.get("gpus") and raw["gpus"] > raw["tp"]:
        return None, "data-parallel replicas (fitproof models one replica)"
    gpus = raw.get("tp") or raw.get("gpus") or 1
    prompt, generate, note = raw["isl"], raw["osl"], raw["note"]
    if any(m.startswith("fixed prompt/output lengths") for m in raw.get("missing") or ()):
        drawn = DRAWN.search(note)
        if drawn is None:
            return None, "lengths drawn per request, with no printed totals"
        requests, tokens_in, tokens_out = (int(g) for g in drawn.groups())
        prompt, generate = round(tokens_in / requests), round(tokens_out / requests)
        note = (f"prompt and generate are the run's means ({tokens_in} and {tokens_out} "
                f"tokens over {requests} requests; each request's lengths drawn up to "
                f"{raw['isl']} / {raw['osl']}). " + note)
    row: dict = {
        "model": MODELS[raw["model"]], "hardware": HARDWARE[raw["hardware"]][0],
        "quant": fmt[0], "engine": ENGINES[raw["engine"]], "metric": METRICS[raw["metric"]],
        "value": raw["value"], "context": prompt + generate,
        "prompt": prompt, "generate": generate}
    if fmt[1] != "f16":
        row["kv"] = fmt[1]
    if gpus > 1:
        row["gpus"] = gpus
    if raw.get("concurrency") is not None:
        row["concurrency"] = raw["concurrency"]
    if raw.get("num_prompts"):
        row["requests"] = raw["num_prompts"]
    if raw.get("request_rate") is not None:
        row["request_rate"] = raw["request_rate"]
    for key in ("engine_version", "date"):
        if raw.get(key):
            row[key] = str(raw[key])
    missing = missing_of(raw)
    if missing:
        row["missing"] = missing
    if any(word in (raw.get("note") or "") for word in TUNED):
        row["tuned"] = True
    row["source"] = raw["source"]
    row["quote"] = raw["quote"]
    row["note"] = note
    return row, ""


def rows_by_pack() -> tuple[dict[tuple[str, str], list[dict]], Counter]:
    raws = [json.loads(line) for path in sorted(RESEARCH.glob("serving-rows-*.jsonl"))
            for line in path.read_text("utf-8").splitlines() if line.strip()]
    packs: dict[tuple[str, str], list[dict]] = {}
    left_out: Counter = Counter()
    seen = set()
    for raw in raws:
        row, why = convert(raw)
        if row is None:
            left_out[why] += 1
            continue
        # AMD's table is printed in several locales: one row per scenario and figure
        key = tuple((k, json.dumps(v)) for k, v in row.items() if k not in ("source", "quote", "note"))
        if key in seen:
            left_out["the same figure on another locale's page"] += 1
            continue
        seen.add(key)
        packs.setdefault(pack_of(raw["source"]), []).append(row)
    # a total throughput beside an output throughput of the same run says nothing more
    for rows in packs.values():
        outputs = {_run(r) for r in rows if r["metric"] == "output_tps"}
        kept = [r for r in rows if not (r["metric"] == "total_tps" and _run(r) in outputs)]
        left_out["a total throughput beside the run's output throughput"] += len(rows) - len(kept)
        rows[:] = kept
    return packs, left_out


def _run(row: dict) -> tuple:
    """What names one run: its scenario and its page (a line anchor names only the figure)."""
    return tuple((k, json.dumps(row.get(k))) for k in (
        "model", "hardware", "quant", "engine", "prompt", "generate", "gpus", "concurrency",
        "requests", "engine_version", "tuned")) + (("source", row["source"].split("#L")[0]),)


def render(pack_id: str, name: str, rows: list[dict], left_out: Counter) -> str:
    sources = sorted({r["source"] for r in rows})
    lines = [
        "# written by benchmarks/serving_rows.py from docs/research/serving-rows-*.jsonl; do not edit by hand",
        "kind: measurements", f"id: {pack_id}", f"name: {name}",
        "description: >-",
        "  Serving benchmarks at concurrency (vllm bench serve, SGLang bench_serving and the",
        "  tables built on them), each row the mean TTFT, the mean TPOT or the throughput of",
        "  one run, with the page, the printed line (quote) and what the page leaves out",
        "  (missing, scored apart). A run without --max-concurrency sends every request at",
        "  once (request_rate inf): the engine runs as many as it admits. Runs at settings",
        "  other than the engine's defaults say tuned and are scored apart.",
        "source:"] + [f"  - {json.dumps(s)}" for s in sources] + ["rows:"]
    lines += [f"  - {json.dumps(r, ensure_ascii=False)}" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the packs are stale")
    args = parser.parse_args(argv)
    packs, left_out = rows_by_pack()
    stale = []
    for (pack_id, name), rows in sorted(packs.items()):
        text = render(pack_id, name, rows, left_out)
        path = OUT / f"{pack_id}.yaml"
        if args.check:
            if not path.exists() or path.read_text("utf-8") != text:
                stale.append(path.name)
            continue
        path.write_text(text, "utf-8")
        print(f"{path.relative_to(ROOT)}: {len(rows)} rows")
    for why, count in left_out.most_common():
        print(f"left out {count:4d}: {why}")
    if stale:
        print("stale: " + ", ".join(stale) + " (run python benchmarks/serving_rows.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
