"""Hostile packs and inputs, end to end: each is refused (or evaluated safely) with one
clear message naming file, line and field; nothing runs, nothing hangs, no traceback."""

from __future__ import annotations

import json
import textwrap

import pytest

from fitproof.cli import main
from fitproof.formula.parser import FormulaSyntaxError, parse_formula

from .conftest import pack_line, watchdog, write_pack


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's usage errors, as the `fitproof` script exits
        code = exit_.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


ZERO = """\
    kind: formulas
    id: zero
    formulas:
      overhead_gib:
        expr: 1 / (batch - batch)
        unit: GiB
        description: a buffer that divides by zero
        override: true
      cost_per_mtok_usd:
        expr: 9 ** 9 ** 9
        unit: USD
        description: an overflowing power
        override: true
    """


def test_division_by_zero_and_overflow_at_evaluation_are_unknown_not_numbers(tmp_path, capsys):
    write_pack(tmp_path, "zero.yaml", textwrap.dedent(ZERO))
    scenario = ["qwen3.5-35b-a3b", "--on", "rtx-3090", "--no-plugins", "--profile", "seed",
                "--pack-dir", str(tmp_path)]
    with watchdog():  # 9**9**9 is never computed exactly (that would not end)
        code, out, err = run(capsys, "estimate", *scenario, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    quantities = data["quantities"]
    # unknown spreads to everything that needs it, and stops there
    assert quantities["overhead_gib"] == {"value": None, "unit": "GiB",
                                          "source": f"{tmp_path}/zero.yaml:4"}
    for name in ("total_gib", "headroom_gib", "utilization", "decode_tps", "cost_per_mtok_usd"):
        assert quantities[name]["value"] is None, name
    assert quantities["weights_gib"]["value"] == 20.5
    assert round(quantities["prefill_tps"]["value"]) == 5917
    # no verdict rule is decided on an unknown figure ("exceeds" would be a wrong answer)
    assert data["verdict"] == {"id": None, "label": "Unknown (missing figures)", "source": None}

    code, out, _ = run(capsys, "estimate", *scenario)
    assert code == 0
    assert out.splitlines()[3] == (
        "  Unknown: overhead_gib is not computable for these inputs (division by zero or out "
        f"of range) ({tmp_path}/zero.yaml:4)")
    assert "    Engine & activation       n/a" in out.splitlines()

    code, out, _ = run(capsys, "explain", "overhead_gib", *scenario)
    assert out.splitlines()[:5] == [
        "overhead_gib = unknown (not computable for these inputs (division by zero or out of "
        f"range))  {tmp_path}/zero.yaml:4",
        "  a buffer that divides by zero",
        "  = 1 / (batch - batch)",
        "  = 1 / (1 - 1)",
        f"  overrides the definition at {pack_line('formulas/seed-memory.yaml', 'overhead_gib')}"]


def test_a_one_megabyte_formula_is_refused_before_it_is_parsed(monkeypatch):
    """The length is checked before the text is read any further: nothing of it is
    normalised or handed to the parser."""
    import fitproof.formula.parser as parser_module

    calls = []
    real = parser_module.normalise
    monkeypatch.setattr(parser_module, "normalise", lambda *a: calls.append(a) or real(*a))
    with pytest.raises(FormulaSyntaxError) as caught:
        parse_formula("1+" * 500_000 + "1")
    assert str(caught.value) == "formula is 1,000,001 characters long; the limit is 2000"
    with pytest.raises(FormulaSyntaxError):
        parse_formula("x" * 1_000_000)
    assert calls == []
    parse_formula("1+1")  # the counter sees a formula that is parsed
    assert len(calls) == 1


def test_a_long_formula_in_a_pack_names_file_line_and_field(tmp_path, capsys):
    write_pack(tmp_path, "long.yaml", "kind: formulas\nid: long\nformulas:\n  x:\n"
               f"    expr: \"{'1+' * 300_000}1\"\n    unit: GiB\n    description: long\n")
    code, out, _ = run(capsys, "packs", "validate", "--no-plugins", str(tmp_path / "long.yaml"))
    assert code == 1
    assert out.splitlines()[0] == (f"{tmp_path}/long.yaml:5: formulas.x.expr: is longer than "
                                   "2000 characters (got 600001)")


def test_a_100_megabyte_file_is_refused_without_being_read(tmp_path, capsys):
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:  # sparse: costs no disk and no time
        handle.truncate(100 * 1024 * 1024)
    message = f"{huge}: file is 104,857,600 bytes; a pack may be at most 1,000,000 bytes"
    with watchdog():
        code, out, _ = run(capsys, "packs", "validate", "--no-plugins", str(huge))
    assert code == 1 and out.splitlines()[0] == message
    code, out, err = run(capsys, "estimate", "--no-plugins", "--pack-dir", str(tmp_path))
    assert code == 1 and out == ""
    assert err.splitlines() == ["fitproof: 1 problem in packs:", f"  {message}"]


def test_look_alike_characters_in_a_pack_formula(tmp_path, capsys):
    write_pack(tmp_path, "lookalike.yaml", textwrap.dedent("""\
        kind: formulas
        id: lookalike
        formulas:
          doubled_total:
            expr: 2 * tоtal_gib
            unit: GiB
            description: the 'o' of total is a Cyrillic о
        """))
    code, out, err = run(capsys, "estimate", "--no-plugins", "--pack-dir", str(tmp_path))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "fitproof: 1 problem in packs:",
        f"  {tmp_path}/lookalike.yaml:5: formulas.doubled_total.expr: formula rejected: "
        "character 'о' (U+043E) is not allowed; formulas are plain ASCII (column 6)"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--context", "0"], "fitproof: error: context must be at least 1 (got 0)"),
    (["--context=-32K"], "fitproof: error: context must be at least 1 (got -32768)"),
    (["--context", "abc"], "fitproof estimate: error: argument --context: expected a whole "
                           "number of tokens such as 8192 or 8K, got 'abc' (see fitproof "
                           "estimate --help)"),
    (["--context", "10G"], "fitproof estimate: error: argument --context: expected a whole "
                           "number of tokens such as 8192 or 8K, got '10G' (see fitproof "
                           "estimate --help)"),
    (["--context", "999999999999"], "fitproof: error: context must be at most 100000000 "
                                    "(got 999999999999)"),
    (["--batch", "-3"], "fitproof: error: batch must be at least 1 (got -3)"),
    (["--gpus", "-1"], "fitproof: error: gpus must be at least 1 (got -1)"),
    (["--offload", "-0.5"], "fitproof: error: offload must be at least 0% (got -0.5)"),
    (["--offload", "100.5"], "fitproof: error: offload must be at most 100% (got 100.5)"),
    (["--offload", "50%"], "fitproof estimate: error: argument --offload: expected a number, "
                           "got '50%' (see fitproof estimate --help)"),
    (["--hours-per-day", "25"], "fitproof: error: hours_per_day must be at most 24 (got 25)"),
    (["--prompt", "-1"], "fitproof: error: prompt must be at least 0 (got -1)"),
    (["--budget", "-5"], "fitproof: error: budget_usd must be at least 0 (got -5)"),
    (["--workload", "pretraining"], "fitproof: error: unknown workload 'pretraining'; choose "
                                    "one of full, inference, lora, qlora"),
    (["--engine", "tensorrt"], "fitproof: error: unknown engine 'tensorrt'; choose one of "
                               "llama.cpp, sglang, vllm"),
    # an empty folder name would load the current folder, recursively
    (["--pack-dir", ""], "fitproof: error: a pack folder needs a name; got an empty one"),
    (["--pack-dir", "  "], "fitproof: error: a pack folder needs a name; got an empty one"),
])
def test_out_of_range_and_unknown_inputs_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, "estimate", "--no-plugins", *argv)
    assert (code, out, err.splitlines()) == (2, "", [message])


@pytest.mark.parametrize("field, value", [("memory_gb", "1e30"), ("memory_bandwidth_gbs", "1e30"),
                                          ("memory_gb", "1e300"), ("tdp_w", "-1e16")])
@pytest.mark.parametrize("argv", [["estimate", "qwen3-8b"], ["report", "qwen3-8b"],
                                  ["explain", "headroom_gib", "qwen3-8b"]])
def test_figures_beyond_any_real_one_are_refused_with_their_line(tmp_path, capsys, field, value,
                                                                 argv):
    """A schema-valid figure no real model or accelerator comes near (over 1e15 in size) is
    a typo or an attack: refused at load, with its line, by every command and by validate."""
    from .conftest import REPO

    template = (REPO / "examples" / "hardware-template.yaml").read_text(encoding="utf-8")
    lines = [f"{field}: {value}" if line.startswith(f"{field}:") else line
             for line in template.splitlines()]
    line = next(i for i, text in enumerate(lines, 1) if text.startswith(f"{field}:"))
    write_pack(tmp_path, "acme-x1-48gb.yaml", "\n".join(lines) + "\n")
    code = main([*argv, "--on", "acme-x1-48gb", "--pack-dir", str(tmp_path), "--no-plugins"])
    out, err = capsys.readouterr()
    shown = f"{float(value):g}"
    expected = (f"  {tmp_path / 'acme-x1-48gb.yaml'}:{line}: {field}: {shown} is beyond any "
                "real figure (at most 1e+15 in size)")
    assert (code, out) == (1, "") and expected in err.splitlines() and "Traceback" not in err
    code = main(["packs", "validate", "--no-plugins", str(tmp_path)])
    assert code == 1 and expected.strip() in capsys.readouterr().out.splitlines()


def test_a_large_but_real_figure_is_shown(tmp_path, capsys):
    from .conftest import REPO

    template = (REPO / "examples" / "hardware-template.yaml").read_text(encoding="utf-8")
    lines = ["memory_gb: 1e12" if line.startswith("memory_gb:") else line
             for line in template.splitlines()]
    write_pack(tmp_path, "acme-x1-48gb.yaml", "\n".join(lines) + "\n")
    code = main(["estimate", "qwen3-8b", "--on", "acme-x1-48gb", "--pack-dir", str(tmp_path),
                 "--no-plugins"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "Fits with Safe Headroom" in out


def test_rounding_huge_values_is_the_identity():
    import numpy as np

    from fitproof.formula.rounding import round_half_away

    assert round_half_away(1e26, 2) == 1e26 and round_half_away(-1e300, 0) == -1e300
    assert list(round_half_away(np.array([1e30, 0.625, 2.5]), 2)) == [1e30, 0.63, 2.5]
    assert round_half_away(2.5) == 3.0 and round_half_away(133.95, 1) == 133.9


def _chain_pack(length: int) -> str:
    """A formula pack whose overhead reads a chain of ``length`` formulas."""
    lines = ["kind: formulas", "id: chain", "formulas:",
             "  overhead_gib:", "    expr: step_1 * 1", "    unit: GiB", "    override: true",
             "    description: the head of a chain"]
    for i in range(1, length):
        lines += [f"  step_{i}:", f"    expr: step_{i + 1} + 0", "    unit: GiB",
                  "    description: a link"]
    lines += [f"  step_{length}:", "    expr: 0.5", "    unit: GiB", "    description: the end"]
    return "\n".join(lines) + "\n"


def test_a_deep_formula_chain_is_refused_at_load_with_file_and_line(tmp_path, capsys):
    """A pack can chain thousands of formulas; the walks over the graph never recurse into
    a RecursionError: the chain is refused with the place it starts."""
    write_pack(tmp_path, "chain.yaml", _chain_pack(2000))
    code, out, err = run(capsys, "estimate", "qwen3-8b", "--no-plugins", "--profile", "seed",
                         "--pack-dir", str(tmp_path))
    assert code == 1 and out == ""
    # named at the formula of the pack where the chain passes the bound, with its line
    assert err.splitlines() == [
        "fitproof: 1 problem in packs:",
        f"  {tmp_path}/chain.yaml:{4 + 5 + 4 * (2000 - 151)}: step_1850: formula 'step_1850' "
        "starts a chain of 151 formulas, each reading the next; at most 150 are evaluated"]


def test_a_chain_within_the_bound_is_evaluated_and_explained(tmp_path, capsys):
    write_pack(tmp_path, "chain.yaml", _chain_pack(120))
    scenario = ["qwen3-8b", "--no-plugins", "--profile", "seed", "--pack-dir", str(tmp_path)]
    code, out, _ = run(capsys, "estimate", *scenario, "--json")
    assert code == 0 and json.loads(out)["quantities"]["overhead_gib"]["value"] == 0.5
    for argv in (["explain", "overhead_gib"], ["report"], ["explain", "total_gib"]):
        code, out, _ = run(capsys, *argv, *scenario)
        assert code == 0 and out
    code, out, _ = run(capsys, "explain", "total_gib", *scenario, "--format", "json")
    assert code == 0 and json.loads(out)


def test_explain_refuses_a_negative_depth(capsys):
    code, out, err = run(capsys, "explain", "total_gib", "--depth", "-1", "--no-plugins")
    assert (code, out, err.splitlines()) == (2, "", [
        "fitproof explain: error: argument --depth: expected 0 or more levels, got -1 "
        "(see fitproof explain --help)"])


def test_the_api_refuses_an_empty_pack_folder_name():
    import fitproof
    from fitproof.errors import InputError

    with pytest.raises(InputError, match="a pack folder needs a name; got an empty one"):
        fitproof.load_registry([""], plugins=False)


def test_special_files_and_link_loops_in_a_pack_folder(tmp_path, capsys):
    """A FIFO or a link to /dev/zero named like a pack is refused without being opened (it
    would block or never end), and links back to a folder are walked once: the command
    ends with one line per special file."""
    import os

    folder = tmp_path / "packs"
    (folder / "sub").mkdir(parents=True)
    os.mkfifo(folder / "pipe.yaml")
    (folder / "zero.yaml").symlink_to("/dev/zero")
    (folder / "sub" / "up").symlink_to("..")
    (folder / "self").symlink_to(".")
    with watchdog():
        code, out, err = run(capsys, "estimate", "--no-plugins", "--pack-dir", str(folder))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "fitproof: 2 problems in packs:",
        f"  {folder}/pipe.yaml: is not a regular file (a device, pipe or socket); packs are "
        "read from files",
        f"  {folder}/zero.yaml: is not a regular file (a device, pipe or socket); packs are "
        "read from files"]


@pytest.mark.parametrize("root", ["/dev/null", "fifo"])
def test_a_special_file_given_as_the_pack_folder(tmp_path, capsys, root):
    import os

    if root == "fifo":
        root = str(tmp_path / "fifo")
        os.mkfifo(root)
    code, out, err = run(capsys, "estimate", "--no-plugins", "--pack-dir", root)
    assert code == 1 and err.splitlines() == [
        "fitproof: 1 problem in packs:",
        f"  {root}: is not a pack file or folder (a device, pipe or socket) (from --pack-dir)"]


# (config.json text, the error line with {path} for the file); NaN and Infinity are JSON as
# transformers writes it, refused only where the importer reads them (Nemotron's config
# holds an infinite time-step limit no size depends on)
HF_CASES = {
    "nested": ("[" * 100_000 + "]" * 100_000, "{path}: JSON nested too deeply for a config.json"),
    "surrogate": ('{"architectures": ["\\ud800"], "hidden_size": 4096}',
                  "{path}: architectures[0]: text with a lone surrogate (\\ud800)"),
    "infinity": ('{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, '
                 '"num_hidden_layers": Infinity}',
                 "num_hidden_layers: inf is not a number a model can be sized with"),
    "nan": ('{"architectures": ["LlamaForCausalLM"], "hidden_size": NaN}',
            "hidden_size: nan is not a number a model can be sized with"),
}


@pytest.mark.parametrize("case", HF_CASES)
def test_hostile_config_json_is_one_line(tmp_path, capsys, case):
    text, message = HF_CASES[case]
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "import", "hf", str(path), "--id", "x", "--out",
                         str(tmp_path / "out"))
    assert (code, out) == (2, "")
    assert err == f"fitproof: error: {message.format(path=path)}\n"
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_import_hf_never_reads_a_pipe_or_a_device(tmp_path, capsys, special):
    import os

    path = tmp_path / "config.json"
    if special == "fifo":
        os.mkfifo(path)  # opening it to read would wait for a writer forever
    else:
        path.symlink_to("/dev/zero")  # reading it would never end
    with watchdog():
        code, _, err = run(capsys, "import", "hf", str(path), "--id", "x", "--out",
                           str(tmp_path / "out"))
    assert code == 2
    assert err == (f"fitproof: error: {path} is not a regular file (a device, pipe or "
                   "socket); a config.json is a small file\n")


def test_an_import_option_that_is_not_utf8_is_one_line(tmp_path, capsys):
    from .conftest import REPO

    config = sorted((REPO / "tests" / "data" / "hf-configs").iterdir())[0]
    name = b"\xff\xfe".decode("utf-8", "surrogateescape")  # as Python passes such an argv
    code, _, err = run(capsys, "import", "hf", str(config), "--id", "x", "--out",
                       str(tmp_path / "out"), "--name", name)
    assert (code, err) == (2, "fitproof: error: --name is not valid UTF-8 text\n")


def test_an_import_problem_names_the_pack_as_not_written(tmp_path, capsys):
    """A config that lacks what a model pack needs: the problem names the pack the import
    would have written, and says it was not written."""
    path = tmp_path / "config.json"
    path.write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, '
                    '"num_hidden_layers": 2, "num_attention_heads": 32, '
                    '"intermediate_size": 100}', encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run(capsys, "import", "hf", str(path), "--id", "x", "--out", str(out))
    assert code == 1
    assert err.splitlines() == ["fitproof: 1 problem in packs:",
                                f"  {out}/x.yaml (not written):1: missing required field "
                                "'vocab_size'"]
    assert not (out / "x.yaml").exists()


@pytest.mark.parametrize("root", ["/proc/self", "/"])
def test_a_pack_path_that_leads_to_the_whole_file_system_stops_soon(monkeypatch, capsys, root):
    """/proc/self's root link (or / itself) would walk every file of the machine: the walk
    stops after a bounded number of entries, with one line naming the folder."""
    monkeypatch.setenv("FITPROOF_PACK_PATH", root)
    with watchdog():
        code, out, err = run(capsys, "estimate", "qwen3-8b", "--on", "rtx-4090", "--no-plugins")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "fitproof: 1 problem in packs:",
        f"  {root}: holds more than 20,000 files and folders (from FITPROOF_PACK_PATH); a pack "
        "folder is small: name the folder that holds the packs"]


@pytest.mark.slow
def test_the_walk_bound_counts_every_entry(tmp_path, capsys):
    # 3 folders of 6,700 files: 20,103 entries with the folders, past the bound of 20,000
    for index in range(3):
        (tmp_path / f"d{index}").mkdir()
        for name in range(6700):
            (tmp_path / f"d{index}" / f"n{name}").touch()
    message = (f"{tmp_path}: holds more than 20,000 files and folders (from --pack-dir); a "
               "pack folder is small: name the folder that holds the packs")
    argv = ["estimate", "qwen3-8b", "--on", "rtx-4090", "--no-plugins", "--pack-dir", str(tmp_path)]
    code, out, err = run(capsys, *argv)
    assert (code, out, err.splitlines()) == (1, "", ["fitproof: 1 problem in packs:", f"  {message}"])
    # one folder fewer is within the bound: nothing in it is a pack, and nothing is wrong
    for path in (tmp_path / "d2").iterdir():
        path.unlink()
    code, _, err = run(capsys, *argv)
    assert (code, err) == (0, "")
