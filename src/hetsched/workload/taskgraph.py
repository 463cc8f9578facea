"""Task graphs as workloads: the textbook JSON DAGs (Topcuoglu et al. 2002, Arabnejad &
Barbosa 2014) and Kasahara's STG files, parsed by :mod:`hetsched.mapping.dag_io`.

Every task becomes a job of one task, submitted at 0, named by its id, whose parents are the
tasks its in-edges come from.

- **Textbook JSON**: the costs are unrelated (task 1 costs 14, 16 and 9 on P1, P2 and P3), so
  each job carries them as its ETC row, keyed by the processors' names (``P1``, ``P2``, ...:
  the node types of :func:`hetsched.platform.textbook.textbook_platform`, the same file read
  as a platform); ``req_time`` is the row's largest cost and ``req_ops`` that many seconds on
  the platform's slowest core. Every cost must be above 0.
- **STG**: processors are identical, so a task's ``time`` is plain work, ``time`` seconds on the
  platform's slowest core (``req_ops = time · slowest``, ``req_time = time``), on any platform;
  the dummy entry and exit tasks (time 0) are kept, as the published makespans count them.

The engine moves no data (as for WfFormat's files): a textbook graph's communication costs are
kept in ``Workload.metadata["edge_data"]`` (``{child: {parent: data}}``, edges of data 0 left
out), and a note, reported as an input warning, says they are not simulated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hetsched.mapping.dag_io import processor_name, read_stg
from hetsched.mapping.graph import TaskGraph
from hetsched.models.speed import work
from hetsched.platform.model import Platform
from hetsched.platform.textbook import simulated_graph
from hetsched.workload.model import Job, Workload


def textbook_workload(data: Any, path: Path, platform: Platform) -> Workload:
    """The jobs of the textbook graph in ``data`` (the document of ``path``), with ETC rows."""
    graph = simulated_graph(data, path)
    types = [processor_name(p) for p in range(graph.processors)]
    rows = [tuple(zip(types, costs)) for costs in graph.cost.tolist()]
    edges = _edge_data(graph)
    total = sum(data for parents in edges.values() for data in parents.values())
    count = sum(len(parents) for parents in edges.values())
    notes = (f"{count} dependencies carry communication costs ({total:g} in all): read, not "
             "simulated (hetsched models no data transfer)",) if count else ()
    return Workload(graph.name, _jobs(graph, rows, platform), str(path),
                    metadata={"edge_data": edges}, notes=notes)


def stg_workload(path: Path, platform: Platform) -> Workload:
    """The jobs of the STG file ``path``: plain work, on any platform."""
    graph = read_stg(path, 1)
    return Workload(graph.name, _jobs(graph, [()] * graph.tasks, platform), str(path))


def _jobs(graph: TaskGraph, rows: list[tuple[tuple[str, float], ...]],
          platform: Platform) -> tuple[Job, ...]:
    """One job per task; with an ETC row, its estimate is the row's largest cost, else the
    task's (only) cost; its work is that many seconds on the platform's slowest core."""
    slowest = platform.slowest_speed
    jobs = []
    for task, (name, row) in enumerate(zip(graph.names, rows)):
        seconds = float(graph.cost[task].max())
        jobs.append(Job(id=name, submit=0.0, ntasks=1, req_ops=work(seconds, 1.0, slowest),
                        req_time=seconds,
                        parents=tuple(graph.names[parent] for parent, _ in graph.parents[task]),
                        etc=row))
    return tuple(jobs)


def _edge_data(graph: TaskGraph) -> dict[str, dict[str, float]]:
    """The data each edge carries, by child then parent (edges of data 0 left out)."""
    edges: dict[str, dict[str, float]] = {}
    for parent, child, data in graph.edges:
        if data:
            edges.setdefault(graph.names[child], {})[graph.names[parent]] = float(data)
    return edges
