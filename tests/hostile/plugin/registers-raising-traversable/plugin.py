"""A plugin whose registered pack folder is a Traversable that raises on every use."""

from importlib.resources.abc import Traversable

from fitproof.hookspecs import hookimpl


class Raising(Traversable):
    name = "raising"

    def iterdir(self):
        raise RuntimeError("iterdir exploded")

    def read_bytes(self):
        raise RuntimeError("read_bytes exploded")

    def read_text(self, encoding=None):
        raise RuntimeError("read_text exploded")

    def is_dir(self):
        raise RuntimeError("is_dir exploded")

    def is_file(self):
        raise RuntimeError("is_file exploded")

    def joinpath(self, *descendants):
        raise RuntimeError("joinpath exploded")

    def __truediv__(self, child):
        raise RuntimeError("truediv exploded")

    def open(self, mode="r", *args, **kwargs):
        raise RuntimeError("open exploded")


@hookimpl
def register_packs(register):
    register(Raising())
