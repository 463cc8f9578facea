"""Splitting one workload into independent parts: by week, by day, or by job count.

A trace's time 0 is its own origin (SWF: the start of the log, ``UnixStartTime``). Part ``k``
of a ``week`` split holds the jobs submitted in ``[k·604800, (k+1)·604800)`` s, of a ``day``
split those in ``[k·86400, (k+1)·86400)`` s; each part is rebased so that its period starts at
time 0 (time-of-day and day-of-week stay where they were). Part ``k`` of an ``N jobs`` split
holds jobs ``k·N`` to ``(k+1)·N − 1`` in submission order, rebased so that its first job is
submitted at 0; of an ``N jobs every S`` split (overlapping windows when S < N) jobs ``k·S``
to ``k·S + N − 1``, the last part being the first that reaches the last job. Periods without
a job give no part, so part numbers follow the calendar and may have gaps. Every part is
simulated on its own until its last job ends.

A part keeps its jobs' ids and the trace's header (``Workload.metadata``); the records the
loader skipped belong to the whole trace and are left out of every part. A job whose parent
falls in another part cannot be simulated apart from it: such a split is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from hetsched.errors import ConfigError
from hetsched.workload.model import Job, Workload

#: Seconds in each calendar split.
PERIODS = {"week": 7 * 86400.0, "day": 86400.0}
_JOBS = re.compile(r"([0-9]{1,9}) jobs(?: every ([0-9]{1,9}))?")


@dataclass(frozen=True)
class Split:
    """How to cut a workload: ``period`` seconds per part, or ``jobs`` jobs per part, a
    part starting every ``stride`` jobs (``None``: every ``jobs``)."""

    label: str
    period: float | None = None
    jobs: int | None = None
    stride: int | None = None

    @classmethod
    def parse(cls, text: str) -> Split:
        """``"week"``, ``"day"``, ``"<N> jobs"`` (e.g. ``"500 jobs"``, N >= 1) or ``"<N> jobs
        every <S>"`` (1 <= S <= N)."""
        if text in PERIODS:
            return cls(text, period=PERIODS[text])
        match = _JOBS.fullmatch(text)
        stride = None if match is None or match[2] is None else int(match[2])
        if (match is None or int(match[1]) < 1
                or (stride is not None and not 1 <= stride <= int(match[1]))):
            raise ConfigError(f"a split is week, day or '<N> jobs' with N >= 1 (e.g. "
                              f"'500 jobs'), or '<N> jobs every <S>' with 1 <= S <= N, got "
                              f"{text!r}")
        return cls(text, jobs=int(match[1]), stride=stride)


@dataclass(frozen=True)
class Part:
    """Part number ``index`` of a split workload; ``start`` is the trace time that became 0.
    A workload that is not split is one part with index ``None``."""

    index: int | None
    start: float
    workload: Workload


def split_workload(workload: Workload, split: Split) -> list[Part]:
    """The non-empty parts of ``workload``, in order."""
    if split.stride is not None:
        return _windows(workload, split, split.jobs, split.stride)  # type: ignore[arg-type]
    groups: dict[int, list[Job]] = {}
    for position, job in enumerate(workload.jobs):
        key = (int(job.submit // split.period) if split.period is not None
               else position // split.jobs)  # type: ignore[operator]
        groups.setdefault(key, []).append(job)
    parts = []
    for index, jobs in groups.items():
        start = index * split.period if split.period is not None else jobs[0].submit
        parts.append(_part(workload, split, index, start, jobs))
    return parts


def _windows(workload: Workload, split: Split, size: int, stride: int) -> list[Part]:
    """Windows of ``size`` jobs starting every ``stride`` jobs, up to the first that reaches
    the last job."""
    jobs, parts = list(workload.jobs), []
    for index, first in enumerate(range(0, len(jobs), stride)):
        window = jobs[first:first + size]
        parts.append(_part(workload, split, index, window[0].submit, window))
        if first + size >= len(jobs):
            break
    return parts


def _part(workload: Workload, split: Split, index: int, start: float,
          jobs: list[Job]) -> Part:
    ids = {job.id for job in jobs}
    for job in jobs:
        outside = next((p for p in job.parents if p not in ids), None)
        if outside is not None:
            raise ConfigError(f"workload '{workload.name}' cannot be split by {split.label}: "
                              f"job '{job.id}' depends on '{outside}', which is in another part")
    rebased = tuple(replace(job, submit=job.submit - start + 0.0) for job in jobs)
    name = f"{workload.name} {split.label} {index}"
    return Part(index, start, Workload(name, rebased, workload.source,
                                       metadata=dict(workload.metadata)))
