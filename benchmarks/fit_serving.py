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

The fit itself is the library package fitproof.calibration (core/calibration/serving_*.py),
which `fitproof calibrate` also runs on the shipped rows plus the user's; this script is its
caller for the shipped constants (rows of the user's pack folder take no part).

Run: python benchmarks/fit_serving.py [--write] [--check] [--rows]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fitproof  # noqa: E402
from fitproof.calibration.blocks import PROFILE  # noqa: E402
from fitproof.calibration.engine_packs import (current_serving_block,  # noqa: E402
                                               write_serving_block)
from fitproof.calibration.serving_refit import (check_formulas, print_pooled,  # noqa: E402
                                                refit_serving)
from fitproof.calibration.serving_rows import load_serving  # noqa: E402
# a page's site (its pages share one benchmark setup, so they are not independent sources)
# is the measurement pack serving_rows.py files it in, one per site
from serving_rows import pack_of  # noqa: E402

ENGINES = ROOT / "packs" / "engines"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the serving blocks")
    parser.add_argument("--check", action="store_true", help="exit 1 if a block is stale")
    parser.add_argument("--rows", action="store_true", help="print every row's ratios")
    args = parser.parse_args(argv)
    registry = fitproof.load_registry().with_profile(PROFILE)
    data = load_serving(registry, user_rows=False)
    apart = load_serving(registry, apart=True, user_rows=False)
    blocks, fits, pooled = refit_serving(registry, data, apart, print, args.rows)
    print_pooled(pooled, print, pack_of)
    stale = []
    for engine, text in sorted(blocks.items()):
        if args.check and current_serving_block(ENGINES, engine) != text:
            stale.append(engine)
        if args.write:
            path = write_serving_block(ENGINES, engine, text)
            print(f"wrote {path.relative_to(ROOT)}")
    if args.check:
        for engine in stale:
            print(f"packs/engines/{engine}.yaml: the serving block differs from a refit; "
                  "run python benchmarks/fit_serving.py --write")
        return 1 if stale else 0
    if args.write:
        return check_formulas(fitproof.load_registry().with_profile(PROFILE), data, fits, print)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
