"""Workload writers by format: a :class:`~hetsched.workload.model.Workload` to a file.

:data:`WRITERS` maps a format name to its :class:`Writer`; ``hetsched generate workload``
and ``hetsched convert`` use it. Each writer lists what its format cannot hold
(:class:`~hetsched.workload.writers.losses.Loss`); :func:`losses` says which of them a given
workload would lose. The SWF writer's primitive,
:func:`hetsched.workload.writers.swf.write_table`, also writes tables that are not workloads
(a generator's draw, a run's results: ``jobs.swf``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from pathlib import Path

from hetsched.errors import InputError
from hetsched.platform.model import Platform
from hetsched.registry import Entry, Registry
from hetsched.workload.model import Job, Workload, scale_delays
# the loss rules, for the writers: the package's name `losses` is the function below
from hetsched.workload.writers import losses as loss_rules  # noqa: F401 - a submodule

if TYPE_CHECKING:
    from hetsched.workload.writers.losses import Loss

#: ``write(workload, path, platform, header) -> path``; ``header``: provenance lines.
WriteFunction = Callable[[Workload, Path, Platform, Mapping[str, object]], Path]


@dataclass(frozen=True)
class Writer:
    """A format hetsched writes: its name, the file name ending it suggests, its function,
    what it cannot hold (``cannot_hold``), whether it holds fixed-duration jobs (Batsim's
    delays; :func:`write` turns them into work for the formats that do not), whether it
    holds ETC rows (``Job.etc``; :func:`write` drops them for the formats that do not) and
    whether it holds co-allocation requests (``Job.budget``, ``min_performance``,
    ``criterion``; the formats that do not simply write none)."""

    name: str
    suffix: str
    write: WriteFunction
    description: str
    cannot_hold: tuple["Loss", ...] = ()
    fixed_durations: bool = False
    etc_rows: bool = False
    requests: bool = False


def unwritable(workload: Workload, job: Job, fmt: str, what: str, limit: str) -> InputError:
    """The error for a job whose ``what`` (``"delay would be 3e+18"``) goes beyond ``limit``,
    what the format's reader takes: nothing is written (the file could not be read back)."""
    return InputError(workload.source, f"cannot be written as {fmt}: its {what}, beyond {limit}",
                      f"job {job.id}")


def _builtins() -> Iterator[Entry]:
    from hetsched.workload.writers import batsim, dssim, irmasim, native, swf

    for w in (swf.WRITER, native.WRITER, native.YAML_WRITER, batsim.WRITER, batsim.WRITER_V5,
              batsim.WRITER_PH, batsim.WRITER_PH_V5, irmasim.WRITER, dssim.WRITER):
        yield Entry(w.name, w)


#: The workload writers by format name (their modules are imported on first use).
WRITERS = Registry("workload format", __name__, _builtins)


def writer(name: str) -> Writer:
    """The writer of format ``name``, or a ConfigError listing the known ones."""
    return WRITERS.load(name)


def prepared(chosen: Writer, workload: Workload, platform: Platform) -> Workload:
    """What ``chosen`` writes of ``workload``: in a format without fixed durations, each is the
    work that takes that long on the platform's slowest core (:func:`scale_delays`); in a
    format without ETC rows, each job is its work alone (:func:`drop_etc`): losses
    :func:`losses` lists; the writers themselves only ever see what they hold."""
    if not chosen.etc_rows:
        workload = drop_etc(workload)
    if chosen.fixed_durations:
        return workload
    return scale_delays(workload, platform.slowest_speed)


def drop_etc(workload: Workload) -> Workload:
    """``workload`` without its jobs' ETC rows: each job its ``req_ops`` and ``req_time``."""
    if not any(job.etc for job in workload.jobs):
        return workload
    return replace(workload, jobs=tuple(replace(job, etc=()) if job.etc else job
                                        for job in workload.jobs))


def write(chosen: Writer, workload: Workload, path: Path, platform: Platform,
          header: Mapping[str, object]) -> Path:
    """Write ``workload`` with ``chosen`` (:func:`prepared` first)."""
    return chosen.write(prepared(chosen, workload, platform), path, platform, header)


def losses(chosen: Writer, workload: Workload, platform: Platform) -> list[str]:
    """What writing ``workload`` with ``chosen`` would lose, one line per kind of loss
    (``"3 of 10 jobs have parents: Batsim JSON has no dependencies"``); empty if nothing."""
    from hetsched.workload.writers.losses import etc_rows, fixed_durations, requests

    fmt = f"the {chosen.name} format"
    found = [(loss, loss.count(workload, platform)) for loss in
             ([] if chosen.fixed_durations else [fixed_durations(fmt)])
             + ([] if chosen.etc_rows else [etc_rows(fmt)])
             + ([] if chosen.requests else [requests(fmt)])]
    written = prepared(chosen, workload, platform)
    found += [(loss, loss.count(written, platform)) for loss in chosen.cannot_hold]
    return [f"{count} of {len(workload.jobs)} jobs {loss.what}: {loss.effect}"
            for loss, count in found if count]
