"""The model library: parameter counts and KV sizes from the architecture formulas, and the
config importer (round trip on the reference configs, unseen configs, refusals)."""

from __future__ import annotations

import math

import json

import pytest

import fitproof
from fitproof.errors import InputError
from fitproof.importers.huggingface import (FIELD_ORDER, ConfigNotUnderstood, import_config,
                                            read_config)
from fitproof.specs import Figure

from .conftest import TESTS

CONFIGS = TESTS / "data" / "hf-configs"
MODEL_CONFIGS = TESTS / "data" / "model-configs"
UNSEEN = TESTS / "data" / "unseen-configs"
PARAMETER_TOLERANCE = 0.02  # a figure a model card or checkpoint states
LABEL_TOLERANCE = 0.10      # a size that is only a label in the model's name ("A3B")


def arch(registry, model: str, name: str) -> float:
    result = fitproof.estimate(model, "h200-141gb-sxm", registry=registry)
    return result.evaluation.scalar(f"arch.{name}")


def comparable_active(registry, model_id: str) -> float:
    """arch.params_active counts the output head once and leaves out the input embedding;
    model cards differ in what they count (stated_active_basis)."""
    model = registry.models[model_id]
    active = arch(registry, model_id, "params_active")
    head = model.vocab_size.value * model.hidden_size.value
    if model.stated_active_basis == "all" and not model.tie_word_embeddings:
        active += head
    elif model.stated_active_basis == "no_embeddings":
        active -= head
    return active


def tolerance(figure: Figure) -> float:
    return LABEL_TOLERANCE if figure.approximate else PARAMETER_TOLERANCE


def stated(registry, field: str) -> list[str]:
    return sorted(m for m, spec in registry.models.items() if getattr(spec, field) is not None)


@pytest.fixture(scope="module")
def library(registry):
    return registry


def test_the_library_covers_every_reference_config(registry):
    sources = " ".join(" ".join(m.source) for m in registry.models.values())
    missing = [p.name for p in CONFIGS.glob("*.json") if p.name not in sources
               and "partial" not in p.name]
    assert missing == []


@pytest.mark.parametrize("model", stated(fitproof.load_registry(plugins=False),
                                         "stated_params_total"))
def test_total_parameters_match_the_model_card(registry, model):
    figure = registry.models[model].stated_params_total
    computed = arch(registry, model, "params_total")
    assert computed == pytest.approx(figure.value, rel=tolerance(figure)), (
        f"{model}: formulas give {computed / 1e9:.3f}B, the card says {figure.value / 1e9:g}B")


@pytest.mark.parametrize("model", stated(fitproof.load_registry(plugins=False),
                                         "stated_params_active"))
def test_active_parameters_match_the_model_card(registry, model):
    figure = registry.models[model].stated_params_active
    computed = comparable_active(registry, model)
    assert computed == pytest.approx(figure.value, rel=tolerance(figure)), (
        f"{model}: formulas give {computed / 1e9:.3f}B active, the card says "
        f"{figure.value / 1e9:g}B")


@pytest.mark.parametrize(("model", "expected"), [
    ("llama-3.1-8b-instruct", 131072),  # 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes
    ("deepseek-v3", 70272),             # 61 layers x (512 latent + 64 rope) x 2 bytes
    ("qwen3.5-35b-a3b", 20480),         # 10 full-attention layers x 2 KV heads x 256 x 2 x 2
])
def test_kv_bytes_per_token(registry, model, expected):
    result = fitproof.estimate(model, "rtx-3090", registry=registry)
    assert result.value("kv_bytes_per_token") == expected


def test_mla_kv_is_the_latent_not_the_heads(registry):
    model = registry.models["deepseek-v3"]
    heads_kv = 2 * model.num_attention_heads.value * (model.qk_nope_head_dim.value
                                                     + model.qk_rope_head_dim.value)
    result = fitproof.estimate("deepseek-v3", "rtx-3090", registry=registry)
    assert result.value("kv_bytes_per_token") < heads_kv * 61 * 2 / 30


def test_sliding_window_layers_stop_growing_at_the_window(registry):
    def kv(context: int) -> float:
        return fitproof.estimate("gpt-oss-120b", "h200-141gb-sxm", context=context,
                                 registry=registry).value("kv_cache_gib")

    per_token_full = 18 * 8 * 64 * 2 * 2  # 18 global layers
    per_token_window = 18 * 8 * 64 * 2 * 2  # 18 sliding layers, 128-token window
    for context in (8192, 131072):
        expected = (per_token_full * context + per_token_window * 128) / 2**30
        assert kv(context) == round(expected, 2)


def test_hybrid_linear_state_is_fixed_per_sequence(registry):
    one = fitproof.estimate("qwen3-next-80b-a3b-instruct", "h200-141gb-sxm", batch=1,
                            registry=registry)
    two = fitproof.estimate("qwen3-next-80b-a3b-instruct", "h200-141gb-sxm", batch=2,
                            registry=registry)
    state = one.value("recurrent_state_gib")
    # 36 linear layers x (32 value heads x 128 x 128 + 8192 conv channels x 3) x 2 bytes (bf16)
    assert state == pytest.approx(36 * (32 * 128 * 128 + 8192 * 3) * 2 / 2**30)
    assert two.value("kv_cache_gib") == pytest.approx(2 * one.value("kv_cache_gib"), abs=0.011)


def test_hybrid_mamba_state(registry):
    result = fitproof.estimate("nvidia-nemotron-3-nano-30b-a3b-bf16", "h200-141gb-sxm",
                               registry=registry)
    conv = 64 * 64 + 2 * 8 * 128
    assert result.value("recurrent_state_gib") == pytest.approx(
        23 * (64 * 64 * 128 + conv * 3) * 4 / 2**30)


@pytest.mark.slow
def test_params_total_and_active_in_estimate_json(registry):
    for model in registry.models:
        data = fitproof.estimate(model, "h200-141gb-sxm", registry=registry).to_dict()
        quantities = data["quantities"]
        for name in ("params_total", "params_active", "kv_bytes_per_token"):
            assert quantities[name]["value"] and quantities[name]["value"] > 0, (model, name)


# -- the importer ----------------------------------------------------------------------------
# Configs the importer refuses on purpose (test_importer_refuses_* below); their packs
# are written by hand and checked by the parameter-count tests instead.
HAND_WRITTEN = {"nvidia__Llama-3_3-Nemotron-Super-49B-v1.json"}


def shipped_from_config(registry):
    for model in sorted(registry.models.values(), key=lambda m: m.id):
        config = next((s.split("reference/hf-configs/")[1].split(" ")[0] for s in model.source
                       if "reference/hf-configs/" in s), None)
        if config is None:
            name = next((s for s in model.source if "huggingface.co/" in s), "")
            candidates = [p for p in CONFIGS.glob("*.json") if "partial" not in p.name
                          and p.stem.split("__")[-1].lower() == model.id]
            config = candidates[0].name if candidates else None
        if (config and (CONFIGS / config).exists() and "partial" not in config
                and config not in HAND_WRITTEN):
            yield model.id, config
            continue
        # packs imported from the configs saved beside the tests (tests/data/model-configs)
        saved = next((s.split("tests/data/model-configs/")[1].split(",")[0].split(" ")[0]
                      for s in model.source if "tests/data/model-configs/" in s), None)
        if saved and (MODEL_CONFIGS / saved).exists():
            yield model.id, f"../model-configs/{saved}"


ROUND_TRIP = list(shipped_from_config(fitproof.load_registry(plugins=False)))


def _plain(value):
    """A pack field as the importer writes it: a figure's value, a list for a tuple, nothing
    for an empty list (the importer leaves an unused list out)."""
    if isinstance(value, tuple):
        return list(value) or None
    return value.value if isinstance(value, Figure) else value


@pytest.mark.parametrize(("model", "config"), ROUND_TRIP, ids=[m for m, _ in ROUND_TRIP])
def test_import_reproduces_the_shipped_pack(registry, model, config):
    imported = import_config(read_config(CONFIGS / config), registry).fields
    shipped = registry.models[model]
    config_repo = config.split(".")[0].replace("__", "/")
    for field in FIELD_ORDER:
        if field == "checkpoint_format" and config_repo != shipped.hf_repo:
            # the architecture came from a re-release (e.g. NVIDIA's NVFP4 copy): its
            # quantization is not that of the repository the pack describes
            continue
        value = _plain(getattr(shipped, field, None))
        assert value == imported.get(field), (model, field, value, imported.get(field))


def test_round_trip_covers_all_full_reference_configs():
    configs = {c for _, c in ROUND_TRIP}
    full = {p.name for p in CONFIGS.glob("*.json") if "partial" not in p.name}
    assert full - configs == HAND_WRITTEN


UNSEEN_CASES = [
    # config, total, total is a label, active or None, active basis, active is a label
    ("qwen2.5-7b-instruct", 7.61e9, False, None, None, False),
    ("qwen2-57b-a14b", 57e9, True, 14e9, "all", True),
    ("qwen1.5-moe-a2.7b", 14.3e9, False, 2.7e9, "all", False),
    ("llama-2-7b-hf", 7e9, True, None, None, False),
    ("gemma-2-9b", 9e9, True, None, None, False),
    ("phi-3-mini-4k-instruct", 3_821_079_552, False, None, None, False),
    ("mistral-7b-v0.1", 7.3e9, True, None, None, False),
]


@pytest.mark.parametrize("case", UNSEEN_CASES, ids=[c[0] for c in UNSEEN_CASES])
def test_import_of_configs_fitproof_has_never_seen(tmp_path, case, capsys):
    config, total, total_label, active, basis, active_label = case
    name = f"unseen-{config}"  # two of these models have shipped packs since (issue 9)
    from fitproof.cli import main

    assert main(["import", "hf", str(UNSEEN / f"{config}.json"), "--id", name, "--out",
                 str(tmp_path), "--no-plugins"]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / (name + '.yaml')}"
    registry = fitproof.load_registry([tmp_path], plugins=False)
    computed = arch(registry, name, "params_total")
    assert computed == pytest.approx(total, rel=LABEL_TOLERANCE if total_label
                                     else PARAMETER_TOLERANCE)
    if active:
        registry.models[name] = registry.models[name]
        spec = registry.models[name]
        value = arch(registry, name, "params_active")
        if basis == "all":
            value += spec.vocab_size.value * spec.hidden_size.value
        assert value == pytest.approx(active, rel=LABEL_TOLERANCE if active_label
                                      else PARAMETER_TOLERANCE)
    # the imported pack works end to end through --pack-dir
    assert main(["estimate", name, "--on", "h200-141gb-sxm", "--pack-dir", str(tmp_path),
                 "--no-plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scenario"]["model"] == name and data["verdict"]["id"] in ("fits", "tight")


@pytest.mark.parametrize(("config", "shipped"), [("llama-2-7b-hf", "llama-2-7b"),
                                                 ("qwen2.5-7b-instruct", "qwen2.5-7b-instruct")])
def test_shipped_packs_agree_with_the_configs_quoted_elsewhere(tmp_path, config, shipped, capsys):
    """The Llama 2 7B and Qwen2.5 7B packs were imported from other public copies of their
    config.json than these fixtures; both copies give the same shapes."""
    from fitproof.cli import main

    assert main(["import", "hf", str(UNSEEN / f"{config}.json"), "--id", "copy", "--out",
                 str(tmp_path), "--no-plugins"]) == 0
    capsys.readouterr()
    registry = fitproof.load_registry([tmp_path], plugins=False)
    fields = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
              "intermediate_size", "vocab_size", "tie_word_embeddings")
    assert [getattr(registry.models["copy"], f) for f in fields] == \
        [getattr(registry.models[shipped], f) for f in fields]


@pytest.mark.parametrize("config", ["gemma-2-9b", "phi-3-mini-4k-instruct"])
def test_gemma_2_and_phi_3_configs_import_with_the_configs_figures(tmp_path, config, capsys):
    """Keys that do not change a size (logit soft-capping, dropouts, cache_implementation,
    original_max_position_embeddings...) are accepted; the pack's figures are the config's."""
    from fitproof.cli import main

    assert main(["import", "hf", str(UNSEEN / f"{config}.json"), "--id", config, "--out",
                 str(tmp_path), "--no-plugins"]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / (config + '.yaml')}"
    model = fitproof.load_registry([tmp_path], plugins=False).models[config]
    source = json.loads((UNSEEN / f"{config}.json").read_text())
    for field in ("num_hidden_layers", "hidden_size", "num_attention_heads",
                  "num_key_value_heads", "vocab_size", "max_position_embeddings",
                  "intermediate_size"):
        assert getattr(model, field).value == source[field], field
    notes = " ".join(model.notes)
    if config == "gemma-2-9b":  # Gemma2Config defaults the config leaves out
        assert model.family == "sliding-window" and model.tie_word_embeddings
        assert (model.full_attention_layers.value, model.sliding_attention_layers.value,
                model.sliding_window.value, model.head_dim.value) == (21, 21, 4096, 256)
        assert "tie_word_embeddings true is assumed" in notes
    else:  # llama.cpp does not apply Phi-3's window: every layer keeps the full context
        assert model.family == "full-attention" and not model.tie_word_embeddings
        assert model.sliding_window is None and "Phi SWA is currently disabled" in notes


@pytest.mark.parametrize(("change", "message"), [
    ({"num_kv_shared_layers": 18}, "config field 'num_kv_shared_layers' is not understood"),
    ({"sliding_window_size": 2048}, "sliding_window_size 2048 differs from sliding_window "
                                    "4096; which applies is not understood"),
    ({"hidden_activation": "relu"}, "hidden_act 'relu' is not understood (is the MLP gated?)"),
])
def test_keys_that_change_a_size_are_still_refused(tmp_path, capsys, change, message):
    """A key that would change the KV cache or the weights, and that the importer does not
    model, is refused by name (exit 1), however many harmless keys come with it."""
    from fitproof.cli import main

    config = json.loads((UNSEEN / "gemma-2-9b.json").read_text())
    config.update(change)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    assert main(["import", "hf", str(path), "--id", "changed", "--out", str(tmp_path / "out"),
                 "--no-plugins"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "fitproof: error: cannot size this model safely:", f"  {message}"]
    assert not (tmp_path / "out").exists()


def test_no_gqa_means_as_many_kv_heads_as_query_heads(tmp_path, registry):
    fields = import_config(read_config(UNSEEN / "llama-2-7b-hf.json"), registry).fields
    assert fields["num_key_value_heads"] == fields["num_attention_heads"] == 32
    config = json.loads((UNSEEN / "llama-2-7b-hf.json").read_text())
    del config["num_key_value_heads"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    fields = import_config(read_config(path), registry).fields
    assert "num_key_value_heads" not in fields  # the formulas fall back to the query heads


@pytest.mark.parametrize(("change", "message"), [
    ({"use_cla": True}, "use_cla (cross-layer KV sharing) is not understood"),
    ({"frobnication_factor": 3}, "config field 'frobnication_factor' is not understood"),
    ({"hidden_act": "sigmoid_cubed"}, "hidden_act 'sigmoid_cubed' is not understood "
                                      "(is the MLP gated?)"),
    ({"layer_types": ["full_attention"] * 31 + ["bidirectional"]},
     "layer_types ['bidirectional'] are not understood"),
])
def test_unknown_architecture_fields_are_named(tmp_path, registry, change, message):
    config = json.loads((UNSEEN / "llama-2-7b-hf.json").read_text())
    config.update(change)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    with pytest.raises(ConfigNotUnderstood) as caught:
        import_config(read_config(path), registry)
    assert str(caught.value) == f"cannot size this model safely:\n  {message}"


def test_nas_block_configs_are_refused_by_name(registry):
    with pytest.raises(ConfigNotUnderstood, match="block_configs .per-layer NAS blocks. are "
                                                  "not understood"):
        import_config(read_config(CONFIGS / "nvidia__Llama-3_3-Nemotron-Super-49B-v1.json"),
                      registry)


def test_import_cli_errors(tmp_path, capsys):
    from fitproof.cli import main

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "use_cla": True,
                                  "num_hidden_layers": 2, "vocab_size": 10,
                                  "num_attention_heads": 4, "intermediate_size": 8}))
    assert main(["import", "hf", str(config), "--id", "tiny", "--out", str(tmp_path),
                 "--no-plugins"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "fitproof: error: cannot size this model safely:",
        "  use_cla (cross-layer KV sharing) is not understood"]
    assert main(["import", "hf", str(tmp_path / "missing.json"), "--id", "x", "--out",
                 str(tmp_path), "--no-plugins"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["import", "hf", str(UNSEEN / "llama-2-7b-hf.json"), "--id", "Bad Id",
                 "--out", str(tmp_path), "--no-plugins"]) == 2
    assert "use lower-case letters" in capsys.readouterr().err
    with pytest.raises(InputError):
        read_config(config.parent)


# -- queries ---------------------------------------------------------------------------------
def test_models_on_hardware_lists_what_fits_largest_first(capsys):
    from fitproof.cli import main

    assert main(["models", "--on", "rtx-3090", "--json", "--no-plugins", "--profile", "seed"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["verdict"]["id"] in ("fits", "tight") for r in rows)
    sizes = [r["params_total"] for r in rows]
    assert sizes == sorted(sizes, reverse=True)
    assert rows[0]["model"] == "qwen3.5-35b-a3b" and rows[0]["total_gib"] == 21.28
    assert all(r["headroom_gib"] >= 0 for r in rows)
    assert "deepseek-v3" not in {r["model"] for r in rows}


def test_models_sorted_by_speed_and_including_misfits(capsys):
    from fitproof.cli import main

    assert main(["models", "--on", "rtx-3090", "--all", "--sort", "speed", "--json",
                 "--no-plugins"]) == 0
    rows = json.loads(capsys.readouterr().out)
    fitting = [r for r in rows if r["verdict"]["id"] != "exceeds"]
    speeds = [r["decode_tps"] for r in fitting]
    assert speeds == sorted(speeds, reverse=True)
    assert rows[len(fitting):] and all(r["verdict"]["id"] == "exceeds"
                                       for r in rows[len(fitting):])


@pytest.mark.parametrize(("argv", "expected"), [
    (["deepseek"], {"deepseek-v3", "deepseek-r1", "deepseek-v3.1", "deepseek-v3.2",
                    "deepseek-r1-distill-qwen-32b", "deepseek-r1-distill-llama-8b"}),
    (["--family", "mla"], {"deepseek-v3", "deepseek-r1", "deepseek-v3.1", "deepseek-v3.2",
                           "kimi-k2-instruct"}),
    (["qwen3", "--max-params", "2B"], {"qwen3-0.6b", "qwen3-1.7b"}),
    (["llama", "--min-params", "100B"], {"llama-3.1-405b"}),
])
def test_model_search(capsys, argv, expected):
    from fitproof.cli import main

    assert main(["models", *argv, "--json", "--no-plugins"]) == 0
    found = {r["model"] for r in json.loads(capsys.readouterr().out)}
    assert expected <= found
    if argv[0] != "--family":
        assert found - expected <= {m for m in found if "llama-4" in m or "gemma" in m
                                    or "nemotron" in m}


def test_unknown_family(capsys):
    from fitproof.cli import main

    assert main(["models", "--family", "rwkv", "--no-plugins"]) == 2
    assert capsys.readouterr().err.startswith("fitproof: error: unknown family 'rwkv'; "
                                              "choose one of")


def test_a_window_without_layer_types_slides_every_layer_for_the_engines_that_apply_it(tmp_path):
    """Mistral 7B v0.1's config gives sliding_window and no layer_types: the import is not
    refused; every layer slides under vLLM, which applies the window, and llama.cpp, which
    runs the GGUF as a llama model, caches the whole context (the importer pack's rule)."""
    from fitproof.cli import main

    assert main(["import", "hf", str(UNSEEN / "mistral-7b-v0.1.json"), "--id", "mistral-7b-v0.1",
                 "--out", str(tmp_path), "--no-plugins"]) == 0
    text = (tmp_path / "mistral-7b-v0.1.yaml").read_text(encoding="utf-8")
    assert "sliding_window_engines: [vllm]" in text or "- vllm" in text
    registry = fitproof.load_registry([tmp_path], plugins=False)
    model = registry.models["mistral-7b-v0.1"]
    assert model.family == "sliding-window"
    assert int(model.sliding_attention_layers.value) == 32 and model.sliding_window.value == 4096
    common = dict(registry=registry, context=32768)
    llama = fitproof.estimate("mistral-7b-v0.1", "h100-80gb-sxm", quant="BF16", **common)
    vllm = fitproof.estimate("mistral-7b-v0.1", "h100-80gb-sxm", quant="BF16", engine="vllm",
                             **common)
    # 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes = 128 KiB a token
    assert llama.value("kv_cache_gib") == pytest.approx(32768 * 131072 / 2**30, abs=0.02)
    # vLLM: the window plus one forward pass (8192 tokens on a device of 70 GiB or more)
    assert vllm.value("ubatch_tokens") == 8192
    window = math.ceil((4096 + 8192) / 16) * 16
    assert vllm.value("kv_cache_gib") < llama.value("kv_cache_gib") / 2
    assert vllm.value("kv_cache_gib") == pytest.approx(window * 131072 / 2**30, abs=0.02)


def test_size_bounds_include_a_model_of_exactly_that_size(registry):
    """--min-params and --max-params are inclusive: a model of exactly the bound is listed."""
    listed = fitproof.api.models(registry).rows
    model = next(r for r in listed if r.params_total)
    size = model.params_total
    at_least = {r.model for r in fitproof.api.models(registry, min_params=size).rows}
    at_most = {r.model for r in fitproof.api.models(registry, max_params=size).rows}
    assert model.model in at_least and model.model in at_most
    assert all(r.params_total >= size for r in fitproof.api.models(registry, min_params=size).rows)
