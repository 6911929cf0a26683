"""Commands plugins add (the ``register_commands`` hook), and ``--format`` help written from
the format table: a plugin's command runs with the packs loaded, its failures are one line
naming it, fitproof's own commands never ask plugins to parse, and a plugin's format is
listed where ``--format`` is described."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import fitproof
from fitproof.cli import main

from .test_plugins import _install_fake_entry_points

DOCS = Path(__file__).resolve().parent.parent / "docs" / "plugin-hooks.md"


def _docs_example() -> str:
    """The example of docs/plugin-hooks.md's register_commands section, as written there."""
    section = DOCS.read_text(encoding="utf-8").split("## `register_commands(register)`")[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_documented_example_command_runs_with_the_packs(tmp_path, monkeypatch, capsys):
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_fits": _docs_example()})
    assert main(["fits", "qwen3-8b", "--on", "rtx-4090"]) == 0
    out, err = capsys.readouterr()
    total = fitproof.estimate("qwen3-8b", "rtx-4090").value("total_gib")
    assert out == f"qwen3-8b on rtx-4090: {total:.1f} GiB\n" and err == ""
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    listed = capsys.readouterr().out
    assert re.search(r"\n\s+fits\s+one line: the memory a model needs on a device\n", listed)


def test_a_plugin_command_takes_the_shared_options(tmp_path, monkeypatch, capsys):
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_fits": _docs_example()})
    assert main(["fits", "qwen3-8b", "--on", "rtx-4090", "--profile", "seed"]) == 0
    seed = fitproof.estimate("qwen3-8b", "rtx-4090", profile="seed").value("total_gib")
    assert capsys.readouterr().out == f"qwen3-8b on rtx-4090: {seed:.1f} GiB\n"
    with pytest.raises(SystemExit) as usage:  # its own required --on: a usage error
        main(["fits", "qwen3-8b"])
    assert usage.value.code == 2
    assert "the following arguments are required: --on" in capsys.readouterr().err


COUNTING = """\
    from pathlib import Path
    from fitproof.hookspecs import hookimpl

    @hookimpl
    def register_commands(register):
        marker = Path(__file__).with_suffix(".asked")
        marker.write_text(str(int(marker.read_text() or 0) + 1) if marker.exists() else "1")
        register("hello", "say hello", lambda parser: None, lambda registry, args: "hello")
    """


def test_fitproofs_own_commands_never_ask_plugins_to_parse(tmp_path, monkeypatch, capsys):
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_count": COUNTING})
    asked = tmp_path / "fp_count.asked"
    assert main(["estimate", "qwen3-8b", "--on", "rtx-4090", "--json"]) == 0
    assert main(["packs", "list", "--kind", "engine"]) == 0
    assert not asked.exists()
    assert main(["hello"]) == 0 and capsys.readouterr().out.endswith("hello\n")
    assert asked.read_text() == "1"
    with pytest.raises(SystemExit) as usage:  # plugins ignored: no such command
        main(["--no-plugins", "hello"])
    assert usage.value.code == 2
    assert "invalid choice: 'hello'" in capsys.readouterr().err
    assert asked.read_text() == "1"


FAILING = """\
    from fitproof.errors import InputError
    from fitproof.hookspecs import hookimpl

    def _raise(registry, args):
        raise ValueError("nope")

    def _refuse(registry, args):
        raise InputError("no such thing as " + args.what)

    def _number(registry, args):
        return 42

    def _what(parser):
        parser.add_argument("what")

    def _broken(parser):
        parser.add_argument("--profile")  # a shared option's name

    @hookimpl
    def register_commands(register):
        register("boom", "raises", lambda parser: None, _raise)
        register("refuse", "an input error", _what, _refuse)
        register("number", "returns a number", lambda parser: None, _number)
        register("estimate", "takes fitproof's own name", lambda parser: None, _raise)
        register("clash", "bad arguments", _broken, _raise)
    """


@pytest.mark.parametrize("argv, code, line", [
    (["boom"], 1, "fitproof: error: the command 'boom' of plugin 'fp_fail:fp_fail' failed: "
                  "ValueError: nope"),
    (["refuse", "x"], 2, "fitproof: error: no such thing as x"),
    (["number"], 1, "fitproof: error: the command 'number' of plugin 'fp_fail:fp_fail' "
                    "returned int, not text"),
])
def test_a_failing_plugin_command_is_one_line_naming_it(tmp_path, monkeypatch, capsys, argv,
                                                        code, line):
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_fail": FAILING})
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines()[-1] == line and "Traceback" not in err


def test_commands_that_cannot_join_are_left_out_with_a_warning(tmp_path, monkeypatch, capsys):
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_fail": FAILING, "fp_bad": """\
        from fitproof.hookspecs import hookimpl

        @hookimpl
        def register_commands(register):
            register("Bad Name", "not a word", lambda parser: None, lambda r, a: "")
        """})
    with pytest.raises(SystemExit):
        main(["--help"])
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "fitproof: warning: plugin 'fp_bad:fp_bad' failed in register_commands: ValueError: "
        "command name 'Bad Name' is not one lower-case word",
        "fitproof: warning: plugin 'fp_fail:fp_fail': its command 'estimate' is ignored; "
        "fitproof has a command of that name",
        "fitproof: warning: plugin 'fp_fail:fp_fail': its command 'clash' is ignored; adding "
        "its arguments failed: ArgumentError: argument --profile: conflicting option string: "
        "--profile"]
    assert re.search(r"\n\s+boom\s+raises\n", out) and "clash" not in out
    assert re.search(r"\n\s+estimate\s+memory, speed, cost and verdict", out)


CSV_FORMAT = """\
    from fitproof.hookspecs import hookimpl

    @hookimpl
    def register_output_formats(register):
        register("csv", "estimate", lambda view, options: "a,b\\n", "one line per quantity")
    """


def test_format_help_is_the_format_table(tmp_path, monkeypatch, capsys):
    """--format's help lists the view's formats with what each writes, a plugin's too."""
    with pytest.raises(SystemExit):
        main(["explain", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("--format NAME output format (default text): text (the derivation tree), "
            "markdown (") in text
    _install_fake_entry_points(monkeypatch, tmp_path, {"fp_csv": CSV_FORMAT})
    with pytest.raises(SystemExit):
        main(["estimate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "csv (one line per quantity, from fp_csv:fp_csv); a plugin may add others" in text
