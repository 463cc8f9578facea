"""Schedulers by name. ``create("easy:node=high_gflops")`` passes options to the factory."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass

from hetsched.errors import ConfigError
from hetsched.schedulers.base import Scheduler


@dataclass(frozen=True)
class Entry:
    name: str
    factory: Callable[..., Scheduler]
    description: str
    family: str
    defaults: dict[str, object]


_REGISTRY: dict[str, Entry] = {}


def register(name: str, factory: Callable[..., Scheduler], description: str, family: str,
             **defaults: object) -> None:
    """Make ``factory(**defaults, **options)`` available as ``name``."""
    if name in _REGISTRY:
        raise ValueError(f"scheduler {name!r} registered twice")
    _REGISTRY[name] = Entry(name, factory, description, family, defaults)


def entries() -> list[Entry]:
    _load_builtins()
    return list(_REGISTRY.values())


def _parse_options(text: str, spec: str) -> dict[str, object]:
    options: dict[str, object] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"scheduler '{spec}': option '{item}' is not key=value")
        options[key.strip()] = _coerce(value.strip())
    return options


def _coerce(value: str) -> object:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def create(spec: str) -> Scheduler:
    """Build the scheduler named by ``spec`` = ``name`` or ``name:key=value,...``."""
    _load_builtins()
    name, _, option_text = spec.partition(":")
    entry = _REGISTRY.get(name.strip())
    if entry is None:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `hetsched schedulers`"
        raise ConfigError(f"unknown scheduler '{name}'{hint}")
    options = {**entry.defaults, **_parse_options(option_text, spec)}
    accepted = inspect.signature(entry.factory).parameters
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise ConfigError(f"scheduler '{name}' has no option '{unknown[0]}' "
                          f"(options: {', '.join(accepted) or 'none'})")
    try:
        scheduler = entry.factory(**options)
    except ValueError as err:
        raise ConfigError(f"scheduler '{spec}': {err}") from None
    scheduler.name = spec if option_text else name  # type: ignore[misc]
    return scheduler


def _load_builtins() -> None:
    """Import the modules that register the built-in schedulers (once)."""
    if not _REGISTRY:
        from hetsched.schedulers import builtin  # noqa: F401
