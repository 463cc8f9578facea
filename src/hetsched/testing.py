"""The scheduler contract as one battery of checks, as scikit-learn's ``check_estimator`` is
for estimators: every registered scheduler passes it (``tests/test_scheduler_contract.py``),
and a plugin author can run it on theirs::

    from hetsched.testing import check_scheduler
    check_scheduler("easy:node_selection=high_gflops")   # a registered name or a spec
    check_scheduler(MyPolicy(limit=3))                    # an object that has not run yet

Each check that fails raises :class:`ContractError` (an ``AssertionError``) naming the check
and the scheduler:

- ``options``: ``get_params()`` gives the options, ``type(s)(**s.get_params())`` and
  ``clone()`` give the same ones, an option given in a spec is kept as given, and ``__init__``
  stores nothing else (it may set ``name``): the run state belongs in ``reset``;
- ``runs``: reset, then decide at every instant, to the end of a small run;
- ``view``: nothing the scheduler can reach (the view's state, the platform, the jobs)
  changes while its own code runs;
- ``invariants``: :func:`check_result` on the run;
- ``completes``: no job is left waiting (a run without a horizon ends every job finished, or
  rejected with a reason);
- ``same seed``: a second fresh scheduler, same seed: the same ``jobs.csv``, byte for byte;
- ``pickle``: a fresh scheduler sent through ``pickle`` runs the same;
- ``second run``: one object run twice gives the same ``jobs.csv`` both times;
- ``fork``: a run forked half-way (:meth:`~hetsched.sim.engine.Simulation.fork`) under a fresh
  copy finishes with the invariants, and the original run then ends as an unforked one.

The inputs: ``platform`` and ``workload`` if given (a workload built for the platform if only
that is), else the first of :func:`contract_inputs` the scheduler runs without a
``ConfigError``: a heterogeneous platform with 30 jobs of varied sizes (multi-node, memory,
dependencies), 30 single-task jobs on seven one-core nodes (mapping heuristics that map tasks
on cores), and a ds-sim configuration with its job list (the ds-sim algorithms). A
scheduler with a ``budget`` option, given neither a budget nor a ``time_limit``, is checked
with ``budget=CHECK_BUDGET`` (when it takes one): a wall-clock limit would make "same seed,
same result" depend on the machine's load.
"""

from __future__ import annotations

import math
import pickle
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from hetsched.errors import ConfigError, describe_exception
from hetsched.output.jobs_csv import write_jobs_csv
from hetsched.platform.model import NodeType, Platform
from hetsched.schedulers.registry import canonical_options, create, parse_options
from hetsched.schedulers.userfile import file_spec_parts
from hetsched.sim.engine import Simulation
from hetsched.sim.protocol import Decision, Events, Scheduler, Start, run_name
from hetsched.sim.result import JobState, SimResult
from hetsched.sim.view import ClusterView
from hetsched.workload.model import SPREAD, Job, Workload

#: The budget a scheduler with a ``budget`` option is checked with (see the module docstring).
CHECK_BUDGET = 10
END_STATES = frozenset({JobState.FINISHED, JobState.REJECTED, JobState.UNFINISHED,
                        JobState.KILLED})


class ContractError(AssertionError):
    """A scheduler broke the contract: which check, which scheduler, what went wrong."""

    def __init__(self, check: str, scheduler: str, problem: str) -> None:
        super().__init__(f"check '{check}' failed for scheduler '{scheduler}': {problem}")
        self.check, self.scheduler, self.problem = check, scheduler, problem


@dataclass(frozen=True)
class Inputs:
    """A platform and a workload the battery runs a scheduler on."""

    name: str
    platform: Platform
    workload: Workload

    def __repr__(self) -> str:
        return (f"Inputs({self.name!r}: {len(self.platform.nodes)} nodes, "
                f"{len(self.workload.jobs)} jobs)")


def check_scheduler(scheduler: Scheduler | str, platform: Platform | None = None,
                    workload: Workload | None = None, seed: int = 0) -> Inputs:
    """Run the contract battery on ``scheduler`` (see the module docstring); returns the
    inputs it ran on. A scheduler object must not have run yet: the battery runs copies."""
    fresh, label = _fresh_copies(scheduler)
    _checking("options", label, _check_options, scheduler, fresh)
    candidates = ([Inputs("given", platform or contract_platform(),
                          workload or contract_workload(platform or contract_platform()))]
                  if platform is not None or workload is not None else contract_inputs())
    inputs, reference = _first_runnable(fresh, candidates, seed, label)
    _checking("invariants", label, check_result, reference.result, reference.any_nodes)
    _checking("completes", label, _check_completes, reference.result)
    for check, run in (("same seed", lambda: _run(fresh(), inputs, seed)),
                       ("pickle", lambda: _run(pickle.loads(pickle.dumps(fresh())), inputs,
                                               seed)),
                       ("second run", lambda: _run_twice(fresh(), inputs, seed)),
                       ("fork", lambda: _forked(fresh, inputs, seed))):
        outcome = _checking(check, label, run)
        if outcome.jobs_csv != reference.jobs_csv:
            raise ContractError(check, label, "jobs.csv differs from the first run's "
                                f"({_first_difference(reference.jobs_csv, outcome.jobs_csv)})")
    return inputs


# ---- the inputs ---------------------------------------------------------------------------------

@cache
def contract_platform(cores: tuple[int, int, int] = (8, 4, 2)) -> Platform:
    """Seven nodes of three types (by default 32 cores: 2 × 8, 3 × 4, 2 × 2 cores): speeds,
    core counts, memory and power all differ."""
    big, mid, small = cores
    return Platform.from_counts("contract", [
        (NodeType("big", big, clock_ghz=3.0, memory_mb=4000.0 * big, mem_bw_gbs=100.0,
                  idle_w=80.0, static_w=120.0, dynamic_w_per_core=8.0, has_power=True), 2),
        (NodeType("mid", mid, clock_ghz=2.0, memory_mb=2000.0 * mid, mem_bw_gbs=50.0,
                  idle_w=40.0, static_w=60.0, dynamic_w_per_core=6.0, has_power=True), 3),
        (NodeType("small", small, clock_ghz=1.5, memory_mb=2000.0 * small, mem_bw_gbs=20.0,
                  idle_w=10.0, static_w=20.0, dynamic_w_per_core=4.0, has_power=True), 2)])


@cache
def contract_workload(platform: Platform, single_task: bool = False) -> Workload:
    """30 jobs that all fit ``platform``: one node, two nodes or any nodes, with and without
    memory, estimates under and over the run times, bursts of simultaneous submissions and
    four dependencies; with ``single_task``, the same jobs with one task each."""
    rng = np.random.default_rng(2024)
    cores = np.sort(platform.arrays.cores)[::-1]
    most = {1: int(cores[0]), 2: 2 * int(cores[1]) if cores.size > 1 else 0,
            SPREAD: int(cores.sum()) // 2}
    jobs, submit = [], 0.0
    for i in range(30):
        submit += float(rng.choice([0, 0, 5, 20, 60]))
        nodes = 1 if single_task else int(rng.choice([1, 1, 1, 2, SPREAD]))
        nodes = nodes if most[nodes] >= 2 else 1
        ntasks = 1 if single_task else int(rng.integers(1, most[nodes] + 1))
        ntasks = max(ntasks, 2) if nodes == 2 else ntasks
        seconds = float(rng.integers(20, 300))
        jobs.append(Job(
            id=f"j{i}", submit=submit, ntasks=ntasks,
            req_ops=seconds * platform.slowest_speed,
            req_time=seconds * float(rng.choice([0.5, 1.0, 1.5, 3.0])), nodes=nodes,
            memory_mb=ntasks * float(rng.choice([0.0, 250.0, 1000.0])),
            parents=(f"j{i - 3}",) if i % 7 == 6 else ()))
    return Workload("contract-single" if single_task else "contract", tuple(jobs))


@cache
def contract_inputs() -> tuple[Inputs, ...]:
    """The inputs a scheduler is tried on, in order (see the module docstring)."""
    from hetsched.examples import dssim_config_path
    from hetsched.platform.load import load_platform
    from hetsched.workload.dssim import workload_for_config

    platform, cores = contract_platform(), contract_platform((1, 1, 1))
    dssim = load_platform(dssim_config_path())
    return (Inputs("mixed", platform, contract_workload(platform)),
            Inputs("single-task", cores, contract_workload(cores, single_task=True)),
            Inputs("ds-sim", dssim, workload_for_config(dssim_config_path(), dssim)))


# ---- the invariants -----------------------------------------------------------------------------

def check_result(result: SimResult, any_nodes: Collection[int] = ()) -> None:
    """The simulator's invariants on ``result``, from the result alone: every job once, in an
    end state, with a reason when rejected or unfinished; no start before the job's submission
    or its last parent's end; allocations of the job's shape (its tasks, its node count, an
    even split; only the tasks for the jobs in ``any_nodes``, started with ``any_nodes``); no
    node over its slots, memory or disk at any time. Raises ``AssertionError`` naming the
    job or node."""
    assert len(result.state) == len(result.workload.jobs), "not one state per job"
    for job in result.workload.jobs:
        _check_job(result, job, job.index in any_nodes)
    _check_capacity(result)


def _check_job(result: SimResult, job: Job, any_nodes: bool) -> None:
    i, what = job.index, f"job '{job.id}'"
    state = JobState(int(result.state[i]))
    assert state in END_STATES, f"{what} ends {state.name}, not an end state"
    if state in (JobState.REJECTED, JobState.UNFINISHED):
        assert result.reason.get(i), f"{what} is {state.name} without a reason"
    allocation, start, end = result.allocation[i], result.start[i], result.end[i]
    if allocation is None:
        assert state is not JobState.FINISHED and state is not JobState.KILLED, \
            f"{what} is {state.name} without an allocation"
        assert math.isnan(start), f"{what} has a start but no allocation"
        return
    assert state is not JobState.REJECTED, f"{what} is rejected but was started"
    assert start >= job.submit, f"{what} starts at {start}, before its submission {job.submit}"
    if state in (JobState.FINISHED, JobState.KILLED):
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
    """Sweep each node's starts and ends (ends first at a tie): cores, memory and disk in use
    never exceed what the node has."""
    arrays = result.platform.arrays
    changes: dict[int, list[tuple[float, int, int, float, float]]] = {}
    for job, allocation in zip(result.workload.jobs, result.allocation):
        if allocation is None:
            continue
        start, end = float(result.start[job.index]), float(result.end[job.index])
        end = math.inf if math.isnan(end) else end
        for node, count in allocation:
            memory, disk = (job.memory_mb * count / job.ntasks, job.disk_mb * count / job.ntasks)
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


def _check_completes(result: SimResult, after_fork: bool = False) -> None:
    """No job ends unfinished (on a fork: none but those submitted after the fork)."""
    waiting = [job for job in result.workload.jobs
               if result.state[job.index] == JobState.UNFINISHED and not
               (after_fork and result.reason.get(job.index) == "submitted after the fork")]
    assert not waiting, (f"{len(waiting)} job(s) left waiting{' in the fork' * after_fork}, "
                         f"e.g. '{waiting[0].id}': {result.reason.get(waiting[0].index)}")


# ---- the runs -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Outcome:
    result: SimResult
    jobs_csv: bytes
    any_nodes: frozenset[int]


class _Watched(Scheduler):
    """Runs ``inner`` and checks that its own code changes nothing it can reach: the view's
    state between the decisions it yields, and the platform and jobs over the run."""

    def __init__(self, inner: Scheduler, inputs: Inputs) -> None:
        self.inner = inner
        self.spec = run_name(inner)  # what the engine's errors call it
        self.per_event = inner.per_event  # type: ignore[misc]
        self.any_nodes: set[int] = set()
        self.inputs, self.untouched = inputs, _inputs_state(inputs)

    def check(self, platform: Platform, workload: Workload) -> None:
        self.inner.check(platform, workload)

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        self.view = view
        self.inner.reset(view, rng)

    def decide(self, now: float, events: Events) -> Iterable[Decision]:
        before = _view_state(self.view)
        decisions = self.inner.decide(now, events)
        self._unchanged(before, "decide()")
        try:
            return self._watch(iter(decisions or ()))
        except TypeError:
            return decisions  # not iterable: the engine says so

    def _watch(self, decisions: Iterator[Decision]) -> Iterator[Decision]:
        while True:
            before = _view_state(self.view)
            decision = next(decisions, None)
            self._unchanged(before, "its decisions")
            if decision is None:
                return
            if type(decision) is Start and decision.any_nodes:
                self.any_nodes.add(decision.job.index)
            yield decision

    def _unchanged(self, before: tuple, where: str) -> None:
        if _view_state(self.view) != before:
            raise _ViewChanged(f"the view's state changed in {where}")

    def finished(self) -> None:
        if _inputs_state(self.inputs) != self.untouched:
            raise _ViewChanged("the platform or the jobs changed during the run")


class _ViewChanged(Exception):
    pass


def _view_state(view: ClusterView) -> tuple:
    nodes = range(len(view.platform.nodes))
    return (view.now, view.free_cores.tobytes(), view.free_mem.tobytes(),
            view.free_disk.tobytes(), view.used_mem.tobytes(), view.used_mem_bw.tobytes(),
            tuple(view.pending), tuple(view.running),
            tuple(view.local_queue_length(n) for n in nodes))


def _inputs_state(inputs: Inputs) -> tuple:
    arrays = inputs.platform.arrays
    return (repr(inputs.platform.nodes), repr(inputs.workload.jobs),
            tuple(getattr(arrays, name).tobytes() for name in arrays.__dataclass_fields__))


def _run(scheduler: Scheduler, inputs: Inputs, seed: int) -> _Outcome:
    watched = _Watched(scheduler, inputs)
    return _outcome(watched, Simulation(inputs.platform, inputs.workload, watched,
                                        seed=seed).run())


def _outcome(watched: _Watched, result: SimResult) -> _Outcome:
    watched.finished()
    with tempfile.TemporaryDirectory() as tmp:
        jobs_csv = write_jobs_csv(result, Path(tmp) / "jobs.csv").read_bytes()
    return _Outcome(result, jobs_csv, frozenset(watched.any_nodes))


def _run_twice(scheduler: Scheduler, inputs: Inputs, seed: int) -> _Outcome:
    first = _run(scheduler, inputs, seed)
    second = _run(scheduler, inputs, seed)
    if second.jobs_csv != first.jobs_csv:
        raise AssertionError("the second run's jobs.csv differs from the first run's "
                             f"({_first_difference(first.jobs_csv, second.jobs_csv)})")
    return second


def _forked(fresh: Callable[[], Scheduler], inputs: Inputs, seed: int) -> _Outcome:
    """Half-way through a run, fork it under a fresh copy and run the fork to its end (with
    the invariants); then run the original to its end."""
    watched = _Watched(fresh(), inputs)
    sim = Simulation(inputs.platform, inputs.workload, watched, seed=seed)
    jobs = inputs.workload.jobs
    middle = jobs[len(jobs) // 2].submit if jobs else 0.0
    while (step := sim.advance()) is not None:
        sim.apply(watched.decide(step.now, step.events))
        if step.now >= middle:
            break
    fork_watched = _Watched(fresh(), inputs)
    started_before = frozenset(watched.any_nodes)
    forked = _outcome(fork_watched, sim.fork(fork_watched).run())
    check_result(forked.result, started_before | forked.any_nodes)
    _check_completes(forked.result, after_fork=True)
    return _outcome(watched, sim.run())


def _first_runnable(fresh: Callable[[], Scheduler], candidates: Iterable[Inputs], seed: int,
                    label: str) -> tuple[Inputs, _Outcome]:
    refused = []
    for inputs in candidates:
        try:
            return inputs, _checking("runs", label, _run, fresh(), inputs, seed)
        except ContractError as err:
            if not isinstance(err.__cause__, ConfigError):
                raise
            refused.append(f"{inputs.name}: {err.problem}")
    raise ContractError("runs", label, f"it runs none of the inputs ({'; '.join(refused)})")


def _checking(check: str, label: str, function: Callable, *args: object) -> object:
    """``function(*args)``, any failure raised as a :class:`ContractError` of ``check``."""
    try:
        return function(*args)
    except ContractError:
        raise
    except _ViewChanged as err:
        raise ContractError("view", label, str(err)) from err
    except Exception as err:  # noqa: BLE001 - every failure is the check's, in one line
        problem = str(err) if isinstance(err, (AssertionError, ConfigError)) \
            else describe_exception(err)
        raise ContractError(check, label, problem or type(err).__name__) from err


def _first_difference(a: bytes, b: bytes) -> str:
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {number}: {x.decode()!r} vs {y.decode()!r}"
    return "one is longer"


# ---- the options --------------------------------------------------------------------------------

def _fresh_copies(scheduler: Scheduler | str) -> tuple[Callable[[], Scheduler], str]:
    """A function giving new, unreset copies of ``scheduler`` (with ``budget=CHECK_BUDGET``
    when it has a ``budget`` option and neither a budget nor a time limit), and its name."""
    base = create(scheduler) if isinstance(scheduler, str) else scheduler
    label = scheduler if isinstance(scheduler, str) else (base.spec or base.name)
    try:
        params = base.get_params()
    except TypeError as err:
        raise ContractError("options", label, str(err)) from None
    if params.get("budget", 0) is None and params.get("time_limit") is None:
        params = _with_budget(type(base), params)

    def fresh() -> Scheduler:
        copy = type(base)(**params)
        for key in ("name", "spec"):
            if key in vars(base):
                setattr(copy, key, vars(base)[key])
        return copy

    return fresh, label


def _with_budget(cls: type[Scheduler], params: dict[str, object]) -> dict[str, object]:
    """``params`` with ``budget=CHECK_BUDGET`` if the class accepts that, else as they are."""
    budgeted = {**params, "budget": CHECK_BUDGET}
    try:
        cls(**budgeted)
    except (ValueError, TypeError, ConfigError):
        return params
    return budgeted


def _check_options(scheduler: Scheduler | str, fresh: Callable[[], Scheduler]) -> None:
    one = create(scheduler) if isinstance(scheduler, str) else scheduler
    params = one.get_params()
    if isinstance(scheduler, str):
        for key, value in _given_options(scheduler).items():
            assert params.get(key) == value, \
                f"option {key}={value!r} is kept as {params.get(key)!r}"
    assert type(one)(**params).get_params() == params, \
        "type(s)(**s.get_params()) has other options than s"
    assert one.clone().get_params() == params, "clone() has other options"
    extra = set(vars(fresh())) - set(params) - {"name", "spec"}
    assert not extra, (f"__init__ sets {', '.join(sorted(extra))} beside the options: run "
                       "state belongs in reset()")


def _given_options(spec: str) -> dict[str, object]:
    """The options a spec gives, under the names the scheduler knows them by."""
    parts = file_spec_parts(spec)
    text = parts[1].partition(":")[2].partition(":")[2] if parts else spec.partition(":")[2]
    return canonical_options(type(create(spec)), parse_options(text, spec), spec)
