"""Detected devices mapped to hardware packs (``fitproof detect``, ``--on auto``), and a
pack template, filled with what was detected, for a device no pack describes.

A device maps to the accelerator pack of its vendor whose id or alias is a name the tool
printed (as ``--on`` matches names), else whose id, name or alias contains the chip's name
("M3 Max" in "M3 Max 40-core GPU 128GB"), else that a run of the printed words names
("NVIDIA H100 80GB HBM3": "NVIDIA H100 80GB") — and whose ``memory_gb`` is the memory the
tool reports: exactly for unified memory (Apple sells it in whole GB), within
:data:`MEMORY_TOLERANCE` for a card (tools print its usable MiB, datasheets round).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial

from ..errors import InputError
from ..registry.index import Registry
from ..registry.names import matching_ids, name_stages
from ..specs import HardwareSpec
from ..views.results import DetectedDevice, DetectView
from .detect import Probe, Reading, probe

# how far a card's reported memory may be from its pack's memory_gb, as a share of it
MEMORY_TOLERANCE = 0.1


def detect_view(registry: Registry, timeout: float | None = None,
                environ: Mapping[str, str] | None = None) -> DetectView:
    """The local accelerators (see :func:`fitproof.importers.detect.probe`), each with its pack."""
    return build_view(registry, probe(timeout, environ))


def build_view(registry: Registry, found: Probe) -> DetectView:
    groups: dict[tuple[str, str, int | None], list[Reading]] = {}
    for reading in found.readings:
        groups.setdefault((reading.tool, reading.name, reading.memory_bytes), []).append(reading)
    packs = _Packs(registry)
    devices = sorted((_device(packs, same[0], len(same)) for same in groups.values()),
                     key=lambda d: -(d.memory_bytes or 0) * d.count)
    chosen = next((i for i, d in enumerate(devices) if d.hardware is not None), None)
    return DetectView(tuple(devices), found.host_ram_bytes, found.host_ram_source,
                      _notes(found), chosen, _auto_choice(registry, devices, chosen))


def _auto_devices(registry: Registry, devices: Sequence[DetectedDevice],
                  chosen: int | None) -> list[DetectedDevice]:
    """The devices ``--on auto`` uses: the largest device with a pack; with discrete
    devices of several kinds on its backend, all of them, a machine of unlike devices
    llama.cpp splits the layers over."""
    if chosen is None:
        return []
    device = devices[chosen]
    assert device.hardware is not None
    backend = registry.hardware[device.hardware].backend
    together = [d for d in devices if d.hardware is not None
                and registry.hardware[d.hardware].backend == backend
                and not registry.hardware[d.hardware].unified_memory]
    return together if len(together) > 1 else [device]


def _auto_choice(registry: Registry, devices: Sequence[DetectedDevice], chosen: int | None
                 ) -> tuple[str, int] | None:
    """``--on`` and ``--gpus`` of ``--on auto``: one id on as many devices as were found,
    or the machine's devices as ``--on`` lists them (``rtx-3090:2,rtx-3060``), count 1."""
    used = _auto_devices(registry, devices, chosen)
    if not used:
        return None
    if len(used) == 1:
        return str(used[0].hardware), used[0].count
    return ",".join(f"{d.hardware}:{d.count}" if d.count > 1 else f"{d.hardware}"
                    for d in used), 1


def detect(registry: Registry, *, timeout: float | None = None,
           environ: Mapping[str, str] | None = None) -> DetectView:
    """``fitproof detect`` (``fitproof.api.detect``): the local accelerators (nvidia-smi,
    rocm-smi or amd-smi, sysctl on a Mac; each run with ``timeout`` seconds, default 5,
    found on ``environ``'s PATH), each with the hardware pack it maps to or a pack template,
    and the host's RAM. Raises :class:`InputError` when a tool fails, hangs or prints what
    cannot be read."""
    return detect_view(registry, timeout, environ)


def detected_hardware(registry: Registry, *, timeout: float | None = None,
                      environ: Mapping[str, str] | None = None) -> tuple[str, int, str]:
    """``--on auto`` (``fitproof.api.detected_hardware``): see :func:`auto_hardware`."""
    return auto_hardware(registry, timeout, environ)


def auto_hardware(registry: Registry, timeout: float | None = None,
                  environ: Mapping[str, str] | None = None) -> tuple[str, int, str]:
    """``--on auto``: the pack id and count of the largest local accelerator that has a
    pack, and a note saying what was detected. :class:`InputError` when there is none.
    Discrete devices of several kinds on one backend are a machine of unlike devices: their
    ids as ``--on`` lists them (``rtx-5090,rtx-5080``, ``rtx-3090:2,rtx-3060``), count 1."""
    view = detect_view(registry, timeout, environ)
    if view.chosen is None:
        if not view.devices:
            raise InputError(f"no accelerator detected: {'; '.join(view.notes)}; "
                             f"name one with --on")
        seen = ", ".join(f"{d.count} x {d.name}" for d in view.devices)
        raise InputError(f"detected {seen}, which no hardware pack describes; "
                         f"`fitproof detect` prints a pack template for it, "
                         f"or name one with --on")
    assert view.auto is not None
    used = _auto_devices(registry, view.devices, view.chosen)
    seen = ", ".join(f"{d.count} x {d.name}" for d in used)
    return view.auto[0], view.auto[1], f"detected {seen} -> {view.auto[0]}"


def _notes(found: Probe) -> tuple[str, ...]:
    notes = []
    if found.absent:
        names = list(found.absent)
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        notes.append(f"{listed} {'was' if len(names) == 1 else 'were'} not found")
    return (*notes, *found.remarks)


class _Packs:
    """The accelerator packs and their names, as the matching reads them."""

    def __init__(self, registry: Registry):
        self.hardware = registry.accelerators
        self.stages = name_stages({k: v for k, v in registry.names_of_kind("hardware").items()
                                   if k in self.hardware})

    def named(self, name: str, reading: Reading) -> list[str]:
        """The packs of ``reading``'s vendor and memory whose id or alias is ``name``."""
        return self.fitting(matching_ids(self.stages, name), reading)

    def fitting(self, ids: Iterable[str], reading: Reading) -> list[str]:
        return sorted({i for i in ids if i in self.hardware
                       and _same_vendor(self.hardware[i], reading)
                       and _same_memory(self.hardware[i], reading)})


def _same_vendor(pack: HardwareSpec, reading: Reading) -> bool:
    return pack.vendor.casefold() == reading.vendor.casefold()


def _same_memory(pack: HardwareSpec, reading: Reading) -> bool:
    """Whether the pack's memory_gb is the memory the tool reports (unknown: any)."""
    size = reading.memory_bytes
    if size is None:
        return True
    stated = pack.memory_gb.value
    if reading.unified:
        return stated in (round(size / 2**30), round(size / 1e9))
    return min(abs(stated - size / 2**30), abs(stated - size / 1e9)) <= MEMORY_TOLERANCE * stated


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.casefold())


def _chip_words(reading: Reading) -> list[str]:
    """The printed name's words after the vendor's ("Apple M3 Max": m3, max)."""
    words, vendor = _words(reading.name), _words(reading.vendor)
    return words[len(vendor):] if words[:len(vendor)] == vendor else words


def _contains(name: str, chip: Sequence[str]) -> bool:
    """Whether ``chip``'s words are in ``name``, followed by nothing or a figure ("M3" is
    in "M3 16GB", not in "M3 Max 48GB")."""
    words, size = _words(name), len(chip)
    return any(words[i:i + size] == list(chip)
               and (i + size == len(words) or words[i + size][0].isdigit())
               for i in range(len(words) - size + 1))


def _containing(packs: _Packs, reading: Reading) -> list[str]:
    chip = _chip_words(reading)
    if not any(ch.isdigit() for word in chip for ch in word):
        return []
    return packs.fitting((key for key, pack in packs.hardware.items()
                          if any(_contains(n, chip) for n in (key, pack.name, *pack.aliases))),
                         reading)


def _runs(name: str) -> list[list[str]]:
    """Runs of the printed words that hold a figure, by length, longest first (the whole
    name left out: it is tried first)."""
    words = [w for w in re.split(r"[\s_\-/,()]+", name) if w]
    return [[" ".join(words[i:i + size]) for i in range(len(words) - size + 1)
             if any(ch.isdigit() for ch in " ".join(words[i:i + size]))]
            for size in range(len(words) - 1, 0, -1)]


def match(packs: _Packs, reading: Reading) -> tuple[str | None, tuple[str, ...]]:
    """The pack ``reading`` maps to, or None and the packs it could be (when several)."""
    lookups: list[Callable[[], list[str]]] = [
        *(partial(packs.named, name, reading) for name in (reading.name, *reading.names)),
        partial(_containing, packs, reading),
        *(partial(_named_any, packs, run, reading) for run in _runs(reading.name)),
    ]
    for lookup in lookups:
        hits = lookup()
        if len(hits) == 1:
            return hits[0], ()
        if hits:
            return None, tuple(hits)
    return None, ()


def _named_any(packs: _Packs, names: Sequence[str], reading: Reading) -> list[str]:
    return sorted({hit for name in names for hit in packs.named(name, reading)})


def _device(packs: _Packs, reading: Reading, count: int) -> DetectedDevice:
    hardware, candidates = match(packs, reading)
    template = None if hardware or candidates else pack_template(reading)
    name = packs.hardware[hardware].display_name if hardware else None
    return DetectedDevice(reading.name, reading.vendor, reading.backend, count,
                          reading.memory_bytes, reading.tool, hardware, name, candidates,
                          template)


def _product(reading: Reading) -> str:
    """The printed name without the vendor's (packs print "<vendor> <name>")."""
    name = reading.name.strip()
    vendor = reading.vendor
    if name.casefold().startswith(vendor.casefold() + " "):
        name = name[len(vendor):].strip()
    return name


def _memory_gb(reading: Reading) -> str:
    size = reading.memory_bytes
    assert size is not None
    if reading.unified:  # sold in whole GB as the chip's memory (128GB = 128 GiB)
        return str(round(size / 2**30))
    return f"{size / 1e9:.2f}".rstrip("0").rstrip(".")


def pack_template(reading: Reading) -> str:
    """A hardware pack for ``reading``: what the tool reported filled in, the figures only a
    datasheet gives left for the contributor (CONTRIBUTING.md)."""
    product, alias = _product(reading), reading.name  # the alias maps it next time
    if reading.unified and reading.memory_bytes:  # one chip, several memory sizes
        product, alias = (f"{n} {_memory_gb(reading)}GB" for n in (product, alias))
    ident = "-".join(_words(f"{reading.vendor if reading.unified else ''} {product}")) \
        or "my-accelerator"
    said = _reported(reading)
    lines = [
        f"# A hardware pack for the {reading.name} that {reading.tool} reports.",
        "# Fill in the figures a datasheet gives, each with its source, delete the rest, save",
        f"# it as packs/hardware/{ident}.yaml (or in a folder for --pack-dir), then run",
        f"#     fitproof packs validate {ident}.yaml",
        "# CONTRIBUTING.md (\"Add an accelerator in five minutes\") explains each field.",
        "kind: hardware",
        f"id: {ident}",
        f"name: {json.dumps(product, ensure_ascii=False)}",
        f"vendor: {json.dumps(reading.vendor, ensure_ascii=False)}",
        f"aliases: [{json.dumps(alias, ensure_ascii=False)}]",
        "source: []  # required: the datasheet's URL (and any review a figure comes from)",
        f"unified_memory: {'true' if reading.unified else 'false'}",
        f"backend: {reading.backend}",
    ]
    if reading.memory_bytes:
        lines.append(f"memory_gb: {_memory_gb(reading)}  # detected: {said}; "
                     f"check it against the datasheet")
    else:
        lines.append(f"memory_gb:  # required: {reading.tool} does not report it")
    lines += [
        "memory_bandwidth_gbs:  # required: peak memory bandwidth in GB/s",
        "# memory_type:",
        "# memory_family:  # hbm, gddr, lpddr or ddr",
        "# fp16_tflops:",
        "# bf16_tflops:",
        "# fp8_tflops:",
        "# int8_tops:",
        "# tdp_w:",
        "# price_usd:",
        "# interconnect:",
    ]
    return "\n".join(lines) + "\n"


def _reported(reading: Reading) -> str:
    size = reading.memory_bytes
    if size is None:
        return "no memory size"
    if reading.tool == "sysctl":
        return f"{size} bytes ({reading.tool} hw.memsize)"
    return f"{size / 2**20:.0f} MiB ({reading.tool})"
