"""Jobs stopped before their end, a part of :class:`~hetsched.sim.engine.Simulation`: by a node's
failure (killed, or requeued under ``on_failure="requeue"``; jobs held for a boot there pending
again) or at their walltime (killed)."""

from __future__ import annotations

from hetsched.sim.jobs import FAILED, KILLED
from hetsched.sim.state import RunningJob
from hetsched.workload.model import Job


class Interruptions:
    """What a failure or a walltime does to running jobs (mixed into
    :class:`~hetsched.sim.engine.Simulation`, whose state it changes)."""

    def _fail(self, node: int, now: float) -> tuple[list[Job], list[Job]]:
        """``node`` fails now: it has no core left, the jobs held there for a boot are pending
        again (they never began), and the jobs running there are killed (whole, on all their
        nodes): ended, or requeued (``on_failure="requeue"``) while they have attempts left.
        The jobs that stopped (the scheduler hears they ended) and those pending again (it
        hears they arrived)."""
        self.state.set_available(node, 0)
        unheld = self._unhold(node)
        runs = [run for run in self.state.jobs_on(node).values() if run.shares]
        reason = f"node {self.platform.nodes[node].name} failed at {now:g} s"
        requeued = []
        for run in runs:
            attempts = self.jobs.attempts(run.job.index) if self.requeues else 1
            if self.requeues and (self.max_attempts is None or attempts < self.max_attempts):
                self._requeue(run, now)
                requeued.append(run.job)
            else:
                self._kill(run, now, f"{reason} after {attempts} attempt{'s' * (attempts > 1)}"
                           if self.requeues else reason, FAILED)
        return [run.job for run in runs] + unheld, requeued + unheld

    def _unhold(self, node: int) -> list[Job]:
        """The jobs held on ``node`` for a boot (of it or another node), which never began:
        pending again, whatever the failure policy (nothing ran, nothing is lost)."""
        held = [run for run in self.state.jobs_on(node).values() if not run.shares]
        for run in held:
            self.state.unhold(run)
            self.jobs.unhold(run.job.index)
            self.jobs.pending[run.job.index] = run.job
        return [run.job for run in held]

    def _requeue(self, run: RunningJob, now: float) -> None:
        """``run`` stops now, its work lost, and its job is pending again (last in line, as
        if submitted now); its descendants wait for it. The attempt's end is an end of the
        run's (as a killed job's is): the makespan covers the cores it held."""
        job = run.job
        self.last_end = now
        self.state.release(run, now)
        self.jobs.requeue(job.index, now, sum([cores for _, cores in run.allocation]),
                          self._job_energy(run, now))
        self.jobs.pending[job.index] = job
        if self.contention is not None:
            self.dirty.update(share.processor for share in run.shares)
        if self.jobs.queued_on or self._waiting:
            self._drain(run.nodes, now)

    def _kill(self, run: RunningJob, now: float, reason: str = "walltime reached",
              end_state: int = KILLED) -> None:
        """``run`` ends now, killed (at its walltime, or by a failure: ``reason``); its
        descendants are rejected."""
        self._finish(run, now, end_state)
        self.jobs.set_reason(run.job.index, reason)
        self._reject_descendants(run.job.index)
        if self.jobs.queued_on or self._waiting:
            self._drain(run.nodes, now)
