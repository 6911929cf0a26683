"""``fitproof calibrate``: the calibrated profile written, and the held-out error of the
shipped and the refitted constants on the same rows."""

from __future__ import annotations

from typing import Any

from ..views.results import CalibrationView

HEADER = ("engine      metric       rows on       constants     rows    MAPE  median APE  "
          "median pred/meas\n"
          "----------  -----------  ------------  ----------  ------  ------  ----------  "
          "----------------")


SINGLE_STREAM = ("decode_tps", "prefill_tps")


def render_calibration_text(view: CalibrationView) -> str:
    rows = ", ".join(f"{view.rows.get(m, 0)} {m} rows ({view.user_rows.get(m, 0)} yours)"
                     for m in view.rows)
    lines = [f"Calibrated profile {view.profile!r} (extends {view.extends}): wrote {view.path}",
             f"Refitted {', '.join(view.engines)} on {rows}.", *view.notes, ""]
    metrics = {s.metric for s in view.scores}
    if metrics & set(SINGLE_STREAM) or not metrics:
        lines.append(
            "Held-out error: fitted on half the devices of each backend, scored on the other "
            f"half, and the other way round; {view.repeats} such split"
            f"{'s' if view.repeats != 1 else ''}, pooled. 'shipped': fitted on the shipped "
            "rows of each half; 'calibrated': on the shipped rows and yours. 'yours-in-fit': "
            "your rows, not held out, by the constants fitted on every row.")
    if metrics - set(SINGLE_STREAM):
        lines.append(
            "Held-out error of the serving metrics: each device left out in turn, the "
            "constants fitted on the other devices' rows (benchmarks/fit_serving.py's "
            "cross-validation). 'shipped': fitted on the shipped rows (or, for an engine "
            "whose shipped rows are on too few devices, the figures its pack borrows); "
            "'calibrated': on the shipped rows and yours. 'yours-in-fit': your rows, not "
            "held out, by the constants fitted on every row.")
    lines.append(HEADER)
    for s in view.scores:
        lines.append(f"{s.engine:10s}  {s.metric:11s}  {s.group:12s}  {s.constants:10s}  "
                     f"{s.rows:6d}  {100 * s.mape:4.1f} %  {100 * s.median_ape:8.1f} %  "
                     f"{s.median_ratio:16.2f}")
    lines += ["", f"Use it: fitproof estimate MODEL --on HW --profile {view.profile}"]
    return "\n".join(lines) + "\n"


def calibration_json(view: CalibrationView) -> dict[str, Any]:
    return {"profile": view.profile, "extends": view.extends, "path": view.path,
            "engines": list(view.engines), "rows": dict(view.rows),
            "user_rows": dict(view.user_rows), "repeats": view.repeats,
            "notes": list(view.notes),
            "held_out": [{"engine": s.engine, "metric": s.metric, "constants": s.constants,
                          "group": s.group, "rows": s.rows, "mape": s.mape,
                          "median_ape": s.median_ape, "median_ratio": s.median_ratio}
                         for s in view.scores]}
