"""JSON Schema validation of packs (Draft 2020-12), reporting every violation with its line.

jsonschema is imported lazily: a plain ``estimate`` served from the pack cache never
needs it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Protocol

from ..errors import Problem
from ..specs.kinds import PACK_KINDS
from .yaml_reader import YamlDocument

SCHEMA_PACKAGE = "fitproof.schemas"


class _SchemaError(Protocol):
    """The parts of a ``jsonschema.ValidationError`` read here (jsonschema has no stubs)."""

    message: str
    validator: str
    validator_value: Any
    instance: Any
    schema: Mapping[str, Any]
    absolute_path: Sequence[str | int]
    absolute_schema_path: Sequence[str | int]
    context: list[_SchemaError]


class _SchemaValidator(Protocol):
    def iter_errors(self, instance: Any) -> Iterator[_SchemaError]: ...


def schema_text(name: str) -> str:
    """Text of ``schemas/<name>.schema.json`` as shipped with fitproof."""
    return (resources.files(SCHEMA_PACKAGE) / f"{name}.schema.json").read_text("utf-8")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema ``schemas/<name>.schema.json``."""
    schema: dict[str, Any] = json.loads(schema_text(name))
    return schema


def schema_fingerprint() -> str:
    """Changes whenever any shipped schema changes (part of the pack cache key)."""
    import hashlib

    digest = hashlib.blake2b(digest_size=16)
    for entry in sorted(resources.files(SCHEMA_PACKAGE).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            digest.update(entry.name.encode() + entry.read_bytes())
    return digest.hexdigest()


@cache
def _validator(kind: str) -> _SchemaValidator:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
    from referencing import Registry, Resource

    registry = Registry()
    for entry in resources.files(SCHEMA_PACKAGE).iterdir():
        if entry.name.endswith(".schema.json"):
            contents = json.loads(entry.read_text("utf-8"))
            registry = registry.with_resource(contents["$id"], Resource.from_contents(contents))
    schema = load_schema(kind)
    Draft202012Validator.check_schema(schema)
    validator: _SchemaValidator = Draft202012Validator(schema, registry=registry)
    return validator


def validate_document(doc: YamlDocument) -> list[Problem]:
    """Every schema violation of ``doc`` as a :class:`Problem` (empty when valid)."""
    data = doc.data
    if not isinstance(data, dict):
        return [Problem("a pack is a YAML mapping with a 'kind' field", doc.file, 1)]
    kind = data.get("kind")
    if kind not in PACK_KINDS:
        line = doc.line_of(("kind",))
        if kind is None:
            return [Problem(f"missing 'kind'; expected one of {', '.join(PACK_KINDS)}",
                            doc.file, 1)]
        hint = _suggest(str(kind), PACK_KINDS)
        return [Problem(f"unknown pack kind {kind!r}{hint}; expected one of "
                        f"{', '.join(PACK_KINDS)}", doc.file, line, "kind")]
    problems = [p for error in _validator(kind).iter_errors(data) for p in _explain(error, doc)]
    problems += _out_of_range(doc)
    return sorted(set(problems), key=lambda p: (p.line or 0, p.field or "", p.message))


#: no figure of any real model, accelerator, price or formula constant comes near this: a
#: larger one is a typo or an attack, and would overflow what the numbers are shown with
LARGEST_FIGURE = 1e15


def _out_of_range(doc: YamlDocument) -> list[Problem]:
    """Every number in ``doc`` beyond ±LARGEST_FIGURE (or not finite), located."""
    found = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), doc.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in enumerate(value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and \
                not abs(value) <= LARGEST_FIGURE:
            found.append(Problem(f"{value:g} is beyond any real figure (at most "
                                 f"{LARGEST_FIGURE:g} in size)", doc.file,
                                 doc.line_of(path), _dotted(path)))
    return found


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _dotted(path: Iterable[object]) -> str | None:
    return ".".join(str(p) for p in path) or None


def _explain(error: _SchemaError, doc: YamlDocument) -> Iterator[Problem]:
    """Turn one jsonschema error into one or more located, readable problems."""
    path = tuple(error.absolute_path)
    line = doc.line_of(path)
    validator, value, instance = error.validator, error.validator_value, error.instance

    if validator == "additionalProperties" and isinstance(instance, dict):
        known = set(error.schema.get("properties", {}))
        for key in instance:
            if key not in known:
                yield Problem(f"unknown field{_suggest(key, known)}", doc.file,
                              doc.line_of(path + (key,)), _dotted(path + (key,)))
        return
    if validator == "required":
        missing = [key for key in value if isinstance(instance, dict) and key not in instance]
        known = set(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in known] if isinstance(instance, dict) else []
        for key in missing:
            if difflib.get_close_matches(key, extra, n=1, cutoff=0.6):
                continue  # reported as a misspelt field that suggests this one
            yield Problem(f"missing required field '{key}'", doc.file, line, _dotted(path))
        return
    if "propertyNames" in error.absolute_schema_path:
        rule = (f"names must match the pattern {error.validator_value}"
                if error.validator == "pattern" else _message(error))
        yield Problem(f"name {instance!r} is not allowed here: {rule}", doc.file,
                      doc.line_of(path + (instance,)), _dotted(path + (instance,)))
        return
    if validator == "anyOf" and all(set(alt) == {"required"} for alt in value):
        options = [" and ".join(f"'{key}'" for key in alt["required"]) for alt in value]
        yield Problem(f"needs {', or '.join(options)}", doc.file, line, _dotted(path))
        return
    if validator in ("if", "then", "else", "allOf", "anyOf", "oneOf") and error.context:
        for sub in error.context:
            yield from _explain(sub, doc)
        return
    yield Problem(_message(error), doc.file, line, _dotted(path))


def _message(error: _SchemaError) -> str:
    v, value, instance = error.validator, error.validator_value, error.instance
    shown = json.dumps(instance, ensure_ascii=False, default=str)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if v == "exclusiveMinimum":
        return f"must be greater than {value} (got {shown})"
    if v == "minimum":
        return f"must be at least {value} (got {shown})"
    if v == "maximum":
        return f"must be at most {value} (got {shown})"
    if v == "exclusiveMaximum":
        return f"must be less than {value} (got {shown})"
    if v == "type":
        expected = value if isinstance(value, str) else " or ".join(value)
        article = "an" if expected[0] in "aeiou" else "a"
        return f"must be {article} {expected} (got {shown})"
    if v == "const":
        return f"must be {json.dumps(value)} (got {shown})"
    if v == "enum":
        return f"must be one of {', '.join(json.dumps(x) for x in value)} (got {shown}){_suggest(str(instance), [str(x) for x in value])}"
    if v == "pattern":
        return f"must match the pattern {value} (got {shown})"
    if v == "minLength":
        return "must not be empty" if value == 1 else f"must be at least {value} characters"
    if v in ("minItems", "minProperties"):
        return f"needs at least {value} entr{'y' if value == 1 else 'ies'}"
    if v in ("maxItems", "maxProperties"):
        return f"has more than {value} entr{'y' if value == 1 else 'ies'} (got {len(instance)})"
    if v == "maxLength":
        return f"is longer than {value} characters (got {len(instance)})"
    if v == "uniqueItems":
        seen: list[Any] = []
        repeated: list[Any] = []
        for x in instance:
            if x in seen:
                repeated.append(x)
            else:
                seen.append(x)
        return "lists " + ", ".join(json.dumps(x, ensure_ascii=False) for x in repeated) + \
            " more than once"
    if v == "propertyNames":
        return error.message
    return error.message
