"""The node failures of one run: when each node is down, and the cores it has again when it
is repaired.

A failure is unannounced: nothing foresees it (unlike a reservation). At its start the engine
kills the jobs running on the node and sets the node's available cores to 0; at its end (the
repair) the node gets back the cores the other availability changes give it then, unless
another failure of the node is still in force. These answers depend only on the time, not on
what happened before, so a fork of a run shares them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from hetsched.errors import ConfigError
from hetsched.platform.model import Availability, Failure, Platform


class Failures:
    """The failures of a run, per node, and the availability set-points of the nodes that
    fail (the cores a repaired node has again)."""

    def __init__(self, platform: Platform, failures: Iterable[Failure],
                 changes: Sequence[Availability]) -> None:
        self.failures = tuple(failures)
        count = len(platform.nodes)
        self.windows: dict[int, list[tuple[float, float]]] = {}
        for f in self.failures:
            if not (0 <= f.node < count and math.isfinite(f.start) and 0 <= f.start < f.end):
                raise ConfigError(f"failure {f}: needs a node index (0..{count - 1}) and a "
                                  "finite start >= 0 before its end")
            self.windows.setdefault(f.node, []).append((f.start, f.end))
        self.setpoints = {node: [c for c in changes if c.node == node] for node in self.windows}
        self.cores = [node.type.cores for node in platform.nodes]
        self.last_start = max((f.start for f in self.failures), default=-math.inf)
        self.last_on = {node: max(start for start, _ in spans)
                        for node, spans in self.windows.items()}  # each node's last failure

    def __bool__(self) -> bool:
        return bool(self.failures)

    def down(self, node: int, time: float) -> bool:
        """Whether a failure of ``node`` is in force at ``time`` (from its start, before its
        end)."""
        return any(start <= time < end for start, end in self.windows.get(node, ()))

    def capacity(self, node: int, time: float) -> int:
        """The cores ``node`` has at ``time`` from its other availability changes (the last
        one due by then; of simultaneous ones, the last given, as the engine applies them)."""
        cores, when = self.cores[node], -math.inf
        for change in self.setpoints.get(node, ()):
            if when <= change.time <= time:
                cores, when = change.cores, change.time
        return cores
