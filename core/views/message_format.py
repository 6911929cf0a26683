"""The restricted format language of catalog messages: ``{name}`` and ``{name:>12}``.

A placeholder is a plain name (no attribute or index access, no conversion) with at most
an alignment and a width under 100; ``{{`` and ``}}`` are literal braces. Messages are
checked when packs are loaded (``problems``) and filled without ``str.format`` (``fill``),
so a catalog pack can neither walk an object's attributes nor ask for a huge padding.
"""

from __future__ import annotations

import re
import string
from collections.abc import Collection, Iterator, Mapping

_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")
_SPEC = re.compile(r"[<>^]?[0-9]{0,2}\Z")
_PARSER = string.Formatter()


def _parts(text: str) -> Iterator[tuple[str, str | None, str | None, str | None]]:
    return iter(_PARSER.parse(text))


def placeholders(text: str) -> list[str]:
    """The names ``text`` fills (in order; empty when ``text`` is not well formed)."""
    try:
        return [field for _, field, _, _ in _parts(text) if field is not None]
    except ValueError:
        return []


def problems(text: str, allowed: Collection[str] | None = None) -> list[str]:
    """What is wrong with message ``text``; ``allowed``: the names it may use (None: any
    plain name)."""
    try:
        parts = list(_parts(text))
    except ValueError as exc:
        return [f"not a valid message ({exc}); write a literal brace as {{{{ or }}}}"]
    found = []
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if not _NAME.match(field):
            found.append(f"placeholder {{{field}}} is not a plain name: a message may "
                         "name a value, not reach into it (no '.', '[' or position)")
        elif allowed is not None and field not in allowed:
            names = ", ".join(f"{{{n}}}" for n in sorted(allowed)) or "none"
            found.append(f"placeholder {{{field}}} is not one this message is given "
                         f"(it has {names})")
        if conversion is not None:
            found.append(f"placeholder {{{field}!{conversion}}}: conversions are not allowed")
        if spec and not _SPEC.match(spec):
            found.append(f"placeholder {{{field}:{spec}}}: only an alignment and a width "
                         "under 100 are allowed, such as {name:>12}")
    return found


def fill(text: str, values: Mapping[str, object]) -> str:
    """``text`` with each placeholder replaced by its value (``str``, padded as its spec
    says); a placeholder with no value, or a message that is not well formed, is left as
    written."""
    try:
        parts = list(_parts(text))
    except ValueError:
        return text
    out = []
    for literal, field, spec, conversion in parts:
        out.append(literal)
        if field is None:
            continue
        if field not in values or not _NAME.match(field) or conversion is not None or \
                (spec and not _SPEC.match(spec)):
            out.append("{" + field + (f"!{conversion}" if conversion else "")
                       + (f":{spec}" if spec else "") + "}")
            continue
        out.append(format(str(values[field]), spec or ""))
    return "".join(out)
