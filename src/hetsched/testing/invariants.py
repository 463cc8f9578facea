"""The simulator's invariants, checked on a result alone (an independent replay of its job
intervals and allocations)."""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

from hetsched.models.speed import SpeedModel
from hetsched.platform.reservations import Interval, steps
from hetsched.sim.result import JobState, Requeued, SimResult
from hetsched.workload.model import SPREAD, Job

END_STATES = frozenset({JobState.FINISHED, JobState.REJECTED, JobState.UNFINISHED,
                        JobState.KILLED, JobState.FAILED})
#: The end states of jobs that ran (to their end, or killed).
RAN = frozenset({JobState.FINISHED, JobState.KILLED, JobState.FAILED})


def check_result(result: SimResult, any_nodes: Collection[int] = ()) -> None:
    """The simulator's invariants on ``result``, from the result alone: every job once, in an
    end state, with a reason when rejected or unfinished; no start before the job's submission
    or its last parent's end; allocations of the job's shape (its tasks, its node count, an
    even split; only the tasks for the jobs in ``any_nodes``, started with ``any_nodes``); no
    node over its slots, memory or disk at any time; no job on cores a reservation holds
    during its reserved time; no job on a node while it is failed, and a job killed by a
    failure ended when one of its nodes failed; a job requeued after a failure first started
    after its submission and not after its last start. Raises ``AssertionError`` naming the
    job or node."""
    assert len(result.state) == len(result.workload.jobs), "not one state per job"
    for job in result.workload.jobs:
        _check_job(result, job, job.index in any_nodes)
    _check_capacity(result)
    if result.platform.reservations:
        _check_reservations(result)
    if result.failures:
        _check_failures(result)
    _check_requeued(result)


def _check_job(result: SimResult, job: Job, any_nodes: bool) -> None:
    i, what = job.index, f"job '{job.id}'"
    state = JobState(int(result.state[i]))
    assert state in END_STATES, f"{what} ends {state.name}, not an end state"
    if state in (JobState.REJECTED, JobState.UNFINISHED, JobState.FAILED):
        assert result.reason.get(i), f"{what} is {state.name} without a reason"
    allocation, start, end = result.allocation[i], result.start[i], result.end[i]
    if allocation is None:
        assert state not in RAN, \
            f"{what} is {state.name} without an allocation"
        assert math.isnan(start), f"{what} has a start but no allocation"
        return
    assert state is not JobState.REJECTED, f"{what} is rejected but was started"
    assert start >= job.submit, f"{what} starts at {start}, before its submission {job.submit}"
    if state in RAN:
        assert end >= start, f"{what} ends at {end}, before its start {start}"
    for parent in job.parents:
        p = result.workload.by_id[parent].index
        assert result.state[p] == JobState.FINISHED and start >= result.end[p], \
            f"{what} starts at {start}, before its parent '{parent}' ended"
    _check_shape(job, allocation, len(result.platform.nodes), any_nodes)


def _check_shape(job: Job, allocation: tuple[tuple[int, int], ...], n_nodes: int,
                 any_nodes: bool) -> None:
    what = f"job '{job.id}' ({job.ntasks} tasks, nodes={job.nodes})"
    nodes = [node for node, _ in allocation]
    counts = [count for _, count in allocation]
    assert all(0 <= node < n_nodes for node in nodes), f"{what}: no such node in {allocation}"
    assert len(set(nodes)) == len(nodes), f"{what}: a node appears twice in {allocation}"
    assert all(c > 0 for c in counts) and sum(counts) == job.ntasks, \
        f"{what}: allocation {allocation} does not hold its tasks"
    if any_nodes or job.nodes == SPREAD:
        return
    base = job.ntasks // job.nodes
    assert len(nodes) == job.nodes and all(c in (base, base + 1) for c in counts), \
        f"{what}: allocation {allocation} is not an even split over {job.nodes} node(s)"


def _check_capacity(result: SimResult) -> None:
    """Sweep each node's starts and ends (ends first at a tie), the attempts failures killed
    and requeued included: cores, memory and disk in use never exceed what the node has."""
    arrays = result.platform.arrays
    changes: dict[int, list[tuple[float, int, int, float, float]]] = {}
    jobs = result.workload.jobs
    held = [(job, float(result.start[job.index]), float(result.end[job.index]), allocation)
            for job, allocation in zip(jobs, result.allocation) if allocation is not None]
    held += [(jobs[index], start, end, allocation) for index, requeued in
             result.requeued.items() for start, end, allocation in requeued.attempts]
    for job, start, end, allocation in held:
        end = math.inf if math.isnan(end) else end
        for node, count in allocation:
            memory, disk = (job.job_memory_mb * count / job.ntasks,
                            job.job_disk_mb * count / job.ntasks)
            changes.setdefault(node, []).extend([(start, 1, count, memory, disk),
                                                 (end, 0, -count, -memory, -disk)])
    for node, events in changes.items():
        used = np.zeros(3)
        limits = np.array([arrays.slots[node], arrays.memory_mb[node], arrays.disk_mb[node]])
        for time, _, *delta in sorted(events):
            used += delta
            assert np.all(used <= limits * (1 + 1e-9) + 1e-6), \
                f"node {node} holds {used.tolist()} (cores, memory, disk) at {time}, more " \
                f"than its {limits.tolist()}"


def _check_reservations(result: SimResult) -> None:
    """On each node with reservations, the slots they hold plus those of the jobs in their
    reserved time (from the start to the start plus the estimate on the allocation, or to the
    end if sooner; the start instant alone without an estimate) never exceed its slots: no
    job was started on cores a reservation holds (one running past its estimate may)."""
    platform, speed = result.platform, SpeedModel(result.platform)
    booked: dict[int, list[Interval]] = {}
    for r in platform.reservations:
        booked.setdefault(r.node, []).append((r.start, r.end, r.cores))
    used: dict[int, list[Interval]] = {node: [] for node in booked}
    for job, allocation in zip(result.workload.jobs, result.allocation):
        if allocation is None or not any(node in used for node, _ in allocation):
            continue
        start, end = float(result.start[job.index]), float(result.end[job.index])
        until = start + speed.estimate_on(job, [node for node, _ in allocation])
        until = min(until, math.inf if math.isnan(end) else end)
        for node, count in allocation:
            if node in used:
                used[node].append((start, max(until, math.nextafter(start, math.inf)), count))
    for node, parts in booked.items():
        per_core = platform.nodes[node].type.oversubscription
        times, held = steps([*((a, b, c * per_core) for a, b, c in parts), *used[node]])
        slots = int(platform.arrays.slots[node])
        over = next(((t, h) for t, h in zip(times, held) if h > slots), None)
        assert over is None, (f"node {node} holds {over[1]} slots (reservations and jobs in "
                              f"their reserved time) at {over[0]}, more than its {slots}")


def _check_failures(result: SimResult) -> None:
    """No job holds a node from a failure of it to its repair (a job killed by the failure
    ends at its start); each job killed by a failure ended at the start of a failure of one of
    its nodes."""
    failures = result.failures
    for job, allocation in zip(result.workload.jobs, result.allocation):
        if allocation is None:
            continue
        start, end = float(result.start[job.index]), float(result.end[job.index])
        end = math.inf if math.isnan(end) else end
        nodes = {node for node, _ in allocation}
        for f in failures:
            assert f.node not in nodes or not (start < f.end and end > f.start), \
                f"job '{job.id}' holds node {f.node} from {start} to {end}, across its " \
                f"failure from {f.start} to {f.end}"
        if result.state[job.index] == JobState.FAILED:
            assert any(f.node in nodes and f.start == end for f in failures), \
                f"job '{job.id}' was killed by a failure at {end}, but none of its nodes " \
                "failed then"


def _check_requeued(result: SimResult) -> None:
    """Each job requeued after a failure (``on_failure="requeue"``) had killed attempts that
    began after its submission, the first not after its last start, and ran for no negative
    time; where they are listed (``attempts``), one each, in order, the first at the first
    start, each ended by a failure of one of its nodes, their core-seconds the work lost."""
    for index, requeued in result.requeued.items():
        job, start = result.workload.jobs[index], float(result.start[index])
        what = f"job '{job.id}'"
        assert requeued.killed >= 1 and requeued.work_lost >= 0, f"{what}: {requeued}"
        assert requeued.first_start >= job.submit, \
            f"{what} first started at {requeued.first_start}, before its submission"
        assert math.isnan(start) or start >= requeued.first_start, \
            f"{what} last started at {start}, before its first start {requeued.first_start}"
        if requeued.attempts:
            _check_attempts(result, what, requeued, start)


def _check_attempts(result: SimResult, what: str, requeued: Requeued, last: float) -> None:
    """The killed attempts of a requeued job (``what``; ``last``: its last start, NaN if it
    did not start again) against its record and the run's failures and end."""
    attempts = requeued.attempts
    assert len(attempts) == requeued.killed, \
        f"{what}: {len(attempts)} attempts listed, {requeued.killed} killed"
    assert attempts[0][0] == requeued.first_start, \
        f"{what}: its first attempt began at {attempts[0][0]}, not at its first start"
    starts = [a[0] for a in attempts[1:]] + ([] if math.isnan(last) else [last])
    for (begin, end, allocation), after in zip(attempts, [*starts, math.inf]):
        assert begin <= end <= after, \
            f"{what}: an attempt from {begin} to {end}, then one at {after}"
        assert end <= result.t_end, f"{what}: an attempt killed at {end}, after the run's " \
                                    f"end {result.t_end}"
        nodes = {node for node, _ in allocation}
        assert any(f.node in nodes and f.start == end for f in result.failures), \
            f"{what}: an attempt killed at {end}, when none of its nodes failed"
    lost = sum((end - begin) * sum(c for _, c in allocation)
               for begin, end, allocation in attempts)
    assert math.isclose(lost, requeued.work_lost, rel_tol=1e-9, abs_tol=1e-6), \
        f"{what}: its attempts ran {lost} core-seconds, work lost {requeued.work_lost}"


def check_completes(result: SimResult, after_fork: bool = False) -> None:
    """No job ends unfinished (on a fork: none but those submitted after the fork)."""
    waiting = [job for job in result.workload.jobs
               if result.state[job.index] == JobState.UNFINISHED and not
               (after_fork and result.reason.get(job.index) == "submitted after the fork")]
    assert not waiting, (f"{len(waiting)} job(s) left waiting{' in the fork' * after_fork}, "
                         f"e.g. '{waiting[0].id}': {result.reason.get(waiting[0].index)}")
