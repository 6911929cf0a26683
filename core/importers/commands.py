"""``fitproof import``: model packs from a config.json, a GGUF header or a Hub repository by
name, validated and written without overwriting by accident. The public API re-exports
these functions (``fitproof.api.import_hf`` …)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..errors import InputError
from ..registry.index import Registry
from .hub import HubModel


def import_hf(path: str, registry: Registry, *, model_id: str, out: str,
              name: str | None = None, source: str | None = None,
              hf_repo: str | None = None, force: bool = False) -> Path:
    """``fitproof import hf``: a model pack from a Hugging Face ``config.json``; its path."""
    from .huggingface import import_config, model_pack_text, read_config
    from .writer import check_text, write_pack

    check_text({"--id": model_id, "--out": out, "--name": name, "--source": source,
                "--hf-repo": hf_repo})
    imported = import_config(read_config(path), registry)
    text = model_pack_text(model_id, name or model_id, source or path, imported, hf_repo)
    return write_pack(text, out, model_id, force=force)


def is_hub_repository(name: str) -> bool:
    """Whether ``name`` reads as a Hugging Face repository (ORG/NAME) and names no local
    file: what ``import hf`` and ``--fetch`` read from the Hub."""
    from .hub import is_repo_id

    return is_repo_id(name)


class HubImport(NamedTuple):
    """What ``fitproof import hf ORG/NAME`` did: the pack written (``None`` when a loaded
    pack already records the repository), that pack's id, and what the Hub gave."""

    path: Path | None
    model_id: str
    hub: HubModel | None


def import_hub(repo_id: str, registry: Registry, *, model_id: str | None = None,
               out: str | None = None, name: str | None = None,
               revision: str | None = None, force: bool = False) -> HubImport:
    """``fitproof import hf ORG/NAME``: the config and checkpoint headers of a Hub
    repository (network, or huggingface_hub's cache), written as a model pack into ``out``
    (default: the user's pack folder, which every later load reads). A repository a loaded
    pack already records is not fetched again unless ``model_id`` or ``force`` says so."""
    from .hub import fetch_model, user_models_folder
    from .huggingface import import_config, model_pack_text
    from .writer import check_text, write_pack

    check_text({"--id": model_id, "--out": out, "--name": name, "--revision": revision})
    known = registry.known("model", repo_id)
    if known and model_id is None and not force:
        return HubImport(None, known[0], None)
    out = str(user_models_folder()) if out is None else out
    pack_id = model_id or repo_id.split("/", 1)[1].lower()
    taken = registry.models.get(pack_id)
    if taken is not None and not force and getattr(taken, "hf_repo", None) != repo_id:
        raise InputError(f"model id {pack_id!r} is taken by {taken.pack.path}; pass --id to "
                         "import under another id")
    hub = fetch_model(repo_id, revision)
    imported = import_config(hub.config, registry)
    notes = list(hub.notes)
    if hub.checkpoint_params:
        notes.append(f"checkpoint_params: the safetensors headers of {hub.checkpoint_files} "
                     f"file(s) at commit {hub.commit} (informative: the weights are sized "
                     "from the architecture)")
    text = model_pack_text(pack_id, name or repo_id.split("/", 1)[1], hub.config_url, imported,
                           repo_id, origin=f"config of {repo_id} by `fitproof import hf`",
                           notes=notes, checkpoint_params=hub.checkpoint_params)
    return HubImport(write_pack(text, out, pack_id, force=force), pack_id, hub)


def import_gguf(path: str, registry: Registry, *, model_id: str, out: str,
                name: str | None = None, source: str | None = None, hf_repo: str | None = None,
                quant: str | None = None, force: bool = False,
                revision: str | None = None) -> Path:
    """``fitproof import gguf``: a model pack from a GGUF file's header (a file, or an
    ``https://`` or ``hf://`` address whose header is read with range requests); its path."""
    from .gguf import import_gguf as read
    from .gguf_remote import fetched_headers, is_remote
    from .writer import check_text, write_pack

    check_text({"--id": model_id, "--out": out, "--name": name, "--source": source,
                "--hf-repo": hf_repo, "--quant": quant, "--revision": revision})
    if not is_remote(path):
        text = read(path, registry, model_id=model_id, name=name, source=source,
                    hf_repo=hf_repo, quant=quant)
        return write_pack(text, out, model_id, force=force)
    with fetched_headers(path, revision) as local:
        try:
            text = read(local, registry, model_id=model_id, name=name, source=source or path,
                        hf_repo=hf_repo, quant=quant)
        except InputError as exc:  # named by the address, not by the stand-in's folder
            message = str(exc).replace(str(local.parent), path.rsplit("/", 1)[0])
            raise type(exc)(message) from None
    return write_pack(text, out, model_id, force=force)


def bench_ingest(paths: list[str], registry: Registry, *, model: str | None = None,
                 quant: str | None = None, hardware: str | None = None,
                 gpus: int | None = None, engine: str | None = None,
                 pack_id: str | None = None, out: str | None = None,
                 force: bool = False) -> tuple[Path, str, dict[str, int]]:
    """``fitproof bench ingest``: llama-bench, vllm bench serve and SGLang bench_serving
    outputs as a measurement pack, written into ``out`` (default: the user's pack folder,
    which every load reads); the pack's path, its id, and why results were left out."""
    import json
    import re

    from .bench import Choices, model_of, read_results, read_text, rows_of
    from .config_file import file_uri
    from .hub import user_pack_folder_or_error
    from .serving_bench import is_serving_output, read_runs, serving_rows
    from .writer import check_text, write_pack

    check_text({"--model": model, "--quant": quant, "--on": hardware, "--id": pack_id,
                "--out": out, "--engine": engine})
    if not paths:
        raise InputError("name at least one benchmark output file")
    choices = Choices(model, quant, hardware, gpus)
    results, rows = [], []
    for name in paths:
        text = read_text(Path(name))
        if not is_serving_output(text):
            results += read_results(Path(name), text)
            continue
        for run in read_runs(Path(name), text):
            if not hardware or not quant:
                raise InputError(f"{run.where}: a serving benchmark names no device or weight "
                                 "format; pass --on and --quant (and --gpus, the tensor-parallel "
                                 "size)")
            rows += serving_rows(
                run, model=model_of(run.where, run.fields.get("model_id") or
                                    run.fields.get("model"), registry, choices),
                hardware=registry.resolve("hardware", hardware),
                quant=registry.resolve("quant", quant),
                engine=registry.resolve("engine", engine or run.engine or "vllm"),
                gpus=gpus or 1)
    llama_rows, left_out = rows_of(results, registry, choices)
    rows += llama_rows
    if not rows:
        reasons = "; ".join(f"{n} {why}" for why, n in left_out.most_common())
        raise InputError(f"no result of {', '.join(paths)} is a scenario fitproof models"
                         + (f" ({reasons})" if reasons else ""))
    stem = re.sub(r"[^a-z0-9._-]+", "-", Path(paths[0]).stem.lower()).strip("-._") or "run"
    pack_id = pack_id or f"bench-{stem}"
    folder = out or str(user_pack_folder_or_error() / "measurements")
    lines = ["# written by fitproof bench ingest; the source of each row is the file it was "
             "read from",
             "kind: measurements", f"id: {pack_id}", f"name: {json.dumps(f'Your runs: {stem}')}",
             "description: >-",
             "  Benchmark results ingested by fitproof bench ingest: each row the scenario of "
             "one",
             "  result, its build and date where the output states them.",
             "source:"] + [f"  - {json.dumps(file_uri(Path(p)))}" for p in paths] + \
        ["rows:"] + [f"  - {json.dumps(row, ensure_ascii=False)}" for row in rows]
    path = write_pack("\n".join(lines) + "\n", folder, pack_id, force=force)
    return path, pack_id, dict(left_out)
