"""The compiled snapshot: a single estimate without loading packs gives the full path's
output byte for byte, imports none of the heavy libraries, and treats every damaged,
foreign or unsafe cache file as a miss."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fitproof
from fitproof import api
from fitproof.fast import snapshot
from fitproof.engine.accuracy import measurement_scenarios, scenario_key
from fitproof.engine.estimation import Batch
from fitproof.renderers.estimate_text import render_estimate, render_estimate_json
from fitproof.fast.build import build_snapshot
from fitproof.fast.estimate import SnapshotModel, estimate_from_snapshot
from fitproof.views.results import SELECTORS

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "sympy", "jsonschema", "yaml", "cattrs", "attrs", "attr", "pluggy", "scipy")


def _model(registry) -> SnapshotModel:
    # through JSON, as the file stores it
    return SnapshotModel(json.loads(json.dumps(build_snapshot(registry))))


def _as_typed(scenario) -> tuple[dict, dict]:
    """A resolved scenario as the command line would give it: ids and inputs."""
    choices = {key: getattr(scenario, key) for key in SELECTORS}
    inputs = {k: (None if math.isnan(v) else v) for k, v in scenario.inputs.items()}
    return choices, inputs


def _shipped_scenarios(registry) -> list:
    """The default scenario, each combination of choices the measurement packs run (with
    the inputs of its first row; only rows on their hardware pack's own backend), every
    model on the default card, the default model on every card, and some inputs varied."""
    scenarios = [api.scenario(registry)]
    _, measured = measurement_scenarios(registry)
    first = {}
    for s in measured:
        if s.backend is None:
            first.setdefault(tuple(getattr(s, key) for key in SELECTORS), s)
    scenarios += list(first.values())
    scenarios += [api.scenario(registry, model=m) for m in registry.models]
    scenarios += [api.scenario(registry, hardware=h) for h in registry.hardware]
    scenarios += [api.scenario(registry, model="qwen3-8b", hardware="h100-80gb-sxm",
                               engine="vllm", inputs={"batch": 16, "context": 32768}),
                  api.scenario(registry, model="llama-3.3-70b-instruct", hardware="rtx-3090",
                               inputs={"gpus": 2, "offload": 20})]
    unique = {}
    for s in scenarios:
        unique.setdefault(json.dumps(_as_typed(s), sort_keys=True), s)
    return list(unique.values())


@pytest.fixture(scope="module", params=["measured", "seed"])
def profile_case(request):
    registry = fitproof.load_registry(plugins=False, profile=request.param)
    return registry, _model(registry), _shipped_scenarios(registry)


def test_the_snapshot_computes_the_full_paths_numbers_on_every_shipped_scenario(profile_case):
    """Every quantity, the verdict and every pick, against one batch of the full path."""
    registry, model, scenarios = profile_case
    assert len(scenarios) > 250
    batch = Batch(registry, scenarios)
    verdicts = batch.verdict_ids()
    picks = {name: batch.evaluation.select(name) for name in registry.graph.selections}
    compared = measured = 0
    for i, scenario in enumerate(scenarios):
        fast = estimate_from_snapshot(model, *_as_typed(scenario))
        if verdicts[i] is None:  # the full path explains why: the snapshot leaves it
            assert fast is None
            continue
        if scenario_key(scenario) in model.measured:  # it shows the public runs too
            assert fast is not None and fast.measured
            measured += 1
        assert fast is not None, scenario
        assert fast.scenario == scenario
        assert fast.verdict is not None and fast.verdict.id == verdicts[i]
        for name, quantity in fast.quantities.items():
            full = float(batch.array(name)[i])
            assert (quantity.value is None and math.isnan(full)) or quantity.value == full, \
                (name, scenario, quantity.value, full)
        for name, result in picks.items():
            choice = result.choice(i)
            assert fast.selections[name]["id"] == (choice.id if choice else None), name
            assert fast.selections[name]["qualifying"] == int(result.qualifying[i]), name
        compared += 1
    assert compared > 200 and measured > 50, (compared, measured)


def test_the_snapshot_renders_what_the_full_path_renders(profile_case):
    """The JSON and the text card, byte for byte, through the full path's Estimate."""
    registry, model, scenarios = profile_case
    for scenario in scenarios[::12]:
        full = api.estimate_view(registry, scenario)
        fast = estimate_from_snapshot(model, *_as_typed(scenario))
        if full.verdict is None:
            continue
        assert render_estimate_json(fast) == render_estimate_json(full), scenario
        assert render_estimate(fast) == render_estimate(full), scenario


def test_names_and_inputs_the_snapshot_cannot_settle_take_the_full_path(registry):
    model = _model(registry)
    typed = {"model": "qwen 35b"}  # a guess the full path suggests ids for
    assert estimate_from_snapshot(model, typed, {}) is None
    assert estimate_from_snapshot(model, {}, {"context": -1}) is None  # the full path's error
    assert estimate_from_snapshot(model, {}, {"colour": 3}) is None
    # aliases, vendor names and Hugging Face repos resolve as they do on the full path
    for name in ("RTX 3090", "NVIDIA GeForce RTX 3090", "rtx-3090"):
        view = estimate_from_snapshot(model, {"hardware": name}, {})
        assert view is not None and view.scenario.hardware == "rtx-3090"
    view = estimate_from_snapshot(model, {"model": "Qwen/Qwen3-8B"}, {})
    assert view is not None and view.scenario.model == "qwen3-8b"


def _run(cache: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``fitproof ARGS`` in a fresh interpreter; its last stderr line lists the modules it
    imported."""
    code = ("import sys, json\nfrom fitproof.cli import main\ncode = main(sys.argv[1:])\n"
            "sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)))\nsys.exit(code)")
    env = {**os.environ, "FITPROOF_CACHE_DIR": str(cache)}
    env.pop("FITPROOF_PACK_PATH", None)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


def _modules(result: subprocess.CompletedProcess) -> list[str]:
    return json.loads(result.stderr.rstrip().rsplit("\n", 1)[-1])


def _stored(cache: Path) -> list[Path]:
    return sorted((cache / "snapshots").glob("*.json"))


def test_a_warm_estimate_answers_from_the_snapshot_without_heavy_imports(tmp_path):
    cache = tmp_path / "cache"
    args = ("estimate", "qwen3-8b", "--on", "RTX 4090", "--context", "32K", "--json")
    first = _run(cache, *args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "numpy" in _modules(first)  # the full path ran and stored the snapshot
    assert len(_stored(cache)) == 1
    second = _run(cache, *args, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    imported = _modules(second)
    heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY)
    assert heavy == [], heavy
    assert "fitproof.fast.estimate" in imported
    # the text card too, and another scenario of the same packs from the same snapshot
    text_args = ("estimate", "llama-3.1-8b", "--on", "h100-80gb-sxm", "--batch", "8")
    full = _run(tmp_path / "other-cache", *text_args, cwd=tmp_path)
    fast = _run(cache, *text_args, cwd=tmp_path)
    assert fast.stdout == full.stdout and "tok/s" in fast.stdout
    assert not any(m.startswith("numpy") for m in _modules(fast))


def test_a_pack_folder_and_a_profile_key_their_own_snapshots(tmp_path):
    cache = tmp_path / "cache"
    packs = tmp_path / "packs"
    packs.mkdir()
    template = (REPO / "examples" / "hardware-template.yaml").read_text(encoding="utf-8")
    card = packs / "acme-x1-48gb.yaml"
    card.write_text(template, encoding="utf-8")
    runs = [("estimate", "--on", "acme-x1-48gb", "--pack-dir", str(packs), "--json"),
            ("estimate", "--profile", "seed", "--json"), ("estimate", "--json")]
    outputs = [_run(cache, *args, cwd=tmp_path) for args in runs]
    assert len(_stored(cache)) == 3
    again = [_run(cache, *args, cwd=tmp_path) for args in runs]
    assert [r.stdout for r in again] == [r.stdout for r in outputs]
    assert len({r.stdout for r in again}) == 3
    # a changed pack is another key: the old snapshot is not used
    card.write_text(template.replace("memory_gb: 48", "memory_gb: 96"), encoding="utf-8")
    changed = _run(cache, *runs[0], cwd=tmp_path)
    assert changed.stdout != outputs[0].stdout
    assert json.loads(changed.stdout)["quantities"]["physical_gb"]["value"] == 96


def _stored_entry(tmp_path: Path) -> tuple[Path, Path, str]:
    cache = tmp_path / "cache"
    result = _run(cache, "estimate", "--json", cwd=tmp_path)
    assert result.returncode == 0
    (path,) = _stored(cache)
    return cache, path, result.stdout


def _parts(path: Path) -> tuple[bytes, bytes, bytes]:
    """A stored snapshot's seal, header and body."""
    seal, _, rest = path.read_bytes().partition(b"\n")
    head, _, body = rest.partition(b"\n")
    return seal, head, body


def _reseal(path: Path, head: bytes, body: bytes) -> None:
    """Store ``head`` and ``body`` sealed with the cache's key, as fitproof itself would."""
    from hashlib import blake2b

    cache = path.parent.parent
    key = (cache.parent / f"{cache.name}.key").read_bytes()
    content = head + b"\n" + body
    path.write_bytes(blake2b(content, key=key, digest_size=32).hexdigest().encode() + b"\n"
                     + content)


@pytest.mark.parametrize("damage", [
    "body changed", "truncated", "not json", "another key", "other format", "wrong shape",
    "group writable", "folder writable by others", "link to /dev/zero", "fifo", "folder"])
def test_a_damaged_or_unsafe_snapshot_is_a_miss(tmp_path, damage):
    cache, path, expected = _stored_entry(tmp_path)
    raw = path.read_bytes()
    seal, head, body = _parts(path)
    if damage == "body changed":  # a figure edited by a writer who cannot read the key
        path.write_bytes(seal + b"\n" + head + b"\n" + body.replace(b"rtx-3090", b"rtx-3080", 1))
    elif damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "not json":
        _reseal(path, head, b"\xff\xfe{")
    elif damage == "another key":
        header = json.loads(head)
        header["key"] = "0" * 64
        _reseal(path, json.dumps(header).encode(), body)
    elif damage == "other format":
        data = json.loads(body)
        data["format"] = 999
        _reseal(path, head, json.dumps(data).encode())
    elif damage == "wrong shape":  # sealed and keyed, but not what this version builds
        _reseal(path, head, json.dumps({"format": 1, "formulas": [1, 2]}).encode())
    elif damage == "group writable":
        path.chmod(0o620)
    elif damage == "folder writable by others":
        path.parent.chmod(0o777)
    elif damage == "link to /dev/zero":
        path.unlink()
        path.symlink_to("/dev/zero")
    elif damage == "fifo":
        path.unlink()
        os.mkfifo(path)
    else:
        path.unlink()
        path.mkdir()
    result = _run(cache, "estimate", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == expected
    assert "numpy" in _modules(result)  # the full path answered


def test_the_snapshot_folder_keeps_the_most_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("FITPROOF_CACHE_DIR", str(tmp_path))
    data = {"format": snapshot.FORMAT}
    for index in range(snapshot.KEEP):
        assert snapshot.write_snapshot(f"{index:064d}", data)
        os.utime(tmp_path / "snapshots" / f"{index:064d}.json", (index, index))
    assert snapshot.read_snapshot(f"{0:064d}") == data  # used now: kept
    snapshot.write_snapshot("f" * 64, data)
    kept = {p.stem for p in (tmp_path / "snapshots").glob("*.json")}
    assert len(kept) == snapshot.KEEP
    assert f"{0:064d}" in kept and "f" * 64 in kept
    assert f"{1:064d}" not in kept
    assert oct((tmp_path / "snapshots").stat().st_mode & 0o777) == "0o700"
    assert oct((tmp_path / "snapshots" / ("f" * 64 + ".json")).stat().st_mode & 0o777) == "0o600"


def test_installed_plugins_take_the_full_path(tmp_path):
    site = tmp_path / "site"
    (site / "fp_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "fp_plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[fitproof]\nfp = fp_plugin\n", encoding="utf-8")
    (site / "fp_plugin.py").write_text("", encoding="utf-8")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from fitproof.fast import snapshot; "
            "print(snapshot.plugins_installed())")
    found = subprocess.run([sys.executable, "-c", code, str(site)], capture_output=True,
                           text=True, cwd=tmp_path)
    assert found.stdout.strip() == "True"
    (site / "fp_plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[console_scripts]\nfp = fp_plugin:main\n", encoding="utf-8")
    found = subprocess.run([sys.executable, "-c", code, str(site)], capture_output=True,
                           text=True, cwd=tmp_path)
    assert found.stdout.strip() == "False"


def test_a_stored_snapshot_answers_in_process_as_the_full_path_does():
    """store_snapshot keeps the packs' snapshot in the cache folder, and the next estimate of
    the same packs comes from it, with the full path's view (in this process: the tests of
    the commands run them in subprocesses)."""
    registry = fitproof.load_registry(plugins=False)
    assert api.store_snapshot(registry, plugins=False) is True
    choices = {"model": "qwen3-8b", "hardware": "rtx-4090", "quant": None, "kv": None,
               "engine": None, "workload": None, "host": None}
    found = api.estimate_from_snapshot(choices, {}, plugins=False)
    assert found is not None
    view, warnings = found
    full = api.estimate_view(registry, api.scenario(registry, model="qwen3-8b",
                                                    hardware="rtx-4090"))
    assert warnings == [] and view.quantities["total_gib"].value == \
        full.quantities["total_gib"].value
    assert view.verdict.id == full.verdict.id
