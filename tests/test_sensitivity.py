"""``explain --sensitivity``: elasticities from sympy's derivatives, checked against finite
differences of the evaluator."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from fitproof.cli import main

from .conftest import REPO

pytestmark = pytest.mark.slow


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--no-plugins", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def sensitivity(capsys, *argv: str) -> dict:
    code, out, err = cli(capsys, "explain", *argv, "--sensitivity", "--format", "json")
    assert code == 0, err
    return json.loads(out)


def decode(capsys, *argv: str) -> float:
    code, out, err = cli(capsys, "explain", "decode_tps", *argv, "--format", "json", "--depth", "0")
    assert code == 0, err
    return json.loads(out)["value"]


def test_decode_on_a_discrete_gpu_ranks_bandwidth_first(capsys):
    rows = sensitivity(capsys, "decode_tps", "llama-3.1-8b", "--on", "rtx-4090")["sensitivity"]
    assert rows[0]["name"] == "hardware.memory_bandwidth_gbs"
    assert rows[0]["group"] == "hardware"
    assert rows[0]["source"].startswith("packs/hardware/rtx-4090.yaml:")
    # decode time is bytes / bandwidth plus a fixed overhead: between 0 and 1
    assert 0.5 < rows[0]["elasticity"] < 1
    # every compute figure is off the critical path of a memory-bound decode
    assert not any(r["name"] in ("hardware.fp16_tflops", "hardware.int8_tops") for r in rows)
    groups = [r["group"] for r in rows]
    assert groups == sorted(groups, key=["hardware", "scenario", "model", "constants"].index)


def test_prefill_moves_with_compute_not_bandwidth(capsys):
    rows = sensitivity(capsys, "prefill_tps", "llama-3.1-8b", "--on", "rtx-4090")["sensitivity"]
    hardware = [r for r in rows if r["group"] == "hardware"]
    assert hardware[0]["name"] in ("hardware.int8_tops", "hardware.fp16_tflops")
    # a prompt token's time is its FLOPs at the peak plus the same FLOPs at the backend's
    # ceiling, so the peak and the ceiling share the elasticity of 1 of a compute-bound rate
    ceiling = next(r["elasticity"] for r in rows if r["name"] == "engine.prefill_ceiling_tflops")
    assert 0.1 < ceiling < hardware[0]["elasticity"] < 0.9
    assert hardware[0]["elasticity"] + ceiling == pytest.approx(1.0, abs=0.01)
    assert "hardware.memory_bandwidth_gbs" not in {r["name"] for r in rows}


def test_the_bandwidth_elasticity_matches_a_finite_difference(capsys, tmp_path):
    rows = sensitivity(capsys, "decode_tps", "llama-3.1-8b", "--on", "rtx-4090")["sensitivity"]
    elasticity = next(r["elasticity"] for r in rows if r["name"] == "hardware.memory_bandwidth_gbs")
    pack = yaml.safe_load((REPO / "packs/hardware/rtx-4090.yaml").read_text())
    base = decode(capsys, "llama-3.1-8b", "--on", "rtx-4090")
    pack["memory_bandwidth_gbs"] = pack["memory_bandwidth_gbs"] * 1.001
    pack["override"] = True
    (tmp_path / "rtx-4090.yaml").write_text(yaml.safe_dump(pack))
    moved = decode(capsys, "llama-3.1-8b", "--on", "rtx-4090", "--pack-dir", str(tmp_path))
    assert math.log(moved / base) / math.log(1.001) == pytest.approx(elasticity, abs=0.005)


def test_an_input_elasticity_matches_a_finite_difference(capsys):
    scenario = ["qwen3-8b", "--on", "rtx-3090", "--context", "32768", "--batch", "4"]
    rows = sensitivity(capsys, "decode_tps", *scenario, "--prompt", "16000")["sensitivity"]
    elasticity = next(r["elasticity"] for r in rows if r["name"] == "prompt")
    assert elasticity < 0  # a deeper cache is slower to read
    base = decode(capsys, *scenario, "--prompt", "16000")
    moved = decode(capsys, *scenario, "--prompt", "16016")
    assert math.log(moved / base) / math.log(16016 / 16000) == pytest.approx(elasticity, abs=0.01)


def test_text_names_the_strongest_figure(capsys):
    code, out, _ = cli(capsys, "explain", "decode_tps", "llama-3.1-8b", "--on", "rtx-4090",
                       "--depth", "0", "--sensitivity")
    assert code == 0
    head = out.split("Sensitivity of decode_tps: d ln decode_tps / d ln x at this scenario\n")[1]
    first = head.splitlines()[0]
    assert first.startswith("  decode_tps moves 0.") and \
        first.endswith(":1 with hardware.memory_bandwidth_gbs here (the same way: 1 % more "
                       "hardware.memory_bandwidth_gbs gives +" + first.split(" moves ")[1][:4]
                       + " % decode_tps)")
    assert head.splitlines()[1:3][0] == "  Hardware figures"


def test_markdown_and_latex_carry_the_table(capsys):
    code, out, _ = cli(capsys, "explain", "decode_tps", "--depth", "0", "--sensitivity",
                       "--format", "markdown")
    assert code == 0 and "| group | name | elasticity | value | source |" in out
    assert "| Hardware figures | `hardware.memory_bandwidth_gbs` | +0." in out
    code, out, _ = cli(capsys, "explain", "decode_tps", "--sensitivity", "--format", "latex")
    assert code == 0 and "\\texttt{hardware.memory\\_bandwidth\\_gbs} & +0." in out


def test_a_condition_has_no_elasticity(capsys):
    code, out, err = cli(capsys, "explain", "fits_in_memory", "--sensitivity")
    assert (code, out) == (2, "")
    assert err == ("fitproof: error: --sensitivity needs a numeric formula; fits_in_memory is "
                   "a yes/no condition\n")


@pytest.fixture(scope="module")
def decode_sensitivity(registry):
    from fitproof import api

    resolved = api.scenario(registry, model="llama-3.1-8b", hardware="rtx-4090")
    return api.explain(registry, resolved, "decode_tps", 0, sensitivity=True)


def _shown(row) -> str:
    from fitproof.views.numbers import format_number

    return format_number(row.value) + ("" if row.unit in ("1", "") else f" {row.unit}")


def _grouped(rows) -> list[tuple[str, list]]:
    """The rows under each group's title, the groups in the order they first appear."""
    from fitproof.renderers.sensitivity import GROUP_TITLES

    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    return [(GROUP_TITLES[group], found) for group, found in groups.items()]


def test_text_shows_every_row_under_its_group(decode_sensitivity):
    from fitproof.renderers import sensitivity

    root, rows = decode_sensitivity.derivation, decode_sensitivity.sensitivity
    assert len(rows) > 5 and len({r.group for r in rows}) >= 3
    lines = sensitivity.render_text(root, rows).splitlines()
    assert lines[:2] == ["", "Sensitivity of decode_tps: d ln decode_tps / d ln x at this "
                             "scenario"]
    assert lines[2].startswith(f"  decode_tps moves {abs(rows[0].elasticity):.2f}:1 with "
                               f"{rows[0].name} here")
    expected = []
    for title, group in _grouped(rows):
        expected.append([title])
        expected += [[r.name, f"{r.elasticity:+.2f}", *_shown(r).split(), str(r.at)]
                     for r in group]
    assert [line.split() if line.startswith("    ") else [line.strip()]
            for line in lines[3:]] == expected
    # the explain command prints the derivation, then this table
    from fitproof import api

    shown = api.render("derivation", decode_sensitivity, plugins=False, depth=0)
    assert shown.endswith("\n" + "\n".join(lines))


def test_markdown_latex_and_json_show_every_row(decode_sensitivity):
    from fitproof.renderers import sensitivity

    root, rows = decode_sensitivity.derivation, decode_sensitivity.sensitivity
    markdown = sensitivity.render_markdown(root, rows).splitlines()
    table = markdown.index("| group | name | elasticity | value | source |")
    assert markdown[:table] == ["", "**Sensitivity of `decode_tps`** (d ln decode_tps / d ln x)",
                                "", markdown[3], ""]
    assert markdown[3].startswith(f"decode_tps moves {abs(rows[0].elasticity):.2f}:1 with ")
    assert markdown[table + 1:] == ["|---|---|---:|---:|---|", *(
        f"| {title} | `{r.name}` | {r.elasticity:+.2f} | {_shown(r)} | `{r.at}` |"
        for title, group in _grouped(rows) for r in group)]

    def tex(text: str) -> str:
        return text.replace("_", "\\_").replace("%", "\\%")

    latex = sensitivity.render_latex(root, rows).splitlines()
    assert latex[:4] == ["\\begin{tabular}{lrr}",
                         "  \\multicolumn{3}{l}{Sensitivity of \\texttt{decode\\_tps}} \\\\",
                         "  name & elasticity & value \\\\", "  \\hline"]
    assert latex[4:] == [*(f"  \\texttt{{{tex(r.name)}}} & {r.elasticity:+.2f} & "
                           f"{tex(_shown(r))} \\\\" for r in rows), "\\end{tabular}"]
    assert sensitivity.to_list(rows) == [
        {"name": r.name, "elasticity": r.elasticity, "value": r.value, "unit": r.unit,
         "group": r.group, "kind": r.kind, "source": str(r.at)} for r in rows]


def _step(text: str, **inputs: float):
    """A formula step of ``text`` reading ``inputs`` (names to values)."""
    from fitproof.engine.derivation import Derivation
    from fitproof.formula.parser import parse_formula
    from fitproof.specs.common import Location

    at = Location("test.yaml", 1)
    return Derivation("out", None, "", at, "formula", formula=parse_formula(text),
                      inputs=tuple(Derivation(name, value, "", at, "input")
                                   for name, value in inputs.items()))


@pytest.mark.parametrize("text, inputs", [
    ("9 ** 9 ** 9 ** 9", {}),  # mpmath's mpf_pow_int ran for hours
    ("x * 9 ** 9 ** 9 ** 9", {"x": 2.0}),
    ("x + 2 ** -(9 ** 9 ** 9)", {"x": 2.0}),  # underflows to 0 for the evaluator
    ("x ** 9 ** 9 ** 9", {"x": 1.0}),  # 1 for the evaluator, an exponent of 10 ** 369,693,100
    ("min(x, 10 ** 500)", {"x": 2.0}),  # past a float: inf
    ("x ** 2000000", {"x": 1.0000001}),  # finite, but the exponent is past MAX_EXPONENT
    ("coalesce(9 ** 9 ** 9 ** 9, x)", {"x": 2.0}),
])
def test_a_power_past_the_bounds_is_not_computable_at_once(text, inputs):
    """Sensitivity checks every power, innermost first, before sympy evaluates anything:
    a power past the bounds has no elasticity (as the derivation calls an infinite value
    not computable), without evaluating it (the watchdog fails a real hang, never a
    timing)."""
    from fitproof.engine.sensitivity import local_elasticities

    from .conftest import watchdog

    with watchdog():
        assert local_elasticities(_step(text, **inputs)) == {}


def test_powers_within_the_bounds_keep_their_elasticities():
    from fitproof.engine.sensitivity import MAX_EXPONENT, MAX_POWER_DIGITS, local_elasticities

    assert (MAX_EXPONENT, MAX_POWER_DIGITS) == (1e6, 400)
    # d ln (x ** 3 * y ** -0.5) / d ln x = 3, / d ln y = -0.5
    assert local_elasticities(_step("x ** 3 * y ** -0.5", x=2.0, y=4.0)) == \
        pytest.approx({"x": 3.0, "y": -0.5})
    # 10 ** 300 is within a float: the elasticity of x * 10 ** 300 in x is 1
    assert local_elasticities(_step("x * 10 ** 300", x=2.0)) == pytest.approx({"x": 1.0})
    # an exponent of a million on a base near 1 stays within the bounds: the elasticity is n
    assert local_elasticities(_step("x ** 1000000", x=1.0000001)) == \
        pytest.approx({"x": 1e6})


def test_the_power_tower_explains_as_not_computable_with_sensitivity(capsys):
    """explain --sensitivity of 9 ** 9 ** 9 ** 9 answers as explain does, at once."""
    pack = REPO / "tests" / "hostile" / "formula" / "power-tower-at-evaluation.yaml"
    code, out, err = cli(capsys, "explain", "overhead_gib", "qwen3-8b", "--profile", "seed",
                         "--pack-dir", str(pack), "--sensitivity")
    assert code == 0, err
    assert out.splitlines()[0] == ("overhead_gib = unknown (not computable for these inputs "
                                   f"(division by zero or out of range))  {pack}:4")
