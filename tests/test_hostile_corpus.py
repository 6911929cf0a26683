"""The hostile corpus (tests/hostile/cases.yaml): packs, plugins, config files and command
lines written to break fitproof, each run in-process through ``fitproof.cli.main``.

Every case ends (a watchdog of 60 s fails a hang) with exactly its exit code (0, 1 or 2),
no traceback, nothing run (no case creates the SENTINEL file some of them try to create), and a first problem
line that matches the case's pattern: for a pack, ``file:line: field: message``.

A case's files (``path``, relative to tests/hostile/) are copied into a fresh temporary
folder, which is also the working folder; ``setup`` then adds what git cannot hold (pipes,
links, sparse files). In ``argv`` and in the patterns, ``{path}`` is the copy's path and
``{tmp}`` the temporary folder; in ``argv`` only, ``{hex:…}`` is an argument made of those
bytes (as Python passes a command line that is not UTF-8) and ``{repeat:N:text}`` is
``text`` N times. ``plugins`` lists modules of the case's folder that are installed as
entry points of the ``fitproof`` group, as tests/test_plugins.py does. ``absent`` lists
files (relative to the temporary folder) the command must not have made, ``unchanged``
files it must leave byte for byte (read after ``setup``: a link's target is what is kept).
A case that shows a bug not fixed yet says so in ``xfail`` (strict: the fix must remove it).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import traceback
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
import yaml

import fitproof.registry.plugins
from fitproof.cli import main

from .conftest import watchdog

pytestmark = pytest.mark.slow

HOSTILE = Path(__file__).parent / "hostile"
# the manifest is the corpus's own file, not pack text
CASES = yaml.safe_load((HOSTILE / "cases.yaml").read_text(encoding="utf-8"))["cases"]
CLASSES = {
    "yaml": "malformed YAML",
    "formula": "hostile formulas",
    "figures": "hostile figures",
    "catalog": "catalogs and report packs",
    "measurements": "measurement packs",
    "engine": "engine conditions, overrides and duplicate ids",
    "plugin": "plugins",
    "special": "special files",
    "cli": "command-line inputs",
    "importer": "importer inputs",
}
# classes whose problems are in a pack file: a failing case names file and line
PACK_CLASSES = {"yaml", "formula", "figures", "catalog", "measurements", "engine"}
HEADER = re.compile(r"fitproof: \d+ problems? in packs:")
LOCATED = re.compile(r"\S+:\d+: ")
PLACEHOLDER = re.compile(r"\{(path|tmp|hex:[0-9a-f ]+|repeat:\d+:[^}]*)\}")
SENTINEL = "SENTINEL"


def _expand(text: str, path: Path, tmp: Path) -> str:
    def replace(match: re.Match[str]) -> str:
        token = match.group(1)
        if token == "path":
            return str(path)
        if token == "tmp":
            return str(tmp)
        if token.startswith("hex:"):
            return os.fsdecode(bytes.fromhex(token[4:]))
        _, count, repeated = token.split(":", 2)
        return repeated * int(count)
    return PLACEHOLDER.sub(replace, text)


def _pattern(text: str, path: Path, tmp: Path) -> re.Pattern[str]:
    escaped = text.replace("{path}", re.escape(str(path))).replace("{tmp}", re.escape(str(tmp)))
    return re.compile(escaped)


def _setup(case: dict, tmp: Path) -> Path:
    """Copy the case's files into ``tmp`` and carry out its setup; return the copy's path."""
    path = tmp / "case"
    if "path" in case:
        source = HOSTILE / case["path"]
        path = tmp / source.name
        if source.is_dir():
            shutil.copytree(source, path)
        else:
            shutil.copyfile(source, path)
    for step in case.get("setup", []):
        (action, argument), = step.items()
        if action == "mkdir":
            (tmp / argument).mkdir(parents=True, exist_ok=True)
        elif action == "mkfifo":
            os.mkfifo(tmp / argument)
        elif action == "symlink":
            name, target = (_expand(text, path, tmp) for text in argument)
            (tmp / name).symlink_to(target)
        elif action == "sparse":
            name, size = argument
            with (tmp / name).open("wb") as handle:
                handle.truncate(size)
        else:
            raise AssertionError(f"unknown setup step {action!r}")
    return path


def _install_plugins(case: dict, path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Install the case's plugin modules as entry points, each under a name of its own."""
    names = []
    for index, module in enumerate(case.get("plugins", [])):
        name = "fp_" + re.sub(r"\W", "_", case["id"]) + (f"_{index}" if index else "")
        (path / module).rename(path / f"{name}.py")
        names.append(name)
    if names:
        monkeypatch.syspath_prepend(str(path))
    points = [EntryPoint(name=name, value=name, group="fitproof") for name in names]
    monkeypatch.setattr(fitproof.registry.plugins, "entry_points",
                        lambda group: points if group == "fitproof" else [])
    return names


def _run(argv: list[str]) -> int | str | None:
    """Run ``main(argv)`` under the watchdog (a hang fails its case, not the whole run);
    the exit code."""
    try:
        with watchdog():
            return main(argv)
    except SystemExit as exit_:  # argparse's usage errors, as the `fitproof` script exits
        return exit_.code
    except (Exception, KeyboardInterrupt):
        pytest.fail(f"{argv[:3]}... raised:\n{traceback.format_exc()}")


def first_problem(out: str, err: str) -> str:
    """The first line of what the command says went wrong (standard error, else standard
    output where ``packs validate`` reports), without the ``N problems in packs:`` header."""
    for line in (err if err.strip() else out).splitlines():
        if line.strip() and not HEADER.fullmatch(line):
            return line.strip()
    return ""


@pytest.mark.parametrize("case", CASES, ids=[f"{c['class']}/{c['id']}" for c in CASES])
def test_hostile_case(case, tmp_path, monkeypatch, capsys, request):
    if "xfail" in case:
        request.applymarker(pytest.mark.xfail(reason=case["xfail"], strict=True))
    monkeypatch.chdir(tmp_path)
    path = _setup(case, tmp_path)
    plugins = _install_plugins(case, path, monkeypatch)
    argv = [_expand(arg, path, tmp_path) for arg in case["argv"]]
    kept = {name: (tmp_path / name).read_bytes() for name in case.get("unchanged", [])}
    capsys.readouterr()
    try:
        code = _run(argv)
    finally:
        for name in plugins:
            sys.modules.pop(name, None)
    out, err = capsys.readouterr()

    assert "Traceback" not in out + err
    assert code in (0, 1, 2) and code == case["exit"], (code, out[-2000:], err[-2000:])
    line = first_problem(out, err)
    assert _pattern(case["first"], path, tmp_path).fullmatch(line), line
    if case["class"] in PACK_CLASSES and code == 1:
        assert LOCATED.match(line), f"no file:line in {line!r}"
    for wanted in case.get("contains", []):
        pattern = _pattern(wanted, path, tmp_path)
        assert any(pattern.fullmatch(text.strip()) for text in (out + err).splitlines()), wanted
    assert not (tmp_path / SENTINEL).exists(), "a pack ran code"
    for name in case.get("absent", []):
        assert not (tmp_path / name).exists(), f"{name} was written"
    for name, raw in kept.items():
        assert (tmp_path / name).read_bytes() == raw, f"{name} was changed"


def test_the_corpus_covers_every_class():
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids)), "case ids are unique"
    assert len(CASES) >= 150
    per_class = {name: 0 for name in CLASSES}
    for case in CASES:
        assert case["class"] in CLASSES, case["id"]
        per_class[case["class"]] += 1
        assert set(case) <= {"id", "class", "path", "setup", "plugins", "argv", "exit", "first",
                             "contains", "absent", "unchanged", "xfail", "note"}, case["id"]
        if "path" in case:
            assert (HOSTILE / case["path"]).exists(), case["id"]
    assert min(per_class.values()) >= 5, per_class


def test_every_corpus_file_is_a_case():
    used = {case["path"] for case in CASES if "path" in case}
    files = {str(p.relative_to(HOSTILE)) for p in HOSTILE.rglob("*") if p.is_file()}
    unused = {f for f in files - {"cases.yaml"}
              if not any(f == u or f.startswith(u + "/") for u in used)}
    assert not unused


# the corpus's pack cases that estimate loads from one file of their own (no set-up, no plugin)
PACK_CASES = [c for c in CASES if c["class"] in PACK_CLASSES and "setup" not in c
              and "plugins" not in c and "xfail" not in c and "path" in c
              and (HOSTILE / c["path"]).is_file()
              and c["argv"][:4] == ["estimate", "--no-plugins", "--pack-dir", "{path}"]]


def _problems(out: str, err: str) -> list[str]:
    """The problem lines a command printed (estimate: standard error under its header;
    validate: its output less the per-file verdict and the summary)."""
    lines = [line.strip() for line in (err + out).splitlines() if line.strip()]
    return [line for line in lines if LOCATED.match(line) or line.startswith("/")
            if not line.endswith(": ok") and " ok (" not in line]


@pytest.mark.parametrize("case", PACK_CASES, ids=[f"{c['class']}/{c['id']}" for c in PACK_CASES])
def test_packs_validate_and_estimate_agree_on_the_corpus(case, tmp_path, monkeypatch, capsys):
    """Issue 14: ``packs validate FILE`` and ``estimate --pack-dir FILE`` judge every pack of
    the corpus alike: both accept it, or both refuse it with the same problem lines."""
    monkeypatch.chdir(tmp_path)
    path = _setup(case, tmp_path)
    capsys.readouterr()
    estimate = _run(["estimate", "--no-plugins", "--pack-dir", str(path)])
    estimated = capsys.readouterr()
    validate = _run(["packs", "validate", "--no-plugins", str(path)])
    validated = capsys.readouterr()
    assert (estimate == 1) == (validate == 1), (estimate, validate, validated.out[-1000:])
    if estimate == 1:
        assert _problems("", estimated.err) == _problems(validated.out, ""), case["id"]
