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


SERVING_FLAGS = ("--model", "llama-3.1-70b", "--on", "h100-80gb-sxm", "--quant", "BF16",
                 "--gpus", "8")


@pytest.mark.parametrize("change, message", [
    ({"completed": True}, "completed true is not a number"),
    ({"max_concurrency": True}, "max_concurrency true is not a number"),
    ({"max_concurrency": float("inf")}, "max_concurrency Infinity is not a number of requests"),
    ({"max_concurrency": 12.5}, "max_concurrency 12.5 is not a number of requests"),
    ({"num_prompts": -5}, "num_prompts -5 is not a number of requests"),
    ({"num_prompts": 10**400}, "num_prompts " + "1" + "0" * 400 + " is not a number of requests"),
    ({"total_input_tokens": 1e300}, "total_input_tokens 1e+300 is not a number of tokens"),
    ({"total_output_tokens": "many"}, "total_output_tokens 'many' is not a number"),
    ({"mean_ttft_ms": float("nan")}, "mean_ttft_ms NaN is not a finite number of 0 or more"),
    ({"output_throughput": -1.0}, "output_throughput -1.0 is not a finite number of 0 or more"),
    ({"request_rate": True}, "request_rate true is not a number"),
    ({"request_rate": -2}, "request_rate -2 is not a finite number of 0 or more"),
    ({"request_rate": "fast"}, "request_rate 'fast' is not a number"),
])
def test_serving_counts_and_figures_refuse_booleans_and_non_finite_values(
        capsys, user_packs, tmp_path, change, message):
    """JSON's true is no count of 1 and its Infinity no concurrency (int() of it raised
    OverflowError): each is one line naming the file and the field, and nothing is written."""
    run = json.loads((BENCH / "vllm-bench-serve-h100x8.json").read_text())
    path = tmp_path / "run.json"
    path.write_text(json.dumps({**run, **change}))
    code, out, err = _ingest(capsys, str(path), *SERVING_FLAGS)
    assert (code, out) == (2, "")
    assert err == f"fitproof: error: {path}: {message}\n"
    assert not user_packs.exists()


def test_a_serving_run_at_a_stated_request_rate_keeps_it(capsys, user_packs, tmp_path):
    run = json.loads((BENCH / "vllm-bench-serve-h100x8.json").read_text())
    path = tmp_path / "rate.json"
    path.write_text(json.dumps({**run, "request_rate": 12.5, "max_concurrency": None}))
    code, _, err = _ingest(capsys, str(path), *SERVING_FLAGS)
    assert code == 0, err
    rows = fitproof.load_registry(plugins=False).measurements["bench-rate"].rows
    assert [(r.request_rate, r.concurrency, r.requests) for r in rows] == [(12.5, None, 1000)] * 3


@pytest.mark.parametrize("change, message", [
    ({"n_prompt": True}, "n_prompt true is not a number"),
    ({"n_gen": float("inf")}, "n_gen Infinity is not a whole number"),
    ({"n_gen": 1.5}, "n_gen 1.5 is not a whole number"),
    ({"n_depth": -1}, "n_depth -1 is not from 0 to 1,000,000,000,000"),
    ({"n_gpu_layers": -2}, "n_gpu_layers -2 is not from -1 to 1,000,000,000,000"),
    ({"n_ubatch": 0}, "n_ubatch 0 is not from 1 to 1,000,000,000,000"),
    ({"build_number": False}, "build_number false is not a number"),
    ({"avg_ts": True}, "avg_ts true is not a number"),
    ({"avg_ts": float("inf")}, "avg_ts Infinity is not a speed (a finite number of tokens per "
                               "second above 0)"),
    ({"avg_ts": 0}, "avg_ts 0 is not a speed (a finite number of tokens per second above 0)"),
])
def test_llama_bench_counts_refuse_booleans_and_out_of_range_values(
        capsys, user_packs, tmp_path, change, message):
    results = json.loads((BENCH / "llama-bench-4080.json").read_text())
    path = tmp_path / "bench.json"
    path.write_text(json.dumps([{**results[0], **change}, *results[1:]]))
    code, out, err = _ingest(capsys, str(path))
    assert (code, out) == (2, "")
    assert err == f"fitproof: error: {path}: result 1: {message}\n"
    assert not user_packs.exists()


def test_a_markdown_test_size_beyond_any_count_is_one_line(capsys, user_packs, tmp_path):
    """ppN's digits are read as a count (int() of 5,000 digits raised a ValueError)."""
    path = tmp_path / "bench.md"
    digits = "9" * 5000
    path.write_text(f"| model | test | t/s |\n|---|---|---|\n| x | pp{digits} | 1 |\n")
    code, out, err = _ingest(capsys, str(path), *SCENARIO_FLAGS)
    assert (code, out) == (2, "")
    assert err == (f"fitproof: error: {path}:3: n_prompt '{digits}' is not from 0 to "
                   "1,000,000,000,000\n")


SCENARIO_FLAGS = ("--model", "qwen3-8b", "--on", "rtx-4090", "--quant", "Q4_K_M")


def test_a_file_name_with_control_characters_gives_a_pack_that_loads(capsys, user_packs,
                                                                     tmp_path):
    """The pack's sources are percent-encoded file:// URIs (ESC as %1B, é as %C3%A9, a
    byte that is not UTF-8 as %FF); the rows' notes write ESC as \x1b: the pack fitproof
    writes is one its checks accept."""
    import os

    name = os.fsdecode(b"x\x1b[31mred \xc3\xa9\xff.json")
    path = tmp_path / name
    path.write_bytes((BENCH / "llama-bench-4080.json").read_bytes())
    code, _, err = _ingest(capsys, str(path))
    assert code == 0, err
    pack = user_packs / "measurements" / "bench-x-31mred.yaml"
    assert err == f"wrote {pack}\n"
    uri = f"{tmp_path.resolve().as_uri()}/x%1B%5B31mred%20%C3%A9%FF.json"
    loaded = fitproof.load_registry(plugins=False).measurements["bench-x-31mred"]
    assert loaded.source == (uri,)
    assert {r.source for r in loaded.rows} == {uri}
    assert loaded.rows[0].note == \
        f"fitproof bench ingest of {tmp_path}/x\\x1b[31mred é\\xff.json: result 1"
    assert "\x1b" not in pack.read_text()


def test_file_uri_is_the_one_definition_of_a_source():
    import os

    from fitproof.importers.config_file import file_uri, pack_text

    assert file_uri(BENCH / "llama-bench-4080.json") == \
        (BENCH / "llama-bench-4080.json").resolve().as_uri()
    assert file_uri(Path(os.fsdecode(b"/tmp/a b\n\x7f\xff"))) == "file:///tmp/a%20b%0A%7F%FF"
    assert pack_text(os.fsdecode(b"a\tb\n\x1b\x9b\xff")) == "a\\tb\\n\\x1b\\x9b\\xff"


@pytest.mark.parametrize(("name", "flags", "serving"), [
    ("llama-bench-4080.json", (), False),
    ("llama-bench-depth.md", ("--model", "qwen2.5-7b-instruct", "--on", "rtx-4090", "--quant",
                              "Q4_K_M"), False),
    ("llama-server-7900xtx.log", ("--model", "qwen3-30b-a3b", "--quant", "Q4_K_M", "--on",
                                  "rx-7900-xtx"), False),
    ("vllm-bench-serve-h100x8.json", ("--model", "llama-3.1-70b", "--on", "h100-80gb-sxm",
                                      "--quant", "BF16", "--gpus", "8"), True),
    ("vllm-bench-serve-h100x8.txt", ("--model", "llama-3.1-70b", "--on", "h100-80gb-sxm",
                                     "--quant", "BF16", "--gpus", "8"), True),
    ("sglang-bench-serving-h100x8.jsonl", ("--on", "h100-80gb-sxm", "--quant", "BF16"), True),
])
def test_every_format_gives_rows_calibrate_fits_on(capsys, user_packs, name, flags, serving):
    """What bench ingest writes is what fitproof calibrate reads: the user's rows of each
    format are among the rows its fit takes (the single-stream or the serving fit). CSV
    gives the rows JSON gives (test_csv_and_jsonl_give_the_rows_json_gives; the README's
    CSV example itself is cut short, see test_outputs_it_cannot_read_are_one_line)."""
    pytest.importorskip("scipy")
    from fitproof.calibration.rows import load
    from fitproof.calibration.serving_rows import load_serving

    code, _, err = _ingest(capsys, str(BENCH / name), *flags)
    assert code == 0, err
    registry = fitproof.load_registry(plugins=False)
    if serving:
        data = {engine: rows for engine, rows in load_serving(registry).items()}
    else:
        data = {f"{engine} {metric}": rows for (engine, metric), rows in load(registry).items()}
    source = (BENCH / name).resolve().as_uri()
    yours = {key: int(rows.user.sum()) for key, rows in data.items() if rows.user.any()}
    assert yours, f"no row of {name} is among the rows calibrate fits on"
    assert all(s == source for rows in data.values()
               for s, user in zip(rows.source, rows.user) if user)


def test_the_help_names_every_format_it_reads(capsys):
    # each reader of core/importers (bench.py, server_log.py, serving_bench.py) is named
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("llama-bench outputs (json, jsonl, csv, markdown)", "llama-server logs",
                  "vllm bench serve logs and result files", "SGLang bench_serving JSONL"):
        assert words in text, words
