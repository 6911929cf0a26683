"""The YAML of a serving engine's fitted block: every constant with the rows it was fitted
on and its residual, the output band and the held-out scores (``fitproof validate`` prints
them); and the block an engine without rows enough borrows from SERVING_DONOR."""

from __future__ import annotations

import math
import re

import attrs
import numpy as np

from ..specs import EngineSpec
from .blocks import PROFILE, significant
from .engine_packs import DONOR, SERVING_BEGIN, SERVING_END
from .rows import Array
from .serving_fit import MIN_DEVICES, SERVING_DONOR, ServingFit
from .serving_model import KERNEL_KEY, SCALARS
from .serving_rows import ServingRows

COMMAND = "python benchmarks/fit_serving.py"  # what made the figures, as their sources say
WHERE = "packs/measurements/"  # the rows they were fitted on


def keyed_fields() -> set[str]:
    """The engine fields keyed by backend (or another key): written as maps."""
    return {field.name for field in attrs.fields(EngineSpec)
            if isinstance(field.default, attrs.Factory)}  # type: ignore[arg-type]


def scores(rows: ServingRows, r: Array, group: str) -> list[str]:
    """held_out_accuracy entries (fitproof validate prints them) for the ratios ``r``."""
    out = []
    for metric in sorted(set(rows.metric)):
        mask = rows.of_metric(metric) & np.isfinite(r)
        if not mask.any():
            continue
        ape = np.abs(r[mask] - 1)
        out.append(f"    - {{metric: {metric}, group: {group}, rows: {int(mask.sum())}, "
                   f"mape: {significant(float(ape.mean()))}, "
                   f"median_ape: {significant(float(np.median(ape)))}, "
                   f"median_ratio: {significant(float(np.median(r[mask])))}}}")
    return out


def serving_block(engine: str, rows: ServingRows, fitted: ServingFit, r: Array,
                  by_device: Array, by_source: Array | None, *, command: str = COMMAND,
                  where: str = WHERE, profile: str = PROFILE) -> str:
    """The serving block of ``engine`` (without its BEGIN and END lines): every constant
    fitted on ``rows`` (``r`` their in-sample ratios) with its rows and residual, and the
    held-out scores, by device and (unless ``by_source`` is None) by page."""
    layout, theta = fitted
    script = command.removeprefix("python ")
    devices = ", ".join(sorted(set(rows.hardware)))
    pages = len(set(rows.source))
    rms = math.sqrt(float(np.mean(np.log(r) ** 2)))
    source = (f"fit: {script} over the {rows.n} rows of {engine} in "
              f"{where} (serving runs and single streams on {devices}; "
              f"{pages} pages)")
    note = (f"RMS log residual {rms:.3f} over those rows; fitted on {layout.backend} devices "
            "and used on every backend, for want of rows elsewhere")
    keyed = keyed_fields()
    lines: list[str] = []
    for i, (key, _, prior) in enumerate(SCALARS):
        value = significant(math.exp(theta[i]))
        why = note if not prior else f"{note}; pulled towards {DONOR}'s figure (PRIOR_LOG_SD)"
        figure = [f"value: {value}", f"source: \"{source}\"", f"note: \"{why}\"",
                  "approximate: true"]
        if key in keyed:
            lines += [f"{key}:", "  default:"] + [f"    {line}" for line in figure]
        else:
            lines += [f"{key}:"] + [f"  {line}" for line in figure]
    factors = layout.kernel_factors(theta)
    lines.append(f"{KERNEL_KEY}:")
    for kernel in sorted(factors):
        count = sum(1 for k in rows.kernel if k == kernel)
        why = ("the reference family (most rows)" if kernel == layout.reference else
               "the geometric mean of the fitted families" if kernel == "default"
               else f"fitted on its {count} rows")
        lines += [f"  {kernel}:", f"    value: {significant(factors[kernel])}",
                  f"    source: \"{source}\"", f"    note: \"{why}; {note}\"",
                  "    approximate: true"]
    output = rows.of_metric("output_tps") & np.isfinite(by_device)
    if output.any():
        measured_over_predicted = 1 / by_device[output]
        for edge, q in (("low", 10), ("high", 90)):
            lines += [f"output_band_{edge}:",
                      f"  value: {significant(float(np.percentile(measured_over_predicted, q)), 3)}",
                      f"  source: \"fit: {command}, the {q}th percentile of "
                      f"measured / predicted over {int(output.sum())} output_tps rows of {engine} "
                      "held out by device\"", "  approximate: true"]
    by_page = (" or without each row's page (group by-source)" if by_source is not None
               else "")
    lines += ["held_out_accuracy:", f"  profile: {profile}",
              f"  source: \"{command}: fitted without each row's device "
              f"(group by-device){by_page}\"",
              "  groups:"]
    lines += scores(rows, by_device, "by-device")
    if by_source is not None:
        lines += scores(rows, by_source, "by-source")
    return "\n".join(lines)


def pack_serving_block(body: str) -> str:
    """``body`` between the BEGIN and END lines the engine pack holds it in."""
    return (f"{SERVING_BEGIN}: written by `{COMMAND} --write`; do not edit by hand\n"
            f"{body}\n{SERVING_END}\n")


def borrowed(text: str, engine: str) -> str:
    """SERVING_DONOR's serving block (with its BEGIN and END lines) for ``engine``: its
    constants, each saying whose they are, without its held-out scores (which are of its
    rows)."""
    text = text.split("held_out_accuracy:")[0] + SERVING_END + "\n"
    text = re.sub(r'source: "[^"]*"', f'source: "too few serving rows of {engine} in '
                  f'packs/measurements/ for a fit of its own (a fit needs rows on '
                  f'{MIN_DEVICES} devices): the figure fitted for {SERVING_DONOR} '
                  '(benchmarks/fit_serving.py) stands in"', text)
    return re.sub(r'note: "[^"]*"', 'note: "an assumption until rows of '
                  f'{engine} on {MIN_DEVICES} devices are added and refitted: both batch requests '
                  'continuously with chunked prefill on the same devices\' kernels"', text)
