"""Where packs are and what they hold: pack roots (a plugin's folder, the user's pack folder,
``--pack-dir``, ``FITPROOF_PACK_PATH``), the walk over their files, and each file's bytes.

Nothing here parses YAML or imports a third-party library, so the snapshot path of a
single estimate (``fast/snapshot.py``) lists and fingerprints the same files a full load reads.
Only regular files are opened, none over ``MAX_PACK_BYTES``, and a folder reached twice
through links is walked once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple


from ..errors import Problem

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

try:  # CPython's own BLAKE2, without the OpenSSL library importing hashlib loads
    from _blake2 import blake2b as blake2b
except ImportError:  # pragma: no cover - another interpreter
    from hashlib import blake2b as blake2b

MAX_PACK_BYTES = 1_000_000
# a pack folder is small: a walk that meets more entries than this (FITPROOF_PACK_PATH=/,
# or /proc/self, whose root link leads to the whole file system) stops with a problem
MAX_WALK_ENTRIES = 20_000
PACK_SUFFIXES = (".yaml", ".yml")
PACK_PATH_ENV = "FITPROOF_PACK_PATH"
# the user's own packs (``fitproof import`` writes there): FITPROOF_USER_PACKS, or "packs" in
# the user data folder platformdirs names (~/.local/share/fitproof/packs on Linux)
USER_PACKS_ENV = "FITPROOF_USER_PACKS"
USER_PACKS_ORIGIN = "user packs"
_OFF = ("", "off", "0", "none")


def package_folder(package: str) -> Path | Traversable:
    """The folder of data package ``package`` (``fitproof.packs``): a path when it is
    installed as files, as it nearly always is, else what importlib.resources gives."""
    from importlib import import_module

    location = getattr(import_module(package), "__file__", None)
    if location:
        folder = Path(location).parent
        if folder.is_dir():
            return folder
    from importlib.resources import files

    return files(package)


def code_fingerprint() -> str:
    """The size and modification time of fitproof's modules and schemas (as Python checks
    its bytecode caches): a snapshot built by other code is a miss, even at the same
    version number (an editable install being worked on)."""
    digest = blake2b(digest_size=20)
    package = Path(__file__).resolve().parent.parent  # fitproof itself, and each layer's folder
    schemas = package_folder("fitproof.schemas")
    folders = [package, *sorted(p for p in package.iterdir() if (p / "__init__.py").is_file())]
    for folder, suffix in [*((f, ".py") for f in folders), (schemas, ".json")]:
        for item in sorted(folder.iterdir(), key=lambda e: e.name):
            if item.name.endswith(suffix):
                if isinstance(item, Path):
                    info = item.stat()
                    digest.update(f"{folder.name}/{item.name}\0{info.st_size}\0"
                                  f"{info.st_mtime_ns}\0".encode())
                else:
                    digest.update(item.name.encode() + b"\0" + item.read_bytes())
    return digest.hexdigest()


class PackRoot(NamedTuple):
    """A folder (or file) of packs and who provided it."""

    root: Path | Traversable
    origin: str
    label: str


class PackSource(NamedTuple):
    """One pack file found under a root: its display path and raw bytes."""

    path: str
    origin: str
    stem: str
    raw: bytes

    def __repr__(self) -> str:
        return f"PackSource(path={self.path!r}, origin={self.origin!r}, {len(self.raw):,} bytes)"

    @property
    def digest(self) -> str:
        return blake2b(self.raw, digest_size=20).hexdigest()


class WalkTooLarge(Exception):
    """A pack folder holds more entries than :data:`MAX_WALK_ENTRIES`."""


def _walk(folder: Path | Traversable, prefix: str, seen: set[str] | None = None,
          budget: list[int] | None = None) -> Iterator[tuple[str, Path | Traversable]]:
    """Pack files under ``folder``, by name; a folder reached twice (a link back to a
    parent, or two links to one folder) is walked once, and a walk past
    :data:`MAX_WALK_ENTRIES` entries raises :class:`WalkTooLarge`, so the walk always ends,
    and soon."""
    seen = set() if seen is None else seen
    budget = [MAX_WALK_ENTRIES] if budget is None else budget
    if isinstance(folder, Path):
        real = os.path.realpath(folder)
        if real in seen:
            return
        seen.add(real)
        with os.scandir(folder) as listing:
            found = sorted(listing, key=lambda e: e.name)
        budget[0] -= len(found)
        if budget[0] < 0:
            raise WalkTooLarge()
        for item in found:
            name = item.name
            if name.startswith((".", "_")):
                continue
            try:
                folder_item = item.is_dir()
            except OSError:  # a loop of links: reading it as a pack says what is wrong
                folder_item = False
            if folder_item:
                yield from _walk(Path(item.path), f"{prefix}/{name}", seen, budget)
            elif name.endswith(PACK_SUFFIXES):
                yield f"{prefix}/{name}", Path(item.path)
        return
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        name = entry.name
        if name.startswith((".", "_")):
            continue
        if entry.is_dir():
            yield from _walk(entry, f"{prefix}/{name}", seen, budget)
        elif name.endswith(PACK_SUFFIXES):
            yield f"{prefix}/{name}", entry


NOT_A_FILE = "is not a regular file (a device, pipe or socket); packs are read from files"


def _read_file(path: Path, display: str) -> bytes | Problem:
    """The bytes of pack file ``path``, or the problem that keeps it from being read (see
    :func:`read_bounded`): one file's problem, so the other packs of its folder still load."""
    try:
        return read_bounded(path, MAX_PACK_BYTES)
    except NotARegularFile:
        return Problem(NOT_A_FILE, display)
    except TooLarge as exc:  # never read a huge file
        return Problem(f"file is {exc.size:,} bytes; a pack may be at most "
                       f"{MAX_PACK_BYTES:,} bytes", display)
    except OSError as exc:  # a link to nothing, a loop of links, no permission
        return Problem(f"cannot read: {exc.strerror or exc}", display)


class NotARegularFile(ValueError):
    def __init__(self) -> None:
        super().__init__("is not a regular file (a device, pipe or socket)")


class TooLarge(ValueError):
    def __init__(self, size: int, limit: int):
        self.size = size
        super().__init__(f"is {size:,} bytes; at most {limit:,} are read")


def open_regular(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A descriptor of regular file ``path`` and its status: opened without waiting (a pipe
    never blocks) and checked on the opened file (a link to a device is refused). Raises
    :class:`NotARegularFile`, and ``OSError`` when it cannot be opened."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise NotARegularFile()
    return descriptor, info


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of regular file ``path`` (see :func:`open_regular`), at most ``limit`` of
    them; raises :class:`TooLarge` (a ``ValueError``) for a larger file."""
    descriptor, info = open_regular(path)
    try:
        if info.st_size > limit:
            raise TooLarge(info.st_size, limit)
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(descriptor, min(left, info.st_size + 1))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:  # it grew since it was measured
            raise TooLarge(len(data), limit)
        return data
    finally:
        os.close(descriptor)


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
                raw = _read_file(entry, display) if isinstance(entry, Path) else entry.read_bytes()
                if isinstance(raw, Problem):
                    problems.append(raw)
                    continue
                stem = entry.name.rsplit(".", 1)[0]
                sources.append(PackSource(display, root.origin, stem, raw))
        except OSError as exc:
            problems.append(Problem(f"cannot read packs: {exc.strerror or exc}", root.label))
        except WalkTooLarge:
            problems.append(Problem(
                f"holds more than {MAX_WALK_ENTRIES:,} files and folders (from {root.origin}); "
                "a pack folder is small: name the folder that holds the packs", root.label))
        except Exception as exc:  # noqa: BLE001 - a plugin's own folder object failed
            if isinstance(folder, Path):
                raise
            problems.append(Problem(f"cannot read packs: the registered folder raised "
                                    f"{type(exc).__name__}: {exc} (from {root.origin})",
                                    root.label))
    return sources, problems


# who may replace fitproof's own packs without being asked (core/registry/overrides.py): packs the
# user named or wrote themselves, on their own command line (--pack-dir, a file given to
# packs validate or import) or in their own pack folder (what import, bench ingest and
# calibrate write on their command); a plugin's or FITPROOF_PACK_PATH's need consent
CONSENTED_ORIGINS = ("--pack-dir", "validate", "import", USER_PACKS_ORIGIN)
ALLOW_OVERRIDE_ENV = "FITPROOF_ALLOW_OVERRIDE"


def consented(allow_override: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the user lets packs they did not name replace built-in ones
    (``--allow-override``, or ``FITPROOF_ALLOW_OVERRIDE=1``)."""
    environ = os.environ if environ is None else environ
    return allow_override or \
        environ.get(ALLOW_OVERRIDE_ENV, "").strip().lower() in ("1", "yes", "true")


def user_pack_folder(environ: Mapping[str, str] | None = None) -> Path | None:
    """The user's pack folder (whether or not it exists yet), or ``None`` when
    ``FITPROOF_USER_PACKS`` is ``off``."""
    environ = os.environ if environ is None else environ
    configured = environ.get(USER_PACKS_ENV)
    if configured is not None:
        return None if configured.strip().lower() in _OFF else Path(configured)
    import platformdirs

    return Path(platformdirs.user_data_dir("fitproof", appauthor=False)) / "packs"


def local_pack_roots(pack_dirs: Iterable[str | os.PathLike[str]] = (), *,
                     environ: Mapping[str, str] | None = None) -> list[PackRoot]:
    """The user's pack folder when it exists, the folders of ``FITPROOF_PACK_PATH``
    (os.pathsep-separated), then ``pack_dirs``."""
    environ = os.environ if environ is None else environ
    user = user_pack_folder(environ)
    roots = [PackRoot(user, USER_PACKS_ORIGIN, str(user))] if user and user.is_dir() else []
    folders = [p for p in environ.get(PACK_PATH_ENV, "").split(os.pathsep) if p]
    roots += [PackRoot(Path(p), PACK_PATH_ENV, p) for p in folders]
    roots += [PackRoot(Path(p), "--pack-dir", os.fspath(p)) for p in pack_dirs]
    return roots
