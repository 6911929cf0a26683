"""CONTRIBUTING.md's "Add an accelerator in five minutes", followed literally: every
``$ command`` of the section runs in a shell, in order, and the output shown under it must
be what the tool prints (``...`` stands for lines the page leaves out)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

SECTION = "## Add an accelerator in five minutes"


def console_steps(blocks: list[str]) -> list[tuple[str, list[str]]]:
    """(command, shown output lines) for every ``$`` line of the given console blocks."""
    steps: list[tuple[str, list[str]]] = []
    for block in blocks:
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
    return steps


def section(path: Path, heading: str) -> str:
    """The text of ``path`` under ``heading``, up to the next level-2 heading."""
    return path.read_text(encoding="utf-8").split(heading, 1)[1].split("\n## ", 1)[0]


def walkthrough() -> list[tuple[str, list[str]]]:
    """(command, shown output lines) for every ``$`` line of the section's console blocks."""
    text = section(REPO / "CONTRIBUTING.md", SECTION)
    return console_steps(re.findall(r"```console\n(.*?)```", text, flags=re.S))


def matches(shown: list[str], printed: list[str]) -> bool:
    """``printed`` equals ``shown``, where each ``...`` line of ``shown`` may stand for any
    number of printed lines."""
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and printed[0] == shown[0] and matches(shown[1:], printed[1:])


def test_ellipsis_matching():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["...", "c", "..."], ["a", "b", "c", "d"])
    assert not matches(["a", "c"], ["a", "b", "c"])
    assert not matches(["a", "...", "x"], ["a", "b", "c"])
    assert not matches([], ["unexpected output"])


def test_the_walkthrough_has_the_steps_it_promises():
    commands = [command for command, _ in walkthrough()]
    assert commands[:3] == ["mkdir my-packs",
                            "cp examples/hardware-template.yaml my-packs/acme-x1-48gb.yaml",
                            "fitproof packs validate my-packs/acme-x1-48gb.yaml"]
    assert any(c.startswith("fitproof report ") for c in commands)


def test_following_the_walkthrough_literally(tmp_path):
    (tmp_path / "examples").symlink_to(REPO / "examples")
    bin_dir = Path(sys.executable).parent  # where pip put the `fitproof` script
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("FITPROOF_PACK_PATH", None)
    for command, shown in walkthrough():
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stderr == "", (command, done.stderr)
        printed = done.stdout.splitlines()
        assert matches(shown, printed), (command, shown, printed)


def readme_accelerator_steps() -> list[tuple[str, list[str]]]:
    """(command, shown lines) of README.md's "Adding an accelerator" block."""
    text = section(REPO / "README.md", "## Adding an accelerator")
    return console_steps(re.findall(r"```\n(.*?)```", text, flags=re.S)[:1])


def test_readme_accelerator_steps_work_as_installed(tmp_path):
    """README's steps, run in a folder outside the checkout with the installed `fitproof`
    (CI installs it as README's command does, not in editable mode): each command exits 0
    and prints, first, the lines README shows under it."""
    (tmp_path / "examples").symlink_to(REPO / "examples")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("FITPROOF_PACK_PATH", None)
    steps = readme_accelerator_steps()
    assert [c.split()[0] for c, _ in steps] == ["mkdir", "cp", "fitproof", "fitproof"]
    for command, shown in steps:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.splitlines()[:len(shown)] == shown, (command, done.stdout)
