"""Documents and text: the sizing report, the static site, and any view rendered in an
output format (built-in or a plugin's)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from ..engine.scenario import Scenario
    from ..registry.index import Registry
    from ..site.build import SiteSummary
    from ..views.formats import Formats, RenderOptions
    from ..views.report import ReportView


def report(registry: Registry, resolved: Scenario, *, preselect: bool = False) -> ReportView:
    """``fitproof report``: every section of the sizing report. ``preselect``: the model's
    page without a chosen accelerator, on the one the report pack's purchase recommendation
    picks (the best single GPU), titled for it."""
    from ..engine.machine_estimate import one_kind_of_device
    from ..report.sections import build_report, preselect_hardware, report_view

    one_kind_of_device(resolved, "report")
    if preselect:
        resolved = preselect_hardware(registry, resolved)
    return report_view(registry, build_report(registry, resolved), preselected=preselect)


def site(registry: Registry, out: str, *, models: Sequence[str] | None = None,
         hardware: Sequence[str] | None = None, languages: Sequence[str] | None = None,
         base_url: str | None = None, progress: Callable[[int, int], None] | None = None,
         force: bool = False, yes: bool = False) -> SiteSummary:
    """Write the static site (a configurator page per model x accelerator x language) to
    the folder ``out`` (``site.build_site``: ``force``, ``yes``); ``None`` means every
    model, accelerator or catalog language."""
    from ..site.build import build_site

    return build_site(registry, out, models=models, hardware=hardware, languages=languages,
                      base_url=base_url, progress=progress, force=force, yes=yes)


def output_formats(registry: Registry | None = None, *, plugins: bool = True) -> Formats:
    """The output formats in use: those of the plugins ``registry`` was loaded with; without
    one, the built-in formats and (``plugins``) those the installed plugins add."""
    if registry is not None and registry.output_formats is not None:
        return registry.output_formats
    from ..registry.plugins import collect_output_formats, plugin_manager

    manager = plugin_manager(entry_points_group="fitproof" if plugins else None)
    return collect_output_formats(manager)[0]


def render(view_kind: str, view: object, format: str = "text", *,
           registry: Registry | None = None, plugins: bool = True, language: str = "en",
           depth: int | None = None) -> str:
    """``view`` (of kind ``view_kind``, see :data:`fitproof.views.formats.VIEW_KINDS`) as text, in
    a format of ``registry``'s plugins (without a registry: see :func:`output_formats`)."""
    from ..views.formats import RenderOptions

    formats = output_formats(registry, plugins=plugins)
    return formats.render(view_kind, format, view, RenderOptions(language, depth))
