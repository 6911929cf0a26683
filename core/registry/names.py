"""How names match: case, spaces, '-' and '_' do not matter ("RTX 3090" is rtx-3090)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping


def name_key(text: str) -> str:
    """Loose form of a name for matching: case, spaces, '-' and '_' do not matter."""
    return re.sub(r"[\s_\-]+", "", text.casefold())


def name_forms(name: str) -> tuple[str, str, str]:
    """The forms a name is matched in, in order: as written, ignoring case, ignoring
    punctuation (the stages of a name index)."""
    return name, name.casefold(), name_key(name)


def matching_ids(stages: Iterable[Mapping[str, Iterable[str]]], name: str) -> list[str]:
    """The ids the first matching stage of ``stages`` (one table per form of
    :func:`name_forms`, form → ids) gives ``name``, sorted; empty when none matches."""
    wanted = name.strip()
    for stage, form in zip(stages, name_forms(wanted)):
        hits = stage.get(form)
        if hits:
            return sorted(hits)
    return []


def name_stages(names: Mapping[str, Iterable[str]]) -> tuple[dict[str, set[str]], ...]:
    """The stages :func:`matching_ids` reads for packs answering to ``names`` (id → the
    names it answers to): per form of :func:`name_forms`, form → ids."""
    return tuple(LazyStages(names))


class LazyStages:
    """The stages of :func:`name_stages`, each built when a lookup first reaches it (most
    names match as written, and the loosest form is the costliest to build)."""

    def __init__(self, names: Mapping[str, Iterable[str]]):
        self._names = {key: list(options) for key, options in names.items()}
        self._built: list[dict[str, set[str]]] = []

    def __iter__(self) -> Iterator[dict[str, set[str]]]:
        for index in range(3):
            if index == len(self._built):
                stage: dict[str, set[str]] = {}
                for key, options in self._names.items():
                    for option in options:
                        stage.setdefault(name_forms(option)[index], set()).add(key)
                self._built.append(stage)
            yield self._built[index]
