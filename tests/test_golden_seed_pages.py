"""Golden tests: every headline card and both 49-row tables of the seed pages.

Expected values are parsed from the seed pages themselves (tests/golden/seeds/), so the
test data cannot drift from the source. A value matches when fitproof's display of it,
at the precision the formula pack declares, is the text the page prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fitproof
from fitproof.renderers.display import display_number

from .golden.seed_pages import Shown, load_seed_pages

pytestmark = pytest.mark.golden

PAGES = load_seed_pages()
TABLE_PAGES = [stem for stem, page in PAGES.items() if page.compat_table is not None]


def shown_text(shown: Shown) -> str:
    """The page's number without prefixes and thousands separators."""
    return shown.text.lstrip("~$+").replace(",", "")


def check(result: fitproof.Estimate, name: str, shown: Shown, *, scale: float = 1.0) -> None:
    quantity = result.quantities[name]
    assert quantity.value is not None, f"{name} is unknown"
    value = quantity.value * scale
    display = "number" if scale != 1.0 else quantity.display
    text = display_number(value, quantity.precision, display).rstrip("%")
    assert text == shown_text(shown), (
        f"{name} = {value!r} displays as {text}, the page shows {shown.text}")
    if display != "percent":
        assert shown.matches_binary(value), f"{name} = {value!r} does not round to {shown.text}"


def hardware_by_name(registry: fitproof.Registry) -> dict[str, str]:
    table = {}
    for hw in registry.hardware.values():
        table[hw.display_name] = hw.id
        table[hw.name] = hw.id
    return table


def page_estimate(registry, page, hardware_id: str, **inputs) -> fitproof.Estimate:
    model = registry.resolve("model", page.meta.model)
    return fitproof.estimate(model, hardware_id, quant=page.meta.quant, registry=registry,
                             context=page.meta.context_tokens, **inputs)


@pytest.mark.parametrize("stem", sorted(PAGES))
def test_headline_card(registry, stem):
    page = PAGES[stem]
    hardware = hardware_by_name(registry)[page.meta.target_hardware]
    result = page_estimate(registry, page, hardware, prompt=4096)
    card = page.headline
    check(result, "total_gib", card.required_gib)
    check(result, "total_gb", card.required_gb)
    check(result, "usable_gib", card.usable_gib)
    check(result, "headroom_gib", card.headroom_gib)
    check(result, "utilization", card.utilization_pct, scale=100)
    check(result, "decode_tps", card.decode_tok_s)
    check(result, "prefill_tps", card.prefill_tok_s)
    check(result, "ttft_ms", card.ttft_4k_ms)
    check(result, "cost_per_mtok_usd", card.cost_per_1m_usd)
    assert result.verdict.id == card.verdict.kind
    assert result.verdict.label == card.verdict.english
    assert registry.hardware[hardware].memory_gb.value == card.physical_gb.value


@pytest.mark.parametrize("stem", sorted(PAGES))
def test_intro_and_kv_tuning_sentences(registry, stem):
    """Weights, totals at 8K and 32K, KV growth and the 8-bit KV saving at 32K."""
    page = PAGES[stem]
    hardware = hardware_by_name(registry)[page.meta.target_hardware]
    at_8k = page_estimate(registry, page, hardware)
    at_32k = fitproof.estimate(at_8k.scenario.model, hardware, quant=page.meta.quant,
                               context=32768, registry=registry)
    at_32k_8bit = fitproof.estimate(at_8k.scenario.model, hardware, quant=page.meta.quant,
                                    context=32768, kv="fp8", engine="vllm", registry=registry)
    check(at_8k, "weights_gib", page.intro.weights_gib)
    check(at_8k, "total_gib", page.intro.required_8k_gib)
    check(at_32k, "total_gib", page.intro.required_32k_gib)
    check(at_8k, "kv_cache_gib", page.kv_tuning.kv_8k_gib)
    check(at_32k, "kv_cache_gib", page.kv_tuning.kv_32k_gib)
    check(at_32k_8bit, "total_gib", page.kv_tuning.required_32k_q8kv_gib)
    saving = at_32k.value("kv_cache_gib") - at_32k_8bit.value("kv_cache_gib")
    assert display_number(saving, 2) == shown_text(page.kv_tuning.q8_saving_32k_gib)


TABLE_ROWS = [(stem, index) for stem in TABLE_PAGES
              for index in range(len(PAGES[stem].compat_table.rows))]


@pytest.mark.parametrize(("stem", "index"), TABLE_ROWS,
                         ids=[f"{s[:3]}-{PAGES[s].compat_table.rows[i].hardware}"
                              for s, i in TABLE_ROWS])
def test_compatibility_table_row(registry, stem, index):
    page = PAGES[stem]
    row = page.compat_table.rows[index]
    hardware_id = hardware_by_name(registry)[row.hardware]
    hardware = registry.hardware[hardware_id]
    assert hardware.memory_gb.value == row.physical_gb.value
    assert hardware.memory_bandwidth_gbs.value == row.bandwidth_gbs.value
    at_8k = page_estimate(registry, page, hardware_id)
    at_32k = fitproof.estimate(at_8k.scenario.model, hardware_id, quant=page.meta.quant,
                               context=32768, registry=registry)
    check(at_8k, "usable_gib", row.usable_gib)
    check(at_8k, "total_gib", row.total_8k_gib)
    check(at_32k, "total_gib", row.total_32k_gib)
    check(at_8k, "decode_tps", row.decode_tok_s)
    assert at_8k.verdict.id == row.verdict.kind


def test_tables_cover_every_hardware_pack_of_the_seed_set_but_one(registry):
    """The 49-row tables list every accelerator of the seed pages' set
    (tests/golden/hardware-ids.csv) except the RTX 5060 Ti (DE link list only); packs added
    since (issue 9) are not on the pages."""
    import csv

    seed_ids = {row["id"] for row in csv.DictReader(
        (Path(__file__).parent / "golden" / "hardware-ids.csv").open(encoding="utf-8"))}
    names = {row.hardware for stem in TABLE_PAGES for row in PAGES[stem].compat_table.rows}
    missing = {hw.id for hw in registry.hardware.values()
               if hw.id in seed_ids and hw.display_name not in names}
    assert missing == {"rtx-5060-ti-16gb"}
    assert seed_ids <= set(registry.hardware)
