"""What a simulation produces: per-job outcomes, per-node integrals and a time series."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from hetsched.platform.model import Platform
from hetsched.workload.model import Workload


class JobState(IntEnum):
    PENDING = 0
    QUEUED = 1
    RUNNING = 2
    FINISHED = 3
    REJECTED = 4
    UNFINISHED = 5
    HELD = 6  # submitted, waiting for its parents (never an end state)


@dataclass
class TimeSeries:
    """One row per instant at which something happened (after the scheduler answered).
    ``power_w`` means nothing for a result without energy (``SimResult.has_energy``)."""

    time: list[float] = field(default_factory=list)
    queued: list[int] = field(default_factory=list)
    running: list[int] = field(default_factory=list)
    busy_cores: list[int] = field(default_factory=list)
    power_w: list[float] = field(default_factory=list)

    def copy(self) -> "TimeSeries":
        return TimeSeries(self.time.copy(), self.queued.copy(), self.running.copy(),
                          self.busy_cores.copy(), self.power_w.copy())

    def append(self, time: float, queued: int, running: int, busy: int, power: float) -> None:
        self.time.append(time)
        self.queued.append(queued)
        self.running.append(running)
        self.busy_cores.append(busy)
        self.power_w.append(power)


@dataclass
class SimResult:
    """Outcome of one run. Times in seconds; ``start``/``end`` are NaN where they never happened.

    ``t0``/``t_end`` bound the accounting window: first submission to last job end (or the
    horizon when the run was cut there). Node energies integrate power over that window.
    ``node_charged_seconds`` is how long each node is rented; ``None`` means every node for the
    whole window (always-on nodes). Drivers with on-demand nodes (ds-sim) set it per node.
    ``job_energy_j`` and ``node_energy_j`` are ``None`` when energy was not measured: the
    platform has no power model (:attr:`Platform.has_power_model`), or the driver has none.
    ``contention`` names the contention model the run used (``None``: the driver has none).
    """

    platform: Platform
    workload: Workload
    scheduler: str
    seed: int
    state: np.ndarray
    start: np.ndarray
    end: np.ndarray
    allocation: list[tuple[tuple[int, int], ...] | None]
    reason: dict[int, str]
    job_energy_j: np.ndarray | None
    node_energy_j: np.ndarray | None
    node_busy_core_seconds: np.ndarray
    node_busy_seconds: np.ndarray
    t0: float
    t_end: float
    timeseries: TimeSeries
    wall_seconds: float = 0.0
    horizon: float | None = None
    node_charged_seconds: np.ndarray | None = None
    contention: str | None = None

    @property
    def has_energy(self) -> bool:
        return self.node_energy_j is not None

    def count(self, state: JobState) -> int:
        return int(np.count_nonzero(self.state == state))
