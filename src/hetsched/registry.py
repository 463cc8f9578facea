"""One registration style for everything hetsched finds by name: schedulers, contention models,
input formats, writers, workload generators and mapping heuristics.

An :class:`Entry` is a name, a target (the object itself, or ``"module:attribute"``, imported
when first used, so that registering imports nothing), a description, a family and the
defaults the target is called with. A :class:`Registry` holds the entries of one kind: it
reads as a mapping from names to targets (``WRITERS["swf"]``, ``name in MODELS``,
``list(HEURISTICS)``), and :meth:`Registry.entry` and :meth:`Registry.load` look a name up
with a one-line "did you mean" error. A registry may fill itself on first use (``builtins``)
and take the names installed packages declare as entry points (``entry_points``; a built-in
name always wins). :func:`hetsched.registries.registries` lists every registry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hetsched.errors import ConfigError, describe_exception, did_you_mean
from hetsched.lazy import resolve


@dataclass(frozen=True)
class Entry:
    """A registered name: ``target`` (or what ``"module:attribute"`` names), called with
    ``defaults`` where it is a factory. Without a ``text``, the description is the target's
    own: its ``describe(name, **defaults)``, else its ``description``, else its docstring's
    first line."""

    name: str
    target: Any  # the object, or "module:attribute" imported on first use
    text: str = ""
    family: str = ""
    defaults: Mapping[str, object] = field(default_factory=dict)
    kind: str = "entry"

    @property
    def factory(self) -> Any:
        """The target, imported if it is named by a path (a failure is one line)."""
        if not isinstance(self.target, str):
            return self.target
        try:
            return resolve(self.target)
        except Exception as err:  # noqa: BLE001 - a broken plugin is reported in one line
            raise ConfigError(f"{self.kind} '{self.name}' ({self.target}) cannot be loaded: "
                              f"{describe_exception(err)}") from None

    @property
    def description(self) -> str:
        if self.text:
            return self.text
        target = self.factory
        describe = getattr(target, "describe", None)
        if callable(describe):
            return str(describe(self.name, **self.defaults))
        own = getattr(target, "description", None)
        if isinstance(own, str) and own:
            return own
        return " ".join((getattr(target, "__doc__", None) or "").strip().split("\n\n")[0].split())


class Registry(Mapping[str, Any]):
    """The entries of one ``kind`` (``"scheduler"``, ``"workload format"``, ...), held by
    module ``home``, in registration order: built-ins (``builtins()``, called on first use),
    then what was registered, then installed packages' entry points of group
    ``entry_points`` (found when listing, or when a name is missing). ``see`` replaces the
    list of names in the error for an unknown name (a long registry)."""

    def __init__(self, kind: str, home: str, builtins: Callable[[], Iterable[Entry]] | None = None,
                 entry_points: str | None = None, see: str | None = None) -> None:
        self.kind = kind
        self.home = home  # the module holding the registry: its targets obey its layer
        self.see = see
        self._builtins = builtins
        self._entry_points = entry_points
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, target: Any, description: str = "", family: str = "",
                 **defaults: object) -> Entry:
        """Add ``name``; ``target`` may be a ``"module:attribute"`` path (imported when first
        used). A name is registered once (ValueError)."""
        self._load_builtins()
        return self._add(Entry(name, target, description, family, dict(defaults), self.kind))

    def entry(self, name: str) -> Entry:
        """The entry of ``name``, or a ConfigError with the close names."""
        self._load_builtins()
        if name not in self._entries:
            self._load_entry_points()
        found = self._entries.get(name)
        if found is None:
            raise ConfigError(self.unknown(name))
        return found

    def load(self, name: str) -> Any:
        """The target of ``name`` (imported if named by a path), or a one-line ConfigError."""
        return self.entry(name).factory

    def entries(self) -> list[Entry]:
        """Every entry: built-ins first, then the registered ones, then installed plugins."""
        self._load_builtins()
        self._load_entry_points()
        return list(self._entries.values())

    def unknown(self, name: str) -> str:
        """The message for an unknown ``name``: close names, else the list (or ``see``)."""
        names = list(self._entries)
        close = did_you_mean(name, names, most=3)
        if self.see is not None:
            return f"unknown {self.kind} '{name}'{close or f'; {self.see}'}"
        return f"unknown {self.kind} '{name}'{close} (known: {', '.join(names)})"

    def __getitem__(self, name: str) -> Any:
        self._load_builtins()
        return self._entries[name].factory

    def __contains__(self, name: object) -> bool:
        self._load_builtins()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self._load_builtins()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self._load_builtins()
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._entries)})"

    def _add(self, entry: Entry) -> Entry:
        if not isinstance(entry.name, str) or not entry.name:
            raise ValueError(f"a {self.kind} needs a name, got {entry.name!r}")
        if entry.name in self._entries:
            raise ValueError(f"{self.kind} {entry.name!r} registered twice")
        self._entries[entry.name] = entry if entry.kind == self.kind else \
            replace(entry, kind=self.kind)
        return self._entries[entry.name]

    def _load_builtins(self) -> None:
        if self._builtins is not None:
            builtins, self._builtins = self._builtins, None
            for entry in builtins():
                self._add(entry)

    def _load_entry_points(self) -> None:
        """Add the names installed packages declare (once); a name already taken is skipped:
        built-ins always win."""
        if self._entry_points is None:
            return
        from importlib.metadata import entry_points

        group, self._entry_points = self._entry_points, None
        for point in entry_points(group=group):
            if point.name not in self._entries:
                self._add(Entry(point.name, point.value, f"from package {_distribution(point)}",
                                "plugin", {}, self.kind))


def _distribution(point: Any) -> str:
    dist = getattr(point, "dist", None)
    return getattr(dist, "name", None) or point.value.partition(":")[0]
