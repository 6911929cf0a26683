"""The commands that bring the user's own data in: ``import`` (a config, a GGUF, a Hub
repository by name), ``bench ingest``, ``measurements`` and ``calibrate``."""

from __future__ import annotations

import argparse
import sys

from .. import api
from .shared import _imported, _registry, _show


def import_pack(args: argparse.Namespace) -> int:
    registry = _registry(args)
    if args.import_command == "hf" and api.is_hub_repository(args.path):
        done = api.import_hub(args.path, registry, model_id=args.model_id, out=args.out,
                              name=args.name, revision=args.revision, force=args.force)
        _imported(args.path, done)
        return 0
    if args.import_command == "hf":
        path = api.import_hf(args.path, registry, model_id=args.model_id, out=args.out,
                             name=args.name, source=args.source, hf_repo=args.hf_repo,
                             force=args.force)
    else:
        path = api.import_gguf(args.path, registry, model_id=args.model_id, out=args.out,
                               name=args.name, source=args.source, hf_repo=args.hf_repo,
                               quant=args.quant, force=args.force, revision=args.revision)
    print(f"wrote {path}")
    return 0


def measurements(args: argparse.Namespace) -> int:
    registry = _registry(args)
    view = api.measurements(registry, model=args.model, hardware=args.hardware,
                            quant=args.quant, engine=args.engine)
    _show("measurements", view, args, registry)
    return 0



def bench(args: argparse.Namespace) -> int:
    registry = _registry(args)
    hardware, gpus = args.hardware, args.gpus
    if hardware == "auto":
        hardware, count, _ = api.detected_hardware(registry)
        gpus = gpus or count
    path, pack_id, left_out = api.bench_ingest(
        args.paths, registry, model=args.model, quant=args.quant, hardware=hardware, gpus=gpus,
        engine=args.engine, pack_id=args.pack_id, out=args.out, force=args.force)
    print(f"wrote {path}", file=sys.stderr)
    for why, count in sorted(left_out.items(), key=lambda item: -item[1]):
        print(f"left out {count}: {why}", file=sys.stderr)
    registry = _registry(args, [args.out] if args.out else [])
    _show("measurements", api.measurements(registry, pack=pack_id), args, registry)
    return 0


def calibrate(args: argparse.Namespace) -> int:
    registry = _registry(args)
    view = api.calibrate(registry, name=args.name, engine=args.engine, repeats=args.repeats,
                         force=args.force, out=args.out)
    _show("calibration", view, args, registry)
    return 0
