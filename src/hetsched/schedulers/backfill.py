"""EASY backfilling, heterogeneity-aware, and what conservative backfilling shares with it.

Estimates: a job's run time on node n is ``req_time * slowest_speed / speed_n`` (the row's time
with an ETC row: :mod:`hetsched.models.speed`; a job spread over several nodes runs at its
slowest node's pace). A running job past its estimate is
expected to end now: it pushes reservations back, it is never killed.

EASY: the queue head (FCFS) starts if it fits. Otherwise it gets a reservation at the
earliest projected time (the shadow time) at which it fits, on specific nodes chosen by the
node selection; beside the platform's reservations, for its whole estimated duration. Any
other queued job, in queue order, may start now if it fits now and either ends by estimate no
later than the shadow time or only uses resources the reservation leaves free at the shadow
time ("extra" cores, memory and disk, per node; on the head's nodes, beside reservations, the
fewest cores left free over its estimated duration).

Conservative backfilling: :mod:`.conservative`.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hetsched.sim.protocol import Decision, Events, Scheduler, Start
from hetsched.schedulers.placement import Allocation, largest, place, positive_total
from hetsched.schedulers.policies import NODE_SELECTIONS, known
from hetsched.sim.resources import capacity, footprint
from hetsched.schedulers.profile import first_fit_time
from hetsched.schedulers.queue import NodePreference
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


def estimated_duration(view: ClusterView, job: Job, allocation: Allocation) -> float:
    """Estimated run time of ``job`` on ``allocation``: it runs at its slowest node's pace."""
    return view.speed.estimate_on(job, [node for node, _ in allocation])


def _end(view: ClusterView, job: Job, start: float, allocation: Allocation) -> float:
    return start + estimated_duration(view, job, allocation)


#: What each backfilling policy does, by its name.
KINDS = {
    "easy": "EASY backfilling: head reserved at the shadow time, others may jump ahead without "
            "delaying it",
    "conservative": "Conservative backfilling: every queued job reserved in order; none may be "
                    "delayed",
}


class Backfilling(Scheduler):
    """A backfilling policy: its node selection, and placement now with it."""

    aliases = {"node": "node_selection"}  # the option's first name, still accepted in specs

    @classmethod
    def describe(cls, name: str) -> str:
        """One line about the policy and its option."""
        return f"{KINDS[cls.name]} (option node_selection=<node selection>, or node=)"

    def __init__(self, node_selection: str = "first") -> None:
        self.node_selection = known("node selection", node_selection, NODE_SELECTIONS)

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.nodes = NodePreference(self.node_selection)

    def _place_now(self, job: Job, allowed: np.ndarray | None = None) -> Allocation | None:
        view = self.view
        return place(job, view.free_slots_for(job), view.free_mem, view.free_disk,
                     self.nodes.key(view),
                     self.rng, allowed, self.nodes.order(view))


class _Shadow:
    """The head's reservation: its shadow time and what each node keeps free then beyond the
    head's needs (``extra_cores``, ``extra_mem``, ``extra_disk``; ``max_extra`` is the most
    cores on one node, ``total_extra`` the sum of what the nodes keep, each at least 0). Beside
    the platform's reservations, the head's nodes keep the fewest cores free over its
    estimated duration (a reservation may take some after the shadow time:
    :func:`~hetsched.schedulers.profile.first_fit_time`)."""

    def __init__(self, view: ClusterView, head: Job, nodes: NodePreference,
                 rng: np.random.Generator) -> None:
        self.head = head
        self.time, allocation, self.extra_cores, self.extra_mem, self.extra_disk = \
            first_fit_time(view, head, nodes.key(view), rng, nodes.order(view))
        self.max_extra = largest(self.extra_cores)
        self.total_extra = positive_total(self.extra_cores)
        self.take(head, allocation)

    def take(self, job: Job, allocation: Allocation) -> None:
        """A job that will still run at the shadow time takes its cores from the extra (the
        most and the sum follow the nodes it uses; the most is looked for again only when
        it was on one of them)."""
        extra = self.extra_cores
        was_most = False
        for node, count in allocation:  # its slots: a core per task
            before = extra.item(node)
            extra[node] = before - count
            self.total_extra -= max(before, 0) - max(before - count, 0)
            was_most = was_most or before == self.max_extra
        if job.job_memory_mb or job.job_disk_mb:  # (on every backfilled job's path)
            for (node, _), memory, disk in footprint(job, allocation):
                self.extra_mem[node] -= memory
                self.extra_disk[node] -= disk
        if was_most:
            self.max_extra = largest(extra)

    def usable(self, free: np.ndarray) -> tuple[int, int]:
        """The most cores one node has both free now and extra at the shadow time, and their
        sum over the nodes: what a job still running at the shadow time can take (its tasks
        need free cores now and leave the head its own)."""
        both = np.minimum(free, self.extra_cores)
        return largest(both), positive_total(both)


class EasyBackfill(Backfilling):
    name = "easy"

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        # a job's shortest possible estimate is on the fastest node(s)
        self.shortest = view.platform.slowest_speed / float(view.platform.arrays.speed.max())
        self.kept: _Shadow | None = None

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        view = self.view
        if events.finished or events.available or events.booted:
            self.kept = None
        pending = view.pending
        while pending:
            head = next(iter(pending.values()))
            if head.ntasks > view.total_free_slots:
                break
            allocation = self._place_now(head)
            if allocation is None:
                break
            yield Start(head, allocation)
        if len(pending) < 2:
            return
        # the head's reservation is made when a job first passes the quick tests below; under
        # random node selection it draws from the generator, so it is then always made first
        shadow = None if self.nodes.key_of is not None else self._shadow(head, now)
        free, shortest = view.free_slots, self.shortest
        total_free = view.total_free_slots
        if total_free == 0:
            return
        max_free = -1  # the most free cores on a node: computed when a one-node job needs it
        usable: tuple[int, int] | None = None  # shadow.usable(free): computed when needed
        for job in list(pending.values())[1:]:
            if job.ntasks > total_free:
                continue
            one_node = job.nodes == 1
            if one_node:
                if max_free < 0:
                    max_free = largest(free)
                if job.ntasks > max_free:
                    continue
            if shadow is None:
                shadow = self._shadow(head, now)
            # a lower bound of its estimates (an ETC row's are its own)
            least = job.req_time * shortest if not job.etc else view.speed.least_estimate(job)
            if now + least > shadow.time and \
                    (one_node or self.nodes.key_of is not None):
                # it ends after the shadow time on every node: only the extra can hold it (a
                # multi-node job's placement under random selection draws: not skipped)
                if job.ntasks > (shadow.max_extra if one_node else shadow.total_extra):
                    continue
                if usable is None:
                    usable = shadow.usable(free)
                if job.ntasks > usable[0 if one_node else 1]:
                    continue
            allocation = self._backfill(job, now, shadow)
            if allocation is not None:
                yield Start(job, allocation)
                total_free = view.total_free_slots
                if total_free == 0:
                    return
                max_free, usable = -1, None

    def _shadow(self, head: Job, now: float) -> _Shadow:
        """The head's reservation: the one made at an earlier instant while it still holds,
        else a new one.

        One made earlier with a static node selection is still what a new one would be while
        the head is the same job, no job ended, no node changed (a reservation beginning or
        ending changes one) and the shadow time is still to come. A new reservation would
        release the same jobs at the same times after now (those past their estimate now
        rather than earlier, but the head did not fit before the shadow time anyway), beside
        the same reservations ahead, from fewer free cores, memory and disk (the jobs started
        since), so no earlier time fits; at the shadow time, the jobs started since take only
        what was taken from the extra (they end by it or use only the extra). Memory and disk
        are whole KB, so the sums are the same in any order."""
        kept = self.kept
        if kept is not None and kept.head is head and kept.time > now:
            return kept
        shadow = _Shadow(self.view, head, self.nodes, self.rng)
        self.kept = shadow if self.nodes.static else None
        return shadow

    def _backfill(self, job: Job, now: float, shadow: _Shadow) -> Allocation | None:
        view = self.view
        if job.nodes == 1:
            allowed = now + view.speed.estimates(job) <= shadow.time  # ends in time
            if job.ntasks <= shadow.max_extra:  # or only uses what the head leaves free
                allowed |= capacity(job, shadow.extra_cores, shadow.extra_mem,
                                    shadow.extra_disk) >= job.ntasks
            allocation = self._place_now(job, allowed)
        else:
            allocation = self._place_now(job)
            if allocation is not None and _end(view, job, now, allocation) > shadow.time:
                allocation = place(job, np.minimum(view.free_slots_for(job), shadow.extra_cores),
                                   np.minimum(view.free_mem, shadow.extra_mem),
                                   np.minimum(view.free_disk, shadow.extra_disk),
                                   self.nodes.key(view), self.rng, order=self.nodes.order(view))
        if allocation is not None and _end(view, job, now, allocation) > shadow.time:
            shadow.take(job, allocation)
        return allocation
