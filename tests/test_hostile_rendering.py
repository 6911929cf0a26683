"""Pack text in every output format (tests/hostile/figures/markup-in-text: a hardware pack,
a formula pack, a measurement pack and a catalog whose names, sources, notes, units and
messages carry HTML, Markdown and LaTeX that would run, link or read files).

Each format of each command with formats is rendered from those packs and what the format
*renders to* is checked, not only its text: Markdown through a CommonMark renderer (no
HTML element, link or new block from a pack), HTML and the site's inlined JSON through
html.parser and json.loads (and a browser when one is installed), LaTeX by its control
words (and pdflatex -no-shell-escape when installed), text by its characters (no control
character: the packs are copied into a folder whose name carries ESC[31m, a C1 CSI, a
bidi override, backticks and a pipe, so every file:line location carries them). Every check also finds the pack's
words shown literally."""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from fitproof.cli import main

from .conftest import require_tool

HOSTILE = Path(__file__).parent / "hostile" / "figures" / "markup-in-text"
# what a terminal would act on, and what would end a Markdown code span or table cell, in
# every file:line location
FOLDER = "packs\x1b[31m\x9b2J\u202e ``x` |y"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SENTINEL = "SENTINEL"
BROWSER = "apt-get install chromium chromium-driver, and pip install selenium"


def _pack(name: str) -> dict:
    # the test's own reading of the corpus files, for the words they must show
    return yaml.safe_load((HOSTILE / name).read_text(encoding="utf-8"))


HARDWARE = _pack("markup-x1.yaml")
FORMULA = _pack("markup-formulas.yaml")["formulas"]["markup_gib"]
RUNS = _pack("markup-runs.yaml")
CATALOG = _pack("xx.yaml")["messages"]
NAME = HARDWARE["name"]
UNIT = FORMULA["unit"]
SOURCE = HARDWARE["source"]
NOTE = HARDWARE["notes"][0]
FIGURE_NOTE = HARDWARE["memory_gb"]["note"]
MISSING = RUNS["rows"][1]["missing"][0]
DISPLAY = f"{HARDWARE['vendor']} {NAME}"  # how estimate, models and packs name the device


def _one_line(text: str) -> str:
    """How the formats write a pack's text: on one line, spaces collapsed."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile") / FOLDER
    shutil.copytree(HOSTILE, folder)
    return folder


def run(capsys, packs: Path, argv: list[str]) -> str:
    command = 2 if argv[0] == "packs" else 1
    full = [*argv[:command], "--no-plugins", "--pack-dir", str(packs), *argv[command:]]
    code = main(full)
    out, err = capsys.readouterr()
    assert code == 0, (full, err[-2000:])
    assert "Traceback" not in out + err
    return out


# --- what each medium renders to

class _Html(html.parser.HTMLParser):
    """Elements, attributes, visible text and inline script texts of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
            self.scripts.append((self._script, ""))

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        else:
            self.text.append(data)


def parse_html(text: str) -> _Html:
    parser = _Html()
    parser.feed(text)
    parser.close()
    return parser


def assert_no_live_markup(page: _Html) -> None:
    """No element a pack could have made run or load (img, iframe, object…), no event
    handler attribute, no javascript: address."""
    for tag, attrs in page.tags:
        assert tag not in ("img", "iframe", "frame", "object", "embed", "applet", "base"), \
            (tag, attrs)
        for key, value in attrs.items():
            assert not key.startswith("on"), (tag, key, value)
            assert not (value or "").strip().lower().startswith("javascript:"), (tag, attrs)


def check_text(out: str, shown: list[str]) -> None:
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    for words in shown:
        assert words in out, words


def check_json(out: str, shown: list[str]) -> None:
    strings: list[str] = []

    def walk(value):
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(json.loads(out))
    for words in shown:
        assert any(words in s for s in strings), words


def check_markdown(out: str, shown: list[str]) -> None:
    """Rendered as CommonMark (with GFM tables, raw HTML on): no element but the
    document's own, no link, no heading a pack's line break made; the words literal."""
    from markdown_it import MarkdownIt

    assert not CONTROL.search(out), repr(CONTROL.search(out))
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(out)
    page = parse_html(rendered)
    own = {"h1", "h2", "h3", "p", "ul", "li", "strong", "em", "code", "pre", "table", "thead",
           "tbody", "tr", "th", "td", "br"}
    assert {tag for tag, _ in page.tags} <= own, {tag for tag, _ in page.tags} - own
    assert not page.scripts
    assert_no_live_markup(page)
    text = _one_line("".join(page.text))
    assert "not a heading" not in [_one_line(h) for h in re.findall(r"<h\d>(.*?)</h\d>",
                                                                      rendered)]
    for words in shown:
        assert _one_line(words) in text, words


# control words fitproof's LaTeX writes; a pack's text brings none
LATEX_WORDS = {"begin", "end", "mathrm", "frac", "cdot", "text", "texttt", "multicolumn",
               "hline", "backslash", "textbackslash", "textasciicircum", "textasciitilde",
               "textless", "textgreater", "textbar"}


def check_latex(out: str, shown: list[str], tmp_path: Path) -> None:
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    # a control word is a backslash (not itself escaped) and letters
    words = set(re.findall(r"(?<!\\)(?:\\\\)*\\([A-Za-z]+)", out))
    assert words <= LATEX_WORDS, words - LATEX_WORDS
    assert "\\input" not in out and "\\write" not in out
    for text in shown:  # the words are there, every letter of them
        letters = re.sub(r"[^A-Za-z0-9]", "", text)
        assert letters in re.sub(r"[^A-Za-z0-9]", "", out.replace("\\backslash", "")
                                 .replace("\\textbackslash", "").replace("\\text", "")), text
    if shutil.which("pdflatex") is None:
        return
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\n\\usepackage{amsmath}\n"
                                      f"\\begin{{document}}\n{out}\\end{{document}}\n",
                                      encoding="utf-8")
    done = subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode",
                           "-halt-on-error", "doc.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    errors = [line for line in done.stdout.splitlines() if line.startswith("!")]
    assert done.returncode == 0 and not errors, errors or done.stdout[-2000:]
    assert not (tmp_path / SENTINEL).exists()


def check_html(out: str, shown: list[str]) -> None:
    page = parse_html(out)
    assert_no_live_markup(page)
    for attrs, text in page.scripts:  # the report is one page: no script of its own
        assert attrs.get("type") == "application/json", attrs
        json.loads(text)
    visible = _one_line("".join(page.text))
    for words in shown:
        assert _one_line(words) in visible, words


# --- every format of every command with formats

EXPLAIN = ["explain", "markup_gib", "qwen3-8b", "--on", "markup-x1"]
REPORT = ["report", "qwen3-8b", "--on", "markup-x1", "--lang", "xx"]
FITS = CATALOG["verdict.fits"]
CASES = {
    "estimate": (["estimate", "qwen3-8b", "--on", "markup-x1"], {
        "text": [f"Qwen3 8B on {DISPLAY}"], "json": [DISPLAY]}),
    "explain": (EXPLAIN, {
        "text": [UNIT, FORMULA["description"], f"note: {FIGURE_NOTE}", SOURCE],
        "markdown": [UNIT, f"note: {FIGURE_NOTE}", SOURCE, "``x` |y/markup-formulas.yaml:4"],
        "latex": [UNIT], "json": [UNIT, FIGURE_NOTE, SOURCE, FORMULA["description"]]}),
    "explain-sensitivity": ([*EXPLAIN, "--sensitivity"], {
        "text": [UNIT], "markdown": [UNIT, "``x` |y/markup-x1.yaml:12"], "latex": [UNIT],
        "json": [UNIT]}),
    "report": (REPORT, {
        "text": [NAME], "markdown": [NAME, FITS], "html": [NAME, FITS],
        "json": [NAME, FITS]}),
    "models": (["models", "--on", "markup-x1"], {
        "text": [f"Models on {DISPLAY}"], "markdown": [f"Models on {DISPLAY}"], "json": []}),
    "packs-list": (["packs", "list", "--kind", "hardware"], {"text": [NAME], "json": [NAME]}),
    "packs-show": (["packs", "show", "markup-x1"], {
        "text": [SOURCE, NOTE], "json": [SOURCE, NOTE, FIGURE_NOTE]}),
    "validate": (["validate"], {
        "text": [], "markdown": [f"does not state {MISSING}", "``x` |y/markup-runs.yaml:7"],
        "json": [MISSING]}),
    "measurements": (["measurements", "qwen3-8b", "--on", "markup-x1"], {
        "text": ["markup-runs.yaml:7"], "json": [RUNS["rows"][0]["source"]]}),
    "solve": (["solve", "max-batch", "qwen3-8b", "--on", "markup-x1", "--depth", "9"], {
        "text": ["max-batch = 37 sequences", f"note: {FIGURE_NOTE}"], "json": [FIGURE_NOTE]}),
}


@pytest.mark.parametrize("command", CASES)
def test_every_format_escapes_pack_text(command, packs, capsys, tmp_path):
    argv, formats = CASES[command]
    for name, shown in formats.items():
        out = run(capsys, packs, [*argv, "--format", name])
        if name == "text":
            check_text(out, shown)
        elif name == "json":
            check_json(out, shown)
        elif name == "markdown":
            check_markdown(out, shown)
        elif name == "latex":
            check_latex(out, shown, tmp_path)
        elif name == "html":
            check_html(out, shown)
        else:
            raise AssertionError(name)


def test_packs_validate_text(packs, capsys):
    out = run(capsys, packs, ["packs", "validate", str(packs)])
    check_text(out, ["markup-x1.yaml"])


def test_every_command_with_formats_is_covered():
    from fitproof.renderers.formats import BUILTIN_FORMATS

    kinds = {"estimate": "estimate", "derivation": "explain", "report": "report",
             "models": "models", "packs": "packs-list", "pack": "packs-show",
             "accuracy": "validate", "measurements": "measurements", "solve": "solve"}
    for kind, case in kinds.items():
        names = {f.name for f in BUILTIN_FORMATS if f.view == kind}
        assert names and names <= set(CASES[case][1]), kind


# --- the site: inlined JSON, data script, pages

@pytest.fixture(scope="module")
def site(packs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    assert main(["site", "--no-plugins", "--pack-dir", str(packs), "--out", str(out),
                 "--lang", "xx,en", "--models", "qwen3-8b", "--on", "markup-x1,rtx-4090"]) == 0
    return out


def _data(site: Path) -> dict:
    script = (site / "assets" / "data.js").read_text(encoding="utf-8")
    match = re.fullmatch(r"var FITPROOF_DATA = JSON\.parse\((\".*\")\);\n", script, re.S)
    assert match, script[:200]
    text = json.loads(match.group(1))  # the JavaScript string is a JSON string
    assert not re.search("[<>&\u2028\u2029]", text)
    return json.loads(text)


def test_site_data_is_json_and_keeps_the_words(site):
    data = _data(site)
    assert data["page"]["hardware"]["markup-x1"]["name"] == NAME
    assert data["page"]["hardware"]["markup-x1"]["vendor"] == HARDWARE["vendor"]


def test_site_pages_parse_and_their_messages_are_json(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 10
    for path in pages:
        page = parse_html(path.read_text(encoding="utf-8"))
        assert_no_live_markup(page)
        for attrs, text in page.scripts:
            if attrs.get("src"):
                assert not text.strip()
                continue
            assert attrs.get("type") == "application/json", (path, attrs)
            assert not re.search("[<>&\u2028\u2029]", text), path
            messages = json.loads(text)
            if path.relative_to(site).parts[0] == "xx":
                assert messages["yes"] == CATALOG["site.yes"]
                assert messages["no"] == CATALOG["site.no"]
                assert messages["verdicts"]["fits"] == FITS
    configurator = parse_html((site / "xx" / "qwen3-8b" / "markup-x1.html")
                              .read_text(encoding="utf-8"))
    assert NAME in "".join(configurator.text)


def _number(text: str) -> float:
    """A figure as the French-locale page writes it (``6,1``, ``1 234,5``)."""
    return float(re.sub(r"[\s\u202f\u00a0~]", "", text).replace(",", "."))


@pytest.mark.browser
def test_a_hostile_page_shows_its_numbers_in_a_browser(site, packs, capsys):
    """The configurator of the hostile hardware, in the hostile language (catalog messages
    with ``<!--`` and ``</script>``), computes the command line's numbers and runs none of
    the packs' scripts (tests/test_site_browser.py's harness: chromium through selenium)."""
    chromium = require_tool("chromium", "chromium-browser", "google-chrome", install=BROWSER)
    driver_path = require_tool("chromedriver", install=BROWSER)
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    expected = json.loads(run(capsys, packs, ["estimate", "qwen3-8b", "--on", "markup-x1",
                                              "--format", "json"]))["quantities"]
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        driver.get((site / "xx" / "qwen3-8b" / "markup-x1.html").as_uri())
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(
            "return document.documentElement.getAttribute('data-ready')"))
        with pytest.raises(NoAlertPresentException):
            driver.switch_to.alert.text
        values = driver.execute_script(
            "var out = {}; document.querySelectorAll('[data-quantity]').forEach(function (e) {"
            " out[e.getAttribute('data-quantity')] = e.textContent; }); return out;")
        images = driver.execute_script("return document.images.length")
        scripts = driver.execute_script(
            "return Array.from(document.scripts).map(function (s) {"
            " return s.src ? 'src' : s.type; })")
        verdict = driver.find_element("css selector", "[data-verdict]")
        verdict_id, verdict_text = verdict.get_attribute("data-verdict"), verdict.text
    finally:
        driver.quit()
    assert images == 0
    assert scripts == ["application/json", "src", "src", "src", "src"]
    for name in ("total_gib", "usable_gib", "decode_tps"):
        assert abs(_number(values[name]) - expected[name]["value"]) < 0.051, (name, values)
    assert verdict_id == "fits"
    assert _one_line(verdict_text) == _one_line(FITS)
