"""Prove the seed-page parser (``seed_pages.py``).

Three kinds of evidence:

* every value the parser reads is compared with the hand-derived CSVs in
  ``seed-data/`` (a cross-check only; the golden values come from the pages);
* the pages repeat many numbers (intro, headline, simulator, quick verdict, FAQ,
  breakdown, table row of the target); the parsed copies must agree;
* counts, spot values with their printed decimals, and "fail loudly" on damaged pages.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from .seed_pages import (
    SEEDS_DIR,
    VERDICT_TEXTS,
    CompatRow,
    LaunchCommands,
    SeedPage,
    SeedPageError,
    Shown,
    load_seed_pages,
    parse_seed_page,
    parse_seed_text,
)

HERE = Path(__file__).resolve().parent
DATA = HERE / "seed-data"
# the shared folder beside the checkout (../shared), where the seed pages come from
SHARED = HERE.parent.parent.parent / "shared"

EN_35B = "000_5e7fe9abcf65f49f"
DE_35B = "002_bdeffcd694695e61"
ES_35B = "003_4d9593f7750e74b3"
EN_122B = "004_88199bed12c6e9bb"
STEMS = (EN_35B, DE_35B, ES_35B, EN_122B)
EN_PAGES = (EN_35B, EN_122B)
HW_PAGES = (DE_35B, ES_35B)
ENGLISH_VERDICT = {"fits": "Fits with Safe Headroom", "tight": "Tight Fit (<8% Headroom)",
                   "exceeds": "Exceeds Available GPU Memory"}


@pytest.fixture(scope="module")
def pages() -> dict[str, SeedPage]:
    """All four seed pages, parsed once."""
    return load_seed_pages()


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _header(name: str) -> list[str]:
    with (DATA / name).open(newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle))


def _by_seed(name: str) -> dict[str, list[dict[str, str]]]:
    grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in _rows(name):
        grouped[row["seed"].removesuffix(".txt")].append(row)
    return grouped


def same(shown: Shown | None, csv_text: str, what: str = "") -> None:
    """``shown`` equals the CSV number (value, and the CSV number displays as it)."""
    assert shown is not None, f"{what}: page value missing, CSV has {csv_text!r}"
    expected = float(csv_text)
    assert shown.value == expected, f"{what}: page {shown.text!r} vs CSV {csv_text!r}"
    assert shown.matches(expected), f"{what}: CSV {csv_text!r} does not display as {shown.text!r}"


def spot(shown: Shown | None, value: float, text: str, decimals: int) -> None:
    """``shown`` is exactly ``Shown(value, text, decimals)``."""
    assert shown == Shown(value=value, text=text, decimals=decimals)


def target_row(page: SeedPage) -> CompatRow:
    """The compatibility-table row of the page's own target hardware (EN pages)."""
    assert page.compat_table is not None
    hits = [r for r in page.compat_table.rows if r.hardware.endswith(" " + page.meta.target_hardware)]
    assert len(hits) == 1, hits
    return hits[0]


# ------------------------------------------------------------------ files and counts


def test_loads_the_four_pages(pages: dict[str, SeedPage]) -> None:
    assert tuple(pages) == STEMS
    assert {k: p.meta.language for k, p in pages.items()} == {
        EN_35B: "en", DE_35B: "de", ES_35B: "es", EN_122B: "en"}
    for stem, page in pages.items():
        assert page.stem == stem and page.path == SEEDS_DIR / f"{stem}.txt"


@pytest.mark.skipif(not (SHARED / "seeds").is_dir(),
                    reason=f"the shared folder beside the checkout ({SHARED}) has no seeds/")
def test_seed_files_are_the_shared_ones() -> None:
    for stem in STEMS:
        name = f"{stem}.txt"
        assert (SEEDS_DIR / name).read_bytes() == (SHARED / "seeds" / name).read_bytes()


@pytest.mark.skipif(not (SHARED / "reference/seed-data").is_dir(),
                    reason=f"the shared folder beside the checkout ({SHARED}) has no reference/seed-data/")
@pytest.mark.parametrize("name", ["gpus.csv", "pages.csv", "providers.csv", "quant_matrix.csv", "finetune.csv"])
def test_csv_copies_are_byte_identical(name: str) -> None:
    assert (DATA / name).read_bytes() == (SHARED / "reference/seed-data" / name).read_bytes()


def test_counts(pages: dict[str, SeedPage]) -> None:
    for stem in EN_PAGES:
        table = pages[stem].compat_table
        assert table is not None and len(table.rows) == 49
        spot(table.stated_count, 49, "49", 0)
        assert pages[stem].quant_matrix is None
    for stem in HW_PAGES:
        matrix = pages[stem].quant_matrix
        assert matrix is not None and len(matrix.rows) == 8
        assert [r.quant for r in matrix.rows] == [
            "BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "IQ4_XS", "Q3_K_M", "UD-Q2_K_XL"]
        assert pages[stem].compat_table is None
    for page in pages.values():
        assert len(page.tco.providers) == 5
        assert [b.mode for b in page.finetune] == ["QLoRA", "LoRA", "Full"]
        assert [s.slot for s in page.recommended] == ["best_single", "best_value", "unified", "cloud"]


def test_sections_present_by_layout(pages: dict[str, SeedPage]) -> None:
    for stem in EN_PAGES:
        page = pages[stem]
        assert page.meta.layout == "model"
        assert (page.configurator, page.breakdown, page.faq, page.other_gpus, page.other_models) == (
            None, None, None, None, None)
        assert page.meta.hours_per_day is None and page.meta.checked_date is None
        assert page.meta.target_bandwidth_gbs is None
        assert page.meta.hf_repo and page.meta.gguf_repo
    for stem in HW_PAGES:
        page = pages[stem]
        assert page.meta.layout == "model_on_hardware"
        assert None not in (page.configurator, page.breakdown, page.faq, page.other_gpus, page.other_models)
        assert page.meta.hf_repo is None and page.meta.gguf_repo is None


# ------------------------------------------------------------------ pages.csv


PAGE_COLUMNS_NOT_ON_EN = {"buffer_gib", "required_32k_gb", "hours_per_day", "checked_date"}


@pytest.mark.parametrize("row", _rows("pages.csv"), ids=lambda r: r["seed"][:3])
def test_pages_csv(pages: dict[str, SeedPage], row: dict[str, str]) -> None:
    page = pages[row["seed"].removesuffix(".txt")]
    meta, head = page.meta, page.headline
    slots = {s.slot: s for s in page.recommended}
    checked: set[str] = {"seed"}

    def num(column: str, shown: Shown | None) -> None:
        checked.add(column)
        same(shown, row[column], column)

    def text(column: str, value: object) -> None:
        checked.add(column)
        assert value == row[column], column

    def absent(column: str, value: object) -> None:
        checked.add(column)
        assert row[column] == "" and value is None, column

    text("language", meta.language)
    text("model", meta.model)
    num("total_params_b", meta.total_params_b)
    num("active_params_b", meta.active_params_b)
    text("target_gpu", meta.target_hardware)
    num("vram_gb", meta.target_physical_gb)
    num("bandwidth_gbs", meta.target_bandwidth_gbs if meta.language != "en" else target_row(page).bandwidth_gbs)
    text("quant", meta.quant)
    num("context", meta.context_tokens)
    num("weights_gib", page.intro.weights_gib)
    num("kv_8k_gib", page.kv_tuning.kv_8k_gib)
    if page.breakdown is not None:
        num("buffer_gib", page.breakdown.buffers_gib)
    else:  # EN pages never print the 0.56 GiB buffer; the CSV fills it in.
        checked.add("buffer_gib")
        assert row["buffer_gib"] == "0.56" and meta.language == "en"
    num("required_8k_gib", head.required_gib)
    num("required_8k_gb", head.required_gb)
    num("required_32k_gib", page.intro.required_32k_gib)
    if page.faq is not None:
        num("required_32k_gb", page.faq.required_32k_gb)
    else:
        absent("required_32k_gb", None)
    num("kv_32k_gib", page.kv_tuning.kv_32k_gib)
    num("kv_q8_saving_32k_gib", page.kv_tuning.q8_saving_32k_gib)
    num("required_32k_q8kv_gib", page.kv_tuning.required_32k_q8kv_gib)
    num("usable_gib", head.usable_gib)
    num("headroom_gib", head.headroom_gib)
    num("utilization_pct", head.utilization_pct)
    text("verdict", head.verdict.english)
    num("decode_tok_s", head.decode_tok_s)
    num("prefill_tok_s", head.prefill_tok_s)
    num("ttft_4k_ms", head.ttft_4k_ms)
    num("cost_per_1m_usd", head.cost_per_1m_usd)
    text("best_single_gpu", slots["best_single"].name)
    num("best_single_price_usd", slots["best_single"].price_usd)
    value = slots["best_value"]
    # The CSV appends the "160GB" detail line to a name without a (..GB) suffix.
    value_name = value.name if value.name.endswith("GB)") or value.memory_gb is None else (
        f"{value.name} ({value.memory_gb.text}GB)")
    text("value_gpu", value_name)
    num("value_price_usd", value.price_usd)
    text("unified_pick", slots["unified"].name)
    num("unified_price_usd", slots["unified"].price_usd)
    text("cloud_from", slots["cloud"].name)
    num("cloud_from_rate_usd_hr", slots["cloud"].hourly_usd)
    text("cloud_from_instance", slots["cloud"].instance)
    num("breakeven_months", page.tco.breakeven_months)
    num("local_power_usd_month", page.tco.local_power_usd_month)
    if meta.hours_per_day is not None:
        num("hours_per_day", meta.hours_per_day)
        text("checked_date", meta.checked_date)
    else:
        absent("hours_per_day", meta.hours_per_day)
        absent("checked_date", meta.checked_date)

    assert checked == set(_header("pages.csv")), "every pages.csv column is cross-checked"
    if meta.language == "en":
        assert {c for c in checked if row[c] == ""} | {"buffer_gib"} == PAGE_COLUMNS_NOT_ON_EN


# ------------------------------------------------------------------ providers.csv


@pytest.mark.parametrize("stem", STEMS)
def test_providers_csv(pages: dict[str, SeedPage], stem: str) -> None:
    page = pages[stem]
    expected = _by_seed("providers.csv")[stem]
    assert len(expected) == len(page.tco.providers) == 5
    for got, row in zip(page.tco.providers, expected):
        assert row["model"] == page.meta.model
        assert got.provider == row["provider"]
        assert got.instance == row["instance_raw"]
        same(got.vram_gb, row["vram_gb"], "vram_gb")
        same(got.hourly_usd, row["hourly_usd"], "hourly_usd")
        same(got.monthly_usd, row["monthly_usd"], "monthly_usd")
        assert got.billing == row["billing_raw"]
        # The implied 3-decimal rate is derived, not printed: it must display as the page rate.
        assert got.hourly_usd.matches(float(row["implied_hourly_usd"]))
        assert got.monthly_usd.text == "$" + row["monthly_usd"]  # money keeps trailing zeros


def test_provider_text_is_kept_verbatim(pages: dict[str, SeedPage]) -> None:
    assert pages[EN_35B].tco.providers[2].provider_text == "Vultr ($300 Free Credit*)"
    assert pages[DE_35B].tco.providers[2].provider_text == "*Vultr ($300 Free Credit)**"
    assert pages[ES_35B].tco.providers[2].provider_text == "*Vultr ($300 Free Credit)**"
    assert [p.deploy_text for p in pages[ES_35B].tco.providers] == ["Lanzar GPU ↗"] * 5


# ------------------------------------------------------------------ gpus.csv


@pytest.mark.parametrize(("stem", "suffix"), [(EN_35B, "35b"), (EN_122B, "122b")])
def test_gpus_csv(pages: dict[str, SeedPage], stem: str, suffix: str) -> None:
    table = pages[stem].compat_table
    assert table is not None
    expected = _rows("gpus.csv")
    assert [r.hardware for r in table.rows] == [row["name"] for row in expected]
    required = pages[stem].headline.required_gib
    for got, row in zip(table.rows, expected):
        assert got.hardware.startswith(row["vendor"] + " ")
        same(got.physical_gb, row["vram_gb"], "vram_gb")
        same(got.usable_gib, row["usable_gib"], "usable_gib")
        same(got.bandwidth_gbs, row["bandwidth_gbs"], "bandwidth_gbs")
        same(got.decode_tok_s, row[f"decode_{suffix}"], "decode")
        assert got.verdict.english == row[f"fits_{suffix}"]
        assert got.total_8k_gib == required
        assert got.total_32k_gib == pages[stem].intro.required_32k_gib


# ------------------------------------------------------------------ quant_matrix.csv


@pytest.mark.parametrize("stem", HW_PAGES)
def test_quant_matrix_csv(pages: dict[str, SeedPage], stem: str) -> None:
    matrix = pages[stem].quant_matrix
    assert matrix is not None
    expected = _by_seed("quant_matrix.csv")[stem]
    assert len(expected) == len(matrix.rows) == 8
    for got, row in zip(matrix.rows, expected):
        assert row["model"] == matrix.model == pages[stem].meta.model
        assert row["target_gpu"] == matrix.target_hardware == pages[stem].meta.target_hardware
        assert row["context"] == matrix.context_label == "8K"
        assert got.quant == row["quant"]
        assert got.label == row["quant_label_raw"]
        same(got.weights_gib, row["weights_gib"], "weights_gib")
        same(got.kv_gib, row["kv_gib"], "kv_gib")
        same(got.total_gib, row["total_gib"], "total_gib")
        same(got.total_gb, row["total_gb"], "total_gb")
        same(got.decode_tok_s, row["decode_tok_s"], "decode_tok_s")
        assert got.verdict.text == row["verdict_raw"]
        assert got.verdict.english == row["verdict_en"]
        assert got.recommended_gpu == row["recommended_gpu"]
        assert got.data_source == row["data_source_raw"]


# ------------------------------------------------------------------ finetune.csv


@pytest.mark.parametrize("stem", STEMS)
def test_finetune_csv(pages: dict[str, SeedPage], stem: str) -> None:
    page = pages[stem]
    expected = _by_seed("finetune.csv")[stem]
    assert len(expected) == len(page.finetune) == 3
    for got, row in zip(page.finetune, expected):
        assert row["model"] == page.meta.model
        assert got.mode == row["mode"]
        same(got.weights_gib, row["weights_gib"], "weights")
        same(got.grads_optimizer_gib, row["grads_optimizer_gib"], "grads+optimizer")
        same(got.activations_gib, row["activations_gib"], "activations")
        same(got.total_gib, row["total_gib"], "total")
        assert got.verdict.english == row["verdict_on_page_target"]
        assert got.recommended_gpu == row["recommended_gpu"]


# ------------------------------------------------------------------ the page agrees with itself


@pytest.mark.parametrize("stem", STEMS)
def test_repeated_numbers_agree(pages: dict[str, SeedPage], stem: str) -> None:
    page = pages[stem]
    head, intro, kv, qv, sim = page.headline, page.intro, page.kv_tuning, page.quick_verdict, page.simulator
    assert head.required_gib == intro.required_8k_gib == sim.required_gib
    assert head.required_gib.value == qv.required_gib.value
    assert head.usable_gib == qv.usable_gib
    assert head.physical_gb == qv.physical_gb == page.meta.target_physical_gb
    assert head.headroom_gib.value == qv.headroom_gib.value
    assert head.decode_tok_s == qv.decode_tok_s == sim.decode_tok_s
    assert head.ttft_4k_ms == sim.ttft_ms
    assert head.active_params_b == intro.active_params_b == kv.active_params_b
    assert intro.total_params_b == kv.total_params_b
    assert intro.quant == qv.quant == page.meta.quant == "Q4_K_M"
    assert qv.context_label == page.meta.context_label == "8K"
    assert f"--ctx-size {int(page.meta.context_tokens.value)} " in page.commands.llama_cpp
    assert f"--max-model-len {int(page.meta.context_tokens.value)} " in page.commands.vllm
    assert page.finetune_block("QLoRA").weights_gib == intro.weights_gib
    assert page.tco.providers[1].hourly_usd == page.slot("cloud").hourly_usd
    if page.compat_table is not None:
        row = target_row(page)
        assert row.physical_gb == head.physical_gb and row.usable_gib == head.usable_gib
        assert row.decode_tok_s == head.decode_tok_s and row.verdict == head.verdict
    if intro.decode_tok_s is not None:
        assert intro.decode_tok_s == head.decode_tok_s
    if page.configurator is not None:
        cfg = page.configurator
        assert cfg.total_params_b == intro.total_params_b and cfg.active_params_b == intro.active_params_b
        assert cfg.quant == intro.quant and cfg.weights_gib == intro.weights_gib
        assert cfg.physical_gb == head.physical_gb
        assert cfg.offload_pct.value == 0
    if page.breakdown is not None:
        bd = page.breakdown
        assert bd.total_gib == head.required_gib and bd.total_gb == head.required_gb
        assert bd.capacity.value == head.physical_gb.value and bd.capacity_unit == "GiB"
        assert bd.utilization_pct == head.utilization_pct
        assert bd.weights_gib == intro.weights_gib and bd.kv_state_gib == kv.kv_8k_gib
        assert bd.offload_gib.value == 0
    if page.faq is not None:
        faq = page.faq
        assert faq.required_8k_gib == head.required_gib and faq.usable_gib == head.usable_gib
        assert faq.weights_gib == intro.weights_gib and faq.kv_8k_gib == kv.kv_8k_gib
        assert page.breakdown is not None and faq.buffers_gib == page.breakdown.buffers_gib
        assert faq.decode_tok_s == head.decode_tok_s
        assert faq.kv_32k_gib == kv.kv_32k_gib and faq.required_32k_gib == intro.required_32k_gib
        assert faq.model == page.meta.model and faq.quant == page.meta.quant
    if page.quant_matrix is not None:
        q4 = next(r for r in page.quant_matrix.rows if r.quant == "Q4_K_M")
        assert q4.weights_gib == intro.weights_gib and q4.kv_gib == kv.kv_8k_gib
        assert q4.total_gib == head.required_gib and q4.total_gb == head.required_gb
        assert q4.decode_tok_s == head.decode_tok_s and q4.verdict == head.verdict
        assert q4.recommended_gpu == page.slot("best_single").name
        bf16 = page.quant_matrix.rows[0]
        assert bf16.weights_gib == page.finetune_block("LoRA").weights_gib


def test_35b_pages_share_hardware_independent_values(pages: dict[str, SeedPage]) -> None:
    a, b, c = pages[EN_35B], pages[DE_35B], pages[ES_35B]
    assert a.commands == b.commands == c.commands
    for attr in ("required_gib", "required_gb"):
        assert getattr(a.headline, attr) == getattr(b.headline, attr) == getattr(c.headline, attr)
    assert a.kv_tuning.kv_32k_gib == b.kv_tuning.kv_32k_gib == c.kv_tuning.kv_32k_gib
    assert [p.monthly_usd for p in a.tco.providers] == [p.monthly_usd for p in c.tco.providers]
    assert [(s.name, s.price_usd) for s in a.recommended] == [(s.name, s.price_usd) for s in b.recommended]


# ------------------------------------------------------------------ spot values with decimals


def test_spot_values(pages: dict[str, SeedPage]) -> None:
    en, de, es, big = pages[EN_35B], pages[DE_35B], pages[ES_35B], pages[EN_122B]
    spot(en.headline.decode_tok_s, 98.0, "~98", 0)
    spot(en.headline.required_gib, 21.28, "21.28", 2)
    spot(en.headline.headroom_gib, 1.52, "+1.52", 2)
    spot(en.headline.usable_gib, 22.8, "22.8", 1)
    spot(en.intro.weights_gib, 20.5, "20.5", 1)
    spot(en.meta.total_params_b, 35.95, "35.95", 2)
    spot(en.meta.context_tokens, 8192.0, "8192", 0)
    spot(en.slot("unified").price_usd, 1999.0, "~$1,999", 0)
    spot(en.tco.breakeven_months, 26.6, "~26.6", 1)
    spot(en.headline.cost_per_1m_usd, 0.54, "$0.54", 2)
    assert en.finetune_block("QLoRA").verdict.text == "Tight Fit (<8% Headroom)"
    assert en.finetune_block("QLoRA").verdict.kind == "tight"
    assert en.meta.hf_repo == "Qwen/Qwen3.5-35B-A3B"
    assert en.meta.gguf_repo == "unsloth/Qwen3.5-35B-A3B-GGUF"
    assert en.commands.llama_cpp == (
        "llama-server -hf unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M \\ --ctx-size 8192 -ngl 999 --flash-attn")
    assert LaunchCommands.argv(en.commands.vllm) == (
        "vllm", "serve", "Qwen/Qwen3.5-35B-A3B", "--max-model-len", "8192", "--gpu-memory-utilization", "0.92")

    assert de.faq is not None and de.configurator is not None and de.breakdown is not None
    spot(de.faq.context_32k_tokens, 32768.0, "32.768", 0)  # '.' groups thousands here
    spot(de.configurator.context_tokens, 8192.0, "8,192", 0)  # ',' groups thousands here
    spot(de.faq.required_32k_gb, 23.35, "23.35", 2)
    spot(de.breakdown.buffers_gib, 0.56, "0.56", 2)
    spot(de.breakdown.offload_gib, 0.0, "0", 0)
    spot(de.meta.target_bandwidth_gbs, 1638.0, "1638", 0)
    spot(de.meta.hours_per_day, 4.0, "4", 0)
    assert de.meta.checked_date == "2026-11-05"
    assert de.meta.target_hardware == "DCU K100-AI 64GB (海光深算)"
    assert de.headline.verdict.text == "Passt mit sicherer Reserve"
    assert de.quant_matrix is not None
    bf16 = de.quant_matrix.rows[0]
    spot(bf16.decode_tok_s, 64.2, "~64.2", 1)
    assert bf16.verdict.text == "Überschreitet verfügbaren GPU-Speicher" and bf16.verdict.kind == "exceeds"
    spot(de.quant_matrix.rows[4].total_gib, 21.28, "21.28", 2)
    spot(de.quant_matrix.rows[3].total_gib, 24.7, "24.7", 1)

    assert es.faq is not None
    spot(es.faq.context_32k_tokens, 32768.0, "32.768", 0)
    spot(es.headline.prefill_tok_s, 24000.0, "~24000", 0)
    assert es.meta.checked_date == "2026-11-04"
    assert es.meta.architecture == "Híbrido Lineal/Mamba + MoE"
    assert es.finetune_block("LoRA").verdict.text == "Cabe con Margen Seguro"
    assert es.finetune_block("Full").verdict.text == "Supera la Memoria GPU Disponible"
    assert es.finetune_block("Full").label == "FT Completo"

    spot(big.meta.total_params_b, 122.0, "122", 0)
    spot(big.headline.required_gb, 75.19, "75.19", 2)
    value = big.slot("best_value")
    assert value.name == "2x A100 80GB SXM" and value.detail == "160GB · ~$24,000"
    spot(value.gpu_count, 2.0, "2", 0)
    spot(value.memory_gb, 160.0, "160", 0)
    spot(value.price_usd, 24000.0, "~$24,000", 0)
    spot(big.tco.providers[2].hourly_usd, 2.4, "$2.40", 2)
    spot(big.tco.providers[0].monthly_usd, 144.7, "$144.70", 2)
    full = big.finetune_block("Full")
    assert full.recommended_gpu == "8x H200 141GB SXM (1128GB)"
    spot(full.recommended_gpu_count, 8.0, "8", 0)
    spot(full.recommended_memory_gb, 1128.0, "1128", 0)
    assert big.compat_table is not None
    a800 = next(r for r in big.compat_table.rows if r.hardware == "NVIDIA A800 80GB SXM")
    spot(a800.usable_gib, 76.0, "76", 0)
    spot(a800.decode_tok_s, 124.6, "~124.6", 1)
    mac = next(r for r in big.compat_table.rows if r.hardware == "Apple Mac mini M4 Pro 64GB")
    spot(mac.decode_tok_s, 20.4, "~20.4", 1)
    assert mac.verdict.kind == "exceeds"


# ------------------------------------------------------------------ link lists


def test_other_gpu_lists_follow_the_table(pages: dict[str, SeedPage]) -> None:
    table = pages[EN_35B].compat_table
    assert table is not None
    vendors = {row["name"]: row["vendor"] for row in _rows("gpus.csv")}
    short = [(r.hardware.removeprefix(vendors[r.hardware] + " "), r.physical_gb) for r in table.rows]
    for stem in HW_PAGES:
        listed = pages[stem].other_gpus
        assert listed is not None
        target = pages[stem].meta.target_hardware
        extra = [g.name for g in listed if g.name not in dict(short)]
        expected = [(n, gb) for n, gb in short if n != target]
        got = [(g.name, g.memory_gb) for g in listed if g.name in dict(short)]
        assert got == expected, stem
        assert all(g.text == f"{g.name} ({g.memory_gb.text}GB)" for g in listed)
        # The German page also links an RTX 5060 Ti that is not in the 49-GPU table.
        assert extra == (["RTX 5060 Ti 16GB"] if stem == DE_35B else [])
    assert len(pages[DE_35B].other_gpus or ()) == 49
    assert len(pages[ES_35B].other_gpus or ()) == 48


def test_other_model_lists(pages: dict[str, SeedPage]) -> None:
    de, es = pages[DE_35B].other_models, pages[ES_35B].other_models
    assert de is not None and es is not None
    assert (len(de), len(es)) == (79, 75)
    for names in (de, es):
        assert names[0] == "Qwen3.8 Flash Next (125B-A6B)" and names[-1] == "Liquid LFM3 1.7B"
        for name in ("DeepSeek R1 Distill Llama 70B", "Hunyuan A13B Instruct (混元 80B)", "gpt-oss-120b",
                     "Qwen3 30B-A3B Instruct 2507", "Llama 4 Scout 17B-16E (109B)", "Kimi-Dev 72B"):
            assert name in names
        assert len(set(names)) == len(names)
        assert pages[DE_35B].meta.model not in names
    assert [n for n in de if n not in es] == [
        "Gemma 4 E4B IT", "Gemma 4 E2B IT", "Kimi K3.1 Pro (2.8T-A104B)", "Step-5 Preview (600B-A27B)"]
    assert all(n in de for n in es)


# ------------------------------------------------------------------ verdicts


def test_verdict_texts(pages: dict[str, SeedPage]) -> None:
    seen: dict[str, set[str]] = defaultdict(set)
    for page in pages.values():
        verdicts = [page.headline.verdict] + [b.verdict for b in page.finetune]
        verdicts += [r.verdict for r in (page.compat_table.rows if page.compat_table else ())]
        verdicts += [r.verdict for r in (page.quant_matrix.rows if page.quant_matrix else ())]
        for verdict in verdicts:
            assert VERDICT_TEXTS[verdict.text] == (page.meta.language, verdict.kind)
            seen[page.meta.language].add(verdict.kind)
    assert seen == {"en": {"fits", "tight", "exceeds"}, "de": {"fits", "exceeds"}, "es": {"fits", "exceeds"}}
    assert {k: t for t, (lang, k) in VERDICT_TEXTS.items() if lang == "en"} == ENGLISH_VERDICT


# ------------------------------------------------------------------ Shown


def test_shown_parse() -> None:
    assert Shown.parse("~98") == Shown(98.0, "~98", 0)
    assert Shown.parse("21.28") == Shown(21.28, "21.28", 2)
    assert Shown.parse("$1,999") == Shown(1999.0, "$1,999", 0)
    assert Shown.parse("~$24,000") == Shown(24000.0, "~$24,000", 0)
    assert Shown.parse("+1.52") == Shown(1.52, "+1.52", 2)
    assert Shown.parse("-3.5") == Shown(-3.5, "-3.5", 1)
    assert Shown.parse("$2.40") == Shown(2.4, "$2.40", 2)
    assert Shown.parse("32.768", thousands=".") == Shown(32768.0, "32.768", 0)
    assert Shown.parse("32.768") == Shown(32.768, "32.768", 3)  # same text, other context
    for bad in ("1,99", "", "GiB", "1.2.3", "12,34.5"):
        with pytest.raises(ValueError):
            Shown.parse(bad)
    with pytest.raises(ValueError):
        Shown.parse("32.76", thousands=".")


def test_shown_matches_rounds_half_away_from_zero() -> None:
    s = Shown.parse("0.33")
    assert s.matches(0.325) and s.matches(0.3349) and not s.matches(0.335) and not s.matches(0.3249)
    assert Shown.parse("~98").matches(97.972) and Shown.parse("~98").matches(97.5)
    assert not Shown.parse("~98").matches(97.49)
    assert Shown.parse("-1.5").matches(-1.45) and not Shown.parse("-1.4").matches(-1.45)
    assert Shown.parse("$1,999").matches(1999.4)
    assert not Shown.parse("1").matches(float("nan")) and not Shown.parse("1").matches(float("inf"))
    # repr-based rounding vs the pages' toFixed (exact binary value): 141 * 0.95 = 133.9499…
    shown = Shown.parse("133.9")
    assert not shown.matches(141 * 0.95) and shown.matches_binary(141 * 0.95)
    assert Shown.parse("134").matches(141 * 0.95)


# ------------------------------------------------------------------ fail loudly


def _text(stem: str) -> str:
    return (SEEDS_DIR / f"{stem}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("stem", "old", "new", "message"),
    [
        (EN_35B, "Quick Hardware Verdict\n", "", r"missing section 'Quick Hardware Verdict'"),
        (EN_35B, "Tight Fit (<8% Headroom)", "Tight Fit (<10% Headroom)", r"unknown verdict text"),
        (EN_35B, "~98 tok/s\n3B", "~98,0 tok/s\n3B", r"expected"),
        (EN_35B, "| Apple Mac Studio M3 Ultra 512GB |", "Apple Mac Studio M3 Ultra 512GB", r"states 49 GPUs"),
        (EN_122B, "Purchase break-even", "Break-even", r"missing section 'Purchase break-even'"),
        (DE_35B, "Geprüft am: 2026-11-05", "Geprüft: 2026-11-05", r"no line matches"),
        (DE_35B, "Passt mit sicherer Reserve\n", "Passt knapp\n", r"no headline verdict"),
        (DE_35B, "Bei 32.768 Tokens", "Bei 32,768 Tokens", r"expected"),
        (ES_35B, "Cabe con Margen Seguro\tA40", "Fits with Safe Headroom\tA40", r"en verdict text on a es page"),
        (ES_35B, "Evaluar Otros Modelos en Este Hardware\n", "", r"missing section"),
    ],
)
def test_damaged_page_fails_with_file_and_line(stem: str, old: str, new: str, message: str) -> None:
    text = _text(stem)
    assert old in text
    with pytest.raises(SeedPageError, match=rf"^{stem}\.txt:\d+: .*{message}"):
        parse_seed_text(text.replace(old, new, 1), f"{stem}.txt")


def test_error_names_the_right_line() -> None:
    text = _text(EN_35B).replace("+1.52 GiB", "+1.52 GB", 1)
    with pytest.raises(SeedPageError, match=rf"^{EN_35B}\.txt:13: "):
        parse_seed_text(text, f"{EN_35B}.txt")


def test_parse_seed_page_roundtrip(pages: dict[str, SeedPage]) -> None:
    assert parse_seed_page(SEEDS_DIR / f"{DE_35B}.txt") == pages[DE_35B]
