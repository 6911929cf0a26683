"""``fitproof sweep``: one row per combination, the numbers of a single estimate, every
combination present (those that cannot be evaluated with their reason), CSV, JSON Lines and
Parquet, and clear errors."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

import fitproof
from fitproof.cli import main

MODELS = "qwen3-8b,llama-3.1-70b,gpt-oss-20b"
HARDWARE = "rtx-4090,RTX 3090,apple-m3-max-40c-128gb"


@pytest.fixture(scope="module")
def registry() -> fitproof.Registry:
    return fitproof.load_registry(plugins=False)


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sweep", "--no-plugins", "--models", MODELS, "--on", HARDWARE, *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_every_combination_is_a_row_with_the_numbers_of_an_estimate(capsys, registry):
    code, out, err = sweep(capsys, "--quant", "Q4_K_M,MXFP4_MOE", "--context", "8K,32K",
                           "--batch", "1,4")
    assert code == 0 and err == ""
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3 * 3 * 2 * 2 * 2
    # ids resolved ("RTX 3090" is an alias), rows in the order of the axes
    assert [r["hardware"] for r in rows[:3]] == ["rtx-4090", "rtx-3090", "apple-m3-max-40c-128gb"]
    assert rows[0]["model"] == "qwen3-8b" and rows[0]["context"] == "8192"
    for row in rows:
        if row["error"]:
            continue
        estimate = fitproof.estimate(row["model"], row["hardware"], quant=row["quant"],
                                     context=int(row["context"]), batch=int(row["batch"]),
                                     registry=registry)
        assert row["verdict"] == estimate.verdict.id
        for column in ("total_gib [GiB]", "decode_tps [tok/s]", "cost_per_mtok_usd [USD]"):
            value = estimate.value(column.split(" ")[0])
            assert (row[column] == "") if value is None else float(row[column]) == value


def test_a_combination_that_cannot_be_evaluated_says_why(capsys):
    code, out, _ = sweep(capsys, "--quant", "MXFP4_MOE")
    rows = list(csv.DictReader(io.StringIO(out)))
    dense = [r for r in rows if r["model"] == "qwen3-8b"]
    moe = [r for r in rows if r["model"] == "gpt-oss-20b"]
    assert code == 0 and len(dense) == 3 and len(moe) == 3
    for row in dense:
        assert "quantizes only the routed experts" in row["error"]
        assert row["verdict"] == "" and row["total_gib [GiB]"] == ""
        assert row["context"] == "8192" and row["gpus"] == "1"  # the defaults it would use
    assert all(r["error"] == "" and float(r["total_gib [GiB]"]) > 0 for r in moe)


def test_jsonl_holds_the_same_rows_as_csv(capsys):
    _, text, _ = sweep(capsys, "--context", "4K")
    _, lines, _ = sweep(capsys, "--context", "4K", "--format", "jsonl")
    table = list(csv.DictReader(io.StringIO(text)))
    objects = [json.loads(line) for line in lines.splitlines()]
    assert len(objects) == len(table) == 9
    for row, obj in zip(table, objects):
        assert obj["model"] == row["model"] and obj["verdict"] == row["verdict"]
        assert obj["decode_tps"] == float(row["decode_tps [tok/s]"])
        assert obj["error"] is None


def test_parquet_round_trips_with_units(capsys, tmp_path):
    import pyarrow.parquet as pq  # in the test extra

    path = tmp_path / "sweep.parquet"
    code, out, err = sweep(capsys, "--format", "parquet", "--out", str(path))
    assert code == 0 and out == "" and err == ""
    table = pq.read_table(path)
    assert table.num_rows == 9
    assert table.schema.metadata[b"unit:total_gib"] == b"GiB"
    _, text, _ = sweep(capsys)
    first = next(csv.DictReader(io.StringIO(text)))
    assert table.column("total_gib")[0].as_py() == float(first["total_gib [GiB]"])


def test_out_writes_the_file(capsys, tmp_path):
    path = tmp_path / "sweep.csv"
    code, out, _ = sweep(capsys, "--out", str(path))
    assert code == 0 and out == ""
    assert path.read_text(encoding="utf-8").count("\n") == 10


@pytest.mark.parametrize("argv, message, exit_code", [
    (["--models", "no-such-model"], "unknown model 'no-such-model'", 2),
    (["--context", "8K,lots"], "expected a whole number of tokens such as 8192 or 8K, got 'lots'", 2),
    (["--format", "parquet"], "--format parquet writes a file: give --out FILE", 2),
    (["--format", "xlsx"], "output format 'xlsx'", 2),
    (["--out", "/nonexistent-dir/sweep.csv"], "cannot write /nonexistent-dir/sweep.csv", 2),
    (["--batch", "0"], "batch must be at least 1 (got 0)", 2),
    (["--context=-8K"], "context must be", 2),
])
def test_bad_input_is_one_line(capsys, argv, message, exit_code):
    try:
        code = main(["sweep", "--no-plugins", "--models", "qwen3-8b", "--on", "rtx-4090", *argv])
    except SystemExit as exc:  # a usage error, as argparse reports it
        code = exc.code
    out, err = capsys.readouterr()
    assert code == exit_code and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_api_returns_columns_with_units(registry):
    view = fitproof.api.sweep(registry, models=["qwen3-8b"], hardware=["rtx-4090"],
                              context=[8192, 131072])
    assert view.rows == 2 and view.units["total_gib"] == "GiB"
    assert view.data["context"] == [8192, 131072]
    assert view.data["verdict"] == ["fits", "tight"]
    assert not math.isnan(view.data["decode_tps"][0])


def test_text_shows_every_row_of_the_csv_to_two_decimals(capsys):
    _, text, _ = sweep(capsys, "--context", "4K,32K", "--format", "text")
    _, table, _ = sweep(capsys, "--context", "4K,32K")
    rows = list(csv.reader(io.StringIO(table)))
    header, rows = rows[0], rows[1:]
    lines = text.splitlines()
    assert len(rows) == 18 and len(lines) == 2 + len(rows)
    assert lines[0].split() == [name.split(" [")[0] for name in header]
    assert [set(rule) for rule in lines[1].split()] == [{"-"}] * len(header)
    for line, row in zip(lines[2:], rows):
        assert row[-1] == ""  # no error: every cell is one word, the last one empty
        cells = line.split()
        assert len(cells) == len(row) - 1, line
        for shown, value in zip(cells, row):
            if value == "":  # unknown (no cloud offer of that hardware): n/a in the text
                assert shown == "n/a"
                continue
            try:
                number = float(value)
            except ValueError:
                assert shown == value
            else:
                assert float(shown) == pytest.approx(round(number, 2), abs=1e-9), (shown, value)


def test_text_wraps_the_reason_a_combination_cannot_be_evaluated(capsys):
    _, text, _ = sweep(capsys, "--quant", "MXFP4_MOE", "--format", "text")
    _, table, _ = sweep(capsys, "--quant", "MXFP4_MOE")
    rows = list(csv.DictReader(io.StringIO(table)))
    words = " ".join(text.split())
    starts = [line.split()[:3] for line in text.splitlines()[2:] if not line.startswith(" ")]
    assert starts == [[r["model"], r["hardware"], r["quant"]] for r in rows]
    for row in rows:
        if row["error"]:
            assert " ".join(row["error"].split()) in words
            assert f"{row['quant']} {row['context']} {row['batch']} {row['gpus']} " \
                   + " ".join(["n/a"] * 4) in words
