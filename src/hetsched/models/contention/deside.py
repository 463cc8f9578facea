"""DESiDE's CPU and memory-bandwidth contention (Chahal, Mathew, Nambiar; the simulator of
"Simulation Based Job Scheduling Optimization for Batch Workloads", ICPE'19), as rate factors.

DESiDE simulates each thread: busy (on a CPU) a share ``U`` of its time, sharing cores when
runnable threads outnumber them, and dilated while busy when it requests more memory bandwidth
than its share. Here a group (the threads of one job on one processor) gets one rate, that of
its mean thread; per node, with ``n_g`` threads of job ``g`` on processor ``p``::

    ps_p  = sharing_factor(cores_p, runnable threads on p)          # C/R when oversubscribed
    B     = sum over groups of ps_p * n_g * U_g                     # busy threads on the node
    sigma = max(0, BWreq_g * B / BWmax - 1)   # = (BWreq - BWavail) / BWavail, BWavail = BWmax/B
    d     = (1 - rho) * (1 + sigma) + rho * (1 + delta * sigma)     # mean busy-time dilation
    factor_g = 1 / (U_g * d / ps_p + 1 - U_g)

``BWmax`` is the sum of the node's processors' ``mem_bw_gbs`` and ``BWreq`` the job's
``mem_bw_gbs`` (per thread, while busy). docs/model.md lists the assumptions behind each line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hetsched.errors import ConfigError
from hetsched.models.contention.interface import Group
from hetsched.models.contention.sharing import oversubscribed, sharing_factor, threads_per_processor

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType, Platform
    from hetsched.workload.model import Workload

#: delta when the platform gives none. The paper's measured value could not be consulted;
#: 1.5 is the usual remote/local DRAM latency of two-socket servers ("access to memory on a
#: remote node adds another 50 percent": C. Lameter, "NUMA (Non-Uniform Memory Access): An
#: Overview", ACM Queue, 2013, https://queue.acm.org/detail.cfm?id=2513149).
DEFAULT_LATENCY_RATIO = 1.5


def parameter(model: str, name: str, value: float, valid: Callable[[float], bool],
              rule: str) -> float:
    """``value`` as a float, or a one-line ConfigError saying what ``model``'s parameter
    ``name`` must be."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not valid(value):
        raise ConfigError(f"contention model '{model}': {name} must be {rule}, got {value!r}")
    return float(value)


def busy_time_dilation(sigma: float, remote_fraction: float, latency_ratio: float) -> float:
    """The mean thread's dilation of its busy time: local threads ``1 + sigma``, the remote
    fraction ``1 + latency_ratio * sigma`` (their extra memory stalls are ``latency_ratio``
    times longer; without contention no thread is slower than in isolation)."""
    return 1.0 + sigma * (1.0 + remote_fraction * (latency_ratio - 1.0))


def rate_factor(cpu_util: float, dilation: float, sharing: float) -> float:
    """``T0 / contended time``: the busy share ``U`` of ``T0`` is dilated and shared, the
    idle share is not."""
    return 1.0 / (cpu_util * dilation / sharing + 1.0 - cpu_util)


class DesideModel:
    """DESiDE with ``remote_fraction`` (rho) of each job's threads accessing remote memory,
    ``latency_ratio`` (delta) times slower than local memory."""

    name = "deside"

    def __init__(self, *, remote_fraction: float = 0.25,
                 latency_ratio: float = DEFAULT_LATENCY_RATIO) -> None:
        self.remote_fraction = parameter(
            self.name, "remote_fraction", remote_fraction, lambda v: 0 <= v <= 1,
            "a number from 0 to 1")
        self.latency_ratio = parameter(
            self.name, "latency_ratio", latency_ratio, lambda v: math.isfinite(v) and v >= 1,
            "a finite number >= 1 (remote/local memory latency)")

    def inert(self, platform: Platform, workload: Workload) -> bool:
        """No bandwidth demand and no oversubscription: every factor is 1, whatever U."""
        return not oversubscribed(platform) and not any(j.mem_bw_gbs for j in workload.jobs)

    def factors(self, node_type: NodeType, groups: Sequence[Group]) -> list[float]:
        sharing, busy, bandwidth = self._node(node_type, groups)
        return [self._factor(g.job.cpu_util, g.job.mem_bw_gbs, sharing[g.processor], busy,
                             bandwidth) for g in groups]

    def _node(self, node_type: NodeType,
              groups: Sequence[Group]) -> tuple[list[float], float, float]:
        """What every group's factor on the node depends on: each processor's sharing factor,
        the busy threads B and the node's bandwidth BWmax."""
        processors = node_type.processors
        sharing = [sharing_factor(p.cores, threads) for p, threads
                   in zip(processors, threads_per_processor(node_type, groups))]
        bandwidth = sum(p.mem_bw_gbs for p in processors)
        if not bandwidth > 0:
            raise ConfigError(f"node type '{node_type.name}': the {self.name} contention model "
                              f"needs a positive memory bandwidth, got {bandwidth}")
        busy = sum(sharing[g.processor] * g.threads * g.job.cpu_util for g in groups)
        return sharing, busy, bandwidth

    def _factor(self, cpu_util: float, mem_bw_gbs: float, sharing: float, busy: float,
                bandwidth: float) -> float:
        """The factor of a group of threads busy ``cpu_util`` of their time, each asking for
        ``mem_bw_gbs`` while busy."""
        sigma = max(0.0, mem_bw_gbs * busy / bandwidth - 1.0)
        dilation = busy_time_dilation(sigma, self.remote_fraction, self.latency_ratio)
        return rate_factor(cpu_util, dilation, sharing)
