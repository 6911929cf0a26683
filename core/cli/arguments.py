"""The arguments of each ``fitproof`` command, one function per command of the table
(``table.py``); the options several commands share, and their types, are options.py, the
parser machinery parser.py."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .options import number, scenario_options, billions, tokens, whole
from .parser import FormatOption, format_option

#: --depth all: every level, down to pack values
ALL_LEVELS = -1
#: explain's default: the quantity, what it reads and what those read (--depth all for more)
EXPLAIN_DEPTH = 3


def _levels_or_all(text: str) -> int:
    return ALL_LEVELS if text.strip().lower() == "all" else _levels(text)


def _levels(text: str) -> int:
    levels = whole(text)
    if levels < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more levels, got {levels}")
    return levels


def _listed(kind: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """A comma-separated list of ``kind`` values."""
    def parse(text: str) -> list[Any]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        return [kind(item) for item in items]
    return parse


def estimate_arguments(estimate: argparse.ArgumentParser,
                       common: argparse.ArgumentParser) -> None:
    scenario_options(estimate)


def explain_arguments(explain: argparse.ArgumentParser,
                      common: argparse.ArgumentParser) -> None:
    explain.add_argument("quantity", metavar="QUANTITY",
                         help="a quantity (total_gib, decode_tps…), 'verdict', an input or a "
                              "pack value such as model.params_total")
    scenario_options(explain)
    explain.add_argument("--depth", type=_levels_or_all, metavar="N", default=EXPLAIN_DEPTH,
                         help=f"show N levels of inputs, or all of them down to pack values "
                              f"(default {EXPLAIN_DEPTH}; --depth all)")
    explain.add_argument("--sensitivity", action="store_true",
                         help="rank the figures and inputs by elasticity (d ln out / d ln in): "
                              "1 means 1 %% more of it gives 1 %% more of the quantity")


def report_arguments(report: argparse.ArgumentParser,
                     common: argparse.ArgumentParser) -> None:
    scenario_options(report)
    report.add_argument("--lang", default="en", metavar="LANG",
                        help="language of labels and sentences: en (default), de, es")


def models_arguments(models: argparse.ArgumentParser,
                     common: argparse.ArgumentParser) -> None:
    models.add_argument("search", nargs="?", metavar="TEXT",
                        help="words the model's id, name or aliases must contain")
    scenario_options(models, with_model=False,
                     on_help="rank the models that fit this hardware (auto: the local one); "
                             "every other scenario option applies to each model")
    models.add_argument("--family", help="architecture family, e.g. mla or hybrid-linear")
    models.add_argument("--min-params", type=billions, metavar="B",
                        help="at least this many parameters, e.g. 7B or 7e9")
    models.add_argument("--max-params", type=billions, metavar="B",
                        help="at most this many parameters")
    models.add_argument("--all", action="store_true",
                        help="with --on, also list the models that do not fit")
    models.add_argument("--sort", choices=("size", "speed", "headroom", "name"),
                        default="size", help="with --on: largest (default), fastest, most "
                                             "headroom, or by name")


def validate_arguments(validate: argparse.ArgumentParser,
                       common: argparse.ArgumentParser) -> None:
    validate.add_argument("--group-by", metavar="KEYS", default="",
                          help="comma-separated: device, engine, moe, backend")


# import FORMAT -> what it reads, its argument's name and help, and --revision's help
IMPORT_SOURCES = {
    "hf": ("a Hugging Face config.json, or a Hub repository by name", "FILE|ORG/NAME",
           "a config.json, or a Hub repository (reads its config.json and safetensors headers "
           "over the network: HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE apply)",
           "with ORG/NAME: a branch, tag or commit (default main)"),
    "gguf": ("a GGUF file's header", "FILE|URL",
             "a .gguf file (any shard of a split model), or an https:// or "
             "hf://ORG/NAME/FILE.gguf address, whose header alone is read with range requests",
             "with hf://: a branch, tag or commit (default main)"),
}


def import_arguments(importer: argparse.ArgumentParser,
                     common: argparse.ArgumentParser) -> None:
    import_commands = importer.add_subparsers(dest="import_command", metavar="FORMAT")
    for fmt, (what, path, path_help, revision_help) in IMPORT_SOURCES.items():
        sub = import_commands.add_parser(fmt, parents=[common], help=f"a model pack from {what}")
        sub.add_argument("path", metavar=path, help=path_help)
        sub.add_argument("--revision", metavar="REV", help=revision_help)
        sub.add_argument("--id", required=fmt != "hf", dest="model_id",
                         help="model id (default for ORG/NAME: NAME lower-cased)")
        sub.add_argument("--out", required=fmt != "hf", metavar="DIR",
                         help="folder to write ID.yaml in (default for ORG/NAME: the user's "
                              "pack folder, which fitproof always reads)")
        sub.add_argument("--name", help="display name (default: the id)")
        sub.add_argument("--hf-repo", metavar="ORG/NAME", help="Hugging Face repository")
        sub.add_argument("--source", help="where the file comes from (default: its path)")
        sub.add_argument("--force", action="store_true", help="overwrite an existing pack")
        if fmt == "gguf":
            sub.add_argument("--quant", help="quantization id of the file (default: from its "
                                             "header's file type)")


def sweep_arguments(sweep: argparse.ArgumentParser,
                    common: argparse.ArgumentParser) -> None:
    for flag, kind, what in (("--models", str, "model ids or aliases, or all (default)"),
                             ("--on", str, "hardware ids or aliases, or all (default)"),
                             ("--quant", str, "weight formats (default: the default scenario's)"),
                             ("--context", tokens, "context windows, e.g. 4K,8K,32K"),
                             ("--batch", whole, "parallel sequences"),
                             ("--gpus", whole, "devices per scenario")):
        sweep.add_argument(flag, type=_listed(kind), default=[], metavar="A,B,...",
                           dest={"--on": "hardware"}.get(flag), help=f"comma-separated {what}")
    sweep.add_argument("--out", metavar="FILE", help="write to FILE instead of the terminal")
    sweep.add_argument("--force", action="store_true", help="overwrite an existing --out FILE")
    sweep.add_argument("--yes", action="store_true", help="run a sweep past the size limit")


def site_arguments(site: argparse.ArgumentParser,
                   common: argparse.ArgumentParser) -> None:
    site.add_argument("--out", required=True, metavar="DIR", help="folder to write the site to")
    for flag, what in (("--models", "model ids or aliases, or all (default)"),
                       ("--on", "accelerator ids or aliases, or all (default)"),
                       ("--lang", "languages (default: every catalog's: de, en, es)")):
        site.add_argument(flag, type=_listed(str), default=[], metavar="A,B,...",
                          dest={"--on": "hardware"}.get(flag), help=f"comma-separated {what}")
    site.add_argument("--base-url", metavar="URL",
                      help="where the site will be served, for sitemap.xml (default: relative)")
    site.add_argument("--force", action="store_true", help="write into a folder it did not build")
    site.add_argument("--yes", action="store_true", help="build a site past the size limit")


def solve_arguments(solve: argparse.ArgumentParser,
                    common: argparse.ArgumentParser) -> None:
    solve.add_argument("question", metavar="QUESTION",
                       help="max-context, max-batch, min-gpus, best-quant, cheapest or capacity")
    scenario_options(solve)
    solve.add_argument("--min-decode", dest="min_decode", type=number, metavar="TPS",
                       help="cheapest: the decode speed to reach, in tokens per second")
    basis = solve.add_mutually_exclusive_group()
    basis.add_argument("--buy", dest="rent", action="store_false",
                       help="cheapest: price purchases, devices x price (default)")
    basis.add_argument("--rent", dest="rent", action="store_true",
                       help="cheapest: price the cloud offers, per hour")
    solve.set_defaults(rent=False)
    solve.add_argument("--depth", type=_levels, metavar="N",
                       help="levels of the derivation shown (default 1)")


def packs_arguments(packs: argparse.ArgumentParser,
                    common: argparse.ArgumentParser) -> None:
    pack_commands = packs.add_subparsers(dest="packs_command", metavar="ACTION")
    listing = pack_commands.add_parser("list", parents=[common], help="list loaded packs")
    listing.add_argument("--kind", help="only packs of this kind (model, hardware, provider, …)")
    format_option(listing, FormatOption("packs"))
    show = pack_commands.add_parser("show", parents=[common], help="show one pack")
    show.add_argument("id", metavar="ID", help="pack id or alias")
    show.add_argument("--kind", help="kind, when the id is ambiguous")
    format_option(show, FormatOption("pack"))
    validate = pack_commands.add_parser("validate", parents=[common],
                                        help="check pack files or folders")
    validate.add_argument("paths", nargs="+", metavar="PATH")


def detect_arguments(detect: argparse.ArgumentParser,
                     common: argparse.ArgumentParser) -> None:
    """``fitproof detect`` takes the shared options and --format only."""


def measurements_arguments(listing: argparse.ArgumentParser,
                           common: argparse.ArgumentParser) -> None:
    listing.add_argument("model", nargs="?", metavar="MODEL", help="model id or alias")
    listing.add_argument("--on", dest="hardware", metavar="HW", help="hardware id or alias")
    listing.add_argument("--quant", metavar="Q", help="weight format")
    listing.add_argument("--engine", metavar="ENGINE", help="llama.cpp, vllm or sglang")


def bench_arguments(bench: argparse.ArgumentParser,
                    common: argparse.ArgumentParser) -> None:
    bench_commands = bench.add_subparsers(dest="bench_command", metavar="ACTION")
    ingest = bench_commands.add_parser(
        "ingest", parents=[common],
        help="llama-bench outputs (json, jsonl, csv, markdown), llama-server logs, vllm bench "
             "serve logs and result files and SGLang bench_serving JSONL as measurement "
             "rows in your pack folder, each printed beside its prediction")
    ingest.add_argument("paths", nargs="+", metavar="FILE")
    ingest.add_argument("--model", metavar="MODEL",
                        help="model id or alias (default: from the GGUF file's name)")
    ingest.add_argument("--quant", metavar="Q",
                        help="weight format (default: from the GGUF file's name)")
    ingest.add_argument("--on", dest="hardware", metavar="HW",
                        help="the device, or auto (detected) (default: llama-bench's gpu_info)")
    ingest.add_argument("--gpus", type=int, metavar="N",
                        help="devices the model was spread over (default: gpu_info's count; "
                             "a serving run's tensor-parallel size)")
    ingest.add_argument("--engine", metavar="ENGINE",
                        help="the engine a vllm bench serve run measured (default vllm)")
    ingest.add_argument("--id", dest="pack_id", metavar="ID",
                        help="measurement pack id (default: bench-FILE)")
    ingest.add_argument("--out", metavar="DIR",
                        help="folder to write ID.yaml in (default: your pack folder)")
    ingest.add_argument("--force", action="store_true", help="overwrite an existing pack")
    format_option(ingest, FormatOption("measurements"))


def calibrate_arguments(calibrate: argparse.ArgumentParser,
                        common: argparse.ArgumentParser) -> None:
    calibrate.add_argument("--engine", metavar="ENGINE",
                           help="refit this engine only (default: every engine with enough rows)")
    calibrate.add_argument("--name", default="mine", metavar="ID",
                           help="the calibrated profile's id, for --profile ID (default: mine)")
    calibrate.add_argument("--repeats", type=int, metavar="N",
                           help="device splits of the cross-validation, 1 to 100 (default 5; "
                                "benchmarks/fit_speed.py pools 20)")
    calibrate.add_argument("--out", metavar="DIR",
                           help="folder to write ID.yaml in (default: profiles in your pack folder)")
    calibrate.add_argument("--force", action="store_true",
                           help="overwrite your existing calibrated profile of that name")
