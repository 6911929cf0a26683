"""Built-in facts a pack replaced: which, by whom, and whether the user agreed.

A pack that declares ``override: true`` replaces the pack of the same kind and id loaded
before it; a formula that declares it replaces the formula of the same name. When what it
replaces is one of fitproof's own packs (origin ``fitproof``), every output names the
replacement, both ``file:line`` (:func:`builtin_overrides`), so that a downloaded pack
cannot re-rate a built-in accelerator unseen. A replacement the user did not bring on their
own command line (a plugin's pack, a ``FITPROOF_PACK_PATH`` folder) needs their consent,
``--allow-override`` or ``FITPROOF_ALLOW_OVERRIDE=1``; without it,
:func:`unconsented_problems` makes it a pack problem: a plugin is then disabled with a
warning that says why, a folder is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import Problem
from ..files.pack_files import ALLOW_OVERRIDE_ENV, CONSENTED_ORIGINS, consented
from ..views.estimate import Override
from ..views.results import LoadedPack
from .graph import FormulaGraph

__all__ = ["ALLOW_OVERRIDE_ENV", "CONSENTED_ORIGINS", "Override", "builtin_overrides",
           "consented", "unconsented_problems"]

BUILTIN = "fitproof"


def builtin_overrides(packs: Sequence[LoadedPack], graph: FormulaGraph) -> tuple[Override, ...]:
    """Every built-in pack and formula a pack of another origin replaced."""
    origin_of = {pack.path: pack.origin for pack in packs}
    for pack in packs:  # the packs replaced are no longer among ``packs``
        origin_of.update((old.path, old.origin) for old in pack.replaces)
    found: list[Override] = []
    for pack in packs:
        if pack.origin == BUILTIN:
            continue
        for old in pack.replaces:
            if old.origin == BUILTIN:
                found.append(Override(
                    f"{pack.kind} {pack.id}", _at(pack.path, pack.override_line), pack.origin,
                    _at(old.path, old.obj.pack.line_of("id"))))
    for name, node in graph.formulas.items():
        origin = origin_of.get(node.at.file, BUILTIN)
        if origin == BUILTIN:
            continue
        # the definition it took the place of, if that one is built-in (which replaced yet
        # another, as the measured profile's do the seed's, is not what this pack did)
        if node.replaced and origin_of.get(node.replaced[-1].rsplit(":", 1)[0],
                                           BUILTIN) == BUILTIN:
            found.append(Override(f"formula {name}", node.location, origin, node.replaced[-1]))
    return tuple(found)


def unconsented_problems(overrides: Sequence[Override]) -> list[Problem]:
    """A problem, at the replacing line, for each replacement the user did not agree to."""
    problems = []
    for override in overrides:
        if override.origin in CONSENTED_ORIGINS:
            continue
        file, _, line = override.location.rpartition(":")
        problems.append(Problem(
            f"replaces the built-in {override.what} ({override.replaced}); a pack from "
            f"{override.origin} may replace fitproof's own only with --allow-override (or "
            f"{ALLOW_OVERRIDE_ENV}=1)", file or override.location, int(line) if line.isdigit() else None,
            "override"))
    return problems


def _at(path: str, line: int | None) -> str:
    return f"{path}:{line}" if line else path
