"""``fitproof import gguf URL``: a remote GGUF file's header, read with HTTP range requests.

gguf-parser's approach: only the header (metadata, then the tensor records) is fetched,
never the weights. A reader asks for byte ranges as the header walk needs them
(``gguf_header.check_header`` bounds every count and length by the file's size, which the
server's ``Content-Range`` states), the tensor records are walked to find where the header
ends, and the header is written at the start of a sparse file of the remote file's size.
The local importer then reads that file exactly as it reads a downloaded one, so a remote
import and a local import of the same file write the same pack; a split model's shards
(``NAME-0000K-of-0000N.gguf``) are fetched the same way, each from beside the one named.

``hf://ORG/NAME/FILE.gguf`` (or ``hf://ORG/NAME@REVISION/FILE.gguf``) and Hub ``resolve``
or ``blob`` links go through huggingface_hub's session, so ``HF_ENDPOINT`` and
``HF_TOKEN`` apply; another https address is read the same way, without the token. A server
that ignores ranges (answers 200 with the whole file) is refused before its body is read.
"""

from __future__ import annotations

import os
import re
import struct
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from ..errors import InputError
from .gguf import shard_names
from .gguf_header import HeaderError, check_header
from .hub import REPO_ID, REVISION, hub_errors

BLOCK = 1 << 20  # bytes asked for per range request
MAX_HEADER_BYTES = 64 << 20  # a bound far above a header (vocabulary included) of a few MB
_HF_URI = re.compile(r"hf://(?P<repo>[^/@]+/[^/@]+)(?:@(?P<rev>[^/]+))?/(?P<file>.+\.gguf)")


def is_remote(text: str) -> bool:
    """Whether ``text`` names a remote GGUF (``https://`` or ``hf://``) rather than a file."""
    return text.startswith(("https://", "http://", "hf://"))


class _Remote:
    """One remote file: its address, and the session and headers to ask it with."""

    def __init__(self, url: str, hub_repo: str | None):
        self.url, self.hub_repo = url, hub_repo
        from huggingface_hub import get_session
        from huggingface_hub.utils._headers import build_hf_headers

        self.session = get_session()
        self.headers = build_hf_headers() if hub_repo else {}
        self.size: int | None = None

    def get(self, start: int, end: int) -> bytes:
        """Bytes ``start``..``end`` (exclusive) of the file."""
        headers = {**self.headers, "Range": f"bytes={start}-{end - 1}",
                   "Accept-Encoding": "identity"}
        with self.session.stream("GET", self.url, headers=headers,
                                 follow_redirects=True, timeout=30) as response:
            if response.status_code != 206:
                if response.status_code == 200:
                    raise InputError(f"{self.url}: the server does not answer byte ranges; "
                                     "fitproof reads only a GGUF's header, never the whole "
                                     "file")
                from huggingface_hub import hf_raise_for_status

                response.read()
                hf_raise_for_status(response)
            total = _total_size(response.headers.get("Content-Range", ""))
            if total is None:
                raise InputError(f"{self.url}: the server's answer gives no file size "
                                 "(Content-Range)")
            if self.size is not None and total != self.size:
                raise InputError(f"{self.url}: the file changed size while its header was read")
            self.size = total
            data = b"".join(response.iter_bytes())
        wanted = min(end, total) - start
        if len(data) != wanted:
            raise InputError(f"{self.url}: asked for {wanted:,} bytes from {start:,}, got "
                             f"{len(data):,}")
        return data


def _total_size(content_range: str) -> int | None:
    match = re.fullmatch(r"bytes \d+-\d+/(\d+)", content_range.strip())
    return int(match[1]) if match else None


class _RangeStream:
    """A read-only binary stream over a remote file, fetched a block at a time."""

    def __init__(self, remote: _Remote):
        self.remote, self.position = remote, 0
        self.blocks: dict[int, bytes] = {}
        self.remote_bytes = 0
        self._block(0)  # learns the size

    @property
    def size(self) -> int:
        assert self.remote.size is not None
        return self.remote.size

    def _block(self, index: int) -> bytes:
        if index not in self.blocks:
            if self.remote_bytes >= MAX_HEADER_BYTES:
                raise InputError(f"{self.remote.url}: the header runs past "
                                 f"{MAX_HEADER_BYTES >> 20} MB; a GGUF header is smaller")
            start = index * BLOCK
            self.blocks[index] = self.remote.get(start, start + BLOCK)
            self.remote_bytes += len(self.blocks[index])
        return self.blocks[index]

    def read(self, count: int = -1) -> bytes:
        end = self.size if count < 0 else min(self.size, self.position + count)
        parts = []
        while self.position < end:
            block = self._block(self.position // BLOCK)
            offset = self.position % BLOCK
            part = block[offset: offset + end - self.position]
            parts.append(part)
            self.position += len(part)
        return b"".join(parts)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.position, os.SEEK_END: self.size}[whence]
        self.position = base + offset
        return self.position

    def tell(self) -> int:
        return self.position


def _header_end(stream: _RangeStream) -> int:
    """Where the header ends: after the metadata (walked, bounded, by ``check_header``) come
    the tensor records, each a name, its dimensions, a type and an offset."""
    check_header(stream, stream.size)  # type: ignore[arg-type]
    metadata_end = stream.tell()
    stream.seek(8)  # after the magic number and the version: the tensor count
    tensors = struct.unpack("<Q", stream.read(8))[0]
    stream.seek(metadata_end)
    for index in range(tensors):
        length = struct.unpack("<Q", _exact(stream, 8, f"tensor {index}'s name length"))[0]
        _exact(stream, length, f"tensor {index}'s name")
        dims = struct.unpack("<I", _exact(stream, 4, f"tensor {index}'s dimension count"))[0]
        if dims > 8:
            raise HeaderError(f"tensor {index} claims {dims} dimensions")
        _exact(stream, 8 * dims + 4 + 8, f"tensor {index}'s shape, type and offset")
    return stream.tell()


def _exact(stream: _RangeStream, count: int, what: str) -> bytes:
    if count > stream.size - stream.tell():
        raise HeaderError(f"{what} needs {count:,} bytes; the file ends before")
    return stream.read(count)


def _resolve(url: str, revision: str | None) -> tuple[str, str | None]:
    """The address to read and, for the Hub, the repository (for its errors and token)."""
    from huggingface_hub import constants

    uri = _HF_URI.fullmatch(url)
    if uri:
        repo, rev, filename = uri["repo"], uri["rev"] or revision, unquote(uri["file"])
        if not REPO_ID.fullmatch(repo) or (rev and not REVISION.fullmatch(rev)) or \
                ".." in filename.split("/"):
            raise InputError(f"{url}: not an hf://ORG/NAME[@REVISION]/FILE.gguf address")
        hub = constants.ENDPOINT.rstrip("/")
        return f"{hub}/{repo}/resolve/{quote(rev or 'main', safe='')}/" \
            f"{quote(filename)}", repo
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise InputError(f"{url}: not an https:// or hf:// address")
    endpoint = urlsplit(constants.ENDPOINT)
    segments = parts.path.strip("/").split("/")
    if parts.netloc == endpoint.netloc and len(segments) >= 5 and \
            segments[2] in ("resolve", "blob"):
        segments[2] = "resolve"  # a page's "blob" link names the file "resolve" serves
        return parts._replace(path="/" + "/".join(segments)).geturl(), "/".join(segments[:2])
    return url, None


def _sibling(url: str, name: str) -> str:
    parts = urlsplit(url)
    folder = parts.path.rsplit("/", 1)[0]
    return parts._replace(path=f"{folder}/{name}").geturl()


@contextmanager
def fetched_headers(url: str, revision: str | None = None) -> Iterator[Path]:
    """A local stand-in for the remote GGUF ``url`` (and its split model's other shards):
    sparse files of the remote sizes, holding the headers. Removed on exit."""
    address, repo = _resolve(url, revision)
    name = unquote(urlsplit(address).path.rsplit("/", 1)[-1])
    if not name.endswith(".gguf") or "/" in name or name.startswith("."):
        raise InputError(f"{url}: not the address of a .gguf file")
    try:
        names = shard_names(name)
    except InputError as exc:
        raise InputError(f"{url}: {exc}") from None
    if len(names) > 512:
        raise InputError(f"{url}: a split model of {len(names)} shards is not one fitproof reads")
    with tempfile.TemporaryDirectory(prefix="fitproof-gguf-") as folder:
        for shard in names:
            remote = _Remote(_sibling(address, shard), repo)
            with hub_errors(repo or url, shard):
                stream = _RangeStream(remote)
                try:
                    end = _header_end(stream)
                except HeaderError as exc:
                    raise InputError(f"{url if shard == name else _sibling(url, shard)}: not a "
                                     f"readable GGUF file ({exc})") from None
            local = Path(folder) / shard
            with open(local, "wb") as out:
                stream.seek(0)
                out.write(stream.read(end))
                out.truncate(stream.size)  # the rest is a hole: no tensor data is fetched
        yield Path(folder) / name
