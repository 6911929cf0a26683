"""The ``fitproof`` command line's parser: argparse with one-line usage errors, the options
every command shares, and the parser built from the table of commands (``table.py``),
with each command's ``--format`` help written from the table of output formats."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn

from .. import api

# the command's arguments: argparse additions to its parser (``common``: the shared options,
# for a command whose actions are sub-commands)
Arguments = Callable[[argparse.ArgumentParser, argparse.ArgumentParser], None]


class FormatOption(NamedTuple):
    """A command's ``--format``: the kind of view it prints (``fitproof.views.formats``
    ``VIEW_KINDS``), its default, whether ``--json`` is a shorthand, and formats the
    command writes itself rather than through the format table."""

    view: str
    default: str = "text"
    json_flag: bool = True
    also: str = ""


def format_option(parser: argparse.ArgumentParser, formats: FormatOption) -> None:
    """``--format NAME`` (and ``--json``), whose help lists the view's formats when shown."""
    action = parser.add_argument("--format", default=formats.default, metavar="NAME",
                                 help="output format")
    setattr(action, "formats", formats)  # read by _Formatter when --help is printed
    if formats.json_flag:
        parser.add_argument("--json", action="store_true", help="the same as --format json")


def format_help(formats: FormatOption) -> str:
    """The output formats of a view, built-in and the installed plugins', with what each
    writes: read from the format table, so a format added there is listed here."""
    table = api.output_formats()
    described = []
    for name in table.names(formats.view):
        found = table.get(formats.view, name)
        origin = "" if found.origin == "fitproof" else f", from {found.origin}"
        what = f"{found.description}{origin}" if found.description or origin else ""
        described.append(f"{name} ({what})" if what else name)
    described += [formats.also] if formats.also else []
    return (f"output format (default {formats.default}): {', '.join(described)}; a plugin "
            "may add others")


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
    otherwise never imports. A ``--format`` help is written only when help is printed."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        formats = getattr(action, "formats", None)
        if isinstance(formats, FormatOption):
            return format_help(formats).replace("%", "%%")
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the full usage is one ``--help`` away)."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class CommandLine(NamedTuple):
    """What the parser needs of a command: its name, help, description, whether it takes
    the shared options, its arguments and its ``--format``."""

    name: str
    help: str
    arguments: Arguments
    shared: bool = True
    formats: FormatOption | None = None
    description: str | None = None


def common_options() -> Parser:
    """The options every command shares, accepted before and after the command. Their
    defaults are suppressed here and set once after parsing, so that a command's parser
    does not reset an option given before the command."""
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
    return common


def build_parser(commands: Sequence[CommandLine], argv: Sequence[str] | None = None,
                 common: Parser | None = None) -> argparse.ArgumentParser:
    """The parser of the ``fitproof`` command, one sub-command per row of ``commands``.
    Given ``argv``, a command named plainly as the first word (``fitproof estimate ...``)
    gets its options and the others only their names, which parses those arguments alike
    and saves building every command's options; anything else (help, no command, a word
    argparse might read otherwise) gets the whole parser."""
    common = common or common_options()
    parser = Parser(
        prog="fitproof", parents=[common],
        description="Will this open LLM run on this accelerator, how fast, at what cost — "
                    "and why? Every number comes with its derivation.")
    parser.add_argument("--version", action="version", version=f"fitproof {api.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = plain_command(argv, [command.name for command in commands])
    for command in commands:
        if chosen is not None and command.name != chosen:
            subparsers.add_parser(command.name, help=command.help)
            continue
        sub = subparsers.add_parser(command.name, parents=[common] if command.shared else [],
                                    help=command.help, description=command.description)
        command.arguments(sub, common)
        if command.formats is not None:
            format_option(sub, command.formats)
    return parser


# shared options that take a value, so that the word after one is not the command
_VALUED = ("--pack-dir", "--profile")
_FLAGS = ("--no-plugins", "--strict", "--allow-override")


def plain_command(argv: Sequence[str] | None, names: Sequence[str]) -> str | None:
    """The command of ``names`` that ``argv`` names as its first word, when nothing makes
    that unsure."""
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
            return word if word in names else None
    return None
