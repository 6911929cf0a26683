"""One truth, as properties over the whole grid (issue 31): scenarios drawn by hypothesis
from every model x accelerator x format x engine x workload x devices x batch x context,
edges included, each checked against the invariants of benchmarks/consistency.py (the same
functions its 10,000-scenario run uses, on another seed). A fixed seed keeps the sample the
same from run to run; a failing draw is printed with the scenario that broke."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import REPO

pytestmark = pytest.mark.slow

_spec = importlib.util.spec_from_file_location("consistency", REPO / "benchmarks" / "consistency.py")
assert _spec is not None and _spec.loader is not None
consistency = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(consistency)

GRID = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _case(registry, data):
    return consistency.draw(registry, lambda label, options: data.draw(
        st.sampled_from(list(options)), label=label))


@pytest.fixture(scope="module")
def measured():
    """The default profile's registry (the one `fitproof estimate` uses)."""
    import fitproof

    return fitproof.load_registry(plugins=False)


@pytest.fixture(scope="module")
def snapshot_model(measured):
    from fitproof.fast.build import build_snapshot
    from fitproof.fast.estimate import SnapshotModel

    return SnapshotModel(build_snapshot(measured))


@settings(GRID, max_examples=300)
@given(data=st.data())
def test_every_drawn_scenario_keeps_the_invariants(measured, snapshot_model, data):
    registry = measured
    case = _case(registry, data)
    result = consistency.estimate(registry, case)  # anything but an InputError propagates
    found = consistency.violations(registry, case, result)
    if not isinstance(result, consistency.InputError):
        found += consistency.snapshot_violations(registry, result, snapshot_model)
    assert not found, (case, found)


@settings(GRID, max_examples=4)
@given(data=st.data())
def test_a_report_is_built_whenever_the_estimate_is(measured, data):
    registry = measured
    case = _case(registry, data)
    result = consistency.estimate(registry, case)
    if isinstance(result, consistency.InputError):
        return
    assert not consistency.report_violations(registry, result), case


def test_the_invariants_catch_what_they_promise(measured):
    registry = measured
    """Each invariant fails on the contradiction it names (the checks can fail)."""
    case = {"model": "llama-3.1-8b", "hardware": "rtx-4090", "quant": None, "engine": "llama.cpp",
            "kv": None, "workload": "full", "inputs": {}}
    result = consistency.estimate(registry, case)
    assert not consistency.violations(registry, case, result)

    class Broken:  # the estimate with one number changed, as a renderer would read it
        def __init__(self, changes):
            self.changes = changes
            self.quantities = {name: q._replace(value=changes.get(name, q.value))
                               for name, q in result.quantities.items()}
            self.scenario = result.scenario

        def value(self, name):
            return self.changes.get(name, result.value(name))

        def view(self):
            view = result.view()
            return view._replace(verdict=self.changes.get("verdict", view.verdict),
                                 selections=self.changes.get("selections", view.selections))

    fits = result.view().verdict._replace(id="fits")
    assert any("verdict fits" in v for v in consistency.violations(
        registry, case, Broken({"verdict": fits})))
    assert any("printed parts" in v for v in consistency.violations(
        registry, case, Broken({"total_gib": result.value("total_gib") + 1})))
    unsupported = fits._replace(id="unsupported")
    assert any("a speed is given" in v for v in consistency.violations(
        registry, case, Broken({"verdict": unsupported, "decode_tps": 10.0})))
    elsewhere = {"scenario_offer": {"id": "vast-ai/rtx-3090-verified", "label": "x"}}
    assert any("cost priced on rtx-3090" in v for v in consistency.violations(
        registry, case, Broken({"selections": elsewhere})))


def test_the_other_models_check_catches_a_row_that_is_not_the_models_estimate(measured):
    """A report row that says of another model something its own estimate does not, or a
    model left out that its estimate answers, is a violation (the check can fail)."""
    import attrs

    registry = measured
    case = {"model": "qwen3-8b", "hardware": "rtx-4090", "quant": None, "engine": "llama.cpp",
            "kv": None, "workload": "inference", "inputs": {"context": 8192}}
    result = consistency.estimate(registry, case)
    report = consistency.fitproof.api.report(registry, result.scenario).report
    assert report.other_models and report.skipped_in("other_models")
    assert not consistency.other_model_violations(registry, result, report)
    first = report.other_models[0]
    wrong = attrs.evolve(first, total_gib=attrs.evolve(first.total_gib,
                                                      value=first.total_gib.value + 1))
    broken = attrs.evolve(report, other_models=(wrong, *report.other_models[1:]))
    assert consistency.other_model_violations(registry, result, broken) == [
        f"other model {first.model}: {first.verdict} {first.total_gib.value + 1} vs its "
        f"estimate {first.verdict.id} {first.total_gib.value}"]
    # a model left out at 8K that was trained for less is right; one that answers is not
    skipped = report.skipped_in("other_models")[0]
    assert skipped.name.startswith("Llama 2")
    answers = attrs.evolve(skipped, name="Qwen3 4B")
    assert consistency.other_model_violations(
        registry, result, attrs.evolve(report, skipped=(answers,))) == [
        "other model qwen3-4b left out although its estimate answers"]
