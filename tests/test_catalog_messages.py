"""Catalog messages use a restricted format language, checked when packs load: a catalog
pack can name the values its message is given, and nothing else."""

from __future__ import annotations

import pytest

from fitproof.cli import main
from fitproof.views.message_format import fill, problems

def catalog(title: str) -> str:
    return ('kind: catalog\nid: xx\nname: X\ndecimal_separator: "."\nthousands_separator: ","\n'
            f'messages:\n  title: "{title}"\n')


@pytest.mark.parametrize("text, message", [
    ("{model.x}", "placeholder {model.x} is not a plain name: a message may name a value, not "
                  "reach into it (no '.', '[' or position)"),
    ("{model.__class__}", "placeholder {model.__class__} is not a plain name"),
    ("{model[0]}", "placeholder {model[0]} is not a plain name"),
    ("{0}", "placeholder {0} is not a plain name"),
    ("{}", "placeholder {} is not a plain name"),
    ("{model:>300000000}", "placeholder {model:>300000000}: only an alignment and a width under "
                           "100 are allowed, such as {name:>12}"),
    ("{model:,.2f}", "placeholder {model:,.2f}: only an alignment and a width"),
    ("{model!r}", "placeholder {model!r}: conversions are not allowed"),
    ("{secret}", "placeholder {secret} is not one this message is given (it has {hardware}, "
                 "{model})"),
    ("{model", "not a valid message (expected '}' before end of string); write a literal brace "
               "as {{ or }}"),
])
def test_a_hostile_message_is_refused_at_load_with_its_line(capsys, tmp_path, text, message):
    (tmp_path / "xx.yaml").write_text(catalog(text))
    expected = f"{tmp_path / 'xx.yaml'}:7: messages.title: {message}"
    for argv in (["report", "--pack-dir", str(tmp_path), "--lang", "xx"],
                 ["estimate", "--pack-dir", str(tmp_path)]):
        code = main(["--no-plugins", *argv])
        out, err = capsys.readouterr()
        assert (code, out) == (1, "")
        assert err.splitlines()[0] == "fitproof: 1 problem in packs:"
        assert err.splitlines()[1].startswith(f"  {expected}")
        assert "Traceback" not in err
    code = main(["packs", "validate", "--no-plugins", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 1 and any(line.startswith(expected) for line in out.splitlines())


def test_a_well_formed_message_fills_and_pads(capsys, tmp_path):
    (tmp_path / "xx.yaml").write_text(catalog("{{{model:>40}}} on {hardware}"))
    code = main(["--no-plugins", "report", "--pack-dir", str(tmp_path), "--lang", "xx",
                 "llama-3.1-8b", "--on", "rtx-4090"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.splitlines()[0] == "{" + "Llama 3.1 8B".rjust(40) + "} on RTX 4090"


def test_fill_never_reaches_into_a_value():
    class Secret:
        token = "leaked"

    assert fill("{model.token} {model}", {"model": Secret()}).startswith("{model.token} ")
    assert fill("{model:>5}|{{x}}", {"model": "ab"}) == "   ab|{x}"
    assert fill("{missing}", {}) == "{missing}"
    assert problems("{model} and {hardware:<12}", {"model", "hardware"}) == []
