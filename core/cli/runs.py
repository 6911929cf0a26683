"""What each of fitproof's own commands does with its parsed arguments: resolve the
scenario, call the API, show the view (the commands that bring the user's data in are
own_data.py)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from .. import api
from ..errors import InputError
from .arguments import ALL_LEVELS
from .options import INPUT_OPTIONS
from .shared import _registry, _show, _write


def _scenario(args: argparse.Namespace, registry: api.Registry) -> api.Scenario:
    detected = _auto(args, registry)
    inputs = {name: getattr(args, name) for name in INPUT_OPTIONS}
    origins = {name: f"command line ({option})" for name, option in INPUT_OPTIONS.items()}
    origins.update(detected)
    largest = inputs["context"] == "max"
    if largest:  # --context max: solve max-context first
        inputs["context"] = None

    def resolve() -> api.Scenario:
        return api.scenario(registry, model=args.model, hardware=args.hardware,
                            quant=args.quant, kv=args.kv, engine=args.engine,
                            workload=args.workload, inputs=inputs, input_origins=origins,
                            backend=getattr(args, "backend", None),
                            host=getattr(args, "host", None),
                            tensor_split=getattr(args, "tensor_split", None))
    if not largest:
        return resolve()
    answer = api.solve(registry, "max-context", resolve())
    print(f"fitproof: --context max: {answer.value:,} tokens, bound by "
          f"{answer.binding.constraint} ({answer.binding.at})", file=sys.stderr)
    inputs["context"] = answer.value
    origins["context"] = "command line (--context max: fitproof solve max-context)"
    return resolve()


def _auto(args: argparse.Namespace, registry: api.Registry) -> dict[str, str]:
    """``--on auto``: the local accelerator (said on stderr), its count as ``--gpus`` unless
    given; the origins of the inputs it set."""
    if getattr(args, "hardware", None) != "auto":
        return {}
    args.hardware, count, note = api.detected_hardware(registry)
    print(f"fitproof: {note}", file=sys.stderr)
    if count > 1 and hasattr(args, "gpus") and args.gpus is None:
        args.gpus = count
        return {"gpus": "detected (--on auto)"}
    return {}


def estimate(args: argparse.Namespace) -> int:
    if args.hardware != "auto" and args.tensor_split is None and _snapshot_estimate(args):
        return 0
    registry = _registry(args)
    view = api.estimate_view(registry, _scenario(args, registry))
    if not args.strict and _builtin_format(args):
        api.store_snapshot(registry, pack_dirs=args.pack_dir, plugins=not args.no_plugins,
                           profile=args.profile)
    _show("estimate", view, args, registry)
    return 0


def _builtin_format(args: argparse.Namespace) -> str | None:
    name = "json" if getattr(args, "json", False) else args.format
    return name if name in ("text", "json") else None


def _snapshot_estimate(args: argparse.Namespace) -> bool:
    """Answer from the compiled snapshot of the packs, when one is stored and the scenario
    is one it answers (the full path gives the same output); whether it answered."""
    name = _builtin_format(args)
    if name is None or args.strict or getattr(args, "backend", None):
        return False
    choices = {"model": args.model, "hardware": args.hardware, "quant": args.quant,
               "kv": args.kv, "engine": args.engine, "workload": args.workload,
               "host": getattr(args, "host", None)}
    found = api.estimate_from_snapshot(choices, {n: getattr(args, n) for n in INPUT_OPTIONS},
                                       pack_dirs=args.pack_dir, plugins=not args.no_plugins,
                                       profile=args.profile,
                                       allow_override=args.allow_override)
    if found is None:
        return False
    view, warnings = found
    for warning in warnings:
        print(f"fitproof: warning: {warning}", file=sys.stderr)
    _write(api.render_estimate(view, name) or "", getattr(args, "out", None))
    return True


def explain(args: argparse.Namespace) -> int:
    registry = _registry(args)
    depth = None if args.depth == ALL_LEVELS else args.depth
    view = api.explain(registry, _scenario(args, registry), args.quantity, depth,
                       sensitivity=args.sensitivity)
    _show("derivation", view, args, registry)
    return 0


def solve(args: argparse.Namespace) -> int:
    registry = _registry(args)
    given = [name for name in INPUT_OPTIONS if getattr(args, name) is not None]
    given += [name for name in ("hardware", "quant") if getattr(args, name) is not None]
    question = registry.questions.get(args.question)
    missing = [name for name in (question.definition.needs if question else ())
               if getattr(args, name, None) is None]
    if missing:
        raise InputError(f"{args.question} needs " + "; ".join(
            f"{INPUT_OPTIONS.get(name, name)}: "
            f"{registry.graph.inputs[name].definition.description.split(' (')[0].lower()}"
            for name in missing))
    view = api.solve(registry, args.question, _scenario(args, registry), given=given,
                     min_speed=args.min_decode, rent=args.rent)
    _show("solve", view, args, registry)
    return 0


def report(args: argparse.Namespace) -> int:
    registry = _registry(args)
    # a model without --on: its page on the best accelerator for it (as the seed pages do)
    preselect = args.model is not None and args.hardware is None
    _show("report", api.report(registry, _scenario(args, registry), preselect=preselect),
          args, registry)
    return 0


def validate(args: argparse.Namespace) -> int:
    keys = tuple(k.strip() for k in args.group_by.split(",") if k.strip())
    registry = _registry(args)
    _show("accuracy", api.accuracy(registry, keys), args, registry)
    return 0


def models(args: argparse.Namespace) -> int:
    registry = _registry(args)
    _auto(args, registry)
    if args.context == "max":
        raise InputError("--context max is one model's answer; for each model use "
                         "fitproof solve max-context MODEL --on HW")
    inputs = {name: getattr(args, name) for name in INPUT_OPTIONS if name != "context"}
    view = api.models(registry, hardware=args.hardware, search=args.search, family=args.family,
                      min_params=args.min_params, max_params=args.max_params, quant=args.quant,
                      context=args.context, include_all=args.all, sort=args.sort, kv=args.kv,
                      engine=args.engine, workload=args.workload, host=args.host,
                      backend=args.backend, inputs=inputs)
    if view.left_out:
        print(f"fitproof: warning: {len(view.left_out)} models left out, which this scenario "
              f"does not suit; the first: {view.left_out[0]}", file=sys.stderr)
    _show("models", view, args, registry)
    return 0


def sweep(args: argparse.Namespace) -> int:
    if args.out:  # an existing FILE only with --force, said before the sweep runs
        api.check_new_file(args.out, force=args.force)
    registry = _registry(args)
    if args.format == "parquet" and not args.out:
        raise InputError("--format parquet writes a file: give --out FILE")
    # a progress bar on the terminal, unless the rows are going to that terminal
    with _progress_bar(sys.stderr.isatty() and bool(args.out or not sys.stdout.isatty())) as bar:
        view = api.sweep(registry, models=_all(args.models), hardware=_all(args.hardware),
                         quants=args.quant, context=args.context, batch=args.batch,
                         gpus=args.gpus, progress=bar, yes=args.yes)
    if args.format == "parquet":
        api.write_parquet(view, args.out)
    else:
        _show("sweep", view, args, registry, out=args.out)
    return 0


def site(args: argparse.Namespace) -> int:
    registry = _registry(args)
    with _progress_bar(sys.stderr.isatty(), "site") as bar:
        summary = api.site(registry, args.out, models=_all(args.models),
                           hardware=_all(args.hardware), languages=args.lang or None,
                           base_url=args.base_url, progress=bar, force=args.force,
                           yes=args.yes)
    print(f"wrote {summary.pages:,} pages ({summary.bytes / 2**20:.1f} MiB, "
          f"{', '.join(summary.languages)}) to {summary.folder} in {summary.seconds:.1f} s; "
          f"open {summary.folder / 'index.html'}")
    return 0


@contextlib.contextmanager
def _progress_bar(shown: bool, what: str = "sweep") -> Iterator[Callable[[int, int], None] | None]:
    if not shown:
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task(what, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _all(values: list[str]) -> list[str] | None:
    """None (every one) for no list or ``all``."""
    return None if not values or "all" in values else values


def packs(args: argparse.Namespace) -> int:
    if args.packs_command == "validate":
        report = api.validate_packs(args.paths, plugins=not args.no_plugins)
        _show("validation", report, args, format="text")
        return 0 if report.ok else 1
    registry = _registry(args)
    if args.packs_command == "list":
        _show("packs", api.packs(registry, args.kind), args, registry)
    else:
        _show("pack", api.pack(registry, args.id, args.kind), args, registry)
    return 0


def detect(args: argparse.Namespace) -> int:
    registry = _registry(args)
    _show("detect", api.detect(registry), args, registry)
    return 0


def plugin_command(command: Any) -> Callable[[argparse.Namespace], int]:
    """What a plugin's command runs: the packs loaded as the shared options say, then the
    plugin's ``run``; the text it returns is printed."""
    def run(args: argparse.Namespace) -> int:
        registry = _registry(args)
        text = api.run_plugin_command(command, registry, args)
        if text:
            _write(text, None)
        return 0
    return run
