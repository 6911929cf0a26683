"""The ``fitproof`` command: a thin layer that parses arguments, calls the library, renders.
The commands are the rows of ``table.COMMANDS`` and those plugins add.

Exit codes: 0 success; 1 a pack or input is invalid; 2 command-line usage error
(including unknown names and out-of-range values given on the command line).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..errors import FitproofError, InputError, PackError
from .parser import build_parser, plain_command
from .shared import OutputError
from .table import ACTIONS, COMMANDS, Command, plugin_rows


_SHARED_DEFAULTS = {"pack_dir": [], "no_plugins": False, "strict": False, "profile": None,
                    "allow_override": False}


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``, then give the shared options that were not given their defaults."""
    args = parser.parse_args(argv)
    for name, default in _SHARED_DEFAULTS.items():
        if not hasattr(args, name):
            setattr(args, name, list(default) if isinstance(default, list) else default)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``fitproof`` command; returns the exit code."""
    _legible_streams()
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _commands(argv)
    parser = build_parser([command.line for command in commands], argv)
    args = _parse(parser, argv)
    if args.command is None:  # no command: the report of the default scenario
        args = _parse(parser, ["report", *argv])
    try:
        action = ACTIONS.get(args.command)
        if action is not None and getattr(args, action) is None:
            parser.parse_args([args.command, "--help"])
        return next(c for c in commands if c.name == args.command).run(args)
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
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        _discard_output()
        return 0
    except OutputError as exc:
        _discard_output()
        print(f"fitproof: error: {exc}", file=sys.stderr)
        return exc.exit_code


def _commands(argv: Sequence[str]) -> tuple[Command, ...]:
    """fitproof's commands, and the installed plugins' unless the first word of ``argv``
    names one of fitproof's (which then loads no plugin to parse) or ``--no-plugins``."""
    if "--no-plugins" in argv or plain_command(argv, [c.name for c in COMMANDS]) is not None:
        return COMMANDS
    added, warnings = plugin_rows({c.name for c in COMMANDS})
    for warning in warnings:
        print(f"fitproof: warning: {warning}", file=sys.stderr)
    return (*COMMANDS, *added)


def _discard_output() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of
    what could not be written does not fail again on the way out."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _legible_streams() -> None:
    """A character the terminal's encoding lacks (PYTHONIOENCODING=ascii) is written as
    ``?`` rather than ending the command with a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (OSError, ValueError):
                pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
