"""The sizing report as JSON (schema: schemas/report-output.schema.json)."""

from __future__ import annotations

from typing import Any

from ..views.report import Pick, ReportView
from ..views.results import Verdict
from .i18n import Messages


def _verdict(verdict: Verdict | None, t: Messages) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"id": verdict.id, "label": t(f"verdict.{verdict.id}"), "source": verdict.source}


def _pick(pick: Pick) -> dict[str, Any]:
    return {"slot": pick.slot, "id": pick.id, "hardware": pick.hardware, "label": pick.name,
            "devices": pick.devices, "memory_gb": pick.memory_gb, "price": pick.price.to_dict()}


def report_dict(view: ReportView, t: Messages) -> dict[str, Any]:
    """Plain, JSON-ready form of every section."""
    report = view.report
    result = report.estimate.to_dict()
    tuning = report.kv_tuning
    return {
        "language": t.language,
        "scenario": result["scenario"],
        "verdict": result["verdict"] | {"label": t(f"verdict.{result['verdict']['id']}")
                                        if result["verdict"]["id"] else None},
        "headline": {cell.quantity: cell.to_dict() for cell in report.headline.values()},
        "warnings": list(report.estimate.warnings),
        "overrides": result["overrides"],
        "recommendations": [_pick(p) for p in report.picks],
        "launch_commands": [{"engine": name, "command": command}
                            for name, command in report.launch],
        "cloud": {
            "providers": [{
                "listing": row.listing, "provider": row.provider, "offer": row.offer,
                "hardware": row.hardware, "devices": row.devices, "tiers": list(row.tiers),
                "memory_gb": row.memory_gb,
                "hourly": row.hourly.to_dict(), "monthly": row.monthly.to_dict(),
                "billing": row.billing} for row in report.providers],
            "tco": {cell.quantity: cell.to_dict() for cell in report.tco.values()},
        },
        "finetune": [{
            "workload": row.workload, "label": row.label, "weights": row.weights.to_dict(),
            "training_state": row.training_state.to_dict(),
            "activations": row.activations.to_dict(), "total": row.total.to_dict(),
            "verdict": _verdict(row.verdict, t), "recommended": _pick(row.recommended)}
            for row in report.finetune],
        "kv_tuning": None if tuning is None else {
            "contexts": list(tuning.contexts),
            "kv_cache": [c.to_dict() for c in tuning.kv_cache],
            "total": [c.to_dict() for c in tuning.totals],
            "compressed_kv": tuning.compressed_kv,
            "compressed_kv_cache": tuning.compressed_kv_cache.to_dict(),
            "compressed_total": tuning.compressed_total.to_dict(),
            "saving": tuning.saving.to_dict() | {"formula": tuning.saving_formula},
            "flags": [{"engine": engine, "flag": flag} for engine, flag in tuning.flags],
        },
        "context_scaling": [{
            "context": row.context, "kv_cache": row.kv_cache.to_dict(),
            "total_gib": row.total_gib.to_dict(), "total_gb": row.total_gb.to_dict(),
            "verdict": _verdict(row.verdict, t)} for row in report.contexts],
        "compatibility": {
            "contexts": list(report.compare_contexts),
            "rows": [{
                "hardware": row.hardware, "name": row.name,
                "physical_gb": row.physical_gb.to_dict(), "usable_gib": row.usable_gib.to_dict(),
                "bandwidth_gbs": row.bandwidth_gbs,
                "total_gib": [c.to_dict() for c in row.totals],
                "decode_tps": row.decode_tps.to_dict(), "verdict": _verdict(row.verdict, t)}
                for row in report.compatibility],
        },
        "quantizations": [{
            "quant": row.quant, "label": t.get(f"quant.label.{row.quant}", row.label),
            "size_basis": row.size_basis, "weights": row.weights.to_dict(),
            "kv_cache": row.kv_cache.to_dict(), "total_gib": row.total_gib.to_dict(),
            "total_gb": row.total_gb.to_dict(), "decode_tps": row.decode_tps.to_dict(),
            "verdict": _verdict(row.verdict, t), "recommended": _pick(row.recommended)}
            for row in report.quantizations],
        "other_models": [{
            "model": row.model, "name": row.name, "total_gib": row.total_gib.to_dict(),
            "decode_tps": row.decode_tps.to_dict(), "verdict": _verdict(row.verdict, t)}
            for row in report.other_models],
        "skipped": [{"section": s.section, "name": s.name, "reason": s.reason}
                    for s in report.skipped],
    }
