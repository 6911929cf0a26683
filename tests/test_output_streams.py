"""Where the output goes is not always writable or able to hold every character: a full
device, a reader that stops early, a terminal that speaks ASCII. Each gets one line or
nothing on stderr, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

COMMANDS = {
    "estimate": ["estimate"],
    "estimate, full path": ["estimate", "--strict"],  # --strict skips the snapshot
    "report": ["report"],
}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "FITPROOF_CACHE_DIR": str(tmp_path / "cache"), **extra}
    env.pop("FITPROOF_PACK_PATH", None)
    return env


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_device_is_one_line_and_exit_1(tmp_path, command):
    env = _env(tmp_path)
    for _ in range(2):  # the second estimate answers from the snapshot
        with open("/dev/full", "w") as full:
            result = subprocess.run([sys.executable, "-m", "fitproof", *COMMANDS[command]],
                                    stdout=full, stderr=subprocess.PIPE, text=True, env=env,
                                    timeout=120)
        assert result.returncode == 1
        assert result.stderr == ("fitproof: error: cannot write the output: "
                                 "No space left on device\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path, command):
    process = subprocess.Popen([sys.executable, "-m", "fitproof", *COMMANDS[command]],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=_env(tmp_path, PYTHONUNBUFFERED="1"))
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0
    assert error == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_an_ascii_terminal_gets_question_marks_not_a_traceback(tmp_path, command):
    env = _env(tmp_path, PYTHONIOENCODING="ascii")
    result = subprocess.run([sys.executable, "-m", "fitproof", *COMMANDS[command]],
                            capture_output=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    text = result.stdout.decode("ascii")  # nothing but ASCII was written
    assert "Qwen3.5 35B-A3B" in text and "?" in text
