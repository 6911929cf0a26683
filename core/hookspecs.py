"""The plugin contract: hooks a fitproof plugin may implement.

A plugin is a module (or object) with functions marked ``@fitproof.hookimpl``, made known
to fitproof through an entry point in the ``fitproof`` group::

    [project.entry-points.fitproof]
    my_packs = "my_package.fitproof_plugin"

The built-in packs are registered through the same hook (see ``fitproof.api.builtin``).
Every hook is documented in docs/plugin-hooks.md.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources.abc import Traversable
from pathlib import Path

import pluggy

PROJECT = "fitproof"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

PackRegistrar = Callable[[Path | Traversable], None]
#: register(name, view, render, description=""): render(view_object, options) -> str
FormatRegistrar = Callable[..., None]
#: register(name, help, arguments, run): arguments(parser); run(registry, args) -> str | None
CommandRegistrar = Callable[..., None]


@hookspec
def register_packs(register: PackRegistrar) -> None:
    """Register folders of YAML packs.

    Call ``register(folder)`` once for each folder (a :class:`pathlib.Path`, or an
    :class:`importlib.resources.abc.Traversable` such as
    ``importlib.resources.files("my_package") / "packs"`` to ship packs inside a wheel).
    Folders are searched recursively for ``*.yaml`` files; a single ``.yaml`` file may be
    registered too. Every implementation is called; return values are ignored.
    """


@hookspec
def register_output_formats(register: FormatRegistrar) -> None:
    """Register output formats for the views commands produce.

    Call ``register(name, view, render, description="")`` once per format. ``view`` is the
    kind of view it renders (``estimate``, ``report``, ``derivation``, ``models``, ``packs``,
    ``pack``, ``accuracy``, ``validation``: see ``fitproof.views.formats.VIEW_KINDS``);
    ``render(view, options)`` returns the text, where ``view`` is the object the matching
    API function returns (``fitproof.api.estimate_view`` and so on) and ``options`` a
    :class:`fitproof.views.formats.RenderOptions`. ``fitproof estimate --format NAME`` then uses
    it. A format registered later under the same name and view replaces the earlier one.
    """


@hookspec
def register_commands(register: CommandRegistrar) -> None:
    """Add commands to the ``fitproof`` command line.

    Call ``register(name, help, arguments, run)`` once per command. ``name`` is one word
    (lower-case letters, digits and hyphens); ``help`` is the line ``fitproof --help`` shows.
    ``arguments(parser)`` adds the command's arguments to its :class:`argparse.ArgumentParser`,
    which already has the shared options (``--pack-dir``, ``--no-plugins``, ``--strict``,
    ``--profile``, ``--allow-override``). ``run(registry, args)`` does the work with the
    packs loaded as those options say (a :class:`fitproof.registry.index.Registry`; the
    public API, ``fitproof.api``, takes it) and the parsed ``args``, and returns the text to
    print, or ``None``. A :class:`fitproof.errors.FitproofError` it raises is one line and
    its exit code; any other exception is reported as the plugin's failure, exit code 1.
    A name one of fitproof's own commands has is ignored, with a warning.
    """
