"""hetsched: simulate, compare and tune job schedulers on heterogeneous clusters.

``hetsched.simulate(platform, workload, scheduler, **options)`` runs one simulation and returns
a :class:`~hetsched.api.Run` (see :mod:`hetsched.api`); ``hetsched.RunOptions`` holds a run's
options (:mod:`hetsched.run.options`); ``hetsched.Simulation`` is the engine
itself, to step (``advance``/``apply``/``finish``) or fork; ``hetsched.load_results(store,
*conditions)`` reads a sweep's results as a DataFrame (see :mod:`hetsched.sweep`). They are
imported on first use, so that ``import hetsched`` (and the command line's start-up) stays
light.
"""

from __future__ import annotations

from typing import Any

from hetsched.version import __version__
__all__ = ["Run", "RunOptions", "Simulation", "__version__", "load_results", "simulate"]


def __getattr__(name: str) -> Any:
    if name in ("simulate", "Run"):
        from hetsched import api

        return getattr(api, name)
    if name == "load_results":
        from hetsched.sweep.results import load_results

        return load_results
    if name == "RunOptions":
        from hetsched.run.options import RunOptions

        return RunOptions
    if name == "Simulation":
        from hetsched.sim.engine import Simulation

        return Simulation
    raise AttributeError(f"module 'hetsched' has no attribute {name!r}")
