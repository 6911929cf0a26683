"""Renderers of ``explain --sensitivity``: the elasticities, group by group."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.derivation import Derivation
from ..views.numbers import format_number
from ..views.results import Elasticity
from .escape import latex, markdown, markdown_code

GROUP_TITLES = {
    "hardware": "Hardware figures",
    "scenario": "Scenario inputs",
    "model": "Model and format figures",
    "constants": "Engine and formula constants",
}


def _ratio(e: Elasticity) -> str:
    return f"{e.elasticity:+.2f}"


def _value(e: Elasticity) -> str:
    unit = "" if e.unit in ("1", "") else f" {e.unit}"
    return f"{format_number(e.value)}{unit}"


def _groups(rows: Sequence[Elasticity]) -> list[tuple[str, list[Elasticity]]]:
    groups: dict[str, list[Elasticity]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    return [(GROUP_TITLES.get(g, g), found) for g, found in groups.items()]


def _headline(root: Derivation, rows: Sequence[Elasticity]) -> str:
    first = rows[0]
    return (f"{root.name} moves {abs(first.elasticity):.2f}:1 with {first.name} here "
            f"({'the same way' if first.elasticity > 0 else 'the opposite way'}: 1 % more "
            f"{first.name} gives {first.elasticity:+.2f} % {root.name})")


def render_text(root: Derivation, rows: Sequence[Elasticity]) -> str:
    """A ranked table per group: elasticity, the leaf's value and where it is written."""
    lines = ["", f"Sensitivity of {root.name}: d ln {root.name} / d ln x at this scenario"]
    if not rows:
        lines.append("  no figure or input moves it (it is constant here)")
        return "\n".join(lines)
    lines.append(f"  {_headline(root, rows)}")
    width = max(len(r.name) for r in rows)
    for title, group in _groups(rows):
        lines.append(f"  {title}")
        lines.extend(f"    {r.name:<{width}}  {_ratio(r):>6}  {_value(r):<22} {r.at}"
                     for r in group)
    return "\n".join(lines)


def render_markdown(root: Derivation, rows: Sequence[Elasticity]) -> str:
    lines = ["", f"**Sensitivity of {markdown_code(root.name)}** (d ln {markdown(root.name)} "
             "/ d ln x)", ""]
    if not rows:
        return "\n".join([*lines, "No figure or input moves it here.", ""])
    lines += [markdown(_headline(root, rows), opens_line=True) + ".", "",
              "| group | name | elasticity | value | source |", "|---|---|---:|---:|---|"]
    for title, group in _groups(rows):
        lines.extend(f"| {markdown(title)} | {markdown_code(r.name, table=True)} | {_ratio(r)} "
                     f"| {markdown(_value(r))} | {markdown_code(str(r.at), table=True)} |"
                     for r in group)
    return "\n".join(lines) + "\n"


def render_latex(root: Derivation, rows: Sequence[Elasticity]) -> str:
    body = "".join(f"  \\texttt{{{latex(r.name)}}} & {_ratio(r)} & "
                   f"{latex(_value(r))} \\\\\n" for r in rows)
    return ("\\begin{tabular}{lrr}\n"
            f"  \\multicolumn{{3}}{{l}}{{Sensitivity of \\texttt{{{latex(root.name)}}}}}"
            " \\\\\n  name & elasticity & value \\\\\n  \\hline\n"
            f"{body}\\end{{tabular}}\n")


def to_list(rows: Sequence[Elasticity]) -> list[dict[str, Any]]:
    """JSON-ready rows, in the order shown."""
    return [{"name": r.name, "elasticity": r.elasticity, "value": r.value, "unit": r.unit,
             "group": r.group, "kind": r.kind, "source": str(r.at)} for r in rows]
