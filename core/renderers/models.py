"""Rendering for ``fitproof models``."""

from __future__ import annotations

from typing import Any

import attrs

from ..queries import ModelFit
from ..registry import Registry
from .blocks import Table, render_text
from .display import display_number, signed


def models_json(rows: list[ModelFit]) -> list[dict[str, Any]]:
    result = []
    for row in rows:
        data = attrs.asdict(row)
        data["verdict"] = {"id": row.verdict.id, "label": row.verdict.label} \
            if row.verdict else None
        result.append(data)
    return result


def _billions(value: float | None) -> str:
    return "n/a" if value is None else f"{display_number(value / 1e9, 1)}B"


def render_models(registry: Registry, rows: list[ModelFit], hardware: str | None) -> str:
    if not rows:
        return "no models match"
    if hardware is None:
        table = Table(("Model", "Id", "Family", "Params", "Active"),
                      tuple((r.name, r.model, r.family, _billions(r.params_total),
                             _billions(r.params_active)) for r in rows), right=(3, 4))
        return render_text([table]).rstrip() + f"\n{len(rows)} models"
    table = Table(("Model", "Params", "Memory", "Headroom", "Decode", "Verdict"),
                  tuple((r.name, _billions(r.params_total),
                         f"{display_number(r.total_gib, 2)} GiB",
                         f"{signed(display_number(r.headroom_gib, 2))} GiB",
                         f"~{display_number(r.decode_tps, 1)} tok/s",
                         r.verdict.label if r.verdict else "unknown") for r in rows),
                  right=(1, 2, 3, 4))
    title = f"Models on {registry.hardware[hardware].display_name}"
    return f"{title}\n\n" + render_text([table]).rstrip() + f"\n{len(rows)} models"
