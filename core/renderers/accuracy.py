"""``fitproof validate``: the accuracy table of a profile against public measurements."""

from __future__ import annotations

from typing import Any

from ..views.results import Accuracy
from .blocks import Heading, Paragraph, Table, render_markdown, render_text


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f} %"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def accuracy_blocks(result: Accuracy) -> list[Any]:
    headers = ("metric", *result.group_by, "rows", "MAPE", "median APE", "median pred/meas")
    rows = tuple((*group.group, str(group.count) + (f" (+{group.unknown} n/a)"
                                                     if group.unknown else ""),
                  _percent(group.mape), _percent(group.median_ape), _ratio(group.median_ratio))
                 for group in result.groups)
    worst = tuple((s.row.metric, s.row.model, s.row.hardware, s.row.quant,
                   f"{s.predicted:.1f}" if s.predicted is not None else "n/a",
                   f"{s.row.value:g}", _ratio(s.ratio), s.location)
                  for s in result.worst())
    right = tuple(range(len(result.group_by) + 1, len(headers)))
    apart = [Paragraph(
        f"Scored apart, outside the modelled workload: {group.count} {group.group[0]} rows of "
        f"{group.group[1]}; MAPE {_percent(group.mape)}, median APE "
        f"{_percent(group.median_ape)}, median pred/meas {_ratio(group.median_ratio)}.")
        for group in result.outside]
    held_out = []
    for engine, scores in result.held_out:
        held_out += [
            Heading(f"On devices left out of the fit ({engine})"),
            Paragraph(f"The {engine} speed constants, fitted without each row's device: "
                      f"{scores.source}."),
            Table(("metric", "group", "rows", "MAPE", "median APE", "median pred/meas"),
                  tuple((g.metric, g.group, str(g.rows), _percent(g.mape),
                         _percent(g.median_ape), _ratio(g.median_ratio))
                        for g in scores.groups), (2, 3, 4, 5))]
    return [
        Heading(f"Accuracy of the {result.profile or 'default'} profile against "
                f"{len(result.rows)} public measurements", 1),
        Table(headers, rows, right),
        *apart,
        *held_out,
        Heading("Worst cases"),
        Table(("metric", "model", "hardware", "quant", "predicted", "measured", "pred/meas",
               "row"), worst, (4, 5, 6)),
        Paragraph("Each row cites its source; fitproof explain decode_tps (or prefill_tps) on "
                  "the row's scenario shows how the prediction was made. The first table scores "
                  "the shipped constants on the rows they were fitted to (in-sample); the "
                  "held-out table, which python benchmarks/fit_speed.py recomputes and writes "
                  "into the engine pack, scores them on devices left out of the fit."),
    ]


def render_accuracy_text(result: Accuracy) -> str:
    return render_text(accuracy_blocks(result))


def render_accuracy_markdown(result: Accuracy) -> str:
    return render_markdown(accuracy_blocks(result))


def accuracy_json(result: Accuracy) -> dict[str, Any]:
    return {
        "profile": result.profile,
        "group_by": list(result.group_by),
        "groups": [{"group": list(g.group), "count": g.count, "unknown": g.unknown,
                    "mape": g.mape, "median_ape": g.median_ape, "median_ratio": g.median_ratio}
                   for g in result.groups],
        "outside": [{"metric": g.group[0], "reason": g.group[1], "count": g.count,
                     "unknown": g.unknown, "mape": g.mape, "median_ape": g.median_ape,
                     "median_ratio": g.median_ratio} for g in result.outside],
        "held_out": [{"engine": engine, "profile": scores.profile, "source": scores.source,
                      "groups": [{"metric": g.metric, "group": g.group, "count": g.rows,
                                  "mape": g.mape, "median_ape": g.median_ape,
                                  "median_ratio": g.median_ratio} for g in scores.groups]}
                     for engine, scores in result.held_out],
        "rows": [{"model": s.row.model, "hardware": s.row.hardware, "quant": s.row.quant,
                  "engine": s.row.engine, "backend": s.row.backend, "metric": s.row.metric,
                  "context": s.row.context, "prompt": s.row.prompt, "generate": s.row.generate,
                  "measured": s.row.value, "predicted": s.predicted, "ratio": s.ratio,
                  "source": s.row.source, "row": s.location, "outside": s.outside}
                 for s in result.rows],
    }
