"""The sizing report as a document: the seed pages' sections, in their order.

Only wording and layout live here; every number comes from a report cell, every label
and sentence from the language's catalog.
"""

from __future__ import annotations

from ..views.report import ReportView
from .blocks import Block, Code, Facts, Heading, Paragraph, Table
from .i18n import Messages
from .report_writer import ReportWriter


class _Writer(ReportWriter):
    """The report's sections, in the seed pages' order (report_blocks)."""

    def title(self) -> None:
        t, h = self.t, self.h
        scenario = self.report.scenario
        small, large = self.report.compare_contexts
        totals = {c.context: c for c in self.report.contexts}
        title = "title_best" if self.view.preselected else "title"
        self.add(Heading(t(title, model=self.model.name, hardware=self.hardware.name), 1))
        self.add(Paragraph(t(
            "intro", model=self.model.name, total=self.params(h["params_total"].value),
            active=self.params(h["params_active"].value),
            architecture=self.architecture(), weights=self.n(h["weights"]),
            bits=self.quant.bits, quant=scenario.quant,
            total_small=self.n(totals[small].total_gib) if small in totals else "n/a",
            small=t.context_label(small),
            total_large=self.n(totals[large].total_gib) if large in totals else "n/a",
            large=t.context_label(large), hardware=self.hardware.name,
            decode=self.speed(h["decode"]))))
        if self.model.license:  # the model's architecture and license, as the seed pages badge them
            self.add(Paragraph(t("badges", architecture=self.architecture(),
                                 license=self.model.license)))
        settings = [
            (t("settings.model"), f"{self.model.name} ({self.params(h['params_total'].value)}B"
                                  f" / {self.params(h['params_active'].value)}B)"),
            (t("settings.quant"), f"{scenario.quant} · {self.n(h['weights'])} GiB"),
            (t("settings.context"), f"{t.whole(scenario.inputs['context'])} "
                                    f"({t.context_label(int(scenario.inputs['context']))})"),
            (t("settings.hardware"), f"{self.hardware.display_name} · "
                                     f"{t.number(self.hardware.memory_gb.value, 0)} GB · "
                                     f"{t.number(self.hardware.memory_bandwidth_gbs.value, 0)} GB/s"),
            (t("settings.gpus"), t.whole(scenario.inputs["gpus"])),
            (t("settings.batch"), t.whole(scenario.inputs["batch"])),
            (t("settings.kv"), self.view.kv_label),
            (t("settings.engine"), self.view.engine_name),
            (t("settings.offload"), f"{t.number(scenario.inputs['offload'], 0)}%"),
        ]
        if scenario.workload != "inference":
            settings.append((t("settings.workload"), self.view.workload_name))
        self.add(Facts(tuple(settings)))

    def headline(self) -> None:
        t, h = self.t, self.h
        report = self.report
        self.add(Heading(t("headline.title")), Paragraph(self.verdict(report.verdict)))
        for warning in report.estimate.warnings:
            self.add(Paragraph(t("headline.warning", text=warning)))
        if self.hardware.unverified:
            self.add(Paragraph(t("headline.unverified", hardware=self.hardware.name)))
        for override in report.estimate.overrides:
            self.add(Paragraph(t("headline.override", what=override.what,
                                 replaced=override.replaced, location=override.location,
                                 origin=override.origin)))
        offer = report.cost_pick if report.cost_pick is not None else \
            next((p for p in report.picks if p.offer), None)
        self.add(Facts((
            (t("headline.required"), f"{self.n(h['required'])} GiB · "
                                     + t("headline.required_gb", value=self.n(h["required_gb"]))),
            (t("headline.usable"), f"{self.n(h['usable'])} GiB · "
                                   + t("headline.physical", value=self.n(h["physical"]))),
            (t("headline.headroom"), f"{_signed(self.n(h['headroom']))} GiB · "
                                     + t("headline.utilization", value=self.n(h["utilization"]))),
            (t("headline.decode"), f"{self.speed(h['decode'])}{self.band(h, 'decode')} · "
                                   + t("headline.active", value=self.params(h["params_active"].value))),
            (t("headline.prefill"), f"{self.speed(h['prefill'])}{self.band(h, 'prefill')} · "
                                    + t("headline.ttft", prompt=t.context_label(
                                        int(report.scenario.inputs["prompt"])),
                                        value=self.n(h["ttft"]))),
            (t("headline.cost"), self.t.money(h["cost_per_mtok"].value, 2)
             + (f" · {self.offer_text(offer)}" if offer and offer.id else
                " · " + t("cloud.no_offer", devices=self.devices()) if offer else "")),
        )))

    def breakdown(self) -> None:
        t, h = self.t, self.h
        self.add(Heading(t("breakdown.title")), Paragraph(t(
            "breakdown.summary", total=self.n(h["required"]), total_gb=self.n(h["required_gb"]),
            physical=self.n(h["physical"]), utilization=self.n(h["utilization"]))))
        self.add(Facts((
            (t("breakdown.weights"), f"{self.n(h['weights'])} GiB"),
            (t("breakdown.kv"), f"{self.n(h['kv_cache'])} GiB"),
            (t("breakdown.buffers"), f"{self.n(h['buffers'])} GiB"),
            (t("breakdown.offload"), f"{self.n(h['offload'])} GiB"),
        )))

    def recommendations(self) -> None:
        t = self.t
        items = []
        for pick in self.report.picks:
            if pick.offer:
                value = (t("recommend.cloud", offer=self.offer_text(pick),
                           rate=t.money(pick.price.value, pick.price.precision or 0)) if pick.id else t("recommend.none"))
            else:
                price = f" · ~{t.money(pick.price.value, pick.price.precision or 0)}" if pick.price.value else ""
                value = self.pick_name(pick) + price if pick.id else t("recommend.none")
            items.append((t(f"recommend.{pick.slot}"), value))
        self.add(Heading(t("recommend.title")), Facts(tuple(items)))

    def launch(self) -> None:
        self.add(Heading(self.t("launch.title")))
        for name, command in self.report.launch:
            self.add(Code(name, command))

    def simulator(self) -> None:
        """The seed pages' token-speed simulator, as its caption: time to first token and
        decode speed, and what the model takes on the device."""
        t, h = self.t, self.h
        ttft = "n/a" if h["ttft"].value is None else f"~{self.n(h['ttft'])}ms"
        self.add(Heading(t("simulator.title", ttft=ttft, decode=self.speed(h["decode"]))))
        self.add(Paragraph(t("simulator.caption", model=self.model.name,
                             total=self.n(h["required"]))))

    def cloud(self) -> None:
        t, report = self.t, self.report
        providers = ", ".join(dict.fromkeys(self.view.providers[r.provider].name
                                            for r in report.providers))
        self.add(Heading(t("cloud.title")), Paragraph(t("cloud.subtitle", providers=providers)))
        tco = report.tco
        # the break-even buys what purchase_usd reads: a pick (the seed pages' best single
        # GPU) or, where it reads none, the scenario's own devices
        bought = report.purchase_pick
        bought_name = (self.pick_name(bought, with_memory=False) if bought and bought.id
                       else None if bought else self.devices())
        breakeven = (t("cloud.breakeven_value", months=self.n(tco["breakeven"]))
                     if tco["breakeven"].value is not None else
                     t("cloud.breakeven_unknown") if tco["purchase"].value is None
                     or tco["reference_monthly"].value is None else t("cloud.breakeven_never"))
        price = report.scenario.inputs["electricity_usd_per_kwh"]
        self.add(Facts((
            (t("cloud.hours"), t("cloud.hours_value",
                                 hours=t.number(report.scenario.inputs["hours_per_day"], 1))),
            (t("cloud.breakeven"), breakeven
             + (f" · {bought_name} {t.money(tco['purchase'].value, 0)}" if bought_name else "")),
            (t("cloud.power"), t("cloud.power_value", value=t.money(tco["power"].value),
                                 price=t.money(price, 2 if round(price, 2) == price else 3))),
        )))
        rows = []
        shown = [row for row in report.providers if row.offer]
        missing = list(dict.fromkeys(row.listing for row in report.providers if not row.offer))
        for row in shown:
            rows.append((row.listing, self.instance(row) or t("recommend.none"),
                         f"{t.number(row.memory_gb, 0)} GB" if row.memory_gb else "",
                         t("cloud.rate", value=t.money(row.hourly.value)) if row.offer else "",
                         t("cloud.month", value=t.money(row.monthly.value)) if row.offer else "",
                         t(f"billing.{row.billing}") if row.billing else "",
                         row.url or ""))
        if rows:
            self.add(Table((t("cloud.provider"), t("cloud.instance"), t("cloud.vram"),
                            t("cloud.hourly"), t("cloud.monthly"), t("cloud.billing"),
                            t("site.deploy")), tuple(rows), right=(2, 3, 4)))
        if missing and report.provider_rule:
            self.add(Paragraph(t("cloud.without_rule", providers=", ".join(missing),
                                 rule=report.provider_rule)))
        elif missing:
            self.add(Paragraph(t("cloud.without", devices=self.devices(),
                                 providers=", ".join(missing))))
        checked = sorted({row.checked for row in shown if row.checked})
        if checked:
            self.add(Paragraph(t("cloud.note", date=", ".join(t.date(d) for d in checked))))

    def finetune(self) -> None:
        t = self.t
        if not self.report.finetune:
            self.left_out("finetune")
            return
        self.add(Heading(t("finetune.title", model=self.model.name)))
        for row in self.report.finetune:
            label = t.get(f"workload.{row.workload}", row.label)
            self.add(Facts((
                (label, f"{self.verdict(row.verdict)} · {self.n(row.total)} GiB"),
                (t("finetune.parts_label"), t("finetune.parts", weights=self.n(row.weights),
                                             grads=self.n(row.training_state),
                                             act=self.n(row.activations))),
                (t("finetune.recommended"), self.pick_name(row.recommended)),
            )))
        self.left_out("finetune")

    def notes(self) -> None:
        t, h, report = self.t, self.h, self.report
        scenario = report.scenario
        verdict = report.verdict.id if report.verdict else "unknown"
        self.add(Heading(t("notes.title")), Heading(t("quick.title"), 3))
        self.add(Paragraph(t(
            f"quick.{verdict}", hardware=self.hardware.name, physical=self.n(h["physical"]),
            usable=self.n(h["usable"]), bits=self.quant.bits, quant=scenario.quant,
            model=self.model.name, context=t.context_label(int(scenario.inputs["context"])),
            total=self.n(h["required"]), headroom=self.n(h["headroom"]),
            decode=self.speed(h["decode"]))))
        tuning = report.kv_tuning
        self.left_out("kv_tuning")
        if tuning is not None:
            small, large = tuning.contexts
            flags = t("kv.flags_joiner").join(f"{engine} {flag}" for engine, flag in tuning.flags)
            kv_label = self.view.kv_label
            self.add(Heading(t("kv.title"), 3), Paragraph(t(
                "kv.text", model=self.model.name, architecture=self.architecture(),
                total=self.params(h["params_total"].value),
                active=self.params(h["params_active"].value), small=t.context_label(small),
                large=t.context_label(large), kv_label=kv_label,
                kv_small=self.n(tuning.kv_cache[0]), kv_large=self.n(tuning.kv_cache[1]),
                flags=flags, saving=self.n(tuning.saving),
                total_compressed=self.n(tuning.compressed_total))))

    def contexts(self) -> None:
        t = self.t
        rows = self.report.contexts
        if not rows:
            self.left_out("contexts")
            return
        self.add(Heading(t("contexts.title", first=t.context_label(rows[0].context),
                           last=t.context_label(rows[-1].context), bits=self.quant.bits)))
        self.add(Paragraph(t("contexts.subtitle")))
        self.add(Table((t("contexts.context"), t("contexts.kv"), t("contexts.total"),
                        t("contexts.verdict")),
                       tuple((f"{t.whole(r.context)} ({t.context_label(r.context)})",
                              f"{self.n(r.kv_cache)} GiB",
                              f"{self.n(r.total_gib)} GiB ({self.n(r.total_gb)} GB)",
                              self.verdict(r.verdict, short=self.compact)) for r in rows),
                       right=(1, 2)))
        self.left_out("contexts")

    def compatibility(self) -> None:
        t, report = self.t, self.report
        small, large = report.compare_contexts
        rows = report.compatibility
        self.add(Heading(t("compat.title", model=self.model.name, count=len(rows),
                           bits=self.quant.bits, quant=report.scenario.quant)))
        headers = (t("compat.hardware"), t("compat.vram"), t("compat.bandwidth"),
                   t("compat.at", bits=self.quant.bits, context=t.context_label(small)),
                   t("compat.at", bits=self.quant.bits, context=t.context_label(large)),
                   t("compat.decode"), t("compat.verdict"))
        body = []
        for r in rows:
            vram = f"{self.n(r.physical_gb)} GB" if self.compact else \
                f"{self.n(r.physical_gb)} GB ({self.n(r.usable_gib)} GiB)"
            body.append((r.name, vram, f"{t.number(r.bandwidth_gbs, 0)} GB/s",
                         f"{self.n(r.totals[0])} GiB", f"{self.n(r.totals[1])} GiB",
                         self.speed(r.decode_tps),
                         self.verdict(r.verdict, self.compact, hardware=r.name)))
        self.add(Table(headers, tuple(body), right=(1, 2, 3, 4, 5)))
        self.left_out("compatibility")

    def quantizations(self) -> None:
        t, report = self.t, self.report
        self.add(Heading(t("quant.title", model=self.model.name,
                           context=t.context_label(int(report.scenario.inputs["context"])))))
        headers = [t("quant.format"), t("quant.weights"), t("quant.kv"), t("quant.total"),
                   t("quant.decode"), t("quant.verdict", hardware=self.hardware.name),
                   t("quant.recommended")]
        if not self.compact:
            headers.append(t("quant.source"))
        body = []
        for r in report.quantizations:
            label = r.quant if self.compact else \
                f"{t.get('quant.label.' + r.quant, r.label)} ({r.quant})"
            cells = [label, f"{self.n(r.weights)} GiB", f"{self.n(r.kv_cache)} GiB",
                     f"{self.n(r.total_gib)} GiB ({self.n(r.total_gb)} GB)",
                     self.speed(r.decode_tps), self.verdict(r.verdict, self.compact),
                     self.pick_name(r.recommended)]
            if not self.compact:
                cells.append(t(f"quant.basis.{r.size_basis}"))
            body.append(tuple(cells))
        self.add(Table(tuple(headers), tuple(body), right=(1, 2, 3, 4)))
        self.left_out("quantizations")

    def faq(self) -> None:
        t, h, report = self.t, self.h, self.report
        scenario = report.scenario
        small, large = report.compare_contexts
        at_large = next((c for c in report.contexts if c.context == large), None)
        self.add(Heading(t("faq.title")))
        self.add(Heading(t("faq.can_run", hardware=self.hardware.name,
                           physical=t.number(self.hardware.memory_gb.value, 0),
                           model=self.model.name), 3))
        self.add(Paragraph(t(
            "faq.can_run_answer", bits=self.quant.bits, quant=scenario.quant,
            context=t.context_label(int(scenario.inputs["context"])), model=self.model.name,
            total=self.n(h["required"]), weights=self.n(h["weights"]),
            kv=self.n(h["kv_cache"]), buffers=self.n(h["buffers"]),
            usable=self.n(h["usable"]), hardware=self.hardware.name,
            decode=self.speed(h["decode"]), verdict=self.verdict(report.verdict))))
        if at_large is not None:
            self.add(Heading(t("faq.memory", model=self.model.name,
                               context=t.context_label(large)), 3))
            self.add(Paragraph(t("faq.memory_answer", tokens=t.whole(large),
                                 kv=self.n(at_large.kv_cache), bits=self.quant.bits,
                                 total=self.n(at_large.total_gib),
                                 total_gb=self.n(at_large.total_gb))))

    def elsewhere(self) -> None:
        t, report = self.t, self.report
        self.add(Heading(t("others.title")))
        if report.other_models:
            self.add(Table((t("others.model"), t("others.total"), t("others.decode"),
                            t("others.verdict")),
                           tuple((r.name, f"{self.n(r.total_gib)} GiB",
                                  self.speed(r.decode_tps),
                                  self.verdict(r.verdict, self.compact))
                                 for r in report.other_models), right=(1, 2)))
        elif not report.skipped_in("other_models"):
            self.add(Paragraph(t("others.none")))
        self.left_out("other_models")
        names = [f"{h.name} ({t.number(h.memory_gb.value, 0)}GB)"
                 for h in map(self.view.hardware.__getitem__, self.view.accelerators)
                 if h.id != report.scenario.hardware]
        self.add(Heading(t("elsewhere.title")), Paragraph(" · ".join(sorted(names))))


def report_blocks(view: ReportView, messages: Messages, compact: bool = False) -> list[Block]:
    """The report's sections, in the seed pages' order."""
    writer = _Writer(view, messages, compact)
    for section in (writer.title, writer.headline, writer.breakdown, writer.recommendations,
                    writer.launch, writer.simulator, writer.cloud, writer.finetune, writer.notes, writer.contexts,
                    writer.compatibility, writer.quantizations, writer.faq, writer.elsewhere):
        section()
    return writer.blocks


def _signed(text: str) -> str:
    return text if text.startswith("-") or text == "n/a" else f"+{text}"
