"""One truth, checked over the grid: scenarios drawn from every model x accelerator x
format x engine x workload x devices x batch x context (edges included), each estimated
through the public API and checked against invariants no output may break.

The invariants:
  - no traceback: a scenario is estimated, or refused with one InputError line;
  - the verdict agrees with what one device needs and may fill, for every workload;
  - the memory parts the card prints add up to the Required it prints;
  - headroom and utilization are usable less required, and required over usable;
  - cost is priced on an offer of the scenario's own hardware and device count, or there is
    none (and the cost is unknown);
  - an engine that cannot run the scenario (device, format, a device never sold) gives no
    speed, and one that can gives one where the figures allow;
  - a refusal is one the verdicts pack names, and a warning never comes with a refusal;
  - a report is built whenever the estimate is (checked on a sample: a report is costly),
    and its other-models table says of a model what that model's estimate says;
  - the snapshot path (a single `fitproof estimate`) gives the full path's numbers.

tests/test_consistency.py runs these on a fixed-seed sample in the test command; this
script runs a large sample (another seed: scenarios the tests do not name) and prints the
violations it finds.

Run: python benchmarks/consistency.py [--scenarios 10000] [--reports 50] [--seed 2027]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fitproof  # noqa: E402
from fitproof.errors import FitproofError, InputError  # noqa: E402

# the values each input is drawn from: ordinary ones and the edges
CONTEXTS = (1, 512, 4096, 8192, 8192, 32768, 131072, "trained", "trained+1", 1_048_576)
GPUS = (1, 2, 3, 4, 8, 16)
BATCHES = (1, 2, 8, 64, 256)
OFFLOADS = (0, 0, 0, 50, 100)
CPU_MOE = (0, 0, 4, 1000)
SPLITS = (None, None, None, "layer", "tensor")
ROPE = (None, None, None, 2, 8)
LIMITS = (None, None, None, 8, 96, 1000)
PROMPTS = (0, 4096, 4096, 1_048_576)
WORKLOADS = ("inference", "inference", "inference", "qlora", "lora", "full")
NO_SPEED = ("unsupported", "unloadable", "nonexistent")
ROUNDING = 0.011  # each printed part is rounded to 0.01 GiB; their sum may differ by this


Pick = Callable[[str, Sequence[Any]], Any]


def draw(registry: fitproof.Registry, pick: Pick) -> dict[str, Any]:
    """One scenario of the grid: ``pick(label, options)`` chooses each choice and input."""
    model = pick("model", sorted(registry.models))
    hardware = pick("hardware", sorted(registry.accelerators))
    quant = pick("quant", [None, *sorted(registry.quant_formats)])
    engine = pick("engine", sorted(registry.engines))
    kv = pick("kv", [None, None, *sorted(registry.kv_types)])
    workload = pick("workload", WORKLOADS)
    context = pick("context", CONTEXTS)
    trained = getattr(registry.models[model], "max_position_embeddings", None)
    if context in ("trained", "trained+1"):
        context = int(trained.value) + (context == "trained+1") if trained else 8192
    inputs = {"context": context, "gpus": pick("gpus", GPUS), "batch": pick("batch", BATCHES),
              "offload": pick("offload", OFFLOADS), "cpu_moe": pick("cpu_moe", CPU_MOE),
              "split": pick("split", SPLITS), "rope_scale": pick("rope_scale", ROPE),
              "gpu_memory_limit": pick("gpu_memory_limit", LIMITS),
              "prompt": pick("prompt", PROMPTS)}
    return {"model": model, "hardware": hardware, "quant": quant, "engine": engine, "kv": kv,
            "workload": workload, "inputs": {k: v for k, v in inputs.items() if v is not None}}


def estimate(registry: fitproof.Registry, case: dict[str, Any]) -> Any:
    """The case estimated, or the InputError that refuses it (any other exception is a
    violation, raised to the caller)."""
    try:
        resolved = fitproof.api.scenario(registry, model=case["model"], hardware=case["hardware"],
                                     quant=case["quant"], kv=case["kv"], engine=case["engine"],
                                     workload=case["workload"], inputs=case["inputs"])
        from fitproof.engine.estimation import Estimate

        return Estimate(registry, resolved)
    except InputError as error:
        return error


def violations(registry: fitproof.Registry, case: dict[str, Any], result: Any) -> list[str]:
    """What ``result`` (an Estimate or the InputError refusing the case) breaks."""
    found: list[str] = []
    if isinstance(result, InputError):
        message = str(result)
        if "\n" in message or not message.strip():
            found.append(f"a refusal is not one line: {message!r}")
        return found
    def value(name: str) -> float | None:  # a quantity the profile does not define is None
        quantity = result.quantities.get(name)
        return None if quantity is None else quantity.value

    view = result.view()
    verdict = view.verdict.id if view.verdict else None
    training = bool(value("training_state_gib") or value("activations_gib"))

    def near(a: float | None, b: float | None, tolerance: float, what: str) -> None:
        if a is None or b is None:
            return
        if abs(a - b) > tolerance:
            found.append(f"{what}: {a} vs {b}")

    # the verdict agrees with what one device needs and may fill
    need, usable = value("device_required_gib"), value("device_usable_gib")
    if verdict in ("fits", "tight") and need is not None and usable is not None and need > usable:
        found.append(f"verdict {verdict} but one device needs {need} GiB of {usable}")
    if verdict == "exceeds" and need is not None and usable is not None and need <= usable:
        found.append(f"verdict exceeds but one device needs {need} GiB of {usable}")
    share = value("tight_share")
    if verdict == "fits" and None not in (need, usable, share) and need > share * usable:
        found.append(f"verdict fits but {need} GiB is over the safe share of {usable}")
    # the parts the card prints add up to Required
    total = value("total_gib")
    if total is not None and "devices_kv_gib" in result.quantities:
        parts = [value("weights_gib"), -(value("offload_gib") or 0)]
        parts += ([value("training_state_gib"), value("activations_gib")] if training else
                  [value("devices_kv_gib"), value("devices_overhead_gib")])
        if None not in parts:
            near(sum(parts), total, ROUNDING * len(parts), "printed parts vs Required")
        gpus = case["inputs"].get("gpus", 1)
        near(need * gpus if need is not None else None,
             total if not value("offload_gib") else None, 0.011 * gpus + 0.02,
             "per-device requirement x devices vs Required")
    # headroom and utilization read the same two numbers
    near(value("headroom_gib"), (value("usable_gib") or 0) - (total or 0)
         if value("usable_gib") is not None and total is not None else None, 0.011,
         "headroom vs usable - required")
    if value("utilization") is not None and value("usable_gib") and total is not None:
        near(value("utilization"), total / value("usable_gib"), 1e-6, "utilization")
    # cost on the scenario's own hardware, or none
    own = view.selections.get("scenario_offer")
    if own is not None:
        if own.get("id"):
            provider_id, _, offer_id = own["id"].partition("/")
            offer = next(o for o in registry.providers[provider_id].offers if o.id == offer_id)
            gpus = case["inputs"].get("gpus", 1)
            if offer.hardware != result.scenario.hardware or offer.gpus.value != gpus:
                found.append(f"cost priced on {offer.hardware} x{offer.gpus.value}, the "
                             f"scenario is {result.scenario.hardware} x{gpus}")
        elif value("cost_per_mtok_usd") is not None:
            found.append("a cost with no offer of the scenario's hardware")
    # no speed where the engine cannot run it
    speeds = (value("decode_tps"), value("prefill_tps"))
    if verdict in NO_SPEED and any(s is not None for s in speeds):
        found.append(f"verdict {verdict} but a speed is given: {speeds}")
    if training and verdict is None:
        found.append("a fine-tuning scenario without a verdict")
    return found


def snapshot_violations(registry: fitproof.Registry, result: Any, model: Any) -> list[str]:
    """The snapshot path's view of ``result``'s scenario against the full path's."""
    from fitproof.fast.estimate import estimate_from_snapshot

    scenario = result.scenario
    choices = {key: getattr(scenario, key) for key in fitproof.views.results.SELECTORS}
    inputs = {k: (None if isinstance(v, float) and math.isnan(v) else v)
              for k, v in scenario.inputs.items()}
    quick = estimate_from_snapshot(model, choices, inputs)
    if quick is None:
        return []  # handed back to the full path: nothing to compare
    full = result.view()
    found = []
    if (quick.verdict.id if quick.verdict else None) != (full.verdict.id if full.verdict else None):
        found.append(f"snapshot verdict {quick.verdict} vs full {full.verdict}")
    for name in ("total_gib", "usable_gib", "decode_tps", "prefill_tps", "cost_per_mtok_usd"):
        a, b = quick.value(name), full.value(name)
        if (a is None) != (b is None) or (a is not None and b is not None
                                          and abs(a - b) > 1e-9 * max(1.0, abs(b))):
            found.append(f"snapshot {name} {a} vs full {b}")
    if tuple(quick.warnings or ()) != tuple(full.warnings):
        found.append(f"snapshot warnings {quick.warnings} vs full {full.warnings}")
    return found


def report_violations(registry: fitproof.Registry, result: Any) -> list[str]:
    """A report of a scenario the estimate answers is built and renders in every format."""
    try:
        view = fitproof.api.report(registry, result.scenario)
        for name in ("text", "markdown", "json"):
            fitproof.api.render("report", view, name, registry=registry, plugins=False)
    except FitproofError as error:
        return [f"report refused what estimate answers: {error}"]
    return other_model_violations(registry, result, view.report)


def other_model_violations(registry: fitproof.Registry, result: Any, report: Any) -> list[str]:
    """The report's other-models table says of a model what that model's own estimate says
    (checked on its first and last rows), and a model it leaves out is one whose estimate
    refuses the scenario."""
    from fitproof.engine.estimation import Estimate
    from fitproof.report.variants import variant

    found: list[str] = []
    rows = report.other_models
    for row in {id(r): r for r in (rows[:1] + rows[-1:])}.values():
        own = Estimate(registry, variant(registry, result.scenario, model=row.model))
        verdict = own.verdict.id if own.verdict else None
        if (row.verdict.id if row.verdict else None) != verdict or not _same(
                row.total_gib.value, own.value("total_gib")):
            found.append(f"other model {row.model}: {row.verdict} {row.total_gib.value} "
                         f"vs its estimate {verdict} {own.value('total_gib')}")
    for skipped in report.skipped_in("other_models")[:1]:
        model = next(m for m, spec in registry.models.items() if spec.name == skipped.name)
        try:
            Estimate(registry, variant(registry, result.scenario, model=model))
        except InputError:
            continue
        found.append(f"other model {model} left out although its estimate answers")
    return found


def _same(a: float | None, b: float | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None
                                         and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))


def run(scenarios: int, reports: int, seed: int) -> int:
    registry = fitproof.load_registry(plugins=False)
    from fitproof.fast.build import build_snapshot
    from fitproof.fast.estimate import SnapshotModel

    snapshot = SnapshotModel(build_snapshot(registry))
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    problems: list[tuple[dict[str, Any], str]] = []
    started = time.perf_counter()
    # a report for every k-th scenario the estimate answers (about two in five are refused)
    report_every = max(1, int(scenarios * 0.4) // max(1, reports)) if reports else 0
    answered = 0
    for index in range(scenarios):
        case = draw(registry, lambda _label, options: rng.choice(list(options)))
        try:
            result = estimate(registry, case)
        except Exception as error:  # noqa: BLE001 - a traceback is the violation
            problems.append((case, f"{type(error).__name__}: {error}"))
            continue
        counts["refused" if isinstance(result, InputError) else
               (result.verdict.id if result.verdict else "undecided")] += 1
        found = violations(registry, case, result)
        if not isinstance(result, InputError):
            found += snapshot_violations(registry, result, snapshot)
            answered += 1
            if report_every and answered % report_every == 0 and counts["reports"] < reports:
                found += report_violations(registry, result)
                counts["reports"] += 1
        problems.extend((case, problem) for problem in found)
    elapsed = time.perf_counter() - started
    print(f"{scenarios} scenarios (seed {seed}) in {elapsed:.0f} s: "
          + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    print(f"violations: {len(problems)}")
    for case, problem in problems[:40]:
        print(f"  {problem}\n    {case}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--reports", type=int, default=50,
                        help="how many of the scenarios also build a full report")
    parser.add_argument("--seed", type=int, default=2027,
                        help="the tests use other seeds: this sample is held out from them")
    args = parser.parse_args(argv)
    return run(args.scenarios, args.reports, args.seed)


if __name__ == "__main__":
    sys.exit(main())
