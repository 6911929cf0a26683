"""Benchmarks for the speed targets; prints measured times and ratios.

    python benchmarks/bench_estimate.py

1. A single ``fitproof estimate --json`` from the compiled snapshot, through the full
   path with a warm pack cache and with none, ``fitproof report`` of the default scenario,
   the interpreter's start, and llmfit's ``plan`` when llmfit is installed (issue 11's
   target: the snapshot estimate at most 0.7x of llmfit), side by side.
2. What ``import fitproof`` and a warm single estimate import (none of numpy, sympy,
   jsonschema, yaml, cattrs, pluggy or attrs from the snapshot).
3. A table of every hardware pack × every quantization × six contexts, evaluated as one
   vectorised batch against one estimate per scenario.
4. ``estimate_columns`` of 100,000 scenarios end to end: rate and peak memory.
5. ``fitproof sweep`` of every model × every accelerator × 4 formats × 4 contexts to CSV
   (issue 11's target: 5 s), against the interpreter's start alone.
6. ``fitproof report`` with 0, 50, 500, 1,000 and 5,000 extra accelerator packs (issue 11's
   target: 1,000 extra packs at most 4x the built-in report).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


RUNS = 11
ESTIMATE = ["estimate", "Qwen/Qwen3-8B", "--context", "8192", "--quant", "Q4_K_M", "--json"]
LLMFIT = ["plan", "Qwen/Qwen3-8B", "--context", "8192", "--quant", "Q4_K_M", "--json"]


def _median_seconds(commands: dict[str, tuple[list[str], dict[str, str]]]) -> dict[str, float]:
    """Median wall time of each command, the commands run in turn RUNS times (so that a
    slower moment of the machine falls on all of them alike)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(RUNS):
        for name, (argv, env) in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=True, capture_output=True)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def _llmfit() -> str | None:
    """llmfit's binary (pip install llmfit), from LLMFIT or the PATH."""
    return os.environ.get("LLMFIT") or shutil.which("llmfit")


def _fitproof_command() -> list[str]:
    """The ``fitproof`` command as a user runs it: the console script installed next to this
    interpreter (``python -m fitproof`` adds runpy's start-up when there is none)."""
    script = os.path.join(os.path.dirname(sys.executable), "fitproof")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "fitproof"]


def _wheel_install(work: str) -> str | None:
    """fitproof built as a wheel and installed, without its dependencies, into a fresh
    virtual environment that finds them in this one (a ``.pth`` line): fitproof as
    ``pip install fitproof`` installs it, without the editable checkout's import hook. The
    path of its ``fitproof`` command, or None when building fails."""
    import sysconfig
    import venv

    root = os.path.join(os.path.dirname(__file__), "..")
    wheels = os.path.join(work, "wheels")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--no-build-isolation", "--wheel-dir", wheels, root],
                           capture_output=True, text=True)
    if built.returncode:
        return None
    target = os.path.join(work, "venv")
    venv.create(target, with_pip=False)
    python = os.path.join(target, "bin", "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "dependencies.pth"), "w", encoding="utf-8") as pth:
        pth.write(sysconfig.get_paths()["purelib"] + "\n")
    wheel = os.path.join(wheels, next(n for n in os.listdir(wheels) if n.startswith("fitproof")))
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install",
                                "--quiet", "--no-deps", wheel], capture_output=True, text=True)
    return os.path.join(target, "bin", "fitproof") if installed.returncode == 0 else None


def bench_cli() -> None:
    """A single estimate: from the compiled snapshot, through the full path (with a warm
    pack cache, and with none), against the interpreter's start and llmfit's plan."""
    # bytecode caches as a user's install has them (some sandboxes turn them off)
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    fitproof = _fitproof_command()
    with tempfile.TemporaryDirectory() as cache:
        warm = {**base, "FITPROOF_CACHE_DIR": cache}
        cold = {**base, "FITPROOF_CACHE_DIR": "off"}
        subprocess.run(fitproof + ESTIMATE, env=warm, check=True, capture_output=True)
        wheel_command = _wheel_install(os.path.join(cache, "wheel"))
        commands = {
            "estimate from the snapshot": (fitproof + ESTIMATE, warm),
            # --strict skips the snapshot: the full path with the warm pack cache
            "estimate, full path, pack cache": (fitproof + ESTIMATE + ["--strict"], warm),
            "estimate, full path, no cache": (fitproof + ESTIMATE, cold),
            "report, default scenario": (fitproof + ["report"], warm),
            "python -c pass": ([sys.executable, "-c", "pass"], base),
            "python -S -c pass (no site)": ([sys.executable, "-S", "-c", "pass"], base),
        }
        if wheel_command:
            wheel_env = {**base, "FITPROOF_CACHE_DIR": os.path.join(cache, "wheel-cache")}
            subprocess.run([wheel_command, *ESTIMATE], env=wheel_env, check=True,
                           capture_output=True)
            commands["same, installed from a wheel"] = ([wheel_command, *ESTIMATE], wheel_env)
        llmfit = _llmfit()
        if llmfit:
            commands["llmfit plan (Rust)"] = ([llmfit, *LLMFIT], base)
        seconds = _median_seconds(commands)
    snapshot = seconds["estimate from the snapshot"]
    print(f"single estimate ({' '.join(ESTIMATE)}), median of {RUNS} runs:")
    for name, value in seconds.items():
        print(f"  {name:34s} {value * 1000:7.1f} ms   snapshot / this = {snapshot / value:5.2f}")
    if llmfit:
        # fitproof as README installs it (pip install .): a wheel, without the import hook
        # an editable checkout (pip install -e) puts in front of every import
        rust = seconds["llmfit plan (Rust)"]
        installed = seconds.get("same, installed from a wheel")
        if installed is not None:
            print(f"  installed as README does (pip install .) / llmfit plan = {installed / rust:.2f}x"
                  " (issue 11's target: <= 0.70x)")
        print(f"  {'this checkout' if installed is None else 'this (editable) checkout'}"
              f" / llmfit plan = {snapshot / rust:.2f}x")
    else:
        print("  llmfit is not installed (pip install llmfit, or LLMFIT=/path/to/llmfit): "
              "the comparison with it is skipped")


def _time(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


HEAVY = ("numpy", "sympy", "jsonschema", "yaml", "cattrs", "pluggy", "attr")


def bench_imports() -> None:
    """What ``import fitproof`` and a warm single estimate import, of the heavy libraries."""
    code = ("import sys\nfrom fitproof.cli import main\nmain(sys.argv[1:])\n"
            f"print('heavy:', ' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "FITPROOF_CACHE_DIR": cache}
        bare = subprocess.run([sys.executable, "-c", "import sys, fitproof; print(len([m for m "
                               "in sys.modules if m.startswith('fitproof')]))"], env=env,
                              check=True, capture_output=True, text=True).stdout.strip()
        runs = [subprocess.run([sys.executable, "-c", code, *ESTIMATE], env=env, check=True,
                               capture_output=True, text=True).stdout.strip().splitlines()[-1]
                .removeprefix("heavy:").strip() for _ in range(2)]
    print(f"import fitproof loads {bare} fitproof module(s)")
    print(f"heavy libraries imported: full path {runs[0] or 'none'}; "
          f"from the snapshot {runs[1] or 'none'}")


def bench_table() -> None:
    import fitproof

    registry = fitproof.load_registry(plugins=False)
    scenarios = [
        fitproof.resolve_scenario(registry, model="qwen3.5-35b-a3b", hardware=hw, quant=q,
                                  inputs={"context": ctx})
        for hw in sorted(registry.hardware) for q in registry.quant_formats
        for ctx in (4096, 8192, 16384, 32768, 65536, 131072)]
    batch_seconds = min(_time(lambda: fitproof.estimate_many(scenarios, registry=registry)
                              .values("decode_tps")) for _ in range(3))
    sample = scenarios[:: max(1, len(scenarios) // 120)]
    loop_seconds = _time(lambda: [fitproof.Estimate(registry, s).value("decode_tps")
                                  for s in sample]) * len(scenarios) / len(sample)
    batch = fitproof.estimate_many(scenarios, registry=registry).values("decode_tps")
    loop = [fitproof.Estimate(registry, s).value("decode_tps") for s in sample]
    step = max(1, len(scenarios) // 120)
    assert all((batch[i * step] is None and v is None) or abs(batch[i * step] - v) < 1e-9
               for i, v in enumerate(loop))
    print(f"table of {len(scenarios)} scenarios: batch {batch_seconds * 1000:.1f} ms, "
          f"one estimate each ~{loop_seconds * 1000:.0f} ms (extrapolated from {len(sample)})")
    print(f"  loop / batch = {loop_seconds / batch_seconds:.1f}x")


def bench_sweep() -> None:
    with tempfile.TemporaryDirectory() as out:
        argv = [sys.executable, "-m", "fitproof", "sweep", "--no-plugins",
                "--quant", "Q4_K_M,Q8_0,BF16,Q6_K", "--context", "4K,8K,32K,128K",
                "--out", os.path.join(out, "sweep.csv"), "--force"]  # the second run replaces it
        seconds = min(_time(lambda: subprocess.run(argv, check=True, capture_output=True))
                      for _ in range(2))
        with open(os.path.join(out, "sweep.csv"), encoding="utf-8") as table:
            rows = sum(1 for _ in table) - 1
    bare = min(_time(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
               for _ in range(3))
    print(f"cli sweep of {rows} scenarios to CSV: {seconds:.2f} s "
          f"({rows / seconds:,.0f} scenarios/s; target 5 s: {seconds / 5:.2f}x of it)")
    print(f"  sweep / bare python start = {seconds / bare:.0f}x")


def _hardware_packs(folder: str, count: int) -> None:
    """``count`` accelerator packs written from the hardware template, each its own id."""
    template = open(os.path.join(os.path.dirname(__file__), "..", "examples",
                                 "hardware-template.yaml"), encoding="utf-8").read()
    os.makedirs(folder, exist_ok=True)
    for index in range(count):
        pack_id = f"bench-card-{index:05d}"
        text = (template.replace("id: acme-x1-48gb", f"id: {pack_id}")
                .replace("name: X1 48GB", f"name: Bench Card {index}")
                .replace("aliases: [X1, Acme X1]", "aliases: []")
                .replace("memory_gb: 48", f"memory_gb: {16 + index % 128}"))
        with open(os.path.join(folder, f"{pack_id}.yaml"), "w", encoding="utf-8") as out:
            out.write(text)


def bench_report_vs_packs() -> None:
    """``fitproof report`` of the default scenario with 0, 50, 500, 1,000 and 5,000 extra
    accelerator packs (warm pack cache): the report ranks every accelerator, so it grows
    with their number; it should grow linearly, not faster."""
    fitproof = _fitproof_command()
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results = []
    for count in (0, 50, 500, 1000, 5000):
        with tempfile.TemporaryDirectory() as work:
            env = {**base, "FITPROOF_CACHE_DIR": os.path.join(work, "cache")}
            argv = [*fitproof, "report", "--no-plugins"]
            if count:
                _hardware_packs(os.path.join(work, "packs"), count)
                argv += ["--pack-dir", os.path.join(work, "packs")]
            subprocess.run(argv, env=env, check=True, capture_output=True)  # fill the cache
            seconds = statistics.median(
                _time(lambda: subprocess.run(argv, env=env, check=True, capture_output=True))
                for _ in range(3))
        results.append((count, seconds))
    built_in = results[0][1]
    print("report of the default scenario vs extra accelerator packs (warm pack cache):")
    for count, seconds in results:
        per = "" if not count else f"   +{(seconds - built_in) / count * 1000:.2f} ms per pack"
        print(f"  {count:5d} extra packs  {seconds:6.2f} s   {seconds / built_in:5.2f}x the "
              f"built-in report{per}")


def bench_columns() -> None:
    """``estimate_columns`` of 100,000 scenarios (every model x accelerator x contexts),
    resolved and evaluated, in a fresh interpreter: rate and peak memory (issue 11's
    targets: >= 100,000 scenarios/s and <= 300 MiB)."""
    code = """
import resource, time
import fitproof
from fitproof import api
registry = fitproof.load_registry(plugins=False)
start = time.perf_counter()
scenarios = []
for model in registry.models:
    for context in range(1024, 23 * 1024, 1024):
        try:
            base = api.scenario(registry, model=model, hardware="rtx-4090", inputs={"context": context})
        except fitproof.InputError:
            continue
        scenarios.extend(base._replace(hardware=h) for h in sorted(registry.accelerators))
scenarios = scenarios[:100_000]
columns = api.estimate_columns(scenarios, ("total_gib", "decode_tps", "prefill_tps", "ttft_s"),
                               registry=registry)
seconds = time.perf_counter() - start
print(len(scenarios), seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "FITPROOF_CACHE_DIR": cache}
        runs = [subprocess.run([sys.executable, "-c", code], env=env, check=True,
                               capture_output=True, text=True).stdout.split()
                for _ in range(3)]
    count, seconds, peak = int(runs[0][0]), statistics.median(float(r[1]) for r in runs), \
        statistics.median(float(r[2]) for r in runs)
    print(f"estimate_columns of {count:,} scenarios, resolved and evaluated: {seconds:.2f} s "
          f"({count / seconds:,.0f} scenarios/s; target 100,000), peak memory {peak:.0f} MiB "
          "(target 300 MiB; the process with the packs loaded included)")


if __name__ == "__main__":
    bench_cli()
    bench_imports()
    bench_table()
    bench_columns()
    bench_sweep()
    bench_report_vs_packs()
