"""A tiny document model (headings, paragraphs, facts, tables, code) and its renderers.

Report sections are built once as blocks; text (for terminals, at most 100 columns),
Markdown and HTML differ only in how blocks are written.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import attrs

from .escape import markdown as _md, markdown_fence


@attrs.frozen
class Heading:
    text: str
    level: int = 2


@attrs.frozen
class Paragraph:
    text: str


@attrs.frozen
class Facts:
    """Label–value pairs, like the cards of a web page."""

    items: tuple[tuple[str, str], ...]


@attrs.frozen
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    right: tuple[int, ...] = ()  # indexes of right-aligned columns


@attrs.frozen
class Code:
    label: str
    text: str


Block = Heading | Paragraph | Facts | Table | Code


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, size: int, right: bool) -> str:
    gap = " " * max(0, size - width(text))
    return gap + text if right else text + gap


def _wrap(text: str, limit: int, indent: str = "") -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if width(indent + candidate) > limit and line:
            lines.append(indent + line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(indent + line)
    return lines


def render_text(blocks: Sequence[Block], limit: int = 100) -> str:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            if out:
                out.append("")
            if block.level >= 3:  # a section's sub-heading: no rule, so it reads as part of it
                out.append(f"» {block.text}")
                continue
            out.append(block.text)
            out.append(("=" if block.level == 1 else "-") * min(limit, width(block.text)))
        elif isinstance(block, Paragraph):
            out.extend(_wrap(block.text, limit))
        elif isinstance(block, Facts):
            size = max(width(label) for label, _ in block.items)
            for label, value in block.items:
                out.extend(_wrap(f"{_pad(label, size, False)}  {value}", limit) or [""])
        elif isinstance(block, Code):
            out.append(f"{block.label}:")
            out.extend(f"  {line}" for line in block.text.splitlines())
        elif isinstance(block, Table):
            out.extend(_text_table(block, limit))
    return "\n".join(out) + "\n"


def _text_table(table: Table, limit: int) -> list[str]:
    """Columns padded to fit; when the table is wider than ``limit``, the widest columns
    are narrowed and their cells wrapped onto several lines."""
    rows = [tuple(table.headers), *table.rows]
    count = len(table.headers)
    sizes = [max(width(row[i]) for row in rows) for i in range(count)]
    floors = [max(max((width(w) for w in row[i].split(" ")), default=0) for row in rows)
              for i in range(count)]
    while sum(sizes) + 2 * (count - 1) > limit:
        shrinkable = [i for i in range(count) if sizes[i] > floors[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: sizes[i])
        sizes[widest] -= 1
    lines = []
    for index, row in enumerate(rows):
        wrapped = [_wrap(cell, sizes[i]) or [""] for i, cell in enumerate(row)]
        for part in range(max(len(w) for w in wrapped)):
            cells = [(w[part] if part < len(w) else "") for w in wrapped]
            text = "  ".join(_pad(cell, sizes[i], i in table.right) for i, cell in enumerate(cells))
            lines.append(text.rstrip())
        if index == 0:
            lines.append("  ".join("-" * size for size in sizes))
    return lines


def render_markdown(blocks: Sequence[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            out += ["#" * block.level + " " + _md(block.text, opens_line=True), ""]
        elif isinstance(block, Paragraph):
            out += [_md(block.text, opens_line=True), ""]
        elif isinstance(block, Facts):
            out += [f"- **{_md(label)}:** {_md(value)}" for label, value in block.items] + [""]
        elif isinstance(block, Code):
            out += [f"**{_md(block.label)}**", "", markdown_fence(block.text, "sh"), ""]
        elif isinstance(block, Table):
            out.append("| " + " | ".join(_md(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---:" if i in block.right else "---"
                                      for i in range(len(block.headers))) + "|")
            out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in block.rows]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _template_data(block: Block) -> dict[str, object]:
    kind = {Heading: "heading", Paragraph: "paragraph", Facts: "facts", Table: "table",
            Code: "code"}[type(block)]
    return {"kind": kind, **attrs.asdict(block, recurse=False)}


def render_html(blocks: Sequence[Block], title: str, language: str) -> str:
    """One standalone HTML page (the site's stylesheet inlined), from the site's report
    template (``site/templates/report.html.j2``); every text is escaped by Jinja2."""
    from importlib.resources import files

    import jinja2

    package = files("fitproof")
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(package.joinpath("site", "templates"))),
        autoescape=True, trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    css = package.joinpath("site", "assets", "fitproof-site.css").read_text(encoding="utf-8")
    return environment.get_template("report.html.j2").render(
        blocks=[_template_data(b) for b in blocks], title=title, language=language, css=css)
