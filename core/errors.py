"""Errors fitproof reports to people: each one says what is wrong and where."""

from __future__ import annotations

from collections.abc import Iterable

from typing import NamedTuple


class Problem(NamedTuple):
    """One thing wrong with a pack or an input, located as precisely as we can.

    Rendered as ``file:line: field: message``; parts that are unknown are left out.
    """

    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = _legible(self.file) + (f":{self.line}" if self.line else "") + ": "
        field = f"{_legible(self.field)}: " if self.field else ""
        return f"{where}{field}{self.message}"


def _legible(text: str) -> str:
    """``text`` (a file name or a pack's key, as written) with every character a terminal
    would not show as itself escaped: a zero-width space (``\\u200b``) would hide, a
    right-to-left override reorder the rest of the line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class FitproofError(Exception):
    """Base class of every error fitproof raises on purpose."""

    exit_code = 1


class PackError(FitproofError):
    """One or more packs are invalid. Carries every problem found, not only the first."""

    exit_code = 1

    def __init__(self, problems: Iterable[Problem]):
        self.problems = sorted(
            problems, key=lambda p: (p.file or "", p.line or 0, p.field or "", p.message)
        )
        super().__init__("\n".join(str(p) for p in self.problems))


class InputError(FitproofError):
    """A value given by the user (on the command line or through the API) is not acceptable."""

    exit_code = 2


class UnknownIdError(InputError):
    """A name given by the user matches no pack; suggests the closest ids."""

    def __init__(self, kind: str, name: str, suggestions: list[str],
                 choices: list[str] | None = None):
        self.kind, self.name, self.suggestions = kind, name, suggestions
        if choices:
            hint = f"; choose one of {', '.join(choices)}"
        elif suggestions:
            hint = f"; did you mean {', '.join(suggestions)}?"
        else:
            hint = ""
        super().__init__(f"unknown {kind} {name!r}{hint}")


class ListedModelError(InputError):
    """A model name no pack describes, but a listing names: what is known and missing."""

    def __init__(self, name: str, stated: str, where: str, missing: str, config: str,
                 hf_repo: str | None):
        if config == "not understood":
            completes = ("fitproof's importer does not read that config yet; a model pack "
                         "written from it by hand completes it")
        elif hf_repo:
            completes = (f"`fitproof import hf {hf_repo}` completes it from the Hugging Face "
                         "Hub (network)")
        else:
            completes = ("`fitproof import hf ORG/NAME` with its Hugging Face repository "
                         "completes it (no source read names the repository)")
        super().__init__(f"{name!r} has no model pack, so it cannot be sized. Known: {stated}, "
                         f"from {where}. Missing: {missing}. {completes}")
        self.name = name


class EvaluationError(FitproofError):
    """A formula could not be evaluated for the scenario (e.g. a division by zero)."""

    exit_code = 1


class PluginCommandError(FitproofError):
    """A plugin's command failed (an exception of its own, or a result that is not text)."""

    exit_code = 1
