"""fitproof validate: a profile scored against the shipped public measurements."""

from __future__ import annotations

import json
import textwrap

import pytest

import fitproof
from fitproof.cli import main

from .conftest import write_pack


def test_validate_scores_every_measurement_by_its_scenario(capsys):
    assert main(["validate", "--no-plugins", "--format", "json", "--group-by", "device"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["profile"] == "measured" and data["group_by"] == ["device"]
    registry = fitproof.load_registry(plugins=False)
    rows = [row for pack in registry.measurements.values() for row in pack.rows]
    assert len(data["rows"]) == len(rows) >= 14
    assert sum(g["count"] + g["unknown"] for g in data["groups"] + data["outside"]) == len(rows)
    # each prediction is the estimate of the row's scenario: a decode row at its depth and
    # generated tokens, a row run through another backend than its pack's, a prefill row
    decode = next(i for i, r in enumerate(rows) if r.metric == "decode_tps" and r.prompt)
    other = next(i for i, r in enumerate(rows) if r.backend)
    prefill = next(i for i, r in enumerate(rows) if r.metric == "prefill_tps")
    for index in (decode, other, prefill):
        row, shown = rows[index], data["rows"][index]
        result = fitproof.estimate(
            row.model, row.hardware, quant=row.quant, engine=row.engine, registry=registry,
            backend=row.backend, context=row.context,
            prompt=row.context if row.prompt is None else row.prompt, generate=row.generate,
            gpus=row.gpus, batch=row.batch, ubatch=row.ubatch)
        assert shown["predicted"] == pytest.approx(result.value(row.metric))
        assert shown["ratio"] == pytest.approx(result.value(row.metric) / row.value)
        assert shown["source"].startswith("https://") and shown["row"].startswith(
            "packs/measurements/")
    assert rows[decode].prompt > 0 and rows[decode].generate  # scored at prompt + generate / 2
    for group in data["groups"]:
        members = [r for r in data["rows"]
                   if [r["metric"], "unified" if registry.hardware[r["hardware"]].unified_memory
                       else "discrete"] == group["group"] and r["ratio"] is not None
                   and r["outside"] is None]
        apes = sorted(abs(r["ratio"] - 1) for r in members)
        assert group["count"] == len(apes)
        assert group["mape"] == pytest.approx(sum(apes) / len(apes))


def test_identical_sequences_of_a_moe_model_are_scored_apart(capsys):
    """llama-batched-bench's sequences are copies: a MoE model's routers pick the same experts
    for all of them, which is not fitproof's batch of independent requests. Its batched MoE
    rows are scored apart and fit nothing; its dense and single-sequence rows are scored.
    Rows that keep experts in system memory (--n-cpu-moe) are scored apart as well."""
    from fitproof.engine.accuracy import EXPERTS_ON_HOST, IDENTICAL_MOE_BATCH, TUNED_ENGINE

    assert main(["validate", "--no-plugins", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    registry = fitproof.load_registry(plugins=False)
    apart = [r for r in data["rows"] if r["outside"] == IDENTICAL_MOE_BATCH]
    on_host = [r for r in data["rows"] if r["outside"] == EXPERTS_ON_HOST]
    reasons = {r["outside"] for r in data["rows"]}
    assert {None, IDENTICAL_MOE_BATCH, EXPERTS_ON_HOST, TUNED_ENGINE} <= reasons
    # the others are what a serving row's source leaves out, each named
    assert all(reason.startswith("the source does not state ")
               for reason in reasons - {None, IDENTICAL_MOE_BATCH, EXPERTS_ON_HOST, TUNED_ENGINE})
    assert apart and {r["metric"] for r in apart} == {"decode_tps"}
    assert {r["metric"] for r in on_host} == {"decode_tps", "prefill_tps"}
    for shown in apart + on_host:
        assert registry.models[shown["model"]].num_experts.value > 1
    rows = {(pack, i): row for pack in registry.measurements.values()
            for i, row in enumerate(pack.rows)}
    identical = [row for row in rows.values() if row.sequences == "identical"]
    moe_batched = [row for row in identical if row.batch > 1
                   and getattr(registry.models[row.model], "num_experts", None)]
    assert len(apart) == len(moe_batched) < len(identical)
    assert len(on_host) == sum(1 for row in rows.values() if row.cpu_moe)
    dense_batched = next(r for r in data["rows"] if r["model"] == "qwen2.5-7b-instruct"
                         and r["hardware"] == "dgx-spark" and "batch 2 " not in r["row"])
    assert dense_batched["outside"] is None
    group = next(g for g in data["outside"] if g["reason"] == IDENTICAL_MOE_BATCH)
    assert group["metric"] == "decode_tps" and group["count"] == len(apart)
    assert group["reason"].startswith("identical sequences of a mixture-of-experts model")
    apes = sorted(abs(r["ratio"] - 1) for r in apart)
    assert group["mape"] == pytest.approx(sum(apes) / len(apes))
    # the headline table leaves them out, and says so under it
    assert main(["validate", "--no-plugins"]) == 0
    out = capsys.readouterr().out
    decode = next(g for g in data["groups"] if g["group"] == ["decode_tps"])
    undated = [r for r in data["rows"]
               if r["outside"] == "the source does not state the engine's version or date"]
    assert len(undated) == 4 and {r["metric"] for r in undated} == {"decode_tps"}
    assert decode["count"] + decode["unknown"] + len(apart) + len(undated) + sum(
        1 for r in on_host if r["metric"] == "decode_tps") == sum(
        1 for r in data["rows"] if r["metric"] == "decode_tps")
    assert f"Scored apart, outside the modelled workload: {len(apart)} decode_tps rows of" in out
    assert "identical sequences of a\nmixture-of-experts model" in out


def test_validate_text_table(capsys):
    assert main(["validate", "--no-plugins", "--profile", "seed"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Accuracy of the seed profile against ")
    assert "decode_tps" in out and "prefill_tps" in out and "Worst cases" in out
    # the seed profile's formulas were not fitted: no held-out table
    assert "On devices left out of the fit" not in out


def test_validate_prints_the_held_out_scores_the_fit_wrote(capsys):
    # benchmarks/fit_speed.py writes the cross-validation's scores into the engine pack (and
    # --check keeps them equal to a refit); validate prints them for the profile they are of
    registry = fitproof.load_registry(plugins=False)
    scores = registry.engines["llama.cpp"].held_out_accuracy
    assert scores.profile == "measured" and "fit_speed.py" in scores.source
    # vLLM's are benchmarks/fit_serving.py's, held out by device and by source
    serving = registry.engines["vllm"].held_out_accuracy
    assert serving.profile == "measured" and "fit_serving.py" in serving.source
    assert {g.group for g in serving.groups} == {"by-device", "by-source"}
    assert {g.metric for g in serving.groups} >= {"output_tps", "tpot_ms", "ttft_ms"}
    by_group = {(g.metric, g.group): g for g in scores.groups}
    # issue 9's targets, on devices left out of the fit
    for group in ("all", "dense", "moe", "discrete", "unified"):
        assert by_group[("decode_tps", group)].mape <= 0.18, group
        assert by_group[("decode_tps", group)].median_ape <= 0.12, group
    assert by_group[("prefill_tps", "all")].median_ape <= 0.25
    decode = by_group[("decode_tps", "all")]
    assert decode.rows == sum(by_group[("decode_tps", g)].rows for g in ("dense", "moe"))

    assert main(["validate", "--no-plugins"]) == 0
    out = capsys.readouterr().out
    assert "On devices left out of the fit (llama.cpp)" in out
    line = next(row for row in out.splitlines() if row.split()[:2] == ["decode_tps", "all"]
                and row.split()[2] == str(decode.rows))
    assert f"{decode.mape * 100:.1f} %" in line and f"{decode.median_ape * 100:.1f} %" in line
    assert main(["validate", "--no-plugins", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["held_out"]
    assert [h["engine"] for h in shown] == ["llama.cpp", "vllm"]
    assert {"metric": "decode_tps", "group": "unified", "count": by_group[("decode_tps", "unified")].rows,
            "mape": by_group[("decode_tps", "unified")].mape,
            "median_ape": by_group[("decode_tps", "unified")].median_ape,
            "median_ratio": by_group[("decode_tps", "unified")].median_ratio} in shown[0]["groups"]


BAD = """\
    kind: measurements
    id: bad
    name: Bad measurements
    rows:
      - {{model: llama-3.1-8b, hardware: {hardware}, quant: Q4_K_M, engine: llama.cpp,
         metric: decode_tps, value: {value}, context: 256{source}}}
    """


@pytest.mark.parametrize(("hardware", "value", "source", "message"), [
    ("rtx-9090", "100", ", source: 'https://example.org/x'",
     "bad.yaml:5: rows.0.hardware: unknown hardware 'rtx-9090'; did you mean 'rtx-5090'?"),
    ("rtx-4090", "fast", ", source: 'https://example.org/x'",
     "bad.yaml:6: rows.0.value: must be a number"),
    ("rtx-4090", "100", "", "bad.yaml:5: rows.0: missing required field 'source'"),
    ("rtx-4090", "100", ", source: 'https://example.org/x', sequences: same",
     "bad.yaml:6: rows.0.sequences: must be one of \"independent\", \"identical\" (got \"same\")"),
])
def test_a_bad_measurement_row_is_refused_with_file_and_line(tmp_path, capsys, hardware,
                                                               value, source, message):
    write_pack(tmp_path, "bad.yaml", textwrap.dedent(BAD.format(hardware=hardware, value=value,
                                                                 source=source)))
    assert main(["validate", "--no-plugins", "--pack-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err.replace(f"{tmp_path}/", "")
    assert message in err, err


def test_unknown_group_is_a_usage_error(capsys):
    assert main(["validate", "--no-plugins", "--group-by", "colour"]) == 2
    assert capsys.readouterr().err == ("fitproof: error: cannot group by 'colour'; choose from "
                                       "device, engine, moe, backend\n")


@pytest.mark.parametrize("profile", ["measured", "seed"])
def test_readme_shows_the_current_table(capsys, profile):
    from pathlib import Path

    assert main(["validate", "--no-plugins", "--profile", profile]) == 0
    table = capsys.readouterr().out.split("\nWorst cases")[0].strip()
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert table in readme


def _accuracy_tables(result):
    """The group rows and the worst cases as the tables show them, read off the scores."""
    def percent(value):
        return "n/a" if value is None else f"{value * 100:.1f} %"

    def ratio(value):
        return "n/a" if value is None else f"{value:.2f}"

    groups = [[*g.group, f"{g.count}" + (f" (+{g.unknown} n/a)" if g.unknown else ""),
               percent(g.mape), percent(g.median_ape), ratio(g.median_ratio)]
              for g in result.groups]
    worst = [[s.row.metric, s.row.model, s.row.hardware, s.row.quant, f"{s.predicted:.1f}",
              f"{s.row.value:g}", ratio(s.ratio), s.location] for s in result.worst()]
    return groups, worst


def _apart(result):
    """The sentences under the table, one per kind of row scored apart."""
    def percent(value):
        return f"{value * 100:.1f} %"

    return [f"Scored apart, outside the modelled workload: {g.count} {g.group[0]} rows of "
            f"{g.group[1]}; MAPE {percent(g.mape)}, median APE {percent(g.median_ape)}, "
            f"median pred/meas {g.median_ratio:.2f}." for g in result.outside]


@pytest.mark.parametrize("group_by", [(), ("device", "engine")])
def test_validate_text_shows_every_group_and_worst_case(registry, group_by):
    import re

    from fitproof import api

    result = api.accuracy(registry, group_by)
    groups, worst = _accuracy_tables(result)
    assert len(groups) >= 2 and len(worst) == 5
    lines = api.render("accuracy", result, registry=registry).splitlines()

    def cells(line):
        return re.split(r"\s{2,}", line.strip())

    title = (f"Accuracy of the {result.profile} profile against {len(result.rows)} public "
             "measurements")
    assert lines[:2] == [title, "=" * len(title)]
    assert cells(lines[2]) == ["metric", *group_by, "rows", "MAPE", "median APE",
                               "median pred/meas"]
    assert [cells(line) for line in lines[4:4 + len(groups)]] == groups
    at = 4 + len(groups)
    worst_at = lines.index("Worst cases")
    apart = _apart(result)
    assert apart and " ".join(" ".join(lines[at:worst_at]).split()) == " ".join(apart)
    at = worst_at - 1
    assert lines[at:at + 3] == ["", "Worst cases", "-----------"]
    assert cells(lines[at + 3]) == ["metric", "model", "hardware", "quant", "predicted",
                                    "measured", "pred/meas", "row"]
    assert [cells(line) for line in lines[at + 5:at + 5 + len(worst)]] == worst
    assert " ".join(lines[at + 5 + len(worst):]).startswith("Each row cites its source; ")
    assert " ".join(lines[at + 5 + len(worst):]).endswith(" left out of the fit.")


@pytest.mark.parametrize("group_by", [(), ("device",)])
def test_validate_markdown_shows_every_group_and_worst_case(registry, group_by):
    from fitproof import api
    from fitproof.renderers.blocks import _md

    result = api.accuracy(registry, group_by)
    groups, worst = _accuracy_tables(result)

    def row(cells):
        return "| " + " | ".join(_md(cell) for cell in cells) + " |"

    lines = api.render("accuracy", result, "markdown", registry=registry).splitlines()
    assert lines[:2] == [f"# Accuracy of the {result.profile} profile against "
                         f"{len(result.rows)} public measurements", ""]
    header = ["metric", *group_by, "rows", "MAPE", "median APE", "median pred/meas"]
    assert lines[2:4 + len(groups)] == [
        row(header), "|" + "|".join(["---"] * (1 + len(group_by)) + ["---:"] * 4) + "|",
        *map(row, groups)]
    at = 4 + len(groups)
    apart = _apart(result)
    assert apart and lines[at:at + 2 * len(apart)] == [
        line for sentence in apart for line in ("", _md(sentence))]
    at += 2 * len(apart)
    assert lines[at:at + 5 + len(worst) + 1] == [
        "", "## Worst cases", "",
        row(["metric", "model", "hardware", "quant", "predicted", "measured", "pred/meas",
             "row"]), "|---|---|---|---|---:|---:|---:|---|", *map(row, worst), ""]
    assert lines[at + 6 + len(worst):] == [lines[-1]] and lines[-1].startswith("Each row ")


def test_a_row_run_on_another_backend_is_grouped_under_that_backend(registry):
    """A row that states its backend (Vulkan on a Radeon) counts under it, not under the
    hardware pack's own; a row that states none, under the hardware's."""
    scored = fitproof.api.accuracy(registry, ("backend",)).rows
    stated = [s for s in scored if s.row.backend]
    assert stated, "the shipped rows hold runs on another backend"
    for s in scored:
        hardware = registry.hardware[s.row.hardware]
        assert s.group == (s.row.metric, s.row.backend or hardware.backend or "unknown")
    assert any(s.row.backend != registry.hardware[s.row.hardware].backend for s in stated)


def test_a_cpu_moe_row_is_a_measured_run_of_its_scenario_only(registry):
    """A row measured with --cpu-moe N keys to the scenario with --cpu-moe N, not to the one
    without: the estimate of each shows its own runs."""
    from fitproof.engine.accuracy import measurement_scenarios, row_key, scenario_key

    entries, scenarios = measurement_scenarios(registry)
    moved = [(row, scenario) for (_, _, row), scenario in zip(entries, scenarios)
             if row.cpu_moe]
    assert moved, "the shipped rows hold --cpu-moe runs"
    for row, scenario in moved:
        assert scenario.inputs["cpu_moe"] == row.cpu_moe
        assert row_key(registry, row) == scenario_key(scenario)
        without = scenario._replace(inputs={**scenario.inputs, "cpu_moe": 0})
        assert row_key(registry, row) != scenario_key(without)
