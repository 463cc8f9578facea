"""The ``none`` contention model: no interference between threads, only processor sharing
on oversubscribed processors (R runnable threads on C cores each progress at C/R)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hetsched.models.contention.interface import Group

if TYPE_CHECKING:
    from hetsched.platform.model import NodeType, Platform
    from hetsched.workload.model import Workload


def sharing_factor(cores: int, threads: int) -> float:
    """Processor sharing: each of ``threads`` runnable threads on ``cores`` cores progresses
    at ``cores / threads`` of a core (1 when they do not outnumber the cores)."""
    return 1.0 if threads <= cores else cores / threads


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
