"""Weight formats as block layouts and tensor mixes, checked against real files.

tests/data/gguf-file-sizes.csv holds published GGUF file sizes, each with its source (the
line of ../shared/reference/measurements/calibration.csv it was copied from and the page
that lists the file; rows without a calibration line were read from the publisher's
model card, cited by URL). Llama-3-8B and Llama-3-70B files are compared with the Llama 3.1
packs: the 3.1 models have the same tensor shapes (vocabulary 128,256, the same widths and
layer counts), so their files have the same size at the same format.
"""

from __future__ import annotations

import csv
import textwrap
from pathlib import Path

import pytest

import fitproof

from .conftest import write_pack

SIZES = Path(__file__).parent / "data" / "gguf-file-sizes.csv"
UNIT_BYTES = {"bytes": 1, "MiB": 2**20, "GB": 1e9, "GiB": 2**30}


def file_sizes() -> list[dict[str, str]]:
    with SIZES.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def measured() -> fitproof.Registry:
    return fitproof.load_registry(plugins=False, profile="measured")


@pytest.mark.parametrize("row", file_sizes(), ids=lambda r: f"{r['model']}-{r['quant']}-{r['calibration_line']}")
def test_weights_within_2_percent_of_the_published_file(measured, row):
    estimate = fitproof.estimate(row["model"], "h100-80gb-sxm", quant=row["quant"], registry=measured)
    predicted = estimate.value("weights_gib") * 2**30
    real = float(row["size"]) * UNIT_BYTES[row["unit"]]
    assert predicted == pytest.approx(real, rel=0.02), row["source"]


def test_every_size_row_cites_its_source():
    for row in file_sizes():
        assert row["source"].startswith("https://")
        assert row["calibration_line"] == "" or row["calibration_line"].isdigit()


def test_every_gguf_format_is_checked_on_two_models(registry):
    """Each llama.cpp format is compared with published files of at least two models
    (F32, four bytes a weight with nothing to mix, has one published file in the data)."""
    models: dict[str, set[str]] = {}
    for row in file_sizes():
        models.setdefault(row["quant"], set()).add(row["model"])
    # UD-Q2_K_XL is Unsloth's per-model dynamic mix, sized by the seed pages' fitted rate:
    # no standard tensor mix to compare with a file
    gguf = [fid for fid, (fmt, pack) in registry.quant_formats.items()
            if "llama.cpp" in (fmt.engines or ()) and fid not in ("F32", "UD-Q2_K_XL")]
    thin = {fid: sorted(models.get(fid, ())) for fid in gguf if len(models.get(fid, ())) < 2}
    assert thin == {}


def test_the_seed_profile_keeps_its_fitted_bits(registry, measured):
    # the seed pages' Q4_K_M figure is a fit (4.85 bpw body); the measured profile counts
    # Q4_K blocks (144 bytes per 256 weights) with llama.cpp's Q6_K tensors
    seed = fitproof.estimate("llama-3.1-8b", "h100-80gb-sxm", quant="Q4_K_M", registry=registry)
    real = fitproof.estimate("llama-3.1-8b", "h100-80gb-sxm", quant="Q4_K_M", registry=measured)
    assert seed.value("weights_gib") == 4.74
    assert real.value("weights_gib") == 4.58


def test_bits_per_weight_come_from_the_block_layout(registry):
    fmt, _ = registry.quant_formats["Q4_K_S"]
    assert fmt.bpw_attn.value == 4.5                      # Q4_K: 144 bytes / 256 weights
    assert fmt.bpw_output.value == 6.5625                 # Q6_K: 210 bytes / 256 weights
    assert fmt.bpw_attn_v_more.value == 5.5               # Q5_K: 176 bytes / 256 weights
    assert fmt.bpw_norm.value == 32
    assert fmt.bpw_attn.note == "Q4_K: 144 bytes per 256 weights x 8 bits"
    assert fmt.bpw_attn.source[0].startswith("packs/quantizations/block-types.yaml:")


def test_hand_computed_q2_k_of_an_8b_llama(measured):
    # embedding Q2_K (2.625), output Q6_K (6.5625), q/k Q2_K, v Q4_K (4.5), o Q3_K (3.4375),
    # gate/up Q2_K, down Q3_K, norms F32, for Llama 3.1 8B's shapes
    vocab, hidden, layers, kv, ffn = 128256, 4096, 32, 1024, 14336
    bits = (vocab * hidden * (2.625 + 6.5625)
            + layers * (hidden * (hidden + kv) * 2.625 + hidden * kv * 4.5
                        + hidden * hidden * 3.4375 + 2 * hidden * ffn * 2.625
                        + ffn * hidden * 3.4375)
            + (2 * layers + 1) * hidden * 32)
    estimate = fitproof.estimate("llama-3.1-8b", "h100-80gb-sxm", quant="Q2_K", registry=measured)
    assert estimate.value("weights_gib") == round(bits / 8 / 2**30, 2) == 2.95


@pytest.mark.parametrize("tensors, message", [
    ("{default: Q4_K, output: Q6_KK}", "formats.Q9.tensors.output: unknown block type 'Q6_KK'; did you mean 'Q6_K'?"),
    ("{output: Q6_K}", "formats.Q9.tensors: tensors name no type for token_embd, attn, attn_v, "
                       "attn_v_more, attn_output, ffn, ffn_down, ffn_down_more, experts, "
                       "experts_down, experts_down_more, norm; add 'default'"),
])
def test_a_format_naming_unknown_or_too_few_types(tmp_path, tensors, message):
    write_pack(tmp_path, "q9.yaml", textwrap.dedent(f"""\
        kind: quantization
        id: q9
        name: Q9
        source: test
        formats:
          Q9:
            bits: 9
            tensors: {tensors}
        """))
    with pytest.raises(fitproof.PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False)
    assert [str(p).replace(f"{tmp_path}/", "") for p in caught.value.problems] == [f"q9.yaml:8: {message}"]


def test_an_experts_only_format_on_a_dense_model_is_one_line_exit_2(capsys):
    from fitproof.cli import main
    code = main(["estimate", "llama-3.1-8b", "--on", "h100-80gb-sxm", "--quant", "MXFP4",
                 "--no-plugins"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.splitlines() == ["fitproof: error: MXFP4 quantizes only the routed experts, and "
                                "Llama 3.1 8B has none; choose a format for dense models"]


def test_native_is_the_checkpoint_format_the_model_pack_records(measured):
    gpt = fitproof.estimate("gpt-oss-120b", "h100-80gb-sxm", quant="native", registry=measured)
    assert gpt.scenario.quant == "MXFP4"
    origin = gpt.scenario.origins["quant"]
    assert origin.file == "packs/models/gpt-oss-120b.yaml" and origin.path == ("checkpoint_format",)
    # the MXFP4 routed experts (17 bytes per 32 weights) plus every other tensor in BF16
    assert gpt.value("weights_gib") == 60.71
    llama = fitproof.estimate("llama-3.1-8b", "h100-80gb-sxm", quant="native", registry=measured)
    assert llama.scenario.quant == "BF16"


def test_a_checkpoint_format_naming_no_format(tmp_path):
    text = (Path(__file__).parent.parent / "packs" / "models" / "gpt-oss-20b.yaml").read_text()
    write_pack(tmp_path, "gpt-oss-20b-copy.yaml", text.replace("checkpoint_format: MXFP4",
                                                          "checkpoint_format: MXFP5")
               .replace("id: gpt-oss-20b", "id: gpt-oss-20b-copy").replace('aliases: ["gpt-oss 20b"]', "")
               # a second pack may not claim the model's repository (a name it answers to)
               .replace("hf_repo: openai/gpt-oss-20b", "hf_repo: someone/gpt-oss-20b-copy"))
    with pytest.raises(fitproof.PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False)
    line = text.splitlines().index("checkpoint_format: MXFP4") + 1
    assert [str(p).replace(f"{tmp_path}/", "") for p in caught.value.problems] == [
        f"gpt-oss-20b-copy.yaml:{line}: checkpoint_format: unknown format 'MXFP5'; "
        "did you mean 'MXFP4'?"]


# -- checkpoints as published ------------------------------------------------------------

def test_deepseek_checkpoint_holds_the_main_model_and_its_mtp_module(measured):
    # DeepSeek-V3 README (reference/hf-configs/INDEX.md): 685B on Hugging Face = 671B of
    # the main model + 14B of the MTP module
    result = fitproof.estimate("deepseek-r1", "h200-141gb-sxm", quant="native",
                               registry=measured)
    assert result.scenario.quant == "FP8-B128"
    assert result.value("params_total") == pytest.approx(671e9, rel=0.005)
    assert result.value("checkpoint_params") == pytest.approx(685e9, rel=0.005)
    assert result.value("mtp_params") == pytest.approx(14e9, rel=0.05)  # "14B": rounded
    # what an engine loads leaves the MTP module out
    assert result.value("checkpoint_gib") > result.value("weights_gib")


@pytest.mark.parametrize(("config", "expected"), [
    ("deepseek-ai__DeepSeek-R1.json", "FP8-B128"),
    ("moonshotai__Kimi-K2-Instruct.json", "FP8-B128"),
    ("openai__gpt-oss-120b.json", "MXFP4"),
    ("nvidia__MiniMax-M2.5-NVFP4.json", "NVFP4-EXPERTS"),
    ("meta-llama__Llama-3.1-8B-Instruct.json", None),
])
def test_import_reads_the_checkpoint_format(registry, config, expected):
    from fitproof.importers.huggingface import import_config, read_config

    path = Path(__file__).parent / "data" / "hf-configs" / config
    fields = import_config(read_config(path), registry).fields
    assert fields.get("checkpoint_format") == expected


@pytest.mark.parametrize(("quantization", "expected"), [
    ({"quant_method": "gptq", "bits": 4, "group_size": 128}, "GPTQ-INT4"),
    ({"quant_method": "gptq", "bits": 4, "group_size": 32}, "GPTQ-INT4-G32"),
    ({"quant_method": "awq", "bits": 4, "group_size": 128}, "AWQ-INT4"),
    ({"quant_method": "fp8"}, "FP8"),
    ({"quant_method": "bitsandbytes", "bnb_4bit_quant_type": "nf4"}, "NF4"),
    ({"quant_algo": "NVFP4"}, "NVFP4"),
    ({"config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "float",
                                                 "group_size": 16}}}, "ignore": ["lm_head"]},
     "NVFP4"),
    ({"quant_method": "hqq", "nbits": 3}, None),
])
def test_quantization_config_rules(registry, quantization, expected):
    import json

    from fitproof.importers.huggingface import import_config, read_config

    path = Path(__file__).parent / "data" / "hf-configs" / "meta-llama__Llama-3.1-8B-Instruct.json"
    config = json.loads(path.read_text())
    config["quantization_config"] = quantization
    imported = import_config(config, registry)
    assert imported.fields.get("checkpoint_format") == expected
    if expected is None:
        assert any("matches no checkpoint format" in note for note in imported.notes)
    else:
        assert expected in registry.quant_formats
