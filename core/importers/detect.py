"""The local accelerators as the vendors' tools report them (``fitproof detect``).

Each tool is looked up on ``PATH`` and run without a shell, with a timeout: ``nvidia-smi``,
``rocm-smi`` (else ``amd-smi``), ``sysctl`` on a Mac; the host's RAM comes from
``/proc/meminfo`` (``FITPROOF_MEMINFO`` names another file). What they print is read into
:class:`Reading` s. The command lines and the parsing rules are the tools' interfaces; no
hardware figure lives here: ``importers/detect_match.py`` maps the readings to hardware packs.

A tool that fails, hangs or prints what cannot be read is a :class:`DetectionError` naming
the tool and quoting what it printed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

from ..errors import InputError

TIMEOUT_S = 5.0  # how long a tool may take to answer
MEMINFO = "/proc/meminfo"
MEMINFO_ENV = "FITPROOF_MEMINFO"

NVIDIA_SMI = ("nvidia-smi", "--query-gpu=name,memory.total,count",
              "--format=csv,noheader,nounits")
ROCM_SMI = ("rocm-smi", "--showproductname", "--showmeminfo", "vram", "--json")
AMD_SMI = ("amd-smi", "static", "--json")
SYSCTL_CHIP = ("sysctl", "-n", "machdep.cpu.brand_string")
SYSCTL_MEMORY = ("sysctl", "-n", "hw.memsize")

_UNREPORTED = {"", "n/a", "[n/a]", "not supported", "[not supported]", "unknown"}
_UNITS = {"b": 1, "kb": 2**10, "kib": 2**10, "mb": 2**20, "mib": 2**20, "gb": 2**30,
          "gib": 2**30}  # amd-smi's "MB" are MiB
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[@-_]")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


class DetectionError(InputError):
    """A device tool failed, did not answer, or printed what fitproof cannot read."""


class Reading(NamedTuple):
    """One device as a tool reported it."""

    tool: str  # the command that reported it
    name: str  # as the tool printed it
    vendor: str
    backend: str
    memory_bytes: int | None  # None: the tool does not report it
    unified: bool = False  # memory shared with the CPU (Apple): packs state it exactly
    names: tuple[str, ...] = ()  # other names the tool gives (a marketing name in brackets)


class Probe(NamedTuple):
    """What the tools found: the devices, the host's RAM, and why nothing was found."""

    readings: tuple[Reading, ...]
    host_ram_bytes: int | None
    host_ram_source: str | None
    absent: tuple[str, ...]  # tools not on PATH
    remarks: tuple[str, ...]  # tools that ran and report no accelerator


def legible(text: str | bytes, limit: int = 120) -> str:
    """``text`` for a one-line message: escape sequences and control characters removed,
    white space collapsed, at most ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = " ".join(_CONTROLS.sub(" ", _ESCAPES.sub("", text)).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def unreadable(tool: str, text: str, what: str = "") -> DetectionError:
    detail = f" ({what})" if what else ""
    return DetectionError(f"{tool} printed what fitproof cannot read{detail}: "
                          f"\"{legible(text) or '(nothing)'}\"")


def run(tool: str, path: str, args: Sequence[str], timeout: float) -> str:
    """The standard output of ``path args`` (no shell, no input, at most ``timeout``
    seconds); :class:`DetectionError` when it cannot run, fails or does not answer."""
    try:
        process = subprocess.Popen([path, *args], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
    except OSError as exc:
        raise DetectionError(f"{tool} could not be run: {exc.strerror or exc}") from None
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        raise DetectionError(f"{tool} did not answer within {timeout:g} s") from None
    if process.returncode != 0:
        code = process.returncode
        status = f"exit {code}" if code > 0 else f"killed by signal {-code}"
        said = legible(err) or legible(out)
        raise DetectionError(f"{tool} failed ({status})" + (f": \"{said}\"" if said else ""))
    return out.decode("utf-8", "replace")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a tool that does not answer, and the processes it started."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, OSError):
        process.kill()
    try:
        process.communicate(timeout=1)
    except subprocess.TimeoutExpired:
        pass


def _name(tool: str, text: str, raw: str) -> str:
    name = text.strip()
    if not name or len(name) > 100 or _CONTROLS.search(name) or _ESCAPES.search(name):
        raise unreadable(tool, raw, "a device name")
    return name


def _whole(tool: str, text: str, raw: str, what: str) -> int | None:
    """A count or size as the tool prints it; None where it says it does not know."""
    value = text.strip()
    if value.casefold() in _UNREPORTED:
        return None
    if not re.fullmatch(r"\d+(\.\d+)?", value):
        raise unreadable(tool, raw, what)
    return int(float(value))


def parse_nvidia_smi(text: str) -> list[Reading]:
    """``name, memory.total (MiB), count``, one line per GPU."""
    readings = []
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = line.rsplit(",", 2)
        if len(parts) != 3:
            raise unreadable("nvidia-smi", text, "expected name, memory, count")
        name = _name("nvidia-smi", parts[0], text)
        mib = _whole("nvidia-smi", parts[1], text, "memory in MiB")
        _whole("nvidia-smi", parts[2], text, "GPU count")
        readings.append(Reading("nvidia-smi", name, "NVIDIA", "cuda",
                                None if not mib else mib * 2**20))
    return readings


def _json(tool: str, text: str) -> Any:
    """The JSON value ``text`` holds, after any warnings the tool prints before it."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise unreadable(tool, text, "expected JSON")
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except (ValueError, RecursionError):
        raise unreadable(tool, text, "expected JSON") from None


def _marketing(names: Sequence[str]) -> tuple[str, ...]:
    """The names, then any name in brackets ("Navi 21 [Radeon RX 6800/6800 XT]")."""
    inner = [m.strip() for n in names for m in re.findall(r"\[([^\]]+)\]", n)]
    return tuple(dict.fromkeys([*names, *(m for m in inner if m)]))


def _text_fields(tool: str, raw: str, fields: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    """The values of ``keys`` that name a product (not a hex id or "N/A")."""
    found = []
    for key in keys:
        value = fields.get(key)
        if isinstance(value, str) and value.strip().casefold() not in _UNREPORTED \
                and not re.fullmatch(r"\s*0x[0-9a-fA-F]+\s*", value):
            found.append(_name(tool, value, raw))
    return found


def parse_rocm_smi(text: str) -> list[Reading]:
    """``{"card0": {"Card Series": ..., "Card Model": ..., "VRAM Total Memory (B)": ...}}``
    (older versions spell ``Card series``, ``Card model``; newer ones add ``Device Name``)."""
    data = _json("rocm-smi", text)
    if not isinstance(data, dict):
        raise unreadable("rocm-smi", text, "expected an object of cards")
    readings = []
    for key, card in data.items():
        if not (str(key).casefold().startswith("card") and isinstance(card, dict)):
            continue  # "system" and other entries that are not devices
        fields = {str(k).strip().casefold(): v for k, v in card.items()}
        names = _text_fields("rocm-smi", text, fields,
                             ("card model", "card series", "device name", "card sku"))
        if not names:
            raise unreadable("rocm-smi", text, f"no product name for {key}")
        memory = fields.get("vram total memory (b)")
        size = None if memory is None else _whole("rocm-smi", str(memory), text, "VRAM bytes")
        everything = _marketing(names)
        readings.append(Reading("rocm-smi", everything[0], "AMD", "rocm", size or None,
                                names=everything[1:]))
    return readings


def _size(tool: str, raw: str, value: Any) -> int | None:
    """``{"value": 196592, "unit": "MB"}``, ``"196592 MB"`` or a number of MB."""
    if isinstance(value, dict):
        number, unit = value.get("value"), str(value.get("unit", "MB"))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number, unit = value, "MB"
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value)
        if match is None:
            return None if value.strip().casefold() in _UNREPORTED else _bad_size(tool, raw)
        number, unit = float(match[1]), match[2] or "MB"
    else:
        return None
    factor = _UNITS.get(unit.strip().casefold())
    if factor is None or not isinstance(number, (int, float)) or isinstance(number, bool):
        return _bad_size(tool, raw)
    return int(number * factor) or None


def _bad_size(tool: str, raw: str) -> NoReturn:
    raise unreadable(tool, raw, "VRAM size")


def parse_amd_smi(text: str) -> list[Reading]:
    """``[{"gpu": 0, "asic": {"market_name": ...}, "board": {"product_name": ...},
    "vram": {"size": ...}}]``, or that list under ``"gpu_data"`` (newer versions)."""
    data = _json("amd-smi", text)
    if isinstance(data, dict):
        data = data.get("gpu_data", [data] if "asic" in data else None)
    if not isinstance(data, list):
        raise unreadable("amd-smi", text, "expected a list of GPUs")
    readings = []
    for gpu in data:
        if not isinstance(gpu, dict):
            raise unreadable("amd-smi", text, "expected a list of GPUs")
        parts: dict[str, dict[str, Any]] = {
            key: value if isinstance(value := gpu.get(key), dict) else {}
            for key in ("asic", "board", "vram")}
        names = [*_text_fields("amd-smi", text, parts["board"], ("product_name",)),
                 *_text_fields("amd-smi", text, parts["asic"], ("market_name",))]
        if not names:
            raise unreadable("amd-smi", text, f"no product name for GPU {gpu.get('gpu', '?')}")
        everything = _marketing(names)
        readings.append(Reading("amd-smi", everything[0], "AMD", "rocm",
                                _size("amd-smi", text, parts["vram"].get("size")),
                                names=everything[1:]))
    return readings


def _apple(path: str, timeout: float, remarks: list[str]) -> list[Reading]:
    """An Apple chip (``sysctl``'s CPU brand) and its unified memory (``hw.memsize``)."""
    try:
        brand = run("sysctl", path, SYSCTL_CHIP[1:], timeout).strip()
    except DetectionError:
        if sys.platform == "darwin":
            raise
        remarks.append("sysctl reports no Apple chip")  # not a Mac: the key does not exist
        return []
    if not brand.startswith("Apple"):
        remarks.append(f"sysctl reports no Apple chip (\"{legible(brand, 60)}\")")
        return []
    name = _name("sysctl", brand, brand)
    memory = run("sysctl", path, SYSCTL_MEMORY[1:], timeout)
    size = _whole("sysctl", memory, memory, "hw.memsize in bytes")
    if not size:
        raise unreadable("sysctl", memory, "hw.memsize in bytes")
    return [Reading("sysctl", name, "Apple", "metal", size, unified=True)]


def host_ram(environ: Mapping[str, str]) -> tuple[int | None, str]:
    """``MemTotal`` of ``/proc/meminfo`` (or the file ``FITPROOF_MEMINFO`` names) in bytes;
    None when the file is missing or says nothing readable."""
    path = environ.get(MEMINFO_ENV) or MEMINFO
    try:
        with open(path, "rb") as file:
            text = file.read(1 << 16).decode("utf-8", "replace")
    except OSError:
        return None, path
    match = re.search(r"^MemTotal:\s*(\d+)\s*kB\s*$", text, re.M)
    return (int(match[1]) * 1024 if match else None), path


def probe(timeout: float | None = None, environ: Mapping[str, str] | None = None) -> Probe:
    """Run every tool found on ``environ``'s ``PATH`` (default: this process's)."""
    env = os.environ if environ is None else environ
    wait = TIMEOUT_S if timeout is None else timeout
    search = env.get("PATH", os.defpath)
    readings: list[Reading] = []
    absent: list[str] = []
    remarks: list[str] = []
    nvidia = shutil.which(NVIDIA_SMI[0], path=search)
    if nvidia:
        found = parse_nvidia_smi(run(NVIDIA_SMI[0], nvidia, NVIDIA_SMI[1:], wait))
        readings += found
        if not found:
            remarks.append("nvidia-smi lists no GPU")
    else:
        absent.append(NVIDIA_SMI[0])
    for command, parse in ((ROCM_SMI, parse_rocm_smi), (AMD_SMI, parse_amd_smi)):
        amd = shutil.which(command[0], path=search)
        if amd:
            found = parse(run(command[0], amd, command[1:], wait))
            readings += found
            if not found:
                remarks.append(f"{command[0]} lists no GPU")
            break
    else:
        absent.append(ROCM_SMI[0])
    sysctl = shutil.which(SYSCTL_CHIP[0], path=search)
    apple = _apple(sysctl, wait, remarks) if sysctl else []
    if not sysctl:
        absent.append(SYSCTL_CHIP[0])
    readings += apple
    ram, source = host_ram(env)
    if ram is None and apple:  # a Mac: its memory is the host's
        ram, source = apple[0].memory_bytes, "sysctl hw.memsize"
    return Probe(tuple(readings), ram, source if ram is not None else None, tuple(absent),
                 tuple(remarks))
