"""The batch-mapping study of the 2023 thesis that added Min-min, Max-min, Duplex and A* to
IRMaSim: 512 single-task jobs all submitted at time 0 on 16 single-core nodes whose clocks are
drawn per node, at low and at high heterogeneity, several seeds.

Per seed ``s``: ``numpy.random.default_rng(s)`` draws the node clocks (in band order, uniform
within each band), then the jobs' requested times (uniform in [100, 3000] s). Requested times
refer to a reference speed, by default the platform's slowest node (the project convention, as
the issue states it); ``reference_ghz`` names another one (e.g. 1 GHz, the bottom of the
slowest band). Estimates are exact: the run time on the reference equals the request. The
schedulers get seed ``s`` too (random choices).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from hetsched.metrics import summarize
from hetsched.platform.model import Node, NodeType, Platform
from hetsched.platform.generate import CLOCK_BANDS
from hetsched.run.execute import run_simulation
from hetsched.workload.model import Job, Workload

#: The thesis' schedulers, by hetsched name (first-fit is FCFS to the first free node).
SCHEDULERS: tuple[str, ...] = (
    "fcfs", "random-random", "shortest-high_gflops", "longest-high_gflops", "min_min",
    "max_min", "duplex", "astar:node_limit=128", "astar")

#: The metrics the study reports, as keys of :func:`hetsched.metrics.summarize`.
METRICS: tuple[str, ...] = ("makespan", "mean_wait", "mean_slowdown", "mean_bounded_slowdown")


@dataclass(frozen=True)
class StudySettings:
    jobs: int = 512
    min_request: float = 100.0
    max_request: float = 3000.0
    reference_ghz: float | None = None


def study_platform(level: str, rng: np.random.Generator) -> Platform:
    """16 single-core nodes with clocks drawn uniformly in the bands of ``level``."""
    nodes = []
    for count, low, high in CLOCK_BANDS[level]:
        for clock in rng.uniform(low, high, size=count):
            name = f"n{len(nodes)}"
            nodes.append(Node(len(nodes), name, NodeType(name, 1, float(clock)), "cluster0"))
    return Platform(f"{level}-heterogeneity", tuple(nodes))


def study_workload(platform: Platform, rng: np.random.Generator,
                   settings: StudySettings = StudySettings()) -> Workload:
    """``settings.jobs`` single-task jobs at time 0 with uniform requested times."""
    reference = (platform.slowest_speed if settings.reference_ghz is None
                 else settings.reference_ghz * 1e9)
    requests = rng.uniform(settings.min_request, settings.max_request, size=settings.jobs)
    ops = requests * reference
    # req_time is the run time on the slowest node, whatever the reference
    jobs = tuple(Job(f"j{i}", 0.0, 1, float(o), float(o / platform.slowest_speed))
                 for i, o in enumerate(ops))
    return Workload("batch-512", jobs)


def run_study(seeds: Iterable[int], levels: Iterable[str] = ("low", "high"),
              schedulers: Iterable[str] = SCHEDULERS, settings: StudySettings = StudySettings(),
              progress: Callable[[], None] | None = None) -> list[dict[str, object]]:
    """One row per (level, seed, scheduler): the metrics of :data:`METRICS`."""
    rows: list[dict[str, object]] = []
    schedulers = list(schedulers)
    for level in levels:
        for seed in seeds:
            rng = np.random.default_rng(seed)
            platform = study_platform(level, rng)
            workload = study_workload(platform, rng, settings)
            for name in schedulers:
                summary = summarize(run_simulation(platform, workload, name, seed,
                                                   timeseries=False))
                rows.append({"level": level, "seed": seed, "scheduler": name,
                             **{metric: summary[metric] for metric in METRICS},
                             "finished": summary["finished"]})
                if progress is not None:
                    progress()
    return rows


def aggregate(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Mean and standard deviation over seeds, per (level, scheduler), in first-seen order."""
    groups: dict[tuple[object, object], list[dict[str, object]]] = {}
    for row in rows:
        groups.setdefault((row["level"], row["scheduler"]), []).append(row)
    out = []
    for (level, scheduler), members in groups.items():
        entry: dict[str, object] = {"level": level, "scheduler": scheduler,
                                    "seeds": len(members)}
        for metric in METRICS:
            values = np.array([m[metric] for m in members], dtype=float)
            entry[metric] = float(values.mean())
            entry[f"{metric}_std"] = float(values.std(ddof=1)) if values.size > 1 else 0.0
        out.append(entry)
    return out
