"""``fitproof bench ingest``: llama-bench's outputs (llama.cpp's README examples, in
tests/data/bench/) become measurement rows in the user's pack folder, which later
estimates show beside their predictions."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import fitproof
from fitproof.cli import main

BENCH = Path(__file__).resolve().parent / "data" / "bench"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def user_packs(tmp_path, monkeypatch):
    folder = tmp_path / "packs"
    monkeypatch.setenv("FITPROOF_USER_PACKS", str(folder))
    monkeypatch.setenv("FITPROOF_CACHE_DIR", "off")
    return folder


def _ingest(capsys, *argv):
    code = main(["--no-plugins", "bench", "ingest", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_becomes_rows_in_the_user_folder(capsys, user_packs):
    code, out, err = _ingest(capsys, str(BENCH / "llama-bench-4080.json"))
    assert code == 0, err
    path = user_packs / "measurements" / "bench-llama-bench-4080.yaml"
    assert err == f"wrote {path}\n"
    registry = fitproof.load_registry(plugins=False)  # the user folder is read by default
    rows = registry.measurements["bench-llama-bench-4080"].rows
    assert [(r.model, r.hardware, r.quant, r.metric, r.value, r.context, r.prompt, r.generate,
             r.ubatch, r.engine_version, r.date) for r in rows] == [
        ("qwen2.5-7b-instruct", "rtx-4080", "Q4_K_M", "prefill_tps", 7100.002165, 512, None,
         None, 512, "b5163", "2025-04-24"),
        ("qwen2.5-7b-instruct", "rtx-4080", "Q4_K_M", "decode_tps", 118.881588, 128, 0, 128,
         512, "b5163", "2025-04-24")]
    assert rows[0].source == (BENCH / "llama-bench-4080.json").resolve().as_uri()
    lines = out.splitlines()
    assert lines[0] == "qwen2.5-7b-instruct on rtx-4080 · Q4_K_M · llama.cpp"
    assert lines[2].split()[:5] == ["decode_tps", "tg128", "@", "0", "118.9"]
    assert lines[3].split()[:3] == ["prefill_tps", "pp512", "7,100"]
    # the next estimate of that setup shows the user's run beside its prediction
    assert main(["--no-plugins", "estimate", "qwen2.5-7b-instruct", "--on", "rtx-4080",
                 "--quant", "Q4_K_M"]) == 0
    card = capsys.readouterr().out
    assert "    Decode                    118.9 tok/s measured (tg128 at depth 0)" in card
    assert f"b5163, 2025-04-24; {path}:12" in card


def test_csv_and_jsonl_give_the_rows_json_gives(capsys, user_packs, tmp_path):
    """llama-bench's CSV printer: the field names, then every value quoted; JSONL: one
    object per line. Both written here from the README's JSON example."""
    results = json.loads((BENCH / "llama-bench-4080.json").read_text())
    fields = [k for k in results[0] if k not in ("samples_ns", "samples_ts")]
    with open(tmp_path / "run.csv", "w", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL)
        writer.writerow(fields)
        for item in results:
            writer.writerow([str(item[k]).lower() if isinstance(item[k], bool) else item[k]
                             for k in fields])
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in results))
    figures = []
    for name in ("llama-bench-4080.json", tmp_path / "run.csv", tmp_path / "run.jsonl"):
        code, _, err = _ingest(capsys, str(BENCH / name) if isinstance(name, str) else str(name),
                               "--id", f"run-{len(figures)}")
        assert code == 0, err
        registry = fitproof.load_registry(plugins=False)
        figures.append([(r.metric, r.value, r.context, r.engine_version, r.date)
                        for r in registry.measurements[f"run-{len(figures)}"].rows])
    assert figures[0] == figures[1] == figures[2]


def test_the_markdown_table_needs_what_it_does_not_name(capsys, user_packs):
    table = str(BENCH / "llama-bench-depth.md")
    code, _, err = _ingest(capsys, table)
    assert (code, err) == (2, f"fitproof: error: {table}:3: which model pack was run? pass "
                              "--model\n")
    code, _, err = _ingest(capsys, table, "--model", "qwen2.5-7b-instruct", "--on", "rtx-4090")
    assert (code, err) == (2, f"fitproof: error: {table}:3: which weight format was run "
                              "(qwen2 7B Q4_K - Medium)? pass --quant\n")
    code, out, err = _ingest(capsys, table, "--model", "qwen2.5-7b-instruct", "--on",
                             "rtx-4090", "--quant", "Q4_K_M")
    assert code == 0
    assert err.splitlines()[1] == ("left out 1: a prefill at a depth (ppN @ dD): fitproof's "
                                   "prefill starts from an empty cache")
    rows = fitproof.load_registry(plugins=False).measurements["bench-llama-bench-depth"].rows
    assert [(r.metric, r.value, r.prompt, r.generate) for r in rows] == [
        ("prefill_tps", 7340.20, None, None), ("decode_tps", 120.60, 0, 128),
        ("decode_tps", 116.71, 512, 128)]
    assert rows[2].quote == ("| qwen2 7B Q4_K - Medium         |   4.36 GiB |     7.62 B | "
                             "CUDA       |  -1 |    tg128 @ d512 |        116.71 ± 0.60 |")


@pytest.mark.parametrize("content, message", [
    (None, "{path}:2: 41 fields where the header names 42"),  # the README's CSV, as printed
    ("hello", "{path}: not a benchmark output fitproof reads (llama-bench's JSON, JSONL, CSV "
              "or markdown table; vllm bench serve's log or result file)"),
    ("[1, 2]", "{path}: llama-bench -o json prints an array of objects"),
    ('[{"n_prompt": 512}]', "{path}: result 1: the result has no avg_ts"),
    ("| model | test | t/s |\n|---|---|---|\n| x | pp 512x | 1 |\n",
     "{path}:3: test 'pp 512x' / t/s '1' is not llama-bench's ppN, tgN (@ dD)"),
])
def test_outputs_it_cannot_read_are_one_line(capsys, user_packs, tmp_path, content, message):
    if content is None:
        path = BENCH / "llama-bench-4080.csv"
    else:
        path = tmp_path / "bad.out"
        path.write_text(content)
    code, out, err = _ingest(capsys, str(path), "--model", "qwen3-8b", "--on", "rtx-4090",
                             "--quant", "Q4_K_M")
    assert (code, out) == (2, "")
    assert err == f"fitproof: error: {message.format(path=path)}\n"
    assert not user_packs.exists()


def test_shipped_measurements_cite_public_pages():
    """A file:/// source is for a user's own runs; the shipped packs cite pages."""
    for path in sorted((REPO / "packs" / "measurements").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert "file:///" not in text, path.name


@pytest.mark.parametrize("name", ["vllm-bench-serve-h100x8.txt", "vllm-bench-serve-h100x8.json"])
def test_a_vllm_bench_serve_run_becomes_serving_rows(capsys, user_packs, name):
    """llm-benchmaq's run of Llama 3.1 70B Instruct on 8 x H100 (TP 8), 50 in flight: the
    log and the result file give the same rows."""
    path = str(BENCH / name)
    code, _, err = _ingest(capsys, path, "--model", "llama-3.1-70b")
    assert (code, err) == (2, f"fitproof: error: {path}: a serving benchmark names no device "
                              "or weight format; pass --on and --quant (and --gpus, the "
                              "tensor-parallel size)\n")
    code, out, err = _ingest(capsys, path, "--model", "llama-3.1-70b", "--on", "h100-80gb-sxm",
                             "--quant", "BF16", "--gpus", "8")
    assert code == 0, err
    rows = fitproof.load_registry(plugins=False).measurements[
        "bench-" + name.removesuffix(".txt").removesuffix(".json")].rows
    assert [(r.metric, round(r.value, 2)) for r in rows] == [
        ("output_tps", 1675.40), ("tpot_ms", 21.42), ("ttft_ms", 1095.25)]
    first = rows[0]
    assert (first.engine, first.gpus, first.prompt, first.generate, first.concurrency,
            first.requests, first.missing) == ("vllm", 8, 1023, 128, 50, 1000, ())
    assert out.splitlines()[0] == ("llama-3.1-70b on 8x h100-80gb-sxm · BF16 · vllm · 50 in "
                                   "flight")
