"""The kinds table (fitproof.specs.kinds) is the one list of pack kinds, and each kind's JSON
schema and spec class declare the same fields."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from fitproof.specs import KINDS, PACK_KINDS
from fitproof.files.validation import PACK_KINDS as VALIDATED_KINDS

from .conftest import REPO

SCHEMAS = REPO / "schemas"
# fields a class has that no pack file states: where the pack came from
NOT_IN_FILES = {"pack"}


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.kind)
def test_schema_and_class_declare_the_same_fields(kind):
    schema = _schema(kind.schema)
    declared = set(schema["properties"])
    fields = {f.name for f in attrs.fields(kind.spec)} - NOT_IN_FILES
    assert declared == fields, (f"{kind.kind}: only in the schema {sorted(declared - fields)}, "
                                f"only in {kind.spec.__name__} {sorted(fields - declared)}")
    required = set(schema.get("required", ()))
    optional = {f.name for f in attrs.fields(kind.spec) if f.default is not attrs.NOTHING}
    assert not required & optional - {"kind"}, \
        f"{kind.kind}: required in the schema but defaulted in the class: {required & optional}"
    assert schema["properties"]["kind"] == {"const": kind.kind} or \
        schema["properties"]["kind"].get("const") == kind.kind


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.kind)
def test_every_kind_has_its_folder_and_links_to_known_kinds(kind):
    assert (REPO / "packs" / kind.folder).is_dir(), kind.folder
    assert set(kind.links) <= set(PACK_KINDS), kind.links


def test_validation_and_the_table_know_the_same_kinds():
    assert VALIDATED_KINDS == PACK_KINDS
    schemas = {p.name.removesuffix(".schema.json") for p in SCHEMAS.glob("*.schema.json")}
    assert {k.schema for k in KINDS} <= schemas
