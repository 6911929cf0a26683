"""Benchmarks for the speed targets; prints measured times and ratios.

    python benchmarks/bench_estimate.py

1. A plain ``fitproof estimate`` with a warm pack cache against a cold one (the cache
   keeps YAML parsing and schema validation off the hot path), and ``fitproof report``
   of the default scenario.
2. ``import fitproof`` and an estimate must not import sympy or jsonschema when cached.
3. A table of every hardware pack × every quantization × six contexts, evaluated as one
   vectorised batch against one estimate per scenario.
4. ``fitproof sweep`` of every model × every accelerator × 4 formats × 4 contexts to CSV
   (issue 11's target: 5 s), against the interpreter's start alone.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time


def _cli_seconds(env: dict[str, str], runs: int, command: str = "estimate") -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fitproof", command, "--no-plugins"],
                       env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_cli() -> None:
    with tempfile.TemporaryDirectory() as cache:
        cold_env = {**os.environ, "FITPROOF_CACHE_DIR": "off"}
        warm_env = {**os.environ, "FITPROOF_CACHE_DIR": cache}
        _cli_seconds(warm_env, 1)  # fill the cache
        cold = _cli_seconds(cold_env, 5)
        warm = _cli_seconds(warm_env, 5)
        report = _cli_seconds(warm_env, 5, "report")
        baseline = statistics.median(
            [_time(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
             for _ in range(5)])
    print(f"cli estimate, no cache:    {cold * 1000:7.1f} ms")
    print(f"cli estimate, warm cache:  {warm * 1000:7.1f} ms   (python startup alone "
          f"{baseline * 1000:.1f} ms)")
    print(f"  cold / warm = {cold / warm:.2f}x")
    print(f"cli report (default scenario, warm cache): {report * 1000:7.1f} ms "
          f"(target: well under 1000 ms)")


def _time(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def bench_imports() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "FITPROOF_CACHE_DIR": cache}
        code = ("import sys, fitproof; r = fitproof.load_registry(plugins=False); "
                "fitproof.estimate(registry=r); "
                "print(' '.join(m for m in ('sympy', 'jsonschema') if m in sys.modules))")
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
    print(f"heavy modules imported by a cached estimate: {out or 'none'}")


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
                "--out", os.path.join(out, "sweep.csv")]
        seconds = min(_time(lambda: subprocess.run(argv, check=True, capture_output=True))
                      for _ in range(2))
        with open(os.path.join(out, "sweep.csv"), encoding="utf-8") as table:
            rows = sum(1 for _ in table) - 1
    bare = min(_time(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))
               for _ in range(3))
    print(f"cli sweep of {rows} scenarios to CSV: {seconds:.2f} s "
          f"({rows / seconds:,.0f} scenarios/s; target 5 s: {seconds / 5:.2f}x of it)")
    print(f"  sweep / bare python start = {seconds / bare:.0f}x")


if __name__ == "__main__":
    bench_cli()
    bench_imports()
    bench_table()
    bench_sweep()
