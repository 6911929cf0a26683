"""Fit the measured profile's speed constants to public measurements, and cross-validate.

The measured profile (packs/formulas/measured-throughput.yaml) predicts, for engine e,
hardware backend b, the weight format's kernel family k and the device's memory family m:

    decode step   = on-device share x (weight bytes / (eta_b phi_k rho_m BW)
                                       + KV bytes / (kappa_b rho_m BW))
                    + active parameters x omega_b x min(batch, V) / S
                    + t0_b + tau_b x layers + sigma_b x mixture-of-experts layers
                    + hop x (devices of a layer split - 1)
                    + all-reduce + the share served from system RAM
                    (or the batch's arithmetic, if that takes longer than the bytes)
    prefill token = 2 x (dense + routed-expert parameters / epsilon) / (F mu_b psi_k)
                    + attention FLOPs / (F alpha_b)
    prefill tok/s = tensor-parallel ranks x pipeline speedup / prefill token

with BW the peak memory bandwidth and F the dense FP16 tensor rate of the device, S its
shader (non-tensor FP32) rate where its pack gives one (else that term is 0), and V the
largest batch the engine's matrix-vector kernels take (decode_vector_batch_max). The shader
figure omega_b and the routing overhead sigma_b of a MoE layer are fitted for the backends
whose rows have the term (a shader rate, a MoE model); the others get their row-weighted
mean. This
script

1. evaluates the scenario of every row of packs/measurements/ with fitproof (bytes,
   FLOPs, bandwidth, peak rate, pipeline speedup: everything but the constants);
2. fits the constants of each engine by robust least squares (scipy, soft L1) on
   log(predicted / measured), prefill first (decode's compute bound uses its rate);
3. cross-validates: the devices of each backend are dealt alternately into two halves,
   the constants are fitted on one half and scored on the other, and the other way round,
   over REPEATS shuffles of the devices, pooled;
4. takes each backend's error band, the 10th and 90th percentile of measured / predicted
   over the held-out rows;
5. with --write, writes the constants fitted on all rows into the fitted block of each
   engine pack (packs/engines/*.yaml), every figure naming the rows it was fitted on and
   its residual, then checks that fitproof's formulas reproduce this script's predictions.

A backend gets its own efficiency and overhead with at least MIN_BACKEND_ROWS rows of a
metric on at least two devices; the others use the key 'default', the pooled figure. Each
backend's share (an efficiency) is tied to the pooled one by a quadratic prior
(PRIOR_LOG_SD), so a share its rows do not pin down (a KV read efficiency where no row
reads a deep cache) takes the pooled figure instead of drifting; overheads, near 0 on most
backends, are left free: the pooled overhead is fitted on the rows of backends without
figures of their own or, if every row's backend has its own, is their row-weighted
geometric mean. A kernel family gets its own factor with at least
MIN_KERNEL_ROWS rows; every share is at most 1, the best-measured family's factor is 1 (the
split between a backend's efficiency and a family's factor is otherwise free), and 'default'
(for families without measurements) is the row-weighted geometric mean of the fitted
families. A memory family (hbm, lpddr, ddr: the hardware pack's memory_family) gets a
factor rho relative to gddr with at least MIN_KERNEL_ROWS rows on two devices; the others,
and devices whose pack names no family, get 1. An engine without measurement rows of its own gets the figures of DONOR, each
saying so, until rows of it are added.

The fit itself is the library package fitproof.calibration (core/calibration/), which
`fitproof calibrate` also runs on the shipped rows plus the user's; this script is its
caller for the shipped constants (rows of the user's pack folder take no part).

Run: python benchmarks/fit_speed.py [--write] [--rows]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import fitproof  # noqa: E402
from fitproof.calibration.blocks import PROFILE  # noqa: E402
from fitproof.calibration.engine_packs import current_block, write_block  # noqa: E402
from fitproof.calibration.refit import check, refit_all  # noqa: E402
from fitproof.calibration.fit import Fit  # noqa: E402,F401  (tests build fits by hand)
from fitproof.calibration.model import decode_rate  # noqa: E402,F401
from fitproof.calibration.rows import COLUMNS, Rows, load  # noqa: E402,F401
from fitproof.errors import FitproofError  # noqa: E402

ENGINES = ROOT / "packs" / "engines"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="write the constants fitted on all rows into packs/engines/*.yaml")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless packs/engines/*.yaml hold exactly what this fit writes")
    parser.add_argument("--rows", action="store_true", help="print every row's held-out ratio")
    args = parser.parse_args(argv)
    registry = fitproof.load_registry().with_profile(PROFILE)
    data = load(registry, user_rows=False)
    outside = load(registry, apart=True, user_rows=False)
    blocks, fits = refit_all(registry, data, outside, ENGINES, print, args.rows)
    if args.check:
        stale = [engine for engine, block in blocks.items()
                 if current_block(ENGINES, engine) != block]
        for engine in stale:
            print(f"packs/engines/{engine}.yaml: the fitted block differs from a refit; "
                  "run python benchmarks/fit_speed.py --write")
        return 1 if stale else 0
    if args.write:
        try:
            for engine, block in blocks.items():
                print(f"wrote {write_block(ENGINES, engine, block).relative_to(ROOT)}")
        except FitproofError as exc:
            raise SystemExit(str(exc)) from None
        return check(fitproof.load_registry().with_profile(PROFILE), data, fits, print)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
