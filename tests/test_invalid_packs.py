"""Every invalid-pack fixture fails with exactly the error line written at its top."""

from __future__ import annotations

from pathlib import Path

import pytest

from fitproof.validate import validate_paths

INVALID = Path(__file__).parent / "packs" / "invalid"
FIXTURES = sorted(INVALID.rglob("*.yaml"))


def expected_line(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path} must start with '# expect: …'"
    return first.removeprefix("# expect: ")


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(INVALID)) for p in FIXTURES])
def test_fixture_fails_with_its_expected_message(path, monkeypatch):
    monkeypatch.chdir(INVALID)
    report = validate_paths([str(path.relative_to(INVALID))], plugins=False)
    messages = [str(p) for r in report.files for p in r.problems] + [str(p) for p in report.context]
    assert not report.ok
    assert messages == [expected_line(path)]


def test_nothing_ran(tmp_path, monkeypatch):
    """Loading the code-injection fixture executes nothing: no file appears."""
    monkeypatch.chdir(tmp_path)
    validate_paths([str(INVALID / "formulas" / "code-injection.yaml")], plugins=False)
    assert not (tmp_path / "pwned").exists()
