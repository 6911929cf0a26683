"""Compiled snapshots: a single estimate without loading, validating or linking packs.

After a full load, the linked registry is stored as plain data (``fast/build.py``) in
the cache folder, under a key made of fitproof's version, the content of fitproof's own
code and schemas, the formula profile asked for, and the path, origin and content of every
pack file. The next single estimate with the same packs lists and fingerprints the same
files (``files/pack_files.py``), reads the snapshot and evaluates it in plain Python
(``fast/estimate.py``): none of numpy, sympy, jsonschema, yaml, cattrs or pluggy is
imported.

A snapshot is used only when it can be trusted to give the full path's numbers: its file
passes the cache folder's checks (``cache_paths.read_private``), its header names the key
and the BLAKE2b digest of its body, and the body is the format this version writes. Anything else
(a malformed, truncated, tampered or foreign entry) is a miss, and the full path runs.
Installed plugins always take the full path: their packs are known only by calling them.
The folder keeps the ``KEEP`` most recently used snapshots.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files.cache_paths import cache_folder, read_private, seal, unseal, write_private
from ..files.pack_files import (CONSENTED_ORIGINS, PackRoot, PackSource, blake2b, code_fingerprint,
                                consented, find_pack_files, local_pack_roots, package_folder,
                                USER_PACKS_ORIGIN)
from ..version import __version__
from ..views.estimate import names_machine

if TYPE_CHECKING:
    from ..registry.index import Registry
    from ..views.estimate import EstimateView

FORMAT = 2
KEEP = 8  # snapshots kept, most recently used first
MAX_SNAPSHOT_BYTES = 64 * 2**20
ENTRY_POINT_GROUP = "fitproof"
# packs a snapshot may hold
LOCAL_ORIGINS = ("fitproof", "--pack-dir", "FITPROOF_PACK_PATH", USER_PACKS_ORIGIN)
_HEADER_END = b"\n"


def builtin_root() -> PackRoot:
    """fitproof's own ``packs/`` folder, as the built-in plugin registers it."""
    return PackRoot(package_folder("fitproof.packs"), "fitproof", "packs")


def plugins_installed() -> bool:
    """Whether any installed distribution may declare a ``fitproof`` entry point: a
    ``[fitproof]`` section in an ``entry_points.txt`` on ``sys.path``, or a path entry that
    cannot be read as a folder (a zip), which might. Scanning the files is quicker than
    ``importlib.metadata`` and never says "none" when there is one. Once the plugin
    machinery is loaded in this process (a library user, a test), it is asked instead."""
    loaded = sys.modules.get(f"{__package__.rpartition('.')[0]}.registry.plugins")
    if loaded is not None:
        return any(True for _ in loaded.entry_points(group=ENTRY_POINT_GROUP))
    for entry in sys.path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except NotADirectoryError:
            return True  # a zip or egg on the path: only importlib can look inside
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as stream:
                    text = stream.read(1_000_000)
            except OSError:
                continue
            if b"[" + ENTRY_POINT_GROUP.encode() + b"]" in text:
                return True
    return False


def snapshot_key(sources: Iterable[PackSource], profile: str | None) -> str:
    """The key of the snapshot of ``sources`` in ``profile``."""
    digest = blake2b()
    digest.update(f"{FORMAT}\0{__version__}\0{code_fingerprint()}\0{profile!r}\0".encode())
    for source in sources:
        digest.update(f"{source.path}\0{source.origin}\0{source.digest}\0".encode())
    return digest.hexdigest()


def _sources(pack_dirs: Iterable[str | os.PathLike[str]]) -> list[PackSource] | None:
    """The pack files a load without installed plugins reads, or ``None`` when listing
    them found a problem (the full path reports it)."""
    dirs = list(pack_dirs)
    if any(not os.fspath(d).strip() for d in dirs):
        return None
    sources, problems = find_pack_files([builtin_root(), *local_pack_roots(dirs)])
    return None if problems else sources


def _path(key: str) -> Path | None:
    folder = cache_folder()
    return None if folder is None else folder / "snapshots" / f"{key}.json"


def read_snapshot(key: str) -> dict[str, Any] | None:
    """The snapshot stored under ``key``, or ``None`` when there is none that checks out."""
    raw_path = _path(key)
    raw = read_private(raw_path, MAX_SNAPSHOT_BYTES) if raw_path is not None else None
    if raw_path is None or raw is None:
        return None
    sealed = unseal(raw_path.parent.parent, raw)  # sealed with the cache folder's key
    if sealed is None:
        return None
    head, _, body = sealed.partition(_HEADER_END)
    try:
        header = json.loads(head)
        if not isinstance(header, dict) or header.get("key") != key:
            return None
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    try:
        os.utime(raw_path)  # most recently used
    except OSError:
        pass
    return data


def write_snapshot(key: str, data: Mapping[str, Any]) -> bool:
    """Store ``data`` under ``key`` and drop all but the ``KEEP`` most recently used."""
    path = _path(key)
    if path is None:
        return False
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    header = json.dumps({"key": key}).encode()
    sealed = seal(path.parent.parent, header + _HEADER_END + body)
    if sealed is None or not write_private(path, sealed):
        return False
    try:
        stored = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime,
                        reverse=True)
        for old in stored[KEEP:]:
            old.unlink()
    except OSError:
        pass
    return True


def store_snapshot(registry: Registry, pack_dirs: Iterable[str | os.PathLike[str]],
                   profile: str | None, *, plugins: bool = True) -> bool:
    """After a full load without installed plugins (none there, or ``plugins=False``):
    snapshot ``registry`` for the next single estimate with the same packs and profile."""
    if cache_folder() is None or (plugins and plugins_installed()):
        return False
    if registry.warnings or any(p.origin not in LOCAL_ORIGINS for p in registry.packs):
        return False  # what plugins gave (or failed to give) is known only by asking them
    sources = _sources(pack_dirs)
    if sources is None:
        return False
    key = snapshot_key(sources, profile)
    if _path(key) is not None and read_snapshot(key) is not None:
        return True
    from .build import build_snapshot

    return write_snapshot(key, build_snapshot(registry))


def snapshot_estimate(pack_dirs: Iterable[str | os.PathLike[str]], profile: str | None,
                      choices: Mapping[str, str | None], inputs: Mapping[str, Any],
                      *, plugins: bool = True, allow_override: bool = False
                      ) -> tuple[EstimateView, list[str]] | None:
    """The estimate of the scenario from a stored snapshot, with the warnings the full load
    gave; ``None`` when the full path must answer (no snapshot, plugins installed, or a
    scenario the snapshot path leaves to it)."""
    if plugins and plugins_installed():
        return None
    if names_machine(choices.get("hardware")):  # unlike devices: the full path splits them
        return None
    sources = _sources(pack_dirs)
    if sources is None:
        return None
    # the snapshot's many small objects hold no cycles: collecting garbage while they are
    # made only costs time
    collecting = gc.isenabled()
    gc.disable()
    try:
        data = read_snapshot(snapshot_key(sources, profile))
        if data is None:
            return None
        overrides = data.get("overrides")
        if not isinstance(overrides, list) or not consented(allow_override) and any(
                override[2] not in CONSENTED_ORIGINS for override in overrides):
            return None  # a replacement the user has not agreed to: the full path refuses it
        from .estimate import SnapshotModel, estimate_from_snapshot

        try:
            view = estimate_from_snapshot(SnapshotModel(data), choices, inputs)
        except Exception:  # noqa: BLE001 - data this version did not build: a miss
            return None
    finally:
        if collecting:
            gc.enable()
    return None if view is None else (view, list(data.get("warnings", [])))
