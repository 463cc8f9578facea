"""On-demand nodes (:attr:`NodeType.on_demand`, ds-sim's servers): the states a node goes
through and the time it is charged. The engine boots such a node when a job is first started
on it (a boot event at ``now + boot_time``); the job holds its resources at once and starts at
boot completion."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from hetsched.platform.model import Platform

#: A node's states: off (``INACTIVE``) until a job is started on it, then ``BOOTING`` until
#: its boot completes, then ``IDLE`` or ``ACTIVE`` (some job holds it). Nodes that are not on
#: demand are always idle or active.
INACTIVE, BOOTING, IDLE, ACTIVE = "inactive", "booting", "idle", "active"


def charged_seconds(platform: Platform, up_since: Sequence[float],
                    allocation: Sequence[tuple[tuple[int, int], ...] | None], end: np.ndarray,
                    t0: float, t_end: float) -> np.ndarray:
    """Per node, how long it is rented: an on-demand node from boot completion
    (``up_since``, NaN if it never booted) to its last job's end (``t_end`` for a job that had
    not ended), within the run's window; any other node for the whole window."""
    last: dict[int, float] = {}
    for pairs, finish in zip(allocation, end.tolist()):
        if pairs is not None:
            stop = t_end if math.isnan(finish) else finish
            for node, _ in pairs:
                last[node] = max(last.get(node, -math.inf), stop)
    charged = np.full(len(platform.nodes), t_end - t0)
    for node in platform.nodes:
        if node.type.on_demand:
            since = up_since[node.index]
            used = node.index in last and not math.isnan(since)
            charged[node.index] = max(0.0, min(last[node.index], t_end) - since) if used else 0.0
    return charged
