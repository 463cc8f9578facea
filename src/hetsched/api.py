"""One call from Python: ``hetsched.simulate(platform, workload, scheduler, **options)``.

    >>> import hetsched
    >>> run = hetsched.simulate("platform.json", "trace.swf", "easy", seed=1)  # doctest: +SKIP
    >>> run.summary["mean_wait"], run.jobs.head(), run.write("runs/easy")     # doctest: +SKIP

Inputs are paths (any format ``hetsched run`` reads) or already built ``Platform`` /
``Workload`` objects; the scheduler is a spec as on the command line (``"easy:node=random"``,
``"my.py:MyPolicy"``) or a scheduler object. ``jobs``, ``timeseries`` and ``nodes`` are pandas
DataFrames (``pip install 'hetsched[pandas]'``); everything else needs no pandas.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hetsched.errors import InputWarning
from hetsched.platform.model import Platform
from hetsched.run.inputs import PathLike, load_inputs
from hetsched.run.options import RunOptions
from hetsched.sim.protocol import Scheduler
from hetsched.sim.result import SimResult
from hetsched.workload.model import Workload

if TYPE_CHECKING:
    import pandas

__all__ = ["Run", "RunOptions", "load_inputs", "require_pandas", "simulate"]


class Run:
    """The outcome of :func:`simulate`: the metrics, per-job records, the time series, and the
    files ``hetsched run`` writes."""

    def __init__(self, result: SimResult, options: RunOptions = RunOptions()) -> None:
        self.result = result
        """What the engine returned: per-job outcomes, per-node totals, the time series."""
        self.options = options
        """The run options it ran with."""

    def __repr__(self) -> str:
        s = self.summary
        return (f"<Run {self.result.scheduler} on {self.result.platform.name}: "
                f"{s['finished']}/{s['jobs']} jobs finished, makespan {s['makespan']:.6g} s>")

    @cached_property
    def summary(self) -> dict[str, float | int]:
        """Every summary metric (as in ``summary.json``; NaN where undefined) and the
        simulation's wall time, ``wall_seconds``."""
        from hetsched.metrics import summarize

        return {**summarize(self.result), "wall_seconds": self.result.wall_seconds}

    @property
    def jobs(self) -> pandas.DataFrame:
        """One row per job, the columns of ``jobs.csv``; NaN (not Batsim's -1) where a job has
        no such value."""
        from hetsched.output.jobs_csv import job_columns

        return require_pandas().DataFrame(job_columns(self.result))

    @property
    def timeseries(self) -> pandas.DataFrame:
        """The columns of ``timeseries.csv``: one row per instant something happened."""
        from hetsched.output.summary_json import timeseries_columns

        return require_pandas().DataFrame(timeseries_columns(self.result))

    @property
    def nodes(self) -> pandas.DataFrame:
        """Per node: name, type, energy (NaN without a power model), busy and idle time."""
        from hetsched.output.summary_json import node_totals

        return require_pandas().DataFrame(node_totals(self.result)).astype({"energy_j": float})

    def write(self, out_dir: PathLike) -> dict[str, Path]:
        """Write ``jobs.csv``, ``jobs.swf``, ``summary.json`` and ``timeseries.csv`` (if the run
        has a time series) into ``out_dir``; the two tables as ``jobs.parquet`` and
        ``timeseries.parquet`` when the run's ``table_format`` is ``parquet``."""
        from hetsched.output import write_run

        return write_run(self.result, out_dir, self.options.recorded())


def simulate(platform: PathLike | Platform | None = None,
             workload: PathLike | Workload | None = None,
             scheduler: str | Scheduler = "fcfs", *, seed: int = 0,
             options: RunOptions | None = None,
             progress: Callable[[int, int], None] | None = None,
             timeseries: bool = True, **option_values: Any) -> Run:
    """Simulate ``workload`` on ``platform`` under ``scheduler`` and return a :class:`Run`.

    Without a platform or a workload, the bundled example's (as ``hetsched run``); a ds-sim
    configuration as the platform, without a workload, brings the job list it names. The run
    options are those of ``hetsched run``, one keyword each (``horizon=3600``,
    ``walltime="kill"``, ...: :class:`~hetsched.run.options.RunOptions`, whose fields they
    replace when ``options`` is given too). Input warnings (a trace made for a machine of
    another size, an empty workload, ...) are issued as :class:`~hetsched.errors.InputWarning`.
    Bad inputs raise :class:`~hetsched.errors.InputError`, bad options
    :class:`~hetsched.errors.ConfigError`. ``timeseries=False`` records no time series, up to
    a tenth quicker when only the metrics and jobs are wanted
    (:attr:`Run.timeseries` then raises ``ConfigError``, and :meth:`Run.write` writes no
    ``timeseries.csv``).
    """
    from hetsched.run.checks import input_warnings
    from hetsched.run.execute import run_simulation

    chosen = RunOptions.of(options, **option_values)
    result = run_simulation(platform, workload, scheduler, seed, chosen, progress=progress,
                            timeseries=timeseries)
    for message in input_warnings(result.platform, result.workload):
        warnings.warn(message, InputWarning, stacklevel=2)
    return Run(result, chosen)


def require_pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("hetsched's DataFrames need pandas: pip install 'hetsched[pandas]'") \
            from None
    return pandas
