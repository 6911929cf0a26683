"""``kind: verdicts`` — the rules that decide fits / tight / exceeds (packs/rules/)."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from .common import NO_PACK, PackFile, Sources


@attrs.frozen
class VerdictRule:
    id: str
    label: str
    when: str
    description: str | None = None
    source: Sources = ()


@attrs.frozen
class ScenarioCheck:
    """A refusal or a warning: where bool formula ``when`` is true, the scenario is refused
    (or carries a warning) with ``message``, whose placeholders ``values`` fills."""

    id: str
    when: str
    message: str
    values: Mapping[str, str] = attrs.field(factory=dict)
    description: str | None = None
    source: Sources = ()


@attrs.frozen
class VerdictPack:
    id: str
    rules: tuple[VerdictRule, ...]
    refusals: tuple[ScenarioCheck, ...] = ()
    warnings: tuple[ScenarioCheck, ...] = ()
    kind: str = "verdicts"
    name: str | None = None
    description: str | None = None
    source: Sources = ()
    override: bool = False
    pack: PackFile = NO_PACK
