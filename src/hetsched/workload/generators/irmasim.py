"""The IRMaSim-style synthetic model: the distributions of the shared ``irmasim_synth``
workload (1,000 jobs that IRMaSim itself ran; ``/work/shared/data/irmasim_synth``), as
``benchmarks/make_irmasim_synth.py`` read them off that file.

IRMaSim has no synthetic workload generator of its own: its workloads are traces converted by
``utils/swf2irmasim_workload.py`` (``req_ops = run time × frequency``, ``ipc`` 1, ``mem`` and
``mem_vol`` 0) or, in its HDeepRM predecessor, SWF records whose missing fields are drawn
(``hdeeprm/util.py``). This model draws every field, in this order from one generator:

- arrivals: Poisson, the first job one gap after 0; the mean gap is set so that the offered
  load ``Σ ntasks · req_ops / (span · capacity)`` is ``load`` (``capacity``: ops/s of every
  core of the platform together; default, the ``irmasim_synth`` platform's 6.7072e12);
- ``ntasks``: 1, 2, 4, 8, 16, 32 with probabilities 0.38, 0.20, 0.18, 0.12, 0.07, 0.05;
- run time on the reference core (``reference_speed``, default 8e9 ops/s, that platform's
  slowest): log-uniform on ``runtime`` = [10 s, 3 h];
- requested time: run time × U(``estimate``), [1, 3];
- ``mem``: uniform whole MB per task in ``mem_mb`` = [100, 4000];
- memory traffic: ``mem_vol = bandwidth × run time``, the bandwidth log-uniform on
  ``bandwidth`` = [50, 8000] (IRMaSim's ``mem_vol`` units per second).

``mem_vol`` has no SWF field: it is drawn as an extra column (:class:`Drawn`), so this
generator's jobs are written as native JSON, not SWF. The values are not rounded (the
benchmark script rounds them as the shared file does).
"""

from __future__ import annotations

import math
from typing import Annotated

import numpy as np
from pydantic import Field, model_validator

from hetsched.fileio import StrictModel
from hetsched.limits import (MAX_GENERATED_JOBS, MAX_MEM_VOL, MAX_MEMORY_MB, MAX_SPEED, MAX_TASKS,
                             MAX_TIME)
from hetsched.workload.generators import Drawn, Generator
from hetsched.workload.generators.simple import Pair, log_uniform, ordered
from hetsched.options import MAX_ESTIMATE_FACTOR
from hetsched.workload.swf import COL, FIELDS

NTASKS = np.array([1, 2, 4, 8, 16, 32])
NTASKS_P = np.array([0.38, 0.20, 0.18, 0.12, 0.07, 0.05])


class IrmasimParams(StrictModel):
    jobs: Annotated[int, Field(ge=1, le=MAX_GENERATED_JOBS)]
    load: Annotated[float, Field(gt=0, le=1e6)] = 0.5
    capacity: Annotated[float, Field(gt=0, le=MAX_SPEED * MAX_TASKS)] = 6.7072e12
    reference_speed: Annotated[float, Field(gt=0, le=MAX_SPEED)] = 8e9
    runtime: Annotated[list[float], Pair, ordered(1e-3, MAX_TIME)] = [10.0, 10_800.0]
    estimate: Annotated[list[float], Pair, ordered(1.0, MAX_ESTIMATE_FACTOR)] = [1.0, 3.0]
    mem_mb: Annotated[list[int], Pair, ordered(0, MAX_MEMORY_MB)] = [100, 4000]
    bandwidth: Annotated[list[float], Pair, ordered(1e-9, MAX_MEM_VOL / MAX_TIME)] = \
        [50.0, 8000.0]

    @model_validator(mode="after")
    def _span(self) -> IrmasimParams:
        if self.jobs * self.mean_interarrival() > MAX_TIME:
            raise ValueError(f"the expected span, jobs × mean gap = {self.jobs} × "
                             f"{self.mean_interarrival():g} s, exceeds {MAX_TIME:g} s: raise load")
        return self

    def mean_interarrival(self) -> float:
        """The mean gap that gives the offered load ``load``."""
        low, high = self.runtime
        mean_run = (high - low) / math.log(high / low) if high > low else low
        work = float(NTASKS @ NTASKS_P) * mean_run * self.reference_speed
        return work / (self.load * self.capacity)


def draw_irmasim(params: IrmasimParams, rng: np.random.Generator) -> Drawn:
    """The SWF table of ``params.jobs`` jobs and their ``mem_vol`` (see the module's
    docstring)."""
    n = params.jobs
    submit = np.cumsum(rng.exponential(params.mean_interarrival(), n))
    ntasks = rng.choice(NTASKS, size=n, p=NTASKS_P)
    run = log_uniform(rng, *params.runtime, n)
    factor = rng.uniform(*params.estimate, n)
    mem = rng.integers(params.mem_mb[0], params.mem_mb[1], endpoint=True, size=n)
    bandwidth = log_uniform(rng, *params.bandwidth, n)
    table = np.full((n, len(FIELDS)), -1.0)
    table[:, COL["job_number"]] = np.arange(1, n + 1)
    table[:, COL["submit_time"]] = submit
    table[:, COL["run_time"]] = run
    table[:, COL["allocated_processors"]] = ntasks
    table[:, COL["requested_processors"]] = ntasks
    table[:, COL["requested_time"]] = run * factor
    table[:, COL["requested_memory"]] = np.where(mem > 0, mem * 1024.0, -1)
    table[:, COL["status"]] = 1
    return Drawn(table, {"mem_vol": bandwidth * run})


GENERATORS = (
    Generator("irmasim", IrmasimParams, draw_irmasim,
              "IRMaSim-style synthetic jobs (the irmasim_synth workload's distributions), "
              "with memory traffic"),
)
