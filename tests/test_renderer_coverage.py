"""Every renderer shows all of its view: each heading, fact, table row, derivation step,
model and pack the view holds appears in the rendered text, in order.

The expected items are read off the view the renderer is given, so adding a pack changes
no expectation here. ``benchmarks/mutate_renderers.py`` checks that dropping any part of a
renderer's output fails a test; these are the tests that see most of those parts. They
run in-process: a test that runs fitproof in a subprocess cannot see a mutated renderer.
"""

from __future__ import annotations

import dataclasses
import json
import re

import attrs
import pytest

from fitproof import api
from fitproof.engine.derivation import Derivation, latex_number
from fitproof.renderers import blocks, estimate_text, explain, models, packs
from fitproof.renderers.blocks import Code, Facts, Heading, Paragraph, Table, width
from fitproof.renderers.display import display_number, signed
from fitproof.renderers.escape import markdown
from fitproof.renderers.i18n import Messages
from fitproof.renderers.report_document import report_blocks

from .conftest import REPO


# -- the block document: text and Markdown -------------------------------------------------
SMALL = [
    Heading("Sizing", 1),
    Paragraph("one two three four five six seven"),
    Facts((("Weights", "19.57 GiB"), ("KV", "0.22 GiB"))),
    Heading("Rows"),
    Table(("name", "GiB"), (("alpha", "1.5"), ("beta gamma delta", "12")), right=(1,)),
    Code("llama.cpp", "llama-server \\\n  -c 8192"),
]


def test_a_small_document_as_text_line_by_line():
    assert blocks.render_text(SMALL, limit=24).splitlines() == [
        "Sizing",
        "======",
        "one two three four five",
        "six seven",
        "Weights  19.57 GiB",
        "KV       0.22 GiB",
        "",
        "Rows",
        "----",
        "name              GiB",
        "----------------  ---",
        "alpha             1.5",
        "beta gamma delta   12",
        "llama.cpp:",
        "  llama-server \\",
        "    -c 8192",
    ]


def test_a_table_wider_than_the_limit_wraps_its_widest_cells():
    table = Table(("model", "verdict"), (("Qwen3 8B", "Fits with Safe Headroom"),
                                         ("漢字 model", "Exceeds")))
    # 10 + 23 columns narrowed to 9 + 9 (a tie narrows the first); 漢字 takes 4 columns
    assert blocks.render_text([table], limit=20).splitlines() == [
        "model      verdict",
        "---------  ---------",
        "Qwen3 8B   Fits with",
        "           Safe",
        "           Headroom",
        "漢字       Exceeds",
        "model",
    ]


def test_a_small_document_as_markdown_line_by_line():
    assert blocks.render_markdown([*SMALL, Paragraph("a <b> | [c] *d*")]).splitlines() == [
        "# Sizing",
        "",
        "one two three four five six seven",
        "",
        "- **Weights:** 19.57 GiB",
        "- **KV:** 0.22 GiB",
        "",
        "## Rows",
        "",
        "| name | GiB |",
        "|---|---:|",
        "| alpha | 1.5 |",
        "| beta gamma delta | 12 |",
        "",
        "**llama.cpp**",
        "",
        "```sh",
        "llama-server \\",
        "  -c 8192",
        "```",
        "",
        "a &lt;b> \\| \\[c\\] \\*d\\*",
    ]


def _column_text(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """What a text table line holds in each column (spans in terminal columns)."""
    parts = [""] * len(spans)
    column = 0
    for character in line:
        for index, (start, end) in enumerate(spans):
            if start <= column < end:
                parts[index] += character
        column += width(character)
    return [part.strip() for part in parts]


def _words(text: str) -> str:
    return " ".join(text.split())


def _take_wrapped(lines: list[str], at: int, expected: str, what: object) -> int:
    """The index after the lines from ``at`` that read ``expected`` once rejoined."""
    for end in range(at + 1, min(len(lines), at + 40) + 1):
        joined = _words(" ".join(lines[at:end]))
        if joined == _words(expected):
            return end
        if not _words(expected).startswith(joined):
            break
    raise AssertionError(f"{what!r} is not at line {at + 1}: {lines[at:at + 3]}")


def _take_rows(lines: list[str], at: int, spans: list[tuple[int, int]],
               rows: list[tuple[str, ...]]) -> int:
    """Each row in turn, its cells wrapped over one or more lines, from ``at``."""
    for row in rows:
        expected = [_words(cell) for cell in row]
        for end in range(at + 1, min(len(lines), at + 40) + 1):
            columns = zip(*(_column_text(line, spans) for line in lines[at:end]))
            if [_words(" ".join(parts)) for parts in columns] == expected:
                at = end
                break
        else:
            raise AssertionError(f"table row {row} is not at line {at + 1}: {lines[at:at + 3]}")
    return at


def assert_text_shows(document: list, text: str, limit: int = 100) -> None:
    """``text`` is ``document`` as render_text writes it: each heading underlined, each
    paragraph, fact and table row (wrapped or not) and each command line, in order, and
    nothing else."""
    try:
        _read_text(document, text.splitlines(), limit)
    except (IndexError, StopIteration) as error:  # the text ended before the document
        raise AssertionError(f"{text[-300:]!r} ends early") from error


def _read_text(document: list, lines: list[str], limit: int) -> None:
    at = 0
    for block in document:
        if isinstance(block, Heading):
            if at:
                assert lines[at] == "", (block, lines[at])
                at += 1
            if block.level >= 3:  # a section's sub-heading: marked, not ruled
                assert lines[at] == f"» {block.text}", block
                at += 1
                continue
            rule = ("=" if block.level == 1 else "-") * min(limit, width(block.text))
            assert lines[at:at + 2] == [block.text, rule], block
            at += 2
        elif isinstance(block, Paragraph):
            at = _take_wrapped(lines, at, block.text, block)
        elif isinstance(block, Facts):
            for label, value in block.items:
                assert lines[at].startswith(label), (label, lines[at])
                at = _take_wrapped(lines, at, f"{label} {value}", (label, value))
        elif isinstance(block, Code):
            command = [f"  {line}" for line in block.text.splitlines()]
            assert lines[at:at + 1 + len(command)] == [f"{block.label}:", *command], block
            at += 1 + len(command)
        else:
            assert isinstance(block, Table)
            rule = next(i for i in range(at, len(lines)) if re.fullmatch(r"-+(  -+)*", lines[i]))
            spans = [m.span() for m in re.finditer(r"-+", lines[rule])]
            assert len(spans) == len(block.headers), block.headers
            assert _take_rows(lines, at, spans, [block.headers]) == rule, block.headers
            at = _take_rows(lines, rule + 1, spans, list(block.rows))
    assert at == len(lines), lines[at:at + 3]


def assert_markdown_shows(document: list, text: str) -> None:
    """Each heading, paragraph, fact, table row and command line of ``document`` is a line
    of the Markdown ``text``, in order."""
    md = blocks._md
    expected: list[str] = []
    for block in document:
        if isinstance(block, Heading):
            expected.append("#" * block.level + " " + md(block.text))
        elif isinstance(block, Paragraph):
            expected.append(md(block.text))
        elif isinstance(block, Facts):
            expected += [f"- **{md(label)}:** {md(value)}" for label, value in block.items]
        elif isinstance(block, Code):
            expected += [f"**{md(block.label)}**", "```sh", *block.text.splitlines(), "```"]
        else:
            expected.append("| " + " | ".join(md(h) for h in block.headers) + " |")
            expected += ["| " + " | ".join(md(c) for c in row) + " |" for row in block.rows]
    lines = text.splitlines()
    at = 0
    for line in expected:
        assert line in lines[at:], f"missing or out of order: {line!r}"
        at = lines.index(line, at) + 1


def test_the_checks_of_text_and_markdown_read_the_small_document():
    assert_text_shows(SMALL, blocks.render_text(SMALL, limit=24), limit=24)
    assert_markdown_shows(SMALL, blocks.render_markdown(SMALL))
    lines = blocks.render_text(SMALL, limit=24).splitlines()
    for dropped in range(len(lines)):
        with pytest.raises(AssertionError):
            assert_text_shows(SMALL, "\n".join(lines[:dropped] + lines[dropped + 1:]), 24)


# -- the report ----------------------------------------------------------------------------
SCENARIOS = [
    {},  # the default scenario: every section, fine-tuning and KV tuning included
    {"model": "llama-3.1-70b", "hardware": "rtx-4090", "inputs": {"gpus": 2}},
]


@pytest.fixture(scope="module", params=range(len(SCENARIOS)), ids=["default", "70b-on-2"])
def report(request, registry):
    view = api.report(registry, api.scenario(registry, **SCENARIOS[request.param]))
    return view, Messages(view.catalogs, "en")


def test_the_text_report_shows_every_block(report):
    view, messages = report
    document = report_blocks(view, messages, compact=True)
    assert_text_shows(document, blocks.render_text(document))
    assert api.render("report", view) == blocks.render_text(document)


def test_the_markdown_report_shows_every_block(report):
    view, messages = report
    document = report_blocks(view, messages)
    assert_markdown_shows(document, blocks.render_markdown(document))
    assert api.render("report", view, "markdown") == blocks.render_markdown(document)


def _sections(document: list) -> list[tuple[str, list]]:
    """Each level-1 or level-2 heading's text and the blocks under it."""
    sections: list[tuple[str, list]] = []
    for block in document:
        if isinstance(block, Heading) and block.level <= 2:
            sections.append((block.text, []))
        else:
            sections[-1][1].append(block)
    return sections


def _kinds(blocks_: list) -> list[str]:
    return [type(b).__name__ for b in blocks_]


def test_the_report_has_every_section_and_every_row_of_its_view(report):
    view, t = report
    r = view.report
    document = report_blocks(view, t)
    sections = _sections(document)
    titles = [None, "headline.title", "breakdown.title", "recommend.title", "launch.title",
              "simulator", "cloud.title", *(["finetune"] if r.finetune else []), "notes.title",
              "contexts",
              "compat", "quant", "faq.title", "others.title", "elsewhere.title"]
    assert len(sections) == len(titles)
    for (title, _), key in zip(sections, titles):
        if key and key.endswith(".title"):
            assert title == t(key)
    part = dict(zip(titles, (blocks_ for _, blocks_ in sections)))
    # the title: the introduction and the settings
    # the introduction, the architecture and license (where the pack gives a license), the
    # settings
    assert _kinds(part[None]) == ["Paragraph", *(["Paragraph"] if view.model.license else []),
                                  "Facts"]
    if view.model.license:
        assert part[None][1] == Paragraph(t("badges", architecture=t.get(
            "architecture." + "-".join("".join(c if c.isalnum() else " " for c in
                                               view.model.architecture.lower()).split()),
            view.model.architecture), license=view.model.license))
    assert [label for label, _ in part[None][-1].items] == [t(f"settings.{k}") for k in (
        "model", "quant", "context", "hardware", "gpus", "batch", "kv", "engine", "offload",
        *(["workload"] if r.scenario.workload != "inference" else []))]
    # the headline: the verdict and six figures
    verdict = t(f"verdict.{r.verdict.id}") if r.verdict else t("verdict.unknown")
    headline = part["headline.title"]
    assert headline[0] == Paragraph(verdict) and _kinds(headline)[-1] == "Facts"
    assert [label for label, _ in headline[-1].items] == [t(f"headline.{k}") for k in (
        "required", "usable", "headroom", "decode", "prefill", "cost")]
    assert _kinds(part["breakdown.title"]) == ["Paragraph", "Facts"]
    assert [label for label, _ in part["breakdown.title"][1].items] == [
        t(f"breakdown.{k}") for k in ("weights", "kv", "buffers", "offload")]
    # one recommendation per pick, one command per engine
    (picks,) = part["recommend.title"]
    assert [label for label, _ in picks.items] == [t(f"recommend.{p.slot}") for p in r.picks]
    assert [(b.label, b.text) for b in part["launch.title"]] == list(r.launch)
    # the cloud: providers, the rent-vs-buy figures, one row per listing, the date checked
    # the simulator's caption: time to first token and decode, what the model takes
    assert _kinds(part["simulator"]) == ["Paragraph"]
    assert part["simulator"][0] == Paragraph(t("simulator.caption", model=view.model.name,
                                               total=t.cell(r.headline["required"])))
    cloud = part["cloud.title"]
    # a table of the providers with an offer, a line naming those without, the dates read
    offered = [row for row in r.providers if row.offer]
    without = len(offered) < len(r.providers)
    assert _kinds(cloud) == ["Paragraph", "Facts", "Table", *(["Paragraph"] * without),
                             "Paragraph"]
    providers = ", ".join(dict.fromkeys(view.providers[row.provider].name
                                        for row in r.providers))
    assert cloud[0] == Paragraph(t("cloud.subtitle", providers=providers))
    assert [label for label, _ in cloud[1].items] == [t(f"cloud.{k}") for k in (
        "hours", "breakeven", "power")]
    assert [row[0] for row in cloud[2].rows] == [row.listing for row in offered]
    assert [row[-1] for row in cloud[2].rows] == [row.url or "" for row in offered]
    # fine-tuning: one card per workload
    if r.finetune:
        assert [b.items[0] for b in part["finetune"]] == [
            (t.get(f"workload.{row.workload}", row.label),
             f"{t(f'verdict.{row.verdict.id}')} · {t.cell(row.total)} GiB")
            for row in r.finetune]
    notes = part["notes.title"]
    assert notes[0] == Heading(t("quick.title"), 3) and _kinds(notes[1:2]) == ["Paragraph"]
    if r.kv_tuning is not None:
        assert notes[2] == Heading(t("kv.title"), 3) and _kinds(notes[3:]) == ["Paragraph"]
    else:
        assert len(notes) == 2
    # the tables: one row per context, accelerator, format and other model
    contexts = part["contexts"]
    assert contexts[0] == Paragraph(t("contexts.subtitle"))
    assert [row[0] for row in contexts[1].rows] == [
        f"{t.whole(c.context)} ({t.context_label(c.context)})" for c in r.contexts]
    (compat,) = part["compat"]
    assert [row[0] for row in compat.rows] == [row.name for row in r.compatibility]
    assert len(compat.rows) == len(view.accelerators)
    (quant,) = part["quant"]
    assert [row[0] for row in quant.rows] == [
        f"{t.get('quant.label.' + q.quant, q.label)} ({q.quant})" for q in r.quantizations]
    faq = part["faq.title"]
    at_large = r.compare_contexts[1] in {c.context for c in r.contexts}
    assert _kinds(faq) == ["Heading", "Paragraph"] * (1 + at_large)
    others = part["others.title"]
    left_out = r.skipped_in("other_models")
    # the table (or the line saying there is none), then the models left out and why
    assert len(others) == bool(r.other_models or not left_out) + bool(left_out)
    if r.other_models:
        assert [row[0] for row in others[0].rows] == [m.name for m in r.other_models]
    elif not left_out:
        assert others[0] == Paragraph(t("others.none"))
    if left_out:
        assert others[-1] == Paragraph(t("report.skipped", rows="; ".join(
            f"{s.name} ({s.reason})" for s in left_out)))
    (elsewhere,) = part["elsewhere.title"]
    names = elsewhere.text.split(" · ")
    assert names == sorted(names) and len(names) == len(view.accelerators) - 1
    assert not any(name.startswith(f"{view.hardware[r.scenario.hardware].name} (")
                   for name in names)


# -- estimate ------------------------------------------------------------------------------
@pytest.mark.parametrize("choices", [
    {},
    {"model": "llama-3.1-70b", "hardware": "rtx-4090", "engine": "vllm", "quant": "AWQ",
     "inputs": {"gpus": 2}},
])
def test_the_estimate_card_shows_every_figure_in_order(registry, choices):
    registry = registry.with_profile("measured")  # per-device and KV capacity lines
    view = api.estimate_view(registry, api.scenario(registry, **choices))
    lines = api.render_estimate(view, "text").splitlines()
    assert lines == estimate_text.render_estimate(view).splitlines()

    def q(name: str, dollars: bool = False) -> str:
        quantity = view.quantities[name]
        return ("$" if dollars else "") + display_number(
            quantity.value, quantity.precision, quantity.display, keep_zeros=dollars)

    gpus = int(view.scenario.inputs.get("gpus", 1))
    assert lines[0] == f"{view.model_name} on {f'{gpus}x ' if gpus > 1 else ''}" \
                       f"{view.hardware_name}"
    assert lines[1].startswith(f"{view.scenario.quant} · ")
    assert lines[3] == f"  {view.verdict.label}" if view.verdict else \
        lines[3].startswith("  Unknown: ")
    per_device = gpus > 1
    expected = [("Memory", ""), ("Model weights", f"{q('weights_gib')} GiB"),
                ("KV cache & state", f"{q('devices_kv_gib')} GiB"
                 + (f" ({q('device_kv_gib')} GiB per device)" if per_device else "")),
                ("Engine & activation", f"{q('devices_overhead_gib')} GiB"
                 + (f" ({q('overhead_gib')} GiB per device)" if per_device else "")),
                ("Kept in system RAM", f"{q('offload_gib')} GiB"),
                ("Required", f"{q('total_gib')} GiB ({q('total_gb')} GB)"),
                ("Usable", f"{q('usable_gib')} GiB of {q('physical_gb')} GB physical"),
                ("Headroom", f"{signed(q('headroom_gib') + ' GiB')} ({q('utilization')}")]
    if gpus > 1:
        expected.append(("Per device", f"{q('device_required_gib')} GiB of "
                                       f"{q('device_usable_gib')} GiB usable"))
    if view.kv_from_budget and view.value("kv_capacity_tokens") is not None:
        expected.append(("KV cache capacity", f"{int(view.value('kv_capacity_tokens')):,} "
                                              "tokens"))
    offer = view.selections["scenario_offer"]
    cost = (("Per 1M tokens", f"{q('cost_per_mtok_usd', True)} at "
                              f"{q('cloud_hourly_usd', True)}/h ({offer['label']})")
            if offer["label"] else
            ("Per 1M tokens", f"n/a: no cloud offer of {gpus}x {view.hardware_name} is known"))
    expected += [("Speed", ""), ("Decode", f"~{q('decode_tps')} tok/s"),
                 ("Prefill", f"~{q('prefill_tps')} tok/s"),
                 ("Time to first token", f"~{q('ttft_ms')} ms"), ("Cost", ""), cost]
    if not offer["label"]:
        expected.append(("Another card", view.selections["cheapest_offer"]["label"]))
    expected.append(("Every number has a derivation:", f"explain total_gib {view.scenario.model}"))
    at = 4
    for label, shown in expected:
        found = next((i for i in range(at, len(lines)) if lines[i].strip().startswith(label)),
                     None)
        assert found is not None, f"{label!r} missing or out of order"
        assert shown in lines[found], (label, shown, lines[found])
        at = found + 1
    assert at == len(lines)


# -- explain -------------------------------------------------------------------------------
def _step_lines(markdown: str) -> list[int]:
    return [i for i, line in enumerate(markdown.splitlines()) if line.lstrip().startswith("- **`")]


@pytest.mark.parametrize("quantity, depth", [("total_gib", 2), ("decode_tps", None)])
def test_explain_markdown_shows_every_step_with_its_formula_and_notes(registry, quantity,
                                                                      depth):
    view = api.explain(registry, api.scenario(registry), quantity, depth)
    text = api.render("derivation", view, "markdown", registry=registry, depth=depth)
    assert text == explain.render_markdown(view.derivation, depth)
    lines = text.splitlines()
    steps = [s for s in view.derivation.steps() if depth is None or s[0] <= depth]
    starts = _step_lines(text)
    assert len(starts) == len(steps)
    footer = lines.index("Sources of pack figures without their own source:") \
        if "Sources of pack figures without their own source:" in lines else len(lines)
    for (level, d, repeated), start, end in zip(steps, starts, [*starts[1:], footer]):
        indent = "  " * level
        assert lines[start].startswith(f"{indent}- **`{d.name}` = ")
        assert lines[start].endswith(f"** — `{d.location}`")
        body = [line.strip() for line in lines[start + 1:end] if line.strip()]
        if repeated:
            assert body == ["(see above)"], d.name
            continue
        expected = []
        if d.kind in ("formula", "selection"):
            expected.append(f"`{d.written}`")
            if d.substituted:
                expected.append(f"`= {d.substituted}`")
        if d.kind == "input":
            expected.append(f"scenario input: {d.description}")
        if not d.inherited_sources:
            expected += [f"source: {s}" for s in d.sources]
        if d.note:
            expected.append(f"note: {d.note}")
        if d.approximate:
            expected.append("approximate: fitted or estimated, not a published figure")
        expected += [f"overrides the definition at {location}" for location in d.replaced]
        # pack text outside code spans is escaped for Markdown (escape.markdown)
        expected = [line if line.startswith("`") else markdown(line) for line in expected]
        assert body == expected, d.name
    inherited = {}
    for level, d in view.derivation.walk():
        if (depth is None or level <= depth) and d.inherited_sources and d.sources:
            inherited.setdefault(d.at.file, d.sources)
    if inherited:
        shown = [line.strip() for line in lines[footer + 1:]]
        assert shown == [markdown(item) for file, sources in inherited.items()
                         for item in (file, *sources)]
    else:
        assert footer == len(lines)


def _formula_steps(root: Derivation) -> list[Derivation]:
    """Formula steps from the root down through formulas, each name once, in tree order."""
    found: dict[str, Derivation] = {}

    def visit(d: Derivation) -> None:
        if d.kind != "formula" or d.name in found:
            return
        found[d.name] = d
        for child in d.inputs:
            visit(child)

    visit(root)
    return list(found.values())


@pytest.mark.parametrize("quantity", ["total_gib", "decode_tps"])
def test_explain_latex_has_a_line_pair_per_formula_step(registry, quantity):
    view = api.explain(registry, api.scenario(registry), quantity)
    text = api.render("derivation", view, "latex", registry=registry)
    assert text == explain.render_latex(view.derivation)
    lines = text.splitlines()
    assert lines[0] == "\\begin{align*}" and lines[-1] == "\\end{align*}"
    body = lines[1:-1]
    steps = _formula_steps(view.derivation)
    assert len(body) == 2 * len(steps)
    for step, (formula, values) in zip(steps, zip(body[::2], body[1::2])):
        name = "\\mathrm{" + step.name.replace("_", "\\_") + "}"
        unit = "" if step.unit in ("1", "") else \
            "\\ \\mathrm{" + step.unit.replace("%", "\\%") + "}"
        assert formula.startswith(f"  {name} &= "), (step.name, formula[:80])
        assert values.startswith("  &= "), (step.name, values[:80])
        assert values.rstrip(" \\").endswith(f" = {latex_number(step.value)}{unit}"), \
            (step.name, values[-80:])


# -- models --------------------------------------------------------------------------------
def _cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def test_models_text_lists_every_model_of_the_view(registry):
    view = api.models(registry, search="qwen3")
    lines = api.render("models", view, registry=registry).splitlines()
    assert lines == models.render_models(view).splitlines()
    assert _cells(lines[0]) == ["Model", "Id", "Family", "Params", "Active"]
    assert lines[-1] == f"{len(view.rows)} models" and len(view.rows) > 3
    assert [_cells(line)[:3] for line in lines[2:-1]] == \
        [[r.name, r.model, r.family] for r in view.rows]


def test_models_on_hardware_lists_every_fit_with_its_figures(registry):
    view = api.models(registry, hardware="rtx-3090", search="qwen3")
    lines = models.render_models(view).splitlines()
    assert lines[:2] == [f"Models on {view.hardware_name}", ""]
    assert _cells(lines[2]) == ["Model", "Params", "Memory", "Headroom", "Decode", "Verdict"]
    assert lines[-1] == f"{len(view.rows)} models" and len(view.rows) > 3
    assert [_cells(line) for line in lines[4:-1]] == [
        [r.name, f"{display_number(r.params_total / 1e9, 1)}B",
         f"{display_number(r.total_gib, 2)} GiB",
         f"{signed(display_number(r.headroom_gib, 2))} GiB",
         f"~{display_number(r.decode_tps, 1)} tok/s", r.verdict.label] for r in view.rows]
    assert models.render_models(dataclasses.replace(view, rows=())) == "no models match"


# -- packs ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [None, "hardware", "scenario"])
def test_packs_list_shows_every_pack_on_its_line(registry, kind):
    view = api.packs(registry, kind)
    lines = api.render("packs", view, registry=registry).splitlines()
    assert lines == packs.render_list(view).splitlines()
    count = len(view.packs)
    assert lines[-1] == f"{count} pack{'s' if count != 1 else ''}"
    assert [line.split() for line in lines[:-1]] == \
        [[p.kind, p.id, *p.name.split(), p.path] for p in view.packs]
    kinds = max(len(p.kind) for p in view.packs)  # the ids start in one column
    assert all(line[kinds + 2:].startswith(p.id + " ") for line, p in zip(lines, view.packs))


def test_packs_list_command(capsys):
    from fitproof.cli import main

    assert main(["packs", "list", "--no-plugins", "--kind", "hardware"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"\d+ packs", lines[-1]) and int(lines[-1].split()[0]) == len(lines) - 1
    assert all(line.split()[0] == "hardware" for line in lines[:-1])
    assert any(line.split()[1] == "rtx-4090" for line in lines[:-1])


def _shown_fields(pack_view):
    obj = pack_view.pack.obj
    return [f for f in attrs.fields(type(obj))
            if f.name not in ("pack", "id", "kind", "name", "override")
            and getattr(obj, f.name) not in (None, (), {}, "")]


@pytest.mark.parametrize("name", ["rtx-4090", "qwen3-8b", "llama.cpp"])
def test_packs_show_lists_every_field_with_its_line(registry, name):
    view = api.pack(registry, name)
    pack = view.pack
    lines = api.render("pack", view, registry=registry).splitlines()
    assert lines == packs.render_show(view).splitlines()
    assert lines[:4] == [f"{pack.kind} {pack.id}: {pack.name}", f"  file:   {pack.path}",
                         f"  from:   {pack.origin}",
                         f"  wins:   the only {pack.kind} pack with id {pack.id!r}"]
    written = pack.obj.pack.lines
    fields = _shown_fields(view)
    # the fields the file writes by line, then those left at their defaults
    in_file = sorted((f for f in fields if (f.name,) in written),
                     key=lambda f: written[(f.name,)])
    assert len(lines) == 4 + len(fields) and len(in_file) > 3
    for line, field in zip(lines[4:], in_file + [f for f in fields if f not in in_file]):
        assert line.startswith(f"  {field.name}: "), (field.name, line)
        where = f"(line {written[(field.name,)]})" if field in in_file else "(default)"
        assert line.endswith(f"  {where}"), line


@pytest.mark.parametrize("name", ["rtx-4090", "qwen3-8b"])
def test_packs_show_json_has_the_summary_and_every_field(registry, name):
    view = api.pack(registry, name)
    pack = view.pack
    detail = packs.pack_detail(view)
    assert list(detail) == ["id", "kind", "name", "source", "origin", "overrides", "content"]
    assert (detail["id"], detail["kind"], detail["name"], detail["source"], detail["origin"],
            detail["overrides"]) == (pack.id, pack.kind, pack.name, pack.path, pack.origin, [])
    shown = {f.name for f in attrs.fields(type(pack.obj))
             if f.name != "pack" and getattr(pack.obj, f.name) not in (None, (), {})}
    assert set(detail["content"]) == shown and {"id", "kind"} <= shown
    assert json.loads(api.render("pack", view, "json", registry=registry)) == \
        json.loads(json.dumps(detail))


def test_packs_show_names_what_an_override_replaced(tmp_path):
    import fitproof

    text = (REPO / "packs/hardware/rtx-4090.yaml").read_text(encoding="utf-8")
    (tmp_path / "rtx-4090.yaml").write_text("override: true\n" + text, encoding="utf-8")
    registry = fitproof.load_registry([tmp_path], plugins=False)
    view = api.pack(registry, "rtx-4090")
    lines = packs.render_show(view).splitlines()
    assert lines[3] == "  overrides: packs/hardware/rtx-4090.yaml (from fitproof)"
    assert lines[4] == ("  wins:   declares 'override: true' (line 1) and loads after the "
                        "packs it replaces")
    assert len(lines) == 5 + len(_shown_fields(view))
    assert packs.pack_detail(view)["overrides"] == [
        {"source": "packs/hardware/rtx-4090.yaml", "origin": "fitproof"}]
