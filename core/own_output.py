"""What fitproof writes is its own: files and folders, and how big a job is before it starts.

Every command that writes goes through here (``site``, ``sweep --out``, the packs that
``import``, ``bench ingest`` and ``calibrate`` write, any ``--out FILE``):

* nothing is written through a symbolic link: a link where fitproof would write is refused
  in one line and its target never opened. A file is written beside its name and renamed
  over it (``os.replace`` replaces a link made meanwhile, never follows it); a device or a
  pipe named on purpose (``--out /dev/null``) is written as it is;
* a path under a regular file (``--out afile/sub``) is refused in one line;
* a site folder (``SiteFolder``) is written only when it is missing, empty or carries
  ``MARKER`` from an earlier build. The site is built in a temporary sibling folder and
  renamed into place at the end, so a killed build leaves the previous site or none,
  never a mix; a sibling a killed build left behind is removed by the next build (when
  the process that made it is gone) and otherwise ignored. ``force`` writes into any
  other folder file by file, still never through a link, deleting nothing and leaving no
  marker (the folder stays the user's). The home folder and the folders above it are never
  a site folder, ``force`` or not;
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

from .errors import InputError

MARKER = ".fitproof-site"  # a site folder fitproof built: rebuilt whole by the next build
_MARK = b"This folder is a site fitproof built; `fitproof site` replaces it whole.\n"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


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
        temporary = target.with_name(f".{target.name}.fitproof-{secrets.token_hex(6)}")
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


def _first_link(folder: Path) -> Path | None:
    """The first symbolic link inside ``folder`` (links are not followed)."""
    for root, dirs, names in os.walk(folder):
        for name in sorted(dirs + names):
            if os.path.islink(os.path.join(root, name)):
                return Path(root, name)
    return None


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
        if mark is None or not stat.S_ISREG(mark.st_mode):
            if not self.force:
                raise InputError(f"{given} is not empty and not a site fitproof built (no "
                                 f"{MARKER}); give an empty or new folder, or pass --force "
                                 "to write into it")
            return "theirs"
        link = _first_link(folder)
        if link is not None:
            raise _link(link)
        return "ours"

    def open(self) -> Path:
        """Make the temporary sibling the build writes into (after removing any a killed
        build left), and return it."""
        parent = self.folder.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self._remove_stale(parent)
            self.staging = Path(_make_folder(parent, self._prefix()))
        except OSError as exc:
            raise InputError(f"cannot write {self.given}: {exc.strerror or exc}") from None
        return self.staging

    def _prefix(self) -> str:
        return f".{self.folder.name}.fitproof-{os.getpid()}-"

    def _remove_stale(self, parent: Path) -> None:
        if os.name != "posix":
            return  # no safe way to ask whether a process lives: left alone
        pattern = re.compile(rf"\.{re.escape(self.folder.name)}\.fitproof-(\d+)-[0-9a-f]+")
        for entry in os.scandir(parent):
            found = pattern.fullmatch(entry.name)
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
            self.write(MARKER, _MARK)
            aside = None
            if _lstat(self.folder) is not None:
                again = SiteFolder(self.folder, force=False)._check()  # still empty or ours
                if again not in ("empty", "ours"):
                    raise InputError(f"{self.given} changed while the site was built; "
                                     "nothing was replaced")
                aside = self.folder.with_name(self._prefix() + secrets.token_hex(6))
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


def _make_folder(parent: Path, prefix: str) -> str:
    import tempfile

    made = tempfile.mkdtemp(prefix=prefix, dir=parent)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(made, 0o777 & ~mask)  # as a folder made by mkdir: readable by a web server
    return made


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
