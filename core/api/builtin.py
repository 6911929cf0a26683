"""The built-in packs and output formats, registered through the hooks a third-party plugin
uses."""

from __future__ import annotations

from ..files.pack_files import package_folder
from ..hookspecs import FormatRegistrar, PackRegistrar, hookimpl


@hookimpl
def register_packs(register: PackRegistrar) -> None:
    """Register fitproof's own ``packs/`` folder."""
    register(package_folder("fitproof.packs"))


@hookimpl
def register_output_formats(register: FormatRegistrar) -> None:
    """Register text, json, markdown, html and latex for the views they apply to."""
    from ..renderers.formats import BUILTIN_FORMATS

    for fmt in BUILTIN_FORMATS:
        register(fmt.name, fmt.view, fmt.render, fmt.description)
