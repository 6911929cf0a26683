"""Launch commands: an engine pack's template filled in for a scenario.

Text placeholders come from the packs (the model's repositories, the format id, the
engine's name for the KV precision); number placeholders are any formula or input of the
profile, evaluated for the scenario, so a command says what the sizing assumed
(``--ctx-size {context_total}``, ``-ngl {gpu_layers}``). When a text placeholder of the
command has no value (no GGUF repository is recorded), the template's fallback command is
used, under a comment that says so plainly.
"""

from __future__ import annotations

import difflib
import math
import re
import shlex
import string
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..formula.compiled import compile_tree
from ..formula.parser import FormulaSyntaxError, parse_formula
from ..specs import EngineSpec, LaunchTemplate

if TYPE_CHECKING:
    from ..engine.evaluator import Evaluation
    from ..engine.scenario import Scenario
    from .index import Registry

_PLACEHOLDER = re.compile(r"\{([a-z_.0-9]+)\}")
STRING_FIELDS = {"model.hf_repo", "model.gguf_repo", "model.id", "model.name", "quant",
                 "kv_name", "kv_flag", "checkpoint_repo", "quantization_flag",
                 "tensor_split", "tensor_split_flag"}
ENGINE_FIELDS = {"engine.gpu_memory_utilization"}


def templates(engine: EngineSpec) -> list[tuple[str, LaunchTemplate]]:
    """Every launch template of ``engine`` with the field path it stands at."""
    found = [("launch", engine.launch)] if engine.launch else []
    found += [(f"launch_by_profile.{name}", template)
              for name, template in engine.launch_by_profile.items()]
    return found


def template_problems(engine: EngineSpec, numbers: Iterable[str] = ()
                      ) -> list[tuple[str, str]]:
    """(field, message) for every unknown placeholder or bad condition of a template.

    ``numbers`` are the formula and input names a number placeholder may use.
    """
    known = STRING_FIELDS | ENGINE_FIELDS | set(numbers)
    problems = []
    texts = [("kv_flag", engine.kv_flag or ""),
             ("tensor_split_flag", engine.tensor_split_flag or "")]
    for path, template in templates(engine):
        texts.append((f"{path}.command", template.command))
        if template.fallback_command:
            texts.append((f"{path}.fallback_command", template.fallback_command))
        if template.fallback_note:
            texts.append((f"{path}.fallback_note", template.fallback_note))
        conditions = [(f"{path}.options.{index}", part.text, part.when)
                      for index, part in enumerate(template.options)]
        conditions += [(f"{path}.unavailable.{index}", case.note, case.when)
                       for index, case in enumerate(template.unavailable)]
        for field, text, when in conditions:
            texts.append((field if field.startswith(f"{path}.options") else f"{field}.note",
                          text))
            if when:
                where = f"{field}.when"
                try:
                    condition = parse_formula(when)
                except FormulaSyntaxError as exc:
                    problems.append((where, f"formula rejected: {exc}"))
                    continue
                for name in sorted(condition.refs - known):
                    close = difflib.get_close_matches(name, sorted(known), n=2, cutoff=0.8)
                    hint = f"did you mean {', '.join(close)}?" if close else \
                        "use a formula, input or pack field name"
                    problems.append((where, f"unknown name {name!r} in the condition; {hint}"))
    for field, text in texts:
        try:
            parts = [(name, spec, conversion)
                     for _, name, spec, conversion in string.Formatter().parse(text) if name]
        except ValueError as exc:
            problems.append((field, f"bad template: {exc}"))
            continue
        for name, spec, conversion in parts:
            if spec or conversion:  # filled by name only: {x:>9} would be printed as written
                written = name + (f"!{conversion}" if conversion else "") + \
                    (f":{spec}" if spec else "")
                problems.append((field, f"placeholder {{{written}}} is not a plain name: a "
                                 "launch placeholder takes no format or conversion"))
            elif name not in known:
                hint = ", ".join(sorted(STRING_FIELDS | ENGINE_FIELDS)) + \
                    ", or a formula or input name"
                problems.append((field, f"unknown placeholder {{{name}}}; use one of {hint}"))
    return problems


def template_for(registry: "Registry", engine: EngineSpec) -> LaunchTemplate | None:
    """The template of the registry's own profile, else the engine's general one (a
    profile's template is not inherited: one that extends it has new formulas to show)."""
    return engine.launch_by_profile.get(registry.profile or "", engine.launch)


def checkpoint_repo(registry: "Registry", scenario: "Scenario") -> tuple[str, str]:
    """(repository, --quantization value) vLLM serves the scenario's format from.

    A repository the model pack records for the format; else the model's own repository
    when the format is what that checkpoint stores (its checkpoint_format, or the format
    that sizes the checkpoint as published, BF16, when it names none); else the original repository with the
    format's online quantization; else no repository (empty).
    """
    model = registry.models[scenario.model]
    fmt = registry.quant_formats[scenario.quant][0]
    if scenario.quant in model.checkpoint_repos:
        return model.checkpoint_repos[scenario.quant], ""
    stores = model.checkpoint_format or ""
    if model.hf_repo and (scenario.quant == stores or
                          (not stores and fmt.size_basis == "checkpoint")):
        return model.hf_repo, ""
    if model.hf_repo and fmt.online_quantization and not stores:
        return model.hf_repo, fmt.online_quantization
    return "", ""


def launch_parts(registry: "Registry", scenario: "Scenario", engine: EngineSpec,
                 evaluation: "Evaluation", row: int = 0, tensor_split: str = ""
                 ) -> tuple[str | None, str] | None:
    """The engine's launch command for ``scenario``, evaluated as row ``row`` of
    ``evaluation``: (the note that says why the template's fallback is used, or None; the
    command), or None for an engine without a template. ``tensor_split``: each device's
    share of the layers on a machine of unlike devices ("41,40"; empty otherwise)."""
    template = template_for(registry, engine)
    if template is None:
        return None
    model = registry.models[scenario.model]
    repo, online = checkpoint_repo(registry, scenario)
    # pack text goes into a command a user pastes into a shell: every word is quoted
    # where it holds anything but plain characters (what is plain is left as it is)
    words: dict[str, str] = {
        "model.hf_repo": model.hf_repo or model.id, "model.gguf_repo": model.gguf_repo or "",
        "model.id": model.id, "model.name": model.name, "quant": scenario.quant,
        "kv_name": engine.kv_types.get(scenario.kv, scenario.kv),
        "checkpoint_repo": repo,
    }
    values = {name: shlex.quote(word) if word else "" for name, word in words.items()}
    values["quantization_flag"] = f"--quantization {shlex.quote(online)}" if online else ""
    if engine.gpu_memory_utilization is not None:
        values["engine.gpu_memory_utilization"] = _number(engine.gpu_memory_utilization.value)
    values["kv_flag"] = _fill(engine.kv_flag or "", values, evaluation, row)
    values["tensor_split"] = shlex.quote(tensor_split) if tensor_split else ""
    values["tensor_split_flag"] = _fill(engine.tensor_split_flag or "", values) \
        if tensor_split else ""
    def holds(condition: str) -> bool:
        formula = parse_formula(condition)
        env = {ref: np.array([evaluation.scalar(ref, row)]) for ref in formula.refs}
        return float(compile_tree(formula.tree)(env).reshape(-1)[0]) == 1.0

    for case in template.unavailable:  # the engine cannot serve it: a note, no command
        if holds(case.when):
            return _fill(case.note, {**values, **words}, evaluation, row), ""
    options = []
    for part in template.options:
        if part.when and not holds(part.when):
            continue
        text = _fill(part.text, values, evaluation, row)
        if text.strip():
            options.append(text)
    command, note = template.command, None
    if template.fallback_command and any(
            name in STRING_FIELDS and not values.get(name)
            for _, name, _, _ in string.Formatter().parse(template.command) if name):
        command = template.fallback_command
        note = _fill(template.fallback_note, {**values, **words}, evaluation, row) \
            if template.fallback_note else None  # a comment: the words as written
    return note or None, _fill(command, values, evaluation, row) + (
        " \\\n  " + " ".join(options) if options else "")


def launch_command(registry: "Registry", scenario: "Scenario", engine: EngineSpec,
                   evaluation: "Evaluation", row: int = 0, tensor_split: str = ""
                   ) -> str | None:
    """The engine's launch command for ``scenario`` as a shell snippet: the command, under
    its note as comment lines when the template's fallback is used."""
    parts = launch_parts(registry, scenario, engine, evaluation, row, tensor_split)
    if parts is None:
        return None
    note, command = parts
    if not note:
        return command
    import textwrap

    comment = "\n".join(f"# {line}" for line in textwrap.wrap(note, 76))
    return comment + "\n" + command if command else comment


def engine_kv_flag(engine: EngineSpec, kv: str) -> str | None:
    """The engine's option for KV precision ``kv`` (None if it has no such option)."""
    if not engine.kv_flag or kv not in engine.kv_types:
        return None
    return _PLACEHOLDER.sub(lambda m: engine.kv_types[kv] if m.group(1) == "kv_name"
                            else m.group(0), engine.kv_flag)


def _fill(text: str, values: dict[str, str], evaluation: "Evaluation | None" = None,
          row: int = 0) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in values:
            return values[name]
        if evaluation is not None:
            try:
                return _number(float(evaluation.scalar(name, row)))
            except KeyError:
                pass
        return match.group(0)

    return _PLACEHOLDER.sub(value, text)


def _number(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "?"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
