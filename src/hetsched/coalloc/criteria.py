"""The criteria a window is chosen by (Toporkov & Yemelyanov, ICCS 2018, §3.3 and §4.2).

Two kinds, by how the scan picks the ``n`` slots of a window among the candidates at a start:

- ``sort``: FirstFit, MinStart, MinFinish, MinRuntime and MinCost. At one start, in one
  performance group, every ``n``-subset of the candidates has the same start, length and
  finish, and the ``n`` cheapest have the least cost: the scan takes the ``n`` cheapest (a
  sort), and a window exists there only if they fit the budget. FirstFit walks the slots by
  start and, at each, the groups from the fastest: its window is the earliest affordable
  start, on the fastest group there, which is MinStart's window (ties go to the faster
  group), so the two share a measure and a scan;
- ``additive``: maximise (or minimise) ``Σ z_i`` of an attribute of the slots within the
  budget: MaxQ (``q``), or any attribute named ``max:NAME`` or ``min:NAME``. The scan solves
  a cardinality-constrained 0-1 knapsack (:mod:`hetsched.coalloc.knapsack`).

A criterion's *measure* is the number it minimises or maximises: the window's start, finish,
runtime, cost or ``Σ z_i``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hetsched.errors import ConfigError
from hetsched.registry import Registry

KINDS = ("sort", "additive")
#: The measures of the ``sort`` criteria.
MEASURES = ("start", "finish", "runtime", "cost")


@dataclass(frozen=True)
class Criterion:
    """``kind``: ``sort`` or ``additive``; ``measure``: for ``sort`` one of :data:`MEASURES`,
    for ``additive`` the attribute summed; ``maximize``: whether a larger measure is better
    (additive criteria only)."""

    name: str
    kind: str
    measure: str
    maximize: bool = False
    description: str = ""

    def value(self, start: Any, runtime: Any, cost: Any, totals: Mapping[str, Any]) -> Any:
        """The measure of a window of ``start``, ``runtime``, ``cost`` and attribute
        ``totals`` (numbers, or numpy arrays of many windows' values)."""
        if self.kind == "additive":
            return totals[self.measure]
        return {"start": start, "finish": start + runtime, "runtime": runtime,
                "cost": cost}[self.measure]

    def better(self, a: float, b: float) -> bool:
        """Whether measure ``a`` is strictly better than ``b``."""
        return a > b if self.maximize else a < b


#: The criteria by name; ``max:NAME`` and ``min:NAME`` (any attribute) are made on demand.
CRITERIA = Registry("co-allocation criterion", __name__)
for _criterion in (
        Criterion("first_fit", "sort", "start",
                  description="the first affordable window by start, on the fastest group "
                              "there (MinStart's window)"),
        Criterion("min_start", "sort", "start", description="the earliest start"),
        Criterion("min_finish", "sort", "finish", description="the earliest finish"),
        Criterion("min_runtime", "sort", "runtime",
                  description="the shortest runtime (the fastest slowest slot)"),
        Criterion("min_cost", "sort", "cost", description="the least total cost"),
        Criterion("max_q", "additive", "q", maximize=True,
                  description="the largest sum of the slots' attribute q within the budget")):
    CRITERIA.register(_criterion.name, _criterion, _criterion.description)

_ATTRIBUTE = re.compile(r"(max|min):([A-Za-z_][A-Za-z0-9_]*)")


def criterion(spec: str) -> Criterion:
    """The criterion named ``spec``: a registered name, or ``max:NAME`` / ``min:NAME`` for the
    sum of attribute ``NAME``; a one-line ConfigError otherwise."""
    if not isinstance(spec, str):
        raise ConfigError(f"a criterion is a name, got {spec!r}")
    additive = _ATTRIBUTE.fullmatch(spec)
    if additive:
        sense, name = additive.groups()
        return Criterion(spec, "additive", name, maximize=sense == "max",
                         description=f"the {'largest' if sense == 'max' else 'least'} sum of "
                                     f"the slots' attribute {name} within the budget")
    if ":" in spec:
        raise ConfigError(f"criterion {spec!r}: an additive criterion is max:NAME or "
                          f"min:NAME, NAME an attribute of the slots")
    found: Criterion = CRITERIA.load(spec)
    return found
