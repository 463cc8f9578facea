"""Why a job can never run on a platform (checked once, at submission)."""

from __future__ import annotations

import numpy as np

from hetsched.platform.model import Platform
from hetsched.schedulers.placement import capacity, even_split
from hetsched.workload.model import SPREAD, Job


def _usable_cores(job: Job, platform: Platform, per_node: int) -> np.ndarray:
    """Cores each node could ever give ``job`` if it asks ``per_node`` cores there."""
    a = platform.arrays
    return capacity(job, np.minimum(a.cores, per_node), a.memory_mb)


def infeasibility(job: Job, platform: Platform) -> str | None:
    """A reason ``job`` can never start on any set of nodes of ``platform``, or ``None``."""
    a = platform.arrays
    if job.nodes == 1:
        if job.ntasks > a.cores.max():
            return (f"needs {job.ntasks} cores on one node; the largest node has "
                    f"{int(a.cores.max())}")
        if np.any(_usable_cores(job, platform, job.ntasks) >= job.ntasks):
            return None
        return f"needs {job.ntasks * job.mem_mb:g} MB of memory on one node; no node has that much"
    if job.nodes == SPREAD:
        if _usable_cores(job, platform, job.ntasks).sum() >= job.ntasks:
            return None
        return f"needs {job.ntasks} cores; the platform has {platform.total_cores}"
    if job.nodes > job.ntasks:
        return f"asks for {job.nodes} nodes but has only {job.ntasks} tasks"
    base, extra = even_split(job)
    usable = _usable_cores(job, platform, base + 1)
    if np.count_nonzero(usable >= base) >= job.nodes and \
            np.count_nonzero(usable > base) >= extra:
        return None
    return (f"needs {job.nodes} nodes for {job.ntasks} tasks ({base} or {base + 1} each); "
            f"the platform has too few such nodes")
