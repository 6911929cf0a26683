"""``fitproof import hf ORG/NAME`` and ``--fetch`` against a Hugging Face Hub on loopback
(``tests/hub_server.py``): the pack lands in the user's pack folder and later runs need no
network; every way the Hub can fail is one line naming the repository, with nothing
written; no command that was not asked to fetch reaches the Hub."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fitproof
from fitproof import api

from .hub_server import Repo, safetensors_file, serving

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parent / "data"
GEMMA_CONFIG = (DATA / "unseen-configs" / "gemma-2-9b.json").read_bytes()
QWEN2_MOE_CONFIG = (DATA / "unseen-configs" / "qwen2-57b-a14b.json").read_bytes()
SHARDS = {
    "model-00001-of-00002.safetensors": safetensors_file({
        "model.embed_tokens.weight": ("BF16", [16, 8]), "model.norm.weight": ("F32", [8])}),
    "model-00002-of-00002.safetensors": safetensors_file({
        "model.layers.0.mlp.up_proj.weight": ("BF16", [8, 4])}),
}
INDEX = json.dumps({"metadata": {"total_size": 352}, "weight_map": {
    "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
    "model.norm.weight": "model-00001-of-00002.safetensors",
    "model.layers.0.mlp.up_proj.weight": "model-00002-of-00002.safetensors"}}).encode()


def repos() -> dict[str, Repo]:
    return {
        "google/gemma-2-9b": Repo({"config.json": GEMMA_CONFIG,
                                   "model.safetensors.index.json": INDEX, **SHARDS}),
        "Qwen/Qwen2-57B-A14B": Repo({"config.json": QWEN2_MOE_CONFIG}),
        "meta-llama/Gated-Model": Repo({"config.json": GEMMA_CONFIG}, gated=True),
        "cut/model": Repo({"config.json": GEMMA_CONFIG}, truncated=True),
        "huge/model": Repo({"config.json": b" " * 6_000_000}),
        "broken/model": Repo({"config.json": b"{not json"}),
        "escape/model": Repo({"config.json": GEMMA_CONFIG, "model.safetensors.index.json":
                              json.dumps({"weight_map": {"w": "../../../etc/passwd"}}).encode()}),
        "slow/model": Repo({"config.json": GEMMA_CONFIG}, slow=True),
    }


@pytest.fixture
def home(tmp_path):
    """The user's pack folder and Hugging Face cache, both empty."""
    return {"packs": tmp_path / "packs", "hf": tmp_path / "hf"}


def fitproof_cli(home, endpoint: str, *argv: str, offline: bool = False, timeout: int = 20):
    """The CLI in a process of its own (huggingface_hub reads HF_ENDPOINT when imported);
    ``timeout`` is huggingface_hub's per request, generous for a busy machine."""
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HOME": str(home["hf"]),
           "FITPROOF_USER_PACKS": str(home["packs"]), "HF_HUB_DISABLE_TELEMETRY": "1",
           "HF_HUB_ETAG_TIMEOUT": str(timeout), "HF_HUB_DOWNLOAD_TIMEOUT": str(timeout)}
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    done = subprocess.run([sys.executable, "-m", "fitproof", *argv], env=env, text=True,
                          capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def hub_requests(hub) -> list[str]:
    """The requests for repository files (huggingface_hub may also ask the API for its own
    registry of agent harnesses, which is not a model's)."""
    return [r for r in hub.requests if "/resolve/" in r]


def written(home) -> list[Path]:
    return sorted(home["packs"].rglob("*.yaml")) if home["packs"].exists() else []


def test_import_by_name_then_estimate_offline(home):
    with serving(repos()) as hub:
        code, out, err = fitproof_cli(home, hub.endpoint, "import", "hf", "google/gemma-2-9b")
        assert (code, err) == (0, "")
        pack = home["packs"] / "models" / "gemma-2-9b.yaml"
        assert out.splitlines() == [
            f"wrote {pack}",
            "checkpoint at 0123456789ab: 160 BF16, 8 F32 parameters in 2 safetensors file(s)"]
    text = pack.read_text()
    assert "hf_repo: google/gemma-2-9b\n" in text
    assert (f"source: \"{hub.endpoint}/google/gemma-2-9b/blob/"
            "0123456789abcdef0123456789abcdef01234567/config.json\"") in text
    assert "checkpoint_params:\n  BF16: 160\n  F32: 8\n" in text
    # the hub is gone and huggingface_hub is told so: the pack in the user's folder answers
    code, out, err = fitproof_cli(home, "http://127.0.0.1:9", "estimate", "google/gemma-2-9b",
                                  "--on", "rtx-4090", "--json", offline=True)
    assert code == 0, err
    estimate = json.loads(out)
    assert estimate["scenario"]["model"] == "gemma-2-9b"
    assert estimate["quantities"]["weights_gib"]["value"] > 4  # 9B parameters at Q4_K_M


def test_import_by_name_writes_what_the_local_import_writes(home, tmp_path):
    """The architecture read from the Hub is the local importer's reading of the same file."""
    with serving(repos()) as hub:
        assert fitproof_cli(home, hub.endpoint, "import", "hf", "Qwen/Qwen2-57B-A14B")[0] == 0
    config = tmp_path / "config.json"
    config.write_bytes(QWEN2_MOE_CONFIG)
    registry = fitproof.load_registry(plugins=False)
    local = api.import_hf(str(config), registry, model_id="qwen2-57b-a14b",
                          out=str(tmp_path / "local"))

    def architecture(path: Path) -> list[str]:
        lines = path.read_text().splitlines()
        return lines[lines.index(next(l for l in lines if l.startswith("# Architecture"))) + 1:]

    remote = home["packs"] / "models" / "qwen2-57b-a14b.yaml"
    assert architecture(remote) == architecture(local)
    assert "num_experts: 64" in architecture(remote)


@pytest.mark.parametrize("repo, message", [
    ("meta-llama/Gated-Model", "meta-llama/Gated-Model is gated: accept its licence on "
                               "{endpoint}/meta-llama/Gated-Model and set HF_TOKEN to a token "
                               "of that account"),
    ("nobody/missing", "nobody/missing: no such repository on {endpoint} (a private one needs "
                       "HF_TOKEN)"),
    ("cut/model", "cut/model: reading config.json from {endpoint} failed: peer closed "
                  "connection without sending complete message body (received 428 bytes, "
                  "expected 856)"),
    ("huge/model", "huge/model: the Hub gives config.json 6,000,000 bytes; at most 5,000,000 "
                   "bytes are read"),
    ("broken/model", "broken/model: config.json: not a JSON config: Expecting property name "
                     "enclosed in double quotes: line 1 column 2 (char 1)"),
    ("escape/model", "escape/model: model.safetensors.index.json: weight_map names "
                     "'../../../etc/passwd', not a safetensors file of the repository"),
])
def test_hub_failures_are_one_line_and_write_nothing(home, repo, message):
    with serving(repos()) as hub:
        code, out, err = fitproof_cli(home, hub.endpoint, "import", "hf", repo)
    assert (code, out) == (2, "")
    assert err == f"fitproof: error: {message.format(endpoint=hub.endpoint)}\n"
    assert written(home) == []
    if repo == "huge/model":  # refused on the Hub's word, before a byte of it was fetched
        assert "GET /huge/model/resolve/main/config.json" not in hub.requests


def test_a_revision_that_does_not_exist(home):
    with serving(repos()) as hub:
        code, _, err = fitproof_cli(home, hub.endpoint, "import", "hf", "google/gemma-2-9b",
                                    "--revision", "v9")
    assert (code, err) == (2, "fitproof: error: google/gemma-2-9b: the revision asked for does "
                              "not exist\n")
    assert written(home) == []


def test_a_hub_that_never_answers_times_out_in_one_line(home):
    with serving(repos()) as hub:
        code, _, err = fitproof_cli(home, hub.endpoint, "import", "hf", "slow/model",
                                    timeout=3)
    assert code == 2
    assert err.startswith("fitproof: error: slow/model: reading config.json from ")
    assert err.count("\n") == 1 and written(home) == []


def test_offline_without_a_cached_copy(home):
    code, _, err = fitproof_cli(home, "http://127.0.0.1:9", "import", "hf",
                                "google/gemma-2-9b", offline=True)
    assert (code, err) == (2, "fitproof: error: google/gemma-2-9b: config.json is not in the "
                              "local Hugging Face cache and the Hub (http://127.0.0.1:9) could "
                              "not be reached (HF_HUB_OFFLINE set, or no network)\n")


def test_estimate_by_repository_fetches_only_when_asked(home):
    with serving(repos()) as hub:
        code, out, err = fitproof_cli(home, hub.endpoint, "estimate", "Qwen/Qwen2-57B-A14B",
                                      "--on", "h100-80gb-sxm")
        assert (code, out) == (2, "")
        assert err == ("fitproof: error: no model pack records 'Qwen/Qwen2-57B-A14B'; "
                       "`fitproof import hf Qwen/Qwen2-57B-A14B` reads its config from the "
                       "Hugging Face Hub (or add --fetch)\n")
        assert hub_requests(hub) == []
        code, out, err = fitproof_cli(home, hub.endpoint, "estimate", "Qwen/Qwen2-57B-A14B",
                                      "--on", "h100-80gb-sxm", "--fetch", "--json")
        assert code == 0, err
        assert err == f"wrote {home['packs'] / 'models' / 'qwen2-57b-a14b.yaml'}\n"
        assert json.loads(out)["scenario"]["model"] == "qwen2-57b-a14b"  # stdout is the JSON
        fetched = len(hub_requests(hub))
        assert fetched > 0
        # once imported, --fetch has nothing to fetch
        code, _, _ = fitproof_cli(home, hub.endpoint, "estimate", "Qwen/Qwen2-57B-A14B",
                                  "--on", "h100-80gb-sxm", "--fetch")
        assert code == 0 and len(hub_requests(hub)) == fetched


def test_a_repository_a_shipped_pack_records_is_not_fetched(home):
    with serving(repos()) as hub:
        code, out, _ = fitproof_cli(home, hub.endpoint, "import", "hf", "Qwen/Qwen3-8B")
        assert hub_requests(hub) == []
    assert (code, out) == (0, "Qwen/Qwen3-8B is the model pack 'qwen3-8b': nothing to import "
                              "(--id or --force imports it again)\n")
    assert written(home) == []


def test_commands_that_were_not_asked_never_reach_the_hub(home):
    with serving(repos()) as hub:
        for argv in (["estimate", "qwen3-8b", "--on", "rtx-4090"], ["report"],
                     ["models", "--on", "rtx-4090"]):
            assert fitproof_cli(home, hub.endpoint, *argv)[0] == 0
        assert hub.requests == []


def test_names_that_are_not_repositories():
    from fitproof.importers.hub import is_repo_id

    assert is_repo_id("Qwen/Qwen3-8B") and is_repo_id("meta-llama/Llama-3.1-8B-Instruct")
    for text in ("qwen3-8b", "a/b/c", "../etc", "org/..", "/abs/path", "org/name/", "-x/y"):
        assert not is_repo_id(text), text
