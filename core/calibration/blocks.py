"""The YAML of an engine's fitted block: every constant with the rows it was fitted on and
its residual, the error bands and the held-out scores (``fitproof validate`` prints them)."""

from __future__ import annotations

import math

import numpy as np

from .crossval import REPEATS, SOURCE_REPEATS, Bands, Stats
from .fit import HOST_BACKEND, Fit
from .layout import MOE, OPS, REFERENCE_MEMORY, TERM_ROWS, TERM_TEXT, Layout
from .rows import Array, Data

COMMAND = "python benchmarks/fit_speed.py"  # what made the figures, as their sources say
PROFILE = "measured"  # the profile whose formulas these constants are fitted for


def significant(value: float, digits: int = 4) -> float:
    if value == 0:
        return 0.0
    return float(f"{value:.{digits}g}")


def pack_block(engine: str, fit: Fit, data: Data, held: dict[str, Array], bands: Bands,
               scores: list[tuple[str, str, Stats]], *, command: str = COMMAND,
               repeats: int = REPEATS, source_repeats: int = SOURCE_REPEATS,
               profile: str = PROFILE) -> str:
    """The YAML of the fitted block of engine ``engine``; ``scores`` are the held-out
    (metric, group, stats) that fitproof validate prints from it."""
    lines: list[str] = []
    script = command.removeprefix("python ")
    sources = sorted({item["location"].split(":")[0] for rows in data.values() for item in rows.items})

    def rows_text(metric: str, backend: str | None = None, kernel: str | None = None,
                  memory: str | None = None, term: str | None = None) -> tuple[int, str]:
        rows = data[(engine, metric)]
        mask = np.ones(rows.n, dtype=bool)
        if term is not None:  # the rows a term only some rows have informs
            mask &= TERM_ROWS[term](rows)
        if metric == "decode_tps":
            mask &= rows.gpu_share >= 1
        if metric == "prefill_tps":
            mask &= np.isfinite(rows.prefill_peak_tflops)
        if backend is not None:
            mask &= np.array([b == backend for b in rows.backend])
        if kernel is not None:
            mask &= np.array([k == kernel for k in rows.kernel])
        if memory is not None:
            mask &= np.array([m == memory for m in rows.memory])
        predicted = fit.predict(rows, metric)
        residual = np.log(predicted[mask] / rows.value[mask])
        rms = float(np.sqrt(np.mean(residual ** 2))) if mask.any() else math.nan
        return int(mask.sum()), f"RMS log residual {rms:.3f}"

    def figure(key: str, value: float, metric: str, backend: str | None, kernel: str | None,
               what: str, memory: str | None = None) -> list[str]:
        count, residual = rows_text(metric, backend, kernel, memory)
        which = [f"{metric} rows of {engine}"]
        if backend:
            which.append(f"on {backend} devices")
        if kernel:
            which.append(f"with {kernel} weights")
        if memory:
            which.append(f"on {memory} memory")
        source = (f"fit: {command} over the {count} {' '.join(which)} in "
                  + ", ".join(sources) + " (fitted jointly with the other constants)")
        return [f"    value: {significant(value)}", f'    source: "{source}"',
                f'    note: "{what}; {residual} over those rows"', "    approximate: true"]

    def keyed(key: str, layout: Layout, theta: Array, metric: str, by: str) -> None:
        lines.append(f"{key}:")
        if by == "backend":
            for backend in layout.backends:
                if backend == "default":
                    continue
                lines.append(f"  {backend}:")
                body = figure(key, math.exp(theta[layout.index[(key, backend)]]), metric,
                              backend, None, "fitted")
                lines.extend(body)
            lines.append("  default:")
            value = fit.default_backend(layout, theta, key)
            count, _ = rows_text(metric)
            lines.extend([f"    value: {significant(value)}",
                          f'    source: "fit: {command} ({count} {metric} rows of {engine})"',
                          '    note: "backends without enough measurements of their own: the row-weighted geometric mean of the fitted backends\' figures"'
                          if "default" not in layout.backends else
                          '    note: "fitted on the rows of backends with too few measurements of their own"',
                          "    approximate: true"])
        elif by == "memory":
            for family in layout.memories:
                lines.append(f"  {family}:")
                lines.extend(figure(key, math.exp(theta[layout.index[(key, family)]]), metric,
                                    None, None, f"fitted, relative to {REFERENCE_MEMORY}", family))
            lines.append(f"  {REFERENCE_MEMORY}:")
            lines.extend(["    value: 1.0",
                          f'    source: "fit: {command} (the reference family)"',
                          f'    note: "the other families\' factors are relative to {REFERENCE_MEMORY}"'])
            lines.append("  default:")
            lines.extend(["    value: 1.0",
                          f'    source: "fit: {command}"',
                          '    note: "families without enough measurements on two devices, and devices whose pack names none: no factor"'])
        else:
            for kernel in layout.kernels:
                lines.append(f"  {kernel}:")
                body = figure(key, math.exp(theta[layout.index[(key, kernel)]]), metric, None,
                              kernel, "fitted")
                lines.extend(body)
            lines.append("  default:")
            lines.extend([f"    value: {significant(fit.default_kernel(layout, theta))}",
                          f'    source: "fit: {command}"',
                          '    note: "kernel families without enough measurements: the row-weighted geometric mean of the fitted families\' factors"',
                          "    approximate: true"])

    def sparse_block(key: str, layout: Layout, theta: Array) -> None:
        """A term only some rows have (OPS, MOE): a figure for each backend with such rows."""
        if not layout.sparse_backends.get(key):
            return
        lines.append(f"{key}:")
        for backend in layout.sparse_backends[key]:
            count, residual = rows_text("decode_tps", backend, term=key)
            lines.extend([f"  {backend}:",
                          f"    value: {significant(layout.sparse(theta, key, backend))}",
                          f'    source: "fit: {command} over the {count} '
                          f'decode_tps rows of {engine} on {backend} devices {TERM_TEXT[key]}, in '
                          + ", ".join(sources) + '"',
                          f'    note: "fitted jointly with the other constants; {residual} over those rows"',
                          "    approximate: true"])
        count, _ = rows_text("decode_tps", term=key)
        lines.extend(["  default:", f"    value: {significant(layout.sparse(theta, key, 'default'))}",
                      f'    source: "fit: {command} ({count} decode_tps rows of '
                      f'{engine} on devices {TERM_TEXT[key]})"',
                      '    note: "backends without such rows: the row-weighted geometric mean of the '
                      'fitted backends\' figures"',
                      "    approximate: true"])

    def shared(layout: Layout, theta: Array, metric: str) -> None:
        """Figures fitted once for every backend."""
        for key in layout.shared:
            value = math.exp(theta[layout.index[(key, "default")]])
            count, residual = rows_text(metric)
            source = (f"fit: {command} over the {count} {metric} rows of "
                      f"{engine} in " + ", ".join(sources))
            entry = [f"value: {significant(value)}", f'source: "{source}"',
                     f'note: "fitted, one figure for every backend; {residual}"',
                     "approximate: true"]
            lines.append(f"{key}:")
            lines.extend("  " + line for line in entry)

    if fit.prefill is not None:
        shared(fit.prefill, fit.prefill_theta, "prefill_tps")
        keyed("prefill_compute_efficiency", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
        keyed("prefill_kernel_factor", fit.prefill, fit.prefill_theta, "prefill_tps", "kernel")
        keyed("prefill_attention_efficiency", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
        keyed("prefill_expert_efficiency", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
        keyed("prefill_ceiling_tflops", fit.prefill, fit.prefill_theta, "prefill_tps", "backend")
    if fit.decode is not None:
        keyed("decode_bandwidth_efficiency", fit.decode, fit.decode_theta, "decode_tps", "backend")
        keyed("decode_kernel_factor", fit.decode, fit.decode_theta, "decode_tps", "kernel")
        keyed("decode_memory_factor", fit.decode, fit.decode_theta, "decode_tps", "memory")
        keyed("kv_read_efficiency", fit.decode, fit.decode_theta, "decode_tps", "backend")
        keyed("decode_token_overhead_s", fit.decode, fit.decode_theta, "decode_tps", "backend")
        keyed("decode_layer_overhead_s", fit.decode, fit.decode_theta, "decode_tps", "backend")
        shared(fit.decode, fit.decode_theta, "decode_tps")
        sparse_block(OPS, fit.decode, fit.decode_theta)
        sparse_block(MOE, fit.decode, fit.decode_theta)
        count, residual = rows_text("decode_tps", HOST_BACKEND)
        own = HOST_BACKEND in fit.decode.backends
        lines.append("host_bandwidth_efficiency:")
        lines.append(f"  {HOST_BACKEND if own else 'default'}:")
        where = ", ".join(sources)
        source = (f"fit: decode_bandwidth_efficiency of the {HOST_BACKEND} backend, {command} "
                  f"over the {count} decode_tps rows of {engine} run on a "
                  f"CPU alone in {where}" if own else
                  f"no CPU rows: the default backend figure ({script})")
        note = ("the engine's CPU path reads offloaded weights as it reads them when it runs on "
                f"the CPU alone; {residual} over those rows")
        lines.extend([f"    value: {significant(fit.host_efficiency())}", f'    source: "{source}"',
                      f'    note: "{note}"', "    approximate: true"])
    for metric, prefix in (("decode_tps", "decode"), ("prefill_tps", "prefill")):
        if metric not in bands:
            continue
        for side, index, q in (("low", 0, "10th"), ("high", 1, "90th")):
            lines.append(f"{prefix}_band_{side}:")
            for backend, (values, count) in sorted(bands[metric].items()):
                lines.append(f"  {backend}:")
                lines.append(f"    value: {significant(values[index], 3)}")
                lines.append(f'    source: "fit: {command}, the {q} percentile of measured / predicted over {count} held-out {metric} rows of {engine}'
                             + (f" on {backend} devices" if backend != "default" else "") + f' (2-fold cross-validation by device, {repeats} splits pooled)"')
                lines.append("    approximate: true")
    by_source = (f' (groups by-source: the rows of half the pages, {source_repeats} splits)'
                 if source_repeats else "")
    lines.extend(["held_out_accuracy:", f"  profile: {profile}",
                  f'  source: "{command}: fitted on half the devices of each '
                  f'backend, scored on the other half and the other way round, {repeats} device '
                  f'splits pooled{by_source}"', "  groups:"])
    for metric, group, (count, mape, median, ratio) in scores:
        lines.append(f"    - {{metric: {metric}, group: {group}, rows: {count}, "
                     f"mape: {significant(mape)}, median_ape: {significant(median)}, "
                     f"median_ratio: {significant(ratio)}}}")
    return "\n".join(lines)
