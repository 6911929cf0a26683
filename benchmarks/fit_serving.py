"""Fit the serving engines' speed constants to public serving benchmarks, and cross-validate.

vLLM and SGLang run many requests at once. The measured profile
(packs/formulas/measured-throughput.yaml) predicts, for a run of prompts of I tokens and
answers of O tokens with R requests running at once (the concurrency, capped by the KV
cache and the engine's max_num_seqs):

    prompt token   p = 2 x (dense + routed-expert parameters / epsilon) / (F mu psi_k)
                       + attention FLOPs / (F alpha) + 2 x parameters / C   (one device)
    decode step    memory = weight bytes / (eta phi_k rho_m BW) + KV bytes / (kappa rho_m BW)
                   compute = R x p / TP
                   extra = all-reduce + t0 + tau x layers + sigma x MoE layers
    chunk tokens   P = min((R - 1) x I / O, token budget - R)
    TPOT           max(memory, compute + P x p / TP) + extra
    TTFT           chunks x (max(memory, compute + I / chunks x p / TP) + extra)
                   + the wait for queued prompts when the budget binds
    output tok/s   R x O / (TTFT + (O - 1) x TPOT)

with BW the peak memory bandwidth and F the peak dense rate of the device (as
benchmarks/fit_speed.py; phi_k and rho_m, the kernel family's and memory family's decode
factors, are llama.cpp's, which the rows here, all on HBM, cannot separate). This script

1. evaluates every serving row of packs/measurements/ (and the engine's single-stream rows)
   with fitproof, for everything but the constants;
2. fits eta, kappa, t0, tau, sigma, mu, alpha, epsilon, C (the prompt rate's ceiling) and psi_k (kernel families with at
   least MIN_KERNEL_ROWS rows; the others get their row-weighted geometric mean) of each
   engine with rows on MIN_DEVICES devices, by robust least squares on log(predicted /
   measured); an engine with rows on fewer borrows SERVING_DONOR's figures and its rows
   score them, as rows of an engine the figures were not fitted on;
3. cross-validates twice: leaving out each device, and leaving out each source (a page and
   its rows share their quirks);
4. with --write, writes the constants fitted on every row into the serving block of each
   engine pack, each figure naming its rows and residual, and checks that fitproof's formulas
   reproduce this script's predictions.

The constants this block holds replace, for the engine, the ones benchmarks/fit_speed.py
lends it from llama.cpp (fit_speed.py leaves them out of the borrowed block).

Run: python benchmarks/fit_serving.py [--write] [--check] [--rows]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fitproof  # noqa: E402
from fitproof.accuracy import measurement_scenarios, outside_model  # noqa: E402
from fitproof.estimation import Batch  # noqa: E402
# a page's site (its pages share one benchmark setup, so they are not independent sources)
# is the measurement pack serving_rows.py files it in, one per site
from serving_rows import pack_of  # noqa: E402

PROFILE = "measured"
ENGINES = ("vllm", "sglang")
SERVING = ("output_tps", "total_tps", "tpot_ms", "ttft_ms")
METRICS = SERVING + ("decode_tps", "prefill_tps")
MIN_KERNEL_ROWS = 8
# an engine fits constants of its own on rows from this many devices: on two, each
# held-out fit sees a single device, whose overheads and prompt rates trade freely against
# each other (SGLang's rows on B200 and MI300X alone put its prompt ceiling at 44 TFLOP/s,
# a fifth of vLLM's); with fewer, it is scored with SERVING_DONOR's figures
MIN_DEVICES = 3
LOSS_SCALE = 0.1
COLUMNS = ("decode_weights_gib", "kv_read_gib", "kv_replication", "decode_bandwidth_gbs",
           "decode_memory_factor", "allreduce_s", "params_compute_per_token",
           "prefill_expert_params", "prefill_peak_tflops", "prefill_attention_flops",
           "tensor_parallel", "pipeline_speedup", "running_sequences", "prompt", "generate",
           "ubatch_tokens", "batch", "arrival", "decode_arithmetic_s")
KERNEL_FACTOR = "decode_kernel_factor"  # llama.cpp's, read per row from the engine pack
# the constants of the serving block: (key, is a share of at most 1, pulled towards DONOR's)
SCALARS = (("decode_bandwidth_efficiency", True, True), ("kv_read_efficiency", True, True),
           ("decode_token_overhead_s", False, True), ("decode_layer_overhead_s", False, True),
           ("decode_moe_layer_overhead_s", False, True), ("prefill_compute_efficiency", True, True),
           ("prefill_attention_efficiency", True, True), ("prefill_expert_efficiency", True, True),
           ("prefill_ceiling_tflops", False, True),
           ("sequence_overhead_s", False, False), ("request_overhead_s", False, False))
DONOR = "llama.cpp"  # the engine whose figures, fitted on its many rows, the prior pulls towards
# where the terms no other engine has start (they have no prior: the rows decide them)
FREE_START = {"sequence_overhead_s": 1e-5, "request_overhead_s": 1e-3}
KERNEL_KEY = "prefill_kernel_factor"
PRIOR_LOG_SD = 1.0  # each constant's pull towards its start (a weak prior, in log)
BLOCK_BEGIN = "# BEGIN fitted serving constants"
BLOCK_END = "# END fitted serving constants"


class Rows:
    """One engine's rows, as arrays of what fitproof computes for their scenarios."""

    def __init__(self, items: list[dict]):
        self.items = items
        self.n = len(items)
        for name in COLUMNS + ("value", "layers", "moe_layers", "phi"):
            setattr(self, name, np.array([item[name] for item in items], dtype=float))
        self.metric = [item["metric"] for item in items]
        self.kernel = [item["kernel"] for item in items]
        self.hardware = [item["hardware"] for item in items]
        self.source = [item["source"] for item in items]
        self.backend = [item["backend"] for item in items]

    def subset(self, mask) -> "Rows":
        return Rows([item for item, keep in zip(self.items, mask) if keep])


def page_of(url: str) -> str:
    """A source's page (rows of one page share its runs' quirks)."""
    return url.split("#")[0]


def load(registry, apart: bool = False) -> dict[str, Rows]:
    entries, scenarios = measurement_scenarios(registry)
    chosen = [i for i, (_, _, row) in enumerate(entries)
              if row.engine in ENGINES and row.metric in METRICS
              and bool(outside_model(registry, row)) == apart]
    batch = Batch(registry, [scenarios[i] for i in chosen])
    columns = {name: batch.values(name) for name in COLUMNS}
    by_engine: dict[str, list[dict]] = defaultdict(list)
    for k, i in enumerate(chosen):
        pack, index, row = entries[i]
        scenario = scenarios[i]
        model = registry.models[scenario.model]
        kernel = registry.quant_formats[scenario.quant][0].kernel or "float"
        engine = registry.engines[row.engine]
        phi = engine.decode_kernel_factor.get(kernel) or engine.decode_kernel_factor["default"]
        item = {name: (math.nan if columns[name][k] is None else float(columns[name][k]))
                for name in COLUMNS}
        item.update(value=row.value, metric=row.metric, kernel=kernel, phi=float(phi.value),
                    engine=row.engine,
                    layers=float(model.num_hidden_layers.value),
                    moe_layers=float(model.moe_layers.value) if model.moe_layers else 0.0,
                    hardware=scenario.hardware, model=scenario.model, quant=scenario.quant,
                    source=page_of(row.source), location=pack.pack.at("rows", index),
                    backend=scenario.backend or registry.hardware[scenario.hardware].backend
                    or "other")
        by_engine[row.engine].append(item)
    return {engine: Rows(items) for engine, items in by_engine.items()}


def donor_figure(registry, key: str, backend: str) -> float:
    """DONOR's fitted figure for ``key`` on ``backend`` (its 'default' where it has none)."""
    figure = getattr(registry.engines[DONOR], key)
    if isinstance(figure, dict) or hasattr(figure, "get"):
        figure = figure.get(backend) or figure["default"]
    return float(figure.value)


class Layout:
    """The fitted constants of one engine: the scalars, and a prompt kernel factor per
    kernel family with enough rows (the most-measured family's is 1). Each scalar DONOR
    has starts at, and is pulled towards, DONOR's figure for the rows' backend."""

    def __init__(self, rows: Rows, registry):
        counts = Counter(rows.kernel)
        fitted = [k for k, c in counts.most_common() if c >= MIN_KERNEL_ROWS]
        self.reference = fitted[0] if fitted else counts.most_common(1)[0][0]
        self.kernels = [k for k in fitted if k != self.reference]
        self.backend = Counter(rows.backend).most_common(1)[0][0]
        self.names = [key for key, _, _ in SCALARS] + [f"{KERNEL_KEY}.{k}" for k in self.kernels]
        self.start = np.log([donor_figure(registry, key, self.backend) if prior
                             else FREE_START[key] for key, _, prior in SCALARS]
                            + [1.0] * len(self.kernels))
        self.prior = np.array([prior for _, _, prior in SCALARS] + [True] * len(self.kernels))

    def constants(self, theta: np.ndarray, rows: Rows) -> dict[str, np.ndarray]:
        c = {key: np.full(rows.n, math.exp(theta[i])) for i, (key, _, _) in enumerate(SCALARS)}
        factors = self.kernel_factors(theta)
        c[KERNEL_KEY] = np.array([factors.get(k, factors["default"]) for k in rows.kernel])
        return c

    def kernel_factors(self, theta: np.ndarray) -> dict[str, float]:
        factors = {self.reference: 1.0}
        for j, kernel in enumerate(self.kernels):
            factors[kernel] = math.exp(theta[len(SCALARS) + j])
        factors["default"] = math.exp(float(np.mean(np.log(list(factors.values())))))
        return factors


def predict(rows: Rows, c: dict[str, np.ndarray]) -> np.ndarray:
    """Every row's metric as packs/formulas/measured-throughput.yaml computes it."""
    peak = rows.prefill_peak_tflops * 1e12
    params = (rows.params_compute_per_token - rows.prefill_expert_params
              + rows.prefill_expert_params / c["prefill_expert_efficiency"])
    token_s = (2 * params / (peak * c["prefill_compute_efficiency"] * c[KERNEL_KEY])
               + rows.prefill_attention_flops / (peak * c["prefill_attention_efficiency"])
               + 2 * rows.params_compute_per_token / (c["prefill_ceiling_tflops"] * 1e12))
    prefill_tps = rows.tensor_parallel * rows.pipeline_speedup / token_s
    bandwidth = rows.decode_bandwidth_gbs * 1e9 * rows.decode_memory_factor
    memory = (rows.decode_weights_gib * 2**30
              / (c["decode_bandwidth_efficiency"] * rows.phi * bandwidth)
              + rows.kv_read_gib * rows.kv_replication * 2**30
              / (c["kv_read_efficiency"] * bandwidth))
    running = rows.running_sequences
    compute = running * token_s / rows.tensor_parallel
    extra = (rows.allreduce_s + rows.decode_arithmetic_s + c["decode_token_overhead_s"]
             + c["decode_layer_overhead_s"] * rows.layers
             + c["decode_moe_layer_overhead_s"] * rows.moe_layers
             + c["sequence_overhead_s"] * running)
    prompt, generate, budget = rows.prompt, rows.generate, rows.ubatch_tokens
    decode_step = np.maximum(memory, compute) + extra
    # a closed loop: the others' prompt chunks ride in every decode step
    demand = (running - 1) * prompt / generate
    chunk = np.minimum(demand, np.maximum(budget - running, 1))
    tpot = np.maximum(memory, compute + chunk / prefill_tps) + extra
    chunks = np.ceil(prompt / budget)
    with np.errstate(divide="ignore", invalid="ignore"):
        wait = np.where(demand > chunk, (generate - 1) * tpot * (demand / chunk - 1), 0.0)
    ttft = chunks * (np.maximum(memory, compute + prompt / chunks / prefill_tps) + extra) + wait
    closed_request = ttft + (generate - 1) * tpot
    # a burst: waves of the running requests, each its prompts and then its answers
    waves = rows.batch / running
    passes = np.maximum(running * prompt / budget, 1)
    pass_s = np.maximum(memory, running * prompt / passes / prefill_tps) + extra
    prefill = passes * pass_s
    wave = prefill + (generate - 1) * decode_step
    # the k-th of a wave's R prompts is done after k R-ths of its passes
    phase = np.minimum(passes * (running - 1) / (2 * running), generate - 1)
    burst_tpot = (phase * pass_s + (generate - 1 - phase) * decode_step) / np.maximum(generate - 1, 1)
    burst_ttft = (waves - 1) / 2 * wave + prefill * (running + 1) / (2 * running)
    burst = rows.arrival == 1
    tpot = np.where(burst, burst_tpot, tpot)
    ttft = np.where(burst, burst_ttft, ttft)
    output = generate / (np.where(burst, wave, closed_request) / running + c["request_overhead_s"])
    decode = running / decode_step
    by_metric = {"output_tps": output, "total_tps": output * (prompt + generate) / generate,
                 "tpot_ms": tpot * 1000, "ttft_ms": ttft * 1000, "decode_tps": decode,
                 "prefill_tps": prefill_tps}
    return np.array([by_metric[m][i] for i, m in enumerate(rows.metric)])


def residuals(theta: np.ndarray, layout: Layout, rows: Rows) -> np.ndarray:
    c = layout.constants(theta, rows)
    misfit = np.log(predict(rows, c) / rows.value)
    shares = np.array([max(0.0, theta[i]) for i, (_, share, _) in enumerate(SCALARS) if share]
                      + [max(0.0, t) for t in theta[len(SCALARS):]])
    prior = ((theta - layout.start) / PRIOR_LOG_SD)[layout.prior]
    return np.concatenate([misfit, 10 * shares, prior])


def fit(rows: Rows, registry) -> tuple[Layout, np.ndarray]:
    layout = Layout(rows, registry)
    done = least_squares(residuals, layout.start, args=(layout, rows), loss="soft_l1",
                         f_scale=LOSS_SCALE, max_nfev=2000)
    return layout, done.x


def ratios(rows: Rows, layout: Layout, theta: np.ndarray) -> np.ndarray:
    return predict(rows, layout.constants(theta, rows)) / rows.value


def held_out(rows: Rows, key: str, registry) -> np.ndarray:
    """Each row's pred/meas with constants fitted without the rows of its device (key
    'hardware') or its page (key 'source'); NaN where that leaves nothing to fit on."""
    out = np.full(rows.n, np.nan)
    groups = getattr(rows, key)
    for group in sorted(set(groups)):
        test = np.array([g == group for g in groups])
        if test.all():
            continue
        layout, theta = fit(rows.subset(~test), registry)
        out[test] = ratios(rows.subset(test), layout, theta)
    return out


def stats(r: np.ndarray) -> str:
    r = r[np.isfinite(r)]
    if not r.size:
        return "   -        -          -"
    ape = 100 * np.abs(r - 1)
    return f"{len(r):4d}  {ape.mean():6.1f} %  {np.median(ape):8.1f} %  {np.median(r):14.2f}"


HEADER = ("metric       rows    MAPE  median APE  median pred/meas\n"
          "-----------  ----  ------  ----------  ----------------")


def report(rows: Rows, r: np.ndarray) -> list[str]:
    lines = []
    for metric in sorted(set(rows.metric)):
        mask = np.array([m == metric for m in rows.metric])
        lines.append(f"{metric:11s}  {stats(r[mask])}")
    serving = np.array([m in SERVING for m in rows.metric])
    lines.append(f"{'serving':11s}  {stats(r[serving])}")
    return lines


def print_pooled(pooled: list[tuple[Rows, np.ndarray, np.ndarray]]) -> None:
    """The serving engines' rows together, each predicted without its device (or page), or
    by figures fitted on another engine's rows only: issue 32's measure of serving."""
    if len(pooled) < 2:
        return
    rows = Rows([item for engine_rows, _, _ in pooled for item in engine_rows.items])
    serving = [m in SERVING for m in rows.metric]
    pages = {s for s, keep in zip(rows.source, serving) if keep}
    devices = {h for h, keep in zip(rows.hardware, serving) if keep}
    print(f"{' and '.join(sorted({i['engine'] for i in rows.items}))} pooled: {sum(serving)} "
          f"serving rows on {len(devices)} devices from {len(pages)} pages of "
          f"{len({pack_of(page) for page in pages})} sites, each predicted without its device "
          "(or page) or by figures fitted on another engine's rows")
    for title, k in (("held out by device", 1), ("held out by source", 2)):
        r = np.concatenate([entry[k] for entry in pooled])
        print(f"\n{title}\n{HEADER}")
        print("\n".join(line for line in report(rows, r) if not line.startswith("decode_tps")))
    print()


def significant(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def keyed_fields() -> set[str]:
    """The engine fields the schema keys by backend (or another key): written as maps."""
    from fitproof.validation import load_schema

    return {name for name, field in load_schema("engine")["properties"].items()
            if "x-keyed-by" in field}


def scores(rows: Rows, r: np.ndarray, group: str) -> list[str]:
    """held_out_accuracy entries (fitproof validate prints them) for the ratios ``r``."""
    out = []
    for metric in sorted(set(rows.metric)):
        mask = np.array([m == metric for m in rows.metric]) & np.isfinite(r)
        if not mask.any():
            continue
        ape = np.abs(r[mask] - 1)
        out.append(f"    - {{metric: {metric}, group: {group}, rows: {int(mask.sum())}, "
                   f"mape: {significant(float(ape.mean()))}, "
                   f"median_ape: {significant(float(np.median(ape)))}, "
                   f"median_ratio: {significant(float(np.median(r[mask])))}}}")
    return out


def block(engine: str, rows: Rows, layout: Layout, theta: np.ndarray, r: np.ndarray,
          by_device: np.ndarray, by_source: np.ndarray) -> str:
    """The serving block of ``engine``'s pack: every constant with its rows and residual,
    and the held-out scores."""
    devices = ", ".join(sorted(set(rows.hardware)))
    pages = len(set(rows.source))
    rms = math.sqrt(float(np.mean(np.log(r) ** 2)))
    source = (f"fit: benchmarks/fit_serving.py over the {rows.n} rows of {engine} in "
              f"packs/measurements/ (serving runs and single streams on {devices}; "
              f"{pages} pages)")
    note = (f"RMS log residual {rms:.3f} over those rows; fitted on {layout.backend} devices "
            "and used on every backend, for want of rows elsewhere")
    keyed = keyed_fields()
    lines = [BLOCK_BEGIN + ": written by `python benchmarks/fit_serving.py --write`; "
             "do not edit by hand"]
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
    output = np.array([m == "output_tps" for m in rows.metric]) & np.isfinite(by_device)
    measured_over_predicted = 1 / by_device[output]
    for edge, q in (("low", 10), ("high", 90)):
        lines += [f"output_band_{edge}:",
                  f"  value: {significant(float(np.percentile(measured_over_predicted, q)), 3)}",
                  f"  source: \"fit: python benchmarks/fit_serving.py, the {q}th percentile of "
                  f"measured / predicted over {int(output.sum())} output_tps rows of {engine} held "
                  "out by device\"", "  approximate: true"]
    lines += ["held_out_accuracy:", f"  profile: {PROFILE}",
              "  source: \"python benchmarks/fit_serving.py: fitted without each row's device "
              "(group by-device) or without each row's page (group by-source)\"",
              "  groups:"]
    lines += scores(rows, by_device, "by-device") + scores(rows, by_source, "by-source")
    lines.append(BLOCK_END)
    return "\n".join(lines) + "\n"


SERVING_DONOR = "vllm"  # the serving engine with rows enough to stand in for the others


def borrowed(text: str, engine: str) -> str:
    """SERVING_DONOR's serving block for ``engine``: its constants, each saying whose they
    are, without its held-out scores (which are of its rows)."""
    text = text.split("held_out_accuracy:")[0] + BLOCK_END + "\n"
    text = re.sub(r'source: "[^"]*"', f'source: "too few serving rows of {engine} in '
                  f'packs/measurements/ for a fit of its own (a fit needs rows on '
                  f'{MIN_DEVICES} devices): the figure fitted for {SERVING_DONOR} '
                  '(benchmarks/fit_serving.py) stands in"', text)
    return re.sub(r'note: "[^"]*"', 'note: "an assumption until rows of '
                  f'{engine} on {MIN_DEVICES} devices are added and refitted: both batch requests '
                  'continuously with chunked prefill on the same devices\' kernels"', text)


def pack_path(engine: str) -> Path:
    return ROOT / "packs" / "engines" / f"{engine}.yaml"


def current_block(engine: str) -> str | None:
    text = pack_path(engine).read_text("utf-8")
    match = re.search(re.escape(BLOCK_BEGIN) + r".*?" + re.escape(BLOCK_END) + r"\n", text, re.S)
    return match.group(0) if match else None


def write_block(engine: str, text: str) -> None:
    """Write the serving block, and leave its keys out of the engine's borrowed speed block
    (benchmarks/fit_speed.py does the same when it rewrites that block)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fit_speed import BEGIN, END, drop_keys

    path = pack_path(engine)
    pack = path.read_text("utf-8")
    old = current_block(engine)
    pack = pack.replace(old, text) if old else pack.rstrip("\n") + "\n" + text
    keys = set(re.findall(r"^([a-z_]+):", text, re.M))
    speed = re.compile(rf"({re.escape(BEGIN)}[^\n]*\n)(.*?)(?={re.escape(END)})", re.S)
    pack = speed.sub(lambda m: m.group(1) + drop_keys(m.group(2), keys), pack, count=1)
    path.write_text(pack, "utf-8")


def check_formulas(data: dict[str, Rows], fits: dict[str, tuple[Layout, np.ndarray]]) -> int:
    """fitproof's formulas, with the written constants, against this script's predictions."""
    registry = fitproof.load_registry().with_profile(PROFILE)
    entries, scenarios = measurement_scenarios(registry)
    batch = Batch(registry, scenarios)
    values = {m: batch.values(m) for m in METRICS}
    expected = {}
    for engine, rows in data.items():
        # an engine without a fit of its own is predicted with the figures it borrows
        layout, theta = fits.get(engine, fits[SERVING_DONOR])
        for item, value in zip(rows.items, predict(rows, layout.constants(theta, rows))):
            expected[item["location"]] = value
    worst = 0.0
    for i, (pack, index, row) in enumerate(entries):
        want = expected.get(pack.pack.at("rows", index))
        got = values[row.metric][i] if row.metric in values else None
        if want is None or got is None or not math.isfinite(want):
            continue
        worst = max(worst, abs(got / want - 1))
    print(f"fitproof's formulas vs this script: largest difference {100 * worst:.2f} %")
    return 0 if worst < 0.01 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the serving blocks")
    parser.add_argument("--check", action="store_true", help="exit 1 if a block is stale")
    parser.add_argument("--rows", action="store_true", help="print every row's ratios")
    args = parser.parse_args(argv)
    registry = fitproof.load_registry().with_profile(PROFILE)
    data = load(registry)
    apart = load(registry, apart=True)
    fits, stale, blocks = {}, [], {}
    # each engine's rows with their held-out ratios (by device, by page), for the pooled table
    pooled: list[tuple[Rows, np.ndarray, np.ndarray]] = []
    for engine in sorted(data):
        rows = data[engine]
        if len(set(rows.hardware)) < MIN_DEVICES:
            continue
        layout, theta = fits[engine] = fit(rows, registry)
        in_sample = ratios(rows, layout, theta)
        by_device = held_out(rows, "hardware", registry)
        by_source = held_out(rows, "source", registry)
        print(f"{engine}: {rows.n} rows on {len(set(rows.hardware))} devices from "
              f"{len(set(rows.source))} pages")
        for title, r in (("fitted on every row (in-sample)", in_sample),
                         ("held out by device (fitted without the row's device)", by_device),
                         ("held out by source (fitted without the row's page)", by_source)):
            print(f"\n{title}\n{HEADER}")
            print("\n".join(report(rows, r)))
        if engine in apart:
            print(f"\nscored apart with these constants (never fitted on)\n{HEADER}")
            print("\n".join(report(apart[engine], ratios(apart[engine], layout, theta))))
        print("\nconstants: " + ", ".join(f"{n}={math.exp(t):.4g}" for n, t in zip(layout.names, theta)))
        if args.rows:
            for item, a, b, c in zip(rows.items, in_sample, by_device, by_source):
                print(f"  {a:5.2f} {b:5.2f} {c:5.2f}  {item['metric']:10s} {item['model']} "
                      f"{item['quant']} on {item['hardware']} I{item['prompt']:.0f} "
                      f"O{item['generate']:.0f} R{item['running_sequences']:.0f}  {item['location']}")
        blocks[engine] = block(engine, rows, layout, theta, in_sample, by_device, by_source)
        pooled.append((rows, by_device, by_source))
        print()
    # the serving engines without rows on MIN_DEVICES devices borrow the fitted engine's figures,
    # and fitproof validate scores them on their own rows
    for engine in ENGINES:
        if engine in blocks or engine not in registry.engines or SERVING_DONOR not in blocks:
            continue
        rows = data.get(engine)
        count = rows.n if rows is not None else 0
        print(f"{engine}: {count} rows on {len(set(rows.hardware)) if rows else 0} device(s), "
              f"too few for a fit of its own; {SERVING_DONOR}'s figures stand in")
        if engine in apart or rows is not None:
            layout, theta = fits[SERVING_DONOR]
            for title, scored in (("scored with them", rows), ("scored apart with them", apart.get(engine))):
                if scored is not None:
                    print(f"\n{title}\n{HEADER}")
                    print("\n".join(report(scored, ratios(scored, layout, theta))))
            print()
            if rows is not None:  # rows of an engine the figures were never fitted on
                r = ratios(rows, layout, theta)
                pooled.append((rows, r, r))
        blocks[engine] = borrowed(blocks[SERVING_DONOR], engine)
    print_pooled(pooled)
    for engine, text in sorted(blocks.items()):
        if args.check and current_block(engine) != text:
            stale.append(engine)
        if args.write:
            write_block(engine, text)
            print(f"wrote {pack_path(engine).relative_to(ROOT)}")
    if args.check:
        for engine in stale:
            print(f"packs/engines/{engine}.yaml: the serving block differs from a refit; "
                  "run python benchmarks/fit_serving.py --write")
        return 1 if stale else 0
    if args.write:
        return check_formulas(data, fits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
