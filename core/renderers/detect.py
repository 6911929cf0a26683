"""Rendering for ``fitproof detect``: the local accelerators, each with its hardware pack
or a pack template, and the host's RAM."""

from __future__ import annotations

from typing import Any

from ..views.results import DetectedDevice, DetectView
from .display import display_number


def _gib(size: int | None) -> float | None:
    return None if size is None else size / 2**30


def _memory(device: DetectedDevice) -> str:
    if device.memory_bytes is None:
        return "memory not reported"
    each = " each" if device.count > 1 else ""
    return f"{display_number(_gib(device.memory_bytes), 1)} GiB{each}"


def _auto(view: DetectView) -> dict[str, Any] | None:
    if view.auto is None:
        return None
    return {"hardware": view.auto[0], "gpus": view.auto[1]}


def render_detect_text(view: DetectView) -> str:
    lines = []
    if not view.devices:
        lines.append(f"no accelerator detected: {'; '.join(view.notes)}")
    for device in view.devices:
        lines.append(f"{device.count} x {device.name} · {_memory(device)} · "
                     f"{device.backend} ({device.tool})")
        if device.hardware is not None:
            lines.append(f"  hardware pack: {device.hardware} ({device.hardware_name})")
        elif device.candidates:
            lines.append(f"  could be any of {', '.join(device.candidates)}: "
                         f"name one with --on")
        else:
            lines.append("  no hardware pack describes it; a template to start one "
                         "(save it, fill it in, use it with --pack-dir):")
            lines += [f"    {line}".rstrip() for line in (device.template or "").splitlines()]
    if view.host_ram_bytes is not None:
        lines.append(f"host RAM: {display_number(_gib(view.host_ram_bytes), 1)} GiB "
                     f"({view.host_ram_source})")
    auto = _auto(view)
    if auto is not None:
        gpus = f" --gpus {auto['gpus']}" if auto["gpus"] > 1 else ""
        lines.append(f"--on auto: --on {auto['hardware']}{gpus}")
    return "\n".join(lines)


def detect_json(view: DetectView) -> dict[str, Any]:
    devices = [{"name": d.name, "vendor": d.vendor, "backend": d.backend, "count": d.count,
                "memory_bytes": d.memory_bytes, "memory_gib": _gib(d.memory_bytes),
                "tool": d.tool, "hardware": d.hardware, "hardware_name": d.hardware_name,
                "candidates": list(d.candidates), "template": d.template}
               for d in view.devices]
    return {"devices": devices, "host_ram_bytes": view.host_ram_bytes,
            "host_ram_gib": _gib(view.host_ram_bytes), "host_ram_source": view.host_ram_source,
            "auto": _auto(view), "notes": list(view.notes)}
