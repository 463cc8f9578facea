"""Projected free resources over time, for backfilling: one :class:`Skyline` per node.

Running jobs release their resources at their estimated end (a job past its estimate is
expected to end now); reservations take resources over their estimated duration.
:meth:`Profile.earliest` finds where a job fits first with the placement rules of
:mod:`hetsched.schedulers.placement`, looking only at times where some node's free resources
change (a start between two such times is never the earliest: the one before offers as much).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator
from itertools import groupby
from operator import attrgetter, itemgetter

import numpy as np

from hetsched.platform.model import Platform
from hetsched.schedulers.groups import grouped
from hetsched.schedulers.placement import SCAN_NODES, Allocation, choose_node, place
from hetsched.schedulers.skyline import Skyline
from hetsched.sim.resources import Resources, capacity, even_split, footprint, room, share
from hetsched.sim.view import ClusterView
from hetsched.workload.model import Job

_EST_END = attrgetter("est_end")
_END = itemgetter(0)


class Profile:
    """One skyline per group of nodes alike (``groups``; ``nodes``: each node's), one of the
    platform's total free cores (``total``, a quick bound for multi-node jobs), and what each
    node can ever run (``slots``)."""

    def __init__(self, skylines: list[Skyline], total: Skyline, slots: list[int],
                 now: float, kinds: list[int] | None = None) -> None:
        """``skylines``: each node's; ``kinds``: each node's type (by default, all alike),
        only nodes of one type group."""
        self.groups = grouped(skylines, [0] * len(skylines) if kinds is None else kinds, now)
        self.nodes = self.groups.nodes
        self.total = total
        self.slots = slots
        self.slot_array = np.array(slots, dtype=np.int64)
        self.now = now
        self.version = 0  # changed with every booking and move of the present
        self._steps: tuple[tuple[int, bool, bool], _Steps, np.ndarray | None,
                           np.ndarray | None, np.ndarray] | None = None

    @staticmethod
    def of_running(view: ClusterView, until: float = math.inf) -> "Profile":
        """Free resources now, then after each estimated end of a running job (the amounts
        freed at one time summed first, in the order of ``view.running``), less what the
        platform's reservations take as they begin (and plus what they give back as they
        end): those that begin before ``until`` (the profile holds until then)."""
        now = view.now
        ends: list[list[tuple[float, int, float, float]]] = [[] for _ in view.node_index]
        for run in view.running.values():
            end = view.estimated_end(run)
            for (node, count), memory, disk in footprint(run.job, run.allocation):
                ends[node].append((end, count, memory, disk))
        cores, mem, disk = (view.free_slots.tolist(), view.free_mem.tolist(),
                            view.free_disk.tolist())
        skylines = [_skyline(now, (cores[n], mem[n], disk[n]), sorted(ends[n], key=_END))
                    for n in range(len(ends))]
        if len(skylines) == 1:  # its node's skyline is the platform's
            total = skylines[0]
        else:
            every_end = sorted(((end, count, 0.0, 0.0) for node in ends
                                for end, count, _, _ in node), key=_END)
            total = _skyline(now, (view.total_free_slots, 0.0, 0.0), every_end)
        for node, pieces in view.reserved_ahead(until).items():  # what the platform reserved
            for start, end, slots in pieces:
                skylines[node].add(start, end, -slots, 0.0, 0.0)
                if total is not skylines[node]:
                    total.add(start, end, -slots, 0.0, 0.0)
        return Profile(skylines, total, view.platform.arrays.slots.tolist(), now,
                       _kinds(view.platform))

    def advance(self, now: float) -> None:
        """Move the present to ``now``: steps before it are dropped, and the groups of nodes
        that only they told apart merge."""
        if now != self.now:
            self.now = now
            self.version += 1
            self.groups.regroup(now)

    def reserve(self, job: Job, start: float, end: float, allocation: Allocation) -> None:
        """Take ``allocation`` over ``[start, end)``."""
        self._book(job, start, end, allocation, -1)

    def release(self, job: Job, start: float, end: float, allocation: Allocation) -> None:
        """Give back what :meth:`reserve` took."""
        self._book(job, start, end, allocation, 1)

    def release_to_search(self, job: Job, start: float, end: float,
                          allocation: Allocation) -> int:
        """:meth:`release` a reservation for a search that may give it back where it was
        (:meth:`book_back`); the token that call needs."""
        version = self.version
        self.release(job, start, end, allocation)
        return version

    def book_back(self, job: Job, start: float, end: float, allocation: Allocation,
                  token: int) -> None:
        """Book again what :meth:`release_to_search` released (``token``: what it gave) when
        the search found no other slot: every node's free resources are as they were, so
        what was read of them before the release (the groups' steps) still holds."""
        self.reserve(job, start, end, allocation)
        self.version = token

    def _book(self, job: Job, start: float, end: float, allocation: Allocation,
              sign: int) -> None:
        now, nodes = self.now, self.nodes
        self.version += 1
        if job.job_memory_mb or job.job_disk_mb:
            changes = [(node, sign * count, sign * memory, sign * disk)
                       for (node, count), memory, disk in footprint(job, allocation)]
            self.groups.add(start, end, changes, now)
        else:  # its slots alone (conservative's hottest path: no footprint() call)
            self.groups.add_slots(start, end, allocation, sign, now)
        if len(nodes) > 1:
            self.total.prune(now)
            self.total.add(start, end, sign * job.ntasks, 0.0, 0.0)

    def holds(self, job: Job, start: float, end: float, allocation: Allocation) -> bool:
        """Whether ``allocation`` fits over ``[start, end)`` in what is left."""
        if end <= start:
            return True
        return all(room(job, *self.nodes[node].lowest(start, end)) >= count
                   for node, count in allocation)

    def earliest(self, job: Job, durations: list[float], key: np.ndarray | None,
                 rng: np.random.Generator, order: np.ndarray | None = None,
                 lo: float = -math.inf, hi: float = math.inf, home: int = -1,
                 booked: float = math.inf, longest: float | None = None
                 ) -> tuple[float, Allocation] | None:
        """The earliest start of ``job``, lasting ``durations[n]`` on node n, and its
        allocation then; only starts before ``hi`` are searched (``None`` if none fits).
        ``lo`` says no start before it can fit: the search begins there.

        ``home``: a one-node job without memory or disk booked on that node from ``booked`` on, for
        ``durations[home]``, still in the profile; only starts before ``booked`` are searched.
        It may start earlier there if it fits until ``booked``: from then on its own booking
        leaves it its cores (the profile is searched as if it were released, without releasing
        it).

        Multi-node jobs are checked over their longest possible duration (conservative):
        ``longest``, ``max(durations)`` when the caller has it.
        """
        lo = max(lo, self.now)
        if job.nodes == 1:
            return self._earliest_one_node(job, durations, key, rng, order, lo, hi, home,
                                           booked)
        return self._earliest_many_nodes(job, max(durations) if longest is None else longest,
                                         key, rng, order, lo, hi)

    def _earliest_one_node(self, job: Job, durations: list[float], key: np.ndarray | None,
                           rng: np.random.Generator, order: np.ndarray | None, lo: float,
                           hi: float, home: int, booked: float
                           ) -> tuple[float, Allocation] | None:
        """Each group's first fit; the preferred node among those that fit first. ``home``
        is searched until ``booked`` in the loop when it is its group's only node (always on
        a platform of :class:`~hetsched.schedulers.groups.Singletons`: the plain per-node
        search), else first, on its own (``shared``: its group, whose other nodes the loop
        searches). On few nodes in a static preference order, the groups are tried in the
        order of their preferred nodes, and one that fits at ``lo`` ends the search (no later
        node can be earlier, nor preferred on a tie)."""
        tasks, now, groups, slots = job.ntasks, self.now, self.groups, self.slots
        skylines: list[Skyline] = groups.skylines  # type: ignore[assignment]
        need_mem = share(job.job_memory_mb, tasks, tasks)
        need_disk = share(job.job_disk_mb, tasks, tasks)
        # what fits first: home on its own (at_home), the groups (first)
        best, first, at_home = hi, [], False
        own = groups.of[home] if home >= 0 else -1
        shared = own if own >= 0 and groups.sizes[own] > 1 else -1
        if shared >= 0 and slots[home] >= tasks:  # its own booking leaves it its cores
            t = skylines[own].first_fit(tasks, need_mem, durations[home], lo, hi, now, booked,
                                        need_disk)
            if t is not None:
                best, at_home = t, True
        alone = own if shared < 0 else -1  # home's group, when it has no other node
        ordered = order is not None and len(self.nodes) <= SCAN_NODES
        stop = lo if ordered else -math.inf  # a group that fits by then ends the search
        inf = math.inf
        bound = math.nextafter(best, inf) if at_home else best  # (ties are kept)
        for group, node in groups.firsts(order.tolist() if ordered else None):  # type: ignore[union-attr]
            if slots[node] < tasks:
                continue
            t = skylines[group].first_fit(tasks, need_mem, durations[node], lo, bound, now,
                                          booked if group == alone else inf, need_disk)
            if t is None:
                continue
            if t < best:  # (nothing found yet: best is hi, and t before it)
                best, first, at_home = t, [group], False
                bound = math.nextafter(t, inf)
            else:
                first.append(group)
            if best <= stop and group != shared:
                break
        if not first and not at_home:
            return None
        if key is not None and len(first) + at_home == 1:  # one node fits first: preferred
            if at_home:
                return best, ((home, tasks),)
            if first[0] != shared and groups.sizes[first[0]] == 1:
                return best, ((groups.one(first[0]), tasks),)
        fit = groups.mask(first)
        if shared >= 0:
            fit[home] = at_home
        return best, ((choose_node(fit, key, rng, order), tasks),)

    def _earliest_many_nodes(self, job: Job, duration: float, key: np.ndarray | None,
                             rng: np.random.Generator, order: np.ndarray | None, lo: float,
                             hi: float) -> tuple[float, Allocation] | None:
        """Tries the times at which some node changes, in order, with what each group keeps
        free over the whole window, placed on its nodes where it may fit
        (:meth:`_may_fit_at`)."""
        first = self.total.first_fit(job.ntasks, 0.0, duration, lo, hi, self.now)
        if first is None:
            return None
        skylines, sizes, where = self.groups.positions()
        steps = _Steps(skylines, job.job_memory_mb > 0, job.job_disk_mb > 0)
        for t, cores, mem, disk in self._may_fit_at(job, steps, sizes, self._slots_of(where),
                                                    duration, first, hi, math.inf):
            if where is not None:  # the groups' to their nodes'
                cores, mem, disk = cores[where], mem[where], disk[where]
            allocation = place(job, cores, mem, disk, key, rng, order=order)
            if allocation is not None:
                return t, allocation
        return None

    def may_start_before(self, job: Job, duration: float, lo: float, hi: float,
                         booked: float, nodes: Iterable[int]) -> float | None:
        """A necessary test that a multi-node job booked on ``nodes`` from ``booked`` on (its
        booking still in the profile) has a slot starting in ``[lo, hi)`` once released,
        without releasing it: before ``booked`` its own booking gives it nothing back, so
        what the groups of its nodes keep free over each window until then, and what the
        other groups keep free over the whole window, must be room enough. The first start
        that passes (none before it can fit once released), or ``None``. The groups' steps
        are read once for as many tests as come while the profile stays the same. (Starts
        from ``booked`` on are not tested: the booking is there.)"""
        now, hi = self.now, min(hi, booked)
        first = self.total.first_fit(job.ntasks, 0.0, duration, max(lo, now), hi, now, booked)
        if first is None:
            return None
        with_mem, with_disk = job.job_memory_mb > 0, job.job_disk_mb > 0
        if self._steps is None or self._steps[0] != (self.version, with_mem, with_disk):
            skylines, sizes, where = self.groups.positions()
            self._steps = ((self.version, with_mem, with_disk),
                           _Steps(skylines, with_mem, with_disk), sizes, where,
                           self._slots_of(where))
        _, steps, sizes, where, slots = self._steps
        own = np.zeros(len(steps.lengths), dtype=bool)
        own[list(nodes) if where is None else where[list(nodes)]] = True
        # its nodes' windows cut at booked (after every start tried)
        begun = ~own.repeat(steps.lengths) | (steps.times < booked)
        passed = next(self._may_fit_at(job, steps, sizes, slots, duration, first, hi, booked,
                                       begun), None)
        return None if passed is None else passed[0]

    def _slots_of(self, where: np.ndarray | None) -> np.ndarray:
        """The slots of each group's nodes (``where``: each node's group's position)."""
        if where is None:
            return self.slot_array
        slots = np.empty(int(where.max()) + 1, dtype=np.int64)
        slots[where] = self.slot_array
        return slots

    def _may_fit_at(self, job: Job, steps: "_Steps", sizes: np.ndarray | None,
                    slots: np.ndarray, duration: float, first: float, hi: float, until: float,
                    begun: np.ndarray | None = None
                    ) -> Iterator[tuple[float, np.ndarray, np.ndarray, np.ndarray]]:
        """The starts from ``first`` on, before ``hi``, where a multi-node job may fit over
        ``[t, min(t + duration, until))`` by :func:`_deficit` (each with the least free cores,
        memory and disk of each group there), in order; with ``begun`` (a mask of steps), the
        groups' windows end at ``until`` only where it leaves out the steps that begin later,
        the others last their whole ``duration``.
        Where the platform as a whole has too few free cores over the window, the search goes
        on from where it has enough; where the groups do not have room (their free cores alone
        telling), from where they may have enough more (:meth:`_Steps.recovery`: a window
        starting later ends no earlier, cut or not)."""
        now, tasks, total = self.now, job.ntasks, self.total
        starts = steps.starts(first, now, hi).tolist()
        i = 0
        while i < len(starts):
            t = starts[i]
            i += 1
            end = min(t + duration, until)
            if total.lowest(t, end)[0] < tasks:
                enough = total.first_fit(tasks, 0.0, duration, t, hi, now, until)
                if enough is None:
                    return
                i = bisect.bisect_left(starts, enough, i)
                continue
            inside = steps.inside(t, t + duration, begun)
            cores, mem, disk = steps.lowest_of(inside)
            rooms = capacity(job, cores, mem, disk)
            deficit = _deficit(job, rooms, sizes)
            if deficit > 0:
                if steps.mem is None and steps.disk is None:
                    gains = _gains(job, rooms, sizes, slots)
                    i = bisect.bisect_left(starts, steps.recovery(inside, cores, gains, deficit),
                                           i)
                continue
            yield t, cores, mem, disk

    def most_total(self, start: float, end: float) -> int:
        """The most free cores the platform has at some time in ``[start, end)``."""
        return self.total.highest(start, end)[0]


def _kinds(platform: Platform) -> list[int]:
    """Each node's type, as a number: nodes group only with nodes of their type (the same
    object: a loader makes one per type)."""
    numbers: dict[int, int] = {}
    return [numbers.setdefault(id(node.type), len(numbers)) for node in platform.nodes]


def _skyline(now: float, free: Resources,
             ends: list[tuple[float, int, float, float]]) -> Skyline:
    """A node with ``free`` resources now that gets back each ``(end, cores, mem, disk)``
    (sorted by end) then."""
    times, cores, mem, disk = [now], [free[0]], [free[1]], [free[2]]
    for end, group in groupby(ends, key=_END):
        if end == now:
            for _, count, count_mem, count_disk in group:
                cores[0] += count
                mem[0] += count_mem
                disk[0] += count_disk
            continue
        step_cores, step_mem, step_disk = 0, 0.0, 0.0
        for _, count, count_mem, count_disk in group:
            step_cores += count
            step_mem += count_mem
            step_disk += count_disk
        times.append(end)
        cores.append(cores[-1] + step_cores)
        mem.append(mem[-1] + step_mem)
        disk.append(disk[-1] + step_disk)
    return Skyline(times, cores, mem, disk)


class _Steps:
    """Skylines (each group's) as flat numpy arrays, one after the other, to find what all
    keep free over a window at once: a multi-node search looks at every group at each time it
    tries, and a Python loop there costs more than the rest of the search. Memory and disk
    are read only when the job needs some (otherwise placement ignores them)."""

    def __init__(self, skylines: list[Skyline], with_mem: bool, with_disk: bool) -> None:
        times: list[float] = []
        cores: list[int] = []
        counts = []
        for skyline in skylines:  # (one pass for both columns: a third faster than two)
            steps = skyline.times
            times += steps
            cores += skyline.cores
            counts.append(len(steps))
        lengths = np.array(counts, np.intp)
        self.times = np.array(times, np.float64)
        self.cores = np.array(cores, np.int64)
        self.mem = _flat(skylines, _MEM, np.float64) if with_mem else None
        self.disk = _flat(skylines, _DISK, np.float64) if with_disk else None
        self.unlimited = np.full(len(skylines), math.inf)
        self.lengths = lengths
        self.offsets = np.cumsum(lengths) - lengths
        self.following = np.empty(len(self.times))  # when each step ends
        self.following[:-1] = self.times[1:]
        self.following[self.offsets + lengths - 1] = math.inf
        self._sorted: np.ndarray | None = None  # every step's start, once each, in order

    def sorted_times(self) -> np.ndarray:
        """Every step's start, once each, in order (found once per set of steps: the searches
        of one profile state share it)."""
        if self._sorted is None:
            self._sorted = _distinct(self.times)
        return self._sorted

    def starts(self, first: float, now: float, hi: float = math.inf) -> np.ndarray:
        """The times in ``[first, hi)`` at which some node's step begins (its step holding
        ``first`` counts as beginning at ``max(its start, now)``), in order."""
        times = self.sorted_times()
        i, j = times.searchsorted(first, "right"), times.searchsorted(hi, "left")
        if now == first or (i and times[i - 1] == first):
            return np.concatenate(([first], times[i:j]))
        return times[i:j]

    def inside(self, start: float, end: float, begun: np.ndarray | None = None) -> np.ndarray:
        """The steps a window ``[start, end)`` covers: those that end after ``start`` and
        begin before ``end`` (and are ``begun``, if given: the steps left out of some
        skylines' windows, cut shorter; it keeps every step that begins by ``start``), or
        hold ``start``."""
        times = self.times
        early = times < end
        if begun is not None:
            early &= begun
        if end > start:  # (the step holding start begins before end: early has it)
            return (self.following > start) & early
        return (self.following > start) & (early | (times <= start))

    def lowest(self, start: float, end: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per skyline, the least free cores, memory and disk over ``[start, end)``; memory
        or disk not read is unlimited."""
        return self.lowest_of(self.inside(start, end))

    def lowest_of(self, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`lowest` over the steps ``inside`` (:meth:`inside`)."""
        cores = np.minimum.reduceat(np.where(inside, self.cores, _MOST), self.offsets)
        return cores, self._lowest(self.mem, inside), self._lowest(self.disk, inside)

    def recovery(self, inside: np.ndarray, cores: np.ndarray, gains: np.ndarray,
                 deficit: int) -> float:
        """The earliest start from which a window as long as the one ``inside`` marks may
        leave the skylines enough more than their least free cores over that one
        (``cores``) to make up ``deficit``, each skyline giving at most its ``gains`` (what
        a multi-node job may get more there, :func:`_gains`). A window starting before
        the latest end of the steps of a skyline that hold its least still covers one of
        them: what that skyline keeps free over it is never more. So no window starting
        before the earliest time at which the skylines whose steps end by then may give
        ``deficit`` in all can fit."""
        least = inside & (self.cores == cores.repeat(self.lengths))
        ends = np.maximum.reduceat(np.where(least, self.following, -math.inf), self.offsets)
        order = np.argsort(ends)  # (ties in any order: the end where the sum crosses is one)
        enough = int(np.searchsorted(np.cumsum(gains[order]), deficit))
        return float(ends[order[enough]]) if enough < len(order) else math.inf

    def _lowest(self, amounts: np.ndarray | None, inside: np.ndarray) -> np.ndarray:
        if amounts is None:
            return self.unlimited
        return np.minimum.reduceat(np.where(inside, amounts, math.inf), self.offsets)


_MOST = np.iinfo(np.int64).max
_MEM, _DISK = attrgetter("mem"), attrgetter("disk")


def _flat(skylines: list[Skyline], column: Callable[[Skyline], list], dtype: type
          ) -> np.ndarray:
    """One column of every skyline, one after the other (lists joined, then one array: twice
    as fast as ``np.fromiter`` over them)."""
    joined: list = []
    for values in map(column, skylines):
        joined += values
    return np.array(joined, dtype)


def _distinct(times: np.ndarray) -> np.ndarray:
    """``np.unique`` of runs of sorted times (each skyline's), a third faster: a stable sort
    merges the runs."""
    ordered = np.sort(times, kind="stable")
    keep = np.empty(len(ordered), dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _deficit(job: Job, rooms: np.ndarray, sizes: np.ndarray | None) -> int:
    """What a multi-node job lacks, from the tasks each group's nodes can take (``sizes``:
    how many nodes each has; ``None``: one each): a spread job's tasks, an even split's nodes
    (a quick necessary test that it fits: nothing)."""
    if job.spread:
        return job.ntasks - int(rooms.sum() if sizes is None else rooms @ sizes)
    fit = rooms >= even_split(job)[0]
    return job.nodes - int(np.count_nonzero(fit) if sizes is None else sizes[fit].sum())


def _gains(job: Job, rooms: np.ndarray, sizes: np.ndarray | None,
           slots: np.ndarray) -> np.ndarray:
    """The most each group may give a multi-node job more than its ``rooms`` (in what
    :func:`_deficit` counts; ``slots``: its nodes' cores): a spread job's tasks up to its
    nodes' cores; an even split's nodes, where they are short of a share they can hold."""
    counts = 1 if sizes is None else sizes
    if job.spread:
        return (slots - rooms) * counts
    base = even_split(job)[0]
    return ((rooms < base) & (slots >= base)) * counts


def first_fit_time(view: ClusterView, job: Job, key: np.ndarray | None, rng: np.random.Generator,
                   order: np.ndarray | None = None
                   ) -> tuple[float, Allocation, np.ndarray, np.ndarray, np.ndarray]:
    """Earliest projected time ``job`` can start, its allocation then, and the free cores,
    memory and disk projected at that time. Walks estimated ends in order and stops at the
    first fit, so it costs only as many releases as the job needs. After the first try,
    placement is tried only when the releases could have made room: enough free slots in all,
    and for a one-node job a released node with as many (the others did not fit before).
    On a platform with reservations, or with bookings: :func:`_first_fit_beside_reservations`.
    ``inf`` and no allocation when the job fits nowhere even once every running job has ended
    (nodes whose availability went down: failures, set-points, which nothing foresees coming
    back); the free resources projected are then those of now."""
    if view.platform.reservations or view.bookings:
        return _first_fit_beside_reservations(view, job, key, rng, order)
    # releases add to a list of free cores (numpy's scalar access costs more than the walk)
    cores, mem, disk = view.free_slots.tolist(), view.free_mem.copy(), view.free_disk.copy()
    now = view.now
    runs = sorted(view.running.values(), key=_EST_END)
    if runs and runs[0].est_end < now:  # jobs past their estimate end now, in view order
        runs = sorted(runs, key=view.estimated_end)
    total, need, one_node = view.total_free_slots, job.ntasks, job.nodes == 1
    i, t, may_fit = 0, now, True
    while True:
        while i < len(runs) and max(runs[i].est_end, now) <= t:
            run = runs[i]
            for node, count in run.allocation:  # its slots: a core per task
                cores[node] += count
                may_fit = may_fit or (one_node and cores[node] >= need)
            total += run.job.ntasks
            if run.job.job_memory_mb or run.job.job_disk_mb:  # (the hot loop of a long queue)
                for (node, _), memory, disk_mb in footprint(run.job, run.allocation):
                    mem[node] += memory
                    disk[node] += disk_mb
            i += 1
        if may_fit and total >= need:
            projected = np.array(cores, dtype=view.free_slots.dtype)
            allocation = place(job, projected, mem, disk, key, rng, order=order)
            if allocation is not None:
                return t, allocation, projected, mem, disk
        if i == len(runs):
            return math.inf, (), view.free_slots.copy(), view.free_mem.copy(), \
                view.free_disk.copy()
        t = max(runs[i].est_end, now)
        may_fit = not one_node


def _first_fit_beside_reservations(view: ClusterView, job: Job, key: np.ndarray | None,
                                   rng: np.random.Generator, order: np.ndarray | None
                                   ) -> tuple[float, Allocation, np.ndarray, np.ndarray,
                                              np.ndarray]:
    """:func:`first_fit_time` beside the platform's reservations, which may take cores after
    the job would start: its earliest start for its whole estimated duration (per node, as
    conservative backfilling books it) in :meth:`Profile.of_running`. The free cores projected
    are, on the nodes of its allocation, the fewest over that duration, elsewhere those at its
    start. ``inf`` and no allocation when no time fits (a reservation for good holds what it
    needs); the free resources projected are then those of now.

    The profile first holds only the reservations that begin before a horizon, one longest
    window after the running jobs' last estimated end (a long trace of reservations costs
    nothing beyond it), and the search only starts whose windows end before it; then, where
    none fits, every reservation, and the starts from there on."""
    durations = view.speed.estimates(job).tolist()
    longest = max(durations)
    horizon = max(map(view.estimated_end, view.running.values()), default=view.now) + longest
    profile = Profile.of_running(view, horizon)
    found = profile.earliest(job, durations, key, rng, order, hi=horizon - longest)
    if found is None:
        profile = Profile.of_running(view)
        found = profile.earliest(job, durations, key, rng, order, lo=horizon - longest)
    if found is None:
        return math.inf, (), view.free_slots.copy(), view.free_mem.copy(), view.free_disk.copy()
    start, allocation = found
    end = start + (durations[allocation[0][0]] if job.nodes == 1 else max(durations))
    used = {node for node, _ in allocation}  # (a window of no length: the step at start)
    cores, mem, disk = zip(*(skyline.lowest(start, end if node in used else start)
                             for node, skyline in enumerate(profile.nodes)))
    return (start, allocation, np.array(cores, dtype=view.free_slots.dtype), np.array(mem),
            np.array(disk))
