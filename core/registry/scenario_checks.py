"""Refusals and warnings: scenarios the verdicts pack refuses, or lets through with a
warning, each decided by a bool formula of the graph.

A refusal is the same everywhere: the full path, the snapshot path and the site evaluate
the same formula and fill the same message, so a context beyond what a model was trained
for is refused by ``estimate``, left out of a report's table with that message, and
refused by a page. A warning does not change the numbers; every output carries it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError, Problem
from ..views.message_format import fill
from ..views.message_format import problems as message_problems

if TYPE_CHECKING:
    from ..specs import Location, ScenarioCheck, VerdictPack

# a check as plain data: kind, condition, message, placeholder -> formula
Plain = tuple[str, str, str, Mapping[str, str]]

#: the names every check's message may use besides its own ``values``
NAMES = ("model", "hardware", "engine")
KINDS = ("refusals", "warnings")


@dataclass(frozen=True, slots=True)  # not attrs: the snapshot path imports this module
class CheckNode:
    """One refusal or warning of the verdicts pack, linked to the graph."""

    kind: str  # "refusals" or "warnings"
    check: ScenarioCheck
    at: Location

    @property
    def plain(self) -> Plain:
        """The check as plain data, which :func:`outcome` reads."""
        return (self.kind, self.check.when, self.check.message, dict(self.check.values))

    @property
    def reads(self) -> tuple[str, ...]:
        """The formulas and inputs it evaluates: its condition, then its message's values."""
        return (self.check.when, *self.check.values.values())


def link_checks(packs: Iterable[VerdictPack], known: Mapping[str, str]
                ) -> tuple[tuple[CheckNode, ...], list[Problem]]:
    """The checks of the verdict packs, and what is wrong with them: ``known`` maps every
    formula and input name of the graph to its unit; a condition must be a bool formula,
    a value any name, a message's placeholders its values or :data:`NAMES`."""
    nodes: list[CheckNode] = []
    problems: list[Problem] = []
    for pack in packs:
        for kind in KINDS:
            for index, check in enumerate(getattr(pack, kind)):
                at = pack.pack.locate(kind, index)
                field = f"{kind}.{index}"
                found = []
                if check.when not in known:
                    found.append(("when", f"unknown formula {check.when!r}"))
                elif known[check.when] != "bool":
                    found.append(("when", f"{check.when!r} is not a bool formula "
                                          f"(its unit is {known[check.when]!r})"))
                for name, formula in check.values.items():
                    if formula not in known:
                        found.append((f"values.{name}", f"unknown formula or input {formula!r}"))
                for message in message_problems(check.message, (*NAMES, *check.values)):
                    found.append(("message", message))
                for key, message in found:
                    line = pack.pack.line_of(kind, index, key.split(".")[0])
                    problems.append(Problem(message, at.file, line, f"{field}.{key}"))
                if not found:
                    nodes.append(CheckNode(kind, check, at))
    return tuple(nodes), problems


def shown_value(value: float | None) -> str:
    """A value as a message shows it: a whole number with thousands separators, else up
    to two decimals ("131,072", "2.5")."""
    if value is None or not math.isfinite(value):
        return "unknown"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def applies(truth: float | None) -> bool:
    """A check applies where its condition is true; unknown (a missing figure) is not."""
    return truth is not None and truth == truth and truth != 0


def outcome(checks: Iterable[Plain], value: Callable[[str], float | None],
            names: Mapping[str, str]) -> tuple[str | None, tuple[str, ...]]:
    """The first refusal that applies (its message) and the messages of every warning, of
    ``checks`` as plain data (:attr:`CheckNode.plain`, as a snapshot stores them), with
    ``value`` the scenario's value of a formula or input and ``names`` its names."""
    refusal = None
    warnings: list[str] = []
    for kind, when, message, values in checks:
        if not applies(value(when)):
            continue
        filled = fill(message, {**names, **{key: shown_value(value(formula))
                                           for key, formula in values.items()}})
        if kind == "refusals":
            refusal = refusal or filled
        else:
            warnings.append(filled)
    return refusal, tuple(warnings)


def refuse(message: str | None) -> None:
    """Raise the refusal, if there is one."""
    if message is not None:
        raise InputError(message)
