"""The end of a run, a part of :class:`~hetsched.sim.engine.Simulation`: every job still alive
given its end state and why, and the :class:`~hetsched.sim.result.SimResult`."""

from __future__ import annotations

from hetsched.sim.jobs import FINISHED, HELD, REJECTED
from hetsched.sim.ondemand import charged_seconds
from hetsched.sim.result import JobState, SimResult
from hetsched.workload.model import Job


class RunEnd:
    """How a run ends (mixed into :class:`~hetsched.sim.engine.Simulation`, whose state it
    reads)."""

    def _close(self, t_end: float) -> None:
        """Close the energy window and give every job still alive its end state, with why."""
        self.state.close(t_end)
        jobs = self.jobs
        for runs in self.state.held.values():  # started on a node still booting: never began
            for run in runs:
                jobs.unstart(run.job.index)
        for index in jobs.alive():
            was = JobState(jobs.state(index))
            job = self.workload.jobs[index]
            parent = self._unfinished_parent(job) if was == HELD else None
            if parent is not None:
                jobs.set_state(index, REJECTED)
                jobs.set_reason(index, f"parent '{parent}' did not finish")
                continue
            jobs.set_state(index, int(JobState.UNFINISHED))
            if index >= jobs.known and self.forked:
                reason = "submitted after the fork"
            elif not self.stopped:
                reason = "never started: the scheduler left it waiting"
            elif self.interrupted:
                reason = f"{was.name.lower()} when the run was stopped"
            elif job.submit > self.horizon:
                reason = "not submitted before the horizon"
            else:
                reason = f"{was.name.lower()} at the horizon"
            booking = self.bookings.by_job.get(index)
            if booking is not None:
                reason = f"booked from {booking.start:g} s, never started ({reason})"
            jobs.set_reason(index, reason)

    def _unfinished_parent(self, job: Job) -> str | None:
        by_id = self.workload.by_id
        return next((p for p in job.parents
                     if self.jobs.state(by_id[p].index) != FINISHED), None)

    def _result(self, t_end: float) -> SimResult:
        measured = self.platform.has_power_model
        jobs = self.jobs
        allocation, end = jobs.allocations(), jobs.ends()
        return SimResult(
            platform=self.platform, workload=self.workload, scheduler=self._name,
            seed=self.seed, state=jobs.states(), start=jobs.starts(), end=end,
            allocation=allocation, reason=jobs.reasons(),
            job_energy_j=jobs.energies() if measured else None,
            node_energy_j=self.state.energy_j if measured else None,
            node_busy_core_seconds=self.state.busy_core_seconds,
            node_busy_seconds=self.state.busy_seconds, t0=self.t0, t_end=t_end,
            timeseries=self.series if self.record_timeseries else None,
            wall_seconds=self.wall, horizon=self.horizon,
            node_charged_seconds=charged_seconds(self.platform, self.state.up_since, allocation,
                                                 end, self.t0, t_end)
            if self._on_demand else None,
            contention=self.contention_name, failures=self.failures.failures,
            requeued=dict(jobs.requeued))
