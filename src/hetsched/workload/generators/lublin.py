"""The Lublin–Feitelson model of rigid parallel jobs (U. Lublin and D. G. Feitelson, "The
workload on parallel supercomputers: modeling the characteristics of rigid jobs", JPDC 63(11),
2003), with its published parameters as defaults (the values of the authors' program
``m_lublin99.c``). Jobs are of two types, batch and interactive, each its own arrival stream
and its own parameter set; the streams are merged by arrival time.

Per type (every log below as in the paper: sizes in log2, times in natural log of seconds):

- **size**: with probability ``serial_prob`` a serial job (1 processor); otherwise ``x`` is drawn
  from the two-stage uniform (``uniform(ulow, umed)`` with probability ``uprob``, else
  ``uniform(umed, uhi)``) and the size is ``round(2**x)``, after rounding ``x`` to a whole number
  with probability ``pow2_prob`` (the same uniform draw decides serial / power of two / other,
  as in the authors' program). ``uhi`` is ``log2(procs)`` minus 1.5 for interactive jobs,
  ``umed`` is ``uhi`` minus 2 (batch) or 2.5 (interactive): at the model's 128 processors
  exactly the published values; on other machines the sizes scale with the machine as the
  authors advise.
  ``umed`` and ``uhi`` are never below ``ulow``; sizes never exceed ``procs``.
- **run time**: ``ln(run)`` is hyper-gamma, ``gamma(a1, b1)`` with probability
  ``p = clip(pa * size + pb, 0, 1)`` else ``gamma(a2, b2)`` (shape, scale), redrawn above 12
  (run times under e**12 s, about two days): ``pa < 0`` makes wide jobs longer.
- **arrivals**: ``ln(gap)`` is ``gamma(aarr * arar, barr)`` (redrawn above 13), a gap measured in
  the busy hours; the day is 48 half-hour buckets weighted by ``gamma(anum, bnum)`` (buckets
  counted from 05:00, the cycle's quietest point), and a gap of ``g`` seconds moves the clock
  across ``g / 1800`` units of weight, so the arrival rate in each bucket is proportional to
  its weight. The first job of a stream arrives one gap after midnight of day 0.

The model has no requested times: the table leaves them unknown (-1) and the SWF rule
``estimate_factor`` applies. The job type is kept in the SWF ``queue`` field (1 batch,
0 interactive), as the authors' program writes it. ``types: typeless`` draws one stream with
the model's parameters fitted to all jobs regardless of type (the program's
``INCLUDE_JOBS_TYPE 0`` set; ``queue`` -1; ``umed`` 2.5 below ``uhi`` = log2(procs)).
``arrival_factor`` multiplies every gap (below 1: a heavier load). Run times and submit times
are not rounded to whole seconds.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BeforeValidator, Field, model_validator

from hetsched.fileio import StrictModel
from hetsched.limits import MAX_GENERATED_JOBS, MAX_TASKS
from hetsched.workload.generators import Generator
from hetsched.workload.swf import COL, FIELDS

#: Largest ln(run time) and ln(inter-arrival time) the model keeps (redraws above).
MAX_LOG_RUN, MAX_LOG_GAP = 12.0, 13.0
BUCKETS, BUCKET_SECONDS = 48, 1800.0
#: The bucket count (1-based, in half hours) at which the arrival cycle's day starts.
CYCLE_START = 11
#: Below log2(procs): how far uhi lies, and how far below uhi umed lies, per job type.
UHI_BELOW_LOG2_PROCS = {"batch": 0.0, "interactive": 1.5, "typeless": 0.0}
UMED_BELOW_UHI = {"batch": 2.0, "interactive": 2.5, "typeless": 2.5}
#: The SWF ``queue`` of each job type (-1: the typeless model's jobs have none).
QUEUE = {"batch": 1, "interactive": 0, "typeless": -1}

PUBLISHED: dict[str, dict[str, float]] = {
    "batch": dict(serial_prob=0.2927, pow2_prob=0.6686, ulow=1.2, uprob=0.875,
                  a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
                  aarr=6.0415, barr=0.8531, anum=6.1271, bnum=5.2740, arar=1.0519),
    "interactive": dict(serial_prob=0.1541, pow2_prob=0.625, ulow=1.0, uprob=0.705,
                        a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
                        aarr=6.5510, barr=0.6621, anum=8.9186, bnum=3.6680, arar=0.9797),
    "typeless": dict(serial_prob=0.244, pow2_prob=0.576, ulow=0.8, uprob=0.86,
                     a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
                     aarr=10.2303, barr=0.4871, anum=8.1737, bnum=3.9631, arar=1.0225),
}

Probability = Annotated[float, Field(ge=0, le=1)]
Shape = Annotated[float, Field(gt=0, le=1e6)]
Log2Size = Annotated[float, Field(ge=0, le=math.log2(MAX_TASKS))]


class TypeParams(StrictModel):
    """One job type's parameters (see the module's docstring); ``umed``/``uhi`` default to the
    values scaled to the machine."""

    serial_prob: Probability
    pow2_prob: Probability
    ulow: Log2Size
    umed: Log2Size | None = None
    uhi: Log2Size | None = None
    uprob: Probability
    a1: Shape
    b1: Shape
    a2: Shape
    b2: Shape
    pa: Annotated[float, Field(ge=-1, le=1)]
    pb: Annotated[float, Field(ge=-1e6, le=1e6)]
    aarr: Shape
    barr: Shape
    anum: Shape
    bnum: Shape
    arar: Shape

    @model_validator(mode="after")
    def _probabilities(self) -> TypeParams:
        if self.serial_prob + self.pow2_prob > 1:
            raise ValueError("serial_prob + pow2_prob must be at most 1")
        return self


def _published(kind: str) -> BeforeValidator:
    """The published values of ``kind``, with the ones the user gives replacing them."""
    def merge(value: Any) -> Any:
        return {**PUBLISHED[kind], **value} if isinstance(value, dict) else value
    return BeforeValidator(merge)


class LublinParams(StrictModel):
    jobs: Annotated[int, Field(ge=1, le=MAX_GENERATED_JOBS)]
    procs: Annotated[int, Field(ge=1, le=MAX_TASKS)] = 128
    types: Literal["both", "batch", "interactive", "typeless"] = "both"
    arrival_factor: Annotated[float, Field(gt=0, le=1e6)] = 1.0
    batch: Annotated[TypeParams, _published("batch")] = TypeParams(**PUBLISHED["batch"])
    interactive: Annotated[TypeParams, _published("interactive")] = \
        TypeParams(**PUBLISHED["interactive"])
    typeless: Annotated[TypeParams, _published("typeless")] = TypeParams(**PUBLISHED["typeless"])

    def kinds(self) -> tuple[str, ...]:
        return ("batch", "interactive") if self.types == "both" else (self.types,)

    def sizes(self, kind: str) -> tuple[float, float, float]:
        """``(ulow, umed, uhi)`` of ``kind`` on this machine."""
        p: TypeParams = getattr(self, kind)
        uhi = p.uhi if p.uhi is not None else math.log2(self.procs) - UHI_BELOW_LOG2_PROCS[kind]
        uhi = max(uhi, p.ulow)
        umed = p.umed if p.umed is not None else uhi - UMED_BELOW_UHI[kind]
        return p.ulow, min(max(umed, p.ulow), uhi), uhi


def _truncated_gamma(rng: np.random.Generator, shape: float, scale: float, limit: float,
                     n: int) -> np.ndarray:
    """``n`` draws of gamma(shape, scale), each redrawn while above ``limit``."""
    out = rng.gamma(shape, scale, n)
    while (high := out > limit).any():
        out[high] = rng.gamma(shape, scale, int(high.sum()))
    return out


def bucket_weights(anum: float, bnum: float) -> np.ndarray:
    """The 48 half-hour buckets' arrival weights from midnight, normalised to mean 1."""
    from scipy.special import gammainc

    counts = np.arange(CYCLE_START, CYCLE_START + BUCKETS)  # bucket counts of one day
    mass = gammainc(anum, (counts + 0.5) / bnum) - gammainc(anum, (counts - 0.5) / bnum)
    weights = np.empty(BUCKETS)
    weights[(counts - 1) % BUCKETS] = mass
    return weights / weights.mean()


def arrivals(p: TypeParams, factor: float, rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` arrival times (s) of one stream: cumulative weight mapped back through the day."""
    gaps = np.exp(_truncated_gamma(rng, p.aarr * p.arar, p.barr, MAX_LOG_GAP, n)) * factor
    units = np.cumsum(gaps / BUCKET_SECONDS)  # each day holds BUCKETS units of weight
    days, within = np.divmod(units, BUCKETS)
    edges = np.concatenate(([0.0], np.cumsum(bucket_weights(p.anum, p.bnum))))
    bucket = np.minimum(np.searchsorted(edges, within, side="right") - 1, BUCKETS - 1)
    weights = np.diff(edges)
    fraction = (within - edges[bucket]) / weights[bucket]
    return (days * BUCKETS + bucket + fraction) * BUCKET_SECONDS


def sizes(p: TypeParams, bounds: tuple[float, float, float], procs: int,
          rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` processor counts (see the module's docstring)."""
    ulow, umed, uhi = bounds
    u = rng.uniform(size=n)
    first = rng.uniform(size=n) <= p.uprob
    x = np.where(first, rng.uniform(ulow, umed, n), rng.uniform(umed, uhi, n))
    x = np.where(u <= p.serial_prob + p.pow2_prob, np.floor(x + 0.5), x)
    size = np.floor(2.0 ** x + 0.5)
    return np.minimum(np.where(u <= p.serial_prob, 1.0, size), procs)


def run_times(p: TypeParams, size: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Run times (s) of jobs of ``size`` processors: exp of the hyper-gamma."""
    n = size.size
    first = rng.uniform(size=n) <= np.clip(p.pa * size + p.pb, 0.0, 1.0)
    log_run = np.where(first, _truncated_gamma(rng, p.a1, p.b1, MAX_LOG_RUN, n),
                       _truncated_gamma(rng, p.a2, p.b2, MAX_LOG_RUN, n))
    return np.exp(log_run)


def draw_lublin(params: LublinParams, rng: np.random.Generator) -> np.ndarray:
    """The SWF table of ``params.jobs`` jobs: each type's ``jobs`` arrivals are drawn, merged,
    the first ``jobs`` kept; then each type's sizes and run times."""
    n, kinds = params.jobs, params.kinds()
    times = np.concatenate([arrivals(getattr(params, k), params.arrival_factor, rng, n)
                            for k in kinds])
    queue = np.repeat([QUEUE[k] for k in kinds], n)
    order = np.argsort(times, kind="stable")[:n]
    table = np.full((n, len(FIELDS)), -1.0)
    table[:, COL["job_number"]] = np.arange(1, n + 1)
    table[:, COL["submit_time"]] = times[order]
    table[:, COL["queue"]] = queue[order]
    table[:, COL["status"]] = 1
    for kind in kinds:
        rows = table[:, COL["queue"]] == QUEUE[kind]
        p = getattr(params, kind)
        size = sizes(p, params.sizes(kind), params.procs, rng, int(rows.sum()))
        table[rows, COL["allocated_processors"]] = size
        table[rows, COL["requested_processors"]] = size
        table[rows, COL["run_time"]] = run_times(p, size, rng)
    return table


GENERATORS = (
    Generator("lublin", LublinParams, draw_lublin,
              "Lublin & Feitelson 2003: rigid jobs, daily cycle, size-correlated run times"),
)
