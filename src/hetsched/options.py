"""Checks of option values shared by the engine, the loaders and the CLI (one line each)."""

from __future__ import annotations

import importlib.util
import math
import numbers
import os

from hetsched.errors import ConfigError
from hetsched.limits import MAX_SPEED, MAX_TIME


def check_seed(seed: object) -> int:
    """A seed is a whole number >= 0 (what ``numpy.random.default_rng`` accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigError(f"seed must be a whole number >= 0, got {seed!r}")
    return int(seed)


def check_horizon(horizon: object) -> float | None:
    """A horizon is ``None`` (run to the end) or a time in ``[0, MAX_TIME]`` seconds."""
    if horizon is None:
        return None
    return check_number("horizon", horizon, minimum=0.0, maximum=MAX_TIME)


def check_flag(name: str, value: object) -> bool:
    """A yes/no option is ``True`` or ``False`` (not 1, not "yes")."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be true or false, got {value!r}")
    return value


def check_number(name: str, value: object, minimum: float | None = None,
                 positive: bool = False, maximum: float | None = None) -> float:
    """``value`` as a finite float, ``> 0`` if ``positive``, within ``minimum`` and
    ``maximum`` if given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(float(value)):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    number = float(value)
    if positive and not number > 0:
        raise ConfigError(f"{name} must be > 0, got {value!r}")
    if minimum is not None and number < minimum:
        raise ConfigError(f"{name} must be >= {minimum:g}, got {value!r}")
    if maximum is not None and number > maximum:
        raise ConfigError(f"{name} must be at most {maximum:g}, got {value!r}")
    return number


#: The engine's walltime rules: ``auto`` is ``kill`` for Batsim workloads, ``ignore`` otherwise.
WALLTIME_RULES = ("auto", "kill", "ignore")


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """``value``, one of ``choices`` (option ``name``)."""
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def check_walltime(rule: object) -> str:
    return check_choice("walltime", rule, WALLTIME_RULES)


#: How a run's tables (its jobs and its time series) are written: CSV, or Parquet (pyarrow,
#: the ``parquet`` extra), which pandas reads a million-job run's from in a fraction of the
#: time.
TABLE_FORMATS = ("csv", "parquet")
#: What reading or writing Parquet without pyarrow says.
NEEDS_PYARROW = "needs pyarrow, which is not installed (pip install 'hetsched[parquet]')"


def check_table_format(table_format: object) -> str:
    return check_choice("table_format", table_format, TABLE_FORMATS)


def check_table_writer(table_format: str) -> None:
    """That the tables can be written in ``table_format`` here: Parquet needs pyarrow (found,
    not imported). Asked where tables are written, and by the command line before it
    simulates; not of a stored run's options (a store read where pyarrow is missing)."""
    if table_format == "parquet" and importlib.util.find_spec("pyarrow") is None:
        raise ConfigError(f"table_format parquet {NEEDS_PYARROW}")


#: What becomes of the jobs a node failure kills: ``kill`` ends them, ``requeue`` sends them
#: back to pending (:class:`hetsched.sim.engine.Simulation`).
FAILURE_POLICIES = ("kill", "requeue")


def check_on_failure(policy: object) -> str:
    return check_choice("on_failure", policy, FAILURE_POLICIES)


def check_max_attempts(attempts: object) -> int | None:
    """``None`` (no limit) or a whole number >= 1 of attempts a requeued job may make."""
    if attempts is None:
        return None
    if isinstance(attempts, bool) or not isinstance(attempts, numbers.Integral) \
            or attempts < 1:
        raise ConfigError(f"max_attempts must be a whole number >= 1, got {attempts!r}")
    return int(attempts)


def check_file(name: str, what: str, path: object) -> str | None:
    """``None`` or the path of a file option ``name`` names (``what`` it holds; read when the
    run loads its inputs)."""
    if path is None:
        return None
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path:
        raise ConfigError(f"{name} must be the path of {what}, got {path!r}")
    return path


def check_failure_trace(path: object) -> str | None:
    """``None`` (no trace beyond the platform's failures) or the path of a failure trace
    (:mod:`hetsched.platform.failure_trace`)."""
    return check_file("failures", "a failure trace file", path)


def check_batsim_events(path: object) -> str | None:
    """``None`` or the path of a Batsim external events file
    (:mod:`hetsched.platform.batsim_events`)."""
    return check_file("batsim_events", "a Batsim events file", path)


def check_mtbf(seconds: object) -> float | None:
    """``None`` (no drawn failure trace) or a mean time between failures, in seconds
    (> 0)."""
    if seconds is None:
        return None
    return check_number("failure_mtbf", seconds, positive=True, maximum=MAX_TIME)


#: How SWF records are placed (``SwfOptions.placement``): see :mod:`hetsched.workload.swf`.
PLACEMENTS = ("auto", "single", "spread")
#: Largest ``SwfOptions.estimate_factor``.
MAX_ESTIMATE_FACTOR = 1e6


def check_placement(placement: object) -> str:
    if placement not in PLACEMENTS:
        raise ConfigError(f"SWF placement must be 'auto', 'single' or 'spread', not "
                          f"{placement!r}")
    return str(placement)


def check_reference_speed(speed: object) -> float | None:
    """``None`` (the platform's slowest core) or a speed in ops/s."""
    if speed is None:
        return None
    return check_number("SWF reference speed", speed, positive=True, maximum=MAX_SPEED)


def check_estimate_factor(factor: object) -> float:
    return check_number("SWF estimate factor", factor, positive=True,
                        maximum=MAX_ESTIMATE_FACTOR)
