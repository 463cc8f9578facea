"""The read-only window a scheduler has on the simulation."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from hetsched.models.speed import SpeedModel
from hetsched.platform.model import Platform
from hetsched.sim.state import ClusterState, RunningJob
from hetsched.workload.model import Job


def _readonly(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class ClusterView:
    """Live, read-only access to the engine's state (arrays reflect every change)."""

    def __init__(self, platform: Platform, state: ClusterState, pending: dict[int, Job],
                 clock: list[float]) -> None:
        self.platform = platform
        self.speed = SpeedModel(platform)
        self._state = state
        self._clock = clock
        self.pending: Mapping[int, Job] = MappingProxyType(pending)
        """Submitted jobs not yet started nor placed in a local queue, in submission order."""
        self.free_cores = _readonly(state.free_cores)
        self.free_mem = _readonly(state.free_mem)
        self.used_mem_bw = _readonly(state.used_mem_bw)
        self.busy_cores = _readonly(state.busy_cores)
        self.node_index = _readonly(np.arange(len(platform.nodes)))

    @property
    def now(self) -> float:
        return self._clock[0]

    @property
    def running(self) -> Mapping[int, RunningJob]:
        return MappingProxyType(self._state.running)

    def running_on(self, node: int) -> Mapping[int, RunningJob]:
        return MappingProxyType(self._state.running_on[node])

    def local_queue(self, node: int) -> tuple[Job, ...]:
        return tuple(self._state.local_queues[node])

    def local_queue_length(self, node: int) -> int:
        return len(self._state.local_queues[node])

    def estimated_end(self, run: RunningJob) -> float:
        """Estimated end of a running job; a job past its estimate is expected to end now."""
        return max(run.est_end, self.now)

    def fits(self, job: Job, node: int, cores: int | None = None) -> bool:
        """Whether ``cores`` (default: all tasks of ``job``) fit on ``node`` right now."""
        return self._state.fits(node, job.ntasks if cores is None else cores, job)

    def fit_mask(self, job: Job, cores: int | None = None) -> np.ndarray:
        """Boolean mask of nodes where ``cores`` (default: all tasks) of ``job`` fit now."""
        k = job.ntasks if cores is None else cores
        mask = self._state.free_cores >= k
        if job.mem_mb > 0:
            mask &= self._state.free_mem >= k * job.mem_mb
        return mask
