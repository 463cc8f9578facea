"""Schedulers by name. ``create("easy:node_selection=high_gflops")`` passes options to the
factory.

Three sources, one contract (the same option parsing, validation and "did you mean" errors):
- the built-in schedulers (:mod:`hetsched.schedulers.builtin`), registered on first use;
- schedulers of installed packages, declared as entry points of the group
  ``hetsched.schedulers`` (``name = "package.module:Class"``), found on first lookup of a name
  that is not built in, or when listing;
- a class in a Python file, named in the spec: ``path/to/file.py:ClassName[:key=value,...]``
  (see :mod:`hetsched.schedulers.userfile`).

A factory may be given as ``"module:attribute"``: it is imported only when a scheduler is
created, so listing names or creating ``fcfs`` never imports the mapping or ds-sim families.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hetsched.errors import ConfigError, describe_exception, did_you_mean
from hetsched.lazy import resolve
from hetsched.sim.protocol import Scheduler, has_own_name, option_names

Factory = Callable[..., Scheduler]
#: Entry-point group through which installed packages add schedulers.
ENTRY_POINT_GROUP = "hetsched.schedulers"


@dataclass(frozen=True)
class Entry:
    """A registered scheduler: ``factory(**defaults, **options)`` builds it."""

    name: str
    target: Factory | str  # the factory, or "module:attribute" imported on first use
    description: str
    family: str
    defaults: Mapping[str, object] = field(default_factory=dict)

    @property
    def factory(self) -> Factory:
        if not isinstance(self.target, str):
            return self.target
        try:
            return resolve(self.target)
        except Exception as err:  # noqa: BLE001 - a broken plugin is reported in one line
                    raise ConfigError(f"scheduler '{self.name}' ({self.target}) cannot be loaded: "
                              f"{describe_exception(err)}") from None


_REGISTRY: dict[str, Entry] = {}
_LOADED: set[str] = set()  # which of "builtins", "plugins" have been registered


def register(name: str, factory: Factory | str, description: str, family: str,
             **defaults: object) -> None:
    """Make ``factory(**defaults, **options)`` available as ``name``; ``factory`` may be a
    ``"module:attribute"`` path, imported when the scheduler is first created."""
    _load_builtins()
    if name in _REGISTRY:
        raise ValueError(f"scheduler {name!r} registered twice")
    if not name or any(c in name for c in ":,= "):
        raise ValueError(f"scheduler name {name!r} must be non-empty, without ':', ',', '=' "
                         "or spaces")
    _REGISTRY[name] = Entry(name, factory, description, family, dict(defaults))


def entries() -> list[Entry]:
    """Every registered scheduler: built-ins first, then installed plugins."""
    _load_builtins()
    _load_plugins()
    return list(_REGISTRY.values())


def lookup(name: str) -> Entry:
    """The entry registered as ``name``, or a ConfigError with close matches."""
    _load_builtins()
    if name not in _REGISTRY:
        _load_plugins()
    entry = _REGISTRY.get(name)
    if entry is None:
        hint = did_you_mean(name, list(_REGISTRY), most=3) or "; see `hetsched schedulers`"
        raise ConfigError(f"unknown scheduler '{name}'{hint}")
    return entry


def create(spec: str) -> Scheduler:
    """Build the scheduler named by ``spec``: ``name``, ``name:key=value,...``, or
    ``path/to/file.py:ClassName[:key=value,...]``."""
    from hetsched.schedulers.userfile import is_file_spec, load_file_spec

    if is_file_spec(spec):
        factory, name, option_text = load_file_spec(spec)
        defaults: Mapping[str, object] = {}
    else:
        name, _, option_text = (part.strip() for part in spec.partition(":"))
        entry = lookup(name)
        factory, defaults = entry.factory, entry.defaults
    given = canonical_options(factory, parse_options(option_text, spec), spec)
    scheduler = build(factory, {**defaults, **given}, spec)
    scheduler.spec = spec if option_text else name
    if not has_own_name(type(scheduler)):
        scheduler.name = scheduler.spec  # type: ignore[misc]
    return scheduler


def parse_options(text: str, spec: str) -> dict[str, object]:
    """``"a=1,b=x"`` -> ``{"a": 1, "b": "x"}`` (ints, floats, true/false, else strings)."""
    options: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"scheduler '{spec}': option '{item}' is not key=value")
        options[key.strip()] = _coerce(value.strip())
    return options


def canonical_options(factory: Factory, options: Mapping[str, object],
                      spec: str) -> dict[str, object]:
    """``options`` with the other names the factory accepts (its ``aliases``, such as
    ``node`` for ``node_selection``) replaced by the names they stand for."""
    aliases: Mapping[str, str] = getattr(factory, "aliases", {})
    resolved: dict[str, object] = {}
    for key, value in options.items():
        name = aliases.get(key, key)
        if name in resolved or (name != key and name in options):
            raise ConfigError(f"scheduler '{spec}': '{key}' is another name of '{name}'; "
                              "give one of them")
        resolved[name] = value
    return resolved


def _coerce(value: str) -> object:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def build(factory: Factory, options: Mapping[str, object], spec: str) -> Scheduler:
    """``factory(**options)`` after checking the option names against its signature; a
    ValueError or TypeError of the factory becomes a one-line ConfigError."""
    accepted = option_names(factory)
    unknown = [k for k in options if accepted is not None and k not in accepted]
    if unknown:
        hint = did_you_mean(unknown[0], [*(accepted or ()), *getattr(factory, "aliases", {})])
        raise ConfigError(f"scheduler '{spec}' has no option '{unknown[0]}' (options: "
                          f"{', '.join(accepted or ()) or 'none'}){hint}")
    try:
        scheduler = factory(**options)
    except (ValueError, TypeError) as err:
        raise ConfigError(f"scheduler '{spec}': {err}") from None
    if not isinstance(scheduler, Scheduler):
        raise ConfigError(f"scheduler '{spec}' built a {type(scheduler).__name__}, not a "
                          "hetsched.schedulers.Scheduler")
    return scheduler


def _load_builtins() -> None:
    """Register the built-in schedulers (once; cheap: their modules load on first use)."""
    if "builtins" not in _LOADED:
        _LOADED.add("builtins")
        importlib.import_module("hetsched.schedulers.builtin")


def _load_plugins() -> None:
    """Register the schedulers that installed packages declare as entry points (once). A
    plugin's name that is already taken is skipped: built-ins always win."""
    if "plugins" in _LOADED:
        return
    _LOADED.add("plugins")
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in _REGISTRY:
            _REGISTRY[point.name] = Entry(point.name, point.value,
                                          f"from package {_distribution(point)}", "plugin")


def _distribution(point: Any) -> str:
    dist = getattr(point, "dist", None)
    return getattr(dist, "name", None) or point.value.partition(":")[0]
