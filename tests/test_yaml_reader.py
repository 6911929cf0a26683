"""The YAML reader accepts core YAML only and says where anything else stands."""

from __future__ import annotations

import pytest

from fitproof.errors import PackError
from fitproof.files.yaml_reader import MAX_PACK_BYTES, read_yaml


def problems(text: str | bytes) -> list[str]:
    raw = text.encode() if isinstance(text, str) else text
    with pytest.raises(PackError) as caught:
        read_yaml(raw, "pack.yaml")
    return [str(p) for p in caught.value.problems]


def test_lines_are_kept_for_every_value():
    doc = read_yaml(b"kind: hardware\nspecs:\n  memory_gb: 24\n  list:\n    - 1\n    - 2\n",
                    "x.yaml")
    assert doc.lines[("kind",)] == 1
    assert doc.lines[("specs",)] == 2
    assert doc.lines[("specs", "memory_gb")] == 3
    assert doc.lines[("specs", "list", 1)] == 6
    assert doc.line_of(("specs", "missing", "deeper")) == 2


def test_yaml_1_2_scalars():
    doc = read_yaml(b"a: 1e9\nb: no\nc: 35.95e9\nd: 2026-11-05\ne: ~\nf: true\ng: '12'\n", "x")
    assert doc.data == {"a": 1e9, "b": "no", "c": 35.95e9, "d": "2026-11-05", "e": None,
                        "f": True, "g": "12"}


def test_python_tags_are_rejected():
    assert problems("a: !!python/object/apply:os.system ['touch pwned']\n") == [
        "pack.yaml:1: a: explicit YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' "
        "is not allowed"]


def test_custom_and_binary_tags_are_rejected():
    found = problems("a: !custom 1\nb: !!binary aGVsbG8=\n")
    assert "pack.yaml:1: a: explicit YAML tag '!custom' is not allowed" in found
    assert "pack.yaml:2: b: explicit YAML tag 'tag:yaml.org,2002:binary' is not allowed" in found


def test_alias_bomb_is_rejected_quickly():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for index in range(1, 12):
        previous = chr(ord("a") + index - 1)
        name = chr(ord("a") + index)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    found = problems("\n".join(lines) + "\n")
    assert found[0] == ("pack.yaml:2: b.0: YAML aliases (*name) are not allowed in packs; "
                        "this repeats the value anchored on line 1: write the value out")


def test_merge_keys_are_rejected():
    found = problems("base: {x: 1}\nother:\n  <<: {x: 2}\n  y: 3\n")
    assert found == ["pack.yaml:3: other: YAML merge keys (<<) are not allowed in packs"]


def test_duplicate_keys_name_both_lines():
    assert problems("id: a\nname: x\nid: b\n") == [
        "pack.yaml:3: id: duplicate key (first defined on line 1)"]


def test_non_utf8_bytes():
    assert problems(b"id: a\nname: \xff\xfe\n") == [
        "pack.yaml:2: not valid UTF-8 (byte 0xff); save the pack as UTF-8"]


def test_size_limit():
    found = problems(b"a: " + b"x" * MAX_PACK_BYTES + b"\n")
    assert found == [f"pack.yaml: file is {MAX_PACK_BYTES + 4:,} bytes; a pack may be at most "
                     f"{MAX_PACK_BYTES:,} bytes"]


def test_syntax_error_has_a_line():
    found = problems("a: 1\nb: [1, 2\nc: 3\n")
    assert found[0].startswith("pack.yaml:3: YAML syntax error:")


def test_several_documents_and_empty_files():
    assert problems("a: 1\n---\nb: 2\n") == [
        "pack.yaml:3: a pack file holds exactly one YAML document"]
    assert problems("") == ["pack.yaml:1: file is empty; a pack is one YAML mapping"]


def test_huge_numbers_and_infinity():
    found = problems("a: " + "9" * 50 + "\nb: .inf\nc: 1e999\n")
    assert found == [
        "pack.yaml:1: a: number with 50 digits is too long (at most 40)",
        "pack.yaml:2: b: .inf is not allowed; figures must be finite numbers",
        "pack.yaml:3: c: number 1e999 is out of range",
    ]


def test_non_string_keys():
    assert problems("1: a\n") == ["pack.yaml:1: mapping keys must be strings"]


@pytest.mark.parametrize("written, code", [
    (r'"Evil \e[31mRED\e[0m"', "001B"),           # an ANSI colour
    (r'"title \e]0;pwned\a"', "001B"),             # an OSC title sequence
    (r'"a\x9bb"', "009B"),                         # the C1 control sequence introducer
    (r'"a\u007fb"', "007F"),
])
def test_escaped_control_characters_are_refused_where_they_stand(written, code):
    assert problems(f"kind: hardware\nid: x\nname: {written}\n") == [
        f"pack.yaml:3: name: contains the control character U+{code}; pack text may not "
        "carry terminal control codes"]


def test_tabs_and_line_breaks_in_text_are_kept():
    doc = read_yaml(b'a: "one\\ttwo\\nthree"\nb: |\n  line one\n  line two\n', "x")
    assert doc.data == {"a": "one\ttwo\nthree", "b": "line one\nline two\n"}


@pytest.mark.parametrize("raw, code", [(b"a: 1\nname: a\x07b\n", "0007"),
                                       (b"a: 1\nb: 2\nname: a\x00b\n", "0000")])
def test_a_raw_control_character_is_one_line_with_its_line_number(raw, code):
    line = raw.count(b"\n")
    assert problems(raw) == [f"pack.yaml:{line}: the character U+{code} is not allowed in "
                             "YAML (control characters are refused)"]


def test_an_alias_is_reported_where_it_is_used():
    found = problems("kind: hardware\nname: &n X\nnotes: [a]\nvendor: *n\n")
    assert found == ["pack.yaml:4: vendor: YAML aliases (*name) are not allowed in packs; "
                     "this repeats the value anchored on line 2: write the value out"]
