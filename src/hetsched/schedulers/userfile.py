"""Schedulers from a user's Python file: ``path/to/file.py:ClassName[:key=value,...]``.

The file is imported as a module of its own (once per path and modification time), the class
must be a :class:`~hetsched.schedulers.Scheduler` subclass, and its ``__init__`` arguments are
the options. Every problem — a missing file, a syntax error, an exception while importing, a
missing or wrong class — is one :class:`~hetsched.errors.ConfigError` line.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from hetsched.errors import ConfigError, describe_exception, did_you_mean
from hetsched.sim.protocol import Scheduler

#: ``file.py:Class`` then optional ``:options``; the path may itself contain ':' (Windows).
_FILE_SPEC = re.compile(r"^(?P<path>.+?\.py):(?P<cls>[A-Za-z_]\w*)(?::(?P<options>.*))?$")


def is_file_spec(spec: str) -> bool:
    return _FILE_SPEC.match(spec.strip()) is not None


def file_spec_parts(spec: str) -> tuple[str, str] | None:
    """``("path/to/file.py", ":ClassName[:options]")`` for a file spec, ``None`` otherwise."""
    match = _FILE_SPEC.match(spec.strip())
    return None if match is None else (match["path"], spec.strip()[match.end("path"):])


def load_file_spec(spec: str) -> tuple[type[Scheduler], str, str]:
    """The class a file spec names, the scheduler's name (the class's ``name`` attribute, or
    the class name) and the option text."""
    match = _FILE_SPEC.match(spec.strip())
    if match is None:
        raise ConfigError(f"'{spec}' is not path/to/file.py:ClassName[:key=value,...]")
    path = Path(match["path"]).expanduser()
    if not path.is_file():
        raise ConfigError(f"scheduler '{spec}': no such file {path}")
    module = _import_file(path.resolve(), path.stat().st_mtime_ns)
    cls = _scheduler_class(module, match["cls"], path)
    own_name = cls.__dict__.get("name")
    name = own_name if isinstance(own_name, str) and own_name else cls.__name__
    return cls, name, match["options"] or ""


@cache
def _import_file(path: Path, mtime_ns: int) -> ModuleType:
    """Import ``path`` as a module named after it (cached per path and modification time)."""
    name = f"hetsched_user_{abs(hash((str(path), mtime_ns))):x}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:  # pragma: no cover - .py files load
        raise ConfigError(f"{path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses and pickling look classes up by module name
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as err:
        del sys.modules[name]
        raise ConfigError(f"{path}, line {err.lineno}: syntax error: {err.msg}") from None
    except Exception as err:  # noqa: BLE001 - any failure of user code is reported, one line
        del sys.modules[name]
        raise ConfigError(f"{path}: importing it failed: {describe_exception(err)}") \
            from None
    return module


def _scheduler_class(module: ModuleType, name: str, path: Path) -> type[Scheduler]:
    cls = getattr(module, name, None)
    if cls is None:
        found = [n for n, v in vars(module).items() if inspect.isclass(v)
                 and issubclass(v, Scheduler) and v.__module__ == module.__name__]
        hint = (did_you_mean(name, found)
                or f" (scheduler classes there: {', '.join(found) or 'none'})")
        raise ConfigError(f"{path}: no class '{name}'{hint}")
    if not (inspect.isclass(cls) and issubclass(cls, Scheduler)):
        raise ConfigError(f"{path}: '{name}' is not a subclass of hetsched.schedulers.Scheduler")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise ConfigError(f"{path}: class '{name}' does not implement {missing}")
    return cls
