"""Measurements first: a shipped measurement of the scenario's model, format, device, engine
and load appears beside the prediction on the card, in the JSON and on the site's page,
with the prediction for that same run, and the same figure ``fitproof validate`` scores."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

import fitproof
from fitproof import api
from fitproof.engine.accuracy import measured_runs, score
from fitproof.cli import main
from fitproof.files.validation import load_schema


@pytest.fixture(scope="module")
def measured_registry():
    return fitproof.load_registry(plugins=False)


def _estimate(capsys, *argv):
    assert main(["--no-plugins", "estimate", *argv]) == 0
    return capsys.readouterr().out


def test_the_json_lists_the_runs_with_their_predictions(capsys, measured_registry):
    data = json.loads(_estimate(capsys, "llama-3.1-8b", "--on", "rtx-4090", "--quant",
                                "Q4_K_M", "--json"))
    Draft202012Validator(load_schema("estimate-output")).validate(data)
    runs = data["measurements"]
    # XiongjieDai's eight llama-bench figures of Llama 3 8B Q4_K_M on one RTX 4090
    assert len(runs) == 8
    assert {run["metric"] for run in runs} == {"decode_tps", "prefill_tps"}
    decode = next(r for r in runs
                  if r["location"] == "packs/measurements/xiongjiedai-llama-bench.yaml:75")
    assert (decode["value"], decode["prompt"], decode["generate"], decode["date"]) == \
        (130.58, 0, 512, "2024-05")
    # the prediction beside it is the one fitproof validate scores the row with
    scored = {str(s.location): s for s in score(measured_registry).rows}
    assert decode["predicted"] == pytest.approx(
        scored[decode["location"]].predicted, rel=1e-12)
    # each metric's run nearest the scenario's 4,096-token prompt comes first
    assert [(r["metric"], r["prompt"]) for r in runs[:2]] == [("decode_tps", 0),
                                                             ("prefill_tps", 4096)]


def test_the_card_shows_them_after_the_predictions(capsys):
    out = _estimate(capsys, "llama-3.1-8b", "--on", "rtx-4090", "--quant", "Q4_K_M")
    lines = out.splitlines()
    start = lines.index("  Measured (8 public runs of this setup; the figures above are "
                        "predictions)")
    assert lines[start + 1].startswith("    Decode                    130.6 tok/s measured "
                                       "(tg512 at depth 0); predicted 12")
    assert lines[start + 2] == ("      2024-05; packs/measurements/"
                                "xiongjiedai-llama-bench.yaml:75")
    assert lines[start + 9] == "    4 more in --json"
    assert lines.index("  Speed") < start


def test_a_scenario_nobody_measured_shows_none(capsys):
    out = _estimate(capsys, "llama-3.1-8b", "--on", "rtx-4090", "--quant", "Q4_K_M",
                    "--batch", "3")
    assert "Measured" not in out
    data = json.loads(_estimate(capsys, "llama-3.1-8b", "--on", "rtx-4090", "--quant",
                                "Q4_K_M", "--batch", "3", "--json"))
    assert "measurements" not in data


def test_runs_outside_the_model_say_so(measured_registry):
    """A serving run that leaves something out is shown with why it is scored apart."""
    scenario = api.scenario(measured_registry, model="nvidia-nemotron-3-nano-30b-a3b-bf16",
                            hardware="b200-180gb", quant="FP8", engine="vllm",
                            inputs={"gpus": 2, "batch": 1, "prompt": 2048, "generate": 512})
    runs = measured_runs(measured_registry, scenario)
    assert runs and all(run.apart for run in runs)
    assert any("whether every request generated its set length" in run.apart for run in runs)


def test_the_site_page_has_the_table(tmp_path, measured_registry):
    api.site(measured_registry, tmp_path, models=["llama-3.1-8b"],
             hardware=["rtx-4090", "rtx-3060-12gb"], languages=["en", "de"])
    page = (tmp_path / "de" / "llama-3.1-8b" / "rtx-4090.html").read_text()
    table = page[page.index('id="measured"'):page.index("</section>", page.index('id="measured"'))]
    assert "<h2>Gemessen</h2>" in table
    # Babel's German numbers; the run's pack line in the link's title
    assert ('<td>Q4_K_M · llama.cpp</td><td>tg512 @ 0</td><th scope="row">Decode</th>'
            '<td class="num">130,6 tok/s</td>') in table
    assert 'title="packs/measurements/xiongjiedai-llama-bench.yaml:75"' in table
    quiet = (tmp_path / "en" / "llama-3.1-8b" / "rtx-3060-12gb.html").read_text()
    assert ('id="measured"' in quiet) == any(
        row.model == "llama-3.1-8b" and row.hardware == "rtx-3060-12gb"
        for pack in measured_registry.measurements.values() for row in pack.rows)
    # the page's script data does not carry the table
    assert '"measured"' not in (tmp_path / "assets" / "data.js").read_text()


def test_the_measurements_command_lists_rows_beside_predictions(capsys, measured_registry):
    assert main(["--no-plugins", "measurements", "llama-3.1-8b", "--on", "RTX 4090",
                 "--quant", "Q4_K_M", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    single = [r for r in rows if r["gpus"] == 1]
    assert len(single) == 8 and {r["hardware"] for r in rows} == {"rtx-4090"}
    decode = next(r for r in single if r["location"].endswith("xiongjiedai-llama-bench.yaml:75"))
    assert (decode["value"], decode["unit"], decode["quant"], decode["engine"]) == \
        (130.58, "tok/s", "Q4_K_M", "llama.cpp")
    scored = {str(s.location): s.predicted for s in score(measured_registry).rows}
    assert decode["predicted"] == pytest.approx(scored[decode["location"]], rel=1e-12)
    assert main(["--no-plugins", "measurements", "llama-3.1-8b", "--on", "rtx-4090",
                 "--quant", "Q4_K_M"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "llama-3.1-8b on rtx-4090 · Q4_K_M · llama.cpp"
    row = next(line for line in text if line.endswith("xiongjiedai-llama-bench.yaml:75"))
    assert row.split()[:4] == ["decode_tps", "tg512", "@", "0"]
    assert row.split()[4] == "130.6"


def test_the_measurements_command_names_what_it_lacks(capsys):
    assert main(["--no-plugins", "measurements", "tinyllama-1.1b", "--on", "h100-80gb-sxm"]) == 0
    assert capsys.readouterr().out == ("no measurement rows of model tinyllama-1.1b, hardware "
                                       "h100-80gb-sxm\n")
    assert main(["--no-plugins", "measurements", "no-such-model"]) == 2
    assert "unknown model 'no-such-model'" in capsys.readouterr().err
