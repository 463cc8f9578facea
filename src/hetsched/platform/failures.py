"""A seeded failure trace: per node, exponential times between failures and exponential
repair times, up to a horizon.

Each node's trace alternates up and down: from time 0 it is up for an exponential time of
mean ``mtbf`` (its time between failures, counted from its last repair), then down for an
exponential time of mean ``mttr``; failures starting before ``horizon`` are kept (the last one
may end after it). Every node draws from its own stream of the seed's
:class:`numpy.random.SeedSequence`, so a node's trace does not depend on the others'.
"""

from __future__ import annotations

import math

import numpy as np

from hetsched.errors import ConfigError
from hetsched.platform.model import Failure, Platform


def generate_failures(platform: Platform, mtbf: float, mttr: float, horizon: float,
                      seed: int | np.random.SeedSequence = 0) -> tuple[Failure, ...]:
    """The failures of every node of ``platform`` from 0 to ``horizon`` (seconds), ordered by
    node then time (``seed``: a whole number, or the sequence whose children the nodes
    draw from)."""
    for name, value in (("mtbf", mtbf), ("mttr", mttr), ("horizon", horizon)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ConfigError(f"failure trace: {name} must be a finite number of seconds "
                              f"> 0, not {value!r}")
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    streams = sequence.spawn(len(platform.nodes))
    failures = []
    for node, stream in enumerate(streams):
        draw = np.random.default_rng(stream)
        time = 0.0
        while (start := time + float(draw.exponential(mtbf))) < horizon:
            time = start + float(draw.exponential(mttr))
            failures.append(Failure(node, start, time))
    return tuple(failures)
