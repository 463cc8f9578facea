"""What every run checks before it starts: its options (seed, horizon), one line each."""

from __future__ import annotations

from hetsched.options import check_horizon, check_seed
from hetsched.workload.model import Workload


def check_run(workload: Workload, seed: object, horizon: object) -> tuple[int, float | None]:
    """What every run checks first: the seed and the horizon, as checked."""
    return check_seed(seed), check_horizon(horizon)
