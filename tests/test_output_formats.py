"""Output formats come from the register_output_formats hook: built-in and plugin formats
alike, with a plugin's failures isolated and named."""

from __future__ import annotations

import json

import pytest

import fitproof
import fitproof.cli
from fitproof import api
from fitproof.errors import InputError
from fitproof.views.formats import VIEW_KINDS, OutputFormat, RenderOptions

pytestmark = pytest.mark.slow


class CsvPlugin:
    @fitproof.hookimpl
    def register_output_formats(self, register):
        register("csv", "estimate",
                 lambda view, options: "".join(f"{q.name},{q.value}\n"
                                               for q in view.quantities.values()))


class BrokenHook:
    @fitproof.hookimpl
    def register_output_formats(self, register):
        raise RuntimeError("no formats today")


class UnknownView:
    @fitproof.hookimpl
    def register_output_formats(self, register):
        register("csv", "spreadsheet", lambda view, options: "")


class RaisingRender:
    @fitproof.hookimpl
    def register_output_formats(self, register):
        register("boom", "estimate", lambda view, options: 1 / 0)


class NotText:
    @fitproof.hookimpl
    def register_output_formats(self, register):
        register("bytes", "estimate", lambda view, options: b"x")


def _registry(*plugins):
    return fitproof.load_registry(plugins=False, extra_plugins=plugins, use_cache=False)


def test_every_view_kind_has_text_and_the_built_in_formats_are_registered():
    formats = api.output_formats(_registry())
    for kind in VIEW_KINDS:
        assert "text" in formats.names(kind), kind
    assert formats.names("report") == ["text", "markdown", "html", "json"]
    assert formats.names("derivation") == ["text", "markdown", "latex", "json"]


def test_a_plugin_format_renders_the_estimate_view():
    registry = _registry(CsvPlugin())
    view = api.estimate_view(registry, api.scenario(registry, model="qwen3-8b",
                                                    hardware="rtx-4090"))
    text = api.render("estimate", view, "csv", registry=registry)
    lines = dict(line.split(",") for line in text.splitlines())
    assert float(lines["usable_gib"]) == view.value("usable_gib")
    assert len(lines) == len(view.quantities)
    # the JSON format of the same view carries the same numbers
    data = json.loads(api.render("estimate", view, "json", registry=registry))
    assert data["quantities"]["usable_gib"]["value"] == view.value("usable_gib")


@pytest.mark.parametrize("plugin, message", [
    (BrokenHook(), "failed in register_output_formats: RuntimeError: no formats today"),
    (UnknownView(), "unknown view kind 'spreadsheet'"),
])
def test_a_broken_registration_is_a_warning_naming_the_plugin(plugin, message):
    registry = _registry(plugin)
    assert any(message in warning for warning in registry.warnings), registry.warnings
    assert "csv" not in api.output_formats(registry).names("estimate")


@pytest.mark.parametrize("plugin, name, message", [
    (RaisingRender(), "boom", "output format 'boom' from plugin"),
    (NotText(), "bytes", "output format 'bytes' of fitproof estimate returned bytes, not text"),
])
def test_a_failing_render_is_a_clear_error(plugin, name, message):
    registry = _registry(plugin)
    view = api.estimate_view(registry, api.scenario(registry))
    with pytest.raises(InputError, match=message):
        api.render("estimate", view, name, registry=registry)


def test_an_unknown_format_lists_the_choices():
    with pytest.raises(InputError, match="fitproof explain has no output format 'pdf'; "
                                         "choose from text, markdown, latex, json"):
        api.render("derivation", None, "pdf", registry=_registry())


def test_a_format_must_name_a_known_view_kind():
    with pytest.raises(ValueError, match="unknown view kind"):
        OutputFormat("x", "nope", lambda v, o: "")
    assert RenderOptions().language == "en"


def cli(capsys, *argv):
    code = fitproof.cli.main([argv[0], "--no-plugins", *argv[1:]] if argv[0] != "packs"
                             else [argv[0], argv[1], "--no-plugins", *argv[2:]])
    out, err = capsys.readouterr()
    return code, out, err


def test_format_works_on_every_command(capsys):
    for args in (["estimate", "--format", "json"], ["explain", "total_gib", "--format", "json"],
                 ["report", "--format", "json"], ["models", "--format", "json"],
                 ["packs", "list", "--format", "json"], ["packs", "show", "rtx-4090",
                                                         "--format", "json"],
                 ["validate", "--format", "json"]):
        code, out, err = cli(capsys, *args)
        assert code == 0 and err == "", (args, err)
        json.loads(out)
    code, out, _ = cli(capsys, "models", "--format", "markdown", "--on", "rtx-4090")
    assert code == 0 and out.startswith("# Models on NVIDIA RTX 4090\n") and "| Model |" in out


def test_without_a_registry_the_formats_follow_the_plugins_flag():
    built_in = api.output_formats(plugins=False)
    assert built_in.names("validation") == ["text"]
    assert built_in.names("estimate") == ["text", "json"]
    # a registry loaded with a plugin keeps that plugin's formats
    assert "csv" in api.output_formats(_registry(CsvPlugin())).names("estimate")
