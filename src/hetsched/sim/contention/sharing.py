"""The ``none`` contention model: no interference between threads, only processor sharing
on oversubscribed processors (R runnable threads on C cores each progress at C/R)."""

from __future__ import annotations

from collections.abc import Sequence

from hetsched.platform.model import NodeType, Platform
from hetsched.sim.contention import Group
from hetsched.sim.resources import sharing_factor
from hetsched.workload.model import Workload


def oversubscribed(platform: Platform) -> bool:
    """Whether some node may run more threads than it has cores."""
    return any(t.oversubscription > 1 for t in platform.node_types)


def threads_per_processor(node_type: NodeType, groups: Sequence[Group]) -> list[int]:
    """Runnable threads on each processor of the node."""
    threads = [0] * len(node_type.processors)
    for group in groups:
        threads[group.processor] += group.threads
    return threads


class ProcessorSharing:
    name = "none"
    per_processor = True

    def inert(self, platform: Platform, workload: Workload) -> bool:
        return not oversubscribed(platform)

    def factors(self, node_type: NodeType, groups: Sequence[Group]) -> list[float]:
        threads = threads_per_processor(node_type, groups)
        processors = node_type.processors
        return [sharing_factor(processors[g.processor].cores, threads[g.processor])
                for g in groups]
