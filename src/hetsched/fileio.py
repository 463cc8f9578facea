"""Shared helpers of the file loaders: reading JSON/YAML and turning validation errors into
one-line :class:`~hetsched.errors.InputError` messages (file, record, field, problem)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from hetsched.errors import InputError

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """Schema of our own formats: no unknown keys, no type coercion, finite numbers only."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class ForeignModel(BaseModel):
    """Schema of another tool's format: its extra keys are ignored, known ones checked strictly."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False, frozen=True)


#: Suffixes read as structured documents (JSON or YAML).
JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")
STRUCTURED_SUFFIXES = JSON_SUFFIXES + YAML_SUFFIXES

#: Names the record at a list position or mapping key: ``job 'j1'``, ``jobs[3]``.
RecordNamer = Callable[[int | str], str]


def file_stem(path: str | Path) -> str:
    """The file name without its format suffixes (``a.swf.gz`` -> ``a``)."""
    name = Path(path).name
    for suffix in (".gz", ".swf", *STRUCTURED_SUFFIXES):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name or Path(path).name


def check_exists(path: Path) -> None:
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, not a file")


def read_text(path: Path) -> str:
    """The file's text (UTF-8), with missing/unreadable files reported as InputError."""
    check_exists(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None


def read_structured(path: str | Path) -> Any:
    """Parse a JSON (``.json``) or YAML (``.yaml``/``.yml``) file."""
    path = Path(path)
    text = read_text(path)
    if path.suffix.lower() in YAML_SUFFIXES:
        return parse_yaml(text, path)
    return parse_json(text, path)


def parse_json(text: str, path: Path) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON: {exc.msg}",
                         record=f"line {exc.lineno}, column {exc.colno}") from None
    except ValueError as exc:  # NaN / Infinity literals
        raise InputError(path, f"malformed JSON: {exc}") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"'{name}' is not a valid JSON number")


class _YamlLoader(yaml.SafeLoader):
    """SafeLoader that also reads ``1e9`` and ``3.0e11`` as floats (YAML 1.2; PyYAML's 1.1
    rules need a sign and a dot, and would silently give strings)."""


_YamlLoader.yaml_implicit_resolvers = {
    key: list(resolvers) for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_YamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def parse_yaml(text: str, path: Path) -> Any:
    try:
        return yaml.load(text, Loader=_YamlLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        record = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(path, f"malformed YAML: {problem}", record=record) from None


def require_mapping(data: Any, path: Path, what: str = "the top level") -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError(path, f"expected an object (key: value mapping) at {what}, "
                               f"got {type_name(data)}")
    return data


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "nothing",
            bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "a value")


def field_name(loc: tuple[int | str, ...]) -> str:
    """``('clusters', 0, 'nodes', 1, 'type')`` -> ``clusters[0].nodes[1].type``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def record_name(item: Any, index: int | str, key: str, label: str, collection: str) -> str:
    """``label 'value'`` from the item's ``key`` (e.g. ``job 'j1'``), else ``collection[index]``."""
    value = item.get(key) if isinstance(item, Mapping) else None
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return f"{label} '{value}'"
    return f"{collection}[{index}]"


def record_namer(items: Any, key: str, label: str, collection: str) -> RecordNamer:
    """Names the elements of the list ``items`` with :func:`record_name`."""
    def name(index: int | str) -> str:
        item = None
        if isinstance(items, list) and isinstance(index, int) and index < len(items):
            item = items[index]
        return record_name(item, index, key, label, collection)
    return name


def _identifier(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


#: An id given as a string or an integer, kept as a non-empty string.
Identifier = Annotated[str, BeforeValidator(_identifier), Field(min_length=1)]


def validate(model: type[M], data: Any, path: Path, record: str | None = None,
             records: Mapping[str, RecordNamer] | None = None) -> M:
    """Validate ``data`` with a pydantic ``model``; the first error becomes an InputError.

    ``records`` maps a top-level list field (e.g. ``jobs``) to a function naming its elements,
    so an error at ``('jobs', 3, 'ntasks')`` reads ``job 'j3', field 'ntasks'``.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, path, record, records) from None


def validation_error(exc: ValidationError, path: Path, record: str | None = None,
                     records: Mapping[str, RecordNamer] | None = None) -> InputError:
    error = exc.errors(include_url=False)[0]
    loc = tuple(error["loc"])
    if records and len(loc) >= 2 and loc[0] in records:
        record = records[loc[0]](loc[1])
        loc = loc[2:]
    problem = _problem(error)
    return InputError(path, problem, record=record, field=field_name(loc) or None)


def _problem(error: Mapping[str, Any]) -> str:
    msg = str(error["msg"])
    kind = error.get("type", "")
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (not allowed here)"
    value = error.get("input")
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected an object (key: value mapping), got {type_name(value)}"
    if kind == "list_type":
        return f"expected a list, got {type_name(value)}"
    if isinstance(value, (int, float, str, bool)):
        shown = repr(value) if isinstance(value, str) else value
        if isinstance(value, str) and len(shown) > 40:
            shown = shown[:37] + "...'"
        msg += f" (got {shown})"
    return msg[0].lower() + msg[1:] if msg else msg


def check_unique(names: list[str], path: Path, label: str, field: str) -> None:
    """Raise on the first repeated name, naming it as the record (``job 'j1'``)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(path, f"duplicate {label} {field}", record=f"{label} '{name}'",
                             field=field)
        seen.add(name)
