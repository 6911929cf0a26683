"""core/ type-checks under mypy --strict with zero errors (the same check CI runs)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow


def test_core_type_checks_strictly():
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                           "core"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found"), done.stdout
