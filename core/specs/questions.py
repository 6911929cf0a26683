"""``kind: questions`` — the inverse questions ``fitproof solve`` answers (packs/questions/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class QuestionDef:
    """How one question is answered: the constraints (``holds``) and what is searched."""

    description: str
    holds: tuple[str, ...]
    explain: str
    seek: str = "largest"
    input: str | None = None
    lowest: int = 1
    highest: int | None = None
    highest_field: str | None = None
    highest_label: str | None = None
    choose: str | None = None
    rank_by: str | None = None
    exclude: tuple[str, ...] = ()
    exclude_reason: str | None = None
    counts: tuple[int, ...] = ()
    single_device_field: str | None = None
    speed: str | None = None
    buy_price: str | None = None
    rent_price: str | None = None
    over: str | None = None
    minimize: str | None = None
    needs: tuple[str, ...] = ()
    source: Sources = ()


@attrs.frozen
class QuestionPack:
    id: str
    questions: Mapping[str, QuestionDef]
    kind: str = "questions"
    override: bool = False
    name: str | None = None
    description: str | None = None
    source: Sources = ()
    pack: PackFile = NO_PACK
