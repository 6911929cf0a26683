"""``models --on`` takes every scenario option, and each row is that model's estimate."""

from __future__ import annotations

import json

import pytest

from fitproof.cli import main


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--no-plugins", *argv])
    out, err = capsys.readouterr()
    return code, out, err


OPTIONS = ["--gpus", "2", "--engine", "vllm", "--kv", "fp8", "--batch", "4", "--context", "16K"]


def test_each_row_is_the_models_estimate_with_the_same_options(capsys):
    code, out, err = cli(capsys, "models", "--on", "rtx-4090", *OPTIONS, "--all", "--json")
    # the models trained for less than 16K are left out, as their estimates refuse them
    assert code == 0 and err == (
        "fitproof: warning: 4 models left out, which this scenario does not suit; the first: "
        "llama-2-13b: Llama 2 13B was trained for a context of up to 4,096 tokens "
        "(max_position_embeddings); 16,384 tokens needs RoPE scaling: add --rope-scale 4 to "
        "estimate it anyway\n")
    rows = json.loads(out)
    assert len(rows) > 20 and "llama-2-13b" not in {row["model"] for row in rows}
    code, _, err = cli(capsys, "estimate", "llama-2-13b", "--on", "rtx-4090", *OPTIONS)
    assert code == 2 and "trained for a context of up to 4,096 tokens" in err
    for row in rows[:: max(1, len(rows) // 8)]:
        code, out, err = cli(capsys, "estimate", row["model"], "--on", "rtx-4090", *OPTIONS,
                             "--json")
        assert code == 0, err
        estimate = json.loads(out)
        assert estimate["scenario"]["engine"] == "vllm" and estimate["scenario"]["gpus"] == 2
        assert row["total_gib"] == estimate["quantities"]["total_gib"]["value"]
        assert row["decode_tps"] == pytest.approx(estimate["quantities"]["decode_tps"]["value"])
        assert row["verdict"]["id"] == estimate["verdict"]["id"]


def test_the_options_change_the_rows(capsys):
    _, one, _ = cli(capsys, "models", "llama-3.1-8b", "--on", "rtx-4090", "--json")
    _, many, _ = cli(capsys, "models", "llama-3.1-8b", "--on", "rtx-4090", "--batch", "8",
                     "--json")
    assert json.loads(many)[0]["total_gib"] > json.loads(one)[0]["total_gib"]


def test_models_the_scenario_does_not_suit_are_left_out_with_a_warning(capsys):
    code, out, err = cli(capsys, "models", "--on", "h100", "--gpus", "3", "--engine", "vllm",
                         "--all", "--json")
    assert code == 0
    listed = {row["model"] for row in json.loads(out)}
    assert err.startswith("fitproof: warning: ") and " models left out, which this scenario " \
        "does not suit; the first: " in err and err.count("\n") == 1
    assert "does not divide the" in err
    assert "deepseek-r1" not in listed and listed


def test_context_max_is_refused_for_many_models(capsys):
    code, out, err = cli(capsys, "models", "--on", "h100", "--context", "max")
    assert (code, out) == (2, "")
    assert err == ("fitproof: error: --context max is one model's answer; for each model use "
                   "fitproof solve max-context MODEL --on HW\n")
