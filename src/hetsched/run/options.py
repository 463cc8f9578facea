"""How one run is configured, apart from its inputs, scheduler and seed: :class:`RunOptions`,
the only definition of each run option (its default, its check and its help text).

Everything that starts runs takes its options from here: the command line (``run`` and
``compare`` get one ``--option`` per field), :func:`hetsched.simulate` (one keyword per
field), sweep files (``options:``, a value or a list per field), ``report``'s reruns of stored
runs and the studies. A field added here is available in all of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from hetsched.errors import ConfigError, did_you_mean
from hetsched.models.contention import MODELS as CONTENTION_MODELS, check_contention
from hetsched.limits import MAX_TIME
from hetsched.options import (FAILURE_POLICIES, PLACEMENTS, TABLE_FORMATS, WALLTIME_RULES,
                              check_batsim_events,
                              check_estimate_factor, check_failure_trace, check_flag,
                              check_horizon, check_max_attempts, check_mtbf, check_number,
                              check_on_failure, check_placement, check_reference_speed,
                              check_table_format, check_walltime)

if TYPE_CHECKING:
    from hetsched.workload.swf import SwfOptions


#: ``option(before=...)`` left out: the option was there when results stores began.
_ORIGINAL = object()


def option(default: Any, check: Callable[[Any], Any], text: str, *, before: Any = _ORIGINAL,
           keyed_if_set: bool = False, path: bool = False, choices: tuple[str, ...] = (),
           output: bool = False) -> Any:
    """A run option: its ``default``, the ``check`` that returns its value or raises a one-line
    ConfigError, and its help ``text``. An option added after results stores began gives
    ``before``, what runs stored before it did (they hold NULL for it); ``keyed_if_set``: it
    joined a sweep run's identity later too, so it is part of the key only away from its
    default (stores made before it keep their keys); ``path``: its value is a file's path (a
    sweep file's is relative to the sweep file); ``choices``: the values ``check`` accepts, when
    they are a few names (the command line's help shows them); ``output``: it says how the run's
    files are written, not what is simulated, and is never part of a sweep run's identity."""
    metadata = {"check": check, "help": text, "keyed_if_set": keyed_if_set, "path": path,
                "choices": choices, "output": output}
    if before is not _ORIGINAL:
        metadata["before"] = before
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class RunOptions:
    """How one run is configured (each field's help: :meth:`help_text`). Checked when made: a bad
    value is a one-line :class:`~hetsched.errors.ConfigError` naming the option."""

    horizon: float | None = option(
        None, check_horizon, "Stop at this simulated time (s, >= 0); jobs not done are "
        "reported unfinished.")
    strict: bool = option(
        False, partial(check_flag, "strict"), "Fail on unusable trace records and "
        "never-fitting jobs instead of skipping/rejecting them.")
    swf_placement: str = option(
        "auto", check_placement, "SWF jobs: auto (one node if it fits the largest, else "
        "spread), single or spread.", choices=PLACEMENTS)
    reference_speed: float | None = option(
        None, check_reference_speed, "SWF and WfFormat: ops/s of the machine the trace's run "
        "times were measured on (default: the platform's slowest core).")
    estimate_factor: float = option(
        1.0, check_estimate_factor, "SWF: requested time = run time × this when a record has "
        "none.")
    contention: str | None = option(
        None, check_contention, "Contention model: none, irmasim, deside or "
        "deside_stochastic (default: the platform's; IRMaSim platforms use irmasim).",
        choices=tuple(CONTENTION_MODELS))
    walltime: str = option(
        "auto", check_walltime, "Walltime rule: kill (a job still running at start + "
        "walltime is killed, as Batsim does), ignore, or auto (kill for Batsim workloads, "
        "else ignore).", before="ignore", choices=WALLTIME_RULES)
    scale_delays: bool = option(
        False, partial(check_flag, "scale_delays"), "Run fixed-duration jobs "
        "(Batsim's delays) as work: their duration holds on the slowest node, faster nodes "
        "run them faster. Default: the same duration on every node, as in Batsim.",
        before=False, keyed_if_set=True)
    failures: str | None = option(
        None, check_failure_trace, "Failure trace file added to the platform's failures: "
        "a CSV file with the header node,start,end (nodes by name, times in s, end empty: "
        "never repaired) or a native platform file's failures list (what `generate "
        "failures` writes). Any platform format.", before=None, keyed_if_set=True, path=True)
    on_failure: str = option(
        "kill", check_on_failure, "What becomes of the jobs a node failure kills: kill (they "
        "end COMPLETED_KILLED) or requeue (pending again, run again from scratch).",
        before="kill", keyed_if_set=True, choices=FAILURE_POLICIES)
    max_attempts: int | None = option(
        None, check_max_attempts, "With --on-failure requeue: the most attempts a job "
        "makes; a job whose last one a failure kills ends COMPLETED_KILLED (default: no "
        "limit).", before=None, keyed_if_set=True)
    failure_mtbf: float | None = option(
        None, check_mtbf, "Draw a failure trace from the run's seed: each node's mean time "
        "between failures (s), up to the horizon, else the last submission + the longest "
        "job.", before=None, keyed_if_set=True)
    failure_mttr: float = option(
        3600.0, partial(check_number, "failure_mttr", positive=True, maximum=MAX_TIME),
        "With --failure-mtbf: the mean repair time (s).", before=3600.0, keyed_if_set=True)
    batsim_events: str | None = option(
        None, check_batsim_events, "Batsim external events file (Batsim's --events: JSON "
        "lines machine_unavailable / machine_available): machines take no new job from "
        "one to the other (running jobs are not killed). Any platform format; machines by "
        "Batsim's numbering (nodes sorted by name).", before=None, keyed_if_set=True,
        path=True)
    table_format: str = option(
        "csv", check_table_format, "How the run's tables are written: csv (jobs.csv, "
        "timeseries.csv) or parquet (jobs.parquet, timeseries.parquet: the same columns, "
        "typed; needs pyarrow: pip install 'hetsched[parquet]').", before="csv",
        choices=TABLE_FORMATS, output=True)

    def __post_init__(self) -> None:
        for spec in fields(self):
            object.__setattr__(self, spec.name, spec.metadata["check"](getattr(self, spec.name)))

    @classmethod
    def of(cls, base: RunOptions | None = None, **values: Any) -> RunOptions:
        """``base`` (default: the defaults) with ``values`` replacing its fields; an unknown
        name is a ConfigError with a "did you mean"."""
        names = [spec.name for spec in fields(cls)]
        for name in values:
            if name not in names:
                raise ConfigError(f"unknown run option '{name}'{did_you_mean(name, names)} "
                                  f"(options: {', '.join(names)})")
        return replace(base or cls(), **values)

    @classmethod
    def stored(cls, row: Mapping[str, Any]) -> RunOptions:
        """The options of a run as a results store holds them (one column each); a column the
        store lacks, or NULL, is what runs did before the option existed."""
        values = {}
        for spec in fields(cls):
            value = _plain(row.get(spec.name))
            if value is None:
                value = spec.metadata.get("before", spec.default)
            values[spec.name] = bool(value) if isinstance(spec.default, bool) else value
        return cls(**values)

    @staticmethod
    def help_text(name: str) -> str:
        """What option ``name`` does (the command line's help, the docs)."""
        return _META[name]["help"]

    @staticmethod
    def choices(name: str) -> tuple[str, ...]:
        """The values option ``name`` takes when they are a few names (else empty): the
        contention models those registered when the options were defined."""
        return _META[name]["choices"]

    def swf(self) -> SwfOptions:
        """How an SWF trace becomes jobs under these options."""
        from hetsched.workload.swf import SwfOptions

        return SwfOptions(self.swf_placement, self.reference_speed, self.estimate_factor,
                          self.strict)

    def recorded(self) -> dict[str, Any]:
        """Every option by name: what ``summary.json``'s ``options`` holds."""
        return asdict(self)

    def key(self) -> dict[str, Any]:
        """What a sweep run's identity holds of its options (see :func:`option`)."""
        values = asdict(self)
        return {name: value for name, value in values.items()
                if not _META[name]["output"]
                and not (_META[name]["keyed_if_set"] and value == _DEFAULTS[name])}


#: The run options' names, in order: one column each in a results store.
RUN_OPTIONS: tuple[str, ...] = tuple(spec.name for spec in fields(RunOptions))
_META = {spec.name: spec.metadata for spec in fields(RunOptions)}
#: The run options whose values are files' paths.
PATH_OPTIONS: frozenset[str] = frozenset(name for name in RUN_OPTIONS if _META[name]["path"])
#: The run options that say how a run's files are written (never part of its identity).
OUTPUT_OPTIONS: frozenset[str] = frozenset(name for name in RUN_OPTIONS
                                           if _META[name]["output"])
_DEFAULTS = {spec.name: spec.default for spec in fields(RunOptions)}


def _plain(value: Any) -> Any:
    """``None`` for a missing value (NULL, NaN); numpy scalars as Python values."""
    if hasattr(value, "item"):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value
