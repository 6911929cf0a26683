"""``packs validate DIR`` and ``estimate --pack-dir DIR`` judge a folder of packs alike:
the same packs are accepted, and a refused one gets the same file:line message."""

from __future__ import annotations

import pytest
import yaml

from fitproof.cli import main

from .conftest import REPO


def _copy(name: str, **changes: object) -> str:
    data = yaml.safe_load((REPO / "packs" / name).read_text(encoding="utf-8"))
    data.update(changes)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


CASES = {
    "a copy of a built-in id without override": ("rtx-4090.yaml", _copy("hardware/rtx-4090.yaml")),
    "an override of a built-in": ("rtx-4090.yaml",
                                  _copy("hardware/rtx-4090.yaml", override=True, memory_gb=48)),
    "an override of nothing": ("acme-z9.yaml", _copy("hardware/rtx-4090.yaml", id="acme-z9",
                                                     override=True, aliases=[])),
    "a new card": ("acme-z9.yaml", _copy("hardware/rtx-4090.yaml", id="acme-z9", aliases=[])),
    "an alias another pack has": ("acme-z9.yaml", _copy("hardware/rtx-4090.yaml", id="acme-z9")),
    "a misspelled formula in a question": ("more.yaml", yaml.safe_dump({
        "kind": "questions", "id": "more", "questions": {"max-prompt": {
            "description": "d", "input": "prompt", "highest": 1000,
            "holds": ["fits_in_memry"], "explain": "fits_in_memory"}}})),
    "a report naming an unknown selection": ("sizing.yaml", _copy(
        "reports/sizing.yaml", override=True).replace("selection: best_single_gpu",
                                                      "selection: best_singel_gpu", 1)),
    "a misspelled name in an engine condition": ("llama.cpp.yaml", _copy(
        "engines/llama.cpp.yaml", override=True).replace("when: batch > 1", "when: bacth > 1")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_validate_and_estimate_agree(tmp_path, capsys, case):
    name, text = CASES[case]
    (tmp_path / name).write_text(text, encoding="utf-8")
    validated = main(["packs", "validate", "--no-plugins", str(tmp_path)])
    out, _ = capsys.readouterr()
    estimated = main(["--no-plugins", "estimate", "--pack-dir", str(tmp_path), "--json"])
    _, err = capsys.readouterr()
    assert (validated == 0) == (estimated == 0), (out, err)
    if validated:
        problems = [line.strip() for line in err.splitlines()[1:]]
        assert problems and all(p in out.splitlines() for p in problems), (out, err)
        assert f"{tmp_path / name}: ok" not in out  # a faulted file is not called ok
    else:
        assert f"{tmp_path / name}: ok (" in out


def test_the_verdicts_are_the_expected_ones(tmp_path, capsys):
    accepted = set()
    for case, (name, text) in CASES.items():
        folder = tmp_path / case.replace(" ", "-")
        folder.mkdir()
        (folder / name).write_text(text, encoding="utf-8")
        if main(["packs", "validate", "--no-plugins", str(folder)]) == 0:
            accepted.add(case)
        capsys.readouterr()
    assert accepted == {"an override of a built-in", "a new card"}


def test_a_name_clash_is_reported_at_the_field_that_clashes(tmp_path, capsys):
    text = _copy("hardware/rtx-4090.yaml", id="4090", aliases=[])
    (tmp_path / "4090.yaml").write_text(text, encoding="utf-8")
    assert main(["packs", "validate", "--no-plugins", str(tmp_path)]) == 1
    out, _ = capsys.readouterr()
    line = text.splitlines().index("id: '4090'") + 1
    assert (f"{tmp_path / '4090.yaml'}:{line}: id: name '4090' also refers to hardware "
            "'rtx-4090' (packs/hardware/rtx-4090.yaml)") in out.splitlines()


def test_a_misspelled_launch_condition_is_named_at_load_not_a_crash_in_report(tmp_path, capsys):
    text = _copy("engines/llama.cpp.yaml", override=True).replace("when: batch > 1",
                                                                 "when: bacth > 1")
    (tmp_path / "llama.cpp.yaml").write_text(text, encoding="utf-8")
    line = text.splitlines().index("    when: bacth > 1") + 1
    expected = (f"{tmp_path / 'llama.cpp.yaml'}:{line}: launch.options.2.when: unknown name "
                "'bacth' in the condition; did you mean batch?")
    assert main(["--no-plugins", "--pack-dir", str(tmp_path), "report", "qwen3-8b"]) == 1
    _, err = capsys.readouterr()
    assert expected in [problem.strip() for problem in err.splitlines()] and "Traceback" not in err
