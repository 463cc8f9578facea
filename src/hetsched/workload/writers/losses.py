"""What a workload format cannot hold, job by job: a :class:`Loss` says which jobs it
concerns (``lost``) and what becomes of their value (``effect``). Writers list theirs in
:attr:`~hetsched.workload.writers.Writer.cannot_hold`; the helpers here build the common ones
so that each rule is written once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hetsched.models.speed import run_time
from hetsched.platform.model import Platform
from hetsched.workload.model import SPREAD, Job, Workload


@dataclass(frozen=True)
class Loss:
    """``count(workload, platform)`` jobs have ``what`` (``"have parents"``), which the format
    cannot keep: ``effect`` says what is written instead."""

    what: str
    count: Callable[[Workload, Platform], int]
    effect: str

    @staticmethod
    def each(what: str, lost: Callable[[Job, Platform], bool], effect: str) -> "Loss":
        """A loss of the jobs for which ``lost(job, platform)`` holds."""
        return Loss(what, lambda w, p: sum(1 for j in w.jobs if lost(j, p)), effect)


def whole(value: float) -> bool:
    return float(value).is_integer()


def slowest_run_time(job: Job, platform: Platform) -> float:
    """The job's run time on the platform's slowest core: what SWF and Batsim write."""
    return run_time(job, platform.slowest_speed)


def fixed_durations(fmt: str) -> Loss:
    return Loss.each("are fixed durations (Batsim's delays)", lambda j, p: j.fixed_duration,
                     f"{fmt} has none: written as the work that takes that long on the slowest "
                     "core, faster on faster ones")


def etc_rows(fmt: str) -> Loss:
    return Loss.each("have an ETC row (run times per node type)", lambda j, p: bool(j.etc),
                     f"{fmt} has none: dropped, each job keeps its work (req_ops) and "
                     "estimate (req_time)")


def requests(fmt: str) -> Loss:
    return Loss.each("have a co-allocation request (budget, min_performance, criterion)",
                     lambda j, p: (j.budget is not None or j.min_performance != 0
                                   or j.criterion is not None),
                     f"{fmt} has none: dropped")


def parents(fmt: str) -> Loss:
    return Loss.each("have parents", lambda j, p: bool(j.parents), f"{fmt} has no dependencies")


def disk(fmt: str) -> Loss:
    return Loss.each("need disk", lambda j, p: j.job_disk_mb != 0,
                     f"{fmt} has no disk field: dropped")


def _dropped(what: str, field: str, default: float, fmt: str,
             place: str = "field for it") -> Loss:
    """Jobs whose ``field`` differs from ``default``: the format has no ``place`` for it."""
    return Loss.each(what, lambda j, p: getattr(j, field) != default,
                     f"{fmt} has no {place}: dropped")


def memory(fmt: str) -> Loss:
    return _dropped("need memory", "job_memory_mb", 0, fmt, "memory field")


def mem_bw(fmt: str) -> Loss:
    return _dropped("have a memory bandwidth (mem_bw_gbs)", "mem_bw_gbs", 0, fmt)


def mem_vol(fmt: str) -> Loss:
    return _dropped("have a memory volume (mem_vol)", "mem_vol", 0, fmt)


def cpu_util(fmt: str) -> Loss:
    return _dropped("have cpu_util below 1", "cpu_util", 1, fmt)


def cpu_util_sd(fmt: str) -> Loss:
    return _dropped("have a CPU utilisation deviation (cpu_util_sd)", "cpu_util_sd", 0, fmt)


def ipc(fmt: str) -> Loss:
    return Loss.each("have ipc other than 1", lambda j, p: j.ipc != 1,
                f"{fmt} has no ipc: folded into the work (ipc 1)")


def profile(fmt: str, reads_as: str) -> Loss:
    return Loss.each(f"have a profile label other than '{reads_as}'",
                lambda j, p: j.profile not in ("", reads_as),
                f"{fmt} has no labels: read back as '{reads_as}'")


def not_whole(what: str, value: Callable[[Job, Platform], float], fmt: str) -> Loss:
    """Jobs whose ``value`` is not a whole number, which ``fmt`` rounds."""
    return Loss.each(f"have {what} that are not whole numbers", lambda j, p: not whole(value(j, p)),
                f"{fmt} holds integers: rounded")


def nodes_other_than(expected: Callable[[Job, Platform], int], rule: str, fmt: str) -> Loss:
    """Jobs whose node count is not the one ``fmt``'s reader gives them (``rule``)."""
    return Loss.each("have a node count the format does not give",
                lambda j, p: j.nodes != expected(j, p), f"{fmt} reads {rule}")


def spread(job: Job, platform: Platform) -> int:
    return SPREAD
