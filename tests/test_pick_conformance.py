"""The pick of a selection is the same on both Python paths: the evaluator's ``choose``
(numpy, many rows at once) and the snapshot's ranking (``fast/select.py``'s ``_sort_key``,
one scenario, candidate by candidate, the first smallest key tuple kept). Unknown keys and
plus infinity rank last, minus infinity as the most negative float (numpy's nan_to_num),
ties go to the first candidate, and no candidate allowed is no pick (-1)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fitproof.engine.columns import choose
from fitproof.fast.select import _sort_key

KEYS = [math.nan, math.inf, -math.inf, -1.7976931348623157e308, -5.0, 0.0, -0.0, 3.0, 3.0, 7.5,
        1e308]


def _snapshot_pick(ok: list[bool], keys: list[list[float]]) -> int:
    """The snapshot's rule: among allowed candidates, the first with the smallest key tuple."""
    best, chosen = None, -1
    for index, allowed in enumerate(ok):
        if not allowed:
            continue
        ranked = tuple(_sort_key(key[index]) for key in keys)
        if best is None or ranked < best:
            best, chosen = ranked, index
    return chosen


def _evaluator_pick(ok: list[bool], keys: list[list[float]]) -> int:
    return int(choose(np.array([ok]), [np.array([key]) for key in keys])[0])


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=6).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.lists(st.sampled_from(KEYS), min_size=n, max_size=n), min_size=1, max_size=3))))
def test_both_paths_pick_the_same_candidate(drawn):
    ok, keys = drawn
    assert _snapshot_pick(ok, keys) == _evaluator_pick(ok, keys)


def test_the_ranking_rules():
    # minus infinity first, as the most negative float (a tie with it goes to the first);
    # unknown and plus infinity last; a tie to the first; nothing allowed, no pick
    assert _snapshot_pick([True, True], [[-5.0, -math.inf]]) == 1
    assert _snapshot_pick([True, True], [[-1.7976931348623157e308, -math.inf]]) == 0
    assert _snapshot_pick([True, True, True], [[math.nan, math.inf, 1e308]]) == 2
    assert _snapshot_pick([True, True], [[math.nan, math.inf]]) == 0
    assert _snapshot_pick([True, True], [[3.0, 3.0], [1.0, 0.0]]) == 1
    assert _snapshot_pick([False, False], [[1.0, 2.0]]) == -1
