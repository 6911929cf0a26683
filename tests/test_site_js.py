"""The site's configurator computes what the command line computes: the formulas compiled
to JavaScript (core/formula/javascript.py) and evaluated by site/assets/fitproof-runtime.js under
Node give every shown quantity, the verdict and every pick of the Python evaluation, on a
grid of scenarios across models, accelerators, formats, contexts, batches, device counts,
engines, KV precisions and offload."""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
from importlib.resources import files
from pathlib import Path

import pytest

import fitproof
from fitproof.formula.javascript import UnknownNode, js_expression, runtime_script
from fitproof.site.data import data_script, formulas_script, site_data
from fitproof.fast.estimate import SnapshotModel

from .conftest import require_tool

pytestmark = pytest.mark.node

HERE = Path(__file__).resolve().parent
NODE_HINT = "apt-get install nodejs, or from https://nodejs.org"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    registry = fitproof.load_registry(plugins=False)
    data = site_data(registry)
    folder = tmp_path_factory.mktemp("site-js")
    (folder / "data.js").write_text(data_script(data), encoding="utf-8")
    (folder / "formulas.js").write_text(formulas_script(data), encoding="utf-8")
    runtime = files("fitproof").joinpath("site/assets", "fitproof-runtime.js")
    (folder / "runtime.js").write_text(runtime_script(runtime.read_text(encoding="utf-8")),
                                        encoding="utf-8")
    return registry, data, folder


def run_node(folder: Path, scenarios: list[dict]) -> list[dict]:
    node = require_tool("node", "nodejs", install=NODE_HINT)
    done = subprocess.run([node, str(HERE / "js" / "evaluate.js"), str(folder / "data.js"),
                           str(folder / "formulas.js"), str(folder / "runtime.js")],
                          input=json.dumps(scenarios), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def grid(registry, data) -> list:
    model = SnapshotModel(data)
    models = sorted(registry.models)
    hardware = ["rtx-4090", "rtx-3090", "a100-80gb-sxm", "h100-80gb-sxm", "mi300x",
                "apple-m2-ultra-76c-192gb", "dgx-spark", "rtx-4060-ti-16gb"]
    variants = [
        {"quant": "Q4_K_M", "inputs": {}},
        {"quant": "Q8_0", "inputs": {"context": 32768, "batch": 4}},
        {"quant": "F16", "inputs": {"context": 2048, "gpus": 2}},
        {"quant": "Q4_K_M", "kv": "q8_0", "inputs": {"context": 131072, "offload": 30}},
        {"quant": "FP8", "engine": "vllm", "kv": "fp8", "inputs": {"gpus": 4, "batch": 16}},
    ]
    scenarios = []
    for index, (m, v) in enumerate(itertools.product(models, variants)):
        h = hardware[index % len(hardware)]
        choices = {"model": m, "hardware": h, "quant": v["quant"], "kv": v.get("kv"),
                   "engine": v.get("engine")}
        scenario = model.resolve(choices, v["inputs"])
        if scenario is not None:
            scenarios.append(scenario)
    return scenarios


def as_js(scenario) -> dict:
    return {"model": scenario.model, "hardware": scenario.hardware, "quant": scenario.quant,
            "kv": scenario.kv, "engine": scenario.engine, "workload": scenario.workload,
            "host": scenario.host,
            "inputs": {k: (None if isinstance(v, float) and math.isnan(v) else v)
                       for k, v in scenario.inputs.items()}}


def close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def test_every_quantity_verdict_and_pick_matches_python(site):
    registry, data, folder = site
    scenarios = grid(registry, data)
    assert len(scenarios) >= 200  # most of the grid resolves
    model = SnapshotModel(data)
    expected = [model.evaluate(s) for s in scenarios]
    results = run_node(folder, [as_js(s) for s in scenarios])
    compared = 0
    for scenario, python, js in zip(scenarios, expected, results):
        for name, quantity in python.quantities.items():
            assert close(quantity.value, js["quantities"][name]), (scenario, name, quantity.value,
                                                                   js["quantities"][name])
            compared += 1
        assert js["verdict"] == (python.verdict.id if python.verdict else None), scenario
        assert js["picks"] == {k: v["id"] for k, v in python.selections.items()}, scenario
    assert compared > 30_000


def test_launch_commands_and_recommended_picks_match_python(site):
    """The page's launch commands are core/registry/launch.py's for the same scenario (note and
    command), and each recommended pick's price, device count and memory is the
    command line's ``selection.quantity``."""
    from fitproof.engine.estimation import Batch
    from fitproof.registry.launch import launch_parts

    registry, data, folder = site
    scenarios = grid(registry, data)
    results = run_node(folder, [as_js(s) for s in scenarios])
    batch = Batch(registry, scenarios)
    names = [slot[key] for slot in data["page"]["recommendations"]
             for key in ("price", "devices", "memory")]
    assert "best_single_gpu.devices_price_usd" in names
    columns = {name: batch.values(name) for name in names}
    fallbacks = engines = 0
    for i, (scenario, js) in enumerate(zip(scenarios, results)):
        for name in names:
            assert close(columns[name][i], js["recommended"][name]), (scenario, name)
        parts = launch_parts(registry, scenario, registry.engines[scenario.engine],
                             batch.evaluation, i)
        assert parts is not None
        note, command = parts
        assert js["launch"] == {"note": note, "command": command}, scenario
        fallbacks += note is not None
        engines += scenario.engine == "vllm"
    # the grid reaches both engines, and commands with and without the fallback
    assert engines > 20 and 0 < fallbacks < len(scenarios)


def test_the_snapshot_equals_the_full_path_on_the_sampled_scenarios(site):
    # the grid compares with the snapshot evaluation; the full path gives the same numbers
    registry, data, _ = site
    model = SnapshotModel(data)
    for scenario in grid(registry, data)[::40]:
        full = fitproof.estimate(scenario.model, scenario.hardware, quant=scenario.quant,
                                 kv=scenario.kv, engine=scenario.engine, registry=registry,
                                 **{k: v for k, v in scenario.inputs.items()
                                    if k in ("context", "batch", "gpus", "offload")})
        quick = model.evaluate(scenario)
        for name in ("total_gib", "decode_tps", "prefill_tps", "cost_per_mtok_usd"):
            assert close(full.value(name), quick.quantities[name].value), (scenario, name)


def test_the_page_refuses_and_warns_as_the_command_line_does(site):
    """Where the command line refuses a scenario (a context past the trained length, a GPU
    memory limit above the device, a tensor split the heads do not divide) the runtime
    refuses it with the same words, and it warns where the command line warns."""
    from fitproof.errors import InputError
    from fitproof.registry.scenario_checks import outcome

    registry, data, folder = site
    model = SnapshotModel(data)
    cases = [("llama-2-7b", "rtx-4090", {"context": 1_048_576}),
             ("llama-2-7b", "rtx-4090", {"context": 8192, "rope_scale": 2}),
             ("llama-3.1-8b", "rtx-4090", {"context": 262144}),
             ("qwen3-235b-a22b", "macbook-pro-m4-max-128gb", {"gpu_memory_limit": 130}),
             ("qwen3-235b-a22b", "macbook-pro-m4-max-128gb", {"gpu_memory_limit": 120}),
             ("qwen3-8b", "h100-80gb-sxm", {"context": 40961, "rope_scale": 1.5}),
             ("ernie-4.5-21b-a3b", "h100-80gb-sxm", {"gpus": 8, "split": 1})]
    scenarios = []
    for name, hardware, inputs in cases:
        scenario = model.resolve({"model": name, "hardware": hardware}, inputs)
        if scenario is None:  # the snapshot hands it back: resolve it as the full path does
            scenario = fitproof.api.scenario(registry, model=name, hardware=hardware,
                                             inputs={k: v for k, v in inputs.items()
                                                     if k != "split"})
            scenario = scenario._replace(inputs={**scenario.inputs, **inputs})
        scenarios.append(scenario)
    results = run_node(folder, [as_js(s) for s in scenarios])
    seen = set()
    for scenario, js in zip(scenarios, results):
        if js["split"]:
            seen.add("split")
            with pytest.raises(InputError) as refused:
                fitproof.api.scenario(registry, model=scenario.model, hardware=scenario.hardware,
                                      inputs={"gpus": 8, "split": "tensor"})
            assert js["split"] == str(refused.value)
            continue
        batch = fitproof.engine.estimation.Batch(registry, [scenario])
        refusal, warnings = batch.checks(0)
        assert js["refusal"] == refusal, scenario
        assert js["warnings"] == list(warnings), scenario
        seen.update(["refusal"] if refusal else [])
        seen.update(["warning"] if warnings else [])
        if refusal:
            with pytest.raises(InputError, match="^" + re.escape(refusal) + "$"):
                fitproof.engine.estimation.Estimate(registry, scenario)
    assert seen == {"split", "refusal", "warning"}


def test_a_typed_value_is_refused_with_the_command_lines_words(site):
    """A box of the page refuses what checked_input refuses, with its message: text that is
    not a number, a fraction where a whole number is needed, a value out of range."""
    from fitproof.errors import InputError
    from fitproof.registry.input_checks import checked_input

    registry, _, folder = site
    cases = [("context", "abc"), ("context", "8192"), ("context", "0"), ("context", "12.5"),
             ("batch", "-3"), ("gpus", "100000"), ("offload", "101"), ("offload", "50.5"),
             ("hours_per_day", "25"), ("electricity_usd_per_kwh", "0.3"), ("gpus", "")]
    node = require_tool("node", "nodejs", install=NODE_HINT)
    done = subprocess.run([node, str(HERE / "js" / "input_problems.js"), str(folder / "data.js"),
                           str(folder / "formulas.js"), str(folder / "runtime.js")],
                          input=json.dumps(cases), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    refused = 0
    for (name, text), js in zip(cases, json.loads(done.stdout)):
        try:
            checked_input(name, text, registry.graph.inputs[name].definition)
            python = None
        except InputError as error:
            python = str(error)
        assert js == python, (name, text)
        refused += python is not None
    assert refused >= 6


@pytest.mark.parametrize(("tree", "values", "expected"), [
    (["binary", "/", ["num", 1.0], ["num", 0.0]], {}, math.inf),
    (["binary", "/", ["num", 0.0], ["num", 0.0]], {}, math.nan),
    (["binary", "//", ["num", -5.0], ["num", 2.0]], {}, -3.0),
    (["binary", "%", ["num", -5.0], ["num", 3.0]], {}, 1.0),
    (["binary", "**", ["num", 1.0], ["ref", "x"]], {"x": math.nan}, 1.0),
    (["binary", "**", ["num", -8.0], ["num", 0.5]], {}, math.nan),
    (["call", "round", [["num", 0.625], ["num", 2.0]]], {}, 0.63),
    (["call", "round", [["num", 133.95], ["num", 1.0]]], {}, 133.9),
    (["call", "round", [["num", -2.5], ["num", 0.0]]], {}, -3.0),
    (["call", "coalesce", [["ref", "x"], ["num", 7.0]]], {"x": math.nan}, 7.0),
    (["call", "min", [["ref", "x"], ["num", 7.0]]], {"x": math.nan}, math.nan),
    (["bool", "and", [["ref", "x"], ["num", 0.0]]], {"x": math.nan}, 0.0),
    (["bool", "or", [["ref", "x"], ["num", 0.0]]], {"x": math.nan}, math.nan),
    (["compare", ["<", "<="], [["num", 1.0], ["num", 2.0], ["num", 2.0]]], {}, 1.0),
    (["cond", ["ref", "x"], ["num", 1.0], ["num", 2.0]], {"x": math.nan}, math.nan),
    (["unary", "-", ["num", -1.0]], {}, 1.0),
    (["unknown"], {}, math.nan),
    (["cond", ["num", 0.0], ["num", 1.0], ["unknown"]], {}, math.nan),
    (["call", "log", [["num", 0.0]]], {}, -math.inf),
])
def test_each_rule_of_the_python_scalars_holds_in_javascript(tree, values, expected):
    from fitproof.formula.scalar import compile_data

    python = compile_data(tree)(values)
    assert (math.isnan(python) and math.isnan(expected)) or python == expected
    node = require_tool("node", "nodejs", install=NODE_HINT)
    runtime = runtime_script(files("fitproof").joinpath("site/assets", "fitproof-runtime.js")
                             .read_text(encoding="utf-8"))
    env = json.dumps({k: (None if math.isnan(v) else v) for k, v in values.items()})
    script = (runtime + f"\nvar e = {env}; for (var k in e) if (e[k] === null) e[k] = NaN;\n"
              f"var v = {js_expression(tree)};\n"
              "process.stdout.write(JSON.stringify(isNaN(v) ? 'nan' : (v === Infinity ? 'inf' : "
              "(v === -Infinity ? '-inf' : v))));")
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    got = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(got, got)
    assert (math.isnan(got) and math.isnan(expected)) or got == expected


def test_an_unknown_node_is_refused_not_guessed():
    with pytest.raises(UnknownNode):
        js_expression(["call", "eval", [["num", 1.0]]])
    with pytest.raises(UnknownNode):
        js_expression(["binary", "<<", ["num", 1.0], ["num", 2.0]])
    # names are quoted as JSON strings: a hostile name cannot break out of the lookup
    assert js_expression(["ref", 'x"]; alert(1); //']) == 'e["x\\"]; alert(1); //"]'


def test_pack_names_that_are_javascript_object_keys_evaluate_as_in_python(tmp_path):
    """A formula a pack names __proto__ or constructor is a value like any other in the
    browser (an object literal's "__proto__": key would set a prototype instead; formulas
    cannot refer to a name with a leading underscore, but such a formula is still shown)."""
    from .conftest import write_pack

    write_pack(tmp_path, "names.yaml", (
        "kind: formulas\nid: names\nformulas:\n"
        "  __proto__:\n    expr: 2 * total_gib\n    unit: GiB\n    description: twice the total\n"
        "  constructor:\n    expr: total_gib + 1\n    unit: GiB\n    description: one more\n"))
    registry = fitproof.load_registry([tmp_path], plugins=False)
    data = site_data(registry)
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "data.js").write_text(data_script(data), encoding="utf-8")
    (folder / "formulas.js").write_text(formulas_script(data), encoding="utf-8")
    runtime = files("fitproof").joinpath("site/assets", "fitproof-runtime.js")
    (folder / "runtime.js").write_text(runtime_script(runtime.read_text(encoding="utf-8")),
                                        encoding="utf-8")
    scenario = SnapshotModel(data).resolve({"model": "llama-3.1-8b", "hardware": "rtx-4090"}, {})
    python = SnapshotModel(data).evaluate(scenario).quantities
    js = run_node(folder, [as_js(scenario)])[0]["quantities"]
    assert python["__proto__"].value == pytest.approx(2 * python["total_gib"].value)
    assert js["__proto__"] == pytest.approx(python["__proto__"].value)
    assert js["constructor"] == pytest.approx(python["constructor"].value)
    assert js["total_gib"] == pytest.approx(python["total_gib"].value)
