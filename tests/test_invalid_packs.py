"""Every invalid-pack fixture fails with exactly the error line written at its top."""

from __future__ import annotations

from pathlib import Path

import pytest

from fitproof.api.validate import validate_paths

INVALID = Path(__file__).parent / "packs" / "invalid"
FIXTURES = sorted(INVALID.rglob("*.yaml"))


def expected_line(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path} must start with '# expect: …'"
    return first.removeprefix("# expect: ")


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(INVALID)) for p in FIXTURES])
def test_fixture_fails_with_its_expected_message(path, monkeypatch):
    monkeypatch.chdir(INVALID)
    report = validate_paths([str(path.relative_to(INVALID))], plugins=False)
    messages = [str(p) for r in report.files for p in r.problems] + [str(p) for p in report.context]
    assert not report.ok
    assert messages == [expected_line(path)]


def test_nothing_ran(tmp_path, monkeypatch):
    """Loading the code-injection fixture executes nothing: no file appears."""
    monkeypatch.chdir(tmp_path)
    validate_paths([str(INVALID / "formulas" / "code-injection.yaml")], plugins=False)
    assert not (tmp_path / "pwned").exists()


# Validation keywords that cannot fail on their own: ``const`` only pins ``kind``, which
# already chose the schema (a wrong kind is formulas/unknown-kind.yaml); ``else`` and
# ``then`` belong to ``if`` (schema/if-then-else.yaml).
NOT_ON_THEIR_OWN = {"const": "formulas/unknown-kind.yaml", "then": "schema/if-then-else.yaml",
                    "else": "schema/if-then-else.yaml", "if": "schema/if-then-else.yaml"}
VALIDATION_KEYWORDS = {
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
    "contains", "minProperties", "maxProperties", "required", "dependentRequired",
    "additionalProperties", "propertyNames", "patternProperties", "unevaluatedProperties",
    "if", "then", "else", "oneOf", "anyOf", "allOf", "not"}


def _keywords(node) -> set[str]:
    if isinstance(node, dict):
        found = {k for k in node if k in VALIDATION_KEYWORDS}
        for key, value in node.items():
            if key not in ("properties", "$defs"):  # property names are not keywords
                found |= _keywords(value)
            else:
                for child in value.values():
                    found |= _keywords(child)
        return found
    if isinstance(node, list):
        return set().union(*map(_keywords, node)) if node else set()
    return set()


def test_every_schema_rule_has_a_fixture_named_after_it():
    import re

    from fitproof.files.validation import PACK_KINDS, load_schema

    used: set[str] = set()
    for name in (*PACK_KINDS, "common"):
        used |= _keywords(load_schema(name))
    missing = []
    for keyword in sorted(used):
        fixture = NOT_ON_THEIR_OWN.get(keyword) or \
            "schema/" + re.sub(r"(?<!^)([A-Z])", r"-\1", keyword).lower() + ".yaml"
        if not (INVALID / fixture).exists():
            missing.append(f"{keyword}: {fixture}")
    assert not missing
    assert len(used) >= 15  # the walk found the schemas' rules
