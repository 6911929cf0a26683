"""The questions ``fitproof solve`` answers, merged from every ``kind: questions`` pack and
checked against the formula graph when packs are linked (so ``packs validate`` and every
command agree)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from ..errors import Problem
from ..specs import PackFile
from ..specs.questions import QuestionDef, QuestionPack
from ..views.results import LoadedPack
from .graph import FormulaGraph
from .namespaces import known_field_names

CHOICES = ("quant", "hardware")


@attrs.frozen
class Question:
    """One question, and the pack it is written in."""

    name: str
    definition: QuestionDef
    pack: PackFile

    def at(self, field: str | None = None) -> str:
        """``file:line`` of the question (or of one of its fields)."""
        return self.pack.at("questions", self.name, *((field,) if field else ()))


def merged_questions(packs: Sequence[QuestionPack]) -> dict[str, Question]:
    """Every question by name; a later pack's question replaces an earlier one's."""
    result: dict[str, Question] = {}
    for pack in packs:
        for name, definition in pack.questions.items():
            result[name] = Question(name, definition, pack.pack)
    return result


def _problems(question: Question, graph: FormulaGraph) -> list[tuple[str, str]]:
    """(field, message) for every name the question uses that the graph does not have."""
    d = question.definition
    found: list[tuple[str, str]] = []
    formulas = set(graph.formulas)
    for field, names in (("holds", d.holds), ("explain", (d.explain,)),
                         ("rank_by", (d.rank_by,) if d.rank_by else ()),
                         ("speed", (d.speed,) if d.speed else ()),
                         ("minimize", (d.minimize,) if d.minimize else ())):
        found += [(field, f"no formula is called {n!r}") for n in names if n not in formulas]
    for field, names in (("over", (d.over,) if d.over else ()), ("needs", d.needs)):
        found += [(field, f"no scenario input is called {n!r}") for n in names
                  if n not in graph.inputs]
    if d.over is not None and (d.input is None or d.minimize is None or not d.counts):
        found.append(("over", "over needs an input to search, minimize and counts"))
    if (d.input is None) == (d.choose is None):
        found.append(("input", "give exactly one of input (a scenario input to search) "
                               "or choose (quant or hardware)"))
    if d.input is not None and d.input not in graph.inputs:
        found.append(("input", f"no scenario input is called {d.input!r}"))
    if d.input is not None and d.highest is None and d.highest_field is None:
        found.append(("highest", "an input question needs highest or highest_field"))
    if d.highest is not None and d.lowest > d.highest:
        found.append(("lowest", f"lowest {d.lowest:,} is above highest {d.highest:,}: "
                                "there is nothing to search"))
    fields = known_field_names()
    if d.highest_field is not None and f"model.{d.highest_field}" not in fields:
        found.append(("highest_field", f"model packs have no field {d.highest_field!r}"))
    if d.choose == "quant" and d.rank_by is None:
        found.append(("rank_by", "choose: quant needs rank_by"))
    if d.choose == "hardware":
        for field, value, namespace in (("speed", d.speed, None),
                                        ("buy_price", d.buy_price, "hardware"),
                                        ("rent_price", d.rent_price, "offer"),
                                        ("single_device_field", d.single_device_field,
                                         "hardware")):
            if value is None:
                if field != "single_device_field":
                    found.append((field, f"choose: hardware needs {field}"))
            elif namespace is not None and f"{namespace}.{value}" not in fields:
                found.append((field, f"{namespace} packs have no field {value!r}"))
        if not d.counts:
            found.append(("counts", "choose: hardware needs the device counts to try"))
    return found


def check_questions(loaded: Sequence[LoadedPack], graph: FormulaGraph) -> list[Problem]:
    """Every question names formulas, inputs and fields that exist."""
    packs = [p.obj for p in loaded if p.kind == "questions"]
    problems = []
    for question in merged_questions(packs).values():
        for field, message in _problems(question, graph):
            location = question.pack.locate("questions", question.name, field)
            problems.append(Problem(message, question.pack.path, location.line,
                                    f"questions.{question.name}.{field}"))
    return problems


def question_names(questions: Mapping[str, Question]) -> str:
    return ", ".join(sorted(questions))
