"""Shared fixtures. Tests never see installed plugins or the user's pack cache."""

from __future__ import annotations

import math
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import fitproof

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


# A private pack cache, none of the user's own packs and no FITPROOF_PACK_PATH from the
# developer's shell, set when this file is imported: test modules load packs while they are
# collected, before any fixture runs, and must not read the user's packs or write the
# user's own cache folder. No test reaches the Hugging Face Hub: HF_ENDPOINT points at a
# closed loopback port unless a test serves a hub there (tests/hub_server.py).
_SAVED = {key: os.environ.get(key) for key in ("FITPROOF_CACHE_DIR", "FITPROOF_PACK_PATH",
                                               "FITPROOF_USER_PACKS", "HF_ENDPOINT")}
_CACHE = tempfile.mkdtemp(prefix="fitproof-test-cache-")
os.environ["FITPROOF_CACHE_DIR"] = _CACHE
os.environ["FITPROOF_USER_PACKS"] = "off"
os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"
os.environ.pop("FITPROOF_PACK_PATH", None)


# The layers of the suite (markers, declared in pyproject.toml). A bare `pytest` runs the
# fast layer: every test not marked with one of LEFT_OUT. `pytest --full` (README's test
# command, which CI runs) runs everything; `-m EXPR` picks layers itself, e.g. `-m node`.
LEFT_OUT = ("slow", "browser", "node", "latex")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true",
                     help="run every layer of the suite: also the tests marked "
                          + ", ".join(LEFT_OUT) + " (CI runs this)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--full") or config.option.markexpr:
        # the layered tests first: a worker starts the long ones (the speed fit) at once,
        # and the fast files fill the other worker meanwhile (a stable sort keeps order)
        items.sort(key=lambda item: not any(item.get_closest_marker(name)
                                            for name in LEFT_OUT))
        return
    kept, left = [], []
    for item in items:
        layered = any(item.get_closest_marker(name) for name in LEFT_OUT)
        (left if layered else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


@pytest.fixture(autouse=True, scope="session")
def _isolated_environment():
    """Give the developer's environment back, and remove the private cache, at the end."""
    yield
    for key, value in _SAVED.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    shutil.rmtree(_CACHE, ignore_errors=True)


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


def require_tool(*commands: str, install: str) -> str:
    """The path of the first of ``commands`` on PATH. When none is there the test is
    skipped with what to install, except under CI=true, where a missing tool fails."""
    for command in commands:
        found = shutil.which(command)
        if found:
            return found
    message = f"{' or '.join(commands)} not found: install it ({install})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


WATCHDOG_SECONDS = 60  # generous: CI shares a busy machine; only a real hang reaches it


class Hang(BaseException):
    """Raised by :func:`watchdog`; not an Exception, so no handler in fitproof swallows it."""


@contextmanager
def watchdog(seconds: float = WATCHDOG_SECONDS) -> Iterator[None]:
    """Fail the block with :class:`Hang` if it is still running after ``seconds``: a guard
    against a real hang (an input that makes fitproof loop or compute without end), never a
    timing assertion."""
    def expire(signum: int, frame: object) -> None:
        raise Hang(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def js_number(value: float) -> str:
    """A float as a JavaScript literal (NaN, the infinities and -0 included)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return "-0" if value == 0 and math.copysign(1.0, value) < 0 else repr(value)
