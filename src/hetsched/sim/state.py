"""Mutable cluster state owned by the engine: free resources, threads per processor, running
jobs, local queues, the boot state of on-demand nodes, and the exact per-node energy /
busy-time integrals.

:class:`RunningJob` objects are never changed once stored (a rate change stores a new one),
so a fork of the state shares them and copies only the containers (:meth:`ClusterState.copy`).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from hetsched.platform.model import Platform
from hetsched.models.contention import Group
from hetsched.sim.resources import fits, footprint, split_over_processors
from hetsched.sim.shared import SharedParts
from hetsched.workload.model import Job


@dataclass(slots=True)
class Share:
    """``threads`` threads of a running job on one processor (global index ``processor`` of
    node ``node``): each has ``remaining`` operations left as of ``since``, done at ``rate``
    operations per second. ``group`` is what a contention model sees of it (``None`` when the
    run has no model that can change rates). Never changed once its job's record is stored
    (a rate change makes new ones); a slotted class, whose fields read quicker than a named
    tuple's on the engine's hot paths."""

    node: int
    processor: int
    threads: int
    remaining: float
    rate: float
    since: float
    group: Group | None = None

    def remaining_at(self, now: float) -> float:
        return self.remaining - self.rate * (now - self.since)

    def end(self) -> float:
        return self.since + self.remaining / self.rate


@dataclass(slots=True)
class RunningJob:
    """A started job: its allocation (``(node, cores)`` pairs), its shares per processor and
    its expected ``end`` (the last share's). ``version`` invalidates finish events made stale
    by a rate change."""

    job: Job
    allocation: tuple[tuple[int, int], ...]
    start: float
    est_end: float
    shares: tuple[Share, ...]
    end: float
    version: int = 0

    @property
    def nodes(self) -> tuple[int, ...]:
        return tuple(node for node, _ in self.allocation)

    @property
    def node_index(self) -> np.ndarray:
        """The allocation's nodes as an array."""
        return np.array([node for node, _ in self.allocation])

    @property
    def cores(self) -> np.ndarray:
        """The allocation's core counts as an array (in ``node_index`` order)."""
        return np.array([cores for _, cores in self.allocation])


class ClusterState:
    """Per-node counters, threads per processor and energy accounting. Only the engine calls
    the mutators. ``free_slots`` counts free slots (threads a node can still take)."""

    def __init__(self, platform: Platform, t0: float) -> None:
        a = platform.arrays
        layout = platform.layout
        n = len(platform.nodes)
        self.platform = platform
        self.layout = layout
        self.free_slots = a.slots.copy()
        self.free_mem = a.memory_mb.copy()
        self.free_disk = a.disk_mb.copy()
        self.used_mem = np.zeros(n)
        self.used_mem_bw = np.zeros(n)
        self.busy_cores = np.zeros(n, dtype=np.int64)
        # the jobs running on each node, by index (shared with a copy until either changes one)
        self._by_node: SharedParts[dict[int, RunningJob]] = SharedParts([{} for _ in range(n)])
        self.local_queues: dict[int, deque[Job]] = {}
        self.running: dict[int, RunningJob] = {}
        # on-demand nodes: when each is (or will be) up, NaN while off (nodes not on demand
        # are up from the start); those booting; the runs waiting for a node's boot, which
        # hold their resources but run no thread yet (also in ``running``)
        self.up_since = [math.nan if n.type.on_demand else float(t0) for n in platform.nodes]
        self.booting: set[int] = set()
        self.held: dict[int, list[RunningJob]] = {}
        self.held_count = 0
        self.total_busy_cores = 0
        # free slots summed over the nodes, each counting at least 0; the nodes whose
        # availability shrank below the threads they run (with negative free slots)
        self.total_free = int(a.slots.sum())
        self.short: set[int] = set()
        self.threads = [0] * len(layout.cores)
        self.available = list(layout.cores)
        self._proc_power = list(layout.idle_w)
        self._power = [sum(layout.idle_w[f:f + c]) for f, c in zip(layout.first, layout.count)]
        self.total_power = float(sum(self._power))
        self._busy = [0] * n
        self._last_change = [float(t0)] * n
        self._energy = [0.0] * n
        self._busy_core_s = [0.0] * n
        self._busy_s = [0.0] * n

    def copy(self) -> "ClusterState":
        """An independent copy sharing the platform, the (never changed) running-job records
        and each node's dict of running jobs until either state changes it. This state then
        shares its dicts too, so it copies a node's dict before its next change to it
        (:meth:`SharedParts.copy`): what either state does never shows in the other."""
        other = object.__new__(ClusterState)
        for name, value in self.__dict__.items():
            if isinstance(value, (np.ndarray, list, dict, set)):
                value = value.copy()
            other.__dict__[name] = value
        other._by_node = self._by_node.copy()
        other.local_queues = {node: queue.copy() for node, queue in self.local_queues.items()}
        other.held = {node: runs.copy() for node, runs in self.held.items()}
        return other

    # ---- placement ------------------------------------------------------------------------
    def assign(self, node: int, threads: int) -> list[tuple[int, int]]:
        """``(processor, threads)`` pairs for ``threads`` new threads on ``node``."""
        first, count = self.layout.first[node], self.layout.count[node]
        if count == 1:
            return [(first, threads)]
        procs = range(first, first + count)
        taken = split_over_processors(
            threads, [self.available[p] - self.threads[p] for p in procs],
            [self.threads[p] for p in procs], [self.available[p] or 1 for p in procs])
        return [(first + i, t) for i, t in enumerate(taken) if t]

    def fits(self, node: int, tasks: int, job: Job) -> bool:
        return fits(job, tasks, node, self.free_slots, self.free_mem, self.free_disk)

    # ---- changes --------------------------------------------------------------------------
    def _integrate(self, node: int, now: float) -> None:
        dt = now - self._last_change[node]
        if dt > 0.0:
            self._energy[node] += self._power[node] * dt
            busy = self._busy[node]
            if busy:
                self._busy_core_s[node] += busy * dt
                self._busy_s[node] += dt
        self._last_change[node] = now

    def _change(self, run: RunningJob, sign: int, now: float) -> None:
        """Add (``sign`` 1) or remove (-1) ``run``'s threads and memory, each node integrated
        up to ``now`` first. The hot path of every start and end, so written with locals."""
        layout = self.layout
        last, power, busy_of, proc_power = self._last_change, self._power, self._busy, \
            self._proc_power
        energy, busy_core_s, busy_s = self._energy, self._busy_core_s, self._busy_s
        threads, cores_of, free, busy_cores = self.threads, layout.cores, self.free_slots, \
            self.busy_cores
        static_w, dynamic_w, idle_w = layout.static_w, layout.dynamic_w_per_core, layout.idle_w
        moved = busy_moved = 0
        watts = 0.0
        for share in run.shares:
            node, proc, count = share.node, share.processor, share.threads
            dt = now - last[node]
            if dt > 0.0:
                energy[node] += power[node] * dt
                busy = busy_of[node]
                if busy:
                    busy_core_s[node] += busy * dt
                    busy_s[node] += dt
                last[node] = now
            count *= sign
            old = threads[proc]
            new = threads[proc] = old + count
            cores = cores_of[proc]
            busy_new = new if new < cores else cores
            delta = busy_new - (old if old < cores else cores)
            if delta:  # the processor's busy cores, and so its power, change
                busy_cores[node] = busy_of[node] = busy_of[node] + delta
                busy_moved += delta
                proc_watts = static_w[proc] + dynamic_w[proc] * busy_new if busy_new \
                    else idle_w[proc]
                before = power[node]
                power[node] = before - proc_power[proc] + proc_watts
                proc_power[proc] = proc_watts
                watts += power[node] - before
            free[node] -= count
            moved += count
        self.total_free -= moved
        if self.short:
            self._recount_free()
        self.total_busy_cores += busy_moved
        self.total_power += watts
        job = run.job
        if job.job_memory_mb or job.job_disk_mb:
            self._take(run, sign)
        if job.mem_bw_gbs:
            for node, cores in run.allocation:
                self.used_mem_bw[node] += sign * cores * job.mem_bw_gbs

    def _take(self, run: RunningJob, sign: int, slots: bool = False) -> None:
        """Take (``sign`` 1) or give back (-1) ``run``'s memory and disk, and with ``slots``
        its slots (a run held for a boot, whose threads take none yet)."""
        for (node, count), memory, disk in footprint(run.job, run.allocation):
            if slots:
                self.free_slots[node] -= sign * count
            if memory:  # (numpy's scalar updates cost more than the test)
                self.free_mem[node] -= sign * memory
                self.used_mem[node] += sign * memory
            if disk:
                self.free_disk[node] -= sign * disk

    def _reserve(self, run: RunningJob, sign: int) -> None:
        """Take or give back ``run``'s slots, memory and disk, without running its threads."""
        self._take(run, sign, slots=True)
        self.total_free -= sign * run.job.ntasks
        if self.short:
            self._recount_free()

    def occupy(self, run: RunningJob, now: float) -> None:
        self._change(run, 1, now)
        self.store(run)

    def release(self, run: RunningJob, now: float) -> None:
        self._change(run, -1, now)
        self._forget(run)

    def _forget(self, run: RunningJob) -> None:
        """``run`` is no longer listed as running (on its nodes and in ``running``)."""
        index, by_node = run.job.index, self._by_node
        mine = by_node.mine
        for node, _ in run.allocation:
            jobs = mine[node] or by_node.writable(node)  # (None, or holding the job)
            del jobs[index]
            if not jobs:
                self._empty(node)
        del self.running[index]

    def _empty(self, node: int) -> None:
        """``node`` runs nothing: it uses no memory bandwidth, exactly (bandwidths taken and
        given back in another order may not add up to 0 in floating point, and
        ``high_mem_bw`` would not see idle nodes as equal; memory and disk, counted in whole
        KB, always do)."""
        self.used_mem_bw[node] = 0.0

    def jobs_on(self, node: int) -> dict[int, RunningJob]:
        """The jobs running on ``node``, by index (an empty dict for an idle node)."""
        return self._by_node.parts[node]

    def queue(self, node: int) -> deque[Job]:
        """``node``'s local queue, created when first used."""
        return self.local_queues.setdefault(node, deque())

    def store(self, run: RunningJob) -> None:
        """Record a running job (a new one, or a newer version after a rate change)."""
        index, by_node = run.job.index, self._by_node
        mine = by_node.mine
        for node, _ in run.allocation:
            jobs = mine[node]
            if jobs is None:
                jobs = by_node.writable(node)
            jobs[index] = run
        self.running[index] = run

    # ---- on-demand nodes ---------------------------------------------------------------------
    def is_off(self, node: int) -> bool:
        return math.isnan(self.up_since[node])

    def start_time(self, node: int, now: float) -> float:
        """When a job started on ``node`` at ``now`` starts: then, or at the node's boot
        completion (booting, or off: ``now`` plus its boot time)."""
        if node in self.booting:
            return self.up_since[node]
        if self.is_off(node):
            return now + self.platform.nodes[node].type.boot_time
        return now

    def boot(self, node: int, up: float) -> None:
        """``node`` starts booting; it is up at ``up``."""
        self.up_since[node] = up
        self.booting.add(node)

    def hold(self, run: RunningJob, node: int) -> None:
        """``run`` waits for ``node``'s boot: it holds its resources (and is listed as
        running) but runs no thread until :meth:`booted`."""
        self._reserve(run, 1)
        self.store(run)
        self.held.setdefault(node, []).append(run)
        self.held_count += 1

    def unhold(self, run: RunningJob) -> None:
        """``run`` stops waiting for a boot before it began (a failure of one of its nodes):
        its resources are given back and it is no longer listed as running."""
        for node, runs in self.held.items():
            if run in runs:
                runs.remove(run)
                if not runs:
                    del self.held[node]
                break
        self._reserve(run, -1)
        self.held_count -= 1
        self._forget(run)

    def booted(self, node: int) -> list[RunningJob]:
        """``node`` is up: the runs that waited for it, their resources given back so that
        the engine starts them (:meth:`occupy`), in the order they were held."""
        self.booting.discard(node)
        runs = self.held.pop(node, [])
        for run in runs:
            self._reserve(run, -1)
        self.held_count -= len(runs)
        return runs

    def set_available(self, node: int, cores: int) -> None:
        """Make ``cores`` of ``node``'s cores available, taking the others from its last
        processors first."""
        layout = self.layout
        first, count = layout.first[node], layout.count[node]
        before = sum(self.available[first:first + count])
        left = cores
        for p in range(first, first + count):
            self.available[p] = min(layout.cores[p], left)
            left -= self.available[p]
        slots = self.platform.nodes[node].type.oversubscription
        self.free_slots[node] += (cores - before) * slots
        if self.free_slots[node] < 0:  # its jobs keep their cores
            self.short.add(node)
        self._recount_free()

    def _recount_free(self) -> None:
        """``total_free`` counted again, while some node runs more threads than its available
        slots (its free slots are negative; it counts 0)."""
        free = self.free_slots
        self.total_free = int(np.maximum(free, 0).sum())
        self.short = {node for node in self.short if free[node] < 0}

    def close(self, now: float) -> None:
        """Integrate every node up to ``now`` (the end of the accounting window)."""
        for node in range(len(self._busy)):
            self._integrate(node, now)

    @property
    def energy_j(self) -> np.ndarray:
        return np.array(self._energy)

    @property
    def busy_core_seconds(self) -> np.ndarray:
        return np.array(self._busy_core_s)

    @property
    def busy_seconds(self) -> np.ndarray:
        return np.array(self._busy_s)
