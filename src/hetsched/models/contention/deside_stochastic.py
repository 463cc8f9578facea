"""DESiDE with its busy and idle times drawn per interval (Chahal et al., ICPE'19, §4.3.1), as
rate factors seeded by the run: ``deside_stochastic``.

The engine binds the model to a run (:meth:`DesideStochasticModel.bind`, with a generator of
the run's seed of its own). Binding draws, once for every job of the workload, its slowest
thread's work factor ``w`` and busy share ``U'``
(:func:`~hetsched.models.contention.intervals.slowest_threads`, over the job's isolated run
time on the platform's slowest node). A group's factor is then ``deside``'s with ``U'`` for
``U``, over ``w``::

    factor = 1 / (w * (U' * d / ps + 1 - U'))

``B``, the node's busy threads, still counts each job's mean thread (``U``). A job whose
``cpu_util_sd`` is 0 draws nothing and has ``w = 1``, ``U' = U``: its factor is ``deside``'s,
bit for bit. The bound model never changes, so forks and ``ClusterView.project`` see the very
values the run does, whatever the order of events.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from hetsched.errors import ConfigError
from hetsched.models.contention.deside import DEFAULT_LATENCY_RATIO, DesideModel, parameter
from hetsched.models.contention.intervals import slowest_threads
from hetsched.models.contention.interface import Group
from hetsched.models.speed import SpeedModel

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType, Platform
    from hetsched.workload.model import Workload

#: DESiDE's interval (the paper's 0.1 s; shorter ones did not change its results).
DEFAULT_INTERVAL = 0.1


class DesideStochasticModel(DesideModel):
    """``deside`` with each job run at the pace of its slowest thread, whose busy and idle
    times over intervals of ``interval`` seconds are drawn per run."""

    name = "deside_stochastic"

    def __init__(self, *, remote_fraction: float = 0.25,
                 latency_ratio: float = DEFAULT_LATENCY_RATIO,
                 interval: float = DEFAULT_INTERVAL) -> None:
        super().__init__(remote_fraction=remote_fraction, latency_ratio=latency_ratio)
        self.interval = parameter(self.name, "interval", interval,
                                  lambda v: math.isfinite(v) and v > 0,
                                  "a finite number of seconds > 0")
        self._work: tuple[float, ...] | None = None  # w by job index, once bound
        self._busy: tuple[float, ...] = ()           # U' by job index

    def bind(self, platform: Platform, workload: Workload,
             rng: np.random.Generator) -> DesideStochasticModel:
        """A copy of the model with every job's draws for a run of ``workload`` on
        ``platform``, from ``rng`` (in workload order)."""
        jobs = workload.jobs
        work, busy = [1.0] * len(jobs), [job.cpu_util for job in jobs]
        drawn = [job for job in jobs if job.cpu_util_sd > 0]
        if drawn:
            alone = SpeedModel(platform).base_time  # on the slowest node type (an ETC row's)
            w, u = slowest_threads(
                np.array([alone(job) for job in drawn]),
                np.array([job.cpu_util for job in drawn]),
                np.array([job.cpu_util_sd for job in drawn]),
                np.array([job.ntasks for job in drawn], dtype=float), self.interval, rng)
            for job, factor, share in zip(drawn, w.tolist(), u.tolist()):
                work[job.index], busy[job.index] = factor, share
        bound = copy.copy(self)
        bound._work, bound._busy = tuple(work), tuple(busy)
        return bound

    def inert(self, platform: Platform, workload: Workload) -> bool:
        """``deside``'s rule, and no job's times vary (``cpu_util_sd`` 0 everywhere)."""
        return super().inert(platform, workload) and not any(
            job.cpu_util_sd for job in workload.jobs)

    def factors(self, node_type: NodeType, groups: Sequence[Group]) -> list[float]:
        work, busy_share = self._work, self._busy
        if work is None:
            raise ConfigError(f"contention model '{self.name}' draws its values per run: bind "
                              "it to a run first (a Simulation does)")
        sharing, busy, bandwidth = self._node(node_type, groups)
        return [self._factor(busy_share[g.job.index], g.job.mem_bw_gbs, sharing[g.processor],
                             busy, bandwidth) / work[g.job.index] for g in groups]
