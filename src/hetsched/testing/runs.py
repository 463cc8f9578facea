"""The battery's runs: a scheduler watched while it runs (its own code must change nothing it
can reach), run once, twice, or forked half-way, each run's ``jobs.csv`` kept as bytes."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hetsched.output.jobs_csv import write_jobs_csv
from hetsched.platform.model import Platform
from hetsched.sim.engine import Simulation
from hetsched.sim.protocol import Decision, Events, Reserve, Scheduler, Start, run_name
from hetsched.sim.result import SimResult
from hetsched.sim.view import ClusterView
from hetsched.testing.inputs import Inputs
from hetsched.testing.invariants import check_completes, check_result
from hetsched.workload.model import Workload


@dataclass(frozen=True)
class Outcome:
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
            if type(decision) in (Start, Reserve) and decision.any_nodes:
                self.any_nodes.add(decision.job.index)
            yield decision

    def _unchanged(self, before: tuple, where: str) -> None:
        if _view_state(self.view) != before:
            raise ViewChanged(f"the view's state changed in {where}")

    def finished(self) -> None:
        if _inputs_state(self.inputs) != self.untouched:
            raise ViewChanged("the platform or the jobs changed during the run")


class ViewChanged(Exception):
    pass


def _view_state(view: ClusterView) -> tuple:
    nodes = range(len(view.platform.nodes))
    return (view.now, view.free_slots.tobytes(), view.free_mem.tobytes(),
            view.free_disk.tobytes(), view.used_mem.tobytes(), view.used_mem_bw.tobytes(),
            tuple(view.pending), tuple(view.running),
            tuple(view.local_queue_length(n) for n in nodes))


def _inputs_state(inputs: Inputs) -> tuple:
    arrays = inputs.platform.arrays
    return (repr(inputs.platform.nodes), repr(inputs.workload.jobs),
            tuple(getattr(arrays, name).tobytes() for name in arrays.__dataclass_fields__))


def run(scheduler: Scheduler, inputs: Inputs, seed: int) -> Outcome:
    """A watched run of ``scheduler`` on ``inputs``."""
    watched = _Watched(scheduler, inputs)
    return outcome(watched, Simulation(inputs.platform, inputs.workload, watched,
                                        seed=seed).run())


def outcome(watched: _Watched, result: SimResult) -> Outcome:
    """The run's result and ``jobs.csv``, once the inputs are checked untouched."""
    watched.finished()
    with tempfile.TemporaryDirectory() as tmp:
        jobs_csv = write_jobs_csv(result, Path(tmp) / "jobs.csv").read_bytes()
    return Outcome(result, jobs_csv, frozenset(watched.any_nodes))


def run_twice(scheduler: Scheduler, inputs: Inputs, seed: int) -> Outcome:
    first = run(scheduler, inputs, seed)
    second = run(scheduler, inputs, seed)
    if second.jobs_csv != first.jobs_csv:
        raise AssertionError("the second run's jobs.csv differs from the first run's "
                             f"({first_difference(first.jobs_csv, second.jobs_csv)})")
    return second


def forked(fresh: Callable[[], Scheduler], inputs: Inputs, seed: int) -> Outcome:
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
    fork = outcome(fork_watched, sim.fork(fork_watched).run())
    check_result(fork.result, started_before | fork.any_nodes)
    check_completes(fork.result, after_fork=True)
    return outcome(watched, sim.run())


def first_difference(a: bytes, b: bytes) -> str:
    """Where two ``jobs.csv`` first differ."""
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {number}: {x.decode()!r} vs {y.decode()!r}"
    return "one is longer"
