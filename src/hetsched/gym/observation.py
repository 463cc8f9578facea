"""What the agent sees: fixed-size arrays built only from what a resource manager knows.

``jobs`` (K x len(JOB_FIELDS)): the first K pending jobs in submission order, zero rows past
the last (``valid`` 0). ``nodes`` (nodes x len(NODE_FIELDS)). Times come from requested times:
a running job's estimated end (``RunningJob.est_end``, its start plus its estimate from
``req_time``, or now once it has run past it), never its true end, its shares' remaining work
or a true run time (``RunningJob.end``, ``Share.remaining``, ``SpeedModel.run_time``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import islice

import numpy as np
from gymnasium import spaces

from hetsched.platform.model import Platform
from hetsched.sim.state import RunningJob
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


def observation_space(visible: int, platform: Platform) -> spaces.Dict:
    """The spaces of ``obs["jobs"]`` and ``obs["nodes"]``: nothing below 0; ``valid`` at most
    1, a node's free cores at most its slots, its speed and power exactly its own."""
    jobs = np.full((visible, len(JOB_FIELDS)), UNBOUNDED, dtype=np.float32)
    jobs[:, JOB_FIELDS.index("valid")] = 1.0
    arrays = platform.arrays
    nodes = np.full((len(platform.nodes), len(NODE_FIELDS)), UNBOUNDED, dtype=np.float32)
    nodes[:, 0] = arrays.slots
    nodes[:, 1] = arrays.speed / 1e9
    nodes[:, 2] = arrays.full_power_w
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
        arrays = platform.arrays
        # transposed: one row per column, so that the running jobs' two columns are one
        # assignment
        self.nodes = np.zeros((len(NODE_FIELDS), len(platform.nodes)))
        self.nodes[1] = (arrays.speed / 1e9).astype(np.float32)
        self.nodes[2] = np.asarray(arrays.full_power_w).astype(np.float32)
        self.jobs = np.zeros((visible, len(JOB_FIELDS)))
        self.shown = visible  # rows of ``jobs`` that may hold a job (the rest are zero)
        self.load = NodeLoad(len(platform.nodes))
        self._workload: Sequence[Job] = ()
        self._table = np.zeros((0, len(JOB_FIELDS)))

    def __call__(self, view: ClusterView, workload: Sequence[Job]) -> dict[str, np.ndarray]:
        """The observation now; ``workload``: the run's jobs (``Job.index`` order)."""
        now, jobs, nodes = view.now, self.jobs, self.nodes
        shown = list(islice(view.pending, self.visible))
        count = len(shown)
        if count:
            self._rows(workload).take(shown, axis=0, out=jobs[:count])
            waited = jobs[:count, -1]
            waited += now  # the table holds -submit: now - submit, exactly
        if count < self.shown:
            jobs[count:self.shown] = 0.0
        self.shown = count
        free = nodes[0]
        free[:] = view.free_slots
        np.maximum(free, 0.0, out=free)  # (on floats: a mixed-type ufunc costs 3 times more)
        self.load.update(view.running)
        nodes[3] = self.load.counts
        nodes[4] = self.load.to_free(now)
        return {"jobs": jobs.astype(np.float32), "nodes": nodes.T.astype(np.float32, order="C")}

    def _rows(self, workload: Sequence[Job]) -> np.ndarray:
        """Every job's row, its last column minus the submission time."""
        if workload is not self._workload:
            self._workload = workload
            self._table = np.array([(1.0, job.req_time, job.ntasks, job.nodes, job.job_memory_mb,
                                     job.mem_bw_gbs, -job.submit) for job in workload],
                                   dtype=float).reshape(len(workload), len(JOB_FIELDS))
        return self._table


class NodeLoad:
    """Per node, the running jobs and the latest of their estimated ends, kept up to date
    from one observation to the next by what changed in the running set (a job or two per
    step, where walking every running job's allocation cost a third of an observation)."""

    def __init__(self, nodes: int) -> None:
        self.counts = [0.0] * nodes  # (floats: copied into a float array as they are)
        self.latest = [-math.inf] * nodes
        self.ends: list[dict[int, float]] = [{} for _ in range(nodes)]  # by job index
        self.known: dict[int, RunningJob] = {}  # the running set last seen, by job index

    def update(self, running: Mapping[int, RunningJob]) -> None:
        """Catch up with ``running``: a run object not seen before (new, or replaced, as a
        rate change or another episode's run does) is added, one no longer there removed."""
        known = self.known
        for index in known.keys() - running.keys():
            self._remove(known.pop(index))
        for index in running.keys() - known.keys():
            self._add(run := running[index])
            known[index] = run
        if known.items() != running.items():  # (rare: a run object replaced under its index)
            for index in [i for i, run in known.items() if running[i] is not run]:
                self._remove(known[index])
                self._add(run := running[index])
                known[index] = run

    def _add(self, run: RunningJob) -> None:
        counts, latest, ends = self.counts, self.latest, self.ends
        index, end = run.job.index, run.est_end
        for node, _ in run.allocation:
            counts[node] += 1.0
            ends[node][index] = end
            if end > latest[node]:
                latest[node] = end

    def _remove(self, run: RunningJob) -> None:
        counts, latest, ends = self.counts, self.latest, self.ends
        index, end = run.job.index, run.est_end
        for node, _ in run.allocation:
            counts[node] -= 1.0
            del ends[node][index]
            if end >= latest[node]:
                latest[node] = max(ends[node].values(), default=-math.inf)

    def to_free(self, now: float) -> list[float]:
        """Each node's estimated time until free from ``now`` (s; 0 past the latest end)."""
        return [end - now if end > now else 0.0 for end in self.latest]
