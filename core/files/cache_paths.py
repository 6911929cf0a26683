"""Where fitproof caches what it derived from packs, and whether a cached file may be read.

The folder is ``FITPROOF_CACHE_DIR`` when set (``off`` disables caching), else the user's
cache folder as platformdirs names it (``~/.cache/fitproof`` on Linux). A cache file is
read only when it is a regular file of at most ``limit`` bytes, owned by the user running
fitproof and writable by no one else, in a folder no one else can write: so another
account cannot plant figures, and a pipe or a link to a device is never opened for reading
without end. Anything else is treated as absent.

Every cache file is also sealed (``seal``/``unseal``): a keyed BLAKE2b digest over its
content, with a random key kept beside the cache folder, not inside it (``fitproof.key``
next to ``~/.cache/fitproof``), readable by the user alone. An entry written by anything
that cannot read the key (planted, edited, truncated) fails the check and is a miss: the
packs are read and validated again.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

try:  # hashlib's own import costs a millisecond the snapshot path does not have
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the _blake2 module
    from hashlib import blake2b

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


def read_private(path: Path, limit: int, *, secret: bool = False) -> bytes | None:
    """The bytes of cache file ``path``, or ``None`` when it is absent, not a regular file,
    over ``limit`` bytes, or it or its folder could be written by another user."""
    try:
        folder = os.stat(path.parent)
        # a sticky folder (/tmp) lets no one else replace a file the user owns in it
        if not _trusted(folder) and not folder.st_mode & stat.S_ISVTX:
            return None
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit or not _trusted(info):
            return None
        if secret and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            return None  # a key others can read is no key
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



_KEY_BYTES = 32
_SEAL_END = b"\n"


def _key(folder: Path) -> bytes | None:
    """The sealing key of cache folder ``folder``, made on first use; ``None`` when it
    cannot be read or made privately (then nothing is cached)."""
    path = folder.parent / f"{folder.name}.key"
    key = read_private(path, _KEY_BYTES, secret=True)
    if key is not None and len(key) == _KEY_BYTES:
        return key
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                             getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return None  # there is one we may not read, or none can be made
    try:
        key = os.urandom(_KEY_BYTES)
        os.write(descriptor, key)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    again = read_private(path, _KEY_BYTES, secret=True)
    return key if again == key else None


def _digest(key: bytes, body: bytes) -> bytes:
    return blake2b(body, key=key, digest_size=32).hexdigest().encode()


def seal(folder: Path, body: bytes) -> bytes | None:
    """``body`` with its keyed digest in front, for a file of cache folder ``folder``."""
    key = _key(folder)
    return None if key is None else _digest(key, body) + _SEAL_END + body


def unseal(folder: Path, raw: bytes) -> bytes | None:
    """The body of a sealed cache file, or ``None`` when its digest does not check out."""
    key = _key(folder)
    mark, _, body = raw.partition(_SEAL_END)
    if key is None or not mark or mark != _digest(key, body):
        return None
    return body
