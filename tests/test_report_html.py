"""fitproof report --format html: the site's report template renders every block of the
report (each heading at its level, each fact, each table cell in its row), escapes what
packs write, and inlines the site's stylesheet, so the page stands alone."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

import fitproof
from fitproof.renderers import blocks
from fitproof.renderers.i18n import Messages
from fitproof.renderers.report_document import report_blocks


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.headings: list[tuple[int, str]] = []
        self.rows: list[list[str]] = []
        self.facts: list[str] = []
        self.text: list[str] = []
        self.style = ""

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):
        top = self.stack[-1] if self.stack else ""
        if top == "style":
            self.style += data
        elif re.fullmatch(r"h[1-6]", top):
            self.headings.append((int(top[1]), data))
        elif top in ("td", "th") and self.rows:
            self.rows[-1].append(data)
        elif top in ("dt", "dd"):
            self.facts.append(data)
        self.text.append(data)


@pytest.fixture(scope="module")
def rendered(registry):
    view = fitproof.api.report(registry, fitproof.api.scenario(
        registry, model="qwen3.5-35b-a3b", hardware="rtx-3090"))
    document = report_blocks(view, Messages(view.catalogs, "en"))
    page = fitproof.api.render("report", view, "html", registry=registry)
    parsed = _Page()
    parsed.feed(page)
    return document, page, parsed


def test_every_heading_fact_and_table_cell_is_on_the_page(rendered):
    document, _, parsed = rendered
    headings = [(b.level, b.text) for b in document if isinstance(b, blocks.Heading)]
    assert parsed.headings == headings
    facts = [part for b in document if isinstance(b, blocks.Facts) for item in b.items for part in item]
    assert parsed.facts == facts
    rows = []
    for b in document:
        if isinstance(b, blocks.Table):
            rows.append(list(b.headers))
            rows.extend(list(r) for r in b.rows)
    assert parsed.rows == rows and len(rows) > 40
    text = "".join(parsed.text)
    for b in document:
        if isinstance(b, blocks.Paragraph):
            assert b.text in text
        if isinstance(b, blocks.Code):
            assert b.text in text and b.label in text


def test_the_page_stands_alone(rendered):
    _, page, parsed = rendered
    assert page.startswith("<!DOCTYPE html>") and '<html lang="en">' in page
    assert "--accent" in parsed.style  # the site's stylesheet, inlined
    assert "<link" not in page and "<script" not in page and "http://" not in parsed.style


def test_pack_text_is_escaped():
    document = [blocks.Heading('<script>alert("x")</script>', 1),
                blocks.Paragraph("a & b < c"),
                blocks.Facts((("<b>label</b>", "value \"quoted\""),)),
                blocks.Table(("<th>",), (("<td>",),), right=(0,)),
                blocks.Code("<i>", "rm -rf / # <img src=x>")]
    page = blocks.render_html(document, "<title>", "en")
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "a &amp; b &lt; c" in page
    assert "&lt;b&gt;label&lt;/b&gt;" in page and "<img" not in page
    assert "<title>&lt;title&gt;</title>" in page
    assert '<td class="num">&lt;td&gt;</td>' in page
    assert html.unescape(page).count("rm -rf / # <img src=x>") == 1
