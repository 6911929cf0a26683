"""Rendering for ``fitproof sweep``: CSV and JSON Lines (one row per scenario, values as
computed) and an aligned table for a terminal. Parquet, the one binary form, is
``core/api/parquet.py``."""

from __future__ import annotations

import json
import math
from typing import Any

from ..views.results import SweepView
from .blocks import Table, render_text
from .display import display_number


def _rows(view: SweepView) -> Any:
    columns = [view.data[name] for name in view.columns]
    return zip(*columns)


def _csv_cell(value: Any) -> str:
    """One CSV field: a number as Python writes it (shortest exact form), an unknown value
    empty, text quoted when it holds a comma, a quote or a line break (RFC 4180)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    text = str(value)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def sweep_csv(view: SweepView) -> str:
    """A header line (quantities carry their unit: ``total_gib [GiB]``), then one line per
    scenario; an unknown value is an empty cell."""
    header = [_csv_cell(f"{n} [{view.units[n]}]" if view.units.get(n) else n)
              for n in view.columns]
    cells = [[_csv_cell(v) for v in view.data[name]] for name in view.columns]
    return "\n".join(",".join(row) for row in (header, *zip(*cells))) + "\n"


def sweep_jsonl(view: SweepView) -> str:
    """One JSON object per scenario, keyed by column name."""
    rows = zip(*(view.plain(name) for name in view.columns))  # JSON has no NaN: null
    return "".join(json.dumps(dict(zip(view.columns, row)), ensure_ascii=False) + "\n"
                   for row in rows)


def sweep_text(view: SweepView) -> str:
    """An aligned table, numbers to two decimals."""
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return display_number(value if math.isfinite(value) else None, 2)
        return "" if value is None else str(value)

    numeric = tuple(i for i, name in enumerate(view.columns)
                    if any(isinstance(v, (int, float)) for v in view.data[name][:1000]))
    table = Table(tuple(view.columns), tuple(tuple(cell(v) for v in row) for row in _rows(view)),
                  right=numeric)
    return render_text([table])
