"""IRMaSim's modelV1 memory contention, per processor, as IRMaSim computes it.

A thread's requested bandwidth is ``y = mem_vol / T0`` (``T0``: its uncontended run time on
that core); ``x`` is the sum of ``y`` over the processor's running threads and ``n`` the
number of *other* running threads on it. With the processor's parameters ``b, c, da, db, dc,
dd``::

    S(z) = 1 if z < 0, 0 if z > 1, else 1 - (6z^5 - 15z^4 + 10z^3)
    d(y, n) = S((y - (da - n) db) / (dc - n dd)) * 0.6n / (1 + 0.6n) + 1 / (1 + 0.6n)
    speedup = 1                 if x < c
              d(y, n)           if x > (d(y, n) + b c - 1) / b
              1 + b (x - c)     otherwise

rounded to 9 decimals (IRMaSim rounds it so). With ``b < 0`` the last two lines are
``max(d(y, n), 1 + b (x - c))``. IRMaSim never places two threads on a core; on an
oversubscribed processor the speedup is multiplied by the processor-sharing factor.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from hetsched.models.contention.interface import Group
from hetsched.models.contention.sharing import oversubscribed, sharing_factor, threads_per_processor

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType, Platform, Processor
    from hetsched.workload.model import Workload

#: IRMaSim's parameter values (its example processor library), used when a processor has none.
DEFAULTS = {"b": -1.85e-5, "c": 32000.0, "da": 1.75, "db": 2000.0, "dc": 50000.0, "dd": 6000.0}


def smoothstep_down(z: float) -> float:
    """IRMaSim's ``S``: 1 below 0, 0 above 1, a quintic smooth step in between."""
    if z < 0:
        return 1.0
    if z > 1:
        return 0.0
    return 1.0 - z * z * z * (z * (z * 6.0 - 15.0) + 10.0)


def speedup(x: float, y: float, n: int, p: dict[str, float]) -> float:
    """The rate factor of a thread requesting ``y`` on a processor with total request ``x``
    and ``n`` other running threads."""
    if x < p["c"]:
        return 1.0
    span = p["dc"] - n * p["dd"]
    excess = y - (p["da"] - n) * p["db"]
    z = excess / span if span else (float("inf") if excess > 0 else float("-inf"))
    share = 0.6 * n
    d = smoothstep_down(z) * share / (1.0 + share) + 1.0 / (1.0 + share)
    if x > (d + p["b"] * p["c"] - 1.0) / p["b"]:
        return round(d, 9)
    return round(p["b"] * (x - p["c"]) + 1.0, 9)


@cache
def parameters(processor: Processor) -> dict[str, float]:
    return {name: processor.param(name, default) for name, default in DEFAULTS.items()}


class IrmasimModel:
    name = "irmasim"
    per_processor = True

    def inert(self, platform: Platform, workload: Workload) -> bool:
        """No memory traffic (every ``mem_vol`` is 0) means no contention."""
        return not oversubscribed(platform) and not any(j.mem_vol for j in workload.jobs)

    def factors(self, node_type: NodeType, groups: Sequence[Group]) -> list[float]:
        processors = node_type.processors
        if len(processors) == 1:
            return self._one_processor(processors[0], groups)
        threads = threads_per_processor(node_type, groups)
        demand = [0.0] * len(processors)
        for g in groups:
            demand[g.processor] += g.threads * g.job.mem_vol / g.base_time
        params = [parameters(p) for p in processors]
        sharing = [sharing_factor(p.cores, t) for p, t in zip(processors, threads)]
        return [sharing[p] if demand[p] < params[p]["c"] else  # uncontended: no need for y
                speedup(demand[p], g.job.mem_vol / g.base_time, threads[p] - 1, params[p])
                * sharing[p] for g in groups for p in (g.processor,)]

    @staticmethod
    def _one_processor(processor: Processor, groups: Sequence[Group]) -> list[float]:
        """The same for a node of one processor (the common case), in one pass."""
        params = parameters(processor)
        threads, demand = 0, 0.0
        for g in groups:
            threads += g.threads
            if g.job.mem_vol:
                demand += g.threads * g.job.mem_vol / g.base_time
        sharing = sharing_factor(processor.cores, threads)
        if demand < params["c"]:
            return [sharing] * len(groups)
        return [speedup(demand, g.job.mem_vol / g.base_time, threads - 1, params) * sharing
                for g in groups]
