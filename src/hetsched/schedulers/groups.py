"""Nodes of one type whose projected free resources are the same step function, as groups that
share one :class:`~hetsched.schedulers.skyline.Skyline`: what backfilling's profile searches
and books once per group rather than once per node.

On a large machine most nodes are alike: idle ones, those a wide job holds until the same
estimated end, those a reservation takes over the same window. A node joins a group only while
its free cores, memory and disk from now on are those of the group's other nodes (its node
type the same too, so that it can run the same jobs for the same time); a booking that takes
some of a group's nodes and not others splits it, and groups that become alike again (a
booking released, the steps that told them apart in the past) merge. Nothing but node ids
tells the nodes of a group apart, so every search gives what it would give with one skyline
per node (the nodes a job gets are chosen among them by the node selection, as before).

A skyline's steps after now are a function of its free resources (equal neighbours are always
merged), so two nodes are alike exactly when the skylines' steps from the one holding now on
are equal: a group's *key*. Keys are kept for each group and looked up when a group changes;
one made at an earlier time may still hold steps that have since ended, which only delays a
merge until the group is looked at again (:meth:`NodeGroups.regroup`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from hetsched.schedulers.skyline import Skyline
from hetsched.sim.resources import Allocation

#: A group's key: its node type, and its skyline's steps from the one holding now on.
Key = tuple[int, tuple[float, ...], tuple[int, ...], tuple[float, ...], tuple[float, ...]]
#: A change booked on one node: ``(node, cores, mem, disk)`` (negative: taken).
Change = tuple[int, int, float, float]


class NodeGroups:
    """Groups by id: ``skylines[g]``, ``members[g]`` (a set of node ids) and ``kinds[g]``
    (their node type), ``None`` for an id not in use; ``of[n]`` (and the numpy ``ids``) is
    node n's group, ``nodes[n]`` its skyline."""

    def __init__(self, skylines: list[Skyline], kinds: list[int], now: float) -> None:
        self.skylines: list[Skyline | None] = []
        self.members: list[set[int] | None] = []
        self.kinds: list[int] = []
        self.sizes: list[int] = []  # how many nodes each has (0: an id not in use)
        self.keys: list[Key | None] = []
        self.by_key: dict[Key, int] = {}
        self.spare: list[int] = []  # ids not in use
        self.of: list[int] = []
        for node, skyline in enumerate(skylines):
            key = _key(kinds[node], skyline, now)
            group = self.by_key.get(key)
            if group is None:
                group = self._new(skyline, set(), kinds[node])
                self._register(group, key)
            self.members[group].add(node)  # type: ignore[union-attr]
            self.sizes[group] += 1
            self.of.append(group)
        self.ids = np.array(self.of, dtype=np.intp)
        self.nodes = [self.skylines[group] for group in self.of]

    def __len__(self) -> int:
        return len(self.skylines) - len(self.spare)

    def live(self) -> list[int]:
        """The ids in use, in order."""
        return [group for group, members in enumerate(self.members) if members is not None]

    def one(self, group: int) -> int:
        """A node of ``group`` (any: they are alike)."""
        return next(iter(self.members[group]))  # type: ignore[arg-type]

    def firsts(self, order: list[int] | None) -> list[tuple[int, int]]:
        """Each group with a node of it: the first in ``order`` (the groups in the order of
        those nodes), or any (the groups by id) without one."""
        if order is None:
            return [(group, next(iter(members))) for group, members in enumerate(self.members)
                    if members is not None]
        seen: dict[int, int] = {}
        of = self.of
        for node in order:
            seen.setdefault(of[node], node)
        return list(seen.items())

    def mask(self, groups: list[int]) -> np.ndarray:
        """Each node: whether its group is one of ``groups``."""
        fit = np.zeros(len(self.skylines), dtype=bool)
        fit[groups] = True
        return fit[self.ids]

    def positions(self) -> tuple[list[Skyline], np.ndarray | None, np.ndarray | None]:
        """The groups' skylines (in the order of their ids), how many nodes each has, and
        for each node the position of its group's among them."""
        sizes = np.array(self.sizes)
        alive = sizes > 0
        where = (np.cumsum(alive) - 1)[self.ids]
        return [sky for sky in self.skylines if sky is not None], sizes[alive], where

    def add(self, start: float, end: float, changes: list[Change], now: float) -> None:
        """Add each change over ``[start, end)`` (see :meth:`Skyline.add`): once per group for
        the nodes of a group that change alike, which leave their group first if it has
        others."""
        alike: dict[tuple[int, int, float, float], list[int]] = {}
        of = self.of
        for node, cores, mem, disk in changes:
            alike.setdefault((of[node], cores, mem, disk), []).append(node)
        touched = []
        for (group, cores, mem, disk), nodes in alike.items():
            members = self.members[group]
            assert members is not None
            if len(nodes) < len(members):
                group = self._split(group, nodes)
            skyline = self.skylines[group]
            assert skyline is not None
            skyline.prune(now)
            skyline.add(start, end, cores, mem, disk)
            touched.append(group)
        for group in touched:  # (no group may merge into one changed and not looked up yet)
            self._unregister(group)
        for group in touched:
            if self.members[group] is not None:
                self._rekey(group, now)

    def add_slots(self, start: float, end: float, allocation: Allocation, sign: int,
                  now: float) -> None:
        """:meth:`add` of ``sign`` times the cores of each ``(node, count)``."""
        self.add(start, end, [(node, sign * count, 0.0, 0.0) for node, count in allocation],
                 now)

    def regroup(self, now: float) -> None:
        """Forget the steps that ended by ``now`` and merge the groups they alone told apart
        from others (the keys of the other groups hold)."""
        for group, skyline in enumerate(self.skylines):
            if skyline is not None and len(skyline.times) > 1 and skyline.times[1] <= now \
                    and self.members[group] is not None:
                skyline.prune(now)
                self._rekey(group, now)

    def _rekey(self, group: int, now: float) -> None:
        """Look ``group`` up by its key now: merged into the group alike if there is one."""
        self._unregister(group)
        skyline = self.skylines[group]
        assert skyline is not None
        key = _key(self.kinds[group], skyline, now)
        other = self.by_key.get(key)
        if other is None:
            self._register(group, key)
        else:
            self._merge(group, other)

    def _register(self, group: int, key: Key) -> None:
        self.keys[group] = key
        self.by_key[key] = group

    def _unregister(self, group: int) -> None:
        key = self.keys[group]
        if key is not None:
            if self.by_key.get(key) == group:
                del self.by_key[key]
            self.keys[group] = None

    def _new(self, skyline: Skyline, members: set[int], kind: int) -> int:
        if self.spare:
            group = self.spare.pop()
            self.skylines[group], self.members[group], self.kinds[group] = \
                skyline, members, kind
            self.sizes[group] = len(members)
        else:
            group = len(self.skylines)
            self.skylines.append(skyline)
            self.members.append(members)
            self.kinds.append(kind)
            self.sizes.append(len(members))
            self.keys.append(None)
        return group

    def _split(self, group: int, nodes: list[int]) -> int:
        """Move ``nodes`` (some of ``group``'s) to a new group with a copy of its skyline."""
        skyline, members = self.skylines[group], self.members[group]
        assert skyline is not None and members is not None
        members.difference_update(nodes)
        self.sizes[group] = len(members)
        copy = Skyline(skyline.times.copy(), skyline.cores.copy(), skyline.mem.copy(),
                       skyline.disk.copy())
        new = self._new(copy, set(nodes), self.kinds[group])
        self._move(nodes, new, copy)
        return new

    def _merge(self, group: int, into: int) -> None:
        """Move every node of ``group`` to ``into`` (alike from now on)."""
        members, target = self.members[group], self.members[into]
        skyline = self.skylines[into]
        assert members is not None and target is not None and skyline is not None
        target.update(members)
        self.sizes[into], self.sizes[group] = len(target), 0
        self._move(list(members), into, skyline)
        self._unregister(group)
        self.skylines[group] = self.members[group] = None
        self.spare.append(group)

    def _move(self, nodes: list[int], group: int, skyline: Skyline) -> None:
        of, skylines = self.of, self.nodes
        for node in nodes:
            of[node] = group
            skylines[node] = skyline
        self.ids[nodes] = group


class Singletons:
    """Each node a group of its own for good (a group's id is its node's): on a platform where
    no two nodes share a type nothing ever groups, and :class:`NodeGroups`' keys would only
    cost each booking and each move of the present (lublin_256 on the 20-node platform: a
    third slower). The same interface, read the same way by the profile."""

    def __init__(self, skylines: list[Skyline]) -> None:
        self.skylines = self.nodes = skylines
        self.of = list(range(len(skylines)))
        self.ids = np.arange(len(skylines))
        self.sizes = [1] * len(skylines)

    def __len__(self) -> int:
        return len(self.skylines)

    def one(self, group: int) -> int:
        return group

    def firsts(self, order: list[int] | None) -> Iterable[tuple[int, int]]:
        nodes = self.of if order is None else order
        return zip(nodes, nodes)

    def mask(self, groups: list[int]) -> np.ndarray:
        fit = np.zeros(len(self.skylines), dtype=bool)
        fit[groups] = True
        return fit

    def positions(self) -> tuple[list[Skyline], None, None]:
        """(One node each, each its own: no sizes and positions to read.)"""
        return self.skylines, None, None

    def add(self, start: float, end: float, changes: list[Change], now: float) -> None:
        skylines = self.skylines
        for node, cores, mem, disk in changes:
            skylines[node].prune(now)
            skylines[node].add(start, end, cores, mem, disk)

    def add_slots(self, start: float, end: float, allocation: Allocation, sign: int,
                  now: float) -> None:
        """(Node by node, without a list of changes: the hot path of a booking.)"""
        skylines = self.skylines
        for node, count in allocation:
            skylines[node].prune(now)
            skylines[node].add(start, end, sign * count, 0.0, 0.0)

    def regroup(self, now: float) -> None:
        """Nothing to merge (steps that ended are dropped as their node is booked)."""


def grouped(skylines: list[Skyline], kinds: list[int], now: float) -> NodeGroups | Singletons:
    """Groups of the nodes alike, as :class:`Singletons` when no two nodes share a type."""
    if len(set(kinds)) == len(kinds):
        return Singletons(skylines)
    return NodeGroups(skylines, kinds, now)


def _key(kind: int, skyline: Skyline, now: float) -> Key:
    first = skyline.step_at(now)
    return (kind, tuple(skyline.times[first + 1:]), tuple(skyline.cores[first:]),
            tuple(skyline.mem[first:]), tuple(skyline.disk[first:]))
