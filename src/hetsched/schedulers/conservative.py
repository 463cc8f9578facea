"""Conservative backfilling, heterogeneity-aware (estimates as in :mod:`.backfill`).

Every queued job, in queue order, gets a reservation at the earliest time it fits without
touching earlier reservations; a job starts when its reservation is due. When a job ends before
its estimate the plan is compressed: each reserved job, in order of start, moves to its
earliest slot while all others stay booked, so none ever moves later. A job running past its
estimate pushes back the reservations it now collides with.

Compression without re-planning everything: a reservation's search for an earlier slot failed
(or placed it) the last time it was made, and taking resources since cannot make it succeed.
Only freeing them can: a job ending early, or a reservation moving earlier. Each such
increase marks the reservations whose window could use it as *stale*, with the range of starts
worth searching (the windows that overlap the freed time); the others' searches would fail
again, so compression skips them. The order, the searches and their results are those of
compressing every reservation, which is still done when the plan may not be what re-projecting
from the running jobs gives (a job past its estimate, one started before this scheduler's
reset, a reservation that could not start on time, a change of a node's availability, nodes
that boot).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Iterator
from operator import attrgetter

import numpy as np

from hetsched.schedulers.backfill import Backfilling, estimated_duration
from hetsched.sim.protocol import Decision, Events, Start, WakeUp
from hetsched.schedulers.placement import Allocation
from hetsched.schedulers.profile import Profile
from hetsched.schedulers.reservations import Booking, Reservations
from hetsched.schedulers.skyline import Skyline
from hetsched.sim.resources import Resources, footprint, room
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job


_EST_END = attrgetter("est_end")


def _slack(t: float) -> float:
    """A margin for rounding when comparing sums of times."""
    return 1e-9 * max(1.0, abs(t))


class ConservativeBackfill(Backfilling):
    name = "conservative"

    def reset(self, view: ClusterView, rng: np.random.Generator) -> None:
        super().reset(view, rng)
        self.profile: Profile | None = None
        self.reserved = Reservations()
        self.started: dict[int, Booking] = {}  # running job -> its real start and estimate
        self.stale: dict[int, tuple[float, float]] = {}  # reserved job -> starts to search
        self.waiting: set[int] = set()  # due but could not start
        # jobs no time fits (nodes down or reserved for good): booked again when nodes change
        self.unbooked: dict[int, Job] = {}
        # the profile is what re-projecting from the running jobs gives (never sure on nodes
        # that boot: a job started on one runs from its boot)
        self.exact = not view.platform.has_on_demand
        self.cursor: tuple[float, int] | None = None  # the reservation being compressed
        self.queue: list[tuple[float, int]] = []  # stale ones after it, by start
        self.estimates: dict[int, list[float]] = {}  # reserved job -> its estimate per node
        self.extremes: dict[int, tuple[float, float]] = {}  # reserved job -> shortest, longest
        self.wake = -math.inf  # the last wake-up asked for

    def decide(self, now: float, events: Events) -> Iterator[Decision]:
        if self.profile is None:  # the first call, maybe on a fork with jobs already pending
            self.profile = Profile.of_running(self.view)
            arrived = tuple(self.view.pending.values())
        else:
            if events.available or events.booted:  # only re-projecting sees what changed
                self.exact = False
            early = self._ended_early(now, events)
            if self.unbooked and (events.available or events.booted):
                early = None  # nodes changed: the jobs no time fitted may fit now
            if early is None:
                self._replan(now)
            else:
                self.profile.advance(now)
                for job, booking in early:
                    self._give_back(job, now, booking)
                if early:
                    self._compress(now)
            arrived = events.arrived
        for job in arrived:
            self._reserve(job)
        yield from self._start_due(now)

    def _ended_early(self, now: float, events: Events) -> list[tuple[Job, Booking]] | None:
        """The jobs that ended before their estimate, or ``None`` when the plan must be made
        again from the running jobs: one of them started before this scheduler's reset, a
        job runs past its estimate, or an early end finds the plan inexact."""
        early, unknown = [], False
        for job in events.finished:
            booking = self.started.pop(job.index, None)
            if booking is None:
                unknown = True
            elif now < booking.end - _slack(now):
                early.append((job, booking))
        if unknown or min(map(_EST_END, self.view.running.values()), default=now) < now:
            return None
        return None if early and not self.exact else early

    def _give_back(self, job: Job, now: float, booking: Booking) -> None:
        """A job ended early: what it held until its estimated end is free."""
        assert self.profile is not None
        self.profile.release(job, now, booking.end, booking.allocation)
        self._mark_stale([(node, now, booking.end) for node, _ in booking.allocation], -1)

    def _replan(self, now: float) -> None:
        """Re-project from the running jobs, keep every reservation that still fits where it
        is (an overrun may push some: they take the earliest slot left, in queue order), then
        compress every reservation."""
        view = self.view
        self.profile = profile = Profile.of_running(view)
        pushed = []
        for index, booking in sorted(self.reserved.booked.items(), key=_start_then_index):
            job = view.pending[index]
            if booking.start < now:
                booking = Booking.of(job, now, booking.allocation, booking.duration)
            if profile.holds(job, booking.start, booking.end, booking.allocation):
                profile.reserve(job, booking.start, booking.end, booking.allocation)
                self.reserved.book(index, booking)
            else:
                pushed.append(job)
        unbooked, self.unbooked = list(self.unbooked.values()), {}
        for job in pushed + unbooked:
            self._reserve(job)
        self.stale = dict.fromkeys(self.reserved.booked, (-math.inf, math.inf))
        self.waiting.clear()
        self.exact = not view.platform.has_on_demand
        self._compress(now)

    def _compress(self, now: float) -> None:
        """Move each stale reservation, in order of start, to its earliest slot before its
        own, all others still booked; it keeps its slot when there is none."""
        booked, pending = self.reserved.booked, self.view.pending
        self.queue = [(booked[index].start, index) for index in self.stale]
        heapq.heapify(self.queue)
        while self.queue:
            self.cursor = start, index = heapq.heappop(self.queue)
            lo, hi = self.stale.pop(index)
            if start <= now:
                continue
            booking, job = booked[index], pending[index]
            found = self._earlier(job, booking, lo, min(hi, start))
            if found is not None:
                moved = self._book_at(job, *found)
                self._mark_stale(_freed(booking, moved), index)
        self.cursor = None

    def _earlier(self, job: Job, booking: Booking, lo: float,
                 hi: float) -> tuple[float, Allocation] | None:
        """The earliest slot of a reserved job among the starts in ``[lo, hi)``, searched as
        if its booking were released, and released if there is one. A one-node job without
        memory or disk stays booked while it looks: its booking leaves it its cores from its
        start on (the search knows), so a failed search costs no release and booking again."""
        profile, view = self.profile, self.view
        assert profile is not None
        if booking.home < 0:
            possible = self._may_move(job, booking, lo, hi)
            if possible is None:
                return None
            lo = max(lo, possible)  # (no earlier start can fit)
            token = profile.release_to_search(job, booking.start, booking.end,
                                              booking.allocation)
        found = profile.earliest(job, self._estimates(job),
                                 self.nodes.key(view), self.rng, self.nodes.order(view), lo, hi,
                                 booking.home, booking.start, self._longest(job))
        if booking.home < 0 and found is None:
            profile.book_back(job, booking.start, booking.end, booking.allocation, token)
        elif booking.home >= 0 and found is not None:
            profile.release(job, booking.start, booking.end, booking.allocation)
        return found

    def _may_move(self, job: Job, booking: Booking, lo: float, hi: float) -> float | None:
        """A test that ``job`` may have a slot starting in ``[lo, hi)`` (``hi`` is at most
        its booking's start), without releasing its booking (for a wide job, a release and
        a booking again on each of its nodes): the platform must have its tasks' cores free
        until its booking's start (from there on its booking gives them back), over its
        shortest possible window; for a multi-node job, what the groups keep free too
        (:meth:`Profile.may_start_before`). The first start that passes (no earlier one can
        fit once released), or ``None``."""
        profile = self.profile
        assert profile is not None
        shortest, longest = self._extremes(job)
        if job.nodes != 1:
            return profile.may_start_before(job, longest, lo, hi, booking.start,
                                            (node for node, _ in booking.allocation))
        now = profile.now
        return profile.total.first_fit(job.ntasks, 0.0, shortest, max(lo, now), hi, now,
                                       booking.start)

    def _mark_stale(self, freed: list[tuple[int, float, float]], mover: int) -> None:
        """Resources were freed on ``(node, start, end)``: mark the reservations (not
        ``mover``'s) whose window could now use them there, with the starts to search. The
        nodes freed over one time range are looked at together for the reservations with
        memory or disk or on several nodes (a wide job frees many), and those of one group
        (alike from now on) together for the others."""
        profile = self.profile
        assert profile is not None
        by_range: dict[tuple[float, float], list[tuple[int, Resources]]] = {}
        alike: dict[tuple[Skyline, float, float], tuple[Resources, list[int]]] = {}
        for node, start, end in freed:
            skyline = profile.nodes[node]
            seen = alike.get((skyline, start, end))
            if seen is None:
                seen = alike[skyline, start, end] = (skyline.highest(start, end), [])
            seen[1].append(node)
            by_range.setdefault((start, end), []).append((node, seen[0]))
        if self.reserved.on_node:  # (wide-job traces often have none)
            for (_, start, end), (most, nodes) in alike.items():
                if most[0] > 0:
                    self._mark_one_node(nodes, start, end, most[0], mover)
        for (start, end), mosts in by_range.items():
            self._mark_others(mosts, start, end, mover)

    def _mark_one_node(self, nodes: list[int], start: float, end: float, most_cores: int,
                       mover: int) -> None:
        """One-node jobs without memory or disk: a window of theirs on one of ``nodes`` (alike)
        lies in a run of their free cores through the freed time, as long as their estimate
        on that node, or, on their own node, reaching their own start (there only what is
        freed before it can help)."""
        profile = self.profile
        assert profile is not None
        now, margin = profile.now, _slack(start)
        runs = profile.nodes[nodes[0]].runs(start, end, now)
        spans = {1: runs.span(1)}  # by tasks
        # a job booked after the run of one free core fits in its own run only if it fits in
        # that one: a longer one needs no look at its own
        widest_low, widest_high = spans[1]
        widest = widest_high - widest_low + margin
        freed = set(nodes) if len(nodes) > 1 else None
        for home, on in self.reserved.on_node.items():
            own = home == nodes[0] if freed is None else home in freed
            # on its own node, and on another freed node alike
            for at_home in (True, False) if own and freed else (own,):
                after = on[bisect.bisect_right(on, (start, math.inf)):] if at_home else on
                for booked_at, tasks, duration, _, index in after:
                    if tasks > most_cores or booked_at <= now or index == mover or \
                            (at_home and booked_at > widest_high and duration > widest):
                        continue
                    span = spans.get(tasks)
                    if span is None:
                        span = spans[tasks] = runs.span(tasks)
                    low, high = span
                    if low >= booked_at:
                        continue
                    if at_home:
                        if high < booked_at and duration > high - low + margin:
                            continue
                        self._stale(index, booked_at, low, min(end, booked_at))
                    elif self.estimates[index][nodes[0]] <= high - low + margin:
                        self._stale(index, booked_at, low, end)

    def _mark_others(self, mosts: list[tuple[int, Resources]], start: float,
                     end: float, mover: int) -> None:
        """Jobs with memory or disk or on several nodes: they need room for ``per_node`` tasks
        on one of the nodes freed over ``[start, end)`` (given, for each, the most free cores,
        memory and disk there at a freed time: ``mosts``), and for all their tasks on the
        platform, at a freed time (counting what they hold there themselves), and their
        windows end before their reservation's start plus ``req_time`` (no estimate is
        longer)."""
        profile = self.profile
        assert profile is not None
        now, margin, most_total = profile.now, _slack(start), -1
        widest = max(most[0] for _, most in mosts)
        for index, booking in self.reserved.others.items():
            if booking.start <= now or index == mover or start >= booking.reach + margin:
                continue
            job = booking.job
            overlaps = booking.start < end and booking.end > start
            if (job.takes_space or widest < booking.per_node) and \
                    not _room_on_one(job, booking, mosts, overlaps):
                continue
            if job.nodes != 1:
                if most_total < 0:
                    most_total = profile.most_total(start, end)
                if most_total + (job.ntasks if overlaps else 0) < job.ntasks:
                    continue
            self._stale(index, booking.start, start - (booking.reach - booking.start) - margin,
                        end)

    def _stale(self, index: int, booked_at: float, lo: float, hi: float) -> None:
        """Widen the range of starts to search for ``index`` (booked at ``booked_at``); a
        reservation after the one being compressed joins this compression."""
        old = self.stale.get(index)
        if old is None:
            self.stale[index] = (lo, hi)
            key = (booked_at, index)
            if self.cursor is not None and key > self.cursor:
                heapq.heappush(self.queue, key)
        else:
            self.stale[index] = (min(old[0], lo), max(old[1], hi))

    def _reserve(self, job: Job) -> None:
        """Book ``job`` at its earliest slot."""
        assert self.profile is not None
        view = self.view
        found = self.profile.earliest(job, self._estimates(job), self.nodes.key(view),
                                      self.rng, self.nodes.order(view),
                                      longest=self._longest(job))
        if found is None:  # nodes down or reserved for good hold what it needs: it waits
            self.unbooked[job.index] = job
            return
        self._book_at(job, *found)

    def _estimates(self, job: Job) -> list[float]:
        """``job``'s estimate on each node, computed once per reserved job (a reservation is
        searched again at every compression that may move it)."""
        estimates = self.estimates.get(job.index)
        if estimates is None:
            estimates = self.estimates[job.index] = self.view.speed.estimates(job).tolist()
        return estimates

    def _extremes(self, job: Job) -> tuple[float, float]:
        """``job``'s shortest and longest estimate, found once per reserved job (on a large
        machine, finding them costs more than a search that fails)."""
        extremes = self.extremes.get(job.index)
        if extremes is None:
            estimates = self._estimates(job)
            extremes = self.extremes[job.index] = min(estimates), max(estimates)
        return extremes

    def _longest(self, job: Job) -> float | None:
        """A multi-node job's longest estimate (what its searches need; ``None`` for others)."""
        return self._extremes(job)[1] if job.nodes != 1 else None

    def _book_at(self, job: Job, start: float, allocation: Allocation) -> Booking:
        assert self.profile is not None
        booking = Booking.of(job, start, allocation,
                             estimated_duration(self.view, job, allocation))
        self.profile.reserve(job, booking.start, booking.end, allocation)
        self.reserved.book(job.index, booking)
        return booking

    def _start_due(self, now: float) -> Iterator[Decision]:
        """Start the reservations that are due, in the order they were first booked; wake up
        when the next one is."""
        view, reserved = self.view, self.reserved
        self.waiting.update(reserved.due(now))
        for index in reserved.first_booked(self.waiting):
            booking, job = reserved.booked[index], view.pending[index]
            if not all(view.fits(job, node, count) for node, count in booking.allocation):
                self.exact = False  # it will start late, or be pushed back by a re-plan
                continue
            self.waiting.discard(index)
            reserved.remove(index)
            self.stale.pop(index, None)
            self.estimates.pop(index, None)
            self.extremes.pop(index, None)
            self.exact = self.exact and booking.start == now
            self.started[index] = Booking.of(job, now, booking.allocation, booking.duration)
            yield Start(job, booking.allocation)
        upcoming = reserved.next_start()
        if upcoming is not None and (upcoming != self.wake or upcoming <= now):
            self.wake = upcoming  # (the engine keeps one until it is due)
            yield WakeUp(upcoming)


def _room_on_one(job: Job, booking: Booking, mosts: list[tuple[int, Resources]],
                 overlaps: bool) -> bool:
    """Whether one of the nodes of ``mosts`` (each with the most free cores, memory and disk
    it has at a freed time) has room for ``booking.per_node`` of ``job``'s tasks, counting
    what the booking holds there itself when it ``overlaps`` the freed time. (A job without
    memory or disk has room where the most cores are free, if they are enough: the caller
    does not ask then.)"""
    held = {node: (own, mem, disk) for (node, own), mem, disk
            in footprint(job, booking.allocation)} if overlaps else {}
    for node, (cores, mem, disk) in mosts:
        own_cores, own_mem, own_disk = held.get(node, (0, 0.0, 0.0))
        if room(job, cores + own_cores, mem + own_mem, disk + own_disk) >= booking.per_node:
            return True
    return False


def _start_then_index(item: tuple[int, Booking]) -> tuple[float, int]:
    return item[1].start, item[0]


def _freed(old: Booking, new: Booking) -> list[tuple[int, float, float]]:
    """Where a reservation that moved earlier from ``old`` to ``new`` freed resources:
    ``(node, start, end)``."""
    kept = dict(new.allocation)
    freed = []
    for node, count in old.allocation:
        if kept.get(node, 0) < count:
            freed.append((node, old.start, old.end))
        elif new.end < old.end:
            freed.append((node, max(old.start, new.end), old.end))
    return freed
