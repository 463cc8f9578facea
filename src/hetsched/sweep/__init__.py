"""Sweeps: thousands of runs (platforms × workloads × schedulers × seeds × options) from one
file, run on a local process pool or a Dask cluster into a resumable SQLite store.

    >>> from hetsched.sweep import run_sweep, load_results        # doctest: +SKIP
    >>> run_sweep("sweep.yaml", "results.sqlite", workers=2)      # doctest: +SKIP
    >>> load_results("results.sqlite", "scheduler=easy")          # doctest: +SKIP

Modules: :mod:`~hetsched.sweep.spec` (the sweep file), :mod:`~hetsched.sweep.splits`
(a trace cut by week, day or job count), :mod:`~hetsched.sweep.inputs` (inputs loaded once
per process), :mod:`~hetsched.sweep.grid` (the runs and their keys),
:mod:`~hetsched.sweep.worker` (what a worker does), :mod:`~hetsched.sweep.executors`
(process pool, Dask), :mod:`~hetsched.sweep.store` (the SQLite store),
:mod:`~hetsched.sweep.results` (reading it), :mod:`~hetsched.sweep.runner` (a whole sweep).
See docs/sweeps.md.
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_jobs", "load_results", "run_sweep"]


def __getattr__(name: str) -> Any:
    if name in ("load_jobs", "load_results"):
        from hetsched.sweep import results

        return getattr(results, name)
    if name == "run_sweep":
        from hetsched.sweep.runner import run_sweep

        return run_sweep
    raise AttributeError(f"module 'hetsched.sweep' has no attribute {name!r}")
