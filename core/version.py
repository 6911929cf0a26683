"""The version of fitproof, in one place (pyproject.toml reads the same number)."""

__version__ = "0.1.0"
