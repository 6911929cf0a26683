"""The built-in output formats: which renderer turns each kind of view into which format."""

from __future__ import annotations

import json
from typing import Any

from ..views.formats import OutputFormat, RenderOptions
from ..views.report import ReportView
from ..views.results import DerivationView, ModelsView
from . import accuracy, blocks, explain, models, packs, sensitivity, solve, sweep
from .calibration import calibration_json, render_calibration_text
from .detect import detect_json, render_detect_text
from .escape import terminal
from .estimate_text import render_estimate, render_estimate_json
from .i18n import Messages
from .measurements import measurements_json, render_measurements_text
from .report_document import report_blocks
from .report_json import report_dict


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _messages(view: ReportView, options: RenderOptions) -> Messages:
    """The report language's messages, writing numbers in its profile's style."""
    return Messages(view.catalogs, options.language, view.number_style)


def _report_text(view: ReportView, options: RenderOptions) -> str:
    messages = _messages(view, options)
    return blocks.render_text(report_blocks(view, messages, compact=True))


def _report_markdown(view: ReportView, options: RenderOptions) -> str:
    return blocks.render_markdown(report_blocks(view, _messages(view, options)))


def _report_html(view: ReportView, options: RenderOptions) -> str:
    messages = _messages(view, options)
    document = report_blocks(view, messages)
    title = document[0]
    assert isinstance(title, blocks.Heading)  # the report opens with its title
    return blocks.render_html(document, title.text, messages.language)


def _report_json(view: ReportView, options: RenderOptions) -> str:
    return _json(report_dict(view, _messages(view, options)))


def _derivation_text(view: DerivationView, options: RenderOptions) -> str:
    text = explain.render_text(view.derivation, options.depth)
    if view.sensitivity is None:
        return text
    return text + "\n" + sensitivity.render_text(view.derivation, view.sensitivity)


def _derivation_markdown(view: DerivationView, options: RenderOptions) -> str:
    text = explain.render_markdown(view.derivation, options.depth)
    if view.sensitivity is None:
        return text
    return text + sensitivity.render_markdown(view.derivation, view.sensitivity)


def _derivation_latex(view: DerivationView, options: RenderOptions) -> str:
    text = explain.render_latex(view.derivation)
    if view.sensitivity is None:
        return text
    return text + sensitivity.render_latex(view.derivation, view.sensitivity)


def _derivation_json(view: DerivationView, options: RenderOptions) -> str:
    result = explain.to_dict(view.derivation)
    if view.sensitivity is not None:
        result["sensitivity"] = sensitivity.to_list(view.sensitivity)
    return _json(result)


def _models_markdown(view: ModelsView, options: RenderOptions) -> str:
    return blocks.render_markdown(models.models_blocks(view))


_FORMATS = (
    OutputFormat("text", "estimate", lambda v, o: render_estimate(v), "the headline card"),
    OutputFormat("json", "estimate", lambda v, o: render_estimate_json(v),
                 "scenario, every quantity with its source, verdict, selections"),
    OutputFormat("text", "report", _report_text, "the sizing report, for a terminal"),
    OutputFormat("markdown", "report", _report_markdown, "the sizing report as Markdown"),
    OutputFormat("html", "report", _report_html, "the sizing report as one HTML page"),
    OutputFormat("json", "report", _report_json, "every section of the report"),
    OutputFormat("text", "derivation", _derivation_text, "the derivation tree"),
    OutputFormat("markdown", "derivation", _derivation_markdown, "as Markdown"),
    OutputFormat("latex", "derivation", _derivation_latex,
                 "the formula and its substitution as LaTeX"),
    OutputFormat("json", "derivation", _derivation_json, "the derivation tree"),
    OutputFormat("text", "solve", lambda v, o: solve.render_text(v, o.depth),
                 "the answer, what binds it, its derivation"),
    OutputFormat("json", "solve", lambda v, o: _json(solve.to_dict(v)),
                 "value, unit, binding, derivation"),
    OutputFormat("text", "models", lambda v, o: models.render_models(v), "a table"),
    OutputFormat("markdown", "models", _models_markdown, "a Markdown table"),
    OutputFormat("json", "models", lambda v, o: _json(models.models_json(v)), "one object per model"),
    OutputFormat("text", "packs", lambda v, o: packs.render_list(v), "one line per pack"),
    OutputFormat("json", "packs", lambda v, o: _json(packs.packs_json(v)), "one object per pack"),
    OutputFormat("text", "pack", lambda v, o: packs.render_show(v), "fields with their lines"),
    OutputFormat("json", "pack", lambda v, o: _json(packs.pack_detail(v)), "the pack's content"),
    OutputFormat("text", "accuracy", lambda v, o: accuracy.render_accuracy_text(v), "tables"),
    OutputFormat("markdown", "accuracy", lambda v, o: accuracy.render_accuracy_markdown(v),
                 "Markdown tables"),
    OutputFormat("json", "accuracy", lambda v, o: _json(accuracy.accuracy_json(v)),
                 "every group and row"),
    OutputFormat("text", "validation", lambda v, o: packs.render_validation(v),
                 "one line per file"),
    OutputFormat("csv", "sweep", lambda v, o: sweep.sweep_csv(v),
                 "one line per scenario, units in the header"),
    OutputFormat("jsonl", "sweep", lambda v, o: sweep.sweep_jsonl(v), "one object per scenario"),
    OutputFormat("text", "sweep", lambda v, o: sweep.sweep_text(v), "an aligned table"),
    OutputFormat("text", "detect", lambda v, o: render_detect_text(v),
                 "each device, its hardware pack or a pack template"),
    OutputFormat("json", "detect", lambda v, o: _json(detect_json(v)), "one object per device"),
    OutputFormat("text", "measurements", lambda v, o: render_measurements_text(v),
                 "a table per setup"),
    OutputFormat("json", "measurements", lambda v, o: _json(measurements_json(v)),
                 "one object per row"),
    OutputFormat("text", "calibration", lambda v, o: render_calibration_text(v),
                 "the profile written and a table of held-out errors"),
    OutputFormat("json", "calibration", lambda v, o: _json(calibration_json(v)),
                 "the profile written and its held-out errors"),
)


def _for_terminal(fmt: OutputFormat) -> OutputFormat:
    """A text format whose output has no control character: pack text cannot move the
    cursor, recolour or clear the terminal it is printed in (``escape.terminal``)."""
    render = fmt.render
    return OutputFormat(fmt.name, fmt.view, lambda v, o: terminal(render(v, o)),
                        fmt.description, fmt.origin)


# every text format writes through the terminal's escaping, in one place
BUILTIN_FORMATS = tuple(_for_terminal(f) if f.name == "text" else f for f in _FORMATS)
