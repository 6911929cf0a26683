"""Shared fixtures. Tests never see installed plugins or the user's pack cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fitproof

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


@pytest.fixture(autouse=True, scope="session")
def _isolated_environment(tmp_path_factory):
    """A private pack cache and no FITPROOF_PACK_PATH from the developer's shell."""
    saved = {key: os.environ.get(key) for key in ("FITPROOF_CACHE_DIR", "FITPROOF_PACK_PATH")}
    os.environ["FITPROOF_CACHE_DIR"] = str(tmp_path_factory.mktemp("fitproof-cache"))
    os.environ.pop("FITPROOF_PACK_PATH", None)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def registry() -> fitproof.Registry:
    """The built-in packs only, with the seed pages' formulas (--profile seed): the
    golden tests and most unit tests check figures the seed pages pin."""
    return fitproof.load_registry(plugins=False, profile="seed")


def write_pack(folder: Path, name: str, text: str) -> Path:
    """Write a pack file (dedenting is the caller's job) and return its path."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def pack_line(relative: str, *keys: str) -> str:
    """``packs/<relative>:<line>`` of ``keys[-1]:``, found after each earlier key in turn."""
    path = REPO / "packs" / relative
    lines = path.read_text(encoding="utf-8").splitlines()
    start = 0
    for key in keys:
        for number in range(start, len(lines)):
            if lines[number].strip().startswith(f"{key}:"):
                start = number
                break
        else:
            raise AssertionError(f"{key} not found in {path}")
    return f"packs/{relative}:{start + 1}"
