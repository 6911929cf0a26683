"""Find pack files, read and validate them (or take them from the cache), structure them.

Validation runs in stages and collects every problem: YAML → JSON Schema → cattrs →
per-file checks (the id equals the file name). Cross-pack checks live in registry.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import attrs

from .errors import PackError, Problem
from .plugins import PackRoot
from .specs import PackFile, structure_pack
from .yaml_reader import MAX_PACK_BYTES, YamlDocument, read_yaml

PACK_SUFFIXES = (".yaml", ".yml")
CACHE_ENV = "FITPROOF_CACHE_DIR"
_CACHE_FORMAT = 1


@attrs.frozen
class PackSource:
    """One pack file found under a root: its display path and raw bytes."""

    path: str
    origin: str
    stem: str
    raw: bytes = attrs.field(repr=False)

    @property
    def digest(self) -> str:
        return hashlib.blake2b(self.raw, digest_size=20).hexdigest()


def _walk(folder: Path | Traversable, prefix: str, seen: set[Path] | None = None
          ) -> Iterator[tuple[str, Path | Traversable]]:
    """Pack files under ``folder``; a folder reached twice (a link back to a parent, or two
    links to one folder) is walked once, so the walk always ends."""
    seen = set() if seen is None else seen
    if isinstance(folder, Path):
        real = folder.resolve()
        if real in seen:
            return
        seen.add(real)
    entries = sorted(folder.iterdir(), key=lambda e: e.name)
    for entry in entries:
        name = entry.name
        if name.startswith((".", "_")):
            continue
        if entry.is_dir():
            yield from _walk(entry, f"{prefix}/{name}", seen)
        elif name.endswith(PACK_SUFFIXES):
            yield f"{prefix}/{name}", entry


def find_pack_files(roots: Iterable[PackRoot]) -> tuple[list[PackSource], list[Problem]]:
    """Every pack file under ``roots``, in order, with problems for unreadable roots."""
    sources: list[PackSource] = []
    problems: list[Problem] = []
    for root in roots:
        folder = root.root
        try:
            if folder.is_file():
                entries = [(root.label, folder)]
            elif folder.is_dir():
                entries = list(_walk(folder, root.label.rstrip("/\\")))
            else:
                what = ("is not a pack file or folder (a device, pipe or socket)"
                        if isinstance(folder, Path) and folder.exists()
                        else "pack folder does not exist")
                problems.append(Problem(f"{what} (from {root.origin})", root.label))
                continue
            for display, entry in entries:
                if isinstance(entry, Path) and not entry.is_file():  # never open a pipe
                    problems.append(Problem("is not a regular file (a device, pipe or "
                                            "socket); packs are read from files", display))
                    continue
                size = entry.stat().st_size if isinstance(entry, Path) else None
                if size is not None and size > MAX_PACK_BYTES:  # never read a huge file
                    problems.append(Problem(f"file is {size:,} bytes; a pack may be at most "
                                            f"{MAX_PACK_BYTES:,} bytes", display))
                    continue
                raw = entry.read_bytes()
                stem = entry.name.rsplit(".", 1)[0]
                sources.append(PackSource(display, root.origin, stem, raw))
        except OSError as exc:
            problems.append(Problem(f"cannot read packs: {exc.strerror or exc}", root.label))
    return sources, problems


def load_pack(source: PackSource,
              cached: dict[str, Any] | None = None) -> tuple[Any, YamlDocument]:
    """Read, validate and structure one pack; raise :class:`PackError` with every problem.

    ``cached`` is a previously validated ``{"data", "lines"}`` entry for the same bytes.
    """
    if cached is not None:
        document = YamlDocument(source.path, cached["data"],
                                {tuple(path): line for path, line in cached["lines"]})
    else:
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


# -- cache ----------------------------------------------------------------------------------
CACHE_ENTRIES = 5000  # validated packs kept, most recently added pack sets first
def cache_file() -> Path | None:
    """Where validated packs are cached; ``FITPROOF_CACHE_DIR=off`` disables the cache."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        if configured.strip().lower() in ("", "off", "0", "none"):
            return None
        base = Path(configured)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) / "fitproof" if xdg else Path.home() / ".cache" / "fitproof"
    return base / "packs.json"


def _cache_header() -> str:
    from .version import __version__
    from .validation import schema_fingerprint

    return f"{_CACHE_FORMAT}:{__version__}:{schema_fingerprint()}"


def read_cache(path: Path | None) -> tuple[str, dict[str, Any]]:
    """Header and entries of the cache (empty when absent, stale or unreadable)."""
    header = _cache_header()
    if path is None:
        return header, {}
    try:
        content = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return header, {}
    if not isinstance(content, dict) or content.get("header") != header:
        return header, {}
    entries = content.get("entries")
    return header, entries if isinstance(entries, dict) else {}


def write_cache(path: Path | None, header: str, entries: dict[str, Any]) -> None:
    """Atomically replace the cache file; failures are ignored (the cache is optional)."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".packs-", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump({"header": header, "entries": entries}, stream, ensure_ascii=False,
                      separators=(",", ":"))
        os.replace(temporary, path)
    except OSError:
        pass


def cache_entry(document: YamlDocument) -> dict[str, Any]:
    return {"data": document.data,
            "lines": [[list(path), line] for path, line in document.lines.items()]}
