"""The co-allocation model of Toporkov & Yemelyanov (ICCS 2018, §3.1): slots, a request, a window.

A *slot* is a span ``[start, end)`` in which a node is free, with the node's performance
``p_i``, its price ``c_i`` per unit of time and extra additive attributes (``q_i``, a storage
size, ...). A *request* asks for ``n`` slots on distinct nodes of performance at least ``p``
that start and finish together (a *window*), each computing ``volume`` (``V``) within a total
``budget`` (``C``), chosen by a criterion. A window of slots ``S`` started at ``t`` lasts
``T = V / min_{i∈S} p_i`` (its slowest slot sets it; every slot is reserved for ``T``), costs
``Σ_{i∈S} T·c_i`` and must lie inside each of its slots. Times, volumes and prices are in the
caller's units (the paper's are abstract time quanta and instructions).

:class:`Slots` holds a set of slots as numpy columns, sorted by start (then by node, then by
the order given): the scan (:mod:`hetsched.coalloc.search`) reads it as it is.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from hetsched.coalloc.criteria import Criterion, criterion
from hetsched.errors import ConfigError


@dataclass(frozen=True)
class Slot:
    """One free span of one node, with the node's performance, price per unit of time and
    extra additive attributes."""

    node: int
    start: float
    end: float
    performance: float
    price: float
    attributes: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    """A parallel job: ``n`` slots on distinct nodes of performance ``>= min_performance``,
    ``volume`` to compute on each, within ``budget``, chosen by ``criterion`` (a name of
    :data:`~hetsched.coalloc.criteria.CRITERIA`, or ``max:ATTRIBUTE`` / ``min:ATTRIBUTE``)."""

    n: int
    volume: float
    budget: float
    min_performance: float = 0.0
    criterion: str = "first_fit"

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, numbers.Integral) or self.n < 1:
            raise ConfigError(f"a request's n (nodes) must be a whole number >= 1, "
                              f"got {self.n!r}")
        _finite("volume", self.volume, positive=True)
        _finite("budget", self.budget)
        _finite("minimum performance", self.min_performance)
        criterion(self.criterion)

    @property
    def rule(self) -> Criterion:
        """The request's criterion."""
        return criterion(self.criterion)


@dataclass(frozen=True)
class Window:
    """``slots`` (positions in the :class:`Slots` searched) on ``nodes``, all reserved from
    ``start`` for ``runtime`` (``volume / min p``); ``cost`` is ``runtime · Σ c_i``,
    ``totals`` the sum of each attribute over the slots, and ``value`` the measure of the
    ``criterion`` that chose it (:meth:`Criterion.measure`)."""

    slots: tuple[int, ...]
    nodes: tuple[int, ...]
    start: float
    runtime: float
    cost: float
    totals: Mapping[str, float]
    criterion: str
    value: float

    @property
    def finish(self) -> float:
        return self.start + self.runtime


def _finite(name: str, value: object, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(float(value)) or float(value) < 0 \
            or (positive and float(value) == 0):
        need = "> 0" if positive else ">= 0"
        raise ConfigError(f"a request's {name} must be a finite number {need}, got {value!r}")
    return float(value)


class Slots:
    """Slots as numpy columns (``node``, ``start``, ``end``, ``performance``, ``price``, and one
    column per attribute), sorted by start, then node. Checked: finite values, performance
    ``> 0``, price ``>= 0``, every slot ending after it starts, and no two slots of one node
    overlapping (so a window's slots are on distinct nodes)."""

    def __init__(self, node: object, start: object, end: object, performance: object,
                 price: object, attributes: Mapping[str, object] | None = None) -> None:
        columns = [np.asarray(node), *(_column(c) for c in (start, end, performance, price))]
        extra = {str(k): _column(v) for k, v in (attributes or {}).items()}
        if len({c.shape for c in (*columns, *extra.values())}) > 1 or columns[0].ndim != 1:
            raise ConfigError("slots: every column must be one-dimensional, of one length")
        if columns[0].size and (not np.issubdtype(columns[0].dtype, np.integer)
                                or columns[0].min() < 0):
            raise ConfigError("slots: nodes must be whole numbers >= 0")
        node, start, end, performance, price = columns
        order = np.lexsort((node, start))
        self.node, self.start, self.end = node[order].astype(np.int64), start[order], end[order]
        self.performance, self.price = performance[order], price[order]
        self.attributes = {k: v[order] for k, v in extra.items()}
        self._check()

    @classmethod
    def of(cls, slots: Iterable[Slot]) -> Slots:
        """The table of ``slots`` (each slot names the same attributes)."""
        rows = list(slots)
        names = sorted({name for s in rows for name in s.attributes})
        missing = next((s for s in rows if set(s.attributes) != set(names)), None)
        if missing is not None:
            raise ConfigError(f"slots: node {missing.node}'s slot at {missing.start:g} has "
                              f"attributes {sorted(missing.attributes)}, others {names}")
        return cls([s.node for s in rows], [s.start for s in rows], [s.end for s in rows],
                   [s.performance for s in rows], [s.price for s in rows],
                   {name: [s.attributes[name] for s in rows] for name in names})

    def __len__(self) -> int:
        return int(self.start.size)

    def __getitem__(self, i: int) -> Slot:
        return Slot(int(self.node[i]), float(self.start[i]), float(self.end[i]),
                    float(self.performance[i]), float(self.price[i]),
                    {k: float(v[i]) for k, v in self.attributes.items()})

    def _check(self) -> None:
        named = [("start", self.start), ("end", self.end), ("performance", self.performance),
                 ("price", self.price), *self.attributes.items()]
        for name, values in named:
            bad = np.flatnonzero(~np.isfinite(values))
            if bad.size:
                self._refuse(bad[0], f"{name} {float(values[bad[0]])!r} is not a finite number")
        for name, values, low in (("performance", self.performance, "> 0"),
                                  ("price", self.price, ">= 0")):
            bad = np.flatnonzero(values <= 0 if low == "> 0" else values < 0)
            if bad.size:
                self._refuse(bad[0], f"{name} must be {low}, got {values[bad[0]]:g}")
        bad = np.flatnonzero(self.end <= self.start)
        if bad.size:
            self._refuse(bad[0], f"it ends at {self.end[bad[0]]:g}, not after its start")
        by_node = np.lexsort((self.start, self.node))
        same = self.node[by_node][1:] == self.node[by_node][:-1]
        overlap = np.flatnonzero(same & (self.start[by_node][1:] < self.end[by_node][:-1]))
        if overlap.size:
            self._refuse(by_node[overlap[0] + 1], f"it overlaps the node's slot ending at "
                                                  f"{self.end[by_node[overlap[0]]]:g}")

    def _refuse(self, i: int, problem: str) -> None:
        raise ConfigError(f"slots: node {self.node[i]}'s slot at {self.start[i]:g}: {problem}")


def _column(values: object) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"slots: a column holds something that is not a number: "
                          f"{values!r}"[:200]) from None


def as_slots(slots: Slots | Iterable[Slot]) -> Slots:
    """``slots`` as a :class:`Slots` table."""
    return slots if isinstance(slots, Slots) else Slots.of(slots)
