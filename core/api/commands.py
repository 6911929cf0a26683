"""The commands plugins add to the ``fitproof`` command line (the ``register_commands``
hook): which there are, and running one with a loaded registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import FitproofError, PluginCommandError

if TYPE_CHECKING:
    from ..registry.index import Registry
    from ..registry.plugins import PluginCommand


def plugin_commands(*, plugins: bool = True) -> tuple[list[PluginCommand], list[str]]:
    """The commands the installed plugins add, and a warning for each plugin whose
    ``register_commands`` failed; none without ``plugins``."""
    if not plugins:
        return [], []
    from ..registry.plugins import collect_commands, plugin_manager

    return collect_commands(plugin_manager())


def run_plugin_command(command: PluginCommand, registry: Registry, args: Any) -> str | None:
    """Run a plugin's command: the text it returns (or ``None``). Its own
    :class:`FitproofError` passes through; any other exception, or a result that is not
    text, is a :class:`PluginCommandError` naming the plugin."""
    try:
        result = command.run(registry, args)
    except FitproofError:
        raise
    except Exception as exc:
        raise PluginCommandError(f"the command {command.name!r} of plugin {command.origin!r} "
                                 f"failed: {type(exc).__name__}: {exc}") from None
    if result is not None and not isinstance(result, str):
        raise PluginCommandError(f"the command {command.name!r} of plugin {command.origin!r} "
                                 f"returned {type(result).__name__}, not text")
    return result
