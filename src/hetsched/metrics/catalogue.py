"""Every metric hetsched reports, declared once: its key, unit, which values are better, its
label and format in tables, and its definition. ``summarize``'s keys, ``summary.json``'s
``units``, the CLI tables, the results store's columns, ``report.compare`` and the HTML report
read them here; docs/metrics.md's tables are printed from them (``python -m
hetsched.metrics.catalogue``) and a test checks the two agree.

Adding a metric: a :class:`Metric` in :data:`SUMMARY` (computed by ``summarize``, in the same
order) or :data:`TIMINGS`, then the doc's table printed again. Nothing else guesses what a
metric is: a name that is not declared is a one-line ``ConfigError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from hetsched.errors import ConfigError, did_you_mean
from hetsched.metrics.formats import (fmt_core_seconds, fmt_count, fmt_joule_seconds,
                                      fmt_joules, fmt_percent, fmt_percent_2, fmt_ratio,
                                      fmt_seconds, fmt_wall_seconds)


class Direction(StrEnum):
    """Which values of a metric are better: the lower, the higher, or neither (counts that
    describe the inputs, such as records skipped: no run wins on them)."""

    LOWER = "lower"
    HIGHER = "higher"
    NEUTRAL = "neutral"

    def best(self, values: Iterable[float]) -> float | None:
        """The best of ``values`` (missing values already left out): the lowest or the
        highest; ``None`` for a neutral metric or no value."""
        values = list(values)
        if self is Direction.NEUTRAL or not values:
            return None
        return min(values) if self is Direction.LOWER else max(values)


LOWER, HIGHER, NEUTRAL = Direction.LOWER, Direction.HIGHER, Direction.NEUTRAL


@dataclass(frozen=True)
class Metric:
    """One metric. ``unit``: ``count``, ``s``, ``J``, …; ``fraction`` (a share between 0 and
    1, never a percent) and ``ratio`` (a multiple) are plain numbers. ``format``: the value as
    a table shows it (``—`` when missing). ``optional``: a table leaves the row out when no
    run has a value (ds-sim's metrics exist only on platforms with on-demand nodes).
    ``reproducible``: ``False`` for timings of the simulation itself, which differ between
    runs of the same inputs: a table highlights no best value of them."""

    key: str
    unit: str
    direction: Direction
    label: str
    format: Callable[[float], str]
    description: str
    optional: bool = False
    reproducible: bool = True


class Catalogue(Mapping[str, Metric]):
    """Metrics by key, in order. ``catalogue[key]`` for a key the code knows;
    :meth:`find` for a name a user gave (a one-line error if it is not declared)."""

    def __init__(self, metrics: Iterable[Metric]) -> None:
        self._metrics = {m.key: m for m in metrics}

    def __getitem__(self, key: str) -> Metric:
        return self._metrics[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def find(self, name: str) -> Metric:
        """The metric ``name``; a :class:`ConfigError` with a "did you mean" if none is."""
        if name not in self._metrics:
            raise ConfigError(f"unknown metric '{name}'{did_you_mean(name, list(self))} "
                              f"(declared: {', '.join(self)})")
        return self._metrics[name]

    def renamed(self, names: Mapping[str, str]) -> Catalogue:
        """The metrics of ``names`` (new name → key here) under their new names: the
        declarations of a table that renames columns, such as a study's ``results.csv``
        (``{"energy": "energy_j"}``)."""
        return Catalogue(replace(self.find(key), key=name) for name, key in names.items())


def _count(key: str, direction: Direction, label: str, description: str,
           optional: bool = False) -> Metric:
    return Metric(key, "count", direction, label, fmt_count, description, optional)


def _seconds(key: str, label: str, description: str) -> Metric:
    return Metric(key, "s", LOWER, label, fmt_seconds, description)


def _ratio(key: str, label: str, description: str) -> Metric:
    return Metric(key, "ratio", LOWER, label, fmt_ratio, description)


#: What ``summarize`` returns, in its order (``summary.json``'s ``metrics`` and ``units``,
#: the results store's metric columns).
SUMMARY: tuple[Metric, ...] = (
    _count("jobs", NEUTRAL, "jobs",
           "jobs in the workload (records skipped by the loader are not jobs)"),
    _count("finished", HIGHER, "jobs finished",
           "jobs that ran to their end. `finished`, `rejected`, `unfinished`, `killed`, "
           "`failed_kills` and `not_submitted` (the job end states, below) add up to `jobs`"),
    _count("rejected", LOWER, "jobs rejected",
           "jobs that never fit on the platform, that the scheduler rejected, or whose "
           "parent was rejected or did not finish"),
    _count("unfinished", LOWER, "jobs unfinished",
           "jobs submitted but still pending, queued or running when the run ended (at the "
           "horizon, or never started by the scheduler)"),
    _count("not_submitted", NEUTRAL, "jobs not submitted",
           "jobs submitted after the horizon (`--horizon`): never seen by the scheduler, "
           "not in `unfinished`; `jobs.csv` gives them `final_state` `UNFINISHED` with the "
           "reason \"not submitted before the horizon\". 0 without a horizon"),
    _count("killed", LOWER, "jobs killed",
           "jobs killed at their walltime (`--walltime kill`). They are not finished: the "
           "means over finished jobs leave them out, as they leave out rejected jobs"),
    _count("failed_kills", LOWER, "jobs killed by failures",
           "jobs killed when one of their nodes failed (`final_state` `COMPLETED_KILLED`; "
           "the reason names the node and the time). Not finished, not in `killed`. No "
           "value (`null`) on a platform without failures that killed none",
           optional=True),
    _count("requeued", NEUTRAL, "attempts requeued",
           "attempts killed by failures that went back to pending (`--on-failure requeue`; "
           "0 under `kill`). A job's attempts are `jobs.csv`'s `attempts`. No value (`null`) "
           "on a platform without failures that killed none", optional=True),
    Metric("work_lost", "core*s", LOWER, "work lost (core·s)", fmt_core_seconds,
           "Σ over the attempts failures killed (requeued or ended) of (kill time − attempt "
           "start) × cores, also in `busy_core_seconds`. No value as `requeued`", optional=True),
    _count("skipped_records", NEUTRAL, "records skipped",
           "input records the loader could not turn into jobs (listed in `summary.json`); "
           "the same for every scheduler"),
    _seconds("makespan", "makespan",
             "`t_end − t0`: last end − first submit (an end: a job's, or an attempt's a "
             "failure killed and requeued; horizon − first submit when cut: "
             "`summary.json`'s `makespan_cut` is then `true` and the tables show `≥`)"),
    _seconds("mean_wait", "mean wait", "mean wait over **finished** jobs"),
    _seconds("median_wait", "median wait", "median wait over finished jobs"),
    _seconds("max_wait", "max wait", "maximum wait over finished jobs"),
    _seconds("mean_turnaround", "mean turnaround", "mean response over finished jobs"),
    _ratio("mean_slowdown", "mean slowdown", "mean slowdown over finished jobs with `run > 0`"),
    _ratio("mean_bounded_slowdown", "mean bounded slowdown",
           "mean bounded slowdown over finished jobs"),
    _ratio("max_bounded_slowdown", "max bounded slowdown",
           "maximum bounded slowdown over finished jobs"),
    _ratio("mean_het_slowdown", "mean het. slowdown",
           "mean heterogeneous slowdown over finished jobs with `t_base > 0`"),
    Metric("utilisation", "fraction", HIGHER, "utilisation", fmt_percent,
           "`busy_core_seconds / (total_cores · makespan)`, 0 when the makespan is 0"),
    Metric("energy_j", "J", LOWER, "energy", fmt_joules,
           "Σ over nodes of the exact integral of the node's power over the window. Missing "
           "when the platform has no power model (below)"),
    Metric("edp_js", "J*s", LOWER, "EDP (J·s)", fmt_joule_seconds,
           "energy-delay product `energy_j · makespan`; missing with the energy"),
    Metric("rental_cost", "currency", LOWER, "rental cost (price units)", fmt_ratio,
           "`Σ over nodes of hourly_price · charged_seconds / 3600`, in the unit of the "
           "platform's hourly prices (the tables say \"price units\": hetsched knows no "
           "currency). `charged_seconds` is the whole window (makespan) for "
           "every node, unless the platform has on-demand nodes (ds-sim's servers; "
           "`SimResult.node_charged_seconds`): such a node is charged from boot completion to "
           "its last job's end, and nothing if no job used it. Absent (`null`, \"—\") when "
           "no node type has a price, like energy without a power model"),
    Metric("total_cost", "currency", LOWER, "total job cost (price units)", fmt_ratio,
           "Σ over jobs of what each job paid for the nodes it held (`jobs.csv` `cost`: for "
           "each node of its allocation, the time it held it × the node's price per second × "
           "its tasks there / the node's slots); jobs killed or still running at the end pay "
           "for the time they held their nodes, jobs that never ran pay 0. At most "
           "`rental_cost`: idle node time is paid by no job. Absent when no node type has a "
           "price", optional=True),
    Metric("mean_cost", "currency", LOWER, "mean job cost (price units)", fmt_ratio,
           "mean of `cost` over finished jobs; absent when no node type has a price",
           optional=True),
    Metric("busy_core_seconds", "core*s", LOWER, "busy core·s", fmt_core_seconds,
           "Σ over nodes of the integral of the node's busy cores over the window"),
    Metric("dssim_turnaround", "s", LOWER, "ds-sim turnaround", fmt_count,
           "ds-sim's average turnaround: `⌊mean wait⌋ + ⌊mean run⌋` over finished jobs (each "
           "mean truncated to whole seconds). Missing (`null`) for platforms without "
           "on-demand nodes (no per-node charged time)", optional=True),
    Metric("dssim_utilisation", "fraction", HIGHER, "ds-sim utilisation", fmt_percent_2,
           "ds-sim's utilisation (ds-sim prints it in percent): for each node with charged "
           "time, `busy_seconds / charged_seconds` (busy = time with at least one busy "
           "core), averaged unweighted over those nodes. Missing for platforms without "
           "on-demand nodes", optional=True),
)

#: Timings of the simulation itself, beside the summary: in ``hetsched run``'s and
#: ``compare``'s output (``wall_seconds``, ``jobs_per_second``) and the results store
#: (``wall_seconds``, ``run_seconds``).
TIMINGS: tuple[Metric, ...] = (
    Metric("wall_seconds", "s", LOWER, "wall time", fmt_wall_seconds,
           "the simulation's wall time (the engine's loop)", reproducible=False),
    Metric("jobs_per_second", "jobs/s", HIGHER, "jobs/s", fmt_count,
           "jobs simulated per wall second: `jobs / wall_seconds`", reproducible=False),
    Metric("run_seconds", "s", LOWER, "run wall time", fmt_wall_seconds,
           "a sweep's whole run in its worker: scheduler, simulation, metrics, job records",
           reproducible=False),
)

#: Measures of a task graph's schedule on the classic model (``hetsched dag``; Topcuoglu et
#: al. 2002, §5.1), beside its ``makespan``, ``lower_bound`` and ``seconds``.
GRAPH: tuple[Metric, ...] = (
    _ratio("slr", "SLR", "schedule length ratio: the makespan over the length of `CP_MIN`, "
           "the longest path with every task at its least cost and no data moved (>= 1)"),
    Metric("speedup", "ratio", HIGHER, "speedup", fmt_ratio,
           "the shortest time one processor runs every task in (the least column sum of the "
           "costs) over the makespan"),
    Metric("efficiency", "fraction", HIGHER, "efficiency", fmt_percent,
           "the speedup per processor"),
)

#: Every metric, by key.
METRICS = Catalogue((*SUMMARY, *TIMINGS, *GRAPH))
#: The unit of every key ``summarize`` returns (``summary.json``'s ``units``).
UNITS: dict[str, str] = {m.key: m.unit for m in SUMMARY}

#: The rows of ``hetsched run``'s and ``compare``'s tables.
RUN_TABLE: tuple[str, ...] = (
    "makespan", "mean_wait", "median_wait", "max_wait", "mean_turnaround", "mean_slowdown",
    "mean_bounded_slowdown", "max_bounded_slowdown", "mean_het_slowdown", "utilisation",
    "energy_j", "edp_js", "rental_cost", "total_cost", "mean_cost", "dssim_turnaround",
    "dssim_utilisation", "finished", "rejected", "unfinished", "not_submitted", "killed",
    "failed_kills", "requeued", "work_lost", "skipped_records")
#: The simulator's own speed: a footer line under ``hetsched run``'s and ``compare``'s
#: tables, not metric rows (the CSV and JSON outputs keep them as values).
RUN_FOOTER: tuple[str, ...] = ("wall_seconds", "jobs_per_second")
#: The metrics ``hetsched report`` shows by default (those with a value).
REPORT_METRICS: tuple[str, ...] = ("makespan", "mean_wait", "mean_bounded_slowdown",
                                   "mean_het_slowdown", "utilisation", "energy_j", "edp_js")
#: The metric columns of ``hetsched results``'s table (CSV and JSON have every column).
RESULTS_TABLE: tuple[str, ...] = ("makespan", "mean_wait", "mean_bounded_slowdown",
                                  "utilisation", "energy_j", "wall_seconds")


def markdown(metrics: Iterable[Metric]) -> str:
    """docs/metrics.md's table of ``metrics``: key, unit, definition, which values are better."""
    rows = [f"| `{m.key}` | {m.unit} | {m.description} | {m.direction} |" for m in metrics]
    return "\n".join(["| key | unit | definition | better |", "|---|---|---|---|", *rows])


if __name__ == "__main__":
    print(markdown(SUMMARY), markdown(TIMINGS), markdown(GRAPH), sep="\n\n")
