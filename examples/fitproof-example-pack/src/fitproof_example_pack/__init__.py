"""An example fitproof plugin: packs shipped inside a pip-installable package."""
