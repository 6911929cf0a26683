"""The sizing report's shape is data: the report pack binds each number the text shows
(a role, worded by the catalogs) to a quantity of the profile."""

from __future__ import annotations

import pytest

import fitproof
from fitproof.errors import PackError
from fitproof.report.sections import build_report

from .conftest import REPO, write_pack

SIZING = (REPO / "packs/reports/sizing.yaml").read_text(encoding="utf-8")


def with_report(tmp_path, old: str, new: str) -> fitproof.Registry:
    assert old in SIZING
    write_pack(tmp_path, "reports/sizing.yaml", "override: true\n" + SIZING.replace(old, new, 1))
    return fitproof.load_registry([tmp_path], plugins=False)


def problems(tmp_path, old: str, new: str) -> list[str]:
    with pytest.raises(PackError) as caught:
        with_report(tmp_path, old, new)
    return [str(p) for p in caught.value.problems]


def test_a_role_shows_the_quantity_the_pack_names(tmp_path):
    """Rebinding the headline's decode role to the band's low edge changes the report's
    number, with no code involved."""
    registry = with_report(tmp_path, "  decode: decode_tps\n", "  decode: decode_tps_low\n")
    scenario = fitproof.api.scenario(registry, model="qwen3-8b", hardware="rtx-4090")
    report = build_report(registry, scenario)
    estimate = fitproof.estimate("qwen3-8b", "rtx-4090", registry=registry)
    assert report.headline["decode"].quantity == "decode_tps_low"
    assert report.headline["decode"].value == estimate.value("decode_tps_low")
    assert report.headline["decode"].value < estimate.value("decode_tps")


def test_a_column_naming_an_unknown_quantity_is_refused(tmp_path):
    (problem,) = problems(tmp_path, "total_gb: total_gb, decode_tps: decode_tps}",
                          "total_gb: total_gb, decode_tps: decode_tsp}")
    assert problem.endswith("columns.quantizations.decode_tps: unknown quantity "
                            "'decode_tsp'; did you mean 'decode_tps'?")


def test_a_missing_role_is_refused_by_the_schema(tmp_path):
    (problem,) = problems(tmp_path, "  ttft: ttft_ms\n", "")
    assert "headline: missing required field 'ttft'" in problem


def test_a_report_slot_naming_an_unknown_price_is_refused(tmp_path):
    (problem,) = problems(tmp_path, "price: devices_used_price_usd",
                          "price: device_used_price_usd")
    assert problem.endswith("recommendations.1.price: unknown quantity "
                            "'device_used_price_usd'; did you mean 'devices_used_price_usd'?")


def test_other_models_rank_as_fitproof_models_does_and_follow_the_pack(tmp_path):
    """The report's other-models table is part of the report's one batch; its order is the
    ranking of ``fitproof models --on`` (fitting models first, largest first), and ordering
    by another quantity is a change to the pack."""
    from fitproof.engine.queries import models_on

    registry = fitproof.load_registry(plugins=False)
    scenario = fitproof.api.scenario(registry, model="qwen3-8b", hardware="rtx-4090")
    rows = build_report(registry, scenario).other_models
    ranked = [r.model for r in models_on(registry, "rtx-4090", quant=scenario.quant,
                                         context=int(scenario.inputs["context"]),
                                         include_all=True) if r.model != "qwen3-8b"]
    assert [r.model for r in rows] == ranked
    assert rows[0].total_gib.quantity == "total_gib" and rows[0].verdict is not None
    fast = with_report(tmp_path, "size: params_total,", "size: decode_tps,")
    rows = build_report(fast, fitproof.api.scenario(fast, model="qwen3-8b",
                                                    hardware="rtx-4090")).other_models
    speeds = [r.decode_tps.value for r in rows if r.verdict.id != "exceeds"]
    assert speeds == sorted(speeds, reverse=True) and len(speeds) > 5


def test_a_report_is_one_estimate_and_one_batch(monkeypatch):
    """Every section's variants (accelerators, formats, contexts, fine-tuning, other models,
    the other engines' launch commands) are evaluated together in one batch, beside the
    estimate of the scenario itself."""
    import fitproof.report.sections as report_module
    import fitproof.report.plan as plan_module

    counts = {"batch": 0, "estimate": 0}
    batch, estimate = plan_module.Batch, report_module.Estimate

    def counting(kind, cls):
        def make(*args, **kwargs):
            counts[kind] += 1
            return cls(*args, **kwargs)
        return make

    monkeypatch.setattr(plan_module, "Batch", counting("batch", batch))
    monkeypatch.setattr(report_module, "Estimate", counting("estimate", estimate))
    registry = fitproof.load_registry(plugins=False)
    report = build_report(registry, fitproof.api.scenario(registry))
    assert counts == {"batch": 1, "estimate": 1}
    assert {name for name, _ in report.launch} == {"llama.cpp", "SGLang", "vLLM"}
