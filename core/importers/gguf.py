"""``fitproof import gguf``: a model pack from a GGUF file's header, with its exact size.

The header gives the architecture (keys named in ``packs/importers/gguf.yaml``) and every
tensor's type and byte size, so the pack records the file's exact weight bytes for its
quantization instead of a bits-per-weight estimate. Only the header is read (memory-mapped);
tensor data is never touched. A model split by llama.cpp's gguf-split (or gguf-py's writer)
into ``NAME-0000K-of-0000N.gguf`` files is read as one: the metadata from shard 1, the
tensors from every shard, found beside the one named (any of them).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..files.pack_files import NotARegularFile, open_regular
from ..registry.index import Registry
from ..specs import ImporterPack
from .gguf_header import HeaderError, check_header
from .huggingface import ConfigNotUnderstood, ImportedModel, family_of, model_pack_text

if TYPE_CHECKING:
    from gguf import GGUFReader, ReaderField


def _value(field: ReaderField) -> Any:
    """A metadata value as plain Python (str, int, float, bool or a list)."""
    from gguf import GGUFValueType

    if field.types and field.types[0] == GGUFValueType.ARRAY:
        return field.contents()
    return field.contents()


def read_gguf(path: str | Path) -> GGUFReader:
    """Open a GGUF file's header; raise :class:`InputError` if it is not one."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"cannot read {path}: no such file")
    try:
        descriptor, info = open_regular(path)
    except NotARegularFile as exc:
        raise InputError(f"{path} {exc}; a GGUF file is read from disk") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with os.fdopen(descriptor, "rb") as stream:
        try:
            check_header(stream, info.st_size)
        except (HeaderError, OSError) as exc:
            raise InputError(f"{path}: not a readable GGUF file ({exc})") from None
    try:
        from gguf import GGUFReader
    except ImportError:
        raise InputError("fitproof import gguf reads headers with the gguf package: "
                         "pip install 'fitproof[gguf]' (or pip install gguf)") from None
    try:
        return GGUFReader(path)
    except Exception as exc:  # gguf raises ValueError/struct errors on anything not GGUF
        raise InputError(f"{path}: not a readable GGUF file ({exc})") from None


# llama.cpp's llama_split_path: "%s-%05d-of-%05d.gguf" with the 1-based shard number
SHARD_NAME = re.compile(r"(?P<stem>.+)-(?P<no>[0-9]{5})-of-(?P<count>[0-9]{5})\.gguf")


def shard_names(name: str) -> list[str]:
    """The file names of the model whose file is called ``name``: the name itself, or every
    shard of a split model (shard 1 first) where it is a shard's; a shard number beyond the
    count is an :class:`InputError` (its message names no file: the caller's does)."""
    match = SHARD_NAME.fullmatch(name)
    if match is None:
        return [name]
    count = int(match["count"])
    if not 1 <= int(match["no"]) <= count:
        raise InputError(f"a split model has no shard {int(match['no'])} of {count}")
    return [f"{match['stem']}-{no:05d}-of-{count:05d}.gguf" for no in range(1, count + 1)]


def shard_paths(path: str | Path) -> list[Path]:
    """The files of the model at ``path`` (:func:`shard_names`, beside it); a missing shard
    is an :class:`InputError`."""
    path = Path(path)
    try:
        paths = [path.with_name(name) for name in shard_names(path.name)]
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    for no, shard in enumerate(paths, 1):
        if len(paths) > 1 and not shard.exists():
            raise InputError(f"cannot read {shard}: no such file (shard {no} of the "
                             f"{len(paths)} of this split model)")
    return paths


def _check_shards(paths: list[Path], metas: list[dict[str, Any]], tensors: int) -> None:
    """The split keys gguf-split writes (split.no from 0, split.count, split.tensors.count in
    every shard) agree with the shards' names and the tensors found."""
    for no, (shard, meta) in enumerate(zip(paths, metas)):
        stated = (meta.get("split.no", 0), meta.get("split.count", 1))
        if stated != (no, len(paths)):
            named = f"shard {no + 1} of {len(paths)}" if len(paths) > 1 else "no shard"
            raise InputError(f"{shard}: its header says shard {stated[0] + 1} of {stated[1]} "
                             f"(split.no, split.count), its name {named} "
                             "(NAME-0000K-of-0000N.gguf)")
        expected = meta.get("split.tensors.count", tensors)
        if expected != tensors:
            raise InputError(f"{shard}: split.tensors.count is {expected}, the {len(paths)} "
                             f"shards hold {tensors} tensors")


def import_gguf(path: str | Path, registry: Registry, *, model_id: str, name: str | None = None,
                source: str | None = None, hf_repo: str | None = None,
                quant: str | None = None) -> str:
    """YAML text of a model pack for the GGUF file at ``path``."""
    mapping = registry.importers.get("gguf")
    if mapping is None:
        raise InputError("no importer pack 'gguf' is loaded")
    paths = shard_paths(path)
    readers = [read_gguf(shard) for shard in paths]
    metas = [{key: _value(field) for key, field in r.fields.items() if not key.startswith("GGUF.")}
             for r in readers]
    tensors = [tensor for r in readers for tensor in r.tensors]
    _check_shards(paths, metas, len(tensors))
    meta = metas[0]
    arch = meta.get("general.architecture")
    if not isinstance(arch, str):
        raise ConfigNotUnderstood(f"{path}: general.architecture is missing")
    problems: list[str] = []
    used: set[str] = {"general.architecture"}

    def key(template: str) -> str:
        return template.replace("{arch}", arch)

    def get(template: str) -> Any:
        k = key(template)
        if k in meta:
            used.add(k)
            value = meta[k]
            if isinstance(value, list):
                if len(set(value)) != 1:
                    problems.append(f"{k} differs between layers; per-layer sizes are not "
                                    "understood")
                    return None
                return value[0]
            return value
        return None

    fields: dict[str, Any] = {}
    for field, keys in mapping.fields.items():
        for template in keys:
            value = get(template)
            if value is not None:
                fields[field] = value
                break
    if "vocab_size" not in fields:
        tokens = meta.get("tokenizer.ggml.tokens")
        if isinstance(tokens, list):
            fields["vocab_size"] = len(tokens)
    names = {t.name for t in tensors}
    fields["tie_word_embeddings"] = "output.weight" not in names
    layers = int(fields.get("num_hidden_layers") or 0)
    ffn = get("{arch}.feed_forward_length")
    value_length = get("{arch}.attention.value_length")
    if value_length is not None and value_length != fields.get("head_dim"):
        problems.append(f"{key('{arch}.attention.value_length')} differs from key_length; "
                        "not understood")
    if fields.get("num_experts"):
        dense = int(get("{arch}.leading_dense_block_count") or 0)
        fields["dense_layers"], fields["moe_layers"] = dense, layers - dense
        if "moe_intermediate_size" not in fields:
            fields["moe_intermediate_size"] = ffn
        elif dense:
            fields["intermediate_size"] = ffn
        shared = get("{arch}.expert_shared_feed_forward_length")
        count = get("{arch}.expert_shared_count")
        if shared is None and count:
            shared = int(count) * int(fields["moe_intermediate_size"])
        fields["shared_expert_intermediate_size"] = int(shared or 0)
    else:
        fields["dense_layers"] = layers
        fields["intermediate_size"] = ffn
    for required in ("hidden_size", "num_hidden_layers", "vocab_size", "num_attention_heads"):
        if fields.get(required) is None:
            problems.append(f"the header gives no {required}")

    ignored = [key(p) for keys in mapping.ignored.values() for p in keys]
    structural = {key(k) for k in mapping.structure}
    for k in meta:
        if k in used or k in structural or any(fnmatch.fnmatchcase(k, p) for p in ignored):
            continue
        problems.append(f"GGUF key {k!r} is not understood")
    if problems:
        raise ConfigNotUnderstood("cannot size this model safely:\n  " + "\n  ".join(problems))

    quant = quant or _quant_of(meta.get("general.file_type"), mapping, path)
    registry.resolve("quant", quant)
    by_type: Counter[str] = Counter()
    for tensor in tensors:
        by_type[tensor.tensor_type.name] += int(tensor.n_bytes)
    total = sum(by_type.values())
    files = f"{len(paths)} shards'" if len(paths) > 1 else "file's"
    notes = (f"weights_bytes is the sum of the {files} tensor sizes ({len(tensors)} "
             f"tensors) read from {'their headers' if len(paths) > 1 else 'its header'}",
             f"GGUF architecture {arch!r}; tensor bytes by type: " +
             ", ".join(f"{t} {n:,}" for t, n in sorted(by_type.items())))
    imported = ImportedModel({"family": family_of(mapping, fields), **fields}, notes)
    text = model_pack_text(model_id, name or meta.get("general.name") or model_id,
                           source or str(paths[0] if len(paths) > 1 else path), imported,
                           hf_repo,
                           origin="GGUF header by `fitproof import gguf`")
    text += f"weights_bytes:\n  {quant}: {total}\n"
    text += "gguf_tensor_bytes:\n" + "".join(f"  {t}: {n}\n" for t, n in sorted(by_type.items()))
    return text


def _quant_of(file_type: Any, mapping: ImporterPack, path: str | Path) -> str:
    from gguf import LlamaFileType

    try:
        name = LlamaFileType(int(file_type)).name
    except (TypeError, ValueError):
        raise InputError(f"{path}: the header gives no known general.file_type; pass --quant") \
            from None
    if name not in mapping.file_types:
        raise InputError(f"{path}: file type {name} has no quantization pack; pass --quant with "
                         "the format's id")
    return mapping.file_types[name]
