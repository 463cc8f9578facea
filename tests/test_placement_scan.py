"""The Python scans that place jobs on few nodes give what the numpy paths give."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hetsched.schedulers import placement
from hetsched.schedulers.placement import choose_node, place
from hetsched.workload.model import SPREAD, Job


@st.composite
def nodes(draw):
    n = draw(st.integers(1, 12))
    cap = np.array(draw(st.lists(st.integers(0, 8), min_size=n, max_size=n)), dtype=np.int64)
    order = np.array(draw(st.permutations(range(n))))
    allowed = draw(st.none() | st.lists(st.booleans(), min_size=n, max_size=n))
    return cap, order, None if allowed is None else np.array(allowed)


def both(monkeypatch: pytest.MonkeyPatch, fn):
    scanned = fn()
    monkeypatch.setattr(placement, "SCAN_NODES", 0)
    vectorised = fn()
    monkeypatch.setattr(placement, "SCAN_NODES", 64)
    return scanned, vectorised


@settings(max_examples=200, deadline=None)
@given(nodes(), st.integers(1, 20), st.sampled_from([1, SPREAD]))
def test_scans_match_numpy(case, ntasks, spread) -> None:
    cap, order, allowed = case
    j = Job(id="j", submit=0, ntasks=ntasks, req_ops=1e9, req_time=1, nodes=spread)
    rng = np.random.default_rng(0)
    with pytest.MonkeyPatch.context() as mp:
        unlimited = np.full(cap.size, np.inf)
        got, expected = both(mp, lambda: place(j, cap, unlimited, unlimited, order, rng,
                                               allowed, order))
    assert got == expected
    if got is not None:
        assert sum(c for _, c in got) == ntasks
    with pytest.MonkeyPatch.context() as mp:
        got, expected = both(mp, lambda: choose_node(cap >= ntasks, order, rng, order))
    assert got == expected
