"""Renderers of a derivation: text for the terminal, Markdown, LaTeX and JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.derivation import Derivation, latex_number
from ..views.numbers import format_number
from .escape import latex, latex_math, markdown, markdown_code

_WIDTH = 100


def _value(d: Derivation) -> str:
    if d.kind == "verdict":
        return d.description
    if d.value is None:
        return d.missing if d.kind == "value" and d.missing else \
            (f"unknown ({d.missing})" if d.missing else "unknown")
    unit = "" if d.unit in ("1", "") else f" {d.unit}"
    if d.unit == "bool":
        return "true" if d.value else "false"
    return f"{format_number(d.value)}{unit}"


def _head(d: Derivation, indent: str) -> str:
    left = f"{indent}{d.name} = {_value(d)}"
    gap = max(2, _WIDTH - len(left) - len(d.location))
    return f"{left}{' ' * gap}{d.location}"


def render_text(root: Derivation, max_depth: int | None = None) -> str:
    """The derivation as an indented tree, with file:line on every step.

    A step that appears again is shown once in full and later as ``(see above)``.
    """
    lines: list[str] = []
    hidden = 0
    for depth, d, repeated in root.steps():
        if max_depth is not None and depth > max_depth:
            hidden += not repeated
            continue
        indent = "  " * depth
        lines.append(_head(d, indent))
        if repeated:
            lines.append(f"{indent}  (see above)")
            continue
        if depth == 0 and d.description and d.kind != "verdict":
            lines.append(f"{indent}  {d.description}")
        if d.kind == "verdict":
            lines.append(f"{indent}  = {d.written}")
        if d.kind == "formula":
            lines.append(f"{indent}  = {d.written}")
            if d.substituted != d.written:
                lines.append(f"{indent}  = {d.substituted}")
        elif d.kind == "selection":
            if depth:  # the root's description is printed above
                lines.append(f"{indent}  {d.description}")
            lines.append(f"{indent}  = {d.written}")
            if d.substituted:
                lines.append(f"{indent}  = {d.substituted}")
        lines.extend(f"{indent}  {note}" for note in _notes(d))
    if hidden:
        lines.append(f"… {hidden} deeper step{'s' if hidden != 1 else ''} below level "
                     f"{max_depth} left out (--depth all shows them)")
    lines.extend(_footer(root, max_depth))
    return "\n".join(lines)


def _footer(root: Derivation, max_depth: int | None = None,
            escape: Callable[[str], str] = str) -> list[str]:
    """Sources shared by a whole pack, listed once per pack file (each written through
    ``escape``)."""
    by_file: dict[str, tuple[str, ...]] = {}
    for depth, d in root.walk():
        if max_depth is not None and depth > max_depth:
            continue
        if d.inherited_sources and d.sources:
            by_file.setdefault(d.at.file, d.sources)
    if not by_file:
        return []
    lines = ["", "Sources of pack figures without their own source:"]
    for file, sources in by_file.items():
        lines.append(f"  {escape(file)}")
        lines.extend(f"    {escape(source)}" for source in sources)
    return lines


def _notes(d: Derivation) -> list[str]:
    notes = []
    if d.kind == "input":
        notes.append(f"scenario input: {d.description}")
    if not d.inherited_sources:
        for source in d.sources:
            notes.append(f"source: {source}")
    if d.note:
        notes.append(f"note: {d.note}")
    if d.approximate:
        notes.append("approximate: fitted or estimated, not a published figure")
    for location in d.replaced:
        notes.append(f"overrides the definition at {location}")
    return notes


def to_dict(d: Derivation, *, symbolic: bool = True) -> dict[str, Any]:
    """The derivation as nested JSON-ready dicts."""
    result: dict[str, Any] = {
        "name": d.name, "value": d.value, "unit": d.unit, "kind": d.kind,
        "source": d.location,
    }
    if d.description:
        result["description"] = d.description
    if d.kind in ("formula", "selection"):
        result["written"] = d.written
        result["substituted"] = d.substituted
        if symbolic and d.formula is not None:
            result["symbolic"] = d.symbolic()
            result["latex"] = d.latex()
    if d.sources:
        result["citations"] = list(d.sources)
    if d.note:
        result["note"] = d.note
    if d.approximate:
        result["approximate"] = True
    if d.missing:
        result["missing"] = d.missing
    if d.replaced:
        result["overrides"] = list(d.replaced)
    result["inputs"] = [to_dict(child, symbolic=symbolic) for child in d.inputs]
    return result


def render_markdown(root: Derivation, max_depth: int | None = None) -> str:
    """The derivation as a nested Markdown list, formulas in code spans."""
    lines: list[str] = []
    hidden = 0
    for depth, d, repeated in root.steps():
        if max_depth is not None and depth > max_depth:
            hidden += not repeated
            continue
        indent = "  " * depth
        lines.append(f"{indent}- **{markdown_code(d.name)} = {markdown(_value(d))}** — "
                     f"{markdown_code(d.location)}")
        if repeated:
            lines.append(f"{indent}  (see above)")
            continue
        if d.kind in ("formula", "selection"):
            lines.append(f"{indent}  {markdown_code(str(d.written))}  ")
            if d.substituted:
                lines.append(f"{indent}  {markdown_code('= ' + d.substituted)}")
        lines.extend(f"{indent}  {markdown(note)}  " for note in _notes(d))
    lines.extend(_footer(root, max_depth, markdown))
    return "\n".join(lines) + "\n"


def render_latex(root: Derivation) -> str:
    """Each formula step as a LaTeX align line: symbolic form = substituted values = result."""
    rows: list[str] = []
    seen: set[str] = set()

    def parts(d: Derivation) -> tuple[str, str, str]:
        name = r"\mathrm{" + latex_math(d.name) + "}"
        unit = "" if d.unit in ("1", "") else r"\ \mathrm{" + latex_math(d.unit) + "}"
        value = latex_number(d.value) if d.value is not None else "?"
        return name, unit, value

    def emit(d: Derivation) -> None:
        if d.name in seen or d.kind != "formula":
            return
        seen.add(d.name)
        name, unit, value = parts(d)
        rows.append(f"{name} &= {d.latex()} \\\\\n  &= {d.latex_substituted()} = "
                    f"{value}{unit}")
        for child in d.inputs:
            emit(child)

    if root.kind != "formula":  # a pack figure or an input: its value and where it stands
        name, unit, value = parts(root)
        rows.append(f"{name} &= {value}{unit} \\quad \\text{{" + latex(str(root.at)) + "}")
    emit(root)
    return "\\begin{align*}\n  " + " \\\\\n  ".join(rows) + "\n\\end{align*}\n"
