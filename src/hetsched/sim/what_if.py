"""What-if on one node (:meth:`WhatIf.project`), a part of :class:`~hetsched.sim.engine.Simulation`:
the ends of the node's jobs, and of jobs started there now, with the scheduler starting nothing
else; by the node alone where its jobs depend on nothing else, else by a fork of the run."""

from __future__ import annotations

import math
from collections.abc import Sequence

from hetsched.errors import SchedulerError
from hetsched.sim.jobs import RUNNING
from hetsched.sim.projection import project
from hetsched.workload.model import Job


class WhatIf:
    """The engine's what-if (mixed into :class:`~hetsched.sim.engine.Simulation`, whose state
    it reads)."""

    def project(self, node: int, starts: Sequence[Job] = ()) -> dict[int, float]:
        """The end, by job index, of every job running (or held for a boot) on ``node`` and of
        each job of ``starts`` if it started there now with all its tasks, the scheduler
        starting nothing else: what a run would give (``ClusterView.project`` asks here).

        Where the node's jobs depend on nothing but the node, the node alone is simulated
        forward (:mod:`hetsched.sim.projection`, a step per job ending there). Where they do
        not, the whole run is forked and run on without a scheduler until they have ended:
        a node that is off or booting (starts wait for its boot) or holds a job waiting for
        another node's boot; a node with bookings (the engine starts their jobs); a node
        whose failure, or with a job that also runs on other nodes any failure, is still to
        come (it may kill them); under a contention model also
        a node with a local queue (the engine starts its heads as jobs end), with jobs that
        also run on other nodes (whose rates change with those nodes), or with availability
        changes ahead. With ``on_failure="requeue"``, a job the fork sees requeued ends
        ``inf``: when it runs again is the scheduler's choice."""
        if not 0 <= node < len(self.platform.nodes):
            raise SchedulerError(f"{self._name}: project(): no node {node!r} (the nodes are "
                                 f"0 to {len(self.platform.nodes) - 1})")
        if self._node_alone(node):
            return project(self.state, self.contention, self._speed, node, self.clock[0],
                           starts, self.dirty, self.kills)
        return self._forked_ends(node, starts)

    def _node_alone(self, node: int) -> bool:
        """Whether the jobs on ``node`` evolve with that node alone (see :meth:`project`)."""
        state = self.state
        runs = state.jobs_on(node).values()
        if node in state.booting or state.is_off(node) or any(not run.shares for run in runs) \
                or node in self.bookings.on_node:  # (the engine starts booked jobs there)
            return False
        now, failures = self.clock[0], self.failures
        spread = any(len(run.allocation) > 1 for run in runs)
        if failures.last_on.get(node, -math.inf) >= now or (spread
                                                              and failures.last_start >= now):
            return False
        return self.contention is None or not (
            spread or state.local_queues.get(node)
            or self._last_change.get(node, -math.inf) >= now)

    def _forked_ends(self, node: int, starts: Sequence[Job]) -> dict[int, float]:
        """:meth:`project` by a fork of the run, run on without a scheduler (beyond any
        horizon) until the jobs watched have ended."""
        fork = self.fork()
        fork.horizon, fork.record_timeseries = None, False
        now, table = self.clock[0], fork.jobs
        watched = [*self.state.jobs_on(node), *(job.index for job in starts)]
        for job in starts:
            table.pending.pop(job.index, None)
            fork._start(job, ((node, job.ntasks),), now, checked=True)
        while any(table.state(index) == RUNNING for index in watched) \
                and fork._next() is not None:
            pass
        # a job requeued after a failure ends when a scheduler runs it again: not foreseen
        return {index: math.inf if index in table.requeued and math.isnan(end) else end
                for index in watched for end in [table.end_time(index)]}
