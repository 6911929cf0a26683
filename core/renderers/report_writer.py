"""How the sizing report writes its words: a number, a speed, a verdict, a pick or a cloud
offer in the report's language, and the rows a section leaves out. The sections
themselves are in ``report_document.py``."""

from __future__ import annotations

from collections.abc import Mapping

from ..views.report import Cell, Pick, ProviderRow, ReportView
from ..views.results import Verdict
from .blocks import Block, Paragraph
from .i18n import Messages


class ReportWriter:
    """What every section of the report writes with: numbers, speeds, verdicts, picks
    and offers as the language writes them, and the blocks written so far."""

    def __init__(self, view: ReportView, t: Messages, compact: bool):
        report = view.report
        self.report, self.view, self.t, self.compact = report, view, t, compact
        scenario = report.scenario
        self.model = view.model
        self.hardware = view.hardware[scenario.hardware]
        self.quant = view.quant
        self.h = report.headline
        self.blocks: list[Block] = []

    # -- helpers ----------------------------------------------------------------------------
    def n(self, cell: Cell) -> str:
        return self.t.cell(cell)

    def speed(self, cell: Cell) -> str:
        """``~12.3 tok/s``, or ``n/a`` where there is no speed (an engine that cannot run it)."""
        return "n/a" if cell.value is None else f"~{self.n(cell)} tok/s"

    def band(self, headline: Mapping[str, Cell], name: str) -> str:
        """`` (low–high)`` after a speed whose profile gives an error band, else nothing."""
        low, high = headline.get(f"{name}_low"), headline.get(f"{name}_high")
        if low is None or high is None or low.value is None or high.value is None:
            return ""
        return f" ({self.n(low)}–{self.n(high)})"

    def verdict(self, verdict: Verdict | None, short: bool = False,
                hardware: str | None = None, quant: str | None = None) -> str:
        if verdict is None:
            return self.t("verdict.unknown")
        return self.t(f"verdict.{'short.' if short else ''}{verdict.id}",
                      engine=self.view.engine_name, hardware=hardware or self.hardware.name,
                      quant=quant or self.report.scenario.quant)

    def params(self, value: float | None) -> str:
        return self.t.number(None if value is None else value / 1e9, 2)

    def pick_name(self, pick: Pick, *, with_memory: bool = True) -> str:
        if pick.id is None:
            return self.t("recommend.none")
        assert pick.hardware is not None  # a pick with an id names its hardware
        name = self.view.hardware[pick.hardware].name
        if pick.devices > 1:
            name = f"{pick.devices}x {name}"
        if with_memory and pick.memory_gb is not None:
            name += f" ({self.t.number(pick.memory_gb, 0)}GB)"
        return name

    def local(self, prefix: str, text: str) -> str:
        """Pack text (a tier, an architecture label) in this language, if the catalog has
        it under ``<prefix>.<slug>``; otherwise as the pack writes it."""
        slug = "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())
        return self.t.get(f"{prefix}.{slug}", text)

    def devices(self) -> str:
        """The scenario's devices, as a cloud instance is named ("1x RTX 4090")."""
        gpus = int(self.report.scenario.inputs.get("gpus", 1))
        return f"{gpus}x {self.hardware.name}"

    def left_out(self, section: str) -> None:
        """One line naming the rows ``section`` leaves out because they do not apply, and why."""
        skipped = self.report.skipped_in(section)
        if skipped:
            self.add(Paragraph(self.t("report.skipped", rows="; ".join(
                f"{s.name} ({s.reason})" for s in skipped))))

    def architecture(self) -> str:
        """The model's architecture label in this language (its pack's, else its family's)."""
        return self.local("architecture", self.model.architecture or self.view.family_name)

    def tier(self, text: str) -> str:
        return self.local("tier", text)

    def instance(self, row: ProviderRow) -> str | None:
        """'1x RTX 3090 (Verified Host)', as the provider table names an offer."""
        if row.offer is None:
            return None
        assert row.hardware is not None  # an offer names its hardware
        name = f"{row.devices}x {self.view.hardware[row.hardware].name}"
        tiers = " · ".join(self.tier(t) for t in row.tiers)
        return f"{name} ({tiers})" if tiers else name

    def offer_text(self, pick: Pick) -> str:
        """'Vast.ai · 1x RTX 3090 (Verified Host)' for a cloud pick, tiers localised."""
        provider_id, _, offer_id = (pick.id or "").partition("/")
        provider = self.view.providers.get(provider_id)
        offer = next((o for o in provider.offers if o.id == offer_id), None) if provider else None
        if offer is None or provider is None:
            return pick.name or self.t("recommend.none")
        text = f"{provider.name} · {int(offer.gpus.value)}x {self.view.hardware[offer.hardware].name}"
        return text + (f" ({self.tier(offer.tier)})" if offer.tier else "")

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    # -- sections -----------------------------------------------------------------------------
