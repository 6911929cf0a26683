"""``fitproof bench ingest`` of llama-server's log: the timing lines it prints as each
request ends, as llama-bench results.

llama.cpp's server prints, for every request (``server_slot::print_timings``,
tools/server/server-context.cpp)::

    slot print_timing: id  0 | task 400 | prompt eval time =  423.31 ms /   623 tokens (...,  1471.75 tokens per second)
    slot print_timing: id  0 | task 400 |        eval time =  816.42 ms /    95 tokens (...,   116.36 tokens per second)

(builds before late 2025 print the ``slot print_timing: ... |`` prefix once, on a line of
its own, and the timing lines bare), and as it frees the slot ``stop processing: n_tokens =
E`` (``n_past`` in older builds), the tokens left in the slot's cache. ``prompt eval``
counts only the prompt tokens the request evaluated, not those it found cached, and the
cache holds the prompt and every generated token but the last, so the request's whole
prompt is ``E - generated + 1`` and its cached part that less the evaluated ones.

Each request gives a prefill result (its prompt eval rate over the evaluated tokens, after
the cached ones: a prefill at a depth, which is left out like llama-bench's ``ppN @ dD``)
and a decode result (its eval rate, ``generated`` tokens at a depth of the whole prompt),
read by bench.py's rules. Left out, and counted: a request with no ``stop processing`` line
(its cached tokens are not known), one whose prompt was truncated, one decoded with a draft
model (``draft acceptance``), one served while another slot was busy (its ``processing
task`` line came before the other's ``stop processing``), and rates of nothing (no prompt
token evaluated, one token generated). The model file (``loading model '...gguf'``), the
devices (``device_info``), the backend and the build (``version: N (commit)``) come from
the log where it states them; ``--model``, ``--quant`` and ``--on`` give the rest.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import attrs

from ..errors import InputError
from .config_file import file_uri

_PREFIX = re.compile(r"\bslot\s+\w+: id\s+(?P<slot>\d+) \| task (?P<task>-?\d+) \|")
_TIMING = re.compile(r"(?P<kind>prompt eval|eval) time =\s*(?P<ms>[0-9.]+) ms /\s*(?P<n>\d+) "
                     r"tokens \(\s*[0-9.a-z-]+ ms per token,\s*(?P<tps>[0-9.]+|-?nan|inf) "
                     r"tokens per second\)")
_ANY_TIMING = re.compile(r"(?<![\w_])(?:prompt )?eval time\s+=")
_RELEASE = re.compile(r"stop processing: n_(?:tokens|past) = (?P<n>\d+), truncated = "
                      r"(?P<truncated>\d+)")
_VERSION = re.compile(r"\bversion: (?P<number>\d+) \((?P<commit>[0-9a-f]+)\)")
_MODEL = re.compile(r"loading model '(?P<file>[^']+\.gguf)'")
_DEVICE = re.compile(r"(?:^|\s)- (?P<backend>[A-Za-z]+)\d*\s*: (?P<name>.+?) \(\d+ MiB")
_BACKEND = re.compile(r"load_backend: loaded (?P<backend>\w+) backend")

SPECULATIVE = "a request decoded with a draft model or MTP (draft acceptance)"
NO_RELEASE = ("a request with no 'stop processing' line: the tokens it found cached are not "
              "known")
BUSY = "a request served while another slot was busy (-np above 1)"


@attrs.define
class _Request:
    prompt_line: tuple[int, str, int, float] | None = None  # line, text, tokens, rate
    eval_line: tuple[int, str, int, float] | None = None
    end_tokens: int | None = None
    truncated: bool = False
    speculative: bool = False
    busy: bool = False


def is_server_log(text: str) -> bool:
    """Whether ``text`` is (a part of) llama-server's log with its timing lines."""
    return _ANY_TIMING.search(text) is not None


def read_requests(path: Path, text: str, backends: Collection[str]) -> list[dict[str, Any]]:
    """A prefill and a decode result for each request the log times, as the fields of
    bench.py's ``Result`` (``backends``: the backend names a device line may start with)."""
    requests: dict[tuple[str, str] | int, _Request] = {}
    order: list[tuple[str, str] | int] = []
    active: set[tuple[str, str]] = set()
    key: tuple[str, str] | None = None
    pending: tuple[int, tuple[str, str] | int] | None = None  # a prompt eval awaiting its eval
    for number, line in enumerate(text.splitlines(), 1):
        prefix = _PREFIX.search(line)
        if prefix:
            key = (prefix["slot"], prefix["task"])
            if "processing task" in line:
                active.add(key)
        if "draft acceptance" in line and key in requests:
            requests[key].speculative = True
        release = _RELEASE.search(line)
        if release and key is not None:
            request = requests.setdefault(key, _Request())
            request.end_tokens, request.truncated = int(release["n"]), release["truncated"] != "0"
            active.discard(key)
        if not _ANY_TIMING.search(line):
            continue
        timing = _TIMING.search(line)
        if timing is None:
            raise InputError(f"{path}:{number}: not llama-server's 'eval time = T ms / N tokens "
                             "(... ms per token, R tokens per second)'")
        figures = (number, line.strip(), int(timing["n"]), _rate(timing["tps"]))
        if timing["kind"] == "prompt eval":
            if pending is not None:
                raise InputError(f"{path}:{pending[0]}: a prompt eval time line with no eval "
                                 "time line after it")
            own = key if key is not None else number
            if own in requests and requests[own].prompt_line is not None:
                own = number  # a slot line names no new task: a request of its own
            request = requests.setdefault(own, _Request())
            request.prompt_line = figures
            request.busy = bool(active - {own})
            order.append(own)
            pending = (number, own)
        else:
            if pending is None:
                raise InputError(f"{path}:{number}: an eval time line with no prompt eval time "
                                 "line before it")
            requests[pending[1]].eval_line = figures
            pending = None
    if pending is not None:
        raise InputError(f"{path}:{pending[0]}: a prompt eval time line with no eval time line "
                         "after it (is the log cut short?)")
    setup = _setup(text, backends)
    return [result for own in order for result in _results(path, requests[own], setup)]


def _rate(text: str) -> float:
    return float(text) if text[-3:] not in ("nan", "inf") else 0.0


def _setup(text: str, known: Collection[str]) -> dict[str, str | None]:
    """What the log says of the run: the model file, the devices, the backend, the build."""
    model = _MODEL.search(text)
    version = _VERSION.search(text)
    devices = [(m["backend"].lower(), m["name"].strip()) for m in
               (_DEVICE.search(line) for line in text.splitlines())
               if m and m["backend"].lower() in known]
    backends = {b for b, _ in devices} or {m["backend"].lower() for m in _BACKEND.finditer(text)}
    gpus = {b for b in backends if b != "cpu"}
    return {"model_file": model["file"] if model else None,
            "gpu_info": ", ".join(name for b, name in devices if b != "cpu") or None,
            "backend": gpus.pop() if len(gpus) == 1 else "cpu" if backends == {"cpu"} else None,
            "build": f"b{version['number']}" if version else None}


def _results(path: Path, request: _Request, setup: dict[str, str | None],
             ) -> list[dict[str, Any]]:
    assert request.prompt_line is not None and request.eval_line is not None
    p_line, p_text, evaluated, p_rate = request.prompt_line
    e_line, e_text, generated, e_rate = request.eval_line
    skip = None
    prompt = cached = 0
    if request.end_tokens is None:
        skip = NO_RELEASE
    elif request.truncated:
        skip = "a request whose prompt was truncated to fit the context"
    else:
        prompt = request.end_tokens - generated + 1
        cached = prompt - evaluated
        if cached < 0:
            skip = "a request whose token counts do not add up (a context shift?)"
    if skip is None and request.busy:
        skip = BUSY
    source = file_uri(path)
    stated = {"source": source, "n_prompt": 0, "n_gen": 0, **setup}
    prefill = {**stated, "where": f"{path}:{p_line}", "quote": p_text, "n_prompt": evaluated,
               "n_depth": cached, "value": p_rate,
               "skip": skip or (None if evaluated and p_rate else
                                "a request whose whole prompt was cached")}
    decode = {**stated, "where": f"{path}:{e_line}", "quote": e_text, "n_gen": generated,
              "n_depth": prompt, "value": e_rate,
              "skip": skip or (SPECULATIVE if request.speculative else None) or
              (None if generated > 1 and e_rate else
               "a request that generated one token (no decode rate)")}
    return [prefill, decode]
