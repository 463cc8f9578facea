"""A ds-sim algorithm as a scheduler of the engine: ds-sim's client and the rules of its
server that are not the engine's (docs/dssim.md, "How ds-sim runs on the engine").

The engine calls it once per event (``per_event``): each completion is a JCPL, each submission
a JOBN. A job goes where the algorithm says, into that server's local FIFO queue
(:class:`~hetsched.sim.protocol.Enqueue`: no backfilling, as ds-server), or, when the
algorithm says none, to ds-sim's global queue (:mod:`hetsched.dssim.global_queue`). A job a
CHKQ takes back is offered again (JOBP) at a same-instant wake-up, after the rest of the
instant's completions: ds-server completes every job due by then before it sends a job, and
those completions get no JCPL.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hetsched.dssim.algorithms import ALGORITHMS, Algorithm
from hetsched.dssim.global_queue import GlobalQueue
from hetsched.dssim.servers import ViewServers, request
from hetsched.platform.dssim import server_types
from hetsched.workload.dssim import JOB_LIST_KEY
from hetsched.errors import ConfigError
from hetsched.platform.model import Platform
from hetsched.sim.protocol import Decision, Enqueue, Events, Scheduler, WakeUp
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job, Workload


class DsSimScheduler(Scheduler):
    """The ds-sim algorithm ``algorithm`` (a name of :data:`ALGORITHMS`)."""

    per_event = True

    @classmethod
    def describe(cls, name: str, algorithm: str = "") -> str:
        """One line about ``algorithm`` (its own description)."""
        return ALGORITHMS[algorithm or name].description

    def __init__(self, algorithm: str) -> None:
        if algorithm not in ALGORITHMS:
            raise ConfigError(f"unknown ds-sim algorithm '{algorithm}'")
        self.algorithm = algorithm
        self.name = algorithm  # type: ignore[misc]

    def check(self, platform: Platform, workload: Workload) -> None:
        if not workload.metadata.get(JOB_LIST_KEY):
            raise ConfigError(f"scheduler '{self.name}' is a ds-sim algorithm: it needs a ds-sim "
                              "job list (XML) as the workload")
        server_types(platform)  # a ds-sim platform: every node type has memory and disk sizes

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        """Reset on ``view``, which may be a fork's with jobs already sent to servers (running,
        held for a boot or in a local queue) and pending: those are the global queue's, taken
        in submission order (ds-server's may differ after CHKQ re-offers)."""
        super().reset(view, rng)
        self.policy: Algorithm = ALGORITHMS[self.algorithm]()
        self.servers = ViewServers(view)
        self.queue = GlobalQueue()
        for job in view.pending.values():
            self.queue.enqueue(job)
        self.offered: Job | None = None  # taken back by a CHKQ, offered at the wake-up
        self.sent_to = {index: run.allocation[0][0] for index, run in view.running.items()}
        for node in view.node_index.tolist():  # node of each job sent to a server
            self.sent_to.update((job.index, node) for job in view.local_queue(node))

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        for job in events.finished:
            self.servers.changed(self.sent_to.pop(job.index))
        for node in (*events.booted, *events.available):
            self.servers.changed(node)
        if self.offered is None and events.finished:
            self.queue.completed()  # a JCPL (completions due before a JOBP get none)
        for job in events.submitted:
            yield from self._dispatch(job, now)  # JOBN
        if events.woken and self.offered is not None:
            job, self.offered = self.offered, None
            yield from self._dispatch(job, now)  # JOBP
        if self.offered is None and (events.finished or events.submitted or events.woken):
            self.offered = self.queue.check(self.view.all_submitted)  # CHKQ, DEQJ GQ 0
            if self.offered is not None:
                yield WakeUp(now)

    def _dispatch(self, job: Job, now: float) -> Iterator[Decision]:
        """SCHD to the server the algorithm chooses, or ENQJ GQ when it chooses none."""
        target = self.policy.choose(request(job), self.servers, int(now))
        if target is None:
            self.queue.enqueue(job)
        else:
            node = self.sent_to[job.index] = self.servers.node(target)
            yield Enqueue(job, node)
            self.servers.changed(node)  # the engine started, held or queued the job there
