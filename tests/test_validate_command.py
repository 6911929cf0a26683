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
    assert sum(g["count"] + g["unknown"] for g in data["groups"]) == len(rows)
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
                       else "discrete"] == group["group"] and r["ratio"] is not None]
        apes = sorted(abs(r["ratio"] - 1) for r in members)
        assert group["count"] == len(apes)
        assert group["mape"] == pytest.approx(sum(apes) / len(apes))


def test_validate_text_table(capsys):
    assert main(["validate", "--no-plugins", "--profile", "seed"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Accuracy of the seed profile against ")
    assert "decode_tps" in out and "prefill_tps" in out and "Worst cases" in out


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
