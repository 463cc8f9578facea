"""Field types of the pydantic input schemas, bounded by :mod:`hetsched.limits`.

A schema field typed ``Seconds`` (say) accepts only a finite number in ``[0, MAX_TIME]``,
and no time (or work) other than 0 below ``MIN_NONZERO``; an error names the bound. Floats
come out with negative zero turned into zero, so ``-0.0`` in a file never reaches an output
as ``-0.0``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from hetsched import limits


def _plus_zero(value: float) -> float:
    return value + 0.0  # -0.0 + 0.0 == +0.0; every other value is unchanged


PLUS_ZERO = AfterValidator(_plus_zero)


def _zero_or_not_tiny(value: float) -> float:
    if 0 < abs(value) < limits.MIN_NONZERO:
        raise ValueError(f"must be 0 or at least {limits.MIN_NONZERO:g}, got {value!r}")
    return value


#: Refuses a non-zero magnitude below :data:`~hetsched.limits.MIN_NONZERO` (so ratios over
#: the value stay finite).
NOT_TINY = AfterValidator(_zero_or_not_tiny)


#: Seconds in ``[0, MAX_TIME]``: submit times, run times, boot times.
Seconds = Annotated[float, Field(ge=0, le=limits.MAX_TIME), PLUS_ZERO, NOT_TINY]
#: Seconds in ``(0, MAX_TIME]``: estimates.
PositiveSeconds = Annotated[float, Field(gt=0, le=limits.MAX_TIME), PLUS_ZERO, NOT_TINY]
#: Watts in ``[0, MAX_POWER_W]`` (also IRMaSim's power factors).
Watts = Annotated[float, Field(ge=0, le=limits.MAX_POWER_W), PLUS_ZERO]
#: Clock rate in GHz.
ClockGhz = Annotated[float, Field(ge=limits.MIN_CLOCK_GHZ, le=limits.MAX_CLOCK_GHZ), PLUS_ZERO]
#: Operations per cycle of a core.
OpsPerCycle = Annotated[float, Field(ge=limits.MIN_OPS_PER_CYCLE, le=limits.MAX_OPS_PER_CYCLE),
                        PLUS_ZERO]
#: Instructions per cycle of a job.
Ipc = Annotated[float, Field(ge=limits.MIN_IPC, le=limits.MAX_IPC), PLUS_ZERO]
#: Operations of one task.
Ops = Annotated[float, Field(ge=0, le=limits.MAX_OPS), PLUS_ZERO, NOT_TINY]
#: Memory traffic of one task.
MemVolume = Annotated[float, Field(ge=0, le=limits.MAX_MEM_VOL), PLUS_ZERO]
#: Memory in MB, ``[0, MAX_MEMORY_MB]``.
MemoryMb = Annotated[float, Field(ge=0, le=limits.MAX_MEMORY_MB), PLUS_ZERO]
#: Memory capacity in GB, ``(0, MAX_MEMORY_MB / 1024]``.
MemoryGb = Annotated[float, Field(gt=0, le=limits.MAX_MEMORY_MB / 1024), PLUS_ZERO]
#: Memory bandwidth in GB/s, ``[0, MAX_BANDWIDTH_GBS]``.
Bandwidth = Annotated[float, Field(ge=0, le=limits.MAX_BANDWIDTH_GBS), PLUS_ZERO]
#: Memory bandwidth capacity in GB/s, ``(0, MAX_BANDWIDTH_GBS]``.
PositiveBandwidth = Annotated[float, Field(gt=0, le=limits.MAX_BANDWIDTH_GBS), PLUS_ZERO]
#: Price per hour.
Price = Annotated[float, Field(ge=0, le=limits.MAX_PRICE), PLUS_ZERO]
#: Price per second (its hour's worth within :data:`Price`'s bound).
PricePerSecond = Annotated[float, Field(ge=0, le=limits.MAX_PRICE / 3600), PLUS_ZERO]
#: A job's budget, in the prices' currency.
Budget = Annotated[float, Field(ge=0, le=limits.MAX_BUDGET), PLUS_ZERO]
#: A job's minimum core speed (ops/s), ``[0, MAX_SPEED]``.
MinSpeed = Annotated[float, Field(ge=0, le=limits.MAX_SPEED), PLUS_ZERO]

#: Cores of a node (or of a processor), ``[1, MAX_CORES_PER_NODE]``.
Cores = Annotated[int, Field(gt=0, le=limits.MAX_CORES_PER_NODE)]
#: How many nodes (or processors) of a type, ``[1, MAX_NODES]``.
Count = Annotated[int, Field(ge=1, le=limits.MAX_NODES)]
#: Tasks of a job, ``[1, MAX_TASKS]``.
Tasks = Annotated[int, Field(gt=0, le=limits.MAX_TASKS)]

#: A contention-model coefficient: any finite number within ``±MAX_MODEL_PARAMETER``.
Coefficient = Annotated[float, Field(ge=-limits.MAX_MODEL_PARAMETER,
                                     le=limits.MAX_MODEL_PARAMETER), PLUS_ZERO]

#: A share of time in ``(0, 1]``: a thread's CPU utilisation.
Utilisation = Annotated[float, Field(gt=0, le=1), PLUS_ZERO]
#: A relative deviation in ``[0, 1)``: how much a thread's busy and idle times vary (DESiDE's
#: sigma; below 1, so that every drawn time stays positive).
UtilisationSd = Annotated[float, Field(ge=0, lt=1), PLUS_ZERO]
