"""``fitproof site``: a static site, one page per model x accelerator x language.

Every page is the configurator of one scenario: its numbers are computed in the browser
by the packs' formulas (``formula/javascript.py`` compiles them, ``site/assets/fitproof-runtime.js``
evaluates them over ``site/data.py``'s data), so a page needs no server and fetches nothing: the
data ships as scripts next to the pages, one copy per site. Pages are rendered from Jinja2
templates (``site/templates/``); the figures the page itself prints (memory, bandwidth) are
formatted by Babel in the page's locale. The layout:

    DIR/index.html                        languages
    DIR/{lang}/index.html                 models
    DIR/{lang}/{model}/index.html         the model on every accelerator
    DIR/{lang}/{model}/{hardware}.html    the configurator
    DIR/{lang}/hardware/index.html        accelerators
    DIR/{lang}/hardware/{hardware}.html   every model on the accelerator
    DIR/sitemap.html, DIR/sitemap.xml     every page
    DIR/assets/                           stylesheet, scripts, data
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files.own_output import SiteFolder, check_size, site_folder
from ..formula.javascript import runtime_script
from ..registry.index import Registry
from ..renderers.escape import html_json
from ..renderers.i18n import Messages
from ..version import __version__
from ..views.estimate import MeasuredRun, key_setup
from .data import data_script, formulas_script, site_data

RUNTIME_ASSET = "fitproof-runtime.js"
ASSETS = ("fitproof-site.css", RUNTIME_ASSET, "fitproof-page.js")
HARDWARE_FOLDER = "hardware"  # DIR/{lang}/hardware/: no model may take this id
PAGE_MESSAGES = ("verdict.fits", "verdict.tight", "verdict.exceeds", "verdict.unknown")
# pages a build writes without --yes: the shipped packs' whole site (18,053 pages, about
# 400 MiB) is under it; thousands of extra packs are not
SITE_PAGE_LIMIT = 20_000


@dataclass(frozen=True)
class SiteSummary:
    """What a build wrote."""

    folder: Path
    pages: int
    bytes: int
    seconds: float
    languages: tuple[str, ...]


def _choose(registry: Registry, kind: str, wanted: Sequence[str] | None,
            available: Iterable[str]) -> list[str]:
    """Ids of the ``wanted`` names (ids or aliases), or every one of ``available``."""
    ids = sorted(available)
    if not wanted or "all" in wanted:
        return ids
    chosen = list(dict.fromkeys(registry.resolve(kind, name) for name in wanted))
    outside = [i for i in chosen if i not in ids]
    if outside:
        raise InputError(f"{outside[0]} is a host, not an accelerator: the site has pages for "
                         "accelerators only")
    return chosen


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(files("fitproof").joinpath("site", "templates"))),
        autoescape=True, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined)


def _script_json(value: Any) -> Any:
    """``value`` as JSON for a ``<script type="application/json">`` element (``<``, ``>``,
    ``&``, U+2028 and U+2029 written as ``\\uXXXX``: still JSON, and nothing in it can end
    the element or open a comment)."""
    from markupsafe import Markup

    return Markup(html_json(value))


class _Language:
    """One language of the site: its catalog and its number formats."""

    def __init__(self, registry: Registry, lang: str):
        self.lang = lang
        self.messages = Messages(registry.catalogs, lang)
        self.locale = self.messages("site.locale") if self.messages.catalog.messages.get(
            "site.locale") else lang
        self.name = registry.catalogs[lang].name
        self.billing_keys = [f"billing.{p.billing}" for p in registry.providers.values() if p.billing]

    def number(self, value: float, digits: int = 0) -> str:
        from babel.numbers import format_decimal

        from ..formula.rounding import round_scalar

        pattern = "#,##0" + ("." + "#" * digits if digits > 0 else "")
        return str(format_decimal(round_scalar(value, digits), format=pattern, locale=self.locale))

    def page_messages(self) -> dict[str, Any]:
        t = self.messages
        return {"locale": self.locale, "yes": t("site.yes"), "no": t("site.no"),
                "none": t("recommend.none"),
                "deploy": t("site.deploy_link"),
                "billing": {key.split(".", 1)[1]: t(key) for key in self.billing_keys},
                "verdicts": {key.split(".")[1]: t(key) for key in PAGE_MESSAGES}}


# a run's metric -> its catalog label and unit (a metric the table does not know is not shown)
_MEASURED_METRICS = {"decode_tps": ("site.decode", "tok/s"),
                     "prefill_tps": ("site.prefill", "tok/s"),
                     "output_tps": ("site.output_measured", "tok/s"),
                     "total_tps": ("site.throughput", "tok/s"),
                     "tpot_ms": ("site.tpot", "ms"), "ttft_ms": ("site.ttft", "ms")}


def _runs_by_page(measured: dict[str, list[list[Any]]]) -> dict[tuple[str, str],
                                                                 list[dict[str, Any]]]:
    """The snapshot's measured runs (by scenario key) as rows of each (model, device) page:
    the setup the key names, then the run's own fields (``MeasuredRun``'s order)."""
    pages: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for key, runs in measured.items():
        setup = key_setup(key)
        for run in runs:
            row = MeasuredRun(*run).to_dict()
            if row["metric"] in _MEASURED_METRICS:
                pages.setdefault((setup["model"], setup["hardware"]), []).append(
                    {**row, **setup})
    for rows in pages.values():
        rows.sort(key=lambda r: (r["engine"], r["quant"], r["gpus"], r["batch"], r["metric"],
                                 r["prompt"], r["location"]))
    return pages


def _measured_row(language: _Language, run: dict[str, Any]) -> dict[str, Any]:
    """One row of a page's measured table, its numbers in the page's language."""
    label, unit = _MEASURED_METRICS[run["metric"]]
    t = language.messages
    # four significant digits, as the estimate card prints a run
    digits = max(0, 3 - math.floor(math.log10(run["value"]))) if run["value"] > 0 else 0
    setup = " · ".join(x for x in (
        run["quant"], run["engine"] + (f" ({run['backend']})" if run["backend"] else ""),
        f"{run['gpus']}×" if run["gpus"] > 1 else "",
        f"batch {run['batch']}" if run["batch"] > 1 else "",
        f"KV {run['kv']}" if run["kv"] != "f16" else "") if x)
    run_text = (f"tg{run['generate']} @ {language.number(run['prompt'])}"
                if run["generate"] is not None and run["metric"] == "decode_tps"
                else f"{language.number(run['prompt'])} → {run['generate']}"
                if run["generate"] is not None else f"pp{language.number(run['prompt'])}")
    return {"metric": t(label), "setup": setup, "run": run_text,
            "measured": f"{language.number(run['value'], digits)} {unit}",
            "predicted": ("–" if run["predicted"] is None else
                          f"{language.number(run['predicted'], digits)} {unit}"),
            "published": ", ".join(x for x in (run["engine_version"], run["date"]) if x)
                         or t("site.published"),
            "source": run["source"], "location": run["location"],
            "apart": f"{t('site.apart')}: {run['apart']}" if run["apart"] else None}


class _Builder:
    def __init__(self, registry: Registry, out: SiteFolder, models: list[str], hardware: list[str],
                 languages: list[str], base_url: str | None):
        self.registry, self.out = registry, out
        self.models, self.hardware, self.languages = models, hardware, languages
        self.base_url = base_url.rstrip("/") + "/" if base_url else None
        self.env = _environment()
        self.pages: list[str] = []
        self.bytes = 0
        data = site_data(registry)
        self.data = data
        # the public runs of each page's model and device, shown as a table the page's
        # script never reads (so data.js does not carry them)
        self.measured = _runs_by_page(data.pop("measured"))
        # built-in packs and formulas a pack replaced: every page names them
        self.overrides = [dict(zip(("what", "location", "origin", "replaced"), override))
                          for override in data["overrides"]]
        page = data["page"]
        self.model_facts, self.hardware_facts = page["models"], page["hardware"]
        # the pages this build writes: the configurator's model and hardware lists
        data["built"] = {"models": models, "hardware": hardware}
        # the recommended-hardware rows (a cloud offer's price is per hour) and the engines
        # with a launch command
        self.recommendations = [
            {**slot, "offer": "offer" in data["selections"][slot["selection"]]["namespaces"]}
            for slot in page["recommendations"]]
        self.launch = [{"id": i, "name": e["name"]} for i, e in data["launch"]["engines"].items()]
        # the memory parts the CLI's card prints, under its names: the KV cache and the
        # engine's memory of every device where the profile counts them apart
        formulas = data["formulas"]
        self.parts = {"kv": next((n for n in ("devices_kv_gib", "kv_cache_gib") if n in formulas),
                                 "kv_cache_gib"),
                      "overhead": next((n for n in ("devices_overhead_gib", "overhead_gib")
                                        if n in formulas), "overhead_gib")}

    def write(self, relative: str, text: str) -> None:
        raw = text.encode("utf-8")
        self.out.write(relative, raw)  # into the build's own folder, swapped in at the end
        self.bytes += len(raw)
        if relative.endswith(".html"):
            self.pages.append(relative)

    def assets(self) -> None:
        self.write("assets/data.js", data_script(self.data))
        self.write("assets/formulas.js", formulas_script(self.data))
        for name in ASSETS:
            text = files("fitproof").joinpath("site", "assets", name).read_text(encoding="utf-8")
            # the runtime gets the function table's JavaScript forms (formula/functions.py)
            self.write(f"assets/{name}",
                       runtime_script(text) if name == RUNTIME_ASSET else text)

    def common(self, language: _Language, relative: str, title: str,
               crumbs: list[tuple[str, str]]) -> dict[str, Any]:
        """What every template reads: language, links to the same page in the others."""
        depth = relative.count("/")
        root = "../" * depth
        inside = relative.split("/", 1)[1] if "/" in relative else "index.html"
        return {
            "lang": language.lang, "t": language.messages, "root": root, "title": title,
            "overrides": self.overrides,
            "description": title, "version": __version__, "profile": self.registry.profile,
            "crumbs": [{"href": root + href, "text": text} for href, text in crumbs],
            "alternates": [{"lang": other.lang, "name": other.name,
                            "href": root + f"{other.lang}/{inside}"} for other in self.all_languages],
        }

    def configurator(self, language: _Language, model: str, hardware: str,
                     messages_json: Any, template: Any) -> None:
        t = language.messages
        m, h = self.model_facts[model], self.hardware_facts[hardware]
        relative = f"{language.lang}/{model}/{hardware}.html"
        title = t("site.title", model=m["name"], hardware=h["name"])
        context = self.common(language, relative, title, [
            (f"{language.lang}/index.html", t("site.models_index")),
            (f"{language.lang}/{model}/index.html", m["name"]),
            (f"{language.lang}/{HARDWARE_FOLDER}/{hardware}.html", h["name"])])
        context.update(
            model=m, hardware=h, model_id=model, hardware_id=hardware,
            memory_gb=language.number(h["memory_gb"]),
            bandwidth=language.number(h["bandwidth_gbs"]),
            other_models=[{"id": i, "name": self.model_facts[i]["name"]}
                          for i in self.models if i != model],
            other_hardware=[{"id": i, "name": self.hardware_facts[i]["name"]}
                            for i in self.hardware if i != hardware],
            recommendations=self.recommendations, launch=self.launch, parts=self.parts,
            measured=[_measured_row(language, run)
                      for run in self.measured.get((model, hardware), [])],
            messages_json=messages_json)
        self.write(relative, template.render(context))

    def listing(self, language: _Language, relative: str, title: str,
                crumbs: list[tuple[str, str]], rows: list[dict[str, Any]],
                table: dict[str, Any] | None = None) -> None:
        context = self.common(language, relative, title, crumbs)
        context.update(heading=title, rows=rows, table=table,
                       messages_json=_script_json(language.page_messages()))
        self.write(relative, self.env.get_template("listing.html.j2").render(context))

    def indexes(self, language: _Language) -> None:
        t, lang = language.messages, language.lang
        home = [(f"{lang}/index.html", t("site.models_index"))]
        self.listing(language, f"{lang}/index.html", t("site.models_index"), home,
                     [{"href": f"{m}/index.html", "text": self.model_facts[m]["name"]} for m in self.models])
        self.listing(language, f"{lang}/{HARDWARE_FOLDER}/index.html", t("site.hardware_index"),
                     [(f"{lang}/{HARDWARE_FOLDER}/index.html", t("site.hardware_index"))],
                     [{"href": f"{h}.html", "text": self.hardware_facts[h]["name"]} for h in self.hardware])
        for model in self.models:
            name = self.model_facts[model]["name"]
            self.listing(language, f"{lang}/{model}/index.html", t("site.full_report").rstrip(" →") + f": {name}",
                         home + [(f"{lang}/{model}/index.html", name)],
                         [{"href": f"{h}.html", "text": self.hardware_facts[h]["name"], "model": model,
                           "hardware": h} for h in self.hardware],
                         table={"model": model})
        for hardware in self.hardware:
            name = self.hardware_facts[hardware]["name"]
            self.listing(language, f"{lang}/{HARDWARE_FOLDER}/{hardware}.html",
                         t("site.other_models", hardware=name),
                         [(f"{lang}/{HARDWARE_FOLDER}/index.html", t("site.hardware_index")),
                          (f"{lang}/{HARDWARE_FOLDER}/{hardware}.html", name)],
                         [{"href": f"../{m}/{hardware}.html", "text": self.model_facts[m]["name"],
                           "model": m, "hardware": hardware} for m in self.models],
                         table={"hardware": hardware})

    def sitemaps(self) -> None:
        pages = sorted(self.pages)
        links = "".join(f'<li><a href="{p}">{p}</a></li>' for p in pages)
        self.write("sitemap.html", "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<title>fitproof site map</title><link rel=\"stylesheet\" href=\"assets/fitproof-site.css\">"
                   f"</head><body><main><h1>fitproof</h1><ul>{links}</ul></main></body></html>\n")
        prefix = self.base_url or ""
        urls = "".join(f"<url><loc>{prefix}{p}</loc></url>" for p in pages if p != "sitemap.html")
        self.write("sitemap.xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
                   f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>\n')

    def build(self, progress: Callable[[int, int], None] | None) -> None:
        self.all_languages = [_Language(self.registry, lang) for lang in self.languages]
        self.assets()
        template = self.env.get_template("page.html.j2")
        total = len(self.all_languages) * len(self.models) * len(self.hardware)
        done = 0
        if progress is not None:
            progress(0, total)
        for language in self.all_languages:
            messages_json = _script_json(language.page_messages())
            for model in self.models:
                for hardware in self.hardware:
                    self.configurator(language, model, hardware, messages_json, template)
                    done += 1
                    if progress is not None and (done % 50 == 0 or done == total):
                        progress(done, total)
            self.indexes(language)
        roots = [{"href": f"{language.lang}/index.html", "text": language.name}
                 for language in self.all_languages]
        first = self.all_languages[0]
        context = self.common(first, "index.html", "fitproof", [])
        context.update(heading="fitproof", rows=roots, table=None,
                       messages_json=_script_json(first.page_messages()))
        self.write("index.html", self.env.get_template("listing.html.j2").render(context))
        self.sitemaps()


def build_site(registry: Registry, out: str | os.PathLike[str], *,
               models: Sequence[str] | None = None, hardware: Sequence[str] | None = None,
               languages: Sequence[str] | None = None, base_url: str | None = None,
               progress: Callable[[int, int], None] | None = None, force: bool = False,
               yes: bool = False) -> SiteSummary:
    """Write the site of ``registry`` to ``out``: the models and accelerators given (all by
    default) in the languages given (every catalog's by default). ``out`` is missing, empty
    or a site built before (``own_output.SiteFolder``; ``force``: any folder); past
    ``SITE_PAGE_LIMIT`` pages, only with ``yes``."""
    start = time.perf_counter()
    folder = Path(out)
    chosen_models = _choose(registry, "model", models, registry.models)
    if HARDWARE_FOLDER in chosen_models:
        raise InputError(f"a model id {HARDWARE_FOLDER!r} would clash with the accelerator pages")
    chosen_hardware = _choose(registry, "hardware", hardware, registry.accelerators)
    langs = list(dict.fromkeys(languages)) if languages else sorted(registry.catalogs)
    for lang in langs:
        if lang not in registry.catalogs:
            raise InputError(f"no catalog for language {lang!r} in --lang; available: "
                             + ", ".join(sorted(registry.catalogs)))
    # configurators, then each language's two indexes and a page per model and accelerator,
    # the root index and the site map: counted before anything is built
    pages = len(langs) * (len(chosen_models) * len(chosen_hardware) + 2 + len(chosen_models)
                          + len(chosen_hardware)) + 2
    check_size(pages, SITE_PAGE_LIMIT, job="site", unit="pages", yes=yes,
               narrow="--models, --on or --lang")
    with site_folder(folder, force=force) as target:
        builder = _Builder(registry, target, chosen_models, chosen_hardware, langs, base_url)
        builder.build(progress)
    return SiteSummary(folder, len(builder.pages), builder.bytes, time.perf_counter() - start,
                       tuple(langs))
