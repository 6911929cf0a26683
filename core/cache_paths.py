"""Where fitproof caches what it derived from packs, and whether a cached file may be read.

The folder is ``FITPROOF_CACHE_DIR`` when set (``off`` disables caching), else the user's
cache folder as platformdirs names it (``~/.cache/fitproof`` on Linux). A cache file is
read only when it is a regular file of at most ``limit`` bytes, owned by the user running
fitproof and writable by no one else, in a folder no one else can write: so another
account cannot plant figures, and a pipe or a link to a device is never opened for reading
without end. Anything else is treated as absent.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

CACHE_ENV = "FITPROOF_CACHE_DIR"
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def cache_folder() -> Path | None:
    """The cache folder, or ``None`` when caching is off."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        if configured.strip().lower() in ("", "off", "0", "none"):
            return None
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("fitproof", appauthor=False))


def _trusted(info: os.stat_result) -> bool:
    owner = getattr(os, "getuid", None)
    return (owner is None or info.st_uid == owner()) and not info.st_mode & _OTHERS_WRITE


def read_private(path: Path, limit: int) -> bytes | None:
    """The bytes of cache file ``path``, or ``None`` when it is absent, not a regular file,
    over ``limit`` bytes, or it or its folder could be written by another user."""
    try:
        if not _trusted(os.stat(path.parent)):
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit or not _trusted(info):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            data = stream.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(descriptor)


def write_private(path: Path, data: bytes) -> bool:
    """Atomically replace cache file ``path`` with ``data``, readable and writable by the
    user alone, in a folder only the user can write; ``False`` when that fails (the cache
    is optional)."""
    import contextlib
    import tempfile

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".fitproof-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, 0o600)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError:
        return False
    return True

