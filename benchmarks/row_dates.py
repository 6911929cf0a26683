"""Stamp each llama.cpp measurement row with the build and date it was measured at.

docs/research/llama-row-dates.jsonl holds, for every llama.cpp row of packs/measurements/
(by pack and row index), the date the figure was measured or first published, the
llama.cpp build number where the page prints one, and the basis of both (the build's
commit date in llama.cpp's history, a pull request's merge date, the page's own date).
This script writes them into the rows as ``date`` and ``engine_version`` ("b3891": the
build number llama.cpp's release tags and llama-bench's ``build:`` line use).

A row whose page gives neither a build nor a date gets ``missing: [the engine's version or
date]``, which ``fitproof validate`` scores apart (issue 32: a row whose source leaves the
engine's version or date out is recorded as such, not guessed). Where a page states only
the date it was opened (a pull request whose table sits in a later comment), the research
file gives the page's date, as the measurement schema defines a row's date, and says so.

Each row is one line of its pack (a JSON object in YAML flow style), so the script edits
those lines and leaves every other byte alone.

Run: python benchmarks/row_dates.py [--check]   (--check: fail if a pack lacks a stamp)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATES = ROOT / "docs" / "research" / "llama-row-dates.jsonl"
NO_VERSION = "the engine's version or date"


def stamp(entry: dict) -> dict:
    """The fields ``entry`` adds to its row."""
    fields: dict = {}
    if entry["build"] is not None:
        fields["engine_version"] = f"b{entry['build']}"
    if entry["date"] is not None:
        fields["date"] = entry["date"]
    if not fields:
        fields["missing"] = [NO_VERSION]
    return fields


def stamped_line(line: str, fields: dict, entry: dict) -> str:
    """``line`` (one row in flow style) with ``fields`` written before its ``source``."""
    indent, _, body = line.partition("- ")
    row = yaml.safe_load(body)
    for key in ("metric", "hardware", "model"):
        if row[key] != entry[key]:
            raise SystemExit(f"{entry['pack']}: row {entry['index']} is {row[key]!r}, "
                             f"the research file says {entry[key]!r} ({key})")
    if all(row.get(key) == value for key, value in fields.items()):
        return line
    if any(key in row for key in fields):
        raise SystemExit(f"{entry['pack']}: row {entry['index']} already has "
                         f"{', '.join(key for key in fields if key in row)}; edit it by hand")
    quoted = body.find('"source": ') >= 0
    marker = '"source": ' if quoted else "source: "
    at = body.index(marker)
    text = "".join(f'{json.dumps(key) if quoted else key}: {json.dumps(value)}, '
                   for key, value in fields.items())
    stamped = body[:at] + text + body[at:]
    assert yaml.safe_load(stamped) == {**row, **fields}
    return f"{indent}- {stamped}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a pack lacks a stamp")
    args = parser.parse_args()
    entries = [json.loads(line) for line in DATES.read_text("utf-8").splitlines() if line.strip()]
    by_pack: dict[str, dict[int, dict]] = {}
    for entry in entries:
        by_pack.setdefault(entry["pack"], {})[entry["index"]] = entry
    stale = []
    for pack, rows in sorted(by_pack.items()):
        path = ROOT / pack
        lines = path.read_text("utf-8").split("\n")
        index = -1
        for number, line in enumerate(lines):
            if not line.lstrip().startswith("- {"):
                continue
            index += 1
            if index in rows:
                lines[number] = stamped_line(line, stamp(rows[index]), rows[index])
        text = "\n".join(lines)
        if text != path.read_text("utf-8"):
            stale.append(pack)
            if not args.check:
                path.write_text(text, "utf-8")
        counts = {"dated": sum("date" in stamp(e) for e in rows.values()),
                  "with a build": sum("engine_version" in stamp(e) for e in rows.values())}
        print(f"{pack}: {len(rows)} rows, {counts['dated']} dated, "
              f"{counts['with a build']} with a build")
    if args.check and stale:
        print("stale (run python benchmarks/row_dates.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
