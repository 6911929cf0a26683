"""The built site in a real browser (Debian's chromium and chromium-driver, via selenium):
pages opened from file:// show the command line's numbers for the scenario in the URL
fragment and after changing the controls, in the page's locale; a click on a number shows
its derivation with pack lines. A screenshot is kept in test-artifacts/."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fitproof
from fitproof.formula.rounding import round_scalar

from .conftest import REPO, require_tool

pytestmark = pytest.mark.browser

BROWSER_HINT = "apt-get install chromium chromium-driver (Debian), and pip install selenium"
ARTIFACTS = Path(os.environ.get("FITPROOF_ARTIFACTS", REPO / "test-artifacts"))
MODELS, HARDWARE = ["llama-3.1-8b", "qwen3.5-35b-a3b"], ["rtx-4090", "rtx-3090", "a100-80gb-sxm"]
SHOWN = ("total_gib", "usable_gib", "headroom_gib", "decode_tps", "decode_tps_low",
         "decode_tps_high", "prefill_tps", "ttft_ms", "cost_per_mtok_usd", "weights_gib",
         "devices_kv_gib", "devices_overhead_gib", "offload_gib", "purchase_usd",
         "breakeven_months", "local_power_usd_month")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "fitproof", "site", "--out", str(folder),
                           "--models", ",".join(MODELS), "--on", ",".join(HARDWARE),
                           "--no-plugins"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def browser():
    chromium = require_tool("chromium", "chromium-browser", "google-chrome", install=BROWSER_HINT)
    driver_path = require_tool("chromedriver", install=BROWSER_HINT)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"selenium is not installed: {BROWSER_HINT}")
        pytest.skip(f"selenium is not installed: {BROWSER_HINT}")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,2400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    yield driver
    driver.quit()


def cli_values(model, hardware, **options) -> dict:
    argv = [sys.executable, "-m", "fitproof", "estimate", model, "--on", hardware, "--json",
            "--no-plugins"]
    for key, value in options.items():
        argv += [f"--{key}", str(value)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    return {name: q for name, q in data["quantities"].items()}


_REGISTRY = fitproof.load_registry(plugins=False)
_DEFINITIONS = _REGISTRY.graph.formulas
_NAMES = {i: h.name for i, h in _REGISTRY.hardware.items()}
_ENGINES = _REGISTRY.engines


def shown(quantity: dict, name: str, locale: str) -> str:
    """How the page should write the CLI's ``quantity``: rounded to its formula's precision
    (ties away from zero), in the locale's digits (Babel), trailing zeros dropped but for
    dollars."""
    from babel.numbers import format_decimal

    value = quantity["value"]
    if value is None:
        return "n/a"
    definition = _DEFINITIONS[name].definition
    digits = 2 if definition.precision is None else definition.precision
    percent = definition.display == "percent"
    rounded = round_scalar(value * 100 if percent else value, digits)
    dollars = "usd" in (quantity.get("unit") or "").lower() or "_usd" in name
    pattern = "#,##0" + ("." + ("0" if dollars else "#") * digits if digits > 0 else "")
    return format_decimal(rounded, format=pattern, locale=locale) + ("%" if percent else "")


def open_page(browser, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, 30).until(
        lambda d: d.execute_script("return document.documentElement.getAttribute('data-ready')"))


def page_values(browser) -> dict[str, str]:
    return browser.execute_script(
        "var out = {}; document.querySelectorAll('[data-quantity]').forEach(function (e) {"
        " out[e.getAttribute('data-quantity')] = e.textContent; }); return out;")


def test_the_fragment_gives_the_cli_numbers(site, browser):
    fragment = "#context=32768&quant=Q8_0&batch=4&kv=q8_0&gpus=2&engine=llama.cpp&offload=30"
    open_page(browser, (site / "en" / "llama-3.1-8b" / "rtx-4090.html").as_uri() + fragment)
    expected = cli_values("llama-3.1-8b", "rtx-4090", context=32768, quant="Q8_0", batch=4,
                          kv="q8_0", gpus=2, offload=30)
    values = page_values(browser)
    for name in SHOWN:
        assert values[name] == shown(expected[name], name, "en"), name
    verdict = browser.find_element("css selector", "[data-verdict]")
    assert verdict.get_attribute("data-verdict") in ("fits", "tight", "exceeds")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTIFACTS / "site-llama-3.1-8b-rtx-4090.png"))


# one fragment key at a time, each with the command-line option it stands for
ONE_KEY = [("context", "context", 65536), ("quant", "quant", "Q8_0"), ("batch", "batch", 8),
           ("kv", "kv", "q8_0"), ("gpus", "gpus", 2), ("engine", "engine", "vllm"),
           ("offload", "offload", 40), ("hours", "hours-per-day", 12),
           ("budget", "budget", 5000), ("price", "electricity-price", 0.45)]


@pytest.mark.parametrize(("key", "option", "value"), ONE_KEY, ids=[k for k, _, _ in ONE_KEY])
def test_each_fragment_key_alone_gives_the_cli_numbers(site, browser, key, option, value):
    open_page(browser, (site / "en" / "llama-3.1-8b" / "rtx-3090.html").as_uri()
              + f"#{key}={value}")
    expected = cli_values("llama-3.1-8b", "rtx-3090", **{option: value})
    default = cli_values("llama-3.1-8b", "rtx-3090")
    values = page_values(browser)
    for name in SHOWN:
        assert values[name] == shown(expected[name], name, "en"), (key, name)
    moved = [name for name in SHOWN if expected[name]["value"] != default[name]["value"]]
    assert moved, f"#{key}={value} changes none of the shown numbers, so this test proves nothing"


def test_german_pages_write_german_numbers(site, browser):
    open_page(browser, (site / "de" / "qwen3.5-35b-a3b" / "rtx-3090.html").as_uri()
              + "#context=65536")
    expected = cli_values("qwen3.5-35b-a3b", "rtx-3090", context=65536)
    values = page_values(browser)
    for name in SHOWN:
        assert values[name] == shown(expected[name], name, "de"), name
    assert "," in values["total_gib"] or values["total_gib"].isdigit()
    assert browser.execute_script("return document.querySelector('[name=context]').value") == "65536"


def test_changing_the_controls_recomputes_and_updates_the_link(site, browser):
    from selenium.webdriver.support.ui import Select

    open_page(browser, (site / "en" / "qwen3.5-35b-a3b" / "a100-80gb-sxm.html").as_uri())
    from selenium.webdriver.common.keys import Keys

    context = browser.find_element("name", "context")
    context.send_keys(Keys.CONTROL, "a")  # as a person types over the value
    context.send_keys("131072", Keys.TAB)
    Select(browser.find_element("name", "quant")).select_by_value("Q8_0")  # fires change
    expected = cli_values("qwen3.5-35b-a3b", "a100-80gb-sxm", context=131072, quant="Q8_0")
    values = page_values(browser)
    for name in SHOWN:
        assert values[name] == shown(expected[name], name, "en"), name
    assert "context=131072" in browser.execute_script("return location.hash")
    assert "quant=Q8_0" in browser.find_element("id", "share").get_attribute("href")


def test_spanish_pages_group_as_babel_does(site, browser):
    open_page(browser, (site / "es" / "llama-3.1-8b" / "a100-80gb-sxm.html").as_uri())
    expected = cli_values("llama-3.1-8b", "a100-80gb-sxm")
    values = page_values(browser)
    for name in SHOWN:
        assert values[name] == shown(expected[name], name, "es"), name
    assert "." in values["prefill_tps"]  # thousands, e.g. 5.321


def test_a_number_opens_its_derivation_with_pack_lines(site, browser):
    open_page(browser, (site / "es" / "llama-3.1-8b" / "rtx-3090.html").as_uri())
    browser.find_element("css selector", '[data-quantity="decode_tps"]').click()
    dialog = browser.find_element("id", "derivation")
    assert dialog.get_attribute("open") is not None
    assert browser.find_element("id", "derivation-formula").text.strip()
    sources = browser.find_element("id", "derivation-sources").text
    assert re.search(r"packs/formulas/[\w.-]+\.yaml:\d+", sources), sources
    assert re.search(r"packs/(hardware|engines)/[\w.-]+\.yaml:\d+", sources) or "decode_step_s" in sources


def cli_report(model, hardware, **options) -> dict:
    argv = [sys.executable, "-m", "fitproof", "report", model, "--on", hardware, "--format",
            "json", "--no-plugins"]
    for key, value in options.items():
        argv += [f"--{key}", str(value)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("fragment, options", [
    ("#context=65536", {"context": 65536}),
    ("#engine=vllm&kv=fp8&gpus=2&batch=4&quant=BF16",
     {"engine": "vllm", "kv": "fp8", "gpus": 2, "batch": 4, "quant": "BF16"}),
    # vLLM cannot load a GGUF format: no pick qualifies, and its launch block is a note
    ("#engine=vllm&kv=fp8", {"engine": "vllm", "kv": "fp8"}),
])
def test_recommended_hardware_and_launch_commands_are_the_reports(site, browser, fragment,
                                                                  options):
    """The page's recommended picks (price, memory) and each engine's launch command are
    those of ``fitproof report`` for the same scenario; a fallback's note stands above its
    command as the report's comment lines do."""
    open_page(browser, (site / "en" / "llama-3.1-8b" / "rtx-3090.html").as_uri() + fragment)
    report = cli_report("llama-3.1-8b", "rtx-3090", **options)
    values = page_values(browser)
    for pick in report["recommendations"]:
        price = pick["price"]
        name = price["quantity"].split(".", 1)[1]
        assert values[price["quantity"]] == shown(price, name, "en"), pick["slot"]
        memory = values[f"{pick['slot']}.physical_gb"]
        assert memory == shown({"value": pick["memory_gb"]}, "physical_gb", "en"), pick["slot"]
        text = browser.find_element("css selector", f'[data-pick="{pick["slot"]}"]').text
        if pick["hardware"] is None:
            assert text == "no candidate qualifies", pick["slot"]
            continue
        registry_name = _NAMES[pick["hardware"]]
        assert text in (pick["label"], registry_name, f"{pick['devices']}x {registry_name}"), text
    engines = {e.name: e.id for e in _ENGINES.values()}
    assert len(report["launch_commands"]) == len(engines)
    for entry in report["launch_commands"]:
        engine = engines[entry["engine"]]
        lines = entry["command"].splitlines()
        comment = [line[2:] for line in lines if line.startswith("# ")]
        command = "\n".join(line for line in lines if not line.startswith("# "))
        shown_command = browser.execute_script(
            f"return document.querySelector('[data-launch=\"{engine}\"]').textContent")
        note = browser.execute_script(
            f"var n = document.querySelector('[data-launch-note=\"{engine}\"]');"
            " return n.hidden ? '' : n.textContent")
        assert shown_command == command, engine
        assert note == " ".join(comment), engine


def test_index_pages_fill_their_tables(site, browser):
    open_page(browser, (site / "en" / "llama-3.1-8b" / "index.html").as_uri())
    rows = browser.find_elements("css selector", "tr[data-hardware]")
    assert len(rows) == len(HARDWARE)
    expected = cli_values("llama-3.1-8b", "rtx-4090")
    cell = browser.find_element("css selector", 'tr[data-hardware="rtx-4090"] [data-cell="decode_tps"]')
    assert cell.text == shown(expected["decode_tps"], "decode_tps", "en")


def test_model_and_hardware_links_come_from_the_pack(site):
    page = (site / "en" / "llama-3.1-8b" / "rtx-4090.html").read_text(encoding="utf-8")
    registry = fitproof.load_registry(plugins=False)
    model = registry.models["llama-3.1-8b"]
    if model.hf_repo:
        assert f'href="https://huggingface.co/{model.hf_repo}"' in page
    if model.gguf_repo:
        assert f'href="https://huggingface.co/{model.gguf_repo}"' in page


def test_the_page_refuses_what_the_command_line_refuses(site, browser):
    """A context past the model's trained one: the command line exits 2 with a message, and
    the page shows that message and no number (issue 31)."""
    done = subprocess.run([sys.executable, "-m", "fitproof", "estimate", "llama-3.1-8b", "--on",
                           "rtx-4090", "--context", "262144", "--no-plugins"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    message = done.stderr.strip().removeprefix("fitproof: error: ")
    open_page(browser, (site / "en" / "llama-3.1-8b" / "rtx-4090.html").as_uri()
              + "#context=262144")
    problem = browser.find_element("css selector", "[data-problem]")
    assert problem.is_displayed() and problem.text == message
    verdict = browser.find_element("css selector", "[data-verdict]")
    assert verdict.get_attribute("data-verdict") == "refused"
    assert set(page_values(browser).values()) == {"–"}


def test_a_typed_value_the_page_refuses_is_marked_not_reset(site, browser):
    from selenium.webdriver.common.keys import Keys

    open_page(browser, (site / "en" / "llama-3.1-8b" / "rtx-4090.html").as_uri())
    context = browser.find_element("name", "context")
    context.send_keys(Keys.CONTROL, "a")
    context.send_keys("12.5", Keys.TAB)  # a number input takes it; a context must be whole
    browser.execute_script("document.getElementById('configurator')"
                           ".dispatchEvent(new Event('change'))")
    assert context.get_attribute("aria-invalid") == "true"
    assert context.get_attribute("value") == "12.5"  # what was typed stays, marked
    problem = browser.find_element("css selector", "[data-problem]")
    assert problem.text == "context must be a whole number (got '12.5')"


def test_a_models_index_names_its_best_accelerator(site, browser):
    open_page(browser, (site / "en" / "llama-3.1-8b" / "index.html").as_uri())
    best = browser.find_element("css selector", "[data-best]")
    report = cli_report("llama-3.1-8b", "rtx-4090")
    pick = next(p for p in report["recommendations"] if p["slot"] == "best_single_gpu")
    if pick["hardware"] in HARDWARE:
        assert best.is_displayed()
        link = best.find_element("css selector", "[data-best-link]")
        assert link.get_attribute("href").endswith(f"/{pick['hardware']}.html")
    else:
        assert not best.is_displayed()
