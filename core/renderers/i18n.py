"""Messages and number formats of one language, from catalog packs."""

from __future__ import annotations

from ..errors import InputError
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..message_format import fill
from ..rounding import round_half_away
from .display import display_number

if TYPE_CHECKING:
    from ..report_view import Cell
    from ..specs import CatalogPack

FALLBACK = "en"


class Messages:
    """Looks up report texts in the catalog of ``language`` (falling back to English)."""

    def __init__(self, catalogs: Mapping[str, CatalogPack], language: str = FALLBACK):
        if language not in catalogs:
            choices = ", ".join(sorted(catalogs)) or "none"
            raise InputError(f"no catalog for language {language!r}; available: {choices}")
        self.language = language
        self.catalog = catalogs[language]
        self.fallback = catalogs.get(FALLBACK, self.catalog)

    def __call__(self, key: str, **values: object) -> str:
        """The message ``key`` with ``{name}`` placeholders filled."""
        text = self.catalog.messages.get(key)
        if text is None:
            text = self.fallback.messages.get(key, key)
        return fill(text, values)  # the restricted format language (message_format.py)

    def get(self, key: str, default: str) -> str:
        """The message ``key`` in this language, else ``default`` (no English fallback)."""
        return self.catalog.messages.get(key, default)

    def number(self, value: float | None, precision: int | None = 2,
               display: str = "number") -> str:
        """A value as the catalog writes numbers (decimal separator; trailing zeros dropped)."""
        text = display_number(value, precision, display)
        if self.catalog.decimal_separator != ".":
            text = text.replace(".", self.catalog.decimal_separator)
        return text

    def cell(self, cell: Cell) -> str:
        return self.number(cell.value, cell.precision, cell.display)

    def whole(self, value: float | None) -> str:
        """A whole number with the catalog's thousands separator (token counts)."""
        if value is None:
            return "n/a"
        return f"{int(round_half_away(value, 0)):,}".replace(",", self.catalog.thousands_separator)

    def money(self, value: float | None, precision: int | None = 2) -> str:
        """US dollars as the seed pages write them in every language: $0.19, $1,999."""
        if value is None:
            return "n/a"
        precision = 2 if precision is None else precision
        rounded = float(round_half_away(value, precision))
        return f"${rounded:,.{precision}f}"

    def context_label(self, tokens: int) -> str:
        """8192 → 8K, 131072 → 128K."""
        return f"{tokens // 1024}K" if tokens % 1024 == 0 else self.whole(tokens)
