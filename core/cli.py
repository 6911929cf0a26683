"""The ``fitproof`` command: a thin layer that parses arguments, calls the library, renders.

Exit codes: 0 success; 1 a pack or input is invalid; 2 command-line usage error
(including unknown names and out-of-range values given on the command line).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .errors import FitproofError, InputError, PackError

_TOKENS = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def tokens(text: str) -> int:
    """A token count: ``8192``, ``8K`` (8192) or ``1M`` (1048576)."""
    match = _TOKENS.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens such as 8192 or 8K, "
                                         f"got {text!r}")
    number, suffix = float(match.group(1)), match.group(2).lower()
    number *= {"": 1, "k": 1024, "m": 1024 * 1024}[suffix]
    if not number.is_integer():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens")
    return int(number)


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


# option → scenario input it sets
_INPUT_OPTIONS = {
    "context": "--context", "batch": "--batch", "gpus": "--gpus", "offload": "--offload",
    "prompt": "--prompt", "generate": "--generate", "hours_per_day": "--hours-per-day",
    "electricity_usd_per_kwh": "--electricity-price", "budget_usd": "--budget",
    "split": "--split", "ubatch": "--ubatch", "cpu_moe": "--cpu-moe",
    "gpu_memory_utilization": "--gpu-memory-utilization",
}


def _scenario_options(parser: argparse.ArgumentParser, *, model_optional: bool = True) -> None:
    parser.add_argument("model", nargs="?" if model_optional else None, metavar="MODEL",
                        help="model id or alias (default: the default scenario's model)")
    parser.add_argument("--on", dest="hardware", metavar="HW",
                        help="hardware id or alias, e.g. rtx-3090 or 'RTX 3090'")
    parser.add_argument("--quant", metavar="Q", help="weight format, e.g. Q4_K_M (default)")
    parser.add_argument("--context", type=tokens, metavar="N",
                        help="context window in tokens, e.g. 8192 or 32K (default 8192)")
    parser.add_argument("--batch", type=whole, metavar="N", help="parallel sequences (default 1)")
    parser.add_argument("--kv", metavar="TYPE", help="KV cache precision: f16, q8_0, q4_0, fp8")
    parser.add_argument("--gpus", type=whole, metavar="N",
                        help="devices the model is spread over (default 1)")
    parser.add_argument("--split", choices=("layer", "tensor"),
                        help="with several devices: whole layers per device (llama.cpp's "
                             "default) or every layer split across them (vLLM's default)")
    parser.add_argument("--ubatch", type=whole, metavar="N",
                        help="tokens per forward pass the engine reserves activations for "
                             "(llama.cpp -ub, vLLM --max-num-batched-tokens)")
    parser.add_argument("--gpu-memory-utilization", dest="gpu_memory_utilization", type=number,
                        metavar="SHARE", help="share of each device's memory the engine may "
                        "fill, 0-1 (vLLM; default: the engine pack's)")
    parser.add_argument("--engine", metavar="ENGINE", help="llama.cpp (default) or vllm")
    parser.add_argument("--host", metavar="HOST",
                        help="the machine whose system memory holds offloaded weights (a cpu "
                             "hardware pack; default: the default scenario's)")
    parser.add_argument("--cpu-moe", dest="cpu_moe", type=whole, metavar="N",
                        help="keep the routed experts of the first N layers in system memory "
                             "(llama.cpp --n-cpu-moe)")
    parser.add_argument("--backend", metavar="NAME",
                        help="compute backend the engine uses on the device, when not the "
                             "hardware pack's own: cuda, rocm, metal, vulkan, sycl, ...")
    parser.add_argument("--workload", metavar="W",
                        help="inference (default), qlora, lora or full (fine-tuning)")
    parser.add_argument("--offload", type=number, metavar="PCT",
                        help="share of weights kept in system RAM, 0-100 (default 0)")
    parser.add_argument("--prompt", type=tokens, metavar="N",
                        help="prompt tokens: time to first token, and the depth decode "
                             "starts at (default 4096)")
    parser.add_argument("--generate", type=tokens, metavar="N",
                        help="tokens generated per request; decode runs at the average depth "
                             "(default 512)")
    parser.add_argument("--hours-per-day", dest="hours_per_day", type=number, metavar="H",
                        help="hours of use per day for monthly costs (default 4)")
    parser.add_argument("--electricity-price", dest="electricity_usd_per_kwh", type=number,
                        metavar="USD", help="electricity price per kWh (default 0.175)")
    parser.add_argument("--budget", dest="budget_usd", type=number, metavar="USD",
                        help="local hardware budget for break-even (default: the best single "
                             "GPU's price)")


def _billions(text: str) -> float:
    """A parameter count: 7B, 0.5B, 70e9 or 1T."""
    match = re.match(r"^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([bBtTmM]?)\s*$", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected a parameter count such as 7B or 70e9, "
                                         f"got {text!r}")
    scale = {"": 1, "m": 1e6, "b": 1e9, "t": 1e12}[match.group(2).lower()]
    return float(match.group(1)) * scale


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the full usage is one ``--help`` away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    # The shared options are accepted before and after the command. Their defaults are
    # suppressed here and set once on the top parser, so that a command's parser does not
    # reset an option given before the command.
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--pack-dir", action="append", metavar="DIR",
                        help="also load packs from DIR (repeatable; FITPROOF_PACK_PATH works too)")
    common.add_argument("--no-plugins", action="store_true",
                        help="ignore installed plugin packages (built-in packs still load)")
    common.add_argument("--strict", action="store_true",
                        help="treat plugin warnings as errors")
    common.add_argument("--profile", metavar="NAME",
                        help="formula profile: measured (default) or seed (the seed pages' "
                             "formulas)")

    parser = Parser(
        prog="fitproof", parents=[common],
        description="Will this open LLM run on this accelerator, how fast, at what cost — "
                    "and why? Every number comes with its derivation.")
    parser.add_argument("--version", action="version", version=f"fitproof {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    estimate = commands.add_parser("estimate", parents=[common],
                                   help="memory, speed, cost and verdict for one scenario")
    _scenario_options(estimate)
    estimate.add_argument("--json", action="store_true", help="print the JSON contract")

    explain = commands.add_parser("explain", parents=[common],
                                  help="show how one quantity is derived, down to pack lines")
    explain.add_argument("quantity", metavar="QUANTITY",
                         help="a quantity (total_gib, decode_tps…), 'verdict', an input or a "
                              "pack value such as model.params_total")
    _scenario_options(explain)
    explain.add_argument("--format", choices=("text", "json", "latex", "markdown"),
                         default="text")
    explain.add_argument("--depth", type=whole, metavar="N",
                         help="show N levels of inputs (default: all, down to pack values)")

    report = commands.add_parser("report", parents=[common],
                                 help="the full sizing report (every section of the seed pages)")
    _scenario_options(report)
    report.add_argument("--format", choices=("text", "markdown", "json", "html"), default="text")
    report.add_argument("--lang", default="en", metavar="LANG",
                        help="language of labels and sentences: en (default), de, es")

    models = commands.add_parser("models", parents=[common],
                                 help="which models fit a piece of hardware; search the library")
    models.add_argument("search", nargs="?", metavar="TEXT",
                        help="words the model's id, name or aliases must contain")
    models.add_argument("--on", dest="hardware", metavar="HW",
                        help="rank the models that fit this hardware")
    models.add_argument("--quant", metavar="Q", help="weight format (default Q4_K_M)")
    models.add_argument("--context", type=tokens, metavar="N", help="context (default 8192)")
    models.add_argument("--family", help="architecture family, e.g. mla or hybrid-linear")
    models.add_argument("--min-params", type=_billions, metavar="B",
                        help="at least this many parameters, e.g. 7B or 7e9")
    models.add_argument("--max-params", type=_billions, metavar="B",
                        help="at most this many parameters")
    models.add_argument("--all", action="store_true",
                        help="with --on, also list the models that do not fit")
    models.add_argument("--sort", choices=("size", "speed", "headroom", "name"),
                        default="size", help="with --on: largest (default), fastest, most "
                                             "headroom, or by name")
    models.add_argument("--json", action="store_true")

    validate = commands.add_parser("validate", parents=[common],
                                   help="score the profile's speeds against public measurements")
    validate.add_argument("--group-by", metavar="KEYS", default="",
                          help="comma-separated: device, engine, moe, backend")
    validate.add_argument("--format", choices=("text", "markdown", "json"), default="text")

    importer = commands.add_parser("import", help="write a model pack from a config.json or GGUF")
    import_commands = importer.add_subparsers(dest="import_command", metavar="FORMAT")
    for fmt, what in (("hf", "a Hugging Face config.json"), ("gguf", "a GGUF file's header")):
        sub = import_commands.add_parser(fmt, parents=[common], help=f"a model pack from {what}")
        sub.add_argument("path", metavar="FILE")
        sub.add_argument("--id", required=True, dest="model_id",
                         help="model id: the Hugging Face repository name, lower-cased")
        sub.add_argument("--out", required=True, metavar="DIR", help="folder to write ID.yaml in")
        sub.add_argument("--name", help="display name (default: the id)")
        sub.add_argument("--hf-repo", metavar="ORG/NAME", help="Hugging Face repository")
        sub.add_argument("--source", help="where the file comes from (default: its path)")
        sub.add_argument("--force", action="store_true", help="overwrite an existing pack")
        if fmt == "gguf":
            sub.add_argument("--quant", help="quantization id of the file (default: from its "
                                             "header's file type)")

    packs = commands.add_parser("packs", help="list, show and validate packs")
    pack_commands = packs.add_subparsers(dest="packs_command", metavar="ACTION")
    listing = pack_commands.add_parser("list", parents=[common], help="list loaded packs")
    listing.add_argument("--kind", help="only packs of this kind (model, hardware, provider, …)")
    listing.add_argument("--json", action="store_true")
    show = pack_commands.add_parser("show", parents=[common], help="show one pack")
    show.add_argument("id", metavar="ID", help="pack id or alias")
    show.add_argument("--kind", help="kind, when the id is ambiguous")
    show.add_argument("--json", action="store_true")
    validate = pack_commands.add_parser("validate", parents=[common],
                                        help="check pack files or folders")
    validate.add_argument("paths", nargs="+", metavar="PATH")
    return parser


_SHARED_DEFAULTS = {"pack_dir": [], "no_plugins": False, "strict": False, "profile": None}


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``, then give the shared options that were not given their defaults."""
    args = parser.parse_args(argv)
    for name, default in _SHARED_DEFAULTS.items():
        if not hasattr(args, name):
            setattr(args, name, list(default) if isinstance(default, list) else default)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fitproof`` command; returns the exit code."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(parser, argv)
    if args.command is None:  # no command: the report of the default scenario
        args = _parse(parser, ["report", *argv])
    try:
        if args.command == "estimate":
            return _estimate(args)
        if args.command == "explain":
            return _explain(args)
        if args.command == "report":
            return _report(args)
        if args.command == "models":
            return _models(args)
        if args.command == "validate":
            return _validate(args)
        if args.command == "import":
            if args.import_command is None:
                parser.parse_args(["import", "--help"])
            return _import(args)
        if args.command == "packs":
            if args.packs_command is None:
                parser.parse_args(["packs", "--help"])
            return _packs(args)
    except InputError as exc:
        print(f"fitproof: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except PackError as exc:
        count = len(exc.problems)
        print(f"fitproof: {count} problem{'s' if count != 1 else ''} in packs:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return exc.exit_code
    except FitproofError as exc:
        print(f"fitproof: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    return 0


def _registry(args, extra_dirs: Sequence[str] = ()):
    from .registry import load_registry

    # --strict turns every plugin warning into an error (load_registry raises PackError)
    registry = load_registry([*args.pack_dir, *extra_dirs], plugins=not args.no_plugins,
                             strict=args.strict, profile=args.profile)
    for warning in registry.warnings:
        print(f"fitproof: warning: {warning}", file=sys.stderr)
    return registry


def _scenario(args, registry):
    from .scenario import resolve_scenario

    inputs = {name: getattr(args, name) for name in _INPUT_OPTIONS}
    origins = {name: f"command line ({option})" for name, option in _INPUT_OPTIONS.items()}
    return resolve_scenario(registry, model=args.model, hardware=args.hardware,
                            quant=args.quant, kv=args.kv, engine=args.engine,
                            workload=args.workload, inputs=inputs, input_origins=origins,
                            backend=getattr(args, "backend", None),
                            host=getattr(args, "host", None))


def _estimate(args) -> int:
    from .estimate import Estimate

    registry = _registry(args)
    result = Estimate(registry, _scenario(args, registry))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        from .renderers.estimate_text import render_estimate

        print(render_estimate(result))
    return 0


def _explain(args) -> int:
    from .estimate import Estimate
    from .renderers import explain as render

    registry = _registry(args)
    result = Estimate(registry, _scenario(args, registry))
    derivation = result.derivation(args.quantity)
    if args.format == "json":
        print(json.dumps(render.to_dict(derivation), indent=2, ensure_ascii=False))
    elif args.format == "latex":
        print(render.render_latex(derivation), end="")
    elif args.format == "markdown":
        print(render.render_markdown(derivation, args.depth), end="")
    else:
        print(render.render_text(derivation, args.depth))
    return 0


def _report(args) -> int:
    from .renderers import blocks
    from .renderers.i18n import Messages
    from .renderers.report_document import report_blocks
    from .report import build_report

    registry = _registry(args)
    messages = Messages(registry, args.lang)
    report = build_report(registry, _scenario(args, registry))
    if args.format == "json":
        from .renderers.report_json import report_dict

        print(json.dumps(report_dict(report, registry, messages), indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        print(blocks.render_markdown(report_blocks(report, registry, messages)), end="")
    elif args.format == "html":
        document = report_blocks(report, registry, messages)
        print(blocks.render_html(document, document[0].text, messages.language), end="")
    else:
        print(blocks.render_text(report_blocks(report, registry, messages, compact=True)), end="")
    return 0


def _validate(args) -> int:
    from .accuracy import score
    from .renderers.accuracy import (accuracy_json, render_accuracy_markdown,
                                     render_accuracy_text)

    keys = tuple(k.strip() for k in args.group_by.split(",") if k.strip())
    result = score(_registry(args), keys)
    if args.format == "json":
        print(json.dumps(accuracy_json(result), indent=2))
    elif args.format == "markdown":
        print(render_accuracy_markdown(result), end="")
    else:
        print(render_accuracy_text(result), end="")
    return 0


def _models(args) -> int:
    from .queries import models_on, search_models
    from .renderers.models import models_json, render_models

    registry = _registry(args)
    if args.hardware:
        hardware = registry.resolve("hardware", args.hardware)
        rows = models_on(registry, hardware, quant=args.quant, context=args.context,
                         include_all=args.all, sort=args.sort)
        wanted = {r.model for r in search_models(registry, args.search, family=args.family,
                                                 min_params=args.min_params,
                                                 max_params=args.max_params)}
        rows = [r for r in rows if r.model in wanted]
    else:
        hardware = None
        rows = search_models(registry, args.search, family=args.family,
                             min_params=args.min_params, max_params=args.max_params)
    if args.json:
        print(json.dumps(models_json(rows), indent=2, ensure_ascii=False))
    else:
        print(render_models(registry, rows, hardware))
    return 0


def _import(args) -> int:
    from .importers.writer import write_pack

    registry = _registry(args)
    if args.import_command == "hf":
        from .importers.huggingface import import_config, model_pack_text, read_config

        imported = import_config(read_config(args.path), registry)
        text = model_pack_text(args.model_id, args.name or args.model_id,
                               args.source or args.path, imported, args.hf_repo)
    else:
        from .importers.gguf import import_gguf

        text = import_gguf(args.path, registry, model_id=args.model_id, name=args.name,
                           source=args.source, hf_repo=args.hf_repo, quant=args.quant)
    path = write_pack(text, args.out, args.model_id, force=args.force)
    print(f"wrote {path}")
    return 0


def _packs(args) -> int:
    from .renderers import packs as render

    if args.packs_command == "validate":
        from .validate import validate_paths

        report = validate_paths(args.paths, plugins=not args.no_plugins)
        print(render.render_validation(report))
        return 0 if report.ok else 1
    registry = _registry(args)
    if args.packs_command == "list":
        packs = [p for p in registry.packs if not args.kind or p.kind == args.kind]
        if args.kind and not packs:
            kinds = sorted({p.kind for p in registry.packs})
            raise InputError(f"no packs of kind {args.kind!r}; kinds are {', '.join(kinds)}")
        if args.json:
            print(json.dumps([render.pack_summary(p) for p in packs], indent=2,
                             ensure_ascii=False))
        else:
            print(render.render_list(packs))
        return 0
    pack = render.find_pack(registry, args.id, args.kind)
    if args.json:
        print(json.dumps(render.pack_detail(pack), indent=2, ensure_ascii=False))
    else:
        print(render.render_show(registry, pack))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
