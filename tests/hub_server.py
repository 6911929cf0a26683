"""A Hugging Face Hub on loopback, for the tests of ``fitproof import hf ORG/NAME``.

It answers the way the Hub's file endpoint does, as huggingface_hub reads it
(``huggingface_hub/utils/_http.py`` ``hf_raise_for_status``; ``file_download.py``
``get_hf_file_metadata``): ``/{org}/{name}/resolve/{revision}/{file}`` with the
``X-Repo-Commit`` and ``ETag`` headers, byte ranges (``Range: bytes=a-b``, answered 206),
and errors as the Hub sends them: ``X-Error-Code: GatedRepo`` (403), ``RepoNotFound`` (401, as
the Hub answers a repository it will not name), ``RevisionNotFound`` and ``EntryNotFound``
(404). A repository may also be ``slow`` (never answers within the client's timeout),
``truncated`` (a body shorter than its Content-Length) or ``no_ranges`` (the whole file
whatever range is asked). Every request is logged, so a test can
say how many reached the server.
"""

from __future__ import annotations

import hashlib
import json
import struct
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

import attrs


@attrs.define
class Repo:
    """A model repository: its files at one commit, and how the server treats it."""

    files: dict[str, bytes]
    commit: str = "0123456789abcdef0123456789abcdef01234567"
    gated: bool = False
    slow: bool = False
    truncated: bool = False
    no_ranges: bool = False  # answers a Range request with the whole file (200)


def safetensors_file(tensors: Mapping[str, tuple[str, list[int]]]) -> bytes:
    """A safetensors file of zero-filled tensors: an 8-byte little-endian header length, the
    JSON header (dtype, shape, data offsets of each tensor), then the data."""
    widths = {"BF16": 2, "F16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1, "I32": 4}
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = widths[dtype]
        for dim in shape:
            size *= dim
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + bytes(offset)


class HubServer:
    """The server: ``repos`` by ORG/NAME, the ``endpoint`` to give HF_ENDPOINT, ``requests``."""

    def __init__(self, repos: dict[str, Repo]):
        self.repos = repos
        self.requests: list[str] = []
        self.served_bytes = 0  # body bytes sent, over all requests
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def handle(self) -> None:  # a client that hangs up early is not the server's error
                try:
                    super().handle()
                except (ConnectionResetError, BrokenPipeError):
                    pass

            def do_HEAD(self) -> None:
                self._answer(body=False)

            def do_GET(self) -> None:
                self._answer(body=True)

            def _error(self, status: int, code: str, message: str) -> None:
                self.send_response(status)
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", message)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _answer(self, body: bool) -> None:
                hub.requests.append(f"{self.command} {self.path}")
                parts = unquote(self.path.split("?", 1)[0]).strip("/").split("/")
                if len(parts) < 5 or parts[2] != "resolve":
                    return self._error(404, "RepoNotFound", "Repository not found")
                repo_id, revision, filename = "/".join(parts[:2]), parts[3], "/".join(parts[4:])
                repo = hub.repos.get(repo_id)
                if repo is None:
                    return self._error(401, "RepoNotFound", "Repository not found")
                if repo.gated and "authorization" not in {k.lower() for k in self.headers}:
                    return self._error(403, "GatedRepo", "Access to model is restricted")
                if repo.slow:  # longer than any client timeout the tests set
                    time.sleep(60)
                if revision not in ("main", repo.commit):
                    return self._error(404, "RevisionNotFound", "Invalid rev id")
                data = repo.files.get(filename)
                if data is None:
                    return self._error(404, "EntryNotFound", "Entry not found")
                status, start, end = 200, 0, len(data)
                ranged = self.headers.get("Range", "")
                if ranged.startswith("bytes=") and not repo.no_ranges:
                    first, _, last = ranged[6:].partition("-")
                    start, end = int(first), min(len(data), int(last) + 1 if last else len(data))
                    status = 206
                self.send_response(status)
                self.send_header("X-Repo-Commit", repo.commit)
                self.send_header("ETag", '"' + hashlib.sha1(data).hexdigest() + '"')
                self.send_header("Content-Length", str(end - start))
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
                self.end_headers()
                if body:
                    payload = data[start:end]
                    hub.served_bytes += len(payload)
                    if repo.truncated:
                        payload = payload[: len(payload) // 2]
                        self.wfile.write(payload)
                        self.wfile.flush()
                        self.close_connection = True
                        return
                    self.wfile.write(payload)

        return Handler

    def __enter__(self) -> "HubServer":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def serving(repos: dict[str, Repo]) -> Iterator[HubServer]:
    """A running loopback hub with ``repos``."""
    with HubServer(repos) as hub:
        yield hub
