"""What-if on one node: the ends of the jobs running there, and of jobs started there now, as
the engine would simulate them if nothing else started on that node.

It follows the engine's rules on that node alone, rather than forking the whole run: the
threads of new jobs go to processors as :meth:`ClusterState.assign` puts them, at the
uncontended rate until the node is re-rated; the node is re-rated (by
:func:`~hetsched.sim.rates.node_rates`, the engine's own rule) when a job starts or ends there,
and under a node-wide model (not ``per_processor``) also when one of a job's shares ends
before the job; a share whose work is done stops counting; a job killed at its walltime ends
then. Each share keeps its remaining work as of its last rate change and its end is ``since +
remaining / rate``, as in the engine, so the predicted ends are the engine's, bit for bit where
the engine sees the same events (tests/test_projection.py holds them to a fork's).

What it does not follow (the engine does, and :meth:`Simulation.project
<hetsched.sim.engine.Simulation.project>` forks the run instead where it matters): a job that
also runs on other nodes ends there when its shares end at their current rates (those nodes
are not simulated, their re-rating neither); a node that is off or booting is treated as up (a
job started there begins at its boot's end in the run, and jobs held for the boot are left
out); a node's local queue is not drained when a job ends; availability changes are not seen.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from typing import TYPE_CHECKING

from hetsched.models.contention import ContentionModel, Group
from hetsched.models.speed import rate as task_rate
from hetsched.models.speed import run_time
from hetsched.sim.rates import DONE, at_rate, node_rates, node_wide
from hetsched.sim.resources import split_over_processors
from hetsched.sim.state import ClusterState, Share
from hetsched.workload.model import Job

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType


@dataclass(slots=True)
class _Part:
    """A share of job ``index`` in the projection (replaced, as the engine's are, when its
    rate changes)."""

    index: int
    job: Job
    share: Share
    #: the engine's end of a job not re-rated since it started (its start plus its run time,
    #: which ``share.end()`` may miss in the last bit: an ETC row's time); NaN once re-rated
    pinned: float = math.nan

    def working(self, now: float) -> bool:
        return self.share.remaining_at(now) > DONE * self.job.req_ops

    def end(self) -> float:
        return self.share.end() if math.isnan(self.pinned) else self.pinned


def project(state: ClusterState, model: ContentionModel | None, speed: Sequence[float],
            node: int, now: float, starts: Sequence[Job] = (),
            changed: set[int] = frozenset(), kills: bool = False) -> dict[int, float]:
    """Predicted end, by job index, of every job running on ``node`` at ``now`` and of each
    job of ``starts`` started there now with all its tasks (in that order). ``changed``: the
    processors whose threads changed at ``now`` and that the engine re-rates at the end of the
    instant. Without a contention model rates never change. With ``kills`` (the run's
    walltime rule kills), a job ends at its start plus its walltime at the latest."""
    parts, elsewhere = _running(state, node, now)
    limits = {index: run.start + run.job.walltime for index, run in state.jobs_on(node).items()
              if kills and run.job.walltime is not None}
    limits.update((job.index, now + job.walltime) for job in starts
                  if kills and job.walltime is not None)
    dirty = _start(state, speed, node, now, starts, parts) | {
        p for p in changed if state.layout.node[p] == node}
    wide = model is not None and node_wide(model)
    node_type = state.platform.nodes[node].type
    ends: dict[int, float] = {}
    while parts:
        if dirty and model is not None:
            _rerate(parts, model, node_type, speed[node], now, None if wide else dirty)
        t, finished, early = _next_events(parts, elsewhere, limits, wide, now)
        now = t
        dirty = set()
        for index in finished:
            ends[index] = t
            dirty.update(p.share.processor for p in parts if p.index == index)
        dirty.update(p.share.processor for p in early)
        parts = [p for p in parts if p.index not in finished]
    return ends


def _running(state: ClusterState, node: int,
             now: float) -> tuple[list[_Part], dict[int, float]]:
    """The shares working on ``node``, and when each multi-node job's shares elsewhere end."""
    parts: list[_Part] = []
    elsewhere: dict[int, float] = {}
    for index, run in state.jobs_on(node).items():
        pinned = run.end if run.version == 0 else math.nan
        for share in run.shares:
            if share.node != node:
                elsewhere[index] = max(elsewhere.get(index, now),
                                       share.end() if math.isnan(pinned) else pinned)
            else:
                parts.append(_Part(index, run.job, share, pinned))
    return parts, elsewhere


def _start(state: ClusterState, speed: Sequence[float], node: int, now: float,
           starts: Sequence[Job], parts: list[_Part]) -> set[int]:
    """Add ``starts``' shares (threads placed as the engine places them); their processors."""
    layout = state.layout
    first, count = layout.first[node], layout.count[node]
    procs = range(first, first + count)
    threads = [state.threads[p] for p in procs]
    available = [state.available[p] for p in procs]
    dirty: set[int] = set()
    node_type = state.platform.nodes[node].type.name
    for job in starts:
        rate = task_rate(job, speed[node], node_type)
        end = now + run_time(job, speed[node], node_type)  # the engine's RunningJob.end
        taken = split_over_processors(job.ntasks, [a - t for a, t in zip(available, threads)],
                                      threads, [a or 1 for a in available]) \
            if count > 1 else [job.ntasks]
        for offset, n in enumerate(taken):
            if n:
                threads[offset] += n
                parts.append(_Part(job.index, job, Share(
                    node=node, processor=first + offset, threads=n, remaining=job.req_ops,
                    rate=rate, since=now, group=Group(job, offset, n, job.req_ops / rate)),
                    end))
                dirty.add(first + offset)
    return dirty


def _rerate(parts: list[_Part], model: ContentionModel, node_type: NodeType, speed: float,
            now: float, only: set[int] | None) -> None:
    """New rates for the working shares (all, or those on the processors ``only``); a share
    whose rate does not change keeps its record, as the engine's do."""
    working = [p for p in parts if p.working(now)]
    rerated = set()
    for part, rate in zip(working, node_rates(model, node_type, speed,
                                              [p.share.group for p in working])):
        if (only is None or part.share.processor in only) and rate != part.share.rate:
            part.share = at_rate(part.share, rate, now)
            rerated.add(part.index)
    for part in parts:  # a job re-rated ends as its shares say (rates.rerated)
        if part.index in rerated:
            part.pinned = math.nan


def _next_events(parts: list[_Part], elsewhere: dict[int, float], limits: dict[int, float],
                 wide: bool, now: float) -> tuple[float, set[int], list[_Part]]:
    """The next instant, the jobs that end then (never before ``now``, as the engine's
    ``RunningJob.end``, nor after their walltime ``limits``), and the shares still working
    that end then before their job (they re-rate the node under a node-wide model)."""
    job_end: dict[int, float] = {}
    for part in parts:
        job_end[part.index] = max(job_end.get(part.index, elsewhere.get(part.index, now)),
                                  part.end())
    for index, limit in limits.items():
        if index in job_end:
            job_end[index] = max(now, min(job_end[index], limit))
    early = [p for p in parts if wide and now < p.end() < job_end[p.index]]
    t = min([*job_end.values(), *(p.end() for p in early)])
    finished = {index for index, end in job_end.items() if end == t}
    return t, finished, [p for p in early if p.end() == t]
