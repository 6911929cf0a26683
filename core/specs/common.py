"""Shared parts of every pack: a figure with its source, and the file and lines a pack came from."""

from __future__ import annotations

from collections.abc import Mapping

import attrs


Sources = tuple[str, ...]


@attrs.frozen
class Figure:
    """A number with its provenance."""

    value: float
    source: Sources = ()
    note: str | None = None
    approximate: bool = False


@attrs.frozen
class PackFile:
    """Where a pack came from: its display path, the plugin that provided it, its lines."""

    path: str
    origin: str = "fitproof"
    lines: Mapping[tuple[str | int, ...], int] = attrs.field(factory=dict, eq=False, repr=False)

    def line_of(self, *path: str | int) -> int | None:
        """Line of the value at ``path`` (or of its nearest ancestor)."""
        key = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return 1

    def at(self, *path: str | int) -> str:
        """``file:line`` of the value at ``path``."""
        return f"{self.path}:{self.line_of(*path)}"


NO_PACK = PackFile(path="<api>")
