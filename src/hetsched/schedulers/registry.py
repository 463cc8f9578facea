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

from collections.abc import Callable, Iterable, Mapping

from hetsched.errors import ConfigError, did_you_mean
from hetsched.registry import Entry, Registry
from hetsched.sim.protocol import Scheduler, has_own_name, option_names

Factory = Callable[..., Scheduler]
#: Entry-point group through which installed packages add schedulers.
ENTRY_POINT_GROUP = "hetsched.schedulers"

__all__ = ["ENTRY_POINT_GROUP", "Entry", "SCHEDULERS", "build", "canonical_options", "create",
           "entries", "lookup", "parse_options", "register"]


def _builtins() -> Iterable[Entry]:
    from hetsched.schedulers.builtin import builtin_entries

    return builtin_entries()


#: Every scheduler by name: the built-ins (registered on first use), then those registered
#: from Python, then installed plugins.
SCHEDULERS = Registry("scheduler", __name__, _builtins, ENTRY_POINT_GROUP,
                      see="see `hetsched schedulers`")


def register(name: str, factory: Factory | str, description: str, family: str,
             **defaults: object) -> None:
    """Make ``factory(**defaults, **options)`` available as ``name``; ``factory`` may be a
    ``"module:attribute"`` path, imported when the scheduler is first created."""
    if not name or any(c in name for c in ":,= "):
        raise ValueError(f"scheduler name {name!r} must be non-empty, without ':', ',', '=' "
                         "or spaces")
    SCHEDULERS.register(name, factory, description, family, **defaults)


def entries() -> list[Entry]:
    """Every registered scheduler: built-ins first, then installed plugins."""
    return SCHEDULERS.entries()


def lookup(name: str) -> Entry:
    """The entry registered as ``name``, or a ConfigError with close matches."""
    return SCHEDULERS.entry(name)


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
