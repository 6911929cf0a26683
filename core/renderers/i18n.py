"""Messages and number formats of one language, from catalog packs."""

from __future__ import annotations

from ..errors import InputError
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..formula.rounding import round_half_away
from ..views.message_format import fill
from .display import display_number

if TYPE_CHECKING:
    from ..specs import CatalogPack
    from ..views.report import Cell

FALLBACK = "en"


class Messages:
    """Looks up report texts in the catalog of ``language`` (falling back to English)."""

    def __init__(self, catalogs: Mapping[str, CatalogPack], language: str = FALLBACK,
                 style: str = "catalog"):
        """``style``: ``locale`` writes every number with Babel in the catalog's locale
        (its ``site.locale`` message, else the language); ``catalog`` with the catalog's
        own separators, as the seed pages did (a profile pack's ``number_style``)."""
        if language not in catalogs:
            choices = ", ".join(sorted(catalogs)) or "none"
            raise InputError(f"no catalog for language {language!r}; available: {choices}")
        self.language = language
        self.catalog = catalogs[language]
        self.fallback = catalogs.get(FALLBACK, self.catalog)
        self.locale = self.catalog.messages.get("site.locale") or language
        self.style = style if style != "locale" or _known_locale(self.locale) else "catalog"

    def __call__(self, key: str, **values: object) -> str:
        """The message ``key`` with ``{name}`` placeholders filled."""
        text = self.catalog.messages.get(key)
        if text is None:
            text = self.fallback.messages.get(key, key)
        return fill(text, values)  # the restricted format language (views/message_format.py)

    def get(self, key: str, default: str) -> str:
        """The message ``key`` in this language, else ``default`` (no English fallback)."""
        return self.catalog.messages.get(key, default)

    def number(self, value: float | None, precision: int | None = 2,
               display: str = "number") -> str:
        """A value as the catalog writes numbers (decimal separator; trailing zeros dropped)."""
        if self.style == "locale":
            return locale_number(value, precision, display, self.locale)
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
        if self.style == "locale":
            return locale_number(value, 0, "number", self.locale)
        return f"{int(round_half_away(value, 0)):,}".replace(",", self.catalog.thousands_separator)

    def money(self, value: float | None, precision: int | None = 2) -> str:
        """US dollars as the seed pages write them in every language: $0.19, $1,999."""
        if value is None:
            return "n/a"
        precision = 2 if precision is None else precision
        rounded = float(round_half_away(value, precision))
        if self.style == "locale":
            return locale_money(rounded, precision, self.locale)
        return f"${rounded:,.{precision}f}"

    def date(self, iso: str) -> str:
        """A calendar date (``YYYY-MM-DD``, no time of day, so no time zone can move it) as
        the locale writes it (Babel's medium format), or as written in the catalog style."""
        if self.style != "locale":
            return iso
        import datetime

        from babel.dates import format_date

        try:
            day = datetime.date.fromisoformat(iso)
        except ValueError:
            return iso
        return str(format_date(day, format="medium", locale=self.locale))

    def context_label(self, tokens: int) -> str:
        """8192 → 8K, 131072 → 128K."""
        return f"{tokens // 1024}K" if tokens % 1024 == 0 else self.whole(tokens)


def _known_locale(name: str) -> bool:
    """Whether Babel has CLDR data for ``name`` (a catalog of another language, "xx", falls
    back to its own separators)."""
    from babel import Locale, UnknownLocaleError

    try:
        Locale.parse(name.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return False
    return True


def locale_number(value: float | None, precision: int | None, display: str, locale: str) -> str:
    """``value`` rounded to ``precision`` decimals (ties away from zero, trailing zeros
    dropped) and written as ``locale`` writes numbers (Babel): 20,32 and 8.192 in German."""
    from babel.numbers import format_decimal, format_percent

    if value is None:
        return "n/a"
    digits = 2 if precision is None else max(0, precision)
    if display == "percent":
        rounded = float(round_half_away(value * 100, digits)) / 100
        pattern = "#,##0" + ("." + "#" * digits if digits else "") + "%"
        text = str(format_percent(rounded, format=None if not digits else pattern, locale=locale))
    else:
        rounded = float(round_half_away(value, digits))
        pattern = "#,##0" + ("." + "#" * digits if digits else "")
        text = str(format_decimal(rounded, format=pattern, locale=locale))
    return "0" if text in ("-0",) else text


def locale_money(value: float, precision: int, locale: str) -> str:
    """US dollars with ``precision`` decimals as ``locale`` writes them ($0.19, 0,19 $)."""
    from babel import Locale
    from babel.numbers import format_currency

    pattern = Locale.parse(locale).currency_formats["standard"].pattern
    if precision != 2:
        fraction = "." + "0" * precision if precision > 0 else ""
        pattern = pattern.replace(".00", fraction)
    return str(format_currency(value, "USD", format=pattern, currency_digits=False,
                               locale=locale))
