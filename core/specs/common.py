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
class Location:
    """Where a value was written: the pack file, its line, and the key path to the value."""

    file: str
    line: int | None
    path: tuple[str | int, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


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

    def locate(self, *path: str | int) -> Location:
        """Where the value at ``path`` is written."""
        return Location(self.path, self.line_of(*path), tuple(path))

    def at(self, *path: str | int) -> str:
        """``file:line`` of the value at ``path``."""
        return str(self.locate(*path))


NO_PACK = PackFile(path="<api>")
