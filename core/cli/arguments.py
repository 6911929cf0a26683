"""The ``fitproof`` command line's arguments: the parser of every command (the options
commands share, and their types, are options.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .. import api
from .options import (INPUT_OPTIONS, billions, format_option, number, scenario_options,
                      tokens, whole)

__all__ = ["INPUT_OPTIONS", "build_parser"]


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


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it (``COLUMNS``, then the
    terminal of standard output, else 80), without importing shutil."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout. argparse makes a formatter for every option it adds (to check
    the option), and its own looks the terminal up through shutil, which a single estimate
    otherwise never imports."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the full usage is one ``--help`` away)."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of the ``fitproof`` command. Given ``argv``, a command named plainly as
    the first word (``fitproof estimate ...``) gets its options and the others only their
    names, which parses those arguments alike and saves building every command's options;
    anything else (help, no command, a word argparse might read otherwise) gets the whole
    parser."""
    # The shared options are accepted before and after the command. Their defaults are
    # suppressed here and set once on the top parser, so that a command's parser does not
    # reset an option given before the command.
    common = Parser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--pack-dir", action="append", metavar="DIR",
                        help="also load packs from DIR (repeatable; FITPROOF_PACK_PATH works too)")
    common.add_argument("--no-plugins", action="store_true",
                        help="ignore installed plugin packages (built-in packs still load)")
    common.add_argument("--strict", action="store_true",
                        help="treat plugin warnings as errors")
    common.add_argument("--allow-override", dest="allow_override", action="store_true",
                        help="let packs of plugins and FITPROOF_PACK_PATH replace built-in "
                             "packs and formulas (FITPROOF_ALLOW_OVERRIDE=1 does too); "
                             "outputs name every replacement")
    common.add_argument("--profile", metavar="NAME",
                        help="formula profile: measured (default) or seed (the seed pages' "
                             "formulas)")

    parser = Parser(
        prog="fitproof", parents=[common],
        description="Will this open LLM run on this accelerator, how fast, at what cost — "
                    "and why? Every number comes with its derivation.")
    parser.add_argument("--version", action="version", version=f"fitproof {api.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    chosen = _plain_command(argv)
    for name, add in COMMAND_PARSERS.items():
        if chosen is None or name == chosen:
            add(commands, common)
        else:
            commands.add_parser(name, help=COMMAND_HELP[name])
    return parser


# shared options that take a value, so that the word after one is not the command
_VALUED = ("--pack-dir", "--profile")
_FLAGS = ("--no-plugins", "--strict", "--allow-override")


def _plain_command(argv: Sequence[str] | None) -> str | None:
    """The command ``argv`` names as its first word, when nothing makes that unsure."""
    if argv is None or any(w in ("-h", "--help", "--version") for w in argv):
        return None
    words = iter(argv)
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif word.startswith("-"):
            if "=" not in word and word not in _FLAGS:
                return None  # an abbreviation or an unknown option: let argparse decide
        else:
            return word if word in COMMAND_PARSERS else None
    return None


def _estimate_command(commands: Any, common: argparse.ArgumentParser) -> None:
    estimate = commands.add_parser("estimate", parents=[common],
                                   help=COMMAND_HELP["estimate"])
    scenario_options(estimate)
    format_option(estimate, "text, json")


def _explain_command(commands: Any, common: argparse.ArgumentParser) -> None:
    explain = commands.add_parser("explain", parents=[common],
                                  help=COMMAND_HELP["explain"])
    explain.add_argument("quantity", metavar="QUANTITY",
                         help="a quantity (total_gib, decode_tps…), 'verdict', an input or a "
                              "pack value such as model.params_total")
    scenario_options(explain)
    format_option(explain, "text, json, latex, markdown", json_flag=False)
    explain.add_argument("--depth", type=_levels_or_all, metavar="N", default=EXPLAIN_DEPTH,
                         help=f"show N levels of inputs, or all of them down to pack values "
                              f"(default {EXPLAIN_DEPTH}; --depth all)")
    explain.add_argument("--sensitivity", action="store_true",
                         help="rank the figures and inputs by elasticity (d ln out / d ln in): "
                              "1 means 1 %% more of it gives 1 %% more of the quantity")


def _report_command(commands: Any, common: argparse.ArgumentParser) -> None:
    report = commands.add_parser("report", parents=[common],
                                 help=COMMAND_HELP["report"])
    scenario_options(report)
    format_option(report, "text, markdown, json, html", json_flag=False)
    report.add_argument("--lang", default="en", metavar="LANG",
                        help="language of labels and sentences: en (default), de, es")


def _models_command(commands: Any, common: argparse.ArgumentParser) -> None:
    models = commands.add_parser("models", parents=[common],
                                 help=COMMAND_HELP["models"])
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
    format_option(models, "text, markdown, json")


def _validate_command(commands: Any, common: argparse.ArgumentParser) -> None:
    validate = commands.add_parser("validate", parents=[common],
                                   help=COMMAND_HELP["validate"])
    validate.add_argument("--group-by", metavar="KEYS", default="",
                          help="comma-separated: device, engine, moe, backend")
    format_option(validate, "text, markdown, json", json_flag=False)


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


def _import__command(commands: Any, common: argparse.ArgumentParser) -> None:
    importer = commands.add_parser("import", help=COMMAND_HELP["import"])
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


def _sweep_command(commands: Any, common: argparse.ArgumentParser) -> None:
    sweep = commands.add_parser("sweep", parents=[common], help=COMMAND_HELP["sweep"])
    for flag, kind, what in (("--models", str, "model ids or aliases, or all (default)"),
                             ("--on", str, "hardware ids or aliases, or all (default)"),
                             ("--quant", str, "weight formats (default: the default scenario's)"),
                             ("--context", tokens, "context windows, e.g. 4K,8K,32K"),
                             ("--batch", whole, "parallel sequences"),
                             ("--gpus", whole, "devices per scenario")):
        sweep.add_argument(flag, type=_listed(kind), default=[], metavar="A,B,...",
                           dest={"--on": "hardware"}.get(flag), help=f"comma-separated {what}")
    sweep.add_argument("--format", default="csv", metavar="NAME", help="csv (default), jsonl, parquet (needs --out), text, or a plugin's")
    sweep.add_argument("--out", metavar="FILE", help="write to FILE instead of the terminal")
    sweep.add_argument("--force", action="store_true", help="overwrite an existing --out FILE")
    sweep.add_argument("--yes", action="store_true", help="run a sweep past the size limit")


def _site_command(commands: Any, common: argparse.ArgumentParser) -> None:
    site = commands.add_parser("site", parents=[common], help=COMMAND_HELP["site"])
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


def _solve_command(commands: Any, common: argparse.ArgumentParser) -> None:
    solve = commands.add_parser("solve", parents=[common], help=COMMAND_HELP["solve"],
                                description="Answer an inverse question from the formulas: "
                                "max-context, max-batch, min-gpus, best-quant, cheapest, capacity (and any "
                                "a questions pack adds). The answer names the constraint that "
                                "binds it and shows the derivation.")
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
    format_option(solve, "text, json")
    solve.add_argument("--depth", type=_levels, metavar="N",
                       help="levels of the derivation shown (default 1)")


def _packs_command(commands: Any, common: argparse.ArgumentParser) -> None:
    packs = commands.add_parser("packs", help=COMMAND_HELP["packs"])
    pack_commands = packs.add_subparsers(dest="packs_command", metavar="ACTION")
    listing = pack_commands.add_parser("list", parents=[common], help="list loaded packs")
    listing.add_argument("--kind", help="only packs of this kind (model, hardware, provider, …)")
    format_option(listing, "text, json")
    show = pack_commands.add_parser("show", parents=[common], help="show one pack")
    show.add_argument("id", metavar="ID", help="pack id or alias")
    show.add_argument("--kind", help="kind, when the id is ambiguous")
    format_option(show, "text, json")
    validate = pack_commands.add_parser("validate", parents=[common],
                                        help="check pack files or folders")
    validate.add_argument("paths", nargs="+", metavar="PATH")


def _detect_command(commands: Any, common: argparse.ArgumentParser) -> None:
    detect = commands.add_parser("detect", parents=[common], help=COMMAND_HELP["detect"])
    format_option(detect, "text, json")


def _measurements_command(commands: Any, common: argparse.ArgumentParser) -> None:
    listing = commands.add_parser("measurements", parents=[common],
                                  help=COMMAND_HELP["measurements"])
    listing.add_argument("model", nargs="?", metavar="MODEL", help="model id or alias")
    listing.add_argument("--on", dest="hardware", metavar="HW", help="hardware id or alias")
    listing.add_argument("--quant", metavar="Q", help="weight format")
    listing.add_argument("--engine", metavar="ENGINE", help="llama.cpp, vllm or sglang")
    format_option(listing, "text, json")


def _bench_command(commands: Any, common: argparse.ArgumentParser) -> None:
    bench = commands.add_parser("bench", help=COMMAND_HELP["bench"])
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
    format_option(ingest, "text, json")


def _calibrate_command(commands: Any, common: argparse.ArgumentParser) -> None:
    calibrate = commands.add_parser("calibrate", parents=[common],
                                    help=COMMAND_HELP["calibrate"])
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
    format_option(calibrate, "text, json")


COMMAND_PARSERS: dict[str, Callable[[Any, argparse.ArgumentParser], None]] = {
    "estimate": _estimate_command,
    "explain": _explain_command,
    "solve": _solve_command,
    "report": _report_command,
    "models": _models_command,
    "validate": _validate_command,
    "import": _import__command,
    "sweep": _sweep_command,
    "site": _site_command,
    "packs": _packs_command,
}

COMMAND_HELP = {
    "estimate": "memory, speed, cost and verdict for one scenario",
    "explain": "show how one quantity is derived, down to pack lines",
    "solve": "inverse questions: the largest context, the fewest devices, the cheapest hardware",
    "report": "the full sizing report (every section of the seed pages)",
    "models": "which models fit a piece of hardware; search the library",
    "validate": "score the profile's speeds against public measurements",
    "import": "write a model pack from a config.json or GGUF",
    "sweep": "every combination of models, hardware, formats and inputs",
    "site": "a static site: a live configurator page per model, accelerator and language",
    "packs": "list, show and validate packs",
}
COMMAND_HELP["detect"] = "the local accelerators (nvidia-smi, rocm-smi, sysctl) and their packs"
COMMAND_PARSERS["detect"] = _detect_command
COMMAND_HELP["measurements"] = ("the public measurements of a model or device, each beside "
                                "its prediction")
COMMAND_PARSERS["measurements"] = _measurements_command
COMMAND_HELP["bench"] = "your own benchmark outputs as measurement rows (bench ingest)"
COMMAND_PARSERS["bench"] = _bench_command
COMMAND_HELP["calibrate"] = ("refit the speed constants on the shipped rows plus yours, as a "
                             "profile (--profile mine)")
COMMAND_PARSERS["calibrate"] = _calibrate_command
