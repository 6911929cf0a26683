"""The cache of validated packs is read only when it can be trusted: a pipe, a link to a
device, a file others may write, or entries of the wrong shape are ignored (the packs are
read from their files again), with no hang, no traceback and the same numbers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _estimate(cache: Path, cwd: Path) -> subprocess.CompletedProcess:
    # --strict takes the full path (the snapshot is not used), which reads the pack cache
    env = {**os.environ, "FITPROOF_CACHE_DIR": str(cache)}
    env.pop("FITPROOF_PACK_PATH", None)
    return subprocess.run([sys.executable, "-m", "fitproof", "estimate", "--json", "--strict"],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def _read(path: Path) -> tuple[bytes, dict]:
    """The seal and the content of a sealed cache file."""
    mark, _, body = path.read_bytes().partition(b"\n")
    return mark, json.loads(body)


def _reseal(path: Path, content: dict) -> None:
    """Write ``content`` sealed with the cache's own key: as fitproof itself would."""
    from hashlib import blake2b

    key = (path.parent.parent / f"{path.parent.name}.key").read_bytes()
    body = json.dumps(content).encode()
    path.write_bytes(blake2b(body, key=key, digest_size=32).hexdigest().encode() + b"\n" + body)


def _poison(path: Path, *, keyed: bool = False) -> None:
    """Change a figure of the cached RTX 3090 pack (24 GB → 96 GB); without the key the old
    seal stays, as a writer who cannot read the key would leave it."""
    mark, content = _read(path)
    for entry in content["entries"].values():
        if entry["data"].get("id") == "rtx-3090":
            entry["data"]["memory_gb"] = 96
    if keyed:
        _reseal(path, content)
    else:
        path.write_bytes(mark + b"\n" + json.dumps(content).encode())


@pytest.mark.parametrize("damage", ["fifo", "link to /dev/zero", "group writable",
                                    "folder writable by others", "entries of another shape",
                                    "not json", "planted without the key", "seal removed"])
def test_an_untrusted_or_damaged_pack_cache_is_ignored(tmp_path, damage):
    cache = tmp_path / "cache"
    first = _estimate(cache, tmp_path)
    assert first.returncode == 0, first.stderr
    shutil.rmtree(cache / "snapshots", ignore_errors=True)
    path = cache / "packs.json"
    if damage == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif damage == "link to /dev/zero":
        path.unlink()
        path.symlink_to("/dev/zero")
    elif damage == "group writable":
        _poison(path, keyed=True)  # a figure another account could have planted
        path.chmod(0o664)
    elif damage == "folder writable by others":
        _poison(path, keyed=True)
        cache.chmod(0o777)
    elif damage == "planted without the key":
        _poison(path)  # the user's own permissions, but not the key: the seal fails
    elif damage == "seal removed":
        path.write_bytes(path.read_bytes().partition(b"\n")[2])
    elif damage == "entries of another shape":
        _, content = _read(path)
        for index, entry in enumerate(content["entries"].values()):
            if index % 3 == 0:
                entry["data"] = [1, 2]
            elif index % 3 == 1:
                entry["lines"] = "not a list"
            else:
                del entry["lines"]
        _reseal(path, content)  # sealed as fitproof writes: the shape check must catch it
    else:
        path.write_bytes(b"{\xff")
    again = _estimate(cache, tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert again.stdout == first.stdout
    assert json.loads(again.stdout)["quantities"]["physical_gb"]["value"] == 24


@pytest.mark.parametrize("damage", ["readable by others", "owned by a planted copy"])
def test_a_key_others_can_read_disables_the_cache(tmp_path, damage):
    """The seal is only as good as its key: one others can read (or a file that is not
    the key fitproof made) means nothing is cached, not a cache anyone could forge."""
    cache = tmp_path / "cache"
    first = _estimate(cache, tmp_path)
    assert first.returncode == 0, first.stderr
    key = tmp_path / "cache.key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
    if damage == "readable by others":
        key.chmod(0o644)
    else:
        key.write_bytes(b"short")
    _poison(cache / "packs.json", keyed=False)
    shutil.rmtree(cache / "snapshots", ignore_errors=True)
    again = _estimate(cache, tmp_path)
    assert again.returncode == 0 and again.stdout == first.stdout
    assert json.loads(again.stdout)["quantities"]["physical_gb"]["value"] == 24
