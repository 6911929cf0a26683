"""Which checkpoint format a config's ``quantization_config`` names, by the conditions of
the importer pack's ``checkpoint_formats`` rules (``packs/importers/huggingface.yaml``)."""

from __future__ import annotations

from typing import Any

from ..specs import ImporterPack


def checkpoint_format(config: dict[str, Any], mapping: ImporterPack) -> str | None:
    """The format of the first rule whose every condition holds for ``config``, if any."""
    for rule in mapping.checkpoint_formats:
        if all(_holds(config, path, wanted) for path, wanted in rule.when.items()):
            return rule.format
    return None


def _members(value: Any, path: list[str]) -> list[Any]:
    """The values at ``path`` inside ``value`` ('*' stands for every member)."""
    if not path:
        return [value]
    head, rest = path[0], path[1:]
    if head == "*":
        children = list(value.values()) if isinstance(value, dict) else (
            list(value) if isinstance(value, list) else [])
    elif isinstance(value, dict) and head in value:
        children = [value[head]]
    else:
        children = []
    return [found for child in children for found in _members(child, rest)]


def _holds(config: dict[str, Any], path: str, wanted: Any) -> bool:
    """A checkpoint-format condition: some value at ``path`` equals ``wanted`` (or, for a
    '~text' condition, is a string containing ``text``)."""
    found = _members(config, path.split("."))
    if isinstance(wanted, str) and wanted.startswith("~"):
        return any(isinstance(v, str) and wanted[1:] in v for v in found)
    return any(v == wanted for v in found)
