"""What every command shares: loading the packs (importing a model by name first when
``--fetch`` asks), rendering a view in the format asked for, writing the output."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence

from .. import api
from ..errors import FitproofError, InputError
from .arguments import ALL_LEVELS


# commands whose every output format names the built-in packs and formulas a pack replaced
# (the estimate card and its JSON, the report); the others get a note on standard error
NAMES_REPLACEMENTS = frozenset({"estimate", "report"})


class OutputError(FitproofError):
    """Standard output cannot be written (a full disk, /dev/full)."""

    exit_code = 1


def _registry(args: argparse.Namespace, extra_dirs: Sequence[str] = ()) -> api.Registry:
    # --strict turns every plugin warning into an error (load_registry raises PackError)
    registry = api.load([*args.pack_dir, *extra_dirs], plugins=not args.no_plugins,
                        strict=args.strict, profile=args.profile,
                        allow_override=args.allow_override)
    for warning in registry.warnings:
        print(f"fitproof: warning: {warning}", file=sys.stderr)
    if getattr(args, "command", None) not in NAMES_REPLACEMENTS:
        for override in registry.overrides:  # the output's numbers are not all fitproof's own
            print(f"fitproof: note: replaced: the built-in {override.what} "
                  f"({override.replaced}) by {override.location} ({override.origin})",
                  file=sys.stderr)
    model = getattr(args, "model", None)
    if model and not registry.known("model", model) and api.is_hub_repository(model):
        if not getattr(args, "fetch", False):
            raise InputError(f"no model pack records {model!r}; `fitproof import hf {model}` "
                             "reads its config from the Hugging Face Hub (or add --fetch)")
        with contextlib.redirect_stdout(sys.stderr):  # the command's output stays clean
            _imported(model, api.import_hub(model, registry))
        return _registry(args, extra_dirs)
    return registry


def _show(view_kind: str, view: object, args: argparse.Namespace,
          registry: api.Registry | None = None, format: str | None = None,
          out: str | None = None) -> None:
    """Print ``view`` (or write it to ``out``) in the format the command line asks for
    (``--format``, ``--json``)."""
    name = format or ("json" if getattr(args, "json", False) else args.format)
    depth = getattr(args, "depth", None)
    text = api.render(view_kind, view, name, registry=registry, plugins=not args.no_plugins,
                      language=getattr(args, "lang", "en"),
                      depth=None if depth == ALL_LEVELS else depth)
    _write(text, out)


def _write(text: str, out: str | None) -> None:
    """``text`` (ending in a newline) on standard output, or into file ``out``."""
    text = text if text.endswith("\n") else text + "\n"
    if out is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"cannot write the output: {exc.strerror or exc}") from None
        return
    api.write_file(out, text)  # whole, never through a link; one-line errors


def _imported(repo_id: str, done: api.HubImport) -> None:
    """What an import by name did, in a line or two (stderr when it precedes an estimate)."""
    if done.path is None:
        print(f"{repo_id} is the model pack {done.model_id!r}: nothing to import (--id or "
              "--force imports it again)")
        return
    print(f"wrote {done.path}")
    if done.hub is not None and done.hub.checkpoint_params:
        counts = ", ".join(f"{count:,} {dtype}" for dtype, count in
                           done.hub.checkpoint_params.items())
        print(f"checkpoint at {done.hub.commit[:12]}: {counts} parameters in "
              f"{done.hub.checkpoint_files} safetensors file(s)")
