"""Read one YAML pack safely, keeping the line of every value.

Packs are untrusted input. Only the YAML core data types are accepted: explicit tags
(``!!python/object``, ``!!binary``…), anchors and aliases, merge keys and duplicate keys
are rejected, as are files over ``MAX_PACK_BYTES`` and text that is not UTF-8. Plain
scalars are resolved with the YAML 1.2 core rules, so ``1e9`` is a number and ``no`` is
the string "no".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, cast

import attrs
import yaml

from ..errors import PackError, Problem

from .pack_files import MAX_PACK_BYTES  # noqa: F401  (the one limit, read by both)
MAX_DEPTH = 40
# C0 controls but tab and line breaks, DEL and C1 controls: escape codes a terminal acts on
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
MAX_NUMBER_DIGITS = 40

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CORE_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
}
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUES = {"true", "True", "TRUE"}
_FALSES = {"false", "False", "FALSE"}
_INT = re.compile(r"[-+]?[0-9]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_SPECIAL_FLOAT = re.compile(r"[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)\Z")

Path = tuple[str | int, ...]


@attrs.frozen
class YamlDocument:
    """A parsed pack: plain data (dicts, lists, str, int, float, bool, None) and line numbers."""

    file: str
    data: Any
    lines: Mapping[Path, int]

    def line_of(self, path: Path) -> int | None:
        """Line of the value at ``path``, or of its closest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)


def read_yaml(raw: bytes, file: str) -> YamlDocument:
    """Parse ``raw`` (the bytes of ``file``) into a :class:`YamlDocument`.

    Raises :class:`PackError` naming the file and line of every problem found.
    """
    if len(raw) > MAX_PACK_BYTES:
        raise PackError([Problem(f"file is {len(raw):,} bytes; a pack may be at most "
                                 f"{MAX_PACK_BYTES:,} bytes", file)])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line: int | None = raw[: exc.start].count(b"\n") + 1
        raise PackError([Problem(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x}); "
                                 "save the pack as UTF-8", file, line)]) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        message = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise PackError([Problem(f"YAML syntax error: {message}", file, line)]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, BEL…)
        line = text[: exc.position].count("\n") + 1
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        raise PackError([Problem(f"the character U+{code:04X} is not allowed in YAML (control "
                                 "characters are refused)", file, line)]) from None
    except yaml.YAMLError as exc:
        message = " ".join(str(exc).split())  # one line
        raise PackError([Problem(f"YAML error: {message}", file)]) from None
    if not nodes:
        raise PackError([Problem("file is empty; a pack is one YAML mapping", file, 1)])
    if len(nodes) > 1:
        line = nodes[1].start_mark.line + 1
        raise PackError([Problem("a pack file holds exactly one YAML document", file, line)])
    builder = _Builder(file)
    builder.lines[()] = nodes[0].start_mark.line + 1
    data = builder.build(nodes[0], (), 0)
    if builder.problems:
        raise PackError(builder.problems)
    return YamlDocument(file=file, data=data, lines=builder.lines)


class _Builder:
    """Turns a composed node tree into plain data, refusing anything but core YAML."""

    def __init__(self, file: str):
        self.file = file
        self.lines: dict[Path, int] = {(): 1}
        self.problems: list[Problem] = []
        self._seen: set[int] = set()
        self._resolver = yaml.resolver.Resolver()

    def _problem(self, node: yaml.Node, path: Path, message: str) -> None:
        field = ".".join(str(p) for p in path) or None
        self.problems.append(Problem(message, self.file, node.start_mark.line + 1, field))

    def build(self, node: yaml.Node, path: Path, depth: int) -> Any:
        if id(node) in self._seen:
            anchored = node.start_mark.line + 1
            field = ".".join(str(p) for p in path) or None
            self.problems.append(Problem(
                f"YAML aliases (*name) are not allowed in packs; this repeats the value "
                f"anchored on line {anchored}: write the value out", self.file,
                self.lines.get(path, anchored), field))  # where the alias is used
            return None
        self._seen.add(id(node))
        if depth > MAX_DEPTH:
            self._problem(node, path, f"nesting deeper than {MAX_DEPTH} levels")
            return None
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ_TAG:
                self._problem(node, path, f"explicit YAML tag {node.tag!r} is not allowed")
                return None
            items = []
            for index, child in enumerate(node.value):
                # a repeated (aliased) node carries its anchor's position: the sequence's
                # own line is where the alias is used
                self.lines[path + (index,)] = (node.start_mark.line if id(child) in self._seen
                                               else child.start_mark.line) + 1
                items.append(self.build(child, path + (index,), depth + 1))
            return items
        # the composer yields only mapping, sequence and scalar nodes
        return self._scalar(cast(yaml.ScalarNode, node), path)

    def _mapping(self, node: yaml.MappingNode, path: Path, depth: int) -> dict[str, Any]:
        if node.tag != _MAP_TAG:
            self._problem(node, path, f"explicit YAML tag {node.tag!r} is not allowed")
            return {}
        result: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG or (
                isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<"
                and not key_node.style
            ):
                self._problem(key_node, path, "YAML merge keys (<<) are not allowed in packs")
                continue
            key = self._scalar(key_node, path) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self._problem(key_node, path, "mapping keys must be strings")
                continue
            line = key_node.start_mark.line + 1
            if key in result:
                self._problem(key_node, path + (key,),
                              f"duplicate key (first defined on line {first_line[key]})")
                continue
            first_line[key] = line
            self.lines[path + (key,)] = line
            result[key] = self.build(value_node, path + (key,), depth + 1)
        return result

    def _scalar(self, node: yaml.ScalarNode, path: Path) -> Any:
        plain = not node.style  # the C composer gives "" for plain scalars, Python None
        # types-PyYAML leaves Resolver.resolve unannotated
        implicit = self._resolver.resolve(  # type: ignore[no-untyped-call]
            yaml.ScalarNode, node.value, (plain, not plain))
        if node.tag != implicit or node.tag not in _CORE_TAGS:
            self._problem(node, path, f"explicit YAML tag {node.tag!r} is not allowed")
            return None
        value = node.value
        control = _CONTROL.search(value)
        if control:  # written as an escape ("\e[31m") in a quoted string
            code = ord(control.group())
            self._problem(node, path, f"contains the control character U+{code:04X}; pack "
                                      "text may not carry terminal control codes")
            return None
        if not plain:
            return value
        if value in _NULLS:
            return None
        if value in _TRUES:
            return True
        if value in _FALSES:
            return False
        digits = len(value.lstrip("+-").replace(".", ""))
        if (_INT.match(value) or _FLOAT.match(value)) and digits > MAX_NUMBER_DIGITS:
            self._problem(node, path, f"number with {digits} digits is too long "
                                      f"(at most {MAX_NUMBER_DIGITS})")
            return None
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            number = float(value)
            if not math.isfinite(number):
                self._problem(node, path, f"number {value} is out of range")
                return None
            return number
        if _SPECIAL_FLOAT.match(value):
            self._problem(node, path, f"{value} is not allowed; figures must be finite numbers")
            return None
        return value
