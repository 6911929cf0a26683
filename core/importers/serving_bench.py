"""``fitproof bench ingest`` of serving benchmarks: ``vllm bench serve``'s printed result
block or its ``--save-result`` JSON (one run per file, or per line when several are
appended), and SGLang's ``bench_serving --output-file`` JSONL (one run appended per line;
python/sglang/benchmark/serving.py writes vLLM's keys and, for an SGLang backend, the
server's ``server_info``), as measurement rows. A run whose client says it was ``sglang``
is taken as SGLang's.

A run gives the mean TTFT, the mean TPOT and the output throughput (the total throughput
where no output figure is printed), the requests sent, the client's concurrency cap and
rate, and the tokens in and out, whose means over the completed requests are the row's
prompt and generate (SGLang's random_input_len and random_output_len are the most asked,
not what was sent). Neither tool prints the device or the weight format, and ``vllm bench
serve`` does not know which engine served it: those come from ``--on``, ``--quant`` and
``--engine``. SGLang's ``server_info`` states the model path, the tensor-parallel size (the
devices, where ``--gpus`` does not say) and the version; a run of several data- or
pipeline-parallel replicas or of another KV cache type than the model's is refused, and one
with speculative decoding is marked ``tuned``. A run at a finite request rate without a
concurrency cap says so in the row's ``missing`` (``fitproof validate`` scores it apart).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import attrs

from ..errors import InputError
from .bench import count_of, json_objects, number_of, shown
from .config_file import file_uri, pack_text

# the printed result block's labels -> the result file's keys
_PRINTED = {
    "Successful requests": "completed", "Maximum request concurrency": "max_concurrency",
    "Total input tokens": "total_input_tokens", "Total generated tokens": "total_output_tokens",
    "Output token throughput (tok/s)": "output_throughput",
    "Total Token throughput (tok/s)": "total_token_throughput",
    "Total token throughput (tok/s)": "total_token_throughput",
    "Mean TTFT (ms)": "mean_ttft_ms", "Mean TPOT (ms)": "mean_tpot_ms",
}
# a result's keys -> the row's metric
METRICS = {"output_throughput": "output_tps", "mean_tpot_ms": "tpot_ms", "mean_ttft_ms": "ttft_ms"}
_NAMESPACE = re.compile(r"\b(num_prompts|max_concurrency|request_rate|random_range_ratio|model|"
                        r"ignore_eos)=('[^']*'|[^,)]*)")


@attrs.frozen
class ServingRun:
    """One serving benchmark run, as its output states it."""

    where: str
    source: str
    fields: dict[str, Any]  # the result file's keys (printed labels mapped onto them)
    quotes: dict[str, str]  # key -> the line or item that states it
    engine: str | None  # what the output says served it (SGLang's backend), else None
    server: dict[str, Any] = attrs.field(factory=dict)  # SGLang's server_info (its scalars)


def is_serving_output(text: str) -> bool:
    """Whether ``text`` is a vllm bench serve log or result file."""
    return "Serving Benchmark Result" in text or '"mean_ttft_ms"' in text


def read_runs(path: Path, text: str) -> list[ServingRun]:
    source = file_uri(path)
    if "Serving Benchmark Result" in text:
        return [_printed(path, source, text)]
    runs = []
    for where, item in json_objects(path, text):
        backend = str(item.get("backend") or "")
        engine = "sglang" if backend.startswith("sglang") else None
        scalars = {k: v for k, v in item.items() if not isinstance(v, (list, dict))}
        info = item.get("server_info")
        server = {k: v for k, v in info.items() if not isinstance(v, (list, dict))} \
            if isinstance(info, dict) else {}
        if server.get("model_path") or server.get("served_model_name"):
            scalars.setdefault("model", server.get("served_model_name") or server["model_path"])
        runs.append(ServingRun(where, source, scalars,
                               {k: json.dumps({k: v}) for k, v in scalars.items()}, engine,
                               server))
    return runs


def _server(run: ServingRun, gpus: int) -> tuple[int, dict[str, Any], str]:
    """The devices, the row fields and the note SGLang's server_info gives."""
    server = run.server
    if not server:
        return gpus, {}, ""
    for key in ("dp_size", "pp_size"):
        if _int(run, server.get(key)) not in (None, 1):
            raise InputError(f"{run.where}: the server ran {key} {server[key]}: fitproof "
                             "models one replica on tensor-parallel devices")
    kv = server.get("kv_cache_dtype")
    if kv not in (None, "auto"):
        raise InputError(f"{run.where}: the server ran a {kv} KV cache; fitproof bench ingest "
                         "reads runs at the default (auto)")
    tp = _int(run, server.get("tp_size"))
    if tp and gpus > 1 and gpus != tp:
        raise InputError(f"{run.where}: --gpus {gpus}, but the server ran tensor-parallel size "
                         f"{tp}")
    extra: dict[str, Any] = {}
    if server.get("version"):
        extra["engine_version"] = pack_text(str(server["version"]))
    if server.get("speculative_algorithm"):
        extra["tuned"] = True
    said = ", ".join(f"{k} {server[k]}" for k in ("tp_size", "dtype", "quantization",
                                                  "speculative_algorithm") if server.get(k))
    return tp or gpus, extra, f"; server_info: {said}" if said else ""


def _int(run: ServingRun, value: Any) -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4096:
        raise InputError(f"{run.where}: server_info has {shown(value)} where a count belongs")
    return value


def _printed(path: Path, source: str, text: str) -> ServingRun:
    fields: dict[str, Any] = {}
    quotes: dict[str, str] = {}
    for line in text.splitlines():
        label, colon, value = line.partition(":")
        key = _PRINTED.get(label.strip())
        if colon and key and value.strip():
            try:
                fields[key] = float(value.strip())
            except ValueError:
                raise InputError(f"{path}: {label.strip()}: {value.strip()!r} is not a number") \
                    from None
            quotes[key] = line.rstrip()
        if line.startswith("Namespace("):
            for name, raw in _NAMESPACE.findall(line):
                fields.setdefault(name, raw.strip("'"))
    fields.setdefault("request_rate", "inf" if "Traffic request rate: inf" in text else None)
    return ServingRun(str(path), source, fields, quotes, None)


def _number(run: ServingRun, key: str) -> float | None:
    """The number the run states under ``key`` (None where it states none): never a
    boolean read as 1, never infinite or NaN, never below 0."""
    value = run.fields.get(key)
    if value is None or value in ("", "None"):
        return None
    try:
        number = number_of(value)
    except ValueError as exc:
        raise InputError(f"{run.where}: {key} {shown(value)} {exc}") from None
    if not math.isfinite(number) or number < 0:
        raise InputError(f"{run.where}: {key} {shown(value)} is not a finite number of 0 or "
                         "more")
    return number


def _count(run: ServingRun, key: str, what: str) -> int | None:
    """The count of ``what`` the run states under ``key`` (None where it states none): a
    whole number from 0 to bench.MAX_COUNT."""
    value = run.fields.get(key)
    if value is None or value in ("", "None"):
        return None
    try:
        number_of(value)
    except ValueError as exc:
        raise InputError(f"{run.where}: {key} {shown(value)} {exc}") from None
    try:
        return count_of(value)
    except ValueError:
        raise InputError(f"{run.where}: {key} {shown(value)} is not a number of {what}") \
            from None


def serving_rows(run: ServingRun, *, model: str, hardware: str, quant: str, engine: str,
                 gpus: int) -> list[dict[str, Any]]:
    """The run's rows (its mean TTFT, mean TPOT and output throughput) in the scenario the
    command line names."""
    completed = _count(run, "completed", "requests")
    tokens_in = _count(run, "total_input_tokens", "tokens")
    tokens_out = _count(run, "total_output_tokens", "tokens")
    if not completed or tokens_in is None or tokens_out is None:
        raise InputError(f"{run.where}: the run states no completed requests and token totals")
    prompt, generate = round(tokens_in / completed), round(tokens_out / completed)
    gpus, extra, said = _server(run, gpus)
    asked = run.fields.get("random_input_len")
    if run.server and asked and run.fields.get("dataset_name") == "random":
        said += (f"; asked for {asked} in and {run.fields.get('random_output_len')} out "
                 f"(random_range_ratio {run.fields.get('random_range_ratio')})")
    concurrency = _count(run, "max_concurrency", "requests")
    requests = _count(run, "num_prompts", "requests") or completed
    rate = run.fields.get("request_rate")
    burst = not isinstance(rate, bool) and str(rate).lower() in ("inf", "infinity")
    missing = [] if concurrency or burst else ["the concurrency"]
    base: dict[str, Any] = {"model": model, "hardware": hardware, "quant": quant,
                            "engine": engine, "context": prompt + generate, "prompt": prompt,
                            "generate": generate}
    if gpus > 1:
        base["gpus"] = gpus
    if concurrency:
        base["concurrency"] = int(concurrency)
    base["requests"] = int(requests)
    if burst:
        base["request_rate"] = "inf"
    elif (stated := _number(run, "request_rate")) is not None:
        base["request_rate"] = stated
    date = str(run.fields.get("date") or "")
    if re.fullmatch(r"\d{8}-\d{6}", date):
        base["date"] = f"{date[:4]}-{date[4:6]}-{date[6:8]}"
    base.update(extra)
    rows = []
    metrics = dict(METRICS)
    if _number(run, "output_throughput") is None and _number(run, "total_token_throughput"):
        metrics["total_token_throughput"] = "total_tps"
    for key, metric in metrics.items():
        value = _number(run, key)
        if value is None:
            continue
        row = {**base, "metric": metric, "value": value, "source": run.source,
               "quote": pack_text(run.quotes.get(key, key)),
               "note": pack_text(f"fitproof bench ingest of {run.where}; lengths are the "
                                 f"means of {tokens_in} and {tokens_out} tokens over "
                                 f"{completed} requests{said}")}
        if missing:
            row["missing"] = missing
        rows.append(row)
    if not rows:
        raise InputError(f"{run.where}: no mean TTFT, mean TPOT or throughput in the run")
    return rows
