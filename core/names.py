"""How names match: case, spaces, '-' and '_' do not matter ("RTX 3090" is rtx-3090)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence


def name_key(text: str) -> str:
    """Loose form of a name for matching: case, spaces, '-' and '_' do not matter."""
    return re.sub(r"[\s_\-]+", "", text.casefold())


def name_forms(name: str) -> tuple[str, str, str]:
    """The forms a name is matched in, in order: as written, ignoring case, ignoring
    punctuation (the stages of a name index)."""
    return name, name.casefold(), name_key(name)


def matching_ids(stages: Sequence[Mapping[str, Iterable[str]]], name: str) -> list[str]:
    """The ids the first matching stage of ``stages`` (one table per form of
    :func:`name_forms`, form → ids) gives ``name``, sorted; empty when none matches."""
    wanted = name.strip()
    for stage, form in zip(stages, name_forms(wanted)):
        hits = stage.get(form)
        if hits:
            return sorted(hits)
    return []
