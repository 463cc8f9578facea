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

from hetsched.errors import ConfigError, InputWarning
from hetsched.models.contention import check_contention
from hetsched.options import check_walltime
from hetsched.platform.model import Platform
from hetsched.sim.protocol import Scheduler
from hetsched.sim.result import SimResult
from hetsched.workload.model import Workload
from hetsched.workload.swf import SwfOptions

if TYPE_CHECKING:
    import pandas

PathLike = str | Path


class Run:
    """The outcome of :func:`simulate`: the metrics, per-job records, the time series, and the
    files ``hetsched run`` writes."""

    def __init__(self, result: SimResult, options: dict[str, Any]) -> None:
        self.result = result
        self.options = options

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
        has a time series) into ``out_dir``."""
        from hetsched.output import write_run

        return write_run(self.result, out_dir, self.options)


def simulate(platform: PathLike | Platform | None = None,
             workload: PathLike | Workload | None = None,
             scheduler: str | Scheduler = "fcfs", *, seed: int = 0,
             horizon: float | None = None, strict: bool = False, swf_placement: str = "auto",
             reference_speed: float | None = None, estimate_factor: float = 1.0,
             contention: str | None = None, walltime: str = "auto",
             progress: Callable[[int, int], None] | None = None,
             timeseries: bool = True) -> Run:
    """Simulate ``workload`` on ``platform`` under ``scheduler`` and return a :class:`Run`.

    Without a platform or a workload, the bundled example's (as ``hetsched run``); a ds-sim
    configuration as the platform, without a workload, brings the job list it names. The
    options are those of ``hetsched run``. Input warnings (a trace made for a machine of
    another size, an empty workload, ...) are issued as :class:`~hetsched.errors.InputWarning`.
    Bad inputs raise :class:`~hetsched.errors.InputError`, bad options
    :class:`~hetsched.errors.ConfigError`. ``timeseries=False`` records no time series, up to
    a tenth quicker when only the metrics and jobs are wanted
    (:attr:`Run.timeseries` then raises ``ConfigError``, and :meth:`Run.write` writes no
    ``timeseries.csv``).
    """
    from hetsched.schedulers.registry import create
    from hetsched.run.checks import input_warnings
    from hetsched.sim.engine import simulate as run_engine

    swf = SwfOptions(placement=swf_placement, reference_speed=reference_speed,
                     estimate_factor=estimate_factor, strict=strict)
    check_walltime(walltime)
    policy = create(scheduler) if isinstance(scheduler, str) else scheduler
    if not isinstance(policy, Scheduler):
        raise ConfigError(f"scheduler must be a name or a hetsched Scheduler, got {policy!r}")
    plat, work = load_inputs(platform, workload, swf)
    for message in input_warnings(plat, work):
        warnings.warn(message, InputWarning, stacklevel=2)
    result = run_engine(plat, work, policy, seed=seed, horizon=horizon, strict=strict,
                        progress=progress, contention=check_contention(contention),
                        walltime=walltime, timeseries=timeseries)
    return Run(result, recorded_options(horizon, strict, swf, walltime))


def load_inputs(platform: PathLike | Platform | None, workload: PathLike | Workload | None,
                swf: SwfOptions = SwfOptions()) -> tuple[Platform, Workload]:
    """The platform and workload of a run, from paths or objects. No platform: the bundled
    example's. No workload: the job list a ds-sim configuration names, else the bundled
    example's."""
    from hetsched.examples import default_platform_path, default_workload_path
    from hetsched.platform.load import read_platform
    from hetsched.workload.load import load_workload

    document = None  # the platform file's, read once (a ds-sim configuration names the jobs)
    if not isinstance(platform, Platform):
        platform, document = read_platform(default_platform_path() if platform is None
                                           else _path(platform, "platform"))
    if isinstance(workload, Workload):
        return platform, workload
    if workload is not None:
        return platform, load_workload(_path(workload, "workload"), platform, swf)
    if Path(platform.source).suffix.lower() == ".xml":
        from hetsched.workload.dssim import workload_for_config

        return platform, workload_for_config(Path(platform.source), platform, document)
    return platform, load_workload(default_workload_path(), platform)


def recorded_options(horizon: float | None, strict: bool, swf: SwfOptions,
                     walltime: str = "auto") -> dict[str, Any]:
    """How a run was configured, as ``summary.json`` records it (the contention model used
    comes from the result)."""
    return {"horizon": horizon, "strict": strict, "swf_placement": swf.placement,
            "reference_speed": swf.reference_speed, "estimate_factor": swf.estimate_factor,
            "walltime": walltime}


def _path(value: object, what: str) -> Path:
    if not isinstance(value, (str, Path)):
        raise ConfigError(f"{what} must be a path or a {what.capitalize()}, got "
                          f"{type(value).__name__}")
    return Path(value)


def require_pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("hetsched's DataFrames need pandas: pip install 'hetsched[pandas]'") \
            from None
    return pandas
