"""``selection.quantity``: a formula evaluated for the candidate a selection picked.

The report's device totals and prices (a pick's price for all its devices, its memory, a
provider's rate) are such quantities, so each has a derivation down to the pack lines.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import fitproof
from fitproof.cli import main
from fitproof.errors import PackError

from .conftest import pack_line, write_pack


@pytest.fixture(scope="module")
def registry() -> fitproof.Registry:
    return fitproof.load_registry(plugins=False)


def report_json(capsys, *argv: str) -> dict:
    assert main(["report", *argv, "--format", "json", "--no-plugins"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_pick_is_priced_and_sized_for_all_its_devices(capsys, registry):
    """With --gpus 2 the recommendation is a pair of devices: its price and memory are
    those of two, as the selection's condition evaluated them."""
    one = {p["slot"]: p for p in report_json(capsys, "qwen3-8b", "--on", "rtx-4090")["recommendations"]}
    two = {p["slot"]: p for p in report_json(capsys, "qwen3-8b", "--on", "rtx-4090",
                                                "--gpus", "2")["recommendations"]}
    for slot, field in (("best_single_gpu", "price_usd"), ("best_value_gpu", "used_price_usd")):
        hardware = registry.hardware[two[slot]["hardware"]]
        assert two[slot]["devices"] == 2 and one[slot]["devices"] == 1
        assert two[slot]["price"]["value"] == 2 * getattr(hardware, field).value
        assert two[slot]["memory_gb"] == 2 * hardware.memory_gb.value
        assert two[slot]["price"]["quantity"] == f"{slot}.devices_{field}"
    offer = one["cheapest_offer"]
    provider, _, offer_id = offer["id"].partition("/")
    listed = next(o for o in registry.providers[provider].offers if o.id == offer_id)
    assert offer["price"] == {"value": listed.hourly_usd.value, "unit": "USD/h",
                              "quantity": "cheapest_offer.offer_hourly_usd"}
    assert offer["memory_gb"] == listed.gpus.value * registry.hardware[listed.hardware].memory_gb.value


def test_the_providers_table_reads_each_pick(capsys, registry):
    rows = report_json(capsys, "qwen3-8b", "--on", "rtx-4090")["cloud"]["providers"]
    priced = [r for r in rows if r["offer"]]
    assert priced
    for row in priced:
        memory = registry.hardware[row["hardware"]].memory_gb.value
        assert row["memory_gb"] == row["devices"] * memory


def test_explain_derives_a_picked_quantity(capsys, registry):
    assert main(["explain", "recommended_setup.physical_gb", "deepseek-v3",
                 "--on", "h100-80gb-sxm", "--no-plugins", "--format", "json"]) == 0
    root = json.loads(capsys.readouterr().out)
    assert root["kind"] == "selection"
    (inner,) = root["inputs"]
    assert inner["name"] == "physical_gb"
    assert inner["written"] == "hardware.memory_gb * gpus"
    values = {d["name"]: d["value"] for d in inner["inputs"]}
    assert root["value"] == inner["value"] == values["hardware.memory_gb"] * values["gpus"]
    assert values["gpus"] > 1  # 671B parameters need several devices
    assert inner["source"] == pack_line("formulas/seed-memory.yaml", "physical_gb")


def test_a_picked_quantity_that_reads_its_own_pick_is_a_cycle(tmp_path):
    write_pack(tmp_path, "extra.yaml", textwrap.dedent("""\
        kind: formulas
        id: extra
        formulas:
          circular_usd:
            expr: best_single_gpu.circular_usd + 1
            unit: USD
            description: Reads itself through the pick
        """))
    with pytest.raises(PackError) as caught:
        fitproof.load_registry([tmp_path], plugins=False)
    found = [str(p) for p in caught.value.problems]
    assert any("formulas form a cycle: circular_usd → circular_usd" in p for p in found), found


def test_a_batch_evaluates_selections_only_on_the_rows_asked_for(registry):
    """The report evaluates its sections in one batch, and the pick among every accelerator
    only on the rows that show one: there the values are those of a full batch, elsewhere
    what reads a pick is unknown (never a value from another row)."""
    from fitproof.api import scenario
    from fitproof.engine.estimation import Batch

    scenarios = [scenario(registry, model=m, hardware="rtx-4090")
                 for m in ("qwen3-8b", "llama-3.1-70b", "qwen3-8b")]
    full = Batch(registry, scenarios)
    some = Batch(registry, scenarios, selection_rows=[1])
    assert full.values("cheapest_hourly_usd")[1] is not None
    assert some.values("cheapest_hourly_usd") == [None, full.values("cheapest_hourly_usd")[1], None]
    picked = "best_single_gpu.devices_price_usd"
    assert some.values(picked)[1] == full.values(picked)[1] is not None
    assert some.values(picked)[0] is None and full.values(picked)[0] is not None
    # what reads no selection is the same on every row
    assert some.values("decode_tps") == full.values("decode_tps")
