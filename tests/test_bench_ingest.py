"""``fitproof bench ingest``: llama-bench's outputs (llama.cpp's README examples),
llama-server's log, vllm bench serve's and SGLang bench_serving's results (published runs,
in tests/data/bench/, whose README cites each) become measurement rows in the user's pack
folder, which later estimates show beside their predictions."""

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
              "or markdown table; llama-server's log; vllm bench serve's or SGLang "
              "bench_serving's log or result file)"),
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


def _validates(capsys, folder):
    code = main(["packs", "validate", "--no-plugins", str(folder)])
    out, _ = capsys.readouterr()
    assert code == 0, out
    assert out.splitlines()[-1] == "1 pack file checked: all valid"


SGLANG = BENCH / "sglang-bench-serving-h100x8.jsonl"


def test_an_sglang_bench_serving_jsonl_becomes_serving_rows(capsys, user_packs):
    """llm-benchmaq's two runs of Qwen3-8B on SGLang 0.5.9, 8 x H100 (TP 8), 100 requests of
    random lengths up to 1,024 and 2,048 tokens in, 128 out, all sent at once, 100 in
    flight: one JSON object a run, the model path, TP size and version in server_info."""
    path = str(SGLANG)
    code, out, err = _ingest(capsys, path, "--on", "h100-80gb-sxm", "--quant", "BF16")
    assert code == 0, err
    rows = fitproof.load_registry(plugins=False).measurements[
        "bench-sglang-bench-serving-h100x8"].rows
    assert [(r.metric, r.value, r.prompt, r.generate, r.context) for r in rows] == [
        ("output_tps", 3929.720447468979, 506, 61, 567),
        ("tpot_ms", 23.76095063700313, 506, 61, 567),
        ("ttft_ms", 578.4130509826355, 506, 61, 567),
        ("output_tps", 5204.10128650817, 1089, 61, 1150),
        ("tpot_ms", 12.159354281857361, 1089, 61, 1150),
        ("ttft_ms", 421.74833664670587, 1089, 61, 1150)]
    first = rows[0]
    assert (first.model, first.engine, first.gpus, first.concurrency, first.requests,
            first.request_rate, first.engine_version, first.missing, first.tuned) == (
        "qwen3-8b", "sglang", 8, 100, 100, float("inf"), "0.5.9", (), False)
    assert first.source == SGLANG.resolve().as_uri()
    assert first.quote == '{"output_throughput": 3929.720447468979}'
    assert rows[3].note.startswith(f"fitproof bench ingest of {path}:2; lengths are the means "
                                   "of 108929 and 6108 tokens over 100 requests; server_info: "
                                   "tp_size 8, dtype bfloat16; asked for 2048 in and 128 out")
    assert out.splitlines()[0] == ("qwen3-8b on 8x h100-80gb-sxm · BF16 · sglang · 100 in "
                                   "flight")
    _validates(capsys, user_packs / "measurements")


@pytest.mark.parametrize("change, message", [
    ({"dp_size": 2}, "{where}: the server ran dp_size 2: fitproof models one replica on "
                     "tensor-parallel devices"),
    ({"kv_cache_dtype": "fp8_e5m2"}, "{where}: the server ran a fp8_e5m2 KV cache; fitproof "
                                     "bench ingest reads runs at the default (auto)"),
    ({"tp_size": "8"}, "{where}: server_info has '8' where a count belongs"),
])
def test_sglang_runs_fitproof_cannot_scenario_are_refused(capsys, user_packs, tmp_path, change,
                                                          message):
    run = json.loads(SGLANG.read_text().splitlines()[0], parse_constant=float)
    run["server_info"].update(change)
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(run) + "\n")
    code, out, err = _ingest(capsys, str(path), "--on", "h100-80gb-sxm", "--quant", "BF16")
    assert (code, out, err) == (2, "", f"fitproof: error: {message.format(where=path)}\n")
    assert not user_packs.exists()


def test_gpus_must_agree_with_sglangs_tensor_parallel_size(capsys, user_packs):
    code, _, err = _ingest(capsys, str(SGLANG), "--on", "h100-80gb-sxm", "--quant", "BF16",
                           "--gpus", "4")
    assert (code, err) == (2, f"fitproof: error: {SGLANG}:1: --gpus 4, but the server ran "
                              "tensor-parallel size 8\n")


SERVER_LOG = BENCH / "llama-server-7900xtx.log"


def test_a_llama_server_log_becomes_a_prefill_and_a_decode_row(capsys, user_packs):
    """Qwen3-VL-30B-A3B-Instruct Q4_K_M on an RX 7900 XTX (Vulkan, build 6894), one chat
    request: 623 prompt tokens evaluated, 95 generated, 717 left in the cache (none found
    cached). Like the markdown table it needs what it does not name."""
    log = str(SERVER_LOG)
    code, out, err = _ingest(capsys, log)
    assert (code, out, err) == (2, "", f"fitproof: error: {log}:8: which model pack was run? "
                                       "pass --model\n")
    code, _, err = _ingest(capsys, log, "--model", "qwen3-30b-a3b")
    assert (code, err) == (2, f"fitproof: error: {log}:8: which weight format was run (not "
                              "stated)? pass --quant\n")
    code, _, err = _ingest(capsys, log, "--model", "qwen3-30b-a3b", "--quant", "Q4_K_M")
    assert (code, err) == (2, f"fitproof: error: {log}:8: which device ran it? pass --on\n")
    code, out, err = _ingest(capsys, log, "--model", "qwen3-30b-a3b", "--quant", "Q4_K_M",
                             "--on", "rx-7900-xtx")
    assert code == 0, err
    rows = fitproof.load_registry(plugins=False).measurements["bench-llama-server-7900xtx"].rows
    assert [(r.metric, r.value, r.context, r.prompt, r.generate, r.backend, r.engine,
             r.engine_version) for r in rows] == [
        ("prefill_tps", 1471.75, 623, None, None, "vulkan", "llama.cpp", "b6894"),
        ("decode_tps", 116.36, 718, 623, 95, "vulkan", "llama.cpp", "b6894")]
    assert {r.source for r in rows} == {SERVER_LOG.resolve().as_uri()}
    assert rows[1].quote == ("eval time =     816.42 ms /    95 tokens (    8.59 ms per "
                             "token,   116.36 tokens per second)")
    assert rows[1].note == f"fitproof bench ingest of {log}:9"
    assert out.splitlines()[0] == "qwen3-30b-a3b on rx-7900-xtx · Q4_K_M · llama.cpp · vulkan"
    _validates(capsys, user_packs / "measurements")


def _per_line(text):
    """The log as builds from late 2025 print it: the slot prefix on every timing line."""
    prefix = "slot print_timing: id  0 | task 400 | "
    lines = [line for line in text.splitlines() if line != prefix]
    return "\n".join(prefix + line if "time =" in line else line for line in lines) + "\n"


def test_each_layout_of_the_timing_lines_and_the_requests_left_out(capsys, user_packs, tmp_path):
    text = SERVER_LOG.read_text()
    flags = ["--model", "qwen3-30b-a3b", "--quant", "Q4_K_M", "--on", "rx-7900-xtx"]
    cases = {
        "per-line": (_per_line(text), None),
        # 300 of the 623 prompt tokens found cached: the prefill is at a depth
        "cached": (text.replace("n_tokens = 717", "n_tokens = 1017"),
                   "left out 1: a prefill at a depth (ppN @ dD): fitproof's prefill starts "
                   "from an empty cache"),
        "speculative": (text.replace("      total time", "slot print_timing: id  0 | task 400 | "
                                     "draft acceptance = 0.5\n      total time"),
                        "left out 1: a request decoded with a draft model or MTP (draft "
                        "acceptance)"),
    }
    for name, (content, left_out) in cases.items():
        path = tmp_path / f"{name}.log"
        path.write_text(content)
        code, _, err = _ingest(capsys, str(path), *flags)
        assert code == 0, err
        assert err.splitlines()[1:] == ([left_out] if left_out else []), name
    rows = fitproof.load_registry(plugins=False).measurements
    assert [(r.metric, r.value, r.prompt) for r in rows["bench-per-line"].rows] == [
        ("prefill_tps", 1471.75, None), ("decode_tps", 116.36, 623)]
    assert [(r.metric, r.prompt) for r in rows["bench-cached"].rows] == [("decode_tps", 923)]
    assert [r.metric for r in rows["bench-speculative"].rows] == ["prefill_tps"]
    # with no 'stop processing' line the cached tokens are unknown: nothing is a scenario
    path = tmp_path / "no-release.log"
    path.write_text(text.replace("stop processing", "stopped"))
    code, _, err = _ingest(capsys, str(path), *flags)
    assert (code, err) == (2, f"fitproof: error: no result of {path} is a scenario fitproof "
                              "models (2 a request with no 'stop processing' line: the tokens "
                              "it found cached are not known)\n")


@pytest.mark.parametrize("cut, message", [
    # cut after the prompt eval line
    (lambda t: t[:t.index("       eval time")], "{path}:8: a prompt eval time line with no "
                                                "eval time line after it (is the log cut "
                                                "short?)"),
    (lambda t: t.replace("816.42 ms /    95 tokens", "816.42 ms /    95 tok"),
     "{path}:9: not llama-server's 'eval time = T ms / N tokens (... ms per token, R tokens per "
     "second)'"),
    (lambda t: t.replace("prompt eval time =     423.31", "eval time =     423.31"),
     "{path}:8: an eval time line with no prompt eval time line before it"),
])
def test_a_cut_or_garbled_server_log_is_one_line(capsys, user_packs, tmp_path, cut, message):
    text = SERVER_LOG.read_text()
    path = tmp_path / "server.log"
    path.write_text(cut(text))
    code, out, err = _ingest(capsys, str(path), "--model", "qwen3-30b-a3b", "--quant", "Q4_K_M",
                             "--on", "rx-7900-xtx")
    assert (code, out, err) == (2, "", f"fitproof: error: {message.format(path=path)}\n")
    assert not user_packs.exists()


def test_a_cut_sglang_jsonl_is_one_line(capsys, user_packs, tmp_path):
    text = SGLANG.read_text()
    path = tmp_path / "cut.jsonl"
    path.write_text(text[:len(text) - 200])
    code, out, err = _ingest(capsys, str(path), "--on", "h100-80gb-sxm", "--quant", "BF16")
    assert (code, out) == (2, "")
    assert err.startswith(f"fitproof: error: {path}:2: not JSON: ") and err.count("\n") == 1
    assert not user_packs.exists()
