"""DESiDE's busy and idle intervals (Chahal, Mathew, Nambiar, ICPE'19, §4.3.1), drawn once per
job: how much longer, or shorter, than its mean the slowest of a job's threads runs alone.

A thread of a job with CPU utilisation ``U`` and deviation ``sigma`` (``Job.cpu_util_sd``) runs
``T0`` alone, in ``n = ceil(T0 / tau)`` intervals of ``T0 / n`` (``tau``: the interval, DESiDE's
0.1 s). In each interval it is busy for a time drawn uniformly in ``[(1 - sigma) U, (1 + sigma)
U]`` times the interval, and idle for one drawn uniformly in ``[(1 - sigma) (1 - U), (1 +
sigma) (1 - U)]`` times it. With ``S_b`` the sum of ``n`` draws uniform on ``[-1, 1]`` for
the busy times and ``S_i`` for the idle ones, the thread's busy and idle totals, as shares of
``T0``, are::

    busy = U (1 + sigma S_b / n),    idle = (1 - U) (1 + sigma S_i / n)

The job ends with its slowest thread: of its ``m`` threads (one per task), the one whose
``busy + idle`` is largest, that is whose ``L = U S_b + (1 - U) S_i`` is largest. That thread
gives the job's *work factor* ``w = busy + idle`` (its time alone over ``T0``) and its *busy
share* ``busy / w`` (its effective U).

For ``n <= N_EXACT`` (and at most ``EXACT_THREADS`` threads) ``S_b`` and ``S_i`` are exact sums
of ``n`` uniforms (Irwin–Hall), drawn for every thread. Otherwise they are normal with the
sums' mean 0 and variance ``n / 3`` (the central limit theorem; Irwin–Hall is close to normal
from about 12 terms on), and the slowest thread is drawn at once: with ``a = U``, ``b = 1 - U``
and ``s^2 = (a^2 + b^2) n / 3``, its ``L`` is ``s`` times the largest of ``m`` standard
normals, ``Phi^-1(V^(1/m))`` with ``V`` uniform; ``K = b S_b - a S_i`` is independent of ``L``
and normal with variance ``s^2``; so ``S_b = (a L + b K) / (a^2 + b^2)`` and ``S_i = (b L - a
K) / (a^2 + b^2)``, each clipped to ``[-n, n]`` (the sums' range). Its cost does not grow with
``n`` or ``m``.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

#: Up to this many intervals the sums are drawn exactly, uniform by uniform.
N_EXACT = 12
#: A job of more threads is drawn by the normal approximation whatever its intervals.
EXACT_THREADS = 1024
#: Threads drawn at once by the exact draw (24 uniforms each at most: 12 MB).
_BATCH_THREADS = 1 << 16


def intervals(t0: np.ndarray, interval: float) -> np.ndarray:
    """``ceil(T0 / interval)``, at least 1 (a ratio within 1e-9 of a whole number counts as
    that number: 1.1 s in intervals of 0.1 s is 11 of them)."""
    return np.maximum(1.0, np.ceil(np.round(t0 / interval, 9)))


def slowest_threads(t0: np.ndarray, cpu_util: np.ndarray, sd: np.ndarray, threads: np.ndarray,
                    interval: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per job (arrays, one value per job, every ``sd > 0``), the work factor ``w`` and the
    busy share of its slowest thread, drawn from ``rng``: first the jobs drawn exactly, in
    order, then the others."""
    n = intervals(t0, interval)
    exact = (n <= N_EXACT) & (threads <= EXACT_THREADS)
    busy_sum, idle_sum = np.empty(len(n)), np.empty(len(n))
    busy_sum[exact], idle_sum[exact] = _exact_sums(
        n[exact].astype(np.int64), cpu_util[exact], threads[exact].astype(np.int64), rng)
    normal = ~exact
    busy_sum[normal], idle_sum[normal] = _normal_sums(n[normal], cpu_util[normal],
                                                      threads[normal], rng)
    busy = cpu_util * (1.0 + sd * busy_sum / n)
    work = busy + (1.0 - cpu_util) * (1.0 + sd * idle_sum / n)
    return work, busy / work


def _exact_sums(n: np.ndarray, cpu_util: np.ndarray, threads: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The busy and idle sums ``S_b``, ``S_i`` of each job's slowest thread, every thread's drawn
    as ``n`` uniforms each (``N_EXACT`` drawn per thread and sum, the first ``n`` kept)."""
    busy_sums, idle_sums = np.empty(len(n)), np.empty(len(n))
    for jobs in _batches(threads):
        counts = threads[jobs]
        kept = np.arange(N_EXACT) < np.repeat(n[jobs], counts)[:, None]
        busy, idle = (rng.uniform(-1.0, 1.0, (2, kept.shape[0], N_EXACT)) * kept).sum(axis=2)
        util = np.repeat(cpu_util[jobs], counts)
        owner = np.repeat(np.arange(counts.size), counts)
        order = np.lexsort((-(util * busy + (1.0 - util) * idle), owner))
        slowest = order[np.cumsum(counts) - counts]  # each job's first thread, by L descending
        busy_sums[jobs], idle_sums[jobs] = busy[slowest], idle[slowest]
    return busy_sums, idle_sums


def _batches(threads: np.ndarray) -> list[slice]:
    """Consecutive runs of jobs of about ``_BATCH_THREADS`` threads together."""
    if not threads.size:
        return []
    batch = (np.cumsum(threads) - 1) // _BATCH_THREADS
    edges = [0, *(np.flatnonzero(np.diff(batch)) + 1).tolist(), threads.size]
    return [slice(start, end) for start, end in zip(edges, edges[1:])]


def _normal_sums(n: np.ndarray, cpu_util: np.ndarray, threads: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``S_b``, ``S_i`` of each job's slowest thread under the normal approximation (above)."""
    a, b = cpu_util, 1.0 - cpu_util
    norm = a * a + b * b
    scale = np.sqrt(norm * n / 3.0)
    uniform = 1.0 - rng.random(n.size)  # in (0, 1]
    # P(a standard normal exceeds the largest of m), kept inside (0, 1) for the inverse
    tail = np.clip(-np.expm1(np.log(uniform) / threads), np.finfo(float).tiny,
                   np.nextafter(1.0, 0.0))
    inverse = NormalDist().inv_cdf
    largest = scale * -np.array([inverse(q) for q in tail.tolist()])
    other = scale * rng.standard_normal(n.size)
    return (np.clip((a * largest + b * other) / norm, -n, n),
            np.clip((b * largest - a * other) / norm, -n, n))
