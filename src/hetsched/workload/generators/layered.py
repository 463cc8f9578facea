"""``dag_layered``: a layered random DAG of jobs, all submitted at 0 and released by their
parents.

The ``jobs`` jobs are split into ``depth`` layers as evenly as possible (the first layers get
one more when the split is uneven). An edge joins a job of one layer to a job of the next
with probability ``density``; a job of layer 2 or later that drew no parent gets one, drawn
uniformly from the layer before, so every job but the first layer's has at least one parent
and the graph is connected layer to layer. Edges join consecutive layers only, so the graph
is acyclic and its longest path has ``depth`` jobs.

Draws, in this order, from one ``numpy.random.default_rng(seed)``: the run times (uniform on
``runtime`` = [low, high] seconds, the run time on the reference core: the platform's slowest
unless a reference speed is given, as for every generator), the threads (``ntasks``, whole
numbers uniform on ``threads`` = [low, high]), then the edges layer by layer (a
``previous × current`` matrix of uniforms, then the missing parents). No requested time is
drawn: the estimate is the run time (times ``--estimate-factor``) and no walltime limits a
job. Job ids are ``1 … jobs``, layer by layer; every job's ``profile`` is ``dag_layered``.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from hetsched.fileio import StrictModel
from hetsched.limits import MAX_GRAPH_EDGES, MAX_GRAPH_TASKS, MAX_TASKS, MAX_TIME
from hetsched.workload.generators import Drawn, Generator
from hetsched.workload.generators.simple import Pair, ordered
from hetsched.workload.swf import COL, FIELDS


class Shape(StrictModel):
    """The shape of a layered DAG: its jobs, layers and edge probability."""

    jobs: Annotated[int, Field(ge=1, le=MAX_GRAPH_TASKS)]
    depth: Annotated[int, Field(ge=1, le=MAX_GRAPH_TASKS)] = 4
    density: Annotated[float, Field(ge=0, le=1)] = 0.3

    @model_validator(mode="after")
    def _size(self) -> Shape:
        if self.depth > self.jobs:
            raise ValueError(f"depth ({self.depth}) must be at most jobs ({self.jobs}): every "
                             "layer holds a job")
        widths = layer_widths(self.jobs, self.depth)
        expected = self.density * float(widths[:-1] @ widths[1:]) + self.jobs
        if expected > MAX_GRAPH_EDGES:
            raise ValueError(f"about {expected:,.0f} edges expected, more than "
                             f"{MAX_GRAPH_EDGES:,}: lower density or raise depth")
        return self


class LayeredParams(Shape):
    runtime: Annotated[list[float], Pair, ordered(1e-3, MAX_TIME)] = [60.0, 600.0]
    threads: Annotated[list[int], Pair, ordered(1, MAX_TASKS)] = [1, 8]


def layer_widths(jobs: int, depth: int) -> np.ndarray:
    """Jobs per layer: ``jobs`` split as evenly as possible, the first layers one more."""
    return np.full(depth, jobs // depth) + (np.arange(depth) < jobs % depth)


def draw_parents(shape: Shape, rng: np.random.Generator) -> np.ndarray:
    """Each job's parents (an object array of tuples of job ids ``"1"…``), drawn as the
    module's docstring says."""
    widths = layer_widths(shape.jobs, shape.depth)
    starts = np.concatenate(([0], np.cumsum(widths)))
    parents = np.empty(shape.jobs, dtype=object)
    parents[:widths[0]] = [()] * int(widths[0])
    for layer in range(1, shape.depth):
        before, width = int(widths[layer - 1]), int(widths[layer])
        linked = rng.random((before, width)) < shape.density
        orphans = np.flatnonzero(~linked.any(axis=0))
        linked[rng.integers(before, size=orphans.size), orphans] = True
        first_id = int(starts[layer - 1]) + 1
        for column in range(width):
            parents[starts[layer] + column] = tuple(
                str(first_id + row) for row in np.flatnonzero(linked[:, column]).tolist())
    return parents


def dag_table(run: np.ndarray, threads: np.ndarray) -> np.ndarray:
    """The SWF table of a DAG's jobs: ids 1…n, all submitted at 0, no requested time (so
    the estimate is the run time, and no walltime limits them)."""
    n = len(run)
    table = np.full((n, len(FIELDS)), -1.0)
    table[:, COL["job_number"]] = np.arange(1, n + 1)
    table[:, COL["submit_time"]] = 0.0
    table[:, COL["run_time"]] = run
    table[:, COL["allocated_processors"]] = threads
    table[:, COL["requested_processors"]] = threads
    table[:, COL["status"]] = 1  # no requested time: the estimate is the run time, no walltime
    return table


def dag_drawn(shape: Shape, rng: np.random.Generator, run: np.ndarray, threads: np.ndarray,
              **extra: np.ndarray) -> Drawn:
    """A DAG's draw: its table, the ``extra`` job fields, and the parents, drawn last."""
    return Drawn(dag_table(run, threads), {**extra, "parents": draw_parents(shape, rng)})


def draw_layered(params: LayeredParams, rng: np.random.Generator) -> Drawn:
    """The jobs of a layered random DAG and their parents."""
    run = rng.uniform(*params.runtime, params.jobs)
    threads = rng.integers(params.threads[0], params.threads[1], endpoint=True,
                           size=params.jobs)
    return dag_drawn(params, rng, run, threads, profile=np.full(params.jobs, "dag_layered"))


GENERATORS = (
    Generator("dag_layered", LayeredParams, draw_layered,
              "A layered random DAG: jobs in depth layers, edges between consecutive layers "
              "with probability density, uniform run times and threads; all submitted at 0",
              dag=True),
)
