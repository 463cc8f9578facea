"""One simulation from what a user gives: inputs as paths or objects, a scheduler as a spec or
an object, a seed and :class:`~hetsched.run.options.RunOptions`. Every way of starting a run
(the command line, :func:`hetsched.simulate`, sweep workers, reruns of stored runs, the
studies) comes through :func:`run_simulation`."""

from __future__ import annotations

from collections.abc import Callable

from hetsched.errors import ConfigError
from hetsched.platform.model import Platform
from hetsched.run.availability import with_run_availability
from hetsched.run.inputs import PathLike, load_inputs
from hetsched.run.options import RunOptions
from hetsched.sim.protocol import Scheduler
from hetsched.sim.result import SimResult
from hetsched.workload.model import Workload, scale_delays


def run_simulation(platform: PathLike | Platform | None, workload: PathLike | Workload | None,
                   scheduler: str | Scheduler, seed: int = 0,
                   options: RunOptions = RunOptions(), *,
                   progress: Callable[[int, int], None] | None = None,
                   timeseries: bool = True) -> SimResult:
    """Load the inputs (files are read with ``options``' SWF settings), build the scheduler
    and simulate. ``progress(done, total)`` is called as jobs end; ``timeseries=False``
    records no time series."""
    from hetsched.schedulers.registry import create
    from hetsched.sim.engine import simulate

    policy = create(scheduler) if isinstance(scheduler, str) else scheduler
    if not isinstance(policy, Scheduler):
        raise ConfigError(f"scheduler must be a name or a hetsched Scheduler, got {policy!r}")
    plat, work = load_inputs(platform, workload, options.swf())
    if options.scale_delays:
        work = scale_delays(work, plat.slowest_speed)
    plat = with_run_availability(plat, work, options, seed)
    return simulate(plat, work, policy, seed=seed, horizon=options.horizon,
                    strict=options.strict, progress=progress, contention=options.contention,
                    walltime=options.walltime, timeseries=timeseries,
                    on_failure=options.on_failure, max_attempts=options.max_attempts)
