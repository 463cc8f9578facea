"""What the agent sees: fixed-size arrays built only from what a resource manager knows.

``jobs`` (K x len(JOB_FIELDS)): the first K pending jobs in submission order, zero rows past
the last (``valid`` 0). ``nodes`` (nodes x len(NODE_FIELDS)). Times come from requested times:
a running job's estimated end (``RunningJob.est_end``, its start plus its estimate from
``req_time``, or now once it has run past it), never its true end, its shares' remaining work
or a true run time (``RunningJob.end``, ``Share.remaining``, ``SpeedModel.run_time``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

import numpy as np
from gymnasium import spaces

from hetsched.platform.model import Platform
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

#: The columns of ``obs["jobs"]``: a flag for a real row, the requested time (s), the tasks,
#: the nodes asked for (0: any number), the job's memory (MB) and memory bandwidth (GB/s), and
#: the time waited so far (s).
JOB_FIELDS = ("valid", "requested_time", "tasks", "nodes", "memory_mb", "mem_bw_gbs",
              "waiting_time")
#: The columns of ``obs["nodes"]``: free cores (slots), speed (Gop/s per core), power at full
#: load (W), the jobs running there (its queue: the environment uses no local queues), and the
#: estimated time until the node is free (s: the latest estimated end of its running jobs,
#: from their requested times).
NODE_FIELDS = ("free_cores", "speed_gops", "power_w", "running_jobs", "time_to_free")


#: The bound of a column with none of its own: float32's largest value (an infinite bound
#: makes gymnasium's ``check_env`` warn; no time or amount here comes near it).
UNBOUNDED = float(np.finfo(np.float32).max)


def node_constants(platform: Platform) -> tuple[np.ndarray, np.ndarray]:
    """The columns ``speed_gops`` and ``power_w`` of ``obs["nodes"]`` (float32), which never
    change."""
    arrays = platform.arrays
    return ((arrays.speed / 1e9).astype(np.float32),
            np.asarray(arrays.full_power_w).astype(np.float32))


def observation_space(visible: int, platform: Platform) -> spaces.Dict:
    """The spaces of ``obs["jobs"]`` and ``obs["nodes"]``: nothing below 0; ``valid`` at most
    1, a node's free cores at most its slots, its speed and power exactly its own."""
    jobs = np.full((visible, len(JOB_FIELDS)), UNBOUNDED, dtype=np.float32)
    jobs[:, JOB_FIELDS.index("valid")] = 1.0
    nodes = np.full((len(platform.nodes), len(NODE_FIELDS)), UNBOUNDED, dtype=np.float32)
    nodes[:, 0] = platform.arrays.slots
    nodes[:, 1], nodes[:, 2] = node_constants(platform)
    return spaces.Dict({
        "jobs": spaces.Box(np.zeros_like(jobs), jobs, dtype=np.float32),
        "nodes": spaces.Box(np.zeros_like(nodes), nodes, dtype=np.float32),
    })


class Observer:
    """Builds observations of one platform: a step fills float64 buffers whose static columns
    are set once (the platform's, and per workload every job's row) and returns float32
    copies of them, in few numpy calls (on 16 x 7 and 20 x 5 arrays numpy's fixed cost per
    call is most of the work)."""

    def __init__(self, platform: Platform, visible: int) -> None:
        self.visible = visible
        # transposed: one row per column, each column's assignment contiguous
        self.nodes = np.zeros((len(NODE_FIELDS), len(platform.nodes)))
        self.nodes[1], self.nodes[2] = node_constants(platform)
        self.jobs = np.zeros((visible, len(JOB_FIELDS)))
        self.shown = visible  # rows of ``jobs`` that may hold a job (the rest are zero)
        self._workload: Sequence[Job] = ()
        self._table = np.zeros((0, len(JOB_FIELDS)))

    def __call__(self, view: ClusterView, workload: Sequence[Job]) -> dict[str, np.ndarray]:
        """The observation now; ``workload``: the run's jobs (``Job.index`` order)."""
        now, jobs, nodes = view.now, self.jobs, self.nodes
        shown = list(islice(view.pending, self.visible))
        count = len(shown)
        if count:
            table = self._table if workload is self._workload else self._rows(workload)
            table.take(shown, axis=0, out=jobs[:count])
            waited = jobs[:count, -1]
            waited += now  # the table holds -submit: now - submit, exactly
        if count < self.shown:
            jobs[count:self.shown] = 0.0
        self.shown = count
        free = nodes[0]
        free[:] = view.free_slots
        if view.overcommitted:  # (on floats: a mixed-type ufunc costs 3 times more)
            np.maximum(free, 0.0, out=free)
        size = nodes.shape[1]
        running, to_free = [0.0] * size, [0.0] * size  # (floats: copied in as they are)
        for run in view.running.values():
            left = run.est_end - now
            for node, _ in run.allocation:
                running[node] += 1.0
                if left > to_free[node]:
                    to_free[node] = left
        nodes[3] = running
        nodes[4] = to_free
        return {"jobs": jobs.astype(np.float32), "nodes": nodes.T.astype(np.float32, order="C")}

    def _rows(self, workload: Sequence[Job]) -> np.ndarray:
        """Every job's row, its last column minus the submission time (made once per
        workload)."""
        if workload is not self._workload:
            self._workload = workload
            self._table = np.array([(1.0, job.req_time, job.ntasks, job.nodes, job.job_memory_mb,
                                     job.mem_bw_gbs, -job.submit) for job in workload],
                                   dtype=float).reshape(len(workload), len(JOB_FIELDS))
        return self._table
