"""Backfilling's profile keeps one skyline per group of nodes alike (schedulers/groups.py):
nodes of one type whose free resources are the same from now on. Bookings split groups and
releases merge them again; each node's free resources are always those of its own skyline
booked node by node, the groups are exactly the classes of nodes alike, and conservative
backfilling gives the schedules of the straightforward implementation on platforms of many
identical nodes (where groups form, split and merge all the time)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference_conservative import ReferenceConservative
from test_conservative import assert_same_schedule
from test_schedulers_hand import job

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import create
from hetsched.schedulers.groups import Singletons
from hetsched.schedulers.profile import Profile
from hetsched.schedulers.skyline import Skyline
from hetsched.sim.engine import simulate
from hetsched.workload.model import SPREAD, Workload

INF = math.inf


def idle(cores: int) -> Skyline:
    return Skyline([0.0], [cores], [1000.0], [0.0])


def from_now(sky: Skyline, now: float) -> tuple:
    """A skyline's free resources from ``now`` on, as steps (what tells nodes apart)."""
    first = sky.step_at(now)
    return (tuple(sky.times[first + 1:]), tuple(sky.cores[first:]), tuple(sky.mem[first:]),
            tuple(sky.disk[first:]))


def group_count(profile: Profile) -> int:
    return len({id(sky) for sky in profile.nodes})


def test_a_booking_on_some_nodes_of_a_group_splits_it_and_its_release_merges_it_back() -> None:
    # Six 4-core nodes of one type and two 8-core nodes of another, idle: two groups.
    # A 2-node job on nodes 1 and 4 over [10, 20) takes them out of the first group; a 1-core
    # job on node 4 over [20, 30) sets it apart from node 1 too. Released, all are alike again.
    kinds = [0] * 6 + [1] * 2
    profile = Profile([idle(4) for _ in range(6)] + [idle(8), idle(8)], idle(40),
                      [4] * 6 + [8, 8], 0.0, kinds)
    assert group_count(profile) == 2
    wide, small = job("wide", 0, 8, 10, nodes=2), job("small", 0, 1, 20)
    profile.reserve(wide, 10.0, 20.0, ((1, 4), (4, 4)))
    assert group_count(profile) == 3
    assert profile.nodes[1] is profile.nodes[4] is not profile.nodes[0]
    profile.reserve(small, 20.0, 30.0, ((4, 1),))
    assert group_count(profile) == 4
    assert profile.nodes[4].times == [0.0, 10.0, 20.0, 30.0]
    assert profile.nodes[4].cores == [4, 0, 3, 4]
    profile.release(wide, 10.0, 20.0, ((1, 4), (4, 4)))
    assert group_count(profile) == 3  # node 1 back in the first group
    assert profile.nodes[1] is profile.nodes[0]
    profile.release(small, 20.0, 30.0, ((4, 1),))
    assert group_count(profile) == 2
    assert len({id(profile.nodes[n]) for n in range(6)}) == 1


def test_nodes_told_apart_only_by_steps_that_ended_merge_when_the_present_passes_them() -> None:
    profile = Profile([idle(4) for _ in range(4)], idle(16), [4] * 4, 0.0)
    profile.reserve(job("a", 0, 8, 10, nodes=2), 0.0, 10.0, ((0, 4), (1, 4)))
    profile.reserve(job("b", 0, 4, 10), 5.0, 10.0, ((2, 4),))
    assert group_count(profile) == 3
    profile.advance(7.0)
    assert group_count(profile) == 2  # nodes 0, 1 and 2: none free until 10
    profile.advance(10.0)
    assert group_count(profile) == 1


@pytest.mark.parametrize("seed", range(40))
def test_groups_hold_what_each_node_booked_alone_holds(seed: int) -> None:
    # Random bookings and releases of cores, memory and disk on random node sets of a
    # platform of a few types with many nodes each, the present moving on: each node's
    # skyline in the profile is, from now on, the one it would have booked on its own, and
    # the groups are exactly the sets of nodes of one type with the same free resources.
    rng = np.random.default_rng(seed)
    types = [(int(rng.integers(1, 5)), int(rng.integers(2, 9))) for _ in range(rng.integers(1, 4))]
    kinds = [kind for kind, (_, count) in enumerate(types) for _ in range(count)]
    cores = [types[kind][0] for kind in kinds]
    alone = [idle(c) for c in cores]
    profile = Profile([idle(c) for c in cores], idle(sum(cores)), cores, 0.0, kinds)
    booked: list[tuple[float, float, tuple[tuple[int, int, float, float], ...]]] = []
    now = 0.0
    for _ in range(60):
        if booked and rng.random() < 0.35:  # give back a booking
            start, end, changes = booked.pop(int(rng.integers(len(booked))))
            sign = 1
        else:
            start = now + float(rng.integers(0, 20))
            end = start + float(rng.choice([1.0, 5.0, 12.0, INF]))
            nodes = rng.choice(len(cores), size=int(rng.integers(1, len(cores) + 1)),
                               replace=False).tolist()
            count = int(rng.integers(1, 3))
            mem, disk = float(rng.choice([0.0, 100.0])), float(rng.choice([0.0, 5.0]))
            changes = tuple((node, min(count, cores[node]), mem, disk) for node in nodes)
            booked.append((start, end, changes))
            sign = -1
        profile.groups.add(start, end, [(n, sign * c, sign * m, sign * d)
                                        for n, c, m, d in changes], now)
        for node, count, mem, disk in changes:
            alone[node].add(start, end, sign * count, sign * mem, sign * disk)
        if rng.random() < 0.3:
            now += float(rng.integers(1, 8))
            profile.advance(now)
            booked = [b for b in booked if b[0] >= now]  # (releases only of what is ahead)
        for node, sky in enumerate(alone):
            assert from_now(profile.nodes[node], now) == from_now(sky, now)
        classes = {(kinds[node], from_now(sky, now)) for node, sky in enumerate(alone)}
        assert group_count(profile) == len(classes)
        for group in profile.groups.live():
            members = profile.groups.members[group]
            assert {id(profile.nodes[node]) for node in members} == \
                {id(profile.groups.skylines[group])}
            assert len({kinds[node] for node in members}) == 1


@pytest.mark.parametrize("seed", range(10))
def test_nodes_of_distinct_types_stay_apart_and_hold_what_each_booked_alone(seed: int) -> None:
    # No two nodes share a type: each is a group of its own for good (no keys kept), and
    # random bookings and releases leave each node's skyline, from now on, what it would hold
    # booked on its own; a one-node search finds the earliest node of those.
    rng = np.random.default_rng(seed)
    cores = [int(c) for c in rng.integers(1, 5, size=int(rng.integers(2, 7)))]
    alone = [idle(c) for c in cores]
    profile = Profile([idle(c) for c in cores], idle(sum(cores)), cores, 0.0,
                      list(range(len(cores))))
    assert isinstance(profile.groups, Singletons)
    now = 0.0
    for _ in range(40):
        start = now + float(rng.integers(0, 20))
        end = start + float(rng.choice([1.0, 5.0, 12.0, INF]))
        node = int(rng.integers(len(cores)))
        count = int(rng.integers(1, cores[node] + 1))
        profile.reserve(job("x", 0, count, 1), start, end, ((node, count),))
        alone[node].add(start, end, -count, 0.0, 0.0)
        now += float(rng.integers(0, 4))
        profile.advance(now)
        for n, sky in enumerate(alone):
            assert from_now(profile.nodes[n], now) == from_now(sky, now)
        assert len({id(sky) for sky in profile.nodes}) == len(cores)
        one = job("one", 0, 1, 3)
        found = profile.earliest(one, [3.0] * len(cores), np.arange(len(cores)),
                                 np.random.default_rng(0))
        firsts = [sky.first_fit(1, 0.0, 3.0, now, INF, now) for sky in alone]
        starts = [INF if t is None else t for t in firsts]
        if min(starts) == INF:
            assert found is None
        else:
            assert found is not None and found[0] == min(starts)
            assert found[1] == ((starts.index(found[0]), 1),)  # the lowest key on a tie


def _identical_nodes(seed: int) -> tuple[Platform, Workload]:
    """Wide, narrow and one-node jobs on three types of many identical nodes, most ending
    well before their estimate."""
    rng = np.random.default_rng(seed)
    platform = Platform.from_counts("many", [(NodeType("a", 4, 1.0), int(rng.integers(4, 9))),
                                             (NodeType("b", 4, 2.0), int(rng.integers(3, 7))),
                                             (NodeType("c", 8, 1.5), int(rng.integers(1, 4)))])
    jobs = []
    for i in range(70):
        nodes = int(rng.choice([1, 1, SPREAD, SPREAD, 2, 4]))
        tasks = int(rng.integers(1, 5)) if nodes == 1 else nodes * int(rng.integers(1, 5)) \
            if nodes > 1 else int(rng.choice([4, 8, 12, 16, 24]))
        seconds = float(rng.integers(10, 300))
        jobs.append(job(f"j{i}", float(i * 8), tasks, seconds,
                        req=seconds * float(rng.choice([1.0, 1.2, 2.0, 4.0])), nodes=nodes))
    return platform, Workload("many", tuple(jobs))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("node", ["first", "high_gflops", "random"])
def test_same_schedule_on_many_identical_nodes(seed: int, node: str) -> None:
    platform, workload = _identical_nodes(seed)
    scheduler = create(f"conservative:node={node}")
    result = simulate(platform, workload, scheduler, seed=seed)
    assert_same_schedule(result,
                         simulate(platform, workload, ReferenceConservative(node), seed=seed))
    assert np.nanmax(result.start - [j.submit for j in workload.jobs]) > 300  # it queued
