"""Multi-node searches of backfilling's profile (schedulers/profile.py) skip the starts where
the groups cannot have room, and a reserved job's test before compression releases it
(``Profile.may_start_before``) never says no where a slot exists, nor passes first a start
after the earliest slot (compression searches from there): against a search of every start,
on random profiles of a few node types with many nodes each."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_groups import idle
from test_schedulers_hand import job

from hetsched.schedulers.placement import place
from hetsched.schedulers.profile import Profile
from hetsched.workload.model import SPREAD


def _booked_profile(rng: np.random.Generator) -> tuple[Profile, list[int]]:
    """A profile of a few types of many nodes with random bookings (cores only) ahead."""
    counts = [int(rng.integers(2, 7)) for _ in range(int(rng.integers(1, 4)))]
    cores = [int(rng.integers(2, 9)) for _ in counts]
    kinds = [kind for kind, count in enumerate(counts) for _ in range(count)]
    slots = [cores[kind] for kind in kinds]
    profile = Profile([idle(c) for c in slots], idle(sum(slots)), slots, 0.0, kinds)
    for b in range(int(rng.integers(5, 25))):
        start = float(rng.integers(0, 60))
        end = start + float(rng.integers(1, 30))
        nodes = rng.choice(len(slots), size=int(rng.integers(1, len(slots) + 1)),
                           replace=False).tolist()
        allocation = []
        for node in nodes:
            free = profile.nodes[node].lowest(start, end)[0]
            if free > 0:
                allocation.append((node, int(rng.integers(1, free + 1))))
        if allocation:
            tasks = sum(count for _, count in allocation)
            profile.reserve(job(f"b{b}", 0, tasks, end - start, nodes=SPREAD), start, end,
                            tuple(allocation))
    return profile, slots


def _every_start(profile: Profile, tasks: int, duration: float, hi: float) -> float | None:
    """The earliest start before ``hi``, among now and every step's start, where the nodes
    keep ``tasks`` free cores in all over the window (a spread job's fit)."""
    starts = sorted({0.0} | {t for sky in profile.nodes for t in sky.times if 0.0 < t < hi})
    for t in starts:
        if sum(sky.lowest(t, t + duration)[0] for sky in profile.nodes) >= tasks:
            return t
    return None


@pytest.mark.parametrize("seed", range(60))
def test_a_wide_search_finds_the_earliest_start_of_all(seed: int) -> None:
    rng = np.random.default_rng(seed)
    profile, slots = _booked_profile(rng)
    for _ in range(5):
        tasks = int(rng.integers(2, sum(slots) + 1))
        duration = float(rng.integers(1, 40))
        hi = float(rng.choice([20.0, 50.0, math.inf]))
        wide = job("w", 0, tasks, duration, nodes=SPREAD)
        found = profile.earliest(wide, [duration] * len(slots), None, rng, hi=hi)
        expected = _every_start(profile, tasks, duration, hi)
        assert (found and found[0]) == expected


@pytest.mark.parametrize("seed", range(60))
def test_a_search_on_k_nodes_finds_the_earliest_start_of_all(seed: int) -> None:
    # (an even split: the starts where too few nodes have room are skipped by the groups
    # that lack it alone)
    rng = np.random.default_rng(seed)
    profile, slots = _booked_profile(rng)
    for _ in range(5):
        nodes = int(rng.integers(2, len(slots) + 1))
        tasks = nodes * int(rng.integers(1, min(slots) + 1)) + int(rng.integers(0, nodes))
        duration = float(rng.integers(1, 40))
        wide = job("w", 0, tasks, duration, nodes=nodes)
        found = profile.earliest(wide, [duration] * len(slots), None, rng)
        starts = sorted({0.0} | {t for sky in profile.nodes for t in sky.times if t > 0.0})
        expected = next((t for t in starts if place(wide, np.array(
            [sky.lowest(t, t + duration)[0] for sky in profile.nodes]), np.full(len(slots), 1e9),
            np.full(len(slots), 1e9), None, rng) is not None), None)
        assert (found and found[0]) == expected


@pytest.mark.parametrize("seed", range(60))
def test_may_start_before_says_no_only_where_no_slot_exists(seed: int) -> None:
    rng = np.random.default_rng(seed)
    profile, slots = _booked_profile(rng)
    said_no = 0
    for _ in range(8):
        tasks = int(rng.integers(2, sum(slots) + 1))
        duration = float(rng.integers(1, 40))
        wide = job("w", 0, tasks, duration, nodes=SPREAD)
        durations = [duration] * len(slots)
        placed = profile.earliest(wide, durations, None, rng, lo=float(rng.integers(0, 40)))
        if placed is None:
            continue
        start, allocation = placed
        profile.reserve(wide, start, start + duration, allocation)
        lo = float(rng.integers(0, 40))
        may = profile.may_start_before(wide, duration, lo, start, start,
                                       (node for node, _ in allocation))
        profile.release(wide, start, start + duration, allocation)
        earlier = profile.earliest(wide, durations, None, rng, lo=lo, hi=start)
        # no slot where it says no, nor before the first start it passes
        assert earlier is None or (may is not None and may <= earlier[0])
        said_no += may is None
        if earlier is None:  # kept where it was (what compression does)
            profile.reserve(wide, start, start + duration, allocation)
    if seed == 0:
        assert said_no  # (the test is not empty)


def test_may_start_before_reads_the_other_nodes_over_the_whole_window() -> None:
    # three one-core nodes alike; w (2 tasks, 10 s) booked on nodes 0 and 1 from 5; node 1
    # busy over [0, 5), node 2 over [8, 30). Released, w has node 0 alone before 5 (node 2
    # is taken within any window [t, t + 10), t >= 0): no slot. Cut at 5, as its own nodes'
    # windows are, node 2 would look free too (two nodes: may); over its whole window, not.
    profile = Profile([idle(1) for _ in range(3)], idle(3), [1, 1, 1], 0.0, [0, 0, 0])
    profile.reserve(job("y", 0, 1, 5.0), 0.0, 5.0, ((1, 1),))
    profile.reserve(job("x", 0, 1, 22.0), 8.0, 30.0, ((2, 1),))
    wide = job("w", 0, 2, 10.0, nodes=SPREAD)
    allocation = ((0, 1), (1, 1))
    profile.reserve(wide, 5.0, 15.0, allocation)
    assert profile.may_start_before(wide, 10.0, 0.0, 5.0, 5.0, [0, 1]) is None
    profile.release(wide, 5.0, 15.0, allocation)
    assert profile.earliest(wide, [10.0] * 3, None, np.random.default_rng(0), hi=5.0) is None


def test_reservations_keep_their_nodes_where_counts_would_swap_them() -> None:
    # Two one-core nodes alike: node 0 reserved over [10, 20) (a); node 1 busy over [0, 5)
    # (y), reserved over [12, 30) (v). On these nodes a 12 s job fits first at 20, after a.
    # Counting free nodes alone (never more than one busy over [0, 12)) would start it at 0
    # on node 0, with v moved to node 0 after it and a to node 1: bookings keep their nodes
    # here, so start times are not those of a profile of counts (docs/model.md).
    profile = Profile([idle(1), idle(1)], idle(2), [1, 1], 0.0, [0, 0])
    profile.reserve(job("y", 0, 1, 5.0), 0.0, 5.0, ((1, 1),))
    profile.reserve(job("a", 0, 1, 10.0), 10.0, 20.0, ((0, 1),))
    profile.reserve(job("v", 0, 1, 18.0), 12.0, 30.0, ((1, 1),))
    found = profile.earliest(job("c", 0, 1, 12.0), [12.0, 12.0], None,
                             np.random.default_rng(0))
    assert found == (20.0, ((0, 1),))
    busy = [sum(sky.lowest(t, t + 1.0)[0] == 0 for sky in profile.nodes)
            for t in (0.0, 5.0, 10.0, 11.0)]
    assert max(busy) <= 1  # (counts alone: a node is free throughout [0, 12))
