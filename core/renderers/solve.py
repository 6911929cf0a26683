"""Renderers of ``fitproof solve``: the answer, what binds it, and its derivation."""

from __future__ import annotations

from typing import Any

from ..views.numbers import format_number
from ..views.results import SolveView
from . import explain

_WIDTH = 100  # as explain's tree: the location ends at this column


def _answer(view: SolveView) -> str:
    if isinstance(view.value, str):
        return view.value
    if view.unit == "USD":
        return f"${view.value:,.0f}"
    if view.unit == "USD/hour":
        return f"${format_number(view.value)}/hour"
    return f"{view.value:,} {view.unit}"


def _setting(view: SolveView) -> str:
    s = view.scenario
    gpus = int(s.inputs.get("gpus", 1))
    on = f"{gpus}x {s.hardware}" if gpus > 1 else s.hardware
    return (f"{s.model} on {on} ({s.engine}, {s.quant}, KV {s.kv}, "
            f"context {int(s.inputs.get('context', 0)):,}, batch {int(s.inputs.get('batch', 1))})")


def render_text(view: SolveView, depth: int | None = None) -> str:
    """The answer first, then the binding constraint, then the derivation tree."""
    head = f"{view.question} = {_answer(view)}"
    lines = [f"{head}{' ' * max(2, _WIDTH - len(head) - len(view.at))}{view.at}",
             f"  {view.description}"]
    if view.label is not None:
        target = "" if view.target is None else f": {view.target}"
        lines.append(f"  {'rent' if view.basis == 'rent' else 'buy'} {view.label}{target}")
    lines += [f"  for {_setting(view)}",
              f"  bound by: {view.binding.constraint} — {view.binding.description}  "
              f"({view.binding.at})",
              f"    {view.binding.detail}",
              f"  searched {view.evaluated:,} scenarios"]
    lines += [f"    {note}" for note in view.notes]
    lines.append("")
    lines.append(explain.render_text(view.derivation, 1 if depth is None else depth))
    return "\n".join(lines)


def to_dict(view: SolveView) -> dict[str, Any]:
    """JSON-ready: value, unit, binding and derivation (and, for cheapest, the hardware,
    the device count and the purchase or offer)."""
    result: dict[str, Any] = {"question": view.question, "value": view.value,
                              "unit": view.unit, "description": view.description,
                              "source": view.at}
    if view.label is not None:
        result.update(hardware=view.scenario.hardware,
                      count=int(view.scenario.inputs.get("gpus", 1)),
                      offer=view.label, basis=view.basis, min_speed=view.min_speed)
    b = view.binding
    result["binding"] = {"constraint": b.constraint, "description": b.description,
                         "source": b.at, "detail": b.detail,
                         "beyond": b.beyond.to_dict() if b.beyond is not None else None}
    result["scenario"] = view.scenario.to_dict()
    result["evaluated"] = view.evaluated
    if view.notes:
        result["notes"] = list(view.notes)
    result["derivation"] = explain.to_dict(view.derivation, symbolic=False)
    return result
