"""The scan's candidate lists (Toporkov & Yemelyanov, ICCS 2018, §3.2, step 3).

The slots are grouped by performance: group ``P_k`` holds the slots of performance
``>= P_k`` (a slot is in several groups), for every distinct performance ``P_k`` of at least
the request's minimum, from the highest down. In group ``P_k`` a window lasts
``T_k = V / P_k``; its candidate starts are the starts of the group's slots, in increasing
order, and the candidate list ``S_W`` at start ``t`` holds the group's slots that start by
``t`` and end no earlier than ``t + T_k`` (the paper adds the slots one by one in order of
start and drops those that end too early; slots of one start are added together here, which
can only add candidates at that start). The paper's step A skips a start whose ``S_W`` holds no
slot of performance exactly ``P_k``: every window there was met in a faster group.

One numpy table per group answers every start at once: a boolean matrix starts × slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from hetsched.coalloc.model import Request


class Spans(Protocol):
    """What the scan reads of a set of slots (:class:`~hetsched.coalloc.model.Slots`, or what
    is left of them as MultipleBest cuts windows out): one entry per slot."""

    start: np.ndarray
    end: np.ndarray
    performance: np.ndarray
    price: np.ndarray


@dataclass(frozen=True)
class Group:
    """Group ``level`` (``P_k``) of a scan: windows last ``runtime`` (``T_k``); ``slots``:
    the positions of its slots that are long enough, by start; ``starts``: the candidate
    starts; ``member[a, j]``: whether ``slots[j]`` is in ``S_W`` at ``starts[a]``;
    ``exact[a]``: whether that ``S_W`` holds a slot of performance ``level`` (step A)."""

    level: float
    runtime: float
    slots: np.ndarray
    starts: np.ndarray
    member: np.ndarray
    exact: np.ndarray

    @property
    def counts(self) -> np.ndarray:
        """How many slots ``S_W`` holds at each start."""
        return self.member.sum(axis=1)

    def maximal(self) -> np.ndarray:
        """Whether each start's ``S_W`` is *maximal*: some of its slots are gone at the next
        start (or it is the last). Between two such starts ``S_W`` only grows, so every other
        list is a subset of the next maximal one."""
        last = np.ones(len(self.starts), dtype=bool)
        last[:-1] = (self.member[:-1] & ~self.member[1:]).any(axis=1)
        return last


def levels(table: Spans, request: Request) -> np.ndarray:
    """The groups' performances: the distinct performances of at least the request's
    minimum, highest first."""
    found = distinct(table.performance)
    return found[found >= request.min_performance][::-1]


def group(table: Spans, level: float, runtime: float, before: float = np.inf) -> Group:
    """Group ``level`` with windows of ``runtime``, keeping only the starts before ``before``
    (the search's bound on a start that can still matter)."""
    picked = np.flatnonzero((table.performance >= level) & (table.end - table.start >= runtime)
                            & (table.start < before))
    start, end = table.start[picked], table.end[picked]
    starts = distinct(start)
    member = (start[None, :] <= starts[:, None]) & (end[None, :] >= starts[:, None] + runtime)
    exact = (member & (table.performance[picked] == level)[None, :]).any(axis=1)
    return Group(float(level), float(runtime), picked, starts, member, exact)


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct ``values``, increasing (``numpy.unique`` without its checks, which cost
    more than the sort here)."""
    ordered = np.sort(values)
    keep = np.ones(ordered.size, dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def least_sums(found: Group, values: np.ndarray, n: int) -> np.ndarray:
    """Per start, the sum of the ``n`` least ``values`` (one per slot of the group) in
    ``S_W``; ``inf`` where it holds fewer than ``n`` slots."""
    order = np.argsort(values, kind="stable")
    member = found.member[:, order]
    first = member & (np.cumsum(member, axis=1) <= n)
    sums = first @ values[order]
    sums[member.sum(axis=1) < n] = np.inf
    return sums


def least_of(found: Group, values: np.ndarray, n: int, row: int) -> np.ndarray:
    """The table positions of the slots of the ``n`` least ``values`` (one per slot of the
    group) in ``S_W`` at start ``row`` (ties: the earlier slot in the table)."""
    inside = np.flatnonzero(found.member[row])
    return found.slots[inside[np.argsort(values[inside], kind="stable")[:n]]]
