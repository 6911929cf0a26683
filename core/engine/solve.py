"""``fitproof solve``: the inverse questions, answered by search over the evaluator.

A question (packs/questions/) names the formulas that must hold at the answer and what is
searched. A whole-number input is searched over a range: every value when the range is
short, else by k-ary bisection (each round evaluates up to ``ROUND`` scenarios in one
batch), which needs the formulas to be monotone in the input. A choice among packs (the
weight format, the hardware) evaluates every candidate in one batch. The answer names the
constraint that binds it, and the value one step beyond shows it failing.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from ..errors import InputError
from ..registry.index import Registry
from ..registry.questions import Question, question_names
from ..views.results import Binding, SolveView
from .estimation import Batch, Estimate
from .scenario import Scenario, figure_value, variant

ROUND = 32  # scenarios per round of bisection (one batch)
EXHAUSTIVE = 64  # ranges this short are evaluated whole


class _Trial:
    """Candidate scenarios evaluated together: which hold, and the first formula failing."""

    def __init__(self, registry: Registry, scenarios: Sequence[Scenario],
                 question: Question, extra: Sequence[str] = ()):
        names = [*question.definition.holds, *extra]
        batch = Batch(registry, list(scenarios), selection_rows=())
        self.columns = {name: batch.values(name) for name in names}
        self.holds = question.definition.holds

    def failing(self, row: int) -> str | None:
        """The first ``holds`` formula that is false (or unknown) for ``row``."""
        return next((h for h in self.holds if not self.columns[h][row]), None)


def _detail(registry: Registry, scenario: Scenario, formula: str, what: str | None) -> str:
    """``formula`` at ``scenario`` (``what``), its names replaced by their values."""
    step = Estimate(registry, scenario).derivation(formula)
    return (f"at {what}: " if what else "") + \
        f"{formula} = {step.written} is false ({step.substituted})"


def _bound(registry: Registry, question: Question, scenario: Scenario) -> tuple[int, Binding]:
    """The largest value searched, and the binding it gives when the answer reaches it."""
    d = question.definition
    label = d.highest_label or "the largest value searched"
    if d.highest_field is not None:
        model = registry.models[scenario.model]
        cap = figure_value(getattr(model, d.highest_field, None))
        if cap >= 1 and (d.highest is None or cap <= d.highest):
            at = model.pack.at(d.highest_field)
            return int(cap), Binding(f"model.{d.highest_field}", label, at,
                                     f"model.{d.highest_field} = {int(cap):,}")
        if d.highest is None:
            raise InputError(f"{model.name} records no {d.highest_field}, which bounds "
                             f"{question.name}")
    assert d.highest is not None  # check_questions: an input question has a bound
    return d.highest, Binding(question.name, label, question.at("highest"),
                              f"highest = {d.highest:,}")


def _input_answer(registry: Registry, question: Question, base: Scenario
                  ) -> tuple[Scenario, Binding, int]:
    d = question.definition
    assert d.input is not None
    name, lowest = d.input, d.lowest
    highest, cap = _bound(registry, question, base)
    tried: dict[int, tuple[bool, str | None, Scenario]] = {}

    def evaluate(values: Sequence[int]) -> None:
        scenarios: list[tuple[int, Scenario]] = []
        for value in values:
            if value in tried:
                continue
            try:
                scenarios.append((value, variant(registry, base, inputs={name: value})))
            except InputError:  # not a valid scenario (say, an uneven tensor split)
                continue
        if not scenarios:
            return
        trial = _Trial(registry, [s for _, s in scenarios], question)
        for row, (value, scenario) in enumerate(scenarios):
            failing = trial.failing(row)
            tried[value] = (failing is None, failing, scenario)

    largest = d.seek == "largest"
    if highest - lowest < EXHAUSTIVE:
        evaluate(range(lowest, highest + 1))
    else:
        if not largest:
            raise InputError(f"{question.at('seek')}: seek smallest is searched only over "
                             f"ranges under {EXHAUSTIVE} values")
        low, high = lowest, highest
        evaluate([low, high])
        if tried.get(low, (False,))[0] and not tried.get(high, (True,))[0]:
            while high - low > 1:
                step = max(1, (high - low) // (ROUND + 1))
                evaluate(list(range(low + step, high, step))[:ROUND])
                low = max(v for v in tried if low <= v < high and tried[v][0])
                high = min(v for v in tried if low < v <= high and not tried[v][0])
    holding = sorted(v for v, (ok, _, _) in tried.items() if ok)
    if not holding:
        # nothing tried: the range is empty (lowest above a model's own highest_field)
        first = (min(tried) if largest else max(tried)) if tried else lowest
        what = f"{name} {first:,}" if tried else f"any {name}"
        failing = tried[first][1] if tried else None
        detail = _detail(registry, tried[first][2], failing, what) if failing and tried else ""
        raise InputError(f"no {name} from {lowest:,} to {highest:,} satisfies "
                         f"{', '.join(d.holds)} for this scenario" + (f"; {detail}" if detail else ""))
    answer = holding[-1] if largest else holding[0]
    beyond = [v for v in tried if (v > answer if largest else v < answer)]
    if not beyond:  # the end of the range binds
        return tried[answer][2], cap, len(tried)
    step = min(beyond) if largest else max(beyond)
    _, failing, scenario = tried[step]
    assert failing is not None
    formula = registry.graph.formulas[failing]
    binding = Binding(failing, formula.definition.description, formula.location,
                      _detail(registry, scenario, failing, f"{name} {step:,}"), scenario)
    return tried[answer][2], binding, len(tried)


def _quant_answer(registry: Registry, question: Question, base: Scenario
                  ) -> tuple[Scenario, Binding, int]:
    d = question.definition
    assert d.rank_by is not None
    candidates: dict[str, Scenario] = {}
    for fid in registry.quant_formats:
        if fid in d.exclude:
            continue
        try:
            scenario = variant(registry, base, quant=fid)
        except InputError:  # the format cannot hold this model
            continue
        candidates.setdefault(scenario.quant, scenario)
    scenarios = list(candidates.values())
    trial = _Trial(registry, scenarios, question, (d.rank_by,))
    ranks = [r if r is not None else -math.inf for r in trial.columns[d.rank_by]]
    order = sorted(range(len(scenarios)), key=lambda i: -ranks[i])
    holding = [i for i in order if trial.failing(i) is None]
    model = registry.models[base.model].name
    if not holding:
        smallest = order[-1]
        raise InputError(f"no weight format holds {model} on this hardware with "
                         f"{', '.join(d.holds)}; even the smallest, "
                         f"{scenarios[smallest].quant}, does not: "
                         + _detail(registry, scenarios[smallest], trial.failing(smallest) or
                                   d.holds[0], None))
    answer = holding[0]
    better = [i for i in order[:order.index(answer)] if ranks[i] > ranks[answer]]
    if not better:
        binding = Binding(d.rank_by, "no format ranks higher", question.at("rank_by"),
                          f"{scenarios[answer].quant} has the largest {d.rank_by} of every format")
    else:
        nearest = better[-1]
        failing = trial.failing(nearest) or d.holds[0]
        formula = registry.graph.formulas[failing]
        binding = Binding(failing, formula.definition.description, formula.location,
                          _detail(registry, scenarios[nearest], failing,
                                  scenarios[nearest].quant), scenarios[nearest])
    return scenarios[answer], binding, len(scenarios)


def _offers(registry: Registry, question: Question, base: Scenario, rent: bool
            ) -> list[tuple[Scenario, float, str, int]]:
    """(scenario, price, label, devices) of every purchase or rental that can be priced."""
    d = question.definition
    found = []
    if rent:
        assert d.rent_price is not None
        for provider in sorted(registry.providers.values(), key=lambda p: p.id):
            for offer in provider.offers:
                price = figure_value(getattr(offer, d.rent_price, None))
                count = int(figure_value(offer.gpus))
                if price <= 0:
                    continue
                label = f"{provider.name} {offer.id} ({count}x {offer.hardware})"
                try:
                    found.append((variant(registry, base, hardware=offer.hardware,
                                          inputs={"gpus": count}), price, label, count))
                except InputError:
                    continue
        return found
    assert d.buy_price is not None
    for hid, spec in sorted(registry.accelerators.items()):
        price = figure_value(getattr(spec, d.buy_price, None))
        single = bool(getattr(spec, d.single_device_field or "", False))
        if price <= 0:
            continue
        for count in d.counts:
            if single and count > 1:
                continue
            try:
                scenario = variant(registry, base, hardware=hid, inputs={"gpus": count})
            except InputError:
                continue
            found.append((scenario, price * count, f"{count}x {spec.name}", count))
    return found


def _hardware_answer(registry: Registry, question: Question, base: Scenario,
                     min_speed: float | None, rent: bool
                     ) -> tuple[tuple[Scenario, float, str], Binding, int]:
    d = question.definition
    assert d.speed is not None
    if min_speed is None:
        raise InputError(f"{question.name} needs the speed to reach: --min-decode TPS")
    if not min_speed > 0:  # NaN too
        raise InputError(f"--min-decode must be more than 0 tokens per second (got {min_speed:g})")
    offers = _offers(registry, question, base, rent)
    if not offers:
        raise InputError("no accelerator in the library has a "
                         + ("rental offer" if rent else "purchase price"))
    trial = _Trial(registry, [o[0] for o in offers], question, (d.speed,))
    speeds = [s if s is not None else 0.0 for s in trial.columns[d.speed]]
    fitting = [i for i in range(len(offers)) if trial.failing(i) is None]
    meeting = sorted((i for i in fitting if speeds[i] >= min_speed),
                     key=lambda i: (offers[i][1], -speeds[i], offers[i][2]))
    model = registry.models[base.model].name
    unit = registry.graph.formulas[d.speed].definition.unit
    if not meeting:
        if not fitting:
            raise InputError(f"no accelerator in the library holds {model} in any of the "
                             f"device counts tried ({', '.join(map(str, d.counts))})")
        fastest = max(fitting, key=lambda i: speeds[i])
        tried = (f"{len(offers)} cloud offers" if rent else
                 f"{len(offers)} priced purchases; --rent tries the cloud offers")
        raise InputError(f"no accelerator in the library reaches {min_speed:,g} {unit} for "
                         f"this model; fastest: {offers[fastest][2]} at "
                         f"{speeds[fastest]:,.1f} {unit} (of {tried})")
    answer = meeting[0]
    cheaper = [i for i in range(len(offers)) if offers[i][1] < offers[answer][1]]
    if not cheaper:
        binding = Binding("price", "the cheapest priced option in the library",
                          question.at("buy_price" if not rent else "rent_price"),
                          f"{offers[answer][2]} is the cheapest option at all")
    else:
        nearest = max(cheaper, key=lambda i: (offers[i][1], speeds[i]))
        failing = trial.failing(nearest)
        label = offers[nearest][2]
        if failing is None:
            formula = registry.graph.formulas[d.speed]
            binding = Binding(d.speed, f"{d.speed} must reach {min_speed:,g} {unit}",
                              formula.location, f"the next cheaper option, {label}, reaches "
                              f"{speeds[nearest]:,.1f} {unit}", offers[nearest][0])
        else:
            formula = registry.graph.formulas[failing]
            binding = Binding(failing, formula.definition.description, formula.location,
                              _detail(registry, offers[nearest][0], failing,
                                      f"the next cheaper option, {label}"), offers[nearest][0])
    return offers[answer][:3], binding, len(offers)


def _over_answer(registry: Registry, question: Question, base: Scenario
                 ) -> tuple[Scenario, float, Binding, int, list[str]]:
    """An input question with ``over``: the input searched at each value of ``over`` in
    ``counts``, and the answer with the least ``minimize``. The binding is what stops the
    input at the winning value; the notes say how every value of ``over`` fared. Returns
    the answer's scenario and its ``minimize`` value."""
    d = question.definition
    assert d.over is not None and d.minimize is not None and d.input is not None
    found: list[tuple[float, int, Scenario, Binding]] = []
    notes: list[str] = []
    evaluated = 0
    for count in d.counts:
        try:
            at = variant(registry, base, inputs={d.over: count})
            scenario, binding, tried = _input_answer(registry, question, at)
        except InputError as refused:
            notes.append(f"{d.over} {count}: {refused}")
            continue
        evaluated += tried
        value = Estimate(registry, scenario).value(d.minimize)
        if value is None:
            notes.append(f"{d.over} {count}: {d.minimize} is unknown")
            continue
        found.append((value, count, scenario, binding))
        notes.append(f"{d.over} {count}: {d.minimize} {value:,.0f} at {d.input} "
                     f"{int(scenario.inputs[d.input]):,}")
    if not found:
        raise InputError(f"no {d.over} of {', '.join(map(str, d.counts))} satisfies "
                         f"{', '.join(d.holds)} for this scenario: " + "; ".join(notes))
    value, count, scenario, binding = min(found, key=lambda f: (f[0], f[1]))
    return scenario, value, binding, evaluated, notes


def _searched(question: Question) -> tuple[str, ...]:
    """The scenario choices and inputs the answer replaces."""
    d = question.definition
    if d.choose == "hardware":
        return ("hardware", "gpus")
    return (d.choose or d.input or "",) + ((d.over,) if d.over else ())


def solve(registry: Registry, name: str, base: Scenario, *, given: Collection[str] = (),
          min_speed: float | None = None, rent: bool = False) -> SolveView:
    """Answer question ``name`` for scenario ``base``: its searched input or choice is
    replaced by the answer, so it must not be among the names the user ``given``."""
    questions = registry.questions
    if name not in questions:
        raise InputError(f"unknown question {name!r}; fitproof solve answers "
                         f"{question_names(questions)}")
    question = questions[name]
    d = question.definition
    clash = [n for n in _searched(question) if n in given]
    if clash:
        raise InputError(f"{name} finds the {clash[0]} itself; do not set it")
    if min_speed is not None and d.choose != "hardware":
        raise InputError(f"{name} has no speed target; --min-decode is for cheapest")
    value: float | str
    label = None
    if d.choose == "quant":
        scenario, binding, evaluated = _quant_answer(registry, question, base)
        value, unit = scenario.quant, "format"
    elif d.choose == "hardware":
        (scenario, value, label), binding, evaluated = _hardware_answer(
            registry, question, base, min_speed, rent)
        unit = "USD/hour" if rent else "USD"
    elif d.over is not None:
        missing = [n for n in d.needs if base.inputs.get(n) is None]
        if missing:
            raise InputError(f"{name} needs the scenario input "
                             + ", ".join(f"{n} ({registry.graph.inputs[n].definition.description})"
                                         for n in missing))
        scenario, minimized, binding, evaluated, notes = _over_answer(registry, question, base)
        assert d.minimize is not None
        value = int(minimized) if float(minimized).is_integer() else minimized
        unit = registry.graph.formulas[d.minimize].definition.unit
        return SolveView(name, d.description, question.at(), scenario, value, unit, binding,
                         Estimate(registry, scenario).derivation(d.explain), evaluated,
                         notes=tuple(notes))
    else:
        assert d.input is not None
        scenario, binding, evaluated = _input_answer(registry, question, base)
        value = int(scenario.inputs[d.input])
        unit = registry.graph.inputs[d.input].definition.unit
    derivation = Estimate(registry, scenario).derivation(d.explain)
    if d.choose != "hardware":
        return SolveView(name, d.description, question.at(), scenario, value, unit, binding,
                         derivation, evaluated)
    speed_unit = registry.graph.formulas[d.speed or ""].definition.unit
    return SolveView(name, d.description, question.at(), scenario, value, unit, binding,
                     derivation, evaluated, label, min_speed, f"{d.speed} >= {min_speed:,g} "
                     f"{speed_unit}", "rent" if rent else "buy")
