"""What fitproof writes is its own: files and folders, and how big a job is before it starts.

Every command that writes goes through here (``site``, ``sweep --out``, the packs that
``import``, ``bench ingest`` and ``calibrate`` write, any ``--out FILE``):

* nothing is written through a symbolic link: the file or folder fitproof creates or
  replaces is never a link (a link there is refused in one line and its target never
  opened), and nothing inside a site folder is. The folders above it are the user's path
  as typed, links included (macOS's /tmp, a linked home folder): written through. A file
  is written beside its name and renamed over it (``os.replace`` replaces a link made
  meanwhile, never follows it); a device or a pipe named on purpose (``--out /dev/null``)
  is written as it is;
* a path under a regular file (``--out afile/sub``) is refused in one line; an existing
  ``--out FILE`` is replaced only with ``--force`` (``check_new_file``);
* a site folder (``SiteFolder``) is written only when it is missing, empty or fitproof's:
  ``MARKER`` is a manifest (``_HEADER``, then every file and folder the build wrote) and
  the folder holds nothing it does not list. The site is built in a temporary sibling
  folder and renamed into place at the end, so a killed build leaves the previous site or
  none, never a mix; a sibling a killed build left behind is removed by the next build
  (when the process that made it is gone) and otherwise ignored. Temporary siblings are
  named by ``_temp_name`` (short, whatever the target's name) and found by ``_TEMP``.
  ``force`` writes into any other folder file by file, still never through a link,
  deleting nothing and leaving no marker (the folder stays the user's). The home folder,
  the working folder and the folders above them are never a site folder, ``force`` or not;
* a job past its limit (``check_size``) is refused before it starts, saying how big it is
  and that ``--yes`` runs it.

The cache (``cache_paths.write_private``) writes its files the same way, privately.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError

MARKER = ".fitproof-site"  # a site folder fitproof built: its manifest
# the manifest's first line; then one line per file or folder the build wrote (relative,
# '/'-separated; a backslash and a line feed written as two backslashes and backslash-n)
_HEADER = (b"fitproof site manifest 1: `fitproof site` replaces this folder whole while it "
           b"holds only the files and folders listed here\n")
_MANIFEST_LIMIT = 64 * 2**20  # bytes read of a marker; a bigger one is not fitproof's
# the temporary siblings fitproof makes (a file written, a site built, an old site set
# aside): one definition for naming them and for finding those a killed process left
_TEMP = re.compile(r"\.fp-(\d+)-([0-9a-f]{12})\.tmp")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _temp_name() -> str:
    """A name for a temporary sibling: ``.fp-PID-RANDOM.tmp``, as short whatever it stands
    beside (a 255-byte name has room for no suffix)."""
    name = f".fp-{os.getpid()}-{secrets.token_hex(6)}.tmp"
    assert _TEMP.fullmatch(name)
    return name


def check_size(count: int, limit: int, *, job: str, unit: str, narrow: str,
               yes: bool) -> None:
    """Refuse a ``job`` of ``count`` ``unit`` (a sweep of N scenarios, a site of N pages)
    past ``limit`` unless ``yes``; ``narrow`` names the options that make it smaller."""
    if count > limit and not yes:
        raise InputError(f"this {job} has {count:,} {unit}, over fitproof's limit of "
                         f"{limit:,}; pass --yes to go ahead, or narrow {narrow}")


def _link(path: Path) -> InputError:
    return InputError(f"{path} is a symbolic link; fitproof does not write through links")


def check_parents(path: Path) -> None:
    """Refuse ``path`` when the nearest of its folders that exists is not a folder."""
    for parent in path.parents:
        try:
            info = os.stat(parent)
        except (FileNotFoundError, NotADirectoryError):
            continue  # a folder further up is a file: said when it is reached
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
        if not stat.S_ISDIR(info.st_mode):
            raise InputError(f"cannot write {path}: {parent} is a file, not a folder")
        return


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def check_target(target: Path) -> os.stat_result | None:
    """Refuse file ``target`` when it is a link or a folder, or under a file; its ``lstat``
    (``None``: missing)."""
    check_parents(target)
    info = _lstat(target)
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise _link(target)
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"cannot write {target}: it is a folder")
    return info


def check_new_file(path: str | os.PathLike[str], *, force: bool = False) -> None:
    """Refuse ``--out FILE`` ``path`` as ``check_target`` does, and when a regular file is
    there already, unless ``force`` (a device or a pipe is written as it is)."""
    info = check_target(Path(path))
    if info is not None and stat.S_ISREG(info.st_mode) and not force:
        raise InputError(f"{path} exists; pass --force to overwrite it")


def write_file(path: str | os.PathLike[str], data: bytes | str, *,
               make_folders: bool = False) -> Path:
    """Write ``data`` (text as UTF-8) to file ``path`` (``make_folders``: its folders made
    as needed) whole, a temporary sibling renamed over it, never through a link; one-line
    errors."""
    target = Path(path)
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    info = check_target(target)
    try:
        if info is not None and not stat.S_ISREG(info.st_mode):  # /dev/null, a pipe
            descriptor = os.open(target, os.O_WRONLY | _NOFOLLOW | os.O_NONBLOCK)
            os.set_blocking(descriptor, True)  # opened without waiting, written in full
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(raw)
            return target
        if make_folders:
            target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(_temp_name())
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(raw)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
    return target


def _entry(relative: str) -> bytes:
    """A manifest line for path ``relative`` (no line feed)."""
    return os.fsencode(relative).replace(b"\\", b"\\\\").replace(b"\n", b"\\n")


def _walk(folder: Path) -> tuple[list[str], Path | None]:
    """Every file and folder under ``folder`` (relative, '/'-separated, sorted), and the
    first symbolic link among them (links are not followed)."""
    found: list[str] = []
    link = None
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(dirs + names):
            path = os.path.join(root, name)
            found.append(os.path.relpath(path, folder).replace(os.sep, "/"))
            if link is None and os.path.islink(path):
                link = Path(path)
    return found, link


def manifest(folder: Path) -> bytes:
    """The marker for site folder ``folder``: ``_HEADER``, then what it holds."""
    found, _ = _walk(folder)
    return _HEADER + b"".join(_entry(name) + b"\n" for name in found if name != MARKER)


def _listed(folder: Path) -> set[bytes] | None:
    """The files and folders the marker of ``folder`` lists; ``None`` when it is no
    manifest of fitproof's (missing, not a regular file, too big, another first line)."""
    try:
        descriptor = os.open(folder / MARKER, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MANIFEST_LIMIT:
            return None
        raw = stream.read(_MANIFEST_LIMIT + 1)
    if not raw.startswith(_HEADER) or not raw.endswith(b"\n") or len(raw) > _MANIFEST_LIMIT:
        return None
    return set(raw[len(_HEADER):-1].split(b"\n"))  # not splitlines: a name may hold '\r'


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process
    return True


class SiteFolder:
    """Where a site build writes: checked before the build, built in a temporary sibling,
    swapped in by ``commit`` (``discard`` removes the sibling)."""

    def __init__(self, folder: str | os.PathLike[str], *, force: bool = False):
        self.given = Path(folder)  # as the user wrote it, for messages
        self.folder = Path(os.path.abspath(folder))  # '.' has a name and a parent
        self.force = force
        self.state = self._check()
        self.staging: Path | None = None

    def _check(self) -> str:
        """``missing``, ``empty``, ``ours`` or ``theirs`` (only with ``force``)."""
        folder, given = self.folder, self.given
        check_parents(given)
        with contextlib.suppress(RuntimeError, OSError):  # no home folder: nothing to keep
            home, resolved = Path.home().resolve(), folder.resolve()
            if resolved == home or resolved in home.parents:
                raise InputError(f"{given} is your home folder or holds it; give the site a "
                                 "folder of its own")
        with contextlib.suppress(OSError):  # no working folder (deleted): nothing to keep
            here, resolved = Path.cwd().resolve(), folder.resolve()
            if resolved == here or resolved in here.parents:
                raise InputError(f"{given} is the working folder or holds it; give the site "
                                 "a folder of its own")
        info = _lstat(folder)
        if info is None:
            return "missing"
        if stat.S_ISLNK(info.st_mode):
            raise _link(given)
        if not stat.S_ISDIR(info.st_mode):
            raise InputError(f"{given}: --out must be a folder")
        try:
            names = os.listdir(folder)
        except OSError as exc:
            raise InputError(f"cannot write {given}: {exc.strerror or exc}") from None
        if not names:
            return "empty"
        mark = _lstat(folder / MARKER)
        listed = _listed(folder) if mark and stat.S_ISREG(mark.st_mode) else None
        if listed is None:
            if not self.force:
                why = f"no {MARKER}" if mark is None else f"its {MARKER} is not fitproof's"
                raise InputError(f"{given} is not empty and not a site fitproof built ({why}); "
                                 "give an empty or new folder, or pass --force to write into it")
            return "theirs"
        found, link = _walk(folder)
        if link is not None:
            raise _link(link)
        others = [name for name in found if name != MARKER and _entry(name) not in listed]
        if others:
            if not self.force:
                raise InputError(f"{given} holds files fitproof did not write (e.g. "
                                 f"{given / others[0]}); pass --force to write into it, "
                                 "deleting nothing, or move them out")
            return "theirs"
        return "ours"

    def open(self) -> Path:
        """Make the temporary sibling the build writes into (after removing any a killed
        build left), and return it."""
        parent = self.folder.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self._remove_stale(parent)
            self.staging = _make_folder(parent)
        except OSError as exc:
            raise InputError(f"cannot write {self.given}: {exc.strerror or exc}") from None
        return self.staging

    def _remove_stale(self, parent: Path) -> None:
        if os.name != "posix":
            return  # no safe way to ask whether a process lives: left alone
        # and the names earlier versions gave (tempfile.mkdtemp's [a-z0-9_] suffix)
        legacy = re.compile(rf"\.{re.escape(self.folder.name)}\.fitproof-(\d+)-[a-z0-9_]+")
        for entry in os.scandir(parent):
            found = _TEMP.fullmatch(entry.name) or legacy.fullmatch(entry.name)
            if (found and entry.is_dir(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_uid == os.getuid()
                    and not _alive(int(found.group(1)))):
                shutil.rmtree(entry.path, ignore_errors=True)

    def write(self, relative: str, raw: bytes) -> None:
        """Write file ``relative`` of the site (into the temporary sibling)."""
        assert self.staging is not None, "open() first"
        path = self.staging / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666)
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(raw)
        except OSError as exc:
            raise InputError(f"cannot write {self.given}: {exc.strerror or exc}") from None

    def commit(self) -> None:
        """Put the built site in place of the folder."""
        assert self.staging is not None, "open() first"
        try:
            if self.state == "theirs":
                self._merge()
                return
            self.write(MARKER, manifest(self.staging))
            aside = None
            if _lstat(self.folder) is not None:
                again = SiteFolder(self.folder, force=False).state  # still empty or ours
                if again not in ("empty", "ours"):
                    raise InputError(f"{self.given} changed while the site was built; "
                                     "nothing was replaced")
                aside = self.folder.with_name(_temp_name())
                os.rename(self.folder, aside)
            os.rename(self.staging, self.folder)
            self.staging = None
            if aside is not None:
                shutil.rmtree(aside, ignore_errors=True)
        except OSError as exc:
            raise InputError(f"cannot write {self.given}: {exc.strerror or exc}") from None

    def _merge(self) -> None:
        """``force`` into a folder that is not fitproof's: every file moved in, each
        replaced whole; a link on the way refuses the lot before anything moves."""
        assert self.staging is not None
        files = sorted(p.relative_to(self.staging) for p in self.staging.rglob("*")
                       if p.is_file())
        for relative in files:
            for step in [*reversed(relative.parents[:-1]), relative]:
                info = _lstat(self.folder / step)
                if info is not None and stat.S_ISLNK(info.st_mode):
                    raise _link(self.folder / step)
                if info is not None and (stat.S_ISDIR(info.st_mode) != (step != relative)):
                    raise InputError(f"cannot write {self.folder / relative}: "
                                     f"{self.folder / step} is in the way")
        root = os.open(self.folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
        try:
            for relative in files:
                with _folder_of(root, relative.parts[:-1]) as where:
                    os.replace(self.staging / relative, relative.name, dst_dir_fd=where)
        finally:
            os.close(root)

    def discard(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None


def _make_folder(parent: Path) -> Path:
    """A new folder of a ``_temp_name`` in ``parent`` (as mkdir makes it: readable by a web
    server)."""
    for _ in range(100):
        made = parent / _temp_name()
        try:
            os.mkdir(made, 0o777)
        except FileExistsError:
            continue
        return made
    raise FileExistsError(f"no free temporary name in {parent}")


@contextlib.contextmanager
def _folder_of(root: int, parts: tuple[str, ...]) -> Iterator[int]:
    """A descriptor of folder ``parts`` under descriptor ``root``, each step made when
    missing and opened without following a link."""
    opened: list[int] = []
    where = root
    try:
        for part in parts:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=where)
            where = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=where)
            opened.append(where)
        yield where
    finally:
        for descriptor in opened:
            os.close(descriptor)


@contextlib.contextmanager
def site_folder(folder: str | os.PathLike[str], *, force: bool = False) -> Iterator[SiteFolder]:
    """A checked ``SiteFolder``, opened; committed when the block ends, discarded when it
    raises (or is interrupted)."""
    target = SiteFolder(folder, force=force)
    target.open()
    try:
        yield target
        target.commit()
    finally:
        target.discard()
