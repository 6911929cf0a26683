"""``fitproof import gguf`` on small GGUF files built here with the gguf writer."""

from __future__ import annotations

import gguf
import numpy as np
import pytest

import fitproof
from fitproof.cli import main


def build(path, *, tie: bool = False, extra: dict | None = None, file_type=None,
          split_max_tensors: int = 0) -> int:
    """Write a two-layer Llama-shaped GGUF; return the sum of its tensor bytes and elements.
    With ``split_max_tensors`` the writer splits it as gguf-split does, into
    ``<stem>-0000K-of-0000N.gguf`` shards beside ``path`` (metadata in shard 1 only)."""
    from gguf import GGMLQuantizationType, GGUFWriter, quants

    writer = GGUFWriter(str(path), "llama", split_max_tensors=split_max_tensors)
    writer.add_name("Tiny Llama")
    writer.add_block_count(2)
    writer.add_embedding_length(64)
    writer.add_feed_forward_length(128)
    writer.add_head_count(4)
    writer.add_head_count_kv(2)
    writer.add_context_length(256)
    writer.add_vocab_size(96)
    writer.add_file_type(file_type or gguf.LlamaFileType.MOSTLY_Q8_0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(10000.0)
    for key, value in (extra or {}).items():
        writer.add_uint32(key, value)
    rng = np.random.default_rng(0)

    def q8(shape):
        data = rng.standard_normal(shape).astype(np.float32)
        return quants.quantize(data, GGMLQuantizationType.Q8_0)

    writer.add_tensor("token_embd.weight", q8((96, 64)), raw_dtype=GGMLQuantizationType.Q8_0)
    if not tie:
        writer.add_tensor("output.weight", q8((96, 64)), raw_dtype=GGMLQuantizationType.Q8_0)
    writer.add_tensor("output_norm.weight", np.ones(64, dtype=np.float32))
    for layer in range(2):
        for name, shape in (("attn_q", (64, 64)), ("attn_k", (32, 64)), ("attn_v", (32, 64)),
                            ("attn_output", (64, 64)), ("ffn_gate", (128, 64)),
                            ("ffn_up", (128, 64)), ("ffn_down", (64, 128))):
            writer.add_tensor(f"blk.{layer}.{name}.weight", q8(shape),
                              raw_dtype=GGMLQuantizationType.Q8_0)
        writer.add_tensor(f"blk.{layer}.attn_norm.weight", np.ones(64, dtype=np.float32))
        writer.add_tensor(f"blk.{layer}.ffn_norm.weight", np.ones(64, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    files = sorted(path.parent.glob(f"{path.stem}-*-of-*.gguf")) if split_max_tensors else [path]
    tensors = [t for f in files for t in gguf.GGUFReader(str(f)).tensors]
    return sum(int(t.n_bytes) for t in tensors), sum(int(t.n_elements) for t in tensors)


def test_import_records_the_exact_bytes(tmp_path, capsys):
    total_bytes, total_elements = build(tmp_path / "tiny.gguf")
    out = tmp_path / "packs"
    assert main(["import", "gguf", str(tmp_path / "tiny.gguf"), "--id", "tiny-llama",
                 "--out", str(out), "--no-plugins"]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out / 'tiny-llama.yaml'}"
    registry = fitproof.load_registry([out], plugins=False)
    model = registry.models["tiny-llama"]
    assert model.weights_bytes["Q8_0"].value == total_bytes
    assert model.gguf_tensor_bytes == {"F32": 5 * 64 * 4, "Q8_0": total_bytes - 5 * 64 * 4}
    assert not model.tie_word_embeddings

    exact = fitproof.estimate("tiny-llama", "rtx-3090", quant="Q8_0", registry=registry)
    estimated = fitproof.estimate("tiny-llama", "rtx-3090", quant="BF16", registry=registry)
    assert exact.evaluation.scalar("model.weights_bytes") == total_bytes
    assert np.isnan(estimated.evaluation.scalar("model.weights_bytes"))
    # the architecture formulas count exactly the tensors the file holds
    assert exact.value("params_total") == total_elements
    derivation = exact.derivation("weights_gib")
    leaf = next(d for d in derivation.inputs if d.name == "model.weights_bytes")
    lines = (out / "tiny-llama.yaml").read_text().splitlines()
    line = lines.index(f"  Q8_0: {total_bytes}") + 1
    assert leaf.value == total_bytes
    assert leaf.location == f"{out / 'tiny-llama.yaml'}:{line}"


def test_tied_embeddings_are_detected(tmp_path, registry):
    build(tmp_path / "tied.gguf", tie=True)
    from fitproof.importers.gguf import import_gguf

    text = import_gguf(tmp_path / "tied.gguf", registry, model_id="tied")
    assert "tie_word_embeddings: true" in text


def test_unknown_header_keys_are_named(tmp_path, registry):
    build(tmp_path / "odd.gguf", extra={"llama.mystery_width": 7})
    from fitproof.importers.gguf import import_gguf
    from fitproof.importers.huggingface import ConfigNotUnderstood

    with pytest.raises(ConfigNotUnderstood) as caught:
        import_gguf(tmp_path / "odd.gguf", registry, model_id="odd")
    assert str(caught.value) == ("cannot size this model safely:\n"
                                 "  GGUF key 'llama.mystery_width' is not understood")


def test_file_type_without_a_format_needs_quant(tmp_path, registry, capsys):
    build(tmp_path / "q2.gguf", file_type=gguf.LlamaFileType.MOSTLY_Q2_K)
    assert main(["import", "gguf", str(tmp_path / "q2.gguf"), "--id", "q2", "--out",
                 str(tmp_path), "--no-plugins"]) == 2
    assert "file type MOSTLY_Q2_K has no quantization pack; pass --quant" in \
        capsys.readouterr().err
    assert main(["import", "gguf", str(tmp_path / "q2.gguf"), "--id", "q2", "--out",
                 str(tmp_path), "--quant", "UD-Q2_K_XL", "--no-plugins"]) == 0


def test_not_a_gguf_file(tmp_path, capsys):
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"not a gguf file at all")
    assert main(["import", "gguf", str(path), "--id", "fake", "--out", str(tmp_path),
                 "--no-plugins"]) == 2
    assert "not a readable GGUF file" in capsys.readouterr().err


def test_without_the_gguf_package_the_command_says_what_to_install(tmp_path, monkeypatch,
                                                                    capsys):
    path = tmp_path / "model.gguf"
    build(path)
    monkeypatch.setitem(__import__("sys").modules, "gguf", None)  # as if not installed
    code = main(["import", "gguf", str(path), "--id", "x", "--out", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err == (
        "fitproof: error: fitproof import gguf reads headers with the gguf package: "
        "pip install 'fitproof[gguf]' (or pip install gguf)\n")


FIGURES = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
           "vocab_size", "max_position_embeddings", "intermediate_size", "tie_word_embeddings")


def _split(tmp_path):
    """The tiny model split into three shards (8, 8 and 5 tensors), and its single-file twin."""
    (tmp_path / "split").mkdir()
    total, elements = build(tmp_path / "split" / "tiny.gguf", split_max_tensors=8)
    assert (total, elements) == build(tmp_path / "tiny.gguf")
    shards = sorted((tmp_path / "split").iterdir())
    assert [s.name for s in shards] == [f"tiny-0000{k}-of-00003.gguf" for k in (1, 2, 3)]
    assert [len(gguf.GGUFReader(str(s)).tensors) for s in shards] == [8, 8, 5]
    return shards, total, elements


@pytest.mark.parametrize("shard", [0, 1], ids=["shard-1", "shard-2"])
def test_a_split_model_is_read_from_all_its_shards(tmp_path, capsys, shard):
    """Shard 1 holds the metadata, the tensors are summed over all three shards; naming any
    shard imports the whole model."""
    shards, total, elements = _split(tmp_path)
    out = tmp_path / "packs"
    assert main(["import", "gguf", str(shards[shard]), "--id", "tiny-split", "--out", str(out),
                 "--no-plugins"]) == 0
    assert main(["import", "gguf", str(tmp_path / "tiny.gguf"), "--id", "tiny-single", "--out",
                 str(out), "--no-plugins"]) == 0
    capsys.readouterr()
    registry = fitproof.load_registry([out], plugins=False)
    split, single = registry.models["tiny-split"], registry.models["tiny-single"]
    assert split.weights_bytes["Q8_0"].value == single.weights_bytes["Q8_0"].value == total
    assert split.gguf_tensor_bytes == single.gguf_tensor_bytes
    assert [getattr(split, f) for f in FIGURES] == [getattr(single, f) for f in FIGURES]
    assert (split.num_hidden_layers.value, split.hidden_size.value, split.vocab_size.value,
            split.max_position_embeddings.value) == (2, 64, 96, 256)
    assert "the 3 shards' tensor sizes (21 tensors)" in " ".join(split.notes)
    result = fitproof.estimate("tiny-split", "rtx-3090", quant="Q8_0", registry=registry)
    assert result.value("params_total") == elements


def test_a_missing_shard_is_named(tmp_path, capsys):
    shards, _, _ = _split(tmp_path)
    shards[2].unlink()
    assert main(["import", "gguf", str(shards[0]), "--id", "x", "--out", str(tmp_path / "out"),
                 "--no-plugins"]) == 2
    assert capsys.readouterr().err == (
        f"fitproof: error: cannot read {shards[2]}: no such file (shard 3 of the 3 of this "
        "split model)\n")
    assert not (tmp_path / "out").exists()


def test_a_shard_under_another_name_is_refused(tmp_path, capsys):
    """Shard 1 alone would size the model without the other shards' tensors."""
    shards, _, _ = _split(tmp_path)
    renamed = tmp_path / "renamed.gguf"
    renamed.write_bytes(shards[0].read_bytes())
    assert main(["import", "gguf", str(renamed), "--id", "x", "--out", str(tmp_path / "out"),
                 "--no-plugins"]) == 2
    assert capsys.readouterr().err == (
        f"fitproof: error: {renamed}: its header says shard 1 of 3 (split.no, split.count), "
        "its name no shard (NAME-0000K-of-0000N.gguf)\n")


def _header(*entries: bytes, tensors: int = 0) -> bytes:
    """A GGUF v3 header with ``entries`` (each a key, type and value, already packed)."""
    import struct

    return b"GGUF" + struct.pack("<IQQ", 3, tensors, len(entries)) + b"".join(entries)


def _key(name: str) -> bytes:
    import struct

    return struct.pack("<Q", len(name)) + name.encode()


@pytest.mark.parametrize("entries, message", [
    # an array of 2^60 bytes: the gguf reader would loop for minutes and fill memory
    ((_key("tokenizer.ggml.token_type") + (9).to_bytes(4, "little") + (0).to_bytes(4, "little")
      + (2**60).to_bytes(8, "little"),),
     "tokenizer.ggml.token_type (1,152,921,504,606,846,976 elements) needs "
     "1,152,921,504,606,846,976 bytes; 0 are left in the file"),
    ((_key("tokenizer.ggml.tokens") + (9).to_bytes(4, "little") + (8).to_bytes(4, "little")
      + (2**40).to_bytes(8, "little"),),
     "tokenizer.ggml.tokens claims 1,099,511,627,776 strings, more than the file can hold"),
    ((_key("general.name") + (8).to_bytes(4, "little") + (2**62).to_bytes(8, "little"),),
     "general.name needs 4,611,686,018,427,387,904 bytes; 0 are left in the file"),
    ((_key("general.x") + (99).to_bytes(4, "little"),),
     "general.x has value type 99, which GGUF does not define"),
])
def test_a_header_claiming_more_than_the_file_holds_is_refused_at_once(tmp_path, capsys,
                                                                      entries, message):
    from .conftest import watchdog

    path = tmp_path / "hostile.gguf"
    path.write_bytes(_header(*entries))
    with watchdog():
        code = main(["import", "gguf", str(path), "--id", "x", "--out", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err == (f"fitproof: error: {path}: not a readable GGUF file "
                                       f"({message})\n")


def test_a_header_with_impossible_counts_is_refused(tmp_path, capsys):
    path = tmp_path / "counts.gguf"
    path.write_bytes(_header(tensors=2**50))
    code = main(["import", "gguf", str(path), "--id", "x", "--out", str(tmp_path / "out")])
    assert code == 2
    assert "claims 1,125,899,906,842,624 tensors and 0 metadata entries" in \
        capsys.readouterr().err


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_import_gguf_never_reads_a_pipe_or_a_device(tmp_path, capsys, special):
    import os

    path = tmp_path / "model.gguf"
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    code = main(["import", "gguf", str(path), "--id", "x", "--out", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err == (f"fitproof: error: {path} is not a regular file (a "
                                       "device, pipe or socket); a GGUF file is read from disk\n")
