"""The table of commands: one row per ``fitproof`` command, with its name, help, arguments,
``--format`` (the kind of view it prints) and what it runs. The parser and the dispatch in
``__init__.py`` read only this table; a plugin's commands join it as rows of the same shape
(``api.plugin_commands``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NamedTuple

from .. import api
from . import arguments, own_data, runs
from .parser import Arguments, CommandLine, FormatOption, Parser, common_options


class Command(NamedTuple):
    """One command: what the parser needs of it, and the function that runs it (parsed
    arguments in, exit code out)."""

    line: CommandLine
    run: Callable[[argparse.Namespace], int]

    @property
    def name(self) -> str:
        return self.line.name


def _row(name: str, help: str, arguments: Arguments, run: Callable[[argparse.Namespace], int],
         formats: FormatOption | None = None, *, shared: bool = True,
         description: str | None = None) -> Command:
    return Command(CommandLine(name, help, arguments, shared, formats, description), run)


COMMANDS = (
    _row("estimate", "memory, speed, cost and verdict for one scenario",
         arguments.estimate_arguments, runs.estimate, FormatOption("estimate")),
    _row("explain", "show how one quantity is derived, down to pack lines",
         arguments.explain_arguments, runs.explain,
         FormatOption("derivation", json_flag=False)),
    _row("solve", "inverse questions: the largest context, the fewest devices, the cheapest "
         "hardware", arguments.solve_arguments, runs.solve, FormatOption("solve"),
         description="Answer an inverse question from the formulas: max-context, max-batch, "
                     "min-gpus, best-quant, cheapest, capacity (and any a questions pack "
                     "adds). The answer names the constraint that binds it and shows the "
                     "derivation."),
    _row("report", "the full sizing report (every section of the seed pages)",
         arguments.report_arguments, runs.report, FormatOption("report", json_flag=False)),
    _row("models", "which models fit a piece of hardware; search the library",
         arguments.models_arguments, runs.models, FormatOption("models")),
    _row("validate", "score the profile's speeds against public measurements",
         arguments.validate_arguments, runs.validate, FormatOption("accuracy", json_flag=False)),
    _row("import", "write a model pack from a config.json or GGUF",
         arguments.import_arguments, own_data.import_pack, shared=False),
    _row("sweep", "every combination of models, hardware, formats and inputs",
         arguments.sweep_arguments, runs.sweep,
         FormatOption("sweep", default="csv", json_flag=False, also="parquet (needs --out)")),
    _row("site", "a static site: a live configurator page per model, accelerator and language",
         arguments.site_arguments, runs.site),
    _row("packs", "list, show and validate packs", arguments.packs_arguments, runs.packs,
         shared=False),
    _row("detect", "the local accelerators (nvidia-smi, rocm-smi, sysctl) and their packs",
         arguments.detect_arguments, runs.detect, FormatOption("detect")),
    _row("measurements", "the public measurements of a model or device, each beside its "
         "prediction", arguments.measurements_arguments, own_data.measurements,
         FormatOption("measurements")),
    _row("bench", "your own benchmark outputs as measurement rows (bench ingest)",
         arguments.bench_arguments, own_data.bench, shared=False),
    _row("calibrate", "refit the speed constants on the shipped rows plus yours, as a "
         "profile (--profile mine)", arguments.calibrate_arguments, own_data.calibrate,
         FormatOption("calibration")),
)

# a command with actions (fitproof packs list): its help when no action is named
ACTIONS = {"import": "import_command", "packs": "packs_command", "bench": "bench_command"}


def plugin_rows(taken: set[str]) -> tuple[list[Command], list[str]]:
    """The rows of the commands installed plugins add, and a warning for each command left
    out: a name fitproof's own commands have, or arguments its parser refuses."""
    found, warnings = api.plugin_commands()
    rows: list[Command] = []
    for command in found:
        if command.name in taken:
            warnings.append(f"plugin {command.origin!r}: its command {command.name!r} is "
                            "ignored; fitproof has a command of that name")
            continue
        try:  # the plugin's arguments, tried first on a parser of the shared options
            command.arguments(Parser(prog=f"fitproof {command.name}",
                                     parents=[common_options()]))
        except (Exception, SystemExit) as exc:
            warnings.append(f"plugin {command.origin!r}: its command {command.name!r} is "
                            f"ignored; adding its arguments failed: {type(exc).__name__}: {exc}")
            continue
        taken.add(command.name)
        rows.append(_row(command.name, command.help, _plugin_arguments(command.arguments),
                         runs.plugin_command(command)))
    return rows, warnings


def _plugin_arguments(add: Callable[..., object]) -> Arguments:
    def arguments(parser: argparse.ArgumentParser, common: argparse.ArgumentParser) -> None:
        add(parser)
    return arguments
