"""Output formats: who turns which view into text, collected from plugins.

Every command's result is a view (``views/results.py``, ``views/report.py``) of one kind; an
:class:`OutputFormat` renders views of one kind. The built-in formats (text, json, markdown,
html, latex) are registered by ``fitproof.api.builtin`` through the same
``register_output_formats`` hook a plugin implements, as datasette does with
``register_output_renderer``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ..errors import FitproofError, InputError

# the kinds of view a command hands to a format, and the command that makes each
VIEW_KINDS = {
    "estimate": "fitproof estimate", "report": "fitproof report",
    "derivation": "fitproof explain", "models": "fitproof models",
    "packs": "fitproof packs list", "pack": "fitproof packs show",
    "accuracy": "fitproof validate", "validation": "fitproof packs validate",
    "sweep": "fitproof sweep", "solve": "fitproof solve",
    "detect": "fitproof detect", "measurements": "fitproof measurements",
    "calibration": "fitproof calibrate",
}


@attrs.frozen
class RenderOptions:
    """What a command's options say about rendering, beyond the format's name."""

    language: str = "en"  # report catalogs
    depth: int | None = None  # explain: derivation levels shown


@attrs.frozen
class OutputFormat:
    """``render(view, options)`` returns the text of a view of kind ``view``."""

    name: str
    view: str
    render: Callable[[Any, RenderOptions], str] = attrs.field(eq=False)
    description: str = ""
    origin: str = "fitproof"  # the plugin that registered it

    def __attrs_post_init__(self) -> None:
        if self.view not in VIEW_KINDS:
            raise ValueError(f"output format {self.name!r}: unknown view kind {self.view!r}; "
                             f"kinds are {', '.join(VIEW_KINDS)}")
        if not self.name or not self.name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"output format name {self.name!r}: use letters, digits, - and _")


class Formats:
    """The formats in use, by view kind; a later registration of a name wins."""

    def __init__(self, formats: Iterable[OutputFormat] = ()):
        self._by_view: dict[str, dict[str, OutputFormat]] = {kind: {} for kind in VIEW_KINDS}
        for fmt in formats:
            self._by_view[fmt.view][fmt.name] = fmt

    def names(self, view: str) -> list[str]:
        return list(self._by_view[view])

    def get(self, view: str, name: str) -> OutputFormat:
        found = self._by_view[view].get(name)
        if found is None:
            choices = ", ".join(self._by_view[view]) or "none"
            raise InputError(f"{VIEW_KINDS[view]} has no output format {name!r}; "
                             f"choose from {choices}")
        return found

    def render(self, view: str, name: str, value: Any, options: RenderOptions) -> str:
        """The text of ``value`` (a view of kind ``view``) in format ``name``."""
        fmt = self.get(view, name)
        try:
            text = fmt.render(value, options)
        except FitproofError:
            raise
        # a plugin's renderer must not end the command with a traceback or an exit code
        # of its own, even one that calls sys.exit() or raises KeyboardInterrupt
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            if fmt.origin == "fitproof":
                raise
            raise InputError(f"output format {name!r} from plugin {fmt.origin!r} failed: "
                             f"{type(exc).__name__}: {exc}") from None
        if not isinstance(text, str):
            raise InputError(f"output format {name!r} of {VIEW_KINDS[view]} returned "
                             f"{type(text).__name__}, not text")
        return text
