"""The calibrated profile pack ``fitproof calibrate`` writes into the user's pack folder:
the measured profile's formulas (``extends``), what the refit read (``calibration``) and the
refitted constants of each engine (``engines``), which linking uses in place of the engine
packs' fitted figures when the profile is chosen."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import InputError
from ..files.pack_files import USER_PACKS_ORIGIN
from ..specs import CalibrationScore

if TYPE_CHECKING:
    from ..registry.index import Registry

METRICS = ("decode_tps", "prefill_tps")


def check_name(registry: Registry, name: str) -> None:
    """Refuse a profile id that a pack outside the user's pack folder (fitproof's own
    profiles, a plugin's) already has: a calibrated profile never replaces those."""
    pack = registry.pack_of("profile", name)
    if pack is not None and pack.origin != USER_PACKS_ORIGIN:
        raise InputError(f"--name {name!r}: {pack.path} (from {pack.origin}) is a profile of "
                         "that name; choose another name for your calibrated profile")


def _number(value: float) -> str:
    return f"{float(f'{value:.4g}')}"


def profile_text(name: str, extends: str, command: str, date: str,
                 measurements: Sequence[str], user_measurements: Sequence[str],
                 rows: Mapping[str, int], user_rows: Mapping[str, int], repeats: int,
                 scores: Sequence[CalibrationScore], blocks: Mapping[str, str]) -> str:
    """The YAML of the profile pack: ``blocks`` is each engine's fitted block (the YAML an
    engine pack holds between its BEGIN and END lines), nested under ``engines``."""
    def counts(by_metric: Mapping[str, int]) -> str:
        return "{" + ", ".join(f"{m}: {count}" for m, count in by_metric.items()) + "}"

    yours = sum(user_rows.values())
    lines = [f"# written by {command}; run it again with --force to refit",
             "kind: profile", f"id: {name}", f"name: {json.dumps(f'Calibrated: {name}')}",
             "description: >-",
             f"  The {extends} profile's formulas with speed constants refitted by fitproof "
             "calibrate",
             f"  on the shipped measurement rows and {yours} of yours; each engine named "
             "under engines",
             "  uses these constants in place of its own pack's when this profile is chosen.",
             f"extends: {extends}",
             "calibration:",
             f"  command: {json.dumps(command)}",
             f"  date: {json.dumps(date)}",
             f"  measurements: {json.dumps(list(measurements))}",
             f"  user_measurements: {json.dumps(list(user_measurements))}",
             f"  rows: {counts(rows)}",
             f"  user_rows: {counts(user_rows)}",
             f"  repeats: {repeats}",
             "  held_out:"]
    for s in scores:
        lines.append(f"    - {{engine: {json.dumps(s.engine)}, metric: {s.metric}, "
                     f"constants: {s.constants}, group: {s.group}, rows: {s.rows}, "
                     f"mape: {_number(s.mape)}, median_ape: {_number(s.median_ape)}, "
                     f"median_ratio: {_number(s.median_ratio)}}}")
    if not scores:
        lines[-1] = "  held_out: []"
    lines.append("engines:")
    for engine, block in sorted(blocks.items()):
        lines.append(f"  {json.dumps(engine)}:")
        lines.extend("    " + line if line else line for line in block.splitlines())
    return "\n".join(lines) + "\n"
