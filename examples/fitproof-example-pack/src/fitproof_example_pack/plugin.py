"""Registers this package's packs with fitproof (entry point group ``fitproof``)."""

from importlib.resources import files

import fitproof


@fitproof.hookimpl
def register_packs(register):
    """Register the YAML packs shipped in this package."""
    register(files("fitproof_example_pack") / "packs")
