"""The scheduler contract (``hetsched.testing.check_scheduler``, scikit-learn's check_estimator
style): every registered scheduler passes it, none skipped, and each check catches the
scheduler that breaks it."""

from __future__ import annotations

import random
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers import Scheduler, Start, create, entries
from hetsched.sim.engine import simulate
from hetsched.sim.result import JobState
from hetsched.testing import (CHECK_BUDGET, ContractError, check_result, check_scheduler,
                              contract_inputs, contract_platform, contract_workload)
from hetsched.workload.model import Job, Workload


@pytest.mark.parametrize("name", [entry.name for entry in entries()])
def test_every_registered_scheduler_keeps_the_contract(name: str) -> None:
    check_scheduler(name)


@pytest.mark.parametrize("spec, inputs", [
    ("easy:node=random", "mixed"), ("irmasim_heuristic:resource_selection=high_mem", "mixed"),
    ("tabu", "single-task"), ("ils:budget=3", "single-task"), ("lwt", "ds-sim"),
])
def test_schedulers_run_on_inputs_they_can_run(spec: str, inputs: str) -> None:
    assert check_scheduler(spec).name == inputs


def test_the_inputs_are_varied_and_all_fit() -> None:
    mixed = contract_inputs()[0]
    jobs = mixed.workload.jobs
    assert len(jobs) == 30 and len({j.nodes for j in jobs}) == 3
    assert any(j.memory_mb for j in jobs) and sum(bool(j.parents) for j in jobs) == 4
    assert len({n.type.name for n in mixed.platform.nodes}) == 3
    result = simulate(mixed.platform, mixed.workload, create("fcfs"))
    assert result.count(JobState.FINISHED) == 30


@pytest.mark.parametrize("spec, budget", [
    ("ga", CHECK_BUDGET), ("milp:replan=true", CHECK_BUDGET), ("ils:budget=3", 3),
    ("ga:time_limit=5", None), ("min_min", None),  # a time limit asked for; no budget taken
])
def test_a_scheduler_that_takes_a_budget_is_checked_with_one(spec: str, budget) -> None:
    from hetsched.testing.contract import _fresh_copies

    fresh, label = _fresh_copies(spec)
    assert fresh().get_params()["budget"] == budget and label == spec


# ---- a scheduler that breaks one rule fails the check of that rule ----------------------------

class SpreadFit(Scheduler):
    """FCFS on the first nodes with room, as evenly as the job's nodes say (the broken ones
    below change one thing each)."""

    name = "first-fit"

    def __init__(self, limit: int = 100) -> None:
        self.limit = limit

    def order(self) -> list:
        return list(self.view.pending.values())[: self.limit]

    def decide(self, now, events):
        for job in self.order():
            allocation = self.spread(job)
            if allocation is None:
                return
            yield Start(job, allocation)

    def spread(self, job):
        if job.nodes == 0:  # any nodes: fill the first ones with room
            allocation, left = [], job.ntasks
            for node in self.view.node_index.tolist():
                count = min(int(self.view.free_cores[node]), left)
                while count and not self.view.fits(job, node, count):
                    count -= 1
                if count:
                    allocation.append((node, count))
                    left -= count
            return tuple(allocation) if left == 0 else None
        fits = self.view.fit_mask(job, -(-job.ntasks // job.nodes)).nonzero()[0]
        if fits.size < job.nodes:
            return None
        base, extra = divmod(job.ntasks, job.nodes)
        return tuple((int(node), base + (i < extra)) for i, node in enumerate(fits[:job.nodes]))


class Lambda(SpreadFit):
    def __init__(self, limit: int = 100, key=lambda job: job.index) -> None:
        super().__init__(limit)
        self.key = key


class Renamed(SpreadFit):
    def __init__(self, limit: int = 100) -> None:
        self.most = limit


class Stateful(SpreadFit):
    def __init__(self, limit: int = 100) -> None:
        super().__init__(limit)
        self.runs = 0

    def reset(self, view, rng):
        super().reset(view, rng)
        self.runs += 1  # run state kept across runs: the second run differs

    def order(self):
        jobs = super().order()
        return jobs[::-1] if self.runs > 1 else jobs


class Unseeded(SpreadFit):
    def order(self):
        jobs = super().order()
        random.shuffle(jobs)  # Python's global generator, not the run's
        return jobs


class Meddler(SpreadFit):
    def decide(self, now, events):
        self.view._state.free_mem[0] += 1.0  # writes the engine's state behind the view
        yield from super().decide(now, events)


class ForgetsTheFork(SpreadFit):
    def reset(self, view, rng):
        super().reset(view, rng)
        self.known: set[int] = set()

    def order(self):  # only the jobs that arrived since its reset
        return [job for job in super().order() if job.index in self.known]

    def decide(self, now, events):
        self.known.update(job.index for job in events.arrived)
        yield from super().decide(now, events)


class Lazy(SpreadFit):
    def order(self):
        return [job for job in super().order() if job.id != "j5"]  # never starts j5


@pytest.mark.parametrize("scheduler, check, words", [
    (Lambda(), "pickle", "lambda"),
    (Renamed(), "options", "does not store its option 'limit'"),
    (Stateful(), "options", "__init__ sets runs beside the options"),
    (Unseeded(), "same seed", "jobs.csv differs"),
    (Meddler(), "view", "the view's state changed in its decisions"),
    (ForgetsTheFork(), "fork", "left waiting in the fork"),
    (Lazy(), "completes", "'j5': never started"),
])
def test_each_check_catches_its_breach(scheduler: Scheduler, check: str, words: str) -> None:
    with pytest.raises(ContractError, match=f"check '{check}' failed for scheduler "
                                            f"'first-fit': .*{words}"):
        check_scheduler(scheduler)


def test_the_well_behaved_one_passes_and_a_second_run_is_checked() -> None:
    check_scheduler(SpreadFit(limit=3))

    class Drifting(SpreadFit):  # keeps its state in a class attribute: the second run differs
        runs = [0]

        def reset(self, view, rng):
            super().reset(view, rng)
            self.runs[0] += 1

        def order(self):
            return super().order()[:: -1 if self.runs[0] % 2 == 0 else 1]

    with pytest.raises(ContractError, match="check '(same seed|pickle|second run)' failed"):
        check_scheduler(Drifting())


def test_given_inputs_are_used(tmp_path: Path) -> None:
    platform = contract_platform((4, 2, 1))
    assert check_scheduler("easy", platform).name == "given"
    workload = contract_workload(contract_platform(), single_task=True)
    assert check_scheduler("fcfs", workload=workload).name == "given"
    with pytest.raises(ContractError, match="check 'runs' failed for scheduler 'bf': it runs "
                                            "none of the inputs.*needs a ds-sim job list"):
        check_scheduler("bf", platform)


FILE_SOURCE = """\
    from hetsched.schedulers import Reject, Scheduler, Start


    class Mine(Scheduler):
        \"\"\"FCFS on the first node with room; jobs over several nodes are refused.\"\"\"

        def __init__(self, limit: int = 100) -> None:
            self.limit = limit

        def decide(self, now, events):
            for job in list(self.view.pending.values())[: self.limit]:
                if job.nodes != 1:
                    yield Reject(job, "one node per job here")
                    continue
                fits = self.view.fit_mask(job).nonzero()[0]
                if fits.size == 0:
                    return
                yield Start.on(job, int(fits[0]))


    class Doubled(Mine):
        def __init__(self, limit: int = 100) -> None:
            self.limit = 2 * limit
    """


def test_a_file_scheduler_is_checked_with_its_options(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(FILE_SOURCE))
    check_scheduler(f"{path}:Mine:limit=4")
    with pytest.raises(ContractError, match="check 'options'.*option limit=4 is kept as 8"):
        check_scheduler(f"{path}:Doubled:limit=4")


# ---- the invariants on doctored results --------------------------------------------------------

@pytest.fixture(scope="module")
def result():
    inputs = contract_inputs()[0]
    return simulate(inputs.platform, inputs.workload, create("easy"))


def doctored(result, job_id: str, **changes):
    index = result.workload.by_id[job_id].index
    start, end = result.start.copy(), result.end.copy()
    allocation, state = list(result.allocation), result.state.copy()
    if "start" in changes:
        start[index] = changes["start"]
    if "allocation" in changes:
        allocation[index] = changes["allocation"]
    if "state" in changes:
        state[index] = changes["state"]
    return replace(result, start=start, end=end, allocation=allocation, state=state,
                   reason={k: v for k, v in result.reason.items() if k != index})


def test_check_result_passes_a_real_run(result) -> None:
    check_result(result)


@pytest.mark.parametrize("job_id, changes, words", [
    ("j3", {"start": -1.0}, "before its submission"),
    ("j6", {"start": 185.0}, "before its parent 'j3' ended"),
    ("j0", {"state": JobState.RUNNING}, "ends RUNNING, not an end state"),
    ("j0", {"state": JobState.UNFINISHED}, "UNFINISHED without a reason"),
    ("j0", {"allocation": ((0, 1),)}, "does not hold its tasks"),
])
def test_check_result_names_the_broken_invariant(result, job_id, changes, words) -> None:
    jobs = result.workload.by_id
    assert jobs["j6"].submit == 185.0 < result.end[jobs["j3"].index]  # j6 waits for j3
    with pytest.raises(AssertionError, match=f"job '{job_id}'.*{words}"):
        check_result(doctored(result, job_id, **changes))


def tiny_run(nodes: int = 1):
    """Two 3-task jobs on 4-core nodes, FCFS: one after the other on one node."""
    platform = Platform.from_counts("tiny", [(NodeType("n", 4, clock_ghz=1.0), nodes)])
    jobs = tuple(Job(id=name, submit=0.0, ntasks=3, req_ops=10e9, req_time=10.0)
                 for name in ("a", "b"))
    return simulate(platform, Workload("tiny", jobs), create("fcfs"))


def test_check_result_finds_a_node_over_its_cores() -> None:
    result = tiny_run()
    assert result.allocation[0] == result.allocation[1] == ((0, 3),)  # a, then b
    overlapping = doctored(result, "b", start=5.0)  # starts while a still runs: 6 cores
    with pytest.raises(AssertionError, match=r"node 0 holds \[6.0, 0.0, 0.0\] .* at 5.0"):
        check_result(overlapping)


def test_any_nodes_lifts_the_node_count_only() -> None:
    result = tiny_run(nodes=2)
    straddling = doctored(result, "a", allocation=((0, 2), (1, 1)))
    with pytest.raises(AssertionError, match="not an even split over 1 node"):
        check_result(straddling)
    check_result(straddling, any_nodes={0})
    with pytest.raises(AssertionError, match="does not hold its tasks"):
        check_result(doctored(result, "a", allocation=((0, 2), (1, 2))), any_nodes={0})
