"""Rendering for ``fitproof packs list|show|validate``."""

from __future__ import annotations

import math
from typing import Any

import attrs

from ..views.results import LoadedPack, PacksView, PackView, ValidationReport
from .escape import terminal_field


def pack_summary(pack: LoadedPack) -> dict[str, Any]:
    """``id``, ``kind``, ``name``, ``source`` (file) and ``origin`` (who provided it)."""
    return {"id": pack.id, "kind": pack.kind, "name": pack.name, "source": pack.path,
            "origin": pack.origin}


def packs_json(view: PacksView) -> list[dict[str, Any]]:
    return [pack_summary(p) for p in view.packs]


def render_list(view: PacksView) -> str:
    packs = view.packs
    rows = [(p.kind, p.id, terminal_field(p.name), terminal_field(p.path)) for p in packs]
    widths = [max(len(r[i]) for r in rows) if rows else 0 for i in range(3)]
    lines = [f"{k:<{widths[0]}}  {i:<{widths[1]}}  {n:<{widths[2]}}  {s}" for k, i, n, s in rows]
    lines.append(f"{len(packs)} pack{'s' if len(packs) != 1 else ''}")
    return "\n".join(lines)


def pack_detail(view: PackView) -> dict[str, Any]:
    pack = view.pack
    data = attrs.asdict(pack.obj, filter=lambda a, v: a.name != "pack" and v not in (None, (), {}))
    overrides = [{"source": old.path, "origin": old.origin} for old in reversed(pack.replaces)]
    return {**pack_summary(pack), "overrides": overrides, "content": data}


def precedence(pack: LoadedPack) -> list[str]:
    """Why this pack is the one in use: what it replaced, or that its id is unique."""
    if not pack.replaces:
        return [f"  wins:   the only {pack.kind} pack with id {pack.id!r}"]
    lines = []
    for old in reversed(pack.replaces):  # the most recently replaced first
        lines.append(f"  overrides: {terminal_field(old.path)} (from {old.origin})")
    lines.append(f"  wins:   declares 'override: true' (line {pack.override_line}) and loads "
                 "after the packs it replaces")
    return lines


def render_show(view: PackView) -> str:
    pack = view.pack
    lines = [f"{pack.kind} {pack.id}: {pack.name}",
             f"  file:   {terminal_field(pack.path)}",
             f"  from:   {pack.origin}",
             *precedence(pack)]
    obj = pack.obj
    rows: list[tuple[float, str]] = []
    for field in attrs.fields(type(obj)):
        if field.name in ("pack", "id", "kind", "name", "override"):
            continue
        value = getattr(obj, field.name)
        if value in (None, (), {}, ""):
            continue
        line = obj.pack.lines.get((field.name,))
        if line is None:  # not in the file: its default, after the fields the file writes
            rows.append((math.inf, f"  {field.name}: {_short(value)}  (default)"))
        else:
            rows.append((line, f"  {field.name}: {_short(value)}  (line {line})"))
    lines.extend(text for _, text in sorted(rows, key=lambda r: r[0]))
    return "\n".join(lines)


def _short(value: Any) -> str:
    if attrs.has(type(value)) and hasattr(value, "value"):
        text = f"{value.value:g}"
        if getattr(value, "approximate", False):
            text += " (approximate)"
        return text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ", ".join(_short(v) for v in value) if len(value) < 6 else f"{len(value)} entries"
    if isinstance(value, dict):
        return ", ".join(value) if len(value) < 12 else f"{len(value)} entries"
    if attrs.has(type(value)):
        return type(value).__name__
    text = str(value)
    return text if len(text) < 90 else text[:87] + "..."


def render_validation(report: ValidationReport) -> str:
    lines: list[str] = []
    # a file the combined checks fault is not "ok": its problems stand in its place
    faulted = {p.file for p in report.context}
    for result in report.files:
        if result.problems:
            lines.extend(str(p) for p in result.problems)
        elif result.path not in faulted:
            lines.append(f"{terminal_field(result.path)}: ok ({result.kind} {result.id})")
    for problem in report.context:
        lines.append(f"{problem}")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")
    bad = sum(1 for r in report.files if r.problems)
    total = len(report.files)
    verdict = "all valid" if report.ok else f"{bad} with problems" if bad else \
        "problems when combined with the installed packs"
    lines.append(f"{total} pack file{'s' if total != 1 else ''} checked: {verdict}")
    return "\n".join(lines)
