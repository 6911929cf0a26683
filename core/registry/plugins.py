"""Build the plugin manager, load plugins one by one, and collect what they register.

Hooks are only called through the functions here. A plugin that fails to import or whose
hook raises is reported by name (a warning); the other plugins keep working.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from importlib import import_module
from importlib.metadata import entry_points
from importlib.resources.abc import Traversable
from pathlib import Path

import attrs
import pluggy

from .. import hookspecs
from ..files.pack_files import PackRoot
from ..views.formats import Formats, OutputFormat

DEFAULT_PLUGINS = ("fitproof.api.builtin",)
# a plugin command's name: one word, as fitproof's own are
COMMAND_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")
ENTRY_POINT_GROUP = "fitproof"


@attrs.frozen
class PluginSet:
    manager: pluggy.PluginManager = attrs.field(eq=False)
    warnings: tuple[str, ...] = ()


def plugin_manager(*, entry_points_group: str | None = ENTRY_POINT_GROUP,
                   extra_plugins: Iterable[object] = ()) -> PluginSet:
    """A manager with the built-in plugins, installed plugins and ``extra_plugins``.

    ``entry_points_group=None`` skips installed plugins (tests use this to stay isolated).
    """
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    warnings: list[str] = []
    for name in DEFAULT_PLUGINS:
        manager.register(import_module(name), name=name)
    if entry_points_group:
        for entry_point in sorted(entry_points(group=entry_points_group), key=lambda e: e.name):
            dist = entry_point.dist.name if entry_point.dist else entry_point.value
            try:
                plugin = entry_point.load()
                if manager.is_registered(plugin):
                    continue
                manager.register(plugin, name=f"{dist}:{entry_point.name}")
            # a broken plugin must not break the tool, even one that calls sys.exit() or
            # raises KeyboardInterrupt while it is imported
            except (Exception, SystemExit, KeyboardInterrupt) as exc:
                warnings.append(f"plugin {entry_point.name!r} from {dist} failed to load: "
                                f"{type(exc).__name__}: {exc}")
    for plugin in extra_plugins:
        manager.register(plugin)
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:
        warnings.append(f"plugin {exc.plugin!r} implements an unknown hook: {exc}")
    return PluginSet(manager, tuple(warnings))


def collect_pack_roots(plugins: PluginSet) -> tuple[list[PackRoot], list[str]]:
    """Call ``register_packs`` on every plugin, isolating failures; built-ins come first."""
    roots: list[PackRoot] = []
    warnings: list[str] = []
    for impl in plugins.manager.hook.register_packs.get_hookimpls():  # registration order
        origin = impl.plugin_name
        builtin = origin in DEFAULT_PLUGINS

        def register(path: object, _origin: str = origin, _builtin: bool = builtin) -> None:
            if not isinstance(path, (Path, Traversable)) and not isinstance(path, str):
                raise TypeError(f"register() takes a folder path, got {type(path).__name__}")
            folder = Path(path) if isinstance(path, str) else path
            label = "packs" if _builtin else f"{_origin.split(':')[0]}:{getattr(folder, 'name', '')}"
            roots.append(PackRoot(folder, "fitproof" if _builtin else _origin, label))

        try:
            impl.function(register=register)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            warnings.append(f"plugin {origin!r} failed in register_packs: "
                            f"{type(exc).__name__}: {exc}")
    return roots, warnings


def _collect(plugins: PluginSet, hook: str,
             registrar: Callable[[str, list[Any]], Callable[..., None]]
             ) -> tuple[list[Any], list[str]]:
    """Call ``hook`` on every plugin with the ``register`` that ``registrar(origin, found)``
    makes, isolating failures: a plugin whose hook raises (or whose ``register`` refuses what
    it is given) adds nothing, and is named in a warning. Built-ins first."""
    collected: list[Any] = []
    warnings: list[str] = []
    for impl in getattr(plugins.manager.hook, hook).get_hookimpls():
        origin = impl.plugin_name
        found: list[Any] = []
        try:
            impl.function(register=registrar(origin, found))
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            warnings.append(f"plugin {origin!r} failed in {hook}: {type(exc).__name__}: {exc}")
            continue
        collected.extend(found)
    return collected, warnings


def collect_output_formats(plugins: PluginSet) -> tuple[Formats, list[str]]:
    """Call ``register_output_formats`` on every plugin, isolating failures; built-ins first."""
    def registrar(origin: str, found: list[Any]) -> Callable[..., None]:
        def register(name: str, view: str, render: object, description: str = "") -> None:
            if not callable(render):
                raise TypeError(f"render for format {name!r} is not callable")
            found.append(OutputFormat(name, view, render, description,
                                      "fitproof" if origin in DEFAULT_PLUGINS else origin))
        return register

    formats, warnings = _collect(plugins, "register_output_formats", registrar)
    return Formats(formats), warnings


@attrs.frozen
class PluginCommand:
    """A command a plugin adds (``register_commands``): its name and help line, the function
    that adds its arguments to its parser and the one that runs it, and the plugin's name."""

    name: str
    help: str
    arguments: Callable[..., object] = attrs.field(eq=False)
    run: Callable[..., object] = attrs.field(eq=False)
    origin: str


def collect_commands(plugins: PluginSet) -> tuple[list[PluginCommand], list[str]]:
    """Call ``register_commands`` on every plugin, isolating failures: a plugin whose hook
    raises, or registers a command of a bad name or without callables, adds none."""
    def registrar(origin: str, found: list[Any]) -> Callable[..., None]:
        def register(name: object, help: object, arguments: object, run: object) -> None:
            if not isinstance(name, str) or not COMMAND_NAME.fullmatch(name):
                raise ValueError(f"command name {name!r} is not one lower-case word")
            if not callable(arguments) or not callable(run):
                raise TypeError(f"command {name!r}: arguments and run must be functions")
            found.append(PluginCommand(name, str(help), arguments, run, origin))
        return register

    return _collect(plugins, "register_commands", registrar)
