"""``fitproof solve``: every answer is checked by ``estimate`` — the answer holds, and the
step beyond it (the binding's ``beyond`` scenario) does not."""

from __future__ import annotations

import json
import math

import pytest
import yaml

from fitproof.cli import main

from .conftest import REPO


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["--no-plugins", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def solve(capsys, *argv: str) -> dict:
    code, out, err = cli(capsys, "solve", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def estimate(capsys, scenario: dict) -> dict:
    """``fitproof estimate --json`` at a scenario as solve prints it."""
    argv = [scenario["model"], "--on", scenario["hardware"], "--quant", scenario["quant"],
            "--kv", scenario["kv"], "--engine", scenario["engine"]]
    for name in ("context", "batch", "gpus", "prompt", "generate"):
        argv += [f"--{name}", str(scenario[name])]
    if scenario.get("split") is not None:
        argv += ["--split", "tensor" if scenario["split"] else "layer"]
    code, out, err = cli(capsys, "estimate", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def verdict(capsys, scenario: dict) -> str:
    return estimate(capsys, scenario)["verdict"]["id"]


def figure(value: object) -> float:
    """A pack figure, plain or with its own source."""
    return float(value["value"] if isinstance(value, dict) else value)  # type: ignore[index, arg-type]


def hardware_figure(hardware: str, field: str) -> float:
    pack = yaml.safe_load((REPO / "packs" / "hardware" / f"{hardware}.yaml").read_text())
    return figure(pack[field])


@pytest.mark.parametrize("argv, question_input", [
    (["max-context", "llama-3.1-70b", "--on", "rtx-4090", "--gpus", "2"], "context"),
    (["max-context", "qwen3-8b", "--on", "rtx-3060-12gb", "--kv", "q8_0", "--batch", "4"],
     "context"),
    # vLLM pages its KV cache: one full-length sequence must fit, whatever the batch
    (["max-context", "llama-3.1-8b", "--on", "rtx-4090", "--engine", "vllm", "--quant",
      "native", "--batch", "16"],
     "context"),
    (["max-batch", "qwen3-8b", "--on", "h100", "--quant", "Q8_0", "--context", "32K"], "batch"),
    (["max-batch", "llama-3.1-8b", "--on", "rtx-4090", "--context", "32K"], "batch"),
])
def test_largest_input_fits_and_one_more_does_not(capsys, argv, question_input):
    answer = solve(capsys, *argv)
    at = answer["scenario"]
    assert answer["value"] == at[question_input] and answer["value"] > 1
    assert verdict(capsys, at) != "exceeds"
    binding = answer["binding"]
    assert binding["constraint"] == "fits_in_memory"
    beyond = binding["beyond"]
    assert beyond[question_input] == answer["value"] + 1
    assert {k: v for k, v in beyond.items() if k != question_input} == \
        {k: v for k, v in at.items() if k != question_input}
    assert verdict(capsys, beyond) == "exceeds"
    assert binding["detail"].startswith(f"at {question_input} {answer['value'] + 1:,}: "
                                        "fits_in_memory = ")
    assert answer["derivation"]["name"] == "fits_in_memory"
    assert answer["derivation"]["value"] == 1


def test_max_context_capped_by_the_model_says_so(capsys):
    answer = solve(capsys, "max-context", "llama-3.1-8b", "--on", "rtx-4090")
    model = yaml.safe_load((REPO / "packs/models/llama-3.1-8b.yaml").read_text())
    assert answer["value"] == model["max_position_embeddings"] == 131072
    assert answer["binding"]["constraint"] == "model.max_position_embeddings"
    assert answer["binding"]["description"] == "the model's maximum context"
    assert answer["binding"]["source"].startswith("packs/models/llama-3.1-8b.yaml:")
    assert answer["binding"]["beyond"] is None
    assert verdict(capsys, answer["scenario"]) != "exceeds"


@pytest.mark.parametrize("argv", [
    ["min-gpus", "llama-3.1-70b", "--on", "rtx-4090"],
    ["min-gpus", "deepseek-r1", "--on", "h100"],
    ["min-gpus", "llama-3.1-70b", "--on", "rtx-3090", "--engine", "vllm", "--quant", "AWQ-INT4"],
])
def test_fewest_devices_fit_and_one_fewer_does_not(capsys, argv):
    answer = solve(capsys, *argv)
    at = answer["scenario"]
    assert answer["value"] == at["gpus"] > 1
    assert verdict(capsys, at) != "exceeds"
    beyond = answer["binding"]["beyond"]
    assert beyond["gpus"] < answer["value"]
    assert verdict(capsys, beyond) == "exceeds"
    # every count in between is refused as a split, or exceeds too
    for gpus in range(beyond["gpus"] + 1, answer["value"]):
        code, _, err = cli(capsys, "estimate", at["model"], "--on", at["hardware"],
                           "--engine", at["engine"], "--gpus", str(gpus), "--json")
        assert code == 2 and "does not divide the" in err


def test_tensor_split_answers_a_count_that_divides_the_heads(capsys):
    answer = solve(capsys, "min-gpus", "llama-3.1-70b", "--on", "rtx-3090", "--engine", "vllm",
                   "--quant", "AWQ-INT4")
    heads = yaml.safe_load((REPO / "packs/models/llama-3.1-70b.yaml").read_text())[
        "num_attention_heads"]
    assert heads % answer["value"] == 0


def test_best_quant_fits_with_headroom_and_the_next_larger_does_not(capsys):
    answer = solve(capsys, "best-quant", "llama-3.1-70b", "--on", "h100")
    assert answer["unit"] == "format"
    at = answer["scenario"]
    assert answer["value"] == at["quant"] == "Q8_0"
    assert verdict(capsys, at) == "fits"
    beyond = answer["binding"]["beyond"]
    assert verdict(capsys, beyond) in ("exceeds", "tight")
    assert estimate(capsys, beyond)["quantities"]["weights_gib"]["value"] > \
        estimate(capsys, at)["quantities"]["weights_gib"]["value"]


def test_best_quant_of_a_small_model_is_the_largest_format(capsys):
    answer = solve(capsys, "best-quant", "qwen3-0.6b", "--on", "h100")
    assert answer["binding"]["constraint"] == "weights_gib"
    assert answer["binding"]["beyond"] is None
    assert answer["value"] in ("BF16", "F16")


@pytest.mark.slow
def test_cheapest_purchase_reaches_the_speed_and_the_next_cheaper_does_not(capsys):
    answer = solve(capsys, "cheapest", "llama-3.1-70b", "--min-decode", "20")
    at = answer["scenario"]
    assert (answer["hardware"], answer["count"]) == (at["hardware"], at["gpus"])
    assert answer["unit"] == "USD"
    assert answer["value"] == answer["count"] * hardware_figure(at["hardware"], "price_usd")
    result = estimate(capsys, at)
    assert result["verdict"]["id"] != "exceeds"
    assert result["quantities"]["decode_tps"]["value"] >= 20
    beyond = answer["binding"]["beyond"]
    cheaper = estimate(capsys, beyond)
    assert beyond["gpus"] * hardware_figure(beyond["hardware"], "price_usd") < answer["value"]
    assert cheaper["verdict"]["id"] == "exceeds" or \
        cheaper["quantities"]["decode_tps"]["value"] < 20


@pytest.mark.slow
def test_cheapest_rental(capsys):
    answer = solve(capsys, "cheapest", "llama-3.1-70b", "--min-decode", "30", "--rent")
    assert answer["unit"] == "USD/hour" and answer["basis"] == "rent"
    providers = [yaml.safe_load(p.read_text()) for p in (REPO / "packs/providers").glob("*.yaml")]
    prices = {(o["hardware"], figure(o["gpus"]), figure(o["hourly_usd"]))
              for p in providers for o in p["offers"]}
    assert (answer["hardware"], answer["count"], answer["value"]) in prices
    assert estimate(capsys, answer["scenario"])["quantities"]["decode_tps"]["value"] >= 30
    beyond = estimate(capsys, answer["binding"]["beyond"])
    assert beyond["verdict"]["id"] == "exceeds" or beyond["quantities"]["decode_tps"]["value"] < 30


def test_a_target_no_hardware_meets(capsys):
    code, out, err = cli(capsys, "solve", "cheapest", "llama-3.1-70b", "--min-decode", "500")
    assert (code, out) == (2, "")
    assert err.startswith("fitproof: error: no accelerator in the library reaches 500 tok/s for "
                          "this model; fastest: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["solve", "max-context", "--context", "4096"],
     "max-context finds the context itself; do not set it"),
    (["solve", "cheapest", "--on", "rtx-4090", "--min-decode", "10"],
     "cheapest finds the hardware itself; do not set it"),
    (["solve", "best-quant", "--quant", "Q8_0"], "best-quant finds the quant itself; do not set it"),
    (["solve", "cheapest"], "cheapest needs the speed to reach: --min-decode TPS"),
    (["solve", "max-batch", "--min-decode", "10"],
     "max-batch has no speed target; --min-decode is for cheapest"),
    (["solve", "largest-model"], "unknown question 'largest-model'; fitproof solve answers "
                                 "best-quant, capacity, cheapest, max-batch, max-context, min-gpus"),
    (["solve", "max-context", "deepseek-r1", "--on", "rtx-3060-12gb"],
     "no context from 1 to 163,840 satisfies engine_supported, fits_in_memory for this scenario; at context 1: "
     "fits_in_memory = device_required_gib <= device_usable_gib is false ("),
])
def test_bad_questions_get_one_line_and_exit_2(capsys, argv, message):
    code, out, err = cli(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"fitproof: error: {message}") and err.count("\n") == 1


def test_context_max_on_estimate_is_the_solved_context(capsys):
    answer = solve(capsys, "max-context", "llama-3.1-70b", "--on", "rtx-4090", "--gpus", "2")
    code, out, err = cli(capsys, "estimate", "llama-3.1-70b", "--on", "rtx-4090", "--gpus", "2",
                         "--context", "max", "--json")
    assert code == 0
    assert json.loads(out)["scenario"]["context"] == answer["value"]
    assert err == (f"fitproof: --context max: {answer['value']:,} tokens, bound by "
                   f"fits_in_memory ({answer['binding']['source']})\n")


def test_context_max_on_report(capsys):
    code, out, err = cli(capsys, "report", "qwen3-8b", "--on", "rtx-3060-12gb", "--context", "max",
                         "--format", "json")
    assert code == 0 and "--context max: " in err
    assert json.loads(out)["scenario"]["context"] > 8192


def test_text_answer_names_the_binding_and_derives_it(capsys):
    code, out, _ = cli(capsys, "solve", "max-context", "llama-3.1-70b", "--on", "rtx-4090",
                       "--gpus", "2")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("max-context = ") and " tokens  " in lines[0]
    assert lines[0].endswith("packs/questions/solve.yaml:10")
    assert "  bound by: fits_in_memory — " in out
    assert any(line.startswith("fits_in_memory = true") for line in lines)


def test_a_question_pack_naming_a_missing_formula_is_refused_alike(capsys, tmp_path):
    (tmp_path / "more.yaml").write_text(
        "kind: questions\nid: more\nquestions:\n  max-prompt:\n"
        "    description: The longest prompt\n    input: prompt\n    highest: 100000\n"
        "    holds: [fits_in_memry]\n    explain: fits_in_memory\n")
    expected = f"{tmp_path / 'more.yaml'}:8: questions.max-prompt.holds: no formula is called " \
               "'fits_in_memry'"
    code, out, _ = cli(capsys, "packs", "validate", str(tmp_path))
    assert code == 1 and expected in out.splitlines()
    code, _, err = cli(capsys, "estimate", "--pack-dir", str(tmp_path))
    assert code == 1 and expected in err


def test_a_question_pack_adds_a_question(capsys, tmp_path):
    (tmp_path / "more.yaml").write_text(
        "kind: questions\nid: more\nquestions:\n  max-generate:\n"
        "    description: The most tokens generated per request that still fit\n"
        "    input: generate\n    highest: 1000000\n    holds: [fits_in_memory]\n"
        "    explain: fits_in_memory\n")
    answer = solve(capsys, "max-generate", "llama-3.1-8b", "--on", "rtx-4090",
                   "--pack-dir", str(tmp_path))
    assert answer["unit"] == "tokens" and answer["value"] >= 1
    assert answer["source"] == f"{tmp_path / 'more.yaml'}:4"


def test_search_is_cheap(capsys):
    answer = solve(capsys, "max-context", "llama-3.1-70b", "--on", "rtx-4090", "--gpus", "2")
    # k-ary bisection: rounds of at most 32 scenarios over 131,072 values
    assert answer["evaluated"] <= 2 + 32 * math.ceil(math.log(131072, 33))


@pytest.mark.slow
def test_hardware_without_a_datasheet_is_said_to_be_unverified(capsys):
    """A pack marked ``unverified: true`` (the seed's Mac Studio M4 Ultra, a product Apple
    never shipped) is flagged by estimate (both the full and the snapshot path) and report."""
    pack = yaml.safe_load((REPO / "packs/hardware/mac-studio-m4-ultra-256gb.yaml").read_text())
    assert pack["unverified"] is True
    for _ in range(2):  # the first run stores the snapshot, the second answers from it
        code, out, _ = cli(capsys, "estimate", "--on", "mac-studio-m4-ultra-256gb")
        assert code == 0 and ("  Apple Mac Studio M4 Ultra 256GB has no public datasheet: its "
                              "figures are unverified\n") in out
        code, out, _ = cli(capsys, "estimate", "--on", "mac-studio-m4-ultra-256gb", "--json")
        assert json.loads(out)["hardware_unverified"] is True
    code, out, _ = cli(capsys, "estimate", "--on", "rtx-4090", "--json")
    assert "hardware_unverified" not in json.loads(out)
    code, out, _ = cli(capsys, "report", "--on", "mac-studio-m4-ultra-256gb", "--lang", "es")
    assert code == 0 and "Mac Studio M4 Ultra 256GB no tiene una hoja de datos pública" in out
    code, out, _ = cli(capsys, "report", "--on", "rtx-4090")
    assert "no public datasheet" not in out


@pytest.mark.parametrize("question, choices, given, options", [
    ("max-context", {"model": "llama-3.1-70b", "hardware": "rtx-4090", "inputs": {"gpus": 2}},
     ["gpus"], {}),
    ("cheapest", {"model": "llama-3.1-70b"}, [], {"min_speed": 20}),
    ("cheapest", {"model": "llama-3.1-70b"}, [], {"min_speed": 30, "rent": True}),
])
def test_text_is_the_answer_its_binding_and_its_derivation_line_by_line(registry, question,
                                                                        choices, given,
                                                                        options):
    from fitproof import api
    from fitproof.renderers import explain

    view = api.solve(registry, question, api.scenario(registry, **choices), given=given,
                     **options)
    lines = api.render("solve", view, registry=registry).splitlines()
    if view.unit == "tokens":
        answer = f"{view.value:,} tokens"
    elif view.unit == "USD":
        answer = f"${view.value:,.0f}"
    else:
        answer = f"${view.value:g}/hour"
    assert lines[0].startswith(f"{question} = {answer}  ") and lines[0].endswith(view.at)
    s, b = view.scenario, view.binding
    gpus = int(s.inputs.get("gpus", 1))
    expected = [f"  {view.description}"]
    if view.label is not None:
        expected.append(f"  {'rent' if options.get('rent') else 'buy'} {view.label}: "
                         f"{view.target}")
    expected += [f"  for {s.model} on {f'{gpus}x ' if gpus > 1 else ''}{s.hardware} "
                 f"({s.engine}, {s.quant}, KV {s.kv}, context {int(s.inputs['context']):,}, "
                 f"batch {int(s.inputs['batch'])})",
                 f"  bound by: {b.constraint} — {b.description}  ({b.at})", f"    {b.detail}",
                 f"  searched {view.evaluated:,} scenarios", ""]
    assert lines[1:1 + len(expected)] == expected
    tree = lines[1 + len(expected):]
    assert tree == explain.render_text(view.derivation, 1).splitlines()
    assert [line.split(" = ")[0].strip() for line in tree if " = " in line and not
            line.lstrip().startswith("=")] == [d.name for depth, d in view.derivation.walk()
                                               if depth <= 1]
    deeper = api.render("solve", view, registry=registry, depth=0).splitlines()
    assert deeper[len(expected) + 1:] == explain.render_text(view.derivation, 0).splitlines()


@pytest.mark.parametrize("rent, what", [(False, "purchase price"), (True, "rental offer")])
def test_cheapest_with_nothing_priced_says_what_is_missing(capsys, monkeypatch, rent, what):
    """No accelerator with a price (or an offer) to rank: one line naming which."""
    import fitproof.engine.solve as solve_module

    monkeypatch.setattr(solve_module, "_offers", lambda *args: [])
    argv = ["solve", "cheapest", "llama-3.1-8b", "--min-decode", "10", *(["--rent"] if rent else [])]
    code, out, err = cli(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == f"fitproof: error: no accelerator in the library has a {what}\n"


def test_cheapest_prices_a_unified_memory_machine_once_and_only_alone(registry):
    """A device the question marks as single (unified memory: a Mac, a DGX Spark) is priced
    as one device, never as a set; a discrete card at every count the question tries."""
    import fitproof
    import fitproof.engine.solve as solve_module

    question = registry.questions["cheapest"]
    base = fitproof.api.scenario(registry, model="llama-3.1-8b")
    offers = solve_module._offers(registry, question, base, False)
    counts: dict[str, set[int]] = {}
    for scenario, _, _, devices in offers:
        counts.setdefault(scenario.hardware, set()).add(devices)
    unified = [h for h in counts if registry.hardware[h].unified_memory]
    discrete = [h for h in counts if not registry.hardware[h].unified_memory]
    assert unified and discrete
    assert all(counts[h] == {1} for h in unified)
    assert any(len(counts[h]) > 1 for h in discrete)
