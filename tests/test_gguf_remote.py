"""``fitproof import gguf URL``: a remote GGUF's header read with range requests from a hub
on loopback (``tests/hub_server.py``) writes the pack the local import of the same files
writes, fetching the header and no tensor data."""

from __future__ import annotations

import pytest

import fitproof
from fitproof import api
from fitproof.importers import gguf_remote

from .hub_server import Repo, serving
from .test_gguf_import import build

pytestmark = pytest.mark.slow


@pytest.fixture
def hub_endpoint(monkeypatch):
    """Point huggingface_hub at a loopback hub (its ENDPOINT is read when it is imported),
    and read remote files in 4 KB blocks, so a header takes several range requests."""
    from huggingface_hub import constants

    monkeypatch.setattr(gguf_remote, "BLOCK", 4096)

    def point(endpoint: str) -> None:
        monkeypatch.setattr(constants, "ENDPOINT", endpoint)

    return point


def _model_files(tmp_path):
    (tmp_path / "split").mkdir()
    build(tmp_path / "split" / "tiny.gguf", split_max_tensors=8)
    build(tmp_path / "tiny.gguf")
    shards = {p.name: p.read_bytes() for p in sorted((tmp_path / "split").iterdir())}
    return (tmp_path / "tiny.gguf").read_bytes(), shards


def _pack_lines(path):
    return [line for line in path.read_text().splitlines() if not line.startswith("source:")]


@pytest.mark.parametrize("address", [
    "hf://acme/tiny-GGUF/tiny.gguf",
    "{endpoint}/acme/tiny-GGUF/resolve/main/tiny.gguf",
    "{endpoint}/acme/tiny-GGUF/blob/main/tiny.gguf",
    "hf://acme/tiny-GGUF/tiny-00002-of-00003.gguf",
])
def test_a_remote_gguf_imports_as_the_local_file_does(tmp_path, hub_endpoint, address):
    single, shards = _model_files(tmp_path)
    registry = fitproof.load_registry(plugins=False)
    local = api.import_gguf(str(tmp_path / "tiny.gguf"), registry, model_id="tiny",
                            out=str(tmp_path / "local"))
    with serving({"acme/tiny-GGUF": Repo({"tiny.gguf": single, **shards})}) as hub:
        hub_endpoint(hub.endpoint)
        url = address.format(endpoint=hub.endpoint)
        remote = api.import_gguf(url, registry, model_id="tiny", out=str(tmp_path / "remote"))
    text = remote.read_text()
    assert f'source: "{url}"' in text or f"source: {url}" in text
    if "of-0000" in url:  # the split model: the single file's figures, its own notes
        def figures(path):
            return [l for l in _pack_lines(path) if not l.startswith(("notes", "  - "))]

        assert figures(remote) == figures(local)
        assert "GET /acme/tiny-GGUF/resolve/main/tiny-00003-of-00003.gguf" in hub.requests
    else:
        assert _pack_lines(remote) == _pack_lines(local)
    # the header only: the tensor data (most of each file) is never sent
    served = len(single) if "of-0000" not in url else sum(map(len, shards.values()))
    assert hub.served_bytes < served


def test_a_server_without_ranges_is_refused_before_the_file_is_read(tmp_path, hub_endpoint):
    single, _ = _model_files(tmp_path)
    registry = fitproof.load_registry(plugins=False)
    with serving({"acme/whole": Repo({"tiny.gguf": single}, no_ranges=True)}) as hub:
        hub_endpoint(hub.endpoint)
        with pytest.raises(fitproof.errors.InputError) as caught:
            api.import_gguf("hf://acme/whole/tiny.gguf", registry, model_id="tiny",
                            out=str(tmp_path / "out"))
    assert str(caught.value) == (f"{hub.endpoint}/acme/whole/resolve/main/tiny.gguf: the server "
                                 "does not answer byte ranges; fitproof reads only a GGUF's "
                                 "header, never the whole file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("files, url, message", [
    ({}, "hf://acme/tiny-GGUF/missing.gguf", "acme/tiny-GGUF has no missing.gguf"),
    ({"tiny-00001-of-00002.gguf": b"GGUF"}, "hf://acme/tiny-GGUF/tiny-00001-of-00002.gguf",
     "hf://acme/tiny-GGUF/tiny-00001-of-00002.gguf: not a readable GGUF file (the version "
     "needs 4 bytes; 0 are left in the file)"),
    ({"bad.gguf": b"NOPE" + bytes(64)}, "hf://acme/tiny-GGUF/bad.gguf",
     "hf://acme/tiny-GGUF/bad.gguf: not a readable GGUF file (does not start with the GGUF "
     "magic number)"),
])
def test_remote_failures_are_one_line(tmp_path, hub_endpoint, files, url, message):
    registry = fitproof.load_registry(plugins=False)
    with serving({"acme/tiny-GGUF": Repo(files)}) as hub:
        hub_endpoint(hub.endpoint)
        with pytest.raises(fitproof.errors.InputError) as caught:
            api.import_gguf(url, registry, model_id="x", out=str(tmp_path / "out"))
    assert str(caught.value) == message
    assert not (tmp_path / "out").exists()


def test_addresses_that_are_not_a_gguf_are_refused(tmp_path):
    registry = fitproof.load_registry(plugins=False)
    for url, message in (
            ("hf://acme/../x.gguf", "hf://acme/../x.gguf: not an "
                                    "hf://ORG/NAME[@REVISION]/FILE.gguf address"),
            ("https://example.invalid/model.bin", "https://example.invalid/model.bin: not the "
                                                  "address of a .gguf file")):
        with pytest.raises(fitproof.errors.InputError) as caught:
            api.import_gguf(url, registry, model_id="x", out=str(tmp_path))
        assert str(caught.value) == message
