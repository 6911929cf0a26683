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


def _estimate(cache: Path, cwd: Path) -> subprocess.CompletedProcess:
    # --strict takes the full path (the snapshot is not used), which reads the pack cache
    env = {**os.environ, "FITPROOF_CACHE_DIR": str(cache)}
    env.pop("FITPROOF_PACK_PATH", None)
    return subprocess.run([sys.executable, "-m", "fitproof", "estimate", "--json", "--strict"],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def _poison(path: Path) -> None:
    """Change a figure of the cached RTX 3090 pack (24 GB → 96 GB)."""
    content = json.loads(path.read_text(encoding="utf-8"))
    for entry in content["entries"].values():
        if entry["data"].get("id") == "rtx-3090":
            entry["data"]["memory_gb"] = 96
    path.write_text(json.dumps(content), encoding="utf-8")


@pytest.mark.parametrize("damage", ["fifo", "link to /dev/zero", "group writable",
                                    "folder writable by others", "entries of another shape",
                                    "not json"])
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
        _poison(path)  # a figure another account could have planted
        path.chmod(0o664)
    elif damage == "folder writable by others":
        _poison(path)
        cache.chmod(0o777)
    elif damage == "entries of another shape":
        content = json.loads(path.read_text(encoding="utf-8"))
        for index, entry in enumerate(content["entries"].values()):
            if index % 3 == 0:
                entry["data"] = [1, 2]
            elif index % 3 == 1:
                entry["lines"] = "not a list"
            else:
                del entry["lines"]
        path.write_text(json.dumps(content), encoding="utf-8")
    else:
        path.write_bytes(b"{\xff")
    again = _estimate(cache, tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert again.stdout == first.stdout
    assert json.loads(again.stdout)["quantities"]["physical_gb"]["value"] == 24
