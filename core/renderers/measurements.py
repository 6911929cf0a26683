"""``fitproof measurements``: the measurement rows of a model, device, format or engine,
each beside the profile's prediction for the run as measured."""

from __future__ import annotations

from typing import Any

from ..views.results import MeasurementsView
from .display import significant

_UNITS = {"decode_tps": "tok/s", "prefill_tps": "tok/s", "output_tps": "tok/s",
          "total_tps": "tok/s", "tpot_ms": "ms", "ttft_ms": "ms"}


def _setup(setup: Any) -> str:
    parts = [setup["model"], "on", f"{setup['gpus']}x {setup['hardware']}"
             if setup["gpus"] > 1 else setup["hardware"], setup["quant"], setup["engine"]]
    if setup["backend"]:
        parts.append(setup["backend"])
    if setup["kv"] != "f16":
        parts.append(f"KV {setup['kv']}")
    if setup["batch"] > 1:
        parts.append(f"{setup['batch']} in flight")
    return " ".join(parts[:3]) + " · " + " · ".join(parts[3:])


def _run(prompt: int, generate: int | None, metric: str) -> str:
    if generate is None:
        return f"pp{prompt}"
    if metric == "decode_tps":
        return f"tg{generate} @ {prompt}"
    return f"{prompt} -> {generate}"


def render_measurements_text(view: MeasurementsView) -> str:
    """A table per setup: metric, run, measured, predicted, their ratio, build or date, row."""
    if not view.runs:
        wanted = ", ".join(f"{k} {v}" for k, v in view.filters.items() if v) or "any"
        return f"no measurement rows of {wanted}"
    lines: list[str] = []
    current = None
    for setup, run in view.runs:
        title = _setup(setup)
        if title != current:
            lines += ["" if lines else "", title] if lines else [title]
            lines.append(f"  {'metric':<12} {'run':<16} {'measured':>10} {'predicted':>10} "
                         f"{'pred/meas':>9}  {'build or date':<18} row")
            current = title
        ratio = (f"{run.predicted / run.value:.2f}"
                 if run.predicted is not None and run.value else "n/a")
        predicted = "unknown" if run.predicted is None else significant(run.predicted)
        build = ", ".join(x for x in (run.engine_version, run.date) if x) or "unstated"
        lines.append(f"  {run.metric:<12} {_run(run.prompt, run.generate, run.metric):<16} "
                     f"{significant(run.value):>10} {predicted:>10} {ratio:>9}  {build:<18} "
                     f"{run.location}{' (scored apart)' if run.apart else ''}")
    count = len(view.runs)
    lines += ["", f"{count} row{'s' if count != 1 else ''}; units: tok/s for throughputs, ms "
                  "for TTFT and TPOT; pred/meas is the profile's figure for the run over the "
                  "measurement"]
    return "\n".join(lines)


def measurements_json(view: MeasurementsView) -> list[dict[str, Any]]:
    """One object per row: its setup, then the run's fields."""
    return [{**setup, **run.to_dict(), "unit": _UNITS.get(run.metric, "")}
            for setup, run in view.runs]
