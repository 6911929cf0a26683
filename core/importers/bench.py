"""``fitproof bench ingest``: a benchmark the user ran, as measurement rows.

Reads llama-bench's outputs as llama.cpp's ``tools/llama-bench`` prints them: ``-o json``
(an array of results), ``-o jsonl`` (one result per line), ``-o csv`` (a header of field
names, then one result per line) and the default markdown table (``| model | size |
params | backend | ngl | test | t/s |``, extra columns for flags that differ from the
defaults). Each result becomes a row of a measurement pack: ``tgN`` (``@ dD``) a decode
row at depth D, ``ppN`` a prefill row; the build (``bN``) and the test's date where the
output states them. The model, format and device come from the output where it names them
(the GGUF file's name, ``gpu_info``) and from ``--model``, ``--quant`` and ``--on``
otherwise; a result fitproof cannot scenario (a prefill at a depth, some layers left on
the CPU, unlike K and V cache types) is left out and counted, never guessed. llama-server's
log becomes results of the same kind, one prefill and one decode per request
(server_log.py).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from ..errors import InputError
from ..registry.index import Registry
from .config_file import file_uri, pack_text, read_input

MAX_BENCH_BYTES = 20_000_000
MAX_COUNT = 10**12  # no count of tokens, requests or layers a benchmark states comes near it
# llama-bench's backend names -> fitproof's
BACKENDS = {"cuda": "cuda", "rocm": "rocm", "hip": "rocm", "metal": "metal",
            "vulkan": "vulkan", "sycl": "sycl", "cpu": "cpu", "blas": "cpu"}
_TEST = re.compile(r"(?P<kind>pp|tg)\s*(?P<n>\d+)(?:\s*@\s*d(?P<depth>\d+))?")
_TS = re.compile(r"(?P<value>[0-9.]+)(?:\s*±\s*[0-9.]+)?")
_WHOLE = re.compile(r"[+-]?\d+")
_BUILD = re.compile(r"build:\s*(?P<commit>[0-9a-f]+)\s*\((?P<number>\d+)\)")


@attrs.frozen
class Result:
    """One llama-bench result, as the output gives it (``None``: not stated)."""

    where: str  # file:line (or file: result N)
    quote: str
    source: str  # the output file, as a file:/// URI
    n_prompt: int
    n_gen: int
    n_depth: int
    value: float
    model_file: str | None = None
    model_type: str | None = None
    gpu_info: str | None = None
    backend: str | None = None
    build: str | None = None
    date: str | None = None
    n_ubatch: int | None = None
    n_gpu_layers: int | None = None
    n_cpu_moe: int | None = None
    type_k: str | None = None
    type_v: str | None = None
    skip: str | None = None  # why the result is left out, where its reader knows


@attrs.frozen
class Choices:
    """What the command line says of the run: model, quant, hardware (ids or aliases), gpus."""

    model: str | None = None
    quant: str | None = None
    hardware: str | None = None
    gpus: int | None = None


def read_text(path: Path) -> str:
    """A benchmark output's text: a regular file within a size limit, UTF-8."""
    raw = read_input(path, MAX_BENCH_BYTES, "a benchmark output")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    return text


def read_results(path: Path, text: str) -> list[Result]:
    """Every result of a llama-bench output (JSON, JSONL, CSV or markdown) or of
    llama-server's log (server_log.py)."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _from_json(path, text)
    if stripped.startswith("{"):
        return _from_jsonl(path, text)
    if stripped.startswith("build_commit,") or stripped.startswith('"build_commit"'):
        return _from_csv(path, text)
    if "|" in text and re.search(r"\|\s*t/s\s*\|", text):
        return _from_markdown(path, text)
    from .server_log import is_server_log, read_requests

    if is_server_log(text):
        return [Result(**fields) for fields in read_requests(path, text, BACKENDS)]
    raise InputError(f"{path}: not a benchmark output fitproof reads (llama-bench's JSON, JSONL, "
                     "CSV or markdown table; llama-server's log; vllm bench serve's or SGLang "
                     "bench_serving's log or result file)")


def shown(value: Any) -> str:
    """A value as a JSON output spells it (``true``, ``Infinity``, ``1.5``), a text quoted,
    for a message."""
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return repr(value)


def number_of(value: Any) -> float:
    """``value`` (a JSON number or its text) as a float; ValueError for a boolean or
    anything else that is not a number (an infinite or NaN value is returned: the caller
    says what range it takes)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("is not a number")
    if isinstance(value, int):
        return float(min(max(value, -10 * MAX_COUNT), 10 * MAX_COUNT))  # never overflows
    try:
        return float(value)
    except ValueError:
        raise ValueError("is not a number") from None


def count_of(value: Any, least: int = 0) -> int:
    """``value`` as a count: a whole number from ``least`` to MAX_COUNT (a JSON integer, a
    whole float or their text); ValueError saying why not, never for a boolean read as 1."""
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):  # digits: no float's 1e400
        digits = value.strip().lstrip("+-")
        value = int(value) if len(digits) <= 40 else 10 * MAX_COUNT * (-1 if "-" in value else 1)
    number = number_of(value)
    if not math.isfinite(number) or not number.is_integer():
        raise ValueError("is not a whole number")
    if not least <= number <= MAX_COUNT:
        raise ValueError(f"is not from {least:,} to {MAX_COUNT:,}")
    return int(number)


def _int(fields: Mapping[str, Any], field: str, least: int = 0) -> int | None:
    """The count ``fields[field]`` (None where not stated); ValueError naming the field."""
    value = fields.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return count_of(value, least)
    except ValueError as exc:
        raise ValueError(f"{field} {shown(value)} {exc}") from None


def _speed(fields: Mapping[str, Any]) -> float:
    value = fields["avg_ts"]
    try:
        speed = number_of(value)
    except ValueError as exc:
        raise ValueError(f"avg_ts {shown(value)} {exc}") from None
    if not math.isfinite(speed) or speed <= 0:
        raise ValueError(f"avg_ts {shown(value)} is not a speed (a finite number of tokens "
                         "per second above 0)")
    return speed


def _result(where: str, quote: str, fields: Mapping[str, Any], path: Path) -> Result:
    source = file_uri(path)
    try:
        value = _speed(fields)
        test_time = fields.get("test_time")
        build_number = _int(fields, "build_number")
        return Result(
            where, quote, source, _int(fields, "n_prompt") or 0, _int(fields, "n_gen") or 0,
            _int(fields, "n_depth") or 0, value,
            model_file=fields.get("model_filename"), model_type=fields.get("model_type"),
            gpu_info=fields.get("gpu_info") or None,
            backend=fields.get("backends") or None,
            build=(f"b{build_number}" if build_number else fields.get("build_commit")),
            date=str(test_time)[:10] if test_time else None,
            n_ubatch=_int(fields, "n_ubatch", 1), n_gpu_layers=_int(fields, "n_gpu_layers", -1),
            n_cpu_moe=_int(fields, "n_cpu_moe"), type_k=fields.get("type_k"),
            type_v=fields.get("type_v"))
    except KeyError as exc:
        raise InputError(f"{where}: the result has no {exc.args[0]}") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {exc}") from None


def _from_json(path: Path, text: str) -> list[Result]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InputError(f"{path}: llama-bench -o json prints an array of objects")
    return [_result(f"{path}: result {i + 1}", json.dumps(_shown(item)), item, path)
            for i, item in enumerate(data)]


def json_objects(path: Path, text: str) -> list[tuple[str, dict[str, Any]]]:
    """The JSON objects of ``text`` with where each stands: the whole text when it is one
    object (a result file), else one per non-empty line (JSONL)."""
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict):
        return [(str(path), whole)]
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{path}:{number}: not JSON: {exc}") from None
        if not isinstance(item, dict):
            raise InputError(f"{path}:{number}: a result is a JSON object")
        found.append((f"{path}:{number}", item))
    return found


def _from_jsonl(path: Path, text: str) -> list[Result]:
    return [_result(where, json.dumps(_shown(item)), item, path)
            for where, item in json_objects(path, text)]


def _shown(item: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a result a row's quote keeps (not the samples)."""
    return {k: item[k] for k in ("build_number", "gpu_info", "backends", "model_filename",
                                 "n_prompt", "n_gen", "n_depth", "test_time", "avg_ts")
            if k in item}


def _from_csv(path: Path, text: str) -> list[Result]:
    lines = text.splitlines()
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    results = []
    for number, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) != len(header):
            raise InputError(f"{path}:{number}: {len(row)} fields where the header names "
                             f"{len(header)}")
        results.append(_result(f"{path}:{number}", lines[number - 1], dict(zip(header, row)),
                               path))
    return results


def _from_markdown(path: Path, text: str) -> list[Result]:
    build = _BUILD.search(text)
    header: list[str] | None = None
    results = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip().startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        if len(cells) != len(header):
            raise InputError(f"{path}:{number}: {len(cells)} columns where the header has "
                             f"{len(header)}")
        row = dict(zip(header, cells))
        test, speed = _TEST.fullmatch(row.get("test", "")), _TS.fullmatch(row.get("t/s", ""))
        if test is None or speed is None:
            raise InputError(f"{path}:{number}: test {row.get('test')!r} / t/s "
                             f"{row.get('t/s')!r} is not llama-bench's ppN, tgN (@ dD)")
        n = test["n"]  # its digits: _result reads them as a count
        fields = {"avg_ts": speed["value"], "n_depth": test["depth"] or 0,
                  "n_prompt": n if test["kind"] == "pp" else 0,
                  "n_gen": n if test["kind"] == "tg" else 0,
                  "model_type": row.get("model"), "backends": row.get("backend"),
                  "n_gpu_layers": row.get("ngl"), "n_ubatch": row.get("n_ubatch"),
                  "type_k": row.get("type_k"), "type_v": row.get("type_v"),
                  "n_cpu_moe": row.get("n_cpu_moe"),
                  "build_number": build["number"] if build else None}
        results.append(_result(f"{path}:{number}", line.strip(), fields, path))
    if header is None or not results:
        raise InputError(f"{path}: no results in the table")
    return results


def rows_of(results: Iterable[Result], registry: Registry, choices: Choices,
            ) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Measurement rows of ``results``, and why the others were left out (with counts)."""
    rows: list[dict[str, Any]] = []
    left_out: Counter[str] = Counter()
    for result in results:
        row, why = _row(result, registry, choices)
        if row is None:
            left_out[why] += 1
        else:
            rows.append(row)
    return rows, left_out


def _row(result: Result, registry: Registry, choices: Choices,
         ) -> tuple[dict[str, Any] | None, str]:
    if result.skip:
        return None, result.skip
    if result.n_prompt and result.n_gen:
        return None, "a prompt and a generation timed together (pp+tg)"
    if result.n_prompt and result.n_depth:
        return None, "a prefill at a depth (ppN @ dD): fitproof's prefill starts from an empty cache"
    if result.type_k and result.type_v and result.type_k != result.type_v:
        return None, "unlike K and V cache types"
    model = model_of(result.where, result.model_file, registry, choices)
    quant = _quant(result, registry, choices)
    hardware, gpus = _hardware(result, registry, choices)
    layers = getattr(registry.models[model], "num_hidden_layers", None)
    if result.n_gpu_layers is not None and 0 <= result.n_gpu_layers and layers is not None \
            and result.n_gpu_layers < int(layers.value):
        return None, "some layers left on the CPU (-ngl below the model's layer count)"
    backend = BACKENDS.get((result.backend or "").split(",")[0].strip().lower())
    row: dict[str, Any] = {"model": model, "hardware": hardware, "quant": quant,
                           "engine": "llama.cpp"}
    if backend and backend != registry.hardware[hardware].backend:
        row["backend"] = backend
    if result.type_k and result.type_k != "f16":
        row["kv"] = result.type_k
    if result.n_gen:
        row.update(metric="decode_tps", value=result.value,
                   context=result.n_depth + result.n_gen, prompt=result.n_depth,
                   generate=result.n_gen)
    else:
        row.update(metric="prefill_tps", value=result.value, context=result.n_prompt)
    if gpus > 1:
        row["gpus"] = gpus
    if result.n_ubatch:
        row["ubatch"] = result.n_ubatch
    if result.n_cpu_moe:
        row["cpu_moe"] = result.n_cpu_moe
    if result.build:
        row["engine_version"] = pack_text(str(result.build))
    if result.date:
        row["date"] = pack_text(result.date)
    row["source"] = result.source
    row["quote"] = pack_text(result.quote)
    row["note"] = f"fitproof bench ingest of {pack_text(result.where)}"
    return row, ""


def model_of(where: str, named: str | None, registry: Registry, choices: Choices) -> str:
    """The model pack of a run: ``--model``, else the one the run's model file or path
    names (its name, without a split model's shard number, then without a trailing
    quantization such as -Q4_K_M)."""
    if choices.model:
        return registry.resolve("model", choices.model)
    stem = re.sub(r"-\d{5}-of-\d{5}$", "", Path(named or "").name.removesuffix(".gguf"))
    for candidate in (stem, re.sub(r"[-.](?:[IiQqFfBb][A-Za-z0-9_]*|MXFP4\w*)$", "", stem)):
        found = registry.known("model", candidate) if candidate else []
        if len(found) == 1:
            return found[0]
    said = f" ({named})" if named else ""
    raise InputError(f"{where}: which model pack was run{said}? pass --model")


def _quant(result: Result, registry: Registry, choices: Choices) -> str:
    if choices.quant:
        return registry.resolve("quant", choices.quant)
    stem = Path(result.model_file or "").name.removesuffix(".gguf")
    tokens = re.split(r"[-.]", stem)
    found = {registry.known("quant", t)[0] for t in tokens if t and registry.known("quant", t)}
    if len(found) == 1:
        return found.pop()
    stated = result.model_type or "not stated"
    raise InputError(f"{result.where}: which weight format was run ({stated})? pass --quant")


def _hardware(result: Result, registry: Registry, choices: Choices) -> tuple[str, int]:
    devices = [d.strip() for d in (result.gpu_info or "").split(",") if d.strip()]
    gpus = choices.gpus or max(1, len(devices))
    if choices.hardware:
        return registry.resolve("hardware", choices.hardware), gpus
    names = set(devices)
    if len(names) == 1:
        found = registry.known("hardware", names.pop())
        if len(found) == 1:
            return found[0], gpus
    said = f" ({result.gpu_info})" if result.gpu_info else ""
    raise InputError(f"{result.where}: which device ran it{said}? pass --on")
