"""Reading a Hugging Face ``config.json`` that may be hostile: a regular file within a size
limit (a pipe or a device is never read), JSON that is not nested without end, and text
a pack file can hold."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes

from ..errors import InputError
from ..files.pack_files import read_bounded

MAX_CONFIG_BYTES = 5_000_000
MAX_NUMBER_DIGITS = 40  # as in a pack: no figure a model is sized with comes near it


class _LongNumber(ValueError):
    """An integer too long to be a figure (Python would refuse 4,300 digits, telling the
    user to call sys.set_int_max_str_digits())."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _LongNumber(len(text.lstrip("-")))
    return int(text)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def file_uri(path: Path) -> str:
    """``path``, resolved, as the ``file:///`` URI a written pack's ``source`` names: every
    byte of the file name but ASCII letters, digits, ``/`` and ``-._~`` percent-encoded
    (``%1B`` for ESC, ``%C3%A9`` for é, ``%FF`` for a byte that is not UTF-8), so a name
    with control characters or in no encoding gives a URI a pack can hold."""
    return "file://" + quote_from_bytes(os.fsencode(path.resolve()), safe="/")


def pack_text(text: str) -> str:
    """``text`` (a file name, a line of a user's file) as one line a pack can hold: each
    control character, line feed and tab written as its escape (``\\x1b``, ``\\n``),
    each byte of a file name that is not UTF-8 as ``\\xff``; other text unchanged."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda match: ascii(match.group())[1:-1], text)


def read_input(path: Path, limit: int, what: str) -> bytes:
    """The bytes of a user's input file: a regular file (never a pipe or a device) of at
    most ``limit`` bytes; ``what`` names the kind of file in the refusal."""
    try:
        return read_bounded(path, limit)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise InputError(f"{path} {exc}; {what} is a small file") from None


def read_config(path: str | Path) -> dict[str, Any]:
    """Parse a config.json: a regular file of at most ``MAX_CONFIG_BYTES``, UTF-8 JSON
    (NaN and Infinity allowed, as transformers writes them) whose text is valid Unicode."""
    path = Path(path)
    raw = read_input(path, MAX_CONFIG_BYTES, "a config.json")
    try:
        data = json.loads(raw.decode("utf-8"), parse_int=_integer)
    except RecursionError:
        raise InputError(f"{path}: JSON nested too deeply for a config.json") from None
    except _LongNumber as exc:
        raise InputError(f"{path}: a number with {exc.args[0]:,} digits is too long for a "
                         f"config.json (at most {MAX_NUMBER_DIGITS})") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: not a JSON config: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a config.json is a JSON object")
    problem = _unusable_value(data)
    if problem:
        raise InputError(f"{path}: {problem}")
    return data


def _unusable_value(data: Any) -> str | None:
    """What makes a value of ``data`` unusable anywhere (text with a lone surrogate, which
    no file can hold), with its key. NaN and infinities are refused where they are read."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}" if key else str(k), v) for k, v in value.items())
            stack.extend((f"{key} (a key)", k) for k in value)
        elif isinstance(value, list):
            stack.extend((f"{key}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return f"{key}: text with a lone surrogate (\\u{ord(value[_bad(value)]):04x})"
    return None


def _bad(text: str) -> int:
    return next(i for i, c in enumerate(text) if 0xD800 <= ord(c) <= 0xDFFF)
