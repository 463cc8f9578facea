"""The resource rules, in one place: what fits where, how tasks split over nodes and
processors, and how threads share cores. The engine, the view, the feasibility check and the
schedulers all use these functions."""

from __future__ import annotations


def sharing_factor(cores: int, threads: int) -> float:
    """Processor sharing: each of ``threads`` runnable threads on ``cores`` cores progresses
    at ``cores / threads`` of a core (1 when they do not outnumber the cores)."""
    return 1.0 if threads <= cores else cores / threads
