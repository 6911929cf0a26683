"""A bound check of a GGUF file's header before the gguf package reads it.

The gguf reader believes the counts a header states: an array claiming 2^60 elements
makes it loop for minutes and fill memory. This walk reads the same layout (the GGUF
specification: magic, version, tensor and metadata counts, then each metadata entry's key,
type and value) without building anything, and refuses a header whose counts or lengths
could not fit in the file. It reads at most the metadata section.
https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (file structure, value types)
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO

# GGUF value types of fixed size, in bytes (uint8 … float64, bool)
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_VERSIONS = (2, 3)


class HeaderError(ValueError):
    """The header states something the file cannot hold."""


class _Cursor:
    def __init__(self, stream: BinaryIO, size: int):
        self.stream, self.size = stream, size

    @property
    def left(self) -> int:
        return self.size - self.stream.tell()

    def read(self, count: int, what: str) -> bytes:
        if count > self.left:
            raise HeaderError(f"{what} needs {count:,} bytes; {self.left:,} are left in the file")
        return self.stream.read(count)

    def skip(self, count: int, what: str) -> None:
        if count > self.left:
            raise HeaderError(f"{what} needs {count:,} bytes; {self.left:,} are left in the file")
        self.stream.seek(count, os.SEEK_CUR)

    def u32(self, what: str) -> int:
        value: int = struct.unpack("<I", self.read(4, what))[0]
        return value

    def u64(self, what: str) -> int:
        value: int = struct.unpack("<Q", self.read(8, what))[0]
        return value


def check_header(stream: BinaryIO, size: int) -> None:
    """Walk the header of the GGUF file ``stream`` (``size`` bytes long); raise
    :class:`HeaderError` at the first count or length the file cannot hold."""
    cursor = _Cursor(stream, size)
    if cursor.read(4, "the magic number") != b"GGUF":
        raise HeaderError("does not start with the GGUF magic number")
    version = cursor.u32("the version")
    if version not in _VERSIONS:
        raise HeaderError(f"GGUF version {version} is not one fitproof reads "
                          f"({', '.join(map(str, _VERSIONS))})")
    tensors = cursor.u64("the tensor count")
    entries = cursor.u64("the metadata count")
    # each tensor's record takes at least 8 + 4 + 8 + 4 + 8 bytes; each entry at least 13
    if tensors * 32 > cursor.left or entries * 13 > cursor.left:
        raise HeaderError(f"claims {tensors:,} tensors and {entries:,} metadata entries, "
                          f"more than its {size:,} bytes can hold")
    for index in range(entries):
        key_length = cursor.u64(f"metadata entry {index}'s key length")
        key = cursor.read(key_length, f"metadata entry {index}'s key").decode("utf-8", "replace")
        _value(cursor, cursor.u32(f"{key}'s type"), key)


def _value(cursor: _Cursor, kind: int, key: str) -> None:
    if kind in _FIXED:
        cursor.skip(_FIXED[kind], key)
    elif kind == _STRING:
        cursor.skip(cursor.u64(f"{key}'s length"), key)
    elif kind == _ARRAY:
        element = cursor.u32(f"{key}'s element type")
        count = cursor.u64(f"{key}'s element count")
        if element in _FIXED:
            cursor.skip(count * _FIXED[element], f"{key} ({count:,} elements)")
        elif element == _STRING:
            if count * 8 > cursor.left:  # each string has at least its 8-byte length
                raise HeaderError(f"{key} claims {count:,} strings, more than the file can hold")
            for _ in range(count):
                cursor.skip(cursor.u64(f"{key}'s string length"), key)
        else:
            raise HeaderError(f"{key} is an array of type {element}, which fitproof does not read")
    else:
        raise HeaderError(f"{key} has value type {kind}, which GGUF does not define")
