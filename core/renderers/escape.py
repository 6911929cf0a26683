"""Pack text made safe for each output medium, one function per medium (and per context
within it). Packs are untrusted input: their names, sources, notes, units, descriptions
and catalog messages reach every format, so every renderer of a medium writes pack text
through the function of that medium, and no renderer escapes on its own.

- ``html_json``: a value as JSON inlined in an HTML page (a ``<script>`` element);
- ``markdown``, ``markdown_code``, ``markdown_fence``: text, a code span, a fenced block;
- ``latex``, ``latex_math``: text in text mode, text inside ``\\mathrm{}`` in math mode;
- ``terminal``: text for a terminal.
"""

from __future__ import annotations

import json
import re
from typing import Any

# JSON in HTML: "<", ">" and "&" can only occur inside JSON strings, where \uXXXX is the
# same character; so nothing can close the script element ("</script>"), open a comment
# ("<!--") or an entity, and the text is still JSON (JSON.parse, json.loads read it).
# U+2028 and U+2029 end a line in older JavaScript.
_HTML_JSON = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                            "\u2028": "\\u2028", "\u2029": "\\u2029"})


def html_json(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script>`` element."""
    separators = (",", ":") if indent is None else (",", ": ")
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent,
                      separators=separators)
    return text.translate(_HTML_JSON)


# Markdown: "<" opens raw HTML and autolinks, "[" and "]" links and images, "`" code spans,
# "*" emphasis, "|" a table cell, "\" an escape; an entity ("&lt;") would show as the
# character it names, so its "&" is written as "&amp;". A line break would end a heading,
# a list item or a table row, so a pack's text is one line.
_MARKDOWN = str.maketrans({"<": "&lt;", "|": "\\|", "*": "\\*", "[": "\\[", "]": "\\]",
                           "`": "\\`", "\\": "\\\\"})
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
_LINE_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")
# what starts a block when it opens a line: a heading, a quote, a list item, a rule
_BLOCK_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|>|[-+](?=\s|$)|\d{1,9}[.)](?=\s|$)"
                          r"|[-_=](?=[-_=\s]*$))")


def _one_line(text: str) -> str:
    """``text`` on one line, without control characters (``terminal``)."""
    return _LINE_BREAKS.sub(" ", terminal(text))


def markdown(text: str, *, opens_line: bool = False) -> str:
    """Text as Markdown shows it literally: no HTML element, link, image, code span,
    emphasis, table cell boundary or new block can come from a pack's words
    (``opens_line``: the text starts a line, where "# ", "> ", "- ", "1. " open blocks)."""
    text = _ENTITY.sub("&amp;", _one_line(text)).translate(_MARKDOWN)
    if not opens_line:
        return text
    def escaped(match: re.Match[str]) -> str:
        marker = match.group(2)  # "1." is escaped as "1\.": a backslash escapes punctuation
        return match.group(1) + marker[:-1] + "\\" + marker[-1]
    return _BLOCK_START.sub(escaped, text)


def markdown_code(text: str, *, table: bool = False) -> str:
    """``text`` as an inline code span: its delimiters are one backtick longer than the
    longest run of backticks inside, so nothing inside can close it (in a table, a pipe
    is escaped, as GFM reads cells before code spans)."""
    text = _one_line(text)
    runs = re.findall("`+", text)
    fence = "`" * (max(map(len, runs), default=0) + 1)
    if table:
        text = text.replace("|", "\\|")
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else "` `"


def markdown_fence(text: str, info: str = "") -> str:
    """``text`` as a fenced code block (without a final newline): the fence is longer
    than any run of backticks inside, so no line of ``text`` can end the block early."""
    text = terminal(text)
    runs = re.findall("`+", text)
    fence = "`" * max(3, max(map(len, runs), default=0) + 1)
    return f"{fence}{info}\n{text}\n{fence}"


# LaTeX, text mode: every character TeX gives a meaning to is written as a command that
# prints it, so no control sequence (\input, \write18), group, math shift, alignment tab,
# parameter, comment or active character comes from a pack's words.
_LATEX = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"})
# inside \mathrm{} (math mode): the same characters, with math mode's commands, and
# spaces kept (math mode drops them)
_LATEX_MATH = str.maketrans({
    "\\": r"\backslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "_": r"\_", "^": r"\text{\textasciicircum}", "~": r"\text{\textasciitilde}",
    " ": r"\ "})


def latex(text: str) -> str:
    """Text for LaTeX's text mode, shown literally (a blank line would end a paragraph:
    line breaks become spaces)."""
    return _one_line(text).translate(_LATEX)


def latex_math(text: str) -> str:
    """Text for ``\\mathrm{…}`` in math mode (a unit, a name), shown literally."""
    return _one_line(text).translate(_LATEX_MATH)


# C0 controls but tab and line feed (ESC starts a terminal's escape sequences, CR
# overwrites a line), DEL, C1 controls (CSI), and the bidirectional embeddings, overrides
# and isolates that make a line read other than it is
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal(text: str) -> str:
    """Text for a terminal: every control character removed, line feeds and tabs kept."""
    return _CONTROL.sub("", text)


def terminal_field(text: str) -> str:
    """A pack's word (a name, a file path) for one field of a terminal line: its line
    breaks written as escapes (``\\n``), so a folder name cannot forge a line of its own,
    and its control characters removed."""
    return _LINE_BREAKS.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"),
                            terminal(text))
