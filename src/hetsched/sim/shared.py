"""Copy on write by parts: what a fork shares with the run it came from until either changes it.

A :class:`SharedParts` holds a list of parts (lists, dicts or any object with a ``copy()``).
Its :meth:`~SharedParts.copy` copies only the list of parts, O(parts) whatever they hold; from
then on the parts are shared, so neither holder owns any, the original included: each copies a
part before its first change to it (:meth:`~SharedParts.writable`), and a change by one never
shows in the other. The engine keeps in them the per-job state (:mod:`.jobs`, a part per chunk
of jobs), the time series (:mod:`.result`, a part per block of rows) and the running jobs of
each node (:mod:`.state`, a part per node), so that a fork costs the same at any workload size
and history length, and a run copies only what it changes after a fork.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class Copyable(Protocol):
    def copy(self) -> "Copyable": ...


P = TypeVar("P", bound=Copyable)


class SharedParts(Generic[P]):
    """``parts``, and ``mine``: by position, the part when this holder may change it in
    place, else ``None`` (hot paths read ``mine[k]`` and call :meth:`writable` on ``None``)."""

    __slots__ = ("parts", "mine")

    def __init__(self, parts: list[P]) -> None:
        self.parts = parts
        self.mine: list[P | None] = list(parts)

    def writable(self, k: int) -> P:
        """Part ``k``, this holder's own (copied first when shared)."""
        part = self.mine[k]
        if part is None:
            part = self.parts[k] = self.mine[k] = self.parts[k].copy()  # type: ignore[assignment]
        return part

    def append(self, part: P) -> None:
        """A new part, this holder's own."""
        self.parts.append(part)
        self.mine.append(part)

    def share(self, other: "SharedParts[P]") -> None:
        """Make ``other`` hold the same parts. Both then share every part: this holder gives
        up its own too (a change it made in place would show in ``other``)."""
        other.parts = self.parts.copy()
        other.mine = [None] * len(self.parts)
        self.mine = [None] * len(self.parts)

    def copy(self) -> "SharedParts[P]":
        """A holder of the same parts (see :meth:`share`)."""
        other: SharedParts[P] = SharedParts.__new__(SharedParts)
        self.share(other)
        return other
