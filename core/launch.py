"""Launch commands: an engine pack's template filled in for a scenario."""

from __future__ import annotations

import re
import string
from typing import TYPE_CHECKING

from .compiled import compile_tree
from .formula_parser import FormulaSyntaxError, parse_formula
from .specs import EngineSpec

if TYPE_CHECKING:
    from .evaluator import Evaluation
    from .registry import Registry
    from .scenario import Scenario

_PLACEHOLDER = re.compile(r"\{([a-z_.0-9]+)\}")
STRING_FIELDS = {"model.hf_repo", "model.gguf_repo", "model.id", "quant", "kv_name", "kv_flag"}
NUMBER_FIELDS = {"context", "gpus", "batch"}


def template_problems(engine: EngineSpec) -> list[tuple[str, str]]:
    """(field, message) for every unknown placeholder or bad condition of a template."""
    problems = []
    texts = [("kv_flag", engine.kv_flag or "")]
    if engine.launch:
        texts.append(("launch.command", engine.launch.command))
        for index, part in enumerate(engine.launch.options):
            texts.append((f"launch.options.{index}", part.text))
            if part.when:
                try:
                    parse_formula(part.when)
                except FormulaSyntaxError as exc:
                    problems.append((f"launch.options.{index}.when", f"formula rejected: {exc}"))
    engine_fields = {"engine.gpu_memory_utilization"}
    for field, text in texts:
        try:
            names = [name for _, name, _, _ in string.Formatter().parse(text) if name]
        except ValueError as exc:
            problems.append((field, f"bad template: {exc}"))
            continue
        for name in names:
            if name not in STRING_FIELDS | NUMBER_FIELDS | engine_fields:
                known = ", ".join(sorted(STRING_FIELDS | NUMBER_FIELDS | engine_fields))
                problems.append((field, f"unknown placeholder {{{name}}}; use one of {known}"))
    return problems


def launch_command(registry: "Registry", scenario: "Scenario", engine: EngineSpec,
                   evaluation: "Evaluation") -> str | None:
    """The engine's launch command for ``scenario``, evaluated as ``evaluation`` (row 0)."""
    if engine.launch is None:
        return None
    model = registry.models[scenario.model]
    values: dict[str, str] = {
        "model.hf_repo": model.hf_repo or model.id, "model.gguf_repo": model.gguf_repo or "",
        "model.id": model.id, "quant": scenario.quant,
        "kv_name": engine.kv_types.get(scenario.kv, scenario.kv),
    }
    for name in NUMBER_FIELDS:
        values[name] = _number(scenario.inputs.get(name))
    if engine.gpu_memory_utilization is not None:
        values["engine.gpu_memory_utilization"] = _number(engine.gpu_memory_utilization.value)
    values["kv_flag"] = _fill(engine.kv_flag or "", values)
    options = []
    for part in engine.launch.options:
        if part.when:
            formula = parse_formula(part.when)
            env = {ref: evaluation.get(ref) for ref in formula.refs}
            if float(compile_tree(formula.tree)(env).reshape(-1)[0]) != 1.0:
                continue
        options.append(_fill(part.text, values))
    command = _fill(engine.launch.command, values)
    return command + (" \\\n  " + " ".join(options) if options else "")


def engine_kv_flag(engine: EngineSpec, kv: str) -> str | None:
    """The engine's option for KV precision ``kv`` (None if it has no such option)."""
    if not engine.kv_flag or kv not in engine.kv_types:
        return None
    return _fill(engine.kv_flag, {"kv_name": engine.kv_types[kv]})


def _fill(text: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
