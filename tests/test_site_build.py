"""fitproof site: the pages at their paths, every link between them resolving, nothing
fetched from the network, the seed pages' sections present, and bad options refused in
one line."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import fitproof

pytestmark = pytest.mark.slow

MODELS = ["llama-3.1-8b", "qwen3.5-35b-a3b", "gpt-oss-20b"]
HARDWARE = ["rtx-4090", "a100-80gb-sxm", "apple-m2-ultra-76c-192gb"]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: set[str] = set()
        self.quantities: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for attribute in ("href", "src"):
            if values.get(attribute):
                self.links.append((tag, attribute, values[attribute]))
        if "id" in values:
            self.ids.add(values["id"])
        if "data-quantity" in values:
            self.quantities.append(values["data-quantity"])


def parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "fitproof", "site", "--out", str(folder),
                           "--models", ",".join(MODELS), "--on", ",".join(HARDWARE),
                           "--no-plugins"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # per language 9 configurators, 3 model and 3 accelerator pages, 2 indexes; the root
    # index and the site map
    assert "wrote 53 pages" in done.stdout
    return folder


def test_pages_stand_at_their_paths(site):
    for lang in ("en", "de", "es"):
        for model in MODELS:
            assert (site / lang / model / "index.html").is_file()
            for hardware in HARDWARE:
                assert (site / lang / model / f"{hardware}.html").is_file()
        for hardware in HARDWARE:
            assert (site / lang / "hardware" / f"{hardware}.html").is_file()
        assert (site / lang / "index.html").is_file()
    for name in ("index.html", "sitemap.html", "sitemap.xml", "assets/data.js",
                 "assets/formulas.js", "assets/fitproof-runtime.js", "assets/fitproof-page.js",
                 "assets/fitproof-site.css"):
        assert (site / name).is_file(), name


def test_every_local_link_resolves_and_nothing_is_fetched_from_the_network(site):
    pages = list(site.rglob("*.html"))
    assert len(pages) == 53
    for page in pages:
        parsed = parse(page)
        for tag, attribute, value in parsed.links:
            if tag == "a" and value.startswith(("https://", "http://")):
                continue  # a link the reader may follow (Hugging Face, a provider)
            assert not re.match(r"^[a-z]+:", value) or value.startswith("#"), (page, value)
            target = value.split("#")[0]
            if target:
                assert (page.parent / target).resolve().is_file(), (page, value)
    for script in (site / "assets").iterdir():
        text = script.read_text(encoding="utf-8")
        assert "fetch(" not in text and "XMLHttpRequest" not in text and "import(" not in text
        assert not re.search(r"url\(\s*['\"]?https?:", text)


def test_language_switcher_and_cross_links(site):
    page = site / "de" / "llama-3.1-8b" / "rtx-4090.html"
    parsed = parse(page)
    hrefs = [v for t, a, v in parsed.links if t == "a"]
    for lang in ("en", "es"):
        assert f"../../{lang}/llama-3.1-8b/rtx-4090.html" in hrefs
    assert "../llama-3.1-8b/index.html" in hrefs  # Vollständiger Kompatibilitätsbericht →
    assert "../qwen3.5-35b-a3b/rtx-4090.html" in hrefs  # other models on this hardware
    assert "a100-80gb-sxm.html" in hrefs  # this model on other hardware
    text = page.read_text(encoding="utf-8")
    assert "Vollständiger Kompatibilitätsbericht →" in text
    assert '<html lang="de">' in text


def test_the_seed_pages_sections_are_there(site):
    page = site / "en" / "llama-3.1-8b" / "rtx-4090.html"
    parsed = parse(page)
    text = page.read_text(encoding="utf-8")
    for element in ("configurator", "simulate", "stream", "chart-contexts", "chart-compare",
                    "quant-matrix", "providers", "finetune", "derivation", "share",
                    "recommended"):
        assert element in parsed.ids, element
    for quantity in ("total_gib", "usable_gib", "headroom_gib", "decode_tps", "prefill_tps",
                     "ttft_ms", "cost_per_mtok_usd", "weights_gib", "devices_kv_gib",
                     "devices_overhead_gib", "offload_gib",
                     "purchase_usd", "breakeven_months"):
        assert quantity in parsed.quantities, quantity
    assert "<th>Deploy</th>" in text
    # recommended hardware and the production launch commands, one per engine pack
    assert "Recommended Hardware for Current Configuration" in text
    assert "Production Launch Commands" in text
    for engine in ("llama.cpp", "vllm"):
        assert f'data-launch="{engine}"' in text, engine
    for slot in ("best_single_gpu", "best_value_gpu", "unified_machine", "cheapest_offer"):
        assert f'data-pick="{slot}"' in text, slot
    assert "Method: measured profile" in text
    registry = fitproof.load_registry(plugins=False)
    model = registry.models["gpt-oss-20b"]
    other = (site / "en" / "gpt-oss-20b" / "rtx-4090.html").read_text(encoding="utf-8")
    if model.license:
        assert f"License: {model.license}" in other
    for repo in (model.hf_repo, model.gguf_repo):
        if repo:
            assert f'href="https://huggingface.co/{repo}"' in other
    # each control the seed pages have, with a label
    for name in ("model", "quant", "context", "hardware", "gpus", "batch", "kv", "engine",
                 "offload", "hours", "budget", "price"):
        assert re.search(rf'<label>[^<]+<(select|input) name="{name}"', text), name


def test_page_figures_are_in_the_pages_locale(site):
    # the accelerator's bandwidth as Babel writes it (grouping four digits too)
    assert "· 1,008 GB/s" in (site / "en" / "llama-3.1-8b" / "rtx-4090.html").read_text(encoding="utf-8")
    assert "· 1.008 GB/s" in (site / "de" / "llama-3.1-8b" / "rtx-4090.html").read_text(encoding="utf-8")
    assert "· 1.008 GB/s" in (site / "es" / "llama-3.1-8b" / "rtx-4090.html").read_text(encoding="utf-8")


def test_the_data_is_shared_once_and_pages_stay_small(site):
    data = site / "assets" / "data.js"
    assert data.stat().st_size > 100_000  # the packs, once
    for page in (site / "en" / "llama-3.1-8b").glob("*.html"):
        assert page.stat().st_size < 40_000, page
        assert "FITPROOF_DATA = " not in page.read_text(encoding="utf-8")


@pytest.mark.parametrize(("argv", "message"), [
    (["--models", "no-such-model"], "unknown model 'no-such-model'"),
    (["--lang", "fr"], "no catalog for language 'fr'"),
    (["--on", "desktop-ddr5-6000-2ch"], "is a host, not an accelerator"),
])
def test_bad_options_get_one_line_and_exit_2(tmp_path, argv, message):
    done = subprocess.run([sys.executable, "-m", "fitproof", "site", "--out", str(tmp_path / "s"),
                           "--no-plugins", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_a_file_as_the_output_folder_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    done = subprocess.run([sys.executable, "-m", "fitproof", "site", "--out", str(target),
                           "--no-plugins", "--models", "llama-3.1-8b", "--on", "rtx-4090"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--out must be a folder" in done.stderr
