"""The built-in packs, registered through the same hook a third-party plugin uses."""

from __future__ import annotations

from importlib.resources import files

from .hookspecs import PackRegistrar, hookimpl


@hookimpl
def register_packs(register: PackRegistrar) -> None:
    """Register fitproof's own ``packs/`` folder."""
    register(files("fitproof.packs"))
