"""Find pack files, read and validate them (or take them from the cache), structure them.

Validation runs in stages and collects every problem: YAML → JSON Schema → cattrs →
per-file checks (the id equals the file name). Cross-pack checks live in registry/index.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import PackError, Problem
from ..specs import PackFile, structure_pack
from .cache_paths import CACHE_ENV as CACHE_ENV  # re-exported: where tests point the cache
from .cache_paths import cache_folder, read_private, seal, unseal, write_private
from .pack_files import PackSource, code_fingerprint
from .yaml_reader import YamlDocument, read_yaml

MAX_CACHE_BYTES = 512 * 2**20  # a larger cache file is not read
_CACHE_FORMAT = 1


def load_pack(source: PackSource,
              cached: dict[str, Any] | None = None) -> tuple[Any, YamlDocument]:
    """Read, validate and structure one pack; raise :class:`PackError` with every problem.

    ``cached`` is a previously validated ``{"data", "lines"}`` entry for the same bytes.
    """
    document = cached_document(source, cached) if cached is not None else None
    if document is None:
        document = read_yaml(source.raw, source.path)
        from .validation import validate_document

        problems = validate_document(document)
        if problems:
            raise PackError(problems)
    data = document.data
    problems = []
    if data.get("id") != source.stem:
        problems.append(Problem(f"id {data.get('id')!r} must equal the file name "
                                f"({source.stem!r})", source.path, document.line_of(("id",)),
                                "id"))
    pack_file = PackFile(source.path, source.origin, document.lines)
    try:
        pack = structure_pack(data, pack_file)
    except Exception as exc:  # cattrs raises ExceptionGroups describing each field
        import cattrs

        messages = cattrs.transform_error(exc) if isinstance(exc, cattrs.BaseValidationError) \
            else [str(exc)]
        problems += [Problem(f"cannot structure: {m}", source.path, 1) for m in messages]
        pack = None
    if problems:
        raise PackError(problems)
    return pack, document


def cached_document(source: PackSource, cached: Any) -> YamlDocument | None:
    """The document a cache entry holds, or ``None`` (read the file) when the entry is not
    the shape this version writes."""
    try:
        data, lines = cached["data"], cached["lines"]
        if not isinstance(data, dict):
            return None
        if not isinstance(lines, list):
            return None
    except (KeyError, TypeError):
        return None
    return YamlDocument(source.path, data, CachedLines(lines))


class CachedLines(Mapping[tuple[str | int, ...], int]):
    """A cache entry's line table, turned into a dict only when a line is first looked up:
    most packs of a load are never asked for a line, and building every table was a third
    of a warm load. Its pairs are checked then, not when the entry is read: only this code
    writes entries (the cache's header names it, its seal refuses anyone else's), so a
    table of another shape is not expected; should one occur, its lines read as line 1,
    never as an error."""

    def __init__(self, pairs: list[Any]) -> None:
        self._pairs: list[Any] | None = pairs
        self._table: dict[tuple[str | int, ...], int] = {}

    def _built(self) -> dict[tuple[str | int, ...], int]:
        if self._pairs is not None:
            try:
                self._table = {tuple(path): int(line) for path, line in self._pairs}
            except (TypeError, ValueError):
                self._table = {}
            self._pairs = None
        return self._table

    def __getitem__(self, key: tuple[str | int, ...]) -> int:
        return self._built()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._built()

    def __iter__(self) -> Iterator[tuple[str | int, ...]]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())


# -- cache ----------------------------------------------------------------------------------
CACHE_ENTRIES = 10_000  # validated packs kept, most recently added pack sets first
def cache_file() -> Path | None:
    """Where validated packs are cached; ``FITPROOF_CACHE_DIR=off`` disables the cache."""
    folder = cache_folder()
    return None if folder is None else folder / "packs.json"


def _cache_header() -> str:
    from ..version import __version__
    from .validation import schema_fingerprint

    # the code that validates and structures packs is part of the key, as for snapshots
    return f"{_CACHE_FORMAT}:{__version__}:{schema_fingerprint()}:{code_fingerprint()}"


def read_cache(path: Path | None) -> tuple[str, dict[str, Any]]:
    """Header and entries of the cache (empty when absent, stale or unreadable)."""
    header = _cache_header()
    if path is None:
        return header, {}
    raw = read_private(path, MAX_CACHE_BYTES)
    body = unseal(path.parent, raw) if raw is not None else None  # planted or edited: a miss
    try:
        content = json.loads(body) if body is not None else None
    except (ValueError, RecursionError):
        return header, {}
    if not isinstance(content, dict) or content.get("header") != header:
        return header, {}
    entries = content.get("entries")
    return header, entries if isinstance(entries, dict) else {}


def write_cache(path: Path | None, header: str, entries: dict[str, Any]) -> None:
    """Atomically replace the cache file; failures are ignored (the cache is optional)."""
    if path is not None:
        text = json.dumps({"header": header, "entries": entries}, ensure_ascii=False,
                          separators=(",", ":"))
        sealed = seal(path.parent, text.encode("utf-8"))
        if sealed is not None:
            write_private(path, sealed)


def cache_entry(document: YamlDocument) -> dict[str, Any]:
    return {"data": document.data,
            "lines": [[list(path), line] for path, line in document.lines.items()]}
