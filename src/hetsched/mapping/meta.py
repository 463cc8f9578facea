"""Metaheuristics of Braun et al. (JPDC 61, 2001): GA, SA, GSA and Tabu search.

A solution is an assignment vector (task -> machine), the fitness its makespan (lower is
better). Every random choice goes through the ``rng`` passed in (``numpy.random.Generator``),
so a run is deterministic for a seed as long as it stops on its iteration rules; a
``time_limit`` (seconds) makes it stop early, which depends on the machine's speed.
"""

from __future__ import annotations

import math
import time

import numpy as np

from hetsched.errors import ConfigError
from hetsched.mapping.core import Mapping, as_etc, as_ready, make_mapping
from hetsched.mapping.greedy import min_min, min_min_on
from hetsched.mapping.machines import CoreSlots


def population_loads(etc: np.ndarray, pop: np.ndarray, ready: np.ndarray) -> np.ndarray:
    """Machine finish times of every chromosome of ``pop`` (p × n) -> (p × m)."""
    p, n = pop.shape
    m = etc.shape[1]
    flat = (np.arange(p)[:, None] * m + pop).ravel()
    work = np.bincount(flat, weights=etc[np.arange(n)[None, :], pop].ravel(), minlength=p * m)
    return work.reshape(p, m) + ready


def population_makespans(etc: np.ndarray, pop: np.ndarray, ready: np.ndarray) -> np.ndarray:
    return population_loads(etc, pop, ready).max(axis=1)


def _rng(rng: np.random.Generator | None) -> np.random.Generator:
    return np.random.default_rng(0) if rng is None else rng


class _Clock:
    def __init__(self, time_limit: float | None) -> None:
        self.began = time.perf_counter()
        self.deadline = None if time_limit is None else self.began + float(time_limit)

    def out(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def seconds(self) -> float:
        return time.perf_counter() - self.began


def _crossover(pop: np.ndarray, rows: np.ndarray, rng: np.random.Generator,
               probability: float) -> None:
    """Single-point crossover of random pairs among ``rows`` of ``pop`` (in place): each pair,
    with ``probability``, swaps the genes from a uniform cut point 1..n-1 on."""
    n = pop.shape[1]
    if n < 2 or rows.size < 2:
        return
    perm = rng.permutation(rows)
    half = perm.size // 2
    a, b = perm[:half], perm[half:2 * half]
    do = rng.random(half) < probability
    cuts = rng.integers(1, n, size=half)
    a, b, cuts = a[do], b[do], cuts[do]
    if a.size == 0:
        return
    tail = np.arange(n)[None, :] >= cuts[:, None]
    left, right = pop[a], pop[b]
    pop[a] = np.where(tail, right, left)
    pop[b] = np.where(tail, left, right)


def _mutate(pop: np.ndarray, rows: np.ndarray, rng: np.random.Generator, probability: float,
            machines: int) -> None:
    """With ``probability`` per chromosome of ``rows``: one random task moves to a different,
    uniformly chosen machine (in place)."""
    if machines < 2 or rows.size == 0:
        return
    n = pop.shape[1]
    do = rows[rng.random(rows.size) < probability]
    tasks = rng.integers(0, n, size=do.size)
    shift = rng.integers(1, machines, size=do.size)
    pop[do, tasks] = (pop[do, tasks] + shift) % machines


def _initial_population(etc: np.ndarray, ready: np.ndarray, size: int,
                        rng: np.random.Generator, seed_min_min: bool,
                        machines: CoreSlots | None) -> np.ndarray:
    n, m = etc.shape
    pop = rng.integers(0, m, size=(size, n), dtype=np.int64)
    if seed_min_min:
        pop[0] = (min_min(etc, ready).assignment if machines is None
                  else min_min_on(machines.copy()).assignment)
    return pop


class _Evolution:
    """What the GA and the GSA share: the checked inputs, the population and its makespans,
    the elite (best mapping so far), the stopping rules and the result. With ``machines``
    (multi-core nodes, :class:`~hetsched.mapping.machines.CoreSlots`) a mapping's makespan is
    that of its tasks committed there in index order, and the Min-min seed is Min-min's on
    them."""

    def __init__(self, name: str, etc: object, ready: object, rng: np.random.Generator | None,
                 population: int, seed_min_min: bool, stall: int,
                 time_limit: float | None, machines: CoreSlots | None = None) -> None:
        self.name, self.stall, self.clock = name, stall, _Clock(time_limit)
        self.etc = as_etc(etc)
        self.ready = as_ready(ready, self.etc.shape[1])
        self.machines = machines
        self.rng = _rng(rng)
        if population < 2:
            raise ConfigError(f"{name}: population must be at least 2, got {population}")
        self.pop = _initial_population(self.etc, self.ready, population, self.rng,
                                       seed_min_min, machines)
        self.fit = self.makespans(self.pop)
        best = int(np.argmin(self.fit))
        self.elite, self.elite_fit = self.pop[best].copy(), float(self.fit[best])
        self.since = self.generation = 0

    def makespans(self, pop: np.ndarray) -> np.ndarray:
        if self.machines is None:
            return population_makespans(self.etc, pop, self.ready)
        return self.machines.makespans(pop)

    def stop(self, generations: int) -> str | None:
        """Why to stop before the next generation, or ``None``."""
        if self.generation >= generations:
            return "generations"
        if self.since >= self.stall:
            return "stall"
        if self.clock.out():
            return "time_limit"
        if np.all(self.pop == self.pop[0]):
            return "converged"
        return None

    def improved(self) -> bool:
        """Count a generation; keep its best as the elite if it is better."""
        self.generation += 1
        best = int(np.argmin(self.fit))
        if self.fit[best] < self.elite_fit:
            self.elite, self.elite_fit, self.since = self.pop[best].copy(), float(self.fit[best]), 0
            return True
        self.since += 1
        return False

    def result(self, reason: str) -> Mapping:
        info: dict[str, object] = {"generations": self.generation, "stop": reason}
        if self.machines is not None:
            info["model_makespan"] = self.elite_fit
        return make_mapping(self.name, self.etc, self.elite, self.ready,
                            seconds=self.clock.seconds(), info=info)


def ga(etc: object, ready: object = None, rng: np.random.Generator | None = None,
       population: int = 200, generations: int = 1000, stall: int = 150,
       crossover: float = 0.6, mutation: float = 0.4, seed_min_min: bool = True,
       time_limit: float | None = None, machines: CoreSlots | None = None) -> Mapping:
    """Genetic algorithm (Braun et al. 2001).

    Population of ``population`` assignment vectors: the Min-min solution plus uniformly random
    ones. Each generation: rank-based roulette-wheel selection (linear ranking: the i-th best of
    P has weight P - i) with elitism (the best chromosome so far is copied unchanged into slot
    0), single-point crossover of random pairs with probability ``crossover``, mutation (one
    random task to another random machine) with probability ``mutation`` per chromosome, then
    evaluation. Stops after ``generations`` generations, after ``stall`` generations without an
    improvement of the elite, when every chromosome is identical, or at ``time_limit``.
    The result is never worse than its Min-min seed (elitism). ``machines``: evaluate on
    multi-core nodes instead of ``ready`` (``etc`` must be theirs; the returned mapping's
    makespan is still the classic one, its ``info["model_makespan"]`` theirs).
    """
    evo = _Evolution("ga", etc, ready, rng, population, seed_min_min, stall, time_limit,
                     machines)
    if evo.etc.shape[0] == 0:
        return evo.result("trivial")
    rng, m = evo.rng, evo.etc.shape[1]
    weights = np.arange(population, 0, -1, dtype=np.float64)
    weights /= weights.sum()
    others = np.arange(1, population)
    while (reason := evo.stop(generations)) is None:
        ranked = np.argsort(evo.fit, kind="stable")
        chosen = ranked[rng.choice(population, size=population - 1, p=weights)]
        new = np.empty_like(evo.pop)
        new[0] = evo.elite
        new[1:] = evo.pop[chosen]
        _crossover(new, others, rng, crossover)
        _mutate(new, others, rng, mutation, m)
        evo.pop = new
        evo.fit = evo.makespans(new)
        evo.improved()
    return evo.result(reason)


def gsa(etc: object, ready: object = None, rng: np.random.Generator | None = None,
        population: int = 200, generations: int = 1000, stall: int = 150,
        crossover: float = 0.6, mutation: float = 0.4, cooling: float = 0.9,
        seed_min_min: bool = True, time_limit: float | None = None,
        machines: CoreSlots | None = None) -> Mapping:
    """Genetic simulated annealing (Braun et al. 2001).

    Same population, crossover and mutation as :func:`ga`, but selection follows an SA cooling
    schedule: each generation the whole population is paired at random, every pair is crossed
    over (probability ``crossover``) and every child mutated (probability ``mutation``); a child
    replaces its parent (the chromosome in its slot) if
    ``child makespan < parent makespan + T``, otherwise the parent survives. ``T`` starts at the
    mean makespan of the initial population and is multiplied by ``cooling`` every generation.
    Elitism: the best mapping so far replaces the worst chromosome whenever the population has
    lost it. Stopping rules and ``machines`` as for the GA.
    """
    evo = _Evolution("gsa", etc, ready, rng, population, seed_min_min, stall, time_limit,
                     machines)
    if evo.etc.shape[0] == 0:
        return evo.result("trivial")
    rng, m = evo.rng, evo.etc.shape[1]
    temp = float(evo.fit.mean())
    everyone = np.arange(population)
    while (reason := evo.stop(generations)) is None:
        child = evo.pop.copy()
        _crossover(child, everyone, rng, crossover)
        _mutate(child, everyone, rng, mutation, m)
        cfit = evo.makespans(child)
        take = cfit < evo.fit + temp
        evo.pop[take] = child[take]
        evo.fit[take] = cfit[take]
        temp *= cooling
        if not evo.improved() and evo.fit.min() > evo.elite_fit:
            worst = int(np.argmax(evo.fit))
            evo.pop[worst], evo.fit[worst] = evo.elite, evo.elite_fit
    return evo.result(reason)


def sa(etc: object, ready: object = None, rng: np.random.Generator | None = None,
       cooling: float = 0.9, stall: int = 150, max_iterations: int = 1_000_000,
       init: str | np.ndarray = "random", time_limit: float | None = None,
       machines: CoreSlots | None = None) -> Mapping:
    """Simulated annealing (Braun et al. 2001).

    Start from a uniformly random mapping (``init="random"``; ``"min_min"`` or an assignment
    vector also accepted); ``T`` starts at its makespan. Each iteration mutates the current
    mapping (one random task to another random machine). A better or equal makespan is
    accepted; a worse one is accepted when ``z > y`` with ``z`` uniform in [0, 1) and
    ``y = 1 / (1 + exp((old - new) / T))``. Then ``T *= cooling``. Stops after ``stall``
    iterations without a change of the current makespan, when ``T`` reaches 0, after
    ``max_iterations`` or at ``time_limit``; returns the best mapping seen.

    ``machines``: evaluate on multi-core nodes instead of ``ready``, as :func:`ga` does (each
    move decodes the whole mapping; a random start draws each task's machine among those that
    can run it).
    """
    clock = _Clock(time_limit)
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    rng = _rng(rng)
    n, m = arr.shape
    if isinstance(init, str):
        if init == "random" and machines is not None:
            assign = _feasible_random(machines.etc, rng)
        elif init == "random":
            assign = rng.integers(0, m, size=n, dtype=np.int64)
        elif init == "min_min":
            assign = (min_min(arr, r).assignment.copy() if machines is None
                      else min_min_on(machines.copy()).assignment)
        else:
            raise ConfigError(f"sa: unknown init {init!r} (random, min_min)")
    else:
        assign = np.array(init, dtype=np.int64)
    if machines is None:
        loads = r + np.bincount(assign, weights=arr[np.arange(n), assign], minlength=m)
        current = float(loads.max())
    else:  # the classic loads are not used
        loads, current = r.copy(), float(machines.makespans(assign[None])[0])
    best, best_assign = current, assign.copy()
    temp = current
    since, it, reason = 0, 0, "stall"
    if n == 0 or m < 2:
        reason = "trivial"
    else:
        # draw random numbers in blocks (same stream order as one draw per iteration)
        block = 4096
        while True:
            if since >= stall:
                reason = "stall"
                break
            if temp <= 0.0:
                reason = "frozen"
                break
            if it >= max_iterations:
                reason = "iterations"
                break
            if it % block == 0:
                if clock.out():
                    reason = "time_limit"
                    break
                tasks = rng.integers(0, n, size=block)
                shifts = rng.integers(1, m, size=block)
                zs = rng.random(block)
            k = it % block
            it += 1
            t = int(tasks[k])
            old_j = int(assign[t])
            new_j = (old_j + int(shifts[k])) % m
            saved_old, saved_new = loads[old_j], loads[new_j]
            if machines is None:
                loads[old_j] -= arr[t, old_j]
                loads[new_j] += arr[t, new_j]
                new = float(loads.max())
            else:
                assign[t] = new_j
                new = float(machines.makespans(assign[None])[0])
                assign[t] = old_j
            accept = new <= current
            if not accept:
                y = 1.0 / (1.0 + math.exp((current - new) / temp))
                accept = zs[k] > y
            if accept:
                assign[t] = new_j
                since = 0 if new != current else since + 1
                current = new
                if new < best:
                    best, best_assign = new, assign.copy()
            else:
                loads[old_j], loads[new_j] = saved_old, saved_new
                since += 1
            temp *= cooling
    info: dict[str, object] = {"iterations": it, "stop": reason}
    if machines is not None:
        info["model_makespan"] = best
    return make_mapping("sa", arr, best_assign, r, seconds=clock.seconds(), info=info)


def _feasible_random(etc: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random machine per task among those that can run it (finite ETC)."""
    feasible = np.isfinite(etc)
    picks = (rng.random(etc.shape[0]) * feasible.sum(axis=1)).astype(np.int64)
    return np.array([np.flatnonzero(row)[k] for row, k in zip(feasible, picks)],
                    dtype=np.int64)


def _pair_hop(etc: np.ndarray, assign: np.ndarray, loads: np.ndarray, i: int,
              cmax: float) -> tuple[int, int, int] | None:
    """The first (in order of j, then machine of i, then machine of j) reassignment of the
    task pair (i, j > i) that makes the makespan strictly smaller, or None."""
    n, m = etc.shape
    critical = np.flatnonzero(loads >= cmax)
    if critical.size > 2:
        return None
    js = np.arange(i + 1, n)
    ai = assign[i]
    if critical.size == 2:
        if ai not in critical:
            return None
        other = critical[critical != ai][0]
        js = js[assign[js] == other]
    elif ai != critical[0]:
        js = js[assign[js] == critical[0]]
    if js.size == 0:
        return None
    aj = assign[js]
    base = np.broadcast_to(loads, (js.size, m)).copy()
    base[:, ai] -= etc[i, ai]
    base[np.arange(js.size), aj] -= etc[js, aj]
    # best of the machines untouched by (p, q): the first of each row's top 3 not in {p, q}
    top = np.argsort(-base, axis=1, kind="stable")[:, :3] if m >= 3 else \
        np.argsort(-base, axis=1, kind="stable")
    topv = np.take_along_axis(base, top, axis=1)
    p = np.arange(m)[None, :, None, None]
    q = np.arange(m)[None, None, :, None]
    free = (top[:, None, None, :] != p) & (top[:, None, None, :] != q)
    rest = np.where(free, topv[:, None, None, :], -np.inf).max(axis=3)  # (J, m, m)
    ei = etc[i][None, :, None]
    ej = etc[js][:, None, :]
    same = np.eye(m, dtype=bool)[None, :, :]
    load_p = base[:, :, None] + ei + np.where(same, ej, 0.0)
    load_q = base[:, None, :] + ej + np.where(same, ei, 0.0)
    span = np.maximum(rest, np.maximum(load_p, load_q))
    better = np.flatnonzero((span < cmax).ravel())
    if better.size == 0:
        return None
    k = int(better[0])
    jj, rem = divmod(k, m * m)
    return int(js[jj]), rem // m, rem % m


def tabu(etc: object, ready: object = None, rng: np.random.Generator | None = None,
         max_hops: int = 5_000, tabu_size: int = 100,
         time_limit: float | None = None) -> Mapping:
    """Tabu search (Braun et al. 2001).

    From a uniformly random mapping, *short hops*: task pairs ``(i, j)``, ``i < j``, are
    visited in lexicographic order and, for each pair, every reassignment of both tasks
    (machines ``p`` for ``i`` and ``q`` for ``j``, in lexicographic order); the first one that
    makes the makespan strictly smaller is applied (a successful short hop) and the scan goes
    on from the next pair. When a full sweep over all pairs finds no improvement the mapping is
    a local optimum: it joins the tabu list (the last ``tabu_size`` local optima) and a *long
    hop* jumps to a uniformly random mapping that differs from every tabu-list entry in at
    least half of the task assignments. Stops when successful short hops + long hops reach
    ``max_hops`` or at ``time_limit``; returns the best mapping seen.

    The pair scan is vectorised over ``j`` and both machines, and skips pairs that cannot
    lower the makespan (neither task on the critical machine, or more than two critical
    machines), which changes nothing to the first improving move found.
    """
    clock = _Clock(time_limit)
    arr = as_etc(etc)
    r = as_ready(ready, arr.shape[1])
    rng = _rng(rng)
    n, m = arr.shape
    assign = rng.integers(0, m, size=n, dtype=np.int64)
    best_assign = assign.copy()
    best = math.inf
    hops = long_hops = local_optima = 0
    tabu_list: list[np.ndarray] = []
    reason = "hops"
    if n < 2 or m < 2:
        best_assign = np.zeros(n, dtype=np.int64) if m == 1 else min_min(arr, r).assignment
        return make_mapping("tabu", arr, best_assign, r, seconds=clock.seconds(),
                            info={"hops": 0, "stop": "trivial"})
    while True:
        loads = r + np.bincount(assign, weights=arr[np.arange(n), assign], minlength=m)
        cmax = float(loads.max())
        if cmax < best:
            best, best_assign = cmax, assign.copy()
        improved_in_sweep = True
        stopped = False
        while improved_in_sweep:
            improved_in_sweep = False
            i = 0
            while i < n - 1:
                if hops >= max_hops or clock.out():
                    stopped = True
                    break
                hop = _pair_hop(arr, assign, loads, i, cmax)
                if hop is None:
                    i += 1
                    continue
                j, p, q = hop
                for task, mach in ((i, p), (j, q)):
                    loads[assign[task]] -= arr[task, assign[task]]
                    loads[mach] += arr[task, mach]
                    assign[task] = mach
                cmax = float(loads.max())
                hops += 1
                improved_in_sweep = True
                i += 1
            if stopped:
                break
        if cmax < best:
            best, best_assign = cmax, assign.copy()
        if stopped:
            reason = "time_limit" if clock.out() else "hops"
            break
        local_optima += 1
        tabu_list.append(assign.copy())
        del tabu_list[:-tabu_size]
        known = np.array(tabu_list)
        for _ in range(1000):
            assign = rng.integers(0, m, size=n, dtype=np.int64)
            if np.all((known != assign).sum(axis=1) >= n / 2):
                break
        hops += 1
        long_hops += 1
    return make_mapping("tabu", arr, best_assign, r, seconds=clock.seconds(),
                        info={"hops": hops, "long_hops": long_hops,
                              "local_optima": local_optima, "stop": reason})

