"""The resource rules, in one place: what fits where, how a job's tasks split over nodes and
over a node's processors, and how threads share cores. The engine, the view, the feasibility
check and the schedulers all use these functions.

A node offers *slots* (``cores * oversubscription`` threads; one task is one thread), memory
and disk. A job asks for one slot per task and for ``memory_mb`` and ``disk_mb`` in all: a
node running ``c`` of its ``n`` tasks gives it :func:`share` of them, ``c / n`` of each, and
the job's amounts when it runs them all (a one-node job), in whole KB as node sizes are
(:func:`~hetsched.platform.model.whole_kb`: their sums are exact). Within a node, a job's
threads go to the processors in order, each taking the free cores it has; threads beyond the
free cores (oversubscription) go one by one to the processor with the fewest threads per core
(the lowest index on ties).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat
from math import floor
import numpy as np

from hetsched.models.speed import missing_types
from hetsched.parsing import quote
from hetsched.platform.model import KB_PER_MB, NodeType, Platform, whole_kb
from hetsched.workload.model import SPREAD, Job


def share(total: float, tasks: int, ntasks: int) -> float:
    """The part of a whole-job amount (memory, disk) that ``tasks`` of its ``ntasks`` tasks
    take on one node: all of it for all the tasks (no per-task rounding), else ``total *
    tasks / ntasks``, in whole KB."""
    if not total:  # most jobs ask for no memory or disk
        return 0.0
    # whole_kb's rounding, inline: on every start and end of a job with memory or disk
    return floor((total if tasks == ntasks else total * tasks / ntasks) * KB_PER_MB) / KB_PER_MB


#: Where a job's tasks go: ``(node, tasks)`` pairs.
Allocation = tuple[tuple[int, int], ...]


#: One node's free slots, memory and disk (MB). A plain tuple: backfilling makes one at every
#: look at a node's skyline (a named tuple costs ten times more to make).
Resources = tuple[int, float, float]


def footprint(job: Job, allocation: Sequence[tuple[int, int]]
              ) -> Iterator[tuple[tuple[int, int], float, float]]:
    """What ``job`` takes on each node of ``allocation``: a slot per task and its
    :func:`share` of memory and disk there, as ``((node, tasks), memory, disk)`` in the
    allocation's order. (An iterator of the allocation's own pairs: on every booking's and
    release's path, building a tuple per node would cost more than the rest of the loop.)"""
    memory, disk, ntasks = job.job_memory_mb, job.job_disk_mb, job.ntasks
    return zip(allocation,
               [share(memory, tasks, ntasks) for _, tasks in allocation] if memory else _ZEROS,
               [share(disk, tasks, ntasks) for _, tasks in allocation] if disk else _ZEROS)


_ZEROS = repeat(0.0)


def _shares(total: float | np.ndarray, tasks: np.ndarray,
            ntasks: int | np.ndarray) -> np.ndarray:
    """:func:`share` of fewer than ``ntasks`` tasks, per element of ``tasks`` (``total`` and
    ``ntasks`` may be columns, one row per job)."""
    return np.floor(total * tasks / ntasks * KB_PER_MB) / KB_PER_MB


def capacity(job: Job, free_slots: np.ndarray, free_mem: np.ndarray,
             free_disk: np.ndarray) -> np.ndarray:
    """Tasks of ``job`` each node can take given free slots, memory and disk."""
    room = free_slots
    if job.job_memory_mb > 0 and free_mem.min() < job.job_memory_mb:  # memory binds somewhere
        room = np.minimum(room, _tasks_within(job.job_memory_mb, job.ntasks, free_mem))
    if job.job_disk_mb > 0 and free_disk.min() < job.job_disk_mb:
        room = np.minimum(room, _tasks_within(job.job_disk_mb, job.ntasks, free_disk))
    return room


def capacities(jobs: Sequence[Job], free_slots: np.ndarray, free_mem: np.ndarray,
               free_disk: np.ndarray) -> np.ndarray:
    """:func:`capacity` of each of ``jobs`` at once, shape ``(len(jobs), nodes)``, or
    ``(1, nodes)`` (the same row for every job: broadcast it) where no job asks for memory or
    disk and ``free_slots`` is per node; ``free_slots`` per node, or per job and node (what
    reservations leave each job). The same arithmetic (:func:`_tasks_within`) on the rows of
    the jobs whose memory or disk binds somewhere. (Which rows those are is found in Python
    and numpy is called only for them: on an action mask's 16 x 20 pairs, numpy's fixed cost
    per call is most of the work.)"""
    nodes = free_slots.shape[-1]
    asking = [(i, job) for i, job in enumerate(jobs)
              if job.job_memory_mb > 0 or job.job_disk_mb > 0]
    room = free_slots.reshape(-1, nodes)
    if not asking:
        return room
    room = room.repeat(len(jobs) if free_slots.ndim == 1 else 1, 0)  # (a copy, to lower)
    for amount, free in (("job_memory_mb", free_mem), ("job_disk_mb", free_disk)):
        asks = [(i, total, job.ntasks) for i, job in asking
                if (total := getattr(job, amount)) > 0]
        if not asks:
            continue
        least = free.min()
        binding = [ask for ask in asks if ask[1] > least]  # where it binds somewhere
        if binding:
            rows, total, ntasks = (np.array(column) for column in zip(*binding))
            room[rows] = np.minimum(room[rows], _tasks_within(
                total[:, None].astype(float), ntasks[:, None].astype(float), free))
    return room


def room(job: Job, slots: int, free_mem: float, free_disk: float) -> int:
    """The scalar form of :func:`capacity` for one node's free slots, memory and disk (like
    it, exact up to the job's task count)."""
    return min(slots, _tasks_in(job.job_memory_mb, job.ntasks, free_mem, slots),
               _tasks_in(job.job_disk_mb, job.ntasks, free_disk, slots))


def _tasks_in(total: float, ntasks: int, free: float, most: int) -> int:
    """The scalar form of :func:`_tasks_within` (``most`` when ``total`` fits whole)."""
    if total <= 0 or free >= share(total, ntasks, ntasks):
        return most
    tasks = floor((free + 1 / KB_PER_MB) * ntasks / total)
    if share(total, tasks, ntasks) > free:  # the estimate's rounding, either way
        return tasks - 1
    return tasks + (tasks + 1 < ntasks and share(total, tasks + 1, ntasks) <= free)


def _tasks_within(total: float | np.ndarray, ntasks: int | np.ndarray,
                  free: np.ndarray) -> np.ndarray:
    """Per node, the most tasks whose :func:`share` of ``total`` fits in ``free``: fewer
    than ``ntasks`` take less than ``total * tasks / ntasks + 1 KB`` (``free`` is in whole
    KB), up to the estimate's rounding. ``total`` and ``ntasks`` may be columns, one row per
    job."""
    whole = np.floor(total * KB_PER_MB) / KB_PER_MB  # share() of all the tasks
    # in float first: unlimited memory (inf) must not overflow the integer conversion
    tasks = np.floor((np.minimum(free, whole) + 1 / KB_PER_MB) * ntasks / total)
    tasks -= _shares(total, tasks, ntasks) > free
    tasks += (tasks + 1 < ntasks) & (_shares(total, tasks + 1, ntasks) <= free)
    return np.where(free >= whole, ntasks, tasks).astype(np.int64)


def fits(job: Job, tasks: int, node: int, free_slots: np.ndarray, free_mem: np.ndarray,
         free_disk: np.ndarray) -> bool:
    """Whether ``tasks`` tasks of ``job`` fit in node ``node``'s free slots, memory and disk
    (per-node arrays; only what the job asks for is read, with ``item``, numpy's cheapest
    scalar read: this is on every start's path)."""
    memory, disk, ntasks = job.job_memory_mb, job.job_disk_mb, job.ntasks
    return free_slots.item(node) >= tasks and \
        (memory <= 0 or free_mem.item(node) >= share(memory, tasks, ntasks)) \
        and (disk <= 0 or free_disk.item(node) >= share(disk, tasks, ntasks))


def fits_type(job: Job, node_type: NodeType) -> bool:
    """Whether a node of ``node_type`` has the memory and disk for all of ``job``'s tasks."""
    return _within(job.job_memory_mb, node_type.memory_mb) and \
        _within(job.job_disk_mb, node_type.disk_mb)


def _within(amount: float, size: float) -> bool:
    """Whether a node of ``size`` MB holds ``amount`` MB, both in whole KB (rounding down
    keeps the order: the rounding is needed only when ``amount`` is the larger)."""
    return size >= amount or whole_kb(size) >= whole_kb(amount)


def even_split(job: Job) -> tuple[int, int]:
    """``(base, extra)``: a ``nodes=k`` job puts ``base + 1`` tasks on ``extra`` of its nodes
    and ``base`` on the others."""
    return divmod(job.ntasks, job.nodes)


def allocation_problem(job: Job, nodes: list[int], cores: list[int], free_slots: np.ndarray,
                       free_mem: np.ndarray, free_disk: np.ndarray,
                       any_nodes: bool = False) -> str | None:
    """Why ``job`` cannot start now on ``(nodes[i], cores[i])`` pairs, or ``None``.

    The pairs must give ``job.ntasks`` tasks, name valid nodes once each, match the job's node
    count (1, exactly k with an even split, or any for ``SPREAD``; any when ``any_nodes``) and
    fit each node's free slots, memory and disk."""
    if len(nodes) == 1 and (job.nodes in (1, SPREAD) or any_nodes):  # the common case
        node = nodes[0]
        if cores[0] == job.ntasks and 0 <= node < free_slots.size and \
                fits(job, job.ntasks, node, free_slots, free_mem, free_disk):
            return None
    total = sum(cores)
    if total != job.ntasks:
        return f"allocates {total} cores for {job.ntasks} tasks"
    bad = [node for node in nodes if not 0 <= node < free_slots.size]
    if bad:
        return (f"has an invalid node index {bad[0]} (the platform's nodes are 0 to "
                f"{free_slots.size - 1})")
    empty = [f"{count} cores on node {node}" for node, count in zip(nodes, cores) if count <= 0]
    if empty:
        return (f"has an invalid node index or core count: {', '.join(empty)} (each node named "
                "gets at least 1 core)")
    if len(set(nodes)) != len(nodes):
        return "names a node twice"
    if not any_nodes and not job.spread:
        if len(nodes) != job.nodes:
            return f"uses {len(nodes)} nodes; the job asks for exactly {job.nodes}"
        base = even_split(job)[0]
        if job.nodes > 1 and any(c not in (base, base + 1) for c in cores):
            return f"splits its tasks unevenly: each node must get {base} or {base + 1}"
    for node, count in zip(nodes, cores):
        if not fits(job, count, node, free_slots, free_mem, free_disk):
            span = slice(node, node + 1)
            room = int(capacity(job, free_slots[span], free_mem[span], free_disk[span])[0])
            return f"needs {count} cores on node {node}, which has room for {max(room, 0)}"
    return None


def infeasibility(job: Job, platform: Platform) -> str | None:
    """A reason ``job`` can never start on any set of nodes of ``platform``, or ``None``. A
    job with an ETC row runs only where its row names every node type of the platform (the
    fit rules do not place by type)."""
    if job.etc:
        missing = missing_types(job, [t.name for t in platform.node_types])
        if missing:
            named = ", ".join(quote(name) for name, _ in job.etc)
            return (f"its etc row has no run time on node type(s) "
                    f"{', '.join(map(quote, missing))} of the platform (it names {named})")
    a = platform.arrays
    if job.nodes == 1:
        if (job.job_memory_mb <= 0 and job.job_disk_mb <= 0
                and job.ntasks <= platform.max_node_slots):
            return None  # the common case, without numpy
        if job.ntasks > platform.max_node_slots:
            return (f"needs {job.ntasks} cores on one node; the largest node "
                    f"{_holds(platform, platform.max_node_slots)}")
        if any(t.slots >= job.ntasks and fits_type(job, t) for t in platform.node_types):
            return None  # all its tasks on one node: it needs exactly its memory and disk
        amounts = [f"{amount:g} MB of {what}" for amount, what in
                   ((job.job_memory_mb, "memory"), (job.job_disk_mb, "disk")) if amount > 0]
        return f"needs {' and '.join(amounts)} on one node; no node has that much"
    if job.spread:
        if _usable(job, platform, job.ntasks).sum() >= job.ntasks:
            return None
        return f"needs {job.ntasks} cores; the platform {_holds(platform, int(a.slots.sum()))}"
    if job.nodes > job.ntasks:
        return f"asks for {job.nodes} nodes but has only {job.ntasks} tasks"
    base, extra = even_split(job)
    usable = _usable(job, platform, base + 1)
    if np.count_nonzero(usable >= base) >= job.nodes and \
            np.count_nonzero(usable > base) >= extra:
        return None
    return (f"needs {job.nodes} nodes for {job.ntasks} tasks ({base} or {base + 1} each); "
            f"the platform has too few such nodes")


def _holds(platform: Platform, slots: int) -> str:
    """``has N`` (cores), or ``runs at most N threads`` when nodes may be oversubscribed."""
    if all(t.oversubscription == 1 for t in platform.node_types):
        return f"has {slots}"
    return f"runs at most {slots} threads (cores times oversubscription)"


def _usable(job: Job, platform: Platform, per_node: int) -> np.ndarray:
    """Tasks each node could ever give ``job`` if it asks ``per_node`` there."""
    a = platform.arrays
    return capacity(job, np.minimum(a.slots, per_node), a.memory_mb, a.disk_mb)


def split_over_processors(threads: int, free: list[int], load: list[int],
                          cores: list[int]) -> list[int]:
    """Threads per processor for ``threads`` new threads on one node, given each processor's
    free cores, current threads and cores (see the module's rule)."""
    taken = [0] * len(free)
    for p, room in enumerate(free):
        if threads <= 0:
            return taken
        if room > 0:
            taken[p] = min(room, threads)
            threads -= taken[p]
    for _ in range(threads):  # oversubscription: the least loaded processor, per thread
        p = min(range(len(cores)), key=lambda q: ((load[q] + taken[q]) / cores[q], q))
        taken[p] += 1
    return taken
