"""Rendering for ``fitproof models``."""

from __future__ import annotations

from typing import Any

import dataclasses

from ..views.results import ModelsView
from .blocks import Block, Heading, Paragraph, Table, render_text
from .display import display_number, signed


def models_json(view: ModelsView) -> list[dict[str, Any]]:
    result = []
    for row in view.rows:
        data = dataclasses.asdict(row)
        data["verdict"] = {"id": row.verdict.id, "label": row.verdict.label} \
            if row.verdict else None
        result.append(data)
    return result


def _billions(value: float | None) -> str:
    return "n/a" if value is None else f"{display_number(value / 1e9, 1)}B"


def _table(view: ModelsView) -> Table:
    rows = view.rows
    if view.hardware_name is None:
        return Table(("Model", "Id", "Family", "Params", "Active"),
                     tuple((r.name, r.model, r.family, _billions(r.params_total),
                            _billions(r.params_active)) for r in rows), right=(3, 4))
    return Table(("Model", "Params", "Memory", "Headroom", "Decode", "Verdict"),
                 tuple((r.name, _billions(r.params_total),
                        f"{display_number(r.total_gib, 2)} GiB",
                        f"{signed(display_number(r.headroom_gib, 2))} GiB",
                        f"~{display_number(r.decode_tps, 1)} tok/s",
                        r.verdict.label if r.verdict else "unknown") for r in rows),
                 right=(1, 2, 3, 4))


def _title(view: ModelsView) -> str | None:
    return None if view.hardware_name is None else f"Models on {view.hardware_name}"


def models_blocks(view: ModelsView) -> list[Block]:
    """The models as a heading (on hardware) and one table."""
    title = _title(view)
    heading: list[Block] = [] if title is None else [Heading(title, 1)]
    return [*heading, _table(view), Paragraph(f"{len(view.rows)} models")]


def render_models(view: ModelsView) -> str:
    if not view.rows:
        return "no models match"
    text = render_text([_table(view)]).rstrip() + f"\n{len(view.rows)} models"
    title = _title(view)
    return text if title is None else f"{title}\n\n{text}"
