"""The platform's reservations in a run: the cores they hold on each node over time, the
availability changes that apply them when due, and the start rule's look ahead.

A node's free slots at a time ``t`` ahead of now are its free slots now, less the slots the
reservations hold then beyond what they hold now, plus the slots of the running jobs expected
(by their estimate) to have ended by then (:meth:`Reservations.profile`). A job may start on
a node only if its tasks fit there at every time from now to its reserved end (start plus its
estimate): :meth:`Reservations.room`. Nodes without reservations cost nothing. The windows
schedulers book (:mod:`hetsched.sim.bookings`) come in as extra pieces taken.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence

from hetsched.errors import ConfigError
from hetsched.platform.model import Availability, Platform, Reservation
from hetsched.platform.reservations import by_node
from hetsched.sim.state import RunningJob

#: A piece of a node's free-slot profile: ``(start, end, free slots)``.
Piece = tuple[float, float, int]


class Reservations:
    """The reservations of one run, per node as a step function of the cores held (sorted
    change times, searched by bisection)."""

    def __init__(self, platform: Platform, reservations: Sequence[Reservation]) -> None:
        nodes = platform.nodes
        for r in reservations:
            cores = nodes[r.node].type.cores if 0 <= r.node < len(nodes) else -1
            if not (0 < r.cores <= cores and 0 <= r.start < r.end and math.isfinite(r.start)):
                raise ConfigError(f"reservation {r}: needs a node index, 1..{max(cores, 0)} "
                                  "cores and a finite start before its end")
        self.steps = by_node(reservations)
        for node, (_, held) in self.steps.items():
            if max(held) > nodes[node].type.cores:
                raise ConfigError(f"reservations hold up to {max(held)} cores of node "
                                  f"'{nodes[node].name}', which has {nodes[node].type.cores}")
        self.slots_per_core = [node.type.oversubscription for node in nodes]

    def __bool__(self) -> bool:
        return bool(self.steps)

    def held(self, node: int, time: float) -> int:
        """Cores the reservations hold on ``node`` at ``time``."""
        steps = self.steps.get(node)
        if steps is None:
            return 0
        i = bisect_right(steps[0], time)
        return steps[1][i - 1] if i else 0

    def changes(self, platform: Platform,
                setpoints: Iterable[Availability]) -> list[Availability]:
        """The availability changes of the run: the low-level set-points (the cores a node
        has from a time on), and on each node with reservations, at every change of either,
        the set-point then in force less the cores reserved (at least 0)."""
        setpoints = list(setpoints)
        out = [change for change in setpoints if change.node not in self.steps]
        for node, (times, held) in self.steps.items():
            own = [change for change in setpoints if change.node == node]
            cores = platform.nodes[node].type.cores
            for time in sorted({*times, *(change.time for change in own)}):
                capacity = next((c.cores for c in reversed(own) if c.time <= time), cores)
                out.append(Availability(time, node, max(capacity - self.held(node, time), 0)))
        return out

    def ahead(self, node: int, now: float, until: float = math.inf) -> list[Piece]:
        """What ``node``'s reservations take after ``now`` beyond what they hold now, as
        ``(start, end, slots)`` pieces (negative slots: given back as one ends), those that
        begin before ``until``."""
        if node not in self.steps:
            return []
        times, held = self.steps[node]
        per_core, before = self.slots_per_core[node], self.held(node, now)
        first = bisect_right(times, now)
        stop = bisect_left(times, until, first)
        ends = [*times[first + 1:stop + 1], math.inf]
        return [(times[i], end, (held[i] - before) * per_core)
                for i, end in zip(range(first, stop), ends) if held[i] != before]

    def profile(self, node: int, now: float, until: float, free: int,
                runs: Mapping[int, RunningJob], booked: Sequence[Piece] = ()) -> list[Piece]:
        """``node``'s free slots from ``now`` to ``until``, in pieces: ``free`` (its free
        slots now) changed by the reservations' changes, the estimated ends of ``runs``
        (its running jobs; one past its estimate is expected to end now) and the ``booked``
        pieces (``(start, end, slots)`` taken: the bookings of :mod:`hetsched.sim.bookings`)."""
        steps: dict[float, int] = {}
        per_core = self.slots_per_core[node]
        if node in self.steps:
            times, held = self.steps[node]
            before = self.held(node, now)
            for i in range(bisect_right(times, now), bisect_left(times, until)):
                steps[times[i]] = steps.get(times[i], 0) - (held[i] - before) * per_core
                before = held[i]
        for run in runs.values():
            end = max(run.est_end, now)
            if end < until:
                count = sum(c for n, c in run.allocation if n == node)
                steps[end] = steps.get(end, 0) + count
        for start, end, slots in booked:
            steps[start] = steps.get(start, 0) - slots
            if end < until:
                steps[end] = steps.get(end, 0) + slots
        pieces: list[Piece] = []
        start = now
        for time in sorted(steps):
            if time > start:
                pieces.append((start, time, free))
                start = time
            free += steps[time]
        if until > start or not pieces:
            pieces.append((start, until, free))
        return pieces

    def room(self, node: int, now: float, until: float, free: int,
             runs: Mapping[int, RunningJob], booked: Sequence[Piece] = (),
             since: float | None = None) -> int:
        """The slots ``node`` keeps free from ``since`` (default: ``now``) to ``until``: what a
        job reserved over that time may take there (``free``, its free slots now, without
        reservations or ``booked`` pieces ahead)."""
        steps = self.steps.get(node)
        if not booked and since is None and (
                steps is None or bisect_right(steps[0], now) == bisect_left(steps[0], until)):
            return free
        pieces = self.profile(node, now, until, free, runs, booked)
        if since is not None and since > now:  # (a window of no length: the free slots then)
            pieces = [piece for piece in pieces if piece[1] > since] or pieces[-1:]
        return min(piece[2] for piece in pieces)
